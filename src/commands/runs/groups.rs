//! `slccache runs --by host|drive|tag:KEY`: the runs in groups, with the count, median and
//! range of the cache size and of the after-cache rate of each. By drive, each workload of a
//! drive is a group of its own: a 4K random run and a 128K sequential one measure different
//! caches and rates, and no median takes both in. A median that takes in what a run's own
//! line hedges (a size a hidden first tier could make a later tier's, a rate that left heat
//! out or that a slower tier may follow) is marked as `runs` marks that run's figure.

use anyhow::Result;

use std::collections::{BTreeMap, HashMap};

use super::table::{after_mark_note, AFTER_MARKS};
use crate::detect::AfterCaveats;
use crate::store::drive::{drive_name_of, DriveKey, DriveOf, Measurements};
use crate::store::{GroupRow, Grouped, RunAt, RunRow};
use crate::units::{count_text, format_bytes, format_rate, UnitSystem};

/// `--by`: what the runs are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupBy {
    /// The host that ran it.
    Host,
    /// The drive, as `history` takes one ([`crate::store::drive`]): its serial, else its
    /// model, capacity and kind, and for an emulated or simulated drive the spec it was made
    /// from; and the workload, each of a drive's a group of its own.
    Drive,
    /// The value of one tag.
    Tag(String),
}

impl GroupBy {
    /// `host`, `drive` or `tag:KEY`.
    pub fn parse(s: &str) -> Result<GroupBy> {
        match s.trim() {
            "host" => Ok(GroupBy::Host),
            "drive" => Ok(GroupBy::Drive),
            t => match t.strip_prefix("tag:") {
                Some(k) if crate::origin::valid_key(k) => Ok(GroupBy::Tag(k.to_string())),
                _ => Err(crate::error::usage(format!(
                    "--by '{s}': give host, drive or tag:KEY (e.g. tag:rack)"
                ))),
            },
        }
    }

    /// What the store reads for it ([`crate::store::Store::each_for_grouping`]).
    pub fn grouped(&self) -> Grouped {
        match self {
            GroupBy::Host => Grouped::Host,
            GroupBy::Drive => Grouped::Drive,
            GroupBy::Tag(_) => Grouped::Tag,
        }
    }

    fn name(&self) -> String {
        match self {
            GroupBy::Host => "host".into(),
            GroupBy::Drive => "drive".into(),
            GroupBy::Tag(k) => format!("tag:{k}"),
        }
    }
}

/// The median and range of one figure over a group's runs that have it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Runs with this figure.
    pub runs: usize,
    /// Their median.
    pub median: f64,
    /// The least.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// Of `values`; `None` when there are none.
    pub fn of(mut values: Vec<f64>) -> Option<Spread> {
        values.retain(|v| v.is_finite());
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Some(Spread {
            runs: n,
            median,
            min: values[0],
            max: values[n - 1],
        })
    }
}

/// One line of `runs --by`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Group {
    /// `host`, `drive` or `tag:KEY`.
    pub by: String,
    /// The host, drive or tag value (`-`: none).
    pub group: String,
    /// By drive: the workload of the group's runs, in a few words (`randwrite 4K QD32`; `-`:
    /// none recorded). Absent from the JSON by host and by tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// By host and by tag: how many drives the group's runs measured, and with how many
    /// workloads (runs that recorded none not counted): where either is more than one, its
    /// medians mix them, and the table says so. Absent from the JSON by drive (one of each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drives: Option<usize>,
    /// See [`Group::drives`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workloads: Option<usize>,
    /// Runs in the group.
    pub runs: usize,
    /// Cache size, bytes.
    pub cache_bytes: Option<Spread>,
    /// Of the runs in the cache's median, those whose findings hedge their size (a faster
    /// first tier may have hidden in the first sample: the size may be a later tier's). The
    /// median takes such sizes in only where no run of the group has a size not so hedged.
    pub cache_hedged_runs: usize,
    /// The runs whose hedged size the cache's median leaves out, the group's other runs
    /// having a size not so hedged: a median of a first tier's size and of one that may be a
    /// later tier's (54.2 GB and 460 GB of one drive: "257 GB") is neither tier's.
    pub cache_hedged_left_out_runs: usize,
    /// Rate after the cache, bytes/s.
    pub after_cache_bytes_per_sec: Option<Spread>,
    /// Of the runs in the after-cache median, those whose rate left thermal throttling after
    /// the last cliff out ([`AfterCaveats::HEAT_LEFT_OUT`]; `runs` says `heat left out`).
    pub after_heat_runs: usize,
    /// Of the runs in the after-cache median, those that did not write far enough to rule out
    /// a later, slower tier ([`AfterCaveats::SLOWER_TIER_MAY_FOLLOW`]; `runs` says `a slower
    /// tier may follow`): their rate may not be the sustained one. The median takes such rates
    /// in only where no run of the group has a rate not so hedged.
    pub after_slower_tier_runs: usize,
    /// The runs whose rate a slower tier may follow that the after-cache median leaves out,
    /// the group's other runs having a rate not so hedged: a median of one run's last tier
    /// and another's middle tier is neither tier's.
    pub after_slower_tier_left_out_runs: usize,
}

impl Group {
    /// How many runs in the after-cache median have `caveat` ([`Group::after_heat_runs`],
    /// [`Group::after_slower_tier_runs`]); 0 for a set of several or none.
    pub fn after_runs_with(&self, caveat: AfterCaveats) -> usize {
        match caveat {
            AfterCaveats::HEAT_LEFT_OUT => self.after_heat_runs,
            AfterCaveats::SLOWER_TIER_MAY_FOLLOW => self.after_slower_tier_runs,
            _ => 0,
        }
    }
}

/// The runs by group, groups in name order (`-`, no value, last); drives are named in `units`.
pub fn group(rows: &[RunRow], by: &GroupBy, units: UnitSystem) -> Vec<Group> {
    let mut g = Grouping::new(by.clone(), units);
    for r in rows {
        g.push(&r.for_grouping());
    }
    g.finish()
}

/// [`group`] for runs given one at a time, as the store reads them
/// ([`crate::store::Store::each_for_grouping`]): each run is folded into its group's
/// figures as it comes, and no run's row is kept.
pub struct Grouping {
    by: GroupBy,
    units: UnitSystem,
    /// By host or tag value (`-`: none): its runs, each measurement once, each with its drive
    /// (its place in `drive_keys`) and workload.
    named: HashMap<String, Measurements<(Figure, usize, Option<usize>)>>,
    /// The drives of the runs by host or tag, each once, and the place of each.
    drive_keys: Vec<DriveKey>,
    drive_at: HashMap<DriveKey, usize>,
    /// By drive: the drive's latest run (for its name) and its runs, each measurement once,
    /// each with its workload (its place in `workloads`).
    drives: HashMap<DriveKey, (LatestRun, Measurements<WorkloadFigure>)>,
    /// The workloads of the runs by drive, each once.
    workloads: Vec<String>,
    /// The place of each in `workloads`.
    workload_at: HashMap<String, usize>,
}

/// One run's figures: cache size, whether the findings hedge it, the rate after the cache,
/// whether the findings say that stretch was too short to judge, and what that rate leaves out
/// or may not be.
type Figure = (Option<i64>, bool, Option<f64>, bool, AfterCaveats);

/// One run's workload (its place in [`Grouping`]'s workloads; `None`: none recorded) and its
/// figures.
type WorkloadFigure = (Option<usize>, Figure);

/// A group's runs and their figures.
#[derive(Default)]
struct Figures {
    runs: usize,
    /// The sizes the findings do not hedge, and those they do.
    cache: Vec<f64>,
    cache_hedged: Vec<f64>,
    after: Vec<f64>,
    /// The rates a slower tier may follow, apart: the median takes them only where no run of
    /// the group has a rate not so hedged.
    after_tier_hedged: Vec<(f64, bool)>,
    /// Of the rates in `after`, those that left heat out.
    after_heat: usize,
    /// By host or tag: the drives and the workloads of the group's runs, which its medians
    /// mix where there are several.
    drives: std::collections::HashSet<DriveKey>,
    workloads: std::collections::HashSet<String>,
}

impl Figures {
    fn add(&mut self, (cache, hedged, after, too_short, caveats): Figure) {
        self.runs += 1;
        if hedged {
            self.cache_hedged.extend(cache.map(|c| c as f64));
        } else {
            self.cache.extend(cache.map(|c| c as f64));
        }
        // Only a rate judged steady: one too short to judge is no figure for a median (the
        // listings that group leave it out of the column already). Its caveats count where
        // the median takes it in ([`Spread::of`] takes finite rates only).
        if let Some(a) = after.filter(|a| !too_short && a.is_finite()) {
            let heat = caveats.contains(AfterCaveats::HEAT_LEFT_OUT);
            if caveats.contains(AfterCaveats::SLOWER_TIER_MAY_FOLLOW) {
                self.after_tier_hedged.push((a, heat));
            } else {
                self.after.push(a);
                self.after_heat += usize::from(heat);
            }
        }
    }
}

/// The drive columns of a drive's latest run, owned (a serial's drive is named by them).
#[derive(Default)]
struct LatestRun {
    /// Where that run falls in the store's order, for runs read in no order.
    at: Option<(OwnedAt, i64)>,
    kind: String,
    target: Option<String>,
    serial: Option<String>,
    model: Option<String>,
    label: Option<String>,
    capacity_bytes: Option<i64>,
}

/// A [`RunAt`], owned.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum OwnedAt {
    Micros(i64),
    Text(String),
}

impl OwnedAt {
    fn get(&self) -> RunAt<'_> {
        match self {
            OwnedAt::Micros(us) => RunAt::Micros(*us),
            OwnedAt::Text(t) => RunAt::Text(t),
        }
    }
}

impl LatestRun {
    /// Run `id`'s drive columns `d`, where it is later than the run held: runs read in order
    /// (`at` None) each are; runs read in no order are by `at`, then by id.
    fn offer(&mut self, d: &DriveOf, at: Option<RunAt>, id: i64) {
        if let Some(at) = at {
            if self
                .at
                .as_ref()
                .is_some_and(|(held, held_id)| (held.get(), *held_id) > (at, id))
            {
                return;
            }
            match (&mut self.at, at) {
                (Some((OwnedAt::Text(t), i)), RunAt::Text(new)) => {
                    new.clone_into(t);
                    *i = id;
                }
                (held, RunAt::Text(new)) => *held = Some((OwnedAt::Text(new.to_string()), id)),
                (held, RunAt::Micros(us)) => *held = Some((OwnedAt::Micros(us), id)),
            }
        }
        self.set(d);
    }

    fn set(&mut self, d: &DriveOf) {
        // Into the strings it holds: most runs of a drive name it alike.
        let put = |to: &mut Option<String>, from: Option<&str>| match (to.as_mut(), from) {
            (Some(t), Some(f)) => f.clone_into(t),
            (_, f) => *to = f.map(str::to_string),
        };
        d.kind.clone_into(&mut self.kind);
        put(&mut self.target, d.target);
        put(&mut self.serial, d.serial);
        put(&mut self.model, d.model);
        put(&mut self.label, d.label);
        self.capacity_bytes = d.capacity_bytes;
    }
    fn drive(&self) -> DriveOf<'_> {
        DriveOf {
            kind: &self.kind,
            target: self.target.as_deref(),
            serial: self.serial.as_deref(),
            model: self.model.as_deref(),
            label: self.label.as_deref(),
            capacity_bytes: self.capacity_bytes,
        }
    }
}

impl Grouping {
    /// No runs yet, grouped `by`, drives named in `units`.
    pub fn new(by: GroupBy, units: UnitSystem) -> Grouping {
        Grouping {
            by,
            units,
            named: HashMap::new(),
            drive_keys: Vec::new(),
            drive_at: HashMap::new(),
            drives: HashMap::new(),
            workloads: Vec::new(),
            workload_at: HashMap::new(),
        }
    }

    /// One more run: later than those before it, or placed by its [`GroupRow::at`] (the
    /// drive of a serial is named by its latest run).
    pub fn push(&mut self, r: &GroupRow) {
        let figure = (
            r.cache_bytes,
            r.cache_hedged,
            r.after_cache_bytes_per_sec,
            r.after_too_short,
            r.after_caveats,
        );
        let workload = r.workload.map(|w| match self.workload_at.get(w) {
            Some(&at) => at,
            None => {
                self.workloads.push(w.to_string());
                self.workload_at
                    .insert(w.to_string(), self.workloads.len() - 1);
                self.workloads.len() - 1
            }
        });
        let name = match &self.by {
            GroupBy::Drive => {
                let (latest, runs) = self.drives.entry(r.drive.key()).or_default();
                latest.offer(&r.drive, r.at, r.id);
                // A run analysed again is one measurement of the drive, not two (whatever
                // workload its summary names).
                runs.push(
                    r.started_at,
                    r.drive.kind == "analyze",
                    r.id,
                    (workload, figure),
                );
                return;
            }
            GroupBy::Host => r.host,
            GroupBy::Tag(k) => r.tags.get(k).map(String::as_str),
        }
        .unwrap_or("-");
        let key = r.drive.key();
        let drive = match self.drive_at.get(&key) {
            Some(&at) => at,
            None => {
                self.drive_keys.push(key.clone());
                self.drive_at.insert(key, self.drive_keys.len() - 1);
                self.drive_keys.len() - 1
            }
        };
        let runs = match self.named.get_mut(name) {
            Some(g) => g,
            None => self.named.entry(name.to_string()).or_default(),
        };
        // A run analysed again is one measurement of the host's, as of the drive's.
        runs.push(
            r.started_at,
            r.drive.kind == "analyze",
            r.id,
            (figure, drive, workload),
        );
    }

    /// The groups, in name order (`-`, no value, last); a drive's, by workload (none last).
    pub fn finish(self) -> Vec<Group> {
        // Two drives are two groups even where their names were alike; a drive's workloads
        // are one group each.
        type Name = (bool, String, Option<DriveKey>, Option<(bool, String)>);
        let mut groups: BTreeMap<Name, Figures> = BTreeMap::new();
        for (name, runs) in self.named {
            let mut g = Figures::default();
            for (f, drive, workload) in runs.finish() {
                g.add(f);
                g.drives.insert(self.drive_keys[drive].clone());
                if let Some(w) = workload {
                    g.workloads.insert(self.workloads[w].clone());
                }
            }
            groups.insert((name == "-", name, None, None), g);
        }
        for (key, (latest, runs)) in self.drives {
            let name = drive_name_of(&key, &latest.drive(), self.units);
            let mut by_workload: BTreeMap<(bool, &str), Figures> = BTreeMap::new();
            for (w, f) in runs.finish() {
                let w = w.map_or((true, "-"), |at| (false, self.workloads[at].as_str()));
                by_workload.entry(w).or_default().add(f);
            }
            for ((none, w), g) in by_workload {
                groups.insert(
                    (
                        name == "-",
                        name.clone(),
                        Some(key.clone()),
                        Some((none, w.into())),
                    ),
                    g,
                );
            }
        }
        groups
            .into_iter()
            .map(|((_, name, key, workload), g)| {
                // The sizes not hedged where the group has any; else the hedged ones, marked.
                let (cache, in_median, left_out) = if g.cache.is_empty() {
                    let n = g.cache_hedged.len();
                    (g.cache_hedged, n, 0)
                } else {
                    let n = g.cache_hedged.len();
                    (g.cache, 0, n)
                };
                // Likewise the rates after the cache: a median of a run's last tier and of
                // another's middle tier, which a slower tier may follow (129 and 3498 MB/s of
                // an FX700: "1814 MB/s"), is neither tier's.
                // By drive only: a host's or a tag's medians mix drives by design (said beside
                // its name), and each caveat is marked there as `runs` marks it.
                let by_drive = key.is_some();
                let (after, after_heat, after_tier, after_left_out) =
                    if g.after.is_empty() || !by_drive {
                        let mut rates = g.after;
                        let mut heat = g.after_heat;
                        heat += g.after_tier_hedged.iter().filter(|(_, h)| *h).count();
                        let n = g.after_tier_hedged.len();
                        rates.extend(g.after_tier_hedged.into_iter().map(|(a, _)| a));
                        (rates, heat, n, 0)
                    } else {
                        (g.after, g.after_heat, 0, g.after_tier_hedged.len())
                    };
                Group {
                    by: self.by.name(),
                    group: name,
                    workload: workload.map(|(_, w)| w),
                    drives: key.is_none().then_some(g.drives.len()),
                    workloads: key.is_none().then_some(g.workloads.len()),
                    runs: g.runs,
                    cache_bytes: Spread::of(cache),
                    cache_hedged_runs: in_median,
                    cache_hedged_left_out_runs: left_out,
                    after_cache_bytes_per_sec: Spread::of(after),
                    after_heat_runs: after_heat,
                    after_slower_tier_runs: after_tier,
                    after_slower_tier_left_out_runs: after_left_out,
                }
            })
            .collect()
    }
}

/// A range as the findings write one (`12.9 GB to 13.1 GB`): each end as `f` writes it; where
/// both ends would read the same, in the unit of `median_text` (the median as `f` wrote it)
/// with as many decimals as it takes for them to differ, up to four significant digits
/// (`13.00 GB to 13.02 GB`); ends alike even then are one value, said as `all alike`.
pub(super) fn range_text(
    min: f64,
    max: f64,
    median_text: &str,
    units: UnitSystem,
    f: &dyn Fn(f64) -> String,
) -> String {
    let (lo, hi) = (f(min), f(max));
    if lo != hi {
        return format!("{lo} to {hi}");
    }
    let unit = median_text.rsplit_once(' ').map_or("", |(_, u)| u);
    let (k, m) = (
        match units {
            UnitSystem::Decimal => 1000f64,
            UnitSystem::Binary => 1024f64,
        },
        units.mega(),
    );
    let div = match unit.trim_end_matches("/s") {
        "kB" | "KiB" if !unit.ends_with("/s") => k,
        "MB" | "MiB" if unit.ends_with("/s") => m,
        "MB" | "MiB" => k * k,
        "GB" | "GiB" => k * k * k,
        "TB" | "TiB" => k * k * k * k,
        "PB" | "PiB" => k * k * k * k * k,
        _ => 1.0,
    };
    let (a, b) = (min / div, max / div);
    let big = a.abs().max(b.abs());
    // Digits before the point, and the decimals that make four significant digits.
    let whole = if big >= 1.0 {
        big.log10().floor() as usize + 1
    } else {
        1
    };
    let most = 4usize.saturating_sub(whole);
    let mut d = (if big >= 100.0 { 0 } else { 1 }).min(most);
    while d < most && format!("{a:.d$}") == format!("{b:.d$}") {
        d += 1;
    }
    if format!("{a:.d$}") == format!("{b:.d$}") {
        return "all alike".to_string();
    }
    format!("{a:.d$} {unit} to {b:.d$} {unit}")
}

/// How a figure of `runs --by` is given: its median and range, its median only, or its median
/// with the bracket of a figure some of the group's runs lack short (`[3/4]`, not `[3 of 4
/// runs]`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Range,
    Median,
    ShortCount,
}

/// What a short bracket ([`Form::ShortCount`]) means, under a table that has one.
const SHORT_COUNT_NOTE: &str = "[k/n]: only k of the group's n runs have that figure";

/// The mark after a cache median that takes in sizes the findings hedge (a faster first tier
/// may have hidden in the first sample), as the runs table marks each such size.
const HEDGED_MARK: &str = "‡";

/// The mark after a cache median that leaves out the sizes the findings hedge, the group's
/// other runs having sizes not so hedged ([`Group::cache_hedged_left_out_runs`]).
const LEFT_OUT_MARK: &str = "¶";

/// The groups as a table: one line each, with the median and range of each figure (by drive,
/// the workload beside the drive), fitted to `width` columns (`None`: every column whole): the
/// group's name is shortened, then the figures lose their ranges (the medians stay), then the
/// workload takes its short form (`rand 4K QD32`), then the name is shortened further, and
/// last the brackets of figures some of a group's runs lack go short (`[3/4]`). A
/// cache median that takes in hedged sizes is marked `‡`, an after-cache median that takes in
/// a rate that left heat out `*` and one a slower tier may follow `†` (as `runs` marks each
/// such rate, [`AFTER_MARKS`]), and each mark said under the table.
pub fn group_table(
    groups: &[Group],
    by: &GroupBy,
    units: UnitSystem,
    width: Option<usize>,
) -> String {
    use super::fit::{Step, Table};
    // `marks`: what the median's runs hedge, after it (`‡`, `* †`; empty: none). `form`: the
    // figure with its range, the median only, or the median with its bracket short.
    // `have`: the runs with the figure, the median's and those it leaves out.
    let spread = |s: &Option<Spread>,
                  runs: usize,
                  have: usize,
                  marks: &str,
                  f: &dyn Fn(f64) -> String,
                  form: Form| {
        let range = form == Form::Range;
        let counted = |k: usize| {
            if form == Form::ShortCount {
                format!("[{k}/{runs}]")
            } else {
                format!("[{k} of {runs} run{}]", if runs == 1 { "" } else { "s" })
            }
        };
        match s {
            // No run of the group has a figure here (not steady, too short to judge, no
            // cliff, writes that wrapped): said as the groups with some do.
            None => format!("- {}", counted(0)),
            Some(s) => {
                let mut t = f(s.median);
                let marked = if marks.is_empty() {
                    t.clone()
                } else {
                    format!("{t} {marks}")
                };
                if range && s.runs > 1 {
                    t = format!("{marked} ({})", range_text(s.min, s.max, &t, units, f));
                } else {
                    t = marked;
                }
                if have < runs {
                    t += &format!(" {}", counted(have));
                }
                t
            }
        }
    };
    let bytes = |v: f64| format_bytes(v, units);
    let rate = |v: f64| format_rate(v, units);
    let cache = |g: &Group, form: Form| {
        let marks = if g.cache_hedged_runs > 0 {
            HEDGED_MARK
        } else if g.cache_hedged_left_out_runs > 0 {
            LEFT_OUT_MARK
        } else {
            ""
        };
        let have = g.cache_bytes.as_ref().map_or(0, |s| s.runs) + g.cache_hedged_left_out_runs;
        spread(&g.cache_bytes, g.runs, have, marks, &bytes, form)
    };
    // The after-cache median's marks, each of a caveat some run in it has.
    let after_marks = |g: &Group| {
        AFTER_MARKS
            .iter()
            .filter(|(c, _)| g.after_runs_with(*c) > 0)
            .map(|(_, m)| *m)
            .collect::<Vec<_>>()
    };
    let after = |g: &Group, form: Form| {
        let mut marks = after_marks(g);
        if g.after_slower_tier_left_out_runs > 0 {
            marks.push(LEFT_OUT_MARK);
        }
        let marks = marks.join(" ");
        let have = g.after_cache_bytes_per_sec.as_ref().map_or(0, |s| s.runs)
            + g.after_slower_tier_left_out_runs;
        spread(
            &g.after_cache_bytes_per_sec,
            g.runs,
            have,
            &marks,
            &rate,
            form,
        )
    };
    // By drive, the workload in a column of its own after the drive's name.
    let with_workload = *by == GroupBy::Drive;
    let w = usize::from(with_workload);
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            // A host's or a tag's runs of several drives or workloads: its medians mix them,
            // said beside its name (a qualifier a narrowed column keeps whole).
            let mix = [
                (g.drives.unwrap_or(0), "drive", "drives"),
                (g.workloads.unwrap_or(0), "workload", "workloads"),
            ]
            .iter()
            .filter(|(n, _, _)| *n > 1)
            .map(|&(n, one, many)| count_text(n, one, many))
            .collect::<Vec<_>>();
            let mut row = vec![if mix.is_empty() {
                g.group.clone()
            } else {
                format!("{} (mixes {})", g.group, mix.join(", "))
            }];
            if with_workload {
                row.push(g.workload.clone().unwrap_or_else(|| "-".into()));
            }
            row.extend([
                g.runs.to_string(),
                cache(g, Form::Range),
                after(g, Form::Range),
            ]);
            row
        })
        .collect();
    // What a bracket means, under a table that has one.
    let counted = rows.iter().any(|r| {
        r.iter()
            .any(|c| c.ends_with(" runs]") || c.ends_with(" run]"))
    });
    let hedged = groups.iter().any(|g| g.cache_hedged_runs > 0);
    let left_out = groups.iter().any(|g| g.cache_hedged_left_out_runs > 0);
    let after_left_out = groups.iter().any(|g| g.after_slower_tier_left_out_runs > 0);
    let after_marked: Vec<&str> = groups.iter().flat_map(after_marks).collect();
    let mut head = vec![by.name()];
    if with_workload {
        head.push("workload".to_string());
    }
    head.extend([
        "runs".to_string(),
        "cache: median (range)".to_string(),
        "after cache: median (range)".to_string(),
    ]);
    // The name short before it is cut to a few letters: a simulated or emulated drive's
    // model without its maker (`960 EVO 500GB (sim)`), and a host's or tag's remark that its
    // medians mix drives or workloads as "(mixed)" ("ben… (mixes 2 drives, 2 workloads)" was
    // every bench).
    let short_names: Vec<String> = groups
        .iter()
        .map(|g| {
            let name = super::table::short_drive(&g.group);
            let mixed = g.drives.unwrap_or(0) > 1 || g.workloads.unwrap_or(0) > 1;
            if mixed {
                format!("{name} (mixed)")
            } else {
                name
            }
        })
        .collect();
    let mut name_notes = super::table::short_marker_note(&short_names);
    if short_names.iter().any(|n| n.ends_with(" (mixed)")) {
        name_notes.push(
            "(mixed): the group's medians mix several drives or workloads (--wide says how many)"
                .to_string(),
        );
    }
    // A drive's name short first, before it is cut at all: cut to 32 characters first, it kept
    // "Samsung SSD…250GB (emulated)" where a narrower table, in the short form, showed "960
    // EVO 250GB (emu)": a wider table showed less of the name.
    let drive_names = *by == GroupBy::Drive;
    let mut steps = Vec::new();
    if drive_names {
        steps.push(Step::Marked(
            0,
            by.name(),
            short_names.clone(),
            name_notes.clone(),
        ));
    }
    steps.extend([
        Step::Narrow(0, 32),
        // Each column's ranges go on their own: what is said of it under the table is said
        // of the columns the table shows without them ([`ranges_note`]).
        Step::Short(
            2 + w,
            "cache: median".into(),
            groups.iter().map(|g| cache(g, Form::Median)).collect(),
        ),
        Step::Short(
            3 + w,
            "after cache: median".into(),
            groups.iter().map(|g| after(g, Form::Median)).collect(),
        ),
    ]);
    if with_workload {
        // The workload short (`rand 4K QD32`), never left out: it tells a drive's groups
        // apart.
        steps.push(Step::Short(
            1,
            "workload".into(),
            groups
                .iter()
                .map(|g| {
                    g.workload
                        .as_deref()
                        .map_or_else(|| "-".into(), super::table::short_workload)
                })
                .collect(),
        ));
    }
    if !drive_names {
        steps.push(Step::Marked(0, by.name(), short_names, name_notes));
    }
    // Where even that is too wide (a figure some of a group's runs lack, beside both marks,
    // took 83-86 characters at 80 columns), the brackets short in both columns, said under
    // the table, before the name is cut: cut first, a wider table showed less of a name than
    // a narrower one, whose short brackets had given it back what they freed.
    if counted {
        steps.push(Step::MarkedAll(
            vec![
                (
                    2 + w,
                    "cache: median".into(),
                    groups.iter().map(|g| cache(g, Form::ShortCount)).collect(),
                ),
                (
                    3 + w,
                    "after cache: median".into(),
                    groups.iter().map(|g| after(g, Form::ShortCount)).collect(),
                ),
            ],
            vec![SHORT_COUNT_NOTE.to_string()],
        ));
    }
    steps.push(Step::Narrow(0, 16));
    let mut text = Table {
        head,
        rows,
        right: vec![1 + w],
    }
    .render(width, steps);
    let mut notes = String::new();
    // Which columns the table shows without the ranges some of their cells had.
    let header = text.lines().next().unwrap_or("");
    let after_ranged = header.contains("after cache: median (range)");
    let cache_ranged = header
        .replace("after cache: median (range)", "")
        .contains("cache: median (range)");
    let had_ranges = |f: &dyn Fn(&Group, Form) -> String| {
        groups
            .iter()
            .any(|g| f(g, Form::Range) != f(g, Form::Median))
    };
    let cache_cut = !cache_ranged && had_ranges(&cache);
    let after_cut = !after_ranged && had_ranges(&after);
    // First under the rows, as the table's own notes are.
    if let Some(note) = ranges_note(cache_cut, after_cut) {
        let at: usize = text
            .split_inclusive('\n')
            .take(groups.len() + 1)
            .map(str::len)
            .sum();
        let mut lines = String::new();
        for l in super::fit::wrap_note(note, width) {
            lines += &l;
            lines.push('\n');
        }
        text.insert_str(at, &lines);
    }
    // Said of the brackets as the table gives them: whole, or short ([`SHORT_COUNT_NOTE`],
    // said with the fitted table's own notes, and broken to the width, so never found whole
    // in the text at 50 columns): the key of the whole form only where a row has one.
    let long_brackets = text
        .lines()
        .take(groups.len() + 1)
        .any(|l| l.contains(" runs]") || l.contains(" run]"));
    if counted && long_brackets {
        notes += "[k of n runs]: only k of the group's n runs have that figure\n";
    }
    if hedged {
        // As wide as the table may be, as the fitted table's own notes are.
        let note = format!(
            "{HEDGED_MARK} cache: the median takes in sizes that may be a later tier's, were a \
             faster first tier hidden in the first sample, or that are in doubt for heat at \
             their cliff (--json counts them: cache_hedged_runs)"
        );
        for l in super::fit::wrap_note(&note, width) {
            notes += &l;
            notes.push('\n');
        }
    }
    if left_out {
        let note = format!(
            "{LEFT_OUT_MARK} cache: the median leaves out sizes that may be a later tier's, were \
             a faster first tier hidden in the first sample, or that are in doubt for heat at \
             their cliff, where the group's other runs have a size not so hedged (--json counts \
             them: cache_hedged_left_out_runs)"
        );
        for l in super::fit::wrap_note(&note, width) {
            notes += &l;
            notes.push('\n');
        }
    }
    if after_left_out {
        let note = format!(
            "{LEFT_OUT_MARK} after cache: the median leaves out rates a slower tier may follow, \
             where the group's other runs have a rate not so hedged (--json counts them: \
             after_slower_tier_left_out_runs)"
        );
        for l in super::fit::wrap_note(&note, width) {
            notes += &l;
            notes.push('\n');
        }
    }
    // In the words of the runs table's own notes.
    for (caveat, mark) in AFTER_MARKS {
        if after_marked.contains(&mark) {
            notes += &after_mark_note(caveat, mark);
            notes.push('\n');
        }
    }
    if !notes.is_empty() {
        // Above the line that says how the table was fitted, if there is one.
        let at = text
            .rfind("\n(")
            .filter(|_| text.ends_with("whole)\n"))
            .map_or(text.len(), |i| i + 1);
        text.insert_str(at, &notes);
    }
    text
}

/// What is said under a group table of the ranges it leaves out: of the cache's, of the
/// after-cache rate's, of both, or nothing where it shows every range it has.
fn ranges_note(cache: bool, after: bool) -> Option<&'static str> {
    match (cache, after) {
        (true, true) => Some("median only: the ranges are left out (--wide shows them)"),
        (true, false) => Some("cache: median only, its range left out (--wide shows it)"),
        (false, true) => Some("after cache: median only, its range left out (--wide shows it)"),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_written_as_the_findings_write_one() {
        let u = UnitSystem::Decimal;
        let gb = |v: f64| format_bytes(v, u);
        let r = |lo: f64, hi: f64| range_text(lo, hi, &gb((lo + hi) / 2.0), u, &gb);
        assert_eq!(r(12.9e9, 13.1e9), "12.9 GB to 13.1 GB");
        assert_eq!(r(13.0e9, 100e9), "13.0 GB to 100 GB");
        // Ends that read the same get the decimals that tell them apart.
        assert_eq!(r(13.001e9, 13.02e9), "13.00 GB to 13.02 GB");
        let mbs = |v: f64| format_rate(v, u);
        assert_eq!(
            range_text(292e6, 300e6, &mbs(297e6), u, &mbs),
            "292 MB/s to 300 MB/s"
        );
    }

    /// Ends equal at four significant digits are one value, not `24.007 GB to 24.007 GB`:
    /// no decimals are added beyond four significant digits to tell them apart.
    #[test]
    fn ends_alike_at_four_digits_are_one_value() {
        let u = UnitSystem::Decimal;
        let gb = |v: f64| format_bytes(v, u);
        let mbs = |v: f64| format_rate(v, u);
        let r = |lo: f64, hi: f64, f: &dyn Fn(f64) -> String| {
            range_text(lo, hi, &f((lo + hi) / 2.0), u, f)
        };
        assert_eq!(r(24.0071e9, 24.0072e9, &gb), "all alike");
        assert_eq!(r(24.007e9, 24.007e9, &gb), "all alike");
        assert_eq!(r(399.9791e6, 399.9792e6, &mbs), "all alike");
        assert_eq!(r(399.979e6, 399.979e6, &mbs), "all alike");
        // At most four significant digits where they differ there.
        assert_eq!(r(24.01e9, 24.02e9, &gb), "24.01 GB to 24.02 GB");
        assert_eq!(r(399.8e6, 400.1e6, &mbs), "399.8 MB/s to 400.1 MB/s");
        assert_eq!(r(1.2341e9, 1.2349e9, &gb), "1.234 GB to 1.235 GB");
        let g = Group {
            by: "drive".into(),
            group: "x".into(),
            workload: Some("randwrite 4K QD32".into()),
            drives: None,
            workloads: None,
            runs: 3,
            cache_bytes: Spread::of(vec![24.007e9; 3]),
            cache_hedged_runs: 0,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![399.979e6; 3]),
            after_heat_runs: 0,
            after_slower_tier_runs: 0,
            after_slower_tier_left_out_runs: 0,
        };
        let t = group_table(&[g], &GroupBy::Drive, u, None);
        assert!(
            t.contains("24.0 GB (all alike)") && t.contains("400 MB/s (all alike)"),
            "{t}"
        );
    }

    /// A reviewer could not tell what "[1 of 2 runs]" meant, nor which columns "(to fit 80
    /// columns: shortened)" had shortened: the table says both under it.
    #[test]
    fn a_fitted_group_table_says_what_its_brackets_and_cuts_mean() {
        let u = UnitSystem::Decimal;
        let g = |name: &str, cache: Vec<f64>| Group {
            by: "drive".into(),
            group: name.into(),
            workload: Some("randwrite 4K QD32".into()),
            drives: None,
            workloads: None,
            runs: 2,
            cache_bytes: Spread::of(cache),
            cache_hedged_runs: 0,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![580e6, 591e6]),
            after_heat_runs: 0,
            after_slower_tier_runs: 0,
            after_slower_tier_left_out_runs: 0,
        };
        let groups = [
            g("Samsung SSD 960 EVO 500GB (simulated)", vec![22.0e9]),
            g(
                "Samsung SSD 960 EVO 250GB (simulated)",
                vec![13.0e9, 13.1e9],
            ),
        ];
        let t = group_table(&groups, &GroupBy::Drive, u, Some(90));
        assert!(t.contains("[1 of 2 runs]"), "{t}");
        assert!(
            t.contains("\n[k of n runs]: only k of the group's n runs have that figure\n"),
            "{t}"
        );
        let wide = group_table(&groups, &GroupBy::Drive, u, None);
        assert!(wide.contains("[k of n runs]:"), "{wide}");
        assert!(!wide.contains("median only"), "{wide}");
        let narrow = group_table(&groups, &GroupBy::Drive, u, Some(60));
        assert!(
            narrow.contains("median only: the ranges are left out (--wide shows them)"),
            "{narrow}"
        );
        for l in narrow.lines() {
            assert!(l.chars().count() <= 80, "{l:?}");
        }
        // The fitting's own line stays last.
        assert!(narrow.trim_end().ends_with("whole)"), "{narrow}");
    }

    /// At 50 columns, where the brackets go short, the table gave two keys for one notation:
    /// "[k/n]: ..." (broken over two lines) and "[k of n runs]: ...", a form no row had.
    #[test]
    fn a_narrow_group_table_keys_only_the_brackets_it_shows() {
        let u = UnitSystem::Decimal;
        let g = |name: &str, cache: Vec<f64>, after: Vec<f64>| Group {
            by: "drive".into(),
            group: name.into(),
            workload: Some("randwrite 4K QD32".into()),
            drives: None,
            workloads: None,
            runs: cache.len().max(1),
            cache_bytes: Spread::of(cache),
            cache_hedged_runs: 0,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(after),
            after_heat_runs: 0,
            after_slower_tier_runs: 0,
            after_slower_tier_left_out_runs: 0,
        };
        let groups = [
            g(
                "Crucial P5 1TB (simulated)",
                vec![100e9, 100e9, 100e9],
                vec![995e6, 994e6, 1000e6],
            ),
            g(
                "Samsung SSD 960 EVO 250GB (emulated), cache=2GB",
                vec![1.99e9],
                vec![],
            ),
        ];
        for width in [50, 60, 80, 100] {
            let t = group_table(&groups, &GroupBy::Drive, u, Some(width));
            let rows: Vec<&str> = t.lines().take(groups.len() + 1).collect();
            let long = rows
                .iter()
                .any(|l| l.contains(" run]") || l.contains(" runs]"));
            let short = rows.iter().any(|l| l.contains("[0/1]"));
            assert!(long != short, "{t}");
            assert_eq!(t.contains("[k of n runs]:"), long, "{t}");
            assert_eq!(t.contains("[k/n]:"), short, "{t}");
        }
    }

    /// At 80 columns `runs --by drive` cut the PM983 and the 960 EVO 250GB both to "Sams…
    /// (simulated)" and the 960 EVO 500GB to "… (simulated)", and `--by host` its benches to
    /// "ben…" beside a whole "(mixes 2 drives, 2 workloads)": the names go short first (the
    /// model with `(sim)`, the remark as "(mixed)"), each said under the table.
    #[test]
    fn a_narrow_group_table_keeps_the_names_apart() {
        let u = UnitSystem::Decimal;
        let g = |by: &str, name: &str, drives: Option<usize>| Group {
            by: by.into(),
            group: name.into(),
            workload: (by == "drive").then(|| "seqwrite 128K QD32".into()),
            drives,
            workloads: drives,
            runs: 4,
            cache_bytes: Spread::of(vec![22.0e9]),
            cache_hedged_runs: 1,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![591e6]),
            after_heat_runs: 0,
            after_slower_tier_runs: 0,
            after_slower_tier_left_out_runs: 0,
        };
        let drives = [
            (
                "Samsung PM983 960GB (enterprise, no SLC cache) (simulated)",
                "PM9",
            ),
            ("Samsung SSD 960 EVO 250GB (simulated)", "250GB"),
            ("Samsung SSD 960 EVO 500GB (simulated)", "500GB"),
            ("Kingston A2000 1TB (simulated)", "A2000"),
        ];
        let groups: Vec<Group> = drives.iter().map(|(d, _)| g("drive", d, None)).collect();
        let t = group_table(&groups, &GroupBy::Drive, u, Some(80));
        let lines: Vec<&str> = t.lines().collect();
        for (k, (_, word)) in drives.iter().enumerate() {
            let l = lines[k + 1];
            assert!(l.contains(word) && l.contains(" (sim)"), "{t}");
        }
        assert!(t.contains("drive (sim): simulated"), "{t}");
        let hosts: Vec<Group> = ["bench-1", "bench-2", "bench-3"]
            .iter()
            .map(|h| g("host", h, Some(2)))
            .collect();
        let t = group_table(&hosts, &GroupBy::Host, u, Some(60));
        for h in ["bench-1 ", "bench-2 ", "bench-3 "] {
            assert!(t.contains(h), "{h}: {t}");
        }
        assert!(t.contains("(mixed): the group's medians mix"), "{t}");
    }

    /// At 80 columns `runs --by drive` gave a group some of whose runs lack a figure, beside
    /// the marks of its medians, as "P5 1TB (sim)  seq 1M QD32  5  100 GB [3 of 5 runs]  993
    /// MB/s * [3 of 5 runs]", 85 characters (and `--by host` a fleet's groups so): the
    /// brackets go short (`[3/5]`), said under the table, and every line fits.
    #[test]
    fn a_narrow_group_table_with_counted_figures_fits() {
        let u = UnitSystem::Decimal;
        let g = |by: &str, name: &str, runs: usize, with: usize, heat: usize, tier: usize| Group {
            by: by.into(),
            group: name.into(),
            workload: (by == "drive").then(|| "seqwrite 1M QD32".into()),
            drives: (by == "host").then_some(2),
            workloads: (by == "host").then_some(2),
            runs,
            cache_bytes: Spread::of(vec![100e9; with]),
            // A fleet's hosts: some of their sizes hedged.
            cache_hedged_runs: if by == "host" { with / 4 } else { 0 },
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![993e6; with]),
            after_heat_runs: heat,
            after_slower_tier_runs: tier,
            after_slower_tier_left_out_runs: 0,
        };
        let drives = [
            g("drive", "Crucial P5 1TB (simulated)", 5, 3, 3, 0),
            g("drive", "Crucial P5 1TB (simulated)", 1, 1, 0, 1),
            g("drive", "HP FX700 2TB (QLC) (simulated)", 1, 1, 0, 1),
            g(
                "drive",
                "Samsung PM983 960GB (enterprise, no SLC cache) (simulated)",
                1,
                0,
                0,
                0,
            ),
            g("drive", "Samsung SSD 960 EVO 500GB (simulated)", 1, 1, 0, 0),
            g(
                "drive",
                "Samsung SSD 960 EVO 500GB (simulated), cache=8GB",
                5,
                4,
                0,
                0,
            ),
        ];
        let hosts = [
            g("host", "bench-11", 150, 120, 40, 60),
            g("host", "bench-12", 140, 138, 0, 0),
        ];
        for (groups, by) in [(&drives[..], GroupBy::Drive), (&hosts[..], GroupBy::Host)] {
            let t = group_table(groups, &by, u, Some(80));
            for l in t.lines() {
                assert!(
                    l.chars().count() <= 80,
                    "{} wide: {l:?}\n{t}",
                    l.chars().count()
                );
            }
            // Each group's line still says how many of its runs have the figure, and the
            // table says what the short bracket means, not the long one it no longer has.
            let rows: Vec<&str> = t.lines().skip(1).take(groups.len()).collect();
            for (l, g) in rows.iter().zip(groups) {
                let k = g.cache_bytes.as_ref().map_or(0, |s| s.runs);
                if k < g.runs {
                    assert!(l.contains(&format!("[{k}/{}]", g.runs)), "{t}");
                }
            }
            assert!(
                t.contains("\n[k/n]: only k of the group's n runs have that figure\n"),
                "{t}"
            );
            assert!(!t.contains("[k of n runs]"), "{t}");
            // Wider, the brackets are whole, as before.
            let wide = group_table(groups, &by, u, None);
            assert!(wide.contains(" runs]") && !wide.contains("[k/n]"), "{wide}");
        }
        // The names the brackets made room for are whole, but for the options of one, which
        // a mark stands for.
        let t = group_table(&drives, &GroupBy::Drive, u, Some(80));
        assert!(t.contains("\nPM983 960GB (sim) "), "{t}");
        assert!(t.contains("\n960 EVO 500GB (sim) "), "{t}");
        assert!(t.contains("\n960 EVO 500GB (sim)¹ "), "{t}");
        assert!(
            t.contains("\n¹ drive: 960 EVO 500GB (sim), cache=8GB\n"),
            "{t}"
        );
    }

    /// What the store hands the grouping of one run.
    fn run<'a>(
        id: i64,
        tags: &'a BTreeMap<String, String>,
        workload: Option<&'a str>,
        cache: f64,
        hedged: bool,
    ) -> GroupRow<'a> {
        GroupRow {
            id,
            drive: DriveOf {
                kind: "simulate",
                target: Some("sim:960evo-500g"),
                model: Some("Samsung SSD 960 EVO 500GB"),
                capacity_bytes: Some(500_107_862_016),
                ..DriveOf::default()
            },
            host: Some("lab-1"),
            cache_bytes: Some(cache as i64),
            cache_hedged: hedged,
            workload,
            after_cache_bytes_per_sec: Some(580e6),
            after_caveats: AfterCaveats::NONE,
            after_too_short: false,
            started_at: None,
            tags,
            at: None,
        }
    }

    /// `runs --by drive` took one median of a drive's 4K random and 128K sequential runs,
    /// which measure different caches and rates: each workload of a drive is a group of its
    /// own, named in a column of its own; by host they stay one group, which says it mixes
    /// them (a host's median over several drives or workloads read as one figure).
    #[test]
    fn a_drive_s_workloads_are_groups_of_their_own() {
        let u = UnitSystem::Decimal;
        let tags = BTreeMap::new();
        let runs = [
            run(1, &tags, Some("randwrite 4K QD32"), 22.0e9, false),
            run(2, &tags, Some("seqwrite 128K QD32"), 40.0e9, false),
            run(3, &tags, Some("randwrite 4K QD32"), 22.2e9, false),
            run(4, &tags, None, 30.0e9, false),
        ];
        let mut g = Grouping::new(GroupBy::Drive, u);
        for r in &runs {
            g.push(r);
        }
        let groups = g.finish();
        let seen: Vec<(Option<&str>, usize, f64)> = groups
            .iter()
            .map(|g| {
                (
                    g.workload.as_deref(),
                    g.runs,
                    g.cache_bytes.as_ref().unwrap().median,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (Some("randwrite 4K QD32"), 2, 22.1e9),
                (Some("seqwrite 128K QD32"), 1, 40.0e9),
                (Some("-"), 1, 30.0e9),
            ]
        );
        let t = group_table(&groups, &GroupBy::Drive, u, None);
        let head = t.lines().next().unwrap();
        assert!(
            head.starts_with("drive ") && head.contains(" workload "),
            "{t}"
        );
        assert!(
            t.lines().nth(2).unwrap().contains("seqwrite 128K QD32"),
            "{t}"
        );
        let mut g = Grouping::new(GroupBy::Host, u);
        for r in &runs {
            g.push(r);
        }
        let by_host = g.finish();
        assert_eq!(by_host.len(), 1);
        assert_eq!((by_host[0].runs, by_host[0].workload.as_deref()), (4, None));
        let t = group_table(&by_host, &GroupBy::Host, u, None);
        assert!(!t.contains("workload "), "{t}");
        // A host's one group mixes the workloads (and here one drive): it says so beside its
        // name, where its medians read as one figure of one thing, and counts them in JSON.
        assert_eq!(
            (by_host[0].drives, by_host[0].workloads),
            (Some(1), Some(2))
        );
        assert!(t.contains("lab-1 (mixes 2 workloads)"), "{t}");
        let mut other = run(5, &tags, Some("randwrite 4K QD32"), 13.0e9, false);
        other.drive.model = Some("Samsung SSD 960 EVO 250GB");
        let mut g = Grouping::new(GroupBy::Host, u);
        for r in runs.iter().chain([&other]) {
            g.push(r);
        }
        let by_host = g.finish();
        assert_eq!(
            (by_host[0].drives, by_host[0].workloads),
            (Some(2), Some(2))
        );
        let t = group_table(&by_host, &GroupBy::Host, u, None);
        assert!(t.contains("lab-1 (mixes 2 drives, 2 workloads)"), "{t}");
    }

    /// A median that takes in a size the findings hedge (a faster first tier may have hidden
    /// in the first sample) gave it as a plain size, where each run's cell hedges it: the
    /// median is marked, the mark said under the table (within its width), the count given.
    #[test]
    fn a_median_of_hedged_sizes_is_marked() {
        let u = UnitSystem::Decimal;
        let tags = BTreeMap::new();
        let w = Some("randwrite 4K QD32");
        let mut g = Grouping::new(GroupBy::Drive, u);
        for r in [
            run(1, &tags, w, 470e9, true),
            run(2, &tags, w, 480e9, true),
            run(3, &tags, Some("seqwrite 128K QD32"), 22e9, false),
        ] {
            g.push(&r);
        }
        let groups = g.finish();
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.cache_hedged_runs, g.cache_hedged_left_out_runs))
                .collect::<Vec<_>>(),
            [(2, 0), (0, 0)]
        );
        for width in [None, Some(80), Some(60)] {
            let t = group_table(&groups, &GroupBy::Drive, u, width);
            let rows: Vec<&str> = t.lines().collect();
            assert!(rows[1].contains("475 GB ‡"), "{t}");
            assert!(!rows[2].contains('‡'), "{t}");
            let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains(
                    "‡ cache: the median takes in sizes that may be a later tier's, were a \
                     faster first tier hidden in the first sample"
                ),
                "{t}"
            );
            // The note breaks to the width; the table itself fits 80 at the least.
            for l in &rows {
                assert!(
                    l.chars().count() <= width.unwrap_or(usize::MAX).max(80),
                    "{l:?}"
                );
            }
        }
        let json = serde_json::to_value(&groups).unwrap();
        assert_eq!(json[0]["cache_hedged_runs"], 2);
        assert_eq!(json[0]["workload"], "randwrite 4K QD32");
        // None hedged: no mark, no note.
        let t = group_table(&groups[1..], &GroupBy::Drive, u, None);
        assert!(!t.contains('‡'), "{t}");
    }

    /// `runs --by drive` gave an FX700's cache as "257 GB ‡": the median of one run's 54.2 GB
    /// and another's 460 GB, which that run hedges as maybe a later tier's. A median of two
    /// tiers is neither's: where a group's runs have sizes not hedged, the median takes only
    /// those, marked `¶`, the sizes it leaves out said under the table and counted in JSON.
    #[test]
    fn a_median_leaves_out_hedged_sizes_where_others_are_not_hedged() {
        let u = UnitSystem::Decimal;
        let tags = BTreeMap::new();
        let w = Some("seqwrite 128K QD32");
        let mut g = Grouping::new(GroupBy::Drive, u);
        for r in [
            run(1, &tags, w, 54.2e9, false),
            run(2, &tags, w, 460e9, true),
        ] {
            g.push(&r);
        }
        let groups = g.finish();
        let c = groups[0].cache_bytes.as_ref().unwrap();
        assert_eq!(
            (c.runs, c.median, c.min, c.max),
            (1, 54.2e9, 54.2e9, 54.2e9)
        );
        assert_eq!(
            (
                groups[0].cache_hedged_runs,
                groups[0].cache_hedged_left_out_runs
            ),
            (0, 1)
        );
        let json = serde_json::to_value(&groups).unwrap();
        assert_eq!(json[0]["cache_hedged_left_out_runs"], 1);
        assert_eq!(json[0]["cache_bytes"]["median"], 54.2e9);
        for width in [None, Some(80), Some(50)] {
            let t = group_table(&groups, &GroupBy::Drive, u, width);
            let row = t.lines().nth(1).unwrap();
            assert!(row.contains("54.2 GB ¶"), "{t}");
            assert!(!t.contains("257 GB") && !t.contains('‡'), "{t}");
            // Both runs have a size: no bracket says one lacks it.
            assert!(!row.contains('['), "{t}");
            let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains(
                    "¶ cache: the median leaves out sizes that may be a later tier's, were a \
                     faster first tier hidden in the first sample, or that are in doubt for heat \
                     at their cliff, where the group's other runs have a size not so hedged \
                     (--json counts them: cache_hedged_left_out_runs)"
                ),
                "{t}"
            );
        }
    }

    /// An after-cache median that took in a rate which left heat out, or which a slower tier
    /// may follow, gave it as a plain rate, where `runs` marks that run's rate `*` or `†`:
    /// the median is marked as `runs` marks it, each mark said under the table in `runs`'s
    /// own words, the runs counted; a rate the median leaves out (too short to judge) is not.
    #[test]
    fn an_after_cache_median_leaves_out_rates_a_slower_tier_may_follow() {
        // An FX700 run that measured its last tier (129 MB/s) and one that stopped at its
        // middle tier (3441 MB/s, a slower tier may follow): "1785 MB/s † (129 MB/s to 3441
        // MB/s)", a rate no run measured. The median takes the rate not so hedged, marked.
        let u = UnitSystem::Decimal;
        let tags = BTreeMap::new();
        let w = Some("seqwrite 128K QD32");
        let mut last = run(1, &tags, w, 54e9, false);
        last.after_cache_bytes_per_sec = Some(129e6);
        let mut middle = run(2, &tags, w, 54e9, false);
        middle.after_cache_bytes_per_sec = Some(3441e6);
        middle.after_caveats = AfterCaveats::SLOWER_TIER_MAY_FOLLOW;
        let mut g = Grouping::new(GroupBy::Drive, u);
        g.push(&last);
        g.push(&middle);
        let groups = g.finish();
        let a = groups[0].after_cache_bytes_per_sec.as_ref().unwrap();
        assert_eq!((a.runs, a.median), (1, 129e6));
        assert_eq!(
            (
                groups[0].after_slower_tier_runs,
                groups[0].after_slower_tier_left_out_runs
            ),
            (0, 1)
        );
        let t = group_table(&groups, &GroupBy::Drive, u, None);
        assert!(t.lines().nth(1).unwrap().contains("129 MB/s ¶"), "{t}");
        assert!(!t.contains("1785") && !t.contains('†'), "{t}");
        assert!(
            t.contains("¶ after cache: the median leaves out rates"),
            "{t}"
        );
        // Only hedged rates: the median takes them, marked as before.
        let mut g = Grouping::new(GroupBy::Drive, u);
        g.push(&middle);
        let only = g.finish();
        assert_eq!(only[0].after_slower_tier_runs, 1);
        let t = group_table(&only, &GroupBy::Drive, u, None);
        assert!(t.lines().nth(1).unwrap().contains("3441 MB/s †"), "{t}");
    }

    #[test]
    fn a_median_of_rates_that_left_heat_out_or_may_not_last_is_marked() {
        let u = UnitSystem::Decimal;
        let tags = BTreeMap::new();
        let w = Some("randwrite 4K QD32");
        let with = |id: i64, caveats: AfterCaveats, too_short: bool| {
            let mut r = run(id, &tags, w, 22e9, false);
            r.after_caveats = caveats;
            r.after_too_short = too_short;
            if too_short {
                r.after_cache_bytes_per_sec = None;
            }
            r
        };
        let heat = AfterCaveats::HEAT_LEFT_OUT;
        let tier = AfterCaveats::SLOWER_TIER_MAY_FOLLOW;
        let groups = |runs: &[GroupRow]| {
            let mut g = Grouping::new(GroupBy::Host, u);
            for r in runs {
                g.push(r);
            }
            g.finish()
        };
        let heated = groups(&[with(1, heat, false), with(2, AfterCaveats::NONE, false)]);
        assert_eq!(
            (heated[0].after_heat_runs, heated[0].after_slower_tier_runs),
            (1, 0)
        );
        let json = serde_json::to_value(&heated).unwrap();
        assert_eq!(
            (
                &json[0]["after_heat_runs"],
                &json[0]["after_slower_tier_runs"]
            ),
            (&1.into(), &0.into())
        );
        for width in [None, Some(80), Some(60)] {
            let t = group_table(&heated, &GroupBy::Host, u, width);
            let rows: Vec<&str> = t.lines().collect();
            assert!(rows[1].contains("580 MB/s *"), "{t}");
            assert!(!t.contains('†'), "{t}");
            assert!(t.contains("\n* after cache: heat left out\n"), "{t}");
        }
        let tiered = groups(&[with(1, tier, false), with(2, heat.with(tier), false)]);
        assert_eq!(
            (tiered[0].after_heat_runs, tiered[0].after_slower_tier_runs),
            (1, 2)
        );
        let t = group_table(&tiered, &GroupBy::Host, u, None);
        assert!(t.lines().nth(1).unwrap().contains("580 MB/s * †"), "{t}");
        assert!(
            t.contains("\n* after cache: heat left out\n† after cache: a slower tier may follow\n"),
            "{t}"
        );
        let t = group_table(
            &groups(&[with(1, tier, false)]),
            &GroupBy::Host,
            u,
            Some(60),
        );
        assert!(t.lines().nth(1).unwrap().contains("580 MB/s †"), "{t}");
        assert!(t.contains("† after cache: a slower tier may follow"), "{t}");
        assert!(!t.contains('*'), "{t}");
        // A rate too short to judge is in no median: its caveats mark none.
        let short = groups(&[
            with(1, heat.with(tier), true),
            with(2, AfterCaveats::NONE, false),
        ]);
        assert_eq!(
            (short[0].after_heat_runs, short[0].after_slower_tier_runs),
            (0, 0)
        );
        let t = group_table(&short, &GroupBy::Host, u, None);
        assert!(!t.contains('*') && !t.contains('†'), "{t}");
    }
    /// At 120 columns `runs --by host` gave the after-cache rate with its range ("993 MB/s †
    /// (129 MB/s to 3436 MB/s)") under a note that said the ranges were left out: the note
    /// speaks of the columns the table shows without theirs, at every width.
    #[test]
    fn the_note_on_left_out_ranges_says_only_what_is_left_out() {
        let u = UnitSystem::Decimal;
        let host = Group {
            by: "host".into(),
            group: "vm".into(),
            workload: None,
            drives: Some(6),
            workloads: Some(2),
            runs: 10,
            cache_bytes: Spread::of(vec![0.92e9, 2.03e9, 13.0e9, 41.9e9, 54.2e9, 90.4e9, 100e9]),
            cache_hedged_runs: 1,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![129e6, 293e6, 992e6, 994e6, 1188e6, 3436e6]),
            after_heat_runs: 0,
            after_slower_tier_runs: 2,
            after_slower_tier_left_out_runs: 0,
        };
        let mut seen = std::collections::BTreeSet::new();
        for width in 40..=200 {
            let t = group_table(std::slice::from_ref(&host), &GroupBy::Host, u, Some(width));
            let joined = t.replace("\n  ", " ");
            let head = t.lines().next().unwrap();
            let after = head.contains("after cache: median (range)");
            let cache = head
                .replace("after cache: median (range)", "")
                .contains("cache: median (range)");
            let row = t.lines().nth(1).unwrap();
            assert_eq!(after, row.contains("(129 MB/s to 3436 MB/s)"), "{t}");
            assert_eq!(
                joined.contains("median only: the ranges are left out"),
                !cache && !after,
                "{width}: {t}"
            );
            assert_eq!(
                joined.contains("cache: median only, its range left out"),
                !cache && after,
                "{width}: {t}"
            );
            assert_eq!(
                joined.contains("after cache: median only, its range left out"),
                cache && !after,
                "{width}: {t}"
            );
            seen.insert((cache, after));
        }
        // The widths tried give the table with both ranges, with the rate's only, and with
        // neither.
        assert!(
            seen.contains(&(false, true)) && seen.contains(&(true, true)),
            "{seen:?}"
        );
        assert!(seen.contains(&(false, false)), "{seen:?}");
    }
    /// `runs --by drive` showed less of a name at 80 columns ("…250GB (emu), cache=1GB")
    /// than at 50 ("960…250GB (emu)¹"): it cut the long name to 32 characters before it took
    /// the short form. At every width each name keeps its marker and its capacity, and a wider
    /// table never shows fewer of a name's words.
    #[test]
    fn a_wider_group_table_never_shows_less_of_a_name() {
        let u = UnitSystem::Decimal;
        let g = |name: &str, workload: &str, cache: Vec<f64>| Group {
            by: "drive".into(),
            group: name.into(),
            workload: Some(workload.into()),
            drives: None,
            workloads: None,
            runs: cache.len().max(1),
            cache_bytes: Spread::of(cache),
            cache_hedged_runs: 0,
            cache_hedged_left_out_runs: 0,
            after_cache_bytes_per_sec: Spread::of(vec![993e6]),
            after_heat_runs: 0,
            after_slower_tier_runs: 0,
            after_slower_tier_left_out_runs: 0,
        };
        let seq = "seqwrite 128K QD32";
        let groups = [
            g(
                "Crucial P5 1TB (simulated)",
                seq,
                vec![100e9, 100e9, 90.4e9],
            ),
            g("HP FX700 2TB (QLC) (simulated)", seq, vec![54.2e9]),
            g("Samsung SSD 960 EVO 1TB (simulated)", seq, vec![41.9e9]),
            g(
                "Samsung SSD 960 EVO 250GB (emulated), cache=1GB",
                "randwrite 4K QD32",
                vec![],
            ),
            g(
                "Samsung SSD 960 EVO 250GB (emulated), cache=2GB",
                "randwrite 4K QD32",
                vec![],
            ),
            g(
                "Samsung SSD 960 EVO 250GB (simulated)",
                seq,
                vec![13.0e9, 13.1e9],
            ),
        ];
        let caps = ["1TB", "2TB", "1TB", "250GB", "250GB", "250GB"];
        let words = |cell: &str| -> Vec<String> {
            cell.replace("(simulated)", "(sim)")
                .replace("(emulated)", "(emu)")
                .replace(['¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'], "")
                .split([' ', '…'])
                .map(|w| w.trim_end_matches(',').to_string())
                .filter(|w| !w.is_empty())
                .collect()
        };
        // Each word shown narrower is shown wider, whole or from its start.
        let covers = |wide: &str, narrow: &str| {
            let wide = words(wide);
            words(narrow)
                .iter()
                .all(|n| wide.iter().any(|w| w.starts_with(n.as_str())))
        };
        let mut before: Option<(usize, Vec<String>)> = None;
        for width in 40..=200 {
            let t = group_table(&groups, &GroupBy::Drive, u, Some(width));
            let cells: Vec<String> = t
                .lines()
                .skip(1)
                .take(groups.len())
                .map(|l| l.split("  ").next().unwrap().trim().to_string())
                .collect();
            for (c, cap) in cells.iter().zip(caps) {
                assert!(c.contains(cap), "{width}: {c:?}\n{t}");
                assert!(c.contains(" (sim)") || c.contains(" (emu)") || c.contains("ulated)"));
            }
            if let Some((w, prev)) = &before {
                for (p, c) in prev.iter().zip(&cells) {
                    assert!(covers(c, p), "{p:?} at {w} columns, {c:?} at {width}\n{t}");
                }
            }
            before = Some((width, cells));
        }
    }
}
