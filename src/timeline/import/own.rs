//! slccache's own `timeline.csv`, read row by row into a bounded timeline.

use super::*;

/// slccache's own `timeline.csv` (a regular file whose first line is its header, and whose
/// first lines are plain comma-separated text), read row by row into a bounded timeline
/// ([`Kept`]): the file's text is never held whole, and past
/// [`super::bounded::MAX_KEPT`] rows the samples are merged. `None` for any other file
/// (other formats and spreadsheet dialects are read whole, by [`parse_text_notes`]). The
/// checks and notes are those of the whole-text reader: the same errors, and a cut-short
/// last line dropped with the same note.
pub(super) fn stream_own_timeline(
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
    let mut rows = OwnRows::default();
    let mut any_bytes = false;
    let read = read_slccache_rows(std::io::Cursor::new(head).chain(r), name, |s, line| {
        rows.row(&s, name, line)?;
        check_sample(kept.pushed() as usize, &s, name)?;
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
    } else if let Some(last) = cut_short_last_line(path).filter(|&n| n >= 2) {
        notes.push(super::unterminated_last_line(name, last));
    }
    if let Err(e) = rows.finish() {
        return Some(Err(e));
    }
    if kept.pushed() < 1 {
        return Some(Err(super::checks::too_few(name, 0)));
    }
    if !any_bytes {
        return Some(Err(nothing_written(name)));
    }
    Some(Ok((kept.into_timeline(RunMeta::default()), notes)))
}

/// The check of slccache's own timeline's rows, one after another: each row's time
/// increases, and each starts where the row before ended (`t_s - interval_s`, within the
/// file's six decimals). slccache writes every interval, so nothing is made up for a hole. A
/// row that leaves a gap is judged at the next row: where that row goes back in time, the
/// rows are out of order (two swapped leave a gap before the second), which is the fault
/// named; else the gap is.
#[derive(Default)]
pub(super) struct OwnRows {
    /// The row before: its `t_s` and line.
    prev: Option<(f64, usize)>,
    /// A gap found at the row before, said unless this row shows the rows out of order.
    gap: Option<ImportError>,
}

impl OwnRows {
    /// Row `line` (sample `s`): an error where the rows so far are not as slccache writes them.
    pub(super) fn row(&mut self, s: &Sample, name: &str, line: usize) -> Result<(), ImportError> {
        let Some((prev, prev_line)) = self.prev.replace((s.t_s, line)) else {
            return Ok(());
        };
        if s.t_s < prev {
            return Err(ImportError::at(
                name,
                line,
                format!(
                    "time goes backwards: t_s {} after t_s {prev} on line {prev_line}: the rows \
                     are out of order; give the timeline.csv as slccache wrote it",
                    s.t_s
                ),
            ));
        }
        if s.t_s == prev {
            return Err(ImportError::at(
                name,
                line,
                format!(
                    "time does not increase: t_s {} after {prev} (a row repeated?)",
                    s.t_s
                ),
            ));
        }
        if let Some(e) = self.gap.take() {
            return Err(e);
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
            let e = ImportError::at(
                name,
                line,
                format!(
                    "a gap in time: this row starts at {} s (t_s {} less interval_s {}), but \
                     the row before ends at {} s: {what}; give the timeline.csv as slccache \
                     wrote it",
                    round_s(start),
                    s.t_s,
                    s.interval_s,
                    round_s(prev)
                ),
            );
            if start > prev {
                self.gap = Some(e);
            } else {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The end of the rows: a gap before the last row is an error.
    pub(super) fn finish(&mut self) -> Result<(), ImportError> {
        self.gap.take().map_or(Ok(()), Err)
    }
}

/// The number of the last line of `path` when the file does not end with a newline.
pub(super) fn cut_short_last_line(path: &Path) -> Option<usize> {
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
pub(super) fn is_timeline_header(first: &str) -> bool {
    let cells: Vec<&str> = first
        .split(',')
        .map(|c| c.trim().trim_matches('"'))
        .collect();
    cells.len() > 2 && cells.contains(&"t_s") && cells.contains(&"bytes_per_sec")
}
