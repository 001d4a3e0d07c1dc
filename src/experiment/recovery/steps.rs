//! The steps of the recovery and fill-level experiments: the drive opened once, a first burst
//! until the cliff, then idles, fills and bursts in turn, each burst's timeline kept under
//! `bursts/`, and the summaries built from them.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::{BurstTargetConfig, WorkloadConfig};
use crate::detect::analyze;
use crate::detect::stop::StopConfig;
use crate::experiment::recovery::fit::{self, Point, RecoveryFit};
use crate::experiment::recovery::virtual_drive::VirtualDrive;
use crate::experiment::recovery::{estimate_cache, reference_of, BurstRule, TestDrive};
use crate::model::presets;
use crate::report::ReportOptions;
use crate::results::recovery::{
    model_truth_of, BurstEnd, BurstRecord, BurstSummary, ExperimentConfig, ExperimentTotals,
    FillPoint, FillSweepSection, FillSweepSummary, RecoveryPoint, RecoverySection, RecoverySummary,
    Reference, Settling,
};
use crate::timeline::CsvWriter;
use crate::units::short_secs;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// Progress of an experiment: a line on stderr on a terminal (step, idle left, burst in
/// progress); elsewhere one plain line per step event; nothing with `--quiet`.
pub struct StepProgress {
    bar: Option<ProgressBar>,
    plain: bool,
}

impl StepProgress {
    /// A progress reporter.
    pub fn new(quiet: bool) -> StepProgress {
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let b = ProgressBar::new_spinner();
            b.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            if let Ok(st) = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}") {
                b.set_style(st);
            }
            b.enable_steady_tick(Duration::from_millis(250));
            b
        });
        StepProgress {
            bar,
            plain: !quiet && !tty,
        }
    }

    /// A step begins or ends: shown on the line, and printed as a line of its own.
    pub fn event(&self, msg: &str) {
        match &self.bar {
            Some(b) => {
                b.suspend(|| crate::note!("{msg}"));
                b.set_message(msg.to_string());
            }
            None if self.plain => crate::note!("{msg}"),
            None => {}
        }
    }

    /// The line now (terminal only).
    pub fn status(&self, msg: String) {
        if let Some(b) = &self.bar {
            b.set_message(msg);
        }
    }

    /// Clears the progress line.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// What every experiment needs: the drive, the workload, the stop rule, where to write.
pub struct Setup {
    /// The drive.
    pub drive: Box<dyn TestDrive>,
    /// The bursts' workload.
    pub workload: WorkloadConfig,
    /// When a burst stops after its cliff.
    pub stop: StopConfig,
    /// Chart and report options.
    pub opts: ReportOptions,
    /// The output folder.
    pub out: PathBuf,
    /// The target as given.
    pub target: String,
    /// Virtual time.
    pub simulate: bool,
    /// Progress.
    pub progress: StepProgress,
}

/// Opens the drive of a burst experiment (nothing written yet) and creates the output folder
/// with its `bursts/`.
pub fn setup(c: BurstTargetConfig, opts: ReportOptions, what: &str) -> Result<Setup> {
    let w = c.workload.clone();
    let stop = c.stop;
    // A given --out is claimed before the drive is opened; a default one needs the drive's name.
    let given = match &c.out {
        Some(d) => Some(crate::report::outputs::outdir::claim(
            Some(d),
            "",
            c.force,
            false,
        )?),
        None => None,
    };
    let progress = StepProgress::new(c.quiet);
    if c.destroy_data && !c.quiet {
        let model = c
            .simulate
            .then_some("a drive model run in virtual time (--simulate)");
        if let Some(n) = crate::device::destroy_data_note(&c.target, model) {
            crate::note!("{n}");
        }
    }
    let (drive, name): (Box<dyn TestDrive>, String) = if c.simulate {
        let spec = c.target.strip_prefix("emu:").unwrap_or(&c.target);
        let model = presets::parse_spec(spec)?;
        crate::experiment::virtual_time::check_block(&model, w.block_size)?;
        crate::experiment::virtual_time::byte_limit(&w, model.capacity.0)?;
        let meta = crate::experiment::virtual_time::run_meta(spec, &model, &w);
        let name = format!("{}-sim", crate::shell::folder_word(spec, "model"));
        (Box::new(VirtualDrive::new(model, &w, meta)), name)
    } else {
        let req = crate::device::OpenRequest {
            size: c.size,
            overwrite: c.overwrite,
            destroy_data: c.destroy_data,
            interactive: std::io::stdin().is_terminal(),
        };
        let d =
            crate::experiment::recovery::realtime::RealDrive::open(&c.target, &req, c.engine, &w)?;
        let name = d.short_name();
        (Box::new(d), name)
    };
    let out = match given {
        Some(d) => d,
        None => {
            crate::report::outputs::outdir::claim(None, &format!("{name}-{what}"), false, false)?
        }
    };
    std::fs::create_dir_all(out.join("bursts"))
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    Ok(Setup {
        drive,
        workload: w,
        stop,
        opts,
        out,
        target: c.target.clone(),
        simulate: c.simulate,
        progress,
    })
}

/// Most samples a finished burst keeps for the charts (its analysis saw up to
/// [`crate::timeline::bounded::MAX_KEPT`]): a few per pixel column of the widest chart, about
/// 1.5 MB where a burst of `MAX_KEPT` samples holds about 47 MB.
pub const BURST_CHART_KEPT: usize = 1 << 13;

/// Runs one burst from `start` and writes its timeline to `bursts/<file>.csv`. Returns `None`
/// when it was interrupted (an unfinished step).
#[allow(clippy::too_many_arguments)]
fn burst(
    s: &mut Setup,
    step: &str,
    label: &str,
    file: &str,
    start: u64,
    reference: Option<Reference>,
    stop: &AtomicBool,
    written: &mut u64,
) -> Result<Option<BurstRecord>> {
    Ok(
        burst_kept(s, step, label, file, start, reference, stop, written)?
            .filter(|b| b.end != BurstEnd::Interrupted),
    )
}

/// [`burst`], keeping a burst that was interrupted, analysed as such (its `end` says so):
/// the experiment's only measurement where Ctrl-C came in its first burst, which was lost
/// (`"first_burst": null` beside a `bursts/00-first.csv` that held the drop).
#[allow(clippy::too_many_arguments)]
fn burst_kept(
    s: &mut Setup,
    step: &str,
    label: &str,
    file: &str,
    start: u64,
    reference: Option<Reference>,
    stop: &AtomicBool,
    written: &mut u64,
) -> Result<Option<BurstRecord>> {
    let rel = format!("bursts/{file}.csv");
    let path = s.out.join(&rel);
    let mut csv =
        CsvWriter::create(&path).with_context(|| format!("writing {}", path.display()))?;
    let mut csv_err: Option<std::io::Error> = None;
    let span = s.drive.span();
    let limit = s
        .workload
        .max_bytes
        .unwrap_or(u64::MAX)
        .min(span.saturating_sub(start));
    let model_cache = s.drive.model_cache_now();
    let mut rule = BurstRule::new(s.stop, reference);
    let units = s.opts.units;
    let progress = &s.progress;
    progress.event(&format!("{step}: burst ({label})"));
    let mut burst_written = 0;
    let (samples, end) = s.drive.burst(start, limit, &mut rule, stop, &mut |x| {
        burst_written = x.bytes_total;
        if csv_err.is_none() {
            if let Err(e) = csv.append(x) {
                csv_err = Some(e);
            }
        }
        progress.status(format!(
            "{step}: burst ({label}): {} written, {} now",
            format_bytes(x.bytes_total as f64, units),
            format_rate(x.bytes_per_sec, units)
        ));
    })?;
    // What was written counts, also in a burst cut short: its samples are in its CSV.
    *written += burst_written;
    if let Some(e) = csv_err {
        return Err(anyhow::Error::new(e).context(format!("writing {}", path.display())));
    }
    // Cut short before it wrote anything: nothing to keep.
    if end == BurstEnd::Interrupted && burst_written == 0 {
        return Ok(None);
    }
    let mut meta = s.drive.meta();
    meta.label = format!("{} ({label})", meta.label);
    if end == BurstEnd::Interrupted {
        meta.stop_reason = Some(crate::timeline::StopReason::Interrupted);
    }
    // Every sample is in the burst's CSV; the analysis and the charts take the timeline kept
    // in bounded memory (merged past `MAX_KEPT` samples, as a probe's).
    let timeline = samples.into_timeline(meta);
    let analysis = analyze(&timeline);
    let cache = estimate_cache(&timeline, &analysis, reference);
    progress.event(&format!(
        "{step}: {label}: {}, {} written in {}",
        crate::units::cache_found_text(cache.bytes, cache.low, cache.high, cache.method, units),
        format_bytes(timeline.bytes_total() as f64, units),
        format_seconds(timeline.duration_s())
    ));
    Ok(Some(BurstRecord {
        label: label.to_string(),
        file: rel,
        // Analysed, a burst's timeline serves only its line on the bursts chart: kept thin,
        // so that an experiment of many long bursts holds little more than one.
        timeline: crate::timeline::bounded::thinned(timeline, BURST_CHART_KEPT),
        analysis,
        cache,
        end,
        start_offset: start,
        model_cache_bytes: model_cache,
    }))
}

/// The experiment's run metadata: the drive's, stopped by the interrupt when there was one
/// (every chart's footer says so, as a probe's says its stop).
fn experiment_meta(s: &Setup, interrupted: bool) -> crate::timeline::RunMeta {
    let mut meta = s.drive.meta();
    if interrupted {
        meta.stop_reason = Some(crate::timeline::StopReason::Interrupted);
    }
    meta
}

/// Idles with progress; returns false when interrupted.
fn idle(s: &mut Setup, step: &str, secs: f64, stop: &AtomicBool) -> Result<bool> {
    s.progress
        .event(&format!("{step}: idle {}", format_seconds(secs)));
    let progress = &s.progress;
    s.drive.idle(secs, stop, &mut |left| {
        progress.status(format!(
            "{step}: idle {}, {} left",
            format_seconds(secs),
            format_seconds(left)
        ))
    })
}

/// The outcome of a recovery experiment, before it is written out.
pub struct RecoveryOutcome {
    /// The first burst, if it finished.
    pub first: Option<BurstRecord>,
    /// The settling step after it (its idle, seconds, and its burst), if it finished.
    pub settling: Option<(f64, BurstRecord)>,
    /// (idle seconds, step number, burst), in the order run.
    pub steps: Vec<(f64, usize, BurstRecord)>,
    /// The idle times in the order planned.
    pub order: Vec<f64>,
    /// Interrupted.
    pub interrupted: bool,
    /// Totals.
    pub totals: ExperimentTotals,
    /// Warnings gathered on the way.
    pub warnings: Vec<String>,
    /// The model's whole cache once the first burst's data is on the drive (models only).
    pub model_plateau: Option<f64>,
}

/// Runs the recovery steps on `s.drive`: the first burst, then idle + burst for each idle
/// time in `order`.
pub fn run_recovery_steps(
    s: &mut Setup,
    order: &[f64],
    stop: &AtomicBool,
) -> Result<RecoveryOutcome> {
    let n = order.len();
    let mut out = RecoveryOutcome {
        first: None,
        settling: None,
        steps: vec![],
        order: order.to_vec(),
        interrupted: false,
        totals: ExperimentTotals::default(),
        warnings: vec![],
        model_plateau: None,
    };
    let Some(first) = burst_kept(
        s,
        &format!("step 0/{n}"),
        "first burst",
        "00-first",
        0,
        None,
        stop,
        &mut out.totals.burst_bytes,
    )?
    else {
        // Interrupted in the first burst: the model's cache is still the one its data on the
        // drive leaves, so its recovery curve levels off there (without it the curve rose to
        // the chart's top, past the model's 2.00 GB cache).
        out.model_plateau = s.drive.model().map(|m| {
            m.cache_at_fill(s.drive.fill_level() * s.drive.span() as f64 / m.capacity.as_f64())
        });
        out.interrupted = true;
        return Ok(out);
    };
    out.model_plateau = s.drive.model().map(|m| {
        m.cache_at_fill(s.drive.fill_level() * s.drive.span() as f64 / m.capacity.as_f64())
    });
    if first.end == BurstEnd::Interrupted {
        // What it measured is kept, said interrupted; no step follows it.
        out.first = Some(first);
        out.interrupted = true;
        return Ok(out);
    }
    let reference = reference_of(&first.analysis, &first.cache);
    if reference.is_none() {
        let drop = first
            .analysis
            .unconfirmed_drop
            .as_ref()
            .filter(|d| d.at == crate::detect::DropWhere::FirstSample);
        out.warnings.push(match drop {
            // The cache was emptied, but too soon for the samples to time its end.
            Some(d) => format!(
                "the first burst's cache ran out inside its first {} sample, too early for \
                 these samples to time it: its recovery cannot be measured at this interval; \
                 run again with a shorter --interval (a small part of the time the cache \
                 lasts, such as {})",
                crate::units::format_interval(d.interval_s),
                // Shorter than the interval it ran at (it advised "such as 1s" of a run at
                // 1 s), as `analyze` of the burst's CSV advises.
                if d.interval_s > 0.15 { "100ms" } else { "20ms" }
            ),
            None if first.cache.method == crate::results::recovery::UNCONFIRMED_DROP => format!(
                "the first burst ended with a drop after {} too short to confirm as the cache \
                 running out, so nothing can be said about its recovery; give a larger span",
                format_bytes(first.cache.bytes, s.opts.units)
            ),
            None if first.cache.method == crate::results::recovery::TOO_FEW_SAMPLES => {
                "the first burst had too few samples to find a cliff in, so nothing can be said \
                 about its recovery; give a larger span or a shorter --interval"
                    .into()
            }
            None => "the first burst found no cliff: the cache was not emptied, so nothing can \
                     be said about its recovery; give a larger span or check that the drive \
                     has an SLC cache"
                .into(),
        });
        out.first = Some(first);
        return Ok(out);
    }
    out.first = Some(first);
    // The settling step: the first burst filled the cache of a drive without its data; with
    // that data on it, a dynamic cache is smaller, and the first idle must fold the
    // difference before any cache comes back. One idle of the longest time and a burst, not a
    // point, leave every measured step to start from the same state: a cache the size the
    // drive offers now, used up.
    if let Some(&settle_s) = order.first() {
        let step = format!("step 0/{n}");
        if !idle(s, &step, settle_s, stop)? {
            out.interrupted = true;
            return Ok(out);
        }
        out.totals.idle_s += settle_s;
        let label = format!("settling, idle {}", short_secs(settle_s));
        let written = &mut out.totals.burst_bytes;
        match burst(s, &step, &label, "00-settling", 0, reference, stop, written)? {
            Some(b) => {
                out.settling = Some((settle_s, b));
            }
            None => {
                out.interrupted = true;
                return Ok(out);
            }
        }
        out.model_plateau = s.drive.model().map(|m| {
            m.cache_at_fill(s.drive.fill_level() * s.drive.span() as f64 / m.capacity.as_f64())
        });
    }
    for (i, &idle_s) in order.iter().enumerate() {
        let step = format!("step {}/{n}", i + 1);
        if !idle(s, &step, idle_s, stop)? {
            out.interrupted = true;
            break;
        }
        out.totals.idle_s += idle_s;
        let label = format!("idle {}", short_secs(idle_s));
        let file = format!("{:02}-idle-{}", i + 1, short_secs(idle_s).replace(' ', ""));
        let written = &mut out.totals.burst_bytes;
        match burst(s, &step, &label, &file, 0, reference, stop, written)? {
            Some(b) => {
                out.steps.push((idle_s, i + 1, b));
            }
            None => {
                out.interrupted = true;
                break;
            }
        }
    }
    Ok(out)
}

/// Builds the summary of a recovery experiment (and fits the model).
pub fn recovery_summary(s: &Setup, o: &RecoveryOutcome, idles: &[f64]) -> RecoverySummary {
    let mut points: Vec<RecoveryPoint> = o
        .steps
        .iter()
        .map(|(idle_s, step, b)| RecoveryPoint {
            idle_s: *idle_s,
            recovered_bytes: b.cache.bytes.round(),
            low_bytes: b.cache.low.round(),
            high_bytes: b.cache.high.round(),
            step: *step,
            truth_recovered_bytes: b.model_cache_bytes.map(f64::round),
            burst: BurstSummary::of(b),
        })
        .collect();
    points.sort_by(|a, b| a.idle_s.total_cmp(&b.idle_s).then(a.step.cmp(&b.step)));
    let fit_points: Vec<Point> = points
        .iter()
        .map(|p| Point {
            idle_s: p.idle_s,
            bytes: p.recovered_bytes,
            low: p.low_bytes,
            high: p.high_bytes,
        })
        .collect();
    let first_cache = o.first.as_ref().map(|f| f.cache.bytes);
    let fit = if o
        .first
        .as_ref()
        .is_some_and(|f| f.analysis.cache_estimate.is_some())
    {
        fit::fit(&fit_points, first_cache, s.workload.seed)
    } else {
        RecoveryFit::default()
    };
    let mut warnings = o.warnings.clone();
    // Interrupted before any step finished, the interrupt's warning says there is nothing to
    // fit (the fit's own would say it twice).
    if !(o.interrupted && points.is_empty()) {
        warnings.extend(fit.warnings.iter().cloned());
    }
    // The settling step against the step with the same idle time: much less came back in
    // it when the first burst had filled a larger cache than the drive offers now.
    if let Some((idle_s, b)) = &o.settling {
        if let Some(p) = points.iter().find(|p| p.idle_s == *idle_s) {
            if b.cache.high < p.low_bytes && b.cache.bytes < 0.8 * p.recovered_bytes {
                warnings.push(format!(
                    "the settling step after the first burst got back {} in {} of idle where \
                     the same idle got back {} later: the first burst had filled a larger \
                     cache than the drive offers with that data on it (a dynamic cache), and \
                     the settling step folded the difference; without it the first step \
                     would have read low",
                    format_bytes(b.cache.bytes, s.opts.units),
                    format_seconds(*idle_s),
                    format_bytes(p.recovered_bytes, s.opts.units)
                ));
            }
        }
    }
    if o.interrupted {
        warnings.push(format!(
            "interrupted: {} of {} steps finished; {}",
            o.steps.len(),
            o.order.len(),
            if points.is_empty() {
                "there is nothing to fit"
            } else {
                "the fit uses those"
            }
        ));
    }
    let model = s.drive.model();
    RecoverySummary {
        slccache_version: crate::VERSION.into(),
        origin: Some(crate::origin::current()),
        command: "recovery",
        interrupted: o.interrupted,
        run: experiment_meta(s, o.interrupted),
        config: ExperimentConfig {
            target: s.target.clone(),
            simulate: s.simulate,
            workload: s.workload.clone(),
            after_cliff_s: s.stop.after_cliff_s,
            idle_s: idles.to_vec(),
            levels_pct: None,
            trim_first: None,
            seed: s.workload.seed,
            model: model.cloned(),
        },
        recovery: RecoverySection {
            points,
            fit,
            first_burst: o.first.as_ref().map(BurstSummary::of),
            settling: o.settling.as_ref().map(|(idle_s, b)| Settling {
                idle_s: *idle_s,
                recovered_bytes: b.cache.bytes.round(),
                truth_recovered_bytes: b.model_cache_bytes.map(f64::round),
                burst: BurstSummary::of(b),
            }),
            order_s: o.order.clone(),
        },
        model_truth: model.map(|m| model_truth_of(m, &s.workload, o.model_plateau)),
        totals: o.totals.clone(),
        warnings,
    }
}

/// The outcome of a fill sweep.
pub struct FillOutcome {
    /// (level %, actual fill %, bytes filled, burst, model cache at the fill level).
    pub levels: Vec<(f64, f64, u64, BurstRecord, Option<f64>)>,
    /// Interrupted.
    pub interrupted: bool,
    /// Totals.
    pub totals: ExperimentTotals,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// Runs the fill-sweep steps: for each level, fill, idle, burst.
pub fn run_fill_steps(
    s: &mut Setup,
    levels: &[f64],
    idle_s: f64,
    trim_first: bool,
    stop: &AtomicBool,
) -> Result<FillOutcome> {
    let n = levels.len();
    let mut out = FillOutcome {
        levels: vec![],
        interrupted: false,
        totals: ExperimentTotals::default(),
        warnings: vec![],
    };
    if trim_first {
        s.progress.event("discarding the span");
        s.drive.trim()?;
    }
    let span = s.drive.span();
    let bs = s.workload.block_size;
    let mut reference: Option<Reference> = None;
    // Where data ends on the target (bursts write after the fill).
    let mut extent = (s.drive.fill_level() * span as f64).round() as u64;
    for (i, &level) in levels.iter().enumerate() {
        let step = format!("level {}/{n} ({level}%)", i + 1);
        let target = ((level / 100.0 * span as f64) as u64) / bs * bs;
        let mut filled = 0;
        if target > extent {
            s.progress.event(&format!(
                "{step}: fill {} sequentially",
                format_bytes((target - extent) as f64, s.opts.units)
            ));
            let progress = &s.progress;
            let units = s.opts.units;
            // The bytes the fill wrote so far, which a fill cut short still wrote.
            let mut so_far = 0;
            let done = s.drive.fill(extent, target, stop, &mut |done, total| {
                so_far = done;
                progress.status(format!(
                    "{step}: fill {} of {}",
                    format_bytes(done as f64, units),
                    format_bytes(total as f64, units)
                ))
            })?;
            if !done {
                out.totals.fill_bytes += so_far;
                out.interrupted = true;
                break;
            }
            filled = target - extent;
            out.totals.fill_bytes += filled;
            extent = target;
        }
        if crate::experiment::recovery::stop_requested(stop) {
            out.interrupted = true;
            break;
        }
        if !idle(s, &step, idle_s, stop)? {
            out.interrupted = true;
            break;
        }
        out.totals.idle_s += idle_s;
        let actual = 100.0 * extent as f64 / span as f64;
        let truth = s
            .drive
            .model()
            .map(|m| m.cache_at_fill(extent as f64 / m.capacity.as_f64()));
        let label = format!("fill {level}%");
        let file = format!("{:02}-fill-{level}pct", i + 1);
        if span.saturating_sub(extent) < bs {
            out.warnings.push(format!(
                "at {level}%: nothing left to write: the earlier bursts reached the end of the \
                 span; give a larger span or fewer levels"
            ));
            continue;
        }
        let written = &mut out.totals.burst_bytes;
        let Some(b) = burst_kept(s, &step, &label, &file, extent, reference, stop, written)? else {
            out.interrupted = true;
            break;
        };
        // A level's burst that Ctrl-C cut short is kept, said interrupted (its `end`), and
        // ends the sweep: "0 levels" was said of a sweep whose first burst had found its
        // cache.
        let cut = b.end == BurstEnd::Interrupted;
        if b.cache.method == "none" {
            out.warnings.push(format!(
                "at {level}%: no cliff before the burst ended: the cache is at least {}",
                format_bytes(b.cache.bytes, UnitSystem::Decimal)
            ));
        } else if b.cache.method == crate::results::recovery::UNCONFIRMED_DROP {
            out.warnings.push(format!(
                "at {level}%: a drop after {} too short to confirm before the burst ended: the \
                 cache is at least {}",
                format_bytes(b.cache.bytes, UnitSystem::Decimal),
                format_bytes(b.cache.bytes, UnitSystem::Decimal)
            ));
        } else if b.cache.method == crate::results::recovery::TOO_FEW_SAMPLES {
            out.warnings.push(format!(
                "at {level}%: too few samples in the burst to tell whether there is a cache"
            ));
        }
        if let (Some(t), Some(now)) = (truth, b.model_cache_bytes) {
            if now < 0.99 * t {
                out.warnings.push(format!(
                    "at {level}%: the model had only {} of its {} cache back when the burst began; \
                     idle longer (--idle)",
                    format_bytes(now, UnitSystem::Decimal),
                    format_bytes(t, UnitSystem::Decimal)
                ));
            }
        }
        if reference.is_none() {
            reference = reference_of(&b.analysis, &b.cache);
        }
        extent = extent.saturating_add(b.timeline.bytes_total()).min(span);
        out.levels.push((level, actual, filled, b, truth));
        if cut {
            out.interrupted = true;
            break;
        }
    }
    Ok(out)
}

/// Builds the summary of a fill sweep.
pub fn fill_summary(
    s: &Setup,
    o: &FillOutcome,
    levels: &[f64],
    idle_s: f64,
    trim_first: bool,
) -> FillSweepSummary {
    let points = o
        .levels
        .iter()
        .map(|(level, actual, filled, b, truth)| FillPoint {
            fill_pct: *level,
            cache_bytes: b.cache.bytes.round(),
            low_bytes: b.cache.low.round(),
            high_bytes: b.cache.high.round(),
            truth_cache_bytes: truth.map(f64::round),
            actual_fill_pct: *actual,
            filled_bytes: *filled,
            burst: BurstSummary::of(b),
        })
        .collect();
    let mut warnings = o.warnings.clone();
    if o.interrupted {
        let cut = o
            .levels
            .iter()
            .filter(|l| l.3.end == BurstEnd::Interrupted)
            .count();
        let done = o.levels.len() - cut;
        warnings.push(if cut > 0 {
            format!(
                "interrupted: {done} of {} levels finished, and the next one's burst cut short \
                 (kept as far as it went)",
                levels.len()
            )
        } else {
            format!("interrupted: {done} of {} levels finished", levels.len())
        });
    }
    let model = s.drive.model();
    FillSweepSummary {
        slccache_version: crate::VERSION.into(),
        origin: Some(crate::origin::current()),
        command: "fill-sweep",
        interrupted: o.interrupted,
        run: experiment_meta(s, o.interrupted),
        config: ExperimentConfig {
            target: s.target.clone(),
            simulate: s.simulate,
            workload: s.workload.clone(),
            after_cliff_s: s.stop.after_cliff_s,
            idle_s: vec![idle_s],
            levels_pct: Some(levels.to_vec()),
            trim_first: Some(trim_first),
            seed: s.workload.seed,
            model: model.cloned(),
        },
        fill_sweep: FillSweepSection { points, idle_s },
        model_truth: model.map(|m| model_truth_of(m, &s.workload, None)),
        totals: o.totals.clone(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DriveModel;
    use crate::timeline::RunMeta;
    use crate::timeline::Sample;
    use crate::workload::Pattern;
    use std::path::Path;
    use std::sync::atomic::Ordering;

    /// A virtual drive that raises the stop flag (as Ctrl-C would) when its `n`-th idle
    /// begins, or once a burst has given `samples` samples.
    struct StopAtIdle {
        inner: VirtualDrive,
        idles: usize,
        n: usize,
        samples: usize,
    }

    impl TestDrive for StopAtIdle {
        fn span(&self) -> u64 {
            self.inner.span()
        }
        fn meta(&self) -> RunMeta {
            self.inner.meta()
        }
        fn model(&self) -> Option<&DriveModel> {
            self.inner.model()
        }
        fn trim(&mut self) -> Result<()> {
            self.inner.trim()
        }
        fn fill(
            &mut self,
            from: u64,
            to: u64,
            stop: &AtomicBool,
            p: &mut dyn FnMut(u64, u64),
        ) -> Result<bool> {
            self.inner.fill(from, to, stop, p)
        }
        fn idle(&mut self, secs: f64, stop: &AtomicBool, p: &mut dyn FnMut(f64)) -> Result<bool> {
            self.idles += 1;
            if self.idles == self.n {
                stop.store(true, Ordering::SeqCst);
            }
            self.inner.idle(secs, stop, p)
        }
        fn burst(
            &mut self,
            start: u64,
            max: u64,
            rule: &mut BurstRule,
            stop: &AtomicBool,
            on: &mut dyn FnMut(&Sample),
        ) -> Result<(crate::timeline::bounded::Kept, BurstEnd)> {
            let (mut k, after) = (0, self.samples);
            self.inner.burst(start, max, rule, stop, &mut |x| {
                on(x);
                k += 1;
                if k == after {
                    stop.store(true, Ordering::SeqCst);
                }
            })
        }
        fn fill_level(&self) -> f64 {
            self.inner.fill_level()
        }
        fn model_cache_now(&self) -> Option<f64> {
            self.inner.model_cache_now()
        }
    }

    fn setup_with(n: usize, dir: &Path) -> Setup {
        setup_stopping(n, usize::MAX, dir)
    }

    /// [`setup_with`], stopped also after `samples` samples of a burst.
    fn setup_stopping(n: usize, samples: usize, dir: &Path) -> Setup {
        let mut wa = crate::cli::WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            seed: Some(2),
            ..Default::default()
        };
        wa.interval = Some("1s".into());
        let w = WorkloadConfig::resolve(&wa).unwrap();
        let model = presets::parse_spec("970evo-500g").unwrap();
        let meta = crate::experiment::virtual_time::run_meta("970evo-500g", &model, &w);
        std::fs::create_dir_all(dir.join("bursts")).unwrap();
        Setup {
            drive: Box::new(StopAtIdle {
                inner: VirtualDrive::new(model, &w, meta),
                idles: 0,
                n,
                samples,
            }),
            workload: w,
            stop: StopConfig::default(),
            opts: ReportOptions::default(),
            out: dir.to_path_buf(),
            target: "970evo-500g".into(),
            simulate: true,
            progress: StepProgress::new(true),
        }
    }

    #[test]
    fn an_interrupt_keeps_the_finished_steps_and_marks_the_summary() {
        let dir = tempfile::tempdir().unwrap();
        // Ctrl-C during the fourth idle (the settling step's is the first): two steps are
        // finished.
        let mut s = setup_with(4, dir.path());
        let stop = AtomicBool::new(false);
        let order = [300.0, 60.0, 10.0, 30.0];
        let o = run_recovery_steps(&mut s, &order, &stop).unwrap();
        assert!(o.interrupted);
        assert!(o.first.is_some());
        assert!(o.settling.is_some());
        assert_eq!(o.steps.len(), 2);
        let sum = recovery_summary(&s, &o, &order);
        assert!(sum.interrupted);
        assert_eq!(sum.recovery.points.len(), 2);
        assert!(sum
            .warnings
            .iter()
            .any(|w| w.contains("interrupted: 2 of 4")));
        let v = serde_json::to_value(&sum).unwrap();
        assert_eq!(v["interrupted"], true);
        assert!(v["recovery"]["fit"]["fold_rate_bytes_per_sec"].is_number());
        // The outputs can be written from what was finished.
        let bursts: Vec<&BurstRecord> =
            o.first.iter().chain(o.steps.iter().map(|x| &x.2)).collect();
        crate::report::outputs::experiments::write_recovery_outputs(
            dir.path(),
            &sum,
            &bursts,
            &s.opts,
            &mut || {},
        )
        .unwrap();
        let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        assert!(md.contains("Interrupted"));
        // Without the interrupt, all four steps finish.
        let dir2 = tempfile::tempdir().unwrap();
        let mut s = setup_with(usize::MAX, dir2.path());
        let o = run_recovery_steps(&mut s, &order, &AtomicBool::new(false)).unwrap();
        assert!(!o.interrupted);
        assert_eq!(o.steps.len(), 4);
    }

    /// Interrupted before any step finished, in the settling idle after the first burst or
    /// in the first burst itself: the warning said "0 of 2 steps finished; the fit uses
    /// those" while the fit had no point; it says there is nothing to fit, once.
    #[test]
    fn an_interrupt_before_any_step_says_there_is_nothing_to_fit() {
        let order = [300.0, 60.0];
        for (n, stopped) in [(1, false), (usize::MAX, true)] {
            let dir = tempfile::tempdir().unwrap();
            let mut s = setup_with(n, dir.path());
            let o = run_recovery_steps(&mut s, &order, &AtomicBool::new(stopped)).unwrap();
            assert!(o.interrupted && o.steps.is_empty());
            let sum = recovery_summary(&s, &o, &order);
            let w = sum.warnings.join("\n");
            assert!(
                w.contains("interrupted: 0 of 2 steps finished; there is nothing to fit"),
                "{w}"
            );
            assert!(!w.contains("uses those"), "{w}");
            assert_eq!(w.matches("nothing to fit").count(), 1, "{w}");
        }
    }

    /// The axes of a chart drawn from an experiment with no finished step: labelled ticks
    /// that differ, and no line more than a few axis ranges beyond them.
    fn assert_sane_axes(spec: &crate::report::charts::ChartSpec, what: &str) {
        use crate::report::charts::tick_label;
        for (name, a) in [("x", &spec.x), ("y", &spec.y)] {
            let labels: Vec<String> = a.ticks.iter().map(|t| tick_label(*t)).collect();
            let mut distinct = labels.clone();
            distinct.dedup();
            assert!(
                labels.len() >= 3 && distinct.len() == labels.len(),
                "{what}: {name} axis {}..{}: labels {labels:?}",
                a.min,
                a.max
            );
        }
        let (xr, yr) = (spec.x.max - spec.x.min, spec.y.max - spec.y.min);
        for s in &spec.series {
            for p in &s.points {
                assert!(
                    (p.0 - spec.x.min).abs() <= 1000.0 * xr
                        && (p.1 - spec.y.min).abs() <= 1000.0 * yr,
                    "{what}: {} has {p:?} on axes {}..{} x {}..{}",
                    s.name,
                    spec.x.min,
                    spec.x.max,
                    spec.y.min,
                    spec.y.max
                );
            }
        }
    }

    /// Ctrl-C in the first burst: no point, no first burst. The recovery chart's y axis was
    /// one byte high (its floor of 1.0 was bytes on an axis of gigabytes), its labels all "0",
    /// and the model's curve a billion axis heights above it: the dashed line that drew it
    /// grew without bound. The charts now have the planned idle times and the model's cache
    /// for axes, and every output is written.
    #[test]
    fn an_interrupt_in_the_first_burst_draws_sane_charts_and_writes_every_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(usize::MAX, dir.path());
        let stop = AtomicBool::new(true);
        let order = [300.0, 60.0];
        let o = run_recovery_steps(&mut s, &order, &stop).unwrap();
        assert!(o.interrupted && o.first.is_none() && o.steps.is_empty());
        let sum = recovery_summary(&s, &o, &order);
        let spec = crate::report::charts::experiments::recovery_chart(&sum, &s.opts);
        assert_sane_axes(&spec, "recovery");
        assert!(spec.x.max >= 300.0, "the planned idle times: {:?}", spec.x);
        let bursts = crate::report::charts::experiments::bursts_chart(
            &[],
            &sum.run,
            crate::report::charts::ChartKind::RecoveryBursts,
            "bursts",
            &s.opts,
        );
        assert_sane_axes(&bursts, "recovery bursts");
        // No burst to take the drive and workload from: the experiment's, as the recovery
        // chart gives them (its footer said only the version).
        let footer = bursts.footer.join("  ·  ");
        assert!(
            footer.starts_with("Drive: ") && footer.contains("  ·  Workload: "),
            "{footer}"
        );
        crate::report::outputs::experiments::write_recovery_outputs(
            dir.path(),
            &sum,
            &[],
            &s.opts,
            &mut || {},
        )
        .unwrap();
        for f in [
            "summary.json",
            "recovery.csv",
            "recovery.png",
            "recovery.svg",
            "recovery-bursts.png",
            "recovery-bursts.svg",
            "report.md",
            "report.html",
        ] {
            let p = dir.path().join(f);
            let n = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
            assert!(n > 0 && n < 2_000_000, "{f}: {n} bytes");
        }
        // Every chart report.md links is there.
        let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        for link in md.split("](").skip(1).filter_map(|x| x.split(')').next()) {
            assert!(dir.path().join(link).is_file(), "report.md links {link}");
        }
        // On an axis of 1000 h the model's cache, which refills in seconds with no plateau
        // drawn, rose along the y axis: its legend entry named a line that did not show.
        let truth_named = |spec: &crate::report::charts::ChartSpec| {
            spec.legend
                .iter()
                .any(|l| l.name.starts_with("model truth"))
        };
        assert!(truth_named(&spec), "shown at 300 s: {:?}", spec.legend);
        let far = [3_600_000.0, 0.01];
        let far_dir = tempfile::tempdir().unwrap();
        let mut far_s = setup_with(usize::MAX, far_dir.path());
        let far_o = run_recovery_steps(&mut far_s, &far, &stop).unwrap();
        let far_sum = recovery_summary(&far_s, &far_o, &far);
        let far_spec = crate::report::charts::experiments::recovery_chart(&far_sum, &far_s.opts);
        // With the model's cache known (its plateau, the cache its data on the drive leaves),
        // the model's line levels off there: at 1000 h it is that level, inside the axes, and
        // named (interrupted in its first burst the line had no plateau and rose past the
        // model's 2.00 GB cache to the chart's top).
        assert!(far_o.model_plateau.is_some(), "the model's cache");
        let lines: Vec<_> = far_spec
            .series
            .iter()
            .filter(|s| s.name.starts_with("model truth"))
            .collect();
        assert!(!lines.is_empty(), "{:?}", far_spec.legend);
        for line in lines {
            for &(_, y) in &line.points {
                assert!(y <= far_spec.y.max, "{y} over {:?}", far_spec.y);
            }
            let n = line.points.len();
            assert!(
                n >= 2 && line.points[n - 1].1 == line.points[n - 2].1,
                "no plateau: {:?}",
                line.points
            );
        }

        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(usize::MAX, dir.path());
        let levels = [0.0, 50.0];
        let o = run_fill_steps(&mut s, &levels, 60.0, false, &stop).unwrap();
        assert!(o.interrupted && o.levels.is_empty());
        let sum = fill_summary(&s, &o, &levels, 60.0, false);
        assert_sane_axes(
            &crate::report::charts::experiments::fill_chart(&sum, &s.opts),
            "fill-sweep",
        );
        crate::report::outputs::experiments::write_fill_outputs(
            dir.path(),
            &sum,
            &[],
            &s.opts,
            &mut || {},
        )
        .unwrap();
        for f in [
            "summary.json",
            "fill-sweep.csv",
            "fill-sweep.png",
            "fill-sweep.svg",
            "fill-sweep-bursts.png",
            "fill-sweep-bursts.svg",
            "report.md",
            "report.html",
        ] {
            assert!(dir.path().join(f).is_file(), "{f}");
        }
    }

    #[test]
    fn a_fill_sweep_interrupted_keeps_the_finished_levels() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(2, dir.path());
        let stop = AtomicBool::new(false);
        let o = run_fill_steps(&mut s, &[0.0, 20.0, 40.0], 600.0, true, &stop).unwrap();
        assert!(o.interrupted);
        assert_eq!(o.levels.len(), 1);
        let sum = fill_summary(&s, &o, &[0.0, 20.0, 40.0], 600.0, true);
        assert!(sum.interrupted);
        assert_eq!(sum.fill_sweep.points.len(), 1);
    }

    /// Ctrl-C in the first burst of a recovery wrote `totals.burst_bytes: 0` while
    /// `bursts/00-first.csv` held 5.35 GB, and neither chart's footer said the run was
    /// interrupted. The totals count what the cut-short burst wrote, and every chart of an
    /// interrupted experiment (recovery and fill-sweep) says "stopped: interrupted".
    #[test]
    fn an_interrupt_in_a_burst_counts_its_bytes_and_every_footer_says_so() {
        use crate::report::charts::experiments::{bursts_chart, fill_chart, recovery_chart};
        use crate::report::charts::ChartKind;
        let said = |spec: &crate::report::charts::ChartSpec, what: &str| {
            let f = spec.footer.join("  ·  ");
            assert!(f.contains("stopped: interrupted"), "{what}: {f}");
        };
        let csv_bytes = |p: &Path| {
            let t = std::fs::read_to_string(p).unwrap();
            crate::timeline::read_slccache_csv(&t, "burst")
                .unwrap()
                .last()
                .map_or(0, |x| x.bytes_total)
        };
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(usize::MAX, dir.path());
        s.drive = Box::new(StopAtIdle {
            inner: VirtualDrive::new(
                presets::parse_spec("970evo-500g").unwrap(),
                &s.workload,
                s.drive.meta(),
            ),
            idles: 0,
            n: usize::MAX,
            samples: 5,
        });
        let order = [300.0, 60.0];
        let o = run_recovery_steps(&mut s, &order, &AtomicBool::new(false)).unwrap();
        // The first burst, cut short, is kept as far as it went and said interrupted: it was
        // dropped, leaving `"first_burst": null` beside a `bursts/00-first.csv` that held
        // the drop.
        assert!(o.interrupted && o.steps.is_empty());
        let first = o.first.as_ref().expect("the first burst is kept");
        assert_eq!(first.end, BurstEnd::Interrupted);
        let written = csv_bytes(&dir.path().join("bursts/00-first.csv"));
        assert_eq!(first.timeline.bytes_total(), written);
        assert!(written > 0);
        assert_eq!(o.totals.burst_bytes, written);
        let sum = recovery_summary(&s, &o, &order);
        let v = serde_json::to_value(&sum).unwrap();
        assert_eq!(v["totals"]["burst_bytes"], written);
        assert_eq!(v["recovery"]["first_burst"]["end"], "interrupted");
        assert_eq!(v["recovery"]["first_burst"]["bytes_written"], written);
        let chart = recovery_chart(&sum, &s.opts);
        said(&chart, "recovery");
        // The model's truth is drawn whole: its curve ran past the top of an axis the bound
        // alone set (to 21.6 on an axis to 13.0), drawn flat along it.
        let truth = chart
            .series
            .iter()
            .find(|s| s.name == "model truth")
            .expect("the model's truth is drawn");
        let top = truth.points.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(top > 0.0);
        assert!(
            chart.y.max >= top - 1e-9,
            "truth to {top} on an axis to {}",
            chart.y.max
        );
        // Nothing was measured: the legend has no "measured" entry (it had one).
        assert!(
            chart.legend.iter().all(|l| !l.name.starts_with("measured")),
            "{:?}",
            chart.legend.iter().map(|l| &l.name).collect::<Vec<_>>()
        );
        let b = bursts_chart(&[], &sum.run, ChartKind::RecoveryBursts, "b", &s.opts);
        said(&b, "recovery bursts");
        // A burst without a cliff bounds the cache from below: report.md's table gave the
        // bound as a size with an interval of no width ("2.93 GB | 2.93 GB .. 2.93 GB").
        assert_eq!(first.cache.method, "none", "{:?}", first.cache);
        // The chart's legend gives the bound as one too (it read "first burst: 1.46 GB").
        assert!(
            chart
                .legend
                .iter()
                .any(|l| l.name.starts_with("first burst: >= ") && l.name.ends_with("(no cliff)")),
            "{:?}",
            chart.legend.iter().map(|l| &l.name).collect::<Vec<_>>()
        );
        let md = crate::report::outputs::experiments::recovery_md(&sum, s.opts.units);
        let row = md
            .lines()
            .find(|l| l.starts_with("| 0 |"))
            .expect("the first burst's row");
        assert!(
            row.contains("at least ") && row.contains("none (a bound)"),
            "{row}"
        );

        // A fill sweep cut short in the burst of its second level: the first level's burst
        // finished (with its early stop), and the footers still say the run was interrupted.
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(2, dir.path());
        let levels = [0.0, 20.0, 40.0];
        let o = run_fill_steps(&mut s, &levels, 60.0, false, &AtomicBool::new(false)).unwrap();
        assert!(o.interrupted && o.levels.len() == 1);
        let sum = fill_summary(&s, &o, &levels, 60.0, false);
        said(&fill_chart(&sum, &s.opts), "fill-sweep");
        let bursts: Vec<&BurstRecord> = o.levels.iter().map(|l| &l.3).collect();
        let b = bursts_chart(&bursts, &sum.run, ChartKind::FillSweepBursts, "b", &s.opts);
        said(&b, "fill-sweep bursts");
        let finished = csv_bytes(&dir.path().join("bursts/01-fill-0pct.csv"));
        assert_eq!(o.totals.burst_bytes, finished);

        // Cut short in its first level's burst: "0 levels" was said of a sweep whose burst
        // had measured; the burst is kept, said interrupted.
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_stopping(usize::MAX, 5, dir.path());
        let o = run_fill_steps(&mut s, &levels, 60.0, false, &AtomicBool::new(false)).unwrap();
        assert!(o.interrupted && o.levels.len() == 1);
        assert_eq!(o.levels[0].3.end, BurstEnd::Interrupted);
        let sum = fill_summary(&s, &o, &levels, 60.0, false);
        let w = sum.warnings.join("\n");
        assert!(
            w.contains("0 of 3 levels finished, and the next one's burst cut short"),
            "{w}"
        );
    }

    /// A finished burst keeps a thin timeline for the charts (an experiment of many long
    /// bursts held every one at up to `MAX_KEPT` samples, about 47 MB each): its kept samples
    /// are at most `BURST_CHART_KEPT`, its bytes, time and total are its CSV's, and its
    /// resolution counts the CSV's rows; the analysis saw the samples themselves.
    #[test]
    fn a_long_burst_keeps_a_thin_timeline_for_its_chart() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup_with(usize::MAX, dir.path());
        let mut wa = crate::cli::WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            seed: Some(2),
            ..Default::default()
        };
        wa.interval = Some("10ms".into());
        s.workload = WorkloadConfig::resolve(&wa).unwrap();
        let model = presets::parse_spec("970evo-500g,cache=200GB").unwrap();
        let meta = crate::experiment::virtual_time::run_meta("970evo-500g", &model, &s.workload);
        s.drive = Box::new(StopAtIdle {
            inner: VirtualDrive::new(model, &s.workload, meta),
            idles: 0,
            n: usize::MAX,
            samples: usize::MAX,
        });
        let order = [600.0];
        let o = run_recovery_steps(&mut s, &order, &AtomicBool::new(false)).unwrap();
        let first = o.first.as_ref().expect("the first burst finished");
        let rows = |f: &str| {
            let t = std::fs::read_to_string(dir.path().join(f)).unwrap();
            crate::timeline::read_slccache_csv(&t, "burst").unwrap()
        };
        let csv = rows(&first.file);
        assert!(csv.len() > BURST_CHART_KEPT, "{} rows", csv.len());
        let t = &first.timeline;
        assert!(
            t.samples.len() <= BURST_CHART_KEPT,
            "{} kept",
            t.samples.len()
        );
        assert_eq!(t.bytes_total(), csv.last().unwrap().bytes_total);
        assert!((t.duration_s() - csv.last().unwrap().t_s).abs() < 1e-6);
        let r = t.meta.resolution.as_ref().expect("says it was merged");
        assert_eq!(r.samples, csv.len() as u64);
        assert_eq!(r.envelope.len(), t.samples.len());
        let top = csv.iter().map(|x| x.bytes_per_sec).fold(0.0, f64::max);
        let kept_top = r.envelope.iter().map(|e| e.1).fold(0.0, f64::max);
        // (The CSV gives a rate to 0.1 B/s.)
        assert!(
            (kept_top - top).abs() <= 1.0,
            "the envelope keeps the fastest sample: {kept_top} {top}"
        );
        // The analysis saw the samples themselves: its cliff is within a sample of 10 ms of
        // the one an analysis of the CSV finds.
        let whole = crate::detect::analyze(&crate::timeline::Timeline {
            samples: csv,
            meta: RunMeta {
                resolution: None,
                ..t.meta.clone()
            },
        });
        let (a, b) = (&first.analysis.cliffs[0], &whole.cliffs[0]);
        assert!((a.t_s - b.t_s).abs() <= 0.011, "{} {}", a.t_s, b.t_s);
    }
}
