//! The balanced random partition (`RANDOM`): element by element from a
//! pseudo-random permutation of the set, so a distributed partitioner can
//! compute the part of the elements it holds without the others.

/// SplitMix64: a small, well-mixed deterministic generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`), without modulo bias (rejection).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return x % n;
            }
        }
    }
}

/// A balanced random partition of `n` elements: element `g` goes to part
/// `perm(g) % nparts`, where `perm` is a pseudo-random permutation of
/// `[0, n)` drawn from `seed` ([`random_part`]). Part sizes are those of
/// [`block_size`](super::block_size) (they differ by at most one).
pub fn random(n: usize, nparts: usize, seed: u64) -> Vec<i32> {
    assert!(nparts > 0, "random: nparts must be positive");
    (0..n).map(|g| random_part(n, nparts, seed, g)).collect()
}

/// The part of element `g` in [`random`]`(n, nparts, seed)`, computed alone
/// (O(1) expected time and memory): a distributed partitioner evaluates it for
/// the elements it holds without the others.
pub fn random_part(n: usize, nparts: usize, seed: u64, g: usize) -> i32 {
    debug_assert!(g < n && nparts > 0);
    (permute(n as u64, seed, g as u64) % nparts as u64) as i32
}

/// A bijection of `[0, n)`: a four-round Feistel network on the smallest
/// even number of bits covering `n`, walked until it lands inside `[0, n)`
/// (cycle walking keeps it a bijection; fewer than four steps on average).
fn permute(n: u64, seed: u64, x: u64) -> u64 {
    let bits = (64 - n.saturating_sub(1).leading_zeros())
        .max(2)
        .div_ceil(2);
    let mask = (1u64 << bits) - 1;
    let round = |r: u64, v: u64| SplitMix64::new(seed ^ (r << 56) ^ v).next_u64() & mask;
    let mut x = x;
    loop {
        let (mut l, mut r) = (x >> bits, x & mask);
        for k in 0..4 {
            let t = l ^ round(k, r);
            l = r;
            r = t;
        }
        x = (l << bits) | r;
        if x < n {
            return x;
        }
    }
}
