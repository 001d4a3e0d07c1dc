//! `slccache fill-sweep`: the cache size against the fill level. At each level (rising): fill
//! the drive to it, idle so the cache refills, then write until the cliff.

use anyhow::{Context, Result};

use crate::cli::FillSweepArgs;
use crate::error::{usage, Interrupted};
use crate::experiment::recovery::parse_levels;
use crate::experiment::recovery::steps::{fill_summary, run_fill_steps, setup};
use crate::experiment::signals::Signals;
use crate::results::recovery::BurstRecord;
use crate::units::parse_duration;

/// Runs `slccache fill-sweep`.
pub fn run(args: FillSweepArgs) -> Result<()> {
    let levels = parse_levels(&args.levels)?;
    let idle_s = parse_duration(&args.idle).context("--idle")?.as_secs_f64();
    if args.trim_first && !args.common.simulate && args.common.target.starts_with("emu:") {
        return Err(usage(
            "--trim on an emu: target in real time is not supported; run the model with \
             --simulate, or leave --trim out",
        ));
    }
    let (bt, opts) = crate::cli::resolve::burst_target(&args.common, "fill-sweep")?;
    let mut s = setup(bt, opts, "fill-sweep")?;
    let signals = Signals::install().context("installing signal handlers")?;
    let outcome = run_fill_steps(&mut s, &levels, idle_s, args.trim_first, &signals.flag);
    drop(signals);
    s.progress.finish();
    let outcome = outcome?;
    let sum = fill_summary(&s, &outcome, &levels, idle_s, args.trim_first);
    let bursts: Vec<&BurstRecord> = outcome.levels.iter().map(|x| &x.3).collect();
    // Recorded as soon as its summary and CSV are complete: a chart that fails later (a full
    // disk) does not lose the run.
    let quiet = args.common.quiet;
    crate::report::outputs::experiments::write_fill_outputs(
        &s.out,
        &sum,
        &bursts,
        &s.opts,
        &mut || crate::store::recorder::note(&s.out, &s.opts, quiet),
    )?;
    let text = crate::report::outputs::experiments::fill_text(&sum, s.opts.units);
    if args.common.json {
        super::print_json_done(&s.out, &text)?;
    } else {
        crate::report::console::terminal::print_experiment_done(&text, &s.out, quiet);
    }
    if outcome.interrupted {
        return Err(anyhow::Error::new(Interrupted(s.out.display().to_string())));
    }
    Ok(())
}
