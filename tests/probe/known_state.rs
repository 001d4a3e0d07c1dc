//! Starting from a known state: `--trim`, `--prefill` and `--idle-before` change an emulated
//! drive's cache exactly as its model says, and on a loop device (root) `--trim` discards
//! the span and `--prefill` writes the first share of it, outside the measured timeline.

use std::path::Path;

use assert_cmd::prelude::*;
use slccache::model::presets;

use crate::common::fault_util;
use fault_util::{may_run, ScratchLoop};

use crate::common::slccache_process as slccache;

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn probe(target: &str, dir: &Path, extra: &[&str]) -> serde_json::Value {
    slccache()
        .args([
            "probe",
            target,
            "--pattern",
            "seqwrite",
            "--bs",
            "1M",
            "--qd",
            "8",
        ])
        .args(["--interval", "200ms", "--seed", "1", "--quiet", "--out"])
        .arg(dir)
        .args(extra)
        .assert()
        .success();
    summary(dir)
}

/// A QLC-like drive of 20 GB, 60% full: 0.5 GB static cache plus 1.5 GB dynamic, gone at
/// 75% full, so 0.8 GB of cache now and 2 GB once trimmed.
const FULL_DRIVE: &str = "660p-1tb,capacity=20GB,static=0.5GB,dynamic=1.5GB,dyn_until=0.75,\
fill=0.6,in=1GB/s,after=250MB/s,noise=0,dips=0,recover_delay=1h";

pub fn trim_empties_an_emulated_drive_as_the_model_says() {
    let m = presets::parse_spec(FULL_DRIVE).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let target = format!("emu:{FULL_DRIVE}");
    // Without --trim: the cache at 60% full.
    let s = probe(&target, &tmp.path().join("a"), &["--max-bytes", "100MB"]);
    let ds = &s["drive_state"];
    assert_eq!(ds["trimmed"], false);
    let expect = m.cache_at_fill(0.6).round() as u64;
    assert_eq!(expect, 800_000_000);
    assert_eq!(ds["emulated_cache_at_start_bytes"].as_u64(), Some(expect));
    assert_eq!(ds["fill_at_start_pct"].as_f64(), Some(60.0));
    assert_eq!(
        s["model_truth"]["cache"]["cache_bytes"].as_u64(),
        Some(expect)
    );
    // With --trim: empty, so the whole cache of an empty drive; and the run finds it.
    let s = probe(
        &target,
        &tmp.path().join("b"),
        &["--trim", "--after-cliff", "5s"],
    );
    let ds = &s["drive_state"];
    assert_eq!(ds["trimmed"], true, "{ds}");
    assert!(ds["trim"].as_str().unwrap().contains("emulated"), "{ds}");
    assert_eq!(ds["fill_at_start_pct"].as_f64(), Some(0.0));
    let expect = m.cache_empty();
    assert_eq!(expect, 2_000_000_000);
    assert_eq!(ds["emulated_cache_at_start_bytes"].as_u64(), Some(expect));
    assert_eq!(
        s["model_truth"]["cache"]["cache_bytes"].as_u64(),
        Some(expect)
    );
    assert_eq!(s["run"]["stop_reason"], "cliff_confirmed");
    let est = s["analysis"]["cache_estimate"]["bytes"].as_f64().unwrap();
    assert!((est / expect as f64 - 1.0).abs() < 0.03, "estimate {est}");
}

/// A 4 GB drive, empty: 0.2 GB static and 0.8 GB dynamic cache (gone at 75% full).
fn small_drive(recover_delay: &str) -> String {
    format!(
        "660p-1tb,capacity=4GB,static=0.2GB,dynamic=0.8GB,dyn_until=0.75,fill=0,in=2GB/s,\
         after=500MB/s,noise=0,dips=0,recover=20GB/s,recover_delay={recover_delay}"
    )
}

pub fn prefill_and_idle_set_the_emulated_cache_as_the_model_says() {
    let tmp = tempfile::tempdir().unwrap();
    // --prefill 50: 2 GB in whole 128 KiB blocks, all of the 1 GB cache used up by it and
    // nothing folded yet (the drive waits an hour before folding): no cache left.
    let spec = small_drive("1h");
    let m = presets::parse_spec(&spec).unwrap();
    let prefill = 2_000_000_000u64 / (128 << 10) * (128 << 10);
    let s = probe(
        &format!("emu:{spec}"),
        &tmp.path().join("p"),
        &["--prefill", "50", "--max-bytes", "50MiB"],
    );
    let ds = &s["drive_state"];
    assert_eq!(ds["prefill_pct"].as_f64(), Some(50.0));
    assert_eq!(ds["prefill_bytes"].as_u64(), Some(prefill));
    let fill = prefill as f64 / 4e9;
    assert!((ds["fill_at_start_pct"].as_f64().unwrap() - 100.0 * fill).abs() < 1e-9);
    assert_eq!(ds["emulated_cache_at_start_bytes"].as_u64(), Some(0));
    // The prefill is not in the measured timeline.
    assert_eq!(s["totals"]["bytes"].as_u64(), Some(50 << 20));

    // --prefill 50 --idle-before 2s: the drive folds after 0.5 s at 20 GB/s, so the cache is
    // back, at the size the fill level leaves.
    let spec = small_drive("0.5s");
    let s = probe(
        &format!("emu:{spec}"),
        &tmp.path().join("pi"),
        &[
            "--prefill",
            "50%",
            "--idle-before",
            "2s",
            "--max-bytes",
            "50MiB",
        ],
    );
    let ds = &s["drive_state"];
    assert_eq!(ds["idle_before_s"].as_f64(), Some(2.0));
    let expect = m.cache_at_fill(fill).round() as u64;
    assert!(expect > 400_000_000 && expect < 500_000_000, "{expect}");
    assert_eq!(ds["emulated_cache_at_start_bytes"].as_u64(), Some(expect));
    assert_eq!(
        s["model_truth"]["cache"]["cache_bytes"].as_u64(),
        Some(expect)
    );
}

pub fn bad_preparation_flags_are_usage_errors() {
    for (flag, value) in [
        ("--prefill", "0"),
        ("--prefill", "150%"),
        ("--idle-before", "x"),
    ] {
        let o = slccache()
            .args(["probe", "emu:960evo-250g", flag, value])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(flag));
    }
}

// ---- loop devices (root) ----

const MIB: usize = 1 << 20;

pub fn trim_on_a_loop_device_discards_the_span() {
    if !may_run("trim_on_a_loop_device_discards_the_span") {
        return;
    }
    let lo = ScratchLoop::filled("known-state-loop-", 64 * MIB, 0xAB, true);
    let tmp = tempfile::tempdir().unwrap();
    let s = probe(
        lo.dev(),
        &tmp.path().join("t"),
        &["--trim", "--destroy-data", "--max-bytes", "4MiB"],
    );
    let ds = &s["drive_state"];
    let data = std::fs::read(lo.dev()).unwrap();
    if ds["trimmed"] == true {
        // The measured run wrote the first 4 MiB again; the rest of the span is zeros.
        assert!(data[4 * MIB..].iter().all(|&b| b == 0), "not discarded");
        assert!(data[..4 * MIB].iter().any(|&b| b != 0));
        assert!(ds["trim"].as_str().unwrap().contains("BLKDISCARD"), "{ds}");
        assert_eq!(ds["fill_at_start_pct"].as_f64(), Some(0.0));
    } else {
        // A device that cannot discard is reported, and the data stays.
        eprintln!("discard not supported here: {ds}");
        let what = ds["trim"].as_str().unwrap();
        assert!(what.contains("not supported"), "{ds}");
        assert!(data[4 * MIB..].iter().all(|&b| b == 0xAB));
    }
}

pub fn prefill_on_a_loop_device_writes_the_first_share() {
    if !may_run("prefill_on_a_loop_device_writes_the_first_share") {
        return;
    }
    let lo = ScratchLoop::filled("known-state-loop-", 64 * MIB, 0, true);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let s = probe(
        lo.dev(),
        &dir,
        &["--prefill", "50", "--destroy-data", "--max-bytes", "1MiB"],
    );
    let ds = &s["drive_state"];
    assert_eq!(ds["prefill_bytes"].as_u64(), Some(32 * MIB as u64));
    // Only the measured run's 1 MiB is in the timeline.
    assert_eq!(s["totals"]["bytes"].as_u64(), Some(MIB as u64));
    let text = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
    let rows = slccache::timeline::read_slccache_csv(&text, "timeline.csv").unwrap();
    assert_eq!(rows.last().unwrap().bytes_total, MIB as u64);
    // Every 128 KiB block of the first half holds data, the second half none.
    let data = std::fs::read(lo.dev()).unwrap();
    for (i, block) in data.chunks(128 << 10).enumerate() {
        let written = block.iter().any(|&b| b != 0);
        assert_eq!(written, i < 256, "block {i}");
    }
}
