//! Validated configuration: defaults < scenario file < command-line flags.
//!
//! `cli` types are turned into a [`WorkloadConfig`] here; nothing below this module sees clap.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::cli::{StopArgs, WorkloadArgs};
use crate::detect::stop::StopConfig;
use crate::error::usage;
use crate::units::{parse_duration, parse_size};
use crate::workload::Pattern;

/// The shortest sampling interval accepted.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// A scenario file (`scenarios/*.toml`): workload settings, all optional. Unknown keys are
/// errors. Sizes and durations are strings in human form (`"128k"`, `"90s"`) or plain numbers
/// (bytes, seconds).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// One line saying what the profile is.
    pub description: Option<String>,
    /// Where the method comes from (reviewer, standard, tool).
    pub source: Option<String>,
    /// "randwrite", "seqwrite", "randread", "seqread", "randrw" or "rw".
    pub pattern: Option<Pattern>,
    /// Percentage of reads in the mixed patterns (randrw, rw).
    pub rwmix_read: Option<u32>,
    /// Block size.
    pub bs: Option<SizeValue>,
    /// Queue depth per job.
    pub qd: Option<u32>,
    /// Jobs.
    pub jobs: Option<u32>,
    /// Sampling interval.
    pub interval: Option<DurationValue>,
    /// Limit on the written range.
    pub span: Option<SizeValue>,
    /// Time limit.
    pub duration: Option<DurationValue>,
    /// Byte limit.
    pub max_bytes: Option<SizeValue>,
    /// Byte limit as a number of passes over the span (e.g. 4 for 4x capacity).
    pub passes: Option<f64>,
    /// Seed.
    pub seed: Option<u64>,
}

/// A size in a scenario file: `"128k"` or a number of bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SizeValue {
    /// Bytes.
    Bytes(u64),
    /// Human form.
    Text(String),
}

/// A duration in a scenario file: `"90s"` or a number of seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DurationValue {
    /// Seconds.
    Seconds(f64),
    /// Human form.
    Text(String),
}

impl SizeValue {
    fn text(&self) -> String {
        match self {
            SizeValue::Bytes(b) => b.to_string(),
            SizeValue::Text(s) => s.clone(),
        }
    }
}

impl DurationValue {
    fn text(&self) -> String {
        match self {
            DurationValue::Seconds(s) => s.to_string(),
            DurationValue::Text(s) => s.clone(),
        }
    }
}

impl Scenario {
    /// Reads and checks a scenario file. Errors name the file, the line and the key.
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| usage(format!("scenario file {}: {e}", path.display())))?;
        Scenario::parse(&text, &path.display().to_string())
    }

    /// Parses scenario text; `name` is used in errors, which name the file, the line and the
    /// key.
    pub fn parse(text: &str, name: &str) -> Result<Scenario> {
        // The key set on line `l` (1-based), if that line is `key = value`.
        let key_on = |l: usize| {
            text.lines()
                .nth(l.saturating_sub(1))
                .and_then(|s| s.split_once('='))
                .map(|(k, _)| k.trim().trim_matches('"').to_string())
                .filter(|k| !k.is_empty() && !k.starts_with('#'))
        };
        let sc = toml::from_str::<Scenario>(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let mut msg = e.message().to_string();
            if msg.contains("untagged enum SizeValue") {
                msg = "expected a size such as \"128k\" or a number of bytes".into();
            } else if msg.contains("untagged enum DurationValue") {
                msg = "expected a duration such as \"90s\" or a number of seconds".into();
            }
            match line {
                Some(l) => match key_on(l) {
                    Some(k) if !msg.contains("unknown field") => {
                        usage(format!("scenario file {name}, line {l}, key '{k}': {msg}"))
                    }
                    _ => usage(format!("scenario file {name}, line {l}: {msg}")),
                },
                None => usage(format!("scenario file {name}: {msg}")),
            }
        })?;
        // Check sizes and durations given as text here, where the file and line are known.
        let line_of = |key: &str| {
            text.lines()
                .position(|l| {
                    l.split_once('=')
                        .is_some_and(|(k, _)| k.trim().trim_matches('"') == key)
                })
                .map(|i| i + 1)
        };
        let bad = |key: &str, err: String| {
            let at = line_of(key)
                .map(|l| format!(", line {l}"))
                .unwrap_or_default();
            usage(format!("scenario file {name}{at}, key '{key}': {err}"))
        };
        for (key, v) in [
            ("bs", &sc.bs),
            ("span", &sc.span),
            ("max_bytes", &sc.max_bytes),
        ] {
            if let Some(SizeValue::Text(t)) = v {
                parse_size(t).map_err(|e| bad(key, e.to_string()))?;
            }
        }
        for (key, v) in [("interval", &sc.interval), ("duration", &sc.duration)] {
            if let Some(DurationValue::Text(t)) = v {
                parse_duration(t).map_err(|e| bad(key, e.to_string()))?;
            }
        }
        Ok(sc)
    }
}

/// The workload after defaults, scenario and flags are merged and checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadConfig {
    /// Access pattern.
    pub pattern: Pattern,
    /// Percentage of reads (0 for the write patterns, 100 for the read patterns, the
    /// `--rwmix-read` share for the mixed ones).
    #[serde(default)]
    pub read_pct: u32,
    /// Block size in bytes.
    pub block_size: u64,
    /// Queue depth per job.
    pub queue_depth: u32,
    /// Jobs.
    pub jobs: u32,
    /// Sampling interval.
    #[serde(with = "secs")]
    pub interval: Duration,
    /// Limit on the written range in bytes, if any.
    pub span: Option<u64>,
    /// Time limit, if any.
    #[serde(with = "opt_secs")]
    pub duration: Option<Duration>,
    /// Byte limit, if any.
    pub max_bytes: Option<u64>,
    /// Byte limit in passes over the span, if any.
    pub passes: Option<f64>,
    /// Seed for offsets and data.
    pub seed: u64,
    /// The scenario file used, if any.
    pub scenario: Option<PathBuf>,
    /// The scenario's description, if any.
    pub description: Option<String>,
}

mod secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Duration::try_from_secs_f64(f64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

mod opt_secs {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(Duration::try_from_secs_f64)
            .transpose()
            .map_err(serde::de::Error::custom)
    }
}

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
            return Err(usage(format!(
                "{} {:?} is too short; the shortest is 10ms",
                origin(args.interval.is_some(), "interval", "interval"),
                interval
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

/// The early-stop configuration from `--no-early-stop` and `--after-cliff`.
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
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        })
        .unwrap();
        assert!(!c.early_stop);
        let c = stop_config(&StopArgs {
            no_early_stop: false,
            after_cliff: Some("2m".into()),
        })
        .unwrap();
        assert_eq!(c.after_cliff_s, 120.0);
        for bad in ["0s", "soon", "2d"] {
            let e = stop_config(&StopArgs {
                no_early_stop: false,
                after_cliff: Some(bad.into()),
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
}
