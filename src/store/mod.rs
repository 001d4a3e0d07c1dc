//! The results library: every run's folder recorded in one store (SQLite by default, or a
//! PostgreSQL server), listed, shown, exported again, imported, removed.
//!
//! What is stored for a run (docs/DESIGN.md, "The results library"):
//! - one row in `runs`: the kind of run, identity (model, serial, firmware, capacity), the
//!   host's name, the cache size with its interval, the in-cache and after-cache rates, the
//!   drive's wear (data units written, percentage used) and `summary.json` verbatim, which holds
//!   the configuration, host, drive state, stop, totals and the whole analysis;
//! - in `run_files`, deflate-compressed, every file of the folder that cannot be drawn again
//!   from the data: `timeline.csv` always; for a probe, simulate or analyze run recorded with
//!   its render options, or imported from a folder whose render options can be read from it,
//!   nothing else (charts, card, report.md and report.html are drawn again on export,
//!   byte-identical); for other kinds, and for folders that do not draw again the same, every
//!   file.
//!
//! A run's outputs never depend on the store: recording reads the finished folder.

pub mod backend;
pub mod recorder;
pub mod schema;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::Digest;

pub use backend::{Backend, Dialect, Location, Val};

use crate::report::charts::Theme;
use crate::report::ReportOptions;
use crate::units::UnitSystem;

/// Why a store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store was changed by a newer slccache in a way this one cannot write.
    #[error(
        "the store has schema version {found} and takes runs from slccache of schema version \
         {writers_from} on, newer than this slccache's {supported}: upgrade slccache (the store \
         was left unchanged)"
    )]
    NewerSchema {
        /// Version in the store.
        found: i64,
        /// The oldest schema version that may write into it.
        writers_from: i64,
        /// Highest version this build knows.
        supported: i64,
    },
    /// The store is older than this slccache, and the step up is one that older clients
    /// cannot live with: only `slccache db migrate` takes it.
    #[error(
        "the store has schema version {found}; this slccache writes version {needed} and does \
         not take that step on its own, as slccache of older versions could no longer record \
         there: run `slccache db migrate` (the same --db, as the store's owner) once every \
         host that records there runs this slccache (the store was left unchanged)"
    )]
    StaleSchema {
        /// Version in the store.
        found: i64,
        /// The version this build writes.
        needed: i64,
    },
    /// The schema named holds only the version table that `slccache db migrate` left there
    /// when it moved the store.
    #[error(
        "the store's tables were moved out of schema {from}{} by `slccache db migrate`: leave \
         schema= out of --db{}",
        to.as_ref().map(|t| format!(" into {t}")).unwrap_or_default(),
        to.as_ref().map(|t| format!(" or give schema={t}")).unwrap_or_default()
    )]
    Moved {
        /// The schema named.
        from: String,
        /// Where the tables went.
        to: Option<String>,
    },
    /// The store could not be opened.
    #[error("cannot use the results store {place}: {cause}")]
    Open {
        /// The file or URL (password redacted).
        place: String,
        /// What went wrong.
        cause: String,
    },
    /// No run has this id.
    #[error("no run {0} in the store")]
    NoSuchRun(i64),
}

/// Whether `cause` is a store error that is a mistake in what was asked (exit code 2, see
/// [`crate::error::exit_code_with`]): a run id the store does not hold, as a missing file.
pub fn is_usage(cause: &(dyn std::error::Error + 'static)) -> bool {
    matches!(cause.downcast_ref(), Some(StoreError::NoSuchRun(_)))
}

/// The files of an SQLite store that no run may write, each with what it is for a message: the
/// store itself and the companions SQLite keeps beside it (`-wal`, `-shm`, `-journal`).
/// Nothing for a PostgreSQL server.
pub fn protected_files(loc: &Location) -> Vec<(PathBuf, String)> {
    let Location::Sqlite(db) = loc else {
        return vec![];
    };
    let store = format!("slccache's results store {}", db.display());
    let mut out = vec![(db.clone(), store.clone())];
    for (suffix, what) in [
        ("-wal", "the write-ahead log"),
        ("-shm", "the shared-memory index"),
        ("-journal", "the rollback journal"),
    ] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        out.push((PathBuf::from(name), format!("{what} of {store}")));
    }
    out
}

/// The render options of a run, as stored with it (so that export draws the same charts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderOptions {
    /// `decimal` or `binary`.
    pub units: UnitSystem,
    /// PNG width and height.
    pub png_size: (u32, u32),
    /// Dark charts.
    pub dark: bool,
    /// The command line report.html shows (read from the run's own report.html when
    /// recorded).
    #[serde(default)]
    pub command: Option<String>,
}

impl From<&ReportOptions> for RenderOptions {
    fn from(o: &ReportOptions) -> RenderOptions {
        RenderOptions {
            units: o.units,
            png_size: o.png_size,
            dark: o.theme == Theme::Dark,
            command: None,
        }
    }
}

impl From<&RenderOptions> for ReportOptions {
    fn from(o: &RenderOptions) -> ReportOptions {
        ReportOptions {
            units: o.units,
            png_size: o.png_size,
            theme: if o.dark { Theme::Dark } else { Theme::Light },
            align_cliff: false,
        }
    }
}

/// How a folder is recorded.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// When it was recorded (RFC 3339), for a run copied from another store; `None`: now.
    pub recorded_at: Option<String>,
    /// The options the charts were drawn with: with them, charts and reports of a probe,
    /// simulate or analyze run are not stored but drawn again on export. Without them, every
    /// file is stored (an import finds them in the folder where it can).
    pub render: Option<RenderOptions>,
    /// The name of the machine that ran it, where its `summary.json` has no `origin` (older
    /// folders); `None`: not known.
    pub host: Option<String>,
    /// The folder the run was written to, when it is recorded from a copy (a spooled run);
    /// `None`: the folder recorded.
    pub source_dir: Option<PathBuf>,
}

/// One run as listed: the row without its summary and files.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunRow {
    /// Run id.
    pub id: i64,
    /// probe, analyze, simulate, sweep, recovery or fill-sweep.
    pub kind: String,
    /// When the run started (RFC 3339), else when it was recorded.
    pub date: String,
    /// When it was recorded (RFC 3339).
    pub recorded_at: String,
    /// Drive model.
    pub model: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// Firmware revision.
    pub firmware: Option<String>,
    /// Capacity, bytes.
    pub capacity_bytes: Option<i64>,
    /// The target as given.
    pub target: Option<String>,
    /// The run's label.
    pub label: Option<String>,
    /// The machine that ran it.
    pub host: Option<String>,
    /// Cache size, bytes.
    pub cache_bytes: Option<i64>,
    /// Low end of the 95 % interval.
    pub cache_low_bytes: Option<i64>,
    /// High end of the 95 % interval.
    pub cache_high_bytes: Option<i64>,
    /// Lower bound when no cliff was seen.
    pub cache_lower_bound_bytes: Option<i64>,
    /// Rate in the cache, bytes/s.
    pub in_cache_bytes_per_sec: Option<f64>,
    /// Rate after the cache, bytes/s.
    pub after_cache_bytes_per_sec: Option<f64>,
    /// Drive's data units written at the end (NVMe units of 512,000 bytes).
    pub data_units_written: Option<i64>,
    /// Drive's percentage used at the end.
    pub percentage_used: Option<i64>,
    /// Stopped by Ctrl-C or SIGTERM.
    pub interrupted: bool,
    /// The folder it was recorded from.
    pub source_dir: Option<String>,
    /// The lab's tags (`origin.tags` of its summary.json; none for older runs).
    pub tags: BTreeMap<String, String>,
}

/// Filters for [`Store::list`]; all given ones must match.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Part of the model or label, any case.
    pub drive: Option<String>,
    /// Serial, exactly.
    pub serial: Option<String>,
    /// Part of the host's name, any case.
    pub host: Option<String>,
    /// Tags the run must have, each with exactly this value.
    pub tags: BTreeMap<String, String>,
    /// Runs on or after this date (`YYYY-MM-DD` or RFC 3339).
    pub since: Option<String>,
    /// Kind of run.
    pub kind: Option<String>,
}

/// A run with everything stored.
#[derive(Debug, Clone)]
pub struct StoredRun {
    /// The listing row.
    pub row: RunRow,
    /// `summary.json`, verbatim.
    pub summary: String,
    /// The render options, when charts are drawn again on export.
    pub render: Option<RenderOptions>,
    /// Stored files (name relative to the folder, uncompressed bytes).
    pub files: BTreeMap<String, Vec<u8>>,
}

/// What recording a folder did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// A new run with this id.
    New(i64),
    /// The same folder was already there under this id; nothing added.
    Existing(i64),
}

impl Recorded {
    /// The run's id.
    pub fn id(self) -> i64 {
        match self {
            Recorded::New(i) | Recorded::Existing(i) => i,
        }
    }
    /// Whether a new run was added.
    pub fn is_new(self) -> bool {
        matches!(self, Recorded::New(_))
    }
}

/// An open store.
pub struct Store {
    b: Box<dyn Backend>,
    /// The columns of `runs` with their types: a run is written with the columns the store
    /// has, in the types it has them (a store of an older or a newer version alike).
    runs_columns: Vec<(String, String)>,
    /// Whether the store keeps timelines as rows (table `timeline`, PostgreSQL).
    timeline_rows: bool,
}

const ROW_COLUMNS: &str = "id, kind, COALESCE(started_at, recorded_at), recorded_at, model, \
    serial, firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes, \
    cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec, \
    after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir";

/// The listing's columns: [`ROW_COLUMNS`] and the tags, read from the stored summary (no
/// column of their own).
fn row_columns(d: Dialect) -> String {
    let tags = match d {
        Dialect::Sqlite => "json_extract(summary, '$.origin.tags')",
        Dialect::Postgres => "(summary::jsonb -> 'origin' -> 'tags')::text",
    };
    format!("{ROW_COLUMNS}, {tags}")
}

/// "No results store in ...": a reading command found none (exit 2).
fn no_store(loc: &Location) -> anyhow::Error {
    anyhow::Error::new(crate::error::UsageError(format!(
        "no results store in {} (nothing was recorded there; check --db or SLCCACHE_DB)",
        loc.display(None)
    )))
}

/// The kinds of run (`--kind`).
pub const KINDS: &[&str] = &[
    "probe",
    "analyze",
    "simulate",
    "sweep",
    "recovery",
    "fill-sweep",
];

/// Files that a probe, simulate or analyze run draws from its timeline and summary; not
/// stored when the render options are.
fn is_drawn(name: &str) -> bool {
    let stem_ok = |s: &str| {
        matches!(
            s,
            "throughput-time"
                | "throughput-data"
                | "throughput-time-zoom"
                | "throughput-data-zoom"
                | "latency"
        )
    };
    match name.rsplit_once('.') {
        Some((stem, "png")) if stem == "card" || stem_ok(stem) => true,
        Some((stem, "svg")) => stem_ok(stem),
        _ => name == "report.md" || name == "report.html",
    }
}

impl Store {
    /// Opens the store at `loc`, creating or migrating its schema.
    pub fn open(loc: &Location) -> Result<Store> {
        Store::open_with(loc.connect()?, schema::MIGRATIONS)
    }

    /// Opens the store to record runs into: as [`Store::open`], and on a server with the lock
    /// and statement time-outs that bound how long a finished run waits on it.
    pub fn open_for_recording(loc: &Location) -> Result<Store> {
        Store::open_with(loc.connect_for_recording()?, schema::MIGRATIONS)
    }

    /// Opens an existing store for a command that reads it (`runs`, `runs show|export`,
    /// `history`, `compare ID`, the source of `runs copy`): a store file that does not exist
    /// is an error, and none is created; on a server, a database without slccache's tables is
    /// refused the same way, and left as it was. An SQLite file is opened read-only and read as
    /// it is, without taking the steps of a newer schema (a store in a read-only folder, or of
    /// version 1, is listed as it stands); a store newer than this slccache is refused.
    pub fn open_existing(loc: &Location) -> Result<Store> {
        let mut b = loc.connect_reading()?;
        if !schema::store_present(b.as_mut())? {
            return Err(no_store(loc));
        }
        if b.dialect() == Dialect::Postgres {
            return Store::open_with(b, schema::MIGRATIONS);
        }
        schema::check_readable(b.as_mut(), schema::MIGRATIONS)?;
        let runs_columns = b.columns("runs")?;
        let timeline_rows = b.table_exists("timeline")?;
        Ok(Store {
            b,
            runs_columns,
            timeline_rows,
        })
    }

    /// Opens an existing store for a command that changes it (`runs rm`): as [`Store::open`],
    /// but a store file or database that holds none is an error, and none is created.
    pub fn open_existing_for_writing(loc: &Location) -> Result<Store> {
        let mut b = loc.connect_existing()?;
        if !schema::store_present(b.as_mut())? {
            return Err(no_store(loc));
        }
        Store::open_with(b, schema::MIGRATIONS)
    }

    /// Opens a store on a connected backend with a given list of migrations (tests use other
    /// lists to check migration and refusal).
    pub fn open_with(mut b: Box<dyn Backend>, migrations: &[schema::Migration]) -> Result<Store> {
        schema::migrate(b.as_mut(), migrations)?;
        let runs_columns = b.columns("runs")?;
        let timeline_rows = b.table_exists("timeline")?;
        Ok(Store {
            b,
            runs_columns,
            timeline_rows,
        })
    }

    /// `slccache db migrate` on a connected backend: creates the store or brings it to the
    /// last version of `migrations`, moving a version-1 store into its schema on a server
    /// (see [`schema::migrate_explicit`]).
    pub fn migrate_explicit(
        mut b: Box<dyn Backend>,
        migrations: &[schema::Migration],
    ) -> Result<schema::MigrateReport> {
        schema::migrate_explicit(b.as_mut(), migrations)
    }

    /// The type of column `name` of `runs` (`None`: the store has no such column).
    fn column_type(&self, name: &str) -> Option<&str> {
        self.runs_columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// The backend, for tests and tools that need raw SQL.
    pub fn backend(&mut self) -> &mut dyn Backend {
        self.b.as_mut()
    }

    /// Records a finished run folder (must hold `summary.json`). The same folder content
    /// recorded twice is stored once.
    pub fn record_folder(&mut self, dir: &Path, opts: &RecordOptions) -> Result<Recorded> {
        let folder = read_folder(dir)?;
        self.record_files(dir, &folder, opts)
    }

    /// Records a run's files (`folder`: names relative to the folder `dir`, as
    /// [`Store::record_folder`] reads them).
    fn record_files(
        &mut self,
        dir: &Path,
        folder: &BTreeMap<String, Vec<u8>>,
        opts: &RecordOptions,
    ) -> Result<Recorded> {
        let summary_text = folder.get("summary.json").ok_or_else(|| {
            anyhow::anyhow!("{}: no summary.json (not a run folder)", dir.display())
        })?;
        let summary_text = String::from_utf8(summary_text.clone())
            .with_context(|| format!("{}/summary.json is not UTF-8", dir.display()))?;
        let summary: serde_json::Value = serde_json::from_str(&summary_text)
            .with_context(|| format!("reading {}/summary.json", dir.display()))?;
        let hash = content_hash(folder);
        let kind = kind_of(&summary);
        // Charts are drawn again on export only where that gives the same bytes: a kind whose
        // charts come from its timeline and summary, with the command line its report.html
        // shows.
        let render = match &opts.render {
            Some(r)
                if matches!(kind.as_str(), "probe" | "simulate" | "analyze")
                    && folder.contains_key("timeline.csv") =>
            {
                match folder.get("report.html") {
                    None => Some(r.clone()),
                    Some(html) => html_command(html).map(|command| RenderOptions {
                        command: Some(command),
                        ..r.clone()
                    }),
                }
            }
            _ => None,
        };
        let files: Vec<(String, Vec<u8>)> = folder
            .iter()
            .filter(|(n, _)| n.as_str() != "summary.json")
            .filter(|(n, _)| render.is_none() || !is_drawn(n))
            .map(|(n, d)| Ok((n.clone(), deflate(d)?)))
            .collect::<Result<_>>()?;
        let f = Fields::of(&summary);
        // The host its summary names (every run since `origin` exists), else the one given.
        let host = crate::origin::of_summary(&summary)
            .map(|o| o.host)
            .filter(|h| !h.trim().is_empty())
            .or_else(|| opts.host.clone());
        let source = match &opts.source_dir {
            Some(s) => s.display().to_string(),
            None => dir
                .canonicalize()
                .unwrap_or_else(|_| dir.to_path_buf())
                .display()
                .to_string(),
        };
        let ph: Vec<String> = (1..=3).map(|i| self.b.placeholder(i)).collect();
        let typed = |t: Option<&str>| t == Some("timestamp with time zone");
        let started_at = if typed(self.column_type("started_at")) {
            f.started_at.as_deref().and_then(rfc3339_utc)
        } else {
            f.started_at.clone()
        };
        let summary_value = match self.column_type("summary") {
            // What jsonb cannot hold (a NUL in a string) stays in summary_text alone.
            Some("jsonb") if summary_text.contains("\\u0000") => None,
            _ => Some(summary_text.clone()),
        };
        let values: Vec<(&str, Val)> = vec![
            ("content_hash", Val::Text(Some(hash.clone()))),
            ("kind", Val::Text(Some(kind))),
            (
                "recorded_at",
                Val::Text(Some(opts.recorded_at.clone().unwrap_or_else(now_rfc3339))),
            ),
            ("started_at", Val::Text(started_at)),
            ("interrupted", Val::Int(Some(i64::from(f.interrupted)))),
            ("model", Val::Text(f.model)),
            ("serial", Val::Text(f.serial)),
            ("firmware", Val::Text(f.firmware)),
            ("capacity_bytes", Val::Int(f.capacity_bytes)),
            ("target", Val::Text(f.target)),
            ("label", Val::Text(f.label)),
            ("host", Val::Text(host)),
            ("cache_bytes", Val::Int(f.cache_bytes)),
            ("cache_low_bytes", Val::Int(f.cache_low_bytes)),
            ("cache_high_bytes", Val::Int(f.cache_high_bytes)),
            (
                "cache_lower_bound_bytes",
                Val::Int(f.cache_lower_bound_bytes),
            ),
            ("in_cache_bytes_per_sec", Val::Real(f.in_rate)),
            ("after_cache_bytes_per_sec", Val::Real(f.after_rate)),
            ("data_units_written", Val::Int(f.data_units_written)),
            ("percentage_used", Val::Int(f.percentage_used)),
            ("source_dir", Val::Text(Some(source))),
            (
                "render",
                Val::Text(render.as_ref().map(serde_json::to_string).transpose()?),
            ),
            ("summary", Val::Text(summary_value)),
            ("summary_text", Val::Text(Some(summary_text.clone()))),
            ("bytes_written", Val::Int(f.bytes_written)),
            ("tags", Val::Text(f.tags)),
        ];
        // The columns this store has (an older one lacks the newest), each in its type.
        let mut names = Vec::new();
        let mut marks = Vec::new();
        let mut params = Vec::new();
        for (name, v) in values {
            if let Some(t) = self.column_type(name) {
                params.push(v);
                names.push(name);
                marks.push(backend::typed_placeholder(
                    self.b.dialect(),
                    params.len(),
                    t,
                ));
            }
        }
        let insert = format!(
            "INSERT INTO runs ({}) VALUES ({}) RETURNING id",
            names.join(", "),
            marks.join(", ")
        );
        let timeline = if self.timeline_rows {
            folder
                .get("timeline.csv")
                .and_then(|csv| timeline_samples(csv).ok())
        } else {
            None
        };
        let file_sql = format!(
            "INSERT INTO run_files (run_id, name, data) VALUES ({}, {}, {})",
            ph[0], ph[1], ph[2]
        );
        self.b.begin_write()?;
        let r = (|| -> Result<Recorded> {
            let existing = self.b.query(
                &format!("SELECT id FROM runs WHERE content_hash = {}", ph[0]),
                &[Val::Text(Some(hash.clone()))],
            )?;
            if let Some(id) = existing.first().and_then(|r| r[0].as_i64()) {
                return Ok(Recorded::Existing(id));
            }
            let rows = self.b.query(&insert, &params)?;
            let id = rows
                .first()
                .and_then(|r| r[0].as_i64())
                .context("the store returned no id for the new run")?;
            for (name, data) in &files {
                self.b.execute(
                    &file_sql,
                    &[
                        Val::Int(Some(id)),
                        Val::Text(Some(name.clone())),
                        Val::Blob(Some(data.clone())),
                    ],
                )?;
            }
            if let Some(samples) = &timeline {
                insert_timeline(self.b.as_mut(), id, samples)?;
            }
            Ok(Recorded::New(id))
        })();
        match r {
            Ok(Recorded::New(id)) => {
                self.b.commit()?;
                Ok(Recorded::New(id))
            }
            Ok(existing) => {
                self.b.rollback();
                Ok(existing)
            }
            Err(e) => {
                self.b.rollback();
                Err(e)
            }
        }
    }

    /// Adds a folder written before the store existed, or copied from another machine, with
    /// its own date and host (`summary.json`; `host` where it names none). A probe, simulate
    /// or analyze folder is stored as a recorded one is (its timeline, the charts and reports
    /// drawn again on export) when the render options read from the folder draw every chart
    /// and report byte for byte as the folder holds them; otherwise every file is stored.
    pub fn import_folder(&mut self, dir: &Path) -> Result<Recorded> {
        self.import_folder_as(dir, None)
    }

    /// [`Store::import_folder`], with the host of a folder whose `summary.json` names none.
    pub fn import_folder_as(&mut self, dir: &Path, host: Option<&str>) -> Result<Recorded> {
        let folder = read_folder(dir)?;
        // A folder of another command (compare's) is no run: refused by its kind, so that
        // the store holds only the kinds it lists (`runs --kind`).
        if let Some(summary) = folder
            .get("summary.json")
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        {
            let kind = kind_of(&summary);
            if !KINDS.contains(&kind.as_str()) {
                let extra = if kind == "compare" {
                    "; import the runs it compares instead"
                } else {
                    ""
                };
                return Err(crate::error::usage(format!(
                    "a {kind} folder is no run: the store holds {} runs{extra}",
                    KINDS.join(", ")
                )));
            }
        }
        // A run already there is found before its charts are drawn again to check them.
        if folder.contains_key("summary.json") {
            let p = self.b.placeholder(1);
            let existing = self.b.query(
                &format!("SELECT id FROM runs WHERE content_hash = {p}"),
                &[Val::Text(Some(content_hash(&folder)))],
            )?;
            if let Some(id) = existing.first().and_then(|r| r[0].as_i64()) {
                return Ok(Recorded::Existing(id));
            }
        }
        let render = derive_render(&folder)?;
        self.record_files(
            dir,
            &folder,
            &RecordOptions {
                render,
                host: host.map(String::from),
                ..RecordOptions::default()
            },
        )
    }

    /// Copies run `id` of this store into `to` with everything stored (its row, its date and
    /// the date it was recorded, its host, summary, render options and files); a run already
    /// there (the same content) is not added again.
    pub fn copy_run(&mut self, id: i64, to: &mut Store) -> Result<Recorded> {
        let run = self.get(id)?;
        let mut folder = run.files.clone();
        folder.insert("summary.json".into(), run.summary.clone().into_bytes());
        let source = run.row.source_dir.clone().unwrap_or_default();
        to.record_files(
            Path::new(&source),
            &folder,
            &RecordOptions {
                recorded_at: Some(run.row.recorded_at.clone()),
                render: run.render.clone(),
                host: run.row.host.clone(),
                source_dir: Some(PathBuf::from(source.clone())),
            },
        )
    }

    /// Runs matching `f`, oldest first.
    pub fn list(&mut self, f: &Filter) -> Result<Vec<RunRow>> {
        let mut conds = Vec::new();
        let mut params = Vec::new();
        for (col, v) in [("serial", &f.serial), ("kind", &f.kind)] {
            if let Some(v) = v {
                params.push(Val::Text(Some(v.clone())));
                conds.push(format!("{col} = {}", self.b.placeholder(params.len())));
            }
        }
        if let Some(s) = &f.since {
            params.push(Val::Text(Some(normalize_since(s)?)));
            conds.push(format!(
                "COALESCE(started_at, recorded_at) >= {}",
                backend::typed_placeholder(
                    self.b.dialect(),
                    params.len(),
                    self.column_type("started_at").unwrap_or_default()
                )
            ));
        }
        let mut sql = format!("SELECT {} FROM runs", row_columns(self.b.dialect()));
        if !conds.is_empty() {
            sql += " WHERE ";
            sql += &conds.join(" AND ");
        }
        sql += " ORDER BY COALESCE(started_at, recorded_at), id";
        let rows = self.b.query(&sql, &params)?;
        // Drive, host and tags are matched here, not in SQL: SQLite's LIKE folds ASCII letters
        // only, and the tags are in the summary; so every letter folds the same on both
        // backends.
        let has = |v: &Option<String>, part: &str| {
            v.as_deref()
                .is_some_and(|v| v.to_lowercase().contains(&part.to_lowercase()))
        };
        Ok(rows
            .iter()
            .map(|r| row_of(r))
            .filter(|r| {
                f.drive
                    .as_deref()
                    .is_none_or(|d| has(&r.model, d) || has(&r.label, d))
            })
            .filter(|r| f.host.as_deref().is_none_or(|h| has(&r.host, h)))
            .filter(|r| f.tags.iter().all(|(k, v)| r.tags.get(k) == Some(v)))
            .collect())
    }

    /// Everything stored for run `id`.
    pub fn get(&mut self, id: i64) -> Result<StoredRun> {
        let p = self.b.placeholder(1);
        // The summary verbatim: `summary_text` where `summary` is jsonb (which keeps neither
        // the spacing nor the order of keys).
        let summary = match self.column_type("summary_text") {
            Some(_) => "summary_text",
            None => "summary",
        };
        let rows = self.b.query(
            &format!(
                "SELECT {}, {summary}, render FROM runs WHERE id = {p}",
                row_columns(self.b.dialect())
            ),
            &[Val::Int(Some(id))],
        )?;
        let r = rows.first().ok_or(StoreError::NoSuchRun(id))?;
        let n = r.len();
        let summary = r[n - 2].as_str().unwrap_or_default().to_string();
        let render = r[n - 1]
            .as_str()
            .map(serde_json::from_str)
            .transpose()
            .context("reading the stored render options")?;
        let mut files = BTreeMap::new();
        for f in self.b.query(
            &format!("SELECT name, data FROM run_files WHERE run_id = {p} ORDER BY name"),
            &[Val::Int(Some(id))],
        )? {
            let name = f[0].as_str().unwrap_or_default().to_string();
            let data = inflate(f[1].as_bytes().unwrap_or_default())
                .with_context(|| format!("run {id}: reading the stored {name}"))?;
            files.insert(name, data);
        }
        Ok(StoredRun {
            row: row_of(r),
            summary,
            render,
            files,
        })
    }

    /// Removes run `id` and its files.
    pub fn remove(&mut self, id: i64) -> Result<()> {
        let p = self.b.placeholder(1);
        self.b.begin_write()?;
        let r = (|| -> Result<u64> {
            self.b.execute(
                &format!("DELETE FROM run_files WHERE run_id = {p}"),
                &[Val::Int(Some(id))],
            )?;
            self.b.execute(
                &format!("DELETE FROM runs WHERE id = {p}"),
                &[Val::Int(Some(id))],
            )
        })();
        match r {
            Ok(0) => {
                self.b.rollback();
                Err(StoreError::NoSuchRun(id).into())
            }
            Ok(_) => self.b.commit(),
            Err(e) => {
                self.b.rollback();
                Err(e)
            }
        }
    }

    /// Writes run `id`'s data into `dir`: `summary.json` and the stored files, without drawing
    /// charts (what `compare ID` reads).
    pub fn export_data(&mut self, id: i64, dir: &Path) -> Result<Vec<PathBuf>> {
        let mut run = self.get(id)?;
        run.render = None;
        export_run(&run, dir)
    }

    /// Writes run `id`'s folder again into `dir` (created if missing): `summary.json` and the
    /// stored files as they were, then the charts and reports drawn again where they were not
    /// stored. Returns the files written.
    pub fn export(&mut self, id: i64, dir: &Path) -> Result<Vec<PathBuf>> {
        let run = self.get(id)?;
        export_run(&run, dir)
    }
}

/// Writes a stored run into `dir` (see [`Store::export`]).
pub fn export_run(run: &StoredRun, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::new();
    let summary_path = dir.join("summary.json");
    std::fs::write(&summary_path, &run.summary)
        .with_context(|| format!("writing {}", summary_path.display()))?;
    written.push(summary_path);
    for (name, data) in &run.files {
        let rel = Path::new(name);
        if rel.is_absolute() || rel.components().any(|c| c.as_os_str() == "..") {
            anyhow::bail!(
                "run {}: stored file name '{name}' leaves the folder",
                run.row.id
            );
        }
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&p, data).with_context(|| format!("writing {}", p.display()))?;
        written.push(p);
    }
    if let Some(render) = &run.render {
        written.extend(redraw(run, dir, render)?);
    }
    Ok(written)
}

/// Draws the charts and reports of a probe, simulate or analyze run from its stored summary
/// and timeline, as the run itself drew them.
fn redraw(run: &StoredRun, dir: &Path, render: &RenderOptions) -> Result<Vec<PathBuf>> {
    let summary: crate::report::Summary = serde_json::from_str(&run.summary)
        .with_context(|| format!("run {}: reading its summary", run.row.id))?;
    let csv = run
        .files
        .get("timeline.csv")
        .with_context(|| format!("run {}: no stored timeline.csv", run.row.id))?;
    let text = std::str::from_utf8(csv).context("timeline.csv is not UTF-8")?;
    let samples = crate::timeline::read_slccache_csv(text, "timeline.csv")?;
    let timeline = crate::timeline::Timeline {
        samples,
        meta: summary.run.clone(),
    };
    let opts = ReportOptions::from(render);
    if run.row.kind == "probe" {
        // As `probe` draws: nothing when nothing was written or read; the host and drive
        // rows in report.md.
        if timeline.bytes_total() == 0 && timeline.read_bytes_total() == 0 {
            return Ok(vec![]);
        }
        let rows = crate::report::pages::markdown::drive_rows(
            summary.host.as_ref(),
            summary.drive_state.as_ref(),
            timeline.bytes_total(),
            opts.units,
        );
        crate::report::write_charts_and_report_as(
            dir,
            &timeline,
            &summary.analysis,
            &opts,
            &rows,
            render.command.clone(),
        )
    } else {
        crate::report::write_charts_and_report_as(
            dir,
            &timeline,
            &summary.analysis,
            &opts,
            &[],
            render.command.clone(),
        )
    }
}

/// The width and height in a PNG's header (`IHDR`), if `png` is a PNG.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

/// The render options of a folder that was not recorded when it was written (an import):
/// the command line from its report.html, the PNG size from a chart's header, the theme from
/// report.html's body, the units from report.md. They are kept only when drawing the folder
/// again with them gives every chart and report byte for byte as the folder holds them (tried
/// with both units); `None` otherwise, and the folder is stored whole.
fn derive_render(folder: &BTreeMap<String, Vec<u8>>) -> Result<Option<RenderOptions>> {
    let Some(summary) = folder.get("summary.json") else {
        return Ok(None);
    };
    let Ok(summary) = std::str::from_utf8(summary) else {
        return Ok(None);
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(summary) else {
        return Ok(None);
    };
    let kind = kind_of(&value);
    if !matches!(kind.as_str(), "probe" | "simulate" | "analyze")
        || !folder.contains_key("timeline.csv")
        || !folder.keys().any(|n| is_drawn(n))
    {
        return Ok(None);
    }
    let Some(command) = folder.get("report.html").and_then(|h| html_command(h)) else {
        return Ok(None);
    };
    let html = String::from_utf8_lossy(&folder["report.html"]);
    let dark = html.contains("<body class=\"dark\">");
    let png = folder
        .iter()
        .filter(|(n, _)| n.ends_with(".png"))
        .find_map(|(n, d)| (n != "card.png").then(|| png_size(d)).flatten())
        .unwrap_or((1600, 900));
    let md = folder
        .get("report.md")
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .unwrap_or_default();
    let binary_first = md.contains("iB/s") || md.contains("iB ");
    let units = if binary_first {
        [UnitSystem::Binary, UnitSystem::Decimal]
    } else {
        [UnitSystem::Decimal, UnitSystem::Binary]
    };
    let stored: BTreeMap<String, Vec<u8>> = folder
        .iter()
        .filter(|(n, _)| n.as_str() != "summary.json" && !is_drawn(n))
        .map(|(n, d)| (n.clone(), d.clone()))
        .collect();
    for units in units {
        let render = RenderOptions {
            units,
            png_size: png,
            dark,
            command: Some(command.clone()),
        };
        let run = StoredRun {
            row: RunRow {
                kind: kind.clone(),
                ..RunRow::default()
            },
            summary: summary.to_string(),
            render: Some(render.clone()),
            files: stored.clone(),
        };
        let scratch = Scratch::new()?;
        // A folder that cannot be drawn again (another version's summary) is stored whole.
        if export_run(&run, &scratch.0).is_err() {
            return Ok(None);
        }
        if read_folder(&scratch.0)? == *folder {
            return Ok(Some(render));
        }
    }
    Ok(None)
}

/// A scratch folder under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let d = std::env::temp_dir().join(format!(
            "slccache-import-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The command line a report.html shows (`<pre class="cmd">`), unescaped.
fn html_command(html: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(html).ok()?;
    let start = text.find("<pre class=\"cmd\">")? + "<pre class=\"cmd\">".len();
    let end = start + text[start..].find("</pre>")?;
    let cmd = text[start..end]
        .replace("&quot;", "\"")
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&");
    // A report.html of an older slccache may hold a store's password: never stored.
    Some(crate::shell::mask_db_in_command(&cmd))
}

/// The kind of run a `summary.json` describes.
pub fn kind_of(summary: &serde_json::Value) -> String {
    let cmd = summary["config"]["command"]
        .as_str()
        .or_else(|| summary["command"].as_str());
    match cmd {
        Some(c) => c.replace('_', "-"),
        None => "probe".into(),
    }
}

/// The listing's fields read from a `summary.json` (any kind; missing ones are `None`).
#[derive(Debug, Default)]
struct Fields {
    started_at: Option<String>,
    interrupted: bool,
    model: Option<String>,
    serial: Option<String>,
    firmware: Option<String>,
    capacity_bytes: Option<i64>,
    target: Option<String>,
    label: Option<String>,
    cache_bytes: Option<i64>,
    cache_low_bytes: Option<i64>,
    cache_high_bytes: Option<i64>,
    cache_lower_bound_bytes: Option<i64>,
    in_rate: Option<f64>,
    after_rate: Option<f64>,
    data_units_written: Option<i64>,
    percentage_used: Option<i64>,
    bytes_written: Option<i64>,
    /// JSON text: the run's tags (an array or an object), where the summary has them.
    tags: Option<String>,
}

fn int(v: &serde_json::Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_u64().and_then(|x| i64::try_from(x).ok()))
        .or_else(|| {
            v.as_f64()
                .filter(|x| x.abs() < 9e18)
                .map(|x| x.round() as i64)
        })
}

fn text(v: &serde_json::Value) -> Option<String> {
    v.as_str()
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
}

impl Fields {
    fn of(s: &serde_json::Value) -> Fields {
        let dev = &s["run"]["device"];
        let a = &s["analysis"];
        let c = &a["cache_estimate"];
        let cliff = &a["cliffs"][0];
        let smart = &s["drive_state"]["smart_end"];
        Fields {
            started_at: text(&s["run"]["started_at"]),
            interrupted: s["interrupted"].as_bool().unwrap_or(false),
            model: text(&dev["model"]),
            serial: text(&dev["serial"]),
            firmware: text(&dev["firmware"]),
            capacity_bytes: int(&dev["capacity_bytes"]),
            target: text(&dev["path"]).or_else(|| text(&s["config"]["target"])),
            label: text(&s["run"]["label"]),
            cache_bytes: int(&c["bytes"]),
            cache_low_bytes: int(&c["low_bytes"]),
            cache_high_bytes: int(&c["high_bytes"]),
            cache_lower_bound_bytes: int(&a["cache_lower_bound_bytes"]),
            in_rate: cliff["before_bytes_per_sec"].as_f64(),
            after_rate: cliff["after_bytes_per_sec"].as_f64(),
            data_units_written: int(&smart["data_units_written"]),
            percentage_used: int(&smart["percentage_used"]),
            bytes_written: int(&s["totals"]["bytes"]),
            tags: [&s["origin"]["tags"], &s["run"]["tags"], &s["tags"]]
                .into_iter()
                .find(|t| t.is_array() || t.is_object())
                .map(|t| t.to_string()),
        }
    }
}

/// An RFC 3339 time as a `timestamptz` takes it (UTC, to the nanosecond: the server rounds it
/// to its microseconds); `None` for text that is no such time (an imported folder's).
fn rfc3339_utc(s: &str) -> Option<String> {
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        })
}

/// A stored `timeline.csv` read as samples (slccache's own CSV).
fn timeline_samples(csv: &[u8]) -> Result<Vec<crate::timeline::Sample>> {
    let text = std::str::from_utf8(csv).context("timeline.csv is not UTF-8")?;
    Ok(crate::timeline::read_slccache_csv(text, "timeline.csv")?)
}

/// Rows of `timeline` per statement (7 values each: well under PostgreSQL's 65,535
/// parameters).
const TIMELINE_ROWS_PER_INSERT: usize = 1000;

/// Writes a run's timeline as rows of `timeline` (`n` counts the samples from 0): with one
/// `COPY` where the backend has it (a million samples in a second or two, where statements of
/// rows take some ten), else in statements of [`TIMELINE_ROWS_PER_INSERT`] rows.
fn insert_timeline(
    b: &mut dyn Backend,
    run_id: i64,
    samples: &[crate::timeline::Sample],
) -> Result<()> {
    if b.copy_in(
        "COPY timeline (run_id, n, t_s, bytes, bytes_per_sec, lat_p99_us, temp_c) FROM STDIN",
        &timeline_copy_text(run_id, samples),
    )?
    .is_some()
    {
        return Ok(());
    }
    for (chunk_no, chunk) in samples.chunks(TIMELINE_ROWS_PER_INSERT).enumerate() {
        let mut marks = Vec::with_capacity(chunk.len());
        let mut params = Vec::with_capacity(chunk.len() * 7);
        for (i, s) in chunk.iter().enumerate() {
            let n = (chunk_no * TIMELINE_ROWS_PER_INSERT + i) as i64;
            let base = params.len();
            marks.push(format!(
                "({})",
                (1..=7)
                    .map(|k| b.placeholder(base + k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            params.extend([
                Val::Int(Some(run_id)),
                Val::Int(Some(n)),
                Val::Real(Some(s.t_s)),
                Val::Int(Some(i64::try_from(s.bytes).unwrap_or(i64::MAX))),
                Val::Real(Some(s.bytes_per_sec)),
                Val::Real(s.lat_p99_us),
                Val::Real(s.temp_c),
            ]);
        }
        b.execute(
            &format!(
                "INSERT INTO timeline (run_id, n, t_s, bytes, bytes_per_sec, lat_p99_us, \
                 temp_c) VALUES {}",
                marks.join(", ")
            ),
            &params,
        )?;
    }
    Ok(())
}

/// A run's timeline rows in `COPY`'s text format: tab-separated columns, `\N` for no
/// value, each float in Rust's shortest form that reads back as the same `f64` (NaN and the
/// infinities in PostgreSQL's words), as the statements of rows would store them.
fn timeline_copy_text(run_id: i64, samples: &[crate::timeline::Sample]) -> Vec<u8> {
    use std::fmt::Write as _;
    let real = |out: &mut String, v: Option<f64>| match v {
        Some(x) if x.is_nan() => out.push_str("NaN"),
        Some(x) if x == f64::INFINITY => out.push_str("Infinity"),
        Some(x) if x == f64::NEG_INFINITY => out.push_str("-Infinity"),
        Some(x) => {
            let _ = write!(out, "{x:?}");
        }
        None => out.push_str("\\N"),
    };
    let mut out = String::with_capacity(samples.len() * 64);
    for (n, s) in samples.iter().enumerate() {
        let _ = write!(out, "{run_id}\t{n}\t",);
        real(&mut out, Some(s.t_s));
        let _ = write!(out, "\t{}\t", i64::try_from(s.bytes).unwrap_or(i64::MAX));
        real(&mut out, Some(s.bytes_per_sec));
        out.push('\t');
        real(&mut out, s.lat_p99_us);
        out.push('\t');
        real(&mut out, s.temp_c);
        out.push('\n');
    }
    out.into_bytes()
}

/// Schema version 2's fill: bytes written and tags of every run read from its summary, and,
/// where the store keeps timelines as rows, each run's stored `timeline.csv` written as rows.
pub(crate) fn fill_headline_and_timeline(b: &mut dyn Backend) -> Result<()> {
    let cols = b.columns("runs")?;
    let col = |n: &str| cols.iter().find(|(c, _)| c == n).map(|(_, t)| t.clone());
    let summary = if col("summary_text").is_some() {
        "summary_text"
    } else {
        "summary"
    };
    let d = b.dialect();
    let p = |i| b.placeholder(i);
    let set = format!(
        "UPDATE runs SET bytes_written = {}, tags = {} WHERE id = {}",
        p(1),
        backend::typed_placeholder(d, 2, &col("tags").unwrap_or_default()),
        p(3)
    );
    let one = format!("SELECT {summary} FROM runs WHERE id = {}", p(1));
    let csv = format!(
        "SELECT data FROM run_files WHERE run_id = {} AND name = 'timeline.csv'",
        p(1)
    );
    let rows = b.table_exists("timeline")?;
    let ids: Vec<i64> = b
        .query("SELECT id FROM runs ORDER BY id", &[])?
        .iter()
        .filter_map(|r| r[0].as_i64())
        .collect();
    for id in ids {
        let text = b.query(&one, &[Val::Int(Some(id))])?;
        let text = text.first().and_then(|r| r[0].as_str()).unwrap_or_default();
        let f = serde_json::from_str(text)
            .map(|v: serde_json::Value| Fields::of(&v))
            .unwrap_or_default();
        b.execute(
            &set,
            &[
                Val::Int(f.bytes_written),
                Val::Text(f.tags),
                Val::Int(Some(id)),
            ],
        )?;
        if rows {
            let data = b.query(&csv, &[Val::Int(Some(id))])?;
            if let Some(bytes) = data.first().and_then(|r| r[0].as_bytes()) {
                let samples = inflate(bytes)
                    .ok()
                    .and_then(|raw| timeline_samples(&raw).ok());
                if let Some(s) = samples {
                    insert_timeline(b, id, &s)?;
                }
            }
        }
    }
    Ok(())
}

fn row_of(r: &[Val]) -> RunRow {
    let s = |i: usize| r[i].as_str().map(String::from);
    RunRow {
        id: r[0].as_i64().unwrap_or_default(),
        kind: s(1).unwrap_or_default(),
        date: s(2).unwrap_or_default(),
        recorded_at: s(3).unwrap_or_default(),
        model: s(4),
        serial: s(5),
        firmware: s(6),
        capacity_bytes: r[7].as_i64(),
        target: s(8),
        label: s(9),
        host: s(10),
        cache_bytes: r[11].as_i64(),
        cache_low_bytes: r[12].as_i64(),
        cache_high_bytes: r[13].as_i64(),
        cache_lower_bound_bytes: r[14].as_i64(),
        in_cache_bytes_per_sec: r[15].as_f64(),
        after_cache_bytes_per_sec: r[16].as_f64(),
        data_units_written: r[17].as_i64(),
        percentage_used: r[18].as_i64(),
        interrupted: r[19].as_i64() == Some(1),
        source_dir: s(20),
        tags: s(21)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
    }
}

/// `--since`: a date (`2026-12-01`, from its midnight in the local time zone), a local date
/// and time (`2026-12-01T10:00`, `2026-12-01 10:00:00`), or an RFC 3339 time
/// (`2026-12-01T10:00:00Z`, `...+02:00`), as the UTC RFC 3339 text runs are compared with.
pub fn normalize_since(s: &str) -> Result<String> {
    use chrono::TimeZone;
    let s = s.trim();
    let utc =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(utc(t.with_timezone(&chrono::Utc)));
    }
    let local = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|d| d.and_time(chrono::NaiveTime::MIN))
        .ok()
        .or_else(|| {
            [
                "%Y-%m-%dT%H:%M:%S%.f",
                "%Y-%m-%d %H:%M:%S%.f",
                "%Y-%m-%dT%H:%M",
                "%Y-%m-%d %H:%M",
            ]
            .iter()
            .find_map(|f| chrono::NaiveDateTime::parse_from_str(s, f).ok())
        });
    if let Some(t) = local {
        // A time the clock skipped (a spring-forward hour) is taken as the hour after it.
        let at = chrono::Local
            .from_local_datetime(&t)
            .earliest()
            .or_else(|| {
                chrono::Local
                    .from_local_datetime(&(t + chrono::Duration::hours(1)))
                    .earliest()
            });
        if let Some(at) = at {
            return Ok(utc(at.with_timezone(&chrono::Utc)));
        }
    }
    Err(crate::error::usage(format!(
        "--since '{s}': give a date (2026-12-01), a local date and time (2026-12-01T10:00 or \
         '2026-12-01 10:00:00') or an RFC 3339 time (2026-12-01T10:00:00Z, \
         2026-12-01T10:00:00+02:00)"
    )))
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Every regular file under `dir` (names relative, `/`-separated), skipping hidden ones
/// (temporary files, locks).
fn read_folder(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let entries = std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("reading {}", d.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let ft = e.file_type()?;
            let rel = format!("{prefix}{name}");
            if ft.is_dir() {
                stack.push((e.path(), format!("{rel}/")));
            } else if ft.is_file() {
                let data = std::fs::read(e.path()).with_context(|| format!("reading {}", rel))?;
                out.insert(rel, data);
            }
        }
    }
    Ok(out)
}

/// The hash that identifies a run's content: SHA-256 over `summary.json` and every CSV file of
/// the folder (name, length, bytes), so the same run recorded at its end and imported later,
/// or imported twice, is one run.
fn content_hash(folder: &BTreeMap<String, Vec<u8>>) -> String {
    let mut h = sha2::Sha256::new();
    for (name, data) in folder
        .iter()
        .filter(|(n, _)| n.as_str() == "summary.json" || n.ends_with(".csv"))
    {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((data.len() as u64).to_le_bytes());
        h.update(data);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn deflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data)?;
    Ok(e.finish()?)
}

fn inflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
}

/// This machine's name, for the `host` column.
pub fn hostname() -> Option<String> {
    crate::origin::machine_name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_rows_for_copy_keep_every_value_and_mark_the_missing() {
        let s = |t_s: f64, bps: f64, lat: Option<f64>, temp: Option<f64>| crate::timeline::Sample {
            t_s,
            bytes: 4096,
            bytes_per_sec: bps,
            lat_p99_us: lat,
            temp_c: temp,
            ..Default::default()
        };
        let text = timeline_copy_text(
            7,
            &[
                s(0.1, 1.0 / 3.0, Some(12.5), None),
                s(0.2, f64::NAN, None, Some(f64::INFINITY)),
            ],
        );
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "7\t0\t0.1\t4096\t0.3333333333333333\t12.5\t\\N\n\
             7\t1\t0.2\t4096\tNaN\t\\N\tInfinity\n"
        );
    }

    #[test]
    fn drawn_files_are_the_charts_and_reports() {
        for n in [
            "throughput-time.png",
            "throughput-data-zoom.svg",
            "latency.png",
            "card.png",
            "report.md",
            "report.html",
        ] {
            assert!(is_drawn(n), "{n}");
        }
        for n in [
            "timeline.csv",
            "card.svg",
            "sweep.png",
            "bursts/b1.csv",
            "notes.md",
        ] {
            assert!(!is_drawn(n), "{n}");
        }
    }

    #[test]
    fn command_line_read_back_from_report_html() {
        let cmd = "slccache probe 'a b' --label \"x<y>&z\"";
        let html = format!(
            "<h3>Command line</h3><pre class=\"cmd\">{}</pre>",
            crate::report::pages::html::esc(cmd)
        );
        assert_eq!(html_command(html.as_bytes()).as_deref(), Some(cmd));
        assert_eq!(html_command(b"<pre>no</pre>"), None);
    }

    #[test]
    fn kinds_from_summaries() {
        let k = |v: serde_json::Value| kind_of(&v);
        assert_eq!(
            k(serde_json::json!({"config": {"command": "simulate"}})),
            "simulate"
        );
        assert_eq!(
            k(serde_json::json!({"command": "fill_sweep"})),
            "fill-sweep"
        );
        assert_eq!(k(serde_json::json!({"config": {"target": "x"}})), "probe");
    }

    #[test]
    fn since_accepts_dates_and_times() {
        // A date is its local midnight, as UTC.
        use chrono::TimeZone;
        let midnight = chrono::Local
            .with_ymd_and_hms(2026, 12, 1, 0, 0, 0)
            .earliest()
            .unwrap()
            .with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
        assert_eq!(normalize_since("2026-12-01").unwrap(), midnight);
        assert_eq!(normalize_since("2026-12-01T00:00").unwrap(), midnight);
        assert_eq!(normalize_since("2026-12-01 00:00:00").unwrap(), midnight);
        assert_eq!(
            normalize_since("2026-12-01T10:00:00+01:00").unwrap(),
            "2026-12-01T09:00:00Z"
        );
        assert!(normalize_since("yesterday").is_err());
    }

    #[test]
    fn locations() {
        assert_eq!(
            Location::parse("postgres://u@h/db").unwrap(),
            Location::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            Location::parse("/tmp/x.db").unwrap(),
            Location::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            Location::default_path(Some("/data"), Some("/home/u")),
            Some(PathBuf::from("/data/slccache/results.db"))
        );
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        assert_eq!(
            Location::default_path(Some("rel"), Some("/home/u")),
            Some(PathBuf::from("/home/u/.local/share/slccache/results.db"))
        );
        assert_eq!(
            Location::Sqlite("/home/u/.local/share/slccache/results.db".into())
                .display(Some("/home/u")),
            "~/.local/share/slccache/results.db"
        );
        assert_eq!(
            backend::redact("postgres://u:secret@h:5/db"),
            "postgres://u@h:5/db"
        );
    }

    #[test]
    fn deflate_round_trips() {
        let d: Vec<u8> = (0..10_000u32).flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(inflate(&deflate(&d).unwrap()).unwrap(), d);
    }
}
