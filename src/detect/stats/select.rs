//! Exact order statistics (the k-th smallest value, medians) of long series without copying
//! them.
//!
//! The detector takes medians of stretches that reach a million samples: the level of a phase,
//! the spread about it, the noise of the whole run. Copying such a stretch and selecting in the
//! copy (`select_nth_unstable_by`) reads and writes it three or four times over, and the copy
//! is fresh memory, which the kernel must fault in page by page (about 4 µs of system time a
//! page on the VM this was measured on: a quarter of the detector's time at a million
//! samples, with the other columns it kept).
//!
//! For long series [`kth_of`] brackets the answer instead (Floyd and Rivest's idea, 1975):
//! two ranks of a sample of 2048 values (selected, not sorted) give two bounds that hold rank
//! `k` between them with near certainty; one pass over the series counts the values below the lower bound and keeps only
//! those between the bounds (about a tenth), and the selection is made among those. The counts
//! say whether the bounds really hold rank `k`; when they do not (a very unlucky sample, or a
//! series made mostly of one value), the plain copy-and-select gives the answer. Either way the
//! result is the value a sort by [`f64::total_cmp`] puts at index `k`, bit for bit.

/// Series at least this long are bracketed; shorter ones are copied and selected. At 8192
/// values the pass and the selection among a tenth of them already cost less than the copy
/// and the selection of all (the sample of [`SAMPLE`] is a quarter of the series then).
const BRACKET_MIN: usize = 1 << 13;
/// Values in the bracketing sample.
const SAMPLE: usize = 2048;
/// Half-width of the bracket in sample ranks: four standard deviations of the sample rank of
/// the median (`sqrt(SAMPLE) / 2` at most), so that a bracket misses about once in 30 000.
const REACH: usize = 90;
/// Values classified per step of the pass (the kept ones are gathered on the stack first).
const CHUNK: usize = 256;

/// A key whose integer order is [`f64::total_cmp`]'s order: negative values (sign bit set)
/// have their other bits flipped, so that larger magnitudes sort lower.
fn key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The value whose [`key`] is `k`: the same flip undoes itself, since it leaves the sign bit
/// alone.
fn value(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

/// The value at index `k` of the `n` values `g(0)`, ..., `g(n - 1)` sorted by
/// [`f64::total_cmp`]: for series that are never stored (the differences of neighbours, say).
/// `g` is called once or twice per value. Panics when `k` is not below `n`.
pub(super) fn kth_of(n: usize, k: usize, g: impl Fn(usize) -> f64 + Copy) -> f64 {
    assert!(k < n, "rank {k} of {n} values");
    if n >= BRACKET_MIN {
        if let Some(v) = Bracket::new(n, k, g).and_then(|mut b| b.value_at(k)) {
            return v;
        }
    }
    let mut v: Vec<f64> = (0..n).map(g).collect();
    *v.select_nth_unstable_by(k, f64::total_cmp).1
}

/// The median of `x` mapped by `f`: the middle value, or for even lengths the mean of the two
/// middle values (as a sort gives them); NaN for no values.
pub(super) fn median_by(x: &[f64], f: impl Fn(f64) -> f64 + Copy) -> f64 {
    let n = x.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        return kth_of(n, n / 2, |i| f(x[i]));
    }
    if n >= BRACKET_MIN {
        if let Some(mut b) = Bracket::new(n, n / 2, |i| f(x[i])) {
            if let (Some(lo), Some(hi)) = (b.value_at(n / 2 - 1), b.value_at(n / 2)) {
                return 0.5 * (lo + hi);
            }
        }
    }
    median_keyed(x.iter().map(|&a| f(a)))
}

/// The two middle values of `x` in [`f64::total_cmp`] order, those a sort puts at indices
/// `(n - 1) / 2` and `n / 2` (one value twice for odd lengths),
/// without reordering `x`; `None` for no values.
pub(super) fn middle_values(x: &[f64]) -> Option<(f64, f64)> {
    let n = x.len();
    if n == 0 {
        return None;
    }
    let (a, b) = ((n - 1) / 2, n / 2);
    if n >= BRACKET_MIN {
        if let Some(mut br) = Bracket::new(n, b, |i| x[i]) {
            if let (Some(lo), Some(hi)) = (br.value_at(a), br.value_at(b)) {
                return Some((lo, hi));
            }
        }
    }
    let mut v: Vec<i64> = x.iter().map(|&a| key(a)).collect();
    let (left, mid, _) = v.select_nth_unstable(b);
    let hi = *mid;
    let lo = if a == b {
        hi
    } else {
        left.iter().copied().max().unwrap_or(hi)
    };
    Some((value(lo), value(hi)))
}

/// [`median_by`]'s value of the values `v` yields, selected among their [`key`]s (whose
/// integer order is [`f64::total_cmp`]'s, so the value is the same bit for bit) in one buffer
/// kept per thread: the detector takes thousands of short medians (its blocks, the periodic
/// search's blocks and dips), and keys with no allocation each save some 5% of its time.
fn median_keyed(v: impl IntoIterator<Item = f64>) -> f64 {
    thread_local! {
        static KEYS: std::cell::RefCell<Vec<i64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    KEYS.with(|cell| {
        // Never re-entered (the values are plain numbers); a fresh buffer if it ever were.
        let mut own = Vec::new();
        let mut held = cell.try_borrow_mut();
        let buf = match held.as_deref_mut() {
            Ok(b) => b,
            Err(_) => &mut own,
        };
        buf.clear();
        buf.extend(v.into_iter().map(key));
        let n = buf.len();
        if n == 0 {
            return f64::NAN;
        }
        let (left, mid, _) = buf.select_nth_unstable(n / 2);
        let mid = value(*mid);
        if n % 2 == 1 {
            return mid;
        }
        // The lower middle value is the largest of those the selection left below.
        let below = left.iter().copied().max().map_or(mid, value);
        0.5 * (below + mid)
    })
}

/// One pass over a series against two bounds taken from a sample: how many values fall below
/// the lower bound, and the keys of those between the bounds (both included). When the bounds
/// are one value (a series with a long run of it), only how many equal it.
struct Bracket {
    /// The lower bound's key.
    lo: i64,
    /// Values below `lo`.
    below: usize,
    /// Values equal to `lo` when both bounds are `lo` (nothing is kept then).
    at_lo: usize,
    /// Keys of the values from `lo` to the upper bound, both included (when the bounds
    /// differ).
    between: Vec<i64>,
}

impl Bracket {
    /// The bracket about rank `k` of the `n` values `g(i)`, or `None` when the sample cannot
    /// put bounds on both sides of it (a rank within [`REACH`] sample ranks of either end) or
    /// when far more values than expected fall between the bounds (long runs of equal values).
    fn new(n: usize, k: usize, g: impl Fn(usize) -> f64 + Copy) -> Option<Bracket> {
        // One value from each of SAMPLE equal strata, at a pseudo-random place in it (a fixed
        // linear congruential sequence, so that the same series always takes the same path):
        // as good as a random sample, even for a series that repeats with some period, and
        // read in order.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut sample: Vec<i64> = (0..SAMPLE)
            .map(|j| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let (s, e) = (j * n / SAMPLE, (j + 1) * n / SAMPLE);
                let at = s + (((state >> 32) as usize * (e - s)) >> 32);
                key(g(at))
            })
            .collect();
        let r = k * SAMPLE / n;
        if r < REACH || r + REACH >= SAMPLE {
            return None;
        }
        // The two sample ranks by selection, not a sort: the upper one first, then the lower
        // one among the values the first selection left below it.
        let hi = *sample.select_nth_unstable(r + REACH).1;
        let lo = *sample[..r + REACH].select_nth_unstable(r - REACH).1;
        let mut below = 0usize;
        if lo == hi {
            let mut at_lo = 0usize;
            for i in 0..n {
                let kv = key(g(i));
                below += usize::from(kv < lo);
                at_lo += usize::from(kv == lo);
            }
            return Some(Bracket {
                lo,
                below,
                at_lo,
                between: Vec::new(),
            });
        }
        // Expected between: 2 * REACH / SAMPLE of the values; four times that is a series the
        // sample misjudged (or one of few distinct values), better selected whole.
        let cap = 8 * REACH * n / SAMPLE + CHUNK;
        let mut between: Vec<i64> = Vec::with_capacity(3 * REACH * n / SAMPLE);
        // `lo <= kv <= hi` as one unsigned comparison (`lo < hi`).
        let width = hi.wrapping_sub(lo) as u64;
        let mut chunk = [0i64; CHUNK];
        for s in (0..n).step_by(CHUNK) {
            let mut len = 0usize;
            for i in s..(s + CHUNK).min(n) {
                let kv = key(g(i));
                below += usize::from(kv < lo);
                // Written always, kept when between: no branch on the data. `len` is at most
                // the index in the chunk, so the mask never changes it.
                chunk[len & (CHUNK - 1)] = kv;
                len += usize::from(kv.wrapping_sub(lo) as u64 <= width);
            }
            between.extend_from_slice(&chunk[..len]);
            if between.len() > cap {
                return None;
            }
        }
        Some(Bracket {
            lo,
            below,
            at_lo: 0,
            between,
        })
    }

    /// The value at rank `r` of the series, when the counts place it between the bounds
    /// (`None`: below the lower bound or above the upper one).
    fn value_at(&mut self, r: usize) -> Option<f64> {
        let r = r.checked_sub(self.below)?;
        if r < self.at_lo {
            return Some(value(self.lo));
        }
        (r < self.between.len()).then(|| value(*self.between.select_nth_unstable(r).1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), for the series below.
    fn series(n: usize, seed: u64, f: impl Fn(usize, f64) -> f64) -> Vec<f64> {
        let mut s = seed | 1;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                f(i, (s >> 11) as f64 / (1u64 << 53) as f64)
            })
            .collect()
    }

    /// What a sort gives at index `k`.
    fn sorted_kth(x: &[f64], k: usize, f: impl Fn(f64) -> f64) -> f64 {
        let mut v: Vec<f64> = x.iter().map(|&a| f(a)).collect();
        v.sort_by(f64::total_cmp);
        v[k]
    }

    #[test]
    fn the_key_orders_as_total_cmp_does() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for &a in &v {
            assert_eq!(value(key(a)).to_bits(), a.to_bits());
            for &b in &v {
                assert_eq!(key(a).cmp(&key(b)), a.total_cmp(&b), "{a} against {b}");
            }
        }
    }

    /// Long series of every kind the detector meets, each at the median, the quartiles and a
    /// rank near the ends: the bracketed value is the sorted one, bit for bit.
    #[test]
    fn bracketed_ranks_are_what_a_sort_gives() {
        let n = 3 * BRACKET_MIN + 17;
        let kinds: Vec<(&str, Vec<f64>)> = vec![
            ("uniform", series(n, 1, |_, u| u)),
            (
                "two levels",
                series(n, 2, |i, u| if i < n / 3 { 21.0 + u } else { 20.0 + u }),
            ),
            ("sorted", (0..n).map(|i| i as f64).collect()),
            ("descending", (0..n).map(|i| -(i as f64)).collect()),
            (
                "periodic",
                (0..n).map(|i| ((i % 2048) as f64).sin()).collect(),
            ),
            ("few values", series(n, 3, |_, u| (u * 3.0).floor())),
            ("constant", vec![7.5; n]),
            (
                "mostly one value",
                series(n, 4, |_, u| if u < 0.9 { 1.0 } else { u }),
            ),
            (
                "signed zeros and specials",
                series(n, 5, |i, u| match i % 7 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => f64::NAN,
                    3 => f64::NEG_INFINITY,
                    _ => u - 0.5,
                }),
            ),
        ];
        for (name, x) in &kinds {
            for k in [0, 5, n / 4, n / 2 - 1, n / 2, 3 * n / 4, n - 1] {
                assert_eq!(
                    kth_of(x.len(), k, |i| x[i]).to_bits(),
                    sorted_kth(x, k, |a| a).to_bits(),
                    "{name}, rank {k}"
                );
                let dev = |a: f64| (a - 0.25).abs();
                assert_eq!(
                    kth_of(x.len(), k, |i| dev(x[i])).to_bits(),
                    sorted_kth(x, k, dev).to_bits(),
                    "{name}, rank {k} of the deviations"
                );
            }
            for len in [n, n - 1, 1, 2, 1000, 1001] {
                let x = &x[..len];
                let mut v = x.to_vec();
                v.sort_by(f64::total_cmp);
                let (lo, hi) = middle_values(x).expect("values");
                assert_eq!(
                    (lo.to_bits(), hi.to_bits()),
                    (v[(len - 1) / 2].to_bits(), v[len / 2].to_bits()),
                    "{name}, middle values of {len}"
                );
                let want = if len % 2 == 1 {
                    v[len / 2]
                } else {
                    0.5 * (v[len / 2 - 1] + v[len / 2])
                };
                assert_eq!(
                    median_by(x, |a| a).to_bits(),
                    want.to_bits(),
                    "{name}, median of {len}"
                );
            }
        }
    }

    /// The median of short series is the sorted one, bit for bit: random lengths (odd, even,
    /// one, none) with ties, signed zeros, infinities and NaNs of both signs.
    #[test]
    fn short_medians_are_what_a_sort_gives() {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..5000 {
            let n = match case % 3 {
                0 => (next() % 40) as usize,
                _ => (next() % 700) as usize,
            };
            let v: Vec<f64> = (0..n)
                .map(|_| match next() % 10 {
                    0 => specials[(next() % 6) as usize],
                    // Few distinct values: ties.
                    1..=3 => (next() % 4) as f64 - 1.5,
                    _ => (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5,
                })
                .collect();
            let mut s = v.clone();
            s.sort_by(f64::total_cmp);
            let want = if n == 0 {
                f64::NAN
            } else if n % 2 == 1 {
                s[n / 2]
            } else {
                0.5 * (s[n / 2 - 1] + s[n / 2])
            };
            let got = median_by(&v, |a| a);
            assert_eq!(got.to_bits(), want.to_bits(), "case {case}: {v:?}");
        }
    }

    /// The bracket, not the fallback, answers for an ordinary long series, and keeps about a
    /// tenth of it; a series of one value leaves it to the fallback.
    #[test]
    fn the_bracket_keeps_a_tenth_and_knows_when_it_cannot() {
        let n = 4 * BRACKET_MIN;
        let x = series(n, 9, |_, u| u);
        let b = Bracket::new(n, n / 2, |i| x[i]).expect("a bracket for a uniform series");
        assert!(b.between.len() < n / 8, "kept {} of {n}", b.between.len());
        assert!(b.below <= n / 2 && n / 2 < b.below + b.between.len());
        // All one value: both bounds are that value and the counts place every rank on it.
        let c = vec![3.0; n];
        let mut b = Bracket::new(n, n / 2, |i| c[i]).expect("a bracket of one value");
        assert_eq!(b.at_lo, n);
        assert_eq!(b.value_at(n / 2), Some(3.0));
        // A rank the sample cannot bracket from both sides.
        assert!(Bracket::new(n, 3, |i| x[i]).is_none());
        assert_eq!(middle_values(&[]), None);
    }
}
