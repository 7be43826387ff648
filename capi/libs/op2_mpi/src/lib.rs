//! `libop2_mpi`: the OP2 C ABI over MPI (`op2_mpi_capi`) and OP2's HDF5
//! API under MPI (`op2_mpi_hdf5`), linked side by side (see Cargo.toml).

pub extern crate op2_mpi_capi;
#[cfg(feature = "hdf5")]
pub extern crate op2_mpi_hdf5;
