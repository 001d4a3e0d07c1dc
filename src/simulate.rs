//! The `simulate` subcommand: runs a drive model in virtual time.
//!
//! The simulator keeps `queue depth x jobs` writes in flight on the model's FIFO server and
//! integrates the model over time with [`DriveState::write`][write] (the same function the
//! real-time emulated backend calls per write), one sampling interval at a time. An hour of
//! writing takes milliseconds. Each interval becomes a [`Sample`]; latencies come from Little's law
//! (`in flight x block size / throughput`) for every stretch at one rate.
//!
//! Outputs are those of a probe: `timeline.csv`, `summary.json` (with the model and its truth
//! under `config`), charts and `report.md`.
//!
//! [write]: crate::model::DriveState::write

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::SimulateArgs;
use crate::config::WorkloadConfig;
use crate::detect::Analysis;
use crate::error::{usage, Interrupted};
use crate::model::{presets, DriveModel, Load, Truth};
use crate::report::{ReportOptions, Summary, Totals};
use crate::timeline::{CsvWriter, DeviceIdentity, RunMeta, Sample, StopReason, Timeline, Workload};
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// The result of a simulation.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The timeline, one sample per interval.
    pub timeline: Timeline,
    /// What the model says a perfect measurement finds.
    pub truth: Truth,
    /// Writes completed.
    pub writes: u64,
}

/// The byte limit of a workload on a drive of `capacity` bytes: `max_bytes`, else `passes`
/// over the span, else one pass over the span unless a duration is given.
pub fn byte_limit(w: &WorkloadConfig, capacity: u64) -> Result<Option<u64>> {
    let span = w.span.unwrap_or(capacity);
    if span > capacity {
        return Err(usage(format!(
            "--span {} is larger than the drive ({})",
            format_bytes(span as f64, UnitSystem::Decimal),
            format_bytes(capacity as f64, UnitSystem::Decimal)
        )));
    }
    if span < w.block_size {
        return Err(usage(format!(
            "--span {span} bytes is smaller than one block ({} bytes)",
            w.block_size
        )));
    }
    Ok(match (w.max_bytes, w.passes, w.duration) {
        (Some(b), _, _) => Some(b),
        (None, Some(p), _) => Some((p * span as f64).round() as u64),
        (None, None, None) => Some(span),
        (None, None, Some(_)) => None,
    })
}

/// Weighted quantile of (value, weight) pairs sorted by value.
fn quantile(sorted: &[(f64, f64)], q: f64) -> Option<f64> {
    let total: f64 = sorted.iter().map(|p| p.1).sum();
    if sorted.is_empty() || total <= 0.0 {
        return None;
    }
    let want = q * total;
    let mut acc = 0.0;
    for &(v, w) in sorted {
        acc += w;
        if acc >= want {
            return Some(v);
        }
    }
    sorted.last().map(|p| p.0)
}

/// Most samples a simulation keeps (about 500 MB of timeline in memory).
pub const MAX_SAMPLES: f64 = 5e6;

/// Refuses a simulation that would make more than [`MAX_SAMPLES`] samples (a usage error,
/// before anything is written): `--max-bytes 1EB` at 1 s intervals would run for decades of
/// virtual time and never finish.
pub fn check_length(model: &DriveModel, w: &WorkloadConfig) -> Result<()> {
    let limit = byte_limit(w, model.capacity.0)?;
    let truth = model.truth(w.pattern, w.block_size);
    let slowest = [
        Some(truth.after_cache_bytes_per_sec),
        truth.folding_bytes_per_sec,
        Some(truth.in_cache_bytes_per_sec),
    ]
    .into_iter()
    .flatten()
    .filter(|r| *r > 0.0)
    .fold(f64::INFINITY, f64::min);
    let by_bytes = limit.map(|l| l as f64 / slowest).unwrap_or(f64::INFINITY);
    let by_time = w.duration.map(|d| d.as_secs_f64()).unwrap_or(f64::INFINITY);
    let virtual_s = by_bytes.min(by_time);
    let interval = w.interval.as_secs_f64();
    if virtual_s / interval > MAX_SAMPLES {
        let need = (virtual_s / MAX_SAMPLES).ceil();
        return Err(usage(format!(
            "this run would last up to {} of virtual time: {:.0} samples of --interval {}, \
             more than the {} a simulation keeps; give --interval {}s or longer, or a \
             smaller --max-bytes or --duration",
            format_seconds(virtual_s),
            virtual_s / interval,
            format_seconds(interval),
            MAX_SAMPLES,
            need
        )));
    }
    Ok(())
}

/// Runs `model` under workload `w` in virtual time. `on_sample` sees each sample as it is
/// made (to write it out at once).
pub fn simulate(
    model: &DriveModel,
    w: &WorkloadConfig,
    meta: RunMeta,
    on_sample: impl FnMut(&Sample) -> Result<()>,
) -> Result<Simulation> {
    simulate_until(model, w, meta, &AtomicBool::new(false), on_sample)
}

/// [`simulate`], stopping (with [`StopReason::Interrupted`]) after the sample during which
/// `stop` becomes true.
pub fn simulate_until(
    model: &DriveModel,
    w: &WorkloadConfig,
    meta: RunMeta,
    stop_flag: &AtomicBool,
    mut on_sample: impl FnMut(&Sample) -> Result<()>,
) -> Result<Simulation> {
    let limit = byte_limit(w, model.capacity.0)?;
    let end_time = w.duration.map(|d| d.as_secs_f64()).unwrap_or(f64::INFINITY);
    let in_flight = w.queue_depth.saturating_mul(w.jobs);
    let load = Load {
        pattern: w.pattern,
        block_size: w.block_size,
        in_flight: Some(in_flight),
    };
    let bs = w.block_size as f64;
    let mut state = model.new_state(w.seed);
    let interval = w.interval.as_secs_f64();
    let mut samples = Vec::new();
    let mut t = 0.0f64;
    let mut exact_total = 0.0f64;
    let mut total = 0u64;
    let stop;
    loop {
        let left = match limit {
            Some(l) => l as f64 - exact_total,
            None => f64::INFINITY,
        };
        if left < 0.5 {
            stop = StopReason::MaxBytes;
            break;
        }
        if t >= end_time - 1e-9 {
            stop = StopReason::Duration;
            break;
        }
        if stop_flag.load(Ordering::SeqCst) {
            stop = StopReason::Interrupted;
            break;
        }
        let t_end = (t + interval).min(end_time);
        let mut lats: Vec<(f64, f64)> = Vec::new();
        let mut written = 0.0;
        let end = state.write(model, &load, t, left, t_end, |seg| {
            written += seg.bytes;
            if seg.rate > 0.0 && seg.bytes > 0.0 {
                lats.push((in_flight as f64 * bs / seg.rate, seg.bytes / bs));
            }
        });
        if end <= t {
            // Nothing more can happen (no rate): stop rather than loop.
            stop = StopReason::EndOfData;
            break;
        }
        exact_total += written;
        let new_total = exact_total.round() as u64;
        let bytes = new_total - total;
        total = new_total;
        let dt = end - t;
        lats.sort_by(|a, b| a.0.total_cmp(&b.0));
        let us = |v: Option<f64>| v.map(|s| s * 1e6);
        let sample = Sample {
            t_s: end,
            interval_s: dt,
            bytes,
            bytes_total: total,
            bytes_per_sec: bytes as f64 / dt,
            iops: bytes as f64 / bs / dt,
            lat_p50_us: us(quantile(&lats, 0.5)),
            lat_p99_us: us(quantile(&lats, 0.99)),
            lat_max_us: us(lats.last().map(|p| p.0)),
            temp_c: model.thermal.as_ref().map(|_| state.temp_c),
        };
        on_sample(&sample)?;
        samples.push(sample);
        t = end;
    }
    let mut meta = meta;
    meta.stop_reason = Some(stop);
    Ok(Simulation {
        timeline: Timeline { samples, meta },
        truth: model.truth(w.pattern, w.block_size),
        writes: (exact_total / bs).round() as u64,
    })
}

/// The run metadata of a simulation of `model` (given as `spec`) under `w`.
pub fn run_meta(spec: &str, model: &DriveModel, w: &WorkloadConfig) -> RunMeta {
    RunMeta {
        device: DeviceIdentity {
            path: format!("sim:{spec}"),
            kind: "emulated".into(),
            model: Some(format!("{} (simulated)", model.model)),
            serial: None,
            firmware: None,
            capacity_bytes: Some(model.capacity.0),
            logical_block_size: Some(512),
            physical_block_size: Some(4096),
        },
        workload: Workload {
            pattern: w.pattern.name().into(),
            block_size: Some(w.block_size),
            queue_depth: Some(w.queue_depth),
            jobs: Some(w.jobs),
            interval_s: Some(w.interval.as_secs_f64()),
            engine: Some("simulated".into()),
            span_bytes: Some(w.span.unwrap_or(model.capacity.0)),
        },
        started_at: Some(chrono::Utc::now()),
        stop_reason: None,
        label: format!("{} (simulated)", model.model),
        slccache_version: crate::VERSION.to_string(),
    }
}

fn safe_name(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if t.is_empty() {
        "model".into()
    } else {
        t
    }
}

/// `config` of `summary.json` for a simulation.
#[derive(Serialize)]
struct SimConfig<'a> {
    command: &'static str,
    model_spec: &'a str,
    model: &'a DriveModel,
    truth: &'a Truth,
    workload: &'a WorkloadConfig,
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
        "{} ({}), {pat} {} QD{} x{} jobs, virtual time\n",
        model.name,
        model.model,
        format_bytes(w.block_size as f64, UnitSystem::Binary),
        w.queue_depth,
        w.jobs
    );
    s += &format!(
        "  wrote {} in {} (virtual), {}\n",
        format_bytes(t.bytes_total() as f64, units),
        format_seconds(t.duration_s()),
        t.meta
            .stop_reason
            .map(|r| r.to_string())
            .unwrap_or_default()
    );
    if truth.cache_bytes > 0 {
        s += &format!(
            "  model truth: cache {}, {} -> {}",
            format_bytes(truth.cache_bytes as f64, units),
            format_rate(truth.in_cache_bytes_per_sec, units),
            format_rate(truth.after_cache_bytes_per_sec, units)
        );
    } else {
        s += &format!(
            "  model truth: no SLC cache, {}",
            format_rate(truth.after_cache_bytes_per_sec, units)
        );
    }
    if let (Some(at), Some(r)) = (truth.folding_starts_at_bytes, truth.folding_bytes_per_sec) {
        s += &format!(
            " -> {} after {}",
            format_rate(r, units),
            format_bytes(at as f64, units)
        );
    }
    s += "\n";
    match &analysis.cache_estimate {
        Some(e) => {
            let err = if truth.cache_bytes > 0 {
                format!(
                    " ({:+.2}% vs truth)",
                    (e.bytes as f64 / truth.cache_bytes as f64 - 1.0) * 100.0
                )
            } else {
                " (the model has no cache)".into()
            };
            s += &format!(
                "  estimate:    cache {} {}{err}\n",
                format_bytes(e.bytes as f64, units),
                crate::analyze::interval_text(e.low_bytes, e.high_bytes, units)
            );
        }
        None => {
            s += &format!(
                "  estimate:    no cliff seen: {}\n",
                crate::detect::no_cliff_text(
                    analysis.cache_lower_bound_bytes,
                    t.bytes_total(),
                    units
                )
            );
        }
    }
    for w in &analysis.warnings {
        s += &format!("  warning: {w}\n");
    }
    s
}

/// Runs `slccache simulate`.
pub fn run(args: SimulateArgs) -> Result<()> {
    let model = presets::parse_spec(&args.model)?;
    let w = WorkloadConfig::resolve(&args.workload)?;
    let png_size = crate::report::parse_png_size(&args.output.png_size)?;
    let opts = ReportOptions {
        units: args.output.units,
        png_size,
    };
    // Check the limits before creating anything.
    byte_limit(&w, model.capacity.0)?;
    check_length(&model, &w)?;
    let dir: PathBuf = match &args.output.out {
        Some(d) => d.clone(),
        None => Path::new("output").join(format!(
            "{}-sim-{}",
            safe_name(&model.name),
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        )),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let csv_path = dir.join("timeline.csv");
    let mut csv =
        CsvWriter::create(&csv_path).with_context(|| format!("writing {}", csv_path.display()))?;
    let meta = run_meta(&args.model, &model, &w);
    // Ctrl-C / SIGTERM: stop after the current sample and still write every output (exit
    // 130); a second Ctrl-C ends the process at once.
    let flag = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::new();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        ids.push(signal_hook::flag::register_conditional_shutdown(
            sig,
            130,
            flag.clone(),
        )?);
        ids.push(signal_hook::flag::register(sig, flag.clone())?);
    }
    let sim = simulate_until(&model, &w, meta, &flag, |s| {
        csv.append(s)
            .with_context(|| format!("writing {}", csv_path.display()))
    });
    for id in ids {
        signal_hook::low_level::unregister(id);
    }
    let sim = sim?;
    let interrupted = sim.timeline.meta.stop_reason == Some(StopReason::Interrupted);
    let analysis = crate::detect::analyze(&sim.timeline);
    let t = &sim.timeline;
    let summary = Summary {
        slccache_version: crate::VERSION.to_string(),
        config: serde_json::to_value(SimConfig {
            command: "simulate",
            model_spec: &args.model,
            model: &model,
            truth: &sim.truth,
            workload: &w,
        })?,
        run: t.meta.clone(),
        totals: Totals::of(t, sim.writes),
        interrupted,
        error: None,
        analysis: analysis.clone(),
    };
    crate::report::write_summary(&dir, &summary)?;
    crate::report::write_charts_and_report(&dir, t, &analysis, &opts)?;
    let text = summary_text(&model, &w, &sim, &analysis, opts.units)
        + &format!("  outputs: {}\n", dir.display());
    if args.json {
        println!("{}", serde_json::to_string(&analysis)?);
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    if interrupted {
        return Err(anyhow::Error::new(Interrupted(dir.display().to_string())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Pattern;
    use std::time::Duration;

    fn workload(pattern: Pattern, bs: u64, qd: u32) -> WorkloadConfig {
        WorkloadConfig {
            pattern,
            block_size: bs,
            queue_depth: qd,
            jobs: 1,
            interval: Duration::from_secs(1),
            span: None,
            duration: None,
            max_bytes: None,
            passes: None,
            seed: 1,
            scenario: None,
            description: None,
        }
    }

    #[test]
    fn bytes_are_conserved_and_limits_hold() {
        let m = presets::find("960evo-500g").unwrap();
        let mut w = workload(Pattern::Seqwrite, 128 << 10, 32);
        w.max_bytes = Some(40_000_000_000);
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let t = &sim.timeline;
        assert_eq!(t.bytes_total(), 40_000_000_000);
        assert_eq!(
            t.samples.iter().map(|s| s.bytes).sum::<u64>(),
            t.bytes_total()
        );
        assert_eq!(t.meta.stop_reason, Some(StopReason::MaxBytes));
        w.max_bytes = None;
        w.duration = Some(Duration::from_secs(30));
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        assert!((sim.timeline.duration_s() - 30.0).abs() < 1e-6);
        assert_eq!(sim.timeline.samples.len(), 30);
        assert_eq!(sim.timeline.meta.stop_reason, Some(StopReason::Duration));
    }

    #[test]
    fn latency_follows_queue_depth() {
        let m = presets::find("960evo-500g").unwrap();
        let mut lat = vec![];
        for qd in [1, 32, 128] {
            let mut w = workload(Pattern::Randwrite, 4096, qd);
            w.duration = Some(Duration::from_secs(3));
            let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
            lat.push(sim.timeline.samples[1].lat_p50_us.unwrap());
        }
        assert!(lat[0] < lat[1] && lat[1] < lat[2], "{lat:?}");
    }

    #[test]
    fn span_larger_than_drive_is_a_usage_error() {
        let m = presets::find("960evo-250g").unwrap();
        let mut w = workload(Pattern::Seqwrite, 1 << 20, 1);
        w.span = Some(300_000_000_000);
        let e = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
    }
}
