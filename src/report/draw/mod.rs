//! Drawing a [`ChartSpec`] as PNG (plotters' bitmap backend, encoded with the `png` crate) or
//! SVG ([`svg`]: text as glyph outlines, so it looks the same in every viewer). Text is
//! DejaVu Sans, embedded in the binary (see [`text`]); no system font is needed. Axes,
//! grid, ticks and their labels are drawn here from the spec's tick positions, so PNG and SVG
//! show the same numbers.

pub mod color;
pub mod decimate;
mod frame;
mod labels;
mod lines;
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

pub use frame::fit_text;
use frame::{band_alpha, draw_axes, draw_footer, draw_grid, draw_header};
use labels::draw_labels;
pub use labels::{placed_labels, LabelOf, PlacedLabel};
pub(crate) use lines::plot_paths;
pub use lines::split_at_reversals;
use lines::stroke;

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
    /// The plot area of layout `l` ([`Layout::plot_rect`]).
    fn of(l: &Layout) -> Px {
        let (left, top, right, bottom) = l.plot_rect();
        Px {
            left,
            top,
            right,
            bottom,
        }
    }
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
    let p = Px::of(&l);
    let Px {
        left,
        top,
        right,
        bottom,
    } = p;
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
    // Cliff intervals: at least 6 pixels wide so that the shading shows, lighter than the
    // phase tints and hatched with the marker's colour: a flat tint of the cliff's colour read
    // as a stretch of thermal throttling, whose tint is the same colour.
    let min_w = (6.0 * l.scale).round() as i32;
    let hatch_step = ((12.0 * l.scale).round() as i32).max(4);
    for m in &spec.markers {
        if let Some((lo, hi)) = m.interval {
            let (a, z) = (p.x(&spec.x, lo), p.x(&spec.x, hi));
            let (a, z) = if z - a < min_w {
                let c = (a + z) / 2;
                (c - min_w / 2, c - min_w / 2 + min_w)
            } else {
                (a, z)
            };
            let ink_c = color(ink(th, m.style.color));
            plot.draw(&Rectangle::new(
                [local(a, top), local(z, bottom)],
                ink_c.mix(0.14).filled(),
            ))
            .map_err(err)?;
            // Lines at 45 degrees across the interval, each cut to it.
            let height = bottom - top;
            let hatch = ink_c
                .mix(0.4)
                .stroke_width(((1.5 * l.scale).round() as u32).max(1));
            let mut x0 = a - height;
            while x0 < z {
                let (xa, xb) = (a.max(x0), z.min(x0 + height));
                if xa < xb {
                    plot.draw(&PathElement::new(
                        vec![local(xa, bottom - (xa - x0)), local(xb, bottom - (xb - x0))],
                        hatch,
                    ))
                    .map_err(err)?;
                }
                x0 += hatch_step;
            }
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
    // Throttled stretches: strips along the bottom of the plot, one above the other per lane.
    let strip = (crate::report::charts::THROTTLE_STYLE.width * l.scale).round() as i32;
    for s in &spec.throttled {
        group(s.group);
        let (a, z) = (p.x(&spec.x, s.x0), p.x(&spec.x, s.x1));
        let low = bottom - strip * s.lane as i32;
        plot.draw(&Rectangle::new(
            [local(a, low - strip), local(z.max(a + 2), low)],
            color(ink(th, s.color)).mix(0.85).filled(),
        ))
        .map_err(err)?;
    }
    group(None);
    draw_axes(root, spec, &p, &l)?;
    draw_zoom_mark(root, spec, &p, &l)?;
    draw_labels(root, spec, &p, &l, group)?;
    Ok(())
}

/// The stretch a zoomed chart enlarges: a bracket along the top of the plot and a thin
/// outline over the stretch (its label box is placed and drawn with the other labels).
fn draw_zoom_mark<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
) -> Result<()> {
    let Some((a, b, y, tick, w)) = labels::zoom_bracket(spec, p, l) else {
        return Ok(());
    };
    let cs = colors(spec.theme);
    root.draw(&Rectangle::new(
        [(a, p.top), (b, p.bottom)],
        color(cs.title).mix(0.7).stroke_width(1),
    ))
    .map_err(err)?;
    root.draw(&PathElement::new(
        vec![(a, y + tick), (a, y), (b, y), (b, y + tick)],
        color(cs.title).stroke_width(w),
    ))
    .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::labels::level_extent;
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

    /// A label once sat wrong: "after the cache: 600 MB/s" sat at the 1000 MB/s gridline,
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
