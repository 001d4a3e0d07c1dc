//! Validated configuration: defaults < scenario file < command-line flags.
//!
//! `cli` types are turned into a [`WorkloadConfig`] here; nothing below this module sees clap.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

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
    /// The value as written: a byte count or the text as given.
    pub fn text(&self) -> String {
        match self {
            SizeValue::Bytes(b) => b.to_string(),
            SizeValue::Text(s) => s.clone(),
        }
    }
}

impl DurationValue {
    /// The value as written: seconds or the text as given.
    pub fn text(&self) -> String {
        match self {
            DurationValue::Seconds(s) => s.to_string(),
            DurationValue::Text(s) => s.clone(),
        }
    }
}

impl Scenario {
    /// Reads and checks a scenario file. Errors name the file, the line and the key.
    pub fn load(path: &Path) -> Result<Scenario> {
        // A name without a file of that name is one of the scenarios built in from
        // `scenarios/` (so `--scenario iometer-128k-seq-qd32` works outside the repository).
        if !path.exists() {
            let stem = path.to_string_lossy();
            let stem = stem
                .strip_prefix("scenarios/")
                .unwrap_or(&stem)
                .trim_end_matches(".toml");
            if let Some((name, text)) = BUILT_IN_SCENARIOS.iter().find(|(n, _)| *n == stem) {
                return Scenario::parse(text, &format!("scenarios/{name}.toml (built in)"));
            }
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            usage(format!(
                "scenario file {}: {e}; the built-in scenarios are {}",
                path.display(),
                BUILT_IN_SCENARIOS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
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

/// The scenarios of `scenarios/`, built into the binary: (name, TOML text).
pub const BUILT_IN_SCENARIOS: &[(&str, &str)] = &[
    (
        "anandtech-whole-drive-fill",
        include_str!("../scenarios/anandtech-whole-drive-fill.toml"),
    ),
    ("cdm-4k-q8t8", include_str!("../scenarios/cdm-4k-q8t8.toml")),
    (
        "cdm-seq-q32t1",
        include_str!("../scenarios/cdm-seq-q32t1.toml"),
    ),
    (
        "iometer-128k-seq-qd32",
        include_str!("../scenarios/iometer-128k-seq-qd32.toml"),
    ),
    (
        "seed-960evo-4k-qd32-4jobs",
        include_str!("../scenarios/seed-960evo-4k-qd32-4jobs.toml"),
    ),
    (
        "snia-write-saturation",
        include_str!("../scenarios/snia-write-saturation.toml"),
    ),
    (
        "techpowerup-1m-seq",
        include_str!("../scenarios/techpowerup-1m-seq.toml"),
    ),
];

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

/// The target and options that the burst experiments (`recovery`, `fill-sweep`) share, after
/// the flags are checked.
#[derive(Debug, Clone)]
pub struct BurstTargetConfig {
    /// The target as given (`emu:` specs, files, block devices).
    pub target: String,
    /// Run a model in virtual time.
    pub simulate: bool,
    /// The bursts' workload.
    pub workload: WorkloadConfig,
    /// When a burst stops after its cliff.
    pub stop: crate::detect::stop::StopConfig,
    /// `--size` for a file that does not exist yet, bytes.
    pub size: Option<u64>,
    /// `--overwrite`: an existing file may be written over.
    pub overwrite: bool,
    /// `--destroy-data`: a block device may be written over.
    pub destroy_data: bool,
    /// The engine on a real target.
    pub engine: crate::workload::EngineKind,
    /// No progress on stderr.
    pub quiet: bool,
    /// `--out`, if given.
    pub out: Option<PathBuf>,
    /// `--force`: write into an `--out` folder that already holds files.
    pub force: bool,
}
