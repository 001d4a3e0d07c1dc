//! slccache: measure how big an SSD's SLC write cache really is and what happens when it runs
//! out.
//!
//! Data flows one way (see `docs/DESIGN.md`):
//! `cli -> config -> target -> engine -> sampler -> timeline -> detect -> report`.
#![deny(missing_docs)]

/// `eprintln!` that never panics: when stderr is a closed pipe (`2>&1 | head -1`) or a full
/// disk, the line is lost and the run goes on to write its outputs.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `println!` that never panics and never stops a run: the line goes through
/// [`stdout::write_fmt`], which keeps the first failed write for `main` to report (exit 1)
/// once the command returned; a closed pipe (`| head`) loses the rest quietly.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        $crate::stdout::write_fmt(format_args!("{}\n", format_args!($($arg)*)), false);
    }};
}

/// `print!` that never panics, flushed at once (see [`say!`]).
#[macro_export]
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        $crate::stdout::write_fmt(format_args!($($arg)*), true);
    }};
}

/// `eprint!` that never panics (see [`note!`]).
#[macro_export]
macro_rules! note_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod cli;
pub mod commands;
pub mod config;
pub mod conninfo;
pub mod detect;
pub mod device;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod health;
pub mod link;
pub mod model;
pub mod origin;
pub mod report;
pub mod results;
pub mod sampler;
pub mod shell;
pub mod stdout;
pub mod store;
pub mod timeline;
pub mod units;
pub mod workload;

/// The version string written into summaries and chart footers.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
