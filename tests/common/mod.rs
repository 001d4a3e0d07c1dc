//! Shared by every test binary: the scratch helpers (loop devices, tmpfs mounts and cgroups; the
//! QEMU rig; PostgreSQL servers and store fixtures; chart and SVG checks).
#![allow(dead_code)]

pub mod fault_util;
pub mod nvme_util;
// Also included by benches/charts.rs, so it stays where that bench finds it.
#[path = "../report_util/mod.rs"]
pub mod report_util;
pub mod store_util;
