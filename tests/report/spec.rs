//! Chart content as data: series, markers, labels, ranges, ticks, legends and footers.

use crate::common::report_util;

use report_util::*;
use slccache::report::charts::{
    self, cliff_label, ChartKind, ChartSpec, CompareRun, LabelSide, Layout, YSide,
};
use slccache::report::ReportOptions;
use slccache::units::{format_bytes, UnitSystem};

fn opts() -> ReportOptions {
    ReportOptions::default()
}

/// The pixel rectangles of the marker label boxes, as the drawing code places them.
fn label_boxes(spec: &ChartSpec) -> Vec<(f64, f64, f64, f64)> {
    let l = Layout::new(spec.size, spec.y2.is_some(), spec.footer.len());
    let (left, top, right, _) = l.plot_rect();
    let (left, top, right) = (left as f64, top as f64, right as f64);
    let gap = l.label_gap();
    let rows = spec.markers.iter().map(|m| m.row + 1).max().unwrap_or(0);
    let mut row_h = vec![0.0f64; rows];
    for m in &spec.markers {
        row_h[m.row] = row_h[m.row].max(l.label_box_h(m.lines.len()));
    }
    spec.markers
        .iter()
        .map(|m| {
            let w = l.label_box_w(&m.lines);
            let h = l.label_box_h(m.lines.len());
            let xm = left + (m.x - spec.x.min) / (spec.x.max - spec.x.min) * (right - left);
            let x0 = match m.side {
                LabelSide::Right => xm + gap,
                LabelSide::Left => xm - gap - w,
            }
            .clamp(left, right - w);
            let y0 = top + gap + row_h[..m.row].iter().map(|h| h + gap).sum::<f64>();
            (x0, y0, x0 + w, y0 + h)
        })
        .collect()
}

/// Checks what every chart must satisfy: points inside the axis ranges, ticks inside too,
/// labels with units, labels that neither overlap each other nor cover a data point.
fn check_common(spec: &ChartSpec) {
    let axes = std::iter::once(&spec.x)
        .chain(std::iter::once(&spec.y))
        .chain(spec.y2.iter());
    for a in axes {
        assert!(a.max > a.min, "{}: empty range", a.label);
        assert!(
            a.label.contains('(') && a.label.contains(')'),
            "no unit: {}",
            a.label
        );
        assert!(a.ticks.len() >= 3, "{}: ticks {:?}", a.label, a.ticks);
        for t in &a.ticks {
            assert!(
                *t >= a.min - 1e-9 && *t <= a.max + 1e-9,
                "{}: tick {t}",
                a.label
            );
        }
    }
    let l = Layout::new(spec.size, spec.y2.is_some(), spec.footer.len());
    let (left, top, right, bottom) = l.plot_rect();
    let boxes = label_boxes(spec);
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[..i] {
            let apart = a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1;
            assert!(apart, "{:?}: labels overlap {a:?} {b:?}", spec.kind);
        }
    }
    for s in &spec.series {
        let y = match s.side {
            YSide::Left => &spec.y,
            YSide::Right => spec.y2.as_ref().expect("a right series needs a right axis"),
        };
        for p in &s.points {
            assert!(
                p.0 >= spec.x.min - 1e-9 && p.0 <= spec.x.max + 1e-9,
                "{}: x {}",
                s.name,
                p.0
            );
            assert!(
                p.1 >= y.min && p.1 <= y.max,
                "{}: y {} outside {}..{}",
                s.name,
                p.1,
                y.min,
                y.max
            );
            if s.side == YSide::Left {
                let px = left as f64
                    + (p.0 - spec.x.min) / (spec.x.max - spec.x.min) * (right - left) as f64;
                let fy = if y.log {
                    (p.1.ln() - y.min.ln()) / (y.max.ln() - y.min.ln())
                } else {
                    (p.1 - y.min) / (y.max - y.min)
                };
                let py = bottom as f64 - fy * (bottom - top) as f64;
                for b in &boxes {
                    let inside = px > b.0 && px < b.2 && py > b.1 && py < b.3;
                    assert!(
                        !inside,
                        "{:?}: label {b:?} covers {} at {p:?}",
                        spec.kind, s.name
                    );
                }
            }
        }
    }
    let cols = (spec.size.0 as f64 * 0.85) as usize;
    for s in &spec.series {
        assert!(
            s.points.len() <= 2 * cols,
            "{}: {} points",
            s.name,
            s.points.len()
        );
    }
    let footer = spec.footer.join(" ");
    assert!(
        footer.contains(&format!("slccache {}", slccache::VERSION)),
        "{footer}"
    );
}

pub fn clean_cliff_over_time() {
    let (t, a) = clean_cliff();
    let s = charts::throughput_time(&t, &a, &opts());
    check_common(&s);
    assert_eq!(s.kind, ChartKind::ThroughputTime);
    assert_eq!(s.kind.file_stem(), "throughput-time");
    assert_eq!(s.size, (1600, 900));
    assert_eq!(s.x.label, "time since start (s)");
    assert_eq!(s.y.label, "write throughput (MB/s)");
    assert_eq!(s.x.max, 60.0);
    assert_eq!(s.y.min, 0.0);
    // One cliff, at 14.0 s, labelled with the bytes written and the levels.
    assert_eq!(s.markers.len(), 1);
    let m = &s.markers[0];
    assert_eq!(m.x, 14.0);
    assert_eq!(m.interval, Some((13.6, 14.6)));
    let c = &a.cliffs[0];
    assert_eq!(
        m.lines[0],
        cliff_label(14.0, c.bytes_written, UnitSystem::Decimal)
    );
    assert!(
        m.lines[0].starts_with("cliff at 14.0 s, "),
        "{}",
        m.lines[0]
    );
    assert!(m.lines[0].ends_with(" GB written"), "{}", m.lines[0]);
    assert_eq!(m.lines[1], "1365 -> 591 MB/s");
    // The cache estimate and its interval in the subtitle.
    let e = a.cache_estimate.as_ref().unwrap();
    let fb = |b: u64| format_bytes(b as f64, UnitSystem::Decimal);
    assert!(
        s.subtitle.contains(&format!(
            "SLC cache {} (95% interval {} to {})",
            fb(e.bytes),
            fb(e.low_bytes),
            fb(e.high_bytes)
        )),
        "{}",
        s.subtitle
    );
    // Phases shaded.
    assert_eq!(s.bands.len(), 2);
    assert_eq!((s.bands[0].x0, s.bands[0].x1), (0.0, 14.0));
    assert_eq!(s.bands[0].label, "SLC cache: 1365 MB/s");
    assert_eq!(s.bands[1].label, "after the cache: 591 MB/s");
    // Per-interval rate as exact steps (120 samples, 2 points each), a smoothed line, and the
    // temperature on the right axis.
    let raw = &s.series[0];
    assert_eq!(raw.name, "per interval");
    assert_eq!(raw.points.len(), 240);
    assert_eq!(raw.points[0], (0.0, t.samples[0].bytes_per_sec / 1e6));
    assert_eq!(raw.points[1], (0.5, t.samples[0].bytes_per_sec / 1e6));
    assert!(s.series[1].name.starts_with("smoothed (median over "));
    let temp = s.series.iter().find(|x| x.side == YSide::Right).unwrap();
    assert!(temp.name.contains("°C"));
    assert_eq!(s.y2.as_ref().unwrap().label, "drive temperature (°C)");
    // The data maximum leaves room for the labels.
    let max = raw.points.iter().map(|p| p.1).fold(0.0, f64::max);
    assert!(s.y.max > max * 1.04);
    // Legend and footer.
    let legend: Vec<&str> = s
        .legend
        .iter()
        .filter(|l| !l.swatch)
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(legend.len(), 4, "{legend:?}");
    assert!(legend[3].starts_with("cliff"));
    // The phase tints have swatches.
    let swatches: Vec<&str> = s
        .legend
        .iter()
        .filter(|l| l.swatch)
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(swatches, ["SLC cache", "after the cache"]);
    let footer = s.footer.join(" ");
    for want in [
        "Samsung SSD 960 EVO 500GB",
        "500 GB",
        "firmware 3B7QCXE7",
        "randwrite",
        "4 KiB blocks",
        "QD32",
        "1 job",
        "2026-11-29",
    ] {
        assert!(footer.contains(want), "footer lacks {want:?}: {footer}");
    }
}

pub fn clean_cliff_over_data_marks_the_cache_size() {
    let (t, a) = clean_cliff();
    let s = charts::throughput_data(&t, &a, &opts());
    check_common(&s);
    assert_eq!(s.kind.file_stem(), "throughput-data");
    assert_eq!(s.x.label, "data written (GB)");
    assert!((s.x.max - t.bytes_total() as f64 / 1e9).abs() < 1e-9);
    let e = a.cache_estimate.as_ref().unwrap();
    let m = &s.markers[0];
    assert_eq!(m.x, e.bytes as f64 / 1e9);
    assert_eq!(
        m.interval,
        Some((e.low_bytes as f64 / 1e9, e.high_bytes as f64 / 1e9))
    );
    assert_eq!(m.lines[1], "1365 -> 591 MB/s");
    // No temperature axis on the data chart; bands follow the bytes.
    assert!(s.y2.is_none());
    assert!((s.bands[0].x1 - charts::bytes_at(&t, 14.0) / 1e9).abs() < 1e-9);
    // The steps' x are the bytes at each interval's ends.
    let raw = &s.series[0];
    assert_eq!(raw.points[1].0, t.samples[0].bytes_total as f64 / 1e9);
}

pub fn binary_units_everywhere() {
    let (t, a) = clean_cliff();
    let o = ReportOptions {
        units: UnitSystem::Binary,
        ..ReportOptions::default()
    };
    let s = charts::throughput_data(&t, &a, &o);
    check_common(&s);
    assert_eq!(s.y.label, "write throughput (MiB/s)");
    assert_eq!(s.x.label, "data written (GiB)");
    assert!(
        s.markers[0].lines[0].ends_with("GiB written"),
        "{}",
        s.markers[0].lines[0]
    );
    assert!(s.markers[0].lines[1].ends_with("MiB/s"));
    assert!(s.subtitle.contains("GiB"));
    assert_eq!(
        s.markers[0].x,
        a.cache_estimate.as_ref().unwrap().bytes as f64 / 1073741824.0
    );
    let raw = &s.series[0];
    assert_eq!(raw.points[0].1, t.samples[0].bytes_per_sec / 1048576.0);
}

pub fn three_phases_two_cliffs() {
    let (t, a) = three_phase();
    for s in [
        charts::throughput_time(&t, &a, &opts()),
        charts::throughput_data(&t, &a, &opts()),
    ] {
        check_common(&s);
        assert_eq!(s.markers.len(), 2);
        assert_eq!(s.bands.len(), 3);
        assert!(s.bands[2]
            .label
            .starts_with("after the cache (folding): 130 MB/s"));
        assert!(
            s.bands[1]
                .label
                .starts_with("first post-cache level: 3500 MB/s"),
            "{}",
            s.bands[1].label
        );
        assert_eq!(s.markers[0].lines[1], "5000 -> 3500 MB/s");
        assert_eq!(s.markers[1].lines[1], "3500 -> 130 MB/s");
        assert!(s.subtitle.contains("2 cliffs"));
    }
    let s = charts::throughput_time(&t, &a, &opts());
    assert_eq!(s.markers[1].x, a.cliffs[1].t_s);
    assert!(s.markers[1].lines[0].starts_with("cliff at 126.8 s, "));
}

/// A comparison marked only each run's first cliff: a later tier's cliff (fx700's at
/// 460 GB) was on the line but unmarked, where the run's own chart marks it. Each cliff of a
/// run is marked, with the levels its findings give.
pub fn a_comparison_marks_every_cliff_of_a_run() {
    let (t3, a3) = three_phase();
    let (t1, a1) = clean_cliff();
    let runs = [
        CompareRun {
            name: "three phases",
            timeline: &t3,
            analysis: &a3,
        },
        CompareRun {
            name: "one cliff",
            timeline: &t1,
            analysis: &a1,
        },
    ];
    for s in [
        charts::compare_time(&runs, &opts()),
        charts::compare_data(&runs, &opts()),
    ] {
        let of = |g: usize| -> Vec<&Vec<String>> {
            s.markers
                .iter()
                .filter(|m| m.group == Some(g))
                .map(|m| &m.lines)
                .collect()
        };
        let three = of(0);
        assert_eq!(three.len(), 2, "{three:?}");
        assert_eq!(three[0][1], "5000 -> 3500 MB/s");
        assert_eq!(three[1][1], "3500 -> 130 MB/s");
        assert_eq!(of(1).len(), 1);
    }
    let s = charts::compare_time(&runs, &opts());
    let later = s
        .markers
        .iter()
        .filter(|m| m.group == Some(0))
        .nth(1)
        .unwrap();
    assert_eq!(later.x, a3.cliffs[1].t_s);
}

pub fn no_cliff_says_so() {
    let (t, a) = no_cliff();
    let s = charts::throughput_time(&t, &a, &opts());
    check_common(&s);
    assert!(s.markers.is_empty());
    assert!(
        s.subtitle.starts_with(&format!(
            "No cliff seen: no cache, or one larger than {}",
            format_bytes(t.bytes_total() as f64, UnitSystem::Decimal)
        )),
        "{}",
        s.subtitle
    );
    assert_eq!(s.bands.len(), 1);
    assert!(s.bands[0].label.starts_with("mean: "));
    assert!(s.legend.iter().all(|l| !l.name.starts_with("cliff")));
    assert!(s.y2.is_none());
}

pub fn a_million_samples_keep_every_dip() {
    let (t, a) = million();
    assert_eq!(t.samples.len(), 1_000_000);
    let s = charts::throughput_time(&t, &a, &opts());
    check_common(&s);
    assert_eq!(s.x.label, "time since start (h)");
    let raw = &s.series[0];
    assert!(raw.points.len() > 1000);
    // The single 5 MB/s sample is kept, and so is every 10-minute GC dip (to 20%).
    let min = raw.points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    assert_eq!(min, 5.0);
    let dip = raw.points.iter().find(|p| p.1 == 5.0).unwrap();
    assert!((dip.0 - t.samples[654_321].t_s / 3600.0).abs() < 0.1 / 3600.0);
    let dips = raw.points.iter().filter(|p| p.1 < 200.0).count();
    assert!(dips >= 166, "{dips} dips kept of 166");
    let max = raw.points.iter().map(|p| p.1).fold(0.0, f64::max);
    let true_max = t
        .samples
        .iter()
        .map(|s| s.bytes_per_sec)
        .fold(0.0, f64::max)
        / 1e6;
    assert_eq!(max, true_max);
    let lat = charts::latency(&t, &a, &opts()).unwrap();
    check_common(&lat);
    let d = charts::throughput_data(&t, &a, &opts());
    check_common(&d);
    assert_eq!(d.x.label, "data written (TB)");
}

pub fn latency_chart() {
    let (t, a) = clean_cliff();
    let s = charts::latency(&t, &a, &opts()).unwrap();
    check_common(&s);
    assert_eq!(s.kind.file_stem(), "latency");
    assert!(s.y.log);
    assert_eq!(s.y.label, "write latency (ms, log scale)");
    let names: Vec<&str> = s.series.iter().map(|x| x.name.as_str()).collect();
    // Drawn median first, max last (thin, on top of p99).
    assert_eq!(names, ["p50 (median)", "p99", "max"]);
    let p50 = &s.series[0];
    assert_eq!(p50.points[0].1, t.samples[0].lat_p50_us.unwrap() / 1000.0);
    assert_eq!(s.markers.len(), 1);
    assert!(s.markers[0].lines[0].starts_with("cliff at 14.0 s, "));
    // Powers of ten among the ticks.
    assert!(s
        .y
        .ticks
        .iter()
        .any(|v| (v.log10() - v.log10().round()).abs() < 1e-9));
    // No latencies (an imported log): no latency chart.
    let plain = slccache::timeline::Timeline::from_rates(
        &[(1.0, 1.0, 1e9), (2.0, 1.0, 1e9), (3.0, 1.0, 1e9)],
        Default::default(),
    );
    assert!(charts::latency(&plain, &a, &opts()).is_none());
}

pub fn comparison_one_style_per_run() {
    let runs = three_drives();
    let names = ["A", "B", "C"];
    let cr: Vec<CompareRun<'_>> = runs
        .iter()
        .zip(names)
        .map(|((t, a), n)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    for s in [
        charts::compare_time(&cr, &opts()),
        charts::compare_data(&cr, &opts()),
    ] {
        check_common(&s);
        assert_eq!(s.legend.len(), 3);
        let styles: Vec<_> = s
            .legend
            .iter()
            .map(|l| (l.style.color, l.style.dash))
            .collect();
        for i in 0..3 {
            for j in 0..i {
                assert_ne!(styles[i].0, styles[j].0, "same colour");
                assert_ne!(styles[i].1, styles[j].1, "same dash");
            }
        }
        assert_eq!(s.markers.len(), 3);
        for (m, n) in s.markers.iter().zip(names) {
            assert!(m.lines[0].starts_with(&format!("{n}: cliff at ")));
        }
        assert!(s.subtitle.contains("A: ") && s.subtitle.contains("C: "));
        // Each run's smoothed line is drawn in its legend style.
        for (l, n) in s.legend.iter().zip(names) {
            let line = s.series.iter().find(|x| x.name == n).unwrap();
            assert_eq!(line.style, l.style);
        }
    }
    let d = charts::compare_data(&cr, &opts());
    assert_eq!(d.x.label, "data written (GB)");
    let e = runs[2].1.cache_estimate.as_ref().unwrap();
    assert_eq!(d.markers[2].x, e.bytes as f64 / 1e9);
}

pub fn png_size_is_respected_and_labels_scale() {
    let (t, a) = three_phase();
    let o = ReportOptions {
        png_size: (800, 450),
        ..ReportOptions::default()
    };
    let s = charts::throughput_time(&t, &a, &o);
    assert_eq!(s.size, (800, 450));
    check_common(&s);
}

/// Compare labels once kept only the start of each name, cut at 24 characters: two runs
/// named "Samsung SSD 960 EVO 250GB" and "… 500GB" were both "Samsung SSD 960 EVO…: 13.0 GB".
/// Each label now keeps the capacity that tells the runs apart, and no two are alike.
pub fn compare_labels_keep_what_tells_runs_apart() {
    let drives = three_drives();
    let names = [
        ("Samsung SSD 960 EVO 250GB (simulated)", "250GB"),
        ("Samsung SSD 960 EVO 500GB (simulated)", "500GB"),
        ("Samsung SSD 960 EVO 1TB (simulated)", "1TB"),
        ("Samsung SSD 970 EVO 250GB (simulated)", "970"),
        ("HP FX700 2TB (QLC) (simulated)", "FX700"),
        ("Crucial P1 1TB (QLC) (simulated)", "P1"),
    ];
    for n in [2, 6] {
        let cr: Vec<CompareRun<'_>> = (0..n)
            .map(|i| CompareRun {
                name: names[i].0,
                timeline: &drives[i % 3].0,
                analysis: &drives[i % 3].1,
            })
            .collect();
        for s in [
            charts::compare_time(&cr, &opts()),
            charts::compare_data(&cr, &opts()),
        ] {
            let heads: Vec<&str> = s
                .markers
                .iter()
                .map(|m| m.lines[0].split(": ").next().unwrap())
                .collect();
            assert_eq!(heads.len(), n, "{heads:?}");
            for (i, h) in heads.iter().enumerate() {
                assert!(h.contains(names[i].1), "{h:?} lost {:?}", names[i].1);
                assert!(!heads[..i].contains(h), "{heads:?}");
                assert!(!h.ends_with('…'), "{h:?}");
            }
        }
    }
}

/// A comparison subtitle too long for one line gave the count as "1 runs". A name too long
/// for the line now gives way to its short form, which keeps the run's figure.
pub fn compare_subtitle_counts_one_run() {
    let drives = three_drives();
    let name = "Samsung SSD 960 EVO 250GB (simulated) ".repeat(8);
    let cr = [CompareRun {
        name: &name,
        timeline: &drives[0].0,
        analysis: &drives[0].1,
    }];
    let s = charts::compare_data(&cr, &opts());
    assert!(!s.subtitle.contains("1 runs"), "{}", s.subtitle);
    assert!(!s.subtitle.contains(&name), "{}", s.subtitle);
    let cell = slccache::detect::Findings::of(&drives[0].1).cache_cell(UnitSystem::Decimal);
    assert!(s.subtitle.contains(&cell), "{}", s.subtitle);
}

/// Compare's subtitle gave each run's cache as the bare size ("13.0 GB") where every other
/// output gives it with its 95% interval: it states each run's figure as its findings do.
pub fn compare_subtitle_gives_each_cache_with_its_interval() {
    use slccache::detect::Findings;
    let drives = three_drives();
    let names = [
        "Samsung SSD 960 EVO 250GB (simulated)",
        "Samsung SSD 970 EVO 1TB (simulated)",
    ];
    let cr: Vec<CompareRun<'_>> = (0..2)
        .map(|i| CompareRun {
            name: names[i],
            timeline: &drives[i * 2].0,
            analysis: &drives[i * 2].1,
        })
        .collect();
    for s in [
        charts::compare_time(&cr, &opts()),
        charts::compare_data(&cr, &opts()),
    ] {
        assert!(s.subtitle.contains("95% interval"), "{}", s.subtitle);
        for r in &cr {
            let cell = Findings::of(r.analysis).cache_cell(UnitSystem::Decimal);
            assert!(cell.contains(" to "), "{cell}");
            assert!(
                s.subtitle.contains(&cell),
                "{cell:?} not in {:?}",
                s.subtitle
            );
        }
    }
}

/// `compare` of three runs of one drive drew its subtitle cut inside a clause ("... · each
/// run's size and its 95%…"): where the sizes' line does not fit, the subtitle is made of
/// whole clauses, each in its longest form that fits, the least needed left out, and never
/// wider than the header draws without a cut.
pub fn compare_subtitle_is_never_cut_inside_a_clause() {
    use slccache::timeline::Timeline;
    let mut pts: Vec<(f64, f64, f64)> = vec![
        (30.0, 30.0, 2000e6),
        (60.0, 30.0, 2000e6),
        (90.0, 30.0, 1250e6),
    ];
    pts.extend((4..=8).map(|i| (i as f64 * 30.0, 30.0, 491e6)));
    let t = Timeline::from_rates(
        &pts,
        meta("a2", "Crucial P5 1TB", 1_000_000_000_000, 131072),
    );
    let a = slccache::detect::analyze(&t);
    let drives = three_drives();
    let names = [
        "#2: Crucial P5 1TB (simulated), 2026-12-06 00:37:31",
        "#3: Crucial P5 1TB (simulated), 2026-12-06 00:41:02",
        "#4: Crucial P5 1TB (simulated), 2026-12-06 00:44:17",
        "#5: Crucial P5 1TB (simulated), 2026-12-06 00:48:40",
    ];
    // A run with no cliff: one more clause.
    let flat_pts: Vec<(f64, f64, f64)> = (1..=8).map(|i| (i as f64 * 30.0, 30.0, 1000e6)).collect();
    let flat = Timeline::from_rates(
        &flat_pts,
        meta("p5", "Crucial P5 1TB", 1_000_000_000_000, 131072),
    );
    let fa = slccache::detect::analyze(&flat);
    let cr = [
        CompareRun {
            name: names[0],
            timeline: &t,
            analysis: &a,
        },
        CompareRun {
            name: names[3],
            timeline: &flat,
            analysis: &fa,
        },
        CompareRun {
            name: names[1],
            timeline: &drives[0].0,
            analysis: &drives[0].1,
        },
        CompareRun {
            name: names[2],
            timeline: &drives[1].0,
            analysis: &drives[1].1,
        },
    ];
    let whole = [
        "4 runs",
        "1 without a cliff",
        "SLC cache from ",
        "1 size may be a later tier's",
        "each run's size and its 95% interval in compare.md",
        "each run's size in compare.md",
    ];
    for size in [(1600, 900), (960, 540), (640, 360), (480, 270)] {
        let o = ReportOptions {
            png_size: size,
            ..opts()
        };
        for s in [charts::compare_time(&cr, &o), charts::compare_data(&cr, &o)] {
            let l = Layout::new(s.size, false, s.footer.len());
            let w = s.size.0 as f64 - 48.0 * l.scale;
            let sub = charts::text_width(&s.subtitle, l.font(charts::font_px::SUBTITLE));
            assert!(sub * 0.75 <= w, "{size:?}: cut: {}", s.subtitle);
            assert!(!s.subtitle.contains('…'), "{size:?}: {}", s.subtitle);
            if s.subtitle.starts_with("4 runs") {
                for c in s.subtitle.split("  ·  ") {
                    assert!(
                        whole.iter().any(|w| c.starts_with(w)),
                        "{size:?}: {c:?} in {}",
                        s.subtitle
                    );
                }
            }
        }
    }
}

/// A comparison of a run whose size a faster first tier hidden in its first sample could make
/// a later tier's (a2000 at `--interval 30s`) gave the sizes as "SLC cache from 22.0 GB to
/// 150 GB" with no hedge, where the run's own outputs and compare.md give one. The short
/// subtitle says which sizes may be a later tier's.
pub fn compare_subtitle_keeps_the_hidden_first_tier_hedge() {
    use slccache::timeline::Timeline;
    let mut pts: Vec<(f64, f64, f64)> = vec![
        (30.0, 30.0, 2000e6),
        (60.0, 30.0, 2000e6),
        (90.0, 30.0, 1250e6),
    ];
    pts.extend((4..=8).map(|i| (i as f64 * 30.0, 30.0, 491e6)));
    let t = Timeline::from_rates(
        &pts,
        meta("a2", "Kingston A2000 1TB", 1_000_000_000_000, 4096),
    );
    let a = slccache::detect::analyze(&t);
    let f = slccache::detect::Findings::of(&a);
    assert!(
        f.first_sample_hides.is_some() && f.cache_bytes().is_some(),
        "{f:?}"
    );
    let drives = three_drives();
    let cr = [
        CompareRun {
            name: "Kingston A2000 1TB (simulated)",
            timeline: &t,
            analysis: &a,
        },
        CompareRun {
            name: "Samsung SSD 960 EVO 250GB (simulated)",
            timeline: &drives[0].0,
            analysis: &drives[0].1,
        },
    ];
    for s in [
        charts::compare_time(&cr, &opts()),
        charts::compare_data(&cr, &opts()),
    ] {
        assert!(
            s.subtitle.contains("hid in the first sample")
                || s.subtitle.contains("could hide in the first sample"),
            "{}",
            s.subtitle
        );
    }
}

/// A comparison of a run whose cliff came with heat (its size in doubt, as its own outputs and
/// compare.md say) labelled it "#4: ... heat=0.5: cliff after 52.3 GB" bare, and the subtitle
/// of many runs gave "SLC cache from 52.3 GB to 100 GB" with no word of the doubt. The label
/// and the subtitle now say it.
pub fn compare_keeps_the_heat_at_the_cliff_hedge() {
    let d = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for (i, args) in [
        &[
            "p5-1tb,heat=0.5",
            "--seed",
            "2",
            "--no-early-stop",
            "--max-bytes",
            "200GB",
        ][..],
        &["960evo-250g", "--seed", "1"][..],
        &["960evo-250g", "--seed", "2"][..],
        &["960evo-250g", "--seed", "3"][..],
        &["960evo-250g", "--seed", "4"][..],
    ]
    .into_iter()
    .enumerate()
    {
        let out = d.path().join(format!("r{i}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_slccache"))
            .args(["--no-record", "simulate", "--pattern", "seqwrite", "-q"])
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let t = slccache::commands::compare::load_run(&out).unwrap();
        let a = slccache::detect::analyze(&t);
        runs.push((format!("run {i}: {}", args[0]), t, a));
    }
    assert!(slccache::detect::Findings::of(&runs[0].2).heat_at_cliff);
    let cr: Vec<CompareRun> = runs
        .iter()
        .map(|(n, t, a)| CompareRun {
            name: n,
            timeline: t,
            analysis: a,
        })
        .collect();
    for s in [
        charts::compare_time(&cr, &opts()),
        charts::compare_data(&cr, &opts()),
    ] {
        assert!(s.subtitle.contains("in doubt"), "{}", s.subtitle);
        let first = s
            .markers
            .iter()
            .find(|m| m.group == Some(0))
            .unwrap_or_else(|| panic!("{:?}", s.markers));
        assert!(first.lines[0].contains("in doubt"), "{:?}", first.lines);
    }
}
