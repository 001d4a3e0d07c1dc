//! `slccache history SERIAL`: one drive's recorded runs on charts, against the run date and
//! against the drive's wear.

use anyhow::Result;

use std::path::Path;

use crate::cli::{HistoryArgs, OriginArgs};
use crate::report::charts::history::{no_wear_chart_text, HistoryPoint};
use crate::report::outputs::experiments::write_history_outputs;
use crate::shell;
use crate::store::drive::{by_drive, drive_kind, drive_name, one_per_measurement, DriveKey};
use crate::store::{recorder, Filter, RunRow, Store};
use crate::units::UnitSystem;

/// NVMe data units are 1000 sectors of 512 bytes.
const DATA_UNIT_BYTES: f64 = 512_000.0;

/// A capacity as `--capacity` reads it back exactly, in the drive makers' units where it is
/// whole ones (`250GB`), else in bytes.
fn capacity_arg(bytes: u64) -> String {
    for (unit, name) in [
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
    ] {
        if bytes.is_multiple_of(unit) {
            return format!("{}{name}", bytes / unit);
        }
    }
    shell::size_arg(bytes)
}

/// Whether `text` is the drive's name as `runs --by drive` and `history` print it
/// ([`drive_name`]), in decimal or binary units, any case.
fn printed_as(key: &DriveKey, rows: &[&RunRow], text: &str) -> bool {
    [UnitSystem::Decimal, UnitSystem::Binary]
        .into_iter()
        .any(|u| drive_name(key, rows, u).eq_ignore_ascii_case(text.trim()))
}

/// Runs `slccache history`; `sel` holds `--host` (only those hosts' runs, one
/// series per host) and `--tag` (only runs with those tags).
pub fn run(args: HistoryArgs, sel: &OriginArgs) -> Result<()> {
    let opts = crate::cli::resolve::report_options(&args.output)?;
    let capacity = args
        .capacity
        .as_deref()
        .map(|c| {
            crate::units::parse_size(c).map_err(|e| {
                crate::error::usage(format!("--capacity '{c}': {e} (give a size, e.g. 250GB)"))
            })
        })
        .transpose()?;
    if let Some(k) = &args.drive_kind {
        if !crate::store::drive::KINDS.contains(&k.as_str()) {
            return Err(crate::error::usage(format!(
                "--drive-kind '{k}': give real, file, emulated or simulated"
            )));
        }
    }
    let loc = recorder::location().ok_or_else(|| {
        crate::error::usage("no results store: give --db PATH or set SLCCACHE_DB (no home folder)")
    })?;
    let mut store = Store::open_existing(&loc)?;
    let base = Filter {
        host: sel.host.clone(),
        tags: crate::origin::parse_tags(&sel.tags)?,
        ..Filter::default()
    };
    let mut rows = store.list(&Filter {
        serial: Some(args.serial.clone()),
        ..base.clone()
    })?;
    if rows.is_empty() {
        rows = store.list(&Filter {
            drive: Some(args.serial.clone()),
            ..base.clone()
        })?;
    }
    if rows.is_empty() {
        // A file is named by its stem ("new" for new.bin): its runs are found by the target
        // as typed too, or by its file name.
        // `./new.bin` is `new.bin`: the components without the `.`s.
        let parts = |p: &str| -> Vec<std::ffi::OsString> {
            Path::new(p)
                .components()
                .filter(|c| *c != std::path::Component::CurDir)
                .map(|c| c.as_os_str().to_owned())
                .collect()
        };
        // A target recorded as typed (`new.bin`, `runs/new.bin`) is found by a path that
        // ends in it (`/home/me/new.bin`), and a file name finds the path it ends. A file's
        // name is matched as a model's is: by any part of it, in any case (`new.bin` finds
        // `trial-new.bin`).
        let typed = parts(&args.serial);
        let part_of_name = |name: &std::ffi::OsStr, part: &std::ffi::OsStr| {
            let part = part.to_string_lossy().to_lowercase();
            !part.is_empty() && name.to_string_lossy().to_lowercase().contains(&part)
        };
        rows = store
            .list(&base)?
            .into_iter()
            .filter(|r| {
                let file = drive_kind(r) == crate::store::drive::FILE;
                r.target.as_deref().is_some_and(|t| {
                    let relative = !Path::new(t).is_absolute();
                    let t = parts(t);
                    t == typed
                        || (typed.len() == 1 && t.last() == typed.last())
                        || (file
                            && typed.len() == 1
                            && t.last().is_some_and(|n| part_of_name(n, &typed[0])))
                        || (relative && !t.is_empty() && typed.ends_with(&t))
                })
            })
            .collect();
    }
    if rows.is_empty() {
        // An emulated or simulated drive named by its preset or its spec (`960evo-500g`,
        // `emu:960evo-500g,cache=1GB`), as `simulate` or `probe` was given it.
        let want = args
            .serial
            .trim_start_matches("emu:")
            .trim_start_matches("sim:");
        rows = store
            .list(&base)?
            .into_iter()
            .filter(|r| {
                r.target.as_deref().is_some_and(|t| {
                    let spec = t.strip_prefix("emu:").or_else(|| t.strip_prefix("sim:"));
                    spec.is_some_and(|s| s == want || s.split(',').next() == Some(want))
                })
            })
            .collect();
    }
    if rows.is_empty() {
        // A drive named as `runs --by drive` and this command print it ("hand (drive not
        // recorded)", "... 500GB (simulated), cache=8GB"), in either system of units.
        let all = store.list(&base)?;
        let named: Vec<RunRow> = by_drive(&all)
            .iter()
            .filter(|(k, rs)| printed_as(k, rs, &args.serial))
            .flat_map(|(_, rs)| rs.iter().map(|r| (*r).clone()))
            .collect();
        rows = named;
    }
    // What the commands suggested below repeat, so that typed as shown they read these runs.
    let given = shell::selection_args(sel.db.as_deref(), sel.host.as_deref(), &sel.tags);
    let narrowed = if sel.host.is_some() || !sel.tags.is_empty() {
        " (with the --host and --tag given)"
    } else {
        ""
    };
    if rows.is_empty() {
        return Err(crate::error::usage(format!(
            "no recorded run has serial '{}' or a drive name containing it{narrowed} \
             (see `slccache runs{given}`)",
            args.serial
        )));
    }
    // The runs that measure one cache: an experiment (sweep, recovery, fill-sweep) has no
    // one cache size to chart.
    rows.retain(|r| matches!(r.kind.as_str(), "probe" | "simulate" | "analyze"));
    if rows.is_empty() {
        return Err(crate::error::usage(format!(
            "'{}' matches only experiments (sweep, recovery, fill-sweep), which have no one \
             cache size to chart; history charts probe, simulate and analyze runs",
            args.serial
        )));
    }
    // One drive only: runs of another capacity or kind are another drive.
    let mut groups = by_drive(&rows);
    let all = groups.len();
    groups.retain(|_, rs| {
        let r = rs[0];
        capacity.is_none_or(|c| r.capacity_bytes == i64::try_from(c).ok())
            && args
                .drive_kind
                .as_deref()
                .is_none_or(|k| drive_kind(r) == k)
    });
    if groups.is_empty() {
        return Err(crate::error::usage(format!(
            "'{}' matches {} but none of the --capacity and --drive-kind given \
             (see `slccache runs --drive {}{given}`)",
            args.serial,
            crate::units::count_text(all, "drive", "drives"),
            shell::quote(&args.serial)
        )));
    }
    // A drive named exactly as given is the one meant: `history hand` charts the drive
    // named "hand", not "hand0" beside it (the advice below picks a drive by its name).
    // A drive named as the store prints it is the one meant before any whose model has
    // that name.
    let printed: Vec<DriveKey> = groups
        .iter()
        .filter(|(k, rs)| printed_as(k, rs, &args.serial))
        .map(|(k, _)| k.clone())
        .collect();
    let exact: Vec<DriveKey> = if printed.is_empty() {
        groups
            .keys()
            .filter(|k| matches!(k, DriveKey::Model(m, ..) if m.trim().eq_ignore_ascii_case(args.serial.trim())))
            .cloned()
            .collect()
    } else {
        printed
    };
    // An emulated or simulated drive's spec given whole picks the drive of that spec:
    // `history 960evo-500g` was refused as matching the drives made with options too
    // (`960evo-500g,cache=8GB`), which its own advice named `sim:960evo-500g`.
    let exact: Vec<DriveKey> = if exact.is_empty() {
        groups
            .iter()
            .filter(|(_, rs)| {
                rs.iter().any(|r| {
                    r.target.as_deref().is_some_and(|t| {
                        let spec = t.strip_prefix("sim:").or_else(|| t.strip_prefix("emu:"));
                        spec.is_some_and(|s| s.eq_ignore_ascii_case(args.serial.trim()))
                    })
                })
            })
            .map(|(k, _)| k.clone())
            .collect()
    } else {
        exact
    };
    if !exact.is_empty() && exact.len() < groups.len() {
        groups.retain(|k, _| exact.contains(k));
    }
    if groups.len() > 1 {
        let mut s = format!(
            "'{}' matches {} drives{narrowed}; chart one of them:",
            args.serial,
            groups.len()
        );
        // What picks each drive: its serial, else the fewest of --capacity and --drive-kind
        // that leave it alone, else its name where no other drive here has it.
        let facts: Vec<(Option<i64>, &str)> = groups
            .values()
            .map(|rs| (rs[0].capacity_bytes, drive_kind(rs[0])))
            .collect();
        // Two specs of one preset: only the spec picks each.
        let specs = groups
            .keys()
            .filter(|k| matches!(k, DriveKey::Model(_, _, _, Some(_))))
            .count();
        // A drive whose name no other drive here has: that name picks it.
        let named_alone = |m: &str| {
            groups
                .keys()
                .filter(|k| matches!(k, DriveKey::Model(n, ..) if n.trim().eq_ignore_ascii_case(m.trim())))
                .count()
                == 1
        };
        for (i, (k, rs)) in groups.iter().enumerate() {
            let (cap, kind) = facts[i];
            let alone = |use_cap: bool, use_kind: bool| {
                facts
                    .iter()
                    .filter(|(c, k)| (!use_cap || *c == cap) && (!use_kind || *k == kind))
                    .count()
                    == 1
            };
            let pick = match k {
                DriveKey::Serial(serial) => format!("slccache history {}", shell::quote(serial)),
                DriveKey::Model(_, _, _, Some(spec)) if specs > 1 && !alone(true, true) => {
                    format!("slccache history {}", shell::quote(spec))
                }
                // --capacity and --drive-kind cannot tell it apart: its name does.
                DriveKey::Model(m, _, _, _) if !alone(true, true) && named_alone(m) => {
                    let mut p = format!("slccache history {}", shell::quote(m));
                    // The flags given stay in.
                    if let Some(c) = capacity {
                        p += &format!(" --capacity {}", capacity_arg(c));
                    }
                    if let Some(k) = &args.drive_kind {
                        p += &format!(" --drive-kind {k}");
                    }
                    p
                }
                DriveKey::Model(..) => {
                    let mut p = format!("slccache history {}", shell::quote(&args.serial));
                    let (use_cap, use_kind) = if alone(true, false) {
                        (true, false)
                    } else if alone(false, true) {
                        (false, true)
                    } else {
                        (true, true)
                    };
                    // The flags given stay in.
                    let (use_cap, use_kind) = (
                        use_cap || capacity.is_some(),
                        use_kind || args.drive_kind.is_some(),
                    );
                    if let (true, Some(c)) = (use_cap, cap.and_then(|c| u64::try_from(c).ok())) {
                        p += &format!(" --capacity {}", capacity_arg(c));
                    }
                    if use_kind {
                        p += &format!(" --drive-kind {kind}");
                    }
                    p
                }
            };
            s += &format!(
                "\n  {}: {}\n      {pick}{given}",
                drive_name(k, rs, opts.units),
                crate::units::count_text(one_per_measurement(rs).len(), "run", "runs")
            );
        }
        return Err(crate::error::usage(s));
    }
    let (key, rows) = groups.into_iter().next().expect("one group");
    // A run analysed again is one measurement of the drive: one point, not two.
    let rows: Vec<RunRow> = one_per_measurement(&rows).into_iter().cloned().collect();
    let (first, mut pts) = points(&rows);
    // One series per host with --host, and per workload where the runs ran more than one:
    // a 4K random run and a 128K sequential one are not one line.
    let workloads: std::collections::BTreeSet<&str> =
        pts.iter().map(|p| p.workload.as_str()).collect();
    let by_workload = workloads.len() > 1;
    for p in pts.iter_mut() {
        let host = sel
            .host
            .is_some()
            .then(|| p.host.clone().unwrap_or_else(|| "-".into()));
        p.series = match (host, by_workload) {
            (Some(h), true) => Some(format!("{h}, {}", p.workload)),
            (Some(h), false) => Some(h),
            (None, true) => Some(p.workload.clone()),
            (None, false) => None,
        };
    }
    let name = drive_name(&key, &rows.iter().collect::<Vec<_>>(), opts.units);
    // The same folder rules as every subcommand: a given --out that holds files is refused
    // unless --force, a default one is unique.
    let out = crate::report::outputs::outdir::claim(
        args.output.out.as_deref(),
        &format!(
            "history-{}",
            crate::shell::folder_word(&args.serial, "drive")
        ),
        args.output.force,
        false,
    )?;
    write_history_outputs(&out, &name, &first, &pts, &opts)?;
    // A series none of whose runs has a value on a chart (reads only, no cliff) draws no
    // line: it is named apart, so that the line lists the series the charts hold.
    let charted = |p: &HistoryPoint| p.cache.is_some() || p.after_bytes_per_sec.is_some();
    let series: std::collections::BTreeSet<&str> = pts
        .iter()
        .filter(|p| charted(p))
        .filter_map(|p| p.series.as_deref())
        .collect();
    let uncharted: std::collections::BTreeSet<&str> = pts
        .iter()
        .filter_map(|p| p.series.as_deref())
        .filter(|s| !series.contains(s))
        .collect();
    let per = match (sel.host.is_some(), by_workload) {
        (true, true) => "host and workload",
        (true, false) => "host",
        _ => "workload",
    };
    let split = if series.is_empty() {
        String::new()
    } else {
        format!(
            ", one series per {per} ({})",
            // A series of host and workload holds a comma: those are parted by semicolons.
            series
                .into_iter()
                .collect::<Vec<_>>()
                .join(if by_workload { "; " } else { ", " })
        )
    };
    let split = if uncharted.is_empty() || split.is_empty() {
        split
    } else {
        let names: Vec<&str> = uncharted.into_iter().collect();
        let list = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let open = split.strip_suffix(')').unwrap_or(&split);
        format!("{open}; no value to chart for the {list} runs)")
    };
    // Where the chart against wear is not drawn for what the drive is, the line says why.
    let wear = no_wear_chart_text(&pts)
        .map(|t| format!("; {t}"))
        .unwrap_or_default();
    let line = format!(
        "history of {name}: {}{split}{wear}; outputs: {}",
        crate::units::count_text(pts.len(), "run", "runs"),
        out.display()
    );
    if args.json {
        crate::say!("{}", history_json(&name, &rows, &pts, &out));
        crate::note!("{line}");
    } else {
        crate::say!("{line}");
    }
    Ok(())
}

/// `history --json`: the drive, and for each run what the charts show of it, in SI units.
fn history_json(
    name: &str,
    rows: &[RunRow],
    pts: &[HistoryPoint],
    out: &std::path::Path,
) -> serde_json::Value {
    let runs: Vec<serde_json::Value> = rows
        .iter()
        .zip(pts)
        .map(|(r, p)| {
            serde_json::json!({
                "run_id": r.id,
                "kind": r.kind,
                "date": r.date,
                "days": p.days,
                "host": r.host,
                "label": r.label,
                "cache_bytes": r.cache_bytes,
                "cache_low_bytes": r.cache_low_bytes,
                "cache_high_bytes": r.cache_high_bytes,
                "cache_lower_bound_bytes": r.cache_lower_bound_bytes,
                "in_cache_bytes_per_sec": r.in_cache_bytes_per_sec,
                "after_cache_bytes_per_sec": r.after_cache_bytes_per_sec,
                "drive_data_units_written": r.data_units_written,
                "drive_written_bytes": p.drive_written_bytes,
                "drive_percentage_used": r.percentage_used,
                "interrupted": r.interrupted,
            })
        })
        .collect();
    serde_json::json!({
        "drive": name,
        "drive_kind": rows.first().map(drive_kind),
        "serial": rows.first().and_then(|r| r.serial.clone()),
        "capacity_bytes": rows.first().and_then(|r| r.capacity_bytes),
        "runs": runs,
        "outputs": out.display().to_string(),
    })
}

/// The runs as chart points, and the first run's date (day 0).
pub fn points(rows: &[RunRow]) -> (String, Vec<HistoryPoint>) {
    let when = |r: &RunRow| {
        chrono::DateTime::parse_from_rfc3339(&r.date)
            .map(|t| t.timestamp() as f64)
            .unwrap_or(0.0)
    };
    let t0 = rows.iter().map(when).fold(f64::INFINITY, f64::min);
    let first = rows
        .iter()
        .min_by(|a, b| when(a).total_cmp(&when(b)))
        .map(|r| r.date.chars().take(10).collect())
        .unwrap_or_default();
    let pts = rows
        .iter()
        .map(|r| HistoryPoint {
            id: r.id,
            days: (when(r) - t0) / 86_400.0,
            cache: r.cache_bytes.map(|c| {
                (
                    c as f64,
                    r.cache_low_bytes.unwrap_or(c) as f64,
                    r.cache_high_bytes.unwrap_or(c) as f64,
                )
            }),
            after_bytes_per_sec: r.after_cache_bytes_per_sec,
            drive_written_bytes: r.data_units_written.map(|u| u as f64 * DATA_UNIT_BYTES),
            percentage_used: r.percentage_used.map(|p| p as f64),
            // An emulated or simulated drive is new on each run: its counters start at zero.
            counters_from_zero: Some(drive_kind(r))
                .filter(|k| matches!(*k, "emulated" | "simulated")),
            // A file: no drive counters to read.
            file: drive_kind(r) == crate::store::drive::FILE,
            series: None,
            host: r.host.clone(),
            workload: r
                .workload
                .as_ref()
                .map_or_else(|| "-".into(), |w| w.in_words()),
            date: r.date.clone(),
            ran: r.kind.clone(),
            cache_lower_bound: r.cache_lower_bound_bytes.map(|b| b as f64),
            in_cache_bytes_per_sec: r.in_cache_bytes_per_sec,
            interrupted: r.interrupted,
            findings: r.findings.clone(),
        })
        .collect();
    (first, pts)
}
