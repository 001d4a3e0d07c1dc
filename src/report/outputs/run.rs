//! The folder of one run (`probe`, `simulate`, `analyze`, `runs export`) and of a comparison
//! (`compare`), written by the one writer ([`write_outputs`]); and the data files `analyze`
//! writes before it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::detect::Analysis;
use crate::device::host::HostInfo;
use crate::report::charts::{self, reads, ChartKind, ChartSpec, CompareRun};
use crate::report::outputs::file::write_file;
use crate::report::outputs::summary::{write_summary, DriveState, Summary, Totals};
use crate::report::outputs::writer::{write_outputs, NamedFile, Outputs};
use crate::report::pages::html::HtmlExtra;
use crate::report::pages::{card, markdown};
use crate::report::ReportOptions;
use crate::timeline::Timeline;

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
    // Drawn from the values as timeline.csv holds them, so that the same charts come out of
    // the saved file (`runs export` draws them again from the stored timeline).
    let timeline = timeline.as_written();
    let run = SingleRun {
        dir,
        name: charts::run_title(&timeline.meta),
        timeline: &timeline,
        analysis,
        extra_rows,
        command,
    };
    write_outputs(dir, &run, opts, &mut || {})
}

/// The charts, card and pages of one run ([`write_charts_and_report_as`]).
struct SingleRun<'a> {
    /// The run's folder (its `summary.json`, if there, is shown in report.html).
    dir: &'a Path,
    /// The run's name in its table.
    name: String,
    /// The timeline, as `timeline.csv` holds it.
    timeline: &'a Timeline,
    analysis: &'a Analysis,
    /// Rows added to the tables of report.md and report.html.
    extra_rows: &'a [(String, String)],
    /// The command line report.html shows (`None`: this process's).
    command: Option<String>,
}

impl SingleRun<'_> {
    fn run(&self) -> CompareRun<'_> {
        CompareRun {
            name: &self.name,
            timeline: self.timeline,
            analysis: self.analysis,
        }
    }
}

impl Outputs for SingleRun<'_> {
    fn charts(&self, opts: &ReportOptions) -> Vec<ChartSpec> {
        let (timeline, analysis) = (self.timeline, self.analysis);
        // A run that only reads is drawn from its reads; a mixed one gets a read series.
        let primary = timeline.primary();
        let read_only = matches!(primary, std::borrow::Cow::Owned(_));
        let mut specs = vec![
            charts::throughput_time(&primary, analysis, opts),
            charts::throughput_data(&primary, analysis, opts),
        ];
        specs.extend(charts::zoomed(&primary, analysis, opts));
        specs.extend(charts::latency(&primary, analysis, opts));
        // A run that only read says so on its charts by itself (its findings are of reads).
        if !read_only {
            for s in &mut specs {
                reads::add_read_series(s, timeline, opts.units);
            }
        }
        specs
    }

    fn images(&self, opts: &ReportOptions) -> Result<Vec<NamedFile>> {
        let card = self.dir.join("card.png");
        let bytes = card::render_card(self.timeline, self.analysis, opts.units, opts.theme)
            .with_context(|| format!("rendering {}", card.display()))?;
        Ok(vec![("card.png", bytes)])
    }

    fn markdown(
        &self,
        specs: &[ChartSpec],
        opts: &ReportOptions,
    ) -> Option<(&'static str, String)> {
        let kinds: Vec<ChartKind> = specs.iter().map(|s| s.kind).collect();
        let md = markdown::report_md_with(&self.run(), &kinds, opts.units, self.extra_rows);
        Some(("report.md", md))
    }

    fn page(
        &self,
        _specs: &[ChartSpec],
        _opts: &ReportOptions,
        _summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra) {
        let summary = std::fs::read_to_string(self.dir.join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let extra = HtmlExtra {
            summary,
            command: self.command.clone(),
            rows: self.extra_rows.to_vec(),
            ..Default::default()
        };
        (vec![self.run()], extra)
    }
}

/// Writes the comparison of several runs into `dir` (created if missing):
/// `compare-throughput-time.{png,svg}`, `compare-throughput-data.{png,svg}`, `compare.md` and
/// `report.html`; returns the files written.
pub fn write_comparison(
    dir: &Path,
    runs: &[CompareRun<'_>],
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>> {
    write_outputs(dir, &Comparison(runs), opts, &mut || {})
}

/// The charts and pages of a comparison ([`write_comparison`]).
struct Comparison<'r, 'a>(&'r [CompareRun<'a>]);

impl Outputs for Comparison<'_, '_> {
    fn charts(&self, opts: &ReportOptions) -> Vec<ChartSpec> {
        vec![
            charts::compare_time(self.0, opts),
            charts::compare_data(self.0, opts),
        ]
    }

    fn markdown(
        &self,
        specs: &[ChartSpec],
        opts: &ReportOptions,
    ) -> Option<(&'static str, String)> {
        let kinds: Vec<ChartKind> = specs.iter().map(|s| s.kind).collect();
        Some((
            "compare.md",
            markdown::compare_md(self.0, &kinds, opts.units),
        ))
    }

    fn page(
        &self,
        _specs: &[ChartSpec],
        _opts: &ReportOptions,
        _summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra) {
        (self.0.to_vec(), HtmlExtra::default())
    }
}

/// Whether `file` is the `timeline.csv` of the run folder `dir` (a run analysed again into
/// its own folder).
pub fn is_own_timeline(file: &Path, dir: &Path) -> bool {
    file.parent().is_some_and(|p| same_dir(p, dir))
        && file.file_name() == Some(std::ffi::OsStr::new("timeline.csv"))
}

/// Whether two paths name the same folder.
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
    // The run's own record of the host and the drive (a probe's summary.json beside the
    // timeline read, which is the folder analysed into where it is analysed again in place),
    // so that report.md keeps its Host, Drive health, drive-count and Thermal rows. Never the
    // summary of another run in a folder written over with --force: an FX700's was kept
    // beside a 960 EVO's analysis, its settings, totals and command with it.
    let (host, drive_state) = file
        .parent()
        .and_then(|p| run_records(&p.join("summary.json")))
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
        .filter(|v: &serde_json::Value| own_folder && v["config"]["command"] != "analyze");
    // The command that reproduces a run analysed again in its own folder is the one that made
    // it, not this analyze: report.html keeps it, and says what analysed it again.
    let command = existing.as_ref().and_then(|_| {
        let earlier = std::fs::read(dir.join("report.html")).ok()?;
        let first = crate::report::pages::html::command_of(&earlier)?;
        let first = first
            .split("\n# analysed again by: ")
            .next()
            .unwrap_or(&first)
            .to_string();
        Some(format!(
            "{first}\n# analysed again by: {}",
            crate::report::pages::html::command_line()
        ))
    });
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
                findings: None,
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
    written.extend(write_charts_and_report_as(dir, t, a, opts, &rows, command)?);
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
