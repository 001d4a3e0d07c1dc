//! The files of a run's folder, all written by the one writer ([`writer::write_outputs`]) in
//! the same order: data first, then charts, images and pages. [`writer`] holds the writer and
//! the [`writer::Outputs`] trait; each kind of folder is one implementation: a single run and
//! a comparison ([`run`], also `analyze`'s data files), a sweep ([`sweep`]), the burst
//! experiments and a drive's history ([`experiments`]). [`summary`] is `summary.json`,
//! [`file`] writes one file whole or not at all, and [`outdir`] claims the output folder
//! before a run.

pub mod experiments;
pub mod file;
pub mod outdir;
pub mod run;
pub mod summary;
pub mod sweep;
pub mod writer;
