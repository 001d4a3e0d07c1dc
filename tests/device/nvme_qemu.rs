//! slccache against the real Linux NVMe driver: QEMU's emulated NVMe controller in a guest
//! booted for each test (the rig is tests/nvme_util). The binary under test is the one cargo
//! built for this run, stripped of its debug info, inside the guest's initramfs.
//!
//! Namespaces are QEMU `null-co` drives (writes dropped, reads zeroes: fast, deterministic),
//! and sparse image files where data must persist (partition tables, read-back). QEMU's own
//! counters (QMP `query-blockstats`) are the truth for the bytes written, and its
//! `block_set_io_throttle` makes a write cliff at a chosen byte count.
//!
//! Skips with the reason where the rig (.ci/install-qemu) is missing; under CI=true it runs
//! or fails. No timing is asserted: the guest is emulated in software on a shared machine.

use crate::common::nvme_util;
use nvme_util::*;

use std::path::Path;
use std::sync::{Arc, Mutex};

const SERIAL: &str = "SLC0001";

fn one_controller(serial: &str, namespaces: Vec<Namespace>) -> Vec<Controller> {
    vec![Controller {
        serial: serial.into(),
        namespaces,
    }]
}

fn summary(dir: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    serde_json::from_str(&t).unwrap()
}

fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// The SMART log's rounding: units of 512,000 bytes, rounded up.
fn data_units(bytes: u64) -> u64 {
    bytes.div_ceil(512_000)
}

/// What a probe's summary must hold on a real NVMe namespace: the identity as QEMU was
/// configured, the host record of the guest, the drive's state from its SMART log.
fn check_real_drive_records(s: &serde_json::Value, rig: &Rig, dev: &str, bs: u64, what: &str) {
    let d = &s["run"]["device"];
    assert_eq!(d["path"], format!("/dev/{dev}"), "{what}: {d}");
    assert_eq!(d["kind"], "block", "{what}");
    assert_eq!(d["model"], "QEMU NVMe Ctrl", "{what}: {d}");
    assert_eq!(d["firmware"], rig.qemu_version.as_str(), "{what}: {d}");
    assert!(
        d["serial"].as_str().is_some_and(|v| v.starts_with("SLC")),
        "{what}: {d}"
    );
    assert_eq!(d["logical_block_size"], bs, "{what}: {d}");
    assert_eq!(d["physical_block_size"], bs, "{what}: {d}");
    assert!(d["capacity_bytes"].as_u64().unwrap() > 0, "{what}");
    let h = &s["host"];
    assert!(
        h["kernel"]
            .as_str()
            .is_some_and(|k| k.contains("cloud-amd64")),
        "{what}: {h}"
    );
    assert!(
        h["cpu_model"].as_str().is_some_and(|c| c.contains("QEMU")),
        "{what}: {h}"
    );
    assert_eq!(h["cores"], 2, "{what}: {h}");
    assert_eq!(h["disk"], dev, "{what}: {h}");
    assert!(h["scheduler"].is_string(), "{what}: {h}");
    assert_eq!(h["pcie_link_width"], 1, "{what}: {h}");
    assert!(
        h["pcie_link_speed"]
            .as_str()
            .is_some_and(|v| v.contains("GT/s")),
        "{what}: {h}"
    );
    let ds = &s["drive_state"];
    assert_eq!(ds["temperature_start_c"], 49.85, "{what}: {ds}");
    assert_eq!(ds["temperature_end_c"], 49.85, "{what}: {ds}");
    for k in ["smart_start", "smart_end"] {
        assert_eq!(ds[k]["temperature_c"], 49.85, "{what}: {k}: {ds}");
        assert!(ds[k]["data_units_written"].is_u64(), "{what}: {k}");
    }
    let bytes = s["totals"]["bytes"].as_u64().unwrap();
    assert!(bytes > 0, "{what}");
}

/// `info` against what QEMU was given, and the SMART data units against QEMU's own
/// count of the bytes written (and the io_uring run on a 512-byte namespace).
pub fn info_and_data_units_against_qemu() {
    let Some(rig) = Rig::find("info_and_data_units_against_qemu") else {
        return;
    };
    let script = Script::new(
        r#"
cmd info0 slccache info /dev/nvme0n1
cmd info0j slccache info --json /dev/nvme0n1
sync_host before
cmd probe slccache probe /dev/nvme0n1 --destroy-data --pattern seqwrite --bs 128k --max-bytes 400MB --interval 250ms --quiet --out /out/p
sync_host after
cmd info1j slccache info --json /dev/nvme0n1
getdir p /out/p
"#,
    );
    let wr = Arc::new(Mutex::new(Vec::new()));
    let w = wr.clone();
    let on_sync: SyncHandler = Box::new(move |name, q| {
        w.lock()
            .unwrap()
            .push((name.to_string(), q.wr_bytes(&drive_id(0, 0))));
    });
    let spec = GuestSpec {
        controllers: one_controller(SERIAL, vec![Namespace::null(2 << 30)]),
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let out = Guest::start(&rig, spec, Some(on_sync)).wait();
    eprintln!(
        "guest: script started {:?} after QEMU (guest uptime {:?} s), QEMU ran {:?}",
        out.host_boot, out.booted_s, out.host_total
    );
    let text = out.expect("info0", 0);
    eprintln!(
        "info against QEMU (serial={SERIAL}, QEMU {}):\n{text}",
        rig.qemu_version
    );
    for want in [
        "/dev/nvme0n1 (block device)".to_string(),
        "  model:            QEMU NVMe Ctrl".into(),
        format!("  serial:           {SERIAL}"),
        format!("  firmware:         {}", rig.qemu_version),
        "  capacity:         2.15 GB (2147483648 bytes)".into(),
        "  block sizes:      512 B logical, 512 B physical".into(),
        "  in use:           no".into(),
        "  temperature:      49.9 °C (smart)".into(),
        "composite temperature:  49.9 °C (warning at 69.9 °C, critical at 99.9 °C)".into(),
        "PCIe x1 at".into(),
    ] {
        assert!(text.contains(&want), "missing {want:?} in:\n{text}");
    }
    let j = json(&out, "info0j.out");
    assert_eq!(out.rc("info0j"), 0);
    assert_eq!(j["identity"]["serial"], SERIAL);
    assert_eq!(j["identity"]["model"], "QEMU NVMe Ctrl");
    assert_eq!(j["identity"]["firmware"], rig.qemu_version.as_str());
    let id = &j["nvme_identify"];
    assert_eq!(id["serial"], SERIAL);
    assert_eq!(id["firmware"], rig.qemu_version.as_str());
    assert_eq!(id["pci_vendor_id"], "0x1b36", "{id}");
    // QEMU's controller: 323 K now, warning at 343 K, critical at 373 K; written rounded.
    assert_eq!(j["temperature_c"], 49.85, "{j}");
    assert_eq!(j["temperature_source"], "smart");
    assert_eq!(j["health"]["temperature_c"], 49.85);
    assert_eq!(id["warning_temp_c"], 69.85, "{id}");
    assert_eq!(id["critical_temp_c"], 99.85, "{id}");
    let info0 = out.text("info0j.out");
    // A figure left unrounded (49.850000000000001): a long run of zeros or nines after the
    // decimal point. Whole figures (the link's 250000000.0 bytes/s) are not.
    let unrounded = info0
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|tok| tok.split_once('.').map(|(_, frac)| frac))
        .any(|frac| frac.contains("0000000") || frac.contains("9999999"));
    assert!(!unrounded, "unrounded figures in:\n{info0}");

    // The data units, before and after the probe, against QEMU's count of the bytes written.
    let wr = wr.lock().unwrap().clone();
    assert_eq!(
        wr.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["before", "after"],
        "the host answered at both points"
    );
    let (before, after) = (wr[0].1, wr[1].1);
    out.expect("probe", 0);
    let o = scratch("nvme-info-");
    out.unpack("p", o.path());
    let s = summary(o.path());
    let written = s["totals"]["bytes"].as_u64().unwrap();
    assert!(written >= 400_000_000 - (128 << 10), "{}", s["totals"]);
    assert_eq!(
        after - before,
        written,
        "QEMU counted the probe's writes, and no others"
    );
    let du0 = j["health"]["data_units_written"].as_u64().unwrap();
    let j1 = json(&out, "info1j.out");
    let du1 = j1["health"]["data_units_written"].as_u64().unwrap();
    assert_eq!(du0, data_units(before), "before: {before} bytes");
    assert_eq!(du1, data_units(after), "after: {after} bytes");
    let ds = &s["drive_state"];
    assert_eq!(ds["smart_start"]["data_units_written"], du0);
    assert_eq!(ds["smart_end"]["data_units_written"], du1);
    let warnings = s["analysis"]["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("own counter")),
        "the counter agrees, so no warning: {warnings:?}"
    );
    assert_eq!(s["run"]["workload"]["engine"], "io_uring");
    check_real_drive_records(&s, &rig, "nvme0n1", 512, "512 B, io_uring");
}

/// Probes on a 512-byte and a 4Kn namespace, with io_uring and with `--engine sync`.
pub fn probes_512_and_4kn_namespaces_with_both_engines() {
    let Some(rig) = Rig::find("probes_512_and_4kn_namespaces_with_both_engines") else {
        return;
    };
    let common = "--destroy-data --max-bytes 128MB --interval 100ms --quiet";
    let script = Script::new(&format!(
        r#"
cmd s512 slccache probe /dev/nvme0n1 --engine sync --pattern seqwrite --bs 128k {common} --out /out/s512
cmd u4k slccache probe /dev/nvme0n2 --bs 4k {common} --out /out/u4k
cmd s4k slccache probe /dev/nvme0n2 --engine sync --bs 64k {common} --out /out/s4k
cmd bad slccache probe /dev/nvme0n2 --bs 512 {common} --out /out/bad
cmd nopoll slccache probe /dev/nvme0n1 --engine io-uring-poll {common} --out /out/nopoll
cmd info4k slccache info /dev/nvme0n2
cmd ctrl slccache info /dev/nvme0
cmd ctrlj slccache info --json /dev/nvme0
for r in s512 u4k s4k; do getdir $r /out/$r; done
"#
    ));
    let spec = GuestSpec {
        controllers: one_controller(
            "SLC0002",
            vec![Namespace::null(4 << 30), Namespace::null(4 << 30).with_4k()],
        ),
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let out = Guest::start(&rig, spec, None).wait();
    let o = scratch("nvme-probes-");
    for (run, dev, bs, engine) in [
        ("s512", "nvme0n1", 512, "sync"),
        ("u4k", "nvme0n2", 4096, "io_uring"),
        ("s4k", "nvme0n2", 4096, "sync"),
    ] {
        out.expect(run, 0);
        out.unpack(run, &o.path().join(run));
        let s = summary(&o.path().join(run));
        assert_eq!(s["run"]["workload"]["engine"], engine, "{run}");
        assert_eq!(s["run"]["device"]["serial"], "SLC0002", "{run}");
        check_real_drive_records(&s, &rig, dev, bs, run);
    }
    // 512-byte writes do not fit a 4Kn namespace: a usage error that names the 4096 B.
    assert_eq!(out.rc("bad"), 2, "{}", out.text("bad.err"));
    let err = out.text("bad.err");
    assert!(err.contains("4096"), "{err}");
    // Polled completions need poll queues, which this guest's driver was not given.
    assert_eq!(out.rc("nopoll"), 2, "{}", out.text("nopoll.err"));
    let err = out.text("nopoll.err");
    assert!(err.contains("nvme0n1 has no poll queues"), "{err}");
    assert!(err.contains("nvme.poll_queues=2"), "{err}");
    let info = out.expect("info4k", 0);
    assert!(
        info.contains("block sizes:      4096 B logical, 4096 B physical"),
        "{info}"
    );

    // The controller node: its identity, its health log for all namespaces, and the
    // namespaces with their sizes and formats.
    let t = out.expect("ctrl", 0);
    eprintln!("info /dev/nvme0:\n{t}");
    for want in [
        "/dev/nvme0 (NVMe controller)".to_string(),
        "  model:            QEMU NVMe Ctrl".into(),
        "  serial:           SLC0002".into(),
        format!("  firmware:         {}", rig.qemu_version),
        "  PCI vendor:       0x1b36".into(),
        "namespaces (2):".into(),
        "  1   /dev/nvme0n1: 4.29 GB (4294967296 bytes), 512 B blocks; formats 512*".into(),
        "  2   /dev/nvme0n2: 4.29 GB (4294967296 bytes), 4096 B blocks; formats 512,".into(),
        "composite temperature:  49.9 °C (warning at 69.9 °C, critical at 99.9 °C)".into(),
    ] {
        assert!(t.contains(&want), "missing {want:?} in:\n{t}");
    }
    let j = json(&out, "ctrlj.out");
    assert_eq!(j["kind"], "nvme_controller");
    assert_eq!(j["nvme_identify"]["serial"], "SLC0002");
    assert_eq!(j["nvme_identify"]["pci_vendor_id"], "0x1b36");
    assert_eq!(j["health"]["temperature_c"], 49.85);
    let ns = j["namespaces"].as_array().unwrap();
    assert_eq!(ns.len(), 2, "{j}");
    for (n, (dev, lba)) in ns
        .iter()
        .zip([("/dev/nvme0n1", 512), ("/dev/nvme0n2", 4096)])
    {
        assert_eq!(n["device"], dev, "{n}");
        assert_eq!(n["lba_size"], lba, "{n}");
        assert_eq!(n["size_bytes"], 4u64 << 30, "{n}");
    }
    // The data written by the three probes, counted by the controller for both namespaces.
    let total: u64 = ["s512", "u4k", "s4k"]
        .iter()
        .map(|r| {
            summary(&o.path().join(r))["totals"]["bytes"]
                .as_u64()
                .unwrap()
        })
        .sum();
    let du = j["health"]["data_units_written"].as_u64().unwrap();
    assert!(
        du >= total / 512_000 && du <= total.div_ceil(512_000) + 3,
        "{du} units for {total} bytes"
    );
}

/// A real cliff. QEMU throttles the namespace's writes once a chosen byte count has
/// been written; the cliff is found within 2% of where the throttle landed, and the interval
/// covers it.
pub fn a_throttle_at_a_byte_count_is_found_as_the_cliff() {
    let Some(rig) = Rig::find("a_throttle_at_a_byte_count_is_found_as_the_cliff") else {
        return;
    };
    let t = cliff_at_a_throttle(&rig, "SLC0003", "/dev/nvme0n1", "", "", "");
    let s = &t.summary;
    assert_eq!(s["run"]["workload"]["engine"], "io_uring", "{}", s["run"]);
}

/// The NVMe pass-through engine (`--engine io-uring-cmd`) through the namespace's character
/// device, named by it: the engine writes (QEMU counts the bytes), the throttle's cliff is
/// found within 2%, and the SMART data units written match QEMU's bytes. Before that, what
/// it must refuse before anything is written: the character device without the engine, a
/// block size larger than one command carries, and polling without poll queues.
pub fn the_passthrough_engine_finds_the_cliff_and_counts_its_bytes() {
    let Some(rig) = Rig::find("the_passthrough_engine_finds_the_cliff_and_counts_its_bytes") else {
        return;
    };
    let before = r#"
cmd noengine slccache probe /dev/ng0n1 --destroy-data --max-bytes 10MB --quiet --out /out/x1
cmd bigbs slccache probe /dev/ng0n1 --engine io-uring-cmd --bs 4m --destroy-data --max-bytes 10MB --quiet --out /out/x2
cmd nopoll slccache probe /dev/nvme0n1 --engine io-uring-cmd --hipri --destroy-data --max-bytes 10MB --quiet --out /out/x3
cmd nopollng slccache probe /dev/ng0n1 --engine io-uring-cmd --hipri --destroy-data --max-bytes 10MB --quiet --out /out/x4
cat /sys/block/nvme0n1/queue/max_hw_sectors_kb > /tmp/mhs; blob mhs /tmp/mhs
cmd smart0 slccache info --json /dev/ng0n1
"#;
    let after = r#"
cmd smart1 slccache info --json /dev/nvme0n1
"#;
    let t = cliff_at_a_throttle(
        &rig,
        "SLC0004",
        "/dev/ng0n1",
        "--engine io-uring-cmd",
        &format!("{before}\n@@PROBE@@\n{after}"),
        "",
    );
    let (s, out, wrote) = (&t.summary, &t.out, t.wrote);
    assert_eq!(
        s["run"]["workload"]["engine"], "io_uring_cmd",
        "{}",
        s["run"]
    );
    // Refused, exit 2, before anything was written: QEMU counted no byte written before the
    // probe.
    assert_eq!(t.before_probe, 0, "bytes written before the probe");
    let e = out.text("noengine.err");
    assert_eq!(out.rc("noengine"), 2, "{e}");
    assert!(
        e.contains("character device") && e.contains("--engine io-uring-cmd"),
        "{e}"
    );
    let e = out.text("bigbs.err");
    assert_eq!(out.rc("bigbs"), 2, "{e}");
    let mhs = out.text("mhs").trim().to_string();
    assert!(
        e.contains("max_hw_sectors_kb") && e.contains(&format!("{mhs} KiB")),
        "{e}"
    );
    for name in ["nopoll", "nopollng"] {
        let e = out.text(&format!("{name}.err"));
        assert_eq!(out.rc(name), 2, "{name}: {e}");
        assert!(e.contains("no poll queues"), "{name}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{name}: one line: {e}");
    }
    // The drive's own count: SMART data units written grew by QEMU's bytes (units of
    // 512,000 bytes, rounded up), and the run's total is QEMU's count.
    let units = |name: &str| {
        let j: serde_json::Value = serde_json::from_str(&out.expect(name, 0)).unwrap();
        j["health"]["data_units_written"].as_u64().unwrap()
    };
    let grew = units("smart1") - units("smart0");
    assert!(
        grew >= wrote / 512_000 && grew <= wrote.div_ceil(512_000) + 1,
        "{grew} data units for {wrote} bytes QEMU saw written"
    );
    let total = s["totals"]["bytes"].as_u64().unwrap();
    assert_eq!(total, wrote, "the run's bytes against QEMU's");
}

/// What [`cliff_at_a_throttle`] saw: the probe's summary, the guest's output, the bytes QEMU
/// saw written by the probe, and those it saw written before the probe started (by the
/// guest's commands before it).
struct Throttled {
    summary: serde_json::Value,
    out: GuestOutput,
    wrote: u64,
    before_probe: u64,
}

/// Runs a probe of `dev` with `engine` in a guest (booted with the extra kernel command line
/// `cmdline`) whose namespace QEMU holds at 400 MB/s and drops to 50 MB/s once 2 GB are
/// written; checks the cliff against where the throttle landed (within 2%, the interval
/// meeting the landing) and the stop reason. `script` holds the guest's commands with
/// `@@PROBE@@` where the probe goes (empty: the probe alone).
fn cliff_at_a_throttle(
    rig: &Rig,
    serial: &str,
    dev: &str,
    engine: &str,
    script: &str,
    cmdline: &str,
) -> Throttled {
    // The emulator's own speed swings with the host's load (0.7 to 1.9 GB/s on a shared
    // machine), which would be a noisy "cache" level: QEMU holds it at 400 MB/s from the
    // start, and drops it to 50 MB/s once AT bytes are written.
    const AT: u64 = 2_000_000_000;
    const CACHE_BPS: u64 = 400_000_000;
    const AFTER_BPS: u64 = 50_000_000;
    let probe = format!(
        "sync_host start\n\
         cmd probe slccache probe {dev} {engine} --destroy-data --pattern seqwrite --bs 128k \
         --qd 32 --interval 250ms --after-cliff 8s --duration 10m --quiet --out /out/c\n\
         sync_host end\n\
         getdir c /out/c\n"
    );
    let script = if script.is_empty() {
        probe
    } else {
        script.replace("@@PROBE@@", &probe)
    };
    let spec = GuestSpec {
        controllers: one_controller(serial, vec![Namespace::null(256 << 30)]),
        script: Script::new(&script),
        cmdline: cmdline.into(),
        timeout: None,
    };
    let drive = drive_id(0, 0);
    let started = Arc::new(Mutex::new(None));
    let ended = Arc::new(Mutex::new(None));
    let on_sync: SyncHandler = {
        let (started, ended) = (started.clone(), ended.clone());
        let drive = drive.clone();
        Box::new(move |name, q| {
            if name == "start" {
                q.throttle_writes(&drive, CACHE_BPS);
                *started.lock().unwrap() = Some(q.wr_bytes(&drive));
            } else {
                *ended.lock().unwrap() = Some(q.wr_bytes(&drive));
            }
        })
    };
    let guest = Guest::start(rig, spec, Some(on_sync));
    // QMP takes one client at a time: the host polls once the sync point has been answered.
    let base = loop {
        if let Some(b) = *started.lock().unwrap() {
            break b;
        }
        guest.check_timeout("the guest's start point");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // The throttle lands between the poll that saw the count passed and the query right
    // after the throttle was set: [before, landed], a few MB apart. Writes already past
    // QEMU's throttle then (at most the queue, 32 x 128 KiB) still complete at the old
    // rate, so the rate falls in [before, landed + 4 MiB].
    const IN_FLIGHT: u64 = 32 * (128 << 10);
    let (before, landed) = {
        let mut q = guest.qmp();
        loop {
            let now = q.wr_bytes(&drive) - base;
            if now >= AT {
                q.throttle_writes(&drive, AFTER_BPS);
                break (now, q.wr_bytes(&drive) - base);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            guest.check_timeout(&format!("{AT} bytes written"));
            if guest.console().contains("@@DONE") {
                panic!(
                    "the probe ended before {AT} bytes; console:\n{}",
                    guest.console()
                );
            }
        }
    };
    let out = guest.wait();
    out.expect("probe", 0);
    let wrote = ended.lock().unwrap().expect("the end point was reached") - base;
    let o = scratch("nvme-cliff-");
    out.unpack("c", o.path());
    let s = summary(o.path());
    let a = &s["analysis"];
    let rows = std::fs::read_to_string(o.path().join("timeline.csv")).unwrap();
    let near = rows_near(&rows, landed);
    let est = &a["cache_estimate"];
    let bytes = est["bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no estimate: {a}\n{near}"));
    let (low, high) = (
        est["low_bytes"].as_u64().unwrap(),
        est["high_bytes"].as_u64().unwrap(),
    );
    eprintln!(
        "{dev} {engine}: throttle landed between {before} and {landed} bytes; cliff at {bytes} \
         ({low} to {high}): {:+.3}%",
        (bytes as f64 / landed as f64 - 1.0) * 100.0
    );
    assert!(
        (bytes as f64 - landed as f64).abs() <= 0.02 * landed as f64,
        "cliff at {bytes}, throttle landed at {landed}: {a}\n{near}"
    );
    assert!(
        low <= landed + IN_FLIGHT && before <= high,
        "[{low}, {high}] does not meet the landing [{before}, {landed} + {IN_FLIGHT}]: {a}\n{near}"
    );
    assert_eq!(s["run"]["stop_reason"], "cliff_confirmed", "{}", s["run"]);
    Throttled {
        summary: s,
        out,
        wrote,
        before_probe: base,
    }
}

/// Refusals on real NVMe naming (a partition table on the namespace, one
/// partition mounted), a second namespace probed while the first is mounted (the data-units
/// warning then names the controller's namespaces), and SIGINT in the middle of that probe
/// (exit 130, every output present).
pub fn partitions_a_second_namespace_and_sigint() {
    let Some(rig) = Rig::find("partitions_a_second_namespace_and_sigint") else {
        return;
    };
    let dir = scratch("nvme-parts-");
    let img = dir.path().join("ns1.img");
    const MIB: u64 = 1 << 20;
    sparse_image(&img, 256 * MIB);
    // p1: 1 MiB..101 MiB, p2: 101 MiB..201 MiB; the rest of the namespace unpartitioned.
    let (p1, p2) = ((2048u32, 204_800u32), (206_848u32, 204_800u32));
    write_mbr(&img, &[p1, p2]);
    let mbr = std::fs::read(&img).unwrap()[..512].to_vec();
    let script = Script::new(
        r#"
mke2fs -q /dev/nvme0n1p1 && mount -t ext2 /dev/nvme0n1p1 /mnt && echo precious > /mnt/precious.txt && sync
ls /dev/nvme* > /tmp/devs; blob devs /tmp/devs
cmd whole slccache probe /dev/nvme0n1 --destroy-data --quiet --out /out/whole
cmd p1 slccache probe /dev/nvme0n1p1 --destroy-data --quiet --out /out/p1
cmd infowhole slccache info --json /dev/nvme0n1
cmd ctrlinuse slccache info --json /dev/nvme0
cmd p2 slccache probe /dev/nvme0n1p2 --destroy-data --pattern seqwrite --bs 128k --interval 100ms --quiet --out /out/p2
getdir p2 /out/p2
# The second namespace, with the first one's partition mounted and written meanwhile.
slccache probe /dev/nvme0n2 --destroy-data --pattern seqwrite --bs 128k --interval 100ms --no-early-stop --duration 10m --out /out/n2 >/tmp/n2.out 2>/tmp/n2.err </dev/null &
pid=$!
n=0
while [ "$n" -lt 5 ]; do sleep 0.2; n=$(cat /out/n2/timeline.csv 2>/dev/null | wc -l); done
dd if=/dev/urandom of=/mnt/noise bs=1M count=8 conv=fsync 2>/dev/null
sync
kill -INT $pid
wait $pid
echo $? > /tmp/n2.rc
blob n2.out /tmp/n2.out; blob n2.err /tmp/n2.err; blob n2.rc /tmp/n2.rc
(cd /out/n2 && tar czf /tmp/n2.tgz .); blob n2.tgz /tmp/n2.tgz
cat /mnt/precious.txt > /tmp/precious; blob precious /tmp/precious
umount /mnt
"#,
    );
    let spec = GuestSpec {
        controllers: one_controller(
            "SLC0004",
            vec![Namespace::file(&img), Namespace::null(1 << 40)],
        ),
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let out = Guest::start(&rig, spec, None).wait();
    let devs = out.text("devs");
    for d in ["/dev/nvme0n1p1", "/dev/nvme0n1p2", "/dev/nvme0n2"] {
        assert!(
            devs.lines().any(|l| l == d),
            "the guest has no {d}:\n{devs}"
        );
    }
    // A mounted partition refuses the whole namespace, and names the partition.
    assert_eq!(out.rc("whole"), 1, "{}", out.text("whole.err"));
    let err = out.text("whole.err");
    assert!(
        err.contains("refusing to write to /dev/nvme0n1: nvme0n1p1 is mounted at /mnt"),
        "{err}"
    );
    assert_eq!(out.rc("p1"), 1);
    let err = out.text("p1.err");
    assert!(err.contains("nvme0n1p1 is mounted at /mnt"), "{err}");
    let j = json(&out, "infowhole.out");
    assert_eq!(j["in_use"], true, "{j}");
    assert_eq!(
        j["in_use_reason"], "nvme0n1p1 is mounted at /mnt; unmount it first",
        "{j}"
    );
    // The controller: in use through its first namespace, which names the partition.
    let j = json(&out, "ctrlinuse.out");
    assert_eq!(j["in_use"], true, "{j}");
    let ns = &j["namespaces"];
    assert_eq!(ns[0]["in_use"], true, "{ns}");
    assert_eq!(
        ns[0]["in_use_reason"], "nvme0n1p1 is mounted at /mnt; unmount it first",
        "{ns}"
    );
    assert_eq!(ns[1]["in_use"], false, "{ns}");
    assert!(ns[1]["in_use_reason"].is_null(), "{ns}");
    // The other partition may be probed; the run names the partition.
    out.expect("p2", 0);
    let o = scratch("nvme-parts-out-");
    out.unpack("p2", &o.path().join("p2"));
    let s = summary(&o.path().join("p2"));
    let d = &s["run"]["device"];
    assert_eq!(d["path"], "/dev/nvme0n1p2", "{d}");
    assert_eq!(d["capacity_bytes"], p2.1 as u64 * 512, "{d}");
    assert_eq!(d["model"], "QEMU NVMe Ctrl", "{d}");
    assert_eq!(d["serial"], "SLC0004", "{d}");
    assert_eq!(s["totals"]["bytes"], p2.1 as u64 * 512, "one pass over p2");
    assert_eq!(out.text("precious"), "precious\n");
    // On the image: the partition table and p1 untouched, p2 written, nothing after it.
    let data = std::fs::read(&img).unwrap();
    assert_eq!(&data[..512], &mbr[..], "the MBR is untouched");
    let sb = p1.0 as usize * 512 + 1024;
    assert_eq!(
        &data[sb + 56..sb + 58],
        &[0x53, 0xEF],
        "p1's ext2 superblock is intact"
    );
    let p2r = p2.0 as usize * 512..(p2.0 + p2.1) as usize * 512;
    for (i, b) in data[p2r.clone()].chunks(1 << 20).enumerate() {
        assert!(b.iter().any(|&x| x != 0), "MiB {i} of p2 not written");
    }
    assert!(data[p2r.end..].iter().all(|&x| x == 0), "written past p2");
    assert!(
        data[512..p1.0 as usize * 512].iter().all(|&x| x == 0),
        "written before p1"
    );

    // The second namespace: probed while the first is mounted; interrupted with SIGINT.
    assert_eq!(out.rc("n2"), 130, "{}", out.text("n2.err"));
    let n2 = o.path().join("n2");
    out.unpack("n2", &n2);
    let s = summary(&n2);
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["run"]["stop_reason"], "interrupted");
    assert_eq!(s["run"]["device"]["path"], "/dev/nvme0n2");
    for f in [
        "timeline.csv",
        "summary.json",
        "report.md",
        "report.html",
        "throughput-time.png",
        "throughput-time.svg",
        "throughput-data.png",
        "throughput-data.svg",
        "card.png",
    ] {
        let len = std::fs::metadata(n2.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} missing after SIGINT");
    }
    let rows = slccache::timeline::read_slccache_csv(
        &std::fs::read_to_string(n2.join("timeline.csv")).unwrap(),
        "timeline.csv",
    )
    .unwrap();
    assert_eq!(
        rows.iter().map(|r| r.bytes).sum::<u64>(),
        s["totals"]["bytes"].as_u64().unwrap()
    );
    let warnings: Vec<String> = s["analysis"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    let w = warnings
        .iter()
        .find(|w| w.contains("own counter"))
        .unwrap_or_else(|| panic!("no data-units warning: {warnings:?}"));
    assert!(w.contains("something else wrote"), "{w}");
    assert!(
        w.contains("the controller counts for all its namespaces (nvme0n1, nvme0n2)"),
        "{w}"
    );
}

/// `--trim` on a namespace: discarded on an image file (QEMU punches the hole: the
/// data there reads back as zeroes), done or reported unsupported on null-co. Then
/// `--secure-erase` of the second namespace leaves the first one's data alone.
pub fn trim_on_a_namespace() {
    let Some(rig) = Rig::find("trim_on_a_namespace") else {
        return;
    };
    const MIB: usize = 1 << 20;
    let dir = scratch("nvme-trim-");
    let img = dir.path().join("ns1.img");
    std::fs::write(&img, vec![0xABu8; 64 * MIB]).unwrap();
    let script = Script::new(
        r#"
cmd t1 slccache probe /dev/nvme0n1 --destroy-data --trim --span 32MiB --max-bytes 4MiB --pattern seqwrite --bs 128k --interval 100ms --quiet --out /out/t1
cmd t2 slccache probe /dev/nvme0n2 --destroy-data --trim --max-bytes 64MB --pattern seqwrite --bs 128k --interval 100ms --quiet --out /out/t2
getdir t1 /out/t1
getdir t2 /out/t2
cmd erase2 slccache probe /dev/nvme0n2 --destroy-data --secure-erase --max-bytes 1MB --quiet --out /out/e2
"#,
    );
    let spec = GuestSpec {
        controllers: one_controller(
            "SLC0005",
            vec![Namespace::file(&img), Namespace::null(2 << 30)],
        ),
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let out = Guest::start(&rig, spec, None).wait();
    out.expect("t1", 0);
    out.expect("t2", 0);
    let o = scratch("nvme-trim-out-");
    out.unpack("t1", &o.path().join("t1"));
    out.unpack("t2", &o.path().join("t2"));
    let s1 = summary(&o.path().join("t1"));
    let ds = &s1["drive_state"];
    assert_eq!(ds["trimmed"], true, "{ds}");
    assert!(ds["trim"].as_str().unwrap().contains("BLKDISCARD"), "{ds}");
    let data = std::fs::read(&img).unwrap();
    for (i, c) in data[..4 * MIB].chunks(4096).enumerate() {
        assert!(
            c.iter().any(|&b| b != 0xAB && b != 0),
            "block {i} of the first 4 MiB not written"
        );
    }
    assert!(
        data[4 * MIB..32 * MIB].iter().all(|&b| b == 0),
        "the trimmed span reads back as zeroes"
    );
    assert!(
        data[32 * MIB..].iter().all(|&b| b == 0xAB),
        "past the span: untouched"
    );
    let s2 = summary(&o.path().join("t2"));
    let ds = &s2["drive_state"];
    let what = ds["trim"].as_str().unwrap();
    assert!(
        ds["trimmed"] == true || what.contains("not supported"),
        "null-co: done or reported unsupported: {ds}"
    );
    eprintln!(
        "--trim on an image file: {}; on null-co: {what}",
        ds["trim"]
    );
    // QEMU formats one namespace at a time (FNA bits 0 and 1 clear): the second namespace
    // may be erased beside the first, whose data stays (the image, read above after the
    // guest ended, still holds the 0xAB past the probe's span).
    out.expect("erase2", 0);
}

/// The rig itself: a guest that never powers off is killed after its timeout, and the
/// failure names the timeout and holds its console.
pub fn a_hung_guest_is_killed_with_its_console_in_the_message() {
    let Some(rig) = Rig::find("a_hung_guest_is_killed_with_its_console_in_the_message") else {
        return;
    };
    let spec = GuestSpec {
        controllers: one_controller("SLC0006", vec![Namespace::null(1 << 30)]),
        script: Script::new("echo about to hang\nwhile true; do sleep 1; done"),
        cmdline: String::new(),
        timeout: None,
    };
    let mut guest = Guest::start(&rig, spec, None);
    // Wait until the script runs, so that the console has something to show.
    while !guest.console().contains("about to hang") {
        guest.check_timeout("the script to start");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // From here it has 3 s to power off, which it never does.
    guest.set_timeout_from_now(std::time::Duration::from_secs(3));
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| guest.wait()))
        .expect_err("a guest that never powers off cannot end well");
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("did not power off within") && msg.contains("killed; console:"),
        "{msg}"
    );
    assert!(msg.contains("about to hang"), "{msg}");
}

/// Polled completions (`--hipri`, the same as `--engine io-uring-poll`: IORING_SETUP_IOPOLL) in a guest whose NVMe
/// driver has poll queues (`nvme.poll_queues=2`): the writes complete without interrupts on
/// the I/O queues, where the same run without polling raises them.
pub fn polled_completions_use_the_poll_queues() {
    let Some(rig) = Rig::find("polled_completions_use_the_poll_queues") else {
        return;
    };
    let script = Script::new(
        r#"
cat /sys/block/nvme0n1/queue/io_poll > /tmp/io_poll; blob io_poll /tmp/io_poll
# Interrupts of the I/O queues (nvme0q1, ...; nvme0q0 is the admin queue), before and after.
irqs() { grep -E 'nvme0q[1-9]' /proc/interrupts > /tmp/$1; blob $1 /tmp/$1; }
w="--destroy-data --pattern seqwrite --bs 128k --max-bytes 64MB --interval 100ms --quiet"
irqs i0
cmd poll slccache probe /dev/nvme0n1 --hipri $w --out /out/poll
irqs i1
cmd plain slccache probe /dev/nvme0n1 $w --out /out/plain
irqs i2
getdir poll /out/poll
"#,
    );
    let spec = GuestSpec {
        controllers: one_controller("SLC0007", vec![Namespace::null(2 << 30)]),
        script,
        cmdline: "nvme.poll_queues=2".into(),
        timeout: None,
    };
    let out = Guest::start(&rig, spec, None).wait();
    assert_eq!(out.text("io_poll").trim(), "1", "the driver polls");
    out.expect("poll", 0);
    out.expect("plain", 0);
    let o = scratch("nvme-poll-");
    out.unpack("poll", o.path());
    let s = summary(o.path());
    assert_eq!(s["run"]["workload"]["engine"], "io_uring_poll");
    let written = s["totals"]["bytes"].as_u64().unwrap();
    assert!(written >= 64_000_000 - (128 << 10), "{}", s["totals"]);
    let irqs = |name: &str| io_queue_interrupts(&out, name);
    let (i0, i1, i2) = (irqs("i0"), irqs("i1"), irqs("i2"));
    let text = format!("{}\n{}\n{}", out.text("i0"), out.text("i1"), out.text("i2"));
    eprintln!(
        "I/O queue interrupts: polled run {}, plain run {}",
        i1 - i0,
        i2 - i1
    );
    assert!(i2 - i1 > 0, "the plain run raises interrupts:\n{text}");
    assert!(
        (i1 - i0) * 10 < i2 - i1,
        "the polled run raised {} interrupts, the plain one {}:\n{text}",
        i1 - i0,
        i2 - i1
    );
}

/// The interrupts of the NVMe I/O queues in blob `name`, the lines of `/proc/interrupts`
/// that the guest scripts' `irqs` sends ("IRQ: count-per-CPU... type name"), summed.
fn io_queue_interrupts(out: &GuestOutput, name: &str) -> u64 {
    out.text(name)
        .lines()
        .flat_map(|l| {
            l.split_whitespace()
                .skip(1)
                .map_while(|w| w.parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}

/// Polled NVMe pass-through (`--engine io-uring-cmd --hipri`: NVMe commands through
/// io_uring's `IORING_OP_URING_CMD` on a ring set up with `IORING_SETUP_IOPOLL`) in a guest
/// whose NVMe driver has poll queues (`nvme.poll_queues=2`): the run is named
/// `io_uring_cmd_poll`, the throttle's cliff is found as the plain pass-through run finds it,
/// the run's bytes are QEMU's count, and the commands complete without interrupts on the I/O
/// queues, where a pass-through run without polling after it raises them.
pub fn polled_passthrough_finds_the_cliff_without_interrupts() {
    let Some(rig) = Rig::find("polled_passthrough_finds_the_cliff_without_interrupts") else {
        return;
    };
    let script = r#"
cat /sys/block/nvme0n1/queue/io_poll > /tmp/io_poll; blob io_poll /tmp/io_poll
# Interrupts of the I/O queues (nvme0q1, ...; nvme0q0 is the admin queue; poll queues have none).
irqs() { grep -E 'nvme0q[1-9]' /proc/interrupts > /tmp/$1; blob $1 /tmp/$1; }
irqs i0
@@PROBE@@
irqs i1
cmd plain slccache probe /dev/ng0n1 --engine io-uring-cmd --destroy-data --pattern seqwrite --bs 128k --max-bytes 16MB --interval 100ms --quiet --out /out/plain
irqs i2
"#;
    let t = cliff_at_a_throttle(
        &rig,
        "SLC0009",
        "/dev/ng0n1",
        "--engine io-uring-cmd --hipri",
        script,
        "nvme.poll_queues=2",
    );
    let (s, out) = (&t.summary, &t.out);
    assert_eq!(out.text("io_poll").trim(), "1", "the driver polls");
    assert_eq!(
        s["run"]["workload"]["engine"], "io_uring_cmd_poll",
        "{}",
        s["run"]
    );
    assert_eq!(
        s["config"]["engine"], "io_uring_cmd_poll",
        "{}",
        s["config"]
    );
    assert_eq!(t.before_probe, 0, "bytes written before the probe");
    let total = s["totals"]["bytes"].as_u64().unwrap();
    assert_eq!(total, t.wrote, "the run's bytes against QEMU's");
    out.expect("plain", 0);
    let (i0, i1, i2) = (
        io_queue_interrupts(out, "i0"),
        io_queue_interrupts(out, "i1"),
        io_queue_interrupts(out, "i2"),
    );
    let text = format!("{}\n{}\n{}", out.text("i0"), out.text("i1"), out.text("i2"));
    let commands = total / (128 << 10);
    eprintln!(
        "I/O queue interrupts: polled run {} for {commands} commands, plain run {} for 16 MB",
        i1 - i0,
        i2 - i1
    );
    assert!(i2 - i1 > 0, "the plain run raises interrupts:\n{text}");
    // The polled run sent over a hundred times the plain run's commands.
    assert!(
        (i1 - i0) * 10 < i2 - i1,
        "the polled run raised {} interrupts for {commands} commands, the plain one {} for \
         128:\n{text}",
        i1 - i0,
        i2 - i1
    );
}

/// `--secure-erase`: Format NVM with a user data erase of the whole namespace before the run
/// (QEMU writes zeroes over the image); refused on a partition and on a file, before anything
/// is written. And `--sanitize` first, in the same guest: QEMU's controller has no Sanitize
/// (SANICAP 0, as `info /dev/nvme0` shows), so it must be refused as not supported, with the
/// usage exit code, no output folder, and the namespace's data intact (its SHA-256 read in the
/// guest before and after, against the image the host wrote).
///
/// QEMU's controller also formats one namespace at a time (FNA 0, no property sets it), so the
/// refusal of `--secure-erase` on a controller that formats all its namespaces together
/// cannot be met in a guest: `info` shows FNA 0 here, and the refusal itself is tested on
/// canned pages (`nvme_format::tests`).
pub fn secure_erase_formats_the_namespace() {
    let Some(rig) = Rig::find("secure_erase_formats_the_namespace") else {
        return;
    };
    const MIB: usize = 1 << 20;
    let dir = scratch("nvme-erase-");
    let img = dir.path().join("ns1.img");
    std::fs::write(&img, vec![0xABu8; 64 * MIB]).unwrap();
    // One partition, so that a partition can be refused.
    write_mbr(&img, &[(2048, 65_536)]);
    let script = Script::new(
        r#"
cmd ctrl slccache info /dev/nvme0
cmd ctrlj slccache info --json /dev/nvme0
sha256sum /dev/nvme0n1 > /tmp/sum0; blob sum0 /tmp/sum0
cmd san slccache probe /dev/nvme0n1 --destroy-data --sanitize --max-bytes 4MiB --quiet --out /out/san
cmd sanpart slccache probe /dev/nvme0n1p1 --destroy-data --sanitize --quiet --out /out/sanpart
cmd both slccache probe /dev/nvme0n1 --destroy-data --sanitize --secure-erase --quiet --out /out/both
ls /out > /tmp/outs; blob outs /tmp/outs
sha256sum /dev/nvme0n1 > /tmp/sum1; blob sum1 /tmp/sum1
cmd part slccache probe /dev/nvme0n1p1 --destroy-data --secure-erase --quiet --out /out/part
cmd file slccache probe /tmp/f.bin --size 1MiB --secure-erase --quiet --out /out/file
cmd erase slccache probe /dev/nvme0n1 --destroy-data --secure-erase --max-bytes 4MiB --pattern seqwrite --bs 128k --interval 100ms --out /out/e
getdir e /out/e
"#,
    );
    let spec = GuestSpec {
        controllers: one_controller("SLC0008", vec![Namespace::file(&img)]),
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let before = std::fs::read(&img).unwrap();
    let out = Guest::start(&rig, spec, None).wait();

    // What QEMU's controller can erase: per namespace, no sanitize.
    let t = out.expect("ctrl", 0);
    eprintln!("info /dev/nvme0:\n{t}");
    for want in [
        "  format NVM:       per namespace\n",
        "  sanitize:         not supported (SANICAP 0)\n",
    ] {
        assert!(t.contains(want), "missing {want:?} in:\n{t}");
    }
    let j = json(&out, "ctrlj.out");
    let id = &j["nvme_identify"];
    assert_eq!(id["sanitize"]["block_erase"], false, "{id}");
    assert_eq!(id["sanitize"]["crypto_erase"], false, "{id}");
    assert_eq!(id["format_all_namespaces"], false, "{id}");
    assert_eq!(id["secure_erase_all_namespaces"], false, "{id}");
    assert_eq!(j["in_use"], false, "{j}");

    // --sanitize: refused as not supported (usage error, exit 2), before anything is sent.
    assert_eq!(out.rc("san"), 2, "{}", out.text("san.err"));
    let err = out.text("san.err");
    eprintln!("--sanitize on QEMU: {err}");
    assert!(
        err.contains(
            "--sanitize: the controller of /dev/nvme0n1 does not support a Sanitize block \
             erase (SANICAP 0: no sanitize operation at all); nothing was sent"
        ),
        "{err}"
    );
    // On a partition: refused, since every namespace would be erased.
    assert_eq!(out.rc("sanpart"), 1, "{}", out.text("sanpart.err"));
    let err = out.text("sanpart.err");
    assert!(
        err.contains(
            "--sanitize erases every namespace of the drive, and /dev/nvme0n1p1 is a partition"
        ),
        "{err}"
    );
    // With --secure-erase: one erase at a time.
    assert_eq!(out.rc("both"), 2, "{}", out.text("both.err"));
    assert!(out.text("both.err").contains("cannot be used with"));
    // No output folder, and the namespace reads as the host wrote it, before and after.
    assert_eq!(
        out.text("outs").trim(),
        "",
        "output folders made: {}",
        out.text("outs")
    );
    let want = {
        use sha2::Digest;
        sha2::Sha256::digest(&before)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    for sum in ["sum0", "sum1"] {
        let got = out.text(sum);
        assert_eq!(
            got.split_whitespace().next(),
            Some(want.as_str()),
            "{sum}: the namespace changed: {got}"
        );
    }

    assert_eq!(out.rc("part"), 1, "{}", out.text("part.err"));
    let err = out.text("part.err");
    assert!(err.contains("/dev/nvme0n1p1 is a partition"), "{err}");
    assert_eq!(out.rc("file"), 2, "{}", out.text("file.err"));
    assert!(
        out.text("file.err").contains("is neither"),
        "{}",
        out.text("file.err")
    );
    let err = out.text("erase.err");
    out.expect("erase", 0);
    assert!(
        err.contains("--secure-erase: Format NVM with user data erase"),
        "{err}"
    );
    let o = scratch("nvme-erase-out-");
    out.unpack("e", o.path());
    let s = summary(o.path());
    let what = s["drive_state"]["secure_erase"]
        .as_str()
        .unwrap_or_default();
    assert!(
        what.contains("(SES=1) of namespace 1, LBA format 0 kept"),
        "{}",
        s["drive_state"]
    );
    let data = std::fs::read(&img).unwrap();
    assert_eq!(data.len(), before.len());
    for (i, c) in data[..4 * MIB].chunks(4096).enumerate() {
        assert!(
            c.iter().any(|&b| b != 0 && b != 0xAB),
            "block {i} not written"
        );
    }
    assert!(
        data[4 * MIB..].iter().all(|&b| b == 0),
        "after the erase, what the probe did not write reads as zeroes"
    );
}

/// An ATA disk through the real libata driver: QEMU's `ide-hd` on the `pc` machine's PIIX
/// IDE, the cloud kernel's `ata_piix` and `libata` modules. `info` reads IDENTIFY DEVICE
/// and SMART READ DATA through SG_IO's ATA PASS-THROUGH and must agree with QEMU's
/// configuration (serial, model, all 8 characters of `ver=`) and with its fixed attribute
/// table (hw/ide/core.c in QEMU 7.2: attributes 1, 3, 4, 5, 9, 12 and 190, the airflow
/// temperature 31 °C). QEMU's disk has no Security feature set: `--secure-erase` is refused
/// with exit 2 and the disk unchanged. `--trim` runs where the disk takes DSM TRIM and is
/// refused, with nothing written, where it does not (`discard_granularity=0`).
pub fn an_ata_disk_through_libata() {
    let Some(rig) = Rig::find("an_ata_disk_through_libata") else {
        return;
    };
    const MIB: usize = 1 << 20;
    let dir = scratch("ata-");
    let a = dir.path().join("sda.img");
    let b = dir.path().join("sdb.img");
    std::fs::write(&a, vec![0xABu8; 64 * MIB]).unwrap();
    std::fs::write(&b, vec![0xCDu8; 64 * MIB]).unwrap();
    let disks = [
        AtaDisk {
            image: a.clone(),
            serial: "SLCATA0001".into(),
            model: "SLCCACHE ATA TEST DISK".into(),
            ver: "RVT04B6Q".into(),
            discard: true,
            null_size: None,
        },
        AtaDisk {
            image: b.clone(),
            serial: "SLCATA0002".into(),
            model: "SLCCACHE NO TRIM DISK".into(),
            ver: "NT000001".into(),
            discard: false,
            null_size: None,
        },
    ];
    let script = Script::new(&format!(
        r#"{ATA_INSMOD}{ATA_TWO_DISKS}
cmd info slccache info $A
cmd infoj slccache info $A --json
[ -x /bin/smartctl ] && cmd smart smartctl -i -A -j $A
cmd erase slccache probe $A --destroy-data --secure-erase --max-bytes 1MB --quiet --out /out/e
cmd notrim slccache probe $B --destroy-data --trim --max-bytes 1MB --quiet --out /out/n
cmd trim slccache probe $A --destroy-data --trim --span 32MiB --max-bytes 4MiB --pattern seqwrite --bs 128k --interval 100ms --quiet --out /out/t
getdir t /out/t
"#
    ));
    let spec = GuestSpec {
        controllers: vec![],
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let a_before = std::fs::read(&a).unwrap();
    let out = Guest::start_ata(&rig, spec, &disks, None).wait();
    let text = out.expect("info", 0);
    eprintln!("slccache info on the ATA disk in the guest:\n{text}");
    for want in [
        "model:            SLCCACHE ATA TEST DISK",
        "serial:           SLCATA0001",
        // All 8 characters: sysfs's SCSI rev would give 04B6.
        "firmware:         RVT04B6Q",
        "temperature:      31.0 °C (smart)",
        "ATA drive (IDENTIFY DEVICE):",
        "security:         no Security feature set",
        "temperature:      31 °C (attribute 190)",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    let j = json(&out, "infoj.out");
    let id = &j["ata_identify"];
    assert_eq!(id["firmware"], "RVT04B6Q", "{id}");
    assert_eq!(id["model"], "SLCCACHE ATA TEST DISK", "{id}");
    assert_eq!(id["trim_supported"], true, "{id}");
    assert_eq!(id["security"]["supported"], false, "{id}");
    assert_eq!(
        id["sectors"].as_u64().unwrap() * 512,
        64 * MIB as u64,
        "{id}"
    );
    let ids: Vec<u64> = j["ata_smart"]["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, vec![1, 3, 4, 5, 9, 12, 190], "{j}");
    assert_eq!(j["ata_smart"]["temperature_c"], 31.0, "{j}");
    // smartctl, where this machine has it, reads the same drive the same way.
    if SMARTCTL.iter().any(|p| Path::new(p).is_file()) {
        let sm = json(&out, "smart.out");
        eprintln!("smartctl -i -A -j on the same disk in the guest:\n{sm:#}");
        assert_eq!(sm["model_name"], id["model"], "{sm}");
        assert_eq!(sm["serial_number"], id["serial"], "{sm}");
        assert_eq!(sm["firmware_version"], id["firmware"], "{sm}");
        assert_eq!(sm["trim"]["supported"], id["trim_supported"], "{sm}");
        assert_eq!(
            sm["trim"]["deterministic"], id["trim_deterministic"],
            "{sm}"
        );
        assert_eq!(sm["trim"]["zeroed"], id["trim_zeroes"], "{sm}");
        assert_eq!(sm["user_capacity"]["bytes"], 64 * MIB as u64, "{sm}");
        assert_eq!(sm["temperature"]["current"], 31, "{sm}");
        assert_eq!(
            sm["power_on_time"]["hours"], j["ata_smart"]["power_on_hours"],
            "{sm}"
        );
        let theirs = sm["ata_smart_attributes"]["table"].as_array().unwrap();
        let ours = j["ata_smart"]["attributes"].as_array().unwrap();
        assert_eq!(theirs.len(), ours.len(), "{sm}");
        for (t, o) in theirs.iter().zip(ours) {
            assert_eq!(t["id"], o["id"], "{t} / {o}");
            assert_eq!(t["value"], o["current"], "{t} / {o}");
            assert_eq!(t["worst"], o["worst"], "{t} / {o}");
            assert_eq!(t["thresh"], o["threshold"], "{t} / {o}");
            assert_eq!(t["raw"]["value"], o["raw"], "{t} / {o}");
            assert_eq!(t["flags"]["value"], o["flags"], "{t} / {o}");
        }
    } else {
        // CI installs it (.ci/run): there a guest without it would not prove the comparison.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no smartctl on this machine (apt-get install smartmontools): under CI=true the \
             comparison with smartctl is required"
        );
        eprintln!("no smartctl on this machine (apt-get install smartmontools): not compared");
    }
    // --secure-erase: refused before anything is sent or written.
    assert_eq!(out.rc("erase"), 2, "{}", out.text("erase.err"));
    let err = out.text("erase.err");
    assert!(err.contains("has no ATA Security feature set"), "{err}");
    // --trim on the disk without DSM TRIM: refused, nothing written.
    assert_eq!(out.rc("notrim"), 2, "{}", out.text("notrim.err"));
    let err = out.text("notrim.err");
    assert!(err.contains("does not support TRIM"), "{err}");
    assert!(
        std::fs::read(&b).unwrap().iter().all(|&x| x == 0xCD),
        "the disk without TRIM was written"
    );
    // --trim where the disk takes it: the span reads back as zeroes past the probe's writes.
    out.expect("trim", 0);
    let o = scratch("ata-out-");
    out.unpack("t", o.path());
    let s = summary(o.path());
    let ds = &s["drive_state"];
    assert_eq!(ds["trimmed"], true, "{ds}");
    assert_eq!(ds["ata_identify"]["firmware"], "RVT04B6Q", "{ds}");
    assert_eq!(ds["ata_smart_start"]["temperature_c"], 31.0, "{ds}");
    assert_eq!(ds["ata_smart_end"]["temperature_c"], 31.0, "{ds}");
    assert_eq!(s["run"]["device"]["firmware"], "RVT04B6Q");
    let data = std::fs::read(&a).unwrap();
    assert_ne!(data, a_before);
    assert!(
        data[32 * MIB..].iter().all(|&x| x == 0xAB),
        "past the span: untouched"
    );
}

/// A probe of an ATA disk through libata finds a cliff made from outside: QEMU holds the
/// `ide-hd` disk (null-co) at 400 MB/s, then drops it to 50 MB/s once 2 GB are written
/// (QMP `block_set_io_throttle`). The cliff must be within 3 % of where the throttle landed,
/// and the summary holds the ATA identity and SMART at the start and the end, read while
/// the writes ran through the same driver.
pub fn a_throttle_through_libata_is_found_as_the_cliff() {
    let Some(rig) = Rig::find("a_throttle_through_libata_is_found_as_the_cliff") else {
        return;
    };
    // The emulated PATA disk is slower than the NVMe controller under TCG, and slower still
    // with a second guest on the machine: its "cache" level is held well below what it
    // reaches on a loaded machine, so that the level is QEMU's throttle and not the host.
    const AT: u64 = 1_000_000_000;
    const CACHE_BPS: u64 = 150_000_000;
    const AFTER_BPS: u64 = 20_000_000;
    let script = Script::new(&format!(
        r#"{ATA_INSMOD}
sync_host start
cmd probe slccache probe /dev/sda --destroy-data --pattern seqwrite --bs 128k --qd 32 --interval 250ms --after-cliff 8s --duration 10m --quiet --out /out/c
getdir c /out/c
"#
    ));
    let spec = GuestSpec {
        controllers: vec![],
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let disks = [AtaDisk {
        image: std::path::PathBuf::new(),
        serial: "SLCATA0003".into(),
        model: "SLCCACHE ATA CLIFF DISK".into(),
        ver: "CLIFF001".into(),
        discard: true,
        null_size: Some(64 << 30),
    }];
    let drive = "sd0".to_string();
    let started = Arc::new(Mutex::new(None));
    let on_sync: SyncHandler = {
        let started = started.clone();
        let drive = drive.clone();
        Box::new(move |_, q| {
            q.throttle_writes(&drive, CACHE_BPS);
            *started.lock().unwrap() = Some(q.wr_bytes(&drive));
        })
    };
    let guest = Guest::start_ata(&rig, spec, &disks, Some(on_sync));
    let base = loop {
        if let Some(b) = *started.lock().unwrap() {
            break b;
        }
        guest.check_timeout("the guest's start point");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let landed = {
        let mut q = guest.qmp();
        loop {
            let now = q.wr_bytes(&drive) - base;
            if now >= AT {
                q.throttle_writes(&drive, AFTER_BPS);
                break q.wr_bytes(&drive) - base;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            guest.check_timeout(&format!("{AT} bytes written"));
            if guest.console().contains("@@DONE") {
                panic!(
                    "the probe ended before {AT} bytes; console:\n{}",
                    guest.console()
                );
            }
        }
    };
    let out = guest.wait();
    out.expect("probe", 0);
    let o = scratch("ata-cliff-");
    out.unpack("c", o.path());
    let s = summary(o.path());
    let a = &s["analysis"];
    let rows = std::fs::read_to_string(o.path().join("timeline.csv")).unwrap();
    let near = rows_near(&rows, landed);
    let bytes = a["cache_estimate"]["bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no estimate (throttle landed at {landed} bytes): {a}\n{near}"));
    eprintln!(
        "ATA: throttle landed at {landed} bytes; cliff at {bytes}: {:+.3}%",
        (bytes as f64 / landed as f64 - 1.0) * 100.0
    );
    assert!(
        (bytes as f64 - landed as f64).abs() <= 0.03 * landed as f64,
        "cliff at {bytes}, throttle landed at {landed}: {a}\n{near}"
    );
    assert_eq!(
        s["run"]["stop_reason"], "cliff_confirmed",
        "{}\n{near}",
        s["run"]
    );
    assert_eq!(s["run"]["device"]["firmware"], "CLIFF001");
    let ds = &s["drive_state"];
    assert_eq!(ds["ata_identify"]["serial"], "SLCATA0003", "{ds}");
    assert_eq!(ds["ata_smart_start"]["temperature_c"], 31.0, "{ds}");
    assert_eq!(ds["ata_smart_end"]["temperature_c"], 31.0, "{ds}");
    assert_eq!(ds["temperature_start_c"], 31.0, "{ds}");
}

/// A SATA disk through the real AHCI driver: QEMU's `ide-hd` on an AHCI controller
/// (`-device ahci` on the `pc` machine), Debian's generic kernel with its `ahci`, `libahci`
/// and `libata` modules. QEMU's IDENTIFY gives no SATA speed (word 76 holds the NCQ bit
/// alone, word 77 nothing), but its AHCI port reports a Gen1 link in SStatus, which the
/// kernel logs ("SATA link up 1.5 Gbps") and writes to sysfs (`sata_spd`): `info` must show
/// the link's 1.5 Gb/s from the kernel, and agree with the kernel's log, with sysfs and with
/// smartctl's identity fields; a probe's summary.json carries the link. QMP then holds the
/// disk at 140 MB/s, the 1.5 Gb/s link's usable rate (139.5 MB/s, `link.rs`): the probe must
/// say its cache phase is limited by the link (terminal, report.md, the card's note, the
/// summary's warning); held at 80 MB/s, it must not. Prints what info, smartctl and the
/// kernel said, and the guest's uptime when `/dev/sda` appeared.
pub fn a_sata_disk_through_ahci() {
    let Some((rig, kernel)) = Rig::find_generic("a_sata_disk_through_ahci") else {
        return;
    };
    const AT_LINK_BPS: u64 = 140_000_000;
    const BELOW_BPS: u64 = 80_000_000;
    const LINE: &str = "cache phase limited by the SATA 1.5 Gb/s link, perhaps not by the drive";
    // A run with no cliff at the link's limit: the link hid any cache.
    const HIDDEN: &str = "no cliff seen through the SATA 1.5 Gb/s link";
    let probe = "slccache probe /dev/sda --destroy-data --pattern seqwrite --bs 128k --qd 32 \
                 --interval 250ms --duration 12s";
    let script = Script::new(&format!(
        r#"{AHCI_INSMOD}
cmd dmesg dmesg
cmd path readlink -f /sys/block/sda/device
cmd spd sh -c 'for l in /sys/class/ata_link/*; do echo "${{l##*/}} $(cat $l/sata_spd)"; done'
cmd info slccache info /dev/sda
cmd infoj slccache info /dev/sda --json
[ -x /bin/smartctl ] && cmd smart smartctl -i -j /dev/sda
sync_host at_link
cmd fast {probe} --out /out/f
getdir f /out/f
sync_host below
cmd slow {probe} --out /out/s
getdir s /out/s
"#
    ));
    let spec = GuestSpec {
        controllers: vec![],
        script,
        cmdline: String::new(),
        timeout: None,
    };
    let disks = [AtaDisk {
        image: std::path::PathBuf::new(),
        serial: "SLCSATA0001".into(),
        model: "SLCCACHE SATA AHCI DISK".into(),
        ver: "AHCI0001".into(),
        discard: true,
        null_size: Some(64 << 30),
    }];
    let on_sync: SyncHandler = Box::new(move |name, q| match name {
        "at_link" => q.throttle_writes("sd0", AT_LINK_BPS),
        "below" => q.throttle_writes("sd0", BELOW_BPS),
        other => panic!("unknown sync point {other}"),
    });
    let out = Guest::start_ahci(&rig, &kernel, spec, &disks, Some(on_sync)).wait();
    let sda_s: Option<f64> = out
        .console
        .lines()
        .find_map(|l| l.strip_prefix("@@SDA "))
        .and_then(|v| v.trim().parse().ok());
    eprintln!(
        "AHCI guest: /dev/sda at {sda_s:?} s of guest uptime (script started at {:?} s; \
         QEMU start to the script {:?})",
        out.booted_s, out.host_boot
    );
    let insmod_failed: Vec<&str> = out
        .console
        .lines()
        .filter(|l| l.starts_with("insmod ") && l.ends_with(" failed"))
        .collect();
    assert!(
        insmod_failed.is_empty(),
        "{insmod_failed:?}\n{}",
        out.console
    );

    // The kernel's own account: its log and sysfs.
    let dmesg = out.expect("dmesg", 0);
    let up: Vec<&str> = dmesg
        .lines()
        .filter(|l| l.contains("SATA link up"))
        .collect();
    eprintln!("the guest kernel's log: {up:#?}");
    assert!(
        up.len() == 1 && up[0].contains("SATA link up 1.5 Gbps"),
        "{dmesg}"
    );
    let port = up[0]
        .split_whitespace()
        .find_map(|w| w.strip_suffix(':').filter(|p| p.starts_with("ata")))
        .unwrap_or_else(|| panic!("no ataN in {:?}", up[0]));
    let path = out.expect("path", 0);
    assert!(path.contains(&format!("/{port}/")), "{port} not in {path}");
    let spd = out.expect("spd", 0);
    eprintln!("sysfs ata_link sata_spd:\n{spd}");
    let link = format!("link{}", &port[3..]);
    assert!(
        spd.lines().any(|l| l == format!("{link} 1.5 Gbps")),
        "{spd}"
    );

    // info: the identity as configured, the link's speed from the kernel.
    let text = out.expect("info", 0);
    eprintln!("slccache info /dev/sda in the AHCI guest:\n{text}");
    for want in [
        "model:            SLCCACHE SATA AHCI DISK".to_string(),
        "serial:           SLCSATA0001".to_string(),
        "firmware:         AHCI0001".to_string(),
        format!(
            "link:             SATA 1.5 Gb/s (the kernel's libata {link}; the drive's IDENTIFY \
             gives none)"
        ),
    ] {
        assert!(text.contains(&want), "missing {want:?} in:\n{text}");
    }
    let j = json(&out, "infoj.out");
    let id = &j["ata_identify"];
    assert_eq!(id["sata_gbps_current"], serde_json::Value::Null, "{id}");
    assert_eq!(id["sata_gbps_max"], serde_json::Value::Null, "{id}");
    let kl = &j["host"]["libata_link"];
    assert_eq!(kl["name"], link.as_str(), "{j}");
    assert_eq!(kl["sata_spd"], "1.5 Gbps", "{j}");
    assert_eq!(kl["gbps"], 1.5, "{j}");
    if SMARTCTL.iter().any(|p| Path::new(p).is_file()) {
        let sm = json(&out, "smart.out");
        let shown = serde_json::json!({
            "model_name": sm["model_name"], "serial_number": sm["serial_number"],
            "firmware_version": sm["firmware_version"], "user_capacity": sm["user_capacity"],
            "ata_version": sm["ata_version"], "sata_version": sm["sata_version"],
            "interface_speed": sm["interface_speed"], "trim": sm["trim"],
        });
        eprintln!("smartctl -i -j /dev/sda in the AHCI guest (identity fields):\n{shown:#}");
        assert_eq!(sm["model_name"], id["model"], "{sm}");
        assert_eq!(sm["serial_number"], id["serial"], "{sm}");
        assert_eq!(sm["firmware_version"], id["firmware"], "{sm}");
        assert_eq!(sm["user_capacity"]["bytes"], 64u64 << 30, "{sm}");
        assert_eq!(sm["trim"]["supported"], id["trim_supported"], "{sm}");
    } else {
        // CI installs it (.ci/run): there a guest without it would not prove the comparison.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no smartctl on this machine (apt-get install smartmontools): under CI=true the \
             comparison with smartctl is required"
        );
        eprintln!("no smartctl on this machine (apt-get install smartmontools): not compared");
    }

    // The probes: the link in the records, and the link's warning where the rate meets it.
    let at_link = scratch("ahci-fast-");
    out.unpack("f", at_link.path());
    let below = scratch("ahci-slow-");
    out.unpack("s", below.path());
    for (dir, name, limited) in [(&at_link, "fast", true), (&below, "slow", false)] {
        let terminal = out.expect(name, 0);
        let s = summary(dir.path());
        let a = &s["analysis"];
        let analysis: slccache::detect::Analysis = serde_json::from_value(a.clone()).unwrap();
        let f = slccache::detect::Findings::of(&analysis);
        assert_eq!(s["host"]["libata_link"]["gbps"], 1.5, "{}", s["host"]);
        assert_eq!(
            s["drive_state"]["libata_link"]["sata_spd"], "1.5 Gbps",
            "{}",
            s["drive_state"]
        );
        assert_eq!(s["drive_state"]["ata_identify"]["serial"], "SLCSATA0001");
        let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        assert!(
            md.contains("SATA 1.5 Gb/s (the kernel's libata link)"),
            "{md}"
        );
        let card = slccache::report::pages::card::card_note_parts(
            &analysis,
            slccache::units::UnitSystem::Decimal,
        );
        // With a cliff (QEMU's burst from idle taken as a short cache phase) the cache phase
        // met the link; with none, the link hid any cache.
        let line = if analysis.cliffs.is_empty() {
            HIDDEN
        } else {
            LINE
        };
        let warned_of = |l: &str| {
            a["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str().is_some_and(|t| t.starts_with(l)))
        };
        let warned = warned_of(LINE) || warned_of(HIDDEN);
        // What the warning judges: the rate in the cache, else the run's one level. QEMU's
        // throttle lets a tenth of a second's bytes through at once from idle (its bucket),
        // which the detector may take as a short cache phase above the held rate; the held
        // rate after it must meet the link too, or miss it, on its own.
        let judged = f.in_cache_bytes_per_sec.or(f.level_bytes_per_sec).unwrap();
        let held = analysis
            .after_cache
            .as_ref()
            .map(|c| c.mean_bytes_per_sec)
            .unwrap_or(judged);
        let usable = slccache::link::Link::sata(1.5)
            .unwrap()
            .usable_bytes_per_sec;
        eprintln!(
            "AHCI probe held at {} MB/s: judged {:.1} MB/s, held {:.1} MB/s, against {:.1} MB/s \
             (94 % of the link's usable {:.1} MB/s)",
            if limited { AT_LINK_BPS } else { BELOW_BPS } / 1_000_000,
            judged / 1e6,
            held / 1e6,
            slccache::link::NEAR * usable / 1e6,
            usable / 1e6
        );
        assert_eq!(
            held >= slccache::link::NEAR * usable,
            limited,
            "held {held} B/s: {a}"
        );
        if limited {
            assert_eq!(a["link_limited"], "SATA 1.5 Gb/s", "{a}");
            assert!(warned_of(line), "{a}");
            assert!(
                terminal.contains(&format!("warning: {line}: ")),
                "{terminal}"
            );
            assert!(md.contains(line), "{md}");
            if analysis.cliffs.is_empty() {
                assert!(
                    matches!(
                        f.cache,
                        slccache::detect::findings::Cache::HiddenByLink { .. }
                    ),
                    "{:?}",
                    f.cache
                );
            } else {
                assert!(card.iter().any(|p| p == LINE), "{card:?}");
            }
        } else {
            assert_eq!(a["link_limited"], serde_json::Value::Null, "{a}");
            assert!(!warned, "{a}");
            assert!(!terminal.contains("limited by the"), "{terminal}");
            assert!(!md.contains("limited by the"), "{md}");
            assert!(
                !card.iter().any(|p| p.contains("limited by the")),
                "{card:?}"
            );
        }
    }
}

/// The rows of a timeline within 1 GB of `landed` bytes written, for a failure's message.
fn rows_near(rows: &str, landed: u64) -> String {
    let near: Vec<&str> = rows
        .lines()
        .skip(1)
        .filter(|l| {
            let total: u64 = l
                .split(',')
                .nth(3)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            total.abs_diff(landed) < 1_000_000_000
        })
        .collect();
    format!(
        "timeline rows within 1 GB of the throttle:\n{}",
        near.join("\n")
    )
}
