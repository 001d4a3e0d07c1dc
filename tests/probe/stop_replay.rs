//! The early-stop rule replayed offline, prefix by prefix, over every trace the tests have:
//! the synthetic sets of `tests/detect/synthetic.rs` (same generator, same seeds), the hard
//! shapes (a cache that comes back while written, a low-contrast cliff inside a sample) and
//! the real traces in `tests/data/real-traces/`. For each trace: would the rule have stopped, on the
//! right cliff, how long after the true cliff, and does its estimate match the full run's?
//!
//! A stop is on a wrong cliff when the trace has no cliff, or the estimate it stopped on is
//! further from the true cache size than its own 95% interval and 1% of the size while the
//! full run's is not (where the full run misses the truth too, the detector is wrong, not
//! the stop: those are counted apart, and `detect_synthetic.rs` holds the detector to its
//! targets). The estimate matches the full run's when the full run's estimate lies in the stop's interval
//! (give or take 0.5%, the slack the rule itself allows between analyses).
//!
//! Set `SLCCACHE_SEED` / `SLCCACHE_TRACES` as for `detect_synthetic.rs`.

use slccache::detect::stop::{replay, ReplayStop, StopConfig, SAME_CLIFF_SLACK};
use slccache::detect::{analyze, synth};
use slccache::timeline::{import, Timeline};

fn repo_file(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One trace: its timeline and the true first cliff (bytes, seconds), if it has one.
struct Case {
    name: String,
    timeline: Timeline,
    truth: Option<(f64, f64)>,
}

/// The traces of `detect_synthetic.rs`, drawn the same way.
fn synthetic_cases() -> Vec<Case> {
    let text = std::fs::read_to_string(repo_file("data/published-drives.csv")).unwrap();
    let drives = synth::parse_published_drives(&text);
    let seed = env_u64("SLCCACHE_SEED", 20261129);
    let count = env_u64("SLCCACHE_TRACES", 400) as usize;
    let mut out = Vec::new();
    // The main set.
    let mut rng = fastrand::Rng::with_seed(seed);
    for i in 0..count {
        let spec = synth::random_spec(&drives, &mut rng);
        let (t, truth) = synth::simulate(&spec, rng.u64(..));
        out.push(Case {
            name: format!("synthetic {i} (dt {} s)", spec.interval_s),
            timeline: t,
            truth: truth.drop_bytes.first().map(|&b| (b, truth.drop_times[0])),
        });
    }
    // The short cache phases at the start.
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5157);
    for i in 0..count {
        let spec = synth::short_start_spec(&drives, &mut rng);
        let interval_s = spec.interval_s;
        let (t, truth) = synth::simulate(&spec, rng.u64(..));
        out.push(Case {
            name: format!("short start {i} (dt {interval_s} s)"),
            timeline: t,
            truth: truth.drop_bytes.first().map(|&b| (b, truth.drop_times[0])),
        });
    }
    // The QLC drive whose cache comes back while it is written (the first cliff is
    // the cache), and the low-contrast cliff inside a sample whose next sample reads high.
    for seed in 1..=8 {
        let (t, truth) = synth::by_chunks(&synth::cache_returns_qlc(), 76.0 * 1048576.0, seed);
        out.push(Case {
            name: format!("cache comes back {seed}"),
            timeline: t,
            truth: Some((truth.drop_bytes[0], truth.drop_times[0])),
        });
    }
    for seed in 1..=100 {
        let (t, truth) = synth::low_contrast_straddle(seed);
        out.push(Case {
            name: format!("low-contrast straddle {seed}"),
            timeline: t,
            truth: Some((truth.drop_bytes[0], truth.drop_times[0])),
        });
    }
    out
}

/// The real traces, both forms. Their truth is the full run's cliff where the full run
/// finds one (`detect_real.rs` checks those against the published figures), none for the
/// run without a cliff.
fn real_cases() -> Vec<Case> {
    let dir = repo_file("tests/data/real-traces");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with("_bw.1.log") || n.ends_with(".bandwidth_samples.csv")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 6, "expected the six real traces: {files:?}");
    files
        .into_iter()
        .map(|p| {
            let t = import::load(&p).unwrap();
            let a = analyze(&t);
            Case {
                name: p.file_name().unwrap().to_string_lossy().to_string(),
                truth: a.cliffs.first().map(|c| (c.bytes_written as f64, c.t_s)),
                timeline: t,
            }
        })
        .collect()
}

#[derive(Default)]
struct Figures {
    traces: usize,
    with_cliff: usize,
    stops: usize,
    wrong: Vec<String>,
    detector_misses: Vec<String>,
    mismatched: Vec<String>,
    delays: Vec<f64>,
    saved_share: Vec<f64>,
}

fn judge(cases: &[Case], cfg: StopConfig) -> Figures {
    let mut f = Figures::default();
    for c in cases {
        f.traces += 1;
        if c.truth.is_some() {
            f.with_cliff += 1;
        }
        let Some(r) = replay(&c.timeline.samples, cfg) else {
            continue;
        };
        f.stops += 1;
        let ReplayStop {
            t_s, estimate: e, ..
        } = &r;
        let est = &e.cache;
        let full = analyze(&c.timeline).cache_estimate;
        let near = |bytes: f64, x: &slccache::detect::CacheEstimate, slack: f64| {
            x.low_bytes as f64 - slack <= bytes && bytes <= x.high_bytes as f64 + slack
        };
        // The full run's estimate against the stop's interval.
        match &full {
            Some(full_est) => {
                let b = full_est.bytes as f64;
                if !near(b, est, SAME_CLIFF_SLACK * est.bytes as f64) {
                    f.mismatched.push(format!(
                        "{}: early stop {} ({}..{}), full run {} ({:+.2}%)",
                        c.name,
                        est.bytes,
                        est.low_bytes,
                        est.high_bytes,
                        full_est.bytes,
                        100.0 * (b / est.bytes as f64 - 1.0)
                    ));
                }
            }
            // The full run missed a cliff that the early stop found where the truth has it:
            // the detector's miss on the whole run (detect_synthetic.rs counts those), not a
            // wrong stop.
            None if c
                .truth
                .is_some_and(|(bytes, _)| near(bytes, est, 0.01 * bytes)) =>
            {
                f.detector_misses.push(format!(
                    "{}: the early stop found the true cliff, the full run none",
                    c.name
                ))
            }
            None => f.mismatched.push(format!(
                "{}: the early stop found a cliff, the full run none",
                c.name
            )),
        }
        match c.truth {
            None => f.wrong.push(format!(
                "{}: stopped at {t_s:.1} s on a cliff at {} bytes, but the trace has none",
                c.name, est.bytes
            )),
            Some((bytes, t_true)) => {
                let slack = 0.01 * bytes;
                if !near(bytes, est, slack) {
                    let text = format!(
                        "{}: stopped at {t_s:.1} s on {} ({}..{}), true cliff {bytes:.0} at \
                         {t_true:.1} s ({:.2}% off)",
                        c.name,
                        est.bytes,
                        est.low_bytes,
                        est.high_bytes,
                        100.0 * (est.bytes as f64 - bytes).abs() / bytes
                    );
                    // Wrong where the full run was right: the rule's fault. Wrong where the
                    // full run is just as wrong: the detector's (detect_synthetic.rs).
                    if full.as_ref().is_some_and(|x| near(bytes, x, slack)) {
                        f.wrong.push(text);
                    } else {
                        f.detector_misses.push(text);
                    }
                }
                f.delays.push(t_s - t_true);
            }
        }
        f.saved_share
            .push(1.0 - r.bytes as f64 / c.timeline.bytes_total().max(1) as f64);
    }
    f
}

fn report(what: &str, f: &Figures) -> f64 {
    let mut d = f.delays.clone();
    d.sort_by(|a, b| a.total_cmp(b));
    let median = d.get(d.len() / 2).copied().unwrap_or(f64::NAN);
    let p90 = d.get(d.len() * 9 / 10).copied().unwrap_or(f64::NAN);
    let mut s = f.saved_share.clone();
    s.sort_by(|a, b| a.total_cmp(b));
    let saved = s.get(s.len() / 2).copied().unwrap_or(f64::NAN);
    eprintln!(
        "{what}: {} traces, {} with a cliff; stopped early in {}; wrong cliff {} times; \
         stopped where the full run misses the truth too {} times; full run's estimate outside \
         the early stop's interval {} times; true cliff to stop: median \
         {median:.1} s, 90th percentile {p90:.1} s; median share of the run's bytes not \
         written {:.0}%",
        f.traces,
        f.with_cliff,
        f.stops,
        f.wrong.len(),
        f.detector_misses.len(),
        f.mismatched.len(),
        100.0 * saved
    );
    for w in f
        .wrong
        .iter()
        .chain(&f.detector_misses)
        .chain(&f.mismatched)
    {
        eprintln!("  {w}");
    }
    median
}

pub fn the_early_stop_never_stops_on_a_wrong_cliff() {
    let cfg = StopConfig::default();
    let syn = judge(&synthetic_cases(), cfg);
    let real = judge(&real_cases(), cfg);
    let m_syn = report("synthetic", &syn);
    let m_real = report("real", &real);
    assert!(syn.wrong.is_empty(), "wrong stops: {:#?}", syn.wrong);
    assert!(real.wrong.is_empty(), "wrong stops: {:#?}", real.wrong);
    assert!(
        syn.mismatched.is_empty(),
        "early estimates that do not match the full run: {:#?}",
        syn.mismatched
    );
    assert!(real.mismatched.is_empty(), "{:#?}", real.mismatched);
    // The rule does stop: on most synthetic traces with a cliff and enough run after it,
    // and on both real traces with a cliff (four files), after at least the hold time.
    assert!(
        syn.stops > 0 && real.stops == 4,
        "{} {}",
        syn.stops,
        real.stops
    );
    assert!(m_syn >= cfg.after_cliff_s && m_real >= cfg.after_cliff_s);
}
