//! Write offsets: sequential (wrapping at the end of the span) or random, where every block of
//! the span is written exactly once per pass before any block repeats.
//!
//! The random order is a keyed permutation of `0..blocks` built without a bitmap: a 4-round
//! Feistel network over the smallest even-bit power of two that holds `blocks` (a bijection by
//! construction, whatever the round function), restricted to `0..blocks` by cycle-walking
//! (apply the network again until the value falls inside the range; a bijection on a superset
//! restricted this way is a bijection on the subset). The domain is at most 4x the range, so
//! the expected number of steps is at most 4. Each pass uses new keys, so passes differ.
//!
//! All jobs of a run share one write counter `k`; write `k` goes to block
//! `perm(pass = k / blocks)(k % blocks)`, which keeps "each block once per pass" true across
//! jobs, and `k` is also the unique stamp put into the data.

use crate::workload::Pattern;

/// Maps a global write index to a byte offset in the span.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    pattern: Pattern,
    block_size: u64,
    blocks: u64,
    seed: u64,
    half_bits: u32,
}

/// SplitMix64 finaliser: a fast, well-mixed 64-bit hash.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl OffsetGen {
    /// A generator over `blocks` blocks of `block_size` bytes (offsets `0..blocks*block_size`).
    ///
    /// # Panics
    /// When `blocks` or `block_size` is zero (the caller validates the workload first).
    pub fn new(pattern: Pattern, block_size: u64, blocks: u64, seed: u64) -> OffsetGen {
        assert!(blocks > 0 && block_size > 0, "empty span");
        // Bits needed for values 0..blocks, rounded up to an even number (at least 2).
        let bits = 64 - (blocks - 1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        OffsetGen {
            pattern,
            block_size,
            blocks,
            seed,
            half_bits,
        }
    }

    /// Number of blocks in one pass.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Block size in bytes.
    pub fn block_size(&self) -> u64 {
        self.block_size
    }

    /// The block written by global write number `k`.
    pub fn block(&self, k: u64) -> u64 {
        let i = k % self.blocks;
        if self.pattern.is_random() {
            self.permute(k / self.blocks, i)
        } else {
            i
        }
    }

    /// The byte offset written by global write number `k`.
    pub fn offset(&self, k: u64) -> u64 {
        self.block(k) * self.block_size
    }

    /// The permutation of pass `pass` applied to `i` (< blocks).
    fn permute(&self, pass: u64, i: u64) -> u64 {
        if self.blocks == 1 {
            return 0;
        }
        let keys = self.keys(pass);
        let mut x = i;
        loop {
            x = self.feistel(x, &keys);
            if x < self.blocks {
                return x;
            }
        }
    }

    fn keys(&self, pass: u64) -> [u64; 4] {
        let base = mix64(self.seed ^ mix64(pass.wrapping_add(0x5151)));
        [
            mix64(base ^ 1),
            mix64(base ^ 2),
            mix64(base ^ 3),
            mix64(base ^ 4),
        ]
    }

    fn feistel(&self, x: u64, keys: &[u64; 4]) -> u64 {
        let h = self.half_bits;
        let mask = (1u64 << h) - 1;
        let mut l = (x >> h) & mask;
        let mut r = x & mask;
        for &k in keys {
            let f = mix64(r ^ k) & mask;
            let nl = r;
            r = l ^ f;
            l = nl;
        }
        (l << h) | r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_pass(g: &OffsetGen, pass: u64) -> Vec<u64> {
        let n = g.blocks();
        let mut seen = vec![false; n as usize];
        let mut order = Vec::with_capacity(n as usize);
        for i in 0..n {
            let off = g.offset(pass * n + i);
            assert_eq!(off % g.block_size(), 0, "offset {off} not aligned");
            assert!(off < n * g.block_size(), "offset {off} outside the span");
            let b = (off / g.block_size()) as usize;
            assert!(!seen[b], "block {b} written twice in pass {pass}");
            seen[b] = true;
            order.push(b as u64);
        }
        assert!(seen.iter().all(|&s| s), "a block was missed in pass {pass}");
        order
    }

    #[test]
    fn random_covers_every_block_once_per_pass() {
        for &n in &[1u64, 2, 3, 5, 7, 64, 100, 1000, 4097, 65_537] {
            let g = OffsetGen::new(Pattern::Randwrite, 4096, n, 42);
            let p0 = check_pass(&g, 0);
            let p1 = check_pass(&g, 1);
            if n > 8 {
                assert_ne!(p0, p1, "passes should use different orders (n={n})");
                let identity: Vec<u64> = (0..n).collect();
                assert_ne!(p0, identity, "random order must not be sequential (n={n})");
            }
        }
    }

    #[test]
    fn random_is_spread_over_the_span() {
        // The first 10% of a pass should land all over the span, not in one corner.
        let n = 100_000u64;
        let g = OffsetGen::new(Pattern::Randwrite, 512, n, 7);
        let mut buckets = [0u32; 10];
        for k in 0..n / 10 {
            buckets[(g.block(k) * 10 / n) as usize] += 1;
        }
        for (i, &c) in buckets.iter().enumerate() {
            assert!(
                (700..=1300).contains(&c),
                "bucket {i} got {c} of 10000 first writes: {buckets:?}"
            );
        }
    }

    #[test]
    fn seeds_differ() {
        let a = OffsetGen::new(Pattern::Randwrite, 4096, 1000, 1);
        let b = OffsetGen::new(Pattern::Randwrite, 4096, 1000, 2);
        let va: Vec<u64> = (0..1000).map(|k| a.block(k)).collect();
        let vb: Vec<u64> = (0..1000).map(|k| b.block(k)).collect();
        assert_ne!(va, vb);
    }

    #[test]
    fn sequential_wraps_at_end_of_span() {
        let g = OffsetGen::new(Pattern::Seqwrite, 131_072, 5, 0);
        let offs: Vec<u64> = (0..12).map(|k| g.offset(k) / 131_072).collect();
        assert_eq!(offs, vec![0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]);
        check_pass(&g, 3);
    }
}
