//! A warning of an analysis: what kind it is, with the figures it names, and its sentence.
//!
//! The detector decides what a warning is once, as a [`WarningKind`]. Code that needs to know
//! which warnings a run has (the read-only rule, a later rewrite, a card) asks the kind, never
//! the words. The sentence is kept beside it, in the run's units, and is what summary.json and
//! `analyze --json` hold: a warning serializes to its text, as it always has, and one read back
//! from a file is of kind [`WarningKind::Recorded`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a warning is about, with the figures that decide how it reads.
#[derive(Debug, Clone, PartialEq)]
pub enum WarningKind {
    /// Fewer samples than a cliff needs.
    TooFewSamples {
        /// Samples in the run.
        samples: usize,
    },
    /// Too few samples before the cliff, or too wide an interval, for a tight estimate.
    CoarseSampling {
        /// The cache phase's length, seconds.
        cache_phase_s: f64,
        /// Whole samples before the cliff.
        samples_before: usize,
        /// Their length, seconds.
        interval_s: f64,
    },
    /// No cliff: the cache holds at least what was written (or one pass over the span).
    NoCliff {
        /// The lower bound, bytes.
        lower_bound_bytes: u64,
        /// The run wrote the whole drive, so there is no cache to find.
        whole_drive: bool,
        /// The run was interrupted (Ctrl-C, SIGTERM) before any cliff.
        interrupted: bool,
    },
    /// A drop seen but too short to call a cliff ([`super::Analysis::unconfirmed_drop`]).
    UnconfirmedDrop,
    /// The level after the last cliff is still a large share of the in-cache rate, and the run
    /// did not write the whole span: a slower tier may follow.
    LaterTier {
        /// The level after the last cliff, bytes/s.
        after_bytes_per_sec: f64,
        /// The in-cache rate, bytes/s.
        in_cache_bytes_per_sec: f64,
        /// The `--cliffs` to ask for.
        cliffs_to_ask: usize,
    },
    /// A third, slower phase (folding) after the first post-cache level.
    Folding {
        /// Its start, seconds.
        t_s: f64,
        /// Its mean rate, bytes/s.
        bytes_per_sec: f64,
        /// Why it is not known to last, when it is not (the run did not write the whole span,
        /// or how much it wrote is not known); `None` when it is.
        not_known_to_last: Option<&'static str>,
        /// How many slower phases followed it (tiers 4 and on): its rate is then not the
        /// sustained one.
        later: usize,
    },
    /// More than one level after the cache, or wide swings within it.
    UnsteadyAfterCache {
        /// Where it is the swings of one level: when that level's phase starts, seconds (its
        /// figures are then that phase's range, [`super::Phase::range_bytes_per_sec`], as
        /// every output quotes it); `None` for several levels.
        swings_at_s: Option<f64>,
    },
    /// A temporary slowdown, not a cliff.
    Slowdown {
        /// Its start, seconds.
        t_s: f64,
        /// It was heat (see [`WarningKind::Thermal`]).
        thermal: bool,
    },
    /// Throughput fell to (nearly) nothing for a while.
    Stall {
        /// Its start, seconds.
        t_s: f64,
    },
    /// Stretches that fell far below the level around them and came back, too short for
    /// phases of their own, so averaged into the rate of the stretch they lie in: stalls
    /// (to nearly nothing) of a second or more, or dips of a third or more longer than a
    /// garbage-collection dip ([`super::likelihood::MAX_DIP_S`]).
    ShortDips {
        /// The first one's start, seconds.
        t_s: f64,
        /// They are stalls (to nearly nothing), not dips.
        stalled: bool,
    },
    /// Samples ten times faster than both samples beside them and than the run's median: no
    /// drive writes like that for one sample (a broken row, or a clock that stalled).
    Spikes {
        /// The first one's end, seconds.
        t_s: f64,
    },
    /// The rate rose by half or more between two levels and stayed up, with no cliff, return
    /// of the cache, slowdown, stall or heat to account for it: no cache running out does
    /// that, so the levels are given apart.
    Rise {
        /// When, seconds.
        t_s: f64,
    },
    /// The rate fell within the phase before the first cliff and within the one after it,
    /// each by more than a step and by half the cliff's own fall or more: a gradual fall cut
    /// into levels, whose cliffs may be no cache running out.
    GradualFall {
        /// The time of the cliff it was found at, seconds.
        t_s: f64,
        /// Whether the fall takes in the first cliff's size: found at the first cliff, or at a
        /// later one in a fall that began at the first, whose stretch after it falls by half
        /// its step or more (a linear decline cut into six cliffs was found at the second,
        /// and the size at the first was given bare).
        takes_first: bool,
    },
    /// The cache came back while writing.
    CacheBack {
        /// When, seconds.
        t_s: f64,
    },
    /// The cliff came after more bytes than the span holds.
    WrappedCliff,
    /// The first cliff came after a first sample long enough that a faster first tier could
    /// have run out inside it unseen ([`super::Analysis::first_sample_hides`]).
    FirstTierMayHide {
        /// The largest such tier: the first sample's bytes.
        bytes: u64,
        /// The first sample's length, seconds.
        interval_s: f64,
    },
    /// The writer was CPU-bound in a phase.
    CpuBound,
    /// Thermal throttling, from the drive's counters or its temperature.
    Thermal {
        /// When the drop taken as the cache cliff was heat: its time, seconds.
        at_cache_cliff_s: Option<f64>,
    },
    /// Recurring slowdowns in a steady run.
    Periodic,
    /// The drive's own write counters disagree with the bytes written.
    DriveCounters,
    /// A real-time emulation fell short of its model.
    EmulationShortfall,
    /// One pass over the span ended the run before the `--duration` asked.
    ShortOfDuration,
    /// The rate in the cache is the link's ceiling, not the drive's.
    LinkLimited {
        /// The link's name: "SATA 6.0 Gb/s".
        link: String,
    },
    /// A drive model's IOPS limit held the rate in and after its cache alike: no cliff could
    /// show ([`super::Analysis::iops_hid_cache`]).
    IopsHidesCache,
    /// How the input was read (an import's note, a probe's read stream).
    Input,
    /// The rate fell in the run's last samples after the last cliff, too briefly for a phase:
    /// a slower tier or a pause, not told apart; the samples are in the stretch after the
    /// cache, and widen its range.
    EndDrop {
        /// When the fall began, seconds.
        t_s: f64,
    },
    /// Read back from a file: only the sentence is known.
    Recorded,
}

/// One warning: its kind and its sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// The sentence, in the run's units.
    pub text: String,
}

impl Warning {
    /// A warning of `kind` that reads `text`.
    pub fn new(kind: WarningKind, text: impl Into<String>) -> Warning {
        Warning {
            kind,
            text: text.into(),
        }
    }

    /// A note on how the input was read.
    pub fn input(text: impl Into<String>) -> Warning {
        Warning::new(WarningKind::Input, text)
    }

    /// The sentence.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the warning holds for any series, reads included: too few samples, a
    /// temporary slowdown, a stall. The rest speak of a write cache and of the levels after
    /// it.
    pub fn holds_for_reads(&self) -> bool {
        matches!(
            self.kind,
            WarningKind::TooFewSamples { .. }
                | WarningKind::Slowdown { .. }
                | WarningKind::Stall { .. }
                | WarningKind::ShortDips { .. }
                | WarningKind::Spikes { .. }
                | WarningKind::Rise { .. }
                | WarningKind::ShortOfDuration
        )
    }

    /// Whether the warning speaks of the run's cliffs (their sampling, a wrap, a slowdown told
    /// apart from them, a return of the cache, heat taken for the cache cliff): it goes when
    /// the cliffs do.
    pub fn speaks_of_cliffs(&self) -> bool {
        match self.kind {
            WarningKind::TooFewSamples { .. }
            | WarningKind::CoarseSampling { .. }
            | WarningKind::NoCliff { .. }
            | WarningKind::WrappedCliff
            | WarningKind::FirstTierMayHide { .. }
            | WarningKind::Slowdown { .. }
            | WarningKind::CacheBack { .. } => true,
            WarningKind::Thermal { at_cache_cliff_s } => at_cache_cliff_s.is_some(),
            _ => false,
        }
    }
}

impl From<String> for Warning {
    fn from(text: String) -> Warning {
        Warning::new(WarningKind::Recorded, text)
    }
}

impl From<Warning> for String {
    fn from(w: Warning) -> String {
        w.text
    }
}

/// A warning reads as its sentence. Code that decides something from a warning asks its
/// [`Warning::kind`]; the words are for readers (and for tests that check them).
impl std::ops::Deref for Warning {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
