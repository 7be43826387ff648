//! OP2's HDF5 file layout, read and written exactly as OP2 does, for
//! op2-rs's HDF5 libraries (`libop2_hdf5` beside `libop2_seq`/`libop2_openmp`,
//! and the MPI library's collective variant).
//!
//! * [`file`](mod@file): an HDF5 file with `/`-paths (groups created on the way),
//!   row-range reads/writes with type conversion, OP2's attribute forms
//!   (1-element `int`, scalar fixed-length NULLTERM strings).
//! * [`layout`]: OP2's objects: set sizes, maps, dats, constants, and the
//!   check-then-overwrite of `op_fetch_data_hdf5`. Every read and write takes
//!   a row range, and set sizes go through a [`RowDist`], so a process of an
//!   MPI run reads and writes its own block of rows.
//! * [`types`]: the element types and every type string OP2 accepts.
//!
//! * [`op2_c`], [`c_guard`], [`c_util`]: OP2's C structs and API as seen from outside
//!   (declarations only) and the error convention, shared by the two C
//!   libraries built on this crate.
//! * [`c_api`]: OP2's HDF5 C API itself, generic over a [`c_api::Ctx`] that
//!   each C library implements (serial, or MPI-IO on a communicator).
//!
//! No OP2 handles are used here: the C libraries turn what this crate reads into
//! `op_decl_*` calls. Errors are [`Error`]s whose text names the file and
//! dataset; the caller adds the OP2 call and object.

pub mod c_api;
pub mod c_guard;
pub mod c_util;
pub mod file;
mod handle;
pub mod layout;
pub mod op2_c;
pub mod types;

pub use file::{Access, Dataset, H5File, Mode};
pub use layout::{op2_block, MapData, RowDist, Serial};
pub use types::{types_equivalent, ElemType, DAT_TYPE_STRINGS};

/// A failed HDF5 operation; the message names the file and dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// what went wrong
    pub msg: String,
}

impl Error {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Error {
        Error { msg: msg.into() }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// The HDF5 library's version (major, minor, release).
pub fn library_version() -> (u8, u8, u8) {
    hdf5::library_version()
}

/// For the entry points `op_hdf5_c_api!` generates in other crates.
pub use op2_core;
