//! The results library through the binary on SQLite: the user's scenario, recording at the
//! end of a run (also interrupted), and bad stores that leave the run's outputs and exit code
//! as they were. (tests/store_postgres.rs runs the scenario on PostgreSQL.)

use crate::common::store_util;

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

pub fn probe_import_list_compare_export_on_sqlite() {
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

/// A run longer than the samples a run keeps (merged in its analysis and charts) is exported
/// with the charts it drew: drawn again from its stored timeline kept as the run kept it.
/// They used to be drawn from every stored sample: other charts, and memory that grew with
/// the run (a 12-hour run at 10 ms took 450 MB to export).
pub fn a_merged_run_is_exported_with_the_charts_it_drew() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("results.db");
    let out = d.path().join("run");
    // 64 samples kept: a run of 600 is merged by 16.
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_MAX_KEPT", "64")
        .args(["simulate", "960evo-250g", "--seed", "1", "--no-early-stop"])
        .args(["--duration", "600s", "--max-bytes", "10PB", "--db"])
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"merged_by\": 16"),
        "not merged: {summary}"
    );
    let back = d.path().join("back");
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_MAX_KEPT", "64")
        .args(["runs", "export", "1", "--db"])
        .arg(&db)
        .arg("--out")
        .arg(&back)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "throughput-time.svg",
        "throughput-data.svg",
        "report.md",
        "report.html",
    ] {
        let a = std::fs::read(out.join(f)).unwrap();
        let b = std::fs::read(back.join(f)).unwrap();
        assert!(a == b, "{f} differs after export");
    }
}

/// Bad stores: a warning naming the cause, the outputs written, exit code 0, and the bad
/// store left as it was.
pub fn a_bad_store_warns_and_keeps_the_run() {
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
pub fn a_read_only_folder_warns_and_keeps_the_run() {
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
pub fn an_interrupted_probe_is_recorded_as_interrupted() {
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
    // The library page marks it too, as `runs` and `history` do (it said only "probe").
    let lib = d.path().join("lib");
    store_util::ok(store_util::slccache(&db).args(["runs", "--html"]).arg(&lib));
    let page = std::fs::read_to_string(lib.join("index.html")).unwrap();
    assert!(page.contains("probe (interrupted)"), "{page}");
}

/// `history SERIAL`: three runs of one drive, a month apart, with SMART data written; the
/// charts against date and wear are written, and their points are the runs'.
pub fn history_charts_a_drive_against_date_and_wear() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let sim = w.join("sim");
    store_util::simulate_folder(&sim, "960evo-250g", 3);
    let text = std::fs::read_to_string(sim.join("summary.json")).unwrap();
    let mut dirs = Vec::new();
    for (i, (date, units, used, cache)) in [
        ("2026-01-01T00:00:00Z", 1_000_000u64, 1u64, 13e9),
        ("2026-02-01T00:00:00Z", 3_000_000, 3, 12e9),
        ("2026-03-02T00:00:00Z", 9_000_000, 7, 10e9),
    ]
    .iter()
    .enumerate()
    {
        let t = w.join(format!("run-{i}"));
        std::fs::create_dir(&t).unwrap();
        std::fs::copy(sim.join("timeline.csv"), t.join("timeline.csv")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        // A probe of a real drive: a simulated one is new on each run, its counters too.
        v["config"]["command"] = "probe".into();
        v["run"]["device"]["path"] = "/dev/nvme0n1".into();
        v["run"]["device"]["serial"] = "H1".into();
        v["run"]["device"]["model"] = "Samsung SSD 960 EVO 250GB".into();
        v["run"]["started_at"] = (*date).into();
        v["analysis"]["cache_estimate"] = serde_json::json!({"bytes": *cache as u64, "low_bytes": (*cache * 0.98) as u64, "high_bytes": (*cache * 1.01) as u64});
        // The findings were worked out from the analysis before this edit: a summary of an
        // older slccache, which has none, stands for the edited one.
        v.as_object_mut().unwrap().remove("findings");
        v["drive_state"] = serde_json::json!({"smart_end": {"data_units_written": units, "percentage_used": used}});
        std::fs::write(t.join("summary.json"), v.to_string()).unwrap();
        dirs.push(t);
    }
    let mut c = Command::cargo_bin("slccache").unwrap();
    store_util::ok(c.arg("--db").arg(&db).args(["runs", "import"]).args(&dirs));
    let out = w.join("hist");
    let mut c = Command::cargo_bin("slccache").unwrap();
    store_util::ok(
        c.arg("--db")
            .arg(&db)
            .args(["history", "H1", "--out"])
            .arg(&out),
    );
    // History used its own folder rule (an --out with files in it was
    // written over, default names with '_'); it now claims its folder as every subcommand does.
    let mut c = Command::cargo_bin("slccache").unwrap();
    let again = c
        .arg("--db")
        .arg(&db)
        .args(["history", "H1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(2),
        "an --out with files is refused"
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    for f in [
        "history-cache-date.png",
        "history-cache-date.svg",
        "history-after-cache-date.png",
        "history-cache-wear.svg",
        "report.html",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // The points behind the charts.
    let mut s = slccache::store::Store::open(&slccache::store::Location::Sqlite(db)).unwrap();
    let rows = s
        .list(&slccache::store::Filter {
            serial: Some("H1".into()),
            ..Default::default()
        })
        .unwrap();
    let (first, pts) = slccache::commands::history::points(&rows);
    assert_eq!(first, "2026-01-01");
    let days: Vec<f64> = pts.iter().map(|p| p.days).collect();
    assert_eq!(days, [0.0, 31.0, 60.0]);
    assert_eq!(pts[2].drive_written_bytes, Some(9e6 * 512_000.0));
    assert_eq!(pts[1].cache.map(|c| c.0), Some(12e9));
    let specs = slccache::report::charts::history::history_charts(
        "d",
        &first,
        &pts,
        &slccache::report::ReportOptions::default(),
    );
    assert_eq!(specs.len(), 3);
    // A line through the runs and, per run, an interval (3 strokes) and a diamond.
    for s in &specs {
        assert_eq!(s.series.len(), 1 + 4 * 3, "{:?}", s.kind);
    }
    // Days from a UTC midnight a margin before the first run, so that none sits on the edge.
    let line = &specs[0].series[0].points;
    let off = line[0].0;
    assert!(off >= 3.0 && off.fract() == 0.0, "{line:?}");
    let from_first: Vec<(f64, f64)> = line.iter().map(|p| (p.0 - off, p.1)).collect();
    assert_eq!(from_first, [(0.0, 13.0), (31.0, 12.0), (60.0, 10.0)]);
    assert!(
        specs[0].x.label.starts_with("days since 2025-12-"),
        "{}",
        specs[0].x.label
    );
    let wear = &specs[2].series[0].points;
    assert_eq!(wear[0].0, 0.512);
    assert!(specs[2].footer.iter().any(|f| f.contains("7% used")));
    // An unknown drive is a usage error.
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .arg("--db")
        .arg(w.join("r.db"))
        .args(["history", "NOPE"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// A mistyped store URL (another scheme, or anything with `://`) is refused with exit 2 before
/// the run: no folder, no file named after it, no password echoed.
pub fn a_mistyped_store_url_is_refused_and_creates_nothing() {
    for bad in [
        "",
        "postgress://lab:Pw0rdX@host/db",
        "mysql://lab:Pw0rdX@host/db",
        "sqlite://results.db",
        "postgres:lab:Pw0rdX@host/db",
        "postgres//lab:Pw0rdX@127.0.0.1:5432/slccache",
        "PostgreSQL;//lab:Pw0rdX@127.0.0.1:5432/slccache",
        "lab:Pw0rdX@127.0.0.1:5432/slccache",
        // PostgreSQL strings that could never connect: refused before the run, not after.
        "postgres://lab:Pw0rdX@127.0.0.1:notaport/slccache",
        "postgres://lab:Pw0rdX@127.0.0.1:5432/slccache?foo=bar",
        "postgres://lab:Pw0rdX@127.0.0.1:5432/slccache?sslmode=bogus",
        "host=127.0.0.1 port=abc user=lab password=Pw0rdX",
    ] {
        let d = tempfile::tempdir().unwrap();
        for (via_env, args) in [
            (false, vec!["simulate", "960evo-250g", "--out", "run"]),
            (true, vec!["simulate", "960evo-250g", "--out", "run"]),
            (false, vec!["runs"]),
        ] {
            // An empty SLCCACHE_DB is as good as none (the default store); an empty --db
            // is a mistake.
            if via_env && bad.is_empty() {
                continue;
            }
            let mut c = Command::cargo_bin("slccache").unwrap();
            if via_env {
                c.env("SLCCACHE_DB", bad);
            } else {
                c.args(["--db", bad]);
            }
            let o = c.args(&args).current_dir(d.path()).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{bad} {args:?}: {err}");
            assert!(err.contains("--db"), "{err}");
            assert!(!err.contains("Pw0rdX"), "{err}");
            let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
            assert!(left.is_empty(), "{bad} {args:?} left {left:?}");
        }
    }
}

/// Commands that only read never create a store: they say the path holds none (exit 2).
pub fn reading_commands_never_create_a_store() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("typo.db");
    for args in [
        vec!["runs"],
        vec!["runs", "--json"],
        vec!["runs", "show", "1"],
        vec!["runs", "export", "1", "--out", "x"],
        vec!["runs", "rm", "1"],
        vec!["history", "960"],
        vec!["compare", "1", "2"],
    ] {
        let o = Command::cargo_bin("slccache")
            .unwrap()
            .arg("--db")
            .arg(&db)
            .args(&args)
            .current_dir(d.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no results store at"), "{args:?}: {err}");
        assert!(!db.exists(), "{args:?} created the store");
    }
    // A path to something that is not a store (a text file, an empty file, a folder) is bad
    // input too: it exited 1 ("not an SQLite database"). The file is left as it was.
    let junk = d.path().join("junk.db");
    std::fs::write(&junk, "not a store at all\n").unwrap();
    let empty = d.path().join("empty.db");
    std::fs::write(&empty, "").unwrap();
    let folder = d.path().join("folder.db");
    std::fs::create_dir(&folder).unwrap();
    for (path, says) in [
        (&junk, "not an SQLite database"),
        (&empty, "an empty file"),
        (&folder, "not a regular file"),
    ] {
        for args in [
            vec!["runs"],
            vec!["runs", "rm", "1"],
            vec!["history", "960"],
        ] {
            let o = Command::cargo_bin("slccache")
                .unwrap()
                .arg("--db")
                .arg(path)
                .args(&args)
                .current_dir(d.path())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{path:?} {args:?}: {err}");
            assert!(err.contains(says), "{path:?} {args:?}: {err}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(&junk).unwrap(),
        "not a store at all\n"
    );
}

/// A run that cannot be recorded waits in the spool; --require-record (or
/// SLCCACHE_REQUIRE_RECORD=1) makes it exit 1 with its files written; `runs import --pending`
/// records it once, with its own host and folder, and empties the spool. `--json` carries the
/// run's id, also with -q, and the recorded line survives -q.
pub fn unrecorded_runs_are_spooled_and_imported_later() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let spool = w.join("spool");
    let bad = w.join("notes.txt");
    std::fs::write(&bad, "not a database\n").unwrap();
    let good = w.join("good.db");
    let sim = |db: &Path, out: &str, extra: &[&str], env: &[(&str, &str)]| {
        let (global, after): (Vec<&str>, Vec<&str>) = extra
            .iter()
            .partition(|a| a.starts_with("--require") || a.starts_with("--no-record"));
        let o = Command::cargo_bin("slccache")
            .unwrap()
            .env("SLCCACHE_SPOOL", &spool)
            .envs(env.iter().copied())
            .arg("--db")
            .arg(db)
            .args(&global)
            .args(["simulate", "960evo-250g", "--seed", "5", "--out"])
            .arg(w.join(out))
            .args(&after)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, _, err) = sim(&bad, "a", &[], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("runs import --pending"), "{err}");
    let (code, _, err) = sim(&bad, "b", &["--require-record"], &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(w.join("b/summary.json").is_file());
    let (code, _, err) = sim(&bad, "c", &[], &[("SLCCACHE_REQUIRE_RECORD", "1")]);
    assert_eq!(code, Some(1), "{err}");
    let waiting = std::fs::read_dir(&spool).unwrap().count();
    assert_eq!(waiting, 3);

    let import = || {
        Command::cargo_bin("slccache")
            .unwrap()
            .env("SLCCACHE_SPOOL", &spool)
            .arg("--db")
            .arg(&good)
            .args(["runs", "import", "--pending"])
            .output()
            .unwrap()
    };
    // A copy of one spooled run, to bring back after the import: once each.
    let first = {
        let mut v: Vec<_> = std::fs::read_dir(&spool)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v.remove(0)
    };
    let keep = w.join("keep");
    assert!(Command::new("cp")
        .arg("-a")
        .arg(&first)
        .arg(&keep)
        .status()
        .unwrap()
        .success());
    let o = import();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (i, run) in ["a", "b", "c"].iter().enumerate() {
        assert!(
            out.contains(&format!("/{run}: recorded as run {}", i + 1)),
            "{out}"
        );
    }
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
    let rows = store_util::runs_json(good.to_str().unwrap());
    assert_eq!(rows.len(), 3);
    let src = rows[0]["source_dir"].as_str().unwrap();
    assert!(
        src.ends_with("/a") && !src.contains("spool"),
        "source_dir {src}"
    );
    assert!(rows[0]["host"].as_str().is_some_and(|h| !h.is_empty()));
    let o = import();
    assert!(String::from_utf8_lossy(&o.stdout).contains("no runs wait"));
    std::fs::rename(&keep, &first).unwrap();
    let o = import();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("already in the store as run 1"), "{out}");
    assert_eq!(store_util::runs_json(good.to_str().unwrap()).len(), 3);

    // --json with -q: the id on stdout, the recorded line on stderr.
    let (code, out, err) = sim(&good, "d", &["-q", "--json"], &[]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["run_id"], 4);
    assert!(err.contains("recorded as run 4"), "{err}");
    let (_, out, _) = sim(&good, "e", &["--json"], &[]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["run_id"].is_i64());
    let (_, out, _) = sim(&good, "f", &["--json", "--no-record"], &[]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["run_id"].is_null());
}

/// `runs --html DIR` wrote over any folder: a user's own index.html was replaced, and a run
/// folder got every listed run's folder exported into it (72 MB for a store of about 80
/// runs, a megabyte each). A folder that holds files and is not a library page is refused
/// (exit 2, one line naming it and --force, nothing written); an earlier page is written
/// again; --force writes into the folder and keeps its other files; the line printed says
/// how many run folders went beside the page, and their size.
pub fn runs_html_refuses_a_folder_that_is_not_its_own_without_force() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let run = w.join("run");
    store_util::ok(
        store_util::slccache(&db)
            .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
            .arg(&run),
    );
    let html = |dir: &Path, force: bool| {
        let mut c = store_util::slccache(&db);
        c.args(["runs", "--html"]).arg(dir);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let before = store_util::folder(&run);
    // A run folder: refused, untouched.
    let o = html(&run, false);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&run.display().to_string()) && err.contains("--force"),
        "{err}"
    );
    assert_eq!(store_util::folder(&run), before, "nothing written");
    // A user's own index.html: refused and kept; with --force replaced, the rest kept.
    let mine = w.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("index.html"), "<html>mine</html>").unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let o = html(&mine, false);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(mine.join("index.html")).unwrap(),
        "<html>mine</html>"
    );
    assert!(!mine.join("1").exists());
    let o = html(&mine, true);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(mine.join("index.html"))
        .unwrap()
        .contains("slccache results library"));
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(mine.join("1/report.html").is_file());
    // A new folder, then the same folder again (an earlier page): no --force needed.
    let lib = w.join("lib");
    let o = html(&lib, false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("(1 run; 1 run folder exported under")
            && (text.contains(" kB)") || text.contains(" MB)")),
        "{text}"
    );
    let o = html(&lib, false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("(1 run)"), "exported once: {text}");
}

/// The binary with `w` as its home and working folder and `spool` as its spool, no store
/// named by the environment: as a user on the bench runs it.
fn spooling(w: &std::path::Path, spool: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.env("SLCCACHE_SPOOL", spool)
        .env("HOME", w)
        .env_remove("XDG_DATA_HOME")
        .env_remove("SLCCACHE_DB")
        .current_dir(w);
    c
}

/// `runs import --pending` without --db (the default store) leaves a run that was meant for
/// another store in the spool, and says which store and the command that records it there;
/// named explicitly, the other store takes it.
pub fn pending_runs_wait_for_their_own_store() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let spool = w.join("spool");
    let lab = w.join("lab.db");
    // A store that cannot take the run now: a file that is not a database.
    std::fs::write(&lab, "not yet a database\n").unwrap();
    let bin = || spooling(w, &spool);
    let o = bin()
        .arg("--db")
        .arg(&lab)
        .args(["simulate", "960evo-250g", "--seed", "4", "--out", "run-a"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 1);
    // As a user types it on the bench, forgetting the store.
    let o = bin()
        .args(["runs", "import", "--pending"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("meant for ~/lab.db")
            && err.contains("slccache --db ~/lab.db runs import --pending"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 1);
    let default = w.join(".local/share/slccache/results.db");
    assert!(
        !default.exists(),
        "an import that recorded nothing created the default store"
    );
    let o = bin()
        .arg("--db")
        .arg(&default)
        .args(["runs", "--json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(
        !o.status.success() || listed.trim() == "[]",
        "the default store took it: {listed}"
    );
    // The store it was meant for, fixed and named, records it.
    std::fs::remove_file(&lab).unwrap();
    let o = bin()
        .arg("--db")
        .arg(&lab)
        .args(["runs", "import", "--pending"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("recorded as run 1"), "{out}");
    assert!(!out.contains("spooled for"), "{out}");
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
    // Another store named with --db takes a run spooled for this one, and says so (it did
    // without a word, as if the run were that store's own).
    std::fs::write(&lab, "not yet a database\n").unwrap();
    let o = bin()
        .arg("--db")
        .arg(&lab)
        .args(["simulate", "960evo-250g", "--seed", "5", "--out", "run-b"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(["--db", "other.db", "runs", "import", "--pending"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("recorded as run 1 in other.db (it was spooled for ~/lab.db, as --db asked)"),
        "{out}"
    );
}

/// A listing that matches nothing says whether the store is empty or the filters matched
/// nothing; counts read "1 run", not "1 runs".
pub fn an_empty_listing_says_why_and_counts_read_right() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    store_util::simulate_folder(&d.path().join("a"), "960evo-250g", 3);
    store_util::ok(
        store_util::slccache(&db)
            .args(["runs", "import"])
            .arg(d.path().join("a")),
    );
    let out = store_util::ok(store_util::slccache(&db).args(["runs", "--drive", "zzz"]));
    assert!(out.contains("matches the filters (1 run in all)"), "{out}");
    let out =
        store_util::ok(store_util::slccache(&db).args(["runs", "--by", "host", "--kind", "sweep"]));
    assert!(out.contains("matches the filters (1 run in all)"), "{out}");
    let out = store_util::ok(store_util::slccache(&db).args(["db", "migrate"]));
    assert!(out.contains("(1 run)"), "{out}");
    // `runs show ID --json`: one object, the row, the stored files and the summary.
    let out = store_util::ok(store_util::slccache(&db).args(["runs", "show", "1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["id"], 1);
    assert!(v["summary"]["analysis"].is_object(), "{out}");
    assert!(v["stored_files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "timeline.csv"));
}

/// `runs show` named the folder a run was recorded from as if it held that run, after another
/// run's outputs were written over it with `--force`, and after it was removed.
pub fn runs_show_says_when_the_folder_no_longer_holds_the_run() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    let out = d.path().join("run");
    let sim = |seed: &str, force: bool| {
        let mut c = store_util::slccache(&db);
        c.args(["simulate", "960evo-250g", "-q", "--seed", seed, "--out"])
            .arg(&out);
        if force {
            c.arg("--force");
        }
        store_util::ok(&mut c);
    };
    sim("1", false);
    let dir = out.display().to_string();
    let show = || store_util::ok(store_util::slccache(&db).args(["runs", "show", "1"]));
    let s = show();
    assert!(s.contains(&format!(" from {dir}\n")), "{s}");
    sim("2", true);
    let s = show();
    assert!(
        s.contains(&format!(
            " from {dir} (written over since: it holds another run's outputs;"
        )),
        "{s}"
    );
    // The second run's own folder is its own.
    let s = store_util::ok(store_util::slccache(&db).args(["runs", "show", "2"]));
    assert!(s.contains(&format!(" from {dir}\n")), "{s}");
    std::fs::remove_dir_all(&out).unwrap();
    let s = show();
    assert!(s.contains(&format!(" from {dir} (gone since;")), "{s}");
}

/// At 80 columns `runs show`'s table marks a size a hidden first tier could make a later
/// tier's with "‡ ... (runs show ID says how large)", under `runs show` itself, which said
/// nothing of how large. It gives the cache in the headline's words, bound and all.
pub fn runs_show_says_how_large_a_hidden_first_tier_could_be() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    store_util::ok(
        store_util::slccache(&db)
            .args(["simulate", "p5-1tb", "--interval", "30s", "-q", "--out"])
            .arg(d.path().join("run")),
    );
    let s = store_util::ok(
        store_util::slccache(&db)
            .env("COLUMNS", "80")
            .args(["runs", "show", "1"]),
    );
    assert!(s.contains("(runs show ID says how large)"), "{s}");
    let line = s
        .lines()
        .find(|l| l.starts_with("SLC cache "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains(", unless a faster first tier of up to ")
            && line.contains(" ran out inside the first 30.0 s sample"),
        "{line}"
    );
}

/// `slccache --db DB ARGS` in `cwd`: (exit code, stdout, stderr).
fn slc(db: &Path, args: &[&str], cwd: &Path) -> (Option<i32>, String, String) {
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .arg("--db")
        .arg(db)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A simulated run (`960evo-250g --seed 4`) in `w/run`, recorded into `db`; it must succeed.
/// Returns its stderr.
fn simulate_run_into(db: &Path, w: &Path) -> String {
    let (code, _, err) = slc(
        db,
        &[
            "simulate",
            "960evo-250g",
            "--seed",
            "4",
            "-q",
            "--out",
            "run",
        ],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    err
}

/// A store holding a sweep (run 1) and a simulate run (run 2), in `w`.
fn sweep_and_simulate(w: &Path) -> std::path::PathBuf {
    let db = w.join("s.db");
    for args in [
        &[
            "sweep",
            "emu:960evo-250g",
            "--simulate",
            "--qd",
            "1,4",
            "--jobs",
            "1",
            "--out",
            "sw",
            "-q",
        ][..],
        &[
            "simulate",
            "960evo-250g",
            "--seed",
            "1",
            "--out",
            "sim",
            "-q",
        ][..],
    ] {
        let (code, _, err) = slc(&db, args, w);
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
    db
}

/// `compare` of a stored sweep used to fail on a scratch folder's path ("no timeline.csv in
/// this folder"); it says what the run is and what compare takes.
pub fn compare_of_a_stored_sweep_says_what_compare_takes() {
    let d = tempfile::tempdir().unwrap();
    let db = sweep_and_simulate(d.path());
    let (code, _, err) = slc(&db, &["compare", "1", "2", "--out", "c"], d.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("run 1 is a sweep; compare takes probe, simulate or analyze runs"),
        "{err}"
    );
    assert!(!err.contains("slccache-compare"), "{err}");
    assert!(!d.path().join("c").exists());
}

/// A simulated sweep was listed with the drive "emu:960evo-250g" where every other simulated
/// run names its drive "Samsung SSD 960 EVO 250GB (simulated)"; so it is now, as its report's
/// title names it, and a bare preset is named the same.
pub fn a_simulated_sweep_is_listed_as_a_simulated_drive() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = sweep_and_simulate(w);
    let (code, _, err) = slc(
        &db,
        &[
            "sweep",
            "960evo-250g",
            "--simulate",
            "--qd",
            "1",
            "--jobs",
            "1",
            "--out",
            "bare",
            "-q",
        ],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    let (_, json, _) = slc(&db, &["runs", "--json"], w);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{json}");
    for r in rows {
        assert_eq!(
            r["model"], "Samsung SSD 960 EVO 250GB (simulated)",
            "{json}"
        );
    }
    let (_, table, _) = slc(&db, &["runs"], w);
    assert!(!table.contains("emu:"), "{table}");
}

/// No such run, no such folder, an output folder that holds files: bad input, exit 2, in
/// `runs` and its subcommands as everywhere else (they were 1 in `runs`).
pub fn bad_input_to_the_results_library_is_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = sweep_and_simulate(w);
    std::fs::create_dir(w.join("full")).unwrap();
    std::fs::write(w.join("full/f"), "mine\n").unwrap();
    for args in [
        &["runs", "show", "42"][..],
        &["runs", "export", "42", "--out", "x"],
        &["runs", "export", "2", "--out", "full"],
        &["runs", "rm", "42"],
        &["runs", "import", "missing"],
        &["runs", "copy", "42", "--to", "other.db"],
        &["compare", "42", "2"],
        &["history", "nothing-like-it"],
    ] {
        let (code, _, err) = slc(&db, args, w);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("42")
                || err.contains("missing")
                || err.contains("full")
                || err.contains("nothing"),
            "{args:?}: {err}"
        );
    }
    assert!(!w.join("x").exists());
}

/// `runs import good missing` says, per folder, what was imported and what was not (exit 2
/// for the missing one); a compare folder is no run and is refused by name.
pub fn runs_import_says_what_became_of_each_folder() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("i.db");
    for args in [
        &[
            "simulate",
            "960evo-250g",
            "--seed",
            "1",
            "--out",
            "good",
            "--no-record",
            "-q",
        ][..],
        &["compare", "good", "good", "--out", "cmp", "-q"][..],
    ] {
        let (code, _, err) = slc(&db, args, w);
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
    let (code, out, err) = slc(&db, &["runs", "import", "good", "missing"], w);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.contains("good: imported as run 1"), "{out}");
    assert!(
        err.contains("missing: not imported") && err.contains("no such folder"),
        "{err}"
    );
    // A file that is there is no "no such folder": it is a file, which `analyze` takes.
    std::fs::write(w.join("good.csv"), "t_s,MB/s\n1,2000\n").unwrap();
    let (code, _, err) = slc(&db, &["runs", "import", "good.csv"], w);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("good.csv: not imported: a file, not a run folder")
            && err.contains("slccache analyze FILE"),
        "{err}"
    );
    let (code, out, err) = slc(&db, &["runs", "import", "cmp"], w);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        err.contains("cmp: not imported") && err.contains("compare"),
        "{err}"
    );
    let (code, out, _) = slc(&db, &["runs", "--json"], w);
    assert_eq!(code, Some(0));
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{out}");
}

/// `slccache --db DB ARGS` as `nobody` (root may write anywhere), in `cwd`.
fn slc_as_nobody(db: &Path, args: &[&str], cwd: &Path) -> (Option<i32>, String, String) {
    let bin = assert_cmd::cargo::cargo_bin("slccache");
    let mut c = if rustix::process::geteuid().is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let o = c
        .arg("--db")
        .arg(db)
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn set_mode(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
}

/// Every store file (`*.db`) in `dir` with its bytes (SQLite may keep a `-shm` beside one it
/// read, where it can).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "db")
        })
        .map(|e| {
            let p = e.unwrap().path();
            let b = std::fs::read(&p).unwrap();
            (p.display().to_string(), b)
        })
        .collect();
    v.sort();
    v
}

/// A store in a read-only folder, or a read-only store file, is read as it is by the
/// commands that only read: listed, shown, exported, charted, compared; a store of schema
/// version 1 there is listed without being upgraded. Nothing in its folder changes.
pub fn a_read_only_store_is_read_by_the_reading_commands() {
    use slccache::store::{backend::Location, schema, Store};
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    set_mode(w, 0o777);
    let ro = w.join("ro");
    std::fs::create_dir(&ro).unwrap();
    let db = ro.join("s.db");
    for (args, out) in [
        (
            &["simulate", "960evo-250g", "--seed", "1", "--out"][..],
            "a",
        ),
        (
            &["simulate", "960evo-250g", "--seed", "2", "--out"][..],
            "b",
        ),
    ] {
        let mut a = args.to_vec();
        a.extend([out, "-q"]);
        let (code, _, err) = slc(&db, &a, w);
        assert_eq!(code, Some(0), "{err}");
    }
    // Version 1, as an older slccache left it.
    let db1 = ro.join("v1.db");
    Store::open_with(
        Location::Sqlite(db1.clone()).connect().unwrap(),
        &schema::MIGRATIONS[..1],
    )
    .unwrap()
    .import_folder(&w.join("a"))
    .unwrap();
    let version = |p: &Path| -> i64 {
        rusqlite::Connection::open_with_flags(p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .query_row("SELECT MAX(version) FROM slccache_schema", [], |r| r.get(0))
            .unwrap()
    };
    for (what, folder_mode, file_mode) in [
        ("a read-only folder", 0o555, 0o644),
        ("a read-only file", 0o777, 0o444),
    ] {
        set_mode(&ro, 0o755);
        for f in std::fs::read_dir(&ro).unwrap() {
            set_mode(&f.unwrap().path(), file_mode);
        }
        set_mode(&ro, folder_mode);
        let before = snapshot(&ro);
        for (k, args) in [
            &["runs"][..],
            &["runs", "--json"],
            &["runs", "show", "1"],
            &["runs", "export", "1", "--out", "OUT"],
            &["history", "960", "--out", "OUT"],
            &["compare", "1", "2", "--out", "OUT"],
        ]
        .iter()
        .enumerate()
        {
            let out = format!("out-{folder_mode:o}-{k}");
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "OUT" { &out[..] } else { a })
                .collect();
            let (code, stdout, err) = slc_as_nobody(&db, &args, w);
            assert_eq!(code, Some(0), "{what}: {args:?}: {err}");
            if args == ["runs"] {
                assert!(stdout.contains("960 EVO"), "{what}: {stdout}");
            }
        }
        let (code, stdout, err) = slc_as_nobody(&db1, &["runs"], w);
        assert_eq!(code, Some(0), "{what}: version 1: {err}");
        assert!(stdout.contains("960 EVO"), "{what}: {stdout}");
        assert_eq!(snapshot(&ro), before, "{what}: the store's folder changed");
        assert_eq!(version(&db1), 1);
    }
    set_mode(&ro, 0o755);
}

/// `--since` takes a date, a local date and time, or an RFC 3339 time; a run id is a
/// positive number, and a negative one is told so.
pub fn since_takes_dates_and_local_times_and_run_ids_are_positive() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("t.db");
    let (code, _, err) = slc(
        &db,
        &["simulate", "960evo-250g", "--seed", "1", "--out", "a", "-q"],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    for (since, runs) in [
        ("2020-01-01", 1),
        ("2020-01-01T10:00:00", 1),
        ("2020-01-01 10:00", 1),
        ("2020-01-01T10:00:00Z", 1),
        ("2020-01-01T10:00:00+02:00", 1),
        ("2999-01-01", 0),
        ("2999-01-01T10:00:00", 0),
    ] {
        let (code, out, err) = slc(&db, &["runs", "--json", "--since", since], w);
        assert_eq!(code, Some(0), "{since}: {err}");
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(rows.as_array().unwrap().len(), runs, "{since}");
    }
    let (code, _, err) = slc(&db, &["runs", "--since", "yesterday"], w);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--since 'yesterday'"), "{err}");
    for args in [
        &["runs", "show", "--", "-1"][..],
        &["runs", "rm", "--", "0"],
        &["runs", "export", "--out", "x", "--", "-3"],
    ] {
        let (code, _, err) = slc(&db, args, w);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("run ids are positive"), "{args:?}: {err}");
    }
}

/// On a terminal `runs rm` shows the run and removes it only when the user agrees; `--yes`
/// and a script (no terminal) remove it without asking.
pub fn runs_rm_asks_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(!ci, "CI=true but no `script` (bsdutils) to make a terminal");
        crate::common::skip("no `script` (bsdutils)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    for seed in [1, 2, 3] {
        let dir = d.path().join(format!("r{seed}"));
        store_util::simulate_folder(&dir, "960evo-250g", seed);
        store_util::ok(store_util::slccache(&db).args(["runs", "import"]).arg(&dir));
    }
    // `script` gives the command a terminal and passes it what we type.
    let on_tty = |id: &str, answer: &str| -> String {
        let log = d.path().join("typescript");
        let cmd = format!(
            "{} --db {} runs rm {id}",
            env!("CARGO_BIN_EXE_slccache"),
            db.display()
        );
        let mut child = Command::new("script")
            .args(["-qec", &cmd])
            .arg(&log)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        use std::io::Write;
        child
            .stdin
            .as_mut()
            .unwrap()
            .write_all(answer.as_bytes())
            .unwrap();
        child.wait().unwrap();
        std::fs::read_to_string(&log).unwrap_or_default()
    };
    let ids = || -> Vec<i64> {
        store_util::runs_json(db.to_str().unwrap())
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    let text = on_tty("1", "n\n");
    assert!(
        text.contains("remove run 1 from") && text.contains("not removed"),
        "{text}"
    );
    assert_eq!(ids(), [1, 2, 3]);
    let text = on_tty("1", "y\n");
    assert!(text.contains("removed run 1"), "{text}");
    assert_eq!(ids(), [2, 3]);
    // --yes, and no terminal: no question.
    store_util::ok(store_util::slccache(&db).args(["runs", "rm", "2", "--yes"]));
    store_util::ok(
        store_util::slccache(&db)
            .args(["runs", "rm", "3"])
            .stdin(std::process::Stdio::null()),
    );
    assert!(ids().is_empty());
}

/// `runs` showed 3478 MB/s after the cache for an fx700 `--cliffs 2` run whose terminal said
/// 129 MB/s (its first cliff's rate after it, not the last). The row now holds the one
/// "after the cache" figure of the analysis (the p5's with its heat left out), and none for a
/// stretch that is not steady (whose terminal gives a range).
pub fn runs_give_the_after_cache_rate_every_output_gives() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    for (preset, out) in [("fx700-2tb", "fx"), ("p5-1tb", "p5")] {
        let o = Command::cargo_bin("slccache")
            .unwrap()
            .env("SLCCACHE_DB", &db)
            .args(["simulate", preset, "--cliffs", "2", "--seed", "1", "--out"])
            .arg(d.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_DB", &db)
        .args(["runs", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let summary = |out: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(d.path().join(out).join("summary.json")).unwrap(),
        )
        .unwrap()
    };
    let row = |dir: &str| {
        rows.iter()
            .find(|r| r["source_dir"].as_str().is_some_and(|s| s.ends_with(dir)))
            .unwrap_or_else(|| panic!("no row of {dir}: {rows:?}"))
    };
    let fx = summary("fx");
    let ac = &fx["analysis"]["after_cache"];
    assert_eq!(ac["steady_state"]["steady"], true, "{ac}");
    assert_eq!(
        row("fx")["after_cache_bytes_per_sec"],
        ac["mean_bytes_per_sec"]
    );
    assert!(ac["mean_bytes_per_sec"].as_f64().unwrap() < 200e6, "{ac}");
    // The p5's heat is no tier: left out, its stretch after the cache is steady.
    let p5 = summary("p5");
    let ac = &p5["analysis"]["after_cache"];
    assert_eq!(ac["steady_state"]["steady"], true, "{ac}");
    assert_eq!(
        row("p5")["after_cache_bytes_per_sec"],
        ac["mean_bytes_per_sec"]
    );
    // A stretch that is not steady (a fio log of a drive that folds and recovers) has no one
    // figure in the row.
    let fio = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log"
    );
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_DB", &db)
        .args(["analyze", fio, "--out"])
        .arg(d.path().join("fio"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_DB", &db)
        .args(["runs", "--json"])
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let fio_row = rows
        .iter()
        .find(|r| r["source_dir"].as_str().is_some_and(|s| s.ends_with("fio")))
        .expect("the fio run's row");
    assert_eq!(
        summary("fio")["analysis"]["after_cache"]["steady_state"]["steady"],
        false
    );
    assert!(
        fio_row["after_cache_bytes_per_sec"].is_null(),
        "{fio_row:?}"
    );
}

/// A file's runs are named by its stem ("new" for new.bin), so `history new.bin`, the target
/// as the user typed it, found no run. It now finds them by the target too, as typed or by
/// the file's name.
pub fn history_finds_a_file_by_the_name_it_was_probed_as() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let (code, _, err) = slc(
        &db,
        &["probe", "new.bin", "--size", "64MiB", "-q", "--out", "run"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    for name in ["new.bin", "./new.bin"] {
        let out = format!("history-{}", name.len());
        let (code, stdout, err) = slc(&db, &["history", name, "--out", &out], w.path());
        assert_eq!(code, Some(0), "history {name}: {err}");
        assert!(stdout.contains(": 1 run;"), "history {name}: {stdout}");
    }
    let (code, _, err) = slc(&db, &["history", "old.bin"], w.path());
    assert_eq!(code, Some(2), "{err}");
    // By its full path too (it said "no recorded run has serial '/tmp/.../new.bin'"), and
    // from another folder.
    let full = w.path().join("new.bin");
    let (code, stdout, err) = slc(
        &db,
        &["history", full.to_str().unwrap(), "--out", "history-full"],
        w.path(),
    );
    assert_eq!(code, Some(0), "history {}: {err}", full.display());
    assert!(stdout.contains(": 1 run;"), "{stdout}");
    let (code, stdout, err) = slc(
        &db,
        &[
            "history",
            full.to_str().unwrap(),
            "--out",
            w.path().join("history-up").to_str().unwrap(),
        ],
        w.path().parent().unwrap(),
    );
    assert_eq!(code, Some(0), "from another folder: {err}");
    assert!(stdout.contains(": 1 run;"), "{stdout}");
}

/// `history new.bin` found no run of `trial-new.bin` (exit 2), where `history` finds a
/// drive by any part of its model's name: a file's name is matched the same way, by any part
/// of it and in any case; a name no file's holds still finds nothing.
pub fn history_finds_a_file_by_a_part_of_its_name() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let (code, _, err) = slc(
        &db,
        &[
            "probe",
            "trial-new.bin",
            "--size",
            "64MiB",
            "-q",
            "--out",
            "run",
        ],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    for (i, part) in ["new.bin", "NEW.BIN", "l-new.b", "trial-new.bin"]
        .into_iter()
        .enumerate()
    {
        let out = format!("history-{i}");
        let (code, stdout, err) = slc(&db, &["history", part, "--out", &out], w.path());
        assert_eq!(code, Some(0), "history {part}: {err}");
        assert!(
            stdout.starts_with("history of trial-new, 67.1 MB, file: 1 run;"),
            "history {part}: {stdout}"
        );
    }
    for other in ["old.bin", "new.bin.x", "other/new.bin"] {
        let (code, _, err) = slc(&db, &["history", other, "--out", "h-none"], w.path());
        assert_eq!(code, Some(2), "history {other}: {err}");
        assert!(err.contains("no recorded run"), "history {other}: {err}");
    }
}

/// A probe of a plain file was named "t, 67.1 MB, real" by `runs --by drive` and `history`,
/// as if the file were a drive, and only `--drive-kind real` picked it. A file is named a
/// file, `--drive-kind file` picks it, and `--drive-kind real` no longer does.
pub fn a_probed_file_is_named_a_file_not_a_real_drive() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let (code, _, err) = slc(
        &db,
        &["probe", "t", "--size", "64MiB", "-q", "--out", "run"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, stdout, err) = slc(&db, &["runs", "--by", "drive"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("t, "))
        .unwrap_or_else(|| panic!("no row of the file: {stdout}"));
    assert!(row.starts_with("t, 67.1 MB, file "), "{row}");
    assert!(!stdout.contains("real"), "{stdout}");
    let (code, stdout, err) = slc(
        &db,
        &["history", "t", "--drive-kind", "file", "--out", "h1"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.starts_with("history of t, 67.1 MB, file: 1 run;"),
        "{stdout}"
    );
    let (code, _, err) = slc(
        &db,
        &["history", "t", "--drive-kind", "real", "--out", "h2"],
        w.path(),
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--drive-kind"), "{err}");
    let (code, _, err) = slc(&db, &["history", "t", "--drive-kind", "disk"], w.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("give real, file, emulated or simulated"),
        "{err}"
    );
}

/// `runs --html` cut short (Ctrl-C, a full disk) is finished by the same command: a
/// folder holding only run folders and an unfinished export's temporary folder (what an
/// interruption leaves) is taken without --force, the temporary is removed and the run
/// exported whole, and the page is written.
pub fn runs_html_finishes_an_interrupted_page() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    for preset in ["960evo-250g", "970evo-1tb"] {
        store_util::ok(
            store_util::slccache(&db)
                .args(["simulate", preset, "--seed", "1", "-q", "--out"])
                .arg(w.join(format!("run-{preset}"))),
        );
    }
    let lib = w.join("lib");
    std::fs::create_dir(&lib).unwrap();
    // Run 1 whole, run 2 cut short mid-export in its temporary folder.
    store_util::ok(
        store_util::slccache(&db)
            .args(["runs", "export", "1", "--out"])
            .arg(lib.join("1")),
    );
    let tmp = lib.join(".2.partial");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::copy(
        w.join("run-970evo-1tb/summary.json"),
        tmp.join("summary.json"),
    )
    .unwrap();
    let o = store_util::slccache(&db)
        .args(["runs", "--html"])
        .arg(&lib)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 run folder exported"), "{text}");
    assert!(!tmp.exists(), "the unfinished export is gone");
    assert!(lib.join("2/report.html").is_file() && lib.join("2/timeline.csv").is_file());
    let page = std::fs::read_to_string(lib.join("index.html")).unwrap();
    assert!(
        page.contains("1/report.html") && page.contains("2/report.html"),
        "{page}"
    );
}

/// `runs --html DIR` again after `runs rm` left the removed run's folder beside the page (a
/// reader took it for a run the store holds); and a folder of the same id written from
/// another store was kept and linked as this store's run. The first goes; the second is
/// written anew from this store.
pub fn the_library_folder_follows_the_store() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let (db, other) = (w.join("r.db"), w.join("o.db"));
    for (db, preset) in [
        (&db, "960evo-250g"),
        (&db, "970evo-1tb"),
        (&other, "p1-1tb"),
    ] {
        store_util::ok(
            store_util::slccache(db)
                .args([
                    "simulate",
                    preset,
                    "--seed",
                    "1",
                    "--no-early-stop",
                    "-q",
                    "--out",
                ])
                .arg(w.join(format!("run-{preset}"))),
        );
    }
    let lib = w.join("lib");
    let html = |db: &Path| {
        let o = store_util::slccache(db)
            .args(["runs", "--html"])
            .arg(&lib)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    html(&db);
    assert!(lib.join("1").is_dir() && lib.join("2").is_dir());
    store_util::ok(store_util::slccache(&db).args(["runs", "rm", "2", "--yes"]));
    let text = html(&db);
    assert!(
        !lib.join("2").exists(),
        "the removed run's folder is gone: {text}"
    );
    assert!(
        text.contains("removed 1 folder of runs no longer in the store"),
        "{text}"
    );
    assert!(lib.join("1/report.html").is_file());
    // Another store's run 1 is not this store's run 1.
    let text = html(&other);
    assert!(
        text.contains("1 folder that held another run written anew"),
        "{text}"
    );
    let summary = std::fs::read_to_string(lib.join("1/summary.json")).unwrap();
    assert!(summary.contains("P1"), "{summary}");
}

/// history's report.html listed only "run 1: day 0.0" per run. Its table now gives each run's
/// date, what made it, its cache with the interval, and its rates, as the store holds them.
pub fn the_history_page_gives_each_run_s_findings() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    for seed in ["1", "2"] {
        let out = format!("sim{seed}");
        let (code, _, err) = slc(
            &db,
            &[
                "simulate",
                "960evo-250g",
                "--seed",
                seed,
                "-q",
                "--out",
                &out,
            ],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let (code, _, err) = slc(&db, &["history", "960 EVO", "--out", "h"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(w.path().join("h/report.html")).unwrap();
    for th in [
        "<th>run</th>",
        "<th>date (UTC)</th>",
        "<th>ran</th>",
        "<th>SLC cache (95% interval)</th>",
        "<th>in cache</th>",
        "<th>after cache</th>",
    ] {
        assert!(html.contains(th), "no {th} in the history page");
    }
    let (_, json, _) = slc(
        &db,
        &["history", "960 EVO", "--json", "--out", "h2"],
        w.path(),
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for r in v["runs"].as_array().unwrap() {
        let gb = |k: &str| format!("{:.1} GB", r[k].as_f64().unwrap() / 1e9);
        let cell = format!(
            "<td>{} ({} to {})</td>",
            gb("cache_bytes"),
            gb("cache_low_bytes"),
            gb("cache_high_bytes")
        );
        assert!(html.contains(&cell), "run {}: no {cell}", r["run_id"]);
    }
    assert!(!html.contains("run 1: day 0.0"), "the bare list is back");
}

/// Regression: `analyze` of one run's timeline `--out` another run's folder `--force` kept
/// the other run's summary.json (an FX700 simulation's settings, totals, start time and
/// command beside a 960 EVO's analysis in report.md), said "not recorded again: run 1 ... holds
/// this measurement" of data that were run 2's, and `runs import` of the folder then refused
/// it as run 1. The folder is the analysis's alone, recorded as an analysis of run 2.
pub fn analyze_force_into_another_run_s_folder_keeps_nothing_of_that_run() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    for (model, out) in [("fx700-2tb", "fx"), ("960evo-500g", "evo")] {
        let (code, _, err) = slc(
            &db,
            &["simulate", model, "--seed", "4", "-q", "--out", out],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let evo: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.path().join("evo/summary.json")).unwrap())
            .unwrap();
    let (code, _, err) = slc(
        &db,
        &[
            "analyze",
            "evo/timeline.csv",
            "--out",
            "fx",
            "--force",
            "-q",
        ],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("run 1"), "{err}");
    assert!(!err.contains("belongs to a simulate run"), "{err}");
    let fx: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.path().join("fx/summary.json")).unwrap())
            .unwrap();
    assert_eq!(fx["config"]["command"], "analyze", "{}", fx["config"]);
    assert_eq!(fx["totals"]["bytes"], evo["totals"]["bytes"]);
    let html = std::fs::read_to_string(w.path().join("fx/report.html")).unwrap();
    assert!(!html.contains("fx700-2tb"), "the FX700's command stayed");
    let (_, table, _) = slc(&db, &["runs"], w.path());
    assert!(table.contains("analyze of 2"), "{table}");
    // The library page names it as `runs` does (it said a bare "analyze").
    let (code, _, err) = slc(&db, &["runs", "--html", "lib"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(w.path().join("lib/index.html")).unwrap();
    assert!(
        page.contains("<td>analyze of 2</td>"),
        "the library page's ran cell"
    );
}

/// Analysing a run again in its own folder recorded the same measurement a second time, so
/// `runs` listed it twice. It is recorded once: the second time says which run holds it.
pub fn a_run_analysed_again_in_place_is_not_recorded_twice() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let err = simulate_run_into(&db, w.path());
    assert!(err.contains("recorded as run 1"), "{err}");
    let (code, _, err) = slc(
        &db,
        &[
            "analyze",
            "run/timeline.csv",
            "--out",
            "run",
            "--force",
            "-q",
        ],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("not recorded again: run 1 "), "{err}");
    let (code, out, err) = slc(&db, &["runs", "import", "run"], w.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("its measurement is in the store as run 1"),
        "{out}"
    );
    let (_, json, _) = slc(&db, &["runs", "--json"], w.path());
    let listed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{json}");
    // Into a folder of its own, an analysis is a run of its own.
    let (code, _, err) = slc(
        &db,
        &["analyze", "run/timeline.csv", "--out", "again", "-q"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("recorded as run 2"), "{err}");
    // `runs` listed it as a second measurement beside the first: it names the run that
    // measured.
    let (_, table, _) = slc(&db, &["runs"], w.path());
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("2 "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("analyze of 1"), "{table}");
    let first = table
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(!first.contains(" of "), "{table}");
    // A copy of the folder analysed again in place is the same measurement too (it was
    // recorded as a run of its own, and history counted it twice).
    let copy = w.path().join("copy");
    let o = Command::new("cp")
        .arg("-r")
        .arg(w.path().join("run"))
        .arg(&copy)
        .output()
        .unwrap();
    assert!(o.status.success());
    let (code, _, err) = slc(
        &db,
        &[
            "analyze",
            "copy/timeline.csv",
            "--out",
            "copy",
            "--force",
            "--units",
            "binary",
            "-q",
        ],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("not recorded again: run 1 "), "{err}");
}

/// A hand-made CSV has no start time, and a run without one was never matched: its analysis
/// analysed again in place, or exported and analysed again, was recorded as a run of its own
/// each time, and `history` counted it twice. Its samples identify it: the same timeline with
/// the same folder or label is the same measurement; other samples under that label are not.
pub fn a_hand_made_run_analysed_again_is_not_recorded_twice() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let csv = |name: &str, low: u32| {
        let mut s = String::from("t_s,MB/s\n");
        for i in 1..=60 {
            s += &format!("{i},{}\n", if i <= 20 { 2000 } else { low });
        }
        std::fs::write(w.path().join(name), s).unwrap();
    };
    csv("hand.csv", 500);
    let run = |args: &[&str]| {
        let (code, _, err) = slc(&db, args, w.path());
        assert_eq!(code, Some(0), "{args:?}: {err}");
        err
    };
    assert!(run(&["analyze", "hand.csv", "--out", "a", "-q"]).contains("recorded as run 1"));
    let again = ["analyze", "a", "--out", "a", "--force", "-q"];
    assert!(run(&again).contains("not recorded again: run 1 "));
    run(&["runs", "export", "1", "--out", "ex"]);
    let exported = ["analyze", "ex", "--out", "ex", "--force", "-q"];
    assert!(run(&exported).contains("not recorded again: run 1 "));
    let (_, json, _) = slc(&db, &["runs", "--json"], w.path());
    let listed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{json}");
    // Other samples in a file of the same name are another measurement.
    std::fs::create_dir(w.path().join("other")).unwrap();
    csv("other/hand.csv", 400);
    let other = ["analyze", "other/hand.csv", "--out", "b", "-q"];
    assert!(run(&other).contains("recorded as run 2"));
}

/// history's table said "no cliff: none, or larger than X" for a run whose own text bounds
/// its cache from both sides, and charted a fill-sweep as a run with no cliff. It now says
/// what `runs` says ("none or > X (no cliff)": no cache, or one larger than what was written)
/// and charts only runs that measure one cache.
pub fn history_takes_single_runs_and_bounds_as_runs_does() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let ok = |args: &[&str]| {
        let (code, out, err) = slc(&db, args, w.path());
        assert_eq!(code, Some(0), "{args:?}: {err}");
        out
    };
    ok(&[
        "fill-sweep",
        "emu:660p-1tb",
        "--simulate",
        "--levels",
        "0,50",
        "-q",
        "--out",
        "fs",
    ]);
    let (code, _, err) = slc(&db, &["history", "660p", "--out", "h0"], w.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("matches only experiments"), "{err}");
    ok(&[
        "simulate",
        "960evo-250g",
        "--max-bytes",
        "5GB",
        "-q",
        "--out",
        "short",
    ]);
    let listed = ok(&["runs"]);
    // No cliff: no cache, or one larger than what was written; not a cache of at least X.
    assert!(listed.contains("none or > 5.00 GB (no cliff)"), "{listed}");
    ok(&["history", "960 EVO", "--out", "h1"]);
    let html = std::fs::read_to_string(w.path().join("h1/report.html")).unwrap();
    assert!(
        html.contains("<td>none or &gt; 5.00 GB (no cliff)</td>"),
        "{html}"
    );
    assert!(!html.contains("none, or larger than"), "{html}");
}

/// `history` worked out its own figures and grouping. It charted a 4K random run and a 128K
/// sequential one as one line; gave the latest run as "20.5 GiB (95% interval 20.4 to 20.9
/// GiB)", not as the run's findings say it; kept "500 GB" in its title under `--units
/// binary`; left a run whose stretch after the cache was not steady off the after-cache
/// chart; and took emulated drives of one preset with different `cache=` for one drive.
pub fn history_keeps_workloads_specs_and_unsteady_runs_apart() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let run = |args: &[&str], out: &str| {
        store_util::ok(
            store_util::slccache(&db)
                .args(args)
                .args(["-q", "--out"])
                .arg(w.join(out)),
        )
    };
    run(&["simulate", "960evo-250g", "--seed", "1"], "s1");
    run(
        &[
            "simulate",
            "960evo-250g",
            "--seed",
            "2",
            "--pattern",
            "seqwrite",
        ],
        "s2",
    );
    let history = |args: &[&str], out: &str| {
        let o = store_util::slccache(&db)
            .arg("history")
            .args(args)
            .arg("--out")
            .arg(w.join(out))
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (code, stdout, err) = history(&["960", "--units", "binary"], "h1");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.contains("one series per workload (randwrite 4K QD32; seqwrite 128K QD32)"),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(w.join("h1/history-cache-date.svg")).unwrap();
    assert!(
        svg.contains("randwrite 4K QD32: 1 run"),
        "a legend per workload"
    );
    assert!(
        svg.contains("seqwrite 128K QD32: 1 run"),
        "a legend per workload"
    );
    assert!(
        svg.contains("233 GiB") && !svg.contains("250 GB"),
        "binary title"
    );
    // The latest run as its findings give it (the run's own summary says the same).
    let s2: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join("s2/summary.json")).unwrap()).unwrap();
    let est = &s2["analysis"]["cache_estimate"];
    let gib = |k: &str| format!("{:.1} GiB", est[k].as_f64().unwrap() / (1u64 << 30) as f64);
    let want = format!(
        "latest run (run 2, seqwrite 128K QD32): {} (95% interval {} to {})",
        gib("bytes"),
        gib("low_bytes"),
        gib("high_bytes")
    );
    assert!(svg.contains(&want), "{want} in the subtitle");
    let page = std::fs::read_to_string(w.join("h1/report.html")).unwrap();
    assert!(
        page.contains("<th>workload</th>"),
        "the table names the workload"
    );

    // A stretch that was not steady is drawn as its range, and said so.
    let fio = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log"
    );
    run(&["analyze", fio], "a1");
    let (code, _, err) = history(&["biwin"], "h2");
    assert_eq!(code, Some(0), "{err}");
    let svg = std::fs::read_to_string(w.join("h2/history-after-cache-date.svg")).unwrap();
    assert!(
        svg.contains("(not steady)")
            && svg.contains("not steady: its samples' 10th to 90th percentile"),
        "the unsteady run is on the chart"
    );
    assert!(
        svg.contains("1 run of the drive in the store shown"),
        "and counted as shown"
    );

    // Two emulated drives of one preset, with different cache= sizes, are two drives.
    for (spec, out) in [
        ("emu:960evo-250g,cache=1GB", "e1"),
        ("emu:960evo-250g", "e2"),
    ] {
        run(&["probe", spec, "--max-bytes", "1500MB"], out);
    }
    let (code, _, err) = history(&["960", "--drive-kind", "emulated"], "h3");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("matches 2 drives")
            && err.contains("slccache history emu:960evo-250g,cache=1GB"),
        "{err}"
    );
    let (code, stdout, err) = history(&["emu:960evo-250g,cache=1GB"], "h4");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.contains("Samsung SSD 960 EVO 250GB (emulated), cache=1GB: 1 run;"),
        "{stdout}"
    );

    // A read run draws no line: the line named its workload among the series charted, and
    // the charts' footers gave no reason it had no value.
    run(
        &[
            "simulate",
            "960evo-250g",
            "--pattern",
            "seqread",
            "--max-bytes",
            "5GB",
        ],
        "r1",
    );
    let (code, stdout, err) = history(&["960", "--drive-kind", "simulated"], "h5");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.contains(
            "one series per workload (randwrite 4K QD32; seqwrite 128K QD32; no value to chart \
             for the seqread 128K QD32 runs)"
        ),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(w.join("h5/history-cache-date.svg")).unwrap();
    assert!(
        svg.contains("no value here: reads only"),
        "the footer says why"
    );
}

/// `runs rm 1 --host nosuchhost -y` removed run 1: the filter, shown in `runs rm --help`,
/// chose nothing there. A filter beside a run id is refused, and the run is kept.
pub fn a_filter_beside_a_run_id_is_refused() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    simulate_run_into(&db, w.path());
    for args in [
        &["runs", "rm", "1", "--host", "nosuchhost", "-y"][..],
        &["runs", "--drive", "nosuchdrive", "rm", "1", "-y"],
        &["runs", "show", "1", "--tag", "site=x"],
        &["runs", "--kind", "sweep", "export", "1", "--out", "x"],
    ] {
        let (code, out, err) = slc(&db, args, w.path());
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(
            err.contains("takes one run by its id; nothing was done"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!w.path().join("x").exists());
    let (code, out, err) = slc(&db, &["runs", "--json"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{out}");
}

/// `runs` listed a run whose rate in the cache met the SATA 6.0 Gb/s link's limit as a plain
/// "554 MB/s", while its terminal, report and card said the link may have capped it; so did
/// the library page of `runs --html`.
pub fn runs_says_where_the_link_capped_the_cache_rate() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let (code, _, err) = slc(
        &db,
        &["simulate", "870evo-4tb,in=560MB/s", "-q", "--out", "run"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = slc(&db, &["runs"], w.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(" MB/s (at the SATA 6.0 Gb/s link's limit)"),
        "{out}"
    );
    // The library page's cell said only "554 MB/s".
    let (code, _, err) = slc(&db, &["runs", "--html", "lib"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(w.path().join("lib/index.html")).unwrap();
    assert!(
        page.contains("\u{a0}MB/s (at the SATA 6.0\u{a0}Gb/s link's limit)</td>"),
        "{page}"
    );
}

/// history of a drive whose runs were all hidden by their link said "no run has this value"
/// and "(the others have no value here)", where each run's own outputs say the link hid the
/// cache.
pub fn history_says_why_no_run_has_a_cache_size() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    for (seed, out) in [("1", "a"), ("2", "b")] {
        let (code, _, err) = slc(
            &db,
            &[
                "simulate",
                "870evo-4tb,link=sata-3g",
                "--seed",
                seed,
                "-q",
                "--out",
                out,
            ],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let (code, out, err) = slc(&db, &["history", "870 EVO", "--out", "h", "-q"], w.path());
    assert_eq!(code, Some(0), "{out}{err}");
    let svg = std::fs::read_to_string(w.path().join("h/history-cache-date.svg")).unwrap();
    assert!(
        svg.contains(
            "no run has this value; latest run (run 2): cache hidden by the SATA 3.0 Gb/s link"
        ),
        "{svg}"
    );
    assert!(
        svg.contains(
            "none of the drive's 2 runs in the store has a value here: all hidden by the link \
             to the drive"
        ),
        "footer"
    );
}

/// history of an emulated drive charted cache size against the data its counters gave
/// written, though those counters start from zero on each run: three 2 GB runs all sat at
/// 0.002 TB on an axis to 1.1 TB. No chart against wear is drawn for an emulated drive, and
/// the line and report.html say why where it would be.
pub fn history_draws_no_wear_chart_from_counters_that_restart_each_run() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let spec = "emu:960evo-250g,cache=1GB";
    for out in ["a", "b", "c"] {
        let (code, _, err) = slc(
            &db,
            &[
                "probe",
                spec,
                "--max-bytes",
                "2GB",
                "--interval",
                "100ms",
                "-q",
                "--out",
                out,
            ],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
        // Each run's counters start from zero: each says it wrote its own 2 GB.
        let v: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(w.path().join(out).join("summary.json")).unwrap(),
        )
        .unwrap();
        let units = v["drive_state"]["smart_end"]["data_units_written"]
            .as_f64()
            .unwrap();
        assert!((units * 512_000.0 - 2e9).abs() < 1e6, "{units}");
    }
    let (code, out, err) = slc(&db, &["history", spec, "--out", "h"], w.path());
    assert_eq!(code, Some(0), "{out}{err}");
    let why = "no chart against wear: an emulated drive's counters start from zero on each \
               run, so the data written they give is that run's, not the drive's wear";
    assert!(out.contains(&format!("3 runs; {why}; outputs: ")), "{out}");
    let h = w.path().join("h");
    assert!(
        h.join("history-cache-date.png").is_file(),
        "the date charts stay"
    );
    for f in ["history-cache-wear.png", "history-cache-wear.svg"] {
        assert!(!h.join(f).exists(), "{f}");
    }
    // In report.html, after the charts, where the chart against wear would be.
    let page = std::fs::read_to_string(h.join("report.html")).unwrap();
    let charts = page.split("<h2>Charts</h2>").nth(1).unwrap();
    let charts = charts.split("</section>").next().unwrap();
    assert!(
        charts.contains(&format!("<p class=\"note\">{why}</p>")),
        "{charts}"
    );
}

/// `runs copy --help` says where the filters go: --drive, --serial, --since and --kind are
/// flags of `runs`, given before `copy` (after it they are refused as unknown), --host and
/// --tag anywhere; and the form it shows copies what the filter chooses.
pub fn runs_copy_help_says_where_its_filters_go() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    simulate_run_into(&db, w.path());
    let (code, help, err) = slc(&db, &["runs", "copy", "--help"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("before `copy`") && flat.contains("--host and --tag go anywhere"),
        "{help}"
    );
    assert!(
        flat.contains("slccache runs --drive 960 copy --to"),
        "{help}"
    );
    // The form the help shows works; the filter after `copy` is clap's refusal.
    let (code, out, err) = slc(
        &db,
        &["runs", "--drive", "960", "copy", "--to", "a.db"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("copied 1 run "), "{out}");
    let (code, out, err) = slc(
        &db,
        &["runs", "--drive", "nomatch", "copy", "--to", "b.db"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("copied 0 runs "), "{out}");
    let (code, _, err) = slc(
        &db,
        &["runs", "copy", "--host", "nomatch", "--to", "c.db"],
        w.path(),
    );
    assert_eq!(code, Some(0), "{err}");
}

/// `runs --json show 2` is `runs show 2 --json` (it printed the table); `runs --csv show 2`
/// is refused in one line, exit 2, saying --csv is a form of the list, not that it chooses
/// runs; a filter beside the id is refused as before.
pub fn runs_json_before_show_is_show_json_and_list_forms_are_refused_as_such() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    simulate_run_into(&db, w.path());
    let (code, after, err) = slc(&db, &["runs", "show", "1", "--json"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let (code, before, err) = slc(&db, &["runs", "--json", "show", "1"], w.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(
        before == after,
        "`runs --json show 1` printed:\n{before:.300}"
    );
    let v: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(v["id"], 1, "{before}");
    for (args, flag) in [
        (&["runs", "--csv", "show", "1"][..], "--csv"),
        (
            &["runs", "--by", "host", "export", "1", "--out", "x"],
            "--by",
        ),
        (&["runs", "--json", "rm", "1", "-y"], "--json"),
    ] {
        let (code, out, err) = slc(&db, args, w.path());
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("{flag} is a form of the list of runs"))
                && !err.contains("chooses")
                && err.contains("nothing was done"),
            "{args:?}: {err}"
        );
    }
    let (code, _, err) = slc(&db, &["runs", "--kind", "sweep", "show", "1"], w.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "--kind chooses runs to list or copy, and `runs show` takes one run by its id"
        ),
        "{err}"
    );
    assert!(!w.path().join("x").exists());
    let (_, rows, _) = slc(&db, &["runs", "--json"], w.path());
    let rows: serde_json::Value = serde_json::from_str(&rows).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
}

/// `runs --json copy --to X` and `runs --csv copy --to X` copied and printed copy's own lines,
/// as if the flag were not there.
pub fn runs_copy_refuses_the_forms_of_the_list() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    simulate_run_into(&db, w.path());
    let to = w.path().join("to.db");
    for form in ["--json", "--csv"] {
        let (code, out, err) = slc(
            &db,
            &["runs", form, "copy", "--to", to.to_str().unwrap()],
            w.path(),
        );
        assert_eq!(code, Some(2), "{form}: {out}{err}");
        assert!(
            err.contains("a form of the list of runs, not of `runs copy`; nothing was copied"),
            "{err}"
        );
    }
    assert!(!to.exists(), "the store copied into was made");
}

/// A rate after the cache too short to judge is no figure for a drive's median: `runs --by
/// drive` gives `-` for it as for a stretch that was not steady (it gave a bare `600 MB/s`,
/// which `runs` and the card call too short to judge), and `history` leaves it off its
/// after-cache chart, saying why.
pub fn a_rate_too_short_to_judge_is_not_quoted_as_a_drive_s_figure() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    // A cliff 8 s before the end: too short after it for the steady-state test.
    let mut csv = String::from("seconds,MB/s\n");
    for i in 0..80 {
        csv += &format!("{i},{}\n", if i < 72 { 2000 } else { 600 });
    }
    std::fs::write(w.path().join("short.csv"), csv).unwrap();
    let (code, _, err) = slc(&db, &["analyze", "short.csv", "--out", "a"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let (_, listed, _) = slc(&db, &["runs", "--wide"], w.path());
    assert!(listed.contains("600 MB/s (too short to judge)"), "{listed}");
    for by in ["drive", "host"] {
        let (code, grouped, err) = slc(&db, &["runs", "--by", by, "--wide"], w.path());
        assert_eq!(code, Some(0), "{err}");
        assert!(!grouped.contains("600 MB/s"), "--by {by}:\n{grouped}");
        // The group's one run has no figure here, and the cell says so (it was a bare "-").
        assert!(grouped.contains("- [0 of 1 run]"), "--by {by}:\n{grouped}");
    }
    let (code, _, err) = slc(&db, &["history", "short", "--out", "h"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let svg = std::fs::read_to_string(w.path().join("h/history-after-cache-date.svg")).unwrap();
    assert!(
        svg.contains("has no value here: too short to judge"),
        "{svg:.2000}"
    );
}

/// `history` with a name that matches several drives suggests a command for each; typed as
/// printed, each reads the store given by --db (and keeps --host and --tag), not the default.
pub fn history_suggestions_keep_the_db_given() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("my store.db");
    for (spec, out) in [("960evo-250g", "a"), ("960evo-250g,cache=1GB", "b")] {
        let (code, _, err) = slc(
            &db,
            &["simulate", spec, "--max-bytes", "3GB", "-q", "--out", out],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let (code, _, err) = slc(&db, &["history", "960 EVO"], w.path());
    assert_eq!(code, Some(2), "{err}");
    let hints: Vec<&str> = err
        .lines()
        .filter(|l| l.trim_start().starts_with("slccache history"))
        .collect();
    assert_eq!(hints.len(), 2, "{err}");
    let db_arg = format!(" --db '{}'", db.display());
    for h in &hints {
        assert!(h.ends_with(&db_arg), "{h}");
    }
    // The hint, typed as shown (without the --db put first), charts the drive.
    let words: Vec<String> = hints[1]
        .trim()
        .strip_suffix(&db_arg)
        .unwrap()
        .split(' ')
        .skip(1)
        .map(String::from)
        .collect();
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env_remove("SLCCACHE_DB")
        .env("XDG_DATA_HOME", w.path().join("nowhere"))
        .args(&words)
        .arg("--db")
        .arg(&db)
        .args(["--out", "h"])
        .current_dir(w.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // A drive no run has: the listing suggested reads the same store, with the filters.
    let (code, _, err) = slc(&db, &["history", "nosuch", "--tag", "k=v"], w.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("`slccache runs{db_arg} --tag k=v`")),
        "{err}"
    );
}

/// A drive named as `runs --by drive` prints it is charted by `history`: a two-column CSV
/// that named no drive ("hand (drive not recorded)"), and an emulated drive with options
/// ("..., cache=1GB") beside the preset's own.
pub fn history_takes_a_drive_as_the_store_prints_it() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("r.db");
    let mut csv = String::from("time_s,MB/s\n");
    for i in 0..120 {
        csv += &format!("{i},{}\n", if i < 40 { 2000 } else { 500 });
    }
    std::fs::write(w.path().join("hand.csv"), csv).unwrap();
    let (code, _, err) = slc(&db, &["analyze", "hand.csv", "-q", "--out", "a"], w.path());
    assert_eq!(code, Some(0), "{err}");
    for (spec, out) in [("960evo-250g", "b"), ("960evo-250g,cache=1GB", "c")] {
        let (code, _, err) = slc(
            &db,
            &["simulate", spec, "--max-bytes", "3GB", "-q", "--out", out],
            w.path(),
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let (code, listing, err) = slc(&db, &["runs", "--by", "drive", "--json"], w.path());
    assert_eq!(code, Some(0), "{err}");
    let groups: Vec<serde_json::Value> = serde_json::from_str(&listing).unwrap();
    let names: Vec<String> = groups
        .iter()
        .map(|g| g["group"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(
        names.iter().any(|n| n == "hand (drive not recorded)"),
        "{names:?}"
    );
    for (i, name) in names.iter().enumerate() {
        let out = format!("h{i}");
        let (code, stdout, err) = slc(&db, &["history", name, "--out", &out], w.path());
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            stdout.starts_with(&format!("history of {name}: 1 run")),
            "{stdout}"
        );
    }
    // A simulated drive's spec given whole picks the drive of that spec, as the README says
    // (`history 960evo-250g` was refused: "matches 2 drives"); a part of it still asks which.
    for (spec, want) in [
        (
            "960evo-250g",
            "Samsung SSD 960 EVO 250GB (simulated): 1 run",
        ),
        (
            "960evo-250g,cache=1GB",
            "Samsung SSD 960 EVO 250GB (simulated), cache=1GB: 1 run",
        ),
    ] {
        let (code, stdout, err) = slc(&db, &["history", spec, "--out", spec], w.path());
        assert_eq!(code, Some(0), "{spec}: {err}");
        assert!(
            stdout.starts_with(&format!("history of {want}")),
            "{stdout}"
        );
    }
    let (code, _, err) = slc(&db, &["history", "960 EVO", "--out", "x"], w.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("matches 2 drives"), "{err}");
}

/// Every file under `dir`, relative and `/`-separated, sorted.
fn names_under(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let rel = format!("{prefix}{}", e.file_name().to_string_lossy());
            if e.path().is_dir() {
                stack.push((e.path(), format!("{rel}/")));
            } else {
                v.push(rel);
            }
        }
    }
    v.sort();
    v
}

/// A user's files in a run's folder (written there before the run, with --force) are no part
/// of the run: recording, the spool, import, export and the library page take slccache's own
/// files only. They used to be stored with the run and written back by every export (a
/// passwords.txt published with the run, a 20 MB big.bin stored byte for byte).
pub fn a_user_s_files_beside_a_run_are_never_stored_or_exported() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("results.db");
    let mine = [
        "passwords.txt",
        "notes.csv",
        "bursts/mine.csv",
        "01-first.csv",
    ];
    let put_mine = |dir: &Path| {
        std::fs::create_dir_all(dir.join("bursts")).unwrap();
        for f in mine {
            std::fs::write(dir.join(f), "secret\n").unwrap();
        }
    };
    let no_user_file = |dir: &Path, what: &str| {
        let names = names_under(dir);
        assert!(
            !names
                .iter()
                .any(|n| mine.contains(&n.as_str()) || n.ends_with(".txt") || n == "notes.csv"),
            "{what}: {names:?}"
        );
        for n in &names {
            let text = std::fs::read(dir.join(n)).unwrap();
            assert!(text != b"secret\n", "{what}: {n} holds the user's file");
        }
    };
    let run = |args: &[&str], out: &Path| {
        let o = Command::cargo_bin("slccache")
            .unwrap()
            .arg("--db")
            .arg(&db)
            .args(args)
            .arg("--out")
            .arg(out)
            .args(["--force", "--seed", "1"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // A simulate run (its charts drawn again on export) and a recovery run (every file stored).
    let sim = w.join("sim");
    put_mine(&sim);
    run(&["simulate", "960evo-250g", "--duration", "60s"], &sim);
    let rec = w.join("rec");
    put_mine(&rec);
    run(
        &["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"],
        &rec,
    );
    for f in mine {
        assert!(sim.join(f).is_file() && rec.join(f).is_file(), "{f} kept");
    }
    for id in ["1", "2"] {
        let (code, out, err) = slc(&db, &["runs", "show", id, "--json"], w);
        assert_eq!(code, Some(0), "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let stored: Vec<&str> = v["stored_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert!(
            !stored.iter().any(|n| mine.contains(n)),
            "run {id} stored {stored:?}"
        );
        let ex = w.join(format!("ex{id}"));
        let (code, _, err) = slc(
            &db,
            &["runs", "export", id, "--out", ex.to_str().unwrap()],
            w,
        );
        assert_eq!(code, Some(0), "{err}");
        assert!(ex.join("summary.json").is_file());
        no_user_file(&ex, &format!("export of run {id}"));
    }
    // The library page's run folders.
    let lib = w.join("lib");
    let (code, _, err) = slc(&db, &["runs", "--html", lib.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    no_user_file(&lib.join("2"), "library page");
    assert!(lib.join("1/report.html").is_file());
    // Import of a folder with extra files: slccache's only, and one line says which were not.
    let other = w.join("other.db");
    let (code, out, err) = slc(&other, &["runs", "import", rec.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("imported as run 1"), "{out}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("left out")).collect();
    assert_eq!(said.len(), 1, "{err}");
    for f in mine {
        assert!(said[0].contains(f), "{f} not named: {err}");
    }
    let (_, out, _) = slc(&other, &["runs", "show", "1", "--json"], w);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        !v["stored_files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| mine.contains(&n.as_str().unwrap())),
        "{out}"
    );
    // A run that cannot be recorded is spooled without them.
    let spool = w.join("spool");
    let bad = w.join("bad.db");
    std::fs::write(&bad, "not a database\n").unwrap();
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .env("SLCCACHE_SPOOL", &spool)
        .arg("--db")
        .arg(&bad)
        .args([
            "simulate",
            "960evo-250g",
            "--duration",
            "60s",
            "--seed",
            "2",
        ])
        .arg("--out")
        .arg(&sim)
        .arg("--force")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let spooled: Vec<_> = std::fs::read_dir(&spool)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(spooled.len(), 1, "{spooled:?}");
    assert!(spooled[0].join("timeline.csv").is_file());
    no_user_file(&spooled[0], "spool");

    // A run an older slccache stored with a user's file: export leaves it out and says so.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, b"secret\n").unwrap();
    conn.execute(
        "INSERT INTO run_files (run_id, name, data) VALUES (2, 'passwords.txt', ?1)",
        [e.finish().unwrap()],
    )
    .unwrap();
    drop(conn);
    let ex = w.join("ex-legacy");
    let (code, _, err) = slc(
        &db,
        &["runs", "export", "2", "--out", ex.to_str().unwrap()],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    no_user_file(&ex, "export of an older run");
    assert!(ex.join("recovery.csv").is_file());
    assert!(
        err.lines().filter(|l| l.contains("passwords.txt")).count() == 1,
        "{err}"
    );
}

/// A recovery run stored without its charts and reports (they failed, a full disk; here an
/// imported folder without them, which is stored as it is): its export says in one line which
/// outputs the stored run lacks, and the library page's row says so where a report would be
/// linked. Both used to be silent: an export of the data alone, exit 0, and a bare "-".
pub fn a_run_stored_without_its_report_says_so() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("results.db");
    let rec = w.join("rec");
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .args(["--no-record", "recovery", "emu:970evo-500g", "--simulate"])
        .args(["--idle", "10s", "--seed", "1", "-q", "--out"])
        .arg(&rec)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for e in std::fs::read_dir(&rec).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("report.") || n.ends_with(".png") || n.ends_with(".svg") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    let (code, _, err) = slc(&db, &["runs", "import", rec.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    let ex = w.join("ex");
    let (code, _, err) = slc(
        &db,
        &["runs", "export", "1", "--out", ex.to_str().unwrap()],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(ex.join("recovery.csv").is_file());
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].contains("run 1 is stored without report.md, report.html and charts"),
        "{err}"
    );
    let lib = w.join("lib");
    let (code, _, err) = slc(&db, &["runs", "--html", lib.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(lib.join("index.html")).unwrap();
    assert!(
        page.contains("not stored: report.md, report.html, charts"),
        "{page}"
    );
    // A disk that filled between two charts: recovery.png and .svg are there, the bursts'
    // chart is not. Both outputs it lacks are named (only the reports were).
    let rec2 = w.join("rec2");
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .args(["--no-record", "recovery", "emu:970evo-500g", "--simulate"])
        .args(["--idle", "10s", "--seed", "2", "-q", "--out"])
        .arg(&rec2)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "report.md",
        "report.html",
        "recovery-bursts.png",
        "recovery-bursts.svg",
    ] {
        std::fs::remove_file(rec2.join(f)).unwrap();
    }
    let (code, _, err) = slc(&db, &["runs", "import", rec2.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    let ex2 = w.join("ex2");
    let (code, _, err) = slc(
        &db,
        &["runs", "export", "2", "--out", ex2.to_str().unwrap()],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("run 2 is stored without report.md, report.html, recovery-bursts.png and recovery-bursts.svg"),
        "{err}"
    );
    // A run whose report is stored (or drawn again) says nothing of the kind.
    let sim = w.join("sim");
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .arg("--db")
        .arg(&db)
        .args([
            "simulate",
            "960evo-250g",
            "--duration",
            "60s",
            "-q",
            "--out",
        ])
        .arg(&sim)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ex3 = w.join("ex3");
    let (code, _, err) = slc(
        &db,
        &["runs", "export", "3", "--out", ex3.to_str().unwrap()],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("stored without"), "{err}");
    // A folder imported after some of its charts were deleted: the export's report.md links
    // them, and the export said nothing.
    let sim2 = w.join("sim2");
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .args([
            "--no-record",
            "simulate",
            "970evo-250g",
            "--duration",
            "60s",
        ])
        .args(["-q", "--out"])
        .arg(&sim2)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_file(sim2.join("latency.png")).unwrap();
    let (code, _, err) = slc(&db, &["runs", "import", sim2.to_str().unwrap()], w);
    assert_eq!(code, Some(0), "{err}");
    let ex4 = w.join("ex4");
    let (code, _, err) = slc(
        &db,
        &["runs", "export", "4", "--out", ex4.to_str().unwrap()],
        w,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!ex4.join("latency.png").exists());
    assert!(err.contains("run 4 is stored without latency.png"), "{err}");
}

/// Regression: after a run recorded into the default store, the reminder "2 earlier run(s)
/// wait in the spool to be recorded: slccache runs import --pending" counted runs spooled for
/// a lab's store, which that command refuses to record here. The reminder counts the runs
/// spooled for the store the run went to, with the command that records them there, and the
/// others apart.
pub fn the_spool_reminder_counts_only_this_store_s_runs() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let spool = w.join("spool");
    let lab = w.join("lab.db");
    let own = w.join("own.db");
    // Stores that cannot take a run now: files that are not databases.
    std::fs::write(&lab, "not yet a database\n").unwrap();
    std::fs::write(&own, "not yet a database\n").unwrap();
    let bin = || spooling(w, &spool);
    let sim = |db: &std::path::Path, out: &str| {
        let o = bin()
            .arg("--db")
            .arg(db)
            .args(["simulate", "960evo-250g", "--seed", "4", "--out", out])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    sim(&lab, "a");
    sim(&lab, "b");
    sim(&own, "c");
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 3);
    // Into the default store: none of the three is meant for it.
    let err = sim(&w.join(".local/share/slccache/results.db"), "d");
    assert!(!err.contains("spooled for"), "{err}");
    assert!(!err.contains("wait in the spool"), "{err}");
    // Into own.db, fixed: one is its own, two wait for another store.
    std::fs::remove_file(&own).unwrap();
    let err = sim(&own, "e");
    assert!(
        err.contains(
            "1 earlier run spooled for ~/own.db waits to be recorded: slccache --db ~/own.db \
             runs import --pending (2 more wait for another store)"
        ),
        "{err}"
    );
}
