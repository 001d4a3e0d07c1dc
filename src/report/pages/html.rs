//! `report.html`: one self-contained file with the summary table, the charts (inline SVG), the
//! warnings, the host and drive-state records where the run has them, and a collapsed section
//! with the configuration and the command line. A little inline JavaScript adds a tooltip
//! (time, data written and rate under the pointer), a switch between the time and the
//! data-written axis, and in comparisons a legend whose entries hide and show a run. Nothing is
//! loaded from anywhere: a Content-Security-Policy forbids every network access.
//!
//! The charts are the same SVGs as the `.svg` files (already reduced to a min/max envelope per
//! pixel column), and the tooltip data is reduced the same way, so a run of a million samples
//! still makes a file of a few hundred kB.

use std::fmt::Write as _;

use anyhow::{Context, Result};

use crate::report::charts::{ChartKind, ChartSpec, CompareRun, Theme};
use crate::report::draw::{css, ink, plot_rect_of, render_svg};
use crate::report::pages::html_assets::{style, SCRIPT};
use crate::report::ReportOptions;

/// What a report.html shows besides the runs and their charts.
#[derive(Debug, Clone, Default)]
pub struct HtmlExtra {
    /// Page title [default: from the run's name, or "SLC cache comparison"].
    pub title: Option<String>,
    /// The run's `summary.json` (its `config`, `host` and `drive_state` are shown), if any.
    pub summary: Option<serde_json::Value>,
    /// The command line that reproduces the run [default: this process's command line].
    pub command: Option<String>,
    /// Notes shown under the table (e.g. an experiment's findings).
    pub notes: Vec<String>,
    /// Rows added to a single run's summary table, as report.md has them (the host, the
    /// drive's health, its own count of the data written, thermal management).
    pub rows: Vec<(String, String)>,
    /// Tables of an experiment's points, after the notes: (heading, table).
    pub tables: Vec<(String, Table)>,
    /// Notes after the charts, where a chart would be: why it is not drawn.
    pub chart_notes: Vec<String>,
}

/// A table: its column heads and its rows of cells.
pub type Table = (Vec<String>, Vec<Vec<String>>);

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// This process's command line, quoted for a POSIX shell, with the program named `slccache`
/// and the store given to `--db` shown without a password ([`crate::shell::shown_args`]).
pub fn command_line() -> String {
    let mut v = vec!["slccache".to_string()];
    for a in crate::shell::shown_args() {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        v.push(if plain {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        });
    }
    v.join(" ")
}

/// The command line a report.html shows (`<pre class="cmd">`), unescaped. A report.html of an
/// older slccache may hold a store's password: it comes back masked.
pub fn command_of(html: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(html).ok()?;
    let start = text.find("<pre class=\"cmd\">")? + "<pre class=\"cmd\">".len();
    let end = start + text[start..].find("</pre>")?;
    let cmd = text[start..end]
        .replace("&quot;", "\"")
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&");
    Some(mask_command_lines(&cmd))
}

/// A command as report.html keeps it, its store's password masked line by line: the command,
/// then "# analysed again by: ..." lines. Masked whole, the first line's last word was quoted
/// across the newline and the '#' (`... -q` became `'-q\n#' analysed again by: ...`), and the
/// next analysis in place could no longer read the command back.
pub fn mask_command_lines(cmd: &str) -> String {
    const AGAIN: &str = "# analysed again by: ";
    cmd.lines()
        .map(|l| match l.strip_prefix(AGAIN) {
            Some(rest) => format!("{AGAIN}{}", crate::shell::mask_db_in_command(rest)),
            None => crate::shell::mask_db_in_command(l),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Per pixel column, the samples with the smallest and the largest rate, as (time s, bytes
/// written, rate bytes/s), for the tooltip.
fn tooltip_points(r: &CompareRun<'_>, columns: usize) -> Vec<(f64, f64, f64)> {
    // A run that only read is charted from its reads, and its tooltip reads them too.
    let primary = r.timeline.primary();
    let s = &primary.samples;
    let all: Vec<(f64, f64, f64)> = s
        .iter()
        .map(|x| (x.t_s, x.bytes_total as f64, x.bytes_per_sec))
        .collect();
    if all.len() <= 2 * columns {
        return all;
    }
    let pts: Vec<(f64, f64)> = all.iter().map(|p| (p.0, p.2)).collect();
    let (lo, hi) = (pts[0].0, pts[pts.len() - 1].0);
    let env = crate::report::draw::decimate::envelope(&pts, lo, hi, columns);
    // Map each kept point back to its sample (the envelope keeps points unchanged, in order).
    let mut out = Vec::with_capacity(env.len());
    let mut i = 0;
    for p in env {
        while i < all.len() && (all[i].0 != p.0 || all[i].2 != p.1) {
            i += 1;
        }
        if i < all.len() {
            out.push(all[i]);
        }
    }
    out
}

fn num(v: f64) -> String {
    if v.is_finite() {
        let s = format!("{v:.6e}");
        // Compact but exact enough: 7 significant digits.
        s.parse::<f64>()
            .map(|x| format!("{x}"))
            .unwrap_or_else(|_| "0".into())
    } else {
        "0".to_string()
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The x axis of a chart: "time" or "data".
fn x_kind(k: ChartKind) -> &'static str {
    match k {
        ChartKind::ThroughputData | ChartKind::ThroughputDataZoom | ChartKind::CompareData => {
            "data"
        }
        _ => "time",
    }
}

/// Whether a chart has a twin on the other axis (the switch toggles between them): the
/// throughput charts over time and over data written. The latency chart, and the charts of
/// sweeps, experiments and the history, have one x axis and always show.
fn switchable(k: ChartKind) -> bool {
    matches!(
        k,
        ChartKind::ThroughputTime
            | ChartKind::ThroughputData
            | ChartKind::ThroughputTimeZoom
            | ChartKind::ThroughputDataZoom
            | ChartKind::CompareTime
            | ChartKind::CompareData
    )
}

/// Flattens a JSON object into (key path, value) rows for a table.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::Array(a) if a.iter().all(|x| !x.is_object()) => {
            let items: Vec<String> = a
                .iter()
                .map(|x| match x {
                    serde_json::Value::String(s) => s.clone(),
                    o => o.to_string(),
                })
                .collect();
            out.push((prefix.to_string(), items.join(", ")));
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        serde_json::Value::Null => out.push((prefix.to_string(), "-".into())),
        serde_json::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        o => out.push((prefix.to_string(), o.to_string())),
    }
}

/// A JSON key path as a reader reads it: `pcie_link.max_width` gives "pcie link: max width".
fn human_key(k: &str) -> String {
    let t = k.replace('.', ": ").replace('_', " ");
    let t: Vec<&str> = t
        .split(' ')
        .map(|w| match w {
            "cpu" => "CPU",
            "pcie" => "PCIe",
            "numa" => "NUMA",
            w => w,
        })
        .collect();
    let t = t.join(" ");
    let mut c = t.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn record_table(title: &str, v: &serde_json::Value) -> String {
    let mut rows = Vec::new();
    flatten("", v, &mut rows);
    let mut s = format!("<section><h2>{}</h2><table class=\"kv\">", esc(title));
    for (k, x) in rows.into_iter().filter(|(_, x)| x != "-") {
        let _ = write!(
            s,
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(&human_key(&k)),
            esc(&x)
        );
    }
    s.push_str("</table></section>\n");
    s
}

/// [`record_table`] of figures named by their unit, each written with its unit in the run's
/// `u` (the model's truth: `cache_bytes`, `in_cache_bytes_per_sec`, `iops_limit`, ...), where
/// raw numbers such as 558000000.0 and 4257.2021484375 were shown.
fn figures_table(title: &str, v: &serde_json::Value, u: crate::units::UnitSystem) -> String {
    use crate::units::{format_bytes, format_rate, format_seconds};
    let mut rows = Vec::new();
    flatten("", v, &mut rows);
    let mut s = format!("<section><h2>{}</h2><table class=\"kv\">", esc(title));
    for (k, x) in rows.into_iter().filter(|(_, x)| x != "-") {
        let (key, val) = match x.parse::<f64>() {
            Ok(n) if k.ends_with("_bytes_per_sec") => (
                k.trim_end_matches("_bytes_per_sec").to_string(),
                format_rate(n, u),
            ),
            Ok(n) if k.ends_with("_bytes") => {
                (k.trim_end_matches("_bytes").to_string(), format_bytes(n, u))
            }
            Ok(n) if k.ends_with("_s") => (k.trim_end_matches("_s").to_string(), format_seconds(n)),
            Ok(n) if k.ends_with("_pct") => {
                (k.trim_end_matches("_pct").to_string(), format!("{n}%"))
            }
            Ok(n) if k.contains("iops") => (k.clone(), format!("{n:.0} IOPS")),
            Ok(n) if n.fract() != 0.0 => (k.clone(), format!("{n:.3}")),
            _ => (k.clone(), x),
        };
        // A figure's own name where its key names its part only ("Cache: after cache" read
        // as the cache after the cache; "Cache: read" as a cache that read).
        let key = match key.rsplit_once('.') {
            Some((part, last)) => format!("{part}.{}", figure_name(last)),
            None => figure_name(&key).to_string(),
        };
        let _ = write!(
            s,
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(&human_key(&key)),
            esc(&val)
        );
    }
    s.push_str("</table></section>\n");
    s
}

/// The name of a figure of the model's truth whose key, its unit taken off, names only the
/// part it is of: `cache` is its size, `in_cache` and `after_cache` its rates, `read` the share
/// of reads; any other key as it is.
fn figure_name(key: &str) -> &str {
    match key {
        "cache" => "size",
        "in_cache" => "rate in the cache",
        "after_cache" => "rate after the cache",
        "read" => "share of reads",
        k => k,
    }
}

/// The drive's state as a reader wants it: what was done to reach the starting state, then the
/// SMART / Health log at the start and the end side by side, in the log's order, each row
/// with its unit and the change over the run. `None` where the summary has no drive state.
fn drive_state_section(v: &serde_json::Value, u: crate::units::UnitSystem) -> Option<String> {
    use crate::units::format_bytes;
    let st: crate::report::DriveState = serde_json::from_value(v.clone()).ok()?;
    let mut h = String::from("<section><h2>Drive state</h2>");
    let p = &st.preparation;
    let mut prep: Vec<(&str, String)> = Vec::new();
    if let Some(e) = &p.secure_erase {
        prep.push(("Secure erase", e.clone()));
    }
    if let Some(t) = &p.trim {
        prep.push(("Discard (--trim)", t.clone()));
    }
    if let Some(pct) = p.prefill_pct {
        let bytes = p
            .prefill_bytes
            .map(|b| format!(" ({})", format_bytes(b as f64, u)))
            .unwrap_or_default();
        prep.push(("Prefill", format!("{pct:.0}% of the target{bytes}")));
    }
    if let Some(s) = p.idle_before_s {
        prep.push(("Idle before the run", crate::units::format_seconds(s)));
    }
    if let Some(f) = p.fill_at_start_pct {
        prep.push(("Fill level at the start", format!("{f:.0}%")));
    }
    if let Some(b) = p.emulated_cache_at_start_bytes {
        prep.push((
            "Free SLC cache at the start (model)",
            format_bytes(b as f64, u),
        ));
    }
    let temp = |c: Option<f64>| {
        c.map(|c| format!("{c:.0} °C"))
            .unwrap_or_else(|| "-".into())
    };
    if st.temperature_start_c.is_some() || st.temperature_end_c.is_some() {
        prep.push((
            "Temperature",
            format!(
                "{} at the start, {} at the end",
                temp(st.temperature_start_c),
                temp(st.temperature_end_c)
            ),
        ));
    }
    if !prep.is_empty() {
        h.push_str("<table class=\"kv\">");
        for (k, x) in &prep {
            let _ = write!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(x));
        }
        h.push_str("</table>");
    }
    let (a, b) = (st.smart_start.as_ref(), st.smart_end.as_ref());
    if a.is_some() || b.is_some() {
        type Field = (
            &'static str,
            fn(&crate::health::HealthLog) -> f64,
            &'static str,
        );
        let fields: [Field; 19] = [
            ("Critical warning", |l| l.critical_warning as f64, "bits"),
            (
                "Composite temperature",
                |l| l.temperature_c.unwrap_or(f64::NAN),
                "°C",
            ),
            ("Available spare", |l| l.available_spare_pct as f64, "%"),
            (
                "Available spare threshold",
                |l| l.available_spare_threshold_pct as f64,
                "%",
            ),
            ("Percentage used", |l| l.percentage_used as f64, "%"),
            (
                "Data read",
                |l| l.data_units_read as f64 * 512_000.0,
                "bytes",
            ),
            (
                "Data written",
                |l| l.data_units_written as f64 * 512_000.0,
                "bytes",
            ),
            ("Host read commands", |l| l.host_read_commands as f64, ""),
            ("Host write commands", |l| l.host_write_commands as f64, ""),
            (
                "Controller busy time",
                |l| l.controller_busy_min as f64,
                "min",
            ),
            ("Power cycles", |l| l.power_cycles as f64, ""),
            ("Power-on hours", |l| l.power_on_hours as f64, "h"),
            ("Unsafe shutdowns", |l| l.unsafe_shutdowns as f64, ""),
            (
                "Media and data integrity errors",
                |l| l.media_errors as f64,
                "",
            ),
            ("Error log entries", |l| l.error_log_entries as f64, ""),
            (
                "Time above the warning temperature",
                |l| l.warning_temp_min as f64,
                "min",
            ),
            (
                "Time above the critical temperature",
                |l| l.critical_temp_min as f64,
                "min",
            ),
            (
                "Thermal management 1: transitions, time",
                |l| l.thermal_mgmt_t1_transitions as f64 * 1e6 + l.thermal_mgmt_t1_time_s as f64,
                "tm",
            ),
            (
                "Thermal management 2: transitions, time",
                |l| l.thermal_mgmt_t2_transitions as f64 * 1e6 + l.thermal_mgmt_t2_time_s as f64,
                "tm",
            ),
        ];
        let show = |x: f64, unit: &str| -> String {
            if x.is_nan() {
                return "-".into();
            }
            match unit {
                "bytes" => format_bytes(x, u),
                "bits" => format!("{:#04x}", x as u64),
                "tm" => format!("{} transitions, {} s", (x / 1e6).floor(), x % 1e6),
                "" => format!("{x:.0}"),
                "%" | "°C" => format!("{x:.0}{}{unit}", if unit == "%" { "" } else { " " }),
                _ => format!("{x:.0} {unit}"),
            }
        };
        let change = |x: f64, y: f64, unit: &str| -> String {
            if x.is_nan() || y.is_nan() || unit == "bits" {
                return String::new();
            }
            match unit {
                "bytes" => {
                    let d = y - x;
                    let sign = if d < 0.0 { "-" } else { "+" };
                    format!("{sign}{}", format_bytes(d.abs(), u))
                }
                "tm" => format!(
                    "{:+} transitions, {:+} s",
                    (y / 1e6).floor() - (x / 1e6).floor(),
                    y % 1e6 - x % 1e6
                ),
                "" => format!("{:+}", y - x),
                "%" => format!("{:+}%", y - x),
                _ => format!("{:+} {unit}", y - x),
            }
        };
        h.push_str(
            "<h3>SMART / Health log</h3><table class=\"kv\"><tr><th></th><th>at the start</th>\
<th>at the end</th><th>change</th></tr>",
        );
        for (name, get, unit) in fields {
            let x = a.map(get).unwrap_or(f64::NAN);
            let y = b.map(get).unwrap_or(f64::NAN);
            let _ = write!(
                h,
                "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(name),
                esc(&show(x, unit)),
                esc(&show(y, unit)),
                esc(&change(x, y, unit))
            );
        }
        h.push_str("</table>");
    }
    h.push_str(&ata_section(&st, u));
    h.push_str("</section>\n");
    Some(h)
}

/// An ATA drive's part of the drive state: the rows report.md has (link, TRIM, security, the
/// SMART figures, the drive's count of data written), then every SMART attribute at the start
/// and the end side by side, with its raw value's change.
fn ata_section(st: &crate::report::DriveState, u: crate::units::UnitSystem) -> String {
    let rows = super::markdown::ata_rows(st, 0, u);
    let (a, b) = (st.ata_smart_start.as_ref(), st.ata_smart_end.as_ref());
    if rows.is_empty() && a.is_none() && b.is_none() {
        return String::new();
    }
    let mut h = String::from("<h3>ATA drive</h3><table class=\"kv\">");
    for (k, x) in &rows {
        // The probe's own bytes are in the run table; this table keeps the drive's count.
        let x = x.split("; the probe wrote").next().unwrap_or(x);
        let _ = write!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(x));
    }
    h.push_str("</table>");
    let Some(list) = b.or(a) else {
        return h;
    };
    h.push_str(
        "<h3>SMART attributes</h3><table class=\"kv\"><tr><th>ID</th><th>name</th>\
<th>value, worst, threshold</th><th>raw at the start</th><th>raw at the end</th>\
<th>change</th></tr>",
    );
    let raw_of = |s: Option<&crate::health::ata::AtaSmart>, id: u8| {
        s.and_then(|s| s.attributes.iter().find(|x| x.id == id))
            .map(|x| x.raw)
    };
    for at in &list.attributes {
        let (x, y) = (raw_of(a, at.id), raw_of(b, at.id));
        let show = |r: Option<u64>| r.map(|r| r.to_string()).unwrap_or_else(|| "-".into());
        let change = match (x, y) {
            (Some(x), Some(y)) => format!("{:+}", y as i128 - x as i128),
            _ => String::new(),
        };
        let thr = at
            .threshold
            .map(|t| t.to_string())
            .unwrap_or_else(|| "-".into());
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{}</td><td>{}, {}, {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            at.id,
            esc(&at.name),
            at.current,
            at.worst,
            thr,
            show(x),
            show(y),
            change
        );
    }
    h.push_str("</table>");
    h
}

/// The page for `runs` (one run, or a comparison) with `specs` (charts drawn inline).
pub fn report_html(
    runs: &[CompareRun<'_>],
    specs: &[ChartSpec],
    opts: &ReportOptions,
    extra: &HtmlExtra,
) -> Result<String> {
    let u = opts.units;
    let compare = runs.len() > 1;
    let title = extra.title.clone().unwrap_or_else(|| match runs {
        [r] => format!("SLC cache report: {}", r.name),
        _ => "SLC cache comparison".to_string(),
    });
    let mut h = String::with_capacity(1 << 20);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<link rel=\"icon\" href=\"data:,\">\n<title>{}</title>\n<style>{}</style></head>\n<body class=\"{}\">\n",
        esc(&title),
        style(opts.theme),
        match opts.theme {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    );
    let _ = writeln!(h, "<h1>{}</h1>", esc(&title));
    // When and what.
    let mut starts: Vec<_> = runs
        .iter()
        .filter_map(|r| r.timeline.meta.started_at)
        .collect();
    starts.sort();
    let fmt = |d: &chrono::DateTime<chrono::Utc>| d.format("%Y-%m-%d %H:%M UTC").to_string();
    // One run: its start. Several: the span of their starts, once (not one date per run).
    let when = match (starts.first(), starts.last()) {
        (Some(a), Some(_)) if !compare => format!("Run {}  ·  ", fmt(a)),
        (Some(a), Some(b)) if fmt(a) == fmt(b) => {
            format!("{} runs, started {}  ·  ", runs.len(), fmt(a))
        }
        (Some(a), Some(b)) => {
            let end = if a.date_naive() == b.date_naive() {
                b.format("%H:%M UTC").to_string()
            } else {
                fmt(b)
            };
            format!(
                "{} runs, started {} to {end}  ·  ",
                runs.len(),
                a.format("%Y-%m-%d %H:%M")
            )
        }
        _ => String::new(),
    };
    let _ = writeln!(
        h,
        "<p class=\"meta\">{}slccache {}</p>",
        esc(&when),
        crate::VERSION
    );
    // The summary table.
    let mut per_run: Vec<Vec<(String, String)>> = runs
        .iter()
        .map(|r| crate::report::pages::markdown::run_rows(r, u))
        .collect();
    if let [rows] = per_run.as_mut_slice() {
        rows.extend(extra.rows.iter().cloned());
    }
    let mut names: Vec<String> = Vec::new();
    for rows in &per_run {
        for (i, (k, _)) in rows.iter().enumerate() {
            if !names.contains(k) {
                // A row only some runs have goes after the row it follows in its own run.
                let pos = i
                    .checked_sub(1)
                    .and_then(|j| names.iter().position(|n| *n == rows[j].0))
                    .map(|p| p + 1)
                    .unwrap_or(names.len());
                names.insert(pos, k.clone());
            }
        }
    }
    if !runs.is_empty() {
        h.push_str("<section><h2>Summary</h2><div class=\"scroll\"><table class=\"summary\">");
        if compare {
            h.push_str("<tr><th></th>");
            for r in runs {
                let _ = write!(h, "<th>{}</th>", esc(r.name));
            }
            h.push_str("</tr>");
        }
        for n in &names {
            let _ = write!(h, "<tr><th>{}</th>", esc(n));
            for rows in &per_run {
                let v = rows
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.as_str())
                    .unwrap_or("");
                let _ = write!(h, "<td>{}</td>", esc(v));
            }
            h.push_str("</tr>");
        }
        h.push_str("</table></div></section>\n");
    }
    for n in &extra.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(n));
    }
    // What "after the cache" means, beside its figures: a single run's with its rounds (as
    // report.md gives it), a comparison's once.
    let after = match runs {
        [r] => r
            .analysis
            .after_cache
            .as_ref()
            .map(|ac| crate::report::pages::markdown::after_cache_note(ac, u)),
        _ if runs.iter().any(|r| r.analysis.after_cache.is_some()) => {
            Some(crate::detect::after_cache_definition())
        }
        _ => None,
    };
    if let Some(t) = after {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(t.trim()));
    }
    for (heading, (head, rows)) in &extra.tables {
        let _ = write!(
            h,
            "<section><h2>{}</h2><div class=\"scroll\"><table class=\"points\"><tr>",
            esc(heading)
        );
        for c in head {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr>");
        for r in rows {
            h.push_str("<tr>");
            for c in r {
                let _ = write!(h, "<td>{}</td>", esc(c));
            }
            h.push_str("</tr>");
        }
        h.push_str("</table></div></section>\n");
    }
    // Runs analysed at a coarser resolution than their samples (merged to bound memory).
    for r in runs {
        if let Some(res) = &r.timeline.meta.resolution {
            let who = if compare {
                format!("{}: ", r.name)
            } else {
                String::new()
            };
            let _ = writeln!(
                h,
                "<p class=\"resolution\">{}{}.</p>",
                esc(&who),
                esc(&res.sentence())
            );
        }
    }
    // Warnings.
    let warnings: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.analysis.warnings.iter().map(move |w| {
                if compare {
                    format!("{}: {w}", r.name)
                } else {
                    w.to_string()
                }
            })
        })
        .collect();
    if !warnings.is_empty() {
        h.push_str("<section class=\"warnings\"><h2>Warnings</h2><ul>");
        for w in &warnings {
            let _ = write!(h, "<li>{}</li>", esc(w));
        }
        h.push_str("</ul></section>\n");
    }
    // Charts.
    h.push_str("<section><h2>Charts</h2>\n<div class=\"controls\">");
    if specs.iter().any(|s| switchable(s.kind)) {
        // "data read" when every run only read (its charts are of its reads).
        let moved = if !runs.is_empty() && runs.iter().all(|r| r.analysis.read_only) {
            "read"
        } else {
            "written"
        };
        let _ = write!(
            h,
            "<span class=\"switch\" role=\"group\" aria-label=\"x axis\">x axis: \
<button type=\"button\" data-x=\"time\" class=\"on\">time</button>\
<button type=\"button\" data-x=\"data\">data {moved}</button></span>",
        );
    }
    if compare {
        h.push_str("<span class=\"legend\" aria-label=\"runs: click to hide or show\">");
        for (i, r) in runs.iter().enumerate() {
            let st = crate::report::charts::run_style(i);
            // The swatch is the run's line, dash and all: 7 colours alone repeat among 12 runs.
            let dash = match st.dash {
                crate::report::charts::Dash::Solid => String::new(),
                crate::report::charts::Dash::Dashed { on, off } => {
                    format!(" stroke-dasharray=\"{} {}\"", on / 2, off / 2)
                }
            };
            let _ = write!(
                h,
                "<button type=\"button\" class=\"run on\" data-run=\"{i}\" title=\"click to hide or show\">\
<svg class=\"swatch\" width=\"28\" height=\"10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" x2=\"28\" y2=\"5\" \
stroke=\"{}\" stroke-width=\"3\"{dash}/></svg>{}</button>",
                css(ink(opts.theme, st.color)),
                esc(r.name)
            );
        }
        h.push_str("</span>");
    }
    h.push_str("</div>\n");
    let mut chart_meta = Vec::new();
    for (ci, spec) in specs.iter().enumerate() {
        let svg = render_svg(spec).context("drawing a chart for report.html")?;
        // Drop the XML prolog, if any; inline SVG starts at <svg.
        let svg = svg.trim_start_matches(|c| c != '<');
        let xk = x_kind(spec.kind);
        let hidden = switchable(spec.kind) && xk == "data";
        let _ = writeln!(
            h,
            "<figure class=\"chart{}\" data-chart=\"{ci}\" data-x=\"{}\"{}>{}<figcaption>{} \
<a href=\"{stem}.svg\">{stem}.svg</a> · <a href=\"{stem}.png\">{stem}.png</a></figcaption>\
<div class=\"tip\" hidden></div><div class=\"guide\" hidden></div></figure>",
            if switchable(spec.kind) { " sw" } else { "" },
            xk,
            if hidden { " hidden" } else { "" },
            svg,
            esc(&spec.title),
            stem = spec.kind.file_stem()
        );
        let (l, t, r, b) = plot_rect_of(spec);
        let xdiv = x_div(spec, runs);
        let shifts: Vec<String> = runs
            .iter()
            .map(|run| num(x_shift(spec, run, opts)))
            .collect();
        chart_meta.push(format!(
            "{{\"x\":{},\"w\":{},\"h\":{},\"plot\":[{l},{t},{r},{b}],\"xmin\":{},\"xmax\":{},\"xdiv\":{},\"shift\":[{}]}}",
            json_str(xk),
            spec.size.0,
            spec.size.1,
            num(spec.x.min),
            num(spec.x.max),
            num(xdiv),
            shifts.join(",")
        ));
    }
    for n in &extra.chart_notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(n));
    }
    h.push_str("</section>\n");
    // Host and drive state, where the run recorded them.
    if let Some(sum) = &extra.summary {
        if let Some(v) = sum.get("host").filter(|v| !v.is_null()) {
            h.push_str(&record_table("Host", v));
        }
        if let Some(v) = sum.get("drive_state").filter(|v| !v.is_null()) {
            match drive_state_section(v, u) {
                Some(sec) => h.push_str(&sec),
                None => h.push_str(&record_table("Drive state", v)),
            }
        }
        // The model's truth, from its key or the keys older versions wrote.
        if let Some(t) = crate::report::outputs::summary::model_truth_of(sum) {
            h.push_str(&figures_table("Model truth", &t, u));
        }
    }
    // Configuration and command line, collapsed.
    h.push_str("<details><summary>Configuration and command line</summary>\n");
    // A command kept by an older slccache may still hold a store's password: masked here too.
    let cmd = extra
        .command
        .as_deref()
        .map(mask_command_lines)
        .unwrap_or_else(command_line);
    let _ = writeln!(
        h,
        "<h3>Command line</h3><pre class=\"cmd\">{}</pre>",
        esc(&cmd)
    );
    if let Some(cfg) = extra.summary.as_ref().and_then(|s| s.get("config")) {
        let _ = writeln!(
            h,
            "<h3>Configuration</h3><pre>{}</pre>",
            esc(&serde_json::to_string_pretty(cfg).unwrap_or_default())
        );
    }
    for r in runs {
        let m = &r.timeline.meta;
        let _ = writeln!(
            h,
            "<h3>{}</h3><pre>{}</pre>",
            esc(r.name),
            esc(&serde_json::to_string_pretty(m).unwrap_or_default())
        );
    }
    h.push_str("</details>\n");
    let _ = writeln!(
        h,
        "<footer>Made with slccache {} ({}). This page loads nothing from the network.</footer>",
        crate::VERSION,
        match u {
            crate::units::UnitSystem::Decimal => "1 MB = 10^6 bytes, 1 GB = 10^9 bytes",
            crate::units::UnitSystem::Binary => "1 MiB = 2^20 bytes, 1 GiB = 2^30 bytes",
        }
    );
    // Data for the tooltip.
    let cols = ((opts.png_size.0 as f64) * 0.85) as usize;
    let mut data = String::from("{\"runs\":[");
    for (i, r) in runs.iter().enumerate() {
        let pts = tooltip_points(r, cols);
        let join = |f: &dyn Fn(&(f64, f64, f64)) -> f64| {
            pts.iter().map(|p| num(f(p))).collect::<Vec<_>>().join(",")
        };
        let _ = write!(
            data,
            "{}{{\"name\":{},\"moved\":{},\"t\":[{}],\"b\":[{}],\"r\":[{}]}}",
            if i > 0 { "," } else { "" },
            json_str(r.name),
            json_str(crate::detect::Findings::of(r.analysis).moved()),
            join(&|p| p.0),
            join(&|p| p.1),
            join(&|p| p.2)
        );
    }
    let _ = write!(
        data,
        "],\"charts\":[{}],\"mega\":{},\"giga\":{},\"units\":{}}}",
        chart_meta.join(","),
        num(u.mega()),
        num(u.giga()),
        json_str(match u {
            crate::units::UnitSystem::Decimal => "decimal",
            crate::units::UnitSystem::Binary => "binary",
        })
    );
    // `</` cannot occur in the JSON (names are JSON-escaped, and '<' is escaped below).
    let data = data.replace('<', "\\u003c");
    let _ = writeln!(
        h,
        "<script type=\"application/json\" id=\"slc-data\">{data}</script>\n<script>{}</script>\n</body></html>",
        SCRIPT
    );
    Ok(h)
}

/// Chart units per second (time axis) or per byte (data axis): the divisor the builders used.
fn x_div(spec: &ChartSpec, runs: &[CompareRun<'_>]) -> f64 {
    let label = &spec.x.label;
    let unit = label
        .rsplit_once('(')
        .map(|(_, u)| u.trim_end_matches(')'))
        .unwrap_or("");
    let _ = runs;
    match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "MiB" => (1u64 << 20) as f64,
        "GiB" => (1u64 << 30) as f64,
        "TiB" => (1u64 << 40) as f64,
        _ => 1.0,
    }
}

/// The shift of a run's x axis (seconds or bytes) in a comparison aligned on the cliff.
fn x_shift(spec: &ChartSpec, r: &CompareRun<'_>, opts: &ReportOptions) -> f64 {
    if !opts.align_cliff || !matches!(spec.kind, ChartKind::CompareTime | ChartKind::CompareData) {
        return 0.0;
    }
    let Some(c) = r.analysis.cliffs.first() else {
        return 0.0;
    };
    match x_kind(spec.kind) {
        "time" => c.t_s,
        _ => r
            .analysis
            .cache_estimate
            .as_ref()
            .map(|e| e.bytes)
            .unwrap_or(c.bytes_written) as f64,
    }
}

#[cfg(test)]
mod ata_tests {
    use super::*;

    /// A run analysed again in place: report.html's command became `--out '/tmp/x
    /// #' analysed again by: ...`, the quote taking in the newline and the '#', so that
    /// neither line could be pasted. Each line is read as its own.
    #[test]
    fn a_command_analysed_again_reads_back_line_by_line() {
        let html = "<pre class=\"cmd\">slccache --db /tmp/s.db simulate 960evo-500g --out \
                    /tmp/x\n# analysed again by: slccache --db /tmp/s.db analyze \
                    /tmp/x/timeline.csv --out /tmp/x</pre>";
        let cmd = command_of(html.as_bytes()).unwrap();
        assert_eq!(
            cmd,
            "slccache --db /tmp/s.db simulate 960evo-500g --out /tmp/x\n# analysed again by: \
             slccache --db /tmp/s.db analyze /tmp/x/timeline.csv --out /tmp/x"
        );
    }

    /// report.html's model truth gave raw numbers, whatever --units: "in cache bytes per sec
    /// 558000000.0", "iops limit 4257.2021484375". Then it named them by their part alone:
    /// "Cache: cache 13.0 GB", "Cache: after cache 300 MB/s", "Cache: read 0%".
    #[test]
    fn the_model_truth_is_given_in_units() {
        let t = serde_json::json!({"cache": {
            "cache_bytes": 24_000_000_000u64,
            "in_cache_bytes_per_sec": 558000000.0,
            "iops_limit": 4257.2021484375,
            "read_pct": 0,
            "folding_starts_at_bytes": null,
        }});
        let h = figures_table("Model truth", &t, crate::units::UnitSystem::Binary);
        for want in [
            "<th>Cache: size</th><td>22.4 GiB</td>",
            "<th>Cache: rate in the cache</th><td>532 MiB/s</td>",
            "<th>Cache: iops limit</th><td>4257 IOPS</td>",
            "<th>Cache: share of reads</th><td>0%</td>",
        ] {
            assert!(h.contains(want), "{want} in {h}");
        }
        assert!(!h.contains("558000000") && !h.contains("4257.20"), "{h}");
    }
    use crate::health::ata::pages::{samsung_identify, samsung_smart, samsung_thresholds};
    use crate::health::ata::{parse_identify, parse_smart};

    #[test]
    fn the_drive_state_has_the_ata_attributes_side_by_side() {
        let model = "Samsung SSD 870 EVO 1TB";
        let smart =
            |lbas| parse_smart(&samsung_smart(lbas), Some(&samsung_thresholds()), model).unwrap();
        let st = crate::report::DriveState {
            ata_identify: Some(parse_identify(&samsung_identify()).unwrap()),
            ata_smart_start: Some(smart(100)),
            ata_smart_end: Some(smart(2100)),
            ..Default::default()
        };
        let v = serde_json::to_value(&st).unwrap();
        let h = drive_state_section(&v, crate::units::UnitSystem::Decimal).unwrap();
        assert!(h.contains("<h3>ATA drive</h3>"), "{h}");
        assert!(h.contains("<h3>SMART attributes</h3>"), "{h}");
        assert!(
            h.contains(
                "<tr><th>241</th><td>Total_LBAs_Written</td><td>99, 99, -</td><td>100</td>\
                 <td>2100</td><td>+2000</td></tr>"
            ),
            "{h}"
        );
        assert!(h.contains("<td>100, 100, 10</td>"), "{h}");
        assert!(!h.contains("the probe wrote"), "{h}");
    }
}
