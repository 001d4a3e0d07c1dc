//! The files of a run's folder: `summary.json` ([`summary`]), one file written whole or not at
//! all ([`file`]), a single run's and a comparison's charts and pages ([`run`]), a sweep's
//! files ([`sweep`]), the burst experiments' and the history's ([`experiments`]), and the
//! output folder claimed before a run ([`outdir`]).

pub mod experiments;
pub mod file;
pub mod outdir;
pub mod run;
pub mod summary;
pub mod sweep;
