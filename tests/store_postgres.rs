//! The results store on a real PostgreSQL server that the test starts itself (Debian's
//! `postgresql` binaries, a data folder in a temporary directory, a free port on 127.0.0.1),
//! running the same cases as SQLite; the server is stopped by PID when the test ends, also
//! when it fails.

mod store_util;

use slccache::store::Location;

#[test]
fn store_cases_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    store_util::cases::run_all(&mut || Location::Postgres(pg.new_db()));
}

/// The child half of `sigkill_while_recording_on_postgres` (see tests/store_sqlite.rs).
#[test]
fn sigkill_child_records_forever() {
    let (Some(db), Some(src)) = (
        std::env::var_os("SLCCACHE_TEST_KILL_DB"),
        std::env::var_os("SLCCACHE_TEST_KILL_SRC"),
    ) else {
        return;
    };
    let src = std::path::PathBuf::from(src);
    let work = tempfile::tempdir().unwrap();
    let mut s =
        slccache::store::Store::open(&Location::parse(db.to_str().unwrap()).unwrap()).unwrap();
    let text = std::fs::read_to_string(src.join("summary.json")).unwrap();
    for i in 0.. {
        let d = work.path().join(format!("r{i}"));
        std::fs::create_dir(&d).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), d.join(e.file_name())).unwrap();
        }
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["run"]["label"] = format!("kill {i}").into();
        std::fs::write(d.join("summary.json"), v.to_string()).unwrap();
        s.import_folder(&d).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// SIGKILL while recording into PostgreSQL leaves every run whole or absent.
#[test]
fn sigkill_while_recording_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let sim = d.path().join("sim");
    store_util::simulate_folder(&sim, "p5-1tb", 6);
    let url = pg.new_db();
    store_util::kill_while_recording(&Location::Postgres(url.clone()), &url, &sim);
}

/// An unreachable server fails with a clear message: a port nothing listens on at once, and
/// a server that accepts but never answers after the connect timeout (the default one: the
/// URL sets none).
#[test]
fn unreachable_postgres_fails_with_a_clear_message() {
    use std::net::TcpListener;
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let e = slccache::store::Store::open(
        &Location::parse(&format!("postgres://u:secret@127.0.0.1:{port}/db")).unwrap(),
    )
    .err()
    .unwrap();
    let msg = format!("{e:#}");
    assert!(
        msg.contains("cannot connect") && msg.contains("postgres://u@127.0.0.1"),
        "{msg}"
    );
    assert!(!msg.contains("secret"), "{msg}");

    // Accepts, never says a word; lets go after two minutes so that a missing timeout fails
    // this test with the wrong message instead of hanging it.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let keeper = std::thread::spawn(move || {
        let (sock, _) = silent.accept().unwrap();
        std::thread::sleep(std::time::Duration::from_secs(120));
        drop(sock);
    });
    let e = slccache::store::Store::open(
        &Location::parse(&format!("postgres://u@127.0.0.1:{port}/db")).unwrap(),
    )
    .err()
    .unwrap();
    let msg = format!("{e:#}").to_lowercase();
    assert!(
        msg.contains("cannot connect") && msg.contains("timed out"),
        "{msg}"
    );
    drop(keeper); // detached: it ends on its own
}

/// The user's scenario through the binary on PostgreSQL: four probes recording at once, an
/// import, the listing, compare by id, export.
#[test]
fn probe_import_list_compare_export_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let url = pg.new_db();
    store_util::user_scenario(&url);
}

/// Every column of every run and its stored files, by content hash (ids differ between
/// stores): what a copy must keep.
fn everything(loc: &Location) -> Vec<Vec<String>> {
    let mut s = slccache::store::Store::open_existing(loc).unwrap();
    let rows = s
        .backend()
        .query(
            "SELECT content_hash, kind, recorded_at, started_at, interrupted, model, serial, \
             firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes, \
             cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec, \
             after_cache_bytes_per_sec, data_units_written, percentage_used, source_dir, \
             render, summary, id FROM runs ORDER BY content_hash",
            &[],
        )
        .unwrap();
    let mut out = Vec::new();
    for r in rows {
        let id = r.last().unwrap().as_i64().unwrap();
        use slccache::store::Val;
        let mut line: Vec<String> = r[..r.len() - 1]
            .iter()
            .map(|v| match v {
                Val::Int(Some(x)) => x.to_string(),
                Val::Real(Some(x)) => format!("{x:?}"),
                Val::Text(Some(x)) => x.clone(),
                Val::Blob(Some(x)) => format!("{x:?}"),
                _ => "NULL".into(),
            })
            .collect();
        let run = s.get(id).unwrap();
        for (name, data) in &run.files {
            line.push(format!(
                "{name}: {} bytes, {:x?}",
                data.len(),
                &data[..16.min(data.len())]
            ));
            line.push(format!(
                "{:?}",
                data == &std::fs::read(
                    std::path::Path::new(run.row.source_dir.as_deref().unwrap()).join(name)
                )
                .unwrap_or_default()
            ));
        }
        out.push(line);
    }
    out
}

/// Asserts that two stores' [`everything`] agree, naming the first field that differs.
fn same(a: &[Vec<String>], b: &[Vec<String>]) {
    assert_eq!(a.len(), b.len(), "run counts differ");
    for (ra, rb) in a.iter().zip(b) {
        assert_eq!(ra.len(), rb.len(), "field counts differ for {}", ra[0]);
        for (i, (x, y)) in ra.iter().zip(rb).enumerate() {
            let cut = |s: &str| s.chars().take(300).collect::<String>();
            assert!(
                x == y,
                "run {}: field {i} differs:\n  {}\n  {}",
                ra[0],
                cut(x),
                cut(y)
            );
        }
    }
}

/// `runs copy` moves runs from SQLite to PostgreSQL and back with nothing lost (every column,
/// the date recorded, host, tags, render options, files; exports byte for byte), each run once
/// however often it is copied; the filters choose what is copied.
#[test]
fn runs_copy_between_sqlite_and_postgres_keeps_everything_once() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let lite = w.join("a.db");
    let lite_s = lite.to_str().unwrap().to_string();
    for (i, host) in ["bench-1", "bench-2"].iter().enumerate() {
        store_util::ok(
            store_util::slccache(&lite)
                .args([
                    "simulate",
                    "960evo-250g",
                    "--seed",
                    &(i + 1).to_string(),
                    "-q",
                ])
                .args(["--host", host, "--tag", "rack=r3", "--out"])
                .arg(w.join(format!("s{i}"))),
        );
    }
    // A folder stored whole (recovery) and an imported one.
    store_util::ok(
        store_util::slccache(&lite)
            .args(["recovery", "emu:960evo-250g", "--simulate", "--idle", "10s"])
            .args(["--seed", "4", "-q", "--host", "bench-3", "--out"])
            .arg(w.join("rec")),
    );
    let url = pg.new_db();
    let copy = |from: &str, to: &str, extra: &[&str]| -> String {
        store_util::ok(
            std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
                .args(["runs", "copy", "--from", from, "--to", to])
                .args(extra),
        )
    };
    let out = copy(&lite_s, &url, &["--host", "bench-2"]);
    assert!(out.contains("copied 1 run from"), "{out}");
    let out = copy(&lite_s, &url, &[]);
    assert!(
        out.contains("copied 2 runs from") && out.contains("(1 already there)"),
        "{out}"
    );
    let out = copy(&lite_s, &url, &[]);
    assert!(
        out.contains("copied 0 runs from") && out.contains("(3 already there)"),
        "{out}"
    );
    let pg_loc = Location::Postgres(url.clone());
    let lite_loc = Location::Sqlite(lite.clone());
    same(&everything(&lite_loc), &everything(&pg_loc));
    // And back, into a new SQLite file.
    let back = w.join("b.db");
    let out = copy(&url, back.to_str().unwrap(), &[]);
    assert!(out.contains("copied 3 runs from"), "{out}");
    let back_loc = Location::Sqlite(back.clone());
    same(&everything(&lite_loc), &everything(&back_loc));
    // Every run exports the same folder from each store.
    let a = store_util::runs_json(&lite_s);
    let b = store_util::runs_json(back.to_str().unwrap());
    assert_eq!(a.len(), 3);
    for (ra, rb) in a.iter().zip(&b) {
        let strip = |r: &serde_json::Value| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("id");
            r
        };
        assert_eq!(strip(ra), strip(rb));
        for (db, r, tag) in [
            (&lite_s, ra, "a"),
            (&url, rb, "p"),
            (&back.to_str().unwrap().to_string(), rb, "b"),
        ] {
            let id = if tag == "p" {
                store_util::runs_json(&url)
                    .iter()
                    .find(|x| x["source_dir"] == r["source_dir"])
                    .unwrap()["id"]
                    .as_i64()
                    .unwrap()
            } else {
                r["id"].as_i64().unwrap()
            };
            let out = w.join(format!("x-{tag}-{id}"));
            store_util::ok(
                std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
                    .args(["--db", db, "runs", "export", &id.to_string(), "--out"])
                    .arg(&out),
            );
            store_util::assert_same_folder(
                std::path::Path::new(ra["source_dir"].as_str().unwrap()),
                &out,
            );
        }
    }
    // The same store twice, or no --to, is refused.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args(["runs", "copy", "--from", &lite_s, "--to", &lite_s])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
