//! Shared by every test binary: the scratch helpers (loop devices, tmpfs mounts and cgroups; the
//! QEMU rig; PostgreSQL servers and store fixtures; chart and SVG checks).
#![allow(dead_code)]

pub mod docs;
pub mod fault_util;
pub mod harness;
pub mod nvme_util;
// Also included by benches/charts.rs, so it stays where that bench finds it.
#[path = "../report_util/mod.rs"]
pub mod report_util;
pub mod store_util;

/// The binary under test, as assert_cmd runs it.
pub fn slccache() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("slccache").unwrap()
}

/// The binary under test as a plain process, for tests that spawn it, give it a terminal or
/// set things up between fork and exec.
pub fn slccache_process() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
}

pub use harness::skip;
