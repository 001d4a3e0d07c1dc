//! "After the cache", defined once: the samples after the last cliff, their rate, and whether
//! they are steady enough for that rate to be called the drive's sustained speed.
//!
//! The steadiness rule is the steady-state test of the SNIA Solid State Storage Performance
//! Test Specification (PTS), taken as the anchor: a measurement window of 5 rounds is steady
//! when the range of the rounds' values is at most 20% of their mean and the best-fit line's
//! change across the window is at most 10% of their mean. Here a round is an equal share of
//! the samples after the last cliff, and its value is its rate (bytes over time).
//!
//! A stretch that fails the rule is not one speed: the outputs quote it as the range of its
//! rounds, never as one blended figure.

use serde::{Deserialize, Serialize};

use super::{Analysis, PhaseKind};
use crate::timeline::{Sample, Timeline};
use crate::units::UnitSystem;

/// Rounds in the steady-state window (SNIA PTS).
pub const ROUNDS: usize = 5;
/// Largest range of the rounds' rates, as a share of their mean, that is still steady (SNIA
/// PTS: 20%).
pub const MAX_RANGE_SHARE: f64 = 0.20;
/// Largest change of the best-fit line across the window, as a share of the rounds' mean,
/// that is still steady (SNIA PTS: 10%).
pub const MAX_SLOPE_SHARE: f64 = 0.10;
/// Shortest round, seconds: twice the longest garbage-collection dip, so that one dip cannot
/// make a round on its own (a shorter stretch is too short to judge).
pub const MIN_ROUND_S: f64 = 2.0 * super::MAX_DIP_S;

/// The stretch after the last cliff of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AfterCache {
    /// Start of the stretch, seconds since the start of the run: the start of the first
    /// sample wholly after the last cliff (the one the cliff falls in holds both levels) and
    /// after any stall that follows the cliff, or the cliff's time where fewer than two
    /// samples follow it.
    pub from_s: f64,
    /// End of the stretch, seconds: the end of the run, or where a stall that lasts to the end
    /// began (the end of the last sample before it: a stall is no level of the drive).
    pub to_s: f64,
    /// Bytes written in the stretch.
    pub bytes: u64,
    /// Bytes over time of the stretch, bytes/s, leaving out its thermal throttling and its
    /// stalls: `(bytes - throttled_bytes - stalled_bytes) / (to_s - from_s - throttled_s -
    /// stalled_s)`.
    pub mean_bytes_per_sec: f64,
    /// Seconds of thermal throttling in the stretch, left out of its rate and its rounds
    /// (absent from the JSON when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub throttled_s: f64,
    /// Bytes written in those seconds, left out of its rate with them (absent from the JSON
    /// when none).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub throttled_bytes: u64,
    /// Seconds of stalls inside the stretch ([`super::Phase::stall`]: no level of the drive),
    /// left out of its rate and its rounds as throttling is (absent from the JSON when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stalled_s: f64,
    /// Bytes written in those seconds (absent from the JSON when none).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub stalled_bytes: u64,
    /// The steady-state test of the stretch; `None` when it holds fewer than [`ROUNDS`]
    /// samples or lasts less than [`ROUNDS`] times [`MIN_ROUND_S`] (too short to judge).
    pub steady_state: Option<SteadyState>,
}

/// The steady-state test of a stretch: its rounds and the two figures the rule reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// The rate of each round, bytes/s, first first.
    pub rounds_bytes_per_sec: Vec<f64>,
    /// The mean of the rounds' rates, bytes/s.
    pub mean_bytes_per_sec: f64,
    /// Largest minus smallest round rate, as a share of the mean.
    pub range_share: f64,
    /// The best-fit line's change from the first round to the last, as a share of the mean
    /// (its absolute value).
    pub slope_share: f64,
    /// Whether both figures are within the rule's limits (and the samples do not swing as
    /// `swing` says).
    pub steady: bool,
    /// The 10th and 90th percentiles of the stretch's sample rates, bytes/s, where the analysis
    /// warns that the level after the cache swings or moves between levels, or a tenth or more
    /// of it lies in dips longer than a garbage-collection dip ([`LONG_DIP_SHARE`]): rounds
    /// that each average the swings can pass the rule (300 and 900 MB/s by turns every 10 s
    /// gave "603 MB/s, steady" beside that warning), so the stretch is then not steady and
    /// quoted as this range. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swing: Option<(f64, f64)>,
    /// The 10th and 90th percentiles of the stretch's sample rates, bytes/s, where its rounds
    /// fail the rule: a round can average two levels into a figure no sample holds (a stretch
    /// at 491 and 990 MB/s read "not steady: 765 MB/s to 997 MB/s", and 1000 and 500 MB/s by
    /// turns "625 MB/s to 1000 MB/s"), so a stretch that is not steady is quoted by its
    /// samples, widened to its slowest and fastest round where they lie outside (a few samples
    /// far off the rest leave both percentiles at one level). Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<(f64, f64)>,
    /// `spread` was widened to the slowest or fastest round, which lay outside the samples'
    /// percentiles: the words that quote it say so ("not steady: 493 MB/s to 819 MB/s (10th to
    /// 90th percentile of its samples ...)" gave a round's mean as a percentile). Absent from
    /// the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spread_widened: bool,
    /// `swing` was set by the stretch's long dips ([`LONG_DIP_SHARE`]), not by a warning that
    /// the level is unstable: report.md then names the dips, not a warning the run may not
    /// have ("as the warnings on the level after the cache and on its dips say" of a run with
    /// neither). Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swing_dips: bool,
    /// `swing` was set by dips of any length that pull the stretch's rate down by a tenth or
    /// more ([`DIP_PULL_SHARE`]), none of the dips longer than a garbage-collection dip filling
    /// a tenth of its time, and no warning says the level is unstable: report.md names those
    /// dips. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swing_short_dips: bool,
}

impl SteadyState {
    /// What the range quoted for a stretch that is not steady is, in words: its samples' 10th
    /// to 90th percentile, and where it was widened to a round, that too.
    pub fn range_words(&self) -> &'static str {
        if self.spread_widened && self.swing.is_none() {
            "its samples' 10th to 90th percentile, widened to its slowest and fastest round"
        } else {
            "10th to 90th percentile of its samples"
        }
    }

    /// The range quoted for the stretch, bytes/s: its samples' 10th to 90th percentile where
    /// it is not steady ([`SteadyState::swing`], [`SteadyState::spread`]), else the slowest
    /// and the fastest round.
    pub fn range(&self) -> (f64, f64) {
        if let Some(s) = self.swing.or(self.spread) {
            return s;
        }
        let lo = self
            .rounds_bytes_per_sec
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .rounds_bytes_per_sec
            .iter()
            .copied()
            .fold(0.0, f64::max);
        (lo, hi)
    }
}

impl AfterCache {
    /// Whether the stretch passed the steady-state test (false when too short to judge).
    pub fn is_steady(&self) -> bool {
        self.steady_state.as_ref().is_some_and(|s| s.steady)
    }
}

/// The steady-state test of `samples`, split into [`ROUNDS`] rounds of (nearly) equal
/// counts; `None` for fewer samples than rounds, or a stretch shorter than [`ROUNDS`] times
/// [`MIN_ROUND_S`].
pub fn steady_state(samples: &[Sample]) -> Option<SteadyState> {
    let n = samples.len();
    if n < ROUNDS {
        return None;
    }
    super::levels::note_pass(n);
    // One pass over the samples (a million of them take milliseconds to read): each round's
    // bytes and time, and the stretch's time as the sum of the rounds'.
    let parts: Vec<(u64, f64)> = (0..ROUNDS)
        .map(|r| {
            samples[r * n / ROUNDS..(r + 1) * n / ROUNDS]
                .iter()
                .fold((0u64, 0.0), |(b, t), s| (b + s.bytes, t + s.interval_s))
        })
        .collect();
    let time: f64 = parts.iter().map(|p| p.1).sum();
    if time < ROUNDS as f64 * MIN_ROUND_S {
        return None;
    }
    let mut rounds = Vec::with_capacity(ROUNDS);
    for &(bytes, time) in &parts {
        if time <= 0.0 {
            return None;
        }
        rounds.push(bytes as f64 / time);
    }
    let mean = rounds.iter().sum::<f64>() / ROUNDS as f64;
    if mean <= 0.0 {
        return None;
    }
    let lo = rounds.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rounds.iter().copied().fold(0.0, f64::max);
    // Least squares over the round numbers 0..ROUNDS: slope = sum((x - x̄)(y - ȳ)) / sum((x - x̄)²).
    let xm = (ROUNDS - 1) as f64 / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in rounds.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let change = (sxy / sxx) * (ROUNDS - 1) as f64;
    let range_share = (hi - lo) / mean;
    let slope_share = change.abs() / mean;
    let steady = range_share <= MAX_RANGE_SHARE && slope_share <= MAX_SLOPE_SHARE;
    // Never narrower than the rounds that failed: a stretch a few of whose samples are far off
    // the rest (5 s back at the cache's rate in 70 s) has deciles at one level, and read
    // "not steady: 500 MB/s to 500 MB/s (mean 600 MB/s)".
    let spread = (!steady)
        .then(|| super::levels::sample_rates(samples))
        .filter(|r| !r.is_empty())
        .map(|r| super::stats::deciles(&r));
    let spread_widened = spread.is_some_and(|(p10, p90)| lo < p10 || hi > p90);
    let spread = spread.map(|(p10, p90)| (p10.min(lo), p90.max(hi)));
    Some(SteadyState {
        rounds_bytes_per_sec: rounds,
        mean_bytes_per_sec: mean,
        range_share,
        slope_share,
        steady,
        swing: None,
        spread,
        spread_widened,
        swing_dips: false,
        swing_short_dips: false,
    })
}

/// The stretch after the last cliff of `a`, or `None` when the run had no cliff, only read,
/// or wrote nothing after it.
pub fn after_cache(t: &Timeline, a: &Analysis) -> Option<AfterCache> {
    after_cache_in(t, a, &super::levels::Columns::of(&t.samples))
}

/// [`after_cache`], with the columns of `t`'s samples made once per analysis.
pub(super) fn after_cache_in(
    t: &Timeline,
    a: &Analysis,
    cols: &super::levels::Columns,
) -> Option<AfterCache> {
    if a.read_only || a.phases.iter().all(|p| p.kind == PhaseKind::Steady) {
        return None;
    }
    let last = a.cliffs.last()?;
    // A stall that lasts to the end of the run is no level of the drive: the stretch ends
    // where it begins, at the end of the last sample before it (`analyze` of 500 MB/s rows
    // and then 0 MB/s ones to the end gave "not steady: 0.00 MB/s to 500 MB/s" beside a
    // warning that the stall is not the drive's sustained speed).
    let stall_from = a
        .phases
        .last()
        .filter(|p| p.stall && p.start_s > last.t_s)
        .map(|p| p.start_s);
    let end = match stall_from {
        // The stall's start is refined inside its first sample: a sample that ends within a
        // thousandth of its length of that start ends there.
        Some(at) => t
            .samples
            .partition_point(|s| s.t_s <= at + 1e-3 * s.interval_s.max(0.0)),
        None => t.samples.len(),
    };
    t.samples[..end].last()?;
    // A stall right after the cliff is no level either: the stretch starts after it (2000
    // MB/s, 20 s of nothing, then 500 MB/s read "not steady: 0.00 MB/s to 500 MB/s").
    let from = a
        .phases
        .iter()
        .filter(|p| p.start_s >= last.t_s - 1e-6)
        .take_while(|p| p.stall)
        .last()
        .map_or(last.t_s, |p| p.end_s);
    // The samples wholly after the cliff: the one it falls in mixes the two levels. A
    // stall's end is refined inside the sample the rate came back in: the sample that starts
    // within half of itself of that end is after the stall. Where the samples are in order
    // and of one length, their starts are too, and the first is found by halving (a scan
    // from the start read half a million samples).
    let slack = |s: &Sample| {
        if from > last.t_s {
            0.5 * s.interval_s.max(0.0)
        } else {
            0.0
        }
    };
    let first = if cols.ordered && cols.uniform && cols.rate.len() == t.samples.len() {
        t.samples[..end].partition_point(|s| s.t_start_s() < from - slack(s))
    } else {
        let i = t.samples[..end]
            .iter()
            .position(|s| s.t_start_s() >= from - slack(s))
            .unwrap_or(end);
        super::levels::note_pass(i + 1);
        i
    };
    // A stall too short for a phase of its own is no level either where it begins the stretch
    // or ends the run: the stretch begins after it, or ends before it, as after a stall phase
    // (5 s of nothing right after a cliff gave a stretch from 21.0 s with "left out: 4.0 s of
    // stalled samples", beside the definition that it begins after a stall right after the
    // cliff).
    // The stalls inside the stretch, from the run's first sample.
    let mut inner: Vec<std::ops::Range<usize>> = super::levels::stalled_runs(cols, first..end)
        .into_iter()
        .map(|r| first + r.start..first + r.end)
        .collect();
    let (first, end) = {
        let mut f = first;
        if inner
            .first()
            .is_some_and(|r| r.start == first && r.end < end)
        {
            f = inner.remove(0).end;
        }
        if inner.last().is_some_and(|r| r.end == end && r.start > f) {
            let r = inner.pop().expect("a last stall");
            (f, r.start)
        } else {
            (f, end)
        }
    };
    let to_s = t.samples[..end].last()?.t_s;
    let after = &t.samples[first..end];
    // The stretch is of those whole samples where there are two or more, as a phase's level
    // is (so that "after the cache" and the level of the phase after the cliff are one
    // figure); else from the cliff's estimated place.
    let (from_s, bytes) = match after {
        [s0, .., s1] => (
            s0.t_start_s(),
            s1.bytes_total
                .saturating_sub(s0.bytes_total.saturating_sub(s0.bytes)),
        ),
        _ => (
            last.t_s,
            t.samples[..end]
                .last()
                .map_or(0, |s| s.bytes_total)
                .saturating_sub(last.bytes_written),
        ),
    };
    let dt = to_s - from_s;
    if bytes == 0 || dt <= 0.0 {
        return None;
    }
    // A sample any part of which lies in throttling is left out whole: at coarse sampling
    // the samples at a stretch's edges hold part of the heat's level (856 MB/s of 30 s
    // astride the start of a 495 MB/s stretch), and kept they pulled the rate down.
    let spans = super::throttled_spans(a);
    let throttled = |s: &Sample| {
        let (from, to) = (s.t_start_s(), s.t_s);
        spans.iter().any(|&(a, b)| a < to - 1e-9 && b > from + 1e-9)
    };
    // A stall inside the stretch is no level of the drive either: a sample that lies mostly
    // in one (its edges are refined inside samples) is left out, and said (10 s of nothing
    // inside a 500 MB/s level made a round of 222 MB/s, and "not steady: 222 MB/s to 500
    // MB/s").
    let stalls: Vec<(f64, f64)> = a
        .phases
        .iter()
        .filter(|p| p.stall && p.start_s >= from_s - 1e-6)
        .map(|p| (p.start_s, p.end_s))
        .collect();
    // ... and so is one too short for a phase of its own: a run of samples at nothing for a
    // second or more (5 s of nothing right after a cliff made the first round 382 MB/s).
    let mut short = vec![false; after.len()];
    for r in &inner {
        short[r.start - first..r.end - first]
            .iter_mut()
            .for_each(|x| *x = true);
    }
    let stalled_at = |i: usize| {
        let s = &after[i];
        let (from, to) = (s.t_start_s(), s.t_s);
        !throttled(s)
            && (short[i]
                || stalls
                    .iter()
                    .any(|&(a, b)| (to.min(b) - from.max(a)) > 0.5 * (to - from)))
    };
    let plain = spans.is_empty() && stalls.is_empty() && !short.contains(&true);
    if plain || !(0..after.len()).any(|i| throttled(&after[i]) || stalled_at(i)) {
        return Some(AfterCache {
            from_s,
            to_s,
            bytes,
            mean_bytes_per_sec: bytes as f64 / dt,
            throttled_s: 0.0,
            throttled_bytes: 0,
            stalled_s: 0.0,
            stalled_bytes: 0,
            steady_state: with_long_dips(steady_state(after), after, &cols.rate[first..end], |i| {
                cols.interval(first + i)
            }),
        });
    }
    // Thermal throttling is heat, quoted apart: the rate and the rounds are of the rest. The
    // rate is the stretch's bytes and time less the throttled samples' own, so that it can be
    // checked from the fields it is written with.
    let kept: Vec<Sample> = (0..after.len())
        .filter(|&i| !throttled(&after[i]) && !stalled_at(i))
        .map(|i| after[i].clone())
        .collect();
    let sum = |f: &dyn Fn(usize) -> bool| {
        (0..after.len())
            .filter(|&i| f(i))
            .fold((0.0, 0u64), |(t, b), i| {
                (t + after[i].interval_s, b + after[i].bytes)
            })
    };
    let (throttled_s, throttled_bytes) = sum(&|i| throttled(&after[i]));
    let (stalled_s, stalled_bytes) = sum(&stalled_at);
    let time = dt - throttled_s - stalled_s;
    // Nothing kept (the whole stretch was heat, or stalls): no rate after the cache, rather
    // than 0 B/s over the rounding left of its time.
    if time <= 0.0 || kept.is_empty() {
        return None;
    }
    Some(AfterCache {
        from_s,
        to_s,
        bytes,
        mean_bytes_per_sec: bytes.saturating_sub(throttled_bytes + stalled_bytes) as f64 / time,
        throttled_s,
        throttled_bytes,
        stalled_s,
        stalled_bytes,
        steady_state: {
            // The samples kept, heat and stalls left out: a spell of throttling is no dip.
            let rates: Vec<f64> = kept.iter().map(|s| s.bytes_per_sec).collect();
            with_long_dips(steady_state(&kept), &kept, &rates, |i| kept[i].interval_s)
        },
    })
}

/// The least share of a stretch's time in dips longer than a garbage-collection dip that makes
/// it swing ([`with_long_dips`]): from a tenth on, its 10th percentile is a dip's rate.
pub const LONG_DIP_SHARE: f64 = 0.1;

/// The least share of a stretch's rate that its dips of any length (stalls apart) pull down
/// that makes it swing ([`with_long_dips`]): dips that cost a tenth of the rate are a second
/// level, not garbage-collection dips, however short each is (900 and 300 MB/s by turns every
/// 2 s cost a third; a fifth of the samples of a 500 MB/s level at 200 MB/s, 12%, read "441
/// MB/s, steady").
pub const DIP_PULL_SHARE: f64 = 0.1;

/// `st`, not steady and quoted by its samples' 10th to 90th percentile
/// ([`SteadyState::swing`]), where a tenth or more of the stretch's samples `kept` (with
/// their `rate`s and `interval`s) lies in dips longer than a garbage-collection dip and too
/// short for phases of their own, or its dips of any length pull its rate down by a tenth or
/// more: rounds that
/// each average them pass the rule (800 and 300 MB/s by turns every 10 s after the cache read
/// "575 MB/s, steady" beside the warning that the dips are averaged in; 900 and 300 MB/s by
/// turns every 2 s read "602 MB/s, steady" beside the warning that the dips pull the rate
/// down by 32%).
fn with_long_dips(
    st: Option<SteadyState>,
    kept: &[Sample],
    rate: &[f64],
    interval: impl Fn(usize) -> f64,
) -> Option<SteadyState> {
    let mut st = st?;
    let (long, pull) = dip_shares(rate, interval);
    if !st.steady || (long < LONG_DIP_SHARE && pull < DIP_PULL_SHARE) {
        return Some(st);
    }
    let rates = super::levels::sample_rates(kept);
    if rates.len() >= ROUNDS {
        st.swing = Some(super::stats::deciles(&rates));
        st.swing_dips = long >= LONG_DIP_SHARE;
        st.swing_short_dips = !st.swing_dips;
        st.steady = false;
    }
    Some(st)
}

/// Of samples with rates `rate` (and lengths `interval`), the share of their time in dips below
/// their level by the share the dips warning takes ([`super::warnings::DIP_SHARE`]) that last
/// longer than a garbage-collection dip, and the share of the level's bytes over their time
/// that all such dips leave unwritten (how far they pull the rate down), stalls (which are
/// left out) not counted. The level is the upper quartile of the rates: the median of a level that swings
/// between two rates is one or the other as either fills more than half of it, and from the
/// lower one there is no dip (300 and 900 MB/s by turns every 7 s, starting at 300 MB/s, read
/// "594 MB/s, steady" where the same starting at 900 MB/s read "not steady").
fn dip_shares(rate: &[f64], interval: impl Fn(usize) -> f64) -> (f64, f64) {
    let n = rate.len();
    let level = {
        let step = n.div_ceil(super::levels::LEVEL_SAMPLES).max(1);
        let picked: Vec<f64> = rate.iter().step_by(step).copied().collect();
        if picked.is_empty() {
            0.0
        } else {
            super::stats::kth_smallest(&picked, (picked.len() - 1) * 3 / 4)
        }
    };
    if n == 0 || level <= 0.0 {
        return (0.0, 0.0);
    }
    let low = super::warnings::DIP_SHARE * level;
    let stall = super::levels::STALLED_SHARE * level;
    let total: f64 = (0..n).map(&interval).sum();
    let (mut long, mut pull) = (0.0, 0.0);
    let mut i = 0;
    while i < n {
        if rate[i] >= low {
            i += 1;
            continue;
        }
        let j = (i..n).find(|&j| rate[j] >= low).unwrap_or(n);
        let d: f64 = (i..j).map(&interval).sum();
        let stalled = (i..j).all(|k| rate[k] <= stall);
        if !stalled {
            pull += (i..j)
                .map(|k| (level - rate[k]).max(0.0) * interval(k))
                .sum::<f64>();
            if d > super::MAX_DIP_S + interval(i) + 1e-9 {
                long += d;
            }
        }
        i = j;
    }
    if total > 0.0 {
        (long / total, pull / (level * total))
    } else {
        (0.0, 0.0)
    }
}

/// Marks the stretch of `a` not steady where the analysis warns that the level after the cache
/// is unstable and the rounds still passed: the stretch is then quoted as the 10th to 90th
/// percentile of its samples' rates ([`SteadyState::swing`]), so that no output calls steady
/// what the warning says to quote as a range.
pub(super) fn mark_swings(t: &Timeline, a: &mut Analysis) {
    let warned = a
        .warnings
        .iter()
        .any(|w| matches!(w.kind, super::WarningKind::UnsteadyAfterCache { .. }))
        && warned_of_the_last_stretch(a);
    let spans = super::throttled_spans(a);
    let Some(ac) = a.after_cache.as_mut() else {
        return;
    };
    let Some(s) = ac.steady_state.as_mut().filter(|_| warned) else {
        return;
    };
    // Marked already by its dips: the warning names the swing, as it does where the rounds
    // passed.
    if s.swing.is_some() && (s.swing_dips || s.swing_short_dips) {
        s.swing_dips = false;
        s.swing_short_dips = false;
        return;
    }
    if !s.steady {
        return;
    }
    super::levels::note_pass(t.samples.len());
    // The samples the rate and the rounds are of: heat is left out of the range as it is of
    // the rate ("493 MB/s to 1005 MB/s (not steady; heat left out)" took its low end from
    // the throttling's level).
    let rates: Vec<f64> = t
        .samples
        .iter()
        .filter(|x| x.t_start_s() >= ac.from_s - 1e-9 && x.t_s <= ac.to_s + 1e-9)
        .filter(|x| x.interval_s > 0.0)
        .filter(|x| {
            !spans
                .iter()
                .any(|&(a, b)| a < x.t_s - 1e-9 && b > x.t_start_s() + 1e-9)
        })
        .map(|x| x.bytes as f64 / x.interval_s)
        .collect();
    if rates.len() < ROUNDS {
        return;
    }
    s.swing = Some(super::stats::deciles(&rates));
    s.swing_dips = false;
    s.swing_short_dips = false;
    s.steady = false;
}

/// The rates of the samples wholly inside `[from_s, to_s]`, bytes/s.
fn whole_rates(samples: &[crate::timeline::Sample], from_s: f64, to_s: f64) -> Vec<f64> {
    let from = samples.partition_point(|x| x.t_start_s() < from_s - 1e-9);
    let to = samples.partition_point(|x| x.t_s <= to_s + 1e-9);
    samples[from..to.max(from)]
        .iter()
        .filter(|x| x.interval_s > 0.0)
        .map(|x| x.bytes as f64 / x.interval_s)
        .collect()
}

/// The rates of the samples any part of which lies inside `(from_s, to_s)`, bytes/s.
pub(super) fn touched_rates(
    samples: &[crate::timeline::Sample],
    from_s: f64,
    to_s: f64,
) -> Vec<f64> {
    samples
        .iter()
        .filter(|x| x.t_s > from_s + 1e-9 && x.t_start_s() < to_s - 1e-9)
        .filter(|x| x.interval_s > 0.0)
        .map(|x| x.bytes as f64 / x.interval_s)
        .collect()
}

/// The slowest and the fastest of `rates` (infinity and 0 for none).
pub(super) fn slowest_and_fastest(rates: &[f64]) -> (f64, f64) {
    rates
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)))
}

/// Sets the range of each phase of thermal throttling ([`super::is_throttled`]) whose whole
/// samples lie more than a step apart: the slowest to the fastest of them (of ten or more,
/// their 10th to 90th percentile). Heat that comes and
/// goes faster than the samples leaves each sample a different share of it, and their mean is
/// a rate none held (30 s samples of 892, 510 and 1003 MB/s read "thermal throttling: 756
/// MB/s", and the card "at 637 to 868 MB/s" above every sample that ran throttled).
fn unlike_throttled_samples(t: &Timeline, a: &mut Analysis) {
    if a.read_only {
        return;
    }
    let samples = &t.samples;
    for j in 0..a.phases.len() {
        let p = &a.phases[j];
        if p.range_bytes_per_sec.is_some() || p.stall || !super::is_throttled(a, p) {
            continue;
        }
        // The run's last sample alone, the counters rising in it after a faster sample: the
        // heat began inside it, and its rate bounds the heat's from above only (a last
        // sample of 825 MB/s after 997 MB/s read "thermal throttling: 825 MB/s").
        let n = samples.len();
        let count = |end: usize| super::thermal::count_at(samples, end);
        if n >= 2
            && p.start_s >= samples[n - 1].t_start_s() - 1e-6
            && p.start_s <= samples[n - 1].t_start_s() + 1e-6
            && samples[n - 2].bytes_per_sec > samples[n - 1].bytes_per_sec
            && count(n) > count(n - 1)
        {
            a.phases[j].rate_at_most = true;
            continue;
        }
        let rates = whole_rates(samples, p.start_s, p.end_s);
        // A rate placed inside its samples that none of the samples it touches held (637
        // MB/s over samples at 729 and 687 MB/s): their range, as measured.
        let touched = touched_rates(samples, p.start_s, p.end_s);
        let (t_lo, t_hi) = slowest_and_fastest(&touched);
        let m = p.mean_bytes_per_sec;
        if touched.len() >= 2 && t_lo > 0.0 && (m < t_lo * 0.97 || m > t_hi * 1.03) {
            a.phases[j].range_bytes_per_sec = Some((t_lo, t_hi));
            continue;
        }
        if let Some(r) = unlike_range(&rates) {
            a.phases[j].range_bytes_per_sec = Some(r);
        }
    }
}

/// The range of whole samples' `rates` that lie more than a step apart: the slowest to the
/// fastest, or of ten samples or more their 10th to 90th percentile, as every other range (at
/// fine sampling the slowest and fastest are a GC dip and noise); `None` for fewer than two,
/// or samples within a step of each other.
fn unlike_range(rates: &[f64]) -> Option<(f64, f64)> {
    let (lo, hi) = if rates.len() >= 10 {
        super::stats::deciles(rates)
    } else {
        slowest_and_fastest(rates)
    };
    (rates.len() >= 2 && lo > 0.0 && hi > lo * super::cliffs::MIN_STEP.exp()).then_some((lo, hi))
}

/// Sets the range of the cache's phase (the first that is not a stall, up to the first
/// cliff) where the drive's thermal-management counters rose in the samples it touches and
/// its whole samples lie more than a step apart: the slowest to the fastest of them (of ten
/// or more, their 10th to 90th percentile). Heat that slows the drive while the cache lasts
/// leaves the phase no one rate, and its mean blends the rates before and under the heat
/// (`simulate 'p5-1tb,heat=0.5' --interval 30s`: samples of 1874 and 1001 MB/s, the counters
/// rising in the first, read "1438 MB/s -> 500 MB/s" before a cliff the heat came with).
fn heated_cache_phase(t: &Timeline, a: &mut Analysis) {
    let Some(first_cliff) = a.cliffs.first().map(|c| c.t_s).filter(|_| !a.read_only) else {
        return;
    };
    let Some(j) = a.phases.iter().position(|p| !p.stall) else {
        return;
    };
    let p = &a.phases[j];
    if p.kind != super::PhaseKind::Cache
        || p.range_bytes_per_sec.is_some()
        || p.end_s > first_cliff + 1e-6
    {
        return;
    }
    let samples = &t.samples;
    // The samples the phase touches, and the drive's count before and after them.
    let from = samples.partition_point(|x| x.t_s <= p.start_s + 1e-9);
    let to = samples.partition_point(|x| x.t_start_s() < p.end_s - 1e-9);
    let count = |end: usize| super::thermal::count_at(samples, end);
    if to <= from || count(to) <= count(from) {
        return;
    }
    if let Some(r) = unlike_range(&whole_rates(samples, p.start_s, p.end_s)) {
        a.phases[j].range_bytes_per_sec = Some(r);
    }
}

/// Sets the range of every phase of `a` that is not one rate ([`super::Phase::range_bytes_per_sec`]):
/// the stretch after the last cliff where it swings or is not steady, with the range its
/// steady-state figures give, and each other level after a cliff (not a stall, not thermal
/// throttling) whose whole samples swing between two rates by turns
/// ([`super::levels::by_turns`]), with the 10th and 90th percentiles of their rates. A run
/// without a cliff, or one that only read, has none.
pub(super) fn mark_ranges(t: &Timeline, a: &mut Analysis) {
    unlike_throttled_samples(t, a);
    heated_cache_phase(t, a);
    let Some(last) = a.cliffs.last().map(|c| c.t_s).filter(|_| !a.read_only) else {
        return;
    };
    if let Some((j, r, _)) = super::findings::swinging_phase(a) {
        a.phases[j].range_bytes_per_sec = Some(r);
    }
    let samples = &t.samples;
    // A stretch after the last cliff that was all heat (no stretch outside it) and holds more
    // than one level: its range, not the mean of its levels (heat from 26 s, a drop from 1000
    // to 500 MB/s at 74 s inside it, read "thermal throttling: 508 MB/s").
    if a.after_cache.is_none() {
        let after: Vec<usize> = (0..a.phases.len())
            .filter(|&j| a.phases[j].start_s >= last - 1e-6 && !a.phases[j].stall)
            .collect();
        if let [j] = after[..] {
            let p = &a.phases[j];
            if super::is_throttled(a, p) {
                let from = samples.partition_point(|x| x.t_start_s() < p.start_s - 1e-9);
                let to = samples.partition_point(|x| x.t_s <= p.end_s + 1e-9);
                if let Some(s) = steady_state(&samples[from..to.max(from)]).filter(|s| !s.steady) {
                    a.phases[j].range_bytes_per_sec = Some(s.range());
                }
            }
        }
    }
    // The one post-cache level, before a later cliff, that the warning says to quote as a
    // range ([`warned_of_the_last_stretch`]): its 10th to 90th percentile, as the warning gives.
    let warned = a
        .warnings
        .iter()
        .any(|w| matches!(w.kind, super::WarningKind::UnsteadyAfterCache { .. }))
        && !warned_of_the_last_stretch(a);
    let post: Vec<usize> = (0..a.phases.len())
        .filter(|&j| {
            let p = &a.phases[j];
            p.kind == PhaseKind::PostCache && !p.stall && !super::is_throttled(a, p)
        })
        .collect();
    for j in 0..a.phases.len() {
        let p = &a.phases[j];
        if !matches!(p.kind, PhaseKind::PostCache | PhaseKind::Folding)
            || p.stall
            || p.range_bytes_per_sec.is_some()
            || p.end_s > last + 1e-6
            || super::is_throttled(a, p)
        {
            continue;
        }
        // Its whole samples: those astride its cliffs hold part of the level beside it.
        let rates = whole_rates(samples, p.start_s, p.end_s);
        let logs: Vec<f64> = rates.iter().filter(|&&r| r > 0.0).map(|r| r.ln()).collect();
        let named = warned && post == [j] && rates.len() >= ROUNDS;
        if named || (logs.len() == rates.len() && super::levels::by_turns(&logs).is_some()) {
            a.phases[j].range_bytes_per_sec = Some(super::stats::deciles(&rates));
        }
    }
}

/// The warning for a fall in the last samples of the stretch after the last cliff, too short
/// for a phase of its own: at most [`END_DROP_SAMPLES`] samples, and fewer than a fifth of the
/// stretch's, each a third or more below the median of the samples before them (one alone
/// must be under half of it). A slower tier or a pause, not told apart; it is in the stretch's
/// figures. Of 600 MB/s after the cache and then 100, 90 and 80 MB/s in the last 3 s, the
/// rounds read "599, 601, 600, 600, 484 MB/s" and the range "484 MB/s to 604 MB/s", and no
/// output said why.
pub(super) fn end_drop(t: &Timeline, a: &Analysis, units: UnitSystem) -> Option<super::Warning> {
    use crate::units::format_rate;
    let ac = a.after_cache.as_ref()?;
    let from = t
        .samples
        .partition_point(|x| x.t_start_s() < ac.from_s - 1e-9);
    let to = t.samples.partition_point(|x| x.t_s <= ac.to_s + 1e-9);
    let s = t.samples.get(from..to)?;
    let rate = |x: &Sample| {
        if x.interval_s > 0.0 {
            x.bytes as f64 / x.interval_s
        } else {
            0.0
        }
    };
    let n = s.len();
    if n < 10 {
        return None;
    }
    let head: Vec<f64> = s[..n.saturating_sub(END_DROP_SAMPLES)]
        .iter()
        .map(rate)
        .collect();
    let level = super::stats::median(&head);
    // A rate the stretch held already is no fall: a swing's last low turn is one more turn
    // ("fell from 874 MB/s to 297 MB/s in the last 1.0 s" of 900 and 300 MB/s by turns).
    let low_before = head.iter().filter(|&&r| r < level * 2.0 / 3.0).count();
    if level <= 0.0 || 20 * low_before >= head.len() {
        return None;
    }
    let k = s
        .iter()
        .rev()
        .take_while(|x| rate(x) < level * 2.0 / 3.0)
        .count();
    if k == 0 || k > END_DROP_SAMPLES || 5 * k >= n || (k == 1 && rate(&s[n - 1]) >= 0.5 * level) {
        return None;
    }
    // A stall to the end is a stall, said by its own warning.
    let tail = &s[n - k..];
    let (bytes, secs) = tail.iter().fold((0.0, 0.0), |(b, d), x| {
        (b + x.bytes as f64, d + x.interval_s)
    });
    if secs <= 0.0 || bytes <= 0.0 {
        return None;
    }
    let at = tail[0].t_start_s();
    // What they do to the figure the outputs give: the range of a stretch that is not steady,
    // the rate of one that is (one last sample at 90 MB/s after 600 MB/s left its rounds
    // within the rule, and "widen its range" stood beside "592 MB/s, steady").
    let does = match &ac.steady_state {
        Some(s) if s.steady => "pull its rate down",
        Some(_) => "widen its range",
        None => "are in its rate",
    };
    Some(super::Warning::new(
        super::WarningKind::EndDrop { t_s: at },
        format!(
            "throughput fell from {} to {} in the last {} of the run, after the last cliff: too \
             short to tell a slower tier from a pause; those samples are in the stretch after \
             the cache, and {does}; write for longer to tell",
            format_rate(level, units),
            format_rate(bytes / secs, units),
            crate::units::format_seconds(secs)
        ),
    ))
}

/// The most samples a fall at the end of the stretch after the cache may last and still be
/// named as too short for a phase ([`end_drop`]).
const END_DROP_SAMPLES: usize = 5;

/// Whether the warning that the post-cache level is unstable speaks of the stretch after the
/// last cliff: it speaks of the post-cache levels (those right after the first cliff, since
/// the last return of the cache), and after a second cliff they all lie before it. (A swing
/// between two cliffs, then a flat 150 MB/s tier, read "not steady: 150 MB/s to 150 MB/s"
/// after the cache, the swing's warning taken for the flat tier's.)
fn warned_of_the_last_stretch(a: &Analysis) -> bool {
    let last = a.cliffs.last().map_or(0.0, |c| c.t_s);
    a.phases
        .iter()
        .any(|p| p.kind == PhaseKind::PostCache && !p.stall && p.start_s >= last - 1e-6)
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_zero_u64(x: &u64) -> bool {
    *x == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rates: &[f64]) -> Vec<Sample> {
        let mut total = 0u64;
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                total += r as u64;
                Sample {
                    t_s: (i + 1) as f64,
                    interval_s: 1.0,
                    bytes: r as u64,
                    bytes_total: total,
                    bytes_per_sec: r,
                    ..Sample::default()
                }
            })
            .collect()
    }

    #[test]
    fn a_flat_stretch_is_steady_and_a_falling_one_is_not() {
        let flat = steady_state(&samples(&[500.0; 50])).unwrap();
        assert!(flat.steady);
        assert_eq!(flat.rounds_bytes_per_sec, vec![500.0; 5]);
        assert_eq!((flat.range_share, flat.slope_share), (0.0, 0.0));
        // 600 falling to 400: range 200 of a mean of 500 is 40%.
        let falling: Vec<f64> = (0..50).map(|i| 600.0 - 4.0 * i as f64).collect();
        let f = steady_state(&samples(&falling)).unwrap();
        assert!(!f.steady);
        assert!(f.range_share > MAX_RANGE_SHARE && f.slope_share > MAX_SLOPE_SHARE);
        // A throttled stretch in the middle: range too wide, no trend.
        let mut thr = vec![1000.0; 50];
        thr[20..30].iter_mut().for_each(|r| *r = 500.0);
        let t = steady_state(&samples(&thr)).unwrap();
        assert!(!t.steady && t.slope_share < MAX_SLOPE_SHARE, "{t:?}");
        assert_eq!(t.range(), (500.0, 1000.0));
        assert!(steady_state(&samples(&[1.0; 4])).is_none());
        // 29 s of samples: shorter than five rounds of twice the longest dip.
        assert!(steady_state(&samples(&[1.0; 29])).is_none());
        assert!(steady_state(&samples(&[1.0; 30])).is_some());
    }

    /// The limits are the rule's: 20% of range and 10% of change are still steady, a little
    /// more is not.
    #[test]
    fn the_limits_are_inclusive() {
        // Rounds 450, 550, 500, 500, 500 (mean 500): range 20%, no trend to speak of.
        let mut r = vec![500.0; 30];
        r[..6].iter_mut().for_each(|x| *x = 450.0);
        r[6..12].iter_mut().for_each(|x| *x = 550.0);
        let s = steady_state(&samples(&r)).unwrap();
        assert!((s.range_share - 0.2).abs() < 1e-12 && s.steady, "{s:?}");
        r[..6].iter_mut().for_each(|x| *x = 449.0);
        assert!(!steady_state(&samples(&r)).unwrap().steady);
    }
}
