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
pub mod loops;

pub use cuda::{CudaMemory, NoDevice};
pub use loops::{CudaDevice, CudaLoops};

use op2_core::device::{DeviceMemory, HostMemory};
use op2_core::runtime::LoopCompiler;
use std::sync::Arc;

/// The CUDA device for MPI rank `rank` (rank modulo the devices of the
/// node, as OP2; its primary context), or the one-line reason there is
/// none. `OP2_RS_DEVICE=host` selects a device simulated in host memory
/// instead: device pointers are then host addresses, so tests can check
/// every transfer a library makes on a machine without a GPU (no CUDA
/// kernel can run on it).
pub fn device_for_rank(rank: usize) -> Result<Arc<dyn DeviceMemory>, NoDevice> {
    Ok(open_for_rank(rank)?.0)
}

/// A device's memory, and on a GPU the device itself.
type Opened = (Arc<dyn DeviceMemory>, Option<Arc<CudaMemory>>);

fn open_for_rank(rank: usize) -> Result<Opened, NoDevice> {
    if simulated() {
        return Ok((Arc::new(HostMemory::new()), None));
    }
    let count = cuda::device_count()?;
    let m = Arc::new(cuda::open(rank % count.max(1))?);
    Ok((m.clone(), Some(m)))
}

fn simulated() -> bool {
    std::env::var("OP2_RS_DEVICE").is_ok_and(|v| v == "host")
}

/// A device's memory and, when op_seq.h loops run on it, their compiler.
pub type DeviceAndLoops = (Arc<dyn DeviceMemory>, Option<Arc<dyn LoopCompiler>>);

/// The device of `rank` (as [`device_for_rank`]) and the run-time loop
/// compiler that runs unchanged op_seq.h loops on it ([`loops`]). On a
/// simulated device there is a compiler only when `OP2_RS_CUDA_ARCH`
/// names an architecture to compile for (the loops then run on the
/// host). A malformed option is an error naming it.
pub fn device_and_loops(rank: usize) -> Result<DeviceAndLoops, String> {
    let (mem, gpu) = open_for_rank(rank).map_err(|e| e.to_string())?;
    if let Ok(v) = std::env::var("OP2_RS_CUDA_ARCH") {
        if loops::parse_arch(&v).is_none() {
            return Err(format!(
                "OP2_RS_CUDA_ARCH={v}: not an architecture (sm_90, 90 or 9.0)"
            ));
        }
    }
    let dev = match (gpu, loops::arch_from_env()) {
        (Some(g), _) => CudaDevice::gpu(g),
        (None, Some(arch)) => CudaDevice::simulated(mem.clone(), arch),
        (None, None) => return Ok((mem, None)),
    };
    let compiler: Arc<dyn LoopCompiler> = Arc::new(CudaLoops::from_env(Arc::new(dev))?);
    Ok((mem, Some(compiler)))
}
