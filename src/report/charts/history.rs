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
    /// The run wrote a file, not a drive: there are no drive counters to read.
    pub file: bool,
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
    let dates = date_axis(pts, first_date);
    let days_x = |p: &HistoryPoint| Some(dates.x(p));
    let mut out = vec![history_chart(
        ChartKind::HistoryCacheDate,
        format!("SLC cache size over time: {drive}"),
        dates.label.clone(),
        format!("cache size ({})", u.giga_label()),
        pts,
        &days_x,
        dates.range,
        &|p| Value::cache(p, g),
        // A hedged size in the cell's short words, whose hedge a line holds whole.
        &|f| {
            Some(if f.cache_hedged() {
                f.cache_cell(u)
            } else {
                f.cache_row(u)
            })
        },
        o,
    )];
    let m = u.mega();
    out.push(history_chart(
        ChartKind::HistoryRateDate,
        format!("Throughput after the cache over time: {drive}"),
        dates.label.clone(),
        format!("after-cache throughput ({}/s)", u.mega_label()),
        pts,
        &days_x,
        dates.range,
        &|p| Value::after(p, m),
        &|f| f.after_caveated(u),
        o,
    ));
    if no_wear_chart_text(pts).is_none() {
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
            None,
            &|p| Value::cache(p, g),
            // A hedged size in the cell's short words, whose hedge a line holds whole.
            &|f| {
                Some(if f.cache_hedged() {
                    f.cache_cell(u)
                } else {
                    f.cache_row(u)
                })
            },
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

/// The date axis of the history charts: its unit picked from the span of the runs' start
/// times (minutes under 3 hours, hours under 3 days, else days), and its origin a whole unit
/// (a minute, an hour, a UTC midnight) at least a margin (5% of the span, at least half a
/// unit) before the first run, so that no run sits on the edge of the plot, half clipped,
/// and no axis starts below zero.
struct DateAxis {
    /// The origin, seconds since the epoch (or since the first run, where no date is read).
    origin_s: f64,
    /// The unit, seconds.
    unit_s: f64,
    /// The first run's start, seconds since the epoch (0 where no date is read).
    t0_s: f64,
    /// The axis label: `minutes since 22:00 UTC on 2026-12-04`.
    label: String,
    /// The axis range, in the unit.
    range: Option<(f64, f64)>,
}

impl DateAxis {
    /// Where run `p` sits on the axis.
    fn x(&self, p: &HistoryPoint) -> f64 {
        (self.t0_s + p.days * 86_400.0 - self.origin_s) / self.unit_s
    }
}

fn date_axis(pts: &[HistoryPoint], first_date: &str) -> DateAxis {
    let t0 = pts
        .iter()
        .filter_map(|p| {
            let t = chrono::DateTime::parse_from_rfc3339(&p.date).ok()?;
            Some(t.timestamp() as f64 - p.days * 86_400.0)
        })
        .next();
    let span_s = pts.iter().map(|p| p.days * 86_400.0).fold(0.0, f64::max);
    let (unit_s, step_s, name) = if span_s < 3.0 * 3600.0 {
        (60.0, 60.0, "minutes")
    } else if span_s < 3.0 * 86_400.0 {
        (3600.0, 3600.0, "hours")
    } else {
        (86_400.0, 86_400.0, "days")
    };
    let margin_s = (0.05 * span_s).max(0.5 * unit_s);
    let Some(t0) = t0 else {
        // No date to read: the old origin, the first run, with the margin after the last.
        return DateAxis {
            origin_s: 0.0,
            unit_s,
            t0_s: 0.0,
            label: format!("{name} since the first run ({first_date})"),
            range: Some((0.0, (span_s + margin_s) / unit_s)),
        };
    };
    let origin = ((t0 - margin_s) / step_s).floor() * step_s;
    let at = chrono::DateTime::from_timestamp(origin as i64, 0).unwrap_or_default();
    let label = match name {
        "minutes" => format!("minutes since {}", at.format("%H:%M UTC on %Y-%m-%d")),
        "hours" => format!("hours since {}", at.format("%H:00 UTC on %Y-%m-%d")),
        _ => format!("days since {}", at.format("%Y-%m-%d 00:00 UTC")),
    };
    DateAxis {
        origin_s: origin,
        unit_s,
        t0_s: t0,
        label,
        range: Some((0.0, (t0 + span_s + margin_s - origin) / unit_s)),
    }
}

/// Why a drive's history has no chart of cache size against wear: an emulated or simulated
/// drive is new at the start of each run, its counters at zero, so they give each run's own
/// writes, and a chart against them would put every run at nearly the same place; a file
/// has no counters of the drive under it; a drive whose counters no run read, or no run with
/// them a cache size, has nothing to chart. `None` where the chart is drawn.
pub fn no_wear_chart_text(pts: &[HistoryPoint]) -> Option<String> {
    if let Some(kind) = pts.iter().find_map(|p| p.counters_from_zero) {
        let a = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Some(format!(
            "no chart against wear: {a} {kind} drive's counters start from zero on each run, \
             so the data written they give is that run's, not the drive's wear"
        ));
    }
    if pts
        .iter()
        .any(|p| p.drive_written_bytes.is_some() && p.cache.is_some())
    {
        return None;
    }
    Some(if !pts.is_empty() && pts.iter().all(|p| p.file) {
        format!(
            "no chart against wear: {} a file, and a file has no counters of the data its \
             drive has written",
            if pts.len() == 1 {
                "the run wrote"
            } else {
                "the runs wrote"
            }
        )
    } else if pts.iter().all(|p| p.drive_written_bytes.is_none()) {
        "no chart against wear: no run read the drive's count of data written (SMART)".to_string()
    } else {
        "no chart against wear: no run that read the drive's count of data written has a \
         cache size"
            .to_string()
    })
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
    /// The run's findings hedge the figure ([`crate::detect::Findings::cache_hedged`]): a
    /// faster first tier hidden in the first sample could make the size a later tier's, or heat
    /// came with its cliff. Drawn dashed, and said in the legend.
    hedged: bool,
    /// A rate after the cache that a slower tier may follow
    /// ([`crate::detect::Findings::slower_tier_may_follow`]): it may be a middle tier's, so it
    /// is drawn dotted and not joined to the runs that measured the drive's last tier (an
    /// FX700's 3441 MB/s and 129 MB/s joined read as a drive slowing 27 times).
    tier: bool,
    /// A rate after the cache with thermal throttling after the last cliff left out of it
    /// ([`crate::detect::findings::AfterCaveats::HEAT_LEFT_OUT`]), which `runs` marks: drawn
    /// dash-dotted, and said in the legend.
    heat: bool,
}

impl Value {
    fn point(v: f64, lo: f64, hi: f64) -> Value {
        Value {
            v: Some(v),
            lo,
            hi,
            hedged: false,
            tier: false,
            heat: false,
        }
    }

    fn range(lo: f64, hi: f64) -> Value {
        Value {
            v: None,
            lo,
            hi,
            hedged: false,
            tier: false,
            heat: false,
        }
    }

    /// A run's rate after the cache: a point, or the range of a stretch that was not steady;
    /// none where it was too short to judge. Marked where a slower tier may follow.
    fn after(p: &HistoryPoint, m: f64) -> Option<Value> {
        use crate::detect::findings::After;
        let f = p.findings.as_ref();
        let v = match f.and_then(|f| f.after.as_ref()) {
            // No one rate: the range of its samples, drawn as a range with no point.
            Some(After::NotSteady {
                low_bytes_per_sec,
                high_bytes_per_sec,
            }) => Value::range(low_bytes_per_sec / m, high_bytes_per_sec / m),
            // Too short to judge: no steady figure to place among the others (the footer
            // says why it has no value).
            Some(After::TooShort { .. }) => return None,
            _ => p
                .after_bytes_per_sec
                .map(|r| Value::point(r / m, r / m, r / m))?,
        };
        Some(Value {
            tier: f.is_some_and(|f| f.slower_tier_may_follow),
            heat: f.is_some_and(|f| {
                f.after_caveat_set()
                    .contains(crate::detect::findings::AfterCaveats::HEAT_LEFT_OUT)
            }),
            ..v
        })
    }

    /// A cache size as a point, hedged where the run's findings hedge it.
    fn cache(p: &HistoryPoint, g: f64) -> Option<Value> {
        let (c, lo, hi) = p.cache?;
        Some(Value {
            hedged: p.findings.as_ref().is_some_and(|f| f.cache_hedged()),
            ..Value::point(c / g, lo / g, hi / g)
        })
    }
}

/// The dashes of a hedged run's mark.
const HEDGED_DASH: Dash = Dash::Dashed { on: 4, off: 3 };

/// The dots of the mark of a rate a slower tier may follow.
const TIER_DASH: Dash = Dash::Dashed { on: 1, off: 3 };

/// The long dashes of the mark of a rate with heat left out of it.
const HEAT_DASH: Dash = Dash::Dashed { on: 9, off: 3 };

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
    range: Option<(f64, f64)>,
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
    let (x_lo, x_hi) = if let Some(r) = range {
        r
    } else if x_max - x_min < 1.0 {
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
        let without: Vec<&HistoryPoint> = pts
            .iter()
            .filter(|p| x_of(p).is_none() || y_of(p).is_none())
            .collect();
        // Why the others have none, where a run's findings say, one reason a run: a link
        // that hid the cliff; on the rate chart a stretch after the cache too short to judge
        // (its rate is no steady figure); on either a drop not confirmed, or no cliff (no
        // stretch after a cache to give a rate of: the rate chart gave the count alone, where
        // `runs` shows such a run's rate "(unconfirmed)").
        use crate::detect::findings::{After, Cache};
        let cache_chart = !matches!(kind, ChartKind::HistoryRateDate);
        let reason_of = |f: &crate::detect::Findings| -> Option<usize> {
            match (&f.cache, &f.after) {
                (Cache::HiddenByLink { .. }, _) => Some(0),
                (Cache::HiddenByIops { .. }, _) => Some(4),
                (_, Some(After::TooShort { .. })) if !cache_chart => Some(3),
                (Cache::Unconfirmed(_), _) => Some(1),
                (Cache::AtLeast { .. } | Cache::NoneOverWholeDrive { .. }, _) => Some(2),
                (Cache::ReadOnly { .. }, _) => Some(5),
                (Cache::TooFewSamples, _) => Some(6),
                (Cache::Wrapped { .. }, _) => Some(7),
                (Cache::NothingWritten | Cache::NotEstimated, _) => Some(8),
                _ => None,
            }
        };
        let count = |k: usize| {
            without
                .iter()
                .filter(|p| p.findings.as_ref().and_then(reason_of) == Some(k))
                .count()
        };
        let reasons = [
            ("hidden by the link to the drive", count(0)),
            // On the rate chart such a run has a level after the drop, which `runs` gives
            // marked "(unconfirmed)": no rate after a cache, and left out as unconfirmed.
            (
                if cache_chart {
                    "drop not confirmed"
                } else {
                    "rate unconfirmed"
                },
                count(1),
            ),
            ("no cliff", count(2)),
            ("too short to judge", count(3)),
            ("hidden by the drive model's IOPS limit", count(4)),
            ("reads only", count(5)),
            // A run of one sample, or too few (the footer gave "4 have no value here: 2 drop
            // not confirmed, 1 reads only", three reasons for four runs).
            ("too few samples", count(6)),
            ("cliff past the span (wrapped writes)", count(7)),
            ("nothing written", count(8)),
        ];
        let given: Vec<(&str, usize)> = reasons.into_iter().filter(|r| r.1 > 0).collect();
        let why = match given.as_slice() {
            [] => String::new(),
            [(w, h)] if *h == without.len() && *h == 1 => format!(": {w}"),
            [(w, h)] if *h == without.len() => format!(": all {w}"),
            _ => format!(
                ": {}",
                given
                    .iter()
                    .map(|(w, h)| format!("{h} {w}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        match (xy.len(), pts.len()) {
            (0, 1) => format!("the drive's one run in the store has no value here{why}"),
            (0, n) => format!("none of the drive's {n} runs in the store has a value here{why}"),
            (k, n) => format!(
                "{k} of the drive's {n} runs in the store shown ({} no value here{why})",
                match without.len() {
                    1 => "1 has".to_string(),
                    m => format!("{m} have"),
                }
            ),
        }
    };
    let footer = vec![format!("{shown}; slccache {}", crate::VERSION)];
    let px = per_px(o.png_size, footer.len(), &x, &y);
    let mut series_v = Vec::new();
    let split = pts.iter().any(|p| p.series.is_some());
    let mut legend = Vec::new();
    // The style each series is drawn in, for the entries that name its marks.
    let mut styles = Vec::new();
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
        styles.push(style);
        // The line joins the runs that have one value; a range is no value to join, nor is a
        // rate a slower tier may follow (it may be another tier's).
        series_v.push(series(
            name.unwrap_or("runs"),
            sxy.iter()
                .filter(|(_, y)| !y.tier)
                .filter_map(|(x, y)| Some((*x, y.v?)))
                .collect(),
            LineStyle {
                width: 1.5,
                alpha: 0.6,
                ..style
            },
        ));
        for (x, y) in sxy {
            // A hedged size's mark is dashed: the point may be a later tier's.
            let mark = if y.tier {
                LineStyle {
                    dash: TIER_DASH,
                    ..style
                }
            } else if y.hedged {
                LineStyle {
                    dash: HEDGED_DASH,
                    ..style
                }
            } else if y.heat {
                LineStyle {
                    dash: HEAT_DASH,
                    ..style
                }
            } else {
                style
            };
            match y.v {
                Some(v) => series_v.extend(point_marks(*x, v, y.lo, y.hi, px, mark)),
                None => series_v.extend(range_marks(*x, y.lo, y.hi, px, mark)),
            }
        }
        if split {
            // "with 95% interval" only where one of the series' runs has one drawn.
            let interval = sxy.iter().any(|(_, y)| y.v.is_some() && y.hi > y.lo);
            legend.push(LegendEntry {
                name: format!(
                    "{}: {}{}",
                    name.unwrap_or("-"),
                    count_text(sxy.len(), "run", "runs"),
                    if interval { ", with 95% interval" } else { "" }
                ),
                style,
                swatch: false,
                group: None,
            });
        }
    }
    if !split && xy.iter().any(|(_, y)| y.v.is_some()) {
        // "with 95% interval" only where a run has one drawn.
        let interval = xy.iter().any(|(_, y)| y.v.is_some() && y.hi > y.lo);
        legend.push(LegendEntry {
            name: if interval {
                "run, with 95% interval".into()
            } else {
                "run".into()
            },
            style: MEASURED,
            swatch: false,
            group: None,
        });
    }
    // An entry that names marks drawn in a series' style shows that style where the marks
    // are all one series', and a neutral grey where they are of more than one.
    let style_of = |marked: &dyn Fn(&Value) -> bool| -> LineStyle {
        let mut drawn = by_series
            .values()
            .zip(&styles)
            .filter(|(sxy, _)| sxy.iter().any(|(_, y)| marked(y)))
            .map(|(_, st)| *st);
        match (drawn.next(), drawn.next()) {
            (Some(st), None) => st,
            _ => LineStyle {
                color: palette::GREY,
                ..MEASURED
            },
        }
    };
    // The entry for the marks drawn in `dash` of the runs `marked` picks, where there are any:
    // their count, then `what` they are.
    let mut mark_entry = |marked: &dyn Fn(&Value) -> bool, dash: Dash, what: &str| {
        let n = xy.iter().filter(|(_, y)| marked(y)).count();
        if n > 0 {
            legend.push(LegendEntry {
                name: what.replacen("{}", &count_text(n, "run", "runs"), 1),
                style: LineStyle {
                    dash,
                    ..style_of(marked)
                },
                swatch: false,
                group: None,
            });
        }
    };
    mark_entry(
        &|y| y.hedged,
        HEDGED_DASH,
        "dashed: {} whose size is in doubt (a faster first tier the first sample could hide, or \
         heat at the cliff)",
    );
    mark_entry(
        &|y| y.tier,
        TIER_DASH,
        "dotted, not joined: {} after which a slower tier may follow (the rate may be a middle \
         tier's)",
    );
    mark_entry(
        &|y| y.heat && !y.tier && !y.hedged,
        HEAT_DASH,
        "long dashes: {} whose rate leaves out thermal throttling after the last cliff (heat \
         left out)",
    );
    if xy.iter().any(|(_, y)| y.v.is_none()) {
        legend.push(LegendEntry {
            // The range every output quotes, in the words of its definition.
            name: "not steady: its samples' 10th to 90th percentile, no one rate".into(),
            style: LineStyle {
                dash: Dash::Dashed { on: 6, off: 4 },
                ..style_of(&|y| y.v.is_none())
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
    // The drive's latest run, whether or not it has a value here.
    let newest = pts
        .iter()
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
            // Where later runs have no value here, the run named is the latest of those
            // that have one, and said to be.
            let which = if newest.map(|n| n.id) == Some(p.id) {
                "latest run"
            } else {
                match kind {
                    ChartKind::HistoryCacheDate => "latest run with a size",
                    ChartKind::HistoryRateDate => "latest run with a rate",
                    _ => "latest run charted",
                }
            };
            format!("{which} (run {}{series}): {text}", p.id)
        }
        // No run has a value: the latest run's own finding says why.
        _ => match newest.and_then(|p| p.findings.as_ref().map(|f| (p.id, f))) {
            Some((id, f)) => {
                let why = match &f.cache {
                    crate::detect::findings::Cache::HiddenByLink { link } => {
                        format!("cache hidden by the {link} link")
                    }
                    crate::detect::findings::Cache::HiddenByIops { .. } => {
                        "cache hidden by the drive model's IOPS limit".to_string()
                    }
                    // The cell, or where it has no figure ("-") the words why.
                    _ => match f.cache_cell(o.units) {
                        c if c == "-" => f.cache_text(o.units),
                        c => c,
                    },
                };
                // The rate chart says why the latest run has no rate, not its cache ("no run has
                // this value; latest run (run 22): 22.0 GB" on the after-cache chart).
                let why = match (kind, f.after_cell(o.units)) {
                    // Heat to the end of the run is no rate after the cache, not a rate too
                    // short (a 31-minute throttled stretch read "a rate too short to chart").
                    (ChartKind::HistoryRateDate, Some(c))
                        if matches!(
                            f.after,
                            Some(crate::detect::findings::After::Throttled { .. })
                        ) =>
                    {
                        format!("after the cache {c}")
                    }
                    (ChartKind::HistoryRateDate, Some(c))
                        if matches!(
                            f.after,
                            Some(crate::detect::findings::After::TooShort { .. })
                        ) =>
                    {
                        format!("after the cache {c}, a rate too short to chart")
                    }
                    (ChartKind::HistoryRateDate, Some(c)) => {
                        format!("after the cache {c}, not charted")
                    }
                    (ChartKind::HistoryRateDate, None) => format!("no rate after a cache ({why})"),
                    _ => why,
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
            file: false,
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

    /// A run of `id` with a sized cache of `gb` (size, low, high) and the rate after it
    /// `after`, and no after-cache figure in its row; and the rate chart of it alone.
    fn rate_chart_of(id: i64, gb: [u64; 3], after: crate::detect::findings::After) -> ChartSpec {
        use crate::detect::findings::{Cache, Findings};
        let mut p = point(id, 0.0, 5e10);
        p.after_bytes_per_sec = None;
        let mut f = Findings::bare(Cache::Sized {
            bytes: gb[0],
            low_bytes: gb[1],
            high_bytes: gb[2],
        });
        f.after = Some(after);
        p.findings = Some(f);
        history_charts("drive", "2026-12-03", &[p], &ReportOptions::default())
            .into_iter()
            .find(|c| c.kind == ChartKind::HistoryRateDate)
            .expect("a rate chart")
    }

    /// Runs minutes apart sat on a 0 to 1.1 day axis at day 0, half clipped off the plot: the
    /// axis is in minutes, hours or days as the span asks, and every run sits a margin inside.
    #[test]
    fn the_date_axis_unit_follows_the_span_and_clips_no_run() {
        for (gap_days, unit) in [
            (0.0, "minutes"),
            (4.0 / 1440.0, "minutes"),
            (0.5, "hours"),
            (2.0, "hours"),
            (40.0, "days"),
        ] {
            let mut pts = vec![point(1, 0.0, 5e10), point(2, gap_days, 9e10)];
            pts[0].date = "2026-12-04T22:03:21Z".into();
            let charts = history_charts("drive", "2026-12-04", &pts, &ReportOptions::default());
            for c in &charts[..2] {
                assert!(c.x.label.starts_with(unit), "{gap_days}: {}", c.x.label);
                assert!(c.x.min >= 0.0, "{}", c.x.min);
                // The diamond's half width (7 px) and a little more stays inside the plot.
                let (ux, _, scale) = per_px(c.size, c.footer.len(), &c.x, &c.y);
                let margin = 8.0 * scale * ux;
                let xs: Vec<f64> = c
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.0))
                    .collect();
                assert!(!xs.is_empty());
                for x in xs {
                    assert!(
                        x >= c.x.min + margin - 1e-9 && x <= c.x.max - margin + 1e-9,
                        "{gap_days}: {x} on {}..{} ({})",
                        c.x.min,
                        c.x.max,
                        c.x.label
                    );
                }
            }
        }
    }

    /// The after-cache chart joined an FX700 run's 3441 MB/s, after which a slower tier may
    /// follow, and another's 129 MB/s in one line, reading as a drive slowing 27 times: a rate
    /// a slower tier may follow is drawn dotted, not joined, and the legend says why.
    #[test]
    fn a_rate_a_slower_tier_may_follow_is_not_joined_to_the_others() {
        use crate::detect::findings::{Cache, Findings};
        let with = |mut p: HistoryPoint, rate: f64, tier: bool| {
            p.after_bytes_per_sec = Some(rate);
            p.findings = Some(Findings {
                slower_tier_may_follow: tier,
                ..Findings::bare(Cache::Sized {
                    bytes: 54_000_000_000,
                    low_bytes: 53_000_000_000,
                    high_bytes: 55_000_000_000,
                })
            });
            p
        };
        let pts = [
            with(point(1, 0.0, 5e10), 3441e6, true),
            with(point(2, 1.0, 5e10), 129e6, false),
            with(point(3, 2.0, 5e10), 131e6, false),
        ];
        let c = &history_charts("FX700", "2026-12-03", &pts, &ReportOptions::default())[1];
        let line = c
            .series
            .iter()
            .find(|s| s.name == "runs")
            .unwrap_or_else(|| panic!("{:?}", c.series));
        let ys: Vec<f64> = line.points.iter().map(|p| p.1).collect();
        assert_eq!(ys, [129.0, 131.0], "the line joins {ys:?}");
        let dotted = c
            .series
            .iter()
            .filter(|s| s.name.is_empty() && s.style.dash == TIER_DASH)
            .count();
        assert!(dotted >= 1, "{:?}", c.series);
        assert!(
            c.legend.iter().any(|l| l
                .name
                .contains("1 run after which a slower tier may follow")),
            "{:?}",
            c.legend
        );
        // The cache chart joins all three: their sizes are the first tier's alike.
        let c = &history_charts("FX700", "2026-12-03", &pts, &ReportOptions::default())[0];
        let line = c.series.iter().find(|s| s.name == "runs").unwrap();
        assert_eq!(line.points.len(), 3);
    }

    /// The after-cache chart's legend said "with 95% interval" where no run has one drawn.
    #[test]
    fn the_legend_names_an_interval_only_where_one_is_drawn() {
        let pts = [point(1, 0.0, 5e10), point(2, 1.0, 9e10)];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        let names = |c: &ChartSpec| -> Vec<String> {
            c.legend.iter().map(|e| e.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(&charts[0]), ["run, with 95% interval"]);
        assert_eq!(names(&charts[1]), ["run"]);
    }

    /// A drive's runs in series of their workload: the bars of the 95% interval were drawn,
    /// but the legend read only "seqwrite 128K QD32: 2 runs"; and the swatch of the dashed
    /// entry was the one-series orange where the dashed run was drawn in its series' blue.
    #[test]
    fn a_series_legend_says_what_is_drawn_and_in_its_colour() {
        use crate::detect::findings::{Cache, Findings};
        let hedged = |mut p: HistoryPoint| {
            p.findings = Some(Findings {
                in_cache_bytes_per_sec: Some(2e9),
                first_sample_hides: Some(crate::detect::HiddenCache {
                    bytes: 60_000_000_000,
                    interval_s: 30.0,
                    before_first_row: false,
                    faster_bytes_per_sec: None,
                }),
                ..Findings::bare(Cache::Sized {
                    bytes: 90_800_000_000,
                    low_bytes: 62_300_000_000,
                    high_bytes: 110_000_000_000,
                })
            });
            p.cache = Some((90.8e9, 62.3e9, 110e9));
            p
        };
        let mut pts = vec![
            point(1, 0.0, 5e10),
            hedged(point(2, 0.01, 5e10)),
            point(3, 0.02, 5e10),
        ];
        pts[0].cache = Some((100e9, 99.9e9, 101e9));
        pts[0].workload = "seqwrite 128K QD32".into();
        pts[1].workload = "seqwrite 128K QD32".into();
        // A series whose runs have no interval drawn.
        pts[2].cache = Some((20e9, 20e9, 20e9));
        for p in pts.iter_mut() {
            p.series = Some(p.workload.clone());
        }
        let o = ReportOptions::default();
        let c = &history_charts("drive", "2026-12-03", &pts, &o)[0];
        let names: Vec<&str> = c.legend.iter().map(|e| e.name.as_str()).collect();
        assert!(
            names.contains(&"seqwrite 128K QD32: 2 runs, with 95% interval"),
            "{names:?}"
        );
        assert!(names.contains(&"randwrite 4K QD32: 1 run"), "{names:?}");
        // The dashed entry's swatch is the colour its dashed marks are drawn in.
        let entry = c
            .legend
            .iter()
            .find(|e| e.name.starts_with("dashed: 1 run "))
            .expect("a dashed entry");
        let drawn: Vec<Rgb> = c
            .series
            .iter()
            .filter(|s| s.name.is_empty() && s.style.dash == HEDGED_DASH)
            .map(|s| s.style.color)
            .collect();
        assert!(!drawn.is_empty());
        assert!(
            drawn.iter().all(|&d| d == entry.style.color),
            "{drawn:?} vs {entry:?}"
        );
        assert_eq!(entry.style.dash, HEDGED_DASH);
        // Dashed runs of two series: a neutral swatch, neither series' colour.
        pts[2] = hedged(pts[2].clone());
        let c = &history_charts("drive", "2026-12-03", &pts, &o)[0];
        let entry = c
            .legend
            .iter()
            .find(|e| e.name.starts_with("dashed: 2 runs "))
            .expect("a dashed entry");
        assert_eq!(entry.style.color, palette::GREY);
    }

    /// A drive's one run without a value read "0 of the drive's 1 run in the store shown
    /// (the others have no value here)".
    #[test]
    fn the_footer_says_in_words_which_runs_have_no_value() {
        let mut none = point(1, 0.0, 5e10);
        none.cache = None;
        none.after_bytes_per_sec = None;
        let footer = |pts: &[HistoryPoint]| {
            history_charts("drive", "2026-12-03", pts, &ReportOptions::default())[0].footer[0]
                .clone()
        };
        let f = footer(std::slice::from_ref(&none));
        assert!(
            f.starts_with("the drive's one run in the store has no value here;"),
            "{f}"
        );
        let f = footer(&[none.clone(), none.clone()]);
        assert!(
            f.starts_with("none of the drive's 2 runs in the store has a value here;"),
            "{f}"
        );
        let f = footer(&[none.clone(), point(2, 1.0, 9e10), point(3, 2.0, 9e10)]);
        assert!(
            f.starts_with("2 of the drive's 3 runs in the store shown (1 has no value here);"),
            "{f}"
        );
        assert!(!f.contains("the others") && !f.starts_with("0 of"), "{f}");
    }

    /// The cache chart's footer gave the reason of another figure for a run with no cache
    /// size: "1 has no value here: too short to judge" (its after-cache stretch) for a run
    /// whose drop lay inside its first sample. Each chart gives the reason of its own figure.
    #[test]
    fn the_footer_gives_the_reason_of_the_charts_own_figure() {
        use crate::detect::findings::{After, Cache, Findings};
        let mut unconfirmed = point(2, 1.0, 9e10);
        unconfirmed.cache = None;
        unconfirmed.after_bytes_per_sec = None;
        unconfirmed.findings = Some(Findings {
            after: Some(After::TooShort {
                bytes_per_sec: 3.96e8,
            }),
            ..Findings::bare(Cache::Unconfirmed(crate::detect::UnconfirmedDrop {
                at: crate::detect::DropWhere::FirstSample,
                t_s: 0.0,
                t_high_s: 240.0,
                bytes_low: 113_000_000_000,
                bytes_high: 232_000_000_000,
                before_bytes_per_sec: 9.66e8,
                after_bytes_per_sec: 4.96e8,
                after_is_floor: false,
                heat_in_first_sample: false,
                after_s: 720.0,
                interval_s: 240.0,
            }))
        });
        let pts = [point(1, 0.0, 5e10), unconfirmed];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        let cache = &charts[0].footer[0];
        assert!(
            cache.contains("(1 has no value here: drop not confirmed)"),
            "{cache}"
        );
        let rate = &charts[1].footer[0];
        assert!(
            rate.contains("(1 has no value here: too short to judge)"),
            "{rate}"
        );
        // A drop not confirmed with no stretch after it judged: the rate chart said "3 have
        // no value here" with no reason, where its cache chart and `runs` gave one.
        let mut unjudged = pts[1].clone();
        unjudged.id = 3;
        if let Some(f) = unjudged.findings.as_mut() {
            f.after = None;
        }
        let pts = [point(1, 0.0, 5e10), pts[1].clone(), unjudged];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        let rate = &charts[1].footer[0];
        assert!(
            rate.contains("(2 have no value here: 1 rate unconfirmed, 1 too short to judge)"),
            "{rate}"
        );
        let cache = &charts[0].footer[0];
        assert!(
            cache.contains("(2 have no value here: all drop not confirmed)"),
            "{cache}"
        );
    }

    /// Where no run has a rate after the cache, the rate chart says why of the latest run's
    /// rate, not its cache: it read "no run has this value; latest run (run 22): 22.0 GB
    /// (21.9 GB to 22.4 GB)".
    #[test]
    fn the_rate_chart_without_a_rate_says_why_of_the_rate() {
        use crate::detect::findings::After;
        let rate = rate_chart_of(
            22,
            [22_000_000_000, 21_900_000_000, 22_400_000_000],
            After::TooShort { bytes_per_sec: 6e8 },
        );
        assert!(
            rate.subtitle.contains("after the cache 600 MB/s")
                && !rate.subtitle.contains("22.0 GB"),
            "{}",
            rate.subtitle
        );
    }

    /// A run whose stretch after the cache was heat to its end read "a rate too short to
    /// chart" (a 31-minute throttled stretch): it has no rate outside the heat, and says so.
    #[test]
    fn a_throttled_stretch_is_no_rate_too_short() {
        use crate::detect::findings::After;
        let rate = rate_chart_of(
            31,
            [52_300_000_000, 52_200_000_000, 53_100_000_000],
            After::Throttled {
                bytes_per_sec: 5e8,
                range_bytes_per_sec: None,
            },
        );
        assert!(
            rate.subtitle
                .contains("not measured outside thermal throttling (throttled: 500 MB/s)")
                && !rate.subtitle.contains("too short"),
            "{}",
            rate.subtitle
        );
    }

    /// A rate with heat left out of it, which `runs` marks "(heat left out)", was drawn as any
    /// other run's: its mark is dashed its own way, and the legend says why.
    #[test]
    fn a_rate_with_heat_left_out_is_marked_and_said() {
        use crate::detect::findings::{After, Cache, Findings, Step};
        use crate::detect::Throttled;
        let mut pts = vec![point(1, 0.0, 5e10), point(2, 1.0, 9e10)];
        let mut f = Findings::bare(Cache::Sized {
            bytes: 13_000_000_000,
            low_bytes: 12_900_000_000,
            high_bytes: 13_100_000_000,
        });
        f.steps = vec![Step {
            t_s: 10.0,
            before_bytes_per_sec: 1.2e9,
            after_bytes_per_sec: 3e8,
            before_range_bytes_per_sec: None,
            after_range_bytes_per_sec: None,
            under_heat: false,
        }];
        f.after = Some(After::Steady { bytes_per_sec: 3e8 });
        f.thermal_throttling = vec![Throttled {
            from_s: 40.0,
            to_s: 60.0,
            on_and_off: false,
        }];
        assert_eq!(f.after_caveats(), ["heat left out"]);
        pts[1].findings = Some(f);
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        let rate = charts
            .iter()
            .find(|c| c.kind == ChartKind::HistoryRateDate)
            .expect("a rate chart");
        let entry = rate
            .legend
            .iter()
            .find(|e| e.name.contains("heat left out"))
            .unwrap_or_else(|| panic!("{:?}", rate.legend));
        assert!(
            entry.name.starts_with("long dashes: 1 run "),
            "{}",
            entry.name
        );
        assert_eq!(entry.style.dash, HEAT_DASH);
        let dashed = rate
            .series
            .iter()
            .filter(|s| s.style.dash == HEAT_DASH)
            .count();
        assert!(dashed > 0, "no mark drawn with the heat's dashes");
        // The cache chart says nothing of the rate's heat.
        assert!(!charts[0]
            .legend
            .iter()
            .any(|e| e.name.contains("heat left out")));
    }

    /// A drive's read runs: "(2 have no value here)" with no reason, where every other run
    /// without a value gets one.
    #[test]
    fn the_footer_says_read_runs_have_no_value() {
        use crate::detect::findings::{Cache, Findings};
        let mut read = point(2, 1.0, 9e10);
        read.cache = None;
        read.after_bytes_per_sec = None;
        read.findings = Some(Findings::bare(Cache::ReadOnly {
            bytes_read: 20_000_000_000,
        }));
        let pts = [point(1, 0.0, 5e10), read.clone()];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        for c in &charts[..2] {
            assert!(
                c.footer[0].contains("(1 has no value here: reads only)"),
                "{}",
                c.footer[0]
            );
        }
        // A run of one sample has a reason too: "4 have no value here: 2 drop not confirmed,
        // 1 reads only" gave three reasons for four runs.
        let mut one = point(3, 2.0, 9e10);
        one.cache = None;
        one.after_bytes_per_sec = None;
        one.findings = Some(Findings::bare(Cache::TooFewSamples));
        let pts = [point(1, 0.0, 5e10), read, one];
        let charts = history_charts("drive", "2026-12-03", &pts, &ReportOptions::default());
        for c in &charts[..2] {
            assert!(
                c.footer[0].contains("(2 have no value here: 1 reads only, 1 too few samples)"),
                "{}",
                c.footer[0]
            );
        }
    }

    /// Runs 3 and 4, later than run 2 but with a drop inside the first sample not confirmed,
    /// left run 2 named "latest run" on the subtitles; and the rate chart said they had no
    /// value "drop not confirmed" where `runs` gives their level "993 MB/s (unconfirmed)".
    #[test]
    fn the_subtitle_names_the_latest_run_with_a_value_as_such() {
        use crate::detect::findings::{Cache, Findings};
        let unconfirmed = |id: i64| {
            let mut p = point(id, id as f64, 9e10);
            p.cache = None;
            p.after_bytes_per_sec = None;
            p.date = format!("2026-12-0{id}T10:00:00Z");
            p.findings = Some(Findings::bare(Cache::Unconfirmed(
                crate::detect::UnconfirmedDrop {
                    at: crate::detect::DropWhere::FirstSample,
                    t_s: 0.0,
                    t_high_s: 90.0,
                    bytes_low: 50_900_000_000,
                    bytes_high: 141_000_000_000,
                    before_bytes_per_sec: 1.558e9,
                    after_bytes_per_sec: 9.93e8,
                    after_is_floor: false,
                    heat_in_first_sample: false,
                    after_s: 720.0,
                    interval_s: 90.0,
                },
            )));
            p
        };
        let mut second = point(2, 1.0, 6e10);
        second.date = "2026-12-02T10:00:00Z".into();
        let mut first = point(1, 0.0, 5e10);
        first.date = "2026-12-01T10:00:00Z".into();
        let pts = [first, second, unconfirmed(3), unconfirmed(4)];
        let o = ReportOptions::default();
        let charts = history_charts("drive", "2026-12-01", &pts, &o);
        assert!(
            charts[0]
                .subtitle
                .starts_with("latest run with a size (run 2): "),
            "{}",
            charts[0].subtitle
        );
        assert!(
            charts[1]
                .subtitle
                .starts_with("latest run with a rate (run 2): "),
            "{}",
            charts[1].subtitle
        );
        let rate = &charts[1].footer[0];
        assert!(
            rate.contains("(2 have no value here: all rate unconfirmed)"),
            "{rate}"
        );
        // `runs` gives the same runs' level as unconfirmed, never as no value.
        let cell = pts[3]
            .findings
            .as_ref()
            .unwrap()
            .after_cell(o.units)
            .unwrap();
        assert!(cell.ends_with("(unconfirmed)"), "{cell}");
        // Where the latest run has a value, it is the latest run.
        let charts = history_charts("drive", "2026-12-01", &pts[..2], &o);
        assert!(
            charts[0].subtitle.starts_with("latest run (run 2): "),
            "{}",
            charts[0].subtitle
        );
    }

    /// The cache chart's subtitle gave a hedged latest size in the headline's long words,
    /// longer than a line, cut in the middle ("which would not show at… (the cliff then a
    /// later tier's)"): it gives the cell's short words, whose hedge the line holds whole.
    #[test]
    fn a_hedged_latest_size_is_given_whole_in_the_subtitle() {
        use crate::detect::findings::{Cache, Findings};
        let mut p = point(1, 0.0, 5e10);
        p.cache = Some((150e9, 137e9, 157e9));
        p.findings = Some(Findings {
            in_cache_bytes_per_sec: Some(2e9),
            first_sample_hides: Some(crate::detect::HiddenCache {
                bytes: 60_000_000_000,
                interval_s: 30.0,
                before_first_row: false,
                faster_bytes_per_sec: None,
            }),
            ..Findings::bare(Cache::Sized {
                bytes: 150_000_000_000,
                low_bytes: 137_000_000_000,
                high_bytes: 157_000_000_000,
            })
        });
        let o = ReportOptions::default();
        let c = &history_charts("drive", "2026-12-03", &[p.clone()], &o)[0];
        // The point is dashed, and the legend says why; a plain run beside it is not.
        let dashed = |c: &ChartSpec| {
            c.series
                .iter()
                .filter(|s| s.name.is_empty() && s.style.dash == HEDGED_DASH)
                .count()
        };
        assert!(dashed(c) >= 4, "{:?}", c.series);
        assert!(
            c.legend.iter().any(|l| l
                .name
                .contains("a faster first tier the first sample could hide")
                && l.style.dash == HEDGED_DASH),
            "{:?}",
            c.legend
        );
        let mut plain = point(2, 1.0, 6e10);
        plain.cache = Some((150e9, 137e9, 157e9));
        let both = history_charts("drive", "2026-12-03", &[p.clone(), plain], &o);
        assert_eq!(dashed(&both[0]), dashed(c));
        assert!(both[0]
            .legend
            .iter()
            .any(|l| l.name.starts_with("dashed: 1 run ")));
        assert_eq!(
            c.subtitle,
            "latest run (run 1): 150 GB (137 GB to 157 GB), or a first tier < 60.0 GB hid in \
             the first sample"
        );
        let l = Layout::new(c.size, false, c.footer.len());
        let w = c.size.0 as f64 - 48.0 * l.scale;
        assert!(
            text_width(&c.subtitle, l.font(font_px::SUBTITLE)) <= w,
            "{}",
            c.subtitle
        );
    }

    /// A file target's history had no wear chart and no sentence saying why (an emulated
    /// drive's has one).
    #[test]
    fn a_file_target_says_why_it_has_no_wear_chart() {
        let mut p = point(1, 0.0, 0.0);
        p.drive_written_bytes = None;
        p.percentage_used = None;
        p.file = true;
        let t = no_wear_chart_text(std::slice::from_ref(&p)).expect("a sentence");
        assert!(t.contains("the run wrote a file"), "{t}");
        let charts = history_charts(
            "file",
            "2026-12-03",
            &[p.clone()],
            &ReportOptions::default(),
        );
        assert_eq!(charts.len(), 2);
        // A real drive whose counters no run read says so too; one that has them is charted.
        p.file = false;
        let t = no_wear_chart_text(std::slice::from_ref(&p)).expect("a sentence");
        assert!(t.contains("no run read the drive's count"), "{t}");
        assert_eq!(no_wear_chart_text(&[point(1, 0.0, 5e10)]), None);
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
