//! What a run prints on the console: the one-line results ([`terminal`]), and the progress
//! line, the questions before a block device is overwritten and a probe's closing lines
//! ([`progress`]).

pub mod progress;
pub mod terminal;
