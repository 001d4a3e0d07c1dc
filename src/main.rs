//! The `slccache` binary: parses the command line and hands over to the library. Only this
//! file exits the process.

use clap::Parser;
use slccache::cli::{Cli, Command};
use slccache::stdout::Outcome;
use slccache::store::recorder::{self, Recording};

fn main() {
    let args = slccache::cli::usage::join_negative_values(std::env::args_os().collect());
    let mut cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help`, `--version` and `help` print to stdout (exit 0), usage errors to stderr
            // (exit 2). The help is a result like any other: one that could not be written
            // is an error (exit 1).
            if e.use_stderr() {
                // `slccache` (or `slccache runs db`) alone: the help, on stderr.
                if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    eprint!("{}", e.render());
                } else {
                    // Told as every other error is: one line "slccache: error: ...", then a
                    // short usage hint. A value a validator refused says what is wrong with
                    // it, with no usage added; every other parser error gives the usage of
                    // the command typed, where clap's own text has none.
                    let rendered = e.render().to_string();
                    eprintln!(
                        "{}",
                        if e.kind() == clap::error::ErrorKind::ValueValidation {
                            slccache::cli::usage::usage_error_text(&rendered)
                        } else {
                            slccache::cli::usage::usage_error_text_for(&rendered, &args)
                        }
                    );
                }
                std::process::exit(e.exit_code());
            }
            let printed = e.print();
            slccache::stdout::check(printed);
            std::process::exit(stdout_code(e.exit_code()));
        }
    };
    // `-q/--quiet` before the command's name means what it means after it.
    if cli.before.quiet {
        cli.command.set_quiet();
    }
    // The results-store flags, given after the command or before it: a command that does not
    // take one refuses it (exit 2) before anything runs.
    let flags = match slccache::cli::resolve::store_flags(&cli) {
        Ok(f) => f,
        Err(e) => {
            slccache::note!("slccache: error: {e:#}");
            std::process::exit(exit_code(&e));
        }
    };
    // Where runs are recorded (--no-record, --db, SLCCACHE_DB, the default), and the store that
    // `runs` and `compare ID` read. A --db that is no store (a URL of another scheme) is a
    // usage error before anything runs, for every command that records or reads the store.
    let uses_store = !matches!(cli.command.store_use(), slccache::cli::StoreUse::None);
    let resolved = Recording::from_env(flags.no_record, flags.db.as_deref())
        .and_then(|r| Ok((r, Recording::store_location(flags.db.as_deref())?)));
    let recording = match resolved {
        Ok((r, store)) => {
            // No run writes over the store (or its -wal and -shm files), by any path to it.
            if let Some(loc) = &store {
                slccache::device::set_protected(slccache::store::protected_files(loc));
            }
            recorder::set_location(store);
            recorder::set_recording(matches!(r, Recording::To(_)));
            r
        }
        Err(e) if uses_store => {
            slccache::note!("slccache: error: {e:#}");
            std::process::exit(exit_code(&e));
        }
        Err(_) => Recording::Off,
    };
    let require_record = flags.require_record
        || std::env::var("SLCCACHE_REQUIRE_RECORD")
            .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
    if require_record && flags.no_record {
        slccache::note!("slccache: error: --no-record and SLCCACHE_REQUIRE_RECORD=1 contradict");
        std::process::exit(2);
    }
    // Where a run comes from (--host, SLCCACHE_HOST, the machine's name; --tag): into every
    // summary.json a command writes. A bad tag or host is a usage error before anything runs.
    if matches!(cli.command.store_use(), slccache::cli::StoreUse::Record(_)) {
        let env_host = std::env::var("SLCCACHE_HOST").ok();
        let origin = slccache::origin::resolve_host(flags.host.as_deref(), env_host.as_deref())
            .and_then(|host| {
                Ok(slccache::origin::Origin {
                    host,
                    tags: slccache::origin::parse_tags(&flags.tags)?,
                })
            });
        match origin {
            Ok(o) => slccache::origin::set(o),
            Err(e) => {
                slccache::note!("slccache: error: {e:#}");
                std::process::exit(exit_code(&e));
            }
        }
    }
    let selection = slccache::cli::OriginArgs {
        host: flags.host.clone(),
        tags: flags.tags.clone(),
        db: flags.db.clone(),
    };
    let result = match cli.command {
        Command::Probe(a) => slccache::commands::probe::run(a),
        Command::Analyze(a) => slccache::commands::analyze::run(a),
        Command::Simulate(a) => slccache::commands::simulate::run(a),
        Command::Compare(a) => slccache::commands::compare::run(a),
        Command::Info(a) => slccache::commands::info::run(a),
        Command::Sweep(a) => slccache::commands::sweep::run(a),
        Command::Presets(a) => slccache::model::presets::print_presets(a.json),
        Command::Completions(a) => slccache::commands::install::run_completions(a),
        Command::Man(a) => slccache::commands::install::run_man(a),
        Command::Recovery(a) => slccache::commands::recovery::run(a),
        Command::FillSweep(a) => slccache::commands::fill_sweep::run(a),
        Command::Runs(a) => slccache::commands::runs::run(a, &selection),
        Command::History(a) => slccache::commands::history::run(a, &selection),
        Command::Db(a) => slccache::commands::db::run(a),
    };
    // A folder written into with --force holds this run's outputs only: those an earlier run
    // left there that this one did not write again go (before the folder is recorded).
    slccache::report::outputs::outdir::remove_stale();
    // Every folder a command finished, also when it failed or was interrupted. A run that could
    // not be recorded waits in the spool; it changes the exit code only under --require-record.
    let noted = recorder::noted_count();
    let outcomes = recorder::record_finished(&recording);
    let ids: Vec<(std::path::PathBuf, Option<i64>)> = outcomes
        .iter()
        .filter_map(|o| match o {
            recorder::Outcome::Recorded { rec, dir } => Some((dir.clone(), Some(rec.id()))),
            _ => None,
        })
        .collect();
    // --json results, with the id each run got.
    slccache::stdout::check(recorder::flush_json(&ids));
    let lost = outcomes
        .iter()
        .filter(|o| matches!(o, recorder::Outcome::Failed { .. }))
        .count()
        + if matches!(recording, Recording::Off) && !flags.no_record {
            noted
        } else {
            0
        };
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            // A run refused after its output folder was claimed leaves no empty folder.
            slccache::report::outputs::outdir::remove_unused();
            let code = exit_code(&e);
            if code != 130 {
                slccache::note!("slccache: error: {e:#}");
            } else {
                slccache::note!("slccache: {e:#}");
            }
            code
        }
    };
    let code = if require_record && lost > 0 {
        slccache::note!(
            "slccache: error: {lost} run(s) not recorded in the results store \
             (--require-record); the files are written and wait for `slccache runs import --pending`"
        );
        if code == 0 {
            1
        } else {
            code
        }
    } else {
        code
    };
    std::process::exit(stdout_code(code));
}

/// The exit code once stdout is flushed: a result that could not be written makes a success
/// a failure (exit 1, with one line on stderr); a closed pipe changes nothing.
fn stdout_code(code: i32) -> i32 {
    match slccache::stdout::finish() {
        Outcome::Written | Outcome::Closed => code,
        Outcome::Failed(e) => {
            slccache::note!("slccache: error: {}", slccache::stdout::failure_message(&e));
            if code == 0 {
                1
            } else {
                code
            }
        }
    }
}

/// The exit code of a command's error ([`slccache::error::exit_code`]), with a run id the
/// results store does not hold a mistake in what was asked (exit code 2).
fn exit_code(e: &anyhow::Error) -> i32 {
    slccache::error::exit_code_with(e, slccache::store::is_usage)
}
