//! The `sweep` subcommand: one short point per combination of queue depth, job count and
//! read share (or the CrystalDiskMark table with `--preset cdm`), with the same engine, the
//! same sampler and the same models as `probe`.
//!
//! Each point reports IOPS, throughput, latency p50/p99 over all its I/Os, the writer's CPU
//! (thread CPU time of the job threads over the point's wall time, percent of one core) and
//! whether the SLC cache ran out during it (`crossed_cliff`): a write point that crossed the
//! cliff measured two things. The saturation point is the smallest `QD x jobs` that reaches
//! 95% of the best IOPS (among the points of the best point's pattern, block size and mix).
//!
//! On an emulated drive every point starts from the drive's fresh state, as after a long
//! idle: the cache is whole again. `--simulate` runs the points in virtual time with the
//! simulator; without it they run in real time on the emulated backend. On files and block
//! devices the points run one after another with no pause: a write point may start with the
//! cache already used by the points before it; `--max-bytes-per-point` keeps each point small.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use serde::Serialize;

use crate::cli::SweepArgs;
use crate::config::WorkloadConfig;
use crate::engine::emulated::EmulatedDrive;
use crate::engine::job::{run_job, JobShared};
use crate::engine::offsets::OffsetGen;
use crate::error::{usage, Interrupted};
use crate::experiment::burst::{make_backends, Signals};
use crate::model::{closed_loop_rate, presets, DriveModel, Phase};
use crate::report::ReportOptions;
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::target::{self, OpenRequest, Target};
use crate::timeline::{RunMeta, Sample, Timeline};
use crate::units::{format_bytes, format_rate, parse_duration, parse_size, UnitSystem};
use crate::workload::{EngineKind, Pattern, SweepPreset};

/// The header of `sweep.csv`, in column order.
pub const SWEEP_COLUMNS: [&str; 10] = [
    "qd",
    "jobs",
    "bs",
    "rwmix_read",
    "iops",
    "bytes_per_sec",
    "lat_p50_us",
    "lat_p99_us",
    "cpu_pct",
    "crossed_cliff",
];

/// A share of the best IOPS that counts as saturated.
pub const SATURATION_SHARE: f64 = 0.95;

/// One point of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// Pattern (its order, random or sequential; the read share is `read_pct`).
    pub pattern: Pattern,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// Percentage of reads.
    pub read_pct: u32,
    /// A name for tables (the CrystalDiskMark row), if any.
    pub label: Option<String>,
}

/// What one point measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// Block size, bytes.
    pub bs: u64,
    /// Percentage of reads.
    pub rwmix_read: u32,
    /// I/Os (reads and writes) completed per second.
    pub iops: f64,
    /// Bytes (read and written) per second.
    pub bytes_per_sec: f64,
    /// Median latency over all I/Os of the point, microseconds.
    pub lat_p50_us: Option<f64>,
    /// 99th percentile latency, microseconds.
    pub lat_p99_us: Option<f64>,
    /// CPU time of the job threads over the point's wall time, percent of one core (`None`
    /// in virtual time).
    pub cpu_pct: Option<f64>,
    /// The SLC cache ran out during the point: it measured two things.
    pub crossed_cliff: bool,
    /// The pattern (random or sequential order with `rwmix_read` reads).
    pub pattern: String,
    /// The CrystalDiskMark row, for `--preset cdm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The saturation point: the smallest `qd x jobs` reaching 95% of the best IOPS.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saturation {
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// IOPS there.
    pub iops: f64,
}

/// What a perfect sweep of a drive model finds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepTruth {
    /// The model's IOPS ceiling in the cache for the best point's pattern, block and mix.
    pub iops_limit: f64,
    /// IOPS with one I/O in flight (the model's latency).
    pub qd1_iops: f64,
    /// The saturation point on the same grid, from the noise-free model.
    pub saturation: Option<Saturation>,
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// The points, in the order run.
    pub points: Vec<SweepPoint>,
    /// The saturation point.
    pub saturation: Option<Saturation>,
}

fn parse_list(s: &str, flag: &str, lo: u32, hi: u32) -> Result<Vec<u32>> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let x: u32 = part.parse().map_err(|_| {
            usage(format!(
                "{flag} '{s}': '{part}' is not a whole number; give a list such as 1,4,16"
            ))
        })?;
        if !(lo..=hi).contains(&x) {
            return Err(usage(format!(
                "{flag} '{s}': {x} is out of range; give {lo} to {hi}"
            )));
        }
        if !v.contains(&x) {
            v.push(x);
        }
    }
    if v.is_empty() {
        return Err(usage(format!(
            "{flag} is empty; give a list such as 1,4,16"
        )));
    }
    Ok(v)
}

/// The grid of a sweep: `--preset cdm`, or QD x jobs (x read shares).
pub fn grid(args: &SweepArgs) -> Result<Vec<PointSpec>> {
    if let Some(SweepPreset::Cdm) = args.preset {
        let mut v = Vec::new();
        for (read, dir) in [(true, "Read"), (false, "Write")] {
            for (name, random, bs, qd, jobs) in [
                ("Seq Q32T1", false, 1u64 << 20, 32u32, 1u32),
                ("4K Q8T8", true, 4096, 8, 8),
                ("4K Q1T1", true, 4096, 1, 1),
            ] {
                let pattern = match (random, read) {
                    (true, true) => Pattern::Randread,
                    (true, false) => Pattern::Randwrite,
                    (false, true) => Pattern::Seqread,
                    (false, false) => Pattern::Seqwrite,
                };
                v.push(PointSpec {
                    pattern,
                    bs,
                    qd,
                    jobs,
                    read_pct: if read { 100 } else { 0 },
                    label: Some(format!("{name} {dir}")),
                });
            }
        }
        return Ok(v);
    }
    let qds = parse_list(&args.qd, "--qd", 1, 4096)?;
    let jobs = parse_list(&args.jobs, "--jobs", 1, 256)?;
    let bs = parse_size(&args.bs).with_context(|| format!("--bs '{}'", args.bs))?;
    if bs == 0 || bs > 64 << 20 {
        return Err(usage(format!(
            "--bs {bs} bytes is out of range; give 512 bytes to 64 MiB"
        )));
    }
    let base = args.pattern.unwrap_or(Pattern::Randwrite);
    let (pattern, mixes) = match &args.rwmix_read {
        Some(list) => (
            base.mixed_equivalent(),
            parse_list(list, "--rwmix-read", 0, 100)?,
        ),
        None => (base, vec![base.read_pct(None)]),
    };
    let mut v = Vec::new();
    for &m in &mixes {
        for &j in &jobs {
            for &q in &qds {
                v.push(PointSpec {
                    pattern,
                    bs,
                    qd: q,
                    jobs: j,
                    read_pct: m,
                    label: None,
                });
            }
        }
    }
    Ok(v)
}

/// The saturation point of `points`: among those of the best point's pattern, block size
/// and mix, the smallest `qd x jobs` (then fewer jobs) reaching 95% of the best IOPS.
pub fn saturation(points: &[SweepPoint]) -> Option<Saturation> {
    let best = points
        .iter()
        .filter(|p| p.iops.is_finite())
        .max_by(|a, b| a.iops.total_cmp(&b.iops))?;
    points
        .iter()
        .filter(|p| p.bs == best.bs && p.rwmix_read == best.rwmix_read && p.pattern == best.pattern)
        .filter(|p| p.iops >= SATURATION_SHARE * best.iops)
        .min_by_key(|p| (p.qd as u64 * p.jobs as u64, p.jobs, p.qd))
        .map(|p| Saturation {
            qd: p.qd,
            jobs: p.jobs,
            iops: p.iops,
        })
}

/// The noise-free IOPS of `model` in its cache at point `p` (closed loop of `qd x jobs`).
pub fn model_iops(model: &DriveModel, p: &PointSpec) -> f64 {
    let f = p.read_pct.min(100) as f64 / 100.0;
    let rate = model.mixed_rate(Phase::Cache, p.pattern, p.bs, f, f);
    closed_loop_rate(
        rate,
        p.bs,
        p.qd.saturating_mul(p.jobs),
        model.latency_for(f),
    ) / p.bs as f64
}

/// What a perfect sweep of `model` over `grid` finds, for the points like `best` (same
/// pattern, block size and mix).
pub fn truth(model: &DriveModel, grid: &[PointSpec], best: &SweepPoint) -> SweepTruth {
    let same: Vec<&PointSpec> = grid
        .iter()
        .filter(|p| {
            p.bs == best.bs && p.read_pct == best.rwmix_read && p.pattern.name() == best.pattern
        })
        .collect();
    let first = same.first().copied().cloned().unwrap_or(PointSpec {
        pattern: Pattern::Randwrite,
        bs: best.bs,
        qd: 1,
        jobs: 1,
        read_pct: best.rwmix_read,
        label: None,
    });
    let f = first.read_pct as f64 / 100.0;
    let rate = model.mixed_rate(Phase::Cache, first.pattern, first.bs, f, f);
    let bs = first.bs as f64;
    let pts: Vec<SweepPoint> = same
        .iter()
        .map(|p| SweepPoint {
            qd: p.qd,
            jobs: p.jobs,
            bs: p.bs,
            rwmix_read: p.read_pct,
            iops: model_iops(model, p),
            bytes_per_sec: 0.0,
            lat_p50_us: None,
            lat_p99_us: None,
            cpu_pct: None,
            crossed_cliff: false,
            pattern: p.pattern.name().into(),
            label: None,
        })
        .collect();
    SweepTruth {
        iops_limit: rate / bs,
        qd1_iops: closed_loop_rate(rate, first.bs, 1, model.latency_for(f)) / bs,
        saturation: saturation(&pts),
    }
}

/// Weighted quantile of (value, weight) pairs.
fn wquantile(mut v: Vec<(f64, f64)>, q: f64) -> Option<f64> {
    v.retain(|p| p.1 > 0.0 && p.0.is_finite());
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|p| p.1).sum();
    if total <= 0.0 {
        return None;
    }
    let mut acc = 0.0;
    for &(x, w) in &v {
        acc += w;
        if acc >= q * total {
            return Some(x);
        }
    }
    v.last().map(|p| p.0)
}

fn point_config(
    p: &PointSpec,
    duration: Duration,
    interval: Duration,
    max_bytes: Option<u64>,
    seed: u64,
) -> WorkloadConfig {
    WorkloadConfig {
        pattern: p.pattern,
        read_pct: p.read_pct,
        block_size: p.bs,
        queue_depth: p.qd,
        jobs: p.jobs,
        interval,
        span: None,
        duration: Some(duration),
        max_bytes,
        passes: None,
        seed,
        scenario: None,
        description: None,
    }
}

fn result_of(p: &PointSpec, samples: &[Sample], ios: u64, dur_s: f64) -> SweepPoint {
    let bytes: u64 = samples
        .iter()
        .map(|s| s.bytes + s.read.as_ref().map(|r| r.bytes).unwrap_or(0))
        .sum();
    let dur = dur_s.max(1e-9);
    SweepPoint {
        qd: p.qd,
        jobs: p.jobs,
        bs: p.bs,
        rwmix_read: p.read_pct,
        iops: ios as f64 / dur,
        bytes_per_sec: bytes as f64 / dur,
        lat_p50_us: None,
        lat_p99_us: None,
        cpu_pct: None,
        crossed_cliff: false,
        pattern: p.pattern.name().into(),
        label: p.label.clone(),
    }
}

/// Runs one point of `model` in virtual time from the drive's fresh state.
pub fn simulate_point(
    model: &DriveModel,
    p: &PointSpec,
    duration: Duration,
    max_bytes: Option<u64>,
    seed: u64,
) -> Result<SweepPoint> {
    let interval = (duration / 20).max(Duration::from_millis(10));
    let w = point_config(p, duration, interval, max_bytes, seed);
    let sim = crate::experiment::virtual_time::simulate(model, &w, RunMeta::default(), |_| Ok(()))?;
    let t = &sim.timeline;
    let mut r = result_of(p, &t.samples, sim.writes + sim.reads, t.duration_s());
    // Latency quantiles of the point from the per-interval ones, weighted by the I/Os.
    let ios_of =
        |s: &Sample| (s.bytes + s.read.as_ref().map(|r| r.bytes).unwrap_or(0)) as f64 / p.bs as f64;
    let mut p50 = Vec::new();
    let mut p99 = Vec::new();
    for s in &t.samples {
        let wshare = s.bytes as f64 / p.bs as f64;
        let rshare = ios_of(s) - wshare;
        if let Some(x) = s.lat_p50_us {
            p50.push((x, wshare));
        }
        if let Some(x) = s.lat_p99_us {
            p99.push((x, wshare));
        }
        if let Some(rd) = &s.read {
            if let Some(x) = rd.lat_p50_us {
                p50.push((x, rshare));
            }
            if let Some(x) = rd.lat_p99_us {
                p99.push((x, rshare));
            }
        }
    }
    r.lat_p50_us = wquantile(p50, 0.5);
    r.lat_p99_us = wquantile(p99, 0.99);
    r.crossed_cliff = sim.left_cache_at_s.is_some();
    Ok(r)
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration; the clock id is a
    // constant the kernel knows. On failure ts stays zero.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Runs one point on an open target in real time. Returns the point and its timeline.
#[allow(clippy::too_many_arguments)]
fn run_point_real(
    target: &Target,
    p: &PointSpec,
    span: u64,
    engine: EngineKind,
    duration: Duration,
    max_bytes: Option<u64>,
    seed: u64,
    signals: &Signals,
) -> Result<(SweepPoint, Timeline)> {
    let interval = (duration / 20).max(Duration::from_millis(10));
    let cfg = point_config(p, duration, interval, max_bytes, seed);
    // An emulated drive starts every point fresh (as after a long idle).
    let fresh;
    let target = match &target.info.emulated {
        Some(e) => {
            let mut info = target.info.clone();
            info.emulated = Some(EmulatedDrive::from_model(
                info.spec.trim_start_matches("emu:"),
                e.model().clone(),
            ));
            fresh = Target {
                info,
                file: None,
                created: false,
            };
            &fresh
        }
        None => target,
    };
    let (backends, _) = make_backends(target, &cfg, engine)?;
    let blocks = (span / p.bs).max(1);
    let limit = max_bytes
        .map(|m| m.div_ceil(p.bs).max(1))
        .unwrap_or(u64::MAX);
    let shared = Arc::new(
        JobShared::new(OffsetGen::new(p.pattern, p.bs, blocks, seed), limit, seed)
            .with_read_pct(p.read_pct),
    );
    let start = Instant::now();
    let sampler = Arc::new(
        Sampler::new(MonotonicClock::new(start), interval, p.jobs as usize)
            .with_reads(p.read_pct > 0),
    );
    let running = Arc::new(AtomicUsize::new(backends.len()));
    let mut handles = Vec::new();
    for (j, mut b) in backends.into_iter().enumerate() {
        let (sh, sa, ru) = (shared.clone(), sampler.clone(), running.clone());
        let qd = p.qd;
        let h = std::thread::Builder::new()
            .name(format!("slccache-sweep-{j}"))
            .spawn(move || {
                let c0 = thread_cpu();
                let n = run_job(j, b.as_mut(), qd, &sh, &sa);
                let cpu = thread_cpu().saturating_sub(c0);
                drop(b);
                ru.fetch_sub(1, Ordering::SeqCst);
                (n, cpu)
            });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.request_stop();
                for h in handles {
                    let _ = h.join();
                }
                return Err(anyhow!(e).context("cannot start a job thread"));
            }
        }
    }
    loop {
        let now = sampler.clock().now();
        if now >= duration
            || running.load(Ordering::SeqCst) == 0
            || shared.failure().is_some()
            || signals.flag.load(Ordering::SeqCst)
        {
            break;
        }
        std::thread::sleep((duration - now).min(Duration::from_millis(20)));
    }
    shared.request_stop();
    let mut ios = 0;
    let mut cpu = Duration::ZERO;
    for h in handles {
        let (n, c) = h.join().unwrap_or((0, Duration::ZERO));
        ios += n;
        cpu += c;
    }
    let end = sampler.clock().now();
    let samples = sampler.finish(end, None);
    if let Some(f) = shared.failure() {
        return Err(anyhow!("point QD{} x{} jobs: {f}", p.qd, p.jobs));
    }
    let dur = end.as_secs_f64();
    let mut r = result_of(p, &samples, ios, dur);
    let (p50, p99) = sampler.total_latency_us();
    r.lat_p50_us = p50;
    r.lat_p99_us = p99;
    r.cpu_pct = Some(100.0 * cpu.as_secs_f64() / dur.max(1e-9));
    let timeline = Timeline {
        samples,
        meta: RunMeta::default(),
    };
    r.crossed_cliff = p.read_pct < 100
        && match &target.info.emulated {
            Some(e) => {
                let cache = e.model().truth(p.pattern, p.bs).cache_bytes;
                cache > 0 && e.bytes_written() > cache
            }
            None => !crate::detect::analyze(&timeline).cliffs.is_empty(),
        };
    Ok((r, timeline))
}

/// The `config` part of `summary.json`.
#[derive(Serialize)]
struct SweepConfig<'a> {
    command: &'static str,
    target: &'a str,
    simulate: bool,
    engine: Option<&'a str>,
    point_duration_s: f64,
    max_bytes_per_point: Option<u64>,
    preset: Option<&'static str>,
    seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a DriveModel>,
}

/// `summary.json` of a sweep.
#[derive(Serialize)]
struct SweepSummary<'a> {
    slccache_version: &'static str,
    config: SweepConfig<'a>,
    sweep: &'a Sweep,
    #[serde(skip_serializing_if = "Option::is_none")]
    truth: Option<&'a SweepTruth>,
    notes: &'a [String],
    interrupted: bool,
}

/// Writes `sweep.csv`.
pub fn write_csv(path: &Path, points: &[SweepPoint]) -> Result<()> {
    let opt = |v: Option<f64>, prec: usize| v.map(|x| format!("{x:.prec$}")).unwrap_or_default();
    let mut s = SWEEP_COLUMNS.join(",");
    s.push('\n');
    for p in points {
        s += &format!(
            "{},{},{},{},{:.1},{:.1},{},{},{},{}\n",
            p.qd,
            p.jobs,
            p.bs,
            p.rwmix_read,
            p.iops,
            p.bytes_per_sec,
            opt(p.lat_p50_us, 3),
            opt(p.lat_p99_us, 3),
            opt(p.cpu_pct, 1),
            p.crossed_cliff
        );
    }
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

fn iops_text(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M IOPS", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k IOPS", v / 1e3)
    } else {
        format!("{v:.0} IOPS")
    }
}

fn us_text(v: Option<f64>) -> String {
    match v {
        Some(x) if x >= 1000.0 => format!("{:.2} ms", x / 1000.0),
        Some(x) => format!("{x:.0} us"),
        None => "-".into(),
    }
}

/// `report.md` of a sweep.
fn report_md(
    title: &str,
    s: &Sweep,
    truth: Option<&SweepTruth>,
    notes: &[String],
    charts: &[(String, String)],
    cdm: bool,
    units: UnitSystem,
) -> String {
    let mut md = format!("# Sweep: {title}\n\n");
    if let Some(sat) = &s.saturation {
        md += &format!(
            "Saturation: QD{} x {} job(s) (QD x jobs = {}) reaches {}, 95% or more of the best \
             point.\n\n",
            sat.qd,
            sat.jobs,
            sat.qd as u64 * sat.jobs as u64,
            iops_text(sat.iops)
        );
    }
    if let Some(t) = truth {
        md += &format!(
            "Model truth: IOPS ceiling {}, {} at QD1{}.\n\n",
            iops_text(t.iops_limit),
            iops_text(t.qd1_iops),
            t.saturation
                .as_ref()
                .map(|s| format!(", saturation at QD{} x {} job(s)", s.qd, s.jobs))
                .unwrap_or_default()
        );
    }
    if cdm {
        md += "## CrystalDiskMark-style table\n\n| Test | Read | Write |\n|---|---:|---:|\n";
        for name in ["Seq Q32T1", "4K Q8T8", "4K Q1T1"] {
            let cell = |dir: &str| {
                s.points
                    .iter()
                    .find(|p| p.label.as_deref() == Some(&format!("{name} {dir}")))
                    .map(|p| {
                        format!(
                            "{} ({})",
                            format_rate(p.bytes_per_sec, units),
                            iops_text(p.iops)
                        )
                    })
                    .unwrap_or_else(|| "-".into())
            };
            md += &format!("| {name} | {} | {} |\n", cell("Read"), cell("Write"));
        }
        md += "\n";
    }
    md += "## Points\n\n| QD | jobs | block | reads | IOPS | throughput | p50 | p99 | CPU | cache ran out |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for p in &s.points {
        md += &format!(
            "| {} | {} | {} | {}% | {} | {} | {} | {} | {} | {} |\n",
            p.qd,
            p.jobs,
            format_bytes(p.bs as f64, UnitSystem::Binary),
            p.rwmix_read,
            iops_text(p.iops),
            format_rate(p.bytes_per_sec, units),
            us_text(p.lat_p50_us),
            us_text(p.lat_p99_us),
            p.cpu_pct
                .map(|c| format!("{c:.0}%"))
                .unwrap_or_else(|| "-".into()),
            if p.crossed_cliff {
                "**yes: measured two things**"
            } else {
                "no"
            }
        );
    }
    md += "\n";
    for n in notes {
        md += &format!("- {n}\n");
    }
    if !notes.is_empty() {
        md += "\n";
    }
    for (file, caption) in charts {
        md += &format!("![{caption}]({file})\n\n");
    }
    md
}

/// Runs `slccache sweep`.
pub fn run(args: SweepArgs) -> Result<()> {
    let grid = grid(&args)?;
    let duration = parse_duration(&args.point_duration)
        .with_context(|| format!("--point-duration '{}'", args.point_duration))?;
    if duration < Duration::from_millis(100) {
        return Err(usage(
            "--point-duration is too short; give 100ms or more (10s is the default)",
        ));
    }
    let max_bytes = args
        .max_bytes_per_point
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--max-bytes-per-point")?;
    if max_bytes == Some(0) {
        return Err(usage("--max-bytes-per-point must be more than zero"));
    }
    let opts = ReportOptions {
        units: args.output.units,
        png_size: crate::report::parse_png_size(&args.output.png_size)?,
        theme: args.output.theme.into(),
        align_cliff: false,
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let engine = args.engine.unwrap_or(EngineKind::IoUring);
    let mut notes: Vec<String> = Vec::new();
    let any_reads = grid.iter().any(|p| p.read_pct > 0);
    let any_writes = grid.iter().any(|p| p.read_pct < 100);

    // The model, for emulated targets (and required by --simulate).
    let spec = args.target.strip_prefix("emu:");
    let model: Option<DriveModel> = match (spec, args.simulate) {
        (Some(s), _) => Some(presets::parse_spec(s)?),
        (None, true) => {
            return Err(usage(format!(
                "--simulate needs an emulated drive (emu:PRESET), not {}",
                args.target
            )))
        }
        (None, false) => None,
    };
    let mut points = Vec::new();
    let mut interrupted = false;
    let out_dir;
    let quiet = args.quiet;
    let say = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    if let (true, Some(m)) = (args.simulate, &model) {
        out_dir = out_dir_for(&args, &m.name, true);
        for (i, p) in grid.iter().enumerate() {
            let r = simulate_point(m, p, duration, max_bytes, seed ^ i as u64)?;
            say(&point_line(i, grid.len(), &r, opts.units));
            points.push(r);
        }
        notes.push(format!(
            "virtual time: every point starts on the fresh drive (as after a long idle); \
             {}",
            m.read_source
        ));
    } else {
        let req = OpenRequest {
            size: args
                .size
                .as_deref()
                .map(parse_size)
                .transpose()
                .context("--size")?,
            overwrite: args.overwrite || !any_writes,
            destroy_data: args.destroy_data,
            interactive: std::io::IsTerminal::is_terminal(&std::io::stdin()),
        };
        let info = target::inspect(&args.target, &req)?;
        let span_req = args
            .span
            .as_deref()
            .map(parse_size)
            .transpose()
            .context("--span")?;
        let mut span = 0;
        for p in &grid {
            span = info.check_fit(p.bs, span_req)?;
        }
        if any_reads {
            if let Some(n) = target::reads::check_readable(&info, span, args.assume_written, false)?
            {
                eprintln!("slccache: {n}");
                notes.push(n);
            }
        }
        out_dir = out_dir_for(&args, &info.short_name(), false);
        let target = target::open_for_write(info, &req, &mut |p| {
            crate::report::progress::confirm_device(
                &p.path,
                &p.name,
                p.model.as_deref(),
                p.capacity_bytes,
            )
        })?;
        let signals = Signals::install().context("installing signal handlers")?;
        for (i, p) in grid.iter().enumerate() {
            if signals.flag.load(Ordering::SeqCst) {
                interrupted = true;
                break;
            }
            let (r, _) = match run_point_real(
                &target,
                p,
                span,
                engine,
                duration,
                max_bytes,
                seed ^ i as u64,
                &signals,
            ) {
                Ok(x) => x,
                Err(e) => {
                    target.remove_created();
                    return Err(e);
                }
            };
            say(&point_line(i, grid.len(), &r, opts.units));
            points.push(r);
        }
        if signals.flag.load(Ordering::SeqCst) {
            interrupted = true;
        }
        if let Some(m) = &model {
            notes.push(format!(
                "emulated drive in real time: every point starts on the fresh drive; {}",
                m.read_source
            ));
        } else if any_writes && max_bytes.is_none() {
            notes.push(
                "write points ran without --max-bytes-per-point, one after another: a point \
                 may have started with the cache used up by the points before it; \
                 crossed_cliff marks the points in which a cliff was seen"
                    .into(),
            );
        }
    }
    if let Some(m) = max_bytes {
        notes.push(format!(
            "each point stopped after {} (--max-bytes-per-point)",
            format_bytes(m as f64, opts.units)
        ));
    }
    let crossed = points.iter().filter(|p| p.crossed_cliff).count();
    if crossed > 0 {
        notes.push(format!(
            "{crossed} point(s) ran out of SLC cache during the point and measured two things \
             (crossed_cliff); shorten the points or give --max-bytes-per-point"
        ));
    }
    let sweep = Sweep {
        saturation: saturation(&points),
        points,
    };
    let best = sweep.points.iter().max_by(|a, b| a.iops.total_cmp(&b.iops));
    let truth = match (&model, best) {
        (Some(m), Some(b)) => Some(truth(m, &grid, b)),
        _ => None,
    };

    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create the output folder {}", out_dir.display()))?;
    let mut files = Vec::new();
    let csv = out_dir.join("sweep.csv");
    write_csv(&csv, &sweep.points)?;
    files.push(csv);
    let summary = SweepSummary {
        slccache_version: crate::VERSION,
        config: SweepConfig {
            command: "sweep",
            target: &args.target,
            simulate: args.simulate,
            engine: (!args.simulate).then(|| engine.name()),
            point_duration_s: duration.as_secs_f64(),
            max_bytes_per_point: max_bytes,
            preset: args.preset.map(|_| "cdm"),
            seed,
            model: model.as_ref(),
        },
        sweep: &sweep,
        truth: truth.as_ref(),
        notes: &notes,
        interrupted,
    };
    let sj = out_dir.join("summary.json");
    std::fs::write(&sj, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", sj.display()))?;
    files.push(sj);
    let title = model
        .as_ref()
        .map(|m| {
            format!(
                "{}{}",
                m.model,
                if args.simulate {
                    " (simulated)"
                } else {
                    " (emulated)"
                }
            )
        })
        .unwrap_or_else(|| args.target.clone());
    let specs = crate::report::sweep_charts::charts(&sweep, &title, &opts);
    let mut captions = Vec::new();
    for s in &specs {
        let written = crate::report::write_chart(&out_dir, s)?;
        if let Some(png) = written
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "png"))
        {
            captions.push((
                png.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.title.clone(),
            ));
        }
        files.extend(written);
    }
    let md = report_md(
        &title,
        &sweep,
        truth.as_ref(),
        &notes,
        &captions,
        args.preset.is_some(),
        opts.units,
    );
    let rp = out_dir.join("report.md");
    std::fs::write(&rp, md).with_context(|| format!("writing {}", rp.display()))?;
    files.push(rp);

    let mut line = format!("{}: {} points", args.target, sweep.points.len());
    if let Some(b) = best {
        line += &format!(", best {} at QD{} x{}", iops_text(b.iops), b.qd, b.jobs);
    }
    if let Some(s) = &sweep.saturation {
        line += &format!(
            ", saturation at QD{} x {} job(s) ({})",
            s.qd,
            s.jobs,
            iops_text(s.iops)
        );
    }
    if let Some(t) = &truth {
        line += &format!("; model ceiling {}", iops_text(t.iops_limit));
    }
    crate::report::progress::print_done(&out_dir, &line, args.quiet);
    if interrupted {
        return Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        )));
    }
    Ok(())
}

fn point_line(i: usize, n: usize, p: &SweepPoint, units: UnitSystem) -> String {
    format!(
        "[{}/{n}] QD{} x{} {} {}% reads: {}, {}, p50 {}, p99 {}{}",
        i + 1,
        p.qd,
        p.jobs,
        format_bytes(p.bs as f64, UnitSystem::Binary),
        p.rwmix_read,
        iops_text(p.iops),
        format_rate(p.bytes_per_sec, units),
        us_text(p.lat_p50_us),
        us_text(p.lat_p99_us),
        if p.crossed_cliff {
            " (cache ran out)"
        } else {
            ""
        }
    )
}

fn out_dir_for(args: &SweepArgs, name: &str, sim: bool) -> PathBuf {
    args.output.out.clone().unwrap_or_else(|| {
        let ts = chrono::Local::now().format("%Y%m%d-%H%M%S");
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        PathBuf::from("output").join(format!(
            "{clean}-sweep{}-{ts}",
            if sim { "-sim" } else { "" }
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(qd: u32, jobs: u32, iops: f64) -> SweepPoint {
        SweepPoint {
            qd,
            jobs,
            bs: 4096,
            rwmix_read: 0,
            iops,
            bytes_per_sec: iops * 4096.0,
            lat_p50_us: None,
            lat_p99_us: None,
            cpu_pct: None,
            crossed_cliff: false,
            pattern: "randwrite".into(),
            label: None,
        }
    }

    #[test]
    fn saturation_is_the_smallest_product_within_five_percent() {
        let v = vec![
            pt(1, 1, 30e3),
            pt(8, 1, 250e3),
            pt(16, 1, 318e3),
            pt(64, 1, 333e3),
            pt(4, 4, 317e3),
            pt(16, 4, 330e3),
        ];
        let s = saturation(&v).unwrap();
        // 0.95 * 333k = 316.4k: QD16 x1 and QD4 x4 both reach it at 16; fewer jobs wins.
        assert_eq!((s.qd, s.jobs), (16, 1));
        assert!(saturation(&[]).is_none());
    }

    #[test]
    fn lists_are_checked() {
        assert_eq!(
            parse_list("1, 4,16,4", "--qd", 1, 4096).unwrap(),
            vec![1, 4, 16]
        );
        for bad in ["", "0", "1,x", "5000"] {
            let e = parse_list(bad, "--qd", 1, 4096).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--qd"), "{e:#}");
        }
    }
}
