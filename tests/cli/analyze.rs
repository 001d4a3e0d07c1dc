//! `slccache analyze` run as a binary: the JSON contract, the human summary, `--out`, and
//! bad input (exit 2, file and line named, no panic).

use std::path::PathBuf;

fn real(file: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-traces");
    assert!(
        dir.is_dir(),
        "missing {}: the real traces are part of the repository",
        dir.display()
    );
    dir.join(file)
}

const FRESH: &str = "biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log";
const MIXED: &str = "biwin_x570_1tb_randrw50_1M_qd32_nocliff.bandwidth_samples.csv";

use crate::common::slccache;

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

pub fn json_has_exactly_the_contract_keys() {
    let out = slccache()
        .args(["analyze", "--json"])
        .arg(real(FRESH))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object per file");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        keys(&v),
        [
            "after_cache",
            "bytes_total",
            "cache_estimate",
            "cache_lower_bound_bytes",
            "cliffs",
            "duration_s",
            "interval_s",
            "periodic",
            "phases",
            "run_id",
            "warnings"
        ]
    );
    assert!(v["run_id"].is_null(), "no folder, so no run recorded");
    let cliff = &v["cliffs"][0];
    assert_eq!(
        keys(cliff),
        [
            "after_bytes_per_sec",
            "before_bytes_per_sec",
            "bytes_written",
            "t_high_s",
            "t_low_s",
            "t_s"
        ]
    );
    assert_eq!(
        keys(&v["cache_estimate"]),
        ["bytes", "high_bytes", "low_bytes"]
    );
    assert!(v["cache_lower_bound_bytes"].is_null());
    for p in v["phases"].as_array().unwrap() {
        assert_eq!(keys(p), ["end_s", "kind", "mean_bytes_per_sec", "start_s"]);
        let kind = p["kind"].as_str().unwrap();
        assert!(
            ["cache", "post_cache", "folding", "steady", "throttled"].contains(&kind),
            "{kind}"
        );
    }
    assert_eq!(v["phases"][0]["kind"], "cache");
    assert_eq!(v["interval_s"], 1.0);
    assert!(v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|w| w.is_string()));
}

pub fn no_cliff_gives_null_estimate_and_a_lower_bound() {
    let out = slccache()
        .args(["analyze", "--json"])
        .arg(real(MIXED))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["cache_estimate"].is_null());
    assert_eq!(v["cache_lower_bound_bytes"], v["bytes_total"]);
    assert_eq!(v["cliffs"].as_array().unwrap().len(), 0);
    assert_eq!(v["phases"][0]["kind"], "steady");
}

pub fn several_files_give_one_json_line_each() {
    let out = slccache()
        .args(["analyze", "--json"])
        .arg(real(FRESH))
        .arg(real(MIXED))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    for l in lines {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
}

pub fn the_line_names_cache_speeds_and_what_was_written() {
    let out = slccache()
        .args(["analyze", "--units", "binary"])
        .arg(real(FRESH))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    // e.g. "...: wrote 90.1 GiB in 36.0 s (2563 MiB/s mean); cache ~73.9 GiB (95% interval
    // ...), 5075 MiB/s in the cache; 834 MiB/s over the ... written in the samples after the last cliff"
    assert!(first.contains(": wrote "), "{first}");
    assert!(first.contains("; cache ~7"), "{first}");
    assert!(first.contains(" GiB (95% interval "), "{first}");
    assert!(first.contains("MiB/s in the cache; "), "{first}");
    assert!(first.contains("MiB/s over the "), "{first}");
    let out = slccache().arg("analyze").arg(real(MIXED)).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("no cliff") && text.contains("at least"),
        "{text}"
    );
}

pub fn out_dir_gets_timeline_and_summary_with_the_same_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let out = slccache()
        .args(["analyze", "--json", "--out"])
        .arg(dir.path())
        .arg(real(FRESH))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The id the run got in the store, beside the analysis summary.json holds.
    assert!(printed["run_id"].is_i64(), "{printed}");
    printed.as_object_mut().unwrap().remove("run_id");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["analysis"], printed);
    let csv = std::fs::read_to_string(dir.path().join("timeline.csv")).unwrap();
    assert!(csv.starts_with("t_s,interval_s,bytes,bytes_total,bytes_per_sec"));
    let rows = std::fs::read_to_string(real(FRESH))
        .unwrap()
        .lines()
        .count();
    assert_eq!(csv.lines().count(), rows + 1, "header + one row per sample");
    // Re-analysing the written timeline gives the same cliff.
    let again = slccache()
        .args(["analyze", "--json"])
        .arg(dir.path().join("timeline.csv"))
        .output()
        .unwrap();
    assert!(again.status.success());
    let v: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    let a = printed["cache_estimate"]["bytes"].as_f64().unwrap();
    let b = v["cache_estimate"]["bytes"].as_f64().unwrap();
    assert!((a - b).abs() / a < 1e-3, "{a} vs {b}");
}

pub fn headerless_csv_with_unit_flags() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("plain.csv");
    let mut text = String::new();
    for i in 1..=120 {
        let v = if i <= 40 { 3000.0 } else { 900.0 };
        text.push_str(&format!("{},{}\n", i * 1000, v + (i % 3) as f64));
    }
    std::fs::write(&p, text).unwrap();
    let out = slccache()
        .args([
            "analyze",
            "--json",
            "--time-unit",
            "ms",
            "--rate-unit",
            "MB/s",
        ])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gb = v["cache_estimate"]["bytes"].as_f64().unwrap() / 1e9;
    assert!((119.0..122.0).contains(&gb), "{gb} GB");
    // Without the flags: a usage error naming the file and line.
    slccache()
        .arg("analyze")
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("plain.csv:1:"))
        .stderr(predicates::str::contains("--time-unit"));
    slccache()
        .args([
            "analyze",
            "--time-unit",
            "fortnights",
            "--rate-unit",
            "MB/s",
        ])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--time-unit"));
}

pub fn bad_input_exits_2_naming_file_and_line_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("empty.csv", "", "empty"),
        (
            "unknown.txt",
            "hello\nworld\n",
            "unknown.txt:1: unknown format",
        ),
        (
            "backwards.csv",
            "second,MB/s\n1,100\n2,100\n1.5,100\n",
            "backwards.csv:4: time goes backwards",
        ),
        (
            "negative.csv",
            "second,MB/s\n1,100\n2,-100\n",
            "negative.csv:3: column 2 must be finite and non-negative",
        ),
        (
            "nan.log",
            "1000, 100, 1, 4096, 0\n2000, NaN, 1, 4096, 0\n",
            "nan.log:2: column 2 must be finite",
        ),
        (
            "reads_bw.1.log",
            "1000, 100, 0, 4096, 0\n2000, 100, 0, 4096, 0\n",
            "reads_bw.1.log:1: fio log without write rows",
        ),
        (
            "timeline.csv",
            "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n1,1,1,1,1\n0.5,1,1,2,1\n",
            "timeline.csv:3: time goes backwards",
        ),
    ];
    for (name, text, want) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = slccache()
            .args(["analyze", "--json"])
            .arg(&p)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(want),
            "{name}: got '{stderr}', want '{want}'"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
    }
    // A missing file is named too.
    slccache()
        .args(["analyze", "/nonexistent/slccache-test.csv"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/slccache-test.csv"));
}

pub fn a_two_sample_cache_phase_in_a_csv_is_found_and_flagged_coarse() {
    // The real-time probe of `emu:960evo-500g,cache=4GB` (1.8 GB/s, 1 s samples) that once
    // came out as "no cliff, at least 14.4 GB".
    let rates = [
        1792, 1806, 848, 602, 603, 603, 606, 587, 419, 600, 582, 586, 586, 597, 606, 603, 587, 586,
        596, 599,
    ];
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("probe.csv");
    let mut text = String::from("time_s,write_MB_s\n");
    for (i, r) in rates.iter().enumerate() {
        text += &format!("{},{r}\n", i + 1);
    }
    std::fs::write(&f, text).unwrap();
    let out = slccache().arg("analyze").arg(&f).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("; cache ~4.0 GB") || text.contains("; cache ~3.9"),
        "{text}"
    );
    assert!(text.contains("sampling too coarse"), "{text}");
    assert!(!text.contains("at least"), "{text}");
}

/// A position CSV (data written against rate) whose rows are 0.1 s long
/// while the drive is fast and 0.5 s after the cliff was said to have "only 5 sample(s) of
/// 0.49504950495049505 s before the cliff; rerun with a shorter --interval", which `analyze`
/// does not have. The count is of the rows before the cliff, the length has units and three
/// digits, and the advice is one `analyze` can follow.
pub fn a_coarse_position_csv_gets_the_right_count_and_advice_analyze_can_follow() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pos.csv");
    let mut text = String::from("written_MB,MB/s\n");
    let mut p = 0;
    for i in 0..120 {
        p += 100;
        let r = if i < 20 {
            1000 + (i % 3) * 5
        } else {
            200 + (i % 3) * 2
        };
        text += &format!("{p},{r}\n");
    }
    std::fs::write(&f, text).unwrap();
    let out = slccache().arg("analyze").arg(&f).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let w = text
        .lines()
        .find(|l| l.contains("sampling too coarse"))
        .unwrap_or_else(|| panic!("{text}"));
    // Twenty samples are not "only" a few: the interval they leave is what is wide.
    assert!(w.contains("over the 20 samples of "), "{w}");
    assert!(w.contains(" ms before the cliff"), "{w}");
    assert!(!w.contains("rerun with a shorter --interval"), "{w}");
    assert!(w.contains("a log from another tool"), "{w}");
    // No number with more than three decimals.
    assert!(
        !w.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .any(|n| n.split_once('.').is_some_and(|(_, d)| d.len() > 3)),
        "{w}"
    );
}

pub fn a_diskspd_xml_result_is_analysed_and_its_cliff_found() {
    let xml = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/diskspd/seqwrite_128k_2threads_D.xml");
    let out = slccache()
        .args(["analyze", "--json"])
        .arg(&xml)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cliffs"].as_array().unwrap().len(), 1, "{v}");
    let bytes = v["cache_estimate"]["bytes"].as_f64().unwrap();
    assert!((bytes / 30e9 - 1.0).abs() < 0.01, "{v}");
}

/// Regression: an imported log of one 13.6-minute sample said "816 s interval" in its
/// workload line (report.md, the charts' footer, the card), an interval nobody chose. It now
/// says what was measured: one sample of 13.6 min.
pub fn one_sample_of_an_import_is_no_interval() {
    let d = tempfile::Builder::new()
        .prefix("analyze-one-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let csv = d.path().join("one.csv");
    std::fs::write(&csv, "time_s,MB/s\n816,500\n").unwrap();
    let out = d.path().join("out");
    slccache()
        .arg("analyze")
        .arg(&csv)
        .args(["--no-record", "-q", "--out"])
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| Workload |"))
        .expect("a workload row");
    assert!(row.contains("one sample of 13.6 min"), "{row}");
    assert!(!row.contains("interval"), "{row}");
}

/// Regression: `analyze` of a log of rates with a late window (rows 1 s apart, one 10 s after
/// the row before) says that 4.50 GB of what it counts are assumed, not read; `analyze` of the
/// `timeline.csv` it wrote, the same rows, said nothing of it. The note now follows the rows
/// through every re-analysis, and a timeline whose rows slccache sampled gets none.
pub fn a_late_window_is_still_said_assumed_when_its_timeline_is_analysed_again() {
    let d = tempfile::Builder::new()
        .prefix("analyze-late-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let csv = d.path().join("late.csv");
    let mut text = String::from("time_s,MB/s\n");
    let mut t = 0;
    for i in 1..=120 {
        t += if i == 60 { 10 } else { 1 };
        text.push_str(&format!("{t},{}\n", if t < 50 { 2000 } else { 500 }));
    }
    std::fs::write(&csv, text).unwrap();
    let analyse = |file: &std::path::Path, out: &str| {
        let o = slccache()
            .arg("analyze")
            .arg(file)
            .args(["--no-record", "--out"])
            .arg(d.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // The result line and its warnings (stdout), with any note (stderr).
        let said =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.path().join(out).join("summary.json")).unwrap(),
        )
        .unwrap();
        (said, summary)
    };
    let said = "1 row follows a late or missing window (the longest: 10 s before the row at \
                69 s, 10.0 times the typical 1 s)";
    let assumed = "so 4.50 GB of the 138 GB written are assumed, not read";
    let mut file = csv.clone();
    for out in ["a", "b", "c"] {
        let (text, summary) = analyse(&file, out);
        assert!(
            text.contains(said) && text.contains(assumed),
            "{out}: {text}"
        );
        let warnings = summary["analysis"]["warnings"].to_string();
        assert!(warnings.contains(assumed), "{out}: {warnings}");
        file = d.path().join(out).join("timeline.csv");
    }
    // A simulated run's rows were all counted: its timeline analysed again assumes nothing.
    let sim = d.path().join("sim");
    slccache()
        .args([
            "--no-record",
            "simulate",
            "960evo-500g",
            "--seed",
            "1",
            "-q",
        ])
        .arg("--out")
        .arg(&sim)
        .assert()
        .success();
    let (text, _) = analyse(&sim.join("timeline.csv"), "d");
    assert!(!text.contains("assumed, not read"), "{text}");
}

/// A real-time emulated probe that fell short of its model (a loaded host) says so; `analyze`
/// of its `timeline.csv` said nothing of it (`emulation_fell_short` was true in the probe's
/// summary and absent in the analysis's, and the card of the analysis read the host's rates
/// as the model's). The figures of `summary.json`'s `config.emulation` are said again, and kept
/// for the next analysis of that folder.
pub fn an_emulation_that_fell_short_is_said_again_when_its_timeline_is_analysed() {
    let d = tempfile::Builder::new()
        .prefix("analyze-emu-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let run = d.path().join("probe");
    let o = slccache()
        .args([
            "--no-record",
            "probe",
            "emu:960evo-250g,cache=300MB",
            "--max-bytes",
            "300MB",
            "--interval",
            "50ms",
            "--no-early-stop",
            "-q",
            "--out",
        ])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The host could not keep up: a tenth of the model's rate, with stalls (the figures a
    // loaded machine gives; set here so that the test does not depend on the load).
    let path = run.join("summary.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let e = &mut v["config"]["emulation"];
    assert!(e.is_object(), "an emulated probe keeps its figures: {v}");
    let model = e["model_bytes_per_sec"].as_f64().unwrap();
    e["achieved_bytes_per_sec"] = serde_json::json!(model / 10.0);
    e["host_stalls"] = serde_json::json!(52);
    e["host_stalls_s"] = serde_json::json!(3.5);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let mut file = run.join("timeline.csv");
    for out in ["a", "b"] {
        let o = slccache()
            .args(["--no-record", "analyze"])
            .arg(&file)
            .arg("--out")
            .arg(d.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(
            said.contains("the emulation fell short of its model")
                && said.contains("(10 % of it)")
                && said.contains("in 52 stalls of the host"),
            "{out}: {said}"
        );
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.path().join(out).join("summary.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(s["analysis"]["emulation_fell_short"], true, "{out}");
        file = d.path().join(out).join("timeline.csv");
    }
}

/// `analyze DIR/bursts/00-first.csv` of a recovery's burst recorded a run of no drive
/// ("00-first (drive not recorded)" in `runs --by drive`): the burst files hold no drive and
/// only a `timeline.csv` took it from a `summary.json` beside it. A burst's timeline now takes
/// the drive and workload from its experiment's `summary.json` above `bursts/`, named by the
/// drive and the burst as the experiment names it; `compare` of a burst file does the same.
pub fn a_bursts_timeline_is_analysed_with_its_experiments_drive() {
    let d = tempfile::Builder::new()
        .prefix("analyze-burst-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let exp = d.path().join("recovery");
    let o = slccache()
        .args([
            "--no-record",
            "recovery",
            "emu:970evo-500g",
            "--simulate",
            "--idle",
            "10s",
            "--seed",
            "7",
            "-q",
            "--out",
        ])
        .arg(&exp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model = "Samsung SSD 970 EVO 500GB (simulated)";
    let db = d.path().join("runs.db");
    let o = slccache()
        .arg("analyze")
        .arg(exp.join("bursts/00-first.csv"))
        .arg("--out")
        .arg(d.path().join("a"))
        .arg("--db")
        .arg(&db)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = slccache()
        .args(["runs", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs[0]["model"], model, "{runs}");
    assert_eq!(runs[0]["label"], format!("{model}, first burst"), "{runs}");
    assert_eq!(runs[0]["workload"]["block_size"], 131072, "{runs}");
    let o = slccache()
        .args(["runs", "--by", "drive", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains(model) && !table.contains("not recorded"),
        "{table}"
    );
    // compare of two bursts of the experiment: each named by the drive and its burst.
    let o = slccache()
        .arg("compare")
        .arg(exp.join("bursts/00-first.csv"))
        .arg(exp.join("bursts/01-idle-10s.csv"))
        .arg("--out")
        .arg(d.path().join("c"))
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(d.path().join("c/compare.md")).unwrap();
    assert!(
        md.contains(&format!("{model}, first burst"))
            && md.contains(&format!("{model}, idle 10 s")),
        "{md}"
    );
}

/// `analyze` of a run's own timeline said less than the run: the burst of a recovery that
/// Ctrl-C ended lost "interrupted" (a burst's timeline took no stop reason from its
/// experiment), and a `simulate --duration 30m --no-early-stop` that one pass ended short of
/// its 30 min lost the warning that said so. Both are read from the run's summary.json now.
pub fn analyze_of_a_runs_timeline_keeps_its_interruption_and_short_duration() {
    let d = tempfile::Builder::new()
        .prefix("analyze-again-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let exp = d.path().join("recovery");
    let o = slccache()
        .args(["--no-record", "recovery", "emu:970evo-500g", "--simulate"])
        .args(["--idle", "10s", "--seed", "7", "-q", "--out"])
        .arg(&exp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The first burst as Ctrl-C leaves it in the experiment's summary.
    let path = exp.join("summary.json");
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    s["recovery"]["first_burst"]["end"] = "interrupted".into();
    std::fs::write(&path, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    let o = slccache()
        .args(["--no-record", "analyze"])
        .arg(exp.join("bursts/00-first.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("stopped: interrupted"), "{text}");
    // A later burst, not interrupted, says no such thing.
    let o = slccache()
        .args(["--no-record", "analyze"])
        .arg(exp.join("bursts/01-idle-10s.csv"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && !text.contains("interrupted"),
        "{text}"
    );

    let run = d.path().join("sim");
    let o = slccache()
        .args([
            "--no-record",
            "simulate",
            "960evo-250g",
            "--duration",
            "30m",
        ])
        .args(["--no-early-stop", "-q", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = "one pass over the span written ended the run at";
    let s = std::fs::read_to_string(run.join("summary.json")).unwrap();
    assert!(s.contains(said), "the run says it");
    let o = slccache()
        .args(["--no-record", "analyze"])
        .arg(run.join("timeline.csv"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains(said), "{text}");
}
