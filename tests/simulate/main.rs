//! The emulated drives: presets, thermal throttling, the ground truth the detector must find, probing an emulated drive, scenarios, sweeps and `simulate`.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod iops;
mod link;
mod presets;
mod probe_emu;
mod scenarios;
mod second_tier;
mod sweep;
mod thermal;
mod truth;
