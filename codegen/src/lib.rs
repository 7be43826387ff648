//! Device code for OP2 parallel loops, written at run time from the
//! kernel's C source and the loop's description (its arguments as the
//! program declared them), in OpenCL C or CUDA C++ from one description.
//! Pure Rust, no FFI: compiling and launching the code is the device
//! library's business.
//!
//! ```text
//! LoopDesc (args, maps, conflicts) + kernel source + constants
//!        -> generate(.., Options { dialect, block_size, wide_offsets, fma })
//!        -> Generated { text, entry, scheme, params (launch order), groups }
//! ```
//!
//! [`find`] finds a kernel's source on the search path (with the local
//! headers it includes, its preprocessor conditionals decided as the
//! program's build decided them: [`cpp`]); [`cache`] keeps compiled programs on disk, keyed
//! by text, device, driver and options, and never trusts a damaged entry.
//!
//! See [`gen`] for the two schemes (staged with two-level colouring, flat
//! with atomics), why the kernel gets private copies of its arguments,
//! and how reductions stay independent of the device's scheduling.

pub mod cache;
pub mod consts;
pub mod cpp;
pub mod desc;
pub mod find;
pub mod gather;
pub mod gen;
pub mod samples;
pub mod source;

pub use desc::{
    Access, Arg, Conflicts, Const, ConstValue, DatArg, Dialect, GenError, LoopDesc, MapDesc, Ty,
};
pub use find::{find_kernel, find_type, FindError, KernelSource};
pub use gather::{gather_text, GATHER_ENTRY};
pub use gen::{
    generate, offsets_need_64_bits, Generated, Group, LaunchParam, Options, Scheme,
    FLAT_REDUCTION_ITEMS, GBL_BY_VALUE_BYTES,
};
