//! Recording a run when it ends. Each command notes the folder it finished ([`note`]); after the
//! command returns (also with an error or interrupted), `main` calls [`record_finished`], which
//! adds every noted folder to the store and says where it went in one line (also with
//! `--quiet`). A run that cannot be recorded is never lost: its folder is copied into the
//! spool ([`spool_dir`]) and the warning names the command that records it later,
//! `slccache runs import --pending`. The run's own files are written all the same; its exit
//! code changes only under `--require-record` (exit 1).
//!
//! A command's JSON result (`--json`) is handed to [`print_json`] and printed by `main` once
//! recording is done, with the run's id in it (`run_id`, `null` when it was not recorded).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{Location, RecordOptions, Recorded, RenderOptions, Store};
use crate::report::ReportOptions;

/// Whether and where runs are recorded (`--db`, `SLCCACHE_DB`, `--no-record`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recording {
    /// `--no-record`, or no store could be named (no home folder).
    Off,
    /// Record into this store.
    To(Location),
}

impl Recording {
    /// From `--no-record`, `--db`, then `SLCCACHE_DB`, then the default
    /// `$XDG_DATA_HOME/slccache/results.db` (`~/.local/share/slccache/results.db`).
    pub fn resolve(
        no_record: bool,
        db: Option<&str>,
        env_db: Option<&str>,
        xdg_data_home: Option<&str>,
        home: Option<&str>,
    ) -> anyhow::Result<Recording> {
        if db.is_some_and(|d| d.trim().is_empty()) {
            return Err(crate::error::usage(
                "--db is empty: give an SQLite file path, a postgres:// URL or a libpq \
                 key=value string",
            ));
        }
        if no_record {
            return Ok(Recording::Off);
        }
        Ok(match db.or(env_db.filter(|s| !s.trim().is_empty())) {
            Some(d) => Recording::To(Location::parse(d)?),
            None => match Location::default_path(xdg_data_home, home) {
                Some(p) => Recording::To(Location::Sqlite(p)),
                None => Recording::Off,
            },
        })
    }

    /// From the flags and this process's environment. A `--db` (or `SLCCACHE_DB`) that is
    /// neither a PostgreSQL string nor a path is a usage error.
    pub fn from_env(no_record: bool, db: Option<&str>) -> anyhow::Result<Recording> {
        let var = |k: &str| std::env::var(k).ok();
        Recording::resolve(
            no_record,
            db,
            var("SLCCACHE_DB").as_deref(),
            var("XDG_DATA_HOME").as_deref(),
            var("HOME").as_deref(),
        )
    }

    /// The store, for commands that read it (`runs`, `compare ID`), whether or not runs are
    /// recorded: `--no-record` only stops recording.
    pub fn store_location(db: Option<&str>) -> anyhow::Result<Option<Location>> {
        Ok(match Recording::from_env(false, db)? {
            Recording::To(l) => Some(l),
            Recording::Off => None,
        })
    }
}

/// A folder a command finished.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The run's output folder.
    pub dir: PathBuf,
    /// Where `dir` stands in for the run's own output folder (a run kept beside the spool
    /// because its folder could not take it): that folder, recorded as the run's source;
    /// `dir` goes once the run is recorded or spooled.
    pub stands_for: Option<PathBuf>,
    /// How its charts were drawn.
    pub render: RenderOptions,
    /// `--quiet`: the line saying where it was recorded still shows (it names the id), the
    /// reminder of runs waiting in the spool does not.
    pub quiet: bool,
}

static PENDING: Mutex<Vec<Finished>> = Mutex::new(Vec::new());
/// Whether this command records its runs (`main` says so from `--no-record` and `--db`).
static RECORDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says whether this command's runs are recorded (`main`, before running the command).
pub fn set_recording(on: bool) {
    RECORDING.store(on, std::sync::atomic::Ordering::Relaxed);
}
static LOCATION: Mutex<Option<Location>> = Mutex::new(None);

/// Notes that a command wrote a run folder at `dir` with `opts`.
pub fn note(dir: &Path, opts: &ReportOptions, quiet: bool) {
    let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    p.push(Finished {
        dir: dir.to_path_buf(),
        stands_for: None,
        render: RenderOptions::from(opts),
        quiet,
    });
}

/// The error of a run whose output folder could not take it (`e`), with what [`rescue`] did:
/// where the run was kept instead (its timeline as kept in memory, `samples` samples), or why
/// it could not be.
pub fn rescued_error(
    e: anyhow::Error,
    kept: Option<anyhow::Result<PathBuf>>,
    samples: usize,
) -> anyhow::Error {
    match kept {
        Some(Ok(_)) => e.context(format!(
            "the run's summary.json and timeline.csv (the timeline as it was kept in memory: \
             {samples} samples) are recorded from a copy beside the spool, which goes once it \
             is recorded or waits in the spool (see the line above); `slccache runs export ID \
             --out DIR` writes its folder again"
        )),
        Some(Err(k)) => e.context(format!("the run could not be kept elsewhere either: {k:#}")),
        None => e,
    }
}

/// Keeps a run whose output folder `out_dir` could not take its `summary.json` (the disk
/// full) in a folder of its own beside the spool, with its timeline as the run kept it in
/// memory, and notes it for recording in place of `out_dir`. `None` when runs are not
/// recorded (`--no-record`) or there is no spool folder.
pub fn rescue(
    out_dir: &Path,
    summary: &crate::report::Summary,
    timeline: &crate::timeline::Timeline,
    opts: &ReportOptions,
    quiet: bool,
) -> Option<anyhow::Result<PathBuf>> {
    use anyhow::Context;
    if !RECORDING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let root = spool_dir()?;
    Some((|| {
        let dir = root.join(format!(
            ".kept-{}-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        crate::report::write_summary(&dir, summary)?;
        crate::timeline::CsvWriter::write_all(&dir.join("timeline.csv"), timeline)
            .with_context(|| format!("writing {}", dir.join("timeline.csv").display()))?;
        PENDING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Finished {
                dir: dir.clone(),
                stands_for: Some(out_dir.to_path_buf()),
                render: RenderOptions::from(opts),
                quiet,
            });
        Ok(dir)
    })())
}

/// How many folders are noted and not yet taken.
pub fn noted_count() -> usize {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// The folders noted so far, taken out.
pub fn take() -> Vec<Finished> {
    std::mem::take(&mut *PENDING.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Sets the store that `runs` and `compare ID` read (main sets it from `--db` before running a
/// command).
pub fn set_location(loc: Option<Location>) {
    *LOCATION.lock().unwrap_or_else(|e| e.into_inner()) = loc;
}

/// The store set by [`set_location`], or one from the environment.
pub fn location() -> Option<Location> {
    LOCATION
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .or_else(|| Recording::store_location(None).ok().flatten())
}

/// What happened to one finished folder.
#[derive(Debug)]
pub enum Outcome {
    /// Recorded (or found already there).
    Recorded {
        /// The id, new or found.
        rec: Recorded,
        /// The run folder.
        dir: PathBuf,
    },
    /// Not recorded, with why; `spooled` is where its copy waits for
    /// `slccache runs import --pending` (`None` when even that failed).
    Failed {
        /// Why it was not recorded.
        error: anyhow::Error,
        /// The run folder.
        dir: PathBuf,
        /// Its copy in the spool.
        spooled: Option<PathBuf>,
    },
}

/// The spool: runs that could not be recorded wait here, one folder each, until
/// `slccache runs import --pending` records them. `SLCCACHE_SPOOL`, else
/// `$XDG_DATA_HOME/slccache/pending`, else `~/.local/share/slccache/pending`.
pub fn spool_dir() -> Option<PathBuf> {
    if let Some(s) = std::env::var_os("SLCCACHE_SPOOL").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(s));
    }
    let var = |k: &str| std::env::var(k).ok();
    Location::default_path(var("XDG_DATA_HOME").as_deref(), var("HOME").as_deref())
        .and_then(|p| p.parent().map(|d| d.join("pending")))
}

/// The name of the file in a spooled folder that says how to record it (hidden, so it is not
/// stored with the run nor counted in its content hash).
pub const SPOOL_META: &str = ".slccache-pending.json";

/// What a spooled run keeps beside its files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SpoolMeta {
    /// The folder the run was written to.
    pub source_dir: PathBuf,
    /// The recording machine's name.
    pub host: Option<String>,
    /// How its charts were drawn.
    pub render: Option<RenderOptions>,
    /// When recording failed (RFC 3339).
    pub failed_at: String,
    /// The store it was meant for, as messages show it (no password).
    pub store: String,
    /// Why it was not recorded.
    pub cause: String,
}

/// Copies `dir` into a new folder of the spool with its [`SpoolMeta`]; returns that folder.
pub fn spool(dir: &Path, meta: &SpoolMeta) -> anyhow::Result<PathBuf> {
    use anyhow::Context;
    let root = spool_dir().context("no spool folder (no home folder; set SLCCACHE_SPOOL)")?;
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let base = format!(
        "{stamp}-{}-{}",
        std::process::id(),
        crate::shell::folder_word(
            &dir.file_name().unwrap_or_default().to_string_lossy(),
            "run"
        )
    );
    let mut dest = root.join(&base);
    let mut n = 1;
    while dest.exists() {
        n += 1;
        dest = root.join(format!("{base}-{n}"));
    }
    // Written under a hidden name and renamed when whole, so `--pending` never reads half.
    let tmp = root.join(format!(".partial-{base}-{n}"));
    let r = (|| -> anyhow::Result<()> {
        copy_tree(dir, &tmp)?;
        std::fs::write(tmp.join(SPOOL_META), serde_json::to_vec_pretty(meta)?)
            .with_context(|| format!("writing {}", tmp.join(SPOOL_META).display()))?;
        std::fs::rename(&tmp, &dest).with_context(|| format!("renaming into {}", dest.display()))
    })();
    if let Err(e) = r {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    Ok(dest)
}

/// Copies the run's own files of `from` ([`super::is_run_file`]) into `to`: a user's files
/// beside them stay where they are.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for (rel, path) in super::record::folder_files(from)? {
        if !super::is_run_file(&rel) {
            continue;
        }
        let dest = to.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::copy(&path, &dest).with_context(|| format!("copying {}", path.display()))?;
    }
    Ok(())
}

/// The spooled runs, oldest first.
pub fn pending() -> Vec<PathBuf> {
    let Some(root) = spool_dir() else {
        return vec![];
    };
    let Ok(rd) = std::fs::read_dir(&root) else {
        return vec![];
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.join(SPOOL_META).is_file())
        .collect();
    v.sort();
    v
}

/// Records one spooled run into `store` with its own host, render options and source folder,
/// then removes it from the spool.
pub fn record_spooled(store: &mut Store, entry: &Path) -> anyhow::Result<(Recorded, SpoolMeta)> {
    use anyhow::Context;
    let meta = spooled_meta(entry)?;
    let rec = store.record_folder(
        entry,
        &RecordOptions {
            render: meta.render.clone(),
            host: meta.host.clone(),
            source_dir: Some(meta.source_dir.clone()),
            recorded_at: None,
        },
    )?;
    std::fs::remove_dir_all(entry).with_context(|| format!("removing {}", entry.display()))?;
    Ok((rec, meta))
}

static JSON: Mutex<Vec<(serde_json::Value, Option<PathBuf>)>> = Mutex::new(Vec::new());

/// The note beside a spooled run: where it was written, for which store, and why it waits.
pub fn spooled_meta(entry: &Path) -> anyhow::Result<SpoolMeta> {
    use anyhow::Context;
    serde_json::from_slice(
        &std::fs::read(entry.join(SPOOL_META))
            .with_context(|| format!("reading {}", entry.join(SPOOL_META).display()))?,
    )
    .with_context(|| format!("reading {}", entry.join(SPOOL_META).display()))
}

/// Hands a command's JSON result to `main`, which prints it on stdout once the run in `dir`
/// (if any) was recorded, with `run_id` added (the id, or `null`).
pub fn print_json(value: serde_json::Value, dir: Option<&Path>) {
    JSON.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((value, dir.map(Path::to_path_buf)));
}

/// Prints the JSON results handed to [`print_json`], each with the id its folder got in
/// `outcomes`. An error when stdout cannot take them.
pub fn flush_json(outcomes: &[(PathBuf, Option<i64>)]) -> std::io::Result<()> {
    use std::io::Write;
    let items = std::mem::take(&mut *JSON.lock().unwrap_or_else(|e| e.into_inner()));
    if items.is_empty() {
        return Ok(());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (mut v, dir) in items {
        let id = dir
            .as_ref()
            .and_then(|d| outcomes.iter().find(|(o, _)| o == d))
            .and_then(|(_, id)| *id);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("run_id".into(), id.into());
        }
        match writeln!(out, "{v}") {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            r => r?,
        }
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Records every noted folder into `rec` and prints one line per folder (stderr): where it
/// went, or a warning naming the cause and where its copy waits. Never fails; with `Off`
/// (`--no-record`) nothing is recorded and nothing is returned.
pub fn record_finished(rec: &Recording) -> Vec<Outcome> {
    let pending = take();
    let Recording::To(loc) = rec else {
        return vec![];
    };
    if pending.is_empty() {
        return vec![];
    }
    let home = std::env::var("HOME").ok();
    let place = loc.display(home.as_deref());
    // The host is in each run's summary.json (`origin`); this is for a folder without one.
    let host = Some(crate::origin::current().host)
        .filter(|h| !h.is_empty())
        .or_else(super::hostname);
    let mut store: Option<Store> = None;
    let mut open_error: Option<String> = None;
    let mut out = Vec::new();
    let quiet = pending.iter().any(|f| f.quiet);
    for f in pending {
        let r = (|| -> anyhow::Result<Recorded> {
            if let Some(e) = &open_error {
                anyhow::bail!("{e}");
            }
            if store.is_none() {
                match Store::open_for_recording(loc) {
                    Ok(s) => store = Some(s),
                    Err(e) => {
                        open_error = Some(format!("{e:#}"));
                        return Err(e);
                    }
                }
            }
            let s = store.as_mut().expect("opened above");
            s.record_folder(
                &f.dir,
                &RecordOptions {
                    render: Some(f.render.clone()),
                    host: host.clone(),
                    source_dir: f
                        .stands_for
                        .as_ref()
                        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone())),
                    recorded_at: None,
                },
            )
        })();
        // The run's own folder, where `dir` stands in for it.
        let own = f.stands_for.clone().unwrap_or_else(|| f.dir.clone());
        match r {
            Ok(rec) => {
                use crate::report::console::terminal;
                match rec {
                    Recorded::SameMeasurement(id) => terminal::print_same_measurement(id, &place),
                    rec => terminal::print_recorded(rec.id(), &place, rec.is_new()),
                }
                if f.stands_for.is_some() {
                    let _ = std::fs::remove_dir_all(&f.dir);
                }
                out.push(Outcome::Recorded { rec, dir: own });
            }
            Err(e) => {
                let meta = SpoolMeta {
                    source_dir: own.canonicalize().unwrap_or_else(|_| own.clone()),
                    host: host.clone(),
                    render: Some(f.render.clone()),
                    failed_at: chrono::Utc::now().to_rfc3339(),
                    store: place.clone(),
                    cause: format!("{e:#}"),
                };
                let spooled = spool(&f.dir, &meta);
                if f.stands_for.is_some() && spooled.is_ok() {
                    let _ = std::fs::remove_dir_all(&f.dir);
                }
                crate::report::console::terminal::warn_not_recorded(
                    &e,
                    &own,
                    &place,
                    spooled
                        .as_ref()
                        .map(PathBuf::as_path)
                        .map_err(|e| format!("{e:#}")),
                );
                out.push(Outcome::Failed {
                    error: e,
                    dir: own,
                    spooled: spooled.ok(),
                });
            }
        }
    }
    if !quiet && store.is_some() && out.iter().all(|o| matches!(o, Outcome::Recorded { .. })) {
        if let Some(text) = waiting_note(loc, &place, home.as_deref()) {
            crate::note!("{text}");
        }
    }
    out
}

/// The reminder of earlier runs spooled for the store at `loc` (shown as `place`), with the
/// command that records them there; `None` when none waits for it. Runs spooled for another
/// store are no business of this one: counted apart, not as its own (two runs meant for a
/// lab's server were counted as this store's, and the command given would have refused them).
fn waiting_note(loc: &Location, place: &str, home: Option<&str>) -> Option<String> {
    let (mut here, mut other) = (0usize, 0usize);
    for e in self::pending() {
        match spooled_meta(&e) {
            Ok(m) if m.store != place => other += 1,
            _ => here += 1,
        }
    }
    if here == 0 {
        return None;
    }
    let xdg = std::env::var("XDG_DATA_HOME").ok();
    let is_default = matches!(loc, Location::Sqlite(p)
        if Some(p) == Location::default_path(xdg.as_deref(), home).as_ref());
    let db = if is_default {
        String::new()
    } else {
        // `~/` left outside the quotes, so that the shell expands it.
        let arg = match place.strip_prefix("~/") {
            Some(rest) => format!("~/{}", crate::shell::quote(rest)),
            None => crate::shell::quote(place),
        };
        format!("--db {arg} ")
    };
    Some(format!(
        "slccache: {} spooled for {place} wait{} to be recorded: slccache {db}runs import \
         --pending{}",
        crate::units::count_text(here, "earlier run", "earlier runs"),
        if here == 1 { "s" } else { "" },
        if other > 0 {
            format!(
                " ({} more wait{} for another store)",
                other,
                if other == 1 { "s" } else { "" }
            )
        } else {
            String::new()
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_environment_and_the_default() {
        let r = |nr, db, env| Recording::resolve(nr, db, env, None, Some("/home/u")).unwrap();
        assert_eq!(r(true, Some("/x.db"), Some("/y.db")), Recording::Off);
        assert_eq!(
            r(false, Some("/x.db"), Some("/y.db")),
            Recording::To(Location::Sqlite("/x.db".into()))
        );
        assert_eq!(
            r(false, None, Some("postgres://u@h/d")),
            Recording::To(Location::Postgres("postgres://u@h/d".into()))
        );
        assert_eq!(
            r(false, None, Some("")),
            Recording::To(Location::Sqlite(
                "/home/u/.local/share/slccache/results.db".into()
            ))
        );
        assert_eq!(
            Recording::resolve(false, None, None, None, None).unwrap(),
            Recording::Off
        );
        // A mistyped URL is refused, never a file.
        for bad in ["postgress://lab:pw@h/d", "mysql://u@h/d"] {
            let e = Recording::resolve(false, Some(bad), None, None, Some("/home/u")).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2);
            assert!(!format!("{e:#}").contains("pw"), "{e:#}");
        }
    }
}
