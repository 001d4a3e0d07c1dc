//! The charts of a sweep, built on the chart machinery of [`crate::report::charts`]: IOPS over queue
//! depth (one line per workload and job count, log axis), latency p50/p99 over IOPS, and, when
//! the sweep measured mixed read shares (`--rwmix-read`), IOPS over the read share (one line
//! per QD x jobs). Every measured point is marked, so a line of one point still shows and a
//! line between two points is seen to join only those two. The subtitle gives the saturation
//! of each workload (or that none saturated within the grid), the footer the drive, the
//! workloads and the length of the points.

use std::collections::BTreeMap;

use crate::report::charts::{
    font_px, legend_rows, palette, run_style, wrap_parts, Axis, ChartKind, ChartSpec, Dash, Layout,
    LegendEntry, LineStyle, Series, YSide,
};
use crate::report::ReportOptions;
use crate::results::sweep::{Sweep, SweepPoint, SweepSummary};
use crate::units::{count_text, format_bytes, format_seconds, UnitSystem};

fn axis(label: String, min: f64, max: f64, log: bool) -> Axis {
    let mut a = Axis {
        label,
        min,
        max,
        log,
        ticks: vec![],
    };
    a.ticks = a.compute_ticks(9);
    a
}

/// A workload in words: "4 KiB random writes", "1 MiB sequential reads", "4 KiB random,
/// 70% reads".
pub fn workload_text(pattern: &str, bs: u64, rwmix_read: u32) -> String {
    let order = if pattern.starts_with("rand") {
        "random"
    } else {
        "sequential"
    };
    let block = format_bytes(bs as f64, UnitSystem::Binary).replace(".00 ", " ");
    match rwmix_read {
        0 => format!("{block} {order} writes"),
        100 => format!("{block} {order} reads"),
        m => format!("{block} {order}, {m}% reads"),
    }
}

/// The footer: drive, workloads, the length of a point, seed, version.
fn footer(sum: &SweepSummary, title: &str, o: &ReportOptions) -> Vec<String> {
    let s = sum.sweep;
    // The workloads, the read shares of one order and block size together.
    let mut groups: Vec<((bool, u64), Vec<u32>)> = Vec::new();
    for p in &s.points {
        let g = (p.pattern.starts_with("rand"), p.bs);
        match groups.iter_mut().find(|(k, _)| *k == g) {
            Some((_, mixes)) if !mixes.contains(&p.rwmix_read) => mixes.push(p.rwmix_read),
            Some(_) => {}
            None => groups.push((g, vec![p.rwmix_read])),
        }
    }
    let workloads: Vec<String> = groups
        .iter()
        .map(|((random, bs), mixes)| {
            let pattern = if *random { "rand" } else { "seq" };
            match mixes.as_slice() {
                [m] => workload_text(pattern, *bs, *m),
                _ => format!(
                    "{}, {}% reads",
                    workload_text(pattern, *bs, 50).replace(", 50% reads", ""),
                    mixes
                        .iter()
                        .map(|m| m.to_string())
                        .collect::<Vec<_>>()
                        .join("/")
                ),
            }
        })
        .collect();
    let mut qds: Vec<u32> = s.points.iter().map(|p| p.qd).collect();
    qds.sort_unstable();
    qds.dedup();
    let mut jobs: Vec<u32> = s.points.iter().map(|p| p.jobs).collect();
    jobs.sort_unstable();
    jobs.dedup();
    let list = |v: &[u32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let c = &sum.config;
    let mut parts = vec![
        format!("Drive: {title}"),
        if c.preset == Some("cdm") {
            "Workload: CrystalDiskMark's table (Seq Q32T1 1 MiB, 4K Q8T8, 4K Q1T1; read and write)"
                .to_string()
        } else {
            format!(
                "Workload: {}; QD {} x {} {}",
                workloads.join(", "),
                list(&qds),
                list(&jobs),
                if jobs == [1] { "job" } else { "jobs" }
            )
        },
        format!(
            "{} per point{}",
            format_seconds(c.point_duration_s),
            c.max_bytes_per_point
                .map(|m| format!(
                    " or {}, whichever came first",
                    format_bytes(m as f64, UnitSystem::Binary)
                ))
                .unwrap_or_default()
        ),
    ];
    if c.simulate {
        parts.push("virtual time".into());
    }
    parts.push(format!("seed {}", c.seed));
    parts.push(format!("slccache {} sweep", crate::VERSION));
    let provisional = Layout::new(o.png_size, false, 1);
    wrap_parts(
        &parts,
        (o.png_size.0 as f64) - 40.0 * provisional.scale,
        provisional.font(font_px::FOOTER),
    )
}

/// The subtitle of the IOPS charts: each workload's saturation, or that none saturated.
fn saturation_subtitle(s: &Sweep, several: bool) -> String {
    if s.saturations.is_empty() {
        return "no saturation within the grid (no point reached 95% of its workload's best \
                with a larger QD x jobs after it)"
            .into();
    }
    s.saturations
        .iter()
        .map(|sat| {
            format!(
                "{}saturation at QD{} x {} ({:.1}k IOPS)",
                if several {
                    format!("{}: ", workload_text(&sat.pattern, sat.bs, sat.rwmix_read))
                } else {
                    String::new()
                },
                sat.qd,
                count_text(sat.jobs as usize, "job", "jobs"),
                sat.iops / 1e3
            )
        })
        .collect::<Vec<_>>()
        .join("  ·  ")
}

#[allow(clippy::too_many_arguments)]
fn spec(
    kind: ChartKind,
    o: &ReportOptions,
    title: String,
    subtitle: String,
    footer: &[String],
    x: Axis,
    y: Axis,
    series: Vec<Series>,
) -> ChartSpec {
    let legend = series
        .iter()
        .filter(|s| s.in_legend)
        .map(|s| LegendEntry {
            name: s.name.clone(),
            style: s.style,
            swatch: false,
            group: None,
        })
        .collect();
    ChartSpec {
        kind,
        size: o.png_size,
        title,
        subtitle,
        footer: footer.to_vec(),
        x,
        y,
        y2: None,
        series,
        bands: vec![],
        markers: vec![],
        legend,
        zoom: None,
        theme: o.theme,
        throttled: vec![],
    }
}

fn line(name: String, points: Vec<(f64, f64)>, style: LineStyle) -> Series {
    Series {
        name,
        points,
        style,
        side: YSide::Left,
        in_legend: true,
        group: None,
    }
}

/// Adds a mark at every point of every named series of `spec` (a diamond, a square for p99
/// latencies; drawn as series of their own, solid, in the series' colour), sized in pixels of
/// the drawn chart, on linear and log axes alike.
fn mark_points(mut spec: ChartSpec) -> ChartSpec {
    let layout = Layout::new(spec.size, false, spec.footer.len())
        .with_legend_rows(legend_rows(&spec.legend, spec.size).len());
    let (left, top, right, bottom) = layout.plot_rect();
    let r = 7.0 * layout.scale;
    // An offset of `px` pixels from `v` along axis `a` spanning `len` pixels: (below, above).
    let step = |a: &Axis, v: f64, px: f64, len: i32| -> (f64, f64) {
        let len = len.max(1) as f64;
        if a.log && a.min > 0.0 && v > 0.0 {
            let f = 10f64.powf(px * (a.max / a.min).log10() / len);
            (v / f, v * f)
        } else {
            let d = px * (a.max - a.min) / len;
            (v - d, v + d)
        }
    };
    let mut marks = Vec::new();
    for s in spec.series.iter().filter(|s| !s.name.is_empty()) {
        // The p99 points of the latency chart are squares, the others diamonds.
        let square = s.name.starts_with("p99");
        let style = LineStyle {
            dash: Dash::Solid,
            width: 2.5,
            alpha: 1.0,
            ..s.style
        };
        for &(x, y) in &s.points {
            if (spec.x.log && x <= 0.0) || (spec.y.log && y <= 0.0) {
                continue;
            }
            let (x0, x1) = step(&spec.x, x, r, right - left);
            let (y0, y1) = step(&spec.y, y, r, bottom - top);
            let points = if square {
                let (xa, xb) = step(&spec.x, x, 0.75 * r, right - left);
                let (ya, yb) = step(&spec.y, y, 0.75 * r, bottom - top);
                vec![(xa, ya), (xa, yb), (xb, yb), (xb, ya), (xa, ya)]
            } else {
                vec![(x0, y), (x, y1), (x1, y), (x, y0), (x0, y)]
            };
            marks.push(Series {
                name: String::new(),
                points,
                style,
                side: YSide::Left,
                in_legend: false,
                group: None,
            });
        }
    }
    spec.series.extend(marks);
    spec
}

/// A workload: pattern, block size, read share.
type Workload = (String, u64, u32);

/// The points of a line, chart units.
type Line = Vec<(f64, f64)>;

/// The workload of a point as a key (pattern, block size, read share).
fn key(p: &SweepPoint) -> Workload {
    (p.pattern.clone(), p.bs, p.rwmix_read)
}

/// The charts of a sweep (`title` names the drive).
pub fn charts(sum: &SweepSummary, title: &str, o: &ReportOptions) -> Vec<ChartSpec> {
    let s = sum.sweep;
    let mut out = Vec::new();
    let foot = footer(sum, title, o);
    let k = |v: f64| v / 1e3;
    let workloads: std::collections::BTreeSet<Workload> = s.points.iter().map(key).collect();
    let several = workloads.len() > 1;
    let interrupted = if sum.interrupted {
        format!("  ·  interrupted: {} points finished", s.points.len())
    } else {
        String::new()
    };
    // Groups of points that differ only in QD: (workload, jobs) -> points.
    let mut by_jobs: BTreeMap<(Workload, u32), Vec<&SweepPoint>> = BTreeMap::new();
    for p in &s.points {
        by_jobs.entry((key(p), p.jobs)).or_default().push(p);
    }
    for v in by_jobs.values_mut() {
        v.sort_by_key(|p| p.qd);
    }
    let name_of = |(w, jobs): &(Workload, u32)| {
        let j = count_text(*jobs as usize, "job", "jobs");
        if several {
            format!("{}, {j}", workload_text(&w.0, w.1, w.2))
        } else {
            j
        }
    };
    let qds: Vec<f64> = {
        let mut v: Vec<f64> = s.points.iter().map(|p| p.qd as f64).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v.dedup();
        v
    };
    let iops_max = s.points.iter().map(|p| k(p.iops)).fold(0.0, f64::max);
    if qds.len() > 1 {
        let mut series = Vec::new();
        for (i, (g, pts)) in by_jobs.iter().enumerate() {
            let pts = pts.iter().map(|p| (p.qd as f64, k(p.iops))).collect();
            series.push(line(name_of(g), pts, run_style(i)));
        }
        for sat in &s.saturations {
            series.push(Series {
                in_legend: false,
                ..line(
                    String::new(),
                    vec![
                        (qds[0], k(sat.iops)),
                        (*qds.last().unwrap_or(&1.0), k(sat.iops)),
                    ],
                    LineStyle {
                        color: palette::GREY,
                        alpha: 0.8,
                        width: 1.5,
                        dash: Dash::Dashed { on: 8, off: 6 },
                    },
                )
            });
        }
        let mut x = axis(
            "queue depth per job (I/Os in flight, log scale)".into(),
            qds[0].max(1.0) / 1.2,
            qds[qds.len() - 1] * 1.2,
            true,
        );
        x.ticks = qds.clone();
        let y = axis("IOPS (thousands)".into(), 0.0, iops_max * 1.12, false);
        let sub = format!(
            "{}{}{interrupted}",
            saturation_subtitle(s, several),
            if s.saturations.is_empty() {
                ""
            } else {
                " (grey dashes)"
            }
        );
        out.push(mark_points(spec(
            ChartKind::SweepIops,
            o,
            format!("IOPS over queue depth: {title}"),
            sub,
            &foot,
            x,
            y,
            series,
        )));
    }
    // Latency over IOPS: p50 and p99 per workload and job count, points in QD order.
    let lat_max = s
        .points
        .iter()
        .filter_map(|p| p.lat_p99_us)
        .fold(0.0, f64::max);
    let lat_min = s
        .points
        .iter()
        .filter_map(|p| p.lat_p50_us)
        .fold(f64::INFINITY, f64::min);
    if lat_max > 0.0 && s.points.len() > 1 {
        let mut series = Vec::new();
        for (i, (g, pts)) in by_jobs.iter().enumerate() {
            let style = run_style(i);
            let p50: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|p| p.lat_p50_us.map(|l| (k(p.iops), l)))
                .collect();
            let p99: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|p| p.lat_p99_us.map(|l| (k(p.iops), l)))
                .collect();
            let name = name_of(g);
            let name99 = name.clone();
            series.push(line(
                name,
                p50,
                LineStyle {
                    dash: Dash::Solid,
                    ..style
                },
            ));
            series.push(Series {
                in_legend: false,
                ..line(
                    format!("p99, {name99}"),
                    p99,
                    LineStyle {
                        dash: Dash::Dashed { on: 10, off: 6 },
                        ..style
                    },
                )
            });
        }
        let x = axis("IOPS (thousands)".into(), 0.0, iops_max * 1.08, false);
        let y = axis(
            "latency (µs, log scale)".into(),
            (lat_min.min(lat_max) / 1.5).max(0.1),
            lat_max * 1.5,
            true,
        );
        out.push(mark_points(spec(
            ChartKind::SweepLatency,
            o,
            format!("Latency over IOPS: {title}"),
            format!(
                "of all I/Os of each point: median (p50, diamonds, solid) and 99th percentile \
                 (p99, squares, dashed){interrupted}"
            ),
            &foot,
            x,
            y,
            series,
        )));
    }
    // The rwmix chart: IOPS over the read share, one line per QD x jobs, from the points of a
    // mixed pattern only (`--rwmix-read`); pure reads and pure writes of other patterns (the
    // CrystalDiskMark table) are no mix, and no line joins them.
    let mixed: Vec<&SweepPoint> = s
        .points
        .iter()
        .filter(|p| p.pattern == "randrw" || p.pattern == "rw")
        .collect();
    let shares: std::collections::BTreeSet<u32> = mixed.iter().map(|p| p.rwmix_read).collect();
    if shares.len() > 1 {
        // (pattern, QD, jobs, block size) -> (read share, IOPS).
        let mut by_q: BTreeMap<(String, u32, u32, u64), Line> = BTreeMap::new();
        for p in &mixed {
            by_q.entry((p.pattern.clone(), p.qd, p.jobs, p.bs))
                .or_default()
                .push((p.rwmix_read as f64, k(p.iops)));
        }
        let mixed_max = mixed.iter().map(|p| k(p.iops)).fold(0.0, f64::max);
        let series = by_q
            .into_iter()
            .enumerate()
            .map(|(i, ((pattern, qd, jobs, bs), mut pts))| {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let order = if pattern.starts_with("rand") {
                    "random"
                } else {
                    "sequential"
                };
                line(
                    format!(
                        "QD{qd} x {}, {} {order}",
                        count_text(jobs as usize, "job", "jobs"),
                        format_bytes(bs as f64, UnitSystem::Binary).replace(".00 ", " ")
                    ),
                    pts,
                    run_style(i),
                )
            })
            .collect();
        // A little room at both ends, so that the marks at 0% and 100% show whole.
        let x = axis("reads (% of I/Os)".into(), -3.0, 103.0, false);
        let y = axis("IOPS (thousands)".into(), 0.0, mixed_max * 1.12, false);
        let list = shares
            .iter()
            .map(|s| format!("{s}%"))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(mark_points(spec(
            ChartKind::SweepRwmix,
            o,
            format!("IOPS over the read/write mix: {title}"),
            format!("measured at {list} reads (the marks); the lines only join them{interrupted}"),
            &foot,
            x,
            y,
            series,
        )));
    }
    out
}
