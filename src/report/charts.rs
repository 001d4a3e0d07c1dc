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

use crate::detect::{Analysis, PhaseKind};
use crate::timeline::{RunMeta, Timeline};
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

use super::decimate::{envelope, smooth};
use super::ReportOptions;

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
    /// Cache size against fill level (`fill-sweep`).
    FillSweep,
    /// The bursts of `fill-sweep` overlaid over data written.
    FillSweepBursts,
}

impl ChartKind {
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
            ChartKind::FillSweep => "fill-sweep",
            ChartKind::FillSweepBursts => "fill-sweep-bursts",
        }
    }
}

pub use super::color::{palette, Rgb};

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
    pub fn compute_ticks(&self, max_ticks: usize) -> Vec<f64> {
        if self.max.partial_cmp(&self.min) != Some(std::cmp::Ordering::Greater) {
            return vec![self.min];
        }
        if self.log && self.min > 0.0 {
            let (a, b) = (
                self.min.log10().ceil() as i32,
                self.max.log10().floor() as i32,
            );
            let mults: &[f64] = if b - a < 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            let mut v = Vec::new();
            for e in (a - 1)..=b {
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
        let first = (self.min / step - 1e-9).ceil() as i64;
        let last = (self.max / step + 1e-9).floor() as i64;
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
    /// Stretches where the drive throttled (hot and slower), chart units; marked along the top.
    pub throttled: Vec<(f64, f64)>,
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
    super::text::Style::new(px).width(text)
}

/// The width of a marker label line: the first line is bold.
fn label_line_width(i: usize, text: &str, px: f64) -> f64 {
    let st = super::text::Style::new(px);
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
        Layout {
            size,
            scale,
            header_h: px(122.0),
            footer_h: px(14.0 + 22.0 * footer_lines.max(1) as f64),
            y_area_w: px(96.0),
            y2_area_w: if has_y2 { px(96.0) } else { px(40.0) },
            x_area_h: px(70.0),
            top_gap: px(6.0),
            legend_rows: 1,
        }
    }
    /// The same with `rows` rows of legend (the header grows by a row's height for each).
    pub fn with_legend_rows(mut self, rows: usize) -> Layout {
        let extra = rows.max(1) - 1;
        self.legend_rows = rows.max(1);
        self.header_h += (LEGEND_ROW_H * extra as f64 * self.scale).round() as u32;
        self
    }
    /// Font size in pixels for a size given at the 1600x900 scale.
    pub fn font(&self, px: f64) -> f64 {
        (px * self.scale).max(8.0)
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

/// The run's name for titles and legends: its label, else the drive model, else "run".
pub fn run_name(meta: &RunMeta) -> String {
    if !meta.label.trim().is_empty() {
        meta.label.trim().to_string()
    } else if let Some(m) = meta
        .device
        .model
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        m.trim().to_string()
    } else if !meta.device.path.is_empty() {
        meta.device.path.clone()
    } else {
        "run".to_string()
    }
}

/// A rate without its unit, formatted as [`format_rate`] does ("1365", "59.1").
pub fn rate_number(bytes_per_sec: f64, units: UnitSystem) -> String {
    let s = format_rate(bytes_per_sec, units);
    s.split(' ').next().unwrap_or("").to_string()
}

/// "1365 -> 591 MB/s".
pub fn levels_label(before: f64, after: f64, units: UnitSystem) -> String {
    format!(
        "{} -> {}",
        rate_number(before, units),
        format_rate(after, units)
    )
}

/// "cliff at 14.0 s, 19.1 GB written".
pub fn cliff_label(t_s: f64, bytes: u64, units: UnitSystem) -> String {
    format!(
        "cliff at {}, {} written",
        format_seconds(t_s),
        format_bytes(bytes as f64, units)
    )
}

/// The subtitle: the cache estimate with its 95% interval, or the lower bound without a cliff.
pub fn cache_subtitle(a: &Analysis, units: UnitSystem) -> String {
    let fb = |b: u64| format_bytes(b as f64, units);
    let mut s = match (&a.cache_estimate, a.cliffs.len()) {
        _ if a.read_only => crate::detect::read_only_text(a, units),
        (Some(e), _) => format!(
            "SLC cache {} (95% interval {} to {})",
            fb(e.bytes),
            fb(e.low_bytes),
            fb(e.high_bytes)
        ),
        (None, 0) if a.bytes_total == 0 => {
            "Nothing was written: no cliff, no cache size".to_string()
        }
        (None, 0) => format!(
            "No cliff seen: {}",
            crate::detect::no_cliff_text(a.cache_lower_bound_bytes, a.bytes_total, units)
        ),
        (None, _) => "Cache size not estimated".to_string(),
    };
    match a.cliffs.len() {
        0 => {}
        1 => s.push_str("  ·  1 cliff"),
        n => s.push_str(&format!("  ·  {n} cliffs")),
    }
    s.push_str(&format!(
        "  ·  {} written in {}",
        fb(a.bytes_total),
        format_seconds(a.duration_s)
    ));
    s
}

/// "randwrite, 4 KiB blocks, QD32, 1 job, 1.0 s interval" from what is known.
pub fn workload_text(meta: &RunMeta, interval_s: f64) -> String {
    let w = &meta.workload;
    let mut parts = Vec::new();
    if !w.pattern.is_empty() {
        parts.push(w.pattern.clone());
    }
    if let Some(bs) = w.block_size {
        // Block sizes are powers of two: always binary, whatever the chart units.
        parts.push(format!("{} blocks", format_block(bs)));
    }
    if let Some(qd) = w.queue_depth {
        parts.push(format!("QD{qd}"));
    }
    if let Some(j) = w.jobs {
        parts.push(format!("{j} job{}", if j == 1 { "" } else { "s" }));
    }
    let iv = w.interval_s.unwrap_or(interval_s);
    if iv > 0.0 {
        parts.push(format!("{} interval", format_interval(iv)));
    }
    if let Some(e) = &w.engine {
        parts.push(e.clone());
    }
    if parts.is_empty() {
        "unknown workload".to_string()
    } else {
        parts.join(", ")
    }
}

fn format_block(bs: u64) -> String {
    if bs >= 1 << 20 && bs.is_multiple_of(1 << 20) {
        format!("{} MiB", bs >> 20)
    } else if bs >= 1024 && bs.is_multiple_of(1024) {
        format!("{} KiB", bs >> 10)
    } else {
        format!("{bs} B")
    }
}

fn format_interval(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{} s", trim_num(s, 2))
    }
}

/// "Samsung SSD 960 EVO 500GB, 500 GB, firmware 3B7QCXE7" from what is known.
pub fn drive_text(meta: &RunMeta, units: UnitSystem) -> String {
    let d = &meta.device;
    let mut parts = Vec::new();
    match (&d.model, d.path.is_empty()) {
        (Some(m), _) if !m.trim().is_empty() => parts.push(m.trim().to_string()),
        (_, false) => parts.push(d.path.clone()),
        // An imported log: its file name is not a drive.
        _ => parts.push("not recorded in the input".to_string()),
    }
    if let Some(c) = d.capacity_bytes {
        parts.push(format_bytes(c as f64, units));
    }
    if let Some(f) = d.firmware.as_deref().filter(|f| !f.trim().is_empty()) {
        parts.push(format!("firmware {}", f.trim()));
    }
    parts.join(", ")
}

/// Footer parts for one run: drive, workload, date, slccache version.
fn footer_parts(meta: &RunMeta, a: &Analysis, units: UnitSystem) -> Vec<String> {
    let mut v = vec![
        format!("Drive: {}", drive_text(meta, units)),
        format!("Workload: {}", workload_text(meta, a.interval_s)),
    ];
    if let Some(t) = meta.started_at {
        v.push(t.format("%Y-%m-%d %H:%M UTC").to_string());
    }
    if let Some(r) = meta.stop_reason {
        v.push(format!("stopped: {r}"));
    }
    v.push(format!("slccache {}", crate::VERSION));
    v
}

/// Joins parts into lines that fit `width` pixels at footer size (at most 3 lines). A line
/// up to 12% too long stays one line (it is drawn a little smaller), and the last part never
/// sits alone on a line when the line before can give it company.
pub fn wrap_parts(parts: &[String], width: f64, px: f64) -> Vec<String> {
    let sep = "  ·  ";
    if text_width(&parts.join(sep), px) <= width / 0.88 {
        return vec![parts.join(sep)];
    }
    let mut lines = wrap_greedy(parts, width, px);
    // Move parts down from the line before while the last line holds a single part.
    let n = lines.len();
    if n >= 2 && !lines[n - 1].contains(sep) {
        let mut prev: Vec<&str> = lines[n - 2].split(sep).collect();
        if prev.len() >= 2 {
            let moved = prev.pop().unwrap_or_default().to_string();
            let last = format!("{moved}{sep}{}", lines[n - 1]);
            if text_width(&last, px) <= width {
                lines[n - 2] = prev.join(sep);
                lines[n - 1] = last;
            }
        }
    }
    lines
}

fn wrap_greedy(parts: &[String], width: f64, px: f64) -> Vec<String> {
    let sep = "  ·  ";
    let mut lines: Vec<String> = Vec::new();
    for p in parts {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l}{sep}{p}"), px) <= width => {
                l.push_str(sep);
                l.push_str(p);
            }
            _ => lines.push(p.clone()),
        }
    }
    if lines.len() > 3 {
        let rest = lines.split_off(2).join(sep);
        lines.push(rest);
    }
    lines
}

fn trim_num(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Tick label for a linear axis: no needless zeros ("0", "2.5", "1200").
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 || a == 0.0 {
        trim_num(v, 0)
    } else if a >= 10.0 {
        trim_num(v, 1)
    } else if a >= 0.1 {
        trim_num(v, 2)
    } else {
        trim_num(v, 4)
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// Time axis scale: seconds up to 20 minutes, minutes up to 3 hours, then hours.
pub fn time_scale(max_s: f64) -> (f64, &'static str) {
    if max_s < 1.0 {
        (0.001, "ms")
    } else if max_s <= 1200.0 {
        (1.0, "s")
    } else if max_s <= 3.0 * 3600.0 {
        (60.0, "min")
    } else {
        (3600.0, "h")
    }
}

/// Data axis scale, picked from the range: MB (MiB) below 2 GB, GB (GiB), or TB (TiB) above
/// 2000 GB.
pub fn data_scale(max_bytes: f64, units: UnitSystem) -> (f64, &'static str) {
    let g = units.giga();
    let k = match units {
        UnitSystem::Decimal => 1000.0,
        UnitSystem::Binary => 1024.0,
    };
    if max_bytes < 2.0 * g {
        (units.mega(), units.mega_label())
    } else if max_bytes > 2000.0 * g {
        (
            g * k,
            match units {
                UnitSystem::Decimal => "TB",
                UnitSystem::Binary => "TiB",
            },
        )
    } else {
        (g, units.giga_label())
    }
}

/// What the x axis measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XKind {
    Time,
    Data,
}

/// Per sample: (start s, end s, bytes before, bytes after, rate).
fn sample_rows(t: &Timeline) -> Vec<(f64, f64, f64, f64, f64)> {
    t.samples
        .iter()
        .map(|s| {
            (
                s.t_start_s(),
                s.t_s,
                s.bytes_total.saturating_sub(s.bytes) as f64,
                s.bytes_total as f64,
                s.bytes_per_sec,
            )
        })
        .collect()
}

/// Bytes written by time `t` (linear within a sample).
pub fn bytes_at(t: &Timeline, t_s: f64) -> f64 {
    let s = &t.samples;
    if s.is_empty() {
        return 0.0;
    }
    let i = s.partition_point(|x| x.t_s < t_s);
    if i >= s.len() {
        return s[s.len() - 1].bytes_total as f64;
    }
    let x = &s[i];
    let start = x.t_start_s();
    let before = x.bytes_total.saturating_sub(x.bytes) as f64;
    if t_s <= start || x.interval_s <= 0.0 {
        return before;
    }
    before + x.bytes as f64 * ((t_s - start) / x.interval_s).min(1.0)
}

/// Number of pixel columns the envelope keeps (about the plot width).
fn columns(size: (u32, u32)) -> usize {
    ((size.0 as f64) * 0.85) as usize
}

/// The per-interval series: steps when every interval gets at least a pixel, else each pixel
/// column's minimum and maximum.
fn interval_series(
    rows: &[(f64, f64, f64, f64, f64)],
    xk: XKind,
    xdiv: f64,
    value: impl Fn(usize) -> Option<f64>,
    ydiv: f64,
    cols: usize,
) -> Vec<(f64, f64)> {
    let x_of = |r: &(f64, f64, f64, f64, f64)| match xk {
        XKind::Time => (r.0 / xdiv, r.1 / xdiv),
        XKind::Data => (r.2 / xdiv, r.3 / xdiv),
    };
    if rows.len() <= cols {
        let mut v = Vec::with_capacity(rows.len() * 2);
        for (i, r) in rows.iter().enumerate() {
            if let Some(y) = value(i) {
                let (a, b) = x_of(r);
                v.push((a, y / ydiv));
                v.push((b, y / ydiv));
            }
        }
        v
    } else {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                value(i).map(|y| {
                    let (a, b) = x_of(r);
                    (0.5 * (a + b), y / ydiv)
                })
            })
            .collect();
        let (lo, hi) = match (pts.first(), pts.last()) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => (0.0, 0.0),
        };
        envelope(&pts, lo, hi, cols)
    }
}

fn phase_name(k: PhaseKind) -> &'static str {
    match k {
        PhaseKind::Cache => "SLC cache",
        PhaseKind::PostCache => "after the cache",
        PhaseKind::Folding => "folding",
        PhaseKind::Steady => "steady",
    }
}

fn phase_color(k: PhaseKind) -> Rgb {
    match k {
        PhaseKind::Cache => palette::SKY_BLUE,
        PhaseKind::PostCache => palette::ORANGE,
        PhaseKind::Folding => palette::REDDISH_PURPLE,
        PhaseKind::Steady => palette::GREY,
    }
}

const CLIFF_STYLE: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 2.5,
    dash: Dash::Dashed { on: 10, off: 6 },
};

/// The marker of a gradual drop in a run without a cliff.
const DROP_STYLE: LineStyle = LineStyle {
    color: palette::GREY,
    alpha: 1.0,
    width: 2.0,
    dash: Dash::Dashed { on: 4, off: 5 },
};

/// The throttled stretches (a swatch in the legend, a strip on the chart).
pub const THROTTLE_STYLE: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 1.0,
    dash: Dash::Solid,
};

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

/// Stretches (start s, end s) where a drive ran hot and slowed down: the temperature within
/// 3 °C of the run's peak while the rate is below 80% of the usual rate of its phase, for at
/// least three intervals in a row. Only when the temperature rose by 10 °C or more.
pub fn throttled_stretches(t: &Timeline, a: &Analysis) -> Vec<(f64, f64)> {
    let temps: Vec<f64> = t.samples.iter().filter_map(|s| s.temp_c).collect();
    let (mn, mx) = temps
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if temps.is_empty() || mx - mn < 10.0 {
        return vec![];
    }
    // The usual rate of each phase: the 90th percentile of all phases of its kind (a drive
    // that throttles in turns splits one level into phases of the same kind).
    let usual: Vec<f64> = a
        .phases
        .iter()
        .map(|p| {
            let mut v: Vec<f64> = t
                .samples
                .iter()
                .filter(|s| {
                    a.phases
                        .iter()
                        .any(|q| q.kind == p.kind && s.t_s > q.start_s && s.t_s <= q.end_s)
                })
                .map(|s| s.bytes_per_sec)
                .collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() * 9 / 10).copied().unwrap_or(0.0)
        })
        .collect();
    let mut out: Vec<(f64, f64)> = Vec::new();
    for s in &t.samples {
        let Some(tc) = s.temp_c else { continue };
        let phase = a
            .phases
            .iter()
            .position(|p| s.t_s > p.start_s && s.t_s <= p.end_s);
        let slow = phase.is_some_and(|i| s.bytes_per_sec < 0.8 * usual[i]);
        if tc >= mx - 3.0 && slow {
            match out.last_mut() {
                Some(l) if (s.t_start_s() - l.1).abs() < 1e-6 => l.1 = s.t_s,
                _ => out.push((s.t_start_s(), s.t_s)),
            }
        }
    }
    // A single slow interval is a dip (garbage collection), not throttling: keep stretches
    // of at least three intervals.
    let iv = t.interval_s().max(1e-9);
    out.retain(|(a, b)| b - a >= 2.5 * iv);
    out
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

/// The single-run throughput charts (over time or over data written); with `zoom` (the end of
/// the range in seconds or bytes, as the axis measures) only the start of the run.
fn throughput(
    t: &Timeline,
    a: &Analysis,
    o: &ReportOptions,
    xk: XKind,
    zoom: Option<f64>,
) -> ChartSpec {
    let u = o.units;
    let mut rows = sample_rows(t);
    let mut temps: Vec<Option<f64>> = t.samples.iter().map(|s| s.temp_c).collect();
    if let Some(end) = zoom {
        let n = rows.partition_point(|r| match xk {
            XKind::Time => r.0 < end,
            XKind::Data => r.2 < end,
        });
        rows.truncate(n);
        temps.truncate(n);
    }
    let has_temp = xk == XKind::Time && temps.iter().any(|x| x.is_some());
    let provisional = Layout::new(o.png_size, has_temp, 1);
    let mut parts = footer_parts(&t.meta, a, u);
    if t.samples.is_empty() {
        parts.insert(0, "no samples".to_string());
    }
    let footer = wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    );
    let layout = Layout::new(o.png_size, has_temp, footer.len());

    let x_end = zoom.unwrap_or(match xk {
        XKind::Time => t.duration_s(),
        XKind::Data => t.bytes_total() as f64,
    });
    let (xdiv, xlabel) = match xk {
        XKind::Time => {
            let (d, un) = time_scale(x_end);
            (d, format!("time since start ({un})"))
        }
        XKind::Data => {
            let (d, un) = data_scale(x_end, u);
            (d, format!("data written ({un})"))
        }
    };
    let ydiv = u.mega();
    let cols = columns(o.png_size);

    let x_min = match xk {
        XKind::Time => rows.first().map(|r| r.0.min(0.0) / xdiv).unwrap_or(0.0),
        XKind::Data => 0.0,
    };
    let x_max_raw = x_end / xdiv;
    let x = Axis {
        label: xlabel,
        min: x_min,
        max: if x_max_raw > x_min {
            x_max_raw
        } else {
            x_min + 1.0
        },
        log: false,
        ticks: vec![],
    };

    let rate = interval_series(&rows, xk, xdiv, |i| Some(rows[i].4), ydiv, cols);
    let mut series = vec![Series {
        name: "per interval".to_string(),
        points: rate,
        style: LineStyle {
            color: palette::SKY_BLUE,
            alpha: 1.0,
            width: 1.5,
            dash: Dash::Solid,
        },
        side: YSide::Left,
        in_legend: true,
        group: None,
    }];
    let breaks: Vec<f64> = a.cliffs.iter().map(|c| c.t_s).collect();
    if let Some(sm) = smooth(&rows, &breaks) {
        let pts = sm
            .points
            .iter()
            .map(|&(tm, bm, v)| {
                let xv = match xk {
                    XKind::Time => tm / xdiv,
                    XKind::Data => bm / xdiv,
                };
                (xv, v / ydiv)
            })
            .collect();
        series.push(Series {
            name: format!("smoothed (median over {})", round_duration(sm.window_s)),
            points: pts,
            style: LineStyle {
                color: palette::BLUE,
                alpha: 1.0,
                width: 3.0,
                dash: Dash::Solid,
            },
            side: YSide::Left,
            in_legend: true,
            group: None,
        });
    }
    let mut y2 = None;
    if has_temp {
        let tp = interval_series(&rows, XKind::Time, xdiv, |i| temps[i], 1.0, cols);
        let (mn, mx) = tp
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.1), b.max(p.1))
            });
        y2 = Some(Axis {
            label: "drive temperature (°C)".to_string(),
            min: (mn - 5.0).floor().max(-40.0),
            max: (mx + 5.0).ceil(),
            log: false,
            ticks: vec![],
        });
        series.push(Series {
            name: "temperature (°C, right axis)".to_string(),
            points: tp,
            style: LineStyle {
                color: palette::REDDISH_PURPLE,
                alpha: 1.0,
                width: 2.0,
                dash: Dash::Dashed { on: 4, off: 4 },
            },
            side: YSide::Right,
            in_legend: true,
            group: None,
        });
    }

    let to_x = |t_s: f64| match xk {
        XKind::Time => t_s / xdiv,
        XKind::Data => bytes_at(t, t_s) / xdiv,
    };
    let bands: Vec<Band> = a
        .phases
        .iter()
        .map(|p| Band {
            x0: to_x(p.start_s).max(x.min),
            x1: to_x(p.end_s).min(x.max),
            label: format!(
                "{}: {}",
                phase_name(p.kind),
                format_rate(p.mean_bytes_per_sec, u)
            ),
            short_label: format_rate(p.mean_bytes_per_sec, u),
            color: phase_color(p.kind),
        })
        .filter(|b| b.x1 > b.x0)
        .collect();
    let mut markers: Vec<Marker> = a
        .cliffs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (xv, iv) = match xk {
                XKind::Time => (c.t_s / xdiv, (c.t_low_s / xdiv, c.t_high_s / xdiv)),
                XKind::Data => match (&a.cache_estimate, i) {
                    (Some(e), 0) => (
                        e.bytes as f64 / xdiv,
                        (e.low_bytes as f64 / xdiv, e.high_bytes as f64 / xdiv),
                    ),
                    _ => (
                        c.bytes_written as f64 / xdiv,
                        (to_x(c.t_low_s), to_x(c.t_high_s)),
                    ),
                },
            };
            let bytes = match (&a.cache_estimate, i, xk) {
                (Some(e), 0, XKind::Data) => e.bytes,
                _ => c.bytes_written,
            };
            Marker {
                x: xv,
                interval: Some(iv).filter(|(lo, hi)| hi > lo),
                lines: vec![
                    cliff_label(c.t_s, bytes, u),
                    levels_label(c.before_bytes_per_sec, c.after_bytes_per_sec, u),
                ],
                style: CLIFF_STYLE,
                side: LabelSide::Right,
                row: 0,
                group: None,
            }
        })
        .filter(|m| m.x <= x.max)
        .collect();
    // A run without a cliff that still slows down visibly: say so on the chart.
    let drop = if a.cliffs.is_empty() {
        gradual_drop(&rows)
    } else {
        None
    };
    if let Some((at, before, after)) = drop {
        markers.push(Marker {
            x: to_x(at),
            interval: None,
            lines: vec![
                format!(
                    "gradual drop: {} (-{:.0}%)",
                    levels_label(before, after, u),
                    100.0 * (1.0 - after / before)
                ),
                "no single cliff: the rate fell over time".to_string(),
            ],
            style: DROP_STYLE,
            side: LabelSide::Right,
            row: 0,
            group: None,
        });
    }
    // The zoomed range, marked on the full chart. When the cliffs all sit in a sliver of the
    // width, their labels would only pile up there: one label at the mark names them instead.
    let zoom_mark = match (zoom, zoom_range(t, a)) {
        (None, Some((es, eb))) => {
            let end = match xk {
                XKind::Time => es,
                XKind::Data => eb,
            } / xdiv;
            let squeezed = (end - x.min) / (x.max - x.min) < 0.15;
            let mut lines = Vec::new();
            if squeezed && !a.cliffs.is_empty() {
                let at: Vec<String> = a
                    .cliffs
                    .iter()
                    .map(|c| match xk {
                        XKind::Time => format_seconds(c.t_s),
                        XKind::Data => format_bytes(c.bytes_written as f64, u),
                    })
                    .collect();
                lines.push(format!(
                    "{} cliff{} in this stretch: {}",
                    a.cliffs.len(),
                    if a.cliffs.len() == 1 { "" } else { "s" },
                    at.join(", ")
                ));
                for m in markers.iter_mut().filter(|m| m.x <= end) {
                    m.lines.clear();
                }
            }
            lines.push(format!("enlarged in {}", zoom_kind(xk).file_stem()));
            Some(ZoomMark {
                x0: x.min,
                x1: end,
                lines,
            })
        }
        _ => None,
    };
    let mut frac = place_markers(&mut markers, &x, &layout);
    if let Some(z) = &zoom_mark {
        // The zoom's label goes below the cliff labels' rows.
        let (_, top, _, bottom) = layout.plot_rect();
        frac +=
            (layout.label_box_h(z.lines.len()) + 2.0 * layout.label_gap()) / (bottom - top) as f64;
    }
    let data_max = series
        .iter()
        .filter(|s| s.side == YSide::Left)
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let y = Axis {
        label: format!("write throughput ({}/s)", u.mega_label()),
        min: 0.0,
        max: headroom_linear(data_max, frac),
        log: false,
        ticks: vec![],
    };
    let name = run_name(&t.meta);
    let title = match (xk, zoom) {
        (XKind::Time, None) => format!("Write throughput over time: {name}"),
        (XKind::Data, None) => format!("Write throughput over data written: {name}"),
        (XKind::Time, Some(e)) => format!("Write throughput, first {}: {name}", round_duration(e)),
        (XKind::Data, Some(e)) => format!(
            "Write throughput, first {} written: {name}",
            format_bytes(e, u)
        ),
    };
    let mut legend: Vec<LegendEntry> = series
        .iter()
        .filter(|s| s.in_legend)
        .map(|s| LegendEntry::line(s.name.clone(), s.style))
        .collect();
    if markers.iter().any(|m| m.style == CLIFF_STYLE) {
        legend.push(LegendEntry::line(
            if markers.iter().any(|m| m.interval.is_some()) {
                "cliff (shaded: 95% interval)"
            } else {
                "cliff"
            },
            CLIFF_STYLE,
        ));
    }
    if drop.is_some() {
        legend.push(LegendEntry::line("gradual drop", DROP_STYLE));
    }
    // The phase tints, one legend swatch per kind shown.
    let mut kinds: Vec<PhaseKind> = Vec::new();
    for p in &a.phases {
        if !kinds.contains(&p.kind) && to_x(p.start_s) < x.max {
            kinds.push(p.kind);
        }
    }
    for k in kinds {
        legend.push(LegendEntry {
            name: phase_name(k).to_string(),
            style: LineStyle {
                color: phase_color(k),
                alpha: 1.0,
                width: 1.0,
                dash: Dash::Solid,
            },
            swatch: true,
            group: None,
        });
    }
    let throttled: Vec<(f64, f64)> = if xk == XKind::Time {
        throttled_stretches(t, a)
            .into_iter()
            .map(|(s, e)| (to_x(s), to_x(e).min(x.max)))
            .filter(|(s, e)| e > s)
            .collect()
    } else {
        vec![]
    };
    if !throttled.is_empty() {
        legend.push(LegendEntry {
            name: "throttled (hot and slower)".to_string(),
            style: THROTTLE_STYLE,
            swatch: true,
            group: None,
        });
    }
    with_ticks(ChartSpec {
        kind: match (xk, zoom.is_some()) {
            (XKind::Time, false) => ChartKind::ThroughputTime,
            (XKind::Data, false) => ChartKind::ThroughputData,
            (XKind::Time, true) => ChartKind::ThroughputTimeZoom,
            (XKind::Data, true) => ChartKind::ThroughputDataZoom,
        },
        size: o.png_size,
        title,
        subtitle: cache_subtitle(a, u),
        footer,
        x,
        y,
        y2,
        series,
        bands,
        markers,
        legend,
        zoom: zoom_mark,
        theme: o.theme,
        throttled,
    })
}

fn zoom_kind(xk: XKind) -> ChartKind {
    match xk {
        XKind::Time => ChartKind::ThroughputTimeZoom,
        XKind::Data => ChartKind::ThroughputDataZoom,
    }
}
/// Chart 1: throughput over time.
pub fn throughput_time(t: &Timeline, a: &Analysis, o: &ReportOptions) -> ChartSpec {
    throughput(t, a, o, XKind::Time, None)
}

/// Chart 2: throughput over data written (the reviewers' chart).
pub fn throughput_data(t: &Timeline, a: &Analysis, o: &ReportOptions) -> ChartSpec {
    throughput(t, a, o, XKind::Data, None)
}

/// The zoomed charts (over time, over data written) when the cliffs sit in a small part of a
/// long run (see [`zoom_range`]); none otherwise.
pub fn zoomed(t: &Timeline, a: &Analysis, o: &ReportOptions) -> Vec<ChartSpec> {
    match zoom_range(t, a) {
        Some((es, eb)) => vec![
            throughput(t, a, o, XKind::Time, Some(es)),
            throughput(t, a, o, XKind::Data, Some(eb)),
        ],
        None => vec![],
    }
}

/// Reads one latency from a sample.
type LatencyOf = fn(&crate::timeline::Sample) -> Option<f64>;

/// Chart 3: latency over time (p50, p99, max per interval; log axis), or `None` when the
/// timeline has no latencies (imported logs).
pub fn latency(t: &Timeline, a: &Analysis, o: &ReportOptions) -> Option<ChartSpec> {
    if !t
        .samples
        .iter()
        .any(|s| s.lat_p50_us.is_some() || s.lat_max_us.is_some())
    {
        return None;
    }
    let u = o.units;
    let rows = sample_rows(t);
    let provisional = Layout::new(o.png_size, false, 1);
    let footer = wrap_parts(
        &footer_parts(&t.meta, a, u),
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    );
    let layout = Layout::new(o.png_size, false, footer.len());
    let (xdiv, xun) = time_scale(t.duration_s());
    let cols = columns(o.png_size);
    let ms = 1000.0;
    // Drawn in this order: the median first, max last and thin on top, so that max shows
    // where it meets p99.
    let specs: [(&str, LatencyOf, LineStyle, bool); 3] = [
        (
            "p50 (median)",
            |s| s.lat_p50_us,
            LineStyle {
                color: palette::BLACK,
                alpha: 1.0,
                width: 2.5,
                dash: Dash::Solid,
            },
            false,
        ),
        (
            "p99",
            |s| s.lat_p99_us,
            LineStyle {
                color: palette::BLUISH_GREEN,
                alpha: 1.0,
                width: 3.0,
                dash: Dash::Dashed { on: 12, off: 7 },
            },
            true,
        ),
        (
            "max",
            |s| s.lat_max_us,
            LineStyle {
                // Not vermillion: that is the cliff markers' colour.
                color: palette::SKY_BLUE,
                alpha: 1.0,
                width: 1.5,
                dash: Dash::Solid,
            },
            true,
        ),
    ];
    let mut series = Vec::new();
    for (name, get, style, worst) in specs {
        let value = |i: usize| get(&t.samples[i]).filter(|v| *v > 0.0);
        let pts = if rows.len() > cols {
            // Dense data: one point per pair of pixel columns (the column's median, or its
            // largest value for p99 and max), so the line is a plain path and dashes show.
            column_series(&rows, xdiv, value, ms, cols / 2, worst)
        } else {
            interval_series(&rows, XKind::Time, xdiv, value, ms, cols)
        };
        if !pts.is_empty() {
            series.push(Series {
                name: name.to_string(),
                points: pts,
                style,
                side: YSide::Left,
                in_legend: true,
                group: None,
            });
        }
    }
    let (mn, mx) = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    // The axis starts at a labelled value (1, 2 or 5 times a power of ten) below the data.
    let lo = nice_floor_125(mn / 1.2);
    let hi_data = (mx * 1.5).max(lo * 10.0);
    let x = Axis {
        label: format!("time since start ({xun})"),
        min: rows.first().map(|r| r.0.min(0.0) / xdiv).unwrap_or(0.0),
        max: (t.duration_s() / xdiv).max(1e-9),
        log: false,
        ticks: vec![],
    };
    let mut markers: Vec<Marker> = a
        .cliffs
        .iter()
        .map(|c| Marker {
            x: c.t_s / xdiv,
            interval: Some((c.t_low_s / xdiv, c.t_high_s / xdiv)).filter(|(l, h)| h > l),
            lines: vec![cliff_label(c.t_s, c.bytes_written, u)],
            style: CLIFF_STYLE,
            side: LabelSide::Right,
            row: 0,
            group: None,
        })
        .collect();
    let frac = place_markers(&mut markers, &x, &layout).clamp(0.0, 0.6);
    // Room at the top of a log axis: stretch the decades.
    let (llo, lhi) = (lo.log10(), hi_data.log10());
    let hi = 10f64.powf(llo + (lhi - llo) / (1.0 - frac));
    let mut legend: Vec<LegendEntry> = series
        .iter()
        .rev()
        .map(|s| LegendEntry::line(s.name.clone(), s.style))
        .collect();
    if !markers.is_empty() {
        legend.push(LegendEntry::line("cliff", CLIFF_STYLE));
    }
    Some(with_ticks(ChartSpec {
        kind: ChartKind::Latency,
        size: o.png_size,
        title: format!("Write latency per interval: {}", run_name(&t.meta)),
        subtitle: cache_subtitle(a, u),
        footer,
        x,
        y: Axis {
            label: "write latency (ms, log scale)".to_string(),
            min: lo,
            max: hi,
            log: true,
            ticks: vec![],
        },
        y2: None,
        series,
        bands: vec![],
        markers,
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    }))
}

/// The largest 1, 2 or 5 times a power of ten at or below `v` (> 0).
fn nice_floor_125(v: f64) -> f64 {
    if v.is_nan() || v <= 0.0 || !v.is_finite() {
        return 1e-3;
    }
    let p = 10f64.powf(v.log10().floor());
    [5.0, 2.0, 1.0]
        .iter()
        .map(|m| m * p)
        .find(|x| *x <= v * (1.0 + 1e-9))
        .unwrap_or(p)
}

/// One point per column of `columns` equal time bins: the bin's median, or its largest value
/// with `worst`.
fn column_series(
    rows: &[(f64, f64, f64, f64, f64)],
    xdiv: f64,
    value: impl Fn(usize) -> Option<f64>,
    ydiv: f64,
    columns: usize,
    worst: bool,
) -> Vec<(f64, f64)> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return vec![];
    };
    let (lo, hi) = (first.0, last.1);
    let columns = columns.max(1);
    let w = ((hi - lo) / columns as f64).max(1e-12);
    let mut bins: Vec<Vec<f64>> = vec![Vec::new(); columns];
    for (i, r) in rows.iter().enumerate() {
        if let Some(v) = value(i) {
            let c = (((0.5 * (r.0 + r.1) - lo) / w) as usize).min(columns - 1);
            bins[c].push(v);
        }
    }
    bins.into_iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(c, mut b)| {
            b.sort_by(f64::total_cmp);
            let v = if worst {
                b[b.len() - 1]
            } else {
                b[b.len() / 2]
            };
            ((lo + (c as f64 + 0.5) * w) / xdiv, v / ydiv)
        })
        .collect()
}
/// The names without the words all of them start with (when something is left of each).
pub fn distinct_tails(names: &[&str]) -> Vec<String> {
    let first = names.first().copied().unwrap_or("");
    let mut cut = 0;
    if names.len() > 1 {
        // The longest common start, cut back to just after a space.
        let common = names.iter().skip(1).fold(first.len(), |n, s| {
            first
                .char_indices()
                .zip(s.chars())
                .take_while(|((_, a), b)| a == b)
                .map(|((i, a), _)| i + a.len_utf8())
                .last()
                .unwrap_or(0)
                .min(n)
        });
        cut = first[..common].rfind(' ').map(|i| i + 1).unwrap_or(0);
    }
    names
        .iter()
        .map(|n| {
            let tail = n[cut.min(n.len())..].trim_start_matches([',', ' ']);
            if tail.is_empty() { n } else { tail }.to_string()
        })
        .collect()
}

/// A run's name cut to 24 characters for labels on the plot (the legend has it in full).
pub fn short_name(name: &str) -> String {
    if name.chars().count() <= 24 {
        name.to_string()
    } else {
        name.chars().take(23).collect::<String>() + "…"
    }
}

/// One run of a comparison.
#[derive(Debug, Clone, Copy)]
pub struct CompareRun<'a> {
    /// Name in the legend (unique among the runs).
    pub name: &'a str,
    /// The timeline.
    pub timeline: &'a Timeline,
    /// Its analysis.
    pub analysis: &'a Analysis,
}

/// The colour and dash of the `i`-th run of a comparison: Okabe-Ito colours (no yellow, too
/// light on white) and four dash patterns, combined so that no two of the first 14 runs share
/// both; runs stay apart in grey too.
pub fn run_style(i: usize) -> LineStyle {
    const COLORS: [Rgb; 7] = [
        palette::BLUE,
        palette::VERMILLION,
        palette::BLUISH_GREEN,
        palette::REDDISH_PURPLE,
        palette::BLACK,
        palette::ORANGE,
        palette::SKY_BLUE,
    ];
    const DASHES: [Dash; 4] = [
        Dash::Solid,
        Dash::Dashed { on: 14, off: 6 },
        Dash::Dashed { on: 4, off: 4 },
        Dash::Dashed { on: 20, off: 6 },
    ];
    let (c, round) = (i % COLORS.len(), i / COLORS.len());
    LineStyle {
        color: COLORS[c],
        alpha: 1.0,
        width: 3.0,
        dash: DASHES[(c + 2 * round) % DASHES.len()],
    }
}

/// Where a run's x axis starts in a comparison aligned on the cliff: its first cliff (time in
/// seconds, bytes written), or none without a cliff (then it is not shifted).
fn cliff_origin(r: &CompareRun<'_>) -> Option<(f64, f64)> {
    let c = r.analysis.cliffs.first()?;
    let bytes = r
        .analysis
        .cache_estimate
        .as_ref()
        .map(|e| e.bytes)
        .unwrap_or(c.bytes_written);
    Some((c.t_s, bytes as f64))
}

fn compare(runs: &[CompareRun<'_>], o: &ReportOptions, xk: XKind) -> ChartSpec {
    let u = o.units;
    let align = o.align_cliff;
    // Per run: the shift of its x axis (seconds or bytes) when aligned on the cliff.
    let shift: Vec<f64> = runs
        .iter()
        .map(|r| match (align, cliff_origin(r), xk) {
            (true, Some((ts, _)), XKind::Time) => ts,
            (true, Some((_, b)), XKind::Data) => b,
            _ => 0.0,
        })
        .collect();
    let (mut lo_raw, mut hi_raw) = (0.0f64, 0.0f64);
    for (r, s) in runs.iter().zip(&shift) {
        let end = match xk {
            XKind::Time => r.timeline.duration_s(),
            XKind::Data => r.timeline.bytes_total() as f64,
        };
        lo_raw = lo_raw.min(-s);
        hi_raw = hi_raw.max(end - s);
    }
    let span = (hi_raw - lo_raw).max(hi_raw.abs()).max(lo_raw.abs());
    let from = if align { " from the cliff" } else { "" };
    let (xdiv, xlabel) = match xk {
        XKind::Time => {
            let (d, un) = time_scale(span);
            (
                d,
                if align {
                    format!("time from the cliff ({un})")
                } else {
                    format!("time since start ({un})")
                },
            )
        }
        XKind::Data => {
            let (d, un) = data_scale(span, u);
            (d, format!("data written{from} ({un})"))
        }
    };
    let ydiv = u.mega();
    let cols = columns(o.png_size);
    let many = runs.len() > 4;
    // Label texts on the plot: each name without what all names share at their start
    // ("Samsung SSD 960 EVO 250GB (simulated), " before the start times).
    let all: Vec<&str> = runs.iter().map(|r| r.name).collect();
    let tags = distinct_tails(&all);
    let mut series = Vec::new();
    let mut legend = Vec::new();
    let mut markers = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let style = run_style(i);
        let sh = shift[i] / xdiv;
        let rows = sample_rows(r.timeline);
        let mut raw = interval_series(&rows, xk, xdiv, |k| Some(rows[k].4), ydiv, cols);
        for p in &mut raw {
            p.0 -= sh;
        }
        series.push(Series {
            name: format!("{} (per interval)", r.name),
            points: raw,
            style: LineStyle {
                alpha: if many { 0.18 } else { 0.30 },
                width: 1.0,
                dash: Dash::Solid,
                ..style
            },
            side: YSide::Left,
            in_legend: false,
            group: Some(i),
        });
        let breaks: Vec<f64> = r.analysis.cliffs.iter().map(|c| c.t_s).collect();
        if let Some(sm) = smooth(&rows, &breaks) {
            series.push(Series {
                name: r.name.to_string(),
                points: sm
                    .points
                    .iter()
                    .map(|&(tm, bm, v)| {
                        (
                            match xk {
                                XKind::Time => tm / xdiv,
                                XKind::Data => bm / xdiv,
                            } - sh,
                            v / ydiv,
                        )
                    })
                    .collect(),
                style,
                side: YSide::Left,
                in_legend: false,
                group: Some(i),
            });
        }
        let no_cliff_note = if align && r.analysis.cliffs.is_empty() {
            " (no cliff: not shifted)"
        } else {
            ""
        };
        legend.push(LegendEntry {
            name: format!("{}{no_cliff_note}", r.name),
            style,
            swatch: false,
            group: Some(i),
        });
        if let Some(c) = r.analysis.cliffs.first() {
            let bytes = cliff_origin(r)
                .map(|x| x.1 as u64)
                .unwrap_or(c.bytes_written);
            let xv = match xk {
                XKind::Time => c.t_s / xdiv,
                XKind::Data => bytes as f64 / xdiv,
            } - sh;
            // Many runs: one short line per label (the name and where its cliff is), so the
            // labels do not cover the plot.
            let lines = if many {
                vec![format!(
                    "{}: {}",
                    short_name(&tags[i]),
                    match xk {
                        XKind::Time => format_seconds(c.t_s),
                        XKind::Data => format_bytes(bytes as f64, u),
                    }
                )]
            } else {
                vec![
                    format!("{}: {}", short_name(&tags[i]), cliff_label(c.t_s, bytes, u)),
                    levels_label(c.before_bytes_per_sec, c.after_bytes_per_sec, u),
                ]
            };
            markers.push(Marker {
                x: xv,
                interval: None,
                lines,
                style: LineStyle {
                    width: 2.0,
                    dash: Dash::Dashed { on: 10, off: 6 },
                    ..style
                },
                side: LabelSide::Right,
                row: 0,
                group: Some(i),
            });
        }
    }
    // The footer: the workload once when the runs share it, then the version. The drives are
    // in the legend and in compare.md's table.
    let workloads: Vec<String> = runs
        .iter()
        .map(|r| workload_text(&r.timeline.meta, r.analysis.interval_s))
        .collect();
    let mut parts = Vec::new();
    if workloads.iter().all(|w| *w == workloads[0]) {
        parts.push(format!("Workload: {}", workloads[0]));
    } else if !many {
        for (r, w) in runs.iter().zip(&workloads) {
            parts.push(format!("{}: {w}", short_name(r.name)));
        }
    } else {
        parts.push("Workloads differ: see compare.md".to_string());
    }
    if align {
        parts.push("each run shifted so that its first cliff is at 0".to_string());
    }
    parts.push(format!("slccache {}", crate::VERSION));
    let provisional = Layout::new(o.png_size, false, 1);
    let footer = wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    );
    let layout = Layout::new(o.png_size, false, footer.len())
        .with_legend_rows(legend_rows(&legend, o.png_size).len());
    let x = Axis {
        label: xlabel,
        min: lo_raw / xdiv,
        max: (hi_raw / xdiv).max(lo_raw / xdiv + 1e-9),
        log: false,
        ticks: vec![],
    };
    let frac = place_markers(&mut markers, &x, &layout).min(0.45);
    let data_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let sizes: Vec<String> = runs
        .iter()
        .map(
            |r| match (&r.analysis.cache_estimate, r.analysis.cliffs.is_empty()) {
                (Some(e), _) => format!("{}: {}", r.name, format_bytes(e.bytes as f64, u)),
                (None, true) => format!(
                    "{}: no cliff (no cache, or > {})",
                    r.name,
                    format_bytes(
                        r.analysis
                            .cache_lower_bound_bytes
                            .unwrap_or(r.analysis.bytes_total) as f64,
                        u
                    )
                ),
                (None, false) => format!("{}: cliff, size not estimated", r.name),
            },
        )
        .collect();
    let mut subtitle = format!("SLC cache size  ·  {}", sizes.join("  ·  "));
    let sub_w = o.png_size.0 as f64 - 48.0 * layout.scale;
    if text_width(&subtitle, layout.font(font_px::SUBTITLE)) > sub_w {
        // Too long for one line: the range of the sizes (each run's is in its cliff label).
        let est: Vec<u64> = runs
            .iter()
            .filter_map(|r| r.analysis.cache_estimate.as_ref().map(|e| e.bytes))
            .collect();
        let without = runs.iter().filter(|r| r.analysis.cliffs.is_empty()).count();
        subtitle = format!("{} runs", runs.len());
        if let (Some(lo), Some(hi)) = (est.iter().min(), est.iter().max()) {
            subtitle.push_str(&format!(
                "  ·  SLC cache from {} to {}",
                format_bytes(*lo as f64, u),
                format_bytes(*hi as f64, u)
            ));
        }
        if without > 0 {
            subtitle.push_str(&format!("  ·  {without} without a cliff"));
        }
        subtitle.push_str("  ·  sizes per run in the labels and in compare.md");
    }
    with_ticks(ChartSpec {
        kind: match xk {
            XKind::Time => ChartKind::CompareTime,
            XKind::Data => ChartKind::CompareData,
        },
        size: o.png_size,
        title: match xk {
            XKind::Time => "Write throughput over time: comparison".to_string(),
            XKind::Data => "Write throughput over data written: comparison".to_string(),
        },
        subtitle,
        footer,
        x,
        y: Axis {
            label: format!("write throughput ({}/s)", u.mega_label()),
            min: 0.0,
            max: headroom_linear(data_max, frac),
            log: false,
            ticks: vec![],
        },
        y2: None,
        series,
        bands: vec![],
        markers,
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    })
}
/// Comparison over time: thin per-interval lines and a thick smoothed line per run.
pub fn compare_time(runs: &[CompareRun<'_>], o: &ReportOptions) -> ChartSpec {
    compare(runs, o, XKind::Time)
}

/// Comparison over data written.
pub fn compare_data(runs: &[CompareRun<'_>], o: &ReportOptions) -> ChartSpec {
    compare(runs, o, XKind::Data)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn plot_labels_drop_the_shared_start() {
        assert_eq!(
            distinct_tails(&["Samsung 960, 10:06:55", "Samsung 960, 10:07:16"]),
            ["10:06:55", "10:07:16"]
        );
        assert_eq!(distinct_tails(&["a", "b"]), ["a", "b"]);
        assert_eq!(distinct_tails(&["one run", "one run"]), ["run", "run"]);
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
}
