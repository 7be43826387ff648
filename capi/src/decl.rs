//! Initialisation, declarations and finalisation.

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::globals::{self, *};
use crate::state::{c_str, lock_state, name_or, with_state, Life, State};
use op2_core::error::obj;
use op2_core::runtime::data::Storage;
use op2_core::runtime::{Opt, Runtime};
use op2_core::{Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::addr_of_mut;

fn print_out(s: &str) {
    crate::printf::cout(s)
}

/// Apply one command-line option the way OP2 does (the key anywhere in
/// the string); prints OP2's line for it.
fn apply_option(a: &str) {
    if let Some(o) = Opt::parse(a) {
        globals::apply(o);
        print_out(&o.message(globals::maps_base()));
    }
}

/// `op_init` and its variants, with an application communicator (a
/// Fortran handle, MPI_Fint; `op_mpi_init`) or none. Single-node libraries
/// ignore it.
pub(crate) fn init(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    comm: Option<c_int>,
) -> Result<()> {
    let mut life = lock_state();
    if matches!(*life, Life::Running(_)) {
        return Err(Op2Error::new(
            "",
            "",
            "op_init was already called (call op_exit first)",
        ));
    }
    // The distribution comes first: under MPI only the root prints.
    let parts = crate::compose::compose(comm).map_err(|e| {
        if e.call == "op_init" {
            Op2Error::new("", e.object, e.msg)
        } else {
            Op2Error::new("", "", e.to_string())
        }
    })?;
    crate::printf::set_enabled(parts.dist.rank() == 0);
    crate::boundary::set_abort(parts.dist.abort_handle());
    print_out("\n Initializing OP2\n");
    // SAFETY: plain globals on the API thread.
    unsafe { globals::set(addr_of_mut!(OP_diags), diags) };
    apply_env_options();
    crate::fallback::configure_from_env(print_out)?;
    apply_argv_options(argc, argv);
    globals::reset_all();
    let device = parts.device.clone();
    let rt = Runtime::new(parts, Box::new(print_out));
    if let Some(mem) = device {
        match rt.device_loops_name() {
            Some(loops) => print_out(&format!(
                "\n Using device: {} (op_par_loop through run-time generated code)\n",
                loops
            )),
            None => print_out(&format!("\n Using CUDA device: {}\n", mem.name())),
        }
        // SAFETY: plain int global on the API thread.
        unsafe { globals::set(addr_of_mut!(globals::OP_hybrid_gpu), 1) };
    }
    crate::profile::at_init();
    *life = Life::Running(Box::new(State {
        rt,
        h: Default::default(),
        c: Default::default(),
        sig: Vec::new(),
    }));
    Ok(())
}

/// Options OP2 also takes from the environment.
fn apply_env_options() {
    if std::env::var_os("OP_AUTO_SOA").is_some() || globals::config().auto_soa {
        globals::apply(Opt::AutoSoa);
        print_out("\n Enabling Automatic AoS->SoA Conversion\n");
    }
    if let Ok(v) = std::env::var("OP_HYBRID_BALANCE") {
        apply_option(&format!("OP_HYBRID_BALANCE={v}"));
    }
}

/// `OP_*` options on the command line.
fn apply_argv_options(argc: c_int, argv: *mut *mut c_char) {
    if argv.is_null() {
        return;
    }
    for i in 1..argc.max(0) as usize {
        // SAFETY: argv has argc entries (C's main contract).
        let p = unsafe { *argv.add(i) };
        if !p.is_null() {
            // SAFETY: as above: NUL-terminated arguments.
            apply_option(&unsafe { CStr::from_ptr(p) }.to_string_lossy());
        }
    }
}

/// `op_init` that also requests SoA layout on devices (no effect on CPUs).
///
/// # Safety
/// As for [`op_init`].
#[no_mangle]
pub unsafe extern "C" fn op_init_soa(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    soa: c_int,
) {
    c_api!("op_init_soa", {
        // SAFETY: a plain int global on the API thread.
        unsafe { globals::set(addr_of_mut!(OP_auto_soa), soa) };
        init(argc, argv, diags, None)
    })
}

/// # Safety
/// As for [`op_init`].
#[no_mangle]
pub unsafe extern "C" fn op_mpi_init_soa(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    global: c_int,
    _local: c_int,
    soa: c_int,
) {
    c_api!("op_mpi_init_soa", {
        // SAFETY: a plain int global on the API thread.
        unsafe { globals::set(addr_of_mut!(OP_auto_soa), soa) };
        init(argc, argv, diags, Some(global))
    })
}

/// Parse one option string (Fortran passes options one by one).
///
/// # Safety
/// `arg` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_set_args(_argc: c_int, arg: *mut c_char) {
    c_api!("op_set_args", {
        if !arg.is_null() {
            // SAFETY: the caller's contract.
            apply_option(&unsafe { CStr::from_ptr(arg) }.to_string_lossy());
        }
        Ok(())
    })
}

/// Set the base of map indices (1 for Fortran-style maps).
#[no_mangle]
pub extern "C" fn set_maps_base(base: c_int) {
    c_api!("set_maps_base", {
        // SAFETY: a plain int global on the API thread.
        unsafe { globals::set(addr_of_mut!(OP_maps_base_index), base) };
        Ok(())
    })
}

/// `op_exit`: exchanges in flight complete before their dats go; the
/// state is dropped (every set, map, dat and plan freed); the distribution
/// releases its communicator (MPI is finalised if op_init initialised it).
fn exit() -> Result<()> {
    if matches!(*lock_state(), Life::Running(_)) {
        crate::profile::at_exit().map_err(|e| e.context("op_exit"))?;
    }
    let mut life = lock_state();
    let st = match std::mem::replace(&mut *life, Life::Exited) {
        Life::Running(st) => st,
        other => {
            *life = other;
            return Ok(());
        }
    };
    let State { rt, mut c, .. } = *st;
    let (finished, dist) = rt.exit(&mut c);
    drop(c);
    crate::boundary::set_abort(None);
    globals::reset_all();
    finished
        .and(dist.finalize())
        .map_err(|e| e.context("op_exit"))
}

// ---- sets, maps, dats -------------------------------------------------------

/// # Safety
/// As for [`op_decl_set`].
unsafe fn decl_set(size: c_int, name: *const c_char) -> Result<op_set> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let name = unsafe { c_str("the set name", name) }?;
        let id = st.rt.dom_mut().decl_set(size as i64, &name)?;
        Ok(st.add_set(id))
    })
}

/// `op_decl_map` and its variants: `imap` holds `from.size * dim` entries.
///
/// # Safety
/// `imap` is NULL or holds `from->size * dim` ints; `name` is NULL or
/// NUL-terminated.
pub(crate) unsafe fn decl_map(
    call: &'static str,
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *const c_int,
    name: *const c_char,
) -> Result<op_map> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let name = unsafe { c_str("the map name", name) }?;
        let wrap = |e: Op2Error| Op2Error::new(call, obj("map", &name), e.msg);
        let f = st.h.set_id(from).map_err(|e| wrap(e).context("from-set"))?;
        let t = st.h.set_id(to).map_err(|e| wrap(e).context("to-set"))?;
        if dim <= 0 {
            return Err(wrap(Op2Error::new(
                "",
                "",
                format!("dimension {dim} must be positive"),
            )));
        }
        let n = st.rt.dom().set(f).size * dim as usize;
        if n != 0 && imap.is_null() {
            return Err(wrap(Op2Error::new("", "", "the map array is NULL")));
        }
        let mut vals = st.rt.dom().map_storage(call, f, dim, &name)?;
        if n != 0 {
            // SAFETY: OP2's contract: imap holds from->size * dim entries, and
            // map_storage reserved room for all of them.
            unsafe {
                std::ptr::copy_nonoverlapping(imap, vals.as_mut_ptr(), n);
                vals.set_len(n);
            }
        }
        let id = st
            .rt
            .decl_map(f, t, dim, vals, globals::maps_base(), &name)
            .map_err(|e| Op2Error::new(call, e.object, e.msg))?;
        st.add_map(call, id, imap)
    })
}

/// Declare a map given with 64-bit entries (each must fit a local index).
///
/// # Safety
/// As for [`decl_map`], with `long long` entries.
#[no_mangle]
pub unsafe extern "C" fn op_decl_map_long(
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *mut idx_g_t,
    name: *const c_char,
) -> op_map {
    c_api!(unsafe "op_decl_map_long", {
        let narrow = narrow_map(from, dim, imap, name)?;
        let p = if imap.is_null() {
            std::ptr::null()
        } else {
            narrow.as_ptr()
        };
        decl_map("op_decl_map_long", from, to, dim, p, name)
    })
}

/// The 32-bit copy of a 64-bit map (reserved like every map's storage: an
/// impossible size is a named error, not the allocator's abort).
///
/// # Safety
/// As for [`op_decl_map_long`].
unsafe fn narrow_map(
    from: op_set,
    dim: c_int,
    imap: *const idx_g_t,
    name: *const c_char,
) -> Result<Vec<c_int>> {
    if from.is_null() || dim <= 0 || imap.is_null() {
        return Ok(Vec::new());
    }
    match &*lock_state() {
        Life::Running(s) => {
            let f = s.h.set_id(from)?;
            let n = s.rt.dom().set(f).size * dim as usize;
            // SAFETY: the caller's contract: `imap` holds from->size * dim
            // entries; `name` is NULL or NUL-terminated.
            let (entries, label) =
                unsafe { (std::slice::from_raw_parts(imap, n), name_or(name, "")) };
            s.rt.dom()
                .narrow_map("op_decl_map_long", f, dim, entries, &label)
        }
        _ => Ok(Vec::new()),
    }
}

/// `op_decl_dat` and its variants.
///
/// # Safety
/// `data` is NULL or holds `set->size * dim` elements; strings are NULL or
/// NUL-terminated.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn decl_dat(
    call: &'static str,
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
    temp: bool,
) -> Result<op_dat> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let name = unsafe { c_str("the dat name", name) }?;
        let wrap = |e: Op2Error| Op2Error::new(call, obj("dat", &name), e.msg);
        // SAFETY: the caller's contract.
        let ty = unsafe { c_str("the type string", type_) }.map_err(wrap)?;
        let s = st.h.set_id(set).map_err(wrap)?;
        let storage = match (data.is_null(), temp, crate::overlay::no_realloc()) {
            (true, _, _) => Storage::Zeroed,
            (false, false, true) => Storage::InPlace(data as *mut u8),
            (false, _, _) => Storage::Copy(data as *const u8),
        };
        // SAFETY: the caller's contract (OP2's: data holds set->size elements).
        let (id, in_place) = unsafe {
            st.rt
                .decl_dat(call, s, dim, &ty, type_size, storage, &name, temp)
        }?;
        let p = st.add_dat(call, id, data as *mut c_void)?;
        if in_place {
            // OP2's `user_managed`: the program's array is the dat's storage.
            st.c.dat_c(id).user_managed = 1;
        }
        Ok(p)
    })
}

/// `op_free_dat_temp`: 1 on success, -1 (with a warning) if the handle is
/// not a live dat.
fn free_dat(dat: op_dat) -> Result<c_int> {
    with_state(|st| {
        let id = match st.h.dat_id(dat) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("OP2 warning in op_free_dat_temp: {} (nothing freed)", e.msg);
                return Ok(-1);
            }
        };
        st.rt.free_dat(&mut st.c, "op_free_dat_temp", id)?;
        st.forget_dat(id);
        Ok(1)
    })
}

/// # Safety
/// As for `op_decl_const_char`.
unsafe fn decl_const(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) -> Result<()> {
    // SAFETY: the caller's contract.
    let (n, ty) = unsafe {
        (
            name_or(name, "unnamed"),
            (!type_.is_null()).then(|| name_or(type_, "")),
        )
    };
    op2_core::arg::check_const(&n, dim, ty.as_deref(), type_size, !data.is_null())?;
    extern "C" {
        /// capi/src/weak_const.c: calls the program's `op_decl_const_char`
        /// when it defines one (generated CUDA code); 0 when it does not.
        fn op2_rs_forward_decl_const(
            dim: c_int,
            type_: *const c_char,
            type_size: c_int,
            data: *mut c_char,
            name: *const c_char,
        ) -> c_int;
    }
    // Only a CUDA library leaves op_decl_const_char to the program (the
    // others export it themselves: forwarding would call this again).
    if cfg!(op2_device) && globals::hybrid_gpu() {
        // SAFETY: the caller's arguments, checked above, passed on unchanged.
        unsafe { op2_rs_forward_decl_const(dim, type_, type_size, data, name) };
    }
    let bytes = (dim.max(0) as usize) * (type_size.max(0) as usize);
    // SAFETY: check_const saw a non-NULL pointer; the program's constant
    // holds `dim` values of `type_size` bytes (OP2's contract).
    let value = unsafe { std::slice::from_raw_parts(data as *const u8, bytes) }.to_vec();
    let c = op2_core::runtime::ConstDecl {
        name: if name.is_null() {
            String::new()
        } else {
            const_name(&n)
        },
        addr: data as usize,
        type_name: ty.map(|t| t.into_owned()).unwrap_or_default(),
        dim: dim.max(0) as usize,
        bytes: value,
    };
    // Device code reads the value given now (before op_init nothing runs
    // on a device yet: nothing to remember).
    let _ = with_state(|st| {
        st.rt.decl_const(c);
        Ok(())
    });
    Ok(())
}

/// The variable a constant's name text names: `&gam` (C's op_decl_const
/// passes the text of its argument), `( &qinf[0] )` -> `qinf`.
fn const_name(text: &str) -> String {
    let t = text
        .trim()
        .trim_start_matches(['(', '&', ' '])
        .trim_end_matches([')', ' ']);
    let t = t.split('[').next().unwrap_or(t).trim();
    t.strip_prefix('&').unwrap_or(t).trim().to_string()
}

/// Number of owned elements of a set (global total under MPI).
#[no_mangle]
pub extern "C" fn op_get_size(set: op_set) -> idx_g_t {
    c_api!(
        "op_get_size",
        with_state(|st| {
            let s = st.h.set_id(set)?;
            Ok(st.rt.global_size(s)?.0 as idx_g_t)
        })
    )
}

fn local_size(set: op_set, f: fn(&op2_core::Set) -> usize) -> Result<c_int> {
    with_state(|st| Ok(f(st.rt.dom().set(st.h.set_id(set)?)) as c_int))
}

/// Offset of this rank's first element in the global numbering (0 on one node).
#[no_mangle]
pub extern "C" fn op_get_global_set_offset(set: op_set) -> idx_g_t {
    c_api!(
        "op_get_global_set_offset",
        with_state(|st| {
            let s = st.h.set_id(set)?;
            Ok(st.rt.global_size(s)?.1 as idx_g_t)
        })
    )
}

/// size + exec + nonexec of the set named `name`.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_size_of_set(name: *const c_char) -> c_int {
    c_api!(
        "op_size_of_set",
        with_state(|st| {
            // SAFETY: the caller's contract.
            let n = unsafe { c_str("the set name", name) }?;
            st.rt
                .dom()
                .sets()
                .iter()
                .find(|s| s.name == n)
                .map(|s| s.total_size() as c_int)
                .ok_or_else(|| Op2Error::new("", obj("set", &n), "no set has this name"))
        })
    )
}

#[no_mangle]
pub extern "C" fn op_is_partitioned() -> c_int {
    // SAFETY: plain int global.
    c_api!("op_is_partitioned", Ok(globals::is_partitioned()))
}

/// `op_decl_dat` from the C/C++ headers: `actual` names the data pointer's
/// real element type (NULL if unknown), so a wrong type string is caught.
///
/// # Safety
/// As for [`decl_dat`]; `actual` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op2_decl_dat_checked(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
    actual: *const c_char,
) -> op_dat {
    c_api!(unsafe "op_decl_dat", {
        check_decl_type("dat", name, type_, actual)?;
        decl_dat("op_decl_dat", set, dim, type_, type_size, data, name, false)
    })
}

/// `op_decl_dat_temp` from the headers (type-checked like op2_decl_dat_checked).
///
/// # Safety
/// As for [`op2_decl_dat_checked`].
#[no_mangle]
pub unsafe extern "C" fn op2_decl_dat_temp_checked(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    name: *const c_char,
    actual: *const c_char,
) -> op_dat {
    c_api!(unsafe "op_decl_dat_temp", {
        check_decl_type("dat", name, type_, actual)?;
        decl_dat(
            "op_decl_dat_temp",
            set,
            dim,
            type_,
            type_size,
            std::ptr::null_mut(),
            name,
            true,
        )
    })
}

/// `op_decl_const` from the headers (the C macro passes the variable's name).
///
/// # Safety
/// As for `op_decl_const_char`; `actual` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op2_decl_const_checked(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
    actual: *const c_char,
) {
    c_api!(unsafe "op_decl_const", {
        check_decl_type("constant", name, type_, actual)?;
        decl_const(dim, type_, type_size, data, name)
    })
}

/// The type string of a declaration against the pointer's real element
/// type (`actual`; NULL: unknown), see [`op2_core::types::check_declared`].
///
/// # Safety
/// The strings are NULL or NUL-terminated.
pub(crate) unsafe fn check_decl_type(
    what: &str,
    name: *const c_char,
    declared: *const c_char,
    actual: *const c_char,
) -> Result<()> {
    if declared.is_null() || actual.is_null() {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    let (n, d, a) = unsafe {
        (
            name_or(name, ""),
            name_or(declared, ""),
            name_or(actual, ""),
        )
    };
    op2_core::types::check_declared(what, (!name.is_null()).then_some(&*n), &d, &a)
}

exports! {
    /// OP2's core initialiser: [`op_init`].
    op_init_core(argc: c_int, argv: *mut *mut c_char, diags: c_int) = "op_init_core" => { op_init(argc, argv, diags); Ok(()) };
    /// [`op_exit`].
    op_exit_core() = "op_exit_core" => { op_exit(); Ok(()) };
    /// [`op_decl_set`].
    op_decl_set_core(size: c_int, name: *const c_char) -> op_set = "op_decl_set_core" => Ok(op_decl_set(size, name));
    /// [`op_decl_map`].
    op_decl_map_core(from: op_set, to: op_set, dim: c_int, imap: *mut idx_l_t, name: *const c_char) -> op_map = "op_decl_map_core" => Ok(op_decl_map(from, to, dim, imap, name));
    /// [`op_decl_dat_char`].
    op_decl_dat_core(set: op_set, dim: c_int, type_: *const c_char, type_size: c_int, data: *mut c_char, name: *const c_char) -> op_dat = "op_decl_dat_core" => Ok(op_decl_dat_char(set, dim, type_, type_size, data, name));
    /// [`op_free_dat_temp_char`].
    op_free_dat_temp_core(dat: op_dat) -> c_int = "op_free_dat_temp_core" => Ok(op_free_dat_temp_char(dat));
    /// Initialise OP2: parse `OP_*` options from argv, set the diagnostics level.
    op_init(argc: c_int, argv: *mut *mut c_char, diags: c_int) = "op_init" => init(argc, argv, diags, None);
    /// op_init on the application's communicator `global` (a Fortran handle,
    /// MPI_Fint; MPI must be initialised). Single-node libraries ignore it.
    op_mpi_init(argc: c_int, argv: *mut *mut c_char, diags: c_int, global: c_int, _local: c_int) = "op_mpi_init" => init(argc, argv, diags, Some(global));
    /// Free everything OP2 allocated. Later API calls (except a new op_init) are errors.
    op_exit() = "op_exit" => exit();
    /// Free run-time support data (plans); op_exit does it too.
    op_rt_exit() = "op_rt_exit" => Ok(());
    /// Declare a set of `size` elements.
    op_decl_set(size: idx_l_t, name: *const c_char) -> op_set = "op_decl_set" => decl_set(size, name);
    /// Declare a map from `from` to `to` with `dim` entries per element (copied).
    op_decl_map(from: op_set, to: op_set, dim: c_int, imap: *mut idx_l_t, name: *const c_char) -> op_map = "op_decl_map" => decl_map("op_decl_map", from, to, dim, imap, name);
    /// Declare data on a set (`dim` values of `type` per element, copied).
    op_decl_dat_char(set: op_set, dim: c_int, type_: *const c_char, type_size: c_int, data: *mut c_char, name: *const c_char) -> op_dat = "op_decl_dat" => decl_dat("op_decl_dat", set, dim, type_, type_size, data, name, false);
    /// Free a temporary dat: 1 on success, -1 if the handle is not a live dat.
    op_free_dat_temp_char(dat: op_dat) -> c_int = "op_free_dat_temp" => free_dat(dat);
    /// Declare a global constant. Kernels on the host read the application's
    /// own variable, so nothing is copied; the declaration is checked. The CUDA
    /// libraries leave `op_decl_const_char` to the code OP2's translator
    /// generates (it copies each constant to the device): there the checked
    /// declaration is forwarded to it.
    #[cfg(not(op2_device))]
    op_decl_const_char(dim: c_int, type_: *const c_char, type_size: c_int, data: *mut c_char, name: *const c_char) = "op_decl_const" => decl_const(dim, type_, type_size, data, name);
    op_decl_const_core(dim: c_int, type_: *const c_char, type_size: c_int, data: *mut c_char, name: *const c_char) = "op_decl_const" => decl_const(dim, type_, type_size, data, name);
    op_get_size_local(set: op_set) -> c_int = "op_get_size_local" => local_size(set, |s| s.size);
    op_get_size_local_core(set: op_set) -> c_int = "op_get_size_local_core" => local_size(set, |s| s.core_size);
    op_get_size_local_exec(set: op_set) -> c_int = "op_get_size_local_exec" => local_size(set, |s| s.size + s.exec_size);
    op_get_size_local_full(set: op_set) -> c_int = "op_get_size_local_full" => local_size(set, |s| s.total_size());
    /// Declare a zero-initialised temporary dat (free it with op_free_dat_temp).
    op_decl_dat_temp_char(set: op_set, dim: c_int, type_: *const c_char, type_size: c_int, name: *const c_char) -> op_dat = "op_decl_dat_temp" => decl_dat("op_decl_dat_temp", set, dim, type_, type_size, std::ptr::null_mut(), name, true);
    op_decl_dat_temp_core(set: op_set, dim: c_int, type_: *const c_char, type_size: c_int, data: *mut c_char, name: *const c_char) -> op_dat = "op_decl_dat_temp" => decl_dat("op_decl_dat_temp", set, dim, type_, type_size, data, name, true);
    /// Look up a map by the array given to op_decl_map.
    op_search_map_ptr(ptr: *const c_int) -> op_map = "op_search_map_ptr" => with_state(|st| Ok(st .map_by_orig_ptr(ptr) .map_or(std::ptr::null_mut(), |m| st.c.map_ptr(m))));
}
