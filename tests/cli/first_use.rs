//! Regression tests for the defects found by trying slccache as a new user, run
//! through the binary: `analyze` on bad and odd input, position CSVs, `simulate` limits and
//! Ctrl-C, `probe` refusals and warnings, help texts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

fn slccache() -> Command {
    let mut c = crate::common::slccache();
    // A hang guard only: every case here finishes in seconds.
    c.timeout(Duration::from_secs(120));
    c
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("defects-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(c: &mut Command) -> Out {
    let o = c.output().unwrap();
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// A windowed fio log body: 1 s windows at `kib_s` KiB/s, `n` rows.
fn fio_rows(n: usize, kib_s: u64) -> String {
    (1..=n)
        .map(|i| format!("{}, {kib_s}, 1, 1048576, 0\n", i * 1000))
        .collect()
}

/// Runs `simulate` into a fresh folder and returns it.
fn simulated_run(dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("sim");
    let o = run(slccache()
        .args(["simulate", "960evo-250g", "--pattern", "seqwrite", "--out"])
        .arg(&out)
        .args(extra));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    out
}

// ---- analyze -------------------------------------------------------------------------

pub fn analyze_refuses_endless_and_binary_sources() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let d = tmp();
        let o = run(slccache()
            .args(["analyze", dev, "--out"])
            .arg(d.path().join("o")));
        assert_eq!(o.code, Some(2), "{dev}: {}", o.stderr);
        assert!(o.stderr.contains(dev), "{dev}: {}", o.stderr);
        assert!(
            o.stderr.contains("binary") || o.stderr.contains("not a regular file"),
            "{dev}: {}",
            o.stderr
        );
        assert!(!d.path().join("o").exists());
    }
}

pub fn fio_iops_and_latency_logs_are_refused_by_name() {
    let d = tmp();
    let bw = d.path().join("io_bw.1.log");
    std::fs::write(&bw, fio_rows(20, 300_000)).unwrap();
    for kind in ["iops", "lat", "clat", "slat"] {
        let p = d.path().join(format!("io_{kind}.1.log"));
        std::fs::write(&p, fio_rows(20, 97_000)).unwrap();
        let o = run(slccache().arg("analyze").arg(&p));
        assert_eq!(o.code, Some(2), "{kind}: {}{}", o.stdout, o.stderr);
        assert!(
            o.stderr.contains(&format!("io_{kind}.1.log")) && o.stderr.contains("_bw"),
            "{kind}: {}",
            o.stderr
        );
        let o = run(slccache()
            .arg("compare")
            .arg(&bw)
            .arg(&p)
            .arg("--out")
            .arg(d.path().join("cmp")));
        assert_eq!(o.code, Some(2), "compare {kind}: {}", o.stderr);
        assert!(!d.path().join("cmp").exists());
    }
    let o = run(slccache().arg("analyze").arg(&bw));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

pub fn the_headline_rate_is_the_mean_of_the_run() {
    // 30 s at 500 MB/s, then 30 s at 1000 MB/s: 45 GB in 60 s is 750 MB/s.
    let d = tmp();
    let p = d.path().join("rise.csv");
    let mut text = String::from("seconds,MB/s\n");
    for i in 1..=60 {
        text += &format!("{i},{}\n", if i <= 30 { 500 } else { 1000 });
    }
    std::fs::write(&p, text).unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("(750 MB/s mean)"), "{}", o.stdout);
}

pub fn analyze_keeps_the_metadata_of_a_run_folder() {
    let d = tmp();
    let run_dir = simulated_run(d.path(), &["--duration", "40s"]);
    let before: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    // Into another folder: the drive and workload come from the summary beside the timeline.
    let other = d.path().join("other");
    let o = run(slccache()
        .arg("analyze")
        .arg(run_dir.join("timeline.csv"))
        .arg("--out")
        .arg(&other));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(other.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["run"]["device"], before["run"]["device"]);
    assert_eq!(s["run"]["workload"], before["run"]["workload"]);
    let md = std::fs::read_to_string(other.join("report.md")).unwrap();
    assert!(md.contains("960 EVO"), "{md}");
    // Into the run's own folder: the run's metadata and config stay, and it says so.
    let o = run(slccache()
        .arg("analyze")
        .arg(run_dir.join("timeline.csv"))
        .arg("--out")
        .arg(&run_dir));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stderr.contains("summary.json"), "{}", o.stderr);
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(after["run"], before["run"]);
    assert_eq!(after["config"], before["config"]);
    let md = std::fs::read_to_string(run_dir.join("report.md")).unwrap();
    assert!(!md.contains("unknown"), "{md}");
}

pub fn a_truncated_last_line_is_dropped_with_a_warning() {
    let d = tmp();
    let run_dir = simulated_run(d.path(), &["--duration", "30s"]);
    let mut text = std::fs::read_to_string(run_dir.join("timeline.csv")).unwrap();
    let rows = text.lines().count();
    text += "31.000000,1.000000,1234";
    let p = d.path().join("timeline.csv");
    std::fs::write(&p, &text).unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let all = format!("{}{}", o.stdout, o.stderr);
    assert!(
        all.contains("truncated") && all.contains(&format!("line {}", rows + 1)),
        "{all}"
    );
    // A fio log whose last row was cut short.
    let p = d.path().join("cut_bw.1.log");
    std::fs::write(&p, fio_rows(20, 300_000) + "21000, 3000").unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(format!("{}{}", o.stdout, o.stderr).contains("truncated"));
    // A last line cut short that still parses ("80,50" of "80,500") was read in without a
    // word, and moved the rate after the cache: it is read, and said, in every reader (a
    // two-column CSV, a fio log, slccache's own timeline).
    let mut csv = String::from("t_s,MB/s\n");
    for i in 1..=79 {
        csv += &format!("{i},{}\n", if i <= 40 { 2000 } else { 500 });
    }
    let own = std::fs::read_to_string(run_dir.join("timeline.csv")).unwrap();
    for (name, text) in [
        ("cut.csv", format!("{csv}80,50")),
        (
            "cut2_bw.1.log",
            fio_rows(20, 300_000) + "21000, 30, 1, 1048576, 0",
        ),
        ("timeline-cut.csv", own.trim_end().to_string()),
    ] {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let o = run(slccache().arg("analyze").arg(&p));
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        let all = format!("{}{}", o.stdout, o.stderr);
        assert!(all.contains("has no newline at its end"), "{name}: {all}");
    }
    // A bad row in the middle is still an error.
    let p = d.path().join("mid_bw.1.log");
    std::fs::write(
        &p,
        fio_rows(5, 300_000) + "6000, 3000\n" + &fio_rows(5, 300_000),
    )
    .unwrap();
    assert_eq!(run(slccache().arg("analyze").arg(&p)).code, Some(2));
}

pub fn impossible_values_are_refused() {
    let d = tmp();
    let p = d.path().join("huge_bw.1.log");
    std::fs::write(&p, fio_rows(5, 300_000) + "6000, 1e26, 1, 4096, 0\n").unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains(":6"), "{}", o.stderr);
    let p = d.path().join("zero_bw.1.log");
    std::fs::write(&p, fio_rows(10, 0)).unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("nothing was written"), "{}", o.stderr);
}

pub fn a_timeline_saved_by_excel_with_a_bom_reads() {
    let d = tmp();
    let run_dir = simulated_run(d.path(), &["--duration", "20s"]);
    let text = std::fs::read_to_string(run_dir.join("timeline.csv")).unwrap();
    let p = d.path().join("excel.csv");
    std::fs::write(&p, format!("\u{feff}{}", text.replace('\n', "\r\n"))).unwrap();
    let o = run(slccache().arg("analyze").arg(&p));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

/// A unit flag that the header contradicts is refused (exit 2), naming the flag and the
/// header, rather than one of them winning.
pub fn unit_flags_that_a_header_contradicts_are_refused_naming_both() {
    let d = tmp();
    let p = d.path().join("h.csv");
    std::fs::write(&p, "seconds,MB/s\n1,500\n2,500\n3,500\n4,500\n5,500\n").unwrap();
    let o =
        run(slccache()
            .arg("analyze")
            .arg(&p)
            .args(["--time-unit", "ms", "--rate-unit", "GB/s"]));
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("--time-unit ms contradicts the header 'seconds,MB/s'"),
        "{}",
        o.stderr
    );
}

pub fn fio_input_has_no_iops_column_values() {
    let d = tmp();
    let p = d.path().join("x_bw.1.log");
    std::fs::write(&p, fio_rows(10, 300_000)).unwrap();
    let out = d.path().join("o");
    let o = run(slccache().arg("analyze").arg(&p).arg("--out").arg(&out));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let csv = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap();
    let iops = row.split(',').nth(5).unwrap();
    assert_eq!(iops, "", "{row}");
}

pub fn one_format_for_intervals() {
    let fresh =
        repo("tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log");
    let o = run(slccache().arg("analyze").arg(&fresh));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("(95% interval "), "{}", o.stdout);
    let d = tmp();
    let out = d.path().join("s");
    let o = run(slccache()
        .args(["simulate", "960evo-250g", "--pattern", "seqwrite", "--out"])
        .arg(&out));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("(95% interval "), "{}", o.stdout);
    assert!(!o.stdout.contains(" .. "), "{}", o.stdout);
}

// ---- position CSVs ---------------------------------------------------------------------

pub fn a_position_csv_is_read_with_derived_times() {
    // tests/data/position/ssdslowmark-like.csv: one row per 76 MiB written, MiB and MB/s.
    let p = repo("tests/data/position/ssdslowmark-like.csv");
    let o = run(slccache().args(["analyze", "--json"]).arg(&p));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let est = v["cache_estimate"]["bytes"].as_f64().expect("a cliff");
    // The sample's cache ends at 24 GiB written (see the README beside it).
    let truth = 24.0 * 1073741824.0;
    assert!((est / truth - 1.0).abs() < 0.01, "{est} vs {truth}");
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("derived"), "{warnings}");
    let o = run(slccache().arg("analyze").arg(&p));
    assert!(o.stdout.contains("derived"), "{}", o.stdout);
    // The same data without a header, with its units as flags.
    let d = tmp();
    let text = std::fs::read_to_string(&p).unwrap();
    let bare: String = text
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| format!("{l}\n"))
        .collect();
    let q = d.path().join("bare.csv");
    std::fs::write(&q, bare).unwrap();
    let o = run(slccache()
        .args(["analyze", "--json", "--x", "bytes", "--x-unit", "MiB"])
        .args(["--rate-unit", "MB/s"])
        .arg(&q));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let w: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(w["cache_estimate"], v["cache_estimate"]);
    // Positions that go backwards name the line.
    let r = d.path().join("back.csv");
    std::fs::write(&r, "MiB,MB/s\n76,3000\n152,3000\n100,3000\n").unwrap();
    let o = run(slccache().arg("analyze").arg(&r));
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("back.csv:4"), "{}", o.stderr);
}

// ---- simulate --------------------------------------------------------------------------

pub fn simulate_refuses_an_interval_longer_than_the_run_and_endless_runs() {
    let d = tmp();
    let o = run(slccache()
        .args([
            "simulate",
            "960evo-500g",
            "--interval",
            "10h",
            "--duration",
            "1h",
        ])
        .arg("--out")
        .arg(d.path().join("a")));
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("--interval"), "{}", o.stderr);
    let o = run(slccache()
        .args(["simulate", "960evo-500g", "--max-bytes", "1EB"])
        .arg("--out")
        .arg(d.path().join("b")));
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(!d.path().join("a").exists() && !d.path().join("b").exists());
}

pub fn simulate_without_a_cliff_claims_no_impossible_cache() {
    // Seqwrite over a 1 GB span ends its one pass in about 0.6 s (samples of 100 ms, enough
    // to look for a cliff), and the 960 EVO's 22 GB cache does not run out in it: the bound is
    // one pass over the span, not 14 GB.
    let d = tmp();
    let out = d.path().join("s");
    let o = run(slccache()
        .args([
            "simulate",
            "960evo-500g",
            "--pattern",
            "seqwrite",
            "--span",
            "1GB",
            "--interval",
            "100ms",
        ])
        .args(["--duration", "8s", "--out"])
        .arg(&out));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout.contains("no cache, or one larger than 1.00 GB"),
        "{}",
        o.stdout
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["analysis"]["cache_lower_bound_bytes"], 1_000_000_000u64);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("no cache, or one larger than 1.00 GB"), "{md}");
    assert!(!md.contains("at least 2"), "{md}");
}

/// Starts a simulation that would run for 5000 h of virtual time (with `extra` flags) into
/// `out`, waits (hang guard only) until a few rows are written, sends SIGINT and returns what
/// it printed on stdout.
fn interrupted_simulation(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("slccache"))
        .args([
            "simulate",
            "960evo-500g",
            "--duration",
            "5000h",
            // One pass is the limit otherwise, and it ends the run before
            // the signal.
            "--max-bytes",
            "10PB",
            "--interval",
            "1h",
            // The first hour holds the cache's drop, for which the early stop would end
            // the run before the signal.
            "--no-early-stop",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("timeline.csv");
    for _ in 0..3000 {
        let rows = std::fs::read_to_string(&csv)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if rows >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) with a child's pid that we have not waited for yet.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait_with_output().unwrap()
}

pub fn simulate_stops_on_ctrl_c_with_its_outputs() {
    let d = tmp();
    let out = d.path().join("s");
    let o = interrupted_simulation(&out, &[]);
    assert_eq!(o.status.code(), Some(130));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["run"]["stop_reason"], "interrupted");
    assert!(out.join("report.md").is_file());
}

/// `simulate -q`, interrupted, printed its one result line as a finished run's ("cache 13.0
/// GB (...); outputs: DIR"); probe's says "stopped: interrupted".
pub fn simulate_q_says_interrupted_in_its_line() {
    let d = tmp();
    let out = d.path().join("s");
    let o = interrupted_simulation(&out, &["-q"]);
    assert_eq!(o.status.code(), Some(130));
    let line = String::from_utf8_lossy(&o.stdout);
    assert!(line.contains(", stopped: interrupted; "), "{line}");
    assert!(line.contains("; outputs: "), "{line}");
}

pub fn a_bare_number_in_a_model_file_is_refused() {
    let d = tmp();
    let p = d.path().join("m.toml");
    std::fs::write(&p, "preset = \"960evo-500g\"\ncache = 30\n").unwrap();
    let o = run(slccache()
        .arg("simulate")
        .arg(&p)
        .arg("--out")
        .arg(d.path().join("o")));
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("line 2") && o.stderr.contains("unit"),
        "{}",
        o.stderr
    );
    std::fs::write(&p, "preset = \"960evo-500g\"\ncache = 0\n").unwrap();
    let o = run(slccache()
        .arg("simulate")
        .arg(&p)
        .args(["--duration", "5s", "--out"])
        .arg(d.path().join("o2")));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

pub fn scenario_values_out_of_range_name_the_file_and_line() {
    let d = tmp();
    let p = d.path().join("s.toml");
    std::fs::write(&p, "pattern = \"seqwrite\"\ninterval = \"5ms\"\n").unwrap();
    let o = run(slccache()
        .args(["simulate", "960evo-250g", "--scenario"])
        .arg(&p)
        .arg("--out")
        .arg(d.path().join("o")));
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.contains("s.toml") && o.stderr.contains("line 2"),
        "{}",
        o.stderr
    );
}

// ---- probe -----------------------------------------------------------------------------

pub fn probe_prints_the_warnings_and_no_impossible_cache() {
    let d = tmp();
    let o = run(slccache()
        .args(["probe", "emu:pm983-960g", "--duration", "2s", "--out"])
        .arg(d.path().join("p")));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("warning: "), "{}", o.stdout);
    // Two samples of 1 s: too few to see a cliff, so no bound on a cache either.
    assert!(o.stdout.contains("too few to find a cliff"), "{}", o.stdout);
    assert!(!o.stdout.contains("larger than"), "{}", o.stdout);
    assert!(!o.stdout.contains("holds at least"), "{}", o.stdout);
}

pub fn probe_refuses_flags_an_emulated_drive_ignores() {
    // (--destroy-data is taken by every target, with a note where it has no effect:
    // `flags::destroy_data_is_taken_alike_on_every_target_but_a_block_device`.)
    for flags in [
        &["--size", "1GiB"][..],
        &["--overwrite"][..],
        &["--engine", "sync"][..],
        &["--engine", "io-uring-poll"][..],
    ] {
        let d = tmp();
        let o = run(slccache()
            .args(["probe", "emu:960evo-250g", "--duration", "1s", "-q"])
            .args(flags)
            .arg("--out")
            .arg(d.path().join("p")));
        assert_eq!(o.code, Some(2), "{flags:?}: {}", o.stderr);
        assert!(o.stderr.contains(flags[0]), "{flags:?}: {}", o.stderr);
        assert!(!d.path().join("p").exists());
    }
}

pub fn size_does_not_resize_an_existing_file() {
    let d = tmp();
    let f = d.path().join("scratch.bin");
    std::fs::write(&f, vec![0u8; 4 << 20]).unwrap();
    let o = run(slccache()
        .arg("probe")
        .arg(&f)
        .args([
            "--size",
            "1MiB",
            "--overwrite",
            "--duration",
            "1s",
            "-q",
            "--out",
        ])
        .arg(d.path().join("p")));
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("--size"), "{}", o.stderr);
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 4 << 20);
}

pub fn max_bytes_below_one_block_is_refused() {
    let d = tmp();
    let o = run(slccache()
        .args([
            "probe",
            "emu:960evo-250g",
            "--bs",
            "4k",
            "--max-bytes",
            "1k",
            "-q",
        ])
        .arg("--out")
        .arg(d.path().join("p")));
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("--max-bytes"), "{}", o.stderr);
    let o = run(slccache()
        .args(["simulate", "960evo-250g", "--bs", "4k", "--max-bytes", "1k"])
        .arg("--out")
        .arg(d.path().join("s")));
    assert_eq!(o.code, Some(2), "{}", o.stderr);
}

pub fn an_empty_target_is_named_as_empty() {
    let o = run(slccache().args(["probe", ""]));
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(!o.stderr.contains("error:  does not exist"), "{}", o.stderr);
    assert!(o.stderr.contains("empty"), "{}", o.stderr);
}

// ---- help ------------------------------------------------------------------------------

fn help(args: &[&str]) -> String {
    let o = run(slccache().args(args));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    o.stdout
}

pub fn help_texts_say_what_a_new_user_needs() {
    let top = help(&["--help"]);
    let examples: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Examples"))
        .skip(1)
        .collect();
    assert!(!examples[1].contains("--destroy-data"), "{top}");
    let probe = help(&["probe", "--help"]);
    assert!(
        probe.contains("cache=") && probe.contains("slccache presets"),
        "{probe}"
    );
    let interval = probe
        .lines()
        .skip_while(|l| !l.contains("--interval"))
        .take(3)
        .collect::<String>();
    assert!(
        interval.contains("at most") || interval.contains("up to"),
        "{interval}"
    );
    let compare = help(&["compare", "--help"]);
    assert!(!compare.contains("<target>-<timestamp>"), "{compare}");
    let simulate = help(&["simulate", "--help"]);
    let seed = simulate
        .lines()
        .skip_while(|l| !l.contains("--seed"))
        .take(2)
        .collect::<String>();
    assert!(!seed.contains("data"), "{seed}");
    for sub in ["analyze", "simulate", "compare"] {
        let h = help(&[sub, "--help"]);
        assert!(h.contains("Exit codes"), "{sub}: {h}");
    }
    assert!(simulate.contains("Sizes:"), "{simulate}");
    let presets = help(&["presets"]);
    assert!(!presets.contains("AFTER LATER"), "{presets}");
}

// ---- a read-only block device (root) ----------------------------------------------------

/// A read-only loop device (`losetup -r`) over a scratch file; detached on drop.
struct ReadOnlyLoop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Drop for ReadOnlyLoop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
    }
}

pub fn a_read_only_block_device_is_refused_up_front() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but not root: loop devices need root"
        );
        crate::common::skip("needs root");
        return;
    }
    let dir = tmp();
    let backing = dir.path().join("ro.img");
    std::fs::write(&backing, vec![0x5au8; 8 << 20]).unwrap();
    let o = std::process::Command::new("losetup")
        .args(["-f", "--show", "-r"])
        .arg(&backing)
        .output()
        .unwrap();
    let dev = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert!(dev.starts_with("/dev/loop"), "losetup said {dev}");
    let lo = ReadOnlyLoop { dev, _dir: dir };
    let out = tmp();
    let o = run(slccache()
        .args([
            "probe",
            &lo.dev,
            "--destroy-data",
            "--bs",
            "64k",
            "-q",
            "--out",
        ])
        .arg(out.path().join("p")));
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("read-only"), "{}", o.stderr);
    assert!(
        !out.path().join("p").exists(),
        "no output of a run that measured nothing"
    );
}

/// A thermally throttled drop got two opposite explanations ("a temporary
/// slowdown ... a host hiccup" and "thermal throttling ... these drops are heat"), report.md
/// called the throttled phases "after the cache", and it showed no temperature though the
/// timeline has one per interval.
pub fn a_throttled_drop_has_one_explanation_and_the_report_shows_the_heat() {
    let dir = tmp();
    let out = dir.path().join("p5");
    let o = run(slccache()
        .args([
            "simulate",
            "p5-1tb",
            "--pattern",
            "seqwrite",
            "--no-early-stop",
        ])
        .args([
            "--max-bytes",
            "800GB",
            "--seed",
            "2",
            "--no-record",
            "--out",
        ])
        .arg(&out));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let warnings: Vec<&str> = s["analysis"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.iter().any(|w| w.starts_with("thermal throttling")),
        "{warnings:?}"
    );
    for w in &warnings {
        assert!(!w.contains("host hiccup"), "{w}");
    }
    let slowdowns = s["analysis"]["slowdowns"].as_array().unwrap();
    assert!(!slowdowns.is_empty());
    assert!(
        slowdowns.iter().all(|d| d["thermal"] == true),
        "{slowdowns:?}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let throttled: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| Phase ") && l.contains(" 498 MB/s"))
        .collect();
    assert!(!throttled.is_empty(), "{md}");
    for l in &throttled {
        assert!(
            l.contains("thermal throttling") && !l.contains("after the cache"),
            "{l}"
        );
    }
    // Read at the end of the first sample, and said so: at 4 min samples the same model
    // gave "70 °C at the start".
    assert!(
        md.contains("| Temperature over the run | 50 °C after the first 1.00 s sample"),
        "{md}"
    );
}
