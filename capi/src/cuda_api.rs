//! OP2's CUDA runtime interface (`op_cuda_rt_support.h`) as code generated
//! by OP2's translator for the `cuda` target calls it: device initialisation,
//! explicit transfers, the reduction and constant scratch buffers, error
//! checks. Every library exports it; without a device (the CPU libraries)
//! the transfers do nothing, as in OP2 when `OP_hybrid_gpu` is 0.

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::globals::{OP_consts_d, OP_consts_h, OP_reduct_d, OP_reduct_h};
use crate::state::{name_or, with_state};
use op2_core::device::DeviceMemory;
use op2_core::{DatId, Op2Error, Result};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::addr_of_mut;
use std::sync::Arc;

/// The stream OP2's MPI x CUDA code overlaps halo packing on (`cudaStream_t`;
/// NULL: the default stream, which this library's copies also use).
#[no_mangle]
pub static mut op2_grp_secondary: *mut c_void = std::ptr::null_mut();

/// The device's memory, in a library that has one.
fn memory() -> Result<Option<Arc<dyn DeviceMemory>>> {
    with_state(|st| Ok(st.rt.device_memory().cloned()))
}

/// `cutilSafeCall(x)`: stop with the file, line and error when a CUDA
/// runtime call in generated code failed.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __cudaSafeCall(err: c_int, file: *const c_char, line: c_int) {
    c_api!("cutilSafeCall", {
        if err == 0 {
            return Ok(());
        }
        // SAFETY: the caller's contract.
        let at = format!("{}:{line}", unsafe { name_or(file, "?") });
        Err(Op2Error::new(
            "",
            at,
            format!(
                "CUDA runtime error {err} ({})",
                op2_backend_cuda::cuda::error_name(err)
            ),
        ))
    })
}

/// `cutilCheckMsg(msg)`: wait for the device and stop with `msg` if a
/// kernel failed.
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __cutilCheckMsg(msg: *const c_char, file: *const c_char, line: c_int) {
    c_api!("cutilCheckMsg", {
        // SAFETY: the caller's contract.
        let (m, at) = unsafe { (name_or(msg, "?"), format!("{}:{line}", name_or(file, "?"))) };
        match memory()? {
            Some(mem) => mem
                .synchronize()
                .map_err(|e| Op2Error::new("", at, format!("{m}: {e}"))),
            None => Ok(()),
        }
    })
}

/// Wait for the device (OP2's `deviceSync`).
#[no_mangle]
pub extern "C" fn deviceSync() {
    c_api!(
        "deviceSync",
        match memory()? {
            Some(mem) => mem
                .synchronize()
                .map_err(|e| Op2Error::new("", "", e.to_string())),
            None => Ok(()),
        }
    )
}

/// Allocate `size` bytes of device memory: 0 (cudaSuccess) or 2
/// (cudaErrorMemoryAllocation); 3 when there is no device.
///
/// # Safety
/// `ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn op_deviceMalloc(ptr: *mut *mut c_void, size: usize) -> c_int {
    c_api!("op_deviceMalloc", {
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { ptr.as_mut() }) else {
            return Ok(1);
        };
        Ok(match memory()? {
            Some(mem) => match mem.alloc(size) {
                Ok(p) => {
                    *out = p as *mut c_void;
                    0
                }
                Err(_) => 2,
            },
            None => 3,
        })
    })
}

/// Zero `size` bytes of device memory (0 on success).
#[no_mangle]
pub extern "C" fn op_deviceZero(ptr: *mut c_void, size: usize) -> c_int {
    c_api!(
        "op_deviceZero",
        Ok(match memory()? {
            Some(mem) => c_int::from(mem.zero(ptr as u64, size).is_err()),
            None => 3,
        })
    )
}

/// Move a malloc'ed host array to the device: `*map` is freed and replaced
/// by the device copy (nothing happens without a device or for size 0).
///
/// # Safety
/// `map` is NULL or points to NULL or a malloc'ed block of `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn op_mvHostToDevice(map: *mut *mut c_void, size: usize) {
    c_api!("op_mvHostToDevice", {
        // SAFETY: the caller's contract.
        let Some(slot) = (unsafe { map.as_mut() }).filter(|m| !m.is_null() && size > 0) else {
            return Ok(());
        };
        let Some(mem) = memory()? else {
            return Ok(());
        };
        let err = |e: op2_core::device::DeviceError| Op2Error::new("", "", e.to_string());
        // SAFETY: the caller's contract: `size` readable bytes.
        let host = unsafe { std::slice::from_raw_parts(*slot as *const u8, size) };
        let p = mem.alloc(size).map_err(err)?;
        mem.upload(p, host).map_err(err)?;
        // SAFETY: the caller's contract: a malloc'ed block, no longer used.
        unsafe { libc::free(*slot) };
        *slot = p as *mut c_void;
        Ok(())
    })
}

/// Copy `size` bytes of `*data_h` into a new device block `*data_d` (an
/// old block there is freed first).
///
/// # Safety
/// The pointers are NULL or valid; `*data_h` holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn op_cpHostToDevice(
    data_d: *mut *mut c_void,
    data_h: *mut *mut c_void,
    size: usize,
) {
    c_api!("op_cpHostToDevice", {
        // SAFETY: the caller's contract.
        let (Some(d), Some(h)) = (unsafe { data_d.as_mut() }, unsafe { data_h.as_ref() }) else {
            return Ok(());
        };
        let Some(mem) = memory()? else {
            return Ok(());
        };
        let err = |e: op2_core::device::DeviceError| Op2Error::new("", "", e.to_string());
        if !d.is_null() {
            mem.free(*d as u64);
        }
        let p = mem.alloc(size).map_err(err)?;
        if size > 0 && !h.is_null() {
            // SAFETY: the caller's contract.
            mem.upload(p, unsafe {
                std::slice::from_raw_parts(*h as *const u8, size)
            })
            .map_err(err)?;
        }
        *d = p as *mut c_void;
        Ok(())
    })
}

/// Bring a dat's host copy up to date (if the device copy is newer).
#[no_mangle]
pub extern "C" fn op_cuda_get_data(dat: op_dat) {
    c_api!(
        "op_cuda_get_data",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            st.rt.host_fresh(&mut st.c, "op_cuda_get_data", id)
        })
    )
}

fn transfer(call: &'static str, dat: op_dat, up: bool) -> Result<()> {
    with_state(|st| {
        let id: DatId = st.h.dat_id(dat)?;
        if up {
            st.rt.upload(&mut st.c, call, id)
        } else {
            st.rt.download(&mut st.c, call, id)
        }
    })
}

/// Free the device copies (op_exit does this too).
#[no_mangle]
pub extern "C" fn op_cuda_exit() {
    c_api!(
        "op_cuda_exit",
        with_state(|st| {
            st.rt.release_device();
            Ok(())
        })
    )
}

/// Grow a scratch buffer (`reduct`: OP2's reduction buffer, else its
/// constant buffer) to at least `bytes` and publish its addresses.
fn realloc_scratch(reduct: bool, bytes: c_int) -> Result<()> {
    with_state(|st| {
        let Some(dev) = st.rt.device() else {
            return Ok(());
        };
        let buf = dev.scratch(reduct);
        buf.reserve(bytes.max(0) as usize).map_err(dev_err)?;
        let (h, d) = (buf.host_ptr() as *mut c_char, buf.dev_ptr() as *mut c_char);
        let (gh, gd) = match reduct {
            true => (addr_of_mut!(OP_reduct_h), addr_of_mut!(OP_reduct_d)),
            false => (addr_of_mut!(OP_consts_h), addr_of_mut!(OP_consts_d)),
        };
        // SAFETY: plain pointer globals, written on the API thread under the lock.
        unsafe {
            std::ptr::write_volatile(gh, h);
            std::ptr::write_volatile(gd, d);
        }
        Ok(())
    })
}

/// Copy the first `bytes` of a scratch buffer between host and device.
fn move_scratch(reduct: bool, bytes: c_int, to_device: bool) -> Result<()> {
    with_state(|st| {
        let Some(dev) = st.rt.device() else {
            return Ok(());
        };
        let (buf, n) = (dev.scratch(reduct), bytes.max(0) as usize);
        match to_device {
            true => buf.to_device(n),
            false => buf.to_host(n),
        }
        .map_err(dev_err)
    })
}

fn dev_err(e: op2_core::device::DeviceError) -> Op2Error {
    Op2Error::new("", "", e.to_string())
}

exports! {
    /// Device initialisation: done by op_init in the CUDA libraries (which
    /// stop there when no device can be used), so there is nothing left to do.
    cutilDeviceInit(_argc: c_int, _argv: *mut *mut c_char) = "cutilDeviceInit" => Ok(());
    cutilDeviceInit_mpi(_argc: c_int, _argv: *mut *mut c_char, _rank: c_int) = "cutilDeviceInit_mpi" => Ok(());
    /// Copy a dat's host copy to the device unconditionally (OP2's op_upload_dat).
    op_upload_dat(dat: op_dat) = "op_upload_dat" => transfer("op_upload_dat", dat, true);
    /// Copy a dat's device copy to the host unconditionally (OP2's op_download_dat).
    op_download_dat(dat: op_dat) = "op_download_dat" => transfer("op_download_dat", dat, false);
    /// Upload every dat whose host copy is newer.
    op_upload_all() = "op_upload_all" => with_state(|st| st.rt.device_fresh_all(&mut st.c, "op_upload_all"));
    reallocReductArrays(reduct_bytes: c_int) = "reallocReductArrays" => realloc_scratch(true, reduct_bytes);
    reallocConstArrays(consts_bytes: c_int) = "reallocConstArrays" => realloc_scratch(false, consts_bytes);
    mvReductArraysToDevice(reduct_bytes: c_int) = "mvReductArraysToDevice" => move_scratch(true, reduct_bytes, true);
    mvReductArraysToHost(reduct_bytes: c_int) = "mvReductArraysToHost" => move_scratch(true, reduct_bytes, false);
    mvConstArraysToDevice(consts_bytes: c_int) = "mvConstArraysToDevice" => move_scratch(false, consts_bytes, true);
    mvConstArraysToHost(consts_bytes: c_int) = "mvConstArraysToHost" => move_scratch(false, consts_bytes, false);
}
