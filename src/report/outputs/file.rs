//! Writing one output file whole or not at all, and naming the complete ones when a write
//! fails.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The output files this process has finished, in order: a failed write names them, so
/// that a full disk says which outputs are complete.
static FINISHED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

thread_local! {
    /// Whether this thread writes a stored run's folder again (an export), not a run's
    /// outputs: a failed write then says nothing of a run's timeline.
    static EXPORTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While the value lives, a failed [`write_file`] on this thread is an export's: its error
/// names the file only, for the exporter to say what became of the folder.
pub struct Exporting(bool);

/// Marks this thread's writes as an export's until the value returned is dropped.
pub fn exporting() -> Exporting {
    Exporting(EXPORTING.with(|e| e.replace(true)))
}

impl Drop for Exporting {
    fn drop(&mut self) {
        EXPORTING.with(|e| e.set(self.0));
    }
}

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
            if EXPORTING.with(|e| e.get()) {
                return Err(anyhow::Error::new(e).context(format!(
                    "writing {} failed; it was not written",
                    path.display()
                )));
            }
            let done: Vec<String> = FINISHED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter(|p| p.parent() == Some(dir))
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            // The data files (a timeline, bursts, a sweep's points) are written as the run
            // goes, not here: what is said of them is `kept_data`'s, so "none of this run's
            // outputs" (beside "the timeline.csv holds every finished interval") is not said.
            let complete = if done.is_empty() {
                "no report, chart or summary there is complete".to_string()
            } else {
                format!("complete there: {}", done.join(", "))
            };
            Err(anyhow::Error::new(e).context(format!(
                "writing {} failed; it was not written ({complete}{})",
                path.display(),
                kept_data(dir)
            )))
        }
    }
}

/// What of a run's data its folder `dir` keeps, as the failed write's message says it: the
/// `timeline.csv` of a single run, the `bursts/` timelines of a recovery or fill-sweep, the
/// `sweep.csv` of a sweep; nothing where the folder holds none of them.
fn kept_data(dir: &Path) -> &'static str {
    if dir.join("timeline.csv").is_file() {
        "; the timeline.csv holds every finished interval"
    } else if dir.join("bursts").is_dir() {
        "; bursts/ holds the timeline of every finished burst"
    } else if dir.join("sweep.csv").is_file() {
        "; the sweep.csv holds every finished point"
    } else {
        ""
    }
}

/// Prints the files written, one per line, to stdout.
pub fn print_files_written(files: &[PathBuf]) {
    for f in files {
        crate::say!("wrote {}", f.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_that_fails_says_nothing_of_a_timeline() {
        let d = tempfile::tempdir().unwrap();
        // A folder in the way of report.html: renaming onto it fails.
        let p = d.path().join("report.html");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(d.path().join("timeline.csv"), "t_s\n").unwrap();
        let run = format!("{:#}", write_file(&p, "x").unwrap_err());
        assert!(run.contains("timeline.csv holds"), "{run}");
        // It said "none of this run's outputs there is complete" beside the timeline it
        // said was kept.
        assert!(
            run.contains("(no report, chart or summary there is complete; the timeline.csv")
                && !run.contains("none of"),
            "{run}"
        );
        let export = {
            let _e = exporting();
            format!("{:#}", write_file(&p, "x").unwrap_err())
        };
        assert!(
            export.contains("report.html failed; it was not written")
                && !export.contains("timeline"),
            "{export}"
        );
        // Only while marked.
        let after = format!("{:#}", write_file(&p, "x").unwrap_err());
        assert!(after.contains("timeline.csv holds"), "{after}");
    }

    /// A recovery (or fill-sweep) folder has no timeline.csv: the message says what keeps its
    /// data, its bursts' timelines. It used to name a timeline.csv that is not there.
    #[test]
    fn a_failed_write_names_the_data_the_folder_keeps() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("recovery.png");
        std::fs::create_dir(&p).unwrap();
        std::fs::create_dir(d.path().join("bursts")).unwrap();
        std::fs::write(d.path().join("recovery.csv"), "x\n").unwrap();
        let e = format!("{:#}", write_file(&p, "x").unwrap_err());
        assert!(
            e.contains("bursts/ holds the timeline of every finished burst")
                && !e.contains("timeline.csv"),
            "{e}"
        );
        let sweep = tempfile::tempdir().unwrap();
        let p = sweep.path().join("report.md");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(sweep.path().join("sweep.csv"), "x\n").unwrap();
        let e = format!("{:#}", write_file(&p, "x").unwrap_err());
        assert!(
            e.contains("sweep.csv holds every finished point") && !e.contains("timeline"),
            "{e}"
        );
    }
}
