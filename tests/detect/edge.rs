//! The detector on edge cases: cache phases of a few samples at the very start, thermal
//! throttling that cycles after the cliff, and very short runs.

use slccache::cli::{Pattern, WorkloadArgs};
use slccache::config::WorkloadConfig;
use slccache::detect::synth::{simulate as synth, PhaseSpec, TraceSpec};
use slccache::detect::{analyze, Analysis, PhaseKind, WarningKind};
use slccache::experiment::virtual_time::simulate;
use slccache::model::presets;
use slccache::timeline::{RunMeta, Timeline};

/// Things every analysis must satisfy, whatever the input.
fn check_invariants(a: &Analysis, what: &str) {
    assert!(
        !a.phases.is_empty() || a.duration_s == 0.0,
        "{what}: {a:#?}"
    );
    for p in &a.phases {
        assert!(p.end_s >= p.start_s, "{what}: {p:?}");
        assert!(p.mean_bytes_per_sec.is_finite() && p.mean_bytes_per_sec >= 0.0);
    }
    assert!(a.cliffs.len() < a.phases.len().max(1), "{what}: {a:#?}");
    match (&a.cache_estimate, a.cache_lower_bound_bytes) {
        (Some(e), None) => {
            assert!(
                e.low_bytes <= e.bytes && e.bytes <= e.high_bytes,
                "{what}: {e:?}"
            );
            assert!(e.high_bytes <= a.bytes_total, "{what}: {e:?}");
            assert_eq!(e.bytes, a.cliffs[0].bytes_written);
        }
        (None, Some(lb)) => {
            // Without a cache size only a later tier's cliffs, after a drop inside the first
            // sample, are cliffs.
            assert!(
                a.cliffs.is_empty()
                    || a.unconfirmed_drop
                        .as_ref()
                        .is_some_and(|d| d.at == slccache::detect::DropWhere::FirstSample),
                "{what}"
            );
            assert!(lb <= a.bytes_total, "{what}: {lb} > {}", a.bytes_total);
            assert!(!a.warnings.is_empty(), "{what}: no warning without a cliff");
        }
        // A drop inside the first sample gives its own bounds (on every tier that ran out in
        // that sample together), and no bound on the cache beside them.
        (None, None)
            if a.unconfirmed_drop
                .as_ref()
                .is_some_and(|d| d.at == slccache::detect::DropWhere::FirstSample) =>
        {
            let d = a.unconfirmed_drop.as_ref().unwrap();
            assert!(d.bytes_low <= d.bytes_high, "{what}: {d:?}");
            assert!(!a.warnings.is_empty(), "{what}: no warning of the drop");
        }
        // Too few samples to see a cliff bound no cache either, and say so.
        (None, None) => {
            assert!(a.cliffs.is_empty(), "{what}");
            assert!(
                a.warnings
                    .iter()
                    .any(|w| w.contains("too few to find a cliff")),
                "{what}: neither an estimate nor a bound, and no word why: {:?}",
                a.warnings
            );
        }
        other => panic!("{what}: estimate and lower bound {other:?}"),
    }
}

fn mb(rates: &[f64], interval_s: f64) -> Timeline {
    let pts: Vec<(f64, f64, f64)> = rates
        .iter()
        .enumerate()
        .map(|(i, r)| ((i + 1) as f64 * interval_s, interval_s, r * 1e6))
        .collect();
    Timeline::from_rates(&pts, RunMeta::default())
}

/// A log whose every in-cache row is 2000 MB/s was reported at 2001 MB/s (and one with the
/// drop inside a sample at 1999 MB/s): the level was the bytes to the cliff's estimated
/// place over its time, and that place is an estimate inside a sample. A level is now its
/// whole samples', and a flat one is exactly what the rows say.
#[test]
fn a_flat_level_is_the_rate_its_rows_give() {
    for (drop_at, astride) in [(20, None), (20, Some(1300.0))] {
        let mut rates: Vec<f64> = (0..60)
            .map(|i| if i < drop_at { 2000.0 } else { 600.0 })
            .collect();
        if let Some(r) = astride {
            rates[drop_at] = r;
        }
        let a = analyze(&mb(&rates, 1.0));
        check_invariants(&a, "flat");
        assert_eq!(a.cliffs.len(), 1, "{a:#?}");
        let c = &a.cliffs[0];
        assert!(
            (c.before_bytes_per_sec / 2000e6 - 1.0).abs() < 1e-9,
            "{astride:?}: {c:?}"
        );
        assert!(
            (c.after_bytes_per_sec / 600e6 - 1.0).abs() < 1e-9,
            "{astride:?}: {c:?}"
        );
    }
}

/// "After the cache" and the level of the one phase after the cliff were two figures once
/// the phase took its whole samples (598 MB/s on the terminal and the card, 599 MB/s on the
/// chart's label and report.md's phase row): the stretch is of the same whole samples.
#[test]
fn after_the_cache_is_the_level_of_the_phase_after_the_cliff() {
    for seed in 1..=4 {
        let m = presets::parse_spec("960evo-500g").unwrap();
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            max_bytes: Some("40GB".into()),
            seed: Some(seed),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        assert_eq!(a.cliffs.len(), 1, "{seed}");
        let after = a.after_cache.as_ref().expect("after the cache");
        let phase = a.phases.last().unwrap();
        assert_eq!(a.phases.len(), 2, "{seed}: {:?}", a.phases);
        assert!(
            (after.mean_bytes_per_sec / phase.mean_bytes_per_sec - 1.0).abs() < 1e-12,
            "{seed}: after the cache {} vs the phase's {}",
            after.mean_bytes_per_sec,
            phase.mean_bytes_per_sec
        );
    }
}

/// The real-time probe of `emu:960evo-500g,cache=4GB` at 1.8 GB/s that once reported "no
/// cliff, the cache holds at least 14.4 GB".
#[test]
fn two_samples_of_cache_then_a_lasting_third_of_the_speed_is_a_cliff() {
    let rates = [
        1792.0, 1806.0, 848.0, 602.0, 603.0, 603.0, 606.0, 587.0, 419.0, 600.0, 582.0, 586.0,
        586.0, 597.0, 606.0, 603.0, 587.0, 586.0, 596.0, 599.0,
    ];
    let a = analyze(&mb(&rates, 1.0));
    check_invariants(&a, "probe trace");
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    let c = &a.cliffs[0];
    assert!((2.0..2.5).contains(&c.t_s), "{c:?}");
    let e = a.cache_estimate.as_ref().unwrap();
    assert!((e.bytes as f64 / 4.0e9 - 1.0).abs() < 0.03, "{e:?}");
    assert!(
        e.low_bytes as f64 <= 4.0e9 && 4.0e9 <= e.high_bytes as f64,
        "{e:?}"
    );
    assert!(
        a.warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::CoarseSampling { .. })),
        "{:?}",
        a.warnings
    );
    let kinds: Vec<_> = a.phases.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [PhaseKind::Cache, PhaseKind::PostCache]);
}

fn emulated_960evo(cache: &str, interval: &str, duration: &str) -> (Analysis, u64) {
    let m = presets::parse_spec(&format!("960evo-500g,cache={cache}")).unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        pattern: Some(Pattern::Seqwrite),
        interval: Some(interval.to_string()),
        duration: Some(duration.to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = analyze(&sim.timeline);
    check_invariants(&a, cache);
    (a, sim.truth.cache_bytes)
}

#[test]
fn short_caches_of_the_simulated_960_evo_are_found() {
    for cache in ["2GB", "4GB", "6GB"] {
        let (a, truth) = emulated_960evo(cache, "1s", "20s");
        assert_eq!(a.cliffs.len(), 1, "{cache}: {a:#?}");
        let e = a.cache_estimate.as_ref().unwrap();
        let t = truth as f64;
        assert!((e.bytes as f64 / t - 1.0).abs() < 0.05, "{cache}: {e:?}");
        assert!(
            e.low_bytes as f64 <= t && t <= e.high_bytes as f64,
            "{cache}: {e:?} vs {truth}"
        );
        assert!(
            a.warnings
                .iter()
                .any(|w| matches!(w.kind, WarningKind::CoarseSampling { .. })),
            "{cache}: {:?}",
            a.warnings
        );
        // Sampled every 100 ms the same drive gives a tight estimate.
        let (a, _) = emulated_960evo(cache, "100ms", "20s");
        assert_eq!(a.cliffs.len(), 1, "{cache} at 100 ms: {a:#?}");
        let e = a.cache_estimate.as_ref().unwrap();
        assert!((e.bytes as f64 / t - 1.0).abs() < 0.01, "{cache}: {e:?}");
        assert!(e.low_bytes as f64 <= t && t <= e.high_bytes as f64);
    }
}

#[test]
fn a_cache_that_ends_inside_the_first_sample_is_not_hidden_behind_a_lower_bound() {
    // 1 GB at 1.8 GB/s runs out 0.56 s into the first 1 s sample: the level before the drop
    // is never seen, so no cliff; but "at least everything written" would be wrong.
    let (a, truth) = emulated_960evo("1GB", "1s", "20s");
    assert!(a.cliffs.is_empty(), "{a:#?}");
    // The drop's bounds, and no bound on the cache beside them.
    let lb = a.unconfirmed_drop.as_ref().unwrap().bytes_low;
    assert!(lb <= truth, "lower bound {lb} above the true cache {truth}");
    assert_eq!(a.cache_lower_bound_bytes, None);
    assert!(
        a.warnings.iter().any(|w| w.text.contains("first sample")),
        "{:?}",
        a.warnings
    );
    // At 100 ms it is a cliff like any other.
    let (a, truth) = emulated_960evo("1GB", "100ms", "20s");
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    let e = a.cache_estimate.unwrap();
    assert!((e.bytes as f64 / truth as f64 - 1.0).abs() < 0.02, "{e:?}");
}

#[test]
fn a_cache_inside_a_first_sample_of_minutes_is_no_drive_without_a_cache() {
    // The 960 EVO 250GB's 13 GB cache runs out 11 s into a first sample of 3 or 4 minutes,
    // which it lifts only 13-19% above the rest: "no SLC cache ran out" was said over the
    // whole drive. The sample holds about 10 GB over the level after it, more than a
    // start-up burst writes: a drop inside it, with bounds that hold the cache.
    for interval in ["3m", "4m"] {
        let m = presets::parse_spec("960evo-250g").unwrap();
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            interval: Some(interval.to_string()),
            seed: Some(1),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        check_invariants(&a, interval);
        assert!(a.cliffs.is_empty(), "{interval}: {a:#?}");
        let truth = sim.truth.cache_bytes;
        drop_holds(&a, truth, interval);
        assert!(
            a.unconfirmed_drop.as_ref().unwrap().bytes_low <= truth,
            "{interval}: {a:#?}"
        );
        assert_eq!(a.cache_lower_bound_bytes, None, "{interval}");
    }
    // A first sample of one second a little above the rest is still a start-up burst.
    let (a, _) = emulated_960evo("20GB", "1s", "8s");
    assert!(a.unconfirmed_drop.is_none(), "{a:#?}");
}

#[test]
fn a_lone_cliff_inside_the_first_sample_is_a_drop_not_a_size() {
    // The 960 EVO 500GB's 22 GB cache at 1365 MB/s runs out 16 s into a first sample of 30 s
    // to 2.5 min: no whole sample lies at the cache's level. It was "cache 49.9 GB (95%
    // interval 2.68 GB to 144 GB)" and "697 MB/s in the cache" at 2 min, a cliff confirmed
    // from the first sample's blend. It is a drop inside the first sample: bounds that hold
    // the cache, no size, no cliff, one steady phase.
    let m = presets::parse_spec("960evo-500g").unwrap();
    for interval in ["30s", "60s", "2m", "150s"] {
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            interval: Some(interval.to_string()),
            duration: Some("20m".to_string()),
            seed: Some(1),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        check_invariants(&a, interval);
        assert!(
            a.cliffs.is_empty() && a.cache_estimate.is_none(),
            "{interval}: {a:#?}"
        );
        let truth = sim.truth.cache_bytes;
        drop_holds(&a, truth, interval);
        assert!(
            a.phases.iter().all(|p| p.kind == PhaseKind::Steady),
            "{interval}: {:?}",
            a.phases
        );
        assert!(
            a.warnings
                .iter()
                .all(|w| !matches!(w.kind, WarningKind::CoarseSampling { .. })),
            "{interval}: {:?}",
            a.warnings
        );
    }
}

#[test]
fn a_cliff_inside_the_first_sample_before_a_later_tier_is_a_drop_not_a_size() {
    // The A2000 1TB's 150 GB cache at 2000 MB/s runs out 75 s into the run, then 500 MB/s to
    // 600 GB, then 400 MB/s. With a first sample of 2 min it said "cache 80.7 GB" and "1631
    // MB/s in the cache" (the first sample's blend); of 4 min, "cache 545 GB" and "652 MB/s
    // in the cache", the first sample blended into a "cache" level and the fall to 400 MB/s
    // taken for the cache's cliff. Both are a drop inside the first sample, bounds that hold
    // the cache, and the later fall is a later, slower tier's cliff, never the cache's.
    let m = presets::parse_spec("a2000-1tb").unwrap();
    let sized = |interval: &str| {
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            bs: Some("1M".to_string()),
            interval: Some(interval.to_string()),
            seed: Some(1),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        (analyze(&sim.timeline), sim.truth.cache_bytes)
    };
    for interval in ["2m", "4m"] {
        let (a, truth) = sized(interval);
        check_invariants(&a, interval);
        assert!(a.cache_estimate.is_none(), "{interval}: {a:#?}");
        drop_holds(&a, truth, interval);
        let f = slccache::detect::Findings::of(&a);
        assert!(f.in_cache_bytes_per_sec.is_none(), "{interval}: {f:?}");
        // The later fall, 500 -> 400 MB/s after 600 GB, is the one cliff.
        let [c] = a.cliffs.as_slice() else {
            panic!("{interval}: {:?}", a.cliffs)
        };
        assert!(
            (c.bytes_written as f64 / 600e9 - 1.0).abs() < 0.1,
            "{interval}: {c:?}"
        );
        assert!(
            (c.before_bytes_per_sec / 500e6 - 1.0).abs() < 0.05
                && (c.after_bytes_per_sec / 400e6 - 1.0).abs() < 0.05,
            "{interval}: {c:?}"
        );
        assert_eq!(
            a.phases.iter().map(|p| p.kind).collect::<Vec<_>>(),
            [PhaseKind::PostCache, PhaseKind::Folding],
            "{interval}"
        );
        // The level after the drop is the first post-cache level, as the folding warning
        // calls it (report.md said "tier 2", a name no other output gives).
        assert_eq!(
            f.phase_names,
            ["first post-cache level", "after the cache (folding)"],
            "{interval}"
        );
        // Its row starts where the first sample ends, at the rate of the samples after it,
        // and says what the first sample held: report.md said "tier 2: 496 MB/s (0.0 s to
        // 16.3 min)", and no row gave the first sample's 963 MB/s.
        let u = slccache::units::UnitSystem::Decimal;
        let d = a.unconfirmed_drop.as_ref().expect("the drop");
        let rows = slccache::detect::findings::phase_rows(&a, u);
        let fmt = |b| slccache::units::format_rate(b, u);
        let first = format!(
            "first post-cache level: {} ({} to ",
            fmt(a.phases[0].mean_bytes_per_sec),
            slccache::units::format_seconds(d.t_high_s)
        );
        assert!(rows[0].starts_with(&first), "{interval}: {rows:?}");
        assert!(
            rows[0].contains(&format!(
                "first {} sample (0.0 s to {}: at least {} -> {})",
                slccache::units::format_interval(d.interval_s),
                slccache::units::format_seconds(d.t_high_s),
                fmt(d.before_bytes_per_sec),
                fmt(d.after_bytes_per_sec)
            )),
            "{interval}: {rows:?}"
        );
        assert!(
            a.warnings
                .iter()
                .all(|w| !matches!(w.kind, WarningKind::CoarseSampling { .. })),
            "{interval}: {:?}",
            a.warnings
        );
    }
    // With whole samples at the cache's level, the cliff sizes the cache: the 150 GB of the
    // model within 2 % at 1 min samples (157 GB while a dip spanning the change could hide
    // its place anywhere in a 60 s sample) and 1 % at 30 s.
    for (interval, within) in [("1m", 0.02), ("30s", 0.01)] {
        let (a, _) = sized(interval);
        let e = a.cache_estimate.as_ref().expect("a size");
        assert!(
            (e.bytes as f64 / 150e9 - 1.0).abs() < within,
            "{interval}: {e:?}"
        );
        assert_eq!(a.cliffs.len(), 2, "{interval}");
    }
}

/// The FX700 2TB with 2 min samples: the first sample (3624 MB/s) holds the 54 GB tier and
/// most of the 3500 MB/s one, which runs out 7 s into the second. The cliff's place inside
/// that sample was put 52 s in, and the rate in the cache, read as the bytes to it over its
/// time, was 2741 MB/s: below every sample before the cliff. It is the level the whole sample
/// before the cliff shows, as at 1 s.
#[test]
fn a_lone_sample_before_a_late_cliff_is_the_rate_in_the_cache() {
    let m = presets::parse_spec("fx700-2tb").unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        pattern: Some(Pattern::Seqwrite),
        bs: Some("1M".to_string()),
        interval: Some("2m".to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = analyze(&sim.timeline);
    check_invariants(&a, "2m");
    let c = a.cliffs.first().expect("the cliff at 460 GB");
    let before: Vec<f64> = sim
        .timeline
        .samples
        .iter()
        .filter(|s| s.t_s <= c.t_s)
        .map(|s| s.bytes_per_sec)
        .collect();
    assert_eq!(before.len(), 1, "{c:?}");
    let f = slccache::detect::Findings::of(&a);
    let inside = f.in_cache_bytes_per_sec.expect("a rate in the cache");
    assert!(
        (inside / before[0] - 1.0).abs() < 1e-9,
        "{inside} against {before:?}"
    );
    assert_eq!(c.before_bytes_per_sec, inside);
    assert_eq!(f.steps[0].before_bytes_per_sec, inside);
}

/// The FX700 2TB at 2 min samples (randwrite 4K): its 3500 MB/s tier runs out 460 GB in, 7 s
/// into the second sample (346 MB/s). The cliff was put at 172 s, after 470 GB, the median of
/// a posterior spread evenly over the whole 120 s sample: the reading of that sample as a GC
/// dip spanning the change, which leaves the change's place inside it unknown, was as likely
/// as the mix of the two levels. A dip lasts at most MAX_DIP_S (3 s): in a longer sample it
/// cannot hide where the change lies, and the sample's rate places it.
#[test]
fn a_dip_cannot_hide_a_change_inside_a_sample_longer_than_any_dip() {
    let m = presets::parse_spec("fx700-2tb").unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        interval: Some("2m".to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = analyze(&sim.timeline);
    check_invariants(&a, "2m");
    let c = a.cliffs.first().expect("the cliff at 460 GB");
    // Where the 3500 MB/s tier ran out in the model: 460 GB.
    assert!(
        (c.bytes_written as f64 / 460e9 - 1.0).abs() < 0.01,
        "cliff after {} B: {c:?}",
        c.bytes_written
    );
}

/// A first cliff's time, rate before it and bytes before it tell one story: the rate before
/// it for the time to it is the bytes written before it, within 1 %. With samples of minutes
/// they parted: `simulate fx700-2tb --interval 2m` said "3620 MB/s before the cliff" to
/// 143.5 s beside 461 GB (3620 MB/s for 143.5 s is 519 GB): the level before the change was
/// read off two samples, one of them the straddling one, and a quantile inside a cell of
/// 7.5 s was read as if the posterior were even across it.
#[test]
fn a_first_cliff_s_time_rate_and_bytes_agree_at_coarse_samples() {
    for (preset, interval) in [
        ("fx700-2tb", "2m"),
        ("fx700-2tb", "4m"),
        ("a2000-1tb", "2m"),
        ("980pro-1tb", "1m"),
        ("nv2-1tb", "2m"),
    ] {
        let m = presets::parse_spec(preset).unwrap();
        for seed in [1, 2, 3] {
            let w = WorkloadConfig::resolve(&WorkloadArgs {
                interval: Some(interval.to_string()),
                seed: Some(seed),
                ..Default::default()
            })
            .unwrap();
            let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
            let a = analyze(&sim.timeline);
            let what = format!("{preset} at {interval}, seed {seed}");
            check_invariants(&a, &what);
            let Some(c) = a.cliffs.first() else { continue };
            // The sample that holds the cliff, and the rate of the whole sample before it.
            let v = &sim.timeline.samples;
            let k = v.partition_point(|s| s.t_s <= c.t_s);
            if k == 0 || k >= v.len() {
                continue;
            }
            let start = v[k].t_s - v[k].interval_s;
            let rate = v[k - 1].bytes_per_sec;
            let told = v[k - 1].bytes_total as f64 + rate * (c.t_s - start);
            assert!(
                (told / c.bytes_written as f64 - 1.0).abs() < 0.01,
                "{what}: {:.1} GB by {start:.1} s and {:.0} MB/s to {:.1} s is {:.1} GB, \
                 beside {:.1} GB",
                v[k - 1].bytes_total as f64 / 1e9,
                rate / 1e6,
                c.t_s,
                told / 1e9,
                c.bytes_written as f64 / 1e9
            );
            // The first cliff of a run whose first sample is at the cache's rate: the rate
            // before it for the time to it.
            if k == 1 {
                let told = c.before_bytes_per_sec * c.t_s;
                assert!(
                    (told / c.bytes_written as f64 - 1.0).abs() < 0.01,
                    "{what}: {:.0} MB/s to {:.1} s is {:.1} GB, beside {:.1} GB",
                    c.before_bytes_per_sec / 1e6,
                    c.t_s,
                    told / 1e9,
                    c.bytes_written as f64 / 1e9
                );
            }
        }
    }
}

/// The FX700 2TB writes 54 GB at 5000 MB/s, then 3500 MB/s to 460 GB. With samples of 30 s
/// to 2 min the first tier runs out inside the first sample, which it lifts 4-15%, and the
/// cliff at 460 GB was given as the cache's size with no word that a faster first tier could
/// hide before it. Every such run now says so (a typed warning, the findings' words), with
/// the first sample's bytes as the largest such tier, which holds the true one; the card gives
/// the cliff, not a cache size. At 1 s the first tier is seen and nothing is said.
#[test]
fn a_late_first_cliff_says_a_faster_tier_may_hide_in_the_first_sample() {
    let m = presets::parse_spec("fx700-2tb").unwrap();
    let run = |interval: &str| {
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            bs: Some("1M".to_string()),
            interval: Some(interval.to_string()),
            seed: Some(1),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        (sim, a)
    };
    let u = slccache::units::UnitSystem::Decimal;
    for interval in ["30s", "1m", "2m"] {
        let (sim, a) = run(interval);
        check_invariants(&a, interval);
        assert!(a.cache_estimate.is_some(), "{interval}: {a:#?}");
        let first = &sim.timeline.samples[0];
        let h = a.first_sample_hides.expect("a tier the first sample hides");
        assert_eq!(h.bytes, first.bytes, "{interval}");
        assert!(h.bytes >= sim.truth.cache_bytes, "{interval}: {h:?}");
        assert!(
            a.warnings.iter().any(|w| matches!(
                w.kind,
                WarningKind::FirstTierMayHide { bytes, .. } if bytes == h.bytes
            )),
            "{interval}: {:?}",
            a.warnings
        );
        let f = slccache::detect::Findings::of(&a);
        assert_eq!(f.first_sample_hides, Some(h), "{interval}");
        for text in [
            f.cache_text(u),
            f.cache_row(u),
            slccache::report::console::terminal::result_clauses(&a, u),
        ] {
            assert!(
                text.contains("unless a faster first tier of up to"),
                "{interval}: {text}"
            );
        }
        let (_, cache, in_cache, _) =
            slccache::report::pages::card::card_texts(&sim.timeline, &a, u);
        assert!(cache.starts_with("Cliff after"), "{interval}: {cache}");
        assert!(!in_cache.contains("in cache"), "{interval}: {in_cache}");
        let note = slccache::report::pages::card::card_note(&a, u).unwrap();
        assert!(
            note.starts_with("a faster first tier of up to"),
            "{interval}: {note}"
        );
        // report.md's phase row and the tables' rate "in cache" said "SLC cache: 3607 MB/s"
        // and "3607 MB/s" beside the hedged size: the stretch before the cliff is named as
        // the card names it.
        assert_eq!(f.phase_names[0], "before the cliff", "{interval}");
        let cell = f.in_cache_cell(u).unwrap();
        assert!(cell.ends_with(" (before the cliff)"), "{interval}: {cell}");
        // The one-line result (`-q`, analyze's line, probe's closing line) said "3608 MB/s
        // in the cache" beside it: the same name.
        let line = slccache::report::console::terminal::result_clauses(&a, u);
        assert!(
            line.contains(" before the cliff") && !line.contains("in the cache"),
            "{interval}: {line}"
        );
    }
    let (_, a) = run("1s");
    assert_eq!(a.cliffs.len(), 2, "{a:#?}");
    assert!(a.first_sample_hides.is_none(), "{a:#?}");
    assert!(
        a.warnings
            .iter()
            .all(|w| !matches!(w.kind, WarningKind::FirstTierMayHide { .. })),
        "{:?}",
        a.warnings
    );
}

#[test]
fn no_cliff_at_coarse_samples_never_rules_out_a_cache_the_first_sample_hides() {
    // Caches of 2 to 8 GB run out inside a first sample of 1 or 4 minutes and lift it by
    // 7-10%, less than a step: "the whole drive was written without a cliff: no SLC cache ran
    // out". Every such run now either sees the drop (bounds that hold the cache) or says how
    // large a cache the first sample could hide, which must hold the true one.
    for (cache, interval) in [("2GB", "4m"), ("5GB", "4m"), ("8GB", "4m"), ("4GB", "2m")] {
        let m = presets::parse_spec(&format!("960evo-250g,cache={cache}")).unwrap();
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            interval: Some(interval.to_string()),
            seed: Some(1),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        let what = format!("{cache} at {interval}");
        check_invariants(&a, &what);
        let truth = sim.truth.cache_bytes;
        match (
            &a.unconfirmed_drop,
            &a.first_sample_hides,
            a.cliffs.is_empty(),
        ) {
            (Some(d), _, true) => assert!(
                d.bytes_low <= truth && truth <= d.bytes_high,
                "{what}: {d:?} against {truth}"
            ),
            (None, Some(h), true) => {
                assert!(h.bytes > truth, "{what}: hides {h:?}, truth {truth}");
                let text = slccache::detect::Findings::of(&a)
                    .cache_text(slccache::units::UnitSystem::Decimal);
                assert!(
                    !text.ends_with("no SLC cache ran out") && text.contains("would not show"),
                    "{what}: {text}"
                );
            }
            _ => panic!("{what}: {a:#?}"),
        }
    }
    // At 1 s the first sample hides less than any published drive's cache: nothing is said
    // of it, on a 3 GB/s drive too (2.2 GB could hide there).
    let (a, _) = emulated_960evo("20GB", "1s", "8s");
    assert!(a.first_sample_hides.is_none(), "{a:#?}");
    let flat = TraceSpec {
        phases: vec![phase(3.25e9, None, 0.01)],
        interval_s: 1.0,
        duration_s: 57.0,
        heavy_tails: false,
        dips: vec![],
    };
    let (t, _) = synth(&flat, 1);
    let a = analyze(&t);
    assert!(
        a.cliffs.is_empty() && a.first_sample_hides.is_none(),
        "{a:#?}"
    );
}

#[test]
fn a_timeline_cut_past_its_cliff_is_no_drive_without_a_cache() {
    // The 960 EVO 250GB's timeline.csv with its first 12 rows removed: 13.4 GB were written
    // before its first row, at four times the level after, and its cliff (10.5 s) is gone.
    // It said "no cache, or one larger than 8.51 GB". The missing start is read as one long
    // first sample: a drop there, with bounds that hold the cache.
    let m = presets::parse_spec("960evo-250g").unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        duration: Some("40s".to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let mut t = sim.timeline.clone();
    t.samples.drain(..12);
    let a = analyze(&t);
    check_invariants(&a, "cut");
    assert!(a.cliffs.is_empty(), "{a:#?}");
    drop_holds(&a, sim.truth.cache_bytes, "cut");
    // Cut before its cliff, the same timeline still gives the cliff and its size.
    let mut t = sim.timeline.clone();
    t.samples.drain(..5);
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
}

/// The analysis `a` saw a drop it could not confirm, with bounds that hold the true cache.
fn drop_holds(a: &Analysis, truth: u64, what: &str) {
    let d = a
        .unconfirmed_drop
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no drop in {a:#?}"));
    assert!(
        d.bytes_low <= truth && truth <= d.bytes_high,
        "{what}: {d:?} against {truth}"
    );
}

fn phase(bps: f64, end_bytes: Option<f64>, noise: f64) -> PhaseSpec {
    PhaseSpec {
        bps,
        end_bytes,
        drift: 0.0,
        noise,
    }
}

#[test]
fn a_cache_phase_of_two_to_six_samples_at_the_start_is_found() {
    for interval_s in [1.0, 0.1] {
        for k in 2..=6 {
            for seed in 0..4u64 {
                // k samples at 3 GB/s (the last one straddling), then 1 GB/s for 40 s with
                // a 2 s GC dip in the middle; heavy tails on odd seeds.
                let cache = 3e9 * interval_s * (k as f64 - 0.4);
                let s = TraceSpec {
                    phases: vec![phase(3e9, Some(cache), 0.01), phase(1e9, None, 0.03)],
                    interval_s,
                    duration_s: k as f64 * interval_s + 40.0,
                    heavy_tails: seed % 2 == 1,
                    dips: vec![(20.0, 2.0, 0.4)],
                };
                let (t, truth) = synth(&s, seed);
                let a = analyze(&t);
                let what = format!("{k} samples of {interval_s} s, seed {seed}");
                check_invariants(&a, &what);
                assert_eq!(a.cliffs.len(), 1, "{what}: {a:#?}");
                let e = a.cache_estimate.as_ref().unwrap();
                let c = truth.drop_bytes[0];
                assert!(
                    (e.bytes as f64 / c - 1.0).abs() < 0.1,
                    "{what}: {e:?} vs {c}"
                );
                assert!(
                    e.low_bytes as f64 <= c && c <= e.high_bytes as f64,
                    "{what}: {e:?} vs {c}"
                );
            }
        }
    }
}

#[test]
fn a_high_start_that_the_run_returns_to_is_not_a_cliff() {
    // Two high samples, a lower stretch, then back at the high level for good: a slow
    // stretch at the start, not a cache.
    let mut rates = vec![3000.0, 3010.0];
    rates.extend(std::iter::repeat_n(1000.0, 6));
    rates.extend(std::iter::repeat_n(3000.0, 30));
    let a = analyze(&mb(&rates, 1.0));
    check_invariants(&a, "return");
    assert!(a.cliffs.is_empty(), "{a:#?}");
    assert_eq!(a.cache_lower_bound_bytes, Some(a.bytes_total));
}

#[test]
fn throttle_cycles_after_the_cliff_do_not_move_it() {
    // 2 GB/s to 40 GB, then 1 GB/s, and the drive throttles: 500 MB/s and 1 GB/s in turn,
    // 0.5 s samples (the TechPowerUp method on a hot P5).
    let mut phases = vec![phase(2e9, Some(40e9), 0.02)];
    let mut at = 40e9;
    for i in 0..7 {
        let (bps, secs) = if i % 2 == 0 { (1e9, 60.0) } else { (5e8, 50.0) };
        at += bps * secs;
        phases.push(phase(bps, Some(at), 0.02));
    }
    phases.push(phase(1e9, None, 0.02));
    let s = TraceSpec {
        phases,
        interval_s: 0.5,
        duration_s: 440.0,
        heavy_tails: false,
        dips: vec![(100.0, 1.0, 0.5), (300.0, 2.0, 0.4)],
    };
    let (t, truth) = synth(&s, 11);
    assert!(truth.drop_bytes.len() >= 3, "{truth:?}");
    let a = analyze(&t);
    check_invariants(&a, "throttle");
    assert_eq!(a.cliffs.len(), 1, "{:#?}", a.cliffs);
    let e = a.cache_estimate.as_ref().unwrap();
    assert!((e.bytes as f64 / 40e9 - 1.0).abs() < 0.005, "{e:?}");
    assert!(a.phases.iter().all(|p| p.kind != PhaseKind::Folding));
    assert!(
        a.warnings
            .iter()
            .any(|w| w.contains("post-cache level unstable")),
        "{:?}",
        a.warnings
    );
}

#[test]
fn a_folding_phase_that_lasts_is_still_a_second_cliff() {
    // The recovery rule must not swallow a real third phase.
    let s = TraceSpec {
        phases: vec![
            phase(2e9, Some(40e9), 0.02),
            phase(1e9, Some(100e9), 0.02),
            phase(3e8, None, 0.03),
        ],
        interval_s: 0.5,
        duration_s: 200.0,
        heavy_tails: false,
        dips: vec![],
    };
    let (t, truth) = synth(&s, 12);
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 2, "{:#?}", a.cliffs);
    for (c, want) in a.cliffs.iter().zip(&truth.drop_bytes) {
        assert!((c.bytes_written as f64 / want - 1.0).abs() < 0.005, "{c:?}");
    }
}

#[test]
fn very_short_runs_do_not_panic_and_say_what_they_can() {
    let shapes: Vec<(&str, Vec<f64>)> = vec![
        ("flat3", vec![1000.0; 3]),
        ("flat4", vec![1000.0; 4]),
        ("flat5", vec![1000.0; 5]),
        ("drop3", vec![1800.0, 1800.0, 600.0]),
        ("drop4", vec![1800.0, 1800.0, 600.0, 600.0]),
        ("drop5", vec![1800.0, 1800.0, 600.0, 600.0, 600.0]),
        ("late5", vec![1800.0, 1800.0, 1800.0, 1800.0, 600.0]),
        ("rise5", vec![600.0, 600.0, 1800.0, 1800.0, 1800.0]),
        ("zeros5", vec![0.0; 5]),
        ("stall5", vec![1000.0, 0.0, 1000.0, 0.0, 1000.0]),
        ("burst5", vec![3000.0, 1000.0, 1000.0, 1000.0, 1000.0]),
    ];
    for interval_s in [1.0, 0.1] {
        for (name, rates) in &shapes {
            let a = analyze(&mb(rates, interval_s));
            check_invariants(&a, name);
            assert!(a.cliffs.is_empty(), "{name}: {a:#?}");
        }
    }
    // Three seconds at 1.8 GB/s and two at 600 MB/s: the drop lasts no longer than a GC
    // pause can, so no cliff, but no "at least all that was written" either.
    let a = analyze(&mb(&[1800.0, 1800.0, 600.0, 600.0, 600.0], 1.0));
    assert_eq!(a.cache_lower_bound_bytes, Some(3_600_000_000), "{a:#?}");
    assert!(
        a.warnings
            .iter()
            .any(|w| w.text.contains("too short to tell")),
        "{:?}",
        a.warnings
    );
    let a = analyze(&mb(&[1800.0, 1800.0, 1800.0, 600.0, 600.0], 1.0));
    assert_eq!(a.cache_lower_bound_bytes, Some(5_400_000_000), "{a:#?}");
}

#[test]
fn runs_of_a_few_seconds_at_100_ms() {
    for (secs, cache_s, want) in [
        (2.0, None, 0),
        (3.0, None, 0),
        (5.0, None, 0),
        (5.0, Some(1.0), 1),
        (8.0, Some(2.5), 1),
        (3.0, Some(1.5), 0),
    ] {
        let phases = match cache_s {
            Some(c) => vec![phase(3e9, Some(3e9 * c), 0.02), phase(1e9, None, 0.03)],
            None => vec![phase(2e9, None, 0.02)],
        };
        let s = TraceSpec {
            phases,
            interval_s: 0.1,
            duration_s: secs,
            heavy_tails: false,
            dips: vec![],
        };
        let (t, truth) = synth(&s, 21);
        let a = analyze(&t);
        let what = format!("{secs} s run, cache {cache_s:?} s");
        check_invariants(&a, &what);
        assert_eq!(a.cliffs.len(), want, "{what}: {a:#?}");
        if let (Some(e), Some(&c)) = (&a.cache_estimate, truth.drop_bytes.first()) {
            assert!(
                (e.bytes as f64 / c - 1.0).abs() < 0.03,
                "{what}: {e:?} vs {c}"
            );
        }
        if want == 0 {
            // A drop the run saw but could not confirm keeps the lower bound honest.
            let lb = a.cache_lower_bound_bytes.unwrap() as f64;
            if let Some(&c) = truth.drop_bytes.first() {
                assert!(lb <= c * 1.001, "{what}: lower bound {lb} above {c}");
            }
        }
    }
}

#[test]
fn random_short_runs_keep_the_invariants() {
    // Short runs of random shapes: levels, drops, rises, stalls and spikes, 1 s and 100 ms.
    let mut rng = fastrand::Rng::with_seed(20261129);
    for i in 0..3000 {
        let n = rng.usize(1..80);
        let interval_s = [1.0, 0.1, 0.5, 0.02][rng.usize(..4)];
        let mut level = 10f64.powf(rng.f64() * 4.0);
        let rates: Vec<f64> = (0..n)
            .map(|_| {
                if rng.u32(..10) == 0 {
                    level *= 10f64.powf(rng.f64() * 2.0 - 1.0);
                }
                match rng.u32(..30) {
                    0 => 0.0,
                    1 => level * 50.0,
                    _ => level * (1.0 + 0.05 * (rng.f64() - 0.5)),
                }
            })
            .collect();
        let a = analyze(&mb(&rates, interval_s));
        check_invariants(&a, &format!("random run {i}: {rates:?} at {interval_s} s"));
    }
}

#[test]
fn one_full_sample_and_a_faint_straddle_is_a_cliff() {
    // 2.95 GB/s for the first second and 10% of the next, then ~975 MB/s: the second sample
    // is only 20% above the level after it, yet it makes the first a whole cache sample.
    let mut rates = vec![2950.0, 1180.0];
    rates.extend((0..30).map(|i| 975.0 * (1.0 + 0.03 * ((i * 7 % 5) as f64 - 2.0) / 2.0)));
    let a = analyze(&mb(&rates, 1.0));
    check_invariants(&a, "faint straddle");
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    let truth = 2950e6 + 2950e6 * (1180.0 - 975.0) / (2950.0 - 975.0);
    let e = a.cache_estimate.unwrap();
    assert!(
        (e.bytes as f64 / truth - 1.0).abs() < 0.05,
        "{e:?} vs {truth}"
    );
    assert!(
        e.low_bytes as f64 <= truth && truth <= e.high_bytes as f64,
        "{e:?}"
    );
}

#[test]
fn a_ramp_up_first_sample_does_not_hide_a_short_cache() {
    // 100 ms samples: the queue fills during the first (500 MB/s, below the level after the
    // cache), then 1.8 GB/s for 0.45 s, then 600 MB/s for good.
    let mut rates = vec![500.0, 1810.0, 1795.0, 1802.0, 1798.0, 1200.0];
    rates.extend((0..80).map(|i| 600.0 * (1.0 + 0.02 * ((i * 3 % 7) as f64 - 3.0) / 3.0)));
    let a = analyze(&mb(&rates, 0.1));
    check_invariants(&a, "ramp");
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    // Bytes up to the cliff: 50 + 4 x 180 MB, and 1/2 of the straddling sample at 1.8 GB/s
    // (1200 = 0.5 x 1800 + 0.5 x 600).
    let truth = 50e6 + 720e6 + 90e6;
    let e = a.cache_estimate.unwrap();
    assert!(
        (e.bytes as f64 / truth - 1.0).abs() < 0.03,
        "{e:?} vs {truth}"
    );
    assert!(
        e.low_bytes as f64 <= truth && truth <= e.high_bytes as f64,
        "{e:?}"
    );
    let c = &a.cliffs[0];
    assert!((c.t_s - 0.55).abs() < 0.03, "{c:?}");
}

#[test]
fn steady_runs_with_dips_and_heavy_tails_have_no_cliff() {
    // 1500 runs at one level (5-65 s, 1 s or 100 ms, drift, Gaussian or heavy-tailed noise, a
    // GC dip every 5-35 s): no cliff, and the lower bound is everything written except, when
    // the run ends in a dip, the last few seconds.
    let mut rng = fastrand::Rng::with_seed(9);
    for i in 0..1500u64 {
        let interval_s = if rng.bool() { 1.0 } else { 0.1 };
        let duration_s = 5.0 + rng.f64() * 60.0;
        let mut dips = vec![];
        let mut t = rng.f64() * 10.0;
        while t < duration_s {
            dips.push((t, 0.3 + 2.7 * rng.f64(), 0.2 + 0.5 * rng.f64()));
            t += 5.0 + rng.f64() * 30.0;
        }
        let s = TraceSpec {
            phases: vec![PhaseSpec {
                bps: 1e9,
                end_bytes: None,
                drift: rng.f64() * 0.08 - 0.04,
                noise: 0.005 + 0.06 * rng.f64(),
            }],
            interval_s,
            duration_s,
            heavy_tails: rng.bool(),
            dips,
        };
        let (t, _) = synth(&s, i);
        let a = analyze(&t);
        let what = format!("steady run {i}");
        check_invariants(&a, &what);
        assert!(a.cliffs.is_empty(), "{what}: {:#?}", a.cliffs);
        let lb = a.cache_lower_bound_bytes.unwrap() as f64;
        assert!(
            lb >= a.bytes_total as f64 - 1e9 * (3.0 + 2.0 * interval_s),
            "{what}: lower bound {lb} of {}: {:?}",
            a.bytes_total,
            a.warnings
        );
    }
    // A first sample 15% above the rest is noise or a start-up burst, not a cache.
    let mut rates = vec![1150.0];
    rates.extend(std::iter::repeat_n(1000.0, 30));
    let a = analyze(&mb(&rates, 1.0));
    assert_eq!(a.cache_lower_bound_bytes, Some(a.bytes_total), "{a:#?}");
}

/// The P5 preset heats up while writing and throttles at 75 °C: the analysis names the
/// throttling drops as heat, and a drive that never gets hot gets no such warning.
#[test]
fn thermal_throttling_is_named_as_heat_not_cache() {
    let run = |preset: &str| {
        let m = presets::find(preset).unwrap();
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            pattern: Some(Pattern::Seqwrite),
            max_bytes: Some("800GB".into()),
            seed: Some(3),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        analyze(&sim.timeline)
    };
    let hot = run("p5-1tb");
    let est = hot
        .cache_estimate
        .as_ref()
        .expect("the P5 cache cliff is found");
    assert!((est.bytes as f64 / 100e9 - 1.0).abs() < 0.02, "{est:?}");
    let w = hot
        .warnings
        .iter()
        .find(|w| w.starts_with("thermal throttling"))
        .unwrap_or_else(|| panic!("no thermal warning: {:?}", hot.warnings));
    assert!(w.contains("°C"), "{w}");
    // The cache cliff itself (at ~50 s, a cool drive) is not called throttling.
    assert!(!w.contains(" 50 s"), "{w}");
    let cool = run("960evo-1tb");
    assert!(
        !cool
            .warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::Thermal { .. })),
        "{:?}",
        cool.warnings
    );
}

/// A probe of `emu:960evo-250g,cache=2GB --max-bytes 4GB`: one sample in the cache, one that
/// straddles the cliff, six after it with a GC dip among them. In so short a run the drop and
/// the dip are most of the first differences, and a noise scale read from their MAD alone
/// made a fivefold drop look like noise ("the cache is at least 4.00 GB").
#[test]
fn an_eight_sample_run_with_a_dip_still_shows_its_cliff() {
    let rates = [1457.7, 730.3, 302.4, 305.1, 300.3, 211.2, 301.6, 304.7];
    let a = analyze(&mb(&rates, 1.0));
    check_invariants(&a, "eight samples");
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    let e = a.cache_estimate.as_ref().expect("a cache estimate");
    assert!((e.bytes as f64 / 2.0e9 - 1.0).abs() < 0.05, "{e:?}");
    assert!(
        e.low_bytes as f64 <= 2.0e9 && 2.0e9 <= e.high_bytes as f64,
        "{e:?}"
    );
}

/// The P5 at 90 s samples heats on and off: a stretch of throttling to the end of the run
/// held whole samples back at the level before the heat (926 and 915 MB/s beside ~495), and
/// its phase read "thermal throttling: 775 MB/s", a mean of both given as the throttled
/// rate. No phase named plain "thermal throttling" holds a whole sample within a step (10 %)
/// of the level before the heat; the stretch that does is "thermal throttling, on and off".
#[test]
fn a_throttled_phase_with_samples_back_at_the_level_says_on_and_off() {
    let m = presets::parse_spec("p5-1tb").unwrap();
    let mut seen = 0;
    for seed in 1..=8 {
        let w = WorkloadConfig::resolve(&WorkloadArgs {
            interval: Some("90s".to_string()),
            seed: Some(seed),
            ..Default::default()
        })
        .unwrap();
        let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
        let a = analyze(&sim.timeline);
        let f = slccache::detect::Findings::of(&a);
        for (i, (p, name)) in a.phases.iter().zip(&f.phase_names).enumerate() {
            if !name.starts_with("thermal throttling") || i == 0 {
                continue;
            }
            let before = a.phases[i - 1].mean_bytes_per_sec;
            let back = sim.timeline.samples.iter().any(|s| {
                s.t_s - s.interval_s >= p.start_s - 1e-9
                    && s.t_s <= p.end_s + 1e-9
                    && (s.bytes_per_sec / before).ln().abs() < 0.1
            });
            let inside_a_stretch = a
                .throttled
                .iter()
                .any(|t| p.start_s >= t.from_s - 1e-6 && p.end_s <= t.to_s + 1e-6);
            if back && inside_a_stretch {
                seen += 1;
                assert_eq!(name, "thermal throttling, on and off", "seed {seed}: {p:?}");
                // The card's rate for the heat is that mean too, and says so.
                let note = slccache::report::pages::card::card_note_parts(
                    &a,
                    slccache::units::UnitSystem::Decimal,
                );
                assert!(
                    note.iter()
                        .any(|n| n.starts_with("thermal throttling") && n.ends_with(", on and off")),
                    "seed {seed}: {note:?}"
                );
            } else if inside_a_stretch {
                assert_eq!(name, "thermal throttling", "seed {seed}: {p:?}");
            }
        }
    }
    assert!(seen > 0, "no seed made a stretch the heat came and went in");
}

/// "588 MB/s over the 17.6 GB written after the last cliff" of a run that wrote 40.1 GB with
/// its cliff at 22.0 GB: 18.1 GB came after the cliff; the figure is the bytes of the samples
/// that begin after it (the sample the cliff falls in is not among them), and the words say
/// so, as the definition does.
#[test]
fn the_bytes_after_the_cliff_are_named_as_the_samples_they_are() {
    let m = presets::parse_spec("960evo-500g").unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        pattern: Some(Pattern::Seqwrite),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = analyze(&sim.timeline);
    let c = a.cliffs.last().expect("a cliff");
    let ac = a.after_cache.as_ref().expect("a stretch after the cache");
    let samples = &sim.timeline.samples;
    let after: u64 = samples
        .iter()
        .filter(|s| s.t_s - s.interval_s >= c.t_s - 1e-9)
        .map(|s| s.bytes)
        .sum();
    assert_eq!(ac.bytes, after);
    let text =
        slccache::detect::after_last_cliff_text(&a, slccache::units::UnitSystem::Decimal).unwrap();
    let amount = slccache::units::format_bytes(after as f64, slccache::units::UnitSystem::Decimal);
    assert!(
        text.contains(&format!(
            "over the {amount} written in the samples after the last cliff"
        )),
        "{text}"
    );
    assert!(slccache::detect::after_cache_definition()
        .contains("the sample the cliff falls in is not among them"));
}

/// A timeline of `simulate p5-1tb --pattern seqwrite --no-early-stop` in
/// `tests/data/thermal-coarse/`, as the tool wrote it.
fn thermal_coarse(name: &str, text: &str) -> Analysis {
    let t = Timeline {
        samples: slccache::timeline::read_slccache_csv(text, name).unwrap(),
        meta: RunMeta::default(),
    };
    let a = analyze(&t);
    check_invariants(&a, name);
    a
}

/// p5-1tb at 30 s samples: the last, partial sample (1110 s to 1138 s) read 787 MB/s in a
/// 980 MB/s level as the drive's thermal counter rose from 3 to 4. It was no stretch of
/// heat (one sample), so the rate after the cache counted it beside "(heat left out)" and the
/// chart tinted it "after the cache". It is throttling now, from the sample's start, at the
/// sample's own rate, and left out of the rate after the cache.
#[test]
fn heat_that_begins_in_the_last_sample_is_throttling() {
    let a = thermal_coarse(
        "30s",
        include_str!("../data/thermal-coarse/p5-1tb-30s-heat-in-the-last-sample.csv"),
    );
    let last = a.phases.last().unwrap();
    assert_eq!(last.kind, PhaseKind::Throttled, "{:#?}", a.phases);
    assert!((last.start_s - 1110.0).abs() < 1e-6, "{last:?}");
    assert!(
        (last.mean_bytes_per_sec / 786.6e6 - 1.0).abs() < 1e-3,
        "{last:?}"
    );
    let spans = slccache::detect::throttled_spans(&a);
    assert!(
        spans
            .iter()
            .any(|&(from, to)| from <= 1110.0 + 1e-6 && to >= 1138.0),
        "{spans:?}"
    );
    let after = a.after_cache.as_ref().unwrap();
    // 28.4 s of the last sample with the 390 s of the three spells and their edge samples.
    assert!(
        after.throttled_s > 418.0 && after.throttled_s < 419.0,
        "{after:?}"
    );
    assert!(after.mean_bytes_per_sec > 985e6, "{after:?}");
    // At 2 min samples the same heat in the last of four samples was said as "counters rose
    // inside 0.0 s to 480.0 s", the whole run: now it is throttling from 360 s.
    let b = thermal_coarse(
        "2m",
        include_str!("../data/thermal-coarse/p5-1tb-2m-heat-in-the-last-sample.csv"),
    );
    let last = b.phases.last().unwrap();
    assert_eq!(last.kind, PhaseKind::Throttled, "{:#?}", b.phases);
    assert!((last.start_s - 360.0).abs() < 1e-6, "{last:?}");
    assert!(
        !b.warnings.iter().any(|w| w.text.contains("0.0 s to")),
        "{:?}",
        b.warnings
    );
}

/// p5-1tb at 90 s samples: heat came back at the end of the one full-speed sample after a
/// stretch (810 s to 900 s, 978 MB/s, counter 2 -> 3) and held the next at 498 MB/s. With no
/// sample between the stretches to read the level from, the second was no stretch: the first
/// was drawn over the full-speed sample (a slowdown of 211 s "965 -> 656 MB/s"), and the
/// 498 MB/s sample blended into a "mean, with thermal throttling". Each stretch is now its
/// own, and the full-speed sample between them is not throttling.
#[test]
fn heat_right_after_a_stretch_of_heat_is_a_stretch_of_its_own() {
    let a = thermal_coarse(
        "90s",
        include_str!("../data/thermal-coarse/p5-1tb-90s-heat-after-a-stretch.csv"),
    );
    let spans = slccache::detect::throttled_spans(&a);
    let inside = |t: f64| spans.iter().any(|&(from, to)| from < t && t < to);
    // The middles of the throttled samples, and of the full-speed one between.
    assert!(inside(675.0) && inside(765.0), "{spans:?}");
    assert!(inside(945.0), "{spans:?}");
    assert!(!inside(855.0), "{spans:?}");
    let steady_over = |t: f64| {
        a.phases
            .iter()
            .find(|p| p.start_s < t && t < p.end_s)
            .map(|p| p.mean_bytes_per_sec)
    };
    assert!(
        steady_over(855.0).is_some_and(|r| r > 950e6),
        "{:#?}",
        a.phases
    );
}

/// p5-1tb at 90 s samples: a drop inside the first sample, with the level after it read off
/// the samples before the heat (or outside it), gave `after_s` 1045 s and 1046 s, to the end
/// of the run, beside a rate read off 270 s to 360 s of samples; and a bound "the cache is at
/// least 50.9 GB" beside a headline that says a faster first tier may have run out in that
/// sample, smaller. The level is seen for as long as it was read over, and the drop's bounds
/// are the only ones given.
#[test]
fn a_drop_in_the_first_sample_gives_the_level_after_it_for_as_long_as_it_was_read() {
    for (name, text) in [
        (
            "90s after a stretch",
            include_str!("../data/thermal-coarse/p5-1tb-90s-heat-after-a-stretch.csv"),
        ),
        (
            "90s between heat",
            include_str!("../data/thermal-coarse/p5-1tb-90s-drop-between-heat.csv"),
        ),
    ] {
        let a = thermal_coarse(name, text);
        let d = a
            .unconfirmed_drop
            .as_ref()
            .expect("a drop in the first sample");
        assert_eq!(d.at, slccache::detect::DropWhere::FirstSample, "{name}");
        // Heat began by 450 s in both: the level before it was seen for at most 360 s.
        assert!(d.after_s <= 360.0 + 1e-6, "{name}: {d:?}");
        assert!(d.after_s >= 270.0 - 1e-6, "{name}: {d:?}");
        assert_eq!(a.cache_lower_bound_bytes, None, "{name}");
    }
}

/// The 960 EVO 250GB written sequentially at 1 s samples: a cache of 13.0 GB to 13.1 GB
/// beside "sampling too coarse ...; sample more often ... for a tighter estimate". Where the
/// size's interval is narrow, the warning says what few samples do leave rough: the rate.
#[test]
fn a_coarse_sampling_warning_asks_no_tighter_estimate_of_a_tight_one() {
    let m = presets::parse_spec("960evo-250g").unwrap();
    let w = WorkloadConfig::resolve(&WorkloadArgs {
        pattern: Some(Pattern::Seqwrite),
        duration: Some("30s".to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = simulate(&m, &w, RunMeta::default(), |_| Ok(())).unwrap();
    let a = analyze(&sim.timeline);
    let e = a.cache_estimate.as_ref().expect("a cliff");
    assert!(
        (e.high_bytes - e.low_bytes) as f64 / (e.bytes as f64) < 0.05,
        "{e:?}"
    );
    let coarse = a
        .warnings
        .iter()
        .find(|w| matches!(w.kind, WarningKind::CoarseSampling { .. }))
        .expect("few samples before the cliff");
    assert!(!coarse.text.contains("tighter estimate"), "{}", coarse.text);
    assert!(
        coarse.text.contains("the cache phase's rate"),
        "{}",
        coarse.text
    );
}
