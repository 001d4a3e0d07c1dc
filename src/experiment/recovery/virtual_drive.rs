//! A drive model in virtual time for the burst experiments (`--simulate`).
//!
//! Writes go through [`DriveState::write`] one sampling interval at a time, as in
//! [`crate::commands::simulate`]; idling is [`DriveState::idle`]; a fill writes its bytes in one call
//! with no timeline. The data on the drive is counted by where it was written, not by how
//! much: the bursts of `recovery` write the same region again and again, and a real drive
//! holds that data once, so the fill level (which sets the dynamic cache) does not creep up
//! from burst to burst.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use super::{BurstEnd, BurstRule, TestDrive};
use crate::config::WorkloadConfig;
use crate::model::{DriveModel, DriveState, Load};
use crate::timeline::bounded::Kept;
use crate::timeline::{RunMeta, Sample};

/// A drive model run in virtual time.
#[derive(Debug, Clone)]
pub struct VirtualDrive {
    model: DriveModel,
    state: DriveState,
    load: Load,
    interval_s: f64,
    /// Virtual clock, seconds.
    t: f64,
    /// Bytes of the span.
    span: u64,
    /// Highest byte offset written (data is taken to fill the drive from its start).
    extent: f64,
    meta: RunMeta,
}

impl VirtualDrive {
    /// A virtual drive for `model` under workload `w` (pattern, block size, queue depth and
    /// jobs, interval, span, seed); `meta` names it in reports.
    pub fn new(model: DriveModel, w: &WorkloadConfig, meta: RunMeta) -> VirtualDrive {
        let state = model.new_state(w.seed);
        let span = w.span.unwrap_or(model.capacity.0).min(model.capacity.0);
        let extent = state.data;
        VirtualDrive {
            load: Load::new(
                w.pattern,
                w.block_size,
                Some(w.queue_depth.saturating_mul(w.jobs)),
                w.read_pct,
            ),
            interval_s: w.interval.as_secs_f64(),
            t: 0.0,
            span,
            extent,
            state,
            model,
            meta,
        }
    }

    /// The virtual clock, seconds since the drive was made.
    pub fn now_s(&self) -> f64 {
        self.t
    }

    /// The drive state.
    pub fn state(&self) -> &DriveState {
        &self.state
    }

    fn note_written(&mut self, start: f64, bytes: f64) {
        self.extent = self
            .extent
            .max(start + bytes)
            .min(self.model.capacity.as_f64());
        self.state.data = self.extent;
    }
}

impl TestDrive for VirtualDrive {
    fn span(&self) -> u64 {
        self.span
    }

    fn meta(&self) -> RunMeta {
        self.meta.clone()
    }

    fn model(&self) -> Option<&DriveModel> {
        Some(&self.model)
    }

    fn trim(&mut self) -> Result<()> {
        self.state.slc_used = 0.0;
        self.state.direct = 0.0;
        self.state.data = 0.0;
        self.state.cache_size = self.model.cache_at_fill(0.0);
        self.extent = 0.0;
        Ok(())
    }

    /// In virtual time a fill takes no real time: `stop` is read by the steps around it.
    fn fill(
        &mut self,
        from: u64,
        to: u64,
        _stop: &AtomicBool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<bool> {
        if to <= from {
            return Ok(true);
        }
        let bytes = (to - from) as f64;
        let data_before = self.state.data;
        self.t = self.state.write(
            &self.model,
            &self.load,
            self.t,
            bytes,
            f64::INFINITY,
            |_| {},
        );
        self.state.data = data_before;
        self.note_written(from as f64, bytes);
        progress(to - from, to - from);
        Ok(true)
    }

    fn idle(
        &mut self,
        secs: f64,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(f64),
    ) -> Result<bool> {
        if stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        self.state.idle(&self.model, secs);
        self.t += secs;
        progress(0.0);
        Ok(true)
    }

    fn burst(
        &mut self,
        start: u64,
        max_bytes: u64,
        rule: &mut BurstRule,
        stop: &AtomicBool,
        on_sample: &mut dyn FnMut(&Sample),
    ) -> Result<(Kept, BurstEnd)> {
        let t0 = self.t;
        let bs = self.load.block_size as f64;
        let in_flight = self.load.in_flight.unwrap_or(1) as f64;
        let mut samples = Kept::for_run();
        let mut exact = 0.0f64;
        let mut total = 0u64;
        let end = loop {
            if stop.load(Ordering::SeqCst) {
                break BurstEnd::Interrupted;
            }
            let left = max_bytes as f64 - exact;
            if left < 0.5 {
                break BurstEnd::EndOfSpan;
            }
            let t = self.t;
            let mut lats: Vec<(f64, f64)> = Vec::new();
            let mut written = 0.0;
            let data_before = self.state.data;
            let end = self.state.write(
                &self.model,
                &self.load,
                t,
                left,
                t + self.interval_s,
                |seg| {
                    written += seg.bytes;
                    if seg.rate > 0.0 && seg.bytes > 0.0 {
                        lats.push((in_flight * bs / seg.rate, seg.bytes / bs));
                    }
                },
            );
            self.state.data = data_before;
            if end <= t {
                break BurstEnd::EndOfSpan;
            }
            self.note_written(start as f64 + exact, written);
            exact += written;
            let new_total = exact.round() as u64;
            let bytes = new_total - total;
            total = new_total;
            let dt = end - t;
            lats.sort_by(|a, b| a.0.total_cmp(&b.0));
            let q = |q: f64| weighted_quantile(&lats, q).map(|s| s * 1e6);
            let s = Sample {
                t_s: end - t0,
                interval_s: dt,
                bytes,
                bytes_total: total,
                bytes_per_sec: bytes as f64 / dt,
                iops: bytes as f64 / bs / dt,
                lat_p50_us: q(0.5),
                lat_p99_us: q(0.99),
                lat_max_us: lats.last().map(|p| p.0 * 1e6),
                temp_c: self.model.thermal.as_ref().map(|_| self.state.temp_c),
                ..Default::default()
            };
            self.t = end;
            on_sample(&s);
            samples.push(&s);
            if let Some(why) = rule.push(&s) {
                break why;
            }
        };
        Ok((samples, end))
    }

    fn fill_level(&self) -> f64 {
        self.extent / self.model.capacity.as_f64()
    }

    fn model_cache_now(&self) -> Option<f64> {
        Some((self.state.cache_size - self.state.slc_used).max(0.0))
    }
}

/// Weighted quantile of (value, weight) pairs sorted by value.
fn weighted_quantile(sorted: &[(f64, f64)], q: f64) -> Option<f64> {
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
