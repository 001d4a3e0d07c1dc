//! The sentences every output shares (report, console, card): an analysis's parts in words.

use super::{Analysis, DropWhere, UnconfirmedDrop};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// What "after the cache" means, in the words every output that gives an after-cache figure
/// puts beside it (report.md and report.html, compare.md and a comparison's page, the library
/// page, the history page): the stretch, the steady-state test with its figures, and that
/// thermal throttling is left out. The shortest stretch judged is said as the rule for any
/// sampling interval ([`min_stretch_text`]), so that every output gives the same words: a
/// run's report.md gave "5 rounds of 6.0 s at the least" where the library page, the history
/// page and compare.md added "and be 5 samples at the least".
pub fn after_cache_definition() -> String {
    use super::after_cache::{MAX_RANGE_SHARE, MAX_SLOPE_SHARE, ROUNDS};
    let shortest = min_stretch_text(None);
    format!(
        "After the last cliff: the data written in the samples after the last cliff over the \
         time they took (the sample the cliff falls in is not among them). A stall (no writes \
         completed) is no level of the drive: the stretch begins after one right after the \
         cliff and ends before one that lasts to the end, and one inside it is left out of the \
         rate and the rounds, and said. \
         It is the drive's sustained speed only when it is steady: the samples after the cliff, \
         cut into {ROUNDS} equal rounds, have a range of at most {:.0}% of the rounds' mean and \
         a best-fit line that changes by at most {:.0}% of it across them (the steady-state \
         test of the SNIA Solid State Storage Performance Test Specification); the samples \
         that begin after the cliff must {shortest}, or the stretch is not judged (the sample \
         the cliff falls in does not count, so a stretch a little longer than that from the \
         cliff can still be too short). A stretch that is not steady, or whose samples swing \
         though its rounds pass, is quoted as a range, the 10th to 90th percentile of its \
         samples' rates (widened to its slowest and fastest round where they lie outside it), \
         never as one figure. Thermal throttling in the stretch is heat, not the \
         drive's speed: it is left out of the rate and the rounds, and said.",
        100.0 * MAX_RANGE_SHARE,
        100.0 * MAX_SLOPE_SHARE,
    )
}

/// The shortest stretch after the cliff that the steady-state test judges, for a run sampled
/// every `interval_s` ([`super::after_cache::steady_state`]: at least [`ROUNDS`] samples, one
/// a round, lasting [`ROUNDS`] rounds of [`MIN_ROUND_S`]): `last 5 rounds of 6.0 s at the
/// least` where samples are shorter than a round, `be 5 samples of 30.0 s at the least, one
/// a round` where a sample is a round or longer; the rule for any interval without one.
///
/// [`ROUNDS`]: super::after_cache::ROUNDS
/// [`MIN_ROUND_S`]: super::after_cache::MIN_ROUND_S
pub fn min_stretch_text(interval_s: Option<f64>) -> String {
    use super::after_cache::{MIN_ROUND_S, ROUNDS};
    let round = crate::units::format_seconds(MIN_ROUND_S);
    match interval_s {
        Some(i) if i >= MIN_ROUND_S => format!(
            "be {ROUNDS} samples of {} at the least, one a round",
            crate::units::format_seconds(i)
        ),
        Some(_) => format!("last {ROUNDS} rounds of {round} at the least"),
        None => format!(
            "last {ROUNDS} rounds of {round} at the least, and be {ROUNDS} samples at the \
             least (one a round where a sample lasts {round} or longer)"
        ),
    }
}

/// The coverage in words, for every output: `measured to 157 GB of 2.00 TB (stopped early)`,
/// or `filling the whole drive (2.00 TB) completes at 165 MB/s on average` (`the whole file`
/// for a regular file; for a span smaller than the drive or file, `the whole 2.00 GB span`;
/// for one short of the target's size by part of a block, both figures where they differ,
/// `the whole file (133 MB of its 134 MB, in whole blocks)`),
/// then `1 of 2 cliffs found` when the run found fewer cliffs than `--cliffs` asked for.
pub fn coverage_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let mut text = span_text(a, units)?;
    // Fewer cliffs than `--cliffs` asked for: said beside how far the run went.
    if let Some(t) = super::Findings::of(a).cliffs_short_text() {
        text += &format!("; {t}");
    }
    Some(text)
}

/// [`coverage_text`] without the cliffs found: how much of the span the run wrote (for the
/// card, which gives the cliffs found first, where its note cannot drop them).
pub fn span_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    let parts = span_parts(a, units);
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The clauses of [`span_text`], each whole: how much of the span was written (or the first
/// pass's average), then, past one pass, how often the writes wrapped. The card packs them
/// as separate parts of its note, so that neither is cut.
pub fn span_parts(a: &Analysis, units: UnitSystem) -> Vec<String> {
    let Some(c) = a.coverage.as_ref() else {
        return Vec::new();
    };
    let wrapped = c.span_bytes > 0 && c.bytes_written > c.span_bytes;
    let what = if c.span_is_drive {
        "drive"
    } else if c.span_is_file {
        "file"
    } else {
        "span"
    };
    let text = match c.whole_fill_bytes_per_sec {
        // A first pass inside the first sample has no rate of its own: past it, the wrap
        // says the rest; at it, that the whole span was written.
        None if c.whole_span && wrapped => None,
        None if c.whole_span => Some(format!(
            "the whole {what} {} written",
            c.whole_target_figures(units)
        )),
        // Past one pass, the rate of the first is not the run's mean: said as the first
        // pass's, so that one line does not hold two means of the same run.
        Some(r) if c.whole_span && wrapped => Some(format!(
            "the first pass over the whole {what} {} ran at {} on average",
            c.whole_target_figures(units),
            format_rate(r, units)
        )),
        Some(r) if c.whole_span && c.span_is_drive => Some(format!(
            "filling the whole drive {} completes at {} on average",
            c.whole_target_figures(units),
            format_rate(r, units)
        )),
        Some(r) if c.whole_span && c.span_is_file => Some(format!(
            "filling the whole file {} completes at {} on average",
            c.whole_target_figures(units),
            format_rate(r, units)
        )),
        Some(r) if c.whole_span => Some(format!(
            "filling the whole {} span completes at {} on average",
            format_bytes(c.span_bytes as f64, units),
            format_rate(r, units)
        )),
        _ => Some(format!(
            "measured to {} of {}{}",
            format_bytes(c.bytes_written as f64, units),
            format_bytes(c.span_bytes as f64, units),
            if c.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        )),
    };
    // Writes past the span went over it again: say how often, so a long sustained write is
    // not read as one pass.
    let mut parts: Vec<String> = text.into_iter().collect();
    if wrapped {
        parts.push(format!(
            "the writes wrapped: {} is {:.1} passes over the {} span",
            format_bytes(c.bytes_written as f64, units),
            c.bytes_written as f64 / c.span_bytes as f64,
            format_bytes(c.span_bytes as f64, units)
        ));
    }
    parts
}

/// The rate of the run's thermal throttling, as every output gives it: `at 492 MB/s`, or
/// across several spells `at 492 to 501 MB/s`, the range of the throttled phases' own rates
/// (the phases [`super::is_throttled`] names; of a phase that is not steady, its range; not
/// of heat that began inside the last sample, [`super::rate_at_most`], which gives only `at
/// most 825 MB/s`, and that only where no other spell gives a rate). `None` without thermal
/// throttling. Not the rate
/// of every sample that touched the heat: those at a spell's edges wrote partly at full speed,
/// and the terminal's "183 GB written at 501 MB/s" stood beside the card's "at 492 to 497
/// MB/s".
pub fn throttled_rates_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    throttled_rates_text_from(a, f64::NEG_INFINITY, units)
}

/// [`throttled_rates_text`] of the throttled phases that end after `from_s` alone: the
/// throttling "after the cache" leaves out is that after the last cliff ("the throttling at
/// 63.9 to 1722 MB/s" gave the heat before a second cliff, under which the cache's next tier
/// ran out, beside the 2.46 GB at about 65 MB/s left out after it).
fn throttled_rates_text_from(a: &Analysis, from_s: f64, units: UnitSystem) -> Option<String> {
    // A throttled phase that is not steady by its range, not its mean (the card's "at 533 MB/s"
    // stood beside every other output's "491 MB/s to 679 MB/s, not steady").
    let throttled: Vec<&super::Phase> = a
        .phases
        .iter()
        .filter(|p| p.end_s > from_s + 1e-6 && super::is_throttled(a, p))
        .collect();
    // Heat that began inside the last sample gives only a bound ([`super::rate_at_most`]):
    // left out of the range where a spell gives the rate ("at 494 to 825 MB/s" took a last
    // sample written partly before the heat for a throttled rate), else said as a bound.
    let (bounds, measured): (Vec<&super::Phase>, Vec<&super::Phase>) =
        throttled.iter().partition(|p| super::rate_at_most(a, p));
    if measured.is_empty() {
        return bounds
            .iter()
            .map(|p| p.mean_bytes_per_sec)
            .reduce(f64::max)
            .map(|hi| format!("at most {}", format_rate(hi, units)));
    }
    let rates: Vec<(f64, f64)> = measured
        .iter()
        .map(|p| {
            p.range_bytes_per_sec
                .unwrap_or((p.mean_bytes_per_sec, p.mean_bytes_per_sec))
        })
        .collect();
    let lo = rates.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
    let hi = rates.iter().map(|r| r.1).fold(0.0, f64::max);
    Some(match (format_rate(lo, units), format_rate(hi, units)) {
        (l, h) if l == h => format!("at {l}"),
        // One unit for both: "at 492 to 501 MB/s".
        (l, h) => format!(
            "at {} to {h}",
            l.strip_suffix(&format!(" {}", h.rsplit_once(' ').map_or("", |x| x.1)))
                .unwrap_or(&l)
        ),
    })
}

/// "After the cache" in words, for every output ([`super::after_cache`] defines it): the rate
/// over the data written in the samples after the last cliff, and whether that stretch passed the
/// steady-state test, with its figures. An unsteady stretch is quoted as the range of its
/// rounds, not as one rate:
/// - `591 MB/s over the 20.1 GB written in the samples after the last cliff, steady (5 rounds: range 3%,
///   trend 1%)`; `steady so far` where a slower tier may follow
///   ([`super::Coverage::later_tier_possible`])
/// - `not steady: 480 MB/s to 1000 MB/s over the 20.1 GB written in the samples after the last cliff (5
///   rounds: range 71%, trend 4%; steady is at most 20% and 10%)`
///
/// `, to the end of the span` follows the amount when the run ended at the end of one pass
/// over the span.
pub fn after_last_cliff_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    use super::after_cache::{MAX_RANGE_SHARE, MAX_SLOPE_SHARE, ROUNDS};
    let Some(ac) = a.after_cache.as_ref() else {
        // No stretch outside heat: said, where the stretch after the last cliff was all
        // thermal throttling (nothing was said, and "1924 MB/s -> 497 MB/s" read as the drive
        // after its cache).
        return match super::Findings::of(a).after {
            Some(super::findings::After::Throttled {
                bytes_per_sec,
                range_bytes_per_sec,
            }) => Some(format!(
                "no rate after the cache outside thermal throttling: the samples after the last \
                 cliff were heat to the end of the run (throttled: {}; quote it apart)",
                super::findings::throttled_rate_text(bytes_per_sec, range_bytes_per_sec, units)
            )),
            _ => None,
        };
    };
    // Only a run that ended its one pass at the end of the span wrote "to the end of it": a
    // run that wrapped stopped somewhere on a later pass (a cliff, a duration).
    let span = if a
        .coverage
        .as_ref()
        .is_some_and(|c| c.whole_span && c.bytes_written <= c.span_bytes)
    {
        ", to the end of the span"
    } else {
        ""
    };
    // The throttled time left out, with the rate it wrote at: a reader must not take the
    // rate without it for all the drive did after its cache. What is left out is the whole
    // samples any part of which fell in the stretch, not the stretch's own estimated extent
    // that the thermal warning gives (115.5 s there, 117.0 s of 1 s samples here): said so.
    // The rate is over what is left: the bytes it averages are said, not the stretch's.
    let over = if ac.throttled_s > 0.0 || ac.stalled_s > 0.0 {
        let outside = match (ac.throttled_s > 0.0, ac.stalled_s > 0.0) {
            (true, true) => "thermal throttling and stalls",
            (true, false) => "thermal throttling",
            _ => "stalls",
        };
        let mut left = Vec::new();
        if ac.throttled_s > 0.0 {
            left.push(format!(
                "{} of samples that touched thermal throttling, its spells and the \
                 part-throttled samples at their edges, {} written{}",
                crate::units::format_seconds(ac.throttled_s),
                format_bytes(ac.throttled_bytes as f64, units),
                throttled_rates_text_from(a, ac.from_s, units)
                    .map(|r| {
                        // A mean of throttled and full-speed time where the heat came and
                        // went, as its phase's name says.
                        let on_and_off = a
                            .phases
                            .iter()
                            .any(|p| p.end_s > ac.from_s + 1e-6 && super::is_on_and_off(a, p));
                        let oo = if on_and_off { ", on and off" } else { "" };
                        format!(", the throttling {r}{oo}")
                    })
                    .unwrap_or_default()
            ));
        }
        if ac.stalled_s > 0.0 {
            left.push(format!(
                "{} of stalled samples, {} written",
                crate::units::format_seconds(ac.stalled_s),
                format_bytes(ac.stalled_bytes as f64, units)
            ));
        }
        // The span's end is the samples', not the rate's: heat to the end of the run left
        // out, "989 MB/s ... outside thermal throttling, to the end of the span" read as a
        // rate that lasted to the end, where the drive throttled for the last 18 minutes.
        let span = if span.is_empty() {
            ""
        } else {
            ", which run to the end of the span"
        };
        format!(
            "over the {} written in the samples after the last cliff outside {outside} (of {} \
             in them{span}; left out: {})",
            format_bytes(
                ac.bytes
                    .saturating_sub(ac.throttled_bytes + ac.stalled_bytes) as f64,
                units
            ),
            format_bytes(ac.bytes as f64, units),
            left.join("; ")
        )
    } else {
        format!(
            "over the {} written in the samples after the last cliff{span}",
            format_bytes(ac.bytes as f64, units)
        )
    };
    let pct = |x: f64| format!("{:.0}%", 100.0 * x);
    // Steady over what was written, where a slower tier may follow: not "steady" alone, which
    // would read as the drive's sustained speed beside the warning that it may not be.
    let so_far = if a.coverage.as_ref().is_some_and(|c| c.later_tier_possible) {
        " so far"
    } else {
        ""
    };
    Some(match &ac.steady_state {
        Some(s) if s.steady => format!(
            "{} {over}, steady{so_far} ({ROUNDS} rounds: range {}, trend {})",
            format_rate(ac.mean_bytes_per_sec, units),
            pct(s.range_share),
            pct(s.slope_share)
        ),
        Some(s) if s.swing.is_some() => {
            let (lo, hi) = s.range();
            format!(
                "not steady: {} to {} {over} (10th to 90th percentile of its samples, which swing \
                 though its {ROUNDS} rounds have range {} and trend {})",
                format_rate(lo, units),
                format_rate(hi, units),
                pct(s.range_share),
                pct(s.slope_share),
            )
        }
        Some(s) => {
            let (lo, hi) = s.range();
            let quoted = if s.spread.is_some() {
                format!("{}; ", s.range_words())
            } else {
                String::new()
            };
            format!(
                "not steady: {} to {} {over} ({quoted}{ROUNDS} rounds: range {}, trend {}; steady \
                 is at most {} and {})",
                format_rate(lo, units),
                format_rate(hi, units),
                pct(s.range_share),
                pct(s.slope_share),
                pct(MAX_RANGE_SHARE),
                pct(MAX_SLOPE_SHARE)
            )
        }
        None => format!(
            "{} {over} (too short after it to tell whether it is steady)",
            format_rate(ac.mean_bytes_per_sec, units)
        ),
    })
}

/// One line for the returns of the cache, or `None` without any:
/// `cache came back once while writing: +13.9 GB`.
pub fn returns_text(a: &Analysis, units: UnitSystem) -> Option<String> {
    if a.returns.is_empty() {
        return None;
    }
    let times = match a.returns.len() {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    };
    let each: Vec<String> = a
        .returns
        .iter()
        .map(|r| format!("+{}", format_bytes(r.bytes as f64, units)))
        .collect();
    Some(format!(
        "cache came back {times} while writing: {}",
        each.join(", ")
    ))
}

/// The words for a run that only read, in place of a cache size: reads measure no write cache.
/// `reads only (1.90 GB read): no write cache measured` (capitalised where it starts a line).
pub fn read_only_text(a: &Analysis, units: UnitSystem) -> String {
    format!(
        "reads only ({} read): no write cache measured",
        format_bytes(a.bytes_total as f64, units)
    )
}

/// The words for "no cliff seen" with the lower bound `bound`: "no cache, or one larger than
/// X". A run that saw no cliff cannot tell a drive without an SLC cache from one whose cache
/// is larger than what was written. No bound (too few samples to look for a cliff): "too few
/// samples to tell whether there is a cache".
pub fn no_cliff_text(bound: Option<u64>, units: UnitSystem) -> String {
    match bound {
        Some(b) => format!(
            "no cache, or one larger than {}",
            format_bytes(b as f64, units)
        ),
        None => "too few samples to tell whether there is a cache".to_string(),
    }
}

/// [`no_cliff_text`] for an analysis: after a run that wrote the whole drive without a cliff,
/// [`whole_drive_no_cliff_text`] (no cache can be larger than the drive).
pub fn no_cliff_text_of(a: &Analysis, units: UnitSystem) -> String {
    match a
        .coverage
        .as_ref()
        .filter(|c| c.whole_span && c.span_is_drive)
    {
        // Too few samples to look for a cliff (no bound) tell nothing, whole drive or not.
        Some(c) if a.cache_lower_bound_bytes.is_some() => {
            whole_drive_no_cliff_text(c.span_bytes, c.prefill_pct, units)
        }
        _ => no_cliff_text(a.cache_lower_bound_bytes, units),
    }
}

/// The smallest fall the detector takes for a change, in words ([`super::MIN_STEP`], about
/// 10%): a cache whose rate after it is closer to its own than that runs out unseen (a 5 GB
/// cache at 1800 MB/s before 1700 MB/s was "no SLC cache ran out" under a truth of 5 GB).
pub const SMALLEST_FALL_TEXT: &str = "with a fall of a tenth or more";

/// The words for a run that wrote all of a drive of `capacity` bytes and saw no cliff; after
/// a prefill of `prefill` percent, only no *free* cache ran out.
pub fn whole_drive_no_cliff_text(capacity: u64, prefill: Option<f64>, units: UnitSystem) -> String {
    format!(
        "the whole drive ({}) was written without a cliff: {}",
        format_bytes(capacity as f64, units),
        no_cache_ran_out(prefill)
    )
}

/// "no SLC cache ran out with a fall of a tenth or more", or after a prefill, that no free
/// one did and why a cache may still be there.
fn no_cache_ran_out(prefill: Option<f64>) -> String {
    match prefill {
        None => format!("no SLC cache ran out {SMALLEST_FALL_TEXT}"),
        Some(p) => format!(
            "no free SLC cache ran out {SMALLEST_FALL_TEXT}; the drive was prefilled to {p}% \
             before the run, which may have left its cache full"
        ),
    }
}

/// What a run without a cliff cannot rule out where its first sample could hide a cache
/// ([`super::Analysis::first_sample_hides`]): `a cache under 7.20 GB that ran out inside the
/// first 4.0 min sample would not show at this interval`.
pub fn hidden_cache_text(h: &super::HiddenCache, units: UnitSystem) -> String {
    format!(
        "a cache under {} that ran out {} would not show{}",
        format_bytes(h.bytes as f64, units),
        h.place(),
        if h.before_first_row {
            ""
        } else {
            " at this interval"
        }
    )
}

/// What a run whose first cliff came after its first sample cannot rule out where that
/// sample could hide a faster first tier ([`super::Analysis::first_sample_hides`]): `a faster
/// first tier of up to 435 GB could have run out inside the first 2.0 min sample, which would
/// not show at this interval`.
pub fn hidden_tier_text(h: &super::HiddenCache, units: UnitSystem) -> String {
    format!(
        "a faster first tier of up to {} could have run out {}, {}",
        format_bytes(h.bytes as f64, units),
        h.place(),
        h.would_not_show(units)
    )
}

/// [`whole_drive_no_cliff_text`] where the first sample could hide a cache: no cache ran out
/// after it, and one under the hidden size cannot be ruled out.
pub fn whole_drive_hidden_text(
    capacity: u64,
    prefill: Option<f64>,
    h: &super::HiddenCache,
    units: UnitSystem,
) -> String {
    format!(
        "the whole drive ({}) was written without a cliff: {} after the first {} sample; {}",
        format_bytes(capacity as f64, units),
        no_cache_ran_out(prefill),
        crate::units::format_interval(h.interval_s),
        hidden_cache_text(h, units)
    )
}

/// What to do for finer samples than `dt` seconds, in words every subcommand can follow:
/// slccache's own runs take `--interval`; `analyze` reads what it is given, so a log from
/// another tool needs that tool's logging interval shortened.
pub(super) fn finer_sampling(dt: f64) -> String {
    let (flag, words) = if dt > 0.15 {
        ("100ms", "100 ms")
    } else {
        ("20ms", "20 ms")
    };
    format!(
        "sample more often, e.g. every {words} (--interval {flag} on a run of slccache; a log \
         from another tool needs its own logging interval shortened)"
    )
}

/// The words for an [`UnconfirmedDrop`], for a result line, a subtitle or a table: what was
/// seen, and what it bounds. "a drop inside the first 1.00 s sample (at least 1078 MB/s ->
/// 302 MB/s): a cache of 776 MB to 1.08 GB if it was the cache running out, less if a faster
/// first tier also ran out inside that sample" (a sample holds any number of steps unseen) or
/// "a drop after
/// 539 MB too short to confirm (199 MB/s -> 41.9 MB/s for the last 1.7 s): the cache is at
/// least 539 MB".
pub fn unconfirmed_drop_text(d: &UnconfirmedDrop, units: UnitSystem) -> String {
    unconfirmed_drop_text_with(d, false, units)
}

/// [`unconfirmed_drop_text`], its level after the drop said to hold heat where `heat`
/// ([`super::Findings::heat_after_drop`]): `(at least 1869 MB/s -> 768 MB/s, heat in it)`, as
/// the card and `runs` give that level (the terminal and report.md gave it bare).
pub fn unconfirmed_drop_text_with(d: &UnconfirmedDrop, heat: bool, units: UnitSystem) -> String {
    let heat = if heat && !d.after_is_floor {
        format!(", {}", super::findings::LEVEL_HEAT_WORDS)
    } else {
        String::new()
    };
    match d.at {
        // Heat in every later sample: the drop may as well have come later, under it.
        DropWhere::FirstSample if d.after_is_floor => format!(
            "a drop inside the first {} sample, or later under heat (at least {} -> {}): no \
             cache size, as the heat hides where it ran out: at most {} if inside that sample, \
             more if later",
            crate::units::format_interval(d.interval_s),
            format_rate(d.before_bytes_per_sec, units),
            after_drop_text(d, units),
            format_bytes(d.before_bytes_per_sec * d.interval_s, units),
        ),
        // The counters rose inside the first sample: the drop may be the heat's.
        DropWhere::FirstSample if d.heat_in_first_sample => format!(
            "a drop inside the first {} sample, as the counters rose in it (at least {} -> \
             {}{heat}): no cache size, as the drop may be the heat's and the cache may have run \
             out before it or after it: at most {} if inside that sample",
            crate::units::format_interval(d.interval_s),
            format_rate(d.before_bytes_per_sec, units),
            after_drop_text(d, units),
            format_bytes(d.before_bytes_per_sec * d.interval_s, units),
        ),
        DropWhere::FirstSample => format!(
            "a drop {} (at least {} -> {}{heat}): a cache of {} to {} if it was the cache \
             running out, less if a faster first tier also ran out inside {}",
            d.first_sample_words(),
            format_rate(d.before_bytes_per_sec, units),
            after_drop_text(d, units),
            format_bytes(d.bytes_low as f64, units),
            format_bytes(d.bytes_high as f64, units),
            if d.may_lie_in_the_next_sample() {
                "the first sample"
            } else {
                "that sample"
            },
        ),
        DropWhere::Start | DropWhere::End => format!(
            "a drop after {} too short to confirm ({} -> {}{heat} for the last {:.1} s): the \
             cache is at least {}",
            format_bytes(d.bytes_low as f64, units),
            format_rate(d.before_bytes_per_sec, units),
            format_rate(d.after_bytes_per_sec, units),
            d.after_s,
            format_bytes(d.bytes_low as f64, units),
        ),
    }
}

/// The level after an [`UnconfirmedDrop`]: `300 MB/s`, or where it is only a floor
/// ([`UnconfirmedDrop::after_is_floor`]) `at least 870 MB/s were the drop in the first
/// sample, every later sample slowed by heat`.
pub fn after_drop_text(d: &UnconfirmedDrop, units: UnitSystem) -> String {
    if d.after_is_floor {
        format!(
            "at least {} were the drop in the first sample, every later sample slowed by heat",
            format_rate(d.after_bytes_per_sec, units)
        )
    } else {
        format_rate(d.after_bytes_per_sec, units)
    }
}

/// The warning a live run gives as soon as it sees a drop inside the first sample (no cliff):
/// what was seen, and what the run does about it. `stop_at_s`: when the early stop ends the
/// run for it (`None`: the drop is too small to stop for, or the early stop is off).
pub fn first_sample_drop_text(
    d: &UnconfirmedDrop,
    stop_at_s: Option<f64>,
    units: UnitSystem,
) -> String {
    let then = match stop_at_s {
        Some(at) => format!(
            "the run stops at {} if the lower level holds, as the cache cannot be measured at \
             this interval",
            crate::units::format_seconds(at)
        ),
        None => "the run goes on to its limit".to_string(),
    };
    format!(
        "{}; {then}; to measure it, {}",
        unconfirmed_drop_text(d, units),
        finer_sampling(d.interval_s)
    )
}
