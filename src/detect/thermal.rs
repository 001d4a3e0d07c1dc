//! Stretches of thermal throttling that the drive's own counters mark, found from the samples
//! themselves, so that sampling too coarse for the segments to keep them (a 115 s stretch is
//! four 30 s samples, shorter than the excursion the clean-up takes for dips, and its edge
//! samples hold part of the level either side) still sees each of them.
//!
//! A stretch starts where the drive's thermal-management transition count rose (in that
//! sample or the next, the first below the level before it by more than half a step) and
//! lasts while the rate stays that far below the level before it. Such a stretch is kept as a
//! segment of its own, whatever the clean-up made of it, so that the drop into it is matched
//! to the counters (`warnings::thermal_warnings`) as it is at fine sampling.

use super::cliffs::MIN_STEP;
use super::levels::{Columns, Seg, Work};
use super::stats::median;
use super::{Phase, PhaseKind, UnconfirmedDrop, MAX_DIP_S};
use crate::timeline::Sample;
use crate::units::UnitSystem;

/// The most samples before a stretch whose median rate is the level it fell from.
const LEVEL_SAMPLES: usize = 10;

/// The stretches of thermal throttling the counters mark, as sample ranges `start..end` in
/// time order (`end` is the number of samples for a stretch that lasts to the end of the
/// run). A stretch is at least a step below the level before it at its lowest, holds two
/// samples or more and lasts at least twice the longest GC dip, so that a dip that happens to
/// follow a transition is none.
pub(super) fn counter_windows(samples: &[Sample], cols: &Columns) -> Vec<(usize, usize)> {
    let n = samples.len();
    if !cols.thermal || n < 2 {
        return vec![];
    }
    // The count at the end of each sample (the last reading at or before it; 0 before the
    // first: the counts start at the start of the run).
    let mut count = Vec::with_capacity(n);
    let mut last = 0u64;
    for s in samples {
        if let Some(c) = s.thermal_transitions {
            last = c;
        }
        count.push(last);
    }
    let rate = &cols.rate;
    let mut out = Vec::new();
    // The first sample after the last stretch found: the level before a stretch is read
    // from the samples since then.
    let mut free = 0;
    // The level before the last stretch found: a rise right after a stretch (no sample since
    // it) falls from that level, not from none (`simulate p5-1tb --interval 90s`: the heat
    // that began at the end of the one full-speed sample after a stretch, and held the next
    // sample at 498 MB/s, was no stretch, and that sample was blended into a "mean").
    let mut last_level: Option<f64> = None;
    let mut r = 0;
    while r < n {
        let rose = count[r] > if r == 0 { 0 } else { count[r - 1] };
        let from = free.max(r.saturating_sub(LEVEL_SAMPLES));
        let level = if from < r {
            Some(median(&rate[from..r]))
        } else {
            last_level
        };
        let Some(level) = level.filter(|_| rose) else {
            r += 1;
            continue;
        };
        let low = level * (-0.5 * MIN_STEP).exp();
        let Some(i) = (r..(r + 2).min(n)).find(|&i| rate[i] < low) else {
            r += 1;
            continue;
        };
        let k = (i..n).find(|&k| rate[k] >= low).unwrap_or(n);
        let k = release_below_level(samples, rate, &count, i, k).unwrap_or(k);
        let deep = rate[i..k].iter().any(|&x| x < level * (-MIN_STEP).exp());
        // Two samples at least: one alone, part of it at each level, is no level. The run's
        // last sample alone is heat all the same (the heat began inside it and the run ended
        // before a level could show): left to the level before, it was counted in the rate
        // after the cache beside "heat left out" (a 786 MB/s last sample of 28 s at 30 s
        // samples, its counter 3 -> 4, in a 980 MB/s level).
        let last_alone = k == n && k == i + 1;
        // One sample alone inside the run is heat too where it lies further below the level
        // than the longest GC dip, to nothing, could pull it (at 30 s samples a 486 MB/s
        // sample between 994 and 954 MB/s, the count rising in the sample before it, went
        // into a level of "954 MB/s" after the cache, and no warning named it).
        let alone = k == i + 1
            && samples[i].interval_s > 0.0
            && rate[i] < level * (1.0 - MAX_DIP_S / samples[i].interval_s);
        let long = (k >= i + 2 || last_alone || alone)
            && samples[k - 1].t_s - samples[i].t_start_s() >= 2.0 * MAX_DIP_S;
        if deep && long {
            out.push((i, k));
            last_level = Some(level);
            free = k;
            r = k;
        } else {
            r += 1;
        }
    }
    out
}

/// Where a stretch of heat `i..k` ends before `k` because the drive left the throttle for a
/// level of its own below the one before the heat: the first sample within half a step of
/// that level after a climb of a step or more from the level of the samples before the climb
/// (their median over four GC dips' time, so that the end of a dip is none) to that of the
/// samples after it (as long, with no further rise of the count). A tier that ran out under the heat leaves the
/// drive, once it cools, at the slower tier's rate, which never regains the level before the
/// heat (`simulate 'fx700-2tb,heat=0.1' --pattern seqwrite --interval 10s --cliffs 2`: 63 MB/s
/// throttled, then 130 MB/s cooling for 3.3 h, all of which was called throttling). A drive
/// that steps back from a deeper throttle to a lighter one with no count of it reads as a
/// release too.
fn release_below_level(
    samples: &[Sample],
    rate: &[f64],
    count: &[u64],
    i: usize,
    k: usize,
) -> Option<usize> {
    let held = |a: usize, b: usize| samples[b - 1].t_s - samples[a].t_start_s() >= 2.0 * MAX_DIP_S;
    // The mean rate of samples `a..b` (bytes over time): a bound cheap to read at every
    // sample, so that the medians are read only near a climb (a stretch of heat to the end of
    // a run of 10 ms samples read one median of 1200 samples at each of its samples).
    let mean = |a: usize, b: usize| {
        let bytes = samples[b - 1].bytes_total as f64
            - (samples[a].bytes_total as f64 - samples[a].bytes as f64);
        let secs = samples[b - 1].t_s - samples[a].t_start_s();
        if secs > 0.0 {
            bytes / secs
        } else {
            0.0
        }
    };
    let half = (0.5 * MIN_STEP).exp();
    // The first sample of the level before `j` (`a`) and the end of the level after it
    // (`b`), both moving forward with `j`.
    let (mut a, mut b) = (i, i + 1);
    for j in i + 1..k {
        // The level the rate held up to `j`: the median of the samples of the stretch back
        // to four GC dips' time before it (a dip among them moves it little; one sample where
        // it is that long).
        let since = samples[j].t_start_s() - 4.0 * MAX_DIP_S;
        while a + 1 < j && samples[a + 1].t_start_s() <= since + 1e-9 {
            a += 1;
        }
        // The level after the climb: the samples in four GC dips' time after the climb's
        // first (which may hold part of the floor), two at the least.
        let until = samples.get(j + 1)?.t_start_s() + 4.0 * MAX_DIP_S;
        b = b.max((j + 3).min(k));
        while b < k && samples[b].t_start_s() <= until + 1e-9 {
            b += 1;
        }
        if !held(a, j) || b < j + 3 {
            continue;
        }
        // Far from a step up by the means (half a step, for what a median can differ by).
        let before = mean(a, j);
        if rate[j] < before * half || mean(j + 1, b) < before * half {
            continue;
        }
        let floor = median(&rate[a..j]);
        if rate[j] < floor * MIN_STEP.exp() {
            continue;
        }
        // ... with no further rise of the count up to their end.
        if count[b - 1] != count[j - 1] || !held(j + 1, b) {
            continue;
        }
        let after = median(&rate[j + 1..b]);
        if after < floor * MIN_STEP.exp() {
            continue;
        }
        let end = (j..b).find(|&m| rate[m] >= after * (-0.5 * MIN_STEP).exp())?;
        return Some(end);
    }
    None
}

/// The stretches of [`counter_windows`] that a slower tier ran out in: the drive left the
/// throttle ([`release_below_level`]) for a level a step or more below the one before the
/// heat (each level the median of up to [`LEVEL_SAMPLES`] samples outside the stretches).
/// `simulate 'fx700-2tb,heat=0.1' --pattern seqwrite --interval 10s --cliffs 2`: 3480 MB/s,
/// then 1688 MB/s throttled, 65 MB/s (the 130 MB/s tier at half rate) with no further rise,
/// and 130 MB/s once the drive cooled.
pub(super) fn tiers_out_under_heat(
    samples: &[Sample],
    cols: &Columns,
    windows: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let n = samples.len();
    let rate = &cols.rate;
    let mut out = Vec::new();
    let mut free = 0;
    for (m, &(i, k)) in windows.iter().enumerate() {
        let from = free.max(i.saturating_sub(LEVEL_SAMPLES));
        let next = windows.get(m + 1).map_or(n, |w| w.0);
        let to = next.min(k + LEVEL_SAMPLES);
        free = k;
        if from < i && k < to && median(&rate[k..to]) < median(&rate[from..i]) * (-MIN_STEP).exp() {
            out.push((i, k));
        }
    }
    out
}

/// Whether the drive's thermal-management count rose over samples `from..to` (from the end
/// of the sample before them to the end of the last of them; 0 before the first sample).
pub(super) fn counters_rose(samples: &[Sample], cols: &Columns, from: usize, to: usize) -> bool {
    let to = to.min(samples.len());
    if !cols.thermal || from >= to {
        return false;
    }
    count_at(samples, to) > count_at(samples, from)
}

/// The drive's thermal-management count at the end of the first `end` samples: the last
/// count recorded among them (0 before the first sample, or where none was recorded).
pub(super) fn count_at(samples: &[Sample], end: usize) -> u64 {
    samples[..end.min(samples.len())]
        .iter()
        .rev()
        .find_map(|s| s.thermal_transitions)
        .unwrap_or(0)
}

/// `segs` with each stretch of [`counter_windows`] a segment of its own. A stretch whose
/// edges already have a boundary each (within a block) and none between them is left as it
/// is; otherwise the boundaries within a block of it go and its edges become boundaries.
pub(super) fn keep_counter_windows(w: &Work, segs: Vec<Seg>) -> Vec<Seg> {
    let windows = counter_windows(w.samples, w.cols);
    if windows.is_empty() || segs.is_empty() {
        return segs;
    }
    let n = w.samples.len();
    let tol = w.b;
    let bounds: Vec<usize> = segs.iter().skip(1).map(|s| s.start).collect();
    let mut gone = vec![false; bounds.len()];
    let mut edges: Vec<usize> = Vec::new();
    for &(i, k) in &windows {
        let lo = i.saturating_sub(tol);
        let hi = k + tol;
        let inside: Vec<usize> = (0..bounds.len())
            .filter(|&m| (lo..=hi).contains(&bounds[m]))
            .collect();
        let near = |m: usize, e: usize| bounds[m].abs_diff(e) <= tol;
        let seen = match inside.as_slice() {
            [a] => k == n && near(*a, i),
            [a, b] => k < n && near(*a, i) && near(*b, k),
            _ => false,
        };
        if seen {
            continue;
        }
        // The boundaries at its edges go, not those well inside it: a level the stretch
        // changed to (a cache that ran out under the heat) stays a segment of its own.
        for m in inside {
            if near(m, i) || (k < n && near(m, k)) {
                gone[m] = true;
            }
        }
        edges.extend([i, k].into_iter().filter(|&e| e > 0 && e < n));
    }
    if edges.is_empty() {
        return segs;
    }
    let mut all: Vec<usize> = bounds
        .iter()
        .zip(&gone)
        .filter(|(_, &g)| !g)
        .map(|(&b, _)| b)
        .chain(edges)
        .collect();
    all.sort_unstable();
    all.dedup();
    let mut out = Vec::with_capacity(all.len() + 1);
    let mut start = 0;
    for b in all.into_iter().chain([n]) {
        out.push(w.seg(start, b));
        start = b;
    }
    out
}

/// `segs` with a level that lasted only a few samples right before a stretch of heat the
/// counters mark ([`counter_windows`]) a segment of its own. At a run of many samples the block
/// medians are longer than such a level, so it went into the segment before it, and a cache
/// that ran out a few seconds before the heat began was no cliff: its fall and the heat's were
/// one drop, the rate of the cache blended the level into it, and its size was that of the
/// heat's drop (`simulate p5-1tb,throttle_at=60 --cliffs 2`: 2000 MB/s, then 1000 MB/s for 4 s,
/// then the heat at 500 MB/s, read "1924 MB/s -> 495 MB/s (thermal throttling)" and a cache of
/// 104 GB for 100 GB). The level is the last samples before the stretch that all lie a step
/// below the level of the segment that holds them, over the longest GC dip or more and at
/// least two samples (a dip of the cache's level into the heat is none), and whose median is
/// half a step above the stretch's (the heat's own fall, begun before the counters rose, is
/// none).
pub(super) fn split_level_before_heat(w: &Work, segs: Vec<Seg>) -> Vec<Seg> {
    let windows = counter_windows(w.samples, w.cols);
    let rate = &w.cols.rate;
    let mut bounds: Vec<usize> = segs.iter().skip(1).map(|s| s.start).collect();
    let mut changed = false;
    for &(i, k) in &windows {
        // The segment the stretch follows: its end is the stretch's start, or within a block
        // of it (where [`keep_counter_windows`] found a boundary there already).
        let Some(seg) = segs
            .iter()
            .find(|s| s.start < i && s.end.abs_diff(i) <= w.b && s.end < k)
        else {
            continue;
        };
        let below = seg.level.exp() * (-MIN_STEP).exp();
        let from = (seg.start..i)
            .rev()
            .take_while(|&j| rate[j] < below)
            .last()
            .unwrap_or(i);
        if from < seg.start + 2 || from + 2 > i {
            continue;
        }
        let lasted = w.samples[i - 1].t_s - w.samples[from].t_start_s();
        let heat = median(&rate[i..k]);
        if lasted >= MAX_DIP_S && median(&rate[from..i]) > heat * (0.5 * MIN_STEP).exp() {
            bounds.retain(|&b| b != seg.end);
            bounds.extend([from, i]);
            changed = true;
        }
    }
    if !changed {
        return segs;
    }
    bounds.sort_unstable();
    bounds.dedup();
    let mut out = Vec::with_capacity(bounds.len() + 1);
    let mut start = 0;
    for b in bounds.into_iter().chain([w.samples.len()]) {
        out.push(w.seg(start, b));
        start = b;
    }
    out
}

/// The drop inside the first sample of a run whose first drop, `fd` (the change after phase
/// `fd`), was heat: no cache cliff sits on a stretch of throttling. At samples of minutes
/// the cache can run out inside the first sample and the first drop the segments show is
/// the heat's (`simulate p5-1tb --interval 2m`: a 50 s cache, then throttling from 419 s,
/// gave "cache 328 GB" at the heat's drop, placed at 274 s, a sample before the heat). When
/// the first sample stands over the level of the samples before the stretch of heat the
/// counters mark ([`counter_windows`]) by more than a step, and by more than a start-up burst
/// writes, that is the drop the cache made, bounded as one ([`super::warnings::first_sample_drop`]) at the level
/// outside the heat. Returns it, with the start of the stretch's first sample (where the
/// heat's drop is placed instead). `None` where the first drop is no heat, another drop that
/// is no heat follows, no stretch of the counters holds it, or the first sample shows no
/// such drop (the heat's drop stays the cliff, with the thermal warning's doubt).
pub(super) fn first_sample_drop_before_heat(
    w: &Work,
    phases: &[Phase],
    is_drop: &[bool],
    fd: usize,
    heat_at: &[f64],
    units: UnitSystem,
) -> Option<(f64, (f64, String, UnconfirmedDrop))> {
    let heat = |j: usize| {
        heat_at
            .iter()
            .any(|&t| (t - phases[j + 1].start_s).abs() < 1e-9)
    };
    let all_heat = (0..is_drop.len()).all(|j| !is_drop[j] || heat(j));
    if !(heat(fd) && all_heat) {
        return None;
    }
    let samples = w.samples;
    let at = phases[fd + 1].start_s;
    // The stretch whose first sample, or the one before it, holds the drop.
    let (i, _) = counter_windows(samples, w.cols)
        .into_iter()
        .find(|&(i, _)| {
            samples[i.saturating_sub(1)].t_start_s() <= at + 1e-9 && at <= samples[i].t_s + 1e-9
        })?;
    let from_s = samples[i].t_start_s();
    if !(phases[fd].start_s < from_s && from_s < phases[fd + 1].end_s) {
        return None;
    }
    // The level between the first sample and the heat; the first sample over it by more
    // than a step (the segments saw one) and by more than a start-up burst writes.
    let rates: Vec<f64> = samples[1..i]
        .iter()
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .collect();
    let first = &samples[0];
    if first.interval_s <= 0.0 {
        return None;
    }
    let (high, level) = first_above_level(samples, &rates)?;
    let view = if rates.len() >= 2 {
        &samples[..i]
    } else {
        samples
    };
    Some((
        from_s,
        super::warnings::first_sample_drop_over(view, high, level, rates.is_empty(), units),
    ))
}

/// The fastest rate of the samples after the first, bytes/s; `None` without one.
fn fastest_after_first(samples: &[Sample]) -> Option<f64> {
    samples
        .iter()
        .skip(1)
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .reduce(f64::max)
}

/// Whether a drop at `t_s` lies in a stretch of heat the counters mark ([`counter_windows`],
/// from half a sample before its first sample to the end of its last) that is no cache
/// cliff: one the rate came back from, or one after another that it came back from. A first
/// stretch that lasts to the end of the run may be the cache running out as the drive heated
/// (the thermal warning then says the size is in doubt).
pub(super) fn in_heat(samples: &[Sample], windows: &[(usize, usize)], t_s: f64) -> bool {
    let n = samples.len();
    windows.iter().enumerate().any(|(m, &(i, k))| {
        let lead = if i > 0 {
            0.5 * samples[i - 1].interval_s
        } else {
            0.0
        };
        (k < n || m > 0)
            && t_s >= samples[i].t_start_s() - lead - 1e-9
            && t_s <= samples[k - 1].t_s + 1e-9
    })
}

/// A run with no cliff outside the heat whose first sample stands more than a step over the
/// level outside the stretches the counters mark ([`counter_windows`]): the cache ran out
/// inside the first sample, and the level after it is the drive's, not a blend with the
/// heat's (`simulate p5-1tb --interval 90s` said "a drop after 140 GB too short to confirm
/// (1554 MB/s -> 855 MB/s for the last 1052 s)", the throttling pulling the level down).
/// The level is the median of the samples after the first outside the stretches, or the
/// fastest after the first where fewer than two are. `None` without stretches, or without
/// such a first sample.
pub(super) fn first_sample_drop_outside_heat(
    w: &Work,
    units: UnitSystem,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let samples = w.samples;
    let windows = counter_windows(samples, w.cols);
    if windows.is_empty() {
        return None;
    }
    let first = &samples[0];
    if first.interval_s <= 0.0 {
        return None;
    }
    // Up to the first stretch a slower tier ran out in: the level after it is that tier's, not
    // the one the first sample fell to.
    let end = tiers_out_under_heat(samples, w.cols, &windows)
        .first()
        .map_or(samples.len(), |w| w.0);
    let rates: Vec<f64> = (1..end)
        .filter(|&m| !windows.iter().any(|&(i, k)| (i..k).contains(&m)))
        .map(|m| &samples[m])
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .collect();
    let (high, level) = first_above_level(samples, &rates)?;
    let (bound, text, mut drop) =
        super::warnings::first_sample_drop_over(samples, high, level, rates.is_empty(), units);
    if rates.len() >= 2 {
        // The level was read off the samples outside the heat, not off all after the first:
        // it was seen for as long as they last (p5-1tb at 90 s samples gave "after_s" 1046 s
        // beside a level read off 270 s of them).
        drop.after_s = (1..end)
            .filter(|&m| !windows.iter().any(|&(i, k)| (i..k).contains(&m)))
            .map(|m| samples[m].interval_s.max(0.0))
            .sum();
    }
    Some((bound, text, drop))
}

/// The first sample's rate and the level it stands above, where it does by a step and holds
/// over that level more than a start-up burst writes: the level is the median of `rates`
/// (the samples' rates outside the heat), or where fewer than two are left (samples of
/// minutes: the heat began in the second) the fastest sample after the first, the least
/// throttled (where none is left outside the heat, only a floor of the level: the callers
/// say so). `None` otherwise.
fn first_above_level(samples: &[Sample], rates: &[f64]) -> Option<(f64, f64)> {
    let first = samples.first()?;
    let level = if rates.len() >= 2 {
        median(rates)
    } else {
        fastest_after_first(samples)?
    };
    let high = first.bytes as f64 / first.interval_s;
    let over = first.bytes as f64 - level * first.interval_s;
    (level > 0.0 && over >= super::warnings::STARTUP_BURST_BYTES && high > level * MIN_STEP.exp())
        .then_some((high, level))
}

/// The phases of a run with no cache cliff, once [`first_sample_drop_before_heat`] found its
/// drop inside the first sample: none is the cache, after it or a tier (the stretches of heat
/// are named last, as in every run).
pub(super) fn no_cache_phases(phases: &mut [Phase]) {
    for p in phases {
        if matches!(
            p.kind,
            PhaseKind::Cache | PhaseKind::PostCache | PhaseKind::Folding
        ) {
            p.kind = PhaseKind::Steady;
        }
    }
}

/// Moves the edges of a stretch between two changes that holds no whole sample onto the
/// edges of the stretches of heat the counters mark ([`counter_windows`]) that the rate came
/// back from (`tb` holds the phase boundaries, time and bytes, the run's start and end first
/// and last). At samples of minutes refinement can place both changes of a short spell of
/// throttling inside the samples that hold it: `simulate p5-1tb --interval 90s` made a phase
/// of 0 s, "0.00 MB/s", where a 495 MB/s sample held the heat, and others of 20 s to 60 s
/// whose rate, the bytes to the estimated places over their time, no sample held (297 MB/s
/// where the slowest read 495 MB/s). Such a phase has no rate of its own. One that lies
/// inside a stretch becomes the whole stretch, whose whole samples give it its rate; one
/// that reaches into the sample just outside a stretch (the end of the heat placed 0.4 s
/// into the sample after it, leaving 89.6 s of a 90 s sample) has that edge moved onto the
/// stretch's. Neither change may be a drop, and the boundaries keep their order, so that
/// each neighbour keeps time of its own. A stretch that holds a whole sample is left as it is.
pub(super) fn snap_to_windows(
    samples: &[Sample],
    windows: &[(usize, usize)],
    is_drop: &[bool],
    tb: &mut [(f64, f64)],
) {
    const EPS: f64 = 1e-9;
    let n = samples.len();
    let start = |i: usize| {
        let s = &samples[i];
        (s.t_start_s(), s.bytes_total.saturating_sub(s.bytes) as f64)
    };
    let end = |i: usize| (samples[i].t_s, samples[i].bytes_total as f64);
    let came_back: Vec<(usize, usize)> = windows.iter().copied().filter(|&(_, k)| k < n).collect();
    // Segment `j` runs from `tb[j]` (change `j - 1`) to `tb[j + 1]` (change `j`).
    for j in 1..tb.len().saturating_sub(2) {
        let (ts, te) = (tb[j].0, tb[j + 1].0);
        if is_drop[j - 1] || is_drop[j] || whole_samples_in(samples, ts, te) > 0 {
            continue;
        }
        let inside = came_back
            .iter()
            .find(|&&(i, k)| ts >= samples[i].t_start_s() - EPS && te <= samples[k - 1].t_s + EPS);
        let (from, to) = match inside {
            Some(&(i, k)) => (start(i), end(k - 1)),
            None => {
                // An edge inside the sample just before a stretch or just after it.
                let astride = |t: f64| {
                    came_back.iter().find_map(|&(i, k)| {
                        let before = i.checked_sub(1).map(|m| &samples[m]);
                        if before.is_some_and(|s| s.t_start_s() < t && t < s.t_s) {
                            Some(start(i))
                        } else if samples[k].t_start_s() < t && t < samples[k].t_s {
                            Some(end(k - 1))
                        } else {
                            None
                        }
                    })
                };
                // The phase's start inside a stretch's first sample, its end past the
                // stretch: it starts with the stretch (a stretch of one 30 s sample, 420 s
                // to 450 s at 486 MB/s, read "thermal throttling: 340 MB/s (426.7 s to 450.0
                // s)", the bytes from a place inside it over the time to its end).
                let into = |t: f64| {
                    came_back.iter().find_map(|&(i, k)| {
                        (samples[i].t_start_s() < t
                            && t < samples[i].t_s
                            && te > samples[k - 1].t_s - EPS)
                            .then(|| start(i))
                    })
                };
                (
                    astride(ts).or_else(|| into(ts)).unwrap_or(tb[j]),
                    astride(te).unwrap_or(tb[j + 1]),
                )
            }
        };
        if tb[j - 1].0 < from.0 - EPS && from.0 < to.0 - EPS && to.0 < tb[j + 2].0 - EPS {
            tb[j] = from;
            tb[j + 1] = to;
        }
    }
    // The run's last sample alone, heat that began inside it ([`counter_windows`]): the last
    // phase, placed inside it, has no rate of its own (a 740 MB/s "throttling" that no sample
    // held beside the sample's 787 MB/s): it becomes the whole sample.
    if let (Some(&(i, _)), Some(j)) = (
        windows.iter().find(|&&(i, k)| k == n && i + 1 == n),
        tb.len().checked_sub(2).filter(|&j| j >= 1),
    ) {
        let from = start(i);
        let t = tb[j].0;
        if !is_drop[j - 1] && from.0 - EPS <= t && t < samples[i].t_s && tb[j - 1].0 < from.0 - EPS
        {
            tb[j] = from;
        }
    }
}

/// How many samples lie wholly inside `[from_s, to_s]`.
fn whole_samples_in(samples: &[Sample], from_s: f64, to_s: f64) -> usize {
    const EPS: f64 = 1e-9;
    let i = samples.partition_point(|s| s.t_start_s() < from_s - EPS);
    let k = samples.partition_point(|s| s.t_s <= to_s + EPS);
    k.saturating_sub(i)
}
