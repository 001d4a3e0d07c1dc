//! The analysis of a fixed set of synthetic timelines against what the detector gave before
//! its speed-ups for million-sample runs: `tests/data/detect-reference/analyses.tsv` was recorded with the
//! code before them (selection for sorts, passes over the samples skipped when their columns
//! are empty), so any change of a change point, an estimate or an error bar shows here, bit
//! for bit (the JSON of every float is its shortest exact form).
//!
//! Re-record (only with a reason, in a commit of its own): `SLCCACHE_BLESS=1 cargo test --lib
//! detect::reference_tests`.

use super::levels::SAMPLES_READ;
use super::*;

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/detect-reference/analyses.tsv"
);

/// The traces: two-phase runs from 1k to 200k samples (GC dips every 25 s, so the periodic
/// path runs), drawn drives of every shape, short cache phases, a run whose cache comes back,
/// low-contrast straddles, and runs with CPU, temperature and thermal-counter columns.
fn traces() -> Vec<(String, Timeline)> {
    let mut out = Vec::new();
    for (n, dt) in [
        (1_000, 1.0),
        (20_000, 1.0),
        (200_000, 1.0),
        (5_000, 0.1),
        (300, 0.1),
    ] {
        let t = synth::simulate(&synth::two_phase(n, dt), 42).0;
        out.push((format!("two_phase n={n} dt={dt}"), t));
    }
    let drives = synth::parse_published_drives(include_str!("../../data/published-drives.csv"));
    let mut rng = fastrand::Rng::with_seed(19);
    for i in 0..40 {
        let spec = synth::random_spec(&drives, &mut rng);
        out.push((format!("random {i}"), synth::simulate(&spec, 1000 + i).0));
    }
    for i in 0..15 {
        let spec = synth::short_start_spec(&drives, &mut rng);
        out.push((
            format!("short_start {i}"),
            synth::simulate(&spec, 2000 + i).0,
        ));
    }
    for seed in 0..3 {
        let t = synth::by_chunks(&synth::cache_returns_qlc(), 76.0 * 1024.0 * 1024.0, seed).0;
        out.push((format!("cache_returns_qlc {seed}"), t));
        out.push((
            format!("low_contrast_straddle {seed}"),
            synth::low_contrast_straddle(seed).0,
        ));
    }
    // CPU figures: busy after the cliff; temperature rising to its peak at the cliff, and the
    // drive's thermal counters rising around it.
    for (n, seed) in [(3_000, 5), (40_000, 6)] {
        let (mut t, _) = synth::simulate(&synth::two_phase(n, 0.1), seed);
        let cut = t.samples.len() * 3 / 10;
        for (i, s) in t.samples.iter_mut().enumerate() {
            s.cpu_pct = Some(if i > cut { 96.0 } else { 30.0 });
            s.cpu_wait_pct = Some(1.0);
            s.temp_c = Some(40.0 + 35.0 * (i.min(cut) as f64 / cut as f64));
        }
        out.push((format!("cpu_temp n={n}"), t.clone()));
        for (i, s) in t.samples.iter_mut().enumerate() {
            s.thermal_transitions = Some((i + 200).saturating_sub(cut).min(400) as u64);
        }
        out.push((format!("cpu_temp_counters n={n}"), t));
    }
    out
}

fn record() -> String {
    traces()
        .iter()
        .map(|(name, t)| {
            let a = analyze(t);
            format!("{name}\t{}\n", serde_json::to_string(&a).expect("json"))
        })
        .collect()
}

#[test]
fn analyses_equal_the_recorded_ones() {
    let got = record();
    if std::env::var_os("SLCCACHE_BLESS").is_some() {
        std::fs::write(REFERENCE, &got).expect("write the reference");
        return;
    }
    let want = std::fs::read_to_string(REFERENCE).expect("the recorded analyses");
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    assert_eq!(g.len(), w.len(), "number of traces");
    for (g, w) in g.iter().zip(&w) {
        assert_eq!(g, w, "the analysis changed");
    }
}

/// Samples that `analyze` reads in its passes over the whole run.
fn samples_read(t: &Timeline) -> usize {
    SAMPLES_READ.with(|c| c.set(0));
    analyze(t);
    SAMPLES_READ.with(|c| c.get())
}

/// Samples of `t` wholly inside the stretch after the cache of `a`.
fn after_len(t: &Timeline, a: &super::Analysis) -> usize {
    let ac = a.after_cache.as_ref().expect("a stretch after the cache");
    t.samples
        .iter()
        .filter(|s| s.t_start_s() >= ac.from_s - 1e-9 && s.t_s <= ac.to_s + 1e-9)
        .count()
}

/// The work counted: without CPU and temperature columns an analysis reads the samples once
/// (the gathering pass) and the stretch after the cache once more (its rounds), not once more
/// per phase for the CPU check and again for the temperatures; with them, those checks still
/// read what they need.
#[test]
fn an_analysis_reads_the_samples_once_when_the_optional_columns_are_empty() {
    let mut t = synth::simulate(&synth::two_phase(20_000, 0.1), 42).0;
    let n = t.samples.len();
    let after = after_len(&t, &analyze(&t));
    assert_eq!(samples_read(&t), n + after);
    for s in &mut t.samples {
        s.cpu_pct = Some(50.0);
        s.temp_c = Some(45.0);
    }
    let phases = analyze(&t).phases.len();
    assert!(phases >= 2, "{phases} phases");
    assert_eq!(samples_read(&t), n * (2 + phases) + after);
}

/// A run with no slow sample is read for stalls nowhere, and a gradual fall is judged from
/// the columns: each phase's rate read the whole stretch again to look for stalls (a pass
/// over the samples for every phase and for the stretch after the cache, which with the
/// check for a gradual fall made an analysis of a million samples 1.6 times as slow). A
/// run with a stall reads the slow samples and a sparse sample of each stretch's level, not
/// the stretches again.
#[test]
fn stalls_and_gradual_falls_are_looked_for_without_reading_the_run_again() {
    let mut t = synth::simulate(&synth::two_phase(20_000, 0.1), 42).0;
    let n = t.samples.len();
    let a = analyze(&t);
    assert_eq!(samples_read(&t), n + after_len(&t, &a));
    // Two seconds of nothing after the cliff: read where it is, and left out of the rate.
    let at = t.samples.len() * 3 / 4;
    for s in &mut t.samples[at..at + 20] {
        s.bytes = 0;
        s.bytes_per_sec = 0.0;
    }
    let mut total = 0;
    for s in &mut t.samples {
        total += s.bytes;
        s.bytes_total = total;
    }
    let b = analyze(&t);
    let ac = b.after_cache.as_ref().expect("a stretch after the cache");
    assert!((ac.stalled_s - 2.0).abs() < 1e-6, "{ac:?}");
    let read = samples_read(&t);
    let once = n + after_len(&t, &b);
    assert!(read >= once && read < once + n / 2, "{read} of {n}");
}

/// Every warning the detector writes on the reference traces has a kind of its own (none is
/// `Recorded` or `Input`), and its kind agrees with its words: code that decides from the kind
/// decides what a reader of the sentence would.
#[test]
fn every_warning_has_the_kind_its_words_say() {
    use crate::detect::WarningKind as K;
    let mut seen = std::collections::BTreeSet::new();
    let mut all = traces();
    let mut short = synth::simulate(&synth::two_phase(1_000, 1.0), 7).0;
    short.samples.truncate(3);
    all.push(("three samples".into(), short));
    let mut flat = synth::simulate(&synth::two_phase(1_000, 1.0), 8).0;
    flat.samples.truncate(100);
    // An interrupted run said "the run ended before any cliff ... write more", as if it had
    // written all it was to write.
    let mut cut = flat.clone();
    cut.meta.stop_reason = Some(crate::timeline::StopReason::Interrupted);
    let w = analyze(&cut).warnings;
    let no_cliff = w
        .iter()
        .find(|w| matches!(w.kind, K::NoCliff { .. }))
        .expect("a no-cliff warning");
    assert!(
        no_cliff.contains(
            "; let a run go to its end, or write more (--max-bytes or --duration on a run of \
             slccache; a log from another tool needs a longer run),"
        ),
        "{no_cliff}"
    );
    all.push(("the cache phase only".into(), flat));
    all.push(("the cache phase only, interrupted".into(), cut));
    for (name, t) in all {
        let stopped = t.meta.stop_reason == Some(crate::timeline::StopReason::Interrupted);
        for w in analyze(&t).warnings {
            let opening = match w.kind {
                K::TooFewSamples { .. } => "only ",
                K::CoarseSampling { .. } => "sampling too coarse",
                K::NoCliff { .. } if stopped => "the run was interrupted before any cliff",
                K::NoCliff { .. } => "the run ended before any cliff",
                K::UnconfirmedDrop => "a drop ",
                K::LaterTier { .. } => "the run wrote ",
                K::Folding { .. } => "a third, slower phase (folding",
                K::UnsteadyAfterCache { .. } => "post-cache level unstable",
                K::EndDrop { .. } => "throughput fell from",
                K::Slowdown { thermal: false, .. } if w.text.starts_with("a stall at") => {
                    "a stall at"
                }
                K::Slowdown { .. } => "a temporary slowdown",
                K::Stall { .. } => "a stall",
                K::ShortDips { stalled: true, .. } => "throughput stalled",
                K::ShortDips { stalled: false, .. } => "throughput dipped by a third or more",
                K::Spikes { .. } => "a sample reads",
                K::Rise { .. } => "throughput rose from",
                K::GradualFall { .. } => "the rate fell gradually",
                K::CacheBack { .. } => "the cache came back while writing",
                K::WrappedCliff => "the cliff came after",
                K::FirstTierMayHide { .. } => "a faster first tier of up to",
                K::CpuBound => "writer CPU-bound",
                K::Thermal { .. } => "thermal throttling",
                K::Periodic => "periodic slowdowns",
                K::DriveCounters
                | K::EmulationShortfall
                | K::ShortOfDuration
                | K::LinkLimited { .. }
                | K::IopsHidesCache
                | K::Input
                | K::Recorded => {
                    panic!("{name}: the detector wrote a warning of kind {:?}", w.kind)
                }
            };
            assert!(w.starts_with(opening), "{name}: {:?} reads {w}", w.kind);
            seen.insert(format!("{:?}", std::mem::discriminant(&w.kind)));
        }
    }
    // The traces reach most kinds, so the table above is checked, not only compiled.
    assert!(seen.len() >= 8, "{} kinds seen", seen.len());
}

/// A warning is its sentence in JSON, as summary.json has always held it, and one read back
/// is of kind `Recorded` with the same words.
#[test]
fn a_warning_serializes_to_its_sentence() {
    let (_, t) = traces().swap_remove(0);
    let a = analyze(&t);
    let w = a.warnings.first().expect("a warning on the first trace");
    let json = serde_json::to_value(w).expect("json");
    assert_eq!(json, serde_json::Value::String(w.text.clone()));
    let back: crate::detect::Warning = serde_json::from_value(json).expect("read back");
    assert_eq!(back.kind, crate::detect::WarningKind::Recorded);
    assert_eq!(back.text, w.text);
}

/// "sampling too coarse for a 54.7 s cache phase: only 54 samples before the cliff": ten
/// samples or more are not "only" a few; where the size's interval is what is too wide, the
/// warning says how wide, over how many samples.
#[test]
fn a_coarse_sampling_warning_says_only_of_fewer_than_ten_samples() {
    let mut seen = (0, 0);
    for (name, t) in traces() {
        let a = analyze(&t);
        for w in &a.warnings {
            if let WarningKind::CoarseSampling { samples_before, .. } = w.kind {
                let only = w.text.contains("only ");
                assert_eq!(only, samples_before < 10, "{name}: {}", w.text);
                if samples_before >= 10 {
                    assert!(w.text.contains("% wide over the"), "{name}: {}", w.text);
                    seen.1 += 1;
                } else {
                    seen.0 += 1;
                }
            }
        }
    }
    assert!(
        seen.0 > 0 && seen.1 > 0,
        "both kinds among the traces: {seen:?}"
    );
}
