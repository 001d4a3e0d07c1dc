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

use crate::report::charts::{
    self, drive_text, font_px, palette, place_markers, with_ticks, wrap_parts, Axis, ChartKind,
    ChartSpec, CompareRun, Dash, LabelSide, Layout, LegendEntry, LineStyle, Marker, Series, YSide,
};
use crate::report::ReportOptions;
use crate::results::recovery::{BurstRecord, FillSweepSummary, RecoverySummary};
use crate::timeline::RunMeta;
use crate::units::short_secs;
use crate::units::{count_text, format_bytes, format_rate, format_seconds};

pub(super) const MEASURED: LineStyle = LineStyle {
    color: palette::VERMILLION,
    alpha: 1.0,
    width: 2.5,
    dash: Dash::Solid,
};

pub(super) const FIT: LineStyle = LineStyle {
    color: palette::BLUE,
    alpha: 1.0,
    width: 3.0,
    dash: Dash::Solid,
};

pub(super) const TRUTH: LineStyle = LineStyle {
    color: palette::GREY,
    alpha: 0.9,
    width: 2.0,
    dash: Dash::Dashed { on: 12, off: 6 },
};

pub(super) const FIRST: LineStyle = LineStyle {
    color: palette::BLUISH_GREEN,
    alpha: 0.9,
    width: 2.0,
    dash: Dash::Dashed { on: 4, off: 5 },
};

pub(super) fn series(name: &str, points: Vec<(f64, f64)>, style: LineStyle) -> Series {
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
pub(super) fn per_px(size: (u32, u32), footer_lines: usize, x: &Axis, y: &Axis) -> (f64, f64, f64) {
    let l = Layout::new(size, false, footer_lines);
    let (left, top, right, bottom) = l.plot_rect();
    (
        (x.max - x.min) / (right - left).max(1) as f64,
        (y.max - y.min) / (bottom - top).max(1) as f64,
        l.scale,
    )
}

/// A point with its 95% interval: a diamond, a vertical bar and two caps, as series.
pub(super) fn point_marks(
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

/// A range with no point on it: a dashed bar from `lo` to `hi` with caps, at `x`.
pub(super) fn range_marks(
    x: f64,
    lo: f64,
    hi: f64,
    (ux, _, scale): (f64, f64, f64),
    style: LineStyle,
) -> Vec<Series> {
    let cap = 0.8 * 7.0 * scale * ux;
    let thin = LineStyle {
        width: 2.0,
        ..style
    };
    vec![
        series(
            "",
            vec![(x, lo), (x, hi)],
            LineStyle {
                width: 2.5,
                dash: Dash::Dashed { on: 6, off: 4 },
                ..style
            },
        ),
        series("", vec![(x - cap, lo), (x + cap, lo)], thin),
        series("", vec![(x - cap, hi), (x + cap, hi)], thin),
    ]
}

pub(super) fn footer(meta: &RunMeta, extra: &[String], o: &ReportOptions) -> Vec<String> {
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
    // An experiment's own stop (an interrupt), as a probe's footer says it.
    if let Some(r) = meta.stop_reason {
        parts.push(format!("stopped: {r}"));
    }
    parts.push(format!("slccache {}", crate::VERSION));
    let provisional = Layout::new(o.png_size, false, 1);
    wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    )
}

pub(super) fn interval_text(
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
    // With no point (interrupted in the first burst, or no cliff in it), the idle times
    // planned set the x axis, and the model's cache (else 1 GB) the y axis: the range is never
    // empty, and never a byte where the truth's curve reaches gigabytes.
    let max_idle = pts
        .iter()
        .map(|p| p.idle_s)
        .fold(0.0, f64::max)
        .max(if pts.is_empty() {
            sum.recovery.order_s.iter().copied().fold(0.0, f64::max)
        } else {
            0.0
        })
        .max(1.0);
    let (xdiv, xunit) = charts::time_scale(max_idle);
    // A drop inside the first sample bounds the cache, and gives no size to draw.
    let first_cache = sum
        .recovery
        .first_burst
        .as_ref()
        .filter(|b| {
            b.method != crate::results::recovery::FIRST_SAMPLE_DROP
                && b.method != crate::results::recovery::TOO_FEW_SAMPLES
        })
        .map(|b| b.cache_bytes);
    // A first burst without a cliff bounds the cache from below, as report.md says it.
    let first_bound = sum
        .recovery
        .first_burst
        .as_ref()
        .map(|b| b.method)
        .filter(|&m| crate::results::recovery::is_bound(m));
    // The model's truth as far as the x axis reaches: its curve was clipped flat along the
    // top of an axis that the points alone set (a 2 GB cache drawn at 1.5 GB from 6 s on).
    let truth_top = sum.truth().map(|t| {
        let r = t.recover_bytes_per_sec * (max_idle * 1.05 - t.recover_delay_s).max(0.0);
        t.full_cache_bytes.map_or(r, |c| r.min(c))
    });
    let y_top = pts
        .iter()
        .map(|p| p.high_bytes)
        .chain(first_cache)
        .chain(fit.full_cache_bytes)
        .chain(truth_top.filter(|_| !pts.is_empty() || first_cache.is_some()))
        .fold(0.0, f64::max);
    let y_top = if y_top > 0.0 {
        y_top.max(1.0)
    } else {
        sum.truth()
            .and_then(|t| t.full_cache_bytes)
            .or_else(|| sum.truth().map(|t| t.cache_empty_bytes as f64))
            .filter(|c| *c > 0.0)
            .unwrap_or(g)
    };
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
            name: if let Some(m) = first_bound {
                format!(
                    "first burst: >= {} ({})",
                    format_bytes(c, u),
                    if m == "none" {
                        "no cliff"
                    } else {
                        "drop unconfirmed"
                    }
                )
            } else {
                format!("first burst: {}", format_bytes(c, u))
            },
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
    // A curve shows only where it leaves the x axis inside the plot: a plateau under the
    // top, or a rise more than a few pixels wide. A first burst cut short leaves no plateau
    // drawn, and a model's cache that refills in seconds, on an axis of 1000 h, rose along
    // the y axis: its legend entry named a line no one could see.
    let plot_px = 0.8 * f64::from(o.png_size.0);
    let shows = |delay: f64, rate: f64, plateau: Option<f64>| {
        rate > 0.0
            && delay < x.max * xdiv
            && (plateau.is_some_and(|c| c <= y_top)
                || (delay + y_top / rate) / xdiv / x.max * plot_px >= 3.0)
    };
    // The truth goes over the fit, so that both show where they coincide.
    if let Some(t) = sum.truth().filter(|t| {
        shows(
            t.recover_delay_s,
            t.recover_bytes_per_sec,
            t.full_cache_bytes,
        )
    }) {
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
    // Only where something was measured: a run interrupted in its first burst has no point.
    if !pts.is_empty() {
        legend.push(LegendEntry {
            name: "measured, with 95% interval".into(),
            style: MEASURED,
            swatch: false,
            group: None,
        });
    }
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
    let interrupted = if sum.interrupted {
        " (interrupted)"
    } else {
        ""
    };
    // Only what the fit determined: an interrupted run with too few points has no fit, and
    // "folding not determined after not determined" says nothing.
    let rate = fit.fold_rate_bytes_per_sec.map(|_| {
        interval_text(
            fit.fold_rate_bytes_per_sec,
            fit.fold_rate_bytes_per_sec_low,
            fit.fold_rate_bytes_per_sec_high,
            |v| format_rate(v, u),
        )
    });
    let delay = fit.delay_s.map(|_| {
        interval_text(
            fit.delay_s,
            fit.delay_s_low,
            fit.delay_s_high,
            format_seconds,
        )
    });
    let mut parts = Vec::new();
    match (rate, delay) {
        (Some(r), Some(d)) => parts.push(format!("folding {r} after {d}")),
        (Some(r), None) => parts.push(format!("folding {r}")),
        (None, Some(d)) => parts.push(format!("folding starts after {d}")),
        (None, None) => {
            // One idle time: bounds only.
            if let (Some(r), Some(d)) = (fit.fold_rate_bytes_per_sec_low, fit.delay_s_high) {
                parts.push(format!(
                    "one idle time brought cache back: folding at least {} with a delay of at \
                     most {}, not separately determined",
                    format_rate(r, u),
                    format_seconds(d)
                ));
            }
        }
    }
    if fit.full_recovery_s.is_some() {
        parts.push(format!(
            "whole again after {}",
            interval_text(
                fit.full_recovery_s,
                fit.full_recovery_s_low,
                fit.full_recovery_s_high,
                format_seconds
            )
        ));
    }
    if parts.is_empty() {
        parts.push(format!(
            "recovery fit not determined ({})",
            count_text(pts.len(), "recovery point", "recovery points")
        ));
    }
    let subtitle = format!("{}{interrupted}", parts.join("; "));
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
    // A burst with too few samples found no cache and no bound: no point to draw (its
    // bytes written were drawn as a cache of 1.60 GB, and said so in the subtitle).
    let drawn = |p: &&crate::results::recovery::FillPoint| {
        p.burst.method != crate::results::recovery::TOO_FEW_SAMPLES
    };
    let y_top = pts
        .iter()
        .filter(drawn)
        .map(|p| p.high_bytes / g)
        .chain(truth_curve.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    // Nothing measured and no model: an axis of 1 GB, not of nothing.
    let y_top = if y_top > 0.0 { y_top.max(1e-3) } else { 1.0 };
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
        .filter(drawn)
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
    for p in pts.iter().filter(drawn) {
        series_v.extend(point_marks(
            p.actual_fill_pct,
            p.cache_bytes / g,
            p.low_bytes / g,
            p.high_bytes / g,
            unit,
            MEASURED,
        ));
    }
    if pts.iter().any(|p| drawn(&p)) {
        legend.push(LegendEntry {
            name: "measured, with 95% interval".into(),
            style: MEASURED,
            swatch: false,
            group: None,
        });
    }
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
        // In the words of the terminal and report.md: a bound as a bound, none as none.
        .map(|p| {
            format!(
                "{}%: {}",
                p.fill_pct,
                crate::units::cache_found_short(
                    p.cache_bytes,
                    p.low_bytes,
                    p.high_bytes,
                    p.burst.method,
                    u
                )
            )
        })
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
            "{}{}",
            if pts.is_empty() {
                "no level finished".to_string()
            } else {
                format!("cache at each level  ·  {subtitle}")
            },
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

/// Every burst overlaid over data written; `run` is the experiment's drive and workload,
/// which the footer gives where no burst finished.
pub fn bursts_chart(
    bursts: &[&BurstRecord],
    run: &RunMeta,
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
    // Each burst's cache is the experiment's reading, which the subtitle gives: a drop the
    // detector could not confirm is not marked against it.
    let mut spec = super::compare::compare(&runs, o, charts::XKind::Data, false);
    spec.kind = kind;
    spec.title = title.to_string();
    // The bursts share the drive and workload: say them once, as the first burst has them,
    // else (interrupted in the first burst) as the experiment has them, so that the footer
    // is the same however far the run got; the subtitle gives the cache each burst found as
    // the experiment read it (a cache too short for the detector too).
    // The stop is the experiment's (a burst's own is its early stop), also where the bursts
    // give the drive.
    let meta = RunMeta {
        stop_reason: run.stop_reason,
        ..bursts.first().map_or(run, |b| &b.timeline.meta).clone()
    };
    spec.footer = footer(&meta, &[], o);
    spec.subtitle = if bursts.is_empty() {
        "no burst finished: nothing to show".to_string()
    } else {
        format!(
            "cache each burst found  ·  {}",
            bursts
                .iter()
                .map(|b| {
                    let c = &b.cache;
                    let found =
                        crate::units::cache_found_short(c.bytes, c.low, c.high, c.method, o.units);
                    format!("{}: {found}", b.label)
                })
                .collect::<Vec<_>>()
                .join("  ·  ")
        )
    };
    // One short label per cliff: the burst and the cache it found.
    for m in &mut spec.markers {
        m.lines.truncate(1);
    }
    spec
}
