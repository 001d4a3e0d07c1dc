//! `slccache info`: on a loop device this test creates (root), on an emulated drive, on a
//! regular file, and the usage errors. It must write nothing: the loop device's backing file
//! and the regular file are compared byte for byte afterwards. The NVMe path is tested on
//! canned Identify and SMART pages in `src/commands/info.rs` (no NVMe drive on the build machines).
//!
//! Loop devices need root: outside root the loop-device test prints why it skips; in CI
//! (`CI=true`) not being root is a failure.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::fault_util;
use fault_util::{may_run, run as sh};

fn info(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slccache"))
        .arg("info")
        .args(args)
        .output()
        .unwrap()
}

fn ok_stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "info failed ({:?}): {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A loop device over a scratch file; unmounted, detached and deleted on drop, also when the
/// test fails.
struct LoopDev {
    dev: String,
    backing: PathBuf,
    mount: Option<tempfile::TempDir>,
    _dir: tempfile::TempDir,
}

impl LoopDev {
    fn new(size: usize, fill: u8) -> LoopDev {
        let dir = tempfile::Builder::new()
            .prefix("info-loop-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let backing = dir.path().join("backing.img");
        std::fs::write(&backing, vec![fill; size]).unwrap();
        let dev = sh("losetup", &["-f", "--show", backing.to_str().unwrap()]);
        assert!(dev.starts_with("/dev/loop"), "losetup said {dev}");
        LoopDev {
            dev,
            backing,
            mount: None,
            _dir: dir,
        }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(m) = self.mount.take() {
            let _ = Command::new("umount").arg(m.path()).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

pub fn info_on_a_loop_device_reads_and_writes_nothing() {
    if !may_run("info_on_a_loop_device_reads_and_writes_nothing") {
        return;
    }
    let size = 32 << 20;
    let mut lo = LoopDev::new(size, 0xA5);
    let name = lo.dev.trim_start_matches("/dev/").to_string();

    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&[&lo.dev, "--json"]))).unwrap();
    assert_eq!(j["kind"], "block");
    assert_eq!(j["identity"]["capacity_bytes"].as_u64(), Some(size as u64));
    assert_eq!(j["identity"]["logical_block_size"].as_u64(), Some(512));
    assert_eq!(j["in_use"], false, "{j}");
    assert!(j["in_use_reason"].is_null(), "{j}");
    // Not NVMe: no SMART log, and no error for not having one.
    assert!(j["health"].is_null() && j["health_error"].is_null(), "{j}");
    assert_eq!(j["host"]["disk"].as_str(), Some(name.as_str()), "{j}");
    assert!(j["host"]["scheduler"].is_string(), "{j}");

    let t = ok_stdout(&info(&[&lo.dev, "--units", "binary"]));
    for want in [
        format!("{} (block device)", lo.dev),
        "capacity:         32.0 MiB (33554432 bytes)".to_string(),
        "block sizes:      512 B logical".to_string(),
        "in use:           no".to_string(),
        format!("queue:            {name}: scheduler "),
    ] {
        assert!(t.contains(&want), "missing {want:?} in:\n{t}");
    }
    // Nothing was written.
    assert!(
        std::fs::read(&lo.backing)
            .unwrap()
            .iter()
            .all(|&b| b == 0xA5),
        "info changed the device"
    );

    // A probe of the same device records the disk's queue under `host`; a loop device has
    // no SMART log and no sensor.
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args(["probe", &lo.dev, "--pattern", "seqwrite", "--bs", "64k"])
        .args(["--max-bytes", "1MiB", "--destroy-data", "--quiet", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        s["host"]["disk"].as_str(),
        Some(name.as_str()),
        "{}",
        s["host"]
    );
    assert_eq!(s["host"]["scheduler"], j["host"]["scheduler"]);
    assert!(
        s["drive_state"]["smart_start"].is_null(),
        "{}",
        s["drive_state"]
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains(&format!("| Device queue | {name}: scheduler ")),
        "{md}"
    );

    // Mounted: info still reports, and says why probe would refuse it.
    sh("mkfs.ext4", &["-q", "-F", &lo.dev]);
    let m = tempfile::Builder::new()
        .prefix(&format!("info-mnt-{}-", std::process::id()))
        .tempdir()
        .unwrap();
    sh("mount", &[&lo.dev, m.path().to_str().unwrap()]);
    lo.mount = Some(m);
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&[&lo.dev, "--json"]))).unwrap();
    // A field a script can test, and the reason beside it.
    assert_eq!(j["in_use"], true, "{j}");
    let why = j["in_use_reason"].as_str().unwrap_or_else(|| panic!("{j}"));
    assert!(why.contains("is mounted at"), "{why}");
    let t = ok_stdout(&info(&[&lo.dev]));
    assert!(t.contains("in use:           yes: "), "{t}");
}

pub fn info_on_an_emulated_drive_shows_its_model_and_health_log() {
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&["emu:p5-1tb", "--json"]))).unwrap();
    assert_eq!(j["kind"], "emulated");
    assert_eq!(
        j["identity"]["capacity_bytes"].as_u64(),
        Some(1_000_000_000_000)
    );
    assert_eq!(j["temperature_source"], "model");
    assert_eq!(j["health"]["data_units_written"].as_u64(), Some(0));
    assert_eq!(j["health"]["thermal_mgmt_t1_transitions"].as_u64(), Some(0));
    // Not a block device: in use is false, with no reason (the same fields as a device's).
    assert_eq!(j["in_use"], false, "{j}");
    assert!(j["in_use_reason"].is_null(), "{j}");
    let t = ok_stdout(&info(&["emu:p5-1tb"]));
    for want in [
        "emu:p5-1tb (emulated drive)",
        "model:            Crucial P5 1TB (emulated)",
        "health log (SMART / Health Information):",
        "data written:           0 B (0 units of 512000 bytes)",
        // The counters are each run's: a reader must not take them for the drive's wear.
        "an emulated drive's counters start from zero on each run",
    ] {
        assert!(t.contains(want), "missing {want:?} in:\n{t}");
    }
}

/// `info emu:870evo-4tb`, a SATA preset on a 6 Gb/s link, gave no link, whose ceiling its
/// runs warn of, and showed its counters as an NVMe health log without a word.
pub fn info_on_an_emulated_sata_drive_gives_its_link() {
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&["emu:870evo-4tb", "--json"]))).unwrap();
    assert_eq!(j["link"]["name"], "SATA 6.0 Gb/s", "{j}");
    assert_eq!(
        j["link"]["usable_bytes_per_sec"].as_f64(),
        Some(558e6),
        "{j}"
    );
    let t = ok_stdout(&info(&["emu:870evo-4tb"]));
    for want in [
        "link:             SATA 6.0 Gb/s (the model's): usable 558 MB/s, 600 MB/s raw",
        "the emulated drive keeps its counters as an NVMe drive's SMART / Health log",
    ] {
        assert!(t.contains(want), "missing {want:?} in:\n{t}");
    }
    // An NVMe preset on no link of its own says neither.
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&["emu:p5-1tb", "--json"]))).unwrap();
    assert!(j["link"].is_null(), "{j}");
    let t = ok_stdout(&info(&["emu:p5-1tb"]));
    assert!(
        !t.contains("link:") && !t.contains("keeps its counters"),
        "{t}"
    );
}

/// `info emu:p5-1tb` showed 50.0 °C as the temperature and 49.9 °C as the
/// SMART log's composite temperature, one sensor read twice. The drive reports whole Kelvin
/// (50 °C ambient is 323 K); °C is derived once from that, so both lines and both JSON
/// fields agree.
pub fn one_sensor_reads_the_same_in_every_line_of_info() {
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&["emu:p5-1tb", "--json"]))).unwrap();
    assert_eq!(j["temperature_c"].as_f64(), Some(49.85), "{j}");
    assert_eq!(j["temperature_c"], j["health"]["temperature_c"], "{j}");
    let t = ok_stdout(&info(&["emu:p5-1tb"]));
    for want in [
        "temperature:      49.9 °C (model)",
        "composite temperature:  49.9 °C",
    ] {
        assert!(t.contains(want), "missing {want:?} in:\n{t}");
    }
    assert!(!t.contains("50.0 °C"), "{t}");
}

pub fn info_on_a_file_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("scratch.bin");
    let content: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&f, &content).unwrap();
    let before = std::fs::metadata(&f).unwrap().modified().unwrap();
    let t = ok_stdout(&info(&[f.to_str().unwrap()]));
    assert!(t.contains("(regular file)"), "{t}");
    assert!(
        t.contains("capacity:         1.00 MB (1000000 bytes)"),
        "{t}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&ok_stdout(&info(&[f.to_str().unwrap(), "--json"]))).unwrap();
    assert_eq!(j["in_use"], false, "{j}");
    assert!(j["in_use_reason"].is_null(), "{j}");
    assert_eq!(std::fs::read(&f).unwrap(), content);
    assert_eq!(std::fs::metadata(&f).unwrap().modified().unwrap(), before);
}

pub fn bad_targets_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.bin");
    let o = info(&[missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no such file or device"), "{err}");
    assert_eq!(info(&["emu:no-such-preset"]).status.code(), Some(2));
    // A folder is neither a file nor a device.
    assert_eq!(info(&[dir.path().to_str().unwrap()]).status.code(), Some(2));
    assert!(!missing.exists());
}

/// `info` on the results store, or on a loop device over it, said "in use: no" (nothing for a
/// file) while `probe` refuses both: the README says `info` tells why a probe would refuse.
pub fn info_says_probe_refuses_the_results_store() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    // A store with a run in it.
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .env("SLCCACHE_DB", &db)
        .args(["simulate", "960evo-250g", "--seed", "1", "-q", "--out"])
        .arg(d.path().join("run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let info_of = |target: &str| -> serde_json::Value {
        let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
            .env("SLCCACHE_DB", &db)
            .args(["info", target, "--json"])
            .output()
            .unwrap();
        serde_json::from_str(&ok_stdout(&o)).unwrap()
    };
    let j = info_of(db.to_str().unwrap());
    assert_eq!(j["in_use"], true, "{j}");
    assert!(
        j["in_use_reason"]
            .as_str()
            .is_some_and(|r| r.contains("results store")),
        "{j}"
    );
    if !may_run("info_says_probe_refuses_the_results_store (loop device)") {
        return;
    }
    let dev = sh("losetup", &["-f", "--show", db.to_str().unwrap()]);
    let j = info_of(&dev);
    let _ = Command::new("losetup").args(["-d", &dev]).status();
    assert_eq!(j["in_use"], true, "{j}");
    assert!(
        j["in_use_reason"]
            .as_str()
            .is_some_and(|r| r.contains("a loop device over")),
        "{j}"
    );
}
