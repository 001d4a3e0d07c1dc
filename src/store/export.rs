//! Writing a stored run back as a folder: the stored files as they were, and the charts and
//! reports drawn again with the render options kept, or derived from an imported folder.

use super::*;

/// Files that a probe, simulate or analyze run draws from its timeline and summary; not
/// stored when the render options are.
pub(super) fn is_drawn(name: &str) -> bool {
    let stem_ok = |s: &str| {
        matches!(
            s,
            "throughput-time"
                | "throughput-data"
                | "throughput-time-zoom"
                | "throughput-data-zoom"
                | "latency"
        )
    };
    match name.rsplit_once('.') {
        Some((stem, "png")) if stem == "card" || stem_ok(stem) => true,
        Some((stem, "svg")) => stem_ok(stem),
        _ => name == "report.md" || name == "report.html",
    }
}

/// Creates the export folder `dir` and writes the run's `summary.json` into it; returns its
/// path.
fn start_folder(dir: &Path, summary: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("summary.json");
    std::fs::write(&path, summary).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// Writes a stored run into `dir` (see [`Store::export`]).
pub fn export_run(run: &StoredRun, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut written = vec![start_folder(dir, &run.summary)?];
    for (name, data) in run.files.iter().filter(|(n, _)| is_run_file(n)) {
        let p = stored_file_path(run.row.id, dir, name)?;
        std::fs::write(&p, data).with_context(|| format!("writing {}", p.display()))?;
        written.push(p);
    }
    if let Some(render) = &run.render {
        written.extend(redraw(run, dir, render)?);
    }
    Ok(written)
}

/// Where stored file `name` of run `id` goes in `dir` (its folders made): refused when the
/// name would leave the folder.
pub(super) fn stored_file_path(id: i64, dir: &Path, name: &str) -> Result<PathBuf> {
    let rel = Path::new(name);
    if rel.is_absolute() || rel.components().any(|c| c.as_os_str() == "..") {
        anyhow::bail!("run {id}: stored file name '{name}' leaves the folder");
    }
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    Ok(p)
}

/// Draws the charts and reports of a probe, simulate or analyze run from its stored summary
/// and timeline, as the run itself drew them.
pub(super) fn redraw(run: &StoredRun, dir: &Path, render: &RenderOptions) -> Result<Vec<PathBuf>> {
    let csv = run
        .files
        .get("timeline.csv")
        .with_context(|| format!("run {}: no stored timeline.csv", run.row.id))?;
    std::str::from_utf8(csv).context("timeline.csv is not UTF-8")?;
    redraw_from(run, csv.as_slice(), dir, render)
}

/// [`redraw`], with the run's `timeline.csv` read from `csv` row by row.
fn redraw_from(
    run: &StoredRun,
    csv: impl Read,
    dir: &Path,
    render: &RenderOptions,
) -> Result<Vec<PathBuf>> {
    let summary: crate::report::Summary = serde_json::from_str(&run.summary)
        .with_context(|| format!("run {}: reading its summary", run.row.id))?;
    // Kept as the run kept them (every sample up to `MAX_KEPT`, merged past it, with each
    // kept sample's envelope): the charts are the ones the run drew, and the samples held
    // do not grow with the run.
    let mut kept = crate::timeline::bounded::Kept::for_run();
    crate::timeline::read_slccache_rows(csv, "timeline.csv", |s, _| {
        kept.push(&s);
        Ok(())
    })?;
    let timeline = kept.into_timeline(summary.run.clone());
    let opts = ReportOptions::from(render);
    if run.row.kind == "probe" {
        // As `probe` draws: nothing when nothing was written or read; the host and drive
        // rows in report.md.
        if timeline.bytes_total() == 0 && timeline.read_bytes_total() == 0 {
            return Ok(vec![]);
        }
        let rows = crate::report::pages::markdown::drive_rows(
            summary.host.as_ref(),
            summary.drive_state.as_ref(),
            timeline.bytes_total(),
            opts.units,
        );
        crate::report::write_charts_and_report_as(
            dir,
            &timeline,
            &summary.analysis,
            &opts,
            &rows,
            render.command.clone(),
        )
    } else {
        crate::report::write_charts_and_report_as(
            dir,
            &timeline,
            &summary.analysis,
            &opts,
            &[],
            render.command.clone(),
        )
    }
}

/// The width and height in a PNG's header (`IHDR`), if `png` is a PNG.
pub(super) fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

/// The render options of a folder that was not recorded when it was written (an import):
/// the command line from its report.html, the PNG size from a chart's header, the theme from
/// report.html's body, the units from report.md. They are kept only when drawing the folder
/// again with them gives every chart and report byte for byte as the folder holds them (tried
/// with both units); `None` otherwise, and the folder is stored whole.
pub(super) fn derive_render(folder: &Folder) -> Result<Option<RenderOptions>> {
    let Some(summary) = folder.get("summary.json") else {
        return Ok(None);
    };
    let summary = summary.bytes()?;
    let Ok(summary) = std::str::from_utf8(&summary) else {
        return Ok(None);
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(summary) else {
        return Ok(None);
    };
    let kind = kind_of(&value);
    let Some(csv) = folder.get("timeline.csv") else {
        return Ok(None);
    };
    if !matches!(kind.as_str(), "probe" | "simulate" | "analyze")
        || !folder.keys().any(|n| is_drawn(n))
    {
        return Ok(None);
    }
    let Some(html) = folder.get("report.html").map(|h| h.bytes()).transpose()? else {
        return Ok(None);
    };
    let Some(command) = html_command(&html) else {
        return Ok(None);
    };
    let dark = String::from_utf8_lossy(&html).contains("<body class=\"dark\">");
    let mut png = (1600, 900);
    for (n, f) in folder.iter().filter(|(n, _)| n.ends_with(".png")) {
        if n != "card.png" {
            if let Some(size) = png_size(&f.bytes()?) {
                png = size;
                break;
            }
        }
    }
    let md = folder
        .get("report.md")
        .map(|m| m.bytes().map(|b| String::from_utf8_lossy(&b).into_owned()))
        .transpose()?
        .unwrap_or_default();
    let binary_first = md.contains("iB/s") || md.contains("iB ");
    let units = if binary_first {
        [UnitSystem::Binary, UnitSystem::Decimal]
    } else {
        [UnitSystem::Decimal, UnitSystem::Binary]
    };
    // The charts and reports drawn from the folder's own timeline.csv, read row by row, and
    // compared with the folder's file by file, a piece at a time: a long run's timeline.csv
    // is never held.
    let mut run = StoredRun {
        row: RunRow {
            kind,
            ..RunRow::default()
        },
        summary: summary.to_string(),
        render: None,
        files: BTreeMap::new(),
    };
    for units in units {
        let render = RenderOptions {
            units,
            png_size: png,
            dark,
            command: Some(command.clone()),
        };
        run.render = Some(render.clone());
        let scratch = Scratch::new()?;
        // report.html shows the summary.json of the folder it is drawn in.
        start_folder(&scratch.0, summary)?;
        // A folder that cannot be drawn again (another version's summary) is stored whole.
        let Ok(drawn) = redraw_from(&run, csv.open()?, &scratch.0, &render) else {
            return Ok(None);
        };
        if draws_exactly(&scratch.0, drawn.len(), folder)? {
            return Ok(Some(render));
        }
    }
    Ok(None)
}

/// Whether the `drawn` files in `dir` (beside its `summary.json`) are exactly the files of
/// `folder` that are drawn again ([`is_drawn`]), byte for byte, each read a piece at a time.
fn draws_exactly(dir: &Path, drawn: usize, folder: &Folder) -> Result<bool> {
    use std::io::Read;
    let files: Vec<_> = folder_files(dir)?
        .into_iter()
        .filter(|(rel, _)| rel != "summary.json")
        .collect();
    if files.len() != drawn || folder.keys().filter(|n| is_drawn(n)).count() != drawn {
        return Ok(false);
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (rel, path) in files {
        let Some(want) = folder.get(&rel) else {
            return Ok(false);
        };
        if !is_drawn(&rel) {
            return Ok(false);
        }
        let mut got = std::io::BufReader::new(
            std::fs::File::open(&path).with_context(|| format!("reading {rel}"))?,
        );
        let mut want = want.open()?;
        loop {
            a.clear();
            b.clear();
            (&mut got).take(1 << 16).read_to_end(&mut a)?;
            (&mut want).take(1 << 16).read_to_end(&mut b)?;
            if a != b {
                return Ok(false);
            }
            if a.is_empty() {
                break;
            }
        }
    }
    Ok(true)
}

/// A scratch folder under the system's temporary folder, removed when dropped.
pub(super) struct Scratch(pub(super) PathBuf);

impl Scratch {
    pub(super) fn new() -> Result<Scratch> {
        let d = std::env::temp_dir().join(format!(
            "slccache-import-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The command line a report.html shows, unescaped, with a store's password masked
/// ([`crate::report::pages::html::command_of`]).
pub(super) fn html_command(html: &[u8]) -> Option<String> {
    crate::report::pages::html::command_of(html)
}

pub(super) fn inflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
}

impl Store {
    /// Writes run `id`'s data into `dir`: `summary.json` and the stored files, without drawing
    /// charts (what `compare ID` reads).
    pub fn export_data(&mut self, id: i64, dir: &Path) -> Result<Vec<PathBuf>> {
        let run = self.get_meta(id)?;
        let mut written = vec![start_folder(dir, &run.summary)?];
        written.extend(self.write_stored_files(id, dir)?);
        Ok(written)
    }

    /// Writes run `id`'s folder again into `dir` (created if missing): `summary.json` and the
    /// stored files as they were, then the charts and reports drawn again where they were not
    /// stored. Returns the files written.
    ///
    /// Each stored file is inflated straight into its file, a stored piece at a time, and the
    /// charts are drawn from the `timeline.csv` written, read row by row: what is held is one
    /// stored piece and the timeline kept as the run kept it, never a whole stored file.
    pub fn export(&mut self, id: i64, dir: &Path) -> Result<Vec<PathBuf>> {
        let run = self.get_meta(id)?;
        let mut written = vec![start_folder(dir, &run.summary)?];
        written.extend(self.write_stored_files(id, dir)?);
        if let Some(render) = &run.render {
            let csv = dir.join("timeline.csv");
            if !written.contains(&csv) {
                anyhow::bail!("run {id}: no stored timeline.csv");
            }
            let f =
                std::fs::File::open(&csv).with_context(|| format!("reading {}", csv.display()))?;
            written.extend(redraw_from(&run, std::io::BufReader::new(f), dir, render)?);
        }
        Ok(written)
    }
}
