//! `op_renumber` / `op_renumber_ptr` (reordering a mesh for cache
//! locality, on every library), plus small queries on args (device
//! transfers are in `cuda_api`).

use crate::ffi::*;
use crate::globals::{self, OP_hybrid_gpu};
use crate::state::{with_state, State};
use op2_core::error::obj;
use op2_core::{MapId, Op2Error, Result};
use std::os::raw::c_int;
use std::ptr::addr_of;

/// Reorder the map's to-set by reverse Cuthill-McKee and every set
/// connected to it through maps, moving every dat and map with them
/// (`op2_core::renumber`). Fetches and dumps keep the declared order. Under
/// MPI the renumbering is local to each rank and happens at partitioning
/// when called before `op_partition`.
#[no_mangle]
pub extern "C" fn op_renumber(map: op_map) {
    with_state("op_renumber", |st| {
        let m = st.map_id("op_renumber", map)?;
        renumber(st, "op_renumber", m)
    })
}

/// `op_renumber` for the map declared with the array `map` (Fortran).
#[no_mangle]
pub extern "C" fn op_renumber_ptr(map: *mut c_int) {
    let call = "op_renumber_ptr";
    with_state(call, |st| {
        if map.is_null() {
            return Err(Op2Error::new(call, "", "the map array is NULL"));
        }
        let m = st.map_by_orig_ptr(map).ok_or_else(|| {
            Op2Error::new(
                call,
                "",
                format!("{map:p} is not an array given to op_decl_map"),
            )
        })?;
        renumber(st, call, m)
    })
}

fn renumber(st: &mut State, call: &'static str, m: MapId) -> Result<()> {
    let map = st.dom.map(m);
    if map.dim == 0 || st.dom.set(map.to).size == 0 {
        let what = obj("map", &map.name);
        return Err(Op2Error::new(
            call,
            what,
            "the map's to-set is empty: nothing to renumber",
        ));
    }
    // Nothing may hold the old positions: exchanges in flight finish, the
    // host copies are brought up to date.
    st.finish_exchanges()?;
    st.host_fresh_all(call)?;
    let report = st
        .dist
        .renumber(&mut st.dom, m)
        .map_err(|e| Op2Error::new(call, e.object, e.msg))?;
    match report {
        Some(r) => {
            if globals::diags() > 0 {
                crate::printf::cout(&format!(" {r}\n"));
            }
            st.refresh_mesh(call);
        }
        None => {
            if globals::diags() > 0 {
                crate::printf::cout(" op_renumber: applied when the mesh is partitioned\n");
            }
        }
    }
    Ok(())
}

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
