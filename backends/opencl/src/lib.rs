//! OP2 on any OpenCL device: core's [`DeviceMemory`] on OpenCL buffers, and
//! programs built from generated source (op2-codegen), cached on disk, with
//! kernels launched by parameter. The ICD loader is opened at run time, so
//! nothing OpenCL is needed to build; without it, [`OpenCl::open`] says so
//! in one line.
//!
//! **Device pointers.** Core addresses device memory by [`DevPtr`] and
//! offsets into it (`ptr + bytes`); OpenCL has buffer handles, not
//! addresses. A `DevPtr` here is `id << 40 | offset`: the buffer's number
//! (from 1; 0 stays the null pointer) and a byte offset into it, so core's
//! arithmetic works unchanged for blocks under 1 TiB, every transfer is
//! checked against its buffer's size, and a kernel parameter takes the
//! buffer of a pointer with offset 0.
//!
//! **Pinned memory** is ordinary 64-byte-aligned host memory (OpenCL has
//! no portable page-locked allocation; transfers are blocking).

pub mod engine;
mod ffi;

use ffi::*;
use op2_codegen::cache::{Cache, Key};
use op2_core::device::memory::{DevPtr, DeviceError, DeviceMemory, Gather};
use std::alloc::{self, Layout};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

const SHIFT: u32 = 40;
const OFFSET_MASK: u64 = (1 << SHIFT) - 1;
const HOST_ALIGN: usize = 64;

/// Why no OpenCL device can be used, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoDevice(pub String);

impl std::fmt::Display for NoDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoDevice {}

fn check(what: &str, e: cl_int) -> Result<(), DeviceError> {
    if e == CL_SUCCESS {
        Ok(())
    } else {
        Err(DeviceError(format!("{what}: {}", err_name(e))))
    }
}

/// One OpenCL device with its context and (in-order) queue.
pub struct OpenCl {
    api: Api,
    device: cl_device_id,
    ctx: cl_context,
    queue: cl_command_queue,
    name: String,
    /// Device name, driver and platform versions: what decides a binary.
    identity: String,
    /// Buffers by number - 1, with their sizes.
    buffers: Mutex<Vec<Option<(usize, usize)>>>,
    /// Host blocks from `alloc_pinned`, by address, with their sizes.
    pinned: Mutex<BTreeMap<usize, usize>>,
    /// The row gather's program and kernel, built on first use (raw
    /// handles: a `Program` would hold this device alive), released in
    /// `Drop`. The mutex also serialises setting the kernel's parameters.
    gather: Mutex<Option<(usize, usize)>>,
}

// SAFETY: OpenCL 1.2 (appendix A.2) makes every call op2-rs uses
// thread-safe except clSetKernelArg on one kernel, which `Kernel` (not
// Sync) serialises; the raw handles are only passed to those calls, and
// the bookkeeping is behind mutexes.
unsafe impl Send for OpenCl {}
// SAFETY: as above.
unsafe impl Sync for OpenCl {}

/// What an ICD loader without platforms or devices means.
pub const NO_DEVICE: &str = "no OpenCL device: the OpenCL ICD loader found no platform with a \
     device (install one, e.g. Debian's pocl-opencl-icd; OCL_ICD_VENDORS names where ICDs are listed)";

/// Which device `OP2_RS_OPENCL_DEVICE` picks among `names` (an index, or
/// the first whose name contains the text, ignoring case).
pub fn pick_device(names: &[String], want: Option<&str>) -> Result<usize, String> {
    let Some(w) = want.map(str::trim).filter(|w| !w.is_empty()) else {
        return if names.is_empty() {
            Err(NO_DEVICE.into())
        } else {
            Ok(0)
        };
    };
    if let Ok(i) = w.parse::<usize>() {
        return if i < names.len() {
            Ok(i)
        } else {
            Err(format!(
                "OP2_RS_OPENCL_DEVICE={w}: there are {} OpenCL devices ({})",
                names.len(),
                names.join(", ")
            ))
        };
    }
    let lw = w.to_lowercase();
    names
        .iter()
        .position(|n| n.to_lowercase().contains(&lw))
        .ok_or_else(|| {
            format!(
                "OP2_RS_OPENCL_DEVICE={w}: no OpenCL device matches ({})",
                names.join(", ")
            )
        })
}

impl OpenCl {
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest buffer the device makes
    /// (0 when it does not say).
    fn max_alloc(&self) -> u64 {
        let mut v: u64 = 0;
        // SAFETY: the device of this context; the value is a cl_ulong,
        // written into `v` (8 bytes).
        let e = unsafe {
            (self.api.clGetDeviceInfo)(
                self.device,
                CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                std::mem::size_of::<u64>(),
                (&mut v as *mut u64).cast::<c_void>(),
                std::ptr::null_mut(),
            )
        };
        if e == CL_SUCCESS {
            v
        } else {
            0
        }
    }

    /// The device `OP2_RS_OPENCL_DEVICE` picks (default: the first); its
    /// queue times commands when `profiling` (for [`Marker`]s).
    pub fn open_from_env(profiling: bool) -> Result<Arc<OpenCl>, NoDevice> {
        let want = std::env::var("OP2_RS_OPENCL_DEVICE").ok();
        OpenCl::open_with(want.as_deref(), profiling)
    }

    /// Open the ICD loader and the device `want` names (see [`pick_device`]).
    pub fn open(want: Option<&str>) -> Result<Arc<OpenCl>, NoDevice> {
        OpenCl::open_with(want, false)
    }

    /// [`OpenCl::open`], with a queue that times commands when `profiling`.
    pub fn open_with(want: Option<&str>, profiling: bool) -> Result<Arc<OpenCl>, NoDevice> {
        // The ICD loader's first enumeration is not safe against a second
        // one running at the same time (seen with ocl-icd 2.3 + PoCL: one
        // of two concurrent opens finds no platform): one open at a time.
        static OPENING: Mutex<()> = Mutex::new(());
        let _one = OPENING.lock().unwrap_or_else(|e| e.into_inner());
        let api = Api::load().map_err(NoDevice)?;
        let devices = all_devices(&api);
        let names: Vec<String> = devices.iter().map(|d| d.2.clone()).collect();
        let i = pick_device(&names, want).map_err(NoDevice)?;
        let (platform, device, name) = devices[i].clone();
        let identity = format!(
            "{name} | {} | {} | {}",
            device_info(&api, device, CL_DEVICE_VERSION),
            device_info(&api, device, CL_DRIVER_VERSION),
            platform_info(&api, platform, CL_PLATFORM_VERSION)
        );
        let mut e = 0;
        // SAFETY: one valid device id; no properties, no callback.
        let ctx = unsafe {
            (api.clCreateContext)(
                std::ptr::null(),
                1,
                &device,
                std::ptr::null(),
                std::ptr::null_mut(),
                &mut e,
            )
        };
        if e != CL_SUCCESS {
            return Err(NoDevice(format!(
                "OpenCL device {name}: clCreateContext: {}",
                err_name(e)
            )));
        }
        let props = if profiling {
            CL_QUEUE_PROFILING_ENABLE
        } else {
            0
        };
        // SAFETY: a live context and one of its devices; in-order queue.
        let queue = unsafe { (api.clCreateCommandQueue)(ctx, device, props, &mut e) };
        if e != CL_SUCCESS {
            // SAFETY: the context made above, released once.
            unsafe { (api.clReleaseContext)(ctx) };
            return Err(NoDevice(format!(
                "OpenCL device {name}: clCreateCommandQueue: {}",
                err_name(e)
            )));
        }
        Ok(Arc::new(OpenCl {
            api,
            device,
            ctx,
            queue,
            name,
            identity,
            buffers: Mutex::new(Vec::new()),
            pinned: Mutex::new(BTreeMap::new()),
            gather: Mutex::new(None),
        }))
    }

    /// Device name, device version, driver version, platform version.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The buffer and offset of a pointer, with the bytes left in it.
    fn locate(&self, p: DevPtr, bytes: usize, what: &str) -> Result<(cl_mem, usize), DeviceError> {
        let id = (p >> SHIFT) as usize;
        let off = (p & OFFSET_MASK) as usize;
        let b = self
            .buffers
            .lock()
            .map_err(|_| DeviceError("buffer table poisoned".into()))?;
        match id.checked_sub(1).and_then(|i| b.get(i).copied().flatten()) {
            Some((mem, size)) if off.checked_add(bytes).is_some_and(|end| end <= size) => {
                Ok((mem as cl_mem, off))
            }
            Some((_, size)) => Err(DeviceError(format!(
                "{what}: {bytes} bytes at offset {off} of a {size}-byte OpenCL buffer"
            ))),
            None => Err(DeviceError(format!(
                "{what}: {p:#x} is not an OpenCL buffer of this device"
            ))),
        }
    }

    /// The buffer a kernel parameter takes (offset 0; null for 0).
    pub fn mem_of(&self, p: DevPtr) -> Result<cl_mem, DeviceError> {
        if p == 0 {
            return Ok(std::ptr::null_mut());
        }
        if p & OFFSET_MASK != 0 {
            return Err(DeviceError(format!(
                "kernel parameter {p:#x}: not the start of a buffer"
            )));
        }
        self.locate(p, 0, "kernel parameter").map(|(m, _)| m)
    }

    /// Build `text` (or load its binary from `cache`), options as given.
    pub fn build(
        self: &Arc<Self>,
        text: &str,
        options: &str,
        cache: Option<&Cache>,
    ) -> Result<Program, DeviceError> {
        let key = Key {
            text,
            device: &self.identity,
            driver: "",
            options,
        };
        if let Some(bin) = cache.and_then(|c| c.get(&key)) {
            if let Ok(p) = self.from_binary(&bin, options) {
                return Ok(p);
            }
        }
        let p = self.from_source(text, options)?;
        if let (Some(c), Ok(bin)) = (cache, p.binary()) {
            // a cache that cannot be written only costs the next build
            let _ = c.put(&key, &bin);
        }
        Ok(p)
    }

    fn from_source(self: &Arc<Self>, text: &str, options: &str) -> Result<Program, DeviceError> {
        let mut e = 0;
        let ptr = text.as_ptr();
        let len = text.len();
        // SAFETY: one string of `len` bytes, alive during the call.
        let prog = unsafe { (self.api.clCreateProgramWithSource)(self.ctx, 1, &ptr, &len, &mut e) };
        check("clCreateProgramWithSource", e)?;
        let p = Program {
            cl: self.clone(),
            prog,
            from_cache: false,
        };
        p.finish_build(options)?;
        Ok(p)
    }

    fn from_binary(self: &Arc<Self>, bin: &[u8], options: &str) -> Result<Program, DeviceError> {
        let (mut e, mut status) = (0, 0);
        let ptr = bin.as_ptr();
        let len = bin.len();
        // SAFETY: one device, one binary of `len` bytes alive during the call.
        let prog = unsafe {
            (self.api.clCreateProgramWithBinary)(
                self.ctx,
                1,
                &self.device,
                &len,
                &ptr,
                &mut status,
                &mut e,
            )
        };
        check("clCreateProgramWithBinary", e)?;
        let p = Program {
            cl: self.clone(),
            prog,
            from_cache: true,
        };
        check("clCreateProgramWithBinary", status)?;
        p.finish_build(options)?;
        Ok(p)
    }
}

/// Work-items per work-group of the gather.
const GATHER_GROUP: usize = 64;

impl OpenCl {
    /// The gather's kernel, built the first time (under `slot`'s lock).
    fn gather_kernel(&self, slot: &mut Option<(usize, usize)>) -> Result<cl_kernel, DeviceError> {
        if let Some((_, k)) = *slot {
            return Ok(k as cl_kernel);
        }
        let text = op2_codegen::gather_text(op2_codegen::Dialect::OpenCl);
        let (mut e, ptr, len) = (0, text.as_ptr(), text.len());
        // SAFETY: one string of `len` bytes, alive during the call.
        let prog = unsafe { (self.api.clCreateProgramWithSource)(self.ctx, 1, &ptr, &len, &mut e) };
        check("clCreateProgramWithSource (row gather)", e)?;
        let opts = format!("{}\0", engine::BUILD_OPTIONS);
        // SAFETY: a live program, one device, a NUL-terminated option string.
        let b = unsafe {
            (self.api.clBuildProgram)(
                prog,
                1,
                &self.device,
                opts.as_ptr(),
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        let name = format!("{}\0", op2_codegen::GATHER_ENTRY);
        let k = if b == CL_SUCCESS {
            // SAFETY: a built program and a NUL-terminated name.
            unsafe { (self.api.clCreateKernel)(prog, name.as_ptr(), &mut e) }
        } else {
            e = b;
            std::ptr::null_mut()
        };
        if e != CL_SUCCESS {
            // SAFETY: the program made above, released once.
            unsafe { (self.api.clReleaseProgram)(prog) };
            return Err(DeviceError(format!(
                "the row gather kernel: {}",
                err_name(e)
            )));
        }
        *slot = Some((prog as usize, k as usize));
        Ok(k)
    }
}

impl Drop for OpenCl {
    fn drop(&mut self) {
        if let Some((prog, k)) = self.gather.get_mut().ok().and_then(Option::take) {
            // SAFETY: the gather's kernel and program, made by
            // `gather_kernel` and released once.
            unsafe {
                (self.api.clReleaseKernel)(k as cl_kernel);
                (self.api.clReleaseProgram)(prog as cl_program);
            }
        }
        let bufs = std::mem::take(self.buffers.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (mem, _) in bufs.into_iter().flatten() {
            // SAFETY: a buffer of this context not yet released.
            unsafe { (self.api.clReleaseMemObject)(mem as cl_mem) };
        }
        for (addr, size) in std::mem::take(self.pinned.get_mut().unwrap_or_else(|e| e.into_inner()))
        {
            if let Ok(l) = Layout::from_size_align(size, HOST_ALIGN) {
                // SAFETY: allocated by `alloc_pinned` with this layout.
                unsafe { alloc::dealloc(addr as *mut u8, l) };
            }
        }
        // SAFETY: the queue and context made in `open`, released once.
        unsafe {
            (self.api.clReleaseCommandQueue)(self.queue);
            (self.api.clReleaseContext)(self.ctx);
        }
    }
}

fn info_string(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> String {
    let mut n = 0usize;
    if f(0, std::ptr::null_mut(), &mut n) != CL_SUCCESS || n == 0 {
        return String::new();
    }
    let mut v = vec![0u8; n];
    if f(n, v.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) != CL_SUCCESS {
        return String::new();
    }
    String::from_utf8_lossy(&v)
        .trim_end_matches('\0')
        .trim()
        .to_string()
}

fn device_info(api: &Api, d: cl_device_id, what: cl_uint) -> String {
    // SAFETY: a device id from clGetDeviceIDs; the buffer is `n` bytes.
    info_string(|n, p, r| unsafe { (api.clGetDeviceInfo)(d, what, n, p, r) })
}

fn platform_info(api: &Api, pl: cl_platform_id, what: cl_uint) -> String {
    // SAFETY: a platform id from clGetPlatformIDs; the buffer is `n` bytes.
    info_string(|n, p, r| unsafe { (api.clGetPlatformInfo)(pl, what, n, p, r) })
}

/// Every device of every platform: (platform, device, name).
fn all_devices(api: &Api) -> Vec<(cl_platform_id, cl_device_id, String)> {
    let mut np = 0;
    // SAFETY: asks for the count only.
    if unsafe { (api.clGetPlatformIDs)(0, std::ptr::null_mut(), &mut np) } != CL_SUCCESS || np == 0
    {
        return Vec::new();
    }
    let mut ps = vec![std::ptr::null_mut(); np as usize];
    // SAFETY: room for `np` ids.
    if unsafe { (api.clGetPlatformIDs)(np, ps.as_mut_ptr(), std::ptr::null_mut()) } != CL_SUCCESS {
        return Vec::new();
    }
    let mut out = Vec::new();
    for p in ps {
        let mut nd = 0;
        // SAFETY: a platform id from above; count only.
        if unsafe { (api.clGetDeviceIDs)(p, CL_DEVICE_TYPE_ALL, 0, std::ptr::null_mut(), &mut nd) }
            != CL_SUCCESS
        {
            continue;
        }
        let mut ds = vec![std::ptr::null_mut(); nd as usize];
        // SAFETY: room for `nd` ids.
        if unsafe {
            (api.clGetDeviceIDs)(
                p,
                CL_DEVICE_TYPE_ALL,
                nd,
                ds.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        } != CL_SUCCESS
        {
            continue;
        }
        for d in ds {
            out.push((p, d, device_info(api, d, CL_DEVICE_NAME)));
        }
    }
    out
}

impl DeviceMemory for OpenCl {
    fn name(&self) -> String {
        format!("OpenCL {}", self.name)
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr, DeviceError> {
        if bytes == 0 {
            return Ok(0);
        }
        if bytes as u64 > OFFSET_MASK {
            return Err(DeviceError(format!(
                "a {bytes}-byte OpenCL buffer is over op2-rs's 1 TiB limit"
            )));
        }
        let mut e = 0;
        // SAFETY: a live context; no host pointer.
        let mem = unsafe {
            (self.api.clCreateBuffer)(
                self.ctx,
                CL_MEM_READ_WRITE,
                bytes,
                std::ptr::null_mut(),
                &mut e,
            )
        };
        if e == CL_INVALID_BUFFER_SIZE {
            return Err(DeviceError(format!(
                "clCreateBuffer of {bytes} bytes: CL_INVALID_BUFFER_SIZE: the device's largest \
                 buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is {} bytes",
                self.max_alloc()
            )));
        }
        check(&format!("clCreateBuffer of {bytes} bytes"), e)?;
        let zero = 0u8;
        // SAFETY: the new buffer, `bytes` long; a one-byte pattern.
        let f = unsafe {
            (self.api.clEnqueueFillBuffer)(
                self.queue,
                mem,
                &zero as *const u8 as *const c_void,
                1,
                0,
                bytes,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        if f != CL_SUCCESS {
            // SAFETY: the buffer made above, released once.
            unsafe { (self.api.clReleaseMemObject)(mem) };
            return Err(DeviceError(format!("clEnqueueFillBuffer: {}", err_name(f))));
        }
        let mut b = self
            .buffers
            .lock()
            .map_err(|_| DeviceError("buffer table poisoned".into()))?;
        b.push(Some((mem as usize, bytes)));
        Ok((b.len() as u64) << SHIFT)
    }

    fn free(&self, p: DevPtr) {
        if p == 0 || p & OFFSET_MASK != 0 {
            return;
        }
        let Ok(mut b) = self.buffers.lock() else {
            return;
        };
        let i = (p >> SHIFT) as usize;
        if let Some((mem, _)) = i
            .checked_sub(1)
            .and_then(|i| b.get_mut(i))
            .and_then(Option::take)
        {
            // SAFETY: a buffer of this context, taken out of the table so
            // it is released once.
            unsafe { (self.api.clReleaseMemObject)(mem as cl_mem) };
        }
    }

    fn upload(&self, dst: DevPtr, src: &[u8]) -> Result<(), DeviceError> {
        if src.is_empty() {
            return Ok(());
        }
        let (mem, off) = self.locate(dst, src.len(), "upload")?;
        // SAFETY: `off + src.len()` lies inside the buffer (checked by
        // `locate`); a blocking write, so `src` outlives it.
        let e = unsafe {
            (self.api.clEnqueueWriteBuffer)(
                self.queue,
                mem,
                CL_TRUE,
                off,
                src.len(),
                src.as_ptr() as *const c_void,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueWriteBuffer", e)
    }

    fn download(&self, src: DevPtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        if dst.is_empty() {
            return Ok(());
        }
        let (mem, off) = self.locate(src, dst.len(), "download")?;
        // SAFETY: the range lies inside the buffer (checked); a blocking
        // read into `dst`, which is `dst.len()` bytes.
        let e = unsafe {
            (self.api.clEnqueueReadBuffer)(
                self.queue,
                mem,
                CL_TRUE,
                off,
                dst.len(),
                dst.as_mut_ptr() as *mut c_void,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueReadBuffer", e)
    }

    fn zero(&self, dst: DevPtr, bytes: usize) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        let (mem, off) = self.locate(dst, bytes, "zero")?;
        let zero = 0u8;
        // SAFETY: the range lies inside the buffer; a one-byte pattern.
        let e = unsafe {
            (self.api.clEnqueueFillBuffer)(
                self.queue,
                mem,
                &zero as *const u8 as *const c_void,
                1,
                off,
                bytes,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("clEnqueueFillBuffer", e)?;
        self.synchronize()
    }

    fn synchronize(&self) -> Result<(), DeviceError> {
        // SAFETY: the live queue.
        check("clFinish", unsafe { (self.api.clFinish)(self.queue) })
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<*mut u8, DeviceError> {
        if bytes == 0 {
            return Ok(std::ptr::null_mut());
        }
        let l =
            Layout::from_size_align(bytes, HOST_ALIGN).map_err(|e| DeviceError(e.to_string()))?;
        // SAFETY: a non-zero size.
        let p = unsafe { alloc::alloc_zeroed(l) };
        if p.is_null() {
            return Err(DeviceError(format!("no host memory for {bytes} bytes")));
        }
        self.pinned
            .lock()
            .map_err(|_| DeviceError("pinned table poisoned".into()))?
            .insert(p as usize, bytes);
        Ok(p)
    }

    fn free_pinned(&self, p: *mut u8) {
        let Ok(mut t) = self.pinned.lock() else {
            return;
        };
        if let Some((addr, size)) = t.remove_entry(&(p as usize)) {
            if let Ok(l) = Layout::from_size_align(size, HOST_ALIGN) {
                // SAFETY: the block `alloc_pinned` recorded at `addr` with
                // this layout, removed from the table, so freed once.
                unsafe { alloc::dealloc(addr as *mut u8, l) };
            }
        }
    }

    fn has_gather(&self) -> bool {
        true
    }

    fn gather_rows(&self, g: &Gather) -> Result<(), DeviceError> {
        let bytes = g.bytes();
        if bytes == 0 {
            return Ok(());
        }
        let ints = g.int_params()?;
        // every buffer whole and long enough (the kernel trusts them)
        self.locate(g.src, g.layout.device_bytes(), "row gather (dat)")?;
        self.locate(g.rows, g.n.saturating_mul(4), "row gather (rows)")?;
        self.locate(g.dst, bytes, "row gather (packed rows)")?;
        let mems = [
            self.mem_of(g.src)?,
            self.mem_of(g.rows)?,
            self.mem_of(g.dst)?,
        ];
        let mut slot = self
            .gather
            .lock()
            .map_err(|_| DeviceError("row gather lock poisoned".into()))?;
        let k = self.gather_kernel(&mut slot)?;
        let set = |i: usize, size: usize, v: *const c_void| {
            // SAFETY: `v` points at `size` readable bytes alive during the
            // call; the kernel is live and its parameters are set under
            // the gather lock, held until the launch is queued.
            check("row gather: parameter", unsafe {
                (self.api.clSetKernelArg)(k, i as cl_uint, size, v)
            })
        };
        for (i, m) in mems.iter().enumerate() {
            set(
                i,
                std::mem::size_of::<cl_mem>(),
                m as *const cl_mem as *const c_void,
            )?;
        }
        for (i, v) in ints.iter().enumerate() {
            set(3 + i, 4, v as *const i32 as *const c_void)?;
        }
        let global = bytes.div_ceil(GATHER_GROUP) * GATHER_GROUP;
        // SAFETY: a live kernel with its seven parameters set above; the
        // buffers hold what it reads and writes (checked by `locate`);
        // 1-D ranges. The in-order queue orders it before the download.
        let e = unsafe {
            (self.api.clEnqueueNDRangeKernel)(
                self.queue,
                k,
                1,
                std::ptr::null(),
                &global,
                &GATHER_GROUP,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        check("launch of the row gather", e)
    }
}

/// A built program.
pub struct Program {
    cl: Arc<OpenCl>,
    prog: cl_program,
    /// Loaded from the disk cache (not compiled from source).
    pub from_cache: bool,
}

// SAFETY: program objects are thread-safe in OpenCL 1.2; only released in Drop.
unsafe impl Send for Program {}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Program {{ from_cache: {} }}", self.from_cache)
    }
}

impl Program {
    fn finish_build(&self, options: &str) -> Result<(), DeviceError> {
        let opts = format!("{options}\0");
        // SAFETY: a live program, one device, a NUL-terminated option string.
        let e = unsafe {
            (self.cl.api.clBuildProgram)(
                self.prog,
                1,
                &self.cl.device,
                opts.as_ptr(),
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        if e != CL_SUCCESS {
            return Err(DeviceError(format!(
                "clBuildProgram: {}\n{}",
                err_name(e),
                self.log()
            )));
        }
        Ok(())
    }

    /// The build log (warnings, errors).
    pub fn log(&self) -> String {
        // SAFETY: a live program and its device; the buffer is `n` bytes.
        info_string(|n, p, r| unsafe {
            (self.cl.api.clGetProgramBuildInfo)(
                self.prog,
                self.cl.device,
                CL_PROGRAM_BUILD_LOG,
                n,
                p,
                r,
            )
        })
    }

    /// The device binary (for the cache).
    pub fn binary(&self) -> Result<Vec<u8>, DeviceError> {
        let mut size = 0usize;
        // SAFETY: one device: one size_t.
        let e = unsafe {
            (self.cl.api.clGetProgramInfo)(
                self.prog,
                CL_PROGRAM_BINARY_SIZES,
                std::mem::size_of::<usize>(),
                &mut size as *mut usize as *mut c_void,
                std::ptr::null_mut(),
            )
        };
        check("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", e)?;
        let mut bin = vec![0u8; size];
        let mut ptr = bin.as_mut_ptr();
        // SAFETY: one device: one pointer to `size` bytes.
        let e = unsafe {
            (self.cl.api.clGetProgramInfo)(
                self.prog,
                CL_PROGRAM_BINARIES,
                std::mem::size_of::<*mut u8>(),
                &mut ptr as *mut *mut u8 as *mut c_void,
                std::ptr::null_mut(),
            )
        };
        check("clGetProgramInfo(CL_PROGRAM_BINARIES)", e)?;
        Ok(bin)
    }

    /// The kernel `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel, DeviceError> {
        let n = format!("{name}\0");
        let mut e = 0;
        // SAFETY: a built program and a NUL-terminated name.
        let k = unsafe { (self.cl.api.clCreateKernel)(self.prog, n.as_ptr(), &mut e) };
        check(&format!("clCreateKernel({name})"), e)?;
        Ok(Kernel {
            cl: self.cl.clone(),
            k,
            name: name.to_string(),
        })
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program made by this value, released once.
        unsafe { (self.cl.api.clReleaseProgram)(self.prog) };
    }
}

/// A kernel with its parameters being set (not shared between threads:
/// clSetKernelArg is not thread-safe on one kernel).
pub struct Kernel {
    cl: Arc<OpenCl>,
    k: cl_kernel,
    name: String,
}

// SAFETY: a kernel may move between threads; `&mut self` on every setter
// keeps its use to one thread at a time.
unsafe impl Send for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel {{ {} }}", self.name)
    }
}

impl Kernel {
    fn set_raw(&mut self, i: usize, size: usize, value: *const c_void) -> Result<(), DeviceError> {
        // SAFETY: `value` points to `size` readable bytes (or is null for a
        // local-memory parameter); the kernel is live.
        let e = unsafe { (self.cl.api.clSetKernelArg)(self.k, i as cl_uint, size, value) };
        check(&format!("{}: parameter {i}", self.name), e)
    }

    /// A buffer parameter: the buffer `p` starts (0: null).
    pub fn set_ptr(&mut self, i: usize, p: DevPtr) -> Result<(), DeviceError> {
        let mem = self.cl.mem_of(p)?;
        self.set_raw(
            i,
            std::mem::size_of::<cl_mem>(),
            &mem as *const cl_mem as *const c_void,
        )
    }

    /// A parameter passed by value: its bytes.
    pub fn set_bytes(&mut self, i: usize, v: &[u8]) -> Result<(), DeviceError> {
        self.set_raw(i, v.len(), v.as_ptr().cast::<c_void>())
    }

    /// An `int` parameter.
    pub fn set_i32(&mut self, i: usize, v: i32) -> Result<(), DeviceError> {
        self.set_raw(i, 4, &v as *const i32 as *const c_void)
    }

    /// A `long` parameter (OpenCL C's `long` is 64 bits on every device).
    pub fn set_i64(&mut self, i: usize, v: i64) -> Result<(), DeviceError> {
        self.set_raw(i, 8, &v as *const i64 as *const c_void)
    }

    /// A `__local` parameter of `bytes` bytes.
    pub fn set_local(&mut self, i: usize, bytes: usize) -> Result<(), DeviceError> {
        self.set_raw(i, bytes.max(8), std::ptr::null())
    }

    /// Queue `groups` work-groups of `group_size` work-items (the caller
    /// waits with `synchronize` when it must).
    pub fn launch(&mut self, groups: usize, group_size: usize) -> Result<(), DeviceError> {
        if groups == 0 {
            return Ok(());
        }
        let global = groups * group_size;
        // SAFETY: a live kernel with every parameter set by the caller (the
        // launch fails with CL_INVALID_KERNEL_ARGS otherwise), 1-D ranges.
        let e = unsafe {
            (self.cl.api.clEnqueueNDRangeKernel)(
                self.cl.queue,
                self.k,
                1,
                std::ptr::null(),
                &global,
                &group_size,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        // No wait here: the queue is in order, every transfer to or from
        // the host blocks (so it waits for the launches before it), and
        // OpenCL defers releasing a buffer until the commands using it end.
        check(&format!("launch of {}", self.name), e)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: the kernel made by this value, released once.
        unsafe { (self.cl.api.clReleaseKernel)(self.k) };
    }
}

/// A marker in the device's queue (an event; the queue must time commands,
/// [`OpenCl::open_with`]), for timing loops.
pub struct Marker {
    cl: Arc<OpenCl>,
    /// The last marker queued (null before the first).
    ev: cl_event,
}

// SAFETY: OpenCL events may be used from any thread (OpenCL 1.2, A.2);
// `&mut self` on `record` keeps replacing the event to one thread.
unsafe impl Send for Marker {}

impl Marker {
    /// A marker not queued yet.
    pub fn new(cl: &Arc<OpenCl>) -> Marker {
        Marker {
            cl: cl.clone(),
            ev: std::ptr::null_mut(),
        }
    }

    fn release(&mut self) {
        if !self.ev.is_null() {
            // SAFETY: the event the queue gave this marker, released once.
            unsafe { (self.cl.api.clReleaseEvent)(self.ev) };
            self.ev = std::ptr::null_mut();
        }
    }

    /// Queue the marker after everything queued so far (returns at once).
    pub fn record(&mut self) -> Result<(), DeviceError> {
        self.release();
        let mut ev: cl_event = std::ptr::null_mut();
        // SAFETY: the live queue; no wait list; the new event is written
        // into `ev` and owned by this marker from then on.
        let e = unsafe {
            (self.cl.api.clEnqueueMarkerWithWaitList)(self.cl.queue, 0, std::ptr::null(), &mut ev)
        };
        check("clEnqueueMarkerWithWaitList", e)?;
        self.ev = ev;
        Ok(())
    }

    /// The device's time, in nanoseconds, when it passed the marker (waits
    /// until it has).
    pub fn passed_ns(&self) -> Result<u64, DeviceError> {
        if self.ev.is_null() {
            return Err(DeviceError("a marker read before it was queued".into()));
        }
        // SAFETY: one live event.
        check("clWaitForEvents", unsafe {
            (self.cl.api.clWaitForEvents)(1, &self.ev)
        })?;
        let mut t: u64 = 0;
        // SAFETY: a live, complete event; the value is a cl_ulong written
        // into `t` (8 bytes).
        let e = unsafe {
            (self.cl.api.clGetEventProfilingInfo)(
                self.ev,
                CL_PROFILING_COMMAND_END,
                std::mem::size_of::<u64>(),
                (&mut t as *mut u64).cast::<c_void>(),
                std::ptr::null_mut(),
            )
        };
        check("clGetEventProfilingInfo", e)?;
        Ok(t)
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_picked_by_index_or_name() {
        let names = vec!["pthread-haswell".to_string(), "NVIDIA H100".to_string()];
        assert_eq!(pick_device(&names, None), Ok(0));
        assert_eq!(pick_device(&names, Some("1")), Ok(1));
        assert_eq!(pick_device(&names, Some("h100")), Ok(1));
        assert_eq!(
            pick_device(&names, Some("7")).unwrap_err(),
            "OP2_RS_OPENCL_DEVICE=7: there are 2 OpenCL devices (pthread-haswell, NVIDIA H100)"
        );
        assert!(pick_device(&names, Some("amd"))
            .unwrap_err()
            .contains("no OpenCL device matches"));
        assert_eq!(pick_device(&[], None).unwrap_err(), NO_DEVICE);
    }
}
