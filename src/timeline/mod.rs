//! The timeline: one [`Sample`] per interval, plus what is known about the run ([`RunMeta`]).
//!
//! `timeline.csv` (see `docs/DESIGN.md`) is written row by row by [`CsvWriter`], flushed at the end of
//! every interval so that a crash loses at most one row, and read back by [`read_slccache_csv`].
//! Other formats (fio bandwidth logs, two-column CSVs) are read by [`import`].

pub mod bounded;
pub mod import;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The header of `timeline.csv`, in column order. Scripts depend on it.
pub const CSV_COLUMNS: [&str; 13] = [
    "t_s",
    "interval_s",
    "bytes",
    "bytes_total",
    "bytes_per_sec",
    "iops",
    "lat_p50_us",
    "lat_p99_us",
    "lat_max_us",
    "temp_c",
    "thermal_transitions",
    "cpu_pct",
    "cpu_wait_pct",
];

/// The extra columns of a timeline that has reads, after the columns above. In such a
/// timeline the columns above count writes only.
pub const READ_COLUMNS: [&str; 5] = [
    "read_bytes",
    "read_iops",
    "read_lat_p50_us",
    "read_lat_p99_us",
    "read_lat_max_us",
];

/// The reads of one sampling interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadStats {
    /// Bytes whose reads completed in the interval.
    pub bytes: u64,
    /// Reads completed per second.
    pub iops: f64,
    /// Median read latency in microseconds, if any read completed.
    pub lat_p50_us: Option<f64>,
    /// 99th percentile read latency in microseconds.
    pub lat_p99_us: Option<f64>,
    /// Largest read latency in microseconds.
    pub lat_max_us: Option<f64>,
}

/// What happened in one sampling interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// End of the interval, in seconds since the start of the run.
    pub t_s: f64,
    /// Real elapsed length of the interval in seconds (not the nominal interval).
    pub interval_s: f64,
    /// Bytes whose writes completed in this interval.
    pub bytes: u64,
    /// Bytes completed from the start of the run up to the end of this interval.
    pub bytes_total: u64,
    /// `bytes / interval_s`.
    pub bytes_per_sec: f64,
    /// Writes completed per second in this interval.
    pub iops: f64,
    /// Median submit-to-completion latency in microseconds, if any write completed.
    pub lat_p50_us: Option<f64>,
    /// 99th percentile latency in microseconds.
    pub lat_p99_us: Option<f64>,
    /// Largest latency in microseconds.
    pub lat_max_us: Option<f64>,
    /// Drive temperature in degrees Celsius at the end of the interval, where known.
    pub temp_c: Option<f64>,
    /// Thermal-management transitions the drive reported (its SMART log's Thermal Management
    /// Temperature 1 and 2 transition counts) from the start of the run to the end of this
    /// interval; None where the drive reports none (not NVMe, or an imported log).
    #[serde(default)]
    pub thermal_transitions: Option<u64>,
    /// Reads in this interval, for runs that read (the fields above then count writes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadStats>,
    /// CPU time the writer threads used in this interval, as a percentage of one core per
    /// job (thread CPU clock); None where not measured (imports, simulations, old files).
    #[serde(default)]
    pub cpu_pct: Option<f64>,
    /// Time the writer threads were ready to run but waited for a CPU (the scheduler's run
    /// queue), as a percentage of the interval per job; None where not measured.
    #[serde(default)]
    pub cpu_wait_pct: Option<f64>,
}

impl Sample {
    /// A sample of writes alone, known only by its time, length, bytes and rate (imports
    /// and synthetic timelines): no I/O count, latency, drive or CPU readings.
    pub fn written(
        t_s: f64,
        interval_s: f64,
        bytes: u64,
        bytes_total: u64,
        bytes_per_sec: f64,
    ) -> Sample {
        Sample {
            t_s,
            interval_s,
            bytes,
            bytes_total,
            bytes_per_sec,
            ..Sample::default()
        }
    }

    /// Start of the interval in seconds since the start of the run.
    pub fn t_start_s(&self) -> f64 {
        self.t_s - self.interval_s
    }

    /// Read throughput in bytes/s (0 without reads).
    pub fn read_bytes_per_sec(&self) -> f64 {
        match &self.read {
            Some(r) if self.interval_s > 0.0 => r.bytes as f64 / self.interval_s,
            _ => 0.0,
        }
    }
}

/// Identity of the target as far as it could be read (sysfs, ioctls, the drive model).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    /// The path or target string the user gave (`/dev/nvme0n1`, `emu:960evo-500g`, a file).
    pub path: String,
    /// "block", "file", "emulated" (an `emu:` drive) or "simulated" (a `sim:` model run in
    /// virtual time; runs recorded before it was told apart say "emulated", and their
    /// `sim:` path tells them).
    pub kind: String,
    /// Drive model, e.g. "Samsung SSD 960 EVO 500GB".
    pub model: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// Firmware revision.
    pub firmware: Option<String>,
    /// Capacity of the target in bytes.
    pub capacity_bytes: Option<u64>,
    /// Logical block size in bytes.
    pub logical_block_size: Option<u32>,
    /// Physical block size in bytes.
    pub physical_block_size: Option<u32>,
}

/// The workload that produced a timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// "randwrite" or "seqwrite" (or what an imported log said, e.g. "fio").
    pub pattern: String,
    /// Block size in bytes.
    pub block_size: Option<u64>,
    /// Queue depth per job.
    pub queue_depth: Option<u32>,
    /// Number of jobs (threads), each with its own queue.
    pub jobs: Option<u32>,
    /// Nominal sampling interval in seconds.
    pub interval_s: Option<f64>,
    /// The engine that ran it ("io_uring", "sync", "emulated", "simulated").
    pub engine: Option<String>,
    /// Bytes of the target written over (one pass), where known: without a cliff, the cache
    /// cannot be shown to be larger than this, however often the writes wrapped around it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_bytes: Option<u64>,
    /// The share of reads in a mixed or read run, percent (`--rwmix-read`, or 100 for a
    /// read pattern); absent for a run that only wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_pct: Option<u32>,
    /// The cliffs the run was asked to wait for (`--cliffs N`), when more than one; absent
    /// otherwise, and for imported logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliffs_asked: Option<usize>,
    /// The share of the drive written before the measured run (`--prefill`), percent; absent
    /// when there was none. A cache that prefill left full has no room to run out of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_pct: Option<f64>,
    /// How long the drive was left idle before the measured run (`--idle-before`), seconds;
    /// absent when it was not. A drive folds its cache while idle: a run after an idle is
    /// another starting state than one without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_before_s: Option<f64>,
}

impl Workload {
    /// The workload in a few words, as `runs` and `history` name it: `randwrite 4K QD32`,
    /// `seqwrite 1M QD8 x4`, `fio 1M`; `-` when nothing is known.
    pub fn in_words(&self) -> String {
        let mut parts = Vec::new();
        if !self.pattern.is_empty() {
            parts.push(self.pattern.clone());
        }
        if let Some(bs) = self.block_size {
            parts.push(block_words(bs));
        }
        if let Some(qd) = self.queue_depth {
            parts.push(format!("QD{qd}"));
        }
        if let Some(j) = self.jobs.filter(|&j| j > 1) {
            parts.push(format!("x{j}"));
        }
        if let Some(p) = self.prefill_pct {
            parts.push(format!("prefill {p}%"));
        }
        if let Some(s) = self.idle_before_s {
            // As `--idle-before` takes it: `idle 10m`, `idle 90s`.
            let d = if s >= 3600.0 && s % 3600.0 == 0.0 {
                format!("{}h", s / 3600.0)
            } else if s >= 60.0 && s % 60.0 == 0.0 {
                format!("{}m", s / 60.0)
            } else {
                format!("{s}s")
            };
            parts.push(format!("idle {d}"));
        }
        if parts.is_empty() {
            "-".into()
        } else {
            parts.join(" ")
        }
    }
}

/// A block size in the few words of [`Workload::in_words`]: `4K`, `128K`, `1M`, `512B`.
pub fn block_words(bs: u64) -> String {
    if bs >= 1 << 20 && bs.is_multiple_of(1 << 20) {
        format!("{}M", bs >> 20)
    } else if bs >= 1024 && bs.is_multiple_of(1024) {
        format!("{}K", bs >> 10)
    } else {
        format!("{bs}B")
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// `--duration` was reached.
    Duration,
    /// `--max-bytes` (or a scenario's `max_bytes`) was written: only when it was given and
    /// was the limit that ended the run.
    MaxBytes,
    /// One pass over the span was written: the limit of a run given no `--max-bytes` (with or
    /// without `--duration`, whichever comes first).
    SpanWritten,
    /// A scenario's `passes` over the span were written.
    PassesWritten,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// A write failed; see the error in the summary.
    WriteError,
    /// The run's own outputs could not be written (its timeline, on a full disk): the drive
    /// did not fail; see the error in the summary.
    OutputError,
    /// The source ended (imported logs, simulations).
    EndOfData,
    /// The early stop: a cliff was confirmed and the level after it held for the hold time
    /// ([`crate::detect::stop`]).
    CliffConfirmed,
    /// The early stop: the rate fell inside the first sample, too early for the sampling to
    /// measure the cache, and the hold time after it passed ([`crate::detect::stop`]). The
    /// reason does not say the level after the drop held: under heat it can fall again.
    FirstSampleDrop,
}

impl StopReason {
    /// The reason in words, for a run whose figures are of bytes `moved` (a past participle:
    /// `written`, or `read` for a run that only read, as
    /// [`crate::detect::Findings::moved`] gives it): `one pass over the span read`. The
    /// `Display` form is a writing run's.
    pub fn text(self, moved: &str) -> String {
        match self {
            StopReason::Duration => "duration reached".into(),
            StopReason::MaxBytes => "byte limit reached".into(),
            StopReason::SpanWritten => format!("one pass over the span {moved}"),
            StopReason::PassesWritten => format!("the scenario's passes over the span {moved}"),
            StopReason::Interrupted => "interrupted".into(),
            StopReason::WriteError => "write error".into(),
            StopReason::OutputError => "its outputs could not be written".into(),
            StopReason::EndOfData => "end of data".into(),
            StopReason::CliffConfirmed => "cliff confirmed".into(),
            StopReason::FirstSampleDrop => {
                "the hold time after a drop inside the first sample passed (sample more often)"
                    .into()
            }
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text("written"))
    }
}

/// What is known about the run beyond the samples; used by reports for titles and footers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The target.
    pub device: DeviceIdentity,
    /// The workload.
    pub workload: Workload,
    /// When the run started (RFC 3339), if known.
    pub started_at: Option<chrono::DateTime<chrono::Utc>>,
    /// Why it stopped, if known.
    pub stop_reason: Option<StopReason>,
    /// A short label for legends and titles (drive name or file stem).
    pub label: String,
    /// The slccache version that produced it.
    pub slccache_version: String,
    /// When the samples of this timeline were merged to keep memory bounded
    /// ([`bounded::Kept`]): how far. `None` (and absent from `summary.json`) when every
    /// sample was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<bounded::Resolution>,
    /// Whether the rows are a log of rates (a fio bandwidth log, a two-column CSV of times),
    /// each row's rate taken over all the time since the row before: then a row after a late
    /// or missing window holds bytes assumed, not read (`import::late_rows_note`). In
    /// `summary.json` as `run.rate_log` (absent when `false`), so that the `timeline.csv`
    /// written beside it, analysed again, says so too. `false` for rows slccache sampled,
    /// whose every byte was counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_log: bool,
}

/// A whole run: samples in time order and the run's metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Samples in time order.
    pub samples: Vec<Sample>,
    /// What produced them.
    pub meta: RunMeta,
}

impl Timeline {
    /// Total bytes written (the last sample's running total).
    pub fn bytes_total(&self) -> u64 {
        self.samples.last().map(|s| s.bytes_total).unwrap_or(0)
    }
    /// Duration covered, in seconds (end of the last interval).
    pub fn duration_s(&self) -> f64 {
        self.samples.last().map(|s| s.t_s).unwrap_or(0.0)
    }
    /// True when any sample carries reads (the timeline has the read columns).
    pub fn has_reads(&self) -> bool {
        self.samples.iter().any(|s| s.read.is_some())
    }

    /// Total bytes read.
    pub fn read_bytes_total(&self) -> u64 {
        self.samples
            .iter()
            .filter_map(|s| s.read.as_ref().map(|r| r.bytes))
            .sum()
    }

    /// Reads completed over the run, from the read columns (each interval's read IOPS times its
    /// length, summed and rounded).
    pub fn reads_total(&self) -> u64 {
        self.samples
            .iter()
            .filter_map(|s| s.read.as_ref().map(|r| r.iops * s.interval_s))
            .sum::<f64>()
            .round() as u64
    }

    /// The series the detector looks at: the timeline itself when it writes, and for a run
    /// that only reads, a copy whose main columns are the reads (so that a read run's
    /// slowdowns are found like a write run's).
    pub fn primary(&self) -> std::borrow::Cow<'_, Timeline> {
        if self.bytes_total() > 0 || !self.has_reads() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut t = self.clone();
        // The envelope of merged samples is of the write rates: not the reads'.
        if let Some(r) = &mut t.meta.resolution {
            r.envelope.clear();
        }
        let mut total = 0u64;
        for s in &mut t.samples {
            if let Some(r) = s.read.take() {
                total += r.bytes;
                s.bytes = r.bytes;
                s.bytes_per_sec = if s.interval_s > 0.0 {
                    r.bytes as f64 / s.interval_s
                } else {
                    0.0
                };
                s.iops = r.iops;
                s.lat_p50_us = r.lat_p50_us;
                s.lat_p99_us = r.lat_p99_us;
                s.lat_max_us = r.lat_max_us;
            }
            s.bytes_total = total;
        }
        std::borrow::Cow::Owned(t)
    }

    /// Median interval length in seconds (0 when empty).
    pub fn interval_s(&self) -> f64 {
        let mut v: Vec<f64> = self.samples.iter().map(|s| s.interval_s).collect();
        if v.is_empty() {
            return 0.0;
        }
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    }
    /// Builds a timeline from per-interval rates alone (imported logs, generated traces): bytes
    /// are the integral of the rate over each interval, rounded to whole bytes, with the running
    /// total kept exact.
    pub fn from_rates(points: &[(f64, f64, f64)], meta: RunMeta) -> Timeline {
        // points: (t_end_s, interval_s, bytes_per_sec)
        let mut rates = RateSampler::default();
        let samples = points
            .iter()
            .map(|&(t, dt, r)| rates.sample(t, dt, r))
            .collect();
        Timeline { samples, meta }
    }
}

/// Turns (t_end_s, interval_s, bytes_per_sec) points into samples one at a time, as
/// [`Timeline::from_rates`] does for a whole slice: the bytes of each sample are the rounded
/// running total of rate x interval minus the total before it, so no byte is lost to rounding.
#[derive(Debug, Clone, Default)]
pub(crate) struct RateSampler {
    total: u64,
    exact: f64,
}

impl RateSampler {
    /// The sample of the next point.
    pub(crate) fn sample(&mut self, t: f64, dt: f64, r: f64) -> Sample {
        self.exact += r * dt;
        let new_total = self.exact.round().max(0.0) as u64;
        let bytes = new_total.saturating_sub(self.total);
        self.total = new_total;
        Sample::written(t, dt, bytes, self.total, r)
    }
}

/// Writes `timeline.csv` one row at a time, flushing each row to the file.
pub struct CsvWriter {
    out: BufWriter<File>,
    reads: bool,
}

/// Writes `v` with `decimals` decimals (as `format!("{v:.decimals$}")`), nothing for `None`.
fn put_opt<W: Write>(out: &mut W, v: Option<f64>, decimals: usize) -> std::io::Result<()> {
    match v {
        Some(x) => write!(out, "{x:.decimals$}"),
        None => Ok(()),
    }
}

/// Writes one `timeline.csv` row (without the line end) to `out`; with `reads`, the read
/// columns follow. Every number goes straight through `write!` into `out`: no `String` is
/// built per row or per cell. The `iops` cell is blank when unknown (bytes written but no
/// write counted, as in imported logs, which carry throughput only), else one decimal.
fn write_row<W: Write>(out: &mut W, s: &Sample, reads: bool) -> std::io::Result<()> {
    write!(
        out,
        "{:.6},{:.6},{},{},{:.1},",
        s.t_s, s.interval_s, s.bytes, s.bytes_total, s.bytes_per_sec
    )?;
    if !(s.iops == 0.0 && s.bytes > 0) {
        write!(out, "{:.1}", s.iops)?;
    }
    out.write_all(b",")?;
    put_opt(out, s.lat_p50_us, 3)?;
    out.write_all(b",")?;
    put_opt(out, s.lat_p99_us, 3)?;
    out.write_all(b",")?;
    put_opt(out, s.lat_max_us, 3)?;
    out.write_all(b",")?;
    put_opt(out, s.temp_c, 1)?;
    out.write_all(b",")?;
    if let Some(n) = s.thermal_transitions {
        write!(out, "{n}")?;
    }
    out.write_all(b",")?;
    put_opt(out, s.cpu_pct, 1)?;
    out.write_all(b",")?;
    put_opt(out, s.cpu_wait_pct, 1)?;
    if reads {
        let none = ReadStats::default();
        let r = s.read.as_ref().unwrap_or(&none);
        write!(out, ",{},{:.1},", r.bytes, r.iops)?;
        put_opt(out, r.lat_p50_us, 3)?;
        out.write_all(b",")?;
        put_opt(out, r.lat_p99_us, 3)?;
        out.write_all(b",")?;
        put_opt(out, r.lat_max_us, 3)?;
    }
    Ok(())
}

impl Timeline {
    /// The `timeline.csv` text of this timeline: the header and one row per sample.
    pub fn csv_text(&self) -> String {
        let reads = self.has_reads();
        let mut head = CSV_COLUMNS.join(",");
        if reads {
            head.push(',');
            head.push_str(&READ_COLUMNS.join(","));
        }
        let mut out = (head + "\n").into_bytes();
        for s in &self.samples {
            // Writing to a Vec cannot fail.
            let _ = write_row(&mut out, s, reads);
            out.push(b'\n');
        }
        // Every byte written is ASCII: the header, digits, signs, points and commas.
        String::from_utf8(out).expect("timeline.csv text is ASCII")
    }

    /// This timeline as its `timeline.csv` holds it (values rounded as the file writes them),
    /// so that charts drawn from it are the charts drawn from the file (`runs export`, a saved
    /// run analysed again). Each sample is formatted as its row and read back on its own, so
    /// no text of the whole timeline is built. A timeline that does not survive the round
    /// trip is returned as it is.
    pub fn as_written(&self) -> Timeline {
        let reads = self.has_reads();
        let cols = Columns::written(reads);
        let mut rec = csv::StringRecord::new();
        let mut samples = Vec::with_capacity(self.samples.len());
        let mut buf = Vec::with_capacity(160);
        for s in &self.samples {
            buf.clear();
            // Writing to a Vec cannot fail; every byte written is ASCII.
            let _ = write_row(&mut buf, s, reads);
            let row = std::str::from_utf8(&buf).unwrap_or_default();
            rec.clear();
            for cell in row.split(',') {
                rec.push_field(cell.trim());
            }
            match cols.sample(&rec, "timeline.csv", samples.len() + 2) {
                Ok(w) => samples.push(w),
                Err(_) => return self.clone(),
            }
        }
        Timeline {
            samples,
            meta: self.meta.clone(),
        }
    }
}

impl CsvWriter {
    /// Creates (truncates) `path` and writes the header.
    pub fn create(path: &Path) -> std::io::Result<CsvWriter> {
        CsvWriter::create_with_reads(path, false)
    }

    /// Creates `path` with the header; with `reads`, the read columns ([`READ_COLUMNS`]) are
    /// appended after the others (a pure write run keeps the old header).
    pub fn create_with_reads(path: &Path, reads: bool) -> std::io::Result<CsvWriter> {
        let f = File::create(path)?;
        let mut out = BufWriter::new(f);
        let mut head = CSV_COLUMNS.join(",");
        if reads {
            head.push(',');
            head.push_str(&READ_COLUMNS.join(","));
        }
        if let Err(e) = writeln!(out, "{head}").and_then(|_| out.flush()) {
            // A full disk before the header: no empty timeline.csv is left behind to be read
            // as a run. Only a regular file this call made empty is removed (never a device
            // such as /dev/full).
            drop(out);
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
        Ok(CsvWriter { out, reads })
    }

    /// Appends one row and flushes it to the kernel.
    pub fn append(&mut self, s: &Sample) -> std::io::Result<()> {
        write_row(&mut self.out, s, self.reads)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    /// Appends one row, buffered (for a file written in one go; [`CsvWriter::flush`] after
    /// the last row).
    pub fn append_buffered(&mut self, s: &Sample) -> std::io::Result<()> {
        write_row(&mut self.out, s, self.reads)?;
        self.out.write_all(b"\n")
    }

    /// Flushes the rows appended with [`CsvWriter::append_buffered`] to the kernel.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// Writes a whole timeline to `path`.
    pub fn write_all(path: &Path, t: &Timeline) -> std::io::Result<()> {
        let mut w = CsvWriter::create_with_reads(path, t.has_reads())?;
        for s in &t.samples {
            w.append(s)?;
        }
        Ok(())
    }
}

/// Reads a `timeline.csv` written by slccache. Errors name the line.
pub fn read_slccache_csv(text: &str, file: &str) -> Result<Vec<Sample>, import::ImportError> {
    let mut out = Vec::new();
    read_slccache_rows(text.as_bytes(), file, |s, _| {
        out.push(s);
        Ok(())
    })?;
    Ok(out)
}

/// Reads a `timeline.csv` written by slccache from `r` row by row, giving each sample and its
/// line number to `each` (nothing but the row being read is held). Errors name the line.
pub fn read_slccache_rows(
    r: impl std::io::Read,
    file: &str,
    mut each: impl FnMut(Sample, usize) -> Result<(), import::ImportError>,
) -> Result<(), import::ImportError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(r);
    let headers = rdr
        .headers()
        .map_err(|e| import::ImportError::at(file, 1, format!("cannot read the header: {e}")))?
        .clone();
    let cols = Columns::of(&headers, file)?;
    let mut rec = csv::StringRecord::new();
    let mut n = 0;
    loop {
        let line = n + 2;
        match rdr.read_record(&mut rec) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(import::ImportError::at(file, line, e.to_string())),
        }
        each(cols.sample(&rec, file, line)?, line)?;
        n += 1;
    }
}

/// Where each column of a slccache timeline is (columns are found by name, in any order).
struct Columns {
    cols: Vec<Option<usize>>,
    has_reads: bool,
}

fn name_of(k: usize) -> Option<&'static str> {
    CSV_COLUMNS
        .iter()
        .chain(READ_COLUMNS.iter())
        .nth(k)
        .copied()
}

impl Columns {
    /// The columns of `headers`; an error when one of the first five is missing.
    fn of(headers: &csv::StringRecord, file: &str) -> Result<Columns, import::ImportError> {
        let idx = |name: &str| headers.iter().position(|h| h == name);
        let cols: Vec<Option<usize>> = CSV_COLUMNS
            .iter()
            .chain(READ_COLUMNS.iter())
            .map(|c| idx(c))
            .collect();
        // Reads are there when the read byte column is.
        let has_reads = cols[CSV_COLUMNS.len()].is_some();
        for (i, c) in CSV_COLUMNS.iter().enumerate().take(5) {
            if cols[i].is_none() {
                return Err(import::ImportError::at(
                    file,
                    1,
                    format!("missing column '{c}' in a slccache timeline"),
                ));
            }
        }
        Ok(Columns { cols, has_reads })
    }

    /// The columns of a timeline as slccache writes it ([`CSV_COLUMNS`], then
    /// [`READ_COLUMNS`] with `reads`).
    fn written(reads: bool) -> Columns {
        let n = CSV_COLUMNS.len() + if reads { READ_COLUMNS.len() } else { 0 };
        let mut cols: Vec<Option<usize>> = (0..n).map(Some).collect();
        cols.resize(CSV_COLUMNS.len() + READ_COLUMNS.len(), None);
        Columns {
            cols,
            has_reads: reads,
        }
    }

    /// The sample of one row (line `line` of `file`).
    fn sample(
        &self,
        rec: &csv::StringRecord,
        file: &str,
        line: usize,
    ) -> Result<Sample, import::ImportError> {
        let cols = &self.cols;
        let get_f = |k: usize| -> Result<Option<f64>, import::ImportError> {
            match cols[k].and_then(|c| rec.get(c)) {
                None | Some("") => Ok(None),
                Some(v) => {
                    let x: f64 = v.parse().map_err(|_| {
                        import::ImportError::at(
                            file,
                            line,
                            format!(
                                "column '{}' is not a number: '{v}'",
                                name_of(k).unwrap_or("?")
                            ),
                        )
                    })?;
                    // A temperature may be below zero (slccache writes what the sensor says);
                    // every other column is a count, a time or a rate.
                    let temp = name_of(k) == Some("temp_c");
                    if !x.is_finite() || (x < 0.0 && !temp) {
                        return Err(import::ImportError::at(
                            file,
                            line,
                            format!(
                                "column '{}' must be finite and non-negative, got '{v}'",
                                name_of(k).unwrap_or("?")
                            ),
                        ));
                    }
                    Ok(Some(x))
                }
            }
        };
        let need = |k: usize| -> Result<f64, import::ImportError> {
            get_f(k)?.ok_or_else(|| {
                import::ImportError::at(file, line, format!("empty '{}'", CSV_COLUMNS[k]))
            })
        };
        let n = CSV_COLUMNS.len();
        let read = if self.has_reads {
            Some(ReadStats {
                bytes: get_f(n)?.unwrap_or(0.0) as u64,
                iops: get_f(n + 1)?.unwrap_or(0.0),
                lat_p50_us: get_f(n + 2)?,
                lat_p99_us: get_f(n + 3)?,
                lat_max_us: get_f(n + 4)?,
            })
        } else {
            None
        };
        // Times and byte counts no run has (1e30 s) would overflow the byte totals: a broken
        // file, refused by its line as a rate above any drive's is.
        let plausible = |k: usize, limit: f64, what: &str| -> Result<f64, import::ImportError> {
            let v = need(k)?;
            if v > limit {
                return Err(import::ImportError::at(
                    file,
                    line,
                    format!(
                        "column '{}' says {v:e}, implausible: more than {what}; a broken file",
                        CSV_COLUMNS[k]
                    ),
                ));
            }
            Ok(v)
        };
        let secs = "1e10 s (300 years)";
        let bytes = "1e18 bytes (1 EB)";
        Ok(Sample {
            t_s: plausible(0, import::MAX_TIME_S, secs)?,
            interval_s: plausible(1, import::MAX_TIME_S, secs)?,
            bytes: plausible(2, import::MAX_BYTES, bytes)? as u64,
            bytes_total: plausible(3, import::MAX_BYTES, bytes)? as u64,
            bytes_per_sec: need(4)?,
            iops: get_f(5)?.unwrap_or(0.0),
            lat_p50_us: get_f(6)?,
            lat_p99_us: get_f(7)?,
            lat_max_us: get_f(8)?,
            temp_c: get_f(9)?,
            thermal_transitions: get_f(10)?.map(|x| x.round() as u64),
            cpu_pct: get_f(11)?,
            cpu_wait_pct: get_f(12)?,
            read,
        })
    }
}

#[cfg(test)]
mod tests {

    /// `csv_text` is what `CsvWriter` writes, and `as_written` is what reading it gives.
    #[test]
    fn csv_text_matches_the_writer_and_as_written_reads_it() {
        let mut t = Timeline::from_rates(
            &[(1.0, 1.0, 1e9 + 0.123_456), (2.0, 1.0, 3.3e8 + 0.987)],
            RunMeta::default(),
        );
        t.samples[0].lat_p50_us = Some(12.345_678);
        t.samples[1].cpu_pct = Some(33.333_33);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.csv");
        CsvWriter::write_all(&p, &t).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), t.csv_text());
        let w = t.as_written();
        let back = read_slccache_csv(&t.csv_text(), "x").unwrap();
        assert_eq!(w.samples, back);
        assert_eq!(w.samples[0].lat_p50_us, Some(12.346));
        assert_eq!(w.samples[1].cpu_pct, Some(33.3));
        assert_ne!(w.samples, t.samples);
    }

    use super::*;

    /// The row formatter as it was before rows were written straight into the writer
    /// (`format!` per row and per cell), kept to check that the text is byte for byte the same.
    fn old_csv_row(s: &Sample, reads: bool) -> String {
        fn opt(v: Option<f64>) -> String {
            match v {
                Some(x) => format!("{x:.3}"),
                None => String::new(),
            }
        }
        fn iops_cell(s: &Sample) -> String {
            if s.iops == 0.0 && s.bytes > 0 {
                String::new()
            } else {
                format!("{:.1}", s.iops)
            }
        }
        let mut row = format!(
            "{:.6},{:.6},{},{},{:.1},{},{},{},{},{},{},{},{}",
            s.t_s,
            s.interval_s,
            s.bytes,
            s.bytes_total,
            s.bytes_per_sec,
            iops_cell(s),
            opt(s.lat_p50_us),
            opt(s.lat_p99_us),
            opt(s.lat_max_us),
            s.temp_c.map(|t| format!("{t:.1}")).unwrap_or_default(),
            s.thermal_transitions
                .map(|n| n.to_string())
                .unwrap_or_default(),
            s.cpu_pct.map(|t| format!("{t:.1}")).unwrap_or_default(),
            s.cpu_wait_pct
                .map(|t| format!("{t:.1}"))
                .unwrap_or_default(),
        );
        if reads {
            let r = s.read.clone().unwrap_or_default();
            row += &format!(
                ",{},{:.1},{},{},{}",
                r.bytes,
                r.iops,
                opt(r.lat_p50_us),
                opt(r.lat_p99_us),
                opt(r.lat_max_us)
            );
        }
        row
    }

    /// Samples with every optional cell set and unset in turn, values that round at the
    /// last written decimal, ties, negative and very large numbers, blank iops, reads.
    fn awkward_samples() -> Vec<Sample> {
        let values = [
            0.0,
            -0.0,
            0.5,
            2.5,
            0.05,
            0.25,
            97.25,
            -4.5,
            -0.04,
            0.000_5,
            0.000_000_5,
            1.0 / 3.0,
            12.345_678_9,
            999.999_95,
            1e9 + 0.123_456,
            3.3e8,
            1.5e15,
            1e22,
            -273.15,
            1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            123_456.789_012_345,
            0.1 + 0.2,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for i in 0..2000usize {
            // Twenty draws per sample, taken up front.
            let r: Vec<u64> = (0..20).map(|_| next()).collect();
            let pick = |j: usize| values[(r[j] % values.len() as u64) as usize];
            // A number with any exponent now and then.
            let wild = f64::from_bits(r[19] >> 1);
            let set = r[18];
            let o = |bit: u64, v: f64| (set >> bit & 1 == 1).then_some(v);
            let shift = (r[17] % 64) as u32;
            let s = Sample {
                t_s: if i % 5 == 0 { wild } else { pick(0) },
                interval_s: pick(1),
                bytes: if i % 7 == 0 { 0 } else { r[2] >> shift },
                bytes_total: r[3],
                bytes_per_sec: pick(4),
                // iops 0 with bytes written is the blank cell
                iops: if i % 3 == 0 { 0.0 } else { pick(5) },
                lat_p50_us: o(0, pick(6)),
                lat_p99_us: o(1, wild),
                lat_max_us: o(2, pick(7)),
                temp_c: o(3, if i % 2 == 0 { -pick(8).abs() } else { pick(8) }),
                thermal_transitions: (set >> 4 & 1 == 1).then_some(r[9] >> shift),
                read: (set >> 5 & 1 == 1).then(|| ReadStats {
                    bytes: r[10] >> shift,
                    iops: pick(11),
                    lat_p50_us: o(6, pick(12)),
                    lat_p99_us: o(7, pick(13)),
                    lat_max_us: o(8, wild),
                }),
                cpu_pct: o(9, pick(14)),
                cpu_wait_pct: o(10, pick(15)),
            };
            out.push(s);
        }
        out
    }

    /// Rows are written straight into the writer now; the file's text is byte for
    /// byte what the old `format!` formatter made, with and without the read columns.
    #[test]
    fn rows_are_byte_identical_to_the_old_formatter() {
        let samples = awkward_samples();
        // Every optional cell is seen set and unset.
        assert!(
            samples.iter().any(|s| s.read.is_some()) && samples.iter().any(|s| s.read.is_none())
        );
        assert!(samples.iter().any(|s| s.temp_c.is_some_and(|t| t < 0.0)));
        assert!(samples.iter().any(|s| s.iops == 0.0 && s.bytes > 0));
        let dir = tempfile::tempdir().unwrap();
        for reads in [false, true] {
            let p = dir.path().join(format!("timeline-{reads}.csv"));
            let mut w = CsvWriter::create_with_reads(&p, reads).unwrap();
            let mut head = CSV_COLUMNS.join(",");
            if reads {
                head = format!("{head},{}", READ_COLUMNS.join(","));
            }
            let mut want = head + "\n";
            for s in &samples {
                w.append(s).unwrap();
                want += &old_csv_row(s, reads);
                want.push('\n');
            }
            drop(w);
            let got = std::fs::read_to_string(&p).unwrap();
            for (i, (g, o)) in got.lines().zip(want.lines()).enumerate() {
                assert_eq!(g, o, "row {i} (reads {reads})");
            }
            assert_eq!(got, want);
            let t = Timeline {
                samples: samples.clone(),
                meta: RunMeta::default(),
            };
            if reads {
                assert_eq!(t.csv_text(), want);
            }
        }
    }

    #[test]
    fn csv_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.csv");
        let t = Timeline::from_rates(&[(1.0, 1.0, 100.0), (2.0, 1.0, 50.5)], RunMeta::default());
        CsvWriter::write_all(&p, &t).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with(&CSV_COLUMNS.join(",")));
        let back = read_slccache_csv(&text, "timeline.csv").unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].bytes_total, 151);
        assert_eq!(back[0].lat_p50_us, None);
        assert_eq!(back[0].cpu_pct, None);
    }

    #[test]
    fn cpu_columns_round_trip_and_old_files_still_load() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.csv");
        let mut t = Timeline::from_rates(&[(1.0, 1.0, 100.0)], RunMeta::default());
        t.samples[0].cpu_pct = Some(97.25);
        t.samples[0].cpu_wait_pct = Some(1.5);
        CsvWriter::write_all(&p, &t).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text
            .lines()
            .next()
            .unwrap()
            .ends_with(",temp_c,thermal_transitions,cpu_pct,cpu_wait_pct"));
        let back = read_slccache_csv(&text, "timeline.csv").unwrap();
        assert_eq!(back[0].cpu_pct, Some(97.2)); // one decimal, as written (97.25 rounds to even)
        assert_eq!(back[0].cpu_wait_pct, Some(1.5));
        // A timeline written before the CPU columns existed.
        let old = "t_s,interval_s,bytes,bytes_total,bytes_per_sec,iops,lat_p50_us,lat_p99_us,lat_max_us,temp_c\n\
                   1.000000,1.000000,100,100,100.0,1.0,,,,\n";
        let back = read_slccache_csv(old, "old.csv").unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].cpu_pct, None);
        assert_eq!(back[0].cpu_wait_pct, None);
    }

    /// Found by tests/timeline/parsers_prop.rs: a timeline with a temperature below zero, as written,
    /// could not be read back.
    #[test]
    fn a_temperature_below_zero_reads_back() {
        let text = format!(
            "{}\n1.0,1.0,100,100,100.0,1.0,,,,-4.5,,,\n",
            CSV_COLUMNS.join(",")
        );
        let back = read_slccache_csv(&text, "timeline.csv").unwrap();
        assert_eq!(back[0].temp_c, Some(-4.5));
        let bad = format!(
            "{}\n1.0,1.0,100,100,-100.0,1.0,,,,,,,\n",
            CSV_COLUMNS.join(",")
        );
        assert!(read_slccache_csv(&bad, "timeline.csv").is_err());
    }

    #[test]
    fn read_columns_round_trip_and_are_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("timeline.csv");
        let mut t =
            Timeline::from_rates(&[(1.0, 1.0, 100.0), (2.0, 1.0, 50.0)], RunMeta::default());
        t.samples[1].read = Some(ReadStats {
            bytes: 4096,
            iops: 1.0,
            lat_p50_us: Some(80.0),
            lat_p99_us: Some(90.0),
            lat_max_us: Some(95.5),
        });
        CsvWriter::write_all(&p, &t).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let head = text.lines().next().unwrap();
        assert_eq!(
            head,
            format!("{},{}", CSV_COLUMNS.join(","), READ_COLUMNS.join(","))
        );
        let back = read_slccache_csv(&text, "t.csv").unwrap();
        assert_eq!(back[1].read.as_ref().unwrap().bytes, 4096);
        assert_eq!(back[1].read.as_ref().unwrap().lat_max_us, Some(95.5));
        assert_eq!(back[0].read.as_ref().unwrap().bytes, 0);
        // Another helper's column between the write and read columns, and columns moved
        // around: still read by name.
        let shuffled =
            "read_bytes,t_s,interval_s,bytes,bytes_total,bytes_per_sec,cpu_pct,read_iops\n\
                        8192,1.0,1.0,10,10,10.0,12.5,2.0\n";
        let back = read_slccache_csv(shuffled, "s.csv").unwrap();
        assert_eq!(back[0].bytes, 10);
        assert_eq!(back[0].read.as_ref().unwrap().bytes, 8192);
        assert_eq!(back[0].read.as_ref().unwrap().iops, 2.0);
        // A pure write timeline has no read columns and reads back without reads.
        let w = Timeline::from_rates(&[(1.0, 1.0, 100.0)], RunMeta::default());
        CsvWriter::write_all(&p, &w).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().next().unwrap(), CSV_COLUMNS.join(","));
        assert!(read_slccache_csv(&text, "w.csv").unwrap()[0].read.is_none());
    }

    #[test]
    fn a_read_only_timeline_is_analysed_on_its_reads() {
        let mut t = Timeline::from_rates(&[(1.0, 1.0, 0.0), (2.0, 1.0, 0.0)], RunMeta::default());
        for s in &mut t.samples {
            s.read = Some(ReadStats {
                bytes: 1000,
                iops: 10.0,
                ..ReadStats::default()
            });
        }
        let p = t.primary();
        assert_eq!(p.bytes_total(), 2000);
        assert_eq!(p.samples[1].bytes_per_sec, 1000.0);
        assert!(p.samples[0].read.is_none());
    }

    #[test]
    fn from_rates_conserves_bytes() {
        let pts: Vec<(f64, f64, f64)> = (1..=100).map(|i| (i as f64 * 0.1, 0.1, 333.3)).collect();
        let t = Timeline::from_rates(&pts, RunMeta::default());
        let sum: u64 = t.samples.iter().map(|s| s.bytes).sum();
        assert_eq!(sum, t.bytes_total());
        assert_eq!(t.bytes_total(), 3333);
    }
}
