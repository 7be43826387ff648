//! [`DeviceMemory`] on a CUDA device through the driver API (cudarc, with
//! libcuda loaded at run time).
//!
//! The memory lives in the device's *primary* context, the one the CUDA
//! runtime uses, so pointers from here are valid in nvcc-compiled code that
//! calls the runtime API (OP2's generated kernels and `cudaMemcpyToSymbol`).
//! Each call binds that context to the calling thread first.
//!
//! Transfers are the synchronous driver calls (`cuMemcpyHtoD`,
//! `cuMemcpyDtoH`, `cuMemsetD8`) on the legacy default stream, so they are
//! ordered with kernels the generated code launches on that stream. A
//! download returns when the data is on the host; an upload from pageable
//! memory returns when the source may be reused.
//!
//! Nothing here panics: libcuda's presence is checked before its first use
//! (cudarc panics when it is missing), and every driver call also runs under
//! `catch_unwind` (cudarc panics too when a symbol is missing from an old
//! driver).

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{sys, CudaContext};
use op2_core::device::memory::{DevPtr, DeviceError, DeviceMemory, Gather};
use std::ffi::c_void;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// Why no device can be used, in one line (for `op_init`'s message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoDevice(pub String);

impl NoDevice {
    pub fn reason(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NoDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoDevice {}

/// The reason given when libcuda cannot be loaded.
pub const NO_DRIVER: &str = "no CUDA driver (libcuda.so.1 not found)";

/// The name of a driver error (e.g. `CUDA_ERROR_NO_DEVICE`), taken from the
/// enum so no driver call is needed.
pub(crate) fn err_name(e: DriverError) -> String {
    format!("{:?}", e.0)
}

/// Whether libcuda can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: this only tries to dlopen libcuda under its usual names (and
    // closes it again); loading the driver library runs no code of ours.
    catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

/// Runs driver code, turning a panic inside cudarc into an error.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(format!(
            "{what}: the CUDA driver library failed (missing symbol?)"
        )),
    }
}

fn count_devices() -> Result<usize, NoDevice> {
    if !driver_present() {
        return Err(NoDevice(NO_DRIVER.to_string()));
    }
    let n = guarded("cuInit", || {
        result::init().map_err(|e| format!("no CUDA device (cuInit: {})", err_name(e)))?;
        result::device::get_count()
            .map_err(|e| format!("no CUDA device (cuDeviceGetCount: {})", err_name(e)))
    })
    .map_err(NoDevice)?;
    match usize::try_from(n) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(NoDevice("no CUDA device".to_string())),
    }
}

/// Number of CUDA devices; an error when there is no driver or no device.
pub fn device_count() -> Result<usize, NoDevice> {
    count_devices()
}

/// Device memory on one CUDA device (its primary context).
pub struct CudaMemory {
    ctx: Arc<CudaContext>,
    name: String,
    capability: (i32, i32),
    total_mem: usize,
    /// The row gather's module and function (raw handles), compiled by
    /// NVRTC and loaded on first use, or why that failed (then halo rows
    /// move as spans); unloaded in `Drop`.
    gather: Mutex<Option<Result<(usize, usize), String>>>,
}

/// Opens device `ordinal` (retaining its primary context). Fails with a
/// one-line reason when there is no driver, no device or no such device.
pub fn open(ordinal: usize) -> Result<CudaMemory, NoDevice> {
    let count = count_devices()?;
    if ordinal >= count {
        return Err(NoDevice(format!(
            "no CUDA device {ordinal} ({count} device(s) present)"
        )));
    }
    guarded("open", || {
        let fail = |what: &str, e: DriverError| {
            format!(
                "cannot open CUDA device {ordinal} ({what}: {})",
                err_name(e)
            )
        };
        let ctx = CudaContext::new(ordinal).map_err(|e| fail("cuDevicePrimaryCtxRetain", e))?;
        let name = ctx.name().map_err(|e| fail("cuDeviceGetName", e))?;
        let capability = ctx
            .compute_capability()
            .map_err(|e| fail("cuDeviceGetAttribute", e))?;
        let total_mem = ctx.total_mem().map_err(|e| fail("cuDeviceTotalMem", e))?;
        Ok(CudaMemory {
            ctx,
            name,
            capability,
            total_mem,
            gather: Mutex::new(None),
        })
    })
    .map_err(NoDevice)
}

impl CudaMemory {
    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Compute capability (major, minor), e.g. (9, 0) for an H100.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.capability
    }

    /// Device memory in bytes.
    pub fn total_mem(&self) -> usize {
        self.total_mem
    }

    /// The retained primary context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Binds the context, then runs one driver operation under the guard.
    fn call<T>(
        &self,
        what: &str,
        f: impl FnOnce() -> Result<T, DriverError>,
    ) -> Result<T, DeviceError> {
        guarded(what, || {
            self.ctx
                .bind_to_thread()
                .map_err(|e| format!("cuCtxSetCurrent: {}", err_name(e)))?;
            f().map_err(|e| format!("{what}: {}", err_name(e)))
        })
        .map_err(DeviceError)
    }
}

/// Threads per block of the row gather.
const GATHER_BLOCK: usize = 256;

impl CudaMemory {
    /// The row gather's function: compiled by NVRTC for this device (or
    /// `OP2_RS_CUDA_ARCH`) and loaded the first time; a failure (no NVRTC)
    /// is remembered and returned each time.
    fn gather_function(&self) -> Result<sys::CUfunction, String> {
        let mut slot = self.gather.lock().unwrap_or_else(|e| e.into_inner());
        let built = slot.get_or_insert_with(|| self.build_gather());
        match built {
            Ok((_, f)) => Ok(*f as sys::CUfunction),
            Err(why) => Err(why.clone()),
        }
    }

    fn build_gather(&self) -> Result<(usize, usize), String> {
        let (major, minor) = self.capability;
        let arch = crate::loops::arch_from_env().unwrap_or_else(|| format!("sm_{major}{minor}"));
        let mut options = vec![format!("--gpu-architecture={arch}")];
        options.extend(crate::loops::NVRTC_OPTIONS.iter().map(|o| o.to_string()));
        let text = op2_codegen::gather_text(op2_codegen::Dialect::Cuda);
        let entry = op2_codegen::GATHER_ENTRY;
        let cubin = crate::loops::nvrtc_cubin(&text, entry, &options).map_err(|e| match e {
            op2_backend_jit::BuildError::Rejected(log) => {
                format!("NVRTC rejected the row gather: {log}")
            }
            op2_backend_jit::BuildError::Failed(w) => w,
        })?;
        // SAFETY: `cubin` is a whole image alive during the call; the
        // driver checks it and returns an error for a bad one.
        let module = self
            .call("cuModuleLoadData", || unsafe {
                result::module::load_data(cubin.as_ptr().cast())
            })
            .map_err(|e| e.0)?;
        let name = std::ffi::CString::new(entry).map_err(|_| "a NUL in the gather's name")?;
        // SAFETY: `module` was loaded above.
        match self.call("cuModuleGetFunction", || unsafe {
            result::module::get_function(module, name)
        }) {
            Ok(f) => Ok((module as usize, f as usize)),
            Err(e) => {
                // SAFETY: the module loaded above, unloaded once.
                let _ = self.call("cuModuleUnload", || unsafe {
                    result::module::unload(module)
                });
                Err(e.0)
            }
        }
    }
}

impl Drop for CudaMemory {
    fn drop(&mut self) {
        let built = self
            .gather
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(Ok((module, _))) = built {
            // SAFETY: the gather's module, loaded by `build_gather` and
            // unloaded once, its function no longer used.
            let _ = self.call("cuModuleUnload", || unsafe {
                result::module::unload(module as sys::CUmodule)
            });
        }
    }
}

impl DeviceMemory for CudaMemory {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr, DeviceError> {
        if bytes == 0 {
            return Ok(0);
        }
        // SAFETY: a plain allocation in the bound context; the block is
        // zeroed before it is handed out, and freed on error.
        let p = self.call("cuMemAlloc", || unsafe { result::malloc_sync(bytes) })?;
        // SAFETY: `p` is a live block of `bytes` bytes just allocated.
        let zeroed = self.call("cuMemsetD8", || unsafe {
            result::memset_d8_sync(p, 0, bytes)
        });
        if let Err(e) = zeroed {
            self.free(p);
            return Err(e);
        }
        Ok(p)
    }

    fn free(&self, p: DevPtr) {
        if p == 0 {
            return;
        }
        // SAFETY: callers pass pointers from `alloc`, each once; an unknown
        // pointer makes the driver return an error, which is ignored.
        let _ = self.call("cuMemFree", || unsafe { result::free_sync(p) });
    }

    fn upload(&self, dst: DevPtr, src: &[u8]) -> Result<(), DeviceError> {
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: the driver checks that `dst..dst + len` is device memory
        // and reports an error otherwise; `src` is a valid host slice for
        // the duration of the (synchronous) copy.
        self.call("cuMemcpyHtoD", || unsafe {
            result::memcpy_htod_sync(dst, src)
        })
    }

    fn download(&self, src: DevPtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: as for upload; `dst` is an exclusive host slice written
        // by the synchronous copy before it returns.
        self.call("cuMemcpyDtoH", || unsafe {
            result::memcpy_dtoh_sync(dst, src)
        })
    }

    fn zero(&self, dst: DevPtr, bytes: usize) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the driver checks the range; bytes are plain data.
        self.call("cuMemsetD8", || unsafe {
            result::memset_d8_sync(dst, 0, bytes)
        })
    }

    fn synchronize(&self) -> Result<(), DeviceError> {
        self.call("cuCtxSynchronize", result::ctx::synchronize)
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<*mut u8, DeviceError> {
        if bytes == 0 {
            return Ok(std::ptr::null_mut());
        }
        // Portable: page-locked for every context, as OP2's cudaMallocHost.
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: a plain page-locked host allocation in the bound context.
        let p = self.call("cuMemHostAlloc", || unsafe {
            result::malloc_host(bytes, flags)
        })?;
        let p = p.cast::<u8>();
        // SAFETY: `p` is a fresh host block of `bytes` bytes.
        unsafe { std::ptr::write_bytes(p, 0, bytes) };
        Ok(p)
    }

    fn free_pinned(&self, p: *mut u8) {
        if p.is_null() {
            return;
        }
        // SAFETY: callers pass pointers from `alloc_pinned`, each once.
        let _ = self.call("cuMemFreeHost", || unsafe { result::free_host(p.cast()) });
    }

    fn has_gather(&self) -> bool {
        self.gather_function().is_ok()
    }

    fn gather_rows(&self, g: &Gather) -> Result<(), DeviceError> {
        let bytes = g.bytes();
        if bytes == 0 {
            return Ok(());
        }
        let f = self.gather_function().map_err(DeviceError)?;
        let ints = g.int_params()?;
        let grid = u32::try_from(bytes.div_ceil(GATHER_BLOCK))
            .map_err(|_| DeviceError(format!("row gather: {bytes} bytes")))?;
        let mut store = [[0u8; 8]; 7];
        for (s, p) in store.iter_mut().zip([g.src, g.rows, g.dst]) {
            *s = p.to_ne_bytes();
        }
        for (s, v) in store[3..].iter_mut().zip(ints) {
            s[..4].copy_from_slice(&v.to_ne_bytes());
        }
        let mut ptrs: Vec<*mut c_void> = store.iter_mut().map(|s| s.as_mut_ptr().cast()).collect();
        // SAFETY: `f` is the loaded gather (its module lives as long as
        // `self`); `ptrs` holds its seven parameters (three device
        // pointers, four ints), each pointing at 8 live bytes whose first 8
        // or 4 are the value; the caller's `Gather` contract keeps every
        // access inside the three allocations; the legacy default stream
        // orders it with the synchronous transfers around it.
        self.call("cuLaunchKernel (row gather)", || unsafe {
            result::launch_kernel(
                f,
                (grid, 1, 1),
                (GATHER_BLOCK as u32, 1, 1),
                0,
                std::ptr::null_mut(),
                &mut ptrs,
            )
        })
    }
}

/// Names of the CUDA runtime's most common error codes (cudaError_t).
pub fn error_name(code: i32) -> &'static str {
    match code {
        1 => "cudaErrorInvalidValue",
        2 => "cudaErrorMemoryAllocation",
        3 => "cudaErrorInitializationError",
        4 => "cudaErrorCudartUnloading",
        9 => "cudaErrorInvalidConfiguration",
        13 => "cudaErrorInvalidSymbol",
        35 => "cudaErrorInsufficientDriver",
        98 => "cudaErrorInvalidDeviceFunction",
        100 => "cudaErrorNoDevice",
        101 => "cudaErrorInvalidDevice",
        200 => "cudaErrorInvalidKernelImage",
        209 => "cudaErrorNoKernelImageForDevice",
        222 => "cudaErrorUnsupportedPtxVersion",
        700 => "cudaErrorIllegalAddress",
        701 => "cudaErrorLaunchOutOfResources",
        702 => "cudaErrorLaunchTimeout",
        719 => "cudaErrorLaunchFailure",
        _ => "see cuda_runtime_api.h",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_driver_is_a_clean_error() {
        if driver_present() {
            println!("note: libcuda is present here; the no-driver path is not exercised");
            return;
        }
        let e = open(0).err().expect("open must fail without libcuda");
        assert_eq!(e.reason(), "no CUDA driver (libcuda.so.1 not found)");
        assert_eq!(e.to_string(), NO_DRIVER);
        assert_eq!(device_count().unwrap_err().0, NO_DRIVER);
    }

    #[test]
    fn with_a_driver_open_reports_or_works() {
        if !driver_present() {
            return;
        }
        match open(0) {
            Err(e) => println!("no device: {e}"),
            Ok(m) => {
                let p = m.alloc(1000).unwrap();
                let data: Vec<u8> = (0..1000).map(|i| i as u8).collect();
                let mut back = vec![1u8; 1000];
                m.download(p, &mut back).unwrap();
                assert!(back.iter().all(|&b| b == 0));
                m.upload(p, &data).unwrap();
                m.download(p, &mut back).unwrap();
                assert_eq!(back, data);
                m.free(p);
                println!("{} sm_{:?}", m.name(), m.compute_capability());
            }
        }
    }
}
