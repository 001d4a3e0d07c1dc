//! The arguments of the commands that read the results library: `runs` (with its actions),
//! `history` and `db`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::{LibraryArgs, OutputArgs, StoreArgs, QUIET_HELP};

/// `slccache db`.
#[derive(Debug, Clone, Args)]
pub struct DbArgs {
    /// What to do to the store.
    #[command(subcommand)]
    pub action: DbAction,
    /// `--db`.
    #[command(flatten)]
    pub store: StoreArgs,
    /// `-q/--quiet`.
    #[arg(short, long, global = true, help = QUIET_HELP)]
    pub quiet: bool,
}

/// What `slccache db` does.
#[derive(Debug, Clone, Subcommand)]
pub enum DbAction {
    /// Create the store, or bring it to this slccache's schema version (every step, also
    /// those that stop older slccache from recording there); moves a version-1 store out of
    /// `public` into its own schema.
    Migrate,
}

/// `slccache runs`.
#[derive(Debug, Clone, Args)]
pub struct RunsArgs {
    /// show, export, import or rm [default: list the runs].
    #[command(subcommand)]
    pub action: Option<RunsAction>,
    /// Only runs whose drive model or label contains this text (any case).
    #[arg(long)]
    pub drive: Option<String>,
    /// Only runs of the drive with this serial number.
    #[arg(long)]
    pub serial: Option<String>,
    /// Only runs on or after this date (2026-12-01, local midnight), local time
    /// (2026-12-01T10:00) or RFC 3339 time (2026-12-01T10:00:00Z).
    #[arg(long)]
    pub since: Option<String>,
    /// Only runs of this kind: probe, analyze, simulate, sweep, recovery or fill-sweep.
    #[arg(long)]
    pub kind: Option<String>,
    /// One line per host, drive or value of tag KEY: the run count, and the median and range
    /// of the cache size and of the after-cache rate (--json: one object per group).
    #[arg(long, value_name = "host|drive|tag:KEY")]
    pub by: Option<String>,
    /// One JSON array of the runs instead of a table (before `show`: the run as `show
    /// --json` gives it).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Every column of the table whole, however wide the terminal (on a terminal the table
    /// is fitted to its width: COLUMNS, else the terminal's own).
    #[arg(long, conflicts_with_all = ["json", "csv"])]
    pub wide: bool,
    /// Write the library page DIR/index.html (every listed run with a sparkline, filters by
    /// drive and host) and each listed run's folder under DIR/ID/ (about 1 MB a run, once),
    /// linked from it. A folder that holds files and is not such a page is refused unless
    /// --force.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["json", "csv", "by"])]
    pub html: Option<PathBuf>,
    /// With --html: write the page into a folder that holds other files (they are kept; an
    /// index.html there is replaced).
    #[arg(long, requires = "html")]
    pub force: bool,
    /// `-q/--quiet`.
    #[arg(short, long, global = true, help = QUIET_HELP)]
    pub quiet: bool,
    /// `--db`, and the filters by host and tag.
    #[command(flatten)]
    pub library: LibraryArgs,
}

/// A run id: a positive whole number (`slccache runs` lists them).
fn run_id(s: &str) -> Result<i64, String> {
    match s.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(format!(
            "'{s}' is no run id: run ids are positive whole numbers (1, 2, ...; see `slccache \
             runs`)"
        )),
    }
}

/// What `slccache runs` does to one run.
#[derive(Debug, Clone, Subcommand)]
pub enum RunsAction {
    /// Everything recorded about one run: its row and its summary.json.
    Show {
        /// Run id.
        #[arg(value_parser = run_id, allow_negative_numbers = true)]
        id: i64,
        /// One JSON object instead: the run's row (as `runs --json` lists it), its stored
        /// files and its summary.json.
        #[arg(long)]
        json: bool,
    },
    /// Write a run's folder again from the store alone.
    Export {
        /// Run id.
        #[arg(value_parser = run_id, allow_negative_numbers = true)]
        id: i64,
        /// Folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Add run folders written before the store existed or on another machine (each folder
    /// once, with its own date and host), or with --pending the runs that could not be
    /// recorded when they ended. --host names the host of folders whose summary.json names
    /// none (older ones).
    Import {
        /// Run folders (each holds a summary.json).
        #[arg(required_unless_present = "pending")]
        dirs: Vec<PathBuf>,
        /// Record the runs waiting in the spool ($XDG_DATA_HOME/slccache/pending), each with
        /// its own date and host, once each; each one recorded leaves the spool.
        #[arg(long)]
        pending: bool,
    },
    /// Copy runs from one store to another (SQLite or PostgreSQL, either way) with
    /// everything stored: each run once (a run already there is not added again). The
    /// filters of `runs` choose the runs: --drive, --serial, --since and --kind are given
    /// before `copy` (`slccache runs --drive 960 copy --to other.db`); --host and --tag go
    /// anywhere.
    #[command(after_help = "Examples:\n  \
slccache runs copy --from old.db --to postgres://lab@db.lab/slccache\n  \
slccache runs copy --host bench-3 --to bench-3.db   # one host's runs\n  \
slccache runs --drive 960 copy --to 960.db          # one drive model's runs\n  \
slccache runs copy 12 14 --to other.db")]
    Copy {
        /// Only these run ids of the store copied from [default: every run the filters
        /// match].
        #[arg(value_parser = run_id, allow_negative_numbers = true)]
        ids: Vec<i64>,
        /// The store to copy from [default: --db, else $SLCCACHE_DB, else the default store].
        #[arg(long, value_name = "PATH|URL")]
        from: Option<String>,
        /// The store to copy into (created if missing) [default: --db, else $SLCCACHE_DB,
        /// else the default store].
        #[arg(long, value_name = "PATH|URL")]
        to: Option<String>,
    },
    /// Remove a run from the store.
    Rm {
        /// Run id.
        #[arg(value_parser = run_id, allow_negative_numbers = true)]
        id: i64,
        /// Remove it without asking (on a terminal, `runs rm` shows the run and asks first).
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

/// `slccache history` (its help is at `Command::History`).
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// The drive's serial number (or, when no run has that serial, part of its name).
    pub serial: String,
    /// Only the drive of this capacity (e.g. 250GB), where the text matches drives of
    /// several capacities.
    #[arg(long, value_name = "SIZE")]
    pub capacity: Option<String>,
    /// Only drives of this kind: real (a block device), file (a regular file), emulated (emu:)
    /// or simulated (simulate, --simulate).
    #[arg(long, value_name = "real|file|emulated|simulated")]
    pub drive_kind: Option<String>,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Print the history as one JSON object to stdout: the drive, and each run's date, cache
    /// size with its interval, after-cache rate and the drive's own counters; the result
    /// line goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// `--db`, and the filters by host and tag.
    #[command(flatten)]
    pub library: LibraryArgs,
}
