//! `simulate` and `analyze` keep a bounded timeline (merged past
//! `timeline::bounded::MAX_KEPT` samples), `timeline.csv` keeps every sample, and the outputs
//! say when the analysis saw merged samples. The hidden `SLCCACHE_MAX_KEPT` lowers the limit
//! so that a short run shows what a long one does.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

fn slccache() -> Command {
    let mut c = crate::common::slccache();
    c.env_remove("SLCCACHE_MAX_KEPT");
    c
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn rows(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("timeline.csv"))
        .unwrap()
        .lines()
        .count()
        - 1
}

const SIM: [&str; 10] = [
    "simulate",
    "--seed",
    "3",
    "960evo-500g",
    "--max-bytes",
    "1.5TB",
    "--no-early-stop",
    "--interval",
    "1s",
    "--no-record",
];

/// A simulation past the limit merges what it keeps, and says so in summary.json, report.md,
/// report.html and on the terminal; timeline.csv still has every sample. The same run under
/// the limit says nothing of it.
#[test]
fn simulate_past_the_limit_merges_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (merged, whole) = (tmp.path().join("merged"), tmp.path().join("whole"));
    slccache()
        .args(SIM)
        .arg("--out")
        .arg(&merged)
        .env("SLCCACHE_MAX_KEPT", "1000")
        .assert()
        .success()
        .stdout(contains("analysed at 4.0 s resolution"));
    slccache()
        .args(SIM)
        .arg("--out")
        .arg(&whole)
        .assert()
        .success()
        .stdout(contains("resolution").not());
    let n = rows(&merged);
    assert!(n > 2000, "{n} rows");
    assert_eq!(n, rows(&whole));
    let s = summary(&merged);
    let r = &s["run"]["resolution"];
    assert_eq!(r["samples"], n as u64);
    assert_eq!(r["merged_by"], 4);
    let kept = r["kept_samples"].as_u64().unwrap();
    assert!(kept <= 1001 && kept as usize >= n / 4, "{kept}");
    // Bytes and time are what the run wrote, merged or not.
    let w = summary(&whole);
    assert_eq!(s["totals"], w["totals"]);
    assert!(w["run"].get("resolution").is_none());
    let md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(md.contains("Note: analysed at 4.0 s resolution"), "{md}");
    let html = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert!(html.contains("<p class=\"resolution\">analysed at 4.0 s"));
    for f in ["report.md", "report.html"] {
        let t = std::fs::read_to_string(whole.join(f)).unwrap();
        assert!(!t.contains("analysed at"), "{f}");
    }

    // `analyze` of that timeline.csv reads it row by row into the bounded timeline: merged
    // the same way, the copy of the file has every row, and the summary says so.
    let an = tmp.path().join("an");
    slccache()
        .args(["analyze", "--no-record"])
        .arg(whole.join("timeline.csv"))
        .arg("--out")
        .arg(&an)
        .env("SLCCACHE_MAX_KEPT", "1000")
        .assert()
        .success()
        .stdout(contains("note: analysed at 4.0 s resolution"));
    assert_eq!(rows(&an), n);
    let a = summary(&an);
    assert_eq!(a["run"]["resolution"]["kept_samples"], kept);
    // (The file's values are rounded as it writes them: the same cliff, to the byte.)
    assert_eq!(
        a["analysis"]["cache_estimate"],
        s["analysis"]["cache_estimate"]
    );
    // Without the lower limit, the analysis is the one of every sample.
    let an2 = tmp.path().join("an2");
    slccache()
        .args(["analyze", "--no-record"])
        .arg(whole.join("timeline.csv"))
        .arg("--out")
        .arg(&an2)
        .assert()
        .success();
    let a2 = summary(&an2);
    assert_eq!(
        a2["analysis"]["cache_estimate"],
        w["analysis"]["cache_estimate"]
    );
    assert_eq!(a2["analysis"]["interval_s"], 1.0);
    assert!(a2["run"].get("resolution").is_none());
}

/// `probe` keeps the same bounded timeline: past the limit its summary says the samples
/// were merged, and its timeline.csv still has every interval.
#[test]
fn probe_past_the_limit_merges_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("probe");
    slccache()
        .args(["probe", "emu:instant", "--bs", "64k", "--qd", "4"])
        .args(["--duration", "3s", "--interval", "20ms", "--no-early-stop"])
        // The duration is the limit: one pass over the 1000 GB of emu:instant took 1.4 s
        // on a quiet host, and ended the run at 72 rows.
        .args(["--max-bytes", "100TB"])
        .args(["--no-record", "--out"])
        .arg(&dir)
        .env("SLCCACHE_MAX_KEPT", "32")
        .assert()
        .success();
    let n = rows(&dir);
    assert!(n >= 100, "{n} rows");
    let r = &summary(&dir)["run"]["resolution"];
    assert_eq!(r["samples"], n as u64);
    assert!(r["merged_by"].as_u64().unwrap() >= 4, "{r}");
    assert!(r["kept_samples"].as_u64().unwrap() <= 33, "{r}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("Note: analysed at"), "{md}");
}

/// `analyze` of a fio bandwidth log past the limit reads it row by row into the bounded
/// timeline too: merged, said so, every byte counted, and the timeline.csv it writes has
/// every sample, the file the same analysis under the limit writes.
#[test]
fn analyze_of_a_long_fio_log_merges_and_keeps_every_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("long_bw.1.log");
    let mut text = String::new();
    for i in 1..=3000u64 {
        let kib = if i < 1000 { 3_000_000 } else { 500_000 } + (i * 7919) % 90_000;
        text.push_str(&format!("{}, {kib}, 1, 1048576, 0\n", i * 1000));
    }
    std::fs::write(&log, text).unwrap();
    let (merged, whole) = (tmp.path().join("merged"), tmp.path().join("whole"));
    slccache()
        .args(["analyze", "--no-record"])
        .arg(&log)
        .arg("--out")
        .arg(&merged)
        .env("SLCCACHE_MAX_KEPT", "1000")
        .assert()
        .success()
        .stdout(contains("note: analysed at 4.0 s resolution"));
    slccache()
        .args(["analyze", "--no-record"])
        .arg(&log)
        .arg("--out")
        .arg(&whole)
        .assert()
        .success()
        .stdout(contains("resolution").not());
    let s = summary(&merged);
    let r = &s["run"]["resolution"];
    assert_eq!(r["samples"], 3000);
    assert_eq!(r["merged_by"], 4);
    assert!(r["kept_samples"].as_u64().unwrap() <= 1001, "{r}");
    let w = summary(&whole);
    assert_eq!(s["totals"], w["totals"]);
    assert!(w["run"].get("resolution").is_none());
    let csv = |d: &Path| std::fs::read_to_string(d.join("timeline.csv")).unwrap();
    assert!(csv(&merged).starts_with("t_s,"));
    assert_eq!(rows(&merged), 3000);
    assert_eq!(csv(&merged), csv(&whole));
}
