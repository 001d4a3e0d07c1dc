//! Synthetic throughput traces with known truth, for tests and benchmarks.
//!
//! Pure and seeded: the same seed gives the same trace. A trace is simulated in fine time
//! steps (1/20 of the sampling interval): the drive writes at its phase's level times a slow
//! drift, a garbage-collection dip factor where one is active, and a per-sample noise factor
//! (Gaussian or heavy-tailed, on the log scale). A phase ends at an exact byte count, so the
//! truth is the number of bytes written before each drop.

use crate::timeline::{RunMeta, Sample, StopReason, Timeline, Workload};

/// Levels of one published drive, in bytes and bytes/s.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveLevels {
    /// Drive and capacity, for messages.
    pub name: String,
    /// Cache size in bytes (the measured cliff where known, else the stated cache).
    pub cache_bytes: f64,
    /// Write speed inside the cache, bytes/s.
    pub in_cache_bps: f64,
    /// Write speed after the cache, bytes/s.
    pub post_cache_bps: f64,
    /// A third, slower phase, where the source gives one, bytes/s.
    pub folding_bps: Option<f64>,
}

/// The first number in a messy table cell ("~1350 (330K IOPS)", ">2000", "13-14 (measured)").
fn first_number(cell: &str) -> Option<f64> {
    let b = cell.as_bytes();
    let start = b.iter().position(|c| c.is_ascii_digit())?;
    let end = b[start..]
        .iter()
        .position(|c| !(c.is_ascii_digit() || *c == b'.'))
        .map(|e| start + e)
        .unwrap_or(b.len());
    cell[start..end].parse().ok()
}

/// Parses `published-drives.csv`: the drives with a cache size, an in-cache and a post-cache
/// speed, where the post-cache speed is at least 10% below the in-cache speed. Text in, no I/O.
pub fn parse_published_drives(text: &str) -> Vec<DriveLevels> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = match rdr.headers() {
        Ok(h) => h.clone(),
        Err(_) => return vec![],
    };
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(c_drive), Some(c_cap), Some(c_cliff), Some(c_total), Some(c_in), Some(c_post)) = (
        col("drive"),
        col("capacity"),
        col("cliff_at_GB_written_measured"),
        col("slc_total_or_dynamic_GB"),
        col("in_cache_write_MBps"),
        col("post_cache_write_MBps"),
    ) else {
        return vec![];
    };
    let c_fold = col("folding_or_later_phase_MBps");
    let mut out = Vec::new();
    for rec in rdr.records().flatten() {
        let get = |c: usize| rec.get(c).unwrap_or("");
        let cache_gb = first_number(get(c_cliff)).or_else(|| first_number(get(c_total)));
        let (Some(gb), Some(inc), Some(post)) =
            (cache_gb, first_number(get(c_in)), first_number(get(c_post)))
        else {
            continue;
        };
        if gb <= 0.0 || inc <= 0.0 || post <= 0.0 || post > 0.9 * inc {
            continue;
        }
        let folding = c_fold
            .and_then(|c| first_number(get(c)))
            .filter(|&f| f > 0.0 && f < 0.9 * post)
            .map(|f| f * 1e6);
        out.push(DriveLevels {
            name: format!("{} {}", get(c_drive), get(c_cap)),
            cache_bytes: gb * 1e9,
            in_cache_bps: inc * 1e6,
            post_cache_bps: post * 1e6,
            folding_bps: folding,
        });
    }
    out
}

/// One phase of a synthetic drive: its level and where it ends.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSpec {
    /// Throughput, bytes/s.
    pub bps: f64,
    /// Total bytes written when this phase ends (`None`: it lasts to the end of the run).
    pub end_bytes: Option<f64>,
    /// Relative drift of the level from the start to the end of the phase (0.03 = +3%).
    pub drift: f64,
    /// Noise scale (standard deviation of ln throughput per sample).
    pub noise: f64,
}

/// Everything that defines one synthetic trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    /// Phases in order.
    pub phases: Vec<PhaseSpec>,
    /// Sampling interval, seconds.
    pub interval_s: f64,
    /// Length of the run, seconds.
    pub duration_s: f64,
    /// Heavy-tailed (Student-t, 3 degrees of freedom) noise instead of Gaussian.
    pub heavy_tails: bool,
    /// Garbage-collection dips: (start s, length s, throughput factor).
    pub dips: Vec<(f64, f64, f64)>,
}

/// What the detector should find in a synthetic trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    /// Bytes written before each drop that happened within the run (the first is the cache).
    pub drop_bytes: Vec<f64>,
    /// Times of those drops, seconds.
    pub drop_times: Vec<f64>,
}

fn gauss(rng: &mut fastrand::Rng) -> f64 {
    // Box-Muller.
    let u1 = rng.f64().max(1e-300);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Student-t with 3 degrees of freedom, scaled to unit standard deviation... almost: the
/// variance of t(3) is 3, so it is divided by sqrt(3).
fn student3(rng: &mut fastrand::Rng) -> f64 {
    let z = gauss(rng);
    let chi2: f64 = (0..3).map(|_| gauss(rng).powi(2)).sum();
    z / (chi2 / 3.0).sqrt() / 3f64.sqrt()
}

/// Simulates a trace; `seed` drives the noise.
pub fn simulate(spec: &TraceSpec, seed: u64) -> (Timeline, Truth) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let n = (spec.duration_s / spec.interval_s + 1e-9).floor().max(1.0) as usize;
    const SUB: usize = 20;
    let h = spec.interval_s / SUB as f64;
    let mut phase = 0usize;
    let mut phase_t0 = 0.0f64;
    let mut written = 0.0f64;
    let mut truth = Truth {
        drop_bytes: vec![],
        drop_times: vec![],
    };
    let mut samples = Vec::with_capacity(n);
    let mut total: u64 = 0;
    // Expected phase length in seconds, for the drift (a phase drifts over its own length).
    let phase_len = |p: usize, start_bytes: f64| -> f64 {
        match spec.phases[p].end_bytes {
            Some(e) => ((e - start_bytes) / spec.phases[p].bps).max(1.0),
            None => spec.duration_s.max(1.0),
        }
    };
    let mut cur_len = phase_len(0, 0.0);
    let mut dips = spec.dips.clone();
    dips.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut first_dip = 0usize;
    for i in 0..n {
        let t_start = i as f64 * spec.interval_s;
        let eps = if spec.heavy_tails {
            student3(&mut rng)
        } else {
            gauss(&mut rng)
        };
        for k in 0..SUB {
            let mut t = t_start + k as f64 * h;
            let t_stop = t + h;
            while t < t_stop - 1e-12 {
                let p = &spec.phases[phase];
                let drift = 1.0 + p.drift * ((t - phase_t0) / cur_len).min(1.5);
                while first_dip < dips.len() && dips[first_dip].0 + dips[first_dip].1 <= t {
                    first_dip += 1;
                }
                let dip = dips[first_dip..]
                    .iter()
                    .take_while(|d| d.0 <= t)
                    .filter(|d| t < d.0 + d.1)
                    .map(|d| d.2)
                    .fold(1.0, f64::min);
                let rate = p.bps * drift * dip * (p.noise * eps).exp();
                let step = t_stop - t;
                match p.end_bytes {
                    Some(end) if written + rate * step >= end => {
                        let dt = (end - written) / rate;
                        written = end;
                        t += dt;
                        if phase + 1 < spec.phases.len() {
                            if spec.phases[phase + 1].bps < p.bps {
                                truth.drop_bytes.push(end);
                                truth.drop_times.push(t);
                            }
                            phase += 1;
                            phase_t0 = t;
                            cur_len = phase_len(phase, end);
                        } else {
                            t = t_stop;
                        }
                    }
                    _ => {
                        written += rate * step;
                        t = t_stop;
                    }
                }
            }
        }
        let new_total = written.round() as u64;
        let b = new_total - total;
        total = new_total;
        samples.push(Sample::written(
            t_start + spec.interval_s,
            spec.interval_s,
            b,
            total,
            b as f64 / spec.interval_s,
        ));
    }
    let meta = RunMeta {
        label: "synthetic".to_string(),
        workload: Workload {
            pattern: "synthetic".to_string(),
            interval_s: Some(spec.interval_s),
            engine: Some("synthetic".to_string()),
            ..Workload::default()
        },
        stop_reason: Some(StopReason::EndOfData),
        ..RunMeta::default()
    };
    (Timeline { samples, meta }, truth)
}

/// Draws a two-phase trace whose cache phase touches only 2 to 12 samples at the start (the
/// last one straddling the drop), from published drive levels: 1 s or 100 ms sampling, GC dips
/// of 0.3-3 s, drift after the cache, Gaussian or heavy-tailed noise.
pub fn short_start_spec(drives: &[DriveLevels], rng: &mut fastrand::Rng) -> TraceSpec {
    let d = &drives[rng.usize(..drives.len())];
    let interval_s = if rng.bool() { 1.0 } else { 0.1 };
    let a = d.in_cache_bps * (0.95 + 0.1 * rng.f64());
    let b = (d.post_cache_bps * (0.95 + 0.1 * rng.f64())).min(0.85 * a);
    let k = rng.usize(2..=12) as f64;
    let cache = a * interval_s * (k - 1.0 + rng.f64().max(0.05));
    let duration_s = cache / a + 10.0 + 60.0 * rng.f64();
    let mut dips = Vec::new();
    let mut t = 0.0;
    let gap = 15.0 + 25.0 * rng.f64();
    loop {
        t += -gap * rng.f64().max(1e-12).ln();
        if t >= duration_s {
            break;
        }
        dips.push((t, 0.3 + 2.7 * rng.f64(), 0.2 + 0.5 * rng.f64()));
    }
    TraceSpec {
        phases: vec![
            PhaseSpec {
                bps: a,
                end_bytes: Some(cache),
                drift: 0.0,
                noise: 0.003 + 0.027 * rng.f64(),
            },
            PhaseSpec {
                bps: b,
                end_bytes: None,
                drift: 0.08 * rng.f64() - 0.04,
                noise: 0.01 + 0.05 * rng.f64(),
            },
        ],
        interval_s,
        duration_s,
        heavy_tails: rng.bool(),
        dips,
    }
}

/// Draws a random trace spec from published drive levels: two- or three-phase drives, runs
/// that end before the cliff, drives with no cache at all; 1 s or 100 ms sampling; Gaussian or
/// heavy-tailed noise; GC dips of 0.3-3 s; slow drift within phases.
pub fn random_spec(drives: &[DriveLevels], rng: &mut fastrand::Rng) -> TraceSpec {
    let d = &drives[rng.usize(..drives.len())];
    let interval_s = if rng.bool() { 1.0 } else { 0.1 };
    let jitter = |rng: &mut fastrand::Rng, lo: f64, hi: f64| lo + (hi - lo) * rng.f64();
    let cache = d.cache_bytes * jitter(rng, 0.9, 1.1);
    let a = d.in_cache_bps * jitter(rng, 0.95, 1.05);
    // Jitter the levels, keeping every drop at least 15% (the detector ignores steps under
    // about 10% by design).
    let b = (d.post_cache_bps * jitter(rng, 0.95, 1.05)).min(0.85 * a);
    let cache_s = cache / a;
    let mut phases = Vec::new();
    let drift = |rng: &mut fastrand::Rng| jitter(rng, -0.04, 0.04);
    let kind = rng.u32(0..100);
    let duration_s;
    if kind < 12 {
        // The run ends inside the cache.
        phases.push(PhaseSpec {
            bps: a,
            end_bytes: Some(cache),
            drift: drift(rng),
            noise: jitter(rng, 0.003, 0.03),
        });
        phases.push(PhaseSpec {
            bps: b,
            end_bytes: None,
            drift: drift(rng),
            noise: jitter(rng, 0.01, 0.06),
        });
        duration_s = (cache_s * jitter(rng, 0.4, 0.9))
            .max(15.0)
            .min(cache_s * 0.95);
    } else if kind < 20 {
        // No cache: one level throughout.
        phases.push(PhaseSpec {
            bps: b,
            end_bytes: None,
            drift: drift(rng),
            noise: jitter(rng, 0.01, 0.06),
        });
        duration_s = jitter(rng, 30.0, 200.0);
    } else {
        phases.push(PhaseSpec {
            bps: a,
            end_bytes: Some(cache),
            drift: drift(rng),
            noise: jitter(rng, 0.003, 0.03),
        });
        let three = kind >= 70;
        if three {
            let f = d
                .folding_bps
                .unwrap_or_else(|| b * jitter(rng, 0.1, 0.6))
                .min(0.85 * b);
            let second = cache + b * jitter(rng, 20.0, 120.0);
            phases.push(PhaseSpec {
                bps: b,
                end_bytes: Some(second),
                drift: drift(rng),
                noise: jitter(rng, 0.01, 0.06),
            });
            phases.push(PhaseSpec {
                bps: f,
                end_bytes: None,
                drift: drift(rng),
                noise: jitter(rng, 0.01, 0.06),
            });
            duration_s = cache_s + (second - cache) / b + jitter(rng, 20.0, 120.0);
        } else {
            phases.push(PhaseSpec {
                bps: b,
                end_bytes: None,
                drift: drift(rng),
                noise: jitter(rng, 0.01, 0.06),
            });
            duration_s = cache_s + jitter(rng, 20.0, 150.0).max(0.3 * cache_s);
        }
    }
    // GC dips: on average one per 25 s, 0.3-3 s long, throughput down to 20-70%.
    let mut dips = Vec::new();
    let mut t = 0.0;
    let mean_gap = jitter(rng, 15.0, 40.0);
    loop {
        t += -mean_gap * rng.f64().max(1e-12).ln();
        if t >= duration_s {
            break;
        }
        dips.push((t, jitter(rng, 0.3, 3.0), jitter(rng, 0.2, 0.7)));
    }
    TraceSpec {
        phases,
        interval_s,
        duration_s,
        heavy_tails: rng.bool(),
        dips,
    }
}

/// A two-phase trace of `n` samples at `interval_s`: the cache ends at 30% of the run, 3 GB/s
/// then 1 GB/s, 2% Gaussian noise, a 1.5 s GC dip every 25 s. For benchmarks.
pub fn two_phase(n: usize, interval_s: f64) -> TraceSpec {
    let duration_s = n as f64 * interval_s;
    let a = 3e9;
    let dips = (0..)
        .map(|k| 10.0 + 25.0 * k as f64)
        .take_while(|&t| t < duration_s)
        .map(|t| (t, 1.5, 0.4))
        .collect();
    TraceSpec {
        phases: vec![
            PhaseSpec {
                bps: a,
                end_bytes: Some(a * 0.3 * duration_s),
                drift: -0.02,
                noise: 0.01,
            },
            PhaseSpec {
                bps: 1e9,
                end_bytes: None,
                drift: 0.02,
                noise: 0.03,
            },
        ],
        interval_s,
        duration_s,
        heavy_tails: false,
        dips,
    }
}

/// One stretch of a trace sampled by data written ([`by_chunks`]): `bytes` written at `bps`,
/// each chunk's rate scattered by `noise` (standard deviation of ln throughput).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    /// Bytes written in this stretch.
    pub bytes: f64,
    /// Throughput, bytes/s.
    pub bps: f64,
    /// Noise scale (standard deviation of ln throughput per chunk).
    pub noise: f64,
}

/// Where the rate of a trace from [`by_chunks`] changed: every fall (as in [`Truth`]) and
/// every rise, in bytes written and seconds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChunkTruth {
    /// Bytes written before each fall.
    pub drop_bytes: Vec<f64>,
    /// Times of the falls, seconds.
    pub drop_times: Vec<f64>,
    /// Bytes written before each rise.
    pub rise_bytes: Vec<f64>,
    /// Times of the rises, seconds.
    pub rise_times: Vec<f64>,
}

impl ChunkTruth {
    /// The falls alone, as a [`Truth`].
    pub fn drops(&self) -> Truth {
        Truth {
            drop_bytes: self.drop_bytes.clone(),
            drop_times: self.drop_times.clone(),
        }
    }
}

/// Simulates a trace sampled once per `chunk_bytes` written (as a reviewer's tool that logs
/// MiB written against MiB/s does): each chunk takes the time its bytes need at the rates of
/// the stretches it covers, each stretch's part scaled by that chunk's noise factor. `seed`
/// drives the noise. The last chunk may be short.
pub fn by_chunks(stretches: &[Stretch], chunk_bytes: f64, seed: u64) -> (Timeline, ChunkTruth) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut truth = ChunkTruth::default();
    let total: f64 = stretches.iter().map(|s| s.bytes).sum();
    // Stretch boundaries, in bytes and (noise-free) order.
    let mut points = Vec::new();
    let (mut written, mut t) = (0.0f64, 0.0f64);
    let mut k = 0usize; // current stretch
    let mut in_k = 0.0f64; // bytes written of stretch k
    while written < total - 0.5 && k < stretches.len() {
        let eps = gauss(&mut rng);
        let want = chunk_bytes.min(total - written);
        let (mut got, mut dt) = (0.0f64, 0.0f64);
        while got < want - 1e-6 && k < stretches.len() {
            let s = stretches[k];
            let rate = s.bps * (s.noise * eps).exp();
            let take = (want - got).min(s.bytes - in_k);
            got += take;
            dt += take / rate;
            in_k += take;
            if in_k >= s.bytes - 1e-6 {
                if let Some(next) = stretches.get(k + 1) {
                    let (b, at) = (written + got, t + dt);
                    if next.bps < s.bps {
                        truth.drop_bytes.push(b);
                        truth.drop_times.push(at);
                    } else if next.bps > s.bps {
                        truth.rise_bytes.push(b);
                        truth.rise_times.push(at);
                    }
                }
                k += 1;
                in_k = 0.0;
            }
        }
        written += got;
        t += dt;
        points.push((t, dt, got / dt));
    }
    let meta = RunMeta {
        label: "synthetic".to_string(),
        workload: Workload {
            pattern: "synthetic".to_string(),
            engine: Some("synthetic".to_string()),
            ..Workload::default()
        },
        stop_reason: Some(StopReason::EndOfData),
        ..RunMeta::default()
    };
    (Timeline::from_rates(&points, meta), truth)
}

/// The reported QLC drive whose cache comes back while it is written (1 TB, PCIe 3.0,
/// 50 GiB written sequentially in 4 MiB blocks at QD1): ~700 MiB/s to 8.4 GiB, ~99 MiB/s
/// (60-160) to 20.2 GiB, ~710 MiB/s to 33.1 GiB, then 60-100 MiB/s with bursts of 0.15 GiB
/// back at ~700 MiB/s about every 1.1 GiB, to 50 GiB. Sample with [`by_chunks`] at 76 MiB.
pub fn cache_returns_qlc() -> Vec<Stretch> {
    const MIB: f64 = 1024.0 * 1024.0;
    const GIB: f64 = 1024.0 * MIB;
    let mut v = vec![
        Stretch {
            bytes: 8.4 * GIB,
            bps: 700.0 * MIB,
            noise: 0.025,
        },
        Stretch {
            bytes: (20.2 - 8.4) * GIB,
            bps: 99.0 * MIB,
            noise: 0.2,
        },
        Stretch {
            bytes: (33.1 - 20.2) * GIB,
            bps: 710.0 * MIB,
            noise: 0.025,
        },
    ];
    let mut at = 33.1 * GIB;
    while at < 50.0 * GIB - 1.0 {
        let low = (1.1 * GIB).min(50.0 * GIB - at);
        v.push(Stretch {
            bytes: low,
            bps: 80.0 * MIB,
            noise: 0.12,
        });
        at += low;
        if at < 50.0 * GIB - 0.15 * GIB {
            v.push(Stretch {
                bytes: 0.15 * GIB,
                bps: 700.0 * MIB,
                noise: 0.025,
            });
            at += 0.15 * GIB;
        }
    }
    v
}

/// A low-contrast cliff inside a sample (a reported shape): 1 s samples at 2000 MB/s with 5%
/// noise until the fall, which lands 40-55% into one sample that reads the straight mix
/// (~1735 MB/s at 47%) give or take 1%; the next sample happens to read 1700 MB/s; then
/// 1500 MB/s with 5% noise for 20 to 260 s. `seed` draws the cliff's sample (5th to 34th),
/// its place in that sample, the length and the noise.
pub fn low_contrast_straddle(seed: u64) -> (Timeline, Truth) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let i = 5 + rng.usize(0..30);
    let f = 0.4 + 0.15 * rng.f64();
    let n = i + [20usize, 40, 90, 260][rng.usize(0..4)];
    let (a, b) = (2000e6, 1500e6);
    let mut pts = Vec::with_capacity(n);
    let mut before = 0.0;
    for k in 0..n {
        let e = (0.05 * gauss(&mut rng)).exp();
        let r = match k {
            k if k < i => {
                before += a * e;
                a * e
            }
            k if k == i => {
                let e = (0.01 * gauss(&mut rng)).exp();
                before += f * a * e;
                (f * a + (1.0 - f) * b) * e
            }
            k if k == i + 1 => 1700e6,
            _ => b * e,
        };
        pts.push(((k + 1) as f64, 1.0, r));
    }
    let meta = RunMeta {
        label: "synthetic".to_string(),
        workload: Workload {
            pattern: "synthetic".to_string(),
            interval_s: Some(1.0),
            engine: Some("synthetic".to_string()),
            ..Workload::default()
        },
        stop_reason: Some(StopReason::EndOfData),
        ..RunMeta::default()
    };
    (
        Timeline::from_rates(&pts, meta),
        Truth {
            drop_bytes: vec![before],
            drop_times: vec![i as f64 + f],
        },
    )
}
