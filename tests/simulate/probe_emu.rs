//! A short real-time `slccache probe emu:PRESET` for every preset gives a cache estimate
//! within 2% of the model's truth. Each preset gets a small-cache override (about four
//! seconds of in-cache writing at its own rate) and six seconds after the cache, with two
//! jobs of QD8 sharing the one emulated drive.
//!
//! Needs the probe (branch `engine`) and the detector (branch `detect`).

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use slccache::model::presets;
use slccache::workload::Pattern;

/// The two tests run one after the other: each is real time, and the preset test already
/// runs three probes at once on a machine that may have two cores. Run beside it, the other
/// test's 100 ms samples were late enough to put its estimate 2.02% off (seen in CI).
static SERIAL: Mutex<()> = Mutex::new(());

const CACHE_S: f64 = 4.0;
const AFTER_S: f64 = 6.0;

/// Runs one short probe; returns an error text, or None when the estimate is right.
fn probe_one(name: &str, dir: &Path) -> Option<String> {
    let m = presets::find(name).unwrap();
    // Larger blocks for fast drives, so that the host needs few wake-ups per second and the
    // writes in flight cover a late wake-up on a busy machine.
    let bs: u64 = if m.seq_in.0 >= 2e9 { 4 << 20 } else { 1 << 20 };
    let t = m.truth(Pattern::Seqwrite, bs);
    let (spec, cache, max_bytes) = if t.cache_bytes == 0 {
        (
            name.to_string(),
            0u64,
            (t.after_cache_bytes_per_sec * AFTER_S) as u64,
        )
    } else {
        let cache = (t.in_cache_bytes_per_sec * CACHE_S).round() as u64;
        let max = cache + (t.after_cache_bytes_per_sec * AFTER_S) as u64;
        (format!("{name},cache={cache}"), cache, max)
    };
    let out = dir.join(name);
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .arg("probe")
        .arg(format!("emu:{spec}"))
        .args(["--pattern", "seqwrite", "--qd", "8", "--jobs", "2"])
        .arg("--bs")
        .arg(bs.to_string())
        .args(["--interval", "250ms", "--seed", "1", "--quiet"])
        .arg("--max-bytes")
        .arg(max_bytes.to_string())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    if !o.status.success() {
        return Some(format!(
            "{name}: probe failed ({:?}): {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let text = match std::fs::read_to_string(out.join("summary.json")) {
        Ok(t) => t,
        Err(e) => return Some(format!("{name}: no summary.json: {e}")),
    };
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    let a = &s["analysis"];
    let written = s["totals"]["bytes"].as_u64().unwrap_or(0);
    // Writes in flight when the limit is reached may still complete: up to jobs x QD blocks (16).
    if written + bs < max_bytes || written > max_bytes + 16 * bs {
        return Some(format!("{name}: wrote {written} of {max_bytes} bytes"));
    }
    if cache == 0 {
        return (!a["cache_estimate"].is_null())
            .then(|| format!("{name}: no cache, but estimate {}", a["cache_estimate"]));
    }
    let Some(est) = a["cache_estimate"]["bytes"].as_f64() else {
        return Some(format!(
            "{name}: no estimate (truth {cache}): {}",
            a["warnings"]
        ));
    };
    let err = est / cache as f64 - 1.0;
    println!(
        "{name}: estimate {est:.0} vs truth {cache} ({:+.3}%)",
        err * 100.0
    );
    (err.abs() > 0.02).then(|| {
        format!(
            "{name}: estimate {est} vs truth {cache} ({:+.2}%)",
            err * 100.0
        )
    })
}

#[test]
fn probe_emu_estimates_every_preset_within_2_percent() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = presets::all().into_iter().map(|m| m.name).collect();
    let queue = Mutex::new(names.clone());
    let failures = Mutex::new(Vec::new());
    // Three at a time: the runs mostly sleep, and the machine is shared.
    std::thread::scope(|sc| {
        for _ in 0..3 {
            sc.spawn(|| loop {
                let Some(name) = queue.lock().unwrap().pop() else {
                    break;
                };
                if let Some(f) = probe_one(&name, tmp.path()) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} presets failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

/// A probe of an emulated drive records the model's truth in `summary.json`, next to the
/// analysis, so a run can be checked against it.
#[test]
fn summary_of_an_emulated_probe_carries_the_model_truth() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args([
            "probe",
            "emu:960evo-250g,cache=500MB",
            "--pattern",
            "seqwrite",
        ])
        .args([
            "--bs",
            "1M",
            "--max-bytes",
            "2GB",
            "--interval",
            "100ms",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let truth = &s["model_truth"]["cache"];
    assert_eq!(truth["cache_bytes"].as_u64(), Some(500_000_000), "{truth}");
    assert_eq!(
        truth["in_cache_bytes_per_sec"].as_f64(),
        Some(1.5e9),
        "{truth}"
    );
    // The cache runs out in the fourth 100 ms sample, so the run's own error bar is some
    // ±3 % (wider on a loaded machine, which the run says): the truth lies inside it, and the
    // estimate near the truth. A bound of 2 % on the estimate alone failed once on a loaded
    // machine, at -2.6 %.
    let e = &s["analysis"]["cache_estimate"];
    let (est, low, high) = (
        e["bytes"].as_f64().unwrap(),
        e["low_bytes"].as_f64().unwrap(),
        e["high_bytes"].as_f64().unwrap(),
    );
    assert!(low <= 5e8 && 5e8 <= high, "{e}");
    assert!((est / 5e8 - 1.0).abs() < 0.03, "{e}");
    assert!(high / low < 1.25, "{e}");
}

/// An emulated drive small enough for one pass to end the run: `--duration 30m
/// --no-early-stop` stops when the pass is written, and no output calls that a byte limit
/// (no --max-bytes was given): the terminal, report.md, report.html, the charts' footers and
/// summary.json.
#[test]
fn a_pass_that_ends_before_the_duration_is_not_a_byte_limit() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args([
            "probe",
            "emu:960evo-250g,capacity=1GB,cache=200MB,in=2GB/s,after=1GB/s,noise=0,dips=0",
        ])
        .args(["--pattern", "seqwrite", "--bs", "1M", "--interval", "200ms"])
        .args([
            "--duration",
            "30m",
            "--no-early-stop",
            "--no-record",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["run"]["stop_reason"], "span_written", "{text}");
    assert_eq!(s["stop"]["reason"], "span_written");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        text.contains("stopped: one pass over the span written"),
        "{text}"
    );
    assert!(
        md.contains("| Stop reason | one pass over the span written |"),
        "{md}"
    );
    let mut outputs = vec![("the terminal".to_string(), text), ("report.md".into(), md)];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if matches!(p.extension().and_then(|x| x.to_str()), Some("svg" | "html")) {
            outputs.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    for (name, o) in &outputs {
        assert!(!o.contains("byte limit"), "{name} says byte limit");
    }
}

/// Runs `slccache probe` with `args` into a fresh folder; returns (its terminal output, stdout
/// then stderr, and summary.json).
fn probe_summary(args: &[&str]) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .arg("probe")
        .args(args)
        .arg("--out")
        .arg(&out)
        .arg("--no-record")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "probe failed: {err}");
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    (err, serde_json::from_str(&text).unwrap())
}

/// A QD1 emulated probe ran at about a fifth of the model's IOPS (7.5k
/// against 35.7k), because each sleep's lateness became the emulated drive's idle time. The
/// probe's achieved IOPS, against the model's own QD1 figure in the same summary, must now be
/// close to it (the tolerance is generous: other work on the machine stalls the writer).
#[test]
fn an_emulated_qd1_probe_reaches_the_models_iops() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (_, s) = probe_summary(&[
        "emu:960evo-500g",
        "--qd",
        "1",
        "--duration",
        "3s",
        "--interval",
        "100ms",
        "--seed",
        "1",
    ]);
    let model = s["model_truth"]["cache"]["qd1_iops"].as_f64().unwrap();
    let writes = s["totals"]["writes"].as_f64().unwrap();
    let dur = s["totals"]["duration_s"].as_f64().unwrap();
    let achieved = writes / dur;
    assert!(
        achieved >= 0.75 * model,
        "QD1: {achieved:.0} IOPS achieved, the model gives {model:.0}"
    );
    // The figures the summary gives agree with the totals.
    let e = &s["config"]["emulation"];
    let share = e["share_of_model"].as_f64().unwrap();
    assert!(share >= 0.75, "{e}");
}

/// A real-time emulation that falls short of its model says so, with the
/// figures, on the terminal and in summary.json. A model far faster than the engine can run
/// (no latency, 100 TB/s, no IOPS limit to speak of) starves it.
#[test]
fn a_starved_emulation_says_it_fell_short() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (err, s) = probe_summary(&[
        "emu:960evo-500g,in=100TB/s,after=100TB/s,rand_in=100TB/s,rand_after=100TB/s,\
         iops=1e12,iops_after=1e12,lat=0",
        "--qd",
        "1",
        "--duration",
        "1s",
        "--interval",
        "100ms",
    ]);
    assert!(
        err.contains("the emulation fell short of its model"),
        "{err}"
    );
    let warnings = s["analysis"]["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("fell short of its model")),
        "{warnings:?}"
    );
    let e = &s["config"]["emulation"];
    assert!(e["share_of_model"].as_f64().unwrap() < 0.5, "{e}");
    assert!(e["achieved_bytes_per_sec"].as_f64().unwrap() > 0.0, "{e}");
}
