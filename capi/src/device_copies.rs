//! The device and the copies on it (CUDA libraries): what `State::device`
//! holds. The rules that move data between the copies are in `device`.

use op2_backend_cuda::layout::DatLayout;
use op2_backend_cuda::memory::{DevPtr, DeviceMemory};
use op2_backend_cuda::plan_upload::{self, PlanDeviceArrays};
use op2_backend_cuda::reduct::GrowBuffers;
use op2_core::DatId;
use std::collections::HashMap;
use std::sync::Arc;

/// A dat's device copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DevDat {
    pub(crate) ptr: DevPtr,
    pub(crate) layout: DatLayout,
}

/// The device and what lives on it.
pub(crate) struct Device {
    pub(crate) mem: Arc<dyn DeviceMemory>,
    pub(crate) dats: Vec<Option<DevDat>>,
    pub(crate) maps: Vec<Option<DevPtr>>,
    /// OP2's reduction scratch (`OP_reduct_h` / `OP_reduct_d`).
    pub(crate) reduct: GrowBuffers,
    /// OP2's constant scratch (`OP_consts_h` / `OP_consts_d`).
    pub(crate) consts: GrowBuffers,
    /// Device copies of plans handed to generated code, by plan index.
    pub(crate) plans: HashMap<usize, PlanDeviceArrays>,
    /// Dats whose halo rows an MPI exchange wrote on the host, to upload
    /// when the exchange completes.
    pub(crate) halo_uploads: Vec<DatId>,
}

impl Device {
    pub(crate) fn new(mem: Arc<dyn DeviceMemory>) -> Device {
        Device {
            dats: Vec::new(),
            maps: Vec::new(),
            reduct: GrowBuffers::new(mem.clone()),
            consts: GrowBuffers::new(mem.clone()),
            mem,
            plans: HashMap::new(),
            halo_uploads: Vec::new(),
        }
    }

    pub(crate) fn release(&mut self) {
        for d in self.dats.drain(..).flatten() {
            self.mem.free(d.ptr);
        }
        for m in self.maps.drain(..).flatten() {
            self.mem.free(m);
        }
        for (_, p) in self.plans.drain() {
            plan_upload::free_plan(&*self.mem, &p);
        }
        self.reduct = GrowBuffers::new(self.mem.clone());
        self.consts = GrowBuffers::new(self.mem.clone());
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.release();
    }
}
