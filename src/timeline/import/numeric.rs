//! Rows of numbers as the fio and two-column readers share them, and their times.

use super::*;

/// One parsed numeric row with its line number.
pub(super) struct Row {
    pub(super) line: usize,
    pub(super) cells: Vec<f64>,
}

/// Reads numeric comma-separated rows, skipping blank lines and `#` comments. Every value must
/// be finite and non-negative. `skip_first` skips a header line.
pub(super) fn numeric_rows(
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
pub(super) fn parse_numeric_line(
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

/// (t_end, interval, rate) points from end times: each interval runs from the previous time;
/// the first from 0 when its time is at most 1.5 typical intervals, else one typical interval.
pub(super) fn points(times: &[f64], rates: &[f64]) -> Vec<(f64, f64, f64)> {
    points_with(times, rates, typical_step(times))
}

/// The typical interval of end times: the median step (the first time, at least 1 ms, when
/// there is one time).
pub(super) fn typical_step(times: &[f64]) -> f64 {
    let mut d: Vec<f64> = times.windows(2).map(|p| p[1] - p[0]).collect();
    d.sort_by(|a, b| a.total_cmp(b));
    d.get(d.len() / 2).copied().unwrap_or(times[0].max(1e-3))
}

/// The length of the first interval, which ends at `t`: from 0 when `t` is at most 1.5
/// typical intervals, else one typical interval.
pub(super) fn first_interval(t: f64, typical: f64) -> f64 {
    if t > 0.0 && t <= 1.5 * typical {
        t
    } else {
        typical
    }
}

/// [`points`] with the typical interval given.
pub(super) fn points_with(times: &[f64], rates: &[f64], typical: f64) -> Vec<(f64, f64, f64)> {
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
