//! Two-column CSVs of time (or data written) against throughput, columns found by name.

use super::*;

/// Finds a position (data written) in a header cell such as `MB`, `GiB`, `written_MiB`,
/// `offset` or `position (GB)`: `Some(Some(bytes per unit))`, or `Some(None)` for a position
/// without a unit (`offset`, `written`); `None` when the cell is no position.
pub(super) fn position_in_header(cell: &str) -> Option<Option<f64>> {
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
pub(super) enum X {
    Time(f64),
    Position(f64),
}

/// The units of a two-column CSV from its first line (`first`, line `first_no`: a header
/// when `has_header`) and the unit flags; a note when the header overrides flags given.
pub(super) fn two_column_units(
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

/// The note of a two-column CSV whose times are a clock's (the first, `first_s` in seconds
/// whatever the file's unit, at or past [`super::EPOCH_S`]: no run lasts 3 years, and Unix
/// time has been past it since 1973): they are counted from the interval before the first
/// row. The first time is said as the date it is, in UTC, so that a column of milliseconds
/// is not told in seconds.
pub(super) fn clock_note(name: &str, first_s: f64) -> String {
    let ms = (first_s * 1000.0).round() as i64;
    let date = chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| {
            let frac = if ms % 1000 != 0 {
                format!(".{:03}", ms % 1000)
            } else {
                String::new()
            };
            format!("{}{frac} UTC", d.format("%Y-%m-%d %H:%M:%S"))
        })
        .unwrap_or_else(|| format!("{first_s} s"));
    format!(
        "{name}: the times start at {date}, a clock's time (Unix time), not time since the \
         start: read as time since the interval before the first row"
    )
}

/// Reads a two-column CSV of time and throughput, or of position (data written) and
/// throughput. Units come from the header (`second,MiB/s`, `time_ms,write_MB_s`, `MiB,MB/s`)
/// or, without a header, from [`ImportOptions`]. Rows sharing a time (e.g. a mixed log whose
/// direction column was lost) are averaged. Says whether the rows gave times (`true`) or
/// positions, whose times are derived.
pub(super) fn read_two_column(
    text: &str,
    name: &str,
    opts: &Opts,
    notes: &mut Vec<String>,
) -> Result<(Timeline, bool), ImportError> {
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
        stop_reason: Some(crate::timeline::StopReason::EndOfData),
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
            return Ok((t, false));
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
    // Times of a clock (Unix time, seconds since 1970: 1764888001 for December 2025) rather
    // than since the start: counted from the first row, which ends the log's first interval,
    // and said so. Read as they were, a minute's log was "490247 h" long and its chart empty.
    if let (Some(&first), true) = (times.first(), times.len() >= 2) {
        if first >= super::EPOCH_S {
            let start = first - typical_step(&times);
            times.iter_mut().for_each(|t| *t -= start);
            notes.push(clock_note(name, first));
        }
    }
    if times.first() == Some(&0.0) && times.len() >= 2 {
        // A first row at t = 0 has no interval before it: the times are where each row's
        // interval starts, so each rate holds until the next row's time, and the last row's
        // for one typical interval (as a CSV of positions starting at 0 is read). Every row
        // is kept: dropping the first lost its data (a 40 GB log read as 38 GB).
        let end = times[times.len() - 1] + typical_step(&times);
        times.remove(0);
        times.push(end);
        let last_line = lines[lines.len() - 1];
        lines.remove(0);
        lines.push(last_line);
    } else if times.first() == Some(&0.0) {
        // One time alone, at 0: no interval at all.
        times.clear();
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
    Ok((Timeline::from_rates(&points(&times, &rates), meta), true))
}

/// The note of `n` rows of a two-column CSV that share their time with the row before.
pub(super) fn shared_note(name: &str, n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{name}: {n} row{} the same time as the row before: the rows of each time are \
             averaged into one sample (a log of two directions, or a duplicated row?)",
            if n == 1 { " has" } else { "s have" }
        )
    })
}

/// Rows of (position, rate) as a timeline: each row is one chunk of data, written at its
/// rate, so its time is its bytes over its rate. Positions are the ends of the chunks (the
/// first chunk starts at 0), or, when the first position is 0, their starts (the last chunk
/// is then as long as the typical one).
pub(super) fn read_positions(
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
