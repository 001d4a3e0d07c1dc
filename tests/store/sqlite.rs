//! The results store on SQLite: the shared cases (tests/store_util/cases.rs), and the ways an
//! SQLite file can be bad.

use crate::common::store_util;

use slccache::store::{Filter, Location, Store};

pub fn store_cases_on_sqlite() {
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
pub fn bad_sqlite_files_are_refused_unchanged() {
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
pub fn sigkill_child_records_forever() {
    let (Some(db), Some(src)) = (
        std::env::var_os("SLCCACHE_TEST_KILL_DB"),
        std::env::var_os("SLCCACHE_TEST_KILL_SRC"),
    ) else {
        panic!("started without the store and folder of the test that starts it");
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
pub fn sigkill_while_recording_leaves_whole_runs() {
    let (_d, sim) = sim_folder();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    store_util::kill_while_recording(
        &Location::Sqlite(db.clone()),
        &db.display().to_string(),
        &sim,
        "sqlite::sigkill_child_records_forever",
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let check: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

/// An SQLite store of schema version 1 takes version 2 on its own (it only adds columns): the
/// new columns filled from the summaries, and the compatible-with version, which every
/// slccache reads from `slccache_schema.version`, left at 1, so slccache of version 1 goes on
/// recording there (its rows without the new columns).
pub fn a_version_1_sqlite_store_takes_version_2_and_older_writers_go_on() {
    use assert_cmd::cargo::CommandCargoExt;
    use slccache::store::schema;
    let (_d, sim) = sim_folder();
    let sim_b = _d.path().join("sim-b");
    store_util::simulate_folder(&sim_b, "960evo-250g", 6);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v1.db");
    let loc = Location::Sqlite(db.clone());
    let v1 = &schema::MIGRATIONS[..1];
    Store::open_with(loc.connect().unwrap(), v1)
        .unwrap()
        .import_folder(&sim)
        .unwrap();
    let mut s = Store::open(&loc).unwrap();
    assert_eq!(
        schema::read_version(s.backend()).unwrap(),
        schema::SCHEMA_VERSION
    );
    drop(s);
    let c = rusqlite::Connection::open(&db).unwrap();
    let (version, bytes): (i64, Option<i64>) = c
        .query_row(
            "SELECT (SELECT MAX(version) FROM slccache_schema), bytes_written FROM runs \
             WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(version, 1, "what slccache of version 1 reads");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sim.join("summary.json")).unwrap()).unwrap();
    assert_eq!(bytes, summary["totals"]["bytes"].as_i64());
    assert!(bytes.unwrap() > 0);
    // slccache of version 1 records into it, and this one reads what it wrote.
    let id = Store::open_with(loc.connect().unwrap(), v1)
        .unwrap()
        .import_folder(&sim_b)
        .unwrap()
        .id();
    let mut s = Store::open(&loc).unwrap();
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
    let back = dir.path().join("back");
    s.export(id, &back).unwrap();
    store_util::assert_same_folder(&sim_b, &back);
    // `db migrate` on it has nothing left to do.
    let mut c = std::process::Command::cargo_bin("slccache").unwrap();
    let out = store_util::ok(c.arg("--db").arg(&db).args(["db", "migrate"]));
    assert!(
        out.contains(&format!(
            "at schema version {} already (2 runs)",
            slccache::store::schema::SCHEMA_VERSION
        )),
        "{out}"
    );
}
