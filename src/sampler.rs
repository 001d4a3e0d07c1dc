//! Turning completions into [`Sample`]s on absolute deadlines.
//!
//! Interval `k` is the time range `[k * interval, (k + 1) * interval)` after the start of the
//! run (absolute deadlines, so nothing drifts over hours). Each job records its completions
//! with the time read *while holding its own lock*, and the write is counted in the interval
//! that contains that time. The collector closes every interval whose end lies before its own
//! clock reading; because a job's later records are stamped under the same lock, no record can
//! land in an interval after it was closed. If the collector wakes late it simply closes several
//! intervals at once, each still exact. Rates divide by the real length of the interval (the
//! last one, cut short by the end of the run, is shorter). Bytes are conserved: the sum of all
//! intervals' bytes is the total recorded.
//!
//! The clock is injected ([`Clock`]) so tests can drive time by hand.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::timeline::{ReadStats, Sample};

/// A monotonic clock reading time since the start of the run.
pub trait Clock: Send + Sync {
    /// Time since the start of the run.
    fn now(&self) -> Duration;
}

/// The real clock: `Instant` since a start instant.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    start: Instant,
}

impl MonotonicClock {
    /// A clock whose zero is `start`.
    pub fn new(start: Instant) -> MonotonicClock {
        MonotonicClock { start }
    }
    /// The instant of time zero.
    pub fn start(&self) -> Instant {
        self.start
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }
}

/// A clock moved by hand (tests, simulations).
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicU64,
}

impl ManualClock {
    /// A clock at time zero.
    pub fn new() -> ManualClock {
        ManualClock::default()
    }
    /// Sets the time (must not go backwards).
    pub fn set(&self, t: Duration) {
        let n = t.as_nanos() as u64;
        let old = self.nanos.swap(n, Ordering::SeqCst);
        assert!(n >= old, "ManualClock must not go backwards");
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

/// Highest latency the histograms hold exactly (longer ones are clamped): one hour.
const MAX_LATENCY_NS: u64 = 3_600_000_000_000;

fn new_hist() -> Histogram<u64> {
    // Two significant digits (1% resolution) from 1 ns to one hour.
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, 2).expect("valid histogram bounds")
}

/// Counters for one interval of one job.
#[derive(Debug, Clone)]
pub struct Acc {
    bytes: u64,
    writes: u64,
    latency: bool,
    hist: Histogram<u64>,
    /// Reads, counted apart; None until the first read (a write-only run never makes one).
    reads: Option<Box<ReadAcc>>,
}

/// Read counters of one interval.
#[derive(Debug, Clone)]
struct ReadAcc {
    bytes: u64,
    reads: u64,
    hist: Histogram<u64>,
}

impl ReadAcc {
    fn new() -> ReadAcc {
        ReadAcc {
            bytes: 0,
            reads: 0,
            hist: new_hist(),
        }
    }
}

impl Acc {
    fn new(latency: bool) -> Acc {
        Acc {
            bytes: 0,
            writes: 0,
            latency,
            hist: new_hist(),
            reads: None,
        }
    }
    /// Counts one completed read of `bytes` bytes that took `latency` from submission.
    pub fn add_read(&mut self, bytes: u64, latency: Duration) {
        let r = self.reads.get_or_insert_with(|| Box::new(ReadAcc::new()));
        r.bytes += bytes;
        r.reads += 1;
        let ns = (latency.as_nanos() as u64).clamp(1, MAX_LATENCY_NS);
        r.hist.saturating_record(ns);
    }
    /// Counts one completed write of `bytes` bytes that took `latency` from submission (the
    /// latency is ignored when the sampler does not record latencies).
    pub fn add(&mut self, bytes: u64, latency: Duration) {
        self.bytes += bytes;
        self.writes += 1;
        if self.latency {
            let ns = (latency.as_nanos() as u64).clamp(1, MAX_LATENCY_NS);
            self.hist.saturating_record(ns);
        }
    }
    fn merge(&mut self, other: &Acc) {
        self.bytes += other.bytes;
        self.writes += other.writes;
        self.latency |= other.latency;
        self.hist
            .add(&other.hist)
            .expect("histograms with the same bounds");
        if let Some(o) = &other.reads {
            let r = self.reads.get_or_insert_with(|| Box::new(ReadAcc::new()));
            r.bytes += o.bytes;
            r.reads += o.reads;
            r.hist
                .add(&o.hist)
                .expect("histograms with the same bounds");
        }
    }
}

#[derive(Debug, Default)]
struct JobAccs {
    /// Open intervals of this job, by interval index, ascending.
    open: VecDeque<(u64, Acc)>,
}

#[derive(Debug, Default)]
struct Collected {
    /// Index of the first interval not yet emitted.
    next: u64,
    /// Bytes emitted so far.
    bytes_total: u64,
    /// Writes emitted so far.
    writes_total: u64,
}

/// CPU use of one thread so far: time on a CPU, and (where the kernel's scheduler statistics
/// say) time spent runnable but waiting for a CPU, both in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuReading {
    /// Time the thread ran (its thread CPU clock).
    pub run_ns: u64,
    /// Time it was ready to run but waited on a run queue; None where
    /// `/proc/.../schedstat` is not available.
    pub wait_ns: Option<u64>,
}

/// Where a job thread's CPU use is read from, by any thread of the process: its thread CPU
/// clock (`pthread_getcpuclockid`, the clock `CLOCK_THREAD_CPUTIME_ID` reads on the thread
/// itself) and `/proc/self/task/TID/schedstat`.
#[derive(Debug)]
struct CpuTrack {
    clock: libc::clockid_t,
    tid: i32,
    /// The reading the last closed interval ended with.
    last: CpuReading,
    /// The last reading, taken by the job itself as it stopped: its clock is gone after that.
    ended: Option<CpuReading>,
}

impl CpuTrack {
    fn read(&self) -> Option<CpuReading> {
        if let Some(e) = self.ended {
            return Some(e);
        }
        let run_ns = read_cpu_clock(self.clock)?;
        Some(CpuReading {
            run_ns,
            wait_ns: read_schedstat_wait(&format!("/proc/self/task/{}/schedstat", self.tid)),
        })
    }
}

fn read_cpu_clock(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec; an invalid clock id (a thread that is gone)
    // makes the call fail with EINVAL, which we report as None.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The second field of a schedstat file: nanoseconds spent waiting on a run queue.
fn read_schedstat_wait(path: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The calling thread's CPU use so far.
pub fn thread_cpu_now() -> Option<CpuReading> {
    let run_ns = read_cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)?;
    Some(CpuReading {
        run_ns,
        wait_ns: read_schedstat_wait("/proc/thread-self/schedstat"),
    })
}

/// Per-interval counters for all jobs of a run; shared between the job threads (which
/// [`Sampler::record`]) and the collector (which [`Sampler::collect`]s).
///
/// Each job thread that calls [`Sampler::attach_cpu`] also gets its CPU use measured: its
/// thread CPU clock is read once per interval boundary, when the collector closes intervals
/// (never per write), and becomes the samples' `cpu_pct` (and `cpu_wait_pct`, the time it was
/// ready to run but had no CPU).
pub struct Sampler<C: Clock> {
    clock: C,
    interval: Duration,
    /// Every sample carries read counters (a run that reads), also intervals without reads.
    reads: bool,
    jobs: Vec<Mutex<JobAccs>>,
    cpu: Vec<Mutex<Option<CpuTrack>>>,
    collected: Mutex<Collected>,
    /// Latencies of every I/O (reads and writes) emitted so far, for whole-run percentiles.
    total: Mutex<Histogram<u64>>,
    latency: bool,
}

impl<C: Clock> Sampler<C> {
    /// A sampler for `jobs` jobs with intervals of `interval` (> 0).
    pub fn new(clock: C, interval: Duration, jobs: usize) -> Sampler<C> {
        assert!(!interval.is_zero(), "interval must be positive");
        Sampler {
            clock,
            interval,
            reads: false,
            jobs: (0..jobs.max(1))
                .map(|_| Mutex::new(JobAccs::default()))
                .collect(),
            cpu: (0..jobs.max(1)).map(|_| Mutex::new(None)).collect(),
            collected: Mutex::new(Collected::default()),
            total: Mutex::new(new_hist()),
            latency: true,
        }
    }

    /// Makes every sample carry read counters (for a run that reads), so the read columns of
    /// the timeline are filled also in intervals without reads.
    pub fn with_reads(mut self, reads: bool) -> Sampler<C> {
        self.reads = reads;
        self
    }

    /// Latency percentiles `(p50, p99)` in microseconds over every I/O (reads and writes) in
    /// the samples emitted so far; `None` before any I/O.
    pub fn total_latency_us(&self) -> (Option<f64>, Option<f64>) {
        let h = self.total.lock().unwrap_or_else(|e| e.into_inner());
        if h.is_empty() {
            return (None, None);
        }
        let us = |q: f64| Some(h.value_at_quantile(q) as f64 / 1000.0);
        (us(0.5), us(0.99))
    }

    /// The same sampler without per-write latencies: no clock read at submission and no
    /// histogram, and the samples' latency columns stay empty. Measures what latency
    /// recording costs (docs/PERFORMANCE.md).
    pub fn without_latency(mut self) -> Sampler<C> {
        self.latency = false;
        self
    }

    /// Whether per-write latencies are recorded (the job loop then timestamps submissions).
    pub fn records_latency(&self) -> bool {
        self.latency
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The nominal interval.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// The end of interval `k` (deadline `(k + 1) * interval`).
    pub fn deadline(&self, k: u64) -> Duration {
        mul(self.interval, k + 1)
    }

    fn index_of(&self, t: Duration) -> u64 {
        (t.as_nanos() / self.interval.as_nanos()) as u64
    }

    /// Called on job `job`'s own thread before it starts writing: from now on that thread's
    /// CPU time is measured per interval. Does nothing where the thread CPU clock cannot be
    /// read.
    pub fn attach_cpu(&self, job: usize) {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self() is the calling thread, alive for this call; clock is a valid
        // place for the result.
        if unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) } != 0 {
            return;
        }
        let Some(last) = thread_cpu_now() else { return };
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        *self.cpu[job].lock().unwrap_or_else(|e| e.into_inner()) = Some(CpuTrack {
            clock,
            tid,
            last,
            ended: None,
        });
    }

    /// Called on job `job`'s own thread when it has stopped writing (after
    /// [`Sampler::attach_cpu`]): takes its last CPU reading while the thread still exists.
    pub fn detach_cpu(&self, job: usize) {
        let mut g = self.cpu[job].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = g.as_mut() {
            t.ended = thread_cpu_now().or(Some(t.last));
        }
    }

    /// CPU used by all attached jobs since the last call, and how many jobs were attached.
    fn take_cpu(&self) -> Option<(CpuReading, usize)> {
        let mut sum = CpuReading {
            run_ns: 0,
            wait_ns: Some(0),
        };
        let mut n = 0;
        for slot in &self.cpu {
            let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
            let Some(t) = g.as_mut() else { continue };
            n += 1;
            let Some(now) = t.read() else { continue };
            sum.run_ns += now.run_ns.saturating_sub(t.last.run_ns);
            sum.wait_ns = match (sum.wait_ns, now.wait_ns, t.last.wait_ns) {
                (Some(s), Some(a), Some(b)) => Some(s + a.saturating_sub(b)),
                _ => None,
            };
            t.last = now;
        }
        (n > 0).then_some((sum, n))
    }

    /// Records completions for job `job`: reads the clock under the job's lock, and calls `f`
    /// with that time and the counters of the interval it falls in. Returns the time read.
    pub fn record<F: FnOnce(Duration, &mut Acc)>(&self, job: usize, f: F) -> Duration {
        let mut accs = self.jobs[job].lock().unwrap_or_else(|e| e.into_inner());
        let now = self.clock.now();
        let idx = self.index_of(now);
        let needs_new = !matches!(accs.open.back(), Some((i, _)) if *i == idx);
        if needs_new {
            accs.open.push_back((idx, Acc::new(self.latency)));
        }
        let acc = &mut accs.open.back_mut().expect("just pushed").1;
        f(now, acc);
        now
    }

    /// Closes every interval that ended before now and returns their samples (also intervals
    /// in which nothing completed: a stalled drive shows as zero). `temp_c` is put on each.
    pub fn collect(&self, temp_c: Option<f64>) -> Vec<Sample> {
        let now = self.clock.now();
        let upto = self.index_of(now); // intervals < upto have ended
        self.close(upto, None, temp_c)
    }

    /// Ends the run at time `end` (after every job has stopped): closes the intervals that
    /// ended before `end` and returns them, followed by one last, shorter sample for the time
    /// from the last deadline to `end` when anything was recorded there or a millisecond or
    /// more passed.
    pub fn finish(&self, end: Duration, temp_c: Option<f64>) -> Vec<Sample> {
        let upto = self.index_of(end);
        self.close(upto, Some(end), temp_c)
    }

    /// Same as [`Sampler::finish`] but the last sample also takes in the last *full*
    /// interval when that has not been emitted yet, so a run stopped at a deadline ends with
    /// one row a little longer than the interval instead of a sliver.
    pub fn finish_merging_last(&self, end: Duration, temp_c: Option<f64>) -> Vec<Sample> {
        let upto = self.index_of(end);
        let next = self
            .collected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .next;
        let upto = if upto > next { upto - 1 } else { upto };
        self.close(upto, Some(end), temp_c)
    }

    fn close(&self, upto: u64, end: Option<Duration>, temp_c: Option<f64>) -> Vec<Sample> {
        let mut col = self.collected.lock().unwrap_or_else(|e| e.into_inner());
        // Take every closed interval (and, at the end, everything) out of each job.
        let mut taken: Vec<(u64, Acc)> = Vec::new();
        for job in &self.jobs {
            let mut accs = job.lock().unwrap_or_else(|e| e.into_inner());
            while let Some((i, _)) = accs.open.front() {
                if *i < upto || end.is_some() {
                    taken.push(accs.open.pop_front().expect("front exists"));
                } else {
                    break;
                }
            }
        }
        {
            let mut total = self.total.lock().unwrap_or_else(|e| e.into_inner());
            for (_, a) in &taken {
                let _ = total.add(&a.hist);
                if let Some(r) = &a.reads {
                    let _ = total.add(&r.hist);
                }
            }
        }
        let mut out = Vec::new();
        let mut k = col.next;
        // The CPU the jobs used since the last close, spread over the rows closed now in
        // proportion to their length.
        let span_end = match end {
            Some(e) => e.max(mul(self.interval, upto.max(k))),
            None => mul(self.interval, upto.max(k)),
        };
        let span = span_end.saturating_sub(mul(self.interval, k)).as_secs_f64();
        let cpu = if span > 0.0 && col.next != u64::MAX {
            self.take_cpu().map(|(r, n)| CpuShare {
                run_ns_per_s: r.run_ns as f64 / span,
                wait_ns_per_s: r.wait_ns.map(|w| w as f64 / span),
                jobs: n,
            })
        } else {
            None
        };
        while k < upto {
            let mut acc = Acc::new(self.latency);
            for (_, a) in taken.iter().filter(|(i, _)| *i == k) {
                acc.merge(a);
            }
            let start = mul(self.interval, k);
            let stop = mul(self.interval, k + 1);
            out.push(make_sample(
                &mut col, &acc, start, stop, temp_c, self.reads, cpu,
            ));
            k += 1;
        }
        col.next = k;
        if let Some(end) = end {
            let start = mul(self.interval, k);
            let mut acc = Acc::new(self.latency);
            for (_, a) in taken.iter().filter(|(i, _)| *i >= k) {
                acc.merge(a);
            }
            let any = acc.writes > 0 || acc.reads.as_ref().is_some_and(|r| r.reads > 0);
            // A tail in which nothing completed and under a millisecond passed is no
            // interval: its row would be written as the time of the row before with a length
            // of 0.000000 s, which no reader of timeline.csv takes.
            if end >= start + Duration::from_millis(1) || any {
                let stop = end.max(start);
                out.push(make_sample(
                    &mut col, &acc, start, stop, temp_c, self.reads, cpu,
                ));
            }
            // Nothing may be recorded after the end.
            col.next = u64::MAX;
        }
        out
    }
}

fn mul(d: Duration, k: u64) -> Duration {
    Duration::from_nanos((d.as_nanos() as u64).saturating_mul(k))
}

/// The jobs' CPU use over the rows being closed, as a rate (CPU ns per second of run time).
#[derive(Debug, Clone, Copy)]
struct CpuShare {
    run_ns_per_s: f64,
    wait_ns_per_s: Option<f64>,
    jobs: usize,
}

fn make_sample(
    col: &mut Collected,
    acc: &Acc,
    start: Duration,
    stop: Duration,
    temp_c: Option<f64>,
    reads: bool,
    cpu: Option<CpuShare>,
) -> Sample {
    col.bytes_total += acc.bytes;
    col.writes_total += acc.writes;
    let dt = (stop - start).as_secs_f64();
    let (rate, iops) = if dt > 0.0 {
        (acc.bytes as f64 / dt, acc.writes as f64 / dt)
    } else {
        (0.0, 0.0)
    };
    let us = |q: f64| Some(acc.hist.value_at_quantile(q) as f64 / 1000.0);
    let (p50, p99, max) = if acc.writes > 0 && acc.latency {
        (us(0.5), us(0.99), Some(acc.hist.max() as f64 / 1000.0))
    } else {
        (None, None, None)
    };
    Sample {
        t_s: stop.as_secs_f64(),
        interval_s: dt,
        bytes: acc.bytes,
        bytes_total: col.bytes_total,
        bytes_per_sec: rate,
        iops,
        lat_p50_us: p50,
        lat_p99_us: p99,
        lat_max_us: max,
        temp_c,
        thermal_transitions: None,
        read: (reads || acc.reads.is_some()).then(|| read_stats(acc.reads.as_deref(), dt)),
        // Percent of one core per job: ns per s / 1e9 * 100 / jobs.
        cpu_pct: cpu.map(|c| c.run_ns_per_s / 1e7 / c.jobs as f64),
        cpu_wait_pct: cpu.and_then(|c| c.wait_ns_per_s.map(|w| w / 1e7 / c.jobs as f64)),
    }
}

fn read_stats(r: Option<&ReadAcc>, dt: f64) -> ReadStats {
    let Some(r) = r.filter(|r| r.reads > 0) else {
        return ReadStats::default();
    };
    let us = |q: f64| Some(r.hist.value_at_quantile(q) as f64 / 1000.0);
    ReadStats {
        bytes: r.bytes,
        iops: if dt > 0.0 { r.reads as f64 / dt } else { 0.0 },
        lat_p50_us: us(0.5),
        lat_p99_us: us(0.99),
        lat_max_us: Some(r.hist.max() as f64 / 1000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn writes_are_counted_in_the_interval_they_completed_in() {
        let clock = Arc::new(ManualClock::new());
        let s = Sampler::new(clock.clone(), ms(1000), 2);
        clock.set(ms(100));
        s.record(0, |_, a| a.add(4096, ms(1)));
        clock.set(ms(999));
        s.record(1, |_, a| a.add(8192, ms(2)));
        clock.set(ms(1000)); // exactly at the deadline: belongs to the next interval
        s.record(0, |_, a| a.add(100, ms(3)));
        // The collector wakes late, at 2.5 s: two intervals are closed, each exact.
        clock.set(ms(2500));
        s.record(1, |_, a| a.add(1, ms(4))); // in interval 2, still open
        let v = s.collect(Some(40.0));
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].bytes, 4096 + 8192);
        assert_eq!(v[0].t_s, 1.0);
        assert_eq!(v[0].interval_s, 1.0);
        assert_eq!(v[0].bytes_per_sec, 12288.0);
        assert_eq!(v[0].iops, 2.0);
        assert_eq!(v[0].temp_c, Some(40.0));
        assert_eq!(v[1].bytes, 100);
        assert_eq!(v[1].t_s, 2.0);
        assert_eq!(v[1].bytes_total, 4096 + 8192 + 100);
        // Latency percentiles of interval 0: 1 ms and 2 ms.
        let p50 = v[0].lat_p50_us.unwrap();
        let max = v[0].lat_max_us.unwrap();
        assert!((990.0..=1010.0).contains(&p50), "p50 {p50}");
        assert!((1980.0..=2020.0).contains(&max), "max {max}");
        // Nothing new closes until the next deadline.
        clock.set(ms(2999));
        assert!(s.collect(None).is_empty());
        // The end at 3.25 s: interval 2 closes, then a 0.25 s tail.
        clock.set(ms(3100));
        s.record(0, |_, a| a.add(50, ms(1)));
        let v = s.finish(ms(3250), None);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].bytes, 1);
        assert_eq!(v[1].bytes, 50);
        assert!((v[1].interval_s - 0.25).abs() < 1e-9);
        assert!((v[1].bytes_per_sec - 200.0).abs() < 1e-6);
        assert_eq!(v[1].bytes_total, 4096 + 8192 + 100 + 1 + 50);
    }

    #[test]
    fn reads_are_counted_apart_from_writes() {
        let clock = Arc::new(ManualClock::new());
        let s = Sampler::new(clock.clone(), ms(1000), 2).with_reads(true);
        clock.set(ms(100));
        s.record(0, |_, a| {
            a.add(4096, ms(1));
            a.add_read(8192, ms(2));
        });
        s.record(1, |_, a| a.add_read(8192, ms(4)));
        clock.set(ms(1500));
        s.record(0, |_, a| a.add(4096, ms(1)));
        let v = s.finish(ms(2000), None);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].bytes, 4096, "writes only in the main columns");
        assert_eq!(v[0].iops, 1.0);
        let r = v[0].read.as_ref().unwrap();
        assert_eq!(r.bytes, 16384);
        assert_eq!(r.iops, 2.0);
        let max = r.lat_max_us.unwrap();
        assert!((3960.0..=4040.0).contains(&max), "{max}");
        // An interval without reads still carries (zero) read counters in a run that reads.
        assert_eq!(v[1].read.as_ref().unwrap().bytes, 0);
        assert_eq!(v[1].read.as_ref().unwrap().lat_p50_us, None);
        // Whole-run percentiles take in reads and writes: 1, 1, 2, 4 ms.
        let (p50, p99) = s.total_latency_us();
        assert!((990.0..=2020.0).contains(&p50.unwrap()), "{p50:?}");
        assert!((3960.0..=4040.0).contains(&p99.unwrap()), "{p99:?}");
        // A write-only sampler makes no read counters at all.
        let w = Sampler::new(clock.clone(), ms(1000), 1);
        w.record(0, |_, a| a.add(1, ms(1)));
        assert!(w.finish(ms(3000), None).iter().all(|x| x.read.is_none()));
    }

    #[test]
    fn stalled_intervals_show_as_zero() {
        let clock = Arc::new(ManualClock::new());
        let s = Sampler::new(clock.clone(), ms(10), 1);
        clock.set(ms(5));
        s.record(0, |_, a| a.add(10, ms(1)));
        clock.set(ms(45));
        let v = s.collect(None);
        assert_eq!(v.iter().map(|x| x.bytes).collect::<Vec<_>>(), [10, 0, 0, 0]);
        assert_eq!(v[1].lat_p50_us, None);
        assert_eq!(v[3].t_s, 0.04);
    }

    #[test]
    fn finish_merging_last_avoids_a_sliver() {
        let clock = Arc::new(ManualClock::new());
        let s = Sampler::new(clock.clone(), ms(1000), 1);
        clock.set(ms(500));
        s.record(0, |_, a| a.add(10, ms(1)));
        clock.set(ms(1500));
        let v = s.collect(None);
        assert_eq!(v.len(), 1);
        s.record(0, |_, a| a.add(20, ms(1)));
        // Stop requested at the 2 s deadline (no collection there); the drain ends at 2.003 s.
        clock.set(ms(2001));
        s.record(0, |_, a| a.add(30, ms(1)));
        let v = s.finish_merging_last(ms(2003), None);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].bytes, 50);
        assert!((v[0].interval_s - 1.003).abs() < 1e-9);
        assert_eq!(v[0].bytes_total, 60);
    }

    #[test]
    fn bytes_are_conserved_under_random_records_and_collections() {
        let mut rng = fastrand::Rng::with_seed(9);
        for round in 0..20 {
            let clock = Arc::new(ManualClock::new());
            let interval = ms(rng.u64(10..200));
            let jobs = rng.usize(1..5);
            let s = Sampler::new(clock.clone(), interval, jobs);
            let mut t = Duration::ZERO;
            let mut recorded = 0u64;
            let mut rows = Vec::new();
            // Ground truth: bytes per interval index from the times recorded.
            let mut truth = std::collections::BTreeMap::<u64, u64>::new();
            for _ in 0..2000 {
                t += Duration::from_micros(rng.u64(0..5000));
                clock.set(t);
                if rng.u8(0..20) == 0 {
                    rows.extend(s.collect(None));
                } else {
                    let b = rng.u64(1..100_000);
                    let at = s.record(rng.usize(0..jobs), |_, a| a.add(b, ms(1)));
                    assert_eq!(at, t);
                    recorded += b;
                    *truth
                        .entry((at.as_nanos() / interval.as_nanos()) as u64)
                        .or_default() += b;
                }
            }
            t += Duration::from_micros(rng.u64(0..5000));
            clock.set(t);
            rows.extend(s.finish(t, None));
            let sum: u64 = rows.iter().map(|r| r.bytes).sum();
            assert_eq!(sum, recorded, "round {round}");
            assert_eq!(rows.last().unwrap().bytes_total, recorded, "round {round}");
            // Rows tile time without gaps and carry the running total.
            let mut total = 0;
            let mut prev_end = 0.0;
            for (k, r) in rows.iter().enumerate() {
                total += r.bytes;
                assert_eq!(r.bytes_total, total);
                assert!((r.t_start_s() - prev_end).abs() < 1e-9, "gap at row {k}");
                prev_end = r.t_s;
                if k + 1 < rows.len() {
                    assert_eq!(r.bytes, truth.get(&(k as u64)).copied().unwrap_or(0));
                }
            }
            // The rows end at the end, or less than a millisecond before it when nothing
            // completed in that tail (no row of it is written).
            let tail = t.as_secs_f64() - prev_end;
            assert!(
                tail.abs() < 1e-9 || (0.0..1e-3).contains(&tail),
                "tail {tail}"
            );
        }
    }
}
