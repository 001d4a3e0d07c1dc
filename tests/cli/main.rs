//! The command line as a user meets it: analyze, compare, info, install (completions and man pages), errors on first use, stdout failures, and the repository standing alone.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod analyze;
mod bench_script;
mod compare;
mod first_use;
mod info;
mod install;
mod standalone;
mod stdout_errors;
