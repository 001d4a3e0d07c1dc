//! The `analyze` subcommand: read timelines, find the cliffs, print or write the results.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::AnalyzeArgs;
use crate::report::console::terminal::analysis_line;
use crate::timeline::import::{self, ImportOptions, ReadOptions};
use crate::timeline::Timeline;

/// Runs `slccache analyze`.
pub fn run(args: AnalyzeArgs) -> Result<()> {
    let opts = import_options(&args)?;
    let report_opts = crate::cli::resolve::report_options(&args.output)?;
    // Read every file first so that a bad file fails before anything is written.
    // A run folder means its timeline.csv (as compare takes it); `-` reads standard input.
    let files: Vec<PathBuf> = args
        .files
        .iter()
        .map(|f| {
            if f.is_dir() {
                let t = f.join("timeline.csv");
                if t.is_file() {
                    Ok(t)
                } else {
                    Err(crate::error::usage(format!(
                        "{}: a folder with no timeline.csv; give a run folder or a file",
                        f.display()
                    )))
                }
            } else {
                Ok(f.clone())
            }
        })
        .collect::<Result<_>>()?;
    let mut runs = Vec::with_capacity(files.len());
    for f in &files {
        let (t, notes, link) = load(f, &opts)?;
        let mut a = crate::detect::analyze_in(&t, args.output.units);
        // A real-time emulation that fell short of its model (its summary.json's figures):
        // said again, as the probe said it, so that no output reads the host's rates as the
        // model's.
        let emulation = emulation_beside(f);
        if let Some(e) = &emulation {
            let io =
                crate::engine::emulated::io_words(t.bytes_total() > 0, t.read_bytes_total() > 0);
            if let Some(w) =
                crate::engine::emulated::shortfall_text(e, t.duration_s(), io, args.output.units)
            {
                a.warnings.push(crate::detect::Warning::new(
                    crate::detect::WarningKind::EmulationShortfall,
                    w,
                ));
                a.emulation_fell_short = true;
            }
        }
        // The link its run was on (its summary.json's), as the run itself said of it.
        crate::link::note_findings(&mut a, link.as_ref(), args.output.units);
        // A drive model's IOPS limit that hid its cache (its summary.json's truth), as the
        // run itself said of it.
        let truth = crate::report::summary_of_timeline(f)
            .as_deref()
            .and_then(crate::report::read_summary_cache_truth);
        crate::model::note_iops_hidden(&mut a, truth.as_ref(), args.output.units);
        // One pass that ended the run short of its --duration, as the run itself said.
        if let Some(asked) = duration_beside(f) {
            a.warnings
                .extend(crate::experiment::virtual_time::short_of_duration_s(
                    asked, &t,
                ));
        }
        // How the file was read comes first: it qualifies everything after it.
        a.warnings
            .splice(0..0, notes.into_iter().map(crate::detect::Warning::input));
        runs.push((f, t, a, link, emulation));
    }
    // Claim every output folder before anything is written: a folder that holds other files
    // is refused (unless --force), except a run's own folder analysed from its timeline.csv.
    let mut dirs = Vec::with_capacity(runs.len());
    for (f, t, _, _, _) in &runs {
        dirs.push(match &args.output.out {
            Some(out) => {
                let dir = if runs.len() == 1 {
                    out.clone()
                } else {
                    out.join(&t.meta.label)
                };
                let own = crate::report::is_own_timeline(f, &dir);
                Some(crate::report::outputs::outdir::claim(
                    Some(&dir),
                    "",
                    args.output.force,
                    own,
                )?)
            }
            None => None,
        });
    }
    for ((f, t, a, link, emulation), dir) in runs.iter().zip(&dirs) {
        // The result line in probe's shape (its stop reason from the run's summary.json),
        // on standard output, or with --json on standard error as simulate's (the analysis
        // is printed by main once the run is recorded, with its id).
        let mut text = analysis_line(
            &f.display().to_string(),
            a,
            t.meta.stop_reason,
            args.output.units,
        );
        // Without -q, the levels either side of each cliff and when it came, on a line of
        // their own as simulate's "measured:" (the one line keeps probe's shape).
        if !args.quiet {
            if let Some(steps) = crate::detect::Findings::of(a).steps_text(args.output.units) {
                text.push_str(&format!("\n  cliffs: {steps}"));
            }
        }
        if let Some(r) = &t.meta.resolution {
            text.push_str(&format!("\n  note: {}", r.sentence()));
        }
        if !args.quiet {
            for w in &a.warnings {
                text.push_str(&format!("\n  warning: {w}"));
            }
        }
        if args.json {
            crate::store::recorder::print_json(serde_json::to_value(a)?, dir.as_deref());
        }
        let show = |line: &str| {
            if args.json {
                crate::note!("{line}");
            } else {
                crate::say!("{line}");
            }
        };
        // With -q the one line waits for the outputs, to name their folder as probe's does.
        let quiet_line = match dir {
            Some(_) if args.quiet => Some(text),
            _ => {
                show(&text);
                None
            }
        };
        if let Some(dir) = dir {
            let mut config = serde_json::json!({
                "command": "analyze",
                "file": f.display().to_string(),
                "time_unit": args.time_unit,
                "rate_unit": args.rate_unit,
                "x": args.x,
                "x_unit": args.x_unit,
            });
            // The link its run was on, so that this folder analysed again keeps it; so too
            // the emulation's figures.
            if let Some(l) = link {
                config["link"] = serde_json::to_value(l)?;
            }
            if let Some(e) = emulation {
                config["emulation"] = serde_json::to_value(e)?;
            }
            crate::report::write_analysis_outputs(
                dir,
                f,
                &opts,
                t,
                a,
                config,
                &report_opts,
                args.quiet,
                // Recorded as soon as timeline.csv and summary.json are complete: a chart
                // that fails (a full disk) does not lose the run.
                &mut || crate::store::recorder::note(dir, &report_opts, args.quiet),
            )?;
            match quiet_line {
                Some(line) => show(&format!("{line}; outputs: {}", dir.display())),
                None => show(&format!("outputs: {}", dir.display())),
            }
        }
    }
    Ok(())
}

/// The `--duration` its run asked for, seconds, from the `summary.json` beside a
/// `timeline.csv` (a burst's timeline has none of its own).
fn duration_beside(f: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(f.parent()?.join("summary.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["config"]["workload"]["duration"]
        .as_f64()
        .filter(|d| d.is_finite() && *d > 0.0)
}

/// The real-time emulation's figures in the `summary.json` beside a `timeline.csv`
/// (`config.emulation`: a probe of an emulated drive, or an analysis of one that kept them);
/// `None` where there are none or they cannot be read.
fn emulation_beside(f: &Path) -> Option<crate::engine::emulated::Shortfall> {
    let text = std::fs::read_to_string(f.parent()?.join("summary.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    serde_json::from_value(v.get("config")?.get("emulation")?.clone()).ok()
}

/// Reads one file with notes on how it was read; a `timeline.csv` takes the drive, the
/// workload and the link from the `summary.json` beside it, and a burst's timeline
/// (`bursts/00-first.csv`) from its experiment's, as `compare` does.
fn load(
    f: &Path,
    opts: &ReadOptions,
) -> Result<(Timeline, Vec<String>, Option<crate::link::Link>)> {
    if f == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("reading standard input")?;
        let (mut t, notes) = import::parse_text_notes(&text, "stdin", opts)?;
        t.meta.label = "stdin".into();
        return Ok((t, notes, None));
    }
    let (mut t, mut notes) = import::load_with_notes(f, opts)?;
    // The run's summary.json: beside a timeline.csv, or an experiment's above its bursts/.
    let summary = crate::report::summary_of_timeline(f);
    let link = summary
        .as_deref()
        .and_then(crate::report::read_summary_link);
    if let Some(s) = summary {
        // A broken summary.json beside a good timeline costs the drive and workload names,
        // not the analysis.
        match crate::report::read_timeline_meta(f, &s) {
            Ok(Some(meta)) => {
                let label = t.meta.label.clone();
                let resolution = t.meta.resolution.take();
                let read_as_rates = t.meta.rate_log;
                t.meta = meta;
                // How far this reading merged the samples, not what the run's summary said.
                t.meta.resolution = resolution;
                if t.meta.label.trim().is_empty() {
                    t.meta.label = label;
                }
                // Rows first read from a log of rates (the timeline.csv that `analyze` of a
                // fio log wrote): a late row's bytes were assumed then and still are.
                if t.meta.rate_log && !read_as_rates {
                    notes.extend(import::late_rows_note(&t, &f.display().to_string()));
                }
                t.meta.rate_log |= read_as_rates;
            }
            Ok(None) => {}
            Err(e) => notes.push(format!(
                "{e:#}; the drive and workload are not taken from it (the timeline is analysed)"
            )),
        }
    }
    Ok((t, notes, link))
}

/// The unit flags as import options; a bad unit is a usage error (exit 2).
fn import_options(args: &AnalyzeArgs) -> Result<ReadOptions> {
    let time_scale = match &args.time_unit {
        None => None,
        Some(u) => Some(
            import::parse_time_unit(u)
                .ok_or_else(|| crate::error::usage(format!("--time-unit '{u}': give s or ms")))?,
        ),
    };
    let rate_scale = match &args.rate_unit {
        None => None,
        Some(u) => Some(import::parse_rate_unit(u).ok_or_else(
            || match import::rate_unit_problem(u) {
                Some(why) => crate::error::usage(format!("--rate-unit {why}")),
                None => crate::error::usage(format!(
                    "--rate-unit '{u}': give MB/s, MiB/s, KiB/s, kB/s, GB/s or GiB/s (Mb/s \
                     for megabits)"
                )),
            },
        )?),
    };
    let x_unit = match &args.x_unit {
        None => None,
        Some(u) => Some(import::parse_size_unit(u).ok_or_else(|| {
            crate::error::usage(format!(
                "--x-unit '{u}': give B, kB, MB, GB, TB, KiB, MiB, GiB or TiB"
            ))
        })?),
    };
    let position_scale = match args.x.as_deref().map(|x| x.trim().to_ascii_lowercase()) {
        None if x_unit.is_some() => {
            return Err(crate::error::usage(
                "--x-unit needs --x bytes (the first column is data written)",
            ))
        }
        None => None,
        Some(x) if x == "time" => {
            if x_unit.is_some() {
                return Err(crate::error::usage(
                    "--x-unit is for --x bytes; with --x time give --time-unit",
                ));
            }
            None
        }
        Some(x) if x == "bytes" || x == "position" || x == "written" => {
            Some(x_unit.ok_or_else(|| {
                crate::error::usage("--x bytes needs --x-unit (e.g. --x-unit MiB)")
            })?)
        }
        Some(x) => {
            return Err(crate::error::usage(format!(
                "--x '{x}': give time or bytes"
            )))
        }
    };
    Ok(ReadOptions {
        units: ImportOptions {
            time_scale,
            rate_scale,
        },
        position_scale,
    })
}
