//! The latency chart: p50, p99 and max latency per interval, log axis.
use crate::detect::Analysis;
use crate::timeline::Timeline;

use super::*;
use crate::report::ReportOptions;

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
        title: format!(
            "{} latency per interval: {}",
            crate::detect::Findings::of(a).direction(),
            run_title(&t.meta)
        ),
        subtitle: fit_subtitle(&cache_subtitle_clauses(a, u), o.png_size),
        footer,
        x,
        y: Axis {
            label: format!(
                "{} latency (ms, log scale)",
                crate::detect::Findings::of(a).direction().to_lowercase()
            ),
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
pub(super) fn nice_floor_125(v: f64) -> f64 {
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
pub(super) fn column_series(
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
