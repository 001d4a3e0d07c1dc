//! Reads need written data: reads of a file this run would create, or of a file with holes,
//! are refused (nothing written, the way to fill the file named); reads of a filled file run,
//! their timeline carries the read columns and loads in `analyze` and `compare`; reads of a
//! block device that was not prepared warn (loop device this test creates; root only).

use std::path::{Path, PathBuf};

use assert_cmd::prelude::*;
use predicates::prelude::*;
use predicates::str::contains;
use slccache::timeline::{read_slccache_csv, CSV_COLUMNS, READ_COLUMNS};

use crate::common::fault_util;
use fault_util::{is_root, ScratchLoop};

use crate::common::slccache_process as slccache;

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("probe-reads-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn filled(dir: &Path, size: usize) -> PathBuf {
    let p = dir.join("filled.bin");
    let mut rng = fastrand::Rng::with_seed(5);
    let data: Vec<u8> = (0..size).map(|_| rng.u8(..)).collect();
    std::fs::write(&p, data).unwrap();
    p
}

pub fn reads_of_a_new_file_are_refused_and_nothing_is_created() {
    let d = scratch();
    let f = d.path().join("new.bin");
    slccache()
        .arg("probe")
        .arg(&f)
        .args(["--size", "1MiB", "--pattern", "randread", "-q", "--out"])
        .arg(d.path().join("out"))
        .assert()
        .code(1)
        .stderr(contains("nothing to read"))
        .stderr(contains("--pattern seqwrite"));
    assert!(!f.exists());
    assert!(!d.path().join("out").exists());
}

/// The refusal's advice fills the file: a sparse file of 100000001 bytes was refused for a hole
/// at byte 0, and the advised `--pattern seqwrite --bs 1M --overwrite` wrote whole 1 MiB blocks,
/// left the last part of the span to read a hole, and the read was refused again, at byte
/// 99614720, with the same advice. Here a file of 5000001 bytes, whose 4 KiB span is not a
/// whole number of 1 MiB blocks either.
pub fn the_advice_for_a_file_with_holes_fills_it() {
    let d = scratch();
    let f = d.path().join("odd.bin");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(5_000_001)
        .unwrap();
    match slccache::device::reads::first_hole(&f, 4096).unwrap() {
        Some(_) => {}
        None => {
            crate::common::skip("this filesystem reports no holes in a sparse file");
            return;
        }
    }
    let read = || {
        slccache()
            .arg("probe")
            .arg(&f)
            .args([
                "--pattern",
                "randread",
                "--duration",
                "1s",
                "--interval",
                "250ms",
                "-q",
                "--out",
            ])
            .arg(d.path().join("read"))
            .output()
            .unwrap()
    };
    let o = read();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    // The command between the first pair of backticks, run as the user would.
    let cmd = err.split('`').nth(1).unwrap_or_else(|| panic!("{err}"));
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(words[..2], ["slccache", "probe"], "{err}");
    assert!(!words.contains(&"1M"), "{err}");
    slccache()
        .args(&words[1..])
        .args(["-q", "--out"])
        .arg(d.path().join("fill"))
        .assert()
        .success();
    let o = read();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

pub fn reads_of_a_file_with_holes_are_refused() {
    let d = scratch();
    let f = d.path().join("sparse.bin");
    let mut data = vec![7u8; 1 << 20];
    data.truncate(1 << 20);
    std::fs::write(&f, &data).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    match slccache::device::reads::first_hole(&f, 16 << 20).unwrap() {
        Some(_) => {}
        None => {
            crate::common::skip("this filesystem reports no holes in a sparse file");
            return;
        }
    }
    slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--pattern",
            "randrw",
            "--rwmix-read",
            "50",
            "--overwrite",
            "-q",
        ])
        .arg("--out")
        .arg(d.path().join("out"))
        .assert()
        .code(1)
        .stderr(contains("hole"))
        .stderr(contains("fill it first"));
    // Nothing was written: the data part is intact, the rest still a hole.
    let back = std::fs::read(&f).unwrap();
    assert!(back[..1 << 20].iter().all(|&b| b == 7));
    assert!(back[1 << 20..].iter().all(|&b| b == 0));
    // The written part alone may be read.
    slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--pattern",
            "randread",
            "--span",
            "1MiB",
            "--duration",
            "300ms",
            "-q",
        ])
        .args(["--interval", "100ms", "--out"])
        .arg(d.path().join("ok"))
        .assert()
        .success();
}

pub fn reads_of_a_filled_file_run_and_load_in_analyze_and_compare() {
    let d = scratch();
    let f = filled(d.path(), 8 << 20);
    let before = std::fs::read(&f).unwrap();
    let mixed = d.path().join("mixed");
    slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--pattern",
            "randrw",
            "--rwmix-read",
            "70",
            "--qd",
            "4",
            "--overwrite",
        ])
        // --max-bytes: one pass over the file is the limit otherwise, and
        // these runs need several samples.
        .args([
            "--duration",
            "1s",
            "--max-bytes",
            "1PB",
            "--interval",
            "100ms",
            "-q",
            "--out",
        ])
        .arg(&mixed)
        .assert()
        .success();
    let text = std::fs::read_to_string(mixed.join("timeline.csv")).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        format!("{},{}", CSV_COLUMNS.join(","), READ_COLUMNS.join(","))
    );
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    let r: u64 = rows
        .iter()
        .filter_map(|s| s.read.as_ref())
        .map(|r| r.bytes)
        .sum();
    let w: u64 = rows.iter().map(|s| s.bytes).sum();
    assert!(r > 0 && w > 0, "reads {r}, writes {w}");
    // About 70% of the I/Os are reads (same block size, so of the bytes too).
    let share = r as f64 / (r + w) as f64;
    assert!((0.6..0.8).contains(&share), "{share}");

    // A pure read run needs no --overwrite and leaves the file as it was (after the mix).
    let mid = std::fs::read(&f).unwrap();
    assert_ne!(mid, before, "the mixed run wrote");
    let reads = d.path().join("reads");
    slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--pattern",
            "randread",
            "--qd",
            "8",
            "--duration",
            "1s",
            "--max-bytes",
            "1PB",
        ])
        .args(["--interval", "100ms", "-q", "--out"])
        .arg(&reads)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&f).unwrap(),
        mid,
        "a read run changed the file"
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reads.join("summary.json")).unwrap())
            .unwrap();
    assert!(
        s["analysis"]["bytes_total"].as_u64().unwrap() > 0,
        "analysed on its reads"
    );
    assert!(s["analysis"].get("periodic").is_some());

    // Mixed and read timelines load in analyze and compare.
    slccache()
        .arg("analyze")
        .arg(mixed.join("timeline.csv"))
        .arg(reads.join("timeline.csv"))
        .arg("--json")
        .assert()
        .success();
    slccache()
        .arg("compare")
        .arg(&mixed)
        .arg(&reads)
        .arg("--out")
        .arg(d.path().join("cmp"))
        .assert()
        .success();
    assert!(d.path().join("cmp").join("compare.md").exists());
}

/// Regression: a probe that only read said "wrote 0 B ... nothing was written, so there is no
/// analysis and no report", counted its reads as writes in `totals.writes`, and wrote no
/// charts. It now reports its reads: the final line, the totals, the charts and a report that
/// names no write cache (reads measure none).
pub fn a_read_only_probe_reports_its_reads() {
    let d = scratch();
    let f = filled(d.path(), 4 << 20);
    let out = d.path().join("reads");
    let a = slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--pattern",
            "randread",
            "--qd",
            "4",
            "--duration",
            "1s",
            "--max-bytes",
            "1PB",
        ])
        .args(["--interval", "100ms", "--out"])
        .arg(&out)
        .assert()
        .success();
    let o = a.get_output();
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(err.contains(": read "), "{err}");
    assert!(!err.contains("nothing was written"), "{err}");
    assert!(!err.contains("no cache, or one larger"), "{err}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let t = &s["totals"];
    assert_eq!(t["bytes"], 0);
    assert_eq!(t["writes"], 0, "reads are not writes: {t}");
    let (rb, n) = (
        t["read_bytes"].as_u64().unwrap(),
        t["reads"].as_u64().unwrap(),
    );
    assert!(n > 0 && rb == n * 4096, "{t}");
    assert_eq!(s["analysis"]["read_only"], true);
    assert!(s["analysis"]["cache_estimate"].is_null());
    for w in s["analysis"]["warnings"].as_array().unwrap() {
        assert!(!w.as_str().unwrap().contains("cache"), "{w}");
    }
    for f in [
        "throughput-time.png",
        "card.png",
        "report.md",
        "report.html",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Reads only"), "{md}");
    // analyze of the same timeline says "read", not "written".
    slccache()
        .arg("analyze")
        .arg(out.join("timeline.csv"))
        .assert()
        .success()
        .stdout(contains(": read ").and(contains("written").not()));
}

pub fn reads_of_an_unprepared_block_device_warn() {
    if !is_root() {
        let ci = std::env::var("CI").map(|v| v == "true").unwrap_or(false);
        assert!(
            !ci,
            "CI=true but not running as root; loop devices need root"
        );
        crate::common::skip("loop devices need root (run the tests as root)");
        return;
    }
    let lo = ScratchLoop::filled("probe-reads-loop-", 8 << 20, 1, true);
    let d = scratch();
    slccache()
        .args(["probe", lo.dev(), "--pattern", "randread", "--destroy-data"])
        .args(["--duration", "300ms", "--interval", "100ms", "-q", "--out"])
        .arg(d.path().join("a"))
        .assert()
        .success()
        .stderr(contains("warning: reads of"))
        .stderr(contains("--assume-written"));
    let s = std::fs::read_to_string(d.path().join("a").join("summary.json")).unwrap();
    assert!(s.contains("reads of"), "the warning is in the summary too");
    slccache()
        .args(["probe", lo.dev(), "--pattern", "randread", "--destroy-data"])
        .args([
            "--assume-written",
            "--duration",
            "300ms",
            "--interval",
            "100ms",
            "-q",
        ])
        .arg("--out")
        .arg(d.path().join("b"))
        .assert()
        .success()
        .stderr(contains("warning: reads of").not());
}

/// Regression: a run that only read drew its charts with "GB written" in the subtitle and
/// "data written" on the axis, and report.md headed its charts "Write throughput over data
/// written", though nothing was written. Every chart, report.md's chart headings and
/// report.html's axis switch and tooltip now say "read".
pub fn a_read_only_run_says_read_on_every_chart() {
    let d = scratch();
    let out = d.path().join("reads");
    slccache()
        .args(["probe", "emu:960evo-500g", "--pattern", "seqread"])
        .args(["--max-bytes", "6GB", "--no-record", "-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    let labels = |svg: &str| -> Vec<String> {
        svg.split("aria-label=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next().map(str::to_string))
            .collect()
    };
    for chart in ["throughput-time.svg", "throughput-data.svg", "latency.svg"] {
        let svg = std::fs::read_to_string(out.join(chart)).unwrap();
        let l = labels(&svg);
        assert!(
            l.iter()
                .all(|s| !s.contains("written") && !s.contains("Write")),
            "{chart}: {l:?}"
        );
        assert!(l.iter().any(|s| s.contains("GB read in")), "{chart}: {l:?}");
    }
    let svg = std::fs::read_to_string(out.join("throughput-data.svg")).unwrap();
    assert!(
        labels(&svg).iter().any(|s| s == "data read (GB)"),
        "{:?}",
        labels(&svg)
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let charts = md.split("## Charts").nth(1).expect("a charts section");
    assert!(
        !charts.contains("Write") && !charts.contains("written"),
        "{charts}"
    );
    assert!(
        charts.contains("### Read throughput over data read"),
        "{charts}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!html.contains(">data written<"), "the axis switch");
    assert!(html.contains(">data read<"), "the axis switch");
    assert!(html.contains("\"moved\":\"read\""), "the tooltip's word");
}

/// A read-only probe of 3 samples said "no fall in the read rate" on the line above its own
/// warning "only 3 samples: too few to find a cliff": it now says it cannot tell.
pub fn a_read_only_run_of_too_few_samples_does_not_say_the_rate_held() {
    let d = scratch();
    let out = d.path().join("reads");
    let o = slccache()
        .args(["probe", "emu:960evo-250g", "--pattern", "seqread"])
        .args(["--max-bytes", "5GB", "--no-record", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("too few to find a cliff"),
        "the test needs a short run:\n{text}"
    );
    assert!(!text.contains("no fall in the read rate"), "{text}");
    assert!(
        text.contains("too few samples to tell whether the read rate fell"),
        "{text}"
    );
}
