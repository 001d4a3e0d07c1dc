//! The results store on SQLite: the shared cases (tests/store_util/cases.rs), and the ways an
//! SQLite file can be bad.

mod store_util;

use slccache::store::{Filter, Location, Store};

#[test]
fn store_cases_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    store_util::cases::run_all(&mut || {
        n += 1;
        Location::Sqlite(dir.path().join(format!("case{n}.db")))
    });
}

fn sim_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("sim");
    store_util::simulate_folder(&f, "p5-1tb", 5);
    (d, f)
}

fn open_err(p: &std::path::Path) -> String {
    match Store::open(&Location::Sqlite(p.to_path_buf())) {
        Ok(_) => panic!("{} opened as a store", p.display()),
        Err(e) => format!("{e:#}"),
    }
}

/// A text file, an SQLite file of another program, a truncated store and a store in a
/// read-only folder are refused with a message naming the cause, and left as they were.
#[test]
fn bad_sqlite_files_are_refused_unchanged() {
    let (_d, sim) = sim_folder();
    let dir = tempfile::tempdir().unwrap();

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database\n".repeat(200)).unwrap();
    let before = std::fs::read(&text).unwrap();
    let e = open_err(&text);
    assert!(
        e.contains("not an SQLite database") && e.contains("notes.txt"),
        "{e}"
    );
    assert_eq!(std::fs::read(&text).unwrap(), before);

    let other = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE recipes (name TEXT)").unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let e = open_err(&other);
    assert!(e.contains("another program"), "{e}");
    assert_eq!(std::fs::read(&other).unwrap(), before);

    // A store with runs in it, cut to half its size.
    let cut = dir.path().join("cut.db");
    {
        let mut s = Store::open(&Location::Sqlite(cut.clone())).unwrap();
        s.import_folder(&sim).unwrap();
    }
    // Fold the WAL into the file first, so the cut really removes pages.
    rusqlite::Connection::open(&cut)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let len = std::fs::metadata(&cut).unwrap().len();
    assert!(len > 8192, "store only {len} bytes");
    let f = std::fs::OpenOptions::new().write(true).open(&cut).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);
    let before = std::fs::read(&cut).unwrap();
    let r = Store::open(&Location::Sqlite(cut.clone())).and_then(|mut s| {
        s.list(&Filter::default())?;
        s.import_folder(&sim)
    });
    let e = format!("{:#}", r.expect_err("a truncated store must fail"));
    assert!(e.contains("malformed") || e.contains("damaged"), "{e}");
    assert_eq!(std::fs::read(&cut).unwrap(), before);

    // A store that cannot be created: its folder would be a regular file (root ignores
    // permissions; tests/store_cli.rs runs a read-only folder as an unprivileged user).
    let under_file = text.join("results.db");
    let e = open_err(&under_file);
    assert!(e.contains("cannot create the folder"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&text).unwrap(),
        "not a database\n".repeat(200)
    );
}

/// The child half of `sigkill_while_recording_leaves_whole_runs`: records copies of a folder
/// (each with its own label, so each is a new run) until it is killed.
#[test]
fn sigkill_child_records_forever() {
    let (Some(db), Some(src)) = (
        std::env::var_os("SLCCACHE_TEST_KILL_DB"),
        std::env::var_os("SLCCACHE_TEST_KILL_SRC"),
    ) else {
        return; // Only does something when started by the test below.
    };
    let src = std::path::PathBuf::from(src);
    let work = tempfile::tempdir().unwrap();
    let mut s = Store::open(&Location::parse(db.to_str().unwrap()).unwrap()).unwrap();
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

/// SIGKILL in the middle of recording leaves a store that opens, and every run in it whole:
/// all its files there and exportable.
#[test]
fn sigkill_while_recording_leaves_whole_runs() {
    let (_d, sim) = sim_folder();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    store_util::kill_while_recording(
        &Location::Sqlite(db.clone()),
        &db.display().to_string(),
        &sim,
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let check: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}
