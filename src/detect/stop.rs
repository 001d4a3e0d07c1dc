//! The early-stop rule: when is the answer certain, so that writing can stop?
//!
//! Pure: no I/O, no clock, no threads. A [`StopRule`] is fed the samples of a run as they
//! arrive (real time in `probe`, virtual time in `simulate`, a saved trace in a replay). Every
//! so often it analyses the timeline so far with [`analyze`] and keeps track of the first cliff
//! (the end of the cache). It says [`Decision::Stop`] once
//!
//! 1. the analysis of the timeline so far has a cliff (a drop the detector confirms: the lower
//!    level lasted longer than a garbage-collection dip and did not come back);
//! 2. the level after the cliff has held for the hold time: `--after-cliff` (30 s by
//!    default), or as long as the cache phase took if that is longer, but at most two minutes
//!    ([`StopConfig::hold_s`]);
//! 3. the cliff has stayed put: every analysis for the last half of the hold time found the
//!    same cliff (its cache estimate within the interval of the one before, give or take
//!    0.5%). A cliff that is withdrawn, or moves, starts that clock again.
//!
//! With `--cliffs N` ([`StopConfig::cliffs`], 1 by default) the same three conditions apply
//! to the N-th cliff instead of the first: the hold time grows to the length of the phase
//! before that cliff (from the cliff before it), and the rule stops only once the first cliff
//! is also found. A drive with a second, slower cache tier (the HP FX700 2TB writes 5000 MB/s
//! to 54 GB, 3500 MB/s to 460 GB, then 130 MB/s) needs `--cliffs 2` to measure the speed it
//! ends at.
//!
//! A cache that runs out inside the first sample is never a cliff: the detector sees one high
//! sample and then a lower level ([`crate::detect::DropWhere::FirstSample`]). The rule then
//! stops once the hold time has passed after that sample (the cache phase being at most one
//! interval), when the first sample is at least [`FIRST_SAMPLE_STOP_RATIO`] times the level
//! after it: otherwise such a run wrote the whole drive without learning more. The stop
//! reason says so ([`StopReason::FirstSampleDrop`]) and the outputs ask for finer sampling.
//!
//! With `early_stop` off the rule never stops but still tracks the estimate (for the
//! progress line).
//!
//! The analysis is repeated when the timeline has grown by one sample or by
//! [`REANALYSE_SHARE`] of its length, whichever is more. Once the answer is certain (the rule
//! says stop, or with `early_stop` off would say it), a due analysis is run only when the
//! samples since the last check could show a new level: when their mean rate has moved from
//! the level the latest analysis ended at by more than [`SETTLED_BAND`] (half the smallest step
//! the detector calls a change). While the level holds, the analysis would find the same cliff
//! over more of the same level, so it is skipped and the schedule kept; a run that stops
//! early never gets there (it stops at that analysis), so its analyses are the same as
//! before. Each analysis reads a bounded view
//! of the timeline so far ([`MAX_VIEW`] samples at most): the samples themselves while there
//! are fewer, and after that neighbouring samples merged in groups of 2, 4, 8, ... (bytes
//! summed, rates weighted by time), kept up as samples arrive. An analysis therefore costs
//! the same after an hour of 10 ms samples (360 000) as after a minute and a half, and the
//! rule's work per interval falls as the run grows instead of rising with it; runs of up to
//! [`MAX_VIEW`] samples are analysed exactly as before. The view is a
//! [`crate::timeline::bounded::Kept`] (the same merge as a run's own kept timeline, with a
//! smaller limit), and it is all the rule keeps of the samples: its memory is bounded too.
//! The rule only decides when to stop: the run's own analysis, for every output, reads the
//! run's own kept timeline.
//!
//! Building blocks for experiments that write in bursts (recovery after idling, cache size
//! against fill level): [`SampleSource`] is anything that writes and yields one sample per
//! interval, and [`run_burst`] writes from one until the cliff is confirmed or the source
//! ends. [`replay`] runs the rule over a saved timeline, prefix by prefix.

use serde::{Deserialize, Serialize};

use super::{analyze, Analysis, CacheEstimate, Cliff, DropWhere, UnconfirmedDrop};
use crate::timeline::bounded::Kept;
#[cfg(test)]
use crate::timeline::{bounded::merge_sample, RunMeta, Timeline};
use crate::timeline::{Sample, StopReason};

/// Default `--after-cliff`: the level after the cliff must hold this long, seconds.
pub const DEFAULT_AFTER_CLIFF_S: f64 = 30.0;

/// The hold time grows to the length of the cache phase, but not past this, seconds.
pub const MAX_AUTO_HOLD_S: f64 = 120.0;

/// The timeline is analysed again once it has grown by this share of its length (or by one
/// sample, whichever is more).
pub const REANALYSE_SHARE: f64 = 0.01;

/// Once the rule's answer is certain, a due analysis is skipped while the mean rate of the
/// samples since the last check stays within this (ln, about 5%) of the level the latest
/// analysis ended at: half of the smallest step the detector takes for a change
/// ([`super::cliffs::MIN_STEP`]).
pub const SETTLED_BAND: f64 = 0.5 * super::cliffs::MIN_STEP;

/// Set (to anything) in the environment, every rule runs every due analysis: see
/// [`StopRule::analysing_all`].
pub const ANALYSE_ALL_VAR: &str = "SLCCACHE_ANALYSE_ALL";

/// Most samples one analysis of the rule reads: past this, neighbouring samples are merged
/// in pairs (see the module documentation).
pub const MAX_VIEW: usize = 8192;

/// A drop inside the first sample stops the run (once the hold time after it has passed) only when
/// the first sample is at least this many times that level, or holds over it more than a
/// start-up burst writes (1 GB). A first sample a little above the rest can be a drive's DRAM
/// buffer before a long SLC cache phase; twice the rate, or gigabytes over it, is not.
pub const FIRST_SAMPLE_STOP_RATIO: f64 = 2.0;

/// Two estimates are the same cliff when one lies inside the other's interval widened by
/// this share of its bytes.
pub const SAME_CLIFF_SLACK: f64 = 0.005;

/// How the rule stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StopConfig {
    /// Stop once the cliff is certain (`false`: `--no-early-stop`, write to the limit).
    pub early_stop: bool,
    /// Least time the level after the cliff must hold, seconds (`--after-cliff`).
    pub after_cliff_s: f64,
    /// Stop once this many cliffs are confirmed (`--cliffs`, 1 by default, at least 1).
    #[serde(default = "one_cliff")]
    pub cliffs: usize,
}

fn one_cliff() -> usize {
    1
}

impl Default for StopConfig {
    fn default() -> Self {
        StopConfig {
            early_stop: true,
            after_cliff_s: DEFAULT_AFTER_CLIFF_S,
            cliffs: 1,
        }
    }
}

impl StopConfig {
    /// The hold time after a cliff that ended a cache phase of `cache_phase_s` seconds:
    /// `after_cliff_s`, or the cache phase if longer, the latter capped at
    /// [`MAX_AUTO_HOLD_S`].
    pub fn hold_s(&self, cache_phase_s: f64) -> f64 {
        self.after_cliff_s
            .max(cache_phase_s.clamp(0.0, MAX_AUTO_HOLD_S))
    }
}

/// The cliff the rule currently believes in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The first cliff of the latest analysis.
    pub cliff: Cliff,
    /// The cache size it implies, with its 95% interval.
    pub cache: CacheEstimate,
    /// Run time (end of the newest sample analysed) since which every analysis found this
    /// cliff, seconds.
    pub seen_since_s: f64,
    /// How long the level after the cliff must hold, seconds.
    pub hold_s: f64,
    /// The earliest run time at which the rule stops if the cliff stays put, seconds.
    pub stop_at_s: f64,
}

impl Estimate {
    /// Whether `other` is the same cliff: either estimate inside the other's interval,
    /// widened by [`SAME_CLIFF_SLACK`].
    pub fn same_cliff(a: &CacheEstimate, b: &CacheEstimate) -> bool {
        let inside = |x: &CacheEstimate, y: &CacheEstimate| {
            let slack = SAME_CLIFF_SLACK * y.bytes as f64;
            (y.low_bytes as f64 - slack) <= x.bytes as f64
                && x.bytes as f64 <= y.high_bytes as f64 + slack
        };
        inside(a, b) || inside(b, a)
    }
}

/// What the rule says after a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Keep writing.
    Continue,
    /// The cliff is certain: stop writing.
    Stop,
}

/// The early-stop rule (see the module documentation). Feed it samples in time order.
#[derive(Debug, Clone)]
pub struct StopRule {
    cfg: StopConfig,
    /// The bounded view the analyses read: all the rule keeps of the samples.
    view: Kept,
    /// Start of the first sample, seconds, and the newest sample's end and length (seconds)
    /// and bytes written by its end.
    first_start_s: Option<f64>,
    last: Option<(f64, f64, u64)>,
    /// Once the answer is certain: the level the latest analysis ended at, against which
    /// due analyses are checked.
    settled: Option<Settled>,
    /// Due analyses skipped because the level held (see [`SETTLED_BAND`]).
    skipped: u32,
    /// Whether due analyses may be skipped (see [`StopRule::analysing_all`]).
    may_skip: bool,
    /// Samples the latest analysis read, and the most any analysis read.
    work: (usize, usize),
    /// Analyse again once the newest sample ends at or after this time.
    next_eval_t: f64,
    estimate: Option<Estimate>,
    /// With `cliffs > 1`: the N-th cliff the rule waits for.
    target: Option<Estimate>,
    analysis: Option<Analysis>,
    withdrawn: u32,
    analyses: u32,
    stopped_at_s: Option<f64>,
    /// A drop inside the first sample that the latest analysis saw (no cliff yet), and the run
    /// time at which the rule stops for it.
    first_drop: Option<(UnconfirmedDrop, f64)>,
    /// Why the rule stopped.
    stop_reason: Option<StopReason>,
}

impl StopRule {
    /// A rule with no samples yet.
    pub fn new(cfg: StopConfig) -> StopRule {
        StopRule {
            cfg,
            view: Kept::with_limit(MAX_VIEW),
            first_start_s: None,
            last: None,
            settled: None,
            skipped: 0,
            may_skip: std::env::var_os(ANALYSE_ALL_VAR).is_none(),
            work: (0, 0),
            next_eval_t: f64::NEG_INFINITY,
            estimate: None,
            target: None,
            analysis: None,
            withdrawn: 0,
            analyses: 0,
            stopped_at_s: None,
            first_drop: None,
            stop_reason: None,
        }
    }

    /// The same rule running every due analysis, also once its answer is certain (as it did
    /// before analyses were skipped while the level holds): to compare the two. The hidden
    /// environment variable [`ANALYSE_ALL_VAR`] does the same for every rule of a process
    /// (for tests and benchmarks; not a user setting).
    pub fn analysing_all(mut self) -> StopRule {
        self.may_skip = false;
        self
    }

    /// A drop inside the first sample that the latest analysis saw while there is no cliff,
    /// with the run time at which the rule stops for it (`None` for a drop too small to stop
    /// for: see [`FIRST_SAMPLE_STOP_RATIO`]).
    pub fn first_sample_drop(&self) -> Option<(&UnconfirmedDrop, Option<f64>)> {
        self.first_drop.as_ref().map(|(d, at)| {
            // Or where the sample holds more over the level after it than a DRAM buffer
            // can: with samples of minutes a cache of many GB lifts the first only a little.
            let stops = d.before_bytes_per_sec >= FIRST_SAMPLE_STOP_RATIO * d.after_bytes_per_sec
                || d.bytes_low as f64 >= super::warnings::STARTUP_BURST_BYTES;
            (d, stops.then_some(*at))
        })
    }

    /// Why the rule stopped: [`StopReason::CliffConfirmed`], or
    /// [`StopReason::FirstSampleDrop`]; `None` while it has not.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stop_reason
    }

    /// The configuration.
    pub fn config(&self) -> StopConfig {
        self.cfg
    }

    /// Adds one sample; analyses the timeline so far when it is due; returns the decision.
    /// Once the rule has said [`Decision::Stop`], it keeps saying it.
    pub fn push(&mut self, s: Sample) -> Decision {
        self.add(&s);
        self.evaluate_if_due()
    }

    fn add(&mut self, s: &Sample) {
        self.first_start_s.get_or_insert(s.t_start_s());
        self.last = Some((s.t_s, s.interval_s, s.bytes_total));
        self.view.push(s);
    }

    /// Adds several samples and analyses at most once (for a caller that fell behind).
    pub fn extend(&mut self, samples: impl IntoIterator<Item = Sample>) -> Decision {
        for s in samples {
            self.add(&s);
        }
        self.evaluate_if_due()
    }

    /// How many samples the latest analysis read, and the most any analysis read (at most
    /// [`MAX_VIEW`] plus one, whatever the run's length).
    pub fn analysed_samples(&self) -> (usize, usize) {
        self.work
    }

    /// The decision so far (without analysing).
    pub fn decision(&self) -> Decision {
        if self.stopped_at_s.is_some() {
            Decision::Stop
        } else {
            Decision::Continue
        }
    }

    /// Run time at which the rule said stop, seconds.
    pub fn stopped_at_s(&self) -> Option<f64> {
        self.stopped_at_s
    }

    /// The cliff the rule currently believes in, if any.
    pub fn estimate(&self) -> Option<&Estimate> {
        self.estimate.as_ref()
    }

    /// The cliff the rule stops on: the first with `cliffs` 1, else the N-th once the
    /// analysis has that many.
    pub fn target(&self) -> Option<&Estimate> {
        if self.cfg.cliffs <= 1 {
            self.estimate.as_ref()
        } else {
            self.target.as_ref()
        }
    }

    /// The latest analysis of the timeline so far.
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// How many times a cliff was withdrawn or moved to another place.
    pub fn withdrawn(&self) -> u32 {
        self.withdrawn
    }

    /// How many analyses were run.
    pub fn analyses(&self) -> u32 {
        self.analyses
    }

    /// How many due analyses were skipped because the answer was certain and the level held
    /// (see [`SETTLED_BAND`]).
    pub fn skipped(&self) -> u32 {
        self.skipped
    }

    /// How many samples were pushed so far (the rule keeps at most [`MAX_VIEW`] plus one of
    /// them, merged).
    pub fn pushed(&self) -> u64 {
        self.view.pushed()
    }

    /// How many samples the rule holds now (its bounded view).
    pub fn held(&self) -> usize {
        self.view.len()
    }

    fn evaluate_if_due(&mut self) -> Decision {
        let (Some(t0), Some((last_t, interval, bytes))) = (self.first_start_s, self.last) else {
            return Decision::Continue;
        };
        if self.stopped_at_s.is_none() && last_t >= self.next_eval_t {
            let holds = self
                .settled
                .as_mut()
                .is_some_and(|s| s.holds(last_t, bytes));
            if holds {
                self.skipped += 1;
                self.next_eval_t = next_eval(t0, last_t, interval);
            } else {
                self.evaluate();
            }
        }
        self.decision()
    }

    /// Analyses the timeline so far now, whether due or not; returns the decision.
    pub fn evaluate(&mut self) -> Decision {
        let (Some(t0), Some((now, interval, bytes_now))) = (self.first_start_s, self.last) else {
            return Decision::Continue;
        };
        self.next_eval_t = next_eval(t0, now, interval);
        let a = self.view.with_timeline(analyze);
        let read = self.view.len();
        self.work = (read, self.work.1.max(read));
        self.analyses += 1;
        let first = a.cliffs.first().cloned().zip(a.cache_estimate.clone());
        let prev = self.estimate.take();
        self.estimate = self.track(first, prev, t0, now);
        let n = self.cfg.cliffs.max(1);
        if n > 1 {
            // The bytes at either end of the cliff's interval at the rate before it, as the
            // analysis gives the first cliff's. Read off the samples instead (linear within
            // one), a cliff inside a sample (3500 MB/s for 0.7 s, then 130 MB/s) had its own
            // bytes outside its interval (30.0 GB beside 29.3 GB at most), so each analysis
            // took it for a new cliff and the hold never ended.
            let nth = a.cliffs.get(n - 1).cloned().map(|c| {
                let r = c.before_bytes_per_sec.max(0.0);
                let b = c.bytes_written as f64;
                let cache = CacheEstimate {
                    bytes: c.bytes_written,
                    low_bytes: (b - r * (c.t_s - c.t_low_s).max(0.0)).max(0.0).round() as u64,
                    high_bytes: (b + r * (c.t_high_s - c.t_s).max(0.0)).round() as u64,
                };
                (c, cache)
            });
            let from = a.cliffs.get(n - 2).map_or(t0, |c| c.t_s);
            let prev = self.target.take();
            self.target = self.track(nth, prev, from, now);
        }
        let due = match (&self.estimate, self.target()) {
            (Some(_), Some(t)) => now >= t.stop_at_s,
            _ => false,
        };
        // No cliff, but a drop inside the first sample: stop once the hold time of a cache
        // phase one interval long has passed after it. Sampling more often is what measures
        // the cache; the level after the drop may still move (under heat it falls again), and
        // the stop reason does not say it held.
        // With `--cliffs 2` or more the run waits for a later cliff, not this one.
        self.first_drop = match (&self.estimate, &a.unconfirmed_drop) {
            (None, Some(d)) if d.at == DropWhere::FirstSample && self.cfg.cliffs <= 1 => {
                let at = d.t_high_s + self.cfg.hold_s(d.t_high_s - d.t_s);
                Some((d.clone(), at))
            }
            _ => None,
        };
        let first_due = self
            .first_sample_drop()
            .and_then(|(_, at)| at)
            .is_some_and(|at| now >= at);
        // Certain: later analyses are needed only where the level moves.
        self.settled = (self.may_skip && (due || first_due))
            .then(|| Settled::at(&a, now, bytes_now))
            .flatten();
        if self.cfg.early_stop && self.stopped_at_s.is_none() && (due || first_due) {
            self.stopped_at_s = Some(now);
            self.stop_reason = Some(if due {
                StopReason::CliffConfirmed
            } else {
                StopReason::FirstSampleDrop
            });
        }
        self.analysis = Some(a);
        self.decision()
    }
}

/// When the analysis after the newest sample at `now` is due: once the timeline (which began
/// at `t0`) has grown by [`REANALYSE_SHARE`] of its length, or by half a sample.
fn next_eval(t0: f64, now: f64, interval: f64) -> f64 {
    now + (REANALYSE_SHARE * (now - t0)).max(0.5 * interval.max(1e-9))
}

/// The level a certain answer was found at, and the start of the stretch checked against it.
#[derive(Debug, Clone, Copy)]
struct Settled {
    /// Mean rate of the last phase of the latest analysis, bytes per second.
    level_bps: f64,
    /// End of the newest sample at the last check, seconds, and bytes written by then.
    from_t_s: f64,
    from_bytes: u64,
}

impl Settled {
    /// The level of `a`, the analysis after the newest sample (ending at `now`, with
    /// `bytes` written by then); `None` when it has none to hold (no phase, no rate, or
    /// an analysis of reads).
    fn at(a: &Analysis, now: f64, bytes: u64) -> Option<Settled> {
        let level = a.phases.last()?.mean_bytes_per_sec;
        (!a.read_only && level > 0.0 && level.is_finite()).then_some(Settled {
            level_bps: level,
            from_t_s: now,
            from_bytes: bytes,
        })
    }

    /// Whether the samples from the last check to the newest (ending at `now`, `bytes`
    /// written by then) held the level: their mean rate within [`SETTLED_BAND`] of it. The
    /// next check starts here.
    fn holds(&mut self, now: f64, bytes: u64) -> bool {
        let dt = now - self.from_t_s;
        let db = bytes.saturating_sub(self.from_bytes) as f64;
        self.from_t_s = now;
        self.from_bytes = bytes;
        if dt <= 0.0 {
            return true;
        }
        let rate = db / dt;
        rate > 0.0 && (rate / self.level_bps).ln().abs() <= SETTLED_BAND
    }
}

impl StopRule {
    /// The new estimate of one tracked cliff from the latest analysis (`found`) and the one
    /// before (`prev`); `from` is where the phase before the cliff began (its length sets
    /// the hold), `now` the end of the newest sample. A cliff that moved or was withdrawn is
    /// counted.
    fn track(
        &mut self,
        found: Option<(Cliff, CacheEstimate)>,
        prev: Option<Estimate>,
        from: f64,
        now: f64,
    ) -> Option<Estimate> {
        match (found, prev) {
            (Some((cliff, cache)), prev) => {
                let since = match prev {
                    Some(p) if Estimate::same_cliff(&p.cache, &cache) => p.seen_since_s,
                    Some(_) => {
                        self.withdrawn += 1;
                        now
                    }
                    None => now,
                };
                let hold = self.cfg.hold_s(cliff.t_s - from);
                let stop_at = (cliff.t_s + hold).max(since + 0.5 * hold);
                Some(Estimate {
                    cliff,
                    cache,
                    seen_since_s: since,
                    hold_s: hold,
                    stop_at_s: stop_at,
                })
            }
            (None, Some(_)) => {
                self.withdrawn += 1;
                None
            }
            (None, None) => None,
        }
    }
}

/// Where [`replay`] would have stopped a saved run.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayStop {
    /// Samples written when the rule said stop (the prefix length).
    pub samples: usize,
    /// Run time of the stop, seconds.
    pub t_s: f64,
    /// Bytes written by then.
    pub bytes: u64,
    /// The estimate the rule stopped on (the N-th cliff with `cliffs` N).
    pub estimate: Estimate,
    /// Withdrawn or moved cliffs before the stop.
    pub withdrawn: u32,
}

/// Runs the rule over a saved timeline sample by sample, as a live run would have seen it;
/// returns where it would have stopped, or `None` if it would have written to the end.
pub fn replay(samples: &[Sample], cfg: StopConfig) -> Option<ReplayStop> {
    let mut rule = StopRule::new(StopConfig {
        early_stop: true,
        ..cfg
    });
    for (i, s) in samples.iter().enumerate() {
        if rule.push(s.clone()) == Decision::Stop {
            return Some(ReplayStop {
                samples: i + 1,
                t_s: s.t_s,
                bytes: s.bytes_total,
                estimate: rule.target().cloned()?,
                withdrawn: rule.withdrawn,
            });
        }
    }
    None
}

/// Anything that writes without pause and yields one sample per interval: an emulated or
/// real drive driven by the engine, or the virtual-time simulator
/// ([`crate::experiment::virtual_time::VirtualDrive`]).
pub trait SampleSource {
    /// The next sample, or `None` once the source has stopped on its own (a byte or time
    /// limit, the end of a trace).
    fn next_sample(&mut self) -> anyhow::Result<Option<Sample>>;
}

/// What [`run_burst`] wrote.
#[derive(Debug, Clone)]
pub struct Burst {
    /// The samples, in time order.
    pub samples: Vec<Sample>,
    /// True when the rule stopped the burst (the cliff is certain); false when the source
    /// ended first.
    pub cliff_confirmed: bool,
    /// The estimate at the end of the burst, if a cliff was seen.
    pub estimate: Option<Estimate>,
    /// How many times a cliff was withdrawn or moved.
    pub withdrawn: u32,
}

/// Writes from `source` until `cfg`'s rule says the cliff is certain or the source ends:
/// one burst of an experiment. Samples also go to `on_sample` as they arrive (to write them
/// out at once).
pub fn run_burst(
    source: &mut dyn SampleSource,
    cfg: StopConfig,
    mut on_sample: impl FnMut(&Sample) -> anyhow::Result<()>,
) -> anyhow::Result<Burst> {
    let mut rule = StopRule::new(cfg);
    let mut confirmed = false;
    let mut samples = Vec::new();
    while let Some(s) = source.next_sample()? {
        on_sample(&s)?;
        samples.push(s.clone());
        if rule.push(s) == Decision::Stop {
            confirmed = true;
            break;
        }
    }
    Ok(Burst {
        cliff_confirmed: confirmed,
        estimate: rule.estimate.clone(),
        withdrawn: rule.withdrawn,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::synth;

    fn step(cache_s: f64, after_s: f64, interval: f64) -> Vec<Sample> {
        let spec = synth::TraceSpec {
            phases: vec![
                synth::PhaseSpec {
                    bps: 2e9,
                    end_bytes: Some(2e9 * cache_s),
                    drift: 0.0,
                    noise: 0.01,
                },
                synth::PhaseSpec {
                    bps: 5e8,
                    end_bytes: None,
                    drift: 0.0,
                    noise: 0.02,
                },
            ],
            interval_s: interval,
            duration_s: cache_s + after_s,
            heavy_tails: false,
            dips: vec![],
        };
        synth::simulate(&spec, 5).0.samples
    }

    /// The rule's work per analysis (samples read) is bounded whatever the run's
    /// length; it used to read the whole timeline so far, every time.
    #[test]
    fn analyses_read_a_bounded_view_of_a_long_run() {
        let samples = step(300.0, 180.0, 0.04);
        assert!(samples.len() > MAX_VIEW + 3000, "{}", samples.len());
        let mut rule = StopRule::new(StopConfig {
            early_stop: false,
            ..StopConfig::default()
        });
        let mut most = 0;
        for s in &samples {
            rule.push(s.clone());
            most = most.max(rule.analysed_samples().0);
        }
        // 8192 whole groups at most, and the group still filling; the whole run is 12 000.
        assert!(most <= 8193, "an analysis read {most} samples");
        assert!(rule.analysed_samples().1 == most);
        // The rule holds no more than its view, not the whole run (it held every sample).
        assert_eq!(rule.pushed(), samples.len() as u64);
        assert!(
            rule.held() <= MAX_VIEW + 1,
            "the rule holds {}",
            rule.held()
        );
        // The merged view still has the whole run: the cliff is where it is.
        let e = rule.estimate().expect("the cliff is found");
        let truth = 2e9 * 300.0;
        assert!(
            (e.cache.bytes as f64 - truth).abs() < 0.01 * truth,
            "{} against {truth}",
            e.cache.bytes
        );
    }

    /// Once the answer is certain the rule analyses only where the level moves: a run
    /// written on without the early stop after its cliff is certain costs no more analyses,
    /// and tells the same. It used to analyse at every 1 % of growth to the end.
    #[test]
    fn a_certain_answer_is_not_analysed_again_while_the_level_holds() {
        let samples = step(20.0, 4000.0, 1.0);
        let run = |rule: StopRule| {
            let mut rule = rule;
            for s in &samples {
                assert_eq!(rule.push(s.clone()), Decision::Continue);
            }
            rule
        };
        let cfg = StopConfig {
            early_stop: false,
            ..StopConfig::default()
        };
        let all = run(StopRule::new(cfg).analysing_all());
        let rule = run(StopRule::new(cfg));
        // Certain 30 s after the cliff (about 50 s in): about 130 analyses to there, and a
        // further 320 to the end of the run (4020 s) when every due one runs.
        assert!(all.analyses() > 400, "{}", all.analyses());
        assert_eq!(all.skipped(), 0);
        assert!(rule.analyses() < 150, "{} analyses", rule.analyses());
        assert_eq!(rule.analyses() + rule.skipped(), all.analyses());
        // The same answer: the cliff, its hold, nothing withdrawn.
        let (a, b) = (all.estimate().unwrap(), rule.estimate().unwrap());
        assert!(Estimate::same_cliff(&a.cache, &b.cache), "{a:?} {b:?}");
        assert_eq!(a.hold_s, b.hold_s);
        assert_eq!((all.withdrawn(), rule.withdrawn()), (0, 0));
        // A second fall after the certain one is a new level: analysed, and found.
        let mut two = samples.clone();
        let last = two.last().unwrap().clone();
        for i in 1..=600 {
            let mut s = last.clone();
            s.t_s = last.t_s + i as f64;
            s.bytes = 100_000_000;
            s.bytes_per_sec = 1e8;
            s.bytes_total = last.bytes_total + i * 100_000_000;
            two.push(s);
        }
        let mut rule = StopRule::new(StopConfig {
            cliffs: 2,
            early_stop: false,
            ..StopConfig::default()
        });
        let mut first = StopRule::new(cfg);
        for s in &two {
            rule.push(s.clone());
            first.push(s.clone());
        }
        let t = rule.target().expect("the second cliff is found");
        assert!((t.cliff.t_s - last.t_s).abs() < 5.0, "{t:?}");
        // The rule of one cliff saw the new level too (its latest analysis has both falls).
        let a = first.analysis().unwrap();
        assert!(a.cliffs.len() >= 2, "{:?}", a.cliffs);
    }

    /// Below [`MAX_VIEW`] samples the view is the timeline itself: the same analysis.
    #[test]
    fn short_runs_are_analysed_exactly() {
        let samples = step(60.0, 40.0, 0.5);
        let mut rule = StopRule::new(StopConfig {
            early_stop: false,
            ..StopConfig::default()
        });
        for s in &samples {
            rule.push(s.clone());
        }
        rule.evaluate();
        let full = analyze(&Timeline {
            samples: samples.clone(),
            meta: RunMeta::default(),
        });
        assert_eq!(rule.analysis(), Some(&full));
        assert_eq!(rule.analysed_samples().0, samples.len());
    }

    #[test]
    fn merged_samples_keep_bytes_and_time() {
        let samples = step(30.0, 30.0, 0.25);
        let mut a = samples[0].clone();
        for s in &samples[1..] {
            merge_sample(&mut a, s);
        }
        assert_eq!(a.bytes, samples.iter().map(|s| s.bytes).sum::<u64>());
        assert_eq!(a.bytes_total, samples.last().unwrap().bytes_total);
        let t: f64 = samples.iter().map(|s| s.interval_s).sum();
        assert!((a.interval_s - t).abs() < 1e-9);
        assert!((a.t_start_s() - samples[0].t_start_s()).abs() < 1e-9);
        assert!((a.bytes_per_sec - a.bytes as f64 / t).abs() < 1e-3);
    }

    #[test]
    fn hold_time_rules() {
        let c = StopConfig::default();
        assert_eq!(c.hold_s(10.0), 30.0);
        assert_eq!(c.hold_s(50.0), 50.0);
        assert_eq!(c.hold_s(1000.0), 120.0);
        let c = StopConfig {
            early_stop: true,
            after_cliff_s: 300.0,
            cliffs: 1,
        };
        assert_eq!(c.hold_s(1000.0), 300.0);
    }

    #[test]
    fn stops_after_the_hold_and_not_before() {
        let s = step(20.0, 100.0, 1.0);
        let r = replay(&s, StopConfig::default()).expect("a stop");
        let cliff = r.estimate.cliff.t_s;
        assert!((19.0..21.0).contains(&cliff), "{cliff}");
        assert!(r.t_s >= cliff + 30.0, "{} < {} + 30", r.t_s, cliff);
        assert!(r.t_s <= cliff + 32.0, "{} > {} + 32", r.t_s, cliff);
        assert!((r.estimate.cache.bytes as f64 / 40e9 - 1.0).abs() < 0.01);
        // A run that ends before the hold is over is never stopped.
        assert!(replay(&step(20.0, 25.0, 1.0), StopConfig::default()).is_none());
        // Without the early stop the estimate is tracked but the rule never stops.
        let mut rule = StopRule::new(StopConfig {
            early_stop: false,
            ..StopConfig::default()
        });
        for x in s {
            assert_eq!(rule.push(x), Decision::Continue);
        }
        assert!(rule.estimate().is_some());
    }

    /// Two tiers: 2000 MB/s for 20 s, 1400 MB/s (70%) for 60 s, then 100 MB/s.
    fn two_tiers() -> Vec<Sample> {
        let phase = |bps: f64, end: Option<f64>| synth::PhaseSpec {
            bps,
            end_bytes: end,
            drift: 0.0,
            noise: 0.02,
        };
        let spec = synth::TraceSpec {
            phases: vec![
                phase(2e9, Some(40e9)),
                phase(1.4e9, Some(40e9 + 84e9)),
                phase(1e8, None),
            ],
            interval_s: 1.0,
            duration_s: 300.0,
            heavy_tails: false,
            dips: vec![],
        };
        synth::simulate(&spec, 3).0.samples
    }

    #[test]
    fn cliffs_two_waits_for_the_second_cliff() {
        let s = two_tiers();
        let one = replay(&s, StopConfig::default()).expect("a stop at the first cliff");
        assert!((one.estimate.cliff.bytes_written as f64 / 40e9 - 1.0).abs() < 0.02);
        assert!(
            one.t_s < 80.0,
            "stopped at {} s, before the second tier ends",
            one.t_s
        );
        let cfg = StopConfig {
            cliffs: 2,
            ..StopConfig::default()
        };
        let two = replay(&s, cfg).expect("a stop at the second cliff");
        let c = &two.estimate.cliff;
        assert!((c.bytes_written as f64 / 124e9 - 1.0).abs() < 0.02, "{c:?}");
        assert!((c.after_bytes_per_sec / 1e8 - 1.0).abs() < 0.1, "{c:?}");
        // The hold after the second cliff is the phase before it (60 s), not the cache's.
        assert!(
            (two.estimate.hold_s - 60.0).abs() < 2.0,
            "{}",
            two.estimate.hold_s
        );
        assert!(
            two.t_s >= c.t_s + two.estimate.hold_s,
            "{} {}",
            two.t_s,
            c.t_s
        );
        assert!(two.bytes > one.bytes);
        // Three cliffs never come: the rule writes to the end.
        let three = StopConfig {
            cliffs: 3,
            ..StopConfig::default()
        };
        assert!(replay(&s, three).is_none());
    }

    #[test]
    fn a_cliff_that_moves_restarts_the_clock() {
        let mut rule = StopRule::new(StopConfig::default());
        let est = |b: u64| CacheEstimate {
            bytes: b,
            low_bytes: b - b / 100,
            high_bytes: b + b / 100,
        };
        assert!(Estimate::same_cliff(&est(100_000), &est(101_000)));
        assert!(!Estimate::same_cliff(&est(100_000), &est(110_000)));
        // No samples: nothing to decide.
        assert_eq!(rule.evaluate(), Decision::Continue);
        assert_eq!(rule.withdrawn(), 0);
    }

    #[test]
    fn steady_runs_never_stop() {
        let spec = synth::TraceSpec {
            phases: vec![synth::PhaseSpec {
                bps: 1e9,
                end_bytes: None,
                drift: 0.0,
                noise: 0.03,
            }],
            interval_s: 1.0,
            duration_s: 600.0,
            heavy_tails: true,
            dips: vec![(100.0, 2.5, 0.3), (300.0, 1.0, 0.2)],
        };
        let (t, _) = synth::simulate(&spec, 9);
        assert!(replay(&t.samples, StopConfig::default()).is_none());
    }

    struct Trace(std::vec::IntoIter<Sample>);
    impl SampleSource for Trace {
        fn next_sample(&mut self) -> anyhow::Result<Option<Sample>> {
            Ok(self.0.next())
        }
    }

    #[test]
    fn a_burst_ends_at_the_stop() {
        let s = step(10.0, 100.0, 1.0);
        let n = s.len();
        let mut seen = 0;
        let b = run_burst(&mut Trace(s.into_iter()), StopConfig::default(), |_| {
            seen += 1;
            Ok(())
        })
        .unwrap();
        assert!(b.cliff_confirmed);
        assert!(b.samples.len() < n);
        assert_eq!(seen, b.samples.len());
        let e = b.estimate.unwrap();
        assert!(b.samples.last().unwrap().t_s >= e.cliff.t_s + 30.0);
    }

    /// Regression: a cache that ran out inside the first sample was never a cliff, so the
    /// early stop never came and the probe wrote the whole drive (250 GB in 14 minutes). The
    /// rule now stops once the level after such a drop has held for the hold time, and says
    /// why; a first sample only a little above the rest (a DRAM buffer, say) stops nothing.
    #[test]
    fn a_drop_inside_the_first_sample_stops_once_the_level_after_it_holds() {
        let run = |first: f64| {
            let pts: Vec<(f64, f64, f64)> = (1..=300)
                .map(|i| (i as f64, 1.0, if i == 1 { first } else { 3e8 }))
                .collect();
            let t = Timeline::from_rates(&pts, RunMeta::default());
            let mut rule = StopRule::new(StopConfig::default());
            let mut stopped = None;
            for s in t.samples {
                let at = s.t_s;
                if rule.push(s) == Decision::Stop && stopped.is_none() {
                    stopped = Some(at);
                }
            }
            (rule, stopped)
        };
        let (rule, stopped) = run(1.1e9);
        let (d, at) = rule.first_sample_drop().expect("the drop is seen");
        assert_eq!(d.at, DropWhere::FirstSample);
        // The hold of a one-interval cache phase: --after-cliff, 30 s, after the first sample.
        assert_eq!(at, Some(31.0));
        assert_eq!(stopped, Some(31.0));
        assert_eq!(rule.stop_reason(), Some(StopReason::FirstSampleDrop));
        assert!(rule.estimate().is_none());
        // 1.5x: seen, but no stop for it.
        let (rule, stopped) = run(4.5e8);
        if let Some((_, at)) = rule.first_sample_drop() {
            assert_eq!(at, None);
        }
        assert_eq!(stopped, None);
        assert_eq!(rule.stop_reason(), None);
        // With --cliffs 2 the run waits for a later cliff: the drop stops nothing.
        let pts: Vec<(f64, f64, f64)> = (1..=300)
            .map(|i| (i as f64, 1.0, if i == 1 { 1.1e9 } else { 3e8 }))
            .collect();
        let t = Timeline::from_rates(&pts, RunMeta::default());
        let mut rule = StopRule::new(StopConfig {
            cliffs: 2,
            ..StopConfig::default()
        });
        for s in t.samples {
            assert_eq!(rule.push(s), Decision::Continue);
        }
    }
}
