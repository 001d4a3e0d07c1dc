//! A run whose `summary.json` and data files (`timeline.csv`, the sweep's and the experiments'
//! CSVs) are complete is recorded even when a chart after them fails: each command writes into
//! a small tmpfs with room for its data files and not for its charts, and records into a store
//! outside it. The run must be in the store, and the exit code 1 with an error naming the chart
//! that could not be written.

use crate::common::fault_util;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use fault_util::{may_run, scratch, Tmpfs};

const PAGE: u64 = 4096;

fn slccache(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
    c.env("SLCCACHE_DB", db).stdin(Stdio::null());
    c
}

fn run(db: &Path, args: &[&str], out: &Path) -> Output {
    slccache(db)
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// The bytes tmpfs takes for a folder's data files (`summary.json` and every CSV, below it
/// too), each rounded up to whole pages.
fn data_pages(dir: &Path) -> u64 {
    let mut sum = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sum += data_pages(&p);
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name == "summary.json" || name.ends_with(".csv") {
            sum += std::fs::metadata(&p).unwrap().len().div_ceil(PAGE) * PAGE;
        }
    }
    sum
}

/// The runs in the store `db`, as `runs --json` lists them.
fn runs_in(db: &Path) -> Vec<serde_json::Value> {
    let o = slccache(db).args(["runs", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

pub fn a_run_is_recorded_when_a_chart_after_its_data_fails() {
    let test = "a_run_is_recorded_when_a_chart_after_its_data_fails";
    if !may_run(test) {
        return;
    }
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log"
    );
    let cases: &[(&str, &[&str])] = &[
        ("simulate", &["simulate", "960evo-250g", "--seed", "7"]),
        ("analyze", &["analyze", trace]),
        (
            "probe",
            &[
                "probe",
                "emu:960evo-250g",
                "--max-bytes",
                "256MB",
                "--interval",
                "10ms",
            ],
        ),
        (
            "sweep",
            &[
                "sweep",
                "emu:960evo-500g",
                "--simulate",
                "--qd",
                "1,4",
                "--seed",
                "7",
            ],
        ),
        (
            "recovery",
            &[
                "recovery",
                "emu:970evo-500g",
                "--simulate",
                "--idle",
                "10s,60s",
                "--seed",
                "7",
            ],
        ),
        (
            "fill-sweep",
            &[
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
                "--seed",
                "7",
            ],
        ),
    ];
    let w = scratch("record-partial-");
    let mut wrong = Vec::new();
    for (kind, args) in cases {
        // The same run on a disk with room, to size the tmpfs: its data files and two pages
        // more (a longer path in summary.json), far less than a chart.
        let reference = w.path().join(format!("ref-{kind}"));
        let r = run(&w.path().join("ref.db"), args, &reference);
        assert!(
            r.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let size = data_pages(&reference) + 2 * PAGE;
        let fs = Tmpfs::new(&size.to_string());
        let db = w.path().join(format!("{kind}.db"));
        let out = fs.path().join("run");
        let o = run(&db, args, &out);
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        let chart_failed = e.lines().any(|l| {
            l.starts_with("slccache: error:")
                && l.contains(&out.display().to_string())
                && (l.contains(".png failed") || l.contains(".svg failed"))
        });
        // The result is said as the run with room says it: a run whose chart failed printed
        // only the error and "recorded as".
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        let result = |text: &str| {
            text.lines()
                .find_map(|l| l.split_once("cache ").map(|(_, r)| r.to_string()))
        };
        if matches!(*kind, "simulate" | "analyze") {
            let want = result(&String::from_utf8_lossy(&r.stdout)).unwrap_or_default();
            if want.is_empty() || !said.contains(&want) {
                wrong.push(format!(
                    "{kind}: no result line ({want:?} said with room):\n{said}"
                ));
            }
        }
        let runs = runs_in(&db);
        let recorded = runs.len() == 1 && runs[0]["kind"] == *kind;
        if o.status.code() != Some(1) || !chart_failed || !recorded {
            wrong.push(format!(
                "{kind} (tmpfs of {size} bytes): exit {:?}, {} run(s) recorded {:?}\n{e}",
                o.status.code(),
                runs.len(),
                runs.iter().map(|r| r["kind"].clone()).collect::<Vec<_>>()
            ));
        }
        // The run's data in the store is the folder's.
        if recorded {
            let id = runs[0]["id"].to_string();
            let o = slccache(&db).args(["runs", "show", &id]).output().unwrap();
            let shown = String::from_utf8_lossy(&o.stdout);
            let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
            assert!(shown.contains(summary.trim_end()), "{kind}: {shown}");
        }
        drop(fs);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n---\n"));
}

/// A probe whose output folder cannot take even its timeline (a tmpfs of one page) stops, and
/// its summary and timeline, as the run kept them, are recorded from beside the spool: the
/// run is in the store with its own folder as its source, exit 1, and nothing is left behind
/// the spool. With the store down as well, the run waits in the spool.
pub fn a_probe_into_a_full_disk_is_kept_and_recorded() {
    let test = "a_probe_into_a_full_disk_is_kept_and_recorded";
    if !may_run(test) {
        return;
    }
    let w = scratch("record-full-");
    let spool = w.path().join("spool");
    let fs = Tmpfs::new("4k");
    let probe = |db: &Path, out: &Path| {
        slccache(db)
            .env("SLCCACHE_SPOOL", &spool)
            .args([
                "probe",
                "emu:960evo-250g,cache=200MB",
                "--max-bytes",
                "400MB",
                "--interval",
                "10ms",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap()
    };
    let db = w.path().join("s.db");
    let out = fs.path().join("run");
    let o = probe(&db, &out);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("are recorded from a copy beside the spool")
            && err.contains("`slccache runs export ID --out DIR`")
            && err.contains("recorded as run 1"),
        "{err}"
    );
    let runs = runs_in(&db);
    assert_eq!(runs.len(), 1, "{err}");
    assert_eq!(runs[0]["source_dir"], out.display().to_string());
    // It stopped at the first row it could not write: what it measured by then is there.
    assert!(
        runs[0]["cache_bytes"].as_f64().is_some()
            || runs[0]["cache_lower_bound_bytes"].as_f64().is_some(),
        "{:?}",
        runs[0]
    );
    // The output disk failed, not the drive: the stored run said "write error" with no error.
    let shown = slccache(&db)
        .args(["runs", "show", "1", "--json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(
        shown["summary"]["stop"]["reason"], "output_error",
        "{}",
        shown["summary"]["stop"]
    );
    assert!(
        shown["summary"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("timeline could not be written")),
        "{}",
        shown["summary"]["error"]
    );
    let left: Vec<_> = std::fs::read_dir(&spool).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // The store is not a database now: the kept run waits in the spool instead.
    let bad = w.path().join("bad.db");
    std::fs::write(&bad, "not a database\n").unwrap();
    let fs2 = Tmpfs::new("4k");
    let out2 = fs2.path().join("run");
    let o = probe(&bad, &out2);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    let waiting: Vec<_> = std::fs::read_dir(&spool)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(waiting.len(), 1, "{waiting:?}\n{err}");
    assert!(!waiting[0].starts_with('.'), "{waiting:?}");
}

/// A `simulate` whose output folder could not take its `summary.json` (a tmpfs of one page)
/// printed its result and was lost: not recorded, nothing in the spool, where a probe in the
/// same place is kept. It is kept and recorded as a probe is, with its own folder as its
/// source, and exits 1; with a timeline.csv the folder cannot take either, the same.
pub fn a_simulate_into_a_full_disk_is_kept_and_recorded() {
    let test = "a_simulate_into_a_full_disk_is_kept_and_recorded";
    if !may_run(test) {
        return;
    }
    let w = scratch("record-full-sim-");
    let spool = w.path().join("spool");
    for (k, args) in [
        &[
            "simulate",
            "960evo-500g",
            "--pattern",
            "seqwrite",
            "--seed",
            "5",
        ][..],
        &[
            "simulate",
            "960evo-500g",
            "--interval",
            "10ms",
            "--seed",
            "5",
        ][..],
    ]
    .into_iter()
    .enumerate()
    {
        let fs = Tmpfs::new("4k");
        let db = w.path().join(format!("s{k}.db"));
        let out = fs.path().join("run");
        let o = slccache(&db)
            .env("SLCCACHE_SPOOL", &spool)
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("are recorded from a copy beside the spool")
                && err.contains("recorded as run 1"),
            "{args:?}: {err}"
        );
        let runs = runs_in(&db);
        assert_eq!(runs.len(), 1, "{args:?}: {err}");
        assert_eq!(runs[0]["source_dir"], out.display().to_string());
        assert!(runs[0]["cache_bytes"].as_f64().is_some(), "{:?}", runs[0]);
        let left: Vec<_> = std::fs::read_dir(&spool).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
