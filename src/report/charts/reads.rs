//! Charts of runs that read: a run that only reads is drawn from its reads (its charts say
//! "Read" and "data read" by themselves, from its findings); a mixed run keeps the write charts and gets a read series on the throughput-time
//! chart, on the same axis.

use crate::report::charts::{
    palette, time_scale, ChartKind, ChartSpec, Dash, LegendEntry, LineStyle, Series, YSide,
};
use crate::timeline::Timeline;
use crate::units::UnitSystem;

/// The stroke of the read series.
pub const READ_STYLE: LineStyle = LineStyle {
    color: palette::REDDISH_PURPLE,
    alpha: 0.9,
    width: 2.0,
    dash: Dash::Solid,
};

/// Adds the read throughput of `t` to its throughput-over-time chart (nothing for other
/// charts or timelines without reads).
pub fn add_read_series(spec: &mut ChartSpec, t: &Timeline, units: UnitSystem) {
    if spec.kind != ChartKind::ThroughputTime || !t.has_reads() {
        return;
    }
    let (xdiv, _) = time_scale(t.duration_s());
    let ydiv = units.mega();
    let points: Vec<(f64, f64)> = t
        .samples
        .iter()
        .map(|s| (s.t_s / xdiv, s.read_bytes_per_sec() / ydiv))
        .collect();
    let top = points.iter().map(|p| p.1).fold(0.0, f64::max);
    if top * 1.1 > spec.y.max {
        spec.y.max = top * 1.1;
        spec.y.ticks = spec.y.compute_ticks(9);
    }
    let name = format!("reads ({}/s)", units.mega_label());
    spec.series.push(Series {
        name: name.clone(),
        points,
        style: READ_STYLE,
        side: YSide::Left,
        in_legend: true,
        group: None,
    });
    spec.legend.push(LegendEntry {
        name,
        style: READ_STYLE,
        swatch: false,
        group: None,
    });
    spec.title = spec
        .title
        .replacen("Write throughput", "Write and read throughput", 1);
    spec.y.label = spec.y.label.replacen("write throughput", "throughput", 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::analyze;
    use crate::report::{charts, ReportOptions};
    use crate::timeline::{ReadStats, RunMeta};

    #[test]
    fn a_mixed_run_shows_both_directions() {
        let mut t = Timeline::from_rates(
            &(1..=20).map(|i| (i as f64, 1.0, 1e9)).collect::<Vec<_>>(),
            RunMeta::default(),
        );
        for s in &mut t.samples {
            s.read = Some(ReadStats {
                bytes: 2_000_000_000,
                ..ReadStats::default()
            });
        }
        let o = ReportOptions::default();
        let a = analyze(&t);
        let mut spec = charts::throughput_time(&t, &a, &o);
        let before = spec.series.len();
        add_read_series(&mut spec, &t, o.units);
        assert_eq!(spec.series.len(), before + 1);
        let r = spec.series.last().unwrap();
        assert!(
            r.points.iter().all(|p| (p.1 - 2000.0).abs() < 1e-6),
            "{:?}",
            &r.points[..2]
        );
        assert!(spec.y.max >= 2000.0);
        assert!(spec.title.contains("read"), "{}", spec.title);
    }
}
