//! The detector against synthetic traces with known truth, drawn fresh from a seed.
//!
//! Levels and cache sizes come from `../shared/data/published-drives.csv`. Set
//! `SLCCACHE_SEED` to draw another set and `SLCCACHE_TRACES` to change how many.

use slccache::detect::{analyze, synth};

fn shared_data(file: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): the tests need the shared data folder beside the crate \
             (../shared/data relative to the crate root)",
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
    let drives = synth::parse_published_drives(&shared_data("published-drives.csv"));
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
