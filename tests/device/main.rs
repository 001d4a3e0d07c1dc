//! Real NVMe devices in a QEMU guest: identify data, SMART counters, and probes through the kernel's NVMe driver.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.
//! Some of its tests need root or a tool; they run on `common::harness`, which reports a test
//! that cannot run here as ignored with the reason: each test is a `pub fn` listed below.

#[path = "../common/mod.rs"]
mod common;

mod nvme_qemu;

fn main() -> std::process::ExitCode {
    common::harness::run(
        file!(),
        // Tests at once per core: each QEMU guest keeps a core busy.
        1,
        tests![
            nvme_qemu::info_and_data_units_against_qemu,
            nvme_qemu::probes_512_and_4kn_namespaces_with_both_engines,
            nvme_qemu::a_throttle_at_a_byte_count_is_found_as_the_cliff,
            nvme_qemu::the_passthrough_engine_finds_the_cliff_and_counts_its_bytes,
            nvme_qemu::partitions_a_second_namespace_and_sigint,
            nvme_qemu::trim_on_a_namespace,
            nvme_qemu::a_hung_guest_is_killed_with_its_console_in_the_message,
            nvme_qemu::polled_completions_use_the_poll_queues,
            nvme_qemu::polled_passthrough_finds_the_cliff_without_interrupts,
            nvme_qemu::secure_erase_formats_the_namespace,
            nvme_qemu::an_ata_disk_through_libata,
            nvme_qemu::a_throttle_through_libata_is_found_as_the_cliff,
            nvme_qemu::a_sata_disk_through_ahci,
        ],
    )
}
