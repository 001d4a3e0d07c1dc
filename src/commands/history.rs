//! `slccache history SERIAL`: one drive's recorded runs on charts, against the run date and
//! against the drive's wear.

use anyhow::Result;

use crate::cli::{HistoryArgs, OriginArgs};
use crate::report::experiment_files::write_history_outputs;
use crate::report::experiments::HistoryPoint;
use crate::report::{parse_png_size, ReportOptions};
use crate::store::{recorder, Filter, RunRow, Store};

/// NVMe data units are 1000 sectors of 512 bytes.
const DATA_UNIT_BYTES: f64 = 512_000.0;

/// Runs `slccache history`; `sel` holds the global `--host` and `--tag` (only runs of those
/// hosts, with those tags).
pub fn run(args: HistoryArgs, sel: &OriginArgs) -> Result<()> {
    let opts = ReportOptions {
        units: args.output.units,
        png_size: parse_png_size(&args.output.png_size)?,
        theme: args.output.theme.into(),
        align_cliff: false,
    };
    let loc = recorder::location().ok_or_else(|| {
        crate::error::usage("no results store: give --db PATH or set SLCCACHE_DB (no home folder)")
    })?;
    let mut store = Store::open_existing(&loc)?;
    let base = Filter {
        host: sel.host.clone(),
        tags: crate::origin::parse_tags(&sel.tags)?,
        ..Filter::default()
    };
    let mut rows = store.list(&Filter {
        serial: Some(args.serial.clone()),
        ..base.clone()
    })?;
    if rows.is_empty() {
        rows = store.list(&Filter {
            drive: Some(args.serial.clone()),
            ..base.clone()
        })?;
    }
    if rows.is_empty() {
        return Err(crate::error::usage(format!(
            "no recorded run has serial '{}' or a drive name containing it (see `slccache runs`)",
            args.serial
        )));
    }
    let (first, pts) = points(&rows);
    let drive = rows
        .iter()
        .rev()
        .find_map(|r| r.model.clone().or_else(|| r.label.clone()))
        .unwrap_or_else(|| args.serial.clone());
    let name = match rows.iter().find_map(|r| r.serial.clone()) {
        Some(s) => format!("{drive} ({s})"),
        None => drive,
    };
    // The same folder rules as every subcommand: a given --out that holds files is refused
    // unless --force, a default one is unique.
    let out = crate::report::outdir::claim(
        args.output.out.as_deref(),
        &format!(
            "history-{}",
            crate::shell::folder_word(&args.serial, "drive")
        ),
        args.output.force,
        false,
    )?;
    write_history_outputs(&out, &name, &first, &pts, &opts)?;
    crate::say!(
        "history of {name}: {} runs; outputs: {}",
        pts.len(),
        out.display()
    );
    Ok(())
}

/// The runs as chart points, and the first run's date (day 0).
pub fn points(rows: &[RunRow]) -> (String, Vec<HistoryPoint>) {
    let when = |r: &RunRow| {
        chrono::DateTime::parse_from_rfc3339(&r.date)
            .map(|t| t.timestamp() as f64)
            .unwrap_or(0.0)
    };
    let t0 = rows.iter().map(when).fold(f64::INFINITY, f64::min);
    let first = rows
        .iter()
        .min_by(|a, b| when(a).total_cmp(&when(b)))
        .map(|r| r.date.chars().take(10).collect())
        .unwrap_or_default();
    let pts = rows
        .iter()
        .map(|r| HistoryPoint {
            id: r.id,
            days: (when(r) - t0) / 86_400.0,
            cache: r.cache_bytes.map(|c| {
                (
                    c as f64,
                    r.cache_low_bytes.unwrap_or(c) as f64,
                    r.cache_high_bytes.unwrap_or(c) as f64,
                )
            }),
            after_bytes_per_sec: r.after_cache_bytes_per_sec,
            drive_written_bytes: r.data_units_written.map(|u| u as f64 * DATA_UNIT_BYTES),
            percentage_used: r.percentage_used.map(|p| p as f64),
        })
        .collect();
    (first, pts)
}
