//! The `simulate` subcommand: runs a drive model in virtual time
//! ([`crate::experiment::virtual_time`]).
//!
//! Outputs are those of a probe: `timeline.csv`, `summary.json` (with the model and its truth
//! under `config`), charts and `report.md`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::SimulateArgs;
use crate::config::WorkloadConfig;
use crate::detect::Analysis;
use crate::error::Interrupted;
use crate::experiment::virtual_time::{
    byte_limit, check_length, run_meta, simulate_prepared, Simulation,
};
use crate::model::{presets, DriveModel};
use crate::report::{StopRecord, Summary, Totals};
use crate::timeline::{CsvWriter, StopReason};
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// The model part of a simulation's default folder name: the model as given, with its
/// overrides (`960evo-250g,cache=1GB`), or the model's name where a model file was given.
fn sim_folder_name(spec: &str, model_name: &str) -> String {
    let raw = if spec.ends_with(".toml") {
        model_name
    } else {
        spec
    };
    crate::shell::folder_word(raw, "model")
}

/// `config` of `summary.json` for a simulation.
#[derive(Serialize)]
struct SimConfig<'a> {
    command: &'static str,
    model_spec: &'a str,
    model: &'a DriveModel,
    workload: &'a WorkloadConfig,
}

/// The one line of `simulate -q` (without the folder): "960evo-500g: wrote 30.0 GB in 25.1 s
/// (virtual), stopped: early stop ...; cache ~22.0 GB (95% interval ...), 1800 MB/s in the
/// cache; ...; cache +0.03% vs truth", the result in probe's clauses.
fn quiet_line(
    spec: &str,
    model: &DriveModel,
    w: &WorkloadConfig,
    sim: &Simulation,
    analysis: &Analysis,
    units: UnitSystem,
) -> String {
    let t = &sim.timeline;
    let (verb, moved) = moved(t, analysis);
    let mut s = format!(
        "{spec}: {verb} {} in {} (virtual)",
        format_bytes(moved as f64, units),
        format_seconds(t.duration_s()),
    );
    if let Some(r) = t.meta.stop_reason {
        s.push_str(&format!(
            ", stopped: {}",
            crate::detect::Findings::of(analysis).stop_text(r)
        ));
    }
    s.push_str(&crate::report::console::terminal::result_clauses(
        analysis, units,
    ));
    if let crate::detect::findings::Cache::Sized { bytes, .. } =
        crate::detect::Findings::of(analysis).cache
    {
        if sim.truth.cache_bytes > 0 {
            let err = vs_truth(bytes as f64, sim.truth.cache_bytes as f64);
            s.push_str(&format!("; cache {err}"));
        } else if model.truth(w.pattern, w.block_size).cache_bytes == 0 {
            s.push_str("; the model has no cache");
        }
    }
    s
}

/// The estimate's error against the truth: ` (+0.21% vs truth)`; one that rounds to zero is
/// `+0.00%`, never `-0.00%`.
fn vs_truth_text(estimate: f64, truth: f64) -> String {
    format!(" ({})", vs_truth(estimate, truth))
}

/// [`vs_truth_text`] without its parentheses: `+0.21% vs truth`.
fn vs_truth(estimate: f64, truth: f64) -> String {
    let pct = format!("{:+.2}", (estimate / truth - 1.0) * 100.0);
    let pct = if pct == "-0.00" { "+0.00".into() } else { pct };
    format!("{pct}% vs truth")
}

/// What the run moved: its reads for a run that only read (the analysis is of them), else
/// its writes, with the verb for each.
fn moved(t: &crate::timeline::Timeline, analysis: &Analysis) -> (&'static str, u64) {
    if analysis.read_only {
        ("read", t.read_bytes_total())
    } else {
        ("wrote", t.bytes_total())
    }
}

/// The human summary: what was written, the truth, the estimate and its error.
pub fn summary_text(
    model: &DriveModel,
    w: &WorkloadConfig,
    sim: &Simulation,
    analysis: &Analysis,
    units: UnitSystem,
) -> String {
    let pat = w.pattern.name();
    let t = &sim.timeline;
    let truth = &sim.truth;
    let mut s = format!(
        "{} ({}), {pat} {} QD{} × {}, virtual time\n",
        model.name,
        model.model,
        format_bytes(w.block_size as f64, UnitSystem::Binary),
        w.queue_depth,
        crate::units::count_text(w.jobs as usize, "job", "jobs")
    );
    // A run that only read is told by its reads (the analysis is of them).
    let (verb, moved) = moved(t, analysis);
    // A mix read as well as it wrote: both, as summary.json's totals give them.
    let also = match t.read_bytes_total() {
        r if r > 0 && !analysis.read_only => {
            format!(" and read {}", format_bytes(r as f64, units))
        }
        _ => String::new(),
    };
    // A run that only read has no "measured" line: its rate is said here, as report.md's
    // phase row gives it (the line gave none beside report.md's "mean: 2252 MB/s").
    let mean = match analysis.phases.as_slice() {
        [p] if analysis.read_only => format!(
            " at {} on average",
            format_rate(p.mean_bytes_per_sec, units)
        ),
        _ => String::new(),
    };
    s += &format!(
        "  {verb} {}{also} in {} (virtual){mean}, {}\n",
        format_bytes(moved as f64, units),
        format_seconds(t.duration_s()),
        t.meta
            .stop_reason
            .map(|r| crate::detect::Findings::of(analysis).stop_text(r))
            .unwrap_or_default()
    );
    if analysis.read_only {
        // Reads go past a write cache: the model reads at one rate ("2700 MB/s -> 2700 MB/s"
        // read as a cache that changed nothing).
        s += &format!(
            "  model truth: reads at {} as a filled drive would (the model keeps no map of \
             written blocks; the write cache plays no part)",
            format_rate(truth.in_cache_bytes_per_sec, units)
        );
    } else if let Some(hidden) = truth.iops_hidden_text(units) {
        s += &format!("  model truth: {hidden}");
    } else if truth.cache_bytes > 0 {
        // With the decimals the estimate took for its interval, so that the two compare
        // ("106 GB" beside "105.9 GB (105.8 GB to 105.9 GB)" read as two figures apart).
        let size = match &analysis.cache_estimate {
            Some(e) => {
                crate::units::format_bytes_estimate(
                    truth.cache_bytes as f64,
                    e.low_bytes as f64,
                    e.high_bytes as f64,
                    units,
                )
                .0
            }
            None => format_bytes(truth.cache_bytes as f64, units),
        };
        s += &format!(
            "  model truth: cache {size}, {} -> {}",
            format_rate(truth.in_cache_bytes_per_sec, units),
            format_rate(truth.after_cache_bytes_per_sec, units)
        );
        // A mix's rates are of its reads and writes together, where the measured line gives
        // the writes' ("860 MB/s -> 338 MB/s" beside "431 MB/s -> 168 MB/s" read as half).
        if truth.read_pct > 0 && truth.read_pct < 100 {
            let share = f64::from(100 - truth.read_pct) / 100.0;
            s += &format!(
                " (reads and writes together; the writes' share, {}%: {} -> {})",
                100 - truth.read_pct,
                format_rate(share * truth.in_cache_bytes_per_sec, units),
                format_rate(share * truth.after_cache_bytes_per_sec, units)
            );
        }
    } else if model.truth(w.pattern, w.block_size).cache_bytes > 0 {
        // A drive with a cache that the starting state left full (--prefill).
        s += &format!(
            "  model truth: no free SLC cache at the start (the drive's is full), {}",
            format_rate(truth.after_cache_bytes_per_sec, units)
        );
    } else {
        s += &format!(
            "  model truth: no SLC cache, {}",
            format_rate(truth.after_cache_bytes_per_sec, units)
        );
    }
    if let (Some(at), Some(r), false) = (
        truth.folding_starts_at_bytes,
        truth.folding_bytes_per_sec,
        analysis.read_only,
    ) {
        s += &format!(
            " -> {} after {}",
            format_rate(r, units),
            format_bytes(at as f64, units)
        );
    }
    s += "\n";
    let f = crate::detect::Findings::of(analysis);
    match &f.cache {
        crate::detect::findings::Cache::Sized {
            bytes,
            low_bytes,
            high_bytes,
        } => {
            let err = if truth.cache_bytes > 0 {
                vs_truth_text(*bytes as f64, truth.cache_bytes as f64)
            } else {
                " (the model has no cache)".into()
            };
            s += &format!(
                "  estimate:    cache {} {}{err}{}{}\n",
                crate::report::console::terminal::estimate_text(
                    *bytes,
                    *low_bytes,
                    *high_bytes,
                    units
                ),
                crate::report::console::terminal::interval_text(*low_bytes, *high_bytes, units),
                f.hidden_tier_suffix(units),
                f.doubt_suffix()
            );
        }
        crate::detect::findings::Cache::AtLeast { .. }
        | crate::detect::findings::Cache::NoneOverWholeDrive { .. }
        | crate::detect::findings::Cache::TooFewSamples => {
            s += &format!("  estimate:    no cliff seen: {}\n", f.cache_text(units));
        }
        _ => s += &format!("  estimate:    {}\n", f.cache_text(units)),
    }
    if let Some(r) = &t.meta.resolution {
        s += &format!("  note:        {}\n", r.sentence());
    }
    // What the run measured, as every output gives it: the rate in the cache, then after it.
    let mut cov = crate::report::console::terminal::coverage_suffix(analysis, units);
    if let Some(r) = f.steps_text(units) {
        cov = format!("; {r}{cov}");
    }
    // A run without a rate in the cache: its one level, as the card and report.md give it.
    if let Some((label, r)) = f.level_label(analysis.read_only) {
        cov = format!("; {label} {}{cov}", f.level_text(r, units));
    }
    if !cov.is_empty() {
        s += &format!("  measured:    {}\n", cov.trim_start_matches("; "));
    }
    for w in &analysis.warnings {
        s += &format!("  warning: {w}\n");
    }
    let args: Vec<String> = std::iter::once("slccache".to_string())
        .chain(crate::shell::shown_args())
        .collect();
    let byte_limit = t.meta.stop_reason == Some(crate::timeline::StopReason::MaxBytes);
    if let Some(cmd) =
        crate::report::console::terminal::next_tier_command(analysis, &args, byte_limit)
    {
        s += &format!("  to measure the next tier: {cmd}\n");
    }
    s
}

/// Runs `slccache simulate`.
pub fn run(args: SimulateArgs) -> Result<()> {
    // `emu:960evo-500g` (as probe and sweep take it) and `960evo-500g` mean the same model.
    let spec = args.model.strip_prefix("emu:").unwrap_or(&args.model);
    let model = presets::parse_spec(spec)?;
    let w = WorkloadConfig::resolve(&args.workload)?;
    let stop_cfg = crate::cli::stop_config(&args.stop)?;
    let opts = crate::cli::resolve::report_options(&args.output)?;
    let prep = crate::experiment::prepare::Preparation {
        trim: args.trim,
        prefill_pct: args
            .prefill
            .as_deref()
            .map(crate::experiment::prepare::parse_pct)
            .transpose()?,
        idle_before: args
            .idle_before
            .as_deref()
            .map(crate::units::parse_duration)
            .transpose()
            .context("--idle-before")?,
        ..Default::default()
    };
    // Check the block size and the limits before creating anything.
    crate::experiment::virtual_time::check_block(&model, w.block_size)?;
    byte_limit(&w, model.capacity.0)?;
    // A --prefill too small to write a block is refused, as probe refuses it.
    if let Some(pct) = prep.prefill_pct {
        crate::experiment::prepare::prefill_bytes(pct, model.capacity.0)?;
    }
    check_length(&model, &w)?;
    let dir: PathBuf = crate::report::outputs::outdir::claim(
        args.output.out.as_deref(),
        &format!("{}-sim", sim_folder_name(spec, &model.name)),
        args.output.force,
        false,
    )?;
    let csv_path = dir.join("timeline.csv");
    let mut csv = CsvWriter::create_with_reads(&csv_path, w.read_pct > 0)
        .with_context(|| format!("writing {}", csv_path.display()))?;
    let mut meta = run_meta(spec, &model, &w);
    meta.workload.cliffs_asked = (stop_cfg.cliffs > 1).then_some(stop_cfg.cliffs);
    meta.workload.prefill_pct = prep.prefill_pct;
    meta.workload.idle_before_s = prep.idle_before.map(|d| d.as_secs_f64());
    // Ctrl-C, SIGTERM or SIGHUP: stop after the current sample and still write every output
    // (exit 130); a second one, half a second or more later, ends the process at once.
    let signals =
        crate::experiment::signals::Signals::install().context("installing signal handlers")?;
    // A timeline.csv the folder cannot take (its disk full) does not stop the run: the
    // timeline is kept in memory, and the run beside the spool ([`recorder::rescue`]).
    let mut csv_error: Option<anyhow::Error> = None;
    let sim = simulate_prepared(
        &model,
        &w,
        Some(stop_cfg),
        &prep,
        meta,
        &signals.flag,
        |s| {
            if csv_error.is_none() {
                if let Err(e) = csv.append(s) {
                    csv_error = Some(
                        anyhow::Error::new(e).context(format!("writing {}", csv_path.display())),
                    );
                }
            }
            Ok(())
        },
    );
    drop(signals);
    let (sim, prepared) = sim?;
    let interrupted = sim.timeline.meta.stop_reason == Some(StopReason::Interrupted);
    let mut analysis = crate::detect::analyze_in(&sim.timeline, opts.units);
    analysis
        .warnings
        .extend(crate::experiment::virtual_time::short_of_duration(
            &w,
            &sim.timeline,
        ));
    // A model on a link (a SATA preset) whose rate in the cache meets the link's ceiling says
    // so, as a real drive's run does.
    crate::link::note_findings(&mut analysis, model.link_info().as_ref(), opts.units);
    // A model whose IOPS limit holds the rate in and after its cache alike: no cliff could
    // show, and its truth says so.
    crate::model::note_iops_hidden(&mut analysis, Some(&sim.truth), opts.units);
    let t = &sim.timeline;
    let summary = Summary {
        slccache_version: crate::VERSION.to_string(),
        origin: Some(crate::origin::current()),
        config: serde_json::to_value(SimConfig {
            command: "simulate",
            model_spec: spec,
            model: &model,
            workload: &w,
        })?,
        model_truth: Some(serde_json::to_value(crate::results::ModelTruth {
            cache: Some(sim.truth.clone()),
            ..Default::default()
        })?),
        run: t.meta.clone(),
        totals: Totals::of(t, sim.writes + sim.reads),
        interrupted,
        error: None,
        analysis: analysis.clone(),
        findings: None,
        stop: Some(StopRecord::new(
            stop_cfg,
            t.meta.stop_reason.unwrap_or(StopReason::EndOfData),
            sim.stop_rule.as_ref(),
            &analysis,
            t.bytes_total(),
        )),
        host: None,
        // What --trim, --prefill and --idle-before did, as probe records it.
        drive_state: prep.any().then(|| crate::report::DriveState {
            preparation: prepared,
            ..Default::default()
        }),
    };
    let written = match csv_error {
        Some(e) => Err(e),
        None => crate::report::write_summary(&dir, &summary),
    };
    if let Err(e) = written {
        // The output folder cannot take the run (its disk full): its summary and timeline are
        // kept beside the spool and recorded from there, as a probe's, so it is not lost.
        let kept = crate::store::recorder::rescue(&dir, &summary, t, &opts, args.quiet);
        return Err(crate::store::recorder::rescued_error(
            e,
            kept,
            t.samples.len(),
        ));
    }
    // Recorded as soon as timeline.csv and summary.json are complete: a chart that fails
    // (a full disk) does not lose the run.
    crate::store::recorder::note(&dir, &opts, args.quiet);
    // The starting state the run was prepared to, in report.md as a probe's.
    let extra_rows = summary
        .drive_state
        .as_ref()
        .map(|d| {
            crate::report::pages::markdown::drive_rows(None, Some(d), t.bytes_total(), opts.units)
        })
        .unwrap_or_default();
    // A chart that fails (a full disk) is said after the result, which the run has: the
    // terminal gave only the error and "recorded as".
    let charts =
        crate::report::write_charts_and_report_with(&dir, t, &analysis, &opts, &extra_rows);
    // The folder is named only where its outputs are all there (the error names what is).
    let whole = charts.is_ok();
    let mut text = summary_text(&model, &w, &sim, &analysis, opts.units);
    if whole {
        text += &format!("  outputs: {}\n", dir.display());
    }
    if args.quiet {
        // One line, as probe's: what was written and why it stopped, the result in the same
        // clauses, the estimate against the truth, and the folder.
        let line = quiet_line(spec, &model, &w, &sim, &analysis, opts.units);
        text = if whole {
            format!("{line}; outputs: {}\n", dir.display())
        } else {
            format!("{line}\n")
        };
    }
    if args.json {
        crate::store::recorder::print_json(serde_json::to_value(&analysis)?, Some(&dir));
        crate::note_raw!("{text}");
    } else {
        crate::say_raw!("{text}");
    }
    charts?;
    if interrupted {
        return Err(anyhow::Error::new(Interrupted(dir.display().to_string())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An estimate a hair under the truth read `(-0.00% vs truth)`: a percentage that rounds
    /// to zero is `+0.00%`, as the positive ones are signed.
    #[test]
    fn an_estimate_equal_to_the_truth_at_two_decimals_is_plus_zero() {
        assert_eq!(vs_truth_text(999_999_999.0, 1e9), " (+0.00% vs truth)");
        assert_eq!(vs_truth_text(1e9, 1e9), " (+0.00% vs truth)");
        assert_eq!(vs_truth_text(1_000_000_001.0, 1e9), " (+0.00% vs truth)");
        assert_eq!(vs_truth_text(1.0021e9, 1e9), " (+0.21% vs truth)");
        assert_eq!(vs_truth_text(0.9979e9, 1e9), " (-0.21% vs truth)");
    }
}
