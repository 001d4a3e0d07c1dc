//! The early stop through the real binary: `simulate` in virtual time and `probe` against a
//! small emulated drive in real time. The run stops once the cliff is certain, after the
//! hold time, and its estimate matches a `--no-early-stop` run of the same seed.

use std::path::Path;

use assert_cmd::Command;
use predicates::str::contains;

fn slccache() -> Command {
    Command::cargo_bin("slccache").unwrap()
}

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

#[test]
fn simulate_stops_after_the_hold_and_agrees_with_the_full_run() {
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

#[test]
fn a_long_cache_phase_holds_longer() {
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

#[test]
fn no_cliff_no_early_stop() {
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

#[test]
fn bad_after_cliff_is_a_usage_error() {
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

fn probe(dir: &Path, extra: &[&str]) -> serde_json::Value {
    slccache()
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
        .args(["--interval", "200ms", "--seed", "1", "--quiet", "--out"])
        .arg(dir)
        .args(extra)
        .assert()
        .success();
    summary(dir)
}

#[test]
fn emulated_probe_stops_at_the_cliff_and_agrees_with_the_full_run() {
    let tmp = tempfile::tempdir().unwrap();
    let early = probe(
        &tmp.path().join("early"),
        &["--after-cliff", "5s", "--max-bytes", "5GB"],
    );
    let full = probe(
        &tmp.path().join("full"),
        &["--no-early-stop", "--max-bytes", "4GB"],
    );
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
