//! The results store is never a probe's target: `probe FILE --overwrite` where FILE is the
//! store (`--db`, `SLCCACHE_DB` or the default), its `-wal` or `-shm` file, a symlink, a hard
//! link or a relative path to it, or a loop device over it, is refused (exit 1) with one line
//! naming the store, and the store keeps every run.

use crate::common::fault_util;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use fault_util::{may_run, LoopDev};

fn slccache(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
    c.env("SLCCACHE_DB", db).stdin(Stdio::null());
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Records one simulated run into the store that `c` names.
fn record_one(mut c: Command, out: &Path) {
    let o = c
        .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("recorded as run 1"), "{}", stderr(&o));
}

/// The runs in the store `db`.
fn runs_in(db: &Path) -> usize {
    let o = slccache(db).args(["runs", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<Vec<serde_json::Value>>(&o.stdout)
        .unwrap()
        .len()
}

/// A probe of `target` (with `extra` flags) by `c`: refused with exit 1, one error line that
/// names `what` and the store `store`, and no output folder.
fn refused(mut c: Command, target: &str, extra: &[&str], what: &str, store: &Path, out: &Path) {
    let o = c
        .args(["probe", target, "--duration", "1s", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "probe {target}: {e}");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 1, "probe {target}: {e}");
    assert!(
        lines[0].starts_with("slccache: error: refusing to write to")
            && lines[0].contains(what)
            && lines[0].contains(&store.display().to_string()),
        "probe {target}: {e}"
    );
    assert!(!out.exists(), "probe {target} made {}", out.display());
}

pub fn the_results_store_is_never_a_probe_target() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("lib/results.db");
    record_one(slccache(&db), &w.join("run"));
    let before = std::fs::read(&db).unwrap();
    let store = "slccache's results store";
    let unchanged = || assert!(std::fs::read(&db).unwrap() == before, "the store changed");

    // The store named by SLCCACHE_DB, by its own path.
    let t = db.to_str().unwrap();
    refused(
        slccache(&db),
        t,
        &["--overwrite"],
        store,
        &db,
        &w.join("o1"),
    );
    unchanged();
    // A symlink and a hard link to it.
    let link = w.join("link.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let t = link.to_str().unwrap();
    refused(
        slccache(&db),
        t,
        &["--overwrite"],
        store,
        &db,
        &w.join("o2"),
    );
    let hard = w.join("hard.db");
    std::fs::hard_link(&db, &hard).unwrap();
    let t = hard.to_str().unwrap();
    refused(
        slccache(&db),
        t,
        &["--overwrite"],
        store,
        &db,
        &w.join("o3"),
    );
    unchanged();
    // A relative path, from the store's folder.
    let mut c = slccache(&db);
    c.current_dir(w.join("lib"));
    refused(c, "results.db", &["--overwrite"], store, &db, &w.join("o4"));
    // Without --overwrite the store is named too, not "give --overwrite".
    refused(
        slccache(&db),
        db.to_str().unwrap(),
        &[],
        store,
        &db,
        &w.join("o5"),
    );
    // The store named by --db (SLCCACHE_DB names another).
    let mut c = slccache(&w.join("other.db"));
    c.arg("--db").arg(&db);
    refused(
        c,
        db.to_str().unwrap(),
        &["--overwrite"],
        store,
        &db,
        &w.join("o6"),
    );
    unchanged();

    // The -wal and -shm files, there while the store is open.
    {
        let _open =
            slccache::store::Store::open(&slccache::store::Location::Sqlite(db.clone())).unwrap();
        for (suffix, what) in [
            ("-wal", "the write-ahead log of"),
            ("-shm", "the shared-memory index of"),
        ] {
            let f = format!("{}{suffix}", db.display());
            assert!(Path::new(&f).exists(), "{f} is not there");
            let out = w.join(format!("o{suffix}"));
            refused(slccache(&db), &f, &["--overwrite"], what, &db, &out);
        }
    }
    // A -wal file that is not there (SQLite removed it when the store was closed): refused
    // by its name, and not created.
    let wal = format!("{}-wal", db.display());
    assert!(!Path::new(&wal).exists(), "{wal} is still there");
    let out = w.join("o7");
    refused(
        slccache(&db),
        &wal,
        &["--size", "1MiB"],
        "write-ahead log",
        &db,
        &out,
    );
    assert!(!Path::new(&wal).exists());
    assert_eq!(runs_in(&db), 1);

    // The default store, $XDG_DATA_HOME/slccache/results.db, when neither names one.
    let xdg = w.join("xdg");
    let default = xdg.join("slccache/results.db");
    let env = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
        c.env_remove("SLCCACHE_DB")
            .env("XDG_DATA_HOME", &xdg)
            .stdin(Stdio::null());
        c
    };
    record_one(env(), &w.join("run2"));
    let t = default.to_str().unwrap();
    refused(env(), t, &["--overwrite"], store, &default, &w.join("o8"));
    assert_eq!(runs_in(&default), 1);
}

/// A loop device over the store is refused as the store itself is.
pub fn a_loop_device_over_the_results_store_is_refused() {
    let test = "a_loop_device_over_the_results_store_is_refused";
    if !may_run(test) {
        return;
    }
    let d = fault_util::scratch("store-loop-");
    let db = d.path().join("results.db");
    record_one(slccache(&db), &d.path().join("run"));
    let before = std::fs::read(&db).unwrap();
    let lo = LoopDev::attach(&db, false);
    let what = "a loop device over slccache's results store";
    let out = d.path().join("o");
    refused(slccache(&db), &lo.dev, &["--destroy-data"], what, &db, &out);
    drop(lo);
    assert!(std::fs::read(&db).unwrap() == before, "the store changed");
    assert_eq!(runs_in(&db), 1);
}

/// A store other than the one the run records into (a lab's second store, the default one
/// reached from a shell whose `--db` names another) was written over with `--overwrite`: 10 MB
/// as 19.7 passes over its 508 kB, exit 0, every run in it gone. An SQLite file that holds an
/// slccache store is refused as the active one is, and keeps every run.
pub fn another_results_store_is_never_a_probe_target() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let other = w.join("other.db");
    record_one(slccache(&other), &w.join("r"));
    let before = std::fs::read(&other).unwrap();
    let mine = w.join("mine.db");
    let target = other.display().to_string();
    refused(
        slccache(&mine),
        &target,
        &["--overwrite"],
        "an slccache results store",
        &other,
        &w.join("o"),
    );
    assert_eq!(
        std::fs::read(&other).unwrap(),
        before,
        "the store was written"
    );
    assert_eq!(runs_in(&other), 1);
    // The files SQLite keeps beside it: its write-ahead log was written over (100 MB into a
    // 0-byte `-wal`, whatever it held not yet checkpointed lost) where the store itself was
    // refused; a rollback journal that does not exist yet would be made, and read back as a
    // hot journal by the next to open the store.
    let wal = w.join("other.db-wal");
    std::fs::write(&wal, b"").unwrap();
    for (file, what) in [
        (
            "other.db-wal",
            "the write-ahead log of an slccache results store",
        ),
        (
            "other.db-shm",
            "the shared-memory index of an slccache results store",
        ),
        (
            "other.db-journal",
            "the rollback journal of an slccache results store",
        ),
    ] {
        let target = w.join(file);
        refused(
            slccache(&mine),
            target.to_str().unwrap(),
            &["--overwrite", "--size", "10MB"],
            what,
            &other,
            &w.join(format!("o-{file}")),
        );
    }
    assert_eq!(std::fs::read(&wal).unwrap(), b"", "the -wal was written");
    assert!(!w.join("other.db-journal").exists());
    assert_eq!(runs_in(&other), 1);
}
