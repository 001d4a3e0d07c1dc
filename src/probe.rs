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
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use crate::cli::ProbeArgs;
use crate::config::WorkloadConfig;
use crate::detect::stop::{Decision, Estimate, StopConfig, StopRule};
use crate::engine::job::{spawn_jobs, JobShared, WriteFailure};
use crate::engine::offsets::OffsetGen;
use crate::engine::sync::SyncBackend;
use crate::engine::uring::{setup_error_hint, UringBackend};
use crate::engine::Backend;
use crate::error::{usage, Interrupted};
use crate::prepare::{self, DriveStateRecord, Preparation};
use crate::report::progress::{self, Progress, ProgressMode};
use crate::report::{DriveState, ReportOptions, StopRecord, Summary, Totals};
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::target::host::HostInfo;
use crate::target::{self, DriveReading, OpenRequest, Target, TargetKind};
use crate::timeline::{CsvWriter, RunMeta, Sample, StopReason, Timeline, Workload};
use crate::units::{format_bytes, format_rate, format_seconds, parse_duration, parse_size};
use crate::workload::{EngineKind, Pattern};

/// Most memory the data buffers of all jobs may take together.
const MAX_BUFFER_BYTES: u64 = 2 << 30;

/// Most threads the sync engine may start (one per in-flight write).
const MAX_SYNC_THREADS: u64 = 4096;

/// Shortest time between two reads of an NVMe drive's SMART log during a run.
const DRIVE_READ_GAP: Duration = Duration::from_millis(200);

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
    let stop_cfg = crate::config::stop_config(&args.stop)?;
    let opts = ReportOptions {
        units: args.output.units,
        png_size: crate::report::parse_png_size(&args.output.png_size)?,
        theme: args.output.theme.into(),
        align_cliff: false,
    };
    let engine = args.engine.unwrap_or(EngineKind::IoUring);
    let size = args
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--size")?;
    let prep = Preparation {
        trim: args.trim,
        prefill_pct: args
            .prefill
            .as_deref()
            .map(prepare::parse_pct)
            .transpose()?,
        idle_before: args
            .idle_before
            .as_deref()
            .map(parse_duration)
            .transpose()
            .context("--idle-before")?,
    };
    let req = OpenRequest {
        size,
        // A run that only reads destroys nothing in a file.
        overwrite: args.overwrite || cfg.read_pct == 100,
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
    // Reads need written data: refuse holes in files, warn on block devices.
    let read_note = if cfg.read_pct > 0 {
        let span = info.check_fit(cfg.block_size, cfg.span)?;
        target::reads::check_readable(&info, span, args.assume_written, false)?
    } else {
        None
    };
    if let Some(n) = &read_note {
        eprintln!("slccache: {n}");
    }
    let out_dir = args
        .output
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(&info.short_name()));

    // 3. Lock it (a second probe of the same file or device is refused), then open it
    // (agreement on block devices, O_DIRECT, O_EXCL). A file this run creates is locked as
    // soon as it exists.
    let mut lock = target::lock(&info)?;
    let target = target::open_for_write(info, &req, &mut |p| {
        progress::confirm_device(&p.path, &p.name, p.model.as_deref(), p.capacity_bytes)
    })?;
    if lock.is_none() {
        lock = match target::lock(&target.info) {
            Ok(l) => l,
            Err(e) => {
                target.remove_created();
                return Err(e);
            }
        };
    }
    let span = match target.info.check_fit(cfg.block_size, cfg.span) {
        Ok(s) => s,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    let plan = Plan::new(&cfg, span);
    let signals = Signals::install().context("installing signal handlers")?;

    // 4. Start from a known state (trim, prefill, idle), outside the measured timeline.
    let drive_state = match prepare_target(&target, &cfg, engine, span, &prep, &signals, &args) {
        Ok(d) => d,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    let truth_at_start = target
        .info
        .emulated
        .as_ref()
        .map(|e| e.truth_now(cfg.pattern, cfg.block_size));

    // 5. One backend per job.
    let (backends, ring_info) = match make_backends(&target, &cfg, engine) {
        Ok(b) => b,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create the output folder {}", out_dir.display()))?;

    // 6. Run. The signal handlers (installed before the preparation) stay until the outputs
    // are written: a Ctrl-C, SIGTERM or SIGHUP while the charts are drawn still leaves every
    // output complete (exit 130).
    let outcome = run_jobs(
        &target, &cfg, stop_cfg, &plan, backends, &out_dir, args.quiet, &opts, &signals,
    )?;

    // 7. Summary, analysis, charts.
    let start = StartState {
        drive_state,
        truth: truth_at_start,
    };
    let result = finish(
        &target, &cfg, stop_cfg, &plan, &out_dir, &opts, outcome, ring_info, args.quiet, start,
        read_note,
    );
    drop(lock);
    let late_signal = signals.flag.load(Ordering::SeqCst);
    drop(signals);
    match result {
        Ok(()) if late_signal => Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        ))),
        r => r,
    }
}

/// The drive's state at the start of the measured run.
struct StartState {
    drive_state: DriveStateRecord,
    /// The model's truth from that state (emulated drives).
    truth: Option<crate::model::Truth>,
}

/// Trims, prefills and idles as asked; returns what was done and the state reached.
fn prepare_target(
    target: &Target,
    cfg: &WorkloadConfig,
    engine: EngineKind,
    span: u64,
    prep: &Preparation,
    signals: &Signals,
    args: &ProbeArgs,
) -> Result<DriveStateRecord> {
    let mut rec = DriveStateRecord::default();
    let units = args.output.units;
    let say = |msg: String| {
        if !args.quiet {
            eprintln!("slccache: {msg}");
        }
    };
    if prep.trim {
        let (ok, what) = prepare::trim(target, span)?;
        if ok {
            say(format!("--trim: {what}"));
        } else {
            say(format!("--trim: {what}; going on without it"));
        }
        rec.trimmed = ok;
        rec.trim = Some(what);
    }
    let capacity = target.info.capacity;
    if let Some(pct) = prep.prefill_pct {
        let bytes =
            ((pct / 100.0) * capacity as f64) as u64 / prepare::PREFILL_BS * prepare::PREFILL_BS;
        let pw = prepare::prefill_workload(cfg);
        let (mut backends, _) = make_backends(target, &pw, engine)?;
        say(format!(
            "--prefill: writing the first {pct}% of the target ({}) at 128k QD32",
            format_bytes(bytes as f64, units)
        ));
        let written = prepare::prefill(
            backends.remove(0),
            bytes,
            cfg.seed,
            ProgressMode::for_stderr(args.quiet),
            units,
            &signals.flag,
        )?;
        rec.prefill_pct = Some(pct);
        rec.prefill_bytes = Some(written);
    }
    if let Some(d) = prep.idle_before {
        say(format!(
            "--idle-before: idling for {} so that the drive can fold its cache",
            format_seconds(d.as_secs_f64())
        ));
        prepare::idle(d, &signals.flag)?;
        rec.idle_before_s = Some(d.as_secs_f64());
    }
    if let Some(emu) = &target.info.emulated {
        let st = emu.state_now();
        rec.fill_at_start_pct = Some(100.0 * st.data / capacity as f64);
        rec.emulated_cache_at_start_bytes =
            Some(emu.truth_now(cfg.pattern, cfg.block_size).cache_bytes);
    } else if rec.trimmed && span == capacity {
        let filled = rec.prefill_bytes.unwrap_or(0);
        rec.fill_at_start_pct = Some(100.0 * filled as f64 / capacity as f64);
    }
    Ok(rec)
}

fn default_out_dir(name: &str) -> PathBuf {
    let ts = chrono::Local::now().format("%Y%m%d-%H%M%S");
    PathBuf::from("output").join(format!("{name}-{ts}"))
}

/// How the io_uring rings were set up (for the summary).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct RingInfo {
    fixed_buffers: bool,
    fixed_file: bool,
}

/// One backend per job.
pub(crate) type Backends = Vec<Box<dyn Backend>>;

pub(crate) fn make_backends(
    target: &Target,
    cfg: &WorkloadConfig,
    engine: EngineKind,
) -> Result<(Backends, Option<RingInfo>)> {
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    let mut ring_info = None;
    for j in 0..cfg.jobs {
        let seed = cfg.seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(j as u64 + 1));
        let b: Box<dyn Backend> = if let Some(emu) = &target.info.emulated {
            emu.backend_mixed(cfg.queue_depth, cfg.block_size, cfg.pattern, cfg.read_pct)?
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

/// What a run (or one burst) produced.
pub struct Outcome {
    /// The samples, one per interval.
    pub samples: Vec<Sample>,
    /// Why it stopped.
    pub stop: StopReason,
    /// The write error that stopped it, if any.
    pub failure: Option<WriteFailure>,
    /// Writes completed.
    pub writes: u64,
    /// The engine's name.
    pub engine: &'static str,
    /// When it started.
    pub started_at: chrono::DateTime<chrono::Utc>,
    /// The early-stop rule as it ended (its estimate, withdrawn cliffs).
    pub rule: StopRule,
    /// What the drive reported just before the first write.
    pub drive_start: DriveReading,
    /// What the drive reported just after the last write.
    pub drive_end: DriveReading,
}

/// One burst on an open target: writes with `cfg` over the first `span` bytes until the
/// cliff is certain (per `stop`), the workload's limit, Ctrl-C / SIGTERM, or a write error,
/// appending each interval to `out_dir/timeline.csv` (created anew) and showing progress
/// unless `quiet`. The building block for experiments that write in bursts on emulated and
/// real targets (the simulator's is [`crate::simulate::VirtualDrive`]); `probe` is one burst
/// plus preparation and reports.
#[allow(clippy::too_many_arguments)]
pub fn burst(
    target: &Target,
    cfg: &WorkloadConfig,
    span: u64,
    stop: StopConfig,
    engine: EngineKind,
    out_dir: &Path,
    quiet: bool,
    opts: &ReportOptions,
) -> Result<Outcome> {
    let plan = Plan::new(cfg, span);
    let (backends, _) = make_backends(target, cfg, engine)?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create the output folder {}", out_dir.display()))?;
    let signals = Signals::install().context("installing signal handlers")?;
    run_jobs(
        target, cfg, stop, &plan, backends, out_dir, quiet, opts, &signals,
    )
}

/// The early-stop rule on its own thread, off the I/O path: the sampling loop sends it each
/// sample and reads back the current estimate and whether to stop. When the thread falls
/// behind, it analyses the samples that piled up at once.
pub struct LiveDetector {
    tx: Option<mpsc::Sender<Sample>>,
    state: Arc<Mutex<Option<Estimate>>>,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<StopRule>>,
}

impl LiveDetector {
    /// Starts the thread.
    pub fn start(cfg: StopConfig) -> Result<LiveDetector> {
        let (tx, rx) = mpsc::channel::<Sample>();
        let state = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        let handle = std::thread::Builder::new()
            .name("slccache-detect".into())
            .spawn(move || {
                let mut rule = StopRule::new(cfg);
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    batch.extend(rx.try_iter());
                    let d = rule.extend(batch);
                    *st.lock().unwrap_or_else(|e| e.into_inner()) = rule.estimate().cloned();
                    if d == Decision::Stop {
                        sp.store(true, Ordering::SeqCst);
                    }
                }
                rule
            })
            .context("cannot start the detector thread")?;
        Ok(LiveDetector {
            tx: Some(tx),
            state,
            stop,
            handle: Some(handle),
        })
    }

    /// Hands a sample to the detector (never blocks).
    pub fn send(&self, s: &Sample) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(s.clone());
        }
    }

    /// The detector's current estimate.
    pub fn estimate(&self) -> Option<Estimate> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether the rule says stop.
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Waits for the detector to see every sample sent, and returns the rule as it ended.
    pub fn finish(mut self) -> StopRule {
        self.tx = None;
        let cfg_rule = || StopRule::new(StopConfig::default());
        self.handle
            .take()
            .map(|h| h.join().unwrap_or_else(|_| cfg_rule()))
            .unwrap_or_else(cfg_rule)
    }
}

/// Puts the drive's reading on the rows of one collection: its temperature is already there;
/// the thermal-management transitions are counted from the start of the run.
/// Without a start reading there is no baseline, and the column stays empty.
fn add_drive_reading(rows: &mut [Sample], reading: &DriveReading, start: &DriveReading) {
    let count = |r: &DriveReading| r.health.as_ref().map(|h| h.thermal_transitions());
    let since_start = match (count(reading), count(start)) {
        (Some(now), Some(base)) => Some(now.saturating_sub(base)),
        _ => None,
    };
    for r in rows {
        r.thermal_transitions = since_start;
    }
}

/// Signal handlers for the length of a run and its reports: the first Ctrl-C, SIGTERM or SIGHUP
/// (a closed terminal or a dropped SSH session) sets the flag (the run drains and writes its
/// outputs, exit 130); a second one ends the process at once.
pub(crate) struct Signals {
    pub(crate) flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    pub(crate) fn install() -> Result<Signals> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let flag = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let f = flag.clone();
            // SAFETY: the handler only loads an atomic, clears the progress line with
            // write(2) and ends the process with _exit(2): all async-signal-safe.
            ids.push(unsafe {
                signal_hook::low_level::register(sig, move || {
                    if f.load(Ordering::SeqCst) {
                        progress::clear_line_from_signal();
                        signal_hook::low_level::exit(130);
                    }
                })
            }?);
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

#[allow(clippy::too_many_arguments)]
fn run_jobs(
    target: &Target,
    cfg: &WorkloadConfig,
    stop_cfg: StopConfig,
    plan: &Plan,
    backends: Vec<Box<dyn Backend>>,
    out_dir: &Path,
    quiet: bool,
    opts: &ReportOptions,
    signals: &Signals,
) -> Result<Outcome> {
    let engine = backends.first().map(|b| b.name()).unwrap_or("none");
    let csv_path = out_dir.join("timeline.csv");
    let mut csv = CsvWriter::create_with_reads(&csv_path, cfg.read_pct > 0)
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    let progress = Progress::new(
        ProgressMode::for_stderr(quiet),
        "probe",
        plan.write_limit.map(|w| w * cfg.block_size),
        cfg.duration,
        stop_cfg.early_stop,
        opts.units,
    );

    let detector = LiveDetector::start(stop_cfg)?;

    let offsets = OffsetGen::new(cfg.pattern, cfg.block_size, plan.blocks, cfg.seed);
    let shared = Arc::new(
        JobShared::new(offsets, plan.write_limit.unwrap_or(u64::MAX), cfg.seed)
            .with_read_pct(cfg.read_pct),
    );
    // The drive's own report before the first write (SMART, temperature).
    let drive_start = target.info.read_drive();
    let started_at = chrono::Utc::now();
    let start = Instant::now();
    let sampler = Arc::new(
        Sampler::new(MonotonicClock::new(start), cfg.interval, cfg.jobs as usize)
            .with_reads(cfg.read_pct > 0),
    );
    let running = Arc::new(AtomicUsize::new(backends.len()));
    let handles = spawn_jobs(
        "slccache-job",
        backends,
        cfg.queue_depth,
        &shared,
        &sampler,
        &running,
    )
    .map_err(|e| anyhow!(e).context("cannot start a job thread"))?;

    let mut samples: Vec<Sample> = Vec::new();
    let mut reading = drive_start.clone();
    let mut last_read = Instant::now();
    let mut csv_error: Option<anyhow::Error> = None;
    let mut emit =
        |rows: Vec<Sample>, samples: &mut Vec<Sample>, err: &mut Option<anyhow::Error>| {
            for r in rows {
                if err.is_none() {
                    if let Err(e) = csv.append(&r) {
                        *err = Some(anyhow!(e).context(format!("writing {}", csv_path.display())));
                    }
                }
                detector.send(&r);
                progress.update(&r, detector.estimate().as_ref());
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
            if detector.should_stop() {
                break 'run StopReason::CliffConfirmed;
            }
            progress.tick();
            let now = sampler.clock().now();
            if now >= wake {
                break now;
            }
            std::thread::sleep((wake - now).min(POLL));
        };
        if stop_at.is_some_and(|s| now >= s) {
            break StopReason::Duration;
        }
        // An NVMe drive's SMART log is read at most every DRIVE_READ_GAP: admin commands
        // at 100 per second (10 ms intervals) could disturb what is measured.
        if target.info.nvme.is_none() || last_read.elapsed() >= DRIVE_READ_GAP {
            reading = target.info.read_drive();
            last_read = Instant::now();
        }
        let mut rows = sampler.collect(reading.temp_c);
        add_drive_reading(&mut rows, &reading, &drive_start);
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
    let drive_end = target.info.read_drive();
    let temp = drive_end.temp_c;
    let mut last = if stop == StopReason::Duration {
        sampler.finish_merging_last(end, temp)
    } else {
        sampler.finish(end, temp)
    };
    add_drive_reading(&mut last, &drive_end, &drive_start);
    emit(last, &mut samples, &mut csv_error);
    progress.finish();
    let rule = detector.finish();
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
        rule,
        drive_start,
        drive_end,
    })
}

#[allow(clippy::too_many_arguments)]
fn finish(
    target: &Target,
    cfg: &WorkloadConfig,
    stop_cfg: StopConfig,
    plan: &Plan,
    out_dir: &Path,
    opts: &ReportOptions,
    o: Outcome,
    ring_info: Option<RingInfo>,
    quiet: bool,
    start: StartState,
    read_note: Option<String>,
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
    let mut analysis = crate::detect::analyze(&timeline);
    if let Some(n) = &read_note {
        analysis.warnings.push(n.clone());
    }
    let bytes = timeline.bytes_total();
    // What the drive itself counted, against what the probe wrote.
    if let (Some(a), Some(b)) = (&o.drive_start.health, &o.drive_end.health) {
        // The log is the controller's: on one with several namespaces, say so.
        let namespaces = target
            .info
            .dev
            .map(crate::target::nvme::controller_namespaces)
            .unwrap_or_default();
        analysis.warnings.extend(
            crate::detect::drive::data_units_warning(a, b, bytes)
                .map(|w| crate::target::nvme::shared_counter_note(w, &namespaces)),
        );
    }
    let host = HostInfo::collect(&target.info);
    let drive_state = DriveState {
        temperature_start_c: o.drive_start.temp_c,
        temperature_end_c: o.drive_end.temp_c,
        smart_start: o.drive_start.health.clone(),
        smart_end: o.drive_end.health.clone(),
        preparation: start.drive_state,
    };
    let extra_rows =
        crate::report::markdown::drive_rows(Some(&host), Some(&drive_state), bytes, opts.units);
    let duration_s = timeline.duration_s();
    let config = serde_json::json!({
        "target": target.info.spec,
        "engine": o.engine,
        "workload": cfg,
        "plan": plan,
        "io_uring": ring_info,
        "out": out_dir,
        // For emulated drives, the model's truth (cache bytes, phase boundaries), so a run
        // can be checked against it.
        // (From the drive's state at the start of the measured run: after --trim, --prefill
        // and --idle-before where given.)
        "model_truth": start.truth,
    });
    let summary = Summary {
        slccache_version: crate::VERSION.into(),
        config,
        run: meta,
        totals: Totals::of(&timeline, o.writes),
        interrupted: o.stop == StopReason::Interrupted,
        error: o.failure.as_ref().map(|f| f.to_string()),
        analysis: analysis.clone(),
        stop: Some(StopRecord::new(
            stop_cfg,
            o.stop,
            Some(&o.rule),
            &analysis,
            bytes,
        )),
        host: Some(host),
        drive_state: Some(drive_state),
    };
    crate::report::write_summary(out_dir, &summary)?;
    // A run that wrote and read nothing measured nothing: no charts and no report of it. A run
    // that only read is reported on its reads.
    let read_bytes = timeline.read_bytes_total();
    let charts = if bytes > 0 || read_bytes > 0 {
        crate::report::write_charts_and_report_with(
            out_dir,
            &timeline,
            &analysis,
            opts,
            &extra_rows,
        )
    } else {
        Ok(vec![])
    };

    let (verb, done) = if analysis.read_only {
        ("read", read_bytes)
    } else {
        ("wrote", bytes)
    };
    let mut line = format!(
        "{}: {verb} {} in {} ({} mean), stopped: {}",
        target.info.spec,
        format_bytes(done as f64, opts.units),
        format_seconds(duration_s),
        format_rate(
            if duration_s > 0.0 {
                done as f64 / duration_s
            } else {
                0.0
            },
            opts.units
        ),
        o.stop
    );
    if bytes == 0 && read_bytes == 0 {
        line.push_str("; nothing was written, so there is no analysis and no report");
    } else {
        if analysis.read_only {
            line.push_str(&format!(
                "; {}",
                crate::analyze::read_only_summary(&analysis, opts.units)
                    .split_once("; ")
                    .map_or("", |(_, rest)| rest)
            ));
        }
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
        // The analysis warnings, as analyze and simulate print them (with --quiet, only the
        // final line: the warnings are in summary.json and report.md).
        if !quiet {
            for w in &analysis.warnings {
                line.push_str(&format!("\n  warning: {w}"));
            }
        }
    }
    progress::print_done(out_dir, &line, quiet);
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
    fn thermal_transitions_count_from_the_start_reading() {
        use crate::target::nvme::HealthLog;
        let reading = |t1: u32, t2: u32| DriveReading {
            temp_c: None,
            health: Some(HealthLog {
                thermal_mgmt_t1_transitions: t1,
                thermal_mgmt_t2_transitions: t2,
                ..HealthLog::default()
            }),
        };
        let t = Timeline::from_rates(&[(1.0, 1.0, 1.0), (2.0, 1.0, 1.0)], RunMeta::default());
        let mut rows = t.samples.clone();
        add_drive_reading(&mut rows, &reading(7, 2), &reading(5, 1));
        assert!(rows.iter().all(|r| r.thermal_transitions == Some(3)));
        // A drive whose log could not be read at the start has no baseline: no counts, rather
        // than its lifetime counts.
        add_drive_reading(&mut rows, &reading(7, 2), &DriveReading::default());
        assert!(rows.iter().all(|r| r.thermal_transitions.is_none()));
        add_drive_reading(&mut rows, &DriveReading::default(), &reading(5, 1));
        assert!(rows.iter().all(|r| r.thermal_transitions.is_none()));
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
