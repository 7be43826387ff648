//! Dats that share storage: `op_decl_dat_overlay` / `op_decl_dat_overlay_ptr`
//! (a second dat on another set over the same bytes) and OP2's
//! `OP_NO_REALLOC` (a dat stored in the application's own array).

use crate::ffi::*;
use crate::globals;
use crate::state::{with_state, State};
use op2_core::dist::DistKind;
use op2_core::{DatId, Op2Error, Result};
use std::os::raw::{c_char, c_void};
use std::ptr::addr_of;

/// Declare an overlay of `base` on `set` (see [`op_decl_dat_overlay`]).
fn overlay_impl(st: &mut State, call: &'static str, set: op_set, base: DatId) -> Result<op_dat> {
    let o = st.dat_obj(base);
    let s = st
        .set_id(call, set)
        .map_err(|e| Op2Error::new(call, o.clone(), e.msg))?;
    if st.has_device() {
        return Err(Op2Error::new(
            call,
            o,
            "overlays are not supported by the device libraries (the device copy of a dat is not shared)",
        ));
    }
    if st.dist.kind() == DistKind::Mpi && !st.dist.is_partitioned() && st.dist.nranks() > 1 {
        return Err(Op2Error::new(
            call,
            o,
            "declare overlays after op_partition: partitioning moves every dat's storage",
        ));
    }
    st.finish_exchanges()?;
    let id = st.dom.decl_overlay(call, s, base)?;
    if crate::globals::diags() > 1 {
        let d = st.dom.dat(base);
        crate::printf::cout(&format!(
            "op_decl_dat_overlay: dat: {}, set {} ({} elems) -> {} ({} elems)\n",
            d.name,
            st.dom.set(d.set).name,
            st.dom.set(d.set).total_size(),
            st.dom.set(s).name,
            st.dom.set(s).total_size()
        ));
    }
    // OP2 files an overlay under its index (there is no user array).
    let p = st.mirror_dat(id, id.0 as *mut c_void);
    Ok(p)
}

/// A dat on `set` over the storage of `dat` (OP2's overlay): writes through
/// either are seen through the other. It has `dat`'s name, type and dim;
/// `set` (halos included) may not be larger than `dat`'s set.
#[no_mangle]
pub extern "C" fn op_decl_dat_overlay(set: op_set, dat: op_dat) -> op_dat {
    let call = "op_decl_dat_overlay";
    with_state(call, |st| {
        let base = st.dat_id(call, dat)?;
        overlay_impl(st, call, set, base)
    })
}

/// [`op_decl_dat_overlay`] of the dat filed under `dat` (the array given to
/// op_decl_dat, or an overlay's index: what Fortran passes).
#[no_mangle]
pub extern "C" fn op_decl_dat_overlay_ptr(set: op_set, dat: *mut c_char) -> op_dat {
    let call = "op_decl_dat_overlay_ptr";
    with_state(call, |st| {
        let base = st.dat_by_orig_ptr(dat as *const c_void).ok_or_else(|| {
            Op2Error::new(
                call,
                "",
                format!("no dat was declared with the array at {dat:p}"),
            )
        })?;
        overlay_impl(st, call, set, base)
    })
}

/// OP2's `OP_NO_REALLOC`: is it in force (`OP_realloc == 0`)?
pub(crate) fn no_realloc() -> bool {
    // SAFETY: plain int global, API thread.
    unsafe { globals::get(addr_of!(globals::OP_realloc)) == 0 }
}

/// Store a newly declared dat in the application's array `data` when
/// `OP_NO_REALLOC` is in force, as OP2 does: the application's array then
/// holds the dat's current values. Returns whether it did; it does not
/// (the caller copies) when the array is not aligned for the type.
///
/// # Safety
/// `data` holds the dat's `set.size` elements and stays valid while the dat
/// uses it (OP2's contract for `OP_NO_REALLOC`).
pub(crate) unsafe fn use_user_array(st: &mut State, id: DatId, data: *mut c_char) -> bool {
    let d = st.dom.dat(id);
    let align = d.scalar.size().unwrap_or(1).clamp(1, 8);
    let s = st.dom.set(d.set);
    // One node: the set holds only owned elements, exactly the user's array.
    if data.is_null() || !(data as usize).is_multiple_of(align) || s.total_size() != s.size {
        return false;
    }
    // SAFETY: the caller's contract; the array holds total_size elements.
    st.dom.use_in_place(id, data as *mut u8)
}

/// Mark a dat declared in place as user managed (OP2's `user_managed`).
pub(crate) fn mark_user_managed(st: &mut State, id: DatId) {
    st.dat_c(id).user_managed = 1;
}
