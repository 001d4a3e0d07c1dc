//! The results store on a real PostgreSQL server that the test starts itself (Debian's
//! `postgresql` binaries, a data folder in a temporary directory, a free port on 127.0.0.1),
//! running the same cases as SQLite; the server is stopped by PID when the test ends, also
//! when it fails.

use crate::common::store_util;

use slccache::store::Location;

pub fn store_cases_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    store_util::cases::run_all(&mut || Location::Postgres(pg.new_db()));
}

/// The child half of `sigkill_while_recording_on_postgres` (see tests/store/sqlite.rs).
pub fn sigkill_child_records_forever() {
    let (Some(db), Some(src)) = (
        std::env::var_os("SLCCACHE_TEST_KILL_DB"),
        std::env::var_os("SLCCACHE_TEST_KILL_SRC"),
    ) else {
        panic!("started without the store and folder of the test that starts it");
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
pub fn sigkill_while_recording_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let sim = d.path().join("sim");
    store_util::simulate_folder(&sim, "p5-1tb", 6);
    let url = pg.new_db();
    store_util::kill_while_recording(
        &Location::Postgres(url.clone()),
        &url,
        &sim,
        "postgres::sigkill_child_records_forever",
    );
}

/// An unreachable server fails with a clear message: a port nothing listens on at once, and
/// a server that accepts but never answers after the connect timeout (the default one: the
/// URL sets none).
pub fn unreachable_postgres_fails_with_a_clear_message() {
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
pub fn probe_import_list_compare_export_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let url = pg.new_db();
    store_util::user_scenario(&url);
}

/// The names of the tables and views in `schema`, sorted.
fn tables_in(c: &mut postgres::Client, schema: &str) -> Vec<String> {
    c.query(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 \
         ORDER BY 1",
        &[&schema],
    )
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

fn count(c: &mut postgres::Client, sql: &str) -> i64 {
    c.query_one(sql, &[]).unwrap().get(0)
}

/// The binary with its own spool, recording into `db`.
fn bin(db: &str, spool: &std::path::Path) -> std::process::Command {
    use assert_cmd::cargo::CommandCargoExt;
    let mut c = std::process::Command::cargo_bin("slccache").unwrap();
    c.env("SLCCACHE_SPOOL", spool).arg("--db").arg(db);
    c
}

/// Runs `c`; returns its exit code and its stdout and stderr together.
fn run(c: &mut std::process::Command) -> (Option<i32>, String) {
    let o = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

/// The store's tables live in a schema of their own, `slccache`, never in `public`, where
/// another tool's `runs` is left as it was; `?schema=NAME` (URL) and `schema=NAME` (key=value)
/// choose another; a name that is not a plain lower-case identifier is a usage error.
pub fn tables_live_in_their_own_schema_not_public() {
    use slccache::store::Filter;
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let w = tempfile::tempdir().unwrap();
    let sim = w.path().join("sim");
    store_util::simulate_folder(&sim, "p5-1tb", 3);
    let db = pg.new_db_name();
    let mut admin = pg.admin(&db);
    admin
        .batch_execute(
            "CREATE TABLE public.runs (job TEXT PRIMARY KEY, ok BOOLEAN); \
             INSERT INTO public.runs VALUES ('nightly', true)",
        )
        .unwrap();
    let url = pg.url(&db);
    let mut s = slccache::store::Store::open(&Location::parse(&url).unwrap()).unwrap();
    let id = s.import_folder(&sim).unwrap().id();
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 1);
    drop(s);
    assert_eq!(tables_in(&mut admin, "public"), ["runs"]);
    let ours = tables_in(&mut admin, "slccache");
    for t in ["run_files", "runs", "slccache_schema"] {
        assert!(ours.contains(&t.to_string()), "{ours:?}");
    }
    let other: Vec<(String, bool)> = admin
        .query("SELECT job, ok FROM public.runs", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(other, [("nightly".to_string(), true)]);
    let n: i64 = admin
        .query_one("SELECT count(*) FROM slccache.runs WHERE id = $1", &[&id])
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    assert_eq!(store_util::runs_json(&url).len(), 1);
    // Another schema, named in the URL or in a key=value string.
    for (schema, conn) in [
        ("lab_b", format!("{url}?schema=lab_b")),
        (
            "lab_c",
            format!(
                "host=127.0.0.1 port={} user=slccache dbname={db} schema=lab_c",
                pg.port
            ),
        ),
    ] {
        let mut s = slccache::store::Store::open(&Location::parse(&conn).unwrap()).unwrap();
        assert!(s.list(&Filter::default()).unwrap().is_empty(), "{schema}");
        s.import_folder(&sim).unwrap();
        assert_eq!(
            count(&mut admin, &format!("SELECT count(*) FROM {schema}.runs")),
            1,
            "{schema}"
        );
    }
    // Not a plain identifier: a usage error (exit 2), and no schema is created.
    for bad in ["Lab", "a-b", "x;drop table runs", "pg_x", "9lab", ""] {
        // Refused as the string is read, before any connection.
        let e = Location::parse(&format!("{url}?schema={bad}"))
            .err()
            .unwrap_or_else(|| panic!("schema '{bad}' was taken"));
        assert_eq!(slccache::error::exit_code(&e), 2, "{bad}: {e:#}");
    }
    assert_eq!(
        count(
            &mut admin,
            "SELECT count(*) FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' \
             AND nspname <> 'information_schema'"
        ),
        4,
        "public, slccache, lab_b, lab_c"
    );
}

/// A store of schema version 1 in `public` (where slccache put it before it had a schema of
/// its own) is read and written in place by this slccache, and by an older one; then
/// `slccache db migrate` moves it into `slccache` with its ids, rows and files (exported byte
/// for byte), fills the typed columns and the timeline rows, and leaves in `public` only
/// `slccache_schema`, whose version makes an older slccache refuse it ("upgrade slccache")
/// instead of starting a new store there.
pub fn a_version_1_store_in_public_is_used_in_place_then_moved_by_db_migrate() {
    use slccache::report::ReportOptions;
    use slccache::store::{schema, Filter, RecordOptions, RenderOptions, Store};
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let w = tempfile::tempdir().unwrap();
    let sims: Vec<std::path::PathBuf> = (1..=3)
        .map(|i| {
            let d = w.path().join(format!("sim{i}"));
            store_util::simulate_folder(&d, "960evo-250g", i);
            d
        })
        .collect();
    let rec = |host: &str| RecordOptions {
        render: Some(RenderOptions::from(&ReportOptions::default())),
        host: Some(host.into()),
        source_dir: None,
        recorded_at: None,
    };
    let db = pg.new_db_name();
    let url = pg.url(&db);
    let public = || {
        Location::parse(&format!("{url}?schema=public"))
            .unwrap()
            .connect()
            .unwrap()
    };
    // What slccache of schema version 1 made: its steps alone, in the role's own schema.
    let v1 = &schema::MIGRATIONS[..1];
    {
        let mut old = Store::open_with(public(), v1).unwrap();
        old.record_folder(&sims[0], &rec("old-host")).unwrap();
        old.record_folder(&sims[1], &rec("old-host")).unwrap();
    }
    let mut admin = pg.admin(&db);
    // This slccache uses it in place: no schema of its own is made.
    {
        let mut s = Store::open(&Location::parse(&url).unwrap()).unwrap();
        assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
        assert!(s
            .record_folder(&sims[2], &rec("new-host"))
            .unwrap()
            .is_new());
        assert_eq!(schema::read_version(s.backend()).unwrap(), 1);
    }
    assert_eq!(
        count(
            &mut admin,
            "SELECT count(*) FROM pg_namespace WHERE nspname = 'slccache'"
        ),
        0
    );
    assert_eq!(count(&mut admin, "SELECT count(*) FROM public.runs"), 3);
    // And the older slccache goes on with it.
    assert_eq!(
        Store::open_with(public(), v1)
            .unwrap()
            .list(&Filter::default())
            .unwrap()
            .len(),
        3
    );

    let (code, out) = run(bin(&url, &w.path().join("spool")).args(["db", "migrate"]));
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("moved the store (3 runs) from schema public into slccache")
            && out.contains(&format!(
                "from schema version 1 to {}",
                slccache::store::schema::SCHEMA_VERSION
            )),
        "{out}"
    );
    assert_eq!(tables_in(&mut admin, "public"), ["slccache_schema"]);
    // What slccache of version 1 reads there: a version above its own.
    assert_eq!(
        count(
            &mut admin,
            "SELECT MAX(version) FROM public.slccache_schema"
        ),
        2
    );
    let e = Store::open_with(public(), v1).err().expect("refused");
    assert!(format!("{e:#}").contains("upgrade slccache"), "{e:#}");
    // Given the old schema by name, this slccache says where the tables went.
    let e = Store::open(&Location::parse(&format!("{url}?schema=public")).unwrap())
        .err()
        .expect("moved");
    let msg = format!("{e:#}");
    assert!(
        msg.contains("moved out of schema public into slccache"),
        "{msg}"
    );
    // Same ids, same runs, exported byte for byte.
    let mut s = Store::open(&Location::parse(&url).unwrap()).unwrap();
    let ids: Vec<i64> = s
        .list(&Filter::default())
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    for (id, src) in ids.iter().zip(&sims) {
        let back = w.path().join(format!("back-{id}"));
        s.export(*id, &back).unwrap();
        store_util::assert_same_folder(src, &back);
    }
    // The typed columns and the timeline rows were filled from what the store held.
    let r = admin
        .query_one(
            "SELECT pg_typeof(started_at)::text, pg_typeof(summary)::text, bytes_written, \
             (summary #>> '{totals,bytes}')::bigint FROM slccache.runs WHERE id = 1",
            &[],
        )
        .unwrap();
    assert_eq!(r.get::<_, String>(0), "timestamp with time zone");
    assert_eq!(r.get::<_, String>(1), "jsonb");
    assert_eq!(r.get::<_, Option<i64>>(2), r.get::<_, Option<i64>>(3));
    assert!(r.get::<_, Option<i64>>(2).unwrap() > 0);
    let csv_rows = std::fs::read_to_string(sims[0].join("timeline.csv"))
        .unwrap()
        .lines()
        .count() as i64
        - 1;
    assert_eq!(
        count(
            &mut admin,
            "SELECT count(*) FROM slccache.timeline WHERE run_id = 1"
        ),
        csv_rows
    );
    // A new run goes in with the next id.
    let sim4 = w.path().join("sim4");
    store_util::simulate_folder(&sim4, "960evo-250g", 4);
    assert_eq!(s.record_folder(&sim4, &rec("new-host")).unwrap().id(), 4);
    drop(s);
    // Once is enough.
    let (code, out) = run(bin(&url, &w.path().join("spool")).args(["db", "migrate"]));
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!(
            "at schema version {} already (4 runs)",
            slccache::store::schema::SCHEMA_VERSION
        )),
        "{out}"
    );
}

/// Grafana's queries against the dashboard views: runs per host per day
/// (`date_trunc('day', started_at)`, counted by host, in a time range), one run's timeline
/// ordered by time, and the columns typed as a panel needs them (times, numbers, jsonb).
pub fn grafana_queries_on_the_dashboard_views() {
    use slccache::store::{RecordOptions, Store};
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let w = tempfile::tempdir().unwrap();
    let sim = w.path().join("sim");
    store_util::simulate_folder(&sim, "p5-1tb", 7);
    let text = std::fs::read_to_string(sim.join("summary.json")).unwrap();
    let url = pg.new_db();
    let db = url.rsplit('/').next().unwrap().to_string();
    let mut s = Store::open(&Location::parse(&url).unwrap()).unwrap();
    let runs = [
        ("lab-1", "2026-03-01T10:00:00Z"),
        ("lab-2", "2026-03-01T15:30:00Z"),
        ("lab-1", "2026-03-02T09:00:00Z"),
        ("lab-1", "2026-04-20T09:00:00Z"),
    ];
    let mut ids = Vec::new();
    for (i, (host, date)) in runs.iter().enumerate() {
        let d = w.path().join(format!("run{i}"));
        std::fs::create_dir(&d).unwrap();
        std::fs::copy(sim.join("timeline.csv"), d.join("timeline.csv")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["run"]["started_at"] = (*date).into();
        v["origin"] = serde_json::json!({ "tags": if i == 1 { vec!["rack-2"] } else { vec![] } });
        std::fs::write(d.join("summary.json"), v.to_string()).unwrap();
        let r = s
            .record_folder(
                &d,
                &RecordOptions {
                    render: None,
                    host: Some((*host).into()),
                    source_dir: None,
                    recorded_at: None,
                },
            )
            .unwrap();
        ids.push(r.id());
    }
    drop(s);
    let mut c = pg.admin(&db);
    c.batch_execute("SET TIME ZONE 'UTC'").unwrap();
    // Runs per host per day, as a time-series panel with $__timeFilter asks.
    let grafana = "SELECT date_trunc('day', started_at) AS time, host, count(*) AS runs \
                   FROM slccache.runs_v \
                   WHERE started_at BETWEEN '2026-03-01T00:00:00Z' AND '2026-03-31T00:00:00Z' \
                   GROUP BY 1, 2 ORDER BY 1, 2";
    let got: Vec<(String, String, i64)> = c
        .query(
            &format!("SELECT time::text, host, runs FROM ({grafana}) q"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let want = [
        ("2026-03-01 00:00:00+00", "lab-1", 1),
        ("2026-03-01 00:00:00+00", "lab-2", 1),
        ("2026-03-02 00:00:00+00", "lab-1", 1),
    ];
    assert_eq!(
        got,
        want.map(|(a, b, n)| (a.to_string(), b.to_string(), n as i64))
    );
    // One run's timeline, ordered by time.
    let grafana = "SELECT time, bytes_per_sec FROM slccache.timeline_v \
                   WHERE run_id = $1 ORDER BY time";
    let points: Vec<(f64, f64)> = c
        .query(
            &format!("SELECT extract(epoch FROM time)::float8, bytes_per_sec FROM ({grafana}) q"),
            &[&ids[1]],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let csv = std::fs::read_to_string(sim.join("timeline.csv")).unwrap();
    let samples = slccache::timeline::read_slccache_csv(&csv, "timeline.csv").unwrap();
    assert_eq!(points.len(), samples.len());
    let start = chrono::DateTime::parse_from_rfc3339("2026-03-01T15:30:00Z")
        .unwrap()
        .timestamp() as f64;
    for (p, s) in points.iter().zip(&samples) {
        assert!(
            (p.0 - (start + s.t_s)).abs() < 1e-5,
            "{p:?} vs t_s {}",
            s.t_s
        );
        assert_eq!(p.1, s.bytes_per_sec);
    }
    assert!(points.windows(2).all(|x| x[0].0 < x[1].0));
    // The columns a panel reads, typed.
    let types: std::collections::BTreeMap<String, String> = c
        .query(
            "SELECT table_name || '.' || column_name, data_type::text \
             FROM information_schema.columns WHERE table_schema = 'slccache' \
             AND table_name IN ('runs_v', 'timeline_v')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (col, ty) in [
        ("runs_v.started_at", "timestamp with time zone"),
        ("runs_v.recorded_at", "timestamp with time zone"),
        ("runs_v.summary", "jsonb"),
        ("runs_v.tags", "jsonb"),
        ("runs_v.interrupted", "boolean"),
        ("runs_v.cache_bytes", "bigint"),
        ("runs_v.cache_low_bytes", "bigint"),
        ("runs_v.cache_high_bytes", "bigint"),
        ("runs_v.in_cache_bytes_per_sec", "double precision"),
        ("runs_v.after_cache_bytes_per_sec", "double precision"),
        ("runs_v.bytes_written", "bigint"),
        ("runs_v.host", "text"),
        ("runs_v.serial", "text"),
        ("runs_v.model", "text"),
        ("runs_v.kind", "text"),
        ("timeline_v.time", "timestamp with time zone"),
        ("timeline_v.bytes_per_sec", "double precision"),
        ("timeline_v.bytes", "bigint"),
        ("timeline_v.lat_p99_us", "double precision"),
        ("timeline_v.temp_c", "double precision"),
    ] {
        assert_eq!(types.get(col).map(String::as_str), Some(ty), "{col}");
    }
    // The summary as jsonb agrees with the headline columns; tags select runs.
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM slccache.runs_v \
             WHERE cache_bytes = (summary #>> '{analysis,cache_estimate,bytes}')::bigint \
             AND bytes_written = (summary #>> '{totals,bytes}')::bigint"
        ),
        4
    );
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM slccache.runs_v WHERE tags ? 'rack-2'"
        ),
        1
    );
}

/// The grants docs/DESIGN.md gives a fleet's role: USAGE on the schema, SELECT and INSERT on
/// its tables (and on those later steps add).
const FLEET_GRANTS: &str = "GRANT USAGE ON SCHEMA slccache TO fleet; \
    GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA slccache TO fleet; \
    ALTER DEFAULT PRIVILEGES IN SCHEMA slccache GRANT SELECT, INSERT ON TABLES TO fleet;";

/// A fleet's role with nothing but the grants the DBA gives (INSERT and SELECT) records runs,
/// timeline rows included, lists and exports them; before the DBA created the store with
/// `slccache db migrate`, its run waits in the spool and the warning says so.
pub fn a_fleet_role_with_insert_and_select_only_records_and_lists() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let db = pg.new_db_name();
    let mut admin = pg.admin(&db);
    admin.batch_execute("CREATE ROLE fleet LOGIN").unwrap();
    let fleet = format!("postgres://fleet@127.0.0.1:{}/{db}", pg.port);
    let w = tempfile::tempdir().unwrap();
    let spool = w.path().join("spool");
    // No store yet, and the role may not make one.
    let (code, text) = run(bin(&fleet, &spool)
        .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
        .arg(w.path().join("a")));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("the run was not recorded")
            && text.contains("slccache db migrate")
            && text.contains("runs import --pending"),
        "{text}"
    );
    // The DBA makes it and grants the fleet INSERT and SELECT only.
    let (code, text) = run(bin(&pg.url(&db), &spool).args(["db", "migrate"]));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("created the results store") && text.contains("schema slccache"),
        "{text}"
    );
    admin.batch_execute(FLEET_GRANTS).unwrap();
    let (code, text) = run(bin(&fleet, &spool)
        .args(["simulate", "960evo-250g", "--seed", "2", "--out"])
        .arg(w.path().join("b")));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("recorded as run 1"), "{text}");
    let (code, text) = run(bin(&fleet, &spool).args(["runs", "import", "--pending"]));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("recorded as run 2"), "{text}");
    let (code, text) = run(bin(&fleet, &spool).args(["runs", "--json"]));
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = run(bin(&fleet, &spool)
        .args(["runs", "export", "1", "--out"])
        .arg(w.path().join("back")));
    assert_eq!(code, Some(0), "{text}");
    store_util::assert_same_folder(&w.path().join("b"), &w.path().join("back"));
    assert_eq!(
        count(
            &mut admin,
            "SELECT count(DISTINCT run_id) FROM slccache.timeline"
        ),
        2
    );
    // Removing is not among its rights.
    let (code, text) = run(bin(&fleet, &spool).args(["runs", "rm", "1"]));
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("permission denied"), "{text}");
    assert!(
        text.contains("this role may not do that in the store") && !text.contains("WHERE"),
        "{text}"
    );
    // A step that only adds, taken by the DBA: the default privileges cover its table.
    admin
        .batch_execute("CREATE TABLE slccache.notes (run_id BIGINT, note TEXT)")
        .unwrap();
    let mut f = postgres::Client::connect(&fleet, postgres::NoTls).unwrap();
    f.batch_execute("INSERT INTO slccache.notes VALUES (1, 'ok'); SELECT * FROM slccache.notes")
        .unwrap();
    assert!(f
        .batch_execute("CREATE TABLE slccache.mine (x INT)")
        .is_err());
}

/// A store one step newer that only added (a column, and its tables' version) is written by
/// this slccache; one whose compatible-with version is above this slccache's is not: the run
/// waits in the spool and the warning says to upgrade.
pub fn a_newer_store_is_written_when_it_only_added_and_spooled_when_not() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let db = pg.new_db_name();
    let url = pg.url(&db);
    let w = tempfile::tempdir().unwrap();
    let spool = w.path().join("spool");
    let (code, text) = run(bin(&url, &spool).args(["db", "migrate"]));
    assert_eq!(code, Some(0), "{text}");
    let mut admin = pg.admin(&db);
    admin
        .batch_execute(&format!(
            "ALTER TABLE slccache.runs ADD COLUMN rack TEXT; \
             UPDATE slccache.slccache_schema SET tables_version = {}",
            slccache::store::schema::SCHEMA_VERSION + 1
        ))
        .unwrap();
    let (code, text) = run(bin(&url, &spool)
        .args(["simulate", "960evo-250g", "--seed", "1", "--out"])
        .arg(w.path().join("a")));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        // (The analysis may warn of its own; no warning of the store.)
        text.contains("recorded as run 1")
            && !text.contains("not recorded")
            && !text.contains("slccache: warning")
            && !text.contains("slccache: note"),
        "{text}"
    );
    let newer = slccache::store::schema::SCHEMA_VERSION + 1;
    admin
        .batch_execute(&format!(
            "UPDATE slccache.slccache_schema SET version = {newer}"
        ))
        .unwrap();
    let (code, text) = run(bin(&url, &spool)
        .args(["simulate", "960evo-250g", "--seed", "2", "--out"])
        .arg(w.path().join("b")));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("the run was not recorded")
            && text.contains(&format!("schema version {newer}"))
            && text.contains("upgrade slccache")
            && text.contains("runs import --pending"),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 1);
    assert_eq!(count(&mut admin, "SELECT count(*) FROM slccache.runs"), 1);
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
            .enumerate()
            .map(|(i, v)| match v {
                // Dates to the microsecond, which is what timestamptz keeps.
                Val::Text(Some(x)) if i == 2 || i == 3 => micro(x),
                // The summary as JSON: jsonb keeps neither spacing nor key order.
                Val::Text(Some(x)) if i == 22 => serde_json::from_str::<serde_json::Value>(x)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| x.clone()),
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

/// An RFC 3339 time at microsecond precision, in UTC (as a timestamptz column holds it).
fn micro(s: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(s) {
        // Cut to its microsecond, as the store gives it to PostgreSQL.
        Ok(t) => chrono::DateTime::from_timestamp_micros(
            t.timestamp_nanos_opt().unwrap().div_euclid(1000),
        )
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        Err(_) => s.to_string(),
    }
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
pub fn runs_copy_between_sqlite_and_postgres_keeps_everything_once() {
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

/// A reading command on a database that holds no store says so (exit 2) and leaves the
/// database as it was: no schema, no table, whatever the command.
pub fn reading_commands_create_no_store_on_a_server() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    let name = pg.new_db_name();
    let url = pg.url(&name);
    let w = tempfile::tempdir().unwrap();
    for args in [
        vec!["runs"],
        vec!["runs", "show", "1"],
        vec!["runs", "export", "1", "--out", "x"],
        vec!["history", "960", "--out", "h"],
        vec!["compare", "1", "2", "--out", "c"],
        vec!["runs", "copy", "--to", "copy.db"],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .arg("--db")
            .arg(&url)
            .args(&args)
            .current_dir(w.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("no results store in postgres://"),
            "{args:?}: {err}"
        );
        let mut c = pg.admin(&name);
        let n: i64 = c
            .query_one(
                "SELECT count(*) FROM information_schema.tables \
                 WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
                &[],
            )
            .unwrap()
            .get(0);
        let schemas: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_namespace WHERE nspname = 'slccache'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(
            (n, schemas),
            (0, 0),
            "{args:?} created tables or the schema"
        );
        assert_eq!(
            std::fs::read_dir(w.path()).unwrap().count(),
            0,
            "{args:?} wrote files"
        );
    }
}
