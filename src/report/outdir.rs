//! The output folder of a run, claimed before the target is touched.
//!
//! A folder given with `--out` that already holds files is refused (nothing is written, the
//! target is not touched) unless `--force` says to write over it; the one exception is
//! `analyze` re-analysing a run's own `timeline.csv` into the run's folder. A default folder,
//! `output/<name>-<timestamp>`, is created with `mkdir` (never reused): when another run
//! made the same name in the same second, `-2`, `-3`, ... are appended.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::usage;

/// The folders [`claim`] created in this process, so that a run refused after its folder was
/// claimed (a held target, a declined prompt) leaves no empty folder behind.
static CREATED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn created(p: &Path) {
    CREATED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(p.to_path_buf());
}

/// Removes the folders this process claimed that are still empty (`remove_dir` removes only
/// empty ones): called when a run ends in an error, so that a refusal writes nothing.
pub fn remove_unused() {
    for p in CREATED.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir(&p);
    }
}

/// The one message for an `--out` that is an existing file (every subcommand says it alike).
pub fn not_a_folder(flag: &str, p: &Path) -> anyhow::Error {
    usage(format!(
        "{flag} {}: it exists and is not a folder; give a folder (it is created if missing)",
        p.display()
    ))
}

/// What an existing folder holds: its entries' names, sorted (at most `max` of them), and how
/// many there are.
fn entries(dir: &Path, max: usize) -> Result<(Vec<String>, usize)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let n = names.len();
    names.truncate(max);
    Ok((names, n))
}

/// Claims the output folder of a run.
///
/// - `out`: the folder given with `--out`, if any. An existing file is refused; an existing
///   folder that is not empty is refused unless `force` (or `reanalysis`: the run's own
///   timeline analysed into its own folder); a missing one is created.
/// - Without `out`: `output/<default_name>-<YYYYmmdd-HHMMSS>`, made unique.
///
/// Returns the folder, which exists when this returns.
pub fn claim(
    out: Option<&Path>,
    default_name: &str,
    force: bool,
    reanalysis: bool,
) -> Result<PathBuf> {
    match out {
        Some(dir) => claim_folder(
            "--out",
            dir,
            force || reanalysis,
            "write this run's outputs over it",
            None,
        ),
        None => {
            let parent = Path::new("output");
            let ts = chrono::Local::now().format("%Y%m%d-%H%M%S");
            unique_child(parent, &format!("{default_name}-{ts}"))
        }
    }
}

/// Claims a folder named with `flag` (`--out DIR`, `--html DIR`): an existing file is refused;
/// an existing folder that holds files is refused unless `may_write` (`--force`, or a folder
/// the command itself wrote before), with one line naming the folder, what it holds and
/// `--force` (`force_does` says what --force would do; `not_ours`, when given, why the folder
/// does not count as the command's own); a missing folder is created. Returns the folder,
/// which exists when this returns.
pub fn claim_folder(
    flag: &str,
    dir: &Path,
    may_write: bool,
    force_does: &str,
    not_ours: Option<&str>,
) -> Result<PathBuf> {
    if dir.exists() && !dir.is_dir() {
        return Err(not_a_folder(flag, dir));
    }
    if dir.is_dir() && !may_write {
        let (names, n) = entries(dir, 6)?;
        if n > 0 {
            let more = if n > names.len() {
                format!(", and {} more", n - names.len())
            } else {
                String::new()
            };
            let why = not_ours.map(|w| format!(" {w}")).unwrap_or_default();
            return Err(usage(format!(
                "{flag} {}: the folder already holds {n} file(s) ({}{more}){why}; nothing was \
                 written and they are kept. Give a new folder, or add --force to {force_does}",
                dir.display(),
                names.join(", ")
            )));
        }
    }
    if !dir.exists() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
        created(dir);
    }
    Ok(dir.to_path_buf())
}

/// Creates `parent/name`, or `parent/name-2`, `parent/name-3`, ... when it exists, with one
/// `mkdir` each, so that two runs never share a folder.
pub fn unique_child(parent: &Path, name: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create the output folder {}", parent.display()))?;
    for k in 1..10_000u32 {
        let candidate = if k == 1 {
            parent.join(name)
        } else {
            parent.join(format!("{name}-{k}"))
        };
        match std::fs::create_dir(&candidate) {
            Ok(()) => {
                created(&candidate);
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e).with_context(|| {
                    format!("cannot create the output folder {}", candidate.display())
                })
            }
        }
    }
    anyhow::bail!(
        "no free output folder name {name}-N in {}",
        parent.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_with_files_is_refused_and_kept() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("report.md"), "mine").unwrap();
        let e = claim(Some(d.path()), "x", false, false).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
        let msg = format!("{e:#}");
        assert!(
            msg.contains("report.md") && msg.contains("--force"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("report.md")).unwrap(),
            "mine"
        );
        assert!(claim(Some(d.path()), "x", true, false).is_ok());
        assert!(claim(Some(d.path()), "x", false, true).is_ok());
    }

    #[test]
    fn an_empty_or_missing_folder_is_taken() {
        let d = tempfile::tempdir().unwrap();
        assert!(claim(Some(d.path()), "x", false, false).is_ok());
        let sub = d.path().join("a/b");
        assert_eq!(claim(Some(&sub), "x", false, false).unwrap(), sub);
        assert!(sub.is_dir());
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("precious.txt");
        std::fs::write(&f, "x").unwrap();
        let e = claim(Some(&f), "x", true, false).unwrap_err();
        assert!(format!("{e:#}").contains("is not a folder"));
        let e = claim(Some(&f.join("sub")), "x", false, false).unwrap_err();
        assert!(format!("{e:#}").contains("cannot create"), "{e:#}");
    }

    #[test]
    fn default_names_never_collide() {
        let d = tempfile::tempdir().unwrap();
        let a = unique_child(d.path(), "run-20261201-085358").unwrap();
        let b = unique_child(d.path(), "run-20261201-085358").unwrap();
        let c = unique_child(d.path(), "run-20261201-085358").unwrap();
        assert_ne!(a, b);
        assert_ne!(b, c);
        assert!(c.ends_with("run-20261201-085358-3"));
    }
}
