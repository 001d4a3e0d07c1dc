//! The error of every timeline reader: the file, the line where it applies, what is wrong.
//! A module of its own so that the readers (one per format in this folder) share it without
//! importing each other.

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
