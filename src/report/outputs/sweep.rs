//! A sweep's files: `sweep.csv`, `report.md`, `report.html`, and the `summary.json` sections
//! it writes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::report::charts::sweep::workload_text;
use crate::report::charts::{ChartSpec, CompareRun};
use crate::report::outputs::writer::{
    summary_file, write_outputs as write_outputs_of, NamedFile, Outputs,
};
use crate::report::pages::html::HtmlExtra;
use crate::report::ReportOptions;
use crate::results::sweep::{
    Saturation, Sweep, SweepPoint, SweepSummary, SweepTruth, SWEEP_COLUMNS,
};
use crate::units::{count_text, format_bytes, format_rate, UnitSystem};

/// The text of `sweep.csv`.
pub fn csv_text(points: &[SweepPoint]) -> String {
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
    s
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
        format!(
            "{target}: {}",
            crate::units::count_text(s.points.len(), "point", "points")
        )
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
/// its charts, `report.md` and `report.html`, with the one writer
/// ([`crate::report::outputs::writer::write_outputs`]). `data_done` is called once `sweep.csv`
/// and `summary.json` are complete, before the first chart (the command notes the folder for
/// the store there). Returns the files written.
pub fn write_outputs(
    out_dir: &Path,
    summary: &SweepSummary,
    title: &str,
    preset: bool,
    opts: &ReportOptions,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    let outputs = SweepOutputs {
        summary,
        title,
        preset,
    };
    write_outputs_of(out_dir, &outputs, opts, data_done)
}

/// A sweep's folder ([`write_outputs`]): its summary, the title of its charts and pages, and
/// whether it ran a named grid (which adds the CrystalDiskMark-style table).
struct SweepOutputs<'a> {
    summary: &'a SweepSummary<'a>,
    title: &'a str,
    preset: bool,
}

impl Outputs for SweepOutputs<'_> {
    fn data(&self) -> Result<Vec<NamedFile>> {
        Ok(vec![
            (
                "sweep.csv",
                csv_text(&self.summary.sweep.points).into_bytes(),
            ),
            summary_file(self.summary)?,
        ])
    }

    fn charts(&self, opts: &ReportOptions) -> Vec<ChartSpec> {
        crate::report::charts::sweep::charts(self.summary, self.title, opts)
    }

    fn markdown(
        &self,
        specs: &[ChartSpec],
        opts: &ReportOptions,
    ) -> Option<(&'static str, String)> {
        let captions: Vec<(String, String)> = specs
            .iter()
            .map(|s| (format!("{}.png", s.kind.file_stem()), s.title.clone()))
            .collect();
        let md = report_md(self.title, self.summary, &captions, self.preset, opts.units);
        Some(("report.md", md))
    }

    fn page(
        &self,
        _specs: &[ChartSpec],
        opts: &ReportOptions,
        summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra) {
        let sum = self.summary;
        let mut tables = Vec::new();
        if self.preset {
            tables.push((
                "CrystalDiskMark-style table".to_string(),
                cdm_table(sum.sweep, opts.units),
            ));
        }
        tables.push(("Points".to_string(), points_table(sum.sweep, opts.units)));
        let mut notes = Vec::new();
        if sum.interrupted {
            notes.push("Interrupted: only the finished points are below.".to_string());
        }
        notes.extend(findings(sum.sweep, sum.truth));
        notes.extend(sum.notes.iter().cloned());
        let extra = HtmlExtra {
            title: Some(format!("Sweep: {}", self.title)),
            summary,
            notes,
            tables,
            ..Default::default()
        };
        (Vec::new(), extra)
    }
}
