//! Which drive a recorded run measured, and the drive's name: the one rule by which `history`,
//! `runs --by drive` and the drive filter of `runs --html` put runs together.

use std::collections::BTreeMap;

use super::RunRow;
use crate::units::{format_bytes, UnitSystem};

/// The drive a run measured: its serial, else its model (or label), capacity and kind, so
/// that drives of another capacity or kind are never taken for one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriveKey {
    /// A drive with a serial number.
    Serial(String),
    /// A drive without one: model, capacity (bytes), kind, and for an emulated or simulated
    /// drive the spec it was made from (`emu:960evo-500g,cache=2GB`): two specs of one preset
    /// are two drives.
    Model(String, Option<i64>, &'static str, Option<String>),
}

/// Whether a run wrote to a real drive, an emulated one (`emu:`) or a simulated one.
pub fn drive_kind(r: &RunRow) -> &'static str {
    let t = r.target.as_deref().unwrap_or("");
    if r.kind == "simulate" || t.starts_with("sim:") {
        "simulated"
    } else if t.starts_with("emu:") {
        "emulated"
    } else {
        "real"
    }
}

/// The drive of a run.
pub fn drive_key(r: &RunRow) -> DriveKey {
    match r.serial.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => DriveKey::Serial(s.to_string()),
        None => DriveKey::Model(
            r.model
                .clone()
                .or_else(|| r.label.clone())
                .unwrap_or_else(|| "-".into()),
            r.capacity_bytes,
            drive_kind(r),
            made_from(r),
        ),
    }
}

/// The spec an emulated or simulated drive was made from (its target, `emu:...` or
/// `sim:...`); `None` for a real drive.
fn made_from(r: &RunRow) -> Option<String> {
    (drive_kind(r) != "real")
        .then(|| r.target.clone())
        .flatten()
}

/// The options an emulated or simulated drive was made with, beyond its preset
/// (`cache=1GB` of `emu:960evo-500g,cache=1GB`); `None` for a preset as it is and a real drive.
pub fn options_made_with(r: &RunRow) -> Option<String> {
    made_from(r)?.split_once(',').map(|(_, o)| o.to_string())
}

/// `rows` by the drive each measured, in the order of their keys.
pub fn by_drive<'a>(
    rows: impl IntoIterator<Item = &'a RunRow>,
) -> BTreeMap<DriveKey, Vec<&'a RunRow>> {
    let mut drives: BTreeMap<DriveKey, Vec<&RunRow>> = BTreeMap::new();
    for r in rows {
        drives.entry(drive_key(r)).or_default().push(r);
    }
    drives
}

/// `rows` (one drive's) with each measurement once: an `analyze` that shares its start time
/// with another of `rows` read that run's recorded timeline again (an analysis of a run's
/// `timeline.csv` keeps the run's start, stamped to the nanosecond), so it is left out: the
/// run that measured stays, and where only analyses of it are there, the first recorded.
/// Every other run stays, in the order given.
pub fn one_per_measurement<'a>(rows: &[&'a RunRow]) -> Vec<&'a RunRow> {
    // Per start time, the row that stands for the measurement.
    let mut kept: BTreeMap<&str, &RunRow> = BTreeMap::new();
    for r in rows {
        if let Some(at) = r.started_at.as_deref() {
            let slot = kept.entry(at).or_insert(r);
            let rank = |r: &RunRow| (r.kind == "analyze", r.id);
            if rank(r) < rank(slot) {
                *slot = r;
            }
        }
    }
    rows.iter()
        .copied()
        .filter(|r| match r.started_at.as_deref() {
            Some(at) if r.kind == "analyze" => std::ptr::eq(kept[at], *r),
            _ => true,
        })
        .collect()
}

/// How a drive is named: model or serial, capacity (in `units`) and kind, and the spec an
/// emulated drive was made from where the preset's name alone would not say it; `rows` are
/// the drive's runs (a serial's model is its latest run's).
pub fn drive_name(key: &DriveKey, rows: &[&RunRow], units: UnitSystem) -> String {
    let cap = |c: Option<i64>| c.map(|c| format_bytes(c as f64, units));
    match key {
        DriveKey::Serial(s) => {
            let r = rows.last().expect("a drive has runs");
            let model = r.model.clone().or_else(|| r.label.clone());
            let mut parts: Vec<String> = model.into_iter().collect();
            parts.extend(cap(r.capacity_bytes));
            parts.push(drive_kind(r).to_string());
            format!("serial {s}: {}", parts.join(", "))
        }
        DriveKey::Model(m, c, k, spec) => {
            // The capacity, unless the model's name gives it already ("... 500GB", "P5 1TB"
            // for 1.00 TB; in binary units the GiB are said).
            let squeeze = |s: &str| s.replace(' ', "").to_lowercase();
            let mut parts: Vec<String> = cap(*c)
                .filter(|cs| {
                    let named = units == UnitSystem::Decimal
                        && c.is_some_and(|b| names_capacity(m, b as f64));
                    !named && !squeeze(m).contains(&squeeze(cs))
                })
                .into_iter()
                .collect();
            if !m.contains(k) {
                parts.push(k.to_string());
            }
            // `emu:960evo-500g,cache=2GB` is not the preset as the model names it: its options
            // said, as `runs` says them (`cache=2GB`).
            if let Some((_, options)) = spec.as_deref().and_then(|s| s.split_once(',')) {
                parts.push(options.to_string());
            }
            if parts.is_empty() {
                m.clone()
            } else {
                format!("{m}, {}", parts.join(", "))
            }
        }
    }
}

/// Whether a model's name gives its capacity (`960 EVO 500GB`, `P5 1TB`, `PM983 960GB`): a
/// word of a number and GB or TB within 5% of `bytes`, as a drive's marketed capacity is of
/// what it holds.
fn names_capacity(model: &str, bytes: f64) -> bool {
    model.split_whitespace().any(|w| {
        let w = w.to_ascii_uppercase();
        let (num, scale) = if let Some(n) = w.strip_suffix("TB") {
            (n, 1e12)
        } else if let Some(n) = w.strip_suffix("GB") {
            (n, 1e9)
        } else {
            return false;
        };
        num.parse::<f64>()
            .is_ok_and(|n| n > 0.0 && (n * scale - bytes).abs() <= 0.05 * bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::names_capacity;

    /// "Crucial P5 1TB (simulated), 1.00 TB" gave the capacity twice; a model whose name gives
    /// another capacity, or none, keeps it.
    #[test]
    fn a_name_that_gives_the_capacity_is_not_given_it_again() {
        assert!(names_capacity("Crucial P5 1TB", 1.0e12));
        assert!(names_capacity("Samsung SSD 960 EVO 500GB", 500.107e9));
        assert!(names_capacity("Samsung PM983 960GB", 960.2e9));
        assert!(!names_capacity("Samsung SSD 960 EVO 500GB", 250.0e9));
        assert!(!names_capacity("QEMU NVMe Ctrl", 1.0e12));
        assert!(!names_capacity("HP FX700 2TB", 1.0e12));
    }
}
