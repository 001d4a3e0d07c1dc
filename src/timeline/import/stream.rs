//! fio bandwidth logs and two-column CSVs of time and throughput read row by row,
//! into a bounded timeline ([`Kept`]) or any other sink, instead of reading the file's whole
//! text and a row of numbers per line.
//!
//! The whole-text readers of `import.rs` decide a few things from every row: whether a fio
//! log is windowed or per-I/O, the typical interval (for the first sample's length), and for
//! a per-I/O log the interval the writes are summed into (from its last time). Here those are
//! decided from a look-ahead of the first rows, as many as the sink keeps before it merges
//! ([`Kept::limit`], [`super::super::bounded::MAX_KEPT`] for a run): a file of at most that
//! many rows is read exactly as the whole-text reader reads it, and for a longer one only the
//! look-ahead is held. A per-I/O fio log longer than the look-ahead is read whole (its interval
//! depends on its end). The errors are the whole-text reader's, with the same lines: a row
//! that does not parse is an error at once; a check the whole-text reader makes after reading
//! every row (a rate above any drive's, time going backwards) is remembered and given at the
//! end, the first of the highest rank, so that the same error wins.

use std::io::{BufRead, Read};
use std::path::Path;

use super::format::Format;
use super::{
    aggregate_per_io, check_sample, clock_note, first_gap, first_interval, gap_error,
    implausible_time, is_windowed, left_out_note, not_text, nothing_written, parse_numeric_line,
    per_io_span_error, points, shared_note, too_few, two_column_units, typical_step, ImportError,
    Opts, EPOCH_S, GAP_STEPS, HEAD_LINES, MAX_RATE, MAX_TIME_S, X,
};
use crate::timeline::{RateSampler, RunMeta, Sample};

/// Lines of a file, one at a time, as `str::lines` gives them (without `\n` or `\r\n`).
struct LineReader<'n, R> {
    r: R,
    name: &'n str,
    buf: Vec<u8>,
    /// The number of the last line read (1-based).
    no: usize,
    /// Stop after this line (a file read without its cut-short last line).
    max: Option<usize>,
    /// The last line read had no newline at its end.
    cut: bool,
}

impl<'n, R: BufRead> LineReader<'n, R> {
    /// The next line and its number, or `None` at the end. Invalid UTF-8 is the error of a
    /// file that is not text, as when the whole text is read.
    fn next_line(&mut self) -> Result<Option<(usize, &str)>, ImportError> {
        if self.max.is_some_and(|m| self.no >= m) {
            return Ok(None);
        }
        self.buf.clear();
        let n = self
            .r
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| ImportError::whole(self.name, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        self.no += 1;
        let mut b = &self.buf[..];
        match b.strip_suffix(b"\n") {
            Some(body) => b = body.strip_suffix(b"\r").unwrap_or(body),
            None => self.cut = true,
        }
        let l = std::str::from_utf8(b).map_err(|_| not_text(self.name))?;
        Ok(Some((self.no, l)))
    }

    /// Reads to the end: the whole-text reader refuses a file that is not text anywhere
    /// before it reads a row, so that error replaces `e`.
    fn drain(&mut self, e: ImportError) -> ImportError {
        loop {
            match self.next_line() {
                Ok(Some(_)) => {}
                Ok(None) => return e,
                Err(b) => return b,
            }
        }
    }
}

/// Whether a line is blank or a `#` comment (not a row).
fn skipped(l: &str) -> bool {
    l.trim().is_empty() || l.trim_start().starts_with('#')
}

/// The error a checker found that the whole-text reader gives after reading every row: the
/// first of the lowest rank.
#[derive(Default)]
struct Deferred(Option<(u8, ImportError)>);

impl Deferred {
    fn offer(&mut self, rank: u8, e: impl FnOnce() -> ImportError) {
        if self.0.as_ref().is_none_or(|(r, _)| rank < *r) {
            self.0 = Some((rank, e()));
        }
    }

    fn into_result(self) -> Result<(), ImportError> {
        match self.0 {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// Where the samples go, with the checks the whole-text reader makes of the finished
/// timeline (at least two samples, each with a positive length and a rate a drive can write,
/// some bytes).
struct Out<'a> {
    sink: &'a mut dyn FnMut(&Sample),
    name: &'a str,
    pushed: usize,
    any_bytes: bool,
    bad: Option<ImportError>,
}

impl Out<'_> {
    fn push(&mut self, s: Sample) {
        if self.bad.is_none() {
            self.bad = check_sample(self.pushed, &s, self.name).err();
        }
        self.any_bytes |= s.bytes > 0;
        self.pushed += 1;
        (self.sink)(&s);
    }

    fn finish(self) -> Result<(), ImportError> {
        if self.pushed < 1 {
            return Err(too_few(self.name, self.pushed));
        }
        if let Some(e) = self.bad {
            return Err(e);
        }
        if !self.any_bytes {
            return Err(nothing_written(self.name));
        }
        Ok(())
    }
}

/// What a row did: carry on, or the file must be read whole after all.
enum Fed {
    On,
    Whole,
}

/// A reader of one format, given the rows (content lines) in order.
trait Rows {
    fn row(&mut self, no: usize, l: &str, out: &mut Out) -> Result<Fed, ImportError>;
    /// The run's metadata and the notes on how the rows were read.
    fn end(self: Box<Self>, out: &mut Out) -> Result<(RunMeta, Vec<String>), ImportError>;
}

/// A fio bandwidth log (`time_ms, value, ddir, bs, offset[, ...]`), as `read_fio_log` reads it.
struct Fio<'a> {
    name: &'a str,
    look_ahead: usize,
    cells: Vec<f64>,
    first_line: Option<usize>,
    reads: usize,
    writes: usize,
    /// Rows of other directions than reads and writes (trims).
    others: usize,
    deferred: Deferred,
    /// The first write row at or before the time of the one before it: an error when the
    /// log is windowed.
    equal: Option<ImportError>,
    /// The time (ms) and line of the last write row.
    prev: Option<(f64, usize)>,
    block_size: Option<f64>,
    /// The first write rows: (time_ms, KiB/s, bs, line).
    look: Vec<(f64, f64, f64, usize)>,
    /// Once the look-ahead is full (a windowed log): the epoch offset, the last time (s) and
    /// its line, and the typical interval.
    stream: Option<(Option<f64>, f64, usize, f64)>,
    rates: RateSampler,
}

/// The epoch offset of a windowed log whose first times are `secs` (fio's `log_unix_epoch`
/// logs count from 1970: the run starts one window before the first).
fn epoch_offset(secs: &[f64]) -> Option<f64> {
    (secs[0] > EPOCH_S).then(|| {
        let step = secs.get(1).map(|t| t - secs[0]).unwrap_or(1.0);
        secs[0] - step
    })
}

impl Fio<'_> {
    /// The look-ahead's times in seconds, shifted by the epoch offset, and that offset.
    fn look_secs(&self) -> (Vec<f64>, Option<f64>) {
        let mut secs: Vec<f64> = self.look.iter().map(|r| r.0 / 1000.0).collect();
        let off = epoch_offset(&secs);
        if let Some(off) = off {
            secs.iter_mut().for_each(|t| *t -= off);
        }
        (secs, off)
    }

    /// Offers the error of the first gap among the look-ahead's windows (`secs`).
    fn look_gap(&mut self, secs: &[f64], typical: f64) {
        if let Some(i) = first_gap(secs, typical) {
            let (name, look) = (self.name, &self.look);
            self.deferred.offer(5, || {
                gap_error(
                    name,
                    look[i].3,
                    secs[i],
                    secs[i - 1],
                    look[i - 1].3,
                    typical,
                )
            });
        }
    }
}

impl Rows for Fio<'_> {
    fn row(&mut self, no: usize, l: &str, out: &mut Out) -> Result<Fed, ImportError> {
        parse_numeric_line(l, no, self.name, &(5..=8), &mut self.cells)?;
        self.first_line.get_or_insert(no);
        let c = &self.cells;
        match c[2] as u64 {
            0 => {
                self.reads += 1;
                return Ok(Fed::On);
            }
            1 => self.writes += 1,
            _ => {
                self.others += 1;
                return Ok(Fed::On);
            }
        }
        let (t, kib, bs) = (c[0], c[1], c[3]);
        if kib * 1024.0 > MAX_RATE || bs > MAX_RATE {
            self.deferred.offer(2, || {
                ImportError::at(
                    self.name,
                    no,
                    format!(
                        "{kib} KiB/s (block size {bs}) is more than any drive writes (1 TB/s): \
                         a broken log"
                    ),
                )
            });
        }
        if t / 1000.0 > MAX_TIME_S {
            self.deferred
                .offer(2, || implausible_time(self.name, no, t));
        }
        if let Some((pt, pl)) = self.prev {
            if t < pt {
                self.deferred.offer(3, || {
                    ImportError::at(
                        self.name,
                        no,
                        format!("time goes backwards: {t} ms after {pt} ms on line {pl}"),
                    )
                });
            }
            if t <= pt && self.equal.is_none() {
                self.equal = Some(ImportError::at(
                    self.name,
                    no,
                    format!(
                        "time does not increase: {t} ms again (line {pl}); a windowed fio log \
                         has one write row per window"
                    ),
                ));
            }
        }
        self.prev = Some((t, no));
        self.block_size.get_or_insert(bs);
        if self.stream.is_none() {
            if self.look.len() < self.look_ahead {
                self.look.push((t, kib, bs, no));
                return Ok(Fed::On);
            }
            // The look-ahead is full: a per-I/O log is read whole (its interval depends on
            // its end); a windowed log's first rows go out, the rest follow one by one.
            let times: Vec<f64> = self.look.iter().map(|r| r.0).collect();
            if !is_windowed(&times) {
                return Ok(Fed::Whole);
            }
            let (secs, off) = self.look_secs();
            let typical = typical_step(&secs);
            self.look_gap(&secs, typical);
            for (i, &ts) in secs.iter().enumerate() {
                let dt = if i == 0 {
                    first_interval(ts, typical)
                } else {
                    ts - secs[i - 1]
                };
                out.push(self.rates.sample(ts, dt, self.look[i].1 * 1024.0));
            }
            let last = self.look.len() - 1;
            self.stream = Some((off, secs[last], self.look[last].3, typical));
            self.look = Vec::new();
        }
        if let Some((off, prev_t, prev_line, typical)) = &mut self.stream {
            let mut ts = t / 1000.0;
            if let Some(off) = off {
                ts -= *off;
            }
            if ts - *prev_t > GAP_STEPS * *typical {
                let (p, pl, ty) = (*prev_t, *prev_line, *typical);
                self.deferred
                    .offer(5, || gap_error(self.name, no, ts, p, pl, ty));
            }
            out.push(self.rates.sample(ts, ts - *prev_t, kib * 1024.0));
            *prev_t = ts;
            *prev_line = no;
        }
        Ok(Fed::On)
    }

    fn end(mut self: Box<Self>, out: &mut Out) -> Result<(RunMeta, Vec<String>), ImportError> {
        if self.writes == 0 {
            let what = if self.reads > 0 {
                format!("all {} rows are reads (ddir 0)", self.reads)
            } else {
                "no row is a write (ddir 1)".to_string()
            };
            return Err(ImportError::at(
                self.name,
                self.first_line.unwrap_or(1),
                format!(
                    "fio log without write rows: {what}; slccache measures writes, give the \
                     write bandwidth log (write_bw_log) of a write or mixed job"
                ),
            ));
        }
        let windowed = match self.stream {
            Some(_) => true,
            None => is_windowed(&self.look.iter().map(|r| r.0).collect::<Vec<_>>()),
        };
        if windowed {
            if let Some(e) = self.equal.take() {
                self.deferred.offer(4, || e);
            }
            if self.stream.is_none() && !self.look.is_empty() {
                let (secs, _) = self.look_secs();
                self.look_gap(&secs, typical_step(&secs));
            }
        }
        std::mem::take(&mut self.deferred).into_result()?;
        if self.stream.is_none() {
            // The whole log was in the look-ahead: read as the whole-text reader reads it.
            if windowed {
                let (secs, _) = self.look_secs();
                let rates: Vec<f64> = self.look.iter().map(|r| r.1 * 1024.0).collect();
                for (t, dt, r) in points(&secs, &rates) {
                    out.push(self.rates.sample(t, dt, r));
                }
            } else {
                let (first, last) = (&self.look[0], &self.look[self.look.len() - 1]);
                if let Some(e) = per_io_span_error(self.name, first.0, (last.0, last.3)) {
                    return Err(e);
                }
                let io: Vec<(f64, f64)> = self.look.iter().map(|r| (r.0, r.2)).collect();
                for s in aggregate_per_io(&io, RunMeta::default()).samples {
                    out.push(s);
                }
            }
        }
        let meta = RunMeta {
            workload: crate::timeline::Workload {
                pattern: "fio".to_string(),
                block_size: self.block_size.map(|b| b as u64).filter(|&b| b > 0),
                ..Default::default()
            },
            stop_reason: Some(crate::timeline::StopReason::EndOfData),
            rate_log: true,
            ..RunMeta::default()
        };
        let notes = left_out_note(self.name, self.reads, self.others);
        Ok((meta, notes.into_iter().collect()))
    }
}

/// A two-column CSV of time and throughput, as `read_two_column` reads it (rows sharing a
/// time averaged; with a first row at 0 s, the times are where each row's interval starts).
struct TwoColumn<'a> {
    name: &'a str,
    look_ahead: usize,
    cells: Vec<f64>,
    header_line: Option<usize>,
    time_scale: f64,
    rate_scale: f64,
    /// The header names the rate first (`MB/s,time_s`).
    swapped: bool,
    /// Rows that share their time with the row before (averaged with it).
    shared: usize,
    deferred: Deferred,
    /// Time went backwards: the rows after do not matter but for their checks.
    broken: bool,
    prev_line: usize,
    /// The time being read: its time, the sum of its rates and their count, and its first
    /// line.
    pending: Option<(f64, f64, f64, usize)>,
    times_seen: usize,
    /// In a file whose first time is 0: the rate of the last row, whose interval ends at the
    /// next row's time.
    held: Option<f64>,
    look_t: Vec<f64>,
    look_r: Vec<f64>,
    look_l: Vec<usize>,
    /// Once the look-ahead is full: the last time given out, its line, and the typical
    /// interval.
    stream: Option<(f64, usize, f64)>,
    rates: RateSampler,
    /// Where the times are a clock's (Unix time): the time the log's first interval began,
    /// taken off every time (as `read_two_column` does), and the first time, for the note.
    clock: Option<(f64, f64)>,
}

impl TwoColumn<'_> {
    /// Where the look-ahead's times are a clock's (the first at or past [`EPOCH_S`]), counts
    /// them, and every time after them, from the interval before the first (`typical` long).
    fn rebase_look(&mut self, typical: f64) {
        if self.clock.is_none() && self.look_t.len() >= 2 && self.look_t[0] >= EPOCH_S {
            let start = self.look_t[0] - typical;
            self.clock = Some((start, self.look_t[0]));
            self.look_t.iter_mut().for_each(|t| *t -= start);
        }
    }

    /// Offers the error of the first gap among the look-ahead's times.
    fn look_gap(&mut self, typical: f64) {
        if let Some(i) = first_gap(&self.look_t, typical) {
            let (name, ts, t, l) = (self.name, self.time_scale, &self.look_t, &self.look_l);
            self.deferred.offer(5, || {
                gap_error(name, l[i], t[i] / ts, t[i - 1] / ts, l[i - 1], typical / ts)
            });
        }
    }

    /// One time of the file with its mean rate. A file whose first time is 0 gives the
    /// start of each row's interval, as `read_two_column` reads it: each rate is held until
    /// the next time comes, which ends its interval (the last one's is ended by `end`).
    fn point(&mut self, (t, sum, count, line): (f64, f64, f64, usize), out: &mut Out) {
        self.times_seen += 1;
        let r = sum / count;
        if self.times_seen == 1 && t == 0.0 {
            self.held = Some(r);
            return;
        }
        match self.held.as_mut() {
            Some(held) => {
                let r = std::mem::replace(held, r);
                self.place(t, r, line, out);
            }
            None => self.place(t, r, line, out),
        }
    }

    /// The rate `r` of the interval that ends at `t` (its row's `line`, for errors).
    fn place(&mut self, t: f64, r: f64, line: usize, out: &mut Out) {
        if self.stream.is_none() {
            if self.look_t.len() < self.look_ahead {
                self.look_t.push(t);
                self.look_r.push(r);
                self.look_l.push(line);
                return;
            }
            let typical = typical_step(&self.look_t);
            self.look_gap(typical);
            self.rebase_look(typical);
            for (i, (&lt, &lr)) in self.look_t.iter().zip(&self.look_r).enumerate() {
                let dt = if i == 0 {
                    first_interval(lt, typical)
                } else {
                    lt - self.look_t[i - 1]
                };
                out.push(self.rates.sample(lt, dt, lr));
            }
            let last = self.look_t.len() - 1;
            self.stream = Some((self.look_t[last], self.look_l[last], typical));
            self.look_t = Vec::new();
            self.look_r = Vec::new();
            self.look_l = Vec::new();
        }
        let t = t - self.clock.map_or(0.0, |(start, _)| start);
        if let Some((prev, prev_line, typical)) = &mut self.stream {
            if t - *prev > GAP_STEPS * *typical {
                let (p, pl, ty, ts) = (*prev, *prev_line, *typical, self.time_scale);
                self.deferred.offer(5, || {
                    gap_error(self.name, line, t / ts, p / ts, pl, ty / ts)
                });
            }
            out.push(self.rates.sample(t, t - *prev, r));
            *prev = t;
            *prev_line = line;
        }
    }
}

impl Rows for TwoColumn<'_> {
    fn row(&mut self, no: usize, l: &str, out: &mut Out) -> Result<Fed, ImportError> {
        if self.header_line == Some(no) {
            return Ok(Fed::On);
        }
        parse_numeric_line(l, no, self.name, &(2..=2), &mut self.cells)?;
        if self.swapped {
            self.cells.swap(0, 1);
        }
        let (c0, c1) = (self.cells[0], self.cells[1]);
        if c1 * self.rate_scale > MAX_RATE {
            self.deferred.offer(2, || {
                ImportError::at(
                    self.name,
                    no,
                    format!("{c1} is more than any drive writes (1 TB/s): a broken log"),
                )
            });
        }
        if c0 * self.time_scale > MAX_TIME_S {
            self.deferred
                .offer(2, || implausible_time(self.name, no, c0));
        }
        if self.broken {
            return Ok(Fed::On);
        }
        let t = c0 * self.time_scale;
        let v = c1 * self.rate_scale;
        match &mut self.pending {
            Some((last, _, _, _)) if t < *last => {
                let (last, prev_line, ts) = (*last, self.prev_line, self.time_scale);
                self.deferred.offer(3, || {
                    ImportError::at(
                        self.name,
                        no,
                        format!(
                            "time goes backwards: {c0} after {} on line {prev_line}",
                            last / ts
                        ),
                    )
                });
                self.broken = true;
            }
            Some((last, sum, count, _)) if t == *last => {
                *sum += v;
                *count += 1.0;
                self.shared += 1;
            }
            _ => {
                if let Some(p) = self.pending.take() {
                    self.point(p, out);
                }
                self.pending = Some((t, v, 1.0, no));
            }
        }
        self.prev_line = no;
        Ok(Fed::On)
    }

    fn end(mut self: Box<Self>, out: &mut Out) -> Result<(RunMeta, Vec<String>), ImportError> {
        if !self.broken {
            if let Some(p) = self.pending.take() {
                self.point(p, out);
            }
            // The last row of a file of interval starts holds for one typical interval.
            let last = match self.stream {
                Some((prev, line, typical)) => Some((prev, line, typical)),
                None if !self.look_t.is_empty() => {
                    let mut times = vec![0.0];
                    times.extend(&self.look_t);
                    let l = self.look_l[self.look_l.len() - 1];
                    Some((times[times.len() - 1], l, typical_step(&times)))
                }
                None => None,
            };
            if let (Some(r), Some((prev, line, typical))) = (self.held.take(), last) {
                self.place(prev + typical, r, line, out);
            }
        }
        if self.stream.is_none() && !self.look_t.is_empty() {
            self.look_gap(typical_step(&self.look_t));
        }
        std::mem::take(&mut self.deferred).into_result()?;
        if self.stream.is_none() {
            if self.look_t.is_empty() {
                return Err(ImportError::whole(
                    self.name,
                    "no data rows after the header",
                ));
            }
            self.rebase_look(typical_step(&self.look_t));
            for (t, dt, r) in points(&self.look_t, &self.look_r) {
                out.push(self.rates.sample(t, dt, r));
            }
        }
        // A log of rates over time, as the whole-text reader reads it.
        let meta = RunMeta {
            stop_reason: Some(crate::timeline::StopReason::EndOfData),
            rate_log: true,
            ..RunMeta::default()
        };
        let mut notes: Vec<String> = shared_note(self.name, self.shared).into_iter().collect();
        if let Some((_, first)) = self.clock {
            notes.push(clock_note(self.name, first));
        }
        Ok((meta, notes))
    }
}

/// How one reading of the file ended.
struct Outcome {
    result: Result<(RunMeta, Vec<String>), ImportError>,
    /// Lines read.
    lines: usize,
    /// The file does not end with a newline.
    cut: bool,
}

/// Opens a regular file whose start is text (as `read_text` checks it: no UTF-16 or UTF-8
/// byte-order mark, no NUL byte, valid UTF-8 in the first 64 KiB), else `None`.
fn open(path: &Path) -> Option<impl BufRead> {
    let f = std::fs::File::open(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut r = std::io::BufReader::new(f);
    let mut head = Vec::with_capacity(64 << 10);
    (&mut r).take(64 << 10).read_to_end(&mut head).ok()?;
    let marked = [&[0xff, 0xfe][..], &[0xfe, 0xff], "\u{feff}".as_bytes()]
        .iter()
        .any(|m| head.starts_with(m));
    if marked || head.contains(&0) {
        return None;
    }
    if let Err(e) = std::str::from_utf8(&head) {
        if e.error_len().is_some() {
            return None;
        }
    }
    Some(std::io::Cursor::new(head).chain(r))
}

/// Reads `path` once (up to line `max` when given) with a look-ahead of `look_ahead` rows,
/// giving each sample to `sink`. `None` when the file is not a plain fio log or two-column CSV
/// of time, or must be read whole after all (a per-I/O log longer than the look-ahead).
fn read_once(
    path: &Path,
    name: &str,
    opts: &Opts,
    look_ahead: usize,
    max: Option<usize>,
    sink: &mut dyn FnMut(&Sample),
) -> Option<Outcome> {
    let mut lines = LineReader {
        r: open(path)?,
        name,
        buf: Vec::new(),
        no: 0,
        max,
        cut: false,
    };
    // The first lines, up to HEAD_LINES rows: a spreadsheet's CSV is recognised from them
    // (`dialect::normalize`), and the format from the first row.
    let mut head: Vec<(usize, String)> = Vec::new();
    let mut rows = 0;
    while rows < HEAD_LINES {
        match lines.next_line() {
            Ok(Some((no, l))) => {
                if !skipped(l) {
                    if l.contains(['"', ';', '\t']) {
                        return None;
                    }
                    rows += 1;
                }
                head.push((no, l.to_string()));
            }
            Ok(None) => break,
            Err(_) => return None,
        }
    }
    let (first_no, first) = head
        .iter()
        .find(|(_, l)| !skipped(l))
        .map(|(no, l)| (*no, l.trim()))?;
    // XML and slccache's own timeline are read elsewhere; so is any first line that starts
    // like XML, which the whole-text reader answers.
    if first.starts_with('<') {
        return None;
    }
    let format = Format::sniff(first);
    let mut notes = Vec::new();
    let mut out = Out {
        sink,
        name,
        pushed: 0,
        any_bytes: false,
        bad: None,
    };
    let reader: Result<Box<dyn Rows + '_>, ImportError> = match format {
        Format::FioLog => {
            let flags = super::unit_flags(opts);
            if !flags.is_empty() {
                notes.push(format!(
                    "{name}: {} ignored: a fio log carries its own units",
                    flags.join(" and ")
                ));
            }
            Ok(Box::new(Fio {
                name,
                look_ahead,
                cells: Vec::new(),
                first_line: None,
                reads: 0,
                writes: 0,
                others: 0,
                deferred: Deferred::default(),
                equal: None,
                prev: None,
                block_size: None,
                look: Vec::new(),
                stream: None,
                rates: RateSampler::default(),
            }))
        }
        Format::TwoColumn => {
            let has_header = first.split(',').any(|c| c.trim().parse::<f64>().is_err());
            match two_column_units(first, first_no, has_header, name, opts) {
                // A CSV of positions is read whole.
                Ok((X::Position(_), _, _)) => return None,
                Ok((X::Time(time_scale), rate_scale, swapped)) => Ok(Box::new(TwoColumn {
                    name,
                    look_ahead,
                    cells: Vec::new(),
                    header_line: has_header.then_some(first_no),
                    time_scale,
                    rate_scale,
                    swapped,
                    shared: 0,
                    deferred: Deferred::default(),
                    broken: false,
                    prev_line: 0,
                    pending: None,
                    times_seen: 0,
                    held: None,
                    look_t: Vec::new(),
                    look_r: Vec::new(),
                    look_l: Vec::new(),
                    stream: None,
                    rates: RateSampler::default(),
                    clock: None,
                })),
                Err(e) => Err(e),
            }
        }
        _ => return None,
    };
    let fed = reader.and_then(|mut reader| {
        for (no, l) in &head {
            if !skipped(l) {
                if let Fed::Whole = reader.row(*no, l.trim(), &mut out)? {
                    return Ok(None);
                }
            }
        }
        drop(head);
        while let Some((no, l)) = lines.next_line()? {
            if !skipped(l) {
                if let Fed::Whole = reader.row(no, l.trim(), &mut out)? {
                    return Ok(None);
                }
            }
        }
        Ok(Some(reader))
    });
    let result = match fed {
        Ok(None) => return None,
        Ok(Some(reader)) => reader.end(&mut out).and_then(|(meta, more)| {
            notes.extend(more);
            out.finish().map(|_| (meta, notes))
        }),
        Err(e) => Err(lines.drain(e)),
    };
    Some(Outcome {
        result,
        lines: lines.no,
        cut: lines.cut,
    })
}

/// What [`read`] gives: the sink, the run's metadata and the notes, or the error.
pub(super) type Streamed<S> = Result<(S, RunMeta, Vec<String>), ImportError>;

/// Reads a plain fio bandwidth log or two-column CSV of time and throughput row by row into
/// sinks made by `make` (a second one when a cut-short last line is dropped), returning the
/// sink with the run's metadata and the notes: the samples, errors and notes of the
/// whole-text reader for a file of at most `look_ahead` rows. `None` for any other file.
pub(super) fn read<S>(
    path: &Path,
    name: &str,
    opts: &Opts,
    look_ahead: usize,
    mut make: impl FnMut() -> S,
    mut push: impl FnMut(&mut S, &Sample),
) -> Option<Streamed<S>> {
    let look_ahead = look_ahead.max(2);
    let mut sink = make();
    let first = read_once(path, name, opts, look_ahead, None, &mut |s| {
        push(&mut sink, s)
    })?;
    match first.result {
        // A last line cut short (no newline at the end) where the error is, is dropped, as
        // the whole-text reader does, when the file reads without it.
        Err(e) if first.cut && e.line == Some(first.lines) && first.lines >= 2 => {
            let last = first.lines;
            let mut again = make();
            let retry = read_once(path, name, opts, look_ahead, Some(last - 1), &mut |s| {
                push(&mut again, s)
            })?;
            match retry.result {
                Ok((meta, mut notes)) => {
                    notes.push(format!(
                        "{name}: line {last} is cut short (no newline at the end of the file, \
                         and it does not parse): dropped as a truncated last line"
                    ));
                    Some(Ok((again, meta, notes)))
                }
                Err(_) => Some(Err(e)),
            }
        }
        r => Some(r.map(|(meta, mut notes)| {
            if first.cut && first.lines >= 2 {
                notes.push(super::unterminated_last_line(name, first.lines));
            }
            (sink, meta, notes)
        })),
    }
}
