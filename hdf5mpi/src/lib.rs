//! OP2's HDF5 API under MPI (`op_hdf5.h`), part of `libop2_mpi` and
//! `libop2_mpi_cuda` as in OP2 (link: `-lop2_mpi` and a parallel HDF5).
//!
//! Every call opens its file on the library's communicator with HDF5's
//! MPI-IO driver and transfers collectively ([`mpio`]):
//!
//! * `op_decl_set_hdf5[_infer_size]`: each rank declares OP2's block of the
//!   global size (`⌊g·r/P⌋..⌊g·(r+1)/P⌋`);
//! * `op_decl_map_hdf5` / `op_decl_dat_hdf5`: each rank reads the rows of
//!   its block of the from-set/set (its local size, after the lower ranks'
//!   sizes); map values stay global indices, as `op_partition` expects;
//! * `op_get_const_hdf5` / `op_write_const_hdf5`: every rank reads / takes
//!   part in the write;
//! * `op_dump_to_hdf5`: sets as global sizes, maps and dats **as held**
//!   (after `op_partition`: partitioned order, maps in local numbering), each
//!   rank writing its owned rows after the lower ranks' (OP2's behaviour);
//! * `op_fetch_data_hdf5*`: the dat in its **original global order**: each
//!   rank takes OP2's block of rows of the original order
//!   (`op_fetch_data_idx_char`, which gathers it) and writes it collectively.
//!
//! The crate calls the OP2 C API through `extern "C"` (never capi code
//! directly), so in `libop2_mpi.a` these objects, and the HDF5 references
//! in them, are linked only into programs that call an `op_*_hdf5` function.

mod dump;
mod ffi;
mod guard;
mod mpio;

use ffi::{op_dat, op_map, op_set};
use guard::{arg, guard, notice, Fail, Res};
use mpio::{Comm, Lists};
use op2_hdf5_io::c_util::{
    c_string, dat_list, dat_type, decl_set, io, name_of, non_negative, set_size,
};
use op2_hdf5_io::layout::elem_of;
use op2_hdf5_io::{Dataset, ElemType, H5File, MapData, Mode};
use std::ffi::{c_char, c_int};

pub use dump::op_dump_to_hdf5;

/// The communicator and the MPI-IO property lists of one call.
struct Ctx {
    comm: Comm,
    lists: Lists,
}

fn ctx(object: &str) -> Res<Ctx> {
    let comm = Comm::world().map_err(|m| Fail::new(object, m))?;
    let lists = comm.lists().map_err(|m| Fail::new(object, m))?;
    Ok(Ctx { comm, lists })
}

impl Ctx {
    fn open(&self, path: &str, mode: Mode, object: &str) -> Res<H5File> {
        H5File::open(path, mode, self.lists.access()).map_err(io(object))
    }

    /// Open `path` for writing: read-write when it exists (rank 0 decides),
    /// else created.
    fn open_for_writing(&self, path: &str, object: &str) -> Res<(H5File, bool)> {
        let here = std::path::Path::new(path).exists();
        let exists = self
            .comm
            .root_says(here)
            .map_err(|m| Fail::new(object, m))?;
        let mode = if exists {
            Mode::ReadWrite
        } else {
            Mode::Truncate
        };
        Ok((self.open(path, mode, object)?, exists))
    }

    fn mpi<T>(&self, r: Result<T, String>, object: &str) -> Res<T> {
        r.map_err(|m| Fail::new(object, m))
    }
}

/// Declare this rank's block (OP2's rule) of the set whose global size is
/// the integer in dataset `name` of `file`.
///
/// # Safety
/// `file` and `name` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn op_decl_set_hdf5(file: *const c_char, name: *const c_char) -> op_set {
    guard("op_decl_set_hdf5", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the set name", "") }?;
        let object = format!("set \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file, "the file name", &object) }?;
        let c = ctx(&object)?;
        let f = c.open(&file, Mode::Read, &object)?;
        let rows = f.read_set_size(&name, &c.comm).map_err(io(&object))?;
        decl_set(rows, &name, &object)
    })
}

/// Declare this rank's block of a set sized by the first extent of dataset
/// `set_dataset_name`.
///
/// # Safety
/// The arguments are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn op_decl_set_hdf5_infer_size(
    file: *const c_char,
    name: *const c_char,
    set_dataset_name: *const c_char,
) -> op_set {
    guard("op_decl_set_hdf5_infer_size", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the set name", "") }?;
        let object = format!("set \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file, "the file name", &object) }?;
        // SAFETY: the caller's contract.
        let ds = unsafe { arg(set_dataset_name, "the dataset name", &object) }?;
        let c = ctx(&object)?;
        let f = c.open(&file, Mode::Read, &object)?;
        let rows = f.infer_set_size(&ds, &c.comm).map_err(io(&object))?;
        decl_set(rows, &name, &object)
    })
}

/// Declare map `name` from this rank's rows of dataset `name` (global
/// indices, as OP2); NULL (with a notice) when the file has no such dataset.
///
/// # Safety
/// `from`/`to` are op_sets of the OP2 library; strings NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_decl_map_hdf5(
    from: op_set,
    to: op_set,
    dim: c_int,
    file: *const c_char,
    name: *const c_char,
) -> op_map {
    guard("op_decl_map_hdf5", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the map name", "") }?;
        let object = format!("map \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file, "the file name", &object) }?;
        // SAFETY: the caller's contract.
        let local = unsafe { set_size(from, "the from-set", &object) }?;
        if to.is_null() {
            return Err(Fail::new(&object, "the to-set is NULL"));
        }
        let d = non_negative(dim, "dim", &object)?;
        let c = ctx(&object)?;
        let f = c.open(&file, Mode::Read, &object)?;
        let cname = c_string(&name, &object)?;
        match f.read_map(&name, d, local, &c.comm).map_err(io(&object))? {
            None => {
                notice(&c.comm, &format!(
                    "op_decl_map_hdf5: map \"{name}\" not found in file \"{file}\" (no dataset \"{name}\"): returning NULL"
                ));
                Ok(std::ptr::null_mut())
            }
            // SAFETY: v holds from->size * dim entries; OP2 copies them.
            Some(MapData::Int(mut v)) => {
                Ok(unsafe { ffi::op_decl_map(from, to, dim, v.as_mut_ptr(), cname.as_ptr()) })
            }
            // SAFETY: as above, 64-bit entries.
            Some(MapData::Long(mut v)) => {
                Ok(unsafe { ffi::op_decl_map_long(from, to, dim, v.as_mut_ptr(), cname.as_ptr()) })
            }
        }
    })
}

/// Declare dat `name` of `type` from this rank's rows of dataset `name`
/// (converted with a notice when stored as another type); NULL (with a
/// notice) when the file has no such dataset.
///
/// # Safety
/// `set` is an op_set of the OP2 library; strings NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_decl_dat_hdf5(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    file: *const c_char,
    name: *const c_char,
) -> op_dat {
    guard("op_decl_dat_hdf5", || {
        // SAFETY: the caller's contract.
        let name = unsafe { arg(name, "the dat name", "") }?;
        let object = format!("dat \"{name}\"");
        // SAFETY: the caller's contract.
        let file = unsafe { arg(file, "the file name", &object) }?;
        // SAFETY: the caller's contract.
        let ty = unsafe { arg(type_, "the type string", &object) }?;
        // SAFETY: the caller's contract.
        let local = unsafe { set_size(set, "the set", &object) }?;
        let d = non_negative(dim, "dim", &object)?;
        let elem = elem_of(&ty).map_err(io(&object))?;
        let c = ctx(&object)?;
        let f = c.open(&file, Mode::Read, &object)?;
        let mut warn = |m: String| notice(&c.comm, &format!("op_decl_dat_hdf5: {m}"));
        let data = f
            .read_dat(&name, d, &ty, local, &c.comm, &mut warn)
            .map_err(io(&object))?;
        let Some(mut data) = data else {
            notice(&c.comm, &format!(
                "op_decl_dat_hdf5: dat \"{name}\" not found in file \"{file}\" (no dataset \"{name}\"): returning NULL"
            ));
            return Ok(std::ptr::null_mut());
        };
        let (cty, cname) = (c_string(&ty, &object)?, c_string(&name, &object)?);
        let ptr = if data.is_empty() {
            std::ptr::null_mut()
        } else {
            data.as_mut_ptr().cast()
        };
        // SAFETY: data holds set->size * dim values of `elem`; OP2 copies them.
        Ok(unsafe {
            ffi::op_decl_dat_char(
                set,
                dim,
                cty.as_ptr(),
                elem.size() as c_int,
                ptr,
                cname.as_ptr(),
            )
        })
    })
}

mod consts;
pub use consts::{op_get_const_hdf5, op_write_const_hdf5};

mod fetch;
pub use fetch::{
    op_fetch_data_hdf5, op_fetch_data_hdf5_file, op_fetch_data_hdf5_file_path,
    op_fetch_data_hdf5_file_ptr,
};

/// Write this rank's `rows` of `ds`.
fn write_rows(
    f: &H5File,
    ds: &Dataset,
    rows: std::ops::Range<u64>,
    elem: ElemType,
    data: &[u8],
    object: &str,
) -> Res<()> {
    f.write_rows(ds, rows, elem, data).map_err(io(object))
}
