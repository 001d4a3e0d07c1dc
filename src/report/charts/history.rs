//! The history charts of one drive (`slccache history`): its cache size and after-cache rate
//! over the dates of its runs, and its cache size over the data the drive reported written.

use crate::report::charts;
use crate::report::charts::experiments::*;
use crate::report::charts::*;
use crate::report::ReportOptions;
use crate::units::{count_text, UnitSystem};

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
    /// The kind of a drive that is new at the start of each run, its counters at zero
    /// ("emulated", "simulated"): its data written and percentage used are that run's, not
    /// the drive's wear. `None` for a real drive.
    pub counters_from_zero: Option<&'static str>,
    /// The series it belongs to (its host with `history --host`, its workload where the
    /// drive's runs ran more than one); `None`: one series.
    pub series: Option<String>,
    /// The host that recorded it.
    pub host: Option<String>,
    /// The workload in a few words (`randwrite 4K QD32`; `-` when not recorded).
    pub workload: String,
    /// When the run started, as recorded (RFC 3339, UTC).
    pub date: String,
    /// The command that made it (probe, simulate, analyze, ...).
    pub ran: String,
    /// Without a cliff: the least the cache can be, bytes ("no cache, or one larger than").
    pub cache_lower_bound: Option<f64>,
    /// Throughput in the cache, bytes/s.
    pub in_cache_bytes_per_sec: Option<f64>,
    /// The run was interrupted.
    pub interrupted: bool,
    /// The run's findings as recorded (none for runs recorded before summaries held them).
    pub findings: Option<crate::detect::Findings>,
}

/// The history charts of one drive: cache size (with interval) and after-cache rate against
/// the run date, and cache size against the drive's data written where SMART was read and
/// the counters are the drive's own ([`no_wear_chart_text`] says why not where they are not).
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
        &|p| {
            p.cache
                .map(|(c, lo, hi)| Value::point(c / g, lo / g, hi / g))
        },
        &|f| Some(f.cache_row(u)),
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
        &|p| match p.findings.as_ref().and_then(|f| f.after.as_ref()) {
            // No one rate: the range of its rounds, drawn as a range with no point.
            Some(crate::detect::findings::After::NotSteady {
                low_bytes_per_sec,
                high_bytes_per_sec,
            }) => Some(Value::range(low_bytes_per_sec / m, high_bytes_per_sec / m)),
            _ => p
                .after_bytes_per_sec
                .map(|r| Value::point(r / m, r / m, r / m)),
        },
        &|f| f.after_text(u),
        o,
    ));
    if no_wear_chart_text(pts).is_none()
        && pts
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
            format!("data the drive had written by the end of the run ({t_label})"),
            format!("cache size ({})", u.giga_label()),
            pts,
            &|p| p.drive_written_bytes.map(|b| b / t),
            &|p| {
                p.cache
                    .map(|(c, lo, hi)| Value::point(c / g, lo / g, hi / g))
            },
            &|f| Some(f.cache_row(u)),
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

/// Why a drive's history has no chart of cache size against wear, where the drive says why:
/// an emulated or simulated drive is new at the start of each run, its counters at zero, so
/// they give each run's own writes, and a chart against them would put every run at nearly
/// the same place. `None` for a real drive.
pub fn no_wear_chart_text(pts: &[HistoryPoint]) -> Option<String> {
    let kind = pts.iter().find_map(|p| p.counters_from_zero)?;
    let a = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    Some(format!(
        "no chart against wear: {a} {kind} drive's counters start from zero on each run, so \
         the data written they give is that run's, not the drive's wear"
    ))
}

/// A run's value on a history chart: a point with its interval, or only a range (an
/// after-cache stretch that was not steady has no one rate).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Value {
    /// The point; `None` for a range.
    v: Option<f64>,
    /// Lower end of the interval or range.
    lo: f64,
    /// Upper end.
    hi: f64,
}

impl Value {
    fn point(v: f64, lo: f64, hi: f64) -> Value {
        Value { v: Some(v), lo, hi }
    }

    fn range(lo: f64, hi: f64) -> Value {
        Value { v: None, lo, hi }
    }
}

/// A run on a history chart: x, and its value.
type XyPoint = (f64, Value);

/// A run's value on a history chart.
type YOf<'a> = dyn Fn(&HistoryPoint) -> Option<Value> + 'a;

/// A run's figure as its findings give it (the chart's subtitle names the latest run's).
type TextOf<'a> = dyn Fn(&crate::detect::Findings) -> Option<String> + 'a;

#[allow(clippy::too_many_arguments)]
fn history_chart(
    kind: ChartKind,
    title: String,
    x_label: String,
    y_label: String,
    pts: &[HistoryPoint],
    x_of: &dyn Fn(&HistoryPoint) -> Option<f64>,
    y_of: &YOf<'_>,
    text_of: &TextOf<'_>,
    o: &ReportOptions,
) -> ChartSpec {
    let xy: Vec<(f64, Value)> = pts
        .iter()
        .filter_map(|p| Some((x_of(p)?, y_of(p)?)))
        .collect();
    // The series (hosts with `history --host`), in name order, each with its points.
    let mut by_series: std::collections::BTreeMap<Option<&str>, Vec<XyPoint>> =
        std::collections::BTreeMap::new();
    for p in pts {
        if let (Some(x), Some(y)) = (x_of(p), y_of(p)) {
            by_series
                .entry(p.series.as_deref())
                .or_default()
                .push((x, y));
        }
    }
    let x_max = xy.iter().map(|p| p.0).fold(0.0, f64::max);
    let x_min = xy.iter().map(|p| p.0).fold(x_max, f64::min);
    let span = (x_max - x_min).max(1.0);
    // Runs closer together than one unit (a day, a TB) get an axis one unit wide with the
    // first a little in from the left edge, not a point on the edge of a 0.05-wide axis; never
    // below zero, since neither days since the first run nor data written can be.
    let (x_lo, x_hi) = if x_max - x_min < 1.0 {
        let lo = (x_min - 0.1).max(0.0).min(x_min);
        (lo, lo + 1.1)
    } else {
        (
            (x_min - 0.05 * span).max(0.0).min(x_min),
            x_max + 0.05 * span,
        )
    };
    let x = Axis {
        label: x_label,
        min: x_lo,
        max: x_hi,
        log: false,
        ticks: vec![],
    };
    let y_top = xy.iter().map(|p| p.1.hi).fold(0.0, f64::max);
    let y_top = if y_top > 0.0 { y_top.max(1e-9) } else { 1.0 };
    let y = Axis {
        label: y_label,
        min: 0.0,
        max: charts::headroom_linear(y_top, 0.0),
        log: false,
        ticks: vec![],
    };
    let shown = if xy.len() == pts.len() {
        format!(
            "{} of the drive in the store shown",
            count_text(pts.len(), "run", "runs")
        )
    } else {
        // Why the others have none, where a run's findings say: a link that hid the cliff.
        let hidden = pts
            .iter()
            .filter(|p| {
                p.findings.as_ref().is_some_and(|f| {
                    matches!(f.cache, crate::detect::findings::Cache::HiddenByLink { .. })
                })
            })
            .count();
        let why = if hidden > 0 {
            format!(": {hidden} hidden by the link to the drive")
        } else {
            String::new()
        };
        format!(
            "{} of the drive's {} in the store shown (the others have no value here{why})",
            xy.len(),
            count_text(pts.len(), "run", "runs")
        )
    };
    let footer = vec![format!("{shown}; slccache {}", crate::VERSION)];
    let px = per_px(o.png_size, footer.len(), &x, &y);
    let mut series_v = Vec::new();
    let split = pts.iter().any(|p| p.series.is_some());
    let mut legend = Vec::new();
    // Each series' runs joined in order, then each with its interval.
    for (i, (name, sxy)) in by_series.iter().enumerate() {
        let style = if split {
            LineStyle {
                width: 2.5,
                ..charts::run_style(i)
            }
        } else {
            MEASURED
        };
        // The line joins the runs that have one value; a range is no value to join.
        series_v.push(series(
            name.unwrap_or("runs"),
            sxy.iter().filter_map(|(x, y)| Some((*x, y.v?))).collect(),
            LineStyle {
                width: 1.5,
                alpha: 0.6,
                ..style
            },
        ));
        for (x, y) in sxy {
            match y.v {
                Some(v) => series_v.extend(point_marks(*x, v, y.lo, y.hi, px, style)),
                None => series_v.extend(range_marks(*x, y.lo, y.hi, px, style)),
            }
        }
        if split {
            legend.push(LegendEntry {
                name: format!(
                    "{}: {}",
                    name.unwrap_or("-"),
                    count_text(sxy.len(), "run", "runs")
                ),
                style,
                swatch: false,
                group: None,
            });
        }
    }
    if !split && xy.iter().any(|(_, y)| y.v.is_some()) {
        legend.push(LegendEntry {
            name: "run, with 95% interval".into(),
            style: MEASURED,
            swatch: false,
            group: None,
        });
    }
    if xy.iter().any(|(_, y)| y.v.is_none()) {
        legend.push(LegendEntry {
            name: "not steady: the range of its rounds, no one rate".into(),
            style: LineStyle {
                dash: Dash::Dashed { on: 6, off: 4 },
                ..MEASURED
            },
            swatch: false,
            group: None,
        });
    }
    // The unit is the y label's, in its brackets.
    let unit = y
        .label
        .rsplit_once('(')
        .map(|(_, u)| u.trim_end_matches(')').to_string())
        .unwrap_or_default();
    // The latest run with a value here, in the words every output gives its findings.
    let latest = pts
        .iter()
        .filter(|p| x_of(p).is_some() && y_of(p).is_some())
        .max_by(|a, b| a.date.cmp(&b.date).then(a.id.cmp(&b.id)));
    let subtitle = match (latest, latest.and_then(y_of)) {
        (Some(p), Some(y)) => {
            let text = p
                .findings
                .as_ref()
                .and_then(text_of)
                .unwrap_or_else(|| match y.v {
                    Some(v) if y.hi > y.lo => format!(
                        "{v:.1} {unit} (95% interval {:.1} to {:.1} {unit})",
                        y.lo, y.hi
                    ),
                    Some(v) => format!("{v:.1} {unit}"),
                    None => format!("{:.1} to {:.1} {unit} (not steady)", y.lo, y.hi),
                });
            let series = p
                .series
                .as_deref()
                .map(|s| format!(", {s}"))
                .unwrap_or_default();
            format!("latest run (run {}{series}): {text}", p.id)
        }
        // No run has a value: the latest run's own finding says why.
        _ => match pts
            .iter()
            .max_by(|a, b| a.date.cmp(&b.date).then(a.id.cmp(&b.id)))
            .and_then(|p| p.findings.as_ref().map(|f| (p.id, f)))
        {
            Some((id, f)) => {
                let why = match &f.cache {
                    crate::detect::findings::Cache::HiddenByLink { link } => {
                        format!("cache hidden by the {link} link")
                    }
                    _ => f.cache_cell(o.units),
                };
                format!("no run has this value; latest run (run {id}): {why}")
            }
            None => "no run has this value".into(),
        },
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
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: i64, days: f64, written: f64) -> HistoryPoint {
        HistoryPoint {
            id,
            days,
            cache: Some((13e9, 12.9e9, 13.1e9)),
            after_bytes_per_sec: Some(3e8),
            drive_written_bytes: Some(written),
            percentage_used: Some(1.0),
            counters_from_zero: None,
            series: None,
            host: None,
            workload: "randwrite 4K QD32".into(),
            date: "2026-12-03T10:00:00Z".into(),
            ran: "probe".into(),
            cache_lower_bound: None,
            in_cache_bytes_per_sec: Some(1.2e9),
            findings: None,
            interrupted: false,
        }
    }

    /// Regression: runs close together on the wear axis (a drive that had written 0.05 TB)
    /// got an axis from -0.1 TB, and the day axis one from day -0.1. No axis of a history
    /// chart starts below zero, and the wear axis says its count is at the end of each run.
    #[test]
    fn no_history_axis_starts_below_zero() {
        let pts = [point(1, 0.0, 5e10), point(2, 0.02, 9e10)];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        assert_eq!(charts.len(), 3);
        for c in &charts {
            assert!(c.x.min >= 0.0, "{}: x from {}", c.title, c.x.min);
            assert!(c.x.max > c.x.min, "{}", c.title);
        }
        let wear = &charts[2];
        assert!(
            wear.x.label.contains("by the end of the run"),
            "{}",
            wear.x.label
        );
    }
}
