//! Reading timelines from files: slccache `timeline.csv`, fio bandwidth logs, two-column CSVs.
//!
//! Every error names the file and the line so that a user can fix the input.

use std::path::Path;

use super::{read_slccache_csv, RunMeta, Sample, Timeline};

/// A timeline file that could not be read; names the file and (where it applies) the line.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ImportError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line number, where the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong, and where it helps, what to do.
    pub message: String,
}

impl ImportError {
    /// An error at a given line.
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> ImportError {
        ImportError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }
    /// An error about the whole file.
    pub fn whole(file: &str, message: impl Into<String>) -> ImportError {
        ImportError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

/// Units for a two-column CSV that has no header (from `--time-unit` and `--rate-unit`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportOptions {
    /// Seconds per unit of the time column (1 for s, 0.001 for ms).
    pub time_scale: Option<f64>,
    /// Bytes/s per unit of the rate column (1e6 for MB/s, 1048576 for MiB/s, ...).
    pub rate_scale: Option<f64>,
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
    let t = s.trim().to_ascii_lowercase();
    let body = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("_s"))
        .or_else(|| t.strip_suffix("/sec"))
        .or_else(|| t.strip_suffix("ps"))?;
    unit_prefix(body)
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
fn rate_unit_in_header(cell: &str) -> Option<f64> {
    let t = cell.to_ascii_lowercase();
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
                    return Some(scale);
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
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| ImportError::whole(&name, format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ImportError::whole(&name, "not a text file (invalid UTF-8): unknown format")
    })?;
    let mut t = parse_text(&text, &name, opts)?;
    t.meta.label = label_of(path);
    Ok(t)
}

/// Parses the content of a timeline file; `name` is used in error messages.
pub fn parse_text(text: &str, name: &str, opts: &ImportOptions) -> Result<Timeline, ImportError> {
    if text.trim().is_empty() {
        return Err(ImportError::whole(name, "the file is empty"));
    }
    let (first_no, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.trim()))
        .unwrap_or((1, ""));
    let timeline =
        if first.starts_with("t_s,") && first.split(',').count() > 2 {
            let samples = read_slccache_csv(text, name)?;
            for (i, pair) in samples.windows(2).enumerate() {
                if pair[1].t_s <= pair[0].t_s {
                    return Err(ImportError::at(
                        name,
                        i + 3,
                        format!(
                            "time does not increase: t_s {} after {}",
                            pair[1].t_s, pair[0].t_s
                        ),
                    ));
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
                (5..=8, true) => read_fio_log(text, name)?,
                (2, _) => read_two_column(text, name, opts)?,
                _ => return Err(ImportError::at(
                    name,
                    first_no,
                    "unknown format: expected a slccache timeline.csv (header 't_s,...'), a fio \
                     bandwidth log (5 to 8 numeric columns: time_ms, KiB/s, ddir, bs, offset), \
                     or a two-column CSV of time and throughput",
                )),
            }
        };
    validate(&timeline, name)?;
    Ok(timeline)
}

/// Checks what the detector relies on: at least two samples, time increasing.
fn validate(t: &Timeline, name: &str) -> Result<(), ImportError> {
    if t.samples.len() < 2 {
        return Err(ImportError::whole(
            name,
            format!(
                "only {} sample(s): at least two are needed to analyse a timeline",
                t.samples.len()
            ),
        ));
    }
    for (i, s) in t.samples.iter().enumerate() {
        if s.interval_s.is_nan() || s.interval_s <= 0.0 || !s.t_s.is_finite() {
            return Err(ImportError::whole(
                name,
                format!("sample {} (t = {} s) has no positive length", i + 1, s.t_s),
            ));
        }
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
        let parts: Vec<&str> = l.split(',').map(str::trim).collect();
        if !ncols.contains(&parts.len()) {
            return Err(ImportError::at(
                name,
                line,
                format!(
                    "expected {} to {} columns, found {}",
                    ncols.start(),
                    ncols.end(),
                    parts.len()
                ),
            ));
        }
        let mut cells = Vec::with_capacity(parts.len());
        for (k, p) in parts.iter().enumerate() {
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
        rows.push(Row { line, cells });
    }
    Ok(rows)
}

/// Reads a fio bandwidth log: `time_ms, value, ddir, bs, offset[, prio[, issue_time[, ...]]]`.
///
/// Windowed logs (`log_avg_msec`) carry KiB/s per window; per-I/O logs carry one row per
/// completed write, which are summed (by their `bs` column) into fixed intervals. Rows of other
/// directions are ignored; a mixed log uses its write rows (ddir 1).
fn read_fio_log(text: &str, name: &str) -> Result<Timeline, ImportError> {
    let rows = numeric_rows(text, name, 5..=8, false)?;
    let (mut reads, mut writes) = (0usize, 0usize);
    for r in &rows {
        match r.cells[2] as u64 {
            0 => reads += 1,
            1 => writes += 1,
            _ => {}
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
    if is_windowed(&w) {
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
        let rates: Vec<f64> = w.iter().map(|r| r.cells[1] * 1024.0).collect();
        Ok(Timeline::from_rates(&points(&times, &rates), meta))
    } else {
        Ok(aggregate_per_io(&w, meta))
    }
}

/// Times above this many seconds are Unix epoch times (fio's `log_unix_epoch`): 1973 on.
const EPOCH_S: f64 = 1e8;

/// A windowed log has nearly constant spacing between rows; a per-I/O log does not (many rows
/// share a millisecond, gaps follow completions).
fn is_windowed(w: &[&Row]) -> bool {
    if w.len() < 3 {
        return true;
    }
    let mut d: Vec<f64> = w
        .windows(2)
        .map(|p| p[1].cells[0] - p[0].cells[0])
        .collect();
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

/// Sums per-I/O rows (bytes from the `bs` column, at their completion time) into intervals:
/// the longest of 1 s, 0.5 s, 0.2 s, 0.1 s that still gives at least 200 intervals.
fn aggregate_per_io(w: &[&Row], meta: RunMeta) -> Timeline {
    // `log_unix_epoch=1` logs count from 1970: start the run at the first write.
    let first_s = w.first().map(|r| r.cells[0] / 1000.0).unwrap_or(0.0);
    let off = if first_s > EPOCH_S { first_s } else { 0.0 };
    let end_s = w.last().map(|r| r.cells[0] / 1000.0 - off).unwrap_or(0.0);
    let dt = [1.0, 0.5, 0.2, 0.1]
        .into_iter()
        .find(|&dt| end_s / dt >= 200.0)
        .unwrap_or(0.1);
    let nbins = ((end_s / dt).ceil() as usize).max(1);
    let mut bytes = vec![0u64; nbins];
    for r in w {
        let k = (((r.cells[0] / 1000.0 - off) / dt).ceil() as usize).clamp(1, nbins) - 1;
        bytes[k] += r.cells[3] as u64;
    }
    let mut total = 0u64;
    let samples = bytes
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            total += b;
            let t_end = ((k + 1) as f64 * dt).min(end_s.max(dt));
            let len = (t_end - k as f64 * dt).max(1e-3);
            Sample {
                t_s: k as f64 * dt + len,
                interval_s: len,
                bytes: b,
                bytes_total: total,
                bytes_per_sec: b as f64 / len,
                iops: 0.0,
                lat_p50_us: None,
                lat_p99_us: None,
                lat_max_us: None,
                temp_c: None,
                thermal_transitions: None,
                read: None,
                cpu_pct: None,
                cpu_wait_pct: None,
            }
        })
        .collect();
    Timeline { samples, meta }
}

/// (t_end, interval, rate) points from end times: each interval runs from the previous time;
/// the first from 0 when its time is at most 1.5 typical intervals, else one typical interval.
fn points(times: &[f64], rates: &[f64]) -> Vec<(f64, f64, f64)> {
    let mut d: Vec<f64> = times.windows(2).map(|p| p[1] - p[0]).collect();
    d.sort_by(|a, b| a.total_cmp(b));
    let typical = d.get(d.len() / 2).copied().unwrap_or(times[0].max(1e-3));
    times
        .iter()
        .zip(rates)
        .enumerate()
        .map(|(i, (&t, &r))| {
            let dt = if i == 0 {
                if t > 0.0 && t <= 1.5 * typical {
                    t
                } else {
                    typical
                }
            } else {
                t - times[i - 1]
            };
            (t, dt, r)
        })
        .collect()
}

/// Reads a two-column CSV of time and throughput. Units come from the header (`second,MiB/s`,
/// `time_ms,write_MB_s`) or, without a header, from [`ImportOptions`]. Rows sharing a time
/// (e.g. a mixed log whose direction column was lost) are averaged.
fn read_two_column(text: &str, name: &str, opts: &ImportOptions) -> Result<Timeline, ImportError> {
    let (first_no, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map(|(i, l)| (i + 1, l.trim()))
        .unwrap_or((1, ""));
    let cells: Vec<&str> = first.split(',').map(str::trim).collect();
    let has_header = cells.iter().any(|c| c.parse::<f64>().is_err());
    let (time_scale, rate_scale) = if has_header {
        let ts = time_unit_in_header(cells[0])
            .or(opts.time_scale)
            .ok_or_else(|| {
                ImportError::at(
                    name,
                    first_no,
                    format!(
                        "the header '{first}' does not name the time unit: write 'seconds' or \
                     'time_ms', or give --time-unit s|ms"
                    ),
                )
            })?;
        let rs = rate_unit_in_header(cells[1])
            .or(opts.rate_scale)
            .ok_or_else(|| {
                ImportError::at(
                    name,
                    first_no,
                    format!(
                        "the header '{first}' does not name the rate unit: write e.g. 'MB/s', \
                     'MiB/s', 'KiB/s' or 'GB/s', or give --rate-unit"
                    ),
                )
            })?;
        (ts, rs)
    } else {
        match (opts.time_scale, opts.rate_scale) {
            (Some(t), Some(r)) => (t, r),
            _ => {
                return Err(ImportError::at(
                    name,
                    first_no,
                    "a two-column CSV without a header: give its units with --time-unit s|ms \
                     and --rate-unit MB/s|MiB/s|KiB/s|GB/s, or add a header such as \
                     'seconds,MB/s'",
                ))
            }
        }
    };
    let rows = numeric_rows(text, name, 2..=2, has_header)?;
    let mut times: Vec<f64> = Vec::with_capacity(rows.len());
    let mut rates: Vec<f64> = Vec::with_capacity(rows.len());
    let mut counts: Vec<f64> = Vec::with_capacity(rows.len());
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
            }
            _ => {
                times.push(t);
                rates.push(v);
                counts.push(1.0);
            }
        }
        prev_line = r.line;
    }
    if times.first() == Some(&0.0) {
        // A row at t = 0 has no interval before it; it says nothing about throughput.
        times.remove(0);
        rates.remove(0);
        counts.remove(0);
    }
    if times.is_empty() {
        return Err(ImportError::whole(name, "no data rows after the header"));
    }
    for (r, c) in rates.iter_mut().zip(&counts) {
        *r /= c;
    }
    let meta = RunMeta {
        stop_reason: Some(super::StopReason::EndOfData),
        ..RunMeta::default()
    };
    Ok(Timeline::from_rates(&points(&times, &rates), meta))
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
