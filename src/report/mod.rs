//! Reports: `summary.json`, charts (PNG and SVG), `report.md`, and console output. The only
//! module that prints.

pub mod progress;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::detect::Analysis;
use crate::timeline::{RunMeta, Timeline};
use crate::units::UnitSystem;

/// How to render charts and reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportOptions {
    /// Decimal (MB, GB) or binary (MiB, GiB) units.
    pub units: UnitSystem,
    /// PNG width and height in pixels.
    pub png_size: (u32, u32),
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            units: UnitSystem::Decimal,
            png_size: (1600, 900),
        }
    }
}

/// Parses `WIDTHxHEIGHT` (e.g. `1600x900`).
pub fn parse_png_size(s: &str) -> Result<(u32, u32)> {
    let bad = || {
        crate::error::usage(format!(
            "--png-size '{s}': give WIDTHxHEIGHT, each 200 to 10000 pixels, e.g. 1600x900"
        ))
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(200..=10000).contains(&w) || !(200..=10000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// Totals of a run, for `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Bytes written.
    pub bytes: u64,
    /// Writes completed.
    pub writes: u64,
    /// Duration in seconds.
    pub duration_s: f64,
    /// Mean throughput, bytes/s.
    pub mean_bytes_per_sec: f64,
}

/// The content of `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// slccache version.
    pub slccache_version: String,
    /// The configuration the run used (subcommand-specific).
    pub config: serde_json::Value,
    /// Device identity, workload, start time, stop reason.
    pub run: RunMeta,
    /// Totals.
    pub totals: Totals,
    /// True when the run was stopped by Ctrl-C or SIGTERM.
    pub interrupted: bool,
    /// The write error that stopped the run, if any (with offset and time).
    pub error: Option<String>,
    /// The analysis of the timeline.
    pub analysis: Analysis,
}

/// Writes `summary.json` into `dir` (atomically: a temp file renamed into place).
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<PathBuf> {
    let path = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    let text = serde_json::to_string_pretty(summary)?;
    std::fs::write(&tmp, text + "\n").with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Writes the charts (PNG and SVG) and `report.md` for one run into `dir`; returns the files
/// written. (Placeholder until the charts land: writes nothing.)
pub fn write_charts_and_report(
    dir: &Path,
    timeline: &Timeline,
    analysis: &Analysis,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    let _ = (dir, timeline, analysis, opts);
    Ok(vec![])
}
