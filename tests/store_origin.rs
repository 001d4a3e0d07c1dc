//! Where a run came from, through the binary on SQLite: `--host`, `SLCCACHE_HOST` and `--tag`
//! in every kind of run's summary.json and in the store; the listing's filters by host and tag.

mod store_util;

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use store_util::{ok, runs_json};

/// The binary recording into `db`, with no host set from outside.
fn bin(db: &Path) -> Command {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.env("SLCCACHE_DB", db).env_remove("SLCCACHE_HOST");
    c
}

fn origin(dir: &Path) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    v["origin"].clone()
}

/// Every command that records a run writes `origin` (host and tags) into its summary.json,
/// and the store takes the host and tags from there.
#[test]
fn every_kind_of_run_records_its_host_and_tags() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kernel-cliff/stall-before-cliff.csv");
    let tags = ["--tag", "rack=r3", "--tag", "fw.rev=3B2Q_EXM7-x"];
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("simulate", vec!["simulate".into(), "960evo-250g".into()]),
        (
            "probe",
            ["probe", "emu:960evo-250g,cache=1GB", "--max-bytes", "2GB"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "analyze",
            vec!["analyze".into(), trace.to_str().unwrap().to_string()],
        ),
        (
            "sweep",
            ["sweep", "emu:960evo-500g", "--simulate", "--qd", "1,4"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "recovery",
            ["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "fill-sweep",
            [
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
            ]
            .map(String::from)
            .to_vec(),
        ),
    ];
    for (name, args) in &runs {
        let out = w.join(name);
        let seed: &[&str] = if *name == "analyze" {
            &[]
        } else {
            &["--seed", "7"]
        };
        ok(bin(&db)
            .args(args)
            .args(seed)
            .args(["-q", "--host", "bench-2"])
            .args(tags)
            .arg("--out")
            .arg(&out));
        assert_eq!(
            origin(&out),
            serde_json::json!({"host": "bench-2", "tags": {"rack": "r3", "fw.rev": "3B2Q_EXM7-x"}}),
            "{name}"
        );
    }
    let listed = runs_json(db.to_str().unwrap());
    assert_eq!(listed.len(), runs.len());
    for r in &listed {
        assert_eq!(r["host"], "bench-2", "{r}");
        assert_eq!(r["tags"]["rack"], "r3", "{r}");
    }
    // SLCCACHE_HOST names the host when --host does not; --host wins over it.
    let env_run = w.join("env");
    ok(bin(&db)
        .env("SLCCACHE_HOST", "bench-3")
        .args(["simulate", "960evo-250g", "--seed", "8", "-q", "--out"])
        .arg(&env_run));
    assert_eq!(origin(&env_run)["host"], "bench-3");
    let flag_run = w.join("flag");
    ok(bin(&db)
        .env("SLCCACHE_HOST", "bench-3")
        .args([
            "--host",
            "bench-4",
            "simulate",
            "960evo-250g",
            "--seed",
            "9",
        ])
        .args(["-q", "--out"])
        .arg(&flag_run));
    assert_eq!(origin(&flag_run)["host"], "bench-4");
    assert_eq!(origin(&flag_run)["tags"], serde_json::json!({}));
    // Without either, the machine's name.
    let plain = w.join("plain");
    ok(bin(&db)
        .args(["simulate", "960evo-250g", "--seed", "10", "-q", "--out"])
        .arg(&plain));
    let uname = String::from_utf8(Command::new("uname").arg("-n").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(origin(&plain)["host"], uname.as_str());
    let host_of = |folder: &str| -> String {
        runs_json(db.to_str().unwrap())
            .iter()
            .find(|r| r["source_dir"].as_str().unwrap().ends_with(folder))
            .map(|r| r["host"].as_str().unwrap_or("").to_string())
            .unwrap()
    };
    assert_eq!(host_of("/env"), "bench-3");
    assert_eq!(host_of("/flag"), "bench-4");
    assert_eq!(host_of("/plain"), uname);

    // A bad tag key or an empty host is refused before anything runs (exit 2).
    for bad in [
        vec!["--tag", "my rack=3"],
        vec!["--tag", "rack"],
        vec!["--tag", "räck=3"],
        vec!["--tag", "a=1", "--tag", "a=2"],
        vec!["--host", " "],
    ] {
        let out = w.join("refused");
        let o = bin(&db)
            .args(&bad)
            .args(["simulate", "960evo-250g", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--tag") || err.contains("--host"), "{err}");
        assert!(!out.exists(), "{bad:?} wrote {}", out.display());
    }
}

/// Three simulated runs from three hosts with tags, recorded into `db`; returns nothing.
fn three_hosts(db: &Path, w: &Path) {
    for (i, (host, preset, rack)) in [
        ("Bench-1", "960evo-250g", "r3"),
        ("bench-2", "960evo-500g", "r4"),
        ("lab-3", "960evo-250g", "r3"),
    ]
    .iter()
    .enumerate()
    {
        ok(bin(db)
            .args(["simulate", preset, "--seed", &(i + 1).to_string(), "-q"])
            .args(["--host", host, "--tag", &format!("rack={rack}")])
            .args(["--tag", &format!("ticket=T-{}", i % 2)])
            .arg("--out")
            .arg(w.join(format!("s{i}"))));
    }
}

/// `--host` and `--drive` match part of the name in any case; every `--tag` must match.
#[test]
fn runs_filter_by_host_part_and_tags() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    three_hosts(&db, d.path());
    let ids = |args: &[&str]| -> Vec<i64> {
        let text = ok(bin(&db).args(["runs", "--json"]).args(args));
        serde_json::from_str::<Vec<serde_json::Value>>(&text)
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&[]), [1, 2, 3]);
    assert_eq!(ids(&["--host", "BENCH"]), [1, 2]);
    assert_eq!(ids(&["--host", "ch-2"]), [2]);
    assert_eq!(ids(&["--host", "nowhere"]), Vec::<i64>::new());
    assert_eq!(ids(&["--drive", "960 evo 250"]), [1, 3]);
    assert_eq!(ids(&["--tag", "rack=r3"]), [1, 3]);
    assert_eq!(ids(&["--tag", "rack=r3", "--tag", "ticket=T-0"]), [1, 3]);
    assert_eq!(
        ids(&["--tag", "rack=r3", "--tag", "ticket=T-1"]),
        Vec::<i64>::new()
    );
    assert_eq!(ids(&["--tag", "rack=r3", "--host", "lab"]), [3]);
    // The table and the CSV carry host and tags.
    let csv = ok(bin(&db).args(["runs", "--csv", "--host", "lab"]));
    assert!(csv.lines().next().unwrap().ends_with(",tags"), "{csv}");
    assert!(
        csv.contains("lab-3") && csv.contains("rack=r3;ticket=T-0"),
        "{csv}"
    );
    // A bad --tag filter is a usage error.
    let o = bin(&db).args(["runs", "--tag", "rack"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}
