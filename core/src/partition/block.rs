//! The block distribution: how OP2 applications declare sets under MPI
//! (rank `r` declares a contiguous range of each set's global elements), and
//! the partition that keeps it (`BLOCK`, and the fallback for sets no map
//! reaches).

use std::ops::Range;

/// Elements of rank `r` in the block distribution of `n` over `nparts` ranks:
/// `n / nparts`, plus one for the first `n % nparts` ranks (the
/// `compute_local_size` of OP2's MPI applications).
pub fn block_size(n: usize, nparts: usize, r: usize) -> usize {
    assert!(nparts > 0, "block_size: nparts must be positive");
    n / nparts + usize::from(r < n % nparts)
}

/// The block partition: element `g` goes to the rank whose block holds it.
pub fn block(n: usize, nparts: usize) -> Vec<i32> {
    BlockDist::standard(n, nparts).parts()
}

/// A contiguous distribution of a set: rank `r` holds global elements
/// `offsets[r]..offsets[r + 1]`. This is how sets are declared under MPI
/// (abi §4.2); the sizes may be any, not only [`block_size`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDist {
    offsets: Vec<usize>,
}

impl BlockDist {
    /// OP2's convention ([`block_size`]).
    pub fn standard(n: usize, nranks: usize) -> BlockDist {
        let sizes: Vec<usize> = (0..nranks).map(|r| block_size(n, nranks, r)).collect();
        BlockDist::from_sizes(&sizes)
    }

    /// From the local sizes every rank declared (in rank order).
    pub fn from_sizes(sizes: &[usize]) -> BlockDist {
        assert!(!sizes.is_empty(), "BlockDist: no ranks");
        let mut offsets = Vec::with_capacity(sizes.len() + 1);
        let mut acc = 0usize;
        offsets.push(0);
        for &s in sizes {
            acc += s;
            offsets.push(acc);
        }
        BlockDist { offsets }
    }

    pub fn nranks(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Global number of elements.
    pub fn global_size(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    /// `nranks + 1` offsets, starting at 0.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The global elements held by rank `r`.
    pub fn range(&self, r: usize) -> Range<usize> {
        self.offsets[r]..self.offsets[r + 1]
    }

    /// The rank holding global element `g` (`g < global_size()`).
    pub fn owner(&self, g: usize) -> usize {
        debug_assert!(g < self.global_size());
        self.offsets.partition_point(|&o| o <= g) - 1
    }

    /// The distribution as a partition vector.
    pub fn parts(&self) -> Vec<i32> {
        let mut p = Vec::with_capacity(self.global_size());
        for r in 0..self.nranks() {
            p.extend(std::iter::repeat_n(r as i32, self.range(r).len()));
        }
        p
    }
}
