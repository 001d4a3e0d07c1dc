//! The `compare` subcommand: overlay several runs (run folders, `timeline.csv` files or fio
//! logs) on both axes, one colour and dash per run, with a side-by-side Markdown table.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::CompareArgs;
use crate::report::charts::CompareRun;
use crate::timeline::{import, Timeline};

/// Runs `slccache compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let mut opts = crate::cli::resolve::report_options(&args.output)?;
    opts.align_cliff = args.align == crate::cli::AlignArg::Cliff;
    // A run id (a number that names no file) is read from the results store.
    let scratch = tempfile_dir()?;
    let mut store = None;
    let mut timelines = Vec::with_capacity(args.runs.len());
    // Each run's host and store id, for the legend of runs from several hosts.
    let mut origins: Vec<(Option<String>, Option<i64>)> = Vec::with_capacity(args.runs.len());
    // Each run's link, from its summary.json: a run analysed again says what it said of it.
    let mut links: Vec<Option<crate::link::Link>> = Vec::with_capacity(args.runs.len());
    let mut truths: Vec<Option<crate::model::Truth>> = Vec::with_capacity(args.runs.len());
    // The same run given twice (`compare 1 1`, or a folder and its timeline.csv) is drawn
    // twice: said, so that two identical lines are not read as two runs that agree.
    let mut seen: Vec<std::path::PathBuf> = Vec::new();
    for p in &args.runs {
        let key = if p.exists() {
            let f = if p.is_dir() {
                p.join("timeline.csv")
            } else {
                p.clone()
            };
            f.canonicalize().unwrap_or(f)
        } else {
            p.clone()
        };
        if seen.contains(&key) {
            crate::note!(
                "slccache: note: {} is given twice; the comparison draws it twice",
                p.display()
            );
        } else {
            seen.push(key);
        }
    }
    for p in &args.runs {
        let id = p.to_str().and_then(|s| s.parse::<i64>().ok());
        match id {
            Some(id) if !p.exists() => {
                if store.is_none() {
                    let loc = crate::store::recorder::location().ok_or_else(|| {
                        crate::error::usage(format!(
                            "{id}: no such folder, and no results store to read run {id} from"
                        ))
                    })?;
                    store = Some(crate::store::Store::open_existing(&loc)?);
                }
                let dir = scratch.join(format!("run-{id}"));
                let store = store.as_mut().expect("opened above");
                let run = store.get_meta(id)?;
                // A sweep, recovery or fill-sweep has no one timeline to compare (its folder
                // holds a table of points): said by the run's id, not by a scratch folder.
                if !matches!(run.row.kind.as_str(), "probe" | "simulate" | "analyze") {
                    return Err(crate::error::usage(format!(
                        "run {id} is a {}; compare takes probe, simulate or analyze runs",
                        run.row.kind
                    )));
                }
                // Its data only, each stored file a piece at a time: compare draws its own.
                store.export_data(id, &dir)?;
                origins.push((host_of(&dir).or(run.row.host.clone()), Some(id)));
                links.push(crate::report::read_summary_link(&dir.join("summary.json")));
                truths.push(crate::report::read_summary_cache_truth(
                    &dir.join("summary.json"),
                ));
                let mut t = load_run(&dir)?;
                if t.meta.label.trim().is_empty() || t.meta.label == format!("run-{id}") {
                    t.meta.label = format!("run {id}");
                }
                timelines.push(t);
            }
            _ => {
                timelines.push(load_run(p)?);
                // The run's summary.json: its folder's, beside a timeline.csv, or a burst's
                // experiment's above its bursts/.
                let summary = if p.is_dir() {
                    Some(p.join("summary.json"))
                } else {
                    crate::report::summary_of_timeline(p)
                };
                origins.push((
                    summary.as_deref().and_then(Path::parent).and_then(host_of),
                    None,
                ));
                links.push(
                    summary
                        .as_deref()
                        .and_then(crate::report::read_summary_link),
                );
                truths.push(
                    summary
                        .as_deref()
                        .and_then(crate::report::read_summary_cache_truth),
                );
            }
        }
    }
    drop(scratch);
    // In the units the comparison is shown in: every figure, the warnings' included.
    let analyses: Vec<_> = timelines
        .iter()
        .zip(links.iter().zip(&truths))
        .map(|(t, (link, truth))| {
            let mut a = crate::detect::analyze_in(t, opts.units);
            crate::link::note_findings(&mut a, link.as_ref(), opts.units);
            crate::model::note_iops_hidden(&mut a, truth.as_ref(), opts.units);
            a
        })
        .collect();
    let names = match &args.label {
        Some(l) if l.len() != timelines.len() => {
            return Err(crate::error::usage(format!(
                "--label: {} names for {} runs; give one name per run, comma-separated",
                l.len(),
                timelines.len()
            )))
        }
        Some(l) if l.iter().any(|n| n.trim().is_empty()) => {
            return Err(crate::error::usage("--label: a name is empty"))
        }
        Some(l) => l.iter().map(|n| n.trim().to_string()).collect(),
        None => host_names(&timelines, &origins).unwrap_or_else(|| {
            let ids: Vec<Option<i64>> = origins.iter().map(|(_, id)| *id).collect();
            unique_names(&timelines, &ids)
        }),
    };
    // An interrupted run is named so in the legend, the labels and compare.md's columns, as
    // `runs` names it "(interrupted)".
    let names: Vec<String> = names
        .into_iter()
        .zip(&timelines)
        .map(|(n, t)| {
            if t.meta.stop_reason == Some(crate::timeline::StopReason::Interrupted)
                && !n.ends_with("(interrupted)")
            {
                format!("{n} (interrupted)")
            } else {
                n
            }
        })
        .collect();
    let runs: Vec<CompareRun<'_>> = timelines
        .iter()
        .zip(&analyses)
        .zip(&names)
        .map(|((t, a), n)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    let out = crate::report::outputs::outdir::claim(
        args.output.out.as_deref(),
        "compare",
        args.output.force,
        false,
    )?;
    crate::report::write_comparison(&out, &runs, &opts)?;
    // summary.json, as every subcommand that writes a folder has one: the comparison's
    // configuration and, per run, its name, where it was read from, its drive and workload,
    // and its analysis.
    let per_run: Vec<serde_json::Value> = runs
        .iter()
        .zip(&args.runs)
        .map(|(r, src)| {
            serde_json::json!({
                "name": r.name,
                "source": src.display().to_string(),
                "run": r.timeline.meta,
                "analysis": r.analysis,
            })
        })
        .collect();
    let summary = serde_json::json!({
        "slccache_version": crate::VERSION,
        "config": {
            "command": "compare",
            "align": if opts.align_cliff { "cliff" } else { "start" },
            "labels": args.label,
        },
        "runs": per_run,
    });
    crate::report::write_file(
        &out.join("summary.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;
    // Which runs, by the names the charts and compare.md give them ("compared 4 runs" of run ids
    // said nothing of which).
    let named: Vec<&str> = runs.iter().map(|r| r.name).collect();
    let line = format!(
        "compared {} runs ({}); outputs: {}",
        runs.len(),
        named.join(", "),
        out.display()
    );
    if args.json {
        crate::say!("{}", serde_json::to_string(&summary)?);
        crate::note!("{line}");
    } else {
        crate::say!("{line}");
    }
    Ok(())
}

/// A scratch folder for runs read from the store, removed when dropped (also on an error).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh scratch folder for runs read from the store.
fn tempfile_dir() -> Result<Scratch> {
    let d = std::env::temp_dir().join(format!(
        "slccache-compare-{}-{}",
        std::process::id(),
        chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
    ));
    std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
    Ok(Scratch(d))
}

/// Loads one run: a run folder (its `timeline.csv`, with the drive and workload from its
/// `summary.json` when present), a `timeline.csv` (its folder's `summary.json` is used the same
/// way; a burst's timeline, `bursts/00-first.csv`, takes its experiment's), or any file
/// [`import::load`] reads (fio bandwidth logs).
pub fn load_run(path: &Path) -> Result<Timeline> {
    if path.is_dir() {
        let tl = path.join("timeline.csv");
        // A sweep, recovery or fill-sweep folder has no one timeline: said by what it is, as
        // a stored run of those kinds is.
        let kind = std::fs::read_to_string(path.join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| {
                v["command"]
                    .as_str()
                    .or(v["config"]["command"].as_str())
                    .map(str::to_string)
            })
            .filter(|k| matches!(k.as_str(), "sweep" | "recovery" | "fill-sweep"));
        if let (false, Some(k)) = (tl.is_file(), kind) {
            return Err(crate::error::usage(format!(
                "{} is a {k}; compare takes probe, simulate or analyze runs",
                path.display()
            )));
        }
        if !tl.is_file() {
            return Err(crate::error::usage(format!(
                "{}: no timeline.csv in this folder; give a run folder written by slccache, \
                 a timeline.csv or a fio bandwidth log",
                path.display()
            )));
        }
        return load_file(&tl);
    }
    if !path.exists() {
        return Err(crate::error::usage(format!(
            "{}: no such file or folder",
            path.display()
        )));
    }
    load_file(path)
}

fn load_file(file: &Path) -> Result<Timeline> {
    let mut t = import::load(file).map_err(|e| {
        // The importer's advice names analyze's unit flags, which compare does not have.
        let text = format!("{e:#}");
        if text.contains("--time-unit") || text.contains("--rate-unit") {
            crate::error::usage(format!(
                "{}; compare has no unit flags: add a header such as 'seconds,MB/s' to the file, \
                 or run `slccache analyze FILE --time-unit .. --rate-unit .. --out DIR` and \
                 compare DIR",
                text.replace(", or give --time-unit s|ms", "")
                    .replace(", or give --rate-unit", "")
            ))
        } else {
            anyhow::Error::new(e)
        }
    })?;
    // The run's summary.json: beside a timeline.csv, or an experiment's above its bursts/.
    if let Some(s) = crate::report::summary_of_timeline(file) {
        match crate::report::read_timeline_meta(file, &s) {
            Ok(Some(meta)) => {
                let fallback = t.meta.label.clone();
                t.meta = meta;
                if t.meta.label.trim().is_empty() {
                    t.meta.label = fallback;
                }
            }
            Ok(None) => {}
            Err(e) => crate::note!(
                "slccache: warning: {e:#}; the drive and workload are not taken from it"
            ),
        }
    }
    if t.meta.label.trim().is_empty() {
        t.meta.label = import::label_of(file);
    }
    Ok(t)
}

/// The host a run folder's `summary.json` names (`origin.host`), if any.
fn host_of(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("summary.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    crate::origin::of_summary(&v)
        .map(|o| o.host)
        .filter(|h| !h.trim().is_empty())
}

/// Legend names of runs from more than one host: each run's host and store id before its
/// drive ("bench-2 #31: Samsung SSD 970 EVO 500GB"; a folder has no id), with what differs
/// in the workloads of runs of one drive ([`workload_differences`]), and " (2)", " (3)"
/// added where that still repeats. `None` when the runs are all from one host (or none says).
pub fn host_names(
    timelines: &[Timeline],
    origins: &[(Option<String>, Option<i64>)],
) -> Option<Vec<String>> {
    let hosts: std::collections::BTreeSet<&str> =
        origins.iter().filter_map(|(h, _)| h.as_deref()).collect();
    if hosts.len() < 2 {
        return None;
    }
    let drives: Vec<String> = timelines
        .iter()
        .zip(origins)
        .map(|(t, (_, id))| match id {
            // The "run ID" a stored run without a label was given says nothing the id does not.
            Some(id) if t.meta.label == format!("run {id}") => {
                let mut m = t.meta.clone();
                m.label.clear();
                crate::report::charts::run_title(&m)
            }
            _ => crate::report::charts::run_title(&t.meta),
        })
        .collect();
    let differs = workload_differences(timelines, &drives);
    let base: Vec<String> = drives
        .iter()
        .zip(&differs)
        .zip(origins)
        .map(|((drive, differs), (host, id))| {
            let drive = with_workload(drive, differs.as_deref());
            match (host, id) {
                (Some(h), Some(id)) => format!("{h} #{id}: {drive}"),
                (Some(h), None) => format!("{h}: {drive}"),
                (None, Some(id)) => format!("#{id}: {drive}"),
                (None, None) => drive,
            }
        })
        .collect();
    Some(numbered(&base))
}

/// Legend names: each run's name (its drive); where several runs share it, what differs in
/// their workloads ("loop0, seqwrite 128K", "loop0, randwrite 4K"); every run from the
/// results store by its id, whether or not another run shares its drive ("#2: loop0",
/// `ids` holding each run's id or `None` for a folder); else, where runs of one drive ran one
/// workload, with the run's start time ("loop0, 09:14:02"; with the date when the runs are on
/// different days), and " (2)", " (3)" added only where nothing of that differs.
pub fn unique_names(timelines: &[Timeline], ids: &[Option<i64>]) -> Vec<String> {
    // An emulated or simulated drive made with options beyond its preset is named with them
    // (`..., cache=10GB`), as its own outputs and the store name it, also where no other run
    // shares its name: it is not the preset's drive.
    let plain: Vec<String> = timelines
        .iter()
        .map(|t| crate::report::charts::run_title(&t.meta))
        .collect();
    let differs = workload_differences(timelines, &plain);
    let named: Vec<String> = plain
        .iter()
        .zip(&differs)
        .map(|(n, d)| with_workload(n, d.as_deref()))
        .collect();
    let days: std::collections::BTreeSet<String> = timelines
        .iter()
        .filter_map(|t| t.meta.started_at.map(|d| d.format("%Y-%m-%d").to_string()))
        .collect();
    let base: Vec<String> = timelines
        .iter()
        .zip(&named)
        .enumerate()
        .map(|(i, (t, n))| {
            let shared = named.iter().filter(|m| *m == n).count() > 1;
            match (shared, t.meta.started_at) {
                // The store's id names the run as `runs` lists it; the minute does not. Every
                // run given by id carries it, also one whose drive no other run shares.
                _ if ids.get(i).copied().flatten().is_some() => {
                    format!("#{}: {n}", ids[i].unwrap_or_default())
                }
                (true, Some(d)) if days.len() > 1 => {
                    format!("{n}, {}", d.format("%Y-%m-%d %H:%M"))
                }
                (true, Some(d)) => format!("{n}, {}", d.format("%H:%M:%S")),
                _ => n.clone(),
            }
        })
        .collect();
    numbered(&base)
}

/// `names` with " (2)", " (3)" added to each one that repeats an earlier one.
fn numbered(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for b in names {
        let mut name = b.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{b} ({k})");
            k += 1;
        }
        out.push(name);
    }
    out
}

/// A run's name with what differs in its workload after it ("..., randwrite 4K").
fn with_workload(name: &str, differs: Option<&str>) -> String {
    match differs {
        Some(w) => format!("{name}, {w}"),
        None => name.to_string(),
    }
}

/// The parts of a run's workload a name may give, each in the words of `runs`'s workload
/// column (`seqwrite`, `128K`, `QD32`) or of the charts' footer (`4 jobs`, `30% reads`,
/// `1 s interval`, the engine); `None` where not known.
fn workload_fields(t: &Timeline) -> [Option<String>; 7] {
    let w = &t.meta.workload;
    let interval = w.interval_s.unwrap_or_else(|| t.interval_s());
    [
        Some(w.pattern.clone()).filter(|p| !p.is_empty()),
        w.block_size.map(crate::timeline::block_words),
        w.queue_depth.map(|q| format!("QD{q}")),
        w.jobs
            .map(|j| crate::units::count_text(j as usize, "job", "jobs")),
        w.read_pct
            .filter(|&p| p > 0 && p < 100)
            .map(|p| format!("{p}% reads")),
        (interval > 0.0).then(|| crate::report::charts::interval_words(interval)),
        w.engine.clone().filter(|e| !e.is_empty()),
    ]
}

/// For each run, what tells its workload apart from those of the other runs of its drive
/// (`drives`: each run's drive's name): the pattern with the block size, queue depth and
/// jobs where any of those four differ ("seqwrite 128K", "randwrite 4K"), then the share of
/// reads, the sampling interval and the engine where they differ; `None` where no other run
/// shares its drive or they all ran its workload.
pub fn workload_differences(timelines: &[Timeline], drives: &[String]) -> Vec<Option<String>> {
    const PATTERN: usize = 0;
    let fields: Vec<[Option<String>; 7]> = timelines.iter().map(workload_fields).collect();
    (0..timelines.len())
        .map(|i| {
            let group: Vec<usize> = (0..timelines.len())
                .filter(|&j| drives.get(j) == drives.get(i))
                .collect();
            let varies = |k: usize| group.iter().any(|&j| fields[j][k] != fields[i][k]);
            // The pattern names what the block size, queue depth and jobs describe.
            let core = (PATTERN..=3).any(varies);
            let words: Vec<&str> = (0..fields[i].len())
                .filter(|&k| {
                    if k <= 3 {
                        core && (k == PATTERN || varies(k))
                    } else {
                        varies(k)
                    }
                })
                .filter_map(|k| fields[i][k].as_deref())
                .collect();
            (!words.is_empty()).then(|| words.join(" "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{host_names, unique_names};
    use crate::timeline::Timeline;

    /// A simulated run of `model` started at `at` with `pattern` and block size `bs`.
    fn run(model: &str, at: &str, pattern: &str, bs: u64) -> Timeline {
        let mut t = Timeline::default();
        t.meta.device.model = Some(model.into());
        t.meta.device.path = "sim:fx700-2tb".into();
        t.meta.started_at = Some(at.parse().unwrap());
        t.meta.workload.pattern = pattern.into();
        t.meta.workload.block_size = Some(bs);
        t.meta.workload.queue_depth = Some(32);
        t.meta.workload.jobs = Some(1);
        t.meta.workload.interval_s = Some(1.0);
        t.meta.workload.engine = Some("simulated".into());
        t
    }

    const FX: &str = "HP FX700 2TB (QLC) (simulated)";

    /// Two runs of one drive started in one second with different workloads were named
    /// "..., 23:12:17" and "..., 23:12:17 (2)": what told them apart was only in the footer.
    #[test]
    fn runs_of_one_drive_are_named_by_what_differs_in_their_workload() {
        let at = "2026-12-05T23:12:17Z";
        let seq = run(FX, at, "seqwrite", 128 << 10);
        let rand = run(FX, at, "randwrite", 4 << 10);
        let names = unique_names(&[seq.clone(), rand.clone()], &[None, None]);
        assert_eq!(
            names,
            [
                format!("{FX}, seqwrite 128K"),
                format!("{FX}, randwrite 4K")
            ]
        );
        // The block size alone: the pattern stays beside it, so that "1M" reads as one.
        let big = run(FX, at, "seqwrite", 1 << 20);
        let names = unique_names(&[seq.clone(), big.clone()], &[None, None]);
        assert_eq!(
            names,
            [format!("{FX}, seqwrite 128K"), format!("{FX}, seqwrite 1M")]
        );
        // The sampling interval, in the footer's words.
        let mut fine = seq.clone();
        fine.meta.workload.interval_s = Some(0.01);
        let names = unique_names(&[seq.clone(), fine], &[None, None]);
        assert_eq!(
            names,
            [
                format!("{FX}, 1 s interval"),
                format!("{FX}, 10 ms interval")
            ]
        );
        // Stored runs keep their ids, with the workload beside them.
        let names = unique_names(&[seq.clone(), rand.clone()], &[Some(1), Some(2)]);
        assert_eq!(
            names,
            [
                format!("#1: {FX}, seqwrite 128K"),
                format!("#2: {FX}, randwrite 4K")
            ]
        );
        // Where two of three share a workload, those two get their start time as well.
        let later = run(FX, "2026-12-05T23:14:02Z", "seqwrite", 128 << 10);
        let names = unique_names(&[seq.clone(), later, rand.clone()], &[None, None, None]);
        assert_eq!(
            names,
            [
                format!("{FX}, seqwrite 128K, 23:12:17"),
                format!("{FX}, seqwrite 128K, 23:14:02"),
                format!("{FX}, randwrite 4K"),
            ]
        );
        // Nothing at all differs: the number stays.
        let names = unique_names(&[seq.clone(), seq.clone()], &[None, None]);
        assert_eq!(
            names,
            [format!("{FX}, 23:12:17"), format!("{FX}, 23:12:17 (2)")]
        );
        // Runs of two hosts, of one drive, with different workloads: said in the same words.
        let origins = [
            (Some("bench-1".to_string()), None),
            (Some("bench-2".to_string()), None),
        ];
        assert_eq!(
            host_names(&[seq.clone(), rand.clone()], &origins).unwrap(),
            [
                format!("bench-1: {FX}, seqwrite 128K"),
                format!("bench-2: {FX}, randwrite 4K")
            ]
        );
        let origins = [
            (Some("bench-1".to_string()), None),
            (Some("bench-2".to_string()), None),
            (Some("bench-1".to_string()), None),
        ];
        assert_eq!(
            host_names(&[seq.clone(), seq.clone(), rand], &origins).unwrap(),
            [
                format!("bench-1: {FX}, seqwrite 128K"),
                format!("bench-2: {FX}, seqwrite 128K"),
                format!("bench-1: {FX}, randwrite 4K")
            ]
        );
    }

    /// `compare 2 3 4` of two runs of one drive and one of another named the other by its
    /// drive alone ("HP FX700 2TB (QLC) (simulated)" between "#2: ..." and "#4: ..."): every
    /// run given by id carries its id.
    #[test]
    fn every_run_given_by_id_is_named_by_its_id() {
        let at = "2026-12-05T23:12:17Z";
        let seq = run(FX, at, "seqwrite", 128 << 10);
        let p5 = |interval: f64| {
            let mut t = run("Crucial P5 1TB (simulated)", at, "seqwrite", 128 << 10);
            t.meta.device.path = "sim:p5-1tb".into();
            t.meta.workload.interval_s = Some(interval);
            t
        };
        let names = unique_names(
            &[p5(1.0), seq.clone(), p5(30.0)],
            &[Some(2), Some(3), Some(4)],
        );
        assert_eq!(
            names,
            [
                "#2: Crucial P5 1TB (simulated), 1 s interval".to_string(),
                format!("#3: {FX}"),
                "#4: Crucial P5 1TB (simulated), 30 s interval".to_string(),
            ]
        );
        // A folder beside them has no id to give.
        let names = unique_names(&[p5(1.0), seq.clone()], &[Some(2), None]);
        assert_eq!(
            names,
            ["#2: Crucial P5 1TB (simulated)".to_string(), FX.to_string()]
        );
    }
}
