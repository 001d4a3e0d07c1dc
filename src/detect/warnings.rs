//! The warnings of an analysis that are no part of the cliff rule: an unconfirmed drop, a
//! cliff after the writes wrapped, a CPU-bound writer, thermal throttling, a later tier.

use super::cleanup::HighStart;
use super::cliffs::MIN_STEP;
use super::levels::{note_pass, Columns, Seg, Work};
use super::sentences::finer_sampling;
use super::stats::median;
use super::{
    span_of, Analysis, Coverage, DropWhere, Phase, PhaseKind, UnconfirmedDrop, Warning, WarningKind,
};
use crate::timeline::{Sample, Timeline};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// A drop inside the first sample, which is at `high` bytes/s over a level after it of `low`:
/// the cache ran out somewhere inside it, too early for the sampling to place the cliff or to
/// see the rate in the cache. The bound that holds either way (what the first sample holds
/// over the level after it), the warning, and the drop with its bounds: at least that bound,
/// at most the first sample whole plus, were the drop early in the second, that sample's
/// excess over the level after it written at the first sample's rate.
pub(super) fn first_sample_drop(
    samples: &[Sample],
    high: f64,
    low: f64,
    units: UnitSystem,
) -> (f64, String, UnconfirmedDrop) {
    first_sample_drop_over(samples, high, low, false, units)
}

/// [`first_sample_drop`] where `low` may be only a floor of the level after the drop
/// (`floor`: every later sample held heat; [`UnconfirmedDrop::after_is_floor`]), which the
/// warning then says, with the other reading the heat leaves open: a cache that ran out
/// later, under it.
pub(super) fn first_sample_drop_over(
    samples: &[Sample],
    high: f64,
    low: f64,
    floor: bool,
    units: UnitSystem,
) -> (f64, String, UnconfirmedDrop) {
    let dt = samples[0].interval_s;
    let first = samples[0].bytes as f64;
    let bound = (first - low * dt).max(0.0);
    let a = first / dt.max(1e-9);
    // The most the cache can hold: the second sample's excess over the level at the slowest
    // that level ran in the samples after it (within a step of it), so that the dips and noise
    // of the level do not shave the bound below the truth (45 s samples: "a cache of 44.7 GB
    // to 98.6 GB" for a 100 GB cache that ran out 5 s into the second sample).
    // (Not where `low` is a floor, the second sample's own rate: the heat's samples after it
    // are no level, and took the bound past the first sample's bytes, "81.6 GB to 316 GB"
    // beside "or later, under the heat, more than 289 GB".)
    let slowest = samples
        .iter()
        .skip(2)
        .filter(|_| !floor)
        .filter(|s| s.interval_s > 0.0)
        .map(|s| s.bytes as f64 / s.interval_s)
        .filter(|&r| r > low * (-MIN_STEP).exp() && r < low * MIN_STEP.exp())
        .fold(low, f64::min);
    let excess = samples
        .get(1)
        .map_or(0.0, |s| (s.bytes as f64 - slowest * s.interval_s).max(0.0));
    let upper = first
        + if a > slowest {
            excess * a / (a - slowest)
        } else {
            excess
        };
    let drop = UnconfirmedDrop {
        at: DropWhere::FirstSample,
        t_s: samples[0].t_start_s(),
        t_high_s: samples[0].t_s,
        bytes_low: bound.round() as u64,
        bytes_high: upper.round() as u64,
        before_bytes_per_sec: high,
        after_bytes_per_sec: low,
        after_is_floor: floor,
        heat_in_first_sample: false,
        after_s: samples[samples.len() - 1].t_s - samples[0].t_s,
        interval_s: dt,
    };
    if floor {
        // Heat in every later sample: the drop inside the first sample is one reading, a cache
        // that ran out later, under the heat, another (`p5-1tb,throttle_at=60` at 30 s samples:
        // a 100 GB cache that ran out in the second sample as the heat began read "a cache of
        // 13.0 GB to 60.1 GB").
        let text = format!(
            "heat slowed every sample after the first ({}), which hides where the cache ran \
             out: within the first {} sample (a cache of at most {}, and a level after it of at \
             least {}, the fastest later sample), or later, under the heat (a cache of more \
             than {}): the run gives no cache size; cool the drive (or let it idle) and {} to \
             see it",
            format_rate(high, units),
            crate::units::format_interval(dt),
            format_bytes(first, units),
            format_rate(low, units),
            format_bytes(first, units),
            finer_sampling(dt),
        );
        return (bound, text, drop);
    }
    let level = format_rate(low, units);
    let text = format!(
        "the first sample ({}) is {:.1}x the level after it ({level}): an SLC cache of {} to \
         {} may have run out within the first {} sample (or early in the next), too early to \
         measure; {} to see it",
        format_rate(high, units),
        high / low,
        format_bytes(bound, units),
        format_bytes(upper, units),
        crate::units::format_interval(dt),
        finer_sampling(dt),
    );
    (bound, text, drop)
}

/// The warning for [`Coverage::later_tier_possible`].
/// `byte_limit`: the run ended at its `--max-bytes` (the advice then is a run without that
/// limit, or with a larger one: "--no-early-stop to write the whole span" named a flag the run
/// had been given, beside the limit that stopped it).
pub(super) fn later_tier_warning(
    a: &Analysis,
    c: &Coverage,
    byte_limit: bool,
    units: UnitSystem,
) -> Option<Warning> {
    if !c.later_tier_possible {
        return None;
    }
    let or = if byte_limit {
        "without --max-bytes, which ended this run, or with a larger one"
    } else {
        "or --no-early-stop to write the whole span"
    };
    let (in_cache, last) = (a.in_cache_floor()?, a.cliffs.last()?);
    let n = a.cliffs.len();
    let kind = WarningKind::LaterTier {
        after_bytes_per_sec: last.after_bytes_per_sec,
        in_cache_bytes_per_sec: in_cache,
        cliffs_to_ask: n + 1,
    };
    Some(Warning::new(
        kind,
        format!(
        "the run wrote {} of the {} span and the level after its last cliff, {}, is still {:.0}% \
         of the in-cache rate ({}): it may be the drive's native write speed, or a second, slower \
         cache tier (the native write speed of most drives of data/published-drives.csv is \
         under half of their in-cache rate), so a later, slower tier may follow and {} may not \
         be the sustained speed; to find out, run the probe or simulate that made this run again with \
         --cliffs {} ({or})",
        format_bytes(c.bytes_written as f64, units),
        format_bytes(c.span_bytes as f64, units),
        format_rate(last.after_bytes_per_sec, units),
        100.0 * last.after_bytes_per_sec / in_cache.max(1.0),
        format_rate(in_cache, units),
        format_rate(last.after_bytes_per_sec, units),
        n + 1
    ),
    ))
}

/// A drop seen but too short to call a cliff, in a run without a cliff: a short high run at
/// the start (one sample, or a level after it that lasts no longer than a GC dip), or a low
/// run at the end. Either may be the cache running out, so "the cache is at least all that
/// was written" would be wrong. Returns a lower bound that holds either way (the bytes
/// written before the drop) and a warning.
pub(super) fn unconfirmed_drop(
    w: &Work,
    segs: &[Seg],
    start: Option<HighStart>,
    sigma_x: f64,
    units: UnitSystem,
) -> Option<(f64, String, UnconfirmedDrop)> {
    let samples = w.samples;
    let b0 = (samples[0].bytes_total - samples[0].bytes.min(samples[0].bytes_total)) as f64;
    let dt = w.samples[0].interval_s;
    let thr = MIN_STEP.max(4.0 * sigma_x);
    if let Some(hs) = start {
        if segs.len() > 1 {
            // The low level did not last to the end: the run moved on to another level.
            return None;
        }
        let high = hs.high.exp();
        let low = hs.low.exp();
        if hs.run == 1 {
            // One high sample: the drop may lie anywhere inside it. Were it the cliff, the
            // sample holds the cache plus at most one interval at the lower level.
            let first = samples[0].bytes as f64;
            let bound = (first - low * samples[0].interval_s).max(0.0);
            // One sample a little above the rest is noise or a start-up burst, unless what
            // it holds over the level after it is more than a start-up burst writes: with
            // samples minutes long, a cache of many gigabytes fills a small part of the
            // first sample and lifts it only a little.
            if hs.high - hs.low < (2.0 * thr).max(1.4f64.ln()) && bound < STARTUP_BURST_BYTES {
                return None;
            }
            return Some(first_sample_drop(samples, high, low, units));
        }
        let t_drop = samples[hs.cut].t_start_s();
        let bound = samples[hs.cut].bytes_total as f64 - samples[hs.cut].bytes as f64 - b0;
        let rest = samples[samples.len() - 1].t_s - samples[hs.cut].t_s;
        let drop = UnconfirmedDrop {
            at: DropWhere::Start,
            t_s: t_drop,
            t_high_s: samples[hs.cut].t_s,
            bytes_low: bound.max(0.0).round() as u64,
            bytes_high: bound.max(0.0).round() as u64,
            before_bytes_per_sec: high,
            after_bytes_per_sec: low,
            after_is_floor: false,
            heat_in_first_sample: false,
            after_s: rest,
            interval_s: dt,
        };
        return Some((
            bound,
            format!(
                "throughput fell from {} to {} at {:.1} s and stayed there for the last {:.1} s \
                 of the run: too short to tell the cache running out (after about {}) from a \
                 long pause; without a cliff the cache is at least {}; write for longer to tell",
                format_rate(high, units),
                format_rate(low, units),
                t_drop,
                rest,
                format_bytes(bound, units),
                format_bytes(bound, units)
            ),
            drop,
        ));
    }
    // A run of a few samples gives too few differences for a noise scale: one fall in it
    // swells the scale until the fall no longer counts. There, a fall by a third or more that
    // lasts to the end, over at least half a second, is a drop too.
    if samples.len() < SHORT_RUN {
        if let Some(i) = fall_to_the_end(w) {
            let high = w.x[..i].iter().copied().fold(f64::MIN, f64::max);
            // A sample that mixes the two levels holds the drop: it may have begun there.
            let from = (1..i)
                .rev()
                .take_while(|&j| w.x[j] < high - 1.15f64.ln())
                .last()
                .unwrap_or(i);
            return Some(low_end(w, from, i, high, b0, dt, units));
        }
    }
    // A low run at the end of the last segment, at least two samples and half a second; or
    // one last sample, if it fell by a third or more and twice the noise: too deep to call
    // noise, and were it the cache running out, "larger than all that was written" would be
    // wrong (a cliff in the last sample said "no cliff seen").
    let last = segs.last()?;
    let x = &w.x[last.start..last.end];
    let k = x
        .iter()
        .rev()
        .take_while(|&&v| v < last.level - thr)
        .count();
    let deep = |v: f64| v < last.level - (2.0 * thr).max(1.4f64.ln());
    if (k < 2 && !(k == 1 && x.last().is_some_and(|&v| deep(v)))) || k >= x.len() {
        return None;
    }
    let i = last.end - k;
    if samples[samples.len() - 1].t_s - samples[i].t_start_s() < 0.5 {
        return None;
    }
    Some(low_end(w, i, i, last.level, b0, dt, units))
}

/// Runs shorter than this many samples also look for [`fall_to_the_end`].
const SHORT_RUN: usize = 20;

/// The most a start-up burst writes above the drive's level: a drive's DRAM write buffer
/// holds well under this (tens to hundreds of MB), and an SLC cache holds several GB or more.
/// A first sample that holds more than this above the level after it is a drop inside it,
/// however small its rate's step.
pub(super) const STARTUP_BURST_BYTES: f64 = 1e9;

/// In a short run: the first sample from which every sample to the end is at least a third
/// below the highest before it (ln 1.4), lasting half a second or more.
fn fall_to_the_end(w: &Work) -> Option<usize> {
    let (x, samples) = (&w.x, w.samples);
    let n = x.len();
    let end = samples[n - 1].t_s;
    (1..n).find(|&i| {
        let high = x[..i].iter().copied().fold(f64::MIN, f64::max);
        let low = x[i..].iter().copied().fold(f64::MIN, f64::max);
        high - low >= 1.4f64.ln() && end - samples[i].t_start_s() >= 0.5
    })
}

/// The drop and warning for a low run from sample `i` to the end, after a level `high` (ln),
/// that may have begun as early as sample `from` (a sample between the two levels).
fn low_end(
    w: &Work,
    from: usize,
    i: usize,
    high: f64,
    b0: f64,
    dt: f64,
    units: UnitSystem,
) -> (f64, String, UnconfirmedDrop) {
    let samples = w.samples;
    // The rate over the low samples, bytes over time: the median of their log rates was the
    // geometric mean of two (707 MB/s for 500 and 1000 MB/s, where 750 MB/s were written).
    let (bytes, secs) = samples[i..].iter().fold((0.0, 0.0), |(b, s), x| {
        (b + x.bytes as f64, s + x.interval_s)
    });
    let low = if secs > 0.0 {
        bytes / secs
    } else {
        median(&w.x[i..]).exp()
    };
    let before = |k: usize| samples[k].bytes_total as f64 - samples[k].bytes as f64 - b0;
    let (bound, upper) = (before(from), before(i));
    let after_s = samples[samples.len() - 1].t_s - samples[i].t_start_s();
    let at = if from < i {
        format!(
            "between {} and {}",
            format_bytes(bound, units),
            format_bytes(upper, units)
        )
    } else {
        format!("after about {}", format_bytes(bound, units))
    };
    let drop = UnconfirmedDrop {
        at: DropWhere::End,
        t_s: samples[from].t_start_s(),
        t_high_s: samples[i].t_s,
        bytes_low: bound.max(0.0).round() as u64,
        bytes_high: upper.max(0.0).round() as u64,
        before_bytes_per_sec: high.exp(),
        after_bytes_per_sec: low,
        after_is_floor: false,
        heat_in_first_sample: false,
        after_s,
        interval_s: dt,
    };
    (
        bound,
        format!(
            "throughput fell from {} to {} in the last {:.1} s of the run: too short to tell the \
             cache running out ({at}) from a pause; without a cliff the cache is at least {}; \
             write for longer to tell",
            format_rate(high.exp(), units),
            format_rate(low, units),
            after_s,
            format_bytes(bound, units)
        ),
        drop,
    )
}

/// The span of `t`, when the cache estimate of `a` lies past it: the writes had wrapped
/// around the span before the cliff ([`Analysis::wrapped_span_bytes`]).
pub(super) fn wrapped_span(t: &Timeline, a: &Analysis) -> Option<u64> {
    let e = a.cache_estimate.as_ref()?;
    span_of(t).filter(|&span| e.bytes > span)
}

/// A cliff found after more bytes than the span holds: the writes had wrapped around it, so
/// the figure counts blocks written more than once and cannot be the cache size of that span
/// (which holds at most the span). Says why and what to do.
pub(super) fn wrapped_cliff_warning(a: &Analysis, units: UnitSystem) -> Option<Warning> {
    let e = a.cache_estimate.as_ref()?;
    let span = a.wrapped_span_bytes?;
    Some(Warning::new(
        WarningKind::WrappedCliff,
        format!(
        "the cliff came after {} written, more than the {} span: the writes had wrapped around \
         it ({:.1} passes), so blocks were written more than once and the drive may have freed \
         cache for the blocks it overwrote; {} is not the cache size of this span (at most {} \
         of distinct blocks); write over a span larger than the cache (--span, or the whole \
         drive) so that the first pass finds the cliff; an empty cache at the start (--trim) \
         does not make a span hold more",
        format_bytes(e.bytes as f64, units),
        format_bytes(span as f64, units),
        e.bytes as f64 / span as f64,
        format_bytes(e.bytes as f64, units),
        format_bytes(span as f64, units),
    ),
    ))
}

/// A phase counts as CPU-bound when the writer threads were busy (on a CPU, or ready to run
/// and waiting for one) at least this share of the time, in percent per job.
pub const CPU_BOUND_PCT: f64 = 90.0;

/// Phases (stretches of flat rate) in which the writer was CPU-bound: the median over their
/// samples of `cpu_pct + cpu_wait_pct` is at least [`CPU_BOUND_PCT`]. Their rate is the host's
/// limit, not the drive's. Needs at least 3 samples with CPU figures in a phase; timelines
/// without CPU figures (imports, simulations, older files) never warn.
pub(super) fn cpu_bound_warnings(samples: &[Sample], phases: &[Phase]) -> Vec<Warning> {
    let mut hits: Vec<String> = Vec::new();
    let mut worst_run: f64 = 0.0;
    for p in phases {
        let mut busy = Vec::new();
        let mut run = Vec::new();
        note_pass(samples.len());
        for s in samples {
            let mid = s.t_s - 0.5 * s.interval_s;
            if mid < p.start_s || mid > p.end_s {
                continue;
            }
            if let Some(c) = s.cpu_pct {
                busy.push(c + s.cpu_wait_pct.unwrap_or(0.0));
                run.push(c);
            }
        }
        if busy.len() < 3 {
            continue;
        }
        let b = median(&busy);
        if b >= CPU_BOUND_PCT {
            let r = median(&run);
            worst_run = worst_run.max(r);
            hits.push(format!(
                "{:.1}-{:.1} s (busy {b:.0}%, on a CPU {r:.0}%)",
                p.start_s, p.end_s
            ));
        }
    }
    if hits.is_empty() {
        return vec![];
    }
    let starved = if worst_run < 0.5 * CPU_BOUND_PCT {
        "; it was mostly waiting for a CPU, so other work on the host slowed it (with \
         autogroup scheduling, `setsid -w slccache ...` gives the writer a CPU share of its \
         own, as fio's jobs have)"
    } else {
        ""
    };
    vec![Warning::new(
        WarningKind::CpuBound,
        format!(
            "writer CPU-bound at {} (shares of one core per job){starved}: the rate there \
         measured the host, not the drive; rerun on a quieter host, with more --jobs or a \
         larger --bs",
            hits.join(", ")
        ),
    )]
}

/// How far from a drop (seconds, at least) the drive's thermal-management counters are
/// compared: the counters are read once per interval, and the refined drop time can sit an
/// interval or two from the reading that saw the transition.
const THERMAL_COUNTER_WINDOW_S: f64 = 2.0;

/// The widest reach in time (seconds) of three samples either side of a drop
/// ([`THERMAL_COUNTER_WINDOW_S`]); coarser samples reach two either side.
const THERMAL_COUNTER_SPAN_S: f64 = 30.0;

/// The shortest sampling interval (seconds) at which each rise of the thermal counters inside
/// one slower phase is named as an episode of its own.
const COARSE_EPISODE_S: f64 = 60.0;

/// The sampling interval, seconds, from which a drop is named with the rises of its own
/// samples only, not those of the samples of the next drop: a sample that long holds the
/// rise that came with its drop.
const SEPARATE_RISES_S: f64 = 10.0;

/// The drive's thermal-management transition count at the end of the last sample ending at or
/// before `t` (0 before the first: the counts start at the start of the run).
fn transitions_until(samples: &[Sample], t: f64) -> u64 {
    samples
        .iter()
        .take_while(|s| s.t_s <= t + 1e-9)
        .filter_map(|s| s.thermal_transitions)
        .last()
        .unwrap_or(0)
}

/// The count at the first sample ending at or after `t` (the last sample if none does).
fn transitions_from(samples: &[Sample], t: f64) -> u64 {
    samples
        .iter()
        .filter(|s| s.thermal_transitions.is_some())
        .find(|s| s.t_s >= t - 1e-9)
        .or_else(|| {
            samples
                .iter()
                .rev()
                .find(|s| s.thermal_transitions.is_some())
        })
        .and_then(|s| s.thermal_transitions)
        .unwrap_or(0)
}

/// What the thermal warning adds where the drop at `t` s was taken as the cache cliff.
fn taken_as_cliff_text(t: f64) -> String {
    format!(
        "; the drop at {t:.1} s was taken as the cache cliff, so the cache size is in doubt: \
         cool the drive (or let it idle) and run again"
    )
}

/// The thermal warning `w` of a drop taken as the cache cliff (at `t` s), once that cliff was
/// read as a drop inside the first sample of `dt` s (a cliff refinement placed past the
/// first sample, which was split off its segment): the drop no phase now has is named where
/// it lies, and the doubt it casts is on that drop's bounds. At 30 s samples with the heat
/// from 26 s, the warning said "fell at 39.1 s ... the drop at 39.1 s was taken as the cache
/// cliff" beside "no confirmed cliff".
pub(super) fn heat_at_a_first_sample_drop(w: &mut Warning, t: f64, dt: f64, samples: &[Sample]) {
    let WarningKind::Thermal {
        at_cache_cliff_s: Some(at),
    } = w.kind
    else {
        return;
    };
    if (at - t).abs() > 1e-6 {
        return;
    }
    let interval = crate::units::format_interval(dt);
    // Named as the sample it lies in, at samples of a minute or more (`thermal_warnings`).
    if let Some(s) = samples
        .iter()
        .find(|s| s.t_start_s() < t - 1e-6 && s.t_s > t + 1e-6)
    {
        w.text = w.text.replacen(
            &format!(
                "fell inside the sample from {:.1} s to {:.1} s (",
                s.t_start_s(),
                s.t_s
            ),
            &format!("fell inside the first {interval} sample ("),
            1,
        );
    }
    w.text = w
        .text
        .replacen(
            &format!("fell at {t:.1} s ("),
            &format!("fell inside the first {interval} sample ("),
            1,
        )
        .replace(
            &taken_as_cliff_text(t),
            &format!(
                "; the drop inside the first {interval} sample may be this heat, not the cache \
                 running out, so its bounds are in doubt: cool the drive (or let it idle) and \
                 run again"
            ),
        );
    w.kind = WarningKind::Thermal {
        at_cache_cliff_s: None,
    };
}

/// Thermal throttling, named from two kinds of evidence.
///
/// 1. The drive's own counters (NVMe SMART thermal-management transition counts, recorded
///    per interval in `thermal_transitions`): a drop between phases (the next phase at least
///    10% slower) within a few intervals of which the counts rose is thermal throttling,
///    whatever the temperature did. When the drop is the one taken as the cache cliff, the
///    warning says the cache estimate is in doubt.
/// 2. Temperature alone, for drives without such counters: a drop whose temperature at the
///    boundary is within 2 °C of the run's maximum and at least 10 °C above its minimum.
///
/// Returns the warnings and the times of the drops named thermal.
///
/// A drop at one of `tiers_s` (its time, and whether it is the first cliff) is a slower tier,
/// or the cache, that ran out under the heat (`Cliff::under_heat`), and is named so.
pub(super) fn thermal_warnings(
    samples: &[Sample],
    cols: &Columns,
    phases: &[Phase],
    tiers_s: &[(f64, bool)],
) -> (Vec<Warning>, Vec<f64>) {
    let mut out = Vec::new();
    let drops: Vec<(usize, f64)> = phases
        .windows(2)
        .enumerate()
        .filter(|(_, p)| p[1].mean_bytes_per_sec < 0.9 * p[0].mean_bytes_per_sec)
        .map(|(j, p)| (j, p[1].start_s))
        .collect();
    let temps: Vec<(f64, f64)> = if cols.temp {
        note_pass(samples.len());
        samples
            .iter()
            .filter_map(|s| s.temp_c.map(|c| (s.t_s, c)))
            .collect()
    } else {
        Vec::new()
    };
    let temp_at = |t: f64| {
        temps
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .map(|p| p.1)
    };
    // 1. The drive's counters.
    let mut by_counter: Vec<f64> = Vec::new();
    if cols.thermal {
        let dt = if cols.uniform {
            // The median of equal values (0 for none).
            cols.first_interval
        } else {
            median(&cols.interval)
        };
        // Three samples either side at fine sampling; at samples of minutes two, so that a
        // drop minutes before the heat is not taken for it (`--interval 2m` named the cache's
        // drop at 118 s heat for a transition in the sample that ended at 480 s).
        let w = (3.0 * dt)
            .min((2.0 * dt).max(THERMAL_COUNTER_SPAN_S))
            .max(THERMAL_COUNTER_WINDOW_S);
        let mut list = Vec::new();
        let mut cache_cliff = None;
        // The count up to which rises were named.
        let mut named = 0u64;
        // A drop named with no rise of its own.
        let mut unrisen = false;
        // A drop named as a cache or tier that ran out under the heat, and how many.
        let mut tiered = false;
        let mut tiered_count = 0usize;
        // Later rises inside a slower phase, named apart from the drops.
        let mut again = Vec::new();
        for (d, &(j, t)) in drops.iter().enumerate() {
            let mut before = transitions_until(samples, t - w);
            // At samples of minutes the samples compared after a drop are whole ones: the
            // sample the drop lies in and those ending within `w` of it, so that a drop
            // placed inside a sample takes no more of them than one placed on its edge (a
            // drop at 312.2 s at 4 min samples took the counts to 960 s, and named two later
            // episodes of heat as its own "+3").
            let edge = if dt >= COARSE_EPISODE_S {
                let own = samples
                    .iter()
                    .find(|s| s.t_s >= t - 1e-9)
                    .map_or(t, |s| s.t_s);
                samples
                    .iter()
                    .take_while(|s| s.t_s <= t + w + 1e-9)
                    .last()
                    .map_or(t + w, |s| s.t_s)
                    .max(own)
            } else {
                t + w
            };
            let after = transitions_from(samples, edge);
            // The drop taken as the cache cliff, where the counters rose inside the cache's
            // phase before it and the rate did not come back: the heat came before the cliff
            // and the stretch after it is heat too (`simulate p5-1tb,throttle_at=59`: the
            // counters rose at 46 s, the rate halved for 7 s, then fell at 53.2 s, and "494
            // MB/s, steady" was given as the rate after the cache, with no word of heat).
            let at_cache = phases[j].kind == PhaseKind::Cache
                && phases[j + 1].kind == PhaseKind::PostCache
                && j + 2 == phases.len();
            if at_cache && after <= before {
                let start = transitions_until(samples, phases[j].start_s);
                if transitions_until(samples, t - w) > start {
                    before = start;
                }
            }
            if after > before {
                by_counter.push(t);
                // The temperature of the sample the count rose in, not of the one nearest the
                // drop: at 30 s samples a drop placed at 30.0 s read "56 °C" of a drive that
                // throttles at 60 °C, its count rising in the sample that ended at 60.1 °C.
                let rose_in = samples
                    .iter()
                    .filter(|s| s.t_s > t - w - 1e-9)
                    .find(|s| s.thermal_transitions.is_some_and(|c| c > before))
                    .and_then(|s| s.temp_c);
                let temp_of =
                    |c: Option<f64>| c.map(|c| format!(", {c:.0} °C")).unwrap_or_default();
                // The rises named with it: at samples of 10 s or more, those up to the end
                // of its own sample where the count rose by then, and none in the samples of
                // the next drop, whose own they are (at 30 s samples a drop at 426.7 s was
                // named "+2" with the rise that came with the next drop, at 480 s; at 4 min
                // one at 334.6 s "+2" with the rise of the sample after its own). A rise an
                // earlier drop was named with is not counted again (at 30 s samples one
                // rise, 0 -> 1 in the first sample, read "+1" at 39.1 s and at 72.9 s).
                let cap = if dt >= SEPARATE_RISES_S {
                    let own = samples
                        .iter()
                        .find(|s| s.t_s >= t - 1e-9)
                        .map_or(t, |s| s.t_s);
                    let mut e = edge;
                    if transitions_until(samples, own) > before {
                        e = e.min(own);
                    }
                    if let Some(&(_, next)) = drops.get(d + 1) {
                        let before_next = samples
                            .iter()
                            .take_while(|s| s.t_s <= next + 1e-9)
                            .last()
                            .map_or(own, |s| s.t_s);
                        e = e.min(before_next.max(own));
                    }
                    e
                } else {
                    edge
                };
                let shown = transitions_from(samples, cap).min(after);
                let new = shown.saturating_sub(before.max(named));
                named = named.max(shown);
                unrisen |= new == 0;
                // At samples of a minute or more a drop placed inside a sample is named as
                // that sample: the place inside it is the refinement's reading of levels the
                // heat may have moved (`simulate p5-1tb --interval 4m`: "fell at 333.2 s", or
                // at 305.4 s as the run went on, for a rise somewhere in 240 s to 480 s).
                let at = match samples.iter().find(|s| {
                    dt >= COARSE_EPISODE_S && s.t_start_s() < t - 1e-6 && s.t_s > t + 1e-6
                }) {
                    Some(s) => format!(
                        "inside the sample from {:.1} s to {:.1} s",
                        s.t_start_s(),
                        s.t_s
                    ),
                    None => format!("{t:.1} s"),
                };
                let tier = tiers_s.iter().find(|&&(s, _)| (s - t).abs() < 1e-9);
                // A drop with no rise of its own is at the temperature of the sample it lies
                // in, not of the one an earlier rise came in (at 30 s samples "72.9 s (no
                // further rise, 77 °C" of samples at 88 and 95 °C, 77 °C the first's).
                let temp = if new > 0 {
                    temp_of(rose_in.or_else(|| temp_at(t)))
                } else {
                    temp_of(
                        samples
                            .iter()
                            .find(|s| s.t_s >= t - 1e-9)
                            .and_then(|s| s.temp_c)
                            .or_else(|| temp_at(t)),
                    )
                };
                tiered |= tier.is_some();
                tiered_count += usize::from(tier.is_some());
                let what = |first: bool| if first { "the cache" } else { "a slower tier" };
                list.push(if let (true, Some(&(_, first))) = (new > 0, tier) {
                    format!(
                        "{at} (+{new} transition(s){temp}: heat, and {} that ran out under it, \
                         as the rate after the heat, a step below the rate before it, shows)",
                        what(first)
                    )
                } else if new > 0 {
                    format!("{at} (+{new} transition(s){temp})")
                } else if let Some(&(_, first)) = tier {
                    format!(
                        "{at} (no further rise{temp}: {} that ran out under the heat, as the \
                         rate after the heat, a step below the rate before it, shows)",
                        what(first)
                    )
                } else {
                    format!(
                        "{at} (no further rise{temp}: the heat deepening, or a drop of its own \
                         under the heat)"
                    )
                });
                // Later rises inside the slower phase after it, past the samples compared:
                // at samples of a minute or more (an episode of heat spans a sample or two)
                // the rate does not come back between the episodes, one phase holds them
                // all, and each is named at the start of the sample the count rose in. Finer
                // samples see each episode's own drop (and a count that rises sample after
                // sample is one episode).
                let end_s = if dt >= COARSE_EPISODE_S {
                    phases[j + 1].end_s
                } else {
                    t
                };
                let mut prev = shown;
                for s in samples
                    .iter()
                    .filter(|s| s.t_s > cap + 1e-9 && s.t_start_s() < end_s - 1e-9)
                {
                    let Some(c) = s.thermal_transitions else {
                        continue;
                    };
                    if c > prev {
                        let at = s.t_start_s();
                        let temp = temp_at(at)
                            .map(|c| format!(", {c:.0} °C"))
                            .unwrap_or_default();
                        again.push(format!("{at:.1} s (+{} transition(s){temp})", c - prev));
                    }
                    prev = prev.max(c);
                }
                named = named.max(prev);
                if phases[j].kind == PhaseKind::Cache && phases[j + 1].kind == PhaseKind::PostCache
                {
                    cache_cliff = Some(t);
                }
            }
        }
        if !list.is_empty() {
            let at = if list[0].starts_with("inside") {
                ""
            } else {
                "at "
            };
            let whose = match (tiered, unrisen) {
                (true, _) if tiered_count == list.len() => None,
                (true, _) => Some("the others are"),
                (false, true) => Some("those with a rise are"),
                (false, false) => Some("these drops are"),
            };
            let mut text = format!(
                "thermal throttling: throughput fell {at}{} as the drive's own thermal-management \
                 counters rose{}",
                list.join(", "),
                whose
                    .map(|w| format!("; {w} heat, not the cache running out"))
                    .unwrap_or_default()
            );
            // Nothing fell at a later rise inside a slower phase: it is named as a rise.
            if !again.is_empty() {
                text.push_str(&format!(
                    "; the counters rose again inside a slower stretch, in the samples from \
                     {}",
                    again.join(", ")
                ));
            }
            if let Some(t) = cache_cliff {
                text.push_str(&taken_as_cliff_text(t));
            } else {
                text.push_str("; quote them apart from the post-cache speed");
            }
            let kind = WarningKind::Thermal {
                at_cache_cliff_s: cache_cliff,
            };
            out.push(Warning::new(kind, text));
        }
    }
    // 2. Temperature alone: only where the drive gave no counters. Where it gave them, a drop
    // they did not mark is no heat, however hot the drive was (`simulate
    // 'a2000-1tb,throttle_at=65' --cliffs 2`, never throttled, its counters 0 in every sample:
    // the second tier's drop at 985 s, at 55 °C, was named heat, its 400 MB/s left out of the
    // rate after the cache, and the cache's own cliff named heat as well).
    if cols.thermal {
        return (out, by_counter);
    }
    let Some(hot) = temps.iter().map(|p| p.1).reduce(f64::max) else {
        return (out, by_counter);
    };
    let cold = temps.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    if hot - cold < 10.0 {
        return (out, by_counter);
    }
    let hot_drops: Vec<(f64, f64)> = drops
        .iter()
        .filter(|(_, t)| !by_counter.contains(t))
        .filter_map(|&(_, t)| temp_at(t).map(|c| (t, c)))
        .filter(|&(_, c)| c >= hot - 2.0)
        .collect();
    if hot_drops.is_empty() {
        return (out, by_counter);
    }
    let list: Vec<String> = hot_drops
        .iter()
        .map(|(t, c)| format!("{t:.0} s ({c:.0} °C)"))
        .collect();
    let kind = WarningKind::Thermal {
        at_cache_cliff_s: None,
    };
    out.push(Warning::new(kind, format!(
        "thermal throttling: throughput fell at {} with the drive at its hottest ({hot:.0} °C); these drops are heat, not the cache running out; cool the drive or quote them apart",
        list.join(", ")
    )));
    by_counter.extend(hot_drops.iter().map(|p| p.0));
    (out, by_counter)
}

pub(super) use super::levels::{MIN_STALL_S, STALLED_SHARE};
/// A stretch below this share of its level's median, a fall by a third or more (ln 1.4, the
/// fall [`fall_to_the_end`] takes for a drop), is a dip worth naming when it lasts longer than
/// a garbage-collection dip.
pub(super) const DIP_SHARE: f64 = 1.0 / 1.4;
/// A dip no longer than a garbage-collection dip is named all the same when it falls below
/// [`DEEP_DIP_SHARE`] of its phase's level and alone pulls the rate of that phase this far
/// below the level (its lost bytes over the bytes the phase would have written at its level):
/// 3 %.
const DEEP_DIP_PULL: f64 = 0.03;
/// The shortest rise named ([`short_dips`]), seconds: two samples of a second or more.
const MIN_RISE_S: f64 = 2.0;
/// The longest rise named, seconds: a longer one is a level, which the segmentation parts.
const MAX_RISE_S: f64 = 20.0;
/// See [`DEEP_DIP_PULL`]: a fall by three quarters or more.
const DEEP_DIP_SHARE: f64 = 0.25;

/// The rate a dip (or a rise) over the samples `dip` left: bytes over time of the samples of
/// `phase` whose rate is `at_level` right before it, or, where the dip begins the phase, right
/// after it. `None` where it has no such sample on either side.
fn level_beside(
    samples: &[Sample],
    rate: &[f64],
    phase: std::ops::Range<usize>,
    dip: std::ops::Range<usize>,
    at_level: impl Fn(f64) -> bool,
) -> Option<f64> {
    let mut k = dip.start;
    while k > phase.start && at_level(rate[k - 1]) {
        k -= 1;
    }
    let side = if k < dip.start {
        k..dip.start
    } else {
        let mut e = dip.end;
        while e < phase.end && at_level(rate[e]) {
            e += 1;
        }
        dip.end..e
    };
    let side = &samples[side];
    let t: f64 = side.iter().map(|s| s.interval_s).sum();
    let b: u64 = side.iter().map(|s| s.bytes).sum();
    (t > 0.0).then(|| b as f64 / t)
}

/// Stalls and long dips the clean-up took into the level around them (a stretch shorter than
/// twice the longest GC dip between two equal levels is no phase): each is a run of whole
/// samples of one phase, away from the run's first and last sample, below [`DIP_SHARE`] of
/// the phase's median rate for longer than the samples one [`super::MAX_DIP_S`] dip can
/// touch (the dip plus one sample), or below
/// [`STALLED_SHARE`] of it for [`MIN_STALL_S`] or more. Stretches of heat, of a slowdown told
/// apart, or of a run with recurring dips (its own warning) are left to their warnings. One
/// warning for the stalls and one for the dips; none when there are none.
pub(super) fn short_dips(
    a: &Analysis,
    samples: &[Sample],
    rate: &[f64],
    units: UnitSystem,
) -> Vec<Warning> {
    let n = samples.len();
    if n < 4 || a.periodic.is_some() {
        return vec![];
    }
    let told = |from: f64, to: f64| {
        a.slowdowns
            .iter()
            .any(|s| from < s.t_s + s.duration_s - 1e-6 && to > s.t_s + 1e-6)
            || a.throttled
                .iter()
                .any(|s| from < s.to_s - 1e-6 && to > s.from_s + 1e-6)
    };
    // (start, seconds, level, low rate), stalls and dips apart, and the short dips deep
    // enough to move their phase's rate.
    let (mut stalls, mut dips, mut deep) = (Vec::new(), Vec::new(), Vec::new());
    // The most the short dips named pull the rate of a stretch down, a share of its level.
    let mut deep_pull: f64 = 0.0;
    // How many stretches hold them.
    let mut deep_phases = 0usize;
    // Short rises by two fifths or more that fall back inside a stretch, too short to be a
    // return of the cache (5 s back at the cache's rate after it read "not steady: 500 MB/s
    // to 812 MB/s" without a word of it): (start, seconds, level, high rate).
    let mut rises = Vec::new();
    // A stall too short for a phase that lasts to the end of the run: left out of the rate of
    // the stretch before it like any other, and said (3 s of nothing at the end was left out
    // without a word).
    let mut at_end: Option<(f64, f64, f64)> = None;
    // And one at the very start (3 s of nothing before the cache's 2000 MB/s was taken into
    // the cache's phase without a word).
    let mut at_start: Option<(f64, f64)> = None;
    for p in &a.phases {
        if p.heat || super::is_throttled(a, p) {
            continue;
        }
        let from = samples.partition_point(|s| s.t_start_s() < p.start_s - 1e-6);
        let to = samples.partition_point(|s| s.t_s <= p.end_s + 1e-6);
        if to < from + 4 {
            continue;
        }
        let level = super::levels::sparse_median(&rate[from..to]).0;
        // A stretch that falls steadily has no level its later samples dip from: the second
        // half of a fall from 1748 MB/s to 680 MB/s read "1376 MB/s -> 704 MB/s at 114.0 s for
        // 27.0 s", a dip that never came back.
        if level <= 0.0 || steady_fall(samples, rate, from..to) {
            continue;
        }
        // The short dips of this phase, named where together they pull its rate down by
        // DEEP_DIP_PULL or more.
        let mut short: Vec<(f64, f64, f64, f64)> = Vec::new();
        let mut i = from;
        while i < to {
            if rate[i] >= DIP_SHARE * level {
                i += 1;
                continue;
            }
            let j = (i..to)
                .find(|&j| rate[j] >= DIP_SHARE * level)
                .unwrap_or(to);
            // A stall at the start of a phase began in the sample astride the change, where
            // that sample is at nothing too: it is the stall's (5 s of nothing right after a
            // cliff at 30 s was said "at 31.0 s for 4.0 s").
            let mut s0 = i;
            while s0 == from && s0 > 0 && rate[s0 - 1] <= STALLED_SHARE * level {
                s0 -= 1;
            }
            let (t0, t1) = (samples[s0].t_start_s(), samples[j - 1].t_s);
            let d = t1 - t0;
            let bytes: u64 = samples[s0..j].iter().map(|s| s.bytes).sum();
            let low = bytes as f64 / d.max(1e-9);
            let edge = s0 == 0 || j >= n;
            // A dip falls from the samples right before it, not from the stretch's median: in
            // a stretch of as many 300 MB/s samples as 900 MB/s ones, every dip fell from 900
            // MB/s though the median is 600 MB/s.
            let from_level =
                level_beside(samples, rate, from..to, s0..j, |r| r >= DIP_SHARE * level)
                    .unwrap_or(level);
            if j >= n
                && s0 > 0
                && !told(t0, t1)
                && low <= STALLED_SHARE * level
                && d >= MIN_STALL_S - 1e-9
            {
                at_end = Some((t0, d, level));
            }
            if s0 == 0
                && j < n
                && !told(t0, t1)
                && low <= STALLED_SHARE * level
                && d >= MIN_STALL_S - 1e-9
            {
                at_start = Some((d, level));
            }
            if !edge && !told(t0, t1) {
                if low <= STALLED_SHARE * level {
                    if d >= MIN_STALL_S - 1e-9 {
                        stalls.push((t0, d, level, low));
                    }
                } else if d > super::MAX_DIP_S + samples[i].interval_s + 1e-9 {
                    dips.push((t0, d, from_level, low));
                } else {
                    short.push((t0, d, from_level, low));
                }
            }
            i = j;
        }
        // One deep dip that alone pulls the rate down (100 MB/s for 3 s inside 30 s of a
        // 2000 MB/s cache made its rate 1803 MB/s without a word), or many short ones that do
        // together (1 s at 120 MB/s every 5 s in a 600 MB/s level read "506 MB/s, steady").
        let span = (p.end_s - p.start_s).max(1e-9);
        let pull = |v: &[(f64, f64, f64, f64)]| {
            v.iter()
                .map(|&(_, d, _, low)| (level - low) * d)
                .sum::<f64>()
                / (level * span)
        };
        let alone: Vec<_> = short
            .iter()
            .copied()
            .filter(|&(_, d, _, low)| {
                low <= DEEP_DIP_SHARE * level && (level - low) * d >= DEEP_DIP_PULL * level * span
            })
            .collect();
        let named = if short.len() > 1 && pull(&short) >= DEEP_DIP_PULL {
            short
        } else {
            alone
        };
        if !named.is_empty() {
            deep_pull = deep_pull.max(pull(&named));
            deep_phases += 1;
            deep.extend(named);
        }
        // A rise starts after two samples at the level of its stretch and lasts no longer than
        // a few rounds: a cache the segmentation did not part from what follows it (coarse
        // samples, an interrupted run) is no rise "in a stretch at" the lower level.
        let mut i = from + 2;
        while i < to {
            let at_level = |k: usize| rate[k] * DIP_SHARE <= level && rate[k] >= DIP_SHARE * level;
            if rate[i] * DIP_SHARE <= level || !(at_level(i - 1) && at_level(i - 2)) {
                i += 1;
                continue;
            }
            let j = (i..to)
                .find(|&j| rate[j] * DIP_SHARE <= level)
                .unwrap_or(to);
            let (t0, t1) = (samples[i].t_start_s(), samples[j - 1].t_s);
            let d = t1 - t0;
            let bytes: u64 = samples[i..j].iter().map(|s| s.bytes).sum();
            let returned = a
                .returns
                .iter()
                .any(|r| t0 < r.t_s + r.duration_s + 1e-6 && t1 > r.t_s - 1e-6);
            let short = d <= MAX_RISE_S + 1e-9;
            if j < to && j - i >= 2 && d >= MIN_RISE_S - 1e-9 && short && !returned && !told(t0, t1)
            {
                // Named from the samples at the stretch's level right before it (its median
                // may lie between two levels it swings between).
                let from_level = level_beside(samples, rate, from..to, i..j, |r| {
                    r * DIP_SHARE <= level && r >= DIP_SHARE * level
                })
                .unwrap_or(level);
                rises.push((t0, d, from_level, bytes as f64 / d.max(1e-9)));
            }
            i = j;
        }
    }
    let list = |v: &[(f64, f64, f64, f64)]| {
        let mut parts: Vec<String> = v
            .iter()
            .take(3)
            .map(|&(t, d, level, low)| {
                format!(
                    "{} -> {} at {:.1} s for {:.1} s",
                    format_rate(level, units),
                    format_rate(low, units),
                    t,
                    d
                )
            })
            .collect();
        if v.len() > 3 {
            parts.push(format!("and {} more", v.len() - 3));
        }
        parts.join(", ")
    };
    let mut out = Vec::new();
    let times = |k: usize| {
        if k == 1 {
            String::new()
        } else {
            format!(" {k} times")
        }
    };
    let they = |k: usize| {
        if k == 1 {
            "it is averaged into the rate, or the range, of the stretch it lies in"
        } else {
            "they are averaged into the rates, or the ranges, of the stretches they lie in"
        }
    };
    if let Some(&(t, ..)) = stalls.first() {
        // A stall is no level of the drive: the rate of the stretch it lies in leaves it out
        // ([`super::levels::stalled_runs`]); where it lies is said, and the level of that
        // stretch (not a fall from it: the stretch may begin with the stall).
        let mut parts: Vec<String> = stalls
            .iter()
            .take(3)
            .map(|&(t, d, level, _)| {
                format!(
                    "at {t:.1} s for {d:.1} s (in a stretch at {})",
                    format_rate(level, units)
                )
            })
            .collect();
        if stalls.len() > 3 {
            parts.push(format!("and {} more", stalls.len() - 3));
        }
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: t,
                stalled: true,
            },
            format!(
                "throughput stalled and came back{}: {}; the drive or the host stopped \
                 completing writes, too shortly for a phase, so {} left out of the rate of the \
                 stretch {} in",
                times(stalls.len()),
                parts.join(", "),
                if stalls.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
                if stalls.len() == 1 {
                    "it lies"
                } else {
                    "each lies"
                }
            ),
        ));
    }
    if let Some((d, level)) = at_start {
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: 0.0,
                stalled: true,
            },
            format!(
                "throughput stalled at the start of the run: for its first {d:.1} s (before a \
                 stretch at {}); the drive or the host completed no writes yet, too shortly \
                 for a phase, so it is left out of the rate of the stretch after it, and the \
                 times of the run count from its start",
                format_rate(level, units)
            ),
        ));
    }
    if let Some((t, d, level)) = at_end {
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: t,
                stalled: true,
            },
            format!(
                "throughput stalled at the end of the run: at {t:.1} s for {d:.1} s (after a \
                 stretch at {}); the drive or the host stopped completing writes, too shortly \
                 for a phase, so it is left out of the rate of the stretch before it",
                format_rate(level, units)
            ),
        ));
    }
    if let Some(&(t, ..)) = dips.first() {
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: t,
                stalled: false,
            },
            format!(
                "throughput dipped by a third or more and came back{}: {}; longer than a \
                 garbage-collection dip ({:.0} s) but too short for a phase, so {}",
                times(dips.len()),
                list(&dips),
                super::MAX_DIP_S,
                they(dips.len())
            ),
        ));
    }
    if let Some(&(t, ..)) = rises.first() {
        let parts: Vec<String> = rises
            .iter()
            .take(3)
            .map(|&(t, d, level, high)| {
                format!(
                    "from {} to {} at {t:.1} s for {d:.1} s",
                    format_rate(level, units),
                    format_rate(high, units)
                )
            })
            .chain((rises.len() > 3).then(|| format!("and {} more", rises.len() - 3)))
            .collect();
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: t,
                stalled: false,
            },
            format!(
                "throughput rose by two fifths or more and fell back{}: {}; too short to call \
                 the cache coming back, so {} counted in the rate, or the range, of the stretch \
                 {} in",
                times(rises.len()),
                parts.join(", "),
                if rises.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
                if rises.len() == 1 {
                    "it lies"
                } else {
                    "each lies"
                }
            ),
        ));
    }
    if let Some(&(t, ..)) = deep.first() {
        out.push(Warning::new(
            WarningKind::ShortDips {
                t_s: t,
                stalled: false,
            },
            format!(
                "throughput dipped by a third or more and came back{}: {}; {} {:.1} s or less, \
                 too short to tell from a garbage-collection dip ({:.0} s, and the sample it \
                 ends in), but {} {} down by {}{:.0}%: {}",
                times(deep.len()),
                list(&deep),
                // As long as they were: a 4 s dip at 1 s samples was said to be "no longer
                // than a garbage-collection dip (3 s)".
                if deep.len() == 1 {
                    "it lasted"
                } else {
                    "each lasted"
                },
                deep.iter().map(|d| d.1).fold(0.0, f64::max),
                super::MAX_DIP_S,
                if deep.len() == 1 {
                    "it pulls"
                } else {
                    "together they pull"
                },
                if deep_phases > 1 {
                    "the rates of the stretches they lie in"
                } else if deep.len() == 1 {
                    "the rate of the stretch it lies in"
                } else {
                    "the rate of the stretch they lie in"
                },
                if deep_phases > 1 { "up to " } else { "" },
                (100.0 * deep_pull).floor().max(100.0 * DEEP_DIP_PULL),
                match (deep.len(), deep_phases) {
                    (1, _) => "it is averaged into that rate, or its range",
                    (_, 1) => "they are averaged into that rate, or its range",
                    _ => "they are averaged into those rates, or their ranges",
                }
            ),
        ));
    }
    out
}

/// Whether the rates of samples `range` fall steadily: by a third of their mean or more
/// across them, along a best-fit line that holds nine tenths of their variance or more (a
/// level with a long dip at its end falls across it too, off any line); at least eight
/// samples, read off at most 4096, spread evenly.
fn steady_fall(samples: &[Sample], rate: &[f64], range: std::ops::Range<usize>) -> bool {
    if range.len() < 8 {
        return false;
    }
    let every = range.len().div_ceil(4096).max(1);
    let pts: Vec<(f64, f64)> = range
        .clone()
        .step_by(every)
        .map(|i| (samples[i].t_s, rate[i]))
        .collect();
    let Some(fit) = super::stats::Fit::of(&pts) else {
        return false;
    };
    let (sxy, sxx, syy, rm) = (fit.sxy, fit.sxx, fit.syy, fit.y_mean);
    if sxx <= 0.0 || syy <= 0.0 || rm <= 0.0 {
        return false;
    }
    let span = samples[range.end - 1].t_s - samples[range.start].t_start_s();
    let fall = -(sxy / sxx) * span;
    fall >= rm / 3.0 && sxy * sxy >= 0.9 * sxx * syy
}

/// The fall of the best-fit line across the whole samples of `p`, bytes/s (negative for a
/// rise), with their mean rate, the line's pace (its fall each second, bytes/s) and their
/// mean time, seconds; `None` for fewer than eight. Read from the columns: the
/// samples' times are the first one's plus the intervals after it where they add up to the
/// last one's (no hole in time), and read from the samples only where they do not.
fn fall_within(
    samples: &[Sample],
    cols: &super::levels::Columns,
    p: &super::Phase,
) -> Option<(f64, f64, f64, f64)> {
    let from = samples.partition_point(|s| s.t_start_s() < p.start_s - 1e-6);
    let to = samples.partition_point(|s| s.t_s <= p.end_s + 1e-6);
    if to < from + 8 {
        return None;
    }
    let (t0, t1) = (samples[from].t_s, samples[to - 1].t_s);
    let times: Vec<f64> = {
        let mut t = t0;
        let mut v = Vec::with_capacity(to - from);
        v.push(t);
        for i in from + 1..to {
            t += cols.interval(i);
            v.push(t);
        }
        if (t - t1).abs() <= 1e-6 * (t1 - t0).abs().max(1.0) {
            v
        } else {
            super::levels::note_pass(to - from);
            samples[from..to].iter().map(|s| s.t_s).collect()
        }
    };
    let pts: Vec<(f64, f64)> = times
        .into_iter()
        .zip(cols.rate[from..to].iter().copied())
        .collect();
    let fit = super::stats::Fit::of(&pts)?;
    let pace = fit.fall_rate().filter(|_| fit.y_mean > 0.0)?;
    Some((pace * (t1 - t0), fit.y_mean, pace, fit.t_mean))
}

/// A gradual fall cut into levels ([`WarningKind::GradualFall`]): the phases either side of a
/// cliff each fall within themselves by more than a step and by half the cliff's fall or more.
/// A rate falling by 15 MB/s each second from 2000 MB/s was given as a 35.8 GB cache with five
/// cliffs and a folding tier, with no word that no level held; so was a fall of 5 MB/s each
/// second after a real cliff, as tiers that do not exist.
pub(super) fn gradual_fall(
    a: &Analysis,
    samples: &[Sample],
    cols: &super::levels::Columns,
    units: UnitSystem,
) -> Option<Warning> {
    let falls = |p: &super::Phase, step: f64| {
        fall_within(samples, cols, p).is_some_and(|(fall, mean, _, _)| {
            fall > (MIN_STEP.exp() - 1.0) * mean && fall >= 0.5 * step
        })
    };
    // Or one fall at one pace: one side falls within itself by more than a step, the other
    // at half its pace or more, and the cliff is no deeper than twice what that pace gives
    // between their middles. A rate falling 10 MB/s each second from 2000 MB/s had its first
    // 12.7 s, too short to fall a step within itself, taken for a cache of 24.7 GB with no
    // word that no level held (the clean-up makes one stretch of the fall after it,
    // [`super::cleanup::one_fall`], so no later cliff said it either).
    let a_interval = a.interval_s.max(1e-9);
    let one_pace = |before: &super::Phase, after: &super::Phase, step: f64| {
        let (Some(b), Some(a)) = (
            fall_within(samples, cols, before),
            fall_within(samples, cols, after),
        ) else {
            return false;
        };
        let (lead, other) = if a.0 / a.1 >= b.0 / b.1 {
            (a, b)
        } else {
            (b, a)
        };
        // The stretch before the cliff may have held its level before the fall began in it:
        // its last quarter (ten samples' time at the least) falls at the pace then (2000 MB/s for
        // 20 s, then 12 MB/s less each second: the cliff was put at 28.9 s).
        let tail = || {
            let len = (0.25 * (before.end_s - before.start_s)).max(10.0 * a_interval);
            let t = super::Phase {
                start_s: (before.end_s - len).max(before.start_s),
                ..before.clone()
            };
            fall_within(samples, cols, &t).is_some_and(|x| x.2 >= 0.5 * lead.2)
        };
        lead.0 > (MIN_STEP.exp() - 1.0) * lead.1
            && (other.2 >= 0.5 * lead.2 || (lead == a && tail()))
            && step <= 2.0 * lead.2 * (a.3 - b.3)
    };
    let c = a.cliffs.iter().find(|c| {
        let Some(i) = a.phases.iter().position(|p| p.end_s >= c.t_s - 1e-6) else {
            return false;
        };
        let (Some(before), Some(after)) = (a.phases.get(i), a.phases.get(i + 1)) else {
            return false;
        };
        let step = c.before_bytes_per_sec - c.after_bytes_per_sec;
        !(before.stall || after.stall || before.heat || after.heat)
            && step > 0.0
            && ((falls(before, step) && falls(after, step)) || one_pace(before, after, step))
    })?;
    let at = a.phases.iter().find(|p| p.end_s >= c.t_s - 1e-6)?;
    let from = samples.partition_point(|s| s.t_start_s() < at.start_s - 1e-6);
    let first = a.cliffs.first()?;
    let takes_first = (first.t_s - c.t_s).abs() < 1e-9
        || ((at.start_s - first.t_s).abs() < 1e-6
            && falls(at, first.before_bytes_per_sec - first.after_bytes_per_sec));
    Some(Warning::new(
        WarningKind::GradualFall {
            t_s: c.t_s,
            takes_first,
        },
        format!(
            "the rate fell gradually, not in steps: from {} at {:.1} s to {} by the end of the \
             run, falling within the stretches either side of the cliff at {:.1} s about as much \
             as at the cliff; a steady fall cut into levels gives cliffs that may be no cache \
             running out, so the levels and the sizes at those cliffs may be no more than \
             places on that fall",
            format_rate(samples[from.min(samples.len() - 1)].bytes_per_sec, units),
            at.start_s,
            format_rate(samples[samples.len() - 1].bytes_per_sec, units),
            c.t_s
        ),
    ))
}

/// How many times faster than both samples beside it, and than the run's median, a sample
/// must be to be a spike ([`spikes`]).
const SPIKE_RATIO: f64 = 10.0;

/// Samples with a sample on either side that read [`SPIKE_RATIO`] times both of them and the
/// run's median: one warning naming them, since each is counted in the rate of the stretch it
/// lies in (one row of 900 GB/s among rows of 500 MB/s made a level of 22988 MB/s).
pub(super) fn spikes(samples: &[Sample], rate: &[f64], units: UnitSystem) -> Option<Warning> {
    if samples.len() < 3 {
        return None;
    }
    let rate = |i: usize| rate[i];
    let beside = |i: usize| rate(i - 1).max(rate(i + 1));
    let above: Vec<usize> = (1..samples.len() - 1)
        .filter(|&i| rate(i) > SPIKE_RATIO * beside(i))
        .collect();
    // The run's median only where a sample stands out from its neighbours (rarely).
    if above.is_empty() {
        return None;
    }
    let step = samples.len().div_ceil(super::levels::LEVEL_SAMPLES).max(1);
    let all: Vec<f64> = (0..samples.len()).step_by(step).map(rate).collect();
    let med = median(&all);
    let found: Vec<usize> = above
        .into_iter()
        .filter(|&i| rate(i) > SPIKE_RATIO * med)
        .collect();
    let &first = found.first()?;
    let mut parts: Vec<String> = found
        .iter()
        .take(3)
        .map(|&i| {
            format!(
                "{} at {:.1} s ({:.0}x the samples beside it)",
                format_rate(rate(i), units),
                samples[i].t_s,
                rate(i) / beside(i).max(1.0)
            )
        })
        .collect();
    if found.len() > 3 {
        parts.push(format!("and {} more", found.len() - 3));
    }
    let (what, it) = if found.len() == 1 {
        (
            "a sample reads",
            "it is counted in the rate of the stretch it lies in",
        )
    } else {
        (
            "samples read",
            "they are counted in the rates of the stretches they lie in",
        )
    };
    Some(Warning::new(
        WarningKind::Spikes {
            t_s: samples[first].t_s,
        },
        format!(
            "{what} {}: no drive writes that much faster for one sample; a broken row, or a \
             clock that stalled? {it}, so check the input",
            parts.join(", ")
        ),
    ))
}

/// Least rise between two levels, as a ratio, that [`rises`] names: half again, well above
/// the noise of a level and the steps of a GC dip's edges.
const RISE_RATIO: f64 = 1.5;

/// Rises of the rate between two levels that last ([`WarningKind::Rise`]): a level half
/// again or more above the one before it, with no cliff's return of the cache, end of a
/// slowdown, stall or heat between them. No cache running out makes a drive faster (`analyze`
/// of 500 MB/s rows and then 2000 MB/s ones said only "no cliff seen: no cache, or one larger
/// than 100 GB"); the first is named, with how many more there were.
pub(super) fn rises(a: &Analysis, units: UnitSystem) -> Option<Warning> {
    let spans = super::throttled_spans(a);
    let near = |x: f64, y: f64| (x - y).abs() <= a.interval_s.max(1e-9) + 1e-6;
    // After the last cliff the unsteady-level warning names every level already.
    let unsteady_from = a
        .warnings
        .iter()
        .any(|w| matches!(w.kind, WarningKind::UnsteadyAfterCache { .. }))
        .then(|| a.cliffs.last().map(|c| c.t_s))
        .flatten();
    let explained = |t: f64| {
        unsteady_from.is_some_and(|from| t >= from)
            || a.returns.iter().any(|r| near(r.t_s, t))
            || a.slowdowns.iter().any(|s| near(s.t_s + s.duration_s, t))
            || spans.iter().any(|&(_, to)| near(to, t))
            || a.cliffs.iter().any(|c| near(c.t_s, t))
    };
    let found: Vec<(f64, f64, f64)> = a
        .phases
        .windows(2)
        .filter(|w| {
            let (p, q) = (&w[0], &w[1]);
            !p.stall
                && !q.stall
                && !p.heat
                && !super::is_throttled(a, p)
                && p.mean_bytes_per_sec > 0.0
                && q.mean_bytes_per_sec > RISE_RATIO * p.mean_bytes_per_sec
                && !explained(q.start_s)
        })
        .map(|w| {
            (
                w[1].start_s,
                w[0].mean_bytes_per_sec,
                w[1].mean_bytes_per_sec,
            )
        })
        .collect();
    let &(t_s, from, to) = found.first()?;
    let more = match found.len() {
        1 => String::new(),
        n => format!(" ({} more such rises)", n - 1),
    };
    Some(Warning::new(
        WarningKind::Rise { t_s },
        format!(
            "throughput rose from {} to {} at {:.1} s ({:.1}x) and stayed up{more}: a cache \
             running out gives no rise; the drive or the host held the writes back before it \
             (an earlier write still being folded, a throttle), or the input joins two runs; \
             the levels are given apart, and the run's mean blends them",
            format_rate(from, units),
            format_rate(to, units),
            t_s,
            to / from
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{analyze, synth};

    fn trace_with_cpu(run: Option<f64>, wait: Option<f64>) -> Timeline {
        let (mut t, _) = synth::simulate(&synth::two_phase(400, 0.1), 4);
        for s in &mut t.samples {
            s.cpu_pct = run;
            s.cpu_wait_pct = wait;
        }
        t
    }

    fn cpu_warning(a: &Analysis) -> Option<&str> {
        a.warnings
            .iter()
            .find(|w| w.kind == WarningKind::CpuBound)
            .map(Warning::as_str)
    }

    #[test]
    fn a_busy_writer_is_named_and_an_idle_one_is_not() {
        let a = analyze(&trace_with_cpu(Some(97.0), Some(0.5)));
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert!(w.contains("measured the host, not the drive"), "{w}");
        assert!(!w.contains("waiting for a CPU"), "{w}");
        assert!(cpu_warning(&analyze(&trace_with_cpu(Some(20.0), Some(1.0)))).is_none());
        // Old timelines and imports have no CPU figures: no warning.
        assert!(cpu_warning(&analyze(&trace_with_cpu(None, None))).is_none());
    }

    #[test]
    fn a_writer_starved_by_other_work_is_named_too() {
        // On a CPU 35% of the time and runnable but waiting another 60%: busy 95%.
        let a = analyze(&trace_with_cpu(Some(35.0), Some(60.0)));
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert!(w.contains("waiting for a CPU"), "{w}");
        // Without schedstat (no wait figure) the same run time is not CPU-bound.
        assert!(cpu_warning(&analyze(&trace_with_cpu(Some(35.0), None))).is_none());
    }

    #[test]
    fn only_the_busy_phase_is_named() {
        let mut t = trace_with_cpu(Some(10.0), Some(0.0));
        let a0 = analyze(&t);
        let cliff = a0.cliffs.first().expect("a cliff").t_s;
        for s in t.samples.iter_mut().filter(|s| s.t_s > cliff + 1.0) {
            s.cpu_pct = Some(99.0);
        }
        let a = analyze(&t);
        let w = cpu_warning(&a).expect("CPU-bound warning");
        assert_eq!(w.matches(" s (busy").count(), 1, "{w}");
    }
}
