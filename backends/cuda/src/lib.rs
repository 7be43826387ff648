//! OP2's device memory on a CUDA GPU (`libop2_cuda`, `libop2_mpi_cuda`):
//! [`CudaMemory`], core's [`DeviceMemory`] trait on a device's primary
//! context through the CUDA driver API (cudarc; libcuda is loaded at run
//! time, nothing links against CUDA), and [`cuda::open`], which reports
//! "no CUDA driver" / "no CUDA device" as a one-line error instead of
//! panicking.
//!
//! Everything else about devices is hardware-independent and lives in
//! `op2_core::device` (layouts, residency of every dat, plan upload,
//! scratch buffers, a host-memory device for tests). The CUDA path itself
//! runs only where libcuda and a GPU are present; without a driver the
//! crate's tests check the clean "no CUDA driver" error instead.
//!
//! [`DeviceMemory`]: op2_core::device::memory::DeviceMemory

pub mod cuda;

pub use cuda::{CudaMemory, NoDevice};
