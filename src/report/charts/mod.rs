//! Chart content as data: a [`ChartSpec`] holds everything a chart shows (series, shaded
//! phases, cliff markers and their labels, axes with units and ranges, title, subtitle, legend,
//! footer). The builders here compute it from a timeline and its analysis; [`super::draw`]
//! only draws it. Tests check a chart's content by looking at its spec.
//!
//! Charts and their file stems (stable; `report.md` links them):
//! - [`ChartKind::ThroughputTime`] `throughput-time`: rate per interval and a smoothed line over
//!   time, phases shaded, cliffs marked, temperature on a second axis where recorded;
//! - [`ChartKind::ThroughputData`] `throughput-data`: the same over data written (GB);
//! - [`ChartKind::Latency`] `latency`: p50, p99 and max latency per interval, log axis;
//! - [`ChartKind::CompareTime`] `compare-throughput-time` and [`ChartKind::CompareData`]
//!   `compare-throughput-data`: several runs overlaid, one colour and dash per run.

mod compare;
pub mod experiments;
pub mod history;
mod labels;
mod latency;
pub mod reads;
mod stretches;
pub mod sweep;
mod throughput;

pub use compare::*;
pub use labels::*;
pub use latency::*;
pub use stretches::*;
pub use throughput::*;

/// Which chart a spec describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// Throughput over time.
    ThroughputTime,
    /// Throughput over data written.
    ThroughputData,
    /// Latency over time.
    Latency,
    /// Several runs' throughput over time.
    CompareTime,
    /// Several runs' throughput over data written.
    CompareData,
    /// Throughput over time, zoomed on the cache phase and the minutes after the last cliff.
    ThroughputTimeZoom,
    /// Throughput over data written, zoomed the same way.
    ThroughputDataZoom,
    /// A sweep's IOPS over queue depth, one line per job count.
    SweepIops,
    /// A sweep's latency over IOPS.
    SweepLatency,
    /// A sweep's IOPS and throughput over the read share.
    SweepRwmix,
    /// Cache recovered against idle time, with the fitted recovery model (`recovery`).
    Recovery,
    /// The bursts of `recovery` overlaid over data written.
    RecoveryBursts,
    /// A drive's cache size against the run date (`history`).
    HistoryCacheDate,
    /// A drive's after-cache rate against the run date (`history`).
    HistoryRateDate,
    /// A drive's cache size against the data the drive had written (`history`).
    HistoryCacheWear,
    /// Cache size against fill level (`fill-sweep`).
    FillSweep,
    /// The bursts of `fill-sweep` overlaid over data written.
    FillSweepBursts,
}

impl ChartKind {
    /// Every kind (the names of every chart file slccache writes).
    pub const ALL: [ChartKind; 17] = [
        ChartKind::ThroughputTime,
        ChartKind::ThroughputData,
        ChartKind::Latency,
        ChartKind::CompareTime,
        ChartKind::CompareData,
        ChartKind::ThroughputTimeZoom,
        ChartKind::ThroughputDataZoom,
        ChartKind::SweepIops,
        ChartKind::SweepLatency,
        ChartKind::SweepRwmix,
        ChartKind::Recovery,
        ChartKind::RecoveryBursts,
        ChartKind::HistoryCacheDate,
        ChartKind::HistoryRateDate,
        ChartKind::HistoryCacheWear,
        ChartKind::FillSweep,
        ChartKind::FillSweepBursts,
    ];

    /// The file name without extension (`.png` and `.svg` are written).
    pub fn file_stem(self) -> &'static str {
        match self {
            ChartKind::ThroughputTime => "throughput-time",
            ChartKind::ThroughputData => "throughput-data",
            ChartKind::Latency => "latency",
            ChartKind::CompareTime => "compare-throughput-time",
            ChartKind::CompareData => "compare-throughput-data",
            ChartKind::ThroughputTimeZoom => "throughput-time-zoom",
            ChartKind::ThroughputDataZoom => "throughput-data-zoom",
            ChartKind::SweepIops => "sweep-iops-qd",
            ChartKind::SweepLatency => "sweep-latency-iops",
            ChartKind::SweepRwmix => "sweep-rwmix",
            ChartKind::Recovery => "recovery",
            ChartKind::RecoveryBursts => "recovery-bursts",
            ChartKind::HistoryCacheDate => "history-cache-date",
            ChartKind::HistoryRateDate => "history-after-cache-date",
            ChartKind::HistoryCacheWear => "history-cache-wear",
            ChartKind::FillSweep => "fill-sweep",
            ChartKind::FillSweepBursts => "fill-sweep-bursts",
        }
    }
}

pub use crate::report::draw::color::{palette, Rgb};

/// How a line is stroked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// A solid line.
    Solid,
    /// Dashes of `on` pixels separated by `off` pixels (at the 1600x900 scale).
    Dashed {
        /// Dash length.
        on: u32,
        /// Gap length.
        off: u32,
    },
}

/// The look of a series or a marker line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineStyle {
    /// Colour.
    pub color: Rgb,
    /// Opacity, 0 to 1.
    pub alpha: f64,
    /// Width in pixels at the 1600x900 scale.
    pub width: f64,
    /// Solid or dashed.
    pub dash: Dash,
}

/// Which y axis a series belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YSide {
    /// The main axis on the left.
    Left,
    /// The second axis on the right (temperature).
    Right,
}

/// One line on a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Name in the legend.
    pub name: String,
    /// Points in chart units (the axis units), in x order.
    pub points: Vec<(f64, f64)>,
    /// Stroke.
    pub style: LineStyle,
    /// Axis.
    pub side: YSide,
    /// Shown in the legend.
    pub in_legend: bool,
    /// The run this line belongs to in a comparison (index), so report.html can hide it.
    pub group: Option<usize>,
}

/// An axis: its label (always with the unit), its range in chart units, and its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Label, e.g. "time (s)" or "write throughput (MB/s)".
    pub label: String,
    /// Lower end.
    pub min: f64,
    /// Upper end.
    pub max: f64,
    /// Logarithmic scale.
    pub log: bool,
    /// Tick positions, chart units (labelled with [`tick_label`]); filled in by the builders.
    pub ticks: Vec<f64>,
}

impl Axis {
    /// Tick positions for this axis: "nice" steps (1, 2, 2.5, 5 times a power of ten), at most
    /// `max_ticks`; on a log axis the powers of ten (with 2 and 5 when few decades show).
    ///
    /// A degenerate range (empty, reversed, NaN, infinite, or too narrow for its magnitude)
    /// gets one tick at most, never a list that grows with the numbers.
    pub fn compute_ticks(&self, max_ticks: usize) -> Vec<f64> {
        if !self.min.is_finite() || !self.max.is_finite() {
            return if self.min.is_finite() {
                vec![self.min]
            } else {
                vec![]
            };
        }
        if self.max.partial_cmp(&self.min) != Some(std::cmp::Ordering::Greater) {
            return vec![self.min];
        }
        if self.log && self.min > 0.0 {
            // Finite positive ends: both exponents lie within the range of f64 (-324..308).
            let (a, b) = (
                self.min.log10().ceil() as i32,
                self.max.log10().floor() as i32,
            );
            let mults: &[f64] = if b - a < 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            // Hundreds of decades (a degenerate range): every k-th power of ten.
            let every = ((b - a) / (3 * max_ticks.max(1) as i32)).max(1) as usize;
            let mut v = Vec::new();
            for e in ((a - 1)..=b).step_by(every) {
                for m in mults {
                    let x = m * 10f64.powi(e);
                    if x >= self.min * (1.0 - 1e-9) && x <= self.max * (1.0 + 1e-9) {
                        v.push(x);
                    }
                }
            }
            // Few labels: add 3 times the powers of ten too.
            if v.len() < 4 && b - a < 3 {
                for e in (a - 1)..=b {
                    let x = 3.0 * 10f64.powi(e);
                    if x >= self.min * (1.0 - 1e-9) && x <= self.max * (1.0 + 1e-9) {
                        v.push(x);
                    }
                }
                v.sort_by(f64::total_cmp);
            }
            return v;
        }
        let raw = (self.max - self.min) / max_ticks.max(1) as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw * (1.0 - 1e-9))
            .unwrap_or(10.0 * mag);
        if !(step.is_finite() && step > 0.0) {
            // The range overflows (its width is not finite) or underflows (its step is 0).
            return vec![self.min];
        }
        let first = (self.min / step - 1e-9).ceil();
        let last = (self.max / step + 1e-9).floor();
        // At most max_ticks + 1 steps fit in the range; more means the step is lost in the
        // magnitude of the ends (1e20 to 1e20 + 1), where no tick can be told apart.
        if !(first.is_finite() && last.is_finite()) || last - first > max_ticks as f64 + 2.0 {
            return vec![self.min];
        }
        let (first, last) = (first as i64, last as i64);
        (first..=last).map(|k| k as f64 * step).collect()
    }
}

/// Fills in the tick positions of every axis of a spec.
pub(crate) fn with_ticks(mut s: ChartSpec) -> ChartSpec {
    s.x.ticks = s.x.compute_ticks(12);
    s.y.ticks = s.y.compute_ticks(9);
    if let Some(y2) = s.y2.as_mut() {
        y2.ticks = y2.compute_ticks(9);
    }
    s
}

/// A shaded stretch of the x axis: one phase of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Start, chart units.
    pub x0: f64,
    /// End, chart units.
    pub x1: f64,
    /// Label, e.g. "SLC cache: 1365 MB/s".
    pub label: String,
    /// A shorter label for narrow bands, e.g. "1365 MB/s".
    pub short_label: String,
    /// The level the label names, y-axis units: where the leader line of a label put beside a
    /// band too narrow for it ends (`None`: the middle of the lines over the band).
    pub level: Option<f64>,
    /// Fill colour (drawn as a light tint).
    pub color: Rgb,
}

/// Which side of its line a marker's label sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelSide {
    /// Right of the line.
    Right,
    /// Left of the line (near the right edge of the chart).
    Left,
}

/// A vertical marker: a cliff, drawn as a dashed line with a label box near the top.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Position, chart units.
    pub x: f64,
    /// The 95% interval of the position, chart units, drawn as a light band.
    pub interval: Option<(f64, f64)>,
    /// Label lines, e.g. ["cliff at 14.0 s, 19.1 GB written", "1365 -> 591 MB/s"].
    pub lines: Vec<String>,
    /// Line stroke.
    pub style: LineStyle,
    /// Side of the line for the label.
    pub side: LabelSide,
    /// Row of the label from the top (0 = top), so that labels never overlap.
    pub row: usize,
    /// The run this marker belongs to in a comparison.
    pub group: Option<usize>,
}

/// One entry of the legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// Text.
    pub name: String,
    /// The line sample drawn next to it.
    pub style: LineStyle,
    /// Drawn as a filled swatch (a shaded phase) instead of a line sample.
    pub swatch: bool,
    /// The run this entry names in a comparison.
    pub group: Option<usize>,
}

impl LegendEntry {
    /// An entry with a line sample.
    pub fn line(name: impl Into<String>, style: LineStyle) -> LegendEntry {
        LegendEntry {
            name: name.into(),
            style,
            swatch: false,
            group: None,
        }
    }
}

/// A stretch where the drive throttled (hot and slower): a strip along the bottom of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Throttle {
    /// Start, chart units.
    pub x0: f64,
    /// End, chart units.
    pub x1: f64,
    /// The strip's colour: [`THROTTLE_STYLE`]'s in a single run, the run's in a comparison.
    pub color: Rgb,
    /// Which strip from the bottom (0 the lowest): one per run in a comparison.
    pub lane: usize,
    /// The run this stretch belongs to in a comparison.
    pub group: Option<usize>,
}

/// Light (white background) or dark charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on a dark background, for dark web pages.
    Dark,
}

/// A stretch of the x axis another chart shows enlarged, marked on the full chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoomMark {
    /// Start, chart units.
    pub x0: f64,
    /// End, chart units.
    pub x1: f64,
    /// Label lines, e.g. ["2 cliffs: 10.9 s, 127.3 s", "enlarged in throughput-time-zoom"].
    pub lines: Vec<String>,
}

/// Everything a chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    /// Which chart.
    pub kind: ChartKind,
    /// Size in pixels (the PNG size; the SVG uses the same coordinates).
    pub size: (u32, u32),
    /// Title.
    pub title: String,
    /// Subtitle: the cache estimate with its interval, or the lower bound.
    pub subtitle: String,
    /// Footer lines: drive, workload, date, slccache version.
    pub footer: Vec<String>,
    /// x axis.
    pub x: Axis,
    /// Main y axis.
    pub y: Axis,
    /// Second y axis on the right (temperature), if any.
    pub y2: Option<Axis>,
    /// Lines, drawn in order.
    pub series: Vec<Series>,
    /// Shaded phases.
    pub bands: Vec<Band>,
    /// Cliff markers.
    pub markers: Vec<Marker>,
    /// Legend, drawn in rows under the subtitle.
    pub legend: Vec<LegendEntry>,
    /// The range shown enlarged by a zoomed chart, if any.
    pub zoom: Option<ZoomMark>,
    /// Colours of the background and text.
    pub theme: Theme,
    /// Stretches where the drive throttled (hot and slower); marked along the bottom.
    pub throttled: Vec<Throttle>,
}

impl ChartSpec {
    /// Every text the chart shows (titles, axis labels, legend, labels, footer), for checks.
    pub fn texts(&self) -> Vec<String> {
        let mut v = vec![
            self.title.clone(),
            self.subtitle.clone(),
            self.x.label.clone(),
            self.y.label.clone(),
        ];
        v.extend(self.y2.iter().map(|a| a.label.clone()));
        v.extend(self.legend.iter().map(|l| l.name.clone()));
        v.extend(self.markers.iter().flat_map(|m| m.lines.iter().cloned()));
        v.extend(self.bands.iter().map(|b| b.label.clone()));
        v.extend(self.footer.iter().cloned());
        v.extend(self.zoom.iter().flat_map(|z| z.lines.iter().cloned()));
        v
    }
}

/// Pixel geometry shared by the spec builders (to place labels and leave room for them) and
/// the drawing code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Image size.
    pub size: (u32, u32),
    /// Scale relative to 1600x900.
    pub scale: f64,
    /// The scale of the room text takes: [`Self::scale`], but never less than the least
    /// type size allows (type is never drawn under 8 px, so on a small image the lines of
    /// text are spaced for the type they hold, not drawn over each other).
    pub text_scale: f64,
    /// Height of the header (title, subtitle, legend).
    pub header_h: u32,
    /// Height of the footer.
    pub footer_h: u32,
    /// Width of the left y-axis label area.
    pub y_area_w: u32,
    /// Width of the right y-axis label area (wider with a second axis).
    pub y2_area_w: u32,
    /// Height of the x-axis label area.
    pub x_area_h: u32,
    /// Gap above the plot.
    pub top_gap: u32,
    /// Rows of legend entries under the subtitle.
    pub legend_rows: usize,
}

/// Font sizes in pixels at the 1600x900 scale.
pub mod font_px {
    /// Title.
    pub const TITLE: f64 = 30.0;
    /// Subtitle.
    pub const SUBTITLE: f64 = 21.0;
    /// Legend entries.
    pub const LEGEND: f64 = 18.0;
    /// Axis descriptions.
    pub const AXIS: f64 = 20.0;
    /// Tick labels.
    pub const TICK: f64 = 17.0;
    /// Marker and band labels.
    pub const LABEL: f64 = 17.0;
    /// Footer.
    pub const FOOTER: f64 = 15.0;
}

/// The least type size drawn, in pixels.
pub const MIN_FONT_PX: f64 = 8.0;

/// Height of one legend row at the 1600x900 scale.
pub const LEGEND_ROW_H: f64 = 27.0;

/// The legend in rows: the entries' indices, as many per row as fit the width of an image of
/// `size` (at the legend's type size).
pub fn legend_rows(legend: &[LegendEntry], size: (u32, u32)) -> Vec<Vec<usize>> {
    let l = Layout::new(size, false, 1);
    let s = l.scale;
    let max_w = size.0 as f64 - 48.0 * s;
    let f = l.font(font_px::LEGEND);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut x = 0.0;
    for (i, e) in legend.iter().enumerate() {
        let w = legend_sample_w(e, s) + 8.0 * s + text_width(&e.name, f);
        if rows.is_empty() || x + w > max_w {
            rows.push(vec![i]);
            x = w + 30.0 * s;
        } else {
            rows.last_mut().expect("a row").push(i);
            x += w + 30.0 * s;
        }
    }
    rows
}

/// Width of a legend entry's sample: a line, or a smaller swatch for a shaded phase.
pub fn legend_sample_w(e: &LegendEntry, scale: f64) -> f64 {
    if e.swatch {
        22.0 * scale
    } else {
        44.0 * scale
    }
}

/// The width of `text` in DejaVu Sans at `px` pixels per em, as it will be drawn.
pub fn text_width(text: &str, px: f64) -> f64 {
    crate::report::draw::text::Style::new(px).width(text)
}

/// The width of a marker label line: the first line is bold.
fn label_line_width(i: usize, text: &str, px: f64) -> f64 {
    let st = crate::report::draw::text::Style::new(px);
    if i == 0 {
        st.bold().width(text)
    } else {
        st.width(text)
    }
}

impl Layout {
    /// The geometry for an image of `size`, with or without a second y axis and with
    /// `footer_lines` lines of footer.
    pub fn new(size: (u32, u32), has_y2: bool, footer_lines: usize) -> Layout {
        let scale = (size.0 as f64 / 1600.0)
            .min(size.1 as f64 / 900.0)
            .max(0.25);
        let px = |v: f64| (v * scale).round() as u32;
        let text_scale = scale.max(MIN_FONT_PX / font_px::FOOTER);
        let tx = |v: f64| (v * text_scale).round() as u32;
        Layout {
            size,
            scale,
            text_scale,
            header_h: tx(122.0),
            footer_h: tx(14.0 + 22.0 * footer_lines.max(1) as f64),
            y_area_w: tx(96.0),
            y2_area_w: if has_y2 { tx(96.0) } else { px(40.0) },
            x_area_h: tx(70.0),
            top_gap: px(6.0),
            legend_rows: 1,
        }
    }
    /// The same with `rows` rows of legend (the header grows by a row's height for each).
    pub fn with_legend_rows(mut self, rows: usize) -> Layout {
        let extra = rows.max(1) - 1;
        self.legend_rows = rows.max(1);
        self.header_h += (LEGEND_ROW_H * extra as f64 * self.text_scale).round() as u32;
        self
    }
    /// Font size in pixels for a size given at the 1600x900 scale.
    pub fn font(&self, px: f64) -> f64 {
        (px * self.scale).max(MIN_FONT_PX)
    }
    /// The plot area (inside the axes): (left, top, right, bottom) in pixels.
    pub fn plot_rect(&self) -> (i32, i32, i32, i32) {
        let left = self.y_area_w as i32;
        let right = self.size.0 as i32 - self.y2_area_w as i32;
        let top = (self.header_h + self.top_gap) as i32;
        let bottom = self.size.1 as i32 - self.footer_h as i32 - self.x_area_h as i32;
        (left, top, right, bottom.max(top + 10))
    }
    /// Height of a label box with `lines` lines.
    pub fn label_box_h(&self, lines: usize) -> f64 {
        let f = self.font(font_px::LABEL);
        lines as f64 * f * 1.25 + 0.8 * f
    }
    /// Width of a label box for these lines (estimated).
    pub fn label_box_w(&self, lines: &[String]) -> f64 {
        let f = self.font(font_px::LABEL);
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| label_line_width(i, l, f))
            .fold(0.0, f64::max)
            + 0.8 * f
    }
    /// Gap between a marker line and its label, and between label rows.
    pub fn label_gap(&self) -> f64 {
        6.0 * self.scale
    }
}

/// Places labels of width `w` anchored at pixel `x` (a vertical line): each goes right of its
/// line unless it would cross `right`, then left; each takes the top-most row where it overlaps
/// no label already placed. Returns (side, row, left edge) per label, in input order.
pub fn place_labels(
    anchors: &[(f64, f64)],
    left: f64,
    right: f64,
    gap: f64,
) -> Vec<(LabelSide, usize, f64)> {
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by(|&a, &b| anchors[a].0.total_cmp(&anchors[b].0));
    let mut rows: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut out = vec![(LabelSide::Right, 0, 0.0); anchors.len()];
    for i in order {
        let (x, w) = anchors[i];
        let (side, x0) = if x + gap + w <= right {
            (LabelSide::Right, x + gap)
        } else {
            (LabelSide::Left, (x - gap - w).max(left))
        };
        let x1 = x0 + w;
        let row = (0..)
            .find(|&r| {
                rows.get(r).is_none_or(|placed: &Vec<(f64, f64)>| {
                    placed.iter().all(|&(a, b)| x1 + gap <= a || b + gap <= x0)
                })
            })
            .unwrap_or(0);
        if rows.len() <= row {
            rows.resize(row + 1, Vec::new());
        }
        rows[row].push((x0, x1));
        out[i] = (side, row, x0);
    }
    out
}

/// Linear range 0..max with room at the top for `frac` of the height (labels).
pub(crate) fn headroom_linear(data_max: f64, frac: f64) -> f64 {
    let m = if data_max > 0.0 { data_max } else { 1.0 };
    m * 1.04 / (1.0 - frac.clamp(0.0, 0.6))
}

/// Assigns label sides and rows to markers and returns the fraction of the plot height the
/// label rows take.
pub(crate) fn place_markers(markers: &mut [Marker], x: &Axis, layout: &Layout) -> f64 {
    if markers.is_empty() {
        return 0.0;
    }
    let (l, top, r, bottom) = layout.plot_rect();
    let (l, r) = (l as f64, r as f64);
    let span = (x.max - x.min).max(1e-12);
    let labelled: Vec<usize> = (0..markers.len())
        .filter(|&i| !markers[i].lines.is_empty())
        .collect();
    let anchors: Vec<(f64, f64)> = labelled
        .iter()
        .map(|&i| {
            let m = &markers[i];
            (
                l + (m.x - x.min) / span * (r - l),
                layout.label_box_w(&m.lines),
            )
        })
        .collect();
    let placed = place_labels(&anchors, l, r, layout.label_gap());
    let mut rows_h = vec![0.0f64; markers.len() + 1];
    for (&i, (side, row, _)) in labelled.iter().zip(placed) {
        let m = &mut markers[i];
        m.side = side;
        m.row = row;
        rows_h[row] = rows_h[row].max(layout.label_box_h(m.lines.len()));
    }
    let used: f64 = rows_h
        .iter()
        .filter(|h| **h > 0.0)
        .map(|h| h + layout.label_gap())
        .sum();
    (used + layout.label_gap()) / (bottom - top) as f64
}

/// Reads one latency from a sample.
type LatencyOf = fn(&crate::timeline::Sample) -> Option<f64>;

#[cfg(test)]
mod tests {
    use super::*;

    /// At `--png-size 420x300` the footer's lines, the x axis's ticks and description and the
    /// header's lines were drawn over each other: type is never under 8 px, but the room for
    /// it shrank with the image. The room holds the type at every size.
    #[test]
    fn the_room_for_text_holds_its_type_at_every_size() {
        for size in [(320, 180), (420, 300), (640, 360), (800, 450), (1600, 900)] {
            for lines in [1usize, 2, 3] {
                let l = Layout::new(size, true, lines);
                let line = |px: f64| l.font(px) * 1.15;
                assert!(
                    l.footer_h as f64 >= lines as f64 * line(font_px::FOOTER),
                    "{size:?}, {lines} footer lines: {} px",
                    l.footer_h
                );
                assert!(
                    l.x_area_h as f64 >= line(font_px::TICK) + line(font_px::AXIS),
                    "{size:?}: x area {} px",
                    l.x_area_h
                );
                assert!(
                    l.header_h as f64
                        >= line(font_px::TITLE) + line(font_px::SUBTITLE) + line(font_px::LEGEND),
                    "{size:?}: header {} px",
                    l.header_h
                );
                // Each line of the header and footer starts below the last one's type.
                let ts = l.text_scale;
                assert!(22.0 * ts >= line(font_px::FOOTER), "{size:?}");
                assert!((58.0 - 16.0) * ts >= line(font_px::TITLE), "{size:?}");
                assert!((94.0 - 58.0) * ts >= line(font_px::SUBTITLE), "{size:?}");
                assert!(LEGEND_ROW_H * ts >= line(font_px::LEGEND), "{size:?}");
            }
        }
    }
    use crate::units::UnitSystem;

    /// `ChartKind::ALL` holds every kind once: the match below has no wildcard, so a new kind
    /// does not compile until it has a place here (and so in `ALL`).
    #[test]
    fn all_chart_kinds_are_listed() {
        let place = |k: ChartKind| match k {
            ChartKind::ThroughputTime => 0,
            ChartKind::ThroughputData => 1,
            ChartKind::Latency => 2,
            ChartKind::CompareTime => 3,
            ChartKind::CompareData => 4,
            ChartKind::ThroughputTimeZoom => 5,
            ChartKind::ThroughputDataZoom => 6,
            ChartKind::SweepIops => 7,
            ChartKind::SweepLatency => 8,
            ChartKind::SweepRwmix => 9,
            ChartKind::Recovery => 10,
            ChartKind::RecoveryBursts => 11,
            ChartKind::HistoryCacheDate => 12,
            ChartKind::HistoryRateDate => 13,
            ChartKind::HistoryCacheWear => 14,
            ChartKind::FillSweep => 15,
            ChartKind::FillSweepBursts => 16,
        };
        for (i, k) in ChartKind::ALL.iter().enumerate() {
            assert_eq!(place(*k), i, "{k:?}");
        }
    }

    fn axis(min: f64, max: f64, log: bool) -> Axis {
        Axis {
            label: String::new(),
            min,
            max,
            log,
            ticks: vec![],
        }
    }

    /// A degenerate range (empty, reversed, NaN, infinite, overflowing or underflowing) gets
    /// at most a few finite ticks: a list of ticks never grows with the numbers (an axis up
    /// to infinity on a log scale listed 2^31 powers of ten; one up to 5e-324 had a step of 0
    /// and 2^63 ticks).
    #[test]
    fn degenerate_ranges_get_few_finite_ticks() {
        let cases = [
            (0.0, 0.0, false),
            (1.0, 0.0, false),
            (f64::NAN, 1.0, false),
            (0.0, f64::NAN, false),
            (0.0, f64::INFINITY, false),
            (f64::NEG_INFINITY, f64::INFINITY, false),
            (-f64::MAX, f64::MAX, false),
            (0.0, 5e-324, false),
            (0.0, 1e-320, false),
            (1e20, 1e20 + 1e5, false),
            (1e300, f64::MAX, false),
            (1e-3, f64::INFINITY, true),
            (f64::MIN_POSITIVE, f64::MAX, true),
            (5e-324, 1e-300, true),
            (0.0, 0.0, true),
            (f64::NAN, f64::NAN, true),
        ];
        for (min, max, log) in cases {
            let t = axis(min, max, log).compute_ticks(9);
            assert!(t.len() <= 40, "{min}..{max} log {log}: {} ticks", t.len());
            assert!(
                t.iter().all(|v| v.is_finite()),
                "{min}..{max} log {log}: {t:?}"
            );
        }
        // Ordinary ranges keep their ticks.
        assert_eq!(
            axis(0.0, 1.04, false).compute_ticks(9),
            (0..=5).map(|k| k as f64 * 0.2).collect::<Vec<_>>()
        );
        assert_eq!(
            axis(1.0, 1000.0, true).compute_ticks(9),
            [1.0, 10.0, 100.0, 1000.0]
        );
    }

    #[test]
    fn labels_never_overlap() {
        let anchors = [
            (100.0, 300.0),
            (150.0, 300.0),
            (900.0, 300.0),
            (1500.0, 300.0),
        ];
        let p = place_labels(&anchors, 90.0, 1560.0, 6.0);
        assert_eq!(p[0].1, 0);
        assert_eq!(p[1].1, 1);
        assert_eq!(p[2].1, 0);
        assert_eq!(p[3].0, LabelSide::Left);
        for i in 0..p.len() {
            for j in 0..i {
                if p[i].1 == p[j].1 {
                    let (a0, a1) = (p[i].2, p[i].2 + 300.0);
                    let (b0, b1) = (p[j].2, p[j].2 + 300.0);
                    assert!(a1 <= b0 || b1 <= a0, "{i} and {j} overlap");
                }
            }
        }
    }

    /// Short names stay whole on the plot's labels: the start they share is the drive.
    #[test]
    fn plot_labels_keep_short_names_whole() {
        assert_eq!(
            plot_tags(&["Samsung 960, 10:06:55", "Samsung 960, 10:07:16"]),
            ["Samsung 960, 10:06:55", "Samsung 960, 10:07:16"]
        );
        assert_eq!(plot_tags(&["a", "b"]), ["a", "b"]);
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(1200.0), "1200");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(12.50), "12.5");
        assert_eq!(tick_label(0.001), "0.001");
    }

    #[test]
    fn level_and_cliff_texts() {
        assert_eq!(
            levels_label(1365e6, 591e6, UnitSystem::Decimal),
            "1365 -> 591 MB/s"
        );
        assert_eq!(
            cliff_label(14.0, 19_100_000_000, UnitSystem::Decimal),
            "cliff at 14.0 s, 19.1 GB written"
        );
    }

    /// Bounded memory: the throughput chart of a merged timeline draws the lowest and highest
    /// rate of the samples merged (their envelope), not only the merged means: a one-sample
    /// dip to a tenth survives merging by 64.
    #[test]
    fn a_merged_timeline_draws_the_envelope_of_its_samples() {
        let pts: Vec<(f64, f64, f64)> = (1..=200_000)
            .map(|i| {
                let r = match i {
                    100_001 => 1e8,
                    50_001 => 3e9,
                    _ => 1e9,
                };
                (i as f64, 1.0, r)
            })
            .collect();
        let t = crate::timeline::Timeline::from_rates(&pts, Default::default());
        let mut kept = crate::timeline::bounded::Kept::with_limit(4096);
        for s in &t.samples {
            kept.push(s);
        }
        let m = kept.into_timeline(Default::default());
        assert_eq!(m.meta.resolution.as_ref().unwrap().merged_by, 64);
        let a = crate::detect::analyze(&m);
        let spec = throughput_time(&m, &a, &crate::report::ReportOptions::default());
        let rate = &spec.series[0];
        assert_eq!(rate.name, "per interval");
        let lo = rate
            .points
            .iter()
            .map(|p| p.1)
            .fold(f64::INFINITY, f64::min);
        let hi = rate.points.iter().map(|p| p.1).fold(0.0, f64::max);
        // In MB/s: the dip to 100 and the peak at 3000 are drawn.
        assert!((lo - 100.0).abs() < 1e-6, "lowest drawn {lo}");
        assert!((hi - 3000.0).abs() < 1e-6, "highest drawn {hi}");
    }
}
