//! The results store's size and speed: 1,000 runs, each a 1-hour timeline at 1 s,
//! recorded as a finished run is (summary and timeline stored, charts drawn again on export);
//! then the size of the SQLite file and how long listing every run takes, through the library
//! (open + list) and, when the release binary is there, `slccache runs` as a process.
//!
//! `cargo bench --bench store` (`STORE_BENCH_RUNS=200` for a shorter run; under `cargo test`
//! it runs 5 runs only). A benchmark, not a
//! test: no bound is checked, the figures are printed.

use std::time::Instant;

#[path = "common/run_folder.rs"]
mod run_folder;

use slccache::report::ReportOptions;
use slccache::store::{Filter, Location, RecordOptions, RenderOptions, Store};

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this binary without it,
    // and then it only checks that it works, on 5 runs.
    let bench = std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("STORE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|_| bench)
        .unwrap_or(if bench { 1000 } else { 5 });
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("run");
    // One hour at 1 s, as a simulation records it.
    run_folder::folder(&src, 1, "Bench Drive 2TB", "BENCH0001", "simulate");
    let db = dir.path().join("results.db");
    let loc = Location::Sqlite(db.clone());
    let mut store = Store::open(&loc).unwrap();
    let summary = std::fs::read_to_string(src.join("summary.json")).unwrap();
    let render = RenderOptions::from(&ReportOptions::default());
    let t0 = Instant::now();
    for i in 0..n {
        // Each run its own: a different label (so a different content hash) and start time (a
        // run of the same folder without one, whose timeline is the same, is the same
        // measurement, and is not recorded again).
        let mut v: serde_json::Value = serde_json::from_str(&summary).unwrap();
        v["run"]["label"] = format!("bench {i}").into();
        v["run"]["started_at"] = format!(
            "2026-01-{:02}T{:02}:{:02}:{:02}Z",
            1 + i / 86400,
            i / 3600 % 24,
            i / 60 % 60,
            i % 60
        )
        .into();
        std::fs::write(src.join("summary.json"), v.to_string()).unwrap();
        store
            .record_folder(
                &src,
                &RecordOptions {
                    render: Some(render.clone()),
                    host: Some(format!("host-{}", i % 8)),
                    ..RecordOptions::default()
                },
            )
            .unwrap();
    }
    let rec_s = t0.elapsed().as_secs_f64();
    drop(store);
    let size = std::fs::metadata(&db).unwrap().len()
        + std::fs::metadata(db.with_extension("db-wal")).map_or(0, |m| m.len());
    let csv = std::fs::metadata(src.join("timeline.csv")).unwrap().len();
    println!(
        "store: {n} runs of 3600 samples recorded in {rec_s:.1} s ({:.1} ms each)",
        rec_s * 1e3 / n as f64
    );
    println!(
        "store: file {:.1} MB ({:.0} kB per run; one timeline.csv is {:.0} kB)",
        size as f64 / 1e6,
        size as f64 / 1e3 / n as f64,
        csv as f64 / 1e3
    );
    let mut times = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let mut s = Store::open(&loc).unwrap();
        let rows = s.list(&Filter::default()).unwrap();
        assert_eq!(rows.len(), n);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "store: open + list of {n} runs: median {:.1} ms, max {:.1} ms (library)",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/slccache");
    let bin = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| std::path::PathBuf::from(d).join("release/slccache"))
        .filter(|p| p.is_file())
        .unwrap_or(bin);
    if bench && bin.is_file() {
        let mut times = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            let o = std::process::Command::new(&bin)
                .args(["--db"])
                .arg(&db)
                .arg("runs")
                .output()
                .unwrap();
            assert!(o.status.success());
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "store: `slccache runs` ({}): median {:.1} ms, max {:.1} ms",
            bin.display(),
            times[times.len() / 2],
            times[times.len() - 1]
        );
    } else if bench {
        println!(
            "store: no release binary at {}; `cargo build --release` to time `slccache runs`",
            bin.display()
        );
    }
}
