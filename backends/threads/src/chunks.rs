//! The blocks of a loop with one colour (every direct loop) handed out in
//! contiguous chunks, one per team member, as OpenMP's static schedule (and
//! OP2's generated code for direct loops) does: member `m` runs the blocks of
//! its own chunk from the front, in order; a member done with its own chunk
//! takes blocks from the back of the others', so that a member that starts
//! late (woken after the others) or runs slowly does not hold the loop up.
//!
//! Taking blocks one at a time from one shared counter instead sends
//! neighbouring blocks to different cores: a core's prefetchers then run
//! into the next block, which the other core writes (aero's updateP and
//! updateUR on 2 threads, issue 26: about 1.3x slower per call, medians,
//! AMD EPYC). Which member runs a block never changes a result: reductions
//! have a slot per block, combined in block order.

use std::sync::atomic::{AtomicU64, Ordering};

/// Teams up to this size get a chunk per member; larger teams take blocks
/// one at a time.
pub(crate) const MAX_MEMBERS: usize = 16;

/// One member's chunk: the next block from the front in the high 32 bits,
/// the end (one past the last block not yet taken) in the low 32 bits. On a
/// cache line of its own: a member takes from its own chunk without
/// touching the others'.
#[repr(align(64))]
struct Cursor(AtomicU64);

fn pack(front: usize, back: usize) -> u64 {
    ((front as u64) << 32) | back as u64
}

/// Take the block at the front (`front`) or the back of a chunk.
fn take(c: &AtomicU64, front: bool) -> Option<usize> {
    let mut cur = c.load(Ordering::Relaxed);
    loop {
        let (f, b) = ((cur >> 32) as usize, (cur & 0xffff_ffff) as usize);
        if f >= b {
            return None;
        }
        let (next, got) = if front {
            (pack(f + 1, b), f)
        } else {
            (pack(f, b - 1), b - 1)
        };
        match c.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(got),
            Err(now) => cur = now,
        }
    }
}

/// The chunks of blocks `0..nblocks` (indices into the colour's blocks).
pub(crate) struct Chunks {
    cur: [Cursor; MAX_MEMBERS],
    members: usize,
}

impl Chunks {
    /// `nblocks` blocks split among `members` members: member `m`'s chunk is
    /// `m * nblocks / members .. (m + 1) * nblocks / members`. None for more
    /// than [`MAX_MEMBERS`] members (or more blocks than 32 bits count).
    pub(crate) fn new(nblocks: usize, members: usize) -> Option<Chunks> {
        if members == 0 || members > MAX_MEMBERS || nblocks > u32::MAX as usize {
            return None;
        }
        let cur = std::array::from_fn(|m| {
            let (lo, hi) = if m < members {
                (m * nblocks / members, (m + 1) * nblocks / members)
            } else {
                (0, 0)
            };
            Cursor(AtomicU64::new(pack(lo, hi)))
        });
        Some(Chunks { cur, members })
    }

    /// The next block for member `me`: the front of its own chunk, else the
    /// back of another member's (the following members' first); None when
    /// every block has been taken. Each block is returned once.
    pub(crate) fn next(&self, me: usize) -> Option<usize> {
        take(&self.cur[me].0, true).or_else(|| {
            (1..self.members).find_map(|k| take(&self.cur[(me + k) % self.members].0, false))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn chunks_are_contiguous_and_in_order() {
        let c = Chunks::new(10, 3).unwrap();
        let mine: Vec<usize> = std::iter::from_fn(|| take(&c.cur[1].0, true)).collect();
        assert_eq!(mine, vec![3, 4, 5]);
        // member 1 done with its own: it takes from the back of member 2's
        assert_eq!(c.next(1), Some(9));
        assert_eq!(c.next(2), Some(6));
        assert_eq!(c.next(1), Some(8));
        assert_eq!(c.next(1), Some(7));
        // then from member 0's
        assert_eq!(c.next(2), Some(2));
        assert_eq!(c.next(0), Some(0));
        assert_eq!(c.next(0), Some(1));
        assert_eq!(c.next(0), None);
        assert_eq!(c.next(1), None);
    }

    #[test]
    fn limits() {
        assert!(Chunks::new(5, MAX_MEMBERS + 1).is_none());
        assert!(Chunks::new(5, 0).is_none());
        let c = Chunks::new(0, 2).unwrap();
        assert_eq!(c.next(0), None);
        // fewer blocks than members: some chunks are empty
        let c = Chunks::new(1, 4).unwrap();
        assert_eq!(
            (0..4).filter_map(|m| c.next(m)).collect::<Vec<_>>(),
            vec![0]
        );
    }

    /// Members taking concurrently (some of them late) get every block
    /// exactly once.
    #[test]
    fn every_block_once_under_contention() {
        for members in [2, 3, 5, MAX_MEMBERS] {
            let nblocks = 1000;
            let c = Chunks::new(nblocks, members).unwrap();
            let hits: Vec<AtomicUsize> = (0..nblocks).map(|_| AtomicUsize::new(0)).collect();
            std::thread::scope(|s| {
                for me in 0..members {
                    let (c, hits) = (&c, &hits);
                    s.spawn(move || {
                        if me % 2 == 1 {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                        while let Some(b) = c.next(me) {
                            hits[b].fetch_add(1, Ordering::Relaxed);
                        }
                    });
                }
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }
}
