//! The OP2 C ABI: the C shell over `op2_core::runtime`. This one source is
//! compiled into every OP2 library (`libop2_seq`, `libop2_openmp`,
//! `libop2_mpi`, `libop2_cuda`, `libop2_mpi_cuda`; see capi/libs/* and
//! capi/README.md): each library crate points its `[lib]` at this file and
//! enables the feature that selects its parts in `compose`, the only module
//! that looks at features. What is here is what is C's: handles and the ids
//! behind them, OP2's C structs as mirrors of the model, OP2's names and the
//! conversion of their arguments, and the error boundary. Every decision
//! (checks, plans, placement, halos, transfers) is the runtime's.
//!
//! Modules, bottom up (a module uses only those above it):
//! * `ffi` (OP2's C structs), `globals` (OP2's exported variables), `printf`,
//!   `boundary` (the `c_api!` every exported function goes through), `mem`
//!   (OP2's allocator);
//! * `signature` (recognising repeated calls), `kernels` (`OP_kernels`),
//!   `c_plans` (`OP_plans`), `handles`, `mirrors` (the C structs, told by
//!   the runtime what changed), `vector_ptrs` (per-thread buffers for
//!   kernels' vector arguments);
//! * `state` (runtime, handles and mirrors behind one lock), `compose`;
//! * the API: `decl` (init/exit/declarations), `args` (op_arg constructors
//!   and conversion), `plans`, `profile`, `cross_rank`, `par_loop`,
//!   `fortran`, `dist_api` (op_partition, op_mpi_*), `output` (fetch, dumps,
//!   timing), `runtime_hooks`, `cuda_api` and `cuda_gbl` (OP2's CUDA runtime
//!   interface), `overlay`, `fortran_data`, `fallback`.

pub mod args;
pub mod boundary;
pub(crate) mod c_plans;
mod compose;
pub mod cross_rank;
pub mod cuda_api;
pub mod cuda_gbl;
pub mod decl;
pub mod dist_api;
pub mod fallback;
pub mod ffi;
pub mod fortran;
pub mod fortran_data;
pub mod globals;
pub(crate) mod handles;
pub(crate) mod kernels;
pub mod mem;
pub(crate) mod mirrors;
pub mod output;
pub mod overlay;
pub mod par_loop;
pub mod plans;
pub mod printf;
pub mod profile;
pub mod runtime_hooks;
pub(crate) mod signature;
pub mod state;
pub(crate) mod vector_ptrs;

/// Is this process the root (prints, writes files)?
pub(crate) fn is_root() -> bool {
    printf::enabled()
}
