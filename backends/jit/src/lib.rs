//! What every device that runs unchanged op_seq.h loops through code
//! written at run time shares (libop2_opencl, libop2_cuda): the kernel's
//! source found ([`front`]: the search path, the executable's debug
//! information, helpers the compiler says are missing), the loop
//! described for the generator ([`describe`]), the code generated with the
//! constants the kernel uses, built once (the device's disk cache, then
//! one program per text), the plan and every parameter bound, launched
//! colour by colour, and the reductions combined in slot order
//! ([`launch`]). A device supplies only [`Device`]: how to build a text
//! and how to launch a built kernel; [`JitCompiler`] is core's
//! `LoopCompiler` for any of them.

pub mod config;
pub mod debuginfo;
pub mod describe;
pub mod front;
pub mod launch;
pub mod symbols;
pub mod times;

pub use front::{ConflictChoice, Front};
pub use launch::Value;
pub use times::{LoopTimes, Marks};

use op2_codegen::cache::Cache;
use op2_codegen::{Dialect, Generated};
use op2_core::device::memory::{DeviceError, DeviceMemory};
use op2_core::runtime::{CompileRequest, DeviceKernel, LaunchInput, LoopCompiler, PlanShape};
use std::sync::Arc;

/// Why a device could not build a generated text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The compiler rejected the code: its whole log.
    Rejected(String),
    /// Anything else (no compiler, a device that cannot load the result),
    /// in one line.
    Failed(String),
}

/// A device that builds generated code and launches it, and puts marks in
/// its queue to time loops ([`Marks`], `OP2_RS_DEVICE_TIMES`).
pub trait Device: Marks + Send + Sync + 'static {
    /// A built kernel (one per prepared loop; never shared between
    /// threads at once).
    type Kernel: Send + 'static;
    /// The dialect its code is written in.
    const DIALECT: Dialect;
    /// The name of its compiler, for messages ("the OpenCL compiler").
    const COMPILER: &'static str;
    /// The extension of a rejected program's saved code (`cl`, `cu`).
    const EXTENSION: &'static str;
    /// The device, in words ("OpenCL: pthread-haswell").
    fn name(&self) -> String;
    /// Its memory: the launch's temporaries (globals' values, reduction
    /// slots) are allocated there.
    fn memory(&self) -> &dyn DeviceMemory;
    /// Build `g` (through `cache` when given) and find its entry.
    fn build(&self, g: &Generated, cache: Option<&Cache>) -> Result<Self::Kernel, BuildError>;
    /// Launch `k` on `groups` groups of `block` items with one value per
    /// parameter of the generated code, `shared` bytes of dynamically
    /// sized local memory (CUDA's `extern __shared__`; OpenCL passes it
    /// as a [`Value::Local`] parameter). May return before it finishes:
    /// the launches of one loop and the transfers after them are ordered.
    fn launch(
        &self,
        k: &mut Self::Kernel,
        params: &[Value],
        groups: usize,
        block: usize,
        shared: usize,
    ) -> Result<(), DeviceError>;
}

/// Core's `LoopCompiler` on device `D`.
pub struct JitCompiler<D: Device> {
    dev: Arc<D>,
    front: Front,
}

impl<D: Device> JitCompiler<D> {
    /// The compiler for `dev` with the environment's options (see
    /// [`Front::from_env`]); a malformed option is an error naming it.
    pub fn from_env(dev: Arc<D>) -> Result<JitCompiler<D>, String> {
        Ok(JitCompiler {
            dev,
            front: Front::from_env()?,
        })
    }

    /// The compiler for `dev` with `front`'s options.
    pub fn new(dev: Arc<D>, front: Front) -> JitCompiler<D> {
        JitCompiler { dev, front }
    }

    /// The device.
    pub fn device(&self) -> &Arc<D> {
        &self.dev
    }
}

impl<D: Device> LoopCompiler for JitCompiler<D> {
    fn device_name(&self) -> String {
        self.dev.name()
    }

    fn timing_note(&self) -> Option<String> {
        (!self.front.wait_each_loop()).then(|| {
            "kernels queued, OP2_RS_DEVICE_ASYNC=1: a loop's time is the host's \
             unless it waits (a reduction)"
                .to_string()
        })
    }

    fn unused_options(&self, loops: &[&str]) -> Vec<String> {
        self.front.unused_options(loops)
    }

    fn compile(&self, r: &CompileRequest<'_>) -> Result<Box<dyn DeviceKernel>, String> {
        let (g, kernel) = self.front.compile(r, &*self.dev)?;
        let inds = front::inds_of(&g, r.specs);
        let note = self.front.source_note(r);
        Ok(Box::new(JitKernel {
            note,
            dev: self.dev.clone(),
            kernel,
            g,
            inds,
            scratch: launch::Scratch::default(),
            wait: self.front.wait_each_loop(),
            times: self.front.device_times().then(LoopTimes::default),
        }))
    }
}

/// One loop's built kernel on device `D`.
struct JitKernel<D: Device> {
    dev: Arc<D>,
    kernel: D::Kernel,
    g: Generated,
    /// Each argument's staged group (-1: none).
    inds: Vec<i32>,
    scratch: launch::Scratch,
    /// Wait for the kernels of a loop without a reduction
    /// ([`Front::wait_each_loop`]).
    wait: bool,
    /// Its kernels' device time ([`Front::device_times`]).
    times: Option<LoopTimes<D::Mark>>,
    /// What its source's reading assumed ([`Front::source_note`]).
    note: Option<String>,
}

impl<D: Device> Drop for JitKernel<D> {
    fn drop(&mut self) {
        self.scratch.release(self.dev.memory());
    }
}

impl<D: Device> DeviceKernel for JitKernel<D> {
    fn plan_shape(&self) -> Option<PlanShape> {
        if !self.g.scheme.uses_plan() {
            return None;
        }
        Some(PlanShape {
            inds: self.inds.clone(),
            ninds: self.g.groups.len(),
            part_size: self.g.block_size,
        })
    }

    fn launch(&mut self, l: &LaunchInput<'_>) -> Result<Vec<Option<Vec<u8>>>, String> {
        let k = (&mut self.kernel, &mut self.scratch);
        let how = launch::How {
            wait: self.wait,
            times: self.times.as_mut(),
        };
        launch::launch_with(&*self.dev, k, &self.g, l, how).map_err(|e| e.to_string())
    }

    fn device_time(&mut self) -> Option<Result<(f64, u64), String>> {
        let t = self.times.as_mut()?;
        Some(t.total(&*self.dev).map_err(|e| e.to_string()))
    }

    fn note(&self) -> Option<String> {
        self.note.clone()
    }
}
