//! Which drive a recorded run measured, and the drive's name: the one rule by which `history`,
//! `runs --by drive` and the drive filter of `runs --html` put runs together.

use std::collections::BTreeMap;

use super::RunRow;
use crate::units::{format_bytes, UnitSystem};

/// The drive a run measured: its serial, else its model (or label), capacity and kind, so
/// that drives of another capacity or kind are never taken for one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DriveKey {
    /// A drive with a serial number.
    Serial(String),
    /// A drive without one: model, capacity (bytes), kind, and for an emulated or simulated
    /// drive the spec it was made from (`emu:960evo-500g,cache=2GB`): two specs of one preset
    /// are two drives.
    Model(String, Option<i64>, &'static str, Option<String>),
}

/// The kind of drive of an analysis of a file that named none.
pub const NOT_RECORDED: &str = "drive not recorded";

/// The kind of a target that is a regular file, not a drive.
pub const FILE: &str = "file";

/// The kinds `history --drive-kind` takes, as [`DriveOf::kind_of_drive`] names them.
pub const KINDS: [&str; 4] = ["real", FILE, "emulated", "simulated"];

/// What the drive rule reads of a run: its kind, target and drive columns, borrowed (from a
/// [`RunRow`], or from the row the backend holds for `runs --by`,
/// [`super::GroupRow`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DriveOf<'a> {
    /// The run's kind (`probe`, `simulate`, ...).
    pub kind: &'a str,
    /// The target as given.
    pub target: Option<&'a str>,
    /// Serial number.
    pub serial: Option<&'a str>,
    /// Drive model.
    pub model: Option<&'a str>,
    /// The run's label.
    pub label: Option<&'a str>,
    /// Capacity, bytes.
    pub capacity_bytes: Option<i64>,
}

impl<'a> DriveOf<'a> {
    /// The drive columns of `r`.
    pub fn of(r: &'a RunRow) -> DriveOf<'a> {
        DriveOf {
            kind: &r.kind,
            target: r.target.as_deref(),
            serial: r.serial.as_deref(),
            model: r.model.as_deref(),
            label: r.label.as_deref(),
            capacity_bytes: r.capacity_bytes,
        }
    }

    /// An analysis of a file that named no drive (a two-column CSV, a fio log): its name is
    /// the file's, not a drive's, as its report says ("not recorded in the input").
    pub fn drive_not_recorded(&self) -> bool {
        self.kind == "analyze" && self.target.is_none() && self.model.is_none()
    }

    /// Whether the run wrote to a real drive (a block device, under `/dev/`), a regular file
    /// (`file`: any other path), an emulated drive (`emu:`) or a simulated one;
    /// [`NOT_RECORDED`] for an analysis of a file that named none. Read from the target each
    /// time, so runs recorded before files had a kind of their own are named the same way.
    pub fn kind_of_drive(&self) -> &'static str {
        let t = self.target.unwrap_or("");
        // A sweep, recovery or fill-sweep of an `emu:` drive with `--simulate` ran its model
        // in virtual time, as its model's name says: simulated ("... 250GB (simulated),
        // emulated" named one in `runs --by drive`).
        let simulated_model = self.model.is_some_and(|m| m.ends_with("(simulated)"));
        if self.kind == "simulate" || t.starts_with("sim:") || simulated_model {
            "simulated"
        } else if t.starts_with("emu:") {
            "emulated"
        } else if self.drive_not_recorded() {
            NOT_RECORDED
        } else if self
            .target
            .is_some_and(|t| !t.is_empty() && !t.starts_with("/dev/"))
        {
            FILE
        } else {
            "real"
        }
    }

    /// The drive of the run.
    pub fn key(&self) -> DriveKey {
        match self.serial.map(str::trim).filter(|s| !s.is_empty()) {
            Some(s) => DriveKey::Serial(s.to_string()),
            None => DriveKey::Model(
                self.model.or(self.label).unwrap_or("-").to_string(),
                self.capacity_bytes,
                self.kind_of_drive(),
                self.made_from().map(str::to_string),
            ),
        }
    }

    /// The spec an emulated or simulated drive was made from (its target, `emu:...` or
    /// `sim:...`); `None` for a real drive and a file (a path is no spec).
    fn made_from(&self) -> Option<&'a str> {
        matches!(self.kind_of_drive(), "emulated" | "simulated")
            .then_some(self.target)
            .flatten()
    }
}

/// Whether a run wrote to a real drive, a file, an emulated one (`emu:`) or a simulated one.
pub fn drive_kind(r: &RunRow) -> &'static str {
    DriveOf::of(r).kind_of_drive()
}

/// The drive of a run.
pub fn drive_key(r: &RunRow) -> DriveKey {
    DriveOf::of(r).key()
}

/// The options an emulated or simulated drive was made with, beyond its preset
/// (`cache=1GB` of `emu:960evo-500g,cache=1GB`); `None` for a preset as it is and a real drive.
pub fn options_made_with(r: &RunRow) -> Option<String> {
    DriveOf::of(r)
        .made_from()?
        .split_once(',')
        .map(|(_, o)| o.to_string())
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
    let mut m = Measurements::default();
    for r in rows {
        m.push(r.started_at.as_deref(), r.kind == "analyze", r.id, *r);
    }
    m.finish()
}

/// [`one_per_measurement`] for runs given one at a time, each with what the caller keeps of
/// it (`T`), so that a listing of many runs is folded as it is read: runs are pushed with
/// their start time, whether they are an `analyze` and their id; [`Measurements::finish`]
/// gives what was kept of each run that stays, in the order pushed.
#[derive(Debug)]
pub struct Measurements<T> {
    /// What is kept of each run, and for an analysis with a start time, that start's slot.
    runs: Vec<(T, Option<usize>)>,
    /// The slot of each start time.
    slot_of: std::collections::HashMap<String, usize>,
    /// Per start: whether a run that is no analysis has it, and the analysis of least id
    /// (its id and its place in `runs`).
    slots: Vec<(bool, Option<(i64, usize)>)>,
}

impl<T> Default for Measurements<T> {
    fn default() -> Self {
        Measurements {
            runs: Vec::new(),
            slot_of: std::collections::HashMap::new(),
            slots: Vec::new(),
        }
    }
}

impl<T> Measurements<T> {
    /// One run: its start time, whether it is an `analyze`, its id, what is kept of it.
    pub fn push(&mut self, started_at: Option<&str>, analyze: bool, id: i64, kept: T) {
        let Some(at) = started_at else {
            self.runs.push((kept, None));
            return;
        };
        let slot = match self.slot_of.get(at) {
            Some(&s) => s,
            None => {
                self.slots.push((false, None));
                self.slot_of.insert(at.to_string(), self.slots.len() - 1);
                self.slots.len() - 1
            }
        };
        let place = self.runs.len();
        let (measured, first) = &mut self.slots[slot];
        if analyze {
            if first.is_none_or(|(least, _)| id < least) {
                *first = Some((id, place));
            }
            self.runs.push((kept, Some(slot)));
        } else {
            *measured = true;
            self.runs.push((kept, None));
        }
    }

    /// What was kept of each run that stays, in the order pushed.
    pub fn finish(self) -> Vec<T> {
        let slots = self.slots;
        self.runs
            .into_iter()
            .enumerate()
            .filter(|(place, (_, slot))| match slot {
                Some(s) => !slots[*s].0 && slots[*s].1.map(|(_, p)| p) == Some(*place),
                None => true,
            })
            .map(|(_, (kept, _))| kept)
            .collect()
    }
}

/// How a drive is named: model or serial, capacity (in `units`) and kind, and the spec an
/// emulated drive was made from where the preset's name alone would not say it; `rows` are
/// the drive's runs (a serial's model is its latest run's).
pub fn drive_name(key: &DriveKey, rows: &[&RunRow], units: UnitSystem) -> String {
    let last = DriveOf::of(rows.last().expect("a drive has runs"));
    drive_name_of(key, &last, units)
}

/// [`drive_name`] from the drive columns of the drive's latest run (`last`).
pub fn drive_name_of(key: &DriveKey, last: &DriveOf, units: UnitSystem) -> String {
    let cap = |c: Option<i64>| c.map(|c| format_bytes(c as f64, units));
    match key {
        DriveKey::Serial(s) => {
            let model = last.model.or(last.label).map(str::to_string);
            let mut parts: Vec<String> = model.into_iter().collect();
            parts.extend(cap(last.capacity_bytes));
            parts.push(last.kind_of_drive().to_string());
            format!("serial {s}: {}", parts.join(", "))
        }
        // The file's name, said not to be a drive's.
        DriveKey::Model(m, _, k, _) if *k == NOT_RECORDED => format!("{m} ({NOT_RECORDED})"),
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
    use super::*;

    /// A sweep of an `emu:` drive run with `--simulate` is of a simulated drive, as its model
    /// says: `runs --by drive` named it "Samsung SSD 960 EVO 250GB (simulated), emulated".
    #[test]
    fn a_simulated_run_of_an_emulated_drive_is_simulated() {
        let d = DriveOf {
            kind: "sweep",
            target: Some("emu:960evo-250g"),
            model: Some("Samsung SSD 960 EVO 250GB (simulated)"),
            capacity_bytes: Some(250_000_000_000),
            ..DriveOf::default()
        };
        assert_eq!(d.kind_of_drive(), "simulated");
        let name = drive_name_of(&d.key(), &d, UnitSystem::Decimal);
        assert!(!name.contains("emulated"), "{name}");
        let emu = DriveOf {
            model: Some("Samsung SSD 960 EVO 250GB (emulated)"),
            ..d
        };
        assert_eq!(emu.kind_of_drive(), "emulated");
    }

    /// Runs given one at a time keep each measurement once, whatever their order: an analysis
    /// that comes before the run it read again, analyses of one start only (the least id
    /// stays, wherever it comes), runs with no start and runs of other starts all as given.
    #[test]
    fn each_measurement_once_in_any_order() {
        // (start, analyze, id)
        let runs: [(Option<&str>, bool, i64); 7] = [
            (Some("t1"), true, 7),
            (Some("t2"), true, 5),
            (Some("t1"), false, 2),
            (None, true, 9),
            (Some("t2"), true, 4),
            (Some("t3"), false, 6),
            (Some("t3"), false, 8),
        ];
        let mut m = Measurements::default();
        for (at, analyze, id) in runs {
            m.push(at, analyze, id, id);
        }
        assert_eq!(m.finish(), [2, 9, 4, 6, 8]);
        let rows: Vec<RunRow> = runs
            .iter()
            .map(|&(at, analyze, id)| RunRow {
                id,
                kind: if analyze { "analyze" } else { "probe" }.into(),
                started_at: at.map(str::to_string),
                ..RunRow::default()
            })
            .collect();
        let refs: Vec<&RunRow> = rows.iter().collect();
        let kept: Vec<i64> = one_per_measurement(&refs).iter().map(|r| r.id).collect();
        assert_eq!(kept, [2, 9, 4, 6, 8]);
    }

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
