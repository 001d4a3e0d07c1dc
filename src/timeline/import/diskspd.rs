//! DiskSPD's XML result (`diskspd -D -Rxml ...`) read as a timeline.
//!
//! With `-D`, DiskSPD counts I/Os per interval (`IoBucketDuration`, 1000 ms unless `-D<ms>`
//! says otherwise) and its XML result lists them per thread and target as `Bucket` elements,
//! each with the end of its interval (`SampleMillisecond`) and the read and write IOPS over it
//! (`Read`, `Write`). The block size of each target is in the profile that heads the result.
//! The rate of an interval is IOPS x block size, summed over threads and targets, writes and
//! reads apart. Only the first measured time span is read.

use std::collections::BTreeMap;

use roxmltree::{Document, Node};

use super::ImportError;
use crate::timeline::{ReadStats, RunMeta, Timeline, Workload};

/// Whether `text` looks like an XML document whose first element is DiskSPD's `<Results>`.
pub(crate) fn looks_like(first_line: &str) -> bool {
    let l = first_line.trim_start();
    l.starts_with("<Results") || l.starts_with("<?xml")
}

/// The first child element of `n` named `name`.
fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

/// The children of `n` named `name`.
fn children<'a, 'i: 'a>(n: Node<'a, 'i>, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children().filter(move |c| c.has_tag_name(name))
}

/// The text of the child `name` of `n`, trimmed.
fn text_of<'a>(n: Node<'a, '_>, name: &str) -> Option<&'a str> {
    child(n, name).and_then(|c| c.text()).map(str::trim)
}

/// The 1-based line of node `n` in `doc`.
fn line_of(doc: &Document, n: Node) -> usize {
    doc.text_pos_at(n.range().start).row as usize
}

/// A number in an attribute or element that must be one.
fn number(
    doc: &Document,
    name: &str,
    n: Node,
    what: &str,
    v: Option<&str>,
) -> Result<f64, ImportError> {
    let v =
        v.ok_or_else(|| ImportError::at(name, line_of(doc, n), format!("{what} is missing")))?;
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(ImportError::at(
            name,
            line_of(doc, n),
            format!("{what} is not a number of 0 or more: {v:?}"),
        )),
    }
}

/// One time span of the profile: the length of an interval and the block size per target.
struct ProfileSpan {
    bucket_ms: f64,
    warmup_s: f64,
    block_sizes: Vec<(String, u64)>,
}

fn profile_spans(doc: &Document, name: &str) -> Result<Vec<ProfileSpan>, ImportError> {
    let root = doc.root_element();
    let Some(spans) = child(root, "Profile").and_then(|p| child(p, "TimeSpans")) else {
        return Ok(vec![]);
    };
    let mut out = Vec::new();
    for ts in children(spans, "TimeSpan") {
        let bucket_ms = match child(ts, "IoBucketDuration") {
            Some(n) => number(doc, name, n, "IoBucketDuration", n.text())?,
            None => 1000.0,
        };
        let warmup_s = match child(ts, "Warmup") {
            Some(n) => number(doc, name, n, "Warmup", n.text()).unwrap_or(0.0),
            None => 0.0,
        };
        let mut block_sizes = Vec::new();
        if let Some(targets) = child(ts, "Targets") {
            for t in children(targets, "Target") {
                let path = text_of(t, "Path").unwrap_or("").to_string();
                if let Some(b) = child(t, "BlockSize") {
                    let bs = number(doc, name, b, "BlockSize", b.text())?;
                    block_sizes.push((path, bs as u64));
                }
            }
        }
        out.push(ProfileSpan {
            bucket_ms,
            warmup_s,
            block_sizes,
        });
    }
    Ok(out)
}

/// The per-interval buckets under `iops` (an `Iops` element): (end in ms, read IOPS, write
/// IOPS).
fn buckets(doc: &Document, name: &str, iops: Node) -> Result<Vec<(f64, f64, f64)>, ImportError> {
    let mut out = Vec::new();
    for b in children(iops, "Bucket") {
        let Some(ms) = b.attribute("SampleMillisecond") else {
            continue;
        };
        let ms = number(doc, name, b, "SampleMillisecond", Some(ms))?;
        let r = number(
            doc,
            name,
            b,
            "the Read IOPS of a Bucket",
            b.attribute("Read"),
        )?;
        let w = number(
            doc,
            name,
            b,
            "the Write IOPS of a Bucket",
            b.attribute("Write"),
        )?;
        out.push((ms, r, w));
    }
    Ok(out)
}

/// Reads DiskSPD's XML result. `notes` gets what the user should know about how it was read
/// (a warm-up that wrote data the timeline does not hold, targets summed, time spans left
/// out).
pub(crate) fn read(
    text: &str,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Timeline, ImportError> {
    let doc = Document::parse(text).map_err(|e| {
        ImportError::at(
            name,
            e.pos().row as usize,
            format!("not well-formed XML: {e}"),
        )
    })?;
    let root = doc.root_element();
    if !root.has_tag_name("Results") {
        return Err(ImportError::at(
            name,
            line_of(&doc, root),
            format!(
                "an XML file whose first element is <{}>, not DiskSPD's <Results>: slccache \
                 reads DiskSPD results written with -Rxml",
                root.tag_name().name()
            ),
        ));
    }
    let profile = profile_spans(&doc, name)?;
    let spans: Vec<Node> = children(root, "TimeSpan").collect();
    let no_buckets = || {
        ImportError::whole(
            name,
            "a DiskSPD result without per-interval IOPS: run DiskSPD with -D (and -Rxml) so that \
             it records the I/Os of every interval",
        )
    };
    // The first time span that holds buckets.
    let with_buckets = spans.iter().position(|ts| {
        ts.descendants()
            .any(|n| n.has_tag_name("Bucket") && n.attribute("SampleMillisecond").is_some())
    });
    let Some(k) = with_buckets else {
        return Err(no_buckets());
    };
    let ts = spans[k];
    let Some(ps) = profile.get(k).or(profile.first()) else {
        return Err(ImportError::whole(
            name,
            "a DiskSPD result without its <Profile>: the block size of the targets is needed to \
             turn IOPS into bytes",
        ));
    };
    let block_of = |path: &str| -> Option<u64> {
        ps.block_sizes
            .iter()
            .find(|(p, _)| p == path)
            .or(if ps.block_sizes.len() == 1 {
                ps.block_sizes.first()
            } else {
                None
            })
            .map(|(_, b)| *b)
    };
    // Interval end (ms) -> (read bytes/s, write bytes/s, read IOPS, write IOPS).
    let mut by_ms: BTreeMap<u64, (f64, f64, f64, f64)> = BTreeMap::new();
    let mut targets = 0usize;
    let mut sizes: Vec<u64> = Vec::new();
    let mut file_size = None;
    for th in children(ts, "Thread") {
        for tg in children(th, "Target") {
            let Some(iops) = child(tg, "Iops") else {
                continue;
            };
            let path = text_of(tg, "Path").unwrap_or("");
            let bs = block_of(path).ok_or_else(|| {
                ImportError::at(
                    name,
                    line_of(&doc, tg),
                    format!("no BlockSize in the profile for the target {path:?}"),
                )
            })?;
            targets += 1;
            sizes.push(bs);
            file_size = text_of(tg, "FileSize").and_then(|v| v.parse::<u64>().ok());
            for (ms, r, w) in buckets(&doc, name, iops)? {
                let e = by_ms.entry(ms.round() as u64).or_default();
                e.0 += r * bs as f64;
                e.1 += w * bs as f64;
                e.2 += r;
                e.3 += w;
            }
        }
    }
    if by_ms.is_empty() {
        // Only the totals over all threads and targets: usable when one block size holds.
        let iops = child(ts, "Iops").ok_or_else(no_buckets)?;
        let mut all: Vec<u64> = ps.block_sizes.iter().map(|(_, b)| *b).collect();
        all.dedup();
        let [bs] = all[..] else {
            return Err(ImportError::whole(
                name,
                "DiskSPD recorded IOPS per interval only as a total over targets of different \
                 block sizes: the bytes cannot be told apart",
            ));
        };
        sizes.push(bs);
        for (ms, r, w) in buckets(&doc, name, iops)? {
            by_ms.insert(ms.round() as u64, (r * bs as f64, w * bs as f64, r, w));
        }
    }
    if by_ms.is_empty() {
        return Err(no_buckets());
    }
    if targets > 1 {
        notes.push(format!(
            "{name}: the IOPS of {targets} thread targets were summed per interval"
        ));
    }
    if spans.len() > 1 {
        notes.push(format!(
            "{name}: the result holds {} time spans; the timeline is the {} (the first with \
             per-interval IOPS)",
            spans.len(),
            ordinal(k + 1)
        ));
    }
    let dt = ps.bucket_ms / 1000.0;
    if dt <= 0.0 {
        return Err(ImportError::whole(name, "IoBucketDuration is 0"));
    }
    let points: Vec<(f64, f64, f64)> = by_ms
        .iter()
        .map(|(&ms, &(_, w, _, _))| (ms as f64 / 1000.0, dt, w))
        .collect();
    let mut t = Timeline::from_rates(&points, RunMeta::default());
    let any_reads = by_ms.values().any(|v| v.0 > 0.0);
    let mut read_exact = 0.0f64;
    let mut read_total = 0u64;
    for (s, (_, &(r, _, r_iops, w_iops))) in t.samples.iter_mut().zip(&by_ms) {
        s.iops = w_iops;
        if any_reads {
            read_exact += r * dt;
            let total = read_exact.round() as u64;
            s.read = Some(ReadStats {
                bytes: total - read_total,
                iops: r_iops,
                ..ReadStats::default()
            });
            read_total = total;
        }
    }
    let wrote = t.bytes_total() > 0;
    if ps.warmup_s > 0.0 && wrote {
        notes.push(format!(
            "{name}: DiskSPD wrote for a {} s warm-up (-W) before it counted: the timeline \
             starts after it, so a cache size here leaves out what the warm-up wrote; run with \
             -W0 to measure from the first write",
            ps.warmup_s
        ));
    }
    sizes.sort_unstable();
    sizes.dedup();
    t.meta.workload = Workload {
        pattern: "diskspd".to_string(),
        block_size: (sizes.len() == 1).then(|| sizes[0]),
        interval_s: Some(dt),
        engine: Some("diskspd".to_string()),
        span_bytes: if targets == 1 {
            file_size.filter(|&f| f > 0)
        } else {
            None
        },
        ..Workload::default()
    };
    Ok(t)
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}
