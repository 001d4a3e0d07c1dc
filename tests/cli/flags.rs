//! The flags as a user meets them across the subcommands: `-q` taken by every one with one
//! meaning; the results-store flags (`--db`, `--no-record`, `--require-record`, `--host`,
//! `--tag`) only where a command records a run or reads the store.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::docs;

/// The binary with a store and spool of its own in `dir`, run from `dir`, with help at the
/// width `COLUMNS` says when a test sets it.
fn bin(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
    c.env("SLCCACHE_DB", dir.join("results.db"))
        .env("SLCCACHE_SPOOL", dir.join("spool"))
        .env_remove("COLUMNS")
        .env_remove("SLCCACHE_REQUIRE_RECORD")
        .current_dir(dir);
    c
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("flags-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `args` in `dir`, as a user would.
fn run(dir: &Path, args: &[&str]) -> Output {
    bin(dir).args(args).output().unwrap()
}

/// `slccache PATH --help` at `columns`.
fn help(dir: &Path, path: &[String], columns: u32) -> String {
    let o = bin(dir)
        .args(path)
        .arg("--help")
        .env("COLUMNS", columns.to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "{path:?} --help: {}", text(&o.stderr));
    text(&o.stdout)
}

/// Whether `help` lists the option `flag` (an indented line starting with it).
fn lists(help: &str, flag: &str) -> bool {
    help.lines().any(|l| {
        let t = l.trim_start();
        l.starts_with(' ') && (t == flag || t.starts_with(&format!("{flag} ")))
    })
}

/// A run recorded into `dir`'s store, in `dir/sim`.
fn recorded_run(dir: &Path) {
    let o = run(
        dir,
        &[
            "simulate",
            "960evo-250g",
            "--max-bytes",
            "20GB",
            "--seed",
            "1",
            "-q",
            "--out",
            "sim",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

/// `-q` was refused by `info`, `presets`, `runs` and others although the README says it
/// works on every subcommand. Every command path takes it, with the one help text, and the
/// commands that never took it print their results and nothing on stderr.
pub fn every_subcommand_takes_quiet_with_one_meaning() {
    let d = tmp();
    let paths = docs::command_paths();
    assert!(paths.len() > 15, "{paths:?}");
    let mut meanings = std::collections::BTreeSet::new();
    for p in paths.iter().filter(|p| !p.is_empty()) {
        // Parsed before --help: a subcommand without -q refuses it (exit 2).
        let o = bin(d.path())
            .args(p)
            .args(["-q", "--help"])
            .env("COLUMNS", "1000")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{p:?} -q: {}", text(&o.stderr));
        let h = text(&o.stdout);
        let mut lines = h.lines();
        let at = lines
            .find(|l| l.trim_start().starts_with("-q, --quiet"))
            .unwrap_or_else(|| panic!("{p:?}: no -q, --quiet in\n{h}"));
        let rest = at.trim_start().trim_start_matches("-q, --quiet").trim();
        let meaning = if rest.is_empty() {
            lines.next().unwrap_or("").trim()
        } else {
            rest
        };
        meanings.insert(meaning.to_string());
    }
    assert_eq!(
        meanings.len(),
        1,
        "-q means different things: {meanings:#?}"
    );

    // The same meaning in use: results on stdout, nothing on stderr.
    recorded_run(d.path());
    let sim = d.path().join("sim").display().to_string();
    for args in [
        &["info", "emu:p5-1tb", "-q"][..],
        &["presets", "-q"],
        &["completions", "bash", "-q"],
        &["man", "-q"],
        &["runs", "-q"],
        &["runs", "--json", "-q"],
        &["runs", "-q", "show", "1"],
        &["runs", "show", "1", "-q"],
        &["history", "960 EVO", "-q", "--out", "hist"],
        &["db", "migrate", "-q"],
        // Without -q, this import says that the folder's own host is kept.
        &["runs", "import", &sim, "--host", "elsewhere", "-q"],
    ] {
        let o = run(d.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        assert!(!o.stdout.is_empty(), "{args:?}: no result on stdout");
        assert_eq!(text(&o.stderr), "", "{args:?} -q wrote to stderr");
    }
    let o = run(d.path(), &["runs", "import", &sim, "--host", "elsewhere"]);
    assert!(
        text(&o.stderr).contains("names its host"),
        "{}",
        text(&o.stderr)
    );
}

/// `--db` and `--no-record` were offered by commands that never record a run nor read the
/// store. Each command lists the results-store flags it uses, and no other; given before a
/// command that does not take it, a flag is refused, naming it and the command.
pub fn results_store_flags_only_where_they_mean_something() {
    let d = tmp();
    const RECORD: &[&str] = &["--db", "--no-record", "--require-record", "--host", "--tag"];
    for p in docs::command_paths().iter().filter(|p| !p.is_empty()) {
        let expected: &[&str] = match p[0].as_str() {
            "probe" | "analyze" | "simulate" | "sweep" | "recovery" | "fill-sweep" => RECORD,
            "compare" | "db" => &["--db"],
            "runs" | "history" => &["--db", "--host", "--tag"],
            "info" | "presets" | "completions" | "man" => &[],
            other => panic!("a command this test does not know: {other}"),
        };
        let h = help(d.path(), p, 1000);
        for flag in RECORD {
            assert_eq!(
                lists(&h, flag),
                expected.contains(flag),
                "slccache {} --help and {flag}:\n{h}",
                p.join(" ")
            );
        }
    }
    // Before the command: only where the command takes the flag.
    for (args, flag, cmd) in [
        (&["--db", "x.db", "info", "emu:p5-1tb"][..], "--db", "info"),
        (&["--db", "x.db", "presets"], "--db", "presets"),
        (
            &["--no-record", "compare", "a", "b"],
            "--no-record",
            "compare",
        ),
        (&["--require-record", "runs"], "--require-record", "runs"),
        (&["--host", "h", "man"], "--host", "man"),
        (
            &["--tag", "k=v", "completions", "bash"],
            "--tag",
            "completions",
        ),
    ] {
        let o = run(d.path(), args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(flag) && err.contains(&format!("`slccache {cmd}`")),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?} ran");
    }
    // After a command that does not take it: clap's usage error.
    for args in [
        &["info", "emu:p5-1tb", "--db", "x.db"][..],
        &["compare", "a", "b", "--no-record"],
        &["presets", "--tag", "k=v"],
    ] {
        let o = run(d.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
    }
    // Where they stay, they mean what they meant, before or after the command.
    let o = run(
        d.path(),
        &[
            "--no-record",
            "simulate",
            "960evo-250g",
            "--max-bytes",
            "20GB",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        !d.path().join("results.db").exists(),
        "--no-record recorded"
    );
    recorded_run(d.path());
    let db = d.path().join("results.db").display().to_string();
    for (args, shows) in [
        (&["--db", &db, "runs", "show", "1"][..], "960 EVO"),
        (&["runs", "--db", &db, "show", "1"], "960 EVO"),
        (&["runs", "show", "1", "--db", &db], "960 EVO"),
        (
            &["runs", "--db", &db, "--host", "no-such-host"],
            "matches the filters",
        ),
        (
            &["--host", "no-such-host", "runs", "--db", &db],
            "matches the filters",
        ),
    ] {
        // The store the flag names, not the default one.
        let o = bin(d.path())
            .env("SLCCACHE_DB", d.path().join("elsewhere.db"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stdout).contains(shows),
            "{args:?}: {}",
            text(&o.stdout)
        );
    }
}
