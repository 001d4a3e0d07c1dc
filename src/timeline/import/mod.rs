//! Reading timelines from files: slccache `timeline.csv`, fio bandwidth logs, two-column CSVs,
//! DiskSPD XML results with per-interval IOPS (`diskspd.rs`).
//!
//! Every error names the file and the line so that a user can fix the input.

use std::path::Path;

use super::bounded::Kept;
use super::{read_slccache_csv, read_slccache_rows, RunMeta, Sample, Timeline};

pub use error::ImportError;

mod dialect;
mod diskspd;
mod error;
mod stream;

/// Units for a two-column CSV that has no header (from `--time-unit` and `--rate-unit`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportOptions {
    /// Seconds per unit of the time column (1 for s, 0.001 for ms).
    pub time_scale: Option<f64>,
    /// Bytes/s per unit of the rate column (1e6 for MB/s, 1048576 for MiB/s, ...).
    pub rate_scale: Option<f64>,
}

/// [`ImportOptions`] plus what the first column of a two-column CSV is.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadOptions {
    /// Units of a headerless two-column CSV.
    pub units: ImportOptions,
    /// The first column is a position (data written), in bytes per unit (`--x bytes
    /// --x-unit MiB`: 1048576), not a time.
    pub position_scale: Option<f64>,
}

/// The unit flags given (`--time-unit`, `--rate-unit`, `--x/--x-unit`), for the note that
/// a format carrying its own units ignores them.
fn unit_flags(opts: &Opts) -> Vec<&'static str> {
    let mut flags = vec![];
    if opts.time_scale.is_some() {
        flags.push("--time-unit");
    }
    if opts.rate_scale.is_some() {
        flags.push("--rate-unit");
    }
    if opts.position_scale.is_some() {
        flags.push("--x/--x-unit");
    }
    flags
}

/// The options as the readers below use them.
#[derive(Debug, Clone, Copy)]
struct Opts {
    time_scale: Option<f64>,
    rate_scale: Option<f64>,
    position_scale: Option<f64>,
}

impl From<&ReadOptions> for Opts {
    fn from(o: &ReadOptions) -> Opts {
        Opts {
            time_scale: o.units.time_scale,
            rate_scale: o.units.rate_scale,
            position_scale: o.position_scale,
        }
    }
}

/// Fastest rate accepted in any input, bytes/s (1 TB/s: ten times the fastest PCIe 5 x16 link).
/// Anything above it is a broken log, and would overflow the byte totals.
pub const MAX_RATE: f64 = 1e12;

/// Latest time accepted in any input, seconds (1e10 s, some 300 years: past any Unix epoch
/// time in seconds). Anything later is a broken log, and would overflow the byte totals.
pub const MAX_TIME_S: f64 = 1e10;

/// Most bytes a timeline may count (1e18, 1 EB): more than any drive holds, or could write in
/// [`MAX_TIME_S`] at a plausible rate without overflowing.
pub const MAX_BYTES: f64 = 1e18;

/// Longest span of a per-I/O fio log, seconds (11.6 days): its writes are summed into
/// intervals of at most 1 s, one counter each.
const MAX_PER_IO_SPAN_S: f64 = 1e6;

/// The error of a time (`v` in its file's unit, `secs` seconds) later than [`MAX_TIME_S`].
fn implausible_time(name: &str, line: usize, v: f64) -> ImportError {
    ImportError::at(
        name,
        line,
        format!(
            "a time of {v:e} is implausible: more than 1e10 s (300 years) after the start; a \
             broken log"
        ),
    )
}

/// The error of a per-I/O fio log (write rows `(time_ms, line)`, first and last) spanning more
/// than [`MAX_PER_IO_SPAN_S`].
fn per_io_span_error(name: &str, first_ms: f64, last: (f64, usize)) -> Option<ImportError> {
    let off = if first_ms / 1000.0 > EPOCH_S {
        first_ms
    } else {
        0.0
    };
    let span = (last.0 - off) / 1000.0;
    (span > MAX_PER_IO_SPAN_S).then(|| {
        ImportError::at(
            name,
            last.1,
            format!(
                "a per-I/O fio log over {span:e} s is implausible (more than 1e6 s, 11 days, \
                 of single writes); a broken log"
            ),
        )
    })
}

/// Most bytes read from a file that is not a regular file (a pipe, a device): 256 MiB.
pub const MAX_NON_REGULAR_BYTES: u64 = 256 << 20;

/// A step between two rows' times longer than this many typical steps is a gap: rows are
/// missing (cut out, or a log stopped and resumed), and what was written in it is not known.
/// The row after a gap would stand for the whole gap at its own rate, inventing data, so a
/// gap is refused by its line. A window that is late, or a few missing, is no gap.
pub const GAP_STEPS: f64 = 10.0;

/// The error of a gap in time: the row at `line` (time `t`, seconds) follows the row at
/// `prev_line` (time `prev`) after more than [`GAP_STEPS`] typical steps of `typical` s.
fn gap_error(
    name: &str,
    line: usize,
    t: f64,
    prev: f64,
    prev_line: usize,
    typical: f64,
) -> ImportError {
    ImportError::at(
        name,
        line,
        format!(
            "a gap in time: {} s after {} s on line {prev_line}, {:.0} times the typical \
             interval of {} s with no row; what was written in it is not known, and it is not \
             made up: give the log without the gap, or each part as a file of its own",
            round_s(t),
            round_s(prev),
            (t - prev) / typical,
            round_s(typical)
        ),
    )
}

/// Seconds as a message shows them: at most six decimals, no trailing zeros.
fn round_s(t: f64) -> f64 {
    (t * 1e6).round() / 1e6
}

/// The index of the first time in `times` (increasing) that follows a gap, for a typical
/// step of `typical`.
fn first_gap(times: &[f64], typical: f64) -> Option<usize> {
    (1..times.len()).find(|&i| times[i] - times[i - 1] > GAP_STEPS * typical)
}

/// Parses a size unit name (`B`, `kB`, `MB`, `GB`, `TB`, `KiB`, `MiB`, `GiB`, `TiB`,
/// `bytes`) into bytes per unit. Case-insensitive, like the rate units.
pub fn parse_size_unit(s: &str) -> Option<f64> {
    match s.trim().to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => Some(1.0),
        "tb" => Some(1e12),
        "tib" => Some(1_099_511_627_776.0),
        other => unit_prefix(other),
    }
}

/// The fio logs that are not bandwidth logs, by their file name: `<prefix>_iops.N.log`,
/// `_lat`, `_clat`, `_slat` (and `_clat_hist`). Returns what the log holds.
fn fio_non_bandwidth_log(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let stem = name.strip_suffix(".log")?;
    // Drop the job number: `io_iops.1` -> `io_iops`.
    let stem = match stem.rsplit_once('.') {
        Some((s, n)) if n.chars().all(|c| c.is_ascii_digit()) => s,
        _ => stem,
    };
    for (suffix, what) in [
        ("_iops", "an IOPS log (write_iops_log)"),
        (
            "_clat_hist",
            "a completion latency histogram log (log_hist_msec)",
        ),
        ("_clat", "a completion latency log (write_lat_log)"),
        ("_slat", "a submission latency log (write_lat_log)"),
        ("_lat", "a latency log (write_lat_log)"),
    ] {
        if stem.ends_with(suffix) {
            return Some(what);
        }
    }
    None
}

/// Parses a time unit name (`s`, `ms`) into seconds per unit.
pub fn parse_time_unit(s: &str) -> Option<f64> {
    match s.trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => Some(1.0),
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => Some(1e-3),
        _ => None,
    }
}

/// Parses a rate unit name (`MB/s`, `MiB/s`, `KiB/s`, `kB/s`, `GB/s`, `GiB/s`, `B/s`; also
/// `MBps` and `MiB_s`) into bytes/s per unit. Case-insensitive: `mb/s` is megabytes.
pub fn parse_rate_unit(s: &str) -> Option<f64> {
    match byte_or_bit(s.trim(), 0) {
        Letter::Bits => return parse_rate_unit(&s.trim().replacen('b', "B", 1)).map(|v| v / 8.0),
        Letter::Ambiguous => return None,
        Letter::Bytes => {}
    }
    let t = s.trim().to_ascii_lowercase();
    let body = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("_s"))
        .or_else(|| t.strip_suffix("/sec"))
        .or_else(|| t.strip_suffix("ps"))?;
    unit_prefix(body)
}

/// What the `b` of a rate unit means, read from its case: `MB/s` bytes, `Mb/s` or `Mbps`
/// bits (a capital prefix before a small b), `mb/s` either (refused: an 8x error either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Letter {
    Bytes,
    Bits,
    Ambiguous,
}

/// Reads the case of the unit starting at byte `at` of `text` (`MB/s`, `kb/s`, `MiB/s`).
fn byte_or_bit(text: &str, at: usize) -> Letter {
    let b = text.as_bytes();
    let mut i = at;
    let prefix = b.get(i).copied();
    if matches!(prefix, Some(c) if b"kKmMgGtT".contains(&c)) {
        i += 1;
    } else {
        return Letter::Bytes;
    }
    if b.get(i) == Some(&b'i') {
        return Letter::Bytes; // MiB, mib: binary prefixes count bytes
    }
    match (prefix, b.get(i)) {
        (_, Some(b'B')) => Letter::Bytes,
        (Some(p), Some(b'b')) if p.is_ascii_uppercase() => Letter::Bits,
        (Some(_), Some(b'b')) => Letter::Ambiguous,
        _ => Letter::Bytes,
    }
}

/// Why a rate unit cannot be read, when the reason is the case of its `b`: `mb/s` may mean
/// megabits or megabytes per second.
pub fn rate_unit_problem(s: &str) -> Option<String> {
    let t = s.trim();
    (byte_or_bit(t, 0) == Letter::Ambiguous).then(|| {
        format!(
            "'{t}' could be bits or bytes per second (an 8x difference): write MB/s for bytes \
             or Mb/s for bits (megabits are read and divided by 8)"
        )
    })
}

fn unit_prefix(body: &str) -> Option<f64> {
    Some(match body {
        "b" => 1.0,
        "kb" => 1e3,
        "kib" => 1024.0,
        "mb" => 1e6,
        "mib" => 1_048_576.0,
        "gb" => 1e9,
        "gib" => 1_073_741_824.0,
        _ => return None,
    })
}

/// Finds a rate unit inside a header cell such as `write_MiB_s`, `MB/s` or `throughput (GB/s)`.
/// `Mb/s` (bits) is read as an eighth of `MB/s`; `mb/s`, which could be either, is not a unit
/// (see [`header_rate_problem`]).
fn rate_unit_in_header(cell: &str) -> Option<f64> {
    match header_rate_letter(cell) {
        Some((_, Letter::Ambiguous)) => None,
        Some((scale, Letter::Bits)) => Some(scale / 8.0),
        Some((scale, Letter::Bytes)) => Some(scale),
        None => None,
    }
}

/// Why a header's rate unit cannot be read: its `b` could mean bits or bytes.
fn header_rate_problem(cell: &str) -> Option<String> {
    match header_rate_letter(cell) {
        Some((_, Letter::Ambiguous)) => Some(format!(
            "the header '{}' could be bits or bytes per second (an 8x difference): write MB/s \
             for bytes or Mb/s for bits",
            cell.trim()
        )),
        _ => None,
    }
}

/// The rate unit in a header cell and the case of its `b`.
fn header_rate_letter(cell: &str) -> Option<(f64, Letter)> {
    let t = cell.to_ascii_lowercase();
    // Bytes per second by name (`bytes_per_sec`, slccache's own column) or as `B/s`.
    for pat in [
        "bytes_per_sec",
        "bytes_per_second",
        "bytes/s",
        "bytes per second",
        "b/s",
    ] {
        if let Some(pos) = t.find(pat) {
            if pos == 0 || !t.as_bytes()[pos - 1].is_ascii_alphabetic() {
                return Some((1.0, Letter::Bytes));
            }
        }
    }
    // Longest names first so that "mib" is not read as "b".
    for (name, scale) in [
        ("gib", 1_073_741_824.0),
        ("mib", 1_048_576.0),
        ("kib", 1024.0),
        ("gb", 1e9),
        ("mb", 1e6),
        ("kb", 1e3),
    ] {
        for suffix in ["/s", "_s", "ps", "/sec", " per second"] {
            let pat = format!("{name}{suffix}");
            if let Some(pos) = t.find(&pat) {
                let before_ok = pos == 0 || !t.as_bytes()[pos - 1].is_ascii_alphabetic();
                if before_ok {
                    return Some((scale, byte_or_bit(cell, pos)));
                }
            }
        }
    }
    None
}

/// Finds a time unit inside a header cell such as `second`, `t_s`, `time_ms`, `time (s)`.
fn time_unit_in_header(cell: &str) -> Option<f64> {
    let t = cell.to_ascii_lowercase();
    let words: Vec<&str> = t
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| parse_time_unit(w) == Some(1e-3)) {
        return Some(1e-3);
    }
    if words.iter().any(|w| parse_time_unit(w) == Some(1.0)) {
        return Some(1.0);
    }
    None
}

/// Loads a timeline from `path`, recognising its format from its content (no unit flags).
pub fn load(path: &Path) -> Result<Timeline, ImportError> {
    load_with(path, &ImportOptions::default())
}

/// Loads a timeline from `path` with units for a headerless two-column CSV.
pub fn load_with(path: &Path, opts: &ImportOptions) -> Result<Timeline, ImportError> {
    let o = ReadOptions {
        units: *opts,
        position_scale: None,
    };
    load_with_notes(path, &o).map(|(t, _)| t)
}

/// Reads the text of a timeline file: refuses what is not text (looking at the start first,
/// so `/dev/zero` is refused at once) and reads at most [`MAX_NON_REGULAR_BYTES`] from
/// anything that is not a regular file.
fn read_text(path: &Path, name: &str) -> Result<String, ImportError> {
    use std::io::Read;
    let f = std::fs::File::open(path)
        .map_err(|e| ImportError::whole(name, format!("cannot read: {e}")))?;
    let regular = f.metadata().map(|m| m.is_file()).unwrap_or(false);
    let mut r = std::io::BufReader::new(f);
    let binary = || not_text(name);
    // The start: NUL bytes or invalid UTF-8 there mean binary data.
    let mut head = Vec::with_capacity(64 << 10);
    (&mut r)
        .take(64 << 10)
        .read_to_end(&mut head)
        .map_err(|e| ImportError::whole(name, format!("cannot read: {e}")))?;
    // PowerShell's `>` writes UTF-16 with a byte-order mark (DiskSPD's XML result redirected
    // on Windows): decoded here, it is text like any other.
    let utf16 = |b: &[u8]| -> Option<bool> {
        match b {
            [0xff, 0xfe, ..] => Some(true),
            [0xfe, 0xff, ..] => Some(false),
            _ => None,
        }
    };
    if let Some(little) = utf16(&head) {
        let limit = if regular {
            u64::MAX
        } else {
            MAX_NON_REGULAR_BYTES
        };
        let mut bytes = head;
        (&mut r)
            .take(limit.saturating_sub(bytes.len() as u64))
            .read_to_end(&mut bytes)
            .map_err(|e| ImportError::whole(name, format!("cannot read: {e}")))?;
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|p| {
                if little {
                    u16::from_le_bytes([p[0], p[1]])
                } else {
                    u16::from_be_bytes([p[0], p[1]])
                }
            })
            .collect();
        return String::from_utf16(&units).map_err(|_| binary());
    }
    if head.contains(&0) {
        return Err(binary());
    }
    if let Err(e) = std::str::from_utf8(&head) {
        // A multi-byte character cut at the end of the first read is fine.
        if e.error_len().is_some() {
            return Err(binary());
        }
    }
    let limit = if regular {
        u64::MAX
    } else {
        MAX_NON_REGULAR_BYTES
    };
    let mut bytes = head;
    (&mut r)
        .take(limit.saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(|e| ImportError::whole(name, format!("cannot read: {e}")))?;
    if !regular && bytes.len() as u64 >= limit {
        return Err(ImportError::whole(
            name,
            format!(
                "not a regular file, and it gave more than {} MiB: save it to a file first",
                MAX_NON_REGULAR_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| binary())
}

/// The error of a file that is not text.
fn not_text(name: &str) -> ImportError {
    ImportError::whole(
        name,
        "binary data, not a timeline: give a slccache timeline.csv, a fio bandwidth log or a \
         CSV of throughput (text)",
    )
}

/// Loads a timeline from `path` and says how it was read: notes for the user (a truncated
/// last line dropped, times derived from positions, unit flags a header overrides).
pub fn load_with_notes(
    path: &Path,
    opts: &ReadOptions,
) -> Result<(Timeline, Vec<String>), ImportError> {
    let name = path.display().to_string();
    if let Some(what) = fio_non_bandwidth_log(path) {
        return Err(ImportError::whole(
            &name,
            format!(
                "this is {what} of fio, not a bandwidth log; slccache needs the bandwidth \
                 log: run fio with --write_bw_log=PREFIX and give PREFIX_bw.N.log"
            ),
        ));
    }
    let o = Opts::from(opts);
    let own = stream_own_timeline(path, &name, &o, Kept::for_run());
    let limit = Kept::for_run().limit();
    let (mut t, notes) = match own {
        Some(r) => r?,
        None => match stream::read(
            path,
            &name,
            &o,
            limit,
            || Kept::with_limit(limit),
            Kept::push,
        ) {
            Some(r) => {
                let (kept, meta, notes) = r?;
                (kept.into_timeline(meta), notes)
            }
            None => {
                let text = read_text(path, &name)?;
                parse_text_notes(&text, &name, opts)?
            }
        },
    };
    t.meta.label = label_of(path);
    Ok((t, notes))
}

/// Writes every sample of a fio bandwidth log or two-column CSV of time that
/// [`load_with_notes`] reads as a stream to `csv` as a slccache `timeline.csv` (the samples
/// before they are kept, so a merged timeline's copy still has every one). `Ok(false)` when
/// `path` is not read as such a stream (then nothing is written).
pub fn write_every_sample(path: &Path, opts: &ReadOptions, csv: &Path) -> anyhow::Result<bool> {
    use anyhow::Context;
    let name = path.display().to_string();
    let limit = Kept::for_run().limit();
    // Rows are buffered and flushed at the end; the first write error is kept.
    let make = || super::CsvWriter::create(csv).map_err(anyhow::Error::from);
    let push = |w: &mut anyhow::Result<super::CsvWriter>, s: &Sample| {
        if let Ok(out) = w {
            if let Err(e) = out.append_buffered(s) {
                *w = Err(e.into());
            }
        }
    };
    let Some(r) = stream::read(path, &name, &Opts::from(opts), limit, make, push) else {
        return Ok(false);
    };
    let (w, _, _) = r?;
    w.and_then(|mut w| w.flush().map_err(anyhow::Error::from))
        .with_context(|| format!("writing {}", csv.display()))?;
    Ok(true)
}

/// How many lines at the start of a file decide whether it is read as a stream: the lines
/// the spreadsheet dialects are recognised from ([`dialect`]).
const HEAD_LINES: usize = 20;

/// slccache's own `timeline.csv` (a regular file whose first line is its header, and whose
/// first lines are plain comma-separated text), read row by row into a bounded timeline
/// ([`Kept`]): the file's text is never held whole, and past
/// [`super::bounded::MAX_KEPT`] rows the samples are merged. `None` for any other file
/// (other formats and spreadsheet dialects are read whole, by [`parse_text_notes`]). The
/// checks and notes are those of the whole-text reader: the same errors, and a cut-short
/// last line dropped with the same note.
fn stream_own_timeline(
    path: &Path,
    name: &str,
    opts: &Opts,
    mut kept: Kept,
) -> Option<Result<(Timeline, Vec<String>), ImportError>> {
    use std::io::{BufRead, Read};
    let f = std::fs::File::open(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut r = std::io::BufReader::new(f);
    let mut head = String::new();
    for _ in 0..HEAD_LINES {
        if r.read_line(&mut head).ok()? == 0 {
            break;
        }
    }
    let first = head.lines().next()?;
    let plain = !head.contains(['"', ';', '\t', '\0', '\u{feff}']);
    if !plain || first.trim().is_empty() || !is_timeline_header(first.trim()) {
        return None;
    }
    let mut notes = Vec::new();
    if opts.time_scale.is_some() || opts.rate_scale.is_some() || opts.position_scale.is_some() {
        let flags = unit_flags(opts);
        notes.push(format!(
            "{name}: {} ignored: a slccache timeline carries its own units",
            flags.join(" and ")
        ));
    }
    let mut prev_t: Option<f64> = None;
    let mut any_bytes = false;
    let read = read_slccache_rows(std::io::Cursor::new(head).chain(r), name, |s, line| {
        if let Some(e) = prev_t.and_then(|p| own_row_error(&s, p, name, line)) {
            return Err(e);
        }
        check_sample(kept.pushed() as usize, &s, name)?;
        prev_t = Some(s.t_s);
        any_bytes |= s.bytes > 0 || s.read.as_ref().is_some_and(|r| r.bytes > 0);
        kept.push(&s);
        Ok(())
    });
    if let Err(e) = read {
        // A last line cut short (no newline at the end, and it does not parse) is dropped,
        // as the whole-text reader does; any other bad line is an error.
        match cut_short_last_line(path) {
            Some(last) if e.line == Some(last) && last >= 2 && kept.pushed() >= 1 => {
                notes.push(format!(
                    "{name}: line {last} is cut short (no newline at the end of the file, and \
                     it does not parse): dropped as a truncated last line"
                ));
            }
            _ => return Some(Err(e)),
        }
    }
    if kept.pushed() < 2 {
        let n = kept.pushed();
        return Some(Err(ImportError::whole(
            name,
            format!(
                "only {n} sample{}: at least two are needed to analyse a timeline",
                if n == 1 { "" } else { "s" }
            ),
        )));
    }
    if !any_bytes {
        return Some(Err(nothing_written(name)));
    }
    Some(Ok((kept.into_timeline(RunMeta::default()), notes)))
}

/// What is wrong with row `line` of slccache's own timeline (sample `s`) after a row that
/// ended at `prev` s: its time does not increase, or it does not start where that row ended
/// (`t_s - interval_s`, within the file's six decimals): rows were removed, or the file was
/// put together from parts. slccache writes every interval, so nothing is made up for a hole.
fn own_row_error(s: &Sample, prev: f64, name: &str, line: usize) -> Option<ImportError> {
    if s.t_s <= prev {
        return Some(ImportError::at(
            name,
            line,
            format!("time does not increase: t_s {} after {prev}", s.t_s),
        ));
    }
    let start = s.t_s - s.interval_s;
    let tol = 1e-5 + 0.01 * s.interval_s;
    if (start - prev).abs() > tol {
        let what = if start > prev {
            format!(
                "{} s of the run have no row (rows removed?)",
                round_s(start - prev)
            )
        } else {
            format!("it overlaps the row before by {} s", round_s(prev - start))
        };
        return Some(ImportError::at(
            name,
            line,
            format!(
                "a gap in time: this row starts at {} s (t_s {} less interval_s {}), but the \
                 row before ends at {} s: {what}; give the timeline.csv as slccache wrote it",
                round_s(start),
                s.t_s,
                s.interval_s,
                round_s(prev)
            ),
        ));
    }
    None
}

/// The number of the last line of `path` when the file does not end with a newline.
fn cut_short_last_line(path: &Path) -> Option<usize> {
    use std::io::{BufRead, Read, Seek};
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(std::io::SeekFrom::End(-1)).ok()?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b).ok()?;
    if b[0] == b'\n' {
        return None;
    }
    f.rewind().ok()?;
    let mut n = 0;
    let mut r = std::io::BufReader::new(f);
    let mut buf = Vec::new();
    while r.read_until(b'\n', &mut buf).ok()? > 0 {
        n += 1;
        buf.clear();
    }
    Some(n)
}

/// Whether a header line is slccache's own `timeline.csv` header: its columns are found by
/// name, in any order (`t_s` and `bytes_per_sec` among more than two).
fn is_timeline_header(first: &str) -> bool {
    let cells: Vec<&str> = first
        .split(',')
        .map(|c| c.trim().trim_matches('"'))
        .collect();
    cells.len() > 2 && cells.contains(&"t_s") && cells.contains(&"bytes_per_sec")
}

/// Parses the content of a timeline file; `name` is used in error messages.
pub fn parse_text(text: &str, name: &str, opts: &ImportOptions) -> Result<Timeline, ImportError> {
    let o = ReadOptions {
        units: *opts,
        position_scale: None,
    };
    parse_text_notes(text, name, &o).map(|(t, _)| t)
}

/// [`parse_text`], with notes on how the text was read. A last line that does not end with a
/// newline and does not parse (a write cut short when the disk filled up, or a crash) is
/// dropped with a note; any other bad line is an error.
pub fn parse_text_notes(
    text: &str,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Timeline, Vec<String>), ImportError> {
    let opts = &Opts::from(opts);
    // Excel saves UTF-8 with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut notes = Vec::new();
    // A spreadsheet's CSV (semicolons, tabs, decimal commas, quoted cells) is read as plain CSV.
    let normalized = dialect::normalize(text);
    let text = match &normalized {
        Some((plain, note)) => {
            notes.push(format!("{name}: {note}"));
            plain.as_str()
        }
        None => text,
    };
    match parse_whole(text, name, opts, &mut notes) {
        Err(e) if !text.ends_with('\n') && e.line.is_some() => {
            let last = text.lines().count();
            if e.line != Some(last) || last < 2 {
                return Err(e);
            }
            let cut = text.rfind('\n').map(|i| &text[..=i]).unwrap_or("");
            let mut retry_notes: Vec<String> = normalized
                .iter()
                .map(|(_, note)| format!("{name}: {note}"))
                .collect();
            let t = parse_whole(cut, name, opts, &mut retry_notes).map_err(|_| e)?;
            retry_notes.push(format!(
                "{name}: line {last} is cut short (no newline at the end of the file, and it \
                 does not parse): dropped as a truncated last line"
            ));
            Ok((t, retry_notes))
        }
        r => r.map(|t| (t, notes)),
    }
}

fn parse_whole(
    text: &str,
    name: &str,
    opts: &Opts,
    notes: &mut Vec<String>,
) -> Result<Timeline, ImportError> {
    if text.trim().is_empty() {
        return Err(ImportError::whole(name, "the file is empty"));
    }
    let (first_no, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map(|(i, l)| (i + 1, l.trim()))
        .unwrap_or((1, ""));
    let own_units = |what: &str, notes: &mut Vec<String>| {
        let flags = unit_flags(opts);
        if !flags.is_empty() {
            notes.push(format!(
                "{name}: {} ignored: {what} carries its own units",
                flags.join(" and ")
            ));
        }
    };
    let timeline = if diskspd::looks_like(first) {
        own_units("a DiskSPD result", notes);
        diskspd::read(text, name, notes)?
    } else if is_timeline_header(first) {
        own_units("a slccache timeline", notes);
        let samples = read_slccache_csv(text, name)?;
        for (i, pair) in samples.windows(2).enumerate() {
            if let Some(e) = own_row_error(&pair[1], pair[0].t_s, name, i + 3) {
                return Err(e);
            }
        }
        Timeline {
            samples,
            meta: RunMeta::default(),
        }
    } else {
        let cells: Vec<&str> = first.split(',').map(str::trim).collect();
        let numeric = cells.iter().all(|c| c.parse::<f64>().is_ok());
        match (cells.len(), numeric) {
            (5..=8, true) => {
                own_units("a fio log", notes);
                read_fio_log(text, name, notes)?
            }
            (2, _) => read_two_column(text, name, opts, notes)?,
            _ => {
                let sep = [(';', "semicolons"), ('\t', "tabs")]
                    .into_iter()
                    .find(|(c, _)| first.contains(*c))
                    .map(|(_, what)| {
                        format!(
                            " (the first line has {what}, but they do not split every \
                                 line into the same number of cells)"
                        )
                    })
                    .unwrap_or_default();
                return Err(ImportError::at(
                    name,
                    first_no,
                    format!(
                        "unknown format: expected a slccache timeline.csv (header \
                             't_s,...'), a fio bandwidth log (5 to 8 numeric columns: time_ms, \
                             KiB/s, ddir, bs, offset), a two-column CSV of time (or data \
                             written) and throughput, or a DiskSPD XML result (-D -Rxml){sep}"
                    ),
                ));
            }
        }
    };
    validate(&timeline, name)?;
    Ok(timeline)
}

/// Checks what the detector relies on: at least two samples, time increasing.
fn validate(t: &Timeline, name: &str) -> Result<(), ImportError> {
    if t.samples.len() < 2 {
        return Err(too_few(name, t.samples.len()));
    }
    for (i, s) in t.samples.iter().enumerate() {
        check_sample(i, s, name)?;
    }
    // A run that only read has no write bytes; it is analysed on its reads.
    let read_bytes = |s: &Sample| s.read.as_ref().map_or(0, |r| r.bytes);
    if t.samples.iter().all(|s| s.bytes == 0 && read_bytes(s) == 0) {
        return Err(nothing_written(name));
    }
    Ok(())
}

/// The error of a timeline of fewer than two samples.
fn too_few(name: &str, n: usize) -> ImportError {
    ImportError::whole(
        name,
        format!(
            "only {n} sample{}: at least two are needed to analyse a timeline",
            if n == 1 { "" } else { "s" }
        ),
    )
}

fn nothing_written(name: &str) -> ImportError {
    ImportError::whole(
        name,
        "nothing was written: every sample is 0 bytes, so there is no cache to measure",
    )
}

/// The checks of one sample (number `i` from 0): a positive length, a rate a drive can write.
fn check_sample(i: usize, s: &Sample, name: &str) -> Result<(), ImportError> {
    if s.interval_s.is_nan() || s.interval_s <= 0.0 || !s.t_s.is_finite() {
        return Err(ImportError::whole(
            name,
            format!("sample {} (t = {} s) has no positive length", i + 1, s.t_s),
        ));
    }
    if s.bytes_total as f64 > MAX_BYTES || s.t_s > MAX_TIME_S {
        return Err(ImportError::whole(
            name,
            format!(
                "sample {} (t = {} s) is implausible: {} bytes written by then, more than 1e18 \
                 (1 EB); a broken log",
                i + 1,
                s.t_s,
                s.bytes_total
            ),
        ));
    }
    if s.bytes_per_sec > MAX_RATE {
        return Err(ImportError::whole(
            name,
            format!(
                "sample {} (t = {} s) says {:.3e} bytes/s, more than any drive writes \
                 (1 TB/s): a broken log",
                i + 1,
                s.t_s,
                s.bytes_per_sec
            ),
        ));
    }
    Ok(())
}

/// One parsed numeric row with its line number.
struct Row {
    line: usize,
    cells: Vec<f64>,
}

/// Reads numeric comma-separated rows, skipping blank lines and `#` comments. Every value must
/// be finite and non-negative. `skip_first` skips a header line.
fn numeric_rows(
    text: &str,
    name: &str,
    ncols: std::ops::RangeInclusive<usize>,
    skip_first: bool,
) -> Result<Vec<Row>, ImportError> {
    let mut rows = Vec::new();
    let mut seen_first = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if !seen_first {
            seen_first = true;
            if skip_first {
                continue;
            }
        }
        let mut cells = Vec::new();
        parse_numeric_line(l, line, name, &ncols, &mut cells)?;
        rows.push(Row { line, cells });
    }
    Ok(rows)
}

/// Parses one numeric comma-separated line (`l`, trimmed, line number `line`) into `cells`
/// (cleared first): `ncols` cells, each finite and non-negative.
fn parse_numeric_line(
    l: &str,
    line: usize,
    name: &str,
    ncols: &std::ops::RangeInclusive<usize>,
    cells: &mut Vec<f64>,
) -> Result<(), ImportError> {
    cells.clear();
    let n = l.split(',').count();
    if !ncols.contains(&n) {
        return Err(ImportError::at(
            name,
            line,
            format!(
                "expected {} to {} columns, found {n}",
                ncols.start(),
                ncols.end(),
            ),
        ));
    }
    for (k, p) in l.split(',').map(str::trim).enumerate() {
        let v: f64 = p.parse().map_err(|_| {
            ImportError::at(
                name,
                line,
                format!("column {} is not a number: '{p}'", k + 1),
            )
        })?;
        if !v.is_finite() || v < 0.0 {
            return Err(ImportError::at(
                name,
                line,
                format!(
                    "column {} must be finite and non-negative, got '{p}'",
                    k + 1
                ),
            ));
        }
        cells.push(v);
    }
    Ok(())
}

/// Reads a fio bandwidth log: `time_ms, value, ddir, bs, offset[, prio[, issue_time[, ...]]]`.
///
/// Windowed logs (`log_avg_msec`) carry KiB/s per window; per-I/O logs carry one row per
/// completed write, which are summed (by their `bs` column) into fixed intervals. Rows of other
/// directions are ignored; a mixed log uses its write rows (ddir 1).
fn read_fio_log(text: &str, name: &str, notes: &mut Vec<String>) -> Result<Timeline, ImportError> {
    let rows = numeric_rows(text, name, 5..=8, false)?;
    let (mut reads, mut writes, mut others) = (0usize, 0usize, 0usize);
    for r in &rows {
        match r.cells[2] as u64 {
            0 => reads += 1,
            1 => writes += 1,
            _ => others += 1,
        }
    }
    if writes == 0 {
        let first = rows.first().map(|r| r.line).unwrap_or(1);
        let what = if reads > 0 {
            format!("all {reads} rows are reads (ddir 0)")
        } else {
            "no row is a write (ddir 1)".to_string()
        };
        return Err(ImportError::at(
            name,
            first,
            format!(
                "fio log without write rows: {what}; slccache measures writes, give the \
                 write bandwidth log (write_bw_log) of a write or mixed job"
            ),
        ));
    }
    let w: Vec<&Row> = rows.iter().filter(|r| r.cells[2] as u64 == 1).collect();
    for r in &w {
        if r.cells[1] * 1024.0 > MAX_RATE || r.cells[3] > MAX_RATE {
            return Err(ImportError::at(
                name,
                r.line,
                format!(
                    "{} KiB/s (block size {}) is more than any drive writes (1 TB/s): a \
                     broken log",
                    r.cells[1], r.cells[3]
                ),
            ));
        }
        if r.cells[0] / 1000.0 > MAX_TIME_S {
            return Err(implausible_time(name, r.line, r.cells[0]));
        }
    }
    for pair in w.windows(2) {
        if pair[1].cells[0] < pair[0].cells[0] {
            return Err(ImportError::at(
                name,
                pair[1].line,
                format!(
                    "time goes backwards: {} ms after {} ms on line {}",
                    pair[1].cells[0], pair[0].cells[0], pair[0].line
                ),
            ));
        }
    }
    let meta = RunMeta {
        workload: super::Workload {
            pattern: "fio".to_string(),
            block_size: w.first().map(|r| r.cells[3] as u64).filter(|&b| b > 0),
            ..Default::default()
        },
        stop_reason: Some(super::StopReason::EndOfData),
        ..RunMeta::default()
    };
    let times_ms: Vec<f64> = w.iter().map(|r| r.cells[0]).collect();
    let left_out = left_out_note(name, reads, others);
    let t = read_fio_writes(&w, name, &times_ms, meta)?;
    notes.extend(left_out);
    Ok(t)
}

/// The write rows `w` of a fio log (their times `times_ms`) as a timeline: windowed, or
/// per-I/O rows summed into intervals.
fn read_fio_writes(
    w: &[&Row],
    name: &str,
    times_ms: &[f64],
    meta: RunMeta,
) -> Result<Timeline, ImportError> {
    if is_windowed(times_ms) {
        for pair in w.windows(2) {
            if pair[1].cells[0] <= pair[0].cells[0] {
                return Err(ImportError::at(
                    name,
                    pair[1].line,
                    format!(
                        "time does not increase: {} ms again (line {}); a windowed fio log has \
                         one write row per window",
                        pair[1].cells[0], pair[0].line
                    ),
                ));
            }
        }
        // `log_unix_epoch=1` logs count from 1970: start the run at the first window.
        let mut times: Vec<f64> = w.iter().map(|r| r.cells[0] / 1000.0).collect();
        if times[0] > EPOCH_S {
            let step = times.get(1).map(|t| t - times[0]).unwrap_or(1.0);
            let off = times[0] - step;
            times.iter_mut().for_each(|t| *t -= off);
        }
        if let Some(i) = first_gap(&times, typical_step(&times)) {
            return Err(gap_error(
                name,
                w[i].line,
                times[i],
                times[i - 1],
                w[i - 1].line,
                typical_step(&times),
            ));
        }
        let rates: Vec<f64> = w.iter().map(|r| r.cells[1] * 1024.0).collect();
        Ok(Timeline::from_rates(&points(&times, &rates), meta))
    } else {
        let last = w.last().map(|r| (r.cells[0], r.line)).unwrap_or((0.0, 1));
        if let Some(e) = per_io_span_error(name, w[0].cells[0], last) {
            return Err(e);
        }
        let io: Vec<(f64, f64)> = w.iter().map(|r| (r.cells[0], r.cells[3])).collect();
        Ok(aggregate_per_io(&io, meta))
    }
}

/// Times above this many seconds are Unix epoch times (fio's `log_unix_epoch`): 1973 on.
const EPOCH_S: f64 = 1e8;

/// A windowed log has nearly constant spacing between rows; a per-I/O log does not (many rows
/// share a millisecond, gaps follow completions).
fn is_windowed(times_ms: &[f64]) -> bool {
    if times_ms.len() < 3 {
        return true;
    }
    let mut d: Vec<f64> = times_ms.windows(2).map(|p| p[1] - p[0]).collect();
    d.sort_by(|a, b| a.total_cmp(b));
    let med = d[d.len() / 2];
    if med < 1.0 {
        return false;
    }
    let near = d
        .iter()
        .filter(|&&x| (x - med).abs() <= 0.1 * med + 2.0)
        .count();
    near as f64 >= 0.8 * d.len() as f64
}

/// Sums per-I/O rows (`(time_ms, bs)`: bytes from the `bs` column, at their completion time)
/// into intervals: the longest of 1 s, 0.5 s, 0.2 s, 0.1 s that still gives at least 200
/// intervals.
fn aggregate_per_io(w: &[(f64, f64)], meta: RunMeta) -> Timeline {
    // `log_unix_epoch=1` logs count from 1970: start the run at the first write.
    let first_s = w.first().map(|r| r.0 / 1000.0).unwrap_or(0.0);
    let off = if first_s > EPOCH_S { first_s } else { 0.0 };
    let end_s = w.last().map(|r| r.0 / 1000.0 - off).unwrap_or(0.0);
    let dt = [1.0, 0.5, 0.2, 0.1]
        .into_iter()
        .find(|&dt| end_s / dt >= 200.0)
        .unwrap_or(0.1);
    let nbins = ((end_s / dt).ceil() as usize).max(1);
    let mut bytes = vec![0u64; nbins];
    for r in w {
        let k = (((r.0 / 1000.0 - off) / dt).ceil() as usize).clamp(1, nbins) - 1;
        bytes[k] += r.1 as u64;
    }
    let mut total = 0u64;
    let samples = bytes
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            total += b;
            let t_end = ((k + 1) as f64 * dt).min(end_s.max(dt));
            let len = (t_end - k as f64 * dt).max(1e-3);
            Sample::written(k as f64 * dt + len, len, b, total, b as f64 / len)
        })
        .collect();
    Timeline { samples, meta }
}

/// (t_end, interval, rate) points from end times: each interval runs from the previous time;
/// the first from 0 when its time is at most 1.5 typical intervals, else one typical interval.
fn points(times: &[f64], rates: &[f64]) -> Vec<(f64, f64, f64)> {
    points_with(times, rates, typical_step(times))
}

/// The typical interval of end times: the median step (the first time, at least 1 ms, when
/// there is one time).
fn typical_step(times: &[f64]) -> f64 {
    let mut d: Vec<f64> = times.windows(2).map(|p| p[1] - p[0]).collect();
    d.sort_by(|a, b| a.total_cmp(b));
    d.get(d.len() / 2).copied().unwrap_or(times[0].max(1e-3))
}

/// The length of the first interval, which ends at `t`: from 0 when `t` is at most 1.5
/// typical intervals, else one typical interval.
fn first_interval(t: f64, typical: f64) -> f64 {
    if t > 0.0 && t <= 1.5 * typical {
        t
    } else {
        typical
    }
}

/// [`points`] with the typical interval given.
fn points_with(times: &[f64], rates: &[f64], typical: f64) -> Vec<(f64, f64, f64)> {
    times
        .iter()
        .zip(rates)
        .enumerate()
        .map(|(i, (&t, &r))| {
            let dt = if i == 0 {
                first_interval(t, typical)
            } else {
                t - times[i - 1]
            };
            (t, dt, r)
        })
        .collect()
}

/// Finds a position (data written) in a header cell such as `MB`, `GiB`, `written_MiB`,
/// `offset` or `position (GB)`: `Some(Some(bytes per unit))`, or `Some(None)` for a position
/// without a unit (`offset`, `written`); `None` when the cell is no position.
fn position_in_header(cell: &str) -> Option<Option<f64>> {
    let t = cell.to_ascii_lowercase();
    if rate_unit_in_header(cell).is_some() || t.contains("/s") {
        return None;
    }
    let words: Vec<&str> = t
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| parse_time_unit(w).is_some()) {
        return None;
    }
    let unit = words.iter().find_map(|w| parse_size_unit(w));
    let named = words.iter().any(|w| {
        matches!(
            *w,
            "offset" | "written" | "position" | "pos" | "data" | "lba" | "bytes"
        )
    });
    match (unit, named) {
        (Some(u), _) => Some(Some(u)),
        (None, true) => Some(None),
        (None, false) => None,
    }
}

/// The first column of a two-column CSV: a time (seconds per unit) or a position (bytes per
/// unit).
#[derive(Debug, Clone, Copy)]
enum X {
    Time(f64),
    Position(f64),
}

/// The units of a two-column CSV from its first line (`first`, line `first_no`: a header
/// when `has_header`) and the unit flags; a note when the header overrides flags given.
fn two_column_units(
    first: &str,
    first_no: usize,
    has_header: bool,
    name: &str,
    opts: &Opts,
) -> Result<(X, f64, bool), ImportError> {
    let cells: Vec<&str> = first.split(',').map(str::trim).collect();
    let err = |msg: String| ImportError::at(name, first_no, msg);
    if !has_header {
        let x = match (opts.position_scale, opts.time_scale) {
            (Some(ps), _) => Some(X::Position(ps)),
            (None, Some(ts)) => Some(X::Time(ts)),
            _ => None,
        };
        return match (x, opts.rate_scale) {
            (Some(x), Some(r)) => Ok((x, r, false)),
            _ => Err(err(
                "a two-column CSV without a header: give its units with --time-unit s|ms \
                 (or --x bytes --x-unit MiB when the first column is data written) and \
                 --rate-unit MB/s|MiB/s|KiB/s|GB/s, or add a header such as \
                 'seconds,MB/s' or 'MiB,MB/s'"
                    .to_string(),
            )),
        };
    }
    // Columns are found by name: the rate may come first (`MB/s,time_s`).
    let is_rate = |c: &str| rate_unit_in_header(c).is_some() || header_rate_problem(c).is_some();
    let (swapped, x_cell, rate_cell) = match (is_rate(cells[0]), is_rate(cells[1])) {
        (true, true) => {
            return Err(err(format!(
                "the header '{first}' names a rate in both columns ('{}' and '{}'): one of \
                 them must be the time (e.g. 'seconds', 'time_ms') or the data written (e.g. \
                 'MiB', 'written_GB')",
                cells[0], cells[1]
            )))
        }
        (true, false) => (true, cells[1], cells[0]),
        _ => (false, cells[0], cells[1]),
    };
    // A unit flag says what the header says, or it contradicts it: refused, naming both.
    let contradicts = |flag: String, cell: &str| {
        err(format!(
            "{flag} contradicts the header '{first}', whose column '{cell}' names its own unit: \
             leave the flag out (the header gives the units), or correct the header"
        ))
    };
    let x = match (time_unit_in_header(x_cell), position_in_header(x_cell)) {
        (Some(ts), _) => {
            if let Some(f) = opts.time_scale.filter(|&f| f != ts) {
                return Err(contradicts(
                    format!("--time-unit {}", time_unit_name(f)),
                    x_cell,
                ));
            }
            if let Some(f) = opts.position_scale {
                return Err(contradicts(
                    format!("--x bytes --x-unit {} (data written)", size_unit_name(f)),
                    x_cell,
                ));
            }
            X::Time(ts)
        }
        (None, Some(Some(ps))) => {
            if let Some(f) = opts.position_scale.filter(|&f| f != ps) {
                return Err(contradicts(
                    format!("--x-unit {}", size_unit_name(f)),
                    x_cell,
                ));
            }
            X::Position(ps)
        }
        (None, Some(None)) => X::Position(opts.position_scale.ok_or_else(|| {
            err(format!(
                "the header '{first}' names a position but not its unit in its column \
                 '{x_cell}': write e.g. 'MiB' or 'written_GB', or give --x bytes --x-unit MiB"
            ))
        })?),
        (None, None) => match (opts.position_scale, opts.time_scale) {
            (Some(ps), _) => X::Position(ps),
            (None, Some(ts)) => X::Time(ts),
            (None, None) => {
                return Err(err(format!(
                    "the header '{first}' does not name the time unit in its column \
                     '{x_cell}': write 'seconds' or 'time_ms' (or a position such as 'MiB' or \
                     'written_GB'), or give --time-unit s|ms"
                )))
            }
        },
    };
    if let Some(why) = header_rate_problem(rate_cell) {
        return Err(err(why));
    }
    let rs = match rate_unit_in_header(rate_cell) {
        Some(r) => {
            if let Some(f) = opts.rate_scale.filter(|&f| f != r) {
                return Err(contradicts(
                    format!("--rate-unit {}", rate_unit_name(f)),
                    rate_cell,
                ));
            }
            r
        }
        None => opts.rate_scale.ok_or_else(|| {
            err(format!(
                "the header '{first}' does not name the rate unit in its column '{rate_cell}': \
                 write e.g. 'MB/s', 'MiB/s', 'KiB/s', 'GB/s' or 'bytes_per_sec', or give \
                 --rate-unit"
            ))
        })?,
    };
    Ok((x, rs, swapped))
}

/// A time unit's name, from its seconds per unit.
fn time_unit_name(scale: f64) -> String {
    if scale == 1e-3 {
        "ms".into()
    } else if scale == 1.0 {
        "s".into()
    } else {
        format!("of {scale} s")
    }
}

/// A size unit's name, from its bytes per unit.
fn size_unit_name(scale: f64) -> String {
    [
        (1.0, "B"),
        (1e3, "kB"),
        (1024.0, "KiB"),
        (1e6, "MB"),
        (1_048_576.0, "MiB"),
        (1e9, "GB"),
        (1_073_741_824.0, "GiB"),
        (1e12, "TB"),
        (1_099_511_627_776.0, "TiB"),
    ]
    .iter()
    .find(|(s, _)| *s == scale)
    .map(|(_, n)| n.to_string())
    .unwrap_or_else(|| format!("of {scale} bytes"))
}

/// A rate unit's name, from its bytes/s per unit (bits as `Mb/s`).
fn rate_unit_name(scale: f64) -> String {
    let bytes = size_unit_name(scale);
    if !bytes.starts_with("of ") {
        return format!("{bytes}/s");
    }
    let bits = size_unit_name(scale * 8.0);
    match bits.strip_suffix('B') {
        Some(p) if !bits.starts_with("of ") => format!("{p}b/s"),
        _ => format!("of {scale} bytes/s"),
    }
}

/// Reads a two-column CSV of time and throughput, or of position (data written) and
/// throughput. Units come from the header (`second,MiB/s`, `time_ms,write_MB_s`, `MiB,MB/s`)
/// or, without a header, from [`ImportOptions`]. Rows sharing a time (e.g. a mixed log whose
/// direction column was lost) are averaged.
fn read_two_column(
    text: &str,
    name: &str,
    opts: &Opts,
    notes: &mut Vec<String>,
) -> Result<Timeline, ImportError> {
    let (first_no, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map(|(i, l)| (i + 1, l.trim()))
        .unwrap_or((1, ""));
    let cells: Vec<&str> = first.split(',').map(str::trim).collect();
    let has_header = cells.iter().any(|c| c.parse::<f64>().is_err());
    let (x, rate_scale, swapped) = two_column_units(first, first_no, has_header, name, opts)?;
    let mut rows = numeric_rows(text, name, 2..=2, has_header)?;
    if swapped {
        rows.iter_mut().for_each(|r| r.cells.swap(0, 1));
    }
    for r in &rows {
        if r.cells[1] * rate_scale > MAX_RATE {
            return Err(ImportError::at(
                name,
                r.line,
                format!(
                    "{} is more than any drive writes (1 TB/s): a broken log",
                    r.cells[1]
                ),
            ));
        }
        if matches!(x, X::Time(ts) if r.cells[0] * ts > MAX_TIME_S) {
            return Err(implausible_time(name, r.line, r.cells[0]));
        }
    }
    let meta = RunMeta {
        stop_reason: Some(super::StopReason::EndOfData),
        ..RunMeta::default()
    };
    let time_scale = match x {
        X::Time(ts) => ts,
        X::Position(ps) => {
            let t = read_positions(&rows, name, ps, rate_scale, meta)?;
            notes.push(format!(
                "{name}: the first column is data written, not time: the times are derived \
                 from the bytes and the rate of each row (no time was measured)"
            ));
            return Ok(t);
        }
    };
    let mut times: Vec<f64> = Vec::with_capacity(rows.len());
    let mut rates: Vec<f64> = Vec::with_capacity(rows.len());
    let mut counts: Vec<f64> = Vec::with_capacity(rows.len());
    let mut lines: Vec<usize> = Vec::with_capacity(rows.len());
    let mut shared = 0usize;
    let mut prev_line = 0;
    for r in &rows {
        let t = r.cells[0] * time_scale;
        let v = r.cells[1] * rate_scale;
        match times.last() {
            Some(&last) if t < last => {
                return Err(ImportError::at(
                    name,
                    r.line,
                    format!(
                        "time goes backwards: {} after {} on line {prev_line}",
                        r.cells[0],
                        last / time_scale
                    ),
                ))
            }
            Some(&last) if t == last => {
                let k = rates.len() - 1;
                rates[k] += v;
                counts[k] += 1.0;
                shared += 1;
            }
            _ => {
                times.push(t);
                rates.push(v);
                counts.push(1.0);
                lines.push(r.line);
            }
        }
        prev_line = r.line;
    }
    if times.first() == Some(&0.0) {
        // A row at t = 0 has no interval before it; it says nothing about throughput.
        times.remove(0);
        rates.remove(0);
        counts.remove(0);
        lines.remove(0);
    }
    if times.is_empty() {
        return Err(ImportError::whole(name, "no data rows after the header"));
    }
    let typical = typical_step(&times);
    if let Some(i) = first_gap(&times, typical) {
        return Err(gap_error(
            name,
            lines[i],
            times[i] / time_scale,
            times[i - 1] / time_scale,
            lines[i - 1],
            typical / time_scale,
        ));
    }
    for (r, c) in rates.iter_mut().zip(&counts) {
        *r /= c;
    }
    if let Some(n) = shared_note(name, shared) {
        notes.push(n);
    }
    Ok(Timeline::from_rates(&points(&times, &rates), meta))
}

/// The note of `n` rows of a two-column CSV that share their time with the row before.
fn shared_note(name: &str, n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{name}: {n} row{} the same time as the row before: the rows of each time are \
             averaged into one sample (a log of two directions, or a duplicated row?)",
            if n == 1 { " has" } else { "s have" }
        )
    })
}

/// The note of the rows of a mixed fio log that are not writes: `reads` (ddir 0) and `others`
/// (trims, ddir 2, and any other direction).
fn left_out_note(name: &str, reads: usize, others: usize) -> Option<String> {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    let mut parts = vec![];
    if reads > 0 {
        parts.push(format!("{reads} read row{} (ddir 0)", s(reads)));
    }
    if others > 0 {
        parts.push(format!("{others} trim row{} (ddir 2)", s(others)));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{name}: {} left out: slccache measures writes, and the timeline holds the write \
             rows only",
            parts.join(" and ")
        )
    })
}

/// Rows of (position, rate) as a timeline: each row is one chunk of data, written at its
/// rate, so its time is its bytes over its rate. Positions are the ends of the chunks (the
/// first chunk starts at 0), or, when the first position is 0, their starts (the last chunk
/// is then as long as the typical one).
fn read_positions(
    rows: &[Row],
    name: &str,
    pos_scale: f64,
    rate_scale: f64,
    meta: RunMeta,
) -> Result<Timeline, ImportError> {
    if rows.len() < 2 {
        return Err(ImportError::whole(
            name,
            "a position CSV needs at least two rows",
        ));
    }
    for pair in rows.windows(2) {
        if pair[1].cells[0] <= pair[0].cells[0] {
            return Err(ImportError::at(
                name,
                pair[1].line,
                format!(
                    "data written does not increase: {} after {} on line {}",
                    pair[1].cells[0], pair[0].cells[0], pair[0].line
                ),
            ));
        }
    }
    let pos: Vec<f64> = rows.iter().map(|r| r.cells[0] * pos_scale).collect();
    let starts = pos[0] == 0.0;
    let mut steps: Vec<f64> = pos.windows(2).map(|p| p[1] - p[0]).collect();
    steps.sort_by(|a, b| a.total_cmp(b));
    let typical = steps[steps.len() / 2];
    if let Some(i) = first_gap(&pos, typical) {
        // One chunk the size of the jump, written at the row's rate, would be made up.
        return Err(ImportError::at(
            name,
            rows[i].line,
            format!(
                "a gap in data written: {} after {} on line {}, {:.0} times the typical chunk \
                 with no row; what was written in it is not known, and it is not made up: give \
                 the CSV without the gap",
                rows[i].cells[0],
                rows[i - 1].cells[0],
                rows[i - 1].line,
                (pos[i] - pos[i - 1]) / typical
            ),
        ));
    }
    let mut points = Vec::with_capacity(rows.len());
    let mut t = 0.0;
    for (i, r) in rows.iter().enumerate() {
        let len = if starts {
            pos.get(i + 1).map(|n| n - pos[i]).unwrap_or(typical)
        } else if i == 0 {
            pos[0]
        } else {
            pos[i] - pos[i - 1]
        };
        let rate = r.cells[1] * rate_scale;
        if rate <= 0.0 {
            return Err(ImportError::at(
                name,
                r.line,
                "a rate of 0 at a position: no time can be derived for this chunk",
            ));
        }
        let dt = len / rate;
        t += dt;
        points.push((t, dt, rate));
    }
    Ok(Timeline::from_rates(&points, meta))
}

/// A short label for a file: its stem, or its folder's name for `timeline.csv`.
pub fn label_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem == "timeline" {
        if let Some(parent) = path.parent().and_then(|p| p.file_name()) {
            return parent.to_string_lossy().into_owned();
        }
    }
    stem
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::CsvWriter;

    fn written(n: usize, dir: &Path) -> std::path::PathBuf {
        let pts: Vec<(f64, f64, f64)> = (1..=n)
            .map(|i| (i as f64, 1.0, if i < n / 3 { 2e9 } else { 5e8 } + i as f64))
            .collect();
        let mut t = Timeline::from_rates(&pts, RunMeta::default());
        for (i, s) in t.samples.iter_mut().enumerate() {
            s.lat_p50_us = Some(10.0 + (i % 7) as f64);
            s.temp_c = Some(40.0 + (i % 3) as f64);
        }
        let p = dir.join("timeline.csv");
        CsvWriter::write_all(&p, &t).unwrap();
        p
    }

    /// Issue 19: slccache's own timeline.csv is read row by row into a bounded timeline, and
    /// below its limit it is the timeline the whole-text reader gives (it read the whole text,
    /// then every sample).
    #[test]
    fn an_own_timeline_streams_into_a_bounded_timeline() {
        let dir = tempfile::tempdir().unwrap();
        let p = written(3000, dir.path());
        let o = ReadOptions::default();
        let (t, notes) = load_with_notes(&p, &o).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let (whole, whole_notes) = parse_text_notes(&text, &p.display().to_string(), &o).unwrap();
        assert_eq!(t.samples, whole.samples);
        assert_eq!(notes, whole_notes);
        assert!(t.meta.resolution.is_none());
        assert_eq!(crate::detect::analyze(&t), crate::detect::analyze(&whole));
        // The same file with a limit of 100: what is held is bounded, bytes are all there.
        let (k, _) = stream_own_timeline(&p, "t", &Opts::from(&o), Kept::with_limit(100))
            .expect("read as a stream")
            .unwrap();
        assert!(k.samples.len() <= 101, "{}", k.samples.len());
        assert_eq!(k.bytes_total(), whole.bytes_total());
        let r = k.meta.resolution.as_ref().unwrap();
        assert_eq!((r.samples, r.merged_by), (3000, 32));
    }

    /// The stream keeps the whole-text reader's rules: a cut-short last line is dropped with
    /// its note, a line in the middle that does not parse is an error naming it, and time
    /// must increase.
    #[test]
    fn the_stream_keeps_the_readers_rules() {
        let dir = tempfile::tempdir().unwrap();
        let p = written(50, dir.path());
        let text = std::fs::read_to_string(&p).unwrap();
        let o = ReadOptions::default();
        let name = p.display().to_string();
        let check = |t: &str| {
            std::fs::write(&p, t).unwrap();
            let streamed = load_with_notes(&p, &o).map(|(t, n)| (t.samples, n));
            let whole = parse_text_notes(t, &name, &o).map(|(t, n)| (t.samples, n));
            let show = |r: &Result<(Vec<Sample>, Vec<String>), ImportError>| match r {
                Ok(v) => format!("{v:?}"),
                Err(e) => format!("error: {e} (line {:?})", e.line),
            };
            assert_eq!(show(&streamed), show(&whole));
            streamed
        };
        let cut = format!("{text}51.0,1.0,12");
        let (s, notes) = check(&cut).unwrap();
        assert_eq!(s.len(), 50);
        assert!(notes[0].contains("line 52 is cut short"), "{notes:?}");
        let mut lines: Vec<&str> = text.lines().collect();
        lines[10] = "11.0,1.0,x,1,1.0,,,,,,,,";
        let e = check(&(lines.join("\n") + "\n")).unwrap_err();
        assert_eq!(e.line, Some(11));
        // Two rows swapped: the first of them no longer starts where the row before ended.
        let mut lines: Vec<&str> = text.lines().collect();
        lines.swap(5, 6);
        let e = check(&(lines.join("\n") + "\n")).unwrap_err();
        assert!(e.to_string().contains("a gap in time"), "{e}");
        assert_eq!(e.line, Some(6));
        // A row repeated: time does not increase.
        let mut lines: Vec<&str> = text.lines().collect();
        lines[6] = lines[5];
        let e = check(&(lines.join("\n") + "\n")).unwrap_err();
        assert!(e.to_string().contains("time does not increase"), "{e}");
    }

    /// What a reading gave, to compare two readings exactly (f64 `Debug` is exact).
    fn shown(r: Result<(Timeline, Vec<String>), ImportError>) -> String {
        match r {
            Ok((t, notes)) => format!("{:?}\n{:?}\n{notes:?}", t.samples, t.meta),
            Err(e) => format!("error: {e} (line {:?})", e.line),
        }
    }

    /// `p` read whole, as before issue 19.
    fn whole(p: &Path, o: &ReadOptions) -> String {
        let name = p.display().to_string();
        shown(read_text(p, &name).and_then(|text| parse_text_notes(&text, &name, o)))
    }

    /// `p` read as a stream with a look-ahead of `look` rows, kept whole; `None` when it is
    /// not read as a stream.
    fn streamed(p: &Path, o: &ReadOptions, look: usize) -> Option<String> {
        let name = p.display().to_string();
        let r = stream::read(
            p,
            &name,
            &Opts::from(o),
            look,
            || Kept::with_limit(usize::MAX),
            Kept::push,
        )?;
        Some(shown(
            r.map(|(k, meta, notes)| (k.into_timeline(meta), notes)),
        ))
    }

    /// A small deterministic generator for the test files.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A windowed fio write log: `n` windows of `step` ms (jittered by up to `jitter` ms),
    /// from `t0` ms, a cliff at a third, `cols` columns.
    fn fio_log(g: &mut Lcg, n: usize, t0: u64, step: u64, jitter: u64, cols: usize) -> String {
        let mut s = String::new();
        let mut t = t0;
        for i in 0..n {
            let kib = if i < n / 3 { 3_000_000 } else { 500_000 } + g.below(90_000);
            let mut row = format!("{t}, {kib}, 1, 1048576, 0");
            for k in 5..cols {
                row.push_str(&format!(", {}", k - 5));
            }
            s.push_str(&row);
            s.push('\n');
            t +=
                step + if jitter > 0 {
                    g.below(2 * jitter + 1)
                } else {
                    jitter
                } - jitter;
        }
        s
    }

    /// The files of tests/data that are fio logs or CSVs of throughput.
    fn fixtures() -> Vec<std::path::PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut out = vec![];
        for dir in ["real-traces", "position", "kernel-cliff"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let p = e.unwrap().path();
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                if ext == "log" || ext == "csv" {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    /// Issue 19: a fio bandwidth log or a two-column CSV read row by row gives exactly what
    /// the whole-text reader gives (samples, metadata, notes, or the same error on the same
    /// line) for the fixtures and for generated files of every shape: windowed and per-I/O
    /// logs, epoch times, mixed directions, comments, CRLF, a cut-short last line, units in
    /// the header or in flags, rows sharing a time, and each error. With the look-ahead as
    /// long as the file, it is the whole-text reader; with a short one, a regular log is too.
    #[test]
    fn streamed_logs_and_csvs_read_as_the_whole_text() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = Lcg(19);
        // (file name, content, options, regular steps: a short look-ahead reads it the same)
        let mut cases: Vec<(String, String, ReadOptions, bool)> = vec![];
        let plain = ReadOptions::default();
        let units = ReadOptions {
            units: ImportOptions {
                time_scale: Some(1.0),
                rate_scale: Some(1e6),
            },
            position_scale: None,
        };
        for (k, (n, t0, step, jitter, cols)) in [
            (300, 1000, 1000, 0, 5),
            (400, 1000, 1000, 3, 5),
            (250, 5000, 1000, 0, 6),
            (200, 1003, 100, 2, 7),
            (120, 1_700_000_000_000, 1000, 0, 8),
            (2, 1000, 1000, 0, 5),
            (3, 500, 1000, 0, 5),
        ]
        .into_iter()
        .enumerate()
        {
            let log = fio_log(&mut g, n, t0, step, jitter, cols);
            let regular = jitter == 0;
            cases.push((format!("w{k}_bw.1.log"), log.clone(), plain, regular));
            cases.push((format!("u{k}_bw.1.log"), log.clone(), units, regular));
            // CRLF, comments and blank lines.
            let crlf: String = log
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    let extra = if i % 50 == 7 {
                        "# a comment\r\n\r\n"
                    } else {
                        ""
                    };
                    format!("{extra}{l}\r\n")
                })
                .collect();
            cases.push((format!("c{k}_bw.1.log"), crlf, plain, regular));
            // A last line cut short: it does not parse, parses to an earlier time, or is fine.
            cases.push((format!("x{k}_bw.1.log"), format!("{log}99"), plain, regular));
            cases.push((
                format!("y{k}_bw.1.log"),
                format!("{log}1, 5"),
                plain,
                regular,
            ));
            let l: Vec<&str> = log.lines().collect();
            cases.push((format!("z{k}_bw.1.log"), l.join("\n"), plain, regular));
        }
        // Mixed directions: a read and a write row per window, and trims.
        let mut mixed = String::new();
        for i in 1..=200u64 {
            mixed.push_str(&format!("{}, {}, 0, 1048576, 0\n", i * 1000, 900_000 + i));
            mixed.push_str(&format!("{}, {}, 1, 1048576, 0\n", i * 1000, 1_200_000 + i));
            if i % 9 == 0 {
                mixed.push_str(&format!("{}, 10, 2, 4096, 0\n", i * 1000));
            }
        }
        cases.push(("mixed_bw.1.log".into(), mixed, plain, true));
        // Per-I/O logs: many rows per millisecond, summed by their block size.
        for (k, span_ms) in [30_000u64, 250_000, 90].into_iter().enumerate() {
            let mut s = String::new();
            let mut t = 0;
            while t < span_ms {
                let bs = [4096, 131072, 1048576][g.below(3) as usize];
                s.push_str(&format!(
                    "{t}, {}, 1, {bs}, {}\n",
                    g.below(4000),
                    g.below(1 << 30)
                ));
                t += g.below(3);
            }
            cases.push((format!("io{k}_bw.1.log"), s, plain, false));
        }
        // Errors: the first that the whole-text reader gives wins.
        let base = fio_log(&mut g, 300, 1000, 1000, 0, 5);
        let edit = |edits: &[(usize, &str)]| {
            let mut l: Vec<String> = base.lines().map(str::to_string).collect();
            for (i, e) in edits {
                l[*i] = e.to_string();
            }
            l.join("\n") + "\n"
        };
        for (k, e) in [
            edit(&[(100, "101000, x, 1, 1048576, 0")]),
            edit(&[
                (10, "11000, 2000000000, 1, 1048576, 0"),
                (200, "201000, 1, 1"),
            ]),
            edit(&[
                (20, "1000, 5, 1, 1048576, 0"),
                (40, "41000, 2000000000, 1, 4096, 0"),
            ]),
            edit(&[(20, "1000, 5, 1, 1048576, 0")]),
            edit(&[(30, "30000, 5, 1, 1048576, 0")]),
            edit(&[(50, "51000, -5, 1, 1048576, 0")]),
            edit(&[(299, "300000, 9, 1, 1048576, 0, 1, 2, 3, 4")]),
            base.replace(", 1, 1048576", ", 0, 1048576"),
            base.replace(", 1, 1048576", ", 2, 1048576"),
            "1000, 0, 1, 4096, 0\n2000, 0, 1, 4096, 0\n".to_string(),
            "1000, 10, 1, 4096, 0\n".to_string(),
        ]
        .into_iter()
        .enumerate()
        {
            cases.push((format!("e{k}_bw.1.log"), e, plain, true));
        }
        // Two-column CSVs of time.
        let mut csv = String::new();
        for i in 0..400 {
            csv.push_str(&format!(
                "{}.000,{}.5\n",
                i,
                if i < 150 { 5000 } else { 900 } + i % 7
            ));
        }
        let headerless = csv.clone();
        for (k, (head, o)) in [
            ("second,write_MiB_s\n", plain),
            ("time_ms,MB/s\n", plain),
            ("seconds,MB/s\n", units),
            ("# a comment\n\nt (s), GB/s\n", plain),
            ("", units),
            ("t,MB/s\n", plain),
            ("seconds,mb/s\n", plain),
            ("seconds,rate\n", plain),
        ]
        .into_iter()
        .enumerate()
        {
            cases.push((format!("t{k}.csv"), format!("{head}{csv}"), o, true));
        }
        cases.push(("h.csv".into(), "seconds,MB/s\n".into(), plain, true));
        cases.push(("h1.csv".into(), "seconds,MB/s\n1,5\n".into(), plain, true));
        cases.push((
            "cut.csv".into(),
            format!("{headerless}401.0,9"),
            units,
            true,
        ));
        cases.push(("cut2.csv".into(), format!("{headerless}2.0,9"), units, true));
        // Rows sharing a time (averaged), a jittered clock, time going backwards, a rate
        // too high (the rate wins over the time), a bad cell.
        let mut dup = String::from("seconds,MB/s\n");
        for i in 1..=300 {
            dup.push_str(&format!("{i},{}\n{i},{}\n", 1000 + i, 3000 - i));
        }
        cases.push(("dup.csv".into(), dup, plain, true));
        let mut jit = String::from("seconds,MB/s\n");
        let mut t = 0.0;
        for i in 0..300 {
            jit.push_str(&format!("{t:.3},{}\n", 800 + i));
            t += 0.9 + g.below(200) as f64 / 1000.0;
        }
        cases.push(("jit.csv".into(), jit, plain, false));
        let lines: Vec<&str> = headerless.lines().collect();
        let mut back = lines.clone();
        back[100] = "5.0,100";
        cases.push(("back.csv".into(), back.join("\n"), units, true));
        back[300] = "300.0,9000000";
        cases.push(("back2.csv".into(), back.join("\n"), units, true));
        let mut bad = lines.clone();
        bad[200] = "200.0,x";
        bad[50] = "50.0,9000000";
        cases.push(("bad.csv".into(), bad.join("\n"), units, true));
        // A CSV of positions and a spreadsheet's CSV are read whole.
        cases.push(("pos.csv".into(), format!("MiB,MB/s\n{csv}"), plain, true));
        cases.push(("semi.csv".into(), csv.replace(',', ";"), units, true));

        let mut n_streamed = 0;
        let mut check = |p: &Path, o: &ReadOptions, regular: bool| {
            let w = whole(p, o);
            let lines = std::fs::read_to_string(p).unwrap().lines().count();
            if let Some(s) = streamed(p, o, lines + 1) {
                n_streamed += 1;
                assert_eq!(s, w, "{}", p.display());
            }
            // Through the command's reader (the label aside), the same.
            let loaded = load_with_notes(p, o).map(|(mut t, n)| {
                t.meta.label = String::new();
                (t, n)
            });
            assert_eq!(shown(loaded), w, "{}", p.display());
            if regular {
                for look in [2, 3, 7, 50] {
                    let s = streamed(p, o, look).unwrap_or_else(|| w.clone());
                    assert_eq!(s, w, "{} with a look-ahead of {look}", p.display());
                }
            }
        };
        for p in fixtures() {
            check(&p, &plain, false);
        }
        for (file, text, o, regular) in &cases {
            let p = dir.path().join(file);
            std::fs::write(&p, text).unwrap();
            check(&p, o, *regular);
        }
        // All but the two read whole (positions, semicolons) and the own timelines of
        // kernel-cliff went through the stream.
        assert!(
            n_streamed >= cases.len() - 2 + 6,
            "{n_streamed} of {}",
            cases.len()
        );
    }

    /// Issue 19: a fio log longer than the limit is read with a bounded look-ahead into a
    /// bounded timeline: at most the limit plus one samples held, every byte there, and the
    /// samples those of the whole-text reader merged the same way.
    #[test]
    fn a_long_fio_log_streams_into_a_bounded_timeline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("long_bw.1.log");
        std::fs::write(&p, fio_log(&mut Lcg(7), 3000, 1000, 1000, 0, 5)).unwrap();
        let name = p.display().to_string();
        let o = Opts::from(&ReadOptions::default());
        let mut most = 0;
        let (k, meta, _) = stream::read(
            &p,
            &name,
            &o,
            100,
            || Kept::with_limit(100),
            |k: &mut Kept, s| {
                k.push(s);
                most = most.max(k.len());
            },
        )
        .expect("read as a stream")
        .unwrap();
        assert!(most <= 101, "held {most}");
        let t = k.into_timeline(meta);
        assert!(t.samples.len() <= 101, "{}", t.samples.len());
        let r = t.meta.resolution.as_ref().expect("merged");
        assert_eq!((r.samples, r.merged_by), (3000, 32));
        let text = std::fs::read_to_string(&p).unwrap();
        let (w, _) = parse_text_notes(&text, &name, &ReadOptions::default()).unwrap();
        assert_eq!(t.bytes_total(), w.bytes_total());
        let mut same = Kept::with_limit(100);
        w.samples.iter().for_each(|s| same.push(s));
        assert_eq!(t, same.into_timeline(w.meta.clone()));
    }
}
