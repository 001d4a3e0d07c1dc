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
    /// Whether a table of this name exists.
    fn table_exists(&mut self, name: &str) -> Result<bool>;
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

fn first_line(sql: &str) -> String {
    let l = sql.trim().lines().next().unwrap_or("");
    format!("running `{l}`")
}

/// How long connecting to a PostgreSQL server may take before the store gives up (unless the
/// URL sets `connect_timeout` itself).
pub const PG_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock key every slccache writer takes (transaction-scoped), so migrations and
/// inserts from many hosts queue instead of racing.
const PG_LOCK_KEY: i64 = 0x736c_6363_6163_6865; // "slccache"

/// A store on a PostgreSQL server.
pub struct Postgres {
    client: postgres::Client,
}

impl Postgres {
    /// Connects to `url` (`postgres://user@host[:port]/dbname`), without TLS, failing after
    /// [`PG_CONNECT_TIMEOUT`] (or the URL's `connect_timeout`) when the server does not
    /// answer.
    pub fn connect(url: &str) -> Result<Postgres> {
        let place = redact(url);
        let mut cfg: postgres::Config = url.parse().map_err(|e| StoreError::Open {
            place: place.clone(),
            cause: format!("not a PostgreSQL URL: {e}"),
        })?;
        let limit = *cfg.get_connect_timeout().unwrap_or(&PG_CONNECT_TIMEOUT);
        cfg.connect_timeout(limit);
        // The crate's timeout covers the TCP connect only; a server that accepts and then says
        // nothing would hang the handshake. So the whole connect runs in a thread and is given
        // up after the same limit (the thread ends when its socket does).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(cfg.connect(postgres::NoTls));
        });
        let client = match rx.recv_timeout(limit) {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                return Err(StoreError::Open {
                    place,
                    cause: format!("cannot connect: {e}"),
                }
                .into())
            }
            Err(_) => {
                return Err(StoreError::Open {
                    place,
                    cause: format!(
                        "cannot connect: timed out after {} s without an answer from the server",
                        limit.as_secs_f64()
                    ),
                }
                .into())
            }
        };
        Ok(Postgres { client })
    }
}

/// A PostgreSQL URL with its password replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        if let Some((auth, host)) = rest.split_once('@') {
            if let Some((user, _pw)) = auth.split_once(':') {
                return format!("{scheme}://{user}:***@{host}");
            }
        }
    }
    url.to_string()
}

impl Backend for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn table_exists(&mut self, name: &str) -> Result<bool> {
        let r = self.client.query_one(
            "SELECT count(*) FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_name = $1",
            &[&name],
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
            .with_context(|| first_line(sql))
    }
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>> {
        use postgres::types::Type;
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        let rows = self
            .client
            .query(sql, &refs)
            .with_context(|| first_line(sql))?;
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
                } else {
                    Val::Text(r.try_get(i)?)
                });
            }
            out.push(row);
        }
        Ok(out)
    }
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
    /// Reads `--db` or `SLCCACHE_DB`: a `postgres://` or `postgresql://` URL, else a file path.
    pub fn parse(s: &str) -> Location {
        let l = s.trim();
        if l.starts_with("postgres://") || l.starts_with("postgresql://") {
            Location::Postgres(l.to_string())
        } else {
            Location::Sqlite(PathBuf::from(s))
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

    /// For messages: the path with the home folder as `~`, or the URL without its password.
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

    /// Opens the backend.
    pub fn connect(&self) -> Result<Box<dyn Backend>> {
        Ok(match self {
            Location::Sqlite(p) => Box::new(Sqlite::open(p)?),
            Location::Postgres(u) => Box::new(Postgres::connect(u)?),
        })
    }
}
