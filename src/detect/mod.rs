//! Change-point detection: finds the cliff(s) in a timeline and estimates the cache size.
//!
//! Pure: no I/O, no clock. `probe` and `analyze` both call [`analyze`], so a saved timeline
//! re-analyzed gives the same answer as the live run.
//!
//! The pipeline (`docs/DESIGN.md`, with the additions marked +):
//! 1. work on ln(throughput), so that a relative drop is a shift;
//! 2. block medians over blocks longer than twice the longest GC dip (3 s), keeping at least
//!    60 and at most 4000 blocks (+ the cap keeps PELT fast on very long runs); + when the
//!    60-block floor makes blocks shorter than that, a running median over the blocks, wider
//!    than twice a dip, removes the dips instead;
//! 3. noise scale sigma = 1.4826 MAD(first differences) / sqrt(2);
//! 4. exact PELT ([`pelt`]) with an O(1) L2 cost, penalty 3 sigma^2 ln(n);
//! 5. spurious changes removed until none is left: excursions (+ a run of short segments that
//!    leaves one level and returns to it loses all its boundaries), too-short segments merged
//!    into the closer neighbour, steps under 10% merged, at most 12 changes (+ enough for a
//!    drive that cycles between throttled levels); + then a cache phase of a few samples at
//!    the very start (too short for the blocks and the dip filter, and with no left
//!    neighbour it is no excursion) is split off when the level after it lasts longer than a
//!    dip and the run does not soon return to it (+ a stall inside it, no longer than a dip,
//!    after which the rate comes back to its level, does not end it; + a start-up burst of a
//!    few samples above a level that later falls more than twice as far, and stays down, does
//!    not end it either; + a slow phase that swings widely does not hide it: when the run's
//!    noise scale finds nothing, that of its first samples is tried for a clear fall);
//! 6. every change refined at full resolution ([`refine`]): a posterior over its position
//!    with Student-t likelihoods, + GC dips modelled as events (a run of low samples costs one
//!    dip, not one outlier per sample), a straddling sample giving a sub-sample position,
//!    and + the levels on either side read beyond the window, or from the whole neighbouring
//!    segment when the window reaches (nearly) to its end;
//! 7. cache size = bytes written up to the first cliff from the byte counter, interpolated
//!    inside the straddling sample; the 95% interval maps to low/high bytes.
//!
//! A cliff is a lasting drop: the first drop, and later drops to a new lowest level that the
//! run never recovers from (a further, slower phase: folding). A rise, a drop after a
//! recovery that stays above the trough seen before, and a drop the run later climbs back
//! from (thermal throttling cycles) are not cliffs; they are post-cache phases and earn a
//! warning that the post-cache level is unstable. (+) Except when the low stretch before the
//! climb back was the cache running out ([`CacheReturn`]: at the level the drive sustains
//! after its last cliff, or deep and long): then the drop is a cliff, the climb back is the
//! cache returning while the drive is written, and the next drop is a cliff again.
//!
//! (+) With no cliff, a drop seen but too short to confirm (one high first sample, a short
//! high start or a low stretch at the end, either no longer than a dip) changes the lower bound to the bytes written
//! before it, with a warning: "the cache is at least all that was written" would be wrong.
//! [`synth`] generates traces with known truth for tests.

pub mod drive;
pub mod pelt;
pub mod periodic;
#[cfg(test)]
mod reference_tests;
pub mod refine;
mod select;
pub mod stop;
pub mod synth;

use serde::{Deserialize, Serialize};

use crate::timeline::{Sample, Timeline};
use crate::units::{format_bytes, format_rate, UnitSystem};
use refine::Level;

/// One cliff: a lasting drop in throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Estimated time of the drop, seconds since the start.
    pub t_s: f64,
    /// Lower end of the 95% interval for `t_s`.
    pub t_low_s: f64,
    /// Upper end of the 95% interval for `t_s`.
    pub t_high_s: f64,
    /// Bytes written before the cliff.
    pub bytes_written: u64,
    /// Mean throughput of the segment before the cliff, bytes/s.
    pub before_bytes_per_sec: f64,
    /// Mean throughput of the segment after the cliff, bytes/s.
    pub after_bytes_per_sec: f64,
}

/// The effective cache size with its 95% interval, in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEstimate {
    /// Best estimate.
    pub bytes: u64,
    /// Lower end of the interval.
    pub low_bytes: u64,
    /// Upper end of the interval.
    pub high_bytes: u64,
}

/// What a phase of the run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Writing into the SLC cache.
    Cache,
    /// After the cache ran out: writing directly to TLC/QLC.
    PostCache,
    /// A further, slower phase (folding SLC into QLC while writing).
    Folding,
    /// No change seen: one steady level throughout.
    Steady,
}

/// A stretch of the run at one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Start, seconds since the start of the run.
    pub start_s: f64,
    /// End, seconds.
    pub end_s: f64,
    /// Mean throughput over the phase, bytes/s.
    pub mean_bytes_per_sec: f64,
    /// What the phase was.
    pub kind: PhaseKind,
}

/// The result of analysing a timeline (the JSON contract of `analyze --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Total bytes written.
    pub bytes_total: u64,
    /// Duration of the timeline, seconds.
    pub duration_s: f64,
    /// Median sampling interval, seconds.
    pub interval_s: f64,
    /// Cliffs, first first.
    pub cliffs: Vec<Cliff>,
    /// The cache size, or `None` when no cliff was seen.
    pub cache_estimate: Option<CacheEstimate>,
    /// When no cliff was seen: the cache is at least this many bytes (all that was written).
    pub cache_lower_bound_bytes: Option<u64>,
    /// The phases of the run, in time order.
    pub phases: Vec<Phase>,
    /// Things a reviewer should know, as sentences.
    pub warnings: Vec<String>,
    /// Recurring slowdowns in a steady run, reported apart from cliffs (`null`: none).
    #[serde(default)]
    pub periodic: Option<periodic::Periodic>,
    /// Temporary slowdowns: lower stretches after which the level came back (garbage
    /// collection, a host hiccup). Not cliffs, and not part of the cache estimate. Absent from
    /// the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowdowns: Vec<Slowdown>,
    /// Returns of the cache while the drive was written: after a cliff, the rate came back
    /// to the cache's level (a dynamic SLC cache freed space) and later ran out again. The
    /// cache size is still the first cliff's. Absent from the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<CacheReturn>,
    /// With no cliff: a drop the run saw but could not confirm (inside the first sample, or
    /// a level after it that lasted no longer than a GC dip can). Absent from the JSON when
    /// there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconfirmed_drop: Option<UnconfirmedDrop>,
    /// The run only read: every byte and rate above is of its reads, and a "cliff" is a fall
    /// in the read rate, not a write cache running out. Absent from the JSON for runs that
    /// wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// How much of the span the run wrote, and what that lets it say of the speed after the
    /// last cliff. Absent when the span is not known (an imported log) or the run only read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

/// Where an [`UnconfirmedDrop`] lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropWhere {
    /// Inside the first sample: the sample mixes two levels, so the drop's time and the rate
    /// before it are not known, only that the rate before it was at least the sample's.
    FirstSample,
    /// After a short high start, with the lower level lasting to the end of the run.
    Start,
    /// A low stretch at the end of the run.
    End,
}

/// A drop seen but too short to call a cliff (see [`Analysis::unconfirmed_drop`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnconfirmedDrop {
    /// Where it lies.
    pub at: DropWhere,
    /// When the rate fell, seconds: the start of the sample it fell in (for a drop inside the
    /// first sample, the start of the run).
    pub t_s: f64,
    /// Latest time the fall can have happened, seconds (the end of the sample it fell in).
    pub t_high_s: f64,
    /// Bytes written before the drop (the lower bound of the cache, were the drop its end).
    pub bytes_low: u64,
    /// Most bytes the drop can have come after, when the sampling bounds it (inside the first
    /// sample); else the same as `bytes_low`.
    pub bytes_high: u64,
    /// The rate before the drop, bytes/s; for a drop inside the first sample only a lower
    /// bound (the sample's own rate, a mixture of the two levels).
    pub before_bytes_per_sec: f64,
    /// The rate after it, bytes/s.
    pub after_bytes_per_sec: f64,
    /// How long the lower level was seen, seconds.
    pub after_s: f64,
    /// The interval of the samples, seconds: what limits what the run can tell.
    pub interval_s: f64,
}

/// The level after the last cliff counts as "still a cache" when it is at least this share of
/// the in-cache rate (see [`Coverage::later_tier_possible`]).
pub const LATER_TIER_SHARE: f64 = 0.5;

/// How much of the span a run wrote, and the speeds that follow from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Bytes written.
    pub bytes_written: u64,
    /// The span the run could write in one pass, bytes.
    pub span_bytes: u64,
    /// True when the span is the whole drive (its capacity as the run recorded it).
    pub span_is_drive: bool,
    /// True when the run wrote at least the whole span.
    pub whole_span: bool,
    /// True when the early stop ended the run (the cliff was confirmed).
    pub stopped_early: bool,
    /// Bytes written after the last cliff (`null` without a cliff).
    pub bytes_after_last_cliff: Option<u64>,
    /// The mean rate over those bytes, bytes/s: what the run saw after the last cliff, not a
    /// sustained speed unless the run wrote the whole span.
    pub after_last_cliff_bytes_per_sec: Option<f64>,
    /// With the whole span written: the span over the time its first pass took, bytes/s (the
    /// whole-drive-fill average reviewers publish).
    pub whole_fill_bytes_per_sec: Option<f64>,
    /// The run did not write the whole span and the level after its last cliff is still at
    /// least [`LATER_TIER_SHARE`] of the in-cache rate: more like a second, slower cache tier
    /// than a drive's native write speed, so a later, slower tier may follow. Why half: on
    /// most drives of `data/published-drives.csv` the speed after the cache is well under half
    /// the in-cache rate (the QLC drives 3% to 20%, the 980 PRO 38%), while the FX700's
    /// middle tier is 70%. TLC drives whose native speed is above half (the 960 EVO 1TB at
    /// 63%, the SATA 870 EVO at 83%) also get the warning: a false alarm costs one run with
    /// `--cliffs 2`, a missed tier a sustained speed wrong by a factor of 27.
    pub later_tier_possible: bool,
}

/// The coverage of a run whose metadata names its span; `None` for imported logs and runs
/// that only read.
pub fn coverage(t: &Timeline, a: &Analysis) -> Option<Coverage> {
    let span = t.meta.workload.span_bytes.filter(|&s| s > 0)?;
    if a.read_only || t.samples.is_empty() {
        return None;
    }
    let bytes = t.bytes_total();
    let whole = bytes >= span;
    let last = a.cliffs.last();
    let after = last.map(|c| {
        let b = bytes.saturating_sub(c.bytes_written);
        let dt = t.duration_s() - c.t_s;
        (b, if dt > 0.0 { b as f64 / dt } else { 0.0 })
    });
    // The time the first pass over the span took: inside the sample that reached it.
    let whole_fill = if whole {
        let mut before = (t.samples[0].t_start_s(), 0u64);
        let mut at = t.duration_s();
        for s in &t.samples {
            if s.bytes_total >= span {
                let share = if s.bytes > 0 {
                    (span - before.1) as f64 / s.bytes as f64
                } else {
                    1.0
                };
                at = before.0 + share * (s.t_s - before.0);
                break;
            }
            before = (s.t_s, s.bytes_total);
        }
        let t0 = t.samples[0].t_start_s();
        (at > t0).then(|| span as f64 / (at - t0))
    } else {
        None
    };
    let later = !whole
        && match (a.cliffs.first(), last) {
            (Some(f), Some(l)) => {
                l.after_bytes_per_sec >= LATER_TIER_SHARE * f.before_bytes_per_sec
            }
            _ => false,
        };
    Some(Coverage {
        bytes_written: bytes,
        span_bytes: span,
        span_is_drive: t.meta.device.capacity_bytes == Some(span),
        whole_span: whole,
        stopped_early: t.meta.stop_reason == Some(crate::timeline::StopReason::CliffConfirmed),
        bytes_after_last_cliff: after.map(|x| x.0),
        after_last_cliff_bytes_per_sec: after.map(|x| x.1),
        whole_fill_bytes_per_sec: whole_fill,
        later_tier_possible: later,
    })
}

/// The coverage in words, for every output: `measured to 157 GB of 2.00 TB (stopped early)`,
/// or `filling the whole drive completes at 165 MB/s on average` (`span` for a span smaller
/// than the drive is not known here: the words say "the whole span").
pub fn coverage_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let c = a.coverage.as_ref()?;
    Some(match c.whole_fill_bytes_per_sec {
        Some(r) if c.whole_span && c.span_is_drive => format!(
            "filling the whole drive ({}) completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        ),
        Some(r) if c.whole_span => format!(
            "filling the whole {} span completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        ),
        _ => format!(
            "measured to {} of {}{}",
            format_bytes(c.bytes_written as f64, units),
            format_bytes(c.span_bytes as f64, units),
            if c.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        ),
    })
}

/// The speed after the last cliff in words, labelled as what it is:
/// `3401 MB/s over the 103 GB written after the last cliff` (and `, to the end of the span`
/// when the run wrote all of it).
pub fn after_last_cliff_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let c = a.coverage.as_ref()?;
    let (b, r) = c
        .bytes_after_last_cliff
        .zip(c.after_last_cliff_bytes_per_sec)?;
    Some(format!(
        "{} over the {} written after the last cliff{}",
        format_rate(r, units),
        format_bytes(b as f64, units),
        if c.whole_span {
            ", to the end of the span"
        } else {
            ""
        }
    ))
}

/// The warning for [`Coverage::later_tier_possible`].
fn later_tier_warning(a: &Analysis, c: &Coverage, units: UnitSystem) -> Option<String> {
    if !c.later_tier_possible {
        return None;
    }
    let (first, last) = (a.cliffs.first()?, a.cliffs.last()?);
    let n = a.cliffs.len();
    Some(format!(
        "the run wrote {} of the {} span and the level after its last cliff, {}, is still {:.0}% \
         of the in-cache rate ({}): that looks like a second, slower cache tier rather than the \
         drive's native write speed (which is under half of the in-cache rate on most drives of \
         data/published-drives.csv), so a later, slower tier may follow and {} is not the \
         sustained speed; to find it, run the same command again with --cliffs {} (or \
         --no-early-stop to write the whole span)",
        format_bytes(c.bytes_written as f64, units),
        format_bytes(c.span_bytes as f64, units),
        format_rate(last.after_bytes_per_sec, units),
        100.0 * last.after_bytes_per_sec / first.before_bytes_per_sec.max(1.0),
        format_rate(first.before_bytes_per_sec, units),
        format_rate(last.after_bytes_per_sec, units),
        n + 1
    ))
}

/// A temporary slowdown: the throughput fell and later came back to the level before it,
/// and the low stretch was neither at the level the drive sustains after its last cliff nor
/// deep and long (see [`CacheReturn`]): a garbage-collection dip or a host hiccup, not the
/// cache running out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slowdown {
    /// When it started, seconds since the start of the run.
    pub t_s: f64,
    /// How long it lasted, seconds.
    pub duration_s: f64,
    /// Bytes written during it.
    pub bytes: u64,
    /// Bytes written before it started.
    pub bytes_before: u64,
    /// Mean throughput before it, bytes/s.
    pub before_bytes_per_sec: f64,
    /// Mean throughput during its lowest stretch, bytes/s.
    pub low_bytes_per_sec: f64,
    /// The drop into it was thermal throttling (the drive's thermal-management counters rose,
    /// or the drive was at its hottest): heat, not garbage collection or the host. Absent
    /// from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thermal: bool,
}

/// The cache came back while the drive was written: after a low stretch that was the cache
/// running out (it sat at the level the drive sustains after its last cliff, or it was deep,
/// under [`DEEP_SHARE`] of the rate before it, and longer than [`DEEP_LONG_S`]), the rate
/// returned to the cache's level. A dynamic SLC cache does this: the drive frees SLC while it
/// is still being written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheReturn {
    /// When the rate came back, seconds since the start of the run.
    pub t_s: f64,
    /// Bytes written before it came back.
    pub bytes_before: u64,
    /// Bytes written at the higher rate before the next cliff (or the end of the run).
    pub bytes: u64,
    /// How long the higher rate lasted, seconds.
    pub duration_s: f64,
    /// Mean throughput while it lasted, bytes/s.
    pub bytes_per_sec: f64,
    /// Mean throughput of the low stretch before it, bytes/s.
    pub low_bytes_per_sec: f64,
    /// Whether the cache ran out again (a cliff ends it) rather than the run ending.
    pub ran_out_again: bool,
}

/// A low stretch this deep (its rate under this share of the level before it) and longer
/// than [`DEEP_LONG_S`] is the cache running out even when the rate comes back.
pub const DEEP_SHARE: f64 = 0.4;
/// Seconds: ten of the longest garbage-collection dips the detector is built to ignore.
pub const DEEP_LONG_S: f64 = 10.0 * MAX_DIP_S;
/// A low stretch within this (ln, about 35%) of the level after the run's last cliff sits at
/// the level the drive sustains without its cache.
const SAME_LEVEL: f64 = 0.3;
/// A low stretch at the post-cache level must last at least this long (seconds, four dips)
/// to be the cache running out.
const AT_LEVEL_LONG_S: f64 = 4.0 * MAX_DIP_S;

/// One line for the returns of the cache, or `None` without any:
/// `cache came back once while writing: +13.9 GB`.
pub fn returns_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    if a.returns.is_empty() {
        return None;
    }
    let times = match a.returns.len() {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    };
    let each: Vec<String> = a
        .returns
        .iter()
        .map(|r| format!("+{}", format_bytes(r.bytes as f64, units)))
        .collect();
    Some(format!(
        "cache came back {times} while writing: {}",
        each.join(", ")
    ))
}

/// The words for a run that only read, in place of a cache size: reads measure no write cache.
/// `Reads only (1.90 GB read): no write cache measured`.
pub fn read_only_text(a: &Analysis, units: UnitSystem) -> String {
    format!(
        "Reads only ({} read): no write cache measured",
        format_bytes(a.bytes_total as f64, units)
    )
}

/// The words for "no cliff seen" with the lower bound `bound` (or `bytes_total` when there is
/// none): "no cache, or one larger than X". A run that saw no cliff cannot tell a drive
/// without an SLC cache from one whose cache is larger than what was written.
pub fn no_cliff_text(bound: Option<u64>, bytes_total: u64, units: UnitSystem) -> String {
    format!(
        "no cache, or one larger than {}",
        format_bytes(bound.unwrap_or(bytes_total) as f64, units)
    )
}

/// What to do for finer samples than `dt` seconds, in words every subcommand can follow:
/// slccache's own runs take `--interval`; `analyze` reads what it is given, so a log from
/// another tool needs that tool's logging interval shortened.
fn finer_sampling(dt: f64) -> String {
    let (flag, words) = if dt > 0.15 {
        ("100ms", "100 ms")
    } else {
        ("20ms", "20 ms")
    };
    format!(
        "sample more often, e.g. every {words} (--interval {flag} on a run of slccache; a log \
         from another tool needs its own logging interval shortened)"
    )
}

/// True when phase `p` of `a` lies inside a slowdown that was thermal throttling: the drive
/// slowed for heat there, so it is no "after the cache" level.
pub fn is_throttled(a: &Analysis, p: &Phase) -> bool {
    a.slowdowns
        .iter()
        .any(|s| s.thermal && p.start_s >= s.t_s - 1e-6 && p.end_s <= s.t_s + s.duration_s + 1e-6)
}

/// The words for an [`UnconfirmedDrop`], for a result line, a subtitle or a table: what was
/// seen, and what it bounds. "a drop inside the first 1.00 s sample (at least 1078 MB/s ->
/// 302 MB/s): a cache of 776 MB to 1.08 GB if it was the cache running out" or "a drop after
/// 539 MB too short to confirm (199 MB/s -> 41.9 MB/s for the last 1.7 s): the cache is at
/// least 539 MB".
pub fn unconfirmed_drop_text(d: &UnconfirmedDrop, units: UnitSystem) -> String {
    match d.at {
        DropWhere::FirstSample => format!(
            "a drop inside the first {} sample (at least {} -> {}): a cache of {} to {} if it \
             was the cache running out",
            crate::units::format_interval(d.interval_s),
            format_rate(d.before_bytes_per_sec, units),
            format_rate(d.after_bytes_per_sec, units),
            format_bytes(d.bytes_low as f64, units),
            format_bytes(d.bytes_high as f64, units),
        ),
        DropWhere::Start | DropWhere::End => format!(
            "a drop after {} too short to confirm ({} -> {} for the last {:.1} s): the cache \
             is at least {}",
            format_bytes(d.bytes_low as f64, units),
            format_rate(d.before_bytes_per_sec, units),
            format_rate(d.after_bytes_per_sec, units),
            d.after_s,
            format_bytes(d.bytes_low as f64, units),
        ),
    }
}

/// Longest garbage-collection dip the detector is built to ignore, seconds.
const MAX_DIP_S: f64 = 3.0;
/// Fewest blocks the block-median series keeps.
const MIN_BLOCKS: usize = 60;
/// Most blocks the block-median series keeps (longer runs get longer blocks).
const MAX_BLOCKS: usize = 4000;
/// Smallest step (in ln throughput) that counts as a change: about 10%.
const MIN_STEP: f64 = 0.10;
/// Most changes kept in one run: enough for a drive that cycles between two post-cache levels
/// (thermal throttling) without merging the cache cliff into a later step.
const MAX_CHANGES: usize = 12;
/// A segment this far (ln) below the highest level before it is a stall: under 0.15% of it,
/// which no drive's slowest phase is (QLC folding is still 0.5% or more of its cache speed),
/// while stalled samples sit at the floor of 0.1% of the median rate.
const STALL_DROP: f64 = 6.5;
/// First and last segments shorter than this (seconds) are merged into their neighbour.
const TINY_END_S: f64 = 3.5;

/// A segment of the run at one level, in sample indices `start..end`.
#[derive(Debug, Clone, Copy)]
struct Seg {
    start: usize,
    end: usize,
    /// Robust level: median of ln throughput.
    level: f64,
}

/// The median of `v` (reordered; the mean of the two middle values for even lengths):
/// selection in O(n), the same value a sort gives (`periodic::median`).
fn median(v: &mut [f64]) -> f64 {
    periodic::median(v)
}

/// [`median`] of values that stay as they are: a long stretch is bracketed, not copied
/// ([`select`]).
fn median_of(v: &[f64]) -> f64 {
    select::median_by(v, |a| a)
}

/// Median in O(n) (selection); for even lengths the upper middle value. A long slice is read
/// only ([`select`]); a short one is reordered.
fn fast_median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let k = v.len() / 2;
    if v.len() >= select::BRACKET_MIN {
        return select::kth(v, k);
    }
    *v.select_nth_unstable_by(k, |a, b| a.total_cmp(b)).1
}

/// [`fast_median`] of values that stay as they are (NaN for none).
fn upper_median_of(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    select::kth(v, v.len() / 2)
}

/// Running median with half-width `h`; windows shrink at the ends so that a short phase at
/// the start or end of the run survives.
fn running_median(y: &[f64], h: usize) -> Vec<f64> {
    let n = y.len();
    let mut buf = Vec::with_capacity((2 * h + 1).min(n));
    (0..n)
        .map(|i| {
            let v = &y[i.saturating_sub(h)..(i + h + 1).min(n)];
            select::median_keyed(v.iter().copied(), &mut buf)
        })
        .collect()
}

/// 1.4826 * median absolute deviation: a robust standard deviation.
fn mad_scale(v: &[f64]) -> f64 {
    if v.len() >= select::BRACKET_MIN {
        // Read twice, never copied.
        return mad_scale_about(v, upper_median_of(v));
    }
    mad_scale_owned(v.to_vec())
}

/// [`mad_scale`] of values the caller no longer needs: the deviations are made in place
/// (a median does not depend on the order the selection left), so no copy.
fn mad_scale_owned(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let m = fast_median(&mut v);
    if v.len() >= select::BRACKET_MIN {
        return mad_scale_about(&v, m);
    }
    for x in &mut v {
        *x = (*x - m).abs();
    }
    1.4826 * fast_median(&mut v)
}

/// [`mad_scale`] of `v` whose [`fast_median`] `m` is known already (a segment's level): only
/// the deviations are selected, as they are read ([`select::kth_by`]). The same value, since
/// a median does not depend on the order of the values.
fn mad_scale_about(v: &[f64], m: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    1.4826 * select::kth_by(v, v.len() / 2, |x| (x - m).abs())
}

/// Noise scale of single samples (ln) from first differences `d`: 1.4826 * MAD / sqrt(2).
/// In a short run the changes themselves are a large share of the differences (a cliff, a
/// straddling sample and one dip are four of seven in an eight-sample run) and inflate the
/// MAD until a threefold drop looks like noise. Below 30 differences the scale is therefore
/// also read off the lower quartile of |d| (for Gaussian noise 0.4506 sigma), which holds
/// with up to three quarters of the differences taken by changes; the smaller of the two wins.
fn sample_noise(d: Vec<f64>) -> f64 {
    if d.len() >= 30 || d.len() < 4 {
        return mad_scale_owned(d) / std::f64::consts::SQRT_2;
    }
    let mad = mad_scale(&d) / std::f64::consts::SQRT_2;
    let mut a: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    a.sort_by(|x, y| x.total_cmp(y));
    let q25 = a[(a.len() - 1) / 4];
    mad.min(q25 / 0.4506)
}

/// [`sample_noise`] of the first differences of `x`: a long series's differences are
/// selected as they are read ([`select::kth_of`]), not stored.
fn diff_noise(x: &[f64]) -> f64 {
    let n = x.len().saturating_sub(1);
    if n < select::BRACKET_MIN {
        return sample_noise(x.windows(2).map(|p| p[1] - p[0]).collect());
    }
    let d = |i: usize| x[i + 1] - x[i];
    let m = select::kth_of(n, n / 2, d);
    1.4826 * select::kth_of(n, n / 2, |i| (d(i) - m).abs()) / std::f64::consts::SQRT_2
}

/// The columns of a timeline the detector reads again and again, gathered in one pass over
/// the samples (a `Sample` is about 250 bytes, so at a million samples every pass over them
/// is a pass over 250 MB): throughput, interval lengths when they differ, whether the
/// interval ends only grow, and whether the optional columns (CPU, temperature, thermal
/// counters) hold anything, so that the warnings built on them skip the samples when they do
/// not. Only what the common path reads is stored: each column of a million samples is 8 MB
/// of fresh memory.
struct Columns {
    /// `bytes_per_sec` per sample.
    rate: Vec<f64>,
    /// Every `t_s` is at least the one before it (so a count of the samples that end by a
    /// time is a binary search).
    ordered: bool,
    /// `interval_s` per sample, when they differ; empty when every interval is the first
    /// (most runs: a million samples would otherwise take 8 MB for one number).
    interval: Vec<f64>,
    /// The first sample's `interval_s` (0 for no samples).
    first_interval: f64,
    /// Some sample has `cpu_pct`.
    cpu: bool,
    /// Some sample has `temp_c`.
    temp: bool,
    /// Some sample has `thermal_transitions`.
    thermal: bool,
    /// Every interval has the same length (bit for bit) as the first.
    uniform: bool,
    /// The least and the largest `bytes_per_sec` that is a number (`+inf` and `-inf` for
    /// none), and whether some is NaN: what [`Columns::above_floor`] reads.
    rate_min: f64,
    rate_max: f64,
    rate_nan: bool,
}

impl Columns {
    fn of(samples: &[Sample]) -> Columns {
        let n = samples.len();
        let first_interval = samples.first().map_or(0.0, |s| s.interval_s);
        let mut c = Columns {
            rate: Vec::with_capacity(n),
            ordered: true,
            interval: Vec::new(),
            first_interval,
            cpu: false,
            temp: false,
            thermal: false,
            uniform: true,
            rate_min: f64::INFINITY,
            rate_max: f64::NEG_INFINITY,
            rate_nan: false,
        };
        note_pass(n);
        let mut last_t = f64::NEG_INFINITY;
        for (i, s) in samples.iter().enumerate() {
            let r = s.bytes_per_sec;
            c.rate.push(r);
            c.rate_min = c.rate_min.min(r);
            c.rate_max = c.rate_max.max(r);
            c.rate_nan |= r.is_nan();
            // NaN compares false, and so is out of order.
            c.ordered &= s.t_s >= last_t;
            last_t = s.t_s;
            if c.uniform && s.interval_s.to_bits() != first_interval.to_bits() {
                // The first that differs: the ones before it were all the first.
                c.uniform = false;
                c.interval.reserve_exact(n);
                c.interval.resize(i, first_interval);
            }
            if !c.uniform {
                c.interval.push(s.interval_s);
            }
            c.cpu |= s.cpu_pct.is_some();
            c.temp |= s.temp_c.is_some();
            c.thermal |= s.thermal_transitions.is_some();
        }
        c
    }

    /// Whether no rate is below the stall floor `max(1e-3 m, 1)` of [`analyze_levels`]
    /// (`m` the upper median of the rates), known without the median: `m` is at most the
    /// largest rate, so the floor is at most `max(1e-3 max, 1)`; when the least rate is at
    /// least that (and none is NaN), `r.max(floor)` is `r` for every rate.
    fn above_floor(&self) -> bool {
        !self.rate_nan && self.rate_min >= (1e-3 * self.rate_max).max(1.0)
    }

    /// The length of interval `i` (as [`Sample::interval_s`]).
    fn interval(&self, i: usize) -> f64 {
        if self.uniform {
            self.first_interval
        } else {
            self.interval[i]
        }
    }

    /// The median interval length, as [`Timeline::interval_s`] gives it (the upper middle
    /// value for even counts), by selection instead of a sort: the same value.
    fn interval_s(&self) -> f64 {
        if self.uniform {
            // All equal (or none, 0): that value is the median.
            return self.first_interval;
        }
        upper_median_of(&self.interval)
    }
}

#[cfg(test)]
thread_local! {
    /// Samples read by the passes over the whole run (tests count the work with it).
    static SAMPLES_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Samples read to find a later fall after a start-up burst (tests count the work).
    static LEVEL_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Stretches whose level was selected ([`Work::level`]; tests count the work).
    static LEVEL_SELECTIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Notes one level selected by [`Work::level`] (counted in tests only).
fn count_level_selection() {
    #[cfg(test)]
    LEVEL_SELECTIONS.with(|c| c.set(c.get() + 1));
}

/// Notes `n` samples read by [`later_fall`] (counted in tests only).
fn count_level_reads(n: usize) {
    #[cfg(test)]
    LEVEL_READS.with(|c| c.set(c.get() + n));
    let _ = n;
}

/// Notes a pass over `n` samples (counted in tests only).
fn note_pass(n: usize) {
    #[cfg(test)]
    SAMPLES_READ.with(|c| c.set(c.get() + n));
    let _ = n;
}

/// The detector's working state for one timeline.
struct Work<'a> {
    samples: &'a [Sample],
    /// The samples' columns.
    cols: &'a Columns,
    /// ln(throughput) per sample.
    x: Vec<f64>,
    /// Samples per block.
    b: usize,
    /// Block medians.
    y: Vec<f64>,
    /// The levels taken so far, by `(start, end)`: the clean-up and the start-up checks ask
    /// for the same stretches again and again (`x` never changes once made).
    levels: std::cell::RefCell<std::collections::HashMap<(usize, usize), f64>>,
}

impl Work<'_> {
    fn block_range(&self, k: usize) -> (usize, usize) {
        let m = self.y.len();
        let s = k * self.b;
        let e = if k + 1 == m {
            self.x.len()
        } else {
            (k + 1) * self.b
        };
        (s, e)
    }
    fn t_start(&self, i: usize) -> f64 {
        self.samples[i].t_start_s()
    }
    fn t_end(&self, i: usize) -> f64 {
        self.samples[i - 1].t_s
    }
    fn duration(&self, s: &Seg) -> f64 {
        self.t_end(s.end) - self.t_start(s.start)
    }
    /// Level of samples `start..end`: the median of their ln throughput, selected once per
    /// stretch.
    fn level(&self, start: usize, end: usize) -> f64 {
        if let Some(&l) = self.levels.borrow().get(&(start, end)) {
            return l;
        }
        count_level_selection();
        let l = upper_median_of(&self.x[start..end]);
        self.levels.borrow_mut().insert((start, end), l);
        l
    }
    fn seg(&self, start: usize, end: usize) -> Seg {
        Seg {
            start,
            end,
            level: self.level(start, end),
        }
    }
}

/// The longest low stretch between two equal levels that is taken as a dip (or dips), not a
/// phase, seconds.
fn excursion_s(w: &Work) -> f64 {
    let dt = w.samples[0].interval_s.max(1e-9);
    let block_s = w.b as f64 * dt;
    (2.0 * MAX_DIP_S + 3.0 * dt + 2.0 * block_s).max(2.5 * block_s)
}

/// Removes spurious changes until none is left: excursions (a short segment whose
/// neighbours are at the same level) lose both boundaries; too-short end segments merge into
/// their neighbour; steps under [`MIN_STEP`] merge; at most [`MAX_CHANGES`] are kept.
fn clean(w: &Work, mut segs: Vec<Seg>) -> Vec<Seg> {
    let block_s = w.b as f64 * w.samples[0].interval_s.max(1e-9);
    let dt = w.samples[0].interval_s.max(1e-9);
    let excursion_s = excursion_s(w);
    // A last segment this short is a dip at the end of the run, not a phase.
    let end_s = MAX_DIP_S + 2.0 * dt + block_s;
    loop {
        let k = segs.len();
        if k <= 1 {
            return segs;
        }
        // 1. Excursions: the shortest run of middle segments that leaves one level and
        //    returns to it (a dip, or a dip cut into pieces) loses all its boundaries.
        let mut best: Option<(usize, usize, f64)> = None;
        for p in 0..k.saturating_sub(2) {
            for q in (p + 2)..k.min(p + 10) {
                let d = w.t_end(segs[q - 1].end) - w.t_start(segs[p + 1].start);
                if d > excursion_s {
                    break;
                }
                let same = (segs[p].level - segs[q].level).abs() < MIN_STEP;
                if same && best.is_none_or(|(_, _, bd)| d < bd) {
                    best = Some((p, q, d));
                }
            }
        }
        if let Some((p, q, _)) = best {
            let merged = w.seg(segs[p].start, segs[q].end);
            segs.splice(p..=q, [merged]);
            continue;
        }
        // 2. Too-short segments: ends below TINY_END_S, middles below tiny_mid_s.
        let mut short: Option<(usize, f64)> = None;
        for (j, s) in segs.iter().enumerate() {
            let d = w.duration(s);
            let limit = if j == 0 {
                TINY_END_S
            } else if j + 1 == k {
                // A short last segment that still reaches the level before it between its
                // lows is dips at the end of the run; a shorter one is merged regardless.
                if d >= excursion_s {
                    continue;
                }
                let mut v = w.x[s.start..s.end].to_vec();
                v.sort_by(|a, b| a.total_cmp(b));
                let q90 = v[(v.len() * 9 / 10).min(v.len() - 1)];
                if q90 >= segs[j - 1].level - 0.5 * MIN_STEP {
                    excursion_s
                } else {
                    end_s
                }
            } else {
                // A middle phase shorter than an excursion is a transition or a dip at a
                // cliff, not a phase of its own.
                excursion_s
            };
            if d < limit && short.is_none_or(|(_, bd)| d < bd) {
                short = Some((j, d));
            }
        }
        if let Some((j, _)) = short {
            let into_prev = if j == 0 {
                false
            } else if j + 1 == k {
                true
            } else {
                (segs[j].level - segs[j - 1].level).abs()
                    <= (segs[j].level - segs[j + 1].level).abs()
            };
            let (a, b) = if into_prev { (j - 1, j) } else { (j, j + 1) };
            let merged = w.seg(segs[a].start, segs[b].end);
            segs.splice(a..=b, [merged]);
            continue;
        }
        // 3. Small steps, and 4. too many changes: drop the smallest step.
        let (j, step) = (1..k)
            .map(|j| (j, (segs[j].level - segs[j - 1].level).abs()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((1, f64::INFINITY));
        if step < MIN_STEP || k - 1 > MAX_CHANGES {
            let merged = w.seg(segs[j - 1].start, segs[j].end);
            segs.splice(j - 1..=j, [merged]);
            continue;
        }
        return segs;
    }
}

/// A run of samples at the start of the first segment that is clearly above the level after
/// it: a cache phase too short for the block medians (or a start-up burst).
#[derive(Debug, Clone, Copy)]
struct HighStart {
    /// First sample of the run (1 after a ramp-up first sample, else 0).
    skip: usize,
    /// Samples in the run, the straddling one included.
    run: usize,
    /// First sample of the drop (the straddling sample when there is one).
    cut: usize,
    /// Level of the run before the straddling sample, ln bytes/s.
    high: f64,
    /// Level after the run, ln bytes/s.
    low: f64,
    /// Whether the level after the run lasts longer than a GC dip and never returns to the
    /// run's level.
    lasting: bool,
}

/// Looks for a [`HighStart`] in the first segment, with `sigma_x` the noise scale of single
/// samples (ln) over the whole run.
///
/// A slow phase that swings widely (a throttle letting writes through in clumps: 21, 42 and
/// 58 MB/s in turn) inflates that scale until a fivefold fall at the start reads as noise.
/// When the run's scale finds no lasting high start, the scale of the first
/// [`HEAD_NOISE_SAMPLES`] samples is tried instead, and its answer kept only for a high start
/// that lasts and falls to under half its level: a cache phase that clear needs no scale
/// from the swings after it.
fn high_start(w: &Work, segs: &[Seg], sigma_x: f64) -> Option<HighStart> {
    let found = high_start_with(w, segs, sigma_x);
    if found.is_some_and(|h| h.lasting) {
        return found;
    }
    let s0 = &segs[0];
    let head = &w.x[s0.start..s0.end.min(s0.start + HEAD_NOISE_SAMPLES)];
    let d: Vec<f64> = head.windows(2).map(|p| p[1] - p[0]).collect();
    let sigma_head = sample_noise(d);
    if sigma_head >= sigma_x {
        return found;
    }
    match high_start_with(w, segs, sigma_head) {
        Some(h) if h.lasting && h.run >= 2 && h.high - h.low > 2f64.ln() => Some(h),
        _ => found,
    }
}

/// Samples at the start of the run whose noise scale [`high_start`] tries when the run's
/// scale finds nothing: enough for a short cache phase and a few samples after it.
const HEAD_NOISE_SAMPLES: usize = 30;

/// [`high_start`] with the noise scale `sigma_x` given.
/// The first `f` in `run + 2..x.len()` where the rate falls from `mid`, the level of
/// `x[run..f]`, to a `tail` level (of `x[f..]`) lower by more than `thr` and twice `burst`
/// (and by less than a stall) and stays down: at most a tenth of `x[f..]` above `mid - thr`,
/// three samples at least. The levels are [`fast_median`]s (the upper middle value). Every
/// `f` is tried, as a search that takes each level afresh would, but the levels come from
/// running order statistics and the counts from a Fenwick tree over the values' ranks:
/// O(n log n) instead of O(n^2) (a 300k-sample first segment took 45 s).
fn later_fall(x: &[f64], run: usize, thr: f64, burst: f64) -> Option<usize> {
    let n = x.len();
    if run + 2 >= n {
        return None;
    }
    if x.iter().any(|v| v.is_nan()) {
        // The rank counting below assumes every value compares; keep the plain search.
        return later_fall_plain(x, run, thr, burst);
    }
    count_level_reads(n - run);
    // mid[f - run] for f in run + 1..=n: the level of x[run..f].
    let mut prefix = UpperMedian::default();
    let mut mid = vec![f64::NAN; n - run + 1];
    for f in run + 1..=n {
        prefix.push(x[f - 1]);
        mid[f - run] = prefix.get();
    }
    // tail[f - run] for f in run..n: the level of x[f..].
    let mut suffix = UpperMedian::default();
    let mut tail = vec![f64::NAN; n - run + 1];
    for f in (run..n).rev() {
        suffix.push(x[f]);
        tail[f - run] = suffix.get();
    }
    // Values of x[run..] in order, and a Fenwick tree of which have been added (from the end).
    let mut sorted: Vec<f64> = x[run..].to_vec();
    sorted.sort_unstable_by(|a, b| a.total_cmp(b));
    let mut tree = vec![0u32; sorted.len() + 1];
    let add = |tree: &mut Vec<u32>, pos: usize| {
        let mut i = pos + 1;
        while i < tree.len() {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    };
    let below = |tree: &Vec<u32>, pos: usize| -> usize {
        let (mut i, mut c) = (pos, 0usize);
        while i > 0 {
            c += tree[i] as usize;
            i -= i & i.wrapping_neg();
        }
        c
    };
    // A value's own slot: equal values take consecutive slots, one each.
    let mut next_slot = vec![0usize; sorted.len()];
    let mut ok = vec![false; n - run + 1];
    let mut added = 0usize;
    for f in (run..n).rev() {
        let first = sorted.partition_point(|v| v.total_cmp(&x[f]).is_lt());
        add(&mut tree, first + next_slot[first]);
        next_slot[first] += 1;
        added += 1;
        if f < run + 2 {
            continue;
        }
        let (m, t) = (mid[f - run], tail[f - run]);
        let q = m - thr;
        // Added values above q: all added minus those at or below it (with no NaN, `v <= q`
        // is `!(v > q)`, and it holds exactly on a leading stretch of the sorted values).
        let at_or_below = sorted.partition_point(|&v| v <= q);
        let up = added - below(&tree, at_or_below);
        ok[f - run] = added >= 3
            && x[f] < q
            && m - t > thr.max(2.0 * burst)
            && m - t < STALL_DROP
            && up * 10 <= added;
    }
    (run + 2..n).find(|&f| ok[f - run])
}

/// [`later_fall`] the plain way, each level taken afresh: O(n^2) in `x`'s length, kept for
/// values that do not all compare (NaN) and as the reference the tests hold it to.
fn later_fall_plain(x: &[f64], run: usize, thr: f64, burst: f64) -> Option<usize> {
    (run + 2..x.len()).find(|&f| {
        let mid = upper_median_of(&x[run..f]);
        let rest = &x[f..];
        let tail = upper_median_of(rest);
        let up = rest.iter().filter(|&&v| v > mid - thr).count();
        rest.len() >= 3
            && x[f] < mid - thr
            && mid - tail > thr.max(2.0 * burst)
            && mid - tail < STALL_DROP
            && up * 10 <= rest.len()
    })
}

/// The upper middle value ([`fast_median`]) of the values pushed so far, kept up as values
/// come: the `len / 2` smallest in a max-heap, the rest in a min-heap.
#[derive(Default)]
struct UpperMedian {
    low: std::collections::BinaryHeap<Total>,
    high: std::collections::BinaryHeap<std::cmp::Reverse<Total>>,
}

/// An `f64` ordered by `total_cmp`, as the detector's medians order values.
#[derive(Clone, Copy, PartialEq)]
struct Total(f64);
impl Eq for Total {}
impl PartialOrd for Total {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Total {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl UpperMedian {
    fn push(&mut self, v: f64) {
        match self.low.peek() {
            Some(top) if Total(v) < *top => self.low.push(Total(v)),
            _ => self.high.push(std::cmp::Reverse(Total(v))),
        }
        let k = (self.low.len() + self.high.len()) / 2;
        while self.low.len() > k {
            let t = self.low.pop().expect("non-empty");
            self.high.push(std::cmp::Reverse(t));
        }
        while self.low.len() < k {
            let std::cmp::Reverse(t) = self.high.pop().expect("non-empty");
            self.low.push(t);
        }
    }
    fn get(&self) -> f64 {
        self.high.peek().map_or(f64::NAN, |r| r.0 .0)
    }
}

fn high_start_with(w: &Work, segs: &[Seg], sigma_x: f64) -> Option<HighStart> {
    let s0 = &segs[0];
    let x = &w.x[s0.start..s0.end];
    let thr = MIN_STEP.max(3.0 * sigma_x);
    // A first sample clearly below the second is the queue filling up (a ramp): the run
    // may start after it.
    let skip = usize::from(x.len() > 3 && x[0] < x[1] - thr && x[1] > s0.level + thr);
    // End (exclusive) of the leading run of samples above `low` by more than a step.
    let lead = |low: f64| skip + x[skip..].iter().take_while(|&&v| v > low + thr).count();
    let mut run = lead(s0.level);
    if run == skip || run >= x.len() {
        return None;
    }
    let low = w.level(s0.start + run, s0.end);
    run = lead(low);
    if run == skip || run >= x.len() {
        return None;
    }
    let mut low = w.level(s0.start + run, s0.end);
    // A short low stretch inside the run (a GC pause or a stall of the host) after which the
    // rate comes back to the run's level belongs to the run: the run ends where the rate
    // falls and stays down, not at its first dip.
    loop {
        let high = median_of(&x[skip..run]);
        let Some(back) = x[run..]
            .iter()
            .position(|&v| v > high - thr)
            .map(|p| run + p)
        else {
            break;
        };
        if w.t_start(s0.start + back) - w.t_start(s0.start + run) > MAX_DIP_S {
            break;
        }
        let again = back + x[back..].iter().take_while(|&&v| v > low + thr).count();
        if again - back < 2 || again >= x.len() {
            break;
        }
        run = again;
        low = w.level(s0.start + run, s0.end);
    }
    // A start-up burst: a few samples above a level that later falls much further and stays
    // down (three samples at least, and not to a stall) to the end of the segment (241 and 257 MB/s, then 199 MB/s for 2.2 s, then
    // 40 MB/s). When that later fall is more than twice the burst's step, the cache phase is
    // the burst and the level after it, and it ends at the later fall; while the stretch
    // after the fall is shorter than the one before it, the median `low` is still the
    // cache's level and hides it.
    {
        let burst = median_of(&x[skip..run]) - low;
        let later = later_fall(x, run, thr, burst);
        if let Some(f) = later {
            run = f;
            low = w.level(s0.start + run, s0.end);
        }
    }
    // The sample after the run may straddle the drop: then it is above the low level, if
    // by less than a whole step.
    if run + 1 < x.len()
        && x[run] > low + (0.5 * MIN_STEP).max(2.0 * sigma_x)
        && x[run] < x[run - 1] - thr
    {
        run += 1;
        low = w.level(s0.start + run, s0.end);
    }
    if skip > 0 && run - skip < 2 {
        // One high sample between a ramp and the rest is a spike.
        return None;
    }
    // The last sample of the run straddles the drop when it is clearly below the others.
    let cut = if run - skip >= 2 {
        let high = median_of(&x[skip..run - 1]);
        if x[run - 1] < high - thr {
            run - 1
        } else {
            run
        }
    } else {
        run
    };
    let rest = &x[run..];
    let dt = w.samples[0].interval_s.max(1e-9);
    let rest_s = w.t_end(s0.end) - w.t_start(s0.start + run);
    // A low stretch that the run leaves again for the level before it is a dip unless it
    // lasts longer than an excursion.
    let high = w.level(s0.start + skip, s0.start + cut.max(skip + 1));
    // Samples of the rest that return: above the low level by more than the noise, and
    // nearer the run's level than the low one (a low level that swings is still low).
    let back = rest
        .iter()
        .filter(|&&v| v > (low + thr).max(0.5 * (low + high)))
        .count();
    let returns = segs
        .get(1)
        .is_some_and(|s1| s1.level > high - MIN_STEP && rest_s < excursion_s(w));
    let lasting = rest_s >= MAX_DIP_S + 2.0 * dt && back * 10 <= rest.len() && !returns;
    Some(HighStart {
        skip: s0.start + skip,
        run: run - skip,
        cut: s0.start + cut,
        high,
        low,
        lasting,
    })
}

/// A drop seen but too short to call a cliff, in a run without a cliff: a short high run at
/// the start (one sample, or a level after it that lasts no longer than a GC dip), or a low
/// run at the end. Either may be the cache running out, so "the cache is at least all that
/// was written" would be wrong. Returns a lower bound that holds either way (the bytes
/// written before the drop) and a warning.
fn unconfirmed_drop(
    w: &Work,
    segs: &[Seg],
    start: Option<HighStart>,
    sigma_x: f64,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let samples = w.samples;
    let units = UnitSystem::Decimal;
    let b0 = (samples[0].bytes_total - samples[0].bytes.min(samples[0].bytes_total)) as f64;
    let dt = w.samples[0].interval_s;
    let thr = MIN_STEP.max(4.0 * sigma_x);
    if let Some(hs) = start {
        if segs.len() > 1 {
            // The low level did not last to the end: the run moved on to another level.
            return None;
        }
        let high = hs.high.exp();
        let low = hs.low.exp();
        if hs.run == 1 {
            if hs.high - hs.low < (2.0 * thr).max(1.4f64.ln()) {
                // One sample a little above the rest: noise or a start-up burst.
                return None;
            }
            // One high sample: the drop may lie anywhere inside it. Were it the cliff, the
            // sample holds the cache plus at most one interval at the lower level.
            let first = samples[0].bytes as f64;
            let bound = (first - low * samples[0].interval_s).max(0.0);
            // Or the first sample was all cache and the drop came early in the second, whose
            // excess over the low level is then cache written at the first sample's rate.
            let a = first / samples[0].interval_s.max(1e-9);
            let excess = (samples[1].bytes as f64 - low * samples[1].interval_s).max(0.0);
            let upper = first
                + if a > low {
                    excess * a / (a - low)
                } else {
                    excess
                };
            let drop = UnconfirmedDrop {
                at: DropWhere::FirstSample,
                t_s: samples[0].t_start_s(),
                t_high_s: samples[0].t_s,
                bytes_low: bound.round() as u64,
                bytes_high: upper.round() as u64,
                before_bytes_per_sec: high,
                after_bytes_per_sec: low,
                after_s: samples[samples.len() - 1].t_s - samples[0].t_s,
                interval_s: dt,
            };
            return Some((
                bound,
                format!(
                    "the first sample ({}) is {:.1}x the level after it ({}): an SLC cache of \
                     {} to {} may have run out within the first {} sample (or early in the next), too early \
                     to measure; {} to see it",
                    format_rate(high, units),
                    high / low,
                    format_rate(low, units),
                    format_bytes(bound, units),
                    format_bytes(upper, units),
                    crate::units::format_interval(dt),
                    finer_sampling(dt),
                ),
                drop,
            ));
        }
        let t_drop = samples[hs.cut].t_start_s();
        let bound = samples[hs.cut].bytes_total as f64 - samples[hs.cut].bytes as f64 - b0;
        let rest = samples[samples.len() - 1].t_s - samples[hs.cut].t_s;
        let drop = UnconfirmedDrop {
            at: DropWhere::Start,
            t_s: t_drop,
            t_high_s: samples[hs.cut].t_s,
            bytes_low: bound.max(0.0).round() as u64,
            bytes_high: bound.max(0.0).round() as u64,
            before_bytes_per_sec: high,
            after_bytes_per_sec: low,
            after_s: rest,
            interval_s: dt,
        };
        return Some((
            bound,
            format!(
                "throughput fell from {} to {} at {:.1} s and stayed there for the last {:.1} s \
                 of the run: too short to tell the cache running out (after about {}) from a \
                 long pause; without a cliff the cache is at least {}; write for longer to tell",
                format_rate(high, units),
                format_rate(low, units),
                t_drop,
                rest,
                format_bytes(bound, units),
                format_bytes(bound, units)
            ),
            drop,
        ));
    }
    // A low run at the end of the last segment, at least two samples and half a second.
    let last = segs.last()?;
    let x = &w.x[last.start..last.end];
    let k = x
        .iter()
        .rev()
        .take_while(|&&v| v < last.level - thr)
        .count();
    if k < 2 || k >= x.len() {
        return None;
    }
    let i = last.end - k;
    if samples[samples.len() - 1].t_s - samples[i].t_start_s() < 0.5 {
        return None;
    }
    let low = median_of(&w.x[i..last.end]).exp();
    let bound = samples[i].bytes_total as f64 - samples[i].bytes as f64 - b0;
    let after_s = samples[samples.len() - 1].t_s - samples[i].t_start_s();
    let drop = UnconfirmedDrop {
        at: DropWhere::End,
        t_s: samples[i].t_start_s(),
        t_high_s: samples[i].t_s,
        bytes_low: bound.max(0.0).round() as u64,
        bytes_high: bound.max(0.0).round() as u64,
        before_bytes_per_sec: last.level.exp(),
        after_bytes_per_sec: low,
        after_s,
        interval_s: dt,
    };
    Some((
        bound,
        format!(
            "throughput fell from {} to {} in the last {:.1} s of the run: too short to tell the \
             cache running out (after about {}) from a pause; without a cliff the cache is at \
             least {}; write for longer to tell",
            format_rate(last.level.exp(), units),
            format_rate(low, units),
            samples[samples.len() - 1].t_s - samples[i].t_start_s(),
            format_bytes(bound, units),
            format_bytes(bound, units)
        ),
        drop,
    ))
}

/// The level and scale of ln throughput over `range`, for refinement.
fn local_level(x: &[f64], range: std::ops::Range<usize>, floor: f64) -> Level {
    let v = &x[range];
    Level {
        mu: median_of(v),
        scale: mad_scale(v).max(floor),
        n: v.len(),
    }
}

/// All that was written, but at most one pass over the span (or the whole target): a run
/// whose writes wrapped around the span cannot show a cache larger than the span.
fn lower_bound_cap(t: &Timeline) -> u64 {
    t.bytes_total().min(span_of(t).unwrap_or(u64::MAX))
}

/// One change after refinement.
#[derive(Debug, Clone, Copy)]
struct Change {
    r: refine::Refined,
}

/// Analyses a timeline: finds the cliffs, the phases and the cache size. Pure and
/// deterministic: the same timeline always gives the same analysis.
pub fn analyze(t: &Timeline) -> Analysis {
    let mut a = analyze_timeline(t);
    a.coverage = coverage(t, &a);
    // A run that stopped before the end of the span saw the folding rate only over what it
    // wrote: it does not know that it lasts.
    if a.coverage.as_ref().is_some_and(|c| !c.whole_span) {
        for w in &mut a.warnings {
            if let Some(head) =
                w.strip_suffix("sustained speed is this, not the first post-cache level")
            {
                *w = format!(
                    "{head}the speed after it is this over the data written after it (the run \
                     did not write the whole span, so not known to be sustained), not the first \
                     post-cache level"
                );
            }
        }
    }
    if let Some(w) = a
        .coverage
        .as_ref()
        .and_then(|c| later_tier_warning(&a, c, UnitSystem::Decimal))
    {
        a.warnings.push(w);
    }
    a
}

/// [`analyze`] without the coverage.
fn analyze_timeline(t: &Timeline) -> Analysis {
    // A run that only reads is analysed on its reads.
    let read_only = t.bytes_total() == 0 && t.has_reads();
    let t = t.primary();
    let cols = Columns::of(&t.samples);
    let mut a = analyze_levels(&t, &cols);
    if read_only {
        // Reads say nothing of a write cache: the cliffs stay (a fall in the read rate), the
        // cache size and its bound go.
        a.read_only = true;
        a.cache_estimate = None;
        a.cache_lower_bound_bytes = None;
        a.returns.clear();
        a.unconfirmed_drop = None;
        // Keep what holds for any series (too few samples, slowdowns, stalls); drop what
        // speaks of the cache and of the levels after it.
        a.warnings.retain(|w| {
            w.starts_with("only ")
                || w.starts_with("a temporary slowdown")
                || w.starts_with("a stall")
        });
    }
    if let Some(p) = periodic::find_in(&t.samples, &cols.rate) {
        drop_periodic_cliffs(&mut a, &p, &t, &cols);
        a.warnings.push(p.describe());
        a.periodic = Some(p);
    }
    a
}

/// Removes the cliffs (and the phases they made) that are the dips of a periodic pattern:
/// those that fall within a dip's time (give or take one dip length) and after which the
/// throughput comes back to the level before them. A cliff into a slow phase that itself
/// swings periodically stays: its level never comes back.
fn drop_periodic_cliffs(a: &mut Analysis, p: &periodic::Periodic, t: &Timeline, cols: &Columns) {
    let near = |x: f64| {
        p.starts_s
            .iter()
            .any(|&s| x >= s - p.duration_s && x <= s + 2.0 * p.duration_s)
    };
    // Comes back: after the dip, the faster samples (the upper quartile) reach 80% of the
    // level before the change.
    let comes_back = |c: &Cliff| {
        let from = c.t_s + 2.0 * p.duration_s;
        // The value a sort would put at the upper quartile, by selection.
        let upper = |after: &[f64]| select::kth(after, (after.len() * 3 / 4).min(after.len() - 1));
        let upper = if cols.ordered && cols.uniform {
            // Interval starts only grow (ends that only grow, less one length): the samples
            // that start by then come first, and the rest are the ones after the dip.
            let first = t.samples.partition_point(|s| s.t_start_s() < from);
            if first == t.samples.len() {
                return true;
            }
            upper(&cols.rate[first..])
        } else {
            let after: Vec<f64> = (0..cols.rate.len())
                .filter(|&i| t.samples[i].t_start_s() >= from)
                .map(|i| cols.rate[i])
                .collect();
            if after.is_empty() {
                return true;
            }
            upper(&after)
        };
        upper >= 0.8 * c.before_bytes_per_sec
    };
    let before = a.cliffs.len();
    let kept: Vec<bool> = a
        .cliffs
        .iter()
        .map(|c| !(near(c.t_s) && comes_back(c)))
        .collect();
    // A return of the cache whose cliff before it goes, goes with it.
    let cliffs = a.cliffs.clone();
    a.returns.retain(|r| {
        cliffs
            .iter()
            .zip(&kept)
            .rev()
            .find(|(c, _)| c.t_s < r.t_s)
            .is_none_or(|(_, &k)| k)
    });
    let mut it = kept.iter();
    a.cliffs.retain(|_| *it.next().unwrap_or(&true));
    if a.cliffs.len() == before {
        return;
    }
    if a.returns.is_empty() {
        a.warnings
            .retain(|w| !w.starts_with("the cache came back while writing"));
    }
    if a.cliffs.is_empty() {
        a.cache_estimate = None;
        a.cache_lower_bound_bytes = Some(t.bytes_total());
        let mean = if t.duration_s() > 0.0 {
            t.bytes_total() as f64 / t.duration_s()
        } else {
            0.0
        };
        a.phases = vec![Phase {
            start_s: t.samples.first().map(|s| s.t_start_s()).unwrap_or(0.0),
            end_s: t.duration_s(),
            mean_bytes_per_sec: mean,
            kind: PhaseKind::Steady,
        }];
        a.warnings.retain(|w| !w.contains("cliff"));
    }
}

/// The level analysis (cliffs, phases, cache estimate) of a timeline.
fn analyze_levels(t: &Timeline, cols: &Columns) -> Analysis {
    let samples = &t.samples;
    let n = samples.len();
    let interval_s = cols.interval_s();
    let mut out = Analysis {
        bytes_total: t.bytes_total(),
        duration_s: t.duration_s(),
        interval_s,
        cliffs: vec![],
        cache_estimate: None,
        cache_lower_bound_bytes: Some(lower_bound_cap(t)),
        phases: vec![],
        warnings: vec![],
        periodic: None,
        slowdowns: vec![],
        returns: vec![],
        unconfirmed_drop: None,
        read_only: false,
        coverage: None,
    };
    if n < 4 {
        if n > 0 {
            out.phases.push(Phase {
                start_s: samples[0].t_start_s(),
                end_s: t.duration_s(),
                mean_bytes_per_sec: mean_rate(samples, 0, n),
                kind: PhaseKind::Steady,
            });
        }
        out.warnings.push(format!(
            "only {n} sample{}: too few to find a cliff; sample more often or write for longer",
            if n == 1 { "" } else { "s" }
        ));
        if cols.cpu {
            out.warnings
                .extend(cpu_bound_warnings(samples, &out.phases));
        }
        return out;
    }
    // 1. Log scale, with a floor for stalled intervals.
    let x: Vec<f64> = if cols.above_floor() {
        // The floor changes no rate: no median for it.
        cols.rate.iter().map(|r| r.ln()).collect()
    } else {
        let floor = (1e-3 * upper_median_of(&cols.rate)).max(1.0);
        cols.rate.iter().map(|r| r.max(floor).ln()).collect()
    };
    // 2. Block medians over blocks longer than twice the longest dip, keeping >= 60 blocks.
    let dt = interval_s.max(1e-9);
    let b_dip = (2.0 * MAX_DIP_S / dt).floor() as usize + 1;
    // At most MAX_BLOCKS blocks: PELT slows down on long stretches without a change.
    let b = b_dip.min(n / MIN_BLOCKS).max(n.div_ceil(MAX_BLOCKS)).max(1);
    let m = n / b;
    let mut w = Work {
        samples,
        cols,
        x,
        b,
        y: Vec::with_capacity(m),
        levels: Default::default(),
    };
    // One buffer of keys for all the blocks ([`select::median_keyed`]).
    let mut buf = Vec::with_capacity(n - (m - 1) * b);
    for k in 0..m {
        let s = k * b;
        let e = if k + 1 == m { n } else { (k + 1) * b };
        w.y.push(select::median_keyed(w.x[s..e].iter().copied(), &mut buf));
    }
    // 3. Noise scale from first differences.
    let diffs: Vec<f64> = w.y.windows(2).map(|p| p[1] - p[0]).collect();
    let sigma = (mad_scale(&diffs) / std::f64::consts::SQRT_2).max(1e-3);
    // Blocks shorter than twice the longest dip (short runs) do not remove dips: a running
    // median over the blocks, wider than twice a dip, does.
    let block_s = b as f64 * dt;
    let h = if block_s < 2.0 * MAX_DIP_S {
        ((MAX_DIP_S + 2.0 * dt) / block_s).ceil() as usize
    } else {
        0
    };
    let filtered = if h > 0 {
        running_median(&w.y, h)
    } else {
        w.y.clone()
    };
    // 4. Exact PELT with an MBIC-like penalty.
    let penalty = 3.0 * sigma * sigma * (m as f64).ln();
    let min_len = if b >= 3 { 1 } else { 2 };
    let cps = pelt::pelt(&filtered, penalty, min_len);
    let mut bounds = vec![0usize];
    for c in cps {
        bounds.push(w.block_range(c).0);
    }
    bounds.push(n);
    let segs: Vec<Seg> = bounds.windows(2).map(|p| w.seg(p[0], p[1])).collect();
    // 5. Remove spurious changes.
    let mut segs = clean(&w, segs);
    let sigma_x = diff_noise(&w.x);
    // 5b. A short cache phase at the very start: too short for the block medians and the
    //     dip filter, and with no left neighbour it is no excursion. It is a phase when the
    //     level after it lasts longer than any dip.
    let start = high_start(&w, &segs, sigma_x);
    // Where the level before the first change is measured from (after a ramp-up sample).
    let mut first_level_from = 0;
    if let Some(hs) = start.filter(|h| h.run >= 2 && h.lasting) {
        let s0 = segs[0];
        let cache = Seg {
            start: s0.start,
            end: hs.cut,
            level: hs.high,
        };
        segs.splice(0..1, [cache, w.seg(hs.cut, s0.end)]);
        first_level_from = hs.skip;
    }
    // 6. Refine each change at full resolution.
    let scale_floor = (0.5 * sigma_x).max(0.002);
    // The filter can move an edge by up to h blocks when a dip is near it.
    let reach = (h + 1) * b + 2;
    let level_len = (3 * b).max(20).max((4.0 * MAX_DIP_S / dt).ceil() as usize);
    let mut changes: Vec<Change> = Vec::new();
    for j in 1..segs.len() {
        let (p, q) = (segs[j - 1], segs[j]);
        let c = q.start;
        let lo = c.saturating_sub(reach).max(p.start);
        let hi = (c + reach).min(q.end);
        let mut a_range = if lo >= p.start + 3 {
            lo.saturating_sub(level_len).max(p.start)..lo
        } else {
            p.start..c
        };
        if j == 1 && a_range.start < first_level_from && first_level_from < a_range.end {
            a_range.start = first_level_from;
        }
        // The level after the change is read beyond the refinement window when enough of the
        // segment lies there; when the window reaches (nearly) to the segment's end, from the
        // whole segment: a partial last sample alone is no level.
        let b_range = if hi + 3 <= q.end {
            hi..(hi + level_len).min(q.end)
        } else {
            c..q.end
        };
        let before = local_level(&w.x, a_range, scale_floor);
        let after = local_level(&w.x, b_range, scale_floor);
        let mut r = refine::refine(samples, &w.x, lo, hi, before, after);
        if let Some(prev) = changes.last() {
            // Keep changes in order even when windows overlap.
            if r.t_s <= prev.r.t_s {
                r.t_s = prev.r.t_s;
                r.bytes = prev.r.bytes;
            }
        }
        changes.push(Change { r });
    }
    // 7. Phases, cliffs, cache estimate.
    build_result(&w, &segs, &changes, start, sigma_x, &mut out);
    out.warnings.extend(wrapped_cliff_warning(t, &out));
    // Without CPU figures no phase has the three it needs: no warning, and no pass.
    if cols.cpu {
        out.warnings
            .extend(cpu_bound_warnings(samples, &out.phases));
    }
    out
}

/// One pass over what the run wrote to: the span, or the whole target. `None` when unknown.
fn span_of(t: &Timeline) -> Option<u64> {
    t.meta
        .workload
        .span_bytes
        .or(t.meta.device.capacity_bytes)
        .filter(|&c| c > 0)
}

/// A cliff found after more bytes than the span holds: the writes had wrapped around it, so
/// the figure counts blocks written more than once and cannot be the cache size of that span
/// (which holds at most the span). Says why and what to do.
fn wrapped_cliff_warning(t: &Timeline, a: &Analysis) -> Option<String> {
    let e = a.cache_estimate.as_ref()?;
    let span = span_of(t)?;
    if e.bytes <= span {
        return None;
    }
    let units = UnitSystem::Decimal;
    Some(format!(
        "the cliff came after {} written, more than the {} span: the writes had wrapped around \
         it ({:.1} passes), so blocks were written more than once and the drive may have freed \
         cache for the blocks it overwrote; {} is not the cache size of this span (at most {} \
         of distinct blocks); write over a span larger than the cache (--span, or the whole \
         drive), or start from an empty cache (--trim, then --idle-before) so that the first \
         pass finds the cliff",
        format_bytes(e.bytes as f64, units),
        format_bytes(span as f64, units),
        e.bytes as f64 / span as f64,
        format_bytes(e.bytes as f64, units),
        format_bytes(span as f64, units),
    ))
}

/// A phase counts as CPU-bound when the writer threads were busy (on a CPU, or ready to run
/// and waiting for one) at least this share of the time, in percent per job.
pub const CPU_BOUND_PCT: f64 = 90.0;

/// Phases (stretches of flat rate) in which the writer was CPU-bound: the median over their
/// samples of `cpu_pct + cpu_wait_pct` is at least [`CPU_BOUND_PCT`]. Their rate is the host's
/// limit, not the drive's. Needs at least 3 samples with CPU figures in a phase; timelines
/// without CPU figures (imports, simulations, older files) never warn.
fn cpu_bound_warnings(samples: &[Sample], phases: &[Phase]) -> Vec<String> {
    let mut hits: Vec<String> = Vec::new();
    let mut worst_run: f64 = 0.0;
    for p in phases {
        let mut busy = Vec::new();
        let mut run = Vec::new();
        note_pass(samples.len());
        for s in samples {
            let mid = s.t_s - 0.5 * s.interval_s;
            if mid < p.start_s || mid > p.end_s {
                continue;
            }
            if let Some(c) = s.cpu_pct {
                busy.push(c + s.cpu_wait_pct.unwrap_or(0.0));
                run.push(c);
            }
        }
        if busy.len() < 3 {
            continue;
        }
        let b = median(&mut busy);
        if b >= CPU_BOUND_PCT {
            let r = median(&mut run);
            worst_run = worst_run.max(r);
            hits.push(format!(
                "{:.1}-{:.1} s (busy {b:.0}%, on a CPU {r:.0}%)",
                p.start_s, p.end_s
            ));
        }
    }
    if hits.is_empty() {
        return vec![];
    }
    let starved = if worst_run < 0.5 * CPU_BOUND_PCT {
        "; it was mostly waiting for a CPU, so other work on the host slowed it (with \
         autogroup scheduling, `setsid -w slccache ...` gives the writer a CPU share of its \
         own, as fio's jobs have)"
    } else {
        ""
    };
    vec![format!(
        "writer CPU-bound at {} (shares of one core per job){starved}: the rate there \
         measured the host, not the drive; rerun on a quieter host, with more --jobs or a \
         larger --bs",
        hits.join(", ")
    )]
}

/// Mean throughput of samples `s..e` (bytes over time).
fn mean_rate(samples: &[Sample], s: usize, e: usize) -> f64 {
    let bytes: u64 = samples[s..e].iter().map(|x| x.bytes).sum();
    let time: f64 = samples[s..e].iter().map(|x| x.interval_s).sum();
    if time > 0.0 {
        bytes as f64 / time
    } else {
        0.0
    }
}

/// The returns of the cache in `segs`: pairs `(j, k)` where the change after segment `j`
/// starts a low stretch (segments `j + 1..k`) and segment `k` is back at the level of `j`,
/// and the low stretch was the cache running out rather than a slowdown. It was when it
///
/// - sits at the level the drive sustains after its last cliff (within [`SAME_LEVEL`] of the
///   last segment, which lies below the level that came back), and lasts longer than
///   [`AT_LEVEL_LONG_S`]; or
/// - is deep (under [`DEEP_SHARE`] of the rate before it) and longer than [`DEEP_LONG_S`].
///
/// A GC dip (at most 3 s), a host hiccup, or a shallow slowdown from which the run returns
/// to its level for good (130 -> 80 MB/s for 30 s) is neither.
fn cache_back_episodes(
    w: &Work,
    segs: &[Seg],
    tb: &[(f64, f64)],
    stall: &[bool],
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let last = segs.len() - 1;
    let mut j = 0;
    while j + 2 <= last {
        let before = segs[j].level;
        if segs[j + 1].level >= before - MIN_STEP || stall[j + 1] {
            j += 1;
            continue;
        }
        let Some(k) = (j + 2..=last).find(|&k| segs[k].level > before - 0.5 * MIN_STEP) else {
            break;
        };
        if (j + 1..k).any(|m| stall[m]) {
            j = k;
            continue;
        }
        let low = w.level(segs[j + 1].start, segs[k].start);
        let long_s = tb[k].0 - tb[j + 1].0;
        let end = segs[last].level;
        let at_level = k < last
            && !stall[last]
            && end < segs[k].level - MIN_STEP
            && (low - end).abs() < SAME_LEVEL
            && long_s >= AT_LEVEL_LONG_S;
        let deep = low < before + DEEP_SHARE.ln() && long_s >= DEEP_LONG_S;
        if at_level || deep {
            out.push((j, k));
        }
        j = k;
    }
    out
}

fn build_result(
    w: &Work,
    segs: &[Seg],
    changes: &[Change],
    start: Option<HighStart>,
    sigma_x: f64,
    out: &mut Analysis,
) {
    let samples = w.samples;
    let n = samples.len();
    let t0 = samples[0].t_start_s();
    let b0 = (samples[0].bytes_total - samples[0].bytes.min(samples[0].bytes_total)) as f64;
    let t_end = samples[n - 1].t_s;
    let b_end = samples[n - 1].bytes_total as f64;
    // Phase boundaries in time and bytes.
    let mut tb: Vec<(f64, f64)> = vec![(t0, b0)];
    for c in changes {
        tb.push((c.r.t_s, c.r.bytes));
    }
    tb.push((t_end, b_end));
    // A cliff is a drop to a new lowest level: a drop after a recovery that stays above the
    // trough seen before is the post-cache level moving, not a cliff.
    // The first drop is the first cliff; later ones must go below every level since.
    // A later drop the run recovers from (a later segment back at the level before it) is
    // throttling or a trough, not a further phase.
    // Any drop the run later climbs back from (to the level before it) is a temporary
    // slowdown, not the cache running out: a cache does not refill while it is written.
    // A drop to (nearly) nothing is a stall: the drive or the host stopped, not a phase.
    let stall: Vec<bool> = segs
        .iter()
        .enumerate()
        .map(|(j, s)| {
            j > 0
                && s.level
                    < segs[..j]
                        .iter()
                        .map(|p| p.level)
                        .fold(f64::NEG_INFINITY, f64::max)
                        - STALL_DROP
        })
        .collect();
    // Returns of the cache: (j, k) with the change j starting a low stretch that was the
    // cache running out and segment k the cache back.
    let episodes = cache_back_episodes(w, segs, &tb, &stall);
    let back_at = |k: usize| episodes.iter().any(|e| e.1 == k);
    let mut is_drop = Vec::with_capacity(changes.len());
    let mut lowest = f64::INFINITY;
    for j in 0..changes.len() {
        if back_at(j) {
            // The cache is back: the next drop is its end, whatever the levels before.
            lowest = f64::INFINITY;
        }
        let next = segs[j + 1].level;
        let mut drop = next < segs[j].level && next < lowest - MIN_STEP && !stall[j + 1];
        if episodes.iter().any(|e| e.0 == j) {
            drop = !stall[j + 1];
        } else if drop {
            let recovered = segs[j + 2..]
                .iter()
                .any(|s| s.level > segs[j].level - 0.5 * MIN_STEP);
            drop = !recovered;
        }
        is_drop.push(drop);
        if (drop || lowest.is_finite()) && !stall[j + 1] {
            lowest = lowest.min(next);
        }
    }
    let first_drop = is_drop.iter().position(|&d| d);
    let mut phases = Vec::with_capacity(segs.len());
    let mut cliffs_passed = 0usize;
    for j in 0..segs.len() {
        if j > 0 && is_drop[j - 1] {
            cliffs_passed += 1;
        }
        if back_at(j) {
            cliffs_passed = 0;
        }
        let (ts, bs) = tb[j];
        let (te, be) = tb[j + 1];
        let mean = if te > ts { (be - bs) / (te - ts) } else { 0.0 };
        let kind = match (first_drop, cliffs_passed) {
            (None, _) => PhaseKind::Steady,
            (Some(_), 0) => PhaseKind::Cache,
            (Some(_), 1) => PhaseKind::PostCache,
            (Some(_), _) => PhaseKind::Folding,
        };
        phases.push(Phase {
            start_s: ts,
            end_s: te,
            mean_bytes_per_sec: mean.max(0.0),
            kind,
        });
    }
    let units = UnitSystem::Decimal;
    // Slowdown episodes: a drop by more than a step, then (after any number of lower
    // segments) the first segment back at the level before it.
    let mut j = 0;
    while j < changes.len() {
        if let Some(e) = episodes.iter().find(|e| e.0 == j) {
            j = e.1;
            continue;
        }
        let before = segs[j].level;
        let back = (j + 2..segs.len()).find(|&k| segs[k].level > before - 0.5 * MIN_STEP);
        let low = segs[j + 1..back.unwrap_or(j + 1)]
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.level.total_cmp(&b.1.level))
            .map(|(i, s)| (j + 1 + i, s.level));
        match (back, low) {
            (Some(k), Some((m, lvl))) if lvl < before - MIN_STEP => {
                let (ts, bs) = tb[j + 1];
                let (te, be) = tb[k];
                out.slowdowns.push(Slowdown {
                    t_s: ts,
                    duration_s: te - ts,
                    bytes: (be - bs).round().max(0.0) as u64,
                    bytes_before: (bs - b0).round().max(0.0) as u64,
                    before_bytes_per_sec: phases[j].mean_bytes_per_sec,
                    low_bytes_per_sec: phases[m].mean_bytes_per_sec,
                    thermal: false,
                });
                j = k;
            }
            _ => j += 1,
        }
    }
    // The drops that were heat: a slowdown that starts at one is throttling, and says so
    // rather than blame garbage collection or the host (the thermal warning names it too).
    let (thermal_text, thermal_at) = thermal_warnings(w.samples, w.cols, &phases);
    for s in &mut out.slowdowns {
        s.thermal = thermal_at.iter().any(|&t| (t - s.t_s).abs() < 1e-9);
    }
    for s in &out.slowdowns {
        let why = if s.thermal {
            "thermal throttling (see the thermal warning), not the cache running out, so it is \
             not a cliff"
        } else {
            "garbage collection or a host hiccup, not the cache running out, so it is not a cliff"
        };
        out.warnings.push(format!(
            "a temporary slowdown at {:.1} s (after {}): {} -> {} for {:.1} s ({}), then back; \
             {why}",
            s.t_s,
            format_bytes(s.bytes_before as f64, units),
            format_rate(s.before_bytes_per_sec, units),
            format_rate(s.low_bytes_per_sec, units),
            s.duration_s,
            format_bytes(s.bytes as f64, units),
        ));
    }
    if let Some(j) = (1..segs.len()).find(|&j| {
        stall[j]
            && !out
                .slowdowns
                .iter()
                .any(|s| s.t_s <= tb[j].0 && tb[j].0 < s.t_s + s.duration_s)
    }) {
        out.warnings.push(format!(
            "a stall from {:.1} s: throughput fell to {} for {:.1} s; the drive or the host \
             stopped completing writes; this is not a phase of the drive and not its sustained \
             speed",
            tb[j].0,
            format_rate(phases[j].mean_bytes_per_sec, units),
            tb[j + 1].0 - tb[j].0,
        ));
    }
    for (j, c) in changes.iter().enumerate() {
        if !is_drop[j] {
            continue;
        }
        out.cliffs.push(Cliff {
            t_s: c.r.t_s,
            t_low_s: c.r.t_low_s,
            t_high_s: c.r.t_high_s,
            bytes_written: c.r.bytes.round().max(0.0) as u64,
            before_bytes_per_sec: phases[j].mean_bytes_per_sec,
            after_bytes_per_sec: phases[j + 1].mean_bytes_per_sec,
        });
    }
    for &(j, k) in &episodes {
        // The higher rate lasts to the next cliff, or to the end of the run.
        let next = (k..changes.len()).find(|&m| is_drop[m]);
        let (ts, bs) = tb[k];
        let (te, be) = next.map(|m| tb[m + 1]).unwrap_or((t_end, b_end));
        let (ls, lb) = tb[j + 1];
        let low = if ts > ls { (bs - lb) / (ts - ls) } else { 0.0 };
        out.returns.push(CacheReturn {
            t_s: ts,
            bytes_before: (bs - b0).round().max(0.0) as u64,
            bytes: (be - bs).round().max(0.0) as u64,
            duration_s: te - ts,
            bytes_per_sec: if te > ts { (be - bs) / (te - ts) } else { 0.0 },
            low_bytes_per_sec: low.max(0.0),
            ran_out_again: next.is_some(),
        });
    }
    for r in &out.returns {
        out.warnings.push(format!(
            "the cache came back while writing at {:.1} s (after {}): {} -> {} for {} ({:.1} s), \
             then {}; a dynamic SLC cache freed space while it was written, so the low stretch \
             before was the cache running out, not a slowdown; the cache size is the first \
             cliff's",
            r.t_s,
            format_bytes(r.bytes_before as f64, units),
            format_rate(r.low_bytes_per_sec, units),
            format_rate(r.bytes_per_sec, units),
            format_bytes(r.bytes as f64, units),
            r.duration_s,
            if r.ran_out_again {
                "it ran out again"
            } else {
                "the run ended"
            },
        ));
    }
    match first_drop {
        Some(fd) => {
            let r = changes[fd].r;
            out.cache_estimate = Some(CacheEstimate {
                bytes: r.bytes.round().max(0.0) as u64,
                low_bytes: r.low_bytes.round().max(0.0) as u64,
                high_bytes: r.high_bytes.round().max(0.0) as u64,
            });
            out.cache_lower_bound_bytes = None;
            // Sampling too coarse for the cache phase seen.
            let cache_s = r.t_s - t0;
            // The whole samples before the cliff and their median length: counted, not derived
            // from the run's median interval (the rows of a position CSV are shorter while the
            // drive is fast).
            let cols = w.cols;
            let end_by = r.t_s + 1e-9;
            let (before, dt) = if cols.ordered && cols.uniform {
                // In time order the samples that end by then come first, and each is as long
                // as the first (the median of equal lengths).
                let before = w.samples.partition_point(|s| s.t_s <= end_by);
                let dt = if before == 0 {
                    out.interval_s
                } else {
                    cols.first_interval
                };
                (before, dt)
            } else {
                let mut lens: Vec<f64> = (0..n)
                    .filter(|&i| w.samples[i].t_s <= end_by)
                    .map(|i| cols.interval(i))
                    .collect();
                let before = lens.len();
                let dt = if lens.is_empty() {
                    out.interval_s
                } else {
                    median(&mut lens)
                };
                (before, dt)
            };
            let width = (r.high_bytes - r.low_bytes) / r.bytes.max(1.0);
            if before < 10 || width > 0.05 {
                out.warnings.push(format!(
                    "sampling too coarse for a {cache_s:.1} s cache phase: only {} before the \
                     cliff, of {} each; {} for a tighter estimate",
                    crate::units::count_text(before, "sample", "samples"),
                    crate::units::format_interval(dt),
                    finer_sampling(dt),
                ));
            }
        }
        None => match unconfirmed_drop(w, segs, start, sigma_x) {
            Some((bound, text, drop)) => {
                let cap = out.cache_lower_bound_bytes.unwrap_or(u64::MAX);
                out.cache_lower_bound_bytes = Some((bound.round().max(0.0) as u64).min(cap));
                out.warnings.push(text);
                out.unconfirmed_drop = Some(drop);
            }
            None => {
                let written = (b_end - b0).round().max(0.0) as u64;
                let bound = out.cache_lower_bound_bytes.unwrap_or(written).min(written);
                out.cache_lower_bound_bytes = Some(bound);
                let what = if bound < written {
                    format!(
                        "one pass over the {} span; the writes wrapped around it",
                        format_bytes(bound as f64, units)
                    )
                } else {
                    "all that was written".to_string()
                };
                out.warnings.push(format!(
                    "the run ended before any cliff: {} ({what}); if the drive has a cache, \
                     it holds at least {}; write more (--max-bytes or --duration) to find \
                     where it ends",
                    no_cliff_text(Some(bound), written, units),
                    format_bytes(bound as f64, units),
                ))
            }
        },
    }
    // Post-cache level unstable: more than one post-cache level, or wide swings within it.
    // After a return of the cache, only the phases since the last return count: the levels
    // before it were the drive without its cache, then with it again.
    let since = episodes.last().map(|e| e.1).unwrap_or(0);
    let post: Vec<&Phase> = phases
        .iter()
        .zip(&stall)
        .skip(since)
        .filter(|(p, &st)| p.kind == PhaseKind::PostCache && !st && !is_throttled(out, p))
        .map(|(p, _)| p)
        .collect();
    // Post-cache levels apart from the throttled stretches between them that all lie within
    // a step of each other are one level: the throttling has its own warning.
    let (lo, hi) = post.iter().fold((f64::INFINITY, 0.0f64), |(l, h), p| {
        (l.min(p.mean_bytes_per_sec), h.max(p.mean_bytes_per_sec))
    });
    let one_level = post.len() > 1
        && lo > 0.0
        && (hi / lo).ln() < MIN_STEP
        && out.slowdowns.iter().any(|s| s.thermal);
    if post.len() > 1 && !one_level {
        let levels: Vec<String> = post
            .iter()
            .map(|p| {
                format!(
                    "{} from {:.0} s",
                    format_rate(p.mean_bytes_per_sec, units),
                    p.start_s
                )
            })
            .collect();
        out.warnings.push(format!(
            "post-cache level unstable: {}; the drive may be recovering or throttling, so quote \
             the post-cache speed with its time range",
            levels.join(", then ")
        ));
    } else if let (Some(p), Some(fd)) = (post.first(), first_drop) {
        let j = phases
            .iter()
            .position(|q| std::ptr::eq(q, *p))
            .unwrap_or(fd + 1);
        let seg = segs[j];
        let spread = mad_scale_about(&w.x[seg.start..seg.end], w.level(seg.start, seg.end));
        if spread > 0.25 {
            out.warnings.push(format!(
                "post-cache level unstable: throughput swings by about {:.0}% around {}; quote \
                 a range rather than one post-cache speed",
                100.0 * (spread.exp() - 1.0),
                format_rate(p.mean_bytes_per_sec, units)
            ));
        }
    }
    if let Some(f) = phases.iter().find(|p| p.kind == PhaseKind::Folding) {
        out.warnings.push(format!(
            "a third, slower phase (folding) from {:.1} s at {}: the drive is moving cached data \
             while writing; sustained speed is this, not the first post-cache level",
            f.start_s,
            format_rate(f.mean_bytes_per_sec, units)
        ));
    }
    out.warnings.extend(thermal_text);
    out.phases = phases;
}

/// How far from a drop (seconds, at least) the drive's thermal-management counters are
/// compared: the counters are read once per interval, and the refined drop time can sit an
/// interval or two from the reading that saw the transition.
const THERMAL_COUNTER_WINDOW_S: f64 = 2.0;

/// The drive's thermal-management transition count at the end of the last sample ending at or
/// before `t` (0 before the first: the counts start at the start of the run).
fn transitions_until(samples: &[Sample], t: f64) -> u64 {
    samples
        .iter()
        .take_while(|s| s.t_s <= t + 1e-9)
        .filter_map(|s| s.thermal_transitions)
        .last()
        .unwrap_or(0)
}

/// The count at the first sample ending at or after `t` (the last sample if none does).
fn transitions_from(samples: &[Sample], t: f64) -> u64 {
    samples
        .iter()
        .filter(|s| s.thermal_transitions.is_some())
        .find(|s| s.t_s >= t - 1e-9)
        .or_else(|| {
            samples
                .iter()
                .rev()
                .find(|s| s.thermal_transitions.is_some())
        })
        .and_then(|s| s.thermal_transitions)
        .unwrap_or(0)
}

/// Thermal throttling, named from two kinds of evidence.
///
/// 1. The drive's own counters (NVMe SMART thermal-management transition counts, recorded
///    per interval in `thermal_transitions`): a drop between phases (the next phase at least
///    10% slower) within a few intervals of which the counts rose is thermal throttling,
///    whatever the temperature did. When the drop is the one taken as the cache cliff, the
///    warning says the cache estimate is in doubt.
/// 2. Temperature alone, for drives without such counters: a drop whose temperature at the
///    boundary is within 2 °C of the run's maximum and at least 10 °C above its minimum.
///
/// Returns the warnings and the times of the drops named thermal.
fn thermal_warnings(
    samples: &[Sample],
    cols: &Columns,
    phases: &[Phase],
) -> (Vec<String>, Vec<f64>) {
    let mut out = Vec::new();
    let drops: Vec<(usize, f64)> = phases
        .windows(2)
        .enumerate()
        .filter(|(_, p)| p[1].mean_bytes_per_sec < 0.9 * p[0].mean_bytes_per_sec)
        .map(|(j, p)| (j, p[1].start_s))
        .collect();
    let temps: Vec<(f64, f64)> = if cols.temp {
        note_pass(samples.len());
        samples
            .iter()
            .filter_map(|s| s.temp_c.map(|c| (s.t_s, c)))
            .collect()
    } else {
        Vec::new()
    };
    let temp_at = |t: f64| {
        temps
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .map(|p| p.1)
    };
    // 1. The drive's counters.
    let mut by_counter: Vec<f64> = Vec::new();
    if cols.thermal {
        let dt = if cols.uniform {
            // The median of equal values (0 for none).
            cols.first_interval
        } else {
            median_of(&cols.interval)
        };
        let w = (3.0 * dt).max(THERMAL_COUNTER_WINDOW_S);
        let mut list = Vec::new();
        let mut cache_cliff = None;
        for &(j, t) in &drops {
            let before = transitions_until(samples, t - w);
            let after = transitions_from(samples, t + w);
            if after > before {
                by_counter.push(t);
                let temp = temp_at(t)
                    .map(|c| format!(", {c:.0} °C"))
                    .unwrap_or_default();
                list.push(format!(
                    "{t:.1} s (+{} transition(s){temp})",
                    after - before
                ));
                if phases[j].kind == PhaseKind::Cache && phases[j + 1].kind == PhaseKind::PostCache
                {
                    cache_cliff = Some(t);
                }
            }
        }
        if !list.is_empty() {
            let mut text = format!(
                "thermal throttling: throughput fell at {} as the drive's own thermal-management \
                 counters rose; these drops are heat, not the cache running out",
                list.join(", ")
            );
            if let Some(t) = cache_cliff {
                text.push_str(&format!(
                    "; the drop at {t:.1} s was taken as the cache cliff, so the cache size is \
                     in doubt: cool the drive (or let it idle) and run again"
                ));
            } else {
                text.push_str("; quote them apart from the post-cache speed");
            }
            out.push(text);
        }
    }
    // 2. Temperature alone.
    let Some(hot) = temps.iter().map(|p| p.1).reduce(f64::max) else {
        return (out, by_counter);
    };
    let cold = temps.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    if hot - cold < 10.0 {
        return (out, by_counter);
    }
    let hot_drops: Vec<(f64, f64)> = drops
        .iter()
        .filter(|(_, t)| !by_counter.contains(t))
        .filter_map(|&(_, t)| temp_at(t).map(|c| (t, c)))
        .filter(|&(_, c)| c >= hot - 2.0)
        .collect();
    if hot_drops.is_empty() {
        return (out, by_counter);
    }
    let list: Vec<String> = hot_drops
        .iter()
        .map(|(t, c)| format!("{t:.0} s ({c:.0} °C)"))
        .collect();
    out.push(format!(
        "thermal throttling: throughput fell at {} with the drive at its hottest ({hot:.0} °C); these drops are heat, not the cache running out; cool the drive or quote them apart",
        list.join(", ")
    ));
    by_counter.extend(hot_drops.iter().map(|p| p.0));
    (out, by_counter)
}

#[cfg(test)]
mod cpu_tests {
    use super::*;

    fn trace_with_cpu(run: Option<f64>, wait: Option<f64>) -> Timeline {
        let (mut t, _) = synth::simulate(&synth::two_phase(400, 0.1), 4);
        for s in &mut t.samples {
            s.cpu_pct = run;
            s.cpu_wait_pct = wait;
        }
        t
    }

    fn cpu_warning(a: &Analysis) -> Option<&String> {
        a.warnings.iter().find(|w| w.contains("CPU-bound"))
    }

    #[test]
    fn a_busy_writer_is_named_and_an_idle_one_is_not() {
        let a = analyze(&trace_with_cpu(Some(97.0), Some(0.5)));
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert!(w.contains("measured the host, not the drive"), "{w}");
        assert!(!w.contains("waiting for a CPU"), "{w}");
        assert!(cpu_warning(&analyze(&trace_with_cpu(Some(20.0), Some(1.0)))).is_none());
        // Old timelines and imports have no CPU figures: no warning.
        assert!(cpu_warning(&analyze(&trace_with_cpu(None, None))).is_none());
    }

    #[test]
    fn a_writer_starved_by_other_work_is_named_too() {
        // On a CPU 35% of the time and runnable but waiting another 60%: busy 95%.
        let a = analyze(&trace_with_cpu(Some(35.0), Some(60.0)));
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert!(w.contains("waiting for a CPU"), "{w}");
        // Without schedstat (no wait figure) the same run time is not CPU-bound.
        assert!(cpu_warning(&analyze(&trace_with_cpu(Some(35.0), None))).is_none());
    }

    #[test]
    fn only_the_busy_phase_is_named() {
        let mut t = trace_with_cpu(Some(10.0), Some(0.0));
        let a0 = analyze(&t);
        let cliff = a0.cliffs.first().expect("a cliff").t_s;
        for s in t.samples.iter_mut().filter(|s| s.t_s > cliff + 1.0) {
            s.cpu_pct = Some(99.0);
        }
        let a = analyze(&t);
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert_eq!(w.matches(" s (busy").count(), 1, "{w}");
    }

    /// Regression (issue 19): `analyze` of a 300k-sample simulated timeline spent 45 of its
    /// 49 s in this search, which took every level afresh (O(n^2)). It now reads the segment
    /// once and finds the same fall: checked against the old search on burst-then-fall
    /// shapes, plateaus with repeated values, noise, and runs with no fall.
    /// Issue 19: a stretch's level is selected once per analysis, however often the
    /// clean-up and the start-up checks ask for it (a million-sample run asked for some
    /// stretches several times over); the analyses stay the same (`reference_tests`).
    #[test]
    fn each_stretch_level_is_selected_once() {
        let t = synth::simulate(&synth::two_phase(10, 1.0), 42).0;
        let cols = Columns::of(&t.samples);
        let cached = {
            let x: Vec<f64> = (0..10).map(f64::from).collect();
            let w = Work {
                samples: &t.samples,
                cols: &cols,
                x,
                b: 1,
                y: Vec::new(),
                levels: Default::default(),
            };
            LEVEL_SELECTIONS.with(|c| c.set(0));
            let l = (w.level(2, 9), w.level(2, 9), w.level(0, 10), w.level(2, 9));
            assert_eq!(l, (5.0, 5.0, 5.0, 5.0));
            LEVEL_SELECTIONS.with(|c| c.get())
        };
        assert_eq!(cached, 2);
    }

    /// The columns keep interval lengths only when they differ (each as its sample has it),
    /// and know when the interval ends go back; the count of samples that end by a cliff is
    /// the same by binary search as by a scan.
    #[test]
    fn columns_keep_only_what_differs_and_count_alike() {
        let mut t = synth::simulate(&synth::two_phase(600, 1.0), 42).0;
        let c = Columns::of(&t.samples);
        assert!(c.uniform && c.ordered && c.interval.is_empty());
        assert_eq!(c.interval(599), t.samples[599].interval_s);
        assert_eq!(c.interval_s(), t.samples[0].interval_s);
        // A longer interval from sample 5 on: every length is kept from then.
        for s in &mut t.samples[5..] {
            s.interval_s = 1.5;
        }
        let c = Columns::of(&t.samples);
        assert!(!c.uniform);
        assert_eq!(c.interval.len(), 600);
        for (i, s) in t.samples.iter().enumerate() {
            assert_eq!(c.interval(i), s.interval_s, "interval {i}");
        }
        assert_eq!(c.interval_s(), 1.5);
        // Ends that go back, or are not numbers, are out of order.
        let mut back = t.clone();
        back.samples[300].t_s = back.samples[298].t_s;
        assert!(!Columns::of(&back.samples).ordered);
        back.samples[300].t_s = f64::NAN;
        assert!(!Columns::of(&back.samples).ordered);
        // The coarse-sampling count: the cliff of a 12-sample run comes after 3 whole samples,
        // counted by the binary search (in order) and by the scan (the last two samples
        // swapped, out of order after the cliff, which does not change the count).
        let short = synth::simulate(&synth::two_phase(12, 1.0), 1).0;
        let a = analyze(&short);
        let mut late = short.clone();
        late.samples.swap(10, 11);
        assert!(!Columns::of(&late.samples).ordered);
        let b = analyze(&late);
        let coarse = |a: &Analysis| {
            a.warnings
                .iter()
                .find(|w| w.starts_with("sampling too coarse"))
                .cloned()
        };
        let text = coarse(&a).unwrap_or_default();
        assert!(
            text.contains("only 3 samples before the cliff"),
            "{:?}",
            a.warnings
        );
        assert_eq!(coarse(&a), coarse(&b));
    }

    /// The floor check says "no rate below the floor" only when the floor (from the median)
    /// changes no rate: rates spread, with stalls, zeros, NaN, infinities, negative values.
    #[test]
    fn the_floor_check_only_skips_a_floor_that_changes_nothing() {
        let base = synth::simulate(&synth::two_phase(200, 1.0), 3).0;
        let (mut skipped, mut kept) = (0, 0);
        for case in 0..60 {
            let mut t = base.clone();
            match case % 6 {
                0 => {}
                1 => t.samples[case].bytes_per_sec *= 1e-4,
                2 => t.samples[case].bytes_per_sec = 0.0,
                3 => t.samples[case].bytes_per_sec = f64::NAN,
                4 => t.samples[case].bytes_per_sec = f64::INFINITY,
                _ => {
                    for s in &mut t.samples {
                        s.bytes_per_sec = 0.5 + (case as f64) * 1e-3;
                    }
                }
            }
            let c = Columns::of(&t.samples);
            let floor = (1e-3 * upper_median_of(&c.rate)).max(1.0);
            let unchanged = c.rate.iter().all(|r| r.max(floor).to_bits() == r.to_bits());
            if c.above_floor() {
                skipped += 1;
                assert!(unchanged, "case {case}");
            } else {
                kept += 1;
            }
        }
        assert!(skipped >= 10 && kept >= 40, "{skipped} {kept}");
    }

    #[test]
    fn the_later_fall_search_is_the_old_one_in_one_pass() {
        let mut seed = 7u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut found = 0;
        for case in 0..300 {
            let n = 20 + case % 97 * 3;
            let run = case % 5;
            let (hi, mid, lo) = (9.0, 8.6 - 0.2 * (case % 3) as f64, 6.0 + (case % 4) as f64);
            let fall = run + 2 + (case * 7) % (n - run - 2);
            let noise = [0.0, 0.01, 0.05, 0.3][case % 4];
            let x: Vec<f64> = (0..n)
                .map(|i| {
                    let level = if i < run {
                        hi
                    } else if i < fall {
                        mid
                    } else {
                        lo
                    };
                    // Rounded to a coarse grid in some cases, so that values repeat.
                    let v = level + noise * (rnd() - 0.5);
                    if case % 2 == 0 {
                        (v * 20.0).round() / 20.0
                    } else {
                        v
                    }
                })
                .collect();
            let (thr, burst) = (0.1, [0.0, 0.2, 0.5][case % 3]);
            let want = later_fall_plain(&x, run, thr, burst);
            found += usize::from(want.is_some());
            assert_eq!(later_fall(&x, run, thr, burst), want, "case {case}: {x:?}");
        }
        assert!(
            found > 50 && found < 300,
            "both outcomes tried: {found} falls of 300"
        );
        // The work: one read of the segment, not one per candidate position.
        let n = 50_000;
        let x: Vec<f64> = (0..n).map(|i| if i < 30_000 { 8.0 } else { 7.0 }).collect();
        LEVEL_READS.with(|c| c.set(0));
        let _ = later_fall(&x, 0, 0.1, 0.0);
        let read = LEVEL_READS.with(|c| c.get());
        assert!(read <= n, "{read} samples read for a segment of {n}");
    }
}
