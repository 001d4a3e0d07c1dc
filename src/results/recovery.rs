//! The recovery and fill-level experiments: each burst, each point, the fit and the summary
//! that `summary.json` holds.

use serde::{Deserialize, Serialize};

use crate::config::WorkloadConfig;
use crate::detect::Analysis;
use crate::model::DriveModel;
use crate::timeline::RunMeta;
use crate::timeline::Timeline;

/// One burst of an experiment, finished.
#[derive(Debug, Clone)]
pub struct BurstRecord {
    /// What it was: "first burst", "idle 60 s", "fill 25%".
    pub label: String,
    /// Its timeline file, relative to the output folder.
    pub file: String,
    /// The timeline.
    pub timeline: Timeline,
    /// The detector's analysis of it.
    pub analysis: Analysis,
    /// The cache it found.
    pub cache: CacheFound,
    /// Why it ended.
    pub end: BurstEnd,
    /// Where on the target it started, bytes.
    pub start_offset: u64,
    /// The cache the model had available when it began (models only), bytes.
    pub model_cache_bytes: Option<f64>,
}

/// A burst's line in `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct BurstSummary {
    /// What it was.
    pub label: String,
    /// Its timeline, relative to the output folder.
    pub timeline: String,
    /// Where it started on the target, bytes.
    pub start_offset_bytes: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// How long it wrote, seconds.
    pub duration_s: f64,
    /// Why it ended.
    pub end: BurstEnd,
    /// The cache it found, bytes, and its 95% interval.
    pub cache_bytes: f64,
    /// Lower end.
    pub low_bytes: f64,
    /// Upper end.
    pub high_bytes: f64,
    /// How the cache was read ("detector" or "excess").
    pub method: &'static str,
    /// Throughput in the cache, bytes/s (when a cliff was seen).
    pub in_cache_bytes_per_sec: Option<f64>,
    /// Throughput after the cache, bytes/s (when a cliff was seen).
    pub after_cache_bytes_per_sec: Option<f64>,
    /// The detector's warnings.
    pub warnings: Vec<String>,
}

impl BurstSummary {
    /// The summary of one finished burst.
    pub fn of(b: &BurstRecord) -> BurstSummary {
        let c = b.analysis.cliffs.first();
        BurstSummary {
            label: b.label.clone(),
            timeline: b.file.clone(),
            start_offset_bytes: b.start_offset,
            bytes_written: b.timeline.bytes_total(),
            duration_s: b.timeline.duration_s(),
            end: b.end,
            cache_bytes: b.cache.bytes.round(),
            low_bytes: b.cache.low.round(),
            high_bytes: b.cache.high.round(),
            method: b.cache.method,
            in_cache_bytes_per_sec: c.map(|c| c.before_bytes_per_sec),
            after_cache_bytes_per_sec: c.map(|c| c.after_bytes_per_sec),
            warnings: b.analysis.warnings.iter().map(|w| w.to_string()).collect(),
        }
    }
}

/// One point of `recovery.points`.
#[derive(Debug, Clone, Serialize)]
pub struct RecoveryPoint {
    /// Idle time before the burst, seconds.
    pub idle_s: f64,
    /// Cache that came back, bytes.
    pub recovered_bytes: f64,
    /// Lower end of its 95% interval.
    pub low_bytes: f64,
    /// Upper end of its 95% interval.
    pub high_bytes: f64,
    /// Which step it was (1 = the first after the first burst), in the shuffled order.
    pub step: usize,
    /// The model's cache when the burst began (models only), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truth_recovered_bytes: Option<f64>,
    /// The burst.
    pub burst: BurstSummary,
}

/// `recovery` in `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct RecoverySection {
    /// The points, by idle time.
    pub points: Vec<RecoveryPoint>,
    /// The fitted model.
    pub fit: RecoveryFit,
    /// The first burst (which emptied the cache).
    pub first_burst: Option<BurstSummary>,
    /// The settling step after the first burst (not a point; see [`Settling`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settling: Option<Settling>,
    /// The idle times in the order they were run, seconds.
    pub order_s: Vec<f64>,
}

/// The settling step of `recovery`: after the first burst, one idle of the longest idle time
/// and a burst, so that every measured step starts from the same state. The first burst
/// filled the cache of a drive without its data; with that data on it a dynamic cache is
/// smaller, and the first idle after it has the difference to fold before any cache comes
/// back (a 970 EVO model: 0 B after 10 s where 1.5 GB comes back once settled).
#[derive(Debug, Clone, Serialize)]
pub struct Settling {
    /// Its idle time, seconds.
    pub idle_s: f64,
    /// The cache that came back, bytes.
    pub recovered_bytes: f64,
    /// The model's cache when the burst began (models only), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truth_recovered_bytes: Option<f64>,
    /// The burst.
    pub burst: BurstSummary,
}

/// `model_truth.recovery` in `summary.json` (models only).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truth {
    /// The model's folding rate while idle, bytes/s.
    pub recover_bytes_per_sec: f64,
    /// The model's delay before folding starts, seconds.
    pub recover_delay_s: f64,
    /// Idle time to bring back the whole cache: delay + cache / rate, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_recovery_s: Option<f64>,
    /// The whole cache at the fill level of the experiment, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_cache_bytes: Option<f64>,
    /// The model's cache on an empty drive, bytes.
    pub cache_empty_bytes: u64,
    /// Fill level at which the dynamic part is gone, %.
    pub dynamic_until_pct: f64,
}

impl Truth {
    /// What the model says, with the plateau of the fitted recovery where there is one.
    pub fn of(m: &DriveModel, plateau: Option<f64>) -> Truth {
        Truth {
            recover_bytes_per_sec: m.recover.0,
            recover_delay_s: m.recover_delay_s,
            full_recovery_s: plateau.map(|c| m.recover_delay_s + c / m.recover.0),
            full_cache_bytes: plateau.map(f64::round),
            cache_empty_bytes: m.cache_empty(),
            dynamic_until_pct: 100.0 * m.dynamic_until,
        }
    }
}

/// `model_truth` of a burst experiment on `m` whose bursts run `w`: the cache truth for that
/// workload and the recovery truth with `plateau`.
pub fn model_truth_of(
    m: &DriveModel,
    w: &WorkloadConfig,
    plateau: Option<f64>,
) -> super::ModelTruth {
    super::ModelTruth {
        cache: Some(m.truth_mixed(w.pattern, w.block_size, w.read_pct)),
        recovery: Some(Truth::of(m, plateau)),
        sweep: None,
    }
}

/// Totals in `summary.json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExperimentTotals {
    /// Bytes written by the bursts.
    pub burst_bytes: u64,
    /// Bytes written by fills.
    pub fill_bytes: u64,
    /// Seconds spent idling.
    pub idle_s: f64,
}

/// `config` in `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct ExperimentConfig {
    /// The target as given.
    pub target: String,
    /// Virtual time.
    pub simulate: bool,
    /// The bursts' workload.
    pub workload: WorkloadConfig,
    /// Least hold after a cliff, seconds.
    pub after_cliff_s: f64,
    /// Idle times as given (recovery) or after each fill (fill-sweep), seconds.
    pub idle_s: Vec<f64>,
    /// Fill levels, % (fill-sweep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels_pct: Option<Vec<f64>>,
    /// The span was discarded first (fill-sweep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim_first: Option<bool>,
    /// The seed of the shuffle and the data.
    pub seed: u64,
    /// The model (models only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<DriveModel>,
}

/// `summary.json` of `recovery`.
#[derive(Debug, Clone, Serialize)]
pub struct RecoverySummary {
    /// slccache version.
    pub slccache_version: String,
    /// Where the run came from: its host and the lab's tags (`--host`, `--tag`). Summaries
    /// written before it have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::Origin>,
    /// "recovery".
    pub command: &'static str,
    /// Stopped by Ctrl-C / SIGTERM: only the finished steps are in.
    pub interrupted: bool,
    /// Device identity and workload.
    pub run: RunMeta,
    /// The configuration.
    pub config: ExperimentConfig,
    /// The results.
    pub recovery: RecoverySection,
    /// The model's truth (models only): `cache` for the bursts' workload, `recovery`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_truth: Option<super::ModelTruth>,
    /// Totals.
    pub totals: ExperimentTotals,
    /// Things a reader should know.
    pub warnings: Vec<String>,
}

impl RecoverySummary {
    /// The model's recovery truth (`model_truth.recovery`), models only.
    pub fn truth(&self) -> Option<&Truth> {
        self.model_truth.as_ref()?.recovery.as_ref()
    }
}

impl FillSweepSummary {
    /// The model's recovery truth (`model_truth.recovery`), models only.
    pub fn truth(&self) -> Option<&Truth> {
        self.model_truth.as_ref()?.recovery.as_ref()
    }
}

/// One point of `fill_sweep.points`.
#[derive(Debug, Clone, Serialize)]
pub struct FillPoint {
    /// The fill level asked for, % of the span.
    pub fill_pct: f64,
    /// The cache found, bytes.
    pub cache_bytes: f64,
    /// Lower end of its 95% interval.
    pub low_bytes: f64,
    /// Upper end of its 95% interval.
    pub high_bytes: f64,
    /// The model's cache at this fill level (models only), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truth_cache_bytes: Option<f64>,
    /// The fill level when the burst began, % (above `fill_pct` when an earlier burst
    /// already wrote past it).
    pub actual_fill_pct: f64,
    /// Bytes written to fill up to this level.
    pub filled_bytes: u64,
    /// The burst.
    pub burst: BurstSummary,
}

/// `fill_sweep` in `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct FillSweepSection {
    /// The points, by fill level.
    pub points: Vec<FillPoint>,
    /// Idle after each fill, seconds.
    pub idle_s: f64,
}

/// `summary.json` of `fill-sweep`.
#[derive(Debug, Clone, Serialize)]
pub struct FillSweepSummary {
    /// slccache version.
    pub slccache_version: String,
    /// Where the run came from: its host and the lab's tags (`--host`, `--tag`). Summaries
    /// written before it have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::Origin>,
    /// "fill-sweep".
    pub command: &'static str,
    /// Stopped by Ctrl-C / SIGTERM: only the finished levels are in.
    pub interrupted: bool,
    /// Device identity and workload.
    pub run: RunMeta,
    /// The configuration.
    pub config: ExperimentConfig,
    /// The results.
    pub fill_sweep: FillSweepSection,
    /// The model's truth (models only): `cache` for the bursts' workload, `recovery`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_truth: Option<super::ModelTruth>,
    /// Totals.
    pub totals: ExperimentTotals,
    /// Things a reader should know.
    pub warnings: Vec<String>,
}

/// What a burst knows from an earlier one: the levels in and after the cache and the longest
/// cache phase to expect.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// Throughput in the cache, bytes/s.
    pub in_cache_bytes_per_sec: f64,
    /// Throughput after the cache, bytes/s.
    pub after_cache_bytes_per_sec: f64,
    /// The largest cache expected, bytes (a burst with no cliff by then has none to find).
    pub max_cache_bytes: f64,
}

/// Why a burst ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstEnd {
    /// The cliff was confirmed and the level after it held for the hold time.
    CliffConfirmed,
    /// The drive wrote at its after-cache level from the start: no cache to find.
    NoCache,
    /// The span (or the byte limit) was written to its end.
    EndOfSpan,
    /// Ctrl-C or SIGTERM.
    Interrupted,
}

/// [`CacheFound::method`] of a burst whose cache ran out inside its first sample, too early
/// for its samples to time: `bytes` and `low` are the least it can have held, `high` the most.
pub const FIRST_SAMPLE_DROP: &str = "first_sample_drop";

/// [`CacheFound::method`] of a burst that ended with a drop too short to confirm (after a
/// short high start, or in its last samples): `bytes` and `low` are the bytes before the drop,
/// the least the cache can hold, as `analyze` of the burst's CSV says; no size.
pub const UNCONFIRMED_DROP: &str = "unconfirmed_drop";

/// [`CacheFound::method`] of a burst with too few samples to find a cliff in: no size and no
/// bound (a burst of two samples said "no cliff: the cache is at least 1.60 GB" where
/// `analyze` of its CSV said "too few samples to tell whether there is a cache").
pub const TOO_FEW_SAMPLES: &str = "too_few_samples";

/// Whether a burst's cache `method` bounds the cache from below rather than size it: no cliff,
/// or a drop not confirmed after the bytes it gives.
pub fn is_bound(method: &str) -> bool {
    method == "none" || method == UNCONFIRMED_DROP
}

/// The cache a burst found, with its 95% interval, and how it was read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CacheFound {
    /// Bytes written in the cache.
    pub bytes: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
    /// "detector" (the change-point detector's cliff), "excess" (the excess of the first
    /// samples over the after-cache level: a cache phase too short for the detector),
    /// "first_sample_drop" (no reference and a drop inside the first sample: the cache lies
    /// between `low` and `high` if it was the cache running out, too early to time),
    /// "unconfirmed_drop" ([`UNCONFIRMED_DROP`]), "too_few_samples" ([`TOO_FEW_SAMPLES`]) or
    /// "none" (no cliff and no reference: `bytes` bounds the cache from below).
    pub method: &'static str,
}

/// The fitted recovery model with 95% intervals (the `recovery.fit` object of
/// `summary.json`). A value is `null` when the points do not determine it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecoveryFit {
    /// Folding rate while idle, bytes of cache per second of idle.
    pub fold_rate_bytes_per_sec: Option<f64>,
    /// Lower end of its 95% interval.
    pub fold_rate_bytes_per_sec_low: Option<f64>,
    /// Upper end of its 95% interval.
    pub fold_rate_bytes_per_sec_high: Option<f64>,
    /// Idle time before folding starts, seconds.
    pub delay_s: Option<f64>,
    /// Lower end of its 95% interval.
    pub delay_s_low: Option<f64>,
    /// Upper end of its 95% interval.
    pub delay_s_high: Option<f64>,
    /// Idle time after which the whole cache is back, seconds.
    pub full_recovery_s: Option<f64>,
    /// Lower end of its 95% interval.
    pub full_recovery_s_low: Option<f64>,
    /// Upper end of its 95% interval.
    pub full_recovery_s_high: Option<f64>,
    /// The cache when whole again, bytes (the plateau).
    pub full_cache_bytes: Option<f64>,
    /// True when a point lies on the plateau; false when the plateau is the first burst's
    /// cache (the full-recovery time is then an extrapolation).
    pub plateau_seen: bool,
    /// Points on the ramp (idle between the delay and full recovery).
    pub points_on_ramp: usize,
    /// Things a reader should know about the fit, as sentences.
    pub warnings: Vec<String>,
}
