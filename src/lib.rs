//! slccache: measure how big an SSD's SLC write cache really is and what happens when it runs
//! out.
//!
//! Data flows one way (see `docs/DESIGN.md`):
//! `cli -> config -> target -> engine -> sampler -> timeline -> detect -> report`.
#![deny(missing_docs)]

pub mod analyze;
pub mod cli;
pub mod compare;
pub mod config;
pub mod detect;
pub mod engine;
pub mod error;
pub mod info;
pub mod install;
pub mod model;
pub mod prepare;
pub mod probe;
pub mod recovery;
pub mod report;
pub mod sampler;
pub mod simulate;
pub mod store;
pub mod sweep;
pub mod target;
pub mod timeline;
pub mod units;
pub mod workload;

/// The version string written into summaries and chart footers.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
