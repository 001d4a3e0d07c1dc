//! The layout's rules (docs/DESIGN.md, "Modules"), kept true by reading the `use` lines and
//! `crate::` paths of `src/`:
//! - nothing below `commands` imports `commands` or `cli` (only `main.rs`, `commands` and
//!   `cli` itself name `cli`);
//! - `report` imports no command and none of the experiment machinery: it takes plain data
//!   from `results`, `timeline`, `detect` and `model`;
//! - no command imports another command;
//! - `results` is plain data: it imports no module that does I/O (`engine`, `device`,
//!   `report`, `experiment`, `commands`);
//! - `detect` and `report` never import `engine`;
//! - `engine` never imports `device` (a target is opened above the engine and handed to it);
//! - inside `report`, drawing and chart building come before the pages, and the pages before
//!   the files of a run: `report::charts` and `report::draw` import nothing of
//!   `report::pages`, `report::outputs` or `report::console`; `report::pages` imports nothing
//!   of `report::console`, and of `report::outputs` only `summary` (what a `summary.json`
//!   holds); `report::console` imports nothing of the rest of `report`;
//! - `error` is the bottom layer: it imports only `units` and `timeline`, which sit beside it;
//! - nothing below `cli` names clap (only `main`, `cli` and the commands do);
//! - no output decides from the words of a warning: code asks its kind
//!   (`no_output_decides_from_a_warning_s_words`).
//!
//! A rule that bends for a good reason is listed in `ALLOWED` with that reason.

use std::path::{Path, PathBuf};

/// (importing file, imported module path prefix, why it is allowed).
const ALLOWED: &[(&str, &str, &str)] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `.rs` file of `src/`, in name order, with its path relative to `src/` (`/` between
/// folders) and its text.
fn src_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(f).unwrap())
        })
        .collect()
}

/// Every `crate::a::b` path a file names outside comments, with its line number. A `use
/// crate::{a, b::c}` group counts for each of its members' first segments.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    paths_after(text, "crate::")
}

/// Every path a file names after `prefix` (`crate::`, `clap::`) outside comments and test-only
/// items, with its line number; a `{a, b::c}` group counts for each member.
fn paths_after(text: &str, prefix: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Unit tests may reach anywhere in the crate to build their cases: the item after a
    // `#[cfg(test)]` (a `mod tests { ... }`, or a test-only counter in the middle of a file) is
    // skipped, up to where its braces close or its line ends with `;`, and the rest of the
    // file is read.
    let mut in_test_item = false;
    let mut depth = 0i64;
    let mut opened = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("");
        if in_test_item {
            if line.trim().is_empty() || line.trim_start().starts_with("#[") {
                continue;
            }
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            opened |= line.contains('{');
            if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                in_test_item = false;
            }
            continue;
        }
        if raw.trim_start().starts_with("#[cfg(test)]") {
            in_test_item = true;
            depth = 0;
            opened = false;
            continue;
        }
        let mut rest = line;
        while let Some(pos) = rest.find(prefix) {
            let after = &rest[pos + prefix.len()..];
            if let Some(group) = after.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for member in group[..end].split(',') {
                    let m = member.trim();
                    if !m.is_empty() {
                        out.push((i + 1, m.split_whitespace().next().unwrap().to_string()));
                    }
                }
            } else {
                let end = after
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(after.len());
                out.push((i + 1, after[..end].trim_end_matches(':').to_string()));
            }
            rest = &after[1.min(after.len())..];
        }
    }
    out
}

/// The top module of `src/` a file belongs to (`commands`, `report`, `lib`, ...).
fn top(rel: &str) -> &str {
    let first = rel.split('/').next().unwrap();
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The command a file of `commands/` belongs to: `commands/probe.rs` and
/// `commands/runs/table.rs` are `probe` and `runs`; `commands/mod.rs` none.
fn command_of(rel: &str) -> Option<&str> {
    rel.strip_prefix("commands/")
        .and_then(|r| r.split('/').next())
        .map(|r| r.trim_end_matches(".rs"))
        .filter(|c| *c != "mod")
}

/// The folder of `report/` a file belongs to (`charts`, `draw`, `pages`, `console`,
/// `outputs`); `None` for `report/mod.rs` and files outside `report`.
fn report_part(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("report/")?;
    rest.split_once('/').map(|(part, _)| part)
}

/// Why `part` of `report` may not import the `report` path `path` (after `report::`), if it
/// may not.
fn report_rule(part: &str, path: &str) -> Option<&'static str> {
    let mut it = path.split("::");
    let target = it.next().unwrap_or("");
    let sub = it.next().unwrap_or("");
    match (part, target) {
        ("charts" | "draw", "pages" | "outputs" | "console") => {
            Some("report's charts and drawing import no page, output file or console")
        }
        ("pages", "console") => Some("report's pages import nothing of the console"),
        ("pages", "outputs") if sub != "summary" => {
            Some("report's pages import of the outputs only what a summary.json holds")
        }
        ("console", "charts" | "draw" | "pages" | "outputs") => {
            Some("report's console imports nothing of the rest of report")
        }
        _ => None,
    }
}

pub fn the_layout_rules_hold() {
    let files = src_files();
    let mut broken = Vec::new();
    for (rel, text) in &files {
        let rel = rel.as_str();
        let me = top(rel);
        for (line, path) in crate_paths(text) {
            let target = path.split("::").next().unwrap_or("");
            let allowed = ALLOWED
                .iter()
                .any(|(file, prefix, _)| *file == rel && path.starts_with(prefix));
            if allowed {
                continue;
            }
            let mut rule = None;
            let below_commands = !matches!(me, "main" | "commands" | "cli" | "lib");
            if below_commands && (target == "commands" || target == "cli") {
                rule = Some("nothing below commands imports commands or cli");
            }
            if me == "cli" && target == "commands" {
                rule = Some("cli imports no command");
            }
            if me == "report" && matches!(target, "commands" | "experiment" | "engine") {
                rule =
                    Some("report takes plain data, never a command, the machinery or the engine");
            }
            if me == "detect" && target == "engine" {
                rule = Some("detect never imports engine");
            }
            if me == "results"
                && matches!(
                    target,
                    "engine" | "device" | "report" | "experiment" | "commands"
                )
            {
                rule = Some("results is plain data");
            }
            if me == "engine" && target == "device" {
                rule = Some("engine never imports device");
            }
            if me == "error" && !matches!(target, "units" | "timeline") {
                rule = Some("error is the bottom layer: it imports nothing above it");
            }
            if let (Some(part), Some(inner)) = (report_part(rel), path.strip_prefix("report::")) {
                if let Some(r) = report_rule(part, inner) {
                    rule = Some(r);
                }
            }
            if let (Some(a), "commands") = (command_of(rel), target) {
                let other = path.split("::").nth(1).unwrap_or("");
                if !other.is_empty() && other != a {
                    rule = Some("no command imports another command");
                }
            }
            if let Some(rule) = rule {
                broken.push(format!("src/{rel}:{line}: crate::{path} ({rule})"));
            }
        }
    }
    // Nothing below `cli` sees a clap type: only `main`, `cli` and the commands (above it)
    // name clap.
    for (rel, text) in &files {
        if matches!(top(rel), "main" | "commands" | "cli") {
            continue;
        }
        for (line, path) in paths_after(text, "clap::") {
            broken.push(format!(
                "src/{rel}:{line}: clap::{path} (nothing below cli sees a clap type)"
            ));
        }
    }
    assert!(
        broken.is_empty(),
        "{} import(s) break the layout rules:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

pub fn report_parts_and_commands_in_folders_are_told_apart() {
    assert_eq!(report_part("report/draw/mod.rs"), Some("draw"));
    assert_eq!(report_part("report/mod.rs"), None);
    assert_eq!(command_of("commands/runs/table.rs"), Some("runs"));
    assert_eq!(command_of("commands/probe.rs"), Some("probe"));
    assert_eq!(command_of("commands/mod.rs"), None);
    assert!(report_rule("draw", "pages::html").is_some());
    assert!(report_rule("pages", "outputs::summary::model_truth_of").is_none());
    assert!(report_rule("pages", "outputs::file").is_some());
    assert!(report_rule("outputs", "pages::html").is_none());
}

/// The reader stopped at a file's first `#[cfg(test)]`, so the code after a test-only counter
/// in the middle of a file (as in `detect/levels.rs`) was never checked.
pub fn the_reader_skips_only_the_test_items() {
    let text = "use crate::a::x;\n#[cfg(test)]\nstatic N: u8 = crate::t::n();\nuse crate::b::y;\n\
                #[cfg(test)]\nfn f() {\n    crate::t::g();\n}\nuse crate::c::z;\n\
                #[cfg(test)]\nmod tests {\n    use crate::t::h;\n    fn k() { crate::t::i(); }\n}\n";
    let found: Vec<String> = crate_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(found, ["a::x", "b::y", "c::z"]);
}

pub fn the_reader_finds_grouped_and_plain_paths() {
    let got = crate_paths(
        "use crate::a::B;\nuse crate::{c::D, e};\n// crate::f\nlet x = crate::g::h(1);\n#[cfg(test)]\nuse crate::z;",
    );
    let names: Vec<_> = got.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(names, ["a::B", "c::D", "e", "g::h"]);
}

/// Where `text` (one source file) decides from a warning's words: each line that matches a
/// warning's sentence (`.text.contains(`, `.text.starts_with(`, ...) or matches words on a
/// line about warnings, outside the file's `#[cfg(test)]` module.
fn warning_word_matches(text: &str) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let on_text = [
        ".text.contains(",
        ".text.starts_with(",
        ".text.ends_with(",
        ".text.find(",
        ".text == ",
        ".text.as_str() == ",
    ];
    let on_words = [
        ".contains(\"",
        ".starts_with(\"",
        ".ends_with(\"",
        ".find(\"",
    ];
    let lines: Vec<&str> = code.lines().collect();
    // A line about warnings: it or one of the two before it names them (a chain of calls
    // `a.warnings.iter()` / `.any(|w| w.starts_with(..))` is split over lines).
    let about_warnings = |i: usize| {
        lines[i.saturating_sub(2)..=i]
            .iter()
            .any(|l| l.to_lowercase().contains("warning"))
    };
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|&(i, l)| {
            on_text.iter().any(|p| l.contains(p))
                || (about_warnings(i) && on_words.iter().any(|p| l.contains(p)))
        })
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .collect()
}

/// No output decides from the words of a warning: a warning is typed (`WarningKind`, with
/// its figures), and code asks its kind. The card once looked for "post-cache level unstable"
/// at the start of a warning's sentence to quote a range, and said the wrong thing when the
/// sentence changed. Every file of `src/` outside its tests is read for a match on a
/// warning's words.
pub fn no_output_decides_from_a_warning_s_words() {
    // The reader finds the card's old test of a warning's words, and its forms on a typed
    // warning.
    for old in [
        "        .any(|w| w.starts_with(\"post-cache level unstable\"));",
        "    let unstable = a.warnings.iter().any(|w| w.text.starts_with(\"post-cache\"));",
        "    if w.text.contains(\"thermal\") {",
    ] {
        let file =
            format!("fn f(a: &Analysis) -> bool {{\n    a.warnings\n        .iter()\n{old}\n}}\n");
        assert_eq!(warning_word_matches(&file).len(), 1, "{old}");
    }
    // ... but not inside a test module.
    assert!(warning_word_matches(
        "fn f() {}\n#[cfg(test)]\nmod tests { fn g() { w.text.contains(\"x\"); } }\n"
    )
    .is_empty());
    // (file, what the line matches, why it is no decision from a warning's words).
    const ALLOWED_WORDS: &[(&str, &str, &str)] = &[
        (
            "report/console/terminal.rs",
            "starts_with(\"warning:\")",
            "the one-line form drops the terminal's own lines labelled \"warning:\"",
        ),
        (
            "report/outputs/experiments.rs",
            "starts_with(\"warning: \")",
            "an experiment's page takes its warnings from the typed list, not the text's lines",
        ),
    ];
    let mut found = Vec::new();
    for (rel, text) in &src_files() {
        // A module of tests alone (`mod reference_tests;` under `#[cfg(test)]`).
        if rel.ends_with("tests.rs") {
            continue;
        }
        for (line, l) in warning_word_matches(text) {
            if ALLOWED_WORDS
                .iter()
                .any(|(file, m, _)| rel == *file && l.contains(m))
            {
                continue;
            }
            found.push(format!("{rel}:{line}: {l}"));
        }
    }
    assert!(
        found.is_empty(),
        "code that decides from a warning's words (ask its kind instead):\n{}",
        found.join("\n")
    );
}
