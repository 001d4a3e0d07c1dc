//! Experiments that write in bursts: cache recovery after idling (`slccache recovery`) and
//! cache size against fill level (`slccache fill-sweep`).
//!
//! Both drive a [`TestDrive`]: something that can write a burst until the cliff, idle, fill
//! sequentially and discard. A [`virtual_drive::VirtualDrive`] is a drive model in virtual
//! time (`--simulate`: seconds of computing for hours of drive time); a
//! [`realtime::RealDrive`] is a block device, a file or an `emu:` drive in real time, written
//! by the probe's engine.
//!
//! - `recovery`: a first burst empties the cache (write until the cliff is confirmed); then,
//!   for each idle time in an order shuffled with `--seed` (so that a slow drift is not taken
//!   for recovery), idle, write again until the cliff, and record how much cache came back.
//!   [`fit`] fits the recovery model (delay, folding rate, full-recovery time, with intervals).
//! - `fill-sweep`: at each fill level, fill the drive sequentially to that share, idle so that
//!   the cache refills, and write until the cliff.
//!
//! A burst ends when the cliff is confirmed (the level after it held for the hold time), or,
//! once a reference burst is known, when the drive has written at its after-cache level from
//! the start for the hold time (nothing came back), or at the end of the span.
//! [`estimate_cache`] reads the cache of a burst off the detector; a cache phase shorter than
//! the detector can see (a part of the first sample) is read off the excess of the first
//! samples over the after-cache level.
//!
//! Ctrl-C (or SIGTERM) ends the current step: every finished step is kept and the outputs are
//! written, marked interrupted (exit 130).

pub mod fit;
pub mod realtime;
pub mod steps;
pub mod virtual_drive;

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use crate::detect::stop::{Decision, StopConfig, StopRule};
use crate::detect::Analysis;
use crate::error::usage;
use crate::model::DriveModel;
use crate::results::recovery::{BurstEnd, CacheFound, Reference};
use crate::timeline::bounded::Kept;
use crate::timeline::{RunMeta, Sample, Timeline};
use crate::units::parse_duration;

/// Fewest samples a burst writes before it may end as having no cache (enough to read the
/// after-cache level and the excess of the first sample over it).
pub const MIN_NO_CACHE_SAMPLES: usize = 6;

/// The stop rule of a burst: the early stop of [`crate::detect::stop::StopRule`] (the cliff
/// confirmed and the level after it held), and, with a reference burst, an end when the
/// drive wrote at its after-cache level from the start (nothing came back). Feed it samples
/// in time order.
#[derive(Debug, Clone)]
pub struct BurstRule {
    rule: StopRule,
    reference: Option<Reference>,
    /// When the burst's first sample began, s.
    t0: Option<f64>,
    /// Samples pushed.
    pushed: usize,
    /// The highest throughput of the samples after the first, bytes/s.
    most_after_first: f64,
    /// The burst's throughputs for the median of its second half, in bounded memory.
    rates: Rates,
}

/// Throughputs in time order kept in bounded memory, as [`Kept`] keeps samples: every one up
/// to the limit, then neighbours averaged in pairs and the group doubled each time it fills.
#[derive(Debug, Clone)]
struct Rates {
    limit: usize,
    group: usize,
    whole: Vec<f64>,
    /// The group still filling: its sum and count.
    filling: (f64, usize),
}

impl Rates {
    fn new(limit: usize) -> Rates {
        Rates {
            limit: limit.max(2),
            group: 1,
            whole: Vec::new(),
            filling: (0.0, 0),
        }
    }

    fn push(&mut self, rate: f64) {
        self.filling = (self.filling.0 + rate, self.filling.1 + 1);
        if self.filling.1 < self.group {
            return;
        }
        self.whole.push(self.filling.0 / self.filling.1 as f64);
        self.filling = (0.0, 0);
        if self.whole.len() >= self.limit {
            let old = std::mem::take(&mut self.whole);
            self.whole = old
                .chunks(2)
                .map(|c| c.iter().sum::<f64>() / c.len() as f64)
                .collect();
            self.group *= 2;
        }
    }

    /// Median of the second half (all of them while none were averaged).
    fn tail_median(&self) -> f64 {
        let mut v: Vec<f64> = self.whole[self.whole.len() / 2..].to_vec();
        if self.filling.1 > 0 {
            v.push(self.filling.0 / self.filling.1 as f64);
        }
        median(&mut v)
    }
}

impl BurstRule {
    /// A rule stopping as `cfg` says (its early stop is always on here), with an optional
    /// reference burst.
    pub fn new(cfg: StopConfig, reference: Option<Reference>) -> BurstRule {
        BurstRule {
            rule: StopRule::new(StopConfig {
                early_stop: true,
                ..cfg
            }),
            reference,
            t0: None,
            pushed: 0,
            most_after_first: f64::NEG_INFINITY,
            rates: Rates::new(Kept::for_run().limit()),
        }
    }

    /// Adds a sample; returns `Some(why)` when the burst should end.
    pub fn push(&mut self, s: &Sample) -> Option<BurstEnd> {
        let t0 = *self.t0.get_or_insert(s.t_start_s());
        if self.pushed > 0 {
            self.most_after_first = self.most_after_first.max(s.bytes_per_sec);
        }
        self.pushed += 1;
        self.rates.push(s.bytes_per_sec);
        if self.rule.push(s.clone()) == Decision::Stop {
            return Some(BurstEnd::CliffConfirmed);
        }
        if self.rule.estimate().is_some() {
            // A cliff is seen: the early stop decides.
            return None;
        }
        let r = self.reference?;
        let now = s.t_s;
        let hold = self.rule.config().hold_s(0.0);
        let mid = r.after_cache_bytes_per_sec
            + 0.5 * (r.in_cache_bytes_per_sec - r.after_cache_bytes_per_sec);
        let at_after = self.rates.tail_median() < mid;
        // Past the longest cache phase plus the hold with no cliff, at the after-cache
        // level: nothing (or less than a sample) came back.
        let longest = r.max_cache_bytes / r.in_cache_bytes_per_sec.max(1.0);
        if at_after && now - t0 >= 1.5 * longest + 2.0 * hold {
            return Some(BurstEnd::NoCache);
        }
        // At the after-cache level from the second sample on, for the hold: whatever came
        // back fitted in the first sample.
        let one_level = self.rule.analysis().is_none_or(|a| a.phases.len() <= 1);
        let from_second = self.most_after_first < mid;
        if at_after
            && one_level
            && from_second
            && now - t0 >= hold
            && self.pushed >= MIN_NO_CACHE_SAMPLES
        {
            return Some(BurstEnd::NoCache);
        }
        None
    }
}

/// Median throughput of the second half of the samples, bytes/s.
fn tail_rate(samples: &[Sample]) -> f64 {
    let mut v: Vec<f64> = samples[samples.len() / 2..]
        .iter()
        .map(|s| s.bytes_per_sec)
        .collect();
    median(&mut v)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Reads the cache a burst found: the detector's estimate where it has a cliff; otherwise,
/// with a reference, the excess of the leading samples over the burst's own after-cache level
/// (scaled by `in / (in - after)`, since the cache phase wrote at the in-cache rate).
pub fn estimate_cache(t: &Timeline, a: &Analysis, reference: Option<Reference>) -> CacheFound {
    if let Some(e) = &a.cache_estimate {
        return CacheFound {
            bytes: e.bytes as f64,
            low: e.low_bytes as f64,
            high: e.high_bytes as f64,
            method: "detector",
        };
    }
    let s = &t.samples;
    // Without a reference, a drop inside the first sample is what `analyze` of the burst's
    // CSV says: a cache within its bounds, if it was the cache running out; no cliff, so no
    // lower bound of all that was written (a first burst said "no cliff: the cache is at
    // least 16.2 GB" where analyze said "a cache of 16.2 GB to 35.6 GB").
    if let (None, Some(d)) = (reference, &a.unconfirmed_drop) {
        if d.at == crate::detect::DropWhere::FirstSample {
            return CacheFound {
                bytes: d.bytes_low as f64,
                low: d.bytes_low as f64,
                high: d.bytes_high as f64,
                method: crate::results::recovery::FIRST_SAMPLE_DROP,
            };
        }
    }
    let Some(r) = reference.filter(|_| s.len() >= 3) else {
        // As `analyze` of the burst's CSV says it: a drop not confirmed bounds the cache by the
        // bytes before it, and too few samples bound nothing.
        if let Some(d) = &a.unconfirmed_drop {
            return CacheFound {
                bytes: d.bytes_low as f64,
                low: d.bytes_low as f64,
                high: d.bytes_high as f64,
                method: crate::results::recovery::UNCONFIRMED_DROP,
            };
        }
        let Some(b) = a.cache_lower_bound_bytes else {
            let b = t.bytes_total() as f64;
            return CacheFound {
                bytes: b,
                low: b,
                high: b,
                method: crate::results::recovery::TOO_FEW_SAMPLES,
            };
        };
        let b = b as f64;
        return CacheFound {
            bytes: b,
            low: b,
            high: b,
            method: "none",
        };
    };
    let after = tail_rate(s);
    let mut dev: Vec<f64> = s[s.len() / 2..]
        .iter()
        .map(|x| (x.bytes_per_sec - after).abs())
        .collect();
    let sd = (1.4826 * median(&mut dev)).max(1e-3 * after);
    let gain = r.in_cache_bytes_per_sec / (r.in_cache_bytes_per_sec - after).max(1e-9 * after);
    let mut excess = 0.0;
    let mut var = 0.0;
    for x in s.iter().take(s.len() - 1) {
        if x.bytes_per_sec <= after + 3.0 * sd && excess > 0.0 {
            break;
        }
        if x.bytes_per_sec <= after + 3.0 * sd {
            // The first sample is already at the after-cache level.
            var += (sd * x.interval_s).powi(2);
            break;
        }
        excess += x.bytes as f64 - after * x.interval_s;
        var += (sd * x.interval_s).powi(2);
    }
    let bytes = (excess * gain).max(0.0);
    let half = 1.96 * var.sqrt() * gain;
    CacheFound {
        bytes,
        low: (bytes - half).max(0.0),
        high: bytes + half,
        method: "excess",
    }
}

/// A reference from a burst's analysis: its levels before and after the first cliff.
pub fn reference_of(a: &Analysis, cache: &CacheFound) -> Option<Reference> {
    let c = a.cliffs.first()?;
    Some(Reference {
        in_cache_bytes_per_sec: c.before_bytes_per_sec,
        after_cache_bytes_per_sec: c.after_bytes_per_sec,
        max_cache_bytes: cache.high.max(cache.bytes),
    })
}

/// A drive the experiments run on.
pub trait TestDrive {
    /// Bytes that can be written (the span).
    fn span(&self) -> u64;
    /// Identity and workload, for timelines and reports.
    fn meta(&self) -> RunMeta;
    /// The model, when the drive is one (`--simulate` or `emu:`): its truth goes into the
    /// summary.
    fn model(&self) -> Option<&DriveModel>;
    /// Discards the whole span (BLKDISCARD, hole punching, an emptied emulated drive).
    fn trim(&mut self) -> Result<()>;
    /// Writes `[from, to)` sequentially, outside any timeline; `progress(done, total)`.
    /// Returns false when `stop` was set before the fill was done (it ends there).
    fn fill(
        &mut self,
        from: u64,
        to: u64,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<bool>;
    /// Idles for `secs`; `progress(remaining_s)` now and then; returns false when `stop` was
    /// set before the idle was over.
    fn idle(&mut self, secs: f64, stop: &AtomicBool, progress: &mut dyn FnMut(f64))
        -> Result<bool>;
    /// Writes sequentially from `start` until `rule` says stop, `max_bytes` are written or
    /// `stop` is set; calls `on_sample` with every sample. Returns the samples, kept in
    /// bounded memory ([`Kept::for_run`]: merged past its limit), and why the burst ended.
    fn burst(
        &mut self,
        start: u64,
        max_bytes: u64,
        rule: &mut BurstRule,
        stop: &AtomicBool,
        on_sample: &mut dyn FnMut(&Sample),
    ) -> Result<(Kept, BurstEnd)>;
    /// Data on the drive as a share of the span, 0 to 1 (where the experiment put it).
    fn fill_level(&self) -> f64;
    /// The cache available right now according to the model, bytes (`None` for real drives).
    fn model_cache_now(&self) -> Option<f64>;
}

/// Discards the first `span` bytes of a real-time target: BLKDISCARD on a block device, hole
/// punching on a file. An emulated drive in real time cannot be discarded (use `--simulate`).
pub fn realtime_trim(t: &crate::device::Target, span: u64) -> Result<()> {
    use crate::device::TargetKind;
    match t.info.kind {
        TargetKind::Emulated => Err(usage(
            "--trim on an emu: target in real time is not supported; run the model with \
             --simulate, or leave --trim out",
        )),
        TargetKind::File => {
            let f = t.file.as_ref().expect("files are open");
            rustix::fs::fallocate(
                f,
                rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE,
                0,
                span,
            )
            .map_err(|e| anyhow::anyhow!("discarding {}: {e}", t.info.spec))
        }
        TargetKind::Block => {
            use std::os::fd::AsRawFd;
            let f = t.file.as_ref().expect("block devices are open");
            let range: [u64; 2] = [0, span];
            // BLKDISCARD = _IO(0x12, 119).
            const BLKDISCARD: libc::c_ulong = 0x1277;
            // SAFETY: the fd is an open block device owned by `f` for the length of the call,
            // and BLKDISCARD reads exactly two u64 (start, length) from the pointer, which
            // points at `range`, alive until the call returns.
            let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) };
            if r != 0 {
                return Err(anyhow::anyhow!(
                    "discarding {}: {}",
                    t.info.spec,
                    std::io::Error::last_os_error()
                ));
            }
            Ok(())
        }
    }
}

/// Whether Ctrl-C / SIGTERM asked to stop.
pub fn stop_requested(stop: &AtomicBool) -> bool {
    stop.load(Ordering::SeqCst)
}

/// Parses `--idle 5s,15s,30s`: durations, each above zero, at least one.
pub fn parse_idle_list(s: &str) -> Result<Vec<f64>> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let d = parse_duration(part)
            .map_err(|e| usage(format!("--idle: '{part}': {e}")))?
            .as_secs_f64();
        if d <= 0.0 {
            return Err(usage(format!(
                "--idle: '{part}' is zero; give idle times above zero, e.g. 5s,15s,60s"
            )));
        }
        v.push(d);
    }
    if v.is_empty() {
        return Err(usage(
            "--idle: give at least one idle time, e.g. 5s,15s,60s",
        ));
    }
    Ok(v)
}

/// Parses `--levels 0,25,50,75`: percentages from 0 to 99, rising.
pub fn parse_levels(s: &str) -> Result<Vec<f64>> {
    let mut v: Vec<f64> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let p: f64 = part.trim_end_matches('%').trim().parse().map_err(|_| {
            usage(format!(
                "--levels: '{part}' is not a percentage; give e.g. 0,25,50,75"
            ))
        })?;
        if !(0.0..=99.0).contains(&p) {
            return Err(usage(format!(
                "--levels: {part} is out of range; give percentages from 0 to 99"
            )));
        }
        if v.last().is_some_and(|l| p <= *l) {
            return Err(usage(format!(
                "--levels: {part} comes after {}; give the levels rising (a fill cannot be \
                 undone without a trim)",
                v.last().unwrap()
            )));
        }
        v.push(p);
    }
    if v.is_empty() {
        return Err(usage("--levels: give at least one level, e.g. 0,25,50,75"));
    }
    Ok(v)
}

/// The order in which the idle times are run: the longest first, then the others shuffled
/// with `seed` (Fisher-Yates).
///
/// The longest goes first because the first burst, on a drive that had less data, may have
/// filled a larger (dynamic) cache than the drive offers once that burst's data is on it: the
/// step after it then has more SLC contents to fold than any later one, which looks like a
/// longer delay. The longest idle is the one most likely to bring the whole cache back
/// anyway; after it, every burst has emptied a cache of the same size.
pub fn shuffled(idles: &[f64], seed: u64) -> Vec<f64> {
    let mut v = idles.to_vec();
    let Some(longest) = (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])) else {
        return v;
    };
    let first = v.remove(longest);
    fastrand::Rng::with_seed(seed).shuffle(&mut v);
    v.insert(0, first);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A burst without a cliff is told as `analyze` of its CSV tells it: two samples said "no
    /// cliff: the cache is at least 1.60 GB" where `analyze` said "too few samples to tell
    /// whether there is a cache", and a drop too short to confirm at the end said "no cliff:
    /// the cache is at least 1.34 GB" where `analyze` said "no confirmed cliff: a drop after
    /// 1.34 GB too short to confirm".
    #[test]
    fn a_burst_without_a_cliff_is_told_as_analyze_tells_it() {
        let u = crate::units::UnitSystem::Decimal;
        let told = |pts: &[(f64, f64, f64)]| {
            let t = Timeline::from_rates(pts, Default::default());
            let a = crate::detect::analyze(&t);
            let c = estimate_cache(&t, &a, None);
            let text = crate::units::cache_found_text(c.bytes, c.low, c.high, c.method, u);
            (c, text, crate::detect::Findings::of(&a).cache_text(u))
        };
        let (c, text, analyze) = told(&[(1.0, 1.0, 1.1e9), (1.5, 0.5, 1.0e9)]);
        assert_eq!(c.method, crate::results::recovery::TOO_FEW_SAMPLES);
        assert!(analyze.starts_with(&text), "{text} | {analyze}");
        let mut pts: Vec<(f64, f64, f64)> = (1..=9).map(|k| (k as f64 * 0.1, 0.1, 1.5e9)).collect();
        pts.extend((10..=14).map(|k| (k as f64 * 0.1, 0.1, 0.3e9)));
        let (c, text, analyze) = told(&pts);
        assert_eq!(
            c.method,
            crate::results::recovery::UNCONFIRMED_DROP,
            "{analyze}"
        );
        let prefix = text.split(": the cache").next().unwrap();
        assert!(
            text.starts_with("no confirmed cliff: a drop after ") && analyze.starts_with(prefix),
            "{text} | {analyze}"
        );
        assert!(crate::results::recovery::is_bound(c.method));
    }

    #[test]
    fn idle_lists_and_levels() {
        assert_eq!(parse_idle_list("5s, 1m,90").unwrap(), vec![5.0, 60.0, 90.0]);
        for bad in ["", "0s", "5x", "5s,-1s"] {
            let e = parse_idle_list(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--idle"), "{bad}");
        }
        assert_eq!(
            parse_levels("0,25,50%,75").unwrap(),
            vec![0.0, 25.0, 50.0, 75.0]
        );
        for bad in ["", "50,25", "100", "x", "-5"] {
            let e = parse_levels(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--levels"), "{bad}");
        }
    }

    #[test]
    fn shuffle_is_seeded_and_keeps_every_idle() {
        let v = [5.0, 15.0, 30.0, 60.0, 120.0, 300.0];
        let a = shuffled(&v, 7);
        assert_eq!(a, shuffled(&v, 7));
        assert_eq!(a[0], 300.0, "the longest idle goes first");
        let mut s = a.clone();
        s.sort_by(f64::total_cmp);
        assert_eq!(s, v.to_vec());
        let orders: std::collections::HashSet<String> = (0..20u64)
            .map(|seed| format!("{:?}", shuffled(&v, seed)))
            .collect();
        assert!(orders.len() > 5, "the rest is shuffled: {orders:?}");
    }
}
