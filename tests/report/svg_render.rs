//! The SVGs look like the PNGs: each chart's SVG is rendered with resvg (no fonts available to
//! it at all: the text is glyph outlines) and compared pixel by pixel with the PNG drawn from
//! the same spec. Small differences are antialiasing; a missing or misplaced text, line or
//! shaded phase makes a large one.

use crate::common::report_util;

use report_util::*;
use slccache::report::charts::{self, ChartSpec, CompareRun, Theme};
use slccache::report::{draw, ReportOptions};

fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(ch)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, px)
}

fn render_svg(svg: &str) -> (u32, u32, Vec<[u8; 3]>) {
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("the SVG parses");
    let size = tree.size().to_int_size();
    let mut pm = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pm.as_mut(),
    );
    // The background is opaque, so premultiplied colour is the colour.
    let px = pm.data().chunks(4).map(|p| [p[0], p[1], p[2]]).collect();
    (size.width(), size.height(), px)
}

/// (mean absolute difference per channel, share of 16x16 blocks whose mean colours differ by
/// more than 32 in a channel). Antialiased edges half a pixel apart move a block's mean by a
/// few units; a missing or misplaced word, line or tint by far more.
fn compare(a: &[[u8; 3]], b: &[[u8; 3]], w: u32, h: u32) -> (f64, f64) {
    let mean = a
        .iter()
        .zip(b)
        .map(|(p, q)| {
            (0..3)
                .map(|c| (p[c] as f64 - q[c] as f64).abs())
                .sum::<f64>()
        })
        .sum::<f64>()
        / (3.0 * a.len() as f64);
    let (bw, bh) = (w / 16, h / 16);
    let mut bad = 0;
    for by in 0..bh {
        for bx in 0..bw {
            let mut sa = [0f64; 3];
            let mut sb = [0f64; 3];
            for y in by * 16..by * 16 + 16 {
                for x in bx * 16..bx * 16 + 16 {
                    let i = (y * w + x) as usize;
                    for c in 0..3 {
                        sa[c] += a[i][c] as f64;
                        sb[c] += b[i][c] as f64;
                    }
                }
            }
            if (0..3).any(|c| (sa[c] - sb[c]).abs() / 256.0 > 32.0) {
                bad += 1;
            }
        }
    }
    (mean, bad as f64 / (bw * bh) as f64)
}

fn check(name: &str, spec: &ChartSpec) {
    let png = draw::render_png(spec).unwrap();
    let svg = draw::render_svg(spec).unwrap();
    assert!(!svg.contains("<text"), "{name}: text left as <text>");
    let (w, h, a) = decode_png(&png);
    let (w2, h2, b) = render_svg(&svg);
    assert_eq!((w, h), (w2, h2), "{name}: size");
    if let Some(d) = std::env::var_os("SLCCACHE_GALLERY") {
        // For looking at: the PNG, the SVG as resvg draws it, and where they differ.
        let d = std::path::PathBuf::from(d).join("svg-vs-png");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("{name}.png")), &png).unwrap();
        let save = |file: &str, px: &[[u8; 3]]| {
            let f = std::fs::File::create(d.join(file)).unwrap();
            let mut e = png::Encoder::new(f, w, h);
            e.set_color(png::ColorType::Rgb);
            e.set_depth(png::BitDepth::Eight);
            let flat: Vec<u8> = px.iter().flatten().copied().collect();
            e.write_header().unwrap().write_image_data(&flat).unwrap();
        };
        save(&format!("{name}-svg.png"), &b);
        let diff: Vec<[u8; 3]> = a
            .iter()
            .zip(&b)
            .map(|(p, q)| {
                let m = (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap();
                [255 - m, 255 - m, 255]
            })
            .collect();
        save(&format!("{name}-diff.png"), &diff);
    }
    let (mean, bad) = compare(&a, &b, w, h);
    eprintln!(
        "{name}: mean difference {mean:.2}/255, {:.2}% of blocks differ",
        bad * 100.0
    );
    assert!(mean < 2.0, "{name}: SVG and PNG differ: mean {mean:.2}");
    assert!(
        bad < 0.005,
        "{name}: SVG and PNG differ in {:.2}% of blocks",
        bad * 100.0
    );
}

pub fn svg_renders_match_the_pngs() {
    let light = ReportOptions::default();
    let dark = ReportOptions {
        theme: Theme::Dark,
        ..ReportOptions::default()
    };
    let (t, a) = clean_cliff();
    check("time", &charts::throughput_time(&t, &a, &light));
    check("data-dark", &charts::throughput_data(&t, &a, &dark));
    check("latency", &charts::latency(&t, &a, &light).unwrap());
    let (t3, a3) = three_phase();
    check("three-phase", &charts::throughput_time(&t3, &a3, &light));
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
    check("compare", &charts::compare_data(&cr, &light));
}

/// Changing one label's text changes the SVG's rendering where the PNG changes: the check
/// above can fail.
pub fn the_render_comparison_sees_a_missing_title() {
    let (t, a) = clean_cliff();
    let spec = charts::throughput_time(&t, &a, &ReportOptions::default());
    let png = draw::render_png(&spec).unwrap();
    let mut other = spec.clone();
    other.title = String::new();
    other.subtitle = String::new();
    let svg = draw::render_svg(&other).unwrap();
    let (w, h, a) = decode_png(&png);
    let (_, _, b) = render_svg(&svg);
    let (_, bad) = compare(&a, &b, w, h);
    eprintln!("title missing: {:.3}%", bad * 100.0);
    assert!(bad >= 0.005, "only {:.3}% of blocks differ", bad * 100.0);
}

/// The SVG checker that the chart tests rely on refuses broken documents.
pub fn svg_checker_rejects_broken_documents() {
    assert!(svg_texts("<svg><text>a -&gt; b</text></svg>").is_ok());
    assert_eq!(
        svg_texts("<svg><text>a -&gt; b</text></svg>").unwrap(),
        vec!["a -> b".to_string()]
    );
    assert!(svg_texts("<svg><text>a</svg>").is_err());
    assert!(svg_texts("<svg><g></text></g></svg>").is_err());
    assert!(svg_texts("<svg><text a=\"1>2\">x</text>").is_err());
    assert!(svg_texts("<svg/><svg/>").is_err());
    assert!(svg_texts("<svg>&bogus;</svg>").is_err());
}
