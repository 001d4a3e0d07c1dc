//! `slccache compare` end to end: run folders, timeline files and fio logs in, charts and a
//! side-by-side table out; bad inputs are usage errors (exit 2) that name the file.

use crate::common::report_util;

use std::path::{Path, PathBuf};

use report_util::*;
use slccache::report::{write_summary, Summary, Totals};
use slccache::timeline::{CsvWriter, Timeline};

/// Writes a run folder as `probe` does: timeline.csv and summary.json.
fn run_folder(root: &Path, name: &str, t: &Timeline) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    CsvWriter::write_all(&dir.join("timeline.csv"), t).unwrap();
    let summary = Summary {
        slccache_version: slccache::VERSION.into(),
        origin: None,
        config: serde_json::json!({}),
        model_truth: None,
        run: t.meta.clone(),
        totals: Totals::default(),
        interrupted: false,
        error: None,
        analysis: slccache::detect::analyze(t),
        findings: None,
        stop: None,
        host: None,
        drive_state: None,
    };
    write_summary(&dir, &summary).unwrap();
    dir
}

use crate::common::slccache;

pub fn three_run_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let drives = three_drives();
    let dirs: Vec<PathBuf> = drives
        .iter()
        .map(|(t, _)| run_folder(tmp.path(), &format!("run-{}", t.meta.label), t))
        .collect();
    let out = tmp.path().join("cmp");
    let assert = slccache()
        .arg("compare")
        .args(&dirs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for f in [
        "compare-throughput-time.png",
        "compare-throughput-time.svg",
        "compare-throughput-data.png",
        "compare-throughput-data.svg",
        "compare.md",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // One line naming the runs and the folder, as every subcommand ends ("compared 3 runs"
    // alone said nothing of which).
    let names: Vec<String> = drives.iter().map(|(t, _)| t.meta.label.clone()).collect();
    assert_eq!(
        stdout.trim(),
        format!(
            "compared 3 runs ({}); outputs: {}",
            names.join(", "),
            out.display()
        )
    );
    assert_eq!(
        png_info(&out.join("compare-throughput-data.png")).0,
        (1600, 900)
    );
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    // Labels, models and workloads come from each folder's summary.json.
    assert!(
        md.contains("| | 960evo-250g | 960evo-500g | 960evo-1tb |"),
        "{md}"
    );
    assert!(md.contains("Samsung SSD 960 EVO 1TB, 1.00 TB, firmware 3B7QCXE7"));
    assert!(md.contains("seqwrite, 128 KiB blocks, QD32"));
    let svg = std::fs::read_to_string(out.join("compare-throughput-time.svg")).unwrap();
    let texts = svg_texts(&svg).unwrap();
    for label in ["960evo-250g", "960evo-500g", "960evo-1tb"] {
        assert!(
            texts.iter().any(|t| t.trim() == label),
            "legend lacks {label}"
        );
    }
}

pub fn timeline_files_with_units_and_size() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = clean_cliff();
    let (b, _) = no_cliff();
    // Bare timeline files (no summary.json next to them): labels from the file names.
    let fa = tmp.path().join("drive-a.csv");
    let fb = tmp.path().join("drive-b.csv");
    CsvWriter::write_all(&fa, &a).unwrap();
    CsvWriter::write_all(&fb, &b).unwrap();
    let out = tmp.path().join("cmp");
    slccache()
        .args(["compare"])
        .arg(&fa)
        .arg(&fb)
        .args(["--units", "binary", "--png-size", "800x450", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        png_info(&out.join("compare-throughput-time.png")).0,
        (800, 450)
    );
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| | drive-a | drive-b |"), "{md}");
    assert!(md.contains("GiB"));
    let svg = std::fs::read_to_string(out.join("compare-throughput-data.svg")).unwrap();
    assert!(svg_texts(&svg)
        .unwrap()
        .iter()
        .any(|t| t.trim() == "data written (GiB)"));
}

pub fn same_names_are_told_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, _) = clean_cliff();
    let d1 = run_folder(&tmp.path().join("x"), "run", &t);
    let d2 = run_folder(&tmp.path().join("y"), "run", &t);
    let out = tmp.path().join("cmp");
    slccache()
        .arg("compare")
        .arg(&d1)
        .arg(&d2)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    // Same drive: told apart by start time, and by a number when that is the same too.
    assert!(
        md.contains("| | 960evo-500g, 20:00:00 | 960evo-500g, 20:00:00 (2) |"),
        "{md}"
    );
}

pub fn fio_log_next_to_a_run_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, _) = clean_cliff();
    let dir = run_folder(tmp.path(), "run-a", &t);
    // A fio bandwidth log: time_ms, KiB/s, ddir, bs, offset.
    let log = tmp.path().join("drive_bw.1.log");
    let mut text = String::new();
    for i in 1..=60 {
        let kib = if i <= 20 { 1_300_000 } else { 580_000 };
        text.push_str(&format!("{}, {kib}, 1, 131072, 0\n", i * 1000));
    }
    std::fs::write(&log, text).unwrap();
    if let Err(e) = slccache::timeline::import::load(&log) {
        panic!("the fio log is not read: {e:#}");
    }
    let out = tmp.path().join("cmp");
    slccache()
        .arg("compare")
        .arg(&dir)
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| 960evo-500g |"), "{md}");
    assert!(md.contains("drive_bw"), "{md}");
}

pub fn bad_inputs_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, _) = clean_cliff();
    let good = run_folder(tmp.path(), "good", &t);
    let missing = tmp.path().join("nope");
    slccache()
        .arg("compare")
        .arg(&good)
        .arg(&missing)
        .arg("--out")
        .arg(tmp.path().join("o1"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nope"));
    let empty = tmp.path().join("empty-folder");
    std::fs::create_dir(&empty).unwrap();
    slccache()
        .arg("compare")
        .arg(&good)
        .arg(&empty)
        .arg("--out")
        .arg(tmp.path().join("o2"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no timeline.csv"));
    let broken = run_folder(tmp.path(), "broken", &t);
    std::fs::write(broken.join("summary.json"), "{ not json").unwrap();
    slccache()
        .arg("compare")
        .arg(&good)
        .arg(&broken)
        .arg("--out")
        .arg(tmp.path().join("o3"))
        .assert()
        // A broken summary.json beside a good timeline is a warning (the
        // run is compared without its drive and workload names), as in analyze.
        .code(0)
        .stderr(predicates::str::contains("summary.json"))
        .stderr(predicates::str::contains("warning"));
    slccache()
        .arg("compare")
        .arg(&good)
        .arg(&good)
        .args(["--png-size", "10x10", "--out"])
        .arg(tmp.path().join("o4"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--png-size"));
    // Only one run: clap refuses.
    slccache().arg("compare").arg(&good).assert().code(2);
}

pub fn a_diskspd_xml_result_next_to_a_run_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, _) = clean_cliff();
    let dir = run_folder(tmp.path(), "run-a", &t);
    let xml = tmp.path().join("diskspd-seq.xml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/diskspd/seqwrite_128k_2threads_D.xml"),
        &xml,
    )
    .unwrap();
    let out = tmp.path().join("cmp");
    slccache()
        .arg("compare")
        .arg(&dir)
        .arg(&xml)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| diskspd-seq |"), "{md}");
    // The cache of the DiskSPD run: 30.0 GB.
    assert!(md.contains("30.0 GB") || md.contains("30 GB"), "{md}");
}

/// The comparison's subtitle gave each run's cache with its interval, but not the link whose
/// limit a run's rate in the cache was at, which the run's own chart subtitle ("cache rate at
/// the SATA 6.0 Gb/s link's limit"), its report and `runs` all name. Now it names it for that
/// run, in a few runs and in many (where the subtitle counts the runs instead).
pub fn the_subtitle_names_the_link_a_run_s_cache_rate_was_at() {
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    for (dir, model) in [
        ("sata", "870evo-4tb,in=560MB/s"),
        ("nvme", "960evo-250g"),
        ("hidden", "870evo-4tb,link=sata-3g"),
        ("p5", "p5-1tb"),
    ] {
        slccache()
            .args([
                "--no-record",
                "simulate",
                model,
                "--seed",
                "1",
                "-q",
                "--out",
            ])
            .arg(w.join(dir))
            .assert()
            .success();
    }
    // The subtitle of each comparison chart, as its SVG labels it.
    let subtitles = |out: &str| -> Vec<String> {
        ["compare-throughput-time.svg", "compare-throughput-data.svg"]
            .iter()
            .map(|f| {
                let svg = std::fs::read_to_string(w.join(out).join(f)).unwrap();
                svg.replace("&apos;", "'")
                    .split("aria-label=\"")
                    .skip(1)
                    .filter_map(|s| s.split('"').next())
                    .find(|s| s.contains("SLC cache"))
                    .unwrap_or_else(|| panic!("no subtitle in {out}/{f}"))
                    .to_string()
            })
            .collect()
    };
    let limit = "cache rate at the SATA 6.0 Gb/s link's limit";
    slccache()
        .current_dir(w)
        // Short names, so that each run's clause fits the line (a drive made with options is
        // named with them, "..., in=560MB/s", which leaves room for the counted form only).
        .args([
            "compare",
            "sata",
            "nvme",
            "--label",
            "sata,nvme",
            "--out",
            "two",
        ])
        .assert()
        .success();
    for s in subtitles("two") {
        // The SATA run's size with its interval, then its link; the other run's without.
        let runs: Vec<&str> = s.split("  ·  ").collect();
        assert_eq!(runs.len(), 3, "{s}");
        assert!(
            runs[1].contains(" to ") && runs[1].ends_with(&format!("), {limit}")),
            "{s}"
        );
        assert!(runs[2].contains(" to ") && !runs[2].contains("link"), "{s}");
    }
    // The table's text says what it may mean.
    let md = std::fs::read_to_string(w.join("two/compare.md")).unwrap();
    assert!(
        md.contains("cache phase limited by the SATA 6.0 Gb/s link"),
        "{md}"
    );
    // Too many for one line: the runs counted, the link's limit among them.
    slccache()
        .current_dir(w)
        .args(["compare", "sata", "nvme", "hidden", "p5", "--out", "four"])
        .assert()
        .success();
    for s in subtitles("four") {
        assert!(s.starts_with("4 runs  ·  "), "{s}");
        assert!(
            s.contains(&format!("  ·  {limit} in 1 of 4 runs  ·  ")),
            "{s}"
        );
    }
}
