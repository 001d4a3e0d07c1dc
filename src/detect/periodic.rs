//! Periodic slowdowns: dips that recur at a regular period in a long steady run (Percona's
//! day-long random-read run on a 960 Pro dips from 1.5 GB/s to 0.8 GB/s every few minutes).
//! They are reported with their period, depth, duration and regularity, not as cliffs.
//!
//! Method: the baseline is a running median of block medians over a window long enough that
//! dips are a minority in it; samples more than `max(15%, 4 sigma)` below it are low; low
//! runs (gaps of one sample bridged) of at least two samples are dips. At least four dips
//! whose start-to-start intervals vary by at most 15% (median absolute deviation over median)
//! and that cover most of the run make a periodic pattern.

use serde::{Deserialize, Serialize};

use super::stats::{median, median_deviation, middle_values, running_median};
use crate::timeline::Sample;

/// Recurring slowdowns found in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Periodic {
    /// Median time from the start of one dip to the start of the next, seconds.
    pub period_s: f64,
    /// Throughput during a dip as a fraction of the level around it (0.55: down to 55%).
    pub depth: f64,
    /// Median length of a dip, seconds.
    pub duration_s: f64,
    /// How regular the period is: 1 - (median absolute deviation of the intervals / period).
    pub regularity: f64,
    /// Number of dips seen.
    pub count: usize,
    /// Start of each dip, seconds since the start of the run.
    pub starts_s: Vec<f64>,
}

impl Periodic {
    /// The one-line description: "periodic slowdowns, every 9.8 min, to 55% for 40 s".
    pub fn describe(&self) -> String {
        format!(
            "periodic slowdowns, every {}, to {:.0}% for {} ({} dips, regularity {:.2})",
            human_s(self.period_s),
            self.depth * 100.0,
            human_s(self.duration_s),
            self.count,
            self.regularity
        )
    }
}

fn human_s(s: f64) -> String {
    if s >= 120.0 {
        format!("{:.1} min", s / 60.0)
    } else if s >= 10.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// Whether the noise of the ratios `q` (rate over baseline) is so low that the dip threshold
/// `min(1 - MIN_DROP, exp(-4 sigma))`, with `sigma` 1.4826 times the median absolute
/// deviation of `ln q` about its median `m`, is `1 - MIN_DROP` (as in most runs): then the
/// million logarithms are not needed. A sufficient test, without logarithms of the ratios:
///
/// - `m` lies between `ln qa` and `ln qb`, the logarithms of the two middle ratios (the
///   median of the logarithms is theirs, `ln` being increasing, to within a few units in
///   the last place of its rounding, far inside the margin below);
/// - a ratio in `[qb e^-(t - margin), qa e^(t - margin)]` is then within `t` of `m`, in ln;
/// - when more than half the ratios are, the deviation's median is at most `t`, and `t` is
///   chosen so that `exp(-4 * 1.4826 * t)` is still above `1 - MIN_DROP` (by a millionth).
///
/// `false` (the logarithms are taken) for anything else: no ratios, middle ratios that are
/// not normal numbers, a NaN ratio (its logarithm's place in the order is not its own).
fn quiet_ratios(q: &[f64]) -> bool {
    let Some((qa, qb)) = middle_values(q) else {
        return false;
    };
    if !(qa.is_normal() && qb.is_normal() && qa > 0.0) {
        return false;
    }
    let t = -((1.0 - MIN_DROP) * (1.0 + 1e-6)).ln() / (4.0 * 1.4826);
    let margin = 1e-9;
    let (lo, hi) = (qb * (margin - t).exp(), qa * (t - margin).exp());
    let (mut inside, mut nan) = (0usize, false);
    for &v in q {
        inside += usize::from(v >= lo && v <= hi);
        nan |= v.is_nan();
    }
    !nan && inside > q.len() / 2
}

/// Fewest dips that make a pattern.
const MIN_DIPS: usize = 4;
/// Largest spread of the intervals (MAD / median) still called periodic.
const MAX_SPREAD: f64 = 0.15;
/// Smallest drop (fraction of the baseline) that counts as a dip.
const MIN_DROP: f64 = 0.15;

/// Finds periodic slowdowns in `samples` (throughput in `bytes_per_sec`), or `None`.
pub fn find(samples: &[Sample]) -> Option<Periodic> {
    let rate: Vec<f64> = samples.iter().map(|s| s.bytes_per_sec).collect();
    find_in(samples, &rate)
}

/// [`find`] with the samples' throughput already gathered (`rate[i]` is
/// `samples[i].bytes_per_sec`), so that the detector does not read the samples for it again.
pub(super) fn find_in(samples: &[Sample], rate: &[f64]) -> Option<Periodic> {
    let n = samples.len();
    if n < 4 * MIN_DIPS {
        return None;
    }
    let m = median(rate);
    if m.is_nan() || m <= 0.0 {
        return None;
    }
    // Baseline: running median of block medians, a window of about a tenth of the run (at
    // least 9 blocks), so that dips shorter than a third of their period stay a minority.
    let b = (n / 2000).max(1);
    let blocks: Vec<f64> = rate.chunks(b).map(median).collect();
    let k = (blocks.len() / 20).max(4);
    let base_block = running_median(&blocks, k);
    let base = |i: usize| base_block[(i / b).min(base_block.len() - 1)];
    // Noise of ln rate from the samples near the baseline (robust: MAD of the ratio).
    // Block by block (sample i is in block i / b), so that each block's baseline is read once.
    let mut ratios: Vec<f64> = Vec::with_capacity(n);
    for (c, &bk) in rate.chunks(b).zip(&base_block) {
        if bk > 0.0 {
            ratios.extend(c.iter().filter(|&&r| r > 0.0).map(|&r| r / bk));
        }
    }
    let thr = if quiet_ratios(&ratios) {
        // The noise cannot lower the threshold below the smallest drop: no logarithms.
        1.0 - MIN_DROP
    } else {
        for q in &mut ratios {
            *q = q.ln();
        }
        // The median of the deviations does not depend on the order the first median left.
        let m = median(&ratios);
        let sigma = 1.4826 * median_deviation(&ratios, m);
        (1.0 - MIN_DROP).min((-4.0 * sigma).exp())
    };
    let mut low: Vec<bool> = Vec::with_capacity(n);
    for (c, &bk) in rate.chunks(b).zip(&base_block) {
        let limit = thr * bk;
        low.extend(c.iter().map(|&r| r < limit));
    }
    // Low runs, bridging single-sample gaps.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < n {
        if !low[i] {
            i += 1;
            continue;
        }
        let s = i;
        let mut e = i + 1;
        loop {
            while e < n && low[e] {
                e += 1;
            }
            if e + 1 < n && !low[e] && low[e + 1] {
                e += 1;
                continue;
            }
            break;
        }
        if e - s >= 2 {
            runs.push((s, e));
        }
        i = e;
    }
    if runs.len() < MIN_DIPS {
        return None;
    }
    let start_t = |i: usize| samples[i].t_start_s();
    let starts: Vec<f64> = runs.iter().map(|r| start_t(r.0)).collect();
    let gaps: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    let period = median(&gaps);
    if period.is_nan() || period <= 0.0 {
        return None;
    }
    let spread = median_deviation(&gaps, period) / period;
    if spread > MAX_SPREAD {
        return None;
    }
    // The dips must recur over most of the run, not bunch up in one stretch.
    let span = samples[n - 1].t_s - samples[0].t_start_s();
    if (runs.len() as f64) < 0.6 * span / period {
        return None;
    }
    let durs: Vec<f64> = runs
        .iter()
        .map(|&(s, e)| samples[e - 1].t_s - samples[s].t_start_s())
        .collect();
    let duration = median(&durs);
    // A "dip" longer than half the period is a level change, not a dip.
    if duration > 0.5 * period {
        return None;
    }
    let depths: Vec<f64> = runs
        .iter()
        .map(|&(s, e)| median(&(s..e).map(|i| rate[i] / base(i)).collect::<Vec<f64>>()))
        .collect();
    Some(Periodic {
        period_s: period,
        depth: median(&depths),
        duration_s: duration,
        regularity: 1.0 - spread,
        count: runs.len(),
        starts_s: starts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threshold as the logarithms give it (the code the quiet test stands in for).
    fn threshold_by_logs(q: &[f64]) -> f64 {
        let l: Vec<f64> = q.iter().map(|v| v.ln()).collect();
        let m = median(&l);
        let sigma = 1.4826 * median_deviation(&l, m);
        (1.0 - MIN_DROP).min((-4.0 * sigma).exp())
    }

    /// Whenever the quiet test skips the logarithms, they give the threshold it assumes,
    /// bit for bit: noise below, near and above the bound (the bound is at a MAD of about
    /// 0.0274), ratios all alike, with dips, zeros, infinities and NaNs, short and long
    /// series (bracketed middle values); and it does skip them for quiet runs.
    #[test]
    fn the_quiet_test_only_skips_logarithms_that_change_nothing() {
        let mut seed = 5u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut quiet, mut loud) = (0, 0);
        for case in 0..600 {
            let n = if case % 10 == 0 {
                20_000
            } else {
                1 + case % 300
            };
            // Uniform noise of half-width w in ln has a MAD of w / 2.
            let w = [0.0, 0.01, 0.04, 0.054, 0.0548, 0.055, 0.056, 0.07, 0.3][case % 9];
            let mut q: Vec<f64> = (0..n)
                .map(|_| {
                    let dip = if rnd() < 0.1 { 0.5 } else { 1.0 };
                    dip * (w * (2.0 * rnd() - 1.0)).exp()
                })
                .collect();
            match case % 13 {
                1 => q[0] = f64::NAN,
                2 => q[n / 2] = f64::INFINITY,
                3 => q[n - 1] = 0.0,
                4 => q.iter_mut().for_each(|v| *v = 1.25),
                _ => {}
            }
            let want = threshold_by_logs(&q);
            if quiet_ratios(&q) {
                quiet += 1;
                assert_eq!(want.to_bits(), (1.0 - MIN_DROP).to_bits(), "case {case}");
            } else {
                loud += 1;
            }
        }
        assert!(quiet > 100 && loud > 100, "{quiet} quiet, {loud} not");
        assert!(!quiet_ratios(&[]));
    }
}
