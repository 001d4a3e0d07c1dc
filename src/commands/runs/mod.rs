//! `slccache runs`: the results library. Lists the recorded runs (a table, `--json` or
//! `--csv`, or per group with `--by`), shows one, writes one's folder again, imports old
//! folders, copies runs to another store, removes one.

mod fit;
mod groups;
mod table;

use anyhow::{Context, Result};

use crate::cli::{OriginArgs, RunsAction, RunsArgs};
use crate::store::drive::{by_drive, drive_name};
use crate::store::recorder;
use crate::store::{Filter, Location, Recorded, RunRow, Store, KINDS};
use crate::units::{format_bytes, UnitSystem};

pub use groups::{group, group_table, Group, GroupBy, Grouping, Spread};
use table::{after, cache, date_cell, drive, in_rate, tags_text, workload_cell};
pub use table::{csv_text, table};

/// The listing's filters from the flags (`--host` and `--tag` also before `runs`).
fn filter(args: &RunsArgs, sel: &OriginArgs) -> Result<Filter> {
    if let Some(k) = &args.kind {
        if !KINDS.contains(&k.as_str()) {
            return Err(crate::error::usage(format!(
                "--kind '{k}': give one of {}",
                KINDS.join(", ")
            )));
        }
    }
    Ok(Filter {
        drive: args.drive.clone(),
        serial: args.serial.clone(),
        host: sel.host.clone(),
        tags: crate::origin::parse_tags(&sel.tags)?,
        since: args.since.clone(),
        kind: args.kind.clone(),
    })
}

/// Runs `slccache runs`; `sel` holds `--host` and `--tag` (filters here, and for
/// `import` the host of folders whose summary names none).
pub fn run(args: RunsArgs, sel: &OriginArgs) -> Result<()> {
    if let Some(RunsAction::Copy { ids, from, to }) = &args.action {
        // The forms of the list are not copy's: `runs --json copy` printed copy's lines as
        // if --json were not there.
        let forms: Vec<&str> = [
            ("--json", args.json),
            ("--csv", args.csv),
            ("--by", args.by.is_some()),
            ("--html", args.html.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        if !forms.is_empty() {
            return Err(crate::error::usage(format!(
                "runs copy: {} {} a form of the list of runs, not of `runs copy`; nothing was \
                 copied",
                forms.join(", "),
                if forms.len() == 1 { "is" } else { "are" }
            )));
        }
        let text = copy(&args, sel, ids, from.as_deref(), to.as_deref())?;
        crate::stdout::write_bytes(text.as_bytes());
        return Ok(());
    }
    let by = args.by.as_deref().map(GroupBy::parse).transpose()?;
    let loc = recorder::location().ok_or_else(|| {
        crate::error::usage("no results store: give --db PATH or set SLCCACHE_DB (no home folder)")
    })?;
    let home = std::env::var("HOME").ok();
    let place = loc.display(home.as_deref());
    if matches!(args.action, Some(RunsAction::Import { .. })) && !sel.tags.is_empty() {
        return Err(crate::error::usage(
            "runs import: --tag is not taken; a run's tags are those its summary.json holds",
        ));
    }
    // A command that names one run by its id takes no filter: `runs rm 3 --host bench-2`
    // removed run 3 whatever its host. A filter there is refused before the store is opened.
    let one = match &args.action {
        Some(RunsAction::Show { id, .. }) => Some(("show", id)),
        Some(RunsAction::Export { id, .. }) => Some(("export", id)),
        Some(RunsAction::Rm { id, .. }) => Some(("rm", id)),
        _ => None,
    };
    if let Some((verb, id)) = one {
        let on = |list: &[(&'static str, bool)]| -> Vec<&'static str> {
            list.iter()
                .filter_map(|&(name, on)| on.then_some(name))
                .collect()
        };
        let filters = on(&[
            ("--drive", args.drive.is_some()),
            ("--serial", args.serial.is_some()),
            ("--since", args.since.is_some()),
            ("--kind", args.kind.is_some()),
            ("--host", sel.host.is_some()),
            ("--tag", !sel.tags.is_empty()),
        ]);
        // The forms of the list: `runs --json show ID` is `runs show ID --json`, so --json
        // is one only beside the other verbs.
        let forms = on(&[
            ("--json", args.json && verb != "show"),
            ("--csv", args.csv),
            ("--by", args.by.is_some()),
            ("--html", args.html.is_some()),
        ]);
        let are = |names: &[&str], one: &str, more: &str| {
            format!(
                "{} {}",
                names.join(", "),
                if names.len() == 1 { one } else { more }
            )
        };
        let mut why = Vec::new();
        if !filters.is_empty() {
            why.push(format!(
                "{} runs to list or copy, and `runs {verb}` takes one run by its id",
                are(&filters, "chooses", "choose")
            ));
        }
        if !forms.is_empty() {
            why.push(format!(
                "{} of the list of runs, not of `runs {verb}`{}",
                are(&forms, "is a form", "are forms"),
                if verb == "show" {
                    " (`runs show ID --json` gives one run as JSON)"
                } else {
                    ""
                }
            ));
        }
        if !why.is_empty() {
            return Err(crate::error::usage(format!(
                "runs {verb} {id}: {}; nothing was done (see `slccache runs{}` with the \
                 filters for the ids)",
                why.join("; "),
                crate::shell::selection_args(sel.db.as_deref(), None, &[])
            )));
        }
    }
    // The default store, as no --db or SLCCACHE_DB named one.
    let xdg = std::env::var("XDG_DATA_HOME").ok();
    let default = crate::store::Location::default_path(xdg.as_deref(), home.as_deref());
    let is_default = matches!(&loc, crate::store::Location::Sqlite(p)
        if Some(p) == default.as_ref());
    // `runs import --pending` into a default store that does not exist, with no waiting run
    // meant for it, records nothing there: it says so without creating the store.
    if let Some(RunsAction::Import {
        dirs,
        pending: true,
    }) = &args.action
    {
        let absent = matches!(&loc, crate::store::Location::Sqlite(p) if !p.exists());
        let for_here = recorder::pending()
            .iter()
            .any(|e| recorder::spooled_meta(e).map_or(true, |m| m.store == place));
        if dirs.is_empty() && is_default && absent && !for_here {
            let text = import_pending(None, &place, is_default)?;
            crate::stdout::write_bytes(text.as_bytes());
            return Ok(());
        }
    }
    // Only an import may create the store; reading commands say the path holds none.
    let mut store = match &args.action {
        Some(RunsAction::Import { .. }) => Store::open(&loc)?,
        Some(RunsAction::Rm { .. }) => Store::open_existing_for_writing(&loc)?,
        // Read-only: a store in a read-only place is listed, shown and exported as it is.
        _ => Store::open_existing(&loc)?,
    };
    // The tables fit the terminal they are shown on (every column whole with --wide, or
    // in a pipe or a file); --json and --csv give every field.
    let width = if args.wide {
        None
    } else {
        crate::report::console::progress::table_width()
    };
    let text = match &args.action {
        None => {
            if let (Some(by), None) = (&by, &args.html) {
                if args.csv {
                    return Err(crate::error::usage(
                        "--by with --csv: give --json for the groups, or --csv without --by",
                    ));
                }
                // Grouping reads the rows' columns only (not every run's findings), and
                // folds each run into its group as the store reads it.
                let mut groups = Grouping::new(by.clone(), UnitSystem::Decimal);
                store.each_for_grouping(&filter(&args, sel)?, by.grouped(), &mut |r| {
                    groups.push(r)
                })?;
                let groups = groups.finish();
                let text = if args.json {
                    serde_json::to_string_pretty(&groups)? + "\n"
                } else if groups.is_empty() {
                    none_listed(&mut store, &place)?
                } else {
                    group_table(&groups, by, UnitSystem::Decimal, width)
                };
                crate::stdout::write_bytes(text.as_bytes());
                return Ok(());
            }
            let rows = store.list(&filter(&args, sel)?)?;
            if let Some(dir) = &args.html {
                library_page(&mut store, &rows, dir, &place, args.force)?
            } else if args.json {
                serde_json::to_string_pretty(&rows)? + "\n"
            } else if args.csv {
                csv_text(&rows)?
            } else if rows.is_empty() {
                none_listed(&mut store, &place)?
            } else {
                table(&rows, UnitSystem::Decimal, width)
            }
        }
        // `runs --json show ID` is `runs show ID --json`.
        Some(RunsAction::Show { id, json }) if *json || args.json => {
            let r = store.get_meta(*id)?;
            let mut v = serde_json::to_value(&r.row)?;
            v["stored_files"] = serde_json::json!(store.stored_file_names(*id)?);
            v["summary"] = serde_json::from_str(&r.summary)
                .unwrap_or_else(|_| serde_json::Value::String(r.summary.clone()));
            serde_json::to_string_pretty(&v)? + "\n"
        }
        Some(RunsAction::Show { id, .. }) => {
            let r = store.get_meta(*id)?;
            let mut s = table(std::slice::from_ref(&r.row), UnitSystem::Decimal, width);
            // The cache in the words of every output's headline, whole: what the table's marks
            // leave to this command (its "‡ ... (runs show ID says how large)" was under this
            // command's own table, which said nothing of how large).
            if let Some(f) = &r.row.findings {
                s += &format!("{}\n", f.cache_text(UnitSystem::Decimal));
            }
            s += &format!(
                "recorded {} from {}\nstored files: {}\n",
                r.row.recorded_at,
                source_text(r.row.source_dir.as_deref(), &r.summary, *id),
                store.stored_file_names(*id)?.join(", ")
            );
            if !r.row.tags.is_empty() {
                s += &format!("tags: {}\n", tags_text(&r.row.tags).replace(';', ", "));
            }
            if r.render.is_some() {
                s += "charts and reports: drawn again on export\n";
            }
            s += "summary.json:\n";
            s += &r.summary;
            if !s.ends_with('\n') {
                s.push('\n');
            }
            s
        }
        Some(RunsAction::Export { id, out: dir }) => {
            // As every command's --out: a folder that holds files is not written over.
            if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
                return Err(crate::error::usage(format!(
                    "--out {}: the folder holds files; give a new or empty folder",
                    dir.display()
                )));
            }
            let files = {
                let _export = crate::report::outputs::file::exporting();
                store.export(*id, dir)?
            };
            let lacks = store.lacking_outputs(*id)?;
            if !lacks.is_empty() {
                crate::note!(
                    "slccache: note: run {id} is stored without {} (not written when it ran, \
                     or not in the folder imported): the export holds what was stored",
                    and_list(&lacks)
                );
            }
            files
                .iter()
                .map(|f| format!("wrote {}\n", f.display()))
                .collect()
        }
        Some(RunsAction::Import { dirs, pending }) => {
            let mut s = String::new();
            if *pending {
                s += &import_pending(Some(&mut store), &place, is_default)?;
            }
            // Each folder on its own: what was imported is said, and so is what was not.
            let mut failed = Vec::new();
            for d in dirs {
                // --host is the host of folders that name none; say so where one names its own.
                if let Some(given) = sel.host.as_deref().filter(|_| !args.quiet) {
                    let own = std::fs::read_to_string(d.join("summary.json"))
                        .ok()
                        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                        .and_then(|v| crate::origin::of_summary(&v))
                        .map(|o| o.host)
                        .filter(|h| !h.trim().is_empty());
                    if let Some(h) = own.filter(|h| h != given) {
                        crate::note!(
                            "slccache: note: {} names its host, {h}: it is kept (--host is the \
                             host of folders that name none)",
                            d.display()
                        );
                    }
                }
                let r = if d.is_dir() {
                    store.import_folder_as(d, sel.host.as_deref())
                } else if d.exists() {
                    // A file (a CSV) is no run folder: `analyze` makes one of it.
                    Err(crate::error::usage(
                        "a file, not a run folder (`slccache analyze FILE` analyses it and \
                         records the run)",
                    ))
                } else {
                    Err(crate::error::usage("no such folder"))
                };
                // Only slccache's own files of the folder are imported: say which were not.
                let others = match &r {
                    Ok(_) => crate::store::not_run_files(d).unwrap_or_default(),
                    Err(_) => Vec::new(),
                };
                if !others.is_empty() {
                    crate::note!(
                        "slccache: note: {}: left out {}: not files slccache writes",
                        d.display(),
                        others.join(", ")
                    );
                }
                match r {
                    Ok(Recorded::New(id)) => {
                        s += &format!("{}: imported as run {id}\n", d.display());
                    }
                    Ok(Recorded::Existing(id)) => {
                        s += &format!("{}: already in the store as run {id}\n", d.display());
                    }
                    Ok(Recorded::SameMeasurement(id)) => {
                        s += &format!(
                            "{}: its measurement is in the store as run {id} (with the analysis \
                             it was recorded with); not imported again\n",
                            d.display()
                        );
                    }
                    Err(e) => failed.push((d, e)),
                }
            }
            if !failed.is_empty() {
                crate::stdout::write_bytes(s.as_bytes());
                let usage = failed.iter().all(|(_, e)| crate::error::exit_code(e) == 2);
                let lines: Vec<String> = failed
                    .iter()
                    .map(|(d, e)| format!("{}: not imported: {e:#}", d.display()))
                    .collect();
                let msg = format!(
                    "{} of {} folders not imported:\n  {}",
                    failed.len(),
                    dirs.len(),
                    lines.join("\n  ")
                );
                return Err(if usage {
                    crate::error::usage(msg)
                } else {
                    anyhow::anyhow!(msg)
                });
            }
            s
        }
        Some(RunsAction::Rm { id, yes }) => {
            // On a terminal, the run is shown and removed only when the user agrees: there
            // is no way back (runs export keeps a copy first).
            use std::io::IsTerminal;
            if !*yes && std::io::stdin().is_terminal() {
                let r = store.get_meta(*id)?;
                crate::note_raw!(
                    "{}remove run {id} from {place}? It cannot be undone (`slccache runs \
                     export {id} --out DIR{}` keeps a copy first). [y/N] ",
                    table(std::slice::from_ref(&r.row), UnitSystem::Decimal, width),
                    crate::shell::selection_args(sel.db.as_deref(), None, &[])
                );
                let mut line = String::new();
                let n = std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut line)?;
                if n == 0 || !line.ends_with('\n') {
                    crate::note!();
                }
                if !matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
                    return Err(crate::error::usage(format!(
                        "run {id} not removed (not confirmed; --yes removes without asking)"
                    )));
                }
            }
            store.remove(*id)?;
            format!("removed run {id} from {place}\n")
        }
        Some(RunsAction::Copy { .. }) => unreachable!("copied above"),
    };
    crate::stdout::write_bytes(text.as_bytes());
    Ok(())
}

/// What `runs` says when it lists nothing: the store is empty, or no run matches the filters
/// (with how many it holds).
fn none_listed(store: &mut Store, place: &str) -> Result<String> {
    let all = store.count()? as usize;
    Ok(if all == 0 {
        format!("no runs in {place}\n")
    } else {
        format!(
            "no run in {place} matches the filters ({} in all)\n",
            crate::units::count_text(all, "run", "runs")
        )
    })
}

/// Records the spooled runs (`runs import --pending`), each once, and says what became of
/// each; an error when any stays in the spool. Into the default store (`is_default`: no
/// `--db` or `SLCCACHE_DB` given) only the runs meant for it are recorded: a run meant for a
/// lab's server stays in the spool, and the message names the store it waits for.
fn import_pending(mut store: Option<&mut Store>, place: &str, is_default: bool) -> Result<String> {
    let entries = recorder::pending();
    let mut s = String::new();
    if entries.is_empty() {
        let dir = recorder::spool_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "the spool".into());
        s += &format!("no runs wait in {dir}\n");
        return Ok(s);
    }
    let mut failed = Vec::new();
    for e in &entries {
        // A run waits for the store it was meant for: recorded into the default SQLite
        // file, where --db was left out, it would be lost to its lab.
        if let Ok(meta) = recorder::spooled_meta(e) {
            if is_default && meta.store != place {
                failed.push(format!(
                    "{}: meant for {}, not {place}; record it there with `slccache --db {} \
                     runs import --pending` (or here, as it is: `slccache runs import {}`)",
                    meta.source_dir.display(),
                    meta.store,
                    // `~/` left outside the quotes, so that the shell expands it.
                    match meta.store.strip_prefix("~/") {
                        Some(rest) => format!("~/{}", crate::shell::quote(rest)),
                        None => crate::shell::quote(&meta.store),
                    },
                    crate::shell::quote(&e.display().to_string())
                ));
                continue;
            }
        }
        let Some(store) = store.as_deref_mut() else {
            failed.push(format!("{}: no store to record it into", e.display()));
            continue;
        };
        match recorder::record_spooled(store, e) {
            Ok((r, meta)) => {
                // Recorded into a store given with --db that is not the one it was spooled
                // for: said, so that it is not taken for that store's.
                let meant = if meta.store != place {
                    format!(" (it was spooled for {}, as --db asked)", meta.store)
                } else {
                    String::new()
                };
                s += &match r {
                    Recorded::New(id) => format!(
                        "{}: recorded as run {id} in {place}{meant}\n",
                        meta.source_dir.display()
                    ),
                    Recorded::Existing(id) => format!(
                        "{}: already in the store as run {id}\n",
                        meta.source_dir.display()
                    ),
                    Recorded::SameMeasurement(id) => format!(
                        "{}: its measurement is in the store as run {id}; not recorded again\n",
                        meta.source_dir.display()
                    ),
                }
            }
            Err(err) => failed.push(format!("{}: {err:#}", e.display())),
        }
    }
    if !failed.is_empty() {
        crate::say_raw!("{s}");
        anyhow::bail!(
            "{} of {} waiting run(s) not recorded, still in the spool:\n  {}",
            failed.len(),
            entries.len(),
            failed.join("\n  ")
        );
    }
    Ok(s)
}

/// Writes the library page and, for each run not exported there yet, its folder under
/// `dir/ID/`; returns the lines to print. A folder that holds files and is not a library page
/// written before is refused (before anything is written) unless `force`.
///
/// The page can be finished after an interruption (Ctrl-C, a full disk): a page is written
/// first, so the folder is one's own from the start; each run is exported into a temporary
/// folder beside its own ([`crate::report::pages::library::export_temp_name`]) and renamed
/// into place when whole, so a `dir/ID/` holding a summary.json is always complete; and the
/// temporaries an interrupted page left are removed and exported anew.
fn library_page(
    store: &mut Store,
    rows: &[RunRow],
    dir: &std::path::Path,
    place: &str,
    force: bool,
) -> Result<String> {
    use crate::report::pages::library as lib;
    crate::report::outputs::outdir::claim_folder(
        "--html",
        dir,
        force || lib::is_library_folder(dir),
        "write the library page into it (an index.html there is replaced, other files are kept)",
        Some("and is not a library page of `slccache runs --html`"),
    )?;
    let units = UnitSystem::Decimal;
    // The drive filter offers each drive once, as `runs --by drive` and `history` take one.
    let drive_names: std::collections::HashMap<i64, String> = by_drive(rows)
        .iter()
        .flat_map(|(key, rs)| {
            let name = drive_name(key, rs, units);
            rs.iter().map(move |r| (r.id, name.clone()))
        })
        .collect();
    let ran = table::ran_cells(rows);
    let entry = |r: &RunRow, spark: Vec<f64>, lacks: Vec<String>| {
        let sub = dir.join(r.id.to_string());
        lib::LibraryEntry {
            id: r.id,
            date: date_cell(r),
            drive: drive(r),
            drive_filter: drive_names[&r.id].clone(),
            serial: r.serial.clone().unwrap_or_else(|| "-".into()),
            host: r.host.clone().unwrap_or_else(|| "-".into()),
            kind: ran[&r.id].clone(),
            workload: workload_cell(r),
            cache: cache(r, units),
            in_rate: in_rate(r, units),
            after_rate: after(r, units),
            spark,
            link: sub
                .join("report.html")
                .is_file()
                .then(|| format!("{}/report.html", r.id)),
            lacks,
        }
    };
    // A page first (the runs listed, without their sparklines), unless one is there: a page
    // cut short by an interruption is still a library page the next run finishes.
    if !lib::is_library_page(dir) {
        let first: Vec<_> = rows
            .iter()
            .map(|r| entry(r, Vec::new(), Vec::new()))
            .collect();
        lib::write_library_html(dir, &first, place)?;
    }
    let mut entries = Vec::with_capacity(rows.len());
    let (mut gone, mut replaced) = (0usize, 0usize);
    // Folders of runs no longer in the store (`runs rm`) go: the page would not link them,
    // and a reader of the folder would take them for runs the store holds. So do the
    // temporary folders of exports an interruption cut short.
    let held: std::collections::BTreeSet<i64> = store
        .list_with(
            &crate::store::Filter::default(),
            crate::store::Detail::Columns,
        )?
        .iter()
        .map(|r| r.id)
        .collect();
    for e in std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
    {
        let name = e.file_name();
        let name = name.to_str().unwrap_or_default();
        if lib::export_temp_id(name).is_some() && e.path().is_dir() {
            std::fs::remove_dir_all(e.path()).with_context(|| {
                format!("removing the unfinished export {}", e.path().display())
            })?;
            continue;
        }
        let id = name.parse::<i64>().ok();
        if let Some(id) = id.filter(|id| !held.contains(id)) {
            if e.path().join("summary.json").is_file() {
                std::fs::remove_dir_all(e.path())
                    .with_context(|| format!("removing the folder of removed run {id}"))?;
                gone += 1;
            }
        }
    }
    let (mut exported, mut exported_bytes) = (0usize, 0u64);
    for r in rows {
        let run = store.get_meta(r.id)?;
        let sub = dir.join(r.id.to_string());
        // A folder of this id that holds another run (a page written from another store, or
        // a run that was removed and recorded again) is exported anew.
        let here = std::fs::read(sub.join("summary.json")).ok();
        if here.is_some() && here.as_deref() != Some(run.summary.as_bytes()) {
            std::fs::remove_dir_all(&sub)
                .with_context(|| format!("removing the stale folder {}", sub.display()))?;
            replaced += 1;
        }
        if !sub.join("summary.json").is_file() {
            // Into a temporary folder beside it, renamed into place when whole.
            let tmp = dir.join(lib::export_temp_name(r.id));
            let unfinished = || {
                format!(
                    "exporting run {} into {} failed; its folder was not written (the run \
                     folders there are whole). Once the cause below is mended (a full disk: \
                     free some space), the same command finishes the page",
                    r.id,
                    dir.display(),
                )
            };
            let files = {
                let _export = crate::report::outputs::file::exporting();
                store.export(r.id, &tmp)
            };
            let files = match files {
                Ok(f) => f,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&tmp);
                    return Err(e.context(unfinished()));
                }
            };
            exported_bytes += files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum::<u64>();
            std::fs::rename(&tmp, &sub)
                .with_context(|| format!("renaming {} to {}", tmp.display(), sub.display()))?;
            exported += 1;
        }
        // From the run's timeline.csv in its folder, read row by row.
        let spark = spark_of(&sub.join("timeline.csv"));
        let lacks = store.lacking_outputs(r.id)?;
        entries.push(entry(r, spark, lacks));
    }
    let p = crate::report::pages::library::write_library_html(dir, &entries, place)?;
    // Say what went beside the page: every listed run's folder, charts and all.
    let folders = if exported == 0 {
        String::new()
    } else {
        format!(
            "; {} exported under {}/ID/, {}",
            crate::units::count_text(exported, "run folder", "run folders"),
            dir.display(),
            format_bytes(exported_bytes as f64, units)
        )
    };
    let mut removed = String::new();
    if gone > 0 {
        removed += &format!(
            "; removed {} of runs no longer in the store",
            crate::units::count_text(gone, "folder", "folders")
        );
    }
    if replaced > 0 {
        removed += &format!(
            "; {} that held another run written anew",
            crate::units::count_text(replaced, "folder", "folders")
        );
    }
    Ok(format!(
        "wrote {} ({}{folders}{removed})\n",
        p.display(),
        crate::units::count_text(entries.len(), "run", "runs")
    ))
}

/// `runs copy`: the runs of one store that the filters (or `ids`) choose, into another, each
/// once; returns the lines to print.
fn copy(
    args: &RunsArgs,
    sel: &OriginArgs,
    ids: &[i64],
    from: Option<&str>,
    to: Option<&str>,
) -> Result<String> {
    if from.is_none() && to.is_none() {
        return Err(crate::error::usage(
            "runs copy: give --to STORE (and --from STORE; either one defaults to --db)",
        ));
    }
    let pick = |s: Option<&str>, flag: &str| -> Result<Location> {
        match s {
            Some(s) => Location::parse(s),
            None => recorder::location().ok_or_else(|| {
                crate::error::usage(format!(
                    "runs copy: give {flag} STORE (no --db, SLCCACHE_DB or home folder)"
                ))
            }),
        }
    };
    let from = pick(from, "--from")?;
    let to = pick(to, "--to")?;
    let home = std::env::var("HOME").ok();
    let (from_name, to_name) = (from.display(home.as_deref()), to.display(home.as_deref()));
    let same = match (&from, &to) {
        (Location::Sqlite(a), Location::Sqlite(b)) => {
            a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
        }
        (a, b) => a == b,
    };
    if same {
        return Err(crate::error::usage(format!(
            "runs copy: --from and --to are the same store ({from_name})"
        )));
    }
    let mut src = Store::open_existing(&from)?;
    let mut rows = src.list(&filter(args, sel)?)?;
    if !ids.is_empty() {
        for id in ids {
            if !rows.iter().any(|r| r.id == *id) {
                return Err(crate::error::usage(format!(
                    "runs copy: no run {id} in {from_name}{}",
                    if args.drive.is_some()
                        || args.serial.is_some()
                        || args.since.is_some()
                        || args.kind.is_some()
                        || sel.host.is_some()
                        || !sel.tags.is_empty()
                    {
                        " that the filters match"
                    } else {
                        ""
                    }
                )));
            }
        }
        rows.retain(|r| ids.contains(&r.id));
    }
    let mut dst = Store::open(&to)?;
    let mut s = String::new();
    let (mut new, mut there) = (0, 0);
    for r in &rows {
        match src
            .copy_run(r.id, &mut dst)
            .with_context(|| format!("copying run {} from {from_name} to {to_name}", r.id))?
        {
            Recorded::New(id) => {
                new += 1;
                s += &format!("run {} -> run {id}\n", r.id);
            }
            Recorded::Existing(id) | Recorded::SameMeasurement(id) => {
                there += 1;
                s += &format!("run {}: already in {to_name} as run {id}\n", r.id);
            }
        }
    }
    s += &format!(
        "copied {} from {from_name} to {to_name}{}\n",
        crate::units::count_text(new, "run", "runs"),
        if there > 0 {
            format!(" ({there} already there)")
        } else {
            String::new()
        }
    );
    Ok(s)
}

/// The library page's sparkline of a run: its `timeline.csv` (slccache's own; none for another
/// file or none at all) as [`crate::report::pages::library::spark_points`] gives it from every
/// sample's rate, read twice row by row (to count, then to average), so that no run's samples
/// are held.
fn spark_of(csv: &std::path::Path) -> Vec<f64> {
    use crate::report::pages::library::{spark_points, SPARK_POINTS};
    let rows = |each: &mut dyn FnMut(f64)| -> Option<()> {
        let f = std::fs::File::open(csv).ok()?;
        crate::timeline::read_slccache_rows(std::io::BufReader::new(f), "timeline.csv", |s, _| {
            each(s.bytes_per_sec);
            Ok(())
        })
        .ok()
    };
    let mut n = 0usize;
    if rows(&mut |_| n += 1).is_none() {
        return vec![];
    }
    if n <= SPARK_POINTS {
        let mut v = Vec::with_capacity(n);
        rows(&mut |x| v.push(x));
        return spark_points(&v);
    }
    // Bin i averages samples i * n / P up to (i + 1) * n / P, as spark_points bins them.
    let mut out = Vec::with_capacity(SPARK_POINTS);
    let (mut i, mut j, mut sum) = (0usize, 0usize, 0.0);
    rows(&mut |x| {
        sum += x;
        j += 1;
        let (a, b) = (i * n / SPARK_POINTS, (i + 1) * n / SPARK_POINTS);
        if j == b {
            out.push(sum / (b - a) as f64);
            sum = 0.0;
            i += 1;
        }
    });
    out
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The folder a run was recorded from, as `runs show` names it, and whether it still holds
/// that run: a folder another run's outputs were written over since (`--force`) was named as
/// if it held this run's, and one removed since as if it were there.
fn source_text(dir: Option<&str>, summary: &str, id: i64) -> String {
    let Some(d) = dir else {
        return "-".into();
    };
    match std::fs::read_to_string(std::path::Path::new(d).join("summary.json")) {
        Ok(t) if t == summary => d.to_string(),
        Ok(_) => format!(
            "{d} (written over since: it holds another run's outputs; `slccache runs export \
             {id} --out DIR` writes this run's)"
        ),
        Err(_) => format!(
            "{d} (gone since; `slccache runs export {id} --out DIR` writes this run's outputs)"
        ),
    }
}
