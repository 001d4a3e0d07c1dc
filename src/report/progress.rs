//! Console output while a run goes on: a progress line on stderr (elapsed time, bytes written,
//! current rate), hidden with `--quiet` or when stderr is not a terminal; the question asked
//! before a block device is overwritten; and the closing lines of a probe.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::timeline::Sample;
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The progress line of a running probe.
pub struct Progress {
    bar: ProgressBar,
    units: UnitSystem,
}

impl Progress {
    /// A progress line; `total_bytes` is the byte limit when there is one. Hidden when `quiet`
    /// or when stderr is not a terminal.
    pub fn new(quiet: bool, total_bytes: Option<u64>, units: UnitSystem) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = match total_bytes {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        bar.set_draw_target(if visible {
            ProgressDrawTarget::stderr_with_hz(4)
        } else {
            ProgressDrawTarget::hidden()
        });
        let template = if total_bytes.is_some() {
            "{elapsed_precise} [{bar:30}] {percent:>3}% {msg}"
        } else {
            "{spinner} {elapsed_precise} {msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress { bar, units }
    }

    /// Whether anything is drawn.
    pub fn is_visible(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Shows the latest interval.
    pub fn update(&self, s: &Sample) {
        self.bar.set_position(s.bytes_total);
        self.bar.set_message(format!(
            "{} written, {} now",
            format_bytes(s.bytes_total as f64, self.units),
            format_rate(s.bytes_per_sec, self.units)
        ));
    }

    /// Removes the line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Prints a message above the progress line (stderr).
    pub fn note(&self, msg: &str) {
        self.bar.suspend(|| eprintln!("{msg}"));
    }
}

/// Shows what will be destroyed and asks the user to type `name`. Reads one line from stdin.
pub fn confirm_device(
    path: &str,
    name: &str,
    model: Option<&str>,
    capacity_bytes: u64,
) -> std::io::Result<bool> {
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "slccache will overwrite ALL DATA on {path} ({}{}).",
        model
            .map(|m| format!("{m}, "))
            .unwrap_or_else(|| "model unknown, ".to_string()),
        format_bytes(capacity_bytes as f64, UnitSystem::Decimal)
    )?;
    write!(
        err,
        "Type the device name ({name}) to go on, anything else to stop: "
    )?;
    err.flush()?;
    drop(err);
    let mut line = String::new();
    let n = std::io::stdin().lock().read_line(&mut line)?;
    if n == 0 || !line.ends_with('\n') {
        // Ctrl-D: the terminal echoed no newline; end the prompt's line.
        eprintln!();
    }
    let answer = line.trim();
    Ok(answer == name || answer == path)
}

/// Prints where the outputs went and one line about the run (stdout).
pub fn print_done(out_dir: &std::path::Path, line: &str) {
    println!("{line}");
    println!("outputs: {}", out_dir.display());
}
