//! `op_dump_to_hdf5`: every set, map and dat of the OP2 library in one file.

use crate::ffi::{self, op_map};
use crate::guard::{arg, guard, notice, Fail, Res};
use crate::{dat_list, dat_type, fetch, io, name_of, non_negative, open, set_size, write_all};
use op2_hdf5_io::{ElemType, H5File, Mode};
use std::ffi::c_char;

/// Write every set (its size), map and dat (with data) to `file_name`,
/// replacing the file.
///
/// # Safety
/// `file_name` is NUL-terminated; called on the application's thread.
#[no_mangle]
pub unsafe extern "C" fn op_dump_to_hdf5(file_name: *const c_char) {
    guard("op_dump_to_hdf5", || {
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file_name, "the file name", "") }?;
        let object = format!("file \"{file}\"");
        notice(&format!("Writing to {file}"));
        let f = open(&file, Mode::Truncate, &object)?;
        // SAFETY: the OP2 library's lists, read on the API thread.
        unsafe {
            dump_sets(&f)?;
            dump_maps(&f)?;
        }
        for (dat, _) in dat_list() {
            // SAFETY: a live dat of the OP2 library.
            unsafe { dump_dat(&f, dat) }?;
        }
        Ok(())
    })
}

/// # Safety
/// Reads the OP2 library's set list.
unsafe fn dump_sets(f: &H5File) -> Res<()> {
    // SAFETY: OP_set_list holds OP_set_index live sets.
    let (n, list) = unsafe { (ffi::OP_set_index, ffi::OP_set_list) };
    for i in 0..n.max(0) as usize {
        // SAFETY: as above.
        let set = unsafe { *list.add(i) };
        // SAFETY: a live set.
        let name = unsafe { name_of((*set).name) };
        let object = format!("set \"{name}\"");
        // SAFETY: a live set.
        let size = unsafe { set_size(set, "the set", &object) }?;
        f.write_set(&name, size).map_err(io(&object))?;
    }
    Ok(())
}

/// # Safety
/// Reads the OP2 library's map list.
unsafe fn dump_maps(f: &H5File) -> Res<()> {
    // SAFETY: OP_map_list holds OP_map_index live maps.
    let (n, list) = unsafe { (ffi::OP_map_index, ffi::OP_map_list) };
    for i in 0..n.max(0) as usize {
        // SAFETY: as above.
        unsafe { dump_map(f, *list.add(i)) }?;
    }
    Ok(())
}

/// # Safety
/// `map` is a live map of the OP2 library.
unsafe fn dump_map(f: &H5File, map: op_map) -> Res<()> {
    // SAFETY: a live map mirror.
    let (name, from, dim, values) =
        unsafe { (name_of((*map).name), (*map).from, (*map).dim, (*map).map) };
    let object = format!("map \"{name}\"");
    // SAFETY: a live set.
    let rows = unsafe { set_size(from, "the from-set", &object) }?;
    let d = non_negative(dim, "dim", &object)?;
    let n = rows as usize * d;
    if values.is_null() && n > 0 {
        return Err(Fail::new(&object, "the map has no values"));
    }
    let ds = f.create_map(&name, rows, d, false).map_err(io(&object))?;
    let bytes: &[u8] = if n == 0 {
        &[]
    } else {
        // SAFETY: the map holds from->size * dim ints.
        unsafe { std::slice::from_raw_parts(values.cast(), n * 4) }
    };
    write_all(f, &ds, ElemType::Int, bytes, &object)
}

/// # Safety
/// `dat` is a live dat of the OP2 library.
unsafe fn dump_dat(f: &H5File, dat: ffi::op_dat) -> Res<()> {
    // SAFETY: a live dat mirror.
    let (name, size, data) = unsafe { (name_of((*dat).name), (*dat).size, (*dat).data) };
    if size == 0 || data.is_null() {
        return Ok(());
    }
    let object = format!("dat \"{name}\"");
    // SAFETY: a live dat.
    let (ty, dim, elem) = unsafe { dat_type(dat, &object) }?;
    // SAFETY: a live dat.
    let values = unsafe { fetch(dat, &object) }?;
    let rows = (values.len() / (dim * elem.size()).max(1)) as u64;
    let ds = f.create_dat(&name, rows, dim, &ty).map_err(io(&object))?;
    write_all(f, &ds, elem, &values, &object)
}
