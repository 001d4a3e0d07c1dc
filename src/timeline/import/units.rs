//! Units in headers and flags: sizes, times and rates, and their names in messages.

/// Parses a size unit name (`B`, `kB`, `MB`, `GB`, `TB`, `KiB`, `MiB`, `GiB`, `TiB`,
/// `bytes`) into bytes per unit. Case-insensitive, like the rate units.
pub fn parse_size_unit(s: &str) -> Option<f64> {
    match s.trim().to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => Some(1.0),
        "tb" => Some(1e12),
        "tib" => Some(1_099_511_627_776.0),
        other => unit_prefix(other),
    }
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
    match byte_or_bit(s.trim(), 0) {
        Letter::Bits => return parse_rate_unit(&s.trim().replacen('b', "B", 1)).map(|v| v / 8.0),
        Letter::Ambiguous => return None,
        Letter::Bytes => {}
    }
    let t = s.trim().to_ascii_lowercase();
    let body = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("_s"))
        .or_else(|| t.strip_suffix("/sec"))
        .or_else(|| t.strip_suffix("ps"))?;
    unit_prefix(body)
}

/// What the `b` of a rate unit means, read from its case: `MB/s` bytes, `Mb/s` or `Mbps`
/// bits (a capital prefix before a small b), `mb/s` either (refused: an 8x error either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Letter {
    Bytes,
    Bits,
    Ambiguous,
}

/// Reads the case of the unit starting at byte `at` of `text` (`MB/s`, `kb/s`, `MiB/s`).
pub(super) fn byte_or_bit(text: &str, at: usize) -> Letter {
    let b = text.as_bytes();
    let mut i = at;
    let prefix = b.get(i).copied();
    if matches!(prefix, Some(c) if b"kKmMgGtT".contains(&c)) {
        i += 1;
    } else {
        return Letter::Bytes;
    }
    if b.get(i) == Some(&b'i') {
        return Letter::Bytes; // MiB, mib: binary prefixes count bytes
    }
    match (prefix, b.get(i)) {
        (_, Some(b'B')) => Letter::Bytes,
        (Some(p), Some(b'b')) if p.is_ascii_uppercase() => Letter::Bits,
        (Some(_), Some(b'b')) => Letter::Ambiguous,
        _ => Letter::Bytes,
    }
}

/// Why a rate unit cannot be read, when the reason is the case of its `b`: `mb/s` may mean
/// megabits or megabytes per second.
pub fn rate_unit_problem(s: &str) -> Option<String> {
    let t = s.trim();
    (byte_or_bit(t, 0) == Letter::Ambiguous).then(|| {
        format!(
            "'{t}' could be bits or bytes per second (an 8x difference): write MB/s for bytes \
             or Mb/s for bits (megabits are read and divided by 8)"
        )
    })
}

pub(super) fn unit_prefix(body: &str) -> Option<f64> {
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
/// `Mb/s` (bits) is read as an eighth of `MB/s`; `mb/s`, which could be either, is not a unit
/// (see [`header_rate_problem`]).
pub(super) fn rate_unit_in_header(cell: &str) -> Option<f64> {
    match header_rate_letter(cell) {
        Some((_, Letter::Ambiguous)) => None,
        Some((scale, Letter::Bits)) => Some(scale / 8.0),
        Some((scale, Letter::Bytes)) => Some(scale),
        None => None,
    }
}

/// Why a header's rate unit cannot be read: its `b` could mean bits or bytes.
pub(super) fn header_rate_problem(cell: &str) -> Option<String> {
    match header_rate_letter(cell) {
        Some((_, Letter::Ambiguous)) => Some(format!(
            "the header '{}' could be bits or bytes per second (an 8x difference): write MB/s \
             for bytes or Mb/s for bits",
            cell.trim()
        )),
        _ => None,
    }
}

/// The rate unit in a header cell and the case of its `b`.
pub(super) fn header_rate_letter(cell: &str) -> Option<(f64, Letter)> {
    let t = cell.to_ascii_lowercase();
    // Bytes per second by name (`bytes_per_sec`, slccache's own column) or as `B/s`.
    for pat in [
        "bytes_per_sec",
        "bytes_per_second",
        "bytes/s",
        "bytes per second",
        "b/s",
    ] {
        if let Some(pos) = t.find(pat) {
            if pos == 0 || !t.as_bytes()[pos - 1].is_ascii_alphabetic() {
                return Some((1.0, Letter::Bytes));
            }
        }
    }
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
                    return Some((scale, byte_or_bit(cell, pos)));
                }
            }
        }
    }
    None
}

/// Finds a time unit inside a header cell such as `second`, `t_s`, `time_ms`, `time (s)`.
pub(super) fn time_unit_in_header(cell: &str) -> Option<f64> {
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

/// A time unit's name, from its seconds per unit.
pub(super) fn time_unit_name(scale: f64) -> String {
    if scale == 1e-3 {
        "ms".into()
    } else if scale == 1.0 {
        "s".into()
    } else {
        format!("of {scale} s")
    }
}

/// A size unit's name, from its bytes per unit.
pub(super) fn size_unit_name(scale: f64) -> String {
    [
        (1.0, "B"),
        (1e3, "kB"),
        (1024.0, "KiB"),
        (1e6, "MB"),
        (1_048_576.0, "MiB"),
        (1e9, "GB"),
        (1_073_741_824.0, "GiB"),
        (1e12, "TB"),
        (1_099_511_627_776.0, "TiB"),
    ]
    .iter()
    .find(|(s, _)| *s == scale)
    .map(|(_, n)| n.to_string())
    .unwrap_or_else(|| format!("of {scale} bytes"))
}

/// A rate unit's name, from its bytes/s per unit (bits as `Mb/s`).
pub(super) fn rate_unit_name(scale: f64) -> String {
    let bytes = size_unit_name(scale);
    if !bytes.starts_with("of ") {
        return format!("{bytes}/s");
    }
    let bits = size_unit_name(scale * 8.0);
    match bits.strip_suffix('B') {
        Some(p) if !bits.starts_with("of ") => format!("{p}b/s"),
        _ => format!("of {scale} bytes/s"),
    }
}
