//! `card.png`: a 1200x630 review card (the size link previews use) that reads in two seconds:
//! the drive, the cache size with its interval, the speed in the cache and after it, and a
//! small sparkline of the throughput over data written.

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use crate::detect::findings::{After, Cache, Findings};
use crate::detect::{Analysis, DropWhere};
use crate::report::charts::{palette, workload_text_of, Rgb, Theme};
use crate::report::draw::text::{Label, Style};
use crate::report::draw::{colors, fit_text, ink, register_fonts};
use crate::timeline::Timeline;
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The card's size in pixels.
pub const CARD_SIZE: (u32, u32) = (1200, 630);
/// The card's left and right margin, px.
const CARD_X0: i32 = 56;

/// The card's texts: (drive, cache line, in-cache line, after-cache line).
pub fn card_texts(t: &Timeline, a: &Analysis, u: UnitSystem) -> (String, String, String, String) {
    let drive = crate::report::charts::run_title(&t.meta);
    let f = Findings::of(a);
    let estimate = |b: u64, lo: u64, hi: u64| {
        crate::units::format_bytes_estimate(b as f64, lo as f64, hi as f64, u)
    };
    let cache = match &f.cache {
        // The first sample could hide a faster first tier: the cliff, not the cache's size
        // (the note says what may hide before it).
        Cache::Sized {
            bytes,
            low_bytes,
            high_bytes,
        } if f.first_sample_hides.is_some() => {
            let (size, lo, hi) = estimate(*bytes, *low_bytes, *high_bytes);
            format!("Cliff after {size} ({lo} to {hi})")
        }
        Cache::Sized {
            bytes,
            low_bytes,
            high_bytes,
        } => {
            let (size, lo, hi) = estimate(*bytes, *low_bytes, *high_bytes);
            format!("SLC cache {size} ({lo} to {hi})")
        }
        // Past the span the figure counts blocks written twice: no cache size.
        Cache::Wrapped { .. } => {
            crate::units::capitalized(&f.wrapped_short_text(u).expect("wrapped"))
        }
        // Heat in every later sample: the drop may have come later, under it.
        Cache::Unconfirmed(d) if d.at == DropWhere::FirstSample && d.heat_may_hide_end() => {
            format!(
                "Drop in the first {} sample or under heat",
                crate::units::format_interval(d.interval_s)
            )
        }
        Cache::Unconfirmed(d) if d.at == DropWhere::FirstSample => {
            crate::units::capitalized(&format!("drop {}", d.first_sample_words()))
        }
        Cache::Unconfirmed(d) => format!(
            "Drop after {}, too short to confirm",
            format_bytes(d.bytes_low as f64, u)
        ),
        // Past one pass over the span, the bound is the span, not what was written.
        Cache::AtLeast { bytes, interrupted } => {
            let line = match &a.coverage {
                Some(c) if c.span_bytes > 0 && c.bytes_written > c.span_bytes => format!(
                    "No cliff over the {} {}, written {:.0}×",
                    format_bytes(c.span_bytes.min(*bytes) as f64, u),
                    // A file's size shown short of the file's: the figure is the span's.
                    if c.span_is_file && !c.span_shows_short_of_target(u) {
                        "file"
                    } else {
                        "span"
                    },
                    c.bytes_written as f64 / c.span_bytes as f64
                ),
                _ => format!("No cliff in {} written", format_bytes(*bytes as f64, u)),
            };
            if *interrupted {
                format!("{line}, interrupted")
            } else {
                line
            }
        }
        Cache::NoneOverWholeDrive {
            capacity_bytes,
            prefill_pct,
        } => format!(
            "No cliff over the whole {} drive{}",
            format_bytes(*capacity_bytes as f64, u),
            prefill_pct.map_or(String::new(), |p| format!(", prefilled {p}%"))
        ),
        Cache::TooFewSamples => "Too few samples to tell".to_string(),
        Cache::HiddenByLink { link } => format!("Cache hidden by the {link} link"),
        Cache::HiddenByIops { .. } => "Cache hidden by the IOPS limit".to_string(),
        Cache::NothingWritten => "Nothing written".to_string(),
        Cache::ReadOnly { .. } | Cache::NotEstimated => crate::units::capitalized(&f.cache_text(u)),
    };
    if let Cache::Unconfirmed(d) = &f.cache {
        let before = match d.at {
            DropWhere::FirstSample => {
                format!("first  ≥ {}", format_rate(d.before_bytes_per_sec, u))
            }
            _ => format!("before  {}", format_rate(d.before_bytes_per_sec, u)),
        };
        // A level that is only a floor (every later sample held heat) with the card's own
        // sign, short enough for its line: the note names the heat.
        let after = if d.after_is_floor {
            format!(
                "after  ≥ {} (or hidden by heat)",
                format_rate(d.after_bytes_per_sec, u)
            )
        } else {
            format!("after  {}", f.after_cell(u).unwrap_or_default())
        };
        return (drive, cache, before, after);
    }
    let in_cache = match (f.in_cache_text(u), f.level_label(a.read_only)) {
        (_, Some((label, r))) if a.read_only => format!("{label}  {}", format_rate(r, u)),
        _ if a.read_only => String::new(),
        // Before a cliff the first sample may undercut, or past a span the writes wrapped:
        // the level before it, named as every output names it ([`Findings::in_cache_name`]).
        (Some(r), _) if f.in_cache_name() == "before the cliff" => {
            format!("before the cliff  {r}")
        }
        (Some(r), _) => format!("in cache  {r}"),
        // No rate in the cache: the run's one level, named as `simulate` names it.
        (None, Some((label, r))) => format!("{label}  {}", f.level_text(r, u)),
        (None, None) => String::new(),
    };
    // "After the cache" is the stretch after the last cliff; a tier before it is in the note.
    // With what the rate leaves out or may not be, as every output gives it.
    let caveats = f.after_caveats();
    let after = match &f.after {
        Some(After::NotSteady {
            low_bytes_per_sec,
            high_bytes_per_sec,
        }) => format!(
            "after  {}",
            crate::detect::findings::with_caveats(
                format!(
                    "{} to {} (not steady)",
                    crate::report::charts::rate_number(*low_bytes_per_sec, u),
                    format_rate(*high_bytes_per_sec, u)
                ),
                &caveats
            )
        ),
        Some(a @ After::Throttled { .. }) => format!("after  {}", a.short_text(u)),
        Some(_) => format!("after  {}", f.after_caveated(u).unwrap_or_default()),
        None => String::new(),
    };
    (drive, cache, in_cache, after)
}

/// The card's line under the speeds: the returns of the cache, the rate over the data written
/// after the last cliff with that amount and how much of the span was written (or the
/// whole-fill average), and, when the analysis warns of it, that a slower tier
/// may follow. `None` when there is nothing to say.
pub fn card_note(a: &Analysis, u: UnitSystem) -> Option<String> {
    let parts = card_note_parts(a, u);
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The parts of [`card_note`], each whole.
pub fn card_note_parts(a: &Analysis, u: UnitSystem) -> Vec<String> {
    let mut parts = Vec::new();
    // No cliff, but samples long enough to hide a cache inside the first: the card's "No
    // cliff" line must not read as "no cache"; a cliff after such a sample, whose headline
    // must not read as the cache's size. First, so that the note never drops it.
    let f = crate::detect::Findings::of(a);
    if let Some(h) = f.first_sample_hides {
        let what = if matches!(f.cache, Cache::Sized { .. }) {
            "a faster first tier of up to"
        } else {
            "a cache under"
        };
        // A first sample that ran faster than the level after it shows the tier, but no
        // more than one sample's worth: "unseen" would say less than the chart shows.
        parts.push(match h.faster_bytes_per_sec {
            Some(r) => format!(
                "a first tier of up to {} may have run out in the first sample ({}, {})",
                format_bytes(h.bytes as f64, u),
                crate::units::format_interval(h.interval_s),
                crate::units::format_rate(r, u)
            ),
            None => format!(
                "{what} {} could run out unseen {}",
                format_bytes(h.bytes as f64, u),
                h.place()
            ),
        });
    }
    if let (Some(d), true) = (&a.unconfirmed_drop, !a.read_only) {
        parts.push(match d.at {
            // Heat in every later sample: the cache may have run out under it instead.
            DropWhere::FirstSample if d.heat_may_hide_end() => format!(
                "no cache size: heat hides where it ran out (at most {} if in the first sample)",
                format_bytes(d.before_bytes_per_sec * d.interval_s, u)
            ),
            DropWhere::FirstSample => format!(
                "cache {} to {} if it ran out there, less if a faster first tier did too; \
                 sample more often",
                format_bytes(d.bytes_low as f64, u),
                format_bytes(d.bytes_high as f64, u)
            ),
            _ => format!(
                "lower level seen {:.1} s, no longer than a pause; cache ≥ {}",
                d.after_s,
                format_bytes(d.bytes_low as f64, u)
            ),
        });
    }
    // An emulation that fell short of its model, which the terminal warns of: its rates
    // measured the host, so the card's figures are not the model's. First, so that the note
    // never drops it.
    if a.emulation_fell_short {
        parts.push("the emulation fell short: the rates measured the host, not the model".into());
    }
    // Fewer cliffs than `--cliffs` asked for: first, so that the note never drops it.
    if let Some(t) = crate::detect::Findings::of(a).cliffs_short_text() {
        parts.push(t);
    }
    if let Some(r) = crate::detect::returns_text(a, u) {
        parts.push(r);
    }
    // Thermal throttling, which the terminal warns of: where it began, so that the card does
    // not read as if the rates after the cache were the drive's alone.
    // Each stretch once, however many levels it holds (a stretch from 26 s that held two
    // levels read "from 26 s and 74 s", as if the heat had begun twice).
    let hot: Vec<String> = crate::detect::throttled_spans(a)
        .iter()
        .filter(|&&(from, to)| {
            a.phases.iter().any(|p| {
                p.start_s < to - 1e-6 && p.end_s > from + 1e-6 && crate::detect::is_throttled(a, p)
            })
        })
        // In one unit, so that two starts read as two times ("419.6 s, 10.8 min" did not).
        .map(|&(from, _)| format!("{from:.0} s"))
        .collect();
    if !hot.is_empty() {
        // With the rate it wrote at, left out of "after" (the card's "after" alone would
        // read as all the drive did after its cache).
        // The throttled phases' own rates, as report.md's rows and the charts' labels give
        // them (the bytes of every sample that touched the heat blended its full-speed parts
        // in: 584 MB/s where each spell ran at 487 to 498), one figure or their range.
        let at = crate::detect::throttled_rates_text(a, u)
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        let from = match hot.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => hot.join(""),
        };
        // Where the heat came and went inside a stretch, its rate is a mean of both, as its
        // phase's name says.
        let on_and_off = if a.phases.iter().any(|p| crate::detect::is_on_and_off(a, p)) {
            ", on and off"
        } else {
            ""
        };
        parts.push(format!("thermal throttling{at} from {from}{on_and_off}"));
    }
    // Stalls, which the terminal warns of: the card's "after" holds them (its rounds read down
    // to nothing), so it says where they were.
    let stalls: Vec<String> = a
        .phases
        .iter()
        .filter(|p| p.stall)
        .map(|p| format!("{:.0} s for {:.0} s", p.start_s, p.end_s - p.start_s))
        .collect();
    if !stalls.is_empty() {
        parts.push(format!("stalled from {}", stalls.join(", ")));
    }
    // A rate in the cache at the link's ceiling, which the terminal and report.md warn of
    // (where the link hid the cache, the headline says so and there was no cache phase).
    if let (Some(link), false) = (&a.link_limited, a.cliffs.is_empty()) {
        parts.push(crate::link::card_text(link));
    }
    // Tiers before the last cliff (not where the cache came back): their levels, so that
    // "after" is the stretch after the last cliff alone, each under the name of the phase
    // that starts at its cliff.
    if a.returns.is_empty() {
        let f = crate::detect::Findings::of(a);
        let n = f.steps.len();
        for (i, s) in f.steps.iter().enumerate().take(n.saturating_sub(1)) {
            let at = a.phases.iter().position(|p| p.start_s >= s.t_s - 1e-6);
            // A level of thermal throttling is in the line of the heat above, with its rate
            // ("thermal throttling: 1001 MB/s (thermal throttling)" said it twice).
            if at.is_some_and(|k| crate::detect::is_throttled(a, &a.phases[k])) {
                continue;
            }
            let name = at
                .and_then(|i| f.phase_names.get(i))
                .map_or("next tier", String::as_str);
            parts.push(format!("{name}: {}", f.step_after_text(i, u)));
        }
    }
    // A run that did not write to the end of the span saw the last speed only over the data
    // it wrote after the last cliff: the line under the speeds says how much.
    // What "after" is: the rate of the samples after the last cliff, with what they wrote (on
    // every card with that figure, a run over the whole span or one whose writes wrapped too).
    if let (Some(ac), false) = (&a.after_cache, a.cliffs.is_empty() || a.read_only) {
        // The rate leaves out the bytes written in thermal throttling: said, with the
        // terminal's figures.
        let mut heat = if ac.throttled_bytes > 0 {
            format!(
                ", less {} of thermal throttling",
                format_bytes(ac.throttled_bytes as f64, u)
            )
        } else {
            String::new()
        };
        if ac.stalled_s > 0.0 {
            heat.push_str(&format!(
                ", less {} of stalls",
                crate::units::format_seconds(ac.stalled_s)
            ));
        }
        parts.push(format!(
            "after = rate of the samples after the last cliff ({}){heat}",
            format_bytes(ac.bytes as f64, u)
        ));
    }
    match &a.coverage {
        Some(c) if !c.whole_span => {
            parts.push(format!(
                "measured to {} of {}{}",
                format_bytes(c.bytes_written as f64, u),
                format_bytes(c.span_bytes as f64, u),
                if c.stopped_early {
                    " (stopped early)"
                } else {
                    ""
                }
            ));
        }
        _ => parts.extend(crate::detect::span_parts(a, u)),
    }
    parts
}

/// Most lines the card's note takes in its own size (the sparkline gives up a line for each
/// past the first).
pub const NOTE_LINES: usize = 3;

/// Most lines a long note takes, in smaller type ([`pack_note`]).
pub const NOTE_LINES_MOST: usize = 4;

/// The card's after-cache text as drawn, its style, and whether it goes on a line of its own
/// under the in-cache text: beside it, right-aligned, in the width the in-cache text leaves (a
/// gap of 40 px), where it fits there whole, if need be shrunk; else on the next line, and
/// what follows moves down. Cut to fit beside it, it lost its unit and what it may not be
/// ("after  379…" for "after  379 MB/s (too short to judge; a slower tier may follow)").
pub fn after_drawn(in_cache: &str, after: &str, st: Style) -> (String, Style, bool) {
    let width = (CARD_SIZE.0 as i32 - 2 * CARD_X0) as f64;
    let big = Style::new(34.0).bold();
    let room = width - big.width(in_cache) - 40.0;
    let (beside, bst) = fit_text(after, st.anchor(HPos::Right), room);
    if beside == after {
        return (beside, bst, false);
    }
    // On its own line, whole where the short form of its qualifiers lets it be: cut, it lost
    // its figure's unit and kept the words ("after  1004… (too short to judge; heat left out;
    // a slower tier may follow)").
    let short = after.replace("(too short to judge", "(too short");
    for text in [after, short.as_str()] {
        let (fitted, fst) = fit_text(text, st, width);
        if fitted == text {
            return (fitted, fst, true);
        }
    }
    let (text, st) = fit_text(&short, st, width);
    (text, st, true)
}

/// `parts` packed into lines no wider than `max_w`, joined with " · ", and the style they fit
/// in: a part that does not fit on a line goes to the next, so that no part is cut. A note
/// that needs more than [`NOTE_LINES`] lines at `st` is packed again in smaller type (90 %),
/// then on up to [`NOTE_LINES_MOST`] lines, smaller still down to 75 % of `st` (the floor
/// [`fit_text`] shrinks to); only a note too long even then has its last line shortened, by
/// [`fit_text`] when it is drawn.
pub fn pack_note(parts: &[String], st: Style, max_w: f64) -> (Vec<String>, Style) {
    let mut packed = (Vec::new(), st);
    for (most, share) in [
        (NOTE_LINES, 1.0),
        (NOTE_LINES, 0.9),
        (NOTE_LINES_MOST, 0.9),
        (NOTE_LINES_MOST, 0.83),
        (NOTE_LINES_MOST, 0.75),
    ] {
        let small = Style {
            em: st.em * share,
            ..st
        };
        let lines = pack_lines(parts, small, max_w, most);
        let fits = lines.iter().all(|l| small.width(l) <= max_w);
        packed = (lines, small);
        if fits {
            break;
        }
    }
    packed
}

/// `parts` packed into at most `most` lines of `st` no wider than `max_w` where they fit;
/// parts past the last line join it.
fn pack_lines(parts: &[String], st: Style, max_w: f64, most: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for p in parts {
        let full = lines.len() >= most;
        match lines.last_mut() {
            Some(l) if full || st.width(&format!("{l} · {p}")) <= max_w => {
                l.push_str(" · ");
                l.push_str(p);
            }
            _ => lines.push(p.clone()),
        }
    }
    lines
}

/// The card's warning line, when the drive's counters rose at the cliff taken as the cache's
/// ([`crate::detect::findings::HEAT_AT_CLIFF_TEXT`]), when the analysis warns that the rate
/// fell gradually, or that a slower tier may follow (as the terminal and report.md do).
pub fn card_warning(a: &Analysis) -> Option<String> {
    // Heat at the cliff taken for the cache's, as the terminal's thermal warning says.
    if !crate::detect::Findings::of(a).heat_suffix().is_empty() {
        return Some(crate::detect::findings::HEAT_AT_CLIFF_TEXT.to_string());
    }
    if a.warnings
        .iter()
        .any(|w| matches!(w.kind, crate::detect::WarningKind::GradualFall { .. }))
    {
        return Some(crate::detect::findings::GRADUAL_FALL_TEXT.to_string());
    }
    a.coverage
        .as_ref()
        .is_some_and(|c| c.later_tier_possible)
        .then(|| {
            format!(
                "may not be the sustained speed: a slower tier may follow (--cliffs {})",
                a.cliffs.len() + 1
            )
        })
}

/// The markers that say a drive was not a real one: never cut from a card.
const NOT_REAL: [&str; 2] = [" (simulated)", " (emulated)"];

/// The drive's name fitted to `max_w` as [`fit_text`] fits it, except that a name too long even
/// at the smaller size keeps its "(simulated)" or "(emulated)" marker whole, also where the
/// options the drive was made with follow it (`run_title`'s "..., cache=5GB,in=2000MB/s"). What
/// gives way, in turn: the model's remarks in parentheses ("Samsung PM983 960GB…
/// (simulated), cache=5GB,in=2000MB/s") and the words between the maker and the model's last
/// three ("Samsung…970 EVO 500GB"); then the options, the last first ("cache=5GB,…", then "…"
/// alone, so that the card never reads as the preset as it is), the model named so; only then
/// the model's name, cut at the end of a word down to its first two words, and inside a word.
/// The marker is never cut.
pub fn fit_drive_name(drive: &str, st: Style, max_w: f64) -> (String, Style) {
    let (fitted, small) = fit_text(drive, st, max_w);
    if fitted == drive {
        return (fitted, small);
    }
    // The marker, at the end of the name or before the options.
    let found = NOT_REAL.iter().find_map(|m| {
        let i = drive.rfind(m)?;
        let rest = &drive[i + m.len()..];
        (rest.is_empty() || rest.starts_with(", ")).then_some((i, *m))
    });
    let Some((i, marker)) = found else {
        return (fitted, small);
    };
    let model = &drive[..i];
    let spec_forms: Vec<String> = match drive[i + marker.len()..].strip_prefix(", ") {
        None => vec![String::new()],
        Some(spec) => {
            let opts: Vec<&str> = spec.split(',').collect();
            std::iter::once(format!(", {spec}"))
                .chain(
                    (1..opts.len())
                        .rev()
                        .map(|k| format!(", {},…", opts[..k].join(","))),
                )
                .chain(std::iter::once(", …".to_string()))
                .collect()
        }
    };
    let cut = |s: &str| {
        s.trim_end_matches([' ', ',', ':', ';', '·', '(', '-', '/'])
            .to_string()
    };
    let words: Vec<&str> = model.split(' ').collect();
    // The forms that keep what names the drive: the model without its remarks in parentheses
    // ("Samsung PM983 960GB…"), then the maker and the model's last three words, which hold
    // its number and capacity ("Samsung…970 EVO 500GB").
    let plain = match model.find(" (") {
        Some(k) if k > 0 => Some(format!("{}…", cut(&model[..k]))),
        _ => None,
    };
    let plain_words: Vec<&str> = plain
        .as_deref()
        .map_or(model, |p| p.trim_end_matches('…'))
        .split(' ')
        .collect();
    let named: Vec<String> = std::iter::once(model.to_string())
        .chain(plain.clone())
        .chain((plain_words.len() > 4).then(|| {
            format!(
                "{}…{}",
                plain_words[0],
                plain_words[plain_words.len() - 3..].join(" ")
            )
        }))
        .collect();
    let model_forms: Vec<String> = std::iter::once(model.to_string())
        .chain(
            (words.len().min(2)..words.len())
                .rev()
                .map(|n| format!("{}…", cut(&words[..n].join(" ")))),
        )
        .collect();
    // What names the drive (its number and capacity) first, with the options whole, then
    // shortened; only then the model's name down to its first words.
    for spec in &spec_forms {
        for m in &named {
            let t = format!("{m}{marker}{spec}");
            if small.width(&t) <= max_w {
                return (t, small);
            }
        }
    }
    for spec in &spec_forms {
        for m in &model_forms {
            let t = format!("{m}{marker}{spec}");
            if small.width(&t) <= max_w {
                return (t, small);
            }
        }
    }
    let spec = spec_forms.last().map(String::as_str).unwrap_or_default();
    let head: Vec<char> = model.chars().collect();
    for n in (0..head.len()).rev() {
        let t = format!(
            "{}…{marker}{spec}",
            head[..n].iter().collect::<String>().trim_end()
        );
        if small.width(&t) <= max_w {
            return (t, small);
        }
    }
    (format!("{}{spec}", marker.trim_start()), small)
}

/// The card's last line: the workload, and when the run started, so that a published card
/// tells a 4K random QD32 run from a 128K sequential one, and one day's run from another's;
/// a run that was interrupted says so there.
pub fn card_footer(t: &Timeline, a: &Analysis) -> (String, String) {
    let mut date = match t.meta.started_at {
        Some(at) => format!("{} UTC", at.format("%Y-%m-%d %H:%M")),
        None => "start time not recorded".to_string(),
    };
    if t.meta.stop_reason == Some(crate::timeline::StopReason::Interrupted) {
        date.push_str(" · interrupted");
    }
    (workload_text_of(&t.meta, a), date)
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the card: {e:?}")
}

/// Renders the card as PNG bytes.
pub fn render_card(t: &Timeline, a: &Analysis, u: UnitSystem, theme: Theme) -> Result<Vec<u8>> {
    // A run that only read is drawn from its reads (as its charts are).
    let primary = t.primary();
    let t: &Timeline = &primary;
    register_fonts();
    let (w, h) = CARD_SIZE;
    let cs = colors(theme);
    let mut buf = vec![255u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        let c = |x: Rgb| RGBColor(x.0, x.1, x.2);
        root.fill(&c(cs.bg)).map_err(err)?;
        let (drive, cache, in_cache, after) = card_texts(t, a, u);
        let x0 = CARD_X0;
        let (d, st) = fit_drive_name(
            &drive,
            Style::new(46.0).bold().color(cs.title),
            (w as i32 - 2 * x0) as f64,
        );
        root.draw(&Label::new(d, (x0, 48), st)).map_err(err)?;
        let (cline, st) = fit_text(
            &cache,
            Style::new(40.0).color(ink(theme, palette::BLUE)),
            (w as i32 - 2 * x0) as f64,
        );
        root.draw(&Label::new(cline, (x0, 118), st)).map_err(err)?;
        let big = Style::new(34.0).bold().color(cs.title);
        // The after-cache text gets the width the in-cache text leaves (a gap of 40 px), so a
        // long one ("after 3478 -> 129 MB/s over 15.2 GB") shrinks rather than runs into it.
        root.draw(&Label::new(in_cache.clone(), (x0, 184), big))
            .map_err(err)?;
        let (after, ast, below) = after_drawn(
            &in_cache,
            &after,
            big.color(ink(theme, palette::VERMILLION)),
        );
        let shift = if below { 44 } else { 0 };
        let at = if below {
            (x0, 184 + shift)
        } else {
            (w as i32 - x0, 184)
        };
        root.draw(&Label::new(after, at, ast)).map_err(err)?;
        // A cache that came back while the drive was written, and how much of the span the
        // run wrote: one line under the speeds; a second, in vermillion, when a slower tier
        // may follow (the sparkline then starts lower).
        let mut top = 260 + shift;
        let note_st = Style::new(24.0).color(ink(theme, palette::BLUISH_GREEN));
        let width = (w as i32 - 2 * x0) as f64;
        let (note, note_st) = pack_note(&card_note_parts(a, u), note_st, width);
        // Each line past the first moves what follows down by one line.
        let more = 28 * note.len().saturating_sub(1) as i32;
        for (i, line) in note.iter().enumerate() {
            let (l, st) = fit_text(line, note_st, width);
            root.draw(&Label::new(l, (x0, 226 + shift + 28 * i as i32), st))
                .map_err(err)?;
        }
        top += more;
        if let Some(line) = card_warning(a) {
            let (l, st) = fit_text(
                &line,
                Style::new(24.0)
                    .bold()
                    .color(ink(theme, palette::VERMILLION)),
                width,
            );
            root.draw(&Label::new(l, (x0, 258 + shift + more), st))
                .map_err(err)?;
            top = 296 + shift + more;
        }
        // Two footer lines under the sparkline: what it shows, and the workload and date.
        let (sl, st_, sr, sb) = (x0, top, w as i32 - x0, h as i32 - 84);
        let n = t.samples.len();
        let max_b = t.bytes_total().max(1) as f64;
        let max_r = t
            .samples
            .iter()
            .map(|s| s.bytes_per_sec)
            .fold(0.0, f64::max)
            .max(1.0);
        let cols = (sr - sl) as usize;
        // Each sample covers the data written during it, from the previous sample's total to
        // its own: its rate fills those columns (the lowest rate where samples share one).
        let col = |b: u64| (((b as f64 / max_b) * (cols - 1) as f64) as usize).min(cols - 1);
        let mut col_min = vec![f64::INFINITY; cols];
        let mut before = 0u64;
        for s in &t.samples {
            let (from, to) = (col(before), col(s.bytes_total));
            let from = if to > from { from + 1 } else { from };
            for v in &mut col_min[from..=to] {
                *v = v.min(s.bytes_per_sec);
            }
            before = s.bytes_total;
        }
        let mut last = 0.0;
        let ys: Vec<i32> = col_min
            .iter()
            .map(|v| {
                if v.is_finite() {
                    last = *v;
                }
                sb - ((last / (max_r * 1.05)) * (sb - st_) as f64) as i32
            })
            .collect();
        let line = ink(theme, palette::BLUE);
        if n > 0 {
            let mut poly: Vec<(i32, i32)> = vec![(sl, sb)];
            poly.extend(ys.iter().enumerate().map(|(i, y)| (sl + i as i32, *y)));
            poly.push((sr, sb));
            root.draw(&Polygon::new(poly, c(line).mix(0.18).filled()))
                .map_err(err)?;
            // A step line: each column's level across its pixel, then straight up or down to
            // the next. A polyline through the column centres joins a one-column spike (a
            // burst back at the cache's rate) at an acute angle, whose miter at this width
            // shot far below the axis.
            let pts: Vec<(i32, i32)> = ys
                .iter()
                .enumerate()
                .flat_map(|(i, y)| [(sl + i as i32, *y), (sl + i as i32 + 1, *y)])
                .collect();
            root.draw(&PathElement::new(pts, c(line).stroke_width(4)))
                .map_err(err)?;
        }
        // Where the cache came back: a thinner line in the colour of the line above.
        for r in &a.returns {
            let x = sl + ((r.bytes_before as f64 / max_b) * (sr - sl) as f64) as i32;
            root.draw(&PathElement::new(
                vec![(x, st_), (x, sb)],
                c(ink(theme, palette::BLUISH_GREEN)).stroke_width(2),
            ))
            .map_err(err)?;
        }
        if let Some(e) = &a.cache_estimate {
            let x = sl + ((e.bytes as f64 / max_b) * (sr - sl) as f64) as i32;
            root.draw(&PathElement::new(
                vec![(x, st_), (x, sb)],
                c(ink(theme, palette::VERMILLION)).stroke_width(3),
            ))
            .map_err(err)?;
            // The further cliffs (a second tier ending): thinner, in the same colour.
            for cl in a.cliffs.iter().skip(1) {
                let x = sl + ((cl.bytes_written as f64 / max_b) * (sr - sl) as f64) as i32;
                root.draw(&PathElement::new(
                    vec![(x, st_), (x, sb)],
                    c(ink(theme, palette::VERMILLION)).stroke_width(2),
                ))
                .map_err(err)?;
            }
        }
        root.draw(&PathElement::new(
            vec![(sl, sb), (sr, sb)],
            c(cs.axis).stroke_width(2),
        ))
        .map_err(err)?;
        let small = Style::new(22.0).color(cs.footer);
        root.draw(&Label::new(
            if a.read_only {
                format!(
                    "read throughput over data read, 0 to {}",
                    format_bytes(max_b, u)
                )
            } else {
                match &a.coverage {
                    Some(c) if !c.whole_span => format!(
                        "write throughput over data written, 0 to {} of the {} span",
                        format_bytes(max_b, u),
                        format_bytes(c.span_bytes as f64, u)
                    ),
                    _ => format!(
                        "write throughput over data written, 0 to {}",
                        format_bytes(max_b, u)
                    ),
                }
            },
            (sl, sb + 14),
            small,
        ))
        .map_err(err)?;
        root.draw(&Label::new(
            format!("slccache {}", crate::VERSION),
            (sr, sb + 14),
            small.anchor(HPos::Right),
        ))
        .map_err(err)?;
        let (workload, date) = card_footer(t, a);
        let room = (sr - sl) as f64 - small.width(&date) - 40.0;
        let (workload, wst) = fit_text(&workload, small, room);
        root.draw(&Label::new(workload, (sl, sb + 44), wst))
            .map_err(err)?;
        root.draw(&Label::new(date, (sr, sb + 44), small.anchor(HPos::Right)))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header()?;
        wr.write_image_data(&buf)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_note_goes_on_a_second_line_with_no_part_cut() {
        use super::*;
        let st = Style::new(24.0);
        let parts: Vec<String> = [
            "cache came back twice while writing: +13.9 GB, +12.1 GB",
            "after = rate of the samples after the last cliff (18.1 GB)",
            "measured to 40.2 GB of 500 GB",
        ]
        .map(String::from)
        .to_vec();
        let width = 1088.0;
        assert!(
            st.width(&parts.join(" · ")) > width,
            "the test needs a long note"
        );
        let (lines, _) = pack_note(&parts, st, width);
        assert_eq!(lines.len(), 2, "{lines:?}");
        for l in &lines {
            assert!(st.width(l) <= width, "{l}");
        }
        // Every part is there whole, the coverage among them.
        let all = lines.join(" · ");
        for p in &parts {
            assert!(all.contains(p.as_str()), "{p}: {lines:?}");
        }
        // A short note stays one line.
        assert_eq!(pack_note(&parts[2..], st, width).0.len(), 1);
    }

    /// The card of p5-1tb written to 700 GB with its heat: the note's second line ended
    /// "measured to 700 GB of 1.00…" (the capacity cut); every part is whole on its line.
    #[test]
    fn a_note_with_heat_keeps_every_part_whole() {
        use super::*;
        let st = Style::new(24.0);
        let parts: Vec<String> = [
            "thermal throttling at 494 MB/s from 420 s and 648 s",
            "after = rate of the samples after the last cliff (600 GB), less 113 GB of thermal \
             throttling",
            "measured to 700 GB of 1.00 TB",
        ]
        .map(String::from)
        .to_vec();
        let width = 1088.0;
        let (lines, st) = pack_note(&parts, st, width);
        for l in &lines {
            let (drawn, _) = fit_text(l, st, width);
            assert_eq!(&drawn, l, "a line cut: {lines:?}");
        }
        assert!(lines.join(" · ").contains("of 1.00 TB"), "{lines:?}");
    }

    /// The card of p5-1tb at 30 s samples with two cliffs sought: five note parts on three
    /// lines, the last drawn cut to "filling the whole drive (1.00…". The note is packed in
    /// smaller type, on a fourth line where it needs one, every part whole.
    #[test]
    fn a_note_of_five_parts_is_packed_smaller_and_nothing_cut() {
        use super::*;
        let st = Style::new(24.0);
        let parts: Vec<String> = [
            "a faster first tier of up to 60.1 GB could run out unseen inside the first 30.0 s \
             sample",
            "1 of 2 cliffs found",
            "thermal throttling at 487 to 498 MB/s from 428 s, 654 s and 889 s",
            "after = rate of the samples after the last cliff (890 GB), less 245 GB of thermal \
             throttling",
            "filling the whole drive (1.00 TB) completes at 878 MB/s on average",
        ]
        .map(String::from)
        .to_vec();
        let width = 1088.0;
        let (lines, small) = pack_note(&parts, st, width);
        assert!(lines.len() <= NOTE_LINES_MOST, "{lines:?}");
        // Each line fits in the style packed, so none is shrunk further or cut when drawn.
        for l in &lines {
            assert!(small.width(l) <= width, "a line too wide: {lines:?}");
        }
        assert!(small.em >= 0.75 * st.em, "{}", small.em);
        for p in &parts {
            assert!(
                lines.iter().any(|l| l.contains(p.as_str())),
                "{p}: {lines:?}"
            );
        }
        // A note that fits keeps its size.
        assert_eq!(pack_note(&parts[1..2], st, width).1.em, st.em);
    }

    use super::*;
    use crate::timeline::{ReadStats, RunMeta};

    /// Regression: the card of a run that only read drew its line from the (empty) write
    /// columns and said "write throughput over data written, 0 to 1 B". Its line is now the
    /// reads: the card differs from the same card with the reads taken away.
    #[test]
    fn a_read_only_card_draws_its_reads() {
        let pts: Vec<(f64, f64, f64)> = (1..=60).map(|i| (i as f64, 1.0, 0.0)).collect();
        let mut t = Timeline::from_rates(&pts, RunMeta::default());
        for (i, s) in t.samples.iter_mut().enumerate() {
            let bytes = if i < 30 { 600_000_000 } else { 200_000_000 };
            s.read = Some(ReadStats {
                bytes,
                iops: bytes as f64 / 4096.0,
                ..ReadStats::default()
            });
        }
        let a = crate::detect::analyze(&t);
        assert!(a.read_only);
        let with_reads = render_card(&t, &a, UnitSystem::Decimal, Theme::Light).unwrap();
        let mut empty = t.clone();
        for s in &mut empty.samples {
            s.read = None;
        }
        let without = render_card(&empty, &a, UnitSystem::Decimal, Theme::Light).unwrap();
        assert_ne!(with_reads, without, "the card's line ignores the reads");
    }

    /// Regression: the line started at each sample's end, so a short run's card was empty
    /// over its first sample (half the width for a 2-sample run). Each sample now fills the
    /// data written during it: a 2-sample run at one rate fills the whole width.
    #[test]
    fn a_sample_fills_the_data_written_during_it() {
        let t = Timeline::from_rates(&[(1.0, 1.0, 5e8), (2.0, 1.0, 5e8)], RunMeta::default());
        let a = crate::detect::analyze(&t);
        let png = render_card(&t, &a, UnitSystem::Decimal, Theme::Light).unwrap();
        let img = png::Decoder::new(std::io::Cursor::new(png));
        let mut r = img.read_info().unwrap();
        let mut px = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut px).unwrap();
        let (w, h) = (info.width as usize, info.height as usize);
        let bpp = info.line_size / w;
        // Just above the sparkline's baseline, at a quarter and at three quarters of the
        // width: both inside the filled area, so not the white background.
        let y = h - 94;
        for x in [w / 4, 3 * w / 4] {
            let p = &px[y * info.line_size + x * bpp..][..3];
            assert_ne!(p, [255, 255, 255], "background at x = {x}");
        }
    }

    /// Regression: the card showed no workload and no date, so a published card could not
    /// tell a 4K random QD32 run from a 128K sequential one, or one day's run from another's.
    /// Two runs alike but in their workload, or in their date, now give different cards.
    #[test]
    fn the_card_says_the_workload_and_the_date() {
        use chrono::TimeZone;
        let pts: Vec<(f64, f64, f64)> = (1..=60)
            .map(|i| (i as f64, 1.0, if i <= 20 { 1.3e9 } else { 5.5e8 }))
            .collect();
        let mut meta = RunMeta::default();
        meta.workload.pattern = "randwrite".into();
        meta.workload.block_size = Some(4096);
        meta.workload.queue_depth = Some(32);
        meta.started_at = Some(chrono::Utc.with_ymd_and_hms(2026, 12, 3, 9, 30, 0).unwrap());
        let t = Timeline::from_rates(&pts, meta);
        let a = crate::detect::analyze(&t);
        let (workload, date) = card_footer(&t, &a);
        assert!(
            workload.starts_with("randwrite, 4 KiB blocks, QD32"),
            "{workload}"
        );
        assert_eq!(date, "2026-12-03 09:30 UTC");
        let card = |t: &Timeline| render_card(t, &a, UnitSystem::Decimal, Theme::Light).unwrap();
        let mut seq = t.clone();
        seq.meta.workload.pattern = "seqwrite".into();
        seq.meta.workload.block_size = Some(128 << 10);
        assert_ne!(card(&t), card(&seq), "the card does not show the workload");
        let mut later = t.clone();
        later.meta.started_at = Some(chrono::Utc.with_ymd_and_hms(2026, 12, 4, 9, 30, 0).unwrap());
        assert_ne!(card(&t), card(&later), "the card does not show the date");
        let mut undated = t.clone();
        undated.meta.started_at = None;
        assert_eq!(card_footer(&undated, &a).1, "start time not recorded");
        // An interrupted run says so: its card is not that of a finished run.
        let mut cut = t.clone();
        cut.meta.stop_reason = Some(crate::timeline::StopReason::Interrupted);
        assert_eq!(
            card_footer(&cut, &a).1,
            "2026-12-03 09:30 UTC · interrupted"
        );
        assert_ne!(
            card(&t),
            card(&cut),
            "the card does not say the run was interrupted"
        );
    }
}
