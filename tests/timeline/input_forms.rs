//! Bad input read right, and one form for one meaning. Each test
//! failed before its fix.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slccache"))
}

fn ok(args: &[&str]) -> String {
    let o = bin().args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

fn two_levels(unit: &str, hi: f64, lo: f64) -> String {
    let mut t = format!("seconds,{unit}\n");
    for i in 1..=80 {
        t.push_str(&format!("{i},{}\n", if i <= 40 { hi } else { lo }));
    }
    t
}

// "Mb/s" (megabits) was read as megabytes, an 8x error.
#[test]
fn megabits_are_read_as_an_eighth_of_megabytes() {
    let d = tempfile::tempdir().unwrap();
    let bits = d.path().join("bits.csv");
    let bytes = d.path().join("bytes.csv");
    std::fs::write(&bits, two_levels("Mb/s", 8000.0, 2400.0)).unwrap();
    std::fs::write(&bytes, two_levels("MB/s", 1000.0, 300.0)).unwrap();
    let read = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(
            ok(&["analyze", p.to_str().unwrap(), "--json"])
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap()
    };
    let (a, b) = (read(&bits), read(&bytes));
    let before = |v: &serde_json::Value| v["cliffs"][0]["before_bytes_per_sec"].as_f64().unwrap();
    assert!((before(&a) - 1e9).abs() < 1e7, "{}", before(&a));
    assert!((before(&a) - before(&b)).abs() < 1e6);
    // --rate-unit Mbps for a headerless file too.
    let nohdr = d.path().join("nohdr.csv");
    std::fs::write(
        &nohdr,
        two_levels("x", 8000.0, 2400.0).split_once('\n').unwrap().1,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(
        ok(&[
            "analyze",
            nohdr.to_str().unwrap(),
            "--time-unit",
            "s",
            "--rate-unit",
            "Mbps",
            "--json",
        ])
        .lines()
        .next()
        .unwrap(),
    )
    .unwrap();
    assert!((before(&v) - 1e9).abs() < 1e7, "{}", before(&v));
}

// A broken summary.json beside a good timeline blocked analyze.
#[test]
fn a_broken_summary_beside_a_good_timeline_is_a_warning() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    ok(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "2",
        "--out",
        run.to_str().unwrap(),
    ]);
    std::fs::write(run.join("summary.json"), "{ not json").unwrap();
    let out = ok(&["analyze", run.join("timeline.csv").to_str().unwrap()]);
    assert!(out.contains("; cache ~"), "{out}");
    assert!(
        out.contains("summary.json") && out.contains("not taken from it"),
        "{out}"
    );
}

// Recovery and fill-sweep --help stated probe's randwrite/4k defaults.
#[test]
fn the_burst_experiments_state_their_own_defaults() {
    for cmd in ["recovery", "fill-sweep"] {
        let help = ok(&[cmd, "--help"]);
        assert!(
            help.contains("[default: seqwrite]") && help.contains("[default: 128k]"),
            "{cmd}: {help}"
        );
        assert!(!help.contains("[default: randwrite]"), "{cmd}");
    }
}

// `simulate emu:PRESET` was refused and `sweep PRESET --simulate` asked for emu:.
#[test]
fn a_model_is_named_alike_with_or_without_emu() {
    let d = tempfile::tempdir().unwrap();
    ok(&[
        "simulate",
        "emu:960evo-250g",
        "--out",
        d.path().join("a").to_str().unwrap(),
    ]);
    ok(&[
        "sweep",
        "960evo-500g",
        "--simulate",
        "--qd",
        "1",
        "--jobs",
        "1",
        "--out",
        d.path().join("b").to_str().unwrap(),
    ]);
    assert!(d.path().join("a/summary.json").is_file());
    assert!(d.path().join("b/sweep.csv").is_file());
}

// A lower bound was shown as a cache with a zero-width interval.
#[test]
fn a_burst_without_a_cliff_reports_a_lower_bound() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path().join("r");
    let out = ok(&[
        "recovery",
        "emu:970evo-500g",
        "--simulate",
        "--max-bytes",
        "1GB",
        "--idle",
        "5s",
        // Samples enough to find a cliff in: at 1 s the burst is one sample, too few to tell
        // whether there is a cache, and it says so (as `analyze` of its CSV does).
        "--interval",
        "100ms",
        "--out",
        r.to_str().unwrap(),
    ]);
    assert!(
        out.contains("first burst: no cliff: the cache is at least 1.00 GB"),
        "{out}"
    );
    assert!(!out.contains("[1.00 GB .. 1.00 GB]"), "{out}");
    assert!(
        out.contains("0 steps") && out.contains("fit: not determined"),
        "{out}"
    );
    let f = d.path().join("f");
    let out = ok(&[
        "fill-sweep",
        "emu:660p-1tb",
        "--simulate",
        "--max-bytes",
        "1GB",
        "--levels",
        "0",
        "--interval",
        "100ms",
        "--out",
        f.to_str().unwrap(),
    ]);
    assert!(out.contains(": 1 level\n"), "{out}");
    let csv = std::fs::read_to_string(f.join("fill-sweep.csv")).unwrap();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        (row[1], row[2], row[3], row[6]),
        ("", "1000000000", "", "none"),
        "{csv}"
    );
}

// A timeline whose columns are in another order was "unknown format";
// analyze took neither a run folder nor `-` for standard input.
#[test]
fn analyze_reads_reordered_columns_run_folders_and_stdin() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    ok(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "4",
        "--out",
        run.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(run.join("timeline.csv")).unwrap();
    let reversed: String = text
        .lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.reverse();
            cells.join(",") + "\n"
        })
        .collect();
    let rev = d.path().join("rev.csv");
    std::fs::write(&rev, reversed).unwrap();
    // The cache estimate (the coverage that follows it comes from a summary.json beside the
    // timeline, which the reordered copy and stdin do not have).
    let first = |out: String| {
        let line = out.lines().next().unwrap();
        let cache = line.split("; ").find(|c| c.starts_with("cache ~"));
        cache.expect(line).to_string()
    };
    let want = first(ok(&["analyze", run.join("timeline.csv").to_str().unwrap()]));
    assert_eq!(first(ok(&["analyze", rev.to_str().unwrap()])), want);
    assert_eq!(first(ok(&["analyze", run.to_str().unwrap()])), want);
    let mut c = bin()
        .args(["analyze", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(first(String::from_utf8_lossy(&o.stdout).into_owned()), want);
}

// `--span 100MB` was refused as "not a multiple of 512"; it is rounded down and said.
#[test]
fn a_span_off_the_alignment_is_rounded_down_and_said() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("scratch.bin");
    std::fs::write(&f, vec![0u8; 128 << 20]).unwrap();
    let out = ok(&[
        "probe",
        f.to_str().unwrap(),
        "--overwrite",
        "--span",
        "100MB",
        "--quiet",
        "--out",
        d.path().join("o").to_str().unwrap(),
    ]);
    assert!(out.contains("rounded down to 99999744 bytes"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("o/summary.json")).unwrap())
            .unwrap();
    assert_eq!(v["totals"]["bytes"].as_u64(), Some(99_999_744), "{v}");
}

// What Excel and LibreOffice write in the common locales ("unknown format", "column 1
// is not a number: '\"1\"'", "expected 2 to 2 columns" before).
#[test]
fn spreadsheet_csvs_are_read_in_the_common_locales() {
    let d = tempfile::tempdir().unwrap();
    let plain = d.path().join("plain.csv");
    std::fs::write(&plain, two_levels("MB/s", 1500.3, 450.5)).unwrap();
    let before = |p: &std::path::Path| -> (f64, String) {
        let out = ok(&["analyze", p.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        (
            v["cliffs"][0]["before_bytes_per_sec"].as_f64().unwrap(),
            out,
        )
    };
    let (want, _) = before(&plain);
    assert!((want - 1500.3e6).abs() < 1e6, "{want}");
    let rows = |f: &dyn Fn(usize, &str) -> String, header: &str| {
        let mut t = header.to_string();
        for i in 1..=80 {
            t.push_str(&f(i, if i <= 40 { "1500,3" } else { "450,5" }));
        }
        t
    };
    let cases = [
        (
            "semicolon.csv",
            rows(&|i, v| format!("{i};{v}\n"), "Zeit (s);MB/s\n"),
            "semicolon",
        ),
        (
            "tab.csv",
            rows(&|i, v| format!("{i}\t{v}\n"), "Zeit (s)\tMB/s\n"),
            "tab",
        ),
        (
            "quoted.csv",
            rows(
                &|i, v| format!("\"{i}\",\"{}\"\n", v.replace(',', ".")),
                "\"seconds\",\"MB/s\"\n",
            ),
            "comma",
        ),
        (
            "quoted-comma.csv",
            rows(&|i, v| format!("{i},\"{v}\"\n"), "seconds,MB/s\n"),
            "comma",
        ),
    ];
    for (name, text, sep) in cases {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let (got, out) = before(&p);
        assert!((got - want).abs() < 1e3, "{name}: {got} against {want}");
        assert!(
            out.contains(&format!("{sep} separator")),
            "{name}: the note says how it was read: {out}"
        );
    }
}

// A separator that does not split the lines evenly is named in the error.
#[test]
fn an_uneven_semicolon_file_names_the_separator() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("uneven.csv");
    std::fs::write(&p, "a;b;c\n1;2\n3;4;5;6\n").unwrap();
    let o = bin()
        .args(["analyze", p.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("semicolons"), "{err}");
}

/// The command between the first pair of backticks in `err`, split into words as a shell would
/// (single quotes only, as slccache writes them).
fn suggested(err: &str) -> Vec<String> {
    let cmd = err
        .split('`')
        .nth(1)
        .expect("a suggested command in backticks");
    let (mut words, mut cur, mut quoted, mut any) = (vec![], String::new(), false, false);
    for ch in cmd.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        words.push(cur);
    }
    words
}

// Reads on a file with a hole said "refusing to write"; a missing file suggested
// --size, which led to the same refusal. The advice now runs as written and the read then works.
#[test]
fn reads_of_a_hole_or_a_missing_file_give_advice_that_works() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        bin()
            .current_dir(d.path())
            .args(args)
            .arg("--out")
            .arg(d.path().join(format!("out{}", fastrand::u32(..))))
            .output()
            .unwrap()
    };
    let read = |file: &str, extra: &[&str]| {
        let mut a = vec![
            "probe",
            file,
            "--pattern",
            "randread",
            "--duration",
            "1s",
            "-q",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    // A hole.
    let hole = d.path().join("hole.bin");
    std::fs::File::create(&hole)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let o = read("hole.bin", &[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("refusing to read hole.bin"), "{err}");
    assert!(!err.contains("write to"), "{err}");
    let fix = suggested(&err);
    let words: Vec<&str> = fix[1..].iter().map(String::as_str).collect();
    let f = run(&words);
    assert!(
        f.status.success(),
        "{fix:?}: {}",
        String::from_utf8_lossy(&f.stderr)
    );
    let o = read("hole.bin", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A missing file, with and without --size: the advice creates and fills it.
    for extra in [&[][..], &["--size", "16MiB"][..]] {
        let name = "my missing ü.bin";
        let o = read(name, extra);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(!d.path().join(name).exists(), "nothing created");
        assert!(
            err.contains("refusing to read") && err.contains("create and fill"),
            "{err}"
        );
        let fix = suggested(&err);
        assert_eq!(fix[1], "probe");
        assert_eq!(fix[2], name, "{fix:?}");
        if !extra.is_empty() {
            assert!(fix.contains(&"16MiB".to_string()), "{fix:?}");
        }
        let fixed: Vec<String> = fix[1..]
            .iter()
            .map(|w| {
                if w == "1GiB" {
                    "8MiB".into()
                } else {
                    w.clone()
                }
            })
            .collect();
        let words: Vec<&str> = fixed.iter().map(String::as_str).collect();
        let f = run(&words);
        assert!(
            f.status.success(),
            "{fix:?}: {}",
            String::from_utf8_lossy(&f.stderr)
        );
        assert!(read(name, &[]).status.success());
        std::fs::remove_file(d.path().join(name)).unwrap();
    }
}

// Probe said --trim and fill-sweep --trim-first for the same discard; both now take
// --trim (the old name still works).
#[test]
fn fill_sweep_takes_trim_like_probe() {
    let d = tempfile::tempdir().unwrap();
    for flag in ["--trim", "--trim-first"] {
        let out = d.path().join(flag.trim_start_matches('-'));
        ok(&[
            "fill-sweep",
            "emu:960evo-250g",
            "--simulate",
            "--levels",
            "0,50",
            "--idle",
            "10s",
            flag,
            "-q",
            "--no-record",
            "--out",
            out.to_str().unwrap(),
        ]);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(v["config"]["trim_first"], true, "{flag}");
    }
}

// Default folder names dropped the emu: overrides (two models, one name) and turned
// `my file ü.bin` into `my_file__`.
#[test]
fn default_folder_names_keep_overrides_and_letters() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = bin().current_dir(d.path()).args(args).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    std::fs::File::create(d.path().join("my file ü.bin"))
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    run(&[
        "probe",
        "my file ü.bin",
        "--overwrite",
        "--duration",
        "1s",
        "-q",
        "--no-record",
    ]);
    run(&[
        "simulate",
        "960evo-250g,cache=1GB",
        "--max-bytes",
        "2GB",
        "--no-record",
    ]);
    run(&[
        "probe",
        "emu:960evo-250g,cache=2GB",
        "--duration",
        "1s",
        "-q",
        "--no-record",
    ]);
    let names: Vec<String> = std::fs::read_dir(d.path().join("output"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for want in [
        "my-file-ü-",
        "960evo-250g-cache-1GB-sim-",
        "960evo-250g-cache-2GB-",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(want)),
            "{want} in {names:?}"
        );
    }
}

// Compare wrote no summary.json and printed "wrote X" per file; it now writes one and
// ends, as the other subcommands do, with one line naming its folder.
#[test]
fn compare_writes_a_summary_and_one_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for (name, seed) in [("a", "1"), ("b", "2")] {
        ok(&[
            "simulate",
            "960evo-250g",
            "--seed",
            seed,
            "--max-bytes",
            "20GB",
            "--no-record",
            "--out",
            p.join(name).to_str().unwrap(),
        ]);
    }
    let cmp = p.join("cmp");
    let o = bin()
        .args(["compare", "--out"])
        .arg(&cmp)
        .arg(p.join("a"))
        .arg(p.join("b"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("compared 2 runs ("), "{out}");
    assert!(out.contains("); outputs: "), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cmp.join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["config"]["command"], "compare");
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    assert!(
        v["runs"][0]["analysis"]["cache_estimate"]["bytes"]
            .as_f64()
            .unwrap()
            > 1e10
    );
}

// A mixed read/write run's report.md had no read figures, its workload omitted the
// mix, and the final line said only "wrote".
#[test]
fn a_mixed_run_says_what_it_read() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("mix");
    let o = bin()
        .args([
            "probe",
            "emu:960evo-250g",
            "--pattern",
            "randrw",
            "--rwmix-read",
            "30",
            "--duration",
            "3s",
            "--no-record",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let last = err
        .lines()
        .find(|l| l.starts_with("emu:960evo-250g: wrote"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(last.contains(" and read "), "{last}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| Workload | randrw, 30% reads,"), "{md}");
    let read_row = md
        .lines()
        .find(|l| l.starts_with("| Bytes read |"))
        .expect(&md);
    assert!(
        read_row.contains("MB/s mean") && read_row.contains("IOPS"),
        "{read_row}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<th>Bytes read</th>"));
}

// -q existed only on some subcommands and --json on three. Every subcommand that runs
// and writes a folder takes -q (nothing but errors and the final line); every one that has a
// result prints it as one JSON object on stdout with --json.
#[test]
fn quiet_and_json_mean_the_same_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let o = |name: &str| p.join(name).to_str().unwrap().to_string();
    let sim = o("sim");
    ok(&[
        "simulate",
        "960evo-250g",
        "--max-bytes",
        "20GB",
        "--no-record",
        "--out",
        &sim,
    ]);
    let sim2 = o("sim2");
    ok(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "2",
        "--max-bytes",
        "20GB",
        "--no-record",
        "--out",
        &sim2,
    ]);
    let run = |args: Vec<String>| bin().args(&args).output().unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // -q: accepted by all, and the output is one line.
    let quiet_cases: Vec<Vec<String>> = vec![
        s(&[
            "probe",
            "emu:960evo-250g",
            "--duration",
            "1s",
            "--no-record",
            "--out",
            &o("q1"),
        ]),
        s(&["analyze", &sim, "--no-record", "--out", &o("q2")]),
        s(&[
            "simulate",
            "960evo-250g",
            "--max-bytes",
            "20GB",
            "--no-record",
            "--out",
            &o("q3"),
        ]),
        s(&["compare", &sim, &sim2, "--out", &o("q4")]),
        s(&[
            "sweep",
            "960evo-250g",
            "--simulate",
            "--qd",
            "1",
            "--no-record",
            "--out",
            &o("q5"),
        ]),
        s(&[
            "recovery",
            "960evo-250g",
            "--simulate",
            "--idle",
            "5s",
            "--no-record",
            "--out",
            &o("q6"),
        ]),
        s(&[
            "fill-sweep",
            "960evo-250g",
            "--simulate",
            "--levels",
            "0",
            "--idle",
            "5s",
            "--no-record",
            "--out",
            &o("q7"),
        ]),
    ];
    let mut wrong = Vec::new();
    for mut c in quiet_cases {
        c.push("-q".into());
        let r = run(c.clone());
        let all =
            String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
        if !r.status.success()
            || all.trim().lines().count() != 1
            || !(all.contains("outputs:") || c[0] == "analyze")
        {
            wrong.push(format!("{c:?} -q: {all}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "-q prints one line:\n{}",
        wrong.join("\n")
    );
    let r = run(s(&[
        "history",
        "no-such-drive",
        "-q",
        "--db",
        &o("empty.db"),
    ]));
    assert!(!String::from_utf8_lossy(&r.stderr).contains("unexpected argument"));
    // --json: one JSON object on stdout, the text on stderr.
    let json_cases: Vec<Vec<String>> = vec![
        s(&[
            "probe",
            "emu:960evo-250g",
            "--duration",
            "1s",
            "--no-record",
            "--out",
            &o("j1"),
        ]),
        s(&["analyze", &sim, "--no-record"]),
        s(&[
            "simulate",
            "960evo-250g",
            "--max-bytes",
            "20GB",
            "--no-record",
            "--out",
            &o("j3"),
        ]),
        s(&["compare", &sim, &sim2, "--out", &o("j4")]),
        s(&["info", "emu:960evo-250g"]),
    ];
    for mut c in json_cases {
        c.push("--json".into());
        let r = run(c.clone());
        assert!(
            r.status.success(),
            "{c:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let out = String::from_utf8_lossy(&r.stdout);
        let v: serde_json::Value = serde_json::from_str(out.trim())
            .unwrap_or_else(|e| panic!("{c:?}: not JSON ({e}): {out}"));
        assert!(v.is_object(), "{c:?}");
    }
}

// A two-column CSV whose first row is at 0 s lost that row without a word (its rate has no
// interval before it): a 40 GB cache at 2000 MB/s read as 38.0 GB. A first time of 0 makes
// the times the starts of the rows' intervals, so every row is read, by the file reader and
// the text reader alike.
#[test]
fn a_two_column_csv_from_zero_seconds_is_read_whole() {
    use slccache::timeline::import::{load_with_notes, parse_text_notes, ReadOptions};
    let mut text = String::from("seconds,MB/s\n");
    for i in 0..80 {
        text.push_str(&format!("{i},{}\n", if i < 20 { 2000 } else { 600 }));
    }
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("from-zero.csv");
    std::fs::write(&f, &text).unwrap();
    let opts = ReadOptions::default();
    let (file, _) = load_with_notes(&f, &opts).unwrap();
    let (stdin, _) = parse_text_notes(&text, "stdin", &opts).unwrap();
    for t in [&file, &stdin] {
        assert_eq!(t.samples.len(), 80);
        assert_eq!(t.bytes_total(), 76_000_000_000);
        assert!((t.duration_s() - 80.0).abs() < 1e-9, "{}", t.duration_s());
    }
    let out = ok(&["analyze", "--no-record", f.to_str().unwrap()]);
    assert!(out.contains(": wrote 76.0 GB in 80.0 s"), "{out}");
    assert!(out.contains("; cache ~40.0 GB "), "{out}");
}

/// A two-column CSV whose times are a clock's (Unix time) was read as a run of 490247 hours
/// with its chart empty; the times are counted from the first row's interval, with a note.
#[test]
fn a_two_column_csv_of_unix_times_is_counted_from_its_start() {
    use slccache::timeline::import::{parse_text_notes, ReadOptions};
    let mut text = String::from("time_s,MB/s\n");
    for i in 1..=60 {
        text.push_str(&format!(
            "{},{}\n",
            1_764_888_000 + i,
            if i <= 20 { 2000 } else { 600 }
        ));
    }
    let (t, notes) = parse_text_notes(&text, "epoch.csv", &ReadOptions::default()).unwrap();
    assert_eq!(t.samples.len(), 60);
    assert!((t.duration_s() - 60.0).abs() < 1e-9, "{}", t.duration_s());
    assert_eq!(t.bytes_total(), 20 * 2_000_000_000 + 40 * 600_000_000);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("start at 2025-12-04 22:40:01 UTC") && n.contains("Unix time")),
        "{notes:?}"
    );
    // A column of milliseconds is told as the same date, not as "1764888001000 s".
    let ms: String = text
        .lines()
        .skip(1)
        .map(|l| {
            let (t, r) = l.split_once(',').unwrap();
            format!("{}000,{r}\n", t)
        })
        .collect();
    let (_, notes) = parse_text_notes(
        &format!("time_ms,MB/s\n{ms}"),
        "epoch.csv",
        &ReadOptions::default(),
    )
    .unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("start at 2025-12-04 22:40:01 UTC")),
        "{notes:?}"
    );
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("epoch.csv");
    std::fs::write(&f, &text).unwrap();
    let out = ok(&["analyze", "--no-record", f.to_str().unwrap()]);
    assert!(out.contains(": wrote 64.0 GB in 60.0 s"), "{out}");
}

// A fill-sweep burst of too few samples to find a cliff in was drawn as a cache of all it
// wrote ("0%: 1.60 GB" in the chart's subtitle, a point at 1.60 GB) where the terminal and
// report.md said "none (too few samples)".
#[test]
fn a_burst_of_too_few_samples_is_no_point_on_the_fill_sweep_chart() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let out = ok(&[
        "fill-sweep",
        "emu:970evo-500g,cache=1GB",
        "--simulate",
        "--span",
        "1.6GB",
        "--out",
        f.to_str().unwrap(),
    ]);
    assert!(out.contains("too few samples"), "{out}");
    let svg = std::fs::read_to_string(f.join("fill-sweep.svg")).unwrap();
    assert!(svg.contains("0%: - (too few samples)"), "the subtitle");
    assert!(!svg.contains("0%: 1.60 GB"), "the subtitle gave a size");
    assert!(
        !svg.contains("measured, with 95% interval"),
        "a legend of nothing drawn"
    );
}

// recovery advised "run again with a shorter --interval (... such as 1s)" of a first burst
// sampled every second whose cache ran out inside its first sample.
#[test]
fn recovery_advises_an_interval_shorter_than_the_one_it_ran_at() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path().join("r");
    let out = ok(&[
        "recovery",
        "emu:970evo-500g,cache=1GB",
        "--simulate",
        "--span",
        "6GB",
        "--idle",
        "5s",
        "--out",
        r.to_str().unwrap(),
    ]);
    assert!(
        out.contains("ran out inside its first 1.00 s sample"),
        "{out}"
    );
    assert!(out.contains("such as 100ms"), "{out}");
}
