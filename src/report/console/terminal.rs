//! The one-line results a run prints on the terminal (and `analyze` prints per file).

use crate::detect::findings::{Cache, Findings};
use crate::detect::Analysis;
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// The line `analyze` prints for a file, in the shape of probe's closing line: what the
/// timeline wrote (or, for a run that only read, read), in how long, at what mean rate, why
/// its run stopped when that is known, then the result in [`result_clauses`]:
/// `run/timeline.csv: wrote 22.1 GB in 41.0 s (539 MB/s mean), stopped: cliff confirmed;
/// cache ~13.0 GB (95% interval ...), 1230 MB/s in the cache; ...`.
/// The end of a file (`end of data`) is no reason a run stopped and is not named.
pub fn analysis_line(
    label: &str,
    a: &Analysis,
    stop: Option<crate::timeline::StopReason>,
    units: UnitSystem,
) -> String {
    let verb = if a.read_only { "read" } else { "wrote" };
    let mut s = format!(
        "{label}: {verb} {} in {}",
        format_bytes(a.bytes_total as f64, units),
        format_seconds(a.duration_s)
    );
    if a.duration_s > 0.0 {
        s.push_str(&format!(
            " ({} mean)",
            format_rate(a.bytes_total as f64 / a.duration_s, units)
        ));
    }
    match stop {
        None | Some(crate::timeline::StopReason::EndOfData) => {}
        Some(r) => s.push_str(&format!(", stopped: {}", Findings::of(a).stop_text(r))),
    }
    if a.read_only {
        // The fall in the read rate, without the totals the head already gave.
        if let Some((_, rest)) = read_only_summary(a, units).split_once("; ") {
            s.push_str(&format!("; {rest}"));
        }
    }
    s.push_str(&result_clauses(a, units));
    s
}

/// What the run measured after its last cliff and how much of the span it wrote, as a suffix
/// of a result line (empty when the span is not known):
/// `; after the last cliff 3401 MB/s over the 103 GB written after it; measured to 157 GB of
/// 2.00 TB (stopped early)`.
pub fn coverage_suffix(a: &Analysis, units: UnitSystem) -> String {
    let mut s = String::new();
    if let Some(t) = crate::detect::after_last_cliff_text(a, units) {
        s.push_str(&format!("; {t}"));
    }
    if let Some(t) = crate::detect::coverage_text(a, units) {
        s.push_str(&format!("; {t}"));
    }
    s
}

/// The command line that measures the next tier: `args` (the program's own arguments, the
/// program name first) with `--cliffs` set to one more than the cliffs found and `--out` and
/// `--force` left out (a new run gets its own folder), and `--no-early-stop`, which `--cliffs`
/// refuses, too (the command given after `--no-early-stop --max-bytes 400GB` failed: "the
/// argument '--no-early-stop' cannot be used with '--cliffs <N>'"); `--max-bytes` as well
/// where that limit ended the run (`byte_limit`), as it would end the next one before its
/// tier. `None` unless the analysis warns that a later tier may follow.
pub fn next_tier_command(a: &Analysis, args: &[String], byte_limit: bool) -> Option<String> {
    if !a.coverage.as_ref().is_some_and(|c| c.later_tier_possible) {
        return None;
    }
    let mut out = vec!["slccache".to_string()];
    let mut it = args.iter().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--cliffs" | "--out" => {
                it.next();
            }
            "--max-bytes" if byte_limit => {
                it.next();
            }
            "--force" | "--no-early-stop" => {}
            _ if x.starts_with("--cliffs=") || x.starts_with("--out=") => {}
            _ if byte_limit && x.starts_with("--max-bytes=") => {}
            _ => out.push(shell_word(x)),
        }
    }
    out.push(format!("--cliffs {}", a.cliffs.len() + 1));
    Some(out.join(" "))
}

/// A word quoted for a POSIX shell when it needs it.
fn shell_word(x: &str) -> String {
    if !x.is_empty()
        && x.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,%+@".contains(c))
    {
        x.to_string()
    } else {
        format!("'{}'", x.replace('\'', "'\\''"))
    }
}

/// The result of a run that only read: its mean read rate and any fall in it, with no
/// cache size (reads measure no write cache).
/// `1.90 GB read in 3.0 s at about 634 MB/s; no fall in the read rate`.
pub fn read_only_summary(a: &Analysis, units: UnitSystem) -> String {
    let level = if a.duration_s > 0.0 {
        format_rate(a.bytes_total as f64 / a.duration_s, units)
    } else {
        "an unknown rate".to_string()
    };
    let mut s = format!(
        "{} read in {} at about {}",
        format_bytes(a.bytes_total as f64, units),
        format_seconds(a.duration_s),
        level
    );
    match a.cliffs.first() {
        Some(c) => s.push_str(&format!(
            "; the read rate fell {} -> {} at {}",
            format_rate(c.before_bytes_per_sec, units),
            format_rate(c.after_bytes_per_sec, units),
            crate::units::format_time_point(c.t_s)
        )),
        // Too few samples to find a fall: no word that there was none.
        None if a
            .warnings
            .iter()
            .any(|w| matches!(w.kind, crate::detect::WarningKind::TooFewSamples { .. })) =>
        {
            s.push_str("; too few samples to tell whether the read rate fell")
        }
        None => s.push_str("; no fall in the read rate"),
    }
    s
}

/// Ends an experiment (recovery, fill-sweep): its text and `outputs: DIR`, or with `quiet`
/// the one line of [`one_line`] and the folder.
pub fn print_experiment_done(text: &str, out: &std::path::Path, quiet: bool) {
    if quiet {
        crate::say!("{}; outputs: {}", one_line(text), out.display());
    } else {
        crate::say_raw!("{text}");
        crate::say!("outputs: {}", out.display());
    }
}

/// A multi-line result (an experiment's text) as one line for `-q`: its lines trimmed and
/// joined with "; ", without the warnings (they are in report.md and summary.json) and
/// without the "outputs:" line.
pub fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("warning:") && !l.starts_with("outputs:"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The one way slccache writes a 95% interval of bytes: `(95% interval 21.9 GB to 22.1 GB)`.
pub fn interval_text(low: u64, high: u64, units: UnitSystem) -> String {
    let (lo, hi) = crate::units::format_bytes_range(low as f64, high as f64, units);
    format!("(95% interval {lo} to {hi})")
}

/// A size as slccache writes it beside its interval ([`interval_text`]): with as many
/// decimals as the interval's ends where they needed more to differ.
pub fn estimate_text(bytes: u64, low: u64, high: u64, units: UnitSystem) -> String {
    crate::units::format_bytes_estimate(bytes as f64, low as f64, high as f64, units).0
}

/// The line that says where a finished run was recorded (stderr, so stdout stays the run's
/// own): `recorded as run 42 in ~/.local/share/slccache/results.db`.
pub fn print_recorded(id: i64, place: &str, new: bool) {
    if new {
        crate::note!("recorded as run {id} in {place}");
    } else {
        crate::note!("already recorded as run {id} in {place}");
    }
}

/// The line that says a run analysed again in its own folder was not recorded a second time:
/// run `id` holds its measurement.
pub fn print_same_measurement(id: i64, place: &str) {
    crate::note!(
        "not recorded again: run {id} in {place} holds this measurement, with the analysis it \
         was recorded with (`slccache runs rm {id}`, then `slccache runs import` of this \
         folder, records the new analysis in its place)"
    );
}

/// The warning when a run could not be recorded; its files are in `dir` all the same, and a
/// copy waits in the spool at `spooled` (or the spool failed too, with why).
pub fn warn_not_recorded(
    err: &anyhow::Error,
    dir: &std::path::Path,
    store: &str,
    spooled: Result<&std::path::Path, String>,
) {
    let kept = match spooled {
        Ok(p) => format!(
            "a copy waits in {}; record it later with `slccache runs import --pending` \
             (the same --db or SLCCACHE_DB)",
            p.display()
        ),
        Err(e) => format!(
            "it could not be kept for later either ({e}); record it with `slccache runs \
             import {}`",
            crate::shell::quote(&dir.display().to_string())
        ),
    };
    crate::note!(
        "slccache: warning: the run was not recorded in the results store {store}: {}\n  its files are in {}; \
         {kept}",
        not_recorded_cause(err),
        dir.display()
    );
}

/// The cause of a failed recording without the store's name, which the warning gives once.
fn not_recorded_cause(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    match text.strip_prefix("cannot use the results store ") {
        Some(rest) => rest
            .split_once(": ")
            .map(|x| x.1)
            .unwrap_or(rest)
            .to_string(),
        None => text,
    }
}

/// The result as the one-line forms give it (probe's closing line, `-q` of every command
/// that analyses a run): "; cache ~22.0 GB (95% interval ...), 1790 MB/s in the cache" and
/// the coverage suffix ("; 599 MB/s over the 8.01 GB written in the samples after the last cliff ...").
/// Starts with "; " where there is anything to say.
pub fn result_clauses(a: &Analysis, units: UnitSystem) -> String {
    let mut line = String::new();
    let f = Findings::of(a);
    match &f.cache {
        Cache::Sized {
            bytes,
            low_bytes,
            high_bytes,
        } => {
            line.push_str(&format!(
                "; cache ~{} {}{}{}",
                estimate_text(*bytes, *low_bytes, *high_bytes, units),
                interval_text(*low_bytes, *high_bytes, units),
                f.hidden_tier_suffix(units),
                f.doubt_suffix()
            ));
            if let Some(r) = f.in_cache_text(units) {
                line.push_str(&format!(", {r} {}", f.in_cache_name()));
            }
        }
        Cache::Unconfirmed(_) => line.push_str(&format!("; {}", f.cache_text(units))),
        Cache::Wrapped { .. } => {
            line.push_str(&format!("; {}", f.cache_text(units)));
            if let Some(r) = f.in_cache_text(units) {
                line.push_str(&format!(", {r} {}", f.in_cache_name()));
            }
        }
        Cache::AtLeast { .. } | Cache::NoneOverWholeDrive { .. } => {
            line.push_str(&format!("; no cliff seen: {}", f.cache_text(units)))
        }
        // What the run knows of the cache, whatever it is: a link or an IOPS limit that hid
        // the cliff, too few samples, a cliff with no size.
        Cache::HiddenByLink { .. }
        | Cache::HiddenByIops { .. }
        | Cache::TooFewSamples
        | Cache::NotEstimated => line.push_str(&format!("; {}", f.cache_text(units))),
        Cache::NothingWritten | Cache::ReadOnly { .. } => {}
    }
    // The returns of the cache, as the card and report.md give them (the line said nothing of
    // 30 GB written at the cache's rate again after the cliff).
    if let Some(r) = crate::detect::returns_text(a, units) {
        line.push_str(&format!("; {r}"));
    }
    line.push_str(&coverage_suffix(a, units));
    // The caveat every other output gives with the rate after the cache (the warning that
    // explains it is left out of a `-q` line).
    if f.slower_tier_may_follow {
        line.push_str("; a slower tier may follow");
    }
    line
}
