//! Partitioners for distributed (MPI) execution, in pure Rust, one private
//! module per partitioner (their public items are re-exported here):
//! * `block`: the block distribution OP2 applications declare
//!   ([`BlockDist`], [`block()`], [`block_size`]); `BLOCK` keeps it;
//! * `random`: a balanced random partition ([`random()`],
//!   element by element: [`random_part`]);
//! * `rcb` and `inertial`: recursive coordinate
//!   and inertial bisection of a primary set's coordinates ([`rcb()`],
//!   [`inertial()`]), over the shared engine in `bisection`;
//! * `kway`: k-way partitioning of a map's to-set through a
//!   [`GraphPartitioner`] (METIS, in the MPI crate), on the graph
//!   [`crate::graph::adjacency`] builds;
//! * `derive`: every other set's partition from the primary
//!   set's, through the maps ([`derive()`]).
//!
//! This module holds what they share: the input types ([`GlobalSet`], and
//! [`GlobalMap`], defined with the graphs in [`crate::graph`]) and the
//! quality metrics ([`part_sizes`], [`imbalance`]; the edge cut is
//! [`crate::graph::edge_cut`]). Which partitioner runs (`op_partition`'s
//! library and routine, the primary set) is decided in `dist` (the drivers
//! `dist::driver` and `dist::scalable` dispatch on `dist::Primary`).
//!
//! # Model: replicated metadata
//! The first MPI version replicates *metadata*: every rank knows, for every
//! set, its global size and (after partitioning) the part of each global
//! element, and every map in global indices (the MPI layer allgathers them).
//! Dats are not replicated. Every function here is a deterministic pure
//! function of that global information, so each rank computes the same
//! partition on its own and no further communication is needed to agree on it.
//!
//! # Bisection
//! [`rcb()`] and [`inertial()`] split a group of `k` parts into `k/2` (lower)
//! and `k - k/2` (upper) parts and give the lower side `floor(n·(k/2)/k)` of
//! the group's `n` elements: the elements of smallest key, ordered by
//! `(key, element index)` (ties broken by index, so the split is a function of
//! the coordinates alone). The key is the coordinate along the longest extent
//! of the group's bounding box (RCB; ties go to the lower axis) or the
//! projection on the principal axis of the group's covariance (inertial).
//! With unit weights the proportional split makes all part sizes differ by at
//! most one, for any number of parts.
//!
//! # Derivation (OP2's `partition_all`)
//! Starting from the partitioned primary set, OP2 repeatedly picks the cheapest
//! unused map between a partitioned and an unpartitioned set (lowest map index
//! on ties):
//! * cost 0: a map of dimension 1 *to* a partitioned set,
//! * cost 1: a map of larger dimension *to* a partitioned set — each
//!   from-element takes the most frequent part among its targets
//!   ([`DeriveRule::FromTargets`]; ties go to the part met first in the row,
//!   as OP2's `find_mode`);
//! * cost 2: a map *from* a partitioned set — each to-element takes the most
//!   frequent part among the from-elements referencing it
//!   ([`DeriveRule::FromSources`]; every map entry counts once, ties go to the
//!   smallest part, as OP2's counting path). Such a map is rejected if it does
//!   not reach every to-element (OP2 then tries another map).
//!
//! OP2 aborts when a non-empty set cannot be reached. Here such a set keeps
//! the block partition [`block()`] and is reported as [`DeriveRule::Unreached`]
//! (the MPI layer decides whether to warn, abort, or substitute the declared
//! distribution with [`BlockDist::parts`]). OP2's `force_part` maps are not
//! modelled.
//!
//! # Graphs
//! OP2's ParMETIS/PT-Scotch/KaHIP `KWAY` with a primary map partitions the
//! map's *to*-set: two to-elements are adjacent when one from-element
//! references both (airfoil: cells adjacent through an edge of `pecell`). The
//! graphs live in [`crate::graph`], shared with the renumbering and the
//! distributed directory.

mod bisection;
mod block;
mod derive;
mod inertial;
mod kway;
mod random;
mod rcb;

pub use crate::graph::GlobalMap;
pub use block::{block, block_size, BlockDist};
pub use derive::{derive, next_derivation, row_mode, vote_modes, DeriveRule, Derived};
pub(crate) use inertial::dominant_axis;
pub use inertial::inertial;
pub use kway::{kway, GraphPartitioner};
pub use random::{random, random_part, SplitMix64};
pub use rcb::rcb;

/// A set as the partitioners see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalSet {
    /// Global number of elements.
    pub size: usize,
}

/// Elements per part.
pub fn part_sizes(part: &[i32], nparts: usize) -> Vec<usize> {
    let mut s = vec![0usize; nparts];
    for &p in part {
        s[p as usize] += 1;
    }
    s
}

/// Load imbalance: the largest part over the average part (1.0 is perfect;
/// 1.0 for an empty set).
pub fn imbalance(part: &[i32], nparts: usize) -> f64 {
    if part.is_empty() || nparts == 0 {
        return 1.0;
    }
    let max = part_sizes(part, nparts).into_iter().max().unwrap_or(0);
    max as f64 * nparts as f64 / part.len() as f64
}
