//! Aligned data buffers for direct I/O, and the data written into them.
//!
//! Each buffer is filled with random bytes once, when it is allocated (incompressible). Before
//! every write, each 4 KiB page of the buffer gets a 16-byte header at its start: the global
//! write number and a hash of (seed, write number, page). No two pages written in a run are
//! equal, so a controller that compresses or deduplicates per page (its mapping unit) or per
//! command finds nothing to save. The header costs one cache line per page: 32 lines for a
//! 128 KiB write instead of regenerating 2048, which keeps data generation far above any
//! drive's speed (see docs/PERFORMANCE.md). Buffers that are not a whole number of pages get
//! a header per 512-byte sector instead.
//!
//! What this does not hide: apart from the headers, a buffer holds the same random bytes each
//! time it is reused, so a compressor whose window spans several writes (a filesystem
//! compressing a whole stream, not a drive) could find the repeats.

use std::ptr::NonNull;

use super::offsets::mix64;

/// Size of the unit that gets a unique header: the 4 KiB page drives map, compress and dedupe.
pub const PAGE: usize = 4096;

/// The unit for buffers that are not a whole number of pages: one 512-byte sector.
pub const SECTOR: usize = 512;

/// Bytes of each unit's header.
pub const HEADER: usize = 16;

/// Size of a transparent huge page on x86-64 and arm64 (4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// `count` buffers of `size` bytes each, in one anonymous mapping aligned to `align` bytes.
///
/// Buffers of 2 MiB or more in all start on a 2 MiB boundary and are marked for transparent
/// huge pages (`MADV_HUGEPAGE`). The kernel then backs them with 2 MiB pages where it can, and
/// io_uring's registered buffers hand each I/O to the block layer as one segment per huge page
/// instead of one per 4 KiB page: a 128 KiB write is 1 segment instead of 32, which the kernel
/// builds, splits and copies faster (see docs/PERFORMANCE.md). Where huge pages are off or
/// short, the buffers are ordinary pages and work the same. The environment variable
/// `SLCCACHE_SMALL_PAGES` (any value) keeps them in small pages, for measuring the difference.
pub struct AlignedBuffers {
    /// Start of the mapping (what munmap gets).
    map: NonNull<u8>,
    /// Length of the mapping.
    map_len: usize,
    /// Start of buffer 0, inside the mapping.
    ptr: NonNull<u8>,
    size: usize,
    count: usize,
    huge: bool,
}

// SAFETY: AlignedBuffers owns its mapping exclusively (like a Box<[u8]>); moving it to
// another thread moves that ownership.
unsafe impl Send for AlignedBuffers {}

impl AlignedBuffers {
    /// Allocates `count` buffers of `size` bytes aligned to `align` (a power of two), filled
    /// with random bytes from `seed`.
    pub fn new(count: usize, size: usize, align: usize, seed: u64) -> std::io::Result<Self> {
        let total = count
            .checked_mul(size)
            .filter(|&t| t > 0)
            .ok_or_else(|| std::io::Error::other("buffer size overflow or zero"))?;
        // SLCCACHE_SMALL_PAGES=1 turns the huge pages off, to measure what they give.
        let huge = total >= HUGE_PAGE && std::env::var_os("SLCCACHE_SMALL_PAGES").is_none();
        // A mapping is page-aligned; larger alignments (huge pages, or a device asking for
        // more than a page) come from mapping that much more and starting inside it.
        let align = align
            .max(if huge { HUGE_PAGE } else { PAGE })
            .next_power_of_two();
        let map_len = total
            .checked_add(align - PAGE)
            .and_then(|l| l.checked_next_multiple_of(PAGE))
            .ok_or_else(|| std::io::Error::other("buffer size overflow"))?;
        // SAFETY: an anonymous private mapping with no address hint touches no memory of
        // ours; the result is checked for MAP_FAILED before use.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            return Err(std::io::Error::new(
                e.kind(),
                format!("cannot allocate {total} bytes of I/O buffers: {e}"),
            ));
        }
        let map = NonNull::new(raw.cast::<u8>()).expect("mmap returned null without failing");
        let skip = (align - (raw as usize % align)) % align;
        // SAFETY: skip < align and map_len >= total + align - PAGE >= total + skip (raw is
        // page-aligned, so skip is a multiple of PAGE at most align - PAGE): the buffers lie
        // inside the mapping.
        let ptr = unsafe { NonNull::new_unchecked(map.as_ptr().add(skip)) };
        if huge {
            // Before the first touch, so the faults below can take huge pages. Advice only: a
            // kernel without THP says EINVAL and the buffers stay in small pages.
            // SAFETY: the range lies inside our mapping; madvise reads and writes no memory.
            unsafe {
                libc::madvise(ptr.as_ptr().cast(), total, libc::MADV_HUGEPAGE);
            }
        }
        let mut b = AlignedBuffers {
            map,
            map_len,
            ptr,
            size,
            count,
            huge,
        };
        let mut rng = fastrand::Rng::with_seed(seed);
        for chunk in b.all_mut().chunks_mut(8) {
            let v = rng.u64(..).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(b)
    }

    /// True when the buffers were marked for huge pages (2 MiB or more in all); whether the
    /// kernel gave them is up to it.
    pub fn wants_huge_pages(&self) -> bool {
        self.huge
    }

    /// Number of buffers.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Size of each buffer.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Start of buffer `idx` (for handing to the kernel).
    ///
    /// # Panics
    /// When `idx >= count`.
    pub fn ptr(&self, idx: usize) -> *mut u8 {
        assert!(idx < self.count, "buffer index out of range");
        // SAFETY: idx * size < count * size = allocation size, so the result is in bounds.
        unsafe { self.ptr.as_ptr().add(idx * self.size) }
    }

    /// Buffer `idx`.
    pub fn get_mut(&mut self, idx: usize) -> &mut [u8] {
        let p = self.ptr(idx);
        // SAFETY: p..p+size lies within our mapping, which is initialised (anonymous mappings
        // read as zeros), and &mut self guarantees no other reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(p, self.size) }
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: the buffers lie inside our mapping, which is initialised (anonymous
        // mappings read as zeros), and &mut self guarantees no other reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.count * self.size) }
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: map and map_len are exactly what mmap returned and was given; the mapping
        // is unmapped only here, and no reference into it outlives self.
        unsafe {
            libc::munmap(self.map.as_ptr().cast(), self.map_len);
        }
    }
}

/// The unit [`stamp`] gives a unique header to in a buffer of `len` bytes: a 4 KiB page, or a
/// 512-byte sector when `len` is not a whole number of pages.
pub fn stamp_unit(len: usize) -> usize {
    if len >= PAGE && len.is_multiple_of(PAGE) {
        PAGE
    } else {
        SECTOR
    }
}

/// Puts the unique header of write number `write` at the start of every unit
/// ([`stamp_unit`]) of `buf`: 16 bytes per unit, the rest of the buffer is left as it is.
pub fn stamp(buf: &mut [u8], write: u64, seed: u64) {
    let unit = stamp_unit(buf.len());
    let base = mix64(seed ^ write.rotate_left(17));
    let w = write.to_le_bytes();
    for (s, page) in buf.chunks_mut(unit).enumerate() {
        if let Some(h) = page.get_mut(..HEADER) {
            h[..8].copy_from_slice(&w);
            h[8..].copy_from_slice(&mix64(base ^ s as u64).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn large_buffers_start_on_a_huge_page_and_small_ones_on_their_alignment() {
        // 32 x 128 KiB = 4 MiB: marked for huge pages, on a 2 MiB boundary.
        let mut b = AlignedBuffers::new(32, 128 << 10, 4096, 1).unwrap();
        if std::env::var_os("SLCCACHE_SMALL_PAGES").is_none() {
            assert!(b.wants_huge_pages());
            assert_eq!(b.ptr(0) as usize % HUGE_PAGE, 0);
        }
        // Every byte of the last buffer is ours to write (the mapping covers it).
        b.get_mut(31).fill(1);
        assert_eq!(b.get_mut(31)[(128 << 10) - 1], 1);
        // 2 x 4 KiB: small pages; an alignment above a page is kept.
        let b = AlignedBuffers::new(2, 4096, 4096, 1).unwrap();
        assert!(!b.wants_huge_pages());
        let b = AlignedBuffers::new(3, 8192, 65536, 1).unwrap();
        assert_eq!(b.ptr(0) as usize % 65536, 0);
        assert!(AlignedBuffers::new(0, 4096, 4096, 1).is_err());
    }

    #[test]
    fn buffers_are_aligned_and_distinct() {
        let mut b = AlignedBuffers::new(4, 8192, 4096, 1).unwrap();
        for i in 0..4 {
            assert_eq!(b.ptr(i) as usize % 4096, 0);
        }
        let a0 = b.get_mut(0).to_vec();
        let a1 = b.get_mut(1).to_vec();
        assert_ne!(a0, a1);
    }

    /// Writes `writes` times through `slots` buffers of `len` bytes (write k in slot k mod
    /// slots, as the job loop reuses them) and returns every unit written.
    fn written_units(slots: usize, len: usize, writes: u64) -> Vec<Vec<u8>> {
        let mut b = AlignedBuffers::new(slots, len, 4096, 3).unwrap();
        let unit = stamp_unit(len);
        let mut out = Vec::new();
        for w in 0..writes {
            let buf = b.get_mut(w as usize % slots);
            stamp(buf, w, 77);
            out.extend(buf.chunks(unit).map(|u| u.to_vec()));
        }
        out
    }

    #[test]
    fn no_unit_repeats_across_writes_and_slots() {
        for (slots, len) in [(4, 131072), (8, 4096), (3, 1536), (2, 1 << 20)] {
            let units = written_units(slots, len, 300);
            let n = units.len();
            let distinct: HashSet<Vec<u8>> = units.into_iter().collect();
            assert_eq!(distinct.len(), n, "a unit repeated ({slots} x {len} bytes)");
        }
        assert_eq!(stamp_unit(131072), 4096);
        assert_eq!(stamp_unit(1536), 512);
    }

    #[test]
    fn only_the_headers_change_between_writes() {
        // The cheap part of the design: a write touches 16 bytes per page, nothing else.
        let mut b = AlignedBuffers::new(1, 65536, 4096, 5).unwrap();
        stamp(b.get_mut(0), 1, 2);
        let before = b.get_mut(0).to_vec();
        stamp(b.get_mut(0), 2, 2);
        let after = b.get_mut(0).to_vec();
        for (i, (x, y)) in before.iter().zip(&after).enumerate() {
            if i % PAGE >= HEADER {
                assert_eq!(x, y, "byte {i} changed");
            }
        }
        assert_ne!(before, after);
    }

    /// Deflate at its best level; the size it gets `data` down to.
    fn deflated(data: &[u8]) -> usize {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap().len()
    }

    #[test]
    fn data_does_not_compress() {
        // A whole 128 KiB write, each of its pages alone, and a run of writes through
        // different slots (what a drive sees back to back): deflate saves nothing.
        let mut b = AlignedBuffers::new(4, 131072, 4096, 5).unwrap();
        let mut stream = Vec::new();
        for w in 0..4u64 {
            stamp(b.get_mut(w as usize), w, 2);
            stream.extend_from_slice(b.get_mut(w as usize));
        }
        let one = &stream[..131072];
        assert!(
            deflated(one) >= one.len(),
            "128 KiB write: {}",
            deflated(one)
        );
        for page in one.chunks(PAGE) {
            assert!(deflated(page) >= PAGE, "page: {}", deflated(page));
        }
        assert!(
            deflated(&stream) >= stream.len(),
            "stream: {}",
            deflated(&stream)
        );
        // A byte histogram is flat too (about 8 bits of entropy per byte).
        let mut h = [0u32; 256];
        for &x in one {
            h[x as usize] += 1;
        }
        let n = one.len() as f64;
        let entropy: f64 = h
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum();
        assert!(entropy > 7.99, "entropy {entropy} bits/byte");
    }
}
