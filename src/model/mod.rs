//! Drive models: emulated SSDs with an SLC cache whose truth is known.
//!
//! A [`DriveModel`] describes a drive in SI units (bytes, bytes per second, seconds, degrees
//! Celsius). A [`DriveState`] is one drive's mutable state: how much of the SLC cache is used,
//! how much was written past it, the temperature. One function, [`DriveState::write`], advances
//! the state while the drive writes; the real-time emulated backend
//! ([`crate::engine::emulated`]) calls it once per write, the virtual-time simulator
//! ([`crate::commands::simulate`]) once per sampling interval, so the two agree.
//!
//! # What the model does
//!
//! - **Cache.** The SLC cache has a static part and a dynamic part. The dynamic part shrinks
//!   linearly with the fill level of the drive and is gone at [`DriveModel::dynamic_until`]:
//!   `cache(fill) = static + dynamic * max(0, 1 - fill / dynamic_until)`. The size is fixed
//!   for one burst (it is what the drive had free when the burst began) and is evaluated again
//!   after the drive has idled, at the fill level reached by then.
//! - **Phases.** Writes go into the cache at the in-cache rate until the cache is full
//!   ([`Phase::Cache`]), then straight to TLC/QLC at the post-cache rate ([`Phase::Direct`]),
//!   and, if [`DriveModel::fold_after`] is set, after that many further bytes at the slower
//!   folding rate ([`Phase::Folding`]). The switches happen at exact byte counts: the truth
//!   ([`DriveModel::truth`]) is what a perfect detector would report.
//! - **Rates.** Sequential and random writes have their own rates in and after the cache; an
//!   IOPS limit caps small blocks (`rate = min(bandwidth, iops * block size)`), which is why a
//!   4K random write inside the cache is slower than a sequential one. The limit holds after
//!   the cache too (a lower `iops_after` can tighten it there), so at small blocks the cap
//!   can make the rates in and after the cache equal: it hides the cache
//!   ([`Truth::iops_hides_cache`]).
//! - **Latency and queue depth.** Each write occupies a single FIFO server for `len / rate`
//!   seconds and completes a fixed [`DriveModel::latency_s`] after its service ends:
//!   `done = max(now, server_free) + len / rate + latency`. Latency therefore grows with the
//!   queue depth, and a shallow queue cannot keep the drive busy: with `n` writes in flight
//!   the throughput is `min(rate, n * bs / (latency + bs / rate))` ([`closed_loop_rate`]).
//! - **Noise.** The rate is multiplied by a log-normal factor with mean 1 that is constant over
//!   slots of [`NOISE_SLOT_S`] seconds, and, outside the cache, by [`DriveModel::dip_depth`]
//!   during random garbage-collection dips. Both are functions of the seed and the time only,
//!   so every caller sees the same drive.
//! - **Idle recovery.** After [`DriveModel::recover_delay_s`] seconds without writes, the drive
//!   folds its SLC contents in the background at [`DriveModel::recover`] bytes/s; the cache
//!   comes back and the folding backlog drains at that rate.
//! - **Reads** ([`DriveModel::read_rate`]): sequential and random read bandwidth, a read IOPS
//!   limit and a read latency of their own. Reads do not touch the SLC cache and read as a
//!   filled drive would (the model keeps no map of written blocks). A mix of reads and writes
//!   time-shares the drive (`1 / rate = f / read + (1 - f) / write` for a read share `f`) and
//!   loses [`DriveModel::mix_penalty`] of that at a 50/50 mix (`x 1 - penalty * 4f(1-f)`):
//!   the bathtub AnandTech's mixed tests show. With the IOPS limits, this gives the IOPS
//!   ceiling a queue-depth sweep finds ([`Truth::iops_limit`]).
//! - **Temperature** (optional, [`Thermal`]): first-order heating in proportion to the
//!   throughput, cooling towards ambient with a time constant; above the throttle temperature
//!   the rate is cut to a fraction until the drive has cooled by a few degrees.

pub mod presets;

use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Rate};
use crate::workload::Pattern;

/// Length of a noise slot in seconds: the noise factor is constant within one.
pub const NOISE_SLOT_S: f64 = 0.1;

/// Length of a dip slot in seconds: each slot starts at most one garbage-collection dip.
pub const DIP_SLOT_S: f64 = 1.0;

/// Optional thermal model: heating with the throughput, cooling to ambient, throttling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thermal {
    /// Ambient temperature and the temperature at the start, °C.
    pub ambient_c: f64,
    /// Heating: degrees per gigabyte (10^9 bytes) written, °C/GB. At a steady throughput of
    /// `r` GB/s the drive settles at `ambient + heat * r * tau`.
    pub heat_c_per_gb: f64,
    /// Cooling time constant, seconds.
    pub tau_s: f64,
    /// Temperature at which the drive starts to throttle, °C.
    pub throttle_c: f64,
    /// Fraction of the rate left while throttled (0 < f <= 1).
    pub throttle_factor: f64,
    /// The drive stops throttling once it has cooled this many degrees below `throttle_c`.
    pub hysteresis_c: f64,
}

impl Default for Thermal {
    fn default() -> Self {
        Thermal {
            ambient_c: 40.0,
            heat_c_per_gb: 0.1,
            tau_s: 300.0,
            throttle_c: 75.0,
            throttle_factor: 0.5,
            hysteresis_c: 3.0,
        }
    }
}

/// A drive: its cache, its rates, its latency, noise, recovery and temperature. SI units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveModel {
    /// Short name, e.g. `960evo-500g`.
    pub name: String,
    /// Full name for reports, e.g. "Samsung SSD 960 EVO 500GB".
    pub model: String,
    /// Where the figures come from (the row(s) of `published-drives.csv`).
    pub source: String,
    /// User capacity.
    pub capacity: Bytes,
    /// Static part of the SLC cache.
    pub static_cache: Bytes,
    /// Dynamic part of the SLC cache on an empty drive.
    pub dynamic_cache: Bytes,
    /// Fill level (0..=1) at which the dynamic part is gone.
    pub dynamic_until: f64,
    /// Fill level (0..=1) of the drive at the start (data already on it).
    pub fill: f64,
    /// Sequential write rate inside the cache.
    pub seq_in: Rate,
    /// Sequential write rate after the cache (direct to TLC/QLC).
    pub seq_after: Rate,
    /// Random write rate inside the cache (bandwidth; see also `iops_in`).
    pub rand_in: Rate,
    /// Random write rate after the cache.
    pub rand_after: Rate,
    /// Write IOPS limit of the drive, if any (caps small blocks in every phase).
    pub iops_in: Option<f64>,
    /// A lower write IOPS limit after the cache, if any (it cannot raise `iops_in` there).
    pub iops_after: Option<f64>,
    /// Bytes written after the cache ran out before the folding phase begins; `None`: no
    /// folding phase.
    pub fold_after: Option<Bytes>,
    /// Write rate in the folding phase (random writes: the smaller of this and `rand_after`).
    pub fold: Rate,
    /// Fixed part of each write's latency, seconds (command overhead, not occupying the drive).
    pub latency_s: f64,
    /// Standard deviation of the log of the noise factor per noise slot (0.05 is 5%).
    pub noise: f64,
    /// Garbage-collection dips per minute, outside the cache.
    pub dips_per_min: f64,
    /// Fraction of the rate left during a dip (0 < d <= 1).
    pub dip_depth: f64,
    /// Length of a dip, seconds.
    pub dip_len_s: f64,
    /// Idle folding rate: how fast the cache comes back while the drive idles.
    pub recover: Rate,
    /// Seconds without writes before idle folding starts.
    pub recover_delay_s: f64,
    /// Thermal model, if any.
    pub thermal: Option<Thermal>,
    /// Seed of the noise and the dips.
    pub seed: u64,
    /// Sequential read rate.
    pub seq_read: Rate,
    /// Random read rate (bandwidth; see also `read_iops`).
    pub rand_read: Rate,
    /// Read IOPS limit, if any (caps small blocks).
    pub read_iops: Option<f64>,
    /// Fixed part of each read's latency, seconds (the NAND page read).
    pub read_latency_s: f64,
    /// Fraction of the time-shared rate lost at a 50/50 read/write mix (0..1).
    pub mix_penalty: f64,
    /// Where the read figures come from, or that they are assumed.
    pub read_source: String,
    /// The link the drive sits on (`sata-6g`, `usb-10g`, `pcie3x4`: see
    /// [`crate::link::Link::parse`]): its usable rate caps every rate of the drive, as a real
    /// link does. None: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// Which phase the drive is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Writing into the SLC cache.
    Cache,
    /// Cache full: writing directly to TLC/QLC.
    Direct,
    /// The slower folding phase after `fold_after` more bytes.
    Folding,
}

/// What a perfect measurement of a fresh drive would find, from the model alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    /// Bytes written when the cache runs out (0: no cache).
    pub cache_bytes: u64,
    /// Bytes written when the folding phase begins, if the model has one.
    pub folding_starts_at_bytes: Option<u64>,
    /// Noise-free rate in the cache for the workload, bytes/s (before queue-depth effects).
    pub in_cache_bytes_per_sec: f64,
    /// Noise-free rate after the cache, bytes/s.
    pub after_cache_bytes_per_sec: f64,
    /// Noise-free rate in the folding phase, bytes/s, if any.
    pub folding_bytes_per_sec: Option<f64>,
    /// Percentage of reads in the workload.
    pub read_pct: u32,
    /// The IOPS ceiling in the cache (noise-free rate / block size): what a queue-depth sweep
    /// finds at its deepest queues.
    pub iops_limit: f64,
    /// IOPS with one I/O in flight: `1 / (latency + block / rate)`.
    pub qd1_iops: f64,
    /// The drive's write IOPS limit hides its cache at this block size: the rates in and after
    /// the cache differ by less than the smallest step the detector takes for a change (about
    /// 10%), and without the limit they would differ by more. No run of this workload can see
    /// the cache run out. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub iops_hides_cache: bool,
}

impl Truth {
    /// The truth line's words for the cache where the IOPS limit hides it: `cache 13.0 GB,
    /// hidden by the drive's IOPS limit at this block size: 300 MB/s in and after it`; `None`
    /// where it does not.
    pub fn iops_hidden_text(&self, units: crate::units::UnitSystem) -> Option<String> {
        self.iops_hides_cache.then(|| {
            let (a, b) = (self.in_cache_bytes_per_sec, self.after_cache_bytes_per_sec);
            let rates =
                if crate::units::format_rate(a, units) == crate::units::format_rate(b, units) {
                    format!("{} in and after it", crate::units::format_rate(a, units))
                } else {
                    format!(
                        "{} in it, {} after it",
                        crate::units::format_rate(a, units),
                        crate::units::format_rate(b, units)
                    )
                };
            format!(
                "cache {}, hidden by the drive's IOPS limit at this block size: {rates}",
                crate::units::format_bytes(self.cache_bytes as f64, units)
            )
        })
    }
}

/// The load a caller puts on the drive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    /// Random or sequential.
    pub pattern: Pattern,
    /// Bytes per write.
    pub block_size: u64,
    /// Writes kept in flight in a closed loop (virtual time), or `None` when the caller
    /// queues writes itself on the FIFO server (real time): then the raw server rate is used.
    pub in_flight: Option<u32>,
    /// Share of this load's bytes that are reads (0: writes only, 1: reads only).
    pub read_frac: f64,
    /// Read share of the whole workload this load is part of; sets the mixed-workload
    /// penalty (a single write of a 50/50 stream is slowed like the stream).
    pub mix_read_frac: f64,
}

impl Load {
    /// The load of a workload of `pattern` with `read_pct` percent reads.
    pub fn new(pattern: Pattern, block_size: u64, in_flight: Option<u32>, read_pct: u32) -> Load {
        let f = read_pct.min(100) as f64 / 100.0;
        Load {
            pattern,
            block_size,
            in_flight,
            read_frac: f,
            mix_read_frac: f,
        }
    }
}

/// A stretch of writing at one constant rate, reported by [`DriveState::write`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Start, seconds.
    pub t_s: f64,
    /// Length, seconds.
    pub dt_s: f64,
    /// Bytes written in it.
    pub bytes: f64,
    /// The rate, bytes/s.
    pub rate: f64,
    /// The phase.
    pub phase: Phase,
}

/// Throughput of a closed loop that keeps `in_flight` writes of `block_size` bytes on a FIFO
/// server of `rate` bytes/s with a fixed extra latency `latency_s` per write:
/// `min(rate, n * bs / (latency + bs / rate))`.
pub fn closed_loop_rate(rate: f64, block_size: u64, in_flight: u32, latency_s: f64) -> f64 {
    if rate <= 0.0 {
        return 0.0;
    }
    let bs = block_size.max(1) as f64;
    let n = in_flight.max(1) as f64;
    rate.min(n * bs / (latency_s + bs / rate))
}

impl DriveModel {
    /// The cache size at fill level `fill` (0..=1), bytes.
    pub fn cache_at_fill(&self, fill: f64) -> f64 {
        let dyn_left = if self.dynamic_until > 0.0 {
            (1.0 - fill / self.dynamic_until).clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.static_cache.as_f64() + self.dynamic_cache.as_f64() * dyn_left
    }

    /// Total cache of an empty drive (static + dynamic), bytes.
    pub fn cache_empty(&self) -> u64 {
        self.static_cache.0 + self.dynamic_cache.0
    }

    /// The noise-free write rate in `phase` for the access order of `pattern` (random or
    /// sequential) and `block_size`, bytes/s.
    pub fn write_rate(&self, phase: Phase, pattern: Pattern, block_size: u64) -> f64 {
        let random = pattern.is_random();
        let after = self.iops_after_cache();
        let (bw, iops) = match (phase, random) {
            (Phase::Cache, false) => (self.seq_in.0, self.iops_in),
            (Phase::Cache, true) => (self.rand_in.0, self.iops_in),
            (Phase::Direct, false) => (self.seq_after.0, after),
            (Phase::Direct, true) => (self.rand_after.0, after),
            (Phase::Folding, false) => (self.fold.0, after),
            (Phase::Folding, true) => (self.fold.0.min(self.rand_after.0), after),
        };
        let r = match iops {
            Some(i) => bw.min(i * block_size as f64),
            None => bw,
        };
        r.min(self.link_cap())
    }

    /// The IOPS limit after the cache: the drive's limit ([`DriveModel::iops_in`]) holds in
    /// every phase, and [`DriveModel::iops_after`] can only lower it there. So a small block
    /// never writes faster after the cache than in it from the IOPS cap alone.
    pub fn iops_after_cache(&self) -> Option<f64> {
        match (self.iops_in, self.iops_after) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The usable rate of the drive's link ([`DriveModel::link`]), bytes/s; infinite without
    /// one (or with one that does not parse, which [`DriveModel::validate`] refuses).
    pub fn link_cap(&self) -> f64 {
        self.link_info()
            .map(|l| l.usable_bytes_per_sec)
            .unwrap_or(f64::INFINITY)
    }

    /// The drive's link, parsed.
    pub fn link_info(&self) -> Option<crate::link::Link> {
        crate::link::Link::parse(self.link.as_deref()?).ok()
    }

    /// The noise-free read rate for the access order of `pattern` and `block_size`, bytes/s.
    /// Reads do not depend on the cache phase.
    pub fn read_rate(&self, pattern: Pattern, block_size: u64) -> f64 {
        let bw = if pattern.is_random() {
            self.rand_read.0
        } else {
            self.seq_read.0
        };
        let r = match self.read_iops {
            Some(i) => bw.min(i * block_size as f64),
            None => bw,
        };
        r.min(self.link_cap())
    }

    /// The factor left by the mixed-workload penalty for a read share `mix` (1 for pure
    /// reads or writes, `1 - mix_penalty` at 50/50).
    pub fn mix_factor(&self, mix: f64) -> f64 {
        let f = mix.clamp(0.0, 1.0);
        (1.0 - self.mix_penalty * 4.0 * f * (1.0 - f)).max(0.01)
    }

    /// The noise-free rate (reads and writes together) in `phase` for a load of `read_frac`
    /// reads that is part of a workload of `mix` reads, bytes/s.
    pub fn mixed_rate(
        &self,
        phase: Phase,
        pattern: Pattern,
        block_size: u64,
        read_frac: f64,
        mix: f64,
    ) -> f64 {
        let f = read_frac.clamp(0.0, 1.0);
        let w = self.write_rate(phase, pattern, block_size);
        let r = self.read_rate(pattern, block_size);
        let shared = if f <= 0.0 {
            w
        } else if f >= 1.0 {
            r
        } else if w <= 0.0 || r <= 0.0 {
            0.0
        } else {
            1.0 / (f / r + (1.0 - f) / w)
        };
        shared * self.mix_factor(mix)
    }

    /// The noise-free rate in `phase` for `pattern` (at its default read share) and
    /// `block_size`, bytes/s. Everything else multiplies a rate like this one by noise, dips
    /// and throttling.
    pub fn base_rate(&self, phase: Phase, pattern: Pattern, block_size: u64) -> f64 {
        let f = pattern.read_pct(None) as f64 / 100.0;
        self.mixed_rate(phase, pattern, block_size, f, f)
    }

    /// The fixed latency of an I/O of a load with `read_frac` reads, seconds (the mean of
    /// the read and write latencies, weighted by the share).
    pub fn latency_for(&self, read_frac: f64) -> f64 {
        let f = read_frac.clamp(0.0, 1.0);
        f * self.read_latency_s + (1.0 - f) * self.latency_s
    }

    /// What a perfect measurement of this drive from its starting state would find for a
    /// workload of `pattern` and `block_size`.
    pub fn truth(&self, pattern: Pattern, block_size: u64) -> Truth {
        self.truth_mixed(pattern, block_size, pattern.read_pct(None))
    }

    /// [`DriveModel::truth`] for a workload with `read_pct` percent reads.
    pub fn truth_mixed(&self, pattern: Pattern, block_size: u64, read_pct: u32) -> Truth {
        let cache = self.cache_at_fill(self.fill).round() as u64;
        let f = read_pct.min(100) as f64 / 100.0;
        let rate = |p: Phase| self.mixed_rate(p, pattern, block_size, f, f);
        let bs = block_size.max(1) as f64;
        let in_cache = rate(Phase::Cache);
        let after = rate(Phase::Direct);
        // The rates without the write IOPS limit: a cliff the limit flattens.
        let mut free = self.clone();
        (free.iops_in, free.iops_after) = (None, None);
        let free_rate = |p: Phase| free.mixed_rate(p, pattern, block_size, f, f);
        let step = |a: f64, b: f64| {
            if a > 0.0 && b > 0.0 {
                (a / b).ln()
            } else {
                0.0
            }
        };
        let min = crate::detect::MIN_STEP;
        let iops_hides_cache = cache > 0
            && read_pct < 100
            && step(in_cache, after) < min
            && step(free_rate(Phase::Cache), free_rate(Phase::Direct)) >= min;
        Truth {
            cache_bytes: cache,
            folding_starts_at_bytes: self.fold_after.map(|f| cache + f.0),
            in_cache_bytes_per_sec: in_cache,
            after_cache_bytes_per_sec: after,
            folding_bytes_per_sec: self.fold_after.map(|_| rate(Phase::Folding)),
            read_pct: read_pct.min(100),
            iops_limit: in_cache / bs,
            qd1_iops: closed_loop_rate(in_cache, block_size, 1, self.latency_for(f)) / bs,
            iops_hides_cache,
        }
    }

    /// Checks that every field is in range; the message names the override key.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(l) = &self.link {
            crate::link::Link::parse(l)?;
        }
        let frac = |v: f64, k: &str, lo_open: bool| -> Result<(), String> {
            let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
            if ok {
                Ok(())
            } else if lo_open {
                Err(format!(
                    "{k} must be a fraction above 0 and at most 1, got {v}"
                ))
            } else {
                Err(format!("{k} must be a fraction from 0 to 1, got {v}"))
            }
        };
        let pos = |v: f64, k: &str| -> Result<(), String> {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{k} must be above zero, got {v}"))
            }
        };
        let nonneg = |v: f64, k: &str| -> Result<(), String> {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{k} must be zero or more, got {v}"))
            }
        };
        if self.capacity.0 == 0 {
            return Err("capacity must be above zero".into());
        }
        if self.cache_empty() > self.capacity.0 {
            // In the units a size is given in; in bytes where those round alike.
            let d = crate::units::UnitSystem::Decimal;
            let (mut cache, mut cap) = (
                crate::units::format_bytes(self.cache_empty() as f64, d),
                crate::units::format_bytes(self.capacity.0 as f64, d),
            );
            if cache == cap {
                cache = format!("{} bytes", self.cache_empty());
                cap = format!("{} bytes", self.capacity.0);
            }
            return Err(format!(
                "the cache ({cache}) is larger than the capacity ({cap})"
            ));
        }
        frac(self.dynamic_until, "dyn_until", true)?;
        frac(self.fill, "fill", false)?;
        pos(self.seq_in.0, "in")?;
        pos(self.seq_after.0, "after")?;
        pos(self.rand_in.0, "rand_in")?;
        pos(self.rand_after.0, "rand_after")?;
        if let Some(i) = self.iops_in {
            pos(i, "iops")?;
        }
        if let Some(i) = self.iops_after {
            pos(i, "iops_after")?;
        }
        pos(self.fold.0, "fold")?;
        nonneg(self.latency_s, "lat")?;
        pos(self.seq_read.0, "read")?;
        pos(self.rand_read.0, "rand_read")?;
        if let Some(i) = self.read_iops {
            pos(i, "read_iops")?;
        }
        nonneg(self.read_latency_s, "read_lat")?;
        if !(self.mix_penalty.is_finite() && (0.0..0.99).contains(&self.mix_penalty)) {
            return Err(format!(
                "mix_penalty must be from 0 to below 0.99, got {}",
                self.mix_penalty
            ));
        }
        if !(self.noise.is_finite() && (0.0..=1.0).contains(&self.noise)) {
            return Err(format!("noise must be from 0 to 1, got {}", self.noise));
        }
        nonneg(self.dips_per_min, "dips")?;
        if self.dips_per_min > 60.0 {
            return Err(format!(
                "dips must be at most 60 per minute, got {}",
                self.dips_per_min
            ));
        }
        frac(self.dip_depth, "dip_depth", true)?;
        nonneg(self.dip_len_s, "dip_len")?;
        pos(self.recover.0, "recover")?;
        nonneg(self.recover_delay_s, "recover_delay")?;
        if let Some(th) = &self.thermal {
            if !th.ambient_c.is_finite() {
                return Err("ambient must be a temperature in °C".into());
            }
            nonneg(th.heat_c_per_gb, "heat")?;
            pos(th.tau_s, "cool")?;
            if !(th.throttle_c.is_finite() && th.throttle_c > th.ambient_c) {
                return Err(format!(
                    "throttle_at ({} °C) must be above ambient ({} °C)",
                    th.throttle_c, th.ambient_c
                ));
            }
            frac(th.throttle_factor, "throttle", true)?;
            nonneg(th.hysteresis_c, "hysteresis")?;
        }
        Ok(())
    }

    /// A fresh state for this model, with noise seeded by `self.seed ^ extra_seed`.
    pub fn new_state(&self, extra_seed: u64) -> DriveState {
        DriveState {
            slc_used: 0.0,
            direct: 0.0,
            cache_size: self.cache_at_fill(self.fill),
            data: self.fill * self.capacity.as_f64(),
            written: 0.0,
            temp_c: self.thermal.as_ref().map(|t| t.ambient_c).unwrap_or(0.0),
            throttled: false,
            throttle_transitions: 0,
            throttle_time_s: 0.0,
            seed: self.seed ^ extra_seed,
        }
    }
}

/// One drive's mutable state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriveState {
    /// Bytes in the SLC cache awaiting folding.
    pub slc_used: f64,
    /// Bytes written directly to TLC/QLC since the cache ran out (decides the folding phase).
    pub direct: f64,
    /// Cache size for the current burst, bytes.
    pub cache_size: f64,
    /// Bytes of data on the drive (fill level times capacity), at most the capacity.
    pub data: f64,
    /// Bytes written since the state was made (reads not counted).
    pub written: f64,
    /// Temperature, °C (ambient when the model has no thermal part: then unused).
    pub temp_c: f64,
    /// Whether the drive is throttling.
    pub throttled: bool,
    /// Times the drive started throttling since the state was made (what an NVMe drive
    /// reports as thermal-management transitions in its SMART log).
    pub throttle_transitions: u64,
    /// Seconds spent throttling since the state was made.
    pub throttle_time_s: f64,
    /// Seed of the noise and dips.
    pub seed: u64,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A uniform number in (0, 1) from the seed, a stream tag and an index.
fn uniform(seed: u64, tag: u64, k: u64) -> f64 {
    let h = splitmix(seed ^ splitmix(tag.wrapping_mul(0x1000_0000_01B3) ^ splitmix(k)));
    ((h >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

fn slot_of(t: f64, len: f64) -> i64 {
    // A time set exactly to a slot boundary, `(k + 1) * len`, must land in slot k + 1, or the
    // writer's next boundary would be `t` itself and time would stop. `t / len` may round to
    // just below k + 1, and a fixed nudge falls below f64 precision once t / len passes 2^24
    // (582 h of 0.1 s slots): compare with the boundary itself instead.
    let k = (t / len).floor();
    let k = if (k + 1.0) * len <= t { k + 1.0 } else { k };
    k as i64
}

impl DriveState {
    /// The phase the next byte is written in.
    pub fn phase(&self, m: &DriveModel) -> Phase {
        if self.slc_used < self.cache_size {
            Phase::Cache
        } else {
            match m.fold_after {
                Some(f) if self.direct >= f.as_f64() => Phase::Folding,
                _ => Phase::Direct,
            }
        }
    }

    /// Bytes until the phase changes (infinite in the last phase).
    fn bytes_to_boundary(&self, m: &DriveModel) -> f64 {
        match self.phase(m) {
            Phase::Cache => self.cache_size - self.slc_used,
            Phase::Direct => match m.fold_after {
                Some(f) => f.as_f64() - self.direct,
                None => f64::INFINITY,
            },
            Phase::Folding => f64::INFINITY,
        }
    }

    /// The multiplicative noise factor at time `t_s` (log-normal, mean 1).
    pub fn noise_factor(&self, m: &DriveModel, t_s: f64) -> f64 {
        if m.noise <= 0.0 {
            return 1.0;
        }
        let k = slot_of(t_s, NOISE_SLOT_S).max(0) as u64;
        let u1 = uniform(self.seed, 1, k);
        let u2 = uniform(self.seed, 2, k);
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        (m.noise * z - 0.5 * m.noise * m.noise).exp()
    }

    /// The dip (start, end) that slot `k` starts, if any.
    fn dip_in_slot(&self, m: &DriveModel, k: i64) -> Option<(f64, f64)> {
        if k < 0 || m.dips_per_min <= 0.0 || m.dip_len_s <= 0.0 {
            return None;
        }
        let p = m.dips_per_min / 60.0 * DIP_SLOT_S;
        if uniform(self.seed, 3, k as u64) < p {
            let start = (k as f64 + uniform(self.seed, 4, k as u64)) * DIP_SLOT_S;
            Some((start, start + m.dip_len_s))
        } else {
            None
        }
    }

    /// Whether a garbage-collection dip is going on at `t_s`, and the next time (after `t_s`)
    /// at which a dip starts or ends.
    fn dip_at(&self, m: &DriveModel, t_s: f64) -> (bool, f64) {
        if m.dips_per_min <= 0.0 || m.dip_len_s <= 0.0 {
            return (false, f64::INFINITY);
        }
        let k = slot_of(t_s, DIP_SLOT_S);
        let back = (m.dip_len_s / DIP_SLOT_S).ceil() as i64 + 1;
        let mut inside = false;
        let mut next = (k + 1) as f64 * DIP_SLOT_S;
        for j in (k - back)..=(k + 1) {
            if let Some((s, e)) = self.dip_in_slot(m, j) {
                if s <= t_s && t_s < e {
                    inside = true;
                }
                for edge in [s, e] {
                    if edge > t_s && edge < next {
                        next = edge;
                    }
                }
            }
        }
        (inside, next)
    }

    /// The rate at time `t_s` for `load`, with noise, dips and throttling, bytes/s; and the
    /// phase.
    pub fn rate_at(&self, m: &DriveModel, load: &Load, t_s: f64) -> (f64, Phase) {
        let phase = self.phase(m);
        let mut r = m.mixed_rate(
            phase,
            load.pattern,
            load.block_size,
            load.read_frac,
            load.mix_read_frac,
        ) * self.noise_factor(m, t_s);
        // The link caps the noisy rate too: no drive writes faster than its link carries.
        r = r.min(m.link_cap());
        if phase != Phase::Cache && self.dip_at(m, t_s).0 {
            r *= m.dip_depth;
        }
        if self.throttled {
            if let Some(th) = &m.thermal {
                r *= th.throttle_factor;
            }
        }
        if let Some(n) = load.in_flight {
            r = closed_loop_rate(r, load.block_size, n, m.latency_for(load.read_frac));
        }
        (r, phase)
    }

    fn update_throttle(&mut self, m: &DriveModel) {
        if let Some(th) = &m.thermal {
            if self.throttled && self.temp_c <= th.throttle_c - th.hysteresis_c {
                self.throttled = false;
            } else if !self.throttled && self.temp_c >= th.throttle_c {
                self.throttled = true;
                self.throttle_transitions += 1;
            }
        }
    }

    /// Heats/cools for `dt` seconds at a constant `rate` (exact for a constant rate).
    fn heat(&mut self, m: &DriveModel, rate: f64, dt: f64) {
        if let Some(th) = &m.thermal {
            let target = th.ambient_c + th.heat_c_per_gb * (rate / 1e9) * th.tau_s;
            self.temp_c = target + (self.temp_c - target) * (-dt / th.tau_s).exp();
        }
    }

    /// Writes without pause from `t_s` until `max_bytes` are written or `t_end_s` is reached,
    /// whichever comes first; calls `on_segment` for every stretch at one rate. Returns the
    /// time the writing ended.
    ///
    /// The rate is constant within a segment, and segments end at noise slots, dip edges and
    /// phase boundaries, so the cache runs out at exactly the cache size in bytes.
    pub fn write(
        &mut self,
        m: &DriveModel,
        load: &Load,
        t_s: f64,
        max_bytes: f64,
        t_end_s: f64,
        mut on_segment: impl FnMut(Segment),
    ) -> f64 {
        let mut t = t_s;
        let mut left = max_bytes;
        // Only the written share of the bytes goes into the cache (reads leave it alone).
        let wf = 1.0 - load.read_frac.clamp(0.0, 1.0);
        // A guard against a stuck loop: no step may be shorter than this many seconds unless
        // it finishes the bytes or reaches a boundary.
        while left > 1e-6 && t < t_end_s {
            self.update_throttle(m);
            let (rate, phase) = self.rate_at(m, load, t);
            let next_noise = (slot_of(t, NOISE_SLOT_S) + 1) as f64 * NOISE_SLOT_S;
            let next_dip = self.dip_at(m, t).1;
            let t_lim = next_noise.min(next_dip).min(t_end_s);
            let to_boundary = if wf > 0.0 {
                self.bytes_to_boundary(m) / wf
            } else {
                f64::INFINITY
            };
            let b_lim = left.min(to_boundary);
            let (dt, bytes, t_next) = if rate <= 0.0 {
                (t_lim - t, 0.0, t_lim)
            } else if b_lim / rate <= t_lim - t {
                let dt = b_lim / rate;
                (dt, b_lim, t + dt)
            } else {
                let dt = t_lim - t;
                (dt, rate * dt, t_lim)
            };
            match phase {
                Phase::Cache => {
                    if bytes >= to_boundary {
                        self.slc_used = self.cache_size;
                    } else {
                        self.slc_used += bytes * wf;
                    }
                }
                Phase::Direct | Phase::Folding => {
                    if bytes >= to_boundary {
                        self.direct = m.fold_after.map(|f| f.as_f64()).unwrap_or(self.direct);
                    } else {
                        self.direct += bytes * wf;
                    }
                }
            }
            self.written += bytes * wf;
            self.data = (self.data + bytes * wf).min(m.capacity.as_f64());
            self.heat(m, rate, dt);
            if self.throttled {
                self.throttle_time_s += dt;
            }
            if dt > 0.0 || bytes > 0.0 {
                on_segment(Segment {
                    t_s: t,
                    dt_s: dt,
                    bytes,
                    rate,
                    phase,
                });
            }
            left -= bytes;
            t = t_next;
        }
        t
    }

    /// The drive idles for `dt_s` seconds: it cools, and after the recovery delay it folds its
    /// cache contents at the recovery rate. The cache size is then evaluated again at the fill
    /// level reached.
    pub fn idle(&mut self, m: &DriveModel, dt_s: f64) {
        if dt_s <= 0.0 {
            return;
        }
        if let (true, Some(th)) = (self.throttled, &m.thermal) {
            // Still throttling until it has cooled to the release temperature.
            let release = th.throttle_c - th.hysteresis_c;
            let excess = self.temp_c - th.ambient_c;
            let throttled_for = if release <= th.ambient_c {
                dt_s
            } else if self.temp_c <= release {
                0.0
            } else {
                th.tau_s * (excess / (release - th.ambient_c)).ln()
            };
            self.throttle_time_s += throttled_for.clamp(0.0, dt_s);
        }
        self.heat(m, 0.0, dt_s);
        self.update_throttle(m);
        let busy = dt_s - m.recover_delay_s;
        if busy > 0.0 {
            let folded = m.recover.0 * busy;
            self.slc_used = (self.slc_used - folded).max(0.0);
            self.direct = (self.direct - folded).max(0.0);
            self.cache_size = m.cache_at_fill(self.data / m.capacity.as_f64());
        }
    }

    /// The host discards `bytes` of data (TRIM, or a secure erase of the whole drive): that
    /// much data is gone, the SLC cache is empty (nothing left to fold), and the cache size is
    /// evaluated again at the fill level left.
    pub fn trim(&mut self, m: &DriveModel, bytes: f64) {
        self.data = (self.data - bytes.max(0.0)).max(0.0);
        self.slc_used = 0.0;
        self.direct = 0.0;
        self.cache_size = m.cache_at_fill(self.data / m.capacity.as_f64());
    }

    /// What a perfect measurement from this state would find (the model's [`Truth`] for the
    /// cache left now, rather than for a fresh drive).
    pub fn truth_now(&self, m: &DriveModel, pattern: Pattern, block_size: u64) -> Truth {
        let left = (self.cache_size - self.slc_used).max(0.0).round() as u64;
        let mut t = m.truth(pattern, block_size);
        t.cache_bytes = left;
        t.iops_hides_cache &= left > 0;
        t.folding_starts_at_bytes = m
            .fold_after
            .map(|f| left + (f.as_f64() - self.direct).max(0.0).round() as u64);
        t
    }

    /// The temperature `dt_s` seconds after the last write if the drive idles meanwhile, °C;
    /// `None` without a thermal model.
    pub fn temp_after_idle(&self, m: &DriveModel, dt_s: f64) -> Option<f64> {
        let th = m.thermal.as_ref()?;
        let dt = dt_s.max(0.0);
        Some(th.ambient_c + (self.temp_c - th.ambient_c) * (-dt / th.tau_s).exp())
    }
}

/// Where the model's own truth says its write IOPS limit hides the cache at the run's block
/// size ([`Truth::iops_hides_cache`]) and the run saw no cliff: the cache's words and a
/// warning say so, and the run bounds nothing of the cache ("no SLC cache ran out" would be
/// said of the IOPS limit, not of the drive), as [`crate::link::note`] does for a link.
/// simulate, probe of an emulated drive, analyze and compare all call it.
pub fn note_iops_hidden(
    a: &mut crate::detect::Analysis,
    truth: Option<&Truth>,
    units: crate::units::UnitSystem,
) {
    use crate::detect::{Warning, WarningKind};
    let Some(t) = truth.filter(|t| t.iops_hides_cache) else {
        return;
    };
    let no_cliff = a.cliffs.is_empty()
        && a.unconfirmed_drop.is_none()
        && !a.read_only
        && a.bytes_total > 0
        && a.link_limited.is_none();
    if !no_cliff || a.iops_hid_cache.is_some() {
        return;
    }
    a.iops_hid_cache = Some(t.iops_limit);
    a.cache_lower_bound_bytes = None;
    a.warnings
        .retain(|w| !matches!(w.kind, WarningKind::NoCliff { .. }));
    let (r_in, r_after) = (
        crate::units::format_rate(t.in_cache_bytes_per_sec, units),
        crate::units::format_rate(t.after_cache_bytes_per_sec, units),
    );
    let rates = if r_in == r_after {
        format!("holds the rate at {r_in} in its cache and after it")
    } else {
        format!("holds the rate in its cache to {r_in}, too close to the {r_after} after it")
    };
    let text = format!(
        "the drive model's write IOPS limit ({}) {rates} at this block size, so no cliff can \
         show: the run bounds nothing of the cache (the model's is {}); a larger block size \
         shows it",
        crate::report::outputs::sweep::iops_text(t.iops_limit),
        crate::units::format_bytes(t.cache_bytes as f64, units)
    );
    a.warnings
        .push(Warning::new(WarningKind::IopsHidesCache, text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_boundaries_hold_far_into_a_run() {
        // Past 2^24 slots (582 h of 0.1 s slots) a fixed nudge vanished and a time set to a
        // boundary stayed in the old slot, so the writer's next boundary was the time itself.
        for k in [
            1u64 << 24,
            (1 << 24) + 7,
            20_971_520,
            25_200_000,
            1 << 30,
            3_000_000_007,
        ] {
            let t = (k + 1) as f64 * NOISE_SLOT_S;
            assert_eq!(slot_of(t, NOISE_SLOT_S), k as i64 + 1, "k {k}, t {t}");
        }
        for k in (0..100_000u64).chain(20_971_500..21_100_000) {
            let t = (k + 1) as f64 * NOISE_SLOT_S;
            assert_eq!(slot_of(t, NOISE_SLOT_S), k as i64 + 1, "k {k}");
        }
    }

    #[test]
    fn writing_goes_on_past_582_hours() {
        let m = presets::find("960evo-500g").unwrap();
        let mut s = m.new_state(1);
        let load = Load::new(Pattern::Seqwrite, 128 << 10, Some(32), 0);
        let t0 = 2_100_000.0; // 583 h
        let end = s.write(&m, &load, t0, f64::INFINITY, t0 + 2.0, |_| {});
        assert_eq!(end, t0 + 2.0);
    }

    fn plain() -> DriveModel {
        let mut m = presets::find("960evo-500g").unwrap();
        m.noise = 0.0;
        m.dips_per_min = 0.0;
        m
    }

    #[test]
    fn cliff_at_exact_bytes() {
        let m = plain();
        let mut s = m.new_state(0);
        let load = Load {
            pattern: Pattern::Seqwrite,
            block_size: 1 << 20,
            in_flight: None,
            read_frac: 0.0,
            mix_read_frac: 0.0,
        };
        let mut phases = vec![];
        let end = s.write(&m, &load, 0.0, 30e9, f64::INFINITY, |seg| {
            phases.push((seg.phase, seg.bytes, seg.rate))
        });
        let cache: f64 = phases
            .iter()
            .filter(|p| p.0 == Phase::Cache)
            .map(|p| p.1)
            .sum();
        assert!((cache - 22e9).abs() < 1.0, "{cache}");
        assert!((s.written - 30e9).abs() < 1.0);
        let expect = 22e9 / 1.8e9 + 8e9 / 0.6e9;
        assert!((end - expect).abs() < 1e-6, "{end} vs {expect}");
    }

    #[test]
    fn reads_leave_the_cache_alone_and_mixes_pay_a_penalty() {
        let m = plain();
        // A 50/50 mix puts only its writes into the cache: it runs out after twice the cache.
        let mut s = m.new_state(0);
        let mix = Load::new(Pattern::Rw, 1 << 20, None, 50);
        let mut cache_bytes = 0.0;
        s.write(&m, &mix, 0.0, 60e9, f64::INFINITY, |seg| {
            if seg.phase == Phase::Cache {
                cache_bytes += seg.bytes;
            }
        });
        assert!((cache_bytes - 44e9).abs() < 1.0, "{cache_bytes}");
        assert!(
            (s.written - 30e9).abs() < 1.0,
            "only writes count as written"
        );
        // Pure reads never leave the cache phase.
        let mut s = m.new_state(0);
        let rd = Load::new(Pattern::Seqread, 1 << 20, None, 100);
        s.write(&m, &rd, 0.0, 100e9, f64::INFINITY, |seg| {
            assert_eq!(seg.phase, Phase::Cache)
        });
        assert_eq!(s.written, 0.0);
        // The penalty: a 50/50 mix of two equal rates loses mix_penalty; the ends lose nothing.
        let r = m.read_rate(Pattern::Randrw, 4096);
        let w = m.write_rate(Phase::Cache, Pattern::Randrw, 4096);
        assert_eq!(
            m.mixed_rate(Phase::Cache, Pattern::Randrw, 4096, 1.0, 1.0),
            r
        );
        assert_eq!(
            m.mixed_rate(Phase::Cache, Pattern::Randrw, 4096, 0.0, 0.0),
            w
        );
        let half = m.mixed_rate(Phase::Cache, Pattern::Randrw, 4096, 0.5, 0.5);
        let shared = 1.0 / (0.5 / r + 0.5 / w);
        assert!((half - shared * (1.0 - m.mix_penalty)).abs() < 1e-6 * half);
        assert!(m.read_source.contains("assumed"), "{}", m.read_source);
    }

    #[test]
    fn random_4k_in_cache_limited_by_iops() {
        let m = plain();
        let r = m.base_rate(Phase::Cache, Pattern::Randwrite, 4096);
        assert!(r < m.rand_in.0);
        assert!((r - m.iops_in.unwrap() * 4096.0).abs() < 1.0);
        assert_eq!(
            m.base_rate(Phase::Cache, Pattern::Seqwrite, 1 << 20),
            m.seq_in.0
        );
    }

    #[test]
    fn queue_depth_limits_throughput() {
        let q1 = closed_loop_rate(1.8e9, 4096, 1, 25e-6);
        let q32 = closed_loop_rate(1.8e9, 4096, 32, 25e-6);
        assert!(q1 < 0.2e9, "{q1}");
        assert!(q32 > q1 * 10.0);
        assert!(q32 <= 1.8e9);
    }

    #[test]
    fn throttling_is_counted_like_a_drive_counts_it() {
        // 1 GB/s, 10 °C per GB, throttles at 40 °C from 30 °C: after about 1 GB.
        let m = presets::parse_spec(
            "960evo-500g,cache=100GB,in=1GB/s,noise=0,dips=0,ambient=30,heat=10,cool=100s,\
             throttle_at=40,hysteresis=5",
        )
        .unwrap();
        let mut s = m.new_state(0);
        let load = Load::new(Pattern::Seqwrite, 1 << 20, None, 0);
        s.write(&m, &load, 0.0, 0.9e9, f64::INFINITY, |_| {});
        assert_eq!((s.throttle_transitions, s.throttle_time_s), (0, 0.0));
        let end = s.write(&m, &load, 0.9, 2e9, f64::INFINITY, |_| {});
        assert!(s.throttled);
        assert_eq!(s.throttle_transitions, 1);
        // Throttled from about 1 s (40 °C reached after about 1 GB) to the end.
        let t_on = -100.0 * (1.0 - 10.0 / (10.0 * 1.0 * 100.0f64)).ln();
        assert!(
            (s.throttle_time_s - (end - t_on)).abs() < 0.15,
            "{}",
            s.throttle_time_s
        );
        // Idle: still throttled until cooled to 35 °C, which takes tau ln(excess / 5).
        let before = s.throttle_time_s;
        let need = 100.0 * ((s.temp_c - 30.0) / 5.0).ln();
        s.idle(&m, 1000.0);
        assert!(!s.throttled);
        assert!((s.throttle_time_s - before - need).abs() < 1e-6);
        // Writing heats it again: a second transition.
        s.write(&m, &load, 2000.0, 3e9, f64::INFINITY, |_| {});
        assert_eq!(s.throttle_transitions, 2);
    }

    #[test]
    fn idle_recovers_cache() {
        let m = plain();
        let mut s = m.new_state(0);
        let load = Load {
            pattern: Pattern::Seqwrite,
            block_size: 1 << 20,
            in_flight: None,
            read_frac: 0.0,
            mix_read_frac: 0.0,
        };
        s.write(&m, &load, 0.0, 25e9, f64::INFINITY, |_| {});
        assert_eq!(s.phase(&m), Phase::Direct);
        s.idle(&m, m.recover_delay_s + 1.0);
        assert_eq!(s.phase(&m), Phase::Cache);
        assert!(s.slc_used < s.cache_size);
    }

    #[test]
    fn no_noise_takes_a_rate_above_the_link() {
        // 870 EVO at 560 MB/s in the cache on a 6 Gb/s link (558 MB/s usable) with 10 %
        // noise: samples reached 10 % over the link's rate before the cap came after the noise.
        let m = presets::parse_spec("870evo-4tb,in=560MB/s,noise=0.1").unwrap();
        let s = m.new_state(7);
        let load = Load::new(Pattern::Seqwrite, 128 << 10, None, 0);
        let top = (0..2000)
            .map(|i| s.rate_at(&m, &load, i as f64 * 0.05).0)
            .fold(0.0, f64::max);
        assert!(top <= 558e6 + 1e-3, "{top}");
        assert!(top > 550e6, "{top}");
    }

    #[test]
    fn noise_has_mean_one_and_is_deterministic() {
        let mut m = plain();
        m.noise = 0.1;
        let s = m.new_state(7);
        let n = 20000;
        let mean: f64 = (0..n)
            .map(|i| s.noise_factor(&m, i as f64 * NOISE_SLOT_S))
            .sum::<f64>()
            / n as f64;
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        assert_eq!(s.noise_factor(&m, 3.21), s.clone().noise_factor(&m, 3.25));
    }

    #[test]
    fn dips_happen_at_the_rate_given() {
        let mut m = plain();
        m.dips_per_min = 6.0;
        m.dip_len_s = 0.5;
        let s = m.new_state(3);
        let steps = 600_000;
        let inside = (0..steps)
            .filter(|i| s.dip_at(&m, *i as f64 * 0.001).0)
            .count() as f64
            / steps as f64;
        // 6 dips/min of 0.5 s: 5% of the time.
        assert!((inside - 0.05).abs() < 0.02, "{inside}");
    }

    #[test]
    fn trim_empties_the_cache_and_the_drive() {
        let m = presets::parse_spec("660p-1tb,fill=0.6,noise=0,dips=0").unwrap();
        let mut s = m.new_state(0);
        let fresh = m.truth(Pattern::Seqwrite, 1 << 20).cache_bytes;
        assert_eq!(
            s.truth_now(&m, Pattern::Seqwrite, 1 << 20).cache_bytes,
            fresh
        );
        let load = Load::new(Pattern::Seqwrite, 1 << 20, None, 0);
        s.write(&m, &load, 0.0, 10e9, f64::INFINITY, |_| {});
        assert_eq!(
            s.truth_now(&m, Pattern::Seqwrite, 1 << 20).cache_bytes,
            fresh - 10_000_000_000
        );
        s.trim(&m, m.capacity.as_f64());
        assert_eq!(s.data, 0.0);
        assert_eq!(
            s.truth_now(&m, Pattern::Seqwrite, 1 << 20).cache_bytes,
            m.cache_empty()
        );
    }

    #[test]
    fn dynamic_cache_shrinks_with_fill() {
        let m = presets::find("660p-1tb").unwrap();
        assert!((m.cache_at_fill(0.0) - 140e9).abs() < 1.0);
        assert!((m.cache_at_fill(0.8) - 12e9).abs() < 1.0);
        assert!(m.cache_at_fill(0.4) < m.cache_at_fill(0.2));
    }

    #[test]
    fn the_iops_limit_bounds_the_rate_after_the_cache_too() {
        // 300k IOPS and no iops_after: at 512 B the cache writes at 154 MB/s, and after it
        // the drive must not write at its 300 MB/s bandwidth, twice its IOPS limit.
        let mut m = presets::find("960evo-250g").unwrap();
        (m.noise, m.dips_per_min) = (0.0, 0.0);
        assert_eq!(m.iops_after, None);
        let cap = 300e3 * 512.0;
        for phase in [Phase::Cache, Phase::Direct] {
            let r = m.write_rate(phase, Pattern::Randwrite, 512);
            assert!((r - cap).abs() < 1.0, "{phase:?}: {r}");
        }
        let t = m.truth(Pattern::Randwrite, 512);
        assert!(
            t.after_cache_bytes_per_sec <= t.in_cache_bytes_per_sec,
            "{t:?}"
        );
        // The state both the simulator and the emulated drive advance: past the cache, at
        // 512 B, the same 300k IOPS.
        let mut st = m.new_state(1);
        st.slc_used = st.cache_size;
        let load = Load::new(Pattern::Randwrite, 512, None, 0);
        let (r, phase) = st.rate_at(&m, &load, 1.0);
        assert_eq!(phase, Phase::Direct);
        assert!(r <= cap * (1.0 + 1e-9), "{r}");
        // A lower iops_after lowers it after the cache; a higher one does not raise it.
        m.iops_after = Some(100e3);
        assert!((m.write_rate(Phase::Direct, Pattern::Randwrite, 512) - 100e3 * 512.0).abs() < 1.0);
        m.iops_after = Some(1e6);
        assert!((m.write_rate(Phase::Direct, Pattern::Randwrite, 512) - cap).abs() < 1.0);
        // Large blocks keep the post-cache bandwidth.
        assert_eq!(
            m.write_rate(Phase::Direct, Pattern::Seqwrite, 1 << 20),
            300e6
        );
    }

    #[test]
    fn the_truth_says_where_the_iops_limit_hides_the_cache() {
        let m = presets::find("960evo-250g").unwrap();
        // 512 B and 1 KiB: 154 and 307 MB/s in the cache, 154 and 300 MB/s after it.
        for bs in [512, 1024] {
            let t = m.truth(Pattern::Randwrite, bs);
            assert!(t.iops_hides_cache, "{bs}: {t:?}");
            let text = t
                .iops_hidden_text(crate::units::UnitSystem::Decimal)
                .unwrap();
            assert!(
                text.starts_with("cache 13.0 GB, hidden by the drive's IOPS limit"),
                "{text}"
            );
        }
        assert_eq!(
            m.truth(Pattern::Randwrite, 512)
                .iops_hidden_text(crate::units::UnitSystem::Decimal)
                .unwrap(),
            "cache 13.0 GB, hidden by the drive's IOPS limit at this block size: 154 MB/s in \
             and after it"
        );
        // 4 KiB: 1229 -> 300 MB/s, a cliff to see.
        let t = m.truth(Pattern::Randwrite, 4096);
        assert!(
            !t.iops_hides_cache
                && t.iops_hidden_text(crate::units::UnitSystem::Decimal)
                    .is_none()
        );
        // Rates equal without any IOPS limit: nothing hidden by it.
        let flat = presets::parse_spec("960evo-250g,after=1500MB/s,iops=none").unwrap();
        assert!(!flat.truth(Pattern::Randwrite, 512).iops_hides_cache);
        // No cache, or none left at the start: nothing to hide.
        let none = presets::find("pm983-960g").unwrap();
        assert!(!none.truth(Pattern::Randwrite, 512).iops_hides_cache);
        let mut st = m.new_state(1);
        st.slc_used = st.cache_size;
        assert!(!st.truth_now(&m, Pattern::Randwrite, 512).iops_hides_cache);
        // Reads only: no write cache in play.
        assert!(!m.truth_mixed(Pattern::Randwrite, 512, 100).iops_hides_cache);
    }
}
