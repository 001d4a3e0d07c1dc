//! Bad input, table-driven: every case runs `slccache` in an empty scratch folder holding only
//! the case's input files, and checks
//! - the exit code: 2 for a usage error or a bad input file, 1 for a runtime failure;
//! - no panic: no "panicked" on stderr, and not Rust's panic exit code 101;
//! - no write: the folder (inputs included) is exactly as before, and no output folder exists;
//! - the message names the flag, or the file and line.
//!
//! To add a case, add a row to `cases()` (and a file to `FILES` if it needs one).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Input files every case can use, by name.
const FILES: &[(&str, &str)] = &[
    (
        "good.csv",
        "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n0.1,0.1,100,100,1000\n\
         0.2,0.1,100,200,1000\n",
    ),
    (
        "badnum.csv",
        "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n0.1,0.1,100,100,1000\n\
         0.2,0.1,abc,200,1000\n",
    ),
    (
        "negrate.csv",
        "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n0.1,0.1,100,100,1000\n\
         0.2,0.1,100,200,-5\n",
    ),
    ("badrate.log", "1, 2000, 0, 4096, 0\n2, x, 0, 4096, 0\n"),
    ("badtime.log", "1, 2000, 0, 4096, 0\nq, 2000, 0, 4096, 0\n"),
    ("nounit.csv", "time,rate\n1,100\n2,100\n"),
    ("three.csv", "seconds,MB/s\n1,100\n2,100,5\n"),
    ("empty.csv", ""),
    ("blocker", "a regular file where a folder is wanted\n"),
    (
        "existing.bin",
        "precious data that must not be overwritten\n",
    ),
    ("broken.toml", "not = [toml\n"),
    ("unknownkey.toml", "pattern = \"seqwrite\"\nworkload = 3\n"),
    ("badpattern.toml", "qd = 4\npattern = \"zigzag\"\n"),
    ("badbs.toml", "pattern = \"seqwrite\"\nbs = \"abc\"\n"),
    (
        "badmodel.toml",
        "name = \"x\"\ncapacity = \"1TB\"\ncache = \"wat\"\n",
    ),
    ("brokenmodel.toml", "name = \"x\"\ncapacity = [\n"),
    // fio's IOPS log (values are IOPS, not KiB/s): must not be read as bandwidth.
    (
        "run_iops.1.log",
        "1000, 25000, 1, 4096, 0\n2000, 25000, 1, 4096, 0\n",
    ),
    (
        "bare.toml",
        "name = \"x\"\ncapacity = \"1TB\"\ncache = 30\n",
    ),
    ("int.toml", "pattern = \"seqwrite\"\ninterval = \"5ms\"\n"),
    // A rate unit whose b could be bits or bytes; a headerless file for compare.
    ("bits_lower.csv", "seconds,mb/s\n1,100\n2,100\n"),
    ("noheader.csv", "1,100\n2,100\n3,100\n"),
    // A spreadsheet's CSV whose separator does not split the lines evenly, and
    // one whose quoted cell is no number.
    ("uneven.csv", "time (s);MB/s;x\n1;100\n2;100;5;6\n"),
    (
        "quotedword.csv",
        "\"seconds\",\"MB/s\"\n\"1\",\"100\"\n\"2\",\"lots\"\n",
    ),
    // An existing output folder with someone's files in it.
    ("userdir/report.md", "my own notes\n"),
];

/// What the message must name.
#[derive(Clone, Copy)]
enum Names {
    /// These words (a flag, a file name, a value).
    Words(&'static [&'static str]),
    /// A file and a line: `file:N`, `file, line N` or `file line N`.
    Line(&'static str, usize),
}
use Names::*;

struct Case {
    args: &'static [&'static str],
    code: i32,
    names: Names,
}

const fn c(args: &'static [&'static str], code: i32, names: Names) -> Case {
    Case { args, code, names }
}

const EMU: &str = "emu:960evo-500g";

fn cases() -> Vec<Case> {
    vec![
        // --- top level ---
        c(&[], 2, Words(&["Usage"])),
        c(&["frobnicate"], 2, Words(&["frobnicate"])),
        // --- probe: flags ---
        c(&["probe"], 2, Words(&["TARGET"])),
        c(
            &["probe", EMU, "--pattern", "zig"],
            2,
            Words(&["--pattern", "zig"]),
        ),
        c(&["probe", EMU, "--bs", "1000"], 2, Words(&["--bs"])),
        c(&["probe", EMU, "--bs", "abc"], 2, Words(&["--bs", "abc"])),
        c(
            &["probe", EMU, "--interval", "1ms"],
            2,
            Words(&["--interval"]),
        ),
        c(
            &["probe", EMU, "--interval", "xyz"],
            2,
            Words(&["--interval", "xyz"]),
        ),
        c(&["probe", EMU, "--qd", "0"], 2, Words(&["--qd"])),
        c(&["probe", EMU, "--qd=-1"], 2, Words(&["--qd", "-1"])),
        c(&["probe", EMU, "--jobs", "0"], 2, Words(&["--jobs"])),
        c(
            &["probe", EMU, "--duration", "5q"],
            2,
            Words(&["--duration", "5q"]),
        ),
        c(
            &["probe", EMU, "--max-bytes", "12XB"],
            2,
            Words(&["--max-bytes", "12XB"]),
        ),
        c(&["probe", EMU, "--span", "1EB"], 2, Words(&["--span"])),
        c(
            &["probe", EMU, "--png-size", "5x5"],
            2,
            Words(&["--png-size"]),
        ),
        c(
            &["probe", EMU, "--units", "furlongs"],
            2,
            Words(&["--units"]),
        ),
        c(
            &["probe", EMU, "--engine", "aio"],
            2,
            Words(&["--engine", "aio"]),
        ),
        c(&["probe", EMU, "--seed", "x"], 2, Words(&["--seed"])),
        c(&["probe", EMU, "--bogus"], 2, Words(&["--bogus"])),
        // --- probe: targets ---
        c(&["probe", "new.bin"], 2, Words(&["new.bin", "--size"])),
        c(&["probe", "new.bin", "--size", "0"], 2, Words(&["--size"])),
        c(
            &["probe", "new.bin", "--size", "lots"],
            2,
            Words(&["--size", "lots"]),
        ),
        c(
            &["probe", "existing.bin"],
            1,
            Words(&["existing.bin", "--overwrite"]),
        ),
        c(&["probe", "."], 2, Words(&["neither a regular file"])),
        c(&["probe", "/dev/null"], 2, Words(&["/dev/null"])),
        c(&["probe", "emu:nope"], 2, Words(&["nope", "presets"])),
        c(&["probe", "emu:960evo-500g,foo=1"], 2, Words(&["foo"])),
        c(
            &["probe", "emu:960evo-500g,cache=abc"],
            2,
            Words(&["cache", "abc"]),
        ),
        // --- probe: scenario files ---
        c(
            &["probe", EMU, "--scenario", "nope.toml"],
            2,
            Words(&["nope.toml"]),
        ),
        c(
            &["probe", EMU, "--scenario", "broken.toml"],
            2,
            Line("broken.toml", 1),
        ),
        c(
            &["probe", EMU, "--scenario", "unknownkey.toml"],
            2,
            Line("unknownkey.toml", 2),
        ),
        c(
            &["probe", EMU, "--scenario", "badpattern.toml"],
            2,
            Line("badpattern.toml", 2),
        ),
        c(
            &["probe", EMU, "--scenario", "badbs.toml"],
            2,
            Line("badbs.toml", 2),
        ),
        // --- analyze ---
        c(&["analyze"], 2, Words(&["FILES"])),
        c(&["analyze", "missing.csv"], 2, Words(&["missing.csv"])),
        c(&["analyze", "empty.csv"], 2, Words(&["empty.csv"])),
        c(&["analyze", "badnum.csv"], 2, Line("badnum.csv", 3)),
        c(&["analyze", "negrate.csv"], 2, Line("negrate.csv", 3)),
        c(&["analyze", "badrate.log"], 2, Line("badrate.log", 2)),
        c(&["analyze", "badtime.log"], 2, Line("badtime.log", 2)),
        c(&["analyze", "nounit.csv"], 2, Line("nounit.csv", 1)),
        c(&["analyze", "three.csv"], 2, Line("three.csv", 3)),
        // A read of a file that does not exist is refused, --size or not.
        c(
            &[
                "probe",
                "missing.bin",
                "--pattern",
                "randread",
                "--size",
                "1MiB",
            ],
            1,
            Words(&["missing.bin", "create and fill"]),
        ),
        c(
            &["analyze", "uneven.csv"],
            2,
            Words(&["uneven.csv", "semicolons"]),
        ),
        c(&["analyze", "quotedword.csv"], 2, Line("quotedword.csv", 3)),
        c(
            &["analyze", "good.csv", "--time-unit", "h"],
            2,
            Words(&["--time-unit"]),
        ),
        c(
            &["analyze", "good.csv", "--rate-unit", "furlongs"],
            2,
            Words(&["--rate-unit"]),
        ),
        c(
            &["analyze", "good.csv", "--png-size", "1x"],
            2,
            Words(&["--png-size"]),
        ),
        c(
            &["analyze", "good.csv", "--out", "blocker/sub"],
            1,
            Words(&["blocker"]),
        ),
        // --- simulate ---
        c(&["simulate"], 2, Words(&["MODEL"])),
        c(
            &["simulate", "nosuchpreset"],
            2,
            Words(&["nosuchpreset", "presets"]),
        ),
        c(
            &["simulate", "960evo-500g,cache=abc"],
            2,
            Words(&["cache", "abc"]),
        ),
        c(&["simulate", "nope.toml"], 2, Words(&["nope.toml"])),
        c(&["simulate", "badmodel.toml"], 2, Line("badmodel.toml", 3)),
        c(
            &["simulate", "brokenmodel.toml"],
            2,
            Words(&["brokenmodel.toml", "line"]),
        ),
        c(
            &["simulate", "960evo-500g", "--duration", "5q"],
            2,
            Words(&["--duration"]),
        ),
        c(
            &["simulate", "960evo-500g", "--interval", "1ms"],
            2,
            Words(&["--interval"]),
        ),
        c(
            &["simulate", "960evo-500g", "--units", "x"],
            2,
            Words(&["--units"]),
        ),
        c(
            &["simulate", "960evo-500g", "--scenario", "broken.toml"],
            2,
            Line("broken.toml", 1),
        ),
        // --- compare ---
        c(&["compare", "good.csv"], 2, Words(&["RUNS"])),
        c(&["compare", "a", "b"], 2, Words(&["a:"])),
        c(
            &["compare", "badnum.csv", "good.csv"],
            2,
            Line("badnum.csv", 3),
        ),
        c(
            &["compare", "good.csv", "good.csv", "--units", "x"],
            2,
            Words(&["--units"]),
        ),
        c(
            &["compare", "good.csv", "good.csv", "--png-size", "0x0"],
            2,
            Words(&["--png-size"]),
        ),
        // --- presets ---
        c(&["presets", "extra"], 2, Words(&["extra"])),
        c(&["presets", "--bogus"], 2, Words(&["--bogus"])),
        // --- found by trying it as a new user would ---
        c(
            &["analyze", "run_iops.1.log"],
            2,
            Words(&["run_iops.1.log", "_bw"]),
        ),
        c(
            &["compare", "run_iops.1.log", "good.csv"],
            2,
            Words(&["run_iops.1.log"]),
        ),
        c(&["simulate", "bare.toml"], 2, Line("bare.toml", 3)),
        c(
            &["probe", EMU, "--scenario", "int.toml"],
            2,
            Line("int.toml", 2),
        ),
        c(
            &["probe", EMU, "--max-bytes", "1k"],
            2,
            Words(&["--max-bytes"]),
        ),
        c(
            &[
                "simulate",
                "960evo-500g",
                "--interval",
                "10h",
                "--duration",
                "1h",
            ],
            2,
            Words(&["--interval"]),
        ),
        c(&["probe", ""], 2, Words(&["target is empty"])),
        // --- info, sweep, recovery, fill-sweep ---
        c(&["info"], 2, Words(&["TARGET"])),
        c(&["info", "nosuch.bin"], 2, Words(&["nosuch.bin"])),
        c(
            &["sweep", EMU, "--qd", "x", "--simulate"],
            2,
            Words(&["--qd"]),
        ),
        c(
            &["recovery", EMU, "--simulate", "--idle", "xyz"],
            2,
            Words(&["--idle"]),
        ),
        c(
            &["fill-sweep", EMU, "--simulate", "--levels", "150"],
            2,
            Words(&["--levels"]),
        ),
        // --- results that could be lost, bits read as bytes, ambiguous units ---
        c(
            &["simulate", "960evo-500g", "--duration", "1M"],
            2,
            Words(&["--duration", "1min"]),
        ),
        c(
            &["analyze", "bits_lower.csv"],
            2,
            Words(&["bits_lower.csv", "mb/s", "bits or bytes"]),
        ),
        c(
            &["analyze", "good.csv", "--rate-unit", "mbps"],
            2,
            Words(&["--rate-unit", "mbps", "bits or bytes"]),
        ),
        c(
            &["compare", "noheader.csv", "good.csv"],
            2,
            Words(&["noheader.csv", "compare has no unit flags"]),
        ),
        c(
            &["analyze", "good.csv", "--out", "userdir"],
            2,
            Words(&["--out", "userdir", "report.md", "--force"]),
        ),
        c(
            &["simulate", "960evo-500g", "--out", "userdir"],
            2,
            Words(&["--out", "userdir", "--force"]),
        ),
        c(
            &["compare", "good.csv", "good.csv", "--out", "blocker"],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        // --- completions and man ---
        c(&["completions"], 2, Words(&["SHELL"])),
        c(&["completions", "tcsh"], 2, Words(&["tcsh"])),
        c(&["man", "--bogus"], 2, Words(&["--bogus"])),
        c(
            &["man", "--out-dir", "blocker"],
            2,
            Words(&["--out-dir", "blocker", "not a folder"]),
        ),
        // One message for an existing file as --out, in every subcommand.
        c(
            &["probe", EMU, "--out", "blocker"],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        c(
            &["simulate", "960evo-500g", "--out", "blocker"],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        c(
            &["analyze", "good.csv", "--out", "blocker"],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        c(
            &[
                "sweep",
                EMU,
                "--simulate",
                "--qd",
                "1",
                "--jobs",
                "1",
                "--out",
                "blocker",
            ],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        c(
            &[
                "recovery",
                EMU,
                "--simulate",
                "--idle",
                "5s",
                "--out",
                "blocker",
            ],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        c(
            &[
                "fill-sweep",
                EMU,
                "--simulate",
                "--levels",
                "0",
                "--out",
                "blocker",
            ],
            2,
            Words(&["--out", "blocker", "not a folder"]),
        ),
        // --hipri is the polled io_uring engine: it cannot be given with another engine.
        c(
            &["probe", EMU, "--hipri", "--engine", "sync"],
            2,
            Words(&["--hipri", "--engine"]),
        ),
        // --sanitize and --secure-erase are two ways to erase: one at a time.
        c(
            &["probe", EMU, "--sanitize", "--secure-erase"],
            2,
            Words(&["--sanitize", "--secure-erase", "cannot be used with"]),
        ),
        // --sanitize needs an NVMe namespace: an emulated drive or a file is not one (and the
        // file is not created).
        c(
            &["probe", EMU, "--sanitize"],
            2,
            Words(&["--sanitize", "is not an NVMe namespace", "--trim"]),
        ),
        c(
            &["probe", "new.bin", "--size", "1MiB", "--sanitize"],
            2,
            Words(&["--sanitize", "new.bin is not an NVMe namespace"]),
        ),
        // --secure-erase needs an NVMe namespace or an ATA drive (SECURITY ERASE UNIT): an
        // emulated drive or a file is neither (and the file is not created). The ATA
        // refusals themselves (no Security feature set, frozen, security enabled, a USB
        // bridge, a partition) and --trim on a drive without TRIM need an ATA drive: they
        // are tested on canned IDENTIFY pages in src/device/ata_erase.rs and
        // src/device/ata.rs, and in the QEMU guest of tests/device/nvme_qemu.rs.
        c(
            &["probe", EMU, "--secure-erase"],
            2,
            Words(&[
                "--secure-erase",
                "or erases an ATA drive",
                "is neither",
                "--trim",
            ]),
        ),
        c(
            &["probe", "new.bin", "--size", "1MiB", "--secure-erase"],
            2,
            Words(&[
                "--secure-erase",
                "SECURITY ERASE UNIT",
                "new.bin is neither",
            ]),
        ),
        // An error speaks the user's units (decimal and binary).
        c(
            &["probe", "new.bin", "--size", "128MiB", "--span", "600GB"],
            2,
            Words(&["--span", "600 GB", "128 MiB"]),
        ),
        // Error wording.
        c(
            &["sweep", EMU, "--simulate", "--point-duration", "-1s"],
            2,
            Words(&["--point-duration", "cannot be negative"]),
        ),
        c(
            &["probe", EMU, "--duration=-5s"],
            2,
            Words(&["--duration", "cannot be negative"]),
        ),
        c(
            &["probe", EMU, "--duration", "1x"],
            2,
            Words(&["--duration", "1x", "a number and a unit"]),
        ),
        c(
            &["simulate", "960evo-500g,cache=1GB,cache=2GB"],
            2,
            Words(&["cache", "twice"]),
        ),
    ]
}

/// Every file below `dir` with its content (folders as None).
fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(name, None);
                stack.push(p);
            } else {
                out.insert(name, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn names_ok(err: &str, names: Names) -> bool {
    match names {
        Words(w) => w.iter().all(|x| err.contains(x)),
        Line(f, n) => [
            format!("{f}:{n}"),
            format!("{f}, line {n}"),
            format!("{f} line {n}"),
        ]
        .iter()
        .any(|p| err.contains(p.as_str())),
    }
}

/// Runs one case; returns what went wrong, if anything.
fn check(case: &Case) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in FILES {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let before = snapshot(dir.path());
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("slccache"))
        .args(case.args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hang guard only: every case fails at once.
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let mut wrong = Vec::new();
    if o.status.code() != Some(case.code) {
        wrong.push(format!(
            "exit code {:?}, want {}",
            o.status.code(),
            case.code
        ));
    }
    if err.contains("panicked") || o.status.code() == Some(101) {
        wrong.push("panicked".to_string());
    }
    if !names_ok(&err, case.names) {
        let want = match case.names {
            Words(w) => format!("{w:?}"),
            Line(f, n) => format!("{f} line {n}"),
        };
        wrong.push(format!("the message does not name {want}"));
    }
    let after = snapshot(dir.path());
    if after != before {
        let changed: Vec<&String> = after
            .keys()
            .chain(before.keys())
            .filter(|k| after.get(*k) != before.get(*k))
            .collect();
        wrong.push(format!("wrote or changed {changed:?}"));
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "slccache {}: {}\n  stderr: {}",
            case.args.join(" "),
            wrong.join("; "),
            err.trim().replace('\n', "\n          ")
        )
    })
}

#[test]
fn bad_input_is_refused_cleanly() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    // Two threads: the cases are independent, each in its own folder.
    let (a, b): (Vec<_>, Vec<_>) = cases.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let h = s.spawn(|| a.iter().filter_map(|(_, c)| check(c)).collect::<Vec<_>>());
        let mut f: Vec<String> = b.iter().filter_map(|(_, c)| check(c)).collect();
        f.extend(h.join().unwrap());
        f
    });
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
