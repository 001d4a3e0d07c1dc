//! The output folder of a run, claimed before the target is touched.
//!
//! A folder given with `--out` that already holds files is refused (nothing is written, the
//! target is not touched) unless `--force` says to write over it; the one exception is
//! `analyze` re-analysing a run's own `timeline.csv` into the run's folder. A default folder,
//! `output/<name>-<timestamp>`, is created with `mkdir` (never reused): when another run
//! made the same name in the same second, `-2`, `-3`, ... are appended.
//!
//! A folder taken with `--force` may hold an earlier run's outputs that the new run does not
//! write (zoom charts, a card, another experiment's CSV and charts): [`claim`] notes which
//! slccache outputs it holds, by their known names ([`is_output_name`]), and when the run
//! ends [`remove_stale`] removes those that are still the earlier run's, so that the folder
//! holds one run; every other file is kept.

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
        Some(dir) => {
            // With --force, what an earlier run left there (not when re-analysing a run's own
            // timeline: that folder is the run's, and its timeline.csv the input).
            let earlier = (force && !reanalysis && dir.is_dir()).then(|| outputs_in(dir));
            let dir = claim_folder(
                "--out",
                dir,
                force || reanalysis,
                "write this run's outputs over it (the outputs of an earlier run there that \
                 this run does not write again are removed, other files are kept)",
                None,
            )?;
            if let Some(files) = earlier.filter(|f| !f.is_empty()) {
                EARLIER
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(Earlier {
                        dir: dir.clone(),
                        files,
                    });
            }
            Ok(dir)
        }
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

/// The files slccache writes into a run folder, besides the charts (`ChartKind::ALL`, each
/// as `.png` and `.svg`) and the bursts' timelines (`bursts/NN-*.csv`).
const OUTPUT_FILES: &[&str] = &[
    "summary.json",
    "timeline.csv",
    "report.md",
    "report.html",
    "card.png",
    "compare.md",
    "sweep.csv",
    "recovery.csv",
    "fill-sweep.csv",
];

/// Whether `rel`, a path relative to a run folder (`report.md`, `bursts/01-idle-5s.csv`), is
/// the name of a file slccache writes there.
pub fn is_output_name(rel: &str) -> bool {
    match rel.split_once('/') {
        Some(("bursts", name)) => is_burst_name(name),
        Some(_) => false,
        None => {
            OUTPUT_FILES.contains(&rel)
                || rel.rsplit_once('.').is_some_and(|(stem, ext)| {
                    matches!(ext, "png" | "svg")
                        && crate::report::charts::ChartKind::ALL
                            .iter()
                            .any(|k| k.file_stem() == stem)
                })
        }
    }
}

/// A burst's timeline as `recovery` and `fill-sweep` name it: `00-first.csv`,
/// `00-settling.csv`, `03-idle-30s.csv`, `02-fill-25pct.csv`.
pub fn is_burst_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".csv") else {
        return false;
    };
    let Some((n, what)) = stem.split_once('-') else {
        return false;
    };
    n.len() >= 2
        && n.bytes().all(|b| b.is_ascii_digit())
        && (what == "first"
            || what == "settling"
            || what.strip_prefix("idle-").is_some_and(|x| !x.is_empty())
            || what
                .strip_prefix("fill-")
                .and_then(|x| x.strip_suffix("pct"))
                .is_some_and(|x| !x.is_empty()))
}

/// What tells one version of a file from another: a rewrite makes a new inode (a temporary
/// file renamed into place) or changes the change time (a file truncated and written again).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stamp(p: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(p).ok()?;
    m.file_type().is_file().then(|| Stamp {
        dev: m.dev(),
        ino: m.ino(),
        size: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

/// The slccache outputs in `dir` (regular files with known names, at the top and in
/// `bursts/`), each with its stamp.
fn outputs_in(dir: &Path) -> Vec<(PathBuf, Stamp)> {
    let mut v = Vec::new();
    for (sub, prefix) in [(dir.to_path_buf(), ""), (dir.join("bursts"), "bursts/")] {
        let Ok(rd) = std::fs::read_dir(&sub) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !is_output_name(&format!("{prefix}{name}")) {
                continue;
            }
            if let Some(st) = stamp(&e.path()) {
                v.push((e.path(), st));
            }
        }
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// A folder claimed with `--force` and the slccache outputs it held then.
struct Earlier {
    dir: PathBuf,
    files: Vec<(PathBuf, Stamp)>,
}

static EARLIER: std::sync::Mutex<Vec<Earlier>> = std::sync::Mutex::new(Vec::new());

/// Removes, from each folder [`claim`] took with `--force` in this process, the slccache
/// outputs of an earlier run that this run did not write again (still the same file as when
/// the folder was claimed), and `bursts/` when that leaves it empty; every other file is
/// kept. A run that wrote none of its outputs there (refused before writing) removes
/// nothing. Called when the command has returned, before the folder is recorded. Returns
/// the files removed.
pub fn remove_stale() -> Vec<PathBuf> {
    let earlier: Vec<Earlier> = EARLIER
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain(..)
        .collect();
    let mut removed = Vec::new();
    for e in earlier {
        let now = outputs_in(&e.dir);
        let wrote = now.iter().any(|f| !e.files.contains(f));
        if !wrote {
            continue;
        }
        let mut in_bursts = false;
        for (p, st) in &e.files {
            if stamp(p).as_ref() == Some(st) && std::fs::remove_file(p).is_ok() {
                in_bursts |= p.parent() != Some(e.dir.as_path());
                removed.push(p.clone());
            }
        }
        if in_bursts {
            // Only when empty.
            let _ = std::fs::remove_dir(e.dir.join("bursts"));
        }
    }
    removed
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
    fn output_names_are_slccache_s_own() {
        for n in [
            "report.md",
            "summary.json",
            "card.png",
            "throughput-time-zoom.png",
            "throughput-data-zoom.svg",
            "recovery-bursts.svg",
            "fill-sweep.csv",
            "bursts/00-first.csv",
            "bursts/00-settling.csv",
            "bursts/03-idle-1m30s.csv",
            "bursts/02-fill-12.5pct.csv",
            "bursts/100-idle-5s.csv",
        ] {
            assert!(is_output_name(n), "{n}");
        }
        for n in [
            "notes.md",
            "index.html",
            "throughput-time.jpg",
            "my-chart.png",
            "report.md.bak",
            "other/report.md",
            "bursts/mine.csv",
            "bursts/1-first.csv",
            "bursts/01-idle-.csv",
            "bursts/01-fill-pct.csv",
            "bursts/01-first.txt",
        ] {
            assert!(!is_output_name(n), "{n}");
        }
    }

    /// With --force, the outputs of an earlier run that the new run did not write again are
    /// removed when it ends; those it wrote, and the user's own files, stay. A run that wrote
    /// nothing (refused after the claim) removes nothing.
    #[test]
    fn force_removes_the_earlier_run_s_outputs_it_did_not_write() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir(p.join("bursts")).unwrap();
        for f in [
            "report.md",
            "throughput-time-zoom.png",
            "notes.txt",
            "bursts/00-first.csv",
        ] {
            std::fs::write(p.join(f), "old").unwrap();
        }
        // Refused after the claim: nothing written, nothing removed.
        claim(Some(p), "x", true, false).unwrap();
        let removed = remove_stale();
        assert!(!removed.iter().any(|f| f.starts_with(p)), "{removed:?}");
        assert!(p.join("throughput-time-zoom.png").is_file());
        // A run that writes report.md again and a new summary.json.
        claim(Some(p), "x", true, false).unwrap();
        crate::report::write_file(&p.join("report.md"), "new").unwrap();
        std::fs::write(p.join("summary.json"), "{}").unwrap();
        let removed = remove_stale();
        let mut mine: Vec<_> = removed.iter().filter(|f| f.starts_with(p)).collect();
        mine.sort();
        assert_eq!(
            mine,
            [
                &p.join("bursts/00-first.csv"),
                &p.join("throughput-time-zoom.png")
            ]
        );
        assert!(!p.join("bursts").exists(), "bursts/ emptied and removed");
        assert_eq!(std::fs::read_to_string(p.join("report.md")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(p.join("notes.txt")).unwrap(), "old");
        assert!(p.join("summary.json").is_file());
        // Re-analysing a run's own timeline into its folder removes nothing.
        std::fs::write(p.join("card.png"), "old").unwrap();
        claim(Some(p), "x", true, true).unwrap();
        std::fs::write(p.join("summary.json"), "{ }").unwrap();
        remove_stale();
        assert!(p.join("card.png").is_file());
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
