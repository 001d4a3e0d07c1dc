//! The results store at a lab's scale: FLEET_RUNS runs (default 100,000) of 1-hour timelines
//! from 100 hosts and 10 drive models, recorded into SQLite and into PostgreSQL (a server of
//! the bench's own, as the tests start it), then the store's size and `slccache runs` as a
//! user types it, timed as a process (median and range of 10): with a host filter, with a
//! host and drive filter, `--by host` and `--by drive`. Last, 32 `runs import` processes at
//! once into PostgreSQL, and whether all 32 runs are there.
//!
//! The first FLEET_RECORDED runs (default 1000) are recorded through the store as `runs
//! import` records a folder, and timed; the rest are copies of them made in SQL (each with its
//! own row, id, hash, host, drive and serial, and its own copy of the stored files and, on
//! PostgreSQL, of the timeline rows), so that the store holds what that many recorded runs
//! would without the hours recording them would take.
//!
//! A 1-hour timeline at 1 s is 3600 rows; PostgreSQL keeps each run's timeline as rows of a
//! table as well (for Grafana), so 100,000 runs at 1 s would be 360 million rows, some 40 GB:
//! `FLEET_PG_INTERVAL` (seconds, default 10) sets PostgreSQL's runs' interval; SQLite's is
//! 1 s. The listing commands read the `runs` table only, so what they take does not depend
//! on the interval.
//!
//! `cargo bench --bench fleet` on a quiet machine, with the release binary built
//! (`cargo build --release`) and PostgreSQL installed (`.ci/run` installs it). `FLEET_RUNS`,
//! `FLEET_PG=0` (SQLite only), `FLEET_KEEP=1` (keep the SQLite store, to look at it). A benchmark, not a test: nothing is checked against a bound.

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;
#[path = "common/run_folder.rs"]
mod run_folder;
use run_folder::folder;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use slccache::report::ReportOptions;
use slccache::store::{Location, RecordOptions, RenderOptions, Store};

const HOSTS: usize = 100;
const DRIVES: usize = 10;

/// Run `i`'s summary: its own label (so its own content hash), drive and start time.
fn summary_of(template: &serde_json::Value, i: usize) -> String {
    let mut v = template.clone();
    let d = i % DRIVES;
    v["run"]["label"] = format!("Fleet Drive {d} 2TB run {i}").into();
    v["run"]["device"]["model"] = format!("Fleet Drive {d} 2TB").into();
    v["run"]["device"]["serial"] = format!("FLEET{:04}", i % (DRIVES * 50)).into();
    let start = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap()
        + chrono::Duration::minutes(5 * i as i64);
    v["run"]["started_at"] = start.to_rfc3339().into();
    v.to_string()
}

/// Records `n` runs into `loc` from the folder at `src` through the store, as `runs import`
/// records them; returns the seconds it took.
fn populate(loc: &Location, src: &Path, n: usize) -> f64 {
    let mut store = Store::open(loc).unwrap();
    let template: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("summary.json")).unwrap()).unwrap();
    let render = RenderOptions::from(&ReportOptions::default());
    let t0 = Instant::now();
    for i in 0..n {
        std::fs::write(src.join("summary.json"), summary_of(&template, i)).unwrap();
        store
            .record_folder(
                src,
                &RecordOptions {
                    render: Some(render.clone()),
                    host: Some(format!("lab-host-{:02}", i % HOSTS)),
                    ..RecordOptions::default()
                },
            )
            .unwrap();
        if (i + 1) % 10_000 == 0 {
            eprintln!("  {} runs in {:.0} s", i + 1, t0.elapsed().as_secs_f64());
        }
    }
    std::fs::write(
        src.join("summary.json"),
        serde_json::to_string(&template).unwrap(),
    )
    .unwrap();
    t0.elapsed().as_secs_f64()
}

/// `slccache --db DB runs ARGS`, 10 times: (median, min, max) ms and the lines it printed.
fn time_runs(bin: &Path, db: &str, args: &[&str]) -> (f64, f64, f64, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..10 {
        let t = Instant::now();
        let o = Command::new(bin)
            .args(["--db", db, "runs"])
            .args(args)
            .output()
            .unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(
            o.status.success(),
            "runs {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        lines = o.stdout.iter().filter(|&&b| b == b'\n').count();
    }
    times.sort_by(f64::total_cmp);
    (times[5], times[0], times[9], lines)
}

/// The value of column `c` in the copy numbered `k` (SQL) of run `r`: its own id, content
/// hash, host, drive and serial, as [`summary_of`] and [`populate`] give run `k`.
fn clone_expr(c: &str, pg: bool) -> String {
    match c {
        "id" => "k + 1".into(),
        "content_hash" => "r.content_hash || '-copy-' || k".into(),
        "host" if pg => "'lab-host-' || lpad((k % 100)::text, 2, '0')".into(),
        "host" => "printf('lab-host-%02d', k % 100)".into(),
        "model" => "'Fleet Drive ' || (k % 10) || ' 2TB'".into(),
        "label" => "'Fleet Drive ' || (k % 10) || ' 2TB run ' || k".into(),
        "serial" if pg => "'FLEET' || lpad((k % 500)::text, 4, '0')".into(),
        "serial" => "printf('FLEET%04d', k % 500)".into(),
        c => format!("r.{c}"),
    }
}

/// Fills the store up to `n` runs with copies of its first `have` (recorded by [`populate`]):
/// run `k` copies run `k % have + 1`'s row (with its own id, hash, host, drive and serial),
/// its stored files and, on PostgreSQL, its timeline rows. Returns the seconds it took.
fn clone_sqlite(db: &Path, have: usize, n: usize) -> f64 {
    let t0 = Instant::now();
    let c = rusqlite::Connection::open(db).unwrap();
    let cols: Vec<String> = c
        .prepare("SELECT name FROM pragma_table_info('runs')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let list = cols.join(", ");
    let exprs: Vec<String> = cols.iter().map(|c| clone_expr(c, false)).collect();
    let exprs = exprs.join(", ");
    let mut from = have;
    while from < n {
        let to = (from + 10_000).min(n);
        let seq = format!(
            "WITH RECURSIVE seq(k) AS (SELECT {from} UNION ALL SELECT k + 1 FROM seq WHERE k + 1 < {to})"
        );
        c.execute_batch(&format!(
            "BEGIN;
             {seq} INSERT INTO runs ({list}) SELECT {exprs} FROM seq JOIN runs r ON r.id = k % {have} + 1;
             {seq} INSERT INTO run_files (run_id, name, data) SELECT k + 1, f.name, f.data FROM seq
                 JOIN run_files f ON f.run_id = k % {have} + 1;
             COMMIT;"
        ))
        .unwrap();
        from = to;
    }
    t0.elapsed().as_secs_f64()
}

/// [`clone_sqlite`] on PostgreSQL, with the timeline rows.
fn clone_pg(admin: &mut postgres::Client, have: usize, n: usize) -> f64 {
    let t0 = Instant::now();
    let cols: Vec<String> = admin
        .query(
            "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'runs' \
             AND table_schema = current_schema() ORDER BY ordinal_position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let list = cols.join(", ");
    let exprs: Vec<String> = cols.iter().map(|c| clone_expr(c, true)).collect();
    let exprs = exprs.join(", ");
    let mut from = have;
    while from < n {
        let to = (from + 5_000).min(n);
        let seq = format!("generate_series({from}, {}) AS k", to - 1);
        admin
            .batch_execute(&format!(
                "BEGIN;
                 INSERT INTO runs ({list}) SELECT {exprs} FROM {seq} JOIN runs r ON r.id = k % {have} + 1;
                 INSERT INTO run_files (run_id, name, data) SELECT k + 1, f.name, f.data FROM {seq}
                     JOIN run_files f ON f.run_id = k % {have} + 1;
                 INSERT INTO timeline SELECT k + 1, t.n, t.t_s, t.bytes, t.bytes_per_sec,
                     t.lat_p99_us, t.temp_c FROM {seq} JOIN timeline t ON t.run_id = k % {have} + 1;
                 COMMIT;"
            ))
            .unwrap();
        from = to;
        if from.is_multiple_of(20_000) {
            eprintln!("  {from} runs in {:.0} s", t0.elapsed().as_secs_f64());
        }
    }
    admin
        .batch_execute(
            "SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT max(id) FROM runs)); \
             ANALYZE",
        )
        .unwrap();
    t0.elapsed().as_secs_f64()
}

fn report_queries(what: &str, bin: &Path, db: &str) {
    for args in [
        &["--host", "lab-host-42"][..],
        &["--host", "lab-host-42", "--drive", "Fleet Drive 2"][..],
        &["--by", "host"][..],
        &["--by", "drive"][..],
    ] {
        let (med, lo, hi, lines) = time_runs(bin, db, args);
        println!(
            "{what}: `runs {}`: median {med:.0} ms ({lo:.0}-{hi:.0} ms over 10), {lines} lines",
            args.join(" ")
        );
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let n: usize = std::env::var("FLEET_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    // Recorded through the store; the rest are copies (a multiple of 500, so that a copy's
    // drive and serial are its original's).
    let recorded: usize = std::env::var("FLEET_RECORDED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
        .min(n);
    let pg = std::env::var("FLEET_PG").map(|v| v != "0").unwrap_or(true);
    let pg_interval: usize = std::env::var("FLEET_PG_INTERVAL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let bin = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("release/slccache");
    assert!(
        bin.is_file(),
        "no release binary at {}: cargo build --release",
        bin.display()
    );
    let dir = tempfile::Builder::new()
        .prefix("fleet-bench-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();

    // SQLite, 1 s timelines.
    let src = dir.path().join("run1s");
    folder(&src, 1, "Fleet Drive 0 2TB", "FLEET0", "probe");
    let db = dir.path().join("fleet.db");
    let secs = populate(&Location::Sqlite(db.clone()), &src, recorded);
    let copy_secs = clone_sqlite(&db, recorded, n);
    // The copies went in through a connection of the bench's own: let the store check them.
    drop(Store::open(&Location::Sqlite(db.clone())).unwrap());
    let size = std::fs::metadata(&db).unwrap().len()
        + std::fs::metadata(db.with_extension("db-wal")).map_or(0, |m| m.len());
    println!(
        "sqlite: {n} runs of 3600 samples from {HOSTS} hosts ({recorded} recorded in {secs:.0} s, \
         {:.1} ms a run; {} copied in SQL in {copy_secs:.0} s); file {:.2} GB ({:.0} kB a run)",
        secs * 1e3 / recorded as f64,
        n - recorded,
        size as f64 / 1e9,
        size as f64 / 1e3 / n as f64
    );
    report_queries("sqlite", &bin, db.to_str().unwrap());
    if std::env::var_os("FLEET_KEEP").is_some() {
        let kept = dir.path().with_extension("kept.db");
        std::fs::rename(&db, &kept).unwrap();
        println!("sqlite: store kept at {}", kept.display());
    }
    std::fs::remove_file(&db).ok();

    if !pg {
        return;
    }
    let Some(mut server) = common::store_util::PgServer::start() else {
        println!("postgres: not installed here; skipped");
        return;
    };
    let name = server.new_db_name();
    let url = server.url(&name);
    let src = dir.path().join(format!("run{pg_interval}s"));
    folder(&src, pg_interval, "Fleet Drive 0 2TB", "FLEET0", "probe");
    let secs = populate(&Location::Postgres(url.clone()), &src, recorded);
    let mut admin = server.admin(&name);
    let copy_secs = clone_pg(&mut admin, recorded, n);
    let size: i64 = admin
        .query_one("SELECT pg_database_size(current_database())", &[])
        .unwrap()
        .get(0);
    println!(
        "postgres: {n} runs of {} samples from {HOSTS} hosts ({recorded} recorded in {secs:.0} s, \
         {:.1} ms a run; {} copied in SQL in {copy_secs:.0} s); database {:.2} GB ({:.0} kB a run)",
        3600 / pg_interval,
        secs * 1e3 / recorded as f64,
        n - recorded,
        size as f64 / 1e9,
        size as f64 / 1e3 / n as f64
    );
    report_queries("postgres", &bin, &url);

    // 32 recorders at once: each imports a folder of its own.
    let template: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("summary.json")).unwrap()).unwrap();
    let mut dirs = Vec::new();
    for k in 0..32 {
        let d = dir.path().join(format!("concurrent-{k}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(src.join("timeline.csv"), d.join("timeline.csv")).unwrap();
        std::fs::write(d.join("summary.json"), summary_of(&template, n + k)).unwrap();
        dirs.push(d);
    }
    let t0 = Instant::now();
    let children: Vec<_> = dirs
        .iter()
        .enumerate()
        .map(|(k, d)| {
            Command::new(&bin)
                .args(["--db", &url, "runs", "import", "--host"])
                .arg(format!("recorder-{k}"))
                .arg(d)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut failed = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        if !o.status.success() {
            failed += 1;
            eprintln!("{}", String::from_utf8_lossy(&o.stderr));
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let there: i64 = admin
        .query_one(
            "SELECT count(*) FROM runs WHERE host LIKE 'recorder-%'",
            &[],
        )
        .unwrap()
        .get(0);
    let total: i64 = admin
        .query_one("SELECT count(*) FROM runs", &[])
        .unwrap()
        .get(0);
    println!(
        "postgres: 32 `runs import` at once: {there} of 32 runs there ({failed} failed) in \
         {wall:.1} s; {total} runs in all"
    );
}
