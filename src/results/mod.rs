//! The results of runs and experiments as plain data: what `report` draws and writes, and what
//! the commands and the machinery in `experiment` fill in. Nothing here does I/O.

pub mod drive_state;
pub mod recovery;
pub mod sweep;
