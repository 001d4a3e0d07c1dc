//! Level statistics: the columns of a timeline, the working state of one analysis with the
//! level of any stretch, and the noise scales.

use super::refine::Level;
use super::stats::{mad_scale, mad_scale_of, median, median_deviation, upper_median};
use crate::timeline::Sample;

/// A segment of the run at one level, in sample indices `start..end`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Seg {
    pub(super) start: usize,
    pub(super) end: usize,
    /// Robust level: median of ln throughput.
    pub(super) level: f64,
}

/// Noise scale of single samples (ln) from first differences `d`: 1.4826 * MAD / sqrt(2).
/// In a short run the changes themselves are a large share of the differences (a cliff, a
/// straddling sample and one dip are four of seven in an eight-sample run) and inflate the
/// MAD until a threefold drop looks like noise. Below 30 differences the scale is therefore
/// also read off the lower quartile of |d| (for Gaussian noise 0.4506 sigma), which holds
/// with up to three quarters of the differences taken by changes; the smaller of the two wins.
pub(super) fn sample_noise(d: Vec<f64>) -> f64 {
    if d.len() >= 30 || d.len() < 4 {
        return mad_scale(&d) / std::f64::consts::SQRT_2;
    }
    let mad = mad_scale(&d) / std::f64::consts::SQRT_2;
    let mut a: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    a.sort_by(|x, y| x.total_cmp(y));
    let q25 = a[(a.len() - 1) / 4];
    mad.min(q25 / 0.4506)
}

/// [`sample_noise`] of the first differences of `x`, which are not stored when there are
/// enough of them for the plain MAD ([`mad_scale_of`]).
pub(super) fn diff_noise(x: &[f64]) -> f64 {
    let n = x.len().saturating_sub(1);
    if n < 30 {
        return sample_noise(x.windows(2).map(|p| p[1] - p[0]).collect());
    }
    mad_scale_of(n, |i| x[i + 1] - x[i]) / std::f64::consts::SQRT_2
}

/// The columns of a timeline the detector reads again and again, gathered in one pass over
/// the samples (a `Sample` is about 250 bytes, so at a million samples every pass over them
/// is a pass over 250 MB): throughput, interval lengths when they differ, whether the
/// interval ends only grow, and whether the optional columns (CPU, temperature, thermal
/// counters) hold anything, so that the warnings built on them skip the samples when they do
/// not. Only what the common path reads is stored: each column of a million samples is 8 MB
/// of fresh memory.
pub(super) struct Columns {
    /// `bytes_per_sec` per sample.
    pub(super) rate: Vec<f64>,
    /// Every `t_s` is at least the one before it (so a count of the samples that end by a
    /// time is a binary search).
    pub(super) ordered: bool,
    /// `interval_s` per sample, when they differ; empty when every interval is the first
    /// (most runs: a million samples would otherwise take 8 MB for one number).
    pub(super) interval: Vec<f64>,
    /// The first sample's `interval_s` (0 for no samples).
    pub(super) first_interval: f64,
    /// Some sample has `cpu_pct`.
    pub(super) cpu: bool,
    /// Some sample has `temp_c`.
    pub(super) temp: bool,
    /// Some sample has `thermal_transitions`.
    pub(super) thermal: bool,
    /// Every interval has the same length (bit for bit) as the first.
    pub(super) uniform: bool,
    /// The samples at [`STALLED_SHARE`] of the fastest one's rate or less, in order: every
    /// sample of a stall ([`stalled_runs`]) is among them, since a stretch's median is no
    /// faster than the run's fastest sample. Most runs have none, and then no stretch is
    /// read for stalls at all.
    pub(super) lows: Vec<usize>,
}

impl Columns {
    pub(super) fn of(samples: &[Sample]) -> Columns {
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
            lows: Vec::new(),
        };
        note_pass(n);
        let mut last_t = f64::NEG_INFINITY;
        for (i, s) in samples.iter().enumerate() {
            let r = s.bytes_per_sec;
            c.rate.push(r);
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
        let top = c.rate.iter().copied().fold(0.0, f64::max);
        c.lows = (0..n)
            .filter(|&i| at_most(c.rate[i], STALLED_SHARE * top))
            .collect();
        c
    }

    /// The length of interval `i` (as [`Sample::interval_s`]).
    pub(super) fn interval(&self, i: usize) -> f64 {
        if self.uniform {
            self.first_interval
        } else {
            self.interval[i]
        }
    }

    /// The median interval length, as [`Timeline::interval_s`] gives it (the upper middle
    /// value for even counts), by selection instead of a sort: the same value.
    pub(super) fn interval_s(&self) -> f64 {
        if self.uniform {
            // All equal (or none, 0): that value is the median.
            return self.first_interval;
        }
        upper_median(&self.interval)
    }
}

#[cfg(test)]
thread_local! {
    /// Samples read by the passes over the whole run (tests count the work with it).
    pub(super) static SAMPLES_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Stretches whose level was selected ([`Work::level`]; tests count the work).
    pub(super) static LEVEL_SELECTIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Samples summed for a mean rate by [`Work::mean`] (tests count the work).
    pub(super) static MEAN_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Notes one level selected by [`Work::level`] (counted in tests only).
pub(super) fn count_level_selection() {
    #[cfg(test)]
    LEVEL_SELECTIONS.with(|c| c.set(c.get() + 1));
}

/// Notes a pass over `n` samples (counted in tests only).
pub(super) fn note_pass(n: usize) {
    #[cfg(test)]
    SAMPLES_READ.with(|c| c.set(c.get() + n));
    let _ = n;
}

/// The detector's working state for one timeline.
pub(super) struct Work<'a> {
    pub(super) samples: &'a [Sample],
    /// The samples' columns.
    pub(super) cols: &'a Columns,
    /// ln(throughput) per sample.
    pub(super) x: Vec<f64>,
    /// Samples per block.
    pub(super) b: usize,
    /// Block medians.
    pub(super) y: Vec<f64>,
    /// The levels taken so far, by `(start, end)`: the clean-up and the start-up checks ask
    /// for the same stretches again and again (`x` never changes once made).
    pub(super) levels: std::cell::RefCell<std::collections::HashMap<(usize, usize), f64>>,
    /// The mean rates taken so far ([`mean_rate`]), by `(start, end)`: the clean-up's swing
    /// check asks for those of the same neighbours after every merge, and summing a level of
    /// 700 000 samples each time took the detector at 1M samples from 66 ms to 200 ms.
    pub(super) means: std::cell::RefCell<std::collections::HashMap<(usize, usize), f64>>,
    /// The run was stopped by a signal before its end (its warnings say so).
    pub(super) interrupted: bool,
}

impl Work<'_> {
    pub(super) fn block_range(&self, k: usize) -> (usize, usize) {
        let m = self.y.len();
        let s = k * self.b;
        let e = if k + 1 == m {
            self.x.len()
        } else {
            (k + 1) * self.b
        };
        (s, e)
    }
    pub(super) fn t_start(&self, i: usize) -> f64 {
        self.samples[i].t_start_s()
    }
    pub(super) fn t_end(&self, i: usize) -> f64 {
        self.samples[i - 1].t_s
    }
    pub(super) fn duration(&self, s: &Seg) -> f64 {
        self.t_end(s.end) - self.t_start(s.start)
    }
    /// Level of samples `start..end`: the median of their ln throughput, selected once per
    /// stretch.
    pub(super) fn level(&self, start: usize, end: usize) -> f64 {
        if let Some(&l) = self.levels.borrow().get(&(start, end)) {
            return l;
        }
        count_level_selection();
        let l = upper_median(&self.x[start..end]);
        self.levels.borrow_mut().insert((start, end), l);
        l
    }
    /// [`mean_rate`] of samples `start..end`, each stretch summed once.
    pub(super) fn mean(&self, start: usize, end: usize) -> f64 {
        if let Some(&m) = self.means.borrow().get(&(start, end)) {
            return m;
        }
        #[cfg(test)]
        MEAN_READS.with(|c| c.set(c.get() + end.saturating_sub(start)));
        let m = mean_rate(self.samples, start, end);
        self.means.borrow_mut().insert((start, end), m);
        m
    }
    pub(super) fn seg(&self, start: usize, end: usize) -> Seg {
        Seg {
            start,
            end,
            level: self.level(start, end),
        }
    }
}

/// The level and scale of ln throughput over `range`, for refinement. The scale is at least
/// `floor`, and at least [`block_step`] of the stretch: a sample counts whole blocks, so a
/// level of few blocks a sample is known no closer than one block.
pub(super) fn local_level(
    samples: &[Sample],
    x: &[f64],
    range: std::ops::Range<usize>,
    floor: f64,
) -> Level {
    let step = block_step(&samples[range.clone()]);
    level_of(&x[range], step, floor).0
}

/// The level of a whole stretch `range` that swings between two rates by turns (read off at
/// most [`LEVEL_SAMPLES`] of its samples, spread evenly), for refinement; `None` where it does
/// not swing. A window of [`local_level`] beside a change
/// reads one turn or two of a swing, and its level is one rate or the other: after a cliff to
/// 900 and 300 MB/s by turns every 15 s, 5% noise, a window of 15 samples at 300 MB/s and 5 at
/// 900 MB/s read a level of 300 MB/s, the 900 MB/s turn right after the cliff read as a dip of
/// the cache, and the cliff was put at 40.4 s, not 30 s (68.4 GB for 60).
pub(super) fn swing_level(
    samples: &[Sample],
    x: &[f64],
    range: std::ops::Range<usize>,
    floor: f64,
) -> Option<Level> {
    let (d10, d90, n) = turns_of(x, range.clone())?;
    let mid = 0.5 * (d10 + d90);
    // Centred between its two rates and as wide as they lie apart, whichever fills more of
    // it: its median sits at the edge of one rate's samples, and a MAD read about it took a
    // noisy swing for a level (900 and 300 MB/s by turns every 10 s, 5% noise, read a level
    // of 336 MB/s and the cliff was put at 38.1 s, 67.6 GB for 60.2).
    let step = block_step(&samples[range]);
    Some(Level {
        mu: mid,
        scale: ((d90 - d10) / 2.563).max(floor).max(step),
        n,
    })
}

/// Where `range`, which ends at a change, swings by turns ([`by_turns`]): the level of the
/// swing's last turn, the samples about the change's place nearer that turn's rate than the
/// other rate and than `after` (the level after the change, ln), up to sample `to` at most,
/// where the turn holds two samples or more (one may hold part of the change); `None`
/// otherwise. A turn of the swing's own rate is no dip of the other, however short, and the
/// change's place, a block's edge, may lie a sample or two off the turn's end.
pub(super) fn turn_before(
    samples: &[Sample],
    x: &[f64],
    range: std::ops::Range<usize>,
    after: f64,
    to: usize,
    floor: f64,
) -> Option<Level> {
    if range.is_empty() {
        return None;
    }
    let (d10, d90, _) = turns_of(x, range.clone())?;
    let near = |y: f64, r: f64, other: f64| {
        (y - r).abs() < (y - other).abs() && (y - r).abs() < (y - after).abs()
    };
    let of_turn = |j: usize| {
        if near(x[j], d10, d90) {
            Some(d10)
        } else if near(x[j], d90, d10) {
            Some(d90)
        } else {
            None
        }
    };
    // The last sample before the change's place that reads a rate of the swing, and its rate.
    let (e, rate) = range
        .clone()
        .rev()
        .find_map(|j| of_turn(j).map(|r| (j, r)))?;
    let of_rate = |j: usize| of_turn(j) == Some(rate);
    let from = (range.start..=e).rev().take_while(|&j| of_rate(j)).last()?;
    let end = (e + 1..to.min(x.len()))
        .find(|&j| !of_rate(j))
        .unwrap_or(to.min(x.len()));
    (from > range.start && end - from >= 2).then(|| local_level(samples, x, from..end, floor))
}

/// [`by_turns`] of `x` over `range`, read off at most [`LEVEL_SAMPLES`] of its samples
/// spread evenly, with how many it read.
fn turns_of(x: &[f64], range: std::ops::Range<usize>) -> Option<(f64, f64, usize)> {
    let every = range.len().div_ceil(LEVEL_SAMPLES).max(1);
    let v: Vec<f64> = x[range].iter().step_by(every).copied().collect();
    by_turns(&v).map(|(d10, d90)| (d10, d90, v.len()))
}

/// The 10th and 90th percentiles of the log rates `v` where they swing between two rates by
/// turns; `None` where they do not, or are too few to tell ([`SWING_SAMPLES`] twice over).
/// By turns: the two percentiles two steps apart or more, under a tenth of the values in the
/// middle third between them (a level that drifts fills it), and each rate a fifth of the
/// values or more (a level with dips below it is a level).
pub(super) fn by_turns(v: &[f64]) -> Option<(f64, f64)> {
    if v.len() < 2 * SWING_SAMPLES {
        return None;
    }
    let (d10, d90) = super::stats::deciles(v);
    let (mid, third) = (0.5 * (d10 + d90), (d90 - d10) / 6.0);
    let between = v.iter().filter(|&&y| (y - mid).abs() < third).count();
    if d90 - d10 < 2.0 * super::cliffs::MIN_STEP || between * 10 >= v.len() {
        return None;
    }
    let below = v.iter().filter(|&&y| y < mid).count();
    if below * 5 < v.len() || (v.len() - below) * 5 < v.len() {
        return None;
    }
    Some((d10, d90))
}

/// [`local_level`] of the values `v`, with `step` the least scale, and whether its level and
/// scale were read off its quartiles (it swings, [`swing_scale`]).
fn level_of(v: &[f64], step: f64, floor: f64) -> (Level, bool) {
    let mu = median(v);
    // The spread about the level taken, `mu`, where a level can swing: the MAD about the
    // upper median of an even count split between two rates is the whole distance between
    // them (300 and 900 MB/s by turns every 2 s after a 2000 MB/s cache, starting at 300
    // MB/s, read a scale of 1.63 about a level of 520 MB/s, wide enough to hold the cache's
    // rate, and the cliff was put at 33.3 s, not 30 s: 62.2 GB for 60). Taken where it is
    // under two thirds of the upper median's (a split between two rates; about a noisy level
    // the two are alike) and the window is long enough to swing.
    let mad_upper = mad_scale(v);
    let mad = if v.len() >= SWING_SAMPLES {
        let about_mu = 1.4826 * median_deviation(v, mu);
        if about_mu < 2.0 / 3.0 * mad_upper {
            about_mu
        } else {
            mad_upper
        }
    } else {
        mad_upper
    };
    let (centre, scale) = swing_scale(mu, mad, v);
    let swung = centre.to_bits() != mu.to_bits() || scale.to_bits() != mad.to_bits();
    (
        Level {
            mu: centre,
            scale: scale.max(floor).max(step),
            n: v.len(),
        },
        swung,
    )
}

/// The fewest samples a level's quartiles widen its scale from ([`swing_scale`]).
const SWING_SAMPLES: usize = 12;

/// The scale a normal level with the spread of `v` between its quartiles would have (that
/// spread is 1.349 of its scale). A level that swings between two rates by turns has a MAD
/// near 0 where more than half its samples read one of them, and a scale read off that alone
/// took the other rate for a dip of the level beside it: after a 2000 MB/s cache, 300 and
/// 900 MB/s by turns every 5 s, starting at 300 MB/s, had the cliff placed at 39.4 s, not
/// 30 s. Dips that fill under a quarter of the stretch leave the quartiles at the level.
/// Fewer than [`SWING_SAMPLES`] samples tell no swing: a level read off a few samples beside
/// a coarse cliff keeps its MAD (ten 10 s samples of 500 and 300 MB/s by turns after a
/// 2000 MB/s cache, read so, took the first 500 MB/s sample for one that straddles the
/// cliff and put the cliff 1.3 s late).
/// Only a second rate above the median counts: the likelihood takes samples below a level for
/// dips of it ([`super::likelihood::log_lik`]), so the scale is `mad` where the upper quartile
/// lies within six MAD scales of the median, or a tenth or more of the samples lie between
/// them, three MAD scales clear of each (a noisy level, or one with dips: a noisy 150 MB/s
/// level with dips filling a third of it after a 520 MB/s cache, read so, took a 1.7 s dip
/// of the cache to 275 MB/s for part of it and put the cliff 2.2 s early).
///
/// Such a level is centred between its quartiles, not at its median (`mu`, returned as it is
/// otherwise): a window of 14 samples at 300 MB/s and 6 at 900 MB/s, read off a swing of 15 s
/// turns, had its level at 300 MB/s, and the 900 MB/s samples right after the cliff read as
/// dips of the cache as much as samples of that level (the cliff 3.4 s late, 63.5 GB for 60).
fn swing_scale(mu: f64, mad: f64, v: &[f64]) -> (f64, f64) {
    if v.len() < SWING_SAMPLES {
        return (mu, mad);
    }
    let at = |f: f64| super::stats::quantile(v, f);
    let (q25, mid, q75) = (at(0.25), at(0.5), at(0.75));
    if q75 - mid <= 6.0 * mad {
        return (mu, mad);
    }
    let (lo, hi) = (mid + 3.0 * mad, q75 - 3.0 * mad);
    let between = v.iter().filter(|&&x| lo < x && x < hi).count();
    if between * 10 >= v.len() {
        return (mu, mad);
    }
    (0.5 * (q25 + q75), (q75 - q25) / 1.349)
}

/// One block more in a sample at the median count of blocks of `samples`, in ln throughput:
/// ln(1 + 1/n) for n blocks a sample (0 where no sample counts its operations). A sample
/// holds whole blocks, so a stretch that writes few of them a sample (a throttled disk at
/// 20 MB/s in 128 KiB blocks and 0.25 s samples writes 38) moves by steps of 1/n however
/// steady it is; with a scale read off such steady samples alone (nearly all alike, a MAD
/// near 0) a sample a few blocks off the level right after a change looked like a dip of the
/// level before it, and the change was placed after it (an ATA disk throttled from 150 to
/// 20 MB/s at 6.6 s had its cliff placed at 7.3 s, 95 % interval 6.9 s to 7.5 s).
pub(super) fn block_step(samples: &[Sample]) -> f64 {
    let ops: Vec<f64> = samples
        .iter()
        .map(|s| s.iops * s.interval_s)
        .filter(|n| n.is_finite() && *n >= 1.0)
        .collect();
    if ops.is_empty() {
        return 0.0;
    }
    let n = median(&ops);
    (1.0 / n).ln_1p()
}

/// A stretch this far below its level's median at most is a stall: 1 % of it.
pub(super) const STALLED_SHARE: f64 = 0.01;
/// The shortest stall, seconds: a shorter fall to nothing is a dip of its level.
pub(super) const MIN_STALL_S: f64 = 1.0;
/// Most samples a stretch's level is read from ([`sparse_median`]).
pub(super) const LEVEL_SAMPLES: usize = 4096;

/// The median of at most [`LEVEL_SAMPLES`] of `rate` spread evenly over it (all of a stretch
/// that short), and how many it read: a stretch's level, for the stall, dip and long-dip
/// rules, without a copy and a selection of a million samples (an eighth of an analysis).
pub(super) fn sparse_median(rate: &[f64]) -> (f64, usize) {
    let step = rate.len().div_ceil(LEVEL_SAMPLES).max(1);
    let picked: Vec<f64> = rate.iter().step_by(step).copied().collect();
    (super::stats::median(&picked), picked.len())
}

/// The rate of each sample of `samples` that lasted any time, bytes over its interval.
pub(super) fn sample_rates(samples: &[Sample]) -> Vec<f64> {
    samples
        .iter()
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .collect()
}

/// The stalls among samples `range`: runs of consecutive samples at [`STALLED_SHARE`] of the
/// stretch's median rate or less, lasting [`MIN_STALL_S`] or more, as index ranges from
/// `range.start`; none where that median is nothing. A stall is no level of the drive: the
/// rates of a phase and of "after the cache" leave them out (10 s of nothing inside a 500
/// MB/s level read "2000 MB/s -> 449 MB/s", and 5 s right after a cliff "not steady: 382 MB/s
/// to 500 MB/s"). Read from the columns, and only where the run has slow samples
/// ([`Columns::lows`]): a pass over a million samples themselves, made for each phase's rate,
/// cost the detector a third of its time.
pub(super) fn stalled_runs(
    cols: &Columns,
    range: std::ops::Range<usize>,
) -> Vec<std::ops::Range<usize>> {
    let (a, b) = (range.start, range.end.min(cols.rate.len()));
    let lo = cols.lows.partition_point(|&i| i < a);
    let hi = cols.lows.partition_point(|&i| i < b);
    let lows = &cols.lows[lo..hi];
    if lows.is_empty() {
        return vec![];
    }
    let (level, read) = sparse_median(&cols.rate[a..b]);
    note_pass(read + lows.len());
    if level <= 0.0 {
        return vec![];
    }
    let stalled = |i: usize| at_most(cols.rate[i], STALLED_SHARE * level);
    let mut out = Vec::new();
    let mut k = 0;
    while k < lows.len() {
        if !stalled(lows[k]) {
            k += 1;
            continue;
        }
        // A run of consecutive stalled samples among the slow ones.
        let mut e = k + 1;
        while e < lows.len() && lows[e] == lows[e - 1] + 1 && stalled(lows[e]) {
            e += 1;
        }
        let (i, j) = (lows[k], lows[e - 1] + 1);
        let d: f64 = (i..j).map(|x| cols.interval(x)).sum();
        if d >= MIN_STALL_S - 1e-9 {
            out.push(i - a..j - a);
        }
        k = e;
    }
    out
}

/// `rate` is no more than `limit`, or is no number (a rate that cannot be read is no level).
fn at_most(rate: f64, limit: f64) -> bool {
    rate.partial_cmp(&limit) != Some(std::cmp::Ordering::Greater)
}

/// Mean throughput of samples `s..e` (bytes over time).
pub(super) fn mean_rate(samples: &[Sample], s: usize, e: usize) -> f64 {
    let bytes: u64 = samples[s..e].iter().map(|x| x.bytes).sum();
    let time: f64 = samples[s..e].iter().map(|x| x.interval_s).sum();
    if time > 0.0 {
        bytes as f64 / time
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{analyze, synth, Analysis};

    /// A stretch's level is selected once per analysis, however often the clean-up and the
    /// start-up checks ask for it (a million-sample run asked for some stretches several times
    /// over); the analyses stay the same (`reference_tests`).
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
                means: Default::default(),
                interrupted: false,
            };
            LEVEL_SELECTIONS.with(|c| c.set(0));
            let l = (w.level(2, 9), w.level(2, 9), w.level(0, 10), w.level(2, 9));
            assert_eq!(l, (5.0, 5.0, 5.0, 5.0));
            LEVEL_SELECTIONS.with(|c| c.get())
        };
        assert_eq!(cached, 2);
    }

    /// The clean-up summed the mean rates of a run's long levels again after each merge: it
    /// looked for a swing among every pair of neighbouring segments whether or not one could
    /// be merged, and each look summed both segments whole. At 1M samples that was 200 ms of
    /// the detector's time (its goal is 100 ms). Now it looks only where a swing can merge,
    /// and sums each stretch once: a few passes over the run at most.
    #[test]
    fn the_clean_up_sums_each_stretch_once() {
        let n = 200_000;
        let t = synth::simulate(&synth::two_phase(n, 1.0), 42).0;
        MEAN_READS.with(|c| c.set(0));
        let a = analyze(&t);
        let read = MEAN_READS.with(|c| c.get());
        assert_eq!(a.cliffs.len(), 1, "{:?}", a.cliffs);
        assert!(read <= 2 * n, "{read} samples summed for {n}");
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
                .find(|w| matches!(w.kind, crate::detect::WarningKind::CoarseSampling { .. }))
                .map(|w| w.text.clone())
        };
        let text = coarse(&a).unwrap_or_default();
        assert!(
            text.contains("only 3 samples before the cliff"),
            "{:?}",
            a.warnings
        );
        assert_eq!(coarse(&a), coarse(&b));
    }
}
