//! The directory behind [`super::scalable`]: how ranks that each hold a block
//! of a set answer questions about elements they do not hold, without any
//! rank holding the whole set.
//!
//! A set declared under MPI is distributed in blocks ([`BlockDist`]): rank
//! `r` declared global elements `offsets[r]..offsets[r + 1]`. That rank is
//! the *directory* of those elements: it keeps per-element facts about them
//! (the new owner after partitioning, the graph rows of a k-way partition)
//! and answers for them. A question about a remote element is one
//! [`exchange`] of requests to the directory ranks and one of answers
//! ([`lookup`]). Memory per rank is O(its block + the questions it asks).
//!
//! Global ids travel as `u32` (the partitioning phases refuse sets of
//! `u32::MAX - 1` elements or more, as the replicated ones do).

use super::collective::{self, Collectives, Pod};
use crate::error::{Op2Error, Result};
use crate::graph::Csr;
use crate::partition::{kway, BlockDist, GraphPartitioner};

/// The message tag of [`exchange`]'s point-to-point messages: the largest
/// tag every MPI library allows (halo exchanges tag with the dat's index).
const EXCHANGE_TAG: i32 = 32767;

/// Send `send[r]` to rank `r` (typed all-to-all; `send.len() == c.size()`);
/// what every rank sent here, by source rank.
///
/// The phases move vectors as large as the local mesh through this, so it
/// keeps one copy of the data in flight, not the several (bytes, flat send,
/// flat receive, split, typed) of an `alltoallv` over concatenated
/// buffers: counts go by `alltoallv`, then each non-empty vector travels as
/// its own message (converted to bytes one destination at
/// a time, the typed vector dropped as it goes; received buffers converted
/// and dropped one source at a time); this rank's own part never leaves.
pub fn exchange<T: Pod>(c: &dyn Collectives, send: Vec<Vec<T>>) -> Result<Vec<Vec<T>>> {
    let (me, n) = (c.rank(), c.size());
    let counts: Vec<Vec<u8>> = send
        .iter()
        .map(|v| (v.len() as u64).to_le_bytes().to_vec())
        .collect();
    let rcounts: Vec<usize> = c
        .alltoallv_bytes(&counts)?
        .iter()
        .map(|b| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[..8]);
            u64::from_le_bytes(w) as usize
        })
        .collect();
    let mut out: Vec<Vec<T>> = (0..n).map(|_| Vec::new()).collect();
    let mut sends = Vec::new();
    for (r, v) in send.into_iter().enumerate() {
        if r == me {
            out[r] = v;
        } else if !v.is_empty() {
            sends.push((r, collective::to_bytes(&v)));
        }
    }
    let recvs: Vec<(usize, usize)> = (0..n)
        .filter(|&r| r != me && rcounts[r] > 0)
        .map(|r| (r, rcounts[r] * T::SIZE))
        .collect();
    let got = c.start_exchange(sends, &recvs, EXCHANGE_TAG)?.wait()?;
    for (&(r, _), b) in recvs.iter().zip(got) {
        out[r] = collective::from_bytes(&b);
    }
    Ok(out)
}

/// The values `table` (this rank's directory entries: one per element of its
/// declared block of a set distributed as `b`) holds for the global ids
/// `queries`, asked from their directory ranks; aligned with `queries`.
/// Collective. Every query must be a global id of the set.
pub fn lookup<T: Pod>(
    c: &dyn Collectives,
    b: &BlockDist,
    table: &[T],
    queries: &[u32],
) -> Result<Vec<T>> {
    let mut uniq = queries.to_vec();
    uniq.sort_unstable();
    uniq.dedup();
    let mut ask = vec![Vec::new(); c.size()];
    for &g in &uniq {
        ask[b.owner(g as usize)].push(g);
    }
    let asked = exchange(c, ask)?;
    let start = b.range(c.rank()).start;
    let answers: Vec<Vec<T>> = asked
        .iter()
        .map(|qs| qs.iter().map(|&g| table[g as usize - start]).collect())
        .collect();
    drop(asked);
    // Owners grow with the global id, so the answers, concatenated in rank
    // order, follow `uniq`.
    let flat: Vec<T> = exchange(c, answers)?.into_iter().flatten().collect();
    debug_assert_eq!(flat.len(), uniq.len());
    Ok(queries
        .iter()
        .map(|g| flat[uniq.binary_search(g).expect("asked")])
        .collect())
}

/// One verdict for every rank: `Ok` when every rank succeeded, otherwise the
/// error of the lowest failing rank, on every rank (so that no rank goes on
/// into a collective the others have left). Collective.
pub fn agree<T>(c: &dyn Collectives, mine: Result<T>) -> Result<T> {
    let msg = match &mine {
        Ok(_) => Vec::new(),
        Err(e) => [e.call.as_str(), e.object.as_str(), e.msg.as_str()]
            .join("\0")
            .into_bytes(),
    };
    let (all, counts) = c.allgatherv_bytes(&msg)?;
    let mut off = 0;
    for n in counts {
        if n > 0 {
            let text = String::from_utf8_lossy(&all[off..off + n]).into_owned();
            let mut parts = text.splitn(3, '\0');
            let (call, object, msg) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            return Err(Op2Error::new(call, object, msg));
        }
        off += n;
    }
    mine
}

/// Sum of one count over ranks. Collective.
pub fn sum(c: &dyn Collectives, v: u64) -> Result<u64> {
    Ok(collective::allgather_one(c, v)?.iter().sum())
}

/// Element-wise sums of a vector over ranks (same length everywhere).
pub fn sum_vec(c: &dyn Collectives, v: &[u64]) -> Result<Vec<u64>> {
    let (all, _) = collective::allgatherv(c, v)?;
    let mut out = vec![0u64; v.len()];
    for chunk in all.chunks_exact(v.len().max(1)) {
        for (o, x) in out.iter_mut().zip(chunk) {
            *o += x;
        }
    }
    Ok(out)
}

/// [`sum_vec`] for mostly-zero vectors: each rank sends only its non-zero
/// entries (index, value), so a vector of one entry per group costs
/// O(groups this rank touches x ranks), not O(groups x ranks).
pub fn sparse_sum(c: &dyn Collectives, v: &[u64]) -> Result<Vec<u64>> {
    let mine: Vec<u64> = v
        .iter()
        .enumerate()
        .filter(|(_, &x)| x != 0)
        .flat_map(|(i, &x)| [i as u64, x])
        .collect();
    let (all, _) = collective::allgatherv(c, &mine)?;
    let mut out = vec![0u64; v.len()];
    for p in all.chunks_exact(2) {
        out[p[0] as usize] += p[1];
    }
    Ok(out)
}

/// Any rank says yes. Collective.
pub fn any(c: &dyn Collectives, mine: bool) -> Result<bool> {
    Ok(collective::allgather_one(c, u8::from(mine))?
        .iter()
        .any(|&b| b != 0))
}

/// OP2's k-way graph of a map (see [`crate::graph::adjacency`]), built
/// where the map's rows are declared and distributed like the to-set `b`:
/// the rows of this rank's block ([`Csr::from_sorted_pairs`]), with global
/// neighbour ids, sorted, no self loops. `rows`: this rank's declared map rows (`dim` targets each, global
/// ids of the to-set). Collective; O(local rows + local vertices) memory.
pub fn adjacency(c: &dyn Collectives, b: &BlockDist, rows: &[i32], dim: usize) -> Result<Csr> {
    let mut send = vec![Vec::<u32>::new(); c.size()];
    for row in rows.chunks_exact(dim.max(1)) {
        for &u in row {
            for &v in row {
                if u != v {
                    let dst = &mut send[b.owner(u as usize)];
                    dst.extend([u as u32, v as u32]);
                }
            }
        }
    }
    let range = b.range(c.rank());
    let mut pairs = sorted_pairs(exchange(c, send)?);
    pairs.dedup();
    Csr::from_sorted_pairs(range.start, range.len(), &pairs)
}

/// Received `(a, b)` pairs of `u32` (flattened, from every rank) as sorted
/// `(a << 32) | b` keys.
pub fn sorted_pairs(got: Vec<Vec<u32>>) -> Vec<u64> {
    let mut pairs: Vec<u64> = got
        .iter()
        .flat_map(|v| v.chunks_exact(2))
        .map(|p| (u64::from(p[0]) << 32) | u64::from(p[1]))
        .collect();
    drop(got);
    pairs.sort_unstable();
    pairs
}

/// A k-way graph partitioner for a graph distributed over the ranks by
/// vertex blocks: rank `r` holds vertices `vtxdist[r]..vtxdist[r + 1]`, its
/// rows in `graph` (global neighbour ids). Returns the part of each of this
/// rank's vertices. Collective.
pub trait DistGraphPartitioner: Send + Sync {
    /// For messages ("PT-Scotch", "METIS on rank 0").
    fn name(&self) -> &str;
    fn partition(
        &self,
        c: &dyn Collectives,
        vtxdist: &[usize],
        graph: &Csr,
        nparts: usize,
    ) -> std::result::Result<Vec<i32>, String>;
}

/// A serial partitioner behind the distributed interface: on one rank it
/// runs on the (whole) local graph; on several, rank 0 gathers the graph,
/// partitions it and sends every rank its parts. Only rank 0 then holds the
/// global graph (O(global) memory there): the fallback where no distributed
/// partitioner (PT-Scotch) is available, and the reference in tests.
pub struct GatheredKway(pub GraphPartitioner);

impl DistGraphPartitioner for GatheredKway {
    fn name(&self) -> &str {
        "METIS on rank 0"
    }

    fn partition(
        &self,
        c: &dyn Collectives,
        vtxdist: &[usize],
        graph: &Csr,
        nparts: usize,
    ) -> std::result::Result<Vec<i32>, String> {
        if c.size() == 1 {
            return kway(graph, nparts, self.0);
        }
        let e = |err: Op2Error| err.msg;
        let mut send = vec![Vec::<i32>::new(); c.size()];
        let degrees = graph.xadj.windows(2).map(|w| w[1] - w[0]);
        send[0] = degrees.chain(graph.adjncy.iter().copied()).collect();
        let got = exchange(c, send).map_err(e)?;
        let mine = if c.rank() == 0 {
            self.gathered(&got, vtxdist, nparts)
        } else {
            Ok(Vec::new())
        };
        let mine = agree(c, mine.map_err(|m| Op2Error::new("", "", m))).map_err(e)?;
        let mut back = vec![Vec::<i32>::new(); c.size()];
        if c.rank() == 0 {
            for (r, out) in back.iter_mut().enumerate() {
                *out = mine[vtxdist[r]..vtxdist[r + 1]].to_vec();
            }
        }
        let mut got = exchange(c, back).map_err(e)?;
        Ok(std::mem::take(&mut got[0]))
    }
}

impl GatheredKway {
    /// Rank 0: the global graph from every rank's degrees and rows, partitioned.
    fn gathered(
        &self,
        got: &[Vec<i32>],
        vtxdist: &[usize],
        nparts: usize,
    ) -> std::result::Result<Vec<i32>, String> {
        let n = *vtxdist.last().unwrap_or(&0);
        let mut offsets = Vec::with_capacity(n + 1);
        let mut adjncy = Vec::new();
        offsets.push(0usize);
        for (r, msg) in got.iter().enumerate() {
            let nv = vtxdist[r + 1] - vtxdist[r];
            for &d in &msg[..nv] {
                offsets.push(offsets.last().unwrap() + d as usize);
            }
            adjncy.extend_from_slice(&msg[nv..]);
        }
        let graph = Csr::from_parts(offsets, adjncy).map_err(|e| e.msg)?;
        kway(&graph, nparts, self.0)
    }
}

/// Global ids as `u32`, with the check that they fit.
pub fn check_size(call: &str, name: &str, n: usize) -> Result<()> {
    if n >= (u32::MAX - 1) as usize {
        return Err(Op2Error::new(
            call,
            crate::error::obj("set", name),
            format!(
                "{n} elements: the partitioner handles sets below {}",
                u32::MAX - 1
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::sim::run_ranks;
    use crate::graph::GlobalMap;

    #[test]
    fn lookups_answer_from_the_directory_rank() {
        let b = BlockDist::from_sizes(&[3, 0, 5, 2]);
        let out = run_ranks(4, |c| {
            let r = b.range(c.rank());
            let table: Vec<i32> = r.map(|g| 100 + g as i32).collect();
            let q: Vec<u32> = (0..10).rev().chain([4, 4, 0]).collect();
            lookup(&c, &b, &table, &q).unwrap()
        });
        for got in out {
            let want: Vec<i32> = (0..10).rev().chain([4, 4, 0]).map(|g| 100 + g).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn distributed_adjacency_is_the_global_one_by_blocks() {
        // 6 rows of dim 3 over 7 to-elements, with a repeated target
        let rows: Vec<i32> = vec![0, 1, 2, 2, 3, 3, 4, 5, 6, 6, 0, 1, 3, 4, 5, 1, 1, 6];
        let g = GlobalMap {
            from: 0,
            to: 1,
            dim: 3,
            values: &rows,
        };
        let want = crate::graph::adjacency(&g, 7).unwrap();
        let nranks = 3;
        let (bf, bt) = (
            BlockDist::standard(6, nranks),
            BlockDist::standard(7, nranks),
        );
        let out = run_ranks(nranks, |c| {
            let rr = bf.range(c.rank());
            adjacency(&c, &bt, &rows[rr.start * 3..rr.end * 3], 3).unwrap()
        });
        for (r, csr) in out.iter().enumerate() {
            for (k, v) in bt.range(r).enumerate() {
                assert_eq!(csr.neighbours(k), want.neighbours(v), "vertex {v}");
            }
        }
    }

    #[test]
    fn agreement_reports_the_lowest_failing_rank_everywhere() {
        let out = run_ranks(3, |c| {
            let mine = if c.rank() >= 1 {
                Err(Op2Error::new(
                    "op_x",
                    "set \"s\"",
                    format!("bad {}", c.rank()),
                ))
            } else {
                Ok(())
            };
            agree(&c, mine).unwrap_err().to_string()
        });
        for m in out {
            assert_eq!(m, "OP2 error in op_x (set \"s\"): bad 1");
        }
    }
}
