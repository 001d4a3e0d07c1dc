//! Per-write user-space cost of the engine, without any I/O: the data stamp (data generation,
//! in bytes per second per core), the offset sequence, and the whole job loop (stamp, offset,
//! timestamps, push, submit call, sampler and latency histogram) against a backend that
//! completes writes for free, with latency recording on and off. At ~110k writes/s (4k QD32
//! on the test VM) a write may cost well under a microsecond here for the loop's bookkeeping
//! not to matter. Run with `cargo bench --bench engine`; docs/PERFORMANCE.md has the figures.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};

use slccache::engine::buffers::{stamp, AlignedBuffers};
use slccache::engine::job::{run_job, JobShared};
use slccache::engine::offsets::{mix64, OffsetGen};
use slccache::engine::{Backend, Completion, WriteOp};
use slccache::sampler::{MonotonicClock, Sampler};
use slccache::workload::Pattern;

fn main() {
    divan::main();
}

/// Data generation: the stamp that makes each write unique, cycling through 32 buffers as a
/// QD32 job does (so the buffers are not all in the L1 cache).
#[divan::bench(args = [4096, 131072, 1048576])]
fn stamp_buffer(bencher: divan::Bencher, bs: usize) {
    let slots = 32;
    let mut b = AlignedBuffers::new(slots, bs, 4096, 1).unwrap();
    let mut k = 0u64;
    bencher
        .counter(divan::counter::BytesCount::new(bs))
        .bench_local(|| {
            k += 1;
            stamp(divan::black_box(b.get_mut(k as usize % slots)), k, 7);
        });
}

/// The stamp before docs/PERFORMANCE.md's change, kept here to compare side by side: a
/// 16-byte stamp at the start of every 512-byte sector (eight cache lines written per 4 KiB).
fn stamp_every_sector(buf: &mut [u8], write: u64, seed: u64) {
    let base = mix64(seed ^ write.rotate_left(17));
    for (s, sector) in buf.chunks_mut(512).enumerate() {
        if sector.len() < 16 {
            break;
        }
        sector[..8].copy_from_slice(&write.to_le_bytes());
        sector[8..16].copy_from_slice(&mix64(base ^ s as u64).to_le_bytes());
    }
}

/// The previous per-sector stamp, same buffers as [`stamp_buffer`].
#[divan::bench(args = [4096, 131072, 1048576])]
fn stamp_buffer_per_sector_before(bencher: divan::Bencher, bs: usize) {
    let slots = 32;
    let mut b = AlignedBuffers::new(slots, bs, 4096, 1).unwrap();
    let mut k = 0u64;
    bencher
        .counter(divan::counter::BytesCount::new(bs))
        .bench_local(|| {
            k += 1;
            stamp_every_sector(divan::black_box(b.get_mut(k as usize % slots)), k, 7);
        });
}

#[divan::bench(args = [Pattern::Randwrite, Pattern::Seqwrite])]
fn offset(bencher: divan::Bencher, pattern: Pattern) {
    // A 1 TB target in 4k blocks.
    let g = OffsetGen::new(pattern, 4096, 244_140_625, 3);
    let mut k = 0u64;
    bencher.bench_local(|| {
        k += 1;
        g.offset(divan::black_box(k))
    });
}

/// A device that finishes every write the moment the job waits for one.
struct Instant0 {
    bufs: AlignedBuffers,
    queued: VecDeque<WriteOp>,
}

impl Backend for Instant0 {
    fn name(&self) -> &'static str {
        "bench"
    }
    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        self.bufs.get_mut(idx)
    }
    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        self.queued.push_back(op);
        Ok(())
    }
    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        _timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        if min_complete > 0 {
            out.extend(self.queued.drain(..).map(|op| Completion {
                user_data: op.user_data,
                result: op.len as i32,
                latency: None,
            }));
        }
        Ok(())
    }
}

const WRITES: u64 = 100_000;

#[divan::bench(args = [4096, 131072], sample_count = 10)]
fn job_loop(bencher: divan::Bencher, bs: usize) {
    job_loop_with(bencher, bs, true);
}

/// The same loop without per-write latencies (no submission timestamp, no histogram).
#[divan::bench(args = [4096, 131072], sample_count = 10)]
fn job_loop_no_latency(bencher: divan::Bencher, bs: usize) {
    job_loop_with(bencher, bs, false);
}

fn job_loop_with(bencher: divan::Bencher, bs: usize, latency: bool) {
    bencher
        .counter(divan::counter::ItemsCount::new(WRITES))
        .with_inputs(|| {
            let backend = Instant0 {
                bufs: AlignedBuffers::new(32, bs, 4096, 1).unwrap(),
                queued: VecDeque::new(),
            };
            let shared = JobShared::new(
                OffsetGen::new(Pattern::Randwrite, bs as u64, 1 << 20, 5),
                WRITES,
                9,
            );
            let sampler = Sampler::new(
                MonotonicClock::new(Instant::now()),
                Duration::from_millis(10),
                1,
            );
            let sampler = if latency {
                sampler
            } else {
                sampler.without_latency()
            };
            (backend, shared, sampler)
        })
        .bench_local_values(|(mut backend, shared, sampler)| {
            let n = run_job(0, &mut backend, 32, &shared, &sampler);
            assert_eq!(n, WRITES);
        });
}
