//! The writer's own CPU use per interval (`cpu_pct`, `cpu_wait_pct` in timeline.csv) and the
//! warning when it, not the drive, set the rate: a probe against an emulated drive that
//! completes every write at once (`emu:instant`) is CPU-bound by construction; one against a
//! drive model that makes the writer sleep is not.

use std::path::Path;
use std::process::Command;

fn probe(target: &str, extra: &[&str], out: &Path) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .arg("probe")
        .arg(target)
        .args(["--duration", "1500ms", "--interval", "100ms", "--quiet"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "probe {target} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

fn warnings(summary: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_warnings(summary, &mut out);
    out
}

fn collect_warnings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if k == "warnings" {
                    if let Some(a) = x.as_array() {
                        out.extend(a.iter().filter_map(|w| w.as_str().map(String::from)));
                    }
                } else {
                    collect_warnings(x, out);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_warnings(x, out)),
        _ => {}
    }
}

/// The cpu_pct and cpu_wait_pct of every row of a timeline.csv (header names looked up);
/// panics on a row without cpu_pct.
fn cpu_columns(dir: &Path) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let run = head
        .iter()
        .position(|h| *h == "cpu_pct")
        .expect("cpu_pct column");
    let wait = head
        .iter()
        .position(|h| *h == "cpu_wait_pct")
        .expect("cpu_wait_pct column");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| {
                f[i].parse::<f64>()
                    .unwrap_or_else(|_| panic!("row without a CPU figure: {l}"))
            };
            // The run-queue wait is empty where the kernel has no schedstat.
            (num(run), f[wait].parse::<f64>().unwrap_or(0.0))
        })
        .collect()
}

pub fn an_instant_drive_makes_the_writer_cpu_bound_and_the_analysis_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let s = probe("emu:instant", &["--bs", "4k", "--qd", "32"], dir.path());
    let cols = cpu_columns(dir.path());
    assert!(cols.len() >= 10, "{} rows", cols.len());
    // Every full row says the writer was busy (on a CPU or waiting for one) nearly all the time.
    let mut busy: Vec<f64> = cols.iter().map(|(r, w)| r + w).collect();
    busy.sort_by(f64::total_cmp);
    assert!(busy[busy.len() / 2] >= 90.0, "busy per row: {busy:?}");
    let w = warnings(&s);
    assert!(
        w.iter()
            .any(|x| x.contains("CPU-bound") && x.contains("measured the host")),
        "warnings: {w:?}"
    );
}

pub fn a_writer_that_waits_for_the_drive_is_not_called_cpu_bound() {
    let dir = tempfile::tempdir().unwrap();
    // 50 MB/s at 1 MiB writes: about 50 writes a second; the job sleeps nearly all the time.
    let s = probe(
        "emu:960evo-250g,cache=0,after=50MB/s",
        &["--bs", "1M", "--qd", "2"],
        dir.path(),
    );
    // Every row has its CPU figures (a sleeping writer may round to 0.0%).
    let cols = cpu_columns(dir.path());
    assert!(cols.len() >= 10, "{} rows", cols.len());
    let w = warnings(&s);
    assert!(
        !w.iter().any(|x| x.contains("CPU-bound")),
        "warnings: {w:?}"
    );
}
