//! Clean-up of the raw PELT segments: excursions, short and small steps merged, and a short
//! cache phase at the very start split off ([`high_start`]).

use super::cliffs::{MIN_STEP, STALL_DROP};
use super::levels::{sample_noise, Seg, Work};
use super::stats::{median, upper_median, UpperMedian};
use super::MAX_DIP_S;

/// Most changes kept in one run: enough for a drive that cycles between two post-cache levels
/// (thermal throttling) without merging the cache cliff into a later step.
const MAX_CHANGES: usize = 12;
/// First and last segments shorter than this (seconds) are merged into their neighbour.
const TINY_END_S: f64 = 3.5;

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
pub(super) fn clean(w: &Work, mut segs: Vec<Seg>) -> Vec<Seg> {
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
                let kept = (p + 1..q).any(|j| is_stall(&segs, j) || is_cache_back(w, &segs, j));
                if same && !kept && best.is_none_or(|(_, _, bd)| d < bd) {
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
            } else if is_stall(&segs, j) || is_cache_back(w, &segs, j) {
                // A stall is no level to blend into its neighbours (2000 MB/s, 10 s of
                // nothing, then 500 MB/s read "2000 MB/s -> 449 MB/s"), and a short return of
                // the cache is the cache, not part of the level it interrupts (10 s back at
                // 2000 MB/s inside a 500 MB/s level read "2000 MB/s -> 667 MB/s").
                continue;
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
                // Into a neighbour that swings through its level rather than one that does
                // not: the level of a swing is one of its two rates, and a first turn at the
                // other was nearer the cache's rate than that one (2000 MB/s, then 900 and
                // 300 MB/s by turns every 20 s: the first 900 MB/s turn went into the cache,
                // and the cliff read "1871 MB/s" at 34.0 s).
                // So also where the segment beyond that neighbour is at its level or holds it:
                // the turn then recurs on that side (a first 900 MB/s turn of 12 s, then a
                // flat 300 MB/s turn, then the swing, went into the cache at 5% noise).
                let lvl = segs[j].level;
                let holds = |n: &Seg| holds_rate(w, n, lvl);
                let recurs = |n: &Seg| (n.level - lvl).abs() < MIN_STEP || holds(n);
                let before = holds(&segs[j - 1]) || (j >= 2 && recurs(&segs[j - 2]));
                let after = holds(&segs[j + 1]) || segs.get(j + 2).is_some_and(recurs);
                match (before, after) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => {
                        (segs[j].level - segs[j - 1].level).abs()
                            <= (segs[j].level - segs[j + 1].level).abs()
                    }
                }
            };
            let (a, b) = if into_prev { (j - 1, j) } else { (j, j + 1) };
            let merged = w.seg(segs[a].start, segs[b].end);
            segs.splice(a..=b, [merged]);
            continue;
        }
        // 3. Small steps, steps inside a swing, and 4. too many changes: drop the smallest.
        let (j, step) = (1..k)
            .map(|j| (j, (segs[j].level - segs[j - 1].level).abs()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((1, f64::INFINITY));
        // Looked for only where it can be taken: a small step merges first, and each look
        // reads every pair of neighbours (at 1M samples, after each of many merges).
        let swing = (step >= MIN_STEP && k - 1 <= MAX_CHANGES)
            .then(|| {
                (1..k)
                    .filter(|&j| one_swing(w, &segs[j - 1], &segs[j]))
                    .min_by(|&a, &b| {
                        let d = |j: usize| (segs[j].level - segs[j - 1].level).abs();
                        d(a).total_cmp(&d(b))
                    })
            })
            .flatten();
        if let Some(j) = swing {
            let merged = w.seg(segs[j - 1].start, segs[j].end);
            segs.splice(j - 1..=j, [merged]);
            continue;
        }
        // A turn beside a swing, at one of its rates and no longer than its turns there, is
        // one more turn of it (the cache's segment is never one: it is not a swing's rate).
        let turn = (2..k).find(|&j| {
            one_more_turn(w, &segs[j - 1], &segs[j]) || one_more_turn(w, &segs[j], &segs[j - 1])
        });
        if let Some(j) = turn.filter(|_| k - 1 <= MAX_CHANGES) {
            let merged = w.seg(segs[j - 1].start, segs[j].end);
            segs.splice(j - 1..=j, [merged]);
            continue;
        }
        if step >= MIN_STEP && k - 1 > MAX_CHANGES {
            // Too many changes: a turn out and back between two segments at one level goes
            // first, the shortest such turn, before the smallest step, which is the cache's
            // cliff where a later level cycles between two rates wider apart (2000 MB/s,
            // then 900 and 300 MB/s by turns every 20 s for 280 s: the first 900 MB/s turn was
            // merged into the cache, which read "1768 MB/s", 67.2 GB for 60).
            let turn = (1..k - 1)
                .filter(|&j| (segs[j - 1].level - segs[j + 1].level).abs() < MIN_STEP)
                .min_by(|&a, &b| w.duration(&segs[a]).total_cmp(&w.duration(&segs[b])));
            if let Some(j) = turn {
                let merged = w.seg(segs[j - 1].start, segs[j + 1].end);
                segs.splice(j - 1..=j + 1, [merged]);
                continue;
            }
        }
        if step < MIN_STEP || k - 1 > MAX_CHANGES {
            let merged = w.seg(segs[j - 1].start, segs[j].end);
            segs.splice(j - 1..=j, [merged]);
            continue;
        }
        return segs;
    }
}

/// Most samples of a segment whose deciles [`one_swing`] reads (spread evenly over it).
const SWING_SAMPLES: usize = 4096;
/// The samples a segment needs for its deciles to tell a swing.
const SWING_MIN_SAMPLES: usize = 10;

/// Whether segments `a` and `b`, side by side, are one level that swings: each one's level
/// (median) lies between the other's 10th and 90th percentiles, and their mean rates differ
/// by less than two [`MIN_STEP`]s. A level that swings between two rates by turns has a
/// median at one or the other as one rate or the other fills more than half of a stretch, so
/// a step between two medians is no change of level there (2000 MB/s, then 300 and 900 MB/s
/// by turns every 5 s, was cut at 131.8 s into "600 MB/s -> 567 MB/s", a third tier of 5.7%).
/// A change between two flat levels, or two noisy ones a fifth apart, is kept.
///
/// Two segments that swing between the same two rates (their 10th percentiles within
/// [`MIN_STEP`] of each other, their 90th too, each more than two steps apart) are one level
/// whatever their means: those differ by how much of each segment either rate fills. A level
/// that swings with a period near the block medians' filter is cut at a beat of the two (300
/// and 900 MB/s by turns every 7 s were cut into stretches of 21 s, their means 500 and 700
/// MB/s by turns, and the cliff read "1620 MB/s -> 0.00 MB/s at 40.4 s", a cache of 65.5 GB
/// for 60).
fn one_swing(w: &Work, a: &Seg, b: &Seg) -> bool {
    if !swing_shape(w, a, b) {
        return false;
    }
    if mean_gap(w, a, b) < 2.0 * MIN_STEP {
        return true;
    }
    let ((a10, a90), (b10, b90)) = (seg_deciles(w, a), seg_deciles(w, b));
    (a10 - b10).abs() < MIN_STEP
        && (a90 - b90).abs() < MIN_STEP
        && a90 - a10 > 2.0 * MIN_STEP
        && b90 - b10 > 2.0 * MIN_STEP
}

/// The 10th and 90th percentiles of segment `s`'s ln throughput (of at most
/// [`SWING_SAMPLES`] samples spread evenly over it).
fn seg_deciles(w: &Work, s: &Seg) -> (f64, f64) {
    let v = &w.x[s.start..s.end];
    let step = v.len().div_ceil(SWING_SAMPLES).max(1);
    let picked: Vec<f64> = v.iter().step_by(step).copied().collect();
    super::stats::deciles(&picked)
}

/// Whether segment `n` holds the rate `level` (ln) for a tenth or more of its samples, within
/// [`MIN_STEP`], with a [`SWING_MIN_SAMPLES`] of them at least: a stretch that swings through
/// that rate, not one a spike or a stall passes. Read off at most [`SWING_SAMPLES`] of its
/// samples spread evenly, as [`seg_deciles`] reads it: each short segment the clean-up merges
/// asks it of its neighbours, and reading every sample of a level of 700 000 each time took
/// the detector at 1M samples from 66 ms to 200 ms.
fn holds_rate(w: &Work, n: &Seg, level: f64) -> bool {
    let v = &w.x[n.start..n.end];
    let step = v.len().div_ceil(SWING_SAMPLES).max(1);
    let (near, all) = v
        .iter()
        .step_by(step)
        .fold((0usize, 0usize), |(near, all), &x| {
            (near + usize::from((x - level).abs() < MIN_STEP), all + 1)
        });
    near >= SWING_MIN_SAMPLES && near * 10 >= all && (n.level - level).abs() >= MIN_STEP
}

/// Whether segments `a` and `b` swing between the same rates: each one's level (median) lies
/// between the other's 10th and 90th percentiles, both with [`SWING_MIN_SAMPLES`] or more.
fn swing_shape(w: &Work, a: &Seg, b: &Seg) -> bool {
    if a.end - a.start < SWING_MIN_SAMPLES || b.end - b.start < SWING_MIN_SAMPLES {
        return false;
    }
    let ((a10, a90), (b10, b90)) = (seg_deciles(w, a), seg_deciles(w, b));
    let inside = |l: f64, lo: f64, hi: f64| lo <= l && l <= hi;
    inside(a.level, b10, b90) && inside(b.level, a10, a90)
}

/// How far apart (ln) the mean rates of segments `a` and `b` lie; infinite where either
/// wrote nothing.
fn mean_gap(w: &Work, a: &Seg, b: &Seg) -> f64 {
    let mean = |s: &Seg| w.mean(s.start, s.end);
    let (ma, mb) = (mean(a), mean(b));
    if ma > 0.0 && mb > 0.0 {
        (ma / mb).ln().abs()
    } else {
        f64::INFINITY
    }
}

/// Whether segment `last`, beside `prev`, is one more turn of the level that swings in `prev`:
/// `prev` swings (its 10th and 90th percentiles more than two [`MIN_STEP`]s apart) and holds
/// a stretch at `last`'s level, within a step or four noise scales, at least as long as
/// `last`. A run that ends in a turn of its swing gives no third level (300 and 900 MB/s by
/// turns every 15 s after the cache, ending in 15 s at 300 MB/s, read "623 MB/s -> 450 MB/s",
/// a third, slower phase taken for folding), and turns beside a swing are no levels of their
/// own (with 5% noise, turns of 20 s read "569 MB/s", then "887 MB/s" that "stayed up", then
/// a third tier at 292 MB/s).
fn one_more_turn(w: &Work, prev: &Seg, last: &Seg) -> bool {
    if prev.end - prev.start < SWING_MIN_SAMPLES || last.end <= last.start {
        return false;
    }
    // The deciles first (of at most SWING_SAMPLES samples): most segments do not swing, and
    // the noise scale and the runs read every sample.
    let (p10, p90) = seg_deciles(w, prev);
    if p90 - p10 <= 2.0 * MIN_STEP || last.level < p10 - 0.5 * (p90 - p10) {
        return false;
    }
    if last.level > p90 + 0.5 * (p90 - p10) {
        return false;
    }
    // Near its level: within a step, or four noise scales of single samples where they are
    // noisier (read off the first differences of both, which the turns hardly move).
    let tol = MIN_STEP.max(
        4.0 * super::levels::diff_noise(&w.x[prev.start.min(last.start)..prev.end.max(last.end)]),
    );
    if last.level < p10 - tol || last.level > p90 + tol {
        return false;
    }
    let mut longest = 0.0f64;
    let mut run_from: Option<usize> = None;
    for i in prev.start..=prev.end {
        let near = i < prev.end && (w.x[i] - last.level).abs() < tol;
        match (near, run_from) {
            (true, None) => run_from = Some(i),
            (false, Some(f)) => {
                longest = longest.max(w.t_end(i) - w.t_start(f));
                run_from = None;
            }
            _ => {}
        }
    }
    let dt = w.samples[last.start].interval_s.max(1e-9);
    w.duration(last) <= longest + dt + 1e-9
}

/// Whether middle segment `j` is a stall: more than [`STALL_DROP`] below the highest level
/// before it and below the level after it (the cliff rule's stall, `cliffs::classify_drops`).
fn is_stall(segs: &[Seg], j: usize) -> bool {
    let before = segs[..j]
        .iter()
        .map(|s| s.level)
        .fold(f64::NEG_INFINITY, f64::max);
    j > 0
        && j + 1 < segs.len()
        && segs[j].level < before - STALL_DROP
        && segs[j].level < segs[j + 1].level
}

/// Whether middle segment `j` is a return of the cache: above both neighbours by more than
/// [`MIN_STEP`], back within half a step of the highest level before them, and longer than
/// two garbage-collection dips (no dip makes a rate rise for that long).
fn is_cache_back(w: &Work, segs: &[Seg], j: usize) -> bool {
    if j == 0 || j + 1 >= segs.len() {
        return false;
    }
    let (prev, s, next) = (segs[j - 1].level, segs[j].level, segs[j + 1].level);
    let highest = segs[..j - 1]
        .iter()
        .map(|s| s.level)
        .fold(f64::NEG_INFINITY, f64::max);
    s > prev + MIN_STEP
        && s > next + MIN_STEP
        && highest > prev + MIN_STEP
        && s > highest - 0.5 * MIN_STEP
        && w.duration(&segs[j]) >= 2.0 * MAX_DIP_S
}

#[cfg(test)]
thread_local! {
    /// Samples read to find a later fall after a start-up burst (tests count the work).
    static LEVEL_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Notes `n` samples read by [`later_fall`] (counted in tests only).
fn count_level_reads(n: usize) {
    #[cfg(test)]
    LEVEL_READS.with(|c| c.set(c.get() + n));
    let _ = n;
}

/// A run of samples at the start of the first segment that is clearly above the level after
/// it: a cache phase too short for the block medians (or a start-up burst).
#[derive(Debug, Clone, Copy)]
pub(super) struct HighStart {
    /// First sample of the run (1 after a ramp-up first sample, else 0).
    pub(super) skip: usize,
    /// Samples in the run, the straddling one included.
    pub(super) run: usize,
    /// First sample of the drop (the straddling sample when there is one).
    pub(super) cut: usize,
    /// Level of the run before the straddling sample, ln bytes/s.
    pub(super) high: f64,
    /// Level after the run, ln bytes/s.
    pub(super) low: f64,
    /// Whether the level after the run lasts longer than a GC dip and never returns to the
    /// run's level.
    pub(super) lasting: bool,
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
pub(super) fn high_start(w: &Work, segs: &[Seg], sigma_x: f64) -> Option<HighStart> {
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

/// The largest step, ln bytes/s, of a high start above the level after it that can be a
/// start-up burst (a fall of under a quarter, as the 241 and 257 MB/s before 199 MB/s of a
/// kernel-made trace); a larger one is a faster first tier.
pub(super) const MAX_BURST_STEP: f64 = 0.2876820724517809; // ln(4/3)

/// Samples at the start of the run whose noise scale [`high_start`] tries when the run's
/// scale finds nothing: enough for a short cache phase and a few samples after it.
const HEAD_NOISE_SAMPLES: usize = 30;

/// The first `f` in `run + 2..x.len()` where the rate falls from `mid`, the level of
/// `x[run..f]`, to a `tail` level (of `x[f..]`) lower by more than `thr` and twice `burst`
/// (and by less than a stall) and stays down: at most a tenth of `x[f..]` above `mid - thr`,
/// three samples at least. The levels are [`upper_median`]s. Every
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
        let mid = upper_median(&x[run..f]);
        let rest = &x[f..];
        let tail = upper_median(rest);
        let up = rest.iter().filter(|&&v| v > mid - thr).count();
        rest.len() >= 3
            && x[f] < mid - thr
            && mid - tail > thr.max(2.0 * burst)
            && mid - tail < STALL_DROP
            && up * 10 <= rest.len()
    })
}

/// [`high_start`] with the noise scale `sigma_x` given.
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
        let high = median(&x[skip..run]);
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
    // A fall from the burst by a quarter or more is no start-up burst but a first, faster tier
    // (an FX700's 5000 MB/s for 1 s before 3500 MB/s was taken into a cache phase "at 3750
    // MB/s", a rate no sample held, and the cache made 25 GB where the first tier held 5 GB).
    let burst = median(&x[skip..run]) - low;
    if burst < MAX_BURST_STEP {
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
        let high = median(&x[skip..run - 1]);
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
    // nearer the run's level than the low one (a low level that swings is still low). The low
    // level here is the middle of the rest's quartiles: the median of a level that swings
    // between two rates is one or the other as either fills more than half of it, and from
    // the lower one the upper one's samples read as returns (2000 MB/s, then 300 and 900 MB/s
    // by turns every 4 s, starting at 300 MB/s, read "no confirmed cliff" for the 149 s after
    // the drop).
    // And where the rest swings up to a rate short of the run's by more than a step, a
    // return is nearer the run's level than that upper rate: 2000 MB/s, then 200 and 1000 MB/s
    // by turns, read every 1000 MB/s turn as the cache back (1000 lies nearer 2000 than the
    // middle of the swing does), and "no confirmed cliff".
    let (centre, upper) = if rest.is_empty() {
        (low, low)
    } else {
        let upper = super::stats::quantile(rest, 0.75);
        (0.5 * (super::stats::quantile(rest, 0.25) + upper), upper)
    };
    let from = if upper < high - MIN_STEP {
        upper.max(centre)
    } else {
        centre
    };
    let back = rest
        .iter()
        .filter(|&&v| v > (centre + thr).max(0.5 * (from + high)))
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

/// The best-fit line of the rates of samples `range` of `w` (read off at most 4096 of them,
/// spread evenly): how fast it falls, bytes/s each second (negative where it rises), its mean
/// rate and its mean time, seconds; `None` for fewer than four samples.
fn fall_line(w: &Work, range: std::ops::Range<usize>) -> Option<(f64, f64, f64)> {
    if range.len() < 4 {
        return None;
    }
    let every = range.len().div_ceil(4096).max(1);
    let pts: Vec<(f64, f64)> = range
        .step_by(every)
        .map(|i| (w.samples[i].t_s, w.cols.rate[i]))
        .collect();
    let fit = super::stats::Fit::of(&pts)?;
    let pace = fit.fall_rate().filter(|_| fit.y_mean > 0.0)?;
    Some((pace, fit.y_mean, fit.t_mean))
}

/// Segments after the first fall that are places on one steady fall, made one. A segment that
/// falls within itself (its best-fit line) by more than a step, and the next, which falls
/// too, at half its pace or more, and lies below it by no more than twice what that pace
/// gives between their middles, are one stretch. A rate falling 4 MB/s each second after a
/// real cliff was cut into three "tiers", each given as one rate, with a folding warning that
/// the drive was moving cached data, and "after the cache" was the last 20 s of the fall,
/// "482 MB/s": as one stretch it is quoted as what it is, a range that is not steady. A tier
/// after a real cliff lies far below what the pace before it gives. Stretches of heat the
/// drive's counters mark (`heat`, sample ranges) are kept apart, as are stalls (a stall does
/// not fall).
pub(super) fn one_fall(w: &Work, segs: Vec<Seg>, heat: &[(usize, usize)]) -> Vec<Seg> {
    let Some(first) = segs
        .windows(2)
        .position(|p| p[1].level < p[0].level - MIN_STEP)
    else {
        return segs;
    };
    let hot = |s: &Seg| heat.iter().any(|&(a, b)| a < s.end && b > s.start);
    let mut out: Vec<Seg> = segs[..=first + 1].to_vec();
    for &q in &segs[first + 2..] {
        let p = *out.last().expect("the segment after the first fall");
        let one = !hot(&p)
            && !hot(&q)
            && q.level < p.level
            && match (fall_line(w, p.start..p.end), fall_line(w, q.start..q.end)) {
                (Some((pace_p, mean_p, mid_p)), Some((pace_q, _, mid_q))) => {
                    let span = w.samples[p.end - 1].t_s - w.samples[p.start].t_start_s();
                    let step = p.level.exp() - q.level.exp();
                    pace_p * span > (MIN_STEP.exp() - 1.0) * mean_p
                        && pace_q >= 0.5 * pace_p
                        && step <= 2.0 * pace_p * (mid_q - mid_p)
                }
                _ => false,
            };
        if one {
            *out.last_mut().expect("a segment") = w.seg(p.start, q.end);
        } else {
            out.push(q);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `analyze` of a 300k-sample simulated timeline spent 45 of its 49 s in this search when
    /// it took every level afresh (O(n^2)). It now reads the segment once and finds the same
    /// fall: checked against the old search on burst-then-fall shapes, plateaus with repeated
    /// values, noise, and runs with no fall.
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
