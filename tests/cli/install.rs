//! `slccache completions SHELL` and `slccache man`: each output must be accepted by the tool
//! that reads it (`bash -n`, `zsh -n`, `fish -n`, `groff -z`). A shell or groff that is not
//! installed is skipped with a message, except under CI=true, where `.ci/run` installs them.

use std::io::Write;
use std::process::{Command, Stdio};

use assert_cmd::prelude::*;

use crate::common::slccache_process as slccache;

fn ci() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
}

/// Whether `tool` can be run; under CI=true its absence is a failure.
fn have(tool: &str, test: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !ok {
        assert!(
            !ci(),
            "{test}: CI=true but {tool} is not installed (.ci/run installs it)"
        );
        crate::common::skip(format!("{tool} is not installed (apt-get install {tool})"));
    }
    ok
}

fn output_of(args: &[&str]) -> Vec<u8> {
    let o = slccache().args(args).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!o.stdout.is_empty());
    o.stdout
}

/// Feeds `script` to `cmd args` on stdin; asserts it exits 0 with no complaint.
fn accepted_by(cmd: &str, args: &[&str], script: &[u8]) {
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{cmd} {args:?} rejected it: {err}");
    assert!(err.trim().is_empty(), "{cmd} {args:?} complained: {err}");
}

/// Writes `script` to a file and runs `cmd args FILE` (zsh and fish read files best).
fn file_accepted_by(cmd: &str, args: &[&str], script: &[u8]) {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(script).unwrap();
    let o = Command::new(cmd).args(args).arg(f.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{cmd} {args:?} rejected it: {err}");
    assert!(err.trim().is_empty(), "{cmd} {args:?} complained: {err}");
}

fn names_every_subcommand(text: &str) {
    for sub in [
        "probe",
        "analyze",
        "simulate",
        "compare",
        "presets",
        "completions",
        "man",
    ] {
        assert!(text.contains(sub), "does not mention {sub}");
    }
}

pub fn bash_completions_parse() {
    let s = output_of(&["completions", "bash"]);
    names_every_subcommand(&String::from_utf8_lossy(&s));
    assert!(String::from_utf8_lossy(&s).contains("--destroy-data"));
    if have("bash", "bash_completions_parse") {
        accepted_by("bash", &["-n"], &s);
    }
}

pub fn zsh_completions_parse() {
    let s = output_of(&["completions", "zsh"]);
    let text = String::from_utf8_lossy(&s);
    assert!(text.starts_with("#compdef slccache"), "{}", &text[..40]);
    names_every_subcommand(&text);
    if have("zsh", "zsh_completions_parse") {
        file_accepted_by("zsh", &["-n"], &s);
    }
}

pub fn fish_completions_parse() {
    let s = output_of(&["completions", "fish"]);
    names_every_subcommand(&String::from_utf8_lossy(&s));
    if have("fish", "fish_completions_parse") {
        file_accepted_by("fish", &["-n"], &s);
    }
}

pub fn an_unknown_shell_is_a_usage_error() {
    let o = slccache().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tcsh") && err.contains("bash"), "{err}");
    assert!(o.stdout.is_empty());
}

pub fn the_man_page_renders() {
    let page = output_of(&["man"]);
    let text = String::from_utf8_lossy(&page);
    assert!(text.contains(".TH slccache 1"), "{}", &text[..200]);
    names_every_subcommand(&text);
    if have("groff", "the_man_page_renders") {
        accepted_by("groff", &["-man", "-Tutf8", "-ww", "-z"], &page);
    }
}

pub fn man_writes_one_page_per_subcommand_and_theirs() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    slccache()
        .args(["man", "--out-dir"])
        .arg(&dir)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "slccache-analyze.1",
            "slccache-compare.1",
            "slccache-completions.1",
            "slccache-db-migrate.1",
            "slccache-db.1",
            "slccache-fill-sweep.1",
            "slccache-history.1",
            "slccache-info.1",
            "slccache-man.1",
            "slccache-presets.1",
            "slccache-probe.1",
            "slccache-recovery.1",
            "slccache-runs-copy.1",
            "slccache-runs-export.1",
            "slccache-runs-import.1",
            "slccache-runs-rm.1",
            "slccache-runs-show.1",
            "slccache-runs.1",
            "slccache-simulate.1",
            "slccache-sweep.1",
            "slccache.1",
        ]
    );
    let probe = std::fs::read_to_string(dir.join("slccache-probe.1")).unwrap();
    assert!(probe.contains(".TH slccache-probe 1"), "{probe}");
    assert!(probe.contains("destroy\\-data"), "lists the flags");
    if have("groff", "man_writes_one_page_per_subcommand") {
        for n in &names {
            accepted_by(
                "groff",
                &["-man", "-Tutf8", "-ww", "-z"],
                &std::fs::read(dir.join(n)).unwrap(),
            );
        }
    }
}

// The man pages' examples were filled, justified and hyphenated into one
// paragraph ("slccache  probe  emu:960evo-500g,cache=4GB --pattern seqwrite  # emu-"), so none
// could be copied. Each example now renders as a line of its own, exactly as written.
pub fn man_page_examples_read_as_written() {
    if !have("groff", "man_page_examples_read_as_written") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    slccache()
        .args(["man", "--out-dir"])
        .arg(&dir)
        .assert()
        .success();
    let mut checked = 0;
    for sub in [
        "probe",
        "analyze",
        "sweep",
        "recovery",
        "fill-sweep",
        "runs",
        "compare",
    ] {
        let page = std::fs::read_to_string(dir.join(format!("slccache-{sub}.1"))).unwrap();
        // The examples as the page holds them (roff's `\-` is a plain `-`).
        let examples: Vec<String> = page
            .lines()
            .filter(|l| l.trim_start().starts_with("slccache "))
            .map(|l| l.trim().replace("\\-", "-").replace("\\*(Aq", "'"))
            .collect();
        assert!(!examples.is_empty(), "{sub}: the page has examples");
        let mut child = Command::new("groff")
            .args(["-man", "-Tutf8", "-P-cbou"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let text = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        assert!(text.contains("EXAMPLES"), "{sub}: {text}");
        for e in &examples {
            assert!(
                text.lines().any(|l| l.trim() == e),
                "{sub}: the example `{e}` is not a line of its own, as written:\n{text}"
            );
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked}");
}
