//! The flag groups that several subcommands share, each flattened into the commands it
//! applies to: the results-store flags (`BeforeArgs`, `StoreArgs`, `RecordArgs`,
//! `LibraryArgs`), the workload (`WorkloadArgs`), the early stop (`StopArgs`), the outputs
//! (`OutputArgs`) and what may be written to a target (`TargetArgs`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::units::UnitSystem;
use crate::workload::Pattern;

/// The results-store flags given before the command's name, as in `slccache --db URL runs`:
/// each is taken only when the command takes it after its name too (see [`StoreUse`]).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Before a command that takes them")]
pub struct BeforeArgs {
    /// The results store, for the commands that record a run or read the store (probe,
    /// analyze, simulate, sweep, recovery, fill-sweep, compare, runs, history, db): the same
    /// as their --db.
    #[arg(long = "db", id = "before_db", value_name = "PATH|URL")]
    pub db: Option<String>,
    /// The same as --no-record after a command that records a run (probe, analyze, simulate,
    /// sweep, recovery, fill-sweep).
    #[arg(long = "no-record", id = "before_no_record")]
    pub no_record: bool,
    /// The same as --require-record after a command that records a run.
    #[arg(long = "require-record", id = "before_require_record")]
    pub require_record: bool,
    /// The same as --host after a command that records a run, or runs and history.
    #[arg(long = "host", id = "before_host", value_name = "NAME")]
    pub host: Option<String>,
    /// The same as --tag after a command that records a run, or runs and history.
    #[arg(long = "tag", id = "before_tag", value_name = "KEY=VALUE")]
    pub tag: Vec<String>,
    /// The same as -q/--quiet after the command, which every command takes.
    #[arg(short = 'q', long = "quiet", id = "before_quiet")]
    pub quiet: bool,
}

/// `--db`: the results store, for the commands that read it (`compare`, `db`; and within
/// [`RecordArgs`] and [`LibraryArgs`]).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Results store")]
pub struct StoreArgs {
    /// The results store: an SQLite file, a postgres://user@host/dbname URL or a libpq
    /// key=value string (password from the URL, PGPASSWORD or ~/.pgpass; never shown)
    /// [default: $SLCCACHE_DB, else $XDG_DATA_HOME/slccache/results.db].
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub db: Option<String>,
}

/// The flags of the commands that record a run (`probe`, `analyze`, `simulate`, `sweep`,
/// `recovery`, `fill-sweep`): where, whether, and the origin it records.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Results store")]
pub struct RecordArgs {
    /// `--db`.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Do not record this run in the results store.
    #[arg(long, conflicts_with = "require_record")]
    pub no_record: bool,
    /// Exit 1 when the run could not be recorded in the store (its files are written all the
    /// same, and a copy waits for `runs import --pending`); also SLCCACHE_REQUIRE_RECORD=1.
    #[arg(long)]
    pub require_record: bool,
    /// The host the run records as its origin (in summary.json and the store) [default:
    /// $SLCCACHE_HOST, else the machine's name].
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// A tag of the run, KEY=VALUE (lab, rack, firmware, ticket; KEY of letters, digits, _ - .),
    /// repeatable: in summary.json and the store.
    #[arg(long, value_name = "KEY=VALUE")]
    pub tag: Vec<String>,
}

/// The flags of the commands that read the recorded runs (`runs`, `history`): the store and
/// the filters by origin.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Results store")]
pub struct LibraryArgs {
    /// `--db`.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Only runs whose host contains this text (any case), where runs are listed or copied
    /// (`runs`, `runs copy`, `runs --html`, `history`); for `runs import`, the host of folders
    /// whose summary.json names none. Not with a run id (`runs show`, `export`, `rm`).
    #[arg(long, global = true, value_name = "NAME")]
    pub host: Option<String>,
    /// Only runs with this tag, KEY=VALUE; repeatable: runs with every tag given. Where runs
    /// are listed or copied, as --host.
    #[arg(long, global = true, value_name = "KEY=VALUE")]
    pub tag: Vec<String>,
}

/// `--host` and `--tag` of `runs` and `history` (filters there), and the `--db` given, which
/// the commands they suggest repeat.
#[derive(Debug, Clone, Default)]
pub struct OriginArgs {
    /// `--host`.
    pub host: Option<String>,
    /// `--tag`, as given.
    pub tags: Vec<String>,
    /// `--db`, as given.
    pub db: Option<String>,
}

/// Workload options shared by `probe` and `simulate`. All optional so a scenario file can set
/// them; flags given on the command line win.
#[derive(Debug, Clone, Default, Args)]
pub struct WorkloadArgs {
    /// Access pattern [default: randwrite]. Reads need written data: see README, "Reads".
    #[arg(long, value_enum)]
    pub pattern: Option<Pattern>,
    /// Percentage of reads for --pattern randrw or rw [default: 50].
    #[arg(long, value_name = "PCT")]
    pub rwmix_read: Option<u32>,
    /// Block size [default: 4k for randwrite, 128k for seqwrite].
    #[arg(long)]
    pub bs: Option<String>,
    /// Queue depth per job [default: 32].
    #[arg(long)]
    pub qd: Option<u32>,
    /// Number of jobs, each with its own queue [default: 1].
    #[arg(long)]
    pub jobs: Option<u32>,
    /// Sampling interval, from 10ms up to the run's --duration [default: 1s].
    #[arg(long)]
    pub interval: Option<String>,
    /// Limit the written range to the first SIZE bytes of the target [default: whole target].
    #[arg(long)]
    pub span: Option<String>,
    /// Stop after this long at the latest [default: one pass over the span; the early stop
    /// usually ends the run sooner]. One pass over the span stays the limit unless --max-bytes
    /// says more.
    #[arg(long, allow_hyphen_values = true)]
    pub duration: Option<String>,
    /// Stop after writing this many bytes at the latest [default: one pass over the span].
    #[arg(long)]
    pub max_bytes: Option<String>,
    /// Seed for the random offsets and the data written [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// A scenario file (TOML) with workload settings, or the name of a built-in one (e.g.
    /// iometer-128k-seq-qd32, see scenarios/); flags override it.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
}

/// When to stop: the early stop, shared by `probe` and `simulate`.
#[derive(Debug, Clone, Default, Args)]
pub struct StopArgs {
    /// Write to the limit (--max-bytes, --duration or one pass over the span) instead of
    /// stopping once the cliff is certain.
    #[arg(long, conflicts_with = "after_cliff")]
    pub no_early_stop: bool,
    /// After a confirmed cliff, keep writing this long before stopping; the hold grows to the
    /// length of the cache phase, up to 2 minutes [default: 30s].
    #[arg(long, value_name = "DUR")]
    pub after_cliff: Option<String>,
    /// Stop once the N-th cliff is confirmed, not the first: a drive with a second, slower
    /// cache tier (e.g. 5000 -> 3500 -> 130 MB/s) needs 2 to reach the speed it ends at
    /// [default: 1].
    #[arg(long, value_name = "N", conflicts_with = "no_early_stop")]
    pub cliffs: Option<usize>,
}

/// Output options shared by every subcommand that writes charts.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Output folder [default: output/<name>-<timestamp>/, named after the target or model].
    /// A folder that already holds files is refused unless --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into an --out folder that already holds files: an earlier run's outputs there
    /// are replaced, those this run does not write (zoom charts, card, another experiment's
    /// CSVs and charts, bursts/) are removed; other files are kept.
    #[arg(long)]
    pub force: bool,
    /// Units in charts and reports: decimal MB/GB (as drive makers quote) or binary MiB/GiB.
    #[arg(long, value_enum, default_value_t = UnitSystem::Decimal)]
    pub units: UnitSystem,
    /// PNG size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x900")]
    pub png_size: String,
    /// Chart and report.html colours: light (white background) or dark (for dark web pages).
    #[arg(long, value_enum, default_value_t = ThemeArg::Light)]
    pub theme: ThemeArg,
}

/// The flags that say what may be written to a target, shared by `probe`, `sweep`,
/// `recovery` and `fill-sweep`.
#[derive(Debug, Clone, Default, Args)]
pub struct TargetArgs {
    /// Size of the file to create when TARGET is a file that does not exist.
    #[arg(long)]
    pub size: Option<String>,
    /// Allow overwriting an existing regular file.
    #[arg(long)]
    pub overwrite: bool,
    /// Agree to destroy all data on a block device without being asked (for scripts). On any
    /// other target (a regular file, whose flag is --overwrite; an emulated drive; a model run
    /// with --simulate) it has no effect, and a one-line note says so.
    #[arg(long)]
    pub destroy_data: bool,
}

/// `--theme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ThemeArg {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on a dark background.
    Dark,
}

impl From<ThemeArg> for crate::report::charts::Theme {
    fn from(t: ThemeArg) -> Self {
        match t {
            ThemeArg::Light => crate::report::charts::Theme::Light,
            ThemeArg::Dark => crate::report::charts::Theme::Dark,
        }
    }
}

/// `compare --align`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum AlignArg {
    /// Every run from its start.
    #[default]
    Start,
    /// Every run shifted so that its first cliff is at 0.
    Cliff,
}
