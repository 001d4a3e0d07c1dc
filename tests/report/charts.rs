//! Regression tests for the chart defects a reviewer found, each checked on the chart's content
//! (its spec) or on the files: comparisons of 5 to 12 runs, the zoomed charts, the latency
//! axis, the thermal chart, a gradual drop without a cliff, axis units, the footer, report.md,
//! the card and the dark theme.

use crate::common::report_util;

use std::process::Command;

use report_util::*;
use slccache::detect::PhaseKind;
use slccache::experiment::sweep::{saturation, saturations};
use slccache::report::charts::{self, ChartKind, ChartSpec, CompareRun, Layout, Theme};
use slccache::report::{draw, ReportOptions};
use slccache::results::sweep::{Sweep, SweepPoint};
use slccache::results::sweep::{SweepConfig, SweepSummary};
use slccache::timeline::Timeline;

fn slccache() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slccache"))
}

/// `n` runs of the three test drives, repeated, with distinct names.
fn many_runs(n: usize) -> Vec<(String, Timeline, slccache::detect::Analysis)> {
    let base = three_drives();
    (0..n)
        .map(|i| {
            let (t, a) = base[i % 3].clone();
            (format!("Drive number {i} with a long name"), t, a)
        })
        .collect()
}

fn subtitle_and_footer_fit(spec: &ChartSpec) {
    let l = Layout::new(spec.size, false, spec.footer.len());
    let w = spec.size.0 as f64 - 48.0 * l.scale;
    let sub = charts::text_width(&spec.subtitle, l.font(charts::font_px::SUBTITLE));
    // draw::fit_text shrinks to 75% before cutting: within that, nothing is cut.
    assert!(sub * 0.75 <= w, "subtitle would be cut: {}", spec.subtitle);
    for f in &spec.footer {
        let fw = charts::text_width(f, l.font(charts::font_px::FOOTER));
        assert!(fw * 0.75 <= w, "footer line would be cut: {f}");
    }
}

pub fn comparisons_of_2_to_12_runs_read_well() {
    for n in [2, 5, 10, 12] {
        let runs = many_runs(n);
        let cr: Vec<CompareRun<'_>> = runs
            .iter()
            .map(|(name, t, a)| CompareRun {
                name,
                timeline: t,
                analysis: a,
            })
            .collect();
        for spec in [
            charts::compare_time(&cr, &ReportOptions::default()),
            charts::compare_data(&cr, &ReportOptions::default()),
        ] {
            // Every run named in the legend, each with its own colour and dash.
            assert_eq!(spec.legend.len(), n);
            for (e, (name, _, _)) in spec.legend.iter().zip(&runs) {
                assert_eq!(&e.name, name);
            }
            for i in 0..n {
                for j in 0..i {
                    let (a, b) = (&spec.legend[i].style, &spec.legend[j].style);
                    assert!(
                        (a.color, a.dash) != (b.color, b.dash),
                        "{n} runs: runs {i} and {j} look alike"
                    );
                }
            }
            // The legend wraps instead of dropping names.
            let rows = charts::legend_rows(&spec.legend, spec.size);
            assert_eq!(rows.iter().map(|r| r.len()).sum::<usize>(), n);
            subtitle_and_footer_fit(&spec);
            // The footer does not name the drives (the legend does), so none twice.
            for (name, _, _) in &runs {
                assert!(
                    spec.footer.iter().all(|f| !f.contains(name.as_str())),
                    "{n} runs: footer names {name}"
                );
            }
            // Cliff labels leave the data most of the height: the axis is at most twice the
            // highest value.
            let data_max = spec
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .fold(0.0, f64::max);
            assert!(
                spec.y.max <= 2.0 * data_max,
                "{n} runs: y axis {} for data up to {data_max}",
                spec.y.max
            );
            if n > 4 {
                assert!(spec.markers.iter().all(|m| m.lines.len() == 1));
            }
        }
    }
}

pub fn align_cliff_puts_every_cliff_at_zero() {
    let runs = three_drives();
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .zip(["a", "b", "c"])
        .map(|((t, a), n)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    let o = ReportOptions {
        align_cliff: true,
        ..ReportOptions::default()
    };
    for spec in [charts::compare_time(&cr, &o), charts::compare_data(&cr, &o)] {
        assert_eq!(spec.markers.len(), 3);
        for m in &spec.markers {
            assert!(m.x.abs() < 1e-9, "cliff at {}", m.x);
        }
        assert!(spec.x.min < 0.0 && spec.x.label.contains("from the cliff"));
    }
}

pub fn compare_labels_and_duplicate_drives() {
    let dir = tempfile::tempdir().unwrap();
    let mk = |name: &str, at: &str| {
        let (mut t, _) = clean_cliff();
        t.meta.label = String::new();
        t.meta.device.model = Some("loop0".into());
        t.meta.started_at = Some(at.parse().unwrap());
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        slccache::timeline::CsvWriter::write_all(&d.join("timeline.csv"), &t).unwrap();
        t
    };
    let a = mk("a", "2026-11-29T20:00:00Z");
    let b = mk("b", "2026-11-29T21:30:00Z");
    let names = slccache::commands::compare::unique_names(&[a.clone(), b.clone()], &[None, None]);
    assert_eq!(names, ["loop0, 20:00:00", "loop0, 21:30:00"]);
    // Runs from the store are named by their ids, as `runs` lists them (they were named by
    // the second they started, the second " (2)" where they started in one second).
    let names =
        slccache::commands::compare::unique_names(&[a.clone(), b, a], &[Some(2), Some(3), Some(4)]);
    assert_eq!(names, ["#2: loop0", "#3: loop0", "#4: loop0"]);
    // Two simulations of one preset, one with its cache set: their options tell them apart
    // (they were both named "... (simulated), 22:44:23", the second with " (2)").
    let sim = |spec: &str| {
        let (mut t, _) = clean_cliff();
        t.meta.label = String::new();
        t.meta.device.model = Some("Samsung SSD 960 EVO 500GB (simulated)".into());
        t.meta.device.path = spec.into();
        t.meta.started_at = Some("2026-12-04T22:44:23Z".parse().unwrap());
        t
    };
    let names = slccache::commands::compare::unique_names(
        &[sim("sim:960evo-500g"), sim("sim:960evo-500g,cache=10GB")],
        &[None, None],
    );
    assert_eq!(
        names,
        [
            "Samsung SSD 960 EVO 500GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated), cache=10GB"
        ]
    );
    // A drive made with options is named with them also where no other run shares its name
    // (it was "Samsung SSD 960 EVO 500GB (simulated)" beside another drive).
    let mut other = sim("sim:960evo-500g");
    other.meta.device.model = Some("HP FX700 2TB (QLC) (simulated)".into());
    other.meta.device.path = "sim:fx700-2tb".into();
    let names = slccache::commands::compare::unique_names(
        &[sim("sim:960evo-500g,cache=1GB"), other],
        &[None, None],
    );
    assert_eq!(
        names,
        [
            "Samsung SSD 960 EVO 500GB (simulated), cache=1GB",
            "HP FX700 2TB (QLC) (simulated)"
        ]
    );
    // --label names the runs; a count that does not match is a usage error (exit 2).
    let out = dir.path().join("cmp");
    let o = slccache()
        .arg("compare")
        .arg(dir.path().join("a"))
        .arg(dir.path().join("b"))
        .args(["--label", "fresh,full", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| fresh | full |"), "{md}");
    let o = slccache()
        .arg("compare")
        .arg(dir.path().join("a"))
        .arg(dir.path().join("b"))
        .args(["--label", "only-one", "--out"])
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--label"));
    assert!(!dir.path().join("bad").exists(), "nothing written");
}

/// A 3.4-hour run whose cliffs sit in its first two minutes (the fx700 shape): zoomed charts
/// around the cliffs, and the zoomed stretch marked on the full charts.
pub fn long_run_gets_zoomed_charts() {
    let seg = [(11.0, 5000e6), (127.0, 3500e6), (f64::INFINITY, 130e6)];
    let t = trace(
        &seg,
        &TraceOpts {
            interval_s: 1.0,
            duration_s: 12_000.0,
            noise: 0.02,
            dip_every_s: 0.0,
            latencies: false,
            temps: false,
            seed: 3,
        },
        meta("fx", "HP FX700 2TB", 2_000_000_000_000, 131072),
    );
    let a = analysis(
        &t,
        &seg,
        &[PhaseKind::Cache, PhaseKind::PostCache, PhaseKind::Folding],
    );
    let o = ReportOptions::default();
    let z = charts::zoomed(&t, &a, &o);
    assert_eq!(z.len(), 2);
    assert_eq!(z[0].kind, ChartKind::ThroughputTimeZoom);
    assert_eq!(z[1].kind, ChartKind::ThroughputDataZoom);
    // The time zoom is in seconds, shows both cliffs with their labels, and ends minutes
    // after the last one.
    assert_eq!(z[0].x.label, "time since start (s)");
    assert_eq!(z[0].markers.len(), 2);
    assert!(z[0].markers.iter().all(|m| !m.lines.is_empty()));
    assert!(
        z[0].x.max > 127.0 + 120.0 && z[0].x.max < 600.0,
        "{}",
        z[0].x.max
    );
    let full = charts::throughput_time(&t, &a, &o);
    let mark = full.zoom.as_ref().expect("zoomed range marked");
    assert!((mark.x1 * 3600.0 - z[0].x.max).abs() < 1.0);
    assert!(mark
        .lines
        .iter()
        .any(|l| l.contains("throughput-time-zoom")));
    // A short run needs no zoom.
    let (t2, a2) = clean_cliff();
    assert!(charts::zoomed(&t2, &a2, &o).is_empty());
    assert!(charts::throughput_time(&t2, &a2, &o).zoom.is_none());
}

pub fn smoothing_legend_reads_naturally() {
    assert_eq!(charts::round_duration(2.7), "2.7 s");
    assert_eq!(charts::round_duration(216.9), "3.6 min");
    assert_eq!(charts::round_duration(45.2), "45 s");
    let (t, a) = clean_cliff();
    let spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let sm = spec
        .legend
        .iter()
        .find(|e| e.name.starts_with("smoothed"))
        .unwrap();
    assert!(sm.name.starts_with("smoothed (median over "), "{}", sm.name);
    // The smoothed line only takes values that samples have.
    let smoothed = spec
        .series
        .iter()
        .find(|s| s.name.starts_with("smoothed"))
        .unwrap();
    for p in &smoothed.points {
        assert!(
            t.samples
                .iter()
                .any(|s| (s.bytes_per_sec / 1e6 - p.1).abs() < 1e-9),
            "{} MB/s is no sample's rate",
            p.1
        );
    }
}

pub fn latency_axis_is_labelled_low_and_max_stays_visible() {
    let (t, a) = million();
    let spec = charts::latency(&t, &a, &ReportOptions::default()).unwrap();
    let y = &spec.y;
    assert!(y.ticks.len() >= 4, "{:?}", y.ticks);
    assert!(
        (y.ticks[0] / y.min - 1.0).abs() < 1e-6,
        "the lowest label {} is not at the axis start {}",
        y.ticks[0],
        y.min
    );
    // max is drawn last (on top of p99), p99 keeps its dashes on dense data with one point
    // per column.
    let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["p50 (median)", "p99", "max"]);
    let p99 = &spec.series[1];
    assert!(matches!(p99.style.dash, charts::Dash::Dashed { .. }));
    assert!(p99.points.len() <= 1000, "{}", p99.points.len());
    assert!(p99.points.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(spec.legend[0].name, "max");
}

/// A simulated run of a drive that throttles, its timeline and its analysis.
fn thermal_run(out: &std::path::Path) -> (Timeline, slccache::detect::Analysis) {
    let o = slccache()
        .args([
            "simulate",
            "p5-1tb",
            "--pattern",
            "seqwrite",
            "--no-early-stop",
            "--out",
        ])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = slccache::commands::compare::load_run(out).unwrap();
    let a = slccache::detect::analyze(&t);
    (t, a)
}

pub fn thermal_chart_has_phase_legend_and_throttled_stretches() {
    let dir = tempfile::tempdir().unwrap();
    let (t, a) = thermal_run(&dir.path().join("p5"));
    let spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let swatches: Vec<&str> = spec
        .legend
        .iter()
        .filter(|e| e.swatch)
        .map(|e| e.name.as_str())
        .collect();
    assert!(swatches.contains(&"SLC cache"), "{swatches:?}");
    assert!(
        swatches.contains(&"throttled (hot and slower)"),
        "{swatches:?}"
    );
    assert!(!spec.throttled.is_empty());
}

/// The legend had one swatch "after the cache / thermal throttling" for two kinds of stretch
/// drawn in one tint: the throttled stretches get a tint and a legend entry of their own, on
/// both axes.
pub fn thermal_throttling_has_a_tint_and_a_legend_entry_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (t, a) = thermal_run(&dir.path().join("p5"));
    let names = slccache::detect::findings::phase_names(&a);
    for spec in [
        charts::throughput_time(&t, &a, &ReportOptions::default()),
        charts::throughput_data(&t, &a, &ReportOptions::default()),
    ] {
        let tint_of = |name: &str| {
            spec.legend
                .iter()
                .find(|e| e.swatch && e.name == name)
                .unwrap_or_else(|| panic!("no swatch {name:?}: {:?}", spec.legend))
                .style
                .color
        };
        let (after, heat) = (tint_of("after the cache"), tint_of("thermal throttling"));
        assert_ne!(after, heat);
        assert!(
            spec.legend.iter().all(|e| !e.name.contains(" / ")),
            "{:?}",
            spec.legend
        );
        // Each band in the tint its legend entry names.
        let mut seen = 0;
        for (b, n) in spec.bands.iter().zip(&names) {
            if n == "thermal throttling" {
                assert_eq!(b.color, heat, "{}", b.label);
                seen += 1;
            } else if n.starts_with("after the cache") {
                assert_eq!(b.color, after, "{}", b.label);
            }
        }
        assert!(seen > 0, "{names:?}");
    }
}

/// `compare` drew a run's throttled stretches with no mark: they are marked in the run's
/// colour and named in the legend.
pub fn a_comparison_marks_each_runs_thermal_throttling() {
    let dir = tempfile::tempdir().unwrap();
    let (t, a) = thermal_run(&dir.path().join("p5"));
    let runs = three_drives();
    let cr = vec![
        CompareRun {
            name: "Samsung SSD 960 EVO 250GB (simulated)",
            timeline: &runs[0].0,
            analysis: &runs[0].1,
        },
        CompareRun {
            name: "Crucial P5 1TB (simulated), hot",
            timeline: &t,
            analysis: &a,
        },
    ];
    let spans = slccache::detect::throttled_spans(&a);
    assert!(!spans.is_empty());
    for spec in [
        charts::compare_time(&cr, &ReportOptions::default()),
        charts::compare_data(&cr, &ReportOptions::default()),
    ] {
        assert_eq!(spec.throttled.len(), spans.len(), "{:?}", spec.throttled);
        let style = charts::run_style(1);
        for s in &spec.throttled {
            assert_eq!((s.group, s.color), (Some(1), style.color));
            assert!(s.x1 > s.x0);
        }
        let heat: Vec<&charts::LegendEntry> = spec
            .legend
            .iter()
            .filter(|e| e.name.contains("throttled (hot and slower)"))
            .collect();
        assert_eq!(heat.len(), 1, "{:?}", spec.legend);
        assert!(heat[0].swatch && heat[0].style.color == style.color);
        assert_eq!(heat[0].group, Some(1));
        assert!(heat[0].name.contains("hot"), "{}", heat[0].name);
    }
    // Over time, the strips sit where the analysis found the heat (in the axis' unit).
    let spec = charts::compare_time(&cr, &ReportOptions::default());
    let unit = spec.throttled[0].x0 / spans[0].0;
    for (s, (from, to)) in spec.throttled.iter().zip(&spans) {
        assert!(
            (s.x0 - from * unit).abs() < 1e-6 && (s.x1 - to * unit).abs() < 1e-6,
            "{s:?} vs {from}..{to}"
        );
    }
}

/// The legend named one drive two ways: its run as "Crucial P5 1TB (simulated), seqwrite
/// 128K" and, in the same row, its throttled stretches as the plot's short form "Crucial P5
/// 1TB … seqwrite 128K: throttled (hot and slower)". Every entry of a run gives its name as
/// the run's own entry does.
pub fn compare_legend_names_each_drive_one_way() {
    let dir = tempfile::tempdir().unwrap();
    let (t, a) = thermal_run(&dir.path().join("p5"));
    let drives = three_drives();
    let cr = vec![
        CompareRun {
            name: "Crucial P5 1TB (simulated), seqwrite 128K",
            timeline: &t,
            analysis: &a,
        },
        CompareRun {
            name: "Crucial P5 1TB (simulated), randwrite 4K",
            timeline: &t,
            analysis: &a,
        },
        CompareRun {
            name: "Samsung SSD 960 EVO 250GB (simulated)",
            timeline: &drives[0].0,
            analysis: &drives[0].1,
        },
    ];
    for spec in [
        charts::compare_time(&cr, &ReportOptions::default()),
        charts::compare_data(&cr, &ReportOptions::default()),
    ] {
        let heat = spec
            .legend
            .iter()
            .filter(|e| e.name.contains("throttled (hot and slower)"))
            .count();
        assert_eq!(heat, 2, "{:?}", spec.legend);
        for e in &spec.legend {
            let Some(i) = e.group else { continue };
            let name = cr[i].name;
            assert!(
                e.name == name || e.name.starts_with(&format!("{name}: ")),
                "{:?} names run {i} otherwise than {name:?}",
                e.name
            );
        }
        // One row of the legend names each drive one way.
        for row in charts::legend_rows(&spec.legend, spec.size) {
            let runs: Vec<usize> = row.iter().filter_map(|&k| spec.legend[k].group).collect();
            for &i in &runs {
                assert!(
                    row.iter()
                        .filter(|&&k| spec.legend[k].group == Some(i))
                        .all(|&k| spec.legend[k].name.starts_with(cr[i].name)),
                    "{:?}",
                    spec.legend
                );
            }
        }
    }
}

/// The subtitles gave the cache size but not the rates, and a long one was cut inside a word
/// ("(sto…" for "(stopped early)"): they give the rate in the cache and after it as the
/// findings do, and a long one loses whole clauses, never "stopped early".
pub fn chart_subtitles_give_the_rates_and_lose_only_whole_clauses() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("870");
    let o = slccache()
        .args(["simulate", "870evo-4tb", "--seed", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    assert!(a.coverage.as_ref().unwrap().stopped_early);
    let t = slccache::commands::compare::load_run(&out).unwrap();
    let u = slccache::units::UnitSystem::Decimal;
    let f = slccache::detect::Findings::of(&a);
    let (inside, after) = (f.in_cache_text(u).unwrap(), f.after_caveated(u).unwrap());
    // Its caveat said once, with the rate.
    assert!(after.ends_with(" (a slower tier may follow)"), "{after}");
    let clauses = charts::cache_subtitle_clauses(&a, u);
    let forms: Vec<&str> = clauses
        .iter()
        .flat_map(|c| c.forms.iter().map(String::as_str))
        .collect();
    for size in [(1600, 900), (1200, 675), (800, 450), (640, 360), (480, 270)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        for spec in [
            charts::throughput_time(&t, &a, &o),
            charts::throughput_data(&t, &a, &o),
        ] {
            let sub = &spec.subtitle;
            if size.0 >= 800 {
                assert!(
                    sub.contains(&format!("{inside} in the cache -> {after} after it")),
                    "{size:?}: {sub}"
                );
            }
            // The run's own size (the seed fixes it; the clock's seed made it 24.0 or 24.3 GB).
            let size_text =
                slccache::units::format_bytes(a.cache_estimate.as_ref().unwrap().bytes as f64, u);
            assert!(
                sub.starts_with(&format!("SLC cache {size_text}")),
                "{size:?}: {sub}"
            );
            assert!(sub.contains("stopped early"), "{size:?}: {sub}");
            // Whole clauses only: each is one of the forms the findings give.
            for part in sub.split("  ·  ") {
                assert!(forms.contains(&part), "{size:?}: {part:?} in {sub}");
            }
            // And the line fits where the header draws it (down to 75% of its size).
            let l = Layout::new(spec.size, false, 1);
            let w = charts::text_width(sub, l.font(charts::font_px::SUBTITLE));
            assert!(
                w * 0.75 <= spec.size.0 as f64 - 48.0 * l.scale,
                "{size:?}: would be cut: {sub}"
            );
        }
    }
}

/// A run whose writes wrapped a 15 GB span before its cliff at 22 GB: its subtitle once kept
/// only the long "not the cache size" clause, no rates, and was cut mid-clause at 420x300;
/// its charts shaded and labelled the 22 GB before the cliff "SLC cache". The subtitle now
/// gives the rates, loses whole clauses only, and the stretch is named as the findings name
/// it, never "SLC cache".
pub fn a_cliff_past_a_wrapped_span_is_no_cache_on_the_charts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wrapped");
    let o = slccache()
        .args([
            "simulate",
            "960evo-500g",
            "--span",
            "15GB",
            "--max-bytes",
            "60GB",
        ])
        .args(["--seed", "1", "-q", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    let f = slccache::detect::Findings::of(&a);
    assert!(
        matches!(f.cache, slccache::detect::findings::Cache::Wrapped { .. }),
        "{:?}",
        f.cache
    );
    assert!(
        !f.phase_names.iter().any(|n| n.contains("SLC cache")),
        "{:?}",
        f.phase_names
    );
    let t = slccache::commands::compare::load_run(&out).unwrap();
    let u = slccache::units::UnitSystem::Decimal;
    let (inside, after) = (f.in_cache_text(u).unwrap(), f.after_caveated(u).unwrap());
    let forms: Vec<String> = charts::cache_subtitle_clauses(&a, u)
        .into_iter()
        .flat_map(|c| c.forms)
        .collect();
    for size in [(1600, 900), (1200, 675), (800, 450), (640, 360), (420, 300)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        for spec in [
            charts::throughput_time(&t, &a, &o),
            charts::throughput_data(&t, &a, &o),
        ] {
            let sub = &spec.subtitle;
            if size.0 >= 800 {
                // No cache: the rate before the cliff, as report.md's phase and the terminal
                // name it.
                assert!(
                    sub.contains(&format!("{inside} before the cliff -> {after} after it")),
                    "{size:?}: {sub}"
                );
            }
            assert!(
                sub.to_lowercase().contains("no cache size"),
                "{size:?}: {sub}"
            );
            for part in sub.split("  ·  ") {
                assert!(
                    forms.iter().any(|f| f == part),
                    "{size:?}: {part:?} in {sub}"
                );
            }
            subtitle_and_footer_fit(&spec);
            // The bands and the legend name the phases as the findings do: no "SLC cache".
            for (b, n) in spec.bands.iter().zip(&f.phase_names) {
                assert!(b.label.starts_with(n.as_str()), "{} vs {n}", b.label);
            }
            for l in &spec.legend {
                assert!(!l.name.contains("SLC cache"), "{size:?}: {}", l.name);
            }
        }
    }
    // The card names the rate as report.md does: it said "in cache 1797 MB/s" beside
    // report.md's "before the cliff: 1797 MB/s".
    let (_, _, rate, _) = slccache::report::pages::card::card_texts(&t, &a, u);
    assert_eq!(rate, format!("before the cliff  {inside}"));
}

/// `simulate p5-1tb --no-early-stop --max-bytes 700GB`: at 420x300 the zoom mark's box
/// covered "← SLC cache: 2002 MB/s", at 1600x900 the cliff label covered the zoom bracket, and
/// the labels of the narrow cache and throttled phases sat outside them, on another phase's
/// tint. No placed label now overlaps another (or the bracket), and each band label is inside
/// its band.
pub fn placed_labels_neither_overlap_nor_leave_their_phase() {
    use slccache::report::draw::{placed_labels, LabelOf};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p5");
    let o = slccache()
        .args(["--no-record", "simulate", "p5-1tb", "--no-early-stop"])
        .args(["--max-bytes", "700GB", "--seed", "1", "-q", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    let t = slccache::commands::compare::load_run(&out).unwrap();
    for size in [(1600, 900), (800, 450), (420, 300)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        for spec in [
            charts::throughput_time(&t, &a, &o),
            charts::throughput_data(&t, &a, &o),
        ] {
            assert!(spec.zoom.is_some(), "{size:?}: no zoom mark");
            let placed = placed_labels(&spec);
            assert!(placed.iter().any(|p| p.of == LabelOf::Zoom), "{size:?}");
            for (i, p) in placed.iter().enumerate() {
                for q in &placed[i + 1..] {
                    let (a, b) = (p.rect, q.rect);
                    let apart = a.2 < b.0 || b.2 < a.0 || a.3 < b.1 || b.3 < a.1;
                    assert!(apart, "{size:?} {:?}: {p:?} overlaps {q:?}", spec.kind);
                }
            }
            let (left, _, right, _) = slccache::report::draw::plot_rect_of(&spec);
            let px = |v: f64| {
                left as f64 + (v - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64
            };
            for p in &placed {
                if let LabelOf::Band(i) = p.of {
                    let b = &spec.bands[i];
                    // Inside its band, or beside it with a leader line that ends inside it.
                    let (x0, x1) = match p.leader {
                        Some(l) => (l.2, l.2),
                        None => (p.rect.0, p.rect.2),
                    };
                    assert!(
                        x0 as f64 >= px(b.x0) - 1.0 && x1 as f64 <= px(b.x1) + 1.0,
                        "{size:?} {:?}: {p:?} outside its band {:.1}..{:.1}",
                        spec.kind,
                        px(b.x0),
                        px(b.x1)
                    );
                    assert!(!p.lines[0].contains('←') && !p.lines[0].contains('→'));
                }
            }
        }
    }
}

/// p5-1tb at 30 s samples over data written: the label of the second spell of heat sat left
/// of the first spell with its leader line across it, through the point the first spell's
/// leader ended on, so each label seemed to point at the other's spell. No label beside its
/// band now lies, with its leader line, over another band of its colour, and no two leader
/// lines meet.
pub fn labels_beside_their_bands_keep_off_their_twins() {
    use slccache::report::draw::{placed_labels, LabelOf};
    let text = include_str!("../data/thermal-coarse/p5-1tb-30s-heat-in-the-last-sample.csv");
    let t = Timeline {
        samples: slccache::timeline::read_slccache_csv(text, "p5").unwrap(),
        meta: Default::default(),
    };
    let a = slccache::detect::analyze(&t);
    for size in [(1600, 900), (800, 450)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        for spec in [
            charts::throughput_data(&t, &a, &o),
            charts::throughput_time(&t, &a, &o),
        ] {
            let (left, _, right, _) = draw::plot_rect_of(&spec);
            let px = |v: f64| {
                (left as f64 + (v - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64)
                    .round() as i32
            };
            let placed = placed_labels(&spec);
            // The spells' labels: turned inside their bands, or beside them.
            let narrow: Vec<_> = placed
                .iter()
                .filter(|p| p.leader.is_some() || !p.upright)
                .collect();
            assert!(narrow.len() >= 2, "{size:?} {:?}: {placed:?}", spec.kind);
            let beside: Vec<_> = narrow.iter().filter(|p| p.leader.is_some()).collect();
            for p in &narrow {
                let LabelOf::Band(i) = p.of else { continue };
                let l = p.leader.unwrap_or(p.rect);
                let (c0, c1) = (p.rect.0.min(l.2), p.rect.2.max(l.2));
                for (j, b) in spec.bands.iter().enumerate() {
                    let (b0, b1) = (px(b.x0), px(b.x1));
                    assert!(
                        j == i || b.color != spec.bands[i].color || c1 <= b0 || c0 >= b1,
                        "{size:?} {:?}: {:?} lies over band {j} ({})",
                        spec.kind,
                        p.lines,
                        b.label
                    );
                }
            }
            // No two leader lines within 3 px of each other, checked point by point.
            let points = |l: (i32, i32, i32, i32)| {
                let n = (l.2 - l.0).abs().max((l.3 - l.1).abs()).max(1);
                (0..=n)
                    .map(|k| (l.0 + (l.2 - l.0) * k / n, l.1 + (l.3 - l.1) * k / n))
                    .collect::<Vec<_>>()
            };
            for (k, p) in beside.iter().enumerate() {
                for q in &beside[k + 1..] {
                    let (pa, qa) = (points(p.leader.unwrap()), points(q.leader.unwrap()));
                    let near = pa.iter().any(|&(x, y)| {
                        qa.iter()
                            .any(|&(u, v)| (x - u).abs() <= 3 && (y - v).abs() <= 3)
                    });
                    assert!(
                        !near,
                        "{size:?} {:?}: {:?} meets {:?}",
                        spec.kind, p.lines, q.lines
                    );
                }
            }
        }
    }
}

/// The cliff labels and the zoom mark ("enlarged in throughput-time-zoom") were drawn over the
/// temperature curve, whose axis ran it up to the top of the plot: no label box covers any
/// point of it.
pub fn no_label_box_covers_the_temperature_curve() {
    use slccache::report::draw::placed_labels;
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args([
            "simulate",
            "p5-1tb,heat=0.5",
            "--seed",
            "3",
            "--cliffs",
            "2",
            "--no-record",
            "-q",
            "--out",
        ])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = slccache::commands::compare::load_run(&dir.path().join("r")).unwrap();
    let a = slccache::detect::analyze(&t);
    let o = ReportOptions::default();
    let mut seen = 0;
    for spec in [
        charts::throughput_data(&t, &a, &o),
        charts::throughput_time(&t, &a, &o),
    ] {
        let Some(y2) = spec.y2.clone() else {
            continue;
        };
        let (left, top, right, bottom) = draw::plot_rect_of(&spec);
        let px = |x: f64, v: f64| {
            (
                left as f64 + (x - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64,
                bottom as f64 - (v - y2.min) / (y2.max - y2.min) * (bottom - top) as f64,
            )
        };
        let temp = spec
            .series
            .iter()
            .find(|s| s.name.starts_with("temperature"))
            .expect("a temperature curve");
        for p in placed_labels(&spec) {
            let (x0, y0, x1, y1) = p.rect;
            seen += 1;
            for &(x, v) in &temp.points {
                let (px, py) = px(x, v);
                assert!(
                    !(px >= x0 as f64 && px <= x1 as f64 && py >= y0 as f64 && py <= y1 as f64),
                    "{:?}: {:?} covers the temperature {v:.0} °C at x {x:.1}",
                    spec.kind,
                    p.lines
                );
            }
        }
    }
    assert!(seen > 0, "no labels placed");
}

/// p5-1tb at 30 s samples, stopped after its cliff: the cache's label "1995 MB/s" sat at
/// 0 MB/s in the corner, far from its level (no point of the lines lay over the label's
/// columns, the step line's corners being at the sample's ends), and the smoothed line ran
/// down from 2000 MB/s to the 1670 MB/s of the sample astride the cliff, a level between the
/// two phases. Each band's label sits by its level, and the smoothed line takes no value of
/// the sample the cliff falls in.
pub fn a_coarse_run_s_labels_sit_by_their_levels_and_the_smoothed_line_skips_the_cliff_sample() {
    use slccache::report::draw::{placed_labels, LabelOf};
    let text = include_str!("../data/coarse-cliff/p5-1tb-30s.csv");
    let t = Timeline {
        samples: slccache::timeline::read_slccache_csv(text, "p5").unwrap(),
        meta: Default::default(),
    };
    let a = slccache::detect::analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{a:#?}");
    for size in [(1600, 900), (800, 450)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        for spec in [
            charts::throughput_data(&t, &a, &o),
            charts::throughput_time(&t, &a, &o),
        ] {
            let (_, top, _, bottom) = draw::plot_rect_of(&spec);
            let py = |v: f64| {
                bottom as f64 - (v - spec.y.min) / (spec.y.max - spec.y.min) * (bottom - top) as f64
            };
            for p in placed_labels(&spec) {
                let LabelOf::Band(i) = p.of else { continue };
                let Some(level) = spec.bands[i].level else {
                    continue;
                };
                let h = (p.rect.3 - p.rect.1) as f64;
                let (y0, y1) = (p.rect.1 as f64, p.rect.3 as f64);
                let off = if py(level) < y0 {
                    y0 - py(level)
                } else {
                    (py(level) - y1).max(0.0)
                };
                assert!(
                    off <= 2.0 * h,
                    "{size:?} {:?}: {:?} lies {off:.0} px from its level {level:.0}",
                    spec.kind,
                    p.lines
                );
            }
            let smoothed = spec
                .series
                .iter()
                .find(|s| s.name.starts_with("smoothed"))
                .expect("a smoothed line");
            let (hi, lo) = (1995.0, 998.0);
            for &(x, y) in &smoothed.points {
                assert!(
                    (y / hi - 1.0).abs() < 0.02 || (y / lo - 1.0).abs() < 0.02,
                    "{size:?} {:?}: the smoothed line at {y:.0} MB/s (x {x:.1})",
                    spec.kind
                );
            }
        }
    }
}

/// `emu:960evo-250g,cache=1GB`: the cache ran out inside the first sample (1092 MB/s, then
/// 300 MB/s), and the smoothed line was drawn over that sample at 300 MB/s, a level the
/// sample does not have. It takes no value of a sample a drop falls in, as of one a cliff
/// falls in.
pub fn the_smoothed_line_takes_no_value_of_a_first_sample_that_holds_a_drop() {
    use slccache::config::WorkloadConfig;
    let m = slccache::model::presets::parse_spec("960evo-250g,cache=1GB").unwrap();
    let w = WorkloadConfig::resolve(&slccache::cli::WorkloadArgs {
        pattern: Some(slccache::cli::Pattern::Seqwrite),
        duration: Some("20s".to_string()),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let sim = slccache::experiment::virtual_time::simulate(
        &m,
        &w,
        slccache::timeline::RunMeta::default(),
        |_| Ok(()),
    )
    .unwrap();
    let t = sim.timeline;
    let a = slccache::detect::analyze(&t);
    let d = a
        .unconfirmed_drop
        .as_ref()
        .expect("a drop in the first sample");
    assert_eq!(d.at, slccache::detect::DropWhere::FirstSample);
    let first = &t.samples[0];
    let o = ReportOptions::default();
    for spec in [
        charts::throughput_data(&t, &a, &o),
        charts::throughput_time(&t, &a, &o),
    ] {
        let end = match spec.kind {
            ChartKind::ThroughputData => first.bytes_total as f64 / 1e9,
            _ => first.t_s,
        };
        let smoothed = spec
            .series
            .iter()
            .find(|s| s.name.starts_with("smoothed"))
            .expect("a smoothed line");
        assert!(
            smoothed.points.iter().all(|p| p.0 >= end - 1e-9),
            "{:?}: {:?} inside the first sample (to {end})",
            spec.kind,
            &smoothed.points[..3]
        );
    }
}

/// Checks the labels of a throughput chart: every band drawn has its label (inside it,
/// upright or turned to run upwards in a band too narrow for it upright, or beside it with a
/// leader line that ends inside the band at the level it names, or, for a sliver inside a
/// zoomed stretch, in the zoom mark's box), no two placed labels overlap, and a turned label
/// or one beside its band covers none of the lines. Returns the labels of the bands too
/// narrow for them upright: turned in their band, or beside it.
fn every_drawn_band_has_its_label(
    spec: &ChartSpec,
    what: &str,
) -> Vec<slccache::report::draw::PlacedLabel> {
    use slccache::report::draw::{placed_labels, LabelOf};
    let placed = placed_labels(spec);
    let (left, top, right, bottom) = slccache::report::draw::plot_rect_of(spec);
    let px =
        |v: f64| left as f64 + (v - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64;
    let py = |v: f64| {
        bottom as f64 - (v - spec.y.min) / (spec.y.max - spec.y.min) * (bottom - top) as f64
    };
    for (i, p) in placed.iter().enumerate() {
        for q in &placed[i + 1..] {
            let (a, b) = (p.rect, q.rect);
            let apart = a.2 < b.0 || b.2 < a.0 || a.3 < b.1 || b.3 < a.1;
            assert!(apart, "{what}: {p:?} overlaps {q:?}");
        }
    }
    let mut beside = Vec::new();
    for (i, b) in spec.bands.iter().enumerate() {
        if px(b.x1.min(spec.x.max)).round() <= px(b.x0.max(spec.x.min)).round() {
            continue;
        }
        let Some(p) = placed.iter().find(|p| p.of == LabelOf::Band(i)) else {
            let zoom = placed.iter().find(|p| p.of == LabelOf::Zoom);
            assert!(
                zoom.is_some_and(|z| z.lines.contains(&b.label)),
                "{what}: band {:?} has no label",
                b.label
            );
            continue;
        };
        assert!(
            p.lines[0] == b.label || p.lines[0] == b.short_label,
            "{what}: {p:?}"
        );
        let Some((lx0, ly0, lx1, ly1)) = p.leader else {
            assert!(
                p.rect.0 as f64 >= px(b.x0) - 1.0 && p.rect.2 as f64 <= px(b.x1) + 1.0,
                "{what}: {p:?} outside its band"
            );
            if !p.upright {
                // Turned: no point of a line under the box.
                let (x0, y0, x1, y1) = p.rect;
                for s in spec.series.iter().filter(|s| s.side == charts::YSide::Left) {
                    for q in &s.points {
                        let (x, y) = (px(q.0), py(q.1));
                        assert!(
                            !(x >= x0 as f64 && x <= x1 as f64 && y >= y0 as f64 && y <= y1 as f64),
                            "{what}: {p:?} covers the line at {q:?}"
                        );
                    }
                }
                beside.push(p.clone());
            }
            continue;
        };
        // The line starts at the box's edge and ends inside the band, at its level.
        assert!(lx0 == p.rect.0 || lx0 == p.rect.2, "{what}: {p:?}");
        assert!(ly0 > p.rect.1 && ly0 < p.rect.3, "{what}: {p:?}");
        assert!(
            lx1 as f64 >= px(b.x0) - 1.0 && lx1 as f64 <= px(b.x1) + 1.0,
            "{what}: {p:?} points outside its band"
        );
        let level = b.level.expect("a throughput band has its level");
        assert!((ly1 as f64 - py(level)).abs() <= 1.5, "{what}: {p:?}");
        // No point of a line under the box.
        let (x0, y0, x1, y1) = p.rect;
        for s in spec.series.iter().filter(|s| s.side == charts::YSide::Left) {
            for q in &s.points {
                let (x, y) = (px(q.0), py(q.1));
                assert!(
                    !(x >= x0 as f64 && x <= x1 as f64 && y >= y0 as f64 && y <= y1 as f64),
                    "{what}: {p:?} covers the line at {q:?}"
                );
            }
        }
        beside.push(p.clone());
    }
    beside
}

/// `simulate a2000-1tb --pattern seqwrite --bs 1M --interval 1m`: the 88.6 s cache phase's
/// label sat beside it right of the cliff, on the second tier's tint, its leader line a stub
/// ending in the cliff's shaded interval, not on the cache's own tint; at `--interval 2m`
/// "tier 2: 495 MB/s" straddled the grey first sample and its dotted line. A phase label now
/// keeps clear of every marker's line and shaded interval (a cliff's, a first sample's):
/// inside its band, in the stretch no marker covers; beside it, on its band's side of the
/// level of the phase whose tint it sits on, its leader line ending in its band's own tint.
pub fn phase_labels_keep_clear_of_cliffs_and_first_samples() {
    let dir = tempfile::tempdir().unwrap();
    for interval in ["1m", "2m"] {
        let out = dir.path().join(interval);
        let o = slccache()
            .args([
                "--no-record",
                "simulate",
                "a2000-1tb",
                "--pattern",
                "seqwrite",
            ])
            .args(["--bs", "1M", "--no-early-stop", "--seed", "1", "-q"])
            .args(["--interval", interval, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        let a: slccache::detect::Analysis =
            serde_json::from_value(summary["analysis"].clone()).unwrap();
        let t = slccache::commands::compare::load_run(&out).unwrap();
        for size in [(1600, 900), (800, 450)] {
            let o = ReportOptions {
                png_size: size,
                ..ReportOptions::default()
            };
            for spec in [
                charts::throughput_time(&t, &a, &o),
                charts::throughput_data(&t, &a, &o),
            ] {
                let what = format!("--interval {interval} {size:?} {:?}", spec.kind);
                let beside = every_drawn_band_has_its_label(&spec, &what);
                phase_labels_clear_of_markers(&spec, &what);
                if interval == "1m" && spec.kind == ChartKind::ThroughputTime {
                    assert!(
                        beside
                            .iter()
                            .any(|p| p.of == slccache::report::draw::LabelOf::Band(0)),
                        "{what}: the cache phase is not labelled beside its sliver"
                    );
                }
            }
        }
    }
}

/// Checks that no phase label of `spec` lies across a marker's line or shaded interval, that
/// a leader line ends outside every shaded interval, and that a label beside its band that
/// sits on another band's tint keeps to its own band's side of that band's level.
fn phase_labels_clear_of_markers(spec: &ChartSpec, what: &str) {
    use slccache::report::draw::{placed_labels, LabelOf};
    let (left, top, right, bottom) = slccache::report::draw::plot_rect_of(spec);
    let px =
        |v: f64| left as f64 + (v - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64;
    let py = |v: f64| {
        bottom as f64 - (v - spec.y.min) / (spec.y.max - spec.y.min) * (bottom - top) as f64
    };
    let covered: Vec<(f64, f64)> = spec
        .markers
        .iter()
        .map(|m| {
            let (lo, hi) = m.interval.unwrap_or((m.x, m.x));
            (px(lo.min(m.x)), px(hi.max(m.x)))
        })
        .collect();
    for p in placed_labels(spec) {
        let LabelOf::Band(i) = p.of else { continue };
        let (x0, x1) = (p.rect.0 as f64, p.rect.2 as f64);
        for &(lo, hi) in &covered {
            assert!(
                x1 < lo || x0 > hi,
                "{what}: {p:?} lies across a marker at {lo:.0}..{hi:.0}"
            );
            if let Some(l) = p.leader {
                let end = l.2 as f64;
                assert!(
                    end < lo || end > hi,
                    "{what}: the leader of {p:?} ends in a marker's shading {lo:.0}..{hi:.0}"
                );
            }
        }
        let Some(level) = spec.bands[i].level else {
            continue;
        };
        // On another band's tint: on its own band's side of that band's level.
        let xm = (x0 + x1) / 2.0;
        for (j, o) in spec.bands.iter().enumerate() {
            if j == i || !(px(o.x0) <= xm && xm < px(o.x1)) {
                continue;
            }
            let Some(other) = o.level else { continue };
            if level > other {
                assert!((p.rect.3 as f64) < py(other), "{what}: {p:?} below {other}");
            } else if level < other {
                assert!((p.rect.1 as f64) > py(other), "{what}: {p:?} above {other}");
            }
        }
    }
}

/// `simulate 960evo-500g,cache=3GB --no-early-stop`: the zoomed time chart ("first 3 min")
/// drew the 1.7 s cache phase as a sliver with no label, as a band too narrow for its label
/// had none. Its label now sits in it, turned, or beside it with a leader line to the cache's
/// level.
pub fn a_narrow_phase_is_labelled_beside_it_with_a_leader() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("z");
    let o = slccache()
        .args(["--no-record", "simulate", "960evo-500g,cache=3GB"])
        .args([
            "--pattern",
            "seqwrite",
            "--no-early-stop",
            "--seed",
            "1",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    let t = slccache::commands::compare::load_run(&out).unwrap();
    for size in [(1600, 900), (800, 450)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        let zoomed = charts::zoomed(&t, &a, &o);
        let time = zoomed
            .iter()
            .find(|s| s.kind == ChartKind::ThroughputTimeZoom)
            .expect("a zoomed time chart");
        let beside = every_drawn_band_has_its_label(time, &format!("{size:?} time zoom"));
        assert!(
            beside.iter().any(|p| p.lines[0].ends_with(" MB/s")
                && p.of == slccache::report::draw::LabelOf::Band(0)),
            "{size:?}: the cache phase is not labelled beside its band: {beside:?}"
        );
        for spec in zoomed.iter().chain([
            &charts::throughput_time(&t, &a, &o),
            &charts::throughput_data(&t, &a, &o),
        ]) {
            every_drawn_band_has_its_label(spec, &format!("{size:?} {:?}", spec.kind));
        }
    }
    // The drawn chart says it too.
    let svg = std::fs::read_to_string(out.join("throughput-time-zoom.svg")).unwrap();
    assert!(
        svg_texts(&svg)
            .unwrap()
            .iter()
            .any(|t| t.starts_with("SLC cache: ") || t.ends_with(" MB/s") && !t.contains("->")),
        "no label of the cache phase"
    );
}

pub fn a_gradual_drop_without_a_cliff_is_annotated() {
    // 1000 MB/s falling steadily to 400 MB/s: no single cliff, but a 60% drop.
    let pts: Vec<(f64, f64, f64)> = (1..=600)
        .map(|i| (i as f64, 1.0, (1000.0 - i as f64) * 1e6))
        .collect();
    let t = Timeline::from_rates(&pts, meta("slow", "Slow drive", 1 << 40, 131072));
    let mut a = slccache::detect::analyze(&t);
    a.cliffs.clear();
    a.cache_estimate = None;
    let spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let m = spec
        .markers
        .iter()
        .find(|m| m.lines[0].starts_with("gradual drop"))
        .expect("the drop is annotated");
    assert!(m.lines[0].contains("-> 4"), "{:?}", m.lines);
    // A flat run gets no such note.
    let (t2, a2) = no_cliff();
    let spec2 = charts::throughput_time(&t2, &a2, &ReportOptions::default());
    assert!(spec2.markers.is_empty());
}

pub fn data_axis_unit_follows_the_range() {
    let pts: Vec<(f64, f64, f64)> = (1..=67).map(|i| (i as f64, 1.0, 1e6)).collect();
    let t = Timeline::from_rates(&pts, meta("small", "Small", 1 << 30, 4096));
    let a = slccache::detect::analyze(&t);
    let spec = charts::throughput_data(&t, &a, &ReportOptions::default());
    assert_eq!(spec.x.label, "data written (MB)");
    assert!(
        spec.x.ticks.iter().all(|v| v.fract() == 0.0),
        "{:?}",
        spec.x.ticks
    );
}

pub fn footer_at_10ms_leaves_no_orphan() {
    let pts: Vec<(f64, f64, f64)> = (1..=3000).map(|i| (i as f64 * 0.01, 0.01, 1e9)).collect();
    let mut m = meta(
        "fast",
        "Samsung SSD 990 PRO with Heatsink 2TB",
        2 << 40,
        4096,
    );
    m.workload.interval_s = Some(0.01);
    m.device.firmware = Some("4B2QJXD7".into());
    let t = Timeline::from_rates(&pts, m);
    let a = slccache::detect::analyze(&t);
    let spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let version = format!("slccache {}", slccache::VERSION);
    assert!(
        spec.footer.iter().all(|l| l.trim() != version),
        "{:?}",
        spec.footer
    );
    // The shared wrapper never leaves the last part alone when it can join the one before.
    let parts: Vec<String> = ["aaaa aaaa aaaa", "bbbb bbbb bbbb", "cccc"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let px = 15.0;
    let w = charts::text_width("aaaa aaaa aaaa  ·  bbbb bbbb bbbb", px) + 1.0;
    let lines = charts::wrap_parts(&parts, w, px);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_ne!(lines[1], "cccc");
}

pub fn report_md_is_ready_to_publish() {
    let (t, a) = clean_cliff();
    let dir = tempfile::tempdir().unwrap();
    slccache::report::write_charts_and_report(dir.path(), &t, &a, &ReportOptions::default())
        .unwrap();
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(!md.contains("ready to paste"), "{md}");
    assert!(md.contains("| Run date | 2026-11-29 20:00 UTC |"), "{md}");
    // analyze input: the drive is not the file name.
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log");
    let out = dir.path().join("ana");
    let o = slccache()
        .arg("analyze")
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let drive_row = md.lines().find(|l| l.starts_with("| Drive |")).unwrap();
    assert!(!drive_row.contains("biwin"), "{drive_row}");
    assert!(md.contains("| Input | biwin_x570"), "{md}");
}

fn png_pixels(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

pub fn card_is_1200_by_630_and_says_the_essentials() {
    let (t, a) = clean_cliff();
    let (drive, cache, in_cache, after) =
        slccache::report::pages::card::card_texts(&t, &a, slccache::units::UnitSystem::Decimal);
    assert_eq!(drive, "960evo-500g");
    assert!(
        cache.starts_with("SLC cache ") && cache.contains(" to "),
        "{cache}"
    );
    assert_eq!(in_cache, "in cache  1365 MB/s");
    assert_eq!(after, "after  591 MB/s (too short to judge)");
    let png = slccache::report::pages::card::render_card(
        &t,
        &a,
        slccache::units::UnitSystem::Decimal,
        Theme::Light,
    )
    .unwrap();
    let (w, h, px) = png_pixels(&png);
    assert_eq!((w, h), (1200, 630));
    assert!(px.chunks(3).filter(|p| p != &[255, 255, 255]).count() > 20_000);
}

pub fn dark_theme_draws_on_a_dark_background() {
    let (t, a) = clean_cliff();
    let o = ReportOptions {
        theme: Theme::Dark,
        ..ReportOptions::default()
    };
    let spec = charts::throughput_time(&t, &a, &o);
    let (_, _, px) = png_pixels(&draw::render_png(&spec).unwrap());
    let mean_luma = px
        .chunks(3)
        .map(|p| 0.3 * p[0] as f64 + 0.59 * p[1] as f64 + 0.11 * p[2] as f64)
        .sum::<f64>()
        / (px.len() / 3) as f64;
    assert!(mean_luma < 70.0, "mean brightness {mean_luma:.0} of 255");
    let svg = draw::render_svg(&spec).unwrap();
    assert!(svg.contains("fill=\"#16181d\""), "dark SVG background");
}

/// The cliff's 95% interval is shaded wide enough to see (at least 6 pixels at 1600x900).
pub fn cliff_interval_shading_is_visible() {
    let (t, a) = clean_cliff();
    let mut spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    // Make the interval tiny: a fraction of a pixel.
    let m = &mut spec.markers[0];
    m.interval = Some((m.x - 0.001, m.x + 0.001));
    spec.series.clear();
    spec.bands.clear();
    let (w, _, px) = png_pixels(&draw::render_png(&spec).unwrap());
    let (l, top, r, b) = draw::plot_rect_of(&spec);
    let y = ((top + b) / 2) as u32;
    let xm = l as f64 + (m_x(&spec) - spec.x.min) / (spec.x.max - spec.x.min) * (r - l) as f64;
    let tinted = (l as u32..r as u32)
        .filter(|&x| (x as f64 - xm).abs() > 2.0)
        .filter(|&x| {
            let i = ((y * w + x) * 3) as usize;
            px[i] > 200 && px[i + 2] < 235 && px[i + 1] < 235
        })
        .count();
    assert!(tinted >= 3, "{tinted} tinted columns beside the cliff line");
}

/// A cliff's 95 % interval was a flat tint of the cliff's colour, vermillion at 28 %, and a
/// stretch of thermal throttling a flat tint of the same colour: on a p5's chart the cliff's
/// sample read as throttled. The interval is hatched now: along a row across it the colour
/// changes, where across a throttled band it does not.
pub fn a_cliff_interval_does_not_read_as_a_throttled_band() {
    let (t, a) = clean_cliff();
    let mut spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let (x0, x1) = (spec.x.min, spec.x.max);
    let w = x1 - x0;
    spec.markers.truncate(1);
    let m = &mut spec.markers[0];
    m.x = x0 + 0.25 * w;
    m.interval = Some((x0 + 0.15 * w, x0 + 0.35 * w));
    spec.series.clear();
    spec.bands = vec![charts::Band {
        x0: x0 + 0.6 * w,
        x1: x0 + 0.8 * w,
        label: String::new(),
        short_label: String::new(),
        level: None,
        color: charts::THROTTLE_STYLE.color,
    }];
    spec.zoom = None;
    let (pw, _, px) = png_pixels(&draw::render_png(&spec).unwrap());
    let (l, top, r, b) = draw::plot_rect_of(&spec);
    let y = ((top + b) / 2 + 7) as u32;
    let col = |f: f64| (l as f64 + f * (r - l) as f64).round() as u32;
    // The share of the pixels of a row between two fractions of the plot's width (the
    // marker's line left out) that have the row's commonest colour.
    let flat_share = |from: f64, to: f64| {
        let v: Vec<[u8; 3]> = (col(from) + 3..col(to) - 3)
            .filter(|&x| (x as i64 - col(0.25) as i64).abs() > 4)
            .map(|x| {
                let i = ((y * pw + x) * 3) as usize;
                [px[i], px[i + 1], px[i + 2]]
            })
            .collect();
        let most = v
            .iter()
            .map(|c| v.iter().filter(|d| *d == c).count())
            .max()
            .unwrap_or(0);
        most as f64 / v.len().max(1) as f64
    };
    let band = flat_share(0.6, 0.8);
    assert!(band > 0.9, "the throttled band is one flat tint: {band}");
    let interval = flat_share(0.15, 0.35);
    assert!(
        interval < 0.8,
        "the cliff interval is a flat tint like the throttled band: {interval}"
    );
}

fn m_x(spec: &ChartSpec) -> f64 {
    spec.markers[0].x
}

// The sweep charts.

fn sweep_point(pattern: &str, bs: u64, mix: u32, qd: u32, jobs: u32, iops: f64) -> SweepPoint {
    SweepPoint {
        qd,
        jobs,
        bs,
        rwmix_read: mix,
        iops,
        bytes_per_sec: iops * bs as f64,
        lat_p50_us: Some(1e6 * (qd * jobs) as f64 / iops),
        lat_p99_us: Some(1.5e6 * (qd * jobs) as f64 / iops),
        cpu_pct: None,
        crossed_cliff: false,
        pattern: pattern.into(),
        label: None,
        model_bytes_per_sec: None,
    }
}

/// The charts of a sweep of `points`, as `sweep` writes them.
fn sweep_specs(points: Vec<SweepPoint>, preset: Option<&'static str>) -> Vec<ChartSpec> {
    let sweep = Sweep {
        saturation: saturation(&points),
        saturations: saturations(&points),
        points,
        unfinished_point: None,
    };
    let sum = SweepSummary {
        slccache_version: "test",
        origin: None,
        config: SweepConfig {
            command: "sweep",
            target: "emu:970evo-500g",
            simulate: true,
            engine: None,
            point_duration_s: 10.0,
            max_bytes_per_point: Some(1 << 30),
            preset,
            seed: 1,
            model: None,
        },
        sweep: &sweep,
        truth: None,
        model_truth: None,
        notes: &[],
        interrupted: false,
    };
    slccache::report::charts::sweep::charts(&sum, "Test drive", &ReportOptions::default())
}

/// The CrystalDiskMark table: one point per workload and job count, reads and writes.
fn cdm_points() -> Vec<SweepPoint> {
    vec![
        sweep_point("seqread", 1 << 20, 100, 32, 1, 3_600.0),
        sweep_point("randread", 4096, 100, 8, 8, 300_000.0),
        sweep_point("randread", 4096, 100, 1, 1, 12_000.0),
        sweep_point("seqwrite", 1 << 20, 0, 32, 1, 2_300.0),
        sweep_point("randwrite", 4096, 0, 8, 8, 600_000.0),
        sweep_point("randwrite", 4096, 0, 1, 1, 37_000.0),
    ]
}

pub fn every_sweep_point_is_marked_so_one_point_lines_show() {
    let specs = sweep_specs(cdm_points(), Some("cdm"));
    let iops = specs
        .iter()
        .find(|s| s.kind == ChartKind::SweepIops)
        .expect("an IOPS chart");
    // Six lines of one point each: before, nothing was drawn. Now a mark per point, a closed
    // outline around it.
    let marks: Vec<_> = iops
        .series
        .iter()
        .filter(|s| !s.in_legend && s.points.len() == 5)
        .collect();
    assert_eq!(marks.len(), 6, "{:?}", iops.series);
    for p in cdm_points() {
        let at = (p.qd as f64, p.iops / 1e3);
        assert!(
            marks.iter().any(|m| {
                let xs = m.points.iter().map(|q| q.0);
                let ys = m.points.iter().map(|q| q.1);
                xs.clone().fold(f64::MAX, f64::min) < at.0
                    && xs.fold(f64::MIN, f64::max) > at.0
                    && ys.clone().fold(f64::MAX, f64::min) < at.1
                    && ys.fold(f64::MIN, f64::max) > at.1
            }),
            "no mark around {at:?}"
        );
    }
}

/// The lines of `spec`'s markers, none of which marks a gradual drop.
fn marker_lines_without_a_gradual_drop(spec: &ChartSpec) -> Vec<&String> {
    let lines: Vec<&String> = spec.markers.iter().flat_map(|m| &m.lines).collect();
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("gradual") || l.contains("fell over time")),
        "{lines:?}"
    );
    lines
}

/// A run that stalls to its end has no gradual drop on its charts: the analysis names the fall
/// to nothing a stall, and the time chart boxed "gradual drop: 2000 MB/s -> 0.00 MB/s (-100%)
/// / no single cliff: the rate fell over time", with a legend entry, beside it.
pub fn a_stall_to_the_end_is_no_gradual_drop_on_the_chart() {
    let pts: Vec<(f64, f64, f64)> = (1..=60)
        .map(|i| (i as f64, 1.0, if i <= 20 { 2000e6 } else { 0.0 }))
        .collect();
    let t = Timeline::from_rates(&pts, meta("stall", "Stalling drive", 1 << 40, 131072));
    let a = slccache::detect::analyze(&t);
    assert!(a.phases.iter().any(|p| p.stall), "{:#?}", a.phases);
    for spec in [
        charts::throughput_time(&t, &a, &ReportOptions::default()),
        charts::throughput_data(&t, &a, &ReportOptions::default()),
    ] {
        marker_lines_without_a_gradual_drop(&spec);
        assert!(
            !spec.legend.iter().any(|e| e.name.contains("gradual")),
            "{:?}",
            spec.legend
        );
    }
}

/// A sharp drop near the end of a run (2000 MB/s for 10 s, then 500 MB/s
/// for 2 s) was marked "gradual drop ... the rate fell over time" on the chart while the
/// terminal said the run was too short to tell. The chart now says what the terminal says.
pub fn a_sharp_drop_at_the_end_is_not_a_gradual_drop_on_the_chart() {
    let pts: Vec<(f64, f64, f64)> = (1..=120)
        .map(|i| {
            let t = i as f64 * 0.1;
            let r = if t <= 10.0 { 2000e6 } else { 500e6 };
            (t, 0.1, r * (1.0 + 0.01 * ((i * 7) % 5) as f64))
        })
        .collect();
    let t = Timeline::from_rates(&pts, meta("short", "Short drive", 1 << 40, 131072));
    let a = slccache::detect::analyze(&t);
    assert!(a.cliffs.is_empty(), "{:#?}", a.cliffs);
    assert!(
        a.warnings
            .iter()
            .any(|w| w.text.contains("too short to tell")),
        "{:?}",
        a.warnings
    );
    for spec in [
        charts::throughput_time(&t, &a, &ReportOptions::default()),
        charts::throughput_data(&t, &a, &ReportOptions::default()),
    ] {
        let lines = marker_lines_without_a_gradual_drop(&spec);
        assert!(
            lines.iter().any(|l| l.contains("too short to confirm")),
            "{lines:?}"
        );
        assert!(
            !spec.subtitle.starts_with("No cliff seen"),
            "{}",
            spec.subtitle
        );
    }
}

pub fn sweep_charts_have_a_subtitle_a_workload_footer_and_microseconds() {
    let specs = sweep_specs(cdm_points(), Some("cdm"));
    assert!(specs.len() >= 2);
    for s in &specs {
        assert!(!s.subtitle.is_empty(), "{:?} has no subtitle", s.kind);
        let foot = s.footer.join(" ");
        assert!(foot.contains("Workload: CrystalDiskMark"), "{foot}");
        assert!(foot.contains("1.00 GiB"), "{foot}");
        for t in s.texts() {
            assert!(!t.contains("(us"), "{t}");
        }
    }
    let lat = specs
        .iter()
        .find(|s| s.kind == ChartKind::SweepLatency)
        .unwrap();
    assert_eq!(lat.y.label, "latency (µs, log scale)");
    // No saturation is claimed on the table: each workload has one point per job count.
    let iops = specs
        .iter()
        .find(|s| s.kind == ChartKind::SweepIops)
        .unwrap();
    assert!(
        iops.subtitle.starts_with("no saturation"),
        "{}",
        iops.subtitle
    );
}

pub fn the_rwmix_chart_joins_only_measured_mixes() {
    // Pure reads and pure writes of the table are no mix: no chart whose lines would cross
    // every read share from 0% to 100%.
    let specs = sweep_specs(cdm_points(), Some("cdm"));
    assert!(specs.iter().all(|s| s.kind != ChartKind::SweepRwmix));
    // A sweep of mixes: the chart, with a mark at every measured share.
    let pts: Vec<SweepPoint> = [100u32, 70, 30, 0]
        .iter()
        .map(|&m| sweep_point("randrw", 4096, m, 32, 1, 200_000.0 + 1000.0 * m as f64))
        .collect();
    let specs = sweep_specs(pts, None);
    let mix = specs
        .iter()
        .find(|s| s.kind == ChartKind::SweepRwmix)
        .expect("an rwmix chart");
    let lines: Vec<_> = mix.series.iter().filter(|s| s.in_legend).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0].points.iter().map(|p| p.0).collect::<Vec<_>>(),
        [0.0, 30.0, 70.0, 100.0]
    );
    assert_eq!(mix.series.iter().filter(|s| !s.in_legend).count(), 4);
    assert!(
        mix.subtitle.contains("0%, 30%, 70%, 100%"),
        "{}",
        mix.subtitle
    );
}

pub fn the_latency_chart_keeps_reads_and_writes_apart() {
    // Before, the lines were grouped by job count only: the 1-job reads and writes of the
    // table were one line.
    let specs = sweep_specs(cdm_points(), Some("cdm"));
    let lat = specs
        .iter()
        .find(|s| s.kind == ChartKind::SweepLatency)
        .unwrap();
    for s in lat.series.iter().filter(|s| !s.name.is_empty()) {
        assert_eq!(s.points.len(), 1, "{}: {:?}", s.name, s.points);
    }
}

/// A cliff inside the first sample (1090 MB/s over the first 1 s, then
/// 300 MB/s) gave a card saying "No cliff in 786 MB written" and "steady 497 MB/s", a rate
/// the drive never ran at, while its own sparkline showed the cliff. The card, the subtitle
/// and report.md now say that a drop lies inside the first sample, with the rates on either
/// side and the cache it bounds.
pub fn a_drop_inside_the_first_sample_is_neither_steady_nor_no_cliff() {
    let pts: Vec<(f64, f64, f64)> = (1..=4)
        .map(|i| (i as f64, 1.0, if i == 1 { 1090e6 } else { 300e6 }))
        .collect();
    let t = Timeline::from_rates(&pts, meta("emu", "Emulated drive", 250_000_000_000, 131072));
    let a = slccache::detect::analyze(&t);
    assert!(a.cliffs.is_empty());
    let u = slccache::units::UnitSystem::Decimal;
    let (_, cache, first, after) = slccache::report::pages::card::card_texts(&t, &a, u);
    for text in [&cache, &first, &after] {
        assert!(
            !text.contains("steady") && !text.contains("No cliff"),
            "{text}"
        );
    }
    assert!(cache.contains("first 1.00 s sample"), "{cache}");
    assert!(first.contains("≥ 1090 MB/s"), "{first}");
    assert_eq!(after, "after  300 MB/s (unconfirmed)");
    let note = slccache::report::pages::card::card_note(&a, u).unwrap();
    assert!(note.contains("790 MB to 1.09 GB"), "{note}");
    let spec = charts::throughput_data(&t, &a, &ReportOptions::default());
    assert!(
        spec.subtitle
            .starts_with("Drop inside the first 1.00 s sample, not confirmed: a cache of 790 MB"),
        "{}",
        spec.subtitle
    );
    let run = CompareRun {
        name: "emu",
        timeline: &t,
        analysis: &a,
    };
    let md = slccache::report::pages::markdown::report_md(&run, &[], u);
    assert!(!md.contains("steady"), "{md}");
    assert!(md.contains("no confirmed cliff"), "{md}");
}

/// report.md gave a run kept as one phase over a drop inside its first sample as that
/// phase's mean alone ("mean, drop not confirmed: 1122 MB/s", the first sample blended in),
/// where the terminal, the card and the JSON give the level after the drop (987 MB/s). Then
/// it gave the mean with "both levels blended" beside it, still a rate no sample held. Its
/// phase row now gives the two levels, and no mean.
pub fn the_phase_row_over_a_drop_inside_the_first_sample_gives_the_level_after_it() {
    let pts: Vec<(f64, f64, f64)> = (1..=8)
        .map(|i| (i as f64, 1.0, if i == 1 { 1090e6 } else { 300e6 }))
        .collect();
    let t = Timeline::from_rates(&pts, meta("emu", "Emulated drive", 250_000_000_000, 131072));
    let a = slccache::detect::analyze(&t);
    assert!(a.cliffs.is_empty() && a.unconfirmed_drop.is_some(), "{a:?}");
    let u = slccache::units::UnitSystem::Decimal;
    let run = CompareRun {
        name: "emu",
        timeline: &t,
        analysis: &a,
    };
    let md = slccache::report::pages::markdown::report_md(&run, &[], u);
    let row = md
        .lines()
        .find(|l| l.contains("Phase 1"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        row.contains(
            "drop not confirmed: at least 1090 MB/s in the first 1.00 s sample, then 300 MB/s \
             (0.0 s to 8.0 s)"
        ),
        "{row}"
    );
    // The phase's mean (1.09 GB and 2.1 GB over 8 s) is no level of it.
    let mean = slccache::units::format_rate(a.phases[0].mean_bytes_per_sec, u);
    assert!(!row.contains(&mean) && !row.contains("blended"), "{row}");
    // The level after the drop is the one the card gives.
    let (_, _, _, after) = slccache::report::pages::card::card_texts(&t, &a, u);
    assert_eq!(after, "after  300 MB/s (unconfirmed)");
}

/// report.md gave a run kept as one phase over a drop in its last sample as the phase's mean:
/// "drop not confirmed: 1968 MB/s" of 60 samples at 2000 MB/s and a last one at 50 MB/s, a
/// rate no sample held, where the terminal says "2000 MB/s -> 50.0 MB/s for the last 1.0 s".
/// Its row now gives the two levels as the headline does.
pub fn the_phase_row_over_a_drop_in_the_last_sample_gives_both_levels() {
    let pts: Vec<(f64, f64, f64)> = (1..=61)
        .map(|i| (i as f64, 1.0, if i == 61 { 50e6 } else { 2000e6 }))
        .collect();
    let t = Timeline::from_rates(&pts, meta("emu", "Emulated drive", 250_000_000_000, 131072));
    let a = slccache::detect::analyze(&t);
    assert!(a.cliffs.is_empty() && a.unconfirmed_drop.is_some(), "{a:?}");
    let u = slccache::units::UnitSystem::Decimal;
    let run = CompareRun {
        name: "emu",
        timeline: &t,
        analysis: &a,
    };
    let md = slccache::report::pages::markdown::report_md(&run, &[], u);
    let row = md
        .lines()
        .find(|l| l.contains("Phase 1"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        row.contains("drop not confirmed: 2000 MB/s, then 50.0 MB/s for the last 1.0 s"),
        "{row}"
    );
    let mean = slccache::units::format_rate(a.phases[0].mean_bytes_per_sec, u);
    assert!(!row.contains(&mean), "{row}");
    // The chart's band says it as the row does (it gave the mean after the row had the two).
    let labels = slccache::detect::findings::phase_labels(&a, u);
    assert!(
        labels[0]
            .0
            .contains("2000 MB/s, then 50.0 MB/s for the last 1.0 s")
            && !labels[0].0.contains(&mean),
        "{labels:?}"
    );
}

/// A drop inside a long first sample (240 s at 1976 MB/s, then 129 MB/s, as fx700 at
/// `--interval 4m`): the charts' subtitle had one form, longer than a line, cut to "...a
/// faster first tier also ran…"; and the band of the one phase over the drop was labelled
/// "mean, drop not confirmed: 590 MB/s" on a chart whose lines hold 1976 and 129 MB/s, and
/// then that mean "(both levels blended; ...)". The subtitle now takes a shorter form that
/// keeps the bounds and the hedge, and the band's label gives the two levels, no mean.
pub fn a_long_first_sample_drop_keeps_its_hedge_on_the_charts_and_its_blend_said() {
    let pts: Vec<(f64, f64, f64)> = (1..=4)
        .map(|i| (i as f64 * 240.0, 240.0, if i == 1 { 1976e6 } else { 129e6 }))
        .collect();
    let t = Timeline::from_rates(
        &pts,
        meta("fx", "HP FX700 2TB (QLC)", 2_000_000_000_000, 4096),
    );
    let a = slccache::detect::analyze(&t);
    assert!(a.cliffs.is_empty() && a.unconfirmed_drop.is_some(), "{a:?}");
    for spec in [
        charts::throughput_time(&t, &a, &ReportOptions::default()),
        charts::throughput_data(&t, &a, &ReportOptions::default()),
    ] {
        subtitle_and_footer_fit(&spec);
        assert!(
            spec.subtitle.contains("not confirmed") && spec.subtitle.contains("less"),
            "{}",
            spec.subtitle
        );
        let band = &spec.bands[0];
        assert_eq!(
            band.label,
            "drop not confirmed: at least 1976 MB/s in the first 240 s sample, then 129 MB/s"
        );
        assert_eq!(band.short_label, "1976 MB/s -> 129 MB/s");
        assert!(!band.label.contains("590"), "{}", band.label);
    }
}

/// The card quoted the first post-cache level ("after 874 MB/s" on the BIWIN fresh trace,
/// whose post-cache run is mostly at 1650-1830 MB/s), where the terminal warns it is
/// unstable. The stretch after the cliff fails the steady-state test, and the card, the
/// terminal line and report.md all give the same range of its rounds, not one rate.
pub fn the_card_quotes_an_unstable_post_cache_level_as_a_range() {
    use slccache::units::{format_rate, UnitSystem};
    let f = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log");
    let t = slccache::timeline::import::load(&f).unwrap();
    let a = slccache::detect::analyze(&t);
    let u = UnitSystem::Decimal;
    let ss = a
        .after_cache
        .as_ref()
        .unwrap()
        .steady_state
        .as_ref()
        .unwrap();
    assert!(!ss.steady, "{ss:?}");
    let (lo, hi) = ss.range();
    let (_, _, _, after) = slccache::report::pages::card::card_texts(&t, &a, u);
    assert_eq!(
        after,
        format!(
            "after  {} to {} (not steady)",
            slccache::report::charts::rate_number(lo, u),
            format_rate(hi, u)
        )
    );
    let range = format!(
        "not steady: {} to {}",
        format_rate(lo, u),
        format_rate(hi, u)
    );
    let line = slccache::report::console::terminal::result_clauses(&a, u);
    assert!(line.contains(&range), "{line}");
    let run = CompareRun {
        name: "biwin",
        timeline: &t,
        analysis: &a,
    };
    let md = slccache::report::pages::markdown::report_md(&run, &[], u);
    assert!(md.contains(&range), "{md}");
}

/// A comparison of runs whose caches round alike said "SLC cache from
/// 13.0 GB to 13.0 GB"; it now gives the one figure.
pub fn a_comparison_of_equal_caches_gives_one_figure() {
    let base = three_drives();
    let runs: Vec<(String, Timeline, slccache::detect::Analysis)> = (0..6)
        .map(|i| {
            let (t, a) = base[0].clone();
            (
                format!("The same drive measured again, run number {i}"),
                t,
                a,
            )
        })
        .collect();
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|(name, t, a)| CompareRun {
            name,
            timeline: t,
            analysis: a,
        })
        .collect();
    let spec = charts::compare_time(&cr, &ReportOptions::default());
    assert!(spec.subtitle.contains("in every run"), "{}", spec.subtitle);
    assert!(!spec.subtitle.contains(" from "), "{}", spec.subtitle);
}

/// A short cache phase (2 s of a 190 s run) got no level label: its band was
/// too narrow for it. The label now sits just right of the band, beside its level.
pub fn a_short_cache_phase_gets_its_level_label() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("short");
    let o = slccache()
        .args([
            "simulate",
            "960evo-250g,cache=3GB",
            "--pattern",
            "seqwrite",
            "--max-bytes",
            "60GB",
            "--no-early-stop",
            "--no-record",
            "-q",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for chart in ["throughput-time.svg", "throughput-data.svg"] {
        let svg = std::fs::read_to_string(out.join(chart)).unwrap();
        // Inside its band (its level alone where the name does not fit), or beside it with a
        // leader line: never with an arrow in its text.
        assert!(
            svg.contains("aria-label=\"SLC cache: 1") || svg.contains("aria-label=\"1"),
            "{chart}: no level label for the cache phase"
        );
        assert!(!svg.contains("aria-label=\"← "), "{chart}");
        assert!(svg.contains("aria-label=\"after the cache: "), "{chart}");
    }
}

/// The card cut long drive names and "(simulated)" with them: "Samsung PM983 960GB
/// (enterprise, no SLC cache) (si…". The marker that says the drive was not a real one is
/// never cut; the name before it is.
pub fn the_card_never_cuts_the_simulated_marker() {
    use slccache::report::draw::text::Style;
    use slccache::report::pages::card::{fit_drive_name, CARD_SIZE};
    let max_w = (CARD_SIZE.0 as i32 - 2 * 56) as f64;
    let st = Style::new(46.0).bold();
    for marker in ["(simulated)", "(emulated)"] {
        let long = format!("Samsung PM983 960GB (enterprise, no SLC cache, long name) {marker}");
        let (t, small) = fit_drive_name(&long, st, max_w);
        assert!(t.ends_with(&format!("… {marker}")), "{t}");
        assert!(small.width(&t) <= max_w, "{t}");
        // A name that fits is left whole.
        let short = format!("Samsung 960 EVO {marker}");
        assert_eq!(fit_drive_name(&short, st, max_w).0, short);
    }
}

/// `simulate "970evo-500g,cache=1GB,capacity=2TB"` drew its card's title as "Samsung SSD…
/// (simulated), cache=1GB,capacity=2TB": the model's number and capacity cut, the options
/// kept. What names the drive stays ("970 EVO 500GB"), and the options give way first.
pub fn the_card_keeps_the_model_of_a_drive_made_with_long_options() {
    use slccache::report::draw::text::Style;
    use slccache::report::pages::card::{fit_drive_name, CARD_SIZE};
    let st = Style::new(46.0).bold();
    let max_w = (CARD_SIZE.0 as i32 - 2 * 56) as f64;
    let title = "Samsung SSD 970 EVO 500GB (simulated), cache=1GB,capacity=2TB";
    let (t, small) = fit_drive_name(title, st, max_w);
    assert!(small.width(&t) <= max_w, "{t}");
    assert!(t.contains("970 EVO 500GB (simulated), "), "{t}");
}

/// A drive made with options: `simulate pm983-960g,cache=5GB,in=2000MB/s` drew its card's
/// title as "Samsung PM983 960GB (enterprise, no SLC cache)…", the marker and the options
/// cut with the words before them. The model's remarks give way first, then the options, then
/// the rest of the model's name; the marker is whole in every width.
pub fn the_card_keeps_the_marker_of_a_drive_made_with_options() {
    use slccache::report::draw::text::Style;
    use slccache::report::pages::card::{fit_drive_name, CARD_SIZE};
    use slccache::timeline::RunMeta;
    let st = Style::new(46.0).bold();
    for (kind, marker) in [("sim", "(simulated)"), ("emu", "(emulated)")] {
        let mut meta = RunMeta::default();
        meta.device.path = format!("{kind}:pm983-960g,cache=5GB,in=2000MB/s");
        meta.device.model = Some(format!(
            "Samsung PM983 960GB (enterprise, no SLC cache) {marker}"
        ));
        let title = charts::run_title(&meta);
        assert!(title.ends_with(", cache=5GB,in=2000MB/s"), "{title}");
        // A little wider than the card: the model's remarks left out, its number and
        // capacity kept, then the last option gives way.
        let (t, small) = fit_drive_name(&title, st, 1200.0);
        assert!(small.width(&t) <= 1200.0, "{t}");
        assert!(
            t.starts_with("Samsung PM983 960GB") && t.contains(&format!("… {marker}, cache=5GB,")),
            "{t}"
        );
        // The card's width: the model's name down to two words does not make room for the
        // options, so the last of them gives way; the marker stays whole.
        let max_w = (CARD_SIZE.0 as i32 - 2 * 56) as f64;
        let (t, small) = fit_drive_name(&title, st, max_w);
        assert!(small.width(&t) <= max_w, "{t}");
        assert!(
            t.starts_with("Samsung PM983") && t.contains(&format!("… {marker}, cache=5GB,")),
            "{t}"
        );
        // Narrower: the options give way before the marker, which stays whole.
        let mut last = t;
        for max_w in [800.0, 600.0, 450.0, 300.0] {
            let (t, small) = fit_drive_name(&title, st, max_w);
            assert!(small.width(&t) <= max_w, "{max_w}: {t}");
            assert!(
                t.contains(&format!(" {marker}")) || t.starts_with(marker),
                "{t}"
            );
            assert!(
                t.chars().count() <= last.chars().count(),
                "{t} after {last}"
            );
            last = t;
        }
        assert!(
            last.contains(marker) && !last.contains("2000MB/s"),
            "{last}"
        );
    }
}

/// `simulate fx700-2tb --cliffs 2`: the third phase (129 MB/s, a sliver at the right edge of
/// the data chart) and the first (a sliver at the left of the time chart) once had no label.
/// Every phase band now carries one: inside the band where it fits, else beside it with a
/// leader line into it, never as a bare label on another phase's tint.
pub fn every_phase_band_is_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f");
    let o = slccache()
        .args(["--no-record", "simulate", "fx700-2tb", "--cliffs", "2"])
        .args(["--seed", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for chart in ["throughput-time.svg", "throughput-data.svg"] {
        let svg = std::fs::read_to_string(out.join(chart)).unwrap();
        let texts = svg_texts(&svg).unwrap();
        // Each band's label ends in its level ("SLC cache: 4979 MB/s", or "4979 MB/s"): inside
        // its band, or beside a band too narrow for it with a leader line into it (an arrow
        // in the text, "← SLC cache: ...", sat on another phase's tint with nothing to say
        // which phase it named).
        let band_labels: Vec<String> = texts
            .iter()
            .filter(|t| t.ends_with(" MB/s") && !t.contains("->") && !t.contains("&gt;"))
            .cloned()
            .collect();
        assert_eq!(band_labels.len(), 3, "{chart}: {band_labels:?}");
        assert!(
            !texts
                .iter()
                .any(|t| t.starts_with("← ") || t.ends_with(" →")),
            "{chart}: {texts:?}"
        );
        // The folding phase: wide on the time chart, a sliver at the right edge of the data
        // chart, where it had no label.
        assert!(
            band_labels
                .iter()
                .any(|t| t.starts_with("after the cache (folding)")),
            "{chart}: {band_labels:?}"
        );
        // The legend names each tint as its band is named: the tier-2 tint was "after the
        // cache" and the folding tint "folding", while the bands read "tier 2" (now "first
        // post-cache level") and "after the cache (folding)".
        for name in [
            "SLC cache",
            "first post-cache level",
            "after the cache (folding)",
        ] {
            assert!(texts.iter().any(|t| t == name), "{chart}: {texts:?}");
        }
        for name in ["after the cache", "folding"] {
            assert!(!texts.iter().any(|t| t == name), "{chart}: {texts:?}");
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    let t = slccache::commands::compare::load_run(&out).unwrap();
    for size in [(1600, 900), (800, 450), (420, 300)] {
        let o = ReportOptions {
            png_size: size,
            ..ReportOptions::default()
        };
        let data = charts::throughput_data(&t, &a, &o);
        let beside = every_drawn_band_has_its_label(&data, &format!("{size:?} data"));
        assert!(
            beside
                .iter()
                .any(|p| p.of == slccache::report::draw::LabelOf::Band(2)),
            "{size:?}: the folding phase is not labelled in or beside its band"
        );
        every_drawn_band_has_its_label(
            &charts::throughput_time(&t, &a, &o),
            &format!("{size:?} time"),
        );
    }
}

/// A comparison of a run whose first drop lay inside its first sample (its findings' cache
/// `Unconfirmed`) with a plain run marked the drop nowhere: the legend gave the run's bare
/// name and the subtitle counted it "without a cliff", as if the run were plain. Its legend
/// entry and a label on the plot now give the cache its findings give ("790 MB to 1.09 GB
/// (unconfirmed)", as `runs` does), over the first sample, shaded; with many runs too.
pub fn a_comparison_marks_a_runs_drop_inside_the_first_sample() {
    use slccache::detect::findings::Cache;
    use slccache::detect::Findings;
    let pts: Vec<(f64, f64, f64)> = (1..=8)
        .map(|i| (i as f64, 1.0, if i == 1 { 1090e6 } else { 300e6 }))
        .collect();
    let t = Timeline::from_rates(&pts, meta("emu", "Emulated drive", 250_000_000_000, 131072));
    let a = slccache::detect::analyze(&t);
    let f = Findings::of(&a);
    assert!(matches!(f.cache, Cache::Unconfirmed(_)), "{:?}", f.cache);
    let u = slccache::units::UnitSystem::Decimal;
    let cell = f.cache_cell(u);
    assert!(cell.contains("(unconfirmed)"), "{cell}");
    let base = three_drives();
    for n_plain in [1, 5] {
        let mut cr = vec![CompareRun {
            name: "Unconfirmed drive",
            timeline: &t,
            analysis: &a,
        }];
        let names: Vec<String> = (0..n_plain).map(|i| format!("Plain drive {i}")).collect();
        for name in &names {
            cr.push(CompareRun {
                name,
                timeline: &base[0].0,
                analysis: &base[0].1,
            });
        }
        for spec in [
            charts::compare_time(&cr, &ReportOptions::default()),
            charts::compare_data(&cr, &ReportOptions::default()),
        ] {
            let entry = spec
                .legend
                .iter()
                .find(|e| e.group == Some(0) && !e.swatch)
                .expect("the run's legend entry");
            assert!(entry.name.contains(&cell), "{}", entry.name);
            let marker = spec
                .markers
                .iter()
                .find(|m| m.group == Some(0))
                .unwrap_or_else(|| panic!("no marker of the run: {:?}", spec.markers));
            assert!(
                marker.lines[0].contains(&cell),
                "{:?} {:?}",
                spec.kind,
                marker.lines
            );
            // At the end of the first sample, unshaded: a shade over that long a sample, in
            // the run's own colour, hid the run's line.
            assert!(marker.interval.is_none() && marker.x > 0.0, "{marker:?}");
            // Counted apart from the runs without a cliff, where the subtitle counts.
            assert!(
                !spec.subtitle.contains("1 without a cliff"),
                "{}",
                spec.subtitle
            );
        }
    }
}

/// A run of a few long samples (fx700 at `--interval 4m`: 4 samples) has no smoothed line, so
/// a comparison drew it only as the faint per-interval shadow (alpha 0.3), next to invisible
/// beside the other runs' lines. Its samples are now drawn in its colour at full strength.
pub fn a_comparison_draws_a_run_too_short_to_smooth_at_full_strength() {
    let pts: Vec<(f64, f64, f64)> = (1..=4)
        .map(|i| (i as f64 * 240.0, 240.0, if i == 1 { 1976e6 } else { 129e6 }))
        .collect();
    let t = Timeline::from_rates(
        &pts,
        meta("fx", "HP FX700 2TB (QLC)", 2_000_000_000_000, 4096),
    );
    let a = slccache::detect::analyze(&t);
    let base = three_drives();
    let cr = vec![
        CompareRun {
            name: "Few samples",
            timeline: &t,
            analysis: &a,
        },
        CompareRun {
            name: "Many samples",
            timeline: &base[0].0,
            analysis: &base[0].1,
        },
    ];
    for spec in [
        charts::compare_time(&cr, &ReportOptions::default()),
        charts::compare_data(&cr, &ReportOptions::default()),
    ] {
        let strongest = |g: usize| {
            spec.series
                .iter()
                .filter(|s| s.group == Some(g) && !s.points.is_empty())
                .map(|s| s.style.alpha)
                .fold(0.0f64, f64::max)
        };
        assert!(strongest(0) >= 0.99, "{:?}: {}", spec.kind, strongest(0));
        assert!(strongest(1) >= 0.99, "{:?}: {}", spec.kind, strongest(1));
    }
}

/// The latency chart's cliff label once drew its box about twice as wide as its text. The
/// box as drawn (the PNG's pixels inside the box the drawing places) holds its text with no
/// more than its padding either side: the text's dark pixels reach to within a little over
/// the padding of the box's right edge.
pub fn the_latency_charts_cliff_label_box_fits_its_text() {
    use slccache::report::charts::font_px;
    use slccache::report::draw::{placed_labels, LabelOf};
    let (t, a) = clean_cliff();
    assert!(!a.cliffs.is_empty());
    let spec = charts::latency(&t, &a, &ReportOptions::default()).unwrap();
    let boxes: Vec<(i32, i32, i32, i32)> = placed_labels(&spec)
        .into_iter()
        .filter(|p| matches!(p.of, LabelOf::Marker(_)))
        .map(|p| p.rect)
        .collect();
    assert!(!boxes.is_empty(), "no cliff label: {:?}", spec.markers);
    let (w, _, px) = png_pixels(&draw::render_png(&spec).unwrap());
    let l = Layout::new(spec.size, spec.y2.is_some(), spec.footer.len());
    let f = l.font(font_px::LABEL);
    // Inside the box's border: its stroke is at most 1.5 px a scale unit.
    let inset = (2.0 * l.scale).ceil() as i32 + 1;
    for (x0, y0, x1, y1) in boxes {
        let dark = |x: i32, y: i32| {
            let i = ((y as u32 * w + x as u32) * 3) as usize;
            0.3 * px[i] as f64 + 0.59 * px[i + 1] as f64 + 0.11 * (px[i + 2] as f64) < 110.0
        };
        let cols: Vec<i32> = (x0 + inset..x1 - inset)
            .filter(|&x| (y0 + inset..y1 - inset).any(|y| dark(x, y)))
            .collect();
        let (first, last) = (cols[0], cols[cols.len() - 1]);
        let (box_w, text_w) = ((x1 - x0) as f64, (last - first + 1) as f64);
        // The padding is 0.4 of the font size either side; a glyph's own side bearing adds a
        // pixel or two.
        let slack = 0.4 * f + 0.3 * f;
        assert!(
            (x1 - last) as f64 <= slack && (first - x0) as f64 <= slack,
            "box {box_w} px wide for {text_w} px of text (text from {first} to {last} in \
             {x0}..{x1}, font {f:.1} px)"
        );
    }
}

/// A long after-cache text on the card goes whole on a line of its own, not cut beside the
/// in-cache one: "after  379 MB/s (too short to judge; a slower tier may follow)" was drawn
/// "after  379…", without its unit or what it may not be.
pub fn the_card_never_cuts_the_after_cache_text() {
    use slccache::report::draw::text::Style;
    use slccache::report::pages::card::after_drawn;
    let st = Style::new(34.0).bold();
    let long = "after  379 MB/s (too short to judge; a slower tier may follow)";
    let (drawn, _, below) = after_drawn("in cache  479 MB/s", long, st);
    assert_eq!(drawn, long);
    assert!(below);
    // Too long whole even on its own line, it takes its qualifiers' short form rather than
    // lose its unit: "after  1004… (too short to judge; heat left out; a slower tier may
    // follow)".
    let longer = "after  1004 MB/s (too short to judge; heat left out; a slower tier may follow)";
    let (drawn, _, below) = after_drawn("in cache  2003 MB/s", longer, st);
    assert_eq!(
        drawn,
        "after  1004 MB/s (too short; heat left out; a slower tier may follow)"
    );
    assert!(below);
    // A short one stays beside it.
    let (drawn, _, below) = after_drawn("in cache  2000 MB/s", "after  600 MB/s", st);
    assert_eq!(drawn, "after  600 MB/s");
    assert!(!below);
}

/// A comparison of many runs labels each cliff as where it is, not as a size, and says what
/// the run's findings say of it: a run whose writes had wrapped round a 5 GB span was labelled
/// "…(sim): 22.0 GB" as if that were its cache, and the subtitle counted it nowhere.
pub fn many_runs_label_a_cliff_past_the_span_as_no_size() {
    let mut runs = many_runs(4);
    let (_, mut t, _) = runs[0].clone();
    t.meta.workload.span_bytes = Some(t.bytes_total() / 20);
    let a = slccache::detect::analyze(&t);
    assert!(a.wrapped_span_bytes.is_some(), "{:?}", a.warnings);
    runs.push(("Wrapped drive".to_string(), t, a));
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|(name, t, a)| CompareRun {
            name,
            timeline: t,
            analysis: a,
        })
        .collect();
    let spec = charts::compare_data(&cr, &ReportOptions::default());
    let lines: Vec<&String> = spec.markers.iter().flat_map(|m| &m.lines).collect();
    let wrapped: Vec<&&String> = lines.iter().filter(|l| l.starts_with("Wrapped")).collect();
    assert!(
        wrapped.len() == 1
            && wrapped[0].contains("cliff after")
            && wrapped[0].ends_with("(wrapped; no size)"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| !l.starts_with("Wrapped"))
            .all(|l| l.contains(": cliff after ")),
        "{lines:?}"
    );
    assert!(
        spec.subtitle
            .contains("1 with a cliff past its span (no size)")
            || spec.subtitle.contains("1 wrapped (no size)"),
        "{}",
        spec.subtitle
    );
}

/// Regression: `compare` of a few runs labelled the cliff of a run whose first sample could
/// hold a faster first tier "cliff at 7.0 s, 25.0 GB written", bare, where compare.md and
/// `runs` say the cliff may be a later tier's.
pub fn a_compare_label_keeps_a_size_s_first_sample_hedge() {
    let mut pts = vec![(1.0, 1.0, 5.0e9)];
    pts.extend((2..=7).map(|k| (k as f64, 1.0, 3.5e9)));
    pts.extend((8..=40).map(|k| (k as f64, 1.0, 1.3e8)));
    let t = Timeline::from_rates(&pts, Default::default());
    let a = slccache::detect::analyze(&t);
    assert!(a.first_sample_hides.is_some(), "{:?}", a.warnings);
    let runs = many_runs(1);
    let mut cr: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|(name, t, a)| CompareRun {
            name,
            timeline: t,
            analysis: a,
        })
        .collect();
    cr.push(CompareRun {
        name: "Fast first",
        timeline: &t,
        analysis: &a,
    });
    let spec = charts::compare_time(&cr, &ReportOptions::default());
    let lines: Vec<&String> = spec.markers.iter().flat_map(|m| &m.lines).collect();
    let label = lines
        .iter()
        .find(|l| l.starts_with("Fast first: cliff at"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(label.ends_with("(or a later tier's)"), "{lines:?}");
}

/// A phase's label put beside its band keeps, with its leader line, to that band and the one
/// beside it: on a gradual fall cut into tiers, "tier 3: 393 MB/s" sat in the SLC cache's
/// tint with its line across the first post-cache level, two phases from the one it names.
/// (A steady fall is one stretch now, whose analysis is made here by hand as the tiers it
/// was cut into.)
pub fn a_label_beside_its_band_keeps_to_the_band_next_to_it() {
    use slccache::report::draw::{placed_labels, LabelOf};
    let pts: Vec<(f64, f64, f64)> = (1..=80)
        .map(|i| {
            let r = if i <= 20 {
                2000e6
            } else {
                (500.0 - 200.0 * (i - 21) as f64 / 59.0) * 1e6
            };
            (i as f64, 1.0, r)
        })
        .collect();
    let t = Timeline::from_rates(&pts, meta("fall", "Falling drive", 1 << 40, 131072));
    let a = report_util::analysis(
        &t,
        &[(20.0, 2000e6), (45.0, 457e6), (48.0, 393e6), (80.0, 350e6)],
        &[
            PhaseKind::Cache,
            PhaseKind::PostCache,
            PhaseKind::Folding,
            PhaseKind::Folding,
        ],
    );
    assert!(a.cliffs.len() >= 3, "{:#?}", a.cliffs);
    let mut beside = 0;
    for spec in [
        charts::throughput_data(&t, &a, &ReportOptions::default()),
        charts::throughput_time(&t, &a, &ReportOptions::default()),
    ] {
        let (left, _, right, _) = draw::plot_rect_of(&spec);
        let px = |v: f64| {
            (left as f64 + (v - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64)
                .round() as i32
        };
        for p in placed_labels(&spec) {
            let (LabelOf::Band(i), Some(l)) = (p.of, p.leader) else {
                continue;
            };
            beside += 1;
            let (c0, c1) = (p.rect.0.min(l.2), p.rect.2.max(l.2));
            for (j, b) in spec.bands.iter().enumerate() {
                let (b0, b1) = (px(b.x0), px(b.x1));
                assert!(
                    j + 1 >= i && j <= i + 1 || c1 <= b0 || c0 >= b1,
                    "{:?}: {:?} of band {i} lies over band {j} ({})",
                    spec.kind,
                    p.lines,
                    b.label
                );
            }
        }
    }
    assert!(beside > 0, "no label was put beside its band");
}

/// Runs slccache with `args` (not recorded), output into `out`, and reads back its timeline
/// and analysis.
fn run_and_load(args: &[&str], out: &std::path::Path) -> (Timeline, slccache::detect::Analysis) {
    let o = slccache()
        .arg("--no-record")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a = serde_json::from_value(summary["analysis"].clone()).unwrap();
    (slccache::commands::compare::load_run(out).unwrap(), a)
}

/// A phase too narrow for its label sat with it beside the band, on the next phase's tint
/// with a leader line into its own ("SLC cache: 5006 MB/s" right of the FX700's first cliff,
/// on the first post-cache level's tint); a 12 h chart left its 10 s cache phase with no label
/// at all; and a stall and the stretch after it shared one tint, the legend's swatch reading
/// "stall / after the cache". A narrow phase's label now runs upwards inside its band; one
/// too narrow even for that, inside a zoomed stretch, is named in the zoom mark's box; a stall
/// has a tint of its own.
pub fn a_narrow_phase_s_label_stays_in_its_band() {
    use slccache::report::draw::{placed_labels, LabelOf};
    let dir = tempfile::tempdir().unwrap();
    let o = ReportOptions::default();
    let fx = dir.path().join("fx");
    let args = ["simulate", "fx700-2tb", "--pattern", "seqwrite"];
    let (t, a) = run_and_load(
        &[&args[..], &["--cliffs", "2", "--seed", "1", "-q"]].concat(),
        &fx,
    );
    let time = charts::throughput_time(&t, &a, &o);
    let narrow = every_drawn_band_has_its_label(&time, "fx700 time");
    let cache = placed_labels(&time)
        .into_iter()
        .find(|p| p.of == LabelOf::Band(0))
        .expect("the cache phase is labelled");
    assert!(cache.leader.is_none() && !cache.upright, "{cache:?}");
    assert!(narrow.iter().all(|p| p.leader.is_none()), "{narrow:?}");

    let long = dir.path().join("12h");
    let args = [
        "simulate",
        "960evo-250g",
        "--duration",
        "12h",
        "--no-early-stop",
    ];
    let more = ["--max-bytes", "100TB", "--seed", "1", "-q"];
    let (t, a) = run_and_load(&[&args[..], &more[..]].concat(), &long);
    let time = charts::throughput_time(&t, &a, &o);
    every_drawn_band_has_its_label(&time, "12 h time");
    let placed = placed_labels(&time);
    let zoom = placed
        .iter()
        .find(|p| p.of == LabelOf::Zoom)
        .expect("a zoom mark");
    assert!(
        zoom.lines.iter().any(|l| l.starts_with("SLC cache: ")),
        "{zoom:?}"
    );
    assert!(placed.iter().all(|p| p.leader.is_none()), "{placed:?}");

    let csv = dir.path().join("stall.csv");
    let mut text = String::from("t_s,MB/s\n");
    for i in 1..=75 {
        let r = match i {
            ..=20 => 2000,
            21..=35 => 0,
            _ => 500,
        };
        text += &format!("{i},{r}\n");
    }
    std::fs::write(&csv, text).unwrap();
    let st = dir.path().join("st");
    let (_, a) = run_and_load(&["analyze", csv.to_str().unwrap(), "-q"], &st);
    assert!(a.phases.iter().any(|p| p.stall), "{:?}", a.phases);
    let texts =
        svg_texts(&std::fs::read_to_string(st.join("throughput-time.svg")).unwrap()).unwrap();
    assert!(texts.iter().any(|t| t == "stall"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "after the cache"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains(" / ")), "{texts:?}");
}

/// "cache ~39.9 GB (95% interval 39.93 GB to 39.94 GB)": the interval's ends took the
/// decimals that tell them apart and the size kept one, so it read as outside its interval;
/// the card gave "39.9 GB (39.9 GB to 39.9 GB)". The size takes the ends' decimals on the
/// terminal, report.md, the chart's subtitle and the card alike.
pub fn a_size_has_the_decimals_of_its_interval_on_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("dec.csv");
    let mut text = String::from("t_s,MB/s\n");
    for i in 1..=50 {
        let r = match i {
            ..=19 => 2000,
            20 => 1955,
            _ => 500,
        };
        text += &format!("{i},{r}\n");
    }
    std::fs::write(&csv, text).unwrap();
    let out = dir.path().join("d");
    let o = slccache()
        .args(["--no-record", "analyze"])
        .arg(&csv)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let terminal = String::from_utf8_lossy(&o.stdout).to_string();
    let want = "39.94 GB (95% interval 39.93 GB to 39.95 GB)";
    assert!(terminal.contains(&format!("cache ~{want}")), "{terminal}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(&format!("| Cache size | {want} |")), "{md}");
    let svg = std::fs::read_to_string(out.join("throughput-time.svg")).unwrap();
    let texts = svg_texts(&svg).unwrap();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with(&format!("SLC cache {want}"))),
        "{texts:?}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let a: slccache::detect::Analysis =
        serde_json::from_value(summary["analysis"].clone()).unwrap();
    let t = slccache::commands::compare::load_run(&out).unwrap();
    let (_, cache, _, _) =
        slccache::report::pages::card::card_texts(&t, &a, slccache::units::UnitSystem::Decimal);
    assert_eq!(cache, "SLC cache 39.94 GB (39.93 GB to 39.95 GB)");
}
