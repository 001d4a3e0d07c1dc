//! Full-resolution refinement of one change: a posterior over its position in time.
//!
//! Given the two levels either side (log throughput, each with a robust scale), every
//! position tau in a window of samples is scored with a Student-t likelihood: samples wholly
//! before tau at the first level, wholly after at the second, and the sample that straddles
//! tau at the rate-weighted mixture of the two. A uniform prior over time gives the posterior,
//! whose median is the estimate and whose 2.5% and 97.5% quantiles are the 95% interval.

use crate::timeline::Sample;

/// Degrees of freedom of the Student-t likelihood (heavy tails absorb dips and outliers).
const NU: f64 = 4.0;
/// Grid points per sample for the sub-sample position.
const GRID: usize = 16;

/// One level: mean and scale of log throughput.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Mean (or median) of ln(bytes/s).
    pub mu: f64,
    /// Robust scale of ln(bytes/s).
    pub scale: f64,
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

fn log_t(z: f64) -> f64 {
    -0.5 * (NU + 1.0) * (z * z / NU).ln_1p()
}

/// Refines a change that lies within samples `lo..hi` of `samples`; `x` is ln(throughput) of
/// every sample; `a` is the level before the change and `b` after.
pub fn refine(samples: &[Sample], x: &[f64], lo: usize, hi: usize, a: Level, b: Level) -> Refined {
    let hi = hi.min(samples.len()).max(lo + 1);
    let w = hi - lo;
    let term = |i: usize, l: Level| log_t((x[i] - l.mu) / l.scale) - l.scale.ln();
    // before[k]: samples lo..lo+k at level a; after[k]: samples lo+k..hi at level b.
    let mut before = vec![0.0; w + 1];
    for k in 0..w {
        before[k + 1] = before[k] + term(lo + k, a);
    }
    let mut after = vec![0.0; w + 1];
    for k in (0..w).rev() {
        after[k] = after[k + 1] + term(lo + k, b);
    }
    let (ea, eb) = (a.mu.exp(), b.mu.exp());
    let s_mix = a.scale.max(b.scale);
    let mut cells: Vec<(f64, f64)> = Vec::with_capacity(w * GRID); // (log weight, width)
    for k in 0..w {
        let i = lo + k;
        let base = before[k] + after[k + 1];
        let dt = samples[i].interval_s;
        for g in 0..GRID {
            let f = (g as f64 + 0.5) / GRID as f64;
            let r = f * ea + (1.0 - f) * eb;
            let ll = base + log_t((x[i] - r.ln()) / s_mix) - s_mix.ln();
            cells.push((ll, dt / GRID as f64));
        }
    }
    let mx = cells.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = cells.iter().map(|&(ll, wd)| (ll - mx).exp() * wd).collect();
    let total: f64 = weights.iter().sum();
    // Quantile of the posterior as (sample index, fraction of that sample before the change).
    let quantile = |q: f64| -> (usize, f64) {
        let target = q * total;
        let mut acc = 0.0;
        for (c, &wt) in weights.iter().enumerate() {
            if acc + wt >= target && wt > 0.0 {
                let within = ((target - acc) / wt).clamp(0.0, 1.0);
                let k = c / GRID;
                let g = c % GRID;
                return (lo + k, (g as f64 + within) / GRID as f64);
            }
            acc += wt;
        }
        (hi - 1, 1.0)
    };
    let time_at = |(i, f): (usize, f64)| samples[i].t_start_s() + f * samples[i].interval_s;
    let bytes_at = |(i, f): (usize, f64)| {
        let s = &samples[i];
        let start = (s.bytes_total - s.bytes.min(s.bytes_total)) as f64;
        let wa = f * ea;
        let wb = (1.0 - f) * eb;
        let share = if wa + wb > 0.0 { wa / (wa + wb) } else { f };
        start + share * s.bytes as f64
    };
    let (ql, qm, qh) = (quantile(0.025), quantile(0.5), quantile(0.975));
    Refined {
        t_s: time_at(qm),
        t_low_s: time_at(ql),
        t_high_s: time_at(qh),
        bytes: bytes_at(qm),
        low_bytes: bytes_at(ql),
        high_bytes: bytes_at(qh),
    }
}
