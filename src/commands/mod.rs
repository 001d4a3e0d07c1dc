//! One file per subcommand. Each turns validated configuration into a run and hands the result
//! to `report`; no command imports another (`tests/report/layout.rs` keeps that true).

pub mod analyze;
pub mod compare;
pub mod db;
pub mod fill_sweep;
pub mod history;
pub mod info;
pub mod install;
pub mod probe;
pub mod recovery;
pub mod runs;
pub mod simulate;
pub mod sweep;
