//! A bounded timeline: the samples a command keeps for its final analysis, its charts and its
//! report, in memory that stops growing however long the run.
//!
//! [`Kept`] holds the samples themselves while there are fewer than its limit ([`MAX_KEPT`]
//! for a run's own analysis, [`crate::detect::stop::MAX_VIEW`] for the early-stop rule's
//! view). When it holds that many, neighbours merge in pairs ([`merge_sample`]: bytes and
//! time summed, rates weighted by time, the worse latency, the hotter temperature) and the
//! group size doubles; later samples are merged into groups of that size as they arrive.
//! Each kept sample also keeps the lowest and the highest `bytes_per_sec` of the samples
//! merged into it (its envelope), which the throughput charts draw. `timeline.csv` is written
//! row by row as samples come and always has every sample; the kept timeline says how far it
//! was merged ([`Resolution`], in [`super::RunMeta::resolution`]).

use serde::{Deserialize, Serialize};

use super::{RunMeta, Sample, Timeline};

/// Most samples a run keeps for its analysis (2^18: 3 days at 1 s, 7 hours at 100 ms); runs
/// up to this many samples keep every sample and are analysed and drawn from all of them.
pub const MAX_KEPT: usize = 1 << 18;

/// How far a kept timeline was merged: present only when samples were merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// Samples in the run (rows of `timeline.csv`).
    pub samples: u64,
    /// Samples kept and analysed.
    pub kept_samples: usize,
    /// How many samples of the run each kept sample merges (a power of two; the newest kept
    /// sample may merge fewer).
    pub merged_by: usize,
    /// The median length of a kept sample, seconds: the resolution the analysis sees.
    pub resolution_s: f64,
    /// The mean length of a sample of the run, seconds.
    pub sample_interval_s: f64,
    /// The lowest and the highest `bytes_per_sec` of the run's samples merged into each kept
    /// sample, in the order of the kept samples (not written to `summary.json`).
    #[serde(skip)]
    pub envelope: Vec<(f64, f64)>,
}

impl Resolution {
    /// One sentence for the reports and the terminal, e.g. "analysed at 4.0 s resolution:
    /// 1.05 M samples of 1.0 s merged by 4; timeline.csv has every sample".
    pub fn sentence(&self) -> String {
        format!(
            "analysed at {} resolution: {} samples of {} merged by {}; timeline.csv has every \
             sample",
            seconds_text(self.resolution_s),
            count_text(self.samples),
            seconds_text(self.sample_interval_s),
            self.merged_by
        )
    }
}

fn seconds_text(s: f64) -> String {
    if s >= 0.9995 {
        format!("{s:.1} s")
    } else {
        format!("{:.0} ms", s * 1e3)
    }
}

fn count_text(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.2} M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1} k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// The group still filling: the merged sample, how many samples it holds, and their envelope.
#[derive(Debug, Clone)]
struct Filling {
    acc: Sample,
    n: usize,
    env: (f64, f64),
}

/// A timeline kept in bounded memory (see the module documentation). Push samples in time
/// order.
#[derive(Debug, Clone)]
pub struct Kept {
    limit: usize,
    /// Whole groups, merged.
    whole: Timeline,
    /// The envelope of each whole group.
    env: Vec<(f64, f64)>,
    group: usize,
    filling: Option<Filling>,
    pushed: u64,
    /// Sum of the pushed samples' lengths (for the run's mean interval).
    interval_sum: f64,
}

impl Default for Kept {
    fn default() -> Self {
        Kept::with_limit(MAX_KEPT)
    }
}

impl Kept {
    /// An empty timeline that keeps at most `limit` whole groups (at least 2) and the group
    /// still filling.
    pub fn with_limit(limit: usize) -> Kept {
        Kept {
            limit: limit.max(2),
            whole: Timeline::default(),
            env: Vec::new(),
            group: 1,
            filling: None,
            pushed: 0,
            interval_sum: 0.0,
        }
    }

    /// The limit a run's own timeline keeps: [`MAX_KEPT`], or the hidden environment variable
    /// `SLCCACHE_MAX_KEPT` when set to a number of 2 or more (for tests and benchmarks of
    /// long runs; not a user setting).
    pub fn for_run() -> Kept {
        let limit = std::env::var("SLCCACHE_MAX_KEPT")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| *n >= 2)
            .unwrap_or(MAX_KEPT);
        Kept::with_limit(limit)
    }

    /// Adds one sample (the one after the last pushed).
    pub fn push(&mut self, s: &Sample) {
        self.pushed += 1;
        self.interval_sum += s.interval_s.max(0.0);
        let f = match self.filling.take() {
            None => Filling {
                acc: s.clone(),
                n: 1,
                env: (s.bytes_per_sec, s.bytes_per_sec),
            },
            Some(mut f) => {
                merge_sample(&mut f.acc, s);
                f.n += 1;
                f.env = (f.env.0.min(s.bytes_per_sec), f.env.1.max(s.bytes_per_sec));
                f
            }
        };
        if f.n < self.group {
            self.filling = Some(f);
            return;
        }
        self.whole.samples.push(f.acc);
        self.env.push(f.env);
        if self.whole.samples.len() >= self.limit {
            halve(&mut self.whole.samples, &mut self.env);
            self.group *= 2;
        }
    }

    /// Samples kept now (whole groups and the one filling): never more than the limit.
    pub fn len(&self) -> usize {
        self.whole.samples.len() + usize::from(self.filling.is_some())
    }

    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// The most whole groups kept before neighbours merge.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Samples pushed.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// How many pushed samples each whole group merges (1: none merged).
    pub fn group(&self) -> usize {
        self.group
    }

    /// The kept samples, whole groups first and the one filling last, as a slice of the
    /// timeline given to `f` (the filling group is added for the call and taken off after).
    pub fn with_timeline<R>(&mut self, f: impl FnOnce(&Timeline) -> R) -> R {
        let Some(fill) = &self.filling else {
            return f(&self.whole);
        };
        self.whole.samples.push(fill.acc.clone());
        let r = f(&self.whole);
        self.whole.samples.pop();
        r
    }

    /// The kept samples and their envelope (whole groups and the one filling).
    pub fn into_parts(mut self) -> (Vec<Sample>, Vec<(f64, f64)>) {
        if let Some(f) = self.filling.take() {
            self.whole.samples.push(f.acc);
            self.env.push(f.env);
        }
        (self.whole.samples, self.env)
    }

    /// The kept timeline with `meta`; when samples were merged, `meta.resolution` says how
    /// far (else it is `None`).
    pub fn into_timeline(self, meta: RunMeta) -> Timeline {
        let (pushed, group, sum) = (self.pushed, self.group, self.interval_sum);
        let (samples, env) = self.into_parts();
        let mut t = Timeline { samples, meta };
        t.meta.resolution = (group > 1).then(|| Resolution {
            samples: pushed,
            kept_samples: t.samples.len(),
            merged_by: group,
            resolution_s: t.interval_s(),
            sample_interval_s: if pushed > 0 { sum / pushed as f64 } else { 0.0 },
            envelope: env,
        });
        t
    }
}

/// Merges neighbours in pairs (a last odd sample stays alone), each pair's envelope the
/// lower of their lows and the higher of their highs: half as many samples, each twice as long.
fn halve(samples: &mut Vec<Sample>, env: &mut Vec<(f64, f64)>) {
    let old = std::mem::take(samples);
    let old_env = std::mem::take(env);
    let mut it = old.into_iter().zip(old_env);
    while let Some((mut a, mut ea)) = it.next() {
        if let Some((b, eb)) = it.next() {
            merge_sample(&mut a, &b);
            ea = (ea.0.min(eb.0), ea.1.max(eb.1));
        }
        samples.push(a);
        env.push(ea);
    }
}

/// `t` merged further, neighbours in pairs, until it holds at most `limit` samples (at least
/// 2), for what is kept after the analysis: the charts of an experiment that holds many
/// bursts at once. Bytes, time and totals stay; each kept sample keeps the lowest and the
/// highest rate of the run's samples merged into it (from `t`'s envelope when `t` was
/// merged already), and `meta.resolution` counts from the run's own samples. A timeline of
/// at most `limit` samples is returned as it is.
pub fn thinned(t: Timeline, limit: usize) -> Timeline {
    let limit = limit.max(2);
    if t.samples.len() <= limit {
        return t;
    }
    let Timeline {
        mut samples,
        mut meta,
    } = t;
    let (run_samples, merged_by, sample_interval_s, mut env) = match meta.resolution.take() {
        Some(r) => (r.samples, r.merged_by, r.sample_interval_s, r.envelope),
        None => {
            let time: f64 = samples.iter().map(|s| s.interval_s.max(0.0)).sum();
            (
                samples.len() as u64,
                1,
                time / samples.len() as f64,
                Vec::new(),
            )
        }
    };
    if env.len() != samples.len() {
        env = samples
            .iter()
            .map(|s| (s.bytes_per_sec, s.bytes_per_sec))
            .collect();
    }
    let mut group = 1;
    while samples.len() > limit {
        halve(&mut samples, &mut env);
        group *= 2;
    }
    let mut out = Timeline { samples, meta };
    out.meta.resolution = Some(Resolution {
        samples: run_samples,
        kept_samples: out.samples.len(),
        merged_by: merged_by * group,
        resolution_s: out.interval_s(),
        sample_interval_s,
        envelope: env,
    });
    out
}

/// Merges `b`, the sample right after `a`, into `a`: one sample for both intervals (bytes and
/// time summed, rates and shares weighted by time, the worse latency and the hotter
/// temperature, the later counters).
pub fn merge_sample(a: &mut Sample, b: &Sample) {
    let (ta, tb) = (a.interval_s.max(0.0), b.interval_s.max(0.0));
    let t = ta + tb;
    let mean = |x: f64, y: f64| {
        if t > 0.0 {
            (x * ta + y * tb) / t
        } else {
            0.5 * (x + y)
        }
    };
    let opt = |x: Option<f64>, y: Option<f64>, f: &dyn Fn(f64, f64) -> f64| match (x, y) {
        (Some(x), Some(y)) => Some(f(x, y)),
        (x, y) => x.or(y),
    };
    a.t_s = b.t_s;
    a.interval_s = t;
    a.bytes += b.bytes;
    a.bytes_total = b.bytes_total;
    a.bytes_per_sec = if t > 0.0 { a.bytes as f64 / t } else { 0.0 };
    a.iops = mean(a.iops, b.iops);
    a.lat_p50_us = opt(a.lat_p50_us, b.lat_p50_us, &mean);
    a.lat_p99_us = opt(a.lat_p99_us, b.lat_p99_us, &f64::max);
    a.lat_max_us = opt(a.lat_max_us, b.lat_max_us, &f64::max);
    a.temp_c = opt(a.temp_c, b.temp_c, &f64::max);
    a.thermal_transitions = b.thermal_transitions.or(a.thermal_transitions);
    a.cpu_pct = opt(a.cpu_pct, b.cpu_pct, &mean);
    a.cpu_wait_pct = opt(a.cpu_wait_pct, b.cpu_wait_pct, &mean);
    a.read = match (a.read.take(), &b.read) {
        (Some(mut x), Some(y)) => {
            x.bytes += y.bytes;
            x.iops = mean(x.iops, y.iops);
            x.lat_p50_us = opt(x.lat_p50_us, y.lat_p50_us, &mean);
            x.lat_p99_us = opt(x.lat_p99_us, y.lat_p99_us, &f64::max);
            x.lat_max_us = opt(x.lat_max_us, y.lat_max_us, &f64::max);
            Some(x)
        }
        (x, y) => x.or_else(|| y.clone()),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic run: a rate that changes every sample, a running total, a clock.
    fn samples(n: usize) -> impl Iterator<Item = Sample> {
        let mut total = 0u64;
        (0..n).map(move |i| {
            let bytes = 1000 + (i as u64 * 7919) % 5000;
            total += bytes;
            Sample {
                t_s: (i + 1) as f64,
                interval_s: 1.0,
                bytes,
                bytes_total: total,
                bytes_per_sec: bytes as f64,
                iops: bytes as f64 / 100.0,
                ..Sample::default()
            }
        })
    }

    /// However many samples are pushed, the kept timeline never holds more than
    /// the limit plus the group filling, and bytes, time and totals are what was pushed.
    #[test]
    fn a_million_samples_keep_a_bounded_timeline() {
        let mut k = Kept::default();
        let (mut most, mut bytes, mut time) = (0, 0u64, 0f64);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut last_total = 0;
        for s in samples(1_000_000) {
            bytes += s.bytes;
            time += s.interval_s;
            lo = lo.min(s.bytes_per_sec);
            hi = hi.max(s.bytes_per_sec);
            last_total = s.bytes_total;
            k.push(&s);
            most = most.max(k.len());
        }
        assert!(most <= MAX_KEPT + 1, "held {most}");
        assert_eq!(k.pushed(), 1_000_000);
        assert_eq!(k.group(), 4);
        let t = k.into_timeline(RunMeta::default());
        assert!(t.samples.len() <= MAX_KEPT + 1);
        assert_eq!(t.samples.iter().map(|s| s.bytes).sum::<u64>(), bytes);
        assert_eq!(t.bytes_total(), last_total);
        let kept_time: f64 = t.samples.iter().map(|s| s.interval_s).sum();
        assert!((kept_time - time).abs() < 1e-6, "{kept_time} {time}");
        assert_eq!(t.duration_s(), 1_000_000.0);
        // Every kept sample's rate is its bytes over its time.
        for s in &t.samples {
            assert!((s.bytes_per_sec - s.bytes as f64 / s.interval_s).abs() < 1e-6);
        }
        let r = t.meta.resolution.as_ref().expect("merged");
        assert_eq!(r.samples, 1_000_000);
        assert_eq!(r.merged_by, 4);
        assert_eq!(r.kept_samples, t.samples.len());
        assert_eq!(r.resolution_s, 4.0);
        assert_eq!(r.envelope.len(), t.samples.len());
        // The envelope holds the true extremes, and each kept rate lies inside its own.
        let env_lo = r.envelope.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
        let env_hi = r
            .envelope
            .iter()
            .map(|e| e.1)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((env_lo, env_hi), (lo, hi));
        for (s, e) in t.samples.iter().zip(&r.envelope) {
            assert!(e.0 <= s.bytes_per_sec + 1e-9 && s.bytes_per_sec <= e.1 + 1e-9);
        }
        assert!(r
            .sentence()
            .starts_with("analysed at 4.0 s resolution: 1.00 M samples of 1.0 s merged by 4"));
    }

    /// The envelope of each kept sample is the min and max of exactly the samples merged
    /// into it.
    #[test]
    fn each_envelope_is_its_groups_min_and_max() {
        let input: Vec<Sample> = samples(1000).collect();
        let mut k = Kept::with_limit(64);
        for s in &input {
            k.push(s);
        }
        let g = k.group();
        assert_eq!(g, 16);
        let (kept, env) = k.into_parts();
        for (i, (s, e)) in kept.iter().zip(&env).enumerate() {
            let part = &input[i * g..((i + 1) * g).min(input.len())];
            let lo = part
                .iter()
                .map(|s| s.bytes_per_sec)
                .fold(f64::INFINITY, f64::min);
            let hi = part.iter().map(|s| s.bytes_per_sec).fold(0.0, f64::max);
            assert_eq!(*e, (lo, hi), "kept sample {i}");
            assert_eq!(s.t_s, part.last().unwrap().t_s);
            assert_eq!(s.bytes, part.iter().map(|s| s.bytes).sum::<u64>());
        }
    }

    /// Below the limit the kept timeline is the input itself, and says nothing of merging.
    #[test]
    fn below_the_limit_every_sample_is_kept_as_it_is() {
        let input: Vec<Sample> = samples(5000).collect();
        let mut k = Kept::with_limit(5001);
        for s in &input {
            k.push(s);
        }
        let t = k.into_timeline(RunMeta::default());
        assert_eq!(t.samples, input);
        assert!(t.meta.resolution.is_none());
    }

    /// Thinning a kept timeline (merged or not) to a limit keeps bytes, time, totals and the
    /// run's extremes, and counts its resolution from the run's own samples.
    #[test]
    fn thinning_keeps_totals_and_the_envelope_of_the_run() {
        let all: Vec<Sample> = samples(10_000).collect();
        let lo = all
            .iter()
            .map(|s| s.bytes_per_sec)
            .fold(f64::INFINITY, f64::min);
        let hi = all.iter().map(|s| s.bytes_per_sec).fold(0.0, f64::max);
        for first_limit in [MAX_KEPT, 3000] {
            let mut k = Kept::with_limit(first_limit);
            all.iter().for_each(|s| k.push(s));
            let before = k.into_timeline(RunMeta::default());
            let t = thinned(before.clone(), 1000);
            assert!(t.samples.len() <= 1000, "{}", t.samples.len());
            assert_eq!(t.bytes_total(), before.bytes_total());
            assert_eq!(t.duration_s(), before.duration_s());
            let sum: u64 = t.samples.iter().map(|s| s.bytes).sum();
            assert_eq!(sum, all.iter().map(|s| s.bytes).sum::<u64>());
            let r = t.meta.resolution.as_ref().unwrap();
            assert_eq!(r.samples, 10_000);
            assert_eq!(r.kept_samples, t.samples.len());
            assert_eq!(r.merged_by, 16);
            assert!((r.sample_interval_s - 1.0).abs() < 1e-12);
            assert_eq!(r.envelope.len(), t.samples.len());
            let elo = r.envelope.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
            let ehi = r.envelope.iter().map(|e| e.1).fold(0.0, f64::max);
            assert_eq!((elo, ehi), (lo, hi));
            for (s, e) in t.samples.iter().zip(&r.envelope) {
                assert!(e.0 <= s.bytes_per_sec && s.bytes_per_sec <= e.1);
            }
        }
        // Under the limit: as it was.
        let mut k = Kept::default();
        all.iter().take(500).for_each(|s| k.push(s));
        let t = k.into_timeline(RunMeta::default());
        assert_eq!(thinned(t.clone(), 1000).samples, t.samples);
    }
}
