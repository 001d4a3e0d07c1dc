//! The command line before and after clap reads it: a negative number given as a flag's
//! value is handed to the flag (so that its own check says what is wrong with it), and a
//! usage error clap finds is told in one line, as every other error is, with a short usage
//! hint.

use std::ffi::OsString;

use clap::CommandFactory;

use super::Cli;

/// Whether `s` reads as a negative number (`-5`, `-5GB`, `-.5s`), which clap takes for short
/// flags.
fn negative_number(s: &str) -> bool {
    let mut c = s.chars();
    c.next() == Some('-')
        && match c.next() {
            Some(d) if d.is_ascii_digit() => true,
            Some('.') => c.next().is_some_and(|d| d.is_ascii_digit()),
            _ => false,
        }
}

/// `args` (the program name first) with each `--flag -5GB` given as `--flag=-5GB` where
/// `--flag` takes a value: clap reads a word that starts with `-` as flags of its own
/// (`-5`, `-G`, `-B`), so that `--max-bytes -5GB` was refused as "unexpected argument '-5'"
/// rather than as a negative size. Everything else is left as it is, and nothing after `--`.
pub fn join_negative_values(args: Vec<OsString>) -> Vec<OsString> {
    let root = Cli::command();
    // The commands in force: the root, then each subcommand named so far (a flag of a
    // parent, such as `runs --drive`, is looked up there too).
    let mut path: Vec<clap::Command> = vec![root];
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.into_iter();
    if let Some(program) = it.next() {
        out.push(program);
    }
    while let Some(arg) = it.next() {
        let Some(word) = arg.to_str().map(str::to_string) else {
            out.push(arg);
            continue;
        };
        if word == "--" {
            out.push(arg);
            out.extend(it);
            break;
        }
        if let Some(name) = word.strip_prefix("--").filter(|n| !n.contains('=')) {
            let takes_value = path.iter().rev().any(|c| {
                c.get_arguments().any(|a| {
                    a.get_long() == Some(name)
                        && a.get_action().takes_values()
                        && !a.is_positional()
                })
            });
            if takes_value {
                match it.next() {
                    Some(v) if v.to_str().is_some_and(negative_number) => {
                        let mut joined = arg.clone();
                        joined.push("=");
                        joined.push(&v);
                        out.push(joined);
                    }
                    Some(v) => {
                        out.push(arg);
                        out.push(v);
                    }
                    None => out.push(arg),
                }
                continue;
            }
        }
        if !word.starts_with('-') {
            let sub = path.last().and_then(|c| c.find_subcommand(&word)).cloned();
            if let Some(sub) = sub {
                path.push(sub);
            }
        }
        out.push(arg);
    }
    out
}

/// The usage line of the (sub)command that `args` (the program's name first) name, as clap
/// renders it ("Usage: slccache runs [OPTIONS] [COMMAND]"): for an error whose rendering
/// gives none (a flag that takes a value given without one).
pub fn usage_of(args: &[OsString]) -> String {
    let mut cmd = Cli::command();
    cmd.build();
    let mut cur = &mut cmd;
    for a in args.iter().skip(1) {
        let Some(w) = a.to_str() else { break };
        if w.starts_with('-') {
            continue;
        }
        match cur.find_subcommand(w).map(|c| c.get_name().to_string()) {
            Some(name) => cur = cur.find_subcommand_mut(&name).expect("found"),
            None => break,
        }
    }
    cur.render_usage().to_string()
}

/// [`usage_error_text`] of clap's `rendered` error for `args`, with the usage of the command
/// they name where the rendering gives none.
pub fn usage_error_text_for(rendered: &str, args: &[OsString]) -> String {
    if rendered.lines().any(|l| l.trim().starts_with("Usage: ")) {
        usage_error_text(rendered)
    } else {
        usage_error_text(&format!("{rendered}\n{}\n", usage_of(args)))
    }
}

/// A usage error as clap renders it ("error: ...", indented details, tips, a usage line and
/// "For more information, try '--help'.") told as slccache tells every error: one line
/// `slccache: error: ...` with the details and useful tips in it, then one short hint with
/// the usage and where the help is. A tip to pass the word after `--` is left out: the word
/// was a mistyped flag or a value the command refuses either way.
pub fn usage_error_text(rendered: &str) -> String {
    let mut head = String::new();
    let mut usage: Option<String> = None;
    for line in rendered.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("For more information") {
            continue;
        }
        if let Some(u) = l.strip_prefix("Usage: ") {
            usage = Some(u.trim().to_string());
        } else if let Some(u) = usage.as_mut() {
            // A usage wrapped over several lines.
            u.push(' ');
            u.push_str(l);
        } else if head.is_empty() {
            head = l.strip_prefix("error: ").unwrap_or(l).to_string();
        } else if let Some(tip) = l.strip_prefix("tip: ") {
            if !tip.starts_with("to pass ") {
                head.push_str(&format!(" ({tip})"));
            }
        } else {
            // Details (the arguments missing, the values possible).
            if !head.ends_with(':') {
                head.push(';');
            }
            head.push(' ');
            head.push_str(l.trim_start_matches('[').trim_end_matches(']'));
        }
    }
    let mut text = format!("slccache: error: {head}");
    if let Some(u) = usage {
        // The command's words: the usage up to its first `[OPTIONS]`, `<ARG>` or flag.
        let cmd: Vec<&str> = u
            .split_whitespace()
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect();
        text.push_str(&format!(
            "\n  usage: {u} (more: `{} --help`)",
            cmd.join(" ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(args: &[&str]) -> Vec<String> {
        join_negative_values(args.iter().map(OsString::from).collect())
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn a_negative_value_of_a_flag_is_handed_to_the_flag() {
        assert_eq!(
            joined(&["slccache", "probe", "emu:x", "--max-bytes", "-5GB"]),
            ["slccache", "probe", "emu:x", "--max-bytes=-5GB"]
        );
        // A flag of the parent command, given before the subcommand.
        assert_eq!(
            joined(&["slccache", "runs", "--since", "-1d", "show", "3"]),
            ["slccache", "runs", "--since=-1d", "show", "3"]
        );
        // Left alone: a flag that takes no value, a value that is no negative number, and
        // everything after `--`.
        for args in [
            &["slccache", "probe", "emu:x", "--overwrite", "-5"][..],
            &["slccache", "probe", "emu:x", "--max-bytes", "5GB"],
            &["slccache", "probe", "emu:x", "--max-bytes", "-q"],
            &["slccache", "runs", "show", "--", "--since", "-1"],
        ] {
            assert_eq!(joined(args), args);
        }
    }

    #[test]
    fn a_usage_error_is_one_line_and_a_hint() {
        let text = usage_error_text(
            "error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a \
             value, use '-- --bogus'\n\nUsage: slccache probe [OPTIONS] <TARGET>\n\nFor more \
             information, try '--help'.\n",
        );
        assert_eq!(
            text,
            "slccache: error: unexpected argument '--bogus' found\n  usage: slccache probe \
             [OPTIONS] <TARGET> (more: `slccache probe --help`)"
        );
        let text = usage_error_text(
            "error: the following required arguments were not provided:\n  <MODEL>\n\nUsage: \
             slccache simulate <MODEL>\n\nFor more information, try '--help'.\n",
        );
        assert_eq!(
            text.lines().next().unwrap(),
            "slccache: error: the following required arguments were not provided: <MODEL>"
        );
        let text = usage_error_text(
            "error: unexpected argument '--max-byte' found\n\n  tip: a similar argument \
             exists: '--max-bytes'\n\nUsage: slccache probe [OPTIONS] <TARGET>\n",
        );
        assert_eq!(
            text.lines().next().unwrap(),
            "slccache: error: unexpected argument '--max-byte' found (a similar argument \
             exists: '--max-bytes')"
        );
    }
}
