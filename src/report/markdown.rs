//! `report.md` and `compare.md`: a Markdown table ready to paste into a review (drive,
//! workload, cache size with its interval, the rate in each phase, time to the cliff, bytes
//! written, stop reason), one column per run, followed by the charts.

use crate::detect::PhaseKind;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

use super::charts::{drive_text, workload_text, ChartKind, CompareRun};

fn esc(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn phase_name(k: PhaseKind) -> &'static str {
    match k {
        PhaseKind::Cache => "SLC cache",
        PhaseKind::PostCache => "after the cache",
        PhaseKind::Folding => "folding",
        PhaseKind::Steady => "steady",
    }
}

/// The rows of the table for one run: (row name, value).
pub fn run_rows(r: &CompareRun<'_>, units: UnitSystem) -> Vec<(String, String)> {
    let a = r.analysis;
    let meta = &r.timeline.meta;
    let fb = |b: u64| format_bytes(b as f64, units);
    let mut v = vec![
        ("Drive".to_string(), drive_text(meta, units)),
        ("Workload".to_string(), workload_text(meta, a.interval_s)),
    ];
    let cache = match (&a.cache_estimate, a.cliffs.is_empty()) {
        (Some(e), _) => format!(
            "{} (95% interval {} to {})",
            fb(e.bytes),
            fb(e.low_bytes),
            fb(e.high_bytes)
        ),
        (None, true) => format!(
            "no cliff: {}",
            crate::detect::no_cliff_text(a.cache_lower_bound_bytes, a.bytes_total, units)
        ),
        (None, false) => "not estimated".to_string(),
    };
    v.push(("Cache size".to_string(), cache));
    for (i, p) in a.phases.iter().enumerate() {
        v.push((
            format!("Phase {}", i + 1),
            format!(
                "{}: {} ({} to {})",
                phase_name(p.kind),
                format_rate(p.mean_bytes_per_sec, units),
                format_seconds(p.start_s),
                format_seconds(p.end_s)
            ),
        ));
    }
    let cliff = match a.cliffs.first() {
        Some(c) => format!(
            "{} (95% interval {} to {})",
            format_seconds(c.t_s),
            format_seconds(c.t_low_s),
            format_seconds(c.t_high_s)
        ),
        None => "no cliff".to_string(),
    };
    v.push(("Time to cliff".to_string(), cliff));
    if a.cliffs.len() > 1 {
        let rest = a.cliffs[1..]
            .iter()
            .map(|c| {
                format!(
                    "at {}, {} written ({} to {})",
                    format_seconds(c.t_s),
                    fb(c.bytes_written),
                    format_rate(c.before_bytes_per_sec, units),
                    format_rate(c.after_bytes_per_sec, units)
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        v.push(("Further cliffs".to_string(), rest));
    }
    v.push((
        "Bytes written".to_string(),
        format!("{} in {}", fb(a.bytes_total), format_seconds(a.duration_s)),
    ));
    v.push((
        "Stop reason".to_string(),
        meta.stop_reason
            .map(|s| s.to_string())
            .unwrap_or_else(|| "unknown".to_string()),
    ));
    v
}

/// The table, one column per run. Rows that only some runs have (a third phase) are blank for
/// the others.
pub fn summary_table(runs: &[CompareRun<'_>], units: UnitSystem) -> String {
    let per_run: Vec<Vec<(String, String)>> = runs.iter().map(|r| run_rows(r, units)).collect();
    let mut names: Vec<String> = Vec::new();
    for rows in &per_run {
        for (k, _) in rows {
            if !names.contains(k) {
                // Keep the order of the first run, and put new rows after the last phase row.
                let pos = if k.starts_with("Phase") {
                    names
                        .iter()
                        .rposition(|n| n.starts_with("Phase") || n == "Cache size")
                        .map(|p| p + 1)
                        .unwrap_or(names.len())
                } else {
                    names.len()
                };
                names.insert(pos, k.clone());
            }
        }
    }
    let mut s = String::from("| |");
    for r in runs {
        s.push_str(&format!(" {} |", esc(r.name)));
    }
    s.push_str("\n|---|");
    for _ in runs {
        s.push_str("---|");
    }
    s.push('\n');
    for n in &names {
        s.push_str(&format!("| {} |", esc(n)));
        for rows in &per_run {
            let v = rows
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
                .unwrap_or("");
            s.push_str(&format!(" {} |", esc(v)));
        }
        s.push('\n');
    }
    s
}

fn chart_title(k: ChartKind) -> &'static str {
    match k {
        ChartKind::ThroughputTime => "Write throughput over time",
        ChartKind::ThroughputData => "Write throughput over data written",
        ChartKind::Latency => "Write latency per interval",
        ChartKind::CompareTime => "Write throughput over time",
        ChartKind::CompareData => "Write throughput over data written",
    }
}

fn charts_section(charts: &[ChartKind]) -> String {
    let mut s = String::new();
    for k in charts {
        let stem = k.file_stem();
        s.push_str(&format!(
            "### {}\n\n![{}]({stem}.png)\n\nVector version: [{stem}.svg]({stem}.svg)\n\n",
            chart_title(*k),
            chart_title(*k)
        ));
    }
    s
}

fn units_note(units: UnitSystem) -> &'static str {
    match units {
        UnitSystem::Decimal => "decimal units: 1 MB = 10^6 bytes, 1 GB = 10^9 bytes",
        UnitSystem::Binary => "binary units: 1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes",
    }
}

/// `report.md` for one run, linking the charts that were written.
pub fn report_md(run: &CompareRun<'_>, charts: &[ChartKind], units: UnitSystem) -> String {
    let mut s = format!("# SLC cache report: {}\n\n", run.name);
    s.push_str(&summary_table(std::slice::from_ref(run), units));
    s.push('\n');
    if !run.analysis.warnings.is_empty() {
        s.push_str("**Warnings**\n\n");
        for w in &run.analysis.warnings {
            s.push_str(&format!("- {w}\n"));
        }
        s.push('\n');
    }
    s.push_str("## Charts\n\n");
    s.push_str(&charts_section(charts));
    s.push_str(&format!(
        "Made with slccache {} ({}). The table is Markdown, ready to paste.\n",
        crate::VERSION,
        units_note(units)
    ));
    s
}

/// `compare.md`: the runs side by side, linking the comparison charts.
pub fn compare_md(runs: &[CompareRun<'_>], charts: &[ChartKind], units: UnitSystem) -> String {
    let mut s = String::from("# SLC cache comparison\n\n");
    s.push_str(&summary_table(runs, units));
    s.push('\n');
    let warn: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.analysis
                .warnings
                .iter()
                .map(move |w| format!("- {}: {w}", r.name))
        })
        .collect();
    if !warn.is_empty() {
        s.push_str("**Warnings**\n\n");
        s.push_str(&warn.join("\n"));
        s.push_str("\n\n");
    }
    s.push_str("## Charts\n\n");
    s.push_str(&charts_section(charts));
    s.push_str(&format!(
        "Made with slccache {} ({}).\n",
        crate::VERSION,
        units_note(units)
    ));
    s
}
