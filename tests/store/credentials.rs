//! A lab's PostgreSQL server with password authentication and TLS, as the test makes it
//! (tests/store_util: SCRAM passwords, a certificate from the test's own CA, pg_hba.conf
//! rules). A sentinel password given in every form slccache takes never reaches an output: not
//! the terminal, not a run's files (report.html's command line included), not the spool, not a
//! column of the store, not `runs export`, `runs --html` or `compare`. TLS follows libpq's
//! sslmode, and a refused connection names its cause.

use crate::common::store_util;

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use slccache::store::{Location, Store};

/// Holds `@`, `:` and `/`: the characters that cut a URL's parts.
const SENTINEL: &str = "Zq9S3nt1n3l@:/x";
/// What must appear nowhere: the sentinel's core survives every encoding of `@ : /`.
const CORE: &str = "S3nt1n3l";

/// The binary with the test's own spool and home, nothing of the developer's environment
/// that names a PostgreSQL server.
fn bin(home: &Path, spool: &Path) -> Command {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.env("HOME", home).env("SLCCACHE_SPOOL", spool);
    for v in [
        "PGPASSWORD",
        "PGPASSFILE",
        "PGSERVICE",
        "PGSERVICEFILE",
        "PGHOST",
        "PGUSER",
        "PGDATABASE",
        "PGSSLMODE",
        "SLCCACHE_DB",
    ] {
        c.env_remove(v);
    }
    c
}

/// Runs `c`; returns its exit code and everything it printed.
fn run(c: &mut Command) -> (Option<i32>, String) {
    let o = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn assert_no_secret_in_files(dir: &Path) {
    let files = files_under(dir);
    assert!(!files.is_empty(), "{} holds no files", dir.display());
    for f in files {
        let data = std::fs::read(&f).unwrap();
        assert!(
            !data.windows(CORE.len()).any(|w| w == CORE.as_bytes()),
            "the password is in {}",
            f.display()
        );
    }
}

fn assert_no_secret(text: &str, what: &str) {
    assert!(!text.contains(CORE), "the password is in {what}:\n{text}");
}

/// One way a password reaches slccache: its name, the --db string, extra environment.
type Form = (&'static str, String, Vec<(String, String)>);

/// The ways a password reaches slccache.
fn forms(port: u16, db: &str, home: &Path) -> Vec<Form> {
    use std::os::unix::fs::PermissionsExt;
    let enc = SENTINEL
        .replace('@', "%40")
        .replace(':', "%3A")
        .replace('/', "%2F");
    let pgpass = home.join("pgpass");
    std::fs::write(
        &pgpass,
        format!(
            "127.0.0.1:{port}:{db}:lab:{}\n",
            SENTINEL.replace(':', "\\:")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let service = home.join("pg_service.conf");
    std::fs::write(
        &service,
        format!("[lab]\nhost=127.0.0.1\nport={port}\ndbname={db}\nuser=lab\npassword={SENTINEL}\n"),
    )
    .unwrap();
    let plain = format!("postgres://lab@127.0.0.1:{port}/{db}");
    vec![
        (
            "URL userinfo, raw",
            format!("postgres://lab:{SENTINEL}@127.0.0.1:{port}/{db}"),
            vec![],
        ),
        (
            "URL userinfo, percent-encoded",
            format!("postgresql://lab:{enc}@127.0.0.1:{port}/{db}"),
            vec![],
        ),
        (
            "URL ?password=",
            format!("PostgreSQL://lab@127.0.0.1:{port}/{db}?password={enc}&sslmode=require"),
            vec![],
        ),
        (
            "key=value password=",
            format!("host=127.0.0.1 port={port} dbname={db} user=lab password='{SENTINEL}'"),
            vec![],
        ),
        (
            "PGPASSWORD",
            plain.clone(),
            vec![("PGPASSWORD".into(), SENTINEL.into())],
        ),
        (
            "PGPASSFILE",
            plain,
            vec![("PGPASSFILE".into(), pgpass.display().to_string())],
        ),
        (
            "PGSERVICE",
            "service=lab".into(),
            vec![("PGSERVICEFILE".into(), service.display().to_string())],
        ),
    ]
}

/// Every form: two simulations and an emulated probe recorded, the store listed, shown,
/// exported, paged and compared by id, a recording that fails (a port nothing listens on)
/// spooled, and then every file, every line printed and every column of the store searched
/// for the password.
pub fn a_password_in_any_form_reaches_no_output_and_no_column() {
    let Some((pg, _certs)) = store_util::PgServer::start_secure() else {
        return;
    };
    let mut admin = pg.admin("postgres");
    admin
        .batch_execute(&format!(
            "CREATE ROLE lab LOGIN PASSWORD '{}'",
            SENTINEL.replace('\'', "''")
        ))
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_port = closed.local_addr().unwrap().port();
    drop(closed);
    for (i, form) in ["url", "enc", "query", "kv", "env", "passfile", "service"]
        .iter()
        .enumerate()
    {
        let db = format!("cred{i}");
        admin
            .batch_execute(&format!("CREATE DATABASE {db} OWNER lab"))
            .unwrap();
        let w = work.path().join(form);
        let home = w.join("home");
        let spool = w.join("spool");
        std::fs::create_dir_all(&home).unwrap();
        let (name, dbarg, env) = forms(pg.port, &db, &home).swap_remove(i);
        let cmd = |args: &[&str]| {
            let mut c = bin(&home, &spool);
            c.envs(env.iter().map(|(k, v)| (k, v)));
            c.arg("--db").arg(&dbarg).args(args).current_dir(&w);
            c
        };
        let mut printed = String::new();
        let mut expect_ok = |args: &[&str]| {
            let (code, text) = run(&mut cmd(args));
            assert_eq!(code, Some(0), "{name}: {args:?}:\n{text}");
            printed += &text;
            text
        };
        let t = expect_ok(&[
            "simulate",
            "960evo-250g",
            "--seed",
            "1",
            "--out",
            "sim1",
            "--json",
        ]);
        assert!(t.contains("\"run_id\":1"), "{name}: {t}");
        expect_ok(&["simulate", "960evo-250g", "--seed", "2", "--out", "sim2"]);
        if i == 0 {
            expect_ok(&[
                "probe",
                "emu:960evo-250g,cache=1GB",
                "--pattern",
                "seqwrite",
                "--max-bytes",
                "2GB",
                "--out",
                "probe",
            ]);
        }
        expect_ok(&["runs"]);
        expect_ok(&["runs", "--json"]);
        expect_ok(&["runs", "show", "1"]);
        expect_ok(&["runs", "export", "1", "--out", "export"]);
        expect_ok(&["runs", "--html", "library"]);
        expect_ok(&["compare", "1", "2", "--out", "compare"]);
        expect_ok(&[
            "history",
            "960 EVO",
            "--drive-kind",
            "simulated",
            "--out",
            "history",
        ]);
        assert!(printed.contains("recorded as run 2"), "{name}: {printed}");
        assert_no_secret(&printed, name);

        // A recording that fails: the warning, the spooled copy and its note hold no password.
        let dead = dbarg.replace(&pg.port.to_string(), &dead_port.to_string());
        let mut c = bin(&home, &spool);
        c.envs(env.iter().map(|(k, v)| (k, v)));
        if form == &"service" {
            std::fs::write(
                home.join("dead-service.conf"),
                format!(
                    "[lab]\nhost=127.0.0.1\nport={dead_port}\ndbname={db}\nuser=lab\npassword={SENTINEL}\n"
                ),
            )
            .unwrap();
            c.env("PGSERVICEFILE", home.join("dead-service.conf"));
        }
        let (code, text) = run(c
            .arg("--db")
            .arg(&dead)
            .args(["simulate", "960evo-250g", "--seed", "3", "--out", "sim3"])
            .current_dir(&w));
        assert_eq!(code, Some(0), "{name}:\n{text}");
        assert!(text.contains("runs import --pending"), "{name}: {text}");
        assert_no_secret(&text, name);
        // The spooled run is recorded once its store answers again.
        let (code, text) = run(&mut cmd(&["runs", "import", "--pending"]));
        assert_eq!(code, Some(0), "{name}:\n{text}");
        assert!(text.contains("recorded as run"), "{name}: {text}");
        assert_no_secret(&text, name);
        for f in [
            "home/pgpass",
            "home/pg_service.conf",
            "home/dead-service.conf",
        ] {
            let _ = std::fs::remove_file(w.join(f));
        }
        assert_no_secret_in_files(&w);

        // Every column of every row, and every stored file.
        let mut c = pg.admin(&db);
        for table in ["runs", "run_files", "timeline", "slccache_schema"] {
            for r in c
                .query(&format!("SELECT t::text FROM slccache.{table} t"), &[])
                .unwrap()
            {
                assert_no_secret(&r.get::<_, String>(0), &format!("{name}: {table}"));
            }
        }
        let mut store = Store::open(&Location::Postgres(pg.admin_url(&db))).unwrap();
        let ids: Vec<i64> = store
            .list(&Default::default())
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids.len(), if i == 0 { 4 } else { 3 }, "{name}");
        for id in ids {
            let run = store.get(id).unwrap();
            assert_no_secret(&run.summary, name);
            for (f, data) in &run.files {
                assert_no_secret(&String::from_utf8_lossy(data), &format!("{name}: {f}"));
            }
        }
    }
}

/// Why `url` cannot be opened: refused as it is read (a string that could never connect) or
/// when connecting.
fn open_err(url: &str) -> String {
    match Location::parse(url).and_then(|l| Store::open(&l)) {
        Ok(_) => panic!("{url} connected"),
        Err(e) => format!("{e:#}"),
    }
}

fn uses_tls(url: &str) -> bool {
    let mut s =
        Store::open(&Location::parse(url).unwrap()).unwrap_or_else(|e| panic!("{url}: {e:#}"));
    let r = s
        .backend()
        .query(
            "SELECT CASE WHEN ssl THEN 1 ELSE 0 END::bigint FROM pg_stat_ssl \
             WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap();
    r[0][0].as_i64() == Some(1)
}

/// libpq's sslmode against a server with TLS: prefer and require encrypt; verify-full checks
/// the chain and the name, verify-ca the chain only; a wrong CA and a name the certificate
/// lacks are refused; TLS-only rules name the cure.
pub fn tls_follows_sslmode_and_sslrootcert() {
    let Some((mut pg, certs)) = store_util::PgServer::start_secure() else {
        return;
    };
    let db = pg.new_db_name();
    pg.admin("postgres")
        .batch_execute("CREATE DATABASE tlsonly")
        .unwrap();
    let pw = store_util::ADMIN_PASSWORD;
    let port = pg.port;
    let base = |host: &str, db: &str| format!("postgres://slccache:{pw}@{host}:{port}/{db}");
    let ca = certs.ca.display().to_string();
    let other = certs.other_ca.display().to_string();

    assert!(
        uses_tls(&base("127.0.0.1", &db)),
        "prefer is libpq's default"
    );
    assert!(uses_tls(&format!(
        "{}?sslmode=require",
        base("127.0.0.1", &db)
    )));
    assert!(!uses_tls(&format!(
        "{}?sslmode=disable",
        base("127.0.0.1", &db)
    )));
    assert!(uses_tls(&format!(
        "{}?sslmode=verify-full&sslrootcert={ca}",
        base("localhost", &db)
    )));
    // The certificate names localhost only: verify-ca passes at 127.0.0.1, verify-full does not.
    assert!(uses_tls(&format!(
        "{}?sslmode=verify-ca&sslrootcert={ca}",
        base("127.0.0.1", &db)
    )));
    let e = open_err(&format!(
        "{}?sslmode=verify-full&sslrootcert={ca}",
        base("127.0.0.1", &db)
    ));
    assert!(e.contains("TLS") && e.contains("certificate"), "{e}");
    let e = open_err(&format!(
        "{}?sslmode=verify-full&sslrootcert={other}",
        base("localhost", &db)
    ));
    assert!(
        e.contains(
            "TLS: the server's certificate is not signed by a certificate that sslrootcert holds"
        ),
        "{e}"
    );
    // require with a root certificate checks the chain, as libpq does.
    let e = open_err(&format!(
        "{}?sslmode=require&sslrootcert={other}",
        base("localhost", &db)
    ));
    assert!(e.contains("TLS"), "{e}");
    let e = open_err(&format!("{}?sslmode=verify-full", base("localhost", &db)));
    assert!(e.contains("sslrootcert"), "{e}");
    // Key=value form, the same modes.
    assert!(uses_tls(&format!(
        "host=localhost port={} dbname={db} user=slccache password={pw} sslmode=verify-full \
         sslrootcert={ca}",
        pg.port
    )));
    // A rule that wants TLS for this database.
    let e = open_err(&format!("{}?sslmode=disable", base("127.0.0.1", "tlsonly")));
    assert!(
        e.contains("no encryption") && e.contains("sslmode=require"),
        "{e}"
    );
    assert!(uses_tls(&base("127.0.0.1", "tlsonly")));

    // A self-signed server certificate (a CA certificate itself), given as its own
    // sslrootcert, is trusted as libpq trusts it; verify-full still checks its name.
    let own = pg.use_self_signed_cert().display().to_string();
    assert!(uses_tls(&format!(
        "{}?sslmode=verify-full&sslrootcert={own}",
        base("localhost", &db)
    )));
    assert!(uses_tls(&format!(
        "{}?sslmode=verify-ca&sslrootcert={own}",
        base("127.0.0.1", &db)
    )));
    let e = open_err(&format!(
        "{}?sslmode=verify-full&sslrootcert={own}",
        base("127.0.0.1", &db)
    ));
    assert!(e.contains("TLS") && e.contains("certificate"), "{e}");
    // And a certificate the file does not hold is still refused, in words.
    let e = open_err(&format!(
        "{}?sslmode=verify-full&sslrootcert={ca}",
        base("localhost", &db)
    ));
    assert!(
        e.contains(
            "TLS: the server's certificate is a CA certificate that sslrootcert does not hold"
        ),
        "{e}"
    );
    assert!(!e.contains("CaUsedAsEndEntity"), "{e}");
}

/// Each refusal names its cause, in the server's words where it sent them; none shows the
/// password.
pub fn connection_errors_name_their_cause() {
    let Some((mut pg, _)) = store_util::PgServer::start_secure() else {
        return;
    };
    let db = pg.new_db_name();
    pg.admin("postgres")
        .batch_execute(&format!(
            "CREATE ROLE blocked LOGIN PASSWORD '{SENTINEL}'; \
             CREATE ROLE lab LOGIN PASSWORD 'right'"
        ))
        .unwrap();
    let p = pg.port;
    let e = open_err(&format!("postgres://lab:{SENTINEL}@127.0.0.1:{p}/{db}"));
    assert!(
        e.contains("password authentication failed") && e.contains("PGPASSWORD"),
        "{e}"
    );
    assert_no_secret(&e, "a wrong password's error");
    let e = open_err(&format!("postgres://lab:right@127.0.0.1:{p}/nosuchdb"));
    assert!(
        e.contains("does not exist") && e.contains("no such database"),
        "{e}"
    );
    let e = open_err(&format!("postgres://blocked:{SENTINEL}@127.0.0.1:{p}/{db}"));
    assert!(e.contains("pg_hba.conf"), "{e}");
    assert_no_secret(&e, "a refused role's error");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = closed.local_addr().unwrap().port();
    drop(closed);
    let e = open_err(&format!("postgres://lab:{SENTINEL}@127.0.0.1:{dead}/{db}"));
    assert!(e.contains("connection refused"), "{e}");
    assert_no_secret(&e, "a refused connection's error");
    // A server without TLS, asked for it.
    let Some(mut plain) = store_util::PgServer::start() else {
        return;
    };
    let url = plain.new_db();
    let e = open_err(&format!("{url}?sslmode=require"));
    assert!(e.contains("does not support TLS"), "{e}");
    // Trust authentication shows an unknown role as such.
    let e = open_err(&url.replace("slccache@", "nobody@"));
    assert!(e.contains("role") && e.contains("does not exist"), "{e}");
}

/// A table locked by someone else holds a finished run for a few seconds at most: the lock
/// time-out gives up, the run waits in the spool, the exit code stays 0 (1 with
/// --require-record).
pub fn a_locked_table_never_holds_a_finished_run_for_long() {
    let Some((mut pg, _)) = store_util::PgServer::start_secure() else {
        return;
    };
    let db = pg.new_db_name();
    let url = pg.admin_url(&db);
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let spool = w.join("spool");
    let (code, text) = run(bin(w, &spool)
        .args(["--db", &url, "simulate", "960evo-250g", "--out"])
        .arg(w.join("a")));
    assert_eq!(code, Some(0), "{text}");
    let mut locker = pg.admin(&db);
    locker
        .batch_execute("BEGIN; LOCK TABLE slccache.runs IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let t0 = std::time::Instant::now();
    let (code, text) = run(bin(w, &spool)
        .args([
            "--db",
            &url,
            "--require-record",
            "simulate",
            "960evo-250g",
            "--seed",
            "4",
        ])
        .arg("--out")
        .arg(w.join("b")));
    let waited = t0.elapsed();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("lock timeout"), "{text}");
    // In words, without the statement's whole text.
    assert!(
        text.contains("locked by another session") && !text.contains("RETURNING"),
        "{text}"
    );
    assert!(text.contains("runs import --pending"), "{text}");
    // The lock was held for as long as the run took; the time-out is 5 s, connecting and the
    // simulation a few more: 60 s would mean it waited for the lock.
    assert!(waited.as_secs() < 60, "waited {waited:?}");
    locker.batch_execute("ROLLBACK").unwrap();
    let (code, text) = run(bin(w, &spool).args(["--db", &url, "runs", "import", "--pending"]));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("recorded as run 2"), "{text}");
    assert!(store_util::runs_json(&url).len() == 2);
}
