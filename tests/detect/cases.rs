//! The detector on hand-made cases: phase kinds, warnings, rises, edge cases, determinism.

use slccache::detect::synth::{simulate, PhaseSpec, TraceSpec};
use slccache::detect::{analyze, PhaseKind, WarningKind};
use slccache::timeline::{RunMeta, Timeline};

fn phase(bps: f64, end_bytes: Option<f64>, noise: f64) -> PhaseSpec {
    PhaseSpec {
        bps,
        end_bytes,
        drift: 0.0,
        noise,
    }
}

fn spec(phases: Vec<PhaseSpec>, interval_s: f64, duration_s: f64) -> TraceSpec {
    TraceSpec {
        phases,
        interval_s,
        duration_s,
        heavy_tails: false,
        dips: vec![],
    }
}

#[test]
fn the_960_evo_seed_case() {
    // 1365 MB/s -> 591 MB/s at the 14th second, 1 s samples: ~19.1 GB.
    let cache = 1365e6 * 14.0;
    let s = spec(
        vec![phase(1365e6, Some(cache), 0.01), phase(591e6, None, 0.03)],
        1.0,
        60.0,
    );
    let (t, truth) = simulate(&s, 1);
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    let e = a.cache_estimate.as_ref().unwrap();
    assert!(
        (e.bytes as f64 - truth.drop_bytes[0]).abs() / cache < 0.01,
        "{e:?}"
    );
    assert!(e.low_bytes as f64 <= cache * 1.0001 && e.high_bytes as f64 >= cache * 0.9999);
    assert!((a.cliffs[0].t_s - 14.0).abs() < 0.2, "{}", a.cliffs[0].t_s);
    let kinds: Vec<_> = a.phases.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [PhaseKind::Cache, PhaseKind::PostCache]);
    assert!((a.phases[1].mean_bytes_per_sec / 591e6 - 1.0).abs() < 0.03);
}

#[test]
fn three_phase_drive_has_two_cliffs_and_a_folding_phase() {
    // HP FX700-like, scaled down: 5 GB/s to 54 GB, 3.5 GB/s to 200 GB, then 130 MB/s.
    let s = spec(
        vec![
            phase(5e9, Some(54e9), 0.01),
            phase(3.5e9, Some(200e9), 0.02),
            phase(130e6, None, 0.04),
        ],
        0.1,
        120.0,
    );
    let (t, truth) = simulate(&s, 2);
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 2, "{:#?}", a.cliffs);
    for (c, want) in a.cliffs.iter().zip(&truth.drop_bytes) {
        assert!(
            (c.bytes_written as f64 - want).abs() / want < 0.005,
            "{c:?} vs {want}"
        );
    }
    let kinds: Vec<_> = a.phases.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PhaseKind::Cache, PhaseKind::PostCache, PhaseKind::Folding]
    );
    assert!(
        a.warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::Folding { .. })),
        "{:?}",
        a.warnings
    );
}

#[test]
fn trough_then_recovery_is_one_cliff() {
    // Like the fresh BIWIN run: 5 GB/s, a cliff into a 900 MB/s trough, recovery to 1.8 GB/s.
    let s = spec(
        vec![phase(5e9, Some(75e9), 0.005), phase(9e8, None, 0.05)],
        1.0,
        34.0,
    );
    // Build the recovery by hand: concatenate a second trace at 1.8 GB/s.
    let (t1, _) = simulate(&s, 3);
    let (t2, _) = simulate(&spec(vec![phase(1.8e9, None, 0.06)], 1.0, 60.0), 4);
    let mut points: Vec<(f64, f64, f64)> = t1
        .samples
        .iter()
        .map(|x| (x.t_s, x.interval_s, x.bytes_per_sec))
        .collect();
    let off = t1.duration_s();
    points.extend(
        t2.samples
            .iter()
            .map(|x| (x.t_s + off, x.interval_s, x.bytes_per_sec)),
    );
    let t = Timeline::from_rates(&points, RunMeta::default());
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{:#?}", a.cliffs);
    assert!((a.cliffs[0].t_s - 15.0).abs() < 0.2, "{:#?}", a.cliffs);
    let kinds: Vec<_> = a.phases.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PhaseKind::Cache, PhaseKind::PostCache, PhaseKind::PostCache]
    );
    assert!(a
        .warnings
        .iter()
        .any(|w| w.contains("post-cache level unstable")));
}

#[test]
fn slow_start_is_not_a_cliff() {
    // 1 GB/s for 10 s, then 5 GB/s: a rise, no cliff, no cache estimate.
    let s = spec(
        vec![phase(1e9, Some(10e9), 0.01), phase(5e9, None, 0.01)],
        1.0,
        60.0,
    );
    let a = analyze(&simulate(&s, 5).0);
    assert!(a.cliffs.is_empty(), "{:#?}", a.cliffs);
    assert!(a.cache_estimate.is_none());
    assert_eq!(a.cache_lower_bound_bytes, Some(a.bytes_total));
    assert!(a.phases.iter().all(|p| p.kind == PhaseKind::Steady));
}

#[test]
fn run_ending_in_the_cache_gives_a_lower_bound_and_a_warning() {
    let s = spec(
        vec![phase(3e9, Some(1e12), 0.02), phase(1e9, None, 0.02)],
        0.1,
        30.0,
    );
    let a = analyze(&simulate(&s, 6).0);
    assert!(a.cliffs.is_empty());
    assert!(a.cache_estimate.is_none());
    assert_eq!(a.cache_lower_bound_bytes, Some(a.bytes_total));
    assert!(
        a.warnings
            .iter()
            .any(|w| w.contains("at least") && w.contains("GB")),
        "{:?}",
        a.warnings
    );
}

#[test]
fn short_cache_phase_warns_that_sampling_is_too_coarse() {
    // 4 GB at 500 MB/s: an 8 s cache phase sampled once a second.
    let s = spec(
        vec![phase(5e8, Some(4e9), 0.01), phase(1.5e8, None, 0.03)],
        1.0,
        40.0,
    );
    let a = analyze(&simulate(&s, 7).0);
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    assert!(
        a.warnings
            .iter()
            .any(|w| matches!(w.kind, WarningKind::CoarseSampling { .. })),
        "{:?}",
        a.warnings
    );
    // The same drive sampled every 100 ms: no such warning.
    let s = TraceSpec {
        interval_s: 0.1,
        ..s
    };
    let a = analyze(&simulate(&s, 7).0);
    assert!(!a
        .warnings
        .iter()
        .any(|w| matches!(w.kind, WarningKind::CoarseSampling { .. })));
}

#[test]
fn degenerate_timelines_do_not_panic() {
    let empty = Timeline::default();
    let a = analyze(&empty);
    assert!(a.cliffs.is_empty() && a.phases.is_empty());
    let two = Timeline::from_rates(&[(1.0, 1.0, 5.0), (2.0, 1.0, 1.0)], RunMeta::default());
    let a = analyze(&two);
    assert!(a.cliffs.is_empty());
    assert!(!a.warnings.is_empty());
    // Zero throughput everywhere, and a stall in the middle.
    let zeros: Vec<_> = (1..=100).map(|i| (i as f64, 1.0, 0.0)).collect();
    let a = analyze(&Timeline::from_rates(&zeros, RunMeta::default()));
    assert!(a.cliffs.is_empty());
    let stall: Vec<_> = (1..=100)
        .map(|i| (i as f64, 1.0, if i == 50 { 0.0 } else { 1e9 }))
        .collect();
    let a = analyze(&Timeline::from_rates(&stall, RunMeta::default()));
    assert!(a.cliffs.is_empty(), "{:#?}", a.cliffs);
    // Perfectly constant: one steady phase.
    let flat: Vec<_> = (1..=500).map(|i| (i as f64 * 0.1, 0.1, 2e9)).collect();
    let a = analyze(&Timeline::from_rates(&flat, RunMeta::default()));
    assert_eq!(a.phases.len(), 1);
    assert_eq!(a.phases[0].kind, PhaseKind::Steady);
}

#[test]
fn analysis_and_simulation_are_deterministic() {
    let s = spec(
        vec![phase(2e9, Some(30e9), 0.02), phase(6e8, None, 0.04)],
        0.1,
        40.0,
    );
    let (t1, tr1) = simulate(&s, 9);
    let (t2, tr2) = simulate(&s, 9);
    assert_eq!(t1, t2);
    assert_eq!(tr1, tr2);
    assert_eq!(analyze(&t1), analyze(&t2));
    // The byte counter is exact: the sum of per-sample bytes is the total.
    let sum: u64 = t1.samples.iter().map(|x| x.bytes).sum();
    assert_eq!(sum, t1.bytes_total());
}
