//! `slccache sweep` against drive models, whose truth is known: the IOPS ceiling, the
//! saturation point, the IOPS at QD1 (the model's latency), the shape of the rwmix curve, the
//! CrystalDiskMark table, and points that run out of cache. Virtual time: no timing bounds.

use std::time::Duration;

use predicates::str::contains;
use slccache::experiment::sweep::{model_iops, simulate_point};
use slccache::model::presets;
use slccache::results::sweep::{PointSpec, SWEEP_COLUMNS};
use slccache::workload::Pattern;

use crate::common::slccache;

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs()
}

#[test]
fn a_qd_sweep_finds_the_ceiling_and_the_saturation_point() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sw");
    slccache()
        .args([
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--qd",
            "1,4,16,64,256",
            "--jobs",
            "1,4",
            "--point-duration",
            "3s",
            "--seed",
            "3",
            "-q",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success()
        .stdout(contains("saturation at QD16 x 1 job ("));
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), SWEEP_COLUMNS.join(","));
    assert_eq!(
        SWEEP_COLUMNS.join(","),
        "qd,jobs,bs,rwmix_read,iops,bytes_per_sec,lat_p50_us,lat_p99_us,cpu_pct,crossed_cliff"
    );
    assert_eq!(lines.count(), 10);
    let s = json(&dir.join("summary.json"));
    let points = s["sweep"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 10);
    let truth = &s["model_truth"]["sweep"];
    let limit = truth["iops_limit"].as_f64().unwrap();
    // The model: 1365 MB/s of 4 KiB writes in the cache (StarWind's 960 EVO figure).
    assert!(close(limit, 1365e6 / 4096.0, 1e-9), "{limit}");
    let best = points
        .iter()
        .map(|p| p["iops"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(close(best, limit, 0.03), "best {best} vs ceiling {limit}");
    // The saturation point is the model's.
    let sat = &s["sweep"]["saturation"];
    assert_eq!(sat["qd"], truth["saturation"]["qd"]);
    assert_eq!(sat["jobs"], truth["saturation"]["jobs"]);
    assert_eq!(
        (sat["qd"].as_u64(), sat["jobs"].as_u64()),
        (Some(16), Some(1))
    );
    // IOPS at QD1 come from the model's latency: 1 / (25 us + 4 KiB / rate).
    let qd1 = points
        .iter()
        .find(|p| p["qd"] == 1 && p["jobs"] == 1)
        .unwrap()["iops"]
        .as_f64()
        .unwrap();
    let want = truth["qd1_iops"].as_f64().unwrap();
    assert!(close(want, 1.0 / (25e-6 + 4096.0 / 1365e6), 1e-9), "{want}");
    assert!(close(qd1, want, 0.03), "QD1 {qd1} vs {want}");
    // A write point inside the cache did not cross it; charts and report are there.
    assert!(points.iter().all(|p| p["crossed_cliff"] == false));
    for f in [
        "report.md",
        "sweep-iops-qd.png",
        "sweep-iops-qd.svg",
        "sweep-latency-iops.png",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("Saturation: QD16 x 1 job (QD x jobs = 16)"),
        "{md}"
    );
}

#[test]
fn the_rwmix_curve_has_the_models_shape() {
    let m = presets::find("960evo-500g").unwrap();
    let mut got = Vec::new();
    for (i, pct) in [100u32, 80, 60, 40, 20, 0].into_iter().enumerate() {
        let p = PointSpec {
            pattern: Pattern::Randrw,
            bs: 4096,
            qd: 32,
            jobs: 1,
            read_pct: pct,
            label: None,
        };
        let r = simulate_point(&m, &p, Duration::from_secs(3), None, i as u64).unwrap();
        let want = model_iops(&m, &p);
        assert!(
            close(r.iops, want, 0.03),
            "{pct}% reads: {} vs {want}",
            r.iops
        );
        assert_eq!(r.rwmix_read, pct);
        got.push(r.iops);
    }
    // A bathtub: both pure ends above every mix, the deepest point in the middle.
    let ends = got[0].min(got[5]);
    assert!(got[1..5].iter().all(|&x| x < ends), "{got:?}");
    let mid = got[2].min(got[3]);
    assert!(
        mid < 0.8 * ends && mid <= got[1] && mid <= got[4],
        "{got:?}"
    );
}

#[test]
fn the_cdm_table_and_points_that_run_out_of_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cdm");
    slccache()
        .args([
            "sweep",
            "emu:970evo-500g",
            "--simulate",
            "--preset",
            "cdm",
            "--seed",
            "1",
            "-q",
        ])
        .args(["--point-duration", "2s", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for row in ["| Seq Q32T1 |", "| 4K Q8T8 |", "| 4K Q1T1 |"] {
        assert!(md.contains(row), "{row} missing:\n{md}");
    }
    let s = json(&dir.join("summary.json"));
    assert_eq!(s["sweep"]["points"].as_array().unwrap().len(), 6);

    // A 1 GB cache is gone within a 10 s point of 4K writes: marked. Held to 500 MB per
    // point, it is not.
    let small = tmp.path().join("small");
    slccache()
        .args([
            "sweep",
            "emu:960evo-500g,cache=1GB",
            "--simulate",
            "--qd",
            "32",
            "--jobs",
            "1",
        ])
        .args(["--seed", "2", "-q", "--out"])
        .arg(&small)
        .assert()
        .success();
    let s = json(&small.join("summary.json"));
    assert_eq!(s["sweep"]["points"][0]["crossed_cliff"], true);
    assert!(std::fs::read_to_string(small.join("sweep.csv"))
        .unwrap()
        .contains(",true"));
    let held = tmp.path().join("held");
    slccache()
        .args([
            "sweep",
            "emu:960evo-500g,cache=1GB",
            "--simulate",
            "--qd",
            "32",
            "--jobs",
            "1",
        ])
        .args([
            "--max-bytes-per-point",
            "500MB",
            "--seed",
            "2",
            "-q",
            "--out",
        ])
        .arg(&held)
        .assert()
        .success();
    let s = json(&held.join("summary.json"));
    assert_eq!(s["sweep"]["points"][0]["crossed_cliff"], false);
}

#[test]
fn a_real_time_sweep_of_an_emulated_drive_measures_the_writer_cpu() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rt");
    slccache()
        .args(["sweep", "emu:960evo-500g", "--qd", "1,8", "--jobs", "1"])
        .args(["--point-duration", "300ms", "--seed", "4", "-q", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let s = json(&dir.join("summary.json"));
    for p in s["sweep"]["points"].as_array().unwrap() {
        assert!(p["cpu_pct"].as_f64().is_some(), "{p}");
        assert!(p["iops"].as_f64().unwrap() > 0.0);
        assert!(p["lat_p50_us"].as_f64().is_some());
    }
}

#[test]
fn bad_sweep_arguments_are_usage_errors() {
    for args in [
        vec!["sweep", "emu:960evo-500g", "--simulate", "--qd", "0"],
        vec![
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--rwmix-read",
            "120",
        ],
        vec![
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--point-duration",
            "soon",
        ],
        vec!["sweep", "/nonexistent-dir/x.bin", "--simulate"],
    ] {
        slccache().args(&args).assert().code(2);
    }
}

// The CrystalDiskMark table covers a 1 GiB test region per point, so the
// write points stay in the cache and read the drive's in-cache rates (before: 10 s points
// ran out of cache and "Seq Q32T1 write" read 2262 MB/s where the model writes 2500).
#[test]
fn the_cdm_table_covers_a_1_gib_region_per_point() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cdm");
    slccache()
        .args(["sweep", "emu:970evo-500g", "--simulate", "--preset", "cdm"])
        .args(["--seed", "1", "-q", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let s = json(&dir.join("summary.json"));
    assert_eq!(s["config"]["max_bytes_per_point"], 1u64 << 30);
    let points = s["sweep"]["points"].as_array().unwrap();
    assert!(points.iter().all(|p| p["crossed_cliff"] == false), "{s}");
    let seq_write = points
        .iter()
        .find(|p| p["label"] == "Seq Q32T1 Write")
        .unwrap();
    let rate = seq_write["bytes_per_sec"].as_f64().unwrap();
    // The model: 2500 MB/s of sequential writes in the cache.
    assert!(close(rate, 2500e6, 0.05), "Seq Q32T1 write {rate}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("1.00 GiB test region"), "{md}");
}

// The saturation is read per workload and names it; a workload whose
// largest point is its best has not been seen to saturate (the table: one point per job
// count), and reads and writes each get their own.
#[test]
fn saturation_is_per_workload_and_never_mixes_reads_and_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let cdm = tmp.path().join("cdm");
    slccache()
        .args(["sweep", "emu:970evo-500g", "--simulate", "--preset", "cdm"])
        .args(["--seed", "1", "-q", "--out"])
        .arg(&cdm)
        .assert()
        .success()
        .stdout(contains("no saturation within the grid"));
    let s = json(&cdm.join("summary.json"));
    assert!(s["sweep"]["saturation"].is_null(), "{s}");
    assert_eq!(s["sweep"]["saturations"].as_array().unwrap().len(), 0);
    let md = std::fs::read_to_string(cdm.join("report.md")).unwrap();
    assert!(
        md.contains("Saturation: not reached within the grid"),
        "{md}"
    );

    // Reads and writes of the same order and block size, each over QD 1 to 256.
    let rw = tmp.path().join("rw");
    slccache()
        .args([
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--rwmix-read",
            "100,0",
        ])
        .args([
            "--qd",
            "1,4,16,64,256",
            "--jobs",
            "1",
            "--point-duration",
            "3s",
        ])
        .args(["--seed", "3", "-q", "--out"])
        .arg(&rw)
        .assert()
        .success();
    let s = json(&rw.join("summary.json"));
    let sats = s["sweep"]["saturations"].as_array().unwrap();
    let mut mixes: Vec<u64> = sats
        .iter()
        .map(|x| x["rwmix_read"].as_u64().unwrap())
        .collect();
    mixes.sort_unstable();
    assert_eq!(mixes, [0, 100], "{sats:?}");
    for sat in sats {
        // Each is the smallest QD reaching 95% of the best of its own mix.
        let mix = &sat["rwmix_read"];
        let best = s["sweep"]["points"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| &p["rwmix_read"] == mix)
            .map(|p| p["iops"].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert!(sat["iops"].as_f64().unwrap() >= 0.95 * best, "{sat}");
        assert_eq!(sat["bs"], 4096);
    }
    let md = std::fs::read_to_string(rw.join("report.md")).unwrap();
    assert!(md.contains("of 4 KiB random reads"), "{md}");
    assert!(md.contains("of 4 KiB random writes"), "{md}");
}

// --bs has probe's default, 128 KiB for sequential patterns.
#[test]
fn the_block_size_default_follows_the_pattern_as_in_probe() {
    let tmp = tempfile::tempdir().unwrap();
    for (pattern, bs) in [("seqwrite", 131072u64), ("randwrite", 4096)] {
        let dir = tmp.path().join(pattern);
        slccache()
            .args([
                "sweep",
                "emu:960evo-500g",
                "--simulate",
                "--pattern",
                pattern,
            ])
            .args(["--qd", "1,4", "--jobs", "1", "--point-duration", "1s"])
            .args(["--seed", "3", "-q", "--out"])
            .arg(&dir)
            .assert()
            .success();
        let s = json(&dir.join("summary.json"));
        for p in s["sweep"]["points"].as_array().unwrap() {
            assert_eq!(p["bs"], bs, "{pattern}");
        }
    }
}

/// A sweep of one point ended "1 points".
#[test]
fn a_sweep_of_one_point_says_one_point() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("one");
    let o = slccache()
        .args([
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--qd",
            "1",
            "--jobs",
            "1",
            "--no-record",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains(": 1 point") && !text.contains("1 points"),
        "{text}"
    );
}
