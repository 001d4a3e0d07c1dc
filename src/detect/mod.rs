//! Change-point detection: finds the cliff(s) in a timeline and estimates the cache size.
//!
//! Pure: no I/O, no clock. `probe` and `analyze` both call [`analyze`], so a saved timeline
//! re-analyzed gives the same answer as the live run.

use serde::{Deserialize, Serialize};

use crate::timeline::Timeline;

/// One cliff: a lasting drop in throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Estimated time of the drop, seconds since the start.
    pub t_s: f64,
    /// Lower end of the 95% interval for `t_s`.
    pub t_low_s: f64,
    /// Upper end of the 95% interval for `t_s`.
    pub t_high_s: f64,
    /// Bytes written before the cliff.
    pub bytes_written: u64,
    /// Mean throughput of the segment before the cliff, bytes/s.
    pub before_bytes_per_sec: f64,
    /// Mean throughput of the segment after the cliff, bytes/s.
    pub after_bytes_per_sec: f64,
}

/// The effective cache size with its 95% interval, in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEstimate {
    /// Best estimate.
    pub bytes: u64,
    /// Lower end of the interval.
    pub low_bytes: u64,
    /// Upper end of the interval.
    pub high_bytes: u64,
}

/// What a phase of the run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Writing into the SLC cache.
    Cache,
    /// After the cache ran out: writing directly to TLC/QLC.
    PostCache,
    /// A further, slower phase (folding SLC into QLC while writing).
    Folding,
    /// No change seen: one steady level throughout.
    Steady,
}

/// A stretch of the run at one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Start, seconds since the start of the run.
    pub start_s: f64,
    /// End, seconds.
    pub end_s: f64,
    /// Mean throughput over the phase, bytes/s.
    pub mean_bytes_per_sec: f64,
    /// What the phase was.
    pub kind: PhaseKind,
}

/// The result of analysing a timeline (the JSON contract of `analyze --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Total bytes written.
    pub bytes_total: u64,
    /// Duration of the timeline, seconds.
    pub duration_s: f64,
    /// Median sampling interval, seconds.
    pub interval_s: f64,
    /// Cliffs, first first.
    pub cliffs: Vec<Cliff>,
    /// The cache size, or `None` when no cliff was seen.
    pub cache_estimate: Option<CacheEstimate>,
    /// When no cliff was seen: the cache is at least this many bytes (all that was written).
    pub cache_lower_bound_bytes: Option<u64>,
    /// The phases of the run, in time order.
    pub phases: Vec<Phase>,
    /// Things a reviewer should know, as sentences.
    pub warnings: Vec<String>,
}

/// Analyses a timeline. (Placeholder until the detector lands: reports no cliff.)
pub fn analyze(t: &Timeline) -> Analysis {
    let mean = if t.duration_s() > 0.0 {
        t.bytes_total() as f64 / t.duration_s()
    } else {
        0.0
    };
    Analysis {
        bytes_total: t.bytes_total(),
        duration_s: t.duration_s(),
        interval_s: t.interval_s(),
        cliffs: vec![],
        cache_estimate: None,
        cache_lower_bound_bytes: Some(t.bytes_total()),
        phases: vec![Phase {
            start_s: t.samples.first().map(|s| s.t_start_s()).unwrap_or(0.0),
            end_s: t.duration_s(),
            mean_bytes_per_sec: mean,
            kind: PhaseKind::Steady,
        }],
        warnings: vec![],
    }
}
