//! The analysis as data: what [`analyze`](super::analyze) returns (the JSON contract of
//! `analyze --json`) and its parts.

use serde::{Deserialize, Serialize};

use super::periodic;

/// One cliff: a lasting drop in throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Estimated time of the drop, seconds since the start.
    pub t_s: f64,
    /// Lower end of the 95% interval for `t_s`.
    pub t_low_s: f64,
    /// Upper end of the 95% interval for `t_s`.
    pub t_high_s: f64,
    /// Bytes written before the cliff.
    pub bytes_written: u64,
    /// Mean throughput of the segment before the cliff, bytes/s.
    pub before_bytes_per_sec: f64,
    /// Mean throughput of the segment after the cliff, bytes/s.
    pub after_bytes_per_sec: f64,
    /// A slower tier that ran out inside a stretch of thermal throttling: the drop came with
    /// no further rise of the drive's counters, and once the drive left the throttle its rate
    /// stayed a step below the one before the heat. Its rates are the levels before and
    /// after the heat. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub under_heat: bool,
}

/// The effective cache size with its 95% interval, in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEstimate {
    /// Best estimate.
    pub bytes: u64,
    /// Lower end of the interval.
    pub low_bytes: u64,
    /// Upper end of the interval.
    pub high_bytes: u64,
}

/// What a phase of the run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Writing into the SLC cache.
    Cache,
    /// After the cache ran out: writing directly to TLC/QLC.
    PostCache,
    /// A further, slower phase (folding SLC into QLC while writing).
    Folding,
    /// No change seen: one steady level throughout.
    Steady,
    /// Inside a stretch of thermal throttling (a thermal slowdown, or a throttled stretch to
    /// the end of the run: [`throttled_spans`]): the drive slowed for heat, whatever tier it
    /// was in. Set last, once those stretches are known; every output names it "thermal
    /// throttling".
    Throttled,
}

/// A stretch of the run at one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Start, seconds since the start of the run.
    pub start_s: f64,
    /// End, seconds.
    pub end_s: f64,
    /// Mean throughput over the phase, bytes/s.
    pub mean_bytes_per_sec: f64,
    /// What the phase was.
    pub kind: PhaseKind,
    /// A level of a run without a cliff (`Steady`) whose whole samples saw the drive's
    /// thermal-management counters rise, though no stretch of thermal throttling holds it
    /// (the rate did not stay a step below the level before the heat): its rate holds heat,
    /// and its name says so. Set last. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heat: bool,
    /// A stretch where throughput fell to (nearly) nothing (the stall warning's): no level of
    /// the drive, and named "stall". Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stall: bool,
    /// Where the phase is not one rate, the 10th and 90th percentiles of its samples' rates,
    /// bytes/s, which every output quotes in place of its mean: a phase after a cliff whose
    /// samples swing between two rates by turns (300 and 900 MB/s by turns every 5 s read
    /// "603 MB/s", a rate no sample held), and the stretch after the last cliff where it
    /// swings or fails the steady-state test ([`crate::detect::findings::Findings::after`]).
    /// Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_bytes_per_sec: Option<(f64, f64)>,
    /// A phase of thermal throttling that is the run's last sample alone, the drive's
    /// counters rising in it after a faster sample: the heat began inside it, so part of it
    /// ran at the level before, and its rate only bounds the heat's from above
    /// ([`rate_at_most`]). Set with the ranges. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_at_most: bool,
}

/// The result of analysing a timeline (the JSON contract of `analyze --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Total bytes written.
    pub bytes_total: u64,
    /// Duration of the timeline, seconds.
    pub duration_s: f64,
    /// Median sampling interval, seconds.
    pub interval_s: f64,
    /// Cliffs, first first.
    pub cliffs: Vec<Cliff>,
    /// The cache size, or `None` when no cliff was seen.
    pub cache_estimate: Option<CacheEstimate>,
    /// When no cliff was seen: the cache is at least this many bytes (all that was written,
    /// or what was written before a drop too short to confirm). `None` beside a drop inside
    /// the first sample: its bounds ([`Analysis::unconfirmed_drop`]) hold for all the tiers
    /// that ran out in that sample together, and the first of them may be smaller.
    pub cache_lower_bound_bytes: Option<u64>,
    /// The phases of the run, in time order.
    pub phases: Vec<Phase>,
    /// Things a reviewer should know, as sentences.
    pub warnings: Vec<super::Warning>,
    /// Recurring slowdowns in a steady run, reported apart from cliffs (`null`: none).
    #[serde(default)]
    pub periodic: Option<periodic::Periodic>,
    /// Temporary slowdowns: lower stretches after which the level came back (garbage
    /// collection, a host hiccup). Not cliffs, and not part of the cache estimate. Absent from
    /// the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowdowns: Vec<Slowdown>,
    /// Returns of the cache while the drive was written: after a cliff, the rate came back
    /// to the cache's level (a dynamic SLC cache freed space) and later ran out again. The
    /// cache size is still the first cliff's. Absent from the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<CacheReturn>,
    /// With no cliff: a drop the run saw but could not confirm (inside the first sample, or
    /// a level after it that lasted no longer than a GC dip can). Absent from the JSON when
    /// there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconfirmed_drop: Option<UnconfirmedDrop>,
    /// The run only read: every byte and rate above is of its reads, and a "cliff" is a fall
    /// in the read rate, not a write cache running out. Absent from the JSON for runs that
    /// wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// How much of the span the run wrote, and what that lets it say of the speed after the
    /// last cliff. Absent when the span is not known (an imported log) or the run only read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// "After the cache": the stretch after the last cliff, its rate and its steady-state
    /// test ([`super::after_cache`]). Absent with no cliff, and for runs that only read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_cache: Option<super::after_cache::AfterCache>,
    /// Stretches of thermal throttling that are no thermal [`Slowdown`]: after a drop that
    /// did not come back before the run ended (heat, not a cache tier, so the drop into one
    /// is no cliff), and the heat a cache or tier ran out under, to where the drive left the
    /// throttle ([`Cliff::under_heat`]; the rate then never came back to the level before
    /// the heat). Absent from the JSON when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttled: Vec<Throttled>,
    /// The link whose usable rate the rate in the cache reached ("SATA 6.0 Gb/s"): the cache
    /// phase measured the link, not the drive. Set by the run that knows its link (probe,
    /// simulate), beside its warning. Absent from the JSON when the link did not limit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_limited: Option<String>,
    /// The drive model's write IOPS limit, IOPS, where the model's own truth says that limit
    /// hides its cache at the run's block size (the rates in and after the cache equal, or
    /// nearly) and the run saw no cliff: the run bounds nothing of the cache. Set by the run
    /// that knows its model (simulate, a probe of an emulated drive), beside its warning.
    /// Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_hid_cache: Option<f64>,
    /// The span, bytes, when the first cliff came after more bytes than it holds: the writes
    /// had wrapped around it, so `cache_estimate` counts blocks written more than once and is
    /// not the cache size of this span (its warning says so, and the findings give the figure
    /// as bytes written before the cliff, not as a cache size). Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrapped_span_bytes: Option<u64>,
    /// A real-time emulation fell short of its model: its rates measured the host, not the
    /// model. Set by the probe that ran it, beside its warning, so that every output (the
    /// card too, drawn again from summary.json) can say so. Absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub emulation_fell_short: bool,
    /// With no cliff and no drop seen: the largest cache that could have run out inside the
    /// first sample without showing (it would lift that sample by less than a step), where
    /// that could be a real drive's cache ([`super::SMALLEST_PUBLISHED_CACHE_BYTES`]). With
    /// samples of minutes a cache of several GB hides there, so "no cache" cannot be said.
    /// With a first cliff after the first sample, where that sample is as long: the first
    /// sample's bytes, the largest faster first tier that could have run out inside it unseen
    /// (the cliff then a later tier's), beside the warning that says so. Absent from the JSON
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_sample_hides: Option<HiddenCache>,
}

impl Analysis {
    /// The rate in the cache as far as the run saw it, bytes/s: before the first cliff, or,
    /// where the cache ran out inside the first sample (its cliffs then all later tiers'),
    /// that sample's rate, a lower bound. `None` without either.
    pub fn in_cache_floor(&self) -> Option<f64> {
        match (&self.unconfirmed_drop, self.cliffs.first()) {
            (Some(d), _) if d.at == DropWhere::FirstSample => Some(d.before_bytes_per_sec),
            (_, Some(c)) => Some(c.before_bytes_per_sec),
            _ => None,
        }
    }
}

/// A cache that the first sample could hide: one that ran out inside it, too early for the
/// sampling to show ([`Analysis::first_sample_hides`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HiddenCache {
    /// The largest such cache, bytes.
    pub bytes: u64,
    /// The first sample's length, seconds (or the seconds before the first row).
    pub interval_s: f64,
    /// Whether it is the stretch before the first row of a timeline whose first rows are
    /// missing (`bytes` written in `interval_s` seconds that no row holds), not a first sample
    /// (absent from the JSON when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_first_row: bool,
    /// The first sample's rate, bytes/s, where it stood a quarter or more over the level after
    /// it: a first tier that lasted no more than that sample shows there, but one sample is no
    /// level to confirm it by (absent from the JSON otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faster_bytes_per_sec: Option<f64>,
}

impl HiddenCache {
    /// Where the cache could hide, in words: `inside the first 2.0 min sample`, or `in the
    /// 28.0 s before the first row`.
    pub fn place(&self) -> String {
        if self.before_first_row {
            format!(
                "in the {} before the first row",
                crate::units::format_interval(self.interval_s)
            )
        } else {
            format!(
                "inside the first {} sample",
                crate::units::format_interval(self.interval_s)
            )
        }
    }

    /// [`HiddenCache::place`] without the seconds: `in the first sample`, or `before the first
    /// row`.
    pub fn short_place(&self) -> &'static str {
        if self.before_first_row {
            "before the first row"
        } else {
            "in the first sample"
        }
    }

    /// How a short text says where it hid, after "a first tier < 5.05 GB": `hid in the first
    /// sample` ([`HiddenCache::short_place`]), or `hid in the first 1.00 s sample` with
    /// `long`; `ran out in the first sample (5048 MB/s)` where that sample ran faster than the
    /// level after it, so that no output calls unseen what the chart shows.
    pub fn hid(&self, long: bool, units: crate::units::UnitSystem) -> String {
        let place = if long {
            self.place().replace("inside the", "in the")
        } else {
            self.short_place().to_string()
        };
        match self.faster_bytes_per_sec {
            Some(r) => format!("ran out {place} ({})", crate::units::format_rate(r, units)),
            None => format!("hid {place}"),
        }
    }

    /// What would show it: a finer interval, or the rows that are missing; or, where the
    /// first sample ran faster than the level after it, that it did.
    pub fn would_not_show(&self, units: crate::units::UnitSystem) -> String {
        if self.before_first_row {
            "for which the input has no rows".to_string()
        } else if let Some(r) = self.faster_bytes_per_sec {
            format!(
                "which ran at {}, over the level after it: one sample, too few to confirm a \
                 tier",
                crate::units::format_rate(r, units)
            )
        } else {
            "which would not show at this interval".to_string()
        }
    }
}

/// A stretch of thermal throttling (see [`Analysis::throttled`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Throttled {
    /// Its start, seconds since the start of the run.
    pub from_s: f64,
    /// Its end, seconds.
    pub to_s: f64,
    /// A whole sample inside it read back at the level before the heat (within a step,
    /// [`super::cliffs::MIN_STEP`]): the heat came and went inside the stretch, and its mean
    /// blends throttled and unthrottled samples (samples of 90 s that each hold part of a
    /// spell). Its phase is then "thermal throttling, on and off". Absent from the JSON when
    /// false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_and_off: bool,
}

impl UnconfirmedDrop {
    /// The most bytes the cache can hold by what the run saw, where it bounds them above:
    /// `bytes_high`, unless that is `bytes_low` (one figure, a floor) or heat slowed every
    /// sample after the first ([`UnconfirmedDrop::after_is_floor`]) or the counters rose
    /// inside the first sample ([`UnconfirmedDrop::heat_in_first_sample`]): the cache may have
    /// run out under the heat, after the first sample, and the heat hides where.
    pub fn upper_bytes(&self) -> Option<u64> {
        (!self.heat_may_hide_end() && self.bytes_high > self.bytes_low).then_some(self.bytes_high)
    }

    /// Whether heat may hide where the cache ran out: every later sample held heat
    /// ([`UnconfirmedDrop::after_is_floor`]), or the counters rose inside the first sample
    /// ([`UnconfirmedDrop::heat_in_first_sample`]); the cache is then bounded from below only.
    pub fn heat_may_hide_end(&self) -> bool {
        self.after_is_floor || self.heat_in_first_sample
    }

    /// Whether a drop inside the first sample may as well lie early in the next: its upper
    /// bound reaches past the bytes of the first sample (the second sample stands over the
    /// level after it). At 45 s samples of 1998, 1117 and 992 MB/s, every output said "a drop
    /// inside the first 45.0 s sample" of a drop the samples put 5 s into the second, and
    /// only the warning added "(or early in the next)".
    pub fn may_lie_in_the_next_sample(&self) -> bool {
        self.at == DropWhere::FirstSample
            && !self.heat_may_hide_end()
            && self.bytes_high as f64 > 1.001 * self.before_bytes_per_sec * self.interval_s
    }

    /// Where a drop inside the first sample lies, in every output's words: `inside the first
    /// 45.0 s sample`, or `inside the first 45.0 s sample or early in the next`
    /// ([`UnconfirmedDrop::may_lie_in_the_next_sample`]).
    pub fn first_sample_words(&self) -> String {
        let first = format!(
            "inside the first {} sample",
            crate::units::format_interval(self.interval_s)
        );
        if self.may_lie_in_the_next_sample() {
            format!("{first} or early in the next")
        } else {
            first
        }
    }
}

/// Where an [`UnconfirmedDrop`] lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropWhere {
    /// Inside the first sample: the sample mixes two levels, so the drop's time and the rate
    /// before it are not known, only that the rate before it was at least the sample's.
    FirstSample,
    /// After a short high start, with the lower level lasting to the end of the run.
    Start,
    /// A low stretch at the end of the run.
    End,
}

/// A drop seen but too short to call a cliff (see [`Analysis::unconfirmed_drop`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnconfirmedDrop {
    /// Where it lies.
    pub at: DropWhere,
    /// When the rate fell, seconds: the start of the sample it fell in (for a drop inside the
    /// first sample, the start of the run).
    pub t_s: f64,
    /// Latest time the fall can have happened, seconds (the end of the sample it fell in).
    pub t_high_s: f64,
    /// Bytes written before the drop (the lower bound of the cache, were the drop its end and
    /// the level after it the one seen; where heat may hide the end,
    /// [`UnconfirmedDrop::heat_may_hide_end`], that level is not known, and no output gives a
    /// size or a bound).
    pub bytes_low: u64,
    /// Most bytes the drop can have come after, when the sampling bounds it (inside the first
    /// sample); else the same as `bytes_low`. Where heat slowed every later sample
    /// (`after_is_floor`), this bounds the cache only if it ran out inside the first sample:
    /// the heat hides an end after it, so the cache has no upper bound
    /// ([`UnconfirmedDrop::upper_bytes`]).
    pub bytes_high: u64,
    /// The rate before the drop, bytes/s; for a drop inside the first sample only a lower
    /// bound (the sample's own rate, a mixture of the two levels).
    pub before_bytes_per_sec: f64,
    /// The rate after it, bytes/s.
    pub after_bytes_per_sec: f64,
    /// Every sample after the first held some thermal throttling the drive's counters mark,
    /// so the drop inside the first sample is one reading of the run, not the only one: the
    /// cache may as well have run out after it, under the heat, which hides where. Were the
    /// drop inside the first sample, `after_bytes_per_sec` is a floor of the level after it
    /// (the fastest later sample; the level the drive would hold cool is higher) and
    /// `bytes_high` the most the cache holds; were it later, neither says anything. Absent from
    /// the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_is_floor: bool,
    /// The drive's thermal-management counters rose inside the first sample that holds the
    /// drop: the drop may be the heat's, and the cache may have run out later, under the heat,
    /// so `bytes_high` bounds it only were the drop the cache's. Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heat_in_first_sample: bool,
    /// How long the lower level was seen, seconds.
    pub after_s: f64,
    /// The interval of the samples, seconds: what limits what the run can tell.
    pub interval_s: f64,
}

/// The level after the last cliff counts as "still a cache" when it is at least this share of
/// the in-cache rate (see [`Coverage::later_tier_possible`]).
pub const LATER_TIER_SHARE: f64 = 0.5;

/// How much of the span a run wrote, and the speeds that follow from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Bytes written.
    pub bytes_written: u64,
    /// The span the run could write in one pass, bytes.
    pub span_bytes: u64,
    /// True when the span is the whole drive (its capacity as the run recorded it); false for
    /// a regular file, whose whole is [`Coverage::span_is_file`].
    pub span_is_drive: bool,
    /// True when the target is a regular file and the span is all of it (its size as the run
    /// recorded it); left out of summary.json when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub span_is_file: bool,
    /// The target's size (the drive's capacity, the file's size) where the span is all of it
    /// but the part of a block at its end (a 134,000,000-byte file written in 1 MiB blocks: a
    /// 133,169,152-byte span); left out of summary.json otherwise. The words that call the
    /// span "the whole file" give both figures where they differ
    /// ([`Coverage::whole_target_figures`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bytes: Option<u64>,
    /// True when the run wrote at least the whole span.
    pub whole_span: bool,
    /// True when the early stop ended the run (the cliff was confirmed).
    pub stopped_early: bool,
    /// Bytes written in the samples after the last cliff (`null` without a cliff): those of "after the
    /// cache" ([`super::after_cache::AfterCache::bytes`], from the first whole sample after
    /// the cliff), the figure every output gives.
    pub bytes_after_last_cliff: Option<u64>,
    /// The mean rate over those bytes, bytes/s: what the run saw after the last cliff, not a
    /// sustained speed unless the run wrote the whole span. Time in thermal throttling is left
    /// out, as "after the cache" leaves it out (`AfterCache::mean_bytes_per_sec`).
    pub after_last_cliff_bytes_per_sec: Option<f64>,
    /// With the whole span written: the span over the time its first pass took, bytes/s (the
    /// whole-drive-fill average reviewers publish).
    pub whole_fill_bytes_per_sec: Option<f64>,
    /// The run did not write the whole span and the level after its last cliff is still at
    /// least [`LATER_TIER_SHARE`] of the in-cache rate: more like a second, slower cache tier
    /// than a drive's native write speed, so a later, slower tier may follow. Never where
    /// that level is thermal throttling to the end of the run: heat's rate is no tier. Why
    /// half: on
    /// most drives of `data/published-drives.csv` the speed after the cache is well under half
    /// the in-cache rate (the QLC drives 3% to 20%, the 980 PRO 38%), while the FX700's
    /// middle tier is 70%. TLC drives whose native speed is above half (the 960 EVO 1TB at
    /// 63%, the SATA 870 EVO at 83%) also get the warning: a false alarm costs one run with
    /// `--cliffs 2`, a missed tier a sustained speed wrong by a factor of 27.
    pub later_tier_possible: bool,
    /// The cliffs the run was asked to wait for (`--cliffs N`), when more than one; absent
    /// from summary.json otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliffs_asked: Option<usize>,
    /// The share of the drive written before the run (`--prefill`), percent; absent from
    /// summary.json when there was none. A run over the whole drive without a cliff then
    /// says no *free* cache ran out: the prefill may have left the cache full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_pct: Option<f64>,
}

impl Coverage {
    /// The span as "the whole drive" or "the whole file" gives it, in brackets: `(134 MB)`,
    /// or where the target's size shows another figure, both, `(133 MB of its 134 MB, in
    /// whole blocks)`, so that the size `runs` and the report's drive line give is not
    /// contradicted.
    pub fn whole_target_figures(&self, units: crate::units::UnitSystem) -> String {
        let span = crate::units::format_bytes(self.span_bytes as f64, units);
        match self
            .target_bytes
            .map(|t| crate::units::format_bytes(t as f64, units))
        {
            Some(target) if target != span => format!("({span} of its {target}, in whole blocks)"),
            _ => format!("({span})"),
        }
    }

    /// Whether [`Coverage::whole_target_figures`] gives two figures: the span said as the
    /// target's size would not be the size shown for the target.
    pub fn span_shows_short_of_target(&self, units: crate::units::UnitSystem) -> bool {
        self.whole_target_figures(units).contains(" of its ")
    }
}

/// A temporary slowdown: the throughput fell and later came back to the level before it,
/// and the low stretch was neither at the level the drive sustains after its last cliff nor
/// deep and long (see [`CacheReturn`]): a garbage-collection dip or a host hiccup, not the
/// cache running out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slowdown {
    /// When it started, seconds since the start of the run.
    pub t_s: f64,
    /// How long it lasted, seconds.
    pub duration_s: f64,
    /// Bytes written during it.
    pub bytes: u64,
    /// Bytes written before it started.
    pub bytes_before: u64,
    /// Mean throughput before it, bytes/s.
    pub before_bytes_per_sec: f64,
    /// Mean throughput during its lowest stretch, bytes/s.
    pub low_bytes_per_sec: f64,
    /// The drop into it was thermal throttling (the drive's thermal-management counters rose,
    /// or the drive was at its hottest): heat, not garbage collection or the host. Absent
    /// from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thermal: bool,
    /// A thermal slowdown the heat came and went in, as [`Throttled::on_and_off`] says of a
    /// stretch: its mean blends throttled and full-speed time, and its phase is "thermal
    /// throttling, on and off". Absent from the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_and_off: bool,
}

/// The cache came back while the drive was written: after a low stretch that was the cache
/// running out (it sat at the level the drive sustains after its last cliff, or it was deep,
/// under [`DEEP_SHARE`](super::DEEP_SHARE) of the rate before it, and longer than [`DEEP_LONG_S`](super::DEEP_LONG_S)), the rate
/// returned to the cache's level. A dynamic SLC cache does this: the drive frees SLC while it
/// is still being written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheReturn {
    /// When the rate came back, seconds since the start of the run.
    pub t_s: f64,
    /// Bytes written before it came back.
    pub bytes_before: u64,
    /// Bytes written at the higher rate before the next cliff (or the end of the run).
    pub bytes: u64,
    /// How long the higher rate lasted, seconds.
    pub duration_s: f64,
    /// Mean throughput while it lasted, bytes/s.
    pub bytes_per_sec: f64,
    /// Mean throughput of the low stretch before it, bytes/s.
    pub low_bytes_per_sec: f64,
    /// Whether the cache ran out again (a cliff ends it) rather than the run ending.
    pub ran_out_again: bool,
}

/// True when phase `p` of `a` lies inside a slowdown that was thermal throttling: the drive
/// slowed for heat there, so it is no "after the cache" level.
pub fn is_throttled(a: &Analysis, p: &Phase) -> bool {
    a.slowdowns
        .iter()
        .any(|s| s.thermal && p.start_s >= s.t_s - 1e-6 && p.end_s <= s.t_s + s.duration_s + 1e-6)
        || a.throttled
            .iter()
            .any(|s| p.start_s >= s.from_s - 1e-6 && p.end_s <= s.to_s + 1e-6)
}

/// Whether phase `p` of `a` is thermal throttling that began inside the run's last sample
/// and is that sample alone ([`Phase::rate_at_most`]): part of the sample ran at the level
/// before the heat, so the sample's rate, the phase's mean, is a bound on the heat's rate,
/// not that rate (at 30 s
/// samples a last sample of 825 MB/s, 997 MB/s before it, read "thermal throttling: 825
/// MB/s" where the drive throttled to about 495). Every output gives it as "at most".
pub fn rate_at_most(a: &Analysis, p: &Phase) -> bool {
    p.rate_at_most && p.range_bytes_per_sec.is_none() && is_throttled(a, p)
}

/// Whether phase `p` lies in a stretch of throttling the heat came and went in
/// ([`Throttled::on_and_off`]): its mean blends throttled and unthrottled samples.
pub fn is_on_and_off(a: &Analysis, p: &Phase) -> bool {
    a.throttled
        .iter()
        .any(|t| t.on_and_off && p.start_s >= t.from_s - 1e-6 && p.end_s <= t.to_s + 1e-6)
        || a.slowdowns.iter().any(|s| {
            s.thermal
                && s.on_and_off
                && p.start_s >= s.t_s - 1e-6
                && p.end_s <= s.t_s + s.duration_s + 1e-6
        })
}

/// The stretches of thermal throttling the analysis found, (start s, end s) in time order:
/// each thermal slowdown and each throttled stretch ([`Analysis::throttled`]), those that
/// touch or overlap joined into one. These, and only
/// these, are what its warnings name as heat, what "after the cache" leaves out, and what the
/// charts mark as throttled.
pub fn throttled_spans(a: &Analysis) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = a
        .slowdowns
        .iter()
        .filter(|s| s.thermal)
        .map(|s| (s.t_s, s.t_s + s.duration_s))
        .chain(a.throttled.iter().map(|s| (s.from_s, s.to_s)))
        .collect();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Stretches that touch or overlap are one: the heat a cache ran out under is held as the
    // heat's stretch and the one after the drop, and the card listed the drop as a start of
    // heat of its own ("from 64 s, 84 s, ...").
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(v.len());
    for (from, to) in v {
        match out.last_mut() {
            Some(last) if from <= last.1 + 1e-6 => last.1 = last.1.max(to),
            _ => out.push((from, to)),
        }
    }
    out
}

/// Whether time `t` (seconds) lies in a stretch of thermal throttling ([`throttled_spans`]).
pub fn throttled_at(a: &Analysis, t: f64) -> bool {
    throttled_spans(a)
        .iter()
        .any(|&(from, to)| t >= from && t <= to)
}
