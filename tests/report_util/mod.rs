//! Shared helpers for the report tests: synthetic runs with hand-made analyses, a tiny SVG
//! well-formedness checker, and a PNG size reader.
#![allow(dead_code)]

use slccache::detect::{Analysis, CacheEstimate, Cliff, Phase, PhaseKind};
use slccache::report::charts::bytes_at;
use slccache::timeline::{DeviceIdentity, RunMeta, StopReason, Timeline, Workload};

/// A drive's identity and workload for footers.
pub fn meta(label: &str, model: &str, capacity: u64, bs: u64) -> RunMeta {
    RunMeta {
        device: DeviceIdentity {
            path: "emu:test".into(),
            kind: "emulated".into(),
            model: Some(model.into()),
            serial: None,
            firmware: Some("3B7QCXE7".into()),
            capacity_bytes: Some(capacity),
            logical_block_size: Some(512),
            physical_block_size: Some(512),
        },
        workload: Workload {
            pattern: if bs == 4096 { "randwrite" } else { "seqwrite" }.into(),
            block_size: Some(bs),
            queue_depth: Some(32),
            jobs: Some(1),
            interval_s: None,
            engine: Some("emulated".into()),
            span_bytes: None,
            read_pct: None,
            cliffs_asked: None,
            prefill_pct: None,
            idle_before_s: None,
        },
        started_at: Some("2026-11-29T20:00:00Z".parse().unwrap()),
        stop_reason: Some(StopReason::Duration),
        label: label.into(),
        slccache_version: slccache::VERSION.into(),
        resolution: None,
        rate_log: false,
    }
}

/// The level of a piecewise-constant trace at time `t`: segments are (end time, rate).
fn level(segments: &[(f64, f64)], t: f64) -> f64 {
    segments
        .iter()
        .find(|s| t < s.0)
        .or(segments.last())
        .map(|s| s.1)
        .unwrap_or(0.0)
}

/// Options for a synthetic trace.
pub struct TraceOpts {
    pub interval_s: f64,
    pub duration_s: f64,
    /// Relative noise (uniform +-).
    pub noise: f64,
    /// A GC dip (to 20% of the level) every this many seconds, 0 for none.
    pub dip_every_s: f64,
    pub latencies: bool,
    pub temps: bool,
    pub seed: u64,
}

/// A piecewise-constant trace with noise, dips, latencies (Little's law at QD32 and the block
/// size) and a rising temperature.
pub fn trace(segments: &[(f64, f64)], o: &TraceOpts, meta: RunMeta) -> Timeline {
    let mut rng = fastrand::Rng::with_seed(o.seed);
    let n = (o.duration_s / o.interval_s).round() as usize;
    let dip_every = if o.dip_every_s > 0.0 {
        (o.dip_every_s / o.interval_s).round() as usize
    } else {
        0
    };
    let pts: Vec<(f64, f64, f64)> = (1..=n)
        .map(|i| {
            let t = i as f64 * o.interval_s;
            let mid = t - 0.5 * o.interval_s;
            let mut r = level(segments, mid) * (1.0 + o.noise * (2.0 * rng.f64() - 1.0));
            if dip_every > 0 && i % dip_every == dip_every / 2 {
                r *= 0.2;
            }
            (t, o.interval_s, r)
        })
        .collect();
    let mut t = Timeline::from_rates(&pts, meta);
    let bs = t.meta.workload.block_size.unwrap_or(4096) as f64;
    let n = t.samples.len() as f64;
    for (i, s) in t.samples.iter_mut().enumerate() {
        if o.latencies && s.bytes_per_sec > 0.0 {
            let mean_us = 32.0 * bs / s.bytes_per_sec * 1e6;
            s.iops = s.bytes_per_sec / bs;
            s.lat_p50_us = Some(mean_us * 0.9);
            s.lat_p99_us = Some(mean_us * (2.5 + rng.f64()));
            s.lat_max_us = Some(mean_us * (6.0 + 20.0 * rng.f64() * rng.f64()));
        }
        if o.temps {
            s.temp_c = Some(38.0 + 24.0 * (i as f64 / n).sqrt());
        }
    }
    t
}

/// A hand-made analysis for a trace with cliffs at `cliffs` (s) between the given segments,
/// with phase kinds in order.
pub fn analysis(t: &Timeline, segments: &[(f64, f64)], kinds: &[PhaseKind]) -> Analysis {
    let cliffs: Vec<Cliff> = segments
        .windows(2)
        .map(|w| {
            let at = w[0].0;
            Cliff {
                t_s: at,
                t_low_s: at - 0.4,
                t_high_s: at + 0.6,
                bytes_written: bytes_at(t, at) as u64,
                before_bytes_per_sec: w[0].1,
                after_bytes_per_sec: w[1].1,
                under_heat: false,
            }
        })
        .collect();
    let mut start = 0.0;
    let phases = segments
        .iter()
        .zip(kinds)
        .map(|(s, k)| {
            let end = s.0.min(t.duration_s());
            let p = Phase {
                start_s: start,
                end_s: end,
                mean_bytes_per_sec: s.1,
                kind: *k,
                heat: false,
                stall: false,
                range_bytes_per_sec: None,
                rate_at_most: false,
            };
            start = end;
            p
        })
        .collect();
    let cache_estimate = cliffs.first().map(|c| CacheEstimate {
        bytes: c.bytes_written,
        low_bytes: bytes_at(t, c.t_low_s) as u64,
        high_bytes: bytes_at(t, c.t_high_s) as u64,
    });
    Analysis {
        bytes_total: t.bytes_total(),
        duration_s: t.duration_s(),
        interval_s: t.interval_s(),
        cache_lower_bound_bytes: if cliffs.is_empty() {
            Some(t.bytes_total())
        } else {
            None
        },
        cliffs,
        cache_estimate,
        phases,
        warnings: vec![],
        periodic: None,
        slowdowns: vec![],
        returns: vec![],
        unconfirmed_drop: None,
        read_only: false,
        coverage: None,
        after_cache: None,
        throttled: vec![],
        link_limited: None,
        wrapped_span_bytes: None,
        emulation_fell_short: false,
        iops_hid_cache: None,
        first_sample_hides: None,
    }
}

/// The clean cliff of a 960 EVO 500 GB at 4K random writes: 1365 MB/s to 14.0 s, then 591.
pub fn clean_cliff() -> (Timeline, Analysis) {
    let seg = [(14.0, 1365e6), (f64::INFINITY, 591e6)];
    let t = trace(
        &seg,
        &TraceOpts {
            interval_s: 0.5,
            duration_s: 60.0,
            noise: 0.03,
            dip_every_s: 9.0,
            latencies: true,
            temps: true,
            seed: 1,
        },
        meta(
            "960evo-500g",
            "Samsung SSD 960 EVO 500GB",
            500_107_862_016,
            4096,
        ),
    );
    let a = analysis(&t, &seg, &[PhaseKind::Cache, PhaseKind::PostCache]);
    (t, a)
}

/// A QLC drive's three phases (HP FX700 2 TB-like): ~5 GB/s to 54 GB, 3.5 GB/s to 460 GB,
/// then ~130 MB/s folding.
pub fn three_phase() -> (Timeline, Analysis) {
    let t1 = 54e9 / 5000e6;
    let t2 = t1 + 406e9 / 3500e6;
    let seg = [(t1, 5000e6), (t2, 3500e6), (f64::INFINITY, 130e6)];
    let t = trace(
        &seg,
        &TraceOpts {
            interval_s: 1.0,
            duration_s: 600.0,
            noise: 0.04,
            dip_every_s: 37.0,
            latencies: true,
            temps: false,
            seed: 2,
        },
        meta("fx700-2tb", "HP SSD FX700 2TB", 2_000_398_934_016, 131072),
    );
    let a = analysis(
        &t,
        &seg,
        &[PhaseKind::Cache, PhaseKind::PostCache, PhaseKind::Folding],
    );
    (t, a)
}

/// No cliff: a steady ~1300 MB/s with noise and dips.
pub fn no_cliff() -> (Timeline, Analysis) {
    let seg = [(f64::INFINITY, 1300e6)];
    let t = trace(
        &seg,
        &TraceOpts {
            interval_s: 1.0,
            duration_s: 120.0,
            noise: 0.06,
            dip_every_s: 11.0,
            latencies: true,
            temps: false,
            seed: 3,
        },
        meta("steady-drive", "Some Drive 1TB", 1_000_204_886_016, 1 << 20),
    );
    let mut a = analysis(&t, &seg, &[PhaseKind::Steady]);
    a.phases[0].mean_bytes_per_sec = t.bytes_total() as f64 / t.duration_s();
    (t, a)
}

/// Three 960 EVOs (250 GB, 500 GB, 1 TB) at 128K sequential writes.
pub fn three_drives() -> Vec<(Timeline, Analysis)> {
    [
        (
            "960evo-250g",
            "Samsung SSD 960 EVO 250GB",
            13e9,
            1500e6,
            300e6,
            250e9,
        ),
        (
            "960evo-500g",
            "Samsung SSD 960 EVO 500GB",
            22e9,
            1800e6,
            600e6,
            500e9,
        ),
        (
            "960evo-1tb",
            "Samsung SSD 960 EVO 1TB",
            42e9,
            1900e6,
            1200e6,
            1000e9,
        ),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(label, model, cache, before, after, cap))| {
        let seg = [(cache / before, before), (f64::INFINITY, after)];
        let t = trace(
            &seg,
            &TraceOpts {
                interval_s: 0.5,
                duration_s: 90.0,
                noise: 0.04,
                dip_every_s: 13.0,
                latencies: true,
                temps: false,
                seed: 10 + i as u64,
            },
            meta(label, model, cap as u64, 131072),
        );
        let a = analysis(&t, &seg, &[PhaseKind::Cache, PhaseKind::PostCache]);
        (t, a)
    })
    .collect()
}

/// About a million samples: 27.8 hours at 100 ms; 1800 MB/s for 12 s, then 600 MB/s with GC
/// dips every 10 minutes and one single-sample dip to 5 MB/s at sample 654,321.
pub fn million() -> (Timeline, Analysis) {
    let seg = [(12.2, 1800e6), (f64::INFINITY, 600e6)];
    let mut t = trace(
        &seg,
        &TraceOpts {
            interval_s: 0.1,
            duration_s: 100_000.0,
            noise: 0.03,
            dip_every_s: 600.0,
            latencies: true,
            temps: true,
            seed: 4,
        },
        meta(
            "24h-run",
            "Samsung SSD 960 EVO 500GB",
            500_107_862_016,
            131072,
        ),
    );
    t.samples[654_321].bytes_per_sec = 5e6;
    let a = analysis(&t, &seg, &[PhaseKind::Cache, PhaseKind::PostCache]);
    (t, a)
}

/// Checks that `svg` is well formed: every tag closed in order, attributes quoted, only the
/// five XML entities (and numeric ones). Returns the text contents, unescaped.
pub fn svg_texts(svg: &str) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut texts = Vec::new();
    let mut rest = svg;
    let mut seen_root = false;
    while let Some(lt) = rest.find('<') {
        let content = &rest[..lt];
        if !content.trim().is_empty() {
            if stack.is_empty() {
                return Err(format!("text outside the root: {content:?}"));
            }
            texts.push(unescape(content)?);
        }
        rest = &rest[lt..];
        if rest.starts_with("<?") {
            let end = rest.find("?>").ok_or("unclosed <?")?;
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("<!--") {
            let end = rest.find("-->").ok_or("unclosed comment")?;
            rest = &rest[end + 3..];
            continue;
        }
        // Find the end of the tag, skipping quoted attribute values.
        let bytes = rest.as_bytes();
        let mut i = 1;
        let mut quote: Option<u8> = None;
        while i < bytes.len() {
            match (quote, bytes[i]) {
                (None, b'"') | (None, b'\'') => quote = Some(bytes[i]),
                (Some(q), c) if c == q => quote = None,
                (None, b'>') => break,
                (None, b'<') => return Err(format!("'<' inside a tag near {:?}", &rest[..i])),
                _ => {}
            }
            i += 1;
        }
        if i >= bytes.len() {
            return Err("unterminated tag".into());
        }
        let tag = &rest[1..i];
        rest = &rest[i + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .ok_or(format!("</{name}> without an opening tag"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
        } else {
            let self_closing = tag.ends_with('/');
            let name: String = tag
                .trim_end_matches('/')
                .split_whitespace()
                .next()
                .ok_or("empty tag")?
                .to_string();
            if !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':')
            {
                return Err(format!("bad tag name {name:?}"));
            }
            if stack.is_empty() {
                if seen_root {
                    return Err("two root elements".into());
                }
                seen_root = true;
            }
            // Text drawn as glyph outlines carries its text in aria-label.
            if let Some(v) = tag.split("aria-label=\"").nth(1) {
                let v = v.split('"').next().ok_or("unclosed aria-label")?;
                texts.push(unescape(v)?);
            }
            if !self_closing {
                stack.push(name);
            }
        }
    }
    if !rest.trim().is_empty() {
        return Err("text after the root".into());
    }
    if !stack.is_empty() {
        return Err(format!("unclosed tags: {stack:?}"));
    }
    if !seen_root {
        return Err("no root element".into());
    }
    Ok(texts)
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(a) = rest.find('&') {
        out.push_str(&rest[..a]);
        let end = rest[a..].find(';').ok_or("'&' without ';'")? + a;
        let ent = &rest[a + 1..end];
        out.push(match ent {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad entity {e}"))?,
            e if e.starts_with('#') => e[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .ok_or(format!("bad entity {e}"))?,
            e => return Err(format!("unknown entity &{e};")),
        });
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Decodes a PNG and returns its size (and that it has pixels that are not all white).
pub fn png_info(path: &std::path::Path) -> ((u32, u32), bool) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let data = &buf[..info.buffer_size()];
    let inked = data.iter().filter(|&&b| b < 128).count() > 1000;
    ((info.width, info.height), inked)
}
