//! `slccache recovery` and `slccache fill-sweep` on drive models in virtual time: the model's
//! truth comes back (recovery rate and delay within 10%, cache at each fill level within 5%),
//! the outputs and the `summary.json` contract are there, bad input is a usage error with
//! nothing written, and an interrupted experiment keeps its finished steps.

use serde_json::Value;

use crate::common::slccache_process as slccache;

fn out_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("recovery-out-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn summary(dir: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

pub fn recovery_on_the_970_evo_model_finds_its_rate_and_delay() {
    let out = out_dir();
    let o = slccache()
        .args([
            "recovery",
            "emu:970evo-500g",
            "--simulate",
            "--idle",
            "10s,60s,300s",
            "--seed",
            "3",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(out.path());
    assert_eq!(s["command"], "recovery");
    assert_eq!(s["interrupted"], false);
    // The contract: points and fit keys, and the model's truth.
    let points = s["recovery"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        for k in ["idle_s", "recovered_bytes", "low_bytes", "high_bytes"] {
            num(p, k);
        }
        assert!(num(p, "low_bytes") <= num(p, "recovered_bytes"));
        assert!(num(p, "recovered_bytes") <= num(p, "high_bytes"));
    }
    let idles: Vec<f64> = points.iter().map(|p| num(p, "idle_s")).collect();
    assert_eq!(idles, vec![10.0, 60.0, 300.0]);
    let fit = &s["recovery"]["fit"];
    for k in ["fold_rate_bytes_per_sec", "delay_s", "full_recovery_s"] {
        let (v, lo, hi) = (
            num(fit, k),
            num(fit, &format!("{k}_low")),
            num(fit, &format!("{k}_high")),
        );
        assert!(lo <= v && v <= hi, "{k}: {lo} {v} {hi}");
    }
    let truth = &s["model_truth"]["recovery"];
    let rate = num(fit, "fold_rate_bytes_per_sec");
    let t_rate = num(truth, "recover_bytes_per_sec");
    assert!(
        (rate / t_rate - 1.0).abs() < 0.10,
        "rate {rate} vs truth {t_rate}"
    );
    let delay = num(fit, "delay_s");
    let t_delay = num(truth, "recover_delay_s");
    assert!(
        (delay / t_delay - 1.0).abs() < 0.10,
        "delay {delay} vs truth {t_delay}"
    );
    // Each point agrees with what the model had available when its burst began.
    for p in points {
        let t = num(p, "truth_recovered_bytes");
        let v = num(p, "recovered_bytes");
        assert!((v - t).abs() <= 0.05 * t.max(1e9), "{v} vs {t}");
    }
    // Outputs: table, charts, report, one timeline per burst (the first, the settling step
    // and three more).
    for f in [
        "recovery.csv",
        "recovery.png",
        "recovery.svg",
        "recovery-bursts.png",
        "recovery-bursts.svg",
        "report.md",
        "report.html",
    ] {
        assert!(out.path().join(f).is_file(), "{f} missing");
    }
    let bursts = std::fs::read_dir(out.path().join("bursts"))
        .unwrap()
        .count();
    assert_eq!(bursts, 5);
    let csv = std::fs::read_to_string(out.path().join("recovery.csv")).unwrap();
    assert!(csv.starts_with("idle_s,recovered_bytes,low_bytes,high_bytes,"));
    assert_eq!(csv.lines().count(), 4);
    // The idle order is the longest first, then the rest shuffled by the seed; it is recorded.
    let order: Vec<f64> = s["recovery"]["order_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(order[0], 300.0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("fit: folding") && text.contains("MB/s"),
        "{text}"
    );
}

pub fn fill_sweep_on_the_660p_model_shows_the_dynamic_cache_gone_at_75_percent() {
    let out = out_dir();
    let o = slccache()
        .args([
            "fill-sweep",
            "emu:660p-1tb",
            "--simulate",
            "--levels",
            "0,25,50,75",
            "--seed",
            "5",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(out.path());
    assert_eq!(s["command"], "fill-sweep");
    let points = s["fill_sweep"]["points"].as_array().unwrap();
    let levels: Vec<f64> = points.iter().map(|p| num(p, "fill_pct")).collect();
    assert_eq!(levels, vec![0.0, 25.0, 50.0, 75.0]);
    for p in points {
        let (c, lo, hi, t) = (
            num(p, "cache_bytes"),
            num(p, "low_bytes"),
            num(p, "high_bytes"),
            num(p, "truth_cache_bytes"),
        );
        assert!(lo <= c && c <= hi);
        assert!(
            (c / t - 1.0).abs() < 0.05,
            "at {}%: {c} vs truth {t}",
            num(p, "fill_pct")
        );
    }
    // 140 GB empty; at 75% the dynamic part is gone: only the 12 GB static cache is left.
    assert!((num(&points[0], "truth_cache_bytes") - 140e9).abs() < 1e6);
    assert!((num(&points[3], "truth_cache_bytes") - 12e9).abs() < 1e6);
    assert!((num(&points[3], "cache_bytes") / 12e9 - 1.0).abs() < 0.05);
    assert!(num(&points[2], "cache_bytes") > 3.0 * num(&points[3], "cache_bytes"));
    assert!(num(&s["model_truth"]["recovery"], "recover_bytes_per_sec") > 0.0);
    assert!(num(&s["model_truth"]["recovery"], "recover_delay_s") >= 0.0);
    for f in [
        "fill-sweep.csv",
        "fill-sweep.png",
        "fill-sweep.svg",
        "fill-sweep-bursts.png",
        "report.md",
    ] {
        assert!(out.path().join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        std::fs::read_dir(out.path().join("bursts"))
            .unwrap()
            .count(),
        4
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("| 75% | 12.0 GB |"), "{md}");
}

pub fn bad_lists_are_usage_errors_and_write_nothing() {
    for (cmd, flag, value, want) in [
        ("recovery", "--idle", "10s,abc", "--idle"),
        ("recovery", "--idle", "0s", "--idle"),
        ("fill-sweep", "--levels", "50,25", "--levels"),
        ("fill-sweep", "--levels", "0,120", "--levels"),
    ] {
        let out = out_dir();
        let dir = out.path().join("o");
        let mut c = slccache();
        c.args([cmd, "emu:970evo-500g", "--simulate", flag, value, "--out"])
            .arg(&dir);
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd} {flag} {value}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{err}");
        assert!(
            !dir.exists(),
            "{cmd} {flag} {value} wrote {}",
            dir.display()
        );
    }
    // --duration makes no sense for bursts that stop at the cliff.
    let out = out_dir();
    let o = slccache()
        .args([
            "recovery",
            "emu:970evo-500g",
            "--simulate",
            "--idle",
            "10s",
            "--duration",
            "10s",
            "--out",
        ])
        .arg(out.path().join("o"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

pub fn ctrl_c_in_real_time_keeps_the_finished_steps_and_exits_130() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let out = out_dir();
    let mut child = slccache()
        .args([
            "recovery",
            "emu:960evo-250g,cache=1GB,in=1GB/s,after=250MB/s,noise=0.02,dips=0,recover=400MB/s,recover_delay=0.5s",
            "--idle",
            "6s,9s",
            "--interval",
            "100ms",
            "--after-cliff",
            "1s",
            "--seed",
            "1",
            "--out",
        ])
        .arg(out.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Not on a terminal, progress comes as one line per step event: wait for the first idle.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("slccache ended before its first idle: {seen}");
        }
        seen.push_str(&line);
        if line.contains("step 1/2: idle") {
            break;
        }
    }
    // SAFETY: kill has no memory-safety preconditions; the pid is our own child, still
    // running (it is idling for 6 or 9 s, and SIGINT comes as the idle starts).
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{seen}");
    let s = summary(out.path());
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["recovery"]["first_burst"]["end"], "cliff_confirmed");
    assert!(s["recovery"]["points"].as_array().unwrap().is_empty());
    assert!(s["model_truth"]["recovery"]["recover_bytes_per_sec"].is_number());
    assert!(out.path().join("report.md").is_file());
    assert!(out.path().join("bursts/00-first.csv").is_file());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("(interrupted)"), "{text}");
    // The chart's subtitle said "folding not determined after not
    // determined" for a fit that was never made. It says that there is no fit, and why.
    let svg = std::fs::read_to_string(out.path().join("recovery.svg")).unwrap();
    assert!(!svg.contains("not determined after"), "recovery.svg");
    assert!(
        svg.contains(
            "aria-label=\"recovery fit not determined (0 recovery points) (interrupted)\""
        ),
        "recovery.svg"
    );
}

pub fn a_drive_without_cache_is_reported_as_such_not_as_a_cache_of_everything() {
    // The PM983 model has no SLC cache: the first level's burst finds no cliff and writes to
    // the end of the 2 GB span; the next level has nothing left to write.
    let out = out_dir();
    let o = slccache()
        .args([
            "fill-sweep",
            "emu:pm983-960g",
            "--simulate",
            "--span",
            "2GB",
            "--levels",
            "0,50",
            "--idle",
            "1s",
            "--seed",
            "1",
            // Samples enough to find a cliff in (two 1 s samples are too few to tell).
            "--interval",
            "100ms",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(out.path());
    let points = s["fill_sweep"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["burst"]["end"], "end_of_span");
    let warnings: Vec<&str> = s["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("at 0%: no cliff")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("at 50%: nothing left to write")),
        "{warnings:?}"
    );
}

// The first step after the first burst no longer reads low. With one idle
// time of 10 s the 970 EVO model (folding 300 MB/s after 5 s) said "0 B came back ... the
// drive does not fold while idle", while `--idle 10s,60s` got 1.51 GB back after the same
// 10 s: the first burst had filled the cache of an empty drive, larger than the one the drive
// offers with that data on it, and the first idle folded the difference. A settling step
// (the longest idle and a burst, not a point) now comes first.
pub fn the_same_idle_brings_back_the_same_cache_whatever_the_other_idle_times() {
    let run = |idle: &str| {
        let out = out_dir();
        let o = slccache()
            .args(["recovery", "emu:970evo-500g", "--simulate", "--idle", idle])
            .args(["--seed", "1", "--out"])
            .arg(out.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s = summary(out.path());
        let p = s["recovery"]["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["idle_s"] == 10.0)
            .cloned()
            .unwrap();
        (s, p, String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (alone, p_alone, text) = run("10s");
    let (_, p_with, _) = run("10s,60s");
    let (a, b) = (
        num(&p_alone, "recovered_bytes"),
        num(&p_with, "recovered_bytes"),
    );
    // The model: 300 MB/s for 10 s - 5 s.
    assert!((a - 1.5e9).abs() < 0.05 * 1.5e9, "10 s alone: {a}");
    assert!(
        (a - b).abs() < 0.05 * b,
        "10 s alone {a} vs beside 60 s {b}"
    );
    assert!(!text.contains("does not fold"), "{text}");
    assert!(alone["recovery"]["settling"]["idle_s"] == 10.0, "{alone}");
    // One idle time cannot tell the rate from the delay: bounds, not a fit.
    let fit = &alone["recovery"]["fit"];
    assert!(fit["fold_rate_bytes_per_sec"].is_null(), "{fit}");
    assert!(fit["delay_s"].is_null(), "{fit}");
    assert!(
        text.contains("only one idle time brought cache back"),
        "{text}"
    );
}

/// The address space a run interrupted in its first burst gets (`RLIMIT_AS`): far more than
/// an experiment on an emulated drive needs (it uses no io_uring), far less than the
/// gigabytes a chart whose line ran off its axis took.
const MEMORY_LIMIT: u64 = 1_500_000_000;

/// Runs slccache with `args` (an experiment on an emulated drive in real time, writing into
/// `out`, recording into the store `db`) under [`MEMORY_LIMIT`], sends `sig` once its first
/// burst has written a few samples, and returns its exit code, stdout and stderr.
fn interrupt_in_the_first_burst(
    args: &[&str],
    out: &std::path::Path,
    db: &std::path::Path,
    sig: libc::c_int,
) -> (Option<i32>, String, String) {
    use std::io::{BufRead, BufReader, Read};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut cmd = slccache();
    cmd.args(args)
        .arg("--out")
        .arg(out)
        .env("SLCCACHE_DB", db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits; the
    // closure allocates nothing and captures only a constant.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    // Killed on a panic below, so that no run outlives the test.
    struct Guard(Option<std::process::Child>);
    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(c) = self.0.as_mut() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut stdout = child.stdout.take().unwrap();
    let mut g = Guard(Some(child));
    // Not on a terminal, progress comes as one line per step event.
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("slccache ended before its first burst: {seen}");
        }
        seen.push_str(&line);
        if line.contains(": burst (") {
            break;
        }
    }
    // A second or so into the burst: its timeline has rows.
    let t0 = Instant::now();
    let bursts = out.join("bursts");
    loop {
        let rows: usize = std::fs::read_dir(&bursts)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|t| t.lines().count().saturating_sub(1))
            .sum();
        if rows >= 3 {
            break;
        }
        // A hang guard only.
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no samples: {seen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = g.0.as_ref().unwrap().id() as libc::pid_t;
    // SAFETY: kill has no memory-safety preconditions; the pid is our own child, running
    // (it was writing its first burst a moment ago; the guard has not reaped it).
    unsafe {
        libc::kill(pid, sig);
    }
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut text = String::new();
    stdout.read_to_string(&mut text).unwrap();
    let t0 = Instant::now();
    let code = loop {
        if let Some(st) = g.0.as_mut().unwrap().try_wait().unwrap() {
            g.0 = None;
            break st.code();
        }
        // A hang guard only: the outputs of a run that wrote a second take a second.
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "still writing its outputs after 5 minutes"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    seen.push_str(&rest.join().unwrap());
    (code, text, seen)
}

/// A short recovery of the 960 EVO model, interrupted in its first burst by the tests below.
const RECOVERY_ARGS: &[&str] = &[
    "recovery",
    "emu:960evo-250g",
    "--idle",
    "5s,10s",
    "--interval",
    "200ms",
    "--seed",
    "1",
];

/// A short fill-sweep of the same model, interrupted the same way.
const FILL_ARGS: &[&str] = &[
    "fill-sweep",
    "emu:960evo-250g",
    "--levels",
    "0,50",
    "--idle",
    "1s",
    "--interval",
    "200ms",
    "--seed",
    "1",
];

/// The footer of the chart `svg` (the text of its labels, joined by " · " where it wraps): from
/// the label that begins with "Drive: " to the one that names the version, else the latter
/// alone.
fn chart_footer(svg: &str) -> String {
    let labels: Vec<String> = svg
        .split("aria-label=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| s.replace("&apos;", "'").replace("&amp;", "&"))
        .collect();
    let version = format!("slccache {}", env!("CARGO_PKG_VERSION"));
    let end = labels
        .iter()
        .position(|l| l.contains(&version))
        .unwrap_or_else(|| panic!("no footer naming {version}: {labels:#?}"));
    let start = labels[..=end]
        .iter()
        .rposition(|l| l.starts_with("Drive: "))
        .unwrap_or(end);
    labels[start..=end].join("  ·  ")
}

/// What every interrupted experiment's folder holds: `summary.json` marked interrupted, the
/// points CSV, both charts as PNG and SVG (each of an ordinary size, and each footer giving
/// the drive, the workload and the date, as a finished run's do), report.md (whose links all
/// resolve) and report.html; and the run is in the store, marked interrupted.
fn assert_every_output(out: &std::path::Path, db: &std::path::Path, name: &str) {
    let s = summary(out);
    assert_eq!(s["interrupted"], true, "{s}");
    for chart in [format!("{name}.svg"), format!("{name}-bursts.svg")] {
        let footer = chart_footer(&std::fs::read_to_string(out.join(&chart)).unwrap());
        for part in [
            "Drive: Samsung SSD 960 EVO 250GB (emulated), 250 GB",
            "Workload: seqwrite, 128 KiB blocks, QD32, 1 job, 200 ms interval, emulated",
            " UTC  ·  stopped: interrupted  ·  slccache ",
        ] {
            assert!(footer.contains(part), "{chart}'s footer: {footer}");
        }
    }
    for f in [
        "summary.json".to_string(),
        format!("{name}.csv"),
        format!("{name}.png"),
        format!("{name}.svg"),
        format!("{name}-bursts.png"),
        format!("{name}-bursts.svg"),
        "report.md".into(),
        "report.html".into(),
    ] {
        let n = std::fs::metadata(out.join(&f))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(n > 0, "{f} is missing or empty");
        assert!(n < 5_000_000, "{f}: {n} bytes");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Interrupted"), "{md}");
    for link in md.split("](").skip(1).filter_map(|x| x.split(')').next()) {
        assert!(
            out.join(link).is_file(),
            "report.md links {link}, not written"
        );
    }
    let o = slccache()
        .args(["runs", "--json"])
        .env("SLCCACHE_DB", db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let runs: Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["kind"], name);
    assert_eq!(runs[0]["interrupted"], true);
}

/// Ctrl-C or SIGTERM during the first burst of `recovery` made its recovery chart draw the
/// model's curve a billion axis heights above an axis one byte high (labels all "0"): memory
/// grew until the run was killed (24 GB, exit 137), or under a limit it aborted in the SVG
/// writer ("memory allocation of 5211422720 bytes failed"), with report.md, report.html and
/// the SVGs lost and the run not recorded. It exits 130 with every output, within 1.5 GB.
/// Its bursts chart, with no burst to take them from, then had a footer of the version
/// alone: it gives the experiment's drive, workload and date, as a finished run's does.
pub fn an_interrupt_in_the_first_burst_writes_every_output_in_bounded_memory() {
    let out = out_dir();
    let db = out.path().join("store.db");
    let dir = out.path().join("run");
    let (code, text, err) = interrupt_in_the_first_burst(RECOVERY_ARGS, &dir, &db, libc::SIGINT);
    assert_eq!(code, Some(130), "{text}\n{err}");
    assert!(text.contains("(interrupted)"), "{text}");
    assert_every_output(&dir, &db, "recovery");
    let s = summary(&dir);
    // The burst, cut short after its rows were written, is kept and said interrupted (it was
    // dropped: `"first_burst": null` beside a `bursts/00-first.csv` that held the drop).
    assert_eq!(s["recovery"]["first_burst"]["end"], "interrupted", "{s}");
    assert!(
        s["recovery"]["first_burst"]["bytes_written"].as_u64() > Some(0),
        "{s}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("(first burst, interrupted)"), "{md}");
    // fill-sweep the same way, with SIGTERM, in its first level's burst.
    let db = out.path().join("store-fill.db");
    let dir = out.path().join("fill");
    let (code, text, err) = interrupt_in_the_first_burst(FILL_ARGS, &dir, &db, libc::SIGTERM);
    assert_eq!(code, Some(130), "{text}\n{err}");
    assert_every_output(&dir, &db, "fill-sweep");
}

/// SIGHUP (a closed terminal, a dropped SSH session) ended `recovery` and `fill-sweep` at
/// once, without their outputs: their own signal handlers caught only SIGINT and SIGTERM,
/// while `probe` and `sweep` caught SIGHUP too. Every command now shares one set of
/// handlers, so SIGHUP gives exit 130 with every output here as well.
pub fn sighup_in_an_experiment_exits_130_with_every_output() {
    let out = out_dir();
    for (name, args) in [("recovery", RECOVERY_ARGS), ("fill-sweep", FILL_ARGS)] {
        let db = out.path().join(format!("store-{name}.db"));
        let dir = out.path().join(name);
        let (code, text, err) = interrupt_in_the_first_burst(args, &dir, &db, libc::SIGHUP);
        assert_eq!(code, Some(130), "{name}: {text}\n{err}");
        assert_every_output(&dir, &db, name);
    }
}

/// fill-sweep gave its fill step a flag that nothing set: SIGINT, SIGTERM and SIGHUP did
/// nothing for the whole fill (an hour at the model's rate), and a second signal killed it
/// without report.md or summary.json. A signal during the fill now ends the run with exit 130
/// and every output.
pub fn a_signal_during_the_fill_of_a_fill_sweep_exits_130_with_every_output() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let out = out_dir();
    let mut child = slccache()
        .args([
            "--no-record",
            "fill-sweep",
            "emu:660p-1tb",
            "--levels",
            "50",
            "--idle",
            "1s",
            "--out",
        ])
        .arg(out.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("slccache ended before its fill: {seen}");
        }
        seen.push_str(&line);
        if line.contains("sequentially") {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill has no memory-safety preconditions; the pid is our own child, still
    // running (its fill of 500 GB takes far longer than this test).
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let start = std::time::Instant::now();
    let mut waited = None;
    while start.elapsed() < std::time::Duration::from_secs(30) {
        if let Some(st) = child.try_wait().unwrap() {
            waited = Some(st);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let Some(st) = waited else {
        child.kill().unwrap();
        child.wait().unwrap();
        panic!("fill-sweep went on filling after SIGTERM: {seen}");
    };
    assert_eq!(st.code(), Some(130), "{seen}");
    let s = summary(out.path());
    assert_eq!(s["interrupted"], true, "{s}");
    assert!(out.path().join("report.md").is_file());
}

/// A first burst whose cache ran out inside its first 30 s sample said "first burst: no
/// cliff: the cache is at least 16.2 GB" and warned that "the cache was not emptied", where
/// `analyze` of its own CSV said a drop inside the first sample, a cache of 16.2 GB to 35.6
/// GB. Both now say the drop and its bounds, and the warning says the cache ran out too early
/// to time at this interval, with a shorter --interval to try.
pub fn a_first_burst_with_its_drop_inside_the_first_sample_says_so() {
    let out = out_dir();
    let o = slccache()
        .args([
            "recovery",
            "--simulate",
            "970evo-500g",
            "--idle",
            "5s,30s,2m",
            "--interval",
            "30s",
            "--no-record",
            "--seed",
            "1",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let s = summary(out.path());
    let b = &s["recovery"]["first_burst"];
    assert_eq!(b["method"], "first_sample_drop", "{b}");
    // The bounds analyze gives of the same CSV.
    let again = out_dir();
    let csv = out.path().join("bursts/00-first.csv");
    let o = slccache()
        .args(["analyze", "--no-record", "--json", "--out"])
        .arg(again.path())
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &a["unconfirmed_drop"];
    assert_eq!(d["at"], "first_sample", "{a}");
    // The CSV keeps the burst's figures to the byte, give or take its rounding.
    let same = |x: f64, y: f64| (x - y).abs() <= 1e-6 * y;
    assert!(same(num(b, "low_bytes"), num(d, "bytes_low")), "{b} {d}");
    assert!(same(num(b, "high_bytes"), num(d, "bytes_high")), "{b} {d}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("first burst:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("a drop inside the first sample")
            && line.contains("16.2 GB to 35.6 GB")
            // What analyze of the burst's CSV says a drop inside the first sample cannot
            // rule out, said here too.
            && line.contains("less if a faster first tier also ran out inside that sample")
            && !line.contains("at least"),
        "{line}"
    );
    let warnings: Vec<&str> = s["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        warnings.iter().all(|w| !w.contains("not emptied"))
            && warnings
                .iter()
                .any(|w| w.contains("too early") && w.contains("shorter --interval")),
        "{warnings:?}"
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("shorter --interval") && !md.contains("not emptied"),
        "{md}"
    );
    // The step table gave "cache recovered 16.2 GB", a size, where every other output gives
    // the drop's bounds: it gives them too.
    let row = md
        .lines()
        .find(|l| l.starts_with("| 0 | (first burst) |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        row.contains(
            "| 16.2 GB to 35.6 GB (unconfirmed: a drop inside the first sample), or less if a \
             faster first tier ran out inside it |"
        ),
        "{row}"
    );
    // The bursts chart's subtitle gave "SLC cache found  ·  first burst: 16.2 GB", a size
    // found: it gives the bounds too, unconfirmed.
    let svg = std::fs::read_to_string(out.path().join("recovery-bursts.svg")).unwrap();
    assert!(
        svg.contains("first burst: 16.2 GB to 35.6 GB (unconfirmed), or less")
            && !svg.contains("SLC cache found"),
        "{}",
        svg.lines()
            .filter(|l| l.contains("first burst"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
