//! Signals in the middle of a run, on a scratch file:
//! - SIGKILL: `timeline.csv` holds every interval that finished and `analyze` reads it;
//!   `summary.json` is absent or complete, never half-written (it is written to a temporary
//!   name and renamed).
//! - SIGINT, SIGTERM and SIGHUP at random points (seeded, 21 runs): exit 130, and every output
//!   is present and valid.

use crate::common::fault_util;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fault_util::*;
use slccache::timeline::{read_slccache_csv, Sample};

/// Starts a probe of a new 64 MiB scratch file in `dir` that would run for `duration`;
/// returns once its `timeline.csv` has at least `rows` data rows (the run is under way and
/// its signal handlers are in place).
fn start_probe(dir: &Path, duration: &str, rows: usize) -> Child {
    let child = slccache()
        .arg("probe")
        .arg(dir.join("scratch.bin"))
        .args(["--size", "64MiB", "--bs", "64k", "--qd", "4"])
        // --max-bytes: one pass is the limit otherwise, and a small file is done before the
        // signal comes.
        .args([
            "--duration",
            duration,
            "--max-bytes",
            "1PB",
            "--interval",
            "50ms",
            "--quiet",
        ])
        .arg("--out")
        .arg(dir.join("out"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(Some(child));
    let csv = dir.join("out").join("timeline.csv");
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(&csv)
            .map(|t| t.lines().count().saturating_sub(1))
            .unwrap_or(0);
        if csv.exists() && n >= rows {
            return child;
        }
        if let Some(st) = child.0.as_mut().unwrap().try_wait().unwrap() {
            panic!("the probe ended before the signal: {st}");
        }
        // A hang guard only.
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the probe never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads `timeline.csv` and checks that its rows add up and tile the run.
fn valid_timeline(out: &Path) -> Vec<Sample> {
    let text = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    assert!(text.ends_with('\n'), "the last row is complete");
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    let mut total = 0;
    let mut prev_t = 0.0;
    for r in &rows {
        total += r.bytes;
        assert_eq!(r.bytes_total, total, "running total at t={}", r.t_s);
        assert!(
            (r.t_s - r.interval_s - prev_t).abs() < 1e-5,
            "intervals tile the run"
        );
        prev_t = r.t_s;
    }
    rows
}

pub fn after_sigkill_the_timeline_holds_every_finished_interval() {
    let d = scratch("fault-kill-");
    let child = start_probe(d.path(), "60s", 10);
    let out = d.path().join("out");
    let seen = read_slccache_csv(
        &std::fs::read_to_string(out.join("timeline.csv")).unwrap(),
        "timeline.csv",
    )
    .unwrap()
    .len();
    signal(child.pid(), libc::SIGKILL);
    let o = child.wait();
    assert_eq!(o.status.code(), None, "killed by the signal");
    let rows = valid_timeline(&out);
    assert!(
        rows.len() >= seen,
        "{} rows, {seen} seen before the kill",
        rows.len()
    );
    // The run never got to its summary: absent, never half-written.
    assert!(!out.join("summary.json").exists());
    // analyze reads what is there.
    let again = d.path().join("again");
    let a = slccache()
        .arg("analyze")
        .arg(out.join("timeline.csv"))
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert_eq!(
        a.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(again.join("summary.json")).unwrap())
            .unwrap();
    let total: u64 = rows.iter().map(|r| r.bytes).sum();
    assert_eq!(s["analysis"]["bytes_total"], total);
}

pub fn sigkill_at_random_points_never_leaves_a_half_written_summary() {
    // Short runs killed anywhere from the first rows to the reports at the end.
    let mut rng = fastrand::Rng::with_seed(0x5EED_0009);
    for run in 0..6 {
        let d = scratch("fault-kill-any-");
        let child = start_probe(d.path(), "400ms", 1);
        let delay = Duration::from_millis(rng.u64(0..1200));
        std::thread::sleep(delay);
        signal(child.pid(), libc::SIGKILL);
        let _ = child.wait();
        let out = d.path().join("out");
        let rows = valid_timeline(&out);
        let summary = out.join("summary.json");
        if summary.exists() {
            let text = std::fs::read_to_string(&summary).unwrap();
            let s: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("run {run}: half-written summary.json: {e}"));
            let total: u64 = rows.iter().map(|r| r.bytes).sum();
            assert_eq!(s["totals"]["bytes"], total, "run {run}");
        }
    }
}

/// Every output of a finished (or interrupted) probe is present and readable.
fn all_outputs_valid(out: &Path, what: &str) {
    let rows = valid_timeline(out);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
            .unwrap_or_else(|e| panic!("{what}: summary.json: {e}"));
    assert_eq!(s["interrupted"], true, "{what}: {s}");
    assert_eq!(s["run"]["stop_reason"], "interrupted", "{what}");
    assert_eq!(s["error"], serde_json::Value::Null, "{what}");
    let total: u64 = rows.iter().map(|r| r.bytes).sum();
    assert_eq!(s["totals"]["bytes"], total, "{what}");
    // A signal before the first sample ended, or before the first write completed (a row of
    // 0 bytes, seen on a loaded machine 5 ms in): nothing was measured, so there is no chart
    // and no report of it, by design (summary.json and timeline.csv say so).
    if rows.is_empty() || total == 0 {
        for name in ["throughput-time.png", "throughput-data.png", "report.md"] {
            assert!(!out.join(name).exists(), "{what}: {name} of no sample");
        }
        return;
    }
    // A file that is not there: which, beside what the folder holds.
    let read = |name: String| -> Vec<u8> {
        std::fs::read(out.join(&name)).unwrap_or_else(|e| {
            let held: Vec<String> = std::fs::read_dir(out)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            panic!("{what}: {name}: {e}; the folder holds {held:?}")
        })
    };
    for stem in ["throughput-time", "throughput-data"] {
        let png = read(format!("{stem}.png"));
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{what}: {stem}.png");
        let svg = String::from_utf8(read(format!("{stem}.svg"))).unwrap();
        assert!(svg.trim_end().ends_with("</svg>"), "{what}: {stem}.svg");
    }
    let md = String::from_utf8(read("report.md".into())).unwrap();
    assert!(md.starts_with('#'), "{what}: report.md");
    assert!(!out.join(".summary.json.tmp").exists(), "{what}");
}

pub fn sigint_sigterm_and_sighup_at_random_points_exit_130_with_every_output() {
    // 21 runs, seven of each signal, on three threads (each with its own seeded sequence).
    let signals = [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ];
    let threads: Vec<_> = (0..3u64)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rng = fastrand::Rng::with_seed(0x5EED_0130 + t);
                for i in 0..7 {
                    let run = t as usize * 7 + i;
                    let (sig, name) = signals[run % 3];
                    let delay = Duration::from_millis(rng.u64(0..1500));
                    let what = format!("run {run}: {name} after {delay:?}");
                    let d = scratch("fault-sig-");
                    let child = start_probe(d.path(), "60s", 0);
                    std::thread::sleep(delay);
                    signal(child.pid(), sig);
                    let o = child.wait();
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert_eq!(o.status.code(), Some(130), "{what}: {err}");
                    assert!(err.contains("interrupted"), "{what}: {err}");
                    assert!(!err.contains("panicked"), "{what}: {err}");
                    // The probe's own words with any output found missing or broken.
                    all_outputs_valid(&d.path().join("out"), &format!("{what}; stderr: {err}"));
                }
            })
        })
        .collect();
    for t in threads {
        if let Err(e) = t.join() {
            std::panic::resume_unwind(e);
        }
    }
}

/// GNU `timeout -s INT` sends its signal to the command and then to its whole process group:
/// two SIGINTs a moment apart. The second ended the run at once (exit 130 from the handler)
/// before it wrote summary.json or a chart. Two signals within half a second are one.
pub fn a_signal_delivered_twice_at_once_is_one_signal() {
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let d = scratch("fault-sig-twice-");
        let child = start_probe(d.path(), "60s", 5);
        signal(child.pid(), sig);
        std::thread::sleep(Duration::from_millis(30));
        signal(child.pid(), sig);
        let o = child.wait();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{name}: {err}");
        all_outputs_valid(&d.path().join("out"), &format!("{name}; stderr: {err}"));
    }
}
