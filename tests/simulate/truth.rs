//! Every preset, simulated in virtual time, gives a cache estimate within 2% of the model's
//! truth. The estimate comes from the real detector (`detect::analyze`); a second test checks
//! the simulated timeline against the truth without the detector.

use std::time::Duration;

use slccache::config::WorkloadConfig;
use slccache::experiment::virtual_time::simulate;
use slccache::model::{presets, DriveModel};
use slccache::timeline::RunMeta;
use slccache::workload::Pattern;

fn workload(pattern: Pattern, bs: u64, qd: u32, jobs: u32, seed: u64) -> WorkloadConfig {
    WorkloadConfig {
        pattern,
        read_pct: 0,
        block_size: bs,
        queue_depth: qd,
        jobs,
        interval: Duration::from_secs(1),
        span: None,
        duration: None,
        max_bytes: None,
        passes: None,
        seed,
        scenario: None,
        description: None,
    }
}

fn check_estimate(m: &DriveModel, w: &WorkloadConfig) {
    let sim = simulate(m, w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = slccache::detect::analyze(&sim.timeline);
    let truth = sim.truth.cache_bytes as f64;
    let what = format!(
        "{} {:?} bs={} seed={}",
        m.name, w.pattern, w.block_size, w.seed
    );
    if truth == 0.0 {
        assert!(
            a.cache_estimate.is_none(),
            "{what}: no cache, but the estimate is {:?}",
            a.cache_estimate
        );
        return;
    }
    let est = a
        .cache_estimate
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no estimate; truth {truth}; {:?}", a.warnings));
    let err = est.bytes as f64 / truth - 1.0;
    assert!(
        err.abs() <= 0.02,
        "{what}: estimate {} vs truth {truth} ({:+.2}%)",
        est.bytes,
        err * 100.0
    );
}

#[test]
fn simulate_estimates_every_preset_within_2_percent() {
    for m in presets::all() {
        for seed in [1, 2, 3] {
            check_estimate(&m, &workload(Pattern::Randwrite, 4096, 32, 1, seed));
            check_estimate(&m, &workload(Pattern::Seqwrite, 128 << 10, 32, 1, seed));
        }
        // The seed test's shape: 4 jobs of QD32 4K random.
        check_estimate(&m, &workload(Pattern::Randwrite, 4096, 32, 4, 9));
    }
}

#[test]
fn fill_level_shrinks_the_660p_cache_and_the_estimate_follows() {
    for (fill, want) in [
        ("0", 140e9),
        ("40%", 140e9 - 128e9 * (0.4 / 0.75)),
        ("80%", 12e9),
    ] {
        let m = presets::parse_spec(&format!("660p-1tb,fill={fill}")).unwrap();
        let truth = m.truth(Pattern::Seqwrite, 1 << 20).cache_bytes as f64;
        assert!((truth - want).abs() < 2.0, "{fill}: {truth} vs {want}");
        let mut w = workload(Pattern::Seqwrite, 1 << 20, 8, 1, 4);
        w.max_bytes = Some((truth * 2.0) as u64 + 50_000_000_000);
        check_estimate(&m, &w);
    }
}

#[test]
fn three_phase_drive_shows_the_folding_cliff_near_its_truth() {
    let m = presets::find("fx700-2tb").unwrap();
    let mut w = workload(Pattern::Seqwrite, 128 << 10, 32, 1, 5);
    w.max_bytes = Some(700_000_000_000);
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = slccache::detect::analyze(&sim.timeline);
    let fold_at = sim.truth.folding_starts_at_bytes.unwrap() as f64;
    assert_eq!(fold_at, 460e9);
    assert!(a.cliffs.len() >= 2, "{:?}", a.cliffs);
    let second = a.cliffs[1].bytes_written as f64;
    assert!(
        (second / fold_at - 1.0).abs() <= 0.02,
        "second cliff at {second}, truth {fold_at}"
    );
}

/// Without the detector: with noise and dips off, the sample that straddles the cliff mixes
/// the two levels, and the mix gives back the truth to within a kilobyte.
#[test]
fn simulated_cliff_is_where_the_truth_says_without_the_detector() {
    for m in presets::all() {
        let mut m = m.clone();
        presets::apply(&mut m, "noise", "0").unwrap();
        presets::apply(&mut m, "dips", "0").unwrap();
        let w = workload(Pattern::Seqwrite, 1 << 20, 32, 1, 1);
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let truth = sim.truth.cache_bytes as f64;
        let s = &sim.timeline.samples;
        let (r_in, r_after) = (
            sim.truth.in_cache_bytes_per_sec,
            sim.truth.after_cache_bytes_per_sec,
        );
        if truth == 0.0 {
            assert!(
                s.iter()
                    .all(|x| (x.bytes_per_sec / r_after - 1.0).abs() < 1e-6),
                "{}",
                m.name
            );
            continue;
        }
        assert!((s[0].bytes_per_sec / r_in - 1.0).abs() < 1e-6, "{}", m.name);
        let j = s
            .iter()
            .position(|x| x.bytes_per_sec < r_in * (1.0 - 1e-6))
            .unwrap_or_else(|| panic!("{}: no drop", m.name));
        let start = if j == 0 { 0 } else { s[j - 1].bytes_total } as f64;
        let frac = (s[j].bytes_per_sec - r_after) / (r_in - r_after);
        let at = start + r_in * frac * s[j].interval_s;
        assert!(
            (at - truth).abs() < 1024.0,
            "{}: cliff at {at}, truth {truth}",
            m.name
        );
        // After the cliff: the post-cache rate of the model.
        assert!(
            (s[j + 1].bytes_per_sec / r_after - 1.0).abs() < 1e-6,
            "{}: {} vs {r_after}",
            m.name,
            s[j + 1].bytes_per_sec
        );
    }
}

/// Combinations the detector (branch `detect`) gets wrong today; each has its own ignored test
/// below so that `cargo test -- --ignored` shows it until the detector handles it.
const KNOWN_DETECTOR_MISSES: &[(&str, &str)] = &[];

fn scenario_check(m: &DriveModel, f: &std::path::Path) -> Option<String> {
    let w = WorkloadConfig::resolve(&slccache::cli::WorkloadArgs {
        scenario: Some(f.to_path_buf()),
        seed: Some(5),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = slccache::detect::analyze(&sim.timeline);
    let truth = sim.truth.cache_bytes;
    let name = format!("{} on {}", m.name, f.file_name().unwrap().to_string_lossy());
    let past_cache = truth > 0 && sim.timeline.bytes_total() > truth + truth / 5;
    match (&a.cache_estimate, past_cache) {
        (Some(e), true) => {
            let err = e.bytes as f64 / truth as f64 - 1.0;
            (err.abs() > 0.02)
                .then(|| format!("{name}: {} vs {truth} ({:+.1}%)", e.bytes, err * 100.0))
        }
        (None, true) => Some(format!("{name}: no estimate, truth {truth}")),
        (Some(e), false) => Some(format!(
            "{name}: estimate {} but the run never left the cache (truth {truth}, wrote {})",
            e.bytes,
            sim.timeline.bytes_total()
        )),
        (None, false) => None,
    }
}

/// The thermal sawtooth of the P5 under the TechPowerUp method (1 MB QD1, 0.5 s samples):
/// the estimate is the 2000 -> 1000 MB/s cliff at 100 GB, not a later throttle step.
#[test]
fn p5_under_the_techpowerup_method() {
    let f =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/techpowerup-1m-seq.toml");
    let m = presets::find("p5-1tb").unwrap();
    if let Some(e) = scenario_check(&m, &f) {
        panic!("{e}");
    }
}

/// Every preset under every shipped scenario: when the run writes past the cache, the
/// estimate is within 2% of the truth; when it does not, no cliff is reported.
#[test]
fn every_preset_under_every_shipped_scenario() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let file = f.file_name().unwrap().to_string_lossy().to_string();
        for m in presets::all() {
            if KNOWN_DETECTOR_MISSES.contains(&(m.name.as_str(), file.as_str())) {
                continue;
            }
            failures.extend(scenario_check(&m, f));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `simulate p5-1tb --interval 45s --no-early-stop --max-bytes 400GB`: a first sample of 1998
/// MB/s, a second of 1117 MB/s that the cache ran out inside, then 993 MB/s. The cliff was put
/// at 58.6 s, "cache 117 GB", where the second sample's bytes, written at the first sample's
/// rate and then at the level after, put it at 50.6 s and 101 GB (seed 4: 55.2 s, 110 GB, for
/// 49.9 s). With one whole sample before the one that holds the cliff, the cliff is where
/// that sample's bytes put it.
#[test]
fn a_cliff_inside_the_second_of_coarse_samples_lies_where_its_bytes_put_it() {
    for seed in ["1", "4"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .args(["--no-record", "simulate", "p5-1tb", "--pattern", "seqwrite"])
            .args([
                "--interval",
                "45s",
                "--no-early-stop",
                "--max-bytes",
                "400GB",
            ])
            .args(["--seed", seed, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let t = slccache::commands::compare::load_run(&out).unwrap();
        let a = slccache::detect::analyze(&t);
        let c = a
            .cliffs
            .first()
            .unwrap_or_else(|| panic!("seed {seed}: {a:?}"));
        let s = &t.samples;
        // The cliff lies in the second sample; the first is whole at the level before it.
        assert!(
            s[1].t_start_s() < c.t_s && c.t_s < s[1].t_s,
            "seed {seed}: {c:?}"
        );
        let (hi, lo) = (
            s[0].bytes_per_sec,
            s[2].bytes_per_sec.max(s[3].bytes_per_sec),
        );
        let into = (s[1].bytes as f64 - lo * s[1].interval_s) / (hi - lo);
        let bytes = s[0].bytes as f64 + hi * into;
        assert!(
            (c.bytes_written as f64 / bytes - 1.0).abs() < 0.02,
            "seed {seed}: the cliff at {} bytes, the second sample's bytes put it at {bytes}",
            c.bytes_written
        );
        let at = s[1].t_start_s() + into;
        assert!(
            (c.t_s - at).abs() < 1.0,
            "seed {seed}: {} s, not {at} s",
            c.t_s
        );
        assert!(
            c.t_low_s <= c.t_s && c.t_s <= c.t_high_s,
            "seed {seed}: {c:?}"
        );
    }
}
