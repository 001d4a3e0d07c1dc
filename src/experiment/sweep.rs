//! One point of a sweep, on a real or emulated target in real time or on a model in virtual
//! time, and what a sweep of a model should find.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use crate::config::WorkloadConfig;
use crate::device::Target;
use crate::engine::emulated::EmulatedDrive;
use crate::engine::job::{run_job, JobShared};
use crate::engine::offsets::OffsetGen;
use crate::experiment::backends::make_backends;
use crate::experiment::signals::Signals;
use crate::model::{closed_loop_rate, DriveModel, Phase};
use crate::results::sweep::{PointSpec, Saturation, SweepPoint, SweepTruth, SATURATION_SHARE};
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::timeline::{RunMeta, Sample, Timeline};
use crate::workload::{EngineKind, Pattern};

/// The saturation point of one workload's `points` (same pattern, block size and read
/// share): the smallest `qd x jobs` (then fewer jobs) reaching 95% of their best IOPS, if a
/// point with a larger `qd x jobs` was measured too. When only the largest point reaches it,
/// the IOPS may still rise past the grid: no saturation is claimed.
fn saturation_of(points: &[&SweepPoint]) -> Option<Saturation> {
    let best = points
        .iter()
        .filter(|p| p.iops.is_finite())
        .max_by(|a, b| a.iops.total_cmp(&b.iops))?;
    let product = |p: &SweepPoint| p.qd as u64 * p.jobs as u64;
    let largest = points.iter().map(|p| product(p)).max()?;
    points
        .iter()
        .filter(|p| p.iops >= SATURATION_SHARE * best.iops)
        .min_by_key(|p| (product(p), p.jobs, p.qd))
        .filter(|p| product(p) < largest)
        .map(|p| Saturation {
            qd: p.qd,
            jobs: p.jobs,
            iops: p.iops,
            pattern: p.pattern.clone(),
            bs: p.bs,
            rwmix_read: p.rwmix_read,
        })
}

/// The points of `points` with the workload (pattern, block size, read share) of `like`.
fn same_workload<'a>(points: &'a [SweepPoint], like: &SweepPoint) -> Vec<&'a SweepPoint> {
    points
        .iter()
        .filter(|p| p.bs == like.bs && p.rwmix_read == like.rwmix_read && p.pattern == like.pattern)
        .collect()
}

/// The saturation point of the best point's workload (see [`saturations`]); reads and
/// writes, block sizes and mixes are never compared with each other.
pub fn saturation(points: &[SweepPoint]) -> Option<Saturation> {
    let best = points
        .iter()
        .filter(|p| p.iops.is_finite())
        .max_by(|a, b| a.iops.total_cmp(&b.iops))?;
    saturation_of(&same_workload(points, best))
}

/// The saturation point of every workload (pattern, block size, read share) of `points` that
/// saturated within the grid, in the order the workloads first appear.
pub fn saturations(points: &[SweepPoint]) -> Vec<Saturation> {
    let mut seen: Vec<(&str, u64, u32)> = Vec::new();
    let mut out = Vec::new();
    for p in points {
        let key = (p.pattern.as_str(), p.bs, p.rwmix_read);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        out.extend(saturation_of(&same_workload(points, p)));
    }
    out
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
            model_bytes_per_sec: None,
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
        model_bytes_per_sec: None,
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

/// Runs one point on an open target in real time: its own backends, `duration` of writing (or
/// `max_bytes`). Returns the point, the samples it made, and whether Ctrl-C or SIGTERM cut it
/// short (then it measured less than the others and is no full point).
#[allow(clippy::too_many_arguments)]
pub fn run_point_real(
    target: &Target,
    p: &PointSpec,
    span: u64,
    engine: EngineKind,
    duration: Duration,
    max_bytes: Option<u64>,
    seed: u64,
    signals: &Signals,
) -> Result<(SweepPoint, Timeline, bool)> {
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
    // Whether a signal ended the point before its time or its bytes were done.
    let mut cut_short = false;
    loop {
        let now = sampler.clock().now();
        if now >= duration || running.load(Ordering::SeqCst) == 0 || shared.failure().is_some() {
            break;
        }
        if signals.flag.load(Ordering::SeqCst) {
            cut_short = true;
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
        return Err(anyhow!(
            "point QD{} × {}: {f}",
            p.qd,
            crate::units::count_text(p.jobs as usize, "job", "jobs")
        ));
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
    r.model_bytes_per_sec = target
        .info
        .emulated
        .as_ref()
        .and_then(|e| e.pace().model_bytes_per_sec());
    r.crossed_cliff = p.read_pct < 100
        && match &target.info.emulated {
            Some(e) => {
                let cache = e.model().truth(p.pattern, p.bs).cache_bytes;
                cache > 0 && e.bytes_written() > cache
            }
            None => !crate::detect::analyze(&timeline).cliffs.is_empty(),
        };
    Ok((r, timeline, cut_short))
}
