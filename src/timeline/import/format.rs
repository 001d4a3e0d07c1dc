//! Which format a file is, from its first line that is not blank or a comment: the one place
//! both readers (the whole-text one in `mod.rs` and the row-by-row one in `stream.rs`) decide
//! it. A new format is a variant here, its reader in a file of its own, and its test.

/// The formats the readers know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// DiskSPD's XML result (`-D -Rxml`), read by `diskspd.rs`.
    DiskSpd,
    /// slccache's own `timeline.csv`, read by `own.rs`.
    Own,
    /// A fio bandwidth log: 5 to 8 numeric columns, read by `fio.rs`.
    FioLog,
    /// Two columns: time (or data written) and throughput, read by `two_column.rs`.
    TwoColumn,
    /// None of these.
    Unknown,
}

impl Format {
    /// The format whose first line (trimmed, not blank, not a comment) is `first`.
    pub(super) fn sniff(first: &str) -> Format {
        if super::diskspd::looks_like(first) {
            return Format::DiskSpd;
        }
        if super::own::is_timeline_header(first) {
            return Format::Own;
        }
        let cells: Vec<&str> = first.split(',').map(str::trim).collect();
        let numeric = cells.iter().all(|c| c.parse::<f64>().is_ok());
        match (cells.len(), numeric) {
            (5..=8, true) => Format::FioLog,
            (2, _) => Format::TwoColumn,
            _ => Format::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn each_format_is_known_by_its_first_line() {
        for (first, want) in [
            ("<?xml version=\"1.0\"?>", Format::DiskSpd),
            ("<Results>", Format::DiskSpd),
            (
                "t_s,interval_s,bytes,bytes_total,bytes_per_sec",
                Format::Own,
            ),
            ("1000, 524288, 1, 131072, 0", Format::FioLog),
            ("1000, 524288, 1, 131072, 0, 0, 0, 0", Format::FioLog),
            ("time_s,MB/s", Format::TwoColumn),
            ("1.0,1500", Format::TwoColumn),
            ("1,2,3", Format::Unknown),
            ("a;b;c", Format::Unknown),
            ("1000, 524288, x, 131072, 0", Format::Unknown),
        ] {
            assert_eq!(Format::sniff(first), want, "{first}");
        }
    }
}
