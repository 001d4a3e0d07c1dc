//! Aligned data buffers for direct I/O, and the data written into them.
//!
//! Each buffer starts as random bytes (incompressible). Before every write, each 512-byte
//! sector of the buffer gets a 16-byte stamp at its start: the global write number and a hash
//! of (seed, write number, sector). No two sectors written in a run are equal, so a controller
//! can neither compress nor deduplicate them, and the cost is 16 bytes per sector instead of
//! regenerating the whole buffer.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

use super::offsets::mix64;

/// Size of the unit that gets a unique stamp.
pub const SECTOR: usize = 512;

/// `count` buffers of `size` bytes each, in one allocation aligned to `align` bytes.
pub struct AlignedBuffers {
    ptr: NonNull<u8>,
    layout: Layout,
    size: usize,
    count: usize,
}

// SAFETY: AlignedBuffers owns its allocation exclusively (like a Box<[u8]>); moving it to
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
        let align = align.max(4096).next_power_of_two();
        let layout = Layout::from_size_align(total, align).map_err(std::io::Error::other)?;
        // SAFETY: layout has a non-zero size (checked above).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("cannot allocate {total} bytes of I/O buffers"),
            )
        })?;
        let mut b = AlignedBuffers {
            ptr,
            layout,
            size,
            count,
        };
        let mut rng = fastrand::Rng::with_seed(seed);
        for chunk in b.all_mut().chunks_mut(8) {
            let v = rng.u64(..).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(b)
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
        // SAFETY: p..p+size lies within our allocation, which is initialised (alloc_zeroed),
        // and &mut self guarantees no other reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(p, self.size) }
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: the whole allocation is ours and initialised (alloc_zeroed), and &mut self
        // guarantees no other reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: ptr was returned by alloc with exactly this layout and is freed only here.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Puts the unique stamp of write number `write` into every 512-byte sector of `buf`.
pub fn stamp(buf: &mut [u8], write: u64, seed: u64) {
    let base = mix64(seed ^ write.rotate_left(17));
    for (s, sector) in buf.chunks_mut(SECTOR).enumerate() {
        if sector.len() < 16 {
            break;
        }
        sector[..8].copy_from_slice(&write.to_le_bytes());
        sector[8..16].copy_from_slice(&mix64(base ^ s as u64).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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

    #[test]
    fn no_two_sectors_repeat_across_writes() {
        // One buffer reused for many writes: every sector ever written must differ.
        let mut b = AlignedBuffers::new(1, 4096, 4096, 3).unwrap();
        let mut seen = HashSet::new();
        for w in 0..200u64 {
            stamp(b.get_mut(0), w, 77);
            for sec in b.get_mut(0).chunks(SECTOR) {
                assert!(seen.insert(sec.to_vec()), "sector repeated at write {w}");
            }
        }
    }

    #[test]
    fn data_does_not_compress() {
        // A crude entropy check: byte histogram of random data is flat.
        let mut b = AlignedBuffers::new(1, 1 << 16, 4096, 5).unwrap();
        stamp(b.get_mut(0), 1, 2);
        let mut h = [0u32; 256];
        for &x in b.get_mut(0).iter() {
            h[x as usize] += 1;
        }
        let n = (1 << 16) as f64;
        let entropy: f64 = h
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum();
        assert!(entropy > 7.9, "entropy {entropy} bits/byte");
    }
}
