//! The recovery model and its fit: how much cache comes back after idling `t` seconds.
//!
//! The model is piecewise linear: nothing comes back during a delay `d`, then the drive folds
//! its SLC contents at a constant rate `r` until the cache is whole again at size `C`:
//!
//! ```text
//! recovered(t) = min(C, r * max(0, t - d))
//! ```
//!
//! The time to full recovery is `d + C / r`. The fit minimises the weighted squared error of
//! the measured points over `d` and the knee `k = d + C / r` (for a given pair the best `C` is
//! a weighted mean, in closed form), by a coarse grid and then ever finer grids around the
//! best pair. When no point lies on the plateau, `C` cannot be read off the points: the fit is
//! then a ramp `r * max(0, t - d)` alone and the full-recovery time uses the cache of the
//! first burst (the cache the drive had before it was emptied), with a warning.
//!
//! Intervals come from a parametric bootstrap: each point is redrawn from a normal
//! distribution with its own standard error (from its 95% interval, at least 1% of the
//! largest point, and scaled up by the residual spread when there are more points than
//! parameters), the model is fitted again, and the 2.5% and 97.5% quantiles of the refits are
//! the interval. The random draws are seeded, so a fit is repeatable.

pub use crate::results::recovery::RecoveryFit;

/// One measured point: the cache recovered after idling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Idle time, seconds.
    pub idle_s: f64,
    /// Recovered cache, bytes.
    pub bytes: f64,
    /// Lower end of its 95% interval, bytes.
    pub low: f64,
    /// Upper end of its 95% interval, bytes.
    pub high: f64,
}

/// A fitted curve: delay, knee (full-recovery time, infinite for a ramp alone) and plateau.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve {
    /// Delay before folding starts, seconds.
    pub delay_s: f64,
    /// Folding rate, bytes/s.
    pub rate: f64,
    /// Plateau (whole cache), bytes; `None` for a ramp alone.
    pub plateau: Option<f64>,
}

impl Curve {
    /// Recovered bytes after `t` seconds of idle.
    pub fn at(&self, t: f64) -> f64 {
        let ramp = self.rate * (t - self.delay_s).max(0.0);
        match self.plateau {
            Some(c) => ramp.min(c),
            None => ramp,
        }
    }

    /// The knee: idle time at which the plateau is reached (`None` without a plateau).
    pub fn knee_s(&self) -> Option<f64> {
        let c = self.plateau?;
        (self.rate > 0.0).then(|| self.delay_s + c / self.rate)
    }
}

/// Weighted squared error of `curve` on the points (weights `w`).
fn sse(ts: &[f64], ys: &[f64], w: &[f64], curve: &Curve) -> f64 {
    ts.iter()
        .zip(ys)
        .zip(w)
        .map(|((t, y), w)| w * (y - curve.at(*t)).powi(2))
        .sum()
}

/// Best plateau for delay `d` and knee `k`: a weighted least-squares scale.
fn with_knee(ts: &[f64], ys: &[f64], w: &[f64], d: f64, k: f64) -> Curve {
    let (mut num, mut den) = (0.0, 0.0);
    for ((t, y), w) in ts.iter().zip(ys).zip(w) {
        let f = ((t - d) / (k - d)).clamp(0.0, 1.0);
        num += w * f * y;
        den += w * f * f;
    }
    let c = if den > 0.0 { (num / den).max(0.0) } else { 0.0 };
    Curve {
        delay_s: d,
        rate: c / (k - d),
        plateau: Some(c),
    }
}

/// Best ramp (no plateau) for delay `d`.
fn ramp_only(ts: &[f64], ys: &[f64], w: &[f64], d: f64) -> Curve {
    let (mut num, mut den) = (0.0, 0.0);
    for ((t, y), w) in ts.iter().zip(ys).zip(w) {
        let g = (t - d).max(0.0);
        num += w * g * y;
        den += w * g * g;
    }
    Curve {
        delay_s: d,
        rate: if den > 0.0 { (num / den).max(0.0) } else { 0.0 },
        plateau: None,
    }
}

/// Fits the curve to points `(t, y)` with weights `w` (all slices the same length, at least
/// one point). Deterministic.
pub fn fit_curve(ts: &[f64], ys: &[f64], w: &[f64]) -> Curve {
    let t_max = ts.iter().cloned().fold(0.0, f64::max).max(1e-3);
    let score = |c: &Curve| sse(ts, ys, w, c);
    // Coarse grid over (delay, knee), knee after the delay and at most a little past the
    // longest idle (a knee beyond it is the ramp-only case below).
    let n = 48;
    let mut best: Option<(f64, f64, f64, Curve)> = None; // (sse, d, k, curve)
    let consider = |d: f64, k: f64, best: &mut Option<(f64, f64, f64, Curve)>| {
        if k <= d + 1e-9 || d < 0.0 || k.is_nan() {
            return;
        }
        let c = with_knee(ts, ys, w, d, k);
        let e = score(&c);
        if best.as_ref().is_none_or(|b| e < b.0) {
            *best = Some((e, d, k, c));
        }
    };
    for i in 0..=n {
        let d = t_max * i as f64 / n as f64;
        for j in 1..=n {
            let k = d + (1.05 * t_max - d).max(1e-3) * j as f64 / n as f64;
            consider(d, k, &mut best);
        }
    }
    // Zoom in: ever finer grids around the best pair.
    let (mut sd, mut sk) = (t_max / n as f64, t_max / n as f64);
    for _ in 0..40 {
        let (_, d0, k0, _) = best.expect("the grid has points");
        for i in -6..=6 {
            for j in -6..=6 {
                let d = (d0 + sd * i as f64 / 3.0).max(0.0);
                let k = k0 + sk * j as f64 / 3.0;
                consider(d, k, &mut best);
            }
        }
        sd *= 0.6;
        sk *= 0.6;
    }
    let (e_knee, _, _, knee_curve) = best.expect("the grid has points");
    // Ramp alone: a one-dimensional search over the delay.
    let mut best_ramp = ramp_only(ts, ys, w, 0.0);
    let mut e_ramp = score(&best_ramp);
    for i in 0..=4 * n {
        let c = ramp_only(ts, ys, w, t_max * i as f64 / (4 * n) as f64);
        let e = score(&c);
        if e < e_ramp {
            (best_ramp, e_ramp) = (c, e);
        }
    }
    let mut step = t_max / (4 * n) as f64;
    for _ in 0..40 {
        let d0 = best_ramp.delay_s;
        for i in -6..=6 {
            let c = ramp_only(ts, ys, w, (d0 + step * i as f64 / 3.0).max(0.0));
            let e = score(&c);
            if e < e_ramp {
                (best_ramp, e_ramp) = (c, e);
            }
        }
        step *= 0.6;
    }
    // A plateau must earn its parameter: the knee must lie inside the observed range (a point
    // after it) and fit clearly better than the ramp alone (the weighted error, a chi-square,
    // lower by more than 4). With as many points as parameters both fit exactly, and the
    // simpler ramp stays.
    let knee_inside = knee_curve
        .knee_s()
        .is_some_and(|k| ts.iter().any(|t| *t >= k - 1e-9));
    if knee_inside && e_ramp - e_knee > 4.0 {
        knee_curve
    } else {
        best_ramp
    }
}

/// Standard normal draw (Box-Muller) from the generator.
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u1 = rng.f64().max(1e-300);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

fn quantile(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos.fract());
    let hi = v[(i + 1).min(v.len() - 1)];
    Some(v[i] + (hi - v[i]) * f)
}

/// How many bootstrap refits the intervals come from.
pub const BOOTSTRAP: usize = 300;

/// Fits the recovery model to `points`; `first_cache` is the cache of the first burst (the
/// plateau when no point reaches it). `seed` seeds the bootstrap.
pub fn fit(points: &[Point], first_cache: Option<f64>, seed: u64) -> RecoveryFit {
    let mut out = RecoveryFit::default();
    if points.is_empty() {
        out.warnings
            .push("no finished step: nothing to fit".to_string());
        return out;
    }
    let ts: Vec<f64> = points.iter().map(|p| p.idle_s).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.bytes.max(0.0)).collect();
    let y_max = ys.iter().cloned().fold(0.0, f64::max);
    let scale = y_max.max(first_cache.unwrap_or(0.0)).max(1.0);
    let mut se: Vec<f64> = points
        .iter()
        .map(|p| ((p.high - p.low) / (2.0 * 1.96)).max(0.01 * scale))
        .collect();
    let w = |se: &[f64]| se.iter().map(|s| 1.0 / (s * s)).collect::<Vec<f64>>();
    let curve = fit_curve(&ts, &ys, &w(&se));
    // More points than parameters: widen the errors to the residual spread if it is larger.
    let params = if curve.plateau.is_some() { 3 } else { 2 };
    if points.len() > params {
        let chi2 = sse(&ts, &ys, &w(&se), &curve) / (points.len() - params) as f64;
        if chi2 > 1.0 {
            for s in &mut se {
                *s *= chi2.sqrt();
            }
        }
    }
    if y_max <= 0.01 * scale {
        out.warnings.push(
            "no cache came back after any idle time given: the delay is longer than the longest \
             idle, or the drive does not fold while idle; try longer idle times"
                .to_string(),
        );
        out.delay_s_low = ts.iter().cloned().reduce(f64::max);
        return out;
    }
    // One idle time that brought cache back determines one figure, not two: a line through
    // one point has any delay up to its idle time. Say the bounds instead of a fit.
    let mut back: Vec<f64> = ts
        .iter()
        .zip(&ys)
        .filter(|(_, y)| **y > 0.01 * scale)
        .map(|(t, _)| *t)
        .collect();
    back.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    if back.len() < 2 && curve.plateau.is_none() {
        let (t, y) = ts
            .iter()
            .zip(&ys)
            .filter(|(_, y)| **y > 0.01 * scale)
            .map(|(t, y)| (*t, *y))
            .fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        out.warnings.push(format!(
            "only one idle time brought cache back ({:.2} GB after {t:.0} s): the folding rate \
             (at least {:.0} MB/s) and the delay (at most {t:.0} s) are not separately \
             determined; give two or more idle times",
            y / 1e9,
            y / t.max(1e-9) / 1e6
        ));
        out.delay_s_high = Some(t);
        out.fold_rate_bytes_per_sec_low = Some(y / t.max(1e-9));
        return out;
    }
    let plateau = curve.plateau.or(first_cache);
    out.plateau_seen = curve.plateau.is_some();
    out.full_cache_bytes = plateau;
    let knee = |c: &Curve| -> Option<f64> {
        let p = c.plateau.or(first_cache)?;
        (c.rate > 0.0).then(|| c.delay_s + p / c.rate)
    };
    out.fold_rate_bytes_per_sec = Some(curve.rate);
    out.delay_s = Some(curve.delay_s);
    out.full_recovery_s = knee(&curve);
    let k = knee(&curve).unwrap_or(f64::INFINITY);
    out.points_on_ramp = ts
        .iter()
        .filter(|t| **t > curve.delay_s + 1e-9 && **t < k - 1e-9)
        .count();
    if !out.plateau_seen {
        out.warnings.push(
            "no idle time was long enough for the whole cache to come back: the full-recovery \
             time is extrapolated to the first burst's cache; add a longer idle time"
                .to_string(),
        );
    }
    if out.points_on_ramp < 2 {
        out.warnings.push(format!(
            "only {} point(s) between the delay and full recovery: the folding rate and the delay \
             are not separately determined (wide intervals); add idle times between {:.0} s and \
             {:.0} s",
            out.points_on_ramp,
            curve.delay_s,
            if k.is_finite() {
                k
            } else {
                2.0 * ts.iter().cloned().fold(0.0, f64::max)
            }
        ));
    }
    // Parametric bootstrap.
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x05ee_df17);
    let (mut rs, mut ds, mut ks) = (Vec::new(), Vec::new(), Vec::new());
    let wb = w(&se);
    for _ in 0..BOOTSTRAP {
        let yb: Vec<f64> = ys
            .iter()
            .zip(&se)
            .map(|(y, s)| (y + s * normal(&mut rng)).max(0.0))
            .collect();
        let c = fit_curve(&ts, &yb, &wb);
        rs.push(c.rate);
        ds.push(c.delay_s);
        if let Some(k) = knee(&c) {
            ks.push(k);
        }
    }
    out.fold_rate_bytes_per_sec_low = quantile(&mut rs, 0.025);
    out.fold_rate_bytes_per_sec_high = quantile(&mut rs, 0.975);
    out.delay_s_low = quantile(&mut ds, 0.025);
    out.delay_s_high = quantile(&mut ds, 0.975);
    if out.full_recovery_s.is_some() && ks.len() >= BOOTSTRAP / 2 {
        out.full_recovery_s_low = quantile(&mut ks, 0.025);
        out.full_recovery_s_high = quantile(&mut ks, 0.975);
    }
    // The interval always holds the estimate (a skewed bootstrap can leave it outside).
    let widen = |v: Option<f64>, lo: &mut Option<f64>, hi: &mut Option<f64>| {
        if let Some(v) = v {
            *lo = lo.map(|l| l.min(v));
            *hi = hi.map(|h| h.max(v));
        }
    };
    widen(
        out.fold_rate_bytes_per_sec,
        &mut out.fold_rate_bytes_per_sec_low,
        &mut out.fold_rate_bytes_per_sec_high,
    );
    widen(out.delay_s, &mut out.delay_s_low, &mut out.delay_s_high);
    widen(
        out.full_recovery_s,
        &mut out.full_recovery_s_low,
        &mut out.full_recovery_s_high,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(truth: &Curve, idles: &[f64], rel_err: f64) -> Vec<Point> {
        idles
            .iter()
            .map(|&t| {
                let y = truth.at(t);
                let h = (rel_err * y).max(1e6);
                Point {
                    idle_s: t,
                    bytes: y,
                    low: y - h,
                    high: y + h,
                }
            })
            .collect()
    }

    #[test]
    fn exact_points_give_back_the_curve() {
        let truth = Curve {
            delay_s: 5.0,
            rate: 300e6,
            plateau: Some(21e9),
        };
        let p = pts(&truth, &[10.0, 60.0, 300.0], 0.01);
        let f = fit(&p, Some(22e9), 1);
        let r = f.fold_rate_bytes_per_sec.unwrap();
        let d = f.delay_s.unwrap();
        assert!((r / 300e6 - 1.0).abs() < 0.01, "{r}");
        assert!((d - 5.0).abs() < 0.1, "{d}");
        assert!((f.full_recovery_s.unwrap() - 75.0).abs() < 1.0, "{f:?}");
        assert!(f.plateau_seen);
        assert_eq!(f.points_on_ramp, 2);
        assert!(f.fold_rate_bytes_per_sec_low.unwrap() <= r);
        assert!(f.fold_rate_bytes_per_sec_high.unwrap() >= r);
        assert!(f.delay_s_low.unwrap() < 5.0 && f.delay_s_high.unwrap() > 5.0);
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    }

    #[test]
    fn one_point_on_the_ramp_is_flagged_and_wide() {
        let truth = Curve {
            delay_s: 1.0,
            rate: 650e6,
            plateau: Some(21e9),
        };
        let p = pts(&truth, &[10.0, 60.0, 300.0], 0.01);
        let f = fit(&p, Some(22e9), 1);
        assert!(f.points_on_ramp < 2);
        assert!(f.warnings.iter().any(|w| w.contains("not separately")));
    }

    #[test]
    fn ramp_without_plateau_extrapolates_to_the_first_cache() {
        let truth = Curve {
            delay_s: 2.0,
            rate: 100e6,
            plateau: None,
        };
        let p = pts(&truth, &[5.0, 20.0, 40.0], 0.01);
        let f = fit(&p, Some(10e9), 3);
        assert!(!f.plateau_seen);
        assert!((f.fold_rate_bytes_per_sec.unwrap() / 100e6 - 1.0).abs() < 0.02);
        assert!((f.full_recovery_s.unwrap() - 102.0).abs() < 3.0);
        assert!(f.warnings.iter().any(|w| w.contains("extrapolated")));
    }

    #[test]
    fn nothing_recovered_says_so() {
        let p = pts(
            &Curve {
                delay_s: 100.0,
                rate: 1e8,
                plateau: Some(1e10),
            },
            &[5.0, 10.0],
            0.01,
        );
        let f = fit(&p, Some(1e10), 1);
        assert!(f.fold_rate_bytes_per_sec.is_none());
        assert!(f.warnings.iter().any(|w| w.contains("no cache came back")));
    }

    #[test]
    fn two_points_on_a_ramp_stay_a_ramp() {
        // Two points, both exactly on a ramp: a plateau at the higher one would fit as well,
        // but nothing says the cache is whole there.
        let truth = Curve {
            delay_s: 0.5,
            rate: 400e6,
            plateau: None,
        };
        let p = pts(&truth, &[1.0, 2.0], 0.01);
        let f = fit(&p, Some(1e9), 4);
        assert!(!f.plateau_seen, "{f:?}");
        assert!((f.fold_rate_bytes_per_sec.unwrap() / 400e6 - 1.0).abs() < 0.01);
        assert!((f.full_recovery_s.unwrap() - 3.0).abs() < 0.05, "{f:?}");
    }

    #[test]
    fn the_fit_is_repeatable() {
        let truth = Curve {
            delay_s: 3.0,
            rate: 200e6,
            plateau: Some(8e9),
        };
        let p = pts(&truth, &[5.0, 15.0, 30.0, 60.0, 120.0], 0.03);
        assert_eq!(fit(&p, None, 9), fit(&p, None, 9));
    }
}
