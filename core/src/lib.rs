//! `op2-core`: the OP2 model in pure Rust.
//!
//! Sets, maps and dats live in a [`Domain`]; loop arguments are described by
//! [`ArgSpec`] and checked against a loop set by [`arg::check_loop`]. The crate
//! has no FFI and no global state: the C ABI layer (`capi/`) owns one `Domain`
//! and mirrors its objects in OP2's C structs. It starts no thread of its own:
//! plan, halo and partition construction run in parallel only when called on
//! a thread of a rayon pool (see `par`), sequentially otherwise.

pub mod aligned;
pub mod arg;
pub mod dist;
pub mod domain;
pub mod error;
pub mod format;
pub mod halo;
pub mod invoke;
mod par;
pub mod partition;
pub mod plan;
pub mod profile;
pub mod reduce;
pub mod renumber;
pub mod timing;
pub mod types;

pub use aligned::AlignedBuf;
pub use arg::{Access, ArgKind, ArgSpec};
pub use domain::{Dat, DatId, Domain, Fresh, Map, MapId, Set, SetId};
pub use error::{Op2Error, Result};
pub use invoke::{ArgView, Invoker, ViewKind};
pub use types::ScalarType;
