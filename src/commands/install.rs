//! Shell completions (`slccache completions SHELL`) and the manual page (`slccache man`), both
//! generated from the clap definitions in [`crate::cli`], so they always match the real flags.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};

/// Writes the completion script for `shell` to `out`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "slccache", out);
}

/// Writes the manual page of `slccache` (section 1, roff) to `out`: the top-level page, which
/// lists the subcommands.
pub fn write_man(out: &mut dyn Write) -> std::io::Result<()> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut buf)?;
    out.write_all(copyable_examples(&String::from_utf8_lossy(&buf)).as_bytes())
}

/// Makes the examples of a rendered page copyable: clap_mangen writes the `after_help` text
/// (the "Examples:" block) as plain lines, which man fills, justifies and hyphenates into one
/// paragraph, so a command copied from it does not run. Each run of indented lines (an
/// example, two spaces in) is set as written (`.nf`, no hyphenation) and the section is called
/// EXAMPLES, as man pages name it.
pub fn copyable_examples(roff: &str) -> String {
    let mut out = String::with_capacity(roff.len() + 256);
    let mut in_extra = false;
    let mut verbatim = false;
    for line in roff.lines() {
        if line.starts_with(".SH") {
            if verbatim {
                out.push_str(".fi\n.hy\n");
                verbatim = false;
            }
            in_extra = line == ".SH EXTRA";
            if in_extra {
                out.push_str(".SH EXAMPLES\n");
                continue;
            }
        }
        if in_extra {
            if line == "Examples:" {
                continue;
            }
            let example = line.starts_with("  ");
            if example && !verbatim {
                out.push_str(".nf\n.nh\n");
                verbatim = true;
            } else if !example && verbatim {
                out.push_str(".fi\n.hy\n");
                verbatim = false;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if verbatim {
        out.push_str(".fi\n");
    }
    out
}

/// Writes `slccache.1` and one page per subcommand (`slccache-probe.1`, ...) into `dir`,
/// which is created if missing; returns the files written.
pub fn write_man_pages(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    if dir.exists() && !dir.is_dir() {
        return Err(crate::report::outputs::outdir::not_a_folder(
            "--out-dir",
            dir,
        ));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let cmd = Cli::command();
    let mut pages = vec![("slccache".to_string(), cmd.clone())];
    // One page a subcommand, theirs too (slccache-runs-show), as git names its pages.
    fn add(pages: &mut Vec<(String, clap::Command)>, parent: &str, cmd: &clap::Command) {
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let name = format!("{parent}-{}", sub.get_name());
            pages.push((
                name.clone(),
                sub.clone()
                    .display_name(name.clone())
                    .bin_name(name.clone())
                    .version(crate::VERSION),
            ));
            add(pages, &name, sub);
        }
    }
    add(&mut pages, "slccache", &cmd);
    let mut files = Vec::new();
    for (name, page) in pages {
        let path = dir.join(format!("{name}.1"));
        let mut buf = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut buf)
            .with_context(|| format!("rendering {}", path.display()))?;
        let page = copyable_examples(&String::from_utf8_lossy(&buf));
        std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}

/// Runs `slccache completions`.
pub fn run_completions(args: CompletionsArgs) -> Result<()> {
    let mut buf = Vec::new();
    write_completions(args.shell, &mut buf);
    crate::stdout::write_bytes(&buf);
    Ok(())
}

/// Runs `slccache man`.
pub fn run_man(args: ManArgs) -> Result<()> {
    match args.out_dir {
        Some(dir) => {
            let files = write_man_pages(&dir)?;
            crate::report::print_files_written(&files);
            Ok(())
        }
        None => {
            let mut buf = Vec::new();
            write_man(&mut buf).context("rendering the manual page")?;
            crate::stdout::write_bytes(&buf);
            Ok(())
        }
    }
}
