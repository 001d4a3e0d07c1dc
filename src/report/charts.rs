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
        }
    }
}

/// A colour, 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// The Okabe-Ito palette: distinguishable with the common colour-vision deficiencies. Together
/// with different widths and dash patterns, lines stay apart when printed in grey.
pub mod palette {
    use super::Rgb;
    /// Black.
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    /// Orange.
    pub const ORANGE: Rgb = Rgb(230, 159, 0);
    /// Sky blue.
    pub const SKY_BLUE: Rgb = Rgb(86, 180, 233);
    /// Bluish green.
    pub const BLUISH_GREEN: Rgb = Rgb(0, 158, 115);
    /// Yellow.
    pub const YELLOW: Rgb = Rgb(240, 228, 66);
    /// Blue.
    pub const BLUE: Rgb = Rgb(0, 114, 178);
    /// Vermillion.
    pub const VERMILLION: Rgb = Rgb(213, 94, 0);
    /// Reddish purple.
    pub const REDDISH_PURPLE: Rgb = Rgb(204, 121, 167);
    /// Mid grey, for neutral marks.
    pub const GREY: Rgb = Rgb(120, 120, 120);
}

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
fn with_ticks(mut s: ChartSpec) -> ChartSpec {
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
}

/// One entry of the legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// Text.
    pub name: String,
    /// The line sample drawn next to it.
    pub style: LineStyle,
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
    /// Legend, drawn in one row under the subtitle.
    pub legend: Vec<LegendEntry>,
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
        }
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
                rows.get(r).map_or(true, |placed: &Vec<(f64, f64)>| {
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
    if bs >= 1 << 20 && bs % (1 << 20) == 0 {
        format!("{} MiB", bs >> 20)
    } else if bs >= 1024 && bs % 1024 == 0 {
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
        _ => parts.push(run_name(meta)),
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

/// Joins parts into lines that fit `width` pixels at footer size (at most 3 lines).
pub fn wrap_parts(parts: &[String], width: f64, px: f64) -> Vec<String> {
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
    if max_s <= 1200.0 {
        (1.0, "s")
    } else if max_s <= 3.0 * 3600.0 {
        (60.0, "min")
    } else {
        (3600.0, "h")
    }
}

/// Data axis scale: GB (GiB), or TB (TiB) above 2000 GB.
pub fn data_scale(max_bytes: f64, units: UnitSystem) -> (f64, &'static str) {
    let g = units.giga();
    let k = match units {
        UnitSystem::Decimal => 1000.0,
        UnitSystem::Binary => 1024.0,
    };
    if max_bytes > 2000.0 * g {
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

/// Linear range 0..max with room at the top for `frac` of the height (labels).
fn headroom_linear(data_max: f64, frac: f64) -> f64 {
    let m = if data_max > 0.0 { data_max } else { 1.0 };
    m * 1.04 / (1.0 - frac.clamp(0.0, 0.6))
}

/// Assigns label sides and rows to markers and returns the fraction of the plot height the
/// label rows take.
fn place_markers(markers: &mut [Marker], x: &Axis, layout: &Layout) -> f64 {
    if markers.is_empty() {
        return 0.0;
    }
    let (l, top, r, bottom) = layout.plot_rect();
    let (l, r) = (l as f64, r as f64);
    let span = (x.max - x.min).max(1e-12);
    let anchors: Vec<(f64, f64)> = markers
        .iter()
        .map(|m| {
            (
                l + (m.x - x.min) / span * (r - l),
                layout.label_box_w(&m.lines),
            )
        })
        .collect();
    let placed = place_labels(&anchors, l, r, layout.label_gap());
    let mut rows_h = vec![0.0f64; markers.len() + 1];
    for (m, (side, row, _)) in markers.iter_mut().zip(placed) {
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

/// The single-run throughput charts (over time or over data written).
fn throughput(t: &Timeline, a: &Analysis, o: &ReportOptions, xk: XKind) -> ChartSpec {
    let u = o.units;
    let rows = sample_rows(t);
    let temps: Vec<Option<f64>> = t.samples.iter().map(|s| s.temp_c).collect();
    let has_temp = xk == XKind::Time && temps.iter().any(|x| x.is_some());
    let provisional = Layout::new(o.png_size, has_temp, 1);
    let (plot_l, _, plot_r, _) = provisional.plot_rect();
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
    let _ = (plot_l, plot_r);

    let (xdiv, xunit, xlabel) = match xk {
        XKind::Time => {
            let (d, un) = time_scale(t.duration_s());
            (d, un, format!("time since start ({un})"))
        }
        XKind::Data => {
            let (d, un) = data_scale(t.bytes_total() as f64, u);
            (d, un, format!("data written ({un})"))
        }
    };
    let _ = xunit;
    let ydiv = u.mega();
    let cols = columns(o.png_size);

    let x_min = match xk {
        XKind::Time => rows.first().map(|r| r.0.min(0.0)).unwrap_or(0.0),
        XKind::Data => 0.0,
    };
    let x_max_raw = match xk {
        XKind::Time => t.duration_s() / xdiv,
        XKind::Data => t.bytes_total() as f64 / xdiv,
    };
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
            name: format!("smoothed (moving median, {})", format_seconds(sm.window_s)),
            points: pts,
            style: LineStyle {
                color: palette::BLUE,
                alpha: 1.0,
                width: 3.0,
                dash: Dash::Solid,
            },
            side: YSide::Left,
            in_legend: true,
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
        });
    }

    let to_x = |t_s: f64| match xk {
        XKind::Time => t_s / xdiv,
        XKind::Data => bytes_at(t, t_s) / xdiv,
    };
    let bands = a
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
            }
        })
        .collect();
    let frac = place_markers(&mut markers, &x, &layout);
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
    let title = match xk {
        XKind::Time => format!("Write throughput over time: {name}"),
        XKind::Data => format!("Write throughput over data written: {name}"),
    };
    let legend = series
        .iter()
        .filter(|s| s.in_legend)
        .map(|s| LegendEntry {
            name: s.name.clone(),
            style: s.style,
        })
        .chain((!markers.is_empty()).then(|| LegendEntry {
            name: "cliff (shaded: 95% interval)".to_string(),
            style: CLIFF_STYLE,
        }))
        .collect();
    with_ticks(ChartSpec {
        kind: match xk {
            XKind::Time => ChartKind::ThroughputTime,
            XKind::Data => ChartKind::ThroughputData,
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
    })
}

/// Chart 1: throughput over time.
pub fn throughput_time(t: &Timeline, a: &Analysis, o: &ReportOptions) -> ChartSpec {
    throughput(t, a, o, XKind::Time)
}

/// Chart 2: throughput over data written (the reviewers' chart).
pub fn throughput_data(t: &Timeline, a: &Analysis, o: &ReportOptions) -> ChartSpec {
    throughput(t, a, o, XKind::Data)
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
    let specs: [(&str, LatencyOf, LineStyle); 3] = [
        (
            "max",
            |s| s.lat_max_us,
            LineStyle {
                color: palette::SKY_BLUE,
                alpha: 1.0,
                width: 1.5,
                dash: Dash::Solid,
            },
        ),
        (
            "p99",
            |s| s.lat_p99_us,
            LineStyle {
                color: palette::BLUISH_GREEN,
                alpha: 1.0,
                width: 2.0,
                dash: Dash::Dashed { on: 8, off: 4 },
            },
        ),
        (
            "p50 (median)",
            |s| s.lat_p50_us,
            LineStyle {
                color: palette::BLACK,
                alpha: 1.0,
                width: 2.5,
                dash: Dash::Solid,
            },
        ),
    ];
    let mut series = Vec::new();
    for (name, get, mut style) in specs {
        if rows.len() > cols {
            // A min/max envelope zig-zags within each pixel column: dashes would only break it
            // up (and bloat the SVG); colour and width keep the lines apart.
            style.dash = Dash::Solid;
            style.width = style.width.min(1.5);
        }
        let pts = interval_series(
            &rows,
            XKind::Time,
            xdiv,
            |i| get(&t.samples[i]).filter(|v| *v > 0.0),
            ms,
            cols,
        );
        if !pts.is_empty() {
            series.push(Series {
                name: name.to_string(),
                points: pts,
                style,
                side: YSide::Left,
                in_legend: true,
            });
        }
    }
    let (mn, mx) = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let lo = mn / 1.5;
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
        })
        .collect();
    let frac = place_markers(&mut markers, &x, &layout).clamp(0.0, 0.6);
    // Room at the top of a log axis: stretch the decades.
    let (llo, lhi) = (lo.log10(), hi_data.log10());
    let hi = 10f64.powf(llo + (lhi - llo) / (1.0 - frac));
    let mut legend: Vec<LegendEntry> = series
        .iter()
        .rev()
        .map(|s| LegendEntry {
            name: s.name.clone(),
            style: s.style,
        })
        .collect();
    if !markers.is_empty() {
        legend.push(LegendEntry {
            name: "cliff".to_string(),
            style: CLIFF_STYLE,
        });
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
    }))
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
/// light on white) each with its own dash pattern, so runs stay apart in grey.
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
    LineStyle {
        color: COLORS[i % COLORS.len()],
        alpha: 1.0,
        width: 3.0,
        dash: DASHES[i % DASHES.len()],
    }
}

fn compare(runs: &[CompareRun<'_>], o: &ReportOptions, xk: XKind) -> ChartSpec {
    let u = o.units;
    let max_t = runs
        .iter()
        .map(|r| r.timeline.duration_s())
        .fold(0.0, f64::max);
    let max_b = runs
        .iter()
        .map(|r| r.timeline.bytes_total() as f64)
        .fold(0.0, f64::max);
    let (xdiv, xlabel) = match xk {
        XKind::Time => {
            let (d, un) = time_scale(max_t);
            (d, format!("time since start ({un})"))
        }
        XKind::Data => {
            let (d, un) = data_scale(max_b, u);
            (d, format!("data written ({un})"))
        }
    };
    let ydiv = u.mega();
    let cols = columns(o.png_size);
    let mut series = Vec::new();
    let mut legend = Vec::new();
    let mut markers = Vec::new();
    let mut parts = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let style = run_style(i);
        let rows = sample_rows(r.timeline);
        let raw = interval_series(&rows, xk, xdiv, |k| Some(rows[k].4), ydiv, cols);
        series.push(Series {
            name: format!("{} (per interval)", r.name),
            points: raw,
            style: LineStyle {
                alpha: 0.30,
                width: 1.0,
                dash: Dash::Solid,
                ..style
            },
            side: YSide::Left,
            in_legend: false,
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
                            },
                            v / ydiv,
                        )
                    })
                    .collect(),
                style,
                side: YSide::Left,
                in_legend: false,
            });
        }
        legend.push(LegendEntry {
            name: r.name.to_string(),
            style,
        });
        if let Some(c) = r.analysis.cliffs.first() {
            let bytes = r
                .analysis
                .cache_estimate
                .as_ref()
                .map(|e| e.bytes)
                .unwrap_or(c.bytes_written);
            let xv = match xk {
                XKind::Time => c.t_s / xdiv,
                XKind::Data => bytes as f64 / xdiv,
            };
            markers.push(Marker {
                x: xv,
                interval: None,
                lines: vec![
                    format!("{}: {}", short_name(r.name), cliff_label(c.t_s, bytes, u)),
                    levels_label(c.before_bytes_per_sec, c.after_bytes_per_sec, u),
                ],
                style: LineStyle {
                    width: 2.0,
                    dash: Dash::Dashed { on: 10, off: 6 },
                    ..style
                },
                side: LabelSide::Right,
                row: 0,
            });
        }
        let drive = drive_text(&r.timeline.meta, u);
        let workload = workload_text(&r.timeline.meta, r.analysis.interval_s);
        parts.push(if drive == r.name {
            format!("{}: {workload}", r.name)
        } else {
            format!("{}: {drive}; {workload}", r.name)
        });
    }
    parts.push(format!("slccache {}", crate::VERSION));
    let provisional = Layout::new(o.png_size, false, 1);
    let footer = wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    );
    let layout = Layout::new(o.png_size, false, footer.len());
    let x = Axis {
        label: xlabel,
        min: 0.0,
        max: match xk {
            XKind::Time => max_t / xdiv,
            XKind::Data => max_b / xdiv,
        }
        .max(1e-9),
        log: false,
        ticks: vec![],
    };
    let frac = place_markers(&mut markers, &x, &layout);
    let data_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let subtitle = runs
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
        .collect::<Vec<_>>()
        .join("  ·  ");
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
        subtitle: format!("SLC cache size  ·  {subtitle}"),
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
