//! The two places a store can live, behind one small trait: SQL text with numbered
//! placeholders, typed values in and out, and explicit transactions. Everything above this
//! (schema, insert, listing, export) is written once in `store/mod.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::StoreError;

/// Which SQL a backend speaks where the two differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (embedded, `rusqlite` with its bundled SQLite).
    Sqlite,
    /// PostgreSQL (the `postgres` crate).
    Postgres,
}

/// A value bound to a placeholder or read from a column, typed even when NULL (PostgreSQL
/// checks a parameter's type against its column).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A 64-bit integer.
    Int(Option<i64>),
    /// A double.
    Real(Option<f64>),
    /// Text.
    Text(Option<String>),
    /// Bytes.
    Blob(Option<Vec<u8>>),
}

impl Val {
    /// The integer, if this is a non-NULL integer.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Int(v) => *v,
            _ => None,
        }
    }
    /// The number, if this is a non-NULL integer or double.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Real(v) => *v,
            Val::Int(v) => v.map(|x| x as f64),
            _ => None,
        }
    }
    /// The text, if this is non-NULL text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Text(v) => v.as_deref(),
            _ => None,
        }
    }
    /// The bytes, if this is a non-NULL blob.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Val::Blob(v) => v.as_deref(),
            _ => None,
        }
    }
}

/// A connection to a store.
pub trait Backend: Send {
    /// Which SQL it speaks.
    fn dialect(&self) -> Dialect;
    /// The `i`-th placeholder (from 1): `?1` or `$1`.
    fn placeholder(&self, i: usize) -> String {
        match self.dialect() {
            Dialect::Sqlite => format!("?{i}"),
            Dialect::Postgres => format!("${i}"),
        }
    }
    /// Whether a table of this name exists (in the store's schema, on a server).
    fn table_exists(&mut self, name: &str) -> Result<bool>;
    /// The columns of a table: each name with its type as the database spells it, in lower
    /// case (`text`, `bigint`, `timestamp with time zone`, `jsonb`; SQLite: the declared type).
    /// Empty when there is no such table.
    fn columns(&mut self, table: &str) -> Result<Vec<(String, String)>>;
    /// PostgreSQL: the schema the store's tables are looked up and created in (the
    /// connection's `search_path`). `None` for SQLite.
    fn schema(&self) -> Option<String> {
        None
    }
    /// PostgreSQL: the schema where a store of an older slccache would be (the one the role's
    /// own `search_path` gives, `public` unless the role or the database set another), when
    /// it differs from [`Backend::schema`] and `--db` named no schema. `None` for SQLite.
    fn older_schema(&self) -> Option<String> {
        None
    }
    /// PostgreSQL: looks up and creates the store's tables in `schema` from now on.
    fn set_schema(&mut self, _schema: &str) -> Result<()> {
        Ok(())
    }
    /// PostgreSQL: whether a table of this name exists in `schema`.
    fn table_exists_in(&mut self, _schema: &str, _name: &str) -> Result<bool> {
        Ok(false)
    }
    /// PostgreSQL: whether the schema exists. Always true for SQLite.
    fn schema_exists(&mut self, _schema: &str) -> Result<bool> {
        Ok(true)
    }
    /// Starts a transaction that will write, holding the store's write lock from the start
    /// (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: a transaction-scoped advisory lock).
    fn begin_write(&mut self) -> Result<()>;
    /// Commits the open transaction.
    fn commit(&mut self) -> Result<()>;
    /// Rolls back the open transaction (errors ignored: the connection is closing or the
    /// transaction already failed).
    fn rollback(&mut self);
    /// Runs one statement; returns the rows changed.
    fn execute(&mut self, sql: &str, params: &[Val]) -> Result<u64>;
    /// Runs a query; returns every row, each column as a [`Val`].
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>>;
    /// Runs `COPY ... FROM STDIN` (text format) with `data` as its input; returns the rows
    /// written, or `None` where the backend has no COPY (SQLite): the caller then inserts.
    fn copy_in(&mut self, _sql: &str, _data: &[u8]) -> Result<Option<u64>> {
        Ok(None)
    }
}

/// How long a writer waits for another one's lock on an SQLite store.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// An SQLite store in one file (WAL journal, so readers never wait for a writer).
pub struct Sqlite {
    conn: rusqlite::Connection,
}

impl Sqlite {
    /// Opens (creating it and its folder if missing) the store file at `path`. A file that is not an SQLite
    /// database, or an SQLite database of another program, is refused without writing to it.
    pub fn open(path: &Path) -> Result<Sqlite> {
        let existed = path.exists();
        if existed && !path.is_file() {
            return Err(StoreError::Open {
                place: path.display().to_string(),
                cause: "not a regular file".into(),
            }
            .into());
        }
        if !existed {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| StoreError::Open {
                    place: path.display().to_string(),
                    cause: format!("cannot create the folder {}: {e}", parent.display()),
                })?;
            }
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| sqlite_open_error(path, &e))?;
        conn.busy_timeout(SQLITE_BUSY_TIMEOUT)
            .map_err(|e| sqlite_open_error(path, &e))?;
        let mut s = Sqlite { conn };
        // Read before anything can write: a text file or a damaged header fails here, unchanged.
        let tables: i64 = retry_busy(|| {
            s.conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
        })
        .map_err(|e| sqlite_open_error(path, &e))?;
        if existed && tables > 0 && !s.table_exists("slccache_schema")? {
            return Err(StoreError::Open {
                place: path.display().to_string(),
                cause: "an SQLite database of another program (no slccache_schema table); \
                        give another --db"
                    .into(),
            }
            .into());
        }
        // WAL: concurrent recorders queue on the busy timeout while `runs` keeps reading.
        // The journal mode is only changed when it is not WAL yet (the change needs a write).
        let mode: String = retry_busy(|| s.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)))
            .map_err(|e| sqlite_open_error(path, &e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            retry_busy(|| {
                s.conn
                    .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
            })
            .map_err(|e| sqlite_open_error(path, &e))?;
        }
        retry_busy(|| {
            s.conn
                .execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
        })
        .map_err(|e| sqlite_open_error(path, &e))?;
        Ok(s)
    }
}

impl Sqlite {
    /// Opens the store file at `path` for reading only, as it is: nothing is created, written
    /// or upgraded, so a store in a read-only folder, or a read-only file, can be listed. A
    /// store in WAL mode needs its `-shm` file; where none can be made (a read-only folder)
    /// and no `-wal` file holds changes not yet in the store, the file is read as immutable.
    pub fn open_read_only(path: &Path) -> Result<Sqlite> {
        use rusqlite::OpenFlags;
        if !path.is_file() {
            return Err(StoreError::Open {
                place: path.display().to_string(),
                cause: "not a regular file".into(),
            }
            .into());
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let uri = sqlite_uri(path);
        let open = |uri: &str| -> rusqlite::Result<Sqlite> {
            let conn = rusqlite::Connection::open_with_flags(uri, flags)?;
            conn.busy_timeout(SQLITE_BUSY_TIMEOUT)?;
            // Read before anything else: a WAL store whose -shm cannot be made fails here.
            retry_busy(|| {
                conn.query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
            })?;
            Ok(Sqlite { conn })
        };
        let mut s = match open(&uri) {
            Ok(s) => s,
            Err(e) => {
                let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
                let pending = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
                if pending {
                    return Err(sqlite_open_error(path, &e));
                }
                open(&format!("{uri}?immutable=1")).map_err(|_| sqlite_open_error(path, &e))?
            }
        };
        if !s.table_exists("slccache_schema")? {
            return Err(StoreError::Open {
                place: path.display().to_string(),
                cause: "an SQLite database of another program (no slccache_schema table); \
                        give another --db"
                    .into(),
            }
            .into());
        }
        Ok(s)
    }
}

/// `path` as an SQLite URI (`file:` and the path, `%`, `?` and `#` escaped).
fn sqlite_uri(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for c in abs.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri
}

/// Runs `f` again while SQLite answers "database is locked" (SQLITE_BUSY), up to the busy
/// timeout. Opening reads the schema and may switch the journal mode to WAL; when several
/// recorders open a new store at once, SQLite can answer busy there without calling the busy
/// handler (a lock it will not wait for, to avoid a deadlock), so the open waits itself.
fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + SQLITE_BUSY_TIMEOUT;
    loop {
        match f() {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

fn sqlite_open_error(path: &Path, e: &rusqlite::Error) -> anyhow::Error {
    let cause = match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => "not an SQLite database".to_string(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
            format!("the SQLite file is damaged (truncated or overwritten): {e}")
        }
        Some(rusqlite::ErrorCode::ReadOnly) => format!("the file is read-only: {e}"),
        Some(rusqlite::ErrorCode::CannotOpen) => {
            format!("cannot open or create the file (missing or read-only folder?): {e}")
        }
        _ => e.to_string(),
    };
    StoreError::Open {
        place: path.display().to_string(),
        cause,
    }
    .into()
}

fn to_sql(v: &Val) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Val::Int(Some(x)) => V::Integer(*x),
        Val::Real(Some(x)) => V::Real(*x),
        Val::Text(Some(x)) => V::Text(x.clone()),
        Val::Blob(Some(x)) => V::Blob(x.clone()),
        _ => V::Null,
    }
}

impl Backend for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn table_exists(&mut self, name: &str) -> Result<bool> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get(0),
        )?;
        Ok(n > 0)
    }
    fn columns(&mut self, table: &str) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT name, lower(type) FROM pragma_table_info(?1) ORDER BY cid")?;
        let rows = st.query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
    fn begin_write(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }
    fn rollback(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }
    fn execute(&mut self, sql: &str, params: &[Val]) -> Result<u64> {
        let p: Vec<_> = params.iter().map(to_sql).collect();
        let n = self
            .conn
            .execute(sql, rusqlite::params_from_iter(p))
            .with_context(|| first_line(sql))?;
        Ok(n as u64)
    }
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>> {
        use rusqlite::types::ValueRef;
        let p: Vec<_> = params.iter().map(to_sql).collect();
        let mut st = self.conn.prepare(sql).with_context(|| first_line(sql))?;
        let n = st.column_count();
        let mut rows = st.query(rusqlite::params_from_iter(p))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(match r.get_ref(i)? {
                    ValueRef::Null => Val::Text(None),
                    ValueRef::Integer(x) => Val::Int(Some(x)),
                    ValueRef::Real(x) => Val::Real(Some(x)),
                    ValueRef::Text(t) => Val::Text(Some(String::from_utf8_lossy(t).into_owned())),
                    ValueRef::Blob(b) => Val::Blob(Some(b.to_vec())),
                });
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// A failed statement on the server: what it did and the server's words, with what to do
/// where the cause is the role's rights or a lock held by someone else.
fn pg_error(e: postgres::Error, sql: &str) -> anyhow::Error {
    use postgres::error::SqlState;
    let hint = match e.code() {
        Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => Some(
            "this role may not do that in the store (a fleet's role has SELECT and INSERT \
             only): ask the store's owner",
        ),
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => Some(
            "a table of the store was locked by another session for longer than the lock \
             time-out",
        ),
        _ => None,
    };
    let e = anyhow::Error::new(e).context(first_line(sql));
    match hint {
        Some(h) => e.context(h),
        None => e,
    }
}

/// What a statement did, for an error's context: its first words up to the table it names
/// (`INSERT INTO runs`, `DELETE FROM run_files`), not the whole statement.
fn first_line(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let n = match words.first().map(|w| w.to_ascii_uppercase()) {
        Some(w) if matches!(w.as_str(), "INSERT" | "DELETE" | "COPY") => 3,
        Some(w) if w == "UPDATE" => 2,
        Some(w) if w == "SELECT" => match words.iter().position(|w| w.eq_ignore_ascii_case("FROM"))
        {
            Some(i) => i + 2,
            None => 1,
        },
        _ => 4,
    };
    let shown: Vec<&str> = words.iter().take(n.min(words.len())).copied().collect();
    let mut l = shown.join(" ");
    if l.len() > 80 {
        l.truncate(l.char_indices().nth(77).map_or(l.len(), |(i, _)| i));
        l += "...";
    }
    if words.len() > shown.len() {
        l += " ...";
    }
    format!("running `{l}`")
}

/// How long connecting to a PostgreSQL server may take before the store gives up (unless the
/// connection string sets `connect_timeout` itself).
pub const PG_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a statement may wait for a lock on the server (`lock_timeout`) before it fails,
/// so that a table locked by someone else never holds a finished run for long.
pub const PG_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one statement may run (`statement_timeout`) when a run is recorded.
pub const PG_STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);

/// The advisory lock key every slccache writer takes (transaction-scoped), so migrations and
/// inserts from many hosts queue instead of racing.
const PG_LOCK_KEY: i64 = 0x736c_6363_6163_6865; // "slccache"

/// A store on a PostgreSQL server.
pub struct Postgres {
    client: postgres::Client,
    /// The schema the store's tables are in (`search_path`).
    schema: String,
    /// Where an older slccache's store would be, when it is not `schema` and `--db` named none.
    older_schema: Option<String>,
}

/// The schema a store's tables live in on a PostgreSQL server when `--db` names none
/// (`?schema=NAME` in a URL, `schema=NAME` in a key=value string).
pub const PG_DEFAULT_SCHEMA: &str = "slccache";

/// The schema `--db` names, checked: lower-case letters, digits and `_`, starting with a
/// letter or `_`, at most 63 bytes, not one of PostgreSQL's own (`pg_*`,
/// `information_schema`). So it is written into SQL as it is, never quoted or escaped.
pub fn check_schema_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with("pg_")
        && name != "information_schema";
    if ok {
        Ok(())
    } else {
        Err(
            "--db: schema is a name of lower-case letters, digits and _ (at most 63, not \
             starting with a digit or pg_), such as slccache"
                .into(),
        )
    }
}

/// libpq's `sslmode`, as slccache applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, without checking its certificate (libpq's default).
    Prefer,
    /// TLS or nothing; the certificate is checked against `sslrootcert` only when that file
    /// exists (as libpq does), else not at all.
    Require,
    /// TLS, the certificate chain checked against `sslrootcert`, not the host name.
    VerifyCa,
    /// TLS, the chain and the host name checked.
    VerifyFull,
}

impl SslMode {
    fn parse(s: Option<&str>) -> std::result::Result<SslMode, String> {
        Ok(match s.unwrap_or("prefer") {
            "disable" | "allow" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => {
                return Err(
                    "--db: sslmode is one of disable, allow, prefer, require, verify-ca, \
                            verify-full"
                        .into(),
                )
            }
        })
    }
}

fn open_err(place: &str, cause: impl Into<String>) -> anyhow::Error {
    StoreError::Open {
        place: place.to_string(),
        cause: cause.into(),
    }
    .into()
}

impl Postgres {
    /// Reads `conn` as [`Postgres::connect`] would, without connecting: a string that could
    /// never connect (a port that is not a number, a setting slccache does not take, an
    /// `sslmode` of another name, a schema name it refuses) is a usage error now, before a
    /// run writes anything, rather than a run that cannot be recorded.
    pub fn check(conn: &str) -> Result<()> {
        let mut settings = crate::conninfo::resolve(conn, &crate::conninfo::Sources::process())
            .map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        if let Some(n) = settings.params.remove("schema") {
            check_schema_name(&n).map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        }
        match config_of(&settings) {
            Err(ConfigError::Usage(m)) => Err(anyhow::Error::new(crate::error::UsageError(m))),
            // A file it names (a root certificate) is looked at when connecting.
            Ok(_) | Err(ConfigError::Open(_)) => Ok(()),
        }
    }

    /// Connects to the server that `conn` names (a URL or a key=value string, completed from
    /// the service file, the environment and the password file; see [`super::pgconf`]), with
    /// TLS as its `sslmode` says, failing after [`PG_CONNECT_TIMEOUT`] (or its
    /// `connect_timeout`) when the server does not answer. `recording` sets the lock and
    /// statement time-outs that bound how long a finished run waits on the store.
    pub fn connect(conn: &str, recording: bool) -> Result<Postgres> {
        let place = crate::conninfo::display(conn);
        let settings = crate::conninfo::resolve(conn, &crate::conninfo::Sources::process())
            .map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        for n in &settings.notes {
            crate::note!("slccache: warning: {n}");
        }
        // `schema` is slccache's own setting: taken out before the rest becomes the
        // connection's configuration, so the server never sees it.
        let mut settings = settings;
        let (schema, named) = match settings.params.remove("schema") {
            Some(n) => (n, true),
            None => (PG_DEFAULT_SCHEMA.to_string(), false),
        };
        check_schema_name(&schema).map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        let (cfg, tls) = config_of(&settings).map_err(|e| match e {
            ConfigError::Usage(m) => anyhow::Error::new(crate::error::UsageError(m)),
            ConfigError::Open(m) => open_err(&place, m),
        })?;
        let limit = *cfg.get_connect_timeout().unwrap_or(&PG_CONNECT_TIMEOUT);
        // The crate's timeout covers the TCP connect only; a server that accepts and then says
        // nothing would hang the handshake. So the whole connect runs in a thread and is given
        // up after the same limit (the thread ends when its socket does).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = match tls {
                Some(t) => cfg.connect(t),
                None => cfg.connect(postgres::NoTls),
            };
            let _ = tx.send(r);
        });
        let mut client = match rx.recv_timeout(limit) {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(open_err(&place, connect_cause(&e, &settings))),
            Err(_) => {
                return Err(open_err(
                    &place,
                    format!(
                        "cannot connect: timed out after {} s without an answer from the server",
                        limit.as_secs_f64()
                    ),
                ))
            }
        };
        // Where the role's own search_path puts unqualified tables: where every slccache
        // before the store had a schema of its own created its tables.
        let home: Option<String> = client
            .query_one("SELECT current_schema()::text", &[])
            .map_err(|e| open_err(&place, connect_cause(&e, &settings)))?
            .get(0);
        let older_schema = home.filter(|h| !named && *h != schema);
        // Times in UTC: `--since 2026-12-01` and the dashboards' days are UTC days.
        let mut set = format!(
            "SET search_path = {}; SET TIME ZONE 'UTC'; SET lock_timeout = {}",
            quote_ident(&schema),
            PG_LOCK_TIMEOUT.as_millis()
        );
        if recording {
            set += &format!(
                "; SET statement_timeout = {}",
                PG_STATEMENT_TIMEOUT.as_millis()
            );
        }
        client
            .batch_execute(&set)
            .map_err(|e| open_err(&place, connect_cause(&e, &settings)))?;
        Ok(Postgres {
            client,
            schema,
            older_schema,
        })
    }
}

enum ConfigError {
    Usage(String),
    Open(String),
}

/// The crate's configuration and the TLS connector for resolved settings.
fn config_of(
    s: &crate::conninfo::Settings,
) -> std::result::Result<
    (
        postgres::Config,
        Option<tokio_postgres_rustls::MakeRustlsConnect>,
    ),
    ConfigError,
> {
    let mut cfg = postgres::Config::new();
    let mode = SslMode::parse(s.get("sslmode")).map_err(ConfigError::Usage)?;
    let hosts = s.hosts();
    for h in &hosts {
        if h.starts_with('/') {
            cfg.host_path(h);
        } else {
            cfg.host(h);
        }
    }
    if let Some(a) = s.get("hostaddr") {
        for x in a.split(',') {
            cfg.hostaddr(
                x.parse().map_err(|_| {
                    ConfigError::Usage("--db: hostaddr is not an IP address".into())
                })?,
            );
        }
    }
    for p in s.ports().map_err(ConfigError::Usage)? {
        cfg.port(p);
    }
    let user = s.get("user").unwrap_or("postgres");
    cfg.user(user);
    cfg.dbname(s.get("dbname").unwrap_or(user));
    if let Some(pw) = s.get("password") {
        cfg.password(pw);
    }
    cfg.application_name(s.get("application_name").unwrap_or("slccache"));
    if let Some(o) = s.get("options") {
        cfg.options(o);
    }
    let timeout = match s.get("connect_timeout") {
        Some(t) => match t.trim().parse::<i64>() {
            Ok(n) if n > 0 => Duration::from_secs(n as u64),
            Ok(_) => PG_CONNECT_TIMEOUT,
            Err(_) => {
                return Err(ConfigError::Usage(
                    "--db: connect_timeout is a whole number of seconds".into(),
                ))
            }
        },
        None => PG_CONNECT_TIMEOUT,
    };
    cfg.connect_timeout(timeout);
    if let Some(v) = s.get("channel_binding") {
        cfg.channel_binding(match v {
            "disable" => postgres::config::ChannelBinding::Disable,
            "prefer" => postgres::config::ChannelBinding::Prefer,
            "require" => postgres::config::ChannelBinding::Require,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: channel_binding is disable, prefer or require".into(),
                ))
            }
        });
    }
    if let Some(v) = s.get("target_session_attrs") {
        cfg.target_session_attrs(match v {
            "any" => postgres::config::TargetSessionAttrs::Any,
            "read-write" => postgres::config::TargetSessionAttrs::ReadWrite,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: target_session_attrs is any or read-write".into(),
                ))
            }
        });
    }
    if let Some(v) = s.get("keepalives") {
        cfg.keepalives(v != "0");
    }
    if let Some(v) = s.get("keepalives_idle") {
        if let Ok(n) = v.parse::<u64>() {
            cfg.keepalives_idle(Duration::from_secs(n));
        }
    }
    if let Some(v) = s.get("sslnegotiation") {
        cfg.ssl_negotiation(match v {
            "postgres" => postgres::config::SslNegotiation::Postgres,
            "direct" => postgres::config::SslNegotiation::Direct,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: sslnegotiation is postgres or direct".into(),
                ))
            }
        });
    }
    cfg.ssl_mode(match mode {
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Prefer => postgres::config::SslMode::Prefer,
        _ => postgres::config::SslMode::Require,
    });
    if mode == SslMode::Disable {
        return Ok((cfg, None));
    }
    // libpq's root certificate: sslrootcert, else ~/.postgresql/root.crt.
    let (root, named) = match s.get("sslrootcert") {
        Some(r) => (Some(std::path::PathBuf::from(r)), true),
        None => (
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".postgresql/root.crt")),
            false,
        ),
    };
    let root = root.filter(|r| named || r.is_file());
    let verify = match mode {
        SslMode::VerifyFull => tls::Verify::Full,
        SslMode::VerifyCa => tls::Verify::Chain,
        SslMode::Require if root.is_some() => tls::Verify::Chain,
        _ => tls::Verify::Nothing,
    };
    let roots = match (&verify, &root) {
        (tls::Verify::Nothing, _) => None,
        (_, Some(r)) => Some(r.clone()),
        (_, None) => {
            return Err(ConfigError::Usage(
                "--db: sslmode=verify-ca and verify-full need the server's root certificate: \
                 sslrootcert=FILE (or ~/.postgresql/root.crt)"
                    .into(),
            ))
        }
    };
    let tls = tls::connector(verify, roots.as_deref()).map_err(ConfigError::Open)?;
    Ok((cfg, Some(tls)))
}

/// The cause of a failed connection in words a user can act on: the server's own message
/// where it sent one, else what the network or TLS said.
fn connect_cause(e: &postgres::Error, s: &crate::conninfo::Settings) -> String {
    if let Some(db) = e.as_db_error() {
        use postgres::error::SqlState;
        let msg = db.message();
        let hint = if *db.code() == SqlState::INVALID_PASSWORD {
            " (give the password in the URL, PGPASSWORD or ~/.pgpass)"
        } else if *db.code() == SqlState::INVALID_CATALOG_NAME {
            " (no such database: create it, or name another in --db)"
        } else if msg.contains("pg_hba.conf") && msg.contains("no encryption") {
            " (the server's rules want TLS for this host: add sslmode=require)"
        } else if msg.contains("pg_hba.conf") {
            " (refused by the server's rules, pg_hba.conf)"
        } else if msg.contains("role") && msg.contains("does not exist") {
            " (no such role on the server)"
        } else {
            ""
        };
        return format!("the server said: {msg}{hint}");
    }
    let mut chain = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                let hosts = s.hosts().join(",");
                let ports = s
                    .ports()
                    .map(|p| p.iter().map(u16::to_string).collect::<Vec<_>>().join(","))
                    .unwrap_or_default();
                return format!(
                    "cannot connect: connection refused at {hosts} port {ports} (is the server \
                     running, and listening there?)"
                );
            }
        }
        let t = c.to_string();
        if !chain.contains(&t) {
            chain.push(t);
        }
        cur = c.source();
    }
    let text = chain.join(": ");
    if text.contains("server does not support TLS") {
        return format!(
            "cannot connect: {text} (the sslmode asks for TLS; the server has none: use \
             sslmode=prefer or disable, or turn on ssl in postgresql.conf)"
        );
    }
    if let Some(words) = tls_words(&text) {
        return format!("cannot connect: TLS: {words}");
    }
    if text.contains("certificate") || text.contains("TLS") || text.contains("tls") {
        return format!("cannot connect: TLS: {text} (check sslmode and sslrootcert)");
    }
    if text.contains("bytes remaining on stream") || text.contains("unexpected message") {
        return format!(
            "cannot connect: the server did not answer as PostgreSQL does (is a PostgreSQL \
             server listening there?): {text}"
        );
    }
    format!("cannot connect: {text}")
}

/// The refusal of a server's certificate in words, for the errors rustls names by their
/// kind (`UnknownIssuer`, `CaUsedAsEndEntity`, ...).
fn tls_words(text: &str) -> Option<String> {
    let why = if text.contains("UnknownIssuer") {
        "the server's certificate is not signed by a certificate that sslrootcert holds"
    } else if text.contains("CaUsedAsEndEntity") {
        "the server's certificate is a CA certificate that sslrootcert does not hold (a \
         self-signed certificate is trusted when sslrootcert is that certificate)"
    } else if text.contains("Expired") {
        "the server's certificate has expired"
    } else if text.contains("NotValidYet") {
        "the server's certificate is not valid yet (check the clocks)"
    } else if text.contains("not valid for name") || text.contains("NotValidForName") {
        return Some(format!(
            "{text} (verify-full checks the host name against the certificate's \
             subjectAltName; a certificate that names its host in its CN only, which libpq \
             still accepts, is refused here: make it with -addext subjectAltName=DNS:HOST, or \
             use sslmode=verify-ca)"
        ));
    } else {
        return None;
    };
    Some(format!("{why} (check sslmode and sslrootcert)"))
}

/// The TLS connectors for libpq's modes, over rustls.
mod tls {
    use std::path::Path;
    use std::sync::Arc;

    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, Error, SignatureScheme};

    /// What is checked of the server's certificate.
    pub enum Verify {
        /// Nothing (`prefer`, `require` without a root certificate): the link is encrypted,
        /// the server not authenticated, as libpq does.
        Nothing,
        /// The chain up to the root certificate, not the host name (`verify-ca`).
        Chain,
        /// The chain and the host name (`verify-full`).
        Full,
    }

    fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    /// A connector that checks what `verify` says against the certificates in `roots`.
    pub fn connector(
        verify: Verify,
        roots: Option<&Path>,
    ) -> Result<tokio_postgres_rustls::MakeRustlsConnect, String> {
        let builder = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?;
        let config = match verify {
            Verify::Nothing => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(NoCheck(provider())))
                .with_no_client_auth(),
            Verify::Chain | Verify::Full => {
                let path = roots.expect("checked by the caller");
                let mut store = rustls::RootCertStore::empty();
                let mut pinned = Vec::new();
                let certs = CertificateDer::pem_file_iter(path)
                    .map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?;
                for c in certs {
                    let c =
                        c.map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?;
                    pinned.push(c.clone());
                    store
                        .add(c)
                        .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
                }
                if store.is_empty() {
                    return Err(format!(
                        "sslrootcert {} holds no certificate",
                        path.display()
                    ));
                }
                let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                    Arc::new(store),
                    provider(),
                )
                .build()
                .map_err(|e| format!("TLS: {e}"))?;
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(Pinned {
                        webpki,
                        pinned,
                        full: matches!(verify, Verify::Full),
                    }))
                    .with_no_client_auth()
            }
        };
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
    }

    /// Accepts any certificate, still checking the handshake's signatures with it.
    #[derive(Debug)]
    struct NoCheck(Arc<rustls::crypto::CryptoProvider>);

    impl ServerCertVerifier for NoCheck {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    /// A server certificate that is itself in `sslrootcert` (a self-signed one, the usual
    /// quick setup) is trusted as it stands, as libpq's OpenSSL trusts a certificate of its
    /// trust store; WebPKI refuses one that is a CA certificate (`CaUsedAsEndEntity`). With
    /// `verify-full` its names must still match the host. Every other certificate goes
    /// through WebPKI's check of the chain and the name; without `full` (`verify-ca`) a
    /// certificate for another name is accepted.
    #[derive(Debug)]
    struct Pinned {
        webpki: Arc<rustls::client::WebPkiServerVerifier>,
        pinned: Vec<CertificateDer<'static>>,
        full: bool,
    }

    impl ServerCertVerifier for Pinned {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            intermediates: &[CertificateDer<'_>],
            server_name: &ServerName<'_>,
            ocsp_response: &[u8],
            now: UnixTime,
        ) -> Result<ServerCertVerified, Error> {
            if self
                .pinned
                .iter()
                .any(|p| p.as_ref() == end_entity.as_ref())
            {
                if self.full {
                    let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
                    rustls::client::verify_server_name(&parsed, server_name)?;
                }
                return Ok(ServerCertVerified::assertion());
            }
            match self.webpki.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ) {
                Err(Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForName
                    | rustls::CertificateError::NotValidForNameContext { .. },
                )) if !self.full => Ok(ServerCertVerified::assertion()),
                r => r,
            }
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            self.webpki.verify_tls12_signature(message, cert, dss)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, Error> {
            self.webpki.verify_tls13_signature(message, cert, dss)
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.webpki.supported_verify_schemes()
        }
    }
}

/// A PostgreSQL connection string as messages show it: host, port, user and database only,
/// never a password or another parameter (see [`crate::conninfo::display`]).
pub fn redact(conn: &str) -> String {
    crate::conninfo::display(conn)
}

impl Backend for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn table_exists(&mut self, name: &str) -> Result<bool> {
        let schema = self.schema.clone();
        self.table_exists_in(&schema, name)
    }
    fn columns(&mut self, table: &str) -> Result<Vec<(String, String)>> {
        // The catalog, not information_schema: that one hides what the role has no rights on.
        let rows = self.client.query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) \
             FROM pg_catalog.pg_attribute a \
             JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&self.schema, &table],
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, String>(1).to_lowercase()))
            .collect())
    }
    fn schema(&self) -> Option<String> {
        Some(self.schema.clone())
    }
    fn older_schema(&self) -> Option<String> {
        self.older_schema.clone()
    }
    fn set_schema(&mut self, schema: &str) -> Result<()> {
        self.client
            .batch_execute(&format!("SET search_path = {}", quote_ident(schema)))?;
        self.schema = schema.to_string();
        Ok(())
    }
    fn table_exists_in(&mut self, schema: &str, name: &str) -> Result<bool> {
        let r = self.client.query_one(
            "SELECT count(*) FROM pg_catalog.pg_class c \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
            &[&schema, &name],
        )?;
        Ok(r.get::<_, i64>(0) > 0)
    }
    fn schema_exists(&mut self, schema: &str) -> Result<bool> {
        let r = self.client.query_one(
            "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1",
            &[&schema],
        )?;
        Ok(r.get::<_, i64>(0) > 0)
    }
    fn begin_write(&mut self) -> Result<()> {
        self.client.batch_execute("BEGIN")?;
        self.client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&PG_LOCK_KEY])?;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.client.batch_execute("COMMIT")?;
        Ok(())
    }
    fn rollback(&mut self) {
        let _ = self.client.batch_execute("ROLLBACK");
    }
    fn execute(&mut self, sql: &str, params: &[Val]) -> Result<u64> {
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        self.client
            .execute(sql, &refs)
            .map_err(|e| pg_error(e, sql))
    }
    fn copy_in(&mut self, sql: &str, data: &[u8]) -> Result<Option<u64>> {
        use std::io::Write as _;
        let mut w = self.client.copy_in(sql).with_context(|| first_line(sql))?;
        w.write_all(data).with_context(|| first_line(sql))?;
        Ok(Some(w.finish().with_context(|| first_line(sql))?))
    }
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>> {
        use postgres::types::Type;
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        let rows = self
            .client
            .query(sql, &refs)
            .map_err(|e| pg_error(e, sql))?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let mut row = Vec::with_capacity(r.len());
            for (i, c) in r.columns().iter().enumerate() {
                let t = c.type_();
                row.push(if *t == Type::INT8 {
                    Val::Int(r.try_get(i)?)
                } else if *t == Type::INT4 {
                    Val::Int(r.try_get::<_, Option<i32>>(i)?.map(i64::from))
                } else if *t == Type::FLOAT8 {
                    Val::Real(r.try_get(i)?)
                } else if *t == Type::BYTEA {
                    Val::Blob(r.try_get(i)?)
                } else if *t == Type::BOOL {
                    Val::Int(r.try_get::<_, Option<bool>>(i)?.map(i64::from))
                } else if *t == Type::TIMESTAMPTZ {
                    Val::Text(r.try_get::<_, Option<PgTime>>(i)?.map(|x| x.0))
                } else if *t == Type::JSONB || *t == Type::JSON {
                    Val::Text(r.try_get::<_, Option<PgJson>>(i)?.map(|x| x.0))
                } else {
                    Val::Text(r.try_get(i)?)
                });
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// A `timestamptz` read as RFC 3339 text in UTC (`2026-02-15T10:00:00Z`, with as many
/// fraction digits as it has: PostgreSQL keeps microseconds). Its binary form is the
/// microseconds since 2000-01-01 00:00 UTC.
struct PgTime(String);

impl<'a> postgres::types::FromSql<'a> for PgTime {
    fn from_sql(
        _ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let us = i64::from_be_bytes(raw.try_into()?);
        let epoch = chrono::DateTime::from_timestamp(946_684_800, 0).expect("a valid time");
        let t = epoch
            .checked_add_signed(chrono::TimeDelta::microseconds(us))
            .ok_or("a timestamptz out of range")?;
        Ok(PgTime(
            t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        ))
    }
    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::TIMESTAMPTZ
    }
}

/// A `jsonb` or `json` value read as its text (`jsonb`'s binary form is a version byte, 1,
/// then the text).
struct PgJson(String);

impl<'a> postgres::types::FromSql<'a> for PgJson {
    fn from_sql(
        ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let text = if *ty == postgres::types::Type::JSONB {
            match raw.split_first() {
                Some((1, rest)) => rest,
                _ => return Err("an unknown jsonb format".into()),
            }
        } else {
            raw
        };
        Ok(PgJson(std::str::from_utf8(text)?.to_string()))
    }
    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::JSONB || *ty == postgres::types::Type::JSON
    }
}

/// A placeholder for the `i`-th value (from 1) bound to a column of type `column_type` (as
/// [`Backend::columns`] spells it). Values are bound as text, integers, doubles or bytes; on
/// PostgreSQL a `timestamptz` or `jsonb` column takes its text through a cast
/// (`CAST($1 AS TEXT)::timestamptz`), SQLite takes the text as it is.
pub fn typed_placeholder(d: Dialect, i: usize, column_type: &str) -> String {
    match d {
        Dialect::Sqlite => format!("?{i}"),
        Dialect::Postgres => match column_type {
            "timestamp with time zone" => format!("CAST(${i} AS TEXT)::timestamptz"),
            "jsonb" | "json" => format!("CAST(${i} AS TEXT)::{column_type}"),
            _ => format!("${i}"),
        },
    }
}

/// A name as an SQL identifier: in double quotes, a quote inside doubled.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Whether an error is PostgreSQL's "permission denied" (SQLSTATE 42501): the role may not do
/// what was asked (create or alter the store's tables).
pub fn is_permission_denied(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<postgres::Error>()
            .and_then(postgres::Error::code)
            == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE)
    })
}

fn pg_params(params: &[Val]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Val::Int(x) => Box::new(*x),
                Val::Real(x) => Box::new(*x),
                Val::Text(x) => Box::new(x.clone()),
                Val::Blob(x) => Box::new(x.clone()),
            }
        })
        .collect()
}

/// Where a store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL.
    Postgres(String),
}

impl Location {
    /// Reads `--db` or `SLCCACHE_DB`: a PostgreSQL URL (`postgres://` or `postgresql://`, any
    /// case) or libpq key=value string, else a file path. A URL of any other scheme, or
    /// anything else holding `://`, is refused as a usage error (exit 2), so a typo never
    /// becomes a file; a PostgreSQL string that could never connect is refused the same way
    /// ([`Postgres::check`]).
    pub fn parse(s: &str) -> Result<Location> {
        match crate::conninfo::classify(s) {
            Ok(crate::conninfo::DbKind::Postgres) => {
                Postgres::check(s.trim())?;
                Ok(Location::Postgres(s.trim().to_string()))
            }
            Ok(crate::conninfo::DbKind::Path) => Ok(Location::Sqlite(PathBuf::from(s))),
            Err(m) => Err(anyhow::Error::new(crate::error::UsageError(m))),
        }
    }

    /// The default store: `$XDG_DATA_HOME/slccache/results.db`, else
    /// `~/.local/share/slccache/results.db`.
    pub fn default_path(xdg_data_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
        let base = match xdg_data_home.filter(|x| Path::new(x).is_absolute()) {
            Some(x) => PathBuf::from(x),
            None => PathBuf::from(home.filter(|h| !h.is_empty())?).join(".local/share"),
        };
        Some(base.join("slccache").join("results.db"))
    }

    /// For messages: the path with the home folder as `~`, or the server without its password.
    pub fn display(&self, home: Option<&str>) -> String {
        match self {
            Location::Sqlite(p) => match home.filter(|h| !h.is_empty()) {
                Some(h) => match p.strip_prefix(h) {
                    Ok(rest) => format!("~/{}", rest.display()),
                    Err(_) => p.display().to_string(),
                },
                None => p.display().to_string(),
            },
            Location::Postgres(u) => redact(u),
        }
    }

    /// Opens the backend for reading and writing (an SQLite file is created if missing).
    pub fn connect(&self) -> Result<Box<dyn Backend>> {
        Ok(match self {
            Location::Sqlite(p) => Box::new(Sqlite::open(p)?),
            Location::Postgres(u) => Box::new(Postgres::connect(u, false)?),
        })
    }

    /// Opens the backend to record a run: on a server, with the lock and statement time-outs
    /// that bound how long a finished run waits.
    pub fn connect_for_recording(&self) -> Result<Box<dyn Backend>> {
        Ok(match self {
            Location::Sqlite(p) => Box::new(Sqlite::open(p)?),
            Location::Postgres(u) => Box::new(Postgres::connect(u, true)?),
        })
    }

    /// Opens an existing store for a command that changes it (`runs rm`): a file that does
    /// not exist is an error naming it, and nothing is created.
    pub fn connect_existing(&self) -> Result<Box<dyn Backend>> {
        self.check_exists()?;
        self.connect()
    }

    /// Opens an existing store for a command that only reads it: as
    /// [`Location::connect_existing`], and an SQLite file is opened read-only
    /// ([`Sqlite::open_read_only`]).
    pub fn connect_reading(&self) -> Result<Box<dyn Backend>> {
        self.check_exists()?;
        Ok(match self {
            Location::Sqlite(p) => Box::new(Sqlite::open_read_only(p)?),
            Location::Postgres(u) => Box::new(Postgres::connect(u, false)?),
        })
    }

    /// An SQLite file that does not exist is an error naming it.
    fn check_exists(&self) -> Result<()> {
        if let Location::Sqlite(p) = self {
            if !p.exists() {
                return Err(anyhow::Error::new(crate::error::UsageError(format!(
                    "no results store at {} (nothing was recorded there; check --db or \
                     SLCCACHE_DB)",
                    p.display()
                ))));
            }
        }
        Ok(())
    }
}
