//! A drive model run in virtual time.
//!
//! The simulator keeps `queue depth x jobs` writes in flight on the model's FIFO server and
//! integrates the model over time with [`DriveState::write`][write] (the same function the
//! real-time emulated backend calls per write), one sampling interval at a time. An hour of
//! writing takes milliseconds. Each interval becomes a [`Sample`]; latencies come from Little's law
//! (`in flight x block size / throughput`) for every stretch at one rate. `simulate`, `sweep
//! --simulate`, `recovery --simulate` and `fill-sweep --simulate` all run on it.
//!
//! [write]: crate::model::DriveState::write

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use crate::config::WorkloadConfig;
use crate::detect::stop::{Decision, SampleSource, StopConfig, StopRule};
use crate::error::usage;
use crate::experiment::prepare::Preparation;
use crate::model::{DriveModel, DriveState, Load, Truth};
use crate::results::drive_state::DriveStateRecord;
use crate::timeline::bounded::Kept;
use crate::timeline::{DeviceIdentity, RunMeta, Sample, StopReason, Timeline, Workload};
use crate::units::{format_bytes, format_seconds, UnitSystem};

/// The result of a simulation.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The timeline, one sample per interval (merged past [`Kept`]'s limit, as
    /// `timeline.meta.resolution` says; `on_sample` saw every sample).
    pub timeline: Timeline,
    /// What the model says a perfect measurement finds.
    pub truth: Truth,
    /// Writes completed.
    pub writes: u64,
    /// The early-stop rule as it ended, when the run had one.
    pub stop_rule: Option<StopRule>,
    /// Reads completed.
    pub reads: u64,
    /// Virtual time at which the drive first wrote outside its SLC cache, if it did.
    pub left_cache_at_s: Option<f64>,
}

/// Checks `block_size` against a drive model run in virtual time: a multiple of the logical
/// block of an emulated drive ([`crate::engine::emulated::LOGICAL_BLOCK`], 512 bytes), as a
/// probe of `emu:` demands, with probe's words (a usage error).
pub fn check_block(model: &DriveModel, block_size: u64) -> Result<()> {
    crate::device::check_block_size(
        block_size,
        crate::engine::emulated::LOGICAL_BLOCK,
        &model.name,
    )
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
    // One pass over the span unless --max-bytes or --passes say otherwise: a --duration
    // alone stops the run at whichever comes first, never after writing the span many times.
    Ok(match (w.max_bytes, w.passes) {
        (Some(b), _) => Some(b),
        (None, Some(p)) => Some((p * span as f64).round() as u64),
        (None, None) => Some(span),
    })
}

/// Why a run under `w` ends when it has written its [`byte_limit`]: `--max-bytes` only
/// when it was given.
pub fn byte_limit_reason(w: &WorkloadConfig) -> StopReason {
    match (w.max_bytes, w.passes) {
        (Some(_), _) => StopReason::MaxBytes,
        (None, Some(_)) => StopReason::PassesWritten,
        (None, None) => StopReason::SpanWritten,
    }
}

/// The warning of a run under `w` that one pass over the span ended before the `--duration`
/// it asked for, or `None`: without `--max-bytes` a run stops at the end of its span (never
/// writing it twice unasked), so a reviewer's "30-minute sustained write" ran 13.9 minutes
/// with nothing but the stop reason to say so.
pub fn short_of_duration(w: &WorkloadConfig, t: &Timeline) -> Option<crate::detect::Warning> {
    short_of_duration_s(w.duration?.as_secs_f64(), t)
}

/// [`short_of_duration`] for a `--duration` of `asked` seconds: `analyze` of a run's
/// timeline, with the duration its `summary.json` asked for, says it as the run did.
pub fn short_of_duration_s(asked: f64, t: &Timeline) -> Option<crate::detect::Warning> {
    let ran = t.duration_s();
    if t.meta.stop_reason != Some(StopReason::SpanWritten) || ran >= asked * (1.0 - 1e-9) {
        return None;
    }
    let (done, doing) = if t.bytes_total() == 0 && t.has_reads() {
        ("read", "reads")
    } else {
        ("written", "writes")
    };
    Some(crate::detect::Warning::new(
        crate::detect::WarningKind::ShortOfDuration,
        format!(
            "one pass over the span {done} ended the run at {} of the {} of --duration: \
             without --max-bytes a run stops at the end of its span; to run for {}, give \
             --max-bytes too (the {doing} then wrap around the span, and the run says so)",
            format_seconds(ran),
            format_seconds(asked),
            format_seconds(asked),
        ),
    ))
}

/// Weighted quantile of (value, weight) pairs sorted by value; `total` is the weights summed
/// in order (summed once for a sample's quantiles).
fn quantile_of(sorted: &[(f64, f64)], total: f64, q: f64) -> Option<f64> {
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

/// A drive model written in virtual time, one sampling interval per [`SampleSource::next_sample`].
///
/// The building block of [`simulate`] and of experiments that write in bursts: write until
/// the cliff is confirmed ([`crate::detect::stop::run_burst`]), [`VirtualDrive::idle`] for a
/// while, [`VirtualDrive::begin_burst`] again. Each burst's samples count time and bytes from
/// the start of that burst; the drive state (cache used, temperature) carries over.
#[derive(Debug, Clone)]
pub struct VirtualDrive<'a> {
    model: &'a DriveModel,
    load: Load,
    state: DriveState,
    interval: f64,
    in_flight: u32,
    /// Virtual time now, seconds since the drive was made.
    t: f64,
    /// Start of the current burst.
    t0: f64,
    limit: Option<u64>,
    /// Why the burst ends when it has written `limit`.
    limit_reason: StopReason,
    end_time: f64,
    exact_total: f64,
    total: u64,
    stop: Option<StopReason>,
    /// The share of every byte that is read (`--rwmix-read`), 0 to 1.
    read_frac: f64,
    /// Bytes read in the current burst.
    read_total: u64,
    /// Fixed latency of a write and of a read against the mean one of the mix, seconds.
    lat_w: f64,
    lat_r: f64,
    /// Time into the current burst at which the drive first wrote outside its SLC cache.
    left_cache_at_s: Option<f64>,
    /// The (latency, weight) pairs of the sample being made, one per stretch at one rate:
    /// kept between samples so that a sample allocates nothing.
    lats: Vec<(f64, f64)>,
}

impl<'a> VirtualDrive<'a> {
    /// A fresh drive of `model` under workload `w` (noise seeded by `w.seed`), with a first
    /// burst limited as `w` says ([`byte_limit`], `w.duration`).
    pub fn new(model: &'a DriveModel, w: &WorkloadConfig) -> Result<VirtualDrive<'a>> {
        check_block(model, w.block_size)?;
        let limit = byte_limit(w, model.capacity.0)?;
        let in_flight = w.queue_depth.saturating_mul(w.jobs);
        let mut d = VirtualDrive {
            model,
            load: Load::new(w.pattern, w.block_size, Some(in_flight), w.read_pct),
            state: model.new_state(w.seed),
            interval: w.interval.as_secs_f64(),
            in_flight,
            t: 0.0,
            t0: 0.0,
            limit: None,
            limit_reason: StopReason::MaxBytes,
            end_time: f64::INFINITY,
            exact_total: 0.0,
            total: 0,
            stop: None,
            read_frac: w.read_pct.min(100) as f64 / 100.0,
            read_total: 0,
            lat_w: 0.0,
            lat_r: 0.0,
            left_cache_at_s: None,
            lats: Vec::new(),
        };
        d.lat_w = model.latency_s - model.latency_for(d.read_frac);
        d.lat_r = model.read_latency_s - model.latency_for(d.read_frac);
        d.begin_burst(limit, w.duration.map(|d| d.as_secs_f64()));
        d.limit_reason = byte_limit_reason(w);
        Ok(d)
    }

    /// Starts a new burst now, limited to `max_bytes` and `duration_s` (`None`: no limit);
    /// one that ends at `max_bytes` stopped at its byte limit.
    pub fn begin_burst(&mut self, max_bytes: Option<u64>, duration_s: Option<f64>) {
        self.t0 = self.t;
        self.limit = max_bytes;
        self.limit_reason = StopReason::MaxBytes;
        self.end_time = duration_s.unwrap_or(f64::INFINITY);
        self.exact_total = 0.0;
        self.total = 0;
        self.read_total = 0;
        self.left_cache_at_s = None;
        self.stop = None;
    }

    /// The drive idles for `dt_s` seconds (it folds its cache and cools, as the model says).
    pub fn idle(&mut self, dt_s: f64) {
        if dt_s > 0.0 {
            self.state.idle(self.model, dt_s);
            self.t += dt_s;
        }
    }

    /// The drive's state.
    pub fn state(&self) -> &DriveState {
        &self.state
    }

    /// Why the current burst ended on its own, once it has.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop
    }

    /// Writes completed in the current burst.
    pub fn writes(&self) -> u64 {
        (self.total as f64 / self.load.block_size as f64).round() as u64
    }

    /// Reads completed in the current burst.
    pub fn reads(&self) -> u64 {
        (self.read_total as f64 / self.load.block_size as f64).round() as u64
    }

    /// Time into the current burst at which the drive first wrote outside its SLC cache.
    pub fn left_cache_at_s(&self) -> Option<f64> {
        self.left_cache_at_s
    }
}

/// What the stretches of one sample add up to, as [`DriveState::write`] reports them.
struct Step<'l> {
    bs: f64,
    in_flight: f64,
    read_frac: f64,
    t0: f64,
    written: f64,
    /// The rate of the last stretch that wrote.
    last_rate: f64,
    left_cache: Option<f64>,
    lats: &'l mut Vec<(f64, f64)>,
}

impl Step<'_> {
    fn take(&mut self, seg: crate::model::Segment) {
        self.written += seg.bytes;
        if seg.phase != crate::model::Phase::Cache && seg.bytes * (1.0 - self.read_frac) > 0.0 {
            self.left_cache.get_or_insert(seg.t_s - self.t0);
        }
        if seg.rate > 0.0 && seg.bytes > 0.0 {
            self.lats
                .push((self.in_flight * self.bs / seg.rate, seg.bytes / self.bs));
            self.last_rate = seg.rate;
        }
    }
}

impl SampleSource for VirtualDrive<'_> {
    fn next_sample(&mut self) -> Result<Option<Sample>> {
        if self.stop.is_some() {
            return Ok(None);
        }
        let left = match self.limit {
            Some(l) => l as f64 - self.exact_total,
            None => f64::INFINITY,
        };
        if left < 0.5 {
            self.stop = Some(self.limit_reason);
            return Ok(None);
        }
        let t = self.t - self.t0;
        // Virtual time is a sum of intervals, and a sum of floats drifts: after 17,544 steps
        // of 200 ms the time is a few nanoseconds short of 3508.8 s. A rest shorter than a
        // thousandth of an interval belongs to the interval before it (the step that ends
        // there ends at the duration), never to a row of its own: such a row would be written
        // as `t_s` equal to the one before with `interval_s` 0.000000, which no reader takes.
        let slack = self.interval * 1e-3;
        if t >= self.end_time - slack {
            self.stop = Some(StopReason::Duration);
            return Ok(None);
        }
        let t_end = if t + self.interval >= self.end_time - slack {
            self.end_time
        } else {
            t + self.interval
        };
        let mut step = Step {
            bs: self.load.block_size as f64,
            in_flight: self.in_flight as f64,
            read_frac: self.read_frac,
            t0: self.t0,
            written: 0.0,
            last_rate: 0.0,
            left_cache: self.left_cache_at_s,
            lats: &mut self.lats,
        };
        step.lats.clear();
        let mut end = self.state.write(
            self.model,
            &self.load,
            self.t,
            left,
            self.t0 + t_end,
            |seg| step.take(seg),
        );
        // The byte limit a sliver of time after the interval's end (a byte or a fraction of
        // one left, which the drive writes in nanoseconds) is reached in this interval, a
        // little longer than the others, as the duration's rest above: a step of its own
        // would be a row of a few nanoseconds, written as a length of 0.000000 s, which no
        // reader takes. Tried on a copy of the drive, kept only when the limit is reached
        // within the slack.
        let rest = left - step.written;
        if self.limit.is_some()
            && end >= self.t0 + t_end
            && rest >= 0.5
            && step.last_rate > 0.0
            && rest / step.last_rate < slack
        {
            let mut state = self.state.clone();
            let mut extra = Vec::new();
            let until = state.write(self.model, &self.load, end, rest, end + slack, |seg| {
                extra.push(seg)
            });
            if rest - extra.iter().map(|seg| seg.bytes).sum::<f64>() < 0.5 {
                self.state = state;
                end = until;
                extra.into_iter().for_each(|seg| step.take(seg));
            }
        }
        let (written, left_cache) = (step.written, step.left_cache);
        let rf = self.read_frac;
        let bs = self.load.block_size as f64;
        self.left_cache_at_s = left_cache;
        if end <= self.t {
            // Nothing more can happen (no rate): stop rather than loop.
            self.stop = Some(StopReason::EndOfData);
            return Ok(None);
        }
        // Reads and writes share the I/O: a fraction `rf` of every byte is read.
        let read_before = (self.exact_total * rf).round() as u64;
        self.exact_total += written;
        let new_total = (self.exact_total * (1.0 - rf)).round() as u64;
        let bytes = new_total - self.total;
        self.total = new_total;
        let read_bytes = (self.exact_total * rf).round() as u64 - read_before;
        self.read_total += read_bytes;
        let dt = end - self.t;
        self.lats.sort_by(|a, b| a.0.total_cmp(&b.0));
        let lats = &self.lats[..];
        let total_w: f64 = lats.iter().map(|p| p.1).sum();
        let quantile = |q: f64| quantile_of(lats, total_w, q);
        let us = |v: Option<f64>| v.map(|s| s * 1e6);
        // Little's law gives the mean latency of an I/O; each direction differs from it by
        // its own fixed latency.
        let shift = |v: Option<f64>, by: f64| us(v.map(|x| (x + by).max(0.0)));
        let has = |b: u64| b > 0;
        let (lat_w, lat_r) = (self.lat_w, self.lat_r);
        let read = (rf > 0.0).then(|| crate::timeline::ReadStats {
            bytes: read_bytes,
            iops: read_bytes as f64 / bs / dt,
            lat_p50_us: shift(quantile(0.5), lat_r).filter(|_| has(read_bytes)),
            lat_p99_us: shift(quantile(0.99), lat_r).filter(|_| has(read_bytes)),
            lat_max_us: shift(lats.last().map(|p| p.0), lat_r).filter(|_| has(read_bytes)),
        });
        let sample = Sample {
            t_s: end - self.t0,
            interval_s: dt,
            bytes,
            bytes_total: self.total,
            bytes_per_sec: bytes as f64 / dt,
            iops: bytes as f64 / bs / dt,
            lat_p50_us: shift(quantile(0.5), lat_w).filter(|_| has(bytes)),
            lat_p99_us: shift(quantile(0.99), lat_w).filter(|_| has(bytes)),
            lat_max_us: shift(lats.last().map(|p| p.0), lat_w).filter(|_| has(bytes)),
            temp_c: self.model.thermal.as_ref().map(|_| self.state.temp_c),
            read,
            thermal_transitions: self
                .model
                .thermal
                .as_ref()
                .map(|_| self.state.throttle_transitions),
            cpu_pct: None,
            cpu_wait_pct: None,
        };
        self.t = end;
        Ok(Some(sample))
    }
}

/// Most samples a simulation makes (rows of `timeline.csv`): ten million, a day at 10 ms
/// (8.64 million) with room to spare. Its memory is bounded by
/// [`crate::timeline::bounded::MAX_KEPT`] whatever the count, but its time is not.
pub const MAX_SAMPLES: f64 = 1e7;

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
        // The shortest interval that fits, in the flag's own units, rounded up.
        let need_s = virtual_s / MAX_SAMPLES;
        let need = if need_s < 1.0 {
            format!("{}ms", (need_s * 1000.0).ceil())
        } else {
            format!("{}s", need_s.ceil())
        };
        return Err(usage(format!(
            "this run would last up to {} of virtual time: {:.0} samples of --interval {}, \
             more than the {} a simulation makes; give --interval {} or longer, or a \
             smaller --max-bytes or --duration",
            format_seconds(virtual_s),
            virtual_s / interval,
            crate::units::format_interval(interval),
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
    simulate_with_stop(model, w, None, meta, &AtomicBool::new(false), on_sample)
}

/// [`simulate`], stopping (with [`StopReason::Interrupted`]) after the sample during which
/// `stop_flag` becomes true.
pub fn simulate_until(
    model: &DriveModel,
    w: &WorkloadConfig,
    meta: RunMeta,
    stop_flag: &AtomicBool,
    on_sample: impl FnMut(&Sample) -> Result<()>,
) -> Result<Simulation> {
    simulate_with_stop(model, w, None, meta, stop_flag, on_sample)
}

/// Like [`simulate`], with the early stop of `stop` when given: the run ends once the
/// cliff is certain ([`StopRule`]), with stop reason [`StopReason::CliffConfirmed`]; and
/// after the sample during which `stop_flag` becomes true ([`StopReason::Interrupted`]).
pub fn simulate_with_stop(
    model: &DriveModel,
    w: &WorkloadConfig,
    stop: Option<StopConfig>,
    meta: RunMeta,
    stop_flag: &AtomicBool,
    on_sample: impl FnMut(&Sample) -> Result<()>,
) -> Result<Simulation> {
    simulate_prepared(
        model,
        w,
        stop,
        &Preparation::default(),
        meta,
        stop_flag,
        on_sample,
    )
    .map(|(sim, _)| sim)
}

/// [`simulate_with_stop`] from the starting state `prep` sets, as `probe` reaches it on a
/// drive: `--trim` discards the whole drive (its cache empties, its fill level drops to
/// nothing), `--prefill` writes that share of it sequentially (128 KiB, QD32) outside the
/// timeline, and `--idle-before` lets the drive idle (it folds its cache and cools, as the
/// model says). Returns the run and the record of what was done, for `drive_state`; the
/// run's truth is the model's for the state the measured run starts from.
pub fn simulate_prepared(
    model: &DriveModel,
    w: &WorkloadConfig,
    stop: Option<StopConfig>,
    prep: &Preparation,
    meta: RunMeta,
    stop_flag: &AtomicBool,
    mut on_sample: impl FnMut(&Sample) -> Result<()>,
) -> Result<(Simulation, DriveStateRecord)> {
    let mut drive = VirtualDrive::new(model, w)?;
    let mut record = DriveStateRecord::default();
    if prep.any() {
        let capacity = model.capacity.as_f64();
        if prep.trim {
            drive.state.trim(model, capacity);
            record.trimmed = true;
            record.trim = Some(format!(
                "the model's drive trimmed ({}): its cache is empty",
                crate::units::format_bytes(capacity, crate::units::UnitSystem::Decimal)
            ));
        }
        if let Some(pct) = prep.prefill_pct {
            let bytes = (capacity * pct / 100.0).round();
            let load = Load::new(
                crate::workload::Pattern::Seqwrite,
                crate::experiment::prepare::PREFILL_BS,
                Some(crate::experiment::prepare::PREFILL_QD),
                0,
            );
            drive.t = drive
                .state
                .write(model, &load, drive.t, bytes, f64::INFINITY, |_| {});
            record.prefill_pct = Some(pct);
            record.prefill_bytes = Some(bytes as u64);
        }
        if let Some(d) = prep.idle_before {
            drive.idle(d.as_secs_f64());
            record.idle_before_s = Some(d.as_secs_f64());
        }
        record.fill_at_start_pct = Some(100.0 * drive.state.data / capacity);
        record.emulated_cache_at_start_bytes = Some(
            (drive.state.cache_size - drive.state.slc_used)
                .max(0.0)
                .round() as u64,
        );
        // The measured run starts now, with the limits it was given.
        drive.begin_burst(
            byte_limit(w, model.capacity.0)?,
            w.duration.map(|d| d.as_secs_f64()),
        );
        drive.limit_reason = byte_limit_reason(w);
    }
    let truth = if prep.any() {
        let mut t = model.truth_mixed(w.pattern, w.block_size, w.read_pct);
        let now = drive.state.truth_now(model, w.pattern, w.block_size);
        t.cache_bytes = now.cache_bytes;
        t.folding_starts_at_bytes = now.folding_starts_at_bytes;
        t
    } else {
        model.truth_mixed(w.pattern, w.block_size, w.read_pct)
    };
    let mut rule = stop.map(StopRule::new);
    // The samples kept for the analysis: bounded (merged past `MAX_KEPT`); `on_sample`
    // writes every one of them to timeline.csv.
    let mut kept = Kept::for_run();
    let reason = loop {
        let Some(s) = drive.next_sample()? else {
            break drive.stop_reason().unwrap_or(StopReason::EndOfData);
        };
        on_sample(&s)?;
        kept.push(&s);
        let decision = rule.as_mut().map(|r| r.push(s));
        if decision == Some(Decision::Stop) {
            break rule
                .as_ref()
                .and_then(StopRule::stop_reason)
                .unwrap_or(StopReason::CliffConfirmed);
        }
        if stop_flag.load(Ordering::SeqCst) {
            break StopReason::Interrupted;
        }
    };
    let mut meta = meta;
    meta.stop_reason = Some(reason);
    Ok((
        Simulation {
            timeline: kept.into_timeline(meta),
            truth,
            writes: drive.writes(),
            reads: drive.reads(),
            left_cache_at_s: drive.left_cache_at_s(),
            stop_rule: rule,
        },
        record,
    ))
}

/// The run metadata of a simulation of `model` (given as `spec`) under `w`.
pub fn run_meta(spec: &str, model: &DriveModel, w: &WorkloadConfig) -> RunMeta {
    RunMeta {
        device: DeviceIdentity {
            path: format!("sim:{spec}"),
            kind: "simulated".into(),
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
            read_pct: (w.read_pct > 0).then_some(w.read_pct),
            cliffs_asked: None,
            prefill_pct: None,
            idle_before_s: None,
        },
        started_at: Some(chrono::Utc::now()),
        stop_reason: None,
        label: format!("{} (simulated)", model.model),
        slccache_version: crate::VERSION.to_string(),
        resolution: None,
        rate_log: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::stop::Estimate;
    use crate::model::presets;
    use crate::workload::Pattern;
    use std::time::Duration;

    fn workload(pattern: Pattern, bs: u64, qd: u32) -> WorkloadConfig {
        WorkloadConfig {
            pattern,
            read_pct: 0,
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
        // No --max-bytes: one pass over the span ends the run, and it says so, with a long
        // --duration too; never "byte limit reached".
        w.span = Some(2_000_000_000);
        w.duration = Some(Duration::from_secs(1800));
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        assert_eq!(sim.timeline.bytes_total(), 2_000_000_000);
        assert_eq!(sim.timeline.meta.stop_reason, Some(StopReason::SpanWritten));
        w.passes = Some(2.0);
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        assert_eq!(sim.timeline.bytes_total(), 4_000_000_000);
        assert_eq!(
            sim.timeline.meta.stop_reason,
            Some(StopReason::PassesWritten)
        );
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

    /// The early-stop rule of a run without the early stop skips its analyses once its
    /// answer is certain and the level holds; what it reports at the end (the cliff, its
    /// hold, how often a cliff was withdrawn, a drop inside the first sample) is what it
    /// reported when every due analysis ran, for every preset drive (their later tiers and
    /// folding included).
    #[test]
    fn skipped_analyses_change_no_answer_of_the_rule() {
        let cfg = StopConfig {
            early_stop: false,
            ..StopConfig::default()
        };
        let mut skipped = 0;
        for m in presets::all() {
            for (interval_ms, secs) in [(1000, 5000), (250, 1200)] {
                let mut w = workload(Pattern::Seqwrite, 128 << 10, 32);
                w.interval = Duration::from_millis(interval_ms);
                w.duration = Some(Duration::from_secs(secs));
                w.max_bytes = Some(u64::MAX / 2);
                let mut drive = VirtualDrive::new(&m, &w).unwrap();
                let mut all = StopRule::new(cfg).analysing_all();
                let mut rule = StopRule::new(cfg);
                while let Some(s) = drive.next_sample().unwrap() {
                    all.push(s.clone());
                    rule.push(s);
                }
                let what = format!("{} at {interval_ms} ms", m.name);
                assert_eq!(all.withdrawn(), rule.withdrawn(), "{what}");
                assert_eq!(all.analyses(), rule.analyses() + rule.skipped(), "{what}");
                match (all.estimate(), rule.estimate()) {
                    (Some(a), Some(b)) => {
                        // The cliff of the latest analysis each ran: the same cliff, its hold
                        // (the cache phase's length, when over 30 s) within a few parts in a
                        // million.
                        assert!(Estimate::same_cliff(&a.cache, &b.cache), "{what}");
                        assert!((a.hold_s / b.hold_s - 1.0).abs() < 1e-5, "{what}");
                    }
                    (a, b) => assert_eq!(a.is_some(), b.is_some(), "{what}"),
                }
                let drop = |r: &StopRule| r.first_sample_drop().map(|(d, at)| (d.t_s, at));
                assert_eq!(drop(&all), drop(&rule), "{what}");
                skipped += rule.skipped();
            }
        }
        assert!(skipped > 1000, "{skipped} analyses skipped");
    }

    /// A run too long to simulate is refused with the count of samples it would make, and
    /// the limit is called what it is: how many samples a simulation makes (its memory is
    /// bounded whatever the count, so it is not what a simulation keeps).
    #[test]
    fn too_long_a_run_is_refused_for_the_samples_it_would_make() {
        let m = presets::find("960evo-500g").unwrap();
        let mut w = workload(Pattern::Seqwrite, 1 << 20, 8);
        w.interval = Duration::from_millis(10);
        w.max_bytes = Some(u64::MAX / 2); // the length is set by the duration alone
        w.duration = Some(Duration::from_secs(200_000)); // 20M samples of 10 ms
        let e = check_length(&m, &w).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
        let msg = format!("{e:#}");
        assert!(msg.contains("20000000 samples of --interval"), "{msg}");
        assert!(
            msg.contains("more than the 10000000 a simulation makes"),
            "{msg}"
        );
        // A day at 10 ms (8.64M samples) is within the limit; it used to be refused (5M).
        w.duration = Some(Duration::from_secs(86_400));
        check_length(&m, &w).unwrap();
    }

    #[test]
    fn a_block_size_off_the_logical_block_is_refused() {
        let m = crate::model::presets::find("960evo-250g").unwrap();
        let e = check_block(&m, 1000).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
        assert_eq!(
            format!("{e:#}"),
            "--bs 1000 does not fit 960evo-250g: direct I/O there needs multiples of 512 \
             bytes; try --bs 1024"
        );
        let w = workload(Pattern::Randwrite, 1000, 32);
        assert!(VirtualDrive::new(&m, &w).is_err());
        for bs in [512, 1024, 4096, 1 << 20] {
            check_block(&m, bs).unwrap();
        }
    }
}
