//! Reading timelines from files: slccache `timeline.csv`, fio bandwidth logs, two-column CSVs.
//!
//! Every error names the file and the line so that a user can fix the input.

use std::path::Path;

use super::{read_slccache_csv, RunMeta, Timeline};

/// A timeline file that could not be read; names the file and (where it applies) the line.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ImportError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line number, where the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong, and where it helps, what to do.
    pub message: String,
}

impl ImportError {
    /// An error at a given line.
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> ImportError {
        ImportError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }
    /// An error about the whole file.
    pub fn whole(file: &str, message: impl Into<String>) -> ImportError {
        ImportError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

/// Loads a timeline from `path`, recognising its format from its content.
pub fn load(path: &Path) -> Result<Timeline, ImportError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ImportError::whole(&name, format!("cannot read: {e}")))?;
    if text.trim().is_empty() {
        return Err(ImportError::whole(&name, "the file is empty"));
    }
    let first = text.lines().next().unwrap_or("");
    if first.starts_with("t_s,") {
        let samples = read_slccache_csv(&text, &name)?;
        let meta = RunMeta {
            label: label_of(path),
            ..RunMeta::default()
        };
        return Ok(Timeline { samples, meta });
    }
    Err(ImportError::at(&name, 1, "unknown format"))
}

/// A short label for a file: its stem, or its folder's name for `timeline.csv`.
pub fn label_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem == "timeline" {
        if let Some(parent) = path.parent().and_then(|p| p.file_name()) {
            return parent.to_string_lossy().into_owned();
        }
    }
    stem
}
