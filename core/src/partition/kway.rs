//! K-way graph partitioning (`KWAY` with a primary map): the map's to-set is
//! partitioned as the graph [`crate::graph::adjacency`] (two to-elements are
//! adjacent when one from-element references both) by a graph partitioner
//! outside this crate (METIS, in the MPI crate) behind [`GraphPartitioner`].
//!
//! Without the global graph, `dist::scalable` builds each rank's rows of it
//! (`dist::directory::adjacency`) for a `dist::DistGraphPartitioner`
//! (PT-Scotch, or this partitioner on rank 0).

use crate::graph::Csr;

/// A graph partitioner for k-way partitioning (CSR graph, number of parts):
/// one part per vertex. Deterministic: every rank computes the same.
pub type GraphPartitioner =
    fn(xadj: &[i32], adjncy: &[i32], nparts: usize) -> std::result::Result<Vec<i32>, String>;

/// The part of each vertex of `graph` in `f`'s `nparts`-way partition, or
/// the partitioner's message.
pub fn kway(
    graph: &Csr,
    nparts: usize,
    f: GraphPartitioner,
) -> std::result::Result<Vec<i32>, String> {
    f(&graph.xadj, &graph.adjncy, nparts)
}
