//! Reports: `summary.json`, charts (PNG and SVG), `report.md`, and console output. The only
//! module that prints.

pub mod charts;
pub mod console;
pub mod draw;
pub mod outputs;
pub mod pages;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::detect::stop::{StopConfig, StopRule};
use crate::detect::Analysis;
use crate::health::HealthLog;
use crate::report::charts::reads;
use crate::report::pages::{card, html, markdown};
pub use crate::results::drive_state::DriveStateRecord;
use crate::target::host::HostInfo;
use crate::timeline::{RunMeta, StopReason, Timeline};
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
    /// Bytes read (runs with reads; 0 for a run that only wrote).
    #[serde(default)]
    pub read_bytes: u64,
    /// Reads completed.
    #[serde(default)]
    pub reads: u64,
    /// Mean read throughput, bytes/s.
    #[serde(default)]
    pub mean_read_bytes_per_sec: f64,
}

impl Totals {
    /// Totals of a timeline: its bytes and duration, and `ios` writes and reads completed (the
    /// reads among them are counted from the timeline's read columns).
    pub fn of(t: &Timeline, ios: u64) -> Totals {
        let duration_s = t.duration_s();
        let per_s = |b: u64| {
            if duration_s > 0.0 {
                b as f64 / duration_s
            } else {
                0.0
            }
        };
        let reads = t.reads_total().min(ios);
        Totals {
            bytes: t.bytes_total(),
            writes: ios - reads,
            duration_s,
            mean_bytes_per_sec: per_s(t.bytes_total()),
            read_bytes: t.read_bytes_total(),
            reads,
            mean_read_bytes_per_sec: per_s(t.read_bytes_total()),
        }
    }
}

/// The drive's state around the run, as the drive reported it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriveState {
    /// Temperature when the run started, °C (SMART on NVMe, the model on emulated drives,
    /// else hwmon).
    #[serde(default)]
    pub temperature_start_c: Option<f64>,
    /// Temperature when the run ended, °C.
    #[serde(default)]
    pub temperature_end_c: Option<f64>,
    /// The SMART / Health log when the run started (NVMe and emulated drives).
    #[serde(default)]
    pub smart_start: Option<HealthLog>,
    /// The SMART / Health log when the run ended.
    #[serde(default)]
    pub smart_end: Option<HealthLog>,
    /// What was done to reach the starting state (`--trim`, `--prefill`, `--idle-before`)
    /// and the fill level at the start; its keys sit directly under `drive_state`.
    #[serde(flatten)]
    pub preparation: DriveStateRecord,
}

/// The content of `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// slccache version.
    pub slccache_version: String,
    /// Where the run came from: its host and the lab's tags (`--host`, `--tag`). Summaries
    /// written before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::Origin>,
    /// The configuration the run used (subcommand-specific).
    pub config: serde_json::Value,
    /// The drive model's truth (models only): `{"cache": ...}`, see
    /// [`crate::results::ModelTruth`]. Files of older versions held it under
    /// `config.model_truth` (probe) or `config.truth` (simulate); [`model_truth_of`] reads
    /// those too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_truth: Option<serde_json::Value>,
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
    /// How the run ended: the early stop, the bytes written after the cliff, the wear
    /// (`probe` and `simulate`).
    #[serde(default)]
    pub stop: Option<StopRecord>,
    /// The machine and the device's queue (kernel, CPU, scheduler, write cache, PCIe link);
    /// probes only.
    #[serde(default)]
    pub host: Option<HostInfo>,
    /// The drive's state around the run (temperature, SMART snapshots).
    #[serde(default)]
    pub drive_state: Option<DriveState>,
}

/// How a run ended, for `summary.json`: why it stopped, the early stop's figures, and how
/// much was written (the wear the test cost).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    /// Why the run stopped (also under `run.stop_reason`).
    pub reason: Option<StopReason>,
    /// Whether the early stop was on (off with `--no-early-stop`).
    pub early_stop: bool,
    /// `--after-cliff`, seconds.
    pub after_cliff_s: f64,
    /// The hold time after the cliff that applied, seconds, once a cliff was seen.
    pub hold_s: Option<f64>,
    /// Run time at which the early stop found the cliff certain, seconds.
    pub cliff_confirmed_at_s: Option<f64>,
    /// Bytes written before the cliff (the cache estimate of the final analysis).
    pub cliff_bytes: Option<u64>,
    /// Bytes written after the cliff.
    pub bytes_after_cliff: Option<u64>,
    /// Bytes written in all: the wear the test cost.
    pub bytes_written: u64,
    /// How many times the cliff seen during the run was withdrawn or moved.
    pub cliff_withdrawn: u32,
}

impl StopRecord {
    /// The record of a run that stopped for `reason` after writing `bytes_written` bytes,
    /// with the early-stop rule `rule` (as it ended) and the final `analysis`.
    pub fn new(
        cfg: StopConfig,
        reason: StopReason,
        rule: Option<&StopRule>,
        analysis: &Analysis,
        bytes_written: u64,
    ) -> StopRecord {
        let cliff = analysis.cache_estimate.as_ref().map(|c| c.bytes);
        StopRecord {
            reason: Some(reason),
            early_stop: cfg.early_stop,
            after_cliff_s: cfg.after_cliff_s,
            hold_s: rule.and_then(|r| r.estimate()).map(|e| e.hold_s),
            cliff_confirmed_at_s: rule.and_then(|r| r.stopped_at_s()),
            cliff_bytes: cliff,
            bytes_after_cliff: cliff.map(|c| bytes_written.saturating_sub(c)),
            bytes_written,
            cliff_withdrawn: rule.map_or(0, |r| r.withdrawn()),
        }
    }
}

/// The output files this process has finished, in order: a failed write names them, so
/// that a full disk says which outputs are complete.
static FINISHED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Writes one output file whole or not at all: the bytes go to a hidden temporary file in the
/// same folder, are flushed to the disk, and the file is renamed into place. On failure (a
/// full disk, a read-only folder) the temporary file is removed, an older file of that name is
/// left as it was, and the error names the outputs of that folder that are complete.
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes.as_ref())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    match result {
        Ok(()) => {
            FINISHED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(path.to_path_buf());
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            let done: Vec<String> = FINISHED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter(|p| p.parent() == Some(dir))
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            let complete = if done.is_empty() {
                "none of this run's outputs there is complete".to_string()
            } else {
                format!("complete there: {}", done.join(", "))
            };
            Err(anyhow::Error::new(e).context(format!(
                "writing {} failed; it was not written ({complete}; the timeline.csv holds every \
                 finished interval)",
                path.display()
            )))
        }
    }
}

/// Writes `summary.json` into `dir` (atomically: a temp file renamed into place).
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<PathBuf> {
    let path = dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary)?;
    write_file(&path, text + "\n")?;
    Ok(path)
}

/// Writes one chart as `<stem>.png` and `<stem>.svg` into `dir`; returns both paths.
pub fn write_chart(dir: &Path, spec: &charts::ChartSpec) -> Result<Vec<PathBuf>> {
    let stem = spec.kind.file_stem();
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    let bytes = draw::render_png(spec).with_context(|| format!("rendering {}", png.display()))?;
    write_file(&png, bytes)?;
    let text = draw::render_svg(spec).with_context(|| format!("rendering {}", svg.display()))?;
    write_file(&svg, text)?;
    Ok(vec![png, svg])
}

/// Writes the charts (PNG and SVG), `card.png`, `report.md` and `report.html` for one run into
/// `dir` (created if missing), from the timeline's values as `timeline.csv` writes them
/// ([`Timeline::as_written`]); returns the files written:
/// `throughput-time.{png,svg}`, `throughput-data.{png,svg}`, the zoomed
/// `throughput-time-zoom.{png,svg}` and `throughput-data-zoom.{png,svg}` when the cliffs sit in
/// a small part of a long run, `latency.{png,svg}` (only when the timeline has latencies;
/// imported logs have none), `card.png`, `report.md` and `report.html`. A `summary.json`
/// already in `dir` adds its configuration, host and drive-state records to report.html.
pub fn write_charts_and_report(
    dir: &Path,
    timeline: &Timeline,
    analysis: &Analysis,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    write_charts_and_report_with(dir, timeline, analysis, opts, &[])
}

/// [`write_charts_and_report`] with extra rows for the table of `report.md` (the host and
/// drive-state lines of a probe, from [`markdown::drive_rows`]).
pub fn write_charts_and_report_with(
    dir: &Path,
    timeline: &Timeline,
    analysis: &Analysis,
    opts: &ReportOptions,
    extra_rows: &[(String, String)],
) -> Result<Vec<PathBuf>> {
    write_charts_and_report_as(dir, timeline, analysis, opts, extra_rows, None)
}

/// [`write_charts_and_report_with`] with the command line report.html shows given
/// (`runs export` gives the run's own; `None` is this process's).
pub fn write_charts_and_report_as(
    dir: &Path,
    timeline: &Timeline,
    analysis: &Analysis,
    opts: &ReportOptions,
    extra_rows: &[(String, String)],
    command: Option<String>,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // Drawn from the values as timeline.csv holds them, so that the same charts come out of
    // the saved file (`runs export` draws them again from the stored timeline).
    let as_written = timeline.as_written();
    let timeline = &as_written;
    // A run that only reads is drawn from its reads; a mixed one gets a read series.
    let primary = timeline.primary();
    let read_only = matches!(primary, std::borrow::Cow::Owned(_));
    let mut specs = vec![
        charts::throughput_time(&primary, analysis, opts),
        charts::throughput_data(&primary, analysis, opts),
    ];
    specs.extend(charts::zoomed(&primary, analysis, opts));
    specs.extend(charts::latency(&primary, analysis, opts));
    for s in &mut specs {
        if read_only {
            reads::relabel_as_reads(s);
        } else {
            reads::add_read_series(s, timeline, opts.units);
        }
    }
    let mut files = Vec::new();
    for s in &specs {
        files.extend(write_chart(dir, s)?);
    }
    let card = dir.join("card.png");
    let bytes = card::render_card(timeline, analysis, opts.units, opts.theme)
        .with_context(|| format!("rendering {}", card.display()))?;
    write_file(&card, bytes)?;
    files.push(card);
    let name = charts::run_name(&timeline.meta);
    let run = charts::CompareRun {
        name: &name,
        timeline,
        analysis,
    };
    let kinds: Vec<charts::ChartKind> = specs.iter().map(|s| s.kind).collect();
    let md = markdown::report_md_with(&run, &kinds, opts.units, extra_rows);
    let path = dir.join("report.md");
    write_file(&path, md)?;
    files.push(path);
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let extra = html::HtmlExtra {
        summary,
        command,
        rows: extra_rows.to_vec(),
        ..Default::default()
    };
    files.push(html::write_report_html(
        dir,
        std::slice::from_ref(&run),
        &specs,
        opts,
        &extra,
    )?);
    Ok(files)
}

/// Writes the comparison of several runs into `dir` (created if missing):
/// `compare-throughput-time.{png,svg}`, `compare-throughput-data.{png,svg}`, `compare.md` and
/// `report.html`; returns the files written.
pub fn write_comparison(
    dir: &Path,
    runs: &[charts::CompareRun<'_>],
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let specs = [
        charts::compare_time(runs, opts),
        charts::compare_data(runs, opts),
    ];
    let mut files = Vec::new();
    for s in &specs {
        files.extend(write_chart(dir, s)?);
    }
    let kinds: Vec<charts::ChartKind> = specs.iter().map(|s| s.kind).collect();
    let path = dir.join("compare.md");
    write_file(&path, markdown::compare_md(runs, &kinds, opts.units))?;
    files.push(path);
    files.push(html::write_report_html(
        dir,
        runs,
        &specs,
        opts,
        &html::HtmlExtra::default(),
    )?);
    Ok(files)
}

/// Prints the files written, one per line, to stdout.
pub fn print_files_written(files: &[PathBuf]) {
    for f in files {
        crate::say!("wrote {}", f.display());
    }
}

/// The model's truth in a `summary.json` of any command and version, in the shape of
/// [`crate::results::ModelTruth`] (`cache`, `recovery`, `sweep`): `model_truth` where it is,
/// else the keys older versions wrote (`config.model_truth` of probe and `config.truth` of
/// simulate, a cache truth; `truth` of recovery and fill-sweep, a recovery truth, and of sweep,
/// a sweep truth). `None` for runs on real drives.
pub fn model_truth_of(summary: &serde_json::Value) -> Option<serde_json::Value> {
    let present = |v: &serde_json::Value| !v.is_null();
    if let Some(t) = summary.get("model_truth").filter(|v| present(v)) {
        return Some(t.clone());
    }
    let cfg = &summary["config"];
    if let Some(t) = cfg
        .get("model_truth")
        .or_else(|| cfg.get("truth"))
        .filter(|v| present(v))
    {
        return Some(serde_json::json!({ "cache": t }));
    }
    let t = summary.get("truth").filter(|v| present(v))?;
    let part = if t.get("iops_limit").is_some() {
        "sweep"
    } else {
        "recovery"
    };
    Some(serde_json::json!({ part: t }))
}

/// The `run` object of a `summary.json` (drive, workload, start, stop reason), or `None` if it
/// has none. Other keys are not needed here, so summaries from other versions still work.
pub fn read_summary_meta(path: &Path) -> Result<Option<RunMeta>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| crate::error::usage(format!("{}: not valid JSON: {e}", path.display())))?;
    match v.get("run") {
        None => Ok(None),
        Some(run) => serde_json::from_value(run.clone()).map(Some).map_err(|e| {
            crate::error::usage(format!(
                "{}: the 'run' object is not a slccache run description: {e}",
                path.display()
            ))
        }),
    }
}

/// Whether two paths name the same folder.
/// Whether `file` is the `timeline.csv` of the run folder `dir` (a run analysed again into
/// its own folder).
pub fn is_own_timeline(file: &Path, dir: &Path) -> bool {
    file.parent().is_some_and(|p| same_dir(p, dir))
        && file.file_name() == Some(std::ffi::OsStr::new("timeline.csv"))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Writes `timeline.csv`, `summary.json` and the charts for one file into `dir`.
///
/// When `dir` already holds the `summary.json` of a probe or a simulation (analysing a run
/// into its own folder), that summary keeps its run metadata and configuration and only its
/// analysis is replaced, with a note on stderr; the run's own `timeline.csv` is left as it is.
/// `config` is what `summary.json` records of the analysis (`command: "analyze"`, the file and
/// the units it was read with), `read` the options `file` was read with (a merged timeline's
/// copy is read again from it). `data_done` is called once `timeline.csv` and `summary.json`
/// are complete, before the first chart (the command notes the folder for the store there, so
/// that a chart that fails does not lose the run). Returns the files written.
#[allow(clippy::too_many_arguments)]
pub fn write_analysis_outputs(
    dir: &Path,
    file: &Path,
    read: &crate::timeline::import::ReadOptions,
    t: &Timeline,
    a: &Analysis,
    config: serde_json::Value,
    opts: &ReportOptions,
    quiet: bool,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let csv = dir.join("timeline.csv");
    let own_folder = is_own_timeline(file, dir);
    if !own_folder {
        if t.meta.resolution.is_some() {
            // The kept timeline was merged: the copy has every row. A fio log or a CSV of
            // time is read again, row by row, into timeline.csv; slccache's own timeline is
            // copied.
            if !crate::timeline::import::write_every_sample(file, read, &csv)? {
                std::fs::copy(file, &csv)
                    .with_context(|| format!("copying {} to {}", file.display(), csv.display()))?;
            }
        } else {
            crate::timeline::CsvWriter::write_all(&csv, t)
                .with_context(|| format!("writing {}", csv.display()))?;
        }
    }
    let summary_path = dir.join("summary.json");
    // The run's own record of the host and the drive (a probe's summary.json: in the folder
    // analysed into, or beside the timeline read), so that report.md keeps its Host, Drive
    // health, drive-count and Thermal rows when a run is analysed again.
    let (host, drive_state) = run_records(&summary_path)
        .or_else(|| {
            file.parent()
                .and_then(|p| run_records(&p.join("summary.json")))
        })
        .unwrap_or_default();
    let rows = markdown::drive_rows(
        host.as_ref(),
        drive_state.as_ref(),
        t.bytes_total(),
        opts.units,
    );
    let existing: Option<serde_json::Value> = std::fs::read_to_string(&summary_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .filter(|v: &serde_json::Value| v["config"]["command"] != "analyze");
    let summary_file = match existing {
        Some(mut v) => {
            if !quiet {
                crate::note!(
                "slccache: note: {} belongs to a {} run: its drive, workload and configuration \
                 are kept; only its analysis is replaced",
                summary_path.display(),
                v["config"]["command"].as_str().unwrap_or("probe")
                );
            }
            v["analysis"] = serde_json::to_value(a)?;
            // How far this analysis merged the samples (none: the key goes).
            match &t.meta.resolution {
                Some(r) => v["run"]["resolution"] = serde_json::to_value(r)?,
                None => {
                    if let Some(run) = v["run"].as_object_mut() {
                        run.remove("resolution");
                    }
                }
            }
            write_file(&summary_path, serde_json::to_string_pretty(&v)? + "\n")?;
            summary_path
        }
        None => {
            let summary = Summary {
                slccache_version: crate::VERSION.to_string(),
                origin: Some(crate::origin::current()),
                config,
                model_truth: None,
                run: t.meta.clone(),
                totals: Totals::of(t, 0),
                interrupted: false,
                error: None,
                analysis: a.clone(),
                stop: None,
                host,
                drive_state,
            };
            write_summary(dir, &summary)?
        }
    };
    let mut written = vec![summary_file];
    if !own_folder {
        written.insert(0, csv);
    }
    data_done();
    written.extend(write_charts_and_report_with(dir, t, a, opts, &rows)?);
    Ok(written)
}

/// The `host` and `drive_state` records of a `summary.json`, if it has either (a probe's); a
/// missing or unreadable file has none.
fn run_records(path: &Path) -> Option<(Option<HostInfo>, Option<DriveState>)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let host = v
        .get("host")
        .and_then(|h| serde_json::from_value(h.clone()).ok());
    let state = v
        .get("drive_state")
        .and_then(|d| serde_json::from_value(d.clone()).ok());
    (host.is_some() || state.is_some()).then_some((host, state))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `summary.json` with the drive's state reads back as written, 128-bit counters included.
    #[test]
    fn summary_with_drive_state_round_trips() {
        let t = Timeline::from_rates(&[(1.0, 1.0, 1e9), (2.0, 1.0, 1e9)], RunMeta::default());
        let end = HealthLog {
            data_units_written: (1u128 << 70) + 3,
            temperature_c: Some(44.85),
            thermal_mgmt_t1_transitions: 2,
            ..HealthLog::default()
        };
        let s = Summary {
            slccache_version: "x".into(),
            origin: None,
            config: serde_json::json!({}),
            model_truth: None,
            run: t.meta.clone(),
            totals: Totals::of(&t, 2),
            interrupted: false,
            error: None,
            analysis: crate::detect::analyze(&t),
            stop: None,
            host: Some(HostInfo {
                kernel: Some("6.8.0".into()),
                cores: Some(8),
                ..HostInfo::default()
            }),
            drive_state: Some(DriveState {
                temperature_start_c: Some(31.0),
                temperature_end_c: Some(44.85),
                smart_start: Some(HealthLog::default()),
                smart_end: Some(end),
                preparation: DriveStateRecord {
                    trimmed: true,
                    prefill_pct: Some(50.0),
                    ..DriveStateRecord::default()
                },
            }),
        };
        let dir = tempfile::tempdir().unwrap();
        let p = write_summary(dir.path(), &s).unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.contains("\"data_units_written\": 1180591620717411303427"),
            "{text}"
        );
        // The preparation's keys sit directly under drive_state, beside the temperatures.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["drive_state"]["trimmed"], true, "{text}");
        assert_eq!(v["drive_state"]["prefill_pct"], 50.0, "{text}");
        assert_eq!(v["drive_state"]["temperature_start_c"], 31.0, "{text}");
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        // Summaries written before these sections existed still read.
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("host");
        o.remove("drive_state");
        let old: Summary = serde_json::from_value(v).unwrap();
        assert_eq!((old.host, old.drive_state), (None, None));
    }
}
