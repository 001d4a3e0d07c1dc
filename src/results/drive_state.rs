//! The drive's state at the start of a measured run and what was done to reach it.

use serde::{Deserialize, Serialize};

/// The state of the drive at the start of the measured run, and what was done to reach it
/// (`summary.json`, `drive_state`). Every field is optional so that other sources (the
/// drive's temperature, its own fill report) can add theirs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DriveStateRecord {
    /// Whether the span was discarded before the run (`--trim`) and the discard succeeded.
    pub trimmed: bool,
    /// What `--trim` did, or why it could not ("BLKDISCARD of 1.07 GB", "not supported: ...").
    pub trim: Option<String>,
    /// What `--secure-erase` did (Format NVM with a user data erase); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secure_erase: Option<String>,
    /// What `--sanitize` did (a Sanitize block erase of the NVM subsystem); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sanitize: Option<String>,
    /// `--prefill`: the share of the target written before the run, percent.
    pub prefill_pct: Option<f64>,
    /// Bytes the prefill wrote.
    pub prefill_bytes: Option<u64>,
    /// `--idle-before`: seconds waited before the run.
    pub idle_before_s: Option<f64>,
    /// Fill level of the target at the start of the measured run, percent, where known (the
    /// model's for an emulated drive; after `--trim` of the whole target, the prefill share).
    pub fill_at_start_pct: Option<f64>,
    /// An emulated drive's free SLC cache at the start of the measured run, bytes: what the
    /// model says the run should find.
    pub emulated_cache_at_start_bytes: Option<u64>,
}
