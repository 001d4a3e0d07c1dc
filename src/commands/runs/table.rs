//! The listing of `slccache runs`: the table, its cells, and the CSV.

use anyhow::Result;

use crate::detect::AfterCaveats;
use crate::store::RunRow;
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The drive's cell: its model (or label, or target), and for an emulated or simulated drive
/// made with options the options it was made with ("..., cache=1GB"), which make it another
/// drive than the preset (as `--by drive` and `history` keep it).
pub(super) fn drive(r: &RunRow) -> String {
    let name = r
        .model
        .clone()
        .or_else(|| r.label.clone())
        .or_else(|| r.target.clone())
        .unwrap_or_else(|| "-".into());
    match crate::store::drive::options_made_with(r) {
        Some(o) if r.model.is_some() || r.label.is_some() => format!("{name}, {o}"),
        // A file's name, not a drive's (its report says the drive is not recorded).
        _ if crate::store::drive::DriveOf::of(r).drive_not_recorded() => {
            format!("{name} ({})", crate::store::drive::NOT_RECORDED)
        }
        _ => name,
    }
}

/// The short markers of a simulated and an emulated drive in a table fitted to a narrow
/// terminal ([`short_drive`]), each with its meaning.
const SHORT_MARKERS: [(&str, &str, &str); 2] = [
    (" (simulated)", " (sim)", "simulated"),
    (" (emulated)", " (emu)", "emulated"),
];

/// A simulated or emulated drive's cell ([`drive`]) in fewer characters, for a table fitted to
/// a narrow terminal: the marker short (`(sim)`, `(emu)`), the model's remarks in
/// parentheses left out, and its maker and "SSD" where the model keeps two words or more
/// (`Samsung SSD 960 EVO 500GB (simulated)` as `960 EVO 500GB (sim)`, `HP FX700 2TB (QLC)
/// (simulated)` as `FX700 2TB (sim)`); the options it was made with stay. Any other cell is
/// as it is: a real drive's name is the drive's own, and cut, if at all, as any cell is.
pub(super) fn short_drive(cell: &str) -> String {
    let Some((i, long, short)) = SHORT_MARKERS.iter().find_map(|(long, short, _)| {
        let i = cell.rfind(long)?;
        let rest = &cell[i + long.len()..];
        (rest.is_empty() || rest.starts_with(", ")).then_some((i, *long, *short))
    }) else {
        return cell.to_string();
    };
    let rest = &cell[i + long.len()..];
    // The model without its remarks in parentheses.
    let mut model = String::new();
    let mut depth = 0usize;
    for c in cell[..i].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => model.push(c),
            _ => {}
        }
    }
    let mut words: Vec<&str> = model.split_whitespace().collect();
    if words.len() >= 3 {
        words.remove(0);
    }
    if words.len() >= 3 {
        words.retain(|w| *w != "SSD");
    }
    format!("{}{short}{rest}", words.join(" "))
}

/// What the short markers of `cells` ([`short_drive`]) stand for, as a note under the table
/// (none where no cell has one).
pub(super) fn short_marker_note(cells: &[String]) -> Vec<String> {
    let used: Vec<String> = SHORT_MARKERS
        .iter()
        .filter(|(_, short, _)| cells.iter().any(|c| c.contains(short)))
        .map(|(_, short, meaning)| format!("{}: {meaning}", short.trim()))
        .collect();
    if used.is_empty() {
        vec![]
    } else {
        vec![format!("drive {}", used.join(", "))]
    }
}

pub(super) fn cache(r: &RunRow, units: UnitSystem) -> String {
    if let Some(f) = &r.findings {
        return f.cache_cell(units);
    }
    match (r.cache_bytes, r.cache_low_bytes, r.cache_high_bytes) {
        (Some(c), Some(lo), Some(hi)) => format!(
            "{} ({}-{})",
            format_bytes(c as f64, units),
            format_bytes(lo as f64, units),
            format_bytes(hi as f64, units)
        ),
        (Some(c), _, _) => format_bytes(c as f64, units),
        _ => match r.cache_lower_bound_bytes {
            Some(lb) => format!("none or > {}", format_bytes(lb as f64, units)),
            None => "-".into(),
        },
    }
}

pub(super) fn rate(v: Option<f64>, units: UnitSystem) -> String {
    v.map_or_else(|| "-".into(), |x| format_rate(x, units))
}

/// The rate in the cache: the findings' figure, naming the link where it was at the link's
/// limit, else the stored rate.
pub(super) fn in_rate(r: &RunRow, units: UnitSystem) -> String {
    r.findings
        .as_ref()
        .and_then(|f| f.in_cache_cell(units))
        .unwrap_or_else(|| rate(r.in_cache_bytes_per_sec, units))
}

/// The rate after the cache: the findings' figure (a range where the stretch was not
/// steady), else the stored rate.
pub(super) fn after(r: &RunRow, units: UnitSystem) -> String {
    match &r.findings {
        Some(f) => f.after_cell(units).unwrap_or_else(|| "-".into()),
        None => rate(r.after_cache_bytes_per_sec, units),
    }
}

/// The workload in a few words: `randwrite 4K QD32`, `seqwrite 1M QD8 x4` (`-` when not
/// recorded).
pub fn workload_cell(r: &RunRow) -> String {
    r.workload
        .as_ref()
        .map_or_else(|| "-".into(), |w| w.in_words())
}

/// The run's date as `YYYY-MM-DD HH:MM` (UTC).
pub(super) fn short_date(d: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(d) {
        Ok(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => d.to_string(),
    }
}

/// The run's date cell: [`short_date`], or where the run's own start was not recorded (a
/// hand-made CSV analysed), the time the store recorded it, said to be so: `2026-12-07 10:25
/// (recorded)` (it stood bare beside report.md's "Run date: not recorded").
pub(super) fn date_cell(r: &RunRow) -> String {
    let d = short_date(&r.date);
    if r.started_at.is_none() {
        format!("{d} {RECORDED}")
    } else {
        d
    }
}

/// What a date cell of a run whose own start was not recorded says after the date.
const RECORDED: &str = "(recorded)";

/// Each run's `ran` cell, by id, as `runs` and the library page give it: its kind, `(interrupted)`
/// after it, or for an analysis of a measurement another listed run holds (the same start
/// time, analysed into a folder of its own), the run that measured (`analyze of 5`): a run of
/// its own, but no second measurement, as `history` counts it once (the library page gave
/// it as a bare "analyze").
pub(super) fn ran_cells(rows: &[RunRow]) -> std::collections::HashMap<i64, String> {
    let mut first_at: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for r in rows {
        if let Some(at) = r.started_at.as_deref() {
            let id = first_at.entry(at).or_insert(r.id);
            *id = (*id).min(r.id);
        }
    }
    rows.iter()
        .map(|r| {
            let of = r
                .started_at
                .as_deref()
                .and_then(|at| first_at.get(at))
                .filter(|&&id| id != r.id && r.kind == "analyze");
            let cell = match (of, r.interrupted) {
                (Some(id), _) => format!("{} of {id}", r.kind),
                (None, true) => format!("{} (interrupted)", r.kind),
                (None, false) => r.kind.clone(),
            };
            (r.id, cell)
        })
        .collect()
}

/// The listing as a table with a header line, fitted to `width` columns (`None`: every
/// column whole): the serial, host and kind of run are left out in that order, the date
/// loses its time and the rate in the cache its link, the rate after the cache takes its
/// short form (both ends of a range and its qualifier kept), the workload its short form
/// (`rand 4K QD32`), the drive's name is shortened (its `(simulated)` or `(emulated)` kept),
/// then the date goes, then the rate in the cache, the drive's name is shortened further, and
/// last the workload goes (which tells two runs of one drive apart); the cache and its
/// interval stay whole.
pub fn table(rows: &[RunRow], units: UnitSystem, width: Option<usize>) -> String {
    use super::fit::{Step, Table};
    let head = [
        "id",
        "date",
        "drive",
        "serial",
        "host",
        "ran",
        "workload",
        "cache (95% interval)",
        "in cache",
        "after cache",
    ];
    let ran = ran_cells(rows);
    let ran = |r: &RunRow| ran[&r.id].clone();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.id.to_string(),
                date_cell(r),
                drive(r),
                r.serial.clone().unwrap_or_else(|| "-".into()),
                r.host.clone().unwrap_or_else(|| "-".into()),
                ran(r),
                workload_cell(r),
                cache(r, units),
                in_rate(r, units),
                after(r, units),
            ]
        })
        .collect();
    // The date without its time of day, before the date goes; the rate in the cache
    // without the link it was at the limit of.
    let days: Vec<String> = rows
        .iter()
        .zip(&cells)
        .map(|(r, c)| {
            let day: String = c[1].chars().take(10).collect();
            match r.started_at {
                None => format!("{day} {RECORDED}"),
                Some(_) => day,
            }
        })
        .collect();
    // A drop not confirmed has no rate in the cache, only the rate before it (`>= 1206 MB/s
    // (first sample; unconfirmed)`): its cell as it is, not the "-" of no figure; a rate that
    // may be a later tier's keeps its "(before the cliff)".
    let in_rates: Vec<String> = rows
        .iter()
        .map(|r| {
            r.findings
                .as_ref()
                .and_then(|f| f.in_cache_short_cell(units))
                .unwrap_or_else(|| rate(r.in_cache_bytes_per_sec, units))
        })
        .collect();
    // The rate after the cache in fewer characters, both ends of a range and its qualifier
    // kept: the column is never cut.
    let short_after: Vec<String> = rows
        .iter()
        .map(
            |r| match r.findings.as_ref().and_then(|f| f.after_short_cell(units)) {
                Some(a) => a,
                None => after(r, units),
            },
        )
        .collect();
    // Narrower still: what the rate leaves out or may not be as a mark, said under the table;
    // so too the level after a drop not confirmed that heat in every later sample makes a
    // floor (its cell, `>= 870 MB/s (unconfirmed; heat in every later sample)`, was 53
    // characters, and the row 107 at 80 columns after every other column had gone).
    let mut marks_used: Vec<&str> = Vec::new();
    let mut floor_marked = false;
    let marked_after: Vec<String> = rows
        .iter()
        .map(|r| match r.findings.as_ref() {
            Some(crate::detect::Findings {
                after: None,
                cache: crate::detect::findings::Cache::Unconfirmed(d),
                ..
            }) if d.after_is_floor => {
                floor_marked = true;
                format!(
                    ">= {} {FLOOR_MARK}",
                    format_rate(d.after_bytes_per_sec, units)
                )
            }
            Some(f) if f.after.is_some() => {
                let caveats = f.after_caveat_set();
                let mut c = f.after.as_ref().map(|a| a.short_text(units)).unwrap();
                for (caveat, mark) in AFTER_MARKS {
                    if caveats.contains(caveat) {
                        c = format!("{c} {mark}");
                        if !marks_used.contains(&mark) {
                            marks_used.push(mark);
                        }
                    }
                }
                c
            }
            _ => after(r, units),
        })
        .collect();
    let mut after_notes: Vec<String> = AFTER_MARKS
        .iter()
        .filter(|(_, m)| marks_used.contains(m))
        .map(|&(caveat, m)| after_mark_note(caveat, m))
        .collect();
    if floor_marked {
        after_notes.push(format!(
            "{FLOOR_MARK} after cache: {}",
            crate::detect::findings::AFTER_FLOOR_WORDS
        ));
    }
    // The interval with the unit once where both ends share it: `13.0 GB (13.0-13.1 GB)`; a
    // size a faster first tier hidden in the first sample could make a later tier's is
    // marked, and the mark said under the table.
    let mut hidden_marked = false;
    // A range of sizes with the unit once where both ends share it (`81.6-289 GB`).
    let short_range = |low: u64, high: u64| {
        let (lo, hi) = crate::units::format_bytes_range(low as f64, high as f64, units);
        match (lo.rsplit_once(' '), hi.rsplit_once(' ')) {
            (Some((l, lu)), Some((_, hu))) if lu == hu => format!("{l}-{hi}"),
            _ => format!("{lo}-{hi}"),
        }
    };
    let short_cache: Vec<String> = rows
        .iter()
        .zip(&cells)
        .map(|(r, c)| {
            match r
                .findings
                .as_ref()
                .map(|f| (&f.cache, f.first_sample_hides))
            {
                Some((
                    crate::detect::findings::Cache::Sized {
                        bytes,
                        low_bytes,
                        high_bytes,
                    },
                    hides,
                )) => {
                    let mut short = format!(
                        "{} ({})",
                        crate::report::console::terminal::estimate_text(
                            *bytes,
                            *low_bytes,
                            *high_bytes,
                            units
                        ),
                        short_range(*low_bytes, *high_bytes)
                    );
                    if r.findings.as_ref().is_some_and(|f| f.fell_gradually) {
                        short.push_str(" (gradual)");
                    }
                    if r.findings.as_ref().is_some_and(|f| f.heat_at_cliff) {
                        short.push_str(" (heat)");
                    }
                    match hides {
                        Some(_) => {
                            hidden_marked = true;
                            format!("{short} {HIDDEN_TIER_MARK}")
                        }
                        None => short,
                    }
                }
                // A drop inside the first sample: its bounds (the unit once, as a size's
                // interval: "81.6 GB to 289 GB" was the widest cell of the column, and the
                // drive's names were cut to 12 characters for it), marked as a size is for the
                // faster first tier that sample may hide.
                Some((crate::detect::findings::Cache::Unconfirmed(d), _))
                    if d.at == crate::detect::DropWhere::FirstSample =>
                {
                    if d.heat_may_hide_end() {
                        // Heat in every later sample, or in the first: the cache may have run
                        // out under it, and no bound holds.
                        "no size (heat)".to_string()
                    } else if d.bytes_high > d.bytes_low {
                        hidden_marked = true;
                        format!(
                            "{} (unconfirmed) {HIDDEN_TIER_MARK}",
                            short_range(d.bytes_low, d.bytes_high)
                        )
                    } else {
                        hidden_marked = true;
                        format!(
                            "{} (unconfirmed) {HIDDEN_TIER_MARK}",
                            crate::units::format_bytes(d.bytes_low as f64, units)
                        )
                    }
                }
                // Any other drop not confirmed, its bounds so too.
                Some((crate::detect::findings::Cache::Unconfirmed(d), _))
                    if d.bytes_high > d.bytes_low =>
                {
                    format!("{} (unconfirmed)", short_range(d.bytes_low, d.bytes_high))
                }
                // A cliff past a span the writes wrapped: no size, said short.
                Some((crate::detect::findings::Cache::Wrapped { .. }, _)) => {
                    "no size (wrapped)".into()
                }
                _ => c[7].clone(),
            }
        })
        .collect();
    let cache_notes: Vec<String> = if hidden_marked {
        vec![format!(
            "{HIDDEN_TIER_MARK} cache: or a later tier's, were a faster first tier hidden in the \
             first sample (runs show ID says how large)"
        )]
    } else {
        vec![]
    };
    let short_drives: Vec<String> = cells.iter().map(|c| short_drive(&c[2])).collect();
    let drive_notes = short_marker_note(&short_drives);
    let short_workloads: Vec<String> = rows
        .iter()
        .map(|r| {
            r.workload
                .as_ref()
                .map_or_else(|| "-".into(), |w| short_workload(&w.in_words()))
        })
        .collect();
    Table {
        head: head.map(String::from).to_vec(),
        rows: cells,
        right: vec![0],
    }
    .render(
        width,
        vec![
            Step::Drop(3),
            Step::Drop(4),
            Step::Drop(5),
            Step::Short(1, "date".into(), days),
            Step::Short(8, "in cache".into(), in_rates),
            Step::Short(9, "after cache".into(), short_after),
            Step::Marked(7, "cache (95% interval)".into(), short_cache, cache_notes),
            Step::Marked(9, "after cache".into(), marked_after, after_notes),
            Step::Short(6, "workload".into(), short_workloads),
            // The drive's name short before it is cut at all: a cut to 24 characters kept the
            // maker and the qualifier and lost the capacity ("Samsung PM983…cache)
            // (simulated)" at 100 to 160 columns), and "Sam… (simulated)" was every Samsung
            // at 80.
            Step::Marked(2, "drive".into(), short_drives, drive_notes),
            Step::Narrow(2, 24),
            Step::Drop(1),
            // Rather than cut a range or a qualifier of the figures left: the rate in the
            // cache first, then the workload, without which no figure of two runs of one
            // drive can be told apart; the drive's name cut to a few letters last. Cut
            // before the workload went, a name was cut at 81 to 90 columns and whole at 80
            // ("…2TB (sim)" at 69 columns, "FX700 2TB (sim)" at 68): a wider table showed
            // less of it, and a wider table never does ([`Table::render`]).
            Step::Drop(8),
            Step::Drop(6),
            Step::Narrow(2, 12),
        ],
    )
}

/// The mark of a size that a faster first tier hidden in the first sample could make a later
/// tier's, in a table fitted to a narrow terminal.
const HIDDEN_TIER_MARK: &str = "‡";

/// The mark of a level after a drop not confirmed that is a floor, every later sample having
/// held heat ([`crate::detect::findings::AFTER_FLOOR_WORDS`]), in a table fitted to a narrow
/// terminal: `>= 870 MB/s §`. Not `*`, which says that heat was left out of a rate.
const FLOOR_MARK: &str = "§";

/// A workload in words ([`workload_cell`]) in fewer characters: `randwrite 4K QD32` as
/// `rand 4K QD32`, `seqwrite` as `seq`, reads as `rand read` and `seq read`.
pub(super) fn short_workload(words: &str) -> String {
    let (pattern, rest) = words.split_once(' ').unwrap_or((words, ""));
    let short = match pattern {
        "randwrite" => "rand",
        "seqwrite" => "seq",
        "randread" => "rand read",
        "seqread" => "seq read",
        p => p,
    };
    if rest.is_empty() {
        short.to_string()
    } else {
        format!("{short} {rest}")
    }
}

/// The marks that stand for what a rate after the cache leaves out or may not be
/// ([`crate::detect::Findings::after_caveats`]) in a table fitted to a narrow terminal, and
/// after a median of `runs --by` that takes such a rate in.
pub(super) const AFTER_MARKS: [(AfterCaveats, &str); 2] = [
    (AfterCaveats::HEAT_LEFT_OUT, "*"),
    (AfterCaveats::SLOWER_TIER_MAY_FOLLOW, "†"),
];

/// What `mark` ([`AFTER_MARKS`]) after a rate after the cache stands for, said under a table
/// that has one: `* after cache: heat left out`.
pub(super) fn after_mark_note(caveat: AfterCaveats, mark: &str) -> String {
    format!("{mark} after cache: {}", caveat.words().join("; "))
}

/// Tags as `key=value` pairs separated by `;`, keys in order.
pub(super) fn tags_text(tags: &std::collections::BTreeMap<String, String>) -> String {
    tags.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// What the run found of the cache, as `findings.cache.kind` names it (`sized`, `at_least`,
/// `none_over_whole_drive`, `unconfirmed`, `too_few_samples`, `nothing_written`, `read_only`,
/// `not_estimated`); empty for runs recorded before summaries held findings.
fn finding_kind(r: &RunRow) -> String {
    r.findings
        .as_ref()
        .and_then(|f| serde_json::to_value(&f.cache).ok())
        .and_then(|v| v["kind"].as_str().map(String::from))
        .unwrap_or_default()
}

/// The most the cache can be where the run bounds it from above: a drop inside the first
/// sample, if it was the cache running out.
fn upper_bound(r: &RunRow) -> Option<i64> {
    match r.findings.as_ref().map(|f| &f.cache) {
        Some(crate::detect::findings::Cache::Unconfirmed(d)) => {
            d.upper_bytes().and_then(|b| i64::try_from(b).ok())
        }
        _ => None,
    }
}

/// The range of a stretch after the cache that was not steady, bytes/s.
fn after_range(r: &RunRow) -> Option<(f64, f64)> {
    match r.findings.as_ref().and_then(|f| f.after.as_ref()) {
        Some(crate::detect::findings::After::NotSteady {
            low_bytes_per_sec,
            high_bytes_per_sec,
        }) => Some((*low_bytes_per_sec, *high_bytes_per_sec)),
        _ => None,
    }
}

/// What the steady-state test said of the stretch after the cache (`steady`, `too_short`,
/// `not_steady`), `unconfirmed` after a drop that was not confirmed, or empty.
fn after_judged(r: &RunRow) -> &'static str {
    let Some(f) = r.findings.as_ref() else {
        return "";
    };
    match (&f.after, &f.cache) {
        (Some(a), _) => a.judged(),
        (None, crate::detect::findings::Cache::Unconfirmed(_)) => "unconfirmed",
        _ => "",
    }
}

/// The level after a drop that was not confirmed, bytes/s.
fn unconfirmed_after(r: &RunRow) -> Option<f64> {
    match r.findings.as_ref().map(|f| &f.cache) {
        Some(crate::detect::findings::Cache::Unconfirmed(d)) => Some(d.after_bytes_per_sec),
        _ => None,
    }
}

/// The listing as CSV (SI base units: bytes, bytes per second).
pub fn csv_text(rows: &[RunRow]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "id",
        "date",
        "kind",
        "model",
        "serial",
        "firmware",
        "capacity_bytes",
        "host",
        "label",
        "cache_bytes",
        "cache_low_bytes",
        "cache_high_bytes",
        "cache_lower_bound_bytes",
        "in_cache_bytes_per_sec",
        "after_cache_bytes_per_sec",
        "data_units_written",
        "percentage_used",
        "interrupted",
        "tags",
        "pattern",
        "block_size",
        "queue_depth",
        "jobs",
        "cache_finding",
        "cache_upper_bound_bytes",
        "after_cache_low_bytes_per_sec",
        "after_cache_high_bytes_per_sec",
        "after_cache_judged",
        "unconfirmed_after_bytes_per_sec",
    ])?;
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    let i = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
    let f = |v: Option<f64>| v.map(|x| format!("{x:.1}")).unwrap_or_default();
    for r in rows {
        w.write_record([
            r.id.to_string(),
            r.date.clone(),
            r.kind.clone(),
            o(&r.model),
            o(&r.serial),
            o(&r.firmware),
            i(r.capacity_bytes),
            o(&r.host),
            o(&r.label),
            i(r.cache_bytes),
            i(r.cache_low_bytes),
            i(r.cache_high_bytes),
            i(r.cache_lower_bound_bytes),
            f(r.in_cache_bytes_per_sec),
            f(r.after_cache_bytes_per_sec),
            i(r.data_units_written),
            i(r.percentage_used),
            r.interrupted.to_string(),
            tags_text(&r.tags),
            r.workload
                .as_ref()
                .map(|w| w.pattern.clone())
                .unwrap_or_default(),
            i(r.workload
                .as_ref()
                .and_then(|w| w.block_size)
                .map(|x| x as i64)),
            i(r.workload
                .as_ref()
                .and_then(|w| w.queue_depth)
                .map(i64::from)),
            i(r.workload.as_ref().and_then(|w| w.jobs).map(i64::from)),
            finding_kind(r),
            i(upper_bound(r)),
            f(after_range(r).map(|x| x.0)),
            f(after_range(r).map(|x| x.1)),
            after_judged(r).to_string(),
            f(unconfirmed_after(r)),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use crate::detect::findings::After;

    /// At 80 columns no cell loses a range's end, a "(not steady)"-type qualifier or a
    /// "(simulated)" marker (they read `595 MB/s to 1…` and `Crucial P5 1TB (si…`).
    #[test]
    fn a_narrow_table_keeps_ranges_qualifiers_and_markers() {
        let findings = |after: After| {
            let mut f: crate::detect::Findings =
                serde_json::from_str(r#"{"cache":{"kind":"sized","bytes":100000000000,"low_bytes":99900000000,"high_bytes":101000000000},"in_cache_bytes_per_sec":2.0e9,"level_bytes_per_sec":null,"steps":[],"after":null,"phase_names":[]}"#)
                    .unwrap();
            f.after = Some(after);
            f
        };
        let row = |id: i64, after: After| RunRow {
            id,
            kind: "simulate".into(),
            date: "2026-12-04T22:43:36Z".into(),
            model: Some("Crucial P5 1TB (simulated)".into()),
            target: Some("sim:p5-1tb".into()),
            host: Some("vm".into()),
            cache_bytes: Some(100_000_000_000),
            cache_low_bytes: Some(99_900_000_000),
            cache_high_bytes: Some(101_000_000_000),
            findings: Some(findings(after)),
            ..Default::default()
        };
        let rows = [
            row(
                1,
                After::NotSteady {
                    low_bytes_per_sec: 595e6,
                    high_bytes_per_sec: 1356e6,
                },
            ),
            row(
                2,
                After::TooShort {
                    bytes_per_sec: 279e6,
                },
            ),
        ];
        let t = table(&rows, UnitSystem::Decimal, Some(80));
        assert!(t.contains("595-1356 MB/s (not steady)"), "{t}");
        assert!(t.contains("279 MB/s (too short)"), "{t}");
        // The marker whole, in its short form where the name went short, said under the
        // table.
        let short = t.matches(" (sim) ").count();
        assert_eq!(t.matches(" (simulated)").count() + short, 2, "{t}");
        assert!(short == 0 || t.contains("drive (sim): simulated"), "{t}");
    }

    /// At 80 columns four simulated drives read "Sam… (simulated)", "Kin… (simulated)", "HP…
    /// (simulated)" and "Sam… (simulated)": the two Samsungs alike, no model named. Their
    /// names go short first (the marker `(sim)`, said under the table), and each row names
    /// its model.
    #[test]
    fn a_narrow_table_names_each_drives_model() {
        let f: crate::detect::Findings = serde_json::from_str(
            r#"{"cache":{"kind":"sized","bytes":100000000000,"low_bytes":99900000000,"high_bytes":101000000000},"in_cache_bytes_per_sec":2.0e9,"level_bytes_per_sec":null,"steps":[],"after":{"kind":"not_steady","low_bytes_per_sec":595e6,"high_bytes_per_sec":1356e6},"phase_names":[]}"#,
        )
        .unwrap();
        let models = [
            ("Samsung SSD 960 EVO 500GB (simulated)", "960"),
            ("Kingston A2000 1TB (simulated)", "A2000"),
            ("HP FX700 2TB (QLC) (simulated)", "FX700"),
            (
                "Samsung PM983 960GB (enterprise, no SLC cache) (simulated)",
                "PM9",
            ),
        ];
        let rows: Vec<RunRow> = models
            .iter()
            .enumerate()
            .map(|(i, (model, _))| RunRow {
                id: i as i64 + 1,
                kind: "simulate".into(),
                date: "2026-12-05T21:49:00Z".into(),
                model: Some(model.to_string()),
                host: Some("vm".into()),
                cache_bytes: Some(100_000_000_000),
                findings: Some(f.clone()),
                ..Default::default()
            })
            .collect();
        let t = table(&rows, UnitSystem::Decimal, Some(80));
        let lines: Vec<&str> = t.lines().collect();
        for (k, (_, word)) in models.iter().enumerate() {
            let l = lines[k + 1];
            assert!(l.chars().count() <= 80, "{t}");
            assert!(
                l.contains(word) && l.contains(" (sim)"),
                "row {}: {t}",
                k + 1
            );
        }
        assert!(t.contains("drive (sim): simulated"), "{t}");
        // Between 80 and a width that holds every name whole, each row keeps its model and
        // its capacity: a cut to 24 characters came before the short names, and read
        // "Samsung PM983…cache) (simulated)" at 100 to 160 columns.
        let capacity = ["500GB", "1TB", "2TB", "960GB"];
        for width in (80..=200).step_by(5) {
            let t = table(&rows, UnitSystem::Decimal, Some(width));
            let lines: Vec<&str> = t.lines().collect();
            for (k, (_, word)) in models.iter().enumerate() {
                let l = lines[k + 1];
                assert!(l.chars().count() <= width, "{width}: {t}");
                assert!(
                    l.contains(word) && l.contains(capacity[k]),
                    "{width}, row {}: {t}",
                    k + 1
                );
            }
        }
    }

    /// A simulated run of `model`, made from `target`, with a `pattern` workload of `bs`
    /// bytes a write and the findings `findings` (their JSON).
    fn sim_row(
        id: i64,
        model: &str,
        target: &str,
        pattern: &str,
        bs: u64,
        findings: &str,
    ) -> RunRow {
        RunRow {
            id,
            kind: "simulate".into(),
            date: "2026-12-06T00:37:31Z".into(),
            started_at: Some("2026-12-06T00:37:31Z".into()),
            model: Some(model.into()),
            label: Some(model.into()),
            target: Some(target.into()),
            host: Some("vm".into()),
            findings: Some(serde_json::from_str(findings).unwrap()),
            workload: Some(
                serde_json::from_value(serde_json::json!({
                    "pattern": pattern, "block_size": bs, "queue_depth": 32, "jobs": 1
                }))
                .unwrap(),
            ),
            ..Default::default()
        }
    }

    /// Findings of a cache sized at `gb` GB (low and high ends as given) with a steady rate
    /// after it, which a slower tier may follow where `tier`.
    fn sized(gb: [f64; 3], after: f64, tier: bool) -> String {
        format!(
            r#"{{"cache":{{"kind":"sized","bytes":{},"low_bytes":{},"high_bytes":{}}},"in_cache_bytes_per_sec":1.4e9,"level_bytes_per_sec":null,"steps":[],"after":{{"kind":"steady","bytes_per_sec":{after}}},"slower_tier_may_follow":{tier}}}"#,
            gb[0] * 1e9,
            gb[1] * 1e9,
            gb[2] * 1e9
        )
    }

    /// The runs of a trial store: seven simulated drives, one of them a 960 EVO made with
    /// `cache=8GB`, and a p5 sampled every 4 min, whose drop inside the first sample was not
    /// confirmed and whose level after it heat in every later sample makes a floor.
    fn trial_rows() -> Vec<RunRow> {
        let rand = |id, model: &str, target: &str, f: String| {
            sim_row(id, model, target, "randwrite", 4096, &f)
        };
        vec![
            rand(1, "Samsung SSD 960 EVO 500GB (simulated)", "sim:960evo-500g", sized([22.0, 21.9, 22.5], 591e6, false)),
            rand(2, "Samsung SSD 960 EVO 500GB (simulated)", "sim:960evo-500g,cache=8GB", sized([8.02, 7.92, 8.09], 589e6, false)),
            rand(3, "Crucial P5 1TB (simulated)", "sim:p5-1tb", sized([100.0, 99.9, 101.0], 1000e6, true)),
            rand(4, "HP FX700 2TB (QLC) (simulated)", "sim:fx700-2tb", sized([53.8, 53.1, 54.6], 3510e6, true)),
            rand(
                5,
                "Samsung PM983 960GB (enterprise, no SLC cache) (simulated)",
                "sim:pm983-960g",
                r#"{"cache":{"kind":"none_over_whole_drive","capacity_bytes":960000000000},"in_cache_bytes_per_sec":null,"level_bytes_per_sec":1.05e9,"steps":[],"after":null}"#.into(),
            ),
            rand(6, "Kingston A2000 1TB (simulated)", "sim:a2000-1tb", sized([150.0, 150.0, 151.0], 490e6, false)),
            rand(7, "Samsung SSD 970 EVO 500GB (simulated)", "sim:970evo-500g", sized([22.0, 21.9, 22.1], 629e6, false)),
            sim_row(
                8,
                "Crucial P5 1TB (simulated)",
                "sim:p5-1tb",
                "seqwrite",
                1 << 20,
                r#"{"after":null,"cache":{"after_bytes_per_sec":866026028.575,"after_is_floor":true,"after_s":896.0,"at":"first_sample","before_bytes_per_sec":1205959594.75,"bytes_high":289430302741,"bytes_low":81584055883,"interval_s":240.0,"kind":"unconfirmed","t_high_s":240.0,"t_s":0.0},"cliffs_asked":2,"in_cache_bytes_per_sec":null,"level_bytes_per_sec":880251829.6,"phase_names":[],"steps":[],"thermal_throttling":[{"from_s":240.0,"to_s":1136.0}]}"#,
            ),
        ]
    }

    /// At 80 columns a run whose rate after the cache read ">= 870 MB/s (unconfirmed; heat in
    /// every later sample)" had no short form: its row was 107 characters, and the date, the
    /// rate in the cache and the workload were left out of every row for it. The level takes
    /// a mark, `>= 866 MB/s §`, said under the table, and the row fits, at 90 columns beside
    /// the workload.
    #[test]
    fn a_floor_after_an_unconfirmed_drop_is_marked_to_fit() {
        let rows = trial_rows();
        let t = table(&rows, UnitSystem::Decimal, Some(80));
        for l in t.lines() {
            assert!(
                l.chars().count() <= 80,
                "{} wide: {l:?}\n{t}",
                l.chars().count()
            );
        }
        let row = t.lines().find(|l| l.starts_with(" 8 ")).unwrap();
        assert!(row.ends_with(" >= 866 MB/s §"), "{t}");
        // A little wider, beside the workload (at 80 it goes before the names are cut).
        let t = table(&rows, UnitSystem::Decimal, Some(90));
        assert!(t.lines().next().unwrap().contains(" workload "), "{t}");
        let row = t.lines().find(|l| l.starts_with(" 8 ")).unwrap();
        assert!(row.ends_with(" >= 866 MB/s §"), "{t}");
        assert!(row.contains(" seq 1M QD32 "), "{t}");
        assert!(
            t.contains("\n§ after cache: unconfirmed; or hidden by heat in every later sample\n"),
            "{t}"
        );
        // `§`, not `*`: the heat was not left out of this level; it is in every sample.
        assert!(!t.contains("* after cache"), "{t}");
        // Whole where the table has room, with no mark.
        let wide = table(&rows, UnitSystem::Decimal, None);
        assert!(
            wide.contains(">= 866 MB/s (unconfirmed; or hidden by heat in every later sample)"),
            "{wide}"
        );
        assert!(!wide.contains('§'), "{wide}");
    }

    /// At 80 columns the 960 EVO made with `cache=8GB` read "960… (sim)…" beside the preset's
    /// "960… (sim)": told apart only by a "…" that nothing under the table explained; and
    /// "PM983 960GB (sim)" read "PM983… (sim)" though the table had room for it, since the
    /// widest cell of the cache column, a drop's bounds with their unit twice, took it. What
    /// the cut leaves out of a name is said under the table by a numbered mark, and the names
    /// that fit are whole.
    #[test]
    fn a_cut_drive_name_says_what_it_left_out_and_names_that_fit_are_whole() {
        let rows = trial_rows();
        let t = table(&rows, UnitSystem::Decimal, Some(80));
        for l in t.lines() {
            assert!(
                l.chars().count() <= 80,
                "{} wide: {l:?}\n{t}",
                l.chars().count()
            );
        }
        let row = |id: &str| t.lines().find(|l| l.starts_with(id)).unwrap();
        for (id, name) in [
            (" 3 ", "P5 1TB (sim) "),
            (" 4 ", "FX700 2TB (sim) "),
            (" 5 ", "PM983 960GB (sim) "),
            (" 6 ", "A2000 1TB (sim) "),
            (" 8 ", "P5 1TB (sim) "),
        ] {
            assert!(row(id).contains(name), "{name}: {t}");
        }
        // No cell ends its name with a bare "…" after its marker.
        assert!(!t.contains("(sim)…"), "{t}");
        // The preset's 960 EVO and the one made with options are told apart by a mark, and
        // the mark is said plainly under the table.
        let (one, two) = (row(" 1 "), row(" 2 "));
        assert!(one.contains(" (sim) ") && !one.contains('¹'), "{t}");
        assert!(two.contains(" (sim)¹ "), "{t}");
        assert!(
            t.contains("\n¹ drive: 960 EVO 500GB (sim), cache=8GB\n"),
            "{t}"
        );
        // No size: heat in every later sample hides where the cache ran out.
        assert!(row(" 8 ").contains(" no size (heat) "), "{t}");
        // Wide, every name whole, no mark.
        let wide = table(&rows, UnitSystem::Decimal, None);
        assert!(
            wide.contains("Samsung SSD 960 EVO 500GB (simulated), cache=8GB"),
            "{wide}"
        );
        assert!(!wide.contains('¹'), "{wide}");
    }

    /// Where the rate in the cache took its short form, a drop not confirmed gave "-", as if
    /// the run had no figure, beside its whole cell's ">= 1206 MB/s (first sample;
    /// unconfirmed)": the short form keeps that cell.
    #[test]
    fn a_short_rate_in_the_cache_keeps_the_rate_before_an_unconfirmed_drop() {
        let rows = trial_rows();
        let mut shown = 0;
        for w in (100..=240).step_by(10) {
            let t = table(&rows, UnitSystem::Decimal, Some(w));
            if !t.lines().next().unwrap().contains(" in cache ") {
                continue;
            }
            shown += 1;
            let row = t.lines().find(|l| l.starts_with(" 8 ")).unwrap();
            assert!(
                row.contains(" >= 1206 MB/s (first sample; unconfirmed) "),
                "at {w}:\n{t}"
            );
        }
        assert!(shown > 0, "no width shows the rate in the cache");
    }
    /// A rate before a cliff that a faster first tier hidden in the first sample could make a
    /// later tier's is "before the cliff" on the card; at 160 columns `runs` gave it bare,
    /// "1999 MB/s", under "in cache". Every width that shows the rate says what it may be.
    #[test]
    fn a_rate_before_the_cliff_is_never_bare_under_in_cache() {
        let mut rows = trial_rows();
        rows.push(sim_row(
            9,
            "Crucial P5 1TB (simulated)",
            "sim:p5-1tb",
            "randwrite",
            4096,
            r#"{"cache":{"kind":"sized","bytes":91893520362,"low_bytes":62372854165,"high_bytes":126580976682},"in_cache_bytes_per_sec":1999370622.4,"level_bytes_per_sec":null,"steps":[{"t_s":45.96,"before_bytes_per_sec":1999370622.4,"after_bytes_per_sec":981100481.5}],"after":{"kind":"too_short","bytes_per_sec":981100481.5},"phase_names":["before the cliff","after the cache"],"first_sample_hides":{"bytes":59981118672,"interval_s":30.0}}"#,
        ));
        let mut shown = 0;
        for w in (100..=260).step_by(10).map(Some).chain([None]) {
            let t = table(&rows, UnitSystem::Decimal, w);
            if !t.lines().next().unwrap().contains(" in cache ") {
                continue;
            }
            shown += 1;
            let row = t.lines().find(|l| l.starts_with(" 9 ")).unwrap();
            assert!(
                row.contains(" 1999 MB/s (before the cliff) "),
                "at {w:?}:\n{t}"
            );
        }
        assert!(shown > 1, "too few widths show the rate in the cache");
    }

    /// A hand-made CSV records no start: `runs` gave the store's recording time bare as the
    /// run's date, beside report.md's "Run date: not recorded". Its date says what it is, at
    /// every width that shows it, and on the library page.
    #[test]
    fn a_run_without_a_recorded_start_dates_it_as_recorded() {
        let mut rows = trial_rows();
        rows[0].started_at = None;
        rows[0].date = "2026-12-07T10:25:53Z".into();
        let mut shown = 0;
        for w in (60..=260).step_by(10).map(Some).chain([None]) {
            let t = table(&rows, UnitSystem::Decimal, w);
            if !t.lines().next().unwrap().contains(" date ") {
                continue;
            }
            shown += 1;
            let row = t.lines().find(|l| l.starts_with(" 1 ")).unwrap();
            assert!(
                row.contains("2026-12-07") && row.contains(" (recorded) "),
                "at {w:?}:\n{t}"
            );
            let other = t.lines().find(|l| l.starts_with(" 2 ")).unwrap();
            assert!(!other.contains("(recorded)"), "at {w:?}:\n{t}");
        }
        assert!(shown > 1, "too few widths show the date");
        assert_eq!(date_cell(&rows[0]), "2026-12-07 10:25 (recorded)");
        assert_eq!(date_cell(&rows[1]), "2026-12-06 00:37");
    }

    /// The drive cells of a fitted `runs` table, one per row of `n`: the first cell with a
    /// marker.
    pub(super) fn name_cells(t: &str, n: usize) -> Vec<String> {
        t.lines()
            .skip(1)
            .take(n)
            .map(|l| {
                l.split("  ")
                    .find(|c| c.contains(" (sim") || c.contains(" (emu"))
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect()
    }

    /// The words of a drive's cell, its marker in its short form, without its mark or "…".
    pub(super) fn name_words(cell: &str) -> Vec<String> {
        cell.replace("(simulated)", "(sim)")
            .replace("(emulated)", "(emu)")
            .replace(['¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹', '⁰'], "")
            .split([' ', '…'])
            .map(|w| w.trim_end_matches(',').to_string())
            .filter(|w| !w.is_empty())
            .collect()
    }

    /// Whether the cell `wide` shows each word `narrow` shows, whole or from its start.
    pub(super) fn covers(wide: &str, narrow: &str) -> bool {
        let wide = name_words(wide);
        name_words(narrow)
            .iter()
            .all(|n| wide.iter().any(|w| w.starts_with(n.as_str())))
    }

    /// At 80 columns `runs` named a drive made with options "… (emu), cache=1GB" and 960 EVOs
    /// "…250GB (sim)", where 50 columns gave "960…250GB (emu)¹": a cut kept the options and
    /// left out the model and the capacity. At every width each name keeps its marker and its
    /// capacity, and a wider table never shows fewer of a name's words than a narrower one.
    #[test]
    fn a_wider_runs_table_never_shows_less_of_a_name() {
        let f = sized([13.0, 12.9, 13.1], 293e6, false);
        let rows = vec![
            sim_row(
                1,
                "HP FX700 2TB (QLC) (simulated)",
                "sim:fx700-2tb",
                "seqwrite",
                131072,
                &sized([54.2, 53.0, 56.2], 3436e6, true),
            ),
            sim_row(
                2,
                "Crucial P5 1TB (simulated)",
                "sim:p5-1tb",
                "seqwrite",
                131072,
                &sized([100.0, 99.9, 100.0], 992e6, false),
            ),
            sim_row(
                3,
                "Samsung SSD 960 EVO 250GB (emulated)",
                "emu:960evo-250g,cache=1GB",
                "randwrite",
                4096,
                &f,
            ),
            sim_row(
                4,
                "Samsung SSD 960 EVO 250GB (simulated)",
                "sim:960evo-250g",
                "seqwrite",
                131072,
                &f,
            ),
            sim_row(
                5,
                "Samsung SSD 960 EVO 250GB (emulated)",
                "emu:960evo-250g,cache=2GB",
                "randwrite",
                4096,
                &f,
            ),
            sim_row(
                6,
                "Samsung SSD 960 EVO 1TB (simulated)",
                "sim:960evo-1tb",
                "seqwrite",
                131072,
                &sized([41.9, 41.7, 43.0], 1188e6, true),
            ),
        ];
        let caps = ["2TB", "1TB", "250GB", "250GB", "250GB", "1TB"];
        let mut before: Option<(usize, Vec<String>)> = None;
        for w in 40..=220 {
            let t = table(&rows, UnitSystem::Decimal, Some(w));
            let cells = name_cells(&t, rows.len());
            for (c, cap) in cells.iter().zip(caps) {
                assert!(c.contains(cap), "{w}: {c:?}\n{t}");
                assert!(
                    [" (sim)", " (emu)", " (simulated)", " (emulated)"]
                        .iter()
                        .any(|m| c.contains(m)),
                    "{w}: {c:?}\n{t}"
                );
            }
            if let Some((v, prev)) = &before {
                for (p, c) in prev.iter().zip(&cells) {
                    assert!(covers(c, p), "{p:?} at {v} columns, {c:?} at {w}\n{t}");
                }
            }
            before = Some((w, cells));
        }
        // At 80 the emulated drives keep their model and capacity, their options a mark.
        let t = table(&rows, UnitSystem::Decimal, Some(80));
        let cells = name_cells(&t, rows.len());
        assert!(cells[2].starts_with("960 EVO 250GB (emu)"), "{t}");
        assert!(cells[3].starts_with("960 EVO 250GB (sim)"), "{t}");
    }
}
