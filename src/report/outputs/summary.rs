//! `summary.json` of a run: its types ([`Summary`], [`Totals`], [`DriveState`],
//! [`StopRecord`]), its writer, and the readers of what other versions wrote.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::detect::stop::{StopConfig, StopRule};
use crate::detect::Analysis;
use crate::device::host::HostInfo;
use crate::health::ata::{AtaIdentify, AtaSmart};
use crate::health::HealthLog;
use crate::report::outputs::file::write_file;
pub use crate::results::drive_state::DriveStateRecord;
use crate::timeline::{RunMeta, StopReason, Timeline};

/// Totals of a run, for `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Bytes written.
    pub bytes: u64,
    /// Writes completed.
    pub writes: u64,
    /// Duration in seconds.
    pub duration_s: f64,
    /// Mean throughput, bytes/s.
    pub mean_bytes_per_sec: f64,
    /// Bytes read (runs with reads; 0 for a run that only wrote).
    #[serde(default)]
    pub read_bytes: u64,
    /// Reads completed.
    #[serde(default)]
    pub reads: u64,
    /// Mean read throughput, bytes/s.
    #[serde(default)]
    pub mean_read_bytes_per_sec: f64,
}

impl Totals {
    /// Totals of a timeline: its bytes and duration, and `ios` writes and reads completed (the
    /// reads among them are counted from the timeline's read columns).
    pub fn of(t: &Timeline, ios: u64) -> Totals {
        let duration_s = t.duration_s();
        let per_s = |b: u64| {
            if duration_s > 0.0 {
                b as f64 / duration_s
            } else {
                0.0
            }
        };
        let reads = t.reads_total().min(ios);
        Totals {
            bytes: t.bytes_total(),
            writes: ios - reads,
            duration_s,
            mean_bytes_per_sec: per_s(t.bytes_total()),
            read_bytes: t.read_bytes_total(),
            reads,
            mean_read_bytes_per_sec: per_s(t.read_bytes_total()),
        }
    }
}

/// The drive's state around the run, as the drive reported it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriveState {
    /// Temperature when the run started, °C (SMART on NVMe, the model on emulated drives,
    /// else hwmon).
    #[serde(default)]
    pub temperature_start_c: Option<f64>,
    /// Temperature when the run ended, °C.
    #[serde(default)]
    pub temperature_end_c: Option<f64>,
    /// The SMART / Health log when the run started (NVMe and emulated drives).
    #[serde(default)]
    pub smart_start: Option<HealthLog>,
    /// The SMART / Health log when the run ended.
    #[serde(default)]
    pub smart_end: Option<HealthLog>,
    /// An ATA drive's IDENTIFY DEVICE, read when the target was inspected (SATA, or USB
    /// through a bridge that speaks SAT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ata_identify: Option<AtaIdentify>,
    /// An ATA drive's SATA link as the kernel's libata reports it (sysfs `sata_spd`): the
    /// link's speed where IDENTIFY gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libata_link: Option<crate::health::ata::LibataLink>,
    /// An ATA drive's SMART attributes when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ata_smart_start: Option<AtaSmart>,
    /// An ATA drive's SMART attributes when the run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ata_smart_end: Option<AtaSmart>,
    /// Why a SCSI disk's ATA identity and SMART are missing, in one line (a USB bridge
    /// that refuses SAT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ata_note: Option<String>,
    /// What was done to reach the starting state (`--trim`, `--prefill`, `--idle-before`)
    /// and the fill level at the start; its keys sit directly under `drive_state`.
    #[serde(flatten)]
    pub preparation: DriveStateRecord,
}

/// The content of `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// slccache version.
    pub slccache_version: String,
    /// Where the run came from: its host and the lab's tags (`--host`, `--tag`). Summaries
    /// written before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::Origin>,
    /// The configuration the run used (subcommand-specific).
    pub config: serde_json::Value,
    /// The drive model's truth (models only): `{"cache": ...}`, see
    /// [`crate::results::ModelTruth`]. Files of older versions held it under
    /// `config.model_truth` (probe) or `config.truth` (simulate); [`model_truth_of`] reads
    /// those too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_truth: Option<serde_json::Value>,
    /// Device identity, workload, start time, stop reason.
    pub run: RunMeta,
    /// Totals.
    pub totals: Totals,
    /// True when the run was stopped by Ctrl-C or SIGTERM.
    pub interrupted: bool,
    /// The write error that stopped the run, if any (with offset and time).
    pub error: Option<String>,
    /// The analysis of the timeline.
    pub analysis: Analysis,
    /// The run's findings ([`crate::detect::Findings`]): what every output states, worked out
    /// from `analysis` when the file is written. Summaries written before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings: Option<crate::detect::Findings>,
    /// How the run ended: the early stop, the bytes written after the cliff, the wear
    /// (`probe` and `simulate`).
    #[serde(default)]
    pub stop: Option<StopRecord>,
    /// The machine and the device's queue (kernel, CPU, scheduler, write cache, PCIe link);
    /// probes only.
    #[serde(default)]
    pub host: Option<HostInfo>,
    /// The drive's state around the run (temperature, SMART snapshots).
    #[serde(default)]
    pub drive_state: Option<DriveState>,
}

/// How a run ended, for `summary.json`: why it stopped, the early stop's figures, and how
/// much was written (the wear the test cost).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    /// Why the run stopped (also under `run.stop_reason`).
    pub reason: Option<StopReason>,
    /// Whether the early stop was on (off with `--no-early-stop`).
    pub early_stop: bool,
    /// `--after-cliff`, seconds.
    pub after_cliff_s: f64,
    /// The hold time after the cliff that applied, seconds, once a cliff was seen.
    pub hold_s: Option<f64>,
    /// Run time at which the early stop found the cliff certain, seconds (only when it
    /// stopped on a cliff).
    pub cliff_confirmed_at_s: Option<f64>,
    /// Run time at which the early stop ended the run on a drop inside the first sample,
    /// seconds (no cliff was confirmed: see [`StopReason::FirstSampleDrop`]); left out
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_sample_drop_at_s: Option<f64>,
    /// Bytes written before the cliff (the cache estimate of the final analysis).
    pub cliff_bytes: Option<u64>,
    /// Bytes written after the cliff.
    pub bytes_after_cliff: Option<u64>,
    /// Bytes written in all: the wear the test cost.
    pub bytes_written: u64,
    /// How many times the cliff seen during the run was withdrawn or moved.
    pub cliff_withdrawn: u32,
}

impl StopRecord {
    /// The record of a run that stopped for `reason` after writing `bytes_written` bytes,
    /// with the early-stop rule `rule` (as it ended) and the final `analysis`.
    pub fn new(
        cfg: StopConfig,
        reason: StopReason,
        rule: Option<&StopRule>,
        analysis: &Analysis,
        bytes_written: u64,
    ) -> StopRecord {
        let cliff = analysis.cache_estimate.as_ref().map(|c| c.bytes);
        let on_drop = rule.and_then(|r| r.stop_reason()) == Some(StopReason::FirstSampleDrop);
        let stopped = rule.and_then(|r| r.stopped_at_s());
        // The hold that applied: that of the cliff the rule stops on (with `--cliffs N` the
        // N-th's, which grows with its tier's length: 118 s for an FX700's second cliff, where
        // the first's 30 s was written), or that of a drop inside the first sample (a cache
        // phase of one interval).
        let hold = rule.and_then(|r| {
            r.target().or(r.estimate()).map(|e| e.hold_s).or_else(|| {
                r.first_sample_drop()
                    .filter(|_| on_drop)
                    .map(|(d, _)| cfg.hold_s(d.t_high_s - d.t_s))
            })
        });
        StopRecord {
            reason: Some(reason),
            early_stop: cfg.early_stop,
            after_cliff_s: cfg.after_cliff_s,
            hold_s: hold,
            cliff_confirmed_at_s: stopped.filter(|_| !on_drop),
            first_sample_drop_at_s: stopped.filter(|_| on_drop),
            cliff_bytes: cliff,
            bytes_after_cliff: cliff.map(|c| bytes_written.saturating_sub(c)),
            bytes_written,
            cliff_withdrawn: rule.map_or(0, |r| r.withdrawn()),
        }
    }
}

/// Writes `summary.json` into `dir` (atomically: a temp file renamed into place).
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<PathBuf> {
    let path = dir.join("summary.json");
    let mut summary = summary.clone();
    summary.findings = Some(crate::detect::Findings::of(&summary.analysis));
    let text = serde_json::to_string_pretty(&summary)?;
    write_file(&path, text + "\n")?;
    Ok(path)
}

/// The model's truth in a `summary.json` of any command and version, in the shape of
/// [`crate::results::ModelTruth`] (`cache`, `recovery`, `sweep`): `model_truth` where it is,
/// else the keys older versions wrote (`config.model_truth` of probe and `config.truth` of
/// simulate, a cache truth; `truth` of recovery and fill-sweep, a recovery truth, and of sweep,
/// a sweep truth). `None` for runs on real drives.
pub fn model_truth_of(summary: &serde_json::Value) -> Option<serde_json::Value> {
    let present = |v: &serde_json::Value| !v.is_null();
    if let Some(t) = summary.get("model_truth").filter(|v| present(v)) {
        return Some(t.clone());
    }
    let cfg = &summary["config"];
    if let Some(t) = cfg
        .get("model_truth")
        .or_else(|| cfg.get("truth"))
        .filter(|v| present(v))
    {
        return Some(serde_json::json!({ "cache": t }));
    }
    let t = summary.get("truth").filter(|v| present(v))?;
    let part = if t.get("iops_limit").is_some() {
        "sweep"
    } else {
        "recovery"
    };
    Some(serde_json::json!({ part: t }))
}

/// The link between host and drive that a run's `summary.json` names, so that a run analysed
/// again (`analyze`, `compare`) says what its own run said of the link: the host record's
/// narrowest link (a probe of a real drive), else the one an analysis kept (`config.link` of
/// `analyze`), else the drive model's (`config.model` of `simulate`, the `emu:` target of an
/// emulated probe). `None` where the summary names none,
/// as older summaries and runs on no known link do.
pub fn link_of(summary: &serde_json::Value) -> Option<crate::link::Link> {
    let host = summary
        .get("host")
        .filter(|h| h.is_object())
        .and_then(|h| serde_json::from_value::<HostInfo>(h.clone()).ok())
        .and_then(|h| h.link());
    if host.is_some() {
        return host;
    }
    let config = summary.get("config")?;
    // An analysis's folder: the link its own run was on.
    if let Some(l) = config.get("link").filter(|l| l.is_object()) {
        return serde_json::from_value(l.clone()).ok();
    }
    if let Some(model) = config.get("model").filter(|m| m.is_object()) {
        return crate::link::Link::parse(model.get("link")?.as_str()?).ok();
    }
    let spec = config.get("target")?.as_str()?.strip_prefix("emu:")?;
    crate::model::presets::parse_spec(spec).ok()?.link_info()
}

/// The drive model's truth of the cache for the run's workload in the `summary.json` at
/// `path` (`model_truth.cache`, or where older versions kept it); `None` for runs on real
/// drives and where it cannot be read.
pub fn read_summary_cache_truth(path: &Path) -> Option<crate::model::Truth> {
    let text = std::fs::read_to_string(path).ok()?;
    let t = model_truth_of(&serde_json::from_str(&text).ok()?)?;
    serde_json::from_value(t.get("cache")?.clone()).ok()
}

/// [`link_of`] the `summary.json` at `path`; `None` where it cannot be read.
pub fn read_summary_link(path: &Path) -> Option<crate::link::Link> {
    let text = std::fs::read_to_string(path).ok()?;
    link_of(&serde_json::from_str(&text).ok()?)
}

/// The `run` object of a `summary.json` (drive, workload, start, stop reason), or `None` if it
/// has none. Other keys are not needed here, so summaries from other versions still work.
pub fn read_summary_meta(path: &Path) -> Result<Option<RunMeta>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| crate::error::usage(format!("{}: not valid JSON: {e}", path.display())))?;
    match v.get("run") {
        None => Ok(None),
        Some(run) => serde_json::from_value(run.clone()).map(Some).map_err(|e| {
            crate::error::usage(format!(
                "{}: the 'run' object is not a slccache run description: {e}",
                path.display()
            ))
        }),
    }
}

/// The `summary.json` of the run that wrote the timeline `file`: the one beside it (a run's
/// `timeline.csv`), else, for a burst's timeline of `recovery` or `fill-sweep`
/// (`DIR/bursts/00-first.csv`), the experiment's in the folder above (`DIR/summary.json`);
/// `None` where there is neither.
pub fn summary_of_timeline(file: &Path) -> Option<PathBuf> {
    let dir = file.parent()?;
    let beside = dir.join("summary.json");
    if beside.is_file() {
        return Some(beside);
    }
    burst_name(file)?;
    Some(dir.parent()?.join("summary.json")).filter(|s| s.is_file())
}

/// The file name of `file` where it is a burst's timeline in an experiment's `bursts/`
/// folder (`00-first.csv`), else `None`.
fn burst_name(file: &Path) -> Option<&str> {
    let dir = file.parent()?;
    let name = file.file_name()?.to_str()?;
    (dir.file_name()? == "bursts" && super::outdir::is_burst_name(name)).then_some(name)
}

/// The run description of the timeline `file` from `summary`, the `summary.json` of the run
/// that wrote it ([`summary_of_timeline`]): its `run` object ([`read_summary_meta`]); for a
/// burst's timeline the experiment's drive, workload and start, labelled with the drive and
/// the burst as the experiment names it (`Samsung SSD 970 EVO 500GB, first burst`), with no
/// stop reason (the experiment's is not the burst's, which its summary gives as the burst's
/// `end`).
pub fn read_timeline_meta(file: &Path, summary: &Path) -> Result<Option<RunMeta>> {
    let Some(mut meta) = read_summary_meta(summary)? else {
        return Ok(None);
    };
    let Some(name) = burst_name(file).filter(|_| file.parent() != summary.parent()) else {
        return Ok(Some(meta));
    };
    // The burst's own label in the experiment's summary ("first burst", "idle 10 s"), found
    // by its timeline's path wherever the summary lists it.
    let rel = format!("bursts/{name}");
    let v: Option<serde_json::Value> = std::fs::read_to_string(summary)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let burst = v
        .as_ref()
        .and_then(|v| burst_label(v, &rel))
        .unwrap_or_else(|| format!("burst {}", name.trim_end_matches(".csv")));
    // How the burst ended (its `end` in the experiment's summary), as the experiment said
    // of it, where that is a reason a run stops: a burst that Ctrl-C or SIGTERM ended was
    // interrupted, and one whose cliff held ended on it (report.md of `analyze` of a burst's
    // CSV said "Stop reason: unknown" of a burst its experiment said ended on its cliff).
    let end = v
        .as_ref()
        .and_then(|v| burst_object(v, &rel))
        .and_then(|b| b.get("end").and_then(|e| e.as_str()))
        .and_then(|e| match e {
            "interrupted" => Some(StopReason::Interrupted),
            "cliff_confirmed" => Some(StopReason::CliffConfirmed),
            _ => None,
        });
    let drive = match meta.label.trim() {
        "" => meta.device.model.clone().unwrap_or_default(),
        l => l.to_string(),
    };
    meta.label = if drive.trim().is_empty() {
        burst
    } else {
        format!("{drive}, {burst}")
    };
    meta.stop_reason = end;
    Ok(Some(meta))
}

/// The `label` of the object in `v` whose `timeline` is `rel` ([`burst_object`]).
fn burst_label(v: &serde_json::Value, rel: &str) -> Option<String> {
    burst_object(v, rel)?
        .get("label")
        .and_then(|l| l.as_str())
        .map(str::to_string)
}

/// The object in `v` whose `timeline` is `rel`, searched depth first.
fn burst_object<'v>(v: &'v serde_json::Value, rel: &str) -> Option<&'v serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => {
            if m.get("timeline").and_then(|t| t.as_str()) == Some(rel) {
                return Some(v);
            }
            m.values().find_map(|x| burst_object(x, rel))
        }
        serde_json::Value::Array(a) => a.iter().find_map(|x| burst_object(x, rel)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `summary.json` with the drive's state reads back as written, 128-bit counters included.
    #[test]
    fn summary_with_drive_state_round_trips() {
        let t = Timeline::from_rates(&[(1.0, 1.0, 1e9), (2.0, 1.0, 1e9)], RunMeta::default());
        let end = HealthLog {
            data_units_written: (1u128 << 70) + 3,
            temperature_c: Some(44.85),
            thermal_mgmt_t1_transitions: 2,
            ..HealthLog::default()
        };
        let s = Summary {
            slccache_version: "x".into(),
            origin: None,
            config: serde_json::json!({}),
            model_truth: None,
            run: t.meta.clone(),
            totals: Totals::of(&t, 2),
            interrupted: false,
            error: None,
            analysis: crate::detect::analyze(&t),
            findings: None,
            stop: None,
            host: Some(HostInfo {
                kernel: Some("6.8.0".into()),
                cores: Some(8),
                ..HostInfo::default()
            }),
            drive_state: Some(DriveState {
                temperature_start_c: Some(31.0),
                temperature_end_c: Some(44.85),
                smart_start: Some(HealthLog::default()),
                smart_end: Some(end),
                ata_identify: Some(
                    crate::health::ata::parse_identify(
                        &crate::health::ata::pages::samsung_identify(),
                    )
                    .unwrap(),
                ),
                libata_link: None,
                ata_smart_start: Some(
                    crate::health::ata::parse_smart(
                        &crate::health::ata::pages::samsung_smart(1000),
                        None,
                        "Samsung SSD 870 EVO 1TB",
                    )
                    .unwrap(),
                ),
                ata_smart_end: None,
                ata_note: Some("a note".into()),
                preparation: DriveStateRecord {
                    trimmed: true,
                    prefill_pct: Some(50.0),
                    ..DriveStateRecord::default()
                },
            }),
        };
        let dir = tempfile::tempdir().unwrap();
        let p = write_summary(dir.path(), &s).unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.contains("\"data_units_written\": 1180591620717411303427"),
            "{text}"
        );
        // The preparation's keys sit directly under drive_state, beside the temperatures.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["drive_state"]["trimmed"], true, "{text}");
        assert_eq!(v["drive_state"]["prefill_pct"], 50.0, "{text}");
        assert_eq!(v["drive_state"]["temperature_start_c"], 31.0, "{text}");
        let back: Summary = serde_json::from_str(&text).unwrap();
        // The file holds the findings, worked out from its analysis.
        assert_eq!(
            back.findings,
            Some(crate::detect::Findings::of(&s.analysis))
        );
        // Warnings are their sentences in the file: read back, their kind is not known.
        let mut want = s.clone();
        for w in &mut want.analysis.warnings {
            w.kind = crate::detect::WarningKind::Recorded;
        }
        assert_eq!(
            Summary {
                findings: None,
                ..back
            },
            want
        );
        // Summaries written before these sections existed still read.
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("host");
        o.remove("drive_state");
        let old: Summary = serde_json::from_value(v).unwrap();
        assert_eq!((old.host, old.drive_state), (None, None));
    }
}
