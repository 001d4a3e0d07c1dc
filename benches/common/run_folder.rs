//! The run folder the store benchmarks record: a 1-hour timeline with a cliff, analysed, with
//! its summary.json, as a finished run writes it. Included by `benches/store.rs` and
//! `benches/fleet.rs`.

use std::path::Path;

use slccache::report::{Summary, Totals};
use slccache::timeline::{RunMeta, Timeline};

/// A run folder in `dir`: one hour at `interval` seconds, 2 GB/s for 10 minutes then
/// 500 MB/s with a little noise, of drive `model` (serial `serial`), written by `command`.
pub fn folder(dir: &Path, interval: usize, model: &str, serial: &str, command: &str) {
    let n = 3600 / interval;
    let pts: Vec<(f64, f64, f64)> = (1..=n)
        .map(|i| {
            let t = (i * interval) as f64;
            let base = if t <= 600.0 { 2e9 } else { 5e8 };
            let noise = 1.0 + 0.03 * ((i * 7919 % 101) as f64 / 101.0 - 0.5);
            (t, interval as f64, base * noise)
        })
        .collect();
    let mut meta = RunMeta::default();
    meta.device.model = Some(model.into());
    meta.device.serial = Some(serial.into());
    meta.label = model.into();
    let t = Timeline::from_rates(&pts, meta);
    let a = slccache::detect::analyze(&t);
    std::fs::create_dir_all(dir).unwrap();
    slccache::timeline::CsvWriter::write_all(&dir.join("timeline.csv"), &t).unwrap();
    let s = Summary {
        slccache_version: slccache::VERSION.into(),
        origin: None,
        config: serde_json::json!({ "command": command }),
        model_truth: None,
        run: t.meta.clone(),
        totals: Totals::of(&t, 0),
        interrupted: false,
        error: None,
        analysis: a,
        findings: None,
        stop: None,
        host: None,
        drive_state: None,
    };
    slccache::report::write_summary(dir, &s).unwrap();
}
