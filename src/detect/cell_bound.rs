//! The skip bound of [`refine`](super::refine::refine): an upper bound on the log weight of a
//! sample's cells from quantities that need no Student-t call, so that samples far from the
//! change are left out without computing their cells.

use super::likelihood::{t_norm, GRID, PAUSE_PRIOR};

/// Slack added to every upper bound of [`CellBound`] for rounding: the bounds and the values
/// they bound are formed by different sequences of a few dozen roundings each, worth at most
/// some 1e-10 in ln weight; 1.0 is far more than that.
const BOUND_SLACK: f64 = 1.0;

/// What bounds a sample's cells from above, from the edges alone (once per call).
///
/// # Contract
///
/// [`refine`](super::refine::refine) skips a sample when [`CellBound::ll_max`] is more than
/// its margin below the best cell's `ll`, taking the weights of the skipped cells as 0.0.
/// That is only right if `ll_max` is, for every sample, **at least the `ll` of each of its
/// `GRID` cells** as `refine`'s `sample_cells` computes it (rounding included: hence
/// `BOUND_SLACK`). The bound must therefore mirror the cell likelihood term by term: each
/// term of `np`, `pause`, `dip` and the log-sum-exp with `spanned` below has its own upper
/// bound here.
///
/// What breaks if the likelihood changes: any new term, a larger constant (`NU`, `t_norm`,
/// `PAUSE_PRIOR`, `DIP_SHARE`, the grid) or a term that can now exceed the bound written
/// here makes the bound too low; `refine` then skips cells that hold posterior mass and
/// the change points, intervals and cache sizes move, silently. Change this bound in the
/// same commit as the likelihood; `cell_bound_is_above_every_cell` (every cell of the naive
/// posterior in `refine`'s tests against this bound), `refine_matches_the_reference_closely`
/// (when cells that hold posterior mass are skipped) and the reference analyses fail when it
/// no longer holds.
///
/// A cell's `lik` is `ln(max(np + pause, 1e-300))` with `np = core * np_core + dip`:
/// - `np_core` of a cell the mix moves across is `ex / |ea - eb|` times a difference of two
///   values of `t_cdf`, each in [0, 1] up to rounding, so at most `ex / |ea - eb| * MASS_MAX`;
/// - `np_core` of a cell it does not move across is `df * t_norm() * t_density(z) / s_mix`,
///   and `t_density` is `exp` of a non-positive number: at most 1;
/// - `dip` is `dip_mass[g]` or 0;
/// - `pause` is `PAUSE_PRIOR / 2 * (pd[g] + pd[g + 1]) * df[g]` with each edge's `pd` either 0
///   (at f = 1) or `ex / pause_div * mass` with `mass` a difference of two `t_cdf` values,
///   clamped at 0: at most `ex / pause_div * MASS_MAX`.
///
/// The cell's `ll` is the log-sum-exp of `base + lik` and `spanned + ln_df[g]`, plus `ln dt`:
/// at most the larger of the two plus ln 2, plus `ln dt`.
pub(super) struct CellBound {
    /// Whether any cell is one the mix moves across.
    any_moves: bool,
    /// `core / |ea - eb| * MASS_MAX` (the moving cells' `core * np_core` per unit of `ex`).
    moving_per_ex: f64,
    /// The largest `core * df * t_norm() / s_mix` of a cell the mix does not move across.
    fixed_max: f64,
    /// The largest `dip_mass`.
    dip_max: f64,
    /// The largest `pause` of a cell per unit of `ex`.
    pause_per_ex: f64,
    /// The largest `ln_df`.
    ln_df_max: f64,
}

/// Bound on a difference of two values of `t_cdf` (each in [0, 1] up to a few roundings).
const MASS_MAX: f64 = 1.0 + 1e-9;

impl CellBound {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        ea: f64,
        eb: f64,
        s_mix: f64,
        moves: &[bool; GRID],
        df: &[f64; GRID],
        dip_mass: &[f64; GRID],
        pause_div: &[f64; GRID + 1],
        fr: &[f64; GRID + 1],
        core: f64,
    ) -> CellBound {
        let edge_pd = |g: usize| {
            if fr[g] >= 1.0 {
                0.0
            } else {
                MASS_MAX / pause_div[g]
            }
        };
        let mut b = CellBound {
            any_moves: moves.iter().any(|&m| m),
            moving_per_ex: core / (ea - eb).abs() * MASS_MAX,
            fixed_max: 0.0,
            dip_max: 0.0,
            pause_per_ex: 0.0,
            ln_df_max: f64::NEG_INFINITY,
        };
        for g in 0..GRID {
            if !moves[g] {
                b.fixed_max = b.fixed_max.max(core * df[g] * t_norm() / s_mix);
            }
            b.dip_max = b.dip_max.max(dip_mass[g]);
            b.pause_per_ex = b
                .pause_per_ex
                .max(PAUSE_PRIOR * 0.5 * (edge_pd(g) + edge_pd(g + 1)) * df[g]);
            b.ln_df_max = b.ln_df_max.max(df[g].ln());
        }
        b
    }

    /// An upper bound on the `ll` of every cell of a sample with rate `ex` (`exp` of its ln
    /// rate) and interval `exp(ln_dt)`, given its `base` and `spanned` (NaN, so that nothing
    /// is skipped, when either is).
    pub(super) fn ll_max(&self, ex: f64, ln_dt: f64, base: f64, spanned: f64) -> f64 {
        let moving = if self.any_moves {
            ex * self.moving_per_ex
        } else {
            0.0
        };
        let p = moving.max(self.fixed_max) + self.dip_max + ex * self.pause_per_ex;
        let lik = if p.is_nan() { p } else { p.max(1e-300).ln() };
        let (u, v) = (base + lik, spanned + self.ln_df_max);
        // NaN-propagating maximum (f64::max would drop a NaN side).
        let m = if u >= v {
            u
        } else if v > u {
            v
        } else {
            f64::NAN
        };
        m + std::f64::consts::LN_2 + ln_dt + BOUND_SLACK
    }
}
