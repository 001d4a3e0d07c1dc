//! The run's findings, worked out once: what the cache was (a size with its interval, a
//! bound, or why there is none), the rate in the cache, the rate after it (one steady figure,
//! or the range of an unsteady stretch), the levels after each cliff, and how much was written.
//!
//! Every output renders this value: the terminal's result line, the card, the charts'
//! subtitles, report.md and report.html, the row a results store keeps (and so `runs`,
//! `compare` and `history`). None of them works out a figure of its own from the analysis,
//! so two outputs of one run cannot disagree.

use serde::{Deserialize, Serialize};

use super::{Analysis, PhaseKind, UnconfirmedDrop};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// What a run found of the cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cache {
    /// A cliff was confirmed: the cache's size with its 95% interval, bytes.
    Sized {
        /// Best estimate.
        bytes: u64,
        /// Lower end of the 95% interval.
        low_bytes: u64,
        /// Upper end of the 95% interval.
        high_bytes: u64,
    },
    /// A cliff was confirmed, but after more bytes than the span holds: the writes had
    /// wrapped around the span, so blocks were written more than once and the figure is not
    /// the cache size of this span (which holds at most `span_bytes` of distinct blocks). The
    /// bytes written before the cliff, with their 95% interval; no output gives them as a
    /// cache size.
    Wrapped {
        /// Bytes written before the cliff, best estimate.
        bytes: u64,
        /// Lower end of the 95% interval.
        low_bytes: u64,
        /// Upper end of the 95% interval.
        high_bytes: u64,
        /// The span the writes wrapped around, bytes.
        span_bytes: u64,
    },
    /// No cliff: no cache, or one of at least `bytes`.
    AtLeast {
        /// Bytes written before the run ended (or before a drop it could not confirm).
        bytes: u64,
        /// The run was interrupted (Ctrl-C, SIGTERM) before any cliff: it ended because it
        /// was stopped, not because it had written all it was to write. Absent from the JSON
        /// when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        interrupted: bool,
    },
    /// The whole drive was written without a cliff: no SLC cache ran out.
    NoneOverWholeDrive {
        /// The drive's capacity, bytes.
        capacity_bytes: u64,
        /// The share of the drive written before the run (`--prefill`), percent: then only
        /// no free cache ran out. Absent from the JSON when there was none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prefill_pct: Option<f64>,
    },
    /// A drop was seen but not confirmed (see [`UnconfirmedDrop`]); the cache lies in its
    /// bounds if the drop was the cache running out.
    Unconfirmed(UnconfirmedDrop),
    /// Too few samples to look for a cliff: nothing is known of a cache.
    TooFewSamples,
    /// Nothing was written.
    NothingWritten,
    /// The run only read: reads measure no write cache.
    ReadOnly {
        /// Bytes read.
        bytes_read: u64,
    },
    /// Cliffs were found but no size could be put on the cache.
    NotEstimated,
    /// No cliff, and the whole run wrote at the limit of the link in front of the drive
    /// (SATA, USB, PCIe): the link hides where a cache would end, so nothing is known of its
    /// size.
    HiddenByLink {
        /// The link's name (`SATA 3.0 Gb/s`).
        link: String,
    },
    /// No cliff, and the drive model's own truth says its write IOPS limit holds the rate in
    /// and after its cache alike at this block size (a simulation or an emulated drive): no
    /// cliff could show, so nothing is known of the cache's size from this run.
    HiddenByIops {
        /// The model's IOPS limit.
        iops: f64,
    },
}

/// The rate after the last cliff ([`super::after_cache`] defines the stretch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum After {
    /// The stretch passed the steady-state test: one rate, bytes/s.
    Steady {
        /// Bytes over time of the stretch.
        bytes_per_sec: f64,
    },
    /// Too short to judge (or an analysis written before the test existed): its rate,
    /// bytes/s, untested.
    TooShort {
        /// Bytes over time of the stretch.
        bytes_per_sec: f64,
    },
    /// The stretch failed the steady-state test (or its samples swing): no one rate, only the
    /// range of its samples ([`super::after_cache::SteadyState::range`]: their 10th to 90th
    /// percentile, widened to the slowest and fastest round where those lie outside it).
    NotSteady {
        /// The low end of the range, bytes/s.
        low_bytes_per_sec: f64,
        /// The high end of the range, bytes/s.
        high_bytes_per_sec: f64,
    },
    /// The whole stretch was thermal throttling (heat that came with the cliff and lasted to
    /// the end of the run): no rate after the cache outside heat was measured. The rate of
    /// the throttled stretch, bytes/s, is heat's, given apart, never as the rate after the
    /// cache.
    Throttled {
        /// Bytes over time of the throttled stretch.
        bytes_per_sec: f64,
        /// Where the throttled stretch holds more than one level (it fails the steady-state
        /// test), its range ([`super::Phase::range_bytes_per_sec`]), given in place of its
        /// mean. Absent from the JSON otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        range_bytes_per_sec: Option<(f64, f64)>,
    },
}

impl After {
    /// The one rate, bytes/s; `None` for a stretch that was not steady (it has no one rate).
    pub fn rate(&self) -> Option<f64> {
        match *self {
            After::Steady { bytes_per_sec } | After::TooShort { bytes_per_sec } => {
                Some(bytes_per_sec)
            }
            After::NotSteady { .. } | After::Throttled { .. } => None,
        }
    }

    /// What the steady-state test said, as one word for a table: `steady`, `too_short` or
    /// `not_steady`.
    pub fn judged(&self) -> &'static str {
        match self {
            After::Steady { .. } => "steady",
            After::TooShort { .. } => "too_short",
            After::NotSteady { .. } => "not_steady",
            After::Throttled { .. } => "throttled",
        }
    }

    /// The figure as every output gives it: `591 MB/s`, `599 MB/s (too short to judge)`, or
    /// `480 MB/s to 1000 MB/s (not steady)`, or where the stretch was all heat `not measured
    /// outside thermal throttling (throttled: 497 MB/s)`.
    pub fn text(&self, units: UnitSystem) -> String {
        match *self {
            After::Throttled {
                bytes_per_sec,
                range_bytes_per_sec,
            } => format!(
                "not measured outside thermal throttling (throttled: {})",
                throttled_rate_text(bytes_per_sec, range_bytes_per_sec, units)
            ),
            After::Steady { bytes_per_sec } => format_rate(bytes_per_sec, units),
            After::TooShort { bytes_per_sec } => {
                format!("{} (too short to judge)", format_rate(bytes_per_sec, units))
            }
            After::NotSteady {
                low_bytes_per_sec,
                high_bytes_per_sec,
            } => format!(
                "{} to {} (not steady)",
                format_rate(low_bytes_per_sec, units),
                format_rate(high_bytes_per_sec, units)
            ),
        }
    }
}

impl After {
    /// [`After::text`] in fewer characters, for a table fitted to a narrow terminal: both
    /// ends of a range and every qualifier kept (`595-1010 MB/s (not steady)`,
    /// `279 MB/s (too short)`).
    pub fn short_text(&self, units: UnitSystem) -> String {
        match *self {
            After::Steady { .. } => self.text(units),
            After::Throttled {
                bytes_per_sec,
                range_bytes_per_sec,
            } => format!(
                "none (throttled: {})",
                throttled_rate_text(bytes_per_sec, range_bytes_per_sec, units)
            ),
            After::TooShort { bytes_per_sec } => {
                format!("{} (too short)", format_rate(bytes_per_sec, units))
            }
            After::NotSteady {
                low_bytes_per_sec,
                high_bytes_per_sec,
            } => {
                let (lo, hi) = (
                    format_rate(low_bytes_per_sec, units),
                    format_rate(high_bytes_per_sec, units),
                );
                match (lo.rsplit_once(' '), hi.rsplit_once(' ')) {
                    (Some((l, lu)), Some((h, hu))) if lu == hu => {
                        format!("{l}-{h} {hu} (not steady)")
                    }
                    _ => self.text(units),
                }
            }
        }
    }
}

/// What a rate after the cache leaves out or may not be ([`Findings::after_caveat_set`]), as a
/// set of bits: [`AfterCaveats::HEAT_LEFT_OUT`] is 1, [`AfterCaveats::SLOWER_TIER_MAY_FOLLOW`]
/// 2. A store keeps them so in each run's row (`after_marks`, schema version 6), and
/// `runs --by` counts the runs of each in a group's median.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AfterCaveats(u8);

impl AfterCaveats {
    /// None: the rate is what the drive sustained after the cache, as far as the run could
    /// tell (or there is no rate).
    pub const NONE: AfterCaveats = AfterCaveats(0);
    /// Thermal throttling after the last cliff was left out of the rate (bit 1).
    pub const HEAT_LEFT_OUT: AfterCaveats = AfterCaveats(1);
    /// The run did not write far enough to rule out a later, slower tier: the rate may not be
    /// the sustained one (bit 2).
    pub const SLOWER_TIER_MAY_FOLLOW: AfterCaveats = AfterCaveats(2);

    /// Each caveat alone with its words, in the order every output says them.
    pub const EACH: [(AfterCaveats, &'static str); 2] = [
        (Self::HEAT_LEFT_OUT, "heat left out"),
        (Self::SLOWER_TIER_MAY_FOLLOW, "a slower tier may follow"),
    ];

    /// These and `other`.
    pub fn with(self, other: AfterCaveats) -> AfterCaveats {
        AfterCaveats(self.0 | other.0)
    }

    /// Whether every caveat of `other` is among these.
    pub fn contains(self, other: AfterCaveats) -> bool {
        self.0 & other.0 == other.0
    }

    /// As a store's row keeps them: bit 1 heat left out, bit 2 a slower tier may follow.
    pub fn bits(self) -> i64 {
        i64::from(self.0)
    }

    /// Of the bits [`Self::bits`] gives; bits it does not know (a newer slccache's) are left
    /// out.
    pub fn from_bits(bits: i64) -> AfterCaveats {
        let known = Self::EACH.iter().fold(0, |b, (c, _)| b | c.0);
        AfterCaveats((bits & i64::from(known)) as u8)
    }

    /// Each in words ([`Self::EACH`]), in order: `["heat left out"]`.
    pub fn words(self) -> Vec<&'static str> {
        Self::EACH
            .iter()
            .filter(|(c, _)| self.contains(*c))
            .map(|(_, w)| *w)
            .collect()
    }
}

/// What [`Findings::after_cell`] says beside the level after a drop not confirmed where every
/// later sample held heat, which makes that level a floor were the drop inside the first
/// sample, and leaves a later drop, under the heat, unseen: `>= 870 MB/s (unconfirmed; or
/// hidden by heat in every later sample)`.
pub const AFTER_FLOOR_WORDS: &str = "unconfirmed; or hidden by heat in every later sample";

/// What every output adds to a level of a run without a cliff that the drive's
/// thermal-management counters rose in ([`super::Phase::heat`]): its mean holds heat, as the
/// thermal warning says ("mean 613 MB/s" on the card and "the whole run: 613 MB/s" on the
/// chart stood beside the terminal's "the mean rates of those stretches hold heat").
pub const LEVEL_HEAT_WORDS: &str = "heat in it";

/// `text` with `caveats` in its parentheses (`599 MB/s (too short to judge; heat left out)`),
/// or in parentheses of their own (`982 MB/s (heat left out)`).
pub fn with_caveats(text: String, caveats: &[&str]) -> String {
    if caveats.is_empty() {
        return text;
    }
    let c = caveats.join("; ");
    match text.strip_suffix(')') {
        Some(t) => format!("{t}; {c})"),
        None => format!("{text} ({c})"),
    }
}

/// The levels either side of one cliff: the means of the phases that end and start at it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// When the cliff was, seconds since the start of the run.
    pub t_s: f64,
    /// The level before the cliff, bytes/s.
    pub before_bytes_per_sec: f64,
    /// The level right after it, bytes/s: the mean of the phase that starts at it (the rate
    /// after the cache after the last cliff, where that has one rate).
    pub after_bytes_per_sec: f64,
    /// Where the level before the cliff is not one rate, the 10th and 90th percentiles of its
    /// samples' rates, bytes/s ([`super::Phase::range_bytes_per_sec`]), which every output
    /// gives in place of `before_bytes_per_sec`. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_range_bytes_per_sec: Option<(f64, f64)>,
    /// Where the level after the cliff is not one rate, its range as
    /// `before_range_bytes_per_sec` is (after the last cliff, the range the steady-state test
    /// gives: [`Findings::after_swing`], [`Findings::after_unsteady`]), which every output
    /// gives in place of `after_bytes_per_sec`. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_range_bytes_per_sec: Option<(f64, f64)>,
    /// A slower tier that ran out under thermal throttling ([`super::Cliff::under_heat`]):
    /// its levels are those before and after the heat. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub under_heat: bool,
}

/// The range of the throttled levels after a cliff at `t_s` where they lie more than a step
/// apart (each level its range where it has one, else its rate): the heat that came with the
/// cliff, then the cache running out under it, leaves two, and the first alone was "throttled:
/// 1035 MB/s" of samples that fell to 240 MB/s (`simulate 'a2000-1tb,heat=0.3' --interval
/// 10s`). `None` where they are one level.
fn throttled_levels_after(a: &Analysis, t_s: f64) -> Option<(f64, f64)> {
    let (lo, hi) = a
        .phases
        .iter()
        .filter(|p| p.start_s >= t_s - 1e-6 && !p.stall)
        .map(|p| {
            p.range_bytes_per_sec
                .unwrap_or((p.mean_bytes_per_sec, p.mean_bytes_per_sec))
        })
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), (l, h)| {
            (lo.min(l), hi.max(h))
        });
    (lo > 0.0 && hi > lo * super::cliffs::MIN_STEP.exp()).then_some((lo, hi))
}

/// What a cliff is that a slower tier made inside a stretch of thermal throttling
/// ([`Step::under_heat`]), in the words every output gives it beside its levels.
pub const UNDER_HEAT_TEXT: &str = "a slower tier, run out under the heat";

/// [`UNDER_HEAT_TEXT`] of the first cliff, the cache's.
pub const UNDER_HEAT_CACHE_TEXT: &str = "the cache, run out under the heat";

/// What a gradual fall leaves in doubt, in the words every output gives it (report.md's size,
/// the card's note, the charts' subtitles): the cliffs cut into a steady fall.
pub const GRADUAL_FALL_TEXT: &str =
    "the rate fell gradually: its cliffs may be no cache running out";

/// What a size leaves in doubt where heat came with its cliff, in the words every output
/// gives it (the terminal's line, report.md's size, the card's warning, the charts'
/// subtitles): the drive's counters rose at the drop taken as the cache cliff.
pub const HEAT_AT_CLIFF_TEXT: &str = "heat came with its cliff: the size is in doubt";

/// The findings of one run: what every output states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Findings {
    /// What the run found of the cache.
    pub cache: Cache,
    /// The rate in the cache, bytes/s: the mean of the first phase when that phase was the
    /// cache (a cliff followed it); `None` without a confirmed cliff.
    pub in_cache_bytes_per_sec: Option<f64>,
    /// Where the cache's phase is not one rate (heat slowed the drive while the cache lasted:
    /// [`super::Phase::range_bytes_per_sec`]), its range, bytes/s, which every output gives in
    /// place of `in_cache_bytes_per_sec`, and the store leaves the rate in the cache empty.
    /// Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_cache_range_bytes_per_sec: Option<(f64, f64)>,
    /// Without a cliff: the run's one level, bytes/s (all it moved over all the time it took,
    /// its stalls left out: a stall is no level of the drive, and the card's "mean 667 MB/s"
    /// for 2000 MB/s and then as long again of nothing stood beside report.md's "mean: 2000
    /// MB/s").
    pub level_bytes_per_sec: Option<f64>,
    /// The levels either side of each cliff, first first. Not "after the cache":
    /// [`Findings::after`] judges the whole stretch after the last cliff, which may climb
    /// back or throttle.
    pub steps: Vec<Step>,
    /// The rate after the last cliff; `None` without a cliff or for a run that only read.
    pub after: Option<After>,
    /// The name of each of the analysis's phases, in order, as every output gives it
    /// ([`phase_names`]): "SLC cache", "first post-cache level", "tier 3", "after the cache",
    /// "thermal throttling", ...
    #[serde(default)]
    pub phase_names: Vec<String>,
    /// The cliffs the run was asked to wait for (`--cliffs N`), when it found fewer: then
    /// every output says so ([`Findings::cliffs_short_text`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliffs_asked: Option<usize>,
    /// The link whose limit the rate in the cache (or the run's one level) reached, by name
    /// ("SATA 6.0 Gb/s"), where the run's outputs say so ([`crate::link::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_limited: Option<String>,
    /// Every stretch of thermal throttling, in time order, in one list: the thermal slowdowns
    /// (which came back) and the throttled stretches to the end of the run
    /// ([`super::throttled_spans`]), the stretches whose phases are named "thermal
    /// throttling". Absent from the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thermal_throttling: Vec<super::Throttled>,
    /// The rate after the cache was well above half the rate in it while the run did not
    /// write the whole span, so a later, slower tier may follow and that rate may not be the
    /// sustained speed ([`super::Coverage::later_tier_possible`]; the terminal warns of it).
    /// Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slower_tier_may_follow: bool,
    /// With no cliff: the cache the first sample could hide, which "no cache" cannot rule out;
    /// with a cache sized at a cliff after the first sample: the largest faster first tier
    /// that could have run out inside that sample unseen, which the size cannot rule out
    /// ([`super::Analysis::first_sample_hides`]). Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_sample_hides: Option<super::HiddenCache>,
    /// A cache sized where the rate fell gradually ([`super::WarningKind::GradualFall`]): its
    /// cliffs may be places a steady fall was cut, no cache running out, and every output of
    /// the size says so. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fell_gradually: bool,
    /// A cache sized at a cliff the drive's thermal-management counters rose at
    /// ([`super::WarningKind::Thermal`] at the cache cliff): the drop may be heat's as much as
    /// the cache's, and every output of the size says so ([`HEAT_AT_CLIFF_TEXT`]; only the
    /// terminal's thermal warning said it, and the card gave the size plain). Absent from the
    /// JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heat_at_cliff: bool,
    /// A drop not confirmed ([`Cache::Unconfirmed`], not a floor) whose level after it is read
    /// off samples the drive's thermal-management counters rose in: that level holds heat, and
    /// every output of it says so (`simulate 'p5-1tb,throttle_at=60' --interval 4m`: heat in
    /// every sample after the first, "after 496 MB/s (unconfirmed)" on the card and in `runs`
    /// where the terminal warned that the rates held heat). Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heat_after_drop: bool,
    /// Without a cliff: the run's one level ([`Findings::level_bytes_per_sec`]) takes in a
    /// level the drive's thermal-management counters rose in, and every output of it says
    /// so ([`LEVEL_HEAT_WORDS`]). Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub level_heat: bool,
    /// The 10th and 90th percentiles of the samples after the last cliff, bytes/s, where they
    /// swing so wide that the stretch is not steady whatever its rounds
    /// ([`super::after_cache::SteadyState::swing`]): the level after the last cliff is then
    /// quoted as this range wherever it is given (the cliff's label, its row, the phase's
    /// label), not as the mean of the swings. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_swing: Option<(f64, f64)>,
    /// The 10th and 90th percentiles of the samples after the last cliff, bytes/s, where that
    /// stretch fails the steady-state test ([`super::after_cache::SteadyState::spread`]): the
    /// level after the last cliff is then quoted as this range wherever it is given, as a
    /// swing is ("2000 MB/s -> 602 MB/s" and "after the cache: 602 MB/s" stood beside "500
    /// MB/s to 1000 MB/s (not steady)"). Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_unsteady: Option<(f64, f64)>,
}

impl Findings {
    /// The findings of analysis `a`.
    pub fn of(a: &Analysis) -> Findings {
        let cache = cache_of(a);
        let sized = matches!(cache, Cache::Sized { .. });
        let first_sample_hides = matches!(
            cache,
            Cache::AtLeast { .. } | Cache::NoneOverWholeDrive { .. } | Cache::Sized { .. }
        )
        .then_some(a.first_sample_hides)
        .flatten();
        let cliffs = !a.cliffs.is_empty() && !a.read_only;
        // The first phase that is not a stall (a run can begin with one).
        let in_cache = a
            .phases
            .iter()
            .find(|p| !p.stall)
            .filter(|p| cliffs && p.kind == PhaseKind::Cache);
        let in_cache_bytes_per_sec = in_cache.map(|p| p.mean_bytes_per_sec);
        let in_cache_range_bytes_per_sec = in_cache.and_then(|p| p.range_bytes_per_sec);
        let level_bytes_per_sec = (a.cliffs.is_empty() && a.duration_s > 0.0).then(|| {
            let (bytes, time) =
                a.phases
                    .iter()
                    .filter(|p| p.stall)
                    .fold((0.0, 0.0), |(b, t), p| {
                        let d = (p.end_s - p.start_s).max(0.0);
                        (b + p.mean_bytes_per_sec * d, t + d)
                    });
            let kept = a.duration_s - time;
            if kept > 0.0 {
                (a.bytes_total as f64 - bytes).max(0.0) / kept
            } else {
                a.bytes_total as f64 / a.duration_s
            }
        });
        let after = if cliffs {
            a.after_cache.as_ref().map(|ac| match &ac.steady_state {
                Some(s) if !s.steady => {
                    let (lo, hi) = s.range();
                    After::NotSteady {
                        low_bytes_per_sec: lo,
                        high_bytes_per_sec: hi,
                    }
                }
                Some(_) => After::Steady {
                    bytes_per_sec: ac.mean_bytes_per_sec,
                },
                None => After::TooShort {
                    bytes_per_sec: ac.mean_bytes_per_sec,
                },
            })
        } else {
            None
        };
        // The levels either side of each cliff: the phases that end and start there (after a
        // stall that follows a cliff, the first phase after it: a stall is no level).
        let steps: Vec<Step> = if cliffs {
            a.cliffs
                .iter()
                .map(|c| {
                    // A tier that ran out under heat falls from the level before the heat to
                    // the one after it, not from and to the throttled phases either side.
                    let level = |p: &&super::Phase| !(c.under_heat && super::is_throttled(a, p));
                    let before = a
                        .phases
                        .iter()
                        .rev()
                        .filter(level)
                        .find(|p| p.end_s <= c.t_s + 1e-6);
                    let after = a
                        .phases
                        .iter()
                        .filter(level)
                        .find(|p| p.start_s >= c.t_s - 1e-6 && !p.stall);
                    Step {
                        t_s: c.t_s,
                        before_bytes_per_sec: before
                            .map_or(c.before_bytes_per_sec, |p| p.mean_bytes_per_sec),
                        after_bytes_per_sec: after
                            .map_or(c.after_bytes_per_sec, |p| p.mean_bytes_per_sec),
                        before_range_bytes_per_sec: before.and_then(|p| p.range_bytes_per_sec),
                        after_range_bytes_per_sec: after.and_then(|p| p.range_bytes_per_sec),
                        under_heat: c.under_heat,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        // The last cliff's level after it is the rate after the cache where that has one rate,
        // in the findings every output renders (summary.json gave 990 MB/s beside the
        // terminal's and the chart's 985 MB/s, the rate with thermal throttling left out).
        let mut steps = steps;
        if let (Some(s), Some(r)) = (steps.last_mut(), after.as_ref().and_then(After::rate)) {
            s.after_bytes_per_sec = r;
        }
        // After the last cliff, the range its steady-state figures give, whatever its phases.
        if let Some(s) = steps.last_mut() {
            s.after_range_bytes_per_sec = unsteady_after(a).or(swing_after(a)).or(s
                .after_range_bytes_per_sec
                .filter(|_| a.after_cache.is_none()));
        }
        // No stretch outside heat: the phase after the last cliff was all thermal throttling.
        let all_heat = cliffs
            && a.after_cache.is_none()
            && a.phases
                .iter()
                .filter(|p| a.cliffs.last().is_some_and(|c| p.start_s >= c.t_s - 1e-6))
                .all(|p| p.stall || super::is_throttled(a, p));
        // An analysis without the stretch (written before it existed): the last level, untested.
        let after = after.or_else(|| {
            steps.last().map(|s| match all_heat {
                true => After::Throttled {
                    bytes_per_sec: s.after_bytes_per_sec,
                    range_bytes_per_sec: s
                        .after_range_bytes_per_sec
                        .or_else(|| throttled_levels_after(a, s.t_s)),
                },
                false => After::TooShort {
                    bytes_per_sec: s.after_bytes_per_sec,
                },
            })
        });
        Findings {
            cache,
            in_cache_bytes_per_sec,
            in_cache_range_bytes_per_sec,
            level_bytes_per_sec,
            steps,
            after,
            phase_names: phase_names(a),
            thermal_throttling: super::throttled_spans(a)
                .into_iter()
                .map(|(from_s, to_s)| super::Throttled {
                    from_s,
                    to_s,
                    on_and_off: a.throttled.iter().any(|t| {
                        t.on_and_off && t.from_s >= from_s - 1e-9 && t.from_s <= to_s + 1e-9
                    }) || a.slowdowns.iter().any(|s| {
                        s.thermal && s.on_and_off && s.t_s >= from_s - 1e-9 && s.t_s <= to_s + 1e-9
                    }),
                })
                .collect(),
            cliffs_asked: a
                .coverage
                .as_ref()
                .and_then(|c| c.cliffs_asked)
                .filter(|&n| !a.read_only && a.cliffs.len() < n),
            link_limited: a.link_limited.clone(),
            slower_tier_may_follow: cliffs
                && a.coverage.as_ref().is_some_and(|c| c.later_tier_possible),
            first_sample_hides,
            // Of the size: where the fall takes in the first cliff (a fall after a real
            // cliff speaks of the tiers after it, which its warning names).
            fell_gradually: sized
                && a.warnings.iter().any(|w| {
                    matches!(
                        w.kind,
                        super::WarningKind::GradualFall {
                            takes_first: true,
                            ..
                        }
                    )
                }),
            heat_at_cliff: sized
                && a.warnings.iter().any(|w| {
                    matches!(
                        w.kind,
                        super::WarningKind::Thermal {
                            at_cache_cliff_s: Some(_)
                        }
                    )
                }),
            level_heat: a.cliffs.is_empty() && a.phases.iter().any(|p| p.heat),
            heat_after_drop: a.unconfirmed_drop.as_ref().is_some_and(|d| {
                a.cliffs.is_empty()
                    && !d.after_is_floor
                    && a.phases.iter().any(|p| {
                        // A phase that holds heat over the stretch the level was read off, not
                        // one of heat after it (a level of 60 s to 247 s with no rise of the
                        // counters read "heat in it" for throttling from 254 s). A stretch of
                        // throttling is none: the level after such a drop is read before the
                        // heat or outside it (at 90 s samples a level of samples with no rise
                        // read "993 MB/s (unconfirmed; heat in it)" for the throttling
                        // between them).
                        p.heat
                            && !super::is_throttled(a, p)
                            && p.end_s > d.t_high_s + 1e-6
                            && p.start_s < d.t_high_s + d.after_s - 1e-6
                    })
            }),
            after_swing: swing_after(a),
            after_unsteady: unsteady_after(a),
        }
    }

    /// The level after cliff `i` (of [`Findings::steps`]) in words: its rate, or after the
    /// last cliff where the samples swing ([`Findings::after_swing`]), their range: `300 MB/s
    /// to 900 MB/s (swings)`. After the last cliff, the rate after the cache where it has one
    /// (`Findings::after`): the level of the phase that follows the cliff may differ from it
    /// (a stretch with thermal throttling left out), and one line gave both ("2000 -> 995
    /// MB/s at 50.1 s; 991 MB/s over the 719 GB ... after the last cliff").
    pub fn step_after_text(&self, i: usize, units: UnitSystem) -> String {
        let text = self.step_after_level_text(i, units);
        match self.steps.get(i) {
            Some(s) if s.under_heat && i == 0 && !matches!(self.cache, Cache::Unconfirmed(_)) => {
                format!("{text} ({UNDER_HEAT_CACHE_TEXT})")
            }
            Some(s) if s.under_heat => format!("{text} ({UNDER_HEAT_TEXT})"),
            _ => text,
        }
    }

    /// [`Findings::step_after_text`] without the words of a tier that ran out under heat.
    fn step_after_level_text(&self, i: usize, units: UnitSystem) -> String {
        // "not steady" where the stretch failed the steady-state test, as the line after the
        // cache says it ("not steady: 300 MB/s to 500 MB/s" beside "(swings)" at the cliff);
        // "swings" where its rounds passed and its samples swing.
        let failed = matches!(self.after, Some(After::NotSteady { .. }));
        let range = match (self.after_unsteady, self.after_swing) {
            (Some(r), _) => Some((r, "not steady")),
            (None, Some(r)) if failed => Some((r, "not steady")),
            (None, Some(r)) => Some((r, "swings")),
            (None, None) => None,
        };
        match (self.steps.get(i), range) {
            (Some(_), Some((r, word))) if i + 1 == self.steps.len() => range_text(r, word, units),
            // A level before the last cliff that swings by turns.
            (
                Some(Step {
                    after_range_bytes_per_sec: Some(r),
                    ..
                }),
                _,
            ) if i + 1 < self.steps.len() => range_text(*r, "not steady", units),
            (Some(s), None) => {
                let last = i + 1 == self.steps.len();
                if let (
                    true,
                    Some(After::Throttled {
                        bytes_per_sec,
                        range_bytes_per_sec,
                    }),
                ) = (last, &self.after)
                {
                    return format!(
                        "{} ({})",
                        throttled_rate_text(*bytes_per_sec, *range_bytes_per_sec, units),
                        self.heat_words(i)
                    );
                }
                let after = self.after.as_ref().and_then(After::rate).filter(|_| last);
                let rate = format_rate(after.unwrap_or(s.after_bytes_per_sec), units);
                // A level before a later cliff that heat held all through, named as the last
                // one is (`2004 -> 1001 MB/s at 26.1 s` was said of heat the counters marked
                // from 26.1 s on, where the next cliff's level alone was called throttling).
                let next = self.steps.get(i + 1).map(|n| n.t_s);
                match next.filter(|&to| self.heat_over(s.t_s, to)) {
                    Some(_) => format!("{rate} ({})", self.heat_words(i)),
                    None => rate,
                }
            }
            (Some(s), _) => format_rate(s.after_bytes_per_sec, units),
            (None, _) => String::new(),
        }
    }

    /// What the level after cliff `i` is where heat holds it: "thermal throttling", or where
    /// the heat held the run from the cliff before it on, so that the drop came inside the
    /// heat, "under heat: the heat deepening, or the cache running out" (the thermal warning
    /// says the counters cannot tell which; `--cliffs 2` on `'p5-1tb,heat=0.5'` said "1003
    /// MB/s -> 498 MB/s (thermal throttling) at 73.8 s" beside it, where 100 GB had been
    /// written).
    fn heat_words(&self, i: usize) -> &'static str {
        let inside = i > 0 && self.heat_over(self.steps[i - 1].t_s, self.steps[i].t_s);
        if inside {
            "under heat: the heat deepening, or the cache running out"
        } else {
            "thermal throttling"
        }
    }

    /// Whether a stretch of thermal throttling holds all of `from_s..to_s`.
    fn heat_over(&self, from_s: f64, to_s: f64) -> bool {
        self.thermal_throttling
            .iter()
            .any(|t| t.from_s <= from_s + 1e-6 && t.to_s >= to_s - 1e-6)
    }

    /// The level before cliff `i` (of [`Findings::steps`]) in words: its rate, or where it
    /// swings by turns ([`Step::before_range_bytes_per_sec`]), its range: `300 MB/s to 900
    /// MB/s (swings)`.
    pub fn step_before_text(&self, i: usize, units: UnitSystem) -> String {
        match self.steps.get(i) {
            Some(Step {
                before_range_bytes_per_sec: Some(r),
                ..
            }) => range_text(*r, "not steady", units),
            Some(s) => format_rate(s.before_bytes_per_sec, units),
            None => String::new(),
        }
    }

    /// What a size cannot rule out where the rate fell gradually ([`Findings::fell_gradually`]):
    /// `, though the rate fell gradually: its cliffs may be no cache running out`; empty
    /// otherwise.
    pub fn gradual_suffix(&self) -> String {
        if self.fell_gradually && matches!(self.cache, Cache::Sized { .. }) {
            format!(", though {GRADUAL_FALL_TEXT}")
        } else {
            String::new()
        }
    }

    /// What a size cannot rule out where heat came with its cliff ([`Findings::heat_at_cliff`]):
    /// `, though heat came with its cliff: the size is in doubt`; empty otherwise.
    pub fn heat_suffix(&self) -> String {
        if self.heat_at_cliff && matches!(self.cache, Cache::Sized { .. }) {
            format!(", though {HEAT_AT_CLIFF_TEXT}")
        } else {
            String::new()
        }
    }

    /// Every doubt a size carries after it: [`Self::gradual_suffix`], then
    /// [`Self::heat_suffix`].
    pub fn doubt_suffix(&self) -> String {
        format!("{}{}", self.gradual_suffix(), self.heat_suffix())
    }

    /// What the rate after the cache leaves out or may not be, as every output that gives
    /// that rate in a cell says it: `heat left out` where thermal throttling after the last
    /// cliff was left out of it, `a slower tier may follow` where the terminal warns of one
    /// ([`Self::after_caveat_set`] in words).
    pub fn after_caveats(&self) -> Vec<&'static str> {
        self.after_caveat_set().words()
    }

    /// [`Self::after_caveats`] as a set: what a store's row keeps of them (`after_marks`), so
    /// that `runs --by` marks a median that takes such a rate in. None where there is no rate
    /// after the cache.
    pub fn after_caveat_set(&self) -> AfterCaveats {
        let mut c = AfterCaveats::NONE;
        if self.after.is_some() {
            let last = self.steps.last().map_or(0.0, |s| s.t_s);
            let all_heat = matches!(self.after, Some(After::Throttled { .. }));
            if !all_heat && self.thermal_throttling.iter().any(|t| t.to_s > last + 1e-9) {
                c = c.with(AfterCaveats::HEAT_LEFT_OUT);
            }
            if self.slower_tier_may_follow {
                c = c.with(AfterCaveats::SLOWER_TIER_MAY_FOLLOW);
            }
        }
        c
    }

    /// The rate in the cache as a table cell (`runs`, the library page): [`Self::in_cache_text`],
    /// with "(at the link's limit)" where the link capped it, as every other output says.
    pub fn in_cache_cell(&self, units: UnitSystem) -> Option<String> {
        let r = self.in_cache_short_cell(units)?;
        Some(match (&self.link_limited, &self.in_cache_bytes_per_sec) {
            (Some(l), Some(_)) => format!("{r} (at the {l} link's limit)"),
            _ => r,
        })
    }

    /// [`Self::in_cache_cell`] without the link, for a table fitted to a narrow terminal: what
    /// the rate may not be stays (`1999 MB/s (before the cliff)`; `runs` at 160 columns gave it
    /// bare under "in cache", where the card says "before the cliff").
    pub fn in_cache_short_cell(&self, units: UnitSystem) -> Option<String> {
        // A drop not confirmed: the rate before it, as the card gives it (the first sample's
        // rate is only a floor of the rate before a drop inside it).
        if let (None, Cache::Unconfirmed(d)) = (&self.in_cache_bytes_per_sec, &self.cache) {
            return Some(match d.at {
                super::DropWhere::FirstSample => format!(
                    ">= {} (first sample; unconfirmed)",
                    format_rate(d.before_bytes_per_sec, units)
                ),
                _ => format!(
                    "{} (unconfirmed)",
                    format_rate(d.before_bytes_per_sec, units)
                ),
            });
        }
        let r = self.in_cache_text(units)?;
        // Where a faster first tier could hide in the first sample, the rate before the cliff,
        // which may be a later tier's (the card's "before the cliff"); so too before a cliff
        // past a wrapped span, which sizes no cache (`runs` gave it bare under "in cache"
        // where the card, report.md and compare said "before the cliff").
        Some(if self.in_cache_name() == "before the cliff" {
            format!("{r} ({})", self.in_cache_name())
        } else {
            r
        })
    }

    /// The rate in the cache at the link's limit, as the charts' subtitles say it: `cache rate
    /// at the SATA 6.0 Gb/s link's limit`; `None` where the link did not cap it, or hid the
    /// cache (then the cache's own words name the link).
    pub fn link_limit_text(&self) -> Option<String> {
        match (&self.link_limited, &self.cache) {
            (_, Cache::HiddenByLink { .. }) | (None, _) => None,
            (Some(link), _) => Some(format!("cache rate at the {link} link's limit")),
        }
    }

    /// Fewer cliffs found than asked for: `1 of 2 cliffs found`; `None` otherwise.
    pub fn cliffs_short_text(&self) -> Option<String> {
        self.cliffs_asked
            .map(|n| format!("{} of {n} cliffs found", self.steps.len()))
    }

    /// The cache in words, as a headline: `SLC cache 22.0 GB (95% interval 21.9 GB to 22.5
    /// GB)`, `no cache, or one larger than 40.0 GB`, and so on for each kind of [`Cache`].
    pub fn cache_text(&self, units: UnitSystem) -> String {
        let fb = |b: u64| format_bytes(b as f64, units);
        match &self.cache {
            Cache::Sized {
                bytes,
                low_bytes,
                high_bytes,
            } => format!(
                "SLC cache {}{}{}",
                size_text(*bytes, *low_bytes, *high_bytes, units),
                self.hidden_tier_suffix(units),
                self.doubt_suffix()
            ),
            Cache::Wrapped { .. } => self.wrapped_text(units).expect("wrapped"),
            Cache::AtLeast { bytes, .. } => {
                match &self.first_sample_hides {
                    Some(h) => {
                        format!(
                    "no cache of {} to {}: a smaller one that ran out {} would not show{}, \
                     and a larger one did not run out",
                    format_bytes(h.bytes as f64, units),
                    format_bytes(*bytes as f64, units),
                    h.place(),
                    if h.before_first_row { "" } else { " at this interval" }
                )
                    }
                    None => super::no_cliff_text(Some(*bytes), units),
                }
            }
            Cache::NoneOverWholeDrive {
                capacity_bytes,
                prefill_pct,
            } => match &self.first_sample_hides {
                Some(h) => super::whole_drive_hidden_text(*capacity_bytes, *prefill_pct, h, units),
                None => super::whole_drive_no_cliff_text(*capacity_bytes, *prefill_pct, units),
            },
            // Cliffs after a drop inside the first sample are a later, slower tier's.
            Cache::Unconfirmed(d) if !self.steps.is_empty() => format!(
                "the cache's end not confirmed: {}; {} a later, slower tier's",
                super::sentences::unconfirmed_drop_text_with(d, self.heat_after_drop, units),
                if self.steps.len() == 1 {
                    "the cliff after it is"
                } else {
                    "the cliffs after it are"
                }
            ),
            Cache::Unconfirmed(d) => format!(
                "no confirmed cliff: {}",
                super::sentences::unconfirmed_drop_text_with(d, self.heat_after_drop, units)
            ),
            Cache::TooFewSamples => super::no_cliff_text(None, units),
            Cache::NothingWritten => "nothing was written: no cliff, no cache size".to_string(),
            // Lower case, as every other kind: most outputs use it mid-sentence
            // (`estimate: reads only ...`); those that start a line with it capitalise it.
            Cache::ReadOnly { bytes_read } => format!(
                "reads only ({} read): no write cache measured",
                fb(*bytes_read)
            ),
            Cache::NotEstimated => "cache size not estimated".to_string(),
            Cache::HiddenByLink { link } => format!(
                "no cliff seen through the {link} link: the whole run wrote at the link's \
                 limit, which hides where a cache would run out; nothing is known of the \
                 cache's size through this link"
            ),
            Cache::HiddenByIops { iops } => format!(
                "no cliff seen at the drive model's IOPS limit ({}): at this block size it \
                 holds the rates in and after the cache too close for a cliff to show; \
                 nothing is known of the cache's size from this run (a larger block size \
                 shows it)",
                crate::report::outputs::sweep::iops_text(*iops)
            ),
        }
    }

    /// Whether the findings hedge the cache's size: a size that a faster first tier hidden in
    /// the first sample could make a later tier's ([`Findings::first_sample_hides`] of a
    /// [`Cache::Sized`]), a size heat came with at its cliff ([`Findings::heat_at_cliff`]),
    /// or a drop not confirmed ([`Cache::Unconfirmed`]), as [`Findings::cache_cell`] says of
    /// each. The store keeps it in the run's row (`cache_hedged`), so that `runs --by` marks a
    /// median that takes such a size in (it gave a plain median of sizes every other output
    /// said were in doubt for heat).
    pub fn cache_hedged(&self) -> bool {
        match &self.cache {
            Cache::Sized { .. } => self.first_sample_hides.is_some() || self.heat_at_cliff,
            Cache::Unconfirmed(_) => true,
            _ => false,
        }
    }

    /// What a size cannot rule out where the first sample could hide a faster first tier
    /// ([`Findings::first_sample_hides`] of a [`Cache::Sized`]): `, unless a faster first tier
    /// of up to 435 GB ran out inside the first 2.0 min sample, which would not show at this
    /// interval (the cliff then a later tier's)`; empty otherwise.
    pub fn hidden_tier_suffix(&self, units: UnitSystem) -> String {
        match (&self.cache, &self.first_sample_hides) {
            (Cache::Sized { .. }, Some(h)) => format!(
                ", unless a faster first tier of up to {} ran out {}, {} (the cliff then a \
                 later tier's)",
                format_bytes(h.bytes as f64, units),
                h.place(),
                h.would_not_show(units)
            ),
            _ => String::new(),
        }
    }

    /// The cache as report.md's "Cache size" row gives it: the size with its interval, else
    /// [`Findings::cache_text`], which says why there is none (`no cliff: ...`).
    pub fn cache_row(&self, units: UnitSystem) -> String {
        match &self.cache {
            Cache::Sized {
                bytes,
                low_bytes,
                high_bytes,
            } => format!(
                "{}{}{}",
                size_text(*bytes, *low_bytes, *high_bytes, units),
                self.hidden_tier_suffix(units),
                self.doubt_suffix()
            ),
            // An interrupted run says so where its bound is, as its card and `runs` do.
            Cache::AtLeast {
                interrupted: true, ..
            } => format!(
                "no cliff before the run was interrupted: {}",
                self.cache_text(units)
            ),
            Cache::AtLeast { .. } | Cache::NoneOverWholeDrive { .. } | Cache::TooFewSamples => {
                format!("no cliff: {}", self.cache_text(units))
            }
            Cache::NotEstimated => "not estimated".to_string(),
            // Its own words in the row, as before: "Reads only (...)".
            Cache::ReadOnly { .. } => crate::units::capitalized(&self.cache_text(units)),
            _ => self.cache_text(units),
        }
    }

    /// The cache as a table cell (`runs`, `history`, the library page): `22.0 GB (21.9 GB to
    /// 22.5 GB)`, `none or > 40.0 GB (no cliff)`, `no cliff in all 960 GB`, `776 MB to 1.08 GB
    /// (unconfirmed)` (a drop inside the first sample), `-` where nothing is known. A size
    /// that a faster first tier hidden in the first sample could make a later tier's says so
    /// as the headline does ([`Findings::hidden_tier_suffix`]), short: `470 GB (440 GB to 500
    /// GB), or a first tier < 250 GB hid in the first sample`.
    pub fn cache_cell(&self, units: UnitSystem) -> String {
        let fb = |b: u64| format_bytes(b as f64, units);
        match &self.cache {
            Cache::Sized {
                bytes,
                low_bytes,
                high_bytes,
            } => {
                let mut size = size_with(*bytes, *low_bytes, *high_bytes, "", units);
                if self.fell_gradually {
                    size.push_str(", fell gradually");
                }
                if self.heat_at_cliff {
                    size.push_str(", heat at the cliff");
                }
                match &self.first_sample_hides {
                    Some(h) => format!(
                        "{size}, or a first tier < {} {}",
                        fb(h.bytes),
                        h.hid(false, units)
                    ),
                    None => size,
                }
            }
            Cache::Wrapped {
                bytes, span_bytes, ..
            } => format!(
                "cliff after {} (wrapped {} span; no size)",
                fb(*bytes),
                fb(*span_bytes)
            ),
            // No cliff: no cache, or one larger than what was written (as the run says).
            Cache::AtLeast { bytes, .. } if self.first_sample_hides.is_some() => format!(
                "none, < {} or > {} (no cliff)",
                fb(self.first_sample_hides.map_or(0, |h| h.bytes)),
                fb(*bytes)
            ),
            Cache::AtLeast {
                bytes,
                interrupted: false,
            } => format!("none or > {} (no cliff)", fb(*bytes)),
            Cache::AtLeast {
                bytes,
                interrupted: true,
            } => format!("none or > {} (no cliff; interrupted)", fb(*bytes)),
            Cache::NoneOverWholeDrive {
                capacity_bytes,
                prefill_pct,
            } => {
                // After a prefill, only no free cache ran out: said, as the headline says it.
                let prefilled = prefill_pct.map(|p| format!("prefilled {p}%"));
                match (&self.first_sample_hides, prefilled) {
                    (Some(h), p) => format!(
                        "none or < {} (no cliff in all {}{})",
                        fb(h.bytes),
                        fb(*capacity_bytes),
                        p.map_or(String::new(), |p| format!(", {p}"))
                    ),
                    (None, Some(p)) => format!("no cliff in all {} ({p})", fb(*capacity_bytes)),
                    (None, None) => format!("no cliff in all {}", fb(*capacity_bytes)),
                }
            }
            // A first sample holds any number of steps: a faster first tier may have run out
            // inside it before the drop seen, as the headline says, in its words.
            // Heat in every later sample hides a later end: a floor alone.
            Cache::Unconfirmed(d)
                if d.at == super::DropWhere::FirstSample && d.heat_may_hide_end() =>
            {
                // (Its bounds hold only were the drop the cache's, to the level seen after
                // it: the heat hides both.)
                let _ = d;
                "no size (unconfirmed; heat hides where it ran out)".to_string()
            }
            Cache::Unconfirmed(d) if d.at == super::DropWhere::FirstSample => format!(
                "{} (unconfirmed), less if a faster first tier also ran out",
                if d.bytes_high > d.bytes_low {
                    format!("{} to {}", fb(d.bytes_low), fb(d.bytes_high))
                } else {
                    fb(d.bytes_low)
                }
            ),
            Cache::Unconfirmed(d) if d.bytes_high > d.bytes_low => {
                format!("{} to {} (unconfirmed)", fb(d.bytes_low), fb(d.bytes_high))
            }
            Cache::Unconfirmed(d) => format!(">= {} (drop unconfirmed)", fb(d.bytes_low)),
            Cache::ReadOnly { .. } => "reads only".to_string(),
            Cache::HiddenByLink { link } => format!("hidden by the {link} link"),
            Cache::HiddenByIops { .. } => "hidden by the IOPS limit".to_string(),
            // Said, as every other run without a size says why (a one-sample run read "-").
            Cache::TooFewSamples => "too few samples".to_string(),
            Cache::NothingWritten => "nothing written".to_string(),
            Cache::NotEstimated => "-".to_string(),
        }
    }

    /// A cliff past the span in words (`None` for any other kind of [`Cache`]): `cliff after
    /// 22.0 GB written (95% interval 21.9 GB to 22.5 GB), more than the 15.0 GB span: the
    /// writes had wrapped, so this is not the cache size of the span`.
    pub fn wrapped_text(&self, units: UnitSystem) -> Option<String> {
        let Cache::Wrapped {
            bytes,
            low_bytes,
            high_bytes,
            span_bytes,
        } = self.cache
        else {
            return None;
        };
        let fb = |b: u64| format_bytes(b as f64, units);
        Some(format!(
            "cliff after {} written (95% interval {} to {}), more than the {} span: the writes \
             had wrapped, so this is not the cache size of the span",
            fb(bytes),
            fb(low_bytes),
            fb(high_bytes),
            fb(span_bytes)
        ))
    }

    /// [`Self::wrapped_text`] in short, for a headline that has no room for the interval
    /// (the card, a chart's subtitle): `no cache size: cliff after 22.0 GB, past the 15.0 GB
    /// span`; `None` for any other kind of [`Cache`].
    pub fn wrapped_short_text(&self, units: UnitSystem) -> Option<String> {
        let Cache::Wrapped {
            bytes, span_bytes, ..
        } = self.cache
        else {
            return None;
        };
        Some(format!(
            "no cache size: cliff after {}, past the {} span",
            format_bytes(bytes as f64, units),
            format_bytes(span_bytes as f64, units)
        ))
    }

    /// The levels at each cliff in words: `1368 MB/s -> 590 MB/s at 16.1 s`, and for each
    /// further cliff `; then 3451 MB/s -> 129 MB/s at 127.5 s`; `None` without a cliff.
    pub fn steps_text(&self, units: UnitSystem) -> Option<String> {
        let parts: Vec<String> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                format!(
                    "{} -> {} at {}",
                    self.step_before_text(i, units),
                    self.step_after_text(i, units),
                    crate::units::format_time_point(s.t_s)
                )
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join("; then "))
    }

    /// What the rate in the cache is called where it is given: "in the cache", or "before the
    /// cliff" where the cliff may be a later tier's (a faster first tier could hide in the
    /// first sample) or came after the writes wrapped, as the card, report.md, the charts and
    /// `runs` name it.
    pub fn in_cache_name(&self) -> &'static str {
        match (&self.cache, &self.first_sample_hides) {
            (Cache::Sized { .. }, Some(_)) | (Cache::Wrapped { .. }, _) => "before the cliff",
            _ => "in the cache",
        }
    }

    /// A run without a rate in the cache: what its one level is called and the level
    /// (`("mean", 387e6)`; `"read"` for a read-only run, the link's or the IOPS limit where
    /// one hid the cliff), as the card and `simulate` give it; `None` beside a drop not
    /// confirmed, whose two levels the cache gives. No steady-state test was made of it (that
    /// test is of the stretch after a cliff), so it is never called steady.
    pub fn level_label(&self, read_only: bool) -> Option<(&'static str, f64)> {
        let r = self.level_bytes_per_sec?;
        if read_only {
            return Some(("read", r));
        }
        // A drop not confirmed is its two levels, as the cache's words give them: a mean of
        // both (and of heat between) is no level of the run (`simulate p5-1tb --interval 1m
        // --cliffs 2` printed "measured: mean 882 MB/s" under "at least 1829 MB/s -> 988 MB/s",
        // where the card gives the two).
        if self.in_cache_bytes_per_sec.is_some() || matches!(self.cache, Cache::Unconfirmed(_)) {
            return None;
        }
        Some(match self.cache {
            Cache::HiddenByLink { .. } => ("at the link's limit", r),
            Cache::HiddenByIops { .. } => ("at the IOPS limit", r),
            _ => ("mean", r),
        })
    }

    /// [`Findings::level_label`]'s level in words with what it holds: `613 MB/s (heat in
    /// it)` where [`Findings::level_heat`], as the card and `simulate` give it.
    pub fn level_text(&self, r: f64, units: UnitSystem) -> String {
        if self.level_heat {
            format!("{} ({LEVEL_HEAT_WORDS})", format_rate(r, units))
        } else {
            format_rate(r, units)
        }
    }

    /// The rate in the cache as every output gives it (`1368 MB/s`), or `None`.
    /// Where the cache's phase is not one rate ([`Findings::in_cache_range_bytes_per_sec`]),
    /// its range: `1001 MB/s to 1874 MB/s (not steady)`.
    pub fn in_cache_text(&self, units: UnitSystem) -> Option<String> {
        match self.in_cache_range_bytes_per_sec {
            Some(r) => Some(range_text(r, "not steady", units)),
            None => self.in_cache_bytes_per_sec.map(|r| format_rate(r, units)),
        }
    }

    /// The rate after the cache as every output gives it (see [`After::text`]), or `None`.
    pub fn after_text(&self, units: UnitSystem) -> Option<String> {
        self.after.as_ref().map(|a| a.text(units))
    }

    /// [`Self::after_text`] with what it leaves out or may not be ([`Self::after_caveats`]):
    /// `982 MB/s (heat left out)`, as a headline gives the rate alone (the card, the charts'
    /// subtitles, `history`).
    pub fn after_caveated(&self, units: UnitSystem) -> Option<String> {
        let a = self.after.as_ref()?;
        Some(with_caveats(a.text(units), &self.after_caveats()))
    }

    /// [`After::short_text`] with [`Self::after_caveats`], for a table fitted to a narrow
    /// terminal; `None` without a rate after the cache.
    pub fn after_short_cell(&self, units: UnitSystem) -> Option<String> {
        let a = self.after.as_ref()?;
        Some(with_caveats(a.short_text(units), &self.after_caveats()))
    }

    /// The rate after the cache as a table cell (`runs`, `history`, the card): [`After::text`]
    /// with what it leaves out or may not be ([`Self::after_caveats`]: `982 MB/s (heat left
    /// out)`, `599 MB/s (too short to judge; a slower tier may follow)`),
    /// or after a drop that was not confirmed the level after it, said to be unconfirmed
    /// (`300 MB/s (unconfirmed)`); `None` where there is neither.
    pub fn after_cell(&self, units: UnitSystem) -> Option<String> {
        match (&self.after, &self.cache) {
            (Some(_), _) => self.after_caveated(units),
            (None, Cache::Unconfirmed(d)) if d.after_is_floor => Some(format!(
                ">= {} ({AFTER_FLOOR_WORDS})",
                format_rate(d.after_bytes_per_sec, units)
            )),
            (None, Cache::Unconfirmed(d)) => Some(format!(
                "{} (unconfirmed{})",
                format_rate(d.after_bytes_per_sec, units),
                if self.heat_after_drop {
                    "; heat in it"
                } else {
                    ""
                }
            )),
            _ => None,
        }
    }

    /// What the run moved, as a past participle for "20.0 GB written": `read` for a run that
    /// only read (its figures are its reads), else `written`.
    pub fn moved(&self) -> &'static str {
        if matches!(self.cache, Cache::ReadOnly { .. }) {
            "read"
        } else {
            "written"
        }
    }

    /// Why the run stopped, in the words every output gives it ([`crate::timeline::StopReason::text`]):
    /// a cliff the early stop confirmed that heat came with ([`Findings::heat_at_cliff`]) is
    /// said to be in doubt, as the size is (`'p5-1tb,heat=0.5' --pattern seqwrite` said
    /// "stopped: cliff confirmed" beside "the drop at 26.3 s was taken as the cache cliff, so
    /// the cache size is in doubt").
    pub fn stop_text(&self, r: crate::timeline::StopReason) -> String {
        let text = r.text(self.moved());
        if r == crate::timeline::StopReason::CliffConfirmed && self.heat_at_cliff {
            format!("{text} ({HEAT_AT_CLIFF_TEXT})")
        } else {
            text
        }
    }

    /// The direction of the figures, as the first word of a chart's title: `Read` for a run
    /// that only read, else `Write`.
    pub fn direction(&self) -> &'static str {
        if matches!(self.cache, Cache::ReadOnly { .. }) {
            "Read"
        } else {
            "Write"
        }
    }

    /// The cache's size, bytes, where one was estimated.
    pub fn cache_bytes(&self) -> Option<u64> {
        match self.cache {
            Cache::Sized { bytes, .. } => Some(bytes),
            _ => None,
        }
    }
}

/// What the analysis says of the cache ([`Findings::cache`]).
fn cache_of(a: &Analysis) -> Cache {
    if a.read_only {
        Cache::ReadOnly {
            bytes_read: a.bytes_total,
        }
    } else if let (Some(e), Some(span_bytes)) = (&a.cache_estimate, a.wrapped_span_bytes) {
        Cache::Wrapped {
            bytes: e.bytes,
            low_bytes: e.low_bytes,
            high_bytes: e.high_bytes,
            span_bytes,
        }
    } else if let Some(e) = &a.cache_estimate {
        Cache::Sized {
            bytes: e.bytes,
            low_bytes: e.low_bytes,
            high_bytes: e.high_bytes,
        }
    } else if let Some(d) = a.unconfirmed_drop.as_ref().filter(|_| a.bytes_total > 0) {
        // Before the cliffs: a drop inside the first sample may be followed by a later,
        // slower tier's cliffs, none of them the cache's end.
        Cache::Unconfirmed(d.clone())
    } else if !a.cliffs.is_empty() {
        Cache::NotEstimated
    } else if a.bytes_total == 0 {
        Cache::NothingWritten
    } else if let Some(link) = &a.link_limited {
        Cache::HiddenByLink { link: link.clone() }
    } else if let Some(iops) = a.iops_hid_cache {
        Cache::HiddenByIops { iops }
    } else {
        match (a.cache_lower_bound_bytes, &a.coverage) {
            (None, _) => Cache::TooFewSamples,
            (Some(_), Some(c)) if c.whole_span && c.span_is_drive => Cache::NoneOverWholeDrive {
                capacity_bytes: c.span_bytes,
                prefill_pct: c.prefill_pct,
            },
            (Some(b), _) => Cache::AtLeast {
                bytes: b,
                interrupted: a.warnings.iter().any(|w| {
                    matches!(
                        w.kind,
                        super::WarningKind::NoCliff {
                            interrupted: true,
                            ..
                        }
                    )
                }),
            },
        }
    }
}

/// The name of the level right after the cache's end where a later cliff follows it: the
/// words of the folding warning, "not the first post-cache level".
pub const FIRST_POST_CACHE: &str = "first post-cache level";

/// What a phase given as a bound ([`super::rate_at_most`]) is, in every output's words.
pub const AT_MOST_WORDS: &str = "the run's last sample, part of it written before the heat";

/// Whether phase `p` of `a` holds the drop `a` saw but could not confirm, with no cliff.
fn holds_unconfirmed_drop(a: &Analysis, p: &super::Phase) -> bool {
    a.cliffs.is_empty()
        && a.unconfirmed_drop
            .as_ref()
            .is_some_and(|d| p.start_s <= d.t_s + 1e-6 && d.t_s < p.end_s - 1e-6)
}

/// The row of each phase of `a`, as report.md and report.html give it: its name
/// ([`phase_names`]), its rate and its time, and what that rate leaves out. The level after a
/// drop inside the first sample starts where that sample ends (its rate is that of the
/// samples after it), and the row says what the first sample held; a phase that blends both
/// levels of a drop not confirmed says the level after it; thermal throttling after such a
/// drop, where every later sample was slowed by heat, says that its rate is the mean of those
/// samples and the rate without heat the floor the findings give.
pub fn phase_rows(a: &Analysis, units: UnitSystem) -> Vec<String> {
    use crate::units::format_time_point;
    let names = phase_names(a);
    let drop = a.unconfirmed_drop.as_ref();
    let first_sample = drop.filter(|d| d.at == super::DropWhere::FirstSample);
    a.phases
        .iter()
        .zip(&names)
        .enumerate()
        .map(|(i, (p, name))| {
            // A level that swings, or is not steady, is its range, not the mean of its swings,
            // and no mean beside it either (a mean beside the range blends it into one number).
            let rate = match phase_range(a, i) {
                Some((r, word)) => range_text(r, word, units),
                None if super::rate_at_most(a, p) => {
                    format!("at most {}", format_rate(p.mean_bytes_per_sec, units))
                }
                None => format_rate(p.mean_bytes_per_sec, units),
            };
            // The level after a drop inside the first sample, before a later cliff.
            if let Some(d) = first_sample.filter(|d| {
                i == 0
                    && !a.cliffs.is_empty()
                    && p.kind != PhaseKind::Throttled
                    && d.t_high_s > p.start_s + 1e-9
                    && d.t_high_s < p.end_s - 1e-9
            }) {
                return format!(
                    "{name}: {rate} ({} to {}), after a drop inside the first {} sample ({} to \
                     {}: at least {} -> {}), not confirmed",
                    format_time_point(d.t_high_s),
                    format_time_point(p.end_s),
                    crate::units::format_interval(d.interval_s),
                    format_time_point(d.t_s),
                    format_time_point(d.t_high_s),
                    format_rate(d.before_bytes_per_sec, units),
                    super::after_drop_text(d, units),
                );
            }
            let mut row = format!(
                "{name}: {rate} ({} to {}){}",
                format_time_point(p.start_s),
                format_time_point(p.end_s),
                if p.heat {
                    format!(", {LEVEL_HEAT_WORDS}")
                } else {
                    String::new()
                }
            );
            // A phase kept over a drop that was not confirmed: its mean blends both levels,
            // so it is given by the two levels, as every other output gives them ("mean, drop
            // not confirmed: 1845 MB/s" was a rate no sample held).
            // (Also a drop in the run's last sample, whose interval ends where the phase does:
            // "drop not confirmed: 1968 MB/s" of 2000 MB/s and a last sample at 50 MB/s.)
            if let Some(d) = drop.filter(|d| {
                holds_unconfirmed_drop(a, p)
                    && d.t_high_s > p.start_s + 1e-9
                    && d.t_s < p.end_s - 1e-9
            }) {
                row = format!(
                    "{name}: {} ({} to {})",
                    drop_levels_text(d, units),
                    format_time_point(p.start_s),
                    format_time_point(p.end_s)
                );
            }
            if phase_range(a, i).is_none() && super::rate_at_most(a, p) {
                row += &format!(", {AT_MOST_WORDS}");
            }
            // Every sample after the drop slowed by heat: the phase's rate is their mean, the
            // rate without heat at least the fastest of them.
            if let Some(d) = drop.filter(|d| {
                d.after_is_floor && super::is_throttled(a, p) && p.start_s >= d.t_high_s - 1e-6
            }) {
                // A range is of those samples, not their mean ("740 MB/s to 832 MB/s (not
                // steady) ..., the mean of samples slowed by heat").
                let what = if phase_range(a, i).is_some() {
                    "samples slowed by heat"
                } else {
                    "the mean of samples slowed by heat"
                };
                row += &format!(
                    ", {what}; were the drop in the first sample, the rate without heat is at \
                     least {}",
                    format_rate(d.after_bytes_per_sec, units)
                );
            }
            row
        })
        .collect()
}

/// The label of each phase's band on the charts, and its short form for a narrow band: its
/// name and rate (`SLC cache: 1365 MB/s`); over a drop not confirmed, its two levels
/// (`drop not confirmed: at least 1976 MB/s in the first 240 s sample, then 129 MB/s`, not
/// their mean, 590 MB/s), and where the rate is the mean of samples slowed by heat after one,
/// what [`phase_rows`] says of it, so that no label gives a level no line holds as if it
/// were one.
pub fn phase_labels(a: &Analysis, units: UnitSystem) -> Vec<(String, String)> {
    let names = phase_names(a);
    let drop = a.unconfirmed_drop.as_ref();
    a.phases
        .iter()
        .zip(&names)
        .enumerate()
        .map(|(i, (p, name))| {
            let rate = format_rate(p.mean_bytes_per_sec, units);
            // (Also a drop in the last sample, as report.md's row gives it.)
            let blended = drop.filter(|d| {
                holds_unconfirmed_drop(a, p)
                    && d.t_high_s > p.start_s + 1e-9
                    && d.t_s < p.end_s - 1e-9
            });
            let heated = drop.filter(|d| {
                d.after_is_floor && super::is_throttled(a, p) && p.start_s >= d.t_high_s - 1e-6
            });
            // A level the counters rose in holds heat, as the thermal warning says of it.
            let rate = if p.heat {
                format!("{rate} ({LEVEL_HEAT_WORDS})")
            } else {
                rate
            };
            match (blended, heated) {
                (Some(d), _) => (
                    format!("{name}: {}", drop_levels_text(d, units)),
                    format!(
                        "{} -> {}",
                        format_rate(d.before_bytes_per_sec, units),
                        format_rate(d.after_bytes_per_sec, units)
                    ),
                ),
                // A range of heated samples, not their mean, where the phase has one.
                (None, Some(d)) => match phase_range(a, i) {
                    Some((r, word)) => {
                        let range = range_text(r, word, units);
                        (
                            format!(
                                "{name}: {range}, heated samples; without heat at least {} if \
                                 the drop was in the first sample",
                                format_rate(d.after_bytes_per_sec, units)
                            ),
                            format!("{range}, heated"),
                        )
                    }
                    None => (
                        format!(
                            "{name}: {rate} (mean of heated samples; without heat at least {} \
                             if the drop was in the first sample)",
                            format_rate(d.after_bytes_per_sec, units)
                        ),
                        format!("{rate} (heated)"),
                    ),
                },
                (None, None) if phase_range(a, i).is_none() && super::rate_at_most(a, p) => (
                    format!("{name}: at most {rate} ({AT_MOST_WORDS})"),
                    format!("≤ {rate}"),
                ),
                (None, None) => match phase_range(a, i) {
                    // A level that swings, or is not steady, is its range, not the mean of
                    // its swings.
                    Some((r, word)) => {
                        let range = range_text(r, word, units);
                        (format!("{name}: {range}"), range)
                    }
                    None => (format!("{name}: {rate}"), rate),
                },
            }
        })
        .collect()
}

/// The two levels either side of a drop not confirmed, in words, for the phase that holds
/// it: `2000 MB/s, then 300 MB/s from 31.0 s`, and for a drop inside the first sample `at
/// least 1090 MB/s in the first 1 s sample, then 300 MB/s` (that sample's rate only a floor
/// of the level before the drop).
fn drop_levels_text(d: &super::UnconfirmedDrop, units: UnitSystem) -> String {
    match d.at {
        super::DropWhere::FirstSample => format!(
            "at least {} in the first {} sample, then {}",
            format_rate(d.before_bytes_per_sec, units),
            crate::units::format_interval(d.interval_s),
            super::after_drop_text(d, units)
        ),
        // A low stretch at the end, as the headline says it ("for the last 1.0 s"): its
        // interval ends with the run, and "from 61.0 s" was the end of the run.
        super::DropWhere::End => format!(
            "{}, then {} for the last {}",
            format_rate(d.before_bytes_per_sec, units),
            super::after_drop_text(d, units),
            crate::units::format_seconds(d.after_s)
        ),
        super::DropWhere::Start => format!(
            "{}, then {} from {}",
            format_rate(d.before_bytes_per_sec, units),
            super::after_drop_text(d, units),
            crate::units::format_time_point(d.t_high_s)
        ),
    }
}

/// The rate of a stretch that was all thermal throttling: its mean, or where it holds more
/// than one level, its range and that it is not steady (`500 MB/s to 1000 MB/s, not steady`).
pub(crate) fn throttled_rate_text(
    mean: f64,
    range: Option<(f64, f64)>,
    units: UnitSystem,
) -> String {
    match range {
        Some((lo, hi)) => format!(
            "{} to {}, not steady",
            format_rate(lo, units),
            format_rate(hi, units)
        ),
        None => format_rate(mean, units),
    }
}

/// A level that is not one rate, in words: `300 MB/s to 900 MB/s (swings)`.
fn range_text((lo, hi): (f64, f64), word: &str, units: UnitSystem) -> String {
    format!(
        "{} to {} ({word})",
        format_rate(lo, units),
        format_rate(hi, units)
    )
}

/// The range of phase `i` of `a` where it is not one rate
/// ([`super::Phase::range_bytes_per_sec`]), with the word for it: the stretch after the last
/// cliff's as [`swinging_phase`] gives it, "not steady" for a level before the last cliff.
fn phase_range(a: &Analysis, i: usize) -> Option<((f64, f64), &'static str)> {
    match swinging_phase(a) {
        Some((j, r, word)) if j == i => Some((r, word)),
        _ => a
            .phases
            .get(i)?
            .range_bytes_per_sec
            .map(|r| (r, "not steady")),
    }
}

/// The swing of the samples after the last cliff ([`Findings::after_swing`]).
fn swing_after(a: &Analysis) -> Option<(f64, f64)> {
    a.after_cache
        .as_ref()
        .and_then(|ac| ac.steady_state.as_ref())
        .and_then(|s| s.swing)
        .filter(|_| !a.cliffs.is_empty() && !a.read_only)
}

/// The 10th to 90th percentile of the samples after the last cliff where they fail the
/// steady-state test ([`Findings::after_unsteady`]).
fn unsteady_after(a: &Analysis) -> Option<(f64, f64)> {
    a.after_cache
        .as_ref()
        .and_then(|ac| ac.steady_state.as_ref())
        .filter(|s| s.swing.is_none())
        .and_then(|s| s.spread)
        .filter(|_| !a.cliffs.is_empty() && !a.read_only)
}

/// The one phase after the last cliff, where the samples after it swing or are not steady,
/// with their range and the word for it: its label and row give the range
/// ([`Findings::after_swing`], [`Findings::after_unsteady`]).
pub(super) fn swinging_phase(a: &Analysis) -> Option<(usize, (f64, f64), &'static str)> {
    let failed = a
        .after_cache
        .as_ref()
        .and_then(|ac| ac.steady_state.as_ref())
        .is_some_and(|s| !s.steady);
    let (swing, word) = match (unsteady_after(a), swing_after(a)) {
        (Some(r), _) => (r, "not steady"),
        (None, Some(r)) if failed => (r, "not steady"),
        (None, Some(r)) => (r, "swings"),
        (None, None) => return None,
    };
    let last = a.cliffs.last()?.t_s;
    let after: Vec<usize> = (0..a.phases.len())
        .filter(|&j| a.phases[j].start_s >= last - 1e-6 && !a.phases[j].stall)
        .collect();
    match after.as_slice() {
        [j] => Some((*j, swing, word)),
        _ => None,
    }
}

/// The name of each phase of `a`, as report.md and the charts give it. "After the cache" is
/// the stretch after the last cliff ([`Findings::after`]); a phase before it and after the
/// first cliff is a further tier ("first post-cache level" right after the cache, then "tier
/// 3"), unless the cache came back (then it is the low stretch before the return: "after
/// the cache"). Where the writes wrapped around the span
/// before the cliff ([`Cache::Wrapped`]), or where a faster first tier could have run out
/// inside the first sample ([`Findings::first_sample_hides`]), the stretch before it is
/// "before the cliff", not the cache. Where the stretch after the last cliff
/// holds several levels, each is named as a part of it ("after the cache, part 1 of 3"), so
/// that no one of them reads as the rate after the cache. A phase inside a thermal slowdown
/// is "thermal throttling" ("thermal throttling, on and off" where the heat came and went
/// inside its stretch, [`super::Throttled::on_and_off`]); a run's one level with no cliff is "mean" (no steady-state test is
/// made of it), or "the whole run" when it had too few samples to look for a cliff; "drop
/// not confirmed" is the level that holds a drop not confirmed, and "mean" the levels
/// after a spell of heat, "mean, with thermal throttling" where the drive's counters rose in
/// it ([`super::Phase::heat`]).
pub fn phase_names(a: &Analysis) -> Vec<String> {
    let cache = cache_of(a);
    let too_few = matches!(cache, Cache::TooFewSamples);
    let wrapped = matches!(cache, Cache::Wrapped { .. });
    let hidden = matches!(cache, Cache::Sized { .. }) && a.first_sample_hides.is_some();
    let last = a.cliffs.last().map(|c| c.t_s);
    let throttled = |p: &super::Phase| super::is_throttled(a, p);
    // A level the drive's counters mark as heated, though no stretch of throttling holds it.
    let heat = |p: &super::Phase| {
        if p.heat {
            ", with thermal throttling"
        } else {
            ""
        }
    };
    let after_last = |p: &super::Phase| last.is_some_and(|t| p.start_s >= t - 1e-6);
    let parts: Vec<usize> = a
        .phases
        .iter()
        .enumerate()
        .filter(|(_, p)| after_last(p) && !throttled(p) && !p.stall && p.kind != PhaseKind::Cache)
        .map(|(i, _)| i)
        .collect();
    a.phases
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.stall {
                return "stall".to_string();
            }
            if throttled(p) {
                // A stretch the heat came and went in: its mean is no throttled level.
                return if super::is_on_and_off(a, p) {
                    "thermal throttling, on and off".to_string()
                } else {
                    "thermal throttling".to_string()
                };
            }
            match p.kind {
                // A cache phase that starts where the cache came back.
                PhaseKind::Cache if a.returns.iter().any(|r| (r.t_s - p.start_s).abs() < 1e-6) => {
                    "SLC cache (back)".to_string()
                }
                // A cliff past the span: the stretch before it wrote blocks twice, so it is
                // not the cache's extent (no output gives it as one).
                PhaseKind::Cache if wrapped => "before the cliff".to_string(),
                // A faster first tier could have run out inside the first sample: the stretch
                // before the cliff may be a later tier's, as the card says.
                PhaseKind::Cache if hidden => "before the cliff".to_string(),
                PhaseKind::Cache => "SLC cache".to_string(),
                // Too few samples to look for a cliff: one mean, not a level found steady.
                PhaseKind::Steady if too_few => "the whole run".to_string(),
                // A drop seen but not confirmed: the phase that holds it is given by both its
                // levels, not the mean over them. The others (after a spell of heat) hold no
                // drop.
                PhaseKind::Steady if holds_unconfirmed_drop(a, p) => {
                    format!("drop not confirmed{}", heat(p))
                }
                // No cliff: the run's one level is its mean. The steady-state test is made
                // of the stretch after a cliff only, so it is not called steady.
                PhaseKind::Steady => format!("mean{}", heat(p)),
                _ if after_last(p) => {
                    let folding = if p.kind == PhaseKind::Folding {
                        " (folding)"
                    } else {
                        ""
                    };
                    match parts.iter().position(|&j| j == i) {
                        Some(k) if parts.len() > 1 => format!(
                            "after the cache{folding}, part {} of {}",
                            k + 1,
                            parts.len()
                        ),
                        _ => format!("after the cache{folding}"),
                    }
                }
                _ if !a.returns.is_empty() => "after the cache".to_string(),
                _ => {
                    // The tier this phase is in: one more than the cliffs before it, and one
                    // more after a drop inside the first sample (the cache's end). The tier
                    // right after the cache is the first post-cache level, as the folding
                    // warning calls it.
                    let n = a
                        .cliffs
                        .iter()
                        .filter(|c| c.t_s <= p.start_s + 1e-6)
                        .count()
                        + usize::from(matches!(cache, Cache::Unconfirmed(_)));
                    match n + 1 {
                        2 => FIRST_POST_CACHE.to_string(),
                        k => format!("tier {k}"),
                    }
                }
            }
        })
        .collect()
}

/// A size with its interval: `22.0 GB (95% interval 21.9 GB to 22.5 GB)`.
fn size_text(bytes: u64, low: u64, high: u64, units: UnitSystem) -> String {
    size_with(bytes, low, high, "95% interval ", units)
}

/// A size with its interval, the interval's words first: `22.0 GB ({words}21.9 GB to 22.5 GB)`.
fn size_with(bytes: u64, low: u64, high: u64, words: &str, units: UnitSystem) -> String {
    let (size, lo, hi) =
        crate::units::format_bytes_estimate(bytes as f64, low as f64, high as f64, units);
    format!("{size} ({words}{lo} to {hi})")
}

#[cfg(test)]
impl Findings {
    /// Findings of `cache` alone, for tests: no rates, steps, phases or caveats.
    pub(crate) fn bare(cache: Cache) -> Findings {
        Findings {
            cache,
            in_cache_bytes_per_sec: None,
            in_cache_range_bytes_per_sec: None,
            level_bytes_per_sec: None,
            steps: vec![],
            after: None,
            phase_names: vec![],
            cliffs_asked: None,
            link_limited: None,
            thermal_throttling: vec![],
            slower_tier_may_follow: false,
            first_sample_hides: None,
            fell_gradually: false,
            heat_at_cliff: false,
            heat_after_drop: false,
            level_heat: false,
            after_swing: None,
            after_unsteady: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::synth;

    fn bare(cache: Cache) -> Findings {
        Findings::bare(cache)
    }

    /// `runs` gave a one-sample run's cache cell as "-", where every other run without a
    /// size says why.
    #[test]
    fn a_run_without_a_size_says_why_in_its_cell() {
        let u = UnitSystem::Decimal;
        assert_eq!(bare(Cache::TooFewSamples).cache_cell(u), "too few samples");
        assert_eq!(bare(Cache::NothingWritten).cache_cell(u), "nothing written");
    }

    #[test]
    fn a_read_only_run_is_said_in_lower_case_mid_sentence() {
        let f = bare(Cache::ReadOnly {
            bytes_read: 1_900_000_000,
        });
        let u = UnitSystem::Decimal;
        // `simulate` prints "estimate:    reads only ...", `compare` "name: reads only ...".
        assert_eq!(
            f.cache_text(u),
            "reads only (1.90 GB read): no write cache measured"
        );
        // report.md's row starts with it.
        assert!(f.cache_row(u).starts_with("Reads only (1.90 GB read)"));
    }

    /// A drop inside a long first sample bounded the cache "if it was the cache running out"
    /// and no more: fx700 at 4 min gave "443 GB to 474 GB" where a 54 GB first tier ran out
    /// inside that sample unseen. Every form of it says a faster first tier may have hidden.
    /// `runs` gave the rate before a cliff past a wrapped span bare under "in cache" ("1807
    /// MB/s") where the card, report.md and compare said "before the cliff".
    #[test]
    fn the_rate_before_a_cliff_past_a_wrapped_span_is_named_so_in_its_cell() {
        let u = UnitSystem::Decimal;
        let mut f = bare(Cache::Wrapped {
            bytes: 20_000_000_000,
            low_bytes: 19_000_000_000,
            high_bytes: 21_000_000_000,
            span_bytes: 10_000_000_000,
        });
        f.in_cache_bytes_per_sec = Some(1.807e9);
        assert_eq!(f.in_cache_name(), "before the cliff");
        assert_eq!(
            f.in_cache_cell(u).as_deref(),
            Some("1807 MB/s (before the cliff)")
        );
    }

    #[test]
    fn a_drop_inside_the_first_sample_says_a_faster_first_tier_may_hide_there_too() {
        let u = UnitSystem::Decimal;
        let f = bare(Cache::Unconfirmed(super::super::UnconfirmedDrop {
            at: super::super::DropWhere::FirstSample,
            t_s: 0.0,
            t_high_s: 240.0,
            bytes_low: 443_000_000_000,
            bytes_high: 474_000_000_000,
            before_bytes_per_sec: 1.976e9,
            after_bytes_per_sec: 1.29e8,
            after_is_floor: false,
            heat_in_first_sample: false,
            after_s: 720.0,
            interval_s: 240.0,
        }));
        // The cell says what the headline says, in its words (it said "or a first tier < 474
        // GB hid in the first sample", beside the headline's "less if a faster first tier also
        // ran out").
        assert_eq!(
            f.cache_cell(u),
            "443 GB to 474 GB (unconfirmed), less if a faster first tier also ran out"
        );
        assert!(f
            .cache_text(u)
            .contains("less if a faster first tier also ran out"));
        assert!(
            f.cache_text(u).ends_with(
                "a cache of 443 GB to 474 GB if it was the cache running out, less if a \
                 faster first tier also ran out inside that sample"
            ),
            "{}",
            f.cache_text(u)
        );
        assert_eq!(f.cache_row(u), f.cache_text(u));
        assert!(f.cache_hedged());
        // The rate before the drop, as the card gives it ("first  ≥ 1976 MB/s"), not "-".
        assert_eq!(
            f.in_cache_cell(u).as_deref(),
            Some(">= 1976 MB/s (first sample; unconfirmed)")
        );
        // One cliff after the drop is one cliff ("the cliffs after it" said of one).
        let step = Step {
            t_s: 978.0,
            before_bytes_per_sec: 4.96e8,
            after_bytes_per_sec: 3.95e8,
            before_range_bytes_per_sec: None,
            after_range_bytes_per_sec: None,
            under_heat: false,
        };
        let one = Findings {
            steps: vec![step],
            ..f.clone()
        };
        assert!(
            one.cache_text(u)
                .ends_with("; the cliff after it is a later, slower tier's"),
            "{}",
            one.cache_text(u)
        );
        let two = Findings {
            steps: vec![step, step],
            ..f
        };
        assert!(two
            .cache_text(u)
            .ends_with("; the cliffs after it are a later, slower tier's"));
    }

    /// `runs`, `history`, the library page and compare's subtitle gave a size the first
    /// sample could make a later tier's as a plain size (`470 GB (440 GB to 500 GB)`), where
    /// the terminal, report and card hedge it: the cell hedges it too.
    #[test]
    fn a_size_a_hidden_first_tier_could_undo_is_hedged_in_its_cell() {
        let u = UnitSystem::Decimal;
        let mut f = Findings {
            in_cache_bytes_per_sec: Some(3.4e9),
            in_cache_range_bytes_per_sec: None,
            ..bare(Cache::Sized {
                bytes: 470_000_000_000,
                low_bytes: 440_000_000_000,
                high_bytes: 500_000_000_000,
            })
        };
        assert_eq!(f.cache_cell(u), "470 GB (440 GB to 500 GB)");
        assert!(!f.cache_hedged());
        f.first_sample_hides = Some(super::super::HiddenCache {
            bytes: 250_000_000_000,
            interval_s: 120.0,
            before_first_row: false,
            faster_bytes_per_sec: None,
        });
        // The store's row says so, for the medians of `runs --by`.
        assert!(f.cache_hedged());
        assert_eq!(
            f.cache_cell(u),
            "470 GB (440 GB to 500 GB), or a first tier < 250 GB hid in the first sample"
        );
        // The headline says the same bound.
        assert!(f
            .cache_text(u)
            .contains("a faster first tier of up to 250 GB"));
    }

    #[test]
    fn an_unsteady_stretch_after_the_cache_has_no_one_rate() {
        let after = After::NotSteady {
            low_bytes_per_sec: 480e6,
            high_bytes_per_sec: 1000e6,
        };
        assert_eq!(after.rate(), None);
        assert_eq!(
            after.text(UnitSystem::Decimal),
            "480 MB/s to 1000 MB/s (not steady)"
        );
    }

    #[test]
    fn one_cliff_gives_the_cache_phase_and_the_stretch_after_it() {
        let phase = |bps: f64, end_bytes| synth::PhaseSpec {
            bps,
            end_bytes,
            drift: 0.0,
            noise: 0.02,
        };
        let spec = synth::TraceSpec {
            phases: vec![phase(1500e6, Some(20e9)), phase(600e6, None)],
            interval_s: 1.0,
            duration_s: 60.0,
            heavy_tails: false,
            dips: vec![],
        };
        let (t, _) = synth::simulate(&spec, 7);
        let a = crate::detect::analyze(&t);
        let f = Findings::of(&a);
        let Cache::Sized { bytes, .. } = f.cache else {
            panic!("no size: {:?}", f.cache)
        };
        assert!((bytes as f64 - 20e9).abs() < 0.05 * 20e9, "{bytes}");
        let inside = f.in_cache_bytes_per_sec.expect("in-cache rate");
        assert!((inside - 1500e6).abs() < 0.03 * 1500e6, "{inside}");
        assert_eq!(f.steps.len(), 1);
        assert_eq!(f.steps[0].before_bytes_per_sec, inside);
        assert_eq!(
            f.after.as_ref().and_then(After::rate),
            Some(a.after_cache.as_ref().expect("after").mean_bytes_per_sec)
        );
        assert!(f.level_bytes_per_sec.is_none());
    }
}
