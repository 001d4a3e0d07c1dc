//! `report.md` and `compare.md`: a Markdown table ready to paste into a review (drive,
//! workload, cache size with its interval, the rate in each phase, time to the cliff, bytes
//! written, stop reason), one column per run, followed by the charts. A probe's report adds
//! the host and the drive's own report ([`drive_rows`]).

use crate::device::host::HostInfo;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

use crate::report::charts::{drive_text, workload_text, ChartKind, CompareRun};
use crate::report::DriveState;

fn esc(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The rows of the table for one run: (row name, value).
pub fn run_rows(r: &CompareRun<'_>, units: UnitSystem) -> Vec<(String, String)> {
    let a = r.analysis;
    let meta = &r.timeline.meta;
    let fb = |b: u64| format_bytes(b as f64, units);
    let mut v = vec![("Drive".to_string(), drive_text(meta, units))];
    if meta.device.path.is_empty() && meta.device.model.is_none() && !meta.label.is_empty() {
        v.push(("Input".to_string(), meta.label.clone()));
    }
    v.push(("Workload".to_string(), workload_text(meta, a.interval_s)));
    v.push((
        "Run date".to_string(),
        meta.started_at
            .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_else(|| "not recorded".to_string()),
    ));
    let f = crate::detect::Findings::of(a);
    let cache = f.cache_row(units);
    v.push(("Cache size".to_string(), cache));
    let names = crate::detect::findings::phase_names(a);
    for (i, p) in a.phases.iter().enumerate() {
        v.push((
            format!("Phase {}", i + 1),
            format!(
                "{}: {} ({} to {})",
                names[i],
                format_rate(p.mean_bytes_per_sec, units),
                format_seconds(p.start_s),
                format_seconds(p.end_s)
            ),
        ));
    }
    // The temperatures the timeline holds (a model's, or a probe's per interval).
    let temps: Vec<f64> = r.timeline.samples.iter().filter_map(|s| s.temp_c).collect();
    if let (Some(&first), Some(&last)) = (temps.first(), temps.last()) {
        let hot = temps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let cold = temps.iter().copied().fold(f64::INFINITY, f64::min);
        v.push((
            "Temperature over the run".to_string(),
            format!(
                "{first:.0} °C at the start, {last:.0} °C at the end ({cold:.0} to {hot:.0} °C)"
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
        // The levels either side of each further cliff, as the findings give them.
        let step = |i: usize| f.steps.get(i + 1).copied();
        let rest = a.cliffs[1..]
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "at {}, {} written ({} to {})",
                    format_seconds(c.t_s),
                    fb(c.bytes_written),
                    format_rate(
                        step(i).map_or(c.before_bytes_per_sec, |x| x.before_bytes_per_sec),
                        units
                    ),
                    format_rate(
                        step(i).map_or(c.after_bytes_per_sec, |x| x.after_bytes_per_sec),
                        units
                    )
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        v.push(("Further cliffs".to_string(), rest));
    }
    if let Some(line) = crate::detect::returns_text(a, units) {
        let at = a
            .returns
            .iter()
            .map(|r| {
                format!(
                    "at {}, after {} written",
                    format_seconds(r.t_s),
                    fb(r.bytes_before)
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        v.push(("Cache came back".to_string(), format!("{line} ({at})")));
    }
    if let Some(t) = crate::detect::after_last_cliff_text(a, units) {
        v.push(("After the last cliff".to_string(), t));
    }
    v.push((
        if a.read_only {
            "Bytes read"
        } else {
            "Bytes written"
        }
        .to_string(),
        format!("{} in {}", fb(a.bytes_total), format_seconds(a.duration_s)),
    ));
    // A mixed run: what it read, beside what it wrote (a read-only run is analysed on its
    // reads, so the row above is already its reads).
    let read = r.timeline.read_bytes_total();
    if read > 0 && !a.read_only {
        let secs = r.timeline.duration_s();
        let reads = r.timeline.reads_total();
        v.push((
            "Bytes read".to_string(),
            format!(
                "{} in {} ({} mean, {} reads, {:.0} IOPS)",
                fb(read),
                format_seconds(secs),
                format_rate(if secs > 0.0 { read as f64 / secs } else { 0.0 }, units),
                reads,
                if secs > 0.0 { reads as f64 / secs } else { 0.0 }
            ),
        ));
    }
    if let Some(t) = crate::detect::coverage_text(a, units) {
        v.push(("Coverage".to_string(), t));
    }
    v.push((
        "Stop reason".to_string(),
        meta.stop_reason
            .map(|s| s.to_string())
            .unwrap_or_else(|| "unknown".to_string()),
    ));
    v
}

/// The rows a reviewer prints about the machine and the drive's own report: host, device
/// queue, drive temperature, health, the drive's count of data written against the probe's
/// `probe_bytes`, and its thermal-management counters over the run. Rows with nothing known
/// are left out.
pub fn drive_rows(
    host: Option<&HostInfo>,
    state: Option<&DriveState>,
    probe_bytes: u64,
    units: UnitSystem,
) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if let Some(h) = host {
        let mut parts = Vec::new();
        if let Some(k) = &h.kernel {
            parts.push(format!("Linux {k}"));
        }
        match (&h.cpu_model, h.cores) {
            (Some(c), Some(n)) => parts.push(format!("{c} ({n} CPUs)")),
            (Some(c), None) => parts.push(c.clone()),
            (None, Some(n)) => parts.push(format!("{n} CPUs")),
            (None, None) => {}
        }
        if !parts.is_empty() {
            v.push(("Host".to_string(), parts.join("; ")));
        }
        let mut q = Vec::new();
        if let Some(s) = &h.scheduler {
            q.push(format!("scheduler {s}"));
        }
        if let Some(w) = &h.write_cache {
            q.push(format!("write cache {w}"));
        }
        if let Some(p) = h.pcie_text() {
            q.push(format!("PCIe {p}"));
        }
        if !q.is_empty() {
            let disk = h.disk.as_deref().unwrap_or("device");
            v.push((
                "Device queue".to_string(),
                format!("{disk}: {}", q.join(", ")),
            ));
        }
    }
    let Some(s) = state else {
        return v;
    };
    let temp = |c: Option<f64>| c.map(|c| format!("{c:.0} °C"));
    match (temp(s.temperature_start_c), temp(s.temperature_end_c)) {
        (Some(a), Some(b)) => v.push((
            "Drive temperature".to_string(),
            format!("{a} at the start, {b} at the end"),
        )),
        (Some(a), None) => v.push(("Drive temperature".to_string(), format!("{a} at the start"))),
        _ => {}
    }
    if let Some(h) = s.smart_end.as_ref().or(s.smart_start.as_ref()) {
        let warn = if h.critical_warning == 0 {
            "no critical warning".to_string()
        } else {
            format!("critical warning {:#04x}", h.critical_warning)
        };
        v.push((
            "Drive health".to_string(),
            format!(
                "{}% used, spare {}% (threshold {}%), {warn}",
                h.percentage_used, h.available_spare_pct, h.available_spare_threshold_pct
            ),
        ));
    }
    if let (Some(a), Some(b)) = (&s.smart_start, &s.smart_end) {
        let units_delta = b.data_units_written as i128 - a.data_units_written as i128;
        let counted = units_delta * crate::health::DATA_UNIT_BYTES as i128;
        v.push((
            "Written, by the drive's count".to_string(),
            format!(
                "{} ({units_delta} units of 512,000 bytes); the probe wrote {}",
                if counted < 0 {
                    format!("-{}", format_bytes(counted.unsigned_abs() as f64, units))
                } else {
                    format_bytes(counted as f64, units)
                },
                format_bytes(probe_bytes as f64, units)
            ),
        ));
        let d = |x: u32, y: u32| y as i64 - x as i64;
        v.push((
            "Thermal management".to_string(),
            format!(
                "level 1: {:+} transitions, {:+} s; level 2: {:+} transitions, {:+} s; above the \
                 warning temperature {:+} min",
                d(a.thermal_mgmt_t1_transitions, b.thermal_mgmt_t1_transitions),
                d(a.thermal_mgmt_t1_time_s, b.thermal_mgmt_t1_time_s),
                d(a.thermal_mgmt_t2_transitions, b.thermal_mgmt_t2_transitions),
                d(a.thermal_mgmt_t2_time_s, b.thermal_mgmt_t2_time_s),
                d(a.warning_temp_min, b.warning_temp_min),
            ),
        ));
    }
    v
}

/// The table, one column per run. Rows that only some runs have (a third phase) are blank for
/// the others.
pub fn summary_table(runs: &[CompareRun<'_>], units: UnitSystem) -> String {
    summary_table_with(runs, units, &[])
}

/// [`summary_table`] for one or more runs, with `extra` rows appended to the first run's.
fn summary_table_with(
    runs: &[CompareRun<'_>],
    units: UnitSystem,
    extra: &[(String, String)],
) -> String {
    let mut per_run: Vec<Vec<(String, String)>> = runs.iter().map(|r| run_rows(r, units)).collect();
    if let Some(first) = per_run.first_mut() {
        first.extend(extra.iter().cloned());
    }
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
        ChartKind::ThroughputTimeZoom => "Write throughput over time, zoomed on the cliffs",
        ChartKind::ThroughputDataZoom => "Write throughput over data written, zoomed on the cliffs",
        ChartKind::SweepIops => "IOPS over queue depth",
        ChartKind::SweepLatency => "Latency over IOPS",
        ChartKind::SweepRwmix => "IOPS over the read share",
        ChartKind::Recovery => "Cache recovered against idle time",
        ChartKind::RecoveryBursts => "The bursts over data written",
        ChartKind::FillSweep => "Cache size against fill level",
        ChartKind::FillSweepBursts => "The bursts over data written",
        ChartKind::HistoryCacheDate => "Cache size against the run date",
        ChartKind::HistoryRateDate => "Throughput after the cache against the run date",
        ChartKind::HistoryCacheWear => "Cache size against the data the drive had written",
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
    report_md_with(run, charts, units, &[])
}

/// [`report_md`] with extra rows at the end of the table (host and drive state).
pub fn report_md_with(
    run: &CompareRun<'_>,
    charts: &[ChartKind],
    units: UnitSystem,
    extra_rows: &[(String, String)],
) -> String {
    let mut s = format!("# SLC cache report: {}\n\n", run.name);
    s.push_str(&summary_table_with(
        std::slice::from_ref(run),
        units,
        extra_rows,
    ));
    s.push('\n');
    if let Some(r) = &run.timeline.meta.resolution {
        s.push_str(&format!("Note: {}.\n\n", r.sentence()));
    }
    if let Some(ac) = &run.analysis.after_cache {
        s.push_str(&after_cache_note(ac, units));
    }
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
        "Made with slccache {} ({}).\n",
        crate::VERSION,
        units_note(units)
    ));
    s
}

/// The definition of "after the cache" under the table, with the figures of its steady-state
/// test: what "steady" means, and each round's rate.
fn after_cache_note(ac: &crate::detect::after_cache::AfterCache, units: UnitSystem) -> String {
    use crate::detect::after_cache::{MAX_RANGE_SHARE, MAX_SLOPE_SHARE, MIN_ROUND_S, ROUNDS};
    let mut s = format!(
        "After the last cliff: the data written after the last cliff over the time it took. \
         It is the drive's sustained speed only when it is steady: the samples after the cliff, \
         cut into {ROUNDS} equal rounds, have a range of at most {:.0}% of the rounds' mean and \
         a best-fit line that changes by at most {:.0}% of it across them (the steady-state \
         test of the SNIA Solid State Storage Performance Test Specification); the samples \
         that begin after the cliff must last {ROUNDS} rounds of {} at the least, or the \
         stretch is not judged (the sample the cliff falls in does not count, so a stretch a \
         little longer than that from the cliff can still be too short).",
        100.0 * MAX_RANGE_SHARE,
        100.0 * MAX_SLOPE_SHARE,
        format_seconds(MIN_ROUND_S)
    );
    if ac.throttled_s > 0.0 {
        s.push_str(&format!(
            " The {} of thermal throttling after the cliff is heat, not the drive's speed: it is \
             left out of the rate and the rounds, and its phases are named apart.",
            format_seconds(ac.throttled_s)
        ));
    }
    if let Some(st) = &ac.steady_state {
        let rounds: Vec<String> = st
            .rounds_bytes_per_sec
            .iter()
            .map(|&r| format_rate(r, units))
            .collect();
        s.push_str(&format!(
            " Rounds: {}; range {:.0}%, trend {:.0}%: {}.",
            rounds.join(", "),
            100.0 * st.range_share,
            100.0 * st.slope_share,
            if st.steady { "steady" } else { "not steady" }
        ));
    }
    s.push_str("\n\n");
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
