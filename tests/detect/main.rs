//! The change-point detector: synthetic and real traces, edge cases, periodic drops, returns to the cache rate, and the regressions found by new users.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod cases;
mod edge;
mod periodic;
mod real_traces;
mod regressions;
mod returns;
mod synthetic;
