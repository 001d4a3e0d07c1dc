//! Real-time drives for the burst experiments: block devices, files and `emu:` drives, written
//! by the probe's engine (one backend per job, the job loop, the sampler).
//!
//! A burst writes from an offset (sequentially unless the workload says randwrite): each
//! job's backend is wrapped so that the engine's offsets (from 0) land after that offset. The sampler thread feeds every closed
//! interval to the burst's stop rule and stops the jobs when it says so. Idling is sleeping
//! (an emulated drive counts the time its server had nothing to do as idle, so it folds
//! then as the model says).

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::{BurstEnd, BurstRule, TestDrive};
use crate::config::WorkloadConfig;
use crate::device::{self, OpenRequest, Target};
use crate::engine::job::{spawn_jobs, JobShared};
use crate::engine::offsets::OffsetGen;
use crate::engine::{Backend, Completion, WriteOp};
use crate::experiment::backends::make_backends;
use crate::model::DriveModel;
use crate::report::console::progress;
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::timeline::bounded::Kept;
use crate::timeline::{RunMeta, Sample, Workload};
use crate::workload::{EngineKind, Pattern};

/// How often the sampling loop looks at the stop flags between deadlines.
const POLL: Duration = Duration::from_millis(20);

/// A backend whose writes land `base` bytes further on the target.
struct Shifted {
    inner: Box<dyn Backend>,
    base: u64,
}

impl Backend for Shifted {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        self.inner.buffer_mut(idx)
    }
    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        self.inner.push(WriteOp {
            offset: op.offset + self.base,
            ..op
        })
    }
    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        self.inner.submit_and_wait(min_complete, timeout, out)
    }
}

/// A block device, a regular file or an `emu:` drive, in real time.
pub struct RealDrive {
    target: Target,
    w: WorkloadConfig,
    engine: EngineKind,
    span: u64,
    extent: u64,
    engine_name: &'static str,
}

impl RealDrive {
    /// Inspects and opens the target as the probe does (refusals and agreement first, nothing
    /// written); `req` says what the user agreed to.
    pub fn open(
        target_path: &str,
        req: &OpenRequest,
        engine: EngineKind,
        w: &WorkloadConfig,
    ) -> Result<RealDrive> {
        let req = req.clone();
        let info = device::inspect(target_path, &req)?;
        info.check_fit(w.block_size, w.span)?;
        crate::experiment::backends::check_engine(
            &info,
            engine,
            &format!("--engine {engine}"),
            w.block_size,
        )?;
        let target = device::open_for_write(info, &req, &mut |p| {
            progress::confirm_device(&p.path, &p.name, p.model.as_deref(), p.capacity_bytes)
        })?;
        let span = match target.info.check_fit(w.block_size, w.span) {
            Ok(s) => s / w.block_size * w.block_size,
            Err(e) => {
                target.remove_created();
                return Err(e);
            }
        };
        Ok(RealDrive {
            target,
            w: w.clone(),
            engine,
            span,
            extent: 0,
            engine_name: "",
        })
    }

    /// A short name for output folders.
    pub fn short_name(&self) -> String {
        self.target.info.short_name()
    }

    fn backends(&self, base: u64) -> Result<Vec<Box<dyn Backend>>> {
        let (backends, _) = make_backends(&self.target, &self.w, self.engine)?;
        let mut out: Vec<Box<dyn Backend>> = Vec::new();
        for b in backends {
            out.push(Box::new(Shifted { inner: b, base }));
        }
        Ok(out)
    }

    /// Writes `blocks` blocks sequentially from `start`; feeds closed intervals to `on_rows`,
    /// which returns why to stop. Returns the samples (bounded: [`Kept::for_run`]), why it
    /// ended, and the rows closed after the stop (the writes drained), which `on_rows` did
    /// not see.
    fn write_run(
        &mut self,
        pattern: Pattern,
        start: u64,
        blocks: u64,
        stop: &AtomicBool,
        mut on_rows: impl FnMut(&[Sample]) -> Option<BurstEnd>,
    ) -> Result<(Kept, BurstEnd, Vec<Sample>)> {
        let cfg = self.w.clone();
        let backends = self.backends(start)?;
        self.engine_name = backends.first().map(|b| b.name()).unwrap_or("none");
        let offsets = OffsetGen::new(pattern, cfg.block_size, blocks.max(1), cfg.seed);
        let shared = Arc::new(JobShared::new(offsets, blocks, cfg.seed));
        let sampler = Arc::new(Sampler::new(
            MonotonicClock::new(Instant::now()),
            cfg.interval,
            cfg.jobs as usize,
        ));
        let running = Arc::new(AtomicUsize::new(backends.len()));
        let handles = spawn_jobs(
            "slccache-burst",
            backends,
            cfg.queue_depth,
            &shared,
            &sampler,
            &running,
        )
        .map_err(|e| anyhow!(e).context("cannot start a job thread"))?;
        let mut samples = Kept::for_run();
        let end = 'run: loop {
            let wake = sampler.deadline(samples.pushed());
            loop {
                if stop.load(Ordering::SeqCst) {
                    break 'run BurstEnd::Interrupted;
                }
                if shared.failure().is_some() || running.load(Ordering::SeqCst) == 0 {
                    break 'run BurstEnd::EndOfSpan;
                }
                let now = sampler.clock().now();
                if now >= wake {
                    break;
                }
                std::thread::sleep((wake - now).min(POLL));
            }
            let rows = sampler.collect(self.target.temperature_c());
            for r in &rows {
                samples.push(r);
            }
            if let Some(why) = on_rows(&rows) {
                break why;
            }
        };
        shared.request_stop();
        for h in handles {
            let _ = h.join();
        }
        let end_t = sampler.clock().now();
        // The last, partial interval (writes drained after the stop) completes the byte count.
        let drained = sampler.finish(end_t, self.target.temperature_c());
        for r in &drained {
            samples.push(r);
        }
        if let Some(f) = shared.failure() {
            return Err(anyhow!("{f}"));
        }
        Ok((samples, end, drained))
    }
}

impl TestDrive for RealDrive {
    fn span(&self) -> u64 {
        self.span
    }

    fn meta(&self) -> RunMeta {
        let ident = &self.target.info.identity;
        RunMeta {
            device: ident.clone(),
            workload: Workload {
                pattern: self.w.pattern.name().into(),
                block_size: Some(self.w.block_size),
                queue_depth: Some(self.w.queue_depth),
                jobs: Some(self.w.jobs),
                interval_s: Some(self.w.interval.as_secs_f64()),
                engine: Some(if self.engine_name.is_empty() {
                    self.engine.name().to_string()
                } else {
                    self.engine_name.to_string()
                }),
                span_bytes: Some(self.span),
                read_pct: (self.w.read_pct > 0).then_some(self.w.read_pct),
                cliffs_asked: None,
                prefill_pct: None,
                idle_before_s: None,
            },
            started_at: Some(chrono::Utc::now()),
            stop_reason: None,
            label: ident
                .model
                .clone()
                .unwrap_or_else(|| self.target.info.short_name()),
            slccache_version: crate::VERSION.into(),
            resolution: None,
            rate_log: false,
        }
    }

    fn model(&self) -> Option<&DriveModel> {
        self.target.info.emulated.as_ref().map(|e| e.model())
    }

    fn trim(&mut self) -> Result<()> {
        crate::experiment::recovery::realtime_trim(&self.target, self.span)?;
        self.extent = 0;
        Ok(())
    }

    fn fill(
        &mut self,
        from: u64,
        to: u64,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<bool> {
        if to <= from {
            return Ok(true);
        }
        let bs = self.w.block_size;
        let blocks = (to - from) / bs;
        let total = blocks * bs;
        // The run's own stop flag: Ctrl-C, SIGTERM or SIGHUP ends the fill too, and the
        // experiment then writes its outputs (a fill can take an hour).
        let (_, _, _) = self.write_run(Pattern::Seqwrite, from, blocks, stop, |rows| {
            if let Some(last) = rows.last() {
                progress(last.bytes_total, total);
            }
            None
        })?;
        if stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        self.extent = self.extent.max(from + total);
        progress(total, total);
        Ok(true)
    }

    fn idle(
        &mut self,
        secs: f64,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(f64),
    ) -> Result<bool> {
        let start = Instant::now();
        let total = Duration::from_secs_f64(secs);
        let mut last_report = Instant::now() - Duration::from_secs(1);
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok(false);
            }
            let gone = start.elapsed();
            if gone >= total {
                progress(0.0);
                return Ok(true);
            }
            if last_report.elapsed() >= Duration::from_millis(250) {
                progress((total - gone).as_secs_f64());
                last_report = Instant::now();
            }
            std::thread::sleep((total - gone).min(Duration::from_millis(50)));
        }
    }

    fn burst(
        &mut self,
        start: u64,
        max_bytes: u64,
        rule: &mut BurstRule,
        stop: &AtomicBool,
        on_sample: &mut dyn FnMut(&Sample),
    ) -> Result<(Kept, BurstEnd)> {
        let blocks = max_bytes / self.w.block_size;
        if blocks == 0 {
            return Ok((Kept::for_run(), BurstEnd::EndOfSpan));
        }
        let pattern = self.w.pattern;
        let mut written = 0;
        let (samples, end, drained) = self.write_run(pattern, start, blocks, stop, |rows| {
            let mut why = None;
            for r in rows {
                written = r.bytes_total;
                on_sample(r);
                if why.is_none() {
                    why = rule.push(r);
                }
            }
            why
        })?;
        // Rows after the stop (the writes drained) are part of the timeline too.
        for r in &drained {
            written = r.bytes_total;
            on_sample(r);
        }
        self.extent = self.extent.max(start + written);
        Ok((samples, end))
    }

    fn fill_level(&self) -> f64 {
        self.extent as f64 / self.span.max(1) as f64
    }

    fn model_cache_now(&self) -> Option<f64> {
        None
    }
}
