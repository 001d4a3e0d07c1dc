//! A result that cannot be written to stdout is a failure: every command run with stdout on
//! `/dev/full` exits 1 with one line on stderr naming the cause (and no panic), while a
//! reader that closes the pipe early (`| head -1`) ends the output quietly.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn slccache(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
    c.env("SLCCACHE_DB", db).stdin(Stdio::null());
    c
}

fn to_full(mut c: Command) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    c.stdout(full).stderr(Stdio::piped()).output().unwrap()
}

/// The commands, each with a fresh output folder below `w` where it writes one.
fn cases(w: &Path, run: &Path) -> Vec<(String, Vec<String>)> {
    let run = run.to_str().unwrap().to_string();
    let out = |n: &str| w.join(n).to_str().unwrap().to_string();
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real-traces/biwin_x570_1tb_randrw50_1M_qd32_nocliff_bw.1.log"
    )
    .to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut v: Vec<Vec<String>> = vec![
        s(&["presets"]),
        s(&["--help"]),
        s(&["help"]),
        s(&["--version"]),
        s(&["probe", "--help"]),
        s(&["info", "emu:960evo-250g"]),
        s(&["info", "emu:960evo-250g", "--json"]),
        s(&["runs"]),
        s(&["runs", "--json"]),
        s(&["completions", "bash"]),
        s(&["man"]),
        [s(&["analyze"]), vec![trace.clone()]].concat(),
        [s(&["analyze", "--json"]), vec![trace]].concat(),
    ];
    for (name, json) in [("sim", false), ("simj", true)] {
        let mut a = s(&["simulate", "960evo-250g", "--seed", "3", "--out"]);
        a.push(out(name));
        if json {
            a.push("--json".into());
        }
        v.push(a);
    }
    for (name, json) in [("probe", false), ("probej", true)] {
        let mut a = s(&["probe", "emu:960evo-250g", "--max-bytes", "64MB", "--out"]);
        a.push(out(name));
        if json {
            a.push("--json".into());
        }
        v.push(a);
    }
    for (name, json) in [("cmp", false), ("cmpj", true)] {
        let mut a = s(&["compare"]);
        a.extend([run.clone(), run.clone(), "--out".into(), out(name)]);
        if json {
            a.push("--json".into());
        }
        v.push(a);
    }
    v.into_iter().map(|a| (a.join(" "), a)).collect()
}

pub fn a_full_stdout_fails_every_command() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("results.db");
    // A run to compare (and a store for `runs` to list).
    let run = w.join("run");
    let o = slccache(&db)
        .args(["simulate", "960evo-250g", "--seed", "1", "--quiet", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut wrong = Vec::new();
    for (name, args) in cases(w, &run) {
        let mut c = slccache(&db);
        c.args(&args);
        let o = to_full(c);
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        let want = "slccache: error: cannot write to standard output: No space left on device";
        let lines = e.lines().filter(|l| l.contains("standard output")).count();
        if o.status.code() != Some(1) || !e.contains(want) || lines != 1 || e.contains("panicked") {
            wrong.push(format!("{name}: exit {:?}\n{e}", o.status.code()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n---\n"));
    // The runs that write folders wrote them whole, and were recorded.
    for f in ["sim", "simj", "probe", "probej", "cmp", "cmpj"] {
        assert!(w.join(f).join("summary.json").is_file(), "{f}");
    }
    let o = slccache(&db).args(["runs", "--json"]).output().unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        runs.len(),
        5,
        "the first run and the four simulate and probe runs"
    );
}

pub fn a_closed_pipe_ends_the_output_quietly() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("results.db");
    let out = w.join("sim");
    let cases: Vec<Vec<&str>> = vec![
        vec!["presets"],
        vec!["--help"],
        vec!["info", "emu:960evo-250g"],
        vec!["man"],
        vec![
            "simulate",
            "960evo-250g",
            "--seed",
            "3",
            "--json",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    ];
    for args in cases {
        let mut child = slccache(&db)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the first line.
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !e.contains("panicked") && !e.contains("error") && !e.contains("Broken pipe"),
            "{args:?}: {e}"
        );
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
    }
}
