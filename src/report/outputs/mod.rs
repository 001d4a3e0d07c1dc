//! The files of a run's folder: the output folder claimed before a run ([`outdir`]), a
//! sweep's files ([`sweep`]) and the burst experiments' and the history's ([`experiments`]).

pub mod experiments;
pub mod outdir;
pub mod sweep;
