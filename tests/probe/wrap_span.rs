//! A cliff found after the writes wrapped around the span: on a 2.15 GB
//! namespace a cliff at 3.13 GB of writing was reported as "Cache size 3.13 GB" with no word
//! of warning. The figure counts blocks written more than once; the analysis must say that it
//! cannot be the cache size of that span, and what to do.
//!
//! Two real runs: an emulated drive with a span smaller than its cache (real time, the real
//! engine), and a loop device smaller than the bytes written before a kernel-made cliff (a
//! cgroup-v1 blkio limit lowered once the device's own counter passes a byte count; root
//! only, skipped otherwise as in `fault_cliff.rs`). The loop device, the tmpfs and the cgroup
//! are removed on drop, also when the test fails.

use crate::common::fault_util;

use fault_util::*;

fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The wrap warning of an analysis, if any.
fn wrap_warning(s: &serde_json::Value) -> Option<String> {
    s["analysis"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .find(|w| w.contains("the writes had wrapped around"))
        .map(str::to_string)
}

pub fn an_emulated_drive_with_a_span_smaller_than_its_cache_warns_that_the_writes_wrapped() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |span: &str, name: &str| {
        let out = tmp.path().join(name);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .args([
                "probe",
                "emu:960evo-250g,cache=500MB",
                "--pattern",
                "seqwrite",
            ])
            .args(["--bs", "1M", "--span", span, "--max-bytes", "1.5GB"])
            .args(["--interval", "100ms", "--seed", "1", "--quiet"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        summary(&out)
    };
    // A 200 MB span: the 500 MB cache runs out in the third pass.
    let s = run("200MB", "small");
    let est = s["analysis"]["cache_estimate"]["bytes"].as_f64().unwrap();
    assert!((est / 5e8 - 1.0).abs() < 0.03, "estimate {est}");
    let w = wrap_warning(&s).unwrap_or_else(|| panic!("{}", s["analysis"]["warnings"]));
    // The span is whole 1 MiB blocks: 190 of them, 199 MB.
    assert!(w.contains("more than the 199 MB span"), "{w}");
    assert!(w.contains("--span") && w.contains("--trim"), "{w}");
    // A span larger than the cache: the cliff comes in the first pass, no warning.
    let s = run("1GB", "large");
    assert!(s["analysis"]["cache_estimate"]["bytes"].is_number());
    assert_eq!(wrap_warning(&s), None, "{}", s["analysis"]["warnings"]);
}

/// Bytes written before the kernel's limit drops: more than twice the device.
const SWITCH: u64 = 150_000_000;
const FAST: u64 = 40_000_000;
const SLOW: u64 = 10_000_000;
const TOTAL: u64 = SWITCH + 80_000_000;
const DEVICE: u64 = 64 << 20;

pub fn a_cliff_on_a_loop_device_after_the_writes_wrapped_is_flagged() {
    let test = "a_cliff_on_a_loop_device_after_the_writes_wrapped_is_flagged";
    if !may_run(test) {
        return;
    }
    let Some(cg) = BlkioGroup::new("wrap") else {
        assert!(
            !ci(),
            "{test}: CI=true but cgroup-v1 blkio throttling is not available"
        );
        crate::common::skip(format!("no cgroup-v1 blkio throttling at {BLKIO_ROOT}"));
        return;
    };
    let fs = Tmpfs::new("96M");
    let lo = LoopDev::sparse(&fs.path().join("backing.img"), DEVICE, true);
    let out = scratch("wrap-span-out-");
    let (o, switched) = probe_with_kernel_cliff(&lo, &cg, out.path(), (FAST, SLOW), SWITCH, TOTAL);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let switched = switched.expect("the device counter never reached the switch point") as f64;
    let s = summary(out.path());
    let est = s["analysis"]["cache_estimate"]["bytes"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cliff (switched at {switched:.0} B): {}", s["analysis"]));
    assert!(
        (est / switched - 1.0).abs() < 0.05,
        "switched at {switched:.0} B, found {est:.0} B"
    );
    let w = wrap_warning(&s).unwrap_or_else(|| panic!("{}", s["analysis"]["warnings"]));
    assert!(w.contains("more than the 67.1 MB span"), "{w}");
    eprintln!("{test}: switched at {switched:.0} B, found {est:.0} B; {w}");
}
