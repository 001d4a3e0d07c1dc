//! A sweep's files: `sweep.csv` and `report.md`, and the `summary.json` sections it writes.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::model::DriveModel;
use crate::report::ReportOptions;
use crate::results::sweep::{Sweep, SweepPoint, SweepTruth, SWEEP_COLUMNS};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The `config` part of a sweep's `summary.json`.
#[derive(Serialize)]
pub struct SweepConfig<'a> {
    /// Always "sweep".
    pub command: &'static str,
    /// The target as given.
    pub target: &'a str,
    /// Whether the points ran in virtual time.
    pub simulate: bool,
    /// The engine's name on a real target.
    pub engine: Option<&'a str>,
    /// How long each point wrote, seconds.
    pub point_duration_s: f64,
    /// The cap on each point's bytes.
    pub max_bytes_per_point: Option<u64>,
    /// The named grid, if any.
    pub preset: Option<&'static str>,
    /// The seed.
    pub seed: u64,
    /// The drive model, for emulated and simulated targets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a DriveModel>,
}

/// `summary.json` of a sweep.
#[derive(Serialize)]
pub struct SweepSummary<'a> {
    /// The version that wrote it.
    pub slccache_version: &'static str,
    /// What ran.
    pub config: SweepConfig<'a>,
    /// The points and the saturation point.
    pub sweep: &'a Sweep,
    /// What a perfect sweep of the model finds (models only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truth: Option<&'a SweepTruth>,
    /// Notes for the reader.
    pub notes: &'a [String],
    /// Whether the sweep was interrupted.
    pub interrupted: bool,
}

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
    super::write_file(path, s)
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

/// Microseconds for a table, or a dash.
pub fn us_text(v: Option<f64>) -> String {
    match v {
        Some(x) if x >= 1000.0 => format!("{:.2} ms", x / 1000.0),
        Some(x) => format!("{x:.0} us"),
        None => "-".into(),
    }
}

/// `report.md` of a sweep.
fn report_md(
    title: &str,
    s: &Sweep,
    truth: Option<&SweepTruth>,
    notes: &[String],
    charts: &[(String, String)],
    cdm: bool,
    units: UnitSystem,
) -> String {
    let mut md = format!("# Sweep: {title}\n\n");
    if let Some(sat) = &s.saturation {
        md += &format!(
            "Saturation: QD{} x {} job(s) (QD x jobs = {}) reaches {}, 95% or more of the best \
             point.\n\n",
            sat.qd,
            sat.jobs,
            sat.qd as u64 * sat.jobs as u64,
            iops_text(sat.iops)
        );
    }
    if let Some(t) = truth {
        md += &format!(
            "Model truth: IOPS ceiling {}, {} at QD1{}.\n\n",
            iops_text(t.iops_limit),
            iops_text(t.qd1_iops),
            t.saturation
                .as_ref()
                .map(|s| format!(", saturation at QD{} x {} job(s)", s.qd, s.jobs))
                .unwrap_or_default()
        );
    }
    if cdm {
        md += "## CrystalDiskMark-style table\n\n| Test | Read | Write |\n|---|---:|---:|\n";
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
            md += &format!("| {name} | {} | {} |\n", cell("Read"), cell("Write"));
        }
        md += "\n";
    }
    md += "## Points\n\n| QD | jobs | block | reads | IOPS | throughput | p50 | p99 | CPU | cache ran out |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for p in &s.points {
        md += &format!(
            "| {} | {} | {} | {}% | {} | {} | {} | {} | {} | {} |\n",
            p.qd,
            p.jobs,
            format_bytes(p.bs as f64, UnitSystem::Binary),
            p.rwmix_read,
            iops_text(p.iops),
            format_rate(p.bytes_per_sec, units),
            us_text(p.lat_p50_us),
            us_text(p.lat_p99_us),
            p.cpu_pct
                .map(|c| format!("{c:.0}%"))
                .unwrap_or_else(|| "-".into()),
            if p.crossed_cliff {
                "**yes: measured two things**"
            } else {
                "no"
            }
        );
    }
    md += "\n";
    for n in notes {
        md += &format!("- {n}\n");
    }
    if !notes.is_empty() {
        md += "\n";
    }
    for (file, caption) in charts {
        md += &format!("![{caption}]({file})\n\n");
    }
    md
}

/// Writes a sweep's outputs into `out_dir` (created if missing): `sweep.csv`, `summary.json`,
/// its charts and `report.md`. Returns the files written.
pub fn write_outputs(
    out_dir: &Path,
    summary: &SweepSummary,
    title: &str,
    preset: bool,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let csv = out_dir.join("sweep.csv");
    write_csv(&csv, &summary.sweep.points)?;
    files.push(csv);
    let sj = out_dir.join("summary.json");
    super::write_file(&sj, serde_json::to_string_pretty(summary)? + "\n")?;
    files.push(sj);
    let specs = crate::report::sweep_charts::charts(summary.sweep, title, opts);
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
    let md = report_md(
        title,
        summary.sweep,
        summary.truth,
        summary.notes,
        &captions,
        preset,
        opts.units,
    );
    let rp = out_dir.join("report.md");
    super::write_file(&rp, md)?;
    files.push(rp);
    Ok(files)
}
