//! OpenCL as a [`Device`] for the run-time loop compiler
//! ([`op2_backend_jit`]): generated OpenCL C 1.2 built once per text (the
//! disk cache keyed by the device's identity first), a kernel object per
//! loop, every parameter set before each launch.

use crate::{Kernel, Marker, OpenCl, Program};
use op2_backend_jit::{BuildError, Device, Front, JitCompiler, Marks, Value};
use op2_codegen::cache::Cache;
use op2_codegen::{Dialect, Generated};
use op2_core::device::memory::{DeviceError, DeviceMemory};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Options every generated program is built with.
pub const BUILD_OPTIONS: &str = "-cl-std=CL1.2";

/// The OpenCL loop compiler.
pub type Engine = JitCompiler<ClDevice>;

/// An OpenCL device with the programs built on it, by their text.
pub struct ClDevice {
    cl: Arc<OpenCl>,
    programs: Mutex<HashMap<String, Program>>,
}

impl ClDevice {
    pub fn new(cl: Arc<OpenCl>) -> ClDevice {
        ClDevice {
            cl,
            programs: Mutex::new(HashMap::new()),
        }
    }
}

/// The device `OP2_RS_OPENCL_DEVICE` picks and the loop compiler on it,
/// with the environment's options (the device's queue times commands when
/// loops are timed, `OP2_RS_DEVICE_TIMES`); a malformed option or no
/// device is an error in one line.
pub fn open_from_env() -> Result<(Arc<OpenCl>, Engine), String> {
    let front = Front::from_env()?;
    let cl = OpenCl::open_from_env(front.device_times()).map_err(|e| e.to_string())?;
    let dev = Arc::new(ClDevice::new(cl.clone()));
    Ok((cl, JitCompiler::new(dev, front)))
}

impl Marks for ClDevice {
    type Mark = Marker;

    fn new_mark(&self) -> Result<Marker, DeviceError> {
        Ok(Marker::new(&self.cl))
    }

    fn record(&self, m: &mut Marker) -> Result<(), DeviceError> {
        m.record()
    }

    fn seconds(&self, from: &Marker, to: &Marker) -> Result<f64, DeviceError> {
        let (a, b) = (from.passed_ns()?, to.passed_ns()?);
        Ok(b.saturating_sub(a) as f64 * 1e-9)
    }
}

impl Device for ClDevice {
    type Kernel = Kernel;
    const DIALECT: Dialect = Dialect::OpenCl;
    const COMPILER: &'static str = "the OpenCL compiler";
    const EXTENSION: &'static str = "cl";

    fn name(&self) -> String {
        format!("OpenCL: {}", self.cl.name)
    }

    fn memory(&self) -> &dyn DeviceMemory {
        &*self.cl
    }

    fn build(&self, g: &Generated, cache: Option<&Cache>) -> Result<Kernel, BuildError> {
        let mut progs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if !progs.contains_key(&g.text) {
            let p = self
                .cl
                .build(&g.text, BUILD_OPTIONS, cache)
                .map_err(|e| BuildError::Rejected(e.to_string()))?;
            progs.insert(g.text.clone(), p);
        }
        progs[&g.text]
            .kernel(&g.entry)
            .map_err(|e| BuildError::Failed(e.to_string()))
    }

    fn launch(
        &self,
        k: &mut Kernel,
        params: &[Value],
        groups: usize,
        block: usize,
        _shared: usize,
    ) -> Result<(), DeviceError> {
        for (i, v) in params.iter().enumerate() {
            match *v {
                Value::Ptr(p) => k.set_ptr(i, p)?,
                Value::Int(x) => k.set_i32(i, x)?,
                Value::Long(x) => k.set_i64(i, x)?,
                Value::Local(n) => k.set_local(i, n)?,
                Value::Bytes { data, len } => k.set_bytes(i, &data[..len])?,
            }
        }
        k.launch(groups, block)
    }
}
