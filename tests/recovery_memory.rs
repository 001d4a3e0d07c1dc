//! A burst of `recovery` and `fill-sweep` keeps its samples in bounded memory, as a probe
//! does: every sample goes to the burst's CSV, and what the burst hands back for the analysis
//! and the charts is the timeline kept up to `MAX_KEPT` samples, merged past it. It used to
//! hand back every sample (and its stop rule held a second copy), so a burst's memory grew
//! with its length. The limit is lowered here with the hidden `SLCCACHE_MAX_KEPT`, which this
//! binary may set: it holds this one test.

use std::sync::atomic::AtomicBool;

use slccache::cli::WorkloadArgs;
use slccache::config::WorkloadConfig;
use slccache::detect::stop::StopConfig;
use slccache::experiment::recovery::virtual_drive::VirtualDrive;
use slccache::experiment::recovery::{BurstRule, TestDrive};
use slccache::model::presets;
use slccache::workload::Pattern;

#[test]
fn a_long_burst_keeps_a_bounded_timeline() {
    std::env::set_var("SLCCACHE_MAX_KEPT", "64");
    let mut wa = WorkloadArgs {
        pattern: Some(Pattern::Seqwrite),
        seed: Some(2),
        ..Default::default()
    };
    wa.interval = Some("10ms".into());
    let w = WorkloadConfig::resolve(&wa).unwrap();
    let model = presets::parse_spec("960evo-500g,cache=4GB").unwrap();
    let meta = slccache::experiment::virtual_time::run_meta("960evo-500g", &model, &w);
    let mut drive = VirtualDrive::new(model, &w, meta);
    let mut rule = BurstRule::new(StopConfig::default(), None);
    let mut seen = 0usize;
    let (kept, _) = drive
        .burst(
            0,
            20_000_000_000,
            &mut rule,
            &AtomicBool::new(false),
            &mut |_| seen += 1,
        )
        .unwrap();
    // The cache (2.2 s) and the hold after the cliff (30 s) at 10 ms.
    assert!(seen > 1000, "the burst made {seen} samples");
    assert!(
        kept.len() <= 65,
        "the burst handed back {} of its {seen} samples (the limit is 64)",
        kept.len()
    );
}
