//! `op_dump_to_hdf5` under MPI, as OP2 (op2-hdf5-io's `c_api` writes the
//! sets and maps): dats are written as held (after `op_partition`:
//! partitioned order), each rank's owned rows after those of the lower
//! ranks, with collective transfers, from their host copies, brought up to
//! date first (`op_cuda_get_data`).

use crate::ffi::{self, op_dat};
use crate::guard::{fail, Res};
use crate::{dat_type, io, name_of, set_size, Mpi};
use op2_hdf5_io::c_api::Ctx;
use op2_hdf5_io::H5File;

/// # Safety
/// `dat` is a live dat of the OP2 library.
pub(crate) unsafe fn dump_dat(c: &Mpi, f: &H5File, dat: op_dat) -> Res<()> {
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
    let (rows, global) = c.my_rows(local, &object)?;
    if global == 0 {
        return Ok(());
    }
    let n = local as usize * size as usize;
    if data.is_null() && n > 0 {
        return Err(fail(&object, "the dat has no data"));
    }
    let held: &[u8] = if n == 0 {
        &[]
    } else {
        // SAFETY: the dat holds set->size owned elements of dat->size bytes first.
        unsafe { std::slice::from_raw_parts(data.cast(), n) }
    };
    let ds = f.create_dat(&name, global, dim, &ty).map_err(io(&object))?;
    f.write_rows(&ds, rows, elem, held).map_err(io(&object))
}
