//! The sentences every output shares (report, console, card): an analysis's parts in words.

use super::{Analysis, DropWhere, UnconfirmedDrop};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The coverage in words, for every output: `measured to 157 GB of 2.00 TB (stopped early)`,
/// or `filling the whole drive (2.00 TB) completes at 165 MB/s on average` (`the whole file`
/// for a regular file; for a span smaller than the drive or file, `the whole 2.00 GB span`).
pub fn coverage_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let c = a.coverage.as_ref()?;
    Some(match c.whole_fill_bytes_per_sec {
        Some(r) if c.whole_span && c.span_is_drive => format!(
            "filling the whole drive ({}) completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        ),
        Some(r) if c.whole_span && c.span_is_file => format!(
            "filling the whole file ({}) completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        ),
        Some(r) if c.whole_span => format!(
            "filling the whole {} span completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        ),
        _ => format!(
            "measured to {} of {}{}",
            format_bytes(c.bytes_written as f64, units),
            format_bytes(c.span_bytes as f64, units),
            if c.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        ),
    })
}

/// The speed after the last cliff in words, labelled as what it is:
/// `3401 MB/s over the 103 GB written after the last cliff` (and `, to the end of the span`
/// when the run wrote all of it).
pub fn after_last_cliff_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let c = a.coverage.as_ref()?;
    let (b, r) = c
        .bytes_after_last_cliff
        .zip(c.after_last_cliff_bytes_per_sec)?;
    Some(format!(
        "{} over the {} written after the last cliff{}",
        format_rate(r, units),
        format_bytes(b as f64, units),
        if c.whole_span {
            ", to the end of the span"
        } else {
            ""
        }
    ))
}

/// One line for the returns of the cache, or `None` without any:
/// `cache came back once while writing: +13.9 GB`.
pub fn returns_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    if a.returns.is_empty() {
        return None;
    }
    let times = match a.returns.len() {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    };
    let each: Vec<String> = a
        .returns
        .iter()
        .map(|r| format!("+{}", format_bytes(r.bytes as f64, units)))
        .collect();
    Some(format!(
        "cache came back {times} while writing: {}",
        each.join(", ")
    ))
}

/// The words for a run that only read, in place of a cache size: reads measure no write cache.
/// `Reads only (1.90 GB read): no write cache measured`.
pub fn read_only_text(a: &Analysis, units: UnitSystem) -> String {
    format!(
        "Reads only ({} read): no write cache measured",
        format_bytes(a.bytes_total as f64, units)
    )
}

/// The words for "no cliff seen" with the lower bound `bound` (or `bytes_total` when there is
/// none): "no cache, or one larger than X". A run that saw no cliff cannot tell a drive
/// without an SLC cache from one whose cache is larger than what was written.
pub fn no_cliff_text(bound: Option<u64>, bytes_total: u64, units: UnitSystem) -> String {
    format!(
        "no cache, or one larger than {}",
        format_bytes(bound.unwrap_or(bytes_total) as f64, units)
    )
}

/// What to do for finer samples than `dt` seconds, in words every subcommand can follow:
/// slccache's own runs take `--interval`; `analyze` reads what it is given, so a log from
/// another tool needs that tool's logging interval shortened.
pub(super) fn finer_sampling(dt: f64) -> String {
    let (flag, words) = if dt > 0.15 {
        ("100ms", "100 ms")
    } else {
        ("20ms", "20 ms")
    };
    format!(
        "sample more often, e.g. every {words} (--interval {flag} on a run of slccache; a log \
         from another tool needs its own logging interval shortened)"
    )
}

/// The words for an [`UnconfirmedDrop`], for a result line, a subtitle or a table: what was
/// seen, and what it bounds. "a drop inside the first 1.00 s sample (at least 1078 MB/s ->
/// 302 MB/s): a cache of 776 MB to 1.08 GB if it was the cache running out" or "a drop after
/// 539 MB too short to confirm (199 MB/s -> 41.9 MB/s for the last 1.7 s): the cache is at
/// least 539 MB".
pub fn unconfirmed_drop_text(d: &UnconfirmedDrop, units: UnitSystem) -> String {
    match d.at {
        DropWhere::FirstSample => format!(
            "a drop inside the first {} sample (at least {} -> {}): a cache of {} to {} if it \
             was the cache running out",
            crate::units::format_interval(d.interval_s),
            format_rate(d.before_bytes_per_sec, units),
            format_rate(d.after_bytes_per_sec, units),
            format_bytes(d.bytes_low as f64, units),
            format_bytes(d.bytes_high as f64, units),
        ),
        DropWhere::Start | DropWhere::End => format!(
            "a drop after {} too short to confirm ({} -> {} for the last {:.1} s): the cache \
             is at least {}",
            format_bytes(d.bytes_low as f64, units),
            format_rate(d.before_bytes_per_sec, units),
            format_rate(d.after_bytes_per_sec, units),
            d.after_s,
            format_bytes(d.bytes_low as f64, units),
        ),
    }
}
