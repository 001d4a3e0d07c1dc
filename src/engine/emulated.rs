//! The emulated-drive backend: stores nothing, completes each write when the drive model says.
//!
//! All jobs of a probe share one [`EmulatedDrive`] (one drive state behind a mutex). A write is
//! served by the model's FIFO server when it is submitted: its service starts at
//! `max(now, server_free)`, lasts as long as [`DriveState::write`] says for its bytes, and it
//! completes [`DriveModel::latency_s`] after its service ends. The backend then sleeps until
//! enough writes have completed (or the timeout), in real (wall-clock) time. Gaps in which
//! the server had nothing to do count as idle time: the drive cools and recovers its cache.
//!
//! **Pacing.** A sleeping thread wakes late: by the kernel's timer slack (50 µs by default)
//! plus its scheduling latency. Left alone, that lateness became the drive's idle time, so a
//! QD1 emulation ran at a fifth of the model's IOPS (7.5k against 35.7k) and a 4 KiB QD32 one
//! about 10 % short, with the writer at 30 % CPU: the server ran dry while the writer slept
//! past the completions it waited for (measured: 40 000 idle gaps of 1-30 µs in 6 s at 4 KiB
//! QD32, 0.5 s in all; stalls over 0.5 ms added only 26 ms). And a late wake-up reaps many
//! writes at once, which the job loop resubmits last-completed first, so the first of them
//! waited a whole latency behind the server's last write. Now the I/Os a backend submits take
//! the completion times of its reaped I/Os in order, earliest first: each enters the model's
//! queue when the I/O whose place it takes completed, as if the writer had resubmitted at once,
//! but no earlier than [`MAX_LAG_S`] before it was submitted: the model's clock may
//! run up to that much behind the wall clock, never more, so over a run the model cannot
//! serve more than the host submitted. A real drive's completion interrupt wakes the writer
//! on time; the emulator's timer does not, and the model's truth assumes a host that keeps
//! the queue full. A stall longer than [`MAX_LAG_S`] (host load) is charged to the run, and
//! the pace check below reports it. Completions reach the sampler in small batches, so a
//! latency percentile read off the timeline includes the oversleep. Lowering the thread's
//! timer slack to 1 ns instead (`PR_SET_TIMERSLACK`) woke the writer about five times as
//! often: 98 % CPU at 4 KiB QD32, which the CPU-bound warning then rightly called a
//! measurement of the host, and still 10 % short.
//!
//! **Pace check.** The drive also sums, per write, the time the model says it takes at the
//! queue depth in use (its service time, or its service time plus latency over the writes in
//! flight when latency bounds the rate, as [`crate::model::closed_loop_rate`] says): the
//! model's own figure for the same writes ([`EmulatedDrive::pace`]). A run that took longer than
//! that in real time fell short of the model, and [`shortfall_warning`] says by how much.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Backend, Completion, WriteOp};
use crate::health::{HealthLog, DATA_UNIT_BYTES};
use crate::model::{presets, DriveModel, DriveState, Load, Truth};
use crate::timeline::DeviceIdentity;
use crate::workload::Pattern;

/// Logical block size the emulated drive reports (and the alignment it demands).
pub const LOGICAL_BLOCK: u64 = 512;

/// The spec word for a drive that completes every write at once.
pub const INSTANT: &str = "instant";

/// How far (seconds) the model's clock may run behind the wall clock (see the module's
/// "Pacing"): a timer's lateness is tens of microseconds; a longer stall is the host's, and
/// is charged to the run.
pub const MAX_LAG_S: f64 = 500e-6;

/// A real-time emulation that achieved less than this share of the model's rate is reported
/// as falling short ([`shortfall_warning`]).
pub const PACE_SHARE_OK: f64 = 0.95;

#[derive(Debug)]
struct Shared {
    state: DriveState,
    /// Model time (seconds since open) at which the FIFO server is next free.
    free_at: f64,
    /// Writes (and reads) that can be in flight at once: the queue depths of the live
    /// backends, summed.
    depth: usize,
    /// The model's own time for the I/Os since the last [`EmulatedDrive::reset_pace`].
    pace: Pace,
    /// Commands served since the drive was opened, as the SMART log counts them.
    commands: Commands,
}

/// The host commands an emulated drive served, and the bytes it read, for its SMART log.
#[derive(Debug, Clone, Copy, Default)]
struct Commands {
    writes: u64,
    reads: u64,
    bytes_read: u64,
}

/// What the model says the I/Os served since [`EmulatedDrive::reset_pace`] take, at the queue
/// depth they were served at.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Pace {
    /// Bytes served (written and read).
    pub bytes: u64,
    /// I/Os served.
    pub ios: u64,
    /// Seconds the model says they take with the queue kept full: per I/O the larger of its
    /// service time and its service time plus latency over the I/Os in flight.
    pub model_s: f64,
    /// Seconds the emulated drive sat idle between I/Os (nothing queued) in that time.
    pub idle_s: f64,
    /// Idle gaps longer than [`MAX_LAG_S`] among them (the host stalled).
    pub long_gaps: u64,
    /// Seconds of idle time in those long gaps.
    pub long_gap_s: f64,
}

impl Pace {
    /// The model's rate for these I/Os, in bytes per second (`None` before any).
    pub fn model_bytes_per_sec(&self) -> Option<f64> {
        (self.bytes > 0 && self.model_s > 0.0).then(|| self.bytes as f64 / self.model_s)
    }
}

/// The warning for a real-time emulation that achieved `achieved_bps` (bytes per second over
/// `duration_s` seconds) where the model's own figure for the same I/Os is `pace`'s rate:
/// `None` when it reached [`PACE_SHARE_OK`] of it. It says how long the emulated drive sat
/// idle, and how much of that were stalls of the host longer than [`MAX_LAG_S`].
pub fn shortfall_warning(
    achieved_bps: f64,
    duration_s: f64,
    pace: &Pace,
    io: &str,
    units: crate::units::UnitSystem,
) -> Option<String> {
    shortfall_text(
        &Shortfall {
            achieved_bytes_per_sec: achieved_bps,
            model_bytes_per_sec: pace.model_bytes_per_sec(),
            drive_idle_s: pace.idle_s,
            host_stalls: pace.long_gaps,
            host_stalls_s: pace.long_gap_s,
        },
        duration_s,
        io,
        units,
    )
}

/// The figures of a real-time emulation against its model, as a probe's `summary.json`
/// keeps them (`config.emulation`), so that an analysis of its `timeline.csv` says the
/// shortfall again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Shortfall {
    /// The rate achieved, bytes/s.
    pub achieved_bytes_per_sec: f64,
    /// The model's rate for the same I/Os, bytes/s.
    pub model_bytes_per_sec: Option<f64>,
    /// Seconds the emulated drive sat idle.
    pub drive_idle_s: f64,
    /// Idle gaps longer than [`MAX_LAG_S`] (the host stalled).
    pub host_stalls: u64,
    /// Seconds in those gaps.
    pub host_stalls_s: f64,
}

/// [`shortfall_warning`] from the figures themselves: the sentence when the emulation fell
/// short of its model over `duration_s` seconds of `io` ("writes", "reads", "reads and
/// writes"), else `None`.
pub fn shortfall_text(
    f: &Shortfall,
    duration_s: f64,
    io: &str,
    units: crate::units::UnitSystem,
) -> Option<String> {
    let model = f.model_bytes_per_sec.filter(|m| *m > 0.0)?;
    let share = f.achieved_bytes_per_sec / model;
    (share < PACE_SHARE_OK).then(|| {
        format!(
            "the emulation fell short of its model: {} achieved where the model gives {} for \
             the same {io} at the same queue depth ({} of it); the emulated drive sat idle for \
             {:.2} s of {:.2} s, {:.2} s of it in {} stalls of the host longer than {:.1} ms: \
             the host could not keep the emulated drive busy (a loaded or slow machine, or a \
             model faster than the engine can run), so the rates measured the host, not the \
             model",
            crate::units::format_rate(f.achieved_bytes_per_sec, units),
            crate::units::format_rate(model, units),
            if share < 0.01 {
                "under 1 %".to_string()
            } else {
                format!("{:.0} %", 100.0 * share)
            },
            f.drive_idle_s,
            duration_s,
            f.host_stalls_s,
            f.host_stalls,
            MAX_LAG_S * 1e3
        )
    })
}

/// What an emulated run's I/O was, in the words of [`shortfall_text`]: a read run's emulation
/// served reads.
pub fn io_words(wrote: bool, read: bool) -> &'static str {
    match (wrote, read) {
        (false, true) => "reads",
        (true, true) => "reads and writes",
        _ => "writes",
    }
}

/// An emulated drive shared by all jobs of a probe (cheap to clone).
#[derive(Debug, Clone)]
pub struct EmulatedDrive {
    spec: String,
    /// Every write completes the moment it is submitted (`instant` in the spec): no model
    /// time, no sleeping. Measures the engine's own ceiling.
    instant: bool,
    model: Arc<DriveModel>,
    shared: Arc<Mutex<Shared>>,
    epoch: Instant,
}

impl EmulatedDrive {
    /// Opens `spec`, the part of an `emu:PRESET[,key=value...]` target after `emu:` (a preset
    /// name or a model TOML file, with optional overrides; see `slccache presets`).
    ///
    /// The word `instant` among the parts (`emu:instant`, `emu:960evo-1tb,instant`) makes a
    /// drive that completes every write at once, without consulting the model: a writer
    /// against it is always CPU-bound, which measures the engine's own ceiling. `emu:instant`
    /// alone uses the `960evo-1tb` preset's capacity.
    pub fn open(spec: &str) -> Result<EmulatedDrive> {
        let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
        let instant = parts.contains(&INSTANT);
        let mut rest: Vec<&str> = parts.into_iter().filter(|p| *p != INSTANT).collect();
        if instant && rest.first().is_none_or(|h| h.is_empty() || h.contains('=')) {
            rest.insert(0, "960evo-1tb");
        }
        let model = presets::parse_spec(&rest.join(","))?;
        let mut d = EmulatedDrive::from_model(spec, model);
        d.instant = instant;
        Ok(d)
    }

    /// An emulated drive for a model already built (`spec` is used in its identity).
    pub fn from_model(spec: &str, model: DriveModel) -> EmulatedDrive {
        let state = model.new_state(0);
        EmulatedDrive {
            spec: spec.to_string(),
            instant: false,
            model: Arc::new(model),
            shared: Arc::new(Mutex::new(Shared {
                state,
                free_at: 0.0,
                depth: 0,
                pace: Pace::default(),
                commands: Commands::default(),
            })),
            epoch: Instant::now(),
        }
    }

    /// Identity for reports (model name, capacity, kind "emulated").
    pub fn identity(&self) -> DeviceIdentity {
        DeviceIdentity {
            path: format!("emu:{}", self.spec),
            kind: "emulated".into(),
            model: Some(if self.instant {
                "instant (emulated, completes every write at once)".to_string()
            } else {
                format!("{} (emulated)", self.model.model)
            }),
            serial: None,
            firmware: None,
            capacity_bytes: Some(self.capacity_bytes()),
            logical_block_size: Some(LOGICAL_BLOCK as u32),
            physical_block_size: Some(4096),
        }
    }

    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.model.capacity.0
    }

    /// Direct-I/O alignment the drive demands (its logical block size).
    pub fn alignment(&self) -> u64 {
        LOGICAL_BLOCK
    }

    /// The drive model.
    pub fn model(&self) -> &DriveModel {
        &self.model
    }

    /// What a perfect measurement of this drive would find for `pattern` and `block_size`.
    pub fn truth(&self, pattern: Pattern, block_size: u64) -> Truth {
        self.model.truth(pattern, block_size)
    }

    /// Bytes the drive has written since it was opened.
    pub fn bytes_written(&self) -> u64 {
        self.lock().state.written.round() as u64
    }

    /// The model's own time for the I/Os served since the last [`EmulatedDrive::reset_pace`]
    /// (or since it was opened).
    pub fn pace(&self) -> Pace {
        self.lock().pace
    }

    /// Starts counting [`EmulatedDrive::pace`] afresh (at the start of a measured run, after
    /// its preparation).
    pub fn reset_pace(&self) {
        self.lock().pace = Pace::default();
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic in another job cannot leave the state half-updated in a way that matters
        // for an emulation; keep going with it.
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn now_s(&self) -> f64 {
        self.epoch.elapsed().as_secs_f64()
    }

    /// A backend for one job, with `queue_depth` buffers of `block_size` bytes.
    pub fn backend(
        &self,
        queue_depth: u32,
        block_size: u64,
        pattern: Pattern,
    ) -> Result<Box<dyn Backend>> {
        self.backend_mixed(queue_depth, block_size, pattern, pattern.read_pct(None))
    }

    /// [`EmulatedDrive::backend`] for a workload of `read_pct` percent reads (which sets the
    /// model's mixed-workload penalty). Reads are served as a filled drive would serve them.
    pub fn backend_mixed(
        &self,
        queue_depth: u32,
        block_size: u64,
        pattern: Pattern,
        read_pct: u32,
    ) -> Result<Box<dyn Backend>> {
        if queue_depth == 0 {
            return Err(crate::error::usage("queue depth must be at least 1"));
        }
        if block_size == 0 || !block_size.is_multiple_of(LOGICAL_BLOCK) {
            return Err(crate::error::usage(format!(
                "block size {block_size} is not a multiple of the emulated drive's {LOGICAL_BLOCK}-byte blocks"
            )));
        }
        let bs = usize::try_from(block_size)
            .map_err(|_| crate::error::usage(format!("block size {block_size} is too large")))?;
        self.lock().depth += queue_depth as usize;
        Ok(Box::new(EmuBackend {
            drive: self.clone(),
            pattern,
            mix: read_pct.min(100) as f64 / 100.0,
            block_size,
            queue_depth: queue_depth as usize,
            buffers: (0..queue_depth).map(|_| vec![0u8; bs]).collect(),
            queued: Vec::new(),
            in_flight: BinaryHeap::new(),
            free_since: std::iter::repeat_n(self.now_s(), queue_depth as usize).collect(),
        }))
    }

    /// Applies the idle time since the last write up to now (the model folds its cache while
    /// the drive idles); the next write would do the same.
    fn settle(&self, g: &mut Shared) {
        let now = self.now_s();
        if now > g.free_at {
            g.state.idle(&self.model, now - g.free_at);
            g.free_at = now;
        }
    }

    /// The host discards `bytes` of data (`--trim`): the drive's cache empties and its fill
    /// level drops (see [`DriveState::trim`]).
    pub fn trim(&self, bytes: u64) {
        let mut g = self.lock();
        self.settle(&mut g);
        g.state.trim(&self.model, bytes as f64);
    }

    /// The drive's state now, with the idle time so far applied.
    pub fn state_now(&self) -> DriveState {
        let mut g = self.lock();
        self.settle(&mut g);
        g.state.clone()
    }

    /// What a perfect measurement starting now would find (the cache left now).
    pub fn truth_now(&self, pattern: Pattern, block_size: u64) -> Truth {
        self.state_now().truth_now(&self.model, pattern, block_size)
    }

    /// The drive's temperature now, if the model has a thermal part.
    pub fn temperature_c(&self) -> Option<f64> {
        let now = self.now_s();
        let g = self.lock();
        g.state
            .temp_after_idle(&self.model, now - g.free_at)
            .or(self.model.thermal.as_ref().map(|t| t.ambient_c))
    }

    /// The drive's SMART / Health log now, as an NVMe drive would report it (see
    /// [`health_of`]), with the host's write and read commands and the data read counted
    /// since the drive was opened; the state is taken as if the drive idled since its last
    /// write.
    pub fn health(&self) -> HealthLog {
        let now = self.now_s();
        let g = self.lock();
        let mut state = g.state.clone();
        state.idle(&self.model, now - g.free_at);
        let mut log = health_of(&self.model, &state);
        log.host_write_commands = g.commands.writes as u128;
        log.host_read_commands = g.commands.reads as u128;
        log.data_units_read = (g.commands.bytes_read as u128)
            .div_ceil(512)
            .div_ceil(DATA_UNIT_BYTES as u128 / 512);
        log
    }

    /// Serves one write (or, with `read`, one read) of `len` bytes submitted at `now_s`, part
    /// of a workload of `mix` reads; returns its completion time.
    fn serve(&self, now_s: f64, len: u64, pattern: Pattern, read: bool, mix: f64) -> f64 {
        let m = &*self.model;
        let mut g = self.lock();
        if now_s > g.free_at {
            let gap = now_s - g.free_at;
            g.state.idle(m, gap);
            g.free_at = now_s;
            if g.pace.ios > 0 {
                g.pace.idle_s += gap;
                if gap > MAX_LAG_S {
                    g.pace.long_gaps += 1;
                    g.pace.long_gap_s += gap;
                }
            }
        }
        let load = Load {
            pattern,
            block_size: len,
            in_flight: None,
            read_frac: if read { 1.0 } else { 0.0 },
            mix_read_frac: mix,
        };
        let start = g.free_at;
        let end = g
            .state
            .write(m, &load, start, len as f64, f64::INFINITY, |_| {});
        g.free_at = end;
        let latency = if read { m.read_latency_s } else { m.latency_s };
        let service = end - start;
        let depth = g.depth.max(1) as f64;
        g.pace.bytes += len;
        g.pace.ios += 1;
        if read {
            g.commands.reads += 1;
            g.commands.bytes_read += len;
        } else {
            g.commands.writes += 1;
        }
        g.pace.model_s += service.max((service + latency) / depth);
        end + latency
    }
}

/// The SMART / Health log an emulated drive in `state` reports: data units written from the
/// bytes written (units of 1000 x 512 bytes, rounded up, as NVMe drives count them), the
/// temperature in whole Kelvin (as the log holds it; none without a thermal model), and its
/// throttling as Thermal Management Temperature 1 transitions and time. Wear and errors are
/// those of a new drive.
pub fn health_of(model: &DriveModel, state: &DriveState) -> HealthLog {
    let written = state.written.max(0.0).round() as u128;
    let sectors = written.div_ceil(512);
    HealthLog {
        temperature_c: model
            .thermal
            .as_ref()
            .map(|_| crate::health::celsius_from_kelvin((state.temp_c + 273.15).round())),
        available_spare_pct: 100,
        available_spare_threshold_pct: 10,
        data_units_written: sectors.div_ceil(DATA_UNIT_BYTES as u128 / 512),
        thermal_mgmt_t1_transitions: state.throttle_transitions.min(u32::MAX as u64) as u32,
        thermal_mgmt_t1_time_s: state.throttle_time_s.max(0.0).min(u32::MAX as f64) as u32,
        ..HealthLog::default()
    }
}

/// A write in flight: (completion time in ns since the epoch, user data, result, the model's
/// latency for it in ns: from entering the model's queue to completing).
type InFlight = Reverse<(u64, u64, i32, u64)>;

struct EmuBackend {
    drive: EmulatedDrive,
    pattern: Pattern,
    /// Read share of the workload (for the mixed-workload penalty).
    mix: f64,
    block_size: u64,
    queue_depth: usize,
    buffers: Vec<Vec<u8>>,
    /// Queued I/Os, with true for a read.
    queued: Vec<(WriteOp, bool)>,
    in_flight: BinaryHeap<InFlight>,
    /// The model times (seconds) at which the reaped I/Os completed, earliest first, one per
    /// free place in the queue: a new I/O takes the earliest and enters the model's queue no
    /// earlier.
    free_since: VecDeque<f64>,
}

impl Drop for EmuBackend {
    fn drop(&mut self) {
        let mut g = self.drive.lock();
        g.depth = g.depth.saturating_sub(self.queue_depth);
    }
}

impl EmuBackend {
    fn check(&self, op: &WriteOp) -> Result<(), i32> {
        let cap = self.drive.capacity_bytes();
        let len = op.len as u64;
        if op.buf >= self.buffers.len() || len > self.block_size {
            return Err(-libc::EINVAL);
        }
        if len == 0
            || !op.offset.is_multiple_of(LOGICAL_BLOCK)
            || !len.is_multiple_of(LOGICAL_BLOCK)
        {
            return Err(-libc::EINVAL);
        }
        if op.offset.checked_add(len).is_none_or(|end| end > cap) {
            return Err(-libc::ENOSPC);
        }
        Ok(())
    }

    fn collect_due(&mut self, now_ns: u64, out: &mut Vec<Completion>) -> usize {
        let mut n = 0;
        while let Some(Reverse((t, ud, res, lat))) = self.in_flight.peek().copied() {
            if t > now_ns {
                break;
            }
            self.in_flight.pop();
            self.free_since.push_back(t as f64 / 1e9);
            out.push(Completion {
                user_data: ud,
                result: res,
                latency: Some(Duration::from_nanos(lat)),
            });
            n += 1;
        }
        n
    }
}

fn to_ns(s: f64) -> u64 {
    (s.max(0.0) * 1e9).round() as u64
}

impl Backend for EmuBackend {
    fn name(&self) -> &'static str {
        "emulated"
    }

    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        &mut self.buffers[idx]
    }

    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        if self.queued.len() + self.in_flight.len() >= self.queue_depth {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "emulated drive: more writes pushed than the queue depth",
            ));
        }
        self.queued.push((op, false));
        Ok(())
    }

    fn push_read(&mut self, op: WriteOp) -> io::Result<()> {
        self.push(op)?;
        if let Some(last) = self.queued.last_mut() {
            last.1 = true;
        }
        Ok(())
    }

    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        if self.drive.instant {
            // The engine's ceiling: everything queued is done now, nothing is timed.
            for i in 0..self.queued.len() {
                let (op, _read) = self.queued[i];
                let res = match self.check(&op) {
                    Ok(()) => op.len as i32,
                    Err(e) => e,
                };
                out.push(Completion {
                    user_data: op.user_data,
                    result: res,
                    latency: None,
                });
            }
            self.queued.clear();
            return Ok(());
        }
        let now = self.drive.now_s();
        for (op, read) in std::mem::take(&mut self.queued) {
            let (at, done, res) = match self.check(&op) {
                Ok(()) => {
                    // As if the writer had resubmitted when a place in the queue came free,
                    // but the model's clock never more than MAX_LAG_S behind the wall clock.
                    let free = self.free_since.pop_front().unwrap_or(now);
                    let at = (now - MAX_LAG_S).max(free).min(now);
                    let done = self
                        .drive
                        .serve(at, op.len as u64, self.pattern, read, self.mix);
                    (at, done, op.len as i32)
                }
                Err(e) => {
                    self.free_since.pop_front();
                    (now, now, e)
                }
            };
            self.in_flight
                .push(Reverse((to_ns(done), op.user_data, res, to_ns(done - at))));
        }
        let deadline = to_ns(now).saturating_add(timeout.as_nanos().min(u64::MAX as u128) as u64);
        let mut got = self.collect_due(to_ns(self.drive.now_s()), out);
        while got < min_complete && !self.in_flight.is_empty() {
            // Sleep until the write that makes `min_complete` is done, or the timeout.
            let need = (min_complete - got).min(self.in_flight.len());
            let mut times: Vec<u64> = self.in_flight.iter().map(|r| r.0 .0).collect();
            let (_, kth, _) = times.select_nth_unstable(need - 1);
            let wake = (*kth).min(deadline);
            let now_ns = to_ns(self.drive.now_s());
            if wake > now_ns {
                std::thread::sleep(Duration::from_nanos(wake - now_ns));
            }
            let now_ns = to_ns(self.drive.now_s());
            got += self.collect_due(now_ns, out);
            if now_ns >= deadline {
                break;
            }
        }
        if got < min_complete && self.in_flight.is_empty() {
            // Nothing left that could complete: io_uring would wait for the timeout; do so too
            // (so a caller's loop does not spin), but never longer than a second.
            let now_ns = to_ns(self.drive.now_s());
            if deadline > now_ns && !timeout.is_zero() {
                std::thread::sleep(Duration::from_nanos((deadline - now_ns).min(1_000_000_000)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read run's emulation that fell short said it fell short "for the same writes", and
    /// gave decimal MB/s under --units binary.
    #[test]
    fn the_shortfall_says_what_the_run_did_in_its_units() {
        let pace = Pace {
            bytes: 2_000_000_000,
            ios: 15_000,
            model_s: 1.0,
            idle_s: 2.5,
            long_gaps: 3,
            long_gap_s: 1.5,
        };
        let w =
            shortfall_warning(1e9, 4.0, &pace, "reads", crate::units::UnitSystem::Binary).unwrap();
        assert!(
            w.contains("for the same reads at the same queue depth"),
            "{w}"
        );
        assert!(
            w.contains("954 MiB/s achieved where the model gives 1907 MiB/s"),
            "{w}"
        );
        assert!(!w.contains("writes") && !w.contains("MB/s"), "{w}");
        assert_eq!(
            shortfall_warning(
                1.95e9,
                1.0,
                &pace,
                "writes",
                crate::units::UnitSystem::Decimal
            ),
            None
        );
    }

    fn run(drive: &EmulatedDrive, qd: u32, bs: u64, total: u64) -> (Vec<(f64, u64)>, f64) {
        let mut be = drive.backend(qd, bs, Pattern::Seqwrite).unwrap();
        let start = Instant::now();
        let mut next_off = 0u64;
        let mut in_flight = 0usize;
        let mut written = 0u64;
        let mut submitted = 0u64;
        let mut out = Vec::new();
        let mut trace = Vec::new();
        while written < total {
            while in_flight < qd as usize && submitted < total {
                be.push(WriteOp {
                    offset: next_off,
                    len: bs as u32,
                    buf: in_flight,
                    user_data: next_off,
                })
                .unwrap();
                next_off += bs;
                submitted += bs;
                in_flight += 1;
            }
            out.clear();
            be.submit_and_wait(1, Duration::from_millis(100), &mut out)
                .unwrap();
            for c in &out {
                assert_eq!(c.result, bs as i32);
                written += bs;
                in_flight -= 1;
            }
            trace.push((start.elapsed().as_secs_f64(), written));
        }
        (trace, start.elapsed().as_secs_f64())
    }

    #[test]
    fn completes_writes_and_counts_bytes() {
        let m = presets::parse_spec(
            "960evo-250g,cache=64MB,in=1GB/s,after=250MB/s,noise=0,dips=0,recover_delay=1h",
        )
        .unwrap();
        let drive = EmulatedDrive::from_model("test", m);
        let (_, elapsed) = run(&drive, 8, 1 << 20, 96 << 20);
        assert_eq!(drive.bytes_written(), 96 << 20);
        // At least the model's time: 64 MB at 1 GB/s plus the rest at 250 MB/s. The bound is
        // a lower one only: sleeping never completes a write early.
        let model_s = 64e6 / 1e9 + ((96u64 << 20) as f64 - 64e6) / 250e6;
        assert!(elapsed >= model_s * 0.99, "{elapsed} < {model_s}");
    }

    /// The emulated SMART log counted data units written but no host write commands (78,126
    /// data units and 0 commands after 38,147 writes): every write and read is a command.
    #[test]
    fn the_smart_log_counts_every_write_command() {
        let m = presets::parse_spec(
            "960evo-250g,cache=64MB,in=2GB/s,after=500MB/s,noise=0,dips=0,recover_delay=1h",
        )
        .unwrap();
        let drive = EmulatedDrive::from_model("commands", m);
        run(&drive, 4, 128 << 10, 12 << 20);
        let h = drive.health();
        assert_eq!(h.host_write_commands, 96, "12 MiB in 128 KiB writes");
        assert_eq!(h.host_read_commands, 0);
        assert_eq!(h.data_units_read, 0);
        assert_eq!(h.data_units_written, (12u128 << 20).div_ceil(512_000));
    }

    /// At QD1 an emulated drive's writes read as taking about a microsecond (33k IOPS with a
    /// p50 of 1 µs, where Little's law gives about 30 µs): the model's clock runs up to half a
    /// millisecond behind the wall clock, so most writes were done in model time before they
    /// were reaped. Each completion now carries the model's own latency.
    #[test]
    fn qd1_latency_is_the_model_s_time_per_write() {
        use crate::engine::job::{run_job, JobShared};
        use crate::engine::offsets::OffsetGen;
        use crate::sampler::{Clock, MonotonicClock, Sampler};
        let m = presets::parse_spec(
            "960evo-250g,cache=1GB,in=500MB/s,after=250MB/s,noise=0,dips=0,recover_delay=1h",
        )
        .unwrap();
        let per_write_s = 4096.0 / 500e6 + m.latency_s;
        let drive = EmulatedDrive::from_model("qd1", m);
        let mut be = drive.backend(1, 4096, Pattern::Seqwrite).unwrap();
        let shared = JobShared::new(OffsetGen::new(Pattern::Seqwrite, 4096, 20_000, 3), 5_000, 3);
        let sampler = Sampler::new(
            MonotonicClock::new(Instant::now()),
            Duration::from_secs(3600),
            1,
        );
        assert_eq!(run_job(0, &mut *be, 1, &shared, &sampler), 5_000);
        let rows = sampler.finish(sampler.clock().now(), None);
        let p50_s = rows[0].lat_p50_us.unwrap() / 1e6;
        assert!(
            p50_s > 0.8 * per_write_s && p50_s < 1.5 * per_write_s,
            "p50 {:.1} us against the model's {:.1} us per write",
            p50_s * 1e6,
            per_write_s * 1e6
        );
    }

    #[test]
    fn jobs_share_one_drive_state() {
        let m =
            presets::parse_spec("960evo-250g,cache=40MB,in=2GB/s,after=500MB/s,recover_delay=1h")
                .unwrap();
        let drive = EmulatedDrive::from_model("shared", m);
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let d = drive.clone();
                std::thread::spawn(move || run(&d, 4, 1 << 20, 20 << 20))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // 60 MiB written by three jobs: the one 40 MB cache was used up once, by all of them.
        assert_eq!(drive.bytes_written(), 60 << 20);
        let g = drive.lock();
        assert_eq!(g.state.phase(drive.model()), crate::model::Phase::Direct);
        assert!((g.state.direct - ((60u64 << 20) as f64 - 40e6)).abs() < 1.0);
    }

    #[test]
    fn cache_comes_back_after_idling() {
        let m = presets::parse_spec(
            "960evo-250g,cache=40MB,in=2GB/s,after=500MB/s,recover=10GB/s,recover_delay=1s",
        )
        .unwrap();
        let drive = EmulatedDrive::from_model("idle", m);
        run(&drive, 4, 1 << 20, 60 << 20);
        assert_eq!(
            drive.lock().state.phase(drive.model()),
            crate::model::Phase::Direct
        );
        // Idle for longer than the delay plus the folding time (40 MB at 10 GB/s).
        std::thread::sleep(Duration::from_millis(1100));
        run(&drive, 1, 1 << 20, 1 << 20);
        let g = drive.lock();
        assert_eq!(g.state.phase(drive.model()), crate::model::Phase::Cache);
        assert!((g.state.slc_used - (1u64 << 20) as f64).abs() < 1.0);
    }

    #[test]
    fn zero_and_endless_timeouts() {
        let m = presets::parse_spec("960evo-250g,cache=10MB").unwrap();
        let drive = EmulatedDrive::from_model("t", m);
        let mut be = drive.backend(2, 1 << 20, Pattern::Seqwrite).unwrap();
        let mut out = Vec::new();
        // Nothing in flight, zero timeout: returns at once with nothing.
        be.submit_and_wait(1, Duration::ZERO, &mut out).unwrap();
        assert!(out.is_empty());
        be.push(WriteOp {
            offset: 0,
            len: 1 << 20,
            buf: 0,
            user_data: 9,
        })
        .unwrap();
        // An endless timeout waits for the write, and only for it.
        be.submit_and_wait(1, Duration::MAX, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].user_data, 9);
    }

    #[test]
    fn bad_writes_fail_like_a_drive() {
        let m = presets::parse_spec("960evo-250g,capacity=1MB,cache=0").unwrap();
        let drive = EmulatedDrive::from_model("t", m);
        let mut be = drive.backend(2, 4096, Pattern::Randwrite).unwrap();
        be.push(WriteOp {
            offset: 999_424,
            len: 4096,
            buf: 0,
            user_data: 1,
        })
        .unwrap();
        be.push(WriteOp {
            offset: 100,
            len: 4096,
            buf: 1,
            user_data: 2,
        })
        .unwrap();
        let mut out = Vec::new();
        be.submit_and_wait(2, Duration::from_secs(5), &mut out)
            .unwrap();
        out.sort_by_key(|c| c.user_data);
        assert_eq!(out[0].result, -libc::ENOSPC);
        assert_eq!(out[1].result, -libc::EINVAL);
        assert!(drive.backend(1, 1000, Pattern::Randwrite).is_err());
    }

    #[test]
    fn identity_and_temperature() {
        let d = EmulatedDrive::open("p5-1tb").unwrap();
        let id = d.identity();
        assert_eq!(id.kind, "emulated");
        assert_eq!(id.capacity_bytes, Some(1_000_000_000_000));
        assert!(id.model.unwrap().contains("P5"));
        assert_eq!(d.temperature_c(), Some(50.0));
        assert_eq!(
            EmulatedDrive::open("960evo-1tb").unwrap().temperature_c(),
            None
        );
        let e = EmulatedDrive::open("nope").unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
    }
}
