//! The files of the burst experiments (`recovery`, `fill-sweep`): `summary.json`, the points
//! CSV, the charts of [`crate::report::charts::experiments`], `report.md`, `report.html`, and the lines
//! printed at the end.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::report::charts::experiments::{bursts_chart, fill_chart, recovery_chart};
use crate::report::charts::history::{history_charts, no_wear_chart_text, HistoryPoint};
use crate::report::charts::{self, ChartKind, ChartSpec, CompareRun};
use crate::report::outputs::writer::{summary_file, write_outputs, NamedFile, Outputs};
use crate::report::pages::html::{HtmlExtra, Table};
use crate::report::ReportOptions;
use crate::results::recovery::{
    BurstEnd, BurstRecord, BurstSummary, FillSweepSummary, RecoverySummary,
};
use crate::timeline::RunMeta;
use crate::units::short_secs;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

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

/// The first burst's name in the points' tables: "(first burst, interrupted)" where Ctrl-C
/// cut it short.
fn first_burst_name(b: &BurstSummary) -> String {
    if b.end == BurstEnd::Interrupted {
        "(first burst, interrupted)".into()
    } else {
        "(first burst)".into()
    }
}

/// `report.md` of `recovery`.
pub fn recovery_md(sum: &RecoverySummary, u: UnitSystem) -> String {
    let f = &sum.recovery.fit;
    let mut s = format!("# SLC cache recovery: {}\n\n", charts::run_name(&sum.run));
    if sum.interrupted {
        let cut = sum
            .recovery
            .first_burst
            .as_ref()
            .is_some_and(|b| b.end == BurstEnd::Interrupted);
        s += if cut {
            "**Interrupted** in the first burst: what it measured before the interrupt is below.\n\n"
        } else {
            "**Interrupted**: only the finished steps are below.\n\n"
        };
    }
    s += "| | estimate | 95% interval |";
    if sum.truth().is_some() {
        s += " model |";
    }
    s += "\n|---|---|---|";
    if sum.truth().is_some() {
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
        if sum.truth().is_some() {
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
        sum.truth().map(|t| t.recover_bytes_per_sec),
        &rate,
    );
    s += &row(
        "delay before folding",
        f.delay_s,
        f.delay_s_low,
        f.delay_s_high,
        sum.truth().map(|t| t.recover_delay_s),
        &format_seconds,
    );
    s += &row(
        "idle time to full recovery",
        f.full_recovery_s,
        f.full_recovery_s_low,
        f.full_recovery_s_high,
        sum.truth().and_then(|t| t.full_recovery_s),
        &format_seconds,
    );
    s += "\n## Points\n\n| step | idle | cache recovered | 95% interval | read by | burst | timeline |\n|---|---|---|---|---|---|---|\n";
    if let Some(b) = &sum.recovery.first_burst {
        s += &format!(
            "| 0 | {} | {} | {} | {} |{}",
            first_burst_name(b),
            recovered_cell(b.cache_bytes, (b.low_bytes, b.high_bytes), b, u),
            interval_cell(b.low_bytes, b.high_bytes, b, u),
            b.method,
            burst_cells(b, u)
        );
    }
    if let Some(st) = &sum.recovery.settling {
        s += &format!(
            "| 0 | {} (settling, not a point) | {} | {} | {} |{}",
            short_secs(st.idle_s),
            recovered_cell(
                st.recovered_bytes,
                (st.burst.low_bytes, st.burst.high_bytes),
                &st.burst,
                u
            ),
            interval_cell(st.burst.low_bytes, st.burst.high_bytes, &st.burst, u),
            st.burst.method,
            burst_cells(&st.burst, u)
        );
    }
    for p in &sum.recovery.points {
        s += &format!(
            "| {} | {} | {} | {} | {} |{}",
            p.step,
            short_secs(p.idle_s),
            recovered_cell(p.recovered_bytes, (p.low_bytes, p.high_bytes), &p.burst, u),
            interval_cell(p.low_bytes, p.high_bytes, &p.burst, u),
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
        let cut = sum
            .fill_sweep
            .points
            .iter()
            .any(|l| l.burst.end == BurstEnd::Interrupted);
        s += if cut {
            "**Interrupted**: the finished levels are below, and the last one's burst as far as \
             it went (its end says interrupted).\n\n"
        } else {
            "**Interrupted**: only the finished levels are below.\n\n"
        };
    }
    let model = sum.truth().is_some();
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
            "| {}%{} | {} | {} | {} |",
            p.fill_pct,
            if (p.actual_fill_pct - p.fill_pct).abs() > 0.05 {
                format!(" ({:.1}% at the burst)", p.actual_fill_pct)
            } else {
                String::new()
            },
            recovered_cell(p.cache_bytes, (p.low_bytes, p.high_bytes), &p.burst, u),
            interval_cell(p.low_bytes, p.high_bytes, &p.burst, u),
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

/// Writes the recovery's `summary.json`, `recovery.csv`, charts, `report.md` and
/// `report.html` with the one writer ([`write_outputs`]); returns the files written.
/// `data_done` is called once `summary.json` and `recovery.csv` are complete (the bursts'
/// timelines were written during the run), before the first chart: the command notes the
/// folder for the store there.
pub fn write_recovery_outputs(
    dir: &Path,
    sum: &RecoverySummary,
    bursts: &[&BurstRecord],
    o: &ReportOptions,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    let out = Experiment {
        data: vec![summary_file(sum)?, ("recovery.csv", recovery_csv(sum)?)],
        main_chart: recovery_chart(sum, o),
        bursts: (bursts, ChartKind::RecoveryBursts, "Recovery", &sum.run),
        md: recovery_md(sum, o.units),
        title: format!("SLC cache recovery: {}", charts::run_name(&sum.run)),
        notes: experiment_notes(
            sum.interrupted,
            "steps",
            &recovery_text(sum, o.units),
            &sum.warnings,
        ),
        tables: vec![("Points".into(), recovery_table(sum, o.units))],
    };
    write_outputs(dir, &out, o, data_done)
}

/// Writes the fill-sweep's `summary.json`, `fill-sweep.csv`, charts, `report.md` and
/// `report.html` with the one writer; returns the files written. `data_done` is called once
/// `summary.json` and the CSV are complete, before the first chart (see
/// [`write_recovery_outputs`]).
pub fn write_fill_outputs(
    dir: &Path,
    sum: &FillSweepSummary,
    bursts: &[&BurstRecord],
    o: &ReportOptions,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    let out = Experiment {
        data: vec![summary_file(sum)?, ("fill-sweep.csv", fill_csv(sum)?)],
        main_chart: fill_chart(sum, o),
        bursts: (bursts, ChartKind::FillSweepBursts, "Fill-sweep", &sum.run),
        md: fill_md(sum, o.units),
        title: format!(
            "SLC cache against fill level: {}",
            charts::run_name(&sum.run)
        ),
        notes: experiment_notes(
            sum.interrupted,
            "levels",
            &fill_text(sum, o.units),
            &sum.warnings,
        ),
        tables: vec![("Levels".into(), fill_table(sum, o.units))],
    };
    write_outputs(dir, &out, o, data_done)
}

/// An experiment's folder: its data files, its own chart, the chart of its bursts over data
/// written (empty when no burst finished), its `report.md`, and what its `report.html` shows
/// besides the charts (the title, the findings, the tables; the configuration comes from the
/// `summary.json` among the data).
struct Experiment<'a> {
    data: Vec<NamedFile>,
    main_chart: ChartSpec,
    bursts: BurstsChart<'a>,
    md: String,
    title: String,
    notes: Vec<String>,
    tables: Vec<(String, Table)>,
}

impl Outputs for Experiment<'_> {
    fn data(&self) -> Result<Vec<NamedFile>> {
        Ok(self.data.clone())
    }

    fn charts(&self, o: &ReportOptions) -> Vec<ChartSpec> {
        let (bursts, kind, name, run) = self.bursts;
        // Also with no finished burst (interrupted in the first one): report.md links the
        // chart, and an experiment's folder holds the same files however far it got.
        let title = format!("{name} bursts over data written: {}", charts::run_name(run));
        vec![
            self.main_chart.clone(),
            bursts_chart(bursts, run, kind, &title, o),
        ]
    }

    fn markdown(&self, _specs: &[ChartSpec], _o: &ReportOptions) -> Option<(&'static str, String)> {
        Some(("report.md", self.md.clone()))
    }

    fn page(
        &self,
        _specs: &[ChartSpec],
        _o: &ReportOptions,
        summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra) {
        let extra = HtmlExtra {
            title: Some(self.title.clone()),
            summary,
            notes: self.notes.clone(),
            tables: self.tables.clone(),
            ..Default::default()
        };
        (Vec::new(), extra)
    }
}

/// The notes of an experiment's `report.html`: interrupted or not, the findings as the
/// terminal printed them (less the first line, the title's, and the warnings), then the
/// warnings.
fn experiment_notes(interrupted: bool, what: &str, text: &str, warnings: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    if interrupted {
        v.push(format!("Interrupted: only the finished {what} are below."));
    }
    v.extend(
        text.lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("warning: "))
            .map(String::from),
    );
    v.extend(warnings.iter().map(|w| format!("Warning: {w}")));
    v
}

/// The cache a burst found, as the step tables give it: a size, or where the burst's drop lay
/// inside its first sample ([`crate::results::recovery::FIRST_SAMPLE_DROP`]) its bounds,
/// unconfirmed, as the terminal and `analyze` of the burst's CSV say (the table said "cache
/// recovered 16.1 GB" where they say "16.1 GB to 35.5 GB if it was the cache running out").
fn recovered_cell(bytes: f64, (low, high): (f64, f64), b: &BurstSummary, u: UnitSystem) -> String {
    if b.method == "none" {
        // No cliff: what the burst wrote bounds the cache from below, and is no size (an
        // interrupted first burst read "2.93 GB" beside "95% interval 2.93 GB .. 2.93 GB").
        format!("at least {} (no cliff)", format_bytes(bytes, u))
    } else if b.method == crate::results::recovery::UNCONFIRMED_DROP {
        format!("at least {} (drop unconfirmed)", format_bytes(bytes, u))
    } else if b.method == crate::results::recovery::TOO_FEW_SAMPLES {
        "none (too few samples)".to_string()
    } else if b.method == crate::results::recovery::FIRST_SAMPLE_DROP {
        format!(
            "{} to {} (unconfirmed: a drop inside the first sample), or less if a faster \
             first tier ran out inside it",
            format_bytes(low, u),
            format_bytes(high, u)
        )
    } else {
        format_bytes(bytes, u)
    }
}

/// The 95% interval of a burst's cache: `none (a bound)` where it found no cliff.
fn interval_cell(low: f64, high: f64, b: &BurstSummary, u: UnitSystem) -> String {
    if crate::results::recovery::is_bound(b.method) {
        "none (a bound)".to_string()
    } else if b.method == crate::results::recovery::TOO_FEW_SAMPLES {
        "none".to_string()
    } else {
        format!("{} .. {}", format_bytes(low, u), format_bytes(high, u))
    }
}

/// The points of `recovery` as a table.
fn recovery_table(sum: &RecoverySummary, u: UnitSystem) -> Table {
    let mut head: Vec<String> = ["step", "idle", "cache recovered", "95% interval", "read by"]
        .map(String::from)
        .to_vec();
    let model = sum.truth().is_some();
    if model {
        head.push("model".into());
    }
    head.extend(["burst", "timeline"].map(String::from));
    let mut rows = Vec::new();
    let burst = |b: &BurstSummary| {
        vec![
            format!(
                "{} in {}",
                format_bytes(b.bytes_written as f64, u),
                format_seconds(b.duration_s)
            ),
            b.timeline.clone(),
        ]
    };
    if let Some(b) = &sum.recovery.first_burst {
        let mut r = vec![
            "0".to_string(),
            first_burst_name(b),
            recovered_cell(b.cache_bytes, (b.low_bytes, b.high_bytes), b, u),
            interval_cell(b.low_bytes, b.high_bytes, b, u),
            b.method.to_string(),
        ];
        if model {
            r.push("-".into());
        }
        r.extend(burst(b));
        rows.push(r);
    }
    if let Some(st) = &sum.recovery.settling {
        let b = &st.burst;
        let mut r = vec![
            "0".to_string(),
            format!("{} (settling, not a point)", short_secs(st.idle_s)),
            recovered_cell(st.recovered_bytes, (b.low_bytes, b.high_bytes), b, u),
            interval_cell(b.low_bytes, b.high_bytes, b, u),
            b.method.to_string(),
        ];
        if model {
            r.push(
                st.truth_recovered_bytes
                    .map(|t| format_bytes(t, u))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        r.extend(burst(b));
        rows.push(r);
    }
    for p in &sum.recovery.points {
        let mut r = vec![
            p.step.to_string(),
            short_secs(p.idle_s),
            recovered_cell(p.recovered_bytes, (p.low_bytes, p.high_bytes), &p.burst, u),
            interval_cell(p.low_bytes, p.high_bytes, &p.burst, u),
            p.burst.method.to_string(),
        ];
        if model {
            r.push(
                p.truth_recovered_bytes
                    .map(|t| format_bytes(t, u))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        r.extend(burst(&p.burst));
        rows.push(r);
    }
    (head, rows)
}

/// The levels of `fill-sweep` as a table.
fn fill_table(sum: &FillSweepSummary, u: UnitSystem) -> Table {
    let mut head: Vec<String> = ["fill level", "cache", "95% interval", "read by"]
        .map(String::from)
        .to_vec();
    let model = sum.truth().is_some();
    if model {
        head.push("model".into());
    }
    head.extend(["burst", "timeline"].map(String::from));
    let rows = sum
        .fill_sweep
        .points
        .iter()
        .map(|p| {
            let mut r = vec![
                format!(
                    "{}%{}",
                    p.fill_pct,
                    if (p.actual_fill_pct - p.fill_pct).abs() > 0.05 {
                        format!(" ({:.1}% at the burst)", p.actual_fill_pct)
                    } else {
                        String::new()
                    }
                ),
                recovered_cell(p.cache_bytes, (p.low_bytes, p.high_bytes), &p.burst, u),
                interval_cell(p.low_bytes, p.high_bytes, &p.burst, u),
                p.burst.method.to_string(),
            ];
            if model {
                r.push(
                    p.truth_cache_bytes
                        .map(|t| format_bytes(t, u))
                        .unwrap_or_else(|| "-".into()),
                );
            }
            r.push(format!(
                "{} in {}",
                format_bytes(p.burst.bytes_written as f64, u),
                format_seconds(p.burst.duration_s)
            ));
            r.push(p.burst.timeline.clone());
            r
        })
        .collect();
    (head, rows)
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

/// The text of `recovery.csv`.
fn recovery_csv(sum: &RecoverySummary) -> Result<Vec<u8>> {
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
    let truth = sum.truth().is_some().then_some("truth_recovered_bytes");
    points_csv(&head, truth, rows)
}

/// The CSV of an experiment's points: the columns `head`, then a row per
/// point. With a model (`truth` names the column) a last column holds the model's figure for
/// each point, empty where it has none.
fn points_csv(
    head: &[&str],
    truth: Option<&str>,
    rows: Vec<(Vec<String>, Option<f64>)>,
) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = head.to_vec();
    head.extend(truth);
    w.write_record(&head)?;
    for (mut row, t) in rows {
        if truth.is_some() {
            row.push(t.map(|v| format!("{v:.0}")).unwrap_or_default());
        }
        w.write_record(&row)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

fn opt_num(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "?".into())
}

/// The closing lines of `recovery`.
pub fn recovery_text(sum: &RecoverySummary, units: UnitSystem) -> String {
    let f = &sum.recovery.fit;
    let rate = |v: f64| format_rate(v, units);
    let mut s = format!(
        "{}: {}{}\n",
        sum.run.label,
        crate::units::count_text(sum.recovery.points.len(), "step", "steps"),
        if sum.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    if let Some(b) = &sum.recovery.first_burst {
        s += &format!(
            "  first burst: {}\n",
            crate::units::cache_found_text(
                b.cache_bytes,
                b.low_bytes,
                b.high_bytes,
                b.method,
                units
            )
        );
    }
    if let Some(st) = &sum.recovery.settling {
        s += &format!(
            "  settling, idle {}: {} came back (not a point)\n",
            short_secs(st.idle_s),
            format_bytes(st.recovered_bytes, units)
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
    if f.fold_rate_bytes_per_sec.is_none() && f.delay_s.is_none() && f.full_recovery_s.is_none() {
        s += if sum.recovery.points.is_empty() {
            "  fit: not determined (no recovery point to fit)\n"
        } else {
            "  fit: not determined (see the warnings)\n"
        };
    } else {
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
    }
    if let Some(t) = sum.truth() {
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

/// The closing lines of `fill-sweep`.
pub fn fill_text(sum: &FillSweepSummary, units: UnitSystem) -> String {
    let mut s = format!(
        "{}: {}{}\n",
        sum.run.label,
        crate::units::count_text(sum.fill_sweep.points.len(), "level", "levels"),
        if sum.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    for p in &sum.fill_sweep.points {
        s += &format!(
            "  {:>5.1}% full: {}{}\n",
            p.fill_pct,
            crate::units::cache_found_text(
                p.cache_bytes,
                p.low_bytes,
                p.high_bytes,
                p.burst.method,
                units
            ),
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

/// The bursts of an experiment for their chart: the records, the chart's kind, the
/// experiment's name for the title ("Recovery"), and the run.
type BurstsChart<'a> = (&'a [&'a BurstRecord], ChartKind, &'a str, &'a RunMeta);

/// The text of `fill-sweep.csv`.
fn fill_csv(sum: &FillSweepSummary) -> Result<Vec<u8>> {
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
                    // No cliff: no cache size, and the bytes written are its lower bound.
                    if crate::results::recovery::is_bound(p.burst.method)
                        || p.burst.method == crate::results::recovery::TOO_FEW_SAMPLES
                    {
                        String::new()
                    } else {
                        format!("{:.0}", p.cache_bytes)
                    },
                    // Too few samples bound nothing.
                    if p.burst.method == crate::results::recovery::TOO_FEW_SAMPLES {
                        String::new()
                    } else {
                        format!("{:.0}", p.low_bytes)
                    },
                    if crate::results::recovery::is_bound(p.burst.method)
                        || p.burst.method == crate::results::recovery::TOO_FEW_SAMPLES
                    {
                        String::new()
                    } else {
                        format!("{:.0}", p.high_bytes)
                    },
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
    let truth = sum.truth().is_some().then_some("truth_cache_bytes");
    points_csv(&head, truth, rows)
}

/// Writes a drive's history into `dir` (created if missing) with the one writer: the
/// [`history_charts`] as PNG and SVG, and `report.html` with them; returns the files written.
pub fn write_history_outputs(
    dir: &Path,
    drive: &str,
    first_date: &str,
    pts: &[HistoryPoint],
    o: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    let out = History {
        drive,
        first_date,
        pts,
    };
    write_outputs(dir, &out, o, &mut || {})
}

/// The history page's table: one row per run, with what the store holds of its findings.
fn history_table(pts: &[HistoryPoint], u: UnitSystem) -> crate::report::pages::html::Table {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    let mut head: Vec<String> = [
        "run",
        "date (UTC)",
        "day",
        "ran",
        "workload",
        "SLC cache (95% interval)",
        "in cache",
        "after cache",
    ]
    .map(String::from)
    .to_vec();
    // The drive's counters, where they are its wear: an emulated or simulated drive's start
    // from zero on each run (the page's note says so), so they are left out, not shown
    // beside it.
    let counters = pts.iter().any(|p| p.counters_from_zero.is_none());
    if counters {
        head.extend(["drive's data written", "percentage used"].map(String::from));
    }
    let hosts = pts.iter().any(|p| p.host.is_some());
    if hosts {
        head.push("host".into());
    }
    let rows = pts
        .iter()
        .map(|p| {
            let cache = match (p.cache, p.cache_lower_bound) {
                // As every output gives the run's findings.
                _ if p.findings.is_some() => p.findings.as_ref().expect("checked").cache_cell(u),
                (Some((c, lo, hi)), _) => format!(
                    "{} ({} to {})",
                    format_bytes(c, u),
                    format_bytes(lo, u),
                    format_bytes(hi, u)
                ),
                // As `runs` gives it: what the run bounds, without a word its own text lacks
                // (a drop inside the first sample bounds it from both sides there).
                (None, Some(b)) => format!("no cliff; at least {}", format_bytes(b, u)),
                (None, None) => "no cliff".to_string(),
            };
            let mut row = vec![
                p.id.to_string(),
                p.date.get(..16).unwrap_or(&p.date).replace('T', " "),
                format!("{:.1}", p.days),
                if p.interrupted {
                    format!("{} (interrupted)", p.ran)
                } else {
                    p.ran.clone()
                },
                p.workload.clone(),
                cache,
                // As `runs` gives it: "(before the cliff)" where the cliff may be a later
                // tier's, ">= ... (first sample; unconfirmed)" for a drop not confirmed.
                match &p.findings {
                    Some(f) => opt(f.in_cache_cell(u)),
                    None => opt(p.in_cache_bytes_per_sec.map(|r| format_rate(r, u))),
                },
                match &p.findings {
                    Some(f) => opt(f.after_cell(u)),
                    None => opt(p.after_bytes_per_sec.map(|r| format_rate(r, u))),
                },
            ];
            if counters {
                row.push(opt(p.drive_written_bytes.map(|b| format_bytes(b, u))));
                row.push(opt(p.percentage_used.map(|v| format!("{v:.0}%"))));
            }
            if hosts {
                row.push(opt(p.host.clone()));
            }
            row
        })
        .collect();
    (head, rows)
}

/// A drive's history ([`write_history_outputs`]): the drive, the date of its first run, and
/// the cache size of each run.
struct History<'a> {
    drive: &'a str,
    first_date: &'a str,
    pts: &'a [HistoryPoint],
}

impl Outputs for History<'_> {
    fn charts(&self, o: &ReportOptions) -> Vec<ChartSpec> {
        history_charts(self.drive, self.first_date, self.pts, o)
    }

    fn markdown(&self, _specs: &[ChartSpec], _o: &ReportOptions) -> Option<(&'static str, String)> {
        None
    }

    fn page(
        &self,
        _specs: &[ChartSpec],
        o: &ReportOptions,
        _summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra) {
        let mut notes = vec![format!(
            "{} of this drive, day 0 being {}; each run's findings as the results store holds \
             them",
            crate::units::count_text(self.pts.len(), "run", "runs"),
            self.first_date
        )];
        // What the after-cache figures of the table and the chart mean.
        if self.pts.iter().any(|p| {
            p.after_bytes_per_sec.is_some()
                || p.findings.as_ref().is_some_and(|f| f.after.is_some())
        }) {
            notes.push(crate::detect::after_cache_definition());
        }
        let extra = HtmlExtra {
            title: Some(format!("SLC cache history: {}", self.drive)),
            notes,
            tables: vec![("Runs".to_string(), history_table(self.pts, o.units))],
            chart_notes: no_wear_chart_text(self.pts).into_iter().collect(),
            ..Default::default()
        };
        (Vec::new(), extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The history table gave an emulated drive's counters as "drive's data written" beside
    /// the page's note that they are not the drive's wear: they are left out.
    #[test]
    fn the_history_table_leaves_out_counters_that_are_not_wear() {
        let p = HistoryPoint {
            id: 1,
            days: 0.0,
            cache: Some((13e9, 12.9e9, 13.1e9)),
            after_bytes_per_sec: Some(3e8),
            drive_written_bytes: Some(2e10),
            percentage_used: Some(0.0),
            counters_from_zero: Some("emulated"),
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
        };
        let (head, rows) = history_table(std::slice::from_ref(&p), UnitSystem::Decimal);
        assert!(!head.iter().any(|h| h.contains("data written")), "{head:?}");
        assert!(!rows[0].iter().any(|c| c == "20.0 GB"), "{rows:?}");
        assert_eq!(head.len(), rows[0].len());
        // A real drive's are its wear: shown.
        let real = HistoryPoint {
            counters_from_zero: None,
            ..p
        };
        let (head, rows) = history_table(std::slice::from_ref(&real), UnitSystem::Decimal);
        assert!(head.iter().any(|h| h == "drive's data written"), "{head:?}");
        assert!(rows[0].iter().any(|c| c == "20.0 GB"), "{rows:?}");
        assert_eq!(head.len(), rows[0].len());
        // A cliff a faster first tier hidden in the first sample could make a later tier's:
        // the table gave "3620 MB/s" in cache, where `runs`, the card and the library page say
        // "before the cliff".
        let f: crate::detect::Findings = serde_json::from_str(
            r#"{"cache":{"kind":"sized","bytes":461000000000,"low_bytes":434000000000,"high_bytes":474000000000},"in_cache_bytes_per_sec":3.62e9,"level_bytes_per_sec":null,"steps":[],"after":null,"phase_names":[],"first_sample_hides":{"bytes":433000000000,"interval_s":120.0}}"#,
        )
        .unwrap();
        let hedged = HistoryPoint {
            findings: Some(f),
            in_cache_bytes_per_sec: Some(3.62e9),
            ..real
        };
        let (head, rows) = history_table(std::slice::from_ref(&hedged), UnitSystem::Decimal);
        let i = head.iter().position(|h| h == "in cache").unwrap();
        assert_eq!(rows[0][i], "3620 MB/s (before the cliff)", "{rows:?}");
    }
}
