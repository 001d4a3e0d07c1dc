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
