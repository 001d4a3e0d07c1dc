//! The early stop through the real binary: `simulate` in virtual time and `probe` against a
//! small emulated drive in real time. The run stops once the cliff is certain, after the
//! hold time, and its estimate matches a `--no-early-stop` run of the same seed.

use std::path::Path;

use predicates::str::contains;

use crate::common::slccache;

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The early-stop run's estimate holds the full run's within its interval (give or take
/// the 0.5% the rule allows between analyses).
fn assert_matches(early: &serde_json::Value, full: &serde_json::Value) {
    let e = &early["analysis"]["cache_estimate"];
    let full_bytes = f(&full["analysis"]["cache_estimate"]["bytes"]);
    let slack = 0.005 * f(&e["bytes"]);
    assert!(
        f(&e["low_bytes"]) - slack <= full_bytes && full_bytes <= f(&e["high_bytes"]) + slack,
        "early {e} vs full {full_bytes}"
    );
}

pub fn simulate_stops_after_the_hold_and_agrees_with_the_full_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("early"), tmp.path().join("full"));
    let args = [
        "simulate",
        "960evo-500g",
        "--pattern",
        "seqwrite",
        "--seed",
        "3",
    ];
    slccache()
        .args(args)
        .args(["--max-bytes", "200GB", "--out"])
        .arg(&a)
        .assert()
        .success()
        .stdout(contains("cliff confirmed"));
    slccache()
        .args(args)
        .args(["--max-bytes", "200GB", "--no-early-stop", "--out"])
        .arg(&b)
        .assert()
        .success()
        .stdout(contains("byte limit reached"));
    let (early, full) = (summary(&a), summary(&b));
    assert_eq!(early["run"]["stop_reason"], "cliff_confirmed");
    assert_eq!(full["run"]["stop_reason"], "max_bytes");
    let st = &early["stop"];
    assert_eq!(st["reason"], "cliff_confirmed");
    assert_eq!(st["early_stop"], true);
    // The cache phase (22 GB at 1.8 GB/s, about 12 s) is shorter than the default hold.
    assert_eq!(f(&st["hold_s"]), 30.0);
    let cliff_t = f(&early["analysis"]["cliffs"][0]["t_s"]);
    let end = f(&early["totals"]["duration_s"]);
    // Virtual time: the stop comes at the first analysis after cliff + hold (one 1 s sample).
    assert!(
        end >= cliff_t + 30.0 && end <= cliff_t + 30.0 + 1.0 + 1e-6,
        "cliff {cliff_t} s, end {end} s"
    );
    assert_eq!(f(&st["cliff_confirmed_at_s"]), end);
    let total = early["totals"]["bytes"].as_u64().unwrap();
    assert_eq!(st["bytes_written"].as_u64().unwrap(), total);
    let cliff = st["cliff_bytes"].as_u64().unwrap();
    assert_eq!(st["bytes_after_cliff"].as_u64().unwrap(), total - cliff);
    assert!(total < 200_000_000_000 / 2, "{total}");
    assert_matches(&early, &full);
    let fs = &full["stop"];
    assert_eq!(fs["early_stop"], false);
    assert!(fs["cliff_confirmed_at_s"].is_null());
    assert_eq!(fs["bytes_written"].as_u64().unwrap(), 200_000_000_000);
}

pub fn a_long_cache_phase_holds_longer() {
    // 660p: 140 GB of cache at 1.8 GB/s, about 78 s, so the hold is the cache phase.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    slccache()
        .args([
            "simulate",
            "660p-1tb",
            "--pattern",
            "seqwrite",
            "--seed",
            "1",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let s = summary(&dir);
    assert_eq!(s["run"]["stop_reason"], "cliff_confirmed");
    let cliff_t = f(&s["analysis"]["cliffs"][0]["t_s"]);
    let hold = f(&s["stop"]["hold_s"]);
    assert!(
        hold > 30.0 && hold <= 120.0 && (hold - cliff_t).abs() < 2.0,
        "{hold}"
    );
    assert!(f(&s["totals"]["duration_s"]) >= cliff_t + hold);
}

pub fn no_cliff_no_early_stop() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("n");
    slccache()
        .args(["simulate", "pm983-960g", "--duration", "5m", "--out"])
        .arg(&dir)
        .assert()
        .success()
        .stdout(contains("duration reached"));
    let s = summary(&dir);
    assert!(s["stop"]["cliff_bytes"].is_null());
    assert!(s["stop"]["bytes_after_cliff"].is_null());
}

pub fn bad_after_cliff_is_a_usage_error() {
    for bad in ["0s", "later"] {
        slccache()
            .args(["simulate", "960evo-500g", "--after-cliff", bad])
            .assert()
            .code(2)
            .stderr(contains("--after-cliff"));
    }
    slccache()
        .args([
            "simulate",
            "960evo-500g",
            "--after-cliff",
            "5s",
            "--no-early-stop",
        ])
        .assert()
        .code(2);
}

/// A small, noise-free emulated drive: 1 GB of cache at 1 GB/s, then 250 MB/s.
const EMU: &str = "emu:960evo-500g,cache=1GB,in=1GB/s,after=250MB/s,noise=0,dips=0";

/// Runs a probe of [`EMU`]; returns the summary, stdout and stderr.
fn probe(dir: &Path, extra: &[&str]) -> (serde_json::Value, String, String) {
    let out = slccache()
        .args([
            "probe",
            EMU,
            "--pattern",
            "seqwrite",
            "--bs",
            "1M",
            "--qd",
            "8",
        ])
        .args(["--interval", "200ms", "--seed", "1", "--out"])
        .arg(dir)
        .args(extra)
        .assert()
        .success();
    let o = out.get_output();
    (
        summary(dir),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

pub fn emulated_probe_stops_at_the_cliff_and_agrees_with_the_full_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (early, out, err) = probe(
        &tmp.path().join("early"),
        &["--after-cliff", "5s", "--max-bytes", "5GB", "--quiet"],
    );
    // --quiet: nothing but the final line, and on stderr the line that names the run's id in
    // the store (automation reads it).
    assert!(
        err.lines().count() == 1 && err.starts_with("recorded as run "),
        "stderr of a quiet run: {err}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("stopped: cliff confirmed"), "{out}");
    // The final line gives the rate in the cache as the card and report.md do (it gave only
    // the whole run's mean).
    let in_cache = slccache::units::format_rate(
        f(&early["analysis"]["phases"][0]["mean_bytes_per_sec"]),
        slccache::units::UnitSystem::Decimal,
    );
    assert!(
        out.contains(&format!(", {in_cache} in the cache; ")),
        "{out}"
    );
    let md = std::fs::read_to_string(tmp.path().join("early/report.md")).unwrap();
    assert!(md.contains(&format!("SLC cache: {in_cache} (")), "{md}");
    // Not quiet, stderr not a terminal (captured): one plain progress line every 10 s. The
    // run takes more than 13 s (1 s in the cache, 12 s after it).
    let (full, _, err) = probe(
        &tmp.path().join("full"),
        &["--no-early-stop", "--max-bytes", "4GB"],
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("probe: ")).collect();
    assert!(!lines.is_empty(), "no progress line in {err:?}");
    for l in &lines {
        assert!(!l.contains('\r') && !l.contains('\x1b'), "{l:?}");
        // Elapsed, data written, the rate now, the cliff, % and ETA of the byte limit.
        assert!(
            l.contains(" s, ")
                && l.contains(" GB written, ")
                && l.contains("MB/s, ")
                && l.contains("cliff at ")
                && l.contains("% of 4.00 GB, ETA "),
            "{l}"
        );
    }
    assert!(lines.len() <= 2, "one line every 10 s, not more: {lines:?}");
    assert_eq!(early["run"]["stop_reason"], "cliff_confirmed", "{early:#}");
    assert_eq!(full["run"]["stop_reason"], "max_bytes");
    let st = &early["stop"];
    let cliff_t = f(&early["analysis"]["cliffs"][0]["t_s"]);
    assert_eq!(f(&st["hold_s"]), 5.0);
    // The rule said stop only once the level after the cliff had held for the hold time.
    assert!(f(&st["cliff_confirmed_at_s"]) >= cliff_t + 5.0, "{st:#}");
    let est = f(&early["analysis"]["cache_estimate"]["bytes"]);
    assert!((est / 1e9 - 1.0).abs() < 0.02, "{est}");
    // It wrote less than the full run, and says how much after the cliff.
    let total = early["totals"]["bytes"].as_u64().unwrap();
    assert!(total < 4_000_000_000, "{total}");
    assert_eq!(
        st["bytes_after_cliff"].as_u64().unwrap(),
        total - st["cliff_bytes"].as_u64().unwrap()
    );
    assert_matches(&early, &full);
}

/// On a terminal (a pty made by `script`), Ctrl-C clears the progress line before the final
/// line is printed.
pub fn ctrl_c_clears_the_progress_line() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(!ci, "CI=true but no `script` (bsdutils) to make a terminal");
        eprintln!(
            "ctrl_c_clears_the_progress_line: skipped: no `script` (bsdutils) to make a terminal"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pty-run");
    let log = tmp.path().join("typescript");
    let cmd = format!(
        "{} probe {EMU} --pattern seqwrite --bs 1M --duration 60s --out {}",
        env!("CARGO_BIN_EXE_slccache"),
        out.display()
    );
    let mut child = std::process::Command::new("script")
        .args(["-qfc", &cmd])
        .arg(&log)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the probe draws its line, then interrupt the probe itself.
    let mut text = String::new();
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("GB written") {
            break;
        }
    }
    assert!(
        text.contains("\x1b[2Kprobe: "),
        "no progress line: {text:?}"
    );
    // The probe itself (not the shell `script` started it with): the process named
    // slccache whose command line names this run's folder.
    let want = out.display().to_string();
    let pid: i32 = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .find(|p| {
            let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            comm.trim() == "slccache" && String::from_utf8_lossy(&cmd).contains(&want)
        })
        .expect("the probe's pid");
    // SAFETY: kill(2) with a pid we found and SIGINT; no memory is involved.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let last_draw = text.rfind("probe: ").unwrap();
    let final_line = text.find("stopped: interrupted").expect("the final line");
    assert!(final_line > last_draw, "{text:?}");
    assert!(
        text[last_draw..final_line].contains("\x1b[2K"),
        "the progress line was not cleared: {:?}",
        &text[last_draw..final_line]
    );
}

/// The burst building block on a real-time emulated drive: write until the cliff is
/// certain, idle while the drive folds its cache, write again: the cache is back.
pub fn bursts_on_an_emulated_drive_see_the_cache_come_back() {
    use slccache::config::WorkloadConfig;
    use slccache::detect::stop::StopConfig;
    use slccache::device::{inspect, open_for_write, OpenRequest};
    use slccache::workload::{EngineKind, Pattern};

    // 500 MB/s in the cache: the cliff comes after 1 s, ten samples in, and one sample holds
    // 50 MB (10% of the cache), so a late sample on a loaded machine moves little.
    let spec = "emu:960evo-500g,cache=500MB,in=500MB/s,after=125MB/s,noise=0,dips=0,\
                recover=10GB/s,recover_delay=0.3s";
    let req = OpenRequest::default();
    let target = open_for_write(inspect(spec, &req).unwrap(), &req, &mut |_| Ok(false)).unwrap();
    let cfg = WorkloadConfig {
        pattern: Pattern::Seqwrite,
        block_size: 1 << 20,
        queue_depth: 8,
        interval: std::time::Duration::from_millis(100),
        max_bytes: Some(5_000_000_000),
        ..WorkloadConfig::resolve(&Default::default()).unwrap()
    };
    let stop = StopConfig {
        early_stop: true,
        after_cliff_s: 4.0,
        ..StopConfig::default()
    };
    let tmp = tempfile::tempdir().unwrap();
    let span = target.info.capacity;
    let opts = slccache::report::ReportOptions::default();
    let mut caches = Vec::new();
    for k in 0..2 {
        let dir = tmp.path().join(format!("burst-{k}"));
        let o = slccache::experiment::burst::burst(
            &target,
            &cfg,
            span,
            stop,
            EngineKind::IoUring,
            &dir,
            true,
            &opts,
        )
        .unwrap();
        let est = o.rule.estimate().map(|e| e.cache.clone());
        eprintln!(
            "burst {k}: stopped {:?} after {} samples; cache {:?}",
            o.stop,
            o.samples.len(),
            est.as_ref().map(|c| (c.low_bytes, c.bytes, c.high_bytes))
        );
        assert_eq!(o.stop, slccache::timeline::StopReason::CliffConfirmed);
        assert!(dir.join("timeline.csv").is_file());
        caches.push(est.expect("an estimate").bytes as f64);
        // Idle longer than the delay plus the folding (0.5 GB at 10 GB/s).
        std::thread::sleep(std::time::Duration::from_millis(1000));
    }
    // Within one sample's bytes (50 MB) of the 500 MB cache, both times.
    for c in &caches {
        assert!((c - 5e8).abs() <= 5e7, "{caches:?}");
    }
}

/// A cache that runs out inside the first sample was never confirmed, so the probe wrote the
/// whole drive (250 GB in 14 minutes on `emu:960evo-250g,cache=1GB`). The run now warns as
/// soon as it sees the drop, says on the progress line when it stops for it, and stops once
/// the level after it has held for the hold time (here `--after-cliff 3s`).
pub fn a_cache_gone_inside_the_first_sample_is_warned_of_and_ends_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("first");
    let out = slccache()
        .args([
            "--no-record",
            "probe",
            "emu:960evo-250g,cache=1GB",
            "--pattern",
            "seqwrite",
            "--after-cliff",
            "3s",
            "--max-bytes",
            "30GB",
            "--seed",
            "1",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let s = summary(&dir);
    assert_eq!(s["run"]["stop_reason"], "first_sample_drop", "{s:#}");
    // No cliff was confirmed: the stop record says when it stopped on the drop, and the
    // hold that applied.
    let st = &s["stop"];
    assert!(st["cliff_confirmed_at_s"].is_null(), "{st:#}");
    assert!(f(&st["first_sample_drop_at_s"]) >= 4.0, "{st:#}");
    assert_eq!(f(&st["hold_s"]), 3.0, "{st:#}");
    // Stopped at the hold after the first sample (4 s at 1 s samples), not at 30 GB.
    let written = f(&s["totals"]["bytes"]);
    assert!(written < 5e9, "wrote {written} bytes:\n{err}");
    let warning = err
        .lines()
        .find(|l| l.starts_with("slccache: warning: a drop inside the first 1.00 s sample"))
        .unwrap_or_else(|| panic!("no warning as the run went: {err}"));
    assert!(warning.contains("the run stops at 4.0 s"), "{warning}");
    assert!(warning.contains("--interval 100ms"), "{warning}");
    // Off a terminal the progress line prints every 10 s: this run is shorter, so the line is
    // checked where it is built (report::console::progress); the closing line says why.
    assert!(
        stdout.contains("stopped: the hold time after a drop inside the first sample passed"),
        "{stdout}"
    );
}

/// At samples of 4 min the drop inside the first sample was warned of at the end and the run
/// wrote the whole drive (D1 again: `simulate 960evo-250g --pattern seqwrite --seed 1 --interval
/// 4m` wrote 250 GB in 13.4 min, `span_written`, the README's own example). The analysis the
/// early stop reads saw nothing until four samples: three show the drop, and the run stops
/// once its level has held.
pub fn a_drop_inside_a_long_first_sample_ends_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    for (preset, seed, capacity) in [("960evo-250g", "1", 250e9), ("960evo-500g", "6", 500e9)] {
        let dir = tmp.path().join(preset);
        slccache()
            .args([
                "--no-record",
                "simulate",
                preset,
                "--pattern",
                "seqwrite",
                "--interval",
                "4m",
                "--seed",
                seed,
                "-q",
                "--out",
            ])
            .arg(&dir)
            .assert()
            .success();
        let s = summary(&dir);
        assert_eq!(
            s["run"]["stop_reason"], "first_sample_drop",
            "{preset}: {:#}",
            s["stop"]
        );
        let written = f(&s["totals"]["bytes"]);
        assert!(written < 0.95 * capacity, "{preset}: wrote {written} bytes");
        assert_eq!(
            s["analysis"]["unconfirmed_drop"]["at"], "first_sample",
            "{preset}"
        );
    }
}
