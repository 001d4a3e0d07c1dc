//! Reports: `summary.json`, charts (PNG and SVG), `report.md`, and console output. The only
//! module that prints.

pub mod charts;
pub mod console;
pub mod draw;
pub mod outputs;
pub mod pages;

use anyhow::Result;

pub use crate::report::outputs::file::{print_files_written, write_file};
pub use crate::report::outputs::run::{
    is_own_timeline, write_analysis_outputs, write_charts_and_report, write_charts_and_report_as,
    write_charts_and_report_with, write_comparison,
};
pub use crate::report::outputs::summary::{
    link_of, model_truth_of, read_summary_cache_truth, read_summary_link, read_summary_meta,
    read_timeline_meta, summary_of_timeline, write_summary, DriveState, DriveStateRecord,
    StopRecord, Summary, Totals,
};
pub use crate::report::outputs::writer::write_chart;
use crate::units::UnitSystem;

/// How to render charts and reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportOptions {
    /// Decimal (MB, GB) or binary (MiB, GiB) units.
    pub units: UnitSystem,
    /// PNG width and height in pixels.
    pub png_size: (u32, u32),
    /// Light or dark charts and report.html.
    pub theme: charts::Theme,
    /// Comparisons: shift every run so that its first cliff is at 0 (`--align cliff`).
    pub align_cliff: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            units: UnitSystem::Decimal,
            png_size: (1600, 900),
            theme: charts::Theme::Light,
            align_cliff: false,
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
