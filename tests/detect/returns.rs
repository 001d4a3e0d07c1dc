//! A cache that comes back while the drive is written: a QLC drive whose
//! first low stretch sits at the level it sustains after its last cliff, then a second cache
//! phase, then the cliff again. The first cliff is the cache size; the return is its own
//! episode. And the bounds of the rule: what stays a slowdown.

use slccache::detect::synth;
use slccache::detect::{analyze, returns_text, PhaseKind, WarningKind};
use slccache::timeline::{import, RunMeta, Timeline};
use slccache::units::UnitSystem;

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;

/// The QLC trace, as a reviewer's tool writes it: MiB written against MiB/s,
/// one row per 76 MiB, read through the two-column importer.
fn qlc_trace(seed: u64) -> (Timeline, synth::ChunkTruth) {
    let (t, truth) = synth::by_chunks(&synth::cache_returns_qlc(), 76.0 * MIB, seed);
    let mut csv = String::from("MiB_written,MiB/s\n");
    for s in &t.samples {
        csv.push_str(&format!(
            "{:.3},{:.3}\n",
            s.bytes_total as f64 / MIB,
            s.bytes_per_sec / MIB
        ));
    }
    let t = import::parse_text(&csv, "qlc.csv", &Default::default()).expect("import");
    (t, truth)
}

#[test]
fn a_cache_that_comes_back_while_written_is_a_return_not_a_slowdown() {
    for seed in 1..=8 {
        let (t, truth) = qlc_trace(seed);
        let a = analyze(&t);
        let what = format!("seed {seed}: {:#?} {:#?}", a.cliffs, a.returns);
        // The first cliff is the cache: 8.4 GiB.
        let e = a.cache_estimate.as_ref().expect("a cache estimate");
        let first = truth.drop_bytes[0];
        assert!((first / GIB - 8.4).abs() < 0.01, "{truth:?}");
        assert!((e.bytes as f64 / first - 1.0).abs() < 0.01, "{what}");
        assert!(
            e.low_bytes as f64 <= first * 1.002 && first * 0.998 <= e.high_bytes as f64,
            "{what}"
        );
        // Two cliffs: the cache running out, and running out again at 33.1 GiB.
        assert_eq!(a.cliffs.len(), 2, "{what}");
        let second = a.cliffs[1].bytes_written as f64 / GIB;
        assert!((second - 33.1).abs() < 0.2, "{what}");
        // One return, at 20.2 GiB, with 12.9 GiB written at the cache's rate before the
        // next cliff.
        assert_eq!(a.returns.len(), 1, "{what}");
        let r = &a.returns[0];
        assert!((r.bytes_before as f64 / GIB - 20.2).abs() < 0.15, "{what}");
        assert!((r.bytes as f64 / GIB - 12.9).abs() < 0.2, "{what}");
        assert!((r.t_s - truth.rise_times[0]).abs() < 2.0, "{what}");
        assert!(r.ran_out_again, "{what}");
        assert!((r.bytes_per_sec / MIB / 710.0 - 1.0).abs() < 0.05, "{what}");
        assert!(
            (r.low_bytes_per_sec / MIB / 99.0 - 1.0).abs() < 0.1,
            "{what}"
        );
        // Not a slowdown; phases cache, post-cache, cache, post-cache (no folding).
        assert!(a.slowdowns.is_empty(), "seed {seed}: {:#?}", a.slowdowns);
        let kinds: Vec<PhaseKind> = a.phases.iter().map(|p| p.kind).collect();
        assert_eq!(kinds.first(), Some(&PhaseKind::Cache), "{kinds:?}");
        assert!(!kinds.contains(&PhaseKind::Folding), "{kinds:?}");
        let cache_phases = kinds
            .windows(2)
            .filter(|k| k[0] != PhaseKind::Cache && k[1] == PhaseKind::Cache)
            .count();
        assert_eq!(cache_phases, 1, "{kinds:?}");
        // The line for the card and the report, and a warning that says why.
        let line = returns_text(&a, UnitSystem::Binary).expect("a line");
        assert!(
            line.starts_with("cache came back once while writing: +12.") && line.ends_with("GiB"),
            "{line}"
        );
        assert!(
            a.warnings
                .iter()
                .any(|w| w.starts_with("the cache came back while writing at")),
            "{:?}",
            a.warnings
        );
        assert!(
            !a.warnings
                .iter()
                .any(|w| matches!(w.kind, WarningKind::Slowdown { .. })),
            "{:?}",
            a.warnings
        );
    }
}

/// Rates per second (`(seconds, bytes/s)` pieces) as one-second samples with multiplicative
/// noise `sigma`.
fn pieces(pieces: &[(usize, f64)], sigma: f64, seed: u64) -> Timeline {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut pts = Vec::new();
    let mut t = 0;
    for &(secs, r) in pieces {
        for _ in 0..secs {
            t += 1;
            let u1 = rng.f64().max(1e-300);
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * rng.f64()).cos();
            pts.push((t as f64, 1.0, r * (sigma * z).exp()));
        }
    }
    Timeline::from_rates(&pts, RunMeta::default())
}

#[test]
fn a_shallow_low_stretch_at_the_post_cache_level_is_the_cache_running_out() {
    // A TLC drive at 3 GB/s, half of it gone for 60 s, back for 40 s, then half again for
    // good: the first low stretch is at the level the drive sustains after its last cliff.
    for seed in 1..=4 {
        let t = pieces(
            &[(20, 3e9), (60, 1.5e9), (40, 3e9), (120, 1.5e9)],
            0.03,
            seed,
        );
        let a = analyze(&t);
        assert_eq!(a.cliffs.len(), 2, "seed {seed}: {:#?}", a.cliffs);
        assert!((a.cliffs[0].t_s - 20.0).abs() < 1.0, "{:#?}", a.cliffs);
        assert_eq!(a.returns.len(), 1, "seed {seed}: {:#?}", a.returns);
        assert!((a.returns[0].t_s - 80.0).abs() < 1.0, "{:#?}", a.returns);
        assert!((a.returns[0].bytes as f64 / 120e9 - 1.0).abs() < 0.03);
        assert!(a.slowdowns.is_empty(), "{:#?}", a.slowdowns);
    }
}

#[test]
fn a_deep_long_low_stretch_is_the_cache_running_out_even_if_the_run_ends_fast() {
    // 2 GB/s, 85% of it gone for 90 s, then back at 2 GB/s until the run ends.
    let t = pieces(&[(30, 2e9), (90, 3e8), (40, 2e9)], 0.03, 5);
    let a = analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{:#?}", a.cliffs);
    assert!((a.cliffs[0].t_s - 30.0).abs() < 1.0, "{:#?}", a.cliffs);
    assert_eq!(a.returns.len(), 1, "{:#?}", a.returns);
    let r = &a.returns[0];
    assert!(!r.ran_out_again, "{r:?}");
    assert!((r.duration_s - 40.0).abs() < 1.5, "{r:?}");
    assert!(a.slowdowns.is_empty(), "{:#?}", a.slowdowns);
}

#[test]
fn a_deep_stretch_shorter_than_ten_dips_stays_a_slowdown() {
    // The same depth for 20 s, the run back at its level for good: a pause, not the cache.
    let t = pieces(&[(30, 2e9), (20, 3e8), (60, 2e9)], 0.03, 6);
    let a = analyze(&t);
    assert!(a.cliffs.is_empty(), "{:#?}", a.cliffs);
    assert!(a.returns.is_empty(), "{:#?}", a.returns);
    assert_eq!(a.slowdowns.len(), 1, "{:#?}", a.slowdowns);
}

#[test]
fn the_return_is_told_in_the_report_and_on_the_card() {
    let (t, _) = qlc_trace(1);
    let a = analyze(&t);
    assert_eq!(a.returns.len(), 1);
    // The card says it in a line: it differs from the card of the same run without it.
    let card = |a: &slccache::detect::Analysis| {
        slccache::report::pages::card::render_card(
            &t,
            a,
            UnitSystem::Binary,
            slccache::report::charts::Theme::Light,
        )
        .unwrap()
    };
    let mut without = a.clone();
    without.returns.clear();
    assert_ne!(card(&a), card(&without));
    // report.md has a row for it.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("qlc.csv");
    let mut text = String::from("MiB_written,MiB/s\n");
    for s in &t.samples {
        text.push_str(&format!(
            "{:.3},{:.3}\n",
            s.bytes_total as f64 / MIB,
            s.bytes_per_sec / MIB
        ));
    }
    std::fs::write(&csv, text).unwrap();
    let out = dir.path().join("out");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args(["analyze", "--units", "binary", "--out"])
        .arg(&out)
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| Cache came back |"))
        .expect(&md);
    assert!(
        row.contains("cache came back once while writing: +12.") && row.contains("GiB written"),
        "{row}"
    );
}

#[test]
fn the_charts_mark_the_return_and_break_the_smoothed_line_there() {
    use slccache::report::charts::{throughput_data, throughput_time};
    let (t, _) = qlc_trace(2);
    let a = analyze(&t);
    let r = a.returns[0].clone();
    let o = slccache::report::ReportOptions {
        units: UnitSystem::Binary,
        ..Default::default()
    };
    for spec in [throughput_data(&t, &a, &o), throughput_time(&t, &a, &o)] {
        let texts = spec.texts();
        assert!(
            texts.iter().any(|s| s.starts_with("cache came back at")),
            "{texts:?}"
        );
        assert!(
            spec.legend
                .iter()
                .any(|e| e.name == "cache came back while writing"),
            "{:?}",
            spec.legend
        );
        assert!(spec
            .subtitle
            .contains("cache came back once while writing: +12."));
        assert!(spec
            .bands
            .iter()
            .any(|b| b.label.starts_with("SLC cache (back)")));
        // Three markers in order: the cliff, the return, the cliff again.
        let xs: Vec<f64> = spec.markers.iter().map(|m| m.x).collect();
        assert_eq!(xs.len(), 3, "{xs:?}");
        assert!(xs[0] < xs[1] && xs[1] < xs[2], "{xs:?}");
    }
    // Over data written the return sits at the bytes written before it.
    let spec = throughput_data(&t, &a, &o);
    let gib = r.bytes_before as f64 / GIB;
    assert!(
        (spec.markers[1].x - gib).abs() < 1e-9,
        "{:?}",
        spec.markers[1]
    );
    // The smoothed line does not ramp across the return: no smoothed point between the
    // last low sample and the first high one lies halfway up.
    let smoothed = spec
        .series
        .iter()
        .find(|s| s.name.starts_with("smoothed"))
        .unwrap();
    let near: Vec<f64> = smoothed
        .points
        .iter()
        .filter(|p| (p.0 - gib).abs() < 0.3)
        .map(|p| p.1)
        .collect();
    assert!(!near.is_empty());
    assert!(
        near.iter().all(|&v| !(250.0..550.0).contains(&v)),
        "{near:?}"
    );
}
