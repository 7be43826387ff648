//! The OP2 C ABI. This one source is compiled into every OP2 library
//! (`libop2_seq`, `libop2_openmp`, `libop2_mpi`, `libop2_cuda`,
//! `libop2_mpi_cuda`; see capi/libs/* and
//! capi/README.md): each library crate points its `[lib]` at this file and
//! enables the feature that selects its backends in `compose`, the only
//! module that looks at features.
//!
//! Modules, bottom up (a module uses only those above it):
//! * `ffi` (OP2's C structs), `globals` (OP2's exported variables), `printf`,
//!   `mem` (OP2's allocator), `guard` (panic boundary, fatal errors);
//! * `fingerprint` (recognising repeated calls), `kernels` (`OP_kernels`),
//!   `plan_cache` (plan keys, `OP_plans`), `loop_cache` (checked loops),
//!   `vector_ptrs` (per-thread buffers for kernels' vector arguments);
//! * `device_copies` (the device and the copies on it, CUDA libraries);
//! * `state` (the registry of sets/maps/dats, their C mirrors, the chosen
//!   executor, distribution and device, behind one lock), `compose`,
//!   `device` (moving data between host and device copies: OP2's dirty_hd);
//! * the API: `decl` (init/exit/declarations), `args` (op_arg constructors),
//!   `plans` (plan functions), `profile`, `par_loop` (op_par_loop),
//!   `fortran`, `dist_api` (op_partition, op_mpi_*), `output` (fetch, dumps,
//!   timing), `runtime_hooks`, `cuda_api` (OP2's CUDA runtime interface),
//!   `overlay` (dats sharing storage: overlays, OP_NO_REALLOC),
//!   `fortran_data` (OP2's helpers for reaching library-held data),
//!   `fallback` (translator-v2's fallback wrappers: OP_WHITELIST, OP_FALLBACK_MODE).
#![allow(clippy::missing_safety_doc)]
#![allow(clippy::too_many_arguments)]

pub mod args;
mod compose;
pub mod cross_rank;
pub mod cuda_api;
pub mod cuda_gbl;
pub mod decl;
pub(crate) mod device;
pub(crate) mod device_copies;
pub mod dist_api;
pub mod fallback;
pub mod ffi;
pub(crate) mod fingerprint;
pub mod fortran;
pub mod fortran_data;
pub mod globals;
pub mod guard;
pub(crate) mod kernels;
pub(crate) mod loop_cache;
pub mod mem;
pub mod output;
pub mod overlay;
pub mod par_loop;
pub(crate) mod plan_cache;
pub mod plans;
pub mod printf;
pub mod profile;
pub mod runtime_hooks;
pub mod state;
pub(crate) mod vector_ptrs;

/// Is this process the root (prints, writes files)?
pub(crate) fn is_root() -> bool {
    printf::enabled()
}
