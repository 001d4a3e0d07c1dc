//! Order statistics and robust scales of the detector's series, each function named by the
//! statistic it computes.
//!
//! Two medians, kept apart by name because the detector's recorded results depend on which
//! each step takes:
//! - [`median`]: the middle value, or for an even count the mean of the two middle values
//!   (what a sort gives);
//! - [`upper_median`]: the middle value, or for an even count the upper of the two.
//!
//! Every value is the one a sort by [`f64::total_cmp`] gives, bit for bit. How it is found is
//! private to this module ([`select`]): a long series is bracketed and read where it lies, a
//! short one copied and selected, so that no caller chooses a memory strategy.

mod select;

/// The median of `v`: the middle value, or for an even count the mean of the two middle
/// values; NaN for none.
pub(super) fn median(v: &[f64]) -> f64 {
    select::median_by(v, |a| a)
}

/// The median (as [`median`]) of the absolute deviations `|x - m|` of `v` about `m`; NaN for
/// none.
pub(super) fn median_deviation(v: &[f64], m: f64) -> f64 {
    select::median_by(v, |x| (x - m).abs())
}

/// The upper median of `v`: the middle value, or for an even count the upper of the two
/// middle values; NaN for none.
pub(super) fn upper_median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    select::kth_of(v.len(), v.len() / 2, |i| v[i])
}

/// The value at index `k` of `v` sorted (`k` below `v.len()`).
pub(super) fn kth_smallest(v: &[f64], k: usize) -> f64 {
    select::kth_of(v.len(), k, |i| v[i])
}

/// The 10th and 90th percentiles of `v` (the values a sort puts at the nearest indices to a
/// tenth and nine tenths of the way), by selection; `v` must not be empty. The swing a level
/// after the cache is quoted by.
pub(super) fn deciles(v: &[f64]) -> (f64, f64) {
    (quantile(v, 0.1), quantile(v, 0.9))
}

/// The value a sort of `v` puts at the index nearest a share `f` of the way, by selection; `v`
/// must not be empty.
pub(super) fn quantile(v: &[f64], f: f64) -> f64 {
    kth_smallest(v, ((v.len() - 1) as f64 * f).round() as usize)
}

/// The two middle values of `v`, those a sort puts at indices `(n - 1) / 2` and `n / 2` (one
/// value twice for an odd count; [`median`] is their mean); `None` for no values.
pub(super) fn middle_values(v: &[f64]) -> Option<(f64, f64)> {
    select::middle_values(v)
}

/// The running median (as [`median`]) of `y` over the windows `[i - h, i + h]`, cut at the
/// ends, so that a short phase at the start or end of the run survives. One sorted window is
/// kept up as it slides.
pub(super) fn running_median(y: &[f64], h: usize) -> Vec<f64> {
    let mut win: Vec<f64> = Vec::with_capacity((2 * h + 1).min(y.len()));
    let (mut lo, mut hi) = (0usize, 0usize);
    let place = |win: &Vec<f64>, x: f64| win.partition_point(|w| w.total_cmp(&x).is_lt());
    (0..y.len())
        .map(|i| {
            let (want_lo, want_hi) = (i.saturating_sub(h), (i + h + 1).min(y.len()));
            while hi < want_hi {
                let at = place(&win, y[hi]);
                win.insert(at, y[hi]);
                hi += 1;
            }
            while lo < want_lo {
                let at = place(&win, y[lo]);
                win.remove(at);
                lo += 1;
            }
            let n = win.len();
            if n % 2 == 1 {
                win[n / 2]
            } else {
                0.5 * (win[n / 2 - 1] + win[n / 2])
            }
        })
        .collect()
}

/// 1.4826 times the median absolute deviation, a robust standard deviation, with both
/// medians upper medians; 0 for no values.
pub(super) fn mad_scale(v: &[f64]) -> f64 {
    mad_scale_of(v.len(), |i| v[i])
}

/// [`mad_scale`] of the `n` values `g(0)`, ..., `g(n - 1)`, for a series that is never
/// stored (the differences of neighbours).
pub(super) fn mad_scale_of(n: usize, g: impl Fn(usize) -> f64 + Copy) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let m = select::kth_of(n, n / 2, g);
    1.4826 * select::kth_of(n, n / 2, |i| (g(i) - m).abs())
}

/// [`mad_scale`] of `v` about an upper median `m` known already (a segment's level).
pub(super) fn mad_scale_about(v: &[f64], m: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    1.4826 * select::kth_of(v.len(), v.len() / 2, |i| (v[i] - m).abs())
}

/// The upper middle value ([`upper_median`]) of the values pushed so far, kept up as values
/// come: the `len / 2` smallest in a max-heap, the rest in a min-heap.
#[derive(Default)]
pub(super) struct UpperMedian {
    low: std::collections::BinaryHeap<Total>,
    high: std::collections::BinaryHeap<std::cmp::Reverse<Total>>,
}

/// An `f64` ordered by `total_cmp`, as the detector's medians order values.
#[derive(Clone, Copy, PartialEq)]
struct Total(f64);
impl Eq for Total {}
impl PartialOrd for Total {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Total {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl UpperMedian {
    pub(super) fn push(&mut self, v: f64) {
        match self.low.peek() {
            Some(top) if Total(v) < *top => self.low.push(Total(v)),
            _ => self.high.push(std::cmp::Reverse(Total(v))),
        }
        let k = (self.low.len() + self.high.len()) / 2;
        while self.low.len() > k {
            let t = self.low.pop().expect("non-empty");
            self.high.push(std::cmp::Reverse(t));
        }
        while self.low.len() < k {
            let std::cmp::Reverse(t) = self.high.pop().expect("non-empty");
            self.low.push(t);
        }
    }
    pub(super) fn get(&self) -> f64 {
        self.high.peek().map_or(f64::NAN, |r| r.0 .0)
    }
}

/// The least-squares line through points `(t, y)`: the means of both and the sums of the
/// products of their deviations, from which a caller takes the slope (`sxy / sxx`) and how
/// much of the variance of `y` the line holds (`sxy² / (sxx · syy)`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fit {
    /// Mean of `t`.
    pub(super) t_mean: f64,
    /// Mean of `y`.
    pub(super) y_mean: f64,
    /// Sum of (t - t_mean)(y - y_mean).
    pub(super) sxy: f64,
    /// Sum of (t - t_mean)².
    pub(super) sxx: f64,
    /// Sum of (y - y_mean)².
    pub(super) syy: f64,
}

impl Fit {
    /// The line through `pts`; `None` for no points.
    pub(super) fn of(pts: &[(f64, f64)]) -> Option<Fit> {
        if pts.is_empty() {
            return None;
        }
        let n = pts.len() as f64;
        let (t_mean, y_mean) = pts
            .iter()
            .fold((0.0, 0.0), |(t, r), &(x, y)| (t + x / n, r + y / n));
        let (sxy, sxx, syy) = pts.iter().fold((0.0, 0.0, 0.0), |(a, b, c), &(x, y)| {
            (
                a + (x - t_mean) * (y - y_mean),
                b + (x - t_mean) * (x - t_mean),
                c + (y - y_mean) * (y - y_mean),
            )
        });
        Some(Fit {
            t_mean,
            y_mean,
            sxy,
            sxx,
            syy,
        })
    }

    /// How fast `y` falls along the line, per unit of `t` (negative where it rises); `None`
    /// where `t` does not vary.
    pub(super) fn fall_rate(&self) -> Option<f64> {
        (self.sxx > 0.0).then(|| -(self.sxy / self.sxx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_median(v: &[f64]) -> f64 {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        }
    }

    /// The two medians and the scales of short and long series against a sort: ties,
    /// signed zeros, odd and even counts, and one series long enough to be bracketed.
    #[test]
    fn medians_and_scales_are_what_a_sort_gives() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [1usize, 2, 3, 4, 29, 30, 31, 1000, 1001, 20_000, 20_001] {
            let v: Vec<f64> = (0..n)
                .map(|i| match i % 11 {
                    0 => 1.0,
                    1 => -0.0,
                    2 => 0.0,
                    _ => (next() % 10_000) as f64 / 100.0,
                })
                .collect();
            let mut s = v.clone();
            s.sort_by(f64::total_cmp);
            assert_eq!(
                median(&v).to_bits(),
                naive_median(&v).to_bits(),
                "median of {n}"
            );
            let up = s[n / 2];
            assert_eq!(
                upper_median(&v).to_bits(),
                up.to_bits(),
                "upper median of {n}"
            );
            assert_eq!(kth_smallest(&v, n / 4).to_bits(), s[n / 4].to_bits());
            let mut dev: Vec<f64> = v.iter().map(|a| (a - up).abs()).collect();
            dev.sort_by(f64::total_cmp);
            assert_eq!(
                mad_scale(&v).to_bits(),
                (1.4826 * dev[n / 2]).to_bits(),
                "MAD of {n}"
            );
            assert_eq!(mad_scale_about(&v, up).to_bits(), mad_scale(&v).to_bits());
            let m = median(&v);
            let dm: Vec<f64> = v.iter().map(|a| (a - m).abs()).collect();
            assert_eq!(
                median_deviation(&v, m).to_bits(),
                naive_median(&dm).to_bits()
            );
        }
        assert!(median(&[]).is_nan() && upper_median(&[]).is_nan());
        assert_eq!(mad_scale(&[]), 0.0);
        let mut up = UpperMedian::default();
        let pushed = [5.0, 1.0, 4.0, 2.0, 3.0, 3.0];
        for (i, &p) in pushed.iter().enumerate() {
            up.push(p);
            assert_eq!(up.get(), upper_median(&pushed[..=i]));
        }
    }

    #[test]
    fn selection_and_running_medians_equal_sorting() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let v: Vec<f64> = (0..500)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Ties and a few repeated values too.
                if i % 7 == 0 {
                    1.0
                } else {
                    (x % 1000) as f64 / 10.0
                }
            })
            .collect();
        for n in [1, 2, 3, 10, 11, 500] {
            assert_eq!(median(&v[..n]), naive_median(&v[..n]));
        }
        for k in [0, 1, 4, 25, 600] {
            let run = running_median(&v, k);
            for (i, m) in run.iter().enumerate() {
                let (lo, hi) = (i.saturating_sub(k), (i + k + 1).min(v.len()));
                assert_eq!(*m, naive_median(&v[lo..hi]), "k {k} at {i}");
            }
        }
    }
}
