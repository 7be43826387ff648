//! `op2-core`: the OP2 model in pure Rust.
//!
//! Sets, maps and dats live in a [`Domain`]; loop arguments are described by
//! [`ArgSpec`] and checked against a loop set by [`arg::check_loop`]. The crate
//! has no FFI and no global state: the C ABI layer (`capi/`) owns one `Domain`
//! and mirrors its objects in OP2's C structs. It starts no thread of its own:
//! plan, halo and partition construction run in parallel only when called on
//! a thread of a rayon pool (see `par`), sequentially otherwise.
//!
//! # Layout
//! * The model: [`domain`] (sets, maps, dats), [`arg`], [`types`],
//!   [`aligned`], [`error`].
//! * Loops on one process: [`plan`] (blocks, colouring), [`invoke`],
//!   [`reduce`], [`profile`], [`timing`], [`format`](mod@format).
//! * The mesh as a graph: [`graph`] holds the one CSR type ([`graph::Csr`])
//!   and its builders (a map's k-way adjacency, the dual graph, the local
//!   adjacency of `op_renumber`, a rank's block of a distributed graph) and
//!   the edge cut; partitioning, renumbering and the distributed directory
//!   all build and consume it there.
//! * [`permute`]: a leaf of permutation helpers (the [`permute::Renumbering`]
//!   type, inverse, moving rows, renaming map entries) shared by [`domain`]
//!   and [`renumber`] (RCM on the graph, spread over the connected sets).
//! * [`partition`]: one submodule per partitioner (block, random, RCB,
//!   inertial, k-way, and the derivation of the other sets' partitions).
//! * [`halo`]: local numbering and halo lists from a partition.
//! * [`dist`]: where data lives ([`dist::Distribution`], split into
//!   [`dist::LoopHooks`], [`dist::Partitioning`], [`dist::Gathering`] and
//!   [`dist::Lifecycle`]), its single-node and distributed implementations,
//!   the partition drivers and the collectives.
//!
//! Top-level modules import one another without cycles (checked by
//! `tests/tests/architecture.rs`; a submodule counts as its parent).

pub mod aligned;
pub mod arg;
pub mod boundary;
pub mod conflicts;
pub mod device;
pub mod dist;
pub mod domain;
pub mod error;
pub mod format;
pub mod graph;
pub mod halo;
pub mod invoke;
mod par;
pub mod partition;
pub mod permute;
pub mod plan;
pub mod profile;
pub mod progress;
pub mod reduce;
pub mod renumber;
pub mod runtime;
pub mod timing;
pub mod types;
pub mod vtk;

pub use aligned::AlignedBuf;
pub use arg::{Access, ArgKind, ArgSpec};
pub use domain::{Dat, DatId, Domain, Fresh, Map, MapId, Set, SetId};
pub use error::{ErrorKind, Op2Error, Result};
pub use invoke::{ArgView, Invoker, ViewKind};
pub use types::ScalarType;

/// A hash map with a fast, non-cryptographic hasher (`rustc-hash`'s Fx),
/// for the tables every loop call looks up (handles, cached loops, plans,
/// device kernels): their keys come from the program itself (addresses,
/// loop names), so the default hasher's resistance to chosen keys buys
/// nothing and costs a large part of a device loop's host time
/// (BENCHMARKS.md, "host time per device loop").
pub type FastHashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
