//! The byte-identical check: a fixed set of seeded runs (`simulate`, `analyze` of
//! the test traces, `sweep --simulate`, `recovery --simulate`, `fill-sweep --simulate`,
//! `compare`) must write the same summary.json, CSVs, report.md, report.html and SVGs as the
//! build that recorded `tests/data/golden/`, except the lines that carry a date or a path.
//!
//! The small text outputs (JSON, CSV, Markdown) are kept whole under `tests/data/golden/`, so
//! a difference shows as a diff; report.html and the SVGs are kept as a line count and an
//! FNV-1a hash of their normalised text in `tests/data/golden/MANIFEST`.
//!
//! Normalising: a line that holds a date (`YYYY-MM-DD`), the run's temporary folder or the
//! repository's path (where the test traces are read from) is
//! dropped, and so are the glyph outlines in an SVG's `<defs>` (`<path id=...>`): which digits
//! a date uses decides which glyphs are defined, while the glyphs that are drawn stay checked.
//!
//! To record the goldens again from a build whose outputs are right:
//! `SLCCACHE_BLESS=1 cargo test --test report layout_golden`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One seeded run: the folder it writes and its arguments (`{data}` is `tests/data`).
const CASES: &[(&str, &[&str])] = &[
    ("sim", &["simulate", "960evo-250g", "--seed", "7"]),
    (
        "sim-seq",
        &[
            "simulate",
            "960evo-500g",
            "--pattern",
            "seqwrite",
            "--seed",
            "3",
        ],
    ),
    (
        "analyze-fio",
        &[
            "analyze",
            "{data}/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log",
        ],
    ),
    (
        "analyze-stall",
        &["analyze", "{data}/kernel-cliff/stall-before-cliff.csv"],
    ),
    (
        "analyze-position",
        &["analyze", "{data}/position/ssdslowmark-like.csv"],
    ),
    (
        "sweep",
        &[
            "sweep",
            "emu:960evo-500g",
            "--simulate",
            "--qd",
            "1,4,16",
            "--jobs",
            "1,4",
            "--seed",
            "7",
        ],
    ),
    (
        "recovery",
        &[
            "recovery",
            "emu:970evo-500g",
            "--simulate",
            "--idle",
            "10s,60s,300s",
            "--seed",
            "7",
        ],
    ),
    (
        "fill-sweep",
        &[
            "fill-sweep",
            "emu:660p-1tb",
            "--simulate",
            "--levels",
            "0,25,50,75",
            "--seed",
            "7",
        ],
    ),
    (
        "compare",
        &["compare", "{out}/sim", "{out}/sim-seq", "{out}/analyze-fio"],
    ),
];

/// The host every golden run records as its origin (`SLCCACHE_HOST`).
const GOLDEN_HOST: &str = "golden-host";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn has_date(line: &str) -> bool {
    let b = line.as_bytes();
    b.windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..].iter().all(u8::is_ascii_digit)
    })
}

fn normalise(text: &str, tmp: &str, svg_like: bool) -> String {
    let repo = env!("CARGO_MANIFEST_DIR");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if has_date(line) || line.contains(tmp) || line.contains(repo) {
            continue;
        }
        if svg_like && line.trim_start().starts_with("<path id=") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every checked output below `dir`, by its path relative to `root`.
fn outputs(root: &Path, dir: &Path, found: &mut BTreeMap<String, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            outputs(root, &p, found);
            continue;
        }
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "json" | "csv" | "md" | "html" | "svg") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            found.insert(rel, p);
        }
    }
}

pub fn seeded_outputs_are_byte_identical_to_the_goldens() {
    let bin = env!("CARGO_BIN_EXE_slccache");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (name, args) in CASES {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("{data}", data.to_str().unwrap())
                    .replace("{out}", out.to_str().unwrap())
            })
            .collect();
        // A fixed host, so that summary.json's `origin` is the same on every machine.
        let run = Command::new(bin)
            .env("SLCCACHE_HOST", GOLDEN_HOST)
            .args(&args)
            .arg("--out")
            .arg(out.join(name))
            .output()
            .unwrap_or_else(|e| panic!("{name}: cannot run {bin}: {e}"));
        assert!(
            run.status.success(),
            "{name}: {args:?} failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }

    let tmp_str = out.to_str().unwrap();
    let mut found = BTreeMap::new();
    outputs(out, out, &mut found);
    let golden = golden_dir();
    let bless = std::env::var_os("SLCCACHE_BLESS").is_some();

    let mut manifest = String::new();
    for (rel, path) in &found {
        let text = std::fs::read_to_string(path).unwrap();
        let svg_like = rel.ends_with(".svg") || rel.ends_with(".html");
        let norm = normalise(&text, tmp_str, svg_like);
        if svg_like {
            manifest.push_str(&format!(
                "{rel} {} {:016x}\n",
                norm.lines().count(),
                fnv1a(&norm)
            ));
        } else if bless {
            let dest = golden.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(dest, &norm).unwrap();
        }
    }
    if bless {
        std::fs::create_dir_all(&golden).unwrap();
        std::fs::write(golden.join("MANIFEST"), &manifest).unwrap();
        eprintln!("blessed {} outputs into {}", found.len(), golden.display());
        return;
    }

    let mut failures = Vec::new();
    let want_manifest = std::fs::read_to_string(golden.join("MANIFEST"))
        .expect("tests/data/golden/MANIFEST is missing; bless from a known-good build");
    let want: BTreeMap<&str, &str> = want_manifest
        .lines()
        .filter_map(|l| l.split_once(' '))
        .collect();
    let got: BTreeMap<&str, &str> = manifest.lines().filter_map(|l| l.split_once(' ')).collect();
    for (rel, w) in &want {
        match got.get(rel) {
            Some(g) if g == w => {}
            Some(g) => failures.push(format!("{rel}: lines and hash {g}, golden {w}")),
            None => failures.push(format!("{rel}: not written")),
        }
    }
    for rel in got.keys() {
        if !want.contains_key(rel) {
            failures.push(format!("{rel}: written but not in the goldens"));
        }
    }
    // The whole text outputs.
    let mut golden_texts = BTreeMap::new();
    outputs(&golden, &golden, &mut golden_texts);
    for (rel, gpath) in &golden_texts {
        let want = std::fs::read_to_string(gpath).unwrap();
        match found.get(rel) {
            Some(p) => {
                let norm = normalise(&std::fs::read_to_string(p).unwrap(), tmp_str, false);
                if norm != want {
                    let line = norm
                        .lines()
                        .zip(want.lines())
                        .position(|(a, b)| a != b)
                        .map_or(norm.lines().count().min(want.lines().count()), |i| i);
                    failures.push(format!(
                        "{rel}: differs from the golden at line {}:\n  got  {:?}\n  want {:?}",
                        line + 1,
                        norm.lines().nth(line).unwrap_or(""),
                        want.lines().nth(line).unwrap_or("")
                    ));
                }
            }
            None => failures.push(format!("{rel}: not written")),
        }
    }
    for rel in found.keys() {
        let svg_like = rel.ends_with(".svg") || rel.ends_with(".html");
        if !svg_like && !golden_texts.contains_key(rel) {
            failures.push(format!("{rel}: written but not in the goldens"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} output(s) differ from tests/data/golden:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
