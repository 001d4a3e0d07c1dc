//! Data and results that could be lost. Each test failed before its fix.

use crate::common::fault_util;

use std::path::Path;
use std::process::{Command, Stdio};

use fault_util::*;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slccache"))
}

fn run(args: &[&str]) -> std::process::Output {
    bin().args(args).output().unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

// An existing --out folder is no longer written over without a word.
pub fn an_out_folder_with_files_is_refused_and_kept() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("rerun");
    let o = run(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(out.join("timeline.csv")).unwrap();
    // probe of an emulated drive into the same folder: refused, nothing touched.
    let o = run(&[
        "probe",
        "emu:960evo-250g",
        "--duration",
        "1s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("already holds 11 file(s)")
            && e.contains("summary.json")
            && e.contains("--force"),
        "{e}"
    );
    assert_eq!(std::fs::read(out.join("timeline.csv")).unwrap(), before);

    // analyze of a plain CSV into a user's own folder: their report.md is kept.
    let user = d.path().join("userdir");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("report.md"), "my notes\n").unwrap();
    let csv = d.path().join("plain.csv");
    let mut text = String::from("s,MB/s\n");
    for i in 1..=60 {
        text.push_str(&format!("{i},{}\n", if i < 30 { 1500 } else { 500 }));
    }
    std::fs::write(&csv, text).unwrap();
    let o = run(&[
        "analyze",
        csv.to_str().unwrap(),
        "--out",
        user.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(user.join("report.md")).unwrap(),
        "my notes\n"
    );
    assert!(!user.join("summary.json").exists());

    // --force says to write over it; a run's own folder may be analysed again in place.
    let o = run(&[
        "analyze",
        csv.to_str().unwrap(),
        "--out",
        user.to_str().unwrap(),
        "--force",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[
        "analyze",
        out.join("timeline.csv").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

// Default folder names were unique only to the second.
pub fn default_folders_of_runs_in_the_same_second_differ() {
    let d = tempfile::tempdir().unwrap();
    let mut children: Vec<_> = (1..=3)
        .map(|seed| {
            bin()
                .current_dir(d.path())
                .args(["simulate", "960evo-250g", "--seed", &seed.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children.iter_mut() {
        assert!(c.wait().unwrap().success());
    }
    let dirs: Vec<_> = std::fs::read_dir(d.path().join("output"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    let mut seeds: Vec<u64> = dirs
        .iter()
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p.join("summary.json")).unwrap())
                    .unwrap();
            v["config"]["workload"]["seed"]
                .as_u64()
                .or_else(|| v["run"]["workload"]["seed"].as_u64())
                .unwrap_or_else(|| panic!("no seed in {}", p.display()))
        })
        .collect();
    seeds.sort();
    assert_eq!(seeds, [1, 2, 3]);
}

// Sweep checked its output folder only after the whole grid ran.
pub fn sweep_refuses_a_bad_out_before_the_first_point() {
    let d = tempfile::tempdir().unwrap();
    let precious = d.path().join("precious.txt");
    std::fs::write(&precious, "x").unwrap();
    let target = d.path().join("scratch.bin");
    let o = run(&[
        "sweep",
        target.to_str().unwrap(),
        "--size",
        "16MiB",
        "--qd",
        "1",
        "--jobs",
        "1",
        "--point-duration",
        "1s",
        "--out",
        precious.join("sub").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        !target.exists(),
        "the target was created (written) before the output folder was checked"
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "x");
}

/// Runs `args` with stderr a pipe whose reading end is already closed.
fn with_closed_stderr(args: &[&str]) -> std::process::ExitStatus {
    let mut c = bin()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(c.stderr.take());
    c.wait().unwrap()
}

// Sweep, recovery and fill-sweep panicked (exit 101) on a closed stderr.
pub fn a_closed_stderr_does_not_stop_the_experiments() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<&str>, &str); 3] = [
        (
            "sweep",
            vec![
                "sweep",
                "emu:960evo-500g",
                "--simulate",
                "--qd",
                "1,4",
                "--jobs",
                "1",
            ],
            "sweep.csv",
        ),
        (
            "recovery",
            vec!["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"],
            "recovery.csv",
        ),
        (
            "fill",
            vec![
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
            ],
            "fill-sweep.csv",
        ),
    ];
    for (name, mut args, file) in cases {
        let out = d.path().join(name);
        args.extend(["--out", out.to_str().unwrap()]);
        let st = with_closed_stderr(&args);
        assert_eq!(st.code(), Some(0), "{name}: {st:?}");
        for f in [file, "summary.json", "report.md"] {
            assert!(out.join(f).is_file(), "{name}: {f} missing");
        }
    }
}

// --duration dropped the one-pass limit, and "1M" was a month.
pub fn a_duration_keeps_the_one_pass_limit_and_m_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("sim");
    // 4 hours at up to 1.4 GB/s would write far more than the 250 GB drive.
    let o = run(&[
        "simulate",
        "960evo-250g",
        "--duration",
        "4h",
        "--no-early-stop",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let bytes = v["totals"]["bytes"].as_u64().unwrap();
    assert!(
        bytes <= 250_059_350_016,
        "wrote {bytes} bytes: more than one pass over the drive"
    );
    let o = run(&[
        "simulate",
        "960evo-500g",
        "--duration",
        "1M",
        "--no-early-stop",
        "--out",
        d.path().join("m").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("1min"), "{}", stderr(&o));
}

fn png_is_whole(p: &Path) -> bool {
    let Ok(f) = std::fs::File::open(p) else {
        return false;
    };
    let dec = png::Decoder::new(std::io::BufReader::new(f));
    match dec.read_info() {
        Ok(mut r) => {
            let mut buf = vec![0; r.output_buffer_size()];
            r.next_frame(&mut buf).is_ok()
        }
        Err(_) => false,
    }
}

// A full output disk left truncated files and printed "outputs: DIR".
pub fn a_full_output_disk_leaves_no_truncated_file() {
    let test = "a_full_output_disk_leaves_no_truncated_file";
    if !may_run(test) {
        return;
    }
    // Room for the timeline and the first outputs, not for all of them.
    let fs = Tmpfs::new("600k");
    let out = fs.path().join("run");
    let o = run(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("complete there") || e.contains("no report, chart or summary there is complete"),
        "{e}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("outputs:"), "{stdout}");
    for entry in std::fs::read_dir(&out).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "a temporary file was left: {name}");
        if name.ends_with(".png") {
            assert!(png_is_whole(&p), "{name} is truncated");
        }
        if name.ends_with(".html") || name.ends_with(".svg") {
            let t = std::fs::read_to_string(&p).unwrap();
            assert!(t.trim_end().ends_with('>'), "{name} is truncated");
        }
        if name == "summary.json" {
            let t = std::fs::read_to_string(&p).unwrap();
            assert!(serde_json::from_str::<serde_json::Value>(&t).is_ok());
        }
    }
}

/// A disk full before the first row left an empty timeline.csv behind ("cannot write
/// .../timeline.csv", exit 1), which a later analyze or import would meet as a broken run.
pub fn a_disk_full_before_the_header_leaves_no_empty_timeline() {
    let test = "a_disk_full_before_the_header_leaves_no_empty_timeline";
    if !may_run(test) {
        return;
    }
    let fs = Tmpfs::new("64k");
    // Fill it: every page taken, so the header's first write fails.
    let _ = std::fs::write(fs.path().join("fill"), vec![0u8; 1 << 20]);
    let out = fs.path().join("run");
    let o = run(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("timeline.csv"), "{e}");
    assert!(
        !out.join("timeline.csv").exists(),
        "an empty timeline.csv was left: {e}"
    );
}

// A file that backs a loop device (or is an active swap file) was written.
pub fn a_file_that_backs_a_loop_device_is_refused() {
    let test = "a_file_that_backs_a_loop_device_is_refused";
    if !may_run(test) {
        return;
    }
    let d = scratch("defects-loopfile-");
    let img = d.path().join("loop.img");
    std::fs::write(&img, vec![7u8; 8 << 20]).unwrap();
    let lo = LoopDev::attach(&img, false);
    let o = run(&[
        "probe",
        img.to_str().unwrap(),
        "--overwrite",
        "--duration",
        "1s",
        "--quiet",
        "--out",
        d.path().join("o").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("backs the loop device") && e.contains(lo.name()),
        "{e}"
    );
    assert!(std::fs::read(&img).unwrap().iter().all(|&b| b == 7));
    drop(lo);
}

pub fn an_active_swap_file_is_refused_up_front() {
    let test = "an_active_swap_file_is_refused_up_front";
    if !may_run(test) {
        return;
    }
    let d = scratch("defects-swapfile-");
    let sw = d.path().join("swap.img");
    std::fs::write(&sw, vec![0u8; 8 << 20]).unwrap();
    let _ = Command::new("chmod").arg("600").arg(&sw).status();
    let ok = Command::new("mkswap")
        .arg("-q")
        .arg(&sw)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("swapon")
            .args(["-p", "-2"])
            .arg(&sw)
            .status()
            .is_ok_and(|s| s.success());
    if !ok {
        assert!(!ci(), "{test}: CI=true but swapon of a file failed");
        crate::common::skip("swapon of a file is not allowed here");
        return;
    }
    struct SwapOff(std::path::PathBuf);
    impl Drop for SwapOff {
        fn drop(&mut self) {
            let _ = Command::new("swapoff").arg(&self.0).status();
        }
    }
    let _guard = SwapOff(sw.clone());
    let o = run(&[
        "probe",
        sw.to_str().unwrap(),
        "--overwrite",
        "--duration",
        "1s",
        "--quiet",
        "--out",
        d.path().join("o").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("active swap file"), "{e}");
}

// --size beyond the free space was accepted, and tmpfs was not named.
pub fn a_size_beyond_the_free_space_is_refused_and_tmpfs_is_named() {
    let test = "a_size_beyond_the_free_space_is_refused_and_tmpfs_is_named";
    if !may_run(test) {
        return;
    }
    let fs = Tmpfs::new("8M");
    let f = fs.path().join("scratch.bin");
    let out = scratch("defects-free-");
    let o = run(&[
        "probe",
        f.to_str().unwrap(),
        "--size",
        "5TB",
        "--duration",
        "1s",
        "--quiet",
        "--out",
        out.path().join("a").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("free space"), "{e}");
    assert!(!f.exists());
    let o = run(&[
        "probe",
        f.to_str().unwrap(),
        "--size",
        "4MiB",
        "--duration",
        "1s",
        "--quiet",
        "--out",
        out.path().join("b").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("is on tmpfs"), "{e}");
}

// A sweep interrupted in the middle of a point no longer passes the
// half-finished point off as a full one: it is left out of sweep.csv, the tables and the
// saturation, and kept apart in summary.json with the seconds it ran.
pub fn an_interrupted_sweep_leaves_the_unfinished_point_out() {
    use std::io::BufRead;
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("sw");
    // Real time on an emulated drive: three points of 4 s; the signal comes once the first
    // has printed its line, so inside the second.
    let child = bin()
        .args(["sweep", "emu:960evo-500g", "--qd", "1,2,4", "--jobs", "1"])
        .args([
            "--point-duration",
            "4s",
            "--seed",
            "1",
            "--no-record",
            "--out",
        ])
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(Some(child));
    let err = child.0.as_mut().unwrap().stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(err).lines();
    let mut seen = Vec::new();
    for l in lines.by_ref() {
        let l = l.unwrap();
        seen.push(l.clone());
        if l.starts_with("[1/3]") {
            break;
        }
    }
    assert!(
        seen.iter().any(|l| l.starts_with("[1/3]")),
        "the first point never finished: {seen:?}"
    );
    // Well inside the second point (4 s long), not in the gap before it starts.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    signal(child.pid(), libc::SIGINT);
    let rest: Vec<String> = lines.map_while(|l| l.ok()).collect();
    let o = child.wait();
    assert_eq!(o.status.code(), Some(130), "{rest:?}");
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "only the finished point:\n{csv}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["sweep"]["points"].as_array().unwrap().len(), 1);
    let u = &s["sweep"]["unfinished_point"];
    assert_eq!(u["index"], 2, "{s}");
    assert!(u["ran_s"].as_f64().unwrap() < u["planned_s"].as_f64().unwrap());
    // One finished point saturates nothing.
    assert!(s["sweep"]["saturation"].is_null(), "{s}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("**Interrupted**"), "{md}");
    assert!(!md.contains("Saturation: QD"), "{md}");
    assert!(rest.iter().any(|l| l.contains("left out")), "{rest:?}");
}

// The model's truth sits under one key, `model_truth`, in the summary.json
// of every command (before: `config.model_truth` in probe, `config.truth` in simulate, `truth`
// in recovery, fill-sweep and sweep), and report.html shows it.
pub fn the_model_truth_has_one_key_in_every_summary() {
    let d = tempfile::tempdir().unwrap();
    let runs: [(&str, Vec<&str>, &str); 5] = [
        (
            "probe",
            vec!["probe", "emu:960evo-250g", "--duration", "1s"],
            "cache",
        ),
        ("simulate", vec!["simulate", "960evo-250g"], "cache"),
        (
            "recovery",
            vec!["recovery", "960evo-250g", "--simulate", "--idle", "30s"],
            "recovery",
        ),
        (
            "fill-sweep",
            vec![
                "fill-sweep",
                "960evo-250g",
                "--simulate",
                "--levels",
                "0,50",
            ],
            "recovery",
        ),
        (
            "sweep",
            vec![
                "sweep",
                "960evo-250g",
                "--simulate",
                "--qd",
                "1,4",
                "--jobs",
                "1",
            ],
            "sweep",
        ),
    ];
    for (name, args, part) in runs {
        let out = d.path().join(name);
        let o = bin()
            .args(&args)
            .args(["--seed", "1", "--no-record", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert!(s["model_truth"][part].is_object(), "{name}: {s}");
        assert!(s.get("truth").is_none(), "{name}");
        assert!(s["config"].get("truth").is_none(), "{name}");
        assert!(s["config"].get("model_truth").is_none(), "{name}");
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(html.contains("<h2>Model truth</h2>"), "{name}");
    }
}

// The keys older versions wrote are still read where a summary is read back.
pub fn the_model_truth_of_older_summaries_is_still_read() {
    use serde_json::json;
    use slccache::report::model_truth_of;
    let t = json!({"cache_bytes": 5});
    assert_eq!(
        model_truth_of(&json!({"config": {"model_truth": t}})),
        Some(json!({"cache": t}))
    );
    assert_eq!(
        model_truth_of(&json!({"config": {"truth": t}})),
        Some(json!({"cache": t}))
    );
    let r = json!({"recover_bytes_per_sec": 3e8});
    assert_eq!(
        model_truth_of(&json!({"truth": r})),
        Some(json!({"recovery": r}))
    );
    let w = json!({"iops_limit": 3e5});
    assert_eq!(
        model_truth_of(&json!({"truth": w})),
        Some(json!({"sweep": w}))
    );
    let now = json!({"cache": t});
    assert_eq!(model_truth_of(&json!({"model_truth": now})), Some(now));
    assert_eq!(model_truth_of(&json!({"config": {}})), None);
}
