//! One headline: a run's findings are worked out once (`detect::Findings`) and every output
//! states the same figures. Seven shapes of run, each made as a user makes it; for each, the
//! cache, the rate in it, the levels at each cliff and the rate after it are looked for in the
//! terminal's lines, report.md, report.html, the card, the chart's subtitle, `runs` (table and
//! JSON), `history` and `compare`.

use std::path::{Path, PathBuf};

use slccache::detect::findings::{After, Cache, Findings};
use slccache::units::{format_bytes, format_rate, UnitSystem};

const U: UnitSystem = UnitSystem::Decimal;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A run made for the test: its folder, what the command printed, and its findings.
struct Shape {
    name: &'static str,
    dir: PathBuf,
    terminal: String,
    findings: Findings,
}

fn run(db: &Path, args: &[&str]) -> String {
    let out = super::common::slccache_process()
        .args(args)
        .env("SLCCACHE_DB", db)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "slccache {args:?}: {text}");
    text
}

fn make(db: &Path, root: &Path, name: &'static str, args: &[&str]) -> Shape {
    let dir = root.join(name);
    let mut all: Vec<&str> = args.to_vec();
    let d = dir.display().to_string();
    all.extend(["--out", &d]);
    let terminal = run(db, &all);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    let findings: Findings = serde_json::from_value(summary["findings"].clone())
        .unwrap_or_else(|e| panic!("{name}: summary.json has no findings: {e}"));
    // The findings in the file are the analysis's, worked out once.
    let analysis: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    assert_eq!(findings, Findings::of(&analysis), "{name}");
    Shape {
        name,
        dir,
        terminal,
        findings,
    }
}

/// A two-column log of a dynamic cache that comes back while written: 2000 MB/s for 30 s,
/// 300 MB/s for 30 s, 2000 MB/s for 15 s, then 300 MB/s.
fn cache_back_csv(path: &Path) {
    let mut s = String::from("time_s,MB/s\n");
    for i in 1..=140 {
        let r = if i <= 30 || (61..=75).contains(&i) {
            2000.0
        } else {
            300.0
        };
        s += &format!("{i},{:.1}\n", r * (1.0 + 0.02 * (i as f64 * 1.7).sin()));
    }
    std::fs::write(path, s).unwrap();
}

/// A two-column log whose rate after the cache is not steady: 2000 MB/s for 30 s, then 600
/// and 950 MB/s in turn, 40 s each.
fn unsteady_csv(path: &Path) {
    let mut s = String::from("time_s,MB/s\n");
    for i in 1..=200 {
        let r = if i <= 30 {
            2000.0
        } else if ((i - 31) / 40) % 2 == 0 {
            600.0
        } else {
            950.0
        };
        s += &format!("{i},{:.1}\n", r * (1.0 + 0.02 * (i as f64 * 1.7).sin()));
    }
    std::fs::write(path, s).unwrap();
}

/// A two-column log of a level that swings by turns before a slower tier: 2000 MB/s for 30 s,
/// then 300 and 900 MB/s by turns of 5 s for 100 s, then 150 MB/s for 60 s, with 2% noise.
fn swing_then_tier_csv(path: &Path) {
    let mut s = String::from("time_s,MB/s\n");
    for i in 1..=190 {
        let r = if i <= 30 {
            2000.0
        } else if i <= 130 {
            if ((i - 31) / 5) % 2 == 0 {
                300.0
            } else {
                900.0
            }
        } else {
            150.0
        };
        s += &format!("{i},{:.1}\n", r * (1.0 + 0.02 * (i as f64 * 1.7).sin()));
    }
    std::fs::write(path, s).unwrap();
}

/// The figures every output must state for `f`, as each is written: (what, text).
fn figures(f: &Findings) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    let b = |x: u64| format_bytes(x as f64, U);
    match &f.cache {
        Cache::Sized {
            bytes,
            low_bytes,
            high_bytes,
        } => {
            v.push(("cache", b(*bytes)));
            v.push(("cache low", b(*low_bytes)));
            v.push(("cache high", b(*high_bytes)));
        }
        Cache::AtLeast { bytes, .. } => v.push(("bound", b(*bytes))),
        Cache::NoneOverWholeDrive { capacity_bytes, .. } => v.push(("drive", b(*capacity_bytes))),
        _ => {}
    }
    if let Some(r) = f.in_cache_bytes_per_sec {
        v.push(("in cache", format_rate(r, U)));
    }
    match &f.after {
        Some(After::NotSteady {
            low_bytes_per_sec,
            high_bytes_per_sec,
        }) => {
            v.push(("after, slowest", format_rate(*low_bytes_per_sec, U)));
            v.push(("after, fastest", format_rate(*high_bytes_per_sec, U)));
        }
        Some(a) => v.push(("after", a.text(U))),
        None => {}
    }
    v
}

/// The words that say what kind of cache finding it is, per output kind (any case).
fn kind_words(f: &Findings) -> &'static [&'static str] {
    match f.cache {
        Cache::Sized { .. } => &[],
        Cache::AtLeast { .. } => &["no cliff"],
        Cache::NoneOverWholeDrive { .. } => &["no cliff"],
        Cache::ReadOnly { .. } => &["read"],
        _ => &[],
    }
}

fn check(shape: &str, output: &str, text: &str, want: &[(&str, String)], unitless: bool) {
    for (what, figure) in want {
        let figure = if unitless {
            figure.split(' ').next().unwrap().to_string()
        } else {
            figure.clone()
        };
        assert!(
            text.contains(&figure),
            "{shape}: {output} does not state the {what} {figure:?}:\n{text}"
        );
    }
}

/// The text of an SVG or HTML page with its entities read.
fn unescape(s: &str) -> String {
    s.replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
}

/// The subtitle of the throughput-over-time chart: the text of its SVG.
fn chart_text(dir: &Path) -> String {
    unescape(&read(&dir.join("throughput-time.svg")))
}

pub fn every_output_states_the_same_findings_on_nine_shapes() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let root = w.path().join("runs");
    let csv = w.path().join("dynamic-cache.csv");
    cache_back_csv(&csv);
    let c = csv.display().to_string();
    let uns = w.path().join("unsteady.csv");
    unsteady_csv(&uns);
    let u = uns.display().to_string();
    let sw = w.path().join("swing-then-tier.csv");
    swing_then_tier_csv(&sw);
    let sw = sw.display().to_string();
    let shapes = vec![
        make(
            &db,
            &root,
            "one-cliff",
            &["simulate", "960evo-500g", "--seed", "1"],
        ),
        make(
            &db,
            &root,
            "two-tiers",
            &["simulate", "fx700-2tb", "--cliffs", "2", "--seed", "1"],
        ),
        make(
            &db,
            &root,
            "throttled",
            &[
                "simulate",
                "p5-1tb",
                "--no-early-stop",
                "--max-bytes",
                "700GB",
                "--seed",
                "1",
            ],
        ),
        make(&db, &root, "cache-back", &["analyze", &c]),
        make(&db, &root, "unsteady", &["analyze", &u]),
        make(&db, &root, "swing-then-tier", &["analyze", &sw]),
        make(
            &db,
            &root,
            "no-cliff-whole-drive",
            &["simulate", "pm983-960g", "--no-early-stop", "--seed", "1"],
        ),
        make(
            &db,
            &root,
            "read-only",
            &[
                "simulate",
                "960evo-500g",
                "--pattern",
                "seqread",
                "--max-bytes",
                "10GB",
                "--seed",
                "1",
            ],
        ),
        make(
            &db,
            &root,
            "one-sample",
            &["simulate", "960evo-500g", "--interval", "1h", "--seed", "1"],
        ),
    ];
    // The shapes are what they are named for.
    let kind = |n: &str| {
        let s = shapes.iter().find(|s| s.name == n).unwrap();
        (s.findings.clone(), s.terminal.clone())
    };
    assert!(matches!(kind("one-cliff").0.cache, Cache::Sized { .. }));
    assert_eq!(kind("two-tiers").0.steps.len(), 2);
    // Heat is left out of "after the cache", which is steady around it.
    assert!(
        matches!(kind("throttled").0.after, Some(After::Steady { .. })),
        "{:?}",
        kind("throttled").0
    );
    assert!(
        kind("throttled")
            .0
            .phase_names
            .iter()
            .any(|n| n == "thermal throttling"),
        "{:?}",
        kind("throttled").0
    );
    assert!(
        matches!(kind("unsteady").0.after, Some(After::NotSteady { .. })),
        "{:?}",
        kind("unsteady").0
    );
    assert!(
        kind("cache-back").1.contains("came back"),
        "{}",
        kind("cache-back").1
    );
    assert!(matches!(
        kind("no-cliff-whole-drive").0.cache,
        Cache::NoneOverWholeDrive { .. }
    ));
    assert!(matches!(kind("read-only").0.cache, Cache::ReadOnly { .. }));
    assert!(matches!(kind("one-sample").0.cache, Cache::TooFewSamples));
    // The level between the two cliffs swings by turns, and the findings give its range.
    let swing = kind("swing-then-tier").0;
    assert_eq!(swing.steps.len(), 2, "{swing:?}");
    assert!(
        swing.steps[0].after_range_bytes_per_sec.is_some()
            && swing.steps[1].before_range_bytes_per_sec.is_some(),
        "{swing:?}"
    );

    // `runs`: the table and the JSON, read once.
    let table = run(&db, &["runs"]);
    let csv = run(&db, &["runs", "--csv"]);
    let json: serde_json::Value = serde_json::from_str(&run(&db, &["runs", "--json"])).unwrap();
    let rows = json.as_array().expect("runs --json is an array");
    assert_eq!(rows.len(), shapes.len(), "{json}");

    for s in &shapes {
        let f = &s.findings;
        let want = figures(f);
        let name = s.name;
        // The terminal.
        check(name, "the terminal", &s.terminal, &want, false);
        // report.md and report.html.
        let md = read(&s.dir.join("report.md"));
        check(name, "report.md", &md, &want, false);
        let html = unescape(&read(&s.dir.join("report.html")));
        check(name, "report.html", &html, &want, false);
        // The levels at each cliff, where the terminal and the chart give them.
        for (i, step) in f.steps.iter().enumerate() {
            // In words: a level that is not one rate is its range ("300 MB/s to 900 MB/s
            // (not steady)"), and its mean is stated nowhere (a swing between two cliffs read
            // "first post-cache level: 603 MB/s" on every output).
            let levels = [
                ("level before a cliff", f.step_before_text(i, U)),
                ("level after a cliff", f.step_after_text(i, U)),
            ];
            check(name, "the terminal", &s.terminal, &levels, false);
            // (After the last cliff, the stretch's parts have levels of their own, which its
            // warnings give.)
            let last = i + 1 == f.steps.len();
            let ranged = [
                (
                    step.before_range_bytes_per_sec,
                    step.before_bytes_per_sec,
                    &levels[0],
                ),
                (
                    step.after_range_bytes_per_sec.filter(|_| !last),
                    step.after_bytes_per_sec,
                    &levels[1],
                ),
            ];
            for (_, mean, range) in ranged.iter().filter(|r| r.0.is_some()) {
                let mean = format_rate(*mean, U);
                let card = {
                    let t = slccache::commands::compare::load_run(&s.dir).unwrap();
                    let a = slccache::detect::analyze(&t);
                    let (_, c, i, af) = slccache::report::pages::card::card_texts(&t, &a, U);
                    let n = slccache::report::pages::card::card_note(&a, U).unwrap_or_default();
                    format!("{c}\n{i}\n{af}\n{n}")
                };
                for (what, text) in [
                    ("the terminal", &s.terminal),
                    ("report.md", &md),
                    ("the chart", &chart_text(&s.dir)),
                    ("the card", &card),
                ] {
                    assert!(
                        !text.contains(&format!(" {mean}")),
                        "{name}: {what} gives the mean {mean} of a level that is not one rate:\n{text}"
                    );
                }
                check(name, "report.md", &md, &levels, false);
                check(name, "the card", &card, &[(*range).clone()], false);
                check(name, "the chart", &chart_text(&s.dir), &levels, false);
            }
            // The chart labels give "1365 -> 591 MB/s": the numbers.
            let chart = chart_text(&s.dir);
            check(
                name,
                &format!("the chart's label of cliff {}", i + 1),
                &chart,
                &levels,
                true,
            );
        }
        // The chart's subtitle states the cache as the findings do.
        let chart = chart_text(&s.dir);
        // (Capitalised where it starts the subtitle: "Reads only ...".)
        let subtitle = f.cache_text(U);
        assert!(
            chart.contains(&subtitle) || chart.contains(&slccache::units::capitalized(&subtitle)),
            "{name}: the chart's subtitle does not say {subtitle:?}"
        );
        // The card.
        let t = slccache::commands::compare::load_run(&s.dir).unwrap();
        let a = slccache::detect::analyze(&t);
        // Read back from timeline.csv (rounded to the microsecond), the last digit of a figure
        // may move, not a figure as the outputs state it.
        let again = Findings::of(&a);
        assert_eq!(
            figures(&again),
            want,
            "{name}: the folder analysed again differs"
        );
        assert_eq!(again.cache_text(U), f.cache_text(U), "{name}");
        let (_, cache, inside, after) = slccache::report::pages::card::card_texts(&t, &a, U);
        let note = slccache::report::pages::card::card_note(&a, U).unwrap_or_default();
        let card = format!("{cache}\n{inside}\n{after}\n{note}");
        // The terminal's heat warning is not contradicted by a card that does not say it.
        if s.terminal.contains("heat") || md.contains("thermal throttling") {
            assert!(
                note.contains("thermal throttling"),
                "{name}: the card: {note}"
            );
        }
        // Two levels after the cache are told only where they differ ("300 → 300 MB/s" was
        // a cache that came back and ran out to the same level).
        if let Some((a, b)) = after.split_once(" → ") {
            let num = |x: &str| x.split_whitespace().find_map(|w| w.parse::<f64>().ok());
            assert_ne!(num(a), num(b), "{name}: the card says {after:?}");
        }
        check(name, "the card", &card, &want, true);
        for w in kind_words(f) {
            assert!(
                card.to_lowercase().contains(w),
                "{name}: the card does not say {w:?}: {card}"
            );
        }
        // `runs`: the row holds the findings, and the table states them.
        let row = rows
            .iter()
            .find(|r| {
                r["source_dir"]
                    .as_str()
                    .is_some_and(|d| Path::new(d).ends_with(name))
            })
            .unwrap_or_else(|| panic!("{name}: not in runs --json: {json}"));
        let stored: Findings = serde_json::from_value(row["findings"].clone()).unwrap();
        assert_eq!(stored, *f, "{name}: runs --json");
        assert_eq!(
            row["in_cache_bytes_per_sec"].as_f64(),
            f.in_cache_bytes_per_sec,
            "{name}"
        );
        assert_eq!(
            row["after_cache_bytes_per_sec"].as_f64(),
            f.after.as_ref().and_then(After::rate),
            "{name}"
        );
        let id = row["id"].as_i64().unwrap();
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
            .unwrap_or_else(|| panic!("{name}: run {id} not in the table:\n{table}"));
        assert!(line.contains(&f.cache_cell(U)), "{name}: runs: {line}");
        check(name, "runs", line, &want, false);
        if let Some(a) = f.after_cell(U) {
            assert!(line.contains(&a), "{name}: runs: {line}");
        }
        // The CSV names the kind of finding, and the range where there is one.
        let row = csv
            .lines()
            .find(|l| l.split(',').next() == Some(&id.to_string()))
            .unwrap_or_else(|| panic!("{name}: run {id} not in the CSV:\n{csv}"));
        let kind = serde_json::to_value(&f.cache).unwrap()["kind"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(row.contains(&format!(",{kind},")), "{name}: {row}");
        if let Some(After::NotSteady {
            low_bytes_per_sec, ..
        }) = &f.after
        {
            assert!(
                row.contains(&format!("{low_bytes_per_sec:.1}")),
                "{name}: {row}"
            );
        }
        // "After the cache" names one stretch: a phase before the last cliff is the first
        // post-cache level (or a later tier), and where the stretch holds several levels none
        // is labelled as its rate.
        if f.steps.len() > 1 && !s.terminal.contains("came back") {
            assert!(md.contains("| first post-cache level: "), "{name}: {md}");
        }
        if matches!(f.after, Some(After::NotSteady { .. })) {
            assert!(!md.contains("after the cache: "), "{name}: {md}");
            assert!(!chart.contains("after the cache: "), "{name}: the chart");
        }
    }

    // A timeline read without its summary.json does not know how much of the drive the run
    // wrote: the folding tier is not called the sustained speed.
    let bare = w.path().join("bare.csv");
    std::fs::copy(root.join("two-tiers/timeline.csv"), &bare).unwrap();
    let text = run(
        &db,
        &["analyze", &bare.display().to_string(), "--no-record"],
    );
    assert!(text.contains("folding"), "{text}");
    assert!(!text.contains("sustained speed is this"), "{text}");

    // `compare` of all seven: compare.md states each run's findings.
    let out = w.path().join("compare");
    let mut args = vec!["compare".to_string()];
    args.extend(shapes.iter().map(|s| s.dir.display().to_string()));
    args.extend(["--out".to_string(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&db, &args);
    let md = read(&out.join("compare.md"));
    for s in &shapes {
        check(s.name, "compare.md", &md, &figures(&s.findings), false);
        assert!(
            md.contains(&s.findings.cache_row(U)),
            "{}: compare.md:\n{md}",
            s.name
        );
    }

    // `history` of the 960 EVO 500GB (three of the shapes): its table states each run's.
    let hist = w.path().join("history");
    let text = run(
        &db,
        &[
            "history",
            "Samsung SSD 960 EVO 500GB",
            "--out",
            &hist.display().to_string(),
        ],
    );
    let md = unescape(&read(&hist.join("report.html")));
    let mut seen = 0;
    for s in shapes.iter().filter(|s| s.name != "read-only") {
        if !s.terminal.contains("960 EVO 500GB") && !s.terminal.contains("960evo-500g") {
            continue;
        }
        seen += 1;
        assert!(
            md.contains(&s.findings.cache_cell(U)),
            "{}: history does not state {:?}:\n{text}\n{md}",
            s.name,
            s.findings.cache_cell(U)
        );
        if let Some(a) = s.findings.after_text(U) {
            assert!(md.contains(&a), "{}: history: {a}\n{md}", s.name);
        }
    }
    assert_eq!(seen, 2, "{md}");
}

/// What the analysis knows of its figures reaches every output with them:
/// - a run of three samples has one mean, not a level found steady: "the whole run" in
///   report.md and summary.json, "mean" on the card, never "steady";
/// - an after-cache stretch too short to judge says so on the card and in `runs` (table and
///   `after_cache_judged` in CSV), as the terminal does;
/// - the level after an unconfirmed drop, shown by the `runs` table, is in the CSV too;
/// - summary.json names each phase as report.md does.
pub fn the_qualifiers_and_phase_names_reach_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("store.db");
    let root = tmp.path();
    let few = make(
        &db,
        root,
        "few",
        &[
            "simulate",
            "960evo-500g",
            "--pattern",
            "seqwrite",
            "--duration",
            "3s",
        ],
    );
    let short = make(
        &db,
        root,
        "short",
        &[
            "simulate",
            "960evo-500g",
            "--max-bytes",
            "30GB",
            "--no-early-stop",
        ],
    );
    let unconf = make(
        &db,
        root,
        "unconf",
        &[
            "simulate",
            "960evo-500g,cache=1GB",
            "--pattern",
            "seqwrite",
            "--seed",
            "2",
        ],
    );
    // Three samples.
    let card = card_lines(&few.dir);
    assert!(
        card.contains("mean  ") && !card.contains("steady"),
        "{card}"
    );
    let report = read(&few.dir.join("report.md"));
    assert!(report.contains("| Phase 1 | the whole run: "), "{report}");
    assert!(!report.contains("steady:"), "{report}");
    assert_eq!(few.findings.phase_names, vec!["the whole run".to_string()]);
    // Too short to judge.
    assert!(
        matches!(short.findings.after, Some(After::TooShort { .. })),
        "{:?}",
        short.findings.after
    );
    assert!(
        short.terminal.contains("too short after it to tell"),
        "{}",
        short.terminal
    );
    let card = card_lines(&short.dir);
    assert!(card.contains("(too short to judge)"), "{card}");
    let table = run(&db, &["runs"]);
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("2 "))
        .unwrap();
    assert!(row.contains("(too short to judge)"), "{table}");
    let csv = run(&db, &["runs", "--csv"]);
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let head = rd.headers().unwrap().clone();
    let col = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name}: {head:?}"))
    };
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    let by_id = |id: &str| rows.iter().find(|r| &r[0] == id).unwrap();
    assert_eq!(&by_id("2")[col("after_cache_judged")], "too_short");
    // The unconfirmed drop's level.
    let Cache::Unconfirmed(d) = &unconf.findings.cache else {
        panic!("{:?}", unconf.findings.cache)
    };
    assert_eq!(&by_id("3")[col("after_cache_judged")], "unconfirmed");
    let level: f64 = by_id("3")[col("unconfirmed_after_bytes_per_sec")]
        .parse()
        .unwrap();
    assert!((level - d.after_bytes_per_sec).abs() < 1.0, "{level}");
    // The phase names in summary.json are report.md's.
    for s in [&few, &short, &unconf] {
        let report = read(&s.dir.join("report.md"));
        for (i, name) in s.findings.phase_names.iter().enumerate() {
            let row = format!("| Phase {} | {name}: ", i + 1);
            assert!(report.contains(&row), "{}: {row} in {report}", s.name);
        }
    }
}

/// The card's lines (the card is a PNG: its texts, as the card draws them), from the folder.
fn card_lines(dir: &Path) -> String {
    let t = slccache::commands::compare::load_run(dir).unwrap();
    let a = slccache::detect::analyze(&t);
    let (_, cache, inside, after) = slccache::report::pages::card::card_texts(&t, &a, U);
    let note = slccache::report::pages::card::card_note(&a, U).unwrap_or_default();
    format!("{cache}\n{inside}\n{after}\n{note}")
}

/// A cliff after more bytes than the span holds (the writes wrapped around it) is not the
/// cache size of that span, as the run's warning says: no output gives it as one. The card,
/// report.md, report.html, the chart, `runs`, `runs --by drive` (which leaves it out of the
/// median) and `history` all say what the findings say.
pub fn a_cliff_past_the_span_is_no_cache_size_in_any_output() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let s = make(
        &db,
        w.path(),
        "wrapped",
        &[
            "simulate",
            "960evo-500g",
            "--span",
            "15GB",
            "--pattern",
            "seqwrite",
            "--max-bytes",
            "60GB",
            "--seed",
            "1",
        ],
    );
    let f = &s.findings;
    let summary: serde_json::Value =
        serde_json::from_str(&read(&s.dir.join("summary.json"))).unwrap();
    let e = &summary["analysis"]["cache_estimate"];
    let b = |k: &str| e[k].as_u64().unwrap_or_else(|| panic!("{k}: {summary}"));
    let (bytes, low_bytes, high_bytes) = (b("bytes"), b("low_bytes"), b("high_bytes"));
    let span_bytes = 15_000_000_000u64;
    assert!(bytes > span_bytes, "{bytes}");
    assert_eq!(
        summary["findings"]["cache"]["span_bytes"].as_u64(),
        Some(span_bytes),
        "{summary}"
    );
    assert!(f.cache_bytes().is_none(), "{f:?}");
    // The terminal's warning and its result line agree.
    assert!(
        s.terminal.contains("is not the cache size of this span"),
        "{}",
        s.terminal
    );
    let said = f.cache_text(U);
    assert!(s.terminal.contains(&said), "{said}\n{}", s.terminal);
    // The figure as a size with its interval, the way a cache size is given, is said nowhere.
    let as_size = format!(
        "{} ({} to {})",
        format_bytes(bytes as f64, U),
        format_bytes(low_bytes as f64, U),
        format_bytes(high_bytes as f64, U)
    );
    let span = format_bytes(span_bytes as f64, U);
    let md = read(&s.dir.join("report.md"));
    let html = unescape(&read(&s.dir.join("report.html")));
    let chart = chart_text(&s.dir);
    for (what, text) in [
        ("report.md", &md),
        ("report.html", &html),
        ("chart", &chart),
    ] {
        // The chart's subtitle has room for the short form only, beside the rates.
        let short = f.wrapped_short_text(U).unwrap();
        assert!(
            text.contains(&said)
                || text.contains(&slccache::units::capitalized(&said))
                || (what == "chart" && text.contains(&slccache::units::capitalized(&short))),
            "{what} does not say {said:?}:\n{text}"
        );
        assert!(
            !text.contains("SLC cache 1") && !text.contains("SLC cache 2"),
            "{what}"
        );
    }
    let t = slccache::commands::compare::load_run(&s.dir).unwrap();
    let a = slccache::detect::analyze(&t);
    let (_, cache, _, _) = slccache::report::pages::card::card_texts(&t, &a, U);
    assert!(!cache.starts_with("SLC cache"), "the card: {cache}");
    assert!(!cache.contains(&as_size), "the card: {cache}");
    assert!(cache.contains(&span), "the card: {cache}");
    // `runs` gives the findings' cell, not a size; `--by drive` leaves it out of the median.
    let table = run(&db, &["runs"]);
    assert!(table.contains(&f.cache_cell(U)), "{table}");
    assert!(!table.contains(&as_size), "{table}");
    let by = run(&db, &["runs", "--by", "drive"]);
    assert!(!by.contains(&format_bytes(bytes as f64, U)), "{by}");
    // `history`: its table says the same.
    let hist = w.path().join("history");
    let text = run(
        &db,
        &[
            "history",
            "Samsung SSD 960 EVO 500GB",
            "--out",
            &hist.display().to_string(),
        ],
    );
    let page = unescape(&read(&hist.join("report.html")));
    assert!(page.contains(&f.cache_cell(U)), "{text}\n{page}");
    assert!(!page.contains(&as_size), "{page}");
}

/// A run interrupted before any cliff (Ctrl-C after 6 s) has only its mean: no steady-state
/// test was made of it, so the card gives it as the terminal does ("mean"), never "steady";
/// and the cell `runs` and `history` show says it was interrupted.
pub fn an_interrupted_run_is_no_steady_level_and_says_it_was_interrupted() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let s = make(
        &db,
        w.path(),
        "short",
        &[
            "simulate",
            "960evo-500g",
            "--pattern",
            "seqwrite",
            "--max-bytes",
            "10GB",
            "--seed",
            "1",
            "--no-record",
        ],
    );
    assert!(s.findings.steps.is_empty(), "{}", s.terminal);
    let mut t = slccache::commands::compare::load_run(&s.dir).unwrap();
    t.meta.stop_reason = Some(slccache::timeline::StopReason::Interrupted);
    let a = slccache::detect::analyze(&t);
    assert!(
        a.warnings
            .iter()
            .any(|w| w.as_str().contains("interrupted before any cliff")),
        "{:?}",
        a.warnings
    );
    let (_, cache, inside, _) = slccache::report::pages::card::card_texts(&t, &a, U);
    assert!(!inside.contains("steady"), "the card: {inside}");
    assert!(inside.starts_with("mean  "), "the card: {inside}");
    assert!(cache.contains("interrupted"), "the card: {cache}");
    // report.md names its one phase as the card gives its rate.
    assert_eq!(Findings::of(&a).phase_names, vec!["mean".to_string()]);
    let run = slccache::report::charts::CompareRun {
        name: "short",
        timeline: &t,
        analysis: &a,
    };
    let md = slccache::report::pages::markdown::report_md(&run, &[], U);
    assert!(md.contains("| Phase 1 | mean: "), "{md}");
    assert!(!md.contains("steady:"), "{md}");
    // An emulation that fell short of its model, which the terminal warns of: the card's
    // note says its rates measured the host, from the analysis's typed field, which a card
    // drawn again from summary.json (runs export) reads back as it was.
    let mut short = a.clone();
    short.emulation_fell_short = true;
    let back: slccache::detect::Analysis =
        serde_json::from_str(&serde_json::to_string(&short).unwrap()).unwrap();
    for an in [&short, &back] {
        let note = slccache::report::pages::card::card_note_parts(an, U).join(" · ");
        assert!(
            note.contains("the rates measured the host, not the model"),
            "{note}"
        );
    }
    let note = slccache::report::pages::card::card_note_parts(&a, U).join(" · ");
    assert!(!note.contains("measured the host"), "{note}");
    let cell = Findings::of(&a).cache_cell(U);
    assert!(cell.contains("interrupted"), "{cell}");
    // report.md's cache row, and compare's (row, legend, column) said nothing of it, where the
    // card and `runs` say it and the stop row did.
    let row = md
        .lines()
        .find(|l| l.starts_with("| Cache size |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(row.contains("interrupted"), "{row}");
    let path = s.dir.join("summary.json");
    let mut sum: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    sum["run"]["stop_reason"] = "interrupted".into();
    std::fs::write(&path, serde_json::to_string_pretty(&sum).unwrap()).unwrap();
    let cmp = w.path().join("cmp");
    let d = s.dir.display().to_string();
    let c = cmp.display().to_string();
    self::run(&db, &["compare", &d, &d, "--out", &c]);
    let md = read(&cmp.join("compare.md"));
    let header = md.lines().find(|l| l.starts_with("| |")).unwrap();
    assert_eq!(header.matches("(interrupted)").count(), 2, "{header}");
    let row = md
        .lines()
        .find(|l| l.starts_with("| Cache size |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert_eq!(row.matches("interrupted").count(), 2, "{row}");
    let cs: serde_json::Value = serde_json::from_str(&read(&cmp.join("summary.json"))).unwrap();
    for r in cs["runs"].as_array().unwrap() {
        assert!(
            r["name"].as_str().unwrap().ends_with("(interrupted)"),
            "{}",
            r["name"]
        );
    }
    // A run that was not interrupted says nothing of it.
    t.meta.stop_reason = Some(slccache::timeline::StopReason::MaxBytes);
    let a = slccache::detect::analyze(&t);
    assert!(!Findings::of(&a).cache_cell(U).contains("interrupted"));
}

/// A run that only read says it read the span: its stop reason on the terminal, in report.md
/// and in every chart's footer is "one pass over the span read", never "written"
/// (summary.json keeps its key, `span_written`).
pub fn a_read_only_run_stopped_after_one_pass_read() {
    let w = tempfile::tempdir().unwrap();
    let file = w.path().join("data.bin");
    let data: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8 | 1).collect();
    std::fs::write(&file, data).unwrap();
    let dir = w.path().join("read");
    let text = run(
        &w.path().join("results.db"),
        &[
            "probe",
            &file.display().to_string(),
            "--pattern",
            "seqread",
            "--bs",
            "1M",
            "--duration",
            "3s",
            "--no-record",
            "--out",
            &dir.display().to_string(),
        ],
    );
    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    assert_eq!(summary["run"]["stop_reason"], "span_written", "{summary}");
    let md = read(&dir.join("report.md"));
    let chart = chart_text(&dir);
    for (what, t) in [("terminal", &text), ("report.md", &md), ("chart", &chart)] {
        assert!(t.contains("one pass over the span read"), "{what}:\n{t}");
        assert!(!t.contains("span written"), "{what}:\n{t}");
    }
}

/// One stretch of thermal throttling is not given two sizes unexplained: the slowdown warning
/// gives the stretch's own extent ("for 115.5 s (57.2 GB)"), the after-cache line the whole
/// samples it left out ("116.0 s"), and says that they are samples, the part-throttled ones at
/// the edges among them.
pub fn the_throttled_time_left_out_says_what_it_is() {
    let w = tempfile::tempdir().unwrap();
    let s = make(
        &w.path().join("results.db"),
        w.path(),
        "throttled",
        &[
            "simulate",
            "p5-1tb",
            "--pattern",
            "seqwrite",
            "--max-bytes",
            "540GB",
            "--no-early-stop",
            "--seed",
            "1",
            "--no-record",
        ],
    );
    let t = &s.terminal;
    let warned = t
        .lines()
        .find(|l| l.contains("temporary slowdown") && l.contains("thermal throttling"))
        .unwrap_or_else(|| panic!("no thermal slowdown:\n{t}"));
    let stretch = warned
        .split(" for ")
        .nth(1)
        .and_then(|x| x.split(" s (").next())
        .unwrap_or_else(|| panic!("{warned}"));
    let measured = t
        .lines()
        .find(|l| l.contains("left out: "))
        .unwrap_or_else(|| panic!("nothing left out:\n{t}"));
    let left = measured
        .split("left out: ")
        .nth(1)
        .unwrap()
        .trim_start_matches("the ");
    let left_s = left.split(" s ").next().unwrap();
    // The same figure, or words that say it is another thing.
    assert!(
        left_s == stretch || left.contains("part-throttled samples at their edges"),
        "the warning: {stretch} s; after the cache: {measured}"
    );
}

/// Every page that gives an after-cache figure says what "after the cache" means, as
/// report.md does: report.html, compare.md and a comparison's report.html, the library page
/// (`runs --html`) and the history page.
pub fn every_page_with_an_after_cache_figure_defines_it() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let a = make(
        &db,
        w.path(),
        "a",
        &["simulate", "960evo-500g", "--seed", "1"],
    );
    let b = make(
        &db,
        w.path(),
        "b",
        &["simulate", "960evo-500g", "--seed", "2"],
    );
    assert!(a.findings.after.is_some() && b.findings.after.is_some());
    let defined = |what: &str, text: &str| {
        let text = unescape(text);
        for words in [
            "After the last cliff: the data written in the samples after the last cliff over the \
             time they took (the sample the cliff falls in is not among them)",
            "cut into 5 equal rounds, have a range of at most 20%",
            "changes by at most 10%",
            "Thermal throttling",
        ] {
            assert!(
                text.contains(words),
                "{what} does not say {words:?}:\n{text}"
            );
        }
    };
    defined("report.md", &read(&a.dir.join("report.md")));
    defined("report.html", &read(&a.dir.join("report.html")));
    let cmp = w.path().join("compare");
    run(
        &db,
        &[
            "compare",
            &a.dir.display().to_string(),
            &b.dir.display().to_string(),
            "--out",
            &cmp.display().to_string(),
        ],
    );
    defined("compare.md", &read(&cmp.join("compare.md")));
    defined("compare's report.html", &read(&cmp.join("report.html")));
    let lib = w.path().join("library");
    run(&db, &["runs", "--html", &lib.display().to_string()]);
    defined("the library page", &read(&lib.join("index.html")));
    let hist = w.path().join("history");
    run(
        &db,
        &[
            "history",
            "Samsung SSD 960 EVO 500GB",
            "--out",
            &hist.display().to_string(),
        ],
    );
    defined("the history page", &read(&hist.join("report.html")));
}

/// What the rate after the cache leaves out or may not be goes with it wherever it is given
/// alone: heat left out of a throttling drive's rate, and a slower tier that may follow a
/// run that stopped early well above half its in-cache rate. The `runs` table (whole and
/// fitted to 80 columns), `history`, the card and the chart's subtitle say it as the terminal
/// does, report.md calls such a stretch steady "so far", and the card says what "after" is
/// for a run whose writes wrapped.
pub fn what_the_after_cache_rate_leaves_out_goes_with_it() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let root = w.path().join("runs");
    let hot = make(
        &db,
        &root,
        "throttled",
        &[
            "simulate",
            "p5-1tb",
            "--no-early-stop",
            "--max-bytes",
            "700GB",
            "--seed",
            "1",
        ],
    );
    let tier = make(
        &db,
        &root,
        "tier",
        &["simulate", "fx700-2tb", "--seed", "1"],
    );
    let wrapped = make(
        &db,
        &root,
        "wrapped",
        &[
            "simulate",
            "960evo-500g",
            "--span",
            "15GB",
            "--max-bytes",
            "60GB",
            "--seed",
            "1",
        ],
    );
    assert!(
        hot.terminal.contains("thermal throttling"),
        "{}",
        hot.terminal
    );
    assert!(
        tier.terminal.contains("slower cache tier"),
        "{}",
        tier.terminal
    );
    // The one line of -q says it too (it has no warnings).
    let quiet = run(
        &db,
        &[
            "simulate",
            "fx700-2tb",
            "--seed",
            "1",
            "-q",
            "--no-record",
            "--out",
            &w.path().join("tier-q").display().to_string(),
        ],
    );
    assert!(quiet.contains("; a slower tier may follow"), "{quiet}");
    let table = run(&db, &["runs", "--wide"]);
    let narrow = super::common::slccache_process()
        .args(["runs"])
        .env("SLCCACHE_DB", &db)
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let narrow = String::from_utf8_lossy(&narrow.stdout).to_string();
    for (s, caveat) in [(&hot, "heat left out"), (&tier, "a slower tier may follow")] {
        // summary.json's two figures after the last cliff are the ones the outputs give
        // (coverage counted from the cliff's own byte: 18.44 GB beside 17.98 GB).
        let summary: serde_json::Value =
            serde_json::from_str(&read(&s.dir.join("summary.json"))).unwrap();
        let a = &summary["analysis"];
        assert_eq!(
            a["coverage"]["bytes_after_last_cliff"], a["after_cache"]["bytes"],
            "{}",
            s.name
        );
        assert_eq!(
            a["coverage"]["after_last_cliff_bytes_per_sec"], a["after_cache"]["mean_bytes_per_sec"],
            "{}",
            s.name
        );
        let f = &s.findings;
        assert_eq!(f.after_caveats(), vec![caveat], "{}", s.name);
        let cell = f.after_cell(U).unwrap();
        assert!(cell.contains(caveat), "{cell}");
        assert!(table.contains(&cell), "{}: runs:\n{table}", s.name);
        assert!(
            narrow.contains(caveat),
            "{}: runs at 80 columns:\n{narrow}",
            s.name
        );
        let chart = chart_text(&s.dir);
        assert!(
            chart.contains(&f.after_caveated(U).unwrap()),
            "{}: the chart's subtitle",
            s.name
        );
        let t = slccache::commands::compare::load_run(&s.dir).unwrap();
        let a = slccache::detect::analyze(&t);
        let (_, _, _, after) = slccache::report::pages::card::card_texts(&t, &a, U);
        assert!(after.contains(caveat), "{}: the card: {after}", s.name);
    }
    // Steady over what was written, where a slower tier may follow.
    let md = read(&tier.dir.join("report.md"));
    assert!(md.contains(", steady so far ("), "{md}");
    assert!(!read(&hot.dir.join("report.md")).contains("steady so far"));
    // history names the caveat with the rate.
    let hist = w.path().join("history");
    run(
        &db,
        &["history", "p5-1tb", "--out", &hist.display().to_string()],
    );
    let html = unescape(&read(&hist.join("report.html")));
    assert!(
        html.contains(&hot.findings.after_cell(U).unwrap()),
        "history:\n{html}"
    );
    // The card of a run whose writes wrapped says what its "after" is.
    assert!(matches!(wrapped.findings.cache, Cache::Wrapped { .. }));
    let t = slccache::commands::compare::load_run(&wrapped.dir).unwrap();
    let a = slccache::detect::analyze(&t);
    let note = slccache::report::pages::card::card_note(&a, U).unwrap_or_default();
    assert!(
        note.contains("after = rate of the samples after the last cliff ("),
        "the wrapped run's card: {note}"
    );
}

/// A two-column CSV names no drive: its report says "not recorded in the input", and `runs`,
/// `runs --by drive` and `history` named it "hand" (and "hand, real") as if the file's name
/// were a drive's. They say the drive is not recorded.
pub fn a_file_that_names_no_drive_is_no_drive_in_the_store_views() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let csv = w.path().join("hand.csv");
    let mut s = String::from("time_s,MB/s\n");
    for i in 1..=100 {
        s += &format!("{i},{}\n", if i <= 30 { 2000 } else { 500 });
    }
    std::fs::write(&csv, s).unwrap();
    let shape = make(
        &db,
        w.path(),
        "hand",
        &["analyze", &csv.display().to_string()],
    );
    let md = read(&shape.dir.join("report.md"));
    assert!(md.contains("| Drive | not recorded in the input |"), "{md}");
    let table = run(&db, &["runs", "--wide"]);
    assert!(table.contains(" hand (drive not recorded) "), "{table}");
    let groups = run(&db, &["runs", "--by", "drive"]);
    assert!(groups.contains("hand (drive not recorded) "), "{groups}");
    assert!(!groups.contains("real"), "{groups}");
    let out = w.path().join("history");
    let text = run(
        &db,
        &["history", "hand", "--out", &out.display().to_string()],
    );
    assert!(
        text.contains("history of hand (drive not recorded):"),
        "{text}"
    );
    assert!(!text.contains("counters start from zero"), "{text}");
}

/// A simulation of a preset with options (`960evo-500g,cache=2GB`) was titled as the preset's
/// drive on its card, report.md, report.html and charts ("Samsung SSD 960 EVO 500GB
/// (simulated)" beside "SLC cache 2.00 GB"), which reads as the stock drive with a wrong
/// cache; `runs` and `compare` named the options. Every output of the run names them.
pub fn a_drive_made_with_options_is_named_with_them_in_its_own_outputs() {
    let w = tempfile::tempdir().unwrap();
    let db = w.path().join("results.db");
    let s = make(
        &db,
        w.path(),
        "options",
        &["simulate", "960evo-500g,cache=2GB", "--seed", "1"],
    );
    let name = "Samsung SSD 960 EVO 500GB (simulated), cache=2GB";
    let md = read(&s.dir.join("report.md"));
    assert!(
        md.starts_with(&format!("# SLC cache report: {name}\n")),
        "{md}"
    );
    assert!(
        md.contains("| Drive | Samsung SSD 960 EVO 500GB (simulated), cache=2GB, "),
        "{md}"
    );
    let html = unescape(&read(&s.dir.join("report.html")));
    assert!(
        html.contains(&format!("<title>SLC cache report: {name}")),
        "report.html"
    );
    assert!(chart_text(&s.dir).contains(name), "the chart");
    let t = slccache::commands::compare::load_run(&s.dir).unwrap();
    let a = slccache::detect::analyze(&t);
    let (drive, _, _, _) = slccache::report::pages::card::card_texts(&t, &a, U);
    assert_eq!(drive, name, "the card");
    // The store names it the same way, once.
    let table = run(&db, &["runs", "--wide"]);
    assert!(table.contains(&format!(" {name} ")), "{table}");
    assert!(!table.contains("cache=2GB, cache=2GB"), "{table}");
}
