//! The throughput charts, over time and over data written, and their zoomed versions: rate per
//! interval, a smoothed line, phases shaded, cliffs and drops marked, temperature on a second
//! axis where recorded.
use crate::detect::{Analysis, DropWhere, PhaseKind};
use crate::timeline::Timeline;
use crate::units::{format_bytes, format_rate, format_time_point};

use super::*;
use crate::report::draw::decimate::{envelope, smooth};
use crate::report::ReportOptions;

/// What the x axis measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum XKind {
    Time,
    Data,
}

/// Per sample: (start s, end s, bytes before, bytes after, rate).
pub(super) fn sample_rows(t: &Timeline) -> Vec<(f64, f64, f64, f64, f64)> {
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
pub(super) fn columns(size: (u32, u32)) -> usize {
    ((size.0 as f64) * 0.85) as usize
}

/// The per-interval series: steps when every interval gets at least a pixel, else each pixel
/// column's minimum and maximum.
pub(super) fn interval_series(
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

/// The rate series of merged samples: each sample's lowest and highest rate (`env`) at its
/// middle, reduced to the min/max envelope per pixel column, so that the chart of a merged
/// timeline draws the extremes of the samples it merged, as the chart of every sample would.
fn envelope_series(
    rows: &[(f64, f64, f64, f64, f64)],
    env: &[(f64, f64)],
    xk: XKind,
    xdiv: f64,
    ydiv: f64,
    cols: usize,
) -> Vec<(f64, f64)> {
    let mut pts = Vec::with_capacity(rows.len() * 2);
    for (r, e) in rows.iter().zip(env) {
        let x = match xk {
            XKind::Time => 0.5 * (r.0 + r.1) / xdiv,
            XKind::Data => 0.5 * (r.2 + r.3) / xdiv,
        };
        pts.push((x, e.0 / ydiv));
        pts.push((x, e.1 / ydiv));
    }
    let (lo, hi) = match (pts.first(), pts.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => (0.0, 0.0),
    };
    envelope(&pts, lo, hi, cols)
}

/// The name of a phase tint of `a` in the legend: the names the bands of that tint carry
/// ([`phase_names`]), so that a tint is never called "after the cache" where its band reads
/// "first post-cache level", nor "folding" where it reads "after the cache (folding)". The
/// parts of one stretch ("after the cache, part 1 of 3") go under the stretch's name; the
/// throttled stretches have a tint of their own, named as their bands are ("thermal
/// throttling").
fn legend_name(a: &Analysis, tint: Rgb) -> String {
    let names = crate::detect::findings::phase_names(a);
    let mut seen: Vec<String> = Vec::new();
    for (p, n) in a.phases.iter().zip(&names) {
        if phase_tint(a, p) != tint {
            continue;
        }
        let n = n.split(", part ").next().unwrap_or(n).to_string();
        if !seen.contains(&n) {
            seen.push(n);
        }
    }
    seen.join(" / ")
}

/// The tint of phase `p` of `a`: its kind's colour, a stall's own (yellow), or, where the
/// drive throttled for heat ([`crate::detect::is_throttled`]), the tint of the throttled
/// stretches.
pub(super) fn phase_tint(a: &Analysis, p: &crate::detect::Phase) -> Rgb {
    // A stall is no level of the drive: a tint of its own, so that the legend never names
    // one swatch "stall / after the cache".
    if p.stall {
        palette::YELLOW
    } else if p.kind == PhaseKind::Throttled || crate::detect::is_throttled(a, p) {
        THROTTLE_STYLE.color
    } else {
        phase_color(p.kind)
    }
}

pub(super) fn phase_color(k: PhaseKind) -> Rgb {
    match k {
        PhaseKind::Cache => palette::SKY_BLUE,
        PhaseKind::PostCache => palette::ORANGE,
        PhaseKind::Folding => palette::REDDISH_PURPLE,
        PhaseKind::Steady => palette::GREY,
        PhaseKind::Throttled => THROTTLE_STYLE.color,
    }
}

pub(super) const CLIFF_STYLE: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 2.5,
    dash: Dash::Dashed { on: 10, off: 6 },
};

/// The marker of a return of the cache while the drive was written.
pub(super) const RETURN_STYLE: LineStyle = LineStyle {
    color: palette::BLUISH_GREEN,
    alpha: 1.0,
    width: 2.5,
    dash: Dash::Dashed { on: 4, off: 4 },
};

/// The marker of a gradual drop in a run without a cliff.
pub(super) const DROP_STYLE: LineStyle = LineStyle {
    color: palette::GREY,
    alpha: 1.0,
    width: 2.0,
    dash: Dash::Dashed { on: 4, off: 5 },
};

/// The throttled stretches (a swatch in the legend, a strip on the chart, as high as its
/// width at the 1600x900 scale); their phases' tint has the same colour.
pub const THROTTLE_STYLE: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 9.0,
    dash: Dash::Solid,
};

/// The single-run throughput charts (over time or over data written); with `zoom` (the end of
/// the range in seconds or bytes, as the axis measures) only the start of the run.
pub(super) fn throughput(
    t: &Timeline,
    a: &Analysis,
    o: &ReportOptions,
    xk: XKind,
    zoom: Option<f64>,
) -> ChartSpec {
    let u = o.units;
    // What the figures are: a run that only read is drawn from its reads.
    let (dir, moved) = {
        let f = crate::detect::Findings::of(a);
        (f.direction(), f.moved())
    };
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
            (d, format!("data {moved} ({un})"))
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

    // A merged timeline keeps each kept sample's lowest and highest rate: the envelope drawn.
    let env = t
        .meta
        .resolution
        .as_ref()
        .map(|r| &r.envelope[..])
        .filter(|e| e.len() == t.samples.len());
    let rate = match env {
        Some(env) if rows.len() > cols => envelope_series(&rows, env, xk, xdiv, ydiv, cols),
        _ => interval_series(&rows, xk, xdiv, |i| Some(rows[i].4), ydiv, cols),
    };
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
    let breaks = smoothing_breaks(a);
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
    let labels = crate::detect::findings::phase_labels(a, u);
    let bands: Vec<Band> = a
        .phases
        .iter()
        .zip(labels)
        .map(|(p, (label, short_label))| Band {
            x0: to_x(p.start_s).max(x.min),
            x1: to_x(p.end_s).min(x.max),
            label,
            short_label,
            level: Some(p.mean_bytes_per_sec / ydiv),
            color: phase_tint(a, p),
        })
        .filter(|b| b.x1 > b.x0)
        .collect();
    // The levels either side of each cliff, as the run's findings give them.
    let f = crate::detect::Findings::of(a);
    let level_before = |i: usize, or: f64| f.steps.get(i).map_or(or, |x| x.before_bytes_per_sec);
    let level_after = |i: usize, or: f64| f.steps.get(i).map_or(or, |x| x.after_bytes_per_sec);
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
                    match f.steps.get(i) {
                        Some(_) => step_levels_label(&f, i, u),
                        None => levels_label(
                            level_before(i, c.before_bytes_per_sec),
                            level_after(i, c.after_bytes_per_sec),
                            u,
                        ),
                    },
                ],
                style: CLIFF_STYLE,
                side: LabelSide::Right,
                row: 0,
                group: None,
            }
        })
        .filter(|m| m.x <= x.max)
        .collect();
    // Each return of the cache while the drive was written: where, and how much it took at
    // the higher rate.
    for r in &a.returns {
        let xv = match xk {
            XKind::Time => r.t_s / xdiv,
            XKind::Data => r.bytes_before as f64 / xdiv,
        };
        if xv > x.max {
            continue;
        }
        markers.push(Marker {
            x: xv,
            interval: None,
            lines: vec![
                format!(
                    "cache came back at {}, {} written",
                    format_time_point(r.t_s),
                    format_bytes(r.bytes_before as f64, u)
                ),
                format!(
                    "+{} at {}{}",
                    format_bytes(r.bytes as f64, u),
                    format_rate(r.bytes_per_sec, u),
                    if r.ran_out_again {
                        ", then it ran out again"
                    } else {
                        ""
                    }
                ),
            ],
            style: RETURN_STYLE,
            side: LabelSide::Right,
            row: 0,
            group: None,
        });
    }
    markers.sort_by(|p, q| p.x.total_cmp(&q.x));
    // A drop the analysis saw but could not confirm: marked where it lies, in the words the
    // terminal uses, never as a gradual drop.
    if let (Some(d), true) = (&a.unconfirmed_drop, !a.read_only) {
        let (xv, interval, lines) = unconfirmed_drop_marker(d, xk, xdiv, u);
        if xv <= x.max {
            markers.push(Marker {
                x: xv.max(x.min),
                interval,
                lines,
                style: DROP_STYLE,
                side: LabelSide::Right,
                row: 0,
                group: None,
            });
        }
    }
    // A run without a cliff that still slows down visibly: say so on the chart. Not a fall to
    // nothing: the analysis names that a stall (2000 MB/s and then 40 s of nothing was boxed
    // "gradual drop: 2000 -> 0.00 MB/s", a finding no other output made).
    let stalled = a.phases.iter().any(|p| p.stall);
    let drop = if a.cliffs.is_empty() && a.unconfirmed_drop.is_none() && !stalled {
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
                        XKind::Time => format_time_point(c.t_s),
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
    // The temperature's axis leaves the label rows the same room: the cliff labels and the
    // zoom mark were drawn over the temperature curve, which ran up to the top of the plot.
    if let Some(y2) = y2.as_mut() {
        let keep = 1.0 - frac.clamp(0.0, 0.6);
        y2.max = (y2.min + (y2.max - y2.min) / keep).ceil();
    }
    let data_max = series
        .iter()
        .filter(|s| s.side == YSide::Left)
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let y = Axis {
        label: format!("{} throughput ({}/s)", dir.to_lowercase(), u.mega_label()),
        min: 0.0,
        max: headroom_linear(data_max, frac),
        log: false,
        ticks: vec![],
    };
    let name = run_title(&t.meta);
    let title = match (xk, zoom) {
        (XKind::Time, None) => format!("{dir} throughput over time: {name}"),
        (XKind::Data, None) => format!("{dir} throughput over data {moved}: {name}"),
        (XKind::Time, Some(e)) => format!("{dir} throughput, first {}: {name}", round_duration(e)),
        (XKind::Data, Some(e)) => format!(
            "{dir} throughput, first {} {moved}: {name}",
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
                "cliff (hatched: 95% interval)"
            } else {
                "cliff"
            },
            CLIFF_STYLE,
        ));
    }
    if markers.iter().any(|m| m.style == RETURN_STYLE) {
        legend.push(LegendEntry::line(
            "cache came back while writing",
            RETURN_STYLE,
        ));
    }
    if a.unconfirmed_drop.is_some() && !a.read_only {
        legend.push(LegendEntry::line("drop not confirmed", DROP_STYLE));
    }
    if drop.is_some() {
        legend.push(LegendEntry::line("gradual drop", DROP_STYLE));
    }
    // The phase tints, one legend swatch per tint shown (the throttled stretches' apart from
    // the kind they interrupt).
    let mut tints: Vec<Rgb> = Vec::new();
    for p in &a.phases {
        let c = phase_tint(a, p);
        if !tints.contains(&c) && to_x(p.start_s) < x.max {
            tints.push(c);
        }
    }
    for c in tints {
        legend.push(LegendEntry {
            name: legend_name(a, c),
            style: LineStyle {
                color: c,
                alpha: 1.0,
                width: 1.0,
                dash: Dash::Solid,
            },
            swatch: true,
            group: None,
        });
    }
    let throttled: Vec<Throttle> = if xk == XKind::Time {
        // The throttling the analysis found (its warnings name it, "after the cache" leaves it
        // out), not a guess of the chart's own.
        crate::detect::throttled_spans(a)
            .into_iter()
            .map(|(s, e)| Throttle {
                x0: to_x(s),
                x1: to_x(e).min(x.max),
                color: THROTTLE_STYLE.color,
                lane: 0,
                group: None,
            })
            .filter(|s| s.x1 > s.x0)
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
        subtitle: fit_subtitle(&cache_subtitle_clauses(a, u), o.png_size),
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

pub(super) fn zoom_kind(xk: XKind) -> ChartKind {
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

/// Where a drop the analysis saw but could not confirm is marked (chart units), the range it
/// may lie in (a drop inside the first sample: that sample), and its label's lines: what was
/// seen, then what it means. The single run's chart and a comparison mark it alike.
pub(super) fn unconfirmed_drop_marker(
    d: &crate::detect::UnconfirmedDrop,
    xk: XKind,
    xdiv: f64,
    u: crate::units::UnitSystem,
) -> (f64, Option<(f64, f64)>, Vec<String>) {
    match d.at {
        DropWhere::FirstSample => {
            let (lo, hi) = match xk {
                XKind::Time => (d.t_s / xdiv, d.t_high_s / xdiv),
                XKind::Data => (d.bytes_low as f64 / xdiv, d.bytes_high as f64 / xdiv),
            };
            (
                hi,
                Some((lo, hi)),
                vec![
                    format!(
                        "drop inside the first {} sample: ≥ {}",
                        crate::units::format_interval(d.interval_s),
                        if d.after_is_floor {
                            format!(
                                "{} -> ≥ {} (heat)",
                                rate_number(d.before_bytes_per_sec, u),
                                format_rate(d.after_bytes_per_sec, u)
                            )
                        } else {
                            levels_label(d.before_bytes_per_sec, d.after_bytes_per_sec, u)
                        }
                    ),
                    if d.heat_may_hide_end() {
                        "or later, hidden by heat".to_string()
                    } else {
                        "too early to measure: sample more often".to_string()
                    },
                ],
            )
        }
        _ => (
            match xk {
                XKind::Time => d.t_s / xdiv,
                XKind::Data => d.bytes_low as f64 / xdiv,
            },
            None,
            vec![
                format!(
                    "drop too short to confirm: {}",
                    levels_label(d.before_bytes_per_sec, d.after_bytes_per_sec, u)
                ),
                format!("seen for {:.1} s: a cliff or a pause", d.after_s),
            ],
        ),
    }
}
