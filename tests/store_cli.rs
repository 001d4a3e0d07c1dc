//! The results library through the binary on SQLite: the user's scenario, recording at the
//! end of a run (also interrupted), and bad stores that leave the run's outputs and exit code
//! as they were. (tests/store_postgres.rs runs the scenario on PostgreSQL.)

mod store_util;

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

#[test]
fn probe_import_list_compare_export_on_sqlite() {
    let d = tempfile::tempdir().unwrap();
    store_util::user_scenario(d.path().join("lib/results.db").to_str().unwrap());
}

/// Runs `simulate` recording into `db`; returns (exit code, stderr), and checks that the run's
/// own files were written whatever happened to the store.
fn simulate_into(db: &str, out: &Path) -> (Option<i32>, String) {
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_DB", db)
        .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
        .arg(out)
        .output()
        .unwrap();
    for f in [
        "summary.json",
        "timeline.csv",
        "report.html",
        "throughput-time.png",
    ] {
        assert!(out.join(f).is_file(), "{f} missing in {}", out.display());
    }
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Bad stores: a warning naming the cause, the outputs written, exit code 0, and the bad
/// store left as it was.
#[test]
fn a_bad_store_warns_and_keeps_the_run() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let warn = "warning: the run was not recorded in the results store";

    let text = w.join("notes.txt");
    std::fs::write(&text, "hello\n".repeat(100)).unwrap();
    let (code, err) = simulate_into(text.to_str().unwrap(), &w.join("a"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(warn) && err.contains("not an SQLite database"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&text).unwrap(),
        "hello\n".repeat(100)
    );

    // A store from a newer slccache (its version written by hand).
    let newer = w.join("newer.db");
    let (code, err) = simulate_into(newer.to_str().unwrap(), &w.join("b"));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("recorded as run 1"), "{err}");
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("UPDATE slccache_schema SET version = 7")
        .unwrap();
    let (code, err) = simulate_into(newer.to_str().unwrap(), &w.join("c"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(warn) && err.contains("schema version 7"),
        "{err}"
    );
    let n: i64 = rusqlite::Connection::open(&newer)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);

    // A store that cannot be created (its folder would be under a regular file).
    let (code, err) = simulate_into(text.join("x/results.db").to_str().unwrap(), &w.join("d"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(warn) && err.contains("cannot create the folder"),
        "{err}"
    );

    // A PostgreSQL server that is not there (nothing listens on the port).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://u@127.0.0.1:{port}/db");
    let (code, err) = simulate_into(&url, &w.join("e"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(warn) && err.contains("cannot connect"),
        "{err}"
    );
}

/// A read-only folder: run as an unprivileged user (root ignores permissions), the store in a
/// folder that user cannot write.
#[test]
fn a_read_only_folder_warns_and_keeps_the_run() {
    if !rustix::process::geteuid().is_root() {
        let d = tempfile::tempdir().unwrap();
        let ro = d.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        let mut p = std::fs::metadata(&ro).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut p, 0o555);
        std::fs::set_permissions(&ro, p).unwrap();
        let (code, err) = simulate_into(ro.join("r.db").to_str().unwrap(), &d.path().join("o"));
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("cannot open or create"), "{err}");
        return;
    }
    // As root: the binary runs as `nobody` in a world-writable folder for its outputs, the
    // store in a root-owned folder with mode 0555.
    let d = tempfile::tempdir().unwrap();
    let base = d.path();
    std::fs::set_permissions(base, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let ro = base.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::os::unix::fs::PermissionsExt::from_mode(0o555)).unwrap();
    let out = base.join("out");
    let bin = assert_cmd::cargo::cargo_bin("slccache");
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&bin)
        .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
        .arg(&out)
        .env("SLCCACHE_DB", ro.join("r.db"))
        .current_dir(base)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.join("summary.json").is_file(), "{err}");
    assert!(
        err.contains("not recorded") && err.contains("cannot open or create"),
        "{err}"
    );
    assert!(!ro.join("r.db").exists());
}

/// Ctrl-C: the run stops, writes its outputs, exits 130, and is recorded marked interrupted.
#[test]
fn an_interrupted_probe_is_recorded_as_interrupted() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    let out = d.path().join("p");
    let mut child = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_DB", &db)
        .args([
            "probe",
            "emu:960evo-250g",
            "--no-early-stop",
            "--duration",
            "10m",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for a few rows of the timeline (bounded by the run's own --duration).
    loop {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let rows = std::fs::read_to_string(out.join("timeline.csv"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if rows >= 3 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the probe ended early");
    }
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let runs = store_util::runs_json(db.to_str().unwrap());
    assert_eq!(runs.len(), 1, "{err}");
    assert_eq!(runs[0]["interrupted"], true);
    assert_eq!(runs[0]["kind"], "probe");
}
