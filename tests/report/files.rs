//! The files as files: PNGs decode with the expected size, SVGs parse and contain the labels
//! and the cliff annotation, `report.md` links exactly the charts that exist.

use crate::common::report_util;

use report_util::*;
use slccache::report::charts::{self, CompareRun};
use slccache::report::{write_charts_and_report, write_comparison, ReportOptions};
use slccache::units::UnitSystem;

fn names(files: &[std::path::PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

pub fn one_run_writes_charts_and_report() {
    let (t, a) = clean_cliff();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let files = write_charts_and_report(&out, &t, &a, &ReportOptions::default()).unwrap();
    assert_eq!(
        names(&files),
        [
            "throughput-time.png",
            "throughput-time.svg",
            "throughput-data.png",
            "throughput-data.svg",
            "latency.png",
            "latency.svg",
            "card.png",
            "report.md",
            "report.html"
        ]
    );
    for f in &files {
        assert!(f.starts_with(&out) && f.is_file(), "{}", f.display());
    }
    for f in files.iter().filter(|f| f.extension().unwrap() == "png") {
        let (size, inked) = png_info(f);
        let want = if f.ends_with("card.png") {
            (1200, 630)
        } else {
            (1600, 900)
        };
        assert_eq!(size, want, "{}", f.display());
        assert!(inked);
    }
    let cliff = charts::cliff_label(14.0, a.cliffs[0].bytes_written, UnitSystem::Decimal);
    for (file, must) in [
        (
            "throughput-time.svg",
            vec![
                "Write throughput over time: 960evo-500g".to_string(),
                "time since start (s)".into(),
                "write throughput (MB/s)".into(),
                "drive temperature (°C)".into(),
                cliff.clone(),
                "1365 -> 591 MB/s".into(),
                "per interval".into(),
                format!("slccache {}", slccache::VERSION),
            ],
        ),
        (
            "throughput-data.svg",
            vec![
                "data written (GB)".into(),
                cliff.clone(),
                "1365 -> 591 MB/s".into(),
            ],
        ),
        (
            "latency.svg",
            vec![
                "write latency (ms, log scale)".into(),
                "p99".into(),
                cliff.clone(),
            ],
        ),
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let texts = svg_texts(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let texts: Vec<String> = texts.iter().map(|t| t.trim().to_string()).collect();
        for m in must {
            // A footer part may share its line with others.
            assert!(
                texts
                    .iter()
                    .any(|t| t == &m || t.split("  ·  ").any(|p| p == m)),
                "{file} lacks text {m:?}"
            );
        }
        // Text is glyph outlines (no font needed to show it), named in aria-label; no
        // bitmaps inside.
        assert!(!text.contains("<text") && text.contains("<use xlink:href=\"#r"));
        assert!(!text.contains("<image"));
        assert!(text.contains("width=\"1600\"") && text.contains("height=\"900\""));
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| | 960evo-500g |\n|---|---|\n"));
    assert!(md.contains("| Time to cliff | 14.0 s (95% interval 13.6 s to 14.6 s) |"));
    assert!(md.contains("| Phase 1 | SLC cache: 1365 MB/s (0.0 s to 14.0 s) |"));
    assert!(md.contains("| Stop reason | duration reached |"));
    for stem in ["throughput-time", "throughput-data", "latency"] {
        assert!(md.contains(&format!("({stem}.png)")), "{stem}");
        assert!(md.contains(&format!("({stem}.svg)")), "{stem}");
    }
}

pub fn without_latencies_no_latency_chart_and_no_link() {
    let (t, a) = no_cliff();
    let mut t = t;
    for s in &mut t.samples {
        s.lat_p50_us = None;
        s.lat_p99_us = None;
        s.lat_max_us = None;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = write_charts_and_report(dir.path(), &t, &a, &ReportOptions::default()).unwrap();
    assert_eq!(files.len(), 7);
    assert!(!dir.path().join("latency.png").exists());
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(!md.contains("latency."));
    assert!(md.contains("| Cache size | no cliff: no cache, or one larger than "));
    assert!(md.contains("| Time to cliff | no cliff |"));
}

pub fn custom_png_size_and_binary_units() {
    let (t, a) = three_phase();
    let o = ReportOptions {
        units: UnitSystem::Binary,
        png_size: (800, 450),
        ..ReportOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let files = write_charts_and_report(dir.path(), &t, &a, &o).unwrap();
    for f in files.iter().filter(|f| f.extension().unwrap() == "png") {
        let want = if f.ends_with("card.png") {
            (1200, 630)
        } else {
            (800, 450)
        };
        assert_eq!(png_info(f).0, want, "{}", f.display());
    }
    let svg = std::fs::read_to_string(dir.path().join("throughput-data.svg")).unwrap();
    let texts = svg_texts(&svg).unwrap();
    assert!(texts.iter().any(|t| t.trim() == "data written (GiB)"));
    assert!(texts.iter().any(|t| t.trim() == "write throughput (MiB/s)"));
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("GiB") && md.contains("MiB/s") && md.contains("binary units"));
    assert!(md.contains("| Phase 3 | after the cache (folding): "));
    assert!(md.contains("| Further cliffs | at 126.8 s, "));
}

pub fn comparison_files() {
    let runs = three_drives();
    let names_ = ["960 EVO 250GB", "960 EVO 500GB", "960 EVO | 1TB"];
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .zip(names_)
        .map(|((t, a), n)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let files = write_comparison(dir.path(), &cr, &ReportOptions::default()).unwrap();
    assert_eq!(
        names(&files),
        [
            "compare-throughput-time.png",
            "compare-throughput-time.svg",
            "compare-throughput-data.png",
            "compare-throughput-data.svg",
            "compare.md",
            "report.html"
        ]
    );
    for f in files.iter().filter(|f| f.extension().unwrap() == "png") {
        assert_eq!(png_info(f).0, (1600, 900));
    }
    let svg = std::fs::read_to_string(dir.path().join("compare-throughput-data.svg")).unwrap();
    let texts: Vec<String> = svg_texts(&svg)
        .unwrap()
        .iter()
        .map(|t| t.trim().to_string())
        .collect();
    for n in names_ {
        assert!(texts.iter().any(|t| t == n), "legend lacks {n}");
    }
    let md = std::fs::read_to_string(dir.path().join("compare.md")).unwrap();
    // One column per run; a '|' in a name is escaped so the table keeps its shape.
    assert!(
        md.contains("| | 960 EVO 250GB | 960 EVO 500GB | 960 EVO \\| 1TB |\n|---|---|---|---|\n")
    );
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(table.len() >= 8);
    for row in table {
        let pipes = row.len() - row.replace('|', "").len();
        let escaped = row.matches("\\|").count();
        assert_eq!(pipes - escaped, 5, "{row}");
    }
}

pub fn empty_and_tiny_timelines_still_make_readable_files() {
    use slccache::timeline::Timeline;
    let empty = Timeline::default();
    let one = Timeline::from_rates(&[(1.0, 1.0, 5e8)], Default::default());
    let flat_zero = Timeline::from_rates(&[(1.0, 1.0, 0.0), (2.0, 1.0, 0.0)], Default::default());
    for t in [empty, one, flat_zero] {
        let a = slccache::detect::analyze(&t);
        let dir = tempfile::tempdir().unwrap();
        let files = write_charts_and_report(dir.path(), &t, &a, &ReportOptions::default()).unwrap();
        assert_eq!(files.len(), 7);
        for f in &files {
            match f.extension().unwrap().to_str().unwrap() {
                "png" if f.ends_with("card.png") => assert_eq!(png_info(f).0, (1200, 630)),
                "png" => assert_eq!(png_info(f).0, (1600, 900)),
                "svg" => {
                    svg_texts(&std::fs::read_to_string(f).unwrap()).unwrap();
                }
                _ => {}
            }
        }
    }
}

pub fn smallest_and_odd_sizes_render() {
    let (t, a) = three_phase();
    for size in [(200, 200), (2000, 300), (300, 1200)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let files = write_charts_and_report(dir.path(), &t, &a, &o).unwrap();
        for f in files.iter().filter(|f| f.extension().unwrap() == "png") {
            if !f.ends_with("card.png") {
                assert_eq!(png_info(f).0, size);
            }
        }
    }
}
