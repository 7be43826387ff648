//! `op_fetch_data_hdf5*` under MPI: the dat in its original global order
//! (as declared, before `op_partition`). Each rank takes OP2's block of
//! rows of that order (`op_fetch_data_idx_char`, a collective gather of the
//! original order) and writes it with a collective transfer.

use crate::ffi::{self, op_dat};
use crate::guard::{arg, guard, notice, Fail, Res};
use crate::{ctx, dat_list, dat_type, io, name_of, write_rows};
use std::ffi::{c_char, c_int};
use std::ops::Range;

/// Rows `rows` of the dat in the original order (every rank must call:
/// the fetch gathers across ranks).
///
/// # Safety
/// `dat` is a live op_dat of the OP2 library.
unsafe fn original_rows(dat: op_dat, global: u64, rows: Range<u64>, object: &str) -> Res<Vec<u8>> {
    // SAFETY: a live op_dat mirror.
    let esize = unsafe { (*dat).size }.max(0) as usize;
    if global == 0 {
        return Ok(Vec::new());
    }
    let int = |v: u64| {
        c_int::try_from(v)
            .map_err(|_| Fail::new(object, "the set is too large for op_fetch_data_idx"))
    };
    let n = (rows.end - rows.start) as usize;
    if n == 0 {
        // Take part in the gather; keep nothing.
        let mut scratch = vec![0u8; esize.max(1)];
        // SAFETY: scratch holds one element.
        unsafe { ffi::op_fetch_data_idx_char(dat, scratch.as_mut_ptr().cast(), 0, 0) };
        return Ok(Vec::new());
    }
    let mut buf = vec![0u8; n * esize];
    let (lo, hi) = (int(rows.start)?, int(rows.end - 1)?);
    // SAFETY: buf holds hi - lo + 1 elements of dat->size bytes.
    unsafe { ffi::op_fetch_data_idx_char(dat, buf.as_mut_ptr().cast(), lo, hi) };
    Ok(buf)
}

/// # Safety
/// `dat` is NULL or a live op_dat; strings NUL-terminated (a NULL path
/// means the dat's name).
unsafe fn fetch_impl(call: &str, dat: op_dat, file: *const c_char, path: *const c_char) {
    guard(call, || {
        if dat.is_null() {
            return Err(Fail::new("", "the dat is NULL"));
        }
        // SAFETY: a live op_dat mirror.
        let name = unsafe { name_of((*dat).name) };
        let object = format!("dat \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file, "the file name", &object) }?;
        let path = if path.is_null() {
            name.clone()
        } else {
            // SAFETY: the caller's contract.
            unsafe { arg(path, "the dataset path", &object) }?
        };
        // SAFETY: a live op_dat.
        let (ty, dim, elem) = unsafe { dat_type(dat, &object) }?;
        let c = ctx(&object)?;
        notice(&c.comm, &format!("Writing '{path}' to file '{file}'"));
        // SAFETY: a live op_dat and its set.
        let global = unsafe { ffi::op_get_size((*dat).set) }.max(0) as u64;
        let rows = c.comm.block(global);
        // SAFETY: a live op_dat.
        let data = unsafe { original_rows(dat, global, rows.clone(), &object) }?;
        let (f, existed) = c.open_for_writing(&file, &object)?;
        let ds = if existed && f.exists(&path).map_err(io(&object))? {
            f.open_dat_for_update(&path, global, dim, &ty)
        } else {
            f.create_dat(&path, global, dim, &ty)
        }
        .map_err(io(&object))?;
        write_rows(&f, &ds, rows, elem, &data, &object)
    })
}

/// Write `dat` (original global order) to dataset `path_name` of `file`:
/// overwrite a matching dataset (size, dim and type attributes checked),
/// else create it (and the file).
///
/// # Safety
/// `dat` is NULL or a live op_dat; strings NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_hdf5(
    dat: op_dat,
    file_name: *const c_char,
    path_name: *const c_char,
) {
    // SAFETY: the caller's contract.
    unsafe { fetch_impl("op_fetch_data_hdf5", dat, file_name, path_name) }
}

/// Write `dat` to dataset `dat->name` of `file`.
///
/// # Safety
/// As `op_fetch_data_hdf5`.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_hdf5_file(dat: op_dat, file_name: *const c_char) {
    // SAFETY: the caller's contract.
    unsafe { fetch_impl("op_fetch_data_hdf5_file", dat, file_name, std::ptr::null()) }
}

/// Write `dat` to dataset `path_name` of `file`.
///
/// # Safety
/// As `op_fetch_data_hdf5`.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_hdf5_file_path(
    dat: op_dat,
    file_name: *const c_char,
    path_name: *const c_char,
) {
    // SAFETY: the caller's contract.
    unsafe { fetch_impl("op_fetch_data_hdf5_file_path", dat, file_name, path_name) }
}

/// Write the dat declared (on this rank) with user pointer `data` to
/// dataset `dat->name` of `file`.
///
/// # Safety
/// `file_name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_hdf5_file_ptr(data: *mut c_char, file_name: *const c_char) {
    // The most recent declaration wins (a freed buffer's address may be reused).
    let found = dat_list()
        .into_iter()
        .rev()
        .find(|&(_, p)| std::ptr::eq(p.cast::<c_char>(), data));
    match found {
        // SAFETY: the caller's contract; a live dat.
        Some((dat, _)) => unsafe {
            fetch_impl(
                "op_fetch_data_hdf5_file_ptr",
                dat,
                file_name,
                std::ptr::null(),
            )
        },
        None => guard("op_fetch_data_hdf5_file_ptr", || -> Res<()> {
            Err(Fail::new(
                "",
                format!("no dat was declared with data pointer {data:p}"),
            ))
        }),
    }
}
