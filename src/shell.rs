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
