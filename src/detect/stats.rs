//! Medians and robust scales of the detector's series.

use super::{periodic, select};

/// The median of `v` (reordered; the mean of the two middle values for even lengths):
/// selection in O(n), the same value a sort gives (`periodic::median`).
pub(super) fn median(v: &mut [f64]) -> f64 {
    periodic::median(v)
}

/// [`median`] of values that stay as they are: a long stretch is bracketed, not copied
/// ([`select`]).
pub(super) fn median_of(v: &[f64]) -> f64 {
    select::median_by(v, |a| a)
}

/// Median in O(n) (selection); for even lengths the upper middle value. A long slice is read
/// only ([`select`]); a short one is reordered.
pub(super) fn fast_median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let k = v.len() / 2;
    if v.len() >= select::BRACKET_MIN {
        return select::kth(v, k);
    }
    *v.select_nth_unstable_by(k, |a, b| a.total_cmp(b)).1
}

/// [`fast_median`] of values that stay as they are (NaN for none).
pub(super) fn upper_median_of(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    select::kth(v, v.len() / 2)
}

/// Running median with half-width `h`; windows shrink at the ends so that a short phase at
/// the start or end of the run survives.
pub(super) fn running_median(y: &[f64], h: usize) -> Vec<f64> {
    let n = y.len();
    let mut buf = Vec::with_capacity((2 * h + 1).min(n));
    (0..n)
        .map(|i| {
            let v = &y[i.saturating_sub(h)..(i + h + 1).min(n)];
            select::median_keyed(v.iter().copied(), &mut buf)
        })
        .collect()
}

/// 1.4826 * median absolute deviation: a robust standard deviation.
pub(super) fn mad_scale(v: &[f64]) -> f64 {
    if v.len() >= select::BRACKET_MIN {
        // Read twice, never copied.
        return mad_scale_about(v, upper_median_of(v));
    }
    mad_scale_owned(v.to_vec())
}

/// [`mad_scale`] of values the caller no longer needs: the deviations are made in place
/// (a median does not depend on the order the selection left), so no copy.
pub(super) fn mad_scale_owned(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let m = fast_median(&mut v);
    if v.len() >= select::BRACKET_MIN {
        return mad_scale_about(&v, m);
    }
    for x in &mut v {
        *x = (*x - m).abs();
    }
    1.4826 * fast_median(&mut v)
}

/// [`mad_scale`] of `v` whose [`fast_median`] `m` is known already (a segment's level): only
/// the deviations are selected, as they are read ([`select::kth_by`]). The same value, since
/// a median does not depend on the order of the values.
pub(super) fn mad_scale_about(v: &[f64], m: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    1.4826 * select::kth_by(v, v.len() / 2, |x| (x - m).abs())
}

/// The upper middle value ([`fast_median`]) of the values pushed so far, kept up as values
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
