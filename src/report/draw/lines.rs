//! Lines in pixels: the paths of a series cut to a box around the plot ([`plot_paths`]),
//! stroked solid or dashed, split where they turn back on themselves.

use super::*;

/// The pixel paths, in the plot's own coordinates (`w` by `h` pixels, y down), of a line given
/// as fractions of the plot (0 to 1 inside it, as [`frac`] gives them), cut to a box one plot
/// size beyond each edge.
///
/// What lies inside the box is placed exactly as [`Px`] places it; a segment that leaves the
/// box ends where it crosses the box's edge, and one that never enters it is left out, as is a
/// point that is not a number. So no path drawn is longer than a few plot sizes whatever its
/// data (a value a billion times the axis range made a dashed line of 2^31 pixels, 10^8
/// dashes); what shows inside the plot is the same.
pub(crate) fn plot_paths(fracs: &[(f64, f64)], w: i32, h: i32) -> Vec<Vec<(i32, i32)>> {
    let (wf, hf) = (w as f64, h as f64);
    let m = w.max(h).max(1) as f64;
    let (x0, x1, y0, y1) = (-m, wf + m, -m, hf + m);
    let float = |q: (f64, f64)| (q.0 * wf, hf - q.1 * hf);
    let inside = |p: (f64, f64)| p.0 >= x0 && p.0 <= x1 && p.1 >= y0 && p.1 <= y1;
    // As Px places a point: the fraction of the plot, rounded.
    let exact = |q: (f64, f64)| ((q.0 * wf).round() as i32, h - (q.1 * hf).round() as i32);
    let round = |p: (f64, f64)| (p.0.round() as i32, p.1.round() as i32);
    let mut out: Vec<Vec<(i32, i32)>> = Vec::new();
    let mut cur: Vec<(i32, i32)> = Vec::new();
    let flush = |cur: &mut Vec<(i32, i32)>, out: &mut Vec<Vec<(i32, i32)>>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    let mut prev: Option<((f64, f64), (f64, f64))> = None;
    for &q in fracs {
        let b = float(q);
        if !(b.0.is_finite() && b.1.is_finite()) {
            flush(&mut cur, &mut out);
            prev = None;
            continue;
        }
        let Some((pq, a)) = prev.replace((q, b)) else {
            if inside(b) {
                cur.push(exact(q));
            }
            continue;
        };
        // Liang-Barsky: the part of a->b inside the box, as t0..t1 of its length.
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let mut visible = true;
        for (pk, qk) in [
            (-dx, a.0 - x0),
            (dx, x1 - a.0),
            (-dy, a.1 - y0),
            (dy, y1 - a.1),
        ] {
            if pk == 0.0 {
                if qk < 0.0 {
                    visible = false;
                }
            } else if pk < 0.0 {
                t0 = t0.max(qk / pk);
            } else {
                t1 = t1.min(qk / pk);
            }
        }
        if !visible || t0 > t1 {
            flush(&mut cur, &mut out);
            continue;
        }
        // On the box's edge; clamped, since with ends of 1e300 the sum loses every digit.
        let at = |t: f64| ((a.0 + t * dx).clamp(x0, x1), (a.1 + t * dy).clamp(y0, y1));
        // Which end lies inside is read off the ends themselves: with ends of 1e300, t is 0
        // or 1 to the last digit for an end far outside.
        if !inside(a) {
            flush(&mut cur, &mut out);
            cur.push(round(at(t0)));
        } else if cur.is_empty() {
            cur.push(exact(pq));
        }
        if inside(b) {
            cur.push(exact(q));
        } else {
            cur.push(round(at(t1)));
            flush(&mut cur, &mut out);
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// Strokes a polyline, solid or dashed (dashes follow the path's length).
pub(super) fn stroke<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pts: Vec<(i32, i32)>,
    st: &LineStyle,
    scale: f64,
) -> Result<()> {
    let sh = shape(st, scale);
    match st.dash {
        Dash::Solid => {
            for part in split_at_reversals(pts, sh.stroke_width) {
                area.draw(&PathElement::new(part, sh)).map_err(err)?;
            }
            Ok(())
        }
        Dash::Dashed { on, off } => {
            let (on, off) = (on as f64 * scale, off as f64 * scale);
            let mut dash: Vec<(i32, i32)> = Vec::new();
            let mut drawing = true;
            let mut left = on;
            for w in pts.windows(2) {
                let (a, b) = (
                    (w[0].0 as f64, w[0].1 as f64),
                    (w[1].0 as f64, w[1].1 as f64),
                );
                let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
                let mut pos = 0.0;
                if drawing && dash.is_empty() {
                    dash.push(w[0]);
                }
                while len - pos > left {
                    pos += left;
                    let t = pos / len;
                    let q = (
                        (a.0 + t * (b.0 - a.0)).round() as i32,
                        (a.1 + t * (b.1 - a.1)).round() as i32,
                    );
                    if drawing {
                        dash.push(q);
                        area.draw(&PathElement::new(std::mem::take(&mut dash), sh))
                            .map_err(err)?;
                        left = off;
                    } else {
                        dash.push(q);
                        left = on;
                    }
                    drawing = !drawing;
                }
                left -= len - pos;
                if drawing {
                    dash.push(w[1]);
                }
            }
            if drawing && dash.len() > 1 {
                area.draw(&PathElement::new(dash, sh)).map_err(err)?;
            }
            Ok(())
        }
    }
}

/// Splits a polyline wherever it turns back on itself (more than 120 degrees). plotters joins
/// wide lines with unlimited miters, so the zig-zag of a min/max envelope would grow long
/// spikes past the data; drawn as separate pieces, each corner is only as wide as the line.
/// Lines one pixel wide are returned whole.
pub fn split_at_reversals(mut pts: Vec<(i32, i32)>, width: u32) -> Vec<Vec<(i32, i32)>> {
    pts.dedup();
    if width <= 1 || pts.len() < 3 {
        return vec![pts];
    }
    let mut out = Vec::new();
    let mut cur = vec![pts[0]];
    for i in 1..pts.len() {
        cur.push(pts[i]);
        if i + 1 < pts.len() {
            let u = (
                (pts[i].0 - pts[i - 1].0) as f64,
                (pts[i].1 - pts[i - 1].1) as f64,
            );
            let v = (
                (pts[i + 1].0 - pts[i].0) as f64,
                (pts[i + 1].1 - pts[i].1) as f64,
            );
            let (nu, nv) = (
                (u.0 * u.0 + u.1 * u.1).sqrt(),
                (v.0 * v.0 + v.1 * v.1).sqrt(),
            );
            if nu > 0.0 && nv > 0.0 && (u.0 * v.0 + u.1 * v.1) / (nu * nv) < -0.5 {
                out.push(std::mem::replace(&mut cur, vec![pts[i]]));
            }
        }
    }
    if cur.len() > 1 {
        out.push(cur);
    }
    out
}
