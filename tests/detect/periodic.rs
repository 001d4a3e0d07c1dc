//! Periodic slowdowns: a day-long steady run with dips every ten minutes (the shape of
//! Percona's 960 Pro random-read day: 1.5 GB/s with dips to 0.8 GB/s) is reported as periodic
//! slowdowns with the right period, depth and duration, and not as cliffs; runs without a
//! period are not.

use slccache::detect::analyze;
use slccache::timeline::{ReadStats, RunMeta, Timeline};

/// A steady run of `secs` one-second samples at `level` with 3% noise and dips of `dip_s`
/// seconds to `depth` of the level every `period_s` seconds (starts jittered by up to
/// `jitter_s`). With `reads`, the throughput is in the read columns (a random-read run).
fn steady_with_dips(
    secs: usize,
    period_s: f64,
    dip_s: f64,
    depth: f64,
    jitter_s: f64,
    seed: u64,
    reads: bool,
) -> Timeline {
    let mut rng = fastrand::Rng::with_seed(seed);
    let level = 1.5e9;
    let mut starts = Vec::new();
    let mut t = period_s * 0.5;
    while t < secs as f64 {
        starts.push(t + (rng.f64() * 2.0 - 1.0) * jitter_s);
        t += period_s;
    }
    let pts: Vec<(f64, f64, f64)> = (0..secs)
        .map(|i| {
            let mid = i as f64 + 0.5;
            let inside = starts.iter().any(|&s| mid >= s && mid < s + dip_s);
            let noise = 1.0 + 0.03 * (rng.f64() * 2.0 - 1.0) * 1.7;
            let r = if inside { level * depth } else { level } * noise;
            ((i + 1) as f64, 1.0, r)
        })
        .collect();
    let mut tl = Timeline::from_rates(&pts, RunMeta::default());
    if reads {
        for s in &mut tl.samples {
            s.read = Some(ReadStats {
                bytes: s.bytes,
                iops: s.bytes_per_sec / 4096.0,
                ..ReadStats::default()
            });
            s.bytes = 0;
            s.bytes_per_sec = 0.0;
            s.bytes_total = 0;
            s.iops = 0.0;
        }
    }
    tl
}

#[test]
fn a_day_with_dips_every_ten_minutes_is_periodic_not_cliffs() {
    for (seed, reads) in [(1u64, true), (2, false), (3, true)] {
        let t = steady_with_dips(86_400, 600.0, 40.0, 0.55, 10.0, seed, reads);
        let a = analyze(&t);
        let p = a
            .periodic
            .as_ref()
            .unwrap_or_else(|| panic!("seed {seed}: no periodic slowdowns found: {a:#?}"));
        assert!(
            (p.period_s - 600.0).abs() < 15.0,
            "seed {seed}: period {}",
            p.period_s
        );
        assert!(
            (p.depth - 0.55).abs() < 0.05,
            "seed {seed}: depth {}",
            p.depth
        );
        assert!(
            (p.duration_s - 40.0).abs() <= 3.0,
            "seed {seed}: duration {}",
            p.duration_s
        );
        assert!(
            p.regularity > 0.9,
            "seed {seed}: regularity {}",
            p.regularity
        );
        assert!(
            (140..=145).contains(&p.count),
            "seed {seed}: {} dips",
            p.count
        );
        assert!(
            a.cliffs.is_empty(),
            "seed {seed}: dips called cliffs: {:?}",
            a.cliffs
        );
        assert!(a.cache_estimate.is_none());
        let line = p.describe();
        assert!(
            line.starts_with("periodic slowdowns, every 10.0 min, to 5"),
            "{line}"
        );
        assert!(
            a.warnings.iter().any(|w| w.text == line),
            "{:?}",
            a.warnings
        );
        // The JSON contract: analysis.periodic {period_s, depth, duration_s}.
        let j = serde_json::to_value(&a).unwrap();
        assert!(j["periodic"]["period_s"].is_number());
        assert!(j["periodic"]["depth"].is_number());
        assert!(j["periodic"]["duration_s"].is_number());
    }
}

#[test]
fn irregular_dips_and_plain_runs_are_not_periodic() {
    // Dips at random times (jitter as large as the period, and a Poisson-like spread):
    // no period.
    for seed in 4..8 {
        let t = steady_with_dips(20_000, 600.0, 40.0, 0.55, 300.0, seed, false);
        let a = analyze(&t);
        assert!(a.periodic.is_none(), "{:?}", a.periodic);
    }
    // A steady run without dips, and a run with one cliff.
    let t = steady_with_dips(5_000, 600.0, 0.0, 1.0, 0.0, 5, false);
    assert!(analyze(&t).periodic.is_none());
    let pts: Vec<(f64, f64, f64)> = (0..600)
        .map(|i| {
            let r = if i < 200 { 1.8e9 } else { 0.6e9 };
            (
                (i + 1) as f64,
                1.0,
                r * (1.0 + 0.02 * ((i * 7 % 11) as f64 / 11.0 - 0.5)),
            )
        })
        .collect();
    let a = analyze(&Timeline::from_rates(&pts, RunMeta::default()));
    assert!(a.periodic.is_none(), "{:?}", a.periodic);
    assert_eq!(a.cliffs.len(), 1, "the cliff is still a cliff");
}
