//! The flags as a user meets them across the subcommands: `-q` taken by every one with one
//! meaning; the results-store flags (`--db`, `--no-record`, `--require-record`, `--host`,
//! `--tag`) only where a command records a run or reads the store; `--destroy-data` taken
//! alike, with one note, by every target that is not a block device; `--hipri`'s errors
//! naming `--hipri`; the bursts of `recovery` and `fill-sweep` offering only patterns that
//! write; and every `--help` read at 80 and 100 columns.

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

/// `--destroy-data` was accepted silently for a regular file and refused for an emulated
/// drive. Every target that is not a block device takes it alike, with one line saying it has
/// no effect there (none with `-q`), and a file is written over only with `--overwrite`.
pub fn destroy_data_is_taken_alike_on_every_target_but_a_block_device() {
    let d = tmp();
    let cases: &[(&[&str], &str)] = &[
        (
            &["probe", "new.bin", "--size", "1MiB", "--max-bytes", "1MiB"],
            "new.bin",
        ),
        (
            &["probe", "old.bin", "--overwrite", "--max-bytes", "1MiB"],
            "old.bin",
        ),
        (
            &["probe", "emu:960evo-250g", "--max-bytes", "256MB"],
            "emu:960evo-250g",
        ),
        (
            &[
                "sweep",
                "old.bin",
                "--overwrite",
                "--qd",
                "1",
                "--jobs",
                "1",
                "--max-bytes-per-point",
                "1MiB",
            ],
            "old.bin",
        ),
        (
            &[
                "sweep",
                "emu:960evo-500g",
                "--simulate",
                "--qd",
                "1",
                "--jobs",
                "1",
            ],
            "emu:960evo-500g",
        ),
        (
            &[
                "recovery",
                "old.bin",
                "--overwrite",
                "--idle",
                "1s",
                "--max-bytes",
                "1MiB",
            ],
            "old.bin",
        ),
        (
            &["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"],
            "emu:970evo-500g",
        ),
        (
            &[
                "fill-sweep",
                "660p-1tb",
                "--simulate",
                "--levels",
                "0",
                "--max-bytes",
                "200GB",
            ],
            "660p-1tb",
        ),
    ];
    let fresh = || {
        std::fs::write(d.path().join("old.bin"), vec![7u8; 1 << 20]).unwrap();
        let _ = std::fs::remove_file(d.path().join("new.bin"));
    };
    for (i, (args, target)) in cases.iter().enumerate() {
        fresh();
        let out = format!("o{i}");
        let o = bin(d.path())
            .args(*args)
            .args(["--destroy-data", "--no-record", "--out", &out])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        let notes: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("--destroy-data"))
            .collect();
        assert!(
            notes.len() == 1
                && notes[0].starts_with(&format!(
                    "slccache: note: --destroy-data has no effect on {target}, "
                ))
                && notes[0].ends_with("it agrees to destroy a block device's data only"),
            "{args:?}: {err}"
        );
        // -q: not a word of it.
        fresh();
        let o = bin(d.path())
            .args(*args)
            .args(["--destroy-data", "--no-record", "-q", "--out"])
            .arg(format!("q{i}"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?} -q: {}", text(&o.stderr));
        assert!(
            !text(&o.stderr).contains("--destroy-data"),
            "{args:?} -q: {}",
            text(&o.stderr)
        );
    }
    // It allows no file to be written over: that is --overwrite's.
    fresh();
    let o = run(
        d.path(),
        &[
            "probe",
            "old.bin",
            "--destroy-data",
            "--max-bytes",
            "1MiB",
            "--no-record",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("give --overwrite"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read(d.path().join("old.bin")).unwrap(),
        vec![7u8; 1 << 20]
    );
    for cmd in ["probe", "sweep", "recovery", "fill-sweep"] {
        let h = help(d.path(), &[cmd.to_string()], 1000);
        let line = h
            .lines()
            .skip_while(|l| l.trim() != "--destroy-data")
            .nth(1)
            .unwrap_or_default();
        assert!(
            line.contains("has no effect") && line.contains("note"),
            "{cmd}: {line}"
        );
    }
}

/// `--hipri`'s errors spoke of `--engine io-uring-poll`, which the user did not type; and a
/// polled engine's errors name the engine typed: `--engine io-uring-cmd-poll` was named
/// `--engine io-uring-cmd` by `probe` and `--engine io-uring-poll` by `sweep`.
pub fn hipri_errors_name_hipri() {
    let d = tmp();
    for (cmd, args, typed) in [
        (
            "probe",
            &["emu:960evo-250g", "--hipri", "--max-bytes", "1GB"][..],
            "--hipri",
        ),
        (
            "probe",
            &["scratch.bin", "--size", "1MiB", "--hipri"],
            "--hipri",
        ),
        (
            "probe",
            &["scratch.bin", "--size", "1MiB", "--engine", "io-uring-poll"],
            "--engine io-uring-poll",
        ),
        (
            "probe",
            &[
                "scratch.bin",
                "--size",
                "1MiB",
                "--engine",
                "io-uring-cmd-poll",
            ],
            "--engine io-uring-cmd-poll",
        ),
        (
            "probe",
            &[
                "scratch.bin",
                "--size",
                "1MiB",
                "--engine",
                "io-uring-cmd",
                "--hipri",
            ],
            "--hipri",
        ),
        (
            "sweep",
            &[
                "scratch.bin",
                "--size",
                "1MiB",
                "--engine",
                "io-uring-cmd-poll",
            ],
            "--engine io-uring-cmd-poll",
        ),
    ] {
        let o = bin(d.path())
            .arg(cmd)
            .args(args)
            .args(["--no-record", "--out", "o"])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd} {args:?}: {err}");
        assert!(err.contains(typed), "{cmd} {args:?}: {err}");
        if typed == "--hipri" {
            assert!(!err.contains("io-uring-poll"), "{cmd} {args:?}: {err}");
        } else {
            // The engine named is the one typed, not a prefix of it.
            let after = err.split(typed).nth(1).unwrap_or_default();
            assert!(!after.starts_with('-'), "{cmd} {args:?}: {err}");
            let other = typed.replace("-cmd-poll", "-poll");
            assert!(
                other == typed || !err.contains(&other),
                "{cmd} {args:?}: {err}"
            );
        }
        assert!(!d.path().join("scratch.bin").exists());
    }
}

/// `recovery` and `fill-sweep` offered randread and seqread for bursts that write. They offer
/// only the patterns that write, and refuse reads alone however they are asked for.
pub fn burst_experiments_refuse_patterns_that_only_read() {
    let d = tmp();
    std::fs::write(
        d.path().join("reads.toml"),
        "pattern = \"randread\"\nbs = \"4k\"\n",
    )
    .unwrap();
    for (cmd, rest) in [
        (
            "recovery",
            &["emu:970evo-500g", "--simulate", "--idle", "10s"][..],
        ),
        ("fill-sweep", &["660p-1tb", "--simulate", "--levels", "0"]),
    ] {
        let h = help(d.path(), &[cmd.to_string()], 1000);
        for p in ["randwrite", "seqwrite", "randrw", "rw"] {
            assert!(
                h.contains(&format!("- {p}:")),
                "{cmd} does not offer {p}:\n{h}"
            );
        }
        for p in ["randread", "seqread"] {
            assert!(!h.contains(&format!("- {p}:")), "{cmd} offers {p}:\n{h}");
        }
        for (extra, named) in [
            (&["--pattern", "randread"][..], "randread"),
            (&["--pattern", "seqread"], "seqread"),
            (
                &["--pattern", "randrw", "--rwmix-read", "100"],
                "--rwmix-read 100",
            ),
            (&["--scenario", "reads.toml"], "randread"),
        ] {
            let o = bin(d.path())
                .arg(cmd)
                .args(rest)
                .args(extra)
                .args(["--no-record", "-q", "--out", "o"])
                .output()
                .unwrap();
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {extra:?}: {err}");
            assert!(err.contains(named), "{cmd} {extra:?}: {err}");
            assert!(
                !d.path().join("o").exists(),
                "{cmd} {extra:?} wrote outputs"
            );
        }
    }
}

/// The examples of a help text: the lines under `Examples:` (a `\` continues one on the next
/// line).
fn examples(help: &str) -> Vec<&str> {
    help.lines()
        .skip_while(|l| *l != "Examples:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

/// The analyze example wrapped inside its comment, recovery's help broke its sentences, and
/// history's --out named a target it does not have. Every help, at 80 and at 100 columns,
/// shows each example on a line of its own as written, and its paragraphs break only where a
/// sentence ends (so that the terminal's width wraps them, never a line break in the text).
pub fn every_help_reads_whole_at_80_and_100_columns() {
    let d = tmp();
    let mut checked = 0;
    for p in docs::command_paths() {
        let wide = help(d.path(), &p, 1000);
        let name = format!("slccache {} --help", p.join(" "));
        for l in examples(&wide) {
            assert!(
                l.chars().count() <= 79,
                "{name}: an example longer than 79 columns wraps at 80:\n{l}"
            );
            checked += 1;
        }
        for columns in [80, 100] {
            let h = help(d.path(), &p, columns);
            assert_eq!(
                examples(&h),
                examples(&wide),
                "{name} at {columns} columns wraps an example:\n{h}"
            );
            for l in h.lines() {
                assert!(
                    l.chars().count() <= columns as usize,
                    "{name} at {columns} columns: a line too long:\n{l}"
                );
            }
        }
        // After the examples, each line of a paragraph ends a sentence or introduces a list.
        let after: Vec<&str> = wide
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .skip_while(|l| l.starts_with("  "))
            .collect();
        for l in after
            .iter()
            .filter(|l| !l.is_empty() && !l.starts_with(' '))
        {
            assert!(
                l.ends_with('.') || l.ends_with(':'),
                "{name}: a line break inside a sentence:\n{l}"
            );
        }
    }
    assert!(checked > 50, "{checked} examples");
    // history writes no target's folder: its default is named after the drive asked for.
    let h = help(d.path(), &["history".to_string()], 1000);
    let out = h
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--out"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        out.contains("output/history-<TEXT>-<timestamp>/") && !out.contains("target"),
        "{out}"
    );
}

/// `--json` was missing on `sweep`, `recovery`, `fill-sweep`, `history` and `presets`. Each now
/// prints one JSON object on stdout and its result text on stderr; a command that writes a
/// folder prints that folder's `summary.json` with the `run_id` it was recorded under.
pub fn json_is_taken_by_every_command_with_a_result() {
    let dir = tmp();
    let d = dir.path();
    let one_object = |args: &[&str]| -> serde_json::Value {
        let o = run(d, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert_eq!(out.lines().count(), 1, "{args:?}: not one line: {out}");
        assert!(
            !text(&o.stderr).is_empty(),
            "{args:?}: no result text on stderr"
        );
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    };
    let folders = [
        (
            vec![
                "sweep",
                "emu:960evo-500g",
                "--simulate",
                "--qd",
                "1,4",
                "--jobs",
                "1",
            ],
            "sweep",
        ),
        (
            vec!["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"],
            "recovery",
        ),
        (
            vec![
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
            ],
            "fill_sweep",
        ),
    ];
    for (i, (args, key)) in folders.iter().enumerate() {
        let out = format!("out-{i}");
        let mut a = args.clone();
        a.extend(["--json", "--out", &out]);
        let mut v = one_object(&a);
        assert_eq!(v["run_id"], serde_json::json!(i + 1), "{args:?}");
        assert!(v.get(*key).is_some(), "{args:?}: no {key}");
        v.as_object_mut().unwrap().remove("run_id");
        let file: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(d.join(&out).join("summary.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(v, file, "{args:?}: the JSON is not summary.json");
    }
    recorded_run(d);
    let h = one_object(&["history", "960 EVO", "--json", "--out", "hist"]);
    assert_eq!(h["drive_kind"], "simulated", "{h}");
    assert_eq!(h["runs"].as_array().map(Vec::len), Some(1), "{h}");
    assert!(h["runs"][0]["cache_bytes"].as_u64().is_some(), "{h}");
    let o = run(d, &["presets", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = p["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"960evo-250g"), "{names:?}");
    assert_eq!(
        p["presets"][0]["model"]["name"], p["presets"][0]["name"],
        "{}",
        p["presets"][0]
    );
}

/// Regression: `slccache -q probe ...`, the way many tools take a quiet flag, was a bare clap
/// error ("unexpected argument '-q' found"). `-q`/`--quiet` before the command now means
/// what it means after it.
pub fn quiet_before_the_command_means_quiet() {
    let d = tmp();
    let run = |args: &[&str]| -> Output {
        bin(d.path())
            .args(args)
            .args(["--max-bytes", "1GB", "--no-record", "--out"])
            .arg(d.path().join(args.join("-").replace(':', "")))
            .output()
            .unwrap()
    };
    // An emulated probe with --destroy-data: a note on stderr, which -q keeps off.
    let probe = ["probe", "emu:960evo-250g", "--destroy-data"];
    let loud = run(&probe);
    assert!(loud.status.success());
    assert!(!loud.stderr.is_empty(), "the note, without -q");
    for flag in ["-q", "--quiet"] {
        let o = run(&[&[flag][..], &probe[..]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{flag}: {err}");
        assert!(err.is_empty(), "{flag}: {err}");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("outputs:"),
            "{flag}: the result is printed all the same"
        );
    }
}

/// Regression: `--prefill 1e-9` (a share that writes less than one block) was taken, and the
/// run said it prefilled while writing nothing. A share that writes no whole block is a
/// usage error (exit 2) naming the smallest share that does, before anything is written;
/// shares outside (0, 100] stay refused.
pub fn a_prefill_too_small_to_write_a_block_is_refused() {
    let d = tmp();
    for (cmd, target) in [("simulate", "960evo-250g"), ("probe", "emu:960evo-250g")] {
        for pct in ["1e-9", "0", "101", "nan"] {
            let out = d.path().join(format!("{cmd}-{pct}"));
            let o = bin(d.path())
                .args([cmd, target, "--prefill", pct, "--max-bytes", "1GB"])
                .args(["--no-record", "--out"])
                .arg(&out)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} --prefill {pct}: {err}");
            assert!(err.contains("--prefill"), "{cmd} --prefill {pct}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
            assert!(!out.exists(), "{cmd} --prefill {pct}: nothing written");
        }
    }
}

/// `-q` lines had three shapes: probe's gave what it wrote, why it stopped, the cache and
/// its rate, the rate after it and the folder; simulate's gave the estimate alone; analyze's
/// gave no folder. Each is now one line in probe's clauses, ending with the folder.
pub fn quiet_lines_have_one_shape() {
    let d = tmp();
    let w = d.path();
    let one_line = |args: &[&str]| -> String {
        let o = run(w, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
        out.trim_end().to_string()
    };
    let sim = one_line(&[
        "--no-record",
        "-q",
        "simulate",
        "960evo-250g",
        "--seed",
        "1",
        "--out",
        "sim",
    ]);
    let probe = one_line(&[
        "--no-record",
        "-q",
        "probe",
        "emu:960evo-250g,cache=1GB",
        "--pattern",
        "seqwrite",
        "--max-bytes",
        "3GB",
        "--interval",
        "200ms",
        "--out",
        "probe",
    ]);
    let analyze = one_line(&[
        "--no-record",
        "-q",
        "analyze",
        "sim/timeline.csv",
        "--out",
        "again",
    ]);
    for (line, dir) in [(&sim, "sim"), (&probe, "probe"), (&analyze, "again")] {
        assert!(line.contains(": wrote "), "{line}");
        assert!(line.contains(", stopped: "), "{line}");
        assert!(line.contains("; cache ~"), "{line}");
        assert!(line.contains(" in the cache; "), "{line}");
        assert!(
            line.contains(" written in the samples after the last cliff"),
            "{line}"
        );
        assert!(line.ends_with(&format!("; outputs: {dir}")), "{line}");
    }
    assert!(sim.contains(" vs truth"), "{sim}");
    assert!(analyze.starts_with("sim/timeline.csv: wrote "), "{analyze}");
    // The run analysed again gives the figures and clauses its run gave.
    let clauses = |l: &str| -> String {
        let l = l.split_once("; ").unwrap().1;
        l.rsplit_once("; outputs: ").unwrap().0.to_string()
    };
    let sim_clauses = clauses(&sim);
    let sim_clauses = sim_clauses.rsplit_once("; cache ").unwrap().0;
    assert_eq!(clauses(&analyze), sim_clauses, "{analyze}\n{sim}");
}

/// `analyze` of the folder of a run that stopped early on a drop inside the first sample
/// left out how far the run went ("measured to ... (stopped early)"), which the run's own
/// line gives; and `analyze --json` printed no text where `simulate --json` prints its
/// line on standard error. Each now gives the run's line.
pub fn analyze_gives_the_runs_line_and_with_json_on_stderr() {
    let d = tmp();
    let w = d.path();
    let o = run(
        w,
        &[
            "--no-record",
            "-q",
            "simulate",
            "960evo-250g,cache=1GB",
            "--pattern",
            "seqwrite",
            "--interval",
            "1s",
            "--seed",
            "1",
            "--out",
            "tiny",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let sim = text(&o.stdout);
    assert!(sim.contains("no confirmed cliff"), "{sim}");
    assert!(sim.contains(" (stopped early)"), "{sim}");
    let o = run(w, &["--no-record", "analyze", "tiny/timeline.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let line = text(&o.stdout).lines().next().unwrap().to_string();
    assert!(line.starts_with("tiny/timeline.csv: wrote "), "{line}");
    assert!(
        line.contains(", stopped: the hold time after a drop"),
        "{line}"
    );
    assert!(line.contains(" (stopped early)"), "{line}");
    // --json: the analysis alone on standard output, the same line on standard error.
    let o = run(
        w,
        &["--no-record", "analyze", "tiny/timeline.csv", "--json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap();
    let err = text(&o.stderr);
    assert_eq!(err.lines().next(), Some(line.as_str()), "{err}");
    let o = run(
        w,
        &[
            "--no-record",
            "simulate",
            "960evo-250g",
            "--json",
            "--out",
            "s",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!o.stderr.is_empty());
}

/// A usage error from the parser was several lines (the error, a tip, "Usage: ...", "For
/// more information ..."); the tip for `runs show -1` (`use '-- -1'`) led to another
/// refusal, and `--max-bytes -5GB` was read as flags ("unexpected argument '-5'"). Each is
/// now one line and at most a short usage hint; a negative run id or size is refused as
/// what it is, with exit code 2.
pub fn usage_errors_are_one_line_and_negative_values_are_told() {
    let d = tmp();
    let lines = |args: &[&str]| -> Vec<String> {
        let o = run(d.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.starts_with("slccache: error: "), "{args:?}: {err}");
        assert!(
            !err.contains("tip:") && !err.contains("'-- "),
            "{args:?}: {err}"
        );
        err.lines().map(str::to_string).collect()
    };
    for args in [
        &["probe", "--bogus", "emu:960evo-250g"][..],
        &["simulate"],
        &["runs", "show"],
        &["bogus"],
        // A flag that takes a value, given none: clap's error names no usage of its own.
        &["runs", "--html"],
        &["probe", "emu:960evo-250g", "--max-bytes"],
    ] {
        let l = lines(args);
        assert_eq!(l.len(), 2, "{args:?}: {l:?}");
        assert!(l[1].starts_with("  usage: slccache "), "{args:?}: {l:?}");
        assert!(l[1].ends_with(" --help`)"), "{args:?}: {l:?}");
    }
    let l = lines(&["runs", "--html"]);
    assert!(l[1].ends_with("(more: `slccache runs --help`)"), "{l:?}");
    // The hint names the help of the command given, with no flag in it.
    let l = lines(&["probe", "emu:960evo-250g", "--max-byte", "5GB"]);
    assert!(l[0].contains("'--max-bytes'"), "{l:?}");
    assert!(l[1].ends_with("(more: `slccache probe --help`)"), "{l:?}");
    // A negative run id: the refusal `-- -1` gave, whichever way it is given.
    for args in [&["runs", "show", "-1"][..], &["runs", "show", "--", "-1"]] {
        let l = lines(args);
        assert_eq!(l.len(), 1, "{args:?}: {l:?}");
        assert!(l[0].contains("'-1' is no run id"), "{args:?}: {l:?}");
        assert!(l[0].contains("see `slccache runs`"), "{args:?}: {l:?}");
    }
    let l = lines(&["probe", "emu:960evo-250g", "--max-bytes", "-5GB"]);
    assert_eq!(
        l,
        ["slccache: error: --max-bytes: invalid size '-5GB': a size cannot be negative"]
    );
    let l = lines(&["simulate", "960evo-250g", "--interval", "-1s"]);
    assert_eq!(l.len(), 1, "{l:?}");
    assert!(l[0].contains("a duration cannot be negative"), "{l:?}");
    // A value too small is echoed as it was typed ("0s"; it said "0ns").
    let l = lines(&["simulate", "960evo-250g", "--interval", "0s"]);
    assert_eq!(
        l,
        ["slccache: error: --interval 0s is too short; the shortest is 10ms"]
    );
}

/// A usage error found by the parser ("unexpected argument", "invalid value") began
/// "error: ", where every other error begins "slccache: error: ". Each is now named alike,
/// with the same exit code 2.
pub fn usage_errors_are_named_as_every_error() {
    let d = tmp();
    for args in [
        &["runs", "show", "--", "-1"][..],
        &["runs", "show", "-1"],
        &["probe", "--bogus", "emu:960evo-250g"],
        &["simulate"],
    ] {
        let o = run(d.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.starts_with("slccache: error: "), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// `history --help` gives its default folder as the name it takes: the text given, serial
/// or part of a drive's name. It said `history-<SERIAL>-...`, and a drive without a serial,
/// picked by its name, got `output/history-base-...`.
pub fn history_help_names_its_default_folder_by_the_text_given() {
    let d = tmp();
    let h = help(d.path(), &["history".to_string()], 100);
    let flat = h.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("history-<TEXT>-<timestamp>/, TEXT the serial or name given"),
        "{h}"
    );
    // And it is so: a folder named by the text, not by a serial.
    let db = d.path().join("results.db");
    let o = run(
        d.path(),
        &[
            "simulate",
            "960evo-250g",
            "--max-bytes",
            "5GB",
            "--seed",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(db.is_file());
    let o = run(d.path(), &["history", "960 EVO"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let made: Vec<String> = std::fs::read_dir(d.path().join("output"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("history-"))
        .collect();
    assert!(
        made.len() == 1 && made[0].starts_with("history-960"),
        "{made:?}"
    );
}
