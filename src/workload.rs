//! The domain enums of a workload: what to write and with which engine. The command line
//! (`cli`) maps its flags onto these; nothing below `config` sees clap types.

use serde::{Deserialize, Serialize};

/// Access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Random writes, every block once per pass.
    Randwrite,
    /// Sequential writes, wrapping at the end of the span.
    Seqwrite,
}

impl Pattern {
    /// Every pattern, in the order the help lists them.
    pub const ALL: [Pattern; 2] = [Pattern::Randwrite, Pattern::Seqwrite];

    /// The name used on the command line, in scenario files and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Randwrite => "randwrite",
            Pattern::Seqwrite => "seqwrite",
        }
    }

    /// One line of help for the command line.
    pub fn help(self) -> &'static str {
        match self {
            Pattern::Randwrite => "Random writes, every block once per pass",
            Pattern::Seqwrite => "Sequential writes, wrapping at the end of the span",
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// I/O engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// io_uring with registered buffers and files (default).
    IoUring,
    /// One thread per in-flight write with `pwrite`, for kernels without io_uring.
    Sync,
}

impl EngineKind {
    /// Every engine, in the order the help lists them.
    pub const ALL: [EngineKind; 2] = [EngineKind::IoUring, EngineKind::Sync];

    /// The name used on the command line and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io-uring",
            EngineKind::Sync => "sync",
        }
    }

    /// One line of help for the command line.
    pub fn help(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring with registered buffers and files (default)",
            EngineKind::Sync => {
                "One thread per in-flight write with pwrite, for kernels without io_uring"
            }
        }
    }
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
