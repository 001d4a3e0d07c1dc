//! Shared by the store tests: run folders made by the real binary, a PostgreSQL server of the
//! tests' own, and the cases that run against both backends.
#![allow(dead_code)]

pub mod cases;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;

/// The binary, with recording pointed away from any user's store.
pub fn slccache(db: &Path) -> Command {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.env("SLCCACHE_DB", db);
    c
}

/// Runs the binary, panicking with its stderr unless it exits 0.
pub fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{:?} failed ({:?}):\n{}",
        c,
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A `simulate` run folder at `dir` (virtual time, a second or two).
pub fn simulate_folder(dir: &Path, preset: &str, seed: u64) {
    ok(slccache(&dir.with_extension("unused.db"))
        .args(["simulate", preset, "--seed", &seed.to_string(), "--out"])
        .arg(dir));
}

/// Every file under `dir` (relative name -> bytes), skipping hidden ones.
pub fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let rel = format!("{prefix}{name}");
            if e.file_type().unwrap().is_dir() {
                stack.push((e.path(), format!("{rel}/")));
            } else {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Asserts that two folders hold the same files with the same bytes, naming the first that
/// differs.
pub fn assert_same_folder(a: &Path, b: &Path) {
    let (fa, fb) = (folder(a), folder(b));
    let na: Vec<_> = fa.keys().collect();
    let nb: Vec<_> = fb.keys().collect();
    assert_eq!(
        na,
        nb,
        "file lists differ: {} vs {}",
        a.display(),
        b.display()
    );
    for (name, data) in &fa {
        if let (Ok(ta), Ok(tb)) = (std::str::from_utf8(data), std::str::from_utf8(&fb[name])) {
            if let Some((la, lb)) = ta.lines().zip(tb.lines()).find(|(x, y)| x != y) {
                let cut = |l: &str| l.chars().take(400).collect::<String>();
                panic!("{name} differs:\n  {}\n  {}", cut(la), cut(lb));
            }
        }
        assert!(
            data == &fb[name],
            "{name} differs between {} and {} ({} vs {} bytes)",
            a.display(),
            b.display(),
            data.len(),
            fb[name].len()
        );
    }
}

/// The newest Debian PostgreSQL binaries folder, e.g. `/usr/lib/postgresql/15/bin`.
pub fn pg_bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, b)| b)
}

/// A PostgreSQL server of the tests' own: a data folder in a temporary directory, listening on
/// a free port of 127.0.0.1 only, run as the `postgres` user when the tests run as root
/// (PostgreSQL refuses root). Dropping it stops the server by its PID and removes the folder,
/// also when a test panicked.
pub struct PgServer {
    child: Option<Child>,
    /// The port it listens on.
    pub port: u16,
    dir: Option<tempfile::TempDir>,
    next_db: u32,
    /// With [`PgServer::start_secure`]: the superuser's password (`None`: trust).
    admin_password: Option<String>,
    bin: PathBuf,
    secure: bool,
}

/// The password of the superuser `slccache` on a secure test server.
pub const ADMIN_PASSWORD: &str = "admin-only-for-tests";

/// What a secure test server has: password authentication (SCRAM), TLS with a certificate
/// made by the test, and rules that refuse some connections.
pub struct Secure {
    /// The test's own certificate authority (`sslrootcert`).
    pub ca: PathBuf,
    /// Another CA, which signed nothing the server has.
    pub other_ca: PathBuf,
}

/// Runs openssl (the command-line tool) in `dir`, panicking with its stderr on failure.
fn openssl<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(dir: &Path, args: &[S]) {
    let o = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl (the command-line tool) is needed for the TLS tests");
    assert!(
        o.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A CA and a server certificate for `localhost` only (no IP name, so verify-full to
/// 127.0.0.1 fails and verify-ca passes), EC P-256 keys.
fn make_certs(dir: &Path) -> Secure {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    for ca in ["ca", "other-ca"] {
        let mut a: Vec<String> = vec!["req".into(), "-x509".into()];
        a.extend(ec.iter().map(|x| x.to_string()));
        a.extend([
            "-keyout".into(),
            format!("{ca}.key"),
            "-out".into(),
            format!("{ca}.crt"),
            "-days".into(),
            "3".into(),
            "-subj".into(),
            format!("/CN=slccache test {ca}"),
            "-addext".into(),
            "basicConstraints=critical,CA:TRUE".into(),
            "-addext".into(),
            "keyUsage=critical,keyCertSign,cRLSign".into(),
        ]);
        openssl(dir, &a);
    }
    let mut a = vec!["req"];
    a.extend(ec);
    a.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    openssl(dir, &a);
    std::fs::write(
        dir.join("server.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n\
         extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "3",
            "-extfile",
            "server.ext",
        ],
    );
    Secure {
        ca: dir.join("ca.crt"),
        other_ca: dir.join("other-ca.crt"),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn postgres_ids() -> Option<(u32, u32)> {
    let out = Command::new("id").args(["-u", "postgres"]).output().ok()?;
    let uid = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    let out = Command::new("id").args(["-g", "postgres"]).output().ok()?;
    let gid = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some((uid, gid))
}

/// Runs `bin` as the postgres user when we are root (setpriv execs, so the PID is the
/// program's own), else as ourselves.
fn as_pg_user(bin: &Path) -> Command {
    if rustix::process::geteuid().is_root() {
        let (uid, gid) = postgres_ids().expect("running as root needs a 'postgres' user");
        let mut c = Command::new("setpriv");
        c.arg(format!("--reuid={uid}"))
            .arg(format!("--regid={gid}"))
            .arg("--clear-groups")
            .arg("--")
            .arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

impl PgServer {
    /// Starts a server, or `None` when PostgreSQL is not installed and `CI` is not set
    /// (under CI a missing PostgreSQL fails the test: `.ci/run` installs it).
    pub fn start() -> Option<PgServer> {
        Self::start_with(false).map(|(s, _)| s)
    }

    /// A server with password authentication for every TCP connection, TLS with a
    /// certificate for `localhost` signed by the test's own CA, and rules in pg_hba.conf:
    /// database `tlsonly` refuses connections without TLS, role `blocked` is refused.
    /// `None` as [`PgServer::start`].
    pub fn start_secure() -> Option<(PgServer, Secure)> {
        Self::start_with(true).map(|(s, c)| (s, c.expect("secure")))
    }

    fn start_with(secure: bool) -> Option<(PgServer, Option<Secure>)> {
        let Some(bin) = pg_bin_dir() else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "PostgreSQL is not installed (apt-get install postgresql); .ci/run installs it"
            );
            crate::common::skip("PostgreSQL is not installed");
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("slccache-pg-")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        if rustix::process::geteuid().is_root() {
            let (uid, gid) = postgres_ids().unwrap();
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
        }
        let mut init = as_pg_user(&bin.join("initdb"));
        init.arg("-D").arg(&data);
        if secure {
            let pw = dir.path().join("admin-pw");
            std::fs::write(&pw, ADMIN_PASSWORD).unwrap();
            if rustix::process::geteuid().is_root() {
                let (uid, gid) = postgres_ids().unwrap();
                std::os::unix::fs::chown(&pw, Some(uid), Some(gid)).unwrap();
            }
            init.args(["-U", "slccache", "--auth=scram-sha-256", "--pwfile"])
                .arg(&pw);
        } else {
            init.args(["-U", "slccache", "--auth=trust"]);
        }
        let st = init
            .args(["-E", "UTF8", "--no-sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let certs = if secure {
            let c = make_certs(dir.path());
            std::fs::write(
                data.join("pg_hba.conf"),
                "local all all scram-sha-256\n\
                 hostnossl tlsonly all 127.0.0.1/32 reject\n\
                 host all blocked 127.0.0.1/32 reject\n\
                 host all all 127.0.0.1/32 scram-sha-256\n",
            )
            .unwrap();
            for f in ["server.crt", "server.key"] {
                std::fs::copy(dir.path().join(f), data.join(f)).unwrap();
            }
            if rustix::process::geteuid().is_root() {
                let (uid, gid) = postgres_ids().unwrap();
                for f in ["server.crt", "server.key", "pg_hba.conf"] {
                    std::os::unix::fs::chown(data.join(f), Some(uid), Some(gid)).unwrap();
                }
            }
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                data.join("server.key"),
                std::fs::Permissions::from_mode(0o600),
            )
            .unwrap();
            Some(c)
        } else {
            None
        };
        let mut server = PgServer {
            child: None,
            port: 0,
            dir: Some(dir),
            next_db: 0,
            admin_password: secure.then(|| ADMIN_PASSWORD.to_string()),
            bin: PathBuf::new(),
            secure,
        };
        server.bin = bin;
        server.secure = secure;
        for _attempt in 0..3 {
            let port = free_port();
            server.spawn(port);
            if server.wait_ready() {
                return Some((server, certs));
            }
            server.stop();
        }
        panic!(
            "PostgreSQL did not start: {}",
            std::fs::read_to_string(server.dir().join("server.log")).unwrap_or_default()
        );
    }

    fn spawn(&mut self, port: u16) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir().join("server.log"))
            .unwrap();
        let mut cmd = as_pg_user(&self.bin.join("postgres"));
        cmd.arg("-D")
            .arg(self.dir().join("data"))
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
            .arg(self.dir())
            .args(["-c", "fsync=off", "-c", "max_connections=40"]);
        if self.secure {
            cmd.args(["-c", "ssl=on"]);
        }
        let child = cmd.stdout(Stdio::null()).stderr(log).spawn().unwrap();
        self.child = Some(child);
        self.port = port;
    }

    /// Stops the server (a fast shutdown, by PID), keeping its data, so that a test can see
    /// what clients do while it is gone.
    pub fn pause(&mut self) {
        self.stop();
    }

    /// Gives the server a self-signed certificate for `localhost` (a CA certificate, as the
    /// usual one-line openssl recipe makes) and restarts it; returns the certificate, which
    /// is its own `sslrootcert`.
    pub fn use_self_signed_cert(&mut self) -> PathBuf {
        let data = self.dir().join("data");
        let dir = self.dir().to_path_buf();
        openssl(
            &dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "self.key",
                "-out",
                "self.crt",
                "-days",
                "3",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost",
            ],
        );
        std::fs::copy(dir.join("self.crt"), data.join("server.crt")).unwrap();
        std::fs::copy(dir.join("self.key"), data.join("server.key")).unwrap();
        if rustix::process::geteuid().is_root() {
            let (uid, gid) = postgres_ids().unwrap();
            for f in ["server.crt", "server.key"] {
                std::os::unix::fs::chown(data.join(f), Some(uid), Some(gid)).unwrap();
            }
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            data.join("server.key"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        self.pause();
        self.resume();
        dir.join("self.crt")
    }

    /// Starts the server again on the same port and data after [`PgServer::pause`].
    pub fn resume(&mut self) {
        let port = self.port;
        self.spawn(port);
        assert!(
            self.wait_ready(),
            "PostgreSQL did not start again: {}",
            std::fs::read_to_string(self.dir().join("server.log")).unwrap_or_default()
        );
    }

    fn dir(&self) -> &Path {
        self.dir.as_ref().unwrap().path()
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(c) = self.child.as_mut() {
                if c.try_wait().unwrap().is_some() {
                    return false;
                }
            }
            if postgres::Client::connect(&self.admin_url("postgres"), postgres::NoTls).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// The URL of database `db`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://slccache@127.0.0.1:{}/{db}", self.port)
    }

    /// The superuser's URL of database `db` (with its password on a secure server), for the
    /// test's own connections.
    pub fn admin_url(&self, db: &str) -> String {
        match &self.admin_password {
            Some(pw) => format!("postgres://slccache:{pw}@127.0.0.1:{}/{db}", self.port),
            None => self.url(db),
        }
    }

    /// The test's own connection to database `db`, as the superuser.
    pub fn admin(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.admin_url(db), postgres::NoTls).unwrap()
    }

    /// A new empty database; returns its URL.
    pub fn new_db(&mut self) -> String {
        let name = self.new_db_name();
        self.url(&name)
    }

    /// A new empty database; returns its name.
    pub fn new_db_name(&mut self) -> String {
        self.next_db += 1;
        let name = format!("case{}", self.next_db);
        self.admin("postgres")
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        name
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SIGINT: PostgreSQL's fast shutdown. By PID, never by name.
            let pid = rustix::process::Pid::from_child(&c);
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
        // The TempDir removes the data folder.
        drop(self.dir.take());
    }
}

/// Starts this test binary as its child `child` (a `sigkill_child_records_forever`, named with
/// its module; see `harness::run_child`) recording copies of `src` into
/// the store `db`, SIGKILLs it at several moments while it records, and checks after each kill
/// that the store opens and every run in it is whole (as many files as the folder has, less the
/// summary kept in the row) and exports.
pub fn kill_while_recording(loc: &slccache::store::Location, db: &str, src: &Path, child: &str) {
    use slccache::store::{Filter, Store};
    let files_per_run = folder(src).len() as i64 - 1;
    let mut seen = 0;
    for round in 0..3 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(crate::common::harness::CHILD_VAR, child)
            .env("SLCCACHE_TEST_KILL_DB", db)
            .env("SLCCACHE_TEST_KILL_SRC", src)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until it has added a few runs (bounded: it must have started), then kill it
        // while it is in the middle of the next ones.
        let want = seen + 2 + round;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            std::thread::sleep(Duration::from_millis(20 + 17 * round as u64));
            let n = Store::open(loc)
                .and_then(|mut s| s.list(&Filter::default()))
                .map(|l| l.len())
                .unwrap_or(0);
            if n >= want || Instant::now() > deadline {
                break;
            }
            assert!(
                child.try_wait().unwrap().is_none(),
                "the recording child exited by itself"
            );
        }
        child.kill().unwrap(); // SIGKILL, by PID
        child.wait().unwrap();
        let mut s = Store::open(loc).expect("the store opens after SIGKILL");
        let runs = s.list(&Filter::default()).unwrap();
        assert!(runs.len() >= want, "{} runs, wanted {want}", runs.len());
        for r in &runs {
            let got = s.get(r.id).unwrap();
            assert_eq!(
                got.files.len() as i64,
                files_per_run,
                "run {} is not whole",
                r.id
            );
        }
        let out = tempfile::tempdir().unwrap();
        s.export(runs.last().unwrap().id, out.path()).unwrap();
        seen = runs.len();
    }
}

/// `runs --json` of the store `db`.
pub fn runs_json(db: &str) -> Vec<serde_json::Value> {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.args(["--db", db, "runs", "--json"]);
    serde_json::from_str::<Vec<serde_json::Value>>(&ok(&mut c)).unwrap()
}

/// What the issue calls done, through the binary, on the store `db`: three emulated drives
/// probed (at the same time: the store takes concurrent recorders), an old folder imported,
/// the runs listed and filtered, two compared by id, a run exported byte for byte.
pub fn user_scenario(db: &str) {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    // An "old" folder, written without recording.
    let old = w.join("old-sim");
    ok(Command::cargo_bin("slccache")
        .unwrap()
        .args(["--no-record", "simulate", "p5-1tb", "--seed", "9", "--out"])
        .arg(&old));
    // Nothing recorded: no store was ever created (a reading command creates none and says
    // so, exit 2), neither an SQLite file nor a server's tables.
    let mut c = Command::cargo_bin("slccache").unwrap();
    let out = c.args(["--db", db, "runs", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--no-record recorded something");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no results store"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !std::path::Path::new(db).exists(),
        "a reading command created {db}"
    );
    // Four probes of emulated drives at once, each recording into the same store.
    let drives = [
        "emu:960evo-250g,cache=300MB",
        "emu:970evo-500g,cache=300MB",
        "emu:p5-1tb,cache=300MB",
        "emu:960evo-250g,cache=400MB",
    ];
    let children: Vec<_> = drives
        .iter()
        .enumerate()
        .map(|(i, d)| {
            Command::cargo_bin("slccache")
                .unwrap()
                .env("SLCCACHE_DB", db)
                .args(["probe", d, "--max-bytes", "900MB", "--out"])
                .arg(w.join(format!("probe-{i}")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(err.contains("recorded as run "), "{err}");
        assert!(!err.contains("warning: the run was not recorded"), "{err}");
    }
    let runs = runs_json(db);
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert!(runs.iter().all(|r| r["kind"] == "probe"));
    // Import the old folder, twice: it is added once.
    let mut c = Command::cargo_bin("slccache").unwrap();
    let text = ok(c.args(["--db", db, "runs", "import"]).arg(&old).arg(&old));
    assert!(
        text.contains("imported as run") && text.contains("already in the store"),
        "{text}"
    );
    let runs = runs_json(db);
    assert_eq!(runs.len(), 5);
    // The table and the filters.
    let mut c = Command::cargo_bin("slccache").unwrap();
    let table = ok(c.args(["--db", db, "runs"]));
    assert_eq!(table.lines().count(), 6, "{table}");
    assert!(table.contains("Crucial P5 1TB (simulated)"), "{table}");
    let mut c = Command::cargo_bin("slccache").unwrap();
    let evo: Vec<serde_json::Value> = serde_json::from_str(&ok(
        c.args(["--db", db, "runs", "--drive", "960 EVO", "--json"])
    ))
    .unwrap();
    assert_eq!(evo.len(), 2, "{evo:?}");
    let mut c = Command::cargo_bin("slccache").unwrap();
    let sims = ok(c.args(["--db", db, "runs", "--kind", "simulate", "--csv"]));
    assert_eq!(sims.lines().count(), 2, "{sims}");
    // Compare two runs by id.
    let ids: Vec<String> = evo.iter().map(|r| r["id"].to_string()).collect();
    let cmp = w.join("cmp");
    let mut c = Command::cargo_bin("slccache").unwrap();
    ok(c.args(["--db", db, "compare", &ids[0], &ids[1], "--out"])
        .arg(&cmp));
    let md = std::fs::read_to_string(cmp.join("compare.md")).unwrap();
    assert!(md.contains("960 EVO"), "{md}");
    // A probe exported from the store alone is its folder again, byte for byte.
    let first = &evo[0];
    let src = PathBuf::from(first["source_dir"].as_str().unwrap());
    let back = w.join("back");
    let mut c = Command::cargo_bin("slccache").unwrap();
    ok(c.args([
        "--db",
        db,
        "runs",
        "export",
        &first["id"].to_string(),
        "--out",
    ])
    .arg(&back));
    assert_same_folder(&src, &back);
    // Not over a folder that holds files.
    let o = Command::cargo_bin("slccache")
        .unwrap()
        .args([
            "--db",
            db,
            "runs",
            "export",
            &first["id"].to_string(),
            "--out",
        ])
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // rm, then the run is gone.
    let mut c = Command::cargo_bin("slccache").unwrap();
    ok(c.args(["--db", db, "runs", "rm", &ids[1]]));
    assert_eq!(runs_json(db).len(), 4);
}
