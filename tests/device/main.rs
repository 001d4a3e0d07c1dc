//! Real NVMe devices in a QEMU guest: identify data, SMART counters, and probes through the kernel's NVMe driver.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod nvme_qemu;
