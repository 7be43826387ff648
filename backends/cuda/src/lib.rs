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

use op2_core::device::{DeviceMemory, HostMemory};
use std::sync::Arc;

/// The CUDA device for MPI rank `rank` (rank modulo the devices of the
/// node, as OP2; its primary context), or the one-line reason there is
/// none. `OP2_RS_DEVICE=host` selects a device simulated in host memory
/// instead: device pointers are then host addresses, so tests can check
/// every transfer a library makes on a machine without a GPU (no CUDA
/// kernel can run on it).
pub fn device_for_rank(rank: usize) -> Result<Arc<dyn DeviceMemory>, NoDevice> {
    if std::env::var("OP2_RS_DEVICE").is_ok_and(|v| v == "host") {
        return Ok(Arc::new(HostMemory::new()));
    }
    let count = cuda::device_count()?;
    Ok(Arc::new(cuda::open(rank % count.max(1))?))
}
