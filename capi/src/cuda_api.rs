//! OP2's CUDA runtime interface (`op_cuda_rt_support.h`) as code generated
//! by OP2's translator for the `cuda` target calls it: device initialisation,
//! explicit transfers, the reduction and constant scratch buffers, error
//! checks. Every library exports it; without a device (the CPU libraries)
//! the transfers do nothing, as in OP2 when `OP_hybrid_gpu` is 0.

use crate::ffi::*;
use crate::globals::{OP_consts_d, OP_consts_h, OP_reduct_d, OP_reduct_h};
use crate::state::{with_state, State};
use op2_core::{DatId, Fresh, Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::addr_of_mut;

/// The stream OP2's MPI x CUDA code overlaps halo packing on (`cudaStream_t`;
/// NULL: the default stream, which this library's copies also use).
#[no_mangle]
pub static mut op2_grp_secondary: *mut c_void = std::ptr::null_mut();

/// Device initialisation: done by op_init in the CUDA libraries (which
/// stop there when no device can be used), so there is nothing left to do.
#[no_mangle]
pub extern "C" fn cutilDeviceInit(_argc: c_int, _argv: *mut *mut c_char) {}

#[no_mangle]
pub extern "C" fn cutilDeviceInit_mpi(_argc: c_int, _argv: *mut *mut c_char, _rank: c_int) {}

/// Names of the CUDA runtime's most common error codes (cudaError_t).
fn cuda_error_name(code: c_int) -> &'static str {
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

unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        "?".into()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// `cutilSafeCall(x)`: stop with the file, line and error when a CUDA
/// runtime call in generated code failed.
#[no_mangle]
pub unsafe extern "C" fn __cudaSafeCall(err: c_int, file: *const c_char, line: c_int) {
    if err != 0 {
        crate::guard::fatal(&Op2Error::new(
            "cutilSafeCall",
            format!("{}:{line}", text(file)),
            format!("CUDA runtime error {err} ({})", cuda_error_name(err)),
        ));
    }
}

/// `cutilCheckMsg(msg)`: wait for the device and stop with `msg` if a
/// kernel failed.
#[no_mangle]
pub unsafe extern "C" fn __cutilCheckMsg(msg: *const c_char, file: *const c_char, line: c_int) {
    let where_ = format!("{}:{line}", text(file));
    let m = text(msg);
    with_state("cutilCheckMsg", |st| match st.device.as_ref() {
        Some(dev) => dev
            .mem
            .synchronize()
            .map_err(|e| Op2Error::new("cutilCheckMsg", where_, format!("{m}: {e}"))),
        None => Ok(()),
    })
}

/// Wait for the device (OP2's `deviceSync`).
#[no_mangle]
pub extern "C" fn deviceSync() {
    with_state("deviceSync", |st| match st.device.as_ref() {
        Some(dev) => dev
            .mem
            .synchronize()
            .map_err(|e| Op2Error::new("deviceSync", "", e.to_string())),
        None => Ok(()),
    })
}

/// Allocate `size` bytes of device memory: 0 (cudaSuccess) or 2
/// (cudaErrorMemoryAllocation); 3 when there is no device.
#[no_mangle]
pub unsafe extern "C" fn op_deviceMalloc(ptr: *mut *mut c_void, size: usize) -> c_int {
    if ptr.is_null() {
        return 1;
    }
    with_state("op_deviceMalloc", |st| {
        Ok(match st.device.as_ref() {
            Some(dev) => match dev.mem.alloc(size) {
                Ok(p) => {
                    *ptr = p as *mut c_void;
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
pub unsafe extern "C" fn op_deviceZero(ptr: *mut c_void, size: usize) -> c_int {
    with_state("op_deviceZero", |st| {
        Ok(match st.device.as_ref() {
            Some(dev) => c_int::from(dev.mem.zero(ptr as u64, size).is_err()),
            None => 3,
        })
    })
}

/// Move a malloc'ed host array to the device: `*map` is freed and replaced
/// by the device copy (nothing happens without a device or for size 0).
#[no_mangle]
pub unsafe extern "C" fn op_mvHostToDevice(map: *mut *mut c_void, size: usize) {
    let call = "op_mvHostToDevice";
    if map.is_null() || (*map).is_null() || size == 0 {
        return;
    }
    with_state(call, |st| {
        let Some(dev) = st.device.as_ref() else {
            return Ok(());
        };
        let host = std::slice::from_raw_parts(*map as *const u8, size);
        let p = dev
            .mem
            .alloc(size)
            .map_err(|e| Op2Error::new(call, "", e.to_string()))?;
        dev.mem
            .upload(p, host)
            .map_err(|e| Op2Error::new(call, "", e.to_string()))?;
        libc::free(*map);
        *map = p as *mut c_void;
        Ok(())
    })
}

/// Copy `size` bytes of `*data_h` into a new device block `*data_d` (an
/// old block there is freed first).
#[no_mangle]
pub unsafe extern "C" fn op_cpHostToDevice(
    data_d: *mut *mut c_void,
    data_h: *mut *mut c_void,
    size: usize,
) {
    let call = "op_cpHostToDevice";
    if data_d.is_null() || data_h.is_null() {
        return;
    }
    with_state(call, |st| {
        let Some(dev) = st.device.as_ref() else {
            return Ok(());
        };
        if !(*data_d).is_null() {
            dev.mem.free(*data_d as u64);
        }
        let p = dev
            .mem
            .alloc(size)
            .map_err(|e| Op2Error::new(call, "", e.to_string()))?;
        if size > 0 && !(*data_h).is_null() {
            let host = std::slice::from_raw_parts(*data_h as *const u8, size);
            dev.mem
                .upload(p, host)
                .map_err(|e| Op2Error::new(call, "", e.to_string()))?;
        }
        *data_d = p as *mut c_void;
        Ok(())
    })
}

/// Bring a dat's host copy up to date (if the device copy is newer).
#[no_mangle]
pub unsafe extern "C" fn op_cuda_get_data(dat: op_dat) {
    let call = "op_cuda_get_data";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        st.host_fresh(call, id)
    })
}

/// Copy a dat's host copy to the device unconditionally (OP2's op_upload_dat).
#[no_mangle]
pub unsafe extern "C" fn op_upload_dat(dat: op_dat) {
    let call = "op_upload_dat";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        transfer(st, call, id, true)
    })
}

/// Copy a dat's device copy to the host unconditionally (OP2's op_download_dat).
#[no_mangle]
pub unsafe extern "C" fn op_download_dat(dat: op_dat) {
    let call = "op_download_dat";
    with_state(call, |st| {
        let id = st.dat_id(call, dat)?;
        transfer(st, call, id, false)
    })
}

fn transfer(st: &mut State, call: &str, id: DatId, up: bool) -> Result<()> {
    if !st.has_device() {
        return Ok(());
    }
    if up {
        st.upload_dat(call, id)?;
    } else {
        st.download_dat(call, id)?;
    }
    st.dom.dat_mut(id).fresh = Fresh::Both;
    st.mirror_fresh(id);
    Ok(())
}

/// Upload every dat whose host copy is newer.
#[no_mangle]
pub extern "C" fn op_upload_all() {
    let call = "op_upload_all";
    with_state(call, |st| {
        let ids: Vec<DatId> = st.dom.dats().map(|(id, _)| id).collect();
        ids.into_iter().try_for_each(|id| st.device_fresh(call, id))
    })
}

/// Free the device copies (op_exit does this too).
#[no_mangle]
pub extern "C" fn op_cuda_exit() {
    with_state("op_cuda_exit", |st| {
        st.device_exit();
        Ok(())
    })
}

/// Which of OP2's two scratch buffers.
#[derive(Clone, Copy)]
enum Scratch {
    Reduct,
    Consts,
}

/// Grow a scratch buffer to at least `bytes` and publish its addresses.
fn realloc_scratch(call: &'static str, which: Scratch, bytes: c_int) {
    with_state(call, |st| {
        let Some(dev) = st.device.as_mut() else {
            return Ok(());
        };
        let buf = match which {
            Scratch::Reduct => &mut dev.reduct,
            Scratch::Consts => &mut dev.consts,
        };
        buf.reserve(bytes.max(0) as usize)
            .map_err(|e| Op2Error::new(call, "", e.to_string()))?;
        let (h, d) = (buf.host_ptr() as *mut c_char, buf.dev_ptr() as *mut c_char);
        // SAFETY: plain pointer globals, written on the API thread under the lock.
        unsafe {
            match which {
                Scratch::Reduct => {
                    std::ptr::write_volatile(addr_of_mut!(OP_reduct_h), h);
                    std::ptr::write_volatile(addr_of_mut!(OP_reduct_d), d);
                }
                Scratch::Consts => {
                    std::ptr::write_volatile(addr_of_mut!(OP_consts_h), h);
                    std::ptr::write_volatile(addr_of_mut!(OP_consts_d), d);
                }
            }
        }
        Ok(())
    })
}

/// Copy the first `bytes` of a scratch buffer between host and device.
fn move_scratch(call: &'static str, which: Scratch, bytes: c_int, to_device: bool) {
    with_state(call, |st| {
        let Some(dev) = st.device.as_mut() else {
            return Ok(());
        };
        let buf = match which {
            Scratch::Reduct => &mut dev.reduct,
            Scratch::Consts => &mut dev.consts,
        };
        let n = bytes.max(0) as usize;
        let r = if to_device {
            buf.to_device(n)
        } else {
            buf.to_host(n)
        };
        r.map_err(|e| Op2Error::new(call, "", e.to_string()))
    })
}

#[no_mangle]
pub extern "C" fn reallocReductArrays(reduct_bytes: c_int) {
    realloc_scratch("reallocReductArrays", Scratch::Reduct, reduct_bytes)
}
#[no_mangle]
pub extern "C" fn reallocConstArrays(consts_bytes: c_int) {
    realloc_scratch("reallocConstArrays", Scratch::Consts, consts_bytes)
}
#[no_mangle]
pub extern "C" fn mvReductArraysToDevice(reduct_bytes: c_int) {
    move_scratch(
        "mvReductArraysToDevice",
        Scratch::Reduct,
        reduct_bytes,
        true,
    )
}
#[no_mangle]
pub extern "C" fn mvReductArraysToHost(reduct_bytes: c_int) {
    move_scratch("mvReductArraysToHost", Scratch::Reduct, reduct_bytes, false)
}
#[no_mangle]
pub extern "C" fn mvConstArraysToDevice(consts_bytes: c_int) {
    move_scratch("mvConstArraysToDevice", Scratch::Consts, consts_bytes, true)
}
#[no_mangle]
pub extern "C" fn mvConstArraysToHost(consts_bytes: c_int) {
    move_scratch("mvConstArraysToHost", Scratch::Consts, consts_bytes, false)
}
