//! The detector on real fio traces of a BIWIN X570 1 TB (see
//! `tests/data/real-traces/README.md`), each read in both forms: fio's bandwidth log and
//! the two-column `second,write_MiB_s` CSV.

use std::path::PathBuf;

use slccache::detect::{analyze, Analysis, PhaseKind};
use slccache::timeline::import;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn trace(file: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-traces");
    assert!(
        dir.is_dir(),
        "missing {}: the real traces are part of the repository",
        dir.display()
    );
    dir.join(file)
}

/// Both forms of a trace, analysed.
fn both(stem: &str) -> Vec<(String, Analysis)> {
    [
        format!("{stem}_bw.1.log"),
        format!("{stem}.bandwidth_samples.csv"),
    ]
    .into_iter()
    .map(|f| {
        let t = import::load(&trace(&f)).unwrap_or_else(|e| panic!("{e}"));
        (f, analyze(&t))
    })
    .collect()
}

#[test]
fn fresh_run_cliff_at_15_s_and_74_gib_and_the_recovery_is_not_a_cliff() {
    let runs = both("biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB");
    for (f, a) in &runs {
        assert_eq!(a.cliffs.len(), 1, "{f}: {:#?}", a.cliffs);
        let c = &a.cliffs[0];
        // The sample ending at 15 s (4759 MiB/s) straddles the drop: the sub-sample estimate
        // is just before 15 s, and its 95% interval reaches into the 15-16 s second.
        assert!((14.5..=16.0).contains(&c.t_s), "{f}: cliff at {} s", c.t_s);
        assert!(c.t_low_s <= 16.0 && c.t_high_s >= 15.0, "{f}: {c:?}");
        let est = a.cache_estimate.as_ref().expect("a cache estimate");
        let gib = est.bytes as f64 / GIB;
        assert!((71.0..=76.0).contains(&gib), "{f}: cache {gib} GiB");
        assert!(est.low_bytes <= est.bytes && est.bytes <= est.high_bytes);
        assert_eq!(est.bytes, c.bytes_written);
        assert!(a.cache_lower_bound_bytes.is_none());
        // Before ~5070 MiB/s, after the trough ~830 MiB/s.
        assert!(
            (4900.0..5200.0).contains(&(c.before_bytes_per_sec / 1048576.0)),
            "{c:?}"
        );
        assert!(
            (700.0..1000.0).contains(&(c.after_bytes_per_sec / 1048576.0)),
            "{c:?}"
        );
        // Phases: cache, then the trough and the recovery, both post-cache; no folding.
        let kinds: Vec<PhaseKind> = a.phases.iter().map(|p| p.kind).collect();
        assert_eq!(kinds[0], PhaseKind::Cache, "{f}: {kinds:?}");
        assert!(
            kinds[1..].iter().all(|k| *k == PhaseKind::PostCache),
            "{f}: {kinds:?}"
        );
        let recovery = a
            .phases
            .iter()
            .find(|p| p.start_s > 25.0)
            .expect("a recovery");
        assert!((30.0..40.0).contains(&recovery.start_s), "{recovery:?}");
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("post-cache level unstable")),
            "{:?}",
            a.warnings
        );
    }
    let (x, y) = (&runs[0].1, &runs[1].1);
    let (bx, by) = (
        x.cache_estimate.as_ref().unwrap().bytes as f64,
        y.cache_estimate.as_ref().unwrap().bytes as f64,
    );
    assert!(
        (bx - by).abs() / bx < 0.005,
        "the two forms disagree: {bx} vs {by}"
    );
}

#[test]
fn post_precondition_run_cache_93_to_97_gib() {
    for (f, a) in both("biwin_x570_1tb_postprecond_seqwrite_1M_qd32_200GiB") {
        assert_eq!(a.cliffs.len(), 1, "{f}: {:#?}", a.cliffs);
        let c = &a.cliffs[0];
        assert!((18.5..=20.0).contains(&c.t_s), "{f}: cliff at {} s", c.t_s);
        let est = a.cache_estimate.as_ref().expect("a cache estimate");
        let gib = est.bytes as f64 / GIB;
        assert!((93.0..=97.0).contains(&gib), "{f}: cache {gib} GiB");
        assert!(est.low_bytes as f64 / GIB >= 92.0 && est.high_bytes as f64 / GIB <= 98.0);
        let kinds: Vec<PhaseKind> = a.phases.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, vec![PhaseKind::Cache, PhaseKind::PostCache], "{f}");
    }
}

#[test]
fn mixed_run_has_no_cliff() {
    for (f, a) in both("biwin_x570_1tb_randrw50_1M_qd32_nocliff") {
        assert!(a.cliffs.is_empty(), "{f}: {:#?}", a.cliffs);
        assert!(a.cache_estimate.is_none());
        assert_eq!(a.cache_lower_bound_bytes, Some(a.bytes_total));
        assert_eq!(a.phases.len(), 1, "{f}: {:#?}", a.phases);
        assert_eq!(a.phases[0].kind, PhaseKind::Steady);
        let mib_s = a.phases[0].mean_bytes_per_sec / 1048576.0;
        assert!((1200.0..1400.0).contains(&mib_s), "{f}: {mib_s} MiB/s");
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("ended before any cliff")),
            "{:?}",
            a.warnings
        );
    }
}
