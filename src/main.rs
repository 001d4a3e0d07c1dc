//! The `slccache` binary: parses the command line and hands over to the library. Only this
//! file exits the process.

use clap::Parser;
use slccache::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    // Where runs are recorded (--no-record, --db, SLCCACHE_DB, the default), and the store that
    // `runs` and `compare ID` read.
    let recording =
        slccache::store::recorder::Recording::from_env(cli.no_record, cli.db.as_deref());
    slccache::store::recorder::set_location(slccache::store::recorder::Recording::store_location(
        cli.db.as_deref(),
    ));
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
    // A folder written into with --force holds this run's outputs only: those an earlier run
    // left there that this one did not write again go (before the folder is recorded).
    slccache::report::outdir::remove_stale();
    // Every folder a command finished, also when it failed or was interrupted; a failure to
    // record is a warning and leaves the exit code as it is.
    slccache::store::recorder::record_finished(&recording);
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
}
