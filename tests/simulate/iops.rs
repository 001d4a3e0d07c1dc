//! The drive's IOPS limit: it bounds the rate after the cache as in it, and where it holds
//! the two rates too close for a cliff to show, the model's truth and the analysis say so
//! rather than "no SLC cache ran out". Block sizes that no emulated drive takes are refused.

use crate::common::slccache;

fn run(args: &[&str]) -> (String, tempfile::TempDir) {
    let d = tempfile::tempdir().unwrap();
    let o = slccache()
        .arg("--no-record")
        .args(args)
        .arg("--out")
        .arg(d.path().join("run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).into_owned(), d)
}

/// At 512 B the 960 EVO 250GB wrote 154 MB/s in its cache and 300 MB/s after it (twice its
/// 300k IOPS), and a run at 1 KiB said "the whole drive was written without a cliff: no SLC
/// cache ran out" under a truth line naming a 13 GB cache.
#[test]
fn an_iops_limit_that_hides_the_cache_is_said_not_taken_for_no_cache() {
    for bs in ["512", "1k"] {
        // A fixed seed: about one clock seed in thirty (seed 10) puts a GC dip in the last,
        // partial sample, which the detector reads, truly, as a drop too short to confirm at
        // the end of the span; this test is of the IOPS limit, not of that.
        let (out, d) = run(&["simulate", "960evo-250g", "--bs", bs, "--seed", "1"]);
        assert!(
            out.contains("model truth: cache 13.0 GB, hidden by the drive's IOPS limit"),
            "{bs}: {out}"
        );
        assert!(
            out.contains(
                "estimate:    no cliff seen at the drive model's IOPS limit (300.0k IOPS)"
            ),
            "{bs}: {out}"
        );
        assert!(!out.contains("no SLC cache ran out"), "{bs}: {out}");
        assert!(!out.contains("no cache, or one larger"), "{bs}: {out}");
        // No sample after the cache runs faster than the IOPS limit allows.
        let csv = std::fs::read_to_string(d.path().join("run/timeline.csv")).unwrap();
        let samples = slccache::timeline::read_slccache_csv(&csv, "timeline.csv").unwrap();
        let cap = 300e3 * if bs == "512" { 512.0 } else { 1024.0 };
        let fastest = samples.iter().map(|s| s.bytes_per_sec).fold(0.0, f64::max);
        assert!(fastest < cap * 1.25, "{bs}: {fastest}");
        // analyze of the run's folder says what the run said.
        let o = slccache()
            .args(["--no-record", "analyze"])
            .arg(d.path().join("run"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(text.contains("drive model's IOPS limit"), "{text}");
        assert!(!text.contains("no SLC cache ran out"), "{text}");
    }
    // A probe of the emulated drive: its truth says the limit hides the cache, and so does
    // its result, unless a loaded host made a drop of its own (then that drop is said).
    let (out, d) = run(&[
        "probe",
        "emu:960evo-250g",
        "--bs",
        "512",
        "--max-bytes",
        "300MB",
        "--interval",
        "100ms",
    ]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("run/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["model_truth"]["cache"]["iops_hides_cache"], true, "{s}");
    assert!(!out.contains("no cache, or one larger"), "{out}");
    if !out.contains("drop") {
        assert!(
            out.contains("no cliff seen at the drive model's IOPS limit"),
            "{out}"
        );
    }
    // At 4 KiB the cliff shows, and the truth line is the plain one.
    let (out, _d) = run(&["simulate", "960evo-250g", "--max-bytes", "20GB"]);
    assert!(
        out.contains("model truth: cache 13.0 GB, 1229 MB/s -> 300 MB/s"),
        "{out}"
    );
    assert!(!out.contains("IOPS limit"), "{out}");
}

/// probe refused `--bs 1000` on a file ("direct I/O there needs multiples of 512 bytes")
/// while simulate ran it; every command that runs a drive model in virtual time refuses it
/// as probe does, before it creates anything.
#[test]
fn a_block_size_off_512_is_refused_in_virtual_time_as_probe_refuses_it() {
    let d = tempfile::tempdir().unwrap();
    let want = "--bs 1000 does not fit 960evo-250g: direct I/O there needs multiples of 512 \
                bytes; try --bs 1024";
    for args in [
        &["simulate", "960evo-250g", "--bs", "1000"][..],
        &["simulate", "emu:960evo-250g", "--bs", "1000"][..],
        &["sweep", "960evo-250g", "--simulate", "--bs", "1000"][..],
        &[
            "recovery",
            "960evo-250g",
            "--simulate",
            "--idle",
            "10s",
            "--bs",
            "1000",
        ][..],
        &["fill-sweep", "960evo-250g", "--simulate", "--bs", "1000"][..],
    ] {
        let o = slccache()
            .arg("--no-record")
            .args(args)
            .arg("--out")
            .arg(d.path().join("run"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim(), format!("slccache: error: {want}"), "{args:?}");
        assert!(!d.path().join("run").exists(), "{args:?}");
    }
}
