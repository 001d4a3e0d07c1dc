//! `slccache runs`: the results library. Lists the recorded runs (a table, `--json` or
//! `--csv`, or per group with `--by`), shows one, writes one's folder again, imports old
//! folders, copies runs to another store, removes one.

use anyhow::{Context, Result};

use crate::cli::{OriginArgs, RunsAction, RunsArgs};
use crate::store::recorder;
use crate::store::{Filter, Location, Recorded, RunRow, Store, KINDS};
use crate::units::{format_bytes, format_rate, UnitSystem};

/// The listing's filters from the flags (`--host` and `--tag` are global).
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

/// Runs `slccache runs`; `sel` holds the global `--host` and `--tag` (filters here, and for
/// `import` the host of folders whose summary names none).
pub fn run(args: RunsArgs, sel: &OriginArgs) -> Result<()> {
    if let Some(RunsAction::Copy { ids, from, to }) = &args.action {
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
    let text = match &args.action {
        None => {
            let rows = store.list(&filter(&args, sel)?)?;
            if let Some(dir) = &args.html {
                library_page(&mut store, &rows, dir, &place, args.force)?
            } else if let Some(by) = &by {
                let groups = group(&rows, by);
                if args.csv {
                    return Err(crate::error::usage(
                        "--by with --csv: give --json for the groups, or --csv without --by",
                    ));
                } else if args.json {
                    serde_json::to_string_pretty(&groups)? + "\n"
                } else if rows.is_empty() {
                    none_listed(&mut store, &place)?
                } else {
                    group_table(&groups, by, UnitSystem::Decimal)
                }
            } else if args.json {
                serde_json::to_string_pretty(&rows)? + "\n"
            } else if args.csv {
                csv_text(&rows)?
            } else if rows.is_empty() {
                none_listed(&mut store, &place)?
            } else {
                table(&rows, UnitSystem::Decimal)
            }
        }
        Some(RunsAction::Show { id, json: true }) => {
            let r = store.get(*id)?;
            let mut v = serde_json::to_value(&r.row)?;
            v["stored_files"] = serde_json::json!(r.files.keys().collect::<Vec<_>>());
            v["summary"] = serde_json::from_str(&r.summary)
                .unwrap_or_else(|_| serde_json::Value::String(r.summary.clone()));
            serde_json::to_string_pretty(&v)? + "\n"
        }
        Some(RunsAction::Show { id, json: false }) => {
            let r = store.get(*id)?;
            let mut s = table(std::slice::from_ref(&r.row), UnitSystem::Decimal);
            s += &format!(
                "recorded {} from {}\nstored files: {}\n",
                r.row.recorded_at,
                r.row.source_dir.as_deref().unwrap_or("-"),
                r.files.keys().cloned().collect::<Vec<_>>().join(", ")
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
            let files = store.export(*id, dir)?;
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
                if let Some(given) = sel.host.as_deref() {
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
                } else {
                    Err(crate::error::usage("no such folder"))
                };
                match r {
                    Ok(Recorded::New(id)) => {
                        s += &format!("{}: imported as run {id}\n", d.display());
                    }
                    Ok(Recorded::Existing(id)) => {
                        s += &format!("{}: already in the store as run {id}\n", d.display());
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
                let r = store.get(*id)?;
                crate::note_raw!(
                    "{}remove run {id} from {place}? It cannot be undone (`slccache runs \
                     export {id} --out DIR` keeps a copy first). [y/N] ",
                    table(std::slice::from_ref(&r.row), UnitSystem::Decimal)
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
    let all = store.list(&crate::store::Filter::default())?.len();
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
                s += &match r {
                    Recorded::New(id) => format!(
                        "{}: recorded as run {id} in {place}\n",
                        meta.source_dir.display()
                    ),
                    Recorded::Existing(id) => format!(
                        "{}: already in the store as run {id}\n",
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

fn drive(r: &RunRow) -> String {
    r.model
        .clone()
        .or_else(|| r.label.clone())
        .or_else(|| r.target.clone())
        .unwrap_or_else(|| "-".into())
}

fn cache(r: &RunRow, units: UnitSystem) -> String {
    match (r.cache_bytes, r.cache_low_bytes, r.cache_high_bytes) {
        (Some(c), Some(lo), Some(hi)) => format!(
            "{} ({}-{})",
            format_bytes(c as f64, units),
            format_bytes(lo as f64, units),
            format_bytes(hi as f64, units)
        ),
        (Some(c), _, _) => format_bytes(c as f64, units),
        _ => match r.cache_lower_bound_bytes {
            Some(lb) => format!(">= {}", format_bytes(lb as f64, units)),
            None => "-".into(),
        },
    }
}

fn rate(v: Option<f64>, units: UnitSystem) -> String {
    v.map_or_else(|| "-".into(), |x| format_rate(x, units))
}

/// The run's date as `YYYY-MM-DD HH:MM` (UTC).
fn short_date(d: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(d) {
        Ok(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => d.to_string(),
    }
}

/// The listing as a table with a header line.
pub fn table(rows: &[RunRow], units: UnitSystem) -> String {
    let head = [
        "id",
        "date",
        "drive",
        "serial",
        "host",
        "ran",
        "cache (95% interval)",
        "in cache",
        "after cache",
    ];
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                r.id.to_string(),
                short_date(&r.date),
                drive(r),
                r.serial.clone().unwrap_or_else(|| "-".into()),
                r.host.clone().unwrap_or_else(|| "-".into()),
                if r.interrupted {
                    format!("{} (interrupted)", r.kind)
                } else {
                    r.kind.clone()
                },
                cache(r, units),
                rate(r.in_cache_bytes_per_sec, units),
                rate(r.after_cache_bytes_per_sec, units),
            ]
        })
        .collect();
    let mut width = head.map(|h| h.chars().count());
    for c in &cells {
        for (w, x) in width.iter_mut().zip(c) {
            *w = (*w).max(x.chars().count());
        }
    }
    let line = |c: &[String]| {
        let mut s = String::new();
        for (i, (x, w)) in c.iter().zip(width).enumerate() {
            if i > 0 {
                s += "  ";
            }
            // Numbers (the id) to the right, text to the left.
            if i == 0 {
                s += &format!("{x:>w$}");
            } else if i + 1 == c.len() {
                s += x;
            } else {
                s += &format!("{x:<w$}");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut s = line(&head.map(String::from));
    for c in &cells {
        s += &line(c);
    }
    s
}

/// Tags as `key=value` pairs separated by `;`, keys in order.
fn tags_text(tags: &std::collections::BTreeMap<String, String>) -> String {
    tags.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
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
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Writes the library page and, for each run not exported there yet, its folder under
/// `dir/ID/`; returns the lines to print. A folder that holds files and is not a library page
/// written before is refused (before anything is written) unless `force`.
fn library_page(
    store: &mut Store,
    rows: &[RunRow],
    dir: &std::path::Path,
    place: &str,
    force: bool,
) -> Result<String> {
    crate::report::outputs::outdir::claim_folder(
        "--html",
        dir,
        force || crate::report::pages::library::is_library_folder(dir),
        "write the library page into it (an index.html there is replaced, other files are kept)",
        Some("and is not a library page of `slccache runs --html`"),
    )?;
    let units = UnitSystem::Decimal;
    let mut entries = Vec::with_capacity(rows.len());
    let (mut exported, mut exported_bytes) = (0usize, 0u64);
    for r in rows {
        let run = store.get(r.id)?;
        let spark = run
            .files
            .get("timeline.csv")
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|t| crate::timeline::read_slccache_csv(t, "timeline.csv").ok())
            .map(|s| {
                let v: Vec<f64> = s.iter().map(|x| x.bytes_per_sec).collect();
                crate::report::pages::library::spark_points(&v)
            })
            .unwrap_or_default();
        let sub = dir.join(r.id.to_string());
        if !sub.join("summary.json").is_file() {
            let files = crate::store::export_run(&run, &sub)?;
            exported += 1;
            exported_bytes += files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum::<u64>();
        }
        let link = sub
            .join("report.html")
            .is_file()
            .then(|| format!("{}/report.html", r.id));
        entries.push(crate::report::pages::library::LibraryEntry {
            id: r.id,
            date: short_date(&r.date),
            drive: drive(r),
            serial: r.serial.clone().unwrap_or_else(|| "-".into()),
            host: r.host.clone().unwrap_or_else(|| "-".into()),
            kind: r.kind.clone(),
            cache: cache(r, units),
            in_rate: rate(r.in_cache_bytes_per_sec, units),
            after_rate: rate(r.after_cache_bytes_per_sec, units),
            spark,
            link,
        });
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
    Ok(format!(
        "wrote {} ({}{folders})\n",
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
            Recorded::Existing(id) => {
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

/// `--by`: what the runs are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupBy {
    /// The host that ran it.
    Host,
    /// The drive (model, else label, else target).
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

    fn name(&self) -> String {
        match self {
            GroupBy::Host => "host".into(),
            GroupBy::Drive => "drive".into(),
            GroupBy::Tag(k) => format!("tag:{k}"),
        }
    }

    fn key(&self, r: &RunRow) -> String {
        match self {
            GroupBy::Host => r.host.clone().unwrap_or_else(|| "-".into()),
            GroupBy::Drive => drive(r),
            GroupBy::Tag(k) => r.tags.get(k).cloned().unwrap_or_else(|| "-".into()),
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
    /// Runs in the group.
    pub runs: usize,
    /// Cache size, bytes.
    pub cache_bytes: Option<Spread>,
    /// Rate after the cache, bytes/s.
    pub after_cache_bytes_per_sec: Option<Spread>,
}

/// The runs by group, groups in name order (`-`, no value, last).
pub fn group(rows: &[RunRow], by: &GroupBy) -> Vec<Group> {
    let mut groups: std::collections::BTreeMap<(bool, String), Vec<&RunRow>> =
        std::collections::BTreeMap::new();
    for r in rows {
        let k = by.key(r);
        groups.entry((k == "-", k)).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|((_, name), rs)| Group {
            by: by.name(),
            group: name,
            runs: rs.len(),
            cache_bytes: Spread::of(
                rs.iter()
                    .filter_map(|r| r.cache_bytes.map(|c| c as f64))
                    .collect(),
            ),
            after_cache_bytes_per_sec: Spread::of(
                rs.iter()
                    .filter_map(|r| r.after_cache_bytes_per_sec)
                    .collect(),
            ),
        })
        .collect()
}

/// A range in the unit of `text` (the median as `format_bytes` or `format_rate` wrote it),
/// with as many decimals as it takes for its ends to differ (up to three): `12.96-13.11 GB`.
fn range_text(min: f64, max: f64, median_text: &str, units: UnitSystem) -> String {
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
    let mut d = if a.abs().max(b.abs()) >= 100.0 { 0 } else { 1 };
    while d < 3 && format!("{a:.d$}") == format!("{b:.d$}") {
        d += 1;
    }
    format!("{a:.d$}-{b:.d$} {unit}")
}

/// The groups as a table: one line each, with the median and range of each figure.
pub fn group_table(groups: &[Group], by: &GroupBy, units: UnitSystem) -> String {
    let spread = |s: &Option<Spread>, runs: usize, f: &dyn Fn(f64) -> String| match s {
        None => "-".to_string(),
        Some(s) => {
            let mut t = f(s.median);
            if s.runs > 1 {
                t = format!("{t} ({})", range_text(s.min, s.max, &t, units));
            }
            if s.runs < runs {
                t += &format!(" [{} of {runs} runs]", s.runs);
            }
            t
        }
    };
    let head = [
        by.name(),
        "runs".to_string(),
        "cache: median (range)".to_string(),
        "after cache: median (range)".to_string(),
    ];
    let cells: Vec<[String; 4]> = groups
        .iter()
        .map(|g| {
            [
                g.group.clone(),
                g.runs.to_string(),
                spread(&g.cache_bytes, g.runs, &|v| format_bytes(v, units)),
                spread(&g.after_cache_bytes_per_sec, g.runs, &|v| {
                    format_rate(v, units)
                }),
            ]
        })
        .collect();
    let mut width = head.clone().map(|h| h.chars().count());
    for c in &cells {
        for (w, x) in width.iter_mut().zip(c) {
            *w = (*w).max(x.chars().count());
        }
    }
    let line = |c: &[String]| {
        let s = format!(
            "{:<w0$}  {:>w1$}  {:<w2$}  {}",
            c[0],
            c[1],
            c[2],
            c[3],
            w0 = width[0],
            w1 = width[1],
            w2 = width[2]
        );
        s.trim_end().to_string() + "\n"
    };
    let mut s = line(&head);
    for c in &cells {
        s += &line(c);
    }
    s
}
