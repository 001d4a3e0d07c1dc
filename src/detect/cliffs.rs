//! The cliff rule: which drops are cliffs, which low stretches were the cache running out
//! (its returns), and which cliffs are only the dips of a periodic pattern.

use super::levels::{Columns, Seg, Work};
use super::{periodic, select, Analysis, Cliff, Phase, PhaseKind, MAX_DIP_S};
use crate::timeline::Timeline;

/// Smallest step (in ln throughput) that counts as a change: about 10%.
pub(super) const MIN_STEP: f64 = 0.10;
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
pub(super) fn cache_back_episodes(
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
