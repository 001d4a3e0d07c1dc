//! A sweep over queue depths, job counts and mixes: its points and its saturation point.

use serde::Serialize;

use crate::model::DriveModel;
use crate::workload::Pattern;

/// The header of `sweep.csv`, in column order.
pub const SWEEP_COLUMNS: [&str; 10] = [
    "qd",
    "jobs",
    "bs",
    "rwmix_read",
    "iops",
    "bytes_per_sec",
    "lat_p50_us",
    "lat_p99_us",
    "cpu_pct",
    "crossed_cliff",
];

/// A share of the best IOPS that counts as saturated.
pub const SATURATION_SHARE: f64 = 0.95;

/// One point of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// Pattern (its order, random or sequential; the read share is `read_pct`).
    pub pattern: Pattern,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// Percentage of reads.
    pub read_pct: u32,
    /// A name for tables (the CrystalDiskMark row), if any.
    pub label: Option<String>,
}

/// What one point measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// Block size, bytes.
    pub bs: u64,
    /// Percentage of reads.
    pub rwmix_read: u32,
    /// I/Os (reads and writes) completed per second.
    pub iops: f64,
    /// Bytes (read and written) per second.
    pub bytes_per_sec: f64,
    /// Median latency over all I/Os of the point, microseconds.
    pub lat_p50_us: Option<f64>,
    /// 99th percentile latency, microseconds.
    pub lat_p99_us: Option<f64>,
    /// CPU time of the job threads over the point's wall time, percent of one core (`None`
    /// in virtual time).
    pub cpu_pct: Option<f64>,
    /// The SLC cache ran out during the point: it measured two things.
    pub crossed_cliff: bool,
    /// On an emulated drive in real time, the model's own rate for the point's I/Os at its
    /// queue depth (bytes per second), to set beside `bytes_per_sec`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_bytes_per_sec: Option<f64>,
    /// The pattern (random or sequential order with `rwmix_read` reads).
    pub pattern: String,
    /// The CrystalDiskMark row, for `--preset cdm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The saturation point of one workload (pattern, block size and read share): the smallest
/// `qd x jobs` reaching 95% of that workload's best IOPS, claimed only when a larger
/// `qd x jobs` of the same workload was measured too (the level held past it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saturation {
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub jobs: u32,
    /// IOPS there.
    pub iops: f64,
    /// The workload's pattern.
    pub pattern: String,
    /// The workload's block size, bytes.
    pub bs: u64,
    /// The workload's read share, %.
    pub rwmix_read: u32,
}

/// A point cut short by Ctrl-C or SIGTERM: what it measured before it stopped. It is not in
/// `sweep.csv`, in the tables or in the saturation, since it measured less than the others.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnfinishedPoint {
    /// Its place in the grid, from 1.
    pub index: usize,
    /// Seconds it ran.
    pub ran_s: f64,
    /// Seconds it was to run (`--point-duration`).
    pub planned_s: f64,
    /// What it measured in that time.
    pub point: SweepPoint,
}

/// What a perfect sweep of a drive model finds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepTruth {
    /// The model's IOPS ceiling in the cache for the best point's pattern, block and mix.
    pub iops_limit: f64,
    /// IOPS with one I/O in flight (the model's latency).
    pub qd1_iops: f64,
    /// The saturation point on the same grid, from the noise-free model.
    pub saturation: Option<Saturation>,
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// The finished points, in the order run.
    pub points: Vec<SweepPoint>,
    /// The saturation point of the best point's workload, if it saturated within the grid.
    pub saturation: Option<Saturation>,
    /// The saturation point of every workload that saturated within the grid.
    pub saturations: Vec<Saturation>,
    /// The point an interrupt cut short, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unfinished_point: Option<UnfinishedPoint>,
}

/// The `config` part of a sweep's `summary.json`.
#[derive(Serialize)]
pub struct SweepConfig<'a> {
    /// Always "sweep".
    pub command: &'static str,
    /// The target as given.
    pub target: &'a str,
    /// Whether the points ran in virtual time.
    pub simulate: bool,
    /// The engine's name on a real target.
    pub engine: Option<&'a str>,
    /// How long each point wrote, seconds.
    pub point_duration_s: f64,
    /// The cap on each point's bytes.
    pub max_bytes_per_point: Option<u64>,
    /// The named grid, if any.
    pub preset: Option<&'static str>,
    /// The seed.
    pub seed: u64,
    /// The drive model, for emulated and simulated targets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a DriveModel>,
}

/// `summary.json` of a sweep.
#[derive(Serialize)]
pub struct SweepSummary<'a> {
    /// The version that wrote it.
    pub slccache_version: &'static str,
    /// Where the run came from: its host and the lab's tags (`--host`, `--tag`). Summaries
    /// written before it have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::Origin>,
    /// What ran.
    pub config: SweepConfig<'a>,
    /// The points and the saturation point.
    pub sweep: &'a Sweep,
    /// What a perfect sweep of the model finds (models only), as `model_truth.sweep`.
    #[serde(skip)]
    pub truth: Option<&'a SweepTruth>,
    /// `model_truth`: the same, under the key every command uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_truth: Option<crate::results::ModelTruth>,
    /// Notes for the reader.
    pub notes: &'a [String],
    /// Whether the sweep was interrupted.
    pub interrupted: bool,
}
