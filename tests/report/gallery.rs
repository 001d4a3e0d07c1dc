//! Renders every chart kind for the five cases that matter (a clean cliff, a three-phase drive,
//! no cliff, a comparison of three runs, a million samples) and checks the files. With
//! `SLCCACHE_GALLERY=DIR` set, the files go to DIR for looking at; otherwise to a temp dir.

use crate::common::report_util;

use std::path::PathBuf;

use report_util::*;
use slccache::report::charts::CompareRun;
use slccache::report::{write_charts_and_report, write_comparison, ReportOptions};

fn out_dir(case: &str) -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("SLCCACHE_GALLERY") {
        Some(d) => (None, PathBuf::from(d).join(case)),
        None => {
            let t = tempfile::tempdir().unwrap();
            let p = t.path().join(case);
            (Some(t), p)
        }
    }
}

fn check_files(files: &[PathBuf], size: (u32, u32)) {
    for f in files {
        match f.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                let (s, inked) = png_info(f);
                let size = if f.ends_with("card.png") {
                    (1200, 630)
                } else {
                    size
                };
                assert_eq!(s, size, "{}", f.display());
                assert!(inked, "{} is blank", f.display());
            }
            Some("svg") => {
                let text = std::fs::read_to_string(f).unwrap();
                svg_texts(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            }
            Some("md") | Some("html") => assert!(std::fs::metadata(f).unwrap().len() > 100),
            _ => panic!("unexpected file {}", f.display()),
        }
    }
}

pub fn gallery_single_runs() {
    let opts = ReportOptions::default();
    for (case, (t, a)) in [
        ("clean-cliff", clean_cliff()),
        ("three-phase", three_phase()),
        ("no-cliff", no_cliff()),
        ("million", million()),
    ] {
        let (_keep, dir) = out_dir(case);
        let files = write_charts_and_report(&dir, &t, &a, &opts).unwrap();
        assert!(files.len() >= 9, "{case}: {files:?}");
        check_files(&files, opts.png_size);
    }
}

pub fn gallery_comparison() {
    let runs = three_drives();
    let names = ["960 EVO 250GB", "960 EVO 500GB", "960 EVO 1TB"];
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .zip(names)
        .map(|((t, a), n)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    let opts = ReportOptions::default();
    let (_keep, dir) = out_dir("compare");
    let files = write_comparison(&dir, &cr, &opts).unwrap();
    assert_eq!(files.len(), 6);
    check_files(&files, opts.png_size);
}

pub fn gallery_empty_run() {
    let t = slccache::timeline::Timeline::default();
    let a = slccache::detect::analyze(&t);
    let (_keep, dir) = out_dir("empty");
    let files = write_charts_and_report(&dir, &t, &a, &ReportOptions::default()).unwrap();
    check_files(&files, (1600, 900));
}
