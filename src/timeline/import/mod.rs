//! Reading timelines from files: slccache `timeline.csv`, fio bandwidth logs, two-column CSVs,
//! DiskSPD XML results with per-interval IOPS (`diskspd.rs`).
//!
//! Every error names the file and the line so that a user can fix the input.

use std::path::Path;

use super::bounded::Kept;
use super::{read_slccache_csv, read_slccache_rows, RunMeta, Sample, Timeline};

pub use error::ImportError;

mod checks;
mod dialect;
mod diskspd;
mod error;
mod fio;
mod format;
mod numeric;
mod own;
mod stream;
mod two_column;
mod units;

use checks::*;
use fio::*;
use format::Format;
use numeric::*;
use own::*;
use two_column::*;
use units::*;

pub use checks::{late_rows_note, GAP_STEPS, MAX_BYTES, MAX_RATE, MAX_TIME_S};
pub use units::{parse_rate_unit, parse_size_unit, parse_time_unit, rate_unit_problem};

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

/// Most bytes read from a file that is not a regular file (a pipe, a device): 256 MiB.
pub const MAX_NON_REGULAR_BYTES: u64 = 256 << 20;

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
/// last line dropped, times derived from positions, unit flags a header overrides, rows that
/// stand for late or missing windows, a timeline whose first rows are missing).
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
    // What the reading assumed rather than read, last among the notes, as the whole-text
    // reader says it: a slccache timeline's missing first rows, or the rows of a log of
    // rates (fio's, or a two-column CSV of times: the stream reads no other) that stand for
    // late or missing windows.
    let (mut t, notes) = match own {
        Some(r) => {
            let (t, mut notes) = r?;
            notes.extend(cut_start_note(&t, &name));
            (t, notes)
        }
        None => match stream::read(
            path,
            &name,
            &o,
            limit,
            || Kept::with_limit(limit),
            Kept::push,
        ) {
            Some(r) => {
                let (kept, meta, mut notes) = r?;
                let t = kept.into_timeline(meta);
                notes.extend(late_rows_note(&t, &name));
                (t, notes)
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
    let r = match parse_whole(text, name, opts, &mut notes) {
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
        r => r.map(|t| {
            let last = text.lines().count();
            if !text.is_empty() && !text.ends_with('\n') && last >= 2 {
                notes.push(unterminated_last_line(name, last));
            }
            (t, notes)
        }),
    };
    // What the reading assumed rather than read, last, as the file reader says it.
    r.map(|((t, assumed), mut notes)| {
        notes.extend(assumed);
        (t, notes)
    })
}

/// The note on a last line that parses but has no newline at its end: a line cut short while
/// the file was written ("80,50" of "80,500") may still parse, and was read in without a word.
pub(super) fn unterminated_last_line(name: &str, last: usize) -> String {
    format!(
        "{name}: line {last} has no newline at its end: it may have been cut short while the \
         file was written (a full disk, a crash); it is read as it stands (if it was cut \
         short, remove it and analyse the file again)"
    )
}

/// The timeline of `text`, and the note of what its reading assumed rather than read
/// ([`cut_start_note`], [`late_rows_note`]).
fn parse_whole(
    text: &str,
    name: &str,
    opts: &Opts,
    notes: &mut Vec<String>,
) -> Result<(Timeline, Option<String>), ImportError> {
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
    let (timeline, assumed) = match Format::sniff(first) {
        Format::DiskSpd => {
            own_units("a DiskSPD result", notes);
            (diskspd::read(text, name, notes)?, None)
        }
        Format::Own => {
            own_units("a slccache timeline", notes);
            let samples = read_slccache_csv(text, name)?;
            let mut rows = own::OwnRows::default();
            for (i, s) in samples.iter().enumerate() {
                rows.row(s, name, i + 2)?;
            }
            rows.finish()?;
            let t = Timeline {
                samples,
                meta: RunMeta::default(),
            };
            let note = cut_start_note(&t, name);
            (t, note)
        }
        Format::FioLog => {
            own_units("a fio log", notes);
            let mut t = read_fio_log(text, name, notes)?;
            t.meta.rate_log = true;
            let note = late_rows_note(&t, name);
            (t, note)
        }
        Format::TwoColumn => {
            let (mut t, timed) = read_two_column(text, name, opts, notes)?;
            t.meta.rate_log = timed;
            let note = if timed {
                late_rows_note(&t, name)
            } else {
                None
            };
            (t, note)
        }
        Format::Unknown => {
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
    };
    validate(&timeline, name)?;
    Ok((timeline, assumed))
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

    /// A slccache timeline.csv is read row by row into a bounded timeline, and
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
        // Two rows swapped: said as time going backwards at the second of them, not as the
        // gap the first leaves ("1 s of the run have no row (rows removed?)").
        let mut lines: Vec<&str> = text.lines().collect();
        lines.swap(5, 6);
        let e = check(&(lines.join("\n") + "\n")).unwrap_err();
        assert!(
            e.to_string().contains("time goes backwards")
                && e.to_string().contains("out of order")
                && !e.to_string().contains("a gap in time"),
            "{e}"
        );
        assert_eq!(e.line, Some(7));
        // A row removed: a gap in time, also before the last row.
        for at in [5, 49] {
            let mut lines: Vec<&str> = text.lines().collect();
            lines.remove(at);
            let e = check(&(lines.join("\n") + "\n")).unwrap_err();
            assert!(e.to_string().contains("a gap in time"), "{e}");
            assert_eq!(e.line, Some(at + 1));
        }
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

    /// `p` read whole, as before the row-by-row reader.
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
        // With the note `load_with_notes` adds to what the stream read.
        Some(shown(r.map(|(k, meta, mut notes)| {
            let t = k.into_timeline(meta);
            notes.extend(late_rows_note(&t, &name));
            (t, notes)
        })))
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

    /// A fio bandwidth log or a two-column CSV read row by row gives exactly what
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

    /// A fio log longer than the limit is read with a bounded look-ahead into a
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
