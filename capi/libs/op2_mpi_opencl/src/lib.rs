//! `libop2_mpi_opencl`: the OP2 C ABI over MPI with OpenCL device loops
//! (`op2_mpi_opencl_capi`) and OP2's HDF5 API under MPI (`op2_mpi_hdf5`),
//! linked side by side (see Cargo.toml).

#[cfg(feature = "hdf5")]
pub extern crate op2_mpi_hdf5;
pub extern crate op2_mpi_opencl_capi;
