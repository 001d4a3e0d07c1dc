//! A write error in the middle of a run, on real block devices this test creates: the probe
//! stops, exits 1, names the error, the offset and the time, and keeps a complete
//! `timeline.csv` and `summary.json` up to that point.
//!
//! - ENOSPC: a loop device (direct I/O) over a sparse file on a small tmpfs; once the tmpfs is
//!   full, writes fail and the loop device passes the error on.
//!
//! - EIO: a file on a small FUSE filesystem served by the test itself, whose writes fail with
//!   EIO past a chosen offset (this kernel has no device-mapper for dm-error or dm-flakey, and
//!   a loop device passes its backing file's ENOSPC on as ENOSPC, with or without direct I/O).
//!
//! Needs root; skips with the reason otherwise, except under CI=true.

use crate::common::fault_util;

use std::process::Stdio;

use fault_util::*;
use slccache::timeline::read_slccache_csv;

/// What a failed run left behind, checked for completeness.
struct Failed {
    stderr: String,
    summary: serde_json::Value,
    offset: u64,
    at_s: f64,
    bytes_total: u64,
}

/// Runs a seqwrite probe of `dev` that must fail part way; checks the outputs.
fn probe_until_it_fails(dev: &str, out: &std::path::Path, qd: u64, bs: u64) -> Failed {
    let agree = if dev.starts_with("/dev/") {
        "--destroy-data"
    } else {
        "--overwrite"
    };
    let o = slccache()
        .args(["probe", dev, agree, "--pattern", "seqwrite"])
        .args(["--bs", &bs.to_string(), "--qd", &qd.to_string()])
        .args(["--interval", "20ms", "--quiet"])
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // "write of N bytes at offset O failed after T s: <error>"
    let offset: u64 = after(&stderr, "at offset ")
        .unwrap_or_else(|| panic!("no offset named: {stderr}"))
        .parse()
        .unwrap();
    let at_s: f64 = after(&stderr, "failed after ")
        .unwrap_or_else(|| panic!("no time named: {stderr}"))
        .parse()
        .unwrap();
    assert!(stderr.contains(" s: "), "the time has its unit: {stderr}");
    assert!(
        stderr.contains(out.to_str().unwrap()),
        "names the outputs: {stderr}"
    );

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["run"]["stop_reason"], "write_error", "{summary}");
    assert_eq!(summary["interrupted"], false);
    let err = summary["error"].as_str().unwrap();
    assert!(err.contains(&format!("at offset {offset}")), "{err}");
    let text = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    assert!(!rows.is_empty(), "no rows");
    let mut total = 0;
    for r in &rows {
        total += r.bytes;
        assert_eq!(r.bytes_total, total, "running total at t={}", r.t_s);
    }
    assert_eq!(summary["totals"]["bytes"], total, "{summary}");
    assert_eq!(summary["analysis"]["bytes_total"], total);
    let duration = summary["totals"]["duration_s"].as_f64().unwrap();
    assert!(
        at_s <= duration + 1e-3,
        "failed at {at_s} s, after the run ended ({duration} s)"
    );
    // The rows go up to the failure: what completed is within a queue of the failed offset.
    let window = qd * bs;
    assert!(
        total + window >= offset && total <= offset + window,
        "{total} bytes completed, failure at offset {offset}"
    );
    // The report was written too.
    assert!(out.join("report.md").is_file());
    Failed {
        stderr,
        summary,
        offset,
        at_s,
        bytes_total: total,
    }
}

/// The number right after `key` in `text`.
fn after(text: &str, key: &str) -> Option<String> {
    let rest = &text[text.find(key)? + key.len()..];
    Some(
        rest.chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect::<String>()
            .trim_end_matches('.')
            .to_string(),
    )
}

pub fn enospc_through_a_loop_device_stops_the_run() {
    let test = "enospc_through_a_loop_device_stops_the_run";
    if !may_run(test) {
        return;
    }
    // A 32 MiB sparse device on a 4 MiB tmpfs: writes fail once about 4 MiB are stored.
    let fs = Tmpfs::new("4M");
    let lo = LoopDev::sparse(&fs.path().join("backing.img"), 32 << 20, true);
    let out = scratch("fault-enospc-");
    let f = probe_until_it_fails(&lo.dev, out.path(), 4, 64 << 10);
    assert!(f.stderr.contains("No space left on device"), "{}", f.stderr);
    // The error reaches the probe on a write in flight: up to the queue depth's blocks (4 x
    // 64 KiB) past the point where the tmpfs filled (seen: 4 MiB + 64 KiB).
    assert!(
        f.offset <= (4 << 20) + 4 * (64 << 10) && f.offset >= 1 << 20,
        "fails when the tmpfs is full: offset {}",
        f.offset
    );
    assert!(f.bytes_total < 32 << 20);
    assert!(f.at_s > 0.0);
    assert!(f.summary["error"]
        .as_str()
        .unwrap()
        .contains("No space left"));
}

pub fn eio_from_the_filesystem_stops_the_run() {
    let test = "eio_from_the_filesystem_stops_the_run";
    if !may_run(test) {
        return;
    }
    const FAIL_AT: u64 = 3 << 20;
    let Some(fs) = fuse::FailingFuse::mount(16 << 20, FAIL_AT) else {
        assert!(!ci(), "{test}: CI=true but FUSE cannot be mounted here");
        crate::common::skip("FUSE cannot be mounted here (no /dev/fuse?)");
        return;
    };
    let out = scratch("fault-eio-");
    let f = probe_until_it_fails(fs.file().to_str().unwrap(), out.path(), 4, 64 << 10);
    assert!(f.stderr.contains("Input/output error"), "{}", f.stderr);
    eprintln!("{test}: {}", f.stderr.trim());
    // Writes fail from FAIL_AT on; the first failure seen is among the writes in flight then.
    assert!(
        f.offset >= FAIL_AT && f.offset < FAIL_AT + 4 * (64 << 10),
        "failed at offset {}, writes fail from {FAIL_AT}",
        f.offset
    );
    assert!(
        f.bytes_total <= FAIL_AT,
        "{} bytes completed",
        f.bytes_total
    );
    assert!(f.summary["error"]
        .as_str()
        .unwrap()
        .contains("Input/output error"));
}
