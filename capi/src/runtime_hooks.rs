//! Runtime hooks OP2's CPU libraries leave alone (`op_renumber`), plus
//! small queries on args (device transfers are in `cuda_api`).

use crate::ffi::*;
use crate::globals::{self, OP_hybrid_gpu};
use crate::state::with_state;
use std::os::raw::c_int;
use std::ptr::addr_of;

/// Renumbering for locality: OP2's CPU libraries leave the mesh as declared.
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
        // Every element the dat stores (owned and halos): generated CUDA
        // code derives its SoA strides from this, as the library does.
        Ok(st.dom.set(st.dom.dat(d).set).total_size() as c_int)
    })
}

#[no_mangle]
pub extern "C" fn getHybridGPU() -> c_int {
    // SAFETY: plain int global.
    unsafe { globals::get(addr_of!(OP_hybrid_gpu)) }
}
