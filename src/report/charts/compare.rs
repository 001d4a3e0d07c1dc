//! The comparison charts: several runs overlaid, one colour and dash per run.
use crate::detect::findings::Cache;
use crate::detect::Analysis;
use crate::timeline::Timeline;
use crate::units::{count_text, format_bytes, format_time_point};

use super::*;
use crate::report::draw::decimate::smooth;
use crate::report::ReportOptions;

/// The most characters of a run's name on the plot's labels (the legend has it in full).
const TAG_MAX: usize = 30;

/// A run's name cut at its end to about [`TAG_MAX`] characters, at the end of a word:
/// "Samsung SSD 960 EVO 250GB…", never "Samsung SSD 960 EVO 250GB (sim…".
pub fn short_name(name: &str) -> String {
    cut_at_end(name, TAG_MAX)
}

/// `name` cut at its end to about `max` characters, at the end of a word.
fn cut_at_end(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_string();
    }
    let head: String = name.chars().take(max).collect();
    let next = name.chars().nth(max);
    let breaks = [' ', ',', '(', '-', '/', '_'];
    // Where the head ends inside a word, go back to the last break before it.
    let cut = if next.is_some_and(|c| c.is_alphanumeric()) {
        head.rfind(breaks)
            .filter(|&i| i >= 8)
            .map_or(head.as_str(), |i| &head[..i])
    } else {
        head.as_str()
    };
    cut.trim_end_matches(breaks).to_string() + "…"
}

/// The plot labels' names: each name whole where every one fits in [`TAG_MAX`] characters;
/// else, where any is longer, each too long without the words in its middle that the others
/// also have, those all the others have first, each run of those left out shown as "…".
/// What no cut takes: a name's start, the model ("HP FX700", after an id or host: "#5:
/// Crucial P5"); its marker "(simulated)" or "(emulated)"; its capacity ("250GB", "1TB",
/// even where every other name has it); and each part after the drive (the options a drive
/// was made with, ", cache=1GB", and the workload, ", randwrite 4K") that not every other
/// name has, kept whole, so that every run's label gives what tells it apart in one form:
/// "HP FX700 2TB … (sim), randwrite 4K", never "HP … randwrite…". Where a label is still too
/// long, every label's marker takes its short form, "(sim)" or "(emu)" ([`SHORT_MARKERS`],
/// which the chart's footer then explains). A name with nothing of that beyond its start is
/// cut at its end. Names a cut would make alike are kept whole.
pub fn plot_tags(names: &[&str]) -> Vec<String> {
    tags_within(names, TAG_MAX)
}

/// A drive's marker in a run's name, its short form on the plot's labels, and what that
/// means (as `runs` says it under its table).
pub const SHORT_MARKERS: [(&str, &str, &str); 2] = [
    ("(simulated)", "(sim)", "simulated"),
    ("(emulated)", "(emu)", "emulated"),
];

/// The note that explains the short markers `texts` use ("(sim): simulated"), if any.
pub fn short_marker_note(texts: &[&str]) -> Option<String> {
    let used: Vec<String> = SHORT_MARKERS
        .iter()
        .filter(|(_, short, _)| {
            texts.iter().any(|t| {
                t.split_whitespace()
                    .any(|w| w.trim_end_matches([',', ':', '…']) == *short)
            })
        })
        .map(|(_, short, meaning)| format!("{short}: {meaning}"))
        .collect();
    (!used.is_empty()).then(|| used.join(", "))
}

/// [`plot_tags`] with `max` characters for each name.
pub(super) fn tags_within(names: &[&str], max: usize) -> Vec<String> {
    if names.iter().all(|n| n.chars().count() <= max) {
        return names.iter().map(|n| n.to_string()).collect();
    }
    let full = tags_with(names, max, false);
    let cut = if full.iter().all(|t| t.chars().count() <= max) {
        full
    } else {
        tags_with(names, max, true)
    };
    if (1..cut.len()).all(|i| !cut[..i].contains(&cut[i])) {
        cut
    } else {
        names.iter().map(|n| n.to_string()).collect()
    }
}

/// What a word of a name is to a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The name's start: never left out.
    Head,
    /// A word of the drive's name after its start.
    Middle,
    /// The drive's capacity ("250GB").
    Capacity,
    /// "(simulated)" or "(emulated)": never left out.
    Marker,
    /// A word of the `n`-th part after the drive (", cache=1GB", ", randwrite 4K").
    Tail(usize),
}

/// A word's key for comparing names: without a trailing comma or colon.
fn key(w: &str) -> &str {
    w.trim_end_matches([',', ':'])
}

/// Whether `w` is a drive's capacity: "250GB", "1TB", "960G", "1.92TB".
fn is_capacity(w: &str) -> bool {
    let w = key(w);
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &w[digits.len()..];
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && matches!(unit, "GB" | "TB" | "G" | "T" | "GiB" | "TiB")
}

/// Each word of a name and what it is: the start ([`head_words`]), then the drive's words up
/// to its first comma outside brackets, then the parts after the drive, one per such comma.
fn parts_of(words: &[&str]) -> Vec<Part> {
    let head = head_words(words);
    let mut depth = 0i32;
    let mut tail: Option<usize> = None;
    // The drive's capacity comes before its marker: a word like it after one is no capacity
    // the cut must keep.
    let mut marked = false;
    let mut out = Vec::with_capacity(words.len());
    for (k, w) in words.iter().enumerate() {
        let part = match tail {
            Some(n) => Part::Tail(n),
            None if k < head => Part::Head,
            None if SHORT_MARKERS.iter().any(|(m, _, _)| key(w) == *m) => Part::Marker,
            None if is_capacity(w) && !marked => Part::Capacity,
            None => Part::Middle,
        };
        marked |= part == Part::Marker;
        out.push(part);
        depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
        if depth <= 0 && w.ends_with(',') {
            tail = Some(tail.map_or(0, |n| n + 1));
        }
    }
    out
}

/// The labels of [`tags_within`], the markers in their short form where `short`. The names
/// too long go without the same steps of words (those all the others have, then the words
/// fewer have), until every one fits, so that their labels take one form: "HP FX700 …
/// (sim), 23:12:17" beside "HP FX700 … (sim), 23:12:17 (2)", not one with "2TB" and one
/// without.
fn tags_with(names: &[&str], max: usize, short: bool) -> Vec<String> {
    let words: Vec<Vec<&str>> = names
        .iter()
        .map(|t| t.split_whitespace().collect())
        .collect();
    let parts: Vec<Vec<Part>> = words.iter().map(|ws| parts_of(ws)).collect();
    // Each part after the drive, as one text to compare.
    let tails: Vec<Vec<String>> = words
        .iter()
        .zip(&parts)
        .map(|(ws, ps)| {
            let mut out: Vec<Vec<&str>> = Vec::new();
            for (w, p) in ws.iter().zip(ps) {
                if let Part::Tail(n) = p {
                    if out.len() <= *n {
                        out.push(Vec::new());
                    }
                    out[*n].push(key(w));
                }
            }
            out.into_iter().map(|t| t.join(" ")).collect()
        })
        .collect();
    let others = names.len().saturating_sub(1);
    let mut cuts: Vec<Elided> = (0..names.len())
        .map(|i| {
            let shown: Vec<String> = words[i]
                .iter()
                .zip(&parts[i])
                .map(
                    |(w, p)| match SHORT_MARKERS.iter().find(|(m, _, _)| key(w) == *m) {
                        Some((m, s, _)) if short && *p == Part::Marker => w.replacen(m, s, 1),
                        _ => w.to_string(),
                    },
                )
                .collect();
            // How many of the other names have each word (a part after the drive: the whole
            // part).
            let shared: Vec<usize> = words[i]
                .iter()
                .zip(&parts[i])
                .map(|(w, p)| {
                    (0..names.len())
                        .filter(|&j| j != i)
                        .filter(|&j| match p {
                            Part::Tail(n) => tails[j].contains(&tails[i][*n]),
                            _ => words[j].iter().any(|x| key(x) == key(w)),
                        })
                        .count()
                })
                .collect();
            // The step each word may go in, if any: a word of the drive's middle, and a part
            // after it where every other name has it; the words more names have first, and of
            // those the parts after the drive (a time every run shares), then the middle. The
            // capacity never goes: "#2: Crucial P5 … (sim)" left out the one word that was
            // shorter than its "…" and that says which P5 it was.
            let step: Vec<Option<(std::cmp::Reverse<usize>, u8)>> = parts[i]
                .iter()
                .zip(&shared)
                .map(|(p, &n)| {
                    let all = n == others;
                    let kind = match p {
                        Part::Tail(_) if all => 0,
                        Part::Middle if n > 0 => 1,
                        // Then the drive's words no other name has ("(enterprise, no SLC
                        // cache)"), rather than the marker at its end.
                        Part::Middle => 2,
                        _ => return None,
                    };
                    Some((std::cmp::Reverse(n), kind))
                })
                .collect();
            let kept = parts[i]
                .iter()
                .zip(&shared)
                .any(|(p, &n)| *p == Part::Marker || matches!(p, Part::Tail(_)) && n < others);
            let keep = vec![true; shown.len()];
            Elided {
                text: render(&shown, &keep, &shared, others),
                cut: names[i].chars().count() > max,
                words: shown,
                shared,
                step,
                keep,
                kept,
            }
        })
        .collect();
    let mut steps: Vec<(std::cmp::Reverse<usize>, u8)> = cuts
        .iter()
        .filter(|c| c.cut)
        .flat_map(|c| c.step.iter().flatten().copied())
        .collect();
    steps.sort();
    steps.dedup();
    for s in steps {
        if cuts.iter().all(|c| c.text.chars().count() <= max) {
            break;
        }
        for c in cuts.iter_mut().filter(|c| c.cut) {
            for (k, st) in c.step.iter().enumerate() {
                if *st == Some(s) {
                    c.keep[k] = false;
                }
            }
            c.text = render(&c.words, &c.keep, &c.shared, others);
        }
    }
    cuts.into_iter()
        .zip(names)
        .map(|(c, n)| {
            if !c.cut && !short {
                n.to_string()
            } else if c.kept || c.text.chars().count() <= max {
                c.text
            } else {
                cut_at_end(&c.text, max)
            }
        })
        .collect()
}

/// A name on its way to a label: its words (the marker maybe short), how many other names
/// have each, the step each may go in, which are kept, their text, whether it is too long
/// and whether it has what no cut takes beyond its start (a marker, what tells it apart).
struct Elided {
    words: Vec<String>,
    shared: Vec<usize>,
    step: Vec<Option<(std::cmp::Reverse<usize>, u8)>>,
    keep: Vec<bool>,
    text: String,
    cut: bool,
    kept: bool,
}

/// `words` joined where `keep`, each run of left-out words one "…", but for one at the end
/// of words all the `others` have (by `shared`), which goes without one.
fn render(words: &[String], keep: &[bool], shared: &[usize], others: usize) -> String {
    let end = keep.iter().rposition(|&k| k).map_or(0, |k| k + 1);
    let mut out: Vec<&str> = Vec::new();
    for (w, k) in words[..end].iter().zip(keep) {
        if *k {
            out.push(w);
        } else if out.last() != Some(&"…") {
            out.push("…");
        }
    }
    if !shared[end..].iter().all(|&n| n == others) {
        out.push("…");
    }
    // A name's own colon ("#5: ...") is not kept at its end: the labels add theirs
    // ("#5:: 100 GB" was drawn); nor a comma before a "…".
    out.join(" ")
        .replace(", …", " …")
        .trim_end_matches([',', ':', ' '])
        .to_string()
}

/// How many words at the start of a name are its start, which no cut takes: an id or a host
/// ("#5:", "bench-2 #31:") and then the drive's first two words ("HP FX700", "Samsung SSD").
fn head_words(words: &[&str]) -> usize {
    let prefix = words
        .iter()
        .take(2)
        .rposition(|w| w.ends_with(':'))
        .map_or(0, |p| p + 1);
    (prefix + 2).min(words.len())
}

#[cfg(test)]
mod name_tests {
    use super::{plot_tags, short_name};

    /// Two runs of one preset, one with options: their labels were "(simulated):" and
    /// "(simulated), cache=2GB:", naming no drive.
    #[test]
    fn labels_of_one_preset_with_options_keep_the_drive() {
        let names = [
            "Samsung SSD 960 EVO 250GB (simulated)",
            "Samsung SSD 960 EVO 250GB (simulated), cache=2GB",
        ];
        let t = plot_tags(&names);
        assert_ne!(t[0], t[1], "{t:?}");
        for l in &t {
            assert!(!l.starts_with('('), "{t:?}");
            assert!(l.contains("Samsung") || l.contains("960"), "{t:?}");
        }
        assert!(t[1].contains("cache=2GB"), "{t:?}");
    }

    /// The plot's labels cut the start of names: two runs of one drive were "23:12:17" and
    /// "23:12:17 (2)", and beside other drives "HP … (QLC) seqwrite 128K", so the reader lost
    /// the model. A label keeps the start of its name (the model, after an id or a host) and
    /// drops words from the middle or the end, never what only its run has.
    #[test]
    fn plot_tags_keep_the_start_of_each_name() {
        let sets: [&[&str]; 5] = [
            &[
                "HP FX700 2TB (QLC) (simulated), 23:12:17",
                "HP FX700 2TB (QLC) (simulated), 23:12:17 (2)",
            ],
            &[
                "HP FX700 2TB (QLC) (simulated), seqwrite 128K",
                "HP FX700 2TB (QLC) (simulated), randwrite 4K",
                "Crucial P5 1TB (simulated)",
                "Samsung SSD 970 EVO 500GB (simulated)",
            ],
            &[
                "#1: HP FX700 2TB (QLC) (simulated), seqwrite 128K",
                "#2: HP FX700 2TB (QLC) (simulated), randwrite 4K",
                "Samsung SSD 970 EVO 500GB (simulated)",
            ],
            &[
                "bench-2 #31: HP FX700 2TB (QLC) (simulated)",
                "bench-5 #44: HP FX700 2TB (QLC) (simulated)",
            ],
            &[
                "Samsung PM983 960GB (enterprise, no SLC cache) (simulated)",
                "Kingston A2000 1TB (simulated)",
                "HP FX700 2TB (QLC) (simulated), seqwrite 128K",
                "HP FX700 2TB (QLC) (simulated), randwrite 4K",
            ],
        ];
        let key = |w: &str| w.trim_end_matches([',', ':']).to_string();
        for names in sets {
            let tags = plot_tags(names);
            for (i, (n, t)) in names.iter().zip(&tags).enumerate() {
                assert!(!tags[..i].contains(t), "{tags:?}");
                // Past the most characters only with what no cut takes: the marker, short,
                // the capacity and what tells the run apart.
                assert!(t.chars().count() <= 31 || t.contains(" (sim)"), "{t:?}");
                // The start: an id or host, then the drive's first two words.
                let words: Vec<&str> = n.split_whitespace().collect();
                let prefix = words.iter().take(2).rposition(|w| w.ends_with(':'));
                let head = words[..prefix.map_or(0, |p| p + 1) + 2].join(" ");
                assert!(
                    t.starts_with(&head),
                    "{t:?} lost the start {head:?} of {n:?}"
                );
                // The rest: the name's own words in their order, "…" where some were left out.
                let mut rest = words.iter();
                for w in t.split_whitespace().filter(|w| *w != "…") {
                    let w = w.trim_end_matches('…');
                    let w = match super::SHORT_MARKERS.iter().find(|m| key(w) == m.1) {
                        Some(m) => m.0,
                        None => w,
                    };
                    assert!(
                        rest.any(|x| key(x) == key(w) || x.starts_with(w)),
                        "{t:?} is no cut of {n:?}"
                    );
                }
                // What only this run has stays (at least its first such word).
                let own: Vec<String> = words
                    .iter()
                    .filter(|w| {
                        names
                            .iter()
                            .enumerate()
                            .all(|(j, o)| j == i || !o.split_whitespace().any(|x| key(x) == key(w)))
                    })
                    .map(|w| key(w))
                    .collect();
                assert!(
                    own.is_empty() || own.iter().any(|w| t.contains(w.as_str())),
                    "{t:?} lost what only {n:?} has: {own:?}"
                );
            }
        }
        assert_eq!(
            plot_tags(&[
                "HP FX700 2TB (QLC) (simulated), seqwrite 128K",
                "HP FX700 2TB (QLC) (simulated), randwrite 4K",
                "Crucial P5 1TB (simulated)",
                "Samsung SSD 970 EVO 500GB (simulated)",
            ]),
            [
                "HP FX700 2TB … (sim), seqwrite 128K",
                "HP FX700 2TB … (sim), randwrite 4K",
                "Crucial P5 1TB (sim)",
                "Samsung SSD … 500GB (sim)",
            ]
        );
    }

    /// A compare of two simulated 960 EVOs and an emulated one with a 1 GB cache labelled
    /// them "Samsung SSD … 250GB …", "Samsung SSD … 500GB …" and "Samsung SSD …
    /// (emulated)…": the marker cut, and the emulated run's capacity and cache gone. A label
    /// keeps its marker (short where the labels need it), its capacity where another run's
    /// differs, and its options whole.
    #[test]
    fn plot_tags_keep_the_marker_capacity_and_options() {
        let t = plot_tags(&[
            "Samsung SSD 960 EVO 250GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated)",
            "Samsung SSD 960 EVO 250GB (emulated), cache=1GB",
        ]);
        assert_eq!(
            t,
            [
                "Samsung SSD … 250GB (sim)",
                "Samsung SSD … 500GB (sim)",
                "Samsung SSD … 250GB (emu), cache=1GB",
            ]
        );
        assert_eq!(
            super::short_marker_note(&t.iter().map(String::as_str).collect::<Vec<_>>()).as_deref(),
            Some("(sim): simulated, (emu): emulated")
        );
        // Two runs of one drive: each keeps its whole workload, in one form ("#19: Samsung
        // SSD … 128K" beside "#20 … randwrite…" was drawn).
        let t = plot_tags(&[
            "#19: Samsung SSD 960 EVO 250GB (simulated), seqwrite 128K",
            "#20: Samsung SSD 960 EVO 250GB (simulated), randwrite 4K",
        ]);
        assert_eq!(
            t,
            [
                "#19: Samsung SSD … 250GB (sim), seqwrite 128K",
                "#20: Samsung SSD … 250GB (sim), randwrite 4K",
            ]
        );
    }

    /// Compare labels were once cut mid-word ("…250G…").
    #[test]
    fn plot_labels_are_cut_at_a_word_end() {
        let n = "Samsung SSD 960 EVO 250GB (simulated), 13:21:49";
        let s = short_name(n);
        assert_eq!(s, "Samsung SSD 960 EVO 250GB…");
        let word_end = |s: &str| {
            let head = s.trim_end_matches('…');
            n.starts_with(head)
                && n[head.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        };
        assert!(word_end(&s), "{s}");
        assert_eq!(short_name("short name"), "short name");
        let long_word = "Averyveryverylongmodelnamewithoutspaces";
        assert!(short_name(long_word).chars().count() <= 31);
    }

    /// Plot labels keep the words that tell the runs apart, and a lone name keeps its words.
    #[test]
    fn plot_tags_keep_what_differs() {
        use super::plot_tags;
        let t = plot_tags(&[
            "Samsung SSD 960 EVO 250GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated)",
            "HP FX700 2TB (QLC) (simulated)",
        ]);
        // The words the others have go from the middle of those too long; the model, the
        // capacity and the marker, short in every label, stay.
        assert_eq!(
            t,
            [
                "Samsung SSD … 250GB (sim)",
                "Samsung SSD … 500GB (sim)",
                "HP FX700 2TB (QLC) (sim)"
            ]
        );
        let t = plot_tags(&[
            "Samsung SSD 960 EVO 250GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated)",
            "biwin_x570_1tb_fresh_seqwrite",
        ]);
        // A word left out that not every name has is marked in the middle; the marker, at
        // the end, stays.
        assert_eq!(t[0], "Samsung SSD … 250GB (sim)");
        // Stored runs of one drive, named by their ids: whole where they fit.
        assert_eq!(
            plot_tags(&[
                "#5: Crucial P5 1TB (simulated)",
                "#6: Crucial P5 1TB (simulated)"
            ]),
            [
                "#5: Crucial P5 1TB (simulated)",
                "#6: Crucial P5 1TB (simulated)"
            ]
        );
        // Longer: the id, the model and its capacity stay, and what differs ("#5: Crucial
        // P5 … (sim)" left out the capacity, shorter than its "…").
        assert_eq!(
            plot_tags(&[
                "#5: Crucial P5 1TB (simulated), seqwrite 128K",
                "#6: Crucial P5 1TB (simulated), randwrite 4K"
            ]),
            [
                "#5: Crucial P5 1TB (sim), seqwrite 128K",
                "#6: Crucial P5 1TB (sim), randwrite 4K"
            ]
        );
        // A lone name keeps its marker too.
        let one = plot_tags(&["Samsung SSD 960 EVO 250GB (simulated), 13:21:49"]);
        assert_eq!(one, ["Samsung SSD … 250GB (sim)"]);
    }
}

/// One run of a comparison.
#[derive(Debug, Clone, Copy)]
pub struct CompareRun<'a> {
    /// Name in the legend (unique among the runs).
    pub name: &'a str,
    /// The timeline.
    pub timeline: &'a Timeline,
    /// Its analysis.
    pub analysis: &'a Analysis,
}

/// The colour and dash of the `i`-th run of a comparison: Okabe-Ito colours (no yellow, too
/// light on white) and four dash patterns, combined so that no two of the first 14 runs share
/// both; runs stay apart in grey too.
pub fn run_style(i: usize) -> LineStyle {
    const COLORS: [Rgb; 7] = [
        palette::BLUE,
        palette::VERMILLION,
        palette::BLUISH_GREEN,
        palette::REDDISH_PURPLE,
        palette::BLACK,
        palette::ORANGE,
        palette::SKY_BLUE,
    ];
    const DASHES: [Dash; 4] = [
        Dash::Solid,
        Dash::Dashed { on: 14, off: 6 },
        Dash::Dashed { on: 4, off: 4 },
        Dash::Dashed { on: 20, off: 6 },
    ];
    let (c, round) = (i % COLORS.len(), i / COLORS.len());
    LineStyle {
        color: COLORS[c],
        alpha: 1.0,
        width: 3.0,
        dash: DASHES[(c + 2 * round) % DASHES.len()],
    }
}

/// Where a run's x axis starts in a comparison aligned on the cliff: its first cliff (time in
/// seconds, bytes written), or none without a cliff (then it is not shifted).
pub(super) fn cliff_origin(r: &CompareRun<'_>) -> Option<(f64, f64)> {
    let c = r.analysis.cliffs.first()?;
    let bytes = r
        .analysis
        .cache_estimate
        .as_ref()
        .map(|e| e.bytes)
        .unwrap_or(c.bytes_written);
    Some((c.t_s, bytes as f64))
}

/// The comparison chart over `xk`. `mark_unconfirmed`: a run whose findings' cache is
/// [`Cache::Unconfirmed`] says so in the legend and on the plot (off for the bursts of an
/// experiment, whose cache is the experiment's own reading, which its subtitle gives).
pub(super) fn compare(
    runs: &[CompareRun<'_>],
    o: &ReportOptions,
    xk: XKind,
    mark_unconfirmed: bool,
) -> ChartSpec {
    let u = o.units;
    let align = o.align_cliff;
    // Per run: the shift of its x axis (seconds or bytes) when aligned on the cliff.
    let shift: Vec<f64> = runs
        .iter()
        .map(|r| match (align, cliff_origin(r), xk) {
            (true, Some((ts, _)), XKind::Time) => ts,
            (true, Some((_, b)), XKind::Data) => b,
            _ => 0.0,
        })
        .collect();
    let (mut lo_raw, mut hi_raw) = (0.0f64, 0.0f64);
    for (r, s) in runs.iter().zip(&shift) {
        let end = match xk {
            XKind::Time => r.timeline.duration_s(),
            XKind::Data => r.timeline.bytes_total() as f64,
        };
        lo_raw = lo_raw.min(-s);
        hi_raw = hi_raw.max(end - s);
    }
    let span = (hi_raw - lo_raw).max(hi_raw.abs()).max(lo_raw.abs());
    let from = if align { " from the cliff" } else { "" };
    let (xdiv, xlabel) = match xk {
        XKind::Time => {
            let (d, un) = time_scale(span);
            (
                d,
                if align {
                    format!("time from the cliff ({un})")
                } else {
                    format!("time since start ({un})")
                },
            )
        }
        XKind::Data => {
            let (d, un) = data_scale(span, u);
            (d, format!("data written{from} ({un})"))
        }
    };
    let ydiv = u.mega();
    let cols = columns(o.png_size);
    let many = runs.len() > 4;
    // Label texts on the plot: each name, where long without what the others also have
    // after its start, which stays (`plot_tags`).
    let all: Vec<&str> = runs.iter().map(|r| r.name).collect();
    let tags = plot_tags(&all);
    let mut series = Vec::new();
    let mut legend = Vec::new();
    let mut markers = Vec::new();
    let mut throttled: Vec<Throttle> = Vec::new();
    let mut heat_legend = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let style = run_style(i);
        let sh = shift[i] / xdiv;
        let rows = sample_rows(r.timeline);
        let mut raw = interval_series(&rows, xk, xdiv, |k| Some(rows[k].4), ydiv, cols);
        for p in &mut raw {
            p.0 -= sh;
        }
        let smoothed = smooth(&rows, &smoothing_breaks(r.analysis));
        // A run too short to smooth (a few long samples) has only its samples: drawn in its
        // own colour at full strength, not as the faint shadow of a smoothed line.
        let raw_style = match smoothed {
            Some(_) => LineStyle {
                alpha: if many { 0.18 } else { 0.30 },
                width: 1.0,
                dash: Dash::Solid,
                ..style
            },
            None => style,
        };
        series.push(Series {
            name: format!("{} (per interval)", r.name),
            points: raw,
            style: raw_style,
            side: YSide::Left,
            in_legend: false,
            group: Some(i),
        });
        if let Some(sm) = smoothed {
            series.push(Series {
                name: r.name.to_string(),
                points: sm
                    .points
                    .iter()
                    .map(|&(tm, bm, v)| {
                        (
                            match xk {
                                XKind::Time => tm / xdiv,
                                XKind::Data => bm / xdiv,
                            } - sh,
                            v / ydiv,
                        )
                    })
                    .collect(),
                style,
                side: YSide::Left,
                in_legend: false,
                group: Some(i),
            });
        }
        let no_cliff_note = if align && r.analysis.cliffs.is_empty() {
            " (no cliff: not shifted)"
        } else {
            ""
        };
        let f = crate::detect::Findings::of(r.analysis);
        // A run whose first drop was not confirmed (inside its first sample, or too short)
        // says so in the legend, with the cache its findings give ("444 GB to 474 GB
        // (unconfirmed)"), so that it never reads as a plain run.
        let unconfirmed = match &f.cache {
            Cache::Unconfirmed(d) if mark_unconfirmed => Some(d),
            _ => None,
        };
        let unconfirmed_note = match unconfirmed {
            Some(_) => format!(": {}", f.cache_cell(u)),
            None => String::new(),
        };
        legend.push(LegendEntry {
            name: format!("{}{unconfirmed_note}{no_cliff_note}", r.name),
            style,
            swatch: false,
            group: Some(i),
        });
        // The run's thermal throttling, as its analysis found it: a strip of the run's colour
        // along the bottom, one strip above the other for each run that throttled.
        let lane = heat_legend.len();
        let heat: Vec<Throttle> = crate::detect::throttled_spans(r.analysis)
            .into_iter()
            .map(|(s, e)| {
                let at = |t_s: f64| match xk {
                    XKind::Time => t_s / xdiv - sh,
                    XKind::Data => bytes_at(r.timeline, t_s) / xdiv - sh,
                };
                Throttle {
                    x0: at(s),
                    x1: at(e),
                    color: style.color,
                    lane,
                    group: Some(i),
                }
            })
            .filter(|s| s.x1 > s.x0)
            .collect();
        if !heat.is_empty() {
            throttled.extend(heat);
            // Under the run's name as its own entry gives it, not the plot's short form: one
            // drive, one name in the legend.
            heat_legend.push(LegendEntry {
                name: format!("{}: throttled (hot and slower)", r.name),
                style: LineStyle {
                    color: style.color,
                    ..THROTTLE_STYLE
                },
                swatch: true,
                group: Some(i),
            });
        }
        // The drop that was not confirmed, marked where it was seen (the end of the first
        // sample, for a drop inside it), as the run's own chart marks it, under the run's
        // name and the cache its findings give. Not shaded: over a long first sample the
        // shade, in the run's own colour, hid the run's line.
        if let Some(d) = unconfirmed {
            let (xv, _, seen) = unconfirmed_drop_marker(d, xk, xdiv, u);
            let interval: Option<(f64, f64)> = None;
            let mut lines = vec![format!("{}: {}", tags[i], f.cache_cell(u))];
            if !many {
                lines.extend(seen.into_iter().take(1));
            }
            markers.push(Marker {
                x: xv - sh,
                interval: interval.map(|(lo, hi)| (lo - sh, hi - sh)),
                lines,
                style: LineStyle {
                    width: 2.0,
                    dash: Dash::Dashed { on: 4, off: 4 },
                    ..style
                },
                side: LabelSide::Right,
                row: 0,
                group: Some(i),
            });
        }
        // Every cliff of the run is marked, as its own chart marks them; with many runs only
        // the first, each run's one short line.
        let shown = if many { 1 } else { usize::MAX };
        for (k, c) in r.analysis.cliffs.iter().enumerate().take(shown) {
            let bytes = cliff_origin(r)
                .filter(|_| k == 0)
                .map(|x| x.1 as u64)
                .unwrap_or(c.bytes_written);
            let xv = match xk {
                XKind::Time => c.t_s / xdiv,
                XKind::Data => bytes as f64 / xdiv,
            } - sh;
            // Many runs: one short line per label (the name and where its cliff is), so the
            // labels do not cover the plot. Where the cliff is, not a size ("22.0 GB" of a run
            // whose writes had wrapped round a 5 GB span read as its cache), with what the
            // run's findings say of it in short.
            // Heat that came with the cliff puts the size in doubt, as compare.md and the
            // run's own outputs say (the label gave "cliff after 52.3 GB" bare).
            let what = match (&f.cache, f.first_sample_hides) {
                (Cache::Wrapped { .. }, _) if k == 0 => " (wrapped; no size)",
                (Cache::Sized { .. }, Some(_)) if k == 0 => " (or a later tier's)",
                (Cache::Sized { .. }, None) if k == 0 && f.heat_at_cliff => " (heat; in doubt)",
                _ => "",
            };
            let lines = if many {
                vec![format!(
                    "{}: cliff {}{what}",
                    tags[i],
                    match xk {
                        XKind::Time => {
                            format!("at {}", format_time_point(c.t_s))
                        }
                        XKind::Data => format!("after {}", format_bytes(bytes as f64, u)),
                    }
                )]
            } else {
                // A cliff after a first sample that could hide a faster tier may be a later
                // tier's, as compare.md and `runs` say (the label gave it bare).
                vec![
                    format!("{}: {}{what}", tags[i], cliff_label(c.t_s, bytes, u)),
                    {
                        // The levels either side of the cliff, as the run's findings give them.
                        let step = f.steps.get(k);
                        match step {
                            Some(_) => step_levels_label(&f, k, u),
                            None => levels_label(c.before_bytes_per_sec, c.after_bytes_per_sec, u),
                        }
                    },
                ]
            };
            markers.push(Marker {
                x: xv,
                interval: None,
                lines,
                style: LineStyle {
                    width: 2.0,
                    dash: Dash::Dashed { on: 10, off: 6 },
                    ..style
                },
                side: LabelSide::Right,
                row: 0,
                group: Some(i),
            });
        }
    }
    legend.extend(heat_legend);
    // The footer: the workload once when the runs share it, then the version. The drives are
    // in the legend and in compare.md's table.
    let workloads: Vec<String> = runs
        .iter()
        .map(|r| workload_text_of(&r.timeline.meta, r.analysis))
        .collect();
    let mut parts = Vec::new();
    match workloads.first() {
        // No run (an experiment interrupted in its first burst): no workload to name.
        None => {}
        Some(w0) if workloads.iter().all(|w| w == w0) => {
            parts.push(format!("Workload: {w0}"));
        }
        Some(_) if !many => {
            for (tag, w) in tags.iter().zip(&workloads) {
                parts.push(format!("{tag}: {w}"));
            }
        }
        Some(_) => parts.push("Workloads differ: see compare.md".to_string()),
    }
    if align {
        parts.push("each run shifted so that its first cliff is at 0".to_string());
    }
    // The subtitle, at the footer's scale (which its number of lines does not change).
    let provisional = Layout::new(o.png_size, false, 1);
    // Each run's cache as its findings give it (as `runs` and every other output do): the
    // size with its 95% interval, or the bound or reason where there is no size.
    let findings: Vec<crate::detect::Findings> = runs
        .iter()
        .map(|r| crate::detect::Findings::of(r.analysis))
        .collect();
    let sized = findings.iter().any(|f| f.cache_bytes().is_some());
    let lead = if sized {
        "SLC cache size (95% interval)"
    } else {
        "SLC cache size"
    };
    // Each run's cache, and where the rate in it was at its link's limit, the link, as the
    // single run's subtitle names it.
    let line = |names: &[&str]| {
        let sizes: Vec<String> = names
            .iter()
            .zip(&findings)
            .map(|(n, f)| match f.link_limit_text() {
                Some(t) => format!("{n}: {}, {t}", cache_figure(f, u)),
                None => format!("{n}: {}", cache_figure(f, u)),
            })
            .collect();
        format!("{lead}  ·  {}", sizes.join("  ·  "))
    };
    // The line with the runs' names; where too long, with the shorter names of the plot's
    // labels (the legend has them in full), then shorter still, each keeping its start and
    // what tells it apart (never cut at its end there: "HP FX700 … seqwrite…"). A line a
    // little too long is drawn a little smaller (as the header draws any line too long for
    // it, down to 75%), and a run at its link's limit, whose line is longer, smaller still,
    // rather than without each run's interval.
    let mut lines = vec![line(&all)];
    for max in [TAG_MAX, 24, 20] {
        let shorter = tags_within(&all, max);
        let cut = shorter
            .iter()
            .zip(&all)
            .any(|(t, n)| t.ends_with('…') && !t.ends_with(" …") && !n.ends_with('…'));
        if max == TAG_MAX || !cut {
            lines.push(line(
                &shorter.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
        }
    }
    let sub_w = o.png_size.0 as f64 - 48.0 * provisional.scale;
    let fits_at =
        |t: &str, share: f64| text_width(t, provisional.font(font_px::SUBTITLE) * share) <= sub_w;
    let at_limit = findings.iter().any(|f| f.link_limit_text().is_some());
    let least = if at_limit { 0.85 } else { 0.9 };
    let found = [1.0, least]
        .iter()
        .find_map(|&share| lines.iter().find(|t| fits_at(t, share)));
    let mut subtitle = found.cloned().unwrap_or_default();
    if found.is_none() {
        // Too long for one line: the range of the sizes (each run's, with its interval or
        // bound, is in compare.md).
        // The sizes the runs' findings give: not a cliff past a run's span, which is none.
        let est: Vec<u64> = findings
            .iter()
            .filter_map(|f| match f.cache {
                Cache::Sized { bytes, .. } => Some(bytes),
                _ => None,
            })
            .collect();
        // The runs whose drop was not confirmed are counted apart from those without a
        // cliff, by the kind of cache their findings give.
        let unconfirmed = findings
            .iter()
            .filter(|f| matches!(f.cache, Cache::Unconfirmed(_)))
            .count();
        let without = runs
            .iter()
            .zip(&findings)
            .filter(|(r, f)| {
                r.analysis.cliffs.is_empty() && !matches!(f.cache, Cache::Unconfirmed(_))
            })
            .count();
        // In clauses, fitted at a clause's end, never in one ("each run's size and its 95%…"
        // was drawn): a clause that does not fit takes its shorter form or goes.
        let clause = |forms: Vec<String>, keep: bool, rank: u8| Clause { forms, keep, rank };
        let mut clauses = vec![clause(vec![count_text(runs.len(), "run", "runs")], true, 0)];
        if let (Some(lo), Some(hi)) = (est.iter().min(), est.iter().max()) {
            let (lo, hi) = (format_bytes(*lo as f64, u), format_bytes(*hi as f64, u));
            // One figure where the sizes round alike, not "from 13.0 GB to 13.0 GB".
            if lo == hi {
                if est.len() == runs.len() {
                    clauses.push(clause(
                        vec![format!("SLC cache {lo} in every run")],
                        true,
                        0,
                    ));
                } else {
                    clauses.push(clause(
                        vec![format!(
                            "SLC cache {lo} in {} with a cliff",
                            if est.len() == 1 {
                                "the run".to_string()
                            } else {
                                format!("the {} runs", est.len())
                            }
                        )],
                        true,
                        0,
                    ));
                }
            } else {
                clauses.push(clause(
                    vec![format!("SLC cache from {lo} to {hi}")],
                    true,
                    0,
                ));
            }
        }
        // Sizes that a faster first tier hidden in a run's first sample could make a later
        // tier's: said, as each run's own outputs say it.
        let hedged = findings
            .iter()
            .filter(|f| matches!(f.cache, Cache::Sized { .. }) && f.first_sample_hides.is_some())
            .count();
        // Which of the sizes a clause speaks of: "that size", "1 size", "every size", "3 sizes".
        let which = |k: usize| match k {
            1 if est.len() == 1 => "that size".to_string(),
            1 => "1 size".to_string(),
            n if n == est.len() => "every size".to_string(),
            n => format!("{n} sizes"),
        };
        if hedged > 0 {
            let which = which(hedged);
            clauses.push(clause(
                vec![
                    format!(
                        "{which} may be a later tier's (a faster first tier could hide in the \
                         first sample)"
                    ),
                    format!("{which} may be a later tier's"),
                ],
                true,
                2,
            ));
        }
        // Sizes whose cliff came with heat: in doubt, as each run's own outputs say.
        let hot = findings
            .iter()
            .filter(|f| {
                matches!(f.cache, Cache::Sized { .. })
                    && f.first_sample_hides.is_none()
                    && f.heat_at_cliff
            })
            .count();
        if hot > 0 {
            let which = which(hot);
            clauses.push(clause(
                vec![
                    format!("{which} in doubt (heat came with its cliff)"),
                    format!("{which} in doubt"),
                ],
                true,
                2,
            ));
        }
        if without > 0 {
            clauses.push(clause(vec![format!("{without} without a cliff")], true, 1));
        }
        if unconfirmed > 0 {
            clauses.push(clause(
                vec![format!("{unconfirmed} with an unconfirmed drop")],
                true,
                1,
            ));
        }
        // Runs whose cliff came after more than their span holds: no size, as each says.
        let wrapped = findings
            .iter()
            .filter(|f| matches!(f.cache, Cache::Wrapped { .. }))
            .count();
        if wrapped > 0 {
            clauses.push(clause(
                vec![
                    format!("{wrapped} with a cliff past its span (no size)"),
                    format!("{wrapped} wrapped (no size)"),
                ],
                true,
                1,
            ));
        }
        // The runs whose rate in the cache was at a link's limit, counted per link.
        let mut limited: Vec<(String, usize)> = Vec::new();
        for t in findings.iter().filter_map(|f| f.link_limit_text()) {
            match limited.iter_mut().find(|(x, _)| *x == t) {
                Some((_, n)) => *n += 1,
                None => limited.push((t, 1)),
            }
        }
        for (t, n) in limited {
            clauses.push(clause(
                vec![format!(
                    "{t} in {}",
                    if n == runs.len() {
                        "every run".to_string()
                    } else {
                        format!("{n} of {} runs", runs.len())
                    }
                )],
                false,
                3,
            ));
        }
        clauses.push(clause(
            vec![
                "each run's size and its 95% interval in compare.md".to_string(),
                "each run's size in compare.md".to_string(),
            ],
            false,
            4,
        ));
        subtitle = fit_subtitle(&clauses, o.png_size);
    }
    // The short markers the labels or the subtitle use, said (the legend names each run in
    // full).
    let shown: Vec<&str> = tags
        .iter()
        .map(String::as_str)
        .chain([subtitle.as_str()])
        .collect();
    if let Some(note) = short_marker_note(&shown) {
        parts.push(note);
    }
    parts.push(format!("slccache {}", crate::VERSION));
    let footer = wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    );
    let layout = Layout::new(o.png_size, false, footer.len())
        .with_legend_rows(legend_rows(&legend, o.png_size).len());
    let x = Axis {
        label: xlabel,
        min: lo_raw / xdiv,
        // No run, or runs that wrote nothing: one unit of the axis, not a range of nothing.
        max: if hi_raw > lo_raw {
            (hi_raw / xdiv).max(lo_raw / xdiv + 1e-9)
        } else {
            lo_raw / xdiv + 1.0
        },
        log: false,
        ticks: vec![],
    };
    let frac = place_markers(&mut markers, &x, &layout).min(0.45);
    let data_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    with_ticks(ChartSpec {
        kind: match xk {
            XKind::Time => ChartKind::CompareTime,
            XKind::Data => ChartKind::CompareData,
        },
        size: o.png_size,
        title: match xk {
            XKind::Time => "Write throughput over time: comparison".to_string(),
            XKind::Data => "Write throughput over data written: comparison".to_string(),
        },
        subtitle,
        footer,
        x,
        y: Axis {
            label: format!("write throughput ({}/s)", u.mega_label()),
            min: 0.0,
            max: headroom_linear(data_max, frac),
            log: false,
            ticks: vec![],
        },
        y2: None,
        series,
        bands: vec![],
        markers,
        legend,
        zoom: None,
        theme: o.theme,
        throttled,
    })
}

/// A run's cache as a comparison's subtitle gives it: [`crate::detect::Findings::cache_cell`]
/// (`13.0 GB (13.0 GB to 13.1 GB)`, `>= 40.0 GB (no cliff)`), or where that has no figure
/// the words of [`crate::detect::Findings::cache_text`].
fn cache_figure(f: &crate::detect::Findings, u: crate::units::UnitSystem) -> String {
    match f.cache_cell(u) {
        c if c == "-" => f.cache_text(u),
        c => c,
    }
}

/// Comparison over time: thin per-interval lines and a thick smoothed line per run.
pub fn compare_time(runs: &[CompareRun<'_>], o: &ReportOptions) -> ChartSpec {
    compare(runs, o, XKind::Time, true)
}

/// Comparison over data written.
pub fn compare_data(runs: &[CompareRun<'_>], o: &ReportOptions) -> ChartSpec {
    compare(runs, o, XKind::Data, true)
}
