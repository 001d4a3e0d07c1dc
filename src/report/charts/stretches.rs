//! The stretches a throughput chart marks or enlarges, found from the timeline and its
//! analysis: the range of the zoomed charts and a gradual drop in a run without a cliff (the
//! throttled stretches are the analysis's own, `detect::throttled_spans`).

use crate::detect::Analysis;
use crate::report::draw::decimate::smooth;
use crate::timeline::Timeline;

use super::*;

/// Where a run's smoothed line breaks, as (time s, bytes written; `NaN` where not known),
/// in time order: each cliff, each return of the cache, and a drop inside the first sample,
/// placed inside that sample, so that the line takes no value of the sample it falls in (it
/// drew the first sample of `emu:960evo-250g,cache=1GB` at the 300 MB/s after the drop).
pub fn smoothing_breaks(a: &Analysis) -> Vec<(f64, f64)> {
    let mut breaks: Vec<(f64, f64)> = a
        .cliffs
        .iter()
        .map(|c| (c.t_s, c.bytes_written as f64))
        .collect();
    breaks.extend(a.returns.iter().map(|r| (r.t_s, r.bytes_before as f64)));
    if let Some(d) = a
        .unconfirmed_drop
        .as_ref()
        .filter(|d| d.at == crate::detect::DropWhere::FirstSample && d.t_high_s > d.t_s)
    {
        breaks.push((0.5 * (d.t_s + d.t_high_s), f64::NAN));
    }
    breaks.sort_by(|x, y| x.0.total_cmp(&y.0));
    breaks
}

/// Where the zoomed charts end, when the cliffs sit in a small part of a long run: the time
/// (seconds) and the data written (bytes) a little after the last cliff. `None` when the full
/// charts already show the cliffs well (they take more than 40% of the width).
pub fn zoom_range(t: &Timeline, a: &Analysis) -> Option<(f64, f64)> {
    let last = a.cliffs.last()?;
    let dur = t.duration_s();
    let total = t.bytes_total() as f64;
    if dur <= 0.0 || total <= 0.0 {
        return None;
    }
    // The cache phase and the first minutes after the last cliff (at least 3 minutes, or half
    // as long again as the time to the cliff).
    let end_s = (last.t_s + (0.5 * last.t_s).max(180.0)).min(dur);
    let end_b = bytes_at(t, end_s)
        .max(1.25 * last.bytes_written as f64)
        .min(total);
    (end_s < 0.4 * dur && end_b < 0.6 * total).then_some((end_s, end_b))
}

/// "5.1 min", "40 s", "2.5 h": a duration rounded to what a reader needs.
pub fn round_duration(s: f64) -> String {
    let num = |v: f64| {
        if v >= 10.0 {
            format!("{v:.0}")
        } else {
            trim_num(v, 1)
        }
    };
    if s < 1.0 {
        format!("{} ms", num(s * 1000.0))
    } else if s < 120.0 {
        format!("{} s", num(s))
    } else if s < 7200.0 {
        format!("{} min", num(s / 60.0))
    } else {
        format!("{} h", num(s / 3600.0))
    }
}

/// A visible slow-down in a run without a cliff: (time s, rate before, rate after) where the
/// smoothed line first falls below the midpoint between its first and last tenth, when the
/// last tenth is at most 75% of the first.
pub fn gradual_drop(rows: &[(f64, f64, f64, f64, f64)]) -> Option<(f64, f64, f64)> {
    let sm = smooth(rows, &[])?;
    let n = sm.points.len();
    let k = (n / 10).max(1);
    let med = |v: &[(f64, f64, f64)]| {
        let mut x: Vec<f64> = v.iter().map(|p| p.2).collect();
        x.sort_by(f64::total_cmp);
        x[x.len() / 2]
    };
    let (first, last) = (med(&sm.points[..k]), med(&sm.points[n - k..]));
    if first.is_nan() || first <= 0.0 || last > 0.75 * first {
        return None;
    }
    let mid = 0.5 * (first + last);
    let at = sm.points.iter().find(|p| p.2 < mid)?;
    Some((at.0, first, last))
}
