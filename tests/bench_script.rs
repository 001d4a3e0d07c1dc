//! `scripts/bench-vs-fio.sh` refuses an `OUT` folder that already holds an earlier run.
//!
//! Regression: re-run with the `OUT` of an interrupted run, the script went on; slccache
//! refused to write into the rounds' folders that held files, and the table read the old
//! run's `summary.json` for those rounds (identical figures, to the digit, in the new table).

use std::process::Command;

#[test]
fn the_fio_bench_refuses_a_folder_that_holds_an_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("loop/qd1/round-1/slccache")).unwrap();
    std::fs::write(out.join("runs.csv"), "the earlier run\n").unwrap();
    // A stand-in fio, so that the script never installs one; and a target the script does
    // not know, so that a script that goes on stops at once instead of benchmarking.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fio = bin.join("fio");
    std::fs::write(&fio, "#!/bin/sh\nexit 0\n").unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&fio)
        .status()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/bench-vs-fio.sh"
        ))
        .env("OUT", &out)
        .env("PATH", path)
        .env("SLCCACHE", "/bin/true")
        .env("TARGETS", "no-such-target")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("already holds results"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("runs.csv")).unwrap(),
        "the earlier run\n",
        "the earlier run's table is kept"
    );
}
