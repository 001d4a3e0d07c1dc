//! Change-point detection: finds the cliff(s) in a timeline and estimates the cache size.
//!
//! Pure: no I/O, no clock. `probe` and `analyze` both call [`analyze`], so a saved timeline
//! re-analyzed gives the same answer as the live run.
//!
//! The pipeline (`docs/DESIGN.md`, with the additions marked +):
//! 1. work on ln(throughput), so that a relative drop is a shift;
//! 2. block medians over blocks longer than twice the longest GC dip (3 s), keeping at least
//!    60 and at most 4000 blocks (+ the cap keeps PELT fast on very long runs); + when the
//!    60-block floor makes blocks shorter than that, a running median over the blocks, wider
//!    than twice a dip, removes the dips instead;
//! 3. noise scale sigma = 1.4826 MAD(first differences) / sqrt(2);
//! 4. exact PELT ([`pelt`]) with an O(1) L2 cost, penalty 3 sigma^2 ln(n);
//! 5. spurious changes removed until none is left: excursions (+ a run of short segments that
//!    leaves one level and returns to it loses all its boundaries), too-short segments merged
//!    into the closer neighbour, steps under 10% merged, at most 12 changes (+ enough for a
//!    drive that cycles between throttled levels); + then a cache phase of a few samples at
//!    the very start (too short for the blocks and the dip filter, and with no left
//!    neighbour it is no excursion) is split off when the level after it lasts longer than a
//!    dip and the run does not soon return to it (+ a stall inside it, no longer than a dip,
//!    after which the rate comes back to its level, does not end it; + a start-up burst of a
//!    few samples above a level that later falls more than twice as far, and stays down, does
//!    not end it either; + a slow phase that swings widely does not hide it: when the run's
//!    noise scale finds nothing, that of its first samples is tried for a clear fall;
//!    + a first sample far above a level of a few samples before a later, smaller fall is
//!      split off: the cache ran out inside it);
//! 6. every change refined at full resolution ([`refine`]): a posterior over its position
//!    with Student-t likelihoods, + GC dips modelled as events (a run of low samples costs one
//!    dip, not one outlier per sample), a straddling sample giving a sub-sample position,
//!    and + the levels on either side read beyond the window, or from the whole neighbouring
//!    segment when the window reaches (nearly) to its end;
//! 7. cache size = bytes written up to the first cliff from the byte counter, interpolated
//!    inside the straddling sample; the 95% interval maps to low/high bytes.
//!
//! A cliff is a lasting drop: the first drop, and later drops to a new lowest level that the
//! run never recovers from (a further, slower phase: folding). A rise, a drop after a
//! recovery that stays above the trough seen before, and a drop the run later climbs back
//! from (thermal throttling cycles) are not cliffs; they are post-cache phases and earn a
//! warning that the post-cache level is unstable. (+) Except when the low stretch before the
//! climb back was the cache running out ([`CacheReturn`]: at the level the drive sustains
//! after its last cliff, or deep and long): then the drop is a cliff, the climb back is the
//! cache returning while the drive is written, and the next drop is a cliff again.
//!
//! (+) With no cliff, a drop seen but too short to confirm (one high first sample, a short
//! high start or a low stretch at the end, either no longer than a dip) changes the lower bound to the bytes written
//! before it, with a warning: "the cache is at least all that was written" would be wrong.
//! [`synth`] generates traces with known truth for tests.

pub mod after_cache;
mod cell_bound;
mod cleanup;
mod cliffs;
mod coverage;
pub mod drive;
pub mod findings;
mod levels;
mod likelihood;
pub mod pelt;
pub mod periodic;
#[cfg(test)]
mod reference_tests;
pub mod refine;
mod sentences;
mod stats;
pub mod stop;
#[cfg(any(test, feature = "synth"))]
pub mod synth;
mod thermal;
mod types;
mod warning;
mod warnings;

pub use cliffs::{DEEP_LONG_S, DEEP_SHARE};
pub use coverage::coverage;
pub use findings::{AfterCaveats, Findings};
pub use sentences::{
    after_cache_definition, after_drop_text, after_last_cliff_text, coverage_text,
    first_sample_drop_text, hidden_cache_text, hidden_tier_text, no_cliff_text, no_cliff_text_of,
    read_only_text, returns_text, span_parts, span_text, throttled_rates_text,
    unconfirmed_drop_text, whole_drive_hidden_text, whole_drive_no_cliff_text,
};
pub use types::{
    is_on_and_off, is_throttled, rate_at_most, throttled_at, throttled_spans, Analysis,
    CacheEstimate, CacheReturn, Cliff, Coverage, DropWhere, HiddenCache, Phase, PhaseKind,
    Slowdown, Throttled, UnconfirmedDrop, LATER_TIER_SHARE,
};
pub use warning::{Warning, WarningKind};
pub use warnings::CPU_BOUND_PCT;

/// The smallest SLC cache of the drives in data/published-drives.csv (the static caches of
/// the Samsung 970 EVO 250GB and 500GB, and the Kingston HyperX Fury RGB 480GB: 4 GB). A
/// cache a coarse first sample could hide is said only where it could be at least this large
/// ([`Analysis::first_sample_hides`]).
pub const SMALLEST_PUBLISHED_CACHE_BYTES: f64 = 4e9;

use crate::timeline::Timeline;
use crate::units::{format_bytes, format_rate, UnitSystem};
use cleanup::{clean, high_start, HighStart};
use cliffs::{classify_drops, drop_periodic_cliffs, Drops};
use levels::{diff_noise, local_level, mean_rate, Columns, Seg, Work};
use sentences::finer_sampling;
use stats::{mad_scale, mad_scale_about, median, running_median, upper_median};
use warnings::{
    cpu_bound_warnings, later_tier_warning, thermal_warnings, unconfirmed_drop,
    wrapped_cliff_warning, wrapped_span,
};

pub(crate) use cliffs::MIN_STEP;
pub(crate) use likelihood::MAX_DIP_S;
/// Fewest blocks the block-median series keeps.
const MIN_BLOCKS: usize = 60;
/// Most blocks the block-median series keeps (longer runs get longer blocks).
const MAX_BLOCKS: usize = 4000;

/// All that was written, but at most one pass over the span (or the whole target): a run
/// whose writes wrapped around the span cannot show a cache larger than the span.
fn lower_bound_cap(t: &Timeline) -> u64 {
    t.bytes_total().min(span_of(t).unwrap_or(u64::MAX))
}

/// The warning of a run that ended before any cliff, bounding the cache at `bound` bytes:
/// `wrapped` when the writes went round the span again; `larger` (the way to a larger span)
/// when one pass over a span smaller than the drive, or over a whole file, was written.
/// Writing more over a span already written only wraps, so then the way on is a larger span,
/// not more bytes.
/// An `interrupted` run (Ctrl-C, SIGTERM) says so: it ended before any cliff because it was
/// stopped, not because it had written all it was to write.
fn no_cliff_warning(
    bound: u64,
    wrapped: bool,
    larger: Option<&str>,
    interrupted: bool,
    units: UnitSystem,
) -> Warning {
    let what = if wrapped {
        format!(
            "one pass over the {} span; the writes wrapped around it",
            format_bytes(bound as f64, units)
        )
    } else {
        "all that was written".to_string()
    };
    let more = match (larger, wrapped) {
        (Some(way), _) => format!("write over {way}"),
        (None, true) => "write over a larger span (--span, or the whole drive)".to_string(),
        // `analyze` reads what it is given: the flags are a run's, and a log from another
        // tool needs a longer run of that tool (as `finer_sampling` says of its interval).
        (None, false) => "write more (--max-bytes or --duration on a run of slccache; a log from \
                          another tool needs a longer run)"
            .to_string(),
    };
    let (ended, more) = if interrupted {
        (
            "the run was interrupted before any cliff",
            format!("let a run go to its end, or {more},"),
        )
    } else {
        ("the run ended before any cliff", more)
    };
    Warning::new(
        WarningKind::NoCliff {
            lower_bound_bytes: bound,
            whole_drive: false,
            interrupted,
        },
        format!(
            "{ended}: {} ({what}); if the drive has a cache, it holds at least {}; {more} to \
             find where it ends",
            no_cliff_text(Some(bound), units),
            format_bytes(bound as f64, units),
        ),
    )
}

/// Whether the run was stopped by a signal before its end.
fn interrupted(t: &Timeline) -> bool {
    t.meta.stop_reason == Some(crate::timeline::StopReason::Interrupted)
}

/// One change after refinement.
#[derive(Debug, Clone, Copy)]
struct Change {
    r: refine::Refined,
}

/// Analyses a timeline: finds the cliffs, the phases and the cache size. Pure and
/// deterministic: the same timeline always gives the same analysis. Its warnings give sizes
/// and rates in decimal units ([`analyze_in`] takes others).
pub fn analyze(t: &Timeline) -> Analysis {
    analyze_in(t, UnitSystem::Decimal)
}

/// [`analyze`], with the sizes and rates in the warnings' words in `units` (a run's
/// `--units`), so that no output of a binary-unit run gives a figure in decimal ones.
pub fn analyze_in(t: &Timeline, units: UnitSystem) -> Analysis {
    let (mut a, cols) = analyze_timeline(t, units);
    a.coverage = coverage(t, &a);
    a.after_cache = after_cache::after_cache_in(t, &a, &cols);
    after_cache::mark_swings(t, &mut a);
    after_cache::mark_ranges(t, &mut a);
    restate_slowdowns_over_ranges(&mut a, units);
    a.warnings.extend(after_cache::end_drop(t, &a, units));
    // The swing's warning gives the range its phase is quoted by everywhere (it read its
    // segment's samples, "577 MB/s and 1193 MB/s", beside "575 MB/s to 1195 MB/s").
    for i in 0..a.warnings.len() {
        if let WarningKind::UnsteadyAfterCache {
            swings_at_s: Some(at),
        } = a.warnings[i].kind
        {
            let range = a
                .phases
                .iter()
                .find(|p| (p.start_s - at).abs() < 1e-9)
                .and_then(|p| p.range_bytes_per_sec);
            if let Some((lo, hi)) = range {
                a.warnings[i].text = swing_warning_text(lo, hi, units);
            }
        }
    }
    // The bytes and the rate after the last cliff are those of "after the cache": from the
    // first whole sample after the cliff, thermal throttling left out of the rate.
    // summary.json gave 829 MB/s beside the 985 MB/s every output states, and 18.44 GB
    // (from the cliff's own byte) beside the 17.98 GB the terminal said.
    if let (Some(c), Some(ac)) = (a.coverage.as_mut(), &a.after_cache) {
        if c.after_last_cliff_bytes_per_sec.is_some() {
            c.after_last_cliff_bytes_per_sec = Some(ac.mean_bytes_per_sec);
            c.bytes_after_last_cliff = Some(ac.bytes);
        }
    }
    // A run that stopped before the end of the span saw the folding rate only over what it
    // wrote: it does not know that it lasts.
    // A run whose span is not known (a timeline read without its summary.json) does not know
    // either.
    // Nor does one whose stretch after the folding cliff was too short to judge: "sustained
    // speed is this" stood beside "too short after it to tell whether it is steady" of the
    // same 397 MB/s (`simulate a2000-1tb --interval 4m --cliffs 2`).
    let too_short = a
        .after_cache
        .as_ref()
        .is_some_and(|x| x.steady_state.is_none());
    if !a.coverage.as_ref().is_some_and(|c| c.whole_span) || too_short {
        let why = if a.coverage.as_ref().is_some_and(|c| c.whole_span) {
            "too short after it to tell whether it is steady"
        } else if a.coverage.is_some() {
            "the run did not write the whole span"
        } else {
            "how much of the drive the run wrote is not known"
        };
        for w in &mut a.warnings {
            if let WarningKind::Folding {
                t_s,
                bytes_per_sec,
                later,
                ..
            } = w.kind
            {
                *w = folding_warning(t_s, bytes_per_sec, Some(why), later, units);
            }
        }
    }
    // A run that wrote the whole drive without a cliff cannot be told to write more, and no
    // cache larger than the drive exists.
    if let Some(c) = a
        .coverage
        .as_ref()
        .filter(|c| c.whole_span && c.span_is_drive)
    {
        if a.cliffs.is_empty() && a.unconfirmed_drop.is_none() {
            let text = match &a.first_sample_hides {
                Some(h) => whole_drive_hidden_text(c.span_bytes, c.prefill_pct, h, units),
                None => whole_drive_no_cliff_text(c.span_bytes, c.prefill_pct, units),
            };
            for w in &mut a.warnings {
                if let WarningKind::NoCliff {
                    lower_bound_bytes,
                    interrupted,
                    ..
                } = w.kind
                {
                    *w = Warning::new(
                        WarningKind::NoCliff {
                            lower_bound_bytes,
                            whole_drive: true,
                            interrupted,
                        },
                        format!("the run ended before any cliff: {text}"),
                    );
                }
            }
        }
    }
    // A run that wrote its whole span cannot be told to run for longer: too few samples of
    // it are mended by sampling more often (or by a larger span), as a longer run would only
    // wrap round it ("only 3 samples ... run for longer" after one pass over a 5 GB span).
    if let Some(c) = a.coverage.as_ref().filter(|c| c.whole_span) {
        let larger = if c.span_is_drive {
            ""
        } else if c.span_is_file {
            ", or write to a larger file (--size)"
        } else {
            ", or write a larger span (--span, or the whole drive)"
        };
        let whole = if c.span_is_drive {
            "the whole drive"
        } else if c.span_is_file {
            "the whole file"
        } else {
            "the whole span"
        };
        for w in &mut a.warnings {
            if let WarningKind::TooFewSamples { samples: n } = w.kind {
                *w = Warning::new(
                    w.kind.clone(),
                    format!(
                        "only {n} sample{}: too few to find a cliff; the run wrote {whole}, so \
                         a longer run would only write it again: sample more often \
                         (--interval){larger}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
            }
        }
    }
    // One pass over a span smaller than the drive, without a cliff: more bytes would only
    // wrap round it.
    if let Some(c) = a
        .coverage
        .as_ref()
        .filter(|c| c.whole_span && !c.span_is_drive)
    {
        if a.cliffs.is_empty() && a.unconfirmed_drop.is_none() {
            let wrapped = c.bytes_written > c.span_bytes;
            let larger = if c.span_is_file {
                "a larger file (--size)"
            } else {
                "a larger span (--span, or the whole drive)"
            };
            for w in &mut a.warnings {
                if let WarningKind::NoCliff {
                    lower_bound_bytes,
                    whole_drive: false,
                    ..
                } = w.kind
                {
                    *w = no_cliff_warning(
                        lower_bound_bytes,
                        wrapped,
                        Some(larger),
                        interrupted(t),
                        units,
                    );
                }
            }
        }
    }
    if let Some(w) = a.coverage.as_ref().and_then(|c| {
        let byte_limit = t.meta.stop_reason == Some(crate::timeline::StopReason::MaxBytes);
        later_tier_warning(&a, c, byte_limit, units)
    }) {
        a.warnings.push(w);
    }
    // A drop inside the first sample bounds all the tiers that ran out in it together, not
    // the cache the run's other figures speak of (its first tier): fx700 at 4 min samples
    // bounded "443 GB to 474 GB" where a 54 GB first tier had run out in that sample. Its
    // bounds are the drop's, and no bound "the cache is at least" is given beside them.
    if a.unconfirmed_drop
        .as_ref()
        .is_some_and(|d| d.at == DropWhere::FirstSample)
    {
        a.cache_lower_bound_bytes = None;
    }
    // A phase in heat is of its own kind, as every output names it; last, so that nothing
    // above took it for a tier.
    let heat: Vec<bool> = a.phases.iter().map(|p| is_throttled(&a, p)).collect();
    for (p, hot) in a.phases.iter_mut().zip(heat) {
        if hot {
            p.kind = PhaseKind::Throttled;
        }
    }
    a
}

/// The warning of a temporary slowdown.
fn slowdown_warning(s: &Slowdown, units: UnitSystem) -> Warning {
    slowdown_warning_over(s, None, units)
}

/// Each slowdown's warning again where a phase inside it is quoted by its range
/// ([`Phase::range_bytes_per_sec`], set after the warnings were worded): its low is the
/// range of the phases inside it, not the mean of one (at 90 s samples "993 MB/s -> 677 MB/s
/// for 180.0 s" beside report.md's "thermal throttling: 525 MB/s to 828 MB/s (not steady)").
fn restate_slowdowns_over_ranges(a: &mut Analysis, units: UnitSystem) {
    for s in a.slowdowns.clone() {
        let inside: Vec<&Phase> = a
            .phases
            .iter()
            .filter(|p| p.start_s >= s.t_s - 1e-6 && p.end_s <= s.t_s + s.duration_s + 1e-6)
            .collect();
        if !inside.iter().any(|p| p.range_bytes_per_sec.is_some()) {
            continue;
        }
        let lo = inside
            .iter()
            .map(|p| p.range_bytes_per_sec.map_or(p.mean_bytes_per_sec, |r| r.0))
            .fold(f64::INFINITY, f64::min);
        let hi = inside
            .iter()
            .map(|p| p.range_bytes_per_sec.map_or(p.mean_bytes_per_sec, |r| r.1))
            .fold(0.0, f64::max);
        let w = slowdown_warning_over(&s, Some((lo, hi)), units);
        for old in a.warnings.iter_mut() {
            if matches!(old.kind, WarningKind::Slowdown { t_s, .. } if t_s == s.t_s) {
                *old = w.clone();
            }
        }
    }
}

/// [`slowdown_warning`], its low given as `range` where the phases inside it are not one rate.
fn slowdown_warning_over(s: &Slowdown, range: Option<(f64, f64)>, units: UnitSystem) -> Warning {
    // A fall to (nearly) nothing is a stall, as the stall warning calls one: the drive or the
    // host stopped, and the bytes of its edges ("15.0 s (2.41 kB)") are no figure of it.
    if !s.thermal && s.low_bytes_per_sec <= warnings::STALLED_SHARE * s.before_bytes_per_sec {
        return Warning::new(
            WarningKind::Slowdown {
                t_s: s.t_s,
                thermal: false,
            },
            format!(
                "a stall at {:.1} s (after {}): {} -> {} for {:.1} s, then back; the drive or the \
                 host stopped completing writes, not the cache running out, so it is not a cliff",
                s.t_s,
                format_bytes(s.bytes_before as f64, units),
                format_rate(s.before_bytes_per_sec, units),
                format_rate(s.low_bytes_per_sec, units),
                s.duration_s,
            ),
        );
    }
    let why = if s.thermal && s.on_and_off {
        "thermal throttling that came and went faster than the samples, so its rate is a mean \
         of throttled and full-speed time (see the thermal warning), not the cache running out, \
         so it is not a cliff"
    } else if s.thermal {
        "thermal throttling (see the thermal warning), not the cache running out, so it is not \
         a cliff"
    } else {
        // A slowdown beside the warning that the level after the cache is unsteady ("the
        // drive may be recovering or throttling") named only garbage collection or the host.
        "garbage collection, throttling or a host hiccup; not the cache running out, since the \
         rate came back, so it is not a cliff"
    };
    Warning::new(
        WarningKind::Slowdown {
            t_s: s.t_s,
            thermal: s.thermal,
        },
        format!(
            "a temporary slowdown at {:.1} s (after {}): {} -> {} for {:.1} s ({}), then back; \
             {why}",
            s.t_s,
            format_bytes(s.bytes_before as f64, units),
            format_rate(s.before_bytes_per_sec, units),
            match range {
                Some((lo, hi)) => format!(
                    "{} to {} (not steady)",
                    format_rate(lo, units),
                    format_rate(hi, units)
                ),
                None => format_rate(s.low_bytes_per_sec, units),
            },
            s.duration_s,
            format_bytes(s.bytes as f64, units),
        ),
    )
}

/// A drop inside the first sample where the drive's thermal-management counters rose inside
/// that sample: the drop may be the heat's, and the cache may have run out later, under it
/// (`simulate 'p5-1tb,heat=0.5' --pattern seqwrite --interval 30s`: the heat from 26 s, the
/// cache of 100 GB out at 74 s, read "a cache of 26.0 GB to 56.1 GB if it was the cache
/// running out"). The drop is marked ([`UnconfirmedDrop::heat_in_first_sample`]), so that
/// every output bounds the cache from below only, and its warning says why.
fn heat_in_the_first_sample(
    samples: &[crate::timeline::Sample],
    a: &mut Analysis,
    units: UnitSystem,
) {
    let rose = samples
        .first()
        .and_then(|s| s.thermal_transitions)
        .is_some_and(|c| c > 0);
    let Some(d) = a
        .unconfirmed_drop
        .as_mut()
        .filter(|d| rose && d.at == DropWhere::FirstSample && !d.after_is_floor)
    else {
        return;
    };
    d.heat_in_first_sample = true;
    // The warning said anew: its bounds took the level after the drop for the cache's.
    let text = format!(
        "the first sample ({}) is {:.1}x the level after it ({}), and the drive's \
         thermal-management counters rose inside it: the drop may be the heat's, and the cache \
         may have run out before it or later, under the heat, so the run gives no cache size \
         (at most {} if it ran out inside that sample); cool the drive (or let it idle) and {} \
         to see it",
        format_rate(d.before_bytes_per_sec, units),
        d.before_bytes_per_sec / d.after_bytes_per_sec.max(1.0),
        format_rate(d.after_bytes_per_sec, units),
        format_bytes(d.before_bytes_per_sec * d.interval_s, units),
        sentences::finer_sampling(d.interval_s),
    );
    for w in a
        .warnings
        .iter_mut()
        .filter(|w| matches!(w.kind, WarningKind::UnconfirmedDrop))
    {
        w.text = text.clone();
    }
}

/// A slowdown after a drop inside the first sample, whose level before it was taken from a
/// phase that blends both levels of that drop (1134 MB/s, where the samples before the
/// slowdown held 993): its level before is the level after the drop, and its warning says so.
fn restate_slowdowns_after_a_first_sample_drop(a: &mut Analysis, units: UnitSystem) {
    let Some(d) = a
        .unconfirmed_drop
        .clone()
        .filter(|d| d.at == DropWhere::FirstSample && !d.after_is_floor)
    else {
        return;
    };
    let blended = |t_s: f64| {
        a.phases.iter().any(|p| {
            p.start_s <= d.t_s + 1e-6 && p.end_s >= t_s - 1e-6 && p.end_s > d.t_high_s + 1e-6
        })
    };
    let at: Vec<f64> = a
        .slowdowns
        .iter()
        .filter(|s| s.t_s >= d.t_high_s - 1e-6 && blended(s.t_s))
        .map(|s| s.t_s)
        .collect();
    for s in a.slowdowns.iter_mut().filter(|s| at.contains(&s.t_s)) {
        s.before_bytes_per_sec = d.after_bytes_per_sec;
        let w = slowdown_warning(s, units);
        for old in a.warnings.iter_mut() {
            if matches!(old.kind, WarningKind::Slowdown { t_s, .. } if t_s == s.t_s) {
                *old = w.clone();
            }
        }
    }
}

/// [`analyze`] without the coverage.
fn analyze_timeline(t: &Timeline, units: UnitSystem) -> (Analysis, Columns) {
    // A run that only reads is analysed on its reads.
    let read_only = t.bytes_total() == 0 && t.has_reads();
    let t = t.primary();
    let cols = Columns::of(&t.samples);
    let mut a = analyze_levels(&t, &cols, units);
    restate_slowdowns_after_a_first_sample_drop(&mut a, units);
    heat_in_the_first_sample(&t.samples, &mut a, units);
    if read_only {
        // Reads say nothing of a write cache: the cliffs stay (a fall in the read rate), the
        // cache size and its bound go.
        a.read_only = true;
        a.cache_estimate = None;
        a.cache_lower_bound_bytes = None;
        a.returns.clear();
        a.unconfirmed_drop = None;
        // Keep what holds for any series (too few samples, slowdowns, stalls); drop what
        // speaks of the cache and of the levels after it.
        a.warnings.retain(Warning::holds_for_reads);
    }
    if let Some(p) = periodic::find_in(&t.samples, &cols.rate) {
        drop_periodic_cliffs(&mut a, &p, &t, &cols);
        a.warnings
            .push(Warning::new(WarningKind::Periodic, p.describe()));
        a.periodic = Some(p);
    }
    mark_heat(&mut a, &t.samples, &cols);
    // From the rate column: a pass over the samples themselves costs 10 ms at 1M samples.
    let dips = warnings::short_dips(&a, &t.samples, &cols.rate, units);
    a.warnings.extend(dips);
    a.warnings
        .extend(warnings::spikes(&t.samples, &cols.rate, units));
    a.warnings.extend(warnings::rises(&a, units));
    if !a.read_only {
        a.warnings
            .extend(warnings::gradual_fall(&a, &t.samples, &cols, units));
    }
    (a, cols)
}

/// Marks each level of a run without a cliff, outside thermal throttling, whose whole samples
/// saw the drive's thermal-management counters rise ([`Phase::heat`]): after a thermal slowdown the run's
/// level may hold further, shorter episodes of heat that no stretch of throttling keeps
/// (`simulate p5-1tb --interval 90s --seed 1`: the counters rose three more times after the
/// slowdown that came back, in samples at 617 MB/s and 498 MB/s against 993 MB/s before it).
fn mark_heat(a: &mut Analysis, samples: &[crate::timeline::Sample], cols: &Columns) {
    if !cols.thermal || !cols.ordered {
        return;
    }
    for i in 0..a.phases.len() {
        let p = &a.phases[i];
        if p.kind != PhaseKind::Steady || is_throttled(a, p) {
            continue;
        }
        let from = samples.partition_point(|s| s.t_start_s() < p.start_s - 1e-6);
        let to = samples.partition_point(|s| s.t_s <= p.end_s + 1e-6);
        a.phases[i].heat = thermal::counters_rose(samples, cols, from, to);
    }
    // Said where the heat is warned of: the stretches whose means hold heat, which the
    // throughput's falls the thermal warning lists need not cover.
    // Heated phases next to each other are one stretch.
    let mut joined: Vec<(f64, f64)> = Vec::new();
    for p in a.phases.iter().filter(|p| p.heat) {
        match joined.last_mut() {
            Some(last) if (last.1 - p.start_s).abs() < 1e-6 => last.1 = p.end_s,
            _ => joined.push((p.start_s, p.end_s)),
        }
    }
    // The drops the thermal warning names as heat: a stretch whose every rise came with one
    // of them rose at no further time, and is said to hold that heat, not to have risen "as
    // well" (`simulate 'p5-1tb,heat=0.5' --interval 30s --seed 1`: "the counters rose
    // inside 0.0 s to 72.9 s as well" of the one rise the warning had named with the drop
    // inside the first sample).
    let mut named: Vec<f64> = throttled_spans(a).iter().map(|s| s.0).collect();
    if let Some(d) = a
        .unconfirmed_drop
        .as_ref()
        .filter(|d| d.at == DropWhere::FirstSample && d.heat_in_first_sample)
    {
        named.push(d.t_s);
    }
    let count_at = |end: usize| thermal::count_at(samples, end);
    let rises_named = |from_s: f64, to_s: f64| {
        let from = samples.partition_point(|s| s.t_start_s() < from_s - 1e-6);
        let to = samples.partition_point(|s| s.t_s <= to_s + 1e-6);
        (from..to)
            .filter(|&i| count_at(i + 1) > count_at(i))
            .all(|i| {
                // The rise's own sample or the next holds a named drop.
                let end = samples.get(i + 1).map_or(samples[i].t_s, |s| s.t_s);
                named
                    .iter()
                    .any(|&t| t >= samples[i].t_start_s() - 1e-6 && t <= end + 1e-6)
            })
    };
    let span_text = |&(from, to): &(f64, f64)| {
        format!(
            "{} to {}",
            crate::units::format_time_point(from),
            crate::units::format_time_point(to)
        )
    };
    let (old, new): (Vec<_>, Vec<_>) = joined
        .iter()
        .copied()
        .partition(|&(from, to)| rises_named(from, to));
    let mut parts = Vec::new();
    if !new.is_empty() {
        parts.push(format!(
            "the drive's thermal-management counters rose inside {} as well: the mean rates of \
             those stretches hold heat",
            new.iter().map(span_text).collect::<Vec<_>>().join(", ")
        ));
    }
    if !old.is_empty() {
        parts.push(format!(
            "the mean rate of {} holds that heat",
            old.iter()
                .map(span_text)
                .collect::<Vec<_>>()
                .join(" and of ")
        ));
    }
    // With no thermal warning, heat named with a drop inside the first sample alone is that
    // drop's warning's to say, and the phase that holds it is given by its two levels, not a
    // mean: "thermal throttling: the mean rate of 0.0 s to 240.0 s holds that heat" stood
    // alone, of a heat no sentence named and a mean no output gave (`simulate
    // 'p5-1tb,heat=0.5' --interval 1m`).
    let has_thermal = a
        .warnings
        .iter()
        .any(|w| matches!(w.kind, WarningKind::Thermal { .. }));
    let heat_in_first = a
        .unconfirmed_drop
        .as_ref()
        .is_some_and(|d| d.at == DropWhere::FirstSample && d.heat_in_first_sample);
    if !has_thermal && new.is_empty() && heat_in_first {
        return;
    }
    if parts.is_empty() {
        return;
    }
    let more = parts.join("; ");
    match a
        .warnings
        .iter_mut()
        .find(|w| matches!(w.kind, WarningKind::Thermal { .. }))
    {
        Some(w) => {
            w.text.push_str("; ");
            w.text.push_str(&more);
        }
        None => a.warnings.push(Warning::new(
            WarningKind::Thermal {
                at_cache_cliff_s: None,
            },
            format!("thermal throttling: {}", more.replacen(" as well", "", 1)),
        )),
    }
}

/// The samples wholly inside `[from_s, to_s]` (time-ordered samples: a slice, not a pass
/// over the run for each stretch).
fn whole_samples(
    samples: &[crate::timeline::Sample],
    from_s: f64,
    to_s: f64,
) -> &[crate::timeline::Sample] {
    let from = samples.partition_point(|s| s.t_start_s() < from_s - 1e-9);
    let to = samples.partition_point(|s| s.t_s <= to_s + 1e-9);
    &samples[from..to.max(from)]
}

/// Whether the heat came and went inside the stretch `from_s..to_s` of throttling after a
/// level of `before` bytes/s: a whole sample inside it read back at that level (within a
/// step), or the drive's counters rose in three or more of its samples, the heat coming and
/// going faster than the samples so that each blends throttled and full-speed time
/// (`'p5-1tb,hysteresis=0.5'` at 45 s samples: 17 rises in 15 samples at 746 to 815 MB/s,
/// the drive throttling to about 495, read "thermal throttling: 782 MB/s").
fn heat_on_and_off(
    samples: &[crate::timeline::Sample],
    from_s: f64,
    to_s: f64,
    before: f64,
) -> bool {
    let inside = whole_samples(samples, from_s, to_s);
    let rises = inside
        .windows(2)
        .filter(|w| w[1].thermal_transitions.unwrap_or(0) > w[0].thermal_transitions.unwrap_or(0))
        .count();
    rises >= 3
        || inside.iter().any(|s| {
            s.bytes_per_sec > 0.0
                && before > 0.0
                && (s.bytes_per_sec / before).ln().abs() < MIN_STEP
        })
}

/// The level analysis (cliffs, phases, cache estimate) of a timeline.
fn analyze_levels(t: &Timeline, cols: &Columns, units: UnitSystem) -> Analysis {
    let samples = &t.samples;
    let n = samples.len();
    let interval_s = cols.interval_s();
    let mut out = Analysis {
        bytes_total: t.bytes_total(),
        duration_s: t.duration_s(),
        interval_s,
        cliffs: vec![],
        cache_estimate: None,
        cache_lower_bound_bytes: Some(lower_bound_cap(t)),
        phases: vec![],
        warnings: vec![],
        periodic: None,
        slowdowns: vec![],
        returns: vec![],
        unconfirmed_drop: None,
        read_only: false,
        coverage: None,
        after_cache: None,
        throttled: vec![],
        link_limited: None,
        iops_hid_cache: None,
        wrapped_span_bytes: None,
        emulation_fell_short: false,
        first_sample_hides: None,
    };
    if n < 4 {
        if n > 0 {
            out.phases.push(Phase {
                start_s: samples[0].t_start_s(),
                end_s: t.duration_s(),
                mean_bytes_per_sec: mean_rate(samples, 0, n),
                kind: PhaseKind::Steady,
                heat: false,
                stall: false,
                range_bytes_per_sec: None,
                rate_at_most: false,
            });
        }
        // Too few samples to see a cliff at all: no bound on the cache either.
        out.cache_lower_bound_bytes = None;
        // But three are enough to see a first sample that holds gigabytes over the two after
        // it where those two agree: a cache that ran out inside it, its level held since. At
        // samples of 4 min a 250 GB drive's whole run is four samples, and the early stop,
        // which reads the run so far, saw nothing until the run had written the whole drive.
        // Not where the drive's counters rose: heat may be the drop, or be in the level after
        // it, which four samples or more tell apart.
        let held = n == 3
            && !thermal::counters_rose(samples, cols, 0, n)
            && samples[1].bytes_per_sec > 0.0
            && (samples[2].bytes_per_sec / samples[1].bytes_per_sec)
                .ln()
                .abs()
                < 0.5 * MIN_STEP;
        // The level is the faster of the two, so that the bound is the smaller (as the first
        // burst of `recovery` bounds it: 16.2 GB, not 16.5 GB, of 35.6 GB over 624 and 647
        // MB/s).
        if let Some((bound, text, drop)) = held
            .then(|| {
                let level = samples[1].bytes_per_sec.max(samples[2].bytes_per_sec);
                first_sample_over(samples, level, 0.0, units)
            })
            .flatten()
        {
            out.cache_lower_bound_bytes = Some(bound.round().max(0.0) as u64);
            out.warnings
                .push(Warning::new(WarningKind::UnconfirmedDrop, text));
            out.unconfirmed_drop = Some(drop);
        }
        out.warnings.push(Warning::new(
            WarningKind::TooFewSamples { samples: n },
            format!(
                "only {n} sample{}: too few to find a cliff; sample more often or run for \
                 longer",
                if n == 1 { "" } else { "s" }
            ),
        ));
        if cols.cpu {
            out.warnings
                .extend(cpu_bound_warnings(samples, &out.phases));
        }
        return out;
    }
    // 1. Log scale, with a floor for stalled intervals.
    let floor = (1e-3 * upper_median(&cols.rate)).max(1.0);
    let x: Vec<f64> = cols.rate.iter().map(|r| r.max(floor).ln()).collect();
    // 2. Block medians over blocks longer than twice the longest dip, keeping >= 60 blocks.
    let dt = interval_s.max(1e-9);
    let b_dip = (2.0 * MAX_DIP_S / dt).floor() as usize + 1;
    // At most MAX_BLOCKS blocks: PELT slows down on long stretches without a change.
    let b = b_dip.min(n / MIN_BLOCKS).max(n.div_ceil(MAX_BLOCKS)).max(1);
    let m = n / b;
    let mut w = Work {
        samples,
        cols,
        x,
        b,
        y: Vec::with_capacity(m),
        levels: Default::default(),
        means: Default::default(),
        interrupted: interrupted(t),
    };
    for k in 0..m {
        let s = k * b;
        let e = if k + 1 == m { n } else { (k + 1) * b };
        w.y.push(median(&w.x[s..e]));
    }
    // 3. Noise scale from first differences.
    let diffs: Vec<f64> = w.y.windows(2).map(|p| p[1] - p[0]).collect();
    let sigma = (mad_scale(&diffs) / std::f64::consts::SQRT_2).max(1e-3);
    // Blocks shorter than twice the longest dip (short runs) do not remove dips: a running
    // median over the blocks, wider than twice a dip, does.
    let block_s = b as f64 * dt;
    let h = if block_s < 2.0 * MAX_DIP_S {
        ((MAX_DIP_S + 2.0 * dt) / block_s).ceil() as usize
    } else {
        0
    };
    let filtered = if h > 0 {
        running_median(&w.y, h)
    } else {
        w.y.clone()
    };
    // 4. Exact PELT with an MBIC-like penalty.
    let penalty = 3.0 * sigma * sigma * (m as f64).ln();
    let min_len = if b >= 3 { 1 } else { 2 };
    let cps = pelt::pelt(&filtered, penalty, min_len);
    let mut bounds = vec![0usize];
    for c in cps {
        bounds.push(w.block_range(c).0);
    }
    bounds.push(n);
    let segs: Vec<Seg> = bounds.windows(2).map(|p| w.seg(p[0], p[1])).collect();
    // 5. Remove spurious changes.
    let segs = clean(&w, segs);
    // 5a. Each stretch of thermal throttling the drive's counters mark is a segment of its
    //     own, also where the clean-up took it for dips (coarse sampling).
    let segs = thermal::keep_counter_windows(&w, segs);
    // 5a'. A level of a few samples right before such a stretch is a segment of its own: the
    //      block medians are longer than it.
    let mut segs = thermal::split_level_before_heat(&w, segs);
    let sigma_x = diff_noise(&w.x);
    // 5b. A short cache phase at the very start: too short for the block medians and the
    //     dip filter, and with no left neighbour it is no excursion. It is a phase when the
    //     level after it lasts longer than any dip.
    let start = high_start(&w, &segs, sigma_x);
    // Where the level before the first change is measured from (after a ramp-up sample).
    let mut first_level_from = 0;
    if let Some(hs) = start.filter(|h| h.run >= 2 && h.lasting) {
        let s0 = segs[0];
        let cache = Seg {
            start: s0.start,
            end: hs.cut,
            level: hs.high,
        };
        segs.splice(0..1, [cache, w.seg(hs.cut, s0.end)]);
        first_level_from = hs.skip;
    }
    // 5c. A first sample far above a level of a few samples before a later, smaller fall:
    //     the cache ran out inside it, and no segment should blend it into a "cache" level.
    if let Some(k) = first_sample_above_level(&w, sigma_x) {
        let mut bounds = vec![0, 1, k];
        bounds.extend(segs.iter().map(|s| s.end).filter(|&e| e > k));
        segs = bounds.windows(2).map(|p| w.seg(p[0], p[1])).collect();
    }
    // 5d. Places on one steady fall after the first fall are one stretch, not tiers.
    let heat_windows = thermal::counter_windows(samples, cols);
    let segs = cleanup::one_fall(&w, segs, &heat_windows);
    // 6. Refine each change at full resolution.
    let scale_floor = (0.5 * sigma_x).max(0.002);
    // The filter can move an edge by up to h blocks when a dip is near it.
    let reach = (h + 1) * b + 2;
    let level_len = (3 * b).max(20).max((4.0 * MAX_DIP_S / dt).ceil() as usize);
    // A change at the start of a stretch of heat the counters mark is the heat's: it lies in
    // the stretch's first sample or after it, not in a faster first sample the window could
    // reach (`simulate p5-1tb --interval 2m --seed 7` placed the heat's drop at 480 s inside
    // the first sample, at 105 s, and took it for the cache's cliff).
    let heat_starts: Vec<usize> = thermal::counter_windows(samples, cols)
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    let mut changes: Vec<Change> = Vec::new();
    for j in 1..segs.len() {
        let (p, q) = (segs[j - 1], segs[j]);
        let c = q.start;
        let mut lo = c.saturating_sub(reach).max(p.start);
        let mut hi = (c + reach).min(q.end);
        if heat_starts.contains(&c) {
            lo = lo.max(c);
            // ... and in that sample: its rate fell below the level, which is why the stretch
            // starts there (`simulate p5-1tb --interval 90s --seed 1` placed the heat of a
            // 617 MB/s sample at 743.3 s, in the next one, where no counter rose, and the heat
            // was no stretch).
            hi = hi.min(c + 1).max(lo + 1);
        }
        let mut a_range = if lo >= p.start + 3 {
            lo.saturating_sub(level_len).max(p.start)..lo
        } else {
            p.start..c
        };
        if j == 1 && a_range.start < first_level_from && first_level_from < a_range.end {
            a_range.start = first_level_from;
        }
        // The level after the change is read beyond the refinement window when enough of the
        // segment lies there; when the window reaches (nearly) to the segment's end, from the
        // whole segment: a partial last sample alone is no level.
        let b_range = if hi + 3 <= q.end {
            hi..(hi + level_len).min(q.end)
        } else {
            c..q.end
        };
        let a_pair = (a_range.len() == 2).then_some(a_range.start);
        let a_alone = (a_range.len() == 1).then_some(a_range.start);
        // A level that swings is read off its whole segment where that is longer than the
        // window and the window read its lower rate: a window reads one turn or two, and the
        // other rate's turn beside the change read as dips of the level across it. A window
        // at the upper rate reads the lower one as dips of its own, as a level with dips is.
        let whole = |r: std::ops::Range<usize>, local: refine::Level| {
            (r.len() > local.n)
                .then(|| levels::swing_level(samples, &w.x, r, scale_floor))
                .flatten()
                .filter(|sw| local.mu < sw.mu)
                .unwrap_or(local)
        };
        let before = whole(p.start..c, local_level(samples, &w.x, a_range, scale_floor));
        let after = whole(c..q.end, local_level(samples, &w.x, b_range, scale_floor));
        // ... but the turn of a swing right before the change is the level the change falls
        // from: read at the swing's middle (or at its upper rate, of which the turn was a
        // dip), its samples half way to the level after (300 MB/s of 900 and 300 MB/s by
        // turns of 5 s, then 150 MB/s) were taken for part of the fall, and the change was
        // put 0.6 s early with an interval that left the truth out (125.0 s to 129.6 s for
        // 130 s).
        let before = levels::turn_before(samples, &w.x, p.start..c, after.mu, hi, scale_floor)
            .unwrap_or(before);
        let mut r = refine::refine(samples, &w.x, lo, hi, before, after);
        // A fall placed after whole samples that all read near the level after it (in the
        // fall's lowest quarter), back to a sample above them: those samples are the level
        // after it, not a dip of the level before that never came back. A level after the change read off samples nearly all alike has a
        // scale near 0, so a few samples a tenth off it right after the change read as such
        // a dip, and the change was placed after them (150 MB/s, then 85, 22, 18.5, 21.5, 19,
        // 20.8, 19.3 and 20 MB/s on: the cliff 1.4 s late, its interval leaving the drop
        // out). The change is then refined again in the window that ends at the first of them.
        if let Some(first) =
            first_of_the_level_after(samples, &w.x, (lo, hi), &r, before, after, q.level)
        {
            // At the level the samples were found near (the higher of the two).
            let after = refine::Level {
                mu: after.mu.max(q.level),
                ..after
            };
            r = refine::refine(samples, &w.x, lo, first + 1, before, after);
        }
        // Two samples are no level to take a rate from: where one of them straddles the
        // change, their median is the middle of the step, and a time worked out at it parts
        // from the bytes (`simulate fx700-2tb --interval 2m`: the level before read off the
        // first sample, 3600 MB/s, and the straddling one, 354 MB/s, was 1130 MB/s, and the
        // cliff was put at 144.7 s beside 460 GB). The time is then that of the bytes at the
        // rate of the whole sample before the one that holds them, where that sample is one
        // of the two.
        if let Some(first) = a_pair {
            at_the_rate_of_the_sample_before(samples, first, &mut r);
        }
        // One whole sample alone before the sample that holds the change (or the first of a
        // pair whose second holds it): the level before read off them blends the step, and
        // the refinement's posterior is nearly flat across that sample (at 45 s samples of
        // 1998 and 1117 MB/s, then 993 MB/s, the cliff was put at 58.6 s, 117 GB, where the
        // second sample's bytes put it at 50.6 s, 101 GB, for a 100 GB cache). Its place is
        // where that sample's bytes put it, at the rate of the sample before and the level
        // after.
        // (Not at a change the heat may have made, whose rates need not be levels; nor at
        // samples shorter than a GC dip, where the posterior reads the straddling sample
        // among many.)
        let near_heat = heat_windows.iter().any(|&(i, k)| i <= c + 1 && c <= k);
        let coarse = samples[c.min(n - 1)].interval_s >= MAX_DIP_S;
        if let Some(first) = a_alone.or(a_pair).filter(|_| coarse && !near_heat) {
            on_the_bytes_of_the_straddling_sample(samples, first, after.mu.exp(), &mut r);
        }
        if let Some(prev) = changes.last() {
            // Keep changes in order even when windows overlap.
            if r.t_s <= prev.r.t_s {
                r.t_s = prev.r.t_s;
                r.bytes = prev.r.bytes;
            }
        }
        changes.push(Change { r });
    }
    // 7. Phases, cliffs, cache estimate.
    build_result(&w, &segs, &changes, start, sigma_x, &mut out, units);
    out.wrapped_span_bytes = wrapped_span(t, &out);
    out.warnings.extend(wrapped_cliff_warning(&out, units));
    // Without CPU figures no phase has the three it needs: no warning, and no pass.
    if cols.cpu {
        out.warnings
            .extend(cpu_bound_warnings(samples, &out.phases));
    }
    out
}

/// Sets the times of `r` from its bytes where the sample before the one that holds them is
/// sample `first` or `first + 1` (the two a level was read off): the time at which the bytes
/// into the sample that holds them were written at the rate of the whole sample before it.
fn at_the_rate_of_the_sample_before(
    samples: &[crate::timeline::Sample],
    first: usize,
    r: &mut refine::Refined,
) {
    let time_of = |bytes: f64, t: f64| -> f64 {
        let k = samples.partition_point(|s| (s.bytes_total as f64) < bytes);
        if k == 0 || k >= samples.len() || !(first..=first + 1).contains(&(k - 1)) {
            return t;
        }
        let (s, prev) = (&samples[k], &samples[k - 1]);
        let rate = prev.bytes_per_sec;
        let start = (s.bytes_total - s.bytes.min(s.bytes_total)) as f64;
        if rate <= 0.0 || s.interval_s <= 0.0 {
            return t;
        }
        s.t_start_s() + ((bytes - start) / rate).clamp(0.0, s.interval_s)
    };
    r.t_s = time_of(r.bytes, r.t_s);
    r.t_low_s = time_of(r.low_bytes, r.t_low_s);
    r.t_high_s = time_of(r.high_bytes, r.t_high_s).max(r.t_s);
    r.t_low_s = r.t_low_s.min(r.t_s);
}

/// Sets the place of `r` from the bytes of the sample that holds it, where that sample
/// follows sample `first`, whole at the level before: the change lies where that sample's
/// bytes, written at `first`'s rate up to it and at `after` (bytes/s) from it, add up. Its
/// interval is widened to hold that place. Nothing changes where the sample before is no
/// step faster than `after`, or the change lies in another sample.
fn on_the_bytes_of_the_straddling_sample(
    samples: &[crate::timeline::Sample],
    first: usize,
    after: f64,
    r: &mut refine::Refined,
) {
    let k = samples.partition_point(|s| s.t_s < r.t_s);
    let (Some(prev), Some(s)) = (samples.get(first), samples.get(k)) else {
        return;
    };
    let a = prev.bytes_per_sec;
    let faster = a > after * MIN_STEP.exp();
    if k != first + 1 || s.interval_s <= 0.0 || !faster {
        return;
    }
    let into = ((s.bytes as f64 - after * s.interval_s) / (a - after)).clamp(0.0, s.interval_s);
    let start = (s.bytes_total - s.bytes.min(s.bytes_total)) as f64;
    r.t_s = s.t_start_s() + into;
    r.bytes = start + a * into;
    r.t_low_s = r.t_low_s.min(r.t_s);
    r.low_bytes = r.low_bytes.min(r.bytes);
    r.t_high_s = r.t_high_s.max(r.t_s);
    r.high_bytes = r.high_bytes.max(r.bytes);
}

/// The first of the samples up to and including the one that holds the change `r` placed in
/// samples `lo..hi` that all read in the lowest quarter of a fall from `a` to `b` of half or
/// more (in ln throughput), back to `lo` or to a sample above that: `None` where the change
/// is no such fall, where there is no such sample, or where the run of them starts at `lo`
/// (no sample of the level before is in the window to place the change after). The sample
/// that holds the change is one of them where it reads so low: a straddling sample reads a
/// share of the level before, and one at or below the level after is that level (150 MB/s,
/// then 85, then four samples at exactly 18 MB/s before exactly 20: the 85 and the 18s read
/// as one dip across the change, put inside the first 18).
fn first_of_the_level_after(
    samples: &[crate::timeline::Sample],
    x: &[f64],
    (lo, hi): (usize, usize),
    r: &refine::Refined,
    a: refine::Level,
    b: refine::Level,
    seg_level: f64,
) -> Option<usize> {
    // A fall to half or less, and samples in its lowest quarter (in ln throughput): no noise
    // of a level or straddling sample that reads a share of the level before puts a sample
    // there (a low-contrast change, 2000 -> 1500 MB/s with 5 % noise, is left to the
    // refinement alone). The level after is the higher of the one read near the change and
    // its segment's: a level that swings by turns (500 and 300 MB/s in 10 s samples) read
    // 300 MB/s off its first samples, its 500 MB/s ones were not "near" it, and the cliff was
    // put 21 s late, after two of them, which the cache's phase took for a dip.
    let b_mu = b.mu.max(seg_level);
    let step = a.mu - b_mu;
    if step < std::f64::consts::LN_2 {
        return None;
    }
    let nearer_b = |v: f64| v < b_mu + 0.25 * step;
    // The sample that holds the change: the first that ends after it.
    let k = lo + samples[lo..hi].partition_point(|s| s.t_s <= r.t_s);
    let mut j = (k + 1).min(hi);
    while j > lo && nearer_b(x[j - 1]) {
        j -= 1;
    }
    (j <= k && j > lo).then_some(j)
}

/// A first sample far above the level of the samples after it, where that level lasts
/// two samples or more and then falls by a step to a later, lower level: the end of the
/// samples at the level after the first (`k`), or `None`. The first sample must stand over
/// every sample at that level by more than a step and the noise, hold more over it than a
/// start-up burst writes ([`warnings::STARTUP_BURST_BYTES`]), and stand further over it than
/// the later fall goes below it (a start-up burst over a cache that later runs out falls
/// less far than the cache's end). With samples of minutes the cache can run out inside the
/// first and the level after it last only a few samples before a later, slower tier: one
/// segment took the first sample and that level together for "the cache"
/// (`simulate a2000-1tb --interval 4m` said "cache 545 GB, 652 MB/s" for a 150 GB cache at
/// 2000 MB/s whose first sample of 965 MB/s stood over a level of 495 MB/s, and took the fall
/// to 397 MB/s after 600 GB for the cache's cliff).
fn first_sample_above_level(w: &Work, sigma_x: f64) -> Option<usize> {
    let x = &w.x;
    if x.len() < 4 {
        return None;
    }
    let thr = MIN_STEP.max(4.0 * sigma_x);
    let k = 1 + x[1..]
        .iter()
        .take_while(|&&v| (v - x[1]).abs() < thr)
        .count();
    if k < 3 || k >= x.len() {
        return None;
    }
    let level = median(&x[1..k]);
    let top = x[1..k].iter().copied().fold(f64::MIN, f64::max);
    let later = median(&x[k..]);
    let first = &w.samples[0];
    let over = first.bytes as f64 - level.exp() * first.interval_s;
    (x[0] > top + thr
        && over >= warnings::STARTUP_BURST_BYTES
        && later < level - thr
        && x[0] - level > level - later)
        .then_some(k)
}

/// Where the rate came back, at the end of the run, to the level `before` (bytes/s) after a
/// drop at `from_s`: the first sample of the last stretch whose running median (over 5
/// samples, so that a GC dip does not cut it) stays within half a step of `before`, when that
/// stretch lasts at least a GC dip and three samples; `None` when the run ended low.
fn back_at_end(samples: &[crate::timeline::Sample], from_s: f64, before: f64) -> Option<usize> {
    let i = samples.partition_point(|s| s.t_start_s() < from_s - 1e-9);
    let rates: Vec<f64> = samples[i..].iter().map(|s| s.bytes_per_sec).collect();
    if rates.len() < 8 || before <= 0.0 {
        return None;
    }
    let smooth = running_median(&rates, 2);
    let floor = before * (-0.5 * MIN_STEP).exp();
    // The last low sample; the climb back starts after it (the sample astride the climb is
    // low in the median, and stays with the low stretch).
    let r = i + smooth.iter().rposition(|&x| x < floor)? + 1;
    let n = samples.len() - r;
    if n == 0 {
        return None;
    }
    let long = samples[samples.len() - 1].t_s - samples[r].t_start_s();
    // The low stretch before it is the heat's, and longer than the climb back.
    let low_s = samples[r].t_start_s() - from_s;
    (n >= 3 && long >= MAX_DIP_S && low_s > long).then_some(r)
}

/// The rate over the samples wholly inside `[from_s, to_s]`, bytes/s; `None` with fewer
/// than two of them.
fn whole_samples_rate(
    samples: &[crate::timeline::Sample],
    cols: &Columns,
    from_s: f64,
    to_s: f64,
) -> Option<f64> {
    whole_samples_rate_of(samples, cols, from_s, to_s, 2)
}

/// The rate over the samples wholly inside `[from_s, to_s]`, bytes/s; `None` with fewer
/// than `min` of them.
fn whole_samples_rate_of(
    samples: &[crate::timeline::Sample],
    cols: &Columns,
    from_s: f64,
    to_s: f64,
    min: usize,
) -> Option<f64> {
    const EPS: f64 = 1e-9;
    let i = samples.partition_point(|s| s.t_start_s() < from_s - EPS);
    let k = samples.partition_point(|s| s.t_s <= to_s + EPS);
    if k < i + min.max(1) {
        return None;
    }
    let first = &samples[i];
    let last = &samples[k - 1];
    let b0 = first.bytes_total.saturating_sub(first.bytes);
    let dt = last.t_s - first.t_start_s();
    // Stalls are no level: their time and bytes are left out ([`levels::stalled_runs`]).
    let (mut st, mut sb) = (0.0, 0u64);
    for r in levels::stalled_runs(cols, i..k) {
        for s in &samples[i + r.start..i + r.end] {
            st += s.interval_s;
            sb += s.bytes;
        }
    }
    let bytes = last.bytes_total.saturating_sub(b0).saturating_sub(sb);
    (dt - st > 0.0).then(|| bytes as f64 / (dt - st))
}

/// One pass over what the run wrote to: the span, or the whole target. `None` when unknown.
pub(super) fn span_of(t: &Timeline) -> Option<u64> {
    t.meta
        .workload
        .span_bytes
        .or(t.meta.device.capacity_bytes)
        .filter(|&c| c > 0)
}

/// A slower tier's cliff inside a stretch of heat ([`thermal::tiers_out_under_heat`]), as
/// indices of `changes` and phases.
struct TierInHeat {
    /// The change that is the tier's drop.
    change: usize,
    /// The phase before the heat: the level the tier fell from.
    before: usize,
    /// The phase after the heat: the slower tier's level.
    after: usize,
    /// The change out of the stretch (where the drive left the throttle).
    heat_end: usize,
    /// Whether the phase right after the drop is heat: no where the segments hold the
    /// stretch as one, and the drop is the one out of it (at samples of 30 s, one sample
    /// throttled at the faster tier and one at the slower).
    throttled: bool,
}

/// The tiers that ran out inside a stretch of heat the counters mark, each a drop of
/// `is_drop` again: in each stretch a slower tier ran out in, the first change after the
/// heat's own (the stretch's first) that falls a step with the count where it was at that
/// first change's sample, which may be the change out of the stretch where the segments hold
/// the stretch as one. The cliff falls from the level before the stretch to the one after it.
fn tiers_in_heat(
    w: &Work,
    segs: &[Seg],
    windows: &[(usize, usize)],
    tb: &[(f64, f64)],
    is_drop: &mut [bool],
) -> Vec<TierInHeat> {
    let samples = w.samples;
    let sample_of = |t: f64| samples.partition_point(|s| s.t_s < t - 1e-9);
    let mut out = Vec::new();
    for (i, k) in thermal::tiers_out_under_heat(samples, w.cols, windows) {
        let lead = if i > 0 {
            0.5 * samples[i - 1].interval_s
        } else {
            0.0
        };
        // (To the end of the first sample after the stretch: the climb out of it may lie
        // inside that sample.)
        let (from, to) = (samples[i].t_start_s() - lead, samples[k].t_s);
        let inside: Vec<usize> = (0..is_drop.len())
            .filter(|&j| tb[j + 1].0 >= from - 1e-9 && tb[j + 1].0 <= to + 1e-9)
            .collect();
        let (Some(&heat), Some(&last)) = (inside.first(), inside.last()) else {
            continue;
        };
        let held = thermal::count_at(samples, sample_of(tb[heat + 1].0) + 1);
        let tier = inside[1..].iter().copied().find(|&j| {
            segs[j + 1].level < segs[j].level - MIN_STEP
                && thermal::count_at(samples, sample_of(tb[j + 1].0) + 1) == held
        });
        // No later drop: the tier ran out in the samples of the heat's own drop (at 30 s
        // samples, 1797 MB/s, then 1081, 49 and 85 MB/s as the drive throttled and its cache
        // ran out under the heat, then 98 MB/s once it cooled).
        let tier = tier.or(Some(heat).filter(|_| inside.len() >= 2));
        if let Some(j) = tier.filter(|_| last + 1 < segs.len()) {
            is_drop[j] = true;
            out.push(TierInHeat {
                change: j,
                before: heat,
                after: last + 1,
                heat_end: last,
                throttled: j < last,
            });
        }
    }
    out
}

fn build_result(
    w: &Work,
    segs: &[Seg],
    changes: &[Change],
    start: Option<HighStart>,
    sigma_x: f64,
    out: &mut Analysis,
    units: UnitSystem,
) {
    let samples = w.samples;
    let n = samples.len();
    let t0 = samples[0].t_start_s();
    let b0 = (samples[0].bytes_total - samples[0].bytes.min(samples[0].bytes_total)) as f64;
    let t_end = samples[n - 1].t_s;
    let b_end = samples[n - 1].bytes_total as f64;
    // Phase boundaries in time and bytes.
    let mut tb: Vec<(f64, f64)> = vec![(t0, b0)];
    for c in changes {
        tb.push((c.r.t_s, c.r.bytes));
    }
    tb.push((t_end, b_end));
    // The cliff rule (`cliffs.rs`): stalls, returns of the cache and which changes are drops.
    let Drops {
        stall,
        episodes,
        mut is_drop,
    } = classify_drops(w, segs, &tb, changes.len());
    // A drop into a stretch of heat the counters mark, which the rate came back from, is no
    // cliff (at samples of minutes the segments can keep part of it as a level of its own).
    let windows = thermal::counter_windows(samples, w.cols);
    for (j, d) in is_drop.iter_mut().enumerate() {
        if *d && thermal::in_heat(samples, &windows, tb[j + 1].0) {
            *d = false;
        }
    }
    thermal::snap_to_windows(samples, &windows, &is_drop, &mut tb);
    let tiers = tiers_in_heat(w, segs, &windows, &tb, &mut is_drop);
    let tiers_s: Vec<(f64, bool)> = tiers
        .iter()
        .map(|t| (tb[t.change + 1].0, !is_drop[..t.change].contains(&true)))
        .collect();
    let back_at = |k: usize| episodes.iter().any(|e| e.1 == k);
    let first_drop = is_drop.iter().position(|&d| d);
    let mut phases = Vec::with_capacity(segs.len());
    let mut cliffs_passed = 0usize;
    for j in 0..segs.len() {
        if j > 0 && is_drop[j - 1] {
            cliffs_passed += 1;
        }
        if back_at(j) {
            cliffs_passed = 0;
        }
        let (ts, bs) = tb[j];
        let (te, be) = tb[j + 1];
        // The level of a phase is its whole samples' where it has two or more: the samples
        // astride a change hold part of the next level, and the change's place within one
        // is an estimate, whose error would move a flat 2000 MB/s level to 2001 MB/s.
        // With one whole sample, the bytes to the change's place over its time, unless that
        // reads more than a step away from the sample: then the place is off (inside a long
        // straddling sample the posterior can be nearly flat: at 2 min samples a cache that
        // ran out 7 s into the second was placed 52 s in, and its 3624 MB/s sample read
        // 2741 MB/s), and the level is the one the sample shows.
        let mean = match whole_samples_rate(samples, w.cols, ts, te) {
            Some(r) => r,
            None if te > ts => {
                let blended = (be - bs) / (te - ts);
                // A rate outside every sample the phase touches is none it held either (at
                // 45 s samples "mean: 1030 MB/s" between spells of heat, of samples at 917,
                // 999 and 872 MB/s, and a slowdown "1030 MB/s -> 491 MB/s").
                let (lo, hi) =
                    after_cache::slowest_and_fastest(&after_cache::touched_rates(samples, ts, te));
                // (Not inside a stretch of heat the counters mark, whose drops its
                // placement finds: there the range of its samples is given instead,
                // `after_cache::mark_ranges`.)
                let outside = (blended > hi * (1.0 + 1e-9) || blended < lo * (1.0 - 1e-9))
                    && !windows.iter().any(|&(i, k)| {
                        ts >= samples[i].t_start_s() - 1e-9 && te <= samples[k - 1].t_s + 1e-9
                    });
                match whole_samples_rate_of(samples, w.cols, ts, te, 1) {
                    Some(r)
                        if r > 0.0
                            && blended > 0.0
                            && ((blended / r).ln().abs() > MIN_STEP || outside) =>
                    {
                        r
                    }
                    _ => blended,
                }
            }
            None => 0.0,
        };
        let kind = match (first_drop, cliffs_passed) {
            (None, _) => PhaseKind::Steady,
            (Some(_), 0) => PhaseKind::Cache,
            (Some(_), 1) => PhaseKind::PostCache,
            (Some(_), _) => PhaseKind::Folding,
        };
        phases.push(Phase {
            start_s: ts,
            end_s: te,
            mean_bytes_per_sec: mean.max(0.0),
            kind,
            heat: false,
            stall: false,
            range_bytes_per_sec: None,
            rate_at_most: false,
        });
    }
    // Slowdown episodes: a drop by more than a step, then (after any number of lower
    // segments) the first segment back at the level before it.
    let mut j = 0;
    while j < changes.len() {
        if let Some(e) = episodes.iter().find(|e| e.0 == j) {
            j = e.1;
            continue;
        }
        // No slowdown starts at a tier that ran out under the heat, or in the heat after it:
        // all of that is heat (a second tier that ran out under the same heat read "a temporary slowdown
        // ... garbage collection", its throttled 200 MB/s "after the cache").
        if tiers.iter().any(|t| t.change <= j && j < t.heat_end) {
            j += 1;
            continue;
        }
        let before = segs[j].level;
        let back = (j + 2..segs.len()).find(|&k| segs[k].level > before - 0.5 * MIN_STEP);
        let low = segs[j + 1..back.unwrap_or(j + 1)]
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.level.total_cmp(&b.1.level))
            .map(|(i, s)| (j + 1 + i, s.level));
        // The episode starts where the rate left the level: a first lower segment still at
        // it (within half a step) is the level, and the episode starts after it
        // (`simulate p5-1tb --interval 45s --seed 3`: 1030 MB/s, then 991 MB/s for 238 s,
        // then heat at 506 MB/s, read "a temporary slowdown at 182.5 s: 1030 MB/s -> 506
        // MB/s for 337.4 s ... garbage collection" of the heat at 420.9 s).
        let left = segs
            .get(j + 1)
            .is_some_and(|s| s.level <= before - 0.5 * MIN_STEP);
        match (back, low) {
            (Some(k), Some((m, lvl))) if left && lvl < before - MIN_STEP => {
                let (ts, bs) = tb[j + 1];
                let (te, be) = tb[k];
                out.slowdowns.push(Slowdown {
                    t_s: ts,
                    duration_s: te - ts,
                    bytes: (be - bs).round().max(0.0) as u64,
                    bytes_before: (bs - b0).round().max(0.0) as u64,
                    before_bytes_per_sec: phases[j].mean_bytes_per_sec,
                    low_bytes_per_sec: phases[m].mean_bytes_per_sec,
                    thermal: false,
                    on_and_off: false,
                });
                j = k;
            }
            _ => j += 1,
        }
    }
    // The drops that were heat: a slowdown that starts at one is throttling, and says so
    // rather than blame garbage collection or the host (the thermal warning names it too).
    let (mut thermal_text, mut thermal_at) = thermal_warnings(w.samples, w.cols, &phases, &tiers_s);
    // No cache cliff on heat where the first sample holds the cache's drop: the heat's drop
    // moves to the start of the stretch the counters mark, the levels either side are read
    // again, and the thermal warning is said of phases without a cache.
    let heat_first = first_drop.filter(|_| episodes.is_empty()).and_then(|fd| {
        let d =
            thermal::first_sample_drop_before_heat(w, &phases, &is_drop, fd, &thermal_at, units)?;
        Some((fd, d))
    });
    let first_drop = match heat_first {
        Some((fd, (from_s, (_, _, ref d)))) => {
            let at = phases[fd + 1].start_s;
            // Where heat slowed every later sample, the stretch's first sample holds the
            // heat's start and what ran before it: a drop placed inside that sample stays
            // there, so that the heat's phase is the rate of the samples after it, not a mean
            // with the part before the heat (`p5-1tb,throttle_at=60` at 30 s samples: a 1573
            // MB/s sample with 20 samples at 486 to 502 MB/s read "thermal throttling: 549
            // MB/s").
            let inside = samples.iter().any(|s| {
                (s.t_start_s() - from_s).abs() < 1e-9 && at > from_s + 1e-9 && at < s.t_s - 1e-9
            });
            let from_s = if d.after_is_floor && inside {
                at
            } else {
                from_s
            };
            for t in thermal_at.iter_mut().filter(|t| (**t - at).abs() < 1e-9) {
                *t = from_s;
            }
            phases[fd].end_s = from_s;
            phases[fd + 1].start_s = from_s;
            // Both phases now end on a sample's edge: each is its whole samples' rate, be
            // it one sample (the first, at samples of minutes: its rate, not the bytes to the
            // drop's old place over its time, 1171 MB/s beside the sample's 1203 MB/s).
            for p in &mut phases[fd..=fd + 1] {
                if let Some(r) = whole_samples_rate_of(samples, w.cols, p.start_s, p.end_s, 1) {
                    p.mean_bytes_per_sec = r;
                }
            }
            thermal::no_cache_phases(&mut phases);
            thermal_text = thermal_warnings(w.samples, w.cols, &phases, &tiers_s).0;
            None
        }
        None => first_drop,
    };
    let heat_first = heat_first.map(|(_, (_, d))| d);
    // A later drop that was heat is no slower cache tier: the phase after it stays "after the
    // cache" (the thermal warning names it), not "folding".
    for p in &mut phases {
        if p.kind == PhaseKind::Folding && thermal_at.iter().any(|&t| (t - p.start_s).abs() < 1e-9)
        {
            p.kind = PhaseKind::PostCache;
        }
    }
    for s in &mut out.slowdowns {
        s.thermal = thermal_at.iter().any(|&t| (t - s.t_s).abs() < 1e-9);
        s.on_and_off = s.thermal
            && heat_on_and_off(samples, s.t_s, s.t_s + s.duration_s, s.before_bytes_per_sec);
    }
    // A later drop that was heat and did not come back before the run ended is no cliff
    // either: the stretch after it is throttling, named apart (the first drop stays the cache
    // cliff, and the thermal warning says its size is in doubt).
    // A thermal drop the cliff rule did not take for a drop (one after a slowdown that came
    // back, say) is throttling all the same when no slowdown holds it.
    let heat_windows = thermal::counter_windows(samples, w.cols);
    for j in 0..changes.len() {
        let at = phases[j + 1].start_s;
        let thermal = thermal_at.iter().any(|&t| (t - at).abs() < 1e-9);
        let in_slowdown = out
            .slowdowns
            .iter()
            .any(|s| at >= s.t_s - 1e-9 && at < s.t_s + s.duration_s - 1e-9);
        // The first drop stays the cache cliff, heat or not. Where the heat came with it and
        // the stretch after it runs to the end of the run, that stretch is throttling all the
        // same: the rate after the cache is not seen outside heat (the drive's counters rose
        // 4 s after its cache ran out and stayed up, and "497 MB/s, steady" was given as the
        // rate after the cache, unmarked, on every output).
        // So too where the counters mark heat from that drop to the end of the run and the
        // rate changed level again inside it: the levels stay apart, each of them heat
        // (`simulate 'p5-1tb,heat=0.5' --seed 3 --cliffs 2`: the heat at 26 s, then the cache
        // running out under it at 74 s, 1000 and then 500 MB/s, were one "509 MB/s" of
        // throttling, or once the levels were apart, "500 MB/s, steady" after the cache).
        let heat_to_end = || {
            heat_windows
                .last()
                .is_some_and(|&(i, k)| k == n && samples[i].t_start_s() <= at + 1e-6)
        };
        // A slower tier that ran out under the heat: a cliff, its phase heat all the same
        // where it lies in the stretch.
        if let Some(t) = tiers.iter().find(|t| t.change == j) {
            // (To where the drive left the throttle: a further drop under the heat, a later
            // tier's, is heat too.)
            if t.throttled {
                out.throttled.push(Throttled {
                    from_s: at,
                    to_s: phases[t.heat_end].end_s,
                    on_and_off: false,
                });
            }
            continue;
        }
        if thermal
            && !in_slowdown
            && Some(j) == first_drop
            && (j + 2 == phases.len() || heat_to_end())
        {
            out.throttled.push(Throttled {
                from_s: at,
                to_s: phases.last().map_or(t_end, |p| p.end_s),
                on_and_off: false,
            });
            continue;
        }
        if thermal && !in_slowdown && Some(j) != first_drop {
            is_drop[j] = false;
            // The last stretch may have climbed back before the run ended, too shortly for a
            // segment of its own: that climb is the level before the heat again, so the
            // stretch is a thermal slowdown that came back, and its end a phase of its own.
            let last = j + 2 == phases.len();
            let before = phases[j].mean_bytes_per_sec;
            match last.then(|| back_at_end(samples, at, before)).flatten() {
                Some(r) => {
                    let back = &samples[r];
                    let (tb_s, bb) = (back.t_start_s(), back.bytes_total - back.bytes);
                    let low = whole_samples_rate(samples, w.cols, at, tb_s)
                        .unwrap_or(phases[j + 1].mean_bytes_per_sec);
                    let high = whole_samples_rate(samples, w.cols, tb_s, t_end)
                        .unwrap_or(back.bytes_per_sec);
                    let bs = tb[j + 1].1;
                    out.slowdowns.push(Slowdown {
                        t_s: at,
                        duration_s: tb_s - at,
                        bytes: (bb as f64 - bs).round().max(0.0) as u64,
                        bytes_before: (bs - b0).round().max(0.0) as u64,
                        before_bytes_per_sec: before,
                        low_bytes_per_sec: low,
                        thermal: true,
                        on_and_off: heat_on_and_off(samples, at, tb_s, before),
                    });
                    phases[j + 1].end_s = tb_s;
                    phases[j + 1].mean_bytes_per_sec = low;
                    let kind = phases[j].kind;
                    phases.push(Phase {
                        start_s: tb_s,
                        end_s: t_end,
                        mean_bytes_per_sec: high,
                        kind,
                        heat: false,
                        stall: false,
                        range_bytes_per_sec: None,
                        rate_at_most: false,
                    });
                }
                None => {
                    let to_s = phases[j + 1].end_s;
                    // A whole sample inside the stretch back at the level before the heat.
                    let on_and_off = heat_on_and_off(samples, at, to_s, before);
                    out.throttled.push(Throttled {
                        from_s: at,
                        to_s,
                        on_and_off,
                    })
                }
            }
        }
    }
    for s in &out.slowdowns {
        out.warnings.push(slowdown_warning(s, units));
    }
    let stalled: Vec<usize> = (0..segs.len())
        .filter(|&j| {
            stall[j]
                && !out
                    .slowdowns
                    .iter()
                    .any(|s| s.t_s <= tb[j].0 && tb[j].0 < s.t_s + s.duration_s)
        })
        .collect();
    // Each stalled stretch is named a stall ([`Phase::stall`]), not a level of the drive; also
    // one a slowdown holds, whose warning names it (it was "after the cache, part 2 of 3:
    // 0.00 MB/s"). The stall warning is for the others.
    for j in (0..segs.len()).filter(|&j| stall[j]) {
        phases[j].stall = true;
    }
    if let Some(&j) = stalled.first() {
        // Every stall, not the first alone (a second, to the end of the run, was a phase
        // "stall" in report.md and said nowhere else).
        let mut again: Vec<String> = stalled[1..]
            .iter()
            .take(3)
            .map(|&k| format!("from {:.1} s for {:.1} s", tb[k].0, tb[k + 1].0 - tb[k].0))
            .collect();
        if stalled.len() > 4 {
            again.push(format!("{} more", stalled.len() - 4));
        }
        let again = if again.is_empty() {
            String::new()
        } else {
            format!(", and again {}", again.join(", "))
        };
        out.warnings.push(Warning::new(
            WarningKind::Stall { t_s: tb[j].0 },
            format!(
                "a stall from {:.1} s: throughput fell to {} for {:.1} s{again}; the drive or the \
             host stopped completing writes; this is no level of the drive and not its \
             sustained speed",
                tb[j].0,
                format_rate(phases[j].mean_bytes_per_sec, units),
                tb[j + 1].0 - tb[j].0,
            ),
        ));
    }
    for (j, c) in changes.iter().enumerate() {
        if !is_drop[j] {
            continue;
        }
        // A cliff into a stall falls to the level after the stall (the stall is no level).
        let after = (j + 1..phases.len()).find(|&k| !stall[k]).unwrap_or(j + 1);
        // A tier that ran out under the heat falls from the level before the heat to the one
        // after it: the phases either side of its drop are throttled.
        let tier = tiers.iter().find(|t| t.change == j);
        let (before, after) = tier.map_or((j, after), |t| (t.before, t.after));
        // Where the heat's own drop is the tier's, the tier ran out somewhere in the stretch:
        // its interval reaches to where the drive left the throttle.
        let reach = tier
            .filter(|t| t.change == t.before)
            .map_or(c.r.t_high_s, |t| c.r.t_high_s.max(tb[t.heat_end + 1].0));
        out.cliffs.push(Cliff {
            t_s: c.r.t_s,
            t_low_s: c.r.t_low_s,
            t_high_s: reach,
            bytes_written: c.r.bytes.round().max(0.0) as u64,
            before_bytes_per_sec: phases[before].mean_bytes_per_sec,
            after_bytes_per_sec: phases[after].mean_bytes_per_sec,
            under_heat: tier.is_some(),
        });
    }
    for &(j, k) in &episodes {
        // The higher rate lasts to the next cliff, or to the end of the run.
        let next = (k..changes.len()).find(|&m| is_drop[m]);
        let (ts, bs) = tb[k];
        let (te, be) = next.map(|m| tb[m + 1]).unwrap_or((t_end, b_end));
        let (ls, lb) = tb[j + 1];
        let low = if ts > ls { (bs - lb) / (ts - ls) } else { 0.0 };
        out.returns.push(CacheReturn {
            t_s: ts,
            bytes_before: (bs - b0).round().max(0.0) as u64,
            bytes: (be - bs).round().max(0.0) as u64,
            duration_s: te - ts,
            bytes_per_sec: if te > ts { (be - bs) / (te - ts) } else { 0.0 },
            low_bytes_per_sec: low.max(0.0),
            ran_out_again: next.is_some(),
        });
    }
    for r in &out.returns {
        out.warnings.push(Warning::new(
            WarningKind::CacheBack { t_s: r.t_s },
            format!(
            "the cache came back while writing at {:.1} s (after {}): {} -> {} for {} ({:.1} s), \
             then {}; a dynamic SLC cache freed space while it was written, so the low stretch \
             before was the cache running out, not a slowdown; the cache size is the first \
             cliff's",
            r.t_s,
            format_bytes(r.bytes_before as f64, units),
            format_rate(r.low_bytes_per_sec, units),
            format_rate(r.bytes_per_sec, units),
            format_bytes(r.bytes as f64, units),
            r.duration_s,
            if r.ran_out_again {
                "it ran out again"
            } else {
                "the run ended"
            },
        ),
        ));
    }
    match first_drop {
        Some(fd) => {
            let r = changes[fd].r;
            // (To the bytes where the drive left the throttle, where the heat's own drop is
            // the cache's: `simulate 'fx700-2tb,heat=0.1' --interval 30s --seed 2` placed it at
            // the heat's start, 385 GB, where the samples put it near 460 GB.)
            let high = tiers
                .iter()
                .find(|t| t.change == fd && t.change == t.before)
                .map_or(r.high_bytes, |t| r.high_bytes.max(tb[t.heat_end + 1].1));
            out.cache_estimate = Some(CacheEstimate {
                bytes: r.bytes.round().max(0.0) as u64,
                low_bytes: r.low_bytes.round().max(0.0) as u64,
                high_bytes: high.round().max(0.0) as u64,
            });
            out.cache_lower_bound_bytes = None;
            // Sampling too coarse for the cache phase seen.
            let cache_s = r.t_s - t0;
            // The whole samples before the cliff and their median length: counted, not derived
            // from the run's median interval (the rows of a position CSV are shorter while the
            // drive is fast).
            // A sample that ends within a hundredth of its length after the cliff's instant
            // counts as before it: a cliff on a sample boundary is placed a hair either side.
            let cols = w.cols;
            let (before, dt) = if cols.ordered && cols.uniform {
                // In time order the samples that end by then come first, and each is as long
                // as the first (the median of equal lengths).
                let end_by = r.t_s + 0.01 * cols.first_interval + 1e-9;
                let before = w.samples.partition_point(|s| s.t_s <= end_by);
                let dt = if before == 0 {
                    out.interval_s
                } else {
                    cols.first_interval
                };
                (before, dt)
            } else {
                let lens: Vec<f64> = (0..n)
                    .filter(|&i| w.samples[i].t_s <= r.t_s + 0.01 * cols.interval(i) + 1e-9)
                    .map(|i| cols.interval(i))
                    .collect();
                let before = lens.len();
                let dt = if lens.is_empty() {
                    out.interval_s
                } else {
                    median(&lens)
                };
                (before, dt)
            };
            let width = (r.high_bytes - r.low_bytes) / r.bytes.max(1.0);
            if before < 10 || width > 0.05 {
                out.warnings.push(Warning::new(
                    WarningKind::CoarseSampling {
                        cache_phase_s: cache_s,
                        samples_before: before,
                        interval_s: dt,
                    },
                    {
                        // A size bounded within 5% needs no tighter estimate: what few samples
                        // leave rough is the cache phase's rate (960evo-250g at 1 s: "13.0 GB
                        // to 13.1 GB" beside "for a tighter estimate").
                        let why = if width > 0.05 {
                            "for a tighter estimate".to_string()
                        } else {
                            format!(
                                "to see the cache phase's rate over more of them (the size's \
                                 95% interval is already only {:.1}% wide)",
                                100.0 * width
                            )
                        };
                        // Ten samples or more are not "only" a few: what is coarse then is the
                        // size's interval ("only 54 samples" read as too few).
                        let few = if before < 10 {
                            format!(
                                "only {} before the cliff, of {} each",
                                crate::units::count_text(before, "sample", "samples"),
                                crate::units::format_interval(dt)
                            )
                        } else {
                            // One decimal under 10%: "5% wide" read as within the 5% it
                            // is not.
                            let pct = 100.0 * width;
                            let pct = if pct < 10.0 {
                                format!("{pct:.1}")
                            } else {
                                format!("{pct:.0}")
                            };
                            format!(
                                "the size's 95% interval is {pct}% wide over the {} samples of \
                                 {} before the cliff",
                                before,
                                crate::units::format_interval(dt)
                            )
                        };
                        format!(
                            "sampling too coarse for a {cache_s:.1} s cache phase: {few}; {} \
                             {why}",
                            finer_sampling(dt),
                        )
                    },
                ));
            }
        }
        None => match heat_first
            .or_else(|| thermal::first_sample_drop_outside_heat(w, units))
            .or_else(|| unconfirmed_drop(w, segs, start, sigma_x, units))
            .or_else(|| drop_in_missing_start(samples, b0, sigma_x, units))
            .or_else(|| raised_first_sample(samples, sigma_x, units))
        {
            Some((bound, text, drop)) => {
                let cap = out.cache_lower_bound_bytes.unwrap_or(u64::MAX);
                out.cache_lower_bound_bytes = Some((bound.round().max(0.0) as u64).min(cap));
                out.warnings
                    .push(Warning::new(WarningKind::UnconfirmedDrop, text));
                out.unconfirmed_drop = Some(drop);
            }
            None => {
                let written = (b_end - b0).round().max(0.0) as u64;
                let bound = out.cache_lower_bound_bytes.unwrap_or(written).min(written);
                out.cache_lower_bound_bytes = Some(bound);
                // A cache of C bytes written at a rate `a` that ran out inside the first
                // sample lifts it over the level `l` after it by C (1 - l/a): less than a step
                // of that level over one sample does not show. With `a` at least twice `l`
                // (a native rate under half the in-cache rate: most drives of
                // data/published-drives.csv, as `LATER_TIER_SHARE` takes it), a cache under
                // twice that step hides. Where that could be a real drive's cache (the
                // smallest of data/published-drives.csv is 4 GB), "no cache" cannot be said;
                // a smaller one is left unsaid, as at 1 s on a 3 GB/s drive (2.2 GB).
                let first = &samples[0];
                let rest_s = t_end - first.t_s;
                if n >= 2 && rest_s > 0.0 {
                    let low = (b_end - first.bytes_total as f64) / rest_s;
                    let thr = MIN_STEP.max(4.0 * sigma_x);
                    // No more than the first sample holds: a noisy level made it more than the
                    // run wrote ("no cache of 919 GB to 661 GB" of a 44 GB first sample).
                    let hides = ((thr.exp() - 1.0) * low * first.interval_s
                        / (1.0 - LATER_TIER_SHARE))
                        .min(first.bytes as f64);
                    if hides >= SMALLEST_PUBLISHED_CACHE_BYTES {
                        out.first_sample_hides = Some(HiddenCache {
                            bytes: hides.round() as u64,
                            interval_s: first.interval_s,
                            before_first_row: false,
                            faster_bytes_per_sec: None,
                        });
                    }
                }
                let mut warned =
                    no_cliff_warning(bound, bound < written, None, w.interrupted, units);
                if let Some(h) = &out.first_sample_hides {
                    // Not "if the drive has a cache, it holds at least ...": a small one may
                    // have run out unseen.
                    warned.text = format!(
                        "the run {} before any cliff: no cache of {} to {}; {}; {} to see it",
                        if w.interrupted {
                            "was interrupted"
                        } else {
                            "ended"
                        },
                        format_bytes(h.bytes as f64, units),
                        format_bytes(bound as f64, units),
                        hidden_cache_text(h, units),
                        finer_sampling(h.interval_s)
                    );
                }
                out.warnings.push(warned);
            }
        },
    }
    // Post-cache level unstable: more than one post-cache level, or wide swings within it.
    // After a return of the cache, only the phases since the last return count: the levels
    // before it were the drive without its cache, then with it again.
    let since = episodes.last().map(|e| e.1).unwrap_or(0);
    let post: Vec<&Phase> = phases
        .iter()
        .zip(&stall)
        .skip(since)
        .filter(|(p, &st)| p.kind == PhaseKind::PostCache && !st && !is_throttled(out, p))
        .map(|(p, _)| p)
        .collect();
    // Post-cache levels apart from the throttled stretches, slowdowns or stalls between them
    // that all lie within a step of each other are one level: what parts them has its own
    // warning ("500 MB/s from 30 s, then 500 MB/s from 70 s" either side of a stall).
    // Each level read off its whole samples that touch no heat, where it has any: at fine
    // sampling the samples beside a spell hold part of its level, and between 57 spells of
    // heat the levels read 904 to 1015 MB/s where their samples outside the heat held 981
    // to 1015 (`'p5-1tb,throttle_at=70,hysteresis=0.2' --seed 21`: "post-cache level
    // unstable", and the stretch quoted "493 MB/s to 1005 MB/s, not steady").
    let spans = throttled_spans(out);
    let outside_heat = |p: &Phase| {
        let rates: Vec<f64> = whole_samples(samples, p.start_s, p.end_s)
            .iter()
            .filter(|s| {
                s.interval_s > 0.0
                    && !spans
                        .iter()
                        .any(|&(a, b)| a < s.t_s - 1e-9 && b > s.t_start_s() + 1e-9)
            })
            .map(|s| s.bytes_per_sec)
            .collect();
        if rates.is_empty() {
            p.mean_bytes_per_sec
        } else {
            stats::median(&rates)
        }
    };
    let (lo, hi) = post.iter().fold((f64::INFINITY, 0.0f64), |(l, h), p| {
        let r = if spans.is_empty() {
            p.mean_bytes_per_sec
        } else {
            outside_heat(p)
        };
        (l.min(r), h.max(r))
    });
    let one_level = post.len() > 1
        && lo > 0.0
        && (hi / lo).ln() < MIN_STEP
        && (!out.slowdowns.is_empty() || stall.iter().any(|&st| st));
    if post.len() > 1 && !one_level {
        let levels: Vec<String> = post
            .iter()
            .map(|p| {
                format!(
                    "{} from {:.0} s",
                    format_rate(p.mean_bytes_per_sec, units),
                    p.start_s
                )
            })
            .collect();
        out.warnings.push(Warning::new(
            WarningKind::UnsteadyAfterCache { swings_at_s: None },
            format!(
            "post-cache level unstable: {}; the drive may be recovering or throttling, so quote \
             the post-cache speed with its time range",
            levels.join(", then ")
        ),
        ));
    } else if let (Some(p), Some(fd)) = (post.first(), first_drop) {
        let j = phases
            .iter()
            .position(|q| std::ptr::eq(q, *p))
            .unwrap_or(fd + 1);
        let seg = segs[j];
        let spread = mad_scale_about(&w.x[seg.start..seg.end], w.level(seg.start, seg.end));
        if spread > 0.25 {
            // The swing as the samples give it (a spread of logarithms read "swings by about
            // 410%" of samples at 300 and 900 MB/s).
            let (lo, hi) = stats::deciles(&w.cols.rate[seg.start..seg.end]);
            out.warnings.push(Warning::new(
                WarningKind::UnsteadyAfterCache {
                    swings_at_s: Some(p.start_s),
                },
                swing_warning_text(lo, hi, units),
            ));
        }
    }
    // A slower level under heat that began at the cache's cliff is no known folding: it is the
    // cache running out under the heat, or the heat deepening, and the thermal warning says so
    // (it was "the drive is moving cached data while writing" of the cache running out at
    // 74 s, 100 GB, under heat from 26 s).
    let heat_folding = phases
        .iter()
        .find(|p| p.kind == PhaseKind::Folding)
        .filter(|p| is_throttled(out, p))
        .and_then(|p| {
            out.cliffs
                .iter()
                .find(|c| !c.under_heat && (c.t_s - p.start_s).abs() < 1e-6)
        })
        .map(|c| {
            (
                c.t_s,
                c.before_bytes_per_sec,
                c.after_bytes_per_sec,
                c.bytes_written,
            )
        });
    // After a slower tier that ran out under the heat, the folding phase is the one after the
    // heat.
    if let Some(f) = phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Folding)
        .find(|p| {
            !is_throttled(out, p)
                || !out
                    .cliffs
                    .iter()
                    .any(|c| c.under_heat && c.t_s <= p.start_s + 1e-6)
        })
        .filter(|_| heat_folding.is_none())
    {
        let later = later_tiers(out, &phases, f);
        out.warnings.push(folding_warning(
            folding_from(out, &phases, f),
            f.mean_bytes_per_sec,
            None,
            later,
            units,
        ));
    }
    if let (Some((t_s, before, after, bytes)), Some(w)) = (
        heat_folding,
        thermal_text.iter_mut().find(|w| {
            matches!(
                w.kind,
                WarningKind::Thermal {
                    at_cache_cliff_s: Some(_)
                }
            )
        }),
    ) {
        w.text.push_str(&format!(
            "; the later drop at {} ({} -> {}), inside the heat, may be the cache running out \
             instead, after {}, or the heat deepening: the counters cannot tell which",
            crate::units::format_time_point(t_s),
            format_rate(before, units),
            format_rate(after, units),
            crate::units::format_bytes(bytes as f64, units),
        ));
    }
    // A further drop under the heat a tier ran out under, with no further rise, is said: a
    // slower tier may have run out there too, which the heat hides (`simulate
    // 'a2000-1tb,heat=0.3,throttle_at=65' --no-early-stop`: the cache ran out under the heat
    // at 105 s, its 500 MB/s tier at 1927 s, 247 -> 200 MB/s, before the drive cooled to 396
    // MB/s, and nothing named the second drop).
    let further: Vec<String> = tiers
        .iter()
        .flat_map(|t| t.change + 1..t.heat_end)
        .filter(|&m| segs[m + 1].level < segs[m].level - MIN_STEP)
        .map(|m| {
            format!(
                "{} ({} -> {})",
                crate::units::format_time_point(phases[m + 1].start_s),
                format_rate(phases[m].mean_bytes_per_sec, units),
                format_rate(phases[m + 1].mean_bytes_per_sec, units)
            )
        })
        .collect();
    if let (false, Some(w)) = (
        further.is_empty(),
        thermal_text
            .iter_mut()
            .find(|w| matches!(w.kind, WarningKind::Thermal { .. })),
    ) {
        w.text.push_str(&format!(
            "; under the same heat the rate fell again at {} with no further rise: a slower \
             tier may have run out there too, which the heat hides",
            further.join(", ")
        ));
    }
    out.warnings.extend(thermal_text);
    out.phases = phases;
    // The first sample split off its segment in step 5c (the same test, on the same values).
    let split = first_sample_above_level(w, sigma_x).is_some();
    cliff_in_first_sample_is_a_drop(samples, w.cols, out, split, units);
    first_tier_may_hide(w, out, sigma_x, units);
    fast_first_sample(w, out, units);
}

/// A first sample a quarter or more faster than the whole samples after it up to the first
/// cliff ([`cleanup::MAX_BURST_STEP`]: more than a start-up burst falls), and holding more over
/// them than a start-up burst writes ([`warnings::STARTUP_BURST_BYTES`]): a first tier may
/// have run out inside it, and one sample is no level to confirm it by. The cliff after it
/// then sizes the cache only if no such tier did, and the rate in the cache is that of the
/// whole samples after the first. An FX700 with a 5 GB first tier at 5000 MB/s, then 3500
/// MB/s to 25 GB, sampled every second, read "cache 25.0 GB, 3754 MB/s in the cache", a rate
/// no sample held, with no word of its 5038 MB/s first sample. Said as a cache the first
/// sample could hide ([`Analysis::first_sample_hides`], with the rate it ran at) and its
/// warning.
fn fast_first_sample(w: &Work, out: &mut Analysis, units: UnitSystem) {
    let samples = w.samples;
    if out.first_sample_hides.is_some()
        || out.wrapped_span_bytes.is_some()
        || out.cache_estimate.is_none()
        || samples.len() < 3
    {
        return;
    }
    let (Some(c), Some(p0)) = (out.cliffs.first(), out.phases.first()) else {
        return;
    };
    let first = &samples[0];
    if p0.kind != PhaseKind::Cache || p0.heat || first.interval_s <= 0.0 {
        return;
    }
    // The whole samples after the first before the cliff's interval: two or more.
    let k = samples.partition_point(|s| s.t_s <= c.t_low_s + 1e-9);
    if k < 3 {
        return;
    }
    // (Outside the stretches of heat the counters mark: heat that slowed the drive before
    // the cliff made a first sample at the cache's rate stand over a median of throttled
    // samples, "a faster first tier of up to 2.04 GB" of 2037 MB/s before 2034, 2000 and 2002
    // MB/s.)
    let windows = thermal::counter_windows(samples, w.cols);
    let rates: Vec<f64> = (1..k)
        .filter(|&m| !windows.iter().any(|&(i, e)| (i..e).contains(&m)))
        .map(|m| &samples[m])
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .collect();
    if rates.len() < 2 {
        return;
    }
    let level = median(&rates);
    let high = first.bytes as f64 / first.interval_s;
    let over = first.bytes as f64 - level * first.interval_s;
    if !(level > 0.0
        && high >= level * cleanup::MAX_BURST_STEP.exp()
        && over >= warnings::STARTUP_BURST_BYTES)
    {
        return;
    }
    let Some(rate) = whole_samples_rate_of(samples, w.cols, samples[1].t_start_s(), p0.end_s, 2)
    else {
        return;
    };
    out.phases[0].mean_bytes_per_sec = rate;
    out.cliffs[0].before_bytes_per_sec = rate;
    let h = HiddenCache {
        bytes: first.bytes,
        interval_s: first.interval_s,
        before_first_row: false,
        faster_bytes_per_sec: Some(high),
    };
    say_first_tier_may_hide(out, h, &finer_sampling(h.interval_s), units);
}

/// A first cliff after the first sample sizes the cache only if no faster first tier ran out
/// inside that sample: one that did lifts the sample over the level after it by less than a
/// step where it wrote little faster (the FX700 2TB's 54 GB at 5000 MB/s before 3500 MB/s to
/// 460 GB lifts a first sample of 2 min by 4%), so any tier up to the sample's bytes may hide
/// there. Said ([`Analysis::first_sample_hides`] and a warning) where the sample is long
/// enough to hide a real drive's cache by the rule of a run without a cliff (a cache that
/// lifts it by under a step at twice the level: [`SMALLEST_PUBLISHED_CACHE_BYTES`] or more),
/// not at 1 s on a drive of today (with low noise that takes a level of 19 GB/s).
fn first_tier_may_hide(w: &Work, out: &mut Analysis, sigma_x: f64, units: UnitSystem) {
    let samples = w.samples;
    let (Some(c), Some(_), None) = (
        out.cliffs.first(),
        &out.cache_estimate,
        out.wrapped_span_bytes,
    ) else {
        return;
    };
    let first = &samples[0];
    // A timeline whose first rows are missing (a `timeline.csv` cut at its start): the bytes
    // before its first row were written at rates no row holds, so any tier up to them may
    // have run out there, and the cliff seen be a later tier's (the first 28 rows of an FX700
    // run cut off, 114 GB written in them, gave "cache ~460 GB", its second tier, with no
    // word of the 54 GB first one).
    let t0 = first.t_start_s();
    let b0 = first.bytes_total.saturating_sub(first.bytes);
    let (h, to_see) =
        if t0 > 0.0 && b0 as f64 >= SMALLEST_PUBLISHED_CACHE_BYTES && c.t_low_s >= t0 - 1e-9 {
            let h = HiddenCache {
                bytes: b0,
                interval_s: t0,
                before_first_row: true,
                faster_bytes_per_sec: None,
            };
            (h, "analyse the whole timeline".to_string())
        } else {
            if samples.len() < 2 || c.t_low_s < first.t_s - 1e-9 || first.interval_s <= 0.0 {
                return;
            }
            // The noise the first sample would stand out from is that of the stretch before
            // the cliff, where it has samples enough to tell: a noisy level after the cliff
            // (350 and 650 MB/s by turns) raised the run's noise scale and hedged a flat 2000
            // MB/s cache that a quiet run of it was not.
            let shows = |sigma: f64| {
                let thr = MIN_STEP.max(4.0 * sigma);
                (thr.exp() - 1.0) * c.before_bytes_per_sec * first.interval_s
                    / (1.0 - LATER_TIER_SHARE)
            };
            if shows(sigma_x) < SMALLEST_PUBLISHED_CACHE_BYTES || first.bytes == 0 {
                return;
            }
            // Read from at most 4096 samples spread over the stretch (a selection over half a
            // million of them cost the analysis of a million samples 6 ms).
            let k = samples.partition_point(|s| s.t_s <= c.t_low_s + 1e-9);
            if k >= 8 {
                let step = (k - 1).div_ceil(4096).max(1);
                let x: Vec<f64> = w.x[1..k].iter().step_by(step).copied().collect();
                if shows(stats::mad_scale(&x)) < SMALLEST_PUBLISHED_CACHE_BYTES {
                    return;
                }
            }
            let h = HiddenCache {
                bytes: first.bytes,
                interval_s: first.interval_s,
                before_first_row: false,
                faster_bytes_per_sec: None,
            };
            (h, finer_sampling(h.interval_s))
        };
    say_first_tier_may_hide(out, h, &to_see, units);
}

/// Sets [`Analysis::first_sample_hides`] to `h` and gives its warning beside the first cliff:
/// the cliff would then be a later tier's; `to_see` says what would show it.
fn say_first_tier_may_hide(out: &mut Analysis, h: HiddenCache, to_see: &str, units: UnitSystem) {
    let Some(c) = out.cliffs.first() else {
        return;
    };
    let text = format!(
        "{}; the cliff after {} would then be a later tier's, and the cache smaller; \
         {to_see} to see it",
        sentences::hidden_tier_text(&h, units),
        format_bytes(c.bytes_written as f64, units),
    );
    out.first_sample_hides = Some(h);
    out.warnings.push(Warning::new(
        WarningKind::FirstTierMayHide {
            bytes: h.bytes,
            interval_s: h.interval_s,
        },
        text,
    ));
}

/// A timeline whose first rows are missing (its first sample starts at `t0` > 0 with `b0`
/// bytes written before it: a `timeline.csv` cut at its start) where those bytes came faster
/// than the level after them by more than a step: the cache may have run out in the missing
/// start, which is then read as one long first sample. Bounds as for a drop inside the first
/// sample ([`warnings::first_sample_drop`]); `None` otherwise. A cut-off timeline read past
/// its cliff said "no cache, or one larger than 8.51 GB" beside the 13.4 GB of its missing
/// 12 s, written at four times the level after them.
fn drop_in_missing_start(
    samples: &[crate::timeline::Sample],
    b0: f64,
    sigma_x: f64,
    units: UnitSystem,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let (first, last) = (samples.first()?, samples.last()?);
    let t0 = first.t_start_s();
    let secs = last.t_s - t0;
    if b0 <= 0.0 || t0 <= 0.0 || secs <= 0.0 {
        return None;
    }
    let level = (last.bytes_total as f64 - b0) / secs;
    let before = b0 / t0;
    if !(level > 0.0 && before > level * MIN_STEP.max(4.0 * sigma_x).exp()) {
        return None;
    }
    let missing = crate::timeline::Sample {
        t_s: t0,
        interval_s: t0,
        bytes: b0.round() as u64,
        bytes_total: b0.round() as u64,
        bytes_per_sec: before,
        ..first.clone()
    };
    let view = [missing, first.clone(), last.clone()];
    Some(warnings::first_sample_drop(&view, before, level, units))
}

/// A first sample above the level of the samples after it (the higher of the median of the
/// next ten and of all of them) by more than the noise, and holding over that level more than a start-up burst
/// writes ([`warnings::STARTUP_BURST_BYTES`]), though by less than a step: with samples of
/// minutes an 8 GB cache lifts the first by 8% (5.7 GB over the level at 4 min), too little
/// for a step and too much for a burst. A drop inside the first sample, bounded as one;
/// `None` otherwise.
fn raised_first_sample(
    samples: &[crate::timeline::Sample],
    sigma_x: f64,
    units: UnitSystem,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let first = samples.first()?;
    let rates: Vec<f64> = samples
        .iter()
        .skip(1)
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .collect();
    if rates.len() < 2 || first.interval_s <= 0.0 {
        return None;
    }
    // The higher of the level just after it and the run's: a run that comes back to the
    // first sample's level after a slow stretch had no cache running out.
    let level = median(&rates[..rates.len().min(10)]).max(median(&rates));
    first_sample_over(samples, level, sigma_x, units)
}

/// The drop inside the first sample where that sample stands over `level` by more than the
/// noise (`sigma_x`, of logarithms) and holds over it more than a start-up burst writes,
/// bounded as [`warnings::first_sample_drop`] bounds it; `None` otherwise.
fn first_sample_over(
    samples: &[crate::timeline::Sample],
    level: f64,
    sigma_x: f64,
    units: UnitSystem,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let first = samples.first().filter(|f| f.interval_s > 0.0)?;
    let high = first.bytes as f64 / first.interval_s;
    let over = first.bytes as f64 - level * first.interval_s;
    if !(level > 0.0
        && over >= warnings::STARTUP_BURST_BYTES
        && high > level * (4.0 * sigma_x).exp())
    {
        return None;
    }
    Some(warnings::first_sample_drop(samples, high, level, units))
}

/// A cliff inside the first sample is no cliff the sampling can show: no whole sample lies
/// at the cache's level, so the rate "in the cache" is the first sample's, a blend of the
/// cache and the level after it, and the cliff's place a guess across the sample
/// (`simulate 960evo-500g --interval 2m` gave "cache 49.9 GB" and "697 MB/s in the cache"
/// for a 22 GB cache at 1365 MB/s). Such a cliff becomes the drop inside the first sample
/// that a smaller step is ([`warnings::first_sample_drop`]): bounds, no size, no rate in the
/// cache. A lone one leaves one steady phase. Later cliffs stay cliffs, each a later, slower
/// tier after the drop (`simulate a2000-1tb --interval 2m` gave "cache 80.7 GB" and "1631
/// MB/s in the cache" for a 150 GB cache at 2000 MB/s run out inside its first 120 s sample):
/// the stretch up to the next of them is the level after the drop, at the rate of its whole
/// samples after the first, and the stretches after them are folding. `split`: the first
/// sample was split off its segment ([`first_sample_above_level`]), so the first change is
/// the drop inside it wherever the refinement placed it.
fn cliff_in_first_sample_is_a_drop(
    samples: &[crate::timeline::Sample],
    cols: &Columns,
    out: &mut Analysis,
    split: bool,
    units: UnitSystem,
) {
    let Some(c) = out.cliffs.first() else {
        return;
    };
    if samples.len() < 2 || !(split || c.t_s <= samples[0].t_s) || !out.returns.is_empty() {
        return;
    }
    // A later cliff whose level before it holds no whole sample is no tier: the refinement
    // split the sample after the first into two places of its own, and the level between them
    // was a rate no sample held (`simulate p5-1tb --cliffs 2 --interval 45s --pattern seqwrite
    // --seed 15`: samples of 2001, 1109 and 995 MB/s read "first post-cache level: 284 MB/s
    // (45.0 s to 71.9 s)", then a "cliff" from 284 up to 990 MB/s and a folding tier). The two
    // phases after the drop are one, at the rate of their whole samples.
    if out.cliffs.len() >= 2 && out.phases.len() >= 3 && out.phases[0].kind == PhaseKind::Cache {
        let (from, to) = (out.phases[1].start_s, out.phases[1].end_s);
        let whole = samples
            .iter()
            .filter(|s| s.t_start_s() >= from - 1e-6 && s.t_s <= to + 1e-6)
            .count();
        if whole == 0 && (out.cliffs[1].t_s - to).abs() < 1e-6 {
            let end = out.phases[2].end_s;
            let rate = whole_samples_rate(samples, cols, from, end)
                .unwrap_or(out.phases[2].mean_bytes_per_sec);
            out.phases[1].end_s = end;
            out.phases[1].mean_bytes_per_sec = rate;
            out.phases.remove(2);
            out.cliffs.remove(1);
            out.cliffs[0].after_bytes_per_sec = rate;
            // The tiers after it are one fewer.
            let cliffs: Vec<f64> = out.cliffs.iter().map(|c| c.t_s).collect();
            for p in out.phases.iter_mut().skip(1) {
                let passed = cliffs.iter().filter(|&&t| t <= p.start_s + 1e-6).count();
                if matches!(p.kind, PhaseKind::PostCache | PhaseKind::Folding) {
                    p.kind = if passed <= 1 {
                        PhaseKind::PostCache
                    } else {
                        PhaseKind::Folding
                    };
                }
            }
        }
    }
    let Some(c) = out.cliffs.first() else {
        return;
    };
    let lone = out.cliffs.len() == 1;
    let high = samples[0].bytes as f64 / samples[0].interval_s.max(1e-9);
    // Before a later cliff, the level after the drop is that of the whole samples after the
    // first up to that cliff.
    let after_drop = |out: &Analysis| {
        let next = out.phases.iter().find(|p| p.start_s >= c.t_s - 1e-9)?;
        Some(
            whole_samples_rate(samples, cols, samples[0].t_s, next.end_s)
                .unwrap_or(next.mean_bytes_per_sec),
        )
    };
    // (A lone cliff's level after it too, where a later change ends it: at 30 s
    // samples, heat from 26 s, the level read "768 MB/s", the bytes from the drop's place
    // inside a sample to the next change's over that time, where the one whole sample
    // between them held 1001 MB/s.)
    let ended = out
        .phases
        .iter()
        .find(|p| p.start_s >= c.t_s - 1e-9)
        .map(|p| p.end_s)
        .filter(|&e| e < samples[samples.len() - 1].t_s - 1e-9);
    let low = match ended {
        Some(end) if lone => whole_samples_rate_of(samples, cols, samples[0].t_s, end, 1)
            .unwrap_or(c.after_bytes_per_sec),
        None if lone => c.after_bytes_per_sec,
        _ => after_drop(out).unwrap_or(c.after_bytes_per_sec),
    };
    if !(high > low && low > 0.0) {
        return;
    }
    let (bound, text, mut drop) = warnings::first_sample_drop(samples, high, low, units);
    // The level after the drop was read off the stretch after the cliff, up to the next
    // change (a later cliff, or heat), and seen for as long as that lasts.
    if let Some(next) = out.phases.iter().find(|p| p.start_s >= c.t_s - 1e-9) {
        drop.after_s = next.end_s - samples[0].t_s;
    }
    let dropped_at = c.t_s;
    for w in &mut out.warnings {
        warnings::heat_at_a_first_sample_drop(w, dropped_at, samples[0].interval_s, samples);
    }
    out.cliffs.remove(0);
    out.cache_estimate = None;
    out.cache_lower_bound_bytes = Some(bound.round().max(0.0) as u64);
    out.warnings.retain(|w| match w.kind {
        WarningKind::CoarseSampling { .. } => false,
        WarningKind::UnsteadyAfterCache { .. } | WarningKind::Folding { .. } => !lone,
        _ => true,
    });
    out.warnings
        .push(Warning::new(WarningKind::UnconfirmedDrop, text));
    out.unconfirmed_drop = Some(drop);
    // The cache's phase and the one after it are one stretch at no known level split: steady,
    // as a run with its drop inside the first sample is; before a later cliff, the level
    // after the drop, whose first whole samples are after the first sample.
    if out.phases.len() >= 2 && out.phases[0].kind == PhaseKind::Cache {
        let (a, b) = (&out.phases[0], &out.phases[1]);
        let secs = b.end_s - a.start_s;
        let mean = if !lone {
            low
        } else if secs > 0.0 {
            (a.mean_bytes_per_sec * (a.end_s - a.start_s)
                + b.mean_bytes_per_sec * (b.end_s - b.start_s))
                / secs
        } else {
            b.mean_bytes_per_sec
        };
        let kind = match b.kind {
            PhaseKind::Throttled => PhaseKind::Throttled,
            _ if lone => PhaseKind::Steady,
            _ => PhaseKind::PostCache,
        };
        let merged = Phase {
            start_s: a.start_s,
            end_s: b.end_s,
            mean_bytes_per_sec: mean,
            kind,
            heat: false,
            stall: false,
            range_bytes_per_sec: None,
            rate_at_most: false,
        };
        out.phases.splice(0..2, [merged]);
    }
    if lone {
        for p in &mut out.phases {
            if matches!(
                p.kind,
                PhaseKind::Cache | PhaseKind::PostCache | PhaseKind::Folding
            ) {
                p.kind = PhaseKind::Steady;
            }
        }
        return;
    }
    // The drop was the cache's end: every stretch after a later cliff is a slower tier, and
    // the level before the next cliff that of the stretch after the drop.
    for p in &mut out.phases {
        let passed = out
            .cliffs
            .iter()
            .filter(|c| c.t_s <= p.start_s + 1e-9)
            .count();
        if passed >= 1 && p.kind == PhaseKind::PostCache {
            p.kind = PhaseKind::Folding;
        }
    }
    let first = out.phases[0].clone();
    if let Some(c) = out.cliffs.first_mut() {
        if (c.t_s - first.end_s).abs() < 1e-9 {
            c.before_bytes_per_sec = first.mean_bytes_per_sec;
        }
    }
    if !out
        .warnings
        .iter()
        .any(|w| matches!(w.kind, WarningKind::Folding { .. }))
    {
        if let Some(f) = out.phases.iter().find(|p| p.kind == PhaseKind::Folding) {
            let later = later_tiers(out, &out.phases, f);
            let w = folding_warning(
                folding_from(out, &out.phases, f),
                f.mean_bytes_per_sec,
                None,
                later,
                units,
            );
            out.warnings.push(w);
        }
    }
}

/// The warning for a folding phase from `t_s` at `bytes_per_sec`. `not_known_to_last`: why the
/// run does not know that the rate lasts (`None`: it wrote the whole span, so it does).
/// The words of the warning that one post-cache level swings, from `lo` to `hi` (bytes/s):
/// the range every output quotes it by, and no mean (its "around 602 MB/s" was a rate no
/// sample of 300 and 900 MB/s by turns held).
fn swing_warning_text(lo: f64, hi: f64, units: UnitSystem) -> String {
    format!(
        "post-cache level unstable: throughput swings between {} and {} (the 10th and 90th \
         percentiles of its samples); quote a range rather than one post-cache speed",
        format_rate(lo, units),
        format_rate(hi, units)
    )
}

/// The slower tiers after folding phase `f` (of `phases`): the folding phases after it that
/// start at a cliff. The parts of one level between spells of heat are none (`simulate
/// 'a2000-1tb,heat=0.3' --no-early-stop`: "1 slower phase followed it" of the 396 MB/s tier,
/// whose next part after a spell of heat was that phase).
fn later_tiers(out: &Analysis, phases: &[Phase], f: &Phase) -> usize {
    phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Folding && p.start_s > f.start_s)
        .filter(|p| out.cliffs.iter().any(|c| (c.t_s - p.start_s).abs() < 1e-6))
        .count()
}

/// Where folding phase `f` (of `phases`) began: where a slower tier ran out under the heat
/// ([`Cliff::under_heat`]) whose throttled phases alone lie between it and `f`, that cliff's
/// time; otherwise the phase's start.
fn folding_from(out: &Analysis, phases: &[Phase], f: &Phase) -> f64 {
    out.cliffs
        .iter()
        .filter(|c| c.under_heat && c.t_s <= f.start_s + 1e-6)
        .find(|c| {
            phases
                .iter()
                .filter(|p| p.start_s >= c.t_s - 1e-6 && p.end_s <= f.start_s + 1e-6)
                .all(|p| is_throttled(out, p))
        })
        .map_or(f.start_s, |c| c.t_s)
}

fn folding_warning(
    t_s: f64,
    bytes_per_sec: f64,
    not_known_to_last: Option<&'static str>,
    later: usize,
    units: UnitSystem,
) -> Warning {
    // With slower phases after it, it is tier 3, as the phase names call it, and not the
    // sustained speed ("sustained speed is this" was said of 1115 MB/s before four more
    // cliffs to 290 MB/s, which the report named "after the cache (folding)").
    let (name, what) = match (later, not_known_to_last) {
        (0, None) => ("", "sustained speed is this".to_string()),
        (0, Some(why)) => (
            "",
            format!(
                "the speed after it is this over the data written after it ({why}, so not \
                 known to be sustained)"
            ),
        ),
        (n, _) => (
            ", tier 3",
            format!(
                "{} slower {} followed it, so the speed to quote is the one after the last \
                 cliff (\"after the cache\")",
                n,
                if n == 1 { "phase" } else { "phases" }
            ),
        ),
    };
    Warning::new(
        WarningKind::Folding {
            t_s,
            bytes_per_sec,
            not_known_to_last,
            later,
        },
        format!(
            "a third, slower phase (folding{name}) from {t_s:.1} s at {}: the drive is moving \
             cached data while writing; {what}, not the first post-cache level",
            format_rate(bytes_per_sec, units)
        ),
    )
}
