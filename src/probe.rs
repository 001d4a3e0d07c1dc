//! The `probe` subcommand: write to a target without pause and record what it did, interval
//! by interval, then analyse and report.
//!
//! Order of work: resolve the configuration; inspect the target (refusals, nothing written);
//! check the block size and span against it (usage errors, nothing written); open it (asking
//! for agreement on block devices); set up one backend per job (an io_uring failure names its
//! cause and suggests `--engine sync`); then run, appending a `timeline.csv` row at every
//! interval deadline. Ctrl-C / SIGTERM stop submitting, drain, and still write everything
//! (exit 130). A write error stops the run, keeps every output, and is reported with its
//! offset and time (exit 1).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use crate::cli::ProbeArgs;
use crate::config::WorkloadConfig;
use crate::engine::job::{run_job, JobShared, WriteFailure};
use crate::engine::offsets::OffsetGen;
use crate::engine::sync::SyncBackend;
use crate::engine::uring::{setup_error_hint, UringBackend};
use crate::engine::Backend;
use crate::error::{usage, Interrupted};
use crate::report::progress::{self, Progress};
use crate::report::{ReportOptions, Summary, Totals};
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::target::{self, OpenRequest, Target, TargetKind};
use crate::timeline::{CsvWriter, RunMeta, Sample, StopReason, Timeline, Workload};
use crate::units::{format_bytes, format_rate, format_seconds, parse_size};
use crate::workload::{EngineKind, Pattern};

/// Most memory the data buffers of all jobs may take together.
const MAX_BUFFER_BYTES: u64 = 2 << 30;

/// Most threads the sync engine may start (one per in-flight write).
const MAX_SYNC_THREADS: u64 = 4096;

/// How often the sampling thread looks at signals and job state between deadlines.
const POLL: Duration = Duration::from_millis(20);

/// What the run will do, derived from the configuration and the target.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Plan {
    /// Bytes of the target written over (a multiple of the block size).
    pub span_bytes: u64,
    /// Blocks in one pass.
    pub blocks: u64,
    /// Writes to issue at most (None: only the time limit stops the run).
    pub write_limit: Option<u64>,
}

impl Plan {
    /// The stop rules: `--max-bytes` and `passes` become a write count (rounded up to whole
    /// blocks); with neither and no `--duration`, one pass over the span.
    pub fn new(cfg: &WorkloadConfig, span: u64) -> Plan {
        let bs = cfg.block_size;
        let blocks = span / bs;
        let by_bytes = cfg.max_bytes.map(|m| m.div_ceil(bs).max(1));
        let by_passes = cfg
            .passes
            .map(|p| ((blocks as f64) * p).ceil().max(1.0) as u64);
        let limit = match (by_bytes, by_passes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let limit = match (limit, cfg.duration) {
            (None, None) => Some(blocks),
            (l, _) => l,
        };
        Plan {
            span_bytes: blocks * bs,
            blocks,
            write_limit: limit,
        }
    }
}

/// Runs `slccache probe`.
pub fn run(args: ProbeArgs) -> Result<()> {
    if args.target.trim().is_empty() {
        return Err(usage(
            "the target is empty: give a block device (/dev/nvme0n1), a file (scratch.bin) or \
             an emulated drive (emu:960evo-500g; see slccache presets)",
        ));
    }
    let cfg = WorkloadConfig::resolve(&args.workload)?;
    let opts = ReportOptions {
        units: args.output.units,
        png_size: crate::report::parse_png_size(&args.output.png_size)?,
    };
    let engine = args.engine.unwrap_or(EngineKind::IoUring);
    let size = args
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--size")?;
    let req = OpenRequest {
        size,
        overwrite: args.overwrite,
        destroy_data: args.destroy_data,
        interactive: std::io::stdin().is_terminal(),
    };

    // 1. What is it? (refusals; nothing written)
    if args.target.starts_with("emu:") {
        // An emulated drive writes nothing anywhere: these flags would be ignored silently.
        let ignored = [
            (
                args.size.is_some(),
                "--size (an emulated drive's size is its capacity=)",
            ),
            (args.overwrite, "--overwrite (nothing is overwritten)"),
            (args.destroy_data, "--destroy-data (no data is destroyed)"),
            (
                args.engine == Some(EngineKind::Sync),
                "--engine sync (an emulated drive has its own engine)",
            ),
        ];
        if let Some((_, flag)) = ignored.iter().find(|(given, _)| *given) {
            return Err(usage(format!(
                "{flag} does not apply to an emulated drive ({}); leave it out",
                args.target
            )));
        }
    }
    let info = target::inspect(&args.target, &req)?;
    // 2. Does the workload fit? (usage errors; nothing written)
    info.check_fit(cfg.block_size, cfg.span)?;
    if info.kind != TargetKind::Emulated {
        let need = cfg.block_size * cfg.queue_depth as u64 * cfg.jobs as u64;
        if need > MAX_BUFFER_BYTES {
            return Err(usage(format!(
                "--bs x --qd x --jobs needs {} of data buffers, more than the {} allowed; \
                 lower one of them",
                format_bytes(need as f64, crate::units::UnitSystem::Binary),
                format_bytes(MAX_BUFFER_BYTES as f64, crate::units::UnitSystem::Binary)
            )));
        }
    }
    if engine == EngineKind::Sync && info.kind != TargetKind::Emulated {
        let threads = cfg.queue_depth as u64 * cfg.jobs as u64;
        if threads > MAX_SYNC_THREADS {
            return Err(usage(format!(
                "--engine sync runs one thread per in-flight write: --qd x --jobs = {threads} \
                 threads, more than {MAX_SYNC_THREADS}; lower --qd or --jobs"
            )));
        }
    }
    let out_dir = args
        .output
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(&info.short_name()));

    // 3. Open it (agreement on block devices, O_DIRECT, O_EXCL).
    let target = target::open_for_write(info, &req, &mut |p| {
        progress::confirm_device(&p.path, &p.name, p.model.as_deref(), p.capacity_bytes)
    })?;
    let span = match target.info.check_fit(cfg.block_size, cfg.span) {
        Ok(s) => s,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    let plan = Plan::new(&cfg, span);

    // 4. One backend per job.
    let (backends, ring_info) = match make_backends(&target, &cfg, engine) {
        Ok(b) => b,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create the output folder {}", out_dir.display()))?;

    // 5. Run.
    let outcome = run_jobs(&target, &cfg, &plan, backends, &out_dir, args.quiet, &opts)?;

    // 6. Summary, analysis, charts.
    finish(&target, &cfg, &plan, &out_dir, &opts, outcome, ring_info)
}

fn default_out_dir(name: &str) -> PathBuf {
    let ts = chrono::Local::now().format("%Y%m%d-%H%M%S");
    PathBuf::from("output").join(format!("{name}-{ts}"))
}

/// How the io_uring rings were set up (for the summary).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
struct RingInfo {
    fixed_buffers: bool,
    fixed_file: bool,
}

/// One backend per job.
type Backends = Vec<Box<dyn Backend>>;

fn make_backends(
    target: &Target,
    cfg: &WorkloadConfig,
    engine: EngineKind,
) -> Result<(Backends, Option<RingInfo>)> {
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    let mut ring_info = None;
    for j in 0..cfg.jobs {
        let seed = cfg.seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(j as u64 + 1));
        let b: Box<dyn Backend> = if let Some(emu) = &target.info.emulated {
            emu.backend(cfg.queue_depth, cfg.block_size, cfg.pattern)?
        } else {
            let file = target.file.clone().expect("real targets are open");
            let bs = cfg.block_size as usize;
            let align = target.info.mem_align as usize;
            match engine {
                EngineKind::IoUring => {
                    let u = UringBackend::new(file, cfg.queue_depth, bs, align, seed)
                        .map_err(|e| anyhow!(setup_error_hint(&e)))?;
                    ring_info = Some(RingInfo {
                        fixed_buffers: u.uses_fixed_buffers(),
                        fixed_file: u.uses_fixed_file(),
                    });
                    Box::new(u)
                }
                EngineKind::Sync => Box::new(
                    SyncBackend::new(file, cfg.queue_depth, bs, align, seed)
                        .context("starting the sync engine's threads")?,
                ),
            }
        };
        out.push(b);
    }
    Ok((out, ring_info))
}

/// What a run produced.
struct Outcome {
    samples: Vec<Sample>,
    stop: StopReason,
    failure: Option<WriteFailure>,
    writes: u64,
    engine: &'static str,
    started_at: chrono::DateTime<chrono::Utc>,
}

/// Signal handlers for the length of a run: the first Ctrl-C / SIGTERM sets the flag (the run
/// drains and writes its outputs), a second Ctrl-C ends the process at once.
struct Signals {
    flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    fn install() -> Result<Signals> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let flag = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM] {
            ids.push(signal_hook::flag::register_conditional_shutdown(
                sig,
                130,
                flag.clone(),
            )?);
            ids.push(signal_hook::flag::register(sig, flag.clone())?);
        }
        Ok(Signals { flag, ids })
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

fn run_jobs(
    target: &Target,
    cfg: &WorkloadConfig,
    plan: &Plan,
    backends: Vec<Box<dyn Backend>>,
    out_dir: &Path,
    quiet: bool,
    opts: &ReportOptions,
) -> Result<Outcome> {
    let engine = backends.first().map(|b| b.name()).unwrap_or("none");
    let signals = Signals::install().context("installing signal handlers")?;
    let csv_path = out_dir.join("timeline.csv");
    let mut csv = CsvWriter::create(&csv_path)
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    let progress = Progress::new(
        quiet,
        plan.write_limit.map(|w| w * cfg.block_size),
        opts.units,
    );

    let offsets = OffsetGen::new(cfg.pattern, cfg.block_size, plan.blocks, cfg.seed);
    let shared = Arc::new(JobShared::new(
        offsets,
        plan.write_limit.unwrap_or(u64::MAX),
        cfg.seed,
    ));
    let started_at = chrono::Utc::now();
    let start = Instant::now();
    let sampler = Arc::new(Sampler::new(
        MonotonicClock::new(start),
        cfg.interval,
        cfg.jobs as usize,
    ));
    let running = Arc::new(AtomicUsize::new(backends.len()));
    let mut handles = Vec::new();
    for (j, mut backend) in backends.into_iter().enumerate() {
        let (sh, sa, ru) = (shared.clone(), sampler.clone(), running.clone());
        let qd = cfg.queue_depth;
        let h = std::thread::Builder::new()
            .name(format!("slccache-job-{j}"))
            .spawn(move || {
                let n = run_job(j, backend.as_mut(), qd, &sh, &sa);
                drop(backend);
                ru.fetch_sub(1, Ordering::SeqCst);
                n
            });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.request_stop();
                running.fetch_sub(1, Ordering::SeqCst);
                for h in handles {
                    let _ = h.join();
                }
                return Err(anyhow!(e).context("cannot start a job thread"));
            }
        }
    }

    let mut samples: Vec<Sample> = Vec::new();
    let mut csv_error: Option<anyhow::Error> = None;
    let mut emit =
        |rows: Vec<Sample>, samples: &mut Vec<Sample>, err: &mut Option<anyhow::Error>| {
            for r in rows {
                if err.is_none() {
                    if let Err(e) = csv.append(&r) {
                        *err = Some(anyhow!(e).context(format!("writing {}", csv_path.display())));
                    }
                }
                progress.update(&r);
                samples.push(r);
            }
        };
    let stop_at = cfg.duration;
    let stop = 'run: loop {
        let wake = {
            let d = sampler.deadline(samples.len() as u64);
            stop_at.map_or(d, |s| d.min(s))
        };
        // Sleep until the deadline, looking at signals and the jobs now and then.
        let now = loop {
            if signals.flag.load(Ordering::SeqCst) {
                break 'run StopReason::Interrupted;
            }
            if shared.failure().is_some() {
                break 'run StopReason::WriteError;
            }
            if running.load(Ordering::SeqCst) == 0 {
                break 'run StopReason::MaxBytes;
            }
            let now = sampler.clock().now();
            if now >= wake {
                break now;
            }
            std::thread::sleep((wake - now).min(POLL));
        };
        if stop_at.is_some_and(|s| now >= s) {
            break StopReason::Duration;
        }
        let rows = sampler.collect(target.temperature_c());
        emit(rows, &mut samples, &mut csv_error);
        if csv_error.is_some() {
            break StopReason::WriteError;
        }
    };
    shared.request_stop();
    let mut writes = 0;
    for h in handles {
        writes += h.join().unwrap_or(0);
    }
    let end = sampler.clock().now();
    let temp = target.temperature_c();
    let last = if stop == StopReason::Duration {
        sampler.finish_merging_last(end, temp)
    } else {
        sampler.finish(end, temp)
    };
    emit(last, &mut samples, &mut csv_error);
    progress.finish();
    drop(signals);
    let failure = shared.failure();
    let stop = if failure.is_some() {
        StopReason::WriteError
    } else {
        stop
    };
    if let Some(e) = csv_error {
        return Err(e);
    }
    Ok(Outcome {
        samples,
        stop,
        failure,
        writes,
        engine,
        started_at,
    })
}

fn finish(
    target: &Target,
    cfg: &WorkloadConfig,
    plan: &Plan,
    out_dir: &Path,
    opts: &ReportOptions,
    o: Outcome,
    ring_info: Option<RingInfo>,
) -> Result<()> {
    let ident = &target.info.identity;
    let label = ident
        .model
        .clone()
        .unwrap_or_else(|| target.info.short_name());
    let meta = RunMeta {
        device: ident.clone(),
        workload: Workload {
            pattern: Pattern::name(cfg.pattern).into(),
            block_size: Some(cfg.block_size),
            queue_depth: Some(cfg.queue_depth),
            jobs: Some(cfg.jobs),
            interval_s: Some(cfg.interval.as_secs_f64()),
            engine: Some(o.engine.into()),
            span_bytes: Some(plan.span_bytes),
        },
        started_at: Some(o.started_at),
        stop_reason: Some(o.stop),
        label,
        slccache_version: crate::VERSION.into(),
    };
    let timeline = Timeline {
        samples: o.samples,
        meta: meta.clone(),
    };
    let analysis = crate::detect::analyze(&timeline);
    let bytes = timeline.bytes_total();
    let duration_s = timeline.duration_s();
    let mean = if duration_s > 0.0 {
        bytes as f64 / duration_s
    } else {
        0.0
    };
    let config = serde_json::json!({
        "target": target.info.spec,
        "engine": o.engine,
        "workload": cfg,
        "plan": plan,
        "io_uring": ring_info,
        "out": out_dir,
        // For emulated drives, the model's truth (cache bytes, phase boundaries), so a run
        // can be checked against it.
        "model_truth": target
            .info
            .emulated
            .as_ref()
            .map(|e| e.truth(cfg.pattern, cfg.block_size)),
    });
    let summary = Summary {
        slccache_version: crate::VERSION.into(),
        config,
        run: meta,
        totals: Totals {
            bytes,
            writes: o.writes,
            duration_s,
            mean_bytes_per_sec: mean,
        },
        interrupted: o.stop == StopReason::Interrupted,
        error: o.failure.as_ref().map(|f| f.to_string()),
        analysis: analysis.clone(),
    };
    crate::report::write_summary(out_dir, &summary)?;
    // A run that wrote nothing measured nothing: no charts and no report of it.
    let charts = if bytes > 0 {
        crate::report::write_charts_and_report(out_dir, &timeline, &analysis, opts)
    } else {
        Ok(vec![])
    };

    let mut line = format!(
        "{}: wrote {} in {} ({} mean), stopped: {}",
        target.info.spec,
        format_bytes(bytes as f64, opts.units),
        format_seconds(duration_s),
        format_rate(mean, opts.units),
        o.stop
    );
    if bytes == 0 {
        line.push_str("; nothing was written, so there is no analysis and no report");
    } else {
        match (&analysis.cache_estimate, analysis.cache_lower_bound_bytes) {
            (Some(c), _) => line.push_str(&format!(
                "; cache ~{} {}",
                format_bytes(c.bytes as f64, opts.units),
                crate::analyze::interval_text(c.low_bytes, c.high_bytes, opts.units)
            )),
            (None, Some(lb)) => line.push_str(&format!(
                "; no cliff seen: {}",
                crate::detect::no_cliff_text(Some(lb), bytes, opts.units)
            )),
            (None, None) => {}
        }
        // The analysis warnings, as analyze and simulate print them.
        for w in &analysis.warnings {
            line.push_str(&format!("\n  warning: {w}"));
        }
    }
    progress::print_done(out_dir, &line);
    charts.context("writing charts and report")?;

    if let Some(f) = o.failure {
        return Err(anyhow!(
            "{f}; outputs written so far are in {}",
            out_dir.display()
        ));
    }
    if o.stop == StopReason::Interrupted {
        return Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> WorkloadConfig {
        WorkloadConfig::resolve(&crate::cli::WorkloadArgs::default()).unwrap()
    }

    #[test]
    fn plan_stop_rules() {
        let mut c = cfg();
        c.block_size = 4096;
        // Default: one pass.
        let p = Plan::new(&c, 4096 * 100 + 10);
        assert_eq!(p.blocks, 100);
        assert_eq!(p.span_bytes, 409_600);
        assert_eq!(p.write_limit, Some(100));
        // Duration only: no write limit.
        c.duration = Some(Duration::from_secs(5));
        assert_eq!(Plan::new(&c, 409_600).write_limit, None);
        // max-bytes rounds up to whole blocks; the smaller rule wins.
        c.max_bytes = Some(5000);
        assert_eq!(Plan::new(&c, 409_600).write_limit, Some(2));
        c.max_bytes = None;
        c.passes = Some(2.5);
        assert_eq!(Plan::new(&c, 409_600).write_limit, Some(250));
    }
}
