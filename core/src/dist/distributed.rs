//! OP2's MPI semantics over any [`Collectives`] (abi.md §4).
//!
//! Before `op_partition` every rank holds its declared block of each set and
//! maps hold global indices. `op_partition` runs the [`driver`] phases. Loops
//! then exchange dirty halos before they read them (non-blocking: the
//! executor runs the core elements meanwhile), execute the exec halo
//! redundantly when they write through a map, and combine global reductions
//! across ranks.

use super::collective::{self, Collectives, PendingMessages};
use super::cross_rank;
use super::directory::{DistGraphPartitioner, GatheredKway};
use super::driver::{self, DistSet, ExchangeLists};
use super::scalable;
use super::{
    AbortHandle, DistKind, Gathering, GlobalArg, GraphPartitioner, InFlight, Lifecycle, LoopExtent,
    LoopHooks, PartitionOutcome, PartitionRequest, Partitioning, Primary,
};
use crate::arg::{Access, ArgKind, ArgSpec};
use crate::domain::{DatId, Domain, MapCheck, MapId, SetId};
use crate::error::{Op2Error, Result};
use crate::permute;
use crate::renumber::{self, RenumberReport};
use crate::timing::TimingRow;
use crate::types::ScalarType;
use std::sync::Arc;

/// Distributed execution over the ranks of a communicator.
pub struct Distributed {
    comm: Box<dyn Collectives>,
    kway: Option<GraphPartitioner>,
    /// A graph partitioner over the distributed graph (PT-Scotch) for
    /// several ranks; without one, `kway` runs on rank 0 ([`GatheredKway`]).
    dist_kway: Option<Box<dyn DistGraphPartitioner>>,
    /// Partition with the replicated phases ([`driver`]: the mesh metadata
    /// on every rank) instead of the distributed ones ([`scalable`]).
    replicated: bool,
    abort: Option<AbortHandle>,
    /// Per set (by id), once partitioned.
    sets: Vec<DistSet>,
    partitioned: bool,
    /// `op_renumber` called before partitioning: applied right after it.
    pending_renumber: Option<MapId>,
    /// Halo bytes this rank sent, and the number of dat exchanges.
    halo_bytes: u64,
    halo_exchanges: u64,
    /// OP_PARTIAL_EXCHANGE: a dat read only through one map refreshes only
    /// the halo rows that map reaches.
    partial: bool,
    /// Per map, the exchange lists of its to-set restricted to the halo rows
    /// the map reaches from its from-set's executed elements, or `None` when
    /// that is not worth it (decided on first use, as below).
    partial_lists: std::collections::HashMap<MapId, Option<Arc<ExchangeLists>>>,
}

impl Distributed {
    /// `kway`: the graph partitioner behind OP2's KWAY names (None: those
    /// names keep the declared blocks, with a message). `abort`: how to stop
    /// every rank on a fatal error.
    pub fn new(
        comm: Box<dyn Collectives>,
        kway: Option<GraphPartitioner>,
        abort: Option<AbortHandle>,
    ) -> Distributed {
        Distributed {
            comm,
            kway,
            dist_kway: None,
            replicated: false,
            abort,
            sets: Vec::new(),
            partitioned: false,
            pending_renumber: None,
            halo_bytes: 0,
            halo_exchanges: 0,
            partial: false,
            partial_lists: std::collections::HashMap::new(),
        }
    }

    /// Use `p` for OP2's k-way names on several ranks.
    pub fn with_graph_partitioner(mut self, p: Option<Box<dyn DistGraphPartitioner>>) -> Self {
        self.dist_kway = p;
        self
    }

    /// Partition with the replicated phases (every rank holds the mesh
    /// metadata: the reference, and what op2-rs did before 2026-11-25).
    pub fn with_replicated_partitioning(mut self, on: bool) -> Self {
        self.replicated = on;
        self
    }

    /// The communicator (tests, scale studies).
    pub fn comm(&self) -> &dyn Collectives {
        &*self.comm
    }

    /// A set's distribution, once partitioned.
    pub fn dist_set(&self, set: SetId) -> Option<&DistSet> {
        self.sets.get(set.0)
    }

    fn run_partition(
        &mut self,
        dom: &mut Domain,
        primary: Primary,
        report: Option<crate::MapId>,
    ) -> Result<Vec<String>> {
        if self.partitioned {
            return Err(Op2Error::new(
                "op_partition",
                "",
                "op_partition was already called",
            ));
        }
        let t0 = std::time::Instant::now();
        self.partial_lists.clear();
        // One rank holds the whole mesh anyway: the replicated phases (dense
        // tables, threads where the library has them) give the same result
        // as the distributed ones, faster.
        let replicated = self.replicated || self.comm.size() == 1;
        let mut how = String::from(if replicated {
            "replicated phases"
        } else {
            "distributed phases"
        });
        let p = if replicated {
            driver::run(&*self.comm, dom, primary, self.kway, report)?
        } else {
            let gathered = self.kway.map(GatheredKway);
            let kway: Option<&dyn DistGraphPartitioner> = match &self.dist_kway {
                Some(d) => Some(&**d),
                None => gathered.as_ref().map(|g| g as &dyn DistGraphPartitioner),
            };
            if let (Primary::Kway { .. }, Some(k)) = (primary, kway) {
                how = format!("{how}, k-way partitioner {}", k.name());
            }
            scalable::run(&*self.comm, dom, primary, kway, report)?
        };
        self.sets = p.sets;
        self.partitioned = true;
        let mut notes: Vec<String> = p
            .quality
            .map(|q| {
                format!(
                    "op_partition: {q}, partitioning time {:.4} s ({how})",
                    t0.elapsed().as_secs_f64()
                )
            })
            .into_iter()
            .collect();
        if let Some(m) = self.pending_renumber.take() {
            notes.push(self.renumber_local(dom, m)?.to_string());
        }
        Ok(notes)
    }

    /// Renumber this rank's core elements and keep the exchange lists and
    /// the way back to the declared blocks pointing at the same elements.
    fn renumber_local(&mut self, dom: &mut Domain, map: MapId) -> Result<RenumberReport> {
        let (r, report) = renumber::renumber(dom, map, "op_renumber")?;
        for (ds, order) in self.sets.iter_mut().zip(&r.orders) {
            if let Some(order) = order {
                renumber_dist_set(ds, order);
            }
        }
        Ok(report)
    }

    /// OP2's partitioner names to a primary partition; messages for the
    /// names that fall back to the declared blocks.
    fn choose(&self, dom: &Domain, req: &PartitionRequest, notes: &mut Vec<String>) -> Primary {
        let (lib, routine) = (req.lib.as_str(), req.routine.as_str());
        let mut fallback = |why: String| {
            notes.push(format!(
                "op_partition: {why}; keeping the block distribution"
            ));
            Primary::Block
        };
        match (lib, routine) {
            // The declared blocks, silently (op_halo_create of a mesh not
            // partitioned).
            ("BLOCK", "BLOCK") => Primary::Block,
            (_, "GEOM") | ("GEOM", _) | (_, "INERTIAL") | ("INERTIAL", _) => match req.coords {
                Some(c) => Primary::Geom {
                    coords: c,
                    inertial: routine == "INERTIAL" || lib == "INERTIAL",
                },
                None => fallback(format!("{lib}/{routine} needs coordinates (a dat)")),
            },
            ("RANDOM", _) | (_, "RANDOM") => match req.set {
                Some(s) => Primary::Random { set: s },
                None => fallback("RANDOM needs a set".into()),
            },
            ("EXTERNAL", _) | (_, "EXTERNAL") => match req.coords {
                Some(c) if dom.dat(c).scalar == ScalarType::I32 && dom.dat(c).dim == 1 => {
                    Primary::External { parts: c }
                }
                _ => fallback("EXTERNAL needs an int dat of dim 1 holding ranks".into()),
            },
            ("PARMETIS" | "PTSCOTCH" | "KAHIP", "KWAY" | "GEOMKWAY") => {
                match (req.map, self.kway.is_some() || self.dist_kway.is_some()) {
                    // All three names get the library's graph k-way partitioner;
                    // the graph is the map's to-set, adjacent through the map.
                    (Some(m), true) => Primary::Kway { map: m },
                    (None, _) => fallback(format!("{lib}/{routine} needs a map")),
                    (Some(_), false) => fallback(format!(
                        "{lib}/{routine}: no graph partitioner in this library"
                    )),
                }
            }
            _ => {
                let known = matches!(
                    lib,
                    "PARMETIS" | "PTSCOTCH" | "KAHIP" | "RANDOM" | "EXTERNAL" | "INERTIAL" | "GEOM"
                );
                fallback(format!(
                    "unknown partitioner {lib}/{routine}{}",
                    if known { "" } else { " (library not known)" }
                ))
            }
        }
    }

    /// The map through which every argument of this loop on `dat` reads it,
    /// when partial exchanges are on and there is one such map (OP2's rule
    /// for a partial exchange); `None`: refresh the whole halo.
    fn partial_map(&self, args: &[ArgSpec], dat: DatId) -> Option<MapId> {
        if !self.partial {
            return None;
        }
        let mut only = None;
        for a in args.iter().filter(|a| a.opt) {
            let ArgKind::Dat { dat: d, map, .. } = a.kind else {
                continue;
            };
            if d != dat {
                continue;
            }
            match (map, a.access) {
                (Some(m), Access::Read) if only.is_none() || only == Some(m) => only = Some(m),
                _ => return None,
            }
        }
        only
    }

    /// The halo rows of `map`'s to-set that the map reaches from the
    /// elements of its from-set a loop may execute (owned and exec halo),
    /// as exchange lists; `None` (refresh the whole halo) unless those rows
    /// are fewer than 30% of the to-set's halo over all ranks, OP2's rule for
    /// maps it exchanges partially. Collective on a map's first use (every
    /// rank runs the same loops, so every rank asks for the same maps).
    fn partial_lists(&mut self, dom: &Domain, map: MapId) -> Result<Option<Arc<ExchangeLists>>> {
        if let Some(l) = self.partial_lists.get(&map) {
            return Ok(l.clone());
        }
        let m = dom.map(map);
        let Some(ds) = self.sets.get(m.to.0) else {
            return Ok(None);
        };
        let to = dom.set(m.to);
        let from = dom.set(m.from);
        let mut needed = vec![false; to.total_size()];
        let reach = ((from.size + from.exec_size) * m.dim).min(m.values.len());
        for &v in &m.values[..reach] {
            if let Some(n) = usize::try_from(v).ok().filter(|&v| v >= to.size) {
                if let Some(slot) = needed.get_mut(n) {
                    *slot = true;
                }
            }
        }
        let reached = needed.iter().filter(|&&b| b).count() as u64;
        let halo = (to.exec_size + to.nonexec_size) as u64;
        let (reached_all, _) = collective::sum_and_offset(&*self.comm, reached)?;
        let (halo_all, _) = collective::sum_and_offset(&*self.comm, halo)?;
        let lists = if (reached_all as f64) < 0.3 * halo_all as f64 {
            Some(Arc::new(
                ds.exchange.restricted(&*self.comm, |row| needed[row])?,
            ))
        } else {
            None
        };
        self.partial_lists.insert(map, lists.clone());
        Ok(lists)
    }

    /// Start refreshing the halo of `dat` (if it has one): the rows `only`
    /// lists, or the whole halo.
    fn start_exchange(
        &mut self,
        dom: &mut Domain,
        dat: DatId,
        only: Option<Arc<ExchangeLists>>,
    ) -> Result<Option<DatExchange>> {
        let d = dom.dat(dat);
        let Some(ds) = self.sets.get(d.set.0) else {
            return Ok(None);
        };
        let lists = only.unwrap_or_else(|| ds.exchange.clone());
        let eb = d.elem_bytes;
        let pending = lists.start(&*self.comm, d.data.as_slice(), eb, dat.0 as i32)?;
        self.halo_bytes += lists.send_bytes(eb) as u64;
        self.halo_exchanges += 1;
        let d = dom.dat_mut(dat);
        Ok(Some(DatExchange {
            data: d.data.as_mut_ptr(),
            len: d.data.len(),
            elem_bytes: eb,
            lists,
            pending,
        }))
    }
}

/// One dat's halo refresh in flight.
struct DatExchange {
    /// The dat's storage (`len` bytes).
    data: *mut u8,
    len: usize,
    elem_bytes: usize,
    lists: Arc<ExchangeLists>,
    pending: Box<dyn PendingMessages>,
}

// SAFETY: `data` points at a dat's storage, which the library neither frees
// nor reallocates while an exchange of that dat is in flight (the C layer
// finishes every exchange before freeing a dat, partitioning or exiting), and
// which only `finish` writes (halo rows; the loop's core elements do not
// touch them).
unsafe impl Send for DatExchange {}

/// The exchanges a loop started.
struct Exchanges(Vec<DatExchange>);

impl InFlight for Exchanges {
    fn finish(self: Box<Self>) -> Result<()> {
        for x in self.0 {
            let bufs = x.pending.wait()?;
            // SAFETY: see `unsafe impl Send for DatExchange`: the storage is
            // live and `len` bytes long; no other reference writes it now.
            let data = unsafe { std::slice::from_raw_parts_mut(x.data, x.len) };
            x.lists.unpack(&bufs, data, x.elem_bytes);
        }
        Ok(())
    }
}

/// A set's core elements moved (`order[new] = old`): its global ids, the
/// owned positions it exports and sends back to the declared blocks follow
/// them (halo positions do not move).
fn renumber_dist_set(ds: &mut DistSet, order: &[u32]) {
    let inv = permute::inverse(order);
    let moved = |i: &mut usize| {
        if *i < inv.len() {
            *i = inv[*i] as usize;
        }
    };
    let ids = &mut ds.local.global_ids;
    let old: Vec<usize> = ids[..order.len()].to_vec();
    for (new, &o) in order.iter().enumerate() {
        ids[new] = old[o as usize];
    }
    ds.local.export_exec.list.iter_mut().for_each(moved);
    ds.local.export_nonexec.list.iter_mut().for_each(moved);
    ds.back.send.list.iter_mut().for_each(moved);
    ds.set_exchange();
}

/// Does a loop with these args write through a map (so the exec halo runs)?
fn writes_through_map(args: &[ArgSpec]) -> bool {
    args.iter()
        .any(|a| a.is_indirect() && a.access != Access::Read)
}

impl LoopHooks for Distributed {
    fn before_loop(
        &mut self,
        dom: &mut Domain,
        set: SetId,
        args: &[ArgSpec],
    ) -> Result<LoopExtent> {
        let mut auto_partitioned = false;
        if !self.partitioned && self.comm.size() > 1 {
            if dom.maps().is_empty() && args.iter().all(|a| !a.is_indirect()) {
                // Nothing indirect anywhere: the declared blocks are a valid distribution.
                let n = dom.set(set).size;
                return Ok(LoopExtent {
                    exec_size: n,
                    owned: n,
                    core: n,
                    exchanges: None,
                    auto_partitioned,
                });
            }
            self.run_partition(dom, Primary::Block, None)?;
            auto_partitioned = true;
        }
        let s = dom.set(set);
        let (size, exec, core) = (s.size, s.exec_size, s.core_size);
        let exec_flag = writes_through_map(args);
        let mut started = Vec::new();
        let mut refreshed: Vec<DatId> = Vec::new();
        for a in args.iter().filter(|a| a.opt) {
            let ArgKind::Dat { dat, map, .. } = a.kind else {
                continue;
            };
            let reads = matches!(a.access, Access::Read | Access::Rw);
            if reads
                && (map.is_some() || exec_flag)
                && dom.dat(dat).halo_dirty
                && !refreshed.contains(&dat)
            {
                refreshed.push(dat);
                let partial = match self.partial_map(args, dat) {
                    Some(m) => self.partial_lists(dom, m)?,
                    None => None,
                };
                // A partial refresh leaves the rest of the halo stale, as OP2.
                let whole = partial.is_none();
                if let Some(x) = self.start_exchange(dom, dat, partial)? {
                    started.push(x);
                }
                if whole {
                    dom.dat_mut(dat).halo_dirty = false;
                }
            }
        }
        Ok(LoopExtent {
            exec_size: size + if exec_flag { exec } else { 0 },
            owned: size,
            core: core.min(size),
            exchanges: (!started.is_empty())
                .then(|| Box::new(Exchanges(started)) as Box<dyn InFlight>),
            auto_partitioned,
        })
    }

    fn after_loop(
        &mut self,
        dom: &mut Domain,
        args: &[ArgSpec],
        globals: &mut [GlobalArg<'_>],
    ) -> Result<()> {
        for a in args.iter().filter(|a| a.opt && a.access != Access::Read) {
            if let ArgKind::Dat { dat, .. } = a.kind {
                dom.dat_mut(dat).halo_dirty = true;
            }
        }
        for g in globals.iter_mut() {
            self.reduce(g)?;
        }
        Ok(())
    }

    fn reduce(&mut self, g: &mut GlobalArg<'_>) -> Result<()> {
        collective::allreduce(&*self.comm, g.scalar, g.access, g.data)
    }

    fn reduce_logical(&mut self, width: usize, access: Access, data: &mut [u8]) -> Result<()> {
        collective::allreduce_logical(&*self.comm, width, access, data)
    }

    fn set_partial_exchange(&mut self, on: bool) {
        self.partial = on;
    }

    fn sent_rows(&self, set: SetId) -> Option<&[usize]> {
        self.sets.get(set.0).map(|ds| &ds.sent[..])
    }

    fn halo_traffic(&self) -> (u64, u64) {
        (self.halo_bytes, self.halo_exchanges)
    }
}

impl Partitioning for Distributed {
    fn map_check(&self) -> MapCheck {
        MapCheck::Deferred
    }

    fn partition(&mut self, dom: &mut Domain, req: &PartitionRequest) -> Result<PartitionOutcome> {
        let mut messages = Vec::new();
        let primary = self.choose(dom, req, &mut messages);
        let report = if req.report { req.map } else { None };
        messages.extend(self.run_partition(dom, primary, report)?);
        Ok(PartitionOutcome { messages })
    }

    fn renumber(&mut self, dom: &mut Domain, map: MapId) -> Result<Option<RenumberReport>> {
        if !self.partitioned {
            self.pending_renumber = Some(map);
            return Ok(None);
        }
        self.renumber_local(dom, map).map(Some)
    }

    fn is_partitioned(&self) -> bool {
        self.partitioned
    }

    fn global_ids(&self, set: SetId) -> Option<&[usize]> {
        self.sets.get(set.0).map(|s| s.local.global_ids.as_slice())
    }
}

impl Gathering for Distributed {
    fn fetch_block(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>> {
        let d = dom.dat(dat);
        let (eb, n) = (d.elem_bytes, dom.set(d.set).size);
        let data = d.data.as_slice();
        let Some(ds) = self.sets.get(d.set.0) else {
            return Ok(data[..n * eb].to_vec());
        };
        let mut send = vec![Vec::new(); self.comm.size()];
        for (r, rows) in ds.back.send.neighbours() {
            for &i in rows {
                send[r].extend_from_slice(&data[i * eb..(i + 1) * eb]);
            }
        }
        let recv = self.comm.alltoallv_bytes(&send)?;
        let mut out = vec![0u8; ds.block.range(self.comm.rank()).len() * eb];
        for (r, rows) in ds.back.recv.neighbours() {
            for (k, &i) in rows.iter().enumerate() {
                out[i * eb..(i + 1) * eb].copy_from_slice(&recv[r][k * eb..(k + 1) * eb]);
            }
        }
        Ok(out)
    }

    fn gather_global(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>> {
        let mine = self.fetch_block(dom, dat)?;
        Ok(self.comm.allgatherv_bytes(&mine)?.0)
    }

    fn global_size(&mut self, dom: &Domain, set: SetId) -> Result<(usize, usize)> {
        let (tot, off) = collective::sum_and_offset(&*self.comm, dom.set(set).size as u64)?;
        Ok((tot as usize, off as usize))
    }

    fn allgather_bytes(&mut self, local: &[u8]) -> Result<Vec<Vec<u8>>> {
        let (all, counts) = self.comm.allgatherv_bytes(local)?;
        let mut out = Vec::with_capacity(counts.len());
        let mut at = 0;
        for c in counts {
            out.push(all[at..at + c].to_vec());
            at += c;
        }
        Ok(out)
    }

    fn timing_across_ranks(&mut self, rows: &mut [TimingRow]) -> Result<String> {
        cross_rank::timing_across_ranks(&*self.comm, rows, (self.halo_bytes, self.halo_exchanges))
    }
}

impl Lifecycle for Distributed {
    fn kind(&self) -> DistKind {
        DistKind::Mpi
    }

    fn rank(&self) -> usize {
        self.comm.rank()
    }

    fn nranks(&self) -> usize {
        self.comm.size()
    }

    fn default_threads(&self) -> usize {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        (cores / self.comm.node_ranks().max(1)).max(1)
    }

    fn barrier(&mut self) -> Result<()> {
        self.comm.barrier()
    }

    fn abort_handle(&self) -> Option<AbortHandle> {
        self.abort.clone()
    }

    fn finalize(self: Box<Self>) -> Result<()> {
        self.comm.finalize()
    }
}
