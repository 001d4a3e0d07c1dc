//! `report.md` and `compare.md`: a Markdown table ready to paste into a review (drive,
//! workload, cache size with its interval, the rate in each phase, time to the cliff, bytes
//! written, stop reason), one column per run, followed by the charts. A probe's report adds
//! the host and the drive's own report ([`drive_rows`]).

use crate::device::host::HostInfo;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

use crate::report::charts::{drive_text, workload_text_of, ChartKind, CompareRun};
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
    v.push(("Workload".to_string(), workload_text_of(meta, a)));
    v.push((
        "Run date".to_string(),
        meta.started_at
            .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_else(|| "not recorded".to_string()),
    ));
    let f = crate::detect::Findings::of(a);
    let cache = f.cache_row(units);
    v.push(("Cache size".to_string(), cache));
    // Each phase's row as the findings give it.
    for (i, row) in crate::detect::findings::phase_rows(a, units)
        .into_iter()
        .enumerate()
    {
        v.push((format!("Phase {}", i + 1), row));
    }
    // The temperatures the timeline holds (a model's, or a probe's per interval), each read
    // at the end of its sample: the first is no temperature "at the start" (the same model
    // read 50 °C after a 1 s sample and 70 °C after a 4 min one).
    let temps: Vec<f64> = r.timeline.samples.iter().filter_map(|s| s.temp_c).collect();
    let first_dt = r
        .timeline
        .samples
        .iter()
        .find(|s| s.temp_c.is_some())
        .map(|s| s.interval_s);
    if let (Some(&first), Some(&last), Some(dt)) = (temps.first(), temps.last(), first_dt) {
        let hot = temps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let cold = temps.iter().copied().fold(f64::INFINITY, f64::min);
        v.push((
            "Temperature over the run".to_string(),
            format!(
                "{first:.0} °C after the first {} sample, {last:.0} °C at the end ({cold:.0} to \
                 {hot:.0} °C)",
                crate::units::format_interval(dt)
            ),
        ));
    }
    let cliff = match a.cliffs.first() {
        Some(c) => {
            // Ends that round alike get the decimals that tell them apart.
            let (t, lo, hi) = crate::units::format_seconds_interval(c.t_s, c.t_low_s, c.t_high_s);
            format!("{t} (95% interval {lo} to {hi})")
        }
        None => "no cliff".to_string(),
    };
    // After a drop inside the first sample, the first cliff is a later, slower tier's.
    let cliff = match (&f.cache, a.cliffs.is_empty()) {
        (crate::detect::findings::Cache::Unconfirmed(_), false) => {
            format!("{cliff}: a later, slower tier's (the cache ran out inside the first sample)")
        }
        _ => cliff,
    };
    // A cache that ran out under the heat, as the levels either side of its cliff say it.
    // (After a drop inside the first sample, the first cliff is a later tier's.)
    let cliff = match (f.steps.first(), &f.cache) {
        (Some(s), crate::detect::findings::Cache::Unconfirmed(_)) if s.under_heat => {
            format!("{cliff}: {}", crate::detect::findings::UNDER_HEAT_TEXT)
        }
        (Some(s), _) if s.under_heat => {
            format!(
                "{cliff}: {}",
                crate::detect::findings::UNDER_HEAT_CACHE_TEXT
            )
        }
        _ => cliff,
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
                    "at {}, {} written ({} -> {})",
                    format_seconds(c.t_s),
                    fb(c.bytes_written),
                    match step(i) {
                        Some(_) => f.step_before_text(i + 1, units),
                        None => format_rate(c.before_bytes_per_sec, units),
                    },
                    match step(i) {
                        Some(_) => f.step_after_text(i + 1, units),
                        None => format_rate(c.after_bytes_per_sec, units),
                    }
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
            .map(|s| crate::detect::Findings::of(a).stop_text(s))
            .unwrap_or_else(|| "not recorded in the input".to_string()),
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
        match h.sata_link() {
            Some((g, false)) => q.push(format!("SATA {g:.1} Gb/s")),
            Some((g, true)) => q.push(format!("SATA {g:.1} Gb/s (the kernel's libata link)")),
            None => {}
        }
        if let Some(m) = h.usb_mbps {
            q.push(format!("USB {m} Mb/s"));
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
    v.extend(ata_rows(s, probe_bytes, units));
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

/// The rows of an ATA drive (SATA, or USB through SAT): its link, TRIM and security state,
/// its SMART figures at the start and the end, and the bytes it counted as written (attribute
/// 241, in bytes where the vendor's unit is known) against the probe's `probe_bytes`; or the
/// one line saying why there are none (a USB bridge that refuses SAT).
pub fn ata_rows(s: &DriveState, probe_bytes: u64, units: UnitSystem) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if let Some(n) = &s.ata_note {
        v.push(("ATA pass-through".to_string(), n.clone()));
    }
    if let Some(id) = &s.ata_identify {
        v.push((
            "ATA drive".to_string(),
            format!(
                "{}; TRIM {}; security: {}",
                id.link_text_with(s.libata_link.as_ref()),
                id.trim_text(),
                id.security_text()
            ),
        ));
    }
    let (a, b) = (s.ata_smart_start.as_ref(), s.ata_smart_end.as_ref());
    let Some(last) = b.or(a) else {
        return v;
    };
    let mut parts = Vec::new();
    let temp = |x: Option<&crate::health::ata::AtaSmart>| {
        x.and_then(|x| x.temperature_c)
            .map(|c| format!("{c:.0} °C"))
    };
    match (temp(a), temp(b)) {
        (Some(x), Some(y)) => parts.push(format!("temperature {x} at the start, {y} at the end")),
        (x, y) => {
            if let Some(t) = x.or(y) {
                parts.push(format!("temperature {t}"));
            }
        }
    }
    if let Some(id) = last.temperature_attribute {
        parts.push(format!("(attribute {id})"));
    }
    if let Some(h) = last.power_on_hours {
        parts.push(format!("; {h} h powered on"));
    }
    if let Some(w) = &last.wear {
        parts.push(format!(
            "; {} % life left ({} {})",
            w.life_left_pct, w.attribute, w.name
        ));
    }
    v.push((
        "Drive SMART (ATA)".to_string(),
        parts.join(" ").replace(" ;", ";"),
    ));
    if let (Some(x), Some(y)) = (
        a.and_then(|a| a.data_written.as_ref()),
        b.and_then(|b| b.data_written.as_ref()),
    ) {
        let delta = y.raw as i128 - x.raw as i128;
        let text = match x.unit_bytes {
            Some(u) => {
                let bytes = delta * u as i128;
                format!(
                    "{}{} (attribute 241 went up by {delta} units of {u} bytes: {}); the probe \
                     wrote {}",
                    if bytes < 0 { "-" } else { "" },
                    format_bytes(bytes.unsigned_abs() as f64, units),
                    x.unit_source,
                    format_bytes(probe_bytes as f64, units)
                )
            }
            None => format!(
                "attribute 241 went up by {delta}, in a unit not known for this drive (not \
                 turned into bytes); the probe wrote {}",
                format_bytes(probe_bytes as f64, units)
            ),
        };
        v.push(("Written, by the drive's count".to_string(), text));
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

/// A chart's heading; `read` for the charts of a run that only read (drawn from its reads).
fn chart_title(k: ChartKind, read: bool) -> &'static str {
    match (k, read) {
        (ChartKind::ThroughputTime, true) => "Read throughput over time",
        (ChartKind::ThroughputData, true) => "Read throughput over data read",
        (ChartKind::Latency, true) => "Read latency per interval",
        (ChartKind::ThroughputTimeZoom, true) => "Read throughput over time, zoomed",
        (ChartKind::ThroughputDataZoom, true) => "Read throughput over data read, zoomed",
        _ => write_chart_title(k),
    }
}

fn write_chart_title(k: ChartKind) -> &'static str {
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

fn charts_section(charts: &[ChartKind], read: bool) -> String {
    let mut s = String::new();
    for k in charts {
        let stem = k.file_stem();
        s.push_str(&format!(
            "### {}\n\n![{}]({stem}.png)\n\nVector version: [{stem}.svg]({stem}.svg)\n\n",
            chart_title(*k, read),
            chart_title(*k, read)
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
    s.push_str(&charts_section(charts, run.analysis.read_only));
    s.push_str(&format!(
        "Made with slccache {} ({}).\n",
        crate::VERSION,
        units_note(units)
    ));
    s
}

/// The definition of "after the cache" under the table ([`crate::detect::after_cache_definition`]),
/// with the figures of its steady-state test: the throttling left out, and each round's rate.
/// report.md and a single run's report.html give it.
pub fn after_cache_note(ac: &crate::detect::after_cache::AfterCache, units: UnitSystem) -> String {
    let mut s = crate::detect::after_cache_definition();
    if ac.throttled_s > 0.0 {
        s.push_str(&format!(
            " The {} of thermal throttling after the cliff is heat, not the drive's speed: it is \
             left out of the rate and the rounds, and its phases are named apart.",
            format_seconds(ac.throttled_s)
        ));
    }
    if ac.stalled_s > 0.0 {
        s.push_str(&format!(
            " The {} of stalls after the cliff are no level of the drive: they are left out of \
             the rate and the rounds, and their phases are named apart.",
            format_seconds(ac.stalled_s)
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
            match (st.steady, st.swing) {
                (true, _) => "steady".to_string(),
                // Rounds that each average the swings pass the rule; the samples do not.
                // Named by what made it swing: a warning that the level is unstable, or
                // dips that fill a tenth of its time (which no warning need name).
                (false, Some((lo, hi))) => format!(
                    "within the rule, but not steady: its samples swing from {} to {} (10th to \
                     90th percentile), {}",
                    format_rate(lo, units),
                    format_rate(hi, units),
                    if st.swing_dips {
                        "as a tenth or more of its time lies in dips longer than a \
                         garbage-collection dip"
                    } else if st.swing_short_dips {
                        "as its dips, however short each is, pull its rate down by a tenth \
                         or more"
                    } else {
                        "as the warning on the level after the cache says"
                    }
                ),
                (false, None) => match st.spread {
                    Some((lo, hi)) if st.spread_widened => format!(
                        "not steady; quoted as {} to {} ({})",
                        format_rate(lo, units),
                        format_rate(hi, units),
                        st.range_words()
                    ),
                    Some((lo, hi)) => format!(
                        "not steady; its samples run from {} to {} (10th to 90th percentile), \
                         the range quoted for it",
                        format_rate(lo, units),
                        format_rate(hi, units)
                    ),
                    None => "not steady".to_string(),
                },
            }
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
    // The after-cache figures in the table are of one definition: said once.
    if runs.iter().any(|r| r.analysis.after_cache.is_some()) {
        s.push_str(&crate::detect::after_cache_definition());
        s.push_str("\n\n");
    }
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
    s.push_str(&charts_section(charts, false));
    s.push_str(&format!(
        "Made with slccache {} ({}).\n",
        crate::VERSION,
        units_note(units)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::ata::pages::{samsung_identify, samsung_smart, smart_data};
    use crate::health::ata::{parse_identify, parse_smart};

    /// Each further cliff gives the levels either side of it: the row gave the level after the
    /// first cliff on both sides of the second ("at 128.0 s, 460 GB written (3463 MB/s to 3463
    /// MB/s)" for the FX700's fall to 128 MB/s).
    #[test]
    fn a_further_cliff_gives_the_level_after_it() {
        use crate::timeline::{Sample, Timeline};
        let mut samples = Vec::new();
        let mut total = 0u64;
        for (secs, rate) in [(30, 2e9), (40, 1e9), (40, 3e8)] {
            for _ in 0..secs {
                total += rate as u64;
                let t = samples.len() as f64 + 1.0;
                samples.push(Sample::written(t, 1.0, rate as u64, total, rate));
            }
        }
        let t = Timeline {
            samples,
            ..Timeline::default()
        };
        let a = crate::detect::analyze(&t);
        assert_eq!(a.cliffs.len(), 2, "{:#?}", a.cliffs);
        let run = CompareRun {
            name: "three levels",
            timeline: &t,
            analysis: &a,
        };
        let rows = run_rows(&run, UnitSystem::Decimal);
        let further = &rows
            .iter()
            .find(|r| r.0 == "Further cliffs")
            .unwrap_or_else(|| panic!("{rows:?}"))
            .1;
        assert!(further.ends_with("(1000 MB/s -> 300 MB/s)"), "{further}");
    }

    #[test]
    fn ata_rows_give_the_drive_count_in_bytes_where_the_unit_is_known() {
        let model = "Samsung SSD 870 EVO 1TB";
        let smart = |lbas| parse_smart(&samsung_smart(lbas), None, model).unwrap();
        let st = DriveState {
            ata_identify: Some(parse_identify(&samsung_identify()).unwrap()),
            ata_smart_start: Some(smart(1_000_000)),
            // 2,000,000 LBAs of 512 bytes more: 1.024 GB.
            ata_smart_end: Some(smart(3_000_000)),
            ..DriveState::default()
        };
        let rows = drive_rows(None, Some(&st), 1_000_000_000, UnitSystem::Decimal);
        let get = |k: &str| {
            rows.iter()
                .find(|r| r.0 == k)
                .map(|r| r.1.clone())
                .unwrap_or_else(|| panic!("no row {k}: {rows:?}"))
        };
        assert!(
            get("ATA drive").starts_with("SATA 6.0 Gb/s now"),
            "{rows:?}"
        );
        assert_eq!(
            get("Drive SMART (ATA)"),
            "temperature 29 °C at the start, 29 °C at the end (attribute 190); 1234 h powered \
             on; 99 % life left (177 Wear_Leveling_Count)"
        );
        let w = get("Written, by the drive's count");
        assert!(
            w.starts_with("1.02 GB (attribute 241 went up by 2000000 units of 512 bytes"),
            "{w}"
        );
        assert!(w.ends_with("the probe wrote 1.00 GB"), "{w}");
        // A drive whose unit is not known: the count, not bytes.
        let other =
            |raw| parse_smart(&smart_data(&[(241, 0x32, 100, 100, raw)]), None, "X").unwrap();
        let st = DriveState {
            ata_smart_start: Some(other(10)),
            ata_smart_end: Some(other(42)),
            ata_note: Some("the USB bridge does not pass ATA commands through (SAT)".into()),
            ..DriveState::default()
        };
        let rows = drive_rows(None, Some(&st), 1, UnitSystem::Decimal);
        assert!(rows.iter().any(|r| r.0 == "ATA pass-through"), "{rows:?}");
        let w = &rows
            .iter()
            .find(|r| r.0 == "Written, by the drive's count")
            .unwrap()
            .1;
        assert!(
            w.starts_with("attribute 241 went up by 32, in a unit not known"),
            "{w}"
        );
    }

    #[test]
    fn the_kernel_s_libata_link_where_identify_gives_no_speed() {
        use crate::health::ata::pages::set_word;
        use crate::health::ata::LibataLink;
        // QEMU's AHCI disk: IDENTIFY word 76 holds the NCQ bit alone.
        let mut q = vec![0u8; crate::health::ata::PAGE_LEN];
        set_word(&mut q, 76, 1 << 8);
        let link = LibataLink {
            name: "link1".into(),
            sata_spd: "1.5 Gbps".into(),
            gbps: Some(1.5),
        };
        let st = DriveState {
            ata_identify: Some(parse_identify(&q).unwrap()),
            libata_link: Some(link.clone()),
            ..DriveState::default()
        };
        let host = HostInfo {
            disk: Some("sda".into()),
            libata_link: Some(link),
            ..HostInfo::default()
        };
        let rows = drive_rows(Some(&host), Some(&st), 1, UnitSystem::Decimal);
        let get = |k: &str| rows.iter().find(|r| r.0 == k).unwrap().1.clone();
        assert!(
            get("ATA drive").starts_with(
                "SATA 1.5 Gb/s (the kernel's libata link1; the drive's IDENTIFY gives none); "
            ),
            "{rows:?}"
        );
        assert_eq!(
            get("Device queue"),
            "sda: SATA 1.5 Gb/s (the kernel's libata link)"
        );
    }
}
