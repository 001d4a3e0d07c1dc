//! One burst on an open target: the backends spawned per job, the sampling loop on absolute
//! deadlines, the live detector on its own thread, and the signal handlers that let a run
//! drain and keep its outputs. `probe` is one burst plus preparation and reports; `sweep`,
//! `recovery` and `fill-sweep` run several.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use crate::config::WorkloadConfig;
use crate::detect::stop::{Decision, Estimate, StopConfig, StopRule};
use crate::detect::UnconfirmedDrop;
use crate::device::{DriveReading, Target};
use crate::engine::job::{spawn_jobs, JobShared, WriteFailure};
use crate::engine::offsets::OffsetGen;
use crate::engine::Backend;
use crate::experiment::backends::make_backends;
use crate::experiment::signals::Signals;
use crate::report::console::progress::{Progress, ProgressMode};
use crate::report::ReportOptions;
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::timeline::bounded::Kept;
use crate::timeline::{CsvWriter, Sample, StopReason};
use crate::workload::EngineKind;

/// Shortest time between two reads of an NVMe drive's SMART log during a run.
const DRIVE_READ_GAP: Duration = Duration::from_millis(200);
/// Shortest time between two reads of an ATA drive's SMART data during a run. SMART READ
/// DATA is not a queued (NCQ) command: libata lets the drive's queue of writes drain before
/// it and holds new writes until it is done, so a read costs a short stall in the writes.
/// Every 2 s, that stall is rare enough not to show in the timeline.
pub const ATA_READ_GAP: Duration = Duration::from_secs(2);
/// An ATA drive whose SMART READ DATA takes longer than this during a run (a slow USB
/// bridge) is not read again until the run ends: each read holds the writes that long.
pub const ATA_SLOW: Duration = Duration::from_millis(50);

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
    /// Why the run stops when it has issued `write_limit` writes: `--max-bytes` only when it
    /// was given and is the smaller limit.
    #[serde(skip)]
    pub limit_reason: StopReason,
}

impl Plan {
    /// The stop rules: `--max-bytes` and `passes` become a write count (rounded up to whole
    /// blocks); with neither, one pass over the span (with `--duration` too: whichever ends
    /// first).
    pub fn new(cfg: &WorkloadConfig, span: u64) -> Plan {
        let bs = cfg.block_size;
        let blocks = span / bs;
        let by_bytes = cfg.max_bytes.map(|m| m.div_ceil(bs).max(1));
        let by_passes = cfg
            .passes
            .map(|p| ((blocks as f64) * p).ceil().max(1.0) as u64);
        let (limit, limit_reason) = match (by_bytes, by_passes) {
            (Some(a), Some(b)) if a <= b => (a, StopReason::MaxBytes),
            (_, Some(b)) => (b, StopReason::PassesWritten),
            (Some(a), None) => (a, StopReason::MaxBytes),
            (None, None) => (blocks, StopReason::SpanWritten),
        };
        Plan {
            span_bytes: blocks * bs,
            blocks,
            write_limit: Some(limit),
            limit_reason,
        }
    }
}

/// What a run (or one burst) produced.
pub struct Outcome {
    /// The samples, one per interval, kept in bounded memory (merged past
    /// [`crate::timeline::bounded::MAX_KEPT`]; `timeline.csv` has every one):
    /// [`Kept::into_timeline`] gives the timeline.
    pub samples: Kept,
    /// Why it stopped.
    pub stop: StopReason,
    /// The write error that stopped it, if any.
    pub failure: Option<WriteFailure>,
    /// Why `timeline.csv` could not be written (the output disk full), which stopped the
    /// run: the samples are still here, for the caller to keep elsewhere.
    pub csv_error: Option<String>,
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
/// real targets (the simulator's is [`crate::experiment::virtual_time::VirtualDrive`]); `probe` is one burst
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
    let o = run_jobs(
        target, cfg, stop, &plan, backends, out_dir, quiet, opts, &signals,
    )?;
    match &o.csv_error {
        Some(e) => Err(anyhow!("{e}")),
        None => Ok(o),
    }
}

/// The early-stop rule on its own thread, off the I/O path: the sampling loop sends it each
/// sample and reads back the current estimate and whether to stop. When the thread falls
/// behind, it analyses the samples that piled up at once.
pub struct LiveDetector {
    tx: Option<mpsc::Sender<Sample>>,
    state: Arc<Mutex<LiveState>>,
    /// Set once the rule says stop: the sampling loop polls it without taking the lock.
    stopped: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<StopRule>>,
}

/// What the detector thread last said.
#[derive(Debug, Clone, Default)]
struct LiveState {
    estimate: Option<Estimate>,
    /// With `--cliffs N` above 1: the N-th cliff, once seen (the one the run stops on).
    target: Option<Estimate>,
    /// A drop inside the first sample (no cliff yet), with when the rule stops for it.
    first_drop: Option<(UnconfirmedDrop, Option<f64>)>,
    stop: Option<StopReason>,
}

impl LiveDetector {
    /// Starts the thread.
    pub fn start(cfg: StopConfig) -> Result<LiveDetector> {
        let (tx, rx) = mpsc::channel::<Sample>();
        let state = Arc::new(Mutex::new(LiveState::default()));
        let stopped = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stopped.clone());
        let handle = std::thread::Builder::new()
            .name("slccache-detect".into())
            .spawn(move || {
                let mut rule = StopRule::new(cfg);
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    batch.extend(rx.try_iter());
                    let d = rule.extend(batch);
                    let mut g = st.lock().unwrap_or_else(|e| e.into_inner());
                    g.estimate = rule.estimate().cloned();
                    g.target = rule.target().cloned();
                    g.first_drop = rule.first_sample_drop().map(|(d, at)| (d.clone(), at));
                    if d == Decision::Stop {
                        g.stop = rule.stop_reason().or(Some(StopReason::CliffConfirmed));
                        sp.store(true, Ordering::SeqCst);
                    }
                }
                rule
            })
            .context("cannot start the detector thread")?;
        Ok(LiveDetector {
            tx: Some(tx),
            state,
            stopped,
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
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .estimate
            .clone()
    }

    /// The cliff the run stops on, once seen: the first, or with `--cliffs N` the N-th.
    pub fn target(&self) -> Option<Estimate> {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .target
            .clone()
    }

    /// A drop inside the first sample that the detector sees while there is no cliff, with
    /// the run time at which the rule stops for it (`None`: it does not stop for it).
    pub fn first_sample_drop(&self) -> Option<(UnconfirmedDrop, Option<f64>)> {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .first_drop
            .clone()
    }

    /// Why the rule says stop, once it does.
    pub fn should_stop(&self) -> Option<StopReason> {
        if !self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stop
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

/// Runs the jobs until the plan, the early stop, a signal or a write error ends them, writing
/// `out_dir/timeline.csv` row by row and showing progress unless `quiet`.
#[allow(clippy::too_many_arguments)]
pub fn run_jobs(
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
    )
    .with_cliffs(stop_cfg.cliffs);

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

    let mut samples = Kept::for_run();
    let mut reading = drive_start.clone();
    let mut last_read = Instant::now();
    let mut too_slow = false;
    let mut csv_error: Option<anyhow::Error> = None;
    let mut warned_first_drop = false;
    let mut emit = |rows: Vec<Sample>, samples: &mut Kept, err: &mut Option<anyhow::Error>| {
        for r in rows {
            if err.is_none() {
                if let Err(e) = csv.append(&r) {
                    *err = Some(anyhow!(e).context(format!("writing {}", csv_path.display())));
                }
            }
            detector.send(&r);
            progress.set_target(detector.target().as_ref());
            progress.update(&r, detector.estimate().as_ref());
            // A cache that ran out inside the first sample: said once, as soon as it is seen
            // (the line then says when the run stops for it).
            if let Some((d, stop_at)) = detector.first_sample_drop() {
                if !warned_first_drop {
                    warned_first_drop = true;
                    progress.note(&format!(
                        "slccache: warning: {}",
                        crate::detect::first_sample_drop_text(&d, stop_at, opts.units)
                    ));
                }
                progress.set_first_drop_stop(stop_at);
            }
            samples.push(&r);
        }
    };
    let stop_at = cfg.duration;
    let stop = 'run: loop {
        let wake = {
            let d = sampler.deadline(samples.pushed());
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
                break 'run plan.limit_reason;
            }
            if let Some(why) = detector.should_stop() {
                break 'run why;
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
        // at 100 per second (10 ms intervals) could disturb what is measured. An ATA
        // drive's SMART data at most every ATA_READ_GAP (why: there).
        let gap = if target.info.ata.is_some() {
            Some(ATA_READ_GAP)
        } else if target.info.nvme.is_some() {
            Some(DRIVE_READ_GAP)
        } else {
            None
        };
        if !too_slow && gap.is_none_or(|g| last_read.elapsed() >= g) {
            let asked = Instant::now();
            reading = target.info.read_drive_during_run();
            last_read = Instant::now();
            // A drive (or a USB bridge) that takes long to answer SMART holds the writes that
            // long each time: then it is read at the start and the end only.
            if target.info.ata.is_some() && last_read - asked > ATA_SLOW {
                too_slow = true;
                if !quiet {
                    crate::note!(
                        "slccache: note: the drive took {:.0} ms to answer SMART READ DATA; \
                         its SMART is read at the start and the end only, not during the run",
                        (last_read - asked).as_secs_f64() * 1e3
                    );
                }
            }
        }
        let mut rows = sampler.collect(reading.temp_c);
        add_drive_reading(&mut rows, &reading, &drive_start);
        emit(rows, &mut samples, &mut csv_error);
        if csv_error.is_some() {
            // The output folder failed (a full disk), not the drive.
            break StopReason::OutputError;
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
    Ok(Outcome {
        samples,
        stop,
        failure,
        csv_error: csv_error.map(|e| format!("{e:#}")),
        writes,
        engine,
        started_at,
        rule,
        drive_start,
        drive_end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::WorkloadArgs;
    use crate::timeline::{RunMeta, Timeline};

    fn cfg() -> WorkloadConfig {
        WorkloadConfig::resolve(&WorkloadArgs::default()).unwrap()
    }

    /// The live detector's work per closed interval does not grow with the run:
    /// after 20 000 intervals of 10 ms, no analysis read more than the rule's bounded view
    /// (it used to read the whole timeline so far, every time).
    #[test]
    fn live_detector_work_per_interval_is_bounded() {
        let t = crate::detect::synth::simulate(&crate::detect::synth::two_phase(20_000, 0.01), 3).0;
        let d = LiveDetector::start(StopConfig {
            early_stop: false,
            ..StopConfig::default()
        })
        .unwrap();
        for s in &t.samples {
            d.send(s);
        }
        let rule = d.finish();
        assert_eq!(rule.pushed(), 20_000);
        // And the detector thread holds its bounded view only, not a copy of the run.
        assert!(
            rule.held() <= 8193,
            "the detector holds {} samples",
            rule.held()
        );
        let (_, most) = rule.analysed_samples();
        assert!(most > 0 && most <= 8193, "an analysis read {most} samples");
    }

    #[test]
    fn thermal_transitions_count_from_the_start_reading() {
        use crate::device::nvme::HealthLog;
        let reading = |t1: u32, t2: u32| DriveReading {
            temp_c: None,
            ata: None,
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
        // Default: one pass, and the run says so when it ends there.
        let p = Plan::new(&c, 4096 * 100 + 10);
        assert_eq!(p.blocks, 100);
        assert_eq!(p.span_bytes, 409_600);
        assert_eq!(p.write_limit, Some(100));
        assert_eq!(p.limit_reason, StopReason::SpanWritten);
        // Duration only: still one pass at most (one run wrote 41 passes before this rule).
        c.duration = Some(Duration::from_secs(5));
        let p = Plan::new(&c, 409_600);
        assert_eq!(p.write_limit, Some(100));
        assert_eq!(p.limit_reason, StopReason::SpanWritten);
        // max-bytes rounds up to whole blocks; the smaller rule wins, and names the stop.
        c.max_bytes = Some(5000);
        let p = Plan::new(&c, 409_600);
        assert_eq!(p.write_limit, Some(2));
        assert_eq!(p.limit_reason, StopReason::MaxBytes);
        c.passes = Some(0.01);
        assert_eq!(
            Plan::new(&c, 409_600).limit_reason,
            StopReason::PassesWritten
        );
        c.max_bytes = None;
        c.passes = Some(2.5);
        let p = Plan::new(&c, 409_600);
        assert_eq!(p.write_limit, Some(250));
        assert_eq!(p.limit_reason, StopReason::PassesWritten);
    }
}
