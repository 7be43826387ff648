//! `op_renumber` / `op_renumber_ptr` (reordering a mesh for cache locality:
//! `Runtime::renumber`), plus small queries on args (device transfers are
//! in `cuda_api`).

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::globals;
use crate::state::with_state;
use op2_core::{Op2Error, Result};
use std::os::raw::c_int;

/// Reorder the map's to-set by reverse Cuthill-McKee and every set
/// connected to it through maps, moving every dat and map with them
/// (`op2_core::renumber`). Fetches and dumps keep the declared order. Under
/// MPI the renumbering is local to each rank and happens at partitioning
/// when called before `op_partition`.
#[no_mangle]
pub extern "C" fn op_renumber(map: op_map) {
    c_api!(
        "op_renumber",
        with_state(|st| {
            let m = st.h.map_id(map)?;
            st.rt.renumber(&mut st.c, "op_renumber", m)
        })
    )
}

fn renumber_ptr(map: *mut c_int) -> Result<()> {
    with_state(|st| {
        if map.is_null() {
            return Err(Op2Error::new("", "", "the map array is NULL"));
        }
        let m = st.map_by_orig_ptr(map).ok_or_else(|| {
            Op2Error::new(
                "",
                "",
                format!("{map:p} is not an array given to op_decl_map"),
            )
        })?;
        st.rt.renumber(&mut st.c, "op_renumber_ptr", m)
    })
}

/// Elements an argument's dat holds (0 for a switched-off argument).
///
/// # Safety
/// `arg` is NULL or points to an op_arg.
#[no_mangle]
pub unsafe extern "C" fn getSetSizeFromOpArg(arg: *mut op_arg) -> c_int {
    c_api!("getSetSizeFromOpArg", {
        // SAFETY: the caller's contract.
        match unsafe { arg.as_ref() } {
            Some(a) if a.opt != 0 && !a.dat.is_null() => with_state(|st| {
                let d = st.h.dat_id(a.dat)?;
                // Every element the dat stores (owned and halos): generated
                // CUDA code derives its SoA strides from this, as the library does.
                Ok(st.rt.dom().set(st.rt.dat(d).set).total_size() as c_int)
            }),
            _ => Ok(0),
        }
    })
}

#[no_mangle]
pub extern "C" fn getHybridGPU() -> c_int {
    // SAFETY: plain int global.
    c_api!("getHybridGPU", Ok(c_int::from(globals::hybrid_gpu())))
}

exports! {
    /// `op_renumber` for the map declared with the array `map` (Fortran).
    op_renumber_ptr(map: *mut c_int) = "op_renumber_ptr" => renumber_ptr(map);
}
