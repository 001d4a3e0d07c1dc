//! A real, kernel-made cliff on a real block device (what `scripts/loop-cliff.sh` does by
//! hand): a loop device (direct I/O) over a sparse file on a tmpfs, the probe in a cgroup-v1
//! blkio group whose write limit drops from fast to slow once the device's own counter
//! (`/sys/block/loopN/stat`, sectors written) passes a chosen byte count. The probe must put
//! the cliff within 5% of that count, or within one interval's bytes if that is larger.
//!
//! Needs root and cgroup-v1 blkio throttling; skips with the reason otherwise, except under
//! CI=true where both are required. The cgroup, the loop device, the tmpfs and every file are
//! removed on drop, also when the test fails.

use crate::common::fault_util;

use fault_util::*;

/// Bytes written before the limit drops.
const CACHE: u64 = 200_000_000;
/// Write limits before and after, bytes/s: five seconds before the cliff and eight after, so
/// that neither phase is short enough for the detector to fold into the other. (With five
/// seconds after, one CI run's slow phase came out at 4.7 s of 5/10/14 MB/s samples and the
/// cliff was placed 8% late; that timeline is kept in tests/data/kernel-cliff and
/// tests/defects_detect.rs as a known detector miss.)
const FAST: u64 = 40_000_000;
const SLOW: u64 = 10_000_000;
/// The probe stops after this much (about eight seconds past the cliff).
const TOTAL: u64 = CACHE + 80_000_000;
const INTERVAL_S: f64 = 0.2;

pub fn the_probe_finds_a_cliff_made_by_the_kernel() {
    let test = "the_probe_finds_a_cliff_made_by_the_kernel";
    if !may_run(test) {
        return;
    }
    let Some(cg) = BlkioGroup::new("cliff") else {
        assert!(
            !ci(),
            "{test}: CI=true but cgroup-v1 blkio throttling is not available"
        );
        crate::common::skip(format!("no cgroup-v1 blkio throttling at {BLKIO_ROOT}"));
        return;
    };
    let fs = Tmpfs::new("320M");
    let lo = LoopDev::sparse(&fs.path().join("backing.img"), 256 << 20, true);
    let out = scratch("fault-cliff-out-");
    let (o, truth) = probe_with_kernel_cliff(&lo, &cg, out.path(), (FAST, SLOW), CACHE, TOTAL);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let truth = truth.expect("the device counter never reached the switch point") as f64;

    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let est = &s["analysis"]["cache_estimate"];
    let text = std::fs::read_to_string(out.path().join("timeline.csv")).unwrap();
    let found = est["bytes"].as_f64().unwrap_or_else(|| {
        panic!(
            "no cliff found (switched at {truth:.0} B): {}; timeline:\n{text}",
            s["analysis"]
        )
    });
    let rows = slccache::timeline::read_slccache_csv(&text, "timeline.csv").unwrap();
    let pre: Vec<f64> = rows
        .iter()
        .filter(|r| (r.bytes_total as f64) < truth * 0.9)
        .map(|r| r.bytes_per_sec)
        .collect();
    let pre_rate = pre.iter().sum::<f64>() / pre.len().max(1) as f64;
    let tolerance = (0.05 * truth).max(pre_rate * INTERVAL_S);
    eprintln!(
        "{test}: switched at {truth:.0} B, found {found:.0} B ({:+.2}%), interval {} to {}; \
         tolerance {tolerance:.0} B",
        (found / truth - 1.0) * 100.0,
        est["low_bytes"],
        est["high_bytes"]
    );
    assert!(
        (found - truth).abs() <= tolerance,
        "the cliff is at {truth:.0} B; the probe found {found:.0} B (tolerance {tolerance:.0} \
         B); timeline:\n{text}"
    );
    assert_eq!(
        s["analysis"]["cliffs"].as_array().unwrap().len(),
        1,
        "{}",
        s["analysis"]
    );
}
