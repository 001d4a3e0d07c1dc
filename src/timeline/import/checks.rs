//! The checks every reader makes: plausible times, sizes and rates, no gap in time, and
//! what the detector relies on (at least two samples, time increasing).

use super::*;

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
pub(super) const MAX_PER_IO_SPAN_S: f64 = 1e6;

/// The error of a time (`v` in its file's unit, `secs` seconds) later than [`MAX_TIME_S`].
pub(super) fn implausible_time(name: &str, line: usize, v: f64) -> ImportError {
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
pub(super) fn per_io_span_error(
    name: &str,
    first_ms: f64,
    last: (f64, usize),
) -> Option<ImportError> {
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

/// A step between two rows' times longer than this many typical steps is a gap: rows are
/// missing (cut out, or a log stopped and resumed), and what was written in it is not known.
/// The row after a gap would stand for the whole gap at its own rate, inventing data, so a
/// gap is refused by its line. A window that is late, or a few missing, is no gap.
pub const GAP_STEPS: f64 = 10.0;

/// The error of a gap in time: the row at `line` (time `t`, seconds) follows the row at
/// `prev_line` (time `prev`) after more than [`GAP_STEPS`] typical steps of `typical` s.
pub(super) fn gap_error(
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
pub(super) fn round_s(t: f64) -> f64 {
    (t * 1e6).round() / 1e6
}

/// The index of the first time in `times` (increasing) that follows a gap, for a typical
/// step of `typical`.
pub(super) fn first_gap(times: &[f64], typical: f64) -> Option<usize> {
    (1..times.len()).find(|&i| times[i] - times[i - 1] > GAP_STEPS * typical)
}

/// Checks what the detector relies on: at least one sample, time increasing. (One sample is
/// analysed: the detector says it is too few to find a cliff, as for a run of one sample.)
pub(super) fn validate(t: &Timeline, name: &str) -> Result<(), ImportError> {
    if t.samples.is_empty() {
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

/// The error of a timeline without a sample.
pub(super) fn too_few(name: &str, n: usize) -> ImportError {
    ImportError::whole(
        name,
        format!("{n} samples: at least one is needed to analyse a timeline"),
    )
}

pub(super) fn nothing_written(name: &str) -> ImportError {
    ImportError::whole(
        name,
        "nothing was written: every sample is 0 bytes, so there is no cache to measure",
    )
}

/// The checks of one sample (number `i` from 0): a positive length, a rate a drive can write.
pub(super) fn check_sample(i: usize, s: &Sample, name: &str) -> Result<(), ImportError> {
    if s.interval_s.is_nan() || s.interval_s <= 0.0 || !s.t_s.is_finite() {
        return Err(ImportError::whole(
            name,
            format!("sample {} (t = {} s) has no positive length", i + 1, s.t_s),
        ));
    }
    if s.bytes_total as f64 > MAX_BYTES || s.t_s > MAX_TIME_S {
        return Err(ImportError::whole(
            name,
            // In powers of ten: a count that overflowed would read as 18446744073709551615.
            format!(
                "sample {} (t = {:.3e} s) is implausible: {} bytes written by then, more than \
                 1e18 (1 EB), or a time past 1e10 s; a broken log",
                i + 1,
                s.t_s,
                if s.bytes_total == u64::MAX {
                    "more than 1.8e19".to_string()
                } else {
                    format!("{:.3e}", s.bytes_total as f64)
                }
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

/// A row is late, or follows missing windows, when its interval is longer than this many
/// typical intervals (and no gap: at most [`GAP_STEPS`]).
const LATE_STEPS: f64 = 1.5;

/// The note of what a log of rates (a two-column CSV of times, a windowed fio log) assumes
/// rather than reads, or `None`: a row after a late or missing window stands for the whole
/// time since the row before at its own rate, so some bytes are the reader's guess. Says how
/// many rows, the longest, and the bytes assumed, so that no figure built on them is taken for
/// measured. A timeline merged to bound its memory (every interval longer alike) is left
/// alone.
pub fn late_rows_note(t: &Timeline, name: &str) -> Option<String> {
    if t.meta.resolution.is_some() || t.samples.len() < 3 {
        return None;
    }
    let mut steps: Vec<f64> = t.samples.iter().map(|s| s.interval_s).collect();
    steps.sort_by(f64::total_cmp);
    let typical = steps[steps.len() / 2];
    if typical <= 0.0 {
        return None;
    }
    let (mut rows, mut assumed, mut longest) = (0usize, 0f64, None::<&Sample>);
    for s in &t.samples[1..] {
        if s.interval_s > LATE_STEPS * typical {
            rows += 1;
            assumed += s.bytes as f64 * (1.0 - typical / s.interval_s);
            if longest.is_none_or(|l| s.interval_s > l.interval_s) {
                longest = Some(s);
            }
        }
    }
    let l = longest?;
    let units = crate::units::UnitSystem::Decimal;
    Some(format!(
        "{name}: {rows} row{} a late or missing window (the longest: {} s before the row at \
         {} s, {:.1} times the typical {} s); each such row's rate is taken over all the time \
         since the row before, so {} of the {} written are assumed, not read",
        if rows == 1 { " follows" } else { "s follow" },
        round_s(l.interval_s),
        round_s(l.t_s),
        l.interval_s / typical,
        round_s(typical),
        crate::units::format_bytes(assumed, units),
        crate::units::format_bytes(t.bytes_total() as f64, units),
    ))
}

/// The note of a slccache `timeline.csv` whose first row has bytes written before it (its
/// first rows cut off), or `None`: the analysis counts those bytes as written before its
/// first sample, and a cache size counts them, though no row shows how they were written.
pub(super) fn cut_start_note(t: &Timeline, name: &str) -> Option<String> {
    let s = t.samples.first()?;
    let before = s.bytes_total.checked_sub(s.bytes).filter(|&b| b > 0)?;
    let units = crate::units::UnitSystem::Decimal;
    Some(format!(
        "{name}: the first row (at {} s) follows {} written with no row before it: the rows \
         of the run's start are missing; the analysis counts those bytes as written before its \
         first sample (a cache size counts them), but no rate before {} s is known",
        round_s(s.t_s),
        crate::units::format_bytes(before as f64, units),
        round_s(s.t_start_s()),
    ))
}
