//! The OP2 C ABI. This one source is compiled into every OP2 library
//! (`libop2_seq`, ...; see capi/libs/*): each library crate points its `[lib]`
//! at this file and enables the feature that selects its backend.
//!
//! Module map: `ffi` (OP2's C structs), `globals` (OP2's exported variables),
//! `state` (registry of sets/maps/dats and their C mirrors), `decl`
//! (init/exit/declarations), `args` (op_arg constructors and checks),
//! `par_loop` (op_par_loop and the kernel invokers), `output` (fetch, dumps,
//! timers, timing table), `mem`, `single_node` (MPI hooks on one node),
//! `printf`, `guard` (panic boundary, error exit).
#![allow(clippy::missing_safety_doc)]
#![allow(clippy::too_many_arguments)]

pub mod args;
pub mod decl;
#[cfg(not(feature = "lib-mpi"))]
#[path = "dist_single.rs"]
pub(crate) mod dist;
#[cfg(feature = "lib-mpi")]
pub(crate) mod dist;
pub mod ffi;
pub mod fortran;
pub mod globals;
pub mod guard;
pub mod mem;
#[cfg(feature = "lib-mpi")]
pub mod mpi_api;
pub mod output;
pub mod par_loop;
pub mod plans;
pub mod printf;
pub mod profile;
pub mod single_node;
pub mod state;

use op2_core::invoke::Executor;
use std::sync::Arc;

#[cfg(not(any(feature = "lib-seq", feature = "lib-openmp", feature = "lib-mpi")))]
compile_error!("build the C ABI through one of the library crates in capi/libs");

/// The execution engine of this library.
#[cfg(feature = "lib-seq")]
pub(crate) fn new_executor() -> Arc<dyn Executor + Send + Sync> {
    Arc::new(op2_backend_seq::Seq)
}

/// The execution engine of this library: threads (OMP_NUM_THREADS, default
/// all cores; under MPI, per rank).
#[cfg(any(feature = "lib-openmp", feature = "lib-mpi"))]
pub(crate) fn new_executor() -> Arc<dyn Executor + Send + Sync> {
    Arc::new(op2_backend_threads::Threads::from_env())
}

/// Does op_timing_output end with OP2's `Total plan time` line?
pub(crate) const PRINTS_PLAN_TIME: bool = cfg!(any(feature = "lib-openmp", feature = "lib-mpi"));

/// Is this process the root (prints, writes files)?
pub(crate) fn is_root() -> bool {
    printf::enabled()
}
