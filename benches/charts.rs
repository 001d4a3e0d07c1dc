//! Chart benchmarks: a 24-hour-class run (a million samples at 100 ms) from timeline to
//! chart content, and to PNG and SVG files. `cargo bench --bench charts`.

#[path = "../tests/report_util/mod.rs"]
mod report_util;

use std::sync::OnceLock;

use slccache::detect::Analysis;
use slccache::report::{charts, draw, write_charts_and_report, ReportOptions};
use slccache::timeline::Timeline;

fn main() {
    divan::main();
}

fn million() -> &'static (Timeline, Analysis) {
    static M: OnceLock<(Timeline, Analysis)> = OnceLock::new();
    M.get_or_init(report_util::million)
}

/// Chart content only: decimation, smoothing, labels (all three single-run charts).
#[divan::bench(sample_count = 5)]
fn specs_1m_samples() -> usize {
    let (t, a) = million();
    let o = ReportOptions::default();
    let s1 = charts::throughput_time(t, a, &o);
    let s2 = charts::throughput_data(t, a, &o);
    let s3 = charts::latency(t, a, &o);
    s1.series.len() + s2.series.len() + s3.map(|s| s.series.len()).unwrap_or(0)
}

/// Throughput-over-time chart from a million samples to PNG bytes.
#[divan::bench(sample_count = 5)]
fn png_1m_samples() -> usize {
    let (t, a) = million();
    let s = charts::throughput_time(t, a, &ReportOptions::default());
    draw::render_png(&s).unwrap().len()
}

/// Throughput-over-time chart from a million samples to an SVG document.
#[divan::bench(sample_count = 5)]
fn svg_1m_samples() -> usize {
    let (t, a) = million();
    let s = charts::throughput_time(t, a, &ReportOptions::default());
    draw::render_svg(&s).unwrap().len()
}

/// Everything a run writes: three charts as PNG and SVG, and report.md.
#[divan::bench(sample_count = 3)]
fn all_files_1m_samples() -> usize {
    let (t, a) = million();
    let dir = tempfile::tempdir().unwrap();
    write_charts_and_report(dir.path(), t, a, &ReportOptions::default())
        .unwrap()
        .len()
}
