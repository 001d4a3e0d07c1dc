//! The detector against synthetic traces with known truth, drawn fresh from a seed.
//!
//! Levels and cache sizes come from `data/published-drives.csv` (copied into the repository with its sources). Set
//! `SLCCACHE_SEED` to draw another set and `SLCCACHE_TRACES` to change how many.

use slccache::detect::{analyze, synth};

fn repo_data(file: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): the published-drive figures are part of the repository",
            p.display()
        )
    })
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn synthetic_traces_meet_the_targets() {
    let drives = synth::parse_published_drives(&repo_data("published-drives.csv"));
    assert!(
        drives.len() >= 15,
        "expected at least 15 usable drives in published-drives.csv, got {}",
        drives.len()
    );
    let seed = env_u64("SLCCACHE_SEED", 20261129);
    let count = env_u64("SLCCACHE_TRACES", 400) as usize;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut right_count = 0usize;
    let mut errors: Vec<f64> = Vec::new();
    let mut covered = 0usize;
    let mut with_cliff = 0usize;
    let mut failures = Vec::new();
    let (mut two, mut three, mut none, mut fine) = (0, 0, 0, 0);
    for i in 0..count {
        let spec = synth::random_spec(&drives, &mut rng);
        let (t, truth) = synth::simulate(&spec, rng.u64(..));
        match truth.drop_bytes.len() {
            0 => none += 1,
            1 => two += 1,
            _ => three += 1,
        }
        if spec.interval_s < 0.5 {
            fine += 1;
        }
        let a = analyze(&t);
        if a.cliffs.len() == truth.drop_bytes.len() {
            right_count += 1;
        } else {
            failures.push(format!(
                "trace {i}: {} cliffs found, {} true (times {:?} vs {:?}), interval {} s",
                a.cliffs.len(),
                truth.drop_bytes.len(),
                a.cliffs.iter().map(|c| c.t_s).collect::<Vec<_>>(),
                truth.drop_times,
                spec.interval_s
            ));
        }
        if let Some(&c) = truth.drop_bytes.first() {
            with_cliff += 1;
            match &a.cache_estimate {
                Some(e) => {
                    errors.push((e.bytes as f64 - c).abs() / c);
                    if (e.low_bytes as f64) <= c && c <= e.high_bytes as f64 {
                        covered += 1;
                    } else {
                        let t0 = truth.drop_times[0];
                        let near_dip = spec.dips.iter().any(|d| {
                            d.0 < t0 + spec.interval_s && d.0 + d.1 > t0 - spec.interval_s
                        });
                        failures.push(format!(
                            "trace {i}: interval {}-{} misses {c:.0} (estimate {}, error \
                             {:.3}%), dt {}{}",
                            e.low_bytes,
                            e.high_bytes,
                            e.bytes,
                            100.0 * (e.bytes as f64 - c) / c,
                            spec.interval_s,
                            if near_dip {
                                ", a GC dip at the cliff"
                            } else {
                                ""
                            }
                        ));
                    }
                }
                None => errors.push(1.0),
            }
        } else if a.cache_estimate.is_some() {
            failures.push(format!(
                "trace {i}: a cache estimate for a run without a cliff"
            ));
        }
    }
    errors.sort_by(|a, b| a.total_cmp(b));
    let median_err = errors[errors.len() / 2];
    let p90_err = errors[errors.len() * 9 / 10];
    let right = right_count as f64 / count as f64;
    let coverage = covered as f64 / with_cliff as f64;
    eprintln!(
        "seed {seed}: {count} traces ({two} two-phase, {three} three-phase, {none} without a \
         cliff; {fine} at 100 ms): right number of cliffs {:.1}%, median cache error {:.3}%, \
         90th percentile {:.3}%, 95% interval coverage {:.1}%",
        100.0 * right,
        100.0 * median_err,
        100.0 * p90_err,
        100.0 * coverage
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(
        count >= 200,
        "the targets are defined over at least 200 traces"
    );
    assert!(
        right >= 0.98,
        "right number of cliffs in {:.1}% < 98%",
        100.0 * right
    );
    assert!(
        median_err <= 0.005,
        "median cache error {:.3}% > 0.5%",
        100.0 * median_err
    );
    assert!(
        coverage >= 0.95,
        "95% interval coverage {:.1}% < 95%",
        100.0 * coverage
    );
}

/// Cache phases of 2 to 12 samples at the very start of the run (the cache phase of a small
/// or emulated cache, or a fast drive sampled coarsely): levels from the published drives,
/// noise and dips as in the main set, 1 s and 100 ms samples.
#[test]
fn short_cache_phases_at_the_start() {
    let drives = synth::parse_published_drives(&repo_data("published-drives.csv"));
    let seed = env_u64("SLCCACHE_SEED", 20261129);
    let count = env_u64("SLCCACHE_TRACES", 400) as usize;
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5157);
    let (mut right, mut covered) = (0usize, 0usize);
    let mut errors = Vec::new();
    let mut failures = Vec::new();
    for i in 0..count {
        // 2 to 12 samples touched by the cache phase, the last one straddling the drop.
        let spec = synth::short_start_spec(&drives, &mut rng);
        let (a, b, interval_s) = (spec.phases[0].bps, spec.phases[1].bps, spec.interval_s);
        let k = (spec.phases[0].end_bytes.unwrap_or(0.0) / (a * interval_s)).floor() + 1.0;
        let (t, truth) = synth::simulate(&spec, rng.u64(..));
        let an = analyze(&t);
        let c = truth.drop_bytes[0];
        if an.cliffs.len() == 1 {
            right += 1;
        }
        match &an.cache_estimate {
            Some(e) => {
                errors.push((e.bytes as f64 - c).abs() / c);
                if (e.low_bytes as f64) <= c && c <= e.high_bytes as f64 {
                    covered += 1;
                } else {
                    failures.push(format!(
                        "trace {i}: {}-{} misses {c:.0} ({k} samples of {interval_s} s, {:.0} -> \
                         {:.0} MB/s)",
                        e.low_bytes,
                        e.high_bytes,
                        a / 1e6,
                        b / 1e6
                    ));
                }
            }
            None => {
                errors.push(1.0);
                failures.push(format!(
                    "trace {i}: no cliff ({k} samples of {interval_s} s, {:.0} -> {:.0} MB/s): \
                     {:?}",
                    a / 1e6,
                    b / 1e6,
                    an.warnings
                ));
            }
        }
    }
    errors.sort_by(|a, b| a.total_cmp(b));
    let median_err = errors[errors.len() / 2];
    let right = right as f64 / count as f64;
    let coverage = covered as f64 / count as f64;
    eprintln!(
        "seed {seed}: {count} traces with a cache phase of 2-12 samples at the start: right \
         number of cliffs {:.1}%, median cache error {:.3}%, 95% interval coverage {:.1}%",
        100.0 * right,
        100.0 * median_err,
        100.0 * coverage
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(
        right >= 0.95,
        "right number of cliffs {:.1}% < 95%",
        100.0 * right
    );
    assert!(
        median_err <= 0.01,
        "median cache error {:.3}% > 1%",
        100.0 * median_err
    );
    assert!(coverage >= 0.90, "coverage {:.1}% < 90%", 100.0 * coverage);
}
