//! The two places a store can live, behind one small trait: SQL text with numbered
//! placeholders, typed values in and out, and explicit transactions. Everything above this
//! (schema, insert, listing, export) is written once in `store/mod.rs`. The backends are
//! `sqlite.rs` and `pg.rs` (with its TLS connectors in `tls.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use super::StoreError;

mod pg;
mod sqlite;
mod tls;

pub use pg::{
    check_schema_name, redact, Postgres, SslMode, PG_CONNECT_TIMEOUT, PG_DEFAULT_SCHEMA,
    PG_LOCK_TIMEOUT, PG_STATEMENT_TIMEOUT,
};
pub use sqlite::{Sqlite, SQLITE_BUSY_TIMEOUT};

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

/// One row of a query as the backend holds it, read column by column in place: no row of
/// [`Val`]s is built, and text the backend holds as text is borrowed, not copied. Each column
/// reads as [`Backend::query`]'s [`Val`] of it would ([`Val::as_i64`], [`Val::as_f64`],
/// [`Val::as_str`]).
pub trait RowRef {
    /// The integer, if the column holds a non-NULL integer.
    fn int(&self, i: usize) -> Result<Option<i64>>;
    /// The number, if the column holds a non-NULL integer or double.
    fn real(&self, i: usize) -> Result<Option<f64>>;
    /// The text, if the column holds non-NULL text (on PostgreSQL also a `timestamptz`, as
    /// RFC 3339 text in UTC, and `jsonb`, as its text).
    fn text(&self, i: usize) -> Result<Option<std::borrow::Cow<'_, str>>>;
    /// A PostgreSQL `timestamptz` as its microseconds since 2000-01-01 UTC (the server's own
    /// form of it, which orders as the server orders times); `None` for every other column
    /// and on SQLite, which holds times as text.
    fn micros(&self, _i: usize) -> Result<Option<i64>> {
        Ok(None)
    }
}

/// A row of [`Val`]s read as a [`RowRef`].
impl RowRef for Vec<Val> {
    fn int(&self, i: usize) -> Result<Option<i64>> {
        Ok(self[i].as_i64())
    }
    fn real(&self, i: usize) -> Result<Option<f64>> {
        Ok(self[i].as_f64())
    }
    fn text(&self, i: usize) -> Result<Option<std::borrow::Cow<'_, str>>> {
        Ok(self[i].as_str().map(std::borrow::Cow::Borrowed))
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
    /// Runs a query and hands each row to `each` as the backend reads it, in place
    /// ([`RowRef`]): for a query of many rows that are folded as they come (`runs --by`), not
    /// kept. An error from `each` ends the query and is returned.
    fn query_each(
        &mut self,
        sql: &str,
        params: &[Val],
        each: &mut dyn FnMut(&dyn RowRef) -> Result<()>,
    ) -> Result<()> {
        for r in self.query(sql, params)? {
            each(&r)?;
        }
        Ok(())
    }
    /// Runs `COPY ... FROM STDIN` (text format) with `data` as its input; returns the rows
    /// written, or `None` where the backend has no COPY (SQLite): the caller then inserts.
    fn copy_in(&mut self, _sql: &str, _data: &[u8]) -> Result<Option<u64>> {
        Ok(None)
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

    /// An SQLite file that does not exist, or is empty, is an error naming it.
    fn check_exists(&self) -> Result<()> {
        if let Location::Sqlite(p) = self {
            if !p.exists() {
                return Err(anyhow::Error::new(crate::error::UsageError(format!(
                    "no results store at {} (nothing was recorded there; check --db or \
                     SLCCACHE_DB)",
                    p.display()
                ))));
            }
            // An empty file holds no store, and opening it as one would write to it.
            if p.is_file() && std::fs::metadata(p).is_ok_and(|m| m.len() == 0) {
                return Err(anyhow::Error::new(crate::error::UsageError(format!(
                    "no results store at {}: an empty file (check --db or SLCCACHE_DB)",
                    p.display()
                ))));
            }
        }
        Ok(())
    }
}
