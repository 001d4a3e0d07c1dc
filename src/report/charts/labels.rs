//! Text on the charts: titles, subtitles, labels, footers, ticks and the scales of the axes.
use crate::detect::findings::{Cache, Findings};
use crate::detect::{Analysis, DropWhere};
use crate::timeline::RunMeta;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

use super::*;

/// The run's name for titles and legends: its label, else the drive model, else "run".
pub fn run_name(meta: &RunMeta) -> String {
    if !meta.label.trim().is_empty() {
        meta.label.trim().to_string()
    } else if let Some(m) = meta
        .device
        .model
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        m.trim().to_string()
    } else if !meta.device.path.is_empty() {
        meta.device.path.clone()
    } else {
        "run".to_string()
    }
}

/// The options an emulated or simulated drive was made with beyond its preset (`cache=2GB`
/// of `sim:960evo-500g,cache=2GB`); `None` for a preset as it is, a real drive or a file.
pub fn made_with(meta: &RunMeta) -> Option<&str> {
    let p = &meta.device.path;
    (p.starts_with("emu:") || p.starts_with("sim:"))
        .then(|| p.split_once(',').map(|(_, o)| o))
        .flatten()
        .filter(|o| !o.trim().is_empty())
}

/// [`run_name`] with the options the drive was made with, as the store names it
/// (`Samsung SSD 960 EVO 500GB (simulated), cache=2GB`): a run's own titles, card and report
/// must not read as the preset's drive with a cache size it does not have.
pub fn run_title(meta: &RunMeta) -> String {
    let name = run_name(meta);
    match made_with(meta) {
        Some(o) if !name.ends_with(o) => format!("{name}, {o}"),
        _ => name,
    }
}

/// A rate without its unit, formatted as [`format_rate`] does ("1365", "59.1").
pub fn rate_number(bytes_per_sec: f64, units: UnitSystem) -> String {
    let s = format_rate(bytes_per_sec, units);
    s.split(' ').next().unwrap_or("").to_string()
}

/// "1365 -> 591 MB/s".
pub fn levels_label(before: f64, after: f64, units: UnitSystem) -> String {
    format!(
        "{} -> {}",
        rate_number(before, units),
        format_rate(after, units)
    )
}

/// [`levels_label`] with the level after given in words (`300 MB/s to 900 MB/s (swings)`,
/// [`crate::detect::Findings::step_after_text`]).
pub fn levels_label_text(before: f64, after: &str, units: UnitSystem) -> String {
    format!("{} -> {after}", rate_number(before, units))
}

/// The levels either side of cliff `i` of `f` as a chart labels them: [`levels_label_text`],
/// or where the level before it is not one rate, that level's range in words (`300 MB/s to
/// 900 MB/s (not steady) -> 150 MB/s`, [`Findings::step_before_text`]).
pub fn step_levels_label(f: &Findings, i: usize, units: UnitSystem) -> String {
    match f.steps.get(i) {
        Some(s) if s.before_range_bytes_per_sec.is_some() => format!(
            "{} -> {}",
            f.step_before_text(i, units),
            f.step_after_text(i, units)
        ),
        Some(s) => levels_label_text(s.before_bytes_per_sec, &f.step_after_text(i, units), units),
        None => String::new(),
    }
}

/// "cliff at 14.0 s, 19.1 GB written".
pub fn cliff_label(t_s: f64, bytes: u64, units: UnitSystem) -> String {
    format!(
        "cliff at {}, {} written",
        crate::units::format_time_point(t_s),
        format_bytes(bytes as f64, units)
    )
}

/// One clause of a subtitle (the clauses are joined by "  ·  "): its forms, longest first,
/// and how readily it gives way when the line is too long for the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    /// The clause's texts, longest first; a shorter form keeps what the clause must say.
    pub forms: Vec<String>,
    /// Never left out (it may still take its shortest form): the cache, "(stopped early)".
    pub keep: bool,
    /// The higher, the sooner it gives way (its shorter form, then, unless kept, itself).
    pub rank: u8,
}

impl Clause {
    fn new(text: impl Into<String>, rank: u8) -> Clause {
        Clause {
            forms: vec![text.into()],
            keep: false,
            rank,
        }
    }
}

/// The subtitle of a single run's charts in clauses, as [`cache_subtitle`] joins them: the
/// cache estimate with its 95% interval (or the bound without a cliff), the rate in the cache
/// and after it (the figures the terminal prints), the cliffs, the link's limit, returns of
/// the cache, and what the run wrote.
pub fn cache_subtitle_clauses(a: &Analysis, units: UnitSystem) -> Vec<Clause> {
    let fb = |b: u64| format_bytes(b as f64, units);
    let f = Findings::of(a);
    let moved = f.moved();
    // A size of a rate that fell gradually: said by a clause of its own (below), which keeps
    // a short form.
    let ungraded = |t: String| {
        t.strip_suffix(f.doubt_suffix().as_str())
            .map(str::to_string)
            .unwrap_or(t)
    };
    let cache = match &f.cache {
        Cache::Sized { .. } => ungraded(f.cache_text(units)),
        Cache::AtLeast { .. } | Cache::NoneOverWholeDrive { .. } | Cache::TooFewSamples => {
            format!("No cliff seen: {}", f.cache_text(units))
        }
        // The card's short form: the long one would push the rest of the line off the chart.
        Cache::HiddenByLink { link } => format!("Cache hidden by the {link} link"),
        Cache::HiddenByIops { .. } => "Cache hidden by the IOPS limit".to_string(),
        _ => crate::units::capitalized(&f.cache_text(units)),
    };
    let mut v = vec![match f.wrapped_short_text(units) {
        // A cliff past the span: its long form (with the interval, and why it is no size)
        // fills a line on its own, so it takes the card's short form before the rates give
        // way, and never loses the words that say it is no cache size.
        Some(short) => Clause {
            forms: vec![cache, crate::units::capitalized(&short)],
            keep: true,
            rank: 2,
        },
        // A size the first sample may undercut: its long form fills a line, so it takes a
        // short one before the rates give way, and never loses what it cannot rule out.
        None => match (&f.cache, f.first_sample_hides) {
            (Cache::Sized { .. }, Some(h)) => {
                let plain = ungraded(f.cache_text(units));
                let size = plain
                    .strip_suffix(&f.hidden_tier_suffix(units))
                    .unwrap_or(&plain)
                    .to_string();
                Clause {
                    forms: vec![
                        cache,
                        format!(
                            "{size}, unless a faster first tier of up to {} {}",
                            fb(h.bytes),
                            h.hid(true, units)
                        ),
                    ],
                    keep: true,
                    rank: 2,
                }
            }
            // A drop not confirmed: its long form fills more than a line, so it has shorter
            // ones that keep the bounds and what they cannot rule out (a faster first tier
            // inside that first sample), never cut mid-word.
            (Cache::Unconfirmed(d), _) => {
                let (lo, hi) = (fb(d.bytes_low), fb(d.bytes_high));
                let mut forms = vec![cache];
                match d.at {
                    // Heat in every later sample: the cache may have run out under it.
                    DropWhere::FirstSample if d.heat_may_hide_end() => {
                        let first = format!(
                            "Drop inside the first {} sample or later under heat, not confirmed",
                            crate::units::format_interval(d.interval_s)
                        );
                        let most = fb((d.before_bytes_per_sec * d.interval_s).round() as u64);
                        forms.push(format!(
                            "{first}: no cache size, heat hides where it ran out (at most {most} \
                             if in that sample)"
                        ));
                        forms.push(format!("{first}: no cache size"));
                    }
                    DropWhere::FirstSample => {
                        let first = format!("Drop {}, not confirmed", d.first_sample_words());
                        let later = match f.steps.len() {
                            0 => "",
                            1 => "; the cliff after it a later tier's",
                            _ => "; the cliffs after it a later tier's",
                        };
                        forms.push(format!(
                            "{first}: a cache of {lo} to {hi} if it ran out there, less if a \
                             faster first tier did too{later}"
                        ));
                        forms.push(format!(
                            "{first}: cache {lo} to {hi} if it ran out there, or less{later}"
                        ));
                    }
                    DropWhere::Start | DropWhere::End => forms.push(format!(
                        "Drop after {lo} too short to confirm: cache ≥ {lo}"
                    )),
                }
                Clause {
                    forms,
                    keep: true,
                    rank: 2,
                }
            }
            _ => Clause {
                forms: vec![cache],
                keep: true,
                rank: 0,
            },
        },
    }];
    // The rates either side of the cache, in the words of the terminal's results; before a
    // cliff that a faster first tier hidden in the first sample could make a later tier's,
    // the rate "before the cliff", as the card and report.md name it.
    let before = f.in_cache_name();
    match (f.in_cache_text(units), f.after_caveated(units)) {
        (Some(i), Some(after)) => {
            v.push(Clause::new(format!("{i} {before} -> {after} after it"), 1))
        }
        (None, Some(after)) => v.push(Clause::new(format!("{after} after the cache"), 1)),
        (Some(i), None) => v.push(Clause::new(format!("{i} {before}"), 1)),
        (None, None) => {}
    }
    match (a.cliffs.len(), f.cliffs_short_text()) {
        // Fewer than `--cliffs` asked for: "1 of 2 cliffs found".
        (_, Some(t)) => v.push(Clause::new(t, 2)),
        (0, None) => {}
        (1, None) => v.push(Clause::new("1 cliff", 5)),
        (n, None) => v.push(Clause::new(format!("{n} cliffs"), 5)),
    }
    // A rate in the cache at the link's ceiling, as every other output says it: the fact
    // alone, short (the terminal and report.md give what it may mean).
    if let Some(t) = f.link_limit_text() {
        v.push(Clause::new(t, 3));
    }
    if let Some(line) = crate::detect::returns_text(a, units) {
        v.push(Clause::new(line, 3));
    }
    match &a.coverage {
        // Not the whole span: how much of it, and the warning the terminal gives. A run that
        // stopped early says so in any form.
        Some(c) if !c.whole_span => {
            let what = format!(
                "{} of {} {moved} in {}",
                fb(a.bytes_total),
                fb(c.span_bytes),
                format_seconds(a.duration_s),
            );
            v.push(if c.stopped_early {
                Clause {
                    forms: vec![format!("{what} (stopped early)"), "stopped early".into()],
                    keep: true,
                    rank: 4,
                }
            } else {
                Clause::new(what, 4)
            });
            // Said with the rate after the cache where there is one (`400 MB/s (a slower
            // tier may follow) after it`), else alone.
            if c.later_tier_possible && f.after.is_none() {
                v.push(Clause::new("a slower tier may follow", 2));
            }
        }
        Some(c) => {
            let what = format!(
                "{} {moved} in {}",
                fb(a.bytes_total),
                format_seconds(a.duration_s)
            );
            // The whole-fill average is over the first pass: past one pass (the writes
            // wrapped) it is not the average of what this line counts, so it is named.
            let mut forms = Vec::new();
            if let Some(r) = c.whole_fill_bytes_per_sec {
                if c.bytes_written > c.span_bytes && c.span_bytes > 0 {
                    forms.push(format!(
                        "{what} ({:.1} passes), the first pass at {} on average",
                        c.bytes_written as f64 / c.span_bytes as f64,
                        format_rate(r, units)
                    ));
                } else {
                    forms.push(format!("{what}, {} on average", format_rate(r, units)));
                }
            }
            forms.push(what);
            v.push(Clause {
                forms,
                keep: false,
                rank: 4,
            });
        }
        None => v.push(Clause::new(
            format!(
                "{} {moved} in {}",
                fb(a.bytes_total),
                format_seconds(a.duration_s)
            ),
            4,
        )),
    }
    // A gradual fall cut into cliffs: said beside the size, as the card and the terminal say
    // it (the subtitle gave "SLC cache 35.8 GB" of a rate that fell 15 MB/s each second).
    if !f.heat_suffix().is_empty() {
        v.insert(
            1,
            Clause {
                forms: vec![
                    crate::detect::findings::HEAT_AT_CLIFF_TEXT.into(),
                    "heat at the cliff: size in doubt".into(),
                ],
                keep: true,
                rank: 1,
            },
        );
    }
    if f.fell_gradually {
        v.insert(
            1,
            Clause {
                forms: vec![
                    crate::detect::findings::GRADUAL_FALL_TEXT.into(),
                    "fell gradually: may be no cache".into(),
                ],
                keep: true,
                rank: 1,
            },
        );
    }
    v
}

/// The subtitle in full: every clause of [`cache_subtitle_clauses`] in its longest form.
pub fn cache_subtitle(a: &Analysis, units: UnitSystem) -> String {
    let clauses = cache_subtitle_clauses(a, units);
    join_clauses(&clauses, &vec![Some(0); clauses.len()])
}

fn join_clauses(clauses: &[Clause], form: &[Option<usize>]) -> String {
    clauses
        .iter()
        .zip(form)
        .filter_map(|(c, k)| k.map(|k| c.forms[k].as_str()))
        .collect::<Vec<_>>()
        .join("  ·  ")
}

/// The clauses as one subtitle that fits a chart of `size` (the header draws a line down to
/// 75% of its size before it would cut it): the clause that gives way first ([`Clause::rank`],
/// the later of equals) takes its next shorter form, or, unless kept, goes, until the line
/// fits. Whole clauses only, never a word cut: "(stopped early)" stays, at least as "stopped
/// early".
pub fn fit_subtitle(clauses: &[Clause], size: (u32, u32)) -> String {
    let l = Layout::new(size, false, 1);
    let max_w = size.0 as f64 - 48.0 * l.scale;
    // A hair under 75%: the header measures the smaller text at its own rounding.
    let px = l.font(font_px::SUBTITLE) * 0.745;
    let mut form: Vec<Option<usize>> = vec![Some(0); clauses.len()];
    loop {
        let text = join_clauses(clauses, &form);
        if text_width(&text, px) <= max_w {
            return text;
        }
        let give = (0..clauses.len())
            .filter(|&i| match form[i] {
                Some(k) => k + 1 < clauses[i].forms.len() || !clauses[i].keep,
                None => false,
            })
            .max_by_key(|&i| (clauses[i].rank, i));
        let Some(i) = give else {
            return text;
        };
        form[i] = form[i].and_then(|k| (k + 1 < clauses[i].forms.len()).then_some(k + 1));
    }
}

/// [`workload_text`] of a run analysed as `a`. Where no interval was chosen (an imported
/// log) and one sample spans the whole run, it says what was measured, `one sample of 13.6
/// min`, not an interval nobody set.
pub fn workload_text_of(meta: &RunMeta, a: &Analysis) -> String {
    let one_sample = meta.workload.interval_s.is_none()
        && a.duration_s > 0.0
        && a.interval_s >= 0.999 * a.duration_s;
    if !one_sample {
        return workload_text(meta, a.interval_s);
    }
    let mut no_interval = meta.clone();
    no_interval.workload.interval_s = Some(0.0);
    let text = workload_text(&no_interval, 0.0);
    let sample = format!("one sample of {}", format_seconds(a.duration_s));
    if text == "unknown workload" {
        sample
    } else {
        format!("{text}, {sample}")
    }
}

/// "randwrite, 4 KiB blocks, QD32, 1 job, 1.0 s interval" from what is known.
pub fn workload_text(meta: &RunMeta, interval_s: f64) -> String {
    let w = &meta.workload;
    let mut parts = Vec::new();
    if !w.pattern.is_empty() {
        parts.push(w.pattern.clone());
    }
    // A mix says its share: "randrw, 30% reads" (a pure read pattern says it by its name).
    if let Some(p) = w.read_pct.filter(|&p| p > 0 && p < 100) {
        parts.push(format!("{p}% reads"));
    }
    if let Some(bs) = w.block_size {
        // Block sizes are powers of two: always binary, whatever the chart units.
        parts.push(format!("{} blocks", format_block(bs)));
    }
    if let Some(qd) = w.queue_depth {
        parts.push(format!("QD{qd}"));
    }
    if let Some(j) = w.jobs {
        parts.push(format!("{j} job{}", if j == 1 { "" } else { "s" }));
    }
    let iv = w.interval_s.unwrap_or(interval_s);
    if iv > 0.0 {
        parts.push(interval_words(iv));
    }
    if let Some(e) = &w.engine {
        parts.push(e.clone());
    }
    // The drive's state is part of what was measured: a cache a prefill left full.
    match (w.prefill_pct, w.idle_before_s) {
        (Some(p), Some(s)) => parts.push(format!(
            "after a prefill of {}% and {} idle",
            trim_num(p, 1),
            crate::units::format_seconds(s)
        )),
        (Some(p), None) => parts.push(format!("after a prefill of {}%", trim_num(p, 1))),
        (None, Some(s)) => parts.push(format!("after {} idle", crate::units::format_seconds(s))),
        (None, None) => {}
    }
    if parts.is_empty() {
        "unknown workload".to_string()
    } else {
        parts.join(", ")
    }
}

pub(super) fn format_block(bs: u64) -> String {
    if bs >= 1 << 20 && bs.is_multiple_of(1 << 20) {
        format!("{} MiB", bs >> 20)
    } else if bs >= 1024 && bs.is_multiple_of(1024) {
        format!("{} KiB", bs >> 10)
    } else {
        format!("{bs} B")
    }
}

/// The sampling interval as the footer's workload gives it: "1 s interval", "10 ms interval".
pub fn interval_words(s: f64) -> String {
    format!("{} interval", format_interval(s))
}

pub(super) fn format_interval(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{} s", trim_num(s, 2))
    }
}

/// "Samsung SSD 960 EVO 500GB, 500 GB, firmware 3B7QCXE7" from what is known.
pub fn drive_text(meta: &RunMeta, units: UnitSystem) -> String {
    let d = &meta.device;
    let mut parts = Vec::new();
    match (&d.model, d.path.is_empty()) {
        (Some(m), _) if !m.trim().is_empty() => parts.push(m.trim().to_string()),
        (_, false) => parts.push(d.path.clone()),
        // An imported log: its file name is not a drive.
        _ => parts.push("not recorded in the input".to_string()),
    }
    if let Some(o) = made_with(meta) {
        parts.push(o.to_string());
    }
    if let Some(c) = d.capacity_bytes {
        parts.push(format_bytes(c as f64, units));
    }
    if let Some(f) = d.firmware.as_deref().filter(|f| !f.trim().is_empty()) {
        parts.push(format!("firmware {}", f.trim()));
    }
    parts.join(", ")
}

/// Footer parts for one run: drive, workload, date, slccache version.
pub(super) fn footer_parts(meta: &RunMeta, a: &Analysis, units: UnitSystem) -> Vec<String> {
    let mut v = vec![
        format!("Drive: {}", drive_text(meta, units)),
        format!("Workload: {}", workload_text_of(meta, a)),
    ];
    if let Some(t) = meta.started_at {
        v.push(t.format("%Y-%m-%d %H:%M UTC").to_string());
    }
    if let Some(r) = meta.stop_reason {
        v.push(format!(
            "stopped: {}",
            crate::detect::Findings::of(a).stop_text(r)
        ));
    }
    v.push(format!("slccache {}", crate::VERSION));
    v
}

/// Joins parts into lines that fit `width` pixels at footer size (as many lines as it takes,
/// up to 5, so that no line is cut: a part longer than a line is the only one over). A line
/// up to 12% too long stays one line (it is drawn a little smaller), and the last part never
/// sits alone on a line when the line before can give it company.
pub fn wrap_parts(parts: &[String], width: f64, px: f64) -> Vec<String> {
    let sep = "  ·  ";
    if text_width(&parts.join(sep), px) <= width / 0.88 {
        return vec![parts.join(sep)];
    }
    let mut lines = wrap_greedy(parts, width, px);
    // Move parts down from the line before while the last line holds a single part.
    let n = lines.len();
    if n >= 2 && !lines[n - 1].contains(sep) {
        let mut prev: Vec<&str> = lines[n - 2].split(sep).collect();
        if prev.len() >= 2 {
            let moved = prev.pop().unwrap_or_default().to_string();
            let last = format!("{moved}{sep}{}", lines[n - 1]);
            if text_width(&last, px) <= width {
                lines[n - 2] = prev.join(sep);
                lines[n - 1] = last;
            }
        }
    }
    lines
}

/// `text` broken between words into lines of at most `width` at `px` (a word wider than that
/// alone on its line).
fn break_words(text: &str, width: f64, px: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for w in text.split(' ') {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l} {w}"), px) <= width => {
                l.push(' ');
                l.push_str(w);
            }
            _ => lines.push(w.to_string()),
        }
    }
    lines
}

pub(super) fn wrap_greedy(parts: &[String], width: f64, px: f64) -> Vec<String> {
    let sep = "  ·  ";
    let mut lines: Vec<String> = Vec::new();
    for p in parts {
        // A part wider than a line (a run's long name and its workload) is broken between its
        // words onto lines of its own, rather than drawn cut.
        if text_width(p, px) > width {
            lines.extend(break_words(p, width, px));
            continue;
        }
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l}{sep}{p}"), px) <= width => {
                l.push_str(sep);
                l.push_str(p);
            }
            _ => lines.push(p.clone()),
        }
    }
    // Past 5 lines the chart would be mostly footer; the rest is joined (and cut when drawn).
    if lines.len() > 5 {
        let rest = lines.split_off(4).join(sep);
        lines.push(rest);
    }
    lines
}

pub(super) fn trim_num(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Tick label for a linear axis: no needless zeros ("0", "2.5", "1200").
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 || a == 0.0 {
        trim_num(v, 0)
    } else if a >= 10.0 {
        trim_num(v, 1)
    } else if a >= 0.1 {
        trim_num(v, 2)
    } else {
        trim_num(v, 4)
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// Time axis scale: seconds up to 20 minutes, minutes up to 3 hours, then hours.
pub fn time_scale(max_s: f64) -> (f64, &'static str) {
    if max_s < 1.0 {
        (0.001, "ms")
    } else if max_s <= 1200.0 {
        (1.0, "s")
    } else if max_s <= 3.0 * 3600.0 {
        (60.0, "min")
    } else {
        (3600.0, "h")
    }
}

/// Data axis scale, picked from the range: MB (MiB) below 2 GB, GB (GiB), or TB (TiB) above
/// 2000 GB.
pub fn data_scale(max_bytes: f64, units: UnitSystem) -> (f64, &'static str) {
    let g = units.giga();
    let k = match units {
        UnitSystem::Decimal => 1000.0,
        UnitSystem::Binary => 1024.0,
    };
    if max_bytes < 2.0 * g {
        (units.mega(), units.mega_label())
    } else if max_bytes > 2000.0 * g {
        (
            g * k,
            match units {
                UnitSystem::Decimal => "TB",
                UnitSystem::Binary => "TiB",
            },
        )
    } else {
        (g, units.giga_label())
    }
}

#[cfg(test)]
mod footer_tests {
    use super::*;

    /// A footer of many parts was once joined into 3 lines, the last too long,
    /// and drawn cut ("slccache 0.…"). Every line now fits.
    #[test]
    fn a_long_footer_wraps_without_a_cut() {
        let parts: Vec<String> = (0..14)
            .map(|i| format!("part {i}: a workload detail of some length"))
            .chain(std::iter::once(format!("slccache {}", crate::VERSION)))
            .collect();
        let width = 1552.0;
        let lines = wrap_parts(&parts, width, 15.0);
        assert!(lines.len() > 3, "{lines:?}");
        for l in &lines {
            assert!(text_width(l, 15.0) <= width / 0.88, "{l}");
        }
        assert!(lines
            .last()
            .unwrap()
            .ends_with(&format!("slccache {}", crate::VERSION)));
    }

    /// A compare footer's part naming one run's workload after the run's long name was wider
    /// than the chart and drawn cut. A part wider than a line is broken between its words,
    /// and every word is drawn.
    #[test]
    fn a_part_wider_than_the_footer_is_broken_not_cut() {
        let long = "Samsung SSD 970 EVO 500GB, cache=1GB, capacity=2TB (simulated) #1: \
                    seqwrite, 1M blocks, QD32, 1 job, over the whole 2.00 TB span, io_uring, \
                    O_DIRECT, seed 7";
        let parts = vec![
            long.to_string(),
            "#2: randwrite 4K QD1".to_string(),
            format!("slccache {}", crate::VERSION),
        ];
        let width = 800.0;
        assert!(text_width(long, 15.0) > width / 0.88);
        let lines = wrap_parts(&parts, width, 15.0);
        for l in &lines {
            assert!(text_width(l, 15.0) <= width / 0.88, "{l}");
        }
        let words: Vec<&str> = lines
            .iter()
            .flat_map(|l| l.split("  ·  "))
            .flat_map(|p| p.split(' '))
            .filter(|w| !w.is_empty())
            .collect();
        let want: Vec<&str> = parts
            .iter()
            .flat_map(|p| p.split(' '))
            .filter(|w| !w.is_empty())
            .collect();
        assert_eq!(words, want);
    }
}
