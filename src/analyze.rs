//! The `analyze` subcommand: read timelines, find the cliffs, print or write the results.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::AnalyzeArgs;
use crate::detect::{Analysis, PhaseKind};
use crate::report::{ReportOptions, Summary, Totals};
use crate::timeline::import::{self, ImportOptions};
use crate::timeline::{CsvWriter, Timeline};
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// Runs `slccache analyze`.
pub fn run(args: AnalyzeArgs) -> Result<()> {
    let opts = import_options(&args)?;
    let report_opts = ReportOptions {
        units: args.units,
        png_size: crate::report::parse_png_size(&args.png_size)?,
    };
    // Read every file first so that a bad file fails before anything is written.
    let mut runs = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let t = import::load_with(f, &opts)?;
        let a = crate::detect::analyze(&t);
        runs.push((f, t, a));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (f, t, a) in &runs {
        let text = if args.json {
            serde_json::to_string(a)?
        } else {
            let mut s = format!("{}: {}", f.display(), human_summary(a, args.units));
            for w in &a.warnings {
                s.push_str(&format!("\n  warning: {w}"));
            }
            s
        };
        match writeln!(out, "{text}") {
            // A closed pipe (`| head`) is not an error worth a message.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            r => r.context("writing to stdout")?,
        }
        if let Some(out) = &args.out {
            let dir = if runs.len() == 1 {
                out.clone()
            } else {
                out.join(&t.meta.label)
            };
            write_outputs(&dir, f, t, a, &args, &report_opts)?;
        }
    }
    Ok(())
}

/// The unit flags as import options; a bad unit is a usage error (exit 2).
fn import_options(args: &AnalyzeArgs) -> Result<ImportOptions> {
    let time_scale = match &args.time_unit {
        None => None,
        Some(u) => Some(
            import::parse_time_unit(u)
                .ok_or_else(|| crate::error::usage(format!("--time-unit '{u}': give s or ms")))?,
        ),
    };
    let rate_scale = match &args.rate_unit {
        None => None,
        Some(u) => Some(import::parse_rate_unit(u).ok_or_else(|| {
            crate::error::usage(format!(
                "--rate-unit '{u}': give MB/s, MiB/s, KiB/s, kB/s, GB/s or GiB/s"
            ))
        })?),
    };
    Ok(ImportOptions {
        time_scale,
        rate_scale,
    })
}

/// Writes `timeline.csv`, `summary.json` and the charts for one file into `dir`.
fn write_outputs(
    dir: &Path,
    file: &Path,
    t: &Timeline,
    a: &Analysis,
    args: &AnalyzeArgs,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let csv = dir.join("timeline.csv");
    CsvWriter::write_all(&csv, t).with_context(|| format!("writing {}", csv.display()))?;
    let summary = Summary {
        slccache_version: crate::VERSION.to_string(),
        config: serde_json::json!({
            "command": "analyze",
            "file": file.display().to_string(),
            "time_unit": args.time_unit,
            "rate_unit": args.rate_unit,
        }),
        run: t.meta.clone(),
        totals: Totals::of(t, 0),
        interrupted: false,
        error: None,
        analysis: a.clone(),
        stop: None,
    };
    let mut written = vec![csv, crate::report::write_summary(dir, &summary)?];
    written.extend(crate::report::write_charts_and_report(dir, t, a, opts)?);
    Ok(written)
}

/// `low-high` in the unit of `bytes` as chosen by [`format_bytes`]: `18.9-19.3`.
fn range_in_unit_of(bytes: f64, low: f64, high: f64, units: UnitSystem) -> String {
    let base: f64 = match units {
        UnitSystem::Decimal => 1000.0,
        UnitSystem::Binary => 1024.0,
    };
    let mut scale = 1.0;
    while bytes.abs() >= base * scale && scale < base.powi(5) {
        scale *= base;
    }
    let digits = |v: f64| {
        if v >= 100.0 {
            0
        } else if v >= 10.0 {
            1
        } else {
            2
        }
    };
    let d = digits(bytes / scale);
    format!("{:.*}-{:.*}", d, low / scale, d, high / scale)
}

/// One line for a person: `SLC cache ~19.1 GB (18.9-19.3), 1365 MB/s -> 591 MB/s at 14.0 s`.
pub fn human_summary(a: &Analysis, units: UnitSystem) -> String {
    match (&a.cache_estimate, a.cliffs.first()) {
        (Some(c), Some(cliff)) => {
            let mut s = format!(
                "SLC cache ~{} ({}), {} -> {} at {}",
                format_bytes(c.bytes as f64, units),
                range_in_unit_of(
                    c.bytes as f64,
                    c.low_bytes as f64,
                    c.high_bytes as f64,
                    units
                ),
                format_rate(cliff.before_bytes_per_sec, units),
                format_rate(cliff.after_bytes_per_sec, units),
                format_seconds(cliff.t_s),
            );
            for (i, more) in a.cliffs.iter().enumerate().skip(1) {
                s.push_str(&format!(
                    "; then {} -> {} at {} (cliff {}, after {})",
                    format_rate(more.before_bytes_per_sec, units),
                    format_rate(more.after_bytes_per_sec, units),
                    format_seconds(more.t_s),
                    i + 1,
                    format_bytes(more.bytes_written as f64, units),
                ));
            }
            s
        }
        _ => {
            let level = a
                .phases
                .iter()
                .find(|p| p.kind == PhaseKind::Steady)
                .or(a.phases.first())
                .map(|p| format_rate(p.mean_bytes_per_sec, units))
                .unwrap_or_default();
            format!(
                "no cliff in {} ({} written at about {}): the SLC cache is at least {}",
                format_seconds(a.duration_s),
                format_bytes(a.bytes_total as f64, units),
                level,
                format_bytes(
                    a.cache_lower_bound_bytes.unwrap_or(a.bytes_total) as f64,
                    units
                ),
            )
        }
    }
}
