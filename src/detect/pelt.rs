//! Exact PELT (Killick, Fearnhead and Eckley 2012) with an L2 segment cost.
//!
//! The cost of a segment is its sum of squared deviations from its mean, O(1) from prefix
//! sums; with that cost the pruning constant K is 0, so the search is exact.

/// Prefix sums of `y` and `y^2` for O(1) segment costs.
pub struct L2Cost {
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl L2Cost {
    /// Builds the prefix sums.
    pub fn new(y: &[f64]) -> L2Cost {
        let mut s1 = Vec::with_capacity(y.len() + 1);
        let mut s2 = Vec::with_capacity(y.len() + 1);
        let (mut a, mut b) = (0.0, 0.0);
        s1.push(0.0);
        s2.push(0.0);
        for &v in y {
            a += v;
            b += v * v;
            s1.push(a);
            s2.push(b);
        }
        L2Cost { s1, s2 }
    }

    /// Sum of squared deviations of `y[s..e]` from its mean (`s < e`). Inlined into the
    /// search of [`pelt`], which calls it once per candidate and step.
    #[inline]
    pub fn cost(&self, s: usize, e: usize) -> f64 {
        let n = (e - s) as f64;
        let a = self.s1[e] - self.s1[s];
        let b = self.s2[e] - self.s2[s];
        (b - a * a / n).max(0.0)
    }
}

/// A candidate start of the last segment in [`pelt`].
#[derive(Clone, Copy)]
struct Cand {
    /// The start.
    s: usize,
    /// The optimum up to it, `f[s]`.
    f: f64,
    /// `f[s] + cost(s, t - 1)` at the step before (`-inf` for a new candidate).
    before: f64,
}

/// Exact PELT: the segmentation of `y` minimising total L2 cost plus `penalty` per change,
/// every segment at least `min_len` long. Returns the change positions (start index of every
/// segment but the first), in increasing order.
pub fn pelt(y: &[f64], penalty: f64, min_len: usize) -> Vec<usize> {
    let n = y.len();
    let min_len = min_len.max(1);
    if n < 2 * min_len {
        return vec![];
    }
    let c = L2Cost::new(y);
    let mut f = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    f[0] = -penalty;
    // Candidate starts with `f[s] + cost(s, t - 1)`, their sum at the step before: the
    // pruning of one step is made in the search of the next, from that sum (the same
    // candidates in the same order as pruning after each search, with one cost each).
    let mut cands: Vec<Cand> = Vec::new();
    let mut prev_best = f64::INFINITY;
    for t in min_len..=n {
        let new = t - min_len;
        if f[new].is_finite() {
            // Not a candidate at the step before: nothing to prune it by.
            cands.push(Cand {
                s: new,
                f: f[new],
                before: f64::NEG_INFINITY,
            });
        }
        let mut best = f64::INFINITY;
        let mut arg = 0;
        let mut kept = 0;
        for j in 0..cands.len() {
            let mut k = cands[j];
            // Pruning: a start that could not beat the optimum then never will (K = 0 for
            // L2).
            // Dropped unless `before <= prev_best` (a NaN sum is dropped too).
            if k.before.partial_cmp(&prev_best).is_none_or(|o| o.is_gt()) {
                continue;
            }
            let here = k.f + c.cost(k.s, t);
            let v = here + penalty;
            if v < best {
                best = v;
                arg = k.s;
            }
            k.before = here;
            cands[kept] = k;
            kept += 1;
        }
        cands.truncate(kept);
        f[t] = best;
        last[t] = arg;
        prev_best = best;
    }
    changes_from(&last)
}

/// The change points of the optimal segmentation, in order, from `last[t]` (the start of the
/// last segment of the best segmentation of the first `t` values), read back from the end.
fn changes_from(last: &[usize]) -> Vec<usize> {
    let mut cps = Vec::new();
    let mut t = last.len() - 1;
    while t > 0 {
        let s = last[t];
        if s > 0 {
            cps.push(s);
        }
        t = s;
    }
    cps.reverse();
    cps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over all segmentations (small n) gives the same optimum as PELT.
    fn brute(y: &[f64], pen: f64, min_len: usize) -> f64 {
        let n = y.len();
        let c = L2Cost::new(y);
        let mut f = vec![f64::INFINITY; n + 1];
        f[0] = -pen;
        for t in 1..=n {
            for s in 0..t {
                if t - s >= min_len && f[s].is_finite() {
                    f[t] = f[t].min(f[s] + c.cost(s, t) + pen);
                }
            }
        }
        f[n]
    }

    fn total(y: &[f64], cps: &[usize], pen: f64) -> f64 {
        let c = L2Cost::new(y);
        let mut b = vec![0];
        b.extend_from_slice(cps);
        b.push(y.len());
        b.windows(2).map(|w| c.cost(w[0], w[1])).sum::<f64>() + pen * cps.len() as f64
    }

    /// PELT as it was first written: the search, then the pruning by a second cost.
    fn pelt_two_passes(y: &[f64], penalty: f64, min_len: usize) -> Vec<usize> {
        let n = y.len();
        let min_len = min_len.max(1);
        if n < 2 * min_len {
            return vec![];
        }
        let c = L2Cost::new(y);
        let mut f = vec![f64::INFINITY; n + 1];
        let mut last = vec![0usize; n + 1];
        f[0] = -penalty;
        let mut cands: Vec<usize> = Vec::new();
        for t in min_len..=n {
            let new = t - min_len;
            if f[new].is_finite() {
                cands.push(new);
            }
            let mut best = f64::INFINITY;
            let mut arg = 0;
            for &s in &cands {
                let v = f[s] + c.cost(s, t) + penalty;
                if v < best {
                    best = v;
                    arg = s;
                }
            }
            f[t] = best;
            last[t] = arg;
            cands.retain(|&s| f[s] + c.cost(s, t) <= best);
        }
        changes_from(&last)
    }

    /// The pruning made in the next search finds the changes the two passes found: steps,
    /// noise, ties (constant stretches), NaN and infinite values, penalties large and small.
    #[test]
    fn the_fused_pruning_is_the_two_pass_one() {
        let mut rng = fastrand::Rng::with_seed(11);
        for trial in 0..400 {
            let n = 1 + trial % 150;
            let mut y: Vec<f64> = (0..n)
                .map(|i| {
                    let level = [0.0, 1.0, 0.3, 2.0][(i * 4 / n.max(1)) % 4];
                    match trial % 4 {
                        0 => level,
                        1 => level + 0.1 * rng.f64(),
                        2 => (level + rng.f64()).round(),
                        _ => level + 0.5 * (rng.f64() - 0.5),
                    }
                })
                .collect();
            if trial % 17 == 0 {
                y[rng.usize(..n)] = if trial % 2 == 0 {
                    f64::NAN
                } else {
                    f64::INFINITY
                };
            }
            let pen = [0.01, 0.2, 1.0, 50.0][trial % 4];
            let min_len = 1 + trial % 3;
            assert_eq!(
                pelt(&y, pen, min_len),
                pelt_two_passes(&y, pen, min_len),
                "trial {trial}"
            );
        }
    }

    #[test]
    fn finds_a_clean_step_exactly() {
        let y: Vec<f64> = (0..50).map(|i| if i < 20 { 5.0 } else { 1.0 }).collect();
        assert_eq!(pelt(&y, 1.0, 1), vec![20]);
    }

    #[test]
    fn matches_brute_force() {
        let mut rng = fastrand::Rng::with_seed(7);
        for trial in 0..40 {
            let n = 5 + trial % 20;
            let y: Vec<f64> = (0..n)
                .map(|i| (if i > n / 2 { 1.0 } else { 0.0 }) + rng.f64() - 0.5)
                .collect();
            let pen = 0.05 + rng.f64();
            let min_len = 1 + trial % 3;
            let cps = pelt(&y, pen, min_len);
            let want = brute(&y, pen, min_len);
            if want.is_finite() {
                assert!((total(&y, &cps, pen) - want).abs() < 1e-9, "trial {trial}");
            }
        }
    }
}
