//! fio bandwidth logs (`--write_bw_log`): windowed or per-I/O, read whole.

use super::*;

/// The fio logs that are not bandwidth logs, by their file name: `<prefix>_iops.N.log`,
/// `_lat`, `_clat`, `_slat` (and `_clat_hist`). Returns what the log holds.
pub(super) fn fio_non_bandwidth_log(path: &Path) -> Option<&'static str> {
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

/// Reads a fio bandwidth log: `time_ms, value, ddir, bs, offset[, prio[, issue_time[, ...]]]`.
///
/// Windowed logs (`log_avg_msec`) carry KiB/s per window; per-I/O logs carry one row per
/// completed write, which are summed (by their `bs` column) into fixed intervals. Rows of other
/// directions are ignored; a mixed log uses its write rows (ddir 1).
pub(super) fn read_fio_log(
    text: &str,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Timeline, ImportError> {
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
        workload: crate::timeline::Workload {
            pattern: "fio".to_string(),
            block_size: w.first().map(|r| r.cells[3] as u64).filter(|&b| b > 0),
            ..Default::default()
        },
        stop_reason: Some(crate::timeline::StopReason::EndOfData),
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
pub(super) fn read_fio_writes(
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
pub(super) const EPOCH_S: f64 = 1e8;

/// A windowed log has nearly constant spacing between rows; a per-I/O log does not (many rows
/// share a millisecond, gaps follow completions).
pub(super) fn is_windowed(times_ms: &[f64]) -> bool {
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
pub(super) fn aggregate_per_io(w: &[(f64, f64)], meta: RunMeta) -> Timeline {
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

/// The note of the rows of a mixed fio log that are not writes: `reads` (ddir 0) and `others`
/// (trims, ddir 2, and any other direction).
pub(super) fn left_out_note(name: &str, reads: usize, others: usize) -> Option<String> {
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
