//! Helpers of the HDF5 C libraries over OP2's C API (op2_c): names and
//! sizes read from the C mirrors, sets declared, the dat list walked, in
//! the error convention of c_guard.

use crate::c_guard::{fail, Res};
use crate::layout::elem_of;
use crate::op2_c::{self as ffi, op_dat, op_set};
use crate::types::ElemType;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// An op2-hdf5-io error as a failure concerning `object`.
/// The progress lines of reading `what` from `file` (`OP_diags >= 2`,
/// stderr a terminal, and `here`: this process prints them).
pub fn reading(what: &str, file: &str, here: bool) -> op2_core::progress::Progress {
    let diags = if here {
        // SAFETY: OP_diags is an int every OP2 library defines, written
        // only by op_init before any file is read; a plain read is sound.
        unsafe { std::ptr::addr_of!(ffi::OP_diags).read_volatile() }
    } else {
        0
    };
    op2_core::progress::Progress::start(diags, || format!("reading {what} from {file}"))
}

pub fn io(object: &str) -> impl Fn(crate::Error) -> op2_core::Op2Error + '_ {
    move |e| fail(object, e.msg)
}

pub fn c_string(s: &str, object: &str) -> Res<CString> {
    CString::new(s).map_err(|_| fail(object, "a name contains a NUL byte"))
}

pub fn non_negative(v: c_int, what: &str, object: &str) -> Res<usize> {
    usize::try_from(v).map_err(|_| fail(object, format!("{what} {v} is negative")))
}

/// The name of an OP2 object from its C mirror.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub unsafe fn name_of(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The size of a set handle (an error naming `what` for NULL).
///
/// # Safety
/// `set` is NULL or an op_set of the linked OP2 library.
pub unsafe fn set_size(set: op_set, what: &str, object: &str) -> Res<u64> {
    if set.is_null() {
        return Err(fail(object, format!("{what} is NULL")));
    }
    // SAFETY: a live op_set mirror.
    let n = unsafe { (*set).size };
    Ok(non_negative(n, "the set size", object)? as u64)
}

pub fn decl_set(rows: std::ops::Range<u64>, name: &str, object: &str) -> Res<op_set> {
    let n = c_int::try_from(rows.end - rows.start)
        .map_err(|_| fail(object, "the set size does not fit an int"))?;
    let c = c_string(name, object)?;
    // SAFETY: a valid size and name; the OP2 library copies the name.
    Ok(unsafe { ffi::op_decl_set(n, c.as_ptr()) })
}

/// The dat's type string, dim and element type (checked against its size).
///
/// # Safety
/// `dat` is a live op_dat of the linked OP2 library.
pub unsafe fn dat_type(dat: op_dat, object: &str) -> Res<(String, usize, ElemType)> {
    // SAFETY: a live op_dat mirror.
    let (ty, dim, size) = unsafe { (name_of((*dat).type_), (*dat).dim, (*dat).size) };
    let elem = elem_of(&ty).map_err(io(object))?;
    let d = non_negative(dim, "dim", object)?;
    if (d * elem.size()) as i64 != i64::from(size) {
        return Err(fail(
            object,
            format!("type {ty} with dim {d} does not make {size}-byte elements"),
        ));
    }
    Ok((ty, d, elem))
}

/// The dats of the OP2 library, in declaration order, with their original pointers.
pub fn dat_list() -> Vec<(op_dat, *mut c_void)> {
    let mut out = Vec::new();
    // SAFETY: OP_dat_list is the linked OP2 library's list, read on the API thread.
    unsafe {
        let mut e = std::ptr::addr_of!(ffi::OP_dat_list).read().first;
        while !e.is_null() {
            out.push(((*e).dat, (*e).orig_ptr));
            e = (*e).next;
        }
    }
    out
}
