//! Standard output, checked. Every result slccache prints (`say!`, `say_raw!`, a command's
//! text or JSON, clap's help) goes through [`write_fmt`] or [`write_bytes`], which never panic
//! and never stop a run: the first failed write is kept, and `main` calls [`finish`] once the
//! command returned, which flushes stdout and says whether everything printed reached it. A
//! full disk (`> /dev/full`) is then an error (exit 1); a reader that closed the pipe
//! (`| head -1`) is not, since it has seen what it wanted.

use std::io::{self, Write};
use std::sync::Mutex;

/// The first write to stdout that failed.
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);

/// Keeps the first failure of a write to stdout.
pub fn check(r: io::Result<()>) {
    if let Err(e) = r {
        let mut f = FAILED.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some(e);
        }
    }
}

/// Writes formatted text to stdout; with `flush`, flushes it at once (text without a line
/// end, such as a prompt or a block whose last line is complete).
pub fn write_fmt(args: std::fmt::Arguments<'_>, flush: bool) {
    let mut out = io::stdout().lock();
    let r = out.write_fmt(args);
    check(if flush {
        r.and_then(|_| out.flush())
    } else {
        r
    });
}

/// Writes bytes to stdout and flushes them.
pub fn write_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    check(out.write_all(bytes).and_then(|_| out.flush()));
}

/// How the printing of a whole command went.
#[derive(Debug)]
pub enum Outcome {
    /// Everything printed reached stdout.
    Written,
    /// The reader closed the pipe: the rest was not wanted.
    Closed,
    /// A write failed (a full disk, an I/O error, a closed descriptor).
    Failed(io::Error),
}

/// Flushes stdout and returns how every write since the start went (the first failure).
pub fn finish() -> Outcome {
    check(io::stdout().lock().flush());
    match FAILED.lock().unwrap_or_else(|e| e.into_inner()).take() {
        None => Outcome::Written,
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => Outcome::Closed,
        Some(e) => Outcome::Failed(e),
    }
}

/// The one-line message for a failed write: `cannot write to standard output: No space left
/// on device` (the OS error number left out).
pub fn failure_message(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    };
    format!("cannot write to standard output: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_cause_without_its_number() {
        let e = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(
            failure_message(&e),
            "cannot write to standard output: No space left on device"
        );
        let e = io::Error::other("odd");
        assert_eq!(failure_message(&e), "cannot write to standard output: odd");
    }
}
