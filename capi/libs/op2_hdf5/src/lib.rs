//! libop2_hdf5: OP2's serial HDF5 C API (`op_hdf5.h`) in OP2's file layout
//! (op2-hdf5-io), on top of the OP2 C API of the library it is linked with:
//! `-lop2_hdf5 -lop2_seq` (or `-lop2_openmp`) plus the serial HDF5 library.
//! Sets, maps and dats read from a file are declared with `op_decl_set`,
//! `op_decl_map[_long]` and `op_decl_dat_char`; dats are written from what
//! `op_fetch_data_char` returns (so device copies are brought to the host).

mod ffi;
mod guard;

use ffi::{op_dat, op_map, op_set};
use guard::{arg, guard, notice, Fail, Res};
use op2_hdf5_io::c_util::{
    c_string, dat_list, dat_type, decl_set, io, name_of, non_negative, set_size,
};
use op2_hdf5_io::layout::elem_of;
use op2_hdf5_io::{Access, Dataset, ElemType, H5File, MapData, Mode, Serial};
use std::ffi::{c_char, c_int};

fn open(path: &str, mode: Mode, object: &str) -> Res<H5File> {
    H5File::open(path, mode, Access::default()).map_err(io(object))
}

/// Declare a set whose size is the integer in dataset `name` of `file`.
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
        let f = open(&file, Mode::Read, &object)?;
        let rows = f.read_set_size(&name, &Serial).map_err(io(&object))?;
        decl_set(rows, &name, &object)
    })
}

/// Declare a set sized by the first extent of dataset `set_dataset_name`.
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
        let f = open(&file, Mode::Read, &object)?;
        let rows = f.infer_set_size(&ds, &Serial).map_err(io(&object))?;
        decl_set(rows, &name, &object)
    })
}

/// Declare map `name` from dataset `name` of `file`; NULL (with a notice)
/// when the file has no such dataset, as OP2.
///
/// # Safety
/// `from`/`to` are op_sets of the linked OP2 library; strings NUL-terminated.
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
        let rows = unsafe { set_size(from, "the from-set", &object) }?;
        if to.is_null() {
            return Err(Fail::new(&object, "the to-set is NULL"));
        }
        let d = non_negative(dim, "dim", &object)?;
        let f = open(&file, Mode::Read, &object)?;
        let cname = c_string(&name, &object)?;
        match f.read_map(&name, d, rows, &Serial).map_err(io(&object))? {
            None => {
                notice(&format!(
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

/// Declare dat `name` of `type` from dataset `name` of `file` (converted
/// with a notice when stored as another type); NULL (with a notice) when the
/// file has no such dataset, as OP2.
///
/// # Safety
/// `set` is an op_set of the linked OP2 library; strings NUL-terminated.
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
        let rows = unsafe { set_size(set, "the set", &object) }?;
        let d = non_negative(dim, "dim", &object)?;
        let elem = elem_of(&ty).map_err(io(&object))?;
        let f = open(&file, Mode::Read, &object)?;
        let mut warn = |m: String| notice(&format!("op_decl_dat_hdf5: {m}"));
        let data = f
            .read_dat(&name, d, &ty, rows, &Serial, &mut warn)
            .map_err(io(&object))?;
        let Some(mut data) = data else {
            notice(&format!(
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

/// Read constant `name` (`dim` values of `type`) from `file` into `const_data`.
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
        let f = open(&file, Mode::Read, &object)?;
        let mut warn = |m: String| notice(&format!("op_get_const_hdf5: {m}"));
        let data = f
            .read_const(&name, d, &ty, &mut warn)
            .map_err(io(&object))?;
        let Some(data) = data else {
            notice(&format!(
                "op_get_const_hdf5: constant \"{name}\" not found in file \"{file}\": left unchanged"
            ));
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

/// Write constant `name` to `file` (created when missing).
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
        notice(&format!("Writing '{name}' to file '{file}'"));
        let mode = if std::path::Path::new(&file).exists() {
            Mode::ReadWrite
        } else {
            Mode::Truncate
        };
        let f = open(&file, mode, &object)?;
        let bytes: &[u8] = if d == 0 {
            &[]
        } else {
            // SAFETY: the caller's contract: dim values of type.
            unsafe { std::slice::from_raw_parts(const_data.cast(), d * elem.size()) }
        };
        f.write_const(&name, d, &ty, bytes).map_err(io(&object))
    })
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

fn write_all(f: &H5File, ds: &Dataset, elem: ElemType, data: &[u8], object: &str) -> Res<()> {
    f.write_rows(ds, 0..ds.rows(), elem, data)
        .map_err(io(object))
}

/// Write `dat` to dataset `path` of `file`: overwrite a matching dataset
/// (its size, dim and type attributes checked), else create it (and the file).
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

/// # Safety
/// As `op_fetch_data_hdf5`; a NULL path means the dat's name.
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
        notice(&format!("Writing '{path}' to file '{file}'"));
        // SAFETY: a live op_dat.
        let data = unsafe { fetch(dat, &object) }?;
        let rows = (data.len() / (dim * elem.size()).max(1)) as u64;
        let exists = std::path::Path::new(&file).exists();
        let f = open(
            &file,
            if exists {
                Mode::ReadWrite
            } else {
                Mode::Exclusive
            },
            &object,
        )?;
        let ds = if exists && f.exists(&path).map_err(io(&object))? {
            f.open_dat_for_update(&path, rows, dim, &ty)
        } else {
            f.create_dat(&path, rows, dim, &ty)
        }
        .map_err(io(&object))?;
        write_all(&f, &ds, elem, &data, &object)
    })
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

/// Write the dat declared with user pointer `data` to dataset `dat->name` of `file`.
///
/// # Safety
/// `file_name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_fetch_data_hdf5_file_ptr(data: *mut c_char, file_name: *const c_char) {
    // The most recent declaration wins: a dat read by op_decl_dat_hdf5 keeps
    // the address of a buffer freed since, which a later allocation may reuse.
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

mod dump;
pub use dump::op_dump_to_hdf5;
