//! The detector's working memory at a million samples. Each column of a million
//! numbers is 8 MB of fresh memory that the kernel faults in page by page (the faults were a
//! quarter of the detector's time at a million samples on the VM measured, in
//! docs/PERFORMANCE.md), so
//! `analyze` keeps only what it reads: the throughput, its logarithm and the periodic check's
//! ratios, and selects its long medians without copying the stretch (`detect::select`).
//! Before, it also kept every interval's end and length, a copy of the throughput for one
//! median, a million first differences and a copy of each stretch it took a level of: its
//! peak beyond the timeline was about six numbers per sample. Counted with a counting
//! allocator, on the test's own thread only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use slccache::detect::{analyze, synth};

struct Counting;

thread_local! {
    /// Whether this thread's allocations are counted (only the analysing thread's).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// Bytes allocated and not yet freed by this thread while counting.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    /// The most `LIVE` reached.
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// Adds `delta` bytes to this thread's live count if it counts (const-initialised
/// thread-locals: reading them does not allocate).
fn note(delta: i64) {
    if COUNTING.with(|c| c.get()) {
        let live = LIVE.with(|l| {
            l.set(l.get() + delta);
            l.get()
        });
        PEAK.with(|p| p.set(p.get().max(live)));
    }
}

// SAFETY: every call is passed on unchanged to the system allocator, which upholds
// `GlobalAlloc`'s contract; the counting touches const thread-locals only, which allocate
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as i64);
        // SAFETY: the caller's layout is passed on as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as i64));
        // SAFETY: `ptr` came from `System.alloc` with this layout (above).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as i64 - layout.size() as i64);
        // SAFETY: `ptr` came from `System` with `layout`; the caller guarantees `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_detector_keeps_about_three_numbers_per_sample() {
    // Long enough for the bracketed selections; 1 s samples with a cliff and GC dips, as the
    // detector bench's timelines.
    let n = 200_000;
    let t = synth::simulate(&synth::two_phase(n, 1.0), 42).0;
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    COUNTING.with(|c| c.set(true));
    let a = analyze(&t);
    COUNTING.with(|c| c.set(false));
    assert!(!a.cliffs.is_empty(), "the cliff is found");
    let per_sample = PEAK.with(|p| p.get()) as f64 / n as f64;
    // Three columns of 8 bytes, a tenth of one for a selection's bracket, and the small
    // things (block medians, warnings).
    assert!(
        per_sample < 30.0,
        "peak {per_sample:.1} bytes per sample beyond the timeline"
    );
}
