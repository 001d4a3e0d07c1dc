//! The one set of signal handlers every command that writes installs for the length of its
//! run and its reports.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Result;

use crate::report::console::progress;

/// Signal handlers for the length of a run and its reports: the first Ctrl-C, SIGTERM or SIGHUP
/// (a closed terminal or a dropped SSH session) sets the flag (the run, or the experiment's
/// current step, drains and writes its outputs, exit 130); a second one ends the process at
/// once with exit 130.
pub struct Signals {
    /// Set by the first signal.
    pub flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    /// Installs the handlers for SIGINT, SIGTERM and SIGHUP until dropped.
    pub fn install() -> Result<Signals> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let flag = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let f = flag.clone();
            // SAFETY: the handler only loads an atomic, clears the progress line with
            // write(2) and ends the process with _exit(2): all async-signal-safe.
            ids.push(unsafe {
                signal_hook::low_level::register(sig, move || {
                    if f.load(Ordering::SeqCst) {
                        progress::clear_line_from_signal();
                        signal_hook::low_level::exit(130);
                    }
                })
            }?);
            ids.push(signal_hook::flag::register(sig, flag.clone())?);
        }
        Ok(Signals { flag, ids })
    }

    /// Whether a signal came.
    pub fn stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
