//! The cliff rule: which drops are cliffs, which low stretches were the cache running out
//! (its returns), and which cliffs are only the dips of a periodic pattern.

use super::levels::{Columns, Seg, Work};
use super::stats::kth_smallest;
use super::{periodic, Analysis, Cliff, Phase, PhaseKind, WarningKind, MAX_DIP_S};
use crate::timeline::Timeline;

/// Smallest step (in ln throughput) that counts as a change: about 10%.
pub(crate) const MIN_STEP: f64 = 0.10;
/// A segment this far (ln) below the highest level before it is a stall: under 0.15% of it,
/// which no drive's slowest phase is (QLC folding is still 0.5% or more of its cache speed),
/// while stalled samples sit at the floor of 0.1% of the median rate.
pub(super) const STALL_DROP: f64 = 6.5;
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

/// Removes the cliffs (and the phases they made) that are the dips of a periodic pattern:
/// those that fall within a dip's time (give or take one dip length) and after which the
/// throughput comes back to the level before them. A cliff into a slow phase that itself
/// swings periodically stays: its level never comes back.
pub(super) fn drop_periodic_cliffs(
    a: &mut Analysis,
    p: &periodic::Periodic,
    t: &Timeline,
    cols: &Columns,
) {
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
        let upper = |after: &[f64]| kth_smallest(after, (after.len() * 3 / 4).min(after.len() - 1));
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
            .retain(|w| !matches!(w.kind, WarningKind::CacheBack { .. }));
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
            heat: false,
            stall: false,
            range_bytes_per_sec: None,
            rate_at_most: false,
        }];
        a.warnings.retain(|w| !w.speaks_of_cliffs());
    }
}

/// What the cliff rule says of the segments of a run ([`classify_drops`]).
pub(super) struct Drops {
    /// Per segment: a fall to (nearly) nothing, more than [`STALL_DROP`] below the highest
    /// level before it.
    pub(super) stall: Vec<bool>,
    /// The returns of the cache, `(j, k)` as [`cache_back_episodes`] gives them.
    pub(super) episodes: Vec<(usize, usize)>,
    /// Per change (the one after segment `j`): whether it is a cliff.
    pub(super) is_drop: Vec<bool>,
}

/// The cliff rule: which of the `n_changes` changes between `segs` are cliffs, with `tb` the
/// phase boundaries in time and bytes (`n_changes + 2` of them).
///
/// A cliff is a drop to a new lowest level, by more than [`MIN_STEP`], that is no stall and
/// that the run does not later climb back from; after a return of the cache the next drop
/// is its end, whatever the levels before.
pub(super) fn classify_drops(w: &Work, segs: &[Seg], tb: &[(f64, f64)], n_changes: usize) -> Drops {
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
            // A first segment at nothing is judged by the levels after it: a run that began
            // with 5 s of nothing gave "0.00 MB/s in the cache".
            let others = if j == 0 { &segs[1..] } else { &segs[..j] };
            !others.is_empty()
                && s.level
                    < others
                        .iter()
                        .map(|p| p.level)
                        .fold(f64::NEG_INFINITY, f64::max)
                        - STALL_DROP
        })
        .collect();
    // Returns of the cache: (j, k) with the change j starting a low stretch that was the
    // cache running out and segment k the cache back.
    let episodes = cache_back_episodes(w, segs, tb, &stall);
    let back_at = |k: usize| episodes.iter().any(|e| e.1 == k);
    let mut is_drop = Vec::with_capacity(n_changes);
    let mut lowest = f64::INFINITY;
    for j in 0..n_changes {
        if back_at(j) {
            // The cache is back: the next drop is its end, whatever the levels before.
            lowest = f64::INFINITY;
        }
        // A fall into a stall is judged by the level after the stall: the cache can run out
        // while nothing is written (2000 MB/s, 20 s of nothing, then 500 MB/s is a cliff at
        // the stall's start, whose bytes are the cache's; it read "no cliff").
        let after = (j + 1..segs.len()).find(|&k| !stall[k]);
        let into_stall = stall[j + 1] && !stall[j];
        let (next, beyond) = match after {
            Some(k) if into_stall => (segs[k].level, k + 1),
            _ => (segs[j + 1].level, j + 2),
        };
        let mut drop = next < segs[j].level
            && next < lowest - MIN_STEP
            && (!stall[j + 1] || (into_stall && after.is_some()));
        if episodes.iter().any(|e| e.0 == j) {
            drop = !stall[j + 1];
        } else if drop {
            let recovered = segs[beyond.min(segs.len())..]
                .iter()
                .any(|s| s.level > segs[j].level - 0.5 * MIN_STEP);
            drop = !recovered;
        }
        is_drop.push(drop);
        // A cliff into a stall sets the lowest level to the one after the stall (`next`).
        if (drop && into_stall) || ((drop || lowest.is_finite()) && !stall[j + 1]) {
            lowest = lowest.min(next);
        }
    }
    Drops {
        stall,
        episodes,
        is_drop,
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
/// to its level for good (130 -> 80 MB/s for 30 s) is neither; nor is a stretch in which
/// the drive's thermal-management counters rose: that was heat.
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
        // A low stretch in which the drive's counters rose (from the sample astride its drop
        // on) is heat: a stretch of throttling that ended, not the cache running out and
        // coming back (`simulate p5-1tb --interval 90s`, whose P5 has no dynamic cache, said
        // "the cache came back while writing at 472.4 s" at the end of a throttled stretch).
        let heat = super::thermal::counters_rose(
            w.samples,
            w.cols,
            segs[j + 1].start.saturating_sub(1),
            segs[k].start,
        );
        if heat || (j + 1..k).any(|m| stall[m]) {
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
