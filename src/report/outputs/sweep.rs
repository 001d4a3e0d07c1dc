//! A sweep's files: `sweep.csv`, `report.md`, `report.html`, and the `summary.json` sections
//! it writes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::report::charts::sweep::workload_text;
use crate::report::ReportOptions;
use crate::results::sweep::{
    Saturation, Sweep, SweepPoint, SweepSummary, SweepTruth, SWEEP_COLUMNS,
};
use crate::units::{count_text, format_bytes, format_rate, UnitSystem};

/// Writes `sweep.csv`.
pub fn write_csv(path: &Path, points: &[SweepPoint]) -> Result<()> {
    let opt = |v: Option<f64>, prec: usize| v.map(|x| format!("{x:.prec$}")).unwrap_or_default();
    let mut s = SWEEP_COLUMNS.join(",");
    s.push('\n');
    for p in points {
        s += &format!(
            "{},{},{},{},{:.1},{:.1},{},{},{},{}\n",
            p.qd,
            p.jobs,
            p.bs,
            p.rwmix_read,
            p.iops,
            p.bytes_per_sec,
            opt(p.lat_p50_us, 3),
            opt(p.lat_p99_us, 3),
            opt(p.cpu_pct, 1),
            p.crossed_cliff
        );
    }
    crate::report::write_file(path, s)
}

/// IOPS for a table: `35.7k`, `812`.
pub fn iops_text(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M IOPS", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k IOPS", v / 1e3)
    } else {
        format!("{v:.0} IOPS")
    }
}

/// Microseconds for a table (`83 µs`, `1.20 ms`), or a dash.
pub fn us_text(v: Option<f64>) -> String {
    match v {
        Some(x) if x >= 1000.0 => format!("{:.2} ms", x / 1000.0),
        Some(x) => format!("{x:.0} µs"),
        None => "-".into(),
    }
}

/// Whether the points hold more than one workload (pattern, block size, read share).
fn several_workloads(points: &[SweepPoint]) -> bool {
    points.first().is_some_and(|a| {
        points.iter().any(|p| {
            (p.pattern.as_str(), p.bs, p.rwmix_read) != (a.pattern.as_str(), a.bs, a.rwmix_read)
        })
    })
}

/// The saturation of one workload as a sentence ("QD16 x 1 job(s) (QD x jobs = 16) reaches
/// 318.2k IOPS, 95% or more of the workload's best").
fn saturation_text(sat: &Saturation) -> String {
    format!(
        "QD{} x {} (QD x jobs = {}) reaches {}, 95% or more of the best of {}",
        sat.qd,
        count_text(sat.jobs as usize, "job", "jobs"),
        sat.qd as u64 * sat.jobs as u64,
        iops_text(sat.iops),
        workload_text(&sat.pattern, sat.bs, sat.rwmix_read)
    )
}

/// The line printed when a sweep ends.
pub fn done_line(
    target: &str,
    s: &Sweep,
    planned: usize,
    truth: Option<&SweepTruth>,
    interrupted: bool,
) -> String {
    let mut line = if interrupted {
        format!(
            "{target}: interrupted, {} of {planned} points finished",
            s.points.len()
        )
    } else {
        format!("{target}: {} points", s.points.len())
    };
    let several = several_workloads(&s.points);
    if let Some(b) = s.points.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) {
        line += &format!(", best {} at QD{} x{}", iops_text(b.iops), b.qd, b.jobs);
        if several {
            line += &format!(" ({})", workload_text(&b.pattern, b.bs, b.rwmix_read));
        }
    }
    if s.saturations.is_empty() {
        line += ", no saturation within the grid";
    }
    for sat in &s.saturations {
        line += &format!(
            ", {}saturation at QD{} x {} ({})",
            if several {
                format!("{}: ", workload_text(&sat.pattern, sat.bs, sat.rwmix_read))
            } else {
                String::new()
            },
            sat.qd,
            count_text(sat.jobs as usize, "job", "jobs"),
            iops_text(sat.iops)
        );
    }
    if let Some(t) = truth {
        line += &format!("; model ceiling {}", iops_text(t.iops_limit));
        if several {
            if let Some(b) = s.points.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) {
                line += &format!(" ({})", workload_text(&b.pattern, b.bs, b.rwmix_read));
            }
        }
    }
    line
}

pub use crate::report::pages::html::Table;

/// The CrystalDiskMark table: one row per test, reads and writes side by side.
pub fn cdm_table(s: &Sweep, units: UnitSystem) -> Table {
    let head = ["Test", "Read", "Write"].map(String::from).to_vec();
    let mut rows = Vec::new();
    for name in ["Seq Q32T1", "4K Q8T8", "4K Q1T1"] {
        let cell = |dir: &str| {
            s.points
                .iter()
                .find(|p| p.label.as_deref() == Some(&format!("{name} {dir}")))
                .map(|p| {
                    format!(
                        "{} ({})",
                        format_rate(p.bytes_per_sec, units),
                        iops_text(p.iops)
                    )
                })
                .unwrap_or_else(|| "-".into())
        };
        rows.push(vec![name.to_string(), cell("Read"), cell("Write")]);
    }
    (head, rows)
}

/// The table of the finished points.
pub fn points_table(s: &Sweep, units: UnitSystem) -> Table {
    let head = [
        "QD",
        "jobs",
        "block",
        "reads",
        "IOPS",
        "throughput",
        "p50",
        "p99",
        "CPU",
        "cache ran out",
    ]
    .map(String::from)
    .to_vec();
    let rows = s
        .points
        .iter()
        .map(|p| {
            vec![
                p.qd.to_string(),
                p.jobs.to_string(),
                format_bytes(p.bs as f64, UnitSystem::Binary),
                format!("{}%", p.rwmix_read),
                iops_text(p.iops),
                format_rate(p.bytes_per_sec, units),
                us_text(p.lat_p50_us),
                us_text(p.lat_p99_us),
                p.cpu_pct
                    .map(|c| format!("{c:.0}%"))
                    .unwrap_or_else(|| "-".into()),
                if p.crossed_cliff {
                    "yes: measured two things".into()
                } else {
                    "no".into()
                },
            ]
        })
        .collect();
    (head, rows)
}

/// A markdown table; the columns in `left` are aligned left, the others right.
fn md_table((head, rows): &Table, left: &[usize]) -> String {
    let mut md = format!("| {} |\n|", head.join(" | "));
    for i in 0..head.len() {
        md += if left.contains(&i) { "---|" } else { "---:|" };
    }
    md += "\n";
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .map(|c| {
                if c.starts_with("yes: ") {
                    format!("**{c}**")
                } else {
                    c.clone()
                }
            })
            .collect();
        md += &format!("| {} |\n", cells.join(" | "));
    }
    md
}

/// The findings of a sweep as sentences: the saturation of each workload (or that none
/// saturated within the grid) and the model's truth.
pub fn findings(s: &Sweep, truth: Option<&SweepTruth>) -> Vec<String> {
    let mut v = Vec::new();
    for sat in &s.saturations {
        v.push(format!("Saturation: {}.", saturation_text(sat)));
    }
    if s.saturations.is_empty() && !s.points.is_empty() {
        v.push(
            "Saturation: not reached within the grid (no workload had a point reaching 95% of \
             its best IOPS with a larger QD x jobs measured after it)."
                .into(),
        );
    }
    if let Some(t) = truth {
        let best = s.points.iter().max_by(|a, b| a.iops.total_cmp(&b.iops));
        v.push(format!(
            "Model truth{}: IOPS ceiling {}, {} at QD1{}.",
            best.map(|b| format!(" for {}", workload_text(&b.pattern, b.bs, b.rwmix_read)))
                .unwrap_or_default(),
            iops_text(t.iops_limit),
            iops_text(t.qd1_iops),
            t.saturation
                .as_ref()
                .map(|s| format!(
                    ", saturation at QD{} x {}",
                    s.qd,
                    count_text(s.jobs as usize, "job", "jobs")
                ))
                .unwrap_or_else(|| ", no saturation within the grid".into())
        ));
    }
    v
}

/// `report.md` of a sweep.
fn report_md(
    title: &str,
    sum: &SweepSummary,
    charts: &[(String, String)],
    cdm: bool,
    units: UnitSystem,
) -> String {
    let s = sum.sweep;
    let mut md = format!("# Sweep: {title}\n\n");
    if sum.interrupted {
        md += "**Interrupted**: only the finished points are below.\n\n";
    }
    for f in findings(s, sum.truth) {
        md += &format!("{f}\n\n");
    }
    if cdm {
        md += "## CrystalDiskMark-style table\n\n";
        md += &md_table(&cdm_table(s, units), &[0]);
        md += "\n";
    }
    md += "## Points\n\n";
    md += &md_table(&points_table(s, units), &[9]);
    md += "\n";
    for n in sum.notes {
        md += &format!("- {n}\n");
    }
    if !sum.notes.is_empty() {
        md += "\n";
    }
    for (file, caption) in charts {
        md += &format!("![{caption}]({file})\n\n");
    }
    md
}

/// Writes a sweep's outputs into `out_dir` (created if missing): `sweep.csv`, `summary.json`,
/// its charts, `report.md` and `report.html`. `data_done` is called once `sweep.csv` and
/// `summary.json` are complete, before the first chart (the command notes the folder for the
/// store there). Returns the files written.
pub fn write_outputs(
    out_dir: &Path,
    summary: &SweepSummary,
    title: &str,
    preset: bool,
    opts: &ReportOptions,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let csv = out_dir.join("sweep.csv");
    write_csv(&csv, &summary.sweep.points)?;
    files.push(csv);
    let sj = out_dir.join("summary.json");
    // Written from the struct, so that its keys keep their order (a Value sorts them).
    let text = serde_json::to_string_pretty(summary)? + "\n";
    crate::report::write_file(&sj, &text)?;
    let json: serde_json::Value = serde_json::from_str(&text)?;
    files.push(sj);
    data_done();
    let specs = crate::report::charts::sweep::charts(summary, title, opts);
    let mut captions = Vec::new();
    for s in &specs {
        let written = crate::report::write_chart(out_dir, s)?;
        if let Some(png) = written
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "png"))
        {
            captions.push((
                png.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.title.clone(),
            ));
        }
        files.extend(written);
    }
    let md = report_md(title, summary, &captions, preset, opts.units);
    let rp = out_dir.join("report.md");
    crate::report::write_file(&rp, md)?;
    files.push(rp);
    let mut tables = Vec::new();
    if preset {
        tables.push((
            "CrystalDiskMark-style table".to_string(),
            cdm_table(summary.sweep, opts.units),
        ));
    }
    tables.push((
        "Points".to_string(),
        points_table(summary.sweep, opts.units),
    ));
    let mut notes = Vec::new();
    if summary.interrupted {
        notes.push("Interrupted: only the finished points are below.".to_string());
    }
    notes.extend(findings(summary.sweep, summary.truth));
    notes.extend(summary.notes.iter().cloned());
    let extra = crate::report::pages::html::HtmlExtra {
        title: Some(format!("Sweep: {title}")),
        summary: Some(json),
        notes,
        tables,
        ..Default::default()
    };
    files.push(crate::report::pages::html::write_report_html(
        out_dir,
        &[],
        &specs,
        opts,
        &extra,
    )?);
    Ok(files)
}
