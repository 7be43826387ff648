//! The MPI hooks of the single-node libraries (abi.md §2.5): generated code
//! calls them around every loop; on one node there is nothing to exchange.

use crate::ffi::*;
#[cfg(not(feature = "lib-mpi"))]
use crate::globals::OP_is_partitioned;
use crate::globals::{self, OP_hybrid_gpu, OP_mpi_test_frequency};
use crate::state::with_state;
#[cfg(not(feature = "lib-mpi"))]
use std::os::raw::c_float;
use std::os::raw::{c_char, c_double, c_int, c_void};
use std::ptr::addr_of;
#[cfg(not(feature = "lib-mpi"))]
use std::ptr::addr_of_mut;

/// Number of elements to execute: the set size (no halo on one node).
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges(
    set: op_set,
    _nargs: c_int,
    _args: *mut op_arg,
) -> c_int {
    with_state("op_mpi_halo_exchanges", |st| {
        let s = st.set_id("op_mpi_halo_exchanges", set)?;
        Ok(st.dom.set(s).size as c_int)
    })
}

#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_grouped(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
    _device: c_int,
) -> c_int {
    op_mpi_halo_exchanges(set, nargs, args)
}

#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_cuda(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
) -> c_int {
    op_mpi_halo_exchanges(set, nargs, args)
}

#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_set_dirtybit(_nargs: c_int, _args: *mut op_arg) {}
#[no_mangle]
pub extern "C" fn op_mpi_set_dirtybit_cuda(_nargs: c_int, _args: *mut op_arg) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_wait_all(_nargs: c_int, _args: *mut op_arg) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_wait_all_grouped(_nargs: c_int, _args: *mut op_arg, _device: c_int) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_wait_all_cuda(_nargs: c_int, _args: *mut op_arg) {}
#[no_mangle]
pub extern "C" fn op_mpi_test_all(_nargs: c_int, _args: *mut op_arg) {}
#[no_mangle]
pub extern "C" fn op_mpi_test_all_grouped(_nargs: c_int, _args: *mut op_arg) {}
#[no_mangle]
pub extern "C" fn op_mpi_reset_halos() {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_barrier() {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_reduce_combined(_args: *mut op_arg, _nargs: c_int) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_reduce_float(_arg: *mut op_arg, _data: *mut c_float) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_reduce_double(_arg: *mut op_arg, _data: *mut c_double) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_reduce_int(_arg: *mut op_arg, _data: *mut c_int) {}
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_mpi_reduce_bool(_arg: *mut op_arg, _data: *mut bool) {}

/// Per-kernel MPI timing hook: returns `name`.
#[no_mangle]
pub extern "C" fn op_mpi_perf_time(name: *const c_char, _time: c_double) -> *mut c_void {
    name as *mut c_void
}

#[no_mangle]
pub extern "C" fn op_mpi_get_test_frequency() -> c_int {
    // SAFETY: plain int global.
    unsafe { globals::get(addr_of!(OP_mpi_test_frequency)) }
}

#[cfg(not(feature = "lib-mpi"))]
fn mark_partitioned() {
    // SAFETY: plain int global.
    unsafe { globals::set(addr_of_mut!(OP_is_partitioned), 1) }
}

/// On one node there is nothing to partition; records that it was asked.
#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_partition(
    _lib: *const c_char,
    _routine: *const c_char,
    _set: op_set,
    _map: op_map,
    _coords: op_dat,
) {
    mark_partitioned()
}

#[cfg(not(feature = "lib-mpi"))]
#[no_mangle]
pub extern "C" fn op_partition_ptr(
    _lib: *const c_char,
    _routine: *const c_char,
    _set: op_set,
    _map: *mut c_int,
    _coords: *mut c_double,
) {
    mark_partitioned()
}

#[no_mangle]
pub extern "C" fn op_partition_reverse() {}
#[no_mangle]
pub extern "C" fn op_partition_destroy() {}
#[no_mangle]
pub extern "C" fn op_renumber(_map: op_map) {}
#[no_mangle]
pub extern "C" fn op_renumber_ptr(_map: *mut c_int) {}

/// Elements an argument's dat holds (0 for a switched-off argument).
#[no_mangle]
pub unsafe extern "C" fn getSetSizeFromOpArg(arg: *mut op_arg) -> c_int {
    if arg.is_null() || (*arg).opt == 0 || (*arg).dat.is_null() {
        return 0;
    }
    with_state("getSetSizeFromOpArg", |st| {
        let d = st.dat_id("getSetSizeFromOpArg", (*arg).dat)?;
        Ok(st.dom.set(st.dom.dat(d).set).size as c_int)
    })
}

#[no_mangle]
pub extern "C" fn getHybridGPU() -> c_int {
    // SAFETY: plain int global.
    unsafe { globals::get(addr_of!(OP_hybrid_gpu)) }
}

#[no_mangle]
pub extern "C" fn deviceSync() {}
#[no_mangle]
pub extern "C" fn op_upload_all() {}
#[no_mangle]
pub extern "C" fn op_upload_dat(_dat: op_dat) {}
#[no_mangle]
pub extern "C" fn op_download_dat(_dat: op_dat) {}
