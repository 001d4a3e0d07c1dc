//! The `slccache` binary: parses the command line and hands over to the library. Only this
//! file exits the process.

use clap::Parser;
use slccache::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Probe(a) => slccache::probe::run(a),
        Command::Analyze(a) => slccache::analyze::run(a),
        Command::Simulate(a) => slccache::simulate::run(a),
        Command::Compare(a) => slccache::compare::run(a),
        Command::Info(a) => slccache::info::run(a),
        Command::Sweep(a) => slccache::sweep::run(a),
        Command::Presets => slccache::model::presets::print_presets(),
        Command::Completions(a) => slccache::install::run_completions(a),
        Command::Man(a) => slccache::install::run_man(a),
        Command::Recovery(a) => slccache::recovery::run::recovery(a),
        Command::FillSweep(a) => slccache::recovery::run::fill_sweep(a),
    };
    if let Err(e) = result {
        let code = slccache::error::exit_code(&e);
        if code != 130 {
            eprintln!("slccache: error: {e:#}");
        } else {
            eprintln!("slccache: {e:#}");
        }
        std::process::exit(code);
    }
}
