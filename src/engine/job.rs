//! The job loop: keeps one backend at its queue depth until the run stops, stamps each
//! buffer with unique data before it is written, and hands every completion to the sampler.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::buffers::stamp;
use super::offsets::{mix64, OffsetGen};
use super::{Backend, Completion, WriteOp};
use crate::sampler::{Clock, Sampler};

/// How long one wait for completions may block: without a limit. Every wait has a write in
/// flight, and a stop only ends submission (what is in flight is drained either way), so a
/// timeout would only wake the loop to wait again; on io_uring it would also arm a kernel
/// timer per write (see [`super::NO_TIMEOUT`]).
const WAIT_SLICE: Duration = super::NO_TIMEOUT;

/// A failed write (or a failed submission), as reported to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteFailure {
    /// Job that saw it.
    pub job: usize,
    /// Byte offset of the write (None when the submission itself failed).
    pub offset: Option<u64>,
    /// Length of the write.
    pub len: u32,
    /// The errno, if the kernel reported one; None for a short write.
    pub errno: Option<i32>,
    /// Bytes written, for a short write.
    pub written: Option<u32>,
    /// Time since the start of the run.
    pub at: Duration,
    /// The failed I/O was a read.
    pub read: bool,
}

impl fmt::Display for WriteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let io = if self.read { "read" } else { "write" };
        let what = match (self.errno, self.written) {
            (Some(e), _) => std::io::Error::from_raw_os_error(e).to_string(),
            (None, Some(w)) => format!("short {io}: {w} of {} bytes", self.len),
            (None, None) => "unknown error".to_string(),
        };
        match self.offset {
            Some(off) => write!(
                f,
                "{io} of {} bytes at offset {off} failed after {:.3} s: {what}",
                self.len,
                self.at.as_secs_f64()
            ),
            None => write!(
                f,
                "submitting writes failed after {:.3} s: {what}",
                self.at.as_secs_f64()
            ),
        }
    }
}

/// State shared by all jobs of a run.
pub struct JobShared {
    /// Set to stop submitting (Ctrl-C, time limit, error); in-flight writes are drained.
    pub stop: AtomicBool,
    /// The global write counter; write `k` goes to `offsets.offset(k)`.
    pub next: AtomicU64,
    /// Writes to issue in all (`u64::MAX`: no limit).
    pub limit: u64,
    /// Offsets.
    pub offsets: OffsetGen,
    /// Seed for the data stamps.
    pub seed: u64,
    /// The first failure seen.
    pub failure: Mutex<Option<WriteFailure>>,
    /// Percentage of I/Os that are reads (0: a write run).
    pub read_pct: u32,
}

impl JobShared {
    /// Shared state for a run issuing at most `limit` writes.
    pub fn new(offsets: OffsetGen, limit: u64, seed: u64) -> JobShared {
        JobShared {
            stop: AtomicBool::new(false),
            next: AtomicU64::new(0),
            limit,
            offsets,
            seed,
            failure: Mutex::new(None),
            read_pct: 0,
        }
    }

    /// Makes `read_pct` percent of the I/Os reads (which ones is a function of the seed and
    /// the I/O number, so the mix is the same in every run with the same seed).
    pub fn with_read_pct(mut self, read_pct: u32) -> JobShared {
        self.read_pct = read_pct.min(100);
        self
    }

    /// Whether I/O number `k` is a read.
    pub fn is_read(&self, k: u64) -> bool {
        match self.read_pct {
            0 => false,
            100.. => true,
            p => mix64(k ^ self.seed.rotate_left(17) ^ 0x7265_6164) % 100 < p as u64,
        }
    }

    /// Asks every job to stop submitting.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<WriteFailure> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn fail(&self, f: WriteFailure) {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(f);
        }
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Runs job `job` on `backend` with `queue_depth` writes in flight until the write limit is
/// reached, a stop is requested, or a write fails. Always drains what is in flight before
/// returning. Returns the number of writes this job completed successfully.
pub fn run_job<C: Clock>(
    job: usize,
    backend: &mut dyn Backend,
    queue_depth: u32,
    shared: &JobShared,
    sampler: &Sampler<C>,
) -> u64 {
    let qd = queue_depth.max(1) as usize;
    let bs = shared.offsets.block_size() as u32;
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut submitted_at = vec![Duration::ZERO; qd];
    let mut slot_offset = vec![0u64; qd];
    let mut slot_read = vec![false; qd];
    let mut inflight = 0usize;
    let mut exhausted = false;
    let mut completions: Vec<Completion> = Vec::with_capacity(qd * 2);
    let mut done = 0u64;
    let mut broken = false; // the backend itself failed: nothing more can be reaped
    sampler.attach_cpu(job); // this thread's CPU time per interval (timeline's cpu_pct)
    let timed = sampler.records_latency();

    // Submission time for latencies: one clock read per submission pass, not per write (a
    // clock read costs 0.3-0.6 µs on some VMs, as much as the rest of a write's bookkeeping).
    // A pass right after completions were recorded reuses the time read for them. Writes
    // submitted in one pass share the timestamp, so a write's latency also counts the
    // submission of the writes before it in that pass (about a microsecond each).
    let mut reaped_at: Option<Duration> = None;
    loop {
        completions.clear();
        let mut pass_at = reaped_at.take();
        let mut r = Ok(());
        // Like fio (iodepth_batch_submit=1), each write is submitted as soon as it is ready
        // instead of after the whole batch: the device starts on it at once, and on a VM a
        // batch submit delays its first write by the time the kernel takes to issue the rest.
        // Each submit also reaps what has completed meanwhile, without waiting.
        while !exhausted && !broken && !shared.stop.load(Ordering::Relaxed) {
            let Some(buf) = free.pop() else { break };
            let k = shared.next.fetch_add(1, Ordering::Relaxed);
            if k >= shared.limit {
                free.push(buf);
                exhausted = true;
                break;
            }
            let offset = shared.offsets.offset(k);
            let read = shared.is_read(k);
            if !read {
                stamp(backend.buffer_mut(buf), k, shared.seed);
            }
            slot_offset[buf] = offset;
            slot_read[buf] = read;
            if timed {
                submitted_at[buf] = *pass_at.get_or_insert_with(|| sampler.clock().now());
            }
            let op = WriteOp {
                offset,
                len: bs,
                buf,
                user_data: buf as u64,
            };
            let pushed = if read {
                backend.push_read(op)
            } else {
                backend.push(op)
            };
            if let Err(e) = pushed {
                shared.fail(WriteFailure {
                    job,
                    offset: Some(offset),
                    len: bs,
                    errno: Some(e.raw_os_error().unwrap_or(libc::EIO)),
                    written: None,
                    at: sampler.clock().now(),
                    read,
                });
                free.push(buf);
                broken = true;
                break;
            }
            inflight += 1;
            // Submitted at once, also when the queue is now full: the wait below is a system
            // call of its own, as fio makes it. Submitting in the wait itself saved a call per
            // write at QD1, but beside CPU-bound work it left the writer on the other CPU from
            // the loop device's worker, at 0.4x the rate (docs/PERFORMANCE.md).
            r = backend.submit_and_wait(0, Duration::ZERO, &mut completions);
            if r.is_err() {
                break;
            }
        }
        if inflight == 0 || broken {
            break;
        }
        // Nothing to refill and nothing completed: sleep until a write completes. No polling
        // (it burnt a core and gained nothing once submits are per write, like fio's).
        if r.is_ok() && completions.is_empty() {
            r = backend.submit_and_wait(1, WAIT_SLICE, &mut completions);
        }
        if let Err(e) = r {
            shared.fail(WriteFailure {
                job,
                offset: None,
                len: bs,
                errno: Some(e.raw_os_error().unwrap_or(libc::EIO)),
                written: None,
                at: sampler.clock().now(),
                read: false,
            });
            break;
        }
        if completions.is_empty() {
            continue;
        }
        let mut failures = Vec::new();
        reaped_at = Some(sampler.record(job, |now, acc| {
            for c in &completions {
                let buf = c.user_data as usize;
                if buf >= qd {
                    continue;
                }
                let lat = c
                    .latency
                    .unwrap_or_else(|| now.saturating_sub(submitted_at[buf]));
                if c.result > 0 {
                    if slot_read[buf] {
                        acc.add_read(c.result as u64, lat);
                    } else {
                        acc.add(c.result as u64, lat);
                    }
                }
                if c.result != bs as i32 {
                    failures.push(WriteFailure {
                        job,
                        offset: Some(slot_offset[buf]),
                        len: bs,
                        errno: (c.result < 0).then_some(-c.result),
                        written: (c.result >= 0).then_some(c.result as u32),
                        at: now,
                        read: slot_read[buf],
                    });
                } else {
                    done += 1;
                }
            }
        }));
        for c in &completions {
            let buf = c.user_data as usize;
            if buf < qd {
                free.push(buf);
                inflight -= 1;
            }
        }
        for f in failures {
            shared.fail(f);
        }
    }
    sampler.detach_cpu(job);
    done
}

/// Starts one thread per backend, each running [`run_job`] at `queue_depth`, named
/// `{name}-{j}`. `running` counts the jobs still running (each thread decrements it when its
/// job ends). If a thread cannot be started, the jobs already started are stopped and joined
/// and the error is returned.
pub fn spawn_jobs<C: Clock + Send + Sync + 'static>(
    name: &str,
    backends: Vec<Box<dyn Backend>>,
    queue_depth: u32,
    shared: &std::sync::Arc<JobShared>,
    sampler: &std::sync::Arc<Sampler<C>>,
    running: &std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> std::io::Result<Vec<std::thread::JoinHandle<u64>>> {
    let mut handles = Vec::new();
    for (j, mut backend) in backends.into_iter().enumerate() {
        let (sh, sa, ru) = (shared.clone(), sampler.clone(), running.clone());
        let h = std::thread::Builder::new()
            .name(format!("{name}-{j}"))
            .spawn(move || {
                let n = run_job(j, backend.as_mut(), queue_depth, &sh, &sa);
                drop(backend);
                ru.fetch_sub(1, Ordering::SeqCst);
                n
            });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.request_stop();
                running.fetch_sub(1, Ordering::SeqCst);
                for h in handles {
                    let _ = h.join();
                }
                return Err(e);
            }
        }
    }
    Ok(handles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::buffers::AlignedBuffers;
    use crate::sampler::MonotonicClock;
    use crate::workload::Pattern;
    use std::collections::VecDeque;

    /// A backend that completes every write at once and remembers what it was given.
    struct Recorder {
        bufs: AlignedBuffers,
        queued: VecDeque<WriteOp>,
        max_inflight: usize,
        inflight: usize,
        written: Vec<(u64, Vec<u8>)>,
        /// Offsets read.
        reads: Vec<u64>,
        /// user_data of the queued reads.
        read_tags: std::collections::HashSet<u64>,
        fail_at: Option<u64>,
        /// Writes pushed since the last submit, and the most ever seen.
        unsubmitted: usize,
        max_unsubmitted: usize,
        /// Waits that had writes to submit first (submit and wait in one call).
        waits_submitting: usize,
        /// The timeout of every call that waited (min > 0).
        wait_timeouts: Vec<Duration>,
    }

    impl Backend for Recorder {
        fn name(&self) -> &'static str {
            "test"
        }
        fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
            self.bufs.get_mut(idx)
        }
        fn push(&mut self, op: WriteOp) -> std::io::Result<()> {
            self.inflight += 1;
            self.max_inflight = self.max_inflight.max(self.inflight);
            self.queued.push_back(op);
            self.unsubmitted += 1;
            self.max_unsubmitted = self.max_unsubmitted.max(self.unsubmitted);
            Ok(())
        }
        fn push_read(&mut self, op: WriteOp) -> std::io::Result<()> {
            self.read_tags.insert(op.user_data);
            self.push(op)
        }
        fn submit_and_wait(
            &mut self,
            min: usize,
            t: Duration,
            out: &mut Vec<Completion>,
        ) -> std::io::Result<()> {
            if min > 0 {
                self.wait_timeouts.push(t);
            }
            // Like a device that is never done at submit time: complete one write per wait
            // (oldest first), nothing on a call that does not wait.
            if min > 0 && self.unsubmitted > 0 {
                self.waits_submitting += 1;
            }
            self.unsubmitted = 0;
            if min == 0 {
                return Ok(());
            }
            if let Some(op) = self.queued.pop_front() {
                self.inflight -= 1;
                if self.read_tags.remove(&op.user_data) {
                    self.reads.push(op.offset);
                } else {
                    let data = self.bufs.get_mut(op.buf)[..op.len as usize].to_vec();
                    self.written.push((op.offset, data));
                }
                let result = if Some(op.offset) == self.fail_at {
                    -libc::EIO
                } else {
                    op.len as i32
                };
                out.push(Completion {
                    user_data: op.user_data,
                    result,
                    latency: None,
                });
            }
            Ok(())
        }
    }

    fn recorder(qd: usize, bs: usize) -> Recorder {
        Recorder {
            bufs: AlignedBuffers::new(qd, bs, 4096, 1).unwrap(),
            queued: VecDeque::new(),
            max_inflight: 0,
            inflight: 0,
            written: Vec::new(),
            reads: Vec::new(),
            read_tags: std::collections::HashSet::new(),
            fail_at: None,
            unsubmitted: 0,
            max_unsubmitted: 0,
            waits_submitting: 0,
            wait_timeouts: Vec::new(),
        }
    }

    /// Regression: every wait used to carry a 50 ms timeout, which on io_uring
    /// arms and cancels a kernel timer per QD1 write (0.98 `hrtimer_start` per write under
    /// `perf stat`, about 3 µs of CPU per write on a 2-vCPU VM, against fio's untimed wait).
    #[test]
    fn waits_arm_no_timer() {
        let shared = JobShared::new(OffsetGen::new(Pattern::Randwrite, 4096, 64, 5), 64, 9);
        let sampler = Sampler::new(
            MonotonicClock::new(std::time::Instant::now()),
            Duration::from_secs(3600),
            1,
        );
        let mut b = recorder(1, 4096);
        assert_eq!(run_job(0, &mut b, 1, &shared, &sampler), 64);
        assert_eq!(b.wait_timeouts.len(), 64, "one wait per QD1 write");
        assert!(
            b.wait_timeouts
                .iter()
                .all(|&t| t == crate::engine::NO_TIMEOUT),
            "{:?}",
            &b.wait_timeouts[..4]
        );
    }

    #[test]
    fn one_pass_keeps_qd_and_writes_unique_data() {
        let blocks = 300;
        let shared = JobShared::new(OffsetGen::new(Pattern::Randwrite, 4096, blocks, 5), 300, 9);
        let sampler = Sampler::new(
            MonotonicClock::new(std::time::Instant::now()),
            Duration::from_secs(3600),
            1,
        );
        let mut b = recorder(8, 4096);
        let n = run_job(0, &mut b, 8, &shared, &sampler);
        assert_eq!(n, 300);
        assert_eq!(b.max_inflight, 8, "queue depth kept full");
        assert_eq!(
            b.max_unsubmitted, 1,
            "each write submitted as soon as it is queued"
        );
        let mut offs: Vec<u64> = b.written.iter().map(|w| w.0).collect();
        offs.sort();
        assert_eq!(offs, (0..300).map(|i| i * 4096).collect::<Vec<_>>());
        let mut pages = std::collections::HashSet::new();
        for (_, d) in &b.written {
            for s in d.chunks(crate::engine::buffers::PAGE) {
                assert!(pages.insert(s.to_vec()), "a page repeated");
            }
        }
        let rows = sampler.finish(sampler.clock().now(), None);
        assert_eq!(rows.iter().map(|r| r.bytes).sum::<u64>(), 300 * 4096);
        assert!(shared.failure().is_none());
    }

    /// Regression: the write that filled the queue used to be submitted by the wait itself
    /// (one system call). Beside CPU-bound work that left a QD1 writer on the other CPU from
    /// the loop device's worker, at 0.4x fio (docs/PERFORMANCE.md). Each write is now
    /// submitted in a call of its own, and a wait only waits.
    #[test]
    fn every_write_is_submitted_before_the_wait() {
        for qd in [1usize, 8] {
            let shared = JobShared::new(OffsetGen::new(Pattern::Randwrite, 4096, 200, 5), 200, 9);
            let sampler = Sampler::new(
                MonotonicClock::new(std::time::Instant::now()),
                Duration::from_secs(3600),
                1,
            );
            let mut b = recorder(qd, 4096);
            assert_eq!(run_job(0, &mut b, qd as u32, &shared, &sampler), 200);
            assert_eq!(b.waits_submitting, 0, "QD{qd}: a wait submitted writes");
        }
    }

    #[test]
    fn a_mix_reads_the_share_asked_and_counts_reads_apart() {
        let shared = JobShared::new(OffsetGen::new(Pattern::Randrw, 4096, 1000, 5), 1000, 9)
            .with_read_pct(30);
        let sampler = Sampler::new(
            MonotonicClock::new(std::time::Instant::now()),
            Duration::from_secs(3600),
            1,
        );
        let mut b = recorder(4, 4096);
        let n = run_job(0, &mut b, 4, &shared, &sampler);
        assert_eq!(n, 1000);
        let reads = b.reads.len() as u64;
        assert!((240..=360).contains(&reads), "{reads} reads of 1000 at 30%");
        assert_eq!(b.written.len() as u64 + reads, 1000);
        let rows = sampler.finish(sampler.clock().now(), None);
        let wbytes: u64 = rows.iter().map(|r| r.bytes).sum();
        let rbytes: u64 = rows
            .iter()
            .filter_map(|r| r.read.as_ref())
            .map(|r| r.bytes)
            .sum();
        assert_eq!(wbytes, b.written.len() as u64 * 4096);
        assert_eq!(rbytes, reads * 4096);
        // Pure patterns: all or nothing.
        let all = JobShared::new(OffsetGen::new(Pattern::Randread, 4096, 10, 5), 10, 9)
            .with_read_pct(100);
        assert!((0..1000).all(|k| all.is_read(k)));
        let none = JobShared::new(OffsetGen::new(Pattern::Randwrite, 4096, 10, 5), 10, 9);
        assert!((0..1000).all(|k| !none.is_read(k)));
    }

    #[test]
    fn a_failed_write_stops_the_job_and_names_the_offset() {
        let shared = JobShared::new(
            OffsetGen::new(Pattern::Seqwrite, 4096, 1000, 5),
            u64::MAX,
            9,
        );
        let sampler = Sampler::new(
            MonotonicClock::new(std::time::Instant::now()),
            Duration::from_secs(3600),
            1,
        );
        let mut b = recorder(4, 4096);
        b.fail_at = Some(50 * 4096);
        let n = run_job(0, &mut b, 4, &shared, &sampler);
        let f = shared.failure().expect("failure recorded");
        assert_eq!(f.offset, Some(50 * 4096));
        assert_eq!(f.errno, Some(libc::EIO));
        assert!(f.to_string().contains("offset 204800"), "{f}");
        // The writes in flight were drained: 50 before it and the 3 behind it.
        assert_eq!(n, 53);
        assert_eq!(b.inflight, 0);
    }
}
