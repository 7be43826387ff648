//! Simulated ranks: [`Collectives`] over threads of one process, so the
//! distributed logic (partitioning, migration, halo exchanges, reductions) is
//! tested with several ranks without MPI, and large rank counts can be
//! simulated on one machine.
//!
//! [`run_ranks`] starts one thread per rank and gives each a [`SimComm`].
//! Collectives meet at a barrier; point-to-point messages go through
//! mailboxes keyed by (source, destination, tag), sends never block. If a
//! rank panics, the others stop waiting (their next collective panics too),
//! so a failing test fails instead of hanging.

use super::collective::{Collectives, PendingMessages};
use crate::domain::{DatId, Domain, MapCheck};
use crate::error::{Op2Error, Result};
use crate::partition::BlockDist;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// What all simulated ranks share.
struct World {
    size: usize,
    state: Mutex<Shared>,
    cv: Condvar,
}

struct Shared {
    /// Barrier generation and arrivals in the current one.
    generation: u64,
    arrived: usize,
    /// A rank panicked or aborted: every wait fails.
    broken: bool,
    /// Contributions to the current collective, by rank (for all-to-all: by
    /// source, then destination).
    slots: Vec<Vec<Vec<u8>>>,
    /// Point-to-point messages by (source, destination, tag), in send order.
    mail: HashMap<(usize, usize, i32), VecDeque<Vec<u8>>>,
    /// Messages sent and bytes sent, by source rank (for scale studies).
    sent: Vec<(u64, u64)>,
    /// Bytes received from other ranks, collectives and messages (scale studies).
    received: Vec<u64>,
}

/// One simulated rank's communicator.
pub struct SimComm {
    rank: usize,
    world: Arc<World>,
}

fn broken() -> Op2Error {
    Op2Error::new("simulated MPI", "", "another rank failed")
}

impl World {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait until every rank arrived at this barrier.
    fn barrier<'a>(&'a self, mut g: MutexGuard<'a, Shared>) -> Result<MutexGuard<'a, Shared>> {
        if g.broken {
            return Err(broken());
        }
        let gen = g.generation;
        g.arrived += 1;
        if g.arrived == self.size {
            g.arrived = 0;
            g.generation += 1;
            self.cv.notify_all();
            return Ok(g);
        }
        while g.generation == gen && !g.broken {
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        if g.broken {
            return Err(broken());
        }
        Ok(g)
    }

    fn break_all(&self) {
        let mut g = self.lock();
        g.broken = true;
        self.cv.notify_all();
    }
}

impl SimComm {
    /// Messages and bytes this rank has sent point-to-point so far.
    pub fn sent(&self) -> (u64, u64) {
        self.world.lock().sent[self.rank]
    }

    /// Bytes this rank has received from other ranks so far, through
    /// collectives and messages: what its memory had to hold at some point.
    pub fn received(&self) -> u64 {
        self.world.lock().received[self.rank]
    }

    /// Put this rank's contribution in its slot, wait for all, read every
    /// slot with `read`, then wait again so no slot is reused too early.
    fn collective<R>(&self, mine: Vec<Vec<u8>>, read: impl FnOnce(&Shared) -> R) -> Result<R> {
        let mut g = self.world.lock();
        g.slots[self.rank] = mine;
        let g = self.world.barrier(g)?;
        let r = read(&g);
        drop(self.world.barrier(g)?);
        Ok(r)
    }
}

struct SimPending {
    rank: usize,
    world: Arc<World>,
    recvs: Vec<(usize, usize)>,
    tag: i32,
    done: bool,
}

impl SimPending {
    fn collect(&mut self) -> Result<Vec<Vec<u8>>> {
        self.done = true;
        let mut out = Vec::with_capacity(self.recvs.len());
        let mut g = self.world.lock();
        for &(src, len) in &self.recvs {
            let key = (src, self.rank, self.tag);
            loop {
                if let Some(m) = g.mail.get_mut(&key).and_then(|q| q.pop_front()) {
                    if m.len() != len {
                        return Err(Op2Error::new(
                            "simulated MPI",
                            "",
                            format!(
                                "rank {} expected {len} bytes from rank {src} (tag {}), got {}",
                                self.rank,
                                self.tag,
                                m.len()
                            ),
                        ));
                    }
                    g.received[self.rank] += m.len() as u64;
                    out.push(m);
                    break;
                }
                if g.broken {
                    return Err(broken());
                }
                g = self.world.cv.wait(g).unwrap_or_else(|p| p.into_inner());
            }
        }
        Ok(out)
    }
}

impl PendingMessages for SimPending {
    fn wait(mut self: Box<Self>) -> Result<Vec<Vec<u8>>> {
        self.collect()
    }
}

impl Drop for SimPending {
    fn drop(&mut self) {
        if !self.done && !std::thread::panicking() {
            // As MPI requests: wait for the messages, discard them.
            let _ = self.collect();
        }
    }
}

impl Collectives for SimComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.world.size
    }

    fn barrier(&self) -> Result<()> {
        let g = self.world.lock();
        self.world.barrier(g).map(drop)
    }

    fn allgatherv_bytes(&self, local: &[u8]) -> Result<(Vec<u8>, Vec<usize>)> {
        let me = self.rank;
        let (all, counts) = self.collective(vec![local.to_vec()], |g| {
            let counts: Vec<usize> = g.slots.iter().map(|s| s[0].len()).collect();
            (
                g.slots
                    .iter()
                    .flat_map(|s| s[0].clone())
                    .collect::<Vec<u8>>(),
                counts,
            )
        })?;
        let others: usize = counts.iter().sum::<usize>() - counts[me];
        self.world.lock().received[me] += others as u64;
        Ok((all, counts))
    }

    fn alltoallv_bytes(&self, send: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        if send.len() != self.world.size {
            return Err(Op2Error::new(
                "simulated MPI",
                "",
                format!(
                    "alltoallv with {} buffers on {} ranks",
                    send.len(),
                    self.world.size
                ),
            ));
        }
        let me = self.rank;
        let got: Vec<Vec<u8>> = self.collective(send.to_vec(), |g| {
            g.slots.iter().map(|s| s[me].clone()).collect()
        })?;
        let others: usize = got
            .iter()
            .enumerate()
            .filter(|(r, _)| *r != me)
            .map(|(_, b)| b.len())
            .sum();
        self.world.lock().received[me] += others as u64;
        Ok(got)
    }

    fn start_exchange(
        &self,
        sends: Vec<(usize, Vec<u8>)>,
        recvs: &[(usize, usize)],
        tag: i32,
    ) -> Result<Box<dyn PendingMessages>> {
        let mut g = self.world.lock();
        for (dst, buf) in sends {
            g.sent[self.rank].0 += 1;
            g.sent[self.rank].1 += buf.len() as u64;
            g.mail
                .entry((self.rank, dst, tag))
                .or_default()
                .push_back(buf);
        }
        self.world.cv.notify_all();
        Ok(Box::new(SimPending {
            rank: self.rank,
            world: self.world.clone(),
            recvs: recvs.to_vec(),
            tag,
            done: false,
        }))
    }
}

/// Run `f` on `n` simulated ranks (one thread each); the results by rank.
/// A panic on any rank is re-raised after every rank stopped.
pub fn run_ranks<R: Send>(n: usize, f: impl Fn(SimComm) -> R + Sync) -> Vec<R> {
    assert!(n > 0, "run_ranks needs at least one rank");
    let world = Arc::new(World {
        size: n,
        state: Mutex::new(Shared {
            generation: 0,
            arrived: 0,
            broken: false,
            slots: vec![Vec::new(); n],
            mail: HashMap::new(),
            sent: vec![(0, 0); n],
            received: vec![0; n],
        }),
        cv: Condvar::new(),
    });
    let results: Vec<std::thread::Result<R>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|rank| {
                let comm = SimComm {
                    rank,
                    world: world.clone(),
                };
                let (f, world) = (&f, &world);
                std::thread::Builder::new()
                    .name(format!("sim-rank-{rank}"))
                    .spawn_scoped(s, move || {
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(comm)));
                        if r.is_err() {
                            world.break_all();
                        }
                        r
                    })
                    .expect("spawn a simulated rank")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(Err))
            .collect()
    });
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|p| std::panic::resume_unwind(p)))
        .collect()
}

/// A structured grid of `nx * ny` quad cells for simulated-rank studies:
/// nodes, cells and the interior edges (each between two cells), with
/// cell->node (4), edge->node (2) and edge->cell (2) maps in global
/// numbering, and node coordinates (x, y).
pub struct SimGrid {
    pub nnodes: usize,
    pub ncells: usize,
    pub cell_nodes: Vec<i32>,
    pub edge_nodes: Vec<i32>,
    pub edge_cells: Vec<i32>,
    pub coords: Vec<f64>,
}

impl SimGrid {
    pub fn new(nx: usize, ny: usize) -> SimGrid {
        let node = |i: usize, j: usize| (j * (nx + 1) + i) as i32;
        let cell = |i: usize, j: usize| (j * nx + i) as i32;
        let mut g = SimGrid {
            nnodes: (nx + 1) * (ny + 1),
            ncells: nx * ny,
            cell_nodes: Vec::with_capacity(4 * nx * ny),
            edge_nodes: Vec::with_capacity(4 * nx * ny),
            edge_cells: Vec::with_capacity(4 * nx * ny),
            coords: Vec::with_capacity(2 * (nx + 1) * (ny + 1)),
        };
        for j in 0..=ny {
            for i in 0..=nx {
                g.coords.extend([i as f64, j as f64 * 0.7]);
            }
        }
        for j in 0..ny {
            for i in 0..nx {
                g.cell_nodes.extend([
                    node(i, j),
                    node(i + 1, j),
                    node(i + 1, j + 1),
                    node(i, j + 1),
                ]);
                if i + 1 < nx {
                    g.edge_nodes.extend([node(i + 1, j), node(i + 1, j + 1)]);
                    g.edge_cells.extend([cell(i, j), cell(i + 1, j)]);
                }
                if j + 1 < ny {
                    g.edge_nodes.extend([node(i, j + 1), node(i + 1, j + 1)]);
                    g.edge_cells.extend([cell(i, j), cell(i, j + 1)]);
                }
            }
        }
        g
    }

    pub fn nedges(&self) -> usize {
        self.edge_cells.len() / 2
    }

    /// Rank `rank`'s declared block of nodes, cells and edges (OP2's block
    /// rule), the three maps in global indices and the node coordinates
    /// (dat "x"), as an OP2 MPI program declares them before `op_partition`.
    pub fn declare(&self, rank: usize, nranks: usize) -> Result<(Domain, DatId)> {
        let mut dom = Domain::new();
        let (rn, rc, re) = (
            BlockDist::standard(self.nnodes, nranks).range(rank),
            BlockDist::standard(self.ncells, nranks).range(rank),
            BlockDist::standard(self.nedges(), nranks).range(rank),
        );
        let nodes = dom.decl_set(rn.len() as i64, "nodes")?;
        let cells = dom.decl_set(rc.len() as i64, "cells")?;
        let edges = dom.decl_set(re.len() as i64, "edges")?;
        let d = MapCheck::Deferred;
        let cn = &self.cell_nodes[rc.start * 4..rc.end * 4];
        dom.decl_map(cells, nodes, 4, cn, 0, "cell_nodes", d)?;
        let en = &self.edge_nodes[re.start * 2..re.end * 2];
        dom.decl_map(edges, nodes, 2, en, 0, "edge_nodes", d)?;
        let ec = &self.edge_cells[re.start * 2..re.end * 2];
        dom.decl_map(edges, cells, 2, ec, 0, "edge_cells", d)?;
        let xs: Vec<u8> = self.coords[rn.start * 2..rn.end * 2]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let x = dom.decl_dat("op_decl_dat", nodes, 2, "double", 8, Some(&xs), "x", false)?;
        Ok((dom, x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::Access;
    use crate::dist::collective::{allgatherv, allreduce, allreduce_logical};
    use crate::types::ScalarType;

    #[test]
    fn collectives_on_four_ranks() {
        let out = run_ranks(4, |c| {
            let r = c.rank();
            let (all, counts) = allgatherv(&c, &vec![r as i32; r]).unwrap();
            let send: Vec<Vec<u8>> = (0..4).map(|d| vec![(10 * r + d) as u8; d + 1]).collect();
            let got = c.alltoallv_bytes(&send).unwrap();
            let mut x = (r as f64 + 1.0).to_ne_bytes().to_vec();
            allreduce(&c, ScalarType::F64, Access::Inc, &mut x).unwrap();
            let mut m = (r as i32 * 7 % 5).to_ne_bytes().to_vec();
            allreduce(&c, ScalarType::I32, Access::Max, &mut m).unwrap();
            let mut b = vec![u8::from(r == 2)];
            allreduce_logical(&c, 1, Access::Inc, &mut b).unwrap();
            let mut w = vec![u8::from(r != 3)];
            allreduce_logical(&c, 1, Access::Min, &mut w).unwrap();
            (all, counts, got, x, m, b, w)
        });
        for (r, (all, counts, got, x, m, b, w)) in out.into_iter().enumerate() {
            assert_eq!(all, vec![1, 2, 2, 3, 3, 3]);
            assert_eq!(counts, vec![0, 1, 2, 3]);
            for (src, buf) in got.iter().enumerate() {
                assert_eq!(buf, &vec![(10 * src + r) as u8; r + 1]);
            }
            assert_eq!(f64::from_ne_bytes(x.try_into().unwrap()), 10.0);
            assert_eq!(i32::from_ne_bytes(m.try_into().unwrap()), 4);
            assert_eq!(b, vec![1]);
            assert_eq!(w, vec![0]);
        }
    }

    #[test]
    fn write_globals_keep_the_last_nonzero_rank() {
        let out = run_ranks(3, |c| {
            let v: [i32; 2] = match c.rank() {
                0 => [5, 0],
                1 => [0, 6],
                _ => [7, 0],
            };
            let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
            allreduce(&c, ScalarType::I32, Access::Write, &mut b).unwrap();
            b
        });
        for b in out {
            let v: Vec<i32> = b
                .chunks_exact(4)
                .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(v, vec![7, 6]);
        }
    }

    #[test]
    fn point_to_point_in_both_directions() {
        let out = run_ranks(3, |c| {
            let r = c.rank();
            let peers: Vec<usize> = (0..3).filter(|&p| p != r).collect();
            let sends = peers.iter().map(|&p| (p, vec![r as u8; p + 1])).collect();
            let recvs: Vec<(usize, usize)> = peers.iter().map(|&p| (p, r + 1)).collect();
            let p = c.start_exchange(sends, &recvs, 7).unwrap();
            (peers, p.wait().unwrap(), c.sent())
        });
        for (r, (peers, got, sent)) in out.into_iter().enumerate() {
            for (p, buf) in peers.iter().zip(got) {
                assert_eq!(buf, vec![*p as u8; r + 1]);
            }
            assert_eq!(sent.0, 2);
        }
    }

    #[test]
    fn dropped_exchanges_wait_for_their_messages() {
        let out = run_ranks(2, |c| {
            let peer = 1 - c.rank();
            // Dropped without wait: it still consumes its message...
            drop(
                c.start_exchange(vec![(peer, vec![1u8; 4])], &[(peer, 4)], 3)
                    .unwrap(),
            );
            // ...so the next exchange with the same tag gets its own.
            let p = c
                .start_exchange(vec![(peer, vec![2u8; 4])], &[(peer, 4)], 3)
                .unwrap();
            p.wait().unwrap()
        });
        for got in out {
            assert_eq!(got, vec![vec![2u8; 4]]);
        }
    }

    #[test]
    fn a_failing_rank_does_not_hang_the_others() {
        let r = std::panic::catch_unwind(|| {
            run_ranks(3, |c| {
                if c.rank() == 1 {
                    panic!("rank 1 fails");
                }
                c.barrier()
            })
        });
        assert!(r.is_err());
    }
}
