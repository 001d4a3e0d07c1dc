//! Commands that slccache suggests to the user are meant to be copied into a shell as written:
//! a path with a space or a non-ASCII letter is quoted, a size is written as the size parser
//! reads it back exactly.

/// `s` as one POSIX shell word: unchanged when it holds only characters no shell treats
/// specially, otherwise in single quotes (a `'` inside written as `'\''`).
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=+,@%".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A byte count as a `--size`/`--span` value that names it exactly: `1GiB`, `64MiB`, `4KiB`, or
/// plain bytes.
pub fn size_arg(bytes: u64) -> String {
    for (unit, name) in [
        (1u64 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ] {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    bytes.to_string()
}

/// `raw` as one part of a folder name: letters and digits of any script, `-`, `_` and `.`
/// are kept (`my file ü` gives `my-file-ü`); anything else (spaces, `/`, `:`, `,`, `=`)
/// becomes one `-`, so `960evo-250g,cache=1GB` gives `960evo-250g-cache-1GB` and runs with
/// different model overrides get different folders. `fallback` when nothing is left.
pub fn folder_word(raw: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_matches(['-', '.']);
    if t.is_empty() {
        fallback.to_string()
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn folder_words_keep_letters_and_overrides() {
        assert_eq!(folder_word("my file ü", "x"), "my-file-ü");
        assert_eq!(
            folder_word("960evo-250g,cache=1GB", "x"),
            "960evo-250g-cache-1GB"
        );
        assert_eq!(folder_word("nvme0n1", "x"), "nvme0n1");
        assert_eq!(folder_word("..", "target"), "target");
        assert_eq!(folder_word("a//b", "x"), "a-b");
    }

    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(quote("/tmp/a.bin"), "/tmp/a.bin");
        assert_eq!(quote("my file ü.bin"), "'my file ü.bin'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn sizes_read_back_exactly() {
        for b in [1u64 << 30, 64 << 20, 4096, 1000, 3 << 40, (1 << 30) + 512] {
            let s = size_arg(b);
            assert_eq!(crate::units::parse_size(&s).unwrap(), b, "{s}");
        }
    }
}

/// This process's arguments (without the program name) as a command line to keep or to
/// suggest: the value of `--db` is shown without any password ([`mask_db_args`]).
pub fn shown_args() -> Vec<String> {
    mask_db_args(&std::env::args().skip(1).collect::<Vec<_>>())
}

/// `args` with the store given to `--db` (`--db X` or `--db=X`) made safe to show: an SQLite
/// path is kept, a PostgreSQL URL or key=value string becomes its host, port, user and
/// database only (`crate::conninfo::display`), and a string that is neither (a URL of
/// another scheme, which slccache refuses) is left out with its flag.
pub fn mask_db_args(args: &[String]) -> Vec<String> {
    let mask = |v: &str| -> Option<String> {
        match crate::conninfo::classify(v) {
            Ok(crate::conninfo::DbKind::Path) => Some(v.to_string()),
            Ok(crate::conninfo::DbKind::Postgres) => Some(crate::conninfo::display(v)),
            Err(_) => None,
        }
    };
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(it.cloned());
            break;
        }
        if a == "--db" {
            if let Some(v) = it.next() {
                if let Some(m) = mask(v) {
                    out.push(a.clone());
                    out.push(m);
                }
            }
        } else if let Some(v) = a.strip_prefix("--db=") {
            if let Some(m) = mask(v) {
                out.push(format!("--db={m}"));
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// The flags that chose a store and its runs (`--db`, `--host`, each `--tag`), as given, written
/// to follow a suggested command (` --db x.db --host lab`), so that the command typed as shown
/// reads the runs this one read; `--db` shown as [`mask_db_args`] shows it.
pub fn selection_args(db: Option<&str>, host: Option<&str>, tags: &[String]) -> String {
    let mut words = Vec::new();
    if let Some(db) = db {
        words.extend(mask_db_args(&["--db".to_string(), db.to_string()]));
    }
    if let Some(h) = host {
        words.extend(["--host".to_string(), h.to_string()]);
    }
    for t in tags {
        words.extend(["--tag".to_string(), t.clone()]);
    }
    words.iter().map(|w| format!(" {}", quote(w))).collect()
}

/// A command line as `report.html` keeps it (words quoted as [`quote`] writes them), with the
/// value of `--db` masked as [`mask_db_args`] does: for command lines read back from a stored
/// run or an older report.
pub fn mask_db_in_command(cmd: &str) -> String {
    let Some(words) = split_quoted(cmd) else {
        // Not a command line this file writes: keep it only if it names no store.
        return if cmd.contains("--db") {
            "slccache (command line not shown: it named a store)".into()
        } else {
            cmd.to_string()
        };
    };
    if !words.iter().any(|w| w == "--db" || w.starts_with("--db=")) {
        return cmd.to_string();
    }
    mask_db_args(&words)
        .iter()
        .map(|w| quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits a line of POSIX shell words written with plain words and single quotes (`'\''` for
/// a quote inside); `None` for anything else (double quotes, backslashes outside quotes).
fn split_quoted(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => cur.push(ch),
                    }
                }
            }
            '\\' => {
                // Only the `\'` of `'\''`.
                if chars.next()? != '\'' {
                    return None;
                }
                in_word = true;
                cur.push('\'');
            }
            '"' => return None,
            ch => {
                in_word = true;
                cur.push(ch);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

#[cfg(test)]
mod db_mask_tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn db_values_never_keep_a_password() {
        let pw = "s3nt1n3l@:/pw";
        let cases = [
            s(&[
                "probe",
                "--db",
                &format!("postgres://lab:{pw}@h/d"),
                "emu:x",
            ]),
            s(&[
                "probe",
                &format!("--db=postgresql://h/d?password={pw}"),
                "emu:x",
            ]),
            s(&["probe", "--db", &format!("host=h password='{pw}'"), "emu:x"]),
            s(&["probe", "--db", "postgress://lab:s3nt1n3l@h/d", "emu:x"]),
        ];
        for c in &cases {
            let m = mask_db_args(c);
            let joined = m.join(" ");
            assert!(!joined.contains("s3nt1n3l"), "{joined}");
            assert!(joined.contains("emu:x"), "{joined}");
            let line = c.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            let shown = mask_db_in_command(&line);
            assert!(!shown.contains("s3nt1n3l"), "{line} -> {shown}");
        }
        assert_eq!(
            mask_db_args(&s(&["runs", "--db", "/tmp/my.db"])),
            s(&["runs", "--db", "/tmp/my.db"])
        );
        assert_eq!(
            mask_db_args(&s(&["probe", "--db", "postgres://lab:pw@h:5/d"])),
            s(&["probe", "--db", "postgres://lab@h:5/d"])
        );
        // After `--`, words are not flags.
        assert_eq!(
            mask_db_args(&s(&["runs", "--", "--db"])),
            s(&["runs", "--", "--db"])
        );
        assert_eq!(mask_db_in_command("slccache probe x"), "slccache probe x");
        assert!(
            !mask_db_in_command("slccache \"--db\" \"postgres://a:s3nt1n3l@h\"")
                .contains("s3nt1n3l")
        );
    }
}
