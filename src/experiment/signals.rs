//! The one set of signal handlers every command that writes installs for the length of its
//! run and its reports.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::report::console::progress;

/// Signal handlers for the length of a run and its reports: the first Ctrl-C, SIGTERM or SIGHUP
/// (a closed terminal or a dropped SSH session) sets the flag (the run, or the experiment's
/// current step, drains and writes its outputs, exit 130); a second one, [`SAME_SIGNAL`] or
/// more after the first, ends the process at once with exit 130. One sooner is taken as the
/// same signal delivered twice: GNU `timeout` sends its signal to the command and then to its
/// whole process group, and the second copy ended a run before it wrote its outputs.
pub struct Signals {
    /// Set by the first signal.
    pub flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

/// How long after the first signal a second one is still the same one, delivered twice.
pub const SAME_SIGNAL: Duration = Duration::from_millis(500);

impl Signals {
    /// Installs the handlers for SIGINT, SIGTERM and SIGHUP until dropped.
    pub fn install() -> Result<Signals> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let flag = Arc::new(AtomicBool::new(false));
        // When the first signal came, in nanoseconds since `epoch`, plus one (0: none yet).
        let first = Arc::new(AtomicU64::new(0));
        let epoch = Instant::now();
        let same_ns = SAME_SIGNAL.as_nanos() as u64;
        let mut ids = Vec::new();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let f = flag.clone();
            let at = first.clone();
            // SAFETY: the handler only reads the monotonic clock (clock_gettime(2), which
            // POSIX lists as async-signal-safe; `Instant` calls nothing else), uses atomics,
            // clears the progress line with write(2) and ends the process with _exit(2): all
            // async-signal-safe. It allocates nothing and takes no lock.
            ids.push(unsafe {
                signal_hook::low_level::register(sig, move || {
                    let now = epoch.elapsed().as_nanos() as u64 + 1;
                    match at.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
                        Ok(_) => f.store(true, Ordering::SeqCst),
                        Err(then) if now.saturating_sub(then) >= same_ns => {
                            progress::clear_line_from_signal();
                            signal_hook::low_level::exit(130);
                        }
                        Err(_) => {}
                    }
                })
            }?);
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
