//! Detector benchmarks: `analyze` on synthetic two-phase traces of 1k to 1M samples
//! (1 s sampling, a GC dip every 25 s). Run with `cargo bench --bench detect`.

use slccache::detect::{analyze, synth};
use slccache::timeline::Timeline;

fn main() {
    divan::main();
}

fn trace(n: usize) -> Timeline {
    synth::simulate(&synth::two_phase(n, 1.0), 42).0
}

#[divan::bench(args = [1_000, 10_000, 100_000, 1_000_000], sample_count = 10, sample_size = 1)]
fn detect(bencher: divan::Bencher, n: usize) {
    let t = trace(n);
    bencher.bench(|| analyze(divan::black_box(&t)));
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10, sample_size = 1)]
fn detect_100ms(bencher: divan::Bencher, n: usize) {
    let t = synth::simulate(&synth::two_phase(n, 0.1), 42).0;
    bencher.bench(|| analyze(divan::black_box(&t)));
}

/// The live detector's cost per analysis after a long run: the early-stop rule fed `n`
/// samples of 10 ms (360 000 is an hour), then one analysis of the timeline so far, as the
/// live detector makes once per closed interval when one is due. The rule reads a bounded
/// view (`detect::stop::MAX_VIEW` samples at most), so the time should not grow with `n`
/// past that; the bench prints how many samples the analysis read.
#[divan::bench(args = [1_000, 10_000, 100_000, 360_000], sample_count = 10, sample_size = 1)]
fn live_rule_analysis(bencher: divan::Bencher, n: usize) {
    use slccache::detect::stop::{StopConfig, StopRule};
    let t = synth::simulate(&synth::two_phase(n, 0.01), 42).0;
    let mut rule = StopRule::new(StopConfig {
        early_stop: false,
        ..StopConfig::default()
    });
    // One analysis for the lot (extend analyses at most once).
    rule.extend(t.samples.iter().cloned());
    println!(
        "live_rule_analysis n={n}: each analysis reads {} samples",
        rule.analysed_samples().0
    );
    bencher.bench_local(|| divan::black_box(rule.evaluate()));
}
