//! The results library: every run's folder recorded in one store (SQLite by default, or a
//! PostgreSQL server), listed, shown, exported again, imported, removed.
//!
//! What is stored for a run (docs/DESIGN.md, "The results library"):
//! - one row in `runs`: the kind of run, identity (model, serial, firmware, capacity), the
//!   host's name, the cache size with its interval, the in-cache and after-cache rates, the
//!   drive's wear (data units written, percentage used) and `summary.json` verbatim, which holds
//!   the configuration, host, drive state, stop, totals and the whole analysis;
//! - in `run_files` (and, for a file longer than [`PIECE_BYTES`], in pieces of that length in
//!   `run_file_parts`), deflate-compressed, every file of the folder that cannot be drawn again
//!   from the data: `timeline.csv` always; for a probe, simulate or analyze run recorded with
//!   its render options, or imported from a folder whose render options can be read from it,
//!   nothing else (charts, card, report.md and report.html are drawn again on export,
//!   byte-identical); for other kinds, and for folders that do not draw again the same, every
//!   file.
//!
//! A run's outputs never depend on the store: recording reads the finished folder.

pub mod backend;
pub mod drive;
mod export;
mod list;
mod record;
pub mod recorder;
pub mod schema;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::Digest;

pub use backend::{Backend, Dialect, Location, Val};
pub use export::export_run;
use export::*;
pub use list::{normalize_since, Detail, GroupRow, Grouped, RunAt};
use record::*;
pub(crate) use record::{fill_group_columns, fill_headline_and_timeline};
pub use record::{hostname, is_run_file, kind_of, not_run_files};

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
    /// The path holds something that is not a store (another file, a folder, another
    /// program's database): a mistake in what was asked, exit code 2.
    #[error("cannot use the results store {place}: {cause}")]
    NotAStore {
        /// The file.
        place: String,
        /// What it is instead.
        cause: String,
    },
    /// No run has this id.
    #[error("no run {0} in the store")]
    NoSuchRun(i64),
}

/// Whether `cause` is a store error that is a mistake in what was asked (exit code 2, see
/// [`crate::error::exit_code_with`]): a run id the store does not hold, as a missing file,
/// or a `--db` that names something other than a store.
pub fn is_usage(cause: &(dyn std::error::Error + 'static)) -> bool {
    matches!(
        cause.downcast_ref(),
        Some(StoreError::NoSuchRun(_) | StoreError::NotAStore { .. })
    )
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
    /// The run's findings, as its summary.json holds them (none for runs recorded before
    /// summaries held them: the columns above stand in).
    pub findings: Option<crate::detect::Findings>,
    /// The workload (pattern, block size, queue depth, jobs), as its summary.json holds it.
    pub workload: Option<crate::timeline::Workload>,
    /// When the measurement started, as its summary.json stamps it (to the nanosecond, the
    /// microsecond in PostgreSQL); `None` where it has no start. An `analyze` of a recorded
    /// run's timeline keeps that run's start: rows of one drive that share it are one
    /// measurement ([`drive::one_per_measurement`]).
    #[serde(skip)]
    pub started_at: Option<String>,
    /// The workload in a few words, as its row holds it (`randwrite 4K QD32`; schema version
    /// 5): what `runs --by drive` keeps apart. `None` where the run has none, and for a run
    /// recorded by an older slccache since.
    #[serde(skip)]
    pub workload_words: Option<String>,
    /// Whether the findings hedge the cache's size, as its row holds it
    /// ([`crate::detect::Findings::cache_hedged`]; schema version 5).
    #[serde(skip)]
    pub cache_hedged: bool,
    /// What the rate after the cache leaves out or may not be, as its row holds it
    /// ([`crate::detect::Findings::after_caveat_set`]; schema version 6): what `runs --by`
    /// marks a median of. None for a run recorded by an older slccache since.
    #[serde(skip)]
    pub after_caveats: crate::detect::AfterCaveats,
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
    /// The same measurement (the same kind and start time, or for a run without one the same
    /// `timeline.csv`, and the same folder or label: a run analysed again in its own folder)
    /// is there under this id with the analysis it was recorded with; nothing
    /// added, so that one measurement is one run.
    SameMeasurement(i64),
}

impl Recorded {
    /// The run's id.
    pub fn id(self) -> i64 {
        match self {
            Recorded::New(i) | Recorded::Existing(i) | Recorded::SameMeasurement(i) => i,
        }
    }
    /// Whether a new run was added.
    pub fn is_new(self) -> bool {
        matches!(self, Recorded::New(_))
    }
}

/// The most bytes of a file stored as one value: a larger file is stored in pieces of this
/// many bytes (the last one shorter), each deflated on its own (schema version 4), so that
/// recording and reading hold one piece at a time whatever the length of the run.
pub const PIECE_BYTES: usize = 4 << 20;

/// The `data` of a `run_files` row whose file is in `run_file_parts`: one byte that starts a
/// deflate block of the reserved type, which every inflater refuses, so that a slccache older
/// than schema version 4 reading such a file fails instead of reading it as empty.
pub(crate) const PIECED: &[u8] = &[0x07];

/// An open store.
pub struct Store {
    b: Box<dyn Backend>,
    /// The columns of `runs` with their types: a run is written with the columns the store
    /// has, in the types it has them (a store of an older or a newer version alike).
    runs_columns: Vec<(String, String)>,
    /// Whether the store keeps timelines as rows (table `timeline`, PostgreSQL).
    timeline_rows: bool,
    /// Whether the store keeps files in pieces (table `run_file_parts`, schema version 4):
    /// without it (a store of an older version this role may not migrate) each file is one
    /// value, as that version stores it.
    file_parts: bool,
    /// The most bytes of a file stored as one value ([`PIECE_BYTES`]; tests use less).
    piece_bytes: usize,
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
        Store::with_backend(b)
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
        Store::with_backend(b)
    }

    /// The store on a backend whose schema is settled: the columns and tables it has.
    fn with_backend(mut b: Box<dyn Backend>) -> Result<Store> {
        let runs_columns = b.columns("runs")?;
        let timeline_rows = b.table_exists("timeline")?;
        let file_parts = b.table_exists("run_file_parts")?;
        Ok(Store {
            b,
            runs_columns,
            timeline_rows,
            file_parts,
            piece_bytes: PIECE_BYTES,
        })
    }

    /// The store, storing files larger than `bytes` in pieces of `bytes` (at least 1) instead
    /// of [`PIECE_BYTES`]: for tests, which record small files in several pieces.
    pub fn with_piece_bytes(mut self, bytes: usize) -> Store {
        self.piece_bytes = bytes.max(1);
        self
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
            0,
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

    /// The timeline's rows go in batches, numbered on from batch to batch; a file that turns
    /// out not to be slccache's own CSV part-way gives no rows at all.
    #[test]
    fn timeline_rows_are_written_in_batches_and_all_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = backend::Sqlite::open(&dir.path().join("t.db")).unwrap();
        b.execute(
            "CREATE TABLE timeline (run_id BIGINT, n BIGINT, t_s REAL, bytes BIGINT, \
             bytes_per_sec REAL, lat_p99_us REAL, temp_c REAL)",
            &[],
        )
        .unwrap();
        let rows = 2 * TIMELINE_ROWS_PER_INSERT + 500;
        let t = crate::timeline::Timeline {
            samples: (1..=rows)
                .map(|i| crate::timeline::Sample {
                    t_s: i as f64 * 0.1,
                    interval_s: 0.1,
                    bytes: 4096 * i as u64,
                    bytes_total: 4096 * (i * (i + 1) / 2) as u64,
                    bytes_per_sec: 40960.0 * i as f64,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let path = dir.path().join("timeline.csv");
        crate::timeline::CsvWriter::write_all(&path, &t).unwrap();
        let csv = std::fs::read(&path).unwrap();
        assert!(insert_timeline(&mut b, 7, csv.as_slice()).unwrap());
        let got = b
            .query(
                "SELECT COUNT(*), MIN(n), MAX(n), SUM(n = 1500 AND bytes = 4096 * 1501) \
                 FROM timeline WHERE run_id = 7",
                &[],
            )
            .unwrap();
        assert_eq!(
            got[0],
            vec![
                Val::Int(Some(rows as i64)),
                Val::Int(Some(0)),
                Val::Int(Some(rows as i64 - 1)),
                Val::Int(Some(1)),
            ]
        );
        // A bad row after the first batch was written: none of the run's rows stay.
        let text = String::from_utf8(csv).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[1800] = "not,a,row";
        let bad = lines.join("\n") + "\n";
        assert!(!insert_timeline(&mut b, 8, bad.as_bytes()).unwrap());
        let got = b
            .query("SELECT COUNT(*) FROM timeline WHERE run_id = 8", &[])
            .unwrap();
        assert_eq!(got[0][0], Val::Int(Some(0)));
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
