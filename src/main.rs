//! The `slccache` binary: parses the command line and hands over to the library. Only this
//! file exits the process.

use clap::Parser;
use slccache::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    // Where runs are recorded (--no-record, --db, SLCCACHE_DB, the default), and the store that
    // `runs` and `compare ID` read. A --db that is no store (a URL of another scheme) is a
    // usage error before anything runs, for every command that records or reads the store.
    let uses_store = !matches!(
        cli.command,
        Command::Info(_) | Command::Presets | Command::Completions(_) | Command::Man(_)
    );
    let resolved = slccache::store::recorder::Recording::from_env(cli.no_record, cli.db.as_deref())
        .and_then(|r| {
            Ok((
                r,
                slccache::store::recorder::Recording::store_location(cli.db.as_deref())?,
            ))
        });
    let recording = match resolved {
        Ok((r, loc)) => {
            slccache::store::recorder::set_location(loc);
            r
        }
        Err(e) if uses_store => {
            slccache::note!("slccache: error: {e:#}");
            std::process::exit(slccache::error::exit_code(&e));
        }
        Err(_) => slccache::store::recorder::Recording::Off,
    };
    let require_record = cli.require_record
        || std::env::var("SLCCACHE_REQUIRE_RECORD")
            .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
    if require_record && cli.no_record {
        slccache::note!("slccache: error: --no-record and SLCCACHE_REQUIRE_RECORD=1 contradict");
        std::process::exit(2);
    }
    let result = match cli.command {
        Command::Probe(a) => slccache::commands::probe::run(a),
        Command::Analyze(a) => slccache::commands::analyze::run(a),
        Command::Simulate(a) => slccache::commands::simulate::run(a),
        Command::Compare(a) => slccache::commands::compare::run(a),
        Command::Info(a) => slccache::commands::info::run(a),
        Command::Sweep(a) => slccache::commands::sweep::run(a),
        Command::Presets => slccache::model::presets::print_presets(),
        Command::Completions(a) => slccache::commands::install::run_completions(a),
        Command::Man(a) => slccache::commands::install::run_man(a),
        Command::Recovery(a) => slccache::commands::recovery::run(a),
        Command::FillSweep(a) => slccache::commands::fill_sweep::run(a),
        Command::Runs(a) => slccache::commands::runs::run(a),
        Command::History(a) => slccache::commands::history::run(a),
    };
    // Every folder a command finished, also when it failed or was interrupted. A run that could
    // not be recorded waits in the spool; it changes the exit code only under --require-record.
    let noted = slccache::store::recorder::noted_count();
    let outcomes = slccache::store::recorder::record_finished(&recording);
    let ids: Vec<(std::path::PathBuf, Option<i64>)> = outcomes
        .iter()
        .filter_map(|o| match o {
            slccache::store::recorder::Outcome::Recorded { rec, dir } => {
                Some((dir.clone(), Some(rec.id())))
            }
            _ => None,
        })
        .collect();
    let json = slccache::store::recorder::flush_json(&ids);
    let lost = outcomes
        .iter()
        .filter(|o| matches!(o, slccache::store::recorder::Outcome::Failed { .. }))
        .count()
        + if matches!(recording, slccache::store::recorder::Recording::Off) && !cli.no_record {
            noted
        } else {
            0
        };
    if let Err(e) = result {
        // A run refused after its output folder was claimed leaves no empty folder.
        slccache::report::outdir::remove_unused();
        let code = slccache::error::exit_code(&e);
        if code != 130 {
            slccache::note!("slccache: error: {e:#}");
        } else {
            slccache::note!("slccache: {e:#}");
        }
        std::process::exit(code);
    }
    if let Err(e) = json {
        slccache::note!("slccache: error: cannot write the JSON result to standard output: {e}");
        std::process::exit(1);
    }
    if require_record && lost > 0 {
        slccache::note!(
            "slccache: error: {lost} run(s) not recorded in the results store \
             (--require-record); the files are written and wait for `slccache runs import --pending`"
        );
        std::process::exit(1);
    }
}
