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
