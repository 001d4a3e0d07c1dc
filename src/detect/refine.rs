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

/// Where in the cell `f0..f1` of a sample the share `within` of the cell's weight is reached:
/// `rho` of that weight is the straight mix's, spread as its distribution function `cdf_at`
/// (of the share of the sample before the change) moves; the rest is taken as even across
/// the cell. A cell is 1/GRID of its sample: with 2-minute samples 7.5 s, across which the
/// straight mix's weight may sit near one point, and a quantile read as if the weight were
/// even put the fx700-2tb's cliff at 451.6 GB where the sample's rate puts it at 459.9.
fn place_in_cell(within: f64, f0: f64, f1: f64, rho: f64, cdf_at: impl Fn(f64) -> f64) -> f64 {
    let (c0, c1) = (cdf_at(f0), cdf_at(f1));
    let span = (c1 - c0).abs();
    let rho = if span > 1e-300 && rho.is_finite() {
        rho.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mass = |f: f64| {
        let straight = if rho > 0.0 {
            ((cdf_at(f) - c0).abs() / span).min(1.0)
        } else {
            0.0
        };
        rho * straight + (1.0 - rho) * (f - f0) / (f1 - f0)
    };
    let (mut l, mut h) = (f0, f1);
    for _ in 0..60 {
        let m = 0.5 * (l + h);
        if mass(m) < within {
            l = m;
        } else {
            h = m;
        }
    }
    0.5 * (l + h)
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
    /// The window's samples' intervals, seconds.
    dt: &'a [f64],
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
    // A dip lasts at most MAX_DIP_S: in a longer sample it cannot hide where the change lies.
    let top = a.mu.max(b.mu);
    let spanned = (0..w)
        .map(|k| {
            if x[lo + k] >= top || d.dt[k] > MAX_DIP_S {
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
    let dt: Vec<f64> = samples[lo..hi].iter().map(|s| s.interval_s).collect();
    let dips = Dips {
        x,
        lo,
        w,
        a,
        b,
        k_max,
        ln_run,
        ln_unif,
        dt: &dt,
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
    // The point of cell `g` of sample `k` at which `within` of its weight lies, as (share of
    // the sample's time, share of its bytes) before the change: the same terms as the cell's
    // weight, taken again for the one cell.
    let within_cell = |c: usize, k: usize, g: usize, within: f64, s0: f64, s1: f64| -> (f64, f64) {
        let i = lo + k;
        let (r, _) = per_sample[k];
        let xi = x[i];
        let dt = samples[i].interval_s;
        let observed = samples[i].bytes as f64;
        let cdf_at = |f: f64| t_cdf((mix(f).ln() - xi) / s_mix);
        let np_core = if moves[g] {
            r.ex / (ea - eb).abs() * (cdf_at(fr[g + 1]) - cdf_at(fr[g])).abs()
        } else {
            0.0
        };
        let ll = cells[c].0;
        let rho = (r.base + (core * np_core).ln() - (ll - r.ln_dt)).exp();
        let f = place_in_cell(within, fr[g], fr[g + 1], rho, cdf_at);
        // The share of the bytes at f by the cell's odds of a pause, as at its edges.
        let at = |f: f64| {
            let straight = f * ea / mix(f);
            let paused = if observed > 0.0 {
                (f * ea * dt / observed).min(1.0)
            } else {
                f
            };
            (straight, paused)
        };
        let (st0, p0) = at(fr[g]);
        let (st1, p1) = at(fr[g + 1]);
        let (st, pa) = at(f);
        // The cell's own share moves from s0 to s1 as its readings' shares do from edge to
        // edge; the point takes the same part of that way.
        let way = |v: f64, a: f64, b: f64| {
            if (b - a).abs() > 1e-15 {
                (v - a) / (b - a)
            } else {
                0.0
            }
        };
        let part = if (st1 - st0).abs() > 1e-15 {
            way(st, st0, st1)
        } else {
            way(pa, p0, p1)
        };
        (f, s0 + part.clamp(0.0, 1.0) * (s1 - s0))
    };
    let quantile = |q: f64| -> (usize, f64, f64) {
        let target = q * total;
        let mut acc = 0.0;
        for (c, &wt) in weights.iter().enumerate() {
            if acc + wt >= target && wt > 0.0 {
                let within = ((target - acc) / wt).clamp(0.0, 1.0);
                let k = sample_of[c / GRID];
                let g = c % GRID;
                let (s0, s1) = edge(c);
                let (f, share) = within_cell(c, k, g, within, s0, s1);
                return (lo + k, f, share);
            }
            acc += wt;
        }
        (hi - 1, 1.0, 1.0)
    };
    // The time of a change is when the bytes before it in its sample were written at the rate
    // before it: the bytes and the time then tell one story (rate before x time = bytes). The
    // fraction of the sample's time is read off the bytes' share, not taken from the cell,
    // whose time and share are each averaged over the straight mix and the readings with a
    // pause after the switch: with 2-minute samples and one sample before the change these
    // parted, and fx700-2tb's cliff read "3608 MB/s to 142.9 s" beside 460 GB, where 3608 MB/s
    // for 142.9 s is 516 GB. A sample that wrote nothing keeps the cell's fraction.
    let time_at = |(i, f, share): (usize, f64, f64)| {
        let s = &samples[i];
        let f = if s.bytes > 0 && ea > 0.0 && s.interval_s > 0.0 {
            (share * s.bytes as f64 / (ea * s.interval_s)).clamp(0.0, 1.0)
        } else {
            f
        };
        s.t_start_s() + f * s.interval_s
    };
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
    use super::super::cell_bound::CellBound;
    use super::*;

    /// A window to refine: samples, their ln rates, `lo`, `hi` and the levels before and after.
    type Window = (Vec<Sample>, Vec<f64>, usize, usize, Level, Level);

    /// ln of the sum of `exp` of the terms: every term's `exp`, summed in order.
    fn log_sum_exp_reference(v: &[f64]) -> f64 {
        let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !m.is_finite() {
            return m;
        }
        m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
    }

    /// The scale of the straddling sample's Student-t: the larger level scale, widened for the
    /// uncertainty of scales estimated from few samples.
    fn naive_scale(a: Level, b: Level) -> f64 {
        let n_min = a.n.min(b.n).max(1) as f64;
        (a.scale.max(b.scale).powi(2)
            + 1.5625 * (a.scale.powi(2) / a.n.max(1) as f64 + b.scale.powi(2) / b.n.max(1) as f64))
            .sqrt()
            * (1.0 + 1.0 / n_min.sqrt())
    }

    /// A cell of the posterior: ln weight, share of the sample's bytes before the change at the
    /// cell's left edge, at its right edge.
    type Cell = (f64, f64, f64);

    /// The posterior of the change's position in a window, from the model's definitions and
    /// every cell of every sample: per sample `(base, spanned)` (below), and GRID cells a
    /// sample.
    fn naive_posterior(w: &Window) -> (Vec<(f64, f64)>, Vec<Cell>) {
        let (ref samples, ref x, lo, hi, a, b) = *w;
        let hi = hi.min(samples.len()).max(lo + 1);
        let xs = &x[lo..hi];
        // A GC dip: a run of 1..=k_max samples below their level (MAX_DIP_S of the longest
        // interval, and one more), each uniform in ln rate down DIP_DEPTH from it (ln_unif); one
        // starts with the chance of dt_max / DIP_EVERY_S, at most a half (ln_run).
        let dt_max = (lo..hi).fold(1e-9f64, |m, i| m.max(samples[i].interval_s));
        let k_max = ((MAX_DIP_S / dt_max).ceil() as usize + 1).min(xs.len());
        let (ln_run, ln_unif) = ((dt_max / DIP_EVERY_S).min(0.5).ln(), -DIP_DEPTH.ln());
        // ln likelihood at level `l` of every prefix `v[..k]` of `v`: the sum over every reading
        // of its samples as samples of the level (`log_lik`) and dips, by the reading's last
        // piece (one sample at the level, or a dip of j samples).
        let prefixes = |v: &[f64], l: Level| {
            let mut out = vec![0.0];
            for k in 0..v.len() {
                let mut terms = vec![out[k] + log_lik(v[k], l.mu, l.scale)];
                for j in (1..=k_max.min(k + 1)).take_while(|&j| v[k + 1 - j] < l.mu) {
                    terms.push(out[k + 1 - j] + ln_run + j as f64 * ln_unif);
                }
                out.push(log_sum_exp_reference(&terms));
            }
            out
        };
        // The samples before the change at level a, those after it at level b (after[k]: xs[k..]).
        let before = prefixes(xs, a);
        let mut after = prefixes(&xs.iter().rev().copied().collect::<Vec<_>>(), b);
        after.reverse();
        let (ea, eb, s) = (a.mu.exp(), b.mu.exp(), naive_scale(a, b));
        let mix = |f: f64| f * ea + (1.0 - f) * eb;
        let (mut rows, mut cells) = (Vec::new(), Vec::new());
        for (k, &xi) in xs.iter().enumerate() {
            let (ex, dt, observed) = (xi.exp(), samples[lo + k].interval_s, samples[lo + k].bytes);
            // The change in sample k: the samples before it at level a, those after it at b.
            let base = before[k] + after[k + 1];
            // Or inside one dip spanning it: sample k below the higher level, the last 0..=k_max
            // samples before it below a and the first 0..=k_max after it below b (the position
            // within sample k then uniform).
            let left: Vec<f64> = (0..=k.min(k_max))
                .take_while(|&j| j == 0 || xs[k - j] < a.mu)
                .map(|j| before[k - j] + j as f64 * ln_unif)
                .collect();
            let right: Vec<f64> = (0..=(xs.len() - k - 1).min(k_max))
                .take_while(|&j| j == 0 || xs[k + j] < b.mu)
                .map(|j| after[k + 1 + j] + j as f64 * ln_unif)
                .collect();
            let spanned = if xi < a.mu.max(b.mu) && dt <= MAX_DIP_S {
                log_sum_exp_reference(&left) + log_sum_exp_reference(&right) + ln_run + ln_unif
            } else {
                f64::NEG_INFINITY
            };
            rows.push((base, spanned));
            let mut floor = 0.0f64;
            for g in 0..GRID {
                let (f0, f1) = (g as f64 / GRID as f64, (g + 1) as f64 / GRID as f64);
                // A share f in [f0, f1] of sample k before the change. No pause (1 - PAUSE_PRIOR):
                // the straight mix f ea + (1 - f) eb, Student-t about its ln (1 - DIP_SHARE)
                // integrated over f (by u = ln mix, the Jacobian mix / |ea - eb| taken at the
                // sample's rate; at f0 where the mix does not move), or a GC dip (DIP_SHARE)
                // uniform in ln rate down DIP_DEPTH from the mix at the cell's middle.
                let (u0, u1) = (mix(f0).ln(), mix(f1).ln());
                let straight = if (u1 - u0).abs() > 1e-12 {
                    ex / (ea - eb).abs() * (t_cdf((u1 - xi) / s) - t_cdf((u0 - xi) / s)).abs()
                } else {
                    (f1 - f0) * t_norm() * t_density((xi - u0) / s) / s
                };
                let mid = mix(0.5 * (f0 + f1)).ln();
                let in_dip = xi < mid && xi > mid - DIP_DEPTH;
                let dip = if in_dip { DIP_SHARE / DIP_DEPTH } else { 0.0 };
                let np = (1.0 - PAUSE_PRIOR) * ((1.0 - DIP_SHARE) * straight + dip * (f1 - f0));
                // A pause (PAUSE_PRIOR): the rest of the sample at level b for a share q of it,
                // uniform in [0, 1 - f], then nothing; the rate f ea + q eb, integrated over q
                // as above, by the trapezoid over the cell.
                let paused = |f: f64| {
                    if f >= 1.0 {
                        return 0.0;
                    }
                    let mass = t_cdf((xi - (f * ea).ln()) / s) - t_cdf((xi - mix(f).ln()) / s);
                    ex / (eb * (1.0 - f)) * mass.max(0.0)
                };
                let pause = PAUSE_PRIOR * 0.5 * (paused(f0) + paused(f1)) * (f1 - f0);
                // The cell's ln weight: the likelihood of either reading (the change between the
                // levels, or inside a spanning dip, uniform within the sample) times the prior,
                // uniform in time (the cell's width is in the terms, dt added).
                let lik = (np + pause).max(1e-300).ln();
                let ll = log_sum_exp_reference(&[base + lik, spanned + (f1 - f0).ln()]) + dt.ln();
                // The share of the sample's bytes before the change at f, by the odds of the two
                // readings: f ea / mix(f) on the straight mix, f ea dt of the observed bytes (all
                // at most) with a pause; never decreasing along the sample.
                let wp = if pause > 0.0 {
                    pause / (np + pause)
                } else {
                    0.0
                };
                let held = ea * dt / observed as f64;
                let share = |f: f64| {
                    let paused = if observed > 0 { (f * held).min(1.0) } else { f };
                    (1.0 - wp) * (f * ea / mix(f)) + wp * paused
                };
                let s0 = share(f0).max(floor);
                floor = share(f1).max(s0);
                cells.push((ll, s0, floor));
            }
        }
        (rows, cells)
    }

    /// [`refine`] from the naive posterior: its median and its 2.5% and 97.5% quantiles (linear
    /// within a cell) as time and bytes, the interval widened over ambiguous neighbours.
    fn naive_refine(w: &Window) -> Refined {
        let (ref samples, ref x, lo, _, a, b) = *w;
        let (rows, cells) = naive_posterior(w);
        let hi = lo + cells.len() / GRID;
        let mx = cells.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = cells.iter().map(|c| (c.0 - mx).exp()).collect();
        let total: f64 = weights.iter().sum();
        let (ea, eb) = (a.mu.exp(), b.mu.exp());
        let s = naive_scale(a, b);
        let mix = |f: f64| f * ea + (1.0 - f) * eb;
        // (sample, share of its time before the change, share of its bytes): within a cell
        // where the straight mix's share of its weight lies along its distribution function,
        // the rest even; the bytes' share the same part of the cell's way as the mix's.
        let quantile = |q: f64| {
            let mut acc = 0.0;
            for (c, (&wt, &(ll, s0, s1))) in weights.iter().zip(&cells).enumerate() {
                if acc + wt >= q * total && wt > 0.0 {
                    let within = ((q * total - acc) / wt).clamp(0.0, 1.0);
                    let (k, g) = (c / GRID, c % GRID);
                    let (f0, f1) = (g as f64 / GRID as f64, (g + 1) as f64 / GRID as f64);
                    let i = lo + k;
                    let (xi, dt) = (x[i], samples[i].interval_s);
                    let cdf_at = |f: f64| t_cdf((mix(f).ln() - xi) / s);
                    let straight = if (mix(f1).ln() - mix(f0).ln()).abs() > 1e-12 {
                        xi.exp() / (ea - eb).abs() * (cdf_at(f1) - cdf_at(f0)).abs()
                    } else {
                        0.0
                    };
                    let core = (1.0 - PAUSE_PRIOR) * (1.0 - DIP_SHARE) * straight;
                    let rho = (rows[k].0 + core.ln() - (ll - dt.ln())).exp();
                    let f = place_in_cell(within, f0, f1, rho, cdf_at);
                    let observed = samples[i].bytes as f64;
                    let at = |f: f64| {
                        let paused = if observed > 0.0 {
                            (f * ea * dt / observed).min(1.0)
                        } else {
                            f
                        };
                        (f * ea / mix(f), paused)
                    };
                    let ((st0, p0), (st1, p1), (st, pa)) = (at(f0), at(f1), at(f));
                    let part = if (st1 - st0).abs() > 1e-15 {
                        (st - st0) / (st1 - st0)
                    } else if (p1 - p0).abs() > 1e-15 {
                        (pa - p0) / (p1 - p0)
                    } else {
                        0.0
                    };
                    return (i, f, s0 + part.clamp(0.0, 1.0) * (s1 - s0));
                }
                acc += wt;
            }
            (hi - 1, 1.0, 1.0)
        };
        // The time: when the bytes before the change in its sample were written at the rate
        // before it.
        let time = |(i, f, share): (usize, f64, f64)| {
            let sm = &samples[i];
            let f = if sm.bytes > 0 && ea > 0.0 && sm.interval_s > 0.0 {
                (share * sm.bytes as f64 / (ea * sm.interval_s)).clamp(0.0, 1.0)
            } else {
                f
            };
            sm.t_start_s() + f * sm.interval_s
        };
        let bytes = |(i, _, share): (usize, f64, f64)| {
            let s = &samples[i];
            (s.bytes_total - s.bytes.min(s.bytes_total)) as f64 + share * s.bytes as f64
        };
        // Neighbours of the median's sample inside the middle half of the step could each be the
        // straddling one: the interval reaches to where each, read so with its rate one scale
        // further out, puts the change (`between` holds for none unless a.mu != b.mu).
        let (top, bottom) = (a.mu.max(b.mu), a.mu.min(b.mu));
        let margin = AMBIGUOUS_SHARE * (top - bottom);
        let between = |&i: &usize| x[i] < top - margin && x[i] > bottom + margin;
        let reading = |i: usize, z: f64| {
            let r = (x[i] + z * a.scale.max(b.scale)).exp();
            let f = ((r - eb) / (ea - eb)).clamp(0.0, 1.0);
            (i, f, (f * ea / r).min(1.0))
        };
        let (mut ql, qm, mut qh) = (quantile(0.025), quantile(0.5), quantile(0.975));
        for i in (lo..qm.0).rev().take_while(between) {
            if time(reading(i, -1.0)) < time(ql) {
                ql = reading(i, -1.0);
            }
        }
        for i in (qm.0 + 1..hi).take_while(between) {
            if time(reading(i, 1.0)) > time(qh) {
                qh = reading(i, 1.0);
            }
        }
        Refined {
            t_s: time(qm),
            t_low_s: time(ql),
            t_high_s: time(qh),
            bytes: bytes(qm),
            low_bytes: bytes(ql),
            high_bytes: bytes(qh),
        }
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
    fn long_dips(rng: &mut fastrand::Rng) -> Window {
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

    /// `refine` as it runs (windowed dip sums, samples skipped by `CellBound` at its margin)
    /// against the naive reference: every field of 600 refinements within 1e-9 relative (1e-9
    /// absolute below 1), half of them 10 ms windows with dips of hundreds of samples (k_max
    /// 301). The two differ only in the order of their sums (the largest difference is some
    /// 1e-13) and in the cells `refine` skips (under 1e-20 of the posterior); a bound too low
    /// skips cells that hold posterior mass, and this fails.
    #[test]
    fn refine_matches_the_reference_closely() {
        let mut rng = fastrand::Rng::with_seed(23);
        let (mut worst, mut long_runs, mut skipped, mut all) = (0.0f64, 0, 0, 0);
        for case in 0..600 {
            let w = if case % 2 == 0 {
                shape(&mut rng)
            } else {
                long_dips(&mut rng)
            };
            let (ref samples, ref x, lo, hi, a, b) = w;
            let (new, skips) =
                refine_counted(samples, x, lo, hi, a, b, dip_recursions, NEGLIGIBLE_MARGIN);
            assert_eq!(bits(&new), bits(&refine(samples, x, lo, hi, a, b)));
            skipped += skips;
            all += hi.min(samples.len()) - lo;
            let naive = naive_refine(&w);
            let d = rel_diff(&new, &naive);
            assert!(
                d < 1e-9,
                "case {case}: lo {lo} hi {hi} a {a:?} b {b:?}: {new:?} vs {naive:?} ({d})"
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
        // Most samples of the long windows are skipped: the bound is what is under test.
        assert!(skipped * 2 > all, "{skipped} of {all} samples skipped");
        eprintln!("largest relative difference {worst:e}; {skipped} of {all} samples skipped");
    }

    /// `CellBound::ll_max`, built from the model's grid and constants as `refine` builds it,
    /// is at least the `ll` of every cell of every sample of the naive posterior (or NaN, which
    /// skips nothing): the bound's contract itself, which fails on a bound too low by less than
    /// moves `refine`'s results.
    #[test]
    fn cell_bound_is_above_every_cell() {
        let mut rng = fastrand::Rng::with_seed(29);
        let mut closest = f64::INFINITY;
        for case in 0..300 {
            let w = if case % 2 == 0 {
                shape(&mut rng)
            } else {
                long_dips(&mut rng)
            };
            let (ref samples, ref x, lo, _, a, b) = w;
            let (rows, cells) = naive_posterior(&w);
            let (ea, eb) = (a.mu.exp(), b.mu.exp());
            let fr: [f64; GRID + 1] = std::array::from_fn(|g| g as f64 / GRID as f64);
            let df: [f64; GRID] = std::array::from_fn(|g| fr[g + 1] - fr[g]);
            let ln_mix = |f: f64| (f * ea + (1.0 - f) * eb).ln();
            let moves = std::array::from_fn(|g| (ln_mix(fr[g + 1]) - ln_mix(fr[g])).abs() > 1e-12);
            let dip_mass =
                std::array::from_fn(|g| DIP_SHARE / DIP_DEPTH * df[g] * (1.0 - PAUSE_PRIOR));
            let pause_div = std::array::from_fn(|g| eb * (1.0 - fr[g]));
            let core = (1.0 - DIP_SHARE) * (1.0 - PAUSE_PRIOR);
            let s = naive_scale(a, b);
            let bound = CellBound::new(ea, eb, s, &moves, &df, &dip_mass, &pause_div, &fr, core);
            for (k, &(base, spanned)) in rows.iter().enumerate() {
                let i = lo + k;
                let u = bound.ll_max(x[i].exp(), samples[i].interval_s.ln(), base, spanned);
                for &(ll, _, _) in &cells[k * GRID..(k + 1) * GRID] {
                    assert!(
                        u.is_nan() || ll <= u,
                        "case {case}, sample {i}: ll {ll} above the bound {u}"
                    );
                    closest = closest.min(u - ll);
                }
            }
        }
        eprintln!("closest a cell came to the bound: {closest} below it");
    }

    /// A random window around one change: two levels (a cliff, a rise or none), noise, GC
    /// dips up to past the longest the prior allows, a straddling sample, and now and then an
    /// empty sample; samples of 10 ms or 1 s, steady or jittered.
    fn shape(rng: &mut fastrand::Rng) -> Window {
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

    /// With the exact margin `refine` skips only cells whose weight is exactly 0.0: bit for bit
    /// the results of skipping nothing, while skipping many samples of long windows.
    #[test]
    fn the_exact_margin_changes_no_bit() {
        let mut rng = fastrand::Rng::with_seed(19);
        let (mut skipped, mut long_samples) = (0, 0);
        for case in 0..400 {
            let (samples, x, lo, hi, a, b) = shape(&mut rng);
            let run = |margin| refine_counted(&samples, &x, lo, hi, a, b, dip_recursions, margin);
            let ((exact, skips), (all, none)) = (run(SKIP_MARGIN), run(f64::INFINITY));
            assert_eq!(none, 0);
            assert_eq!(
                bits(&exact),
                bits(&all),
                "case {case}: lo {lo} hi {hi} a {a:?} b {b:?}: {exact:?} vs {all:?}"
            );
            if hi.min(samples.len()) - lo > 1000 {
                skipped += skips;
                long_samples += hi.min(samples.len()) - lo;
            }
        }
        // In windows of more than 1000 samples many samples lie too far from the change for
        // any weight: their cells are skipped.
        assert!(
            skipped * 3 > long_samples,
            "{skipped} of {long_samples} samples skipped"
        );
    }
}
