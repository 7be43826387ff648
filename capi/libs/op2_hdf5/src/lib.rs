//! libop2_hdf5: OP2's serial HDF5 C API (`op_hdf5.h`) in OP2's file layout
//! (op2-hdf5-io), on top of the OP2 C API of the library it is linked with:
//! `-lop2_hdf5 -lop2_seq` (or `-lop2_openmp`) plus the serial HDF5 library.
//! Sets, maps and dats read from a file are declared with `op_decl_set`,
//! `op_decl_map[_long]` and `op_decl_dat_char`; dats are written from what
//! `op_fetch_data_char` returns (so device copies are brought to the host).
//!
//! The API is op2-hdf5-io's `c_api`; this library supplies its serial
//! context ([`Local`]) and, through `op_hdf5_c_api!`, the `extern "C"`
//! entry points.

mod ffi;
mod guard;

use ffi::op_dat;
use guard::{notice, Res};
use op2_hdf5_io::c_api::Ctx;
use op2_hdf5_io::c_util::{dat_type, io, name_of, non_negative, set_size};
use op2_hdf5_io::{Access, ElemType, H5File, Mode, RowDist, Serial};
use std::ops::Range;

/// The serial context: files opened with HDF5's default access, every row
/// on this process, notices printed directly.
struct Local;

impl Ctx for Local {
    const FETCH_CREATE: Mode = Mode::Exclusive;
    const DUMP_SKIPS_EMPTY_MAPS: bool = false;

    fn new(_object: &str) -> Res<Local> {
        Ok(Local)
    }

    fn open(&self, path: &str, mode: Mode, object: &str) -> Res<H5File> {
        H5File::open(path, mode, Access::default()).map_err(io(object))
    }

    fn open_for_writing(&self, path: &str, create: Mode, object: &str) -> Res<(H5File, bool)> {
        let exists = std::path::Path::new(path).exists();
        let mode = if exists { Mode::ReadWrite } else { create };
        Ok((self.open(path, mode, object)?, exists))
    }

    fn dist(&self) -> &dyn RowDist {
        &Serial
    }

    fn notice(&self, line: &str) {
        notice(line);
    }

    fn my_rows(&self, local: u64, _object: &str) -> Res<(Range<u64>, u64)> {
        Ok((0..local, local))
    }

    unsafe fn fetch_rows(
        &self,
        dat: op_dat,
        dim: usize,
        elem: ElemType,
        object: &str,
    ) -> Res<(u64, Range<u64>, Vec<u8>)> {
        // SAFETY: the caller's contract.
        let data = unsafe { fetch(dat, object) }?;
        let rows = (data.len() / (dim * elem.size()).max(1)) as u64;
        Ok((rows, 0..rows, data))
    }

    unsafe fn dump_dat(&self, f: &H5File, dat: op_dat) -> Res<()> {
        // SAFETY: a live dat mirror.
        let (name, size, data) = unsafe { (name_of((*dat).name), (*dat).size, (*dat).data) };
        if size == 0 || data.is_null() {
            return Ok(());
        }
        let object = format!("dat \"{name}\"");
        // SAFETY: a live dat.
        let (ty, dim, elem) = unsafe { dat_type(dat, &object) }?;
        // SAFETY: a live dat.
        let (rows, range, values) = unsafe { self.fetch_rows(dat, dim, elem, &object) }?;
        let ds = f.create_dat(&name, rows, dim, &ty).map_err(io(&object))?;
        f.write_rows(&ds, range, elem, &values).map_err(io(&object))
    }
}

/// A dat's values in set order, from the OP2 library (`op_fetch_data_char`).
///
/// # Safety
/// `dat` is a live op_dat of the linked OP2 library.
unsafe fn fetch(dat: op_dat, object: &str) -> Res<Vec<u8>> {
    // SAFETY: a live op_dat mirror and its set.
    let (rows, bytes) = unsafe { (set_size((*dat).set, "the dat's set", object)?, (*dat).size) };
    let n = rows as usize * non_negative(bytes, "the element size", object)?;
    let mut buf = vec![0u8; n];
    if n > 0 {
        // SAFETY: buf holds set->size elements of dat->size bytes.
        unsafe { ffi::op_fetch_data_char(dat, buf.as_mut_ptr().cast()) };
    }
    Ok(buf)
}

op2_hdf5_io::op_hdf5_c_api!(Local, guard::stop);
