//! The detector at a million samples, split into what the process spends: wall time, user
//! and system CPU, and minor page faults (fresh memory the kernel fills in, a page at a time)
//! per `analyze`. `cargo bench --bench detect` gives the wall time alone; on a VM a page
//! fault costs several microseconds, so the memory the detector touches is part of its time.
//!
//! `cargo bench --bench detect_faults -- [SAMPLES] [RUNS]` (default 1000000 and 15). Prints one
//! line per run and the medians.

use std::time::Instant;

use slccache::detect::{analyze, synth};

/// Minor faults, user and system CPU (ms) of this process so far.
fn usage() -> (i64, f64, f64) {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed value it is given and reads
    // nothing else; RUSAGE_SELF is a valid target.
    let r = unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut r);
        r
    };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    (r.ru_minflt, ms(r.ru_utime), ms(r.ru_stime))
}

/// The middle value of `v` (sorted in place).
fn middle(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // cargo bench passes `--bench`; the numbers are the arguments that parse.
    let nums: Vec<usize> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let n = nums.first().copied().unwrap_or(1_000_000);
    let runs = nums.get(1).copied().unwrap_or(15).max(1);
    // The detector bench's timeline: two phases, 1 s samples, GC dips after the cliff.
    let t = synth::simulate(&synth::two_phase(n, 1.0), 42).0;
    let (mut wall, mut user, mut sys, mut faults) = (vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let before = usage();
        let start = Instant::now();
        let a = analyze(std::hint::black_box(&t));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let after = usage();
        std::hint::black_box(a);
        let f = (after.0 - before.0) as f64;
        println!(
            "{n} samples: {ms:.1} ms wall, {:.1} ms user, {:.1} ms system, {f:.0} page faults",
            after.1 - before.1,
            after.2 - before.2
        );
        wall.push(ms);
        user.push(after.1 - before.1);
        sys.push(after.2 - before.2);
        faults.push(f);
    }
    println!(
        "median of {runs}: {:.1} ms wall, {:.1} ms user, {:.1} ms system, {:.0} page faults",
        middle(&mut wall),
        middle(&mut user),
        middle(&mut sys),
        middle(&mut faults)
    );
}
