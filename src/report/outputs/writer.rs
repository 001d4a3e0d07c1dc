//! The one writer of a run's folder. Every command's outputs are written in the same order by
//! [`write_outputs`]: the data files first (`summary.json`, the CSVs), then, once they are
//! complete, the charts as PNG and SVG, the other images (the review card), the Markdown page
//! and `report.html`. What each kind of folder holds is an [`Outputs`]: a single run, a
//! comparison, a sweep, the burst experiments, a drive's history.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::report::charts::{ChartSpec, CompareRun};
use crate::report::draw;
use crate::report::outputs::file::write_file;
use crate::report::pages::html::{self, HtmlExtra};
use crate::report::ReportOptions;

/// A file of a folder given as its name and its bytes.
pub type NamedFile = (&'static str, Vec<u8>);

/// What one kind of run folder holds, for [`write_outputs`]: each part in the order it is
/// written.
pub trait Outputs {
    /// The data files, written whole before anything is drawn, in this order (the run's
    /// `summary.json` and CSVs). A `summary.json` among them is what `report.html` shows of
    /// the configuration. None by default.
    fn data(&self) -> Result<Vec<NamedFile>> {
        Ok(Vec::new())
    }

    /// The charts, each written as `<stem>.png` and `<stem>.svg`.
    fn charts(&self, opts: &ReportOptions) -> Vec<ChartSpec>;

    /// The images written after the charts (a single run's `card.png`). None by default.
    fn images(&self, _opts: &ReportOptions) -> Result<Vec<NamedFile>> {
        Ok(Vec::new())
    }

    /// The Markdown page (its file name and text), given the charts drawn; `None` for a folder
    /// without one.
    fn markdown(&self, specs: &[ChartSpec], opts: &ReportOptions)
        -> Option<(&'static str, String)>;

    /// What `report.html` shows besides the charts: the runs of its table (none for the
    /// experiments) and the rest. `summary` is the `summary.json` written among the data
    /// files, if any.
    fn page(
        &self,
        specs: &[ChartSpec],
        opts: &ReportOptions,
        summary: Option<serde_json::Value>,
    ) -> (Vec<CompareRun<'_>>, HtmlExtra);
}

/// Writes the folder `out` describes into `dir` (created if missing), each file whole or not at
/// all ([`write_file`]), and returns the files written in order. `data_done` is called once the
/// data files are complete, before the first chart: the command notes the folder for the
/// results store there, so that a chart that fails (a full disk) does not lose the run.
pub fn write_outputs(
    dir: &Path,
    out: &dyn Outputs,
    opts: &ReportOptions,
    data_done: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut files = Vec::new();
    let mut summary = None;
    for (name, bytes) in out.data()? {
        let path = dir.join(name);
        write_file(&path, &bytes)?;
        if name == "summary.json" {
            summary = Some(serde_json::from_slice(&bytes)?);
        }
        files.push(path);
    }
    data_done();
    let specs = out.charts(opts);
    for s in &specs {
        files.extend(write_chart(dir, s)?);
    }
    for (name, bytes) in out.images(opts)? {
        let path = dir.join(name);
        write_file(&path, bytes)?;
        files.push(path);
    }
    if let Some((name, text)) = out.markdown(&specs, opts) {
        let path = dir.join(name);
        write_file(&path, text)?;
        files.push(path);
    }
    let (runs, extra) = out.page(&specs, opts, summary);
    let path = dir.join("report.html");
    write_file(&path, html::report_html(&runs, &specs, opts, &extra)?)?;
    files.push(path);
    Ok(files)
}

/// Writes one chart as `<stem>.png` and `<stem>.svg` into `dir`; returns both paths.
pub fn write_chart(dir: &Path, spec: &ChartSpec) -> Result<Vec<PathBuf>> {
    let stem = spec.kind.file_stem();
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    let bytes = draw::render_png(spec).with_context(|| format!("rendering {}", png.display()))?;
    write_file(&png, bytes)?;
    let text = draw::render_svg(spec).with_context(|| format!("rendering {}", svg.display()))?;
    write_file(&svg, text)?;
    Ok(vec![png, svg])
}

/// The data file `summary.json` of a struct, pretty-printed with a last newline. Written from
/// the struct, so that its keys keep their order (a `serde_json::Value` sorts them).
pub fn summary_file(v: &impl serde::Serialize) -> Result<NamedFile> {
    Ok((
        "summary.json",
        (serde_json::to_string_pretty(v)? + "\n").into_bytes(),
    ))
}
