//! Charts and `report.md` of the burst experiments (`recovery`, `fill-sweep`).
//!
//! - [`ChartKind::Recovery`] `recovery`: the cache that came back against idle time, each
//!   point with its 95% interval, the fitted recovery model, the model's truth where known,
//!   the first burst's cache, and the delay and full-recovery time marked with their
//!   intervals;
//! - [`ChartKind::FillSweep`] `fill-sweep`: the cache against the fill level, each point with
//!   its interval, and the model's cache against fill where known;
//! - [`ChartKind::RecoveryBursts`] / [`ChartKind::FillSweepBursts`]: every burst overlaid on
//!   the data-written axis (the comparison chart of [`charts::compare_data`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::charts::{
    self, drive_text, font_px, palette, place_markers, with_ticks, wrap_parts, Axis, ChartKind,
    ChartSpec, CompareRun, Dash, LabelSide, Layout, LegendEntry, LineStyle, Marker, Series, YSide,
};
use super::ReportOptions;
use crate::results::recovery::{BurstRecord, BurstSummary, FillSweepSummary, RecoverySummary};
use crate::timeline::RunMeta;
use crate::units::short_secs;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

const MEASURED: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 2.5,
    dash: Dash::Solid,
};

const FIT: LineStyle = LineStyle {
    color: palette::BLUE,
    alpha: 1.0,
    width: 3.0,
    dash: Dash::Solid,
};

const TRUTH: LineStyle = LineStyle {
    color: palette::GREY,
    alpha: 0.9,
    width: 2.0,
    dash: Dash::Dashed { on: 12, off: 6 },
};

const FIRST: LineStyle = LineStyle {
    color: palette::BLUISH_GREEN,
    alpha: 0.9,
    width: 2.0,
    dash: Dash::Dashed { on: 4, off: 5 },
};

fn series(name: &str, points: Vec<(f64, f64)>, style: LineStyle) -> Series {
    Series {
        name: name.to_string(),
        points,
        style,
        side: YSide::Left,
        in_legend: false,
        group: None,
    }
}

/// Chart units per pixel on each axis of a plot of `size` (for marks drawn in pixels).
fn per_px(size: (u32, u32), footer_lines: usize, x: &Axis, y: &Axis) -> (f64, f64, f64) {
    let l = Layout::new(size, false, footer_lines);
    let (left, top, right, bottom) = l.plot_rect();
    (
        (x.max - x.min) / (right - left).max(1) as f64,
        (y.max - y.min) / (bottom - top).max(1) as f64,
        l.scale,
    )
}

/// A point with its 95% interval: a diamond, a vertical bar and two caps, as series.
fn point_marks(
    x: f64,
    y: f64,
    lo: f64,
    hi: f64,
    (ux, uy, scale): (f64, f64, f64),
    style: LineStyle,
) -> Vec<Series> {
    let r = 7.0 * scale;
    let (dx, dy) = (r * ux, r * uy);
    let cap = 0.8 * dx;
    let thin = LineStyle {
        width: 2.0,
        ..style
    };
    vec![
        series("", vec![(x, lo), (x, hi)], thin),
        series("", vec![(x - cap, lo), (x + cap, lo)], thin),
        series("", vec![(x - cap, hi), (x + cap, hi)], thin),
        series(
            "",
            vec![
                (x - dx, y),
                (x, y + dy),
                (x + dx, y),
                (x, y - dy),
                (x - dx, y),
            ],
            LineStyle {
                width: 3.0,
                ..style
            },
        ),
    ]
}

fn footer(meta: &RunMeta, extra: &[String], o: &ReportOptions) -> Vec<String> {
    let mut parts = vec![
        format!("Drive: {}", drive_text(meta, o.units)),
        format!(
            "Workload: {}",
            charts::workload_text(meta, meta.workload.interval_s.unwrap_or(1.0))
        ),
    ];
    parts.extend(extra.iter().cloned());
    if let Some(t) = meta.started_at {
        parts.push(t.format("%Y-%m-%d %H:%M UTC").to_string());
    }
    parts.push(format!("slccache {}", crate::VERSION));
    let provisional = Layout::new(o.png_size, false, 1);
    wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    )
}

fn interval_text(
    v: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    f: impl Fn(f64) -> String,
) -> String {
    match (v, lo, hi) {
        (Some(v), Some(l), Some(h)) => format!("{} [{} .. {}]", f(v), f(l), f(h)),
        (Some(v), _, _) => f(v),
        _ => "not determined".to_string(),
    }
}

/// The recovery chart.
pub fn recovery_chart(sum: &RecoverySummary, o: &ReportOptions) -> ChartSpec {
    let u = o.units;
    let g = u.giga();
    let fit = &sum.recovery.fit;
    let pts = &sum.recovery.points;
    let max_idle = pts.iter().map(|p| p.idle_s).fold(0.0, f64::max).max(1.0);
    let (xdiv, xunit) = charts::time_scale(max_idle);
    let first_cache = sum.recovery.first_burst.as_ref().map(|b| b.cache_bytes);
    let y_top = pts
        .iter()
        .map(|p| p.high_bytes)
        .chain(first_cache)
        .chain(fit.full_cache_bytes)
        .fold(0.0, f64::max)
        .max(1.0);
    let x = Axis {
        label: format!("idle time before the burst ({xunit})"),
        min: 0.0,
        max: max_idle * 1.05 / xdiv,
        log: false,
        ticks: vec![],
    };
    let mut legend = vec![];
    let mut series_v = vec![];
    let mut markers = vec![];
    // The fitted curve.
    let curve_pts = |delay: f64, rate: f64, plateau: Option<f64>| -> Vec<(f64, f64)> {
        let at = |t: f64| {
            let r = rate * (t - delay).max(0.0);
            plateau.map_or(r, |c| r.min(c))
        };
        let mut ts = vec![0.0, delay.min(x.max * xdiv)];
        if let Some(c) = plateau {
            if rate > 0.0 {
                ts.push((delay + c / rate).min(x.max * xdiv));
            }
        }
        ts.push(x.max * xdiv);
        ts.sort_by(f64::total_cmp);
        ts.dedup();
        ts.iter().map(|&t| (t / xdiv, at(t) / g)).collect()
    };
    if let Some(c) = first_cache {
        series_v.push(series(
            "first burst",
            vec![(0.0, c / g), (x.max, c / g)],
            FIRST,
        ));
        legend.push(LegendEntry {
            name: format!("first burst: {}", format_bytes(c, u)),
            style: FIRST,
            swatch: false,
            group: None,
        });
    }
    if let (Some(r), Some(d)) = (fit.fold_rate_bytes_per_sec, fit.delay_s) {
        let plateau = if fit.plateau_seen {
            fit.full_cache_bytes
        } else {
            None
        };
        series_v.push(series("fit", curve_pts(d, r, plateau), FIT));
        legend.push(LegendEntry {
            name: "fitted recovery model".into(),
            style: FIT,
            swatch: false,
            group: None,
        });
        markers.push(Marker {
            group: None,
            x: d / xdiv,
            interval: fit
                .delay_s_low
                .zip(fit.delay_s_high)
                .map(|(a, b)| (a / xdiv, b / xdiv)),
            lines: vec![
                format!("folding starts after {}", format_seconds(d)),
                format!("at {}", format_rate(r, u)),
            ],
            style: LineStyle {
                width: 2.0,
                dash: Dash::Dashed { on: 10, off: 6 },
                ..FIT
            },
            side: LabelSide::Right,
            row: 0,
        });
        if let Some(f) = fit.full_recovery_s.filter(|f| *f <= x.max * xdiv) {
            markers.push(Marker {
                group: None,
                x: f / xdiv,
                interval: fit
                    .full_recovery_s_low
                    .zip(fit.full_recovery_s_high)
                    .map(|(a, b)| (a / xdiv, (b / xdiv).min(x.max))),
                lines: vec![
                    format!("whole again after {}", format_seconds(f)),
                    fit.full_cache_bytes
                        .map(|c| format!("cache {}", format_bytes(c, u)))
                        .unwrap_or_default(),
                ],
                style: LineStyle {
                    width: 2.0,
                    dash: Dash::Dashed { on: 10, off: 6 },
                    ..FIT
                },
                side: LabelSide::Right,
                row: 0,
            });
        }
    }
    // The truth goes over the fit, so that both show where they coincide.
    if let Some(t) = &sum.truth {
        let plateau = t.full_cache_bytes;
        series_v.push(series(
            "model truth",
            curve_pts(t.recover_delay_s, t.recover_bytes_per_sec, plateau),
            TRUTH,
        ));
        legend.push(LegendEntry {
            name: format!(
                "model truth: {} after {}",
                format_rate(t.recover_bytes_per_sec, u),
                format_seconds(t.recover_delay_s)
            ),
            style: TRUTH,
            swatch: false,
            group: None,
        });
    }
    legend.push(LegendEntry {
        name: "measured, with 95% interval".into(),
        style: MEASURED,
        swatch: false,
        group: None,
    });
    let foot = footer(
        &sum.run,
        &[format!(
            "idle order (seed {}): {}",
            sum.config.seed,
            sum.recovery
                .order_s
                .iter()
                .map(|s| short_secs(*s))
                .collect::<Vec<_>>()
                .join(", ")
        )],
        o,
    );
    let layout = Layout::new(o.png_size, false, foot.len());
    let frac = place_markers(&mut markers, &x, &layout);
    let y = Axis {
        label: format!("cache recovered ({})", u.giga_label()),
        min: 0.0,
        max: charts::headroom_linear(y_top / g, frac),
        log: false,
        ticks: vec![],
    };
    let unit = per_px(o.png_size, foot.len(), &x, &y);
    for p in pts {
        series_v.extend(point_marks(
            p.idle_s / xdiv,
            p.recovered_bytes / g,
            p.low_bytes / g,
            p.high_bytes / g,
            unit,
            MEASURED,
        ));
    }
    let subtitle = format!(
        "folding {} after {}; whole again after {}{}",
        interval_text(
            fit.fold_rate_bytes_per_sec,
            fit.fold_rate_bytes_per_sec_low,
            fit.fold_rate_bytes_per_sec_high,
            |v| format_rate(v, u)
        ),
        interval_text(
            fit.delay_s,
            fit.delay_s_low,
            fit.delay_s_high,
            format_seconds
        ),
        interval_text(
            fit.full_recovery_s,
            fit.full_recovery_s_low,
            fit.full_recovery_s_high,
            format_seconds
        ),
        if sum.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    with_ticks(ChartSpec {
        kind: ChartKind::Recovery,
        size: o.png_size,
        title: format!(
            "SLC cache recovery while idle: {}",
            charts::run_name(&sum.run)
        ),
        subtitle,
        footer: foot,
        x,
        y,
        y2: None,
        series: series_v,
        bands: vec![],
        markers,
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    })
}

/// The fill-sweep chart.
pub fn fill_chart(sum: &FillSweepSummary, o: &ReportOptions) -> ChartSpec {
    let u = o.units;
    let g = u.giga();
    let pts = &sum.fill_sweep.points;
    let model = sum.config.model.as_ref();
    let truth_curve: Vec<(f64, f64)> = model
        .map(|m| {
            (0..=200)
                .map(|i| {
                    let f = i as f64 / 200.0;
                    (100.0 * f, m.cache_at_fill(f) / g)
                })
                .collect()
        })
        .unwrap_or_default();
    let y_top = pts
        .iter()
        .map(|p| p.high_bytes / g)
        .chain(truth_curve.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1e-3);
    let x = Axis {
        label: "fill level when the burst began (% of the span)".into(),
        min: 0.0,
        max: 100.0,
        log: false,
        ticks: vec![],
    };
    let foot = footer(
        &sum.run,
        &[format!(
            "idle {} after each fill{}",
            format_seconds(sum.fill_sweep.idle_s),
            if sum.config.trim_first == Some(true) {
                ", span discarded first"
            } else {
                ""
            }
        )],
        o,
    );
    let y = Axis {
        label: format!("SLC cache ({})", u.giga_label()),
        min: 0.0,
        max: charts::headroom_linear(y_top, 0.0),
        log: false,
        ticks: vec![],
    };
    let mut series_v = vec![];
    let mut legend = vec![];
    let line: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| (p.actual_fill_pct, p.cache_bytes / g))
        .collect();
    series_v.push(series(
        "measured",
        line,
        LineStyle {
            width: 1.5,
            alpha: 0.6,
            ..MEASURED
        },
    ));
    let mut markers = vec![];
    if let Some(m) = model.filter(|m| m.dynamic_cache.0 > 0 && m.dynamic_until < 1.0) {
        markers.push(Marker {
            group: None,
            x: 100.0 * m.dynamic_until,
            interval: None,
            lines: vec![
                format!(
                    "model: dynamic part gone at {:.0}% full",
                    100.0 * m.dynamic_until
                ),
                format!("static cache {}", format_bytes(m.static_cache.as_f64(), u)),
            ],
            style: LineStyle {
                width: 2.0,
                ..TRUTH
            },
            side: LabelSide::Right,
            row: 0,
        });
    }
    let layout = Layout::new(o.png_size, false, foot.len());
    let frac = place_markers(&mut markers, &x, &layout);
    let y = Axis {
        max: charts::headroom_linear(y_top, frac),
        ..y
    };
    let unit = per_px(o.png_size, foot.len(), &x, &y);
    for p in pts {
        series_v.extend(point_marks(
            p.actual_fill_pct,
            p.cache_bytes / g,
            p.low_bytes / g,
            p.high_bytes / g,
            unit,
            MEASURED,
        ));
    }
    legend.push(LegendEntry {
        name: "measured, with 95% interval".into(),
        style: MEASURED,
        swatch: false,
        group: None,
    });
    // The model goes over the measurements, so that both show where they coincide.
    if !truth_curve.is_empty() {
        series_v.push(series("model", truth_curve, TRUTH));
        legend.push(LegendEntry {
            name: "model: cache against fill".into(),
            style: TRUTH,
            swatch: false,
            group: None,
        });
    }
    let subtitle = pts
        .iter()
        .map(|p| format!("{}%: {}", p.fill_pct, format_bytes(p.cache_bytes, u)))
        .collect::<Vec<_>>()
        .join("  ·  ");
    with_ticks(ChartSpec {
        kind: ChartKind::FillSweep,
        size: o.png_size,
        title: format!(
            "SLC cache against fill level: {}",
            charts::run_name(&sum.run)
        ),
        subtitle: format!(
            "cache at each level  ·  {subtitle}{}",
            if sum.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        ),
        footer: foot,
        x,
        y,
        y2: None,
        series: series_v,
        bands: vec![],
        markers,
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    })
}

/// Every burst overlaid over data written.
pub fn bursts_chart(
    bursts: &[&BurstRecord],
    kind: ChartKind,
    title: &str,
    o: &ReportOptions,
) -> ChartSpec {
    let runs: Vec<CompareRun<'_>> = bursts
        .iter()
        .map(|b| CompareRun {
            name: &b.label,
            timeline: &b.timeline,
            analysis: &b.analysis,
        })
        .collect();
    let mut spec = charts::compare_data(&runs, o);
    spec.kind = kind;
    spec.title = title.to_string();
    // The bursts share the drive and workload: say them once; the subtitle gives the cache
    // each burst found as the experiment read it (a cache too short for the detector too).
    if let Some(b) = bursts.first() {
        spec.footer = footer(&b.timeline.meta, &[], o);
    }
    spec.subtitle = format!(
        "SLC cache found  ·  {}",
        bursts
            .iter()
            .map(|b| format!("{}: {}", b.label, format_bytes(b.cache.bytes, o.units)))
            .collect::<Vec<_>>()
            .join("  ·  ")
    );
    // One short label per cliff: the burst and the cache it found.
    for m in &mut spec.markers {
        m.lines.truncate(1);
    }
    spec
}

fn write(dir: &Path, spec: &ChartSpec, files: &mut Vec<PathBuf>) -> Result<()> {
    files.extend(super::write_chart(dir, spec)?);
    Ok(())
}

fn units_note(u: UnitSystem) -> &'static str {
    match u {
        UnitSystem::Decimal => "decimal units: 1 MB = 10^6 bytes, 1 GB = 10^9 bytes",
        UnitSystem::Binary => "binary units: 1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes",
    }
}

fn chart_links(kinds: &[(ChartKind, &str)]) -> String {
    let mut s = String::new();
    for (k, title) in kinds {
        let stem = k.file_stem();
        s += &format!(
            "### {title}\n\n![{title}]({stem}.png)\n\nVector version: [{stem}.svg]({stem}.svg)\n\n"
        );
    }
    s
}

/// `report.md` of `recovery`.
pub fn recovery_md(sum: &RecoverySummary, u: UnitSystem) -> String {
    let f = &sum.recovery.fit;
    let mut s = format!("# SLC cache recovery: {}\n\n", charts::run_name(&sum.run));
    if sum.interrupted {
        s += "**Interrupted**: only the finished steps are below.\n\n";
    }
    s += "| | estimate | 95% interval |";
    if sum.truth.is_some() {
        s += " model |";
    }
    s += "\n|---|---|---|";
    if sum.truth.is_some() {
        s += "---|";
    }
    s += "\n";
    let row = |name: &str,
               v: Option<f64>,
               lo: Option<f64>,
               hi: Option<f64>,
               t: Option<f64>,
               fmt: &dyn Fn(f64) -> String| {
        let mut r = format!(
            "| {name} | {} | {} |",
            v.map(fmt).unwrap_or_else(|| "not determined".into()),
            match (lo, hi) {
                (Some(a), Some(b)) => format!("{} .. {}", fmt(a), fmt(b)),
                _ => "-".into(),
            }
        );
        if sum.truth.is_some() {
            r += &format!(" {} |", t.map(fmt).unwrap_or_else(|| "-".into()));
        }
        r + "\n"
    };
    let rate = |v: f64| format_rate(v, u);
    s += &row(
        "folding rate while idle",
        f.fold_rate_bytes_per_sec,
        f.fold_rate_bytes_per_sec_low,
        f.fold_rate_bytes_per_sec_high,
        sum.truth.as_ref().map(|t| t.recover_bytes_per_sec),
        &rate,
    );
    s += &row(
        "delay before folding",
        f.delay_s,
        f.delay_s_low,
        f.delay_s_high,
        sum.truth.as_ref().map(|t| t.recover_delay_s),
        &format_seconds,
    );
    s += &row(
        "idle time to full recovery",
        f.full_recovery_s,
        f.full_recovery_s_low,
        f.full_recovery_s_high,
        sum.truth.as_ref().and_then(|t| t.full_recovery_s),
        &format_seconds,
    );
    s += "\n## Points\n\n| step | idle | cache recovered | 95% interval | read by | burst | timeline |\n|---|---|---|---|---|---|---|\n";
    if let Some(b) = &sum.recovery.first_burst {
        s += &format!(
            "| 0 | (first burst) | {} | {} .. {} | {} |{}",
            format_bytes(b.cache_bytes, u),
            format_bytes(b.low_bytes, u),
            format_bytes(b.high_bytes, u),
            b.method,
            burst_cells(b, u)
        );
    }
    for p in &sum.recovery.points {
        s += &format!(
            "| {} | {} | {} | {} .. {} | {} |{}",
            p.step,
            short_secs(p.idle_s),
            format_bytes(p.recovered_bytes, u),
            format_bytes(p.low_bytes, u),
            format_bytes(p.high_bytes, u),
            p.burst.method,
            burst_cells(&p.burst, u)
        );
    }
    s += &warnings_and_charts(
        &sum.warnings,
        &[
            (ChartKind::Recovery, "Cache recovered against idle time"),
            (ChartKind::RecoveryBursts, "The bursts over data written"),
        ],
    );
    s += &format!(
        "Idle times run in the order {} (shuffled with seed {}). Made with slccache {} ({}).\n",
        sum.recovery
            .order_s
            .iter()
            .map(|x| short_secs(*x))
            .collect::<Vec<_>>()
            .join(", "),
        sum.config.seed,
        crate::VERSION,
        units_note(u)
    );
    s
}

/// `report.md` of `fill-sweep`.
pub fn fill_md(sum: &FillSweepSummary, u: UnitSystem) -> String {
    let mut s = format!(
        "# SLC cache against fill level: {}\n\n",
        charts::run_name(&sum.run)
    );
    if sum.interrupted {
        s += "**Interrupted**: only the finished levels are below.\n\n";
    }
    let model = sum.truth.is_some();
    s += "| fill level | cache | 95% interval | read by |";
    if model {
        s += " model |";
    }
    s += " burst | timeline |\n|---|---|---|---|";
    if model {
        s += "---|";
    }
    s += "---|---|\n";
    for p in &sum.fill_sweep.points {
        s += &format!(
            "| {}%{} | {} | {} .. {} | {} |",
            p.fill_pct,
            if (p.actual_fill_pct - p.fill_pct).abs() > 0.05 {
                format!(" ({:.1}% at the burst)", p.actual_fill_pct)
            } else {
                String::new()
            },
            format_bytes(p.cache_bytes, u),
            format_bytes(p.low_bytes, u),
            format_bytes(p.high_bytes, u),
            p.burst.method
        );
        if model {
            s += &format!(
                " {} |",
                p.truth_cache_bytes
                    .map(|t| format_bytes(t, u))
                    .unwrap_or_else(|| "-".into())
            );
        }
        s += &burst_cells(&p.burst, u);
    }
    s += &warnings_and_charts(
        &sum.warnings,
        &[
            (ChartKind::FillSweep, "Cache size against fill level"),
            (ChartKind::FillSweepBursts, "The bursts over data written"),
        ],
    );
    s += &format!(
        "Idle {} after each fill. Made with slccache {} ({}).\n",
        format_seconds(sum.fill_sweep.idle_s),
        crate::VERSION,
        units_note(u)
    );
    s
}

/// Writes the recovery charts and `report.md`; returns the files written.
pub fn write_recovery_outputs(
    dir: &Path,
    sum: &RecoverySummary,
    bursts: &[&BurstRecord],
    o: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    write_json(dir, sum)?;
    write_recovery_csv(dir, sum)?;
    write_experiment_outputs(
        dir,
        recovery_chart(sum, o),
        (bursts, ChartKind::RecoveryBursts, "Recovery", &sum.run),
        &recovery_md(sum, o.units),
        o,
    )
}

/// Writes the fill-sweep charts and `report.md`; returns the files written.
pub fn write_fill_outputs(
    dir: &Path,
    sum: &FillSweepSummary,
    bursts: &[&BurstRecord],
    o: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    write_json(dir, sum)?;
    write_fill_csv(dir, sum)?;
    write_experiment_outputs(
        dir,
        fill_chart(sum, o),
        (bursts, ChartKind::FillSweepBursts, "Fill-sweep", &sum.run),
        &fill_md(sum, o.units),
        o,
    )
}

/// The bursts of an experiment for their chart: the records, the chart's kind, the
/// experiment's name for the title ("Recovery"), and the run.
type BurstsChart<'a> = (&'a [&'a BurstRecord], ChartKind, &'a str, &'a RunMeta);

/// Writes an experiment's own chart, the chart of its bursts over data written (when there
/// are bursts) and its `report.md`; returns the files written.
fn write_experiment_outputs(
    dir: &Path,
    main_chart: ChartSpec,
    (bursts, kind, name, run): BurstsChart,
    md: &str,
    o: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    let mut files = vec![];
    write(dir, &main_chart, &mut files)?;
    if !bursts.is_empty() {
        let title = format!("{name} bursts over data written: {}", charts::run_name(run));
        write(dir, &bursts_chart(bursts, kind, &title, o), &mut files)?;
    }
    let p = dir.join("report.md");
    std::fs::write(&p, md)?;
    files.push(p);
    Ok(files)
}

/// The last two cells of a burst's row in a `report.md` table, with the row's end: what it
/// wrote in how long, and a link to its timeline (` 35.0 GB in 37.0 s | [t](t) |`).
fn burst_cells(b: &BurstSummary, u: UnitSystem) -> String {
    format!(
        " {} in {} | [{}]({}) |\n",
        format_bytes(b.bytes_written as f64, u),
        format_seconds(b.duration_s),
        b.timeline,
        b.timeline
    )
}

/// The end of an experiment's `report.md` before its closing line: the warnings (when there
/// are any) and the links to its charts.
fn warnings_and_charts(warnings: &[String], charts: &[(ChartKind, &str)]) -> String {
    let mut s = String::from("\n");
    if !warnings.is_empty() {
        s += "**Warnings**\n\n";
        for w in warnings {
            s += &format!("- {w}\n");
        }
        s += "\n";
    }
    s += "## Charts\n\n";
    s += &chart_links(charts);
    s
}

fn write_json(dir: &Path, v: &impl Serialize) -> Result<PathBuf> {
    let path = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(v)? + "\n")
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

fn write_recovery_csv(dir: &Path, sum: &RecoverySummary) -> Result<PathBuf> {
    let head = [
        "idle_s",
        "recovered_bytes",
        "low_bytes",
        "high_bytes",
        "step",
        "method",
        "burst_bytes",
        "burst_s",
        "end",
        "timeline",
    ];
    let mut rows = Vec::with_capacity(sum.recovery.points.len());
    for p in &sum.recovery.points {
        let end = serde_json::to_value(p.burst.end)?;
        rows.push((
            vec![
                p.idle_s.to_string(),
                format!("{:.0}", p.recovered_bytes),
                format!("{:.0}", p.low_bytes),
                format!("{:.0}", p.high_bytes),
                p.step.to_string(),
                p.burst.method.to_string(),
                p.burst.bytes_written.to_string(),
                format!("{:.3}", p.burst.duration_s),
                end.as_str().unwrap_or("").to_string(),
                p.burst.timeline.clone(),
            ],
            p.truth_recovered_bytes,
        ));
    }
    let truth = sum.truth.is_some().then_some("truth_recovered_bytes");
    write_points_csv(&dir.join("recovery.csv"), &head, truth, rows)
}

/// Writes the CSV of an experiment's points to `path`: the columns `head`, then a row per
/// point. With a model (`truth` names the column) a last column holds the model's figure for
/// each point, empty where it has none.
fn write_points_csv(
    path: &Path,
    head: &[&str],
    truth: Option<&str>,
    rows: Vec<(Vec<String>, Option<f64>)>,
) -> Result<PathBuf> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    let mut head = head.to_vec();
    head.extend(truth);
    w.write_record(&head)?;
    for (mut row, t) in rows {
        if truth.is_some() {
            row.push(t.map(|v| format!("{v:.0}")).unwrap_or_default());
        }
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(path.to_path_buf())
}

fn opt_num(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "?".into())
}

/// The closing lines of `recovery`.
pub fn recovery_text(sum: &RecoverySummary, units: UnitSystem) -> String {
    let f = &sum.recovery.fit;
    let rate = |v: f64| format_rate(v, units);
    let mut s = format!(
        "{}: {} steps{}\n",
        sum.run.label,
        sum.recovery.points.len(),
        if sum.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    if let Some(b) = &sum.recovery.first_burst {
        s += &format!(
            "  first burst: cache {} [{} .. {}]\n",
            format_bytes(b.cache_bytes, units),
            format_bytes(b.low_bytes, units),
            format_bytes(b.high_bytes, units)
        );
    }
    for p in &sum.recovery.points {
        s += &format!(
            "  idle {:>8}: {} came back [{} .. {}]\n",
            short_secs(p.idle_s),
            format_bytes(p.recovered_bytes, units),
            format_bytes(p.low_bytes, units),
            format_bytes(p.high_bytes, units)
        );
    }
    s += &format!(
        "  fit: folding {} [{} .. {}] after a delay of {} [{} .. {}]; whole again after {} [{} .. {}]\n",
        opt_num(f.fold_rate_bytes_per_sec, rate),
        opt_num(f.fold_rate_bytes_per_sec_low, rate),
        opt_num(f.fold_rate_bytes_per_sec_high, rate),
        opt_num(f.delay_s, format_seconds),
        opt_num(f.delay_s_low, format_seconds),
        opt_num(f.delay_s_high, format_seconds),
        opt_num(f.full_recovery_s, format_seconds),
        opt_num(f.full_recovery_s_low, format_seconds),
        opt_num(f.full_recovery_s_high, format_seconds),
    );
    if let Some(t) = &sum.truth {
        s += &format!(
            "  model truth: folding {} after {}\n",
            rate(t.recover_bytes_per_sec),
            format_seconds(t.recover_delay_s)
        );
    }
    for w in &sum.warnings {
        s += &format!("  warning: {w}\n");
    }
    s
}

fn write_fill_csv(dir: &Path, sum: &FillSweepSummary) -> Result<PathBuf> {
    let head = [
        "fill_pct",
        "cache_bytes",
        "low_bytes",
        "high_bytes",
        "actual_fill_pct",
        "filled_bytes",
        "method",
        "burst_bytes",
        "burst_s",
        "timeline",
    ];
    let rows = sum
        .fill_sweep
        .points
        .iter()
        .map(|p| {
            (
                vec![
                    p.fill_pct.to_string(),
                    format!("{:.0}", p.cache_bytes),
                    format!("{:.0}", p.low_bytes),
                    format!("{:.0}", p.high_bytes),
                    format!("{:.2}", p.actual_fill_pct),
                    p.filled_bytes.to_string(),
                    p.burst.method.to_string(),
                    p.burst.bytes_written.to_string(),
                    format!("{:.3}", p.burst.duration_s),
                    p.burst.timeline.clone(),
                ],
                p.truth_cache_bytes,
            )
        })
        .collect();
    let truth = sum.truth.is_some().then_some("truth_cache_bytes");
    write_points_csv(&dir.join("fill-sweep.csv"), &head, truth, rows)
}

/// The closing lines of `fill-sweep`.
pub fn fill_text(sum: &FillSweepSummary, units: UnitSystem) -> String {
    let mut s = format!(
        "{}: {} levels{}\n",
        sum.run.label,
        sum.fill_sweep.points.len(),
        if sum.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    for p in &sum.fill_sweep.points {
        s += &format!(
            "  {:>5.1}% full: cache {} [{} .. {}]{}\n",
            p.fill_pct,
            format_bytes(p.cache_bytes, units),
            format_bytes(p.low_bytes, units),
            format_bytes(p.high_bytes, units),
            p.truth_cache_bytes
                .map(|t| format!(" (model: {})", format_bytes(t, units)))
                .unwrap_or_default()
        );
    }
    for w in &sum.warnings {
        s += &format!("  warning: {w}\n");
    }
    s
}

/// One run on a drive's history charts (`slccache history`).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    /// Run id in the store.
    pub id: i64,
    /// Days since the drive's first run.
    pub days: f64,
    /// Cache size and its 95 % interval, bytes.
    pub cache: Option<(f64, f64, f64)>,
    /// Throughput after the cache, bytes/s.
    pub after_bytes_per_sec: Option<f64>,
    /// Data the drive reported written at the end of the run, bytes (SMART data units).
    pub drive_written_bytes: Option<f64>,
    /// SMART percentage used at the end of the run.
    pub percentage_used: Option<f64>,
}

/// The history charts of one drive: cache size (with interval) and after-cache rate against
/// the run date, and cache size against the drive's data written where SMART was read.
/// `first_date` names day 0.
pub fn history_charts(
    drive: &str,
    first_date: &str,
    pts: &[HistoryPoint],
    o: &ReportOptions,
) -> Vec<ChartSpec> {
    let u = o.units;
    let g = u.giga();
    let days_x = |p: &HistoryPoint| Some(p.days);
    let mut out = vec![history_chart(
        ChartKind::HistoryCacheDate,
        format!("SLC cache size over time: {drive}"),
        format!("days since the first run ({first_date})"),
        format!("cache size ({})", u.giga_label()),
        pts,
        &days_x,
        &|p| p.cache.map(|(c, lo, hi)| (c / g, lo / g, hi / g)),
        o,
    )];
    let m = u.mega();
    out.push(history_chart(
        ChartKind::HistoryRateDate,
        format!("Throughput after the cache over time: {drive}"),
        format!("days since the first run ({first_date})"),
        format!("after-cache throughput ({}/s)", u.mega_label()),
        pts,
        &days_x,
        &|p| p.after_bytes_per_sec.map(|r| (r / m, r / m, r / m)),
        o,
    ));
    if pts
        .iter()
        .any(|p| p.drive_written_bytes.is_some() && p.cache.is_some())
    {
        let (t, t_label) = match u {
            UnitSystem::Decimal => (1e12, "TB"),
            UnitSystem::Binary => (1_099_511_627_776.0, "TiB"),
        };
        let used: Vec<String> = pts
            .iter()
            .filter_map(|p| {
                p.percentage_used
                    .map(|x| format!("run {}: {x:.0}% used", p.id))
            })
            .collect();
        let mut c = history_chart(
            ChartKind::HistoryCacheWear,
            format!("SLC cache size against wear: {drive}"),
            format!("data the drive had written ({t_label})"),
            format!("cache size ({})", u.giga_label()),
            pts,
            &|p| p.drive_written_bytes.map(|b| b / t),
            &|p| p.cache.map(|(c, lo, hi)| (c / g, lo / g, hi / g)),
            o,
        );
        if !used.is_empty() {
            c.footer
                .push(format!("SMART percentage used: {}", used.join(", ")));
        }
        out.push(c);
    }
    out
}

/// A run's value on a history chart, with its interval.
type YOf<'a> = dyn Fn(&HistoryPoint) -> Option<(f64, f64, f64)> + 'a;

#[allow(clippy::too_many_arguments)]
fn history_chart(
    kind: ChartKind,
    title: String,
    x_label: String,
    y_label: String,
    pts: &[HistoryPoint],
    x_of: &dyn Fn(&HistoryPoint) -> Option<f64>,
    y_of: &YOf<'_>,
    o: &ReportOptions,
) -> ChartSpec {
    let xy: Vec<(f64, (f64, f64, f64))> = pts
        .iter()
        .filter_map(|p| Some((x_of(p)?, y_of(p)?)))
        .collect();
    let x_max = xy.iter().map(|p| p.0).fold(0.0, f64::max);
    let x_min = xy.iter().map(|p| p.0).fold(x_max, f64::min);
    let span = (x_max - x_min).max(1.0);
    let x = Axis {
        label: x_label,
        min: (x_min - 0.05 * span).max(0.0).min(x_min),
        max: x_max + 0.05 * span,
        log: false,
        ticks: vec![],
    };
    let y_top = xy.iter().map(|p| p.1 .2).fold(0.0, f64::max).max(1e-9);
    let y = Axis {
        label: y_label,
        min: 0.0,
        max: charts::headroom_linear(y_top, 0.0),
        log: false,
        ticks: vec![],
    };
    let footer = vec![format!(
        "{} run(s) with a value of {} in the store; slccache {}",
        xy.len(),
        pts.len(),
        crate::VERSION
    )];
    let px = per_px(o.png_size, footer.len(), &x, &y);
    let mut series_v = Vec::new();
    // The runs joined in order, then each with its interval.
    series_v.push(series(
        "runs",
        xy.iter().map(|(x, (v, _, _))| (*x, *v)).collect(),
        LineStyle {
            width: 1.5,
            alpha: 0.6,
            ..MEASURED
        },
    ));
    for (x, (v, lo, hi)) in &xy {
        series_v.extend(point_marks(*x, *v, *lo, *hi, px, MEASURED));
    }
    // The unit is the y label's, in its brackets.
    let unit = y
        .label
        .rsplit_once('(')
        .map(|(_, u)| u.trim_end_matches(')').to_string())
        .unwrap_or_default();
    let subtitle = match xy.last() {
        Some((_, (v, lo, hi))) if hi > lo => {
            format!("latest run: {v:.1} {unit} (95% interval {lo:.1} to {hi:.1} {unit})")
        }
        Some((_, (v, _, _))) => format!("latest run: {v:.1} {unit}"),
        None => "no run has this value".into(),
    };
    with_ticks(ChartSpec {
        kind,
        size: o.png_size,
        title,
        subtitle,
        footer,
        x,
        y,
        y2: None,
        series: series_v,
        bands: vec![],
        markers: vec![],
        legend: vec![LegendEntry {
            name: "run, with 95% interval".into(),
            style: MEASURED,
            swatch: false,
            group: None,
        }],
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    })
}

/// Writes a drive's history into `dir` (created if missing): the [`history_charts`] as PNG and
/// SVG, and `report.html` with them; returns the files written.
pub fn write_history_outputs(
    dir: &Path,
    drive: &str,
    first_date: &str,
    pts: &[HistoryPoint],
    o: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let specs = history_charts(drive, first_date, pts, o);
    let mut files = Vec::new();
    for s in &specs {
        files.extend(super::write_chart(dir, s)?);
    }
    let extra = super::html::HtmlExtra {
        title: Some(format!("SLC cache history: {drive}")),
        notes: pts
            .iter()
            .map(|p| format!("run {}: day {:.1}", p.id, p.days))
            .collect(),
        ..Default::default()
    };
    files.push(super::html::write_report_html(dir, &[], &specs, o, &extra)?);
    Ok(files)
}
