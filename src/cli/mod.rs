//! Command-line arguments (clap types). Nothing below `config` sees these types: each
//! subcommand turns its arguments into a validated configuration first.

mod groups;
mod library;
pub mod resolve;
pub mod usage;
pub use groups::{
    AlignArg, BeforeArgs, LibraryArgs, OriginArgs, OutputArgs, RecordArgs, StopArgs, StoreArgs,
    TargetArgs, ThemeArg, WorkloadArgs,
};
pub use library::{DbAction, DbArgs, HistoryArgs, RunsAction, RunsArgs};
pub use resolve::{stop_config, MAX_AFTER_CLIFF};

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::units::UnitSystem;
pub use crate::workload::SweepPreset;
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
slccache probe emu:960evo-250g,cache=2GB --pattern seqwrite  # no SSD needed\n  \
slccache probe scratch.bin --size 1GiB --duration 10s\n  \
slccache analyze fio_bw.1.log --json\n  \
slccache simulate 960evo-1tb --pattern seqwrite\n  \
slccache compare output/run-a output/run-b --out output/compare\n  \
slccache info /dev/nvme0n1   # identity, SMART log; writes nothing\n  \
slccache sweep emu:960evo-500g --simulate --qd 1,4,16,64,256 --jobs 1,4\n  \
slccache presets\n  \
slccache probe /dev/nvme0n1 --destroy-data  # DESTROYS all data on the drive\n\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input file, 130 interrupted."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The results-store flags given before the command (`slccache --db URL runs`).
    #[command(flatten)]
    pub before: BeforeArgs,
}

/// The help of `-q/--quiet`, which every subcommand takes with this one meaning.
pub const QUIET_HELP: &str = "No progress, notes or warnings on stderr: only errors. Results \
(the final line, tables, --json) are printed all the same, and so is the line naming the id a \
run was recorded under; a run's warnings stay in its summary.json and report.md";

/// Which of the results-store flags a command takes.
#[derive(Debug, Clone, Copy)]
pub enum StoreUse<'a> {
    /// None: the command neither records a run nor reads the store.
    None,
    /// `--db` only: the command reads the store.
    Store(&'a StoreArgs),
    /// `--db`, `--host` and `--tag` as filters: the command lists recorded runs.
    Library(&'a LibraryArgs),
    /// Every one: the command records a run.
    Record(&'a RecordArgs),
}

impl Command {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Probe(_) => "probe",
            Command::Analyze(_) => "analyze",
            Command::Simulate(_) => "simulate",
            Command::Compare(_) => "compare",
            Command::Info(_) => "info",
            Command::Sweep(_) => "sweep",
            Command::Presets(_) => "presets",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
            Command::Recovery(_) => "recovery",
            Command::FillSweep(_) => "fill-sweep",
            Command::Runs(_) => "runs",
            Command::History(_) => "history",
            Command::Db(_) => "db",
        }
    }

    /// Sets `-q/--quiet`, which every command takes (given before the command's name:
    /// `slccache -q probe ...`).
    pub fn set_quiet(&mut self) {
        match self {
            Command::Probe(a) => a.quiet = true,
            Command::Analyze(a) => a.quiet = true,
            Command::Simulate(a) => a.quiet = true,
            Command::Compare(a) => a.quiet = true,
            Command::Info(a) => a.quiet = true,
            Command::Sweep(a) => a.quiet = true,
            Command::Presets(a) => a.quiet = true,
            Command::Completions(a) => a.quiet = true,
            Command::Man(a) => a.quiet = true,
            Command::Recovery(a) => a.common.quiet = true,
            Command::FillSweep(a) => a.common.quiet = true,
            Command::Runs(a) => a.quiet = true,
            Command::History(a) => a.quiet = true,
            Command::Db(a) => a.quiet = true,
        }
    }

    /// The results-store flags the command takes, as given after its name.
    pub fn store_use(&self) -> StoreUse<'_> {
        match self {
            Command::Probe(a) => StoreUse::Record(&a.record),
            Command::Analyze(a) => StoreUse::Record(&a.record),
            Command::Simulate(a) => StoreUse::Record(&a.record),
            Command::Sweep(a) => StoreUse::Record(&a.record),
            Command::Recovery(a) => StoreUse::Record(&a.common.record),
            Command::FillSweep(a) => StoreUse::Record(&a.common.record),
            Command::Compare(a) => StoreUse::Store(&a.store),
            Command::Db(a) => StoreUse::Store(&a.store),
            Command::Runs(a) => StoreUse::Library(&a.library),
            Command::History(a) => StoreUse::Library(&a.library),
            Command::Info(_) | Command::Presets(_) | Command::Completions(_) | Command::Man(_) => {
                StoreUse::None
            }
        }
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write to a target without pause and record its throughput timeline, then analyse it.
    #[command(after_help = "Examples:\n  \
slccache probe emu:960evo-500g,cache=4GB --pattern seqwrite  # about 35 s\n  \
slccache probe scratch.bin --size 1GiB --duration 10s  # created if absent\n  \
slccache probe /dev/nvme0n1 --pattern randwrite  # asks you to type its name\n  \
slccache probe /dev/nvme0n1 --trim --idle-before 10m  # discard, let it fold\n  \
slccache probe /dev/loop3 --pattern seqwrite --bs 128k --qd 32 --destroy-data\n  \
slccache probe emu:960evo-250g --scenario iometer-128k-seq-qd32\n  \
slccache probe scratch.bin --size 1GiB --prefill 50 --duration 10s  # at 50%\n  \
slccache probe scratch.bin --pattern randread --duration 30s\n  \
slccache probe /dev/loop3 --pattern randrw --rwmix-read 70 --assume-written\n\n\
Reads need a target that holds written data, as scratch.bin above after a run that wrote it \
(see the README, Reads).\n\
The run stops once the cliff is certain: the level after it held for --after-cliff (30 s, or as \
long as the cache phase, at most 2 min). --no-early-stop writes to the limit.\n\
Sizes: 4k, 128KiB, 64GiB, 1.5TB (a bare k/m/g is binary, KB/GB decimal). Durations: 90s, 5m, 10ms.\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted (outputs still written).")]
    Probe(ProbeArgs),
    /// Find the cliffs in a saved timeline, a fio bandwidth log, a two-column CSV or a DiskSPD
    /// XML result.
    #[command(after_help = "Examples:\n  \
slccache analyze output/run/timeline.csv\n  \
slccache analyze fio_bw.1.log --json\n  \
slccache analyze trace.csv --time-unit s --rate-unit MiB/s --out output/trace\n  \
slccache analyze chunks.csv --x bytes --x-unit MiB --rate-unit MB/s\n\n\
Two-column CSVs: time and throughput, or data written and throughput (a header such as \
'MiB,MB/s' or 'written_GB,MB/s' says so, or --x bytes as in the last example; then the times \
are derived from bytes and rate).\n\
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
    /// Overlay several runs (2 to 12 read well) on one chart with a side-by-side table.
    #[command(after_help = "Examples:\n  \
slccache compare output/960evo-* --out output/compare\n  \
slccache compare a/timeline.csv b_bw.1.log --units binary\n  \
slccache compare run-a run-b run-c --label 'fresh,after TRIM,full'\n  \
slccache compare output/run-* --align cliff\n  \
slccache compare output/run-* --theme dark\n\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input file (named with its line).",
        mut_arg("out", |a| a.help("Output folder [default: output/compare-<timestamp>/]")))]
    Compare(CompareArgs),
    /// Show what a target is and what the drive reports about itself; writes nothing.
    #[command(
        long_about = "Show what a target is and what the drive reports about itself: model, \
serial, firmware, capacity, block sizes, whether it is in use (mounted, swap, held: probe would \
refuse it), temperature, the disk's I/O scheduler, write cache and the link to the drive (PCIe, \
SATA or USB) with the rate it lets through; on NVMe drives the SMART / Health log (temperature, \
wear, spare, data written, thermal-management counters); on SATA drives, and USB drives whose \
bridge passes ATA commands, IDENTIFY DEVICE (link speed, TRIM, security state) and the SMART \
attributes. Opens the target read-only and writes nothing. The SMART data needs root on most \
systems.",
        after_help = "Examples:\n  \
slccache info /dev/nvme0n1\n  \
slccache info /dev/sda --json   # a SATA drive: IDENTIFY, SMART, its link\n  \
slccache info emu:870evo-4tb   # an emulated SATA drive and its link\n  \
slccache info emu:p5-1tb   # an emulated drive: its model's counters\n  \
slccache info scratch.bin --units binary\n\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error (no such target)."
    )]
    Info(InfoArgs),
    /// Measure IOPS, throughput and latency over a grid of queue depths, job counts and
    /// read/write mixes (or the CrystalDiskMark table), and find where IOPS saturate.
    #[command(after_help = "Examples:\n  \
slccache sweep emu:960evo-500g --simulate --qd 1,4,16,64,256 --jobs 1,4\n  \
slccache sweep p5-1tb --simulate --rwmix-read 100,70,30,0 --qd 3 --jobs 1\n  \
slccache sweep emu:970evo-500g --simulate --preset cdm\n  \
slccache sweep /dev/loop3 --qd 1,32 --point-duration 5s --destroy-data\n  \
slccache sweep scratch.bin --pattern randread --qd 1,8,32 --jobs 1,4\n\n\
--simulate runs the points in virtual time: seconds for the whole grid. Reads need a target \
that holds written data (see the README, Reads).\n\
--preset cdm: each point covers CrystalDiskMark's 1 GiB test region once (the span's first 1 GiB), or \
ends after --point-duration; --max-bytes-per-point and --span change the region.\n\
Outputs: sweep.csv (one row per finished point: qd, jobs, bs, rwmix_read, iops, bytes_per_sec, \
lat_p50_us, lat_p99_us, cpu_pct, crossed_cliff), summary.json (sweep.points, sweep.saturations, \
sweep.saturation, model_truth.sweep on a model), report.md, report.html and charts. The saturation \
point of a workload (pattern, block size, read share) is the smallest QD x jobs reaching 95% of \
that workload's best IOPS, claimed only when a larger QD x jobs was measured after it. A point \
cut short by Ctrl-C is left out (summary.json keeps it as sweep.unfinished_point).\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted (outputs still written).")]
    Sweep(SweepArgs),
    /// List the built-in drive presets with their key figures.
    Presets(PresetsArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(after_help = "Examples:\n  \
slccache completions bash \\\n      > ~/.local/share/bash-completion/completions/slccache\n  \
slccache completions zsh > ~/.zfunc/_slccache\n  \
slccache completions fish > ~/.config/fish/completions/slccache.fish\n\n\
zsh reads ~/.zfunc once ~/.zshrc adds it to fpath (fpath+=(~/.zfunc), before compinit).")]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) to stdout, or write one page per subcommand to a folder.
    #[command(after_help = "Examples:\n  \
slccache man | man -l -\n  \
slccache man --out-dir ~/.local/share/man/man1  # one page per command")]
    Man(ManArgs),
    /// How fast the cache comes back while the drive idles: burst, pause, burst, and a fit.
    #[command(after_help = "Examples:\n  \
slccache recovery emu:970evo-500g --simulate --idle 10s,60s,300s\n  \
slccache recovery /dev/nvme0n1 --idle 5s,15s,30s,60s,120s,300s --seed 7\n  \
slccache recovery emu:960evo-250g,cache=2GB --idle 2s,5s,10s\n\n\
--simulate runs a drive model in virtual time (the first example); an emulated drive without it \
runs in real time (the last).\n\
A first burst writes until the cliff is confirmed (the cache is then empty). A settling step \
(the longest idle and a burst, not a point) follows, so that every step starts from the same \
state. Then, for each idle time in an order shuffled with --seed: idle, write again until the \
cliff, and record how much cache came back. The fit gives the folding rate while idle, the \
delay before folding starts and the time to full recovery, each with a 95% interval. The \
longest idle runs first (see the README).\n\
Bursts are seqwrite, 128 KiB, QD32 unless --pattern, --bs or --qd say otherwise (not randwrite \
as for probe); --max-bytes caps each burst. A burst writes: a pattern that only reads is \
refused.\n\
Outputs: recovery.csv, recovery.{png,svg}, recovery-bursts.{png,svg}, summary.json, report.md, \
report.html and bursts/*.csv (each burst's timeline).\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted (finished steps written).")]
    #[command(
        mut_arg("pattern", |a| a
            .help("Access pattern of the bursts, which write [default: seqwrite]")
            .value_parser(burst_patterns())),
        mut_arg("bs", |a| a.help("Block size of the bursts [default: 128k]"))
    )]
    Recovery(RecoveryArgs),
    /// Cache size against fill level: fill to each level, idle, write until the cliff.
    #[command(after_help = "Examples:\n  \
slccache fill-sweep emu:660p-1tb --simulate --levels 0,25,50,75\n  \
slccache fill-sweep /dev/nvme0n1 --levels 0,25,50,75,90 --trim --idle 30m\n\n\
--simulate runs a drive model in virtual time (the first example).\n\
At each level (rising, in % of the span): fill the drive sequentially to that share (the \
bursts' block size and queue depth, kept out of the timelines), idle (--idle) so that the cache \
refills, then write until the cliff. --trim discards the whole span first. Bursts are seqwrite, \
128 KiB, QD32 unless --pattern, --bs or --qd say otherwise. A burst writes: a pattern that only \
reads is refused.\n\
Outputs: fill-sweep.csv, fill-sweep.{png,svg}, fill-sweep-bursts.{png,svg}, summary.json, \
report.md, report.html and bursts/*.csv.\n\
Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted (finished steps written).")]
    #[command(
        mut_arg("pattern", |a| a
            .help("Access pattern of the bursts, which write [default: seqwrite]")
            .value_parser(burst_patterns())),
        mut_arg("bs", |a| a.help("Block size of the bursts [default: 128k]"))
    )]
    FillSweep(FillSweepArgs),
    /// The results library: list the recorded runs, show, export, import or remove one.
    #[command(after_help = "Examples:\n  \
slccache runs                                  # every run, oldest first\n  \
slccache runs --drive 980 --since 2026-01-01 --json\n  \
slccache runs show 42\n  \
slccache runs export 42 --out output/run-42    # its folder, from the store\n  \
slccache runs import output/*                  # older run folders\n  \
slccache runs rm 42\n  \
slccache --db postgres://lab@db.example/slccache runs --host bench-3\n\n\
The store is $XDG_DATA_HOME/slccache/results.db (~/.local/share/slccache/results.db) unless \
--db or SLCCACHE_DB names another.")]
    Runs(RunsArgs),
    /// Chart one drive's recorded runs: cache size (with interval) and after-cache throughput
    /// against the run date, and cache size against the drive's wear where SMART was read.
    #[command(after_help = "Examples:\n  \
slccache history S4EWNX0R123456 --out output/history\n  \
slccache history \"960 EVO\"   # not a serial: runs whose drive name has it\n\n\
One drive's runs are charted: those of one serial number, or, for drives without one \
(emulated and simulated drives), of one model, capacity and kind (real, file, emulated, simulated). \
When the text matches several drives, the command lists them with the flags that pick each \
(--capacity, --drive-kind). With --host TEXT only runs of hosts whose name contains TEXT are \
charted, one series per host.\n\
Writes history-cache-date, history-after-cache-date and (with SMART data) history-cache-wear \
as PNG and SVG, and report.html.",
        mut_arg("out", |a| a.help(
            "Output folder [default: output/history-<TEXT>-<timestamp>/, TEXT the serial or \
             name given]. A folder that already holds files is refused unless --force"
        )))]
    History(HistoryArgs),
    /// The results store itself: create it, or bring it to this slccache's schema.
    #[command(after_help = "Examples:\n  \
slccache --db postgres://dba@db.example/lab db migrate  # as its owner, once\n  \
slccache db migrate  # the default SQLite store\n\n\
`db migrate` creates the store (on a server: its schema, `slccache` unless --db says \
schema=NAME, and its tables and views), or takes every step up to this slccache's schema \
version, also those older slccache cannot write after (it then stops recording there and asks \
to be upgraded). A store of version 1 in `public` is moved into the schema. Steps that only \
add are taken by any slccache on its own; this command is for the others, and for a DBA who \
then grants the fleet's role INSERT and SELECT only (docs/DESIGN.md, the results library).")]
    Db(DbArgs),
}

/// `slccache completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
}

/// `slccache presets`.
#[derive(Debug, Clone, Args)]
pub struct PresetsArgs {
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Print the presets as one JSON object to stdout: each model's fields as a model file
    /// gives them (SI units: bytes, bytes per second, seconds), and the cache size and rates
    /// it implies for a sequential 128 KiB write.
    #[arg(long)]
    pub json: bool,
}

/// `slccache man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Write slccache.1 and one page per subcommand (slccache-probe.1, slccache-runs-show.1,
    /// ...) into this folder instead of printing the top-level page.
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
}

impl ValueEnum for SweepPreset {
    fn value_variants<'a>() -> &'a [Self] {
        &[SweepPreset::Cdm]
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        match self {
            SweepPreset::Cdm => Some(PossibleValue::new("cdm").help(
                "CrystalDiskMark's table: Seq Q32T1 (1 MiB), 4K Q8T8, 4K Q1T1, read and write",
            )),
        }
    }
}

/// `slccache sweep`.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// A block device, a regular file, or an emulated drive (emu:PRESET[,k=v..]).
    pub target: String,
    /// Queue depths per job, a comma-separated list.
    #[arg(long, default_value = "1,2,4,8,16,32,64,128,256")]
    pub qd: String,
    /// Job counts (threads, each with its own queue), a comma-separated list.
    #[arg(long, default_value = "1,4,8")]
    pub jobs: String,
    /// Block size [default: 4k for random patterns, 128k for sequential ones, as in probe].
    #[arg(long)]
    pub bs: Option<String>,
    /// Access pattern [default: randwrite]; with --rwmix-read its random or sequential order.
    #[arg(long, value_enum)]
    pub pattern: Option<Pattern>,
    /// Read percentages, a comma-separated list (AnandTech's form: 100,80,60,40,20,0).
    #[arg(long, value_name = "PCTS")]
    pub rwmix_read: Option<String>,
    /// Length of each point.
    #[arg(long, default_value = "10s", allow_hyphen_values = true)]
    pub point_duration: String,
    /// Stop each point after this many bytes (keeps write points inside the cache).
    #[arg(long)]
    pub max_bytes_per_point: Option<String>,
    /// A named grid instead of --qd/--jobs/--bs/--pattern (cdm: a 1 GiB test region per point).
    #[arg(long, value_enum)]
    pub preset: Option<SweepPreset>,
    /// Run an emulated drive's points in virtual time (seconds for the whole grid).
    #[arg(long)]
    pub simulate: bool,
    /// Limit the I/O to the first SIZE bytes of the target [default: whole target].
    #[arg(long)]
    pub span: Option<String>,
    /// What may be written: the file's size, overwriting, destroying a device's data.
    #[command(flatten)]
    pub write: TargetArgs,
    /// For reads of a block device: state that the span holds written data.
    #[arg(long)]
    pub assume_written: bool,
    /// I/O engine [default: io-uring].
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Seed for offsets, data and the read/write choice [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Print the results (the folder's summary.json, with the `run_id` it was recorded
    /// under) as one JSON object to stdout; the result line goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Where the run is recorded, and its origin.
    #[command(flatten)]
    pub record: RecordArgs,
}

/// `--pattern` of `recovery` and `fill-sweep`: the patterns that write (also mixed with
/// reads), as a burst writes until the cache runs out; reads alone never fill it.
fn burst_patterns() -> impl clap::builder::TypedValueParser<Value = Pattern> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(
        Pattern::ALL
            .into_iter()
            .filter(|p| p.read_pct(None) < 100)
            .map(|p| PossibleValue::new(p.name()).help(p.help())),
    )
    .map(|name| {
        Pattern::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .expect("a pattern the parser lists")
    })
}

// The domain enums live in `workload`; the command line maps onto them here so that the
// modules below `config` never see clap types.
impl ValueEnum for UnitSystem {
    fn value_variants<'a>() -> &'a [Self] {
        &[UnitSystem::Decimal, UnitSystem::Binary]
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            UnitSystem::Decimal => {
                PossibleValue::new("decimal").help("Powers of 1000: kB, MB, GB, TB")
            }
            UnitSystem::Binary => {
                PossibleValue::new("binary").help("Powers of 1024: KiB, MiB, GiB, TiB")
            }
        })
    }
}

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
    /// When to stop.
    #[command(flatten)]
    pub stop: StopArgs,
    /// What may be written: the file's size, overwriting, destroying a device's data.
    #[command(flatten)]
    pub write: TargetArgs,
    /// Before writing, discard the span: BLKDISCARD on a block device, hole punching on a
    /// file; an emulated drive empties its cache.
    #[arg(long)]
    pub trim: bool,
    /// Before writing (and before --trim), erase the whole drive: on an NVMe namespace Format
    /// NVM with a user data erase (SES=1), keeping its block format; on a SATA drive ATA
    /// SECURITY ERASE UNIT with a temporary password (refused on a frozen drive, one whose
    /// security is enabled, and behind a USB bridge). Whole drives only, not partitions.
    #[arg(long)]
    pub secure_erase: bool,
    /// Before writing (and before --trim), empty the whole NVMe drive with a Sanitize block
    /// erase: EVERY namespace of its controller is erased, not only TARGET. Refused where
    /// the controller has no block erase (SANICAP), where any of its namespaces is in use,
    /// and on partitions; progress from the Sanitize Status log. Not with --secure-erase.
    #[arg(long, conflicts_with = "secure_erase")]
    pub sanitize: bool,
    /// Before the measured run, write this share of the target sequentially (128k, QD32,
    /// from its start), kept out of the timeline: measures the cache at a fill level (50 or
    /// 50%).
    #[arg(long, value_name = "PCT")]
    pub prefill: Option<String>,
    /// Before the measured run (after --trim and --prefill), wait this long so that the
    /// drive can fold its SLC cache (e.g. 10m).
    #[arg(long, value_name = "DUR")]
    pub idle_before: Option<String>,
    /// For reads of a block device: state that the span holds written data (otherwise the
    /// run warns that reads of never-written blocks measure nothing; see --prefill).
    #[arg(long)]
    pub assume_written: bool,
    /// I/O engine [default: io-uring].
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Polled completions (io_uring IORING_SETUP_IOPOLL), as fio's --hipri: the same as
    /// --engine io-uring-poll, or io-uring-cmd-poll with --engine io-uring-cmd. Needs poll
    /// queues (nvme.poll_queues=N on the kernel command line).
    #[arg(long)]
    pub hipri: bool,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Print the analysis as one JSON object to stdout (the same as summary.json's
    /// `analysis`); the result line goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Where the run is recorded, and its origin.
    #[command(flatten)]
    pub record: RecordArgs,
}

/// `slccache analyze`.
#[derive(Debug, Clone, Args)]
// analyze words --out, --units and --theme its own way. Every output flag is touched, in
// the order OutputArgs declares them, so that the completions list them in that order.
#[command(
    mut_arg("out", |a| a.help(
        "Write charts and reports to this folder. A folder that already holds files is refused \
         unless --force, or unless it is the run folder of the timeline being analysed"
    )),
    mut_arg("force", |a| a),
    mut_arg("units", |a| a.help("Units in charts and reports")),
    mut_arg("png_size", |a| a),
    mut_arg("theme", |a| a.help("Chart and report.html colours"))
)]
pub struct AnalyzeArgs {
    /// Timeline files: slccache timeline.csv (or its run folder), fio bandwidth logs,
    /// two-column CSVs, or DiskSPD XML results (run with -D -Rxml); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the analysis as one JSON object per file to stdout.
    #[arg(long)]
    pub json: bool,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
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
    /// Outputs (with the help of analyze's own --out, --units and --theme).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Where the run is recorded, and its origin.
    #[command(flatten)]
    pub record: RecordArgs,
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
    /// When to stop.
    #[command(flatten)]
    pub stop: StopArgs,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Before writing, discard the whole drive, as probe's --trim does: the model's drive
    /// empties its cache and holds no data.
    #[arg(long)]
    pub trim: bool,
    /// Before the measured run (after --trim), write this share of the drive sequentially
    /// (128k, QD32), kept out of the timeline: the cache at a fill level (50 or 50%).
    #[arg(long, value_name = "PCT")]
    pub prefill: Option<String>,
    /// Before the measured run (after --trim and --prefill), let the drive idle this long in
    /// virtual time, so that it folds its SLC cache as the model says (e.g. 10m).
    #[arg(long, value_name = "DUR")]
    pub idle_before: Option<String>,
    /// Print the analysis as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Where the run is recorded, and its origin.
    #[command(flatten)]
    pub record: RecordArgs,
}

/// `slccache info`.
#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// A block device (/dev/nvme0n1), a regular file, or an emulated drive (emu:PRESET[,k=v..]).
    pub target: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Units for sizes: decimal MB/GB or binary MiB/GiB.
    #[arg(long, value_enum, default_value_t = UnitSystem::Decimal)]
    pub units: UnitSystem,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
}

/// `slccache compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Runs: run folders, timeline.csv files or fio logs.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Names for the runs in the legend, comma-separated, one per run in order
    /// [default: each run's drive; where two runs share a drive, with what differs in their
    /// workloads, else their start time].
    #[arg(long, value_delimiter = ',')]
    pub label: Option<Vec<String>>,
    /// Line the runs up: from their start, or with every run's first cliff at 0.
    #[arg(long, value_enum, default_value_t = AlignArg::Start)]
    pub align: AlignArg,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Print the comparison (its summary.json) as one JSON object to stdout; the result
    /// line goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// The store that run ids name.
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Options shared by the burst experiments (`recovery`, `fill-sweep`).
#[derive(Debug, Clone, Args)]
pub struct BurstTargetArgs {
    /// A block device, a regular file, or an emulated drive (emu:PRESET[,k=v..]); with
    /// --simulate, a drive model (emu:PRESET, a preset name or a model TOML file).
    pub target: String,
    /// Run the drive model in virtual time (seconds of computing for hours of drive time).
    #[arg(long)]
    pub simulate: bool,
    /// After a confirmed cliff, keep writing this long before the burst stops; the hold grows
    /// to the length of the cache phase, up to 2 minutes [default: 30s].
    #[arg(long, value_name = "DUR")]
    pub after_cliff: Option<String>,
    /// Workload of the bursts [default: seqwrite, 128k, QD32]. --max-bytes caps each burst.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// What may be written: the file's size, overwriting, destroying a device's data.
    #[command(flatten)]
    pub write: TargetArgs,
    /// I/O engine [default: io-uring].
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// `-q/--quiet`.
    #[arg(short, long, help = QUIET_HELP)]
    pub quiet: bool,
    /// Print the results (the folder's summary.json, with the `run_id` it was recorded
    /// under) as one JSON object to stdout; the result text goes to stderr.
    #[arg(long)]
    pub json: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Where the run is recorded, and its origin.
    #[command(flatten)]
    pub record: RecordArgs,
}

/// `slccache recovery`.
#[derive(Debug, Clone, Args)]
pub struct RecoveryArgs {
    /// Idle times, comma-separated (e.g. 5s,15s,30s,60s,120s,300s); run in an order shuffled
    /// with --seed.
    #[arg(long, required = true)]
    pub idle: String,
    /// Target and workload.
    #[command(flatten)]
    pub common: BurstTargetArgs,
}

/// `slccache fill-sweep`.
#[derive(Debug, Clone, Args)]
pub struct FillSweepArgs {
    /// Fill levels in % of the span, rising.
    #[arg(long, default_value = "0,25,50,75,90")]
    pub levels: String,
    /// Idle time after each fill, so that the cache refills.
    #[arg(long, default_value = "30m")]
    pub idle: String,
    /// Before the first fill, discard the span: BLKDISCARD on a block device, hole punching
    /// on a file; an emulated drive empties its cache (the same flag as probe's `--trim`;
    /// `--trim-first` is its older name).
    #[arg(long = "trim", alias = "trim-first")]
    pub trim_first: bool,
    /// Target and workload.
    #[command(flatten)]
    pub common: BurstTargetArgs,
}
