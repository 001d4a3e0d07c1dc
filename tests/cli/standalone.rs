//! The repository stands alone: a clone with nothing beside it builds, runs and passes its
//! tests. No tracked file may point outside the repository at the reference folder that the
//! developers keep next to it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tracked files, from git when this is a checkout, else every file below the crate root
/// except build output.
fn repo_files(root: &Path) -> Vec<PathBuf> {
    let git = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    if let Ok(out) = git {
        if out.status.success() && !out.stdout.is_empty() {
            return out
                .stdout
                .split(|&b| b == 0)
                .filter(|s| !s.is_empty())
                .map(|s| root.join(String::from_utf8_lossy(s).as_ref()))
                .collect();
        }
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" || name == "output" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files
}

pub fn no_tracked_file_refers_to_the_sibling_reference_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Built from parts so that this file does not match itself.
    let needles = [
        format!("..{}shared", '/'),
        format!("shared{}data", '/'),
        format!("shared{}docs", '/'),
    ];
    let files = repo_files(root);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut hits = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read(f) else { continue };
        let text = String::from_utf8_lossy(&text);
        for (i, line) in text.lines().enumerate() {
            if needles.iter().any(|n| line.contains(n.as_str())) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "these lines refer to the reference folder beside the repository, which a clone does \
         not have:\n{}",
        hits.join("\n")
    );
}

pub fn the_data_the_tests_need_is_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "data/published-drives.csv",
        "data/README.md",
        "tests/data/real-traces/LICENSE.md",
        "tests/data/real-traces/README.md",
        "docs/DESIGN.md",
    ] {
        assert!(root.join(f).is_file(), "{f} is missing");
    }
}
