//! The store's schema: its version numbers in `slccache_schema`, the tables, and the migrations
//! that bring an older store up to date inside one transaction.
//!
//! Both backends keep the same tables, written once; a few spellings differ between SQLite and
//! PostgreSQL (the id column, the binary, real, JSON and time types), filled into the same text,
//! and a statement that starts with `{pg}` or `{sqlite}` runs on that backend only.
//!
//! **Two versions.** `slccache_schema` holds one row: `tables_version`, the version of the
//! tables, and `version`, the oldest schema version that may still write into them (the
//! "compatible-with" version). Every slccache since the first reads `version` and refuses a
//! store whose `version` is above its own, so a step that only adds (columns, tables, views,
//! indexes) leaves `version` alone and older clients go on recording; a step they cannot live
//! with raises it. A version-1 store has no `tables_version` (it is `version`).
//!
//! **Who migrates.** A client opening a store older than itself takes the steps that only add,
//! in one transaction, on its own. A step that breaks older clients is taken only by
//! `slccache db migrate` ([`migrate_explicit`]); until then a client writes into the store as it
//! is when the step allows it ([`Compat::Breaks`] `in_place`), else it refuses with
//! [`StoreError::StaleSchema`], which names the command (the run waits in the spool).
//!
//! **Where, on PostgreSQL.** The tables live in a schema of their own (`slccache`, or the
//! `schema=` of `--db`). A store of version 1 lives where the role's own `search_path` put it
//! (`public`): when `--db` names no schema and `slccache` holds no store, that one is used in
//! place, and `slccache db migrate` moves it (and leaves in `public` only its
//! `slccache_schema`, with a `version` that makes an older slccache refuse it instead of
//! starting a new store there, and `moved_to`).

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

use super::backend::{is_permission_denied, quote_ident, typed_placeholder, Backend, Dialect, Val};
use super::StoreError;

/// The schema version this slccache writes.
pub const SCHEMA_VERSION: i64 = 6;

/// What a step does to clients older than it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compat {
    /// It only adds (nullable columns, tables, views, indexes): any client takes it when it
    /// opens the store, and older clients go on writing (their rows leave the new columns
    /// NULL). The store's compatible-with version stays as it was.
    Adds,
    /// Older clients cannot write after it: it raises the compatible-with version to its own,
    /// and only `slccache db migrate` takes it. With `in_place`, a client of this version
    /// writes into the store as it was before the step until then; without, it refuses the
    /// store as stale.
    Breaks {
        /// Whether a client that knows this step still writes the store without it.
        in_place: bool,
    },
}

/// Work a step does in Rust after its statements, inside the same transaction (filling new
/// columns and tables from what the store holds).
pub type Fill = fn(&mut dyn Backend) -> Result<()>;

/// One step from version `to - 1` to `to`: statements with `{id}`, `{blob}`, `{real}`,
/// `{json}` and `{ts}` in place of the types that differ between the dialects.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version the store has after this step.
    pub to: i64,
    /// What it does to older clients of an SQLite store.
    pub sqlite: Compat,
    /// What it does to older clients of a PostgreSQL store.
    pub postgres: Compat,
    /// The statements, run in order inside the migration's transaction.
    pub statements: &'static [&'static str],
    /// Run after the statements, in the same transaction.
    pub fill: Option<Fill>,
}

impl Migration {
    /// What the step does to older clients on this backend.
    pub fn compat(&self, d: Dialect) -> Compat {
        match d {
            Dialect::Sqlite => self.sqlite,
            Dialect::Postgres => self.postgres,
        }
    }
}

/// Version 1: the runs, their stored files, and the indexes the listing filters use.
const V1: &[&str] = &[
    "CREATE TABLE slccache_schema (version BIGINT NOT NULL)",
    "CREATE TABLE runs (
        id {id},
        content_hash TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        started_at TEXT,
        interrupted BIGINT NOT NULL,
        model TEXT,
        serial TEXT,
        firmware TEXT,
        capacity_bytes BIGINT,
        target TEXT,
        label TEXT,
        host TEXT,
        cache_bytes BIGINT,
        cache_low_bytes BIGINT,
        cache_high_bytes BIGINT,
        cache_lower_bound_bytes BIGINT,
        in_cache_bytes_per_sec {real},
        after_cache_bytes_per_sec {real},
        data_units_written BIGINT,
        percentage_used BIGINT,
        source_dir TEXT,
        render TEXT,
        summary TEXT NOT NULL
    )",
    "CREATE TABLE run_files (
        run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        data {blob} NOT NULL,
        PRIMARY KEY (run_id, name)
    )",
    "CREATE INDEX runs_serial ON runs (serial)",
    "CREATE INDEX runs_started ON runs (started_at)",
];

/// Version 2, for dashboards: the two version numbers; bytes written and tags as columns; on
/// PostgreSQL the dates as `timestamptz`, the summary as `jsonb` (kept verbatim in
/// `summary_text` too, for `runs export`), the timeline as rows, and the views `runs_v` and
/// `timeline_v`. SQLite keeps its types (TEXT dates, the summary as TEXT).
const V2: &[&str] = &[
    "ALTER TABLE slccache_schema ADD COLUMN tables_version BIGINT",
    "ALTER TABLE runs ADD COLUMN bytes_written BIGINT",
    "ALTER TABLE runs ADD COLUMN tags {json}",
    "CREATE INDEX runs_host_started ON runs (host, started_at)",
    // Casts that give NULL instead of failing, for what an imported folder may hold: a date
    // that is not one, a summary that jsonb cannot take (a \u0000 in a string).
    "{pg} CREATE OR REPLACE FUNCTION pg_temp.slccache_ts(t TEXT) RETURNS TIMESTAMPTZ
        LANGUAGE plpgsql AS $$
        BEGIN
            IF t ~ '^\\d{4}-\\d\\d-\\d\\d[Tt ]\\d\\d:\\d\\d' THEN RETURN t::timestamptz; END IF;
            RETURN NULL;
        EXCEPTION WHEN others THEN RETURN NULL;
        END $$",
    "{pg} CREATE OR REPLACE FUNCTION pg_temp.slccache_jsonb(t TEXT) RETURNS JSONB
        LANGUAGE plpgsql AS $$
        BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$",
    "{pg} ALTER TABLE runs ADD COLUMN summary_text TEXT",
    "{pg} UPDATE runs SET summary_text = summary",
    "{pg} ALTER TABLE runs ALTER COLUMN summary_text SET NOT NULL",
    "{pg} ALTER TABLE runs ALTER COLUMN summary DROP NOT NULL",
    "{pg} ALTER TABLE runs ALTER COLUMN summary TYPE JSONB USING pg_temp.slccache_jsonb(summary)",
    "{pg} ALTER TABLE runs ALTER COLUMN recorded_at TYPE TIMESTAMPTZ USING recorded_at::timestamptz",
    "{pg} ALTER TABLE runs ALTER COLUMN started_at TYPE TIMESTAMPTZ
        USING pg_temp.slccache_ts(started_at)",
    "{pg} CREATE TABLE timeline (
        run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        n BIGINT NOT NULL,
        t_s DOUBLE PRECISION NOT NULL,
        bytes BIGINT NOT NULL,
        bytes_per_sec DOUBLE PRECISION NOT NULL,
        lat_p99_us DOUBLE PRECISION,
        temp_c DOUBLE PRECISION,
        PRIMARY KEY (run_id, n)
    )",
    "{pg} CREATE VIEW runs_v AS SELECT
        id,
        COALESCE(started_at, recorded_at) AS started_at,
        recorded_at,
        kind,
        host,
        model,
        serial,
        firmware,
        label,
        target,
        tags,
        interrupted <> 0 AS interrupted,
        capacity_bytes,
        cache_bytes,
        cache_low_bytes,
        cache_high_bytes,
        cache_lower_bound_bytes,
        in_cache_bytes_per_sec,
        after_cache_bytes_per_sec,
        bytes_written,
        data_units_written,
        percentage_used,
        summary
    FROM runs",
    "{pg} CREATE VIEW timeline_v AS SELECT
        t.run_id,
        COALESCE(r.started_at, r.recorded_at) + t.t_s * INTERVAL '1 second' AS time,
        t.t_s,
        t.bytes,
        t.bytes_per_sec,
        t.lat_p99_us,
        t.temp_c,
        r.host,
        r.model,
        r.serial,
        r.kind
    FROM timeline t JOIN runs r ON r.id = t.run_id",
];

/// Version 3: an index that holds every column a listing reads but the summary, in the
/// listing's order, so that `runs` and `runs --by` read it and not the table, whose rows hold
/// each run's summary (at a fleet's hundred thousand runs, hundreds of megabytes to scan);
/// and no rate after the cache in the rows of runs whose stretch was too short to judge.
const V3: &[&str] = &[
    "CREATE INDEX runs_listing ON runs (
        COALESCE(started_at, recorded_at), id, kind, recorded_at, started_at, model, serial,
        firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes,
        cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec,
        after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir,
        bytes_written
    )",
    // The rate after the cache in a run's row is one judged steady: a rate too short to judge
    // (which the findings keep, said as such) leaves it NULL, as a stretch not steady does.
    "{sqlite} UPDATE runs SET after_cache_bytes_per_sec = NULL
        WHERE json_extract(summary, '$.findings.after.kind') = 'too_short'",
    "{pg} UPDATE runs SET after_cache_bytes_per_sec = NULL
        WHERE summary -> 'findings' -> 'after' ->> 'kind' = 'too_short'",
];

/// Version 4: a stored file larger than one piece ([`super::PIECE_BYTES`]) is kept in
/// `run_file_parts`, each piece deflated on its own and numbered from 0, and its `run_files`
/// row counts them (`parts`; its `data` is [`super::PIECED`], a deflate stream no reader takes,
/// so that an older slccache fails to read such a file instead of reading it as empty). Files
/// of one piece or less, and every file recorded before, keep the whole-file layout (`parts`
/// NULL). Recording and reading then hold one piece of a file at a time, and no value bound
/// comes near the 1 GB that SQLite and PostgreSQL allow one value.
const V4: &[&str] = &[
    "ALTER TABLE run_files ADD COLUMN parts BIGINT",
    "CREATE TABLE run_file_parts (
        run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        part BIGINT NOT NULL,
        data {blob} NOT NULL,
        PRIMARY KEY (run_id, name, part)
    )",
];

/// Version 5: each run's workload in a few words (`randwrite 4K QD32`, as `runs` shows it;
/// NULL where the run has none) and whether its findings hedge the cache's size
/// (`cache_hedged`: 1 for a size that a faster first tier hidden in the first sample could make
/// a later tier's, or a drop not confirmed; else 0), so that `runs --by drive` keeps each
/// workload of a drive apart and marks a median that takes a hedged size in, reading columns
/// only. Both are filled for the runs already there from their summaries
/// ([`super::fill_group_columns`]), and `runs_listing` is made again with them at its
/// end: on SQLite a column added after the summary sits behind it in the row, and reading it
/// from the table would read every summary's overflow pages.
const V5: &[&str] = &[
    "ALTER TABLE runs ADD COLUMN workload TEXT",
    "ALTER TABLE runs ADD COLUMN cache_hedged BIGINT",
    "DROP INDEX runs_listing",
    "CREATE INDEX runs_listing ON runs (
        COALESCE(started_at, recorded_at), id, kind, recorded_at, started_at, model, serial,
        firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes,
        cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec,
        after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir,
        bytes_written, workload, cache_hedged
    )",
];

/// Version 6: what each run's rate after the cache leaves out or may not be (`after_marks`,
/// [`crate::detect::AfterCaveats`] bits: 1 where thermal throttling after the last cliff was
/// left out of it, 2 where a slower tier may follow; 0 for none; NULL where not known, in the
/// rows an older slccache writes), so that `runs --by` marks an after-cache median that takes
/// such a rate in, reading columns only. Filled for the runs already there from their
/// summaries ([`super::fill_group_columns`]), and `runs_listing` is made again with it at its
/// end, as version 5 did for its two columns (on SQLite a column added after the summary sits
/// behind it in the row).
const V6: &[&str] = &[
    "ALTER TABLE runs ADD COLUMN after_marks BIGINT",
    "DROP INDEX runs_listing",
    "CREATE INDEX runs_listing ON runs (
        COALESCE(started_at, recorded_at), id, kind, recorded_at, started_at, model, serial,
        firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes,
        cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec,
        after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir,
        bytes_written, workload, cache_hedged, after_marks
    )",
];

/// Every migration, in order; the last one's `to` is [`SCHEMA_VERSION`].
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        to: 1,
        sqlite: Compat::Breaks { in_place: false },
        postgres: Compat::Breaks { in_place: false },
        statements: V1,
        fill: None,
    },
    Migration {
        to: 2,
        sqlite: Compat::Adds,
        // The dates and the summary change type: a version-1 client's text no longer fits.
        // This version still writes a version-1 store as it is.
        postgres: Compat::Breaks { in_place: true },
        statements: V2,
        fill: Some(super::fill_headline_and_timeline),
    },
    Migration {
        to: 3,
        sqlite: Compat::Adds,
        postgres: Compat::Adds,
        statements: V3,
        fill: None,
    },
    Migration {
        to: 4,
        // Older clients go on recording (whole files, as before) and reading every file
        // recorded whole; a file recorded in pieces is an error to them (its `data` does not
        // inflate), never a file read short.
        sqlite: Compat::Adds,
        postgres: Compat::Adds,
        statements: V4,
        fill: None,
    },
    Migration {
        to: 5,
        // Older clients go on recording; their rows leave the two columns NULL (no workload,
        // not hedged, to `runs --by`).
        sqlite: Compat::Adds,
        postgres: Compat::Adds,
        statements: V5,
        fill: Some(super::fill_group_columns),
    },
    Migration {
        to: 6,
        // Older clients go on recording; their rows leave `after_marks` NULL (no mark, to
        // `runs --by`).
        sqlite: Compat::Adds,
        postgres: Compat::Adds,
        statements: V6,
        // The same fill as version 5's: a store taking both steps reads each summary once.
        fill: Some(super::fill_group_columns),
    },
];

/// A statement in the backend's own spelling, or `None` when it is for the other backend.
pub fn spell(sql: &str, d: Dialect) -> Option<String> {
    let sql = match (sql.strip_prefix("{pg} "), sql.strip_prefix("{sqlite} "), d) {
        (Some(s), _, Dialect::Postgres) | (_, Some(s), Dialect::Sqlite) => s,
        (Some(_), _, Dialect::Sqlite) | (_, Some(_), Dialect::Postgres) => return None,
        _ => sql,
    };
    let (id, blob, real, json, ts) = match d {
        Dialect::Sqlite => (
            "INTEGER PRIMARY KEY AUTOINCREMENT",
            "BLOB",
            "REAL",
            "TEXT",
            "TEXT",
        ),
        Dialect::Postgres => (
            "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            "BYTEA",
            "DOUBLE PRECISION",
            "JSONB",
            "TIMESTAMPTZ",
        ),
    };
    Some(
        sql.replace("{id}", id)
            .replace("{blob}", blob)
            .replace("{real}", real)
            .replace("{json}", json)
            .replace("{ts}", ts),
    )
}

/// A store's two version numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Versions {
    /// The version of its tables (0: no store).
    pub tables: i64,
    /// The oldest schema version that may write into it (the compatible-with version).
    pub writers_from: i64,
}

/// The store's versions; zeros for a store without the version table (new or empty).
pub fn read_versions(b: &mut dyn Backend) -> Result<Versions> {
    if !b.table_exists("slccache_schema")? {
        return Ok(Versions::default());
    }
    let has_tables_version = has_column(b, "slccache_schema", "tables_version")?;
    let sql = if has_tables_version {
        "SELECT MAX(version), MAX(tables_version) FROM slccache_schema"
    } else {
        "SELECT MAX(version) FROM slccache_schema"
    };
    let rows = b.query(sql, &[])?;
    let row = rows.first();
    let writers_from = row.and_then(|r| r[0].as_i64()).unwrap_or(0);
    let tables = row
        .and_then(|r| r.get(1))
        .and_then(Val::as_i64)
        .unwrap_or(writers_from);
    Ok(Versions {
        tables,
        writers_from,
    })
}

/// The store's version: the highest of its two numbers (0 for a store without the version
/// table).
pub fn read_version(b: &mut dyn Backend) -> Result<i64> {
    let v = read_versions(b)?;
    Ok(v.tables.max(v.writers_from))
}

fn has_column(b: &mut dyn Backend, table: &str, column: &str) -> Result<bool> {
    Ok(b.columns(table)?.iter().any(|(n, _)| n == column))
}

fn write_versions(b: &mut dyn Backend, v: Versions) -> Result<()> {
    b.execute("DELETE FROM slccache_schema", &[])?;
    let (p1, p2) = (b.placeholder(1), b.placeholder(2));
    if has_column(b, "slccache_schema", "tables_version")? {
        b.execute(
            &format!("INSERT INTO slccache_schema (version, tables_version) VALUES ({p1}, {p2})"),
            &[Val::Int(Some(v.writers_from)), Val::Int(Some(v.tables))],
        )?;
    } else {
        b.execute(
            &format!("INSERT INTO slccache_schema (version) VALUES ({p1})"),
            &[Val::Int(Some(v.writers_from))],
        )?;
    }
    Ok(())
}

/// On PostgreSQL, when the schema named for the store holds none and `--db` named no schema:
/// the store of an older slccache where the role's own `search_path` put it, if there is one,
/// made the connection's schema. Returns that schema.
fn find_older_store(b: &mut dyn Backend) -> Result<Option<String>> {
    let Some(older) = b.older_schema() else {
        return Ok(None);
    };
    if b.table_exists("slccache_schema")? || !b.table_exists_in(&older, "slccache_schema")? {
        return Ok(None);
    }
    if !b.table_exists_in(&older, "runs")? {
        // Only the version table: what `db migrate` leaves behind when it moved the store.
        return Ok(None);
    }
    b.set_schema(&older)?;
    Ok(Some(older))
}

/// Whether the backend holds a store at all: its version table, in the store's schema or,
/// on a server, where an older slccache kept it (`public`). A reading command opens only
/// such a store and never creates one.
pub fn store_present(b: &mut dyn Backend) -> Result<bool> {
    if b.table_exists("slccache_schema")? {
        return Ok(true);
    }
    match b.older_schema() {
        Some(older) => b.table_exists_in(&older, "slccache_schema"),
        None => Ok(false),
    }
}

/// A version table without the runs: the store was moved to another schema.
fn check_moved(b: &mut dyn Backend) -> Result<()> {
    if !b.table_exists("slccache_schema")? || b.table_exists("runs")? {
        return Ok(());
    }
    let to = if has_column(b, "slccache_schema", "moved_to")? {
        b.query("SELECT MAX(moved_to) FROM slccache_schema", &[])?
            .first()
            .and_then(|r| r[0].as_str().map(String::from))
    } else {
        None
    };
    Err(StoreError::Moved {
        from: b.schema().unwrap_or_default(),
        to,
    }
    .into())
}

static NOTED: AtomicBool = AtomicBool::new(false);

/// A note on stderr, once per process.
fn note_once(text: String) {
    if !NOTED.swap(true, Ordering::Relaxed) {
        crate::note!("slccache: note: {text}");
    }
}

fn where_tables(b: &dyn Backend) -> String {
    match b.schema() {
        Some(s) => format!(" (tables in schema {s})"),
        None => String::new(),
    }
}

/// Opens the store for use: creates it when there is none, takes the steps that only add,
/// and otherwise leaves it as it is. A store newer than `migrations` that older clients may no
/// longer write is refused before anything is written ([`StoreError::NewerSchema`]); one older
/// than them whose next step breaks older clients is written as it is or refused
/// ([`StoreError::StaleSchema`]), as the step says. Returns the version of the store's tables
/// as found.
pub fn migrate(b: &mut dyn Backend, migrations: &[Migration]) -> Result<i64> {
    let target = migrations.last().map_or(0, |m| m.to);
    let older = find_older_store(b)?;
    let found = read_versions(b)?;
    // First, as every slccache before did: a version above this one's is refused.
    refuse_newer(found, target)?;
    check_moved(b)?;
    if found.tables >= target {
        return Ok(found.tables);
    }
    let d = b.dialect();
    let steps: Vec<&Migration> = migrations.iter().filter(|m| m.to > found.tables).collect();
    if found.tables == 0 {
        create(b, migrations)?;
        return Ok(0);
    }
    if steps.iter().all(|m| m.compat(d) == Compat::Adds) {
        return match apply_in_transaction(b, migrations) {
            Ok(_) => Ok(found.tables),
            Err(e) if is_permission_denied(&e) => {
                note_once(format!(
                    "this role may not add what schema version {target} adds to the results \
                     store (version {}{}); runs are recorded without it until the store's \
                     owner runs `slccache db migrate`",
                    found.tables,
                    where_tables(b)
                ));
                Ok(found.tables)
            }
            Err(e) => Err(e),
        };
    }
    if steps.iter().all(|m| {
        matches!(
            m.compat(d),
            Compat::Adds | Compat::Breaks { in_place: true }
        )
    }) {
        let moved = match (&older, d) {
            (Some(_), Dialect::Postgres) => " and moves it into its own schema",
            _ => "",
        };
        note_once(format!(
            "the results store is at schema version {}{}; it is written as it is until \
             `slccache db migrate` brings it to version {target}{moved}",
            found.tables,
            where_tables(b)
        ));
        return Ok(found.tables);
    }
    Err(StoreError::StaleSchema {
        found: found.tables,
        needed: target,
    }
    .into())
}

/// Checks that a store can be read as it is by a slccache whose schema is the last of
/// `migrations`, taking no step: a newer store is refused as [`migrate`] refuses it, and a
/// file without the tables (an empty SQLite file) holds no runs to read.
pub fn check_readable(b: &mut dyn Backend, migrations: &[Migration]) -> Result<()> {
    let target = migrations.last().map_or(0, |m| m.to);
    let found = read_versions(b)?;
    refuse_newer(found, target)?;
    check_moved(b)?;
    if found.tables == 0 || !b.table_exists("runs")? {
        return Err(StoreError::Open {
            place: "the results store".into(),
            cause: "it holds no slccache tables (nothing was recorded there)".into(),
        }
        .into());
    }
    Ok(())
}

fn refuse_newer(found: Versions, target: i64) -> Result<()> {
    if found.writers_from > target {
        return Err(StoreError::NewerSchema {
            found: found.tables.max(found.writers_from),
            writers_from: found.writers_from,
            supported: target,
        }
        .into());
    }
    Ok(())
}

/// Creates the store (the schema too, on a server), every step in one transaction.
fn create(b: &mut dyn Backend, migrations: &[Migration]) -> Result<()> {
    apply_in_transaction(b, migrations).map_err(|e| {
        if is_permission_denied(&e) {
            e.context(
                "this role may not create the store's tables: the store's owner (a DBA) creates \
                 them with `slccache db migrate`",
            )
        } else {
            e
        }
    })?;
    Ok(())
}

/// Takes every step after the store's version in one transaction under the write lock;
/// returns the versions before.
fn apply_in_transaction(b: &mut dyn Backend, migrations: &[Migration]) -> Result<Versions> {
    let target = migrations.last().map_or(0, |m| m.to);
    b.begin_write()?;
    let result = (|| -> Result<Versions> {
        // Another process may have migrated between the first look and the lock.
        let found = read_versions(b)?;
        refuse_newer(found, target)?;
        apply(b, migrations, found)?;
        Ok(found)
    })();
    match result {
        Ok(found) => {
            b.commit()?;
            Ok(found)
        }
        Err(e) => {
            b.rollback();
            Err(e)
        }
    }
}

/// Runs the steps after `found` (inside the caller's transaction) and writes the new versions.
fn apply(b: &mut dyn Backend, migrations: &[Migration], found: Versions) -> Result<Versions> {
    let target = migrations.last().map_or(0, |m| m.to);
    if found.tables >= target {
        return Ok(found);
    }
    if let Some(s) = b.schema() {
        if !b.schema_exists(&s)? {
            b.execute(&format!("CREATE SCHEMA {}", quote_ident(&s)), &[])?;
        }
    }
    let d = b.dialect();
    let mut writers_from = found.writers_from;
    let steps: Vec<&Migration> = migrations.iter().filter(|m| m.to > found.tables).collect();
    for (i, m) in steps.iter().enumerate() {
        for s in m.statements {
            if let Some(sql) = spell(s, d) {
                b.execute(&sql, &[])?;
            }
        }
        // A fill that the next step runs too is run once, after that step: such a fill fills
        // each of its columns the store has then (versions 5 and 6 read each run's summary
        // once). Where the addresses do not compare equal it merely runs twice.
        let next_fill = steps.get(i + 1).and_then(|n| n.fill);
        if let Some(fill) = m.fill {
            if !next_fill.is_some_and(|next| std::ptr::fn_addr_eq(fill, next)) {
                fill(b).with_context(|| format!("filling what schema version {} adds", m.to))?;
            }
        }
        if let Compat::Breaks { .. } = m.compat(d) {
            writers_from = m.to;
        }
    }
    let v = Versions {
        tables: target,
        writers_from,
    };
    write_versions(b, v)?;
    Ok(v)
}

/// What `slccache db migrate` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrateReport {
    /// The versions before.
    pub before: Versions,
    /// The versions after.
    pub after: Versions,
    /// The schema the store's tables are in (PostgreSQL).
    pub schema: Option<String>,
    /// The schema they were moved from, when they were (a version-1 store in `public`).
    pub moved_from: Option<String>,
    /// Runs in the store.
    pub runs: i64,
}

/// `slccache db migrate`: creates the store, or brings it to the last version of
/// `migrations`, every step included (those that break older clients too), in one
/// transaction. On PostgreSQL, a store of an older slccache in the role's own schema
/// (`public`) is moved into the store's schema first, and its `slccache_schema` stays behind
/// with the new compatible-with version and `moved_to`, so that an older slccache refuses it
/// ("upgrade slccache") instead of starting a new store there.
pub fn migrate_explicit(b: &mut dyn Backend, migrations: &[Migration]) -> Result<MigrateReport> {
    let target = migrations.last().map_or(0, |m| m.to);
    let schema = b.schema();
    let older = match (&schema, b.older_schema()) {
        (Some(s), Some(o)) if !b.table_exists_in(s, "slccache_schema")? => {
            (b.table_exists_in(&o, "slccache_schema")? && b.table_exists_in(&o, "runs")?)
                .then_some(o)
        }
        _ => None,
    };
    if older.is_none() {
        check_moved(b)?;
    }
    b.begin_write()?;
    let result = (|| -> Result<MigrateReport> {
        if let (Some(from), Some(to)) = (&older, &schema) {
            move_store(b, from, to)?;
        }
        let before = read_versions(b)?;
        refuse_newer(before, target)?;
        let after = apply(b, migrations, before)?;
        if let (Some(from), Some(_)) = (&older, &schema) {
            // What an older slccache reads there now: a version above its own.
            b.execute(
                &format!(
                    "UPDATE {}.slccache_schema SET version = {}",
                    quote_ident(from),
                    after.writers_from.max(2)
                ),
                &[],
            )?;
        }
        let runs = b.query("SELECT COUNT(*) FROM runs", &[])?[0][0]
            .as_i64()
            .unwrap_or(0);
        Ok(MigrateReport {
            before,
            after,
            schema: schema.clone(),
            moved_from: older.clone(),
            runs,
        })
    })();
    match result {
        Ok(r) => {
            b.commit()?;
            Ok(r)
        }
        Err(e) => {
            b.rollback();
            Err(e)
        }
    }
}

/// Moves a store's tables from schema `from` into `to` (created if missing) inside the open
/// transaction: ids, indexes and sequences go with them. `from` keeps its `slccache_schema`,
/// with `moved_to`.
fn move_store(b: &mut dyn Backend, from: &str, to: &str) -> Result<()> {
    let (f, t) = (quote_ident(from), quote_ident(to));
    if !b.schema_exists(to)? {
        b.execute(&format!("CREATE SCHEMA {t}"), &[])?;
    }
    for table in ["runs", "run_files", "run_file_parts", "timeline"] {
        if b.table_exists_in(from, table)? {
            b.execute(&format!("ALTER TABLE {f}.{table} SET SCHEMA {t}"), &[])?;
        }
    }
    b.execute(
        &format!("CREATE TABLE {t}.slccache_schema AS SELECT * FROM {f}.slccache_schema"),
        &[],
    )?;
    b.execute(
        &format!("ALTER TABLE {f}.slccache_schema ADD COLUMN IF NOT EXISTS moved_to TEXT"),
        &[],
    )?;
    let p = b.placeholder(1);
    b.execute(
        &format!("UPDATE {f}.slccache_schema SET moved_to = {p}"),
        &[Val::Text(Some(to.to_string()))],
    )?;
    Ok(())
}

/// A placeholder for a value bound to `column` of `table` (see [`typed_placeholder`]).
pub fn placeholder_for(b: &mut dyn Backend, table: &str, column: &str, i: usize) -> Result<String> {
    let ty = b
        .columns(table)?
        .into_iter()
        .find(|(n, _)| n == column)
        .map(|(_, t)| t)
        .unwrap_or_default();
    Ok(typed_placeholder(b.dialect(), i, &ty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// How often [`counted`] ran.
    static FILLS: AtomicUsize = AtomicUsize::new(0);

    fn counted(_: &mut dyn Backend) -> Result<()> {
        FILLS.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// A store that takes two steps sharing a fill at once runs it once, after the second
    /// (versions 5 and 6 share theirs, so that a store of version 4 reads each run's summary
    /// once); a store that takes them one at a time runs it at each.
    #[test]
    fn a_fill_two_steps_share_runs_once_when_both_are_taken() {
        let fill = |to: i64| {
            MIGRATIONS
                .iter()
                .find(|m| m.to == to)
                .unwrap()
                .fill
                .unwrap()
        };
        assert!(std::ptr::fn_addr_eq(fill(5), fill(6)));
        let step = |to: i64| Migration {
            to,
            sqlite: Compat::Adds,
            postgres: Compat::Adds,
            statements: &[],
            fill: Some(counted),
        };
        let all: Vec<Migration> = MIGRATIONS
            .iter()
            .copied()
            .chain([step(SCHEMA_VERSION + 1), step(SCHEMA_VERSION + 2)])
            .collect();
        let n = MIGRATIONS.len();
        let dir = tempfile::tempdir().unwrap();
        let fills = |upto: &[usize]| {
            let mut b =
                super::super::backend::Sqlite::open(&dir.path().join(format!("{upto:?}.db")))
                    .unwrap();
            migrate(&mut b, MIGRATIONS).unwrap();
            FILLS.store(0, Ordering::SeqCst);
            for &u in upto {
                migrate(&mut b, &all[..u]).unwrap();
            }
            assert_eq!(read_versions(&mut b).unwrap().tables, SCHEMA_VERSION + 2);
            FILLS.load(Ordering::SeqCst)
        };
        assert_eq!(fills(&[n + 2]), 1);
        assert_eq!(fills(&[n + 1, n + 2]), 2);
    }
}
