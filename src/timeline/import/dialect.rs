//! What spreadsheets write when they save a CSV. Excel and LibreOffice in the common locales
//! write a separator other than the comma (`;` where the comma is the decimal mark, a tab for
//! "Text (Tab delimited)"), put the decimal comma in numbers (`1500,3`), and quote cells
//! (`"1"`, `1,"1500,3"`). [`normalize`] turns such a text into the plain form the rest of the
//! importer reads (comma-separated, decimal point, unquoted) and says how it read it; a plain
//! CSV is left as it is.

/// A separator the importer knows, for the note and for errors.
fn sep_name(sep: u8) -> &'static str {
    match sep {
        b'\t' => "tab",
        b';' => "semicolon",
        _ => "comma",
    }
}

/// The lines that carry data or a header (not blank, not a `#` comment).
fn content_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// Splits one line on `sep`, honouring double quotes as spreadsheets write them (`""` is a
/// quote inside a quoted cell). The `csv` crate does the quoting rules.
fn split(line: &str, sep: u8) -> Option<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    let rec = r.records().next()?.ok()?;
    Some(rec.iter().map(|c| c.trim().to_string()).collect())
}

/// The separator that splits every one of the first lines into the same number (two or more)
/// of cells, trying tab, then semicolon, then comma.
fn sniff_separator(lines: &[&str]) -> Option<u8> {
    [b'\t', b';', b','].into_iter().find(|&sep| {
        if sep != b',' && !lines.iter().any(|l| l.as_bytes().contains(&sep)) {
            return false;
        }
        let counts: Vec<usize> = lines
            .iter()
            .filter_map(|l| split(l, sep).map(|c| c.len()))
            .collect();
        counts.len() == lines.len() && counts[0] >= 2 && counts.iter().all(|&n| n == counts[0])
    })
}

/// Whether a cell is a number written with a decimal comma (`1500,3`, `-0,5`, `1.500,25`).
fn decimal_comma_cell(c: &str) -> bool {
    let Some((int, frac)) = c.rsplit_once(',') else {
        return false;
    };
    let int = int.trim_start_matches(['-', '+']);
    !int.is_empty()
        && !frac.is_empty()
        && frac.bytes().all(|b| b.is_ascii_digit())
        && int.chars().all(|ch| {
            ch.is_ascii_digit() || ch == '.' || ch == ' ' || ch == '\u{a0}' || ch == '\u{202f}'
        })
        && int.starts_with(|ch: char| ch.is_ascii_digit())
}

/// A number cell in the file's decimal convention, as Rust reads it (`1500.3`), or `None`
/// where the cell is not a number (a header).
fn number(c: &str, decimal_comma: bool) -> Option<String> {
    let c: String = c
        .chars()
        .filter(|ch| !matches!(ch, ' ' | '\u{a0}' | '\u{202f}'))
        .collect();
    let plain = if decimal_comma {
        c.replace('.', "").replace(',', ".")
    } else {
        c.replace(',', "")
    };
    plain.parse::<f64>().ok().map(|_| plain)
}

/// Reads a spreadsheet's CSV as the importer's plain form: comma-separated, decimal point, no
/// quotes. Returns the new text and a note saying how it was read, or `None` when the text
/// needs nothing (no quotes, no semicolon or tab separator), or is not a table at all (an XML
/// result, a text that no separator splits evenly: the importer's own errors then apply).
pub(crate) fn normalize(text: &str) -> Option<(String, String)> {
    let first = content_lines(text).next()?;
    if first.trim_start().starts_with('<') {
        return None; // DiskSPD's XML: quotes there are attributes.
    }
    let head: Vec<&str> = content_lines(text).take(20).collect();
    let spreadsheet = head
        .iter()
        .any(|l| l.contains('"') || l.contains(';') || l.contains('\t'));
    if !spreadsheet {
        return None;
    }
    let sep = sniff_separator(&head)?;
    // The decimal mark: a semicolon or tab separator is what the decimal-comma locales write;
    // a comma inside a number cell that is not a 3-digit group says so too.
    let rows: Vec<Option<Vec<String>>> = text
        .lines()
        .map(|l| {
            if l.trim().is_empty() || l.trim_start().starts_with('#') {
                None
            } else {
                split(l, sep)
            }
        })
        .collect();
    let cells = || rows.iter().flatten().flatten();
    let comma_numbers: Vec<&String> = cells().filter(|c| decimal_comma_cell(c)).collect();
    let decimal_comma = if sep != b',' {
        !comma_numbers.is_empty()
    } else {
        // A comma-separated file: "1,500" may be a thousands group; "1500,3" may not.
        comma_numbers.iter().any(|c| {
            c.rsplit_once(',').is_some_and(|(int, frac)| {
                frac.len() != 3 || int.trim_start_matches(['-', '+']).len() > 3
            })
        })
    };
    let mut out = String::with_capacity(text.len());
    for (raw, row) in text.lines().zip(&rows) {
        match row {
            None => out.push_str(raw),
            Some(cells) => {
                let line: Vec<String> = cells
                    .iter()
                    .map(|c| number(c, decimal_comma).unwrap_or_else(|| c.replace(',', " ")))
                    .collect();
                out.push_str(&line.join(","));
            }
        }
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    let note = format!(
        "read as a spreadsheet's CSV: {} separator, decimal {}",
        sep_name(sep),
        if decimal_comma { "comma" } else { "point" }
    );
    Some((out, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(t: &str) -> String {
        normalize(t)
            .map(|(s, _)| s)
            .unwrap_or_else(|| t.to_string())
    }

    #[test]
    fn semicolons_with_decimal_commas() {
        assert_eq!(
            norm("Zeit (s);MB/s\n1;1500,3\n2;1.500,5\n"),
            "Zeit (s),MB/s\n1,1500.3\n2,1500.5\n"
        );
    }

    #[test]
    fn tabs_and_quoted_numbers() {
        assert_eq!(
            norm("\"t\"\t\"MB/s\"\n\"1\"\t\"1500\"\n"),
            "t,MB/s\n1,1500\n"
        );
        assert_eq!(norm("\"1\",\"1500\"\n\"2\",\"700\"\n"), "1,1500\n2,700\n");
    }

    #[test]
    fn a_quoted_decimal_comma_in_a_comma_file() {
        assert_eq!(norm("1,\"1500,3\"\n2,\"700,25\"\n"), "1,1500.3\n2,700.25\n");
    }

    #[test]
    fn a_quoted_thousands_group_in_a_point_file() {
        assert_eq!(norm("1,\"1,500.5\"\n2,\"1,700\"\n"), "1,1500.5\n2,1700\n");
    }

    #[test]
    fn plain_csv_and_xml_are_left_alone() {
        assert!(normalize("t_s,bytes_per_sec\n1,2\n").is_none());
        assert!(normalize("<Results><A b=\"1\"/></Results>\n").is_none());
        assert!(normalize("1, 2000, 0, 4096, 0\n").is_none());
    }

    #[test]
    fn the_note_names_what_was_read() {
        let (_, note) = normalize("a;b\n1;2,5\n").unwrap();
        assert!(
            note.contains("semicolon") && note.contains("comma"),
            "{note}"
        );
    }
}
