//! Distribution: how the sets of a [`Domain`] are spread over processes.
//!
//! [`Distribution`] is what the loop lifecycle and the C ABI layer call
//! around every loop and for every operation whose meaning depends on where
//! the data lives. It is four traits, one per concern, implemented
//! separately and combined by a blanket impl (`Box<dyn Distribution>`
//! offers every method):
//! * [`LoopHooks`]: around a loop: the extent to execute, halo exchanges
//!   before it (and the automatic partition when a loop runs before
//!   `op_partition`), dirty halos and global reductions after it, explicit
//!   reductions, partial exchanges, halo traffic;
//! * [`Partitioning`]: `op_partition`, `op_renumber`, how maps are checked
//!   before partitioning, the global ids partitioning leaves;
//! * [`Gathering`]: data and figures across processes in the original order
//!   (fetch, gather, global sizes, byte allgather, timing across ranks);
//! * [`Lifecycle`]: kind, rank, ranks, default threads, barrier, abort and
//!   finalize.
//!
//! Two implementations:
//! * [`SingleNode`]: one process holds everything; every hook is the identity.
//! * [`Distributed`]: OP2's MPI semantics (owner-compute, exec/non-exec halos,
//!   dirty halos exchanged before a loop reads them), over any
//!   [`Collectives`]: `backends/mpi` provides one over MPI, [`sim`] one over
//!   threads (tests and scale simulations).
//!
//! The dirty state of each dat's halo lives in the model ([`Dat::halo_dirty`]);
//! the C layer mirrors it into OP2's `dirtybit`.
//!
//! Submodules: [`driver`] (`op_partition` on replicated metadata) and
//! [`scalable`] (without the global mesh, over the [`directory`], whose
//! [`directory::adjacency`] builds each rank's rows of the k-way graph as a
//! [`crate::graph::Csr`]), [`bisect`] (distributed RCB/inertial), [`force`]
//! (forced maps), [`collective`] (the [`Collectives`] interface and typed
//! collectives over it), [`cross_rank`] (the timing table across ranks),
//! [`sim`] (ranks simulated by threads). The partitioners themselves are
//! [`crate::partition`]'s, the graphs [`crate::graph`]'s.
//!
//! [`Dat::halo_dirty`]: crate::domain::Dat::halo_dirty

pub mod bisect;
pub mod collective;
pub mod cross_rank;
pub mod directory;
pub mod distributed;
pub mod driver;
pub mod force;
pub mod scalable;
pub mod sim;

pub use crate::partition::GraphPartitioner;
pub use collective::{Collectives, PendingMessages};
pub use directory::{DistGraphPartitioner, GatheredKway};
pub use distributed::Distributed;

use crate::arg::{Access, ArgSpec};
use crate::domain::{DatId, Domain, MapCheck, MapId, SetId};
use crate::error::Result;
use crate::renumber::{self, RenumberReport};
use crate::timing::TimingRow;
use crate::types::ScalarType;
use std::sync::Arc;

/// Which kind of library this is, where behaviour differs visibly (output
/// formats, timing columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistKind {
    SingleNode,
    Mpi,
}

/// Halo exchanges started before a loop; the executor finishes them after
/// the core elements (which read no halo data) and before any other element.
pub trait InFlight: Send {
    /// Wait for the messages and write the received halo rows.
    fn finish(self: Box<Self>) -> Result<()>;
}

/// What a loop over a set executes, decided before it runs.
pub struct LoopExtent {
    /// Elements to execute: owned, plus the exec halo when the loop writes
    /// through a map (executed redundantly so increments are complete).
    pub exec_size: usize,
    /// Owned elements: only these contribute to global reductions.
    pub owned: usize,
    /// Core elements (`<= owned`): they read no halo, so they may run while
    /// exchanges are in flight.
    pub core: usize,
    /// Exchanges the executor must finish after the core elements.
    pub exchanges: Option<Box<dyn InFlight>>,
    /// The mesh was partitioned by this call (a loop ran before
    /// `op_partition`; the declared blocks were kept).
    pub auto_partitioned: bool,
}

/// A global argument after the loop ran on this rank.
pub struct GlobalArg<'a> {
    pub access: Access,
    pub scalar: ScalarType,
    /// Its `dim` values, native bytes.
    pub data: &'a mut [u8],
}

/// How `op_partition` chooses the primary set's partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primary {
    /// Keep the declared blocks.
    Block,
    /// Recursive coordinate bisection (`inertial`: principal-axis bisection)
    /// of a dat of coordinates.
    Geom { coords: DatId, inertial: bool },
    /// Random balanced assignment of a set.
    Random { set: SetId },
    /// Target ranks given by an int dat of dim 1.
    External { parts: DatId },
    /// Graph k-way partition of a map's to-set, adjacent through the map.
    Kway { map: MapId },
}

/// `op_partition(lib, routine, set, map, coords)` with the handles resolved.
#[derive(Debug, Clone)]
pub struct PartitionRequest {
    /// Upper-cased partitioner library and routine names.
    pub lib: String,
    pub routine: String,
    pub set: Option<SetId>,
    pub map: Option<MapId>,
    pub coords: Option<DatId>,
    /// Report the partition's quality (OP_diags > 0).
    pub report: bool,
}

/// What `op_partition` has to tell the user (printed on the root).
#[derive(Debug, Clone, Default)]
pub struct PartitionOutcome {
    pub messages: Vec<String>,
}

/// Stops every process after a fatal error; callable without the library
/// state (the error path may hold it).
pub type AbortHandle = Arc<dyn Fn(i32) + Send + Sync>;

/// Where the data of a run lives and how loops see it (see the module docs):
/// the four concerns below, each its own trait, together. Implemented for
/// every type that implements them all, so an implementation writes the four
/// `impl`s and `Box<dyn Distribution>` offers every method (no `use` of the
/// parts is needed to call them through it).
pub trait Distribution: LoopHooks + Partitioning + Gathering + Lifecycle + Send {}

impl<T: LoopHooks + Partitioning + Gathering + Lifecycle + Send> Distribution for T {}

/// What a parallel loop asks of the distribution, around every loop: which
/// elements to execute, the halo exchanges before it and the dirty halos
/// after it, and the global reductions across processes (after the loop, or
/// called by generated code).
pub trait LoopHooks {
    /// Before a loop over `set`: partition if nothing was partitioned yet
    /// (reported as [`LoopExtent::auto_partitioned`]), start exchanging the
    /// stale halos of dats the loop reads, and say what to execute.
    fn before_loop(&mut self, dom: &mut Domain, set: SetId, args: &[ArgSpec])
        -> Result<LoopExtent>;

    /// After a loop: dats it wrote have stale halos; global reductions are
    /// combined across processes (`globals` are the loop's reduction and
    /// OP_WRITE global arguments).
    fn after_loop(
        &mut self,
        dom: &mut Domain,
        args: &[ArgSpec],
        globals: &mut [GlobalArg<'_>],
    ) -> Result<()>;

    /// Combine one global across processes (generated code's op_mpi_reduce_*).
    fn reduce(&mut self, g: &mut GlobalArg<'_>) -> Result<()>;

    /// Combine `width`-byte logicals across processes (op_mpi_reduce_bool).
    fn reduce_logical(&mut self, width: usize, access: Access, data: &mut [u8]) -> Result<()>;

    /// OP_PARTIAL_EXCHANGE: refresh only the halo rows a loop's single map
    /// reaches when it reads a dat through that map only (no effect on one node).
    fn set_partial_exchange(&mut self, _on: bool) {}

    /// The owned rows of `set` a whole halo refresh sends to any process
    /// (sorted, distinct): what must be current in a dat's host copy before
    /// its exchange starts. `None` where the set has no halo lists (one
    /// node, or before partitioning).
    fn sent_rows(&self, _set: SetId) -> Option<&[usize]> {
        None
    }

    /// Halo bytes sent and dat exchanges so far.
    fn halo_traffic(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// Where each element lives and in which order: `op_partition`,
/// `op_renumber`, and the numbering they leave.
pub trait Partitioning {
    /// How `op_decl_map` checks entries: locally, or deferred to partitioning
    /// (maps hold global indices before `op_partition`).
    fn map_check(&self) -> MapCheck;

    /// `op_partition`.
    fn partition(&mut self, dom: &mut Domain, req: &PartitionRequest) -> Result<PartitionOutcome>;

    /// `op_renumber`: reorder the elements of the sets connected to `map`
    /// for locality ([`crate::renumber`]), keeping `fetch_block` and
    /// `gather_global` in the original order. `None`: the renumbering waits
    /// for the local numbering (MPI before partitioning) and is applied
    /// when the mesh is partitioned.
    fn renumber(&mut self, dom: &mut Domain, map: MapId) -> Result<Option<RenumberReport>>;

    /// Has the mesh been partitioned (or, on one node, `op_partition` called)?
    fn is_partitioned(&self) -> bool;

    /// The original (declared, 0-based) global index of every local element
    /// of a set, halos included, once partitioned; `None` on one node (local
    /// and global numbering agree) and before partitioning.
    fn global_ids(&self, _set: SetId) -> Option<&[usize]> {
        None
    }
}

/// Data and figures across processes, in the original (declared) order:
/// what fetching, file output and the timing/profile reports need.
pub trait Gathering {
    /// This process's declared block of a dat, in the original order.
    fn fetch_block(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>>;

    /// A dat's whole global array in the original order, on every process.
    fn gather_global(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>>;

    /// Owned elements of a set over all processes, and this process's offset.
    fn global_size(&mut self, dom: &Domain, set: SetId) -> Result<(usize, usize)>;

    /// Every process's `local` bytes, in rank order, on every process (the
    /// cross-rank profile, CSV timings and moments). One process: `local`.
    fn allgather_bytes(&mut self, local: &[u8]) -> Result<Vec<Vec<u8>>> {
        Ok(vec![local.to_vec()])
    }

    /// Turn this process's timing rows into figures across processes (mean
    /// and std of time and MPI time); returns extra text for the table
    /// (per-process tables), empty on one node.
    fn timing_across_ranks(&mut self, rows: &mut [TimingRow]) -> Result<String>;
}

/// The process group: which library this is, this process's place in it,
/// synchronising, stopping it on a fatal error and releasing it.
pub trait Lifecycle {
    fn kind(&self) -> DistKind;
    fn rank(&self) -> usize;
    fn nranks(&self) -> usize;

    /// Threads per process that do not oversubscribe the node's cores.
    fn default_threads(&self) -> usize {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }

    fn barrier(&mut self) -> Result<()>;

    /// How to stop every process after a fatal error.
    fn abort_handle(&self) -> Option<AbortHandle> {
        None
    }

    /// Release the communication layer (`op_exit`).
    fn finalize(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

/// One process holds everything: no halos, nothing to exchange or combine.
#[derive(Debug, Default)]
pub struct SingleNode {
    partitioned: bool,
}

impl SingleNode {
    pub fn new() -> SingleNode {
        SingleNode::default()
    }
}

fn owned_rows(dom: &Domain, dat: DatId) -> Vec<u8> {
    dom.rows_in_declared_order(dat)
}

impl LoopHooks for SingleNode {
    fn before_loop(
        &mut self,
        dom: &mut Domain,
        set: SetId,
        _args: &[ArgSpec],
    ) -> Result<LoopExtent> {
        let n = dom.set(set).size;
        Ok(LoopExtent {
            exec_size: n,
            owned: n,
            core: n,
            exchanges: None,
            auto_partitioned: false,
        })
    }

    fn after_loop(
        &mut self,
        _dom: &mut Domain,
        _args: &[ArgSpec],
        _globals: &mut [GlobalArg<'_>],
    ) -> Result<()> {
        Ok(())
    }

    fn reduce(&mut self, _g: &mut GlobalArg<'_>) -> Result<()> {
        Ok(())
    }

    fn reduce_logical(&mut self, _width: usize, _access: Access, _data: &mut [u8]) -> Result<()> {
        Ok(())
    }
}

impl Partitioning for SingleNode {
    fn map_check(&self) -> MapCheck {
        MapCheck::Local
    }

    fn partition(
        &mut self,
        _dom: &mut Domain,
        _req: &PartitionRequest,
    ) -> Result<PartitionOutcome> {
        self.partitioned = true;
        Ok(PartitionOutcome::default())
    }

    fn renumber(&mut self, dom: &mut Domain, map: MapId) -> Result<Option<RenumberReport>> {
        let (r, report) = renumber::renumber(dom, map, "op_renumber")?;
        dom.record_renumbering(&r);
        Ok(Some(report))
    }

    fn is_partitioned(&self) -> bool {
        self.partitioned
    }
}

impl Gathering for SingleNode {
    fn fetch_block(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>> {
        Ok(owned_rows(dom, dat))
    }

    fn gather_global(&mut self, dom: &Domain, dat: DatId) -> Result<Vec<u8>> {
        Ok(owned_rows(dom, dat))
    }

    fn global_size(&mut self, dom: &Domain, set: SetId) -> Result<(usize, usize)> {
        Ok((dom.set(set).size, 0))
    }

    fn timing_across_ranks(&mut self, _rows: &mut [TimingRow]) -> Result<String> {
        Ok(String::new())
    }
}

impl Lifecycle for SingleNode {
    fn kind(&self) -> DistKind {
        DistKind::SingleNode
    }
    fn rank(&self) -> usize {
        0
    }
    fn nranks(&self) -> usize {
        1
    }

    fn barrier(&mut self) -> Result<()> {
        Ok(())
    }
}
