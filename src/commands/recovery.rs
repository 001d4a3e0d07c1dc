//! `slccache recovery`: how fast the cache comes back while the drive idles. A first burst
//! until the cliff, a settling step (the longest idle and a burst, not a point), then idle and
//! burst again for each idle time; the outputs
//! (`summary.json`, `recovery.csv`, charts, `report.md`, one timeline per burst under
//! `bursts/`) come from `report::charts::experiments`.

use anyhow::{Context, Result};

use crate::cli::RecoveryArgs;
use crate::error::Interrupted;
use crate::experiment::recovery::steps::{recovery_summary, run_recovery_steps, setup};
use crate::experiment::recovery::{parse_idle_list, shuffled};
use crate::experiment::signals::Signals;
use crate::results::recovery::BurstRecord;

/// Runs `slccache recovery`.
pub fn run(args: RecoveryArgs) -> Result<()> {
    let idles = parse_idle_list(&args.idle)?;
    let (bt, opts) = crate::cli::resolve::burst_target(&args.common, "recovery")?;
    let mut s = setup(bt, opts, "recovery")?;
    let order = shuffled(&idles, s.workload.seed);
    let signals = Signals::install().context("installing signal handlers")?;
    let outcome = run_recovery_steps(&mut s, &order, &signals.flag);
    drop(signals);
    s.progress.finish();
    let outcome = outcome?;
    let sum = recovery_summary(&s, &outcome, &idles);
    let bursts: Vec<&BurstRecord> = outcome
        .first
        .iter()
        .chain(outcome.settling.iter().map(|x| &x.1))
        .chain(outcome.steps.iter().map(|x| &x.2))
        .collect();
    // Recorded as soon as its summary and CSVs are complete: a chart that fails later (a full
    // disk) does not lose the run.
    let quiet = args.common.quiet;
    crate::report::outputs::experiments::write_recovery_outputs(
        &s.out,
        &sum,
        &bursts,
        &s.opts,
        &mut || crate::store::recorder::note(&s.out, &s.opts, quiet),
    )?;
    let text = crate::report::outputs::experiments::recovery_text(&sum, s.opts.units);
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
