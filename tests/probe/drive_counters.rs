//! What the drive reports about itself, end to end on emulated drives (the same counters an
//! NVMe drive keeps in its SMART / Health log): data units written against the bytes the
//! probe wrote, thermal-management transitions per interval, and the detector naming a drop
//! where they rose as thermal throttling. Also `summary.json`'s `host` and `drive_state` and
//! the report's rows.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use slccache::config::WorkloadConfig;
use slccache::experiment::virtual_time::simulate;
use slccache::model::presets;
use slccache::timeline::{read_slccache_csv, RunMeta, Timeline};
use slccache::workload::Pattern;

/// 200 MB/s into a cache that never runs out, heating 33 °C per GB from 30 °C: it reaches its
/// 40 °C throttle point after about 300 MB (1.5 s) and then writes at 30% of the rate, still
/// heating (it cools over an hour), so it stays throttled to the end. The temperature at the
/// drop (40 °C) is far below the run's maximum: the temperature rule alone does not see it.
const HOT: &str = "emu:960evo-500g,cache=100GB,in=200MB/s,noise=0,dips=0,ambient=30,heat=33,\
                   cool=1h,throttle_at=40,throttle=0.3";

fn probe(spec: &str, out: &Path, extra: &[&str]) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args(["probe", spec, "--pattern", "seqwrite", "--bs", "256k"])
        .args(["--qd", "16", "--interval", "100ms", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "probe failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// The thermal warnings, found by their kind (and checked to read as one).
fn thermal(warnings: &[slccache::detect::Warning]) -> Vec<&str> {
    let th: Vec<&str> = warnings
        .iter()
        .filter(|w| matches!(w.kind, slccache::detect::WarningKind::Thermal { .. }))
        .map(|w| w.as_str())
        .collect();
    for w in &th {
        assert!(w.starts_with("thermal throttling"), "{w}");
    }
    th
}

pub fn emulated_throttling_is_named_from_the_drives_counters() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hot");
    let s = probe(HOT, &out, &["--duration", "6s"]);

    // host: the machine; no disk below an emulated drive.
    let host = &s["host"];
    assert!(
        host["kernel"].as_str().is_some_and(|k| !k.is_empty()),
        "{host}"
    );
    assert!(host["cores"].as_u64().is_some_and(|c| c >= 1), "{host}");
    assert!(host["disk"].is_null());

    // drive_state: start temperature and both SMART snapshots from the model.
    let ds = &s["drive_state"];
    // 30 °C ambient, reported as the drive reports it: 303 K, 29.85 °C, in both records.
    assert_eq!(ds["temperature_start_c"].as_f64(), Some(29.85), "{ds}");
    assert_eq!(
        ds["temperature_start_c"], ds["smart_start"]["temperature_c"],
        "{ds}"
    );
    assert_eq!(
        ds["temperature_end_c"], ds["smart_end"]["temperature_c"],
        "{ds}"
    );
    assert!(ds["temperature_end_c"].as_f64().unwrap() > 40.0, "{ds}");
    let bytes = s["totals"]["bytes"].as_u64().unwrap();
    assert!(bytes > 300_000_000, "{bytes}");
    assert_eq!(ds["smart_start"]["data_units_written"].as_u64(), Some(0));
    assert_eq!(
        ds["smart_end"]["data_units_written"].as_u64(),
        Some(bytes.div_ceil(512_000)),
        "the drive counts what the probe wrote, in units of 512,000 bytes rounded up"
    );
    assert_eq!(
        ds["smart_start"]["thermal_mgmt_t1_transitions"].as_u64(),
        Some(0)
    );
    assert_eq!(
        ds["smart_end"]["thermal_mgmt_t1_transitions"].as_u64(),
        Some(1)
    );

    // The analysis: no data-units mismatch, and the drop named as heat from the counters.
    let warnings: Vec<String> = serde_json::from_value(s["analysis"]["warnings"].clone()).unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("SMART data units written")),
        "{warnings:?}"
    );
    let th: Vec<_> = warnings
        .iter()
        .filter(|w| w.starts_with("thermal throttling"))
        .filter(|w| w.contains("thermal-management counters rose"))
        .collect();
    assert_eq!(th.len(), 1, "{warnings:?}");
    assert!(th[0].contains("cache size is in doubt"), "{}", th[0]);

    // The timeline carries the counts per interval: 0 before the drop, 1 after.
    let text = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    assert!(text
        .lines()
        .next()
        .unwrap()
        .contains(",temp_c,thermal_transitions"));
    let samples = read_slccache_csv(&text, "timeline.csv").unwrap();
    assert_eq!(samples[0].thermal_transitions, Some(0));
    assert_eq!(samples.last().unwrap().thermal_transitions, Some(1));

    // The saved timeline re-analysed says the same; without the counters it cannot, because
    // the drive was not at its hottest when it throttled.
    let mut t = Timeline {
        samples,
        meta: RunMeta::default(),
    };
    let again = slccache::detect::analyze(&t);
    assert!(
        thermal(&again.warnings)
            .iter()
            .any(|w| w.contains("counters rose") && w.contains("in doubt")),
        "{:?}",
        again.warnings
    );
    for x in &mut t.samples {
        x.thermal_transitions = None;
    }
    let without = slccache::detect::analyze(&t);
    let cliff = without
        .cliffs
        .first()
        .expect("the throttle drop is a cliff")
        .t_s;
    assert!(
        !thermal(&without.warnings)
            .iter()
            .any(|w| w.contains(&format!("{cliff:.0} s ("))),
        "the temperature rule alone named the drop at {cliff} s: {:?}",
        without.warnings
    );

    // The report shows the lines a reviewer prints.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for row in [
        "| Host | Linux ",
        "| Drive temperature | 30 °C at the start, ",
        "| Drive health | 0% used, spare 100% (threshold 10%), no critical warning |",
        "| Written, by the drive's count | ",
        "| Thermal management | level 1: +1 transitions, ",
    ] {
        assert!(md.contains(row), "report.md lacks {row:?}:\n{md}");
    }
}

pub fn a_drive_without_counters_or_sensor_records_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plain");
    let s = probe(
        "emu:960evo-500g,cache=20MB,in=200MB/s,after=100MB/s",
        &out,
        &["--max-bytes", "40MB"],
    );
    let ds = &s["drive_state"];
    // The emulated drive has a SMART log (data units) but no thermal model.
    assert!(ds["temperature_start_c"].is_null(), "{ds}");
    assert!(ds["smart_end"]["temperature_c"].is_null(), "{ds}");
    assert_eq!(
        ds["smart_end"]["data_units_written"].as_u64(),
        Some(40_000_000u64.div_ceil(512_000))
    );
    let text = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    let samples = read_slccache_csv(&text, "timeline.csv").unwrap();
    assert!(samples.iter().all(|x| x.thermal_transitions == Some(0)));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("| Drive temperature |"), "{md}");
    assert!(
        md.contains("| Thermal management | level 1: +0 transitions, +0 s;"),
        "{md}"
    );
}

/// In virtual time: the P5 throttles in a sawtooth after about 460 GB; every throttle step
/// comes with a rise of its thermal-management count, and the detector names them from it.
pub fn p5_sawtooth_in_virtual_time_is_named_from_the_counters() {
    let m = presets::find("p5-1tb").unwrap();
    let w = WorkloadConfig {
        pattern: Pattern::Seqwrite,
        block_size: 128 << 10,
        queue_depth: 32,
        jobs: 1,
        interval: Duration::from_secs(1),
        span: None,
        duration: None,
        max_bytes: None,
        passes: None,
        seed: 1,
        scenario: None,
        description: None,
        read_pct: 0,
    };
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let s = &sim.timeline.samples;
    assert_eq!(s[0].thermal_transitions, Some(0));
    let steps = s.last().unwrap().thermal_transitions.unwrap();
    assert!(steps >= 3, "{steps} throttle episodes");
    let a = slccache::detect::analyze(&sim.timeline);
    let th = thermal(&a.warnings);
    assert_eq!(th.len(), 1, "{:?}", a.warnings);
    assert!(th[0].contains("counters rose"), "{}", th[0]);
    // The cache cliff (100 GB, long before any heat) is not blamed on heat.
    assert!(!th[0].contains("in doubt"), "{}", th[0]);
    let c = a.cache_estimate.unwrap();
    assert!((c.bytes as f64 / sim.truth.cache_bytes as f64 - 1.0).abs() < 0.02);
}

/// The counter rule on a synthetic timeline: 2 GB/s for 20 s, then 1 GB/s for 40 s (0.5 s
/// samples, a little noise). A counter rise at the drop names it; the same rise 20 s after
/// the drop, with no drop there, names nothing.
pub fn only_a_counter_rise_at_the_drop_names_it() {
    let pts: Vec<(f64, f64, f64)> = (1..=120)
        .map(|i| {
            let t = i as f64 * 0.5;
            let wobble = 1.0 + 0.02 * ((i * 7919 % 13) as f64 / 13.0 - 0.5);
            (t, 0.5, if t <= 20.0 { 2e9 } else { 1e9 } * wobble)
        })
        .collect();
    let with_rise_at = |t_rise: f64| {
        let mut t = Timeline::from_rates(&pts, RunMeta::default());
        for s in &mut t.samples {
            s.thermal_transitions = Some(u64::from(s.t_s >= t_rise));
        }
        slccache::detect::analyze(&t)
    };
    let at_drop = with_rise_at(20.5);
    assert_eq!(at_drop.cliffs.len(), 1);
    let th = thermal(&at_drop.warnings);
    assert_eq!(th.len(), 1, "{:?}", at_drop.warnings);
    assert!(th[0].contains("taken as the cache cliff"), "{}", th[0]);
    let later = with_rise_at(40.0);
    assert!(thermal(&later.warnings).is_empty(), "{:?}", later.warnings);
    // Counters that never rise name nothing either.
    assert!(thermal(&with_rise_at(1e9).warnings).is_empty());
}
