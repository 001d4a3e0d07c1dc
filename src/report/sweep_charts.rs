//! The charts of a sweep, built on the chart machinery of [`super::charts`]: IOPS over queue
//! depth (one line per job count, log axis), latency p50/p99 over IOPS, and, when the sweep
//! has several read shares, IOPS over the read share (one line per QD x jobs).

use std::collections::BTreeMap;

use super::charts::{
    palette, run_style, Axis, ChartKind, ChartSpec, Dash, LegendEntry, LineStyle, Series, YSide,
};
use super::ReportOptions;
use crate::results::sweep::Sweep;

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

fn spec(
    kind: ChartKind,
    o: &ReportOptions,
    title: String,
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
        subtitle: String::new(),
        footer: vec![format!("slccache {} sweep", crate::VERSION)],
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

/// The charts of `s` (`title` names the drive).
pub fn charts(s: &Sweep, title: &str, o: &ReportOptions) -> Vec<ChartSpec> {
    let mut out = Vec::new();
    let k = |v: f64| v / 1e3;
    // Groups of points that differ only in QD: (bs, mix, jobs) -> [(qd, iops)].
    let mut by_jobs: BTreeMap<(u64, u32, u32), Vec<(f64, f64)>> = BTreeMap::new();
    for p in &s.points {
        by_jobs
            .entry((p.bs, p.rwmix_read, p.jobs))
            .or_default()
            .push((p.qd as f64, k(p.iops)));
    }
    let mixes: std::collections::BTreeSet<(u64, u32)> =
        s.points.iter().map(|p| (p.bs, p.rwmix_read)).collect();
    let qds: Vec<f64> = {
        let mut v: Vec<f64> = s.points.iter().map(|p| p.qd as f64).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v.dedup();
        v
    };
    let iops_max = s.points.iter().map(|p| k(p.iops)).fold(0.0, f64::max);
    if qds.len() > 1 {
        let mut series = Vec::new();
        for (i, ((bs, mix, jobs), mut pts)) in by_jobs.clone().into_iter().enumerate() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let name = if mixes.len() > 1 {
                format!("{jobs} job(s), {} KiB, {mix}% reads", bs / 1024)
            } else {
                format!("{jobs} job(s)")
            };
            series.push(line(name, pts, run_style(i)));
        }
        if let Some(sat) = &s.saturation {
            series.push(line(
                format!("saturation: QD{} x {} job(s)", sat.qd, sat.jobs),
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
            ));
        }
        let mut x = axis(
            "queue depth per job (I/Os in flight, log scale)".into(),
            qds[0].max(1.0) / 1.2,
            qds[qds.len() - 1] * 1.2,
            true,
        );
        x.ticks = qds.clone();
        let y = axis("IOPS (thousands)".into(), 0.0, iops_max * 1.12, false);
        out.push(spec(
            ChartKind::SweepIops,
            o,
            format!("IOPS over queue depth: {title}"),
            x,
            y,
            series,
        ));
    }
    // Latency over IOPS: p50 and p99 per job count, points in QD order.
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
        for (i, ((_, _, jobs), _)) in by_jobs.iter().enumerate() {
            let mut pts: Vec<_> = s.points.iter().filter(|p| p.jobs == *jobs).collect();
            pts.sort_by_key(|p| p.qd);
            let style = run_style(i);
            let p50: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|p| p.lat_p50_us.map(|l| (k(p.iops), l)))
                .collect();
            let p99: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|p| p.lat_p99_us.map(|l| (k(p.iops), l)))
                .collect();
            series.push(line(format!("p50, {jobs} job(s)"), p50, style));
            series.push(line(
                format!("p99, {jobs} job(s)"),
                p99,
                LineStyle {
                    dash: Dash::Dashed { on: 10, off: 6 },
                    ..style
                },
            ));
        }
        let x = axis("IOPS (thousands)".into(), 0.0, iops_max * 1.08, false);
        let y = axis(
            "latency (us, log scale)".into(),
            (lat_min.min(lat_max) / 1.5).max(0.1),
            lat_max * 1.5,
            true,
        );
        out.push(spec(
            ChartKind::SweepLatency,
            o,
            format!("Latency over IOPS: {title}"),
            x,
            y,
            series,
        ));
    }
    // The rwmix chart: IOPS over the read share, one line per QD x jobs.
    let shares: std::collections::BTreeSet<u32> = s.points.iter().map(|p| p.rwmix_read).collect();
    if shares.len() > 1 {
        let mut by_q: BTreeMap<(u32, u32, u64), Vec<(f64, f64)>> = BTreeMap::new();
        for p in &s.points {
            by_q.entry((p.qd, p.jobs, p.bs))
                .or_default()
                .push((p.rwmix_read as f64, k(p.iops)));
        }
        let series = by_q
            .into_iter()
            .enumerate()
            .map(|(i, ((qd, jobs, _), mut pts))| {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                line(format!("QD{qd} x {jobs} job(s)"), pts, run_style(i))
            })
            .collect();
        let x = axis("reads (% of I/Os)".into(), 0.0, 100.0, false);
        let y = axis("IOPS (thousands)".into(), 0.0, iops_max * 1.12, false);
        out.push(spec(
            ChartKind::SweepRwmix,
            o,
            format!("IOPS over the read/write mix: {title}"),
            x,
            y,
            series,
        ));
    }
    out
}
