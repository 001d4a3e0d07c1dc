//! Units: byte counts, rates, and the parsing and formatting of human sizes and durations.
//!
//! Every quantity that crosses a module boundary carries its unit in its type: [`Bytes`] for
//! byte counts, [`Rate`] for bytes per second, [`std::time::Duration`] for spans of time.
//! Plain `f64` seconds appear only in [`crate::timeline::Sample`], where the field name says so.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An error from parsing a size, a rate or a duration given by a user.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid {what} '{input}': {reason}")]
pub struct ParseError {
    /// What was being parsed ("size", "duration", "rate").
    pub what: &'static str,
    /// The text the user gave.
    pub input: String,
    /// Why it was refused, with an example of what works.
    pub reason: String,
}

/// A number of bytes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl Bytes {
    /// The count as `f64` (exact up to 2^53 bytes, 9 PB).
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_bytes(self.0 as f64, UnitSystem::Decimal))
    }
}

impl std::str::FromStr for Bytes {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_size(s).map(Bytes)
    }
}

/// A throughput in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rate(pub f64);

impl Rate {
    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0
    }
    /// Decimal megabytes per second (10^6 bytes/s), the unit drive makers quote.
    pub fn mb_per_sec(self) -> f64 {
        self.0 / 1e6
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_rate(self.0, UnitSystem::Decimal))
    }
}

impl std::str::FromStr for Rate {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_rate(s)
    }
}

/// Which prefixes to print: decimal (MB, GB; what drive makers and reviewers quote) or binary
/// (MiB, GiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitSystem {
    /// Powers of 1000: kB, MB, GB, TB.
    #[default]
    Decimal,
    /// Powers of 1024: KiB, MiB, GiB, TiB.
    Binary,
}

impl UnitSystem {
    /// Bytes in one "mega" unit (MB or MiB).
    pub fn mega(self) -> f64 {
        match self {
            UnitSystem::Decimal => 1e6,
            UnitSystem::Binary => 1_048_576.0,
        }
    }
    /// Bytes in one "giga" unit (GB or GiB).
    pub fn giga(self) -> f64 {
        match self {
            UnitSystem::Decimal => 1e9,
            UnitSystem::Binary => 1_073_741_824.0,
        }
    }
    /// Label for the mega unit: "MB" or "MiB".
    pub fn mega_label(self) -> &'static str {
        match self {
            UnitSystem::Decimal => "MB",
            UnitSystem::Binary => "MiB",
        }
    }
    /// Label for the giga unit: "GB" or "GiB".
    pub fn giga_label(self) -> &'static str {
        match self {
            UnitSystem::Decimal => "GB",
            UnitSystem::Binary => "GiB",
        }
    }
}

/// Parses a size such as `4k`, `128KiB`, `64GiB`, `1.5TB`, `4096`.
///
/// Suffixes with an `i` (`KiB`, `GiB`) and a bare letter (`4k`, `1m`, `2g`, as in fio and dd)
/// are binary; suffixes with a `B` and no `i` (`KB`, `GB`, `1.5TB`) are decimal, as drive makers
/// print them. A plain number is bytes. Parsing uses the `parse-size` crate.
pub fn parse_size(s: &str) -> Result<u64, ParseError> {
    let t = s.trim();
    let err = |reason: &str| ParseError {
        what: "size",
        input: s.to_string(),
        reason: reason.to_string(),
    };
    if t.is_empty() {
        return Err(err("empty; give e.g. 4k, 128KiB, 64GiB or 1.5TB"));
    }
    if t.starts_with('-') {
        return Err(err("a size cannot be negative"));
    }
    let last = t.chars().last().unwrap_or(' ');
    let bare_letter = matches!(last.to_ascii_lowercase(), 'k' | 'm' | 'g' | 't' | 'p');
    let cfg = if bare_letter {
        parse_size::Config::new().with_binary()
    } else {
        parse_size::Config::new()
    };
    cfg.parse_size(t).map_err(|e| {
        // In words of its own: the crate's are Rust's ("number too large to fit in target
        // type").
        let why = match e {
            parse_size::Error::PosOverflow => "too large",
            parse_size::Error::Empty => "no number",
            _ => "not a number with a unit",
        };
        err(&format!("{why}; give e.g. 4k, 128KiB, 64GiB or 1.5TB"))
    })
}

/// Parses a duration such as `90s`, `5m`, `10ms`, `1h30m`, or a plain number of seconds
/// (`2.5`). Uses the `humantime` crate for the suffixed forms.
pub fn parse_duration(s: &str) -> Result<Duration, ParseError> {
    let t = s.trim();
    let err = |reason: String| ParseError {
        what: "duration",
        input: s.to_string(),
        reason,
    };
    if let Ok(secs) = t.parse::<f64>() {
        // try_from: a number too large for a Duration (1e300) is an error, not a panic.
        return Duration::try_from_secs_f64(secs).map_err(|_| {
            err(
                "must be a finite, non-negative number of seconds, at most about 584 billion \
                 years"
                    .into(),
            )
        });
    }
    // "M" is a month to humantime and mega in a size: "1M" meant as one minute (or a
    // megabyte) ran a month. Refuse it, and the months and years that only a typo reaches.
    let unit: String = t
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
        .to_string();
    if unit == "M" || unit.starts_with("month") || unit == "y" || unit.starts_with("year") {
        return Err(err(format!(
            "'{unit}' is ambiguous or too long for a run (M is a month to duration parsers, \
             mega in a size); say 1min, 30d or 12h"
        )));
    }
    // humantime does not take fractions such as "1.5s"; accept "<float><unit>" for s/ms/m/h.
    for (suffix, scale) in [("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] {
        if let Some(num) = t.strip_suffix(suffix) {
            if let Ok(v) = num.trim().parse::<f64>() {
                if v.is_finite() && v >= 0.0 {
                    return Duration::try_from_secs_f64(v * scale)
                        .map_err(|_| err("too long for a duration".into()));
                }
            }
        }
    }
    if t.starts_with('-') {
        return Err(err(
            "a duration cannot be negative; give e.g. 90s, 5m, 10ms or 1h".into(),
        ));
    }
    // humantime's own messages ("expected number at 0", "(and few variations)") speak of its
    // parser; say what slccache takes instead.
    humantime::parse_duration(t).map_err(|_| {
        err("not a duration; give a number and a unit: 10ms, 90s, 5m or 5min, 2h, 1d".into())
    })
}

/// Parses a rate such as `1800MB/s`, `591 MB/s`, `1.2GB/s`, `500MiB/s` into bytes per second.
/// The `/s` may be left out (`500MB`).
pub fn parse_rate(s: &str) -> Result<Rate, ParseError> {
    let t = s.trim();
    let body = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("ps"))
        .unwrap_or(t);
    parse_size(body)
        .map(|b| Rate(b as f64))
        .map_err(|e| ParseError {
            what: "rate",
            input: s.to_string(),
            reason: e
                .reason
                .replace("4k, 128KiB, 64GiB or 1.5TB", "1800MB/s or 500MiB/s"),
        })
}

/// Formats a byte count with three significant digits: `19.1 GB`, `512 MiB`, `4.00 kB`.
pub fn format_bytes(bytes: f64, units: UnitSystem) -> String {
    let (base, names): (f64, [&str; 6]) = match units {
        UnitSystem::Decimal => (1000.0, ["B", "kB", "MB", "GB", "TB", "PB"]),
        UnitSystem::Binary => (1024.0, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]),
    };
    let mut v = bytes;
    let mut i = 0;
    while v.abs() >= base && i < names.len() - 1 {
        v /= base;
        i += 1;
    }
    // A figure that rounds up to the base reads in the next unit: 999,999,930,368 bytes are
    // "1.00 TB", as the drive's capacity reads beside it, not "1000 GB".
    let shown = |v: f64, i: usize| {
        if i == 0 {
            v.round()
        } else {
            sig3(v).parse::<f64>().unwrap_or(v)
        }
    };
    if i < names.len() - 1 && shown(v, i).abs() >= base {
        v /= base;
        i += 1;
    }
    if i == 0 {
        format!("{} B", bytes.round() as i64)
    } else {
        format!("{} {}", sig3(v), names[i])
    }
}

/// The two ends of a range of bytes, each as [`format_bytes`] writes it, or, where both would
/// read the same though they differ (139.88 GB and 140.06 GB: "140 GB to 140 GB", which
/// tells nothing), both in the unit of the upper end with as many decimals as it takes for
/// them to differ, up to three: `139.9 GB`, `140.1 GB`.
pub fn format_bytes_range(low: f64, high: f64, units: UnitSystem) -> (String, String) {
    let (a, b) = (format_bytes(low, units), format_bytes(high, units));
    if a != b || low == high {
        return (a, b);
    }
    let Some((num, unit)) = b.split_once(' ') else {
        return (a, b);
    };
    let (base, names): (f64, [&str; 5]) = match units {
        UnitSystem::Decimal => (1000.0, ["kB", "MB", "GB", "TB", "PB"]),
        UnitSystem::Binary => (1024.0, ["KiB", "MiB", "GiB", "TiB", "PiB"]),
    };
    let Some(k) = names.iter().position(|n| *n == unit) else {
        return (a, b);
    };
    let div = base.powi(k as i32 + 1);
    let frac = num.split_once('.').map_or(0, |(_, f)| f.len());
    for d in frac + 1..=3 {
        let (x, y) = (
            format!("{:.*} {unit}", d, low / div),
            format!("{:.*} {unit}", d, high / div),
        );
        if x != y {
            return (x, y);
        }
    }
    (a, b)
}

/// A size with its interval, each formatted: the interval as [`format_bytes_range`] gives it,
/// and the size with as many decimals as its ends where they needed more to differ, so that
/// a size never reads as outside its interval (`39.94 GB` in `39.93 GB to 39.94 GB`, not
/// `39.9 GB`).
pub fn format_bytes_estimate(
    bytes: f64,
    low: f64,
    high: f64,
    units: UnitSystem,
) -> (String, String, String) {
    let (lo, hi) = format_bytes_range(low, high, units);
    let point = format_bytes(bytes, units);
    // Only where the ends took more decimals than they have alone.
    if lo == format_bytes(low, units) {
        return (point, lo, hi);
    }
    let decimals = |s: &str| {
        s.split_once(' ')
            .map(|(n, u)| (n.split_once('.').map_or(0, |(_, f)| f.len()), u.to_string()))
    };
    match (decimals(&lo), decimals(&point)) {
        (Some((d, unit)), Some((p, punit))) if unit == punit && d > p => {
            let (base, names): (f64, [&str; 5]) = match units {
                UnitSystem::Decimal => (1000.0, ["kB", "MB", "GB", "TB", "PB"]),
                UnitSystem::Binary => (1024.0, ["KiB", "MiB", "GiB", "TiB", "PiB"]),
            };
            match names.iter().position(|n| *n == unit) {
                Some(k) => {
                    let v = bytes / base.powi(k as i32 + 1);
                    (format!("{v:.d$} {unit}"), lo, hi)
                }
                None => (point, lo, hi),
            }
        }
        _ => (point, lo, hi),
    }
}

/// Formats a rate in MB/s (or MiB/s) with no decimals above 100 and three significant digits
/// below: `1365 MB/s`, `59.1 MB/s`.
pub fn format_rate(bytes_per_sec: f64, units: UnitSystem) -> String {
    let v = bytes_per_sec / units.mega();
    let num = if v.abs() >= 100.0 {
        format!("{:.0}", v)
    } else {
        sig3(v)
    };
    format!("{num} {}/s", units.mega_label())
}

/// Formats seconds as `14.0 s`, `2.5 min` above ten minutes, `2.50 h` above two hours,
/// `16.5 h` above ten hours and `168 h` above a hundred (three significant digits).
pub fn format_seconds(s: f64) -> String {
    if s >= 360_000.0 {
        format!("{:.0} h", s / 3600.0)
    } else if s >= 36_000.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 7200.0 {
        format!("{:.2} h", s / 3600.0)
    } else if s >= 600.0 {
        format!("{:.1} min", s / 60.0)
    } else if s > 0.0 && s < 0.05 {
        // A run of a few milliseconds (a small file read in one pass) read "in 0.0 s".
        format!("{:.0} ms", (s * 1000.0).max(1.0))
    } else {
        format!("{:.1} s", s)
    }
}

/// A moment of a run, seconds since its start: `1228.5 s`, in seconds however long the run,
/// as the warnings and the phases give every moment, so that "at 20.5 min" never sits beside
/// "from 1228.5 s" (a length of time is [`format_seconds`]'s).
pub fn format_time_point(t_s: f64) -> String {
    if t_s > 0.0 && t_s < 0.05 {
        // Within a run of a few milliseconds: "(0.0 s to 0.0 s)" said nothing.
        format!("{t_s:.3} s")
    } else {
        format!("{t_s:.1} s")
    }
}

/// A time and the two ends of its interval as [`format_seconds`] writes them, with as many
/// more decimals (up to three, all three in one unit) as it takes for ends that differ to
/// read differently: `16.1 s (16.1 s to 16.1 s)` is `16.13 s (16.12 s to 16.13 s)`. Ends
/// that are the same value stay alike.
pub fn format_seconds_interval(mid: f64, low: f64, high: f64) -> (String, String, String) {
    let (m, a, b) = (
        format_seconds(mid),
        format_seconds(low),
        format_seconds(high),
    );
    if a != b || low == high {
        return (m, a, b);
    }
    let Some((num, unit)) = b.split_once(' ') else {
        return (m, a, b);
    };
    let div = match unit {
        "ms" => 0.001,
        "min" => 60.0,
        "h" => 3600.0,
        _ => 1.0,
    };
    let frac = num.split_once('.').map_or(0, |(_, f)| f.len());
    for d in frac + 1..=3 {
        let f = |v: f64| format!("{:.*} {unit}", d, v / div);
        if f(low) != f(high) {
            return (f(mid), f(low), f(high));
        }
    }
    (m, a, b)
}

fn sig3(v: f64) -> String {
    // Decided on the value as it rounds: 99.96 is "100", not "100.0" beside a "99.8".
    let a = v.abs();
    if a >= 99.95 {
        format!("{:.0}", v)
    } else if a >= 9.995 {
        format!("{:.1}", v)
    } else {
        format!("{:.2}", v)
    }
}

/// A sampling interval with three significant digits: `495 ms`, `2.65 s`, `20.0 ms`.
pub fn format_interval(s: f64) -> String {
    if s < 1.0 {
        format!("{} ms", sig3(s * 1000.0))
    } else {
        format!("{} s", sig3(s))
    }
}

/// `10 s`, `5 min`, `2.5 s`: an idle time, short.
pub fn short_secs(s: f64) -> String {
    if s >= 120.0 && (s / 60.0).fract().abs() < 1e-9 {
        format!("{} min", s / 60.0)
    } else if s.fract().abs() < 1e-9 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// `text` with its first letter upper case (a sentence that heads a line).
pub fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `1 level`, `3 levels`: a count with its noun in the right number.
pub fn count_text(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A cache found by a burst, short, for a chart's subtitle: `1.07 GB`; where the burst's
/// cache ran out inside its first sample, its bounds, said unconfirmed (`16.5 GB to 35.8 GB
/// (unconfirmed), or less`: a faster first tier may have run out inside that sample too), as
/// [`cache_found_text`] gives them; where it found no cliff, the bound
/// it is (`>= 1.07 GB (no cliff)`).
pub fn cache_found_short(bytes: f64, low: f64, high: f64, method: &str, u: UnitSystem) -> String {
    match method {
        "none" => format!(">= {} (no cliff)", format_bytes(bytes, u)),
        "unconfirmed_drop" => format!(">= {} (drop unconfirmed)", format_bytes(bytes, u)),
        "too_few_samples" => "- (too few samples)".to_string(),
        "first_sample_drop" => format!(
            "{} to {} (unconfirmed), or less",
            format_bytes(low, u),
            format_bytes(high, u)
        ),
        _ => format_bytes(bytes, u),
    }
}

/// A cache found by a burst: `cache 1.07 GB [1.05 GB .. 1.09 GB]`, or, when the burst found
/// no cliff (`method` "none"), the lower bound it is: `no cliff: the cache is at least
/// 1.07 GB` (never a zero-width interval).
pub fn cache_found_text(bytes: f64, low: f64, high: f64, method: &str, u: UnitSystem) -> String {
    if method == "none" {
        format!("no cliff: the cache is at least {}", format_bytes(bytes, u))
    } else if method == "unconfirmed_drop" {
        // As `analyze` of the burst's CSV says it.
        format!(
            "no confirmed cliff: a drop after {} too short to confirm: the cache is at least {}",
            format_bytes(bytes, u),
            format_bytes(bytes, u)
        )
    } else if method == "too_few_samples" {
        "too few samples to tell whether there is a cache".to_string()
    } else if method == "first_sample_drop" {
        // As `analyze` of the burst's CSV says it.
        format!(
            "no confirmed cliff: a drop inside the first sample: a cache of {} to {} if it was \
             the cache running out, less if a faster first tier also ran out inside that \
             sample",
            format_bytes(low, u),
            format_bytes(high, u)
        )
    } else {
        format!(
            "cache {} [{} .. {}]",
            format_bytes(bytes, u),
            format_bytes(low, u),
            format_bytes(high, u)
        )
    }
}

#[cfg(test)]
mod tests {
    /// A span of 999,999,930,368 bytes read "measured to 5.94 GB of 1000 GB" beside the drive's
    /// "1.00 TB": a figure that rounds up to the next unit is written in it.
    /// A small file read in one pass in 20 ms read "read 67.1 MB in 0.0 s" and "(0.0 s to 0.0
    /// s)": a length under 50 ms is in milliseconds, a moment that soon after the start in
    /// thousandths of a second; longer ones as before.
    #[test]
    fn a_run_of_milliseconds_is_not_zero_seconds() {
        assert_eq!(format_seconds(0.02), "20 ms");
        assert_eq!(format_seconds(0.0004), "1 ms");
        assert_eq!(format_seconds(0.0), "0.0 s");
        assert_eq!(format_seconds(0.5), "0.5 s");
        assert_eq!(format_time_point(0.02), "0.020 s");
        assert_eq!(format_time_point(0.0), "0.0 s");
        assert_eq!(format_time_point(12.34), "12.3 s");
        let (m, a, b) = format_seconds_interval(0.02, 0.0195, 0.0204);
        assert_eq!(
            (m.as_str(), a.as_str(), b.as_str()),
            ("20.0 ms", "19.5 ms", "20.4 ms")
        );
    }

    #[test]
    fn a_figure_that_rounds_to_the_next_unit_is_written_in_it() {
        use super::{format_bytes, UnitSystem::*};
        assert_eq!(format_bytes(999_999_930_368.0, Decimal), "1.00 TB");
        assert_eq!(format_bytes(999_499_000_000.0, Decimal), "999 GB");
        assert_eq!(format_bytes(999_600.0, Decimal), "1.00 MB");
        assert_eq!(format_bytes(999.7, Decimal), "1.00 kB");
        assert_eq!(format_bytes(999.0, Decimal), "999 B");
        assert_eq!(format_bytes(1_099_511_000_000.0, Binary), "1.00 TiB");
        assert_eq!(format_bytes(1023.0 * 1024.0, Binary), "1023 KiB");
    }

    /// "39.9 GB (95% interval 39.93 GB to 39.95 GB)" read as outside its interval: a size takes its interval's decimals
    /// where the ends needed more to differ, and only there ("100 GB (99.9 GB to 101 GB)").
    #[test]
    fn a_size_takes_the_decimals_its_interval_needed() {
        let u = super::UnitSystem::Decimal;
        let e = |m: f64, l: f64, h: f64| {
            let (m, l, h) = super::format_bytes_estimate(m, l, h, u);
            format!("{m} ({l} to {h})")
        };
        assert_eq!(
            e(39.941e9, 39.934e9, 39.946e9),
            "39.94 GB (39.93 GB to 39.95 GB)"
        );
        assert_eq!(e(100e9, 99.9e9, 101e9), "100 GB (99.9 GB to 101 GB)");
        assert_eq!(e(22.0e9, 21.9e9, 22.4e9), "22.0 GB (21.9 GB to 22.4 GB)");
    }

    /// report.md said "Time to cliff 8.6 s (95% interval 8.6 s to 8.6 s)".
    #[test]
    fn an_interval_of_seconds_whose_ends_round_alike_gets_decimals() {
        let r = |m: f64, l: f64, h: f64| {
            let (m, l, h) = super::format_seconds_interval(m, l, h);
            format!("{m} ({l} to {h})")
        };
        assert_eq!(r(8.61, 8.58, 8.64), "8.61 s (8.58 s to 8.64 s)");
        assert_eq!(r(8.5, 8.0, 9.0), "8.5 s (8.0 s to 9.0 s)");
        assert_eq!(r(8.6, 8.6, 8.6), "8.6 s (8.6 s to 8.6 s)");
        assert_eq!(r(701.0, 700.0, 702.0), "11.68 min (11.67 min to 11.70 min)");
    }

    #[test]
    fn three_digits_are_counted_after_rounding() {
        let d = UnitSystem::Decimal;
        assert_eq!(format_bytes(99.96e9, d), "100 GB");
        assert_eq!(format_bytes(99.8e9, d), "99.8 GB");
        assert_eq!(format_bytes(9.998e9, d), "10.0 GB");
        assert_eq!(format_rate(99.97e6, d), "100 MB/s");
    }

    use super::*;

    /// Found by tests/timeline/parsers_prop.rs: these panicked in `Duration::from_secs_f64`.
    #[test]
    fn huge_durations_are_errors_not_panics() {
        for s in ["1e308ms", "1e300", "1e20h", "1e30s", "inf", "NaN", "-1"] {
            assert!(parse_duration(s).is_err(), "{s}");
        }
        assert_eq!(parse_duration("1e3ms").unwrap(), Duration::from_secs(1));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("128K").unwrap(), 131072);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("64GiB").unwrap(), 64 << 30);
        assert_eq!(parse_size("1.5TB").unwrap(), 1_500_000_000_000);
        assert_eq!(parse_size("22GB").unwrap(), 22_000_000_000);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("1g").unwrap(), 1 << 30);
        assert!(parse_size("").is_err());
        assert!(parse_size("-4k").is_err());
        assert!(parse_size("four").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("10ms").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("1800MB/s").unwrap().0, 1.8e9);
        assert_eq!(parse_rate("591 MB/s").unwrap().0, 591e6);
        assert_eq!(parse_rate("500MiB/s").unwrap().0, 500.0 * 1048576.0);
        assert_eq!(parse_rate("1.2GB").unwrap().0, 1.2e9);
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bytes(19.1e9, UnitSystem::Decimal), "19.1 GB");
        assert_eq!(
            format_bytes(512.0 * 1048576.0, UnitSystem::Binary),
            "512 MiB"
        );
        assert_eq!(format_bytes(12.0, UnitSystem::Decimal), "12 B");
        assert_eq!(format_rate(1365e6, UnitSystem::Decimal), "1365 MB/s");
        assert_eq!(format_rate(59.1e6, UnitSystem::Decimal), "59.1 MB/s");
        assert_eq!(format_seconds(14.0), "14.0 s");
        assert_eq!(Bytes(22_000_000_000).to_string(), "22.0 GB");
    }
}

#[cfg(test)]
mod range_tests {
    use super::*;

    #[test]
    fn a_range_whose_ends_round_alike_gets_the_decimals_to_differ() {
        let u = UnitSystem::Decimal;
        // "95% interval 140 GB to 140 GB" said nothing.
        assert_eq!(
            format_bytes_range(139.88e9, 140.06e9, u),
            ("139.9 GB".to_string(), "140.1 GB".to_string())
        );
        assert_eq!(
            format_bytes_range(21.9e9, 22.5e9, u),
            ("21.9 GB".to_string(), "22.5 GB".to_string())
        );
        assert_eq!(
            format_bytes_range(13.001e9, 13.02e9, u),
            ("13.00 GB".to_string(), "13.02 GB".to_string())
        );
        let same = format_bytes_range(5e9, 5e9, u);
        assert_eq!(same.0, same.1);
    }
}
