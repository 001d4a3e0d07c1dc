//! Raw flags onto validated configuration: `WorkloadArgs` (with an optional scenario file)
//! into `WorkloadConfig`, `StopArgs` into the early stop's `StopConfig`, the results-store
//! flags given before and after the command into `StoreFlags`. The clap types stay in this
//! folder; `config` below it knows nothing of them.

use std::time::Duration;

use anyhow::{Context, Result};

use crate::cli::{Cli, OutputArgs, StopArgs, StoreUse, SweepArgs, TargetArgs, WorkloadArgs};
use crate::config::{DurationValue, Scenario, SizeValue, WorkloadConfig, MIN_INTERVAL};
use crate::detect::stop::StopConfig;
use crate::error::usage;
use crate::report::ReportOptions;
use crate::results::sweep::PointSpec;
use crate::units::{parse_duration, parse_size};
use crate::workload::{EngineKind, Pattern, SweepPreset};

impl WorkloadConfig {
    /// Merges defaults < scenario file (if `args.scenario`) < flags, and validates.
    pub fn resolve(args: &WorkloadArgs) -> Result<WorkloadConfig> {
        let sc = match &args.scenario {
            Some(p) => Scenario::load(p)?,
            None => Scenario::default(),
        };
        let pattern = args.pattern.or(sc.pattern).unwrap_or(Pattern::Randwrite);
        let size = |flag: &Option<String>, file: &Option<SizeValue>, what: &str| {
            let text = flag.clone().or_else(|| file.as_ref().map(|v| v.text()));
            text.map(|t| parse_size(&t).with_context(|| format!("--{what}")))
                .transpose()
        };
        let dur = |flag: &Option<String>, file: &Option<DurationValue>, what: &str| {
            let text = flag.clone().or_else(|| file.as_ref().map(|v| v.text()));
            text.map(|t| parse_duration(&t).with_context(|| format!("--{what}")))
                .transpose()
        };
        // Where a value came from, for errors: the flag, or the scenario file's line and key.
        let scenario_text = args
            .scenario
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok());
        let origin = |flag_given: bool, key: &str, flag: &str| -> String {
            if flag_given {
                return format!("--{flag}");
            }
            let p = args.scenario.as_ref().map(|p| p.display().to_string());
            let line = scenario_text.as_ref().and_then(|t| {
                t.lines().position(|l| {
                    l.split_once('=')
                        .is_some_and(|(k, _)| k.trim().trim_matches('"') == key)
                })
            });
            match (p, line) {
                (Some(p), Some(l)) => format!("scenario file {p}, line {}, key '{key}':", l + 1),
                (Some(p), None) => format!("scenario file {p}, key '{key}':"),
                (None, _) => format!("--{flag}"),
            }
        };
        let block_size = size(&args.bs, &sc.bs, "bs")?.unwrap_or(if pattern.is_random() {
            4096
        } else {
            128 * 1024
        });
        let mix = args.rwmix_read.or(sc.rwmix_read);
        if let Some(m) = mix {
            if m > 100 {
                return Err(usage(format!(
                    "--rwmix-read {m} is out of range; give a percentage from 0 to 100"
                )));
            }
            if !pattern.is_mixed() {
                return Err(usage(format!(
                    "--rwmix-read applies to the mixed patterns randrw and rw, not to {pattern}"
                )));
            }
        }
        let read_pct = pattern.read_pct(mix);
        let queue_depth = args.qd.or(sc.qd).unwrap_or(32);
        let jobs = args.jobs.or(sc.jobs).unwrap_or(1);
        let interval =
            dur(&args.interval, &sc.interval, "interval")?.unwrap_or(Duration::from_secs(1));
        let span = size(&args.span, &sc.span, "span")?;
        let duration = dur(&args.duration, &sc.duration, "duration")?;
        let max_bytes = size(&args.max_bytes, &sc.max_bytes, "max-bytes")?;
        let passes = sc.passes;
        let seed = args.seed.or(sc.seed).unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
        if block_size == 0 || block_size > 64 << 20 {
            return Err(usage(format!(
                "{} {block_size} bytes is out of range; give 512 bytes to 64 MiB, e.g. 4k or 128k",
                origin(args.bs.is_some(), "bs", "bs")
            )));
        }
        if !(1..=4096).contains(&queue_depth) {
            return Err(usage(format!(
                "{} {queue_depth} is out of range; give 1 to 4096",
                origin(args.qd.is_some(), "qd", "qd")
            )));
        }
        if !(1..=256).contains(&jobs) {
            return Err(usage(format!(
                "{} {jobs} is out of range; give 1 to 256",
                origin(args.jobs.is_some(), "jobs", "jobs")
            )));
        }
        if interval < MIN_INTERVAL {
            // As the user typed it ("0s", not the "0ns" of Rust's own spelling).
            let shown = args
                .interval
                .clone()
                .unwrap_or_else(|| crate::units::format_interval(interval.as_secs_f64()));
            return Err(usage(format!(
                "{} {shown} is too short; the shortest is 10ms",
                origin(args.interval.is_some(), "interval", "interval"),
            )));
        }
        if let Some(d) = duration {
            if d.is_zero() {
                return Err(usage(format!(
                    "{} must be longer than zero",
                    origin(args.duration.is_some(), "duration", "duration")
                )));
            }
            if interval > d {
                return Err(usage(format!(
                    "--interval {:?} is longer than the run (--duration {:?}): no interval \
                     would ever finish; give an interval of at most the duration",
                    interval, d
                )));
            }
        }
        if max_bytes == Some(0) {
            return Err(usage(format!(
                "{} must be more than zero",
                origin(args.max_bytes.is_some(), "max_bytes", "max-bytes")
            )));
        }
        if let Some(m) = max_bytes.filter(|&m| m < block_size) {
            return Err(usage(format!(
                "{} {m} bytes is less than one block ({block_size} bytes): nothing could be \
                 written; give at least the block size",
                origin(args.max_bytes.is_some(), "max_bytes", "max-bytes")
            )));
        }
        if let Some(p) = passes {
            if !(p.is_finite() && p > 0.0) {
                return Err(usage("passes in a scenario must be a positive number"));
            }
        }
        Ok(WorkloadConfig {
            pattern,
            read_pct,
            block_size,
            queue_depth,
            jobs,
            interval,
            span,
            duration,
            max_bytes,
            passes,
            seed,
            scenario: args.scenario.clone(),
            description: sc.description,
        })
    }
}

/// The longest `--after-cliff` accepted.
pub const MAX_AFTER_CLIFF: Duration = Duration::from_secs(24 * 3600);

/// The largest `--cliffs` accepted.
pub const MAX_CLIFFS: usize = 9;

/// The early-stop configuration from `--no-early-stop`, `--after-cliff` and `--cliffs`.
pub fn stop_config(args: &StopArgs) -> Result<StopConfig> {
    let mut c = StopConfig {
        early_stop: !args.no_early_stop,
        ..StopConfig::default()
    };
    if let Some(text) = &args.after_cliff {
        let d = parse_duration(text).context("--after-cliff")?;
        if d.is_zero() || d > MAX_AFTER_CLIFF {
            return Err(usage(format!(
                "--after-cliff {text} is out of range; give more than zero and at most 24h, \
                 e.g. 30s"
            )));
        }
        c.after_cliff_s = d.as_secs_f64();
    }
    if let Some(n) = args.cliffs {
        if !(1..=MAX_CLIFFS).contains(&n) {
            return Err(usage(format!(
                "--cliffs {n} is out of range; give 1 to {MAX_CLIFFS}, e.g. 2 for a drive \
                 with a second cache tier"
            )));
        }
        c.cliffs = n;
    }
    Ok(c)
}

/// The common flags of `recovery` and `fill-sweep` checked and resolved: the bursts are
/// seqwrite unless a pattern or scenario says otherwise, and `--duration` is refused (each
/// burst writes until its cliff is confirmed). `what` names the subcommand in errors.
pub fn burst_target(
    c: &crate::cli::BurstTargetArgs,
    what: &str,
) -> Result<(crate::config::BurstTargetConfig, ReportOptions)> {
    let mut wa = c.workload.clone();
    if wa.pattern.is_none() && wa.scenario.is_none() {
        wa.pattern = Some(Pattern::Seqwrite);
    }
    let w = WorkloadConfig::resolve(&wa)?;
    // `--pattern` offers only the patterns that write; a scenario or --rwmix-read 100 can
    // still ask for reads alone.
    if w.read_pct == 100 {
        return Err(usage(format!(
            "{what} writes in bursts until the cache runs out, and {} reads only; give \
             seqwrite or randwrite (or a mix with --rwmix-read below 100)",
            if c.workload.rwmix_read == Some(100) {
                "--rwmix-read 100".to_string()
            } else if c.workload.pattern.is_some() {
                format!("--pattern {}", w.pattern)
            } else {
                format!("the scenario's pattern {}", w.pattern)
            }
        )));
    }
    if w.duration.is_some() {
        return Err(usage(format!(
            "--duration is not used by {what}: each burst writes until the cliff is confirmed; \
             use --max-bytes to cap a burst"
        )));
    }
    let stop = stop_config(&StopArgs {
        no_early_stop: false,
        after_cliff: c.after_cliff.clone(),
        cliffs: None,
    })?;
    let opts = report_options(&c.output)?;
    let size = target_size(&c.write)?;
    let bt = crate::config::BurstTargetConfig {
        target: c.target.clone(),
        simulate: c.simulate,
        workload: w,
        stop,
        size,
        overwrite: c.write.overwrite,
        destroy_data: c.write.destroy_data,
        engine: c.engine.unwrap_or(crate::workload::EngineKind::IoUring),
        quiet: c.quiet,
        out: c.output.out.clone(),
        force: c.output.force,
    };
    Ok((bt, opts))
}

/// The output flags onto the options of the charts and reports: units, PNG size, theme. The
/// one place `ReportOptions` is made from flags; `compare --align cliff` sets `align_cliff`
/// on what this returns.
pub fn report_options(o: &OutputArgs) -> Result<ReportOptions> {
    Ok(ReportOptions {
        units: o.units,
        png_size: crate::report::parse_png_size(&o.png_size)?,
        theme: o.theme.into(),
        align_cliff: false,
    })
}

/// `--size`: the size of the file to create when the target is a file that does not exist.
pub fn target_size(t: &TargetArgs) -> Result<Option<u64>> {
    t.size
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--size")
}

/// CrystalDiskMark's default test size: the region each `sweep --preset cdm` point covers
/// once.
pub const CDM_REGION: u64 = 1 << 30;

/// The flags of `sweep` checked and resolved, in the order they are checked: the grid, the
/// length and cap of a point, the charts' options, the seed and the engine.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    /// The points, in the order they run.
    pub grid: Vec<PointSpec>,
    /// How long each point writes.
    pub point_duration: Duration,
    /// The cap on each point's bytes: `--max-bytes-per-point`, else the 1 GiB region of
    /// `--preset cdm`.
    pub max_bytes: Option<u64>,
    /// The region of `--preset cdm` when `--max-bytes-per-point` does not cap the points.
    pub cdm_region: Option<u64>,
    /// The charts' and reports' options.
    pub opts: ReportOptions,
    /// `--seed`, else from the clock.
    pub seed: u64,
    /// `--engine` [default: io-uring].
    pub engine: EngineKind,
}

/// Resolves the flags of `sweep` (see [`SweepPlan`]).
pub fn sweep_plan(args: &SweepArgs) -> Result<SweepPlan> {
    let grid = sweep_grid(args)?;
    let point_duration = parse_duration(&args.point_duration)
        .with_context(|| format!("--point-duration '{}'", args.point_duration))?;
    if point_duration < Duration::from_millis(100) {
        return Err(usage(
            "--point-duration is too short; give 100ms or more (10s is the default)",
        ));
    }
    let max_bytes = args
        .max_bytes_per_point
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--max-bytes-per-point")?;
    if max_bytes == Some(0) {
        return Err(usage("--max-bytes-per-point must be more than zero"));
    }
    // CrystalDiskMark's table runs on a 1 GiB test region: each point covers it once (or
    // ends after --point-duration), unless --max-bytes-per-point says otherwise.
    let cdm = matches!(args.preset, Some(SweepPreset::Cdm));
    let cdm_region = (cdm && max_bytes.is_none()).then_some(CDM_REGION);
    let max_bytes = max_bytes.or(cdm_region);
    let opts = report_options(&args.output)?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    Ok(SweepPlan {
        grid,
        point_duration,
        max_bytes,
        cdm_region,
        opts,
        seed,
        engine: args.engine.unwrap_or(EngineKind::IoUring),
    })
}

/// `sweep --span` (a real target's), else the region of `--preset cdm`.
pub fn sweep_span(args: &SweepArgs, cdm_region: Option<u64>) -> Result<Option<u64>> {
    Ok(args
        .span
        .as_deref()
        .map(parse_size)
        .transpose()
        .context("--span")?
        .or(cdm_region))
}

/// The grid of a sweep: `--preset cdm`, or QD x jobs (x read shares).
pub fn sweep_grid(args: &SweepArgs) -> Result<Vec<PointSpec>> {
    if let Some(SweepPreset::Cdm) = args.preset {
        let mut v = Vec::new();
        for (read, dir) in [(true, "Read"), (false, "Write")] {
            for (name, random, bs, qd, jobs) in [
                ("Seq Q32T1", false, 1u64 << 20, 32u32, 1u32),
                ("4K Q8T8", true, 4096, 8, 8),
                ("4K Q1T1", true, 4096, 1, 1),
            ] {
                let pattern = match (random, read) {
                    (true, true) => Pattern::Randread,
                    (true, false) => Pattern::Randwrite,
                    (false, true) => Pattern::Seqread,
                    (false, false) => Pattern::Seqwrite,
                };
                v.push(PointSpec {
                    pattern,
                    bs,
                    qd,
                    jobs,
                    read_pct: if read { 100 } else { 0 },
                    label: Some(format!("{name} {dir}")),
                });
            }
        }
        return Ok(v);
    }
    let qds = parse_list(&args.qd, "--qd", 1, 4096)?;
    let jobs = parse_list(&args.jobs, "--jobs", 1, 256)?;
    let base = args.pattern.unwrap_or(Pattern::Randwrite);
    // The same default as probe's: 4 KiB for random patterns, 128 KiB for sequential ones.
    let bs = match &args.bs {
        Some(b) => parse_size(b).with_context(|| format!("--bs '{b}'"))?,
        None if base.is_random() => 4096,
        None => 128 * 1024,
    };
    if bs == 0 || bs > 64 << 20 {
        return Err(usage(format!(
            "--bs {bs} bytes is out of range; give 512 bytes to 64 MiB"
        )));
    }
    let (pattern, mixes) = match &args.rwmix_read {
        Some(list) => (
            base.mixed_equivalent(),
            parse_list(list, "--rwmix-read", 0, 100)?,
        ),
        None => (base, vec![base.read_pct(None)]),
    };
    let mut v = Vec::new();
    for &m in &mixes {
        for &j in &jobs {
            for &q in &qds {
                v.push(PointSpec {
                    pattern,
                    bs,
                    qd: q,
                    jobs: j,
                    read_pct: m,
                    label: None,
                });
            }
        }
    }
    Ok(v)
}

/// A comma-separated list of whole numbers from `lo` to `hi`, each kept once, in order.
fn parse_list(s: &str, flag: &str, lo: u32, hi: u32) -> Result<Vec<u32>> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let x: u32 = part.parse().map_err(|_| {
            usage(format!(
                "{flag} '{s}': '{part}' is not a whole number; give a list such as 1,4,16"
            ))
        })?;
        if !(lo..=hi).contains(&x) {
            return Err(usage(format!(
                "{flag} '{s}': {x} is out of range; give {lo} to {hi}"
            )));
        }
        if !v.contains(&x) {
            v.push(x);
        }
    }
    if v.is_empty() {
        return Err(usage(format!(
            "{flag} is empty; give a list such as 1,4,16"
        )));
    }
    Ok(v)
}

/// The results-store flags of a command line: those given after the command's name with
/// those given before it (`slccache --db URL runs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreFlags {
    /// `--db`.
    pub db: Option<String>,
    /// `--no-record`.
    pub no_record: bool,
    /// `--require-record`.
    pub require_record: bool,
    /// `--host`.
    pub host: Option<String>,
    /// `--tag`, as given (before the command first).
    pub tags: Vec<String>,
}

/// The results-store flags of `cli`. A flag given before a command that does not take it
/// after its name is a usage error naming the flag and the command, as is a flag given both
/// before and after it, or `--no-record` with `--require-record`.
pub fn store_flags(cli: &Cli) -> Result<StoreFlags> {
    let name = cli.command.name();
    let (mut f, takes_db, records, origin) = match cli.command.store_use() {
        StoreUse::None => (StoreFlags::default(), false, false, false),
        StoreUse::Store(s) => (
            StoreFlags {
                db: s.db.clone(),
                ..StoreFlags::default()
            },
            true,
            false,
            false,
        ),
        StoreUse::Library(l) => (
            StoreFlags {
                db: l.store.db.clone(),
                host: l.host.clone(),
                tags: l.tag.clone(),
                ..StoreFlags::default()
            },
            true,
            false,
            true,
        ),
        StoreUse::Record(r) => (
            StoreFlags {
                db: r.store.db.clone(),
                no_record: r.no_record,
                require_record: r.require_record,
                host: r.host.clone(),
                tags: r.tag.clone(),
            },
            true,
            true,
            true,
        ),
    };
    let b = &cli.before;
    let not_taken = |flag: &str, why: &str| {
        Err(usage(format!(
            "{flag} is not taken by `slccache {name}`, which {why}; leave it out"
        )))
    };
    let twice = |flag: &str| {
        Err(usage(format!(
            "{flag} is given both before and after `{name}`; give it once"
        )))
    };
    if let Some(db) = &b.db {
        if !takes_db {
            return not_taken("--db", "neither records a run nor reads the results store");
        }
        if f.db.is_some() {
            return twice("--db");
        }
        f.db = Some(db.clone());
    }
    for (given, flag) in [
        (b.no_record, "--no-record"),
        (b.require_record, "--require-record"),
    ] {
        if given && !records {
            return not_taken(flag, "records no run");
        }
    }
    f.no_record |= b.no_record;
    f.require_record |= b.require_record;
    if f.no_record && f.require_record {
        return Err(usage(
            "--no-record and --require-record contradict; give one",
        ));
    }
    if let Some(host) = &b.host {
        if !origin {
            return not_taken("--host", "neither records a run nor lists recorded runs");
        }
        if f.host.is_some() {
            return twice("--host");
        }
        f.host = Some(host.clone());
    }
    if !b.tag.is_empty() && !origin {
        return not_taken("--tag", "neither records a run nor lists recorded runs");
    }
    f.tags = b.tag.iter().chain(&f.tags).cloned().collect();
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::*;
    use std::path::Path;

    #[test]
    fn defaults_scenario_flags() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.toml");
        std::fs::write(&p, "pattern = \"seqwrite\"\nqd = 8\nbs = \"1M\"\n").unwrap();
        let args = WorkloadArgs {
            scenario: Some(p),
            qd: Some(4),
            ..Default::default()
        };
        let c = WorkloadConfig::resolve(&args).unwrap();
        assert_eq!(c.pattern, Pattern::Seqwrite);
        assert_eq!(c.queue_depth, 4, "flag wins over scenario");
        assert_eq!(c.block_size, 1 << 20, "scenario wins over default");
        assert_eq!(c.jobs, 1);
        let d = WorkloadConfig::resolve(&WorkloadArgs::default()).unwrap();
        assert_eq!(d.block_size, 4096);
        assert_eq!(d.interval, Duration::from_secs(1));
    }

    #[test]
    fn scenario_errors_name_line_and_key() {
        let e = Scenario::parse("qd = 8\nfoo = 1\n", "x.toml").unwrap_err();
        let s = format!("{e:#}");
        assert!(
            s.contains("x.toml") && s.contains("line 2") && s.contains("foo"),
            "{s}"
        );
        let e = Scenario::parse("qd = \"deep\"\n", "y.toml").unwrap_err();
        let s = format!("{e:#}");
        assert!(s.contains("y.toml") && s.contains("line 1"), "{s}");
        let e = Scenario::load(Path::new("/nonexistent/z.toml")).unwrap_err();
        assert!(format!("{e:#}").contains("z.toml"));
        assert_eq!(crate::error::exit_code(&e), 2);
    }

    #[test]
    fn stop_flags() {
        let c = stop_config(&StopArgs::default()).unwrap();
        assert!(c.early_stop);
        assert_eq!(c.after_cliff_s, 30.0);
        let c = stop_config(&StopArgs {
            no_early_stop: true,
            after_cliff: None,
            cliffs: None,
        })
        .unwrap();
        assert!(!c.early_stop);
        assert_eq!(c.cliffs, 1);
        let c = stop_config(&StopArgs {
            no_early_stop: false,
            after_cliff: Some("2m".into()),
            cliffs: Some(2),
        })
        .unwrap();
        assert_eq!(c.after_cliff_s, 120.0);
        assert_eq!(c.cliffs, 2);
        for n in [0, 10] {
            let e = stop_config(&StopArgs {
                cliffs: Some(n),
                ..StopArgs::default()
            })
            .unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{n}");
            assert!(format!("{e:#}").contains("--cliffs"), "{n}: {e:#}");
        }
        for bad in ["0s", "soon", "2d"] {
            let e = stop_config(&StopArgs {
                no_early_stop: false,
                after_cliff: Some(bad.into()),
                cliffs: None,
            })
            .unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--after-cliff"), "{bad}: {e:#}");
        }
    }

    #[test]
    fn bad_values() {
        let a = WorkloadArgs {
            interval: Some("1ms".into()),
            ..Default::default()
        };
        assert!(WorkloadConfig::resolve(&a).is_err());
        let a = WorkloadArgs {
            bs: Some("lots".into()),
            ..Default::default()
        };
        let e = WorkloadConfig::resolve(&a).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
    }

    #[test]
    fn lists_are_checked() {
        assert_eq!(
            parse_list("1, 4,16,4", "--qd", 1, 4096).unwrap(),
            vec![1, 4, 16]
        );
        for bad in ["", "0", "1,x", "5000"] {
            let e = parse_list(bad, "--qd", 1, 4096).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--qd"), "{e:#}");
        }
    }
}
