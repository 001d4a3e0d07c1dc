//! The likelihood model of [`refine`](super::refine::refine): a Student-t around each level,
//! mixed with a one-sided garbage-collection dip, a prior on a pause in the sample that
//! straddles a change, and the grid of sub-sample positions.
//!
//! [`refine`](super::refine) scores positions with it, and
//! [`CellBound`](super::cell_bound::CellBound) bounds the same terms from above; both read the
//! constants from here, so a change to the model is made in one place (and the bound's contract
//! says what else must change with it).

/// Degrees of freedom of the Student-t likelihood (heavy tails absorb dips and outliers).
pub(super) const NU: f64 = 4.0;
/// Grid points per sample for the sub-sample position.
pub(super) const GRID: usize = 16;

/// Prior share of samples hit by a garbage-collection dip.
pub(super) const DIP_SHARE: f64 = 0.01;
/// Dips are taken as uniform in ln throughput from the level down to 1/50 of it.
pub(super) const DIP_DEPTH: f64 = 3.912; // ln(50)

/// Prior probability that the sample straddling a change also holds a pause after it (a
/// throttle switching rate, a controller changing mode): its rate is then below the straight
/// mix of the two levels, and the change lies later than the straight mix says.
pub(super) const PAUSE_PRIOR: f64 = 0.2;

/// Cumulative distribution of the standardised Student-t with `NU` = 4 degrees of freedom.
pub(super) fn t_cdf(t: f64) -> f64 {
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let a = 1.0 + t * t / 4.0;
    0.5 + 0.375 * (t / a.sqrt()) * (1.0 - t * t / (12.0 * a))
}

/// Mean time between GC dips assumed by the prior, seconds.
pub(super) const DIP_EVERY_S: f64 = 20.0;
/// Longest garbage-collection dip the detector is built to ignore, seconds: the longest dip
/// the prior allows, and the span the levels and cleanup steps treat as a dip.
pub(crate) const MAX_DIP_S: f64 = 3.0;

/// Density of the standardised Student-t, up to a constant shared by all terms.
pub(super) fn t_density(z: f64) -> f64 {
    (-0.5 * (NU + 1.0) * (z * z / NU).ln_1p()).exp()
}

/// Student-t normalising constant for `NU` (so that the dip component is on the same scale).
pub(super) fn t_norm() -> f64 {
    // Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2)) for nu = 4: 3/8.
    0.375
}

/// Log density of one sample `x` at `level` with `scale`: Student-t, mixed with a one-sided
/// dip component (a sample below its level may be a GC dip of any depth).
pub(super) fn log_lik(x: f64, level: f64, scale: f64) -> f64 {
    let core = (1.0 - DIP_SHARE) * t_norm() * t_density((x - level) / scale) / scale;
    let dip = if x < level && x > level - DIP_DEPTH {
        DIP_SHARE / DIP_DEPTH
    } else {
        0.0
    };
    (core + dip).max(1e-300).ln()
}
