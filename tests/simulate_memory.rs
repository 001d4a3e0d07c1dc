//! `simulate`'s per-sample work allocates nothing. The virtual drive used to
//! allocate a `Vec` of latencies for every sample; it keeps one now. Counted with a counting
//! allocator that counts on the test's own thread only: the test harness's main thread may
//! allocate while the test runs (it did, now and then, and failed the test).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use slccache::config::WorkloadConfig;
use slccache::detect::stop::SampleSource;
use slccache::experiment::virtual_time::VirtualDrive;
use slccache::model::presets;
use slccache::workload::Pattern;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Whether this thread's allocations are counted (only the measuring loop's thread).
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Counts one allocation if this thread counts (a const-initialised thread-local: reading
/// it does not allocate).
fn note_alloc() {
    if COUNTING.with(|c| c.get()) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed on unchanged to the system allocator, which upholds
// `GlobalAlloc`'s contract; the counting reads a const thread-local and adds to an atomic,
// neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's layout is passed on as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout (above).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: `ptr` came from `System` with `layout`; the caller guarantees `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn workload(pattern: Pattern, interval: Duration, read_pct: u32) -> WorkloadConfig {
    WorkloadConfig {
        pattern,
        read_pct,
        block_size: 128 << 10,
        queue_depth: 32,
        jobs: 1,
        interval,
        span: None,
        duration: Some(Duration::from_secs(3600)),
        max_bytes: Some(u64::MAX / 2),
        passes: None,
        seed: 1,
        scenario: None,
        description: None,
    }
}

#[test]
fn samples_after_the_first_allocate_nothing() {
    // 10 ms samples (one or two stretches each) and 1 s samples (ten noise slots, dips), with
    // and without reads, through the cache and past it.
    for (model, interval, read_pct) in [
        ("960evo-500g", Duration::from_millis(10), 0),
        ("960evo-500g", Duration::from_secs(1), 0),
        ("960evo-250g", Duration::from_secs(1), 30),
    ] {
        let m = presets::find(model).unwrap();
        let w = workload(Pattern::Seqwrite, interval, read_pct);
        let mut drive = VirtualDrive::new(&m, &w).unwrap();
        // The first samples may grow the drive's buffer to the most stretches a sample has.
        for _ in 0..50 {
            drive.next_sample().unwrap().unwrap();
        }
        let before = ALLOCS.load(Ordering::Relaxed);
        let mut made = 0u64;
        let mut left_cache = false;
        COUNTING.with(|c| c.set(true));
        for _ in 0..3000 {
            let s = drive.next_sample().unwrap().unwrap();
            assert!(s.bytes > 0);
            made += 1;
            left_cache |= drive.left_cache_at_s().is_some();
        }
        COUNTING.with(|c| c.set(false));
        let allocs = ALLOCS.load(Ordering::Relaxed) - before;
        assert_eq!(made, 3000);
        assert_eq!(
            allocs, 0,
            "{model} at {interval:?}: {allocs} allocations for {made} samples"
        );
        if interval >= Duration::from_secs(1) {
            assert!(left_cache, "{model}: the run reached the direct phase");
        }
    }
}
