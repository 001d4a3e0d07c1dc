//! Full-resolution refinement of one change: a posterior over its position in time.
//!
//! Given the two levels either side (log throughput, each with a robust scale), every
//! position tau in a window of samples is scored with a Student-t likelihood: samples wholly
//! before tau at the first level, wholly after at the second, and the sample that straddles
//! tau at the rate-weighted mixture of the two. A uniform prior over time gives the posterior,
//! whose median is the estimate and whose 2.5% and 97.5% quantiles are the 95% interval.

use super::cell_bound::CellBound;
use super::likelihood::{
    log_lik, t_cdf, t_density, t_norm, DIP_DEPTH, DIP_EVERY_S, DIP_SHARE, GRID, MAX_DIP_S,
    PAUSE_PRIOR,
};
use crate::timeline::Sample;

/// One level: mean and scale of log throughput.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Mean (or median) of ln(bytes/s).
    pub mu: f64,
    /// Robust scale of ln(bytes/s).
    pub scale: f64,
    /// How many samples the level was estimated from.
    pub n: usize,
}

/// The refined change: time and bytes written, each with a 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refined {
    /// Posterior median of the change time, seconds.
    pub t_s: f64,
    /// 2.5% quantile of the change time.
    pub t_low_s: f64,
    /// 97.5% quantile.
    pub t_high_s: f64,
    /// Bytes written up to `t_s`.
    pub bytes: f64,
    /// Bytes written up to `t_low_s`.
    pub low_bytes: f64,
    /// Bytes written up to `t_high_s`.
    pub high_bytes: f64,
}

/// A sample next to the estimate that lies inside both levels by this share of the step
/// (in ln throughput) may be the one that straddles the change (see the end of [`refine`]).
const AMBIGUOUS_SHARE: f64 = 0.25;

/// ln of the sum of `exp` of the terms: bit for bit the value of adding `(x - max).exp()` for
/// every term in order and taking the log, but an `exp` is left out where it cannot change the
/// running sum (a term below half a unit in the last place of the sum so far rounds away).
/// A NaN term gives NaN, as the plain sum does.
fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    let mut s = 0.0f64;
    let mut below = f64::NEG_INFINITY;
    for &x in v {
        let d = x - m;
        if d < below {
            continue;
        }
        // exp(0) is exactly 1 and ln(1) exactly 0: the maximum's term, and a sum of it alone,
        // need no call.
        s += if d == 0.0 { 1.0 } else { d.exp() };
        // The maximum's term is 1: from it on the sum is at least 1 (a NaN sum fails the test
        // and keeps every term, as the plain sum does).
        if s >= 1.0 {
            below = LOST_AT_ONE;
        }
    }
    m + if s == 1.0 { 0.0 } else { s.ln() }
}

/// Below this `d`, `exp(d)` added to a sum of at least 1 leaves it as it is: half a unit in
/// the last place of a sum in [2^e, 2^(e+1)), e >= 0, is at least 2^-53, and `exp(d)` for `d`
/// < -54 ln 2 is at most 2^-54 (a factor of two to spare for the rounding of `exp`).
const LOST_AT_ONE: f64 = -54.0 * std::f64::consts::LN_2;

/// The skip margin (in ln weight below the best cell) that leaves out only cells whose weight
/// is exactly 0.0, which the bit-for-bit test runs `refine` with. A cell with `ll` below `mx - SKIP_MARGIN` has weight `exp(ll - mx)` of
/// exactly 0.0: `exp(d)` for `d` < -745.2 is below half the smallest subnormal (2^-1075) and
/// rounds to zero, and 800 leaves some 55 to spare (far more than the rounding of any of the
/// sums below, whose magnitudes are at most some 1e5).
#[cfg(test)]
const SKIP_MARGIN: f64 = 800.0;

/// The margin [`refine`] skips samples by: a sample whose every cell lies this far (in ln
/// weight) below the best cell holds at most e^-60 (9e-27) of the best cell's weight in each
/// of its cells, so all the skipped cells of a window of up to 1e5 samples hold less than 1e-20
/// of the posterior (whose total is at least the best cell's weight). Leaving them out moves a
/// quantile by less than that share of the mass: far below the 1e-9 relative that
/// `refine_matches_the_reference_closely` holds the results to (with `SKIP_MARGIN`, the
/// exact one, the results are bit for bit those of not skipping).
const NEGLIGIBLE_MARGIN: f64 = 60.0;

/// What the dip recursions of one window read.
struct Dips<'a> {
    /// ln(throughput) of every sample.
    x: &'a [f64],
    /// First sample of the window.
    lo: usize,
    /// Samples in the window.
    w: usize,
    /// The level before the change.
    a: Level,
    /// The level after it.
    b: Level,
    /// Longest dip, samples.
    k_max: usize,
    /// ln prior of a dip starting.
    ln_run: f64,
    /// ln density of a dip sample (uniform in depth).
    ln_unif: f64,
}

/// `before` (w + 1 values: ln likelihood of samples lo..lo+k at level a, with dips), `after`
/// (w + 1: of samples lo+k..hi at level b) and, per sample, the ln likelihood of one dip
/// spanning the change in it (`span`).
type Recursions = (Vec<f64>, Vec<f64>, Vec<f64>);

/// A log-sum-exp aggregate `m + ln(s)`: the largest term and the sum of every term scaled by
/// it (so `s` >= 1 unless empty). Combining two adds positive numbers only: no cancellation.
#[derive(Debug, Clone, Copy)]
struct Lse {
    m: f64,
    s: f64,
}

impl Lse {
    /// No terms.
    const EMPTY: Lse = Lse {
        m: f64::NEG_INFINITY,
        s: 0.0,
    };

    /// One term.
    fn one(v: f64) -> Lse {
        Lse { m: v, s: 1.0 }
    }

    /// Both sets of terms (one `exp`).
    fn plus(self, o: Lse) -> Lse {
        if o.s == 0.0 || o.m == f64::NEG_INFINITY {
            return self;
        }
        if self.s == 0.0 || self.m == f64::NEG_INFINITY {
            return o;
        }
        if self.m >= o.m {
            Lse {
                m: self.m,
                s: self.s + o.s * (o.m - self.m).exp(),
            }
        } else {
            Lse {
                m: o.m,
                s: o.s + self.s * (self.m - o.m).exp(),
            }
        }
    }

    /// ln of the sum (-inf when empty).
    fn ln(self) -> f64 {
        if self.s == 0.0 {
            f64::NEG_INFINITY
        } else if self.s == 1.0 {
            self.m
        } else {
            self.m + self.s.ln()
        }
    }
}

/// A sliding window of terms (index, value) whose log-sum-exp is read in amortised O(1): new
/// terms enter at the back, old ones leave at the front (a queue as two stacks). The back
/// keeps its terms and their running aggregate; the front keeps, for each of its terms, the
/// aggregate of it and every newer front term, rebuilt from the back when the front runs out.
/// Every term is combined a bounded number of times (once into the back's aggregate, once
/// into a front suffix), and nothing is ever subtracted.
#[derive(Debug, Default)]
struct LseWindow {
    back: Vec<(usize, f64)>,
    back_sum: Option<Lse>,
    front: Vec<(usize, Lse)>,
}

impl LseWindow {
    fn clear(&mut self) {
        self.back.clear();
        self.back_sum = None;
        self.front.clear();
    }

    fn push(&mut self, index: usize, value: f64) {
        self.back.push((index, value));
        let one = Lse::one(value);
        self.back_sum = Some(self.back_sum.map_or(one, |s| s.plus(one)));
    }

    /// Drops the oldest terms while `drop` says so of their index.
    fn drop_oldest_while(&mut self, drop: impl Fn(usize) -> bool) {
        loop {
            let oldest = match (self.front.last(), self.back.first()) {
                (Some(&(j, _)), _) => j,
                (None, Some(&(j, _))) => j,
                (None, None) => return,
            };
            if !drop(oldest) {
                return;
            }
            if self.front.is_empty() {
                let mut acc = Lse::EMPTY;
                for &(j, v) in self.back.iter().rev() {
                    acc = Lse::one(v).plus(acc);
                    self.front.push((j, acc));
                }
                self.back.clear();
                self.back_sum = None;
            }
            self.front.pop();
        }
    }

    /// The aggregate of every term in the window.
    fn sum(&self) -> Lse {
        let front = self.front.last().map_or(Lse::EMPTY, |f| f.1);
        front.plus(self.back_sum.unwrap_or(Lse::EMPTY))
    }
}

/// The dip recursions in amortised O(1) per sample.
///
/// Forward: `before[k+1]` adds to `before[k] + term(k, a)` a dip of every length l =
/// 1..=min(run, k_max) ending at sample k, `before[k+1-l] + l ln_unif + ln_run`. With j =
/// k+1-l that is `(before[j] - j ln_unif) + (k+1) ln_unif + ln_run` over j in
/// [max(run start, k+1-k_max), k]: a window whose left end never moves back while the run
/// lasts (and which empties when it breaks), so an [`LseWindow`] of `before[j] - j ln_unif`.
/// Its sum at step k, shifted, is `fwd[k+1]` (the dips ending at sample k); the backward
/// recursion is the mirror image (`after[j] + j ln_unif`, j in [k+1, min(run end, k+k_max)]),
/// giving `bwd[k]`. The span's left sum at k (`before[k]` and a dip of l = 1..=k_max samples
/// below a ending at k-1) is then `lse(before[k], fwd[k])`, and its right sum
/// `lse(after[k+1], bwd[k+1])`.
fn dip_recursions(d: &Dips) -> Recursions {
    let (x, lo, w, a, b, k_max) = (d.x, d.lo, d.w, d.a, d.b, d.k_max);
    let term = |i: usize, l: Level| log_lik(x[i], l.mu, l.scale);
    let mut win = LseWindow::default();
    let mut before = vec![0.0; w + 1];
    let mut fwd = vec![f64::NEG_INFINITY; w + 1];
    for k in 0..w {
        if x[lo + k] < a.mu {
            win.push(k, before[k] - k as f64 * d.ln_unif);
            win.drop_oldest_while(|j| j + k_max < k + 1);
            fwd[k + 1] = win.sum().ln() + (k + 1) as f64 * d.ln_unif;
        } else {
            win.clear();
        }
        before[k + 1] = log_sum_exp(&[before[k] + term(lo + k, a), fwd[k + 1] + d.ln_run]);
    }
    win.clear();
    let mut after = vec![0.0; w + 1];
    let mut bwd = vec![f64::NEG_INFINITY; w + 1];
    for k in (0..w).rev() {
        if x[lo + k] < b.mu {
            win.push(k + 1, after[k + 1] + (k + 1) as f64 * d.ln_unif);
            win.drop_oldest_while(|j| j > k + k_max);
            bwd[k] = win.sum().ln() - k as f64 * d.ln_unif;
        } else {
            win.clear();
        }
        after[k] = log_sum_exp(&[after[k + 1] + term(lo + k, b), bwd[k] + d.ln_run]);
    }
    // One dip spanning the change: the last samples before it below level a, the straddling
    // sample and the first samples after it below level b are one event. Inside such a dip
    // the position within the straddling sample is unknown (uniform).
    let top = a.mu.max(b.mu);
    let spanned = (0..w)
        .map(|k| {
            if x[lo + k] >= top {
                return f64::NEG_INFINITY;
            }
            let left = log_sum_exp(&[before[k], fwd[k]]);
            let right = log_sum_exp(&[after[k + 1], bwd[k + 1]]);
            left + right + d.ln_run + d.ln_unif
        })
        .collect();
    (before, after, spanned)
}

/// Refines a change that lies within samples `lo..hi` of `samples`; `x` is ln(throughput) of
/// every sample; `a` is the level before the change and `b` after.
pub fn refine(samples: &[Sample], x: &[f64], lo: usize, hi: usize, a: Level, b: Level) -> Refined {
    refine_counted(samples, x, lo, hi, a, b, dip_recursions, NEGLIGIBLE_MARGIN).0
}

/// [`refine`] with the given recursions and skip margin, and how many samples' cells it
/// skipped (their weights taken as 0.0).
#[allow(clippy::too_many_arguments)]
fn refine_counted(
    samples: &[Sample],
    x: &[f64],
    lo: usize,
    hi: usize,
    a: Level,
    b: Level,
    recursions: fn(&Dips) -> Recursions,
    margin: f64,
) -> (Refined, usize) {
    let hi = hi.min(samples.len()).max(lo + 1);
    let w = hi - lo;
    let (ea, eb) = (a.mu.exp(), b.mu.exp());
    // GC dips are events: a run of up to MAX_DIP_S of samples below the level, uniform in
    // depth, costs the prior of one dip rather than one outlier per sample. The likelihood of
    // the samples before (after) the change, with any number of dips, is a forward (backward)
    // recursion over the window.
    let dt_max = samples[lo..hi]
        .iter()
        .map(|s| s.interval_s)
        .fold(0.0, f64::max)
        .max(1e-9);
    let k_max = ((MAX_DIP_S / dt_max).ceil() as usize + 1).min(w);
    let ln_run = (dt_max / DIP_EVERY_S).min(0.5).ln();
    let ln_unif = -DIP_DEPTH.ln();
    let dips = Dips {
        x,
        lo,
        w,
        a,
        b,
        k_max,
        ln_run,
        ln_unif,
    };
    let (before, after, spanned) = recursions(&dips);
    // A scale estimated from few samples is itself uncertain: widen it accordingly.
    let n_min = a.n.min(b.n).max(1) as f64;
    let s_mix = (a.scale.max(b.scale).powi(2)
        + 1.5625 * (a.scale.powi(2) / a.n.max(1) as f64 + b.scale.powi(2) / b.n.max(1) as f64))
        .sqrt()
        * (1.0 + 1.0 / n_min.sqrt());
    // The position is integrated over GRID cells per sample. A straight mix is sharply
    // peaked in the position when the noise is low, so its likelihood is integrated over each
    // cell in closed form (through the Student-t distribution function) rather than sampled;
    // a change exactly on a sample boundary (noise-free steps) is then found where it is.
    // Each cell also carries the share of the sample's bytes written before the change at
    // its left and right edges.
    let core = (1.0 - DIP_SHARE) * (1.0 - PAUSE_PRIOR);
    // What the cells take from their edges f = g / GRID alone, once per call rather than per
    // sample: the same expressions, so the same values. An edge is shared by two cells.
    let mix = |f: f64| f * ea + (1.0 - f) * eb;
    let fr: [f64; GRID + 1] = std::array::from_fn(|g| g as f64 / GRID as f64);
    let ln_mix: [f64; GRID + 1] = std::array::from_fn(|g| mix(fr[g]).ln());
    let ln_fea: [f64; GRID + 1] = std::array::from_fn(|g| {
        if fr[g] > 0.0 {
            (fr[g] * ea).ln()
        } else {
            f64::NEG_INFINITY
        }
    });
    let pause_div: [f64; GRID + 1] = std::array::from_fn(|g| eb * (1.0 - fr[g]));
    let share_np: [f64; GRID + 1] = std::array::from_fn(|g| {
        let (f, r) = (fr[g], mix(fr[g]));
        if r > 0.0 {
            f * ea / r
        } else {
            f
        }
    });
    // Per cell: its width, the log of it, whether the straight mix moves across it, the log of
    // the mix at its middle and the prior mass of a dip in it.
    let df: [f64; GRID] = std::array::from_fn(|g| fr[g + 1] - fr[g]);
    let ln_df: [f64; GRID] = std::array::from_fn(|g| df[g].ln());
    let moves: [bool; GRID] = std::array::from_fn(|g| (ln_mix[g + 1] - ln_mix[g]).abs() > 1e-12);
    let mid: [f64; GRID] = std::array::from_fn(|g| mix(0.5 * (fr[g] + fr[g + 1])).ln());
    let dip_mass: [f64; GRID] =
        std::array::from_fn(|g| DIP_SHARE / DIP_DEPTH * df[g] * (1.0 - PAUSE_PRIOR));
    // What a sample's bound and its cells both read: `base`, `spanned`, the rate `exp(x)` and
    // `ln dt` (each `exp` and `ln` taken once per sample).
    #[derive(Clone, Copy)]
    struct Row {
        base: f64,
        spanned: f64,
        ex: f64,
        ln_dt: f64,
    }
    // The cells of sample `k` (log weight, share0, share1).
    let sample_cells = |k: usize, r: Row, out: &mut [(f64, f64, f64); GRID]| {
        let Row {
            base,
            spanned,
            ex,
            ln_dt,
        } = r;
        let i = lo + k;
        let dt = samples[i].interval_s;
        let observed = samples[i].bytes as f64;
        let xi = x[i];
        let ex_step = ex / (ea - eb).abs();
        // Per edge: the straight mix's distribution function at it, and the density of x with
        // a pause after the switch (the rest of the sample holds level b for any share q of it,
        // 0..1-f, uniform; integrated over q in closed form).
        let cdf_mix: [f64; GRID + 1] = std::array::from_fn(|g| t_cdf((ln_mix[g] - xi) / s_mix));
        let pause_density: [f64; GRID + 1] = std::array::from_fn(|g| {
            if fr[g] >= 1.0 {
                return 0.0;
            }
            let mass = t_cdf((xi - ln_fea[g]) / s_mix) - t_cdf((xi - ln_mix[g]) / s_mix);
            ex / pause_div[g] * mass.max(0.0)
        });
        let share_p = |g: usize| {
            if observed > 0.0 {
                (fr[g] * ea * dt / observed).min(1.0)
            } else {
                fr[g]
            }
        };
        let mut floor_share = 0.0f64;
        for g in 0..GRID {
            let np_core = if moves[g] {
                ex_step * (cdf_mix[g + 1] - cdf_mix[g]).abs()
            } else {
                df[g] * t_norm() * t_density((xi - ln_mix[g]) / s_mix) / s_mix
            };
            let dip = if xi < mid[g] && xi > mid[g] - DIP_DEPTH {
                dip_mass[g]
            } else {
                0.0
            };
            let np = core * np_core + dip;
            let pause = PAUSE_PRIOR * 0.5 * (pause_density[g] + pause_density[g + 1]) * df[g];
            let lik = (np + pause).max(1e-300).ln();
            let wp = if np + pause > 0.0 {
                pause / (np + pause)
            } else {
                0.0
            };
            let s0 = ((1.0 - wp) * share_np[g] + wp * share_p(g)).max(floor_share);
            let s1 = ((1.0 - wp) * share_np[g + 1] + wp * share_p(g + 1)).max(s0);
            floor_share = s1;
            let ll = log_sum_exp(&[base + lik, spanned + ln_df[g]]) + ln_dt;
            out[g] = (ll, s0, s1);
        }
    };
    // Most samples of a long window lie so far from the change that every weight of theirs,
    // exp(ll - mx) below, is exactly 0.0: they need no cells. An upper bound on each sample's
    // `ll` from quantities that need no Student-t call (see `CellBound`), a lower bound on `mx`
    // from the cells of the sample with the highest bound, and a sample whose bound is
    // `margin` below that is skipped: with SKIP_MARGIN its cells' weights are 0.0 whatever
    // they are; with NEGLIGIBLE_MARGIN they are negligible, and taken as 0.0.
    let bound = CellBound::new(ea, eb, s_mix, &moves, &df, &dip_mass, &pause_div, &fr, core);
    let mut per_sample: Vec<(Row, f64)> = Vec::with_capacity(w); // (row, bound)
    for k in 0..w {
        let i = lo + k;
        let r = Row {
            base: before[k] + after[k + 1],
            spanned: spanned[k],
            ex: x[i].exp(),
            ln_dt: samples[i].interval_s.ln(),
        };
        per_sample.push((r, bound.ll_max(r.ex, r.ln_dt, r.base, r.spanned)));
    }
    let best = (0..w)
        .max_by(|&p, &q| per_sample[p].1.total_cmp(&per_sample[q].1))
        .unwrap_or(0);
    let mut best_cells = [(0.0, 0.0, 0.0); GRID];
    sample_cells(best, per_sample[best].0, &mut best_cells);
    let floor = best_cells
        .iter()
        .map(|c| c.0)
        .fold(f64::NEG_INFINITY, f64::max)
        - margin;
    // (log weight, share0, share1) of the samples not skipped, GRID cells each, and which
    // sample each GRID holds. A skipped sample's cells would have weight 0.0 (or, with
    // NEGLIGIBLE_MARGIN, are taken as 0.0): adding 0.0 to the sums below, and passing over a
    // weight of 0.0 in the quantiles, change nothing, so they are simply left out.
    let mut cells: Vec<(f64, f64, f64)> = Vec::with_capacity(w * GRID);
    let mut sample_of: Vec<usize> = Vec::with_capacity(w);
    let mut one = [(0.0, 0.0, 0.0); GRID];
    for (k, &(r, u)) in per_sample.iter().enumerate() {
        if k == best {
            cells.extend_from_slice(&best_cells);
        } else if u < floor {
            continue;
        } else {
            sample_cells(k, r, &mut one);
            cells.extend_from_slice(&one);
        }
        sample_of.push(k);
    }
    let skipped = w - sample_of.len();
    let mx = cells.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = cells.iter().map(|c| (c.0 - mx).exp()).collect();
    let edge = |c: usize| (cells[c].1, cells[c].2);
    let total: f64 = weights.iter().sum();
    // Quantile of the posterior as (sample index, fraction of that sample before the change,
    // share of the sample's bytes before the change).
    let quantile = |q: f64| -> (usize, f64, f64) {
        let target = q * total;
        let mut acc = 0.0;
        for (c, &wt) in weights.iter().enumerate() {
            if acc + wt >= target && wt > 0.0 {
                let within = ((target - acc) / wt).clamp(0.0, 1.0);
                let k = sample_of[c / GRID];
                let g = c % GRID;
                let (s0, s1) = edge(c);
                return (
                    lo + k,
                    (g as f64 + within) / GRID as f64,
                    s0 + within * (s1 - s0),
                );
            }
            acc += wt;
        }
        (hi - 1, 1.0, 1.0)
    };
    let time_at = |(i, f, _): (usize, f64, f64)| samples[i].t_start_s() + f * samples[i].interval_s;
    let bytes_at = |(i, _, share): (usize, f64, f64)| {
        let s = &samples[i];
        let start = (s.bytes_total - s.bytes.min(s.bytes_total)) as f64;
        start + share * s.bytes as f64
    };
    let (mut ql, qm, mut qh) = (quantile(0.025), quantile(0.5), quantile(0.975));
    // Which sample straddles the change is itself uncertain when the samples next to the
    // estimate also read well between the two levels (inside the middle half of the step):
    // each could be the straddling one with the other a noisy sample of its level, and the
    // odds between those readings rest on one noise draw each, scored against scales
    // estimated from a few dozen samples. The interval then reaches to where each such
    // sample, read as the straddling one, puts the change (with its rate one scale further
    // out: the reading is one noisy sample).
    let common = a.scale.max(b.scale);
    let (top, bottom) = (a.mu.max(b.mu), a.mu.min(b.mu));
    let margin = AMBIGUOUS_SHARE * (top - bottom);
    let between = |i: usize| x[i] < top - margin && x[i] > bottom + margin;
    // The reading of sample `i` as the straddling one, its rate taken `z` scales higher.
    let reading = |i: usize, z: f64| -> (usize, f64, f64) {
        let r = (x[i] + z * common).exp();
        let f = if (ea - eb).abs() > 0.0 {
            ((r - eb) / (ea - eb)).clamp(0.0, 1.0)
        } else {
            0.5
        };
        let share = if r > 0.0 { (f * ea / r).min(1.0) } else { f };
        (i, f, share)
    };
    let mut i = qm.0;
    while i > lo && between(i - 1) {
        i -= 1;
        let r = reading(i, -1.0);
        if time_at(r) < time_at(ql) {
            ql = r;
        }
    }
    let mut i = qm.0;
    while i + 1 < hi && between(i + 1) {
        i += 1;
        let r = reading(i, 1.0);
        if time_at(r) > time_at(qh) {
            qh = r;
        }
    }
    let refined = Refined {
        t_s: time_at(qm),
        t_low_s: time_at(ql),
        t_high_s: time_at(qh),
        bytes: bytes_at(qm),
        low_bytes: bytes_at(ql),
        high_bytes: bytes_at(qh),
    };
    (refined, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log-sum-exp as it was: every term's `exp`, summed in order.
    fn log_sum_exp_reference(v: &[f64]) -> f64 {
        let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !m.is_finite() {
            return m;
        }
        m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
    }

    /// `refine` as it was before the cells' edge values were computed once per call and the
    /// log-sum-exp left out the `exp`s that cannot change its sum (the reference the new one
    /// must match bit for bit).
    fn refine_reference(
        samples: &[Sample],
        x: &[f64],
        lo: usize,
        hi: usize,
        a: Level,
        b: Level,
    ) -> Refined {
        let hi = hi.min(samples.len()).max(lo + 1);
        let w = hi - lo;
        let term = |i: usize, l: Level| log_lik(x[i], l.mu, l.scale);
        let (ea, eb) = (a.mu.exp(), b.mu.exp());
        // GC dips are events: a run of up to MAX_DIP_S of samples below the level, uniform in
        // depth, costs the prior of one dip rather than one outlier per sample. The likelihood of
        // the samples before (after) the change, with any number of dips, is a forward (backward)
        // recursion over the window.
        let dt_max = samples[lo..hi]
            .iter()
            .map(|s| s.interval_s)
            .fold(0.0, f64::max)
            .max(1e-9);
        let k_max = ((MAX_DIP_S / dt_max).ceil() as usize + 1).min(w);
        let ln_run = (dt_max / DIP_EVERY_S).min(0.5).ln();
        let ln_unif = -DIP_DEPTH.ln();
        // before[k]: samples lo..lo+k at level a, with dips.
        // One buffer for the terms of every log-sum-exp below (no allocation per sample; the
        // same terms in the same order, so the same sums).
        let mut terms: Vec<f64> = Vec::with_capacity(k_max + 1);
        let mut before = vec![0.0; w + 1];
        let mut run_a = 0usize; // consecutive samples below a ending at the current one
        for k in 0..w {
            run_a = if x[lo + k] < a.mu { run_a + 1 } else { 0 };
            terms.clear();
            terms.push(before[k] + term(lo + k, a));
            for l in 1..=run_a.min(k_max) {
                terms.push(before[k + 1 - l] + l as f64 * ln_unif + ln_run);
            }
            before[k + 1] = log_sum_exp_reference(&terms);
        }
        // after[k]: samples lo+k..hi at level b, with dips.
        let mut after = vec![0.0; w + 1];
        let mut run_b = 0usize;
        for k in (0..w).rev() {
            run_b = if x[lo + k] < b.mu { run_b + 1 } else { 0 };
            terms.clear();
            terms.push(after[k + 1] + term(lo + k, b));
            for l in 1..=run_b.min(k_max) {
                terms.push(after[k + l] + l as f64 * ln_unif + ln_run);
            }
            after[k] = log_sum_exp_reference(&terms);
        }
        // A scale estimated from few samples is itself uncertain: widen it accordingly.
        let n_min = a.n.min(b.n).max(1) as f64;
        let s_mix = (a.scale.max(b.scale).powi(2)
            + 1.5625 * (a.scale.powi(2) / a.n.max(1) as f64 + b.scale.powi(2) / b.n.max(1) as f64))
            .sqrt()
            * (1.0 + 1.0 / n_min.sqrt());
        // One dip spanning the change: the last samples before it below level a, the straddling
        // sample and the first samples after it below level b are one event. Inside such a dip
        // the position within the straddling sample is unknown (uniform).
        let mut span = |k: usize| -> f64 {
            let i = lo + k;
            if x[i] >= a.mu.max(b.mu) {
                return f64::NEG_INFINITY;
            }
            terms.clear();
            terms.push(before[k]);
            for l in 1..=k.min(k_max) {
                if x[lo + k - l] >= a.mu {
                    break;
                }
                terms.push(before[k - l] + l as f64 * ln_unif);
            }
            let left = log_sum_exp_reference(&terms);
            terms.clear();
            terms.push(after[k + 1]);
            for l in 1..=(w - k - 1).min(k_max) {
                if x[lo + k + l] >= b.mu {
                    break;
                }
                terms.push(after[k + 1 + l] + l as f64 * ln_unif);
            }
            left + log_sum_exp_reference(&terms) + ln_run + ln_unif
        };
        // The position is integrated over GRID cells per sample. A straight mix is sharply
        // peaked in the position when the noise is low, so its likelihood is integrated over each
        // cell in closed form (through the Student-t distribution function) rather than sampled;
        // a change exactly on a sample boundary (noise-free steps) is then found where it is.
        // Each cell also carries the share of the sample's bytes written before the change at
        // its left and right edges.
        let core = (1.0 - DIP_SHARE) * (1.0 - PAUSE_PRIOR);
        let mut cells: Vec<(f64, f64, f64)> = Vec::with_capacity(w * GRID); // (log weight, share0, share1)
        for k in 0..w {
            let i = lo + k;
            let base = before[k] + after[k + 1];
            let spanned = span(k);
            let dt = samples[i].interval_s;
            let observed = samples[i].bytes as f64;
            let ex = x[i].exp();
            let mix = |f: f64| f * ea + (1.0 - f) * eb;
            // A pause after the switch: the rest of the sample holds level b for any share q of
            // it (0..1-f), uniform; the density of x, integrated over q in closed form.
            let pause_density = |f: f64| -> f64 {
                if f >= 1.0 {
                    return 0.0;
                }
                let hi_u = mix(f).ln();
                let lo_u = if f > 0.0 {
                    (f * ea).ln()
                } else {
                    f64::NEG_INFINITY
                };
                let mass = t_cdf((x[i] - lo_u) / s_mix) - t_cdf((x[i] - hi_u) / s_mix);
                ex / (eb * (1.0 - f)) * mass.max(0.0)
            };
            let share_np = |f: f64| {
                let r = mix(f);
                if r > 0.0 {
                    f * ea / r
                } else {
                    f
                }
            };
            let share_p = |f: f64| {
                if observed > 0.0 {
                    (f * ea * dt / observed).min(1.0)
                } else {
                    f
                }
            };
            let mut floor_share = 0.0f64;
            for g in 0..GRID {
                let (f0, f1) = (g as f64 / GRID as f64, (g + 1) as f64 / GRID as f64);
                let (u0, u1) = (mix(f0).ln(), mix(f1).ln());
                let np_core = if (u1 - u0).abs() > 1e-12 {
                    ex / (ea - eb).abs()
                        * (t_cdf((u1 - x[i]) / s_mix) - t_cdf((u0 - x[i]) / s_mix)).abs()
                } else {
                    (f1 - f0) * t_norm() * t_density((x[i] - u0) / s_mix) / s_mix
                };
                let mid = mix(0.5 * (f0 + f1)).ln();
                let dip = if x[i] < mid && x[i] > mid - DIP_DEPTH {
                    DIP_SHARE / DIP_DEPTH * (f1 - f0) * (1.0 - PAUSE_PRIOR)
                } else {
                    0.0
                };
                let np = core * np_core + dip;
                let pause = PAUSE_PRIOR * 0.5 * (pause_density(f0) + pause_density(f1)) * (f1 - f0);
                let lik = (np + pause).max(1e-300).ln();
                let wp = if np + pause > 0.0 {
                    pause / (np + pause)
                } else {
                    0.0
                };
                let s0 = ((1.0 - wp) * share_np(f0) + wp * share_p(f0)).max(floor_share);
                let s1 = ((1.0 - wp) * share_np(f1) + wp * share_p(f1)).max(s0);
                floor_share = s1;
                let ll = log_sum_exp_reference(&[base + lik, spanned + (f1 - f0).ln()]) + dt.ln();
                cells.push((ll, s0, s1));
            }
        }
        let mx = cells.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = cells.iter().map(|c| (c.0 - mx).exp()).collect();
        let edge = |c: usize| (cells[c].1, cells[c].2);
        let total: f64 = weights.iter().sum();
        // Quantile of the posterior as (sample index, fraction of that sample before the change,
        // share of the sample's bytes before the change).
        let quantile = |q: f64| -> (usize, f64, f64) {
            let target = q * total;
            let mut acc = 0.0;
            for (c, &wt) in weights.iter().enumerate() {
                if acc + wt >= target && wt > 0.0 {
                    let within = ((target - acc) / wt).clamp(0.0, 1.0);
                    let k = c / GRID;
                    let g = c % GRID;
                    let (s0, s1) = edge(c);
                    return (
                        lo + k,
                        (g as f64 + within) / GRID as f64,
                        s0 + within * (s1 - s0),
                    );
                }
                acc += wt;
            }
            (hi - 1, 1.0, 1.0)
        };
        let time_at =
            |(i, f, _): (usize, f64, f64)| samples[i].t_start_s() + f * samples[i].interval_s;
        let bytes_at = |(i, _, share): (usize, f64, f64)| {
            let s = &samples[i];
            let start = (s.bytes_total - s.bytes.min(s.bytes_total)) as f64;
            start + share * s.bytes as f64
        };
        let (mut ql, qm, mut qh) = (quantile(0.025), quantile(0.5), quantile(0.975));
        // Which sample straddles the change is itself uncertain when the samples next to the
        // estimate also read well between the two levels (inside the middle half of the step):
        // each could be the straddling one with the other a noisy sample of its level, and the
        // odds between those readings rest on one noise draw each, scored against scales
        // estimated from a few dozen samples. The interval then reaches to where each such
        // sample, read as the straddling one, puts the change (with its rate one scale further
        // out: the reading is one noisy sample).
        let common = a.scale.max(b.scale);
        let (top, bottom) = (a.mu.max(b.mu), a.mu.min(b.mu));
        let margin = AMBIGUOUS_SHARE * (top - bottom);
        let between = |i: usize| x[i] < top - margin && x[i] > bottom + margin;
        // The reading of sample `i` as the straddling one, its rate taken `z` scales higher.
        let reading = |i: usize, z: f64| -> (usize, f64, f64) {
            let r = (x[i] + z * common).exp();
            let f = if (ea - eb).abs() > 0.0 {
                ((r - eb) / (ea - eb)).clamp(0.0, 1.0)
            } else {
                0.5
            };
            let share = if r > 0.0 { (f * ea / r).min(1.0) } else { f };
            (i, f, share)
        };
        let mut i = qm.0;
        while i > lo && between(i - 1) {
            i -= 1;
            let r = reading(i, -1.0);
            if time_at(r) < time_at(ql) {
                ql = r;
            }
        }
        let mut i = qm.0;
        while i + 1 < hi && between(i + 1) {
            i += 1;
            let r = reading(i, 1.0);
            if time_at(r) > time_at(qh) {
                qh = r;
            }
        }
        Refined {
            t_s: time_at(qm),
            t_low_s: time_at(ql),
            t_high_s: time_at(qh),
            bytes: bytes_at(qm),
            low_bytes: bytes_at(ql),
            high_bytes: bytes_at(qh),
        }
    }

    /// The dip recursions as they were (every dip length's term summed, O(k_max) per
    /// sample): the reference of [`dip_recursions`].
    fn dip_recursions_exact(d: &Dips) -> Recursions {
        let (x, lo, w, a, b, k_max, ln_run, ln_unif) =
            (d.x, d.lo, d.w, d.a, d.b, d.k_max, d.ln_run, d.ln_unif);
        let term = |i: usize, l: Level| log_lik(x[i], l.mu, l.scale);
        // l * ln_unif for every dip length l (the same products as formed in place).
        let l_unif: Vec<f64> = (0..=k_max).map(|l| l as f64 * ln_unif).collect();
        // before[k]: samples lo..lo+k at level a, with dips.
        // One buffer for the terms of every log-sum-exp below (no allocation per sample; the
        // same terms in the same order, so the same sums).
        let mut terms: Vec<f64> = Vec::with_capacity(k_max + 1);
        let mut before = vec![0.0; w + 1];
        let mut run_a = 0usize; // consecutive samples below a ending at the current one
        for k in 0..w {
            run_a = if x[lo + k] < a.mu { run_a + 1 } else { 0 };
            terms.clear();
            terms.push(before[k] + term(lo + k, a));
            for l in 1..=run_a.min(k_max) {
                terms.push(before[k + 1 - l] + l_unif[l] + ln_run);
            }
            before[k + 1] = log_sum_exp(&terms);
        }
        // after[k]: samples lo+k..hi at level b, with dips.
        let mut after = vec![0.0; w + 1];
        let mut run_b = 0usize;
        for k in (0..w).rev() {
            run_b = if x[lo + k] < b.mu { run_b + 1 } else { 0 };
            terms.clear();
            terms.push(after[k + 1] + term(lo + k, b));
            for l in 1..=run_b.min(k_max) {
                terms.push(after[k + l] + l_unif[l] + ln_run);
            }
            after[k] = log_sum_exp(&terms);
        }
        let mut span = |k: usize| -> f64 {
            let i = lo + k;
            if x[i] >= a.mu.max(b.mu) {
                return f64::NEG_INFINITY;
            }
            terms.clear();
            terms.push(before[k]);
            for l in 1..=k.min(k_max) {
                if x[lo + k - l] >= a.mu {
                    break;
                }
                terms.push(before[k - l] + l_unif[l]);
            }
            let left = log_sum_exp(&terms);
            terms.clear();
            terms.push(after[k + 1]);
            for l in 1..=(w - k - 1).min(k_max) {
                if x[lo + k + l] >= b.mu {
                    break;
                }
                terms.push(after[k + 1 + l] + l_unif[l]);
            }
            left + log_sum_exp(&terms) + ln_run + ln_unif
        };
        let spanned = (0..w).map(&mut span).collect();
        (before, after, spanned)
    }

    fn bits(r: &Refined) -> [u64; 6] {
        [
            r.t_s.to_bits(),
            r.t_low_s.to_bits(),
            r.t_high_s.to_bits(),
            r.bytes.to_bits(),
            r.low_bytes.to_bits(),
            r.high_bytes.to_bits(),
        ]
    }

    #[test]
    fn log_sum_exp_matches_the_plain_sum_bit_for_bit() {
        let mut rng = fastrand::Rng::with_seed(7);
        for case in 0..20_000 {
            let n = 1 + rng.usize(..40);
            let spread = [1.0, 10.0, 40.0, 80.0, 800.0][case % 5];
            let centre = (rng.f64() - 0.5) * 2000.0;
            let v: Vec<f64> = (0..n)
                .map(|_| match rng.usize(..20) {
                    0 => f64::NEG_INFINITY,
                    1 => centre,
                    _ => centre - rng.f64() * spread,
                })
                .collect();
            let (new, old) = (log_sum_exp(&v), log_sum_exp_reference(&v));
            assert_eq!(new.to_bits(), old.to_bits(), "{v:?}: {new} vs {old}");
        }
    }

    /// Largest relative difference between two refinements' fields (relative to the larger
    /// magnitude of the two, or absolute below 1).
    fn rel_diff(p: &Refined, q: &Refined) -> f64 {
        let f = |r: &Refined| {
            [
                r.t_s,
                r.t_low_s,
                r.t_high_s,
                r.bytes,
                r.low_bytes,
                r.high_bytes,
            ]
        };
        f(p).iter()
            .zip(f(q).iter())
            .map(|(u, v)| (u - v).abs() / u.abs().max(v.abs()).max(1.0))
            .fold(0.0, f64::max)
    }

    #[test]
    fn lse_window_matches_the_direct_sum() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut win = LseWindow::default();
        let mut direct: std::collections::VecDeque<f64> = Default::default();
        let (mut next, mut worst) = (0usize, 0.0f64);
        for step in 0..200_000 {
            match rng.usize(..100) {
                0 => {
                    win.clear();
                    direct.clear();
                }
                1..=40 if !direct.is_empty() => {
                    let n = 1 + rng.usize(..direct.len().min(5));
                    let first = next - direct.len();
                    win.drop_oldest_while(|j| j < first + n);
                    direct.drain(..n);
                }
                _ => {
                    let v = -1000.0 * rng.f64() + (step % 7) as f64 * 30.0;
                    win.push(next, v);
                    direct.push_back(v);
                    next += 1;
                }
            }
            let v: Vec<f64> = direct.iter().copied().collect();
            let (got, want) = (win.sum().ln(), log_sum_exp_reference(&v));
            if v.is_empty() {
                assert_eq!(got, f64::NEG_INFINITY);
            } else {
                worst = worst.max((got - want).abs() / want.abs().max(1.0));
            }
        }
        assert!(worst < 1e-13, "{worst}");
    }

    /// Appends `bytes` written over the `dt` seconds after `t` to `samples`, moving `t` and the
    /// running `total` on.
    fn push_sample(samples: &mut Vec<Sample>, t: &mut f64, total: &mut u64, dt: f64, bytes: u64) {
        *t += dt;
        *total += bytes;
        samples.push(Sample {
            t_s: *t,
            interval_s: dt,
            bytes,
            bytes_total: *total,
            bytes_per_sec: bytes as f64 / dt,
            ..Sample::default()
        });
    }

    /// ln(throughput) of every sample (at least 1 B/s).
    fn ln_rates(samples: &[Sample]) -> Vec<f64> {
        samples
            .iter()
            .map(|s| s.bytes_per_sec.max(1.0).ln())
            .collect()
    }

    /// A window of 10 ms samples after a cliff, with long runs of samples below both levels
    /// (dips of hundreds of samples, up to past the longest the prior allows).
    fn long_dips(rng: &mut fastrand::Rng) -> (Vec<Sample>, Vec<f64>, usize, usize, Level, Level) {
        let n = 400 + rng.usize(..2500);
        let (mu_a, mu_b) = (21.0, 21.0 - 0.3 - rng.f64() * 1.5);
        let change = rng.usize(n / 4..3 * n / 4);
        let noise = [0.01, 0.05, 0.2][rng.usize(..3)];
        let (mut samples, mut t, mut total) = (Vec::with_capacity(n), 0.0f64, 0u64);
        let mut dip_left = 0usize;
        for i in 0..n {
            let dt = 0.01;
            let level = if i < change { mu_a } else { mu_b };
            if dip_left == 0 && rng.usize(..150) == 0 {
                dip_left = 50 + rng.usize(..450);
            }
            let depth = if dip_left > 0 {
                dip_left -= 1;
                -0.5 - rng.f64() * 3.0
            } else {
                0.0
            };
            let rate = (level + depth + noise * (rng.f64() - 0.5) * 3.0).exp();
            let bytes = (rate * dt) as u64;
            push_sample(&mut samples, &mut t, &mut total, dt, bytes);
        }
        let x = ln_rates(&samples);
        let lo = rng.usize(..change / 2 + 1);
        let hi = (change + rng.usize(..n - change) + 1).min(n);
        let scale = noise * (0.5 + rng.f64());
        let a = Level {
            mu: mu_a,
            scale,
            n: 40 + rng.usize(..200),
        };
        let b = Level {
            mu: mu_b,
            scale,
            n: 40 + rng.usize(..200),
        };
        (samples, x, lo, hi, a, b)
    }

    /// The windowed recursions against the plain sums (`refine_reference`, the old code):
    /// every field of every refinement within 1e-9 relative (1e-9 absolute below 1), over the
    /// random windows and windows of long dips at 10 ms (k_max 301, runs of hundreds).
    #[test]
    fn refine_matches_the_reference_closely() {
        let mut rng = fastrand::Rng::with_seed(23);
        let (mut worst, mut long_runs, mut skipped, mut all) = (0.0f64, 0, 0, 0);
        for case in 0..600 {
            let (samples, x, lo, hi, a, b) = if case % 2 == 0 {
                shape(&mut rng)
            } else {
                long_dips(&mut rng)
            };
            let (new, skips) = refine_counted(
                &samples,
                &x,
                lo,
                hi,
                a,
                b,
                dip_recursions,
                NEGLIGIBLE_MARGIN,
            );
            assert_eq!(bits(&new), bits(&refine(&samples, &x, lo, hi, a, b)));
            skipped += skips;
            all += hi.min(samples.len()) - lo;
            let old = refine_reference(&samples, &x, lo, hi, a, b);
            let d = rel_diff(&new, &old);
            assert!(
                d < 1e-9,
                "case {case}: lo {lo} hi {hi} a {a:?} b {b:?}: {new:?} vs {old:?} ({d})"
            );
            worst = worst.max(d);
            let mut run = 0;
            for &xi in &x[lo..hi.min(x.len())] {
                run = if xi < a.mu.min(b.mu) { run + 1 } else { 0 };
                if run == 302 {
                    long_runs += 1;
                }
            }
        }
        assert!(long_runs > 50, "{long_runs}");
        eprintln!("largest relative difference {worst:e}; {skipped} of {all} samples skipped");
    }

    /// A random window around one change: two levels (a cliff, a rise or none), noise, GC
    /// dips up to past the longest the prior allows, a straddling sample, and now and then an
    /// empty sample; samples of 10 ms or 1 s, steady or jittered.
    fn shape(rng: &mut fastrand::Rng) -> (Vec<Sample>, Vec<f64>, usize, usize, Level, Level) {
        let dt0 = if rng.bool() { 0.01 } else { 1.0 };
        let n = 20 + rng.usize(..if dt0 < 0.1 { 1500 } else { 300 });
        let mu_a = 20.0 + rng.f64() * 2.0;
        let mu_b = match rng.usize(..4) {
            0 => mu_a,
            1 => mu_a + rng.f64(),
            _ => mu_a - 0.2 - rng.f64() * 2.0,
        };
        let noise = [0.0, 0.01, 0.05, 0.2][rng.usize(..4)];
        let change = rng.usize(..n);
        let straddle = rng.f64();
        let mut samples = Vec::with_capacity(n);
        let (mut t, mut total) = (0.0f64, 0u64);
        let mut dip_left = 0usize;
        for i in 0..n {
            let dt = if rng.bool() {
                dt0
            } else {
                dt0 * (0.9 + 0.2 * rng.f64())
            };
            let level = if i < change {
                mu_a.exp()
            } else if i > change {
                mu_b.exp()
            } else {
                straddle * mu_a.exp() + (1.0 - straddle) * mu_b.exp()
            };
            if dip_left == 0 && rng.usize(..200) == 0 {
                dip_left = 1 + rng.usize(..(4.0 / dt0) as usize);
            }
            let depth = if dip_left > 0 {
                dip_left -= 1;
                (-rng.f64() * 4.0).exp()
            } else {
                1.0
            };
            let rate = level * depth * (noise * (rng.f64() - 0.5) * 3.0).exp();
            let bytes = if rng.usize(..300) == 0 {
                0
            } else {
                (rate * dt) as u64
            };
            push_sample(&mut samples, &mut t, &mut total, dt, bytes);
        }
        let x = ln_rates(&samples);
        let lo = rng.usize(..n / 2);
        // Now and then past the end (refine clamps it).
        let hi = lo + 1 + rng.usize(..n - lo + 2);
        let mut level = |mu: f64| Level {
            mu: mu + noise * (rng.f64() - 0.5),
            scale: (noise + 0.002) * (0.5 + rng.f64()),
            n: 1 + rng.usize(..200),
        };
        let (a, b) = (level(mu_a), level(mu_b));
        (samples, x, lo, hi, a, b)
    }

    #[test]
    fn refine_matches_the_reference_bit_for_bit() {
        let mut rng = fastrand::Rng::with_seed(19);
        let mut long_dips = 0;
        let (mut skipped, mut long_samples) = (0, 0);
        for case in 0..400 {
            let (samples, x, lo, hi, a, b) = shape(&mut rng);
            let (new, skips) = refine_counted(
                &samples,
                &x,
                lo,
                hi,
                a,
                b,
                dip_recursions_exact,
                SKIP_MARGIN,
            );
            if hi.min(samples.len()) - lo > 1000 {
                skipped += skips;
                long_samples += hi.min(samples.len()) - lo;
            }
            let old = refine_reference(&samples, &x, lo, hi, a, b);
            assert_eq!(
                bits(&new),
                bits(&old),
                "case {case}: lo {lo} hi {hi} a {a:?} b {b:?}: {new:?} vs {old:?}"
            );
            if samples[0].interval_s < 0.1 && hi - lo > 300 {
                long_dips += 1;
            }
        }
        // Windows long enough that the longest dip (k_max, 300 samples at 10 ms) is reached.
        assert!(long_dips > 50, "{long_dips}");
        // In windows of more than 1000 samples many samples lie too far from the change for
        // any weight: their cells are skipped (and the results above are still the same).
        assert!(
            skipped * 3 > long_samples,
            "{skipped} of {long_samples} samples skipped"
        );
    }
}
