//! The shipped scenario files parse and run; broken scenario files give clear usage errors.

use std::path::{Path, PathBuf};

use slccache::cli::{Pattern, WorkloadArgs};
use slccache::config::{Scenario, WorkloadConfig};

use crate::common::slccache;

fn shipped() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn resolve(p: &Path) -> WorkloadConfig {
    WorkloadConfig::resolve(&WorkloadArgs {
        scenario: Some(p.to_path_buf()),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{}: {e:#}", p.display()))
}

#[test]
fn every_shipped_scenario_parses_and_says_where_it_comes_from() {
    let files = shipped();
    assert!(files.len() >= 7, "{files:?}");
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.lines().next().unwrap_or("").starts_with('#'),
            "{}: begins with a comment on the method's origin",
            p.display()
        );
        let sc = Scenario::load(p).unwrap_or_else(|e| panic!("{}: {e:#}", p.display()));
        assert!(sc.description.is_some(), "{}", p.display());
        assert!(sc.source.is_some(), "{}", p.display());
        assert!(sc.pattern.is_some() && sc.bs.is_some() && sc.qd.is_some());
        let w = resolve(p);
        assert!(w.description.is_some());
    }
}

#[test]
fn the_required_profiles_are_there() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let w = resolve(&dir.join("seed-960evo-4k-qd32-4jobs.toml"));
    assert_eq!(
        (w.pattern, w.block_size, w.queue_depth, w.jobs),
        (Pattern::Randwrite, 4096, 32, 4)
    );
    let w = resolve(&dir.join("iometer-128k-seq-qd32.toml"));
    assert_eq!(
        (w.pattern, w.block_size, w.queue_depth),
        (Pattern::Seqwrite, 128 << 10, 32)
    );
    let w = resolve(&dir.join("anandtech-whole-drive-fill.toml"));
    assert_eq!(
        (w.pattern, w.block_size, w.queue_depth),
        (Pattern::Seqwrite, 128 << 10, 32)
    );
    assert_eq!(w.passes, Some(1.0));
    let w = resolve(&dir.join("techpowerup-1m-seq.toml"));
    assert_eq!((w.block_size, w.queue_depth, w.jobs), (1 << 20, 1, 1));
    assert_eq!(w.interval.as_millis(), 500);
    let w = resolve(&dir.join("snia-write-saturation.toml"));
    assert_eq!((w.pattern, w.block_size), (Pattern::Randwrite, 4096));
    assert_eq!(w.passes, Some(4.0));
    assert_eq!(w.duration.map(|d| d.as_secs()), Some(24 * 3600));
    let w = resolve(&dir.join("cdm-seq-q32t1.toml"));
    assert_eq!(
        (w.pattern, w.queue_depth, w.jobs),
        (Pattern::Seqwrite, 32, 1)
    );
    let w = resolve(&dir.join("cdm-4k-q8t8.toml"));
    assert_eq!(
        (w.pattern, w.block_size, w.queue_depth, w.jobs),
        (Pattern::Randwrite, 4096, 8, 8)
    );
}

#[test]
fn every_shipped_scenario_runs_in_the_simulator_and_flags_override_it() {
    let out = tempfile::tempdir().unwrap();
    for p in shipped() {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let dir = out.path().join(&name);
        slccache()
            .args(["simulate", "960evo-250g", "--seed", "1", "--json", "--out"])
            .arg(&dir)
            .arg("--scenario")
            .arg(&p)
            .assert()
            .success();
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        let w = &summary["config"]["workload"];
        let expect = resolve(&p);
        assert_eq!(w["block_size"], expect.block_size, "{name}");
        assert_eq!(w["queue_depth"], expect.queue_depth, "{name}");
    }
    // A flag wins over the file.
    let dir = out.path().join("override");
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/iometer-128k-seq-qd32.toml");
    slccache()
        .args([
            "simulate",
            "960evo-250g",
            "--qd",
            "4",
            "--max-bytes",
            "1GB",
            "--out",
        ])
        .arg(&dir)
        .arg("--scenario")
        .arg(&p)
        .assert()
        .success();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["config"]["workload"]["queue_depth"], 4);
    assert_eq!(summary["config"]["workload"]["block_size"], 128 << 10);
}

fn error_for(text: &str, file: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(file);
    std::fs::write(&p, text).unwrap();
    let out = slccache()
        .args(["simulate", "960evo-250g", "--scenario"])
        .arg(&p)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let (code, err) = error_for(
        "pattern = \"seqwrite\"\nqd = 8\nqueue_depth = 8\n",
        "typo.toml",
    );
    assert_eq!(code, 2, "{err}");
    for w in ["typo.toml", "line 3", "queue_depth"] {
        assert!(err.contains(w), "want '{w}' in: {err}");
    }
}

#[test]
fn wrong_type_names_file_line_and_key() {
    for (text, line, key) in [
        ("qd = 8\njobs = \"many\"\n", "line 2", "'jobs'"),
        ("bs = [4096]\n", "line 1", "'bs'"),
        ("# c\n\npattern = \"zigzag\"\n", "line 3", "'pattern'"),
        ("interval = true\n", "line 1", "'interval'"),
        ("qd = 4\nbs = \"huge\"\n", "line 2", "'bs'"),
        ("duration = \"forever\"\n", "line 1", "'duration'"),
    ] {
        let (code, err) = error_for(text, "types.toml");
        assert_eq!(code, 2, "{text}: {err}");
        for w in ["types.toml", line, key] {
            assert!(err.contains(w), "{text}: want '{w}' in: {err}");
        }
    }
}

#[test]
fn missing_scenario_file_is_a_usage_error() {
    slccache()
        .args([
            "simulate",
            "960evo-250g",
            "--scenario",
            "/nonexistent/nothere.toml",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/nothere.toml"));
}
