//! Timelines in and out: importing other tools' logs, the CSV round trip, bad input, parsers that never panic, and the bounded in-memory timeline.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod bounded;
mod import;
mod input_forms;
mod parsers_prop;
mod roundtrip;
