//! Constants under MPI: every rank reads the whole constant; every rank
//! takes part in writing it (the same values, as every rank holds them).

use crate::guard::{arg, guard, notice, Fail};
use crate::{ctx, io, non_negative};
use op2_hdf5_io::layout::elem_of;
use op2_hdf5_io::Mode;
use std::ffi::{c_char, c_int};

/// Read constant `name` (`dim` values of `type`) from `file` into `const_data`
/// on every rank.
///
/// # Safety
/// `const_data` holds `dim` values of `type`; strings NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_get_const_hdf5(
    name: *const c_char,
    dim: c_int,
    type_: *const c_char,
    const_data: *mut c_char,
    file_name: *const c_char,
) {
    guard("op_get_const_hdf5", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the constant name", "") }?;
        let object = format!("constant \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file_name, "the file name", &object) }?;
        // SAFETY: the caller's contract.
        let ty = unsafe { arg(type_, "the type string", &object) }?;
        let d = non_negative(dim, "dim", &object)?;
        let c = ctx(&object)?;
        let f = c.open(&file, Mode::Read, &object)?;
        let mut warn = |m: String| notice(&c.comm, &format!("op_get_const_hdf5: {m}"));
        let data = f
            .read_const(&name, d, &ty, &mut warn)
            .map_err(io(&object))?;
        let Some(data) = data else {
            notice(
                &c.comm,
                &format!(
                    "op_get_const_hdf5: constant \"{name}\" not found in file \"{file}\": left unchanged"
                ),
            );
            return Ok(());
        };
        if const_data.is_null() && !data.is_empty() {
            return Err(Fail::new(&object, "the destination pointer is NULL"));
        }
        // SAFETY: the caller's contract: const_data holds dim values of type.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), const_data.cast(), data.len()) };
        Ok(())
    })
}

/// Write constant `name` to `file` (created when missing); collective.
///
/// # Safety
/// `const_data` holds `dim` values of `type`; strings NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_write_const_hdf5(
    name: *const c_char,
    dim: c_int,
    type_: *const c_char,
    const_data: *mut c_char,
    file_name: *const c_char,
) {
    guard("op_write_const_hdf5", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the constant name", "") }?;
        let object = format!("constant \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file_name, "the file name", &object) }?;
        // SAFETY: the caller's contract.
        let ty = unsafe { arg(type_, "the type string", &object) }?;
        let d = non_negative(dim, "dim", &object)?;
        let elem = elem_of(&ty).map_err(io(&object))?;
        if const_data.is_null() && d > 0 {
            return Err(Fail::new(&object, "the data pointer is NULL"));
        }
        let c = ctx(&object)?;
        notice(&c.comm, &format!("Writing '{name}' to file '{file}'"));
        let (f, _) = c.open_for_writing(&file, &object)?;
        let bytes: &[u8] = if d == 0 {
            &[]
        } else {
            // SAFETY: the caller's contract: dim values of type.
            unsafe { std::slice::from_raw_parts(const_data.cast(), d * elem.size()) }
        };
        f.write_const(&name, d, &ty, bytes).map_err(io(&object))
    })
}
