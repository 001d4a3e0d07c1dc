//! Drawing a [`ChartSpec`] as PNG (plotters' bitmap backend, encoded with the `png` crate) or
//! SVG ([`svg`]: text as glyph outlines, so it looks the same in every viewer). Text is
//! DejaVu Sans, embedded in the binary (see [`text`]); no system font is needed. Axes,
//! grid, ticks and their labels are drawn here from the spec's tick positions, so PNG and SVG
//! show the same numbers.

pub mod color;
pub mod decimate;
pub mod svg;
pub mod text;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Once;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use crate::report::charts::{
    font_px, legend_rows, legend_sample_w, tick_label, Axis, ChartSpec, Dash, LabelSide, Layout,
    LineStyle, Rgb, Theme, YSide, LEGEND_ROW_H,
};
use crate::report::draw::svg::{GlyphSvg, GroupCell};
use crate::report::draw::text::{Label, Style};

/// The colours of a theme.
#[derive(Debug, Clone, Copy)]
pub struct Colors {
    /// Background.
    pub bg: Rgb,
    /// Title.
    pub title: Rgb,
    /// Body text (subtitle, ticks, labels).
    pub text: Rgb,
    /// Footer text.
    pub footer: Rgb,
    /// Axis lines and ticks.
    pub axis: Rgb,
    /// Grid lines.
    pub grid: Rgb,
}

/// The colours of `theme`.
pub fn colors(theme: Theme) -> Colors {
    match theme {
        Theme::Light => Colors {
            bg: Rgb(255, 255, 255),
            title: Rgb(0, 0, 0),
            text: Rgb(35, 35, 35),
            footer: Rgb(70, 70, 70),
            axis: Rgb(60, 60, 60),
            grid: Rgb(222, 222, 222),
        },
        Theme::Dark => Colors {
            bg: Rgb(22, 24, 29),
            title: Rgb(245, 245, 245),
            text: Rgb(215, 215, 215),
            footer: Rgb(165, 165, 165),
            axis: Rgb(170, 170, 170),
            grid: Rgb(58, 61, 68),
        },
    }
}

/// A series colour as drawn in `theme`: on dark backgrounds black becomes near-white and the
/// dark blue lighter, so every line keeps its contrast.
pub fn ink(theme: Theme, c: Rgb) -> Rgb {
    use crate::report::charts::palette;
    match theme {
        Theme::Light => c,
        Theme::Dark if c == palette::BLACK => Rgb(235, 235, 235),
        Theme::Dark if c == palette::BLUE => Rgb(150, 150, 255),
        Theme::Dark => c,
    }
}

/// The CSS colour of an [`Rgb`].
pub fn css(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The font family name the charts use (and SVG files name).
pub const FONT: &str = "sans-serif";

static FONTS: Once = Once::new();

/// Registers DejaVu Sans (regular and bold) as [`FONT`] in plotters' ab_glyph font table, once
/// per process, for any text plotters draws itself.
pub fn register_fonts() {
    FONTS.call_once(|| {
        // The font bytes are the dejavu crate's own TTF files; they always parse.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn color(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

fn shape(s: &LineStyle, scale: f64) -> ShapeStyle {
    ShapeStyle {
        color: color(s.color).mix(s.alpha),
        filled: false,
        stroke_width: ((s.width * scale).round() as u32).max(1),
    }
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the chart: {e:?}")
}

/// Renders `spec` as a PNG file's bytes, `spec.size` pixels.
pub fn render_png(spec: &ChartSpec) -> Result<Vec<u8>> {
    register_fonts();
    let (w, h) = spec.size;
    let mut buf = vec![255u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        draw(&root, spec, &|_| {})?;
        root.present().map_err(err)?;
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Default);
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut wr = enc.write_header()?;
        wr.write_image_data(&buf)?;
    }
    Ok(out)
}

/// Renders `spec` as an SVG document: text as glyph outlines, and in comparisons each run's
/// lines and marks in a `<g class="run" data-run="i">`.
pub fn render_svg(spec: &ChartSpec) -> Result<String> {
    register_fonts();
    let group: GroupCell = Rc::new(Cell::new(None));
    let out = Rc::new(std::cell::RefCell::new(String::new()));
    {
        let backend = GlyphSvg::new(
            spec.size,
            &css(colors(spec.theme).bg),
            group.clone(),
            out.clone(),
        );
        let root = backend.into_drawing_area();
        draw(&root, spec, &|g| group.set(g))?;
        root.present().map_err(err)?;
    }
    let s = out.borrow().clone();
    Ok(s)
}

/// Maps chart units to pixels inside the plot rectangle.
#[derive(Debug, Clone, Copy)]
struct Px {
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

impl Px {
    fn x(&self, a: &Axis, v: f64) -> i32 {
        self.left + (frac(a, v) * (self.right - self.left) as f64).round() as i32
    }
    fn y(&self, a: &Axis, v: f64) -> i32 {
        self.bottom - (frac(a, v) * (self.bottom - self.top) as f64).round() as i32
    }
}

fn frac(a: &Axis, v: f64) -> f64 {
    if a.log {
        let (lo, hi) = (a.min.max(1e-300).ln(), a.max.max(1e-300).ln());
        (v.max(1e-300).ln() - lo) / (hi - lo)
    } else {
        (v - a.min) / (a.max - a.min)
    }
}

/// The layout a spec is drawn with (the header grows with the legend's rows).
pub fn layout_of(spec: &ChartSpec) -> Layout {
    Layout::new(spec.size, spec.y2.is_some(), spec.footer.len())
        .with_legend_rows(legend_rows(&spec.legend, spec.size).len())
}

/// The plot rectangle of a drawn spec: (left, top, right, bottom) in pixels.
pub fn plot_rect_of(spec: &ChartSpec) -> (i32, i32, i32, i32) {
    layout_of(spec).plot_rect()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    group: &dyn Fn(Option<usize>),
) -> Result<()> {
    let l = layout_of(spec);
    let th = spec.theme;
    let cs = colors(th);
    root.fill(&color(cs.bg)).map_err(err)?;
    draw_header(root, spec, &l)?;
    draw_footer(root, spec, &l)?;
    let (left, top, right, bottom) = l.plot_rect();
    let p = Px {
        left,
        top,
        right,
        bottom,
    };
    // Everything inside the plot is drawn on a clipped area in pixel coordinates.
    let plot = root
        .clone()
        .shrink((left, top), ((right - left) as u32, (bottom - top) as u32));
    let local = |x: i32, y: i32| (x - left, y - top);
    draw_grid(&plot, spec, &p, local)?;
    // Phases.
    let mut lighter = false;
    for (i, b) in spec.bands.iter().enumerate() {
        let (a, z) = (p.x(&spec.x, b.x0), p.x(&spec.x, b.x1));
        // Phases of the same kind in a row alternate in strength, so the boundary shows.
        lighter = i > 0 && spec.bands[i - 1].color == b.color && !lighter;
        let same_as_before = lighter;
        let boost = if th == Theme::Dark { 1.6 } else { 1.0 };
        plot.draw(&Rectangle::new(
            [local(a, top), local(z, bottom)],
            color(b.color)
                .mix(band_alpha(b.color) * boost * if same_as_before { 0.5 } else { 1.0 })
                .filled(),
        ))
        .map_err(err)?;
    }
    // Cliff intervals: at least 6 pixels wide so that the shading shows, and stronger than the
    // phase tints.
    let min_w = (6.0 * l.scale).round() as i32;
    for m in &spec.markers {
        if let Some((lo, hi)) = m.interval {
            let (a, z) = (p.x(&spec.x, lo), p.x(&spec.x, hi));
            let (a, z) = if z - a < min_w {
                let c = (a + z) / 2;
                (c - min_w / 2, c - min_w / 2 + min_w)
            } else {
                (a, z)
            };
            plot.draw(&Rectangle::new(
                [local(a, top), local(z, bottom)],
                color(ink(th, m.style.color)).mix(0.28).filled(),
            ))
            .map_err(err)?;
        }
    }
    // Series.
    for s in &spec.series {
        group(s.group);
        let axis = match (s.side, &spec.y2) {
            (YSide::Right, Some(a)) => a,
            _ => &spec.y,
        };
        let fracs: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|q| !axis.log || q.1 > 0.0)
            .map(|q| (frac(&spec.x, q.0), frac(axis, q.1)))
            .collect();
        let st = LineStyle {
            color: ink(th, s.style.color),
            ..s.style
        };
        let mut pieces = plot_paths(&fracs, right - left, bottom - top);
        if fracs.is_empty() {
            // As an empty series always was: one empty path.
            pieces.push(Vec::new());
        }
        for piece in pieces {
            stroke(&plot, piece, &st, l.scale)?;
        }
    }
    group(None);
    // Cliff lines.
    for m in &spec.markers {
        group(m.group);
        let x = p.x(&spec.x, m.x);
        let st = LineStyle {
            color: ink(th, m.style.color),
            ..m.style
        };
        stroke(&plot, vec![local(x, top), local(x, bottom)], &st, l.scale)?;
    }
    group(None);
    // Throttled stretches: a strip along the bottom of the plot.
    let strip = (9.0 * l.scale).round() as i32;
    for &(a, z) in &spec.throttled {
        let (a, z) = (p.x(&spec.x, a), p.x(&spec.x, z));
        plot.draw(&Rectangle::new(
            [local(a, bottom - strip), local(z.max(a + 2), bottom)],
            color(crate::report::charts::THROTTLE_STYLE.color)
                .mix(0.85)
                .filled(),
        ))
        .map_err(err)?;
    }
    draw_axes(root, spec, &p, &l)?;
    draw_zoom_mark(root, spec, &p, &l)?;
    draw_labels(root, spec, &p, &l, group)?;
    Ok(())
}

/// The stretch a zoomed chart enlarges: a bracket along the top of the plot and a thin
/// outline over the stretch, with a label box just right of it at the top.
fn draw_zoom_mark<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
) -> Result<()> {
    let Some(z) = &spec.zoom else {
        return Ok(());
    };
    let cs = colors(spec.theme);
    let s = l.scale;
    let a = p.x(&spec.x, z.x0);
    let b = p.x(&spec.x, z.x1).max(a + 3);
    let w = ((2.5 * s).round() as u32).max(1);
    root.draw(&Rectangle::new(
        [(a, p.top), (b, p.bottom)],
        color(cs.title).mix(0.7).stroke_width(1),
    ))
    .map_err(err)?;
    let y = p.top + (2.0 * s) as i32;
    let tick = (10.0 * s) as i32;
    root.draw(&PathElement::new(
        vec![(a, y + tick), (a, y), (b, y), (b, y + tick)],
        color(cs.title).stroke_width(w),
    ))
    .map_err(err)?;
    let f = l.font(font_px::LABEL);
    let st = Style::new(f).color(cs.title);
    let pad = (0.4 * f) as i32;
    let line_h = (1.25 * f) as i32;
    let bw = l.label_box_w(&z.lines).round() as i32;
    let bh = l.label_box_h(z.lines.len()).round() as i32;
    let gap = l.label_gap() as i32;
    let x0 = (b + gap).min(p.right - bw - 2);
    // Below the rows of cliff labels, if any.
    let rows = spec
        .markers
        .iter()
        .filter(|m| !m.lines.is_empty())
        .map(|m| m.row + 1)
        .max()
        .unwrap_or(0);
    let mut row_h = vec![0i32; rows];
    for m in spec.markers.iter().filter(|m| !m.lines.is_empty()) {
        row_h[m.row] = row_h[m.row].max(l.label_box_h(m.lines.len()).round() as i32);
    }
    let y0 = p.top + gap + row_h.iter().map(|h| h + gap).sum::<i32>();
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + bw, y0 + bh)],
        color(cs.bg).mix(0.92).filled(),
    ))
    .map_err(err)?;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + bw, y0 + bh)],
        color(cs.title).stroke_width(((1.5 * s).round() as u32).max(1)),
    ))
    .map_err(err)?;
    for (i, line) in z.lines.iter().enumerate() {
        let st = if i == 0 { st.bold() } else { st };
        root.draw(&Label::new(
            line.clone(),
            (x0 + pad, y0 + pad + i as i32 * line_h),
            st,
        ))
        .map_err(err)?;
    }
    Ok(())
}

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
fn stroke<DB: DrawingBackend>(
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

/// Tint strength of a phase band: grey (a steady run) lighter than the colours.
fn band_alpha(c: Rgb) -> f64 {
    if c == crate::report::charts::palette::GREY {
        0.07
    } else {
        0.14
    }
}

fn draw_grid<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    local: impl Fn(i32, i32) -> (i32, i32),
) -> Result<()> {
    let grid = color(colors(spec.theme).grid).stroke_width(1);
    for &t in &spec.x.ticks {
        let x = p.x(&spec.x, t);
        plot.draw(&PathElement::new(
            vec![local(x, p.top), local(x, p.bottom)],
            grid,
        ))
        .map_err(err)?;
    }
    for &t in &spec.y.ticks {
        let y = p.y(&spec.y, t);
        plot.draw(&PathElement::new(
            vec![local(p.left, y), local(p.right, y)],
            grid,
        ))
        .map_err(err)?;
    }
    Ok(())
}

fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    let cs = colors(spec.theme);
    let axis = color(cs.axis).stroke_width(((1.5 * s).round() as u32).max(1));
    let tick_len = (7.0 * s) as i32;
    let gap = (5.0 * s) as i32;
    let tick = Style::new(l.font(font_px::TICK)).color(cs.text);
    let desc = Style::new(l.font(font_px::AXIS)).color(cs.title);
    let mut lines = vec![
        vec![(p.left, p.top), (p.left, p.bottom)],
        vec![(p.left, p.bottom), (p.right, p.bottom)],
    ];
    if spec.y2.is_some() {
        lines.push(vec![(p.right, p.top), (p.right, p.bottom)]);
    }
    for ln in lines {
        root.draw(&PathElement::new(ln, axis)).map_err(err)?;
    }
    let tick_style = color(cs.axis).stroke_width(((1.2 * s).round() as u32).max(1));
    // x ticks and labels.
    for &t in &spec.x.ticks {
        let x = p.x(&spec.x, t);
        root.draw(&PathElement::new(
            vec![(x, p.bottom), (x, p.bottom + tick_len)],
            tick_style,
        ))
        .map_err(err)?;
        root.draw(&Label::new(
            tick_label(t),
            (x, p.bottom + tick_len + gap),
            tick.anchor(HPos::Center),
        ))
        .map_err(err)?;
    }
    let x_desc_y = p.bottom + tick_len + gap + tick.height() as i32 + (14.0 * s) as i32;
    root.draw(&Label::new(
        spec.x.label.clone(),
        ((p.left + p.right) / 2, x_desc_y),
        desc.anchor(HPos::Center),
    ))
    .map_err(err)?;
    // y ticks and labels, left.
    let mid_y = (p.top + p.bottom) / 2;
    let half = (tick.height() * 0.45) as i32;
    for &t in &spec.y.ticks {
        let y = p.y(&spec.y, t);
        root.draw(&PathElement::new(
            vec![(p.left - tick_len, y), (p.left, y)],
            tick_style,
        ))
        .map_err(err)?;
        root.draw(&Label::new(
            tick_label(t),
            (p.left - tick_len - gap, y - half),
            tick.anchor(HPos::Right),
        ))
        .map_err(err)?;
    }
    root.draw(&Label::new(
        spec.y.label.clone(),
        ((10.0 * s) as i32, mid_y),
        desc.anchor(HPos::Center).up(),
    ))
    .map_err(err)?;
    // Second axis, right.
    if let Some(y2) = &spec.y2 {
        for &t in &y2.ticks {
            let y = p.y(y2, t);
            root.draw(&PathElement::new(
                vec![(p.right, y), (p.right + tick_len, y)],
                tick_style,
            ))
            .map_err(err)?;
            root.draw(&Label::new(
                tick_label(t),
                (p.right + tick_len + gap, y - half),
                tick,
            ))
            .map_err(err)?;
        }
        root.draw(&Label::new(
            y2.label.clone(),
            (
                spec.size.0 as i32 - (10.0 * s) as i32 - desc.height() as i32,
                mid_y,
            ),
            desc.anchor(HPos::Center).up(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Fits `text` into `max_w` pixels: first by shrinking the font (down to 75%), then by cutting
/// the end with an ellipsis.
pub fn fit_text(text: &str, st: Style, max_w: f64) -> (String, Style) {
    if st.width(text) <= max_w {
        return (text.to_string(), st);
    }
    let smaller = Style {
        em: (st.em * max_w / st.width(text)).max(st.em * 0.75),
        ..st
    };
    if smaller.width(text) <= max_w {
        return (text.to_string(), smaller);
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let t: String = chars.iter().collect::<String>().trim_end().to_string() + "…";
        if smaller.width(&t) <= max_w {
            return (t, smaller);
        }
    }
    (String::new(), smaller)
}

fn draw_header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    let cs = colors(spec.theme);
    let x0 = (24.0 * s) as i32;
    let max_w = spec.size.0 as f64 - 2.0 * x0 as f64;
    let (title, st) = fit_text(
        &spec.title,
        Style::new(l.font(font_px::TITLE)).bold().color(cs.title),
        max_w,
    );
    root.draw(&Label::new(title, (x0, (16.0 * s) as i32), st))
        .map_err(err)?;
    let (sub, st) = fit_text(
        &spec.subtitle,
        Style::new(l.font(font_px::SUBTITLE)).color(cs.text),
        max_w,
    );
    root.draw(&Label::new(sub, (x0, (58.0 * s) as i32), st))
        .map_err(err)?;
    // Legend: rows of entries, each a line sample (or a swatch for a shaded phase) and its
    // name.
    let st = Style::new(l.font(font_px::LEGEND)).color(cs.text);
    for (r, row) in legend_rows(&spec.legend, spec.size).iter().enumerate() {
        let y = ((94.0 + LEGEND_ROW_H * r as f64) * s) as i32;
        let mid = y + (st.height() * 0.42) as i32;
        let mut x = x0;
        for &i in row {
            let e = &spec.legend[i];
            let sw = legend_sample_w(e, s) as i32;
            if e.swatch {
                let h = (st.height() * 0.8) as i32;
                let boost = if spec.theme == Theme::Dark { 1.6 } else { 1.0 };
                let alpha = if e.style == crate::report::charts::THROTTLE_STYLE {
                    0.85
                } else {
                    (band_alpha(e.style.color) * 2.5 * boost).min(1.0)
                };
                root.draw(&Rectangle::new(
                    [(x, mid - h / 2), (x + sw, mid + h / 2)],
                    color(e.style.color).mix(alpha).filled(),
                ))
                .map_err(err)?;
            } else {
                let st2 = LineStyle {
                    color: ink(spec.theme, e.style.color),
                    ..e.style
                };
                stroke(root, vec![(x, mid), (x + sw, mid)], &st2, s)?;
            }
            x += sw + (8.0 * s) as i32;
            let room = (x0 as f64 + max_w) - x as f64;
            let (name, st) = fit_text(&e.name, st, room.max(0.0));
            root.draw(&Label::new(name.clone(), (x, y), st))
                .map_err(err)?;
            x += st.width(&name) as i32 + (30.0 * s) as i32;
        }
    }
    Ok(())
}

fn draw_footer<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    let st = Style::new(l.font(font_px::FOOTER)).color(colors(spec.theme).footer);
    let top = spec.size.1 as i32 - l.footer_h as i32 + (4.0 * s) as i32;
    for (i, line) in spec.footer.iter().enumerate() {
        let (line, st) = fit_text(line, st, spec.size.0 as f64 - 48.0 * s);
        root.draw(&Label::new(
            line,
            ((24.0 * s) as i32, top + (i as f64 * 22.0 * s) as i32),
            st,
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Marker labels in their rows at the top; band labels where they hide no data.
fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
    group: &dyn Fn(Option<usize>),
) -> Result<()> {
    let f = l.font(font_px::LABEL);
    let cs = colors(spec.theme);
    let st = Style::new(f).color(cs.title);
    let gap = l.label_gap() as i32;
    let pad = (0.4 * f) as i32;
    let line_h = (1.25 * f) as i32;
    let rows = spec
        .markers
        .iter()
        .filter(|m| !m.lines.is_empty())
        .map(|m| m.row + 1)
        .max()
        .unwrap_or(0);
    let mut row_h = vec![0i32; rows];
    for m in spec.markers.iter().filter(|m| !m.lines.is_empty()) {
        row_h[m.row] = row_h[m.row].max(l.label_box_h(m.lines.len()).round() as i32);
    }
    let boxes: Vec<(i32, i32, i32, i32)> = spec
        .markers
        .iter()
        .map(|m| {
            if m.lines.is_empty() {
                return (0, 0, -1, -1);
            }
            let bw = l.label_box_w(&m.lines).round() as i32;
            let bh = l.label_box_h(m.lines.len()).round() as i32;
            let xm = p.x(&spec.x, m.x);
            let x0 = match m.side {
                LabelSide::Right => xm + gap,
                LabelSide::Left => xm - gap - bw,
            }
            .clamp(p.left + 2, (p.right - bw - 2).max(p.left + 2));
            let y0 = p.top + gap + row_h[..m.row].iter().map(|h| h + gap).sum::<i32>();
            (x0, y0, x0 + bw, y0 + bh)
        })
        .collect();
    draw_band_labels(root, spec, p, l, &boxes)?;
    for (m, &(x0, y0, x1, y1)) in spec.markers.iter().zip(&boxes) {
        if m.lines.is_empty() {
            continue;
        }
        group(m.group);
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            color(cs.bg).mix(0.92).filled(),
        ))
        .map_err(err)?;
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            ShapeStyle {
                color: color(ink(spec.theme, m.style.color)).mix(1.0),
                filled: false,
                stroke_width: ((1.5 * l.scale).round() as u32).max(1),
            },
        ))
        .map_err(err)?;
        for (i, line) in m.lines.iter().enumerate() {
            let s = if i == 0 { st.bold() } else { st };
            root.draw(&Label::new(
                line.clone(),
                (x0 + pad, y0 + pad + i as i32 * line_h),
                s,
            ))
            .map_err(err)?;
        }
    }
    group(None);
    Ok(())
}

/// Each band's label goes just above the highest point of the lines over the label, or just
/// below the lowest, or at the bottom, whichever first fits inside the plot without covering a
/// cliff label; so it does not hide the data it describes.
fn draw_band_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
    boxes: &[(i32, i32, i32, i32)],
) -> Result<()> {
    let f = l.font(font_px::LABEL);
    let cs = colors(spec.theme);
    let st = Style::new(f).color(cs.text);
    let gap = l.label_gap() as i32;
    let pad = (0.4 * f) as i32;
    let h = (1.25 * f) as i32 + 2 * pad - (0.25 * f) as i32;
    for b in &spec.bands {
        let (a, z) = (
            p.x(&spec.x, b.x0).max(p.left),
            p.x(&spec.x, b.x1).min(p.right),
        );
        let avail = z - a - 2 * gap;
        let inside = [&b.label, &b.short_label]
            .into_iter()
            .map(|t| (t, st.width(t) as i32))
            .find(|(_, w)| w + 2 * pad <= avail);
        // A band too narrow for its label (a short cache phase): the label goes just right of
        // the band, beside its level, where no line and no cliff label is (below).
        let outside = inside.is_none();
        let Some((text, w)) = inside.or_else(|| Some((&b.label, st.width(&b.label) as i32))) else {
            continue;
        };
        let x0 = if outside { z + gap } else { a + gap };
        let x1 = x0 + w + 2 * pad;
        if x1 > p.right - gap {
            continue;
        }
        // The lines' extent over the label, leaving out the edge of the band (where the line
        // comes down a cliff) and the highest and lowest sixth of the points (spikes, dips
        // and the sample that straddles the cliff), so the label sits next to the level it
        // names.
        let ys_in = |from: i32| -> Vec<i32> {
            let mut ys: Vec<i32> = spec
                .series
                .iter()
                .filter(|s| s.side == YSide::Left)
                .flat_map(|s| s.points.iter())
                .filter(|q| !spec.y.log || q.1 > 0.0)
                .filter(|q| {
                    let x = p.x(&spec.x, q.0);
                    x > from && x <= x1 + gap
                })
                .map(|q| p.y(&spec.y, q.1))
                .collect();
            ys.sort_unstable();
            ys
        };
        let mut ys = ys_in(a + 3 * gap);
        if ys.len() < 3 {
            ys = ys_in(a);
        }
        if outside {
            // The band's own level, from the points inside the band.
            ys = spec
                .series
                .iter()
                .filter(|s| s.side == YSide::Left)
                .flat_map(|s| s.points.iter())
                .filter(|q| !spec.y.log || q.1 > 0.0)
                .filter(|q| {
                    let x = p.x(&spec.x, q.0);
                    x >= a && x < z
                })
                .map(|q| p.y(&spec.y, q.1))
                .collect();
            ys.sort_unstable();
        }
        let (hi, lo) = level_extent(&ys);
        // Outside its band, a label must also keep off every line point under it.
        let clear_of_lines = |y0: i32| {
            !outside
                || spec
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter())
                    .filter(|q| !spec.y.log || q.1 > 0.0)
                    .all(|q| {
                        let (x, y) = (p.x(&spec.x, q.0), p.y(&spec.y, q.1));
                        x < x0 - gap || x > x1 + gap || y < y0 - gap || y > y0 + h + gap
                    })
        };
        let free = |y0: i32| {
            y0 >= p.top + gap
                && y0 + h <= p.bottom - gap
                && boxes
                    .iter()
                    .all(|&(bx0, by0, bx1, by1)| x1 < bx0 || x0 > bx1 || y0 + h < by0 || y0 > by1)
                && clear_of_lines(y0)
        };
        let mut cands = Vec::new();
        if hi != i32::MAX {
            cands.push(hi - 2 * gap - h);
            cands.push(lo + 2 * gap);
        }
        if !outside {
            cands.push(p.bottom - gap - h);
        }
        let Some(y0) = cands.into_iter().find(|&y| free(y)).or(if outside {
            None
        } else {
            Some(p.bottom - gap - h)
        }) else {
            continue;
        };
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y0 + h)],
            color(cs.bg).mix(0.75).filled(),
        ))
        .map_err(err)?;
        root.draw(&Label::new(text.clone(), (x0 + pad, y0 + pad), st))
            .map_err(err)?;
    }
    Ok(())
}

/// The pixel rows a band label must keep clear of, from the sorted pixel rows `ys` of the
/// lines under it: the highest and lowest sixth are left out, so that a spike, a dip or the
/// sample that straddles a cliff does not push the label away from the level it names.
/// `(i32::MAX, i32::MIN)` when there are no points.
fn level_extent(ys: &[i32]) -> (i32, i32) {
    if ys.is_empty() {
        return (i32::MAX, i32::MIN);
    }
    (
        ys[ys.len() * 16 / 100],
        ys[(ys.len() * 84 / 100).min(ys.len() - 1)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::{palette, ChartKind, Series};

    fn spec_with(points: Vec<(f64, f64)>, y_max: f64) -> ChartSpec {
        let axis = |max: f64| Axis {
            label: "v (GB)".into(),
            min: 0.0,
            max,
            log: false,
            ticks: vec![],
        };
        crate::report::charts::with_ticks(ChartSpec {
            kind: ChartKind::Recovery,
            size: (1600, 900),
            title: "t".into(),
            subtitle: "s".into(),
            footer: vec!["f".into()],
            x: axis(1.05),
            y: axis(y_max),
            y2: None,
            series: vec![Series {
                name: "truth".into(),
                points,
                style: LineStyle {
                    color: palette::GREY,
                    alpha: 0.9,
                    width: 2.0,
                    dash: Dash::Dashed { on: 12, off: 6 },
                },
                side: YSide::Left,
                in_legend: false,
                group: None,
            }],
            bands: vec![],
            markers: vec![],
            legend: vec![],
            zoom: None,
            theme: Theme::Light,
            throttled: vec![],
        })
    }

    /// A line far beyond its axis (the model's recovery curve at 0.015 GB on an axis of
    /// 1e-9 GB, of an experiment interrupted in its first burst) made a dashed path of 2^31
    /// pixels: 10^8 dashes, gigabytes of SVG. Drawn, it is cut at a box around the plot, so
    /// the files stay the size of an ordinary chart.
    #[test]
    fn a_line_far_beyond_its_axis_draws_a_chart_of_ordinary_size() {
        let plain = spec_with(vec![(0.0, 0.0), (1.0, 0.5), (1.05, 1.0)], 1.04);
        let base = render_svg(&plain).unwrap().len();
        // 1000 times the axis: before the cut, 40,000 dashes (4 MB of SVG).
        let far = spec_with(vec![(0.0, 0.0), (1.0, 0.0), (1.05, 1040.0)], 1.04);
        let svg = render_svg(&far).unwrap();
        assert!(
            svg.len() < base + 100_000,
            "{} bytes of SVG against {base} for the same chart in range",
            svg.len()
        );
        // Not numbers, and values that saturate a pixel coordinate, draw nothing wild either.
        let wild = spec_with(
            vec![
                (0.0, f64::NAN),
                (0.5, 1e300),
                (f64::INFINITY, 0.5),
                (1.0, -1e18),
                (1.05, 0.5),
            ],
            1.04,
        );
        assert!(render_svg(&wild).unwrap().len() < base + 100_000);
        assert!(!render_png(&wild).unwrap().is_empty());
    }

    #[test]
    fn paths_inside_the_box_are_placed_as_before_and_cut_where_they_leave_it() {
        let (w, h) = (1000, 500);
        let px = Px {
            left: 0,
            top: 0,
            right: w,
            bottom: h,
        };
        let a = Axis {
            label: String::new(),
            min: 0.0,
            max: 1.0,
            log: false,
            ticks: vec![],
        };
        // Inside, also beyond the plot but within a plot size of it: exactly as Px places it.
        let inside = [
            (0.0, 0.0),
            (0.3331, 0.5),
            (1.0, 1.0),
            (1.7, -0.9),
            (-0.5, 1.5),
        ];
        let paths = plot_paths(&inside, w, h);
        let want: Vec<(i32, i32)> = inside
            .iter()
            .map(|&(x, y)| (px.x(&a, x), px.y(&a, y)))
            .collect();
        assert_eq!(paths, vec![want]);
        // A segment to a point a billion plots up ends at the box's edge (y = -1000).
        let paths = plot_paths(&[(0.5, 0.5), (0.5, 1e9)], w, h);
        assert_eq!(paths, vec![vec![(500, 250), (500, -1000)]]);
        // One that passes through the box from far outside to far outside keeps its middle.
        let paths = plot_paths(&[(-1e9, 0.5), (1e9, 0.5)], w, h);
        assert_eq!(paths, vec![vec![(-1000, 250), (2000, 250)]]);
        // One that never enters it is left out; a NaN breaks the line.
        assert!(plot_paths(&[(5.0, 5.0), (9.0, 9.0)], w, h).is_empty());
        let paths = plot_paths(
            &[
                (0.0, 0.0),
                (0.1, 0.1),
                (f64::NAN, 0.5),
                (0.2, 0.2),
                (0.3, 0.3),
            ],
            w,
            h,
        );
        assert_eq!(paths.len(), 2);
        // Whatever the data, no piece is longer than the box's diagonal.
        let diag = ((3 * w) as f64).hypot((h + 2 * w) as f64);
        let wild = [
            (0.0, 1e300),
            (1e300, -1e300),
            (-3e7, 4e9),
            (0.5, 0.5),
            (1e12, 1e-12),
        ];
        for piece in plot_paths(&wild, w, h) {
            for s in piece.windows(2) {
                let d = ((s[1].0 - s[0].0) as f64).hypot((s[1].1 - s[0].1) as f64);
                assert!(d <= diag + 2.0, "{s:?}");
            }
        }
    }

    /// Regression (issue 12): "after the cache: 600 MB/s" sat at the 1000 MB/s gridline,
    /// because the few points of the sample that straddles the cliff set the label's height.
    #[test]
    fn a_band_label_keeps_to_its_level_not_to_the_straddling_sample() {
        // 10 of 100 points (the straddling sample) at row 300, the level at row 600.
        let mut ys: Vec<i32> = std::iter::repeat_n(300, 10)
            .chain(std::iter::repeat_n(600, 90))
            .collect();
        ys.sort_unstable();
        assert_eq!(level_extent(&ys), (600, 600));
        assert_eq!(level_extent(&[]), (i32::MAX, i32::MIN));
    }

    #[test]
    fn long_text_is_shrunk_then_cut() {
        let st = Style::new(20.0);
        let (t, s) = fit_text("short", st, 500.0);
        assert_eq!((t.as_str(), s.em), ("short", 20.0));
        let long = "x".repeat(60);
        let w = st.width(&long);
        let (t, s) = fit_text(&long, st, w * 0.9);
        assert_eq!(t, long);
        assert!(s.em < 20.0 && s.width(&t) <= w * 0.9);
        let (t, s) = fit_text(&long, st, w * 0.5);
        assert!(t.ends_with('…') && t.chars().count() < 60);
        assert!(s.width(&t) <= w * 0.5);
    }

    #[test]
    fn envelopes_are_split_where_they_turn_back() {
        let zig = vec![(0, 0), (0, 100), (1, 0), (1, 0), (2, 100)];
        let parts = split_at_reversals(zig.clone(), 2);
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.len() == 2));
        assert_eq!(split_at_reversals(zig, 1).len(), 1);
        let smooth = vec![(0, 0), (10, 1), (20, 3), (30, 2)];
        assert_eq!(split_at_reversals(smooth, 3).len(), 1);
    }
}
