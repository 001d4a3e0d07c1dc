//! The commands that the documentation shows, as the tests that run them read them: from the
//! README's code blocks and from the `--help` examples of every subcommand.

use std::path::Path;

/// The heading of the README's section on the results library, whose commands `store::readme`
/// runs.
pub const RESULTS_LIBRARY: &str = "## The results library";

/// The README's text.
pub fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The README's section under `heading` (a `## ` line), up to the next `## ` heading.
pub fn section<'a>(readme: &'a str, heading: &str) -> &'a str {
    let start = readme
        .find(&format!("\n{heading}"))
        .unwrap_or_else(|| panic!("the README has no section {heading:?}"));
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The commands in the code blocks of `text`: lines starting with one of `prefixes`, each as one
/// string (continuation lines and quoted newlines kept), in order. A block may be indented (in a
/// list), and a command may follow `sudo`, `env` or `NAME=value` words; such a command is kept
/// whole, without its indent. Other lines (a program's output such as
/// `slccache: warning: ...`, tables, and output lines indented under it) are not commands.
pub fn block_commands(text: &str, prefixes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut open: Option<String> = None;
    // The indent of the open block's fence: a line is read without it.
    let mut indent = 0;
    for line in text.lines() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            in_block = !in_block;
            indent = line.len() - fence.len();
            continue;
        }
        if !in_block {
            continue;
        }
        let line = line.get(indent..).unwrap_or("");
        if let Some(mut cmd) = open.take() {
            cmd.push('\n');
            cmd.push_str(line);
            if continues(&cmd) {
                open = Some(cmd);
            } else {
                out.push(cmd);
            }
            continue;
        }
        let bare = without_prefix_words(line);
        let is_command = prefixes.iter().any(|p| bare.starts_with(p));
        if is_command {
            if continues(line) {
                open = Some(line.to_string());
            } else {
                out.push(line.to_string());
            }
        }
    }
    assert!(open.is_none(), "a command runs past its code block");
    out
}

/// `line` without the words a shell runs a command under: `sudo`, `env` and `NAME=value`.
fn without_prefix_words(line: &str) -> &str {
    let mut rest = line;
    loop {
        let (word, after) = rest.split_once(' ').unwrap_or((rest, ""));
        let assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        });
        if word == "sudo" || word == "env" || assignment {
            rest = after.trim_start();
        } else {
            return rest;
        }
    }
}

/// Whether a command goes on to the next line: a trailing `\`, or a quote left open (a quote in
/// a trailing `# comment` does not count).
fn continues(cmd: &str) -> bool {
    let mut quoted = false;
    for (i, c) in cmd.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '#' if !quoted && cmd[..i].ends_with(' ') => return false,
            _ => {}
        }
    }
    quoted || cmd.ends_with('\\')
}

/// The examples of `slccache --help` and of every subcommand's `--help` (the lines under
/// `Examples:` that start with `slccache `, with the lines a trailing `\` continues them on),
/// with the subcommand whose help shows them.
pub fn help_examples() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .args(&path)
            .arg("--help")
            .output()
            .unwrap();
        assert!(o.status.success(), "slccache {path:?} --help");
        let help = String::from_utf8(o.stdout).unwrap();
        let mut in_commands = false;
        let mut in_examples = false;
        for line in help.lines() {
            if line == "Commands:" {
                in_commands = true;
                continue;
            }
            if line == "Examples:" {
                in_examples = true;
                continue;
            }
            if !line.starts_with("  ") {
                in_commands = false;
                in_examples = false;
                continue;
            }
            if in_commands {
                if line.starts_with("   ") {
                    // A wrapped description.
                    continue;
                }
                let name = line.split_whitespace().next().unwrap();
                if name != "help" {
                    let mut sub = path.clone();
                    sub.push(name.to_string());
                    todo.push(sub);
                }
            } else if in_examples {
                let text = line.trim();
                match out.last_mut() {
                    Some((_, open)) if open.ends_with('\\') => {
                        open.push('\n');
                        open.push_str(line);
                    }
                    _ if text.starts_with("slccache ") => {
                        out.push((path.join(" "), text.to_string()));
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// A command as a key to compare by: its trailing `# comment`, line continuations (`\` at the
/// end of a line) and repeated blanks removed (the README aligns comments).
pub fn key(cmd: &str) -> String {
    let cmd = &cmd.replace("\\\n", " ");
    let mut quoted = false;
    let mut end = cmd.len();
    for (i, c) in cmd.char_indices() {
        match c {
            '\'' | '"' => quoted = !quoted,
            '#' if !quoted && cmd[..i].ends_with(' ') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    cmd[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every command path the binary offers (`[]`, `["probe"]`, ..., `["runs", "show"]`), read
/// from the `Commands:` sections of `slccache --help` and of each subcommand's `--help`, as a
/// user finds them.
pub fn command_paths() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .args(&path)
            .arg("--help")
            .output()
            .unwrap();
        assert!(o.status.success(), "slccache {path:?} --help");
        let help = String::from_utf8(o.stdout).unwrap();
        let mut in_commands = false;
        for line in help.lines() {
            if line == "Commands:" {
                in_commands = true;
            } else if !line.starts_with("  ") {
                in_commands = false;
            } else if in_commands && !line.starts_with("   ") {
                let name = line.split_whitespace().next().unwrap();
                if name != "help" {
                    let mut sub = path.clone();
                    sub.push(name.to_string());
                    todo.push(sub);
                }
            }
        }
        out.push(path);
    }
    out.sort();
    out
}
