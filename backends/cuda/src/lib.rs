//! Device memory for OP2 on CUDA (`libop2_cuda`).
//!
//! What is here:
//!
//! * [`layout`]: OP2's device layouts as pure functions — SoA strides,
//!   AoS↔SoA transposition of dats, transposed maps, the `:soa` rule.
//! * [`memory`]: the [`DeviceMemory`] trait (allocate, upload, download,
//!   zero, synchronise, pinned host memory) and [`HostMemory`], an
//!   implementation in ordinary host memory with transfer counters and
//!   bounds checks, used by the tests and usable without a GPU.
//! * [`cuda`]: [`CudaMemory`], the same trait on a CUDA device's primary
//!   context through the driver API (cudarc; libcuda is loaded at run time,
//!   nothing links against CUDA), and [`cuda::open`], which reports "no CUDA
//!   driver" / "no CUDA device" as a one-line error instead of panicking.
//! * [`reduct`]: [`GrowBuffers`], the grow-only host/device scratch behind
//!   `OP_reduct_h/d` and `OP_consts_h/d`.
//! * [`plan_upload`]: moving a plan's arrays to the device, as
//!   `op_plan_get_stage_upload` does.
//! * [`halo_pack`]: gathering and scattering halo rows of device-resident
//!   dats for MPI through a host buffer.
//!
//! Everything except [`CudaMemory`] runs and is tested on any machine. The
//! CUDA path itself (allocation, transfers, pinned memory on a real device)
//! runs only where libcuda and a GPU are present; without a driver the
//! crate's tests check the clean "no CUDA driver" error instead.

pub mod cuda;
pub mod halo_pack;
pub mod layout;
pub mod memory;
pub mod plan_upload;
pub mod reduct;

pub use cuda::{CudaMemory, NoDevice};
pub use memory::{DevPtr, DeviceError, DeviceMemory, HostMemory};
pub use reduct::GrowBuffers;
