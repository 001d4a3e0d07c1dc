//! slccache: measure how big an SSD's SLC write cache really is and what happens when it runs
//! out.
//!
//! Data flows one way (see `docs/DESIGN.md`):
//! `cli -> config -> target -> engine -> sampler -> timeline -> detect -> report`.
#![deny(missing_docs)]

pub mod cli;
pub mod commands;
pub mod config;
pub mod detect;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod health;
pub mod model;
pub mod report;
pub mod results;
pub mod sampler;
pub mod store;
pub mod target;
pub mod timeline;
pub mod units;
pub mod workload;

/// The version string written into summaries and chart footers.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
