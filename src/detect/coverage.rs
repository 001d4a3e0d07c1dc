//! How much of the span a run wrote, and what that lets it say of the speed after the last
//! cliff ([`Coverage`]).

use super::{Analysis, Coverage, LATER_TIER_SHARE};
use crate::timeline::Timeline;

/// The coverage of a run whose metadata names its span; `None` for imported logs and runs
/// that only read.
pub fn coverage(t: &Timeline, a: &Analysis) -> Option<Coverage> {
    let span = t.meta.workload.span_bytes.filter(|&s| s > 0)?;
    if a.read_only || t.samples.is_empty() {
        return None;
    }
    let bytes = t.bytes_total();
    let whole = bytes >= span;
    let last = a.cliffs.last();
    let after = last.map(|c| {
        let b = bytes.saturating_sub(c.bytes_written);
        let dt = t.duration_s() - c.t_s;
        (b, if dt > 0.0 { b as f64 / dt } else { 0.0 })
    });
    // The time the first pass over the span took: inside the sample that reached it.
    // A first sample that went past the end of the first pass (the writes wrapped inside it)
    // did not measure that pass apart from the rest: no rate is given for it.
    let whole_fill = if whole && t.samples[0].bytes_total <= span {
        let mut before = (t.samples[0].t_start_s(), 0u64);
        let mut at = t.duration_s();
        for s in &t.samples {
            if s.bytes_total >= span {
                let share = if s.bytes > 0 {
                    (span - before.1) as f64 / s.bytes as f64
                } else {
                    1.0
                };
                at = before.0 + share * (s.t_s - before.0);
                break;
            }
            before = (s.t_s, s.bytes_total);
        }
        let t0 = t.samples[0].t_start_s();
        (at > t0).then(|| span as f64 / (at - t0))
    } else {
        None
    };
    // A level after the last cliff that is thermal throttling to the end of the run is no
    // tier that may end later: the heat's own rate. `simulate p5-1tb,heat=1` took the heat's
    // drop at 12.8 s for the cliff, and asked for `--cliffs 2` to measure the "tier" after it,
    // 1000 MB/s of throttling (the thermal warning says to cool the drive and run again).
    // (Every phase after it: the cache running out under the heat leaves two throttled
    // levels, `simulate 'a2000-1tb,heat=0.3' --interval 10s`, 1035 and then 240 MB/s, and
    // "1035 MB/s ... a later, slower tier may follow" was said of the first.)
    let heat_after = last.is_some_and(|c| {
        let after: Vec<&super::Phase> = a
            .phases
            .iter()
            .filter(|p| p.start_s >= c.t_s - 1e-9)
            .collect();
        after
            .first()
            .is_some_and(|p| (p.start_s - c.t_s).abs() < 1e-9)
            && after.iter().all(|p| p.stall || super::is_throttled(a, p))
    });
    let later = !whole
        && !heat_after
        && match (a.in_cache_floor(), last) {
            (Some(f), Some(l)) => l.after_bytes_per_sec >= LATER_TIER_SHARE * f,
            _ => false,
        };
    // The target's capacity is a drive's, or a regular file's size: "the whole drive" of a
    // file would be wrong.
    // A span of the whole target rounded down to whole blocks (a 268,000,000-byte file
    // written in 1 MiB blocks) is still the whole target.
    let grain = t.meta.workload.block_size.unwrap_or(0).max(1 << 20);
    let capacity = t.meta.device.capacity_bytes;
    let whole_target = capacity.is_some_and(|cap| cap >= span && cap - span < grain);
    let is_file = t.meta.device.kind == "file";
    Some(Coverage {
        bytes_written: bytes,
        span_bytes: span,
        span_is_drive: whole_target && !is_file,
        span_is_file: whole_target && is_file,
        target_bytes: capacity.filter(|&cap| whole_target && cap != span),
        whole_span: whole,
        stopped_early: matches!(
            t.meta.stop_reason,
            Some(
                crate::timeline::StopReason::CliffConfirmed
                    | crate::timeline::StopReason::FirstSampleDrop
            )
        ),
        bytes_after_last_cliff: after.map(|x| x.0),
        after_last_cliff_bytes_per_sec: after.map(|x| x.1),
        whole_fill_bytes_per_sec: whole_fill,
        later_tier_possible: later,
        cliffs_asked: t.meta.workload.cliffs_asked.filter(|&n| n > 1),
        prefill_pct: t.meta.workload.prefill_pct.filter(|&p| p > 0.0),
    })
}
