//! Devices, independent of any hardware: the [`DeviceMemory`] trait a
//! device library implements (CUDA's driver API in `op2-backend-cuda`, host
//! memory for tests here), OP2's device layouts, the per-dat device copies
//! and the rules that keep host and device copies coherent
//! ([`copies`], driven by the runtime), plan upload, scratch buffers, the
//! rows a halo exchange sends ([`halo_pack`]) and the global-argument rules of generated CUDA code.

pub mod copies;
pub mod gbl;
pub mod halo_pack;
pub mod layout;
pub mod memory;
pub mod plan_upload;
pub mod scratch;
pub mod stats;

pub use copies::DeviceCopies;
pub use memory::{DevPtr, DeviceError, DeviceMemory, HostMemory};
pub use scratch::GrowBuffers;
pub use stats::{Moves, TransferStats};
