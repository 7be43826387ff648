//! `op_dump_to_hdf5` under MPI, as OP2: set datasets hold global sizes;
//! maps and dats are written as held (after `op_partition`: partitioned
//! order, maps in local numbering), each rank's owned rows after those of
//! the lower ranks, with collective transfers. Dats are written from their
//! host copies, brought up to date first (`op_cuda_get_data`).

use crate::ffi::{self, op_dat, op_map};
use crate::guard::{arg, guard, notice, Fail, Res};
use crate::{ctx, dat_list, dat_type, io, name_of, non_negative, set_size, write_rows, Ctx};
use op2_hdf5_io::{H5File, MapData, Mode};
use std::ffi::c_char;

/// Write every set (global size), map (dim > 0, not empty) and dat to
/// `file_name`, replacing the file; collective.
///
/// # Safety
/// `file_name` is NUL-terminated; called on the application's thread.
#[no_mangle]
pub unsafe extern "C" fn op_dump_to_hdf5(file_name: *const c_char) {
    guard("op_dump_to_hdf5", || {
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file_name, "the file name", "") }?;
        let object = format!("file \"{file}\"");
        let c = ctx(&object)?;
        notice(&c.comm, &format!("Writing to {file}"));
        let f = c.open(&file, Mode::Truncate, &object)?;
        // SAFETY: OP_set_list / OP_map_list hold OP_set_index / OP_map_index
        // live objects; read on the API thread.
        let (sets, maps) = unsafe {
            let s = std::slice::from_raw_parts(ffi::OP_set_list, ffi::OP_set_index.max(0) as usize);
            let m = std::slice::from_raw_parts(ffi::OP_map_list, ffi::OP_map_index.max(0) as usize);
            (s.to_vec(), m.to_vec())
        };
        for set in sets {
            // SAFETY: a live set.
            let name = unsafe { name_of((*set).name) };
            let object = format!("set \"{name}\"");
            // SAFETY: a live set.
            let local = unsafe { set_size(set, "the set", &object) }?;
            let (_, global) = c.mpi(c.comm.my_rows(local), &object)?;
            f.write_set(&name, global).map_err(io(&object))?;
        }
        for map in maps {
            // SAFETY: a live map of the OP2 library.
            unsafe { dump_map(&c, &f, map) }?;
        }
        for (dat, _) in dat_list() {
            // SAFETY: a live dat of the OP2 library.
            unsafe { dump_dat(&c, &f, dat) }?;
        }
        Ok(())
    })
}

/// # Safety
/// `map` is a live map of the OP2 library.
unsafe fn dump_map(c: &Ctx, f: &H5File, map: op_map) -> Res<()> {
    // SAFETY: a live map mirror.
    let (name, from, dim, values) =
        unsafe { (name_of((*map).name), (*map).from, (*map).dim, (*map).map) };
    let object = format!("map \"{name}\"");
    // SAFETY: a live set.
    let local = unsafe { set_size(from, "the from-set", &object) }?;
    let d = non_negative(dim, "dim", &object)?;
    let (rows, global) = c.mpi(c.comm.my_rows(local), &object)?;
    if d == 0 || global == 0 {
        return Ok(());
    }
    let n = local as usize * d;
    if values.is_null() && n > 0 {
        return Err(Fail::new(&object, "the map has no values"));
    }
    let held = if n == 0 {
        Vec::new()
    } else {
        // SAFETY: the map holds from->size * dim ints.
        unsafe { std::slice::from_raw_parts(values, n) }.to_vec()
    };
    let ds = f.create_map(&name, global, d, false).map_err(io(&object))?;
    f.write_map_rows(&ds, rows, &MapData::Int(held))
        .map_err(io(&object))
}

/// # Safety
/// `dat` is a live dat of the OP2 library.
unsafe fn dump_dat(c: &Ctx, f: &H5File, dat: op_dat) -> Res<()> {
    // The host copy is written: make it current first (libop2_mpi_cuda:
    // the device copy may be newer, e.g. after a loop that wrote the dat).
    // SAFETY: a live dat of the OP2 library.
    unsafe { ffi::op_cuda_get_data(dat) };
    // SAFETY: a live dat mirror.
    let (name, size, data, set) =
        unsafe { (name_of((*dat).name), (*dat).size, (*dat).data, (*dat).set) };
    if size <= 0 {
        return Ok(());
    }
    let object = format!("dat \"{name}\"");
    // SAFETY: a live dat.
    let (ty, dim, elem) = unsafe { dat_type(dat, &object) }?;
    // SAFETY: a live set.
    let local = unsafe { set_size(set, "the dat's set", &object) }?;
    let (rows, global) = c.mpi(c.comm.my_rows(local), &object)?;
    if global == 0 {
        return Ok(());
    }
    let n = local as usize * size as usize;
    if data.is_null() && n > 0 {
        return Err(Fail::new(&object, "the dat has no data"));
    }
    let held: &[u8] = if n == 0 {
        &[]
    } else {
        // SAFETY: the dat holds set->size owned elements of dat->size bytes first.
        unsafe { std::slice::from_raw_parts(data.cast(), n) }
    };
    let ds = f.create_dat(&name, global, dim, &ty).map_err(io(&object))?;
    write_rows(f, &ds, rows, elem, held, &object)
}
