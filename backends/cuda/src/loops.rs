//! CUDA as a [`Device`] for the run-time loop compiler
//! ([`op2_backend_jit`]): libop2_cuda runs the loops of unchanged op_seq.h
//! programs on the GPU. Each loop's CUDA C++ (op2-codegen) is compiled by
//! NVRTC (cudarc, libnvrtc loaded at run time, so nothing CUDA is needed
//! to build) with `-default-device` (the application's kernel functions
//! need no `__device__`) and `--fmad=false` (the GPU computes what the
//! kernel's source says on the host, as the OpenCL path's FP_CONTRACT OFF;
//! `--fmad=true` with `OP2_RS_FMA=1`)
//! into a cubin for the device's architecture, cached on disk (key: the
//! text, the architecture and the options, not the driver: a cubin is
//! loaded by any driver that supports its toolkit), loaded with
//! `cuModuleLoadData` in the device's primary context and launched with
//! `cuLaunchKernel` on the legacy default stream, so it is ordered with
//! the synchronous transfers of [`CudaMemory`](crate::CudaMemory).
//!
//! A cached cubin needs no NVRTC: a machine without the toolkit runs what
//! another machine compiled for its architecture into the same cache
//! directory. With a device simulated in host memory
//! (`OP2_RS_DEVICE=host`) and `OP2_RS_CUDA_ARCH` set, every loop is still
//! compiled (and cached) for that architecture, then runs on the host: the
//! host-side path, NVRTC included, is tested where there is no GPU.

use crate::cuda::{err_name, guarded, CudaMemory};
use cudarc::driver::result as drv;
use cudarc::driver::sys as dsys;
use cudarc::nvrtc::result as rtc;
use cudarc::nvrtc::sys as rsys;
use op2_backend_jit::{BuildError, Device, JitCompiler, Marks, Value};
use op2_codegen::cache::{Cache, Key};
use op2_codegen::{Dialect, Generated, GBL_BY_VALUE_BYTES};
use op2_core::device::memory::{DeviceError, DeviceMemory};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// NVRTC's options besides the architecture (a loop written for fused
/// multiply-adds, `OP2_RS_FMA=1`, gets [`NVRTC_FMA`] instead of
/// [`NVRTC_NO_FMA`]).
pub const NVRTC_OPTIONS: [&str; 3] = ["-default-device", NVRTC_NO_FMA, "-std=c++17"];
/// No contraction: the GPU computes what the kernel's source says on the
/// host.
pub const NVRTC_NO_FMA: &str = "--fmad=false";
/// `a * b + c` may become one fused multiply-add (nvcc's default).
pub const NVRTC_FMA: &str = "--fmad=true";

/// The run-time loop compiler on CUDA.
pub type CudaLoops = JitCompiler<CudaDevice>;

/// Where the loops run.
enum Target {
    Gpu(Arc<CudaMemory>),
    /// Simulated in host memory: compile only.
    Simulated(Arc<dyn DeviceMemory>),
}

/// A CUDA device (or a simulated one) with the modules loaded on it, by
/// their text.
pub struct CudaDevice {
    target: Target,
    /// `sm_XY`.
    arch: String,
    modules: Mutex<HashMap<String, Arc<Module>>>,
}

/// A loaded module (unloaded when the last kernel using it goes).
struct Module {
    mem: Arc<CudaMemory>,
    module: dsys::CUmodule,
}

// SAFETY: a CUmodule is a handle the driver lets any thread use once its
// context is current (every use binds the context first).
unsafe impl Send for Module {}
// SAFETY: as for Send; the handle is only read.
unsafe impl Sync for Module {}

impl Drop for Module {
    fn drop(&mut self) {
        let m = self.module;
        let ctx = self.mem.context().clone();
        let _ = guarded("cuModuleUnload", || {
            ctx.bind_to_thread().map_err(err_name)?;
            // SAFETY: the module loaded by this value, unloaded once.
            unsafe { drv::module::unload(m) }.map_err(err_name)
        });
    }
}

/// One loop's kernel function.
pub struct CuKernel {
    module: Arc<Module>,
    func: dsys::CUfunction,
    /// Dynamic shared memory the function is allowed (above 48 KiB it must
    /// be raised).
    shared_limit: usize,
    /// The parameters' bytes of the last launch, and the pointers to them
    /// cuLaunchKernel takes (rebuilt at every launch; kept so that a launch
    /// allocates nothing).
    store: Vec<ParamBytes>,
    ptrs: Vec<*mut c_void>,
}

/// One kernel parameter's bytes: room for the largest (a global by value),
/// aligned as any of the parameters' types needs.
#[repr(C, align(16))]
struct ParamBytes([u8; GBL_BY_VALUE_BYTES]);

// SAFETY: a CUfunction is a handle valid while its module is loaded (the
// kernel holds the module); launches bind the context first.
unsafe impl Send for CuKernel {}

impl CudaDevice {
    /// The loops of `mem`'s GPU, compiled for its architecture (or
    /// `OP2_RS_CUDA_ARCH`'s).
    pub fn gpu(mem: Arc<CudaMemory>) -> CudaDevice {
        let (major, minor) = mem.compute_capability();
        let arch = arch_from_env().unwrap_or_else(|| format!("sm_{major}{minor}"));
        CudaDevice {
            target: Target::Gpu(mem),
            arch,
            modules: Mutex::new(HashMap::new()),
        }
    }

    /// Compile-only loops on a simulated device, for architecture `arch`.
    pub fn simulated(mem: Arc<dyn DeviceMemory>, arch: String) -> CudaDevice {
        CudaDevice {
            target: Target::Simulated(mem),
            arch,
            modules: Mutex::new(HashMap::new()),
        }
    }

    /// The architecture code is compiled for (`sm_90`).
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The options `g` is compiled with.
    fn options(&self, g: &Generated) -> Vec<String> {
        let mut o = vec![format!("--gpu-architecture={}", self.arch)];
        o.extend(NVRTC_OPTIONS.iter().map(|&s| {
            if g.fma && s == NVRTC_NO_FMA {
                NVRTC_FMA.to_string()
            } else {
                s.to_string()
            }
        }));
        o
    }
}

/// `OP2_RS_CUDA_ARCH` (`sm_90`, `90`, `9.0`), when set and well formed.
pub fn arch_from_env() -> Option<String> {
    let v = std::env::var("OP2_RS_CUDA_ARCH").ok()?;
    parse_arch(&v)
}

/// `sm_XY` from `sm_XY`, `XY` or `X.Y` (a final `a` or `f`, as in
/// `sm_90a`, is kept).
pub fn parse_arch(v: &str) -> Option<String> {
    let v = v.trim();
    let code: String = v
        .strip_prefix("sm_")
        .unwrap_or(v)
        .chars()
        .filter(|c| *c != '.')
        .collect();
    let digits = code.chars().take_while(char::is_ascii_digit).count();
    let suffix = &code[digits..];
    (digits >= 2 && matches!(suffix, "" | "a" | "f")).then(|| format!("sm_{code}"))
}

/// Whether NVRTC can be loaded.
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen libnvrtc under its usual names.
    catch_unwind(|| unsafe { rsys::is_culib_present() }).unwrap_or(false)
}

/// Why there is no NVRTC.
pub const NO_NVRTC: &str = "NVRTC not found (libnvrtc.so.13 or libnvrtc.so on the library path: put the CUDA toolkit's lib64 directory on LD_LIBRARY_PATH)";

fn c_text(log: &[std::os::raw::c_char]) -> String {
    let bytes: Vec<u8> = log
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `text` compiled by NVRTC into a cubin (`options` name the
/// architecture); the compiler's log when it rejects the code.
pub fn nvrtc_cubin(text: &str, name: &str, options: &[String]) -> Result<Vec<u8>, BuildError> {
    if !nvrtc_present() {
        return Err(BuildError::Failed(NO_NVRTC.to_string()));
    }
    let failed = |w: String| BuildError::Failed(w);
    let src =
        CString::new(text).map_err(|_| failed("the generated code contains a NUL byte".into()))?;
    let file = CString::new(format!("{name}.cu"))
        .map_err(|_| failed("the loop's name contains a NUL byte".into()))?;
    let run = || -> Result<Vec<u8>, BuildError> {
        let prog = rtc::create_program(&src, Some(&file))
            .map_err(|e| failed(format!("nvrtcCreateProgram: {e:?}")))?;
        // SAFETY: `prog` was created above and is destroyed only below.
        let out = match unsafe { rtc::compile_program(prog, options) } {
            // SAFETY: as above.
            Err(_) => Err(match unsafe { rtc::get_program_log(prog) } {
                Ok(log) => BuildError::Rejected(c_text(&log)),
                Err(e) => failed(format!("nvrtcGetProgramLog: {e:?}")),
            }),
            Ok(()) => {
                // SAFETY: as above; the program compiled.
                unsafe { cubin_of(prog) }.map_err(|e| failed(format!("nvrtcGetCUBIN: {e:?}")))
            }
        };
        // SAFETY: `prog` is live and destroyed once.
        let _ = unsafe { rtc::destroy_program(prog) };
        out
    };
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| {
        Err(failed(
            "NVRTC failed (a missing symbol in libnvrtc?)".into(),
        ))
    })
}

/// The cubin of a compiled program.
///
/// # Safety
/// `prog` must be a live program that compiled.
unsafe fn cubin_of(prog: rsys::nvrtcProgram) -> Result<Vec<u8>, rtc::NvrtcError> {
    let mut n = 0usize;
    // SAFETY: the caller's `prog`; `n` receives the size.
    unsafe { rsys::nvrtcGetCUBINSize(prog, &mut n) }.result()?;
    let mut buf = vec![0u8; n];
    // SAFETY: `buf` holds the `n` bytes NVRTC writes.
    unsafe { rsys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast()) }.result()?;
    Ok(buf)
}

/// `cubin` loaded on `mem`'s device.
fn load(mem: &Arc<CudaMemory>, cubin: &[u8]) -> Result<Arc<Module>, String> {
    let ctx = mem.context().clone();
    let module = guarded("cuModuleLoadData", || {
        ctx.bind_to_thread()
            .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
        // SAFETY: `cubin` is a whole image alive during the call; the
        // driver checks it and returns an error for a bad one.
        unsafe { drv::module::load_data(cubin.as_ptr().cast()) }
            .map_err(|e| format!("cuModuleLoadData: {}", err_name(e)))
    })?;
    Ok(Arc::new(Module {
        mem: mem.clone(),
        module,
    }))
}

/// The constants' values copied into the module's `__constant__`
/// variables (one the compiler dropped as unused is skipped).
fn set_consts(module: &Module, values: &[(String, Vec<u8>)]) -> Result<(), String> {
    if values.is_empty() {
        return Ok(());
    }
    let ctx = module.mem.context().clone();
    let m = module.module;
    guarded("cuModuleGetGlobal", || {
        ctx.bind_to_thread()
            .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
        for (name, bytes) in values {
            let c =
                CString::new(name.as_str()).map_err(|_| format!("constant {name}: a NUL byte"))?;
            // SAFETY: `m` is loaded (held by `module`).
            let (ptr, size) = match unsafe { drv::module::get_global(m, c) } {
                Ok(g) => g,
                Err(e) if e.0 == dsys::cudaError_enum::CUDA_ERROR_NOT_FOUND => continue,
                Err(e) => return Err(format!("cuModuleGetGlobal({name}): {}", err_name(e))),
            };
            if size != bytes.len() {
                return Err(format!(
                    "constant {name}: the module's variable has {size} bytes, the program declared {}",
                    bytes.len()
                ));
            }
            // SAFETY: `ptr` is the module's variable of `size` bytes, and
            // `bytes` holds as many; the copy is synchronous.
            unsafe { drv::memcpy_htod_sync(ptr, bytes) }
                .map_err(|e| format!("cuMemcpyHtoD({name}): {}", err_name(e)))?;
        }
        Ok(())
    })
}

/// Shared memory every kernel may use without asking.
const DEFAULT_SHARED: usize = 48 * 1024;

impl CudaDevice {
    /// The cubin of `g`: from the cache, else compiled (and cached).
    fn cubin(
        &self,
        g: &Generated,
        cache: Option<&Cache>,
        fresh: bool,
    ) -> Result<Vec<u8>, BuildError> {
        let options = self.options(g);
        let joined = options.join(" ");
        let key = Key {
            text: &g.text,
            device: &self.arch,
            driver: "",
            options: &joined,
        };
        if let Some(bin) = cache.filter(|_| !fresh).and_then(|c| c.get(&key)) {
            return Ok(bin);
        }
        let bin = nvrtc_cubin(&g.text, &g.entry, &options)?;
        if let Some(c) = cache {
            // a cache that cannot be written only costs the next build
            let _ = c.put(&key, &bin);
        }
        Ok(bin)
    }

    fn function(&self, module: Arc<Module>, entry: &str) -> Result<CuKernel, BuildError> {
        let name = CString::new(entry)
            .map_err(|_| BuildError::Failed("an entry name with a NUL byte".into()))?;
        let ctx = module.mem.context().clone();
        let m = module.module;
        let func = guarded("cuModuleGetFunction", || {
            ctx.bind_to_thread()
                .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
            // SAFETY: `m` is loaded (held by `module`).
            unsafe { drv::module::get_function(m, name) }
                .map_err(|e| format!("cuModuleGetFunction({entry}): {}", err_name(e)))
        })
        .map_err(BuildError::Failed)?;
        Ok(CuKernel {
            module,
            func,
            shared_limit: DEFAULT_SHARED,
            store: Vec::new(),
            ptrs: Vec::new(),
        })
    }
}

/// A CUDA event in the device's primary context, for timing loops
/// (destroyed when dropped).
pub struct CuMark {
    mem: Arc<CudaMemory>,
    event: dsys::CUevent,
}

// SAFETY: a CUDA event may be recorded, waited for, read and destroyed
// from any thread that binds its context, which every use here does first.
unsafe impl Send for CuMark {}

impl Drop for CuMark {
    fn drop(&mut self) {
        let (ctx, ev) = (self.mem.context().clone(), self.event);
        let _ = guarded("cuEventDestroy", || {
            ctx.bind_to_thread().map_err(err_name)?;
            // SAFETY: an event created by `new_mark`, destroyed once; the
            // driver releases it when the device passes it if still queued.
            unsafe { drv::event::destroy(ev) }.map_err(err_name)
        });
    }
}

impl CudaDevice {
    fn gpu_memory(&self) -> Result<&Arc<CudaMemory>, DeviceError> {
        match &self.target {
            Target::Gpu(m) => Ok(m),
            Target::Simulated(_) => {
                Err(DeviceError("device events: the device is simulated".into()))
            }
        }
    }
}

/// Runs a driver call on `mem`'s context (bound first), naming it in an
/// error.
fn on_context<T>(
    mem: &CudaMemory,
    what: &str,
    f: impl FnOnce() -> Result<T, drv::DriverError>,
) -> Result<T, DeviceError> {
    let ctx = mem.context().clone();
    guarded(what, || {
        ctx.bind_to_thread()
            .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
        f().map_err(|e| format!("{what}: {}", err_name(e)))
    })
    .map_err(DeviceError)
}

impl Marks for CudaDevice {
    type Mark = CuMark;

    fn new_mark(&self) -> Result<CuMark, DeviceError> {
        let mem = self.gpu_memory()?;
        let flags = dsys::CUevent_flags::CU_EVENT_DEFAULT;
        let event = on_context(mem, "cuEventCreate", || drv::event::create(flags))?;
        Ok(CuMark {
            mem: mem.clone(),
            event,
        })
    }

    fn record(&self, m: &mut CuMark) -> Result<(), DeviceError> {
        let ev = m.event;
        // SAFETY: a live event of this context, on the legacy default
        // stream (null), where the loops' kernels are launched.
        on_context(&m.mem, "cuEventRecord", || unsafe {
            drv::event::record(ev, std::ptr::null_mut())
        })
    }

    fn seconds(&self, from: &CuMark, to: &CuMark) -> Result<f64, DeviceError> {
        let (a, b) = (from.event, to.event);
        // SAFETY: two live events of this context, both recorded on the
        // default stream, `b` after `a`; `b` is waited for first.
        let ms = on_context(&to.mem, "cuEventElapsedTime", || unsafe {
            drv::event::synchronize(b)?;
            drv::event::elapsed(a, b)
        })?;
        Ok(f64::from(ms) * 1e-3)
    }
}

impl Device for CudaDevice {
    type Kernel = CuKernel;
    const DIALECT: Dialect = Dialect::Cuda;
    const COMPILER: &'static str = "NVRTC";
    const EXTENSION: &'static str = "cu";

    fn name(&self) -> String {
        match &self.target {
            Target::Gpu(m) => format!("CUDA: {} ({})", m.name(), self.arch),
            Target::Simulated(_) => format!(
                "CUDA: simulated in host memory (loops compiled for {}, run on the host)",
                self.arch
            ),
        }
    }

    fn memory(&self) -> &dyn DeviceMemory {
        match &self.target {
            Target::Gpu(m) => &**m,
            Target::Simulated(m) => &**m,
        }
    }

    fn build(&self, g: &Generated, cache: Option<&Cache>) -> Result<CuKernel, BuildError> {
        let mut mods = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = mods.get(&g.text) {
            // the constants' current values (a loop compiled again after
            // the program declared a constant anew)
            set_consts(m, &g.const_values).map_err(BuildError::Failed)?;
            return self.function(m.clone(), &g.entry);
        }
        let cubin = self.cubin(g, cache, false)?;
        let mem = match &self.target {
            Target::Gpu(m) => m.clone(),
            Target::Simulated(_) => {
                return Err(BuildError::Failed(format!(
                    "compiled for {} by NVRTC; the device is simulated in host memory (OP2_RS_DEVICE=host) and runs no CUDA code",
                    self.arch
                )))
            }
        };
        // a cached image the driver refuses is compiled again, once
        let module = match load(&mem, &cubin) {
            Ok(m) => m,
            Err(first) => {
                let again = self.cubin(g, cache, true).map_err(|e| match e {
                    BuildError::Failed(w) => BuildError::Failed(format!("{first}; {w}")),
                    r => r,
                })?;
                load(&mem, &again).map_err(BuildError::Failed)?
            }
        };
        set_consts(&module, &g.const_values).map_err(BuildError::Failed)?;
        mods.insert(g.text.clone(), module.clone());
        self.function(module, &g.entry)
    }

    fn launch(
        &self,
        k: &mut CuKernel,
        params: &[Value],
        groups: usize,
        block: usize,
        shared: usize,
    ) -> Result<(), DeviceError> {
        let bad = |w: String| DeviceError(format!("cuLaunchKernel: {w}"));
        if groups == 0 {
            return Ok(());
        }
        if !matches!(self.target, Target::Gpu(_)) {
            return Err(bad("the device is simulated".into()));
        }
        k.store.clear();
        for v in params {
            let mut b = ParamBytes([0u8; GBL_BY_VALUE_BYTES]);
            match *v {
                Value::Ptr(p) => b.0[..8].copy_from_slice(&p.to_ne_bytes()),
                Value::Int(x) => b.0[..4].copy_from_slice(&x.to_ne_bytes()),
                Value::Long(x) => b.0[..8].copy_from_slice(&x.to_ne_bytes()),
                Value::Bytes { data, len } => b.0[..len].copy_from_slice(&data[..len]),
                Value::Local(_) => return Err(bad("a local-memory parameter in CUDA code".into())),
            }
            k.store.push(b);
        }
        k.ptrs.clear();
        k.ptrs.extend(
            k.store
                .iter_mut()
                .map(|s| s.0.as_mut_ptr().cast::<c_void>()),
        );
        let ptrs = &mut k.ptrs;
        let dims = (
            u32::try_from(groups),
            u32::try_from(block),
            u32::try_from(shared),
        );
        let (Ok(g), Ok(b), Ok(s)) = dims else {
            return Err(bad(format!(
                "{groups} blocks of {block} threads, {shared} bytes shared"
            )));
        };
        let raise = shared > k.shared_limit;
        let (func, ctx) = (k.func, k.module.mem.context().clone());
        guarded("cuLaunchKernel", || {
            ctx.bind_to_thread()
                .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
            if raise {
                let attr =
                    dsys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
                // SAFETY: a loaded function (its module held by the kernel).
                unsafe { drv::function::set_function_attribute(func, attr, s as i32) }
                    .map_err(|e| format!("cuFuncSetAttribute: {}", err_name(e)))?;
            }
            // SAFETY: `func` is loaded; `ptrs` holds one pointer per
            // parameter of the generated code, each to GBL_BY_VALUE_BYTES
            // live bytes (16-byte aligned) whose first 4, 8 or `len` (a
            // global by value: its struct's size) are the value the
            // parameter's type reads; the legacy default stream (null)
            // orders it with the transfers.
            unsafe { drv::launch_kernel(func, (g, 1, 1), (b, 1, 1), s, std::ptr::null_mut(), ptrs) }
                .map_err(|e| format!("cuLaunchKernel: {}", err_name(e)))
        })
        .map_err(DeviceError)?;
        if raise {
            k.shared_limit = shared;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_are_named_as_nvrtc_takes_them() {
        for (v, want) in [("sm_90", "sm_90"), ("90", "sm_90"), ("9.0", "sm_90")] {
            assert_eq!(parse_arch(v).as_deref(), Some(want), "{v}");
        }
        assert_eq!(parse_arch(" sm_90a ").as_deref(), Some("sm_90a"));
        assert_eq!(parse_arch("10.0").as_deref(), Some("sm_100"));
        for bad in ["hopper", "sm_", "9", "sm_9x", ""] {
            assert_eq!(parse_arch(bad), None, "{bad}");
        }
    }

    #[test]
    fn without_nvrtc_a_compile_says_so() {
        if nvrtc_present() {
            return;
        }
        let r = nvrtc_cubin("extern \"C\" __global__ void k() {}", "k", &[]);
        assert_eq!(r, Err(BuildError::Failed(NO_NVRTC.to_string())));
    }
}
