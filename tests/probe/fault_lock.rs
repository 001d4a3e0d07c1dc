//! Two probes of one target at once: the second is refused (exit 1, a message that says
//! another probe is writing to it, nothing written, its output folder not created), and the
//! first runs on undisturbed. Both on a scratch file and on a loop device (root only).

use crate::common::fault_util;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fault_util::*;
use slccache::timeline::read_slccache_csv;

/// Starts `slccache probe TARGET ARGS --out OUT` and waits until its first row is written.
fn start_first(target: &str, extra: &[&str], out: &Path) -> Child {
    let child = slccache()
        .args(["probe", target])
        .args(extra)
        .args(["--bs", "64k", "--qd", "4", "--interval", "50ms", "--quiet"])
        // --max-bytes: one pass is the limit otherwise, and the first probe
        // must still be running when the second comes.
        .args(["--duration", "3s", "--max-bytes", "1PB"])
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(Some(child));
    let csv = out.join("timeline.csv");
    let t0 = Instant::now();
    while std::fs::read_to_string(&csv)
        .map(|t| t.lines().count() < 2)
        .unwrap_or(true)
    {
        if let Some(st) = child.0.as_mut().unwrap().try_wait().unwrap() {
            panic!("the first probe ended early: {st}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the first probe never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

/// The second probe: refused, with the reason, and nothing written.
fn second_is_refused(target: &str, extra: &[&str], out: &Path) {
    let o = slccache()
        .args(["probe", target])
        .args(extra)
        .args(["--bs", "64k", "--duration", "1s", "--quiet"])
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("another slccache probe is writing to it"),
        "{err}"
    );
    assert!(err.contains(target), "names the target: {err}");
    assert!(!out.exists(), "the second probe wrote {}", out.display());
}

/// The first probe: ran its whole duration without an error.
fn first_was_undisturbed(first: Child, out: &Path) {
    let o = first.wait();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["run"]["stop_reason"], "duration", "{s}");
    assert_eq!(s["error"], serde_json::Value::Null);
    let rows = read_slccache_csv(
        &std::fs::read_to_string(out.join("timeline.csv")).unwrap(),
        "timeline.csv",
    )
    .unwrap();
    assert!(rows.last().unwrap().t_s >= 3.0);
    assert_eq!(
        s["totals"]["bytes"],
        rows.iter().map(|r| r.bytes).sum::<u64>()
    );
}

pub fn a_second_probe_of_a_file_is_refused() {
    let d = scratch("fault-lock-file-");
    let f = d.path().join("scratch.bin");
    let target = f.to_str().unwrap();
    let first = start_first(target, &["--size", "32MiB"], &d.path().join("a"));
    // With --overwrite: refused by the lock, before anything is written.
    second_is_refused(target, &["--overwrite"], &d.path().join("b"));
    assert_eq!(
        std::fs::metadata(&f).unwrap().len(),
        32 << 20,
        "not resized"
    );
    first_was_undisturbed(first, &d.path().join("a"));
    // Once the first has ended, the file can be probed again.
    let o = slccache()
        .args([
            "probe",
            target,
            "--overwrite",
            "--bs",
            "64k",
            "--max-bytes",
            "1MiB",
        ])
        .args(["--quiet", "--out"])
        .arg(d.path().join("c"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

pub fn a_second_probe_of_a_block_device_is_refused() {
    if !may_run("a_second_probe_of_a_block_device_is_refused") {
        return;
    }
    let d = scratch("fault-lock-dev-");
    let lo = LoopDev::sparse(&d.path().join("backing.img"), 32 << 20, true);
    let first = start_first(&lo.dev, &["--destroy-data"], &d.path().join("a"));
    second_is_refused(&lo.dev, &["--destroy-data"], &d.path().join("b"));
    first_was_undisturbed(first, &d.path().join("a"));
}
