//! The SQLite backend: `rusqlite` with its bundled SQLite, WAL and a busy timeout; read-only
//! opening for the commands that only read.

use super::*;

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
            return Err(StoreError::NotAStore {
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
            return Err(StoreError::NotAStore {
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
            return Err(StoreError::NotAStore {
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
            let empty = std::fs::metadata(path).is_ok_and(|m| m.len() == 0);
            return Err(StoreError::NotAStore {
                place: path.display().to_string(),
                cause: if empty {
                    "an empty file, not a results store; give another --db".into()
                } else {
                    "an SQLite database of another program (no slccache_schema table); \
                     give another --db"
                        .into()
                },
            }
            .into());
        }
        Ok(s)
    }
}

/// `path` as an SQLite URI (`file:` and the path, `%`, `?` and `#` escaped).
pub(super) fn sqlite_uri(path: &Path) -> String {
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
pub(super) fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
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

pub(super) fn sqlite_open_error(path: &Path, e: &rusqlite::Error) -> anyhow::Error {
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
    let place = path.display().to_string();
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) {
        return StoreError::NotAStore { place, cause }.into();
    }
    StoreError::Open { place, cause }.into()
}

pub(super) fn to_sql(v: &Val) -> rusqlite::types::Value {
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
    fn query_each(
        &mut self,
        sql: &str,
        params: &[Val],
        each: &mut dyn FnMut(&dyn RowRef) -> Result<()>,
    ) -> Result<()> {
        let p: Vec<_> = params.iter().map(to_sql).collect();
        let mut st = self.conn.prepare(sql).with_context(|| first_line(sql))?;
        let mut rows = st.query(rusqlite::params_from_iter(p))?;
        while let Some(r) = rows.next()? {
            each(&SqliteRow(r))?;
        }
        Ok(())
    }
}

/// A row of an SQLite query, read in place: its values as [`Backend::query`] reads them.
struct SqliteRow<'a, 'b>(&'a rusqlite::Row<'b>);

impl RowRef for SqliteRow<'_, '_> {
    fn int(&self, i: usize) -> Result<Option<i64>> {
        Ok(match self.0.get_ref(i)? {
            rusqlite::types::ValueRef::Integer(x) => Some(x),
            _ => None,
        })
    }
    fn real(&self, i: usize) -> Result<Option<f64>> {
        use rusqlite::types::ValueRef;
        Ok(match self.0.get_ref(i)? {
            ValueRef::Integer(x) => Some(x as f64),
            ValueRef::Real(x) => Some(x),
            _ => None,
        })
    }
    fn text(&self, i: usize) -> Result<Option<std::borrow::Cow<'_, str>>> {
        Ok(match self.0.get_ref(i)? {
            rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t)),
            _ => None,
        })
    }
}
