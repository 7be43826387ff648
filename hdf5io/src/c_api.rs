//! OP2's HDF5 C API (`op_hdf5.h`) once, for both C libraries: libop2_hdf5
//! (serial) and the MPI library's HDF5 part. What differs between them (how
//! a file is opened, how rows are distributed, who prints notices, how a
//! dat's rows are gathered for `op_fetch_data_hdf5*`, how a dat is dumped) is
//! a [`Ctx`], implemented by each library; each library's `extern "C"`
//! functions are shims: the library's guard around a function here.
//!
//! Every function here returns a [`Res`]; the caller's guard reports its
//! error under the OP2 call's name.

use crate::c_guard::{arg, fail, Res};
use crate::c_util::{
    c_string, dat_list, dat_type, decl_set, io, name_of, non_negative, reading, set_size,
};
use crate::layout::elem_of;
use crate::op2_c::{self as ffi, op_dat, op_map, op_set};
use crate::{ElemType, H5File, MapData, Mode, RowDist};
use std::ffi::{c_char, c_int};
use std::ops::Range;

/// What one library does its own way, for one API call.
pub trait Ctx: Sized {
    /// The mode `op_fetch_data_hdf5*` creates a missing file with.
    const FETCH_CREATE: Mode;
    /// Whether `op_dump_to_hdf5` leaves out maps of dim 0 or no rows.
    const DUMP_SKIPS_EMPTY_MAPS: bool;

    /// The context of one call about `object`.
    fn new(object: &str) -> Res<Self>;
    /// Open `path` in `mode`.
    fn open(&self, path: &str, mode: Mode, object: &str) -> Res<H5File>;
    /// Open `path` for writing: read-write when it exists, else created
    /// with `create`; and whether it existed.
    fn open_for_writing(&self, path: &str, create: Mode, object: &str) -> Res<(H5File, bool)>;
    /// How a set's rows are distributed over the processes.
    fn dist(&self) -> &dyn RowDist;
    /// Print a notice line.
    fn notice(&self, line: &str);
    /// Whether this process prints progress lines (under MPI: rank 0
    /// only, as notices).
    fn shows_progress(&self) -> bool {
        true
    }
    /// This process's rows of a set held as `local` rows per process in
    /// process order, and the total.
    fn my_rows(&self, local: u64, object: &str) -> Res<(Range<u64>, u64)>;
    /// The dat's total rows in its original order, this process's rows of
    /// them to write, and their values.
    ///
    /// # Safety
    /// `dat` is a live op_dat of the linked OP2 library.
    unsafe fn fetch_rows(
        &self,
        dat: op_dat,
        dim: usize,
        elem: ElemType,
        object: &str,
    ) -> Res<(u64, Range<u64>, Vec<u8>)>;
    /// Write `dat` to `f` for `op_dump_to_hdf5`.
    ///
    /// # Safety
    /// `dat` is a live op_dat of the linked OP2 library.
    unsafe fn dump_dat(&self, f: &H5File, dat: op_dat) -> Res<()>;
}

/// `op_decl_set_hdf5`.
///
/// # Safety
/// `file` and `name` are NUL-terminated strings.
pub unsafe fn decl_set_hdf5<C: Ctx>(file: *const c_char, name: *const c_char) -> Res<op_set> {
    // SAFETY: the caller's contract.
    unsafe { decl_set_from::<C>(file, name, None) }
}

/// `op_decl_set_hdf5_infer_size`.
///
/// # Safety
/// The arguments are NUL-terminated strings.
pub unsafe fn decl_set_hdf5_infer_size<C: Ctx>(
    file: *const c_char,
    name: *const c_char,
    set_dataset_name: *const c_char,
) -> Res<op_set> {
    // SAFETY: the caller's contract.
    unsafe { decl_set_from::<C>(file, name, Some(set_dataset_name)) }
}

/// Declare set `name` sized by dataset `name` (an integer), or by the first
/// extent of `set_dataset_name` when given.
///
/// # Safety
/// The strings are NULL or NUL-terminated.
unsafe fn decl_set_from<C: Ctx>(
    file: *const c_char,
    name: *const c_char,
    set_dataset_name: Option<*const c_char>,
) -> Res<op_set> {
    // SAFETY: the caller's contract.
    let name = unsafe { arg(name, "the set name", "") }?;
    let object = format!("set \"{name}\"");
    // SAFETY: the caller's contract.
    let file = unsafe { arg(file, "the file name", &object) }?;
    let ds = match set_dataset_name {
        // SAFETY: the caller's contract.
        Some(p) => Some(unsafe { arg(p, "the dataset name", &object) }?),
        None => None,
    };
    let c = C::new(&object)?;
    let f = c.open(&file, Mode::Read, &object)?;
    let rows = match ds {
        Some(ds) => f.infer_set_size(&ds, c.dist()),
        None => f.read_set_size(&name, c.dist()),
    }
    .map_err(io(&object))?;
    decl_set(rows, &name, &object)
}

/// `op_decl_map_hdf5`: NULL (with a notice) when the file has no such
/// dataset, as OP2.
///
/// # Safety
/// `from`/`to` are op_sets of the linked OP2 library; strings NUL-terminated.
pub unsafe fn decl_map_hdf5<C: Ctx>(
    from: op_set,
    to: op_set,
    dim: c_int,
    file: *const c_char,
    name: *const c_char,
) -> Res<op_map> {
    // SAFETY: the caller's contract.
    let name = unsafe { arg(name, "the map name", "") }?;
    let object = format!("map \"{name}\"");
    // SAFETY: the caller's contract.
    let file = unsafe { arg(file, "the file name", &object) }?;
    // SAFETY: the caller's contract.
    let local = unsafe { set_size(from, "the from-set", &object) }?;
    if to.is_null() {
        return Err(fail(&object, "the to-set is NULL"));
    }
    let d = non_negative(dim, "dim", &object)?;
    let c = C::new(&object)?;
    let f = c.open(&file, Mode::Read, &object)?;
    let cname = c_string(&name, &object)?;
    let progress = reading(&object, &file, c.shows_progress());
    let read = f.read_map(&name, d, local, c.dist()).map_err(io(&object))?;
    progress.done();
    match read {
        None => {
            c.notice(&format!(
                "op_decl_map_hdf5: map \"{name}\" not found in file \"{file}\" (no dataset \"{name}\"): returning NULL"
            ));
            Ok(std::ptr::null_mut())
        }
        Some(MapData::Int(mut v)) => {
            // SAFETY: v holds from->size * dim entries; OP2 copies them.
            Ok(unsafe { ffi::op_decl_map(from, to, dim, v.as_mut_ptr(), cname.as_ptr()) })
        }
        Some(MapData::Long(mut v)) => {
            // SAFETY: as above, 64-bit entries.
            Ok(unsafe { ffi::op_decl_map_long(from, to, dim, v.as_mut_ptr(), cname.as_ptr()) })
        }
    }
}

/// `op_decl_dat_hdf5`: converted with a notice when stored as another
/// type; NULL (with a notice) when the file has no such dataset, as OP2.
///
/// # Safety
/// `set` is an op_set of the linked OP2 library; strings NUL-terminated.
pub unsafe fn decl_dat_hdf5<C: Ctx>(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    file: *const c_char,
    name: *const c_char,
) -> Res<op_dat> {
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
    let c = C::new(&object)?;
    let f = c.open(&file, Mode::Read, &object)?;
    let mut warn = |m: String| c.notice(&format!("op_decl_dat_hdf5: {m}"));
    let progress = reading(&object, &file, c.shows_progress());
    let data = f
        .read_dat(&name, d, &ty, local, c.dist(), &mut warn)
        .map_err(io(&object))?;
    progress.done();
    let Some(mut data) = data else {
        c.notice(&format!(
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
}

/// A constant's name, object, file name, type string and dim, checked.
///
/// # Safety
/// The strings are NULL or NUL-terminated.
unsafe fn const_args(
    name: *const c_char,
    dim: c_int,
    type_: *const c_char,
    file_name: *const c_char,
) -> Res<(String, String, String, String, usize)> {
    // SAFETY: the caller's contract.
    let name = unsafe { arg(name, "the constant name", "") }?;
    let object = format!("constant \"{name}\"");
    // SAFETY: the caller's contract.
    let file = unsafe { arg(file_name, "the file name", &object) }?;
    // SAFETY: the caller's contract.
    let ty = unsafe { arg(type_, "the type string", &object) }?;
    let d = non_negative(dim, "dim", &object)?;
    Ok((name, object, file, ty, d))
}

/// `op_get_const_hdf5`: read constant `name` into `const_data`.
///
/// # Safety
/// `const_data` holds `dim` values of `type`; strings NUL-terminated.
pub unsafe fn get_const_hdf5<C: Ctx>(
    name: *const c_char,
    dim: c_int,
    type_: *const c_char,
    const_data: *mut c_char,
    file_name: *const c_char,
) -> Res<()> {
    // SAFETY: the caller's contract.
    let (name, object, file, ty, d) = unsafe { const_args(name, dim, type_, file_name) }?;
    let c = C::new(&object)?;
    let f = c.open(&file, Mode::Read, &object)?;
    let mut warn = |m: String| c.notice(&format!("op_get_const_hdf5: {m}"));
    let data = f
        .read_const(&name, d, &ty, &mut warn)
        .map_err(io(&object))?;
    let Some(data) = data else {
        c.notice(&format!(
            "op_get_const_hdf5: constant \"{name}\" not found in file \"{file}\": left unchanged"
        ));
        return Ok(());
    };
    if const_data.is_null() && !data.is_empty() {
        return Err(fail(&object, "the destination pointer is NULL"));
    }
    // SAFETY: the caller's contract: const_data holds dim values of type.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), const_data.cast(), data.len()) };
    Ok(())
}

/// `op_write_const_hdf5`: write constant `name` to `file` (created when missing).
///
/// # Safety
/// `const_data` holds `dim` values of `type`; strings NUL-terminated.
pub unsafe fn write_const_hdf5<C: Ctx>(
    name: *const c_char,
    dim: c_int,
    type_: *const c_char,
    const_data: *mut c_char,
    file_name: *const c_char,
) -> Res<()> {
    // SAFETY: the caller's contract.
    let (name, object, file, ty, d) = unsafe { const_args(name, dim, type_, file_name) }?;
    let elem = elem_of(&ty).map_err(io(&object))?;
    if const_data.is_null() && d > 0 {
        return Err(fail(&object, "the data pointer is NULL"));
    }
    let c = C::new(&object)?;
    c.notice(&format!("Writing '{name}' to file '{file}'"));
    let (f, _) = c.open_for_writing(&file, Mode::Truncate, &object)?;
    let bytes: &[u8] = if d == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract: dim values of type.
        unsafe { std::slice::from_raw_parts(const_data.cast(), d * elem.size()) }
    };
    f.write_const(&name, d, &ty, bytes).map_err(io(&object))
}

/// `op_fetch_data_hdf5*`: write `dat` to dataset `path` of `file`
/// (a NULL path means the dat's name): overwrite a matching dataset (its
/// size, dim and type attributes checked), else create it (and the file).
///
/// # Safety
/// `dat` is NULL or a live op_dat; strings NUL-terminated.
pub unsafe fn fetch_data_hdf5<C: Ctx>(
    dat: op_dat,
    file: *const c_char,
    path: *const c_char,
) -> Res<()> {
    if dat.is_null() {
        return Err(fail("", "the dat is NULL"));
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
    let c = C::new(&object)?;
    c.notice(&format!("Writing '{path}' to file '{file}'"));
    // SAFETY: a live op_dat.
    let (global, rows, data) = unsafe { c.fetch_rows(dat, dim, elem, &object) }?;
    let (f, existed) = c.open_for_writing(&file, C::FETCH_CREATE, &object)?;
    let ds = if existed && f.exists(&path).map_err(io(&object))? {
        f.open_dat_for_update(&path, global, dim, &ty)
    } else {
        f.create_dat(&path, global, dim, &ty)
    }
    .map_err(io(&object))?;
    f.write_rows(&ds, rows, elem, &data).map_err(io(&object))
}

/// `op_fetch_data_hdf5_file_ptr`: write the dat declared (by this process)
/// with user pointer `data` to dataset `dat->name` of `file`.
///
/// # Safety
/// `file_name` is NUL-terminated.
pub unsafe fn fetch_data_hdf5_file_ptr<C: Ctx>(
    data: *mut c_char,
    file_name: *const c_char,
) -> Res<()> {
    // The most recent declaration wins: a dat read by op_decl_dat_hdf5 keeps
    // the address of a buffer freed since, which a later allocation may reuse.
    let found = dat_list()
        .into_iter()
        .rev()
        .find(|&(_, p)| std::ptr::eq(p.cast::<c_char>(), data));
    match found {
        // SAFETY: the caller's contract; a live dat.
        Some((dat, _)) => unsafe { fetch_data_hdf5::<C>(dat, file_name, std::ptr::null()) },
        None => Err(fail(
            "",
            format!("no dat was declared with data pointer {data:p}"),
        )),
    }
}

/// `op_dump_to_hdf5`: every set (its global size), map and dat to
/// `file_name`, replacing the file.
///
/// # Safety
/// `file_name` is NUL-terminated; called on the application's thread.
pub unsafe fn dump_to_hdf5<C: Ctx>(file_name: *const c_char) -> Res<()> {
    // SAFETY: the caller's contract.
    let file = unsafe { arg(file_name, "the file name", "") }?;
    let object = format!("file \"{file}\"");
    let c = C::new(&object)?;
    c.notice(&format!("Writing to {file}"));
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
        let (_, global) = c.my_rows(local, &object)?;
        f.write_set(&name, global).map_err(io(&object))?;
    }
    for map in maps {
        // SAFETY: a live map of the OP2 library.
        unsafe { dump_map(&c, &f, map) }?;
    }
    for (dat, _) in dat_list() {
        // SAFETY: a live dat of the OP2 library.
        unsafe { c.dump_dat(&f, dat) }?;
    }
    Ok(())
}

/// A map as held, each process's rows after the lower processes'.
///
/// # Safety
/// `map` is a live map of the OP2 library.
unsafe fn dump_map<C: Ctx>(c: &C, f: &H5File, map: op_map) -> Res<()> {
    // SAFETY: a live map mirror.
    let (name, from, dim, values) =
        unsafe { (name_of((*map).name), (*map).from, (*map).dim, (*map).map) };
    let object = format!("map \"{name}\"");
    // SAFETY: a live set.
    let local = unsafe { set_size(from, "the from-set", &object) }?;
    let d = non_negative(dim, "dim", &object)?;
    let (rows, global) = c.my_rows(local, &object)?;
    if C::DUMP_SKIPS_EMPTY_MAPS && (d == 0 || global == 0) {
        return Ok(());
    }
    let n = local as usize * d;
    if values.is_null() && n > 0 {
        return Err(fail(&object, "the map has no values"));
    }
    let bytes: &[u8] = if n == 0 {
        &[]
    } else {
        // SAFETY: the map holds from->size * dim ints.
        unsafe { std::slice::from_raw_parts(values.cast(), n * 4) }
    };
    let ds = f.create_map(&name, global, d, false).map_err(io(&object))?;
    f.write_rows(&ds, rows, ElemType::Int, bytes)
        .map_err(io(&object))
}

/// The `extern "C"` entry points of `op_hdf5.h` for a library: each body
/// is one `op2_core::boundary::enter(<call>, stop, || <the function of this
/// module for context ctx>)`, the error boundary of every op2-rs library.
/// `$ctx` is the library's [`Ctx`]; `$stop` its
/// `fn stop(e: &Op2Error) -> !` ([`op2_core::boundary::Stop`]).
#[macro_export]
macro_rules! op_hdf5_c_api {
    ($ctx:ty, $stop:path) => {
        /// Declare (this process's rows of) the set whose size is the integer
        /// in dataset `name` of `file`.
        ///
        /// # Safety
        /// `file` and `name` are NUL-terminated strings.
        #[no_mangle]
        pub unsafe extern "C" fn op_decl_set_hdf5(
            file: *const ::std::ffi::c_char,
            name: *const ::std::ffi::c_char,
        ) -> $crate::op2_c::op_set {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_decl_set_hdf5", $stop, || unsafe {
                $crate::c_api::decl_set_hdf5::<$ctx>(file, name)
            })
        }

        /// Declare (this process's rows of) a set sized by the first extent
        /// of dataset `set_dataset_name`.
        ///
        /// # Safety
        /// The arguments are NUL-terminated strings.
        #[no_mangle]
        pub unsafe extern "C" fn op_decl_set_hdf5_infer_size(
            file: *const ::std::ffi::c_char,
            name: *const ::std::ffi::c_char,
            set_dataset_name: *const ::std::ffi::c_char,
        ) -> $crate::op2_c::op_set {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_decl_set_hdf5_infer_size", $stop, || unsafe {
                $crate::c_api::decl_set_hdf5_infer_size::<$ctx>(file, name, set_dataset_name)
            })
        }

        /// Declare map `name` from (this process's rows of) dataset `name`
        /// of `file`; NULL (with a notice) when the file has no such
        /// dataset, as OP2.
        ///
        /// # Safety
        /// `from`/`to` are op_sets of the OP2 library; strings NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_decl_map_hdf5(
            from: $crate::op2_c::op_set,
            to: $crate::op2_c::op_set,
            dim: ::std::ffi::c_int,
            file: *const ::std::ffi::c_char,
            name: *const ::std::ffi::c_char,
        ) -> $crate::op2_c::op_map {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_decl_map_hdf5", $stop, || unsafe {
                $crate::c_api::decl_map_hdf5::<$ctx>(from, to, dim, file, name)
            })
        }

        /// Declare dat `name` of `type` from (this process's rows of)
        /// dataset `name` of `file` (converted with a notice when stored as
        /// another type); NULL (with a notice) when the file has no such
        /// dataset, as OP2.
        ///
        /// # Safety
        /// `set` is an op_set of the OP2 library; strings NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_decl_dat_hdf5(
            set: $crate::op2_c::op_set,
            dim: ::std::ffi::c_int,
            type_: *const ::std::ffi::c_char,
            file: *const ::std::ffi::c_char,
            name: *const ::std::ffi::c_char,
        ) -> $crate::op2_c::op_dat {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_decl_dat_hdf5", $stop, || unsafe {
                $crate::c_api::decl_dat_hdf5::<$ctx>(set, dim, type_, file, name)
            })
        }

        /// Read constant `name` (`dim` values of `type`) from `file` into
        /// `const_data` (on every process).
        ///
        /// # Safety
        /// `const_data` holds `dim` values of `type`; strings NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_get_const_hdf5(
            name: *const ::std::ffi::c_char,
            dim: ::std::ffi::c_int,
            type_: *const ::std::ffi::c_char,
            const_data: *mut ::std::ffi::c_char,
            file_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_get_const_hdf5", $stop, || unsafe {
                $crate::c_api::get_const_hdf5::<$ctx>(name, dim, type_, const_data, file_name)
            })
        }

        /// Write constant `name` to `file` (created when missing).
        ///
        /// # Safety
        /// `const_data` holds `dim` values of `type`; strings NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_write_const_hdf5(
            name: *const ::std::ffi::c_char,
            dim: ::std::ffi::c_int,
            type_: *const ::std::ffi::c_char,
            const_data: *mut ::std::ffi::c_char,
            file_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_write_const_hdf5", $stop, || unsafe {
                $crate::c_api::write_const_hdf5::<$ctx>(name, dim, type_, const_data, file_name)
            })
        }

        /// Write `dat` (in its original order) to dataset `path_name` of
        /// `file`: overwrite a matching dataset (its size, dim and type
        /// attributes checked), else create it (and the file).
        ///
        /// # Safety
        /// `dat` is NULL or a live op_dat; strings NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_fetch_data_hdf5(
            dat: $crate::op2_c::op_dat,
            file_name: *const ::std::ffi::c_char,
            path_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_fetch_data_hdf5", $stop, || unsafe {
                $crate::c_api::fetch_data_hdf5::<$ctx>(dat, file_name, path_name)
            })
        }

        /// Write `dat` to dataset `dat->name` of `file`.
        ///
        /// # Safety
        /// As `op_fetch_data_hdf5`.
        #[no_mangle]
        pub unsafe extern "C" fn op_fetch_data_hdf5_file(
            dat: $crate::op2_c::op_dat,
            file_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_fetch_data_hdf5_file", $stop, || unsafe {
                $crate::c_api::fetch_data_hdf5::<$ctx>(dat, file_name, ::std::ptr::null())
            })
        }

        /// Write `dat` to dataset `path_name` of `file`.
        ///
        /// # Safety
        /// As `op_fetch_data_hdf5`.
        #[no_mangle]
        pub unsafe extern "C" fn op_fetch_data_hdf5_file_path(
            dat: $crate::op2_c::op_dat,
            file_name: *const ::std::ffi::c_char,
            path_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_fetch_data_hdf5_file_path", $stop, || unsafe {
                $crate::c_api::fetch_data_hdf5::<$ctx>(dat, file_name, path_name)
            })
        }

        /// Write the dat declared (by this process) with user pointer `data`
        /// to dataset `dat->name` of `file`.
        ///
        /// # Safety
        /// `file_name` is NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn op_fetch_data_hdf5_file_ptr(
            data: *mut ::std::ffi::c_char,
            file_name: *const ::std::ffi::c_char,
        ) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_fetch_data_hdf5_file_ptr", $stop, || unsafe {
                $crate::c_api::fetch_data_hdf5_file_ptr::<$ctx>(data, file_name)
            })
        }

        /// Write every set (its global size), map and dat to `file_name`,
        /// replacing the file.
        ///
        /// # Safety
        /// `file_name` is NUL-terminated; called on the application's thread.
        #[no_mangle]
        pub unsafe extern "C" fn op_dump_to_hdf5(file_name: *const ::std::ffi::c_char) {
            // SAFETY: the caller's contract.
            $crate::op2_core::boundary::enter("op_dump_to_hdf5", $stop, || unsafe {
                $crate::c_api::dump_to_hdf5::<$ctx>(file_name)
            })
        }
    };
}
