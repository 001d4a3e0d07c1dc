//! Probing files and loop devices: the engine, reads, refusals, faults (cliffs, errors, locks, signals), recovery, stopping, and results that must not be lost.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod block;
mod cpu;
mod drive_counters;
mod fault_cliff;
mod fault_errors;
mod fault_lock;
mod fault_signals;
mod file;
mod known_state;
mod reads;
mod record_partial;
mod recovery;
mod recovery_loop;
mod results_kept;
mod stop;
mod stop_replay;
mod wrap_span;
