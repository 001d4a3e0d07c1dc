//! Command-line arguments (clap types). Nothing below `config` sees these types: each
//! subcommand turns its arguments into a validated configuration first.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::units::UnitSystem;
pub use crate::workload::{EngineKind, Pattern};

/// Top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "slccache",
    version,
    about = "How big is an SSD's SLC write cache, and what happens when it runs out?",
    long_about = "slccache writes to a drive without pause, samples the throughput every interval, \
finds the cliff(s) where the SLC cache runs out, estimates the effective cache size with an \
error bar, and writes charts (PNG, SVG), a CSV timeline, a JSON summary and a Markdown report.",
    after_help = "Examples:\n  \
slccache probe emu:960evo-250g,cache=2GB --pattern seqwrite   # an emulated drive, no SSD needed\n  \
slccache probe scratch.bin --size 1GiB --duration 10s\n  \
slccache analyze fio_bw.1.log --json\n  \
slccache simulate 960evo-1tb --pattern seqwrite\n  \
slccache compare output/run-a output/run-b --out output/compare\n  \
slccache presets\n  \
slccache probe /dev/nvme0n1 --pattern randwrite --destroy-data  # DESTROYS all data on the drive\n\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input file, 130 interrupted."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write to a target without pause and record its throughput timeline, then analyse it.
    #[command(after_help = "Examples:\n  \
slccache probe emu:960evo-500g                       # emulated drive (no data written anywhere)\n  \
slccache probe scratch.bin --size 1GiB --duration 10s # a file (created if absent)\n  \
slccache probe /dev/nvme0n1 --pattern randwrite      # asks you to type the device name\n  \
slccache probe /dev/loop3 --pattern seqwrite --bs 128k --qd 32 --destroy-data\n  \
slccache probe emu:960evo-1tb --scenario scenarios/iometer-128k-seq-qd32.toml\n\n\
Sizes: 4k, 128KiB, 64GiB, 1.5TB (a bare k/m/g is binary, KB/GB decimal). Durations: 90s, 5m, 10ms.\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted (outputs still written).")]
    Probe(ProbeArgs),
    /// Find the cliffs in a saved timeline, a fio bandwidth log or a two-column CSV.
    #[command(after_help = "Examples:\n  \
slccache analyze output/run/timeline.csv\n  \
slccache analyze fio_bw.1.log --json\n  \
slccache analyze trace.csv --time-unit s --rate-unit MiB/s --out output/trace\n  \
slccache analyze chunks.csv --x bytes --x-unit MiB --rate-unit MB/s   # throughput per data written\n\n\
Two-column CSVs: time and throughput, or data written and throughput (a header such as \
'MiB,MB/s' or 'written_GB,MB/s' says so; then the times are derived from bytes and rate).\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input file (named with its line).")]
    Analyze(AnalyzeArgs),
    /// Run a drive model in virtual time: an hour of writing in well under a second.
    #[command(after_help = "Examples:\n  \
slccache simulate 960evo-1tb\n  \
slccache simulate fx700-2tb --pattern seqwrite --max-bytes 600GB\n  \
slccache simulate my-drive.toml --duration 30m\n\n\
Sizes: 4k, 128KiB, 64GiB, 1.5TB (a bare k/m/g is binary, KB/GB decimal). Durations: 90s, 5m, 10ms.\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad model file, 130 interrupted \
(outputs still written).",
        mut_arg("seed", |a| a.help("Seed for the model's noise and GC dips [default: from the clock]")))]
    Simulate(SimulateArgs),
    /// Overlay several runs on one chart with a side-by-side table.
    #[command(after_help = "Examples:\n  \
slccache compare output/960evo-* --out output/compare\n  \
slccache compare a/timeline.csv b_bw.1.log --units binary\n\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input file (named with its line).",
        mut_arg("out", |a| a.help("Output folder [default: output/compare-<timestamp>/]")))]
    Compare(CompareArgs),
    /// List the built-in drive presets with their key figures.
    Presets,
}

// The domain enums live in `workload`; the command line maps onto them here so that the
// modules below `config` never see clap types.
impl ValueEnum for Pattern {
    fn value_variants<'a>() -> &'a [Self] {
        &Pattern::ALL
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.help()))
    }
}

impl ValueEnum for EngineKind {
    fn value_variants<'a>() -> &'a [Self] {
        &EngineKind::ALL
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.help()))
    }
}

/// Workload options shared by `probe` and `simulate`. All optional so a scenario file can set
/// them; flags given on the command line win.
#[derive(Debug, Clone, Default, Args)]
pub struct WorkloadArgs {
    /// Write pattern [default: randwrite].
    #[arg(long, value_enum)]
    pub pattern: Option<Pattern>,
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
    /// Stop after this long [default: one pass over the span].
    #[arg(long)]
    pub duration: Option<String>,
    /// Stop after writing this many bytes [default: one pass over the span].
    #[arg(long)]
    pub max_bytes: Option<String>,
    /// Seed for the random offsets and the data written [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// A scenario file (TOML) with workload settings; flags override it.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
}

/// Output options shared by every subcommand that writes charts.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Output folder [default: output/<name>-<timestamp>/, named after the target or model].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Units in charts and reports: decimal MB/GB (as drive makers quote) or binary MiB/GiB.
    #[arg(long, value_enum, default_value_t = UnitSystem::Decimal)]
    pub units: UnitSystem,
    /// PNG size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x900")]
    pub png_size: String,
}

/// `slccache probe`.
#[derive(Debug, Clone, Args)]
pub struct ProbeArgs {
    /// A block device (/dev/nvme0n1), a regular file, or an emulated drive (emu:PRESET[,k=v..]).
    ///
    /// Emulated drives: emu:PRESET with any keys overridden, e.g.
    /// emu:960evo-500g,cache=30GB,after=500MB/s. Keys: capacity=, cache=, static=, dynamic=,
    /// in=, after=, fold_after=, fold=, noise=, dips=, thermal=, and more; `slccache presets`
    /// lists the presets and every key.
    pub target: String,
    /// Workload.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Size of the file to create when TARGET is a file that does not exist.
    #[arg(long)]
    pub size: Option<String>,
    /// Allow overwriting an existing regular file.
    #[arg(long)]
    pub overwrite: bool,
    /// Agree to destroy all data on a block device without being asked (for scripts).
    #[arg(long)]
    pub destroy_data: bool,
    /// I/O engine [default: io-uring].
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `slccache analyze`.
#[derive(Debug, Clone, Args)]
pub struct AnalyzeArgs {
    /// Timeline files: slccache timeline.csv, fio bandwidth logs, or two-column CSVs.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the analysis as one JSON object per file to stdout.
    #[arg(long)]
    pub json: bool,
    /// Time unit of a two-column CSV without a header (s or ms).
    #[arg(long)]
    pub time_unit: Option<String>,
    /// Rate unit of a two-column CSV without a header (MB/s, MiB/s, KiB/s, GB/s).
    #[arg(long)]
    pub rate_unit: Option<String>,
    /// What the first column of a two-column CSV is: time, or bytes (data written, as HD
    /// Tune, AIDA64 and SsdSlowMark export) [default: from the header, else time].
    #[arg(long, value_name = "time|bytes")]
    pub x: Option<String>,
    /// Unit of the first column when it is data written: B, kB, MB, GB, KiB, MiB, GiB.
    #[arg(long, value_name = "UNIT")]
    pub x_unit: Option<String>,
    /// Write charts and reports to this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Units in charts and reports.
    #[arg(long, value_enum, default_value_t = UnitSystem::Decimal)]
    pub units: UnitSystem,
    /// PNG size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1600x900")]
    pub png_size: String,
}

/// `slccache simulate`.
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// A preset name (see `slccache presets`), with optional overrides
    /// (`960evo-500g,cache=30GB`), or a drive model TOML file.
    pub model: String,
    /// Workload.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Print the analysis as JSON to stdout.
    #[arg(long)]
    pub json: bool,
}

/// `slccache compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Runs: run folders, timeline.csv files or fio logs.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}
