//! `simulate`'s cost per sample: the 960 EVO 500GB model in virtual time at 10 ms samples for
//! `n` samples (with the early-stop rule on, as `simulate` runs it, but never stopping), the
//! samples counted as items so that divan prints samples per second. Writing `timeline.csv`
//! and drawing the charts come on top (`scripts/memory-run.sh` runs the whole command). The goal is a million samples per second or more. Run with
//! `cargo bench --bench simulate`; docs/PERFORMANCE.md says how the figures are read.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use slccache::config::WorkloadConfig;
use slccache::detect::stop::StopConfig;
use slccache::experiment::virtual_time::{run_meta, simulate_with_stop, Simulation};
use slccache::model::presets;
use slccache::model::DriveModel;
use slccache::workload::Pattern;

fn main() {
    // SLCCACHE_BENCH_WORK=1: print how many analyses the rule ran and skipped at each size
    // (once, untimed), then bench.
    if std::env::var_os("SLCCACHE_BENCH_WORK").is_some() {
        for n in [10_000, 100_000, 1_000_000] {
            let sim = run(&presets::find("960evo-500g").unwrap(), n);
            let rule = sim.stop_rule.as_ref().unwrap();
            eprintln!(
                "{n} samples: {} analyses, {} skipped, withdrawn {}, hold {:?} s",
                rule.analyses(),
                rule.skipped(),
                rule.withdrawn(),
                rule.estimate().map(|e| e.hold_s)
            );
        }
    }
    divan::main();
}

/// One simulation of `n` samples, with the rule on but never stopping.
fn run(m: &DriveModel, n: usize) -> Simulation {
    let w = workload(n);
    let stop = StopConfig {
        early_stop: false,
        ..StopConfig::default()
    };
    let meta = run_meta("960evo-500g", m, &w);
    simulate_with_stop(m, &w, Some(stop), meta, &AtomicBool::new(false), |_| Ok(())).unwrap()
}

fn workload(n: usize) -> WorkloadConfig {
    WorkloadConfig {
        pattern: Pattern::Seqwrite,
        read_pct: 0,
        block_size: 128 << 10,
        queue_depth: 32,
        jobs: 1,
        interval: Duration::from_millis(10),
        span: None,
        duration: Some(Duration::from_millis(10 * n as u64)),
        max_bytes: Some(u64::MAX / 2),
        passes: None,
        seed: 1,
        scenario: None,
        description: None,
    }
}

/// The simulation loop alone (model, samples, early-stop rule), no files.
#[divan::bench(args = [10_000, 100_000, 1_000_000], sample_count = 3, sample_size = 1)]
fn simulate_samples(bencher: divan::Bencher, n: usize) {
    let m = presets::find("960evo-500g").unwrap();
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench_local(|| divan::black_box(run(&m, n).timeline.samples.len()));
}
