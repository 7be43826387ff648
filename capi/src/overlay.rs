//! Dats that share storage: `op_decl_dat_overlay` / `op_decl_dat_overlay_ptr`
//! (a second dat on another set over the same bytes; the runtime checks and
//! declares it) and OP2's `OP_NO_REALLOC` (a dat stored in the
//! application's own array).

use crate::boundary::c_api;
use crate::ffi::*;
use crate::globals;
use crate::state::{with_state, State};
use op2_core::{DatId, Op2Error, Result};
use std::os::raw::{c_char, c_void};
use std::ptr::addr_of;

/// Declare an overlay of `base` on `set` (see [`op_decl_dat_overlay`]).
fn overlay(st: &mut State, call: &'static str, set: op_set, base: DatId) -> Result<op_dat> {
    let s =
        st.h.set_id(set)
            .map_err(|e| Op2Error::new(call, st.dat_obj(base), e.msg))?;
    let id = st.rt.decl_overlay(&mut st.c, call, s, base)?;
    // OP2 files an overlay under its index (there is no user array).
    st.add_dat(call, id, id.0 as *mut c_void)
}

/// A dat on `set` over the storage of `dat` (OP2's overlay): writes through
/// either are seen through the other. It has `dat`'s name, type and dim;
/// `set` (halos included) may not be larger than `dat`'s set.
#[no_mangle]
pub extern "C" fn op_decl_dat_overlay(set: op_set, dat: op_dat) -> op_dat {
    c_api!(
        call = "op_decl_dat_overlay",
        with_state(|st| {
            let base = st.h.dat_id(dat)?;
            overlay(st, call, set, base)
        })
    )
}

/// [`op_decl_dat_overlay`] of the dat filed under `dat` (the array given to
/// op_decl_dat, or an overlay's index: what Fortran passes).
#[no_mangle]
pub extern "C" fn op_decl_dat_overlay_ptr(set: op_set, dat: *mut c_char) -> op_dat {
    c_api!(
        call = "op_decl_dat_overlay_ptr",
        with_state(|st| {
            let base = st.c.dat_by_orig_ptr(dat as *const c_void).ok_or_else(|| {
                Op2Error::new(
                    "",
                    "",
                    format!("no dat was declared with the array at {dat:p}"),
                )
            })?;
            overlay(st, call, set, base)
        })
    )
}

/// OP2's `OP_NO_REALLOC`: is it in force (`OP_realloc == 0`)?
pub(crate) fn no_realloc() -> bool {
    // SAFETY: plain int global, API thread.
    unsafe { globals::get(addr_of!(globals::OP_realloc)) == 0 }
}
