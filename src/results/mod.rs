//! The results of runs and experiments as plain data: what `report` draws and writes, and what
//! the commands and the machinery in `experiment` fill in. Nothing here does I/O.

pub mod drive_state;
pub mod recovery;
pub mod sweep;

use serde::Serialize;

/// `model_truth` in every `summary.json` of a run on a drive model (`probe` and `sweep` of
/// `emu:` targets, `simulate`, `--simulate`): what a perfect measurement would find, under
/// one key in every command, each part present where the command measures it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelTruth {
    /// The cache and the rates for the run's workload (`probe`, `simulate`, the bursts of
    /// `recovery` and `fill-sweep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::model::Truth>,
    /// Idle recovery and the cache against fill (`recovery`, `fill-sweep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<recovery::Truth>,
    /// The IOPS ceiling, QD1 IOPS and saturation point (`sweep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<sweep::SweepTruth>,
}
