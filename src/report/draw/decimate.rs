//! Reducing long series to what a chart can show without losing what matters.
//!
//! A 24-hour run at 100 ms has 864,000 samples; a chart 1600 pixels wide can show at most two
//! values per pixel column. [`envelope`] keeps, for every column, the smallest and the largest
//! value in the order they occurred, so a one-sample garbage-collection dip (or a latency spike)
//! always reaches the chart. [`smooth`] computes the smoothed line: block medians and a moving
//! median over them, which keeps a cliff's edge sharp and only takes values that samples have.

/// Reduces `points` (sorted by x) to at most two points per column of `columns` equal-width
/// x bins between `x_min` and `x_max`: each bin's minimum and maximum y, in the order they came.
/// Returns the points unchanged when there are no more than `2 * columns` of them.
pub fn envelope(points: &[(f64, f64)], x_min: f64, x_max: f64, columns: usize) -> Vec<(f64, f64)> {
    let columns = columns.max(1);
    if points.len() <= 2 * columns || x_max <= x_min {
        return points.to_vec();
    }
    let width = (x_max - x_min) / columns as f64;
    let bin_of = |x: f64| (((x - x_min) / width).floor().max(0.0) as usize).min(columns - 1);
    let mut out = Vec::with_capacity(2 * columns);
    let mut i = 0;
    while i < points.len() {
        let bin = bin_of(points[i].0);
        let (mut lo, mut hi) = (i, i);
        let mut j = i + 1;
        while j < points.len() && bin_of(points[j].0) == bin {
            if points[j].1 < points[lo].1 {
                lo = j;
            }
            if points[j].1 > points[hi].1 {
                hi = j;
            }
            j += 1;
        }
        if lo == hi {
            out.push(points[lo]);
        } else {
            let (a, b) = if lo < hi { (lo, hi) } else { (hi, lo) };
            out.push(points[a]);
            out.push(points[b]);
        }
        i = j;
    }
    out
}

/// One block of consecutive samples for the smoothed line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Block {
    /// Start of the block, seconds.
    pub t0: f64,
    /// End of the block, seconds.
    pub t1: f64,
    /// Bytes written before the block.
    pub b0: f64,
    /// Bytes written by the end of the block.
    pub b1: f64,
    /// The block's value (a rate in bytes/s, or whatever was smoothed).
    pub value: f64,
}

/// A smoothed line: the centres of the blocks with the moving median of the block values, and
/// the width of the median window in seconds (for the legend).
#[derive(Debug, Clone, PartialEq)]
pub struct Smoothed {
    /// (time at the block centre, bytes at the block centre, smoothed value).
    pub points: Vec<(f64, f64, f64)>,
    /// Seconds covered by one median window (typical).
    pub window_s: f64,
}

/// Most blocks a smoothed line is built from.
pub const MAX_BLOCKS: usize = 2000;

/// Smooths per-interval samples given as (interval start s, interval end s, bytes before,
/// bytes after, value): groups them into at most [`MAX_BLOCKS`] blocks of equal sample count
/// (each block's value is its median sample), then takes a moving median over `window` blocks, chosen
/// from the number of blocks (3 to 31, odd). The median window never reaches across a time in
/// `breaks` (the cliffs, as time in seconds and bytes written, sorted by time), so the line
/// stays sharp where the drive changed level instead of blurring one phase into the next; it
/// steps at each break, at the break's own bytes (a `NaN` byte count is interpolated within the
/// sample that holds the break). Returns `None` with fewer than 5 samples.
pub fn smooth(samples: &[(f64, f64, f64, f64, f64)], breaks: &[(f64, f64)]) -> Option<Smoothed> {
    let breaks_s: Vec<f64> = breaks.iter().map(|b| b.0).collect();
    if samples.len() < 5 {
        return None;
    }
    // A sample a break falls inside holds both levels: the line takes no value of it, and
    // carries each level to the break (p5-1tb at 30 s samples: the sample astride the cliff,
    // 1665 MB/s between 2000 and 1000, made the line run down from the cache's level to it).
    let all = samples;
    let astride = |x: &(f64, f64, f64, f64, f64)| {
        let margin = 1e-6 * (x.1 - x.0).abs();
        breaks_s
            .iter()
            .any(|&t| t > x.0 + margin && t < x.1 - margin)
    };
    let whole: Vec<(f64, f64, f64, f64, f64)> =
        samples.iter().filter(|x| !astride(x)).copied().collect();
    let samples = &whole[..];
    let n = samples.len();
    if n == 0 {
        return None;
    }
    let per_block = n.div_ceil(MAX_BLOCKS);
    // Segment of each sample: how many breaks lie at or before the sample's midpoint. Blocks
    // are cut within segments, so no block mixes two levels.
    let seg_of = |x: &(f64, f64, f64, f64, f64)| {
        let c = 0.5 * (x.0 + x.1);
        breaks_s.iter().filter(|&&t| t <= c).count()
    };
    let mut blocks: Vec<Block> = Vec::new();
    let mut seg: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < n {
        let sg = seg_of(&samples[start]);
        let mut end = start + 1;
        while end < n && seg_of(&samples[end]) == sg {
            end += 1;
        }
        for c in samples[start..end].chunks(per_block) {
            // The block's median sample (the lower one of an even count): a value a sample
            // has, never a mean of two levels.
            let mut vals: Vec<f64> = c.iter().map(|s| s.4).collect();
            vals.sort_by(|a, b| a.total_cmp(b));
            let value = vals[(vals.len() - 1) / 2];
            blocks.push(Block {
                t0: c[0].0,
                t1: c[c.len() - 1].1,
                b0: c[0].2,
                b1: c[c.len() - 1].3,
                value,
            });
            seg.push(sg);
        }
        start = end;
    }
    let nb = blocks.len();
    let mut window = (nb / 50).clamp(3, 31);
    if window.is_multiple_of(2) {
        window += 1;
    }
    let half = window / 2;
    let mut buf: Vec<f64> = Vec::with_capacity(window);
    let points = (0..nb)
        .map(|i| {
            let mut lo = i.saturating_sub(half);
            let mut hi = (i + half + 1).min(nb);
            while seg[lo] != seg[i] {
                lo += 1;
            }
            while seg[hi - 1] != seg[i] {
                hi -= 1;
            }
            // Cut short by a cliff on one side: take more on the other side, within the same
            // segment, so the window keeps its width...
            while hi - lo < window && hi < nb && seg[hi] == seg[i] {
                hi += 1;
            }
            while hi - lo < window && lo > 0 && seg[lo - 1] == seg[i] {
                lo -= 1;
            }
            // ...and an odd count, so the median is a middle value, not the lower of two
            // (which could be a dip): drop the block farthest from this one.
            if (hi - lo).is_multiple_of(2) {
                if i - lo >= hi - 1 - i {
                    lo += 1;
                } else {
                    hi -= 1;
                }
            }
            buf.clear();
            buf.extend(blocks[lo..hi].iter().map(|b| b.value));
            buf.sort_by(|a, b| a.total_cmp(b));
            // The lower median of an even count, so the line only takes values samples have.
            let med = buf[(buf.len() - 1) / 2];
            let b = &blocks[i];
            (0.5 * (b.t0 + b.t1), 0.5 * (b.b0 + b.b1), med)
        })
        .collect::<Vec<_>>();
    // At a break the line steps at the break itself: each segment is carried to it at its own
    // level, so the line does not start falling at the centre of the last block before a
    // cliff (a second and more than a GB early on a 1 s run).
    let at_break = |t: f64| -> f64 {
        all.iter()
            .find(|x| x.0 <= t && t <= x.1)
            .map(|x| {
                let f = if x.1 > x.0 {
                    (t - x.0) / (x.1 - x.0)
                } else {
                    0.0
                };
                x.2 + f * (x.3 - x.2)
            })
            .unwrap_or(f64::NAN)
    };
    let mut stepped = Vec::with_capacity(points.len() + 2 * breaks_s.len());
    for (i, &pt) in points.iter().enumerate() {
        if i > 0 && seg[i] != seg[i - 1] && seg[i] >= 1 {
            let (t, known) = breaks[seg[i] - 1];
            let b = if known.is_finite() {
                known
            } else {
                at_break(t)
            };
            let (prev, next) = (points[i - 1].2, pt.2);
            if b.is_finite() && t > points[i - 1].0 && t < pt.0 {
                stepped.push((t, b, prev));
                stepped.push((t, b, next));
            }
        }
        stepped.push(pt);
    }
    let points = stepped;
    let total_t = blocks[nb - 1].t1 - blocks[0].t0;
    let window_s = total_t / nb as f64 * window as f64;
    Some(Smoothed { points, window_s })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_keeps_a_single_dip_and_bounds_the_count() {
        let mut pts: Vec<(f64, f64)> = (0..1_000_000).map(|i| (i as f64, 100.0)).collect();
        pts[654_321].1 = 3.0;
        pts[10].1 = 500.0;
        let out = envelope(&pts, 0.0, 999_999.0, 1600);
        assert!(out.len() <= 3200, "{}", out.len());
        assert!(out.iter().any(|p| p.1 == 3.0 && p.0 == 654_321.0));
        assert!(out.iter().any(|p| p.1 == 500.0));
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn smoothing_does_not_cross_a_cliff() {
        // 10 samples at 5000, then 2000 at 3500: a wide median window would pull the first
        // phase down to 3500; with the cliff as a break it stays at 5000.
        let s: Vec<(f64, f64, f64, f64, f64)> = (0..2010)
            .map(|i| {
                let v = if i < 10 { 5000.0 } else { 3500.0 };
                (i as f64, i as f64 + 1.0, 0.0, 0.0, v)
            })
            .collect();
        let with = smooth(&s, &[(10.0, f64::NAN)]).unwrap();
        assert!(
            with.points.iter().take(5).all(|p| p.2 == 5000.0),
            "{:?}",
            &with.points[..5]
        );
        let without = smooth(&s, &[]).unwrap();
        assert!(without.points.iter().take(5).any(|p| p.2 == 3500.0));
    }

    /// The smoothed line once started falling at the centre of the last block
    /// before the cliff (1.4 GB early on the data chart); it now keeps its level up to the
    /// cliff and steps there.
    #[test]
    fn the_smoothed_line_steps_at_the_cliff() {
        // 1 s samples of 1 GB/s: 20 at 5000, then 40 at 3500; the cliff at 20.4 s.
        let s: Vec<(f64, f64, f64, f64, f64)> = (0..60)
            .map(|i| {
                let v = if i < 20 { 5000.0 } else { 3500.0 };
                let (t0, t1) = (i as f64, i as f64 + 1.0);
                (t0, t1, t0 * 1e9, t1 * 1e9, v)
            })
            .collect();
        let sm = smooth(&s, &[(20.4, f64::NAN)]).unwrap();
        // No point between the last level's block centre and the cliff falls below 5000.
        for w in sm.points.windows(2) {
            let ((t0, _, v0), (t1, _, v1)) = (w[0], w[1]);
            if v0 != v1 {
                assert_eq!(t0, t1, "the line changes level only at one x: {w:?}");
                assert!((t0 - 20.4).abs() < 1e-9, "{w:?}");
            }
        }
        let at = sm.points.iter().find(|p| p.0 == 20.4).unwrap();
        assert!((at.1 - 20.4e9).abs() < 1.0, "bytes at the break: {}", at.1);
    }

    #[test]
    fn smoothed_values_are_sample_values() {
        // A cliff between two noisy levels, at a block boundary that mixes both levels (7
        // samples per block): block means would show values between the levels.
        let s: Vec<(f64, f64, f64, f64, f64)> = (0..14_001)
            .map(|i| {
                let base = if i < 5003 { 5000.0 } else { 3500.0 };
                let v = base + ((i * 37) % 11) as f64;
                (i as f64, i as f64 + 1.0, 0.0, 0.0, v)
            })
            .collect();
        let sm = smooth(&s, &[]).unwrap();
        for p in &sm.points {
            assert!(s.iter().any(|x| x.4 == p.2), "{} is no sample's value", p.2);
        }
    }

    #[test]
    fn envelope_leaves_short_series_alone() {
        let pts = vec![(0.0, 1.0), (1.0, 2.0), (2.0, 0.5)];
        assert_eq!(envelope(&pts, 0.0, 2.0, 10), pts);
    }

    #[test]
    fn smoothing_keeps_a_step_sharp() {
        let s: Vec<_> = (0..60)
            .map(|i| {
                let v = if i < 20 { 1000.0 } else { 400.0 };
                (i as f64, i as f64 + 1.0, 0.0, 0.0, v)
            })
            .collect();
        let sm = smooth(&s, &[]).unwrap();
        assert_eq!(sm.points.len(), 60);
        assert_eq!(sm.points[19].2, 1000.0);
        assert_eq!(sm.points[20].2, 400.0);
        assert!((sm.window_s - 3.0).abs() < 1e-9);
        assert!(smooth(&s[..4], &[]).is_none());
    }
}
