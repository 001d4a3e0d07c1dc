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
        let p = d.path().join("missing").join("report.html");
        let run = format!("{:#}", write_file(&p, "x").unwrap_err());
        assert!(run.contains("timeline.csv holds"), "{run}");
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
}
