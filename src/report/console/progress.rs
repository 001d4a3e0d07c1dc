//! Console output while a run goes on: the progress line on stderr, the question asked
//! before a block device is overwritten, and the closing lines of a probe.
//!
//! The progress line has three forms:
//! - on a terminal, one line redrawn a few times a second: elapsed time, data written, the
//!   rate now, a sparkline of recent rates, the cliff once one is seen ("cliff at 19.1 GB
//!   (14.0 s)") with the current cache estimate, and % and ETA when the run has a limit;
//! - off a terminal (logs, CI, `nohup`), one plain line every [`PLAIN_EVERY`];
//! - with `--quiet`, nothing.
//!
//! [`Progress::finish`] clears the terminal line; a second Ctrl-C, which ends the process at
//! once, clears it too ([`clear_line_from_signal`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::detect::stop::Estimate;
use crate::timeline::Sample;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// How often the plain (non-terminal) form prints a line.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// How often the terminal line is redrawn at most.
const REDRAW_EVERY: Duration = Duration::from_millis(250);

/// Recent rates shown in the sparkline.
const SPARK_LEN: usize = 20;

/// Whether a progress line is on the terminal now (read by the signal handler).
static LINE_SHOWN: AtomicBool = AtomicBool::new(false);

/// Clears the progress line, if one is shown. Async-signal-safe: only an atomic load and
/// write(2); for a signal handler that ends the process.
pub fn clear_line_from_signal() {
    if LINE_SHOWN.load(Ordering::SeqCst) {
        let seq = b"\r\x1b[2K";
        // SAFETY: write(2) on fd 2 with a pointer and length into a static byte string that
        // lives for the whole program; it is async-signal-safe and its result is not needed.
        unsafe {
            libc::write(2, seq.as_ptr().cast(), seq.len());
        }
    }
}

/// Where the progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Nothing (`--quiet`).
    Hidden,
    /// One line redrawn in place (stderr is a terminal).
    Terminal,
    /// A plain line every [`PLAIN_EVERY`] (stderr is not a terminal).
    Plain,
}

impl ProgressMode {
    /// The mode for stderr: hidden when `quiet`, else by whether stderr is a terminal.
    pub fn for_stderr(quiet: bool) -> ProgressMode {
        if quiet {
            ProgressMode::Hidden
        } else if std::io::stderr().is_terminal() {
            ProgressMode::Terminal
        } else {
            ProgressMode::Plain
        }
    }
}

/// What the progress line knows.
#[derive(Debug, Clone, Default)]
pub struct ProgressState {
    /// Seconds since the start.
    pub elapsed_s: f64,
    /// Bytes written so far (read, for a run that only reads: [`ProgressState::reads`]).
    pub bytes: u64,
    /// The run has only read so far: `bytes` and the rates are its reads, said as "read".
    pub reads: bool,
    /// The rate of the latest interval, bytes/s.
    pub rate: Option<f64>,
    /// Recent rates, oldest first, bytes/s.
    pub recent: VecDeque<f64>,
    /// The cliff and cache estimate, once one is seen.
    pub cliff: Option<Estimate>,
    /// Whether the run stops at the cliff (then the ETA counts down to the stop).
    pub early_stop: bool,
    /// The byte limit, if any.
    pub total_bytes: Option<u64>,
    /// The time limit, if any, seconds.
    pub duration_s: Option<f64>,
    /// No cliff, but a drop inside the first sample: `Some(None)` once seen, with the run
    /// time at which the early stop ends the run for it when it does.
    pub first_drop: Option<Option<f64>>,
    /// The cliffs the early stop waits for (`--cliffs N`); 0 or 1: the first.
    pub cliffs_wanted: usize,
    /// With `cliffs_wanted` above 1: the N-th cliff once seen, the one the early stop ends
    /// the run on (until then the first cliff ends nothing).
    pub target: Option<Estimate>,
}

/// A sparkline of `v` scaled from zero to its largest value.
pub fn sparkline(v: &[f64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = v.iter().copied().fold(0.0, f64::max);
    v.iter()
        .map(|&x| {
            if max <= 0.0 || !x.is_finite() {
                BARS[0]
            } else {
                BARS[((x / max * 7.0).round().clamp(0.0, 7.0)) as usize]
            }
        })
        .collect()
}

/// The limit a progress share is of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// `--duration`, seconds.
    Duration(f64),
    /// The bytes to write: `--max-bytes` or one pass over the span.
    Bytes(u64),
}

impl ProgressState {
    /// The share done (0..=1) of the run's own limit (`--duration`, or the bytes to write:
    /// whichever comes first), the seconds left to it, and that limit. Its basis does not
    /// change while the run goes: the early stop is said apart ([`Self::early_stop_left`]),
    /// so that the share never flips between two limits nor goes backwards.
    pub fn done_and_eta(&self) -> Option<(f64, f64, Limit)> {
        let t = self.elapsed_s;
        let mut best: Option<(f64, f64, Limit)> = None;
        let mut take = |share: f64, left: f64, limit: Limit| {
            if share.is_finite() && left.is_finite() {
                let c = (share.clamp(0.0, 1.0), left.max(0.0), limit);
                if best.is_none_or(|b| c.1 < b.1) {
                    best = Some(c);
                }
            }
        };
        if let Some(d) = self.duration_s {
            if d > 0.0 {
                take(t / d, d - t, Limit::Duration(d));
            }
        }
        if let Some(total) = self.total_bytes {
            let rate = self
                .rate
                .filter(|r| *r > 0.0)
                .or_else(|| (t > 0.0 && self.bytes > 0).then(|| self.bytes as f64 / t));
            if let (Some(r), true) = (rate, total > 0) {
                take(
                    self.bytes as f64 / total as f64,
                    total.saturating_sub(self.bytes) as f64 / r,
                    Limit::Bytes(total),
                );
            }
        }
        best
    }

    /// The seconds left to the early stop, once the cliff it ends the run on is seen (the
    /// first, or the N-th with `--cliffs N`; or a drop inside the first sample).
    pub fn early_stop_left(&self) -> Option<f64> {
        if !self.early_stop {
            return None;
        }
        let t = self.elapsed_s;
        let stops_on = if self.cliffs_wanted > 1 {
            &self.target
        } else {
            &self.cliff
        };
        let at = match (stops_on, &self.cliff, self.first_drop) {
            (Some(e), _, _) => Some(e.stop_at_s),
            (None, None, Some(Some(at))) => Some(at),
            _ => None,
        };
        at.filter(|a| *a > 0.0).map(|a| (a - t).max(0.0))
    }

    /// The line: `what`, then the figures; `spark` adds the sparkline, last (a terminal line
    /// is cut at its width, and the share and ETA are what a reader waits for).
    pub fn line(&self, what: &str, units: UnitSystem, spark: bool) -> String {
        let mut s = self.head(what, units, true);
        for c in self.findings(units, false) {
            s.push_str(&c);
        }
        if spark {
            s.push_str(&self.spark());
        }
        s
    }

    /// The line for a terminal `width` columns wide, whole clauses only: the full line where
    /// it fits, else without the sparkline, then without "written", then with the findings
    /// in their short form ("cache ~22.0 GB"), and only then the findings left out (a
    /// warning above the line has said them). A line is never cut inside a word or a figure
    /// ("cliff at 2"), unless even its head is wider than the terminal.
    pub fn line_within(&self, what: &str, units: UnitSystem, width: usize) -> String {
        let fits = |l: &str| l.chars().count() < width;
        let full = self.findings(units, false).concat();
        let short = self.findings(units, true).concat();
        let spark = self.spark();
        let long_head = self.head(what, units, true);
        let head = self.head(what, units, false);
        let tries = [
            format!("{long_head}{full}{spark}"),
            format!("{long_head}{full}"),
            format!("{head}{full}"),
            format!("{head}{short}"),
            head.clone(),
        ];
        if let Some(l) = tries.into_iter().find(|l| fits(l)) {
            return l;
        }
        // Narrower still: the head's own clauses from its end (ETA, share, rate), whole.
        let mut clauses: Vec<&str> = head.split(", ").collect();
        while clauses.len() > 1 && !fits(&clauses.join(", ")) {
            clauses.pop();
        }
        let l = clauses.join(", ");
        if fits(&l) {
            l
        } else {
            l.chars().take(width.saturating_sub(1)).collect()
        }
    }

    /// Time, bytes (with "written" when `written`), rate, share of the limit and ETA.
    fn head(&self, what: &str, units: UnitSystem, written: bool) -> String {
        let mut s = format!(
            "{what}: {}, {}{}",
            format_seconds(self.elapsed_s),
            format_bytes(self.bytes as f64, units),
            match (written, self.reads) {
                (false, _) => "",
                (true, false) => " written",
                (true, true) => " read",
            }
        );
        // The rate of the latest interval (" now" left out: an 80-column line must hold the
        // share and the ETA whole).
        if let Some(r) = self.rate {
            s.push_str(&format!(", {}", format_rate(r, units)));
        }
        let hard = self.done_and_eta();
        if let Some((done, _, limit)) = hard {
            let of = match limit {
                Limit::Duration(d) => format_seconds(d),
                Limit::Bytes(b) => format_bytes(b as f64, units),
            };
            s.push_str(&format!(", {:.0}% of {of}", 100.0 * done));
        }
        // The ETA: to the run's own limit, or to the early stop where that comes first (one
        // word for both, so that it does not flip when the two are close).
        let eta = match (hard.map(|h| h.1), self.early_stop_left()) {
            (Some(h), Some(e)) => Some(h.min(e)),
            (h, e) => h.or(e),
        };
        if let Some(left) = eta {
            s.push_str(&format!(", ETA {}", format_seconds(left)));
        }
        s
    }

    /// What the run has found so far, one clause each (", cliff at ..."); `short` gives each
    /// in the fewest words that still say it.
    fn findings(&self, units: UnitSystem, short: bool) -> Vec<String> {
        let mut v = Vec::new();
        // With `--cliffs N`: the run goes on past the first cliff, looking for the N-th.
        if let (n, Some(_), None) = (self.cliffs_wanted, &self.cliff, &self.target) {
            if n > 1 && self.early_stop {
                v.push(if short {
                    format!(", seeking cliff {n}")
                } else {
                    format!(", looking for cliff {n} of {n}")
                });
            }
        }
        if let (None, Some(_)) = (&self.cliff, self.first_drop) {
            v.push(if short {
                ", drop in 1st sample".to_string()
            } else {
                ", a drop in the first sample: the cache may have run out, too soon to measure"
                    .to_string()
            });
        }
        if let Some(e) = &self.cliff {
            v.push(if short {
                format!(", cache ~{}", format_bytes(e.cache.bytes as f64, units))
            } else {
                format!(
                    ", cliff at {} ({:.1} s), cache ~{} ({} to {})",
                    format_bytes(e.cliff.bytes_written as f64, units),
                    e.cliff.t_s,
                    format_bytes(e.cache.bytes as f64, units),
                    format_bytes(e.cache.low_bytes as f64, units),
                    format_bytes(e.cache.high_bytes as f64, units)
                )
            });
        }
        v
    }

    /// The sparkline of recent rates, with its leading space; empty with fewer than two.
    fn spark(&self) -> String {
        if self.recent.len() > 1 {
            let v: Vec<f64> = self.recent.iter().copied().collect();
            format!(" {}", sparkline(&v))
        } else {
            String::new()
        }
    }
}

/// The progress line of a running probe (or prefill). Used from one thread.
pub struct Progress {
    mode: ProgressMode,
    what: String,
    units: UnitSystem,
    start: Instant,
    inner: RefCell<Inner>,
}

struct Inner {
    state: ProgressState,
    last_draw: Option<Instant>,
    last_plain: Instant,
    shown: bool,
    /// Whether a sample has come in: from then on the line shows the time of the latest
    /// sample, so that the time and the data written on it belong together (the wall clock
    /// runs up to one interval ahead of the data).
    sampled: bool,
}

impl Progress {
    /// A progress line named `what` ("probe", "prefill") for a run with an optional byte
    /// and time limit; `early_stop` says whether the run stops at the cliff.
    pub fn new(
        mode: ProgressMode,
        what: &str,
        total_bytes: Option<u64>,
        duration: Option<Duration>,
        early_stop: bool,
        units: UnitSystem,
    ) -> Progress {
        let now = Instant::now();
        Progress {
            mode,
            what: what.to_string(),
            units,
            start: now,
            inner: RefCell::new(Inner {
                state: ProgressState {
                    total_bytes,
                    duration_s: duration.map(|d| d.as_secs_f64()),
                    early_stop,
                    ..ProgressState::default()
                },
                last_draw: None,
                last_plain: now,
                shown: false,
                sampled: false,
            }),
        }
    }

    /// Whether anything is drawn.
    pub fn is_visible(&self) -> bool {
        self.mode != ProgressMode::Hidden
    }

    /// Takes in the latest interval, and the cliff once one is seen.
    pub fn update(&self, s: &Sample, cliff: Option<&Estimate>) {
        {
            let mut g = self.inner.borrow_mut();
            let st = &mut g.state;
            // A run that only reads shows its reads ("0 B written, 0.00 MB/s" while it read
            // 22.6 GB at 2252 MB/s).
            let read = s
                .read
                .as_ref()
                .filter(|r| s.bytes_total == 0 && r.bytes > 0 && s.interval_s > 0.0);
            let rate = match read {
                Some(r) => {
                    st.reads = true;
                    st.bytes += r.bytes;
                    r.bytes as f64 / s.interval_s
                }
                None => {
                    st.reads = false;
                    st.bytes = s.bytes_total;
                    s.bytes_per_sec
                }
            };
            st.rate = Some(rate);
            st.recent.push_back(rate);
            while st.recent.len() > SPARK_LEN {
                st.recent.pop_front();
            }
            st.cliff = cliff.cloned();
            st.elapsed_s = s.t_s;
            g.sampled = true;
        }
        self.draw(true);
    }

    /// The cliffs the early stop waits for (`--cliffs N`).
    pub fn with_cliffs(self, n: usize) -> Progress {
        self.inner.borrow_mut().state.cliffs_wanted = n;
        self
    }

    /// Takes in the cliff the run stops on with `--cliffs N` above 1 (the N-th), once seen.
    pub fn set_target(&self, target: Option<&Estimate>) {
        self.inner.borrow_mut().state.target = target.cloned();
    }

    /// Takes in a drop inside the first sample, and when the early stop ends the run for it
    /// (`None`: it does not).
    pub fn set_first_drop_stop(&self, stop_at_s: Option<f64>) {
        self.inner.borrow_mut().state.first_drop = Some(stop_at_s);
    }

    /// Sets the bytes written so far without a whole sample (a prefill).
    pub fn set_bytes(&self, bytes: u64) {
        self.inner.borrow_mut().state.bytes = bytes;
        self.tick();
    }

    /// Redraws when it is time: the terminal line a few times a second, the plain line every
    /// [`PLAIN_EVERY`].
    pub fn tick(&self) {
        self.draw(false);
    }

    /// Draws the line when it is time. Once samples come in, the plain form prints only as
    /// one arrives (`from_sample`), so that its time is the sample's end and its bytes are
    /// those written by then; before that (a prefill) it shows the wall clock.
    fn draw(&self, from_sample: bool) {
        let now = Instant::now();
        let mut g = self.inner.borrow_mut();
        if !g.sampled {
            g.state.elapsed_s = (now - self.start).as_secs_f64();
        }
        match self.mode {
            ProgressMode::Hidden => {}
            ProgressMode::Terminal => {
                if g.last_draw.is_some_and(|d| now - d < REDRAW_EVERY) {
                    return;
                }
                g.last_draw = Some(now);
                let line = g
                    .state
                    .line_within(&self.what, self.units, terminal_width());
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K{line}");
                let _ = err.flush();
                g.shown = true;
                LINE_SHOWN.store(true, Ordering::SeqCst);
            }
            ProgressMode::Plain => {
                if g.sampled && !from_sample {
                    return;
                }
                if now - g.last_plain >= PLAIN_EVERY {
                    g.last_plain = now;
                    crate::note!("{}", g.state.line(&self.what, self.units, false));
                }
            }
        }
    }

    /// Removes the terminal line.
    pub fn finish(&self) {
        let mut g = self.inner.borrow_mut();
        if g.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            g.shown = false;
            LINE_SHOWN.store(false, Ordering::SeqCst);
        }
    }

    /// Prints a message (stderr), above the progress line on a terminal.
    pub fn note(&self, msg: &str) {
        let shown = self.inner.borrow().shown;
        if shown {
            self.finish();
        }
        crate::note!("{msg}");
        if shown {
            self.inner.borrow_mut().last_draw = None;
            self.tick();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Columns of the terminal on stderr (80 when unknown).
fn terminal_width() -> usize {
    columns_of(2).unwrap_or(80)
}

/// Columns of the terminal on file descriptor `fd`; `None` when it is no terminal.
fn columns_of(fd: i32) -> Option<usize> {
    let mut ws: libc::winsize = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we pass, which lives on the stack
    // for the call; on failure it is left zeroed.
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

/// The width a table on standard output is fitted to: `COLUMNS` where it is set, else the
/// width of the terminal standard output is; `None` (every column whole) when standard output
/// is no terminal (a pipe or a file, read by a program or kept).
pub fn table_width() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| columns_of(1))
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
        crate::note!();
    }
    let answer = line.trim();
    Ok(answer == name || answer == path)
}

/// Prints one line about the run and where the outputs went (stdout); with `quiet`, both
/// on one line.
pub fn print_done(out_dir: &std::path::Path, line: &str, quiet: bool) {
    if quiet {
        crate::say!("{line}; outputs: {}", out_dir.display());
    } else {
        crate::say!("{line}");
        crate::say!("outputs: {}", out_dir.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{CacheEstimate, Cliff};

    /// A cliff at 22.0 GB and `t_s` (±0.1 s), seen at 14.0 s and held `hold_s`: a cache of
    /// 22.0 GB (21.9 GB to 22.4 GB), 1800 -> 600 MB/s.
    fn cliff_22gb(t_s: f64, hold_s: f64) -> Estimate {
        Estimate {
            cliff: Cliff {
                t_s,
                t_low_s: t_s - 0.1,
                t_high_s: t_s + 0.1,
                bytes_written: 22_000_000_000,
                before_bytes_per_sec: 1.8e9,
                after_bytes_per_sec: 6e8,
                under_heat: false,
            },
            cache: CacheEstimate {
                bytes: 22_000_000_000,
                low_bytes: 21_900_000_000,
                high_bytes: 22_400_000_000,
            },
            seen_since_s: 14.0,
            hold_s,
            stop_at_s: 14.0 + hold_s,
        }
    }

    #[test]
    fn the_line_shows_the_time_of_the_data_it_shows() {
        // Ten seconds into a run with 1 s intervals, the sample for [8 s, 9 s) is the latest
        // in (the one for [9 s, 10 s) closes a moment later): the line says 9.0 s with the
        // bytes written by 9 s, not 10.0 s with them.
        let mut p = Progress::new(
            ProgressMode::Hidden,
            "probe",
            None,
            None,
            false,
            UnitSystem::Decimal,
        );
        p.start = Instant::now() - Duration::from_secs(10);
        let s = Sample {
            t_s: 9.0,
            interval_s: 1.0,
            bytes: 1_000_000_000,
            bytes_total: 9_000_000_000,
            bytes_per_sec: 1e9,
            ..Sample::default()
        };
        p.update(&s, None);
        p.tick();
        let l = p
            .inner
            .borrow()
            .state
            .line("probe", UnitSystem::Decimal, false);
        assert!(l.starts_with("probe: 9.0 s, 9.00 GB written"), "{l}");
        // Before any sample (a prefill), the wall clock.
        let q = Progress::new(
            ProgressMode::Hidden,
            "prefill",
            None,
            None,
            false,
            UnitSystem::Decimal,
        );
        q.set_bytes(5);
        assert!(q.inner.borrow().state.elapsed_s < 9.0);
    }

    /// A probe that only reads said "0 B written, 0.00 MB/s" on its line while it read
    /// 22.6 GB at 2252 MB/s: it shows its reads, as read.
    #[test]
    fn a_read_only_run_shows_its_reads_on_the_line() {
        let p = Progress::new(
            ProgressMode::Hidden,
            "probe",
            None,
            None,
            false,
            UnitSystem::Decimal,
        );
        for i in 1..=3u64 {
            let s = Sample {
                t_s: i as f64,
                interval_s: 1.0,
                read: Some(crate::timeline::ReadStats {
                    bytes: 2_250_000_000,
                    iops: 17_000.0,
                    lat_p50_us: None,
                    lat_p99_us: None,
                    lat_max_us: None,
                }),
                ..Sample::default()
            };
            p.update(&s, None);
        }
        let l = p
            .inner
            .borrow()
            .state
            .line("probe", UnitSystem::Decimal, false);
        assert!(
            l.starts_with("probe: 3.0 s, 6.75 GB read, 2250 MB/s"),
            "{l}"
        );
        assert!(!l.contains("written"), "{l}");
    }

    #[test]
    fn sparkline_scales_to_the_largest() {
        assert_eq!(sparkline(&[0.0, 1.0, 2.0]), "▁▅█");
        assert_eq!(sparkline(&[0.0, 0.0]), "▁▁");
    }

    #[test]
    fn line_shows_the_cliff_percent_and_eta() {
        let mut st = ProgressState {
            elapsed_s: 20.0,
            bytes: 20_000_000_000,
            rate: Some(1e9),
            recent: [2e9, 2e9, 1e9].into_iter().collect(),
            duration_s: Some(80.0),
            ..ProgressState::default()
        };
        let l = st.line("probe", UnitSystem::Decimal, true);
        assert!(l.contains("20.0 s, 20.0 GB written, 1000 MB/s, "), "{l}");
        assert!(l.ends_with("MB/s, 25% of 80.0 s, ETA 60.0 s ██▅"), "{l}");
        st.total_bytes = Some(40_000_000_000);
        // 20 GB left at 1 GB/s: 20 s, sooner than the time limit.
        let l = st.line("probe", UnitSystem::Decimal, false);
        assert!(l.ends_with(", 50% of 40.0 GB, ETA 20.0 s"), "{l}");
        st.cliff = Some(Estimate {
            cliff: Cliff {
                t_s: 14.0,
                t_low_s: 13.9,
                t_high_s: 14.1,
                bytes_written: 19_100_000_000,
                before_bytes_per_sec: 2e9,
                after_bytes_per_sec: 1e9,
                under_heat: false,
            },
            cache: CacheEstimate {
                bytes: 19_100_000_000,
                low_bytes: 19_000_000_000,
                high_bytes: 19_200_000_000,
            },
            seen_since_s: 18.0,
            hold_s: 30.0,
            stop_at_s: 44.0,
        });
        st.early_stop = true;
        st.total_bytes = None;
        let l = st.line("probe", UnitSystem::Decimal, false);
        assert!(
            l.contains("cliff at 19.1 GB (14.0 s), cache ~19.1 GB (19.0 GB to 19.2 GB)"),
            "{l}"
        );
        assert!(
            l.contains("MB/s, 25% of 80.0 s, ETA 24.0 s, cliff at "),
            "{l}"
        );
    }

    /// Regression: with `--cliffs 2` the line counted down to the early stop of the first
    /// cliff and then sat at "100% to the early stop" while the run went on looking for the
    /// second. The first cliff ends nothing there: the line counts down to the limit that
    /// does, and says what the run is waiting for.
    #[test]
    fn with_two_cliffs_asked_the_first_one_is_no_end() {
        let first = Estimate {
            cliff: Cliff {
                t_s: 9.0,
                t_low_s: 8.9,
                t_high_s: 9.1,
                bytes_written: 13_000_000_000,
                before_bytes_per_sec: 1.5e9,
                after_bytes_per_sec: 3e8,
                under_heat: false,
            },
            cache: CacheEstimate {
                bytes: 13_000_000_000,
                low_bytes: 12_900_000_000,
                high_bytes: 13_100_000_000,
            },
            seen_since_s: 12.0,
            hold_s: 30.0,
            stop_at_s: 39.0,
        };
        let mut st = ProgressState {
            elapsed_s: 120.0,
            bytes: 45_000_000_000,
            rate: Some(3e8),
            total_bytes: Some(250_000_000_000),
            early_stop: true,
            cliff: Some(first.clone()),
            cliffs_wanted: 2,
            ..ProgressState::default()
        };
        let l = st.line("probe", UnitSystem::Decimal, false);
        assert!(!l.contains("100%"), "{l}");
        assert!(!l.contains("early stop"), "{l}");
        assert!(l.contains("18% of 250 GB"), "{l}");
        assert!(l.contains("looking for cliff 2 of 2"), "{l}");
        // The second cliff seen: the run stops on it, and the line counts down to that.
        st.target = Some(Estimate {
            stop_at_s: 200.0,
            ..first
        });
        let l = st.line("probe", UnitSystem::Decimal, false);
        assert!(l.contains("18% of 250 GB, ETA 80.0 s"), "{l}");
        assert!(!l.contains("looking for"), "{l}");
    }

    /// A drop inside the first sample is said on the line, and the early stop it leads to
    /// is the limit the share and ETA count down to.
    #[test]
    fn the_line_says_a_drop_inside_the_first_sample_and_when_the_run_stops() {
        let st = ProgressState {
            elapsed_s: 10.0,
            bytes: 4_000_000_000,
            rate: Some(3e8),
            early_stop: true,
            total_bytes: Some(250_000_000_000),
            first_drop: Some(Some(31.0)),
            ..ProgressState::default()
        };
        let l = st.line("probe", UnitSystem::Decimal, false);
        // Hedged as the warning and the result are ("may have run out", "if it was the
        // cache running out"): the line said "the cache ran out too soon to measure".
        assert!(
            l.contains(
                "MB/s, 2% of 250 GB, ETA 21.0 s, a drop in the first sample: the cache may have \
                 run out, too soon to measure"
            ),
            "{l}"
        );
    }

    /// The share changed its basis as the run went: 68% of 40 GB, then 52% to the early
    /// stop, then 74% of 40 GB, 66% to the early stop, ..., going backwards as the early
    /// stop's time moved. It is now always of the run's own limit, and the early stop is its
    /// own clause.
    #[test]
    fn the_share_keeps_its_basis_and_never_goes_backwards() {
        let cliff = cliff_22gb(12.0, 20.0);
        let mut last = -1.0;
        for k in 0..30 {
            let t = 14.0 + k as f64;
            let st = ProgressState {
                elapsed_s: t,
                bytes: 22_000_000_000 + (k as u64) * 600_000_000,
                rate: Some(if k % 2 == 0 { 6e8 } else { 5.5e8 }),
                total_bytes: Some(40_000_000_000),
                early_stop: true,
                // The early stop's time moves as the hold grows with the estimate.
                cliff: Some(Estimate {
                    stop_at_s: 34.0 + 0.6 * k as f64,
                    ..cliff.clone()
                }),
                ..ProgressState::default()
            };
            let l = st.line("probe", UnitSystem::Decimal, false);
            let pct: f64 = l
                .split("% of 40.0 GB")
                .next()
                .and_then(|h| h.rsplit(", ").next())
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("no share of 40.0 GB in {l}"));
            assert!(pct >= last, "{l} after {last}%");
            assert!(!l.contains("to the early stop"), "{l}");
            // The share and the ETA whole within an 80-column line.
            let eta_end = l.find(", ETA ").map(|i| i + ", ETA 00.0 s".len());
            assert!(eta_end.is_some_and(|e| e < 80), "{l}");
            last = pct;
        }
    }

    /// On an 80-column terminal the line was cut at 79 characters, inside its findings:
    /// "ETA 6.6 s, cliff at 2" through the whole wait after the cliff, "ETA 2.6 s, a drop in "
    /// after a drop inside the first sample. The line now holds whole clauses only: the
    /// cache's size in short, or nothing where even that does not fit.
    #[test]
    fn an_80_column_line_holds_whole_clauses() {
        let cliff = cliff_22gb(12.3, 200.0);
        for k in 0..400 {
            let t = 19.0 + k as f64;
            let st = ProgressState {
                elapsed_s: t,
                bytes: 26_000_000_000 + k * 603_000_000,
                rate: Some(603e6),
                total_bytes: Some(400_000_000_000),
                early_stop: true,
                cliff: Some(cliff.clone()),
                recent: (0..20).map(|i| if i < 10 { 1.8e9 } else { 6e8 }).collect(),
                ..ProgressState::default()
            };
            let l = st.line_within("probe", UnitSystem::Decimal, 80);
            assert!(l.chars().count() < 80, "{l}");
            assert!(l.ends_with(", cache ~22.0 GB"), "{l}");
            let wide = st.line_within("probe", UnitSystem::Decimal, 200);
            assert!(
                wide.contains("cliff at 22.0 GB (12.3 s), cache ~22.0 GB"),
                "{wide}"
            );
        }
        // At 50 columns the head itself loses whole clauses from its end, never half of one.
        let st = ProgressState {
            elapsed_s: 1.0,
            bytes: 1_790_000_000,
            rate: Some(1792e6),
            total_bytes: Some(9_000_000_000),
            early_stop: true,
            ..ProgressState::default()
        };
        let l = st.line_within("probe", UnitSystem::Decimal, 50);
        assert!(l.chars().count() < 50, "{l}");
        assert!(!l.ends_with(','), "{l}");
        assert_eq!(l, "probe: 1.0 s, 1.79 GB, 1792 MB/s, 20% of 9.00 GB");
        for k in 0..400 {
            let st = ProgressState {
                elapsed_s: 5.0 + k as f64,
                bytes: 3_650_000_000 + k * 603_000_000,
                rate: Some(603e6),
                total_bytes: Some(400_000_000_000),
                early_stop: true,
                first_drop: Some(Some(1000.0)),
                ..ProgressState::default()
            };
            let l = st.line_within("probe", UnitSystem::Decimal, 80);
            assert!(l.chars().count() < 80, "{l}");
            let tail = l.rsplit(", ").next().unwrap();
            assert!(
                tail == "drop in 1st sample" || tail.starts_with("ETA "),
                "cut inside a clause: {l}"
            );
        }
    }
}
