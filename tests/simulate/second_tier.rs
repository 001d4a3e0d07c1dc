//! A drive with a second, slower SLC tier: the HP FX700 2TB writes
//! 5000 MB/s to 54 GB, 3500 MB/s to 460 GB, then 130 MB/s (data/published-drives.csv line
//! 48, TechPowerUp). The default early stop ends after the first cliff: every output must
//! say how much of the span it wrote and warn that a slower tier may follow; `--cliffs 2`
//! finds both cliffs and the 130 MB/s after the second.

use assert_cmd::Command;
use predicates::str::contains;
use slccache::detect::Analysis;
use slccache::units::UnitSystem;

fn run(dir: &std::path::Path, extra: &[&str]) -> String {
    run_model(dir, "fx700-2tb", extra)
}

/// `simulate MODEL --pattern seqwrite --seed 3` with `extra` into `dir`; what it printed.
fn run_model(dir: &std::path::Path, model: &str, extra: &[&str]) -> String {
    let out = Command::cargo_bin("slccache")
        .unwrap()
        .args(["simulate", model, "--pattern", "seqwrite", "--seed", "3"])
        .args(extra)
        .arg("--out")
        .arg(dir)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn analysis(s: &serde_json::Value) -> Analysis {
    serde_json::from_value(s["analysis"].clone()).unwrap()
}

#[test]
fn the_default_run_warns_and_states_its_coverage_on_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let text = run(&dir, &[]);
    let s = summary(&dir);
    let a = analysis(&s);
    assert_eq!(a.cliffs.len(), 1, "{text}");
    let c = a.coverage.clone().expect("coverage in summary.json");
    assert!(c.stopped_early && !c.whole_span, "{c:?}");
    assert_eq!(c.span_bytes, 2_000_000_000_000);
    assert!(c.bytes_written < 300_000_000_000, "{c:?}");
    assert!(c.later_tier_possible, "{c:?}");
    let after = c.after_last_cliff_bytes_per_sec.unwrap();
    assert!((after / 3.5e9 - 1.0).abs() < 0.1, "{after}");
    assert!(c.whole_fill_bytes_per_sec.is_none());
    assert!(s["analysis"]["coverage"]["later_tier_possible"] == true);
    let warned =
        |w: &str| w.contains("a later, slower tier may follow") && w.contains("--cliffs 2");
    assert!(
        a.warnings.iter().any(|w| warned(w.as_str())),
        "{:?}",
        a.warnings
    );
    // The terminal: coverage, the warning and the command line that finds the next tier.
    assert!(text.contains("measured to"), "{text}");
    assert!(text.contains("of 2.00 TB (stopped early)"), "{text}");
    assert!(
        text.contains("written in the samples after the last cliff"),
        "{text}"
    );
    assert!(text.contains("a later, slower tier may follow"), "{text}");
    assert!(
        text.contains(
            "to measure the next tier: slccache simulate fx700-2tb --pattern seqwrite --seed 3 \
             --cliffs 2"
        ),
        "{text}"
    );
    // report.md and report.html: the coverage row, the after-cliff row and the warning.
    for f in ["report.md", "report.html"] {
        let r = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(r.contains("Coverage"), "{f}");
        assert!(r.contains("of 2.00 TB (stopped early)"), "{f}");
        assert!(
            r.contains("written in the samples after the last cliff"),
            "{f}"
        );
        assert!(r.contains("a later, slower tier may follow"), "{f}");
    }
    // The card: the amount after the cliff, the coverage and the warning; the chart
    // subtitle: the coverage and the warning.
    let u = UnitSystem::Decimal;
    let note = slccache::report::pages::card::card_note(&a, u).unwrap();
    assert!(
        note.contains("after = rate of the samples after the last cliff ("),
        "{note}"
    );
    assert!(
        note.contains("measured to") && note.contains("of 2.00 TB"),
        "{note}"
    );
    let warn = slccache::report::pages::card::card_warning(&a).unwrap();
    assert!(warn.contains("may not be the sustained speed") && warn.contains("--cliffs 2"));
    let sub = slccache::report::charts::cache_subtitle(&a, u);
    assert!(sub.contains("of 2.00 TB written"), "{sub}");
    assert!(sub.contains("a slower tier may follow"), "{sub}");
}

#[test]
fn cliffs_two_finds_both_tiers_and_the_speed_after_the_second() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let text = run(&dir, &["--cliffs", "2"]);
    let s = summary(&dir);
    let a = analysis(&s);
    assert_eq!(a.cliffs.len(), 2, "{text}");
    let at = |i: usize| a.cliffs[i].bytes_written as f64;
    assert!((at(0) / 54e9 - 1.0).abs() < 0.03, "{}", at(0));
    assert!((at(1) / 460e9 - 1.0).abs() < 0.03, "{}", at(1));
    let last = &a.cliffs[1];
    assert!(
        (last.after_bytes_per_sec / 130e6 - 1.0).abs() < 0.1,
        "{last:?}"
    );
    let c = a.coverage.clone().unwrap();
    let after = c.after_last_cliff_bytes_per_sec.unwrap();
    assert!((after / 130e6 - 1.0).abs() < 0.1, "{after}");
    assert!(
        c.stopped_early && !c.whole_span && !c.later_tier_possible,
        "{c:?}"
    );
    assert_eq!(s["run"]["stop_reason"], "cliff_confirmed");
    assert!(!a
        .warnings
        .iter()
        .any(|w| w.text.contains("tier may follow")));
    assert!(!text.contains("to measure the next tier"), "{text}");
    // The folding warning does not call a rate seen over a few GB sustained.
    assert!(!a
        .warnings
        .iter()
        .any(|w| w.contains("sustained speed is this")));
    assert!(
        text.contains("measured to") && text.contains("(stopped early)"),
        "{text}"
    );
}

#[test]
fn a_whole_drive_fill_reports_the_whole_fill_average() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let text = run(&dir, &["--no-early-stop"]);
    let a = analysis(&summary(&dir));
    let c = a.coverage.clone().unwrap();
    assert!(
        c.whole_span && c.span_is_drive && !c.later_tier_possible,
        "{c:?}"
    );
    // TechPowerUp: "168 MB/s" for the whole fill; the model's tiers give about 165.
    let r = c.whole_fill_bytes_per_sec.unwrap();
    assert!((r / 168e6 - 1.0).abs() < 0.05, "{r}");
    assert!(
        text.contains("filling the whole drive (2.00 TB) completes at"),
        "{text}"
    );
    assert!(text.contains("to the end of the span"), "{text}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("filling the whole drive (2.00 TB) completes at"));
    let note = slccache::report::pages::card::card_note(&a, UnitSystem::Decimal).unwrap();
    assert!(note.contains("filling the whole drive"), "{note}");
    assert!(slccache::report::pages::card::card_warning(&a).is_none());
}

#[test]
fn cliffs_out_of_range_is_a_usage_error() {
    Command::cargo_bin("slccache")
        .unwrap()
        .args(["simulate", "fx700-2tb", "--cliffs", "0"])
        .assert()
        .code(2)
        .stderr(contains("--cliffs"));
}

/// The later-tier warning is a possible false alarm (README: "TLC drives whose native speed
/// is above half also get the warning"): the 960 EVO 1TB writes 1200 MB/s after its cache,
/// 63% of 1900 MB/s, and that is its sustained speed. So every output says the speed after
/// the cliff *may* not be the sustained speed, never that it is not, and never calls the level
/// a second tier before its "may".
#[test]
fn the_later_tier_warning_says_may_not_on_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let out = Command::cargo_bin("slccache")
        .unwrap()
        .args([
            "simulate",
            "960evo-1tb",
            "--pattern",
            "seqwrite",
            "--seed",
            "3",
        ])
        .arg("--out")
        .arg(&dir)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let s = summary(&dir);
    let a = analysis(&s);
    assert!(
        a.coverage.as_ref().is_some_and(|c| c.later_tier_possible),
        "{text}"
    );
    // summary.json keeps the warning a string, in the same words as the other outputs.
    let warnings: Vec<&str> = s["analysis"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().expect("a warning is a string"))
        .collect();
    let tier: Vec<&&str> = warnings
        .iter()
        .filter(|w| w.contains("tier may follow"))
        .collect();
    assert_eq!(tier.len(), 1, "{warnings:?}");
    let outputs = [
        ("the terminal", text),
        ("summary.json", tier[0].to_string()),
        (
            "report.md",
            std::fs::read_to_string(dir.join("report.md")).unwrap(),
        ),
        (
            "report.html",
            std::fs::read_to_string(dir.join("report.html")).unwrap(),
        ),
        (
            "the card",
            slccache::report::pages::card::card_warning(&a).unwrap(),
        ),
    ];
    for (name, o) in &outputs {
        assert!(o.contains("may not be the sustained speed"), "{name}: {o}");
        // Nor does it call the level a second tier before its "may": on this drive it is not.
        assert!(!o.contains("looks like"), "{name}: {o}");
        assert!(!o.contains("rate): that"), "{name}: {o}");
        assert!(!o.contains("is not the sustained speed"), "{name}: {o}");
        assert!(!o.contains(": not the sustained speed"), "{name}: {o}");
        assert!(!o.starts_with("not the sustained speed"), "{name}: {o}");
    }
}

/// Regression: a run asked for two cliffs that found one (a drive with one cliff writes its
/// whole span looking for the second) said nothing of it: "1 cliff" on the charts, and the
/// terminal, the card and report.md as for a run that found all it was asked for. Every
/// output now says "1 of 2 cliffs found".
#[test]
fn fewer_cliffs_than_asked_are_said_on_every_output() {
    use predicates::prelude::PredicateBooleanExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let out = Command::cargo_bin("slccache")
        .unwrap()
        .args(["simulate", "960evo-250g", "--pattern", "seqwrite"])
        .args(["--seed", "1", "--cliffs", "2", "--no-record", "--out"])
        .arg(&dir)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let a = analysis(&summary(&dir));
    assert_eq!(a.cliffs.len(), 1, "{text}");
    let said = "1 of 2 cliffs found";
    assert!(text.contains(said), "{text}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains(said), "{md}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(said), "report.html");
    let u = UnitSystem::Decimal;
    let parts = slccache::report::pages::card::card_note_parts(&a, u);
    assert_eq!(
        parts.iter().filter(|p| p.contains(said)).count(),
        1,
        "{parts:?}"
    );
    // First, so that the card's note of two lines never drops it.
    assert!(parts[0].contains(said), "{parts:?}");
    let sub = slccache::report::charts::cache_subtitle(&a, u);
    assert!(sub.contains(said) && !sub.contains("· 1 cliff "), "{sub}");
    // Asked for one (the default): nothing to say.
    let one = tmp.path().join("one");
    Command::cargo_bin("slccache")
        .unwrap()
        .args(["simulate", "960evo-250g", "--pattern", "seqwrite"])
        .args(["--seed", "1", "--no-record", "--out"])
        .arg(&one)
        .assert()
        .success()
        .stdout(predicates::str::contains("cliffs found").not());
}

/// Regression: `analyze` of a run folder whose later-tier warning advised "run the same command
/// again with --cliffs 2": `analyze` refuses `--cliffs`, since it cannot write more. The advice
/// names the measurement that can, and every flag it names is one that measurement takes.
#[test]
fn the_later_tier_advice_names_a_command_that_takes_its_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    run(&dir, &[]);
    let out = Command::cargo_bin("slccache")
        .unwrap()
        .arg("analyze")
        .arg(&dir)
        .arg("--no-record")
        .assert()
        .success()
        .get_output()
        .clone();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let warning = text
        .lines()
        .find(|l| l.contains("warning:") && l.contains("tier may follow"))
        .unwrap_or_else(|| panic!("no later-tier warning from analyze: {text}"));
    assert!(!warning.contains("same command"), "{warning}");
    assert!(warning.contains("probe or simulate"), "{warning}");
    // `analyze` refuses the flag; the measurement the advice names takes it.
    Command::cargo_bin("slccache")
        .unwrap()
        .arg("analyze")
        .arg(&dir)
        .args(["--no-record", "--cliffs", "2"])
        .assert()
        .failure();
    Command::cargo_bin("slccache")
        .unwrap()
        .args(["simulate", "--help"])
        .assert()
        .success()
        .stdout(contains("--cliffs"))
        .stdout(contains("--no-early-stop"));
}

/// Regression: the command the later-tier advice printed after `--no-early-stop --max-bytes
/// 400GB` failed: "the argument '--no-early-stop' cannot be used with '--cliffs <N>'"; and the
/// warning told a run given `--no-early-stop` to use it ("or --no-early-stop to write the whole
/// span"). The command leaves out `--no-early-stop`, and `--max-bytes` where that limit ended the
/// run; the warning names the limit.
#[test]
fn the_next_tier_command_after_no_early_stop_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("slccache")
        .unwrap()
        .args([
            "simulate",
            "fx700-2tb",
            "--pattern",
            "seqwrite",
            "--seed",
            "3",
            "--no-early-stop",
            "--max-bytes",
            "300GB",
            "--no-record",
            "--out",
        ])
        .arg(tmp.path().join("a"))
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let warning = text
        .lines()
        .find(|l| l.contains("warning:") && l.contains("tier may follow"))
        .unwrap_or_else(|| panic!("no later-tier warning: {text}"));
    assert!(!warning.contains("or --no-early-stop"), "{warning}");
    assert!(warning.contains("without --max-bytes"), "{warning}");
    let cmd = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("to measure the next tier: slccache "))
        .unwrap_or_else(|| panic!("no command: {text}"));
    assert!(
        !cmd.contains("--no-early-stop") && !cmd.contains("--max-bytes"),
        "{cmd}"
    );
    let args: Vec<&str> = cmd.split_whitespace().collect();
    Command::cargo_bin("slccache")
        .unwrap()
        .args(&args)
        .arg("--out")
        .arg(tmp.path().join("b"))
        .assert()
        .success();
}

/// Regression: `--cliffs 2` on an FX700 whose first tier lasts 2 s (`cache=10GB,fold_after=20GB`)
/// found both cliffs (2.2 s and 7.7 s) and never stopped: the second cliff, inside a sample,
/// had its bytes (30.0 GB) outside its own interval as read off the samples (at most 29.3 GB),
/// so each analysis took it for a new cliff and restarted its hold; the run wrote all 2 TB.
#[test]
fn a_second_cliff_inside_a_sample_ends_the_run_after_its_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    run_model(
        &dir,
        "fx700-2tb,cache=10GB,fold_after=20GB",
        &["--cliffs", "2", "--no-record"],
    );
    let s = summary(&dir);
    assert_eq!(s["stop"]["reason"], "cliff_confirmed", "{}", s["stop"]);
    // The hold after the second cliff, 30 s at most past its phase's length, then the stop.
    let at = s["stop"]["cliff_confirmed_at_s"].as_f64().unwrap();
    assert!(at < 60.0, "stopped at {at} s");
    assert_eq!(analysis(&s).cliffs.len(), 2, "{}", s["analysis"]);
}

/// Regression: an FX700 whose first tier lasts 1 s (`cache=5GB,fold_after=20GB`: 5000 MB/s,
/// then 3500 MB/s for 6 s, then 130 MB/s), sampled every 100 ms, was read as a start-up burst
/// before a cache phase "at 3708 MB/s", a rate no sample held, and a cache of 25.0 GB where
/// the first tier held 5 GB. A fall by a quarter or more from the start is a first tier.
#[test]
fn a_short_first_tier_is_a_cliff_not_a_start_up_burst() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("short");
    run_model(
        &dir,
        "fx700-2tb,cache=5GB,fold_after=20GB",
        &["--interval", "100ms", "--no-record"],
    );
    let a = analysis(&summary(&dir));
    let e = a.cache_estimate.as_ref().expect("a cache size");
    assert!(
        e.low_bytes <= 5_000_000_000 && 5_000_000_000 <= e.high_bytes,
        "{e:?}"
    );
    let c = &a.cliffs[0];
    assert!((c.t_s - 1.0).abs() < 0.1, "first cliff at {} s", c.t_s);
    assert!(
        c.before_bytes_per_sec > 4800e6,
        "in the cache {}",
        c.before_bytes_per_sec
    );
    assert!(a.cliffs.len() >= 2, "{:?}", a.cliffs);
}

/// Regression: the same FX700 at the default 1 s interval: its first tier ran out inside the
/// first sample, which read 5000 MB/s beside 3500 MB/s after it, and the run said "cache 25.0
/// GB, 3754 MB/s in the cache", a rate no sample held, and no word of the faster first
/// sample. One sample confirms no tier, so the size is hedged by what it could hold, the
/// first sample's rate is said, and the rate before the cliff is the whole samples' after it,
/// on the terminal, in summary.json, report.md and `runs`.
#[test]
fn a_first_tier_of_one_sample_is_said_and_not_blended_into_the_cache_rate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("one-sample");
    let db = tmp.path().join("store.db");
    let line = run_model(
        &dir,
        "fx700-2tb,cache=5GB,fold_after=20GB",
        &["--db", db.to_str().unwrap()],
    );
    let a = analysis(&summary(&dir));
    let c = &a.cliffs[0];
    assert!(
        (3000e6..3700e6).contains(&c.before_bytes_per_sec),
        "before the cliff {}",
        c.before_bytes_per_sec
    );
    assert_eq!(a.phases[0].mean_bytes_per_sec, c.before_bytes_per_sec);
    let h = a.first_sample_hides.expect("the first sample is said");
    assert!((4.9e9..5.2e9).contains(&(h.bytes as f64)), "{h:?}");
    assert!(h.faster_bytes_per_sec.is_some_and(|r| r > 4800e6), "{h:?}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for text in [&line, &report] {
        assert!(
            text.contains("unless a faster first tier of up to"),
            "{text}"
        );
        assert!(
            text.contains("one sample, too few to confirm a tier"),
            "{text}"
        );
        assert!(!text.contains("would not show at this interval"), "{text}");
    }
    let runs = Command::cargo_bin("slccache")
        .unwrap()
        .args(["runs", "--db", db.to_str().unwrap()])
        .env("COLUMNS", "400")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let runs = String::from_utf8(runs).unwrap();
    assert!(runs.contains("ran out in the first sample ("), "{runs}");
    assert!(!runs.contains(" hid "), "{runs}");
}

/// Regression: `--cliffs 2` on an FX700 held 118 s after its second cliff, as the hold rule
/// says (the tier's length, up to 2 minutes), but summary.json's `stop.hold_s` said 30 s,
/// the first cliff's hold.
#[test]
fn the_hold_written_is_that_of_the_cliff_the_run_stopped_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("two");
    run_model(&dir, "fx700-2tb", &["--cliffs", "2", "--no-record"]);
    let s = summary(&dir);
    let a = analysis(&s);
    assert_eq!(a.cliffs.len(), 2, "{:?}", a.cliffs);
    let tier = a.cliffs[1].t_s - a.cliffs[0].t_s;
    let hold = s["stop"]["hold_s"].as_f64().expect("a hold");
    assert!(
        (hold - tier.min(120.0)).abs() < 5.0,
        "hold {hold} s for a tier of {tier} s"
    );
}

/// Regression: the folding warning called a rate "sustained speed is this" where the stretch
/// after the cliff was too short to judge, and every other output said so of the same rate
/// (`simulate a2000-1tb --interval 4m --cliffs 2`: "397 MB/s ... too short after it to tell
/// whether it is steady" beside "sustained speed is this"). The warning now says the rate is
/// not known to be sustained, and why.
#[test]
fn a_folding_rate_too_short_to_judge_is_not_called_sustained() {
    let tmp = tempfile::tempdir().unwrap();
    let text = run_model(
        &tmp.path().join("r"),
        "a2000-1tb",
        &["--interval", "4m", "--cliffs", "2"],
    );
    let warning = text
        .lines()
        .find(|l| l.contains("warning:") && l.contains("folding"))
        .unwrap_or_else(|| panic!("no folding warning: {text}"));
    assert!(!warning.contains("sustained speed is this"), "{warning}");
    assert!(warning.contains("not known to be sustained"), "{warning}");
    let s = summary(&tmp.path().join("r"));
    assert_eq!(
        s["findings"]["after"]["kind"], "too_short",
        "{}",
        s["findings"]
    );
}
