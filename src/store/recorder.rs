//! Recording a run when it ends. Each command notes the folder it finished ([`note`]); after the
//! command returns (also with an error or interrupted), `main` calls [`record_finished`], which
//! adds every noted folder to the store and says where it went in one line. A failure to record
//! is a warning: the run's files are already written and its exit code does not change.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    ) -> Recording {
        if no_record {
            return Recording::Off;
        }
        match db.or(env_db.filter(|s| !s.trim().is_empty())) {
            Some(d) => Recording::To(Location::parse(d)),
            None => match Location::default_path(xdg_data_home, home) {
                Some(p) => Recording::To(Location::Sqlite(p)),
                None => Recording::Off,
            },
        }
    }

    /// From the flags and this process's environment.
    pub fn from_env(no_record: bool, db: Option<&str>) -> Recording {
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
    pub fn store_location(db: Option<&str>) -> Option<Location> {
        match Recording::from_env(false, db) {
            Recording::To(l) => Some(l),
            Recording::Off => None,
        }
    }
}

/// A folder a command finished.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The run's output folder.
    pub dir: PathBuf,
    /// How its charts were drawn.
    pub render: RenderOptions,
    /// `--quiet`: no line saying where it was recorded (warnings still show).
    pub quiet: bool,
}

static PENDING: Mutex<Vec<Finished>> = Mutex::new(Vec::new());
static LOCATION: Mutex<Option<Location>> = Mutex::new(None);

/// Notes that a command wrote a run folder at `dir` with `opts`.
pub fn note(dir: &Path, opts: &ReportOptions, quiet: bool) {
    let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    p.push(Finished {
        dir: dir.to_path_buf(),
        render: RenderOptions::from(opts),
        quiet,
    });
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
        .or_else(|| Recording::store_location(None))
}

/// What happened to one finished folder.
#[derive(Debug)]
pub enum Outcome {
    /// Recorded (or found already there).
    Recorded(Recorded),
    /// Not recorded, with why.
    Failed(anyhow::Error),
}

/// Records every noted folder into `rec` and prints one line per folder (stderr): where it
/// went, or a warning naming the cause. Never fails.
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
    let host = super::hostname();
    let mut store = None;
    let mut out = Vec::new();
    for f in pending {
        let r = (|| -> anyhow::Result<Recorded> {
            if store.is_none() {
                store = Some(Store::open(loc)?);
            }
            let s = store.as_mut().expect("opened above");
            s.record_folder(
                &f.dir,
                &RecordOptions {
                    render: Some(f.render.clone()),
                    host: host.clone(),
                },
            )
        })();
        match r {
            Ok(rec) => {
                if !f.quiet {
                    crate::report::terminal::print_recorded(rec.id(), &place, rec.is_new());
                }
                out.push(Outcome::Recorded(rec));
            }
            Err(e) => {
                crate::report::terminal::warn_not_recorded(&e, &f.dir);
                out.push(Outcome::Failed(e));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_environment_and_the_default() {
        let r = |nr, db, env| Recording::resolve(nr, db, env, None, Some("/home/u"));
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
            Recording::resolve(false, None, None, None, None),
            Recording::Off
        );
    }
}
