//! Initialisation, declarations and finalisation.

use crate::ffi::*;
use crate::globals::{self, *};
use crate::guard::{checked, guard};
use crate::state::{c_str, lock_state, with_state, Life, State};
use op2_core::error::obj;
use op2_core::Op2Error;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::{addr_of, addr_of_mut};

/// Apply one command-line option the way OP2 does (substring match anywhere
/// in the string). Returns the message OP2 prints for it, if any.
pub fn apply_option(a: &str) -> Option<String> {
    fn int_after(a: &str, key: &str) -> Option<c_int> {
        let i = a.find(key)? + key.len();
        let digits: String = a[i..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        digits.parse().ok()
    }
    // Integer options: (key, global, label in OP2's message).
    let int_options: [(&str, *mut c_int, &str); 5] = [
        (
            "OP_BLOCK_SIZE=",
            addr_of_mut!(OP_block_size),
            "OP_block_size = ",
        ),
        (
            "OP_PART_SIZE=",
            addr_of_mut!(OP_part_size),
            "OP_part_size = ",
        ),
        (
            "OP_CACHE_LINE_SIZE=",
            addr_of_mut!(OP_cache_line_size),
            "OP_cache_line_size  = ",
        ),
        (
            "OP_TEST_FREQ=",
            addr_of_mut!(OP_mpi_test_frequency),
            "OP_mpi_test_frequency  = ",
        ),
        (
            "OP_CUDA_REDUCTIONS_MIB=",
            addr_of_mut!(OP_cuda_reductions_mib),
            "OP_cuda_reductions_mib  = ",
        ),
    ];
    for (key, global, label) in int_options {
        if let Some(v) = int_after(a, key) {
            // SAFETY: a plain int global, written on the API thread.
            unsafe { globals::set(global, v) };
            return Some(format!("\n {label}{v} \n"));
        }
    }
    // SAFETY (all blocks below): plain int/double globals, written on the API thread.
    if let Some(v) = int_after(a, "OP_MAPS_BASE_INDEX=") {
        if v == 0 || v == 1 {
            unsafe { globals::set(addr_of_mut!(OP_maps_base_index), v) };
            return Some(format!(
                "\n OP_maps_base_index = {v} (overriding the default)\n"
            ));
        }
        return Some(format!(
            "\n OP_MAPS_BASE_INDEX = {v} is not supported (only 0 or 1); keeping {}\n",
            globals::maps_base()
        ));
    }
    if let Some(i) = a.find("OP_HYBRID_BALANCE=") {
        if let Ok(v) = a[i + 18..].trim().parse::<f64>() {
            unsafe { std::ptr::write_volatile(addr_of_mut!(OP_hybrid_balance), v) };
            return Some(format!("\n OP_hybrid_balance  = {v} \n"));
        }
    }
    if a.contains("-gpudirect") {
        unsafe { globals::set(addr_of_mut!(OP_gpu_direct), 1) };
        return Some("\n Enabling GPU Direct\n".into());
    }
    if a.contains("OP_AUTO_SOA") {
        unsafe { globals::set(addr_of_mut!(OP_auto_soa), 1) };
        return Some("\n Enabling Automatic AoS->SoA Conversion\n".into());
    }
    if a.contains("OP_PARTIAL_EXCHANGE") {
        unsafe { globals::set(addr_of_mut!(OP_partial_exchange), 1) };
        return Some("\n Enabling partial MPI halo exchanges\n".into());
    }
    if a.contains("OP_NO_REALLOC") {
        // SAFETY: plain int global, API thread (before any declaration).
        unsafe { globals::set(addr_of_mut!(globals::OP_realloc), 0) };
        return Some("\n Disable user memory reallocation/internal copy\n".into());
    }
    None
}

fn print_out(s: &str) {
    crate::printf::cout(s)
}

pub(crate) fn init_impl(argc: c_int, argv: *mut *mut c_char, diags: c_int, call: &'static str) {
    init_with_comm(argc, argv, diags, call, None)
}

/// `init_impl` with an application communicator (a Fortran handle, MPI_Fint;
/// `op_mpi_init`). Single-node libraries ignore it.
pub(crate) fn init_with_comm(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    call: &'static str,
    comm: Option<c_int>,
) {
    checked(call, || {
        let mut life = lock_state();
        if matches!(*life, Life::Running(_)) {
            return Err(Op2Error::new(
                call,
                "",
                "op_init was already called (call op_exit first)",
            ));
        }
        // The distribution comes first: under MPI only the root prints.
        let parts = crate::compose::compose(comm).map_err(|e| {
            if e.call == "op_init" {
                Op2Error::new(call, e.object, e.msg)
            } else {
                Op2Error::new(call, "", e.to_string())
            }
        })?;
        crate::printf::set_enabled(parts.dist.rank() == 0);
        crate::guard::set_abort(parts.dist.abort_handle());
        print_out("\n Initializing OP2\n");
        // SAFETY: plain globals on the API thread.
        unsafe { globals::set(addr_of_mut!(OP_diags), diags) };
        apply_env_options();
        crate::fallback::configure_from_env(call, print_out)?;
        apply_argv_options(argc, argv);
        let mut st = Box::new(State::new(parts.exec, parts.dist));
        if let Some(mem) = parts.device {
            print_out(&format!("\n Using CUDA device: {}\n", mem.name()));
            st.device = Some(crate::device_copies::Device::new(mem));
            // SAFETY: plain int global on the API thread.
            unsafe { globals::set(addr_of_mut!(globals::OP_hybrid_gpu), 1) };
        }
        *life = Life::Running(st);
        Ok(())
    })
}

/// Options OP2 also takes from the environment.
fn apply_env_options() {
    // SAFETY: plain int globals on the API thread.
    if std::env::var_os("OP_AUTO_SOA").is_some()
        || unsafe { globals::get(addr_of!(OP_auto_soa)) } != 0
    {
        unsafe { globals::set(addr_of_mut!(OP_auto_soa), 1) };
        print_out("\n Enabling Automatic AoS->SoA Conversion\n");
    }
    if let Ok(v) = std::env::var("OP_HYBRID_BALANCE") {
        if let Some(m) = apply_option(&format!("OP_HYBRID_BALANCE={v}")) {
            print_out(&m);
        }
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
        if p.is_null() {
            continue;
        }
        let a = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        if let Some(m) = apply_option(&a) {
            print_out(&m);
        }
    }
}

/// Initialise OP2: parse `OP_*` options from argv, set the diagnostics level.
#[no_mangle]
pub unsafe extern "C" fn op_init(argc: c_int, argv: *mut *mut c_char, diags: c_int) {
    init_impl(argc, argv, diags, "op_init")
}

/// `op_init` that also requests SoA layout on devices (no effect on CPUs).
#[no_mangle]
pub unsafe extern "C" fn op_init_soa(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    soa: c_int,
) {
    globals::set(addr_of_mut!(OP_auto_soa), soa);
    init_impl(argc, argv, diags, "op_init_soa")
}

/// OP2's core initialiser (same as op_init here).
#[no_mangle]
pub unsafe extern "C" fn op_init_core(argc: c_int, argv: *mut *mut c_char, diags: c_int) {
    init_impl(argc, argv, diags, "op_init_core")
}

/// op_init on the application's communicator `global` (a Fortran handle,
/// MPI_Fint; MPI must be initialised). Single-node libraries ignore it.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_init(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    global: c_int,
    _local: c_int,
) {
    init_with_comm(argc, argv, diags, "op_mpi_init", Some(global))
}

#[no_mangle]
pub unsafe extern "C" fn op_mpi_init_soa(
    argc: c_int,
    argv: *mut *mut c_char,
    diags: c_int,
    global: c_int,
    _local: c_int,
    soa: c_int,
) {
    globals::set(addr_of_mut!(OP_auto_soa), soa);
    init_with_comm(argc, argv, diags, "op_mpi_init_soa", Some(global))
}

/// Parse one option string (Fortran passes options one by one).
#[no_mangle]
pub unsafe extern "C" fn op_set_args(_argc: c_int, arg: *mut c_char) {
    guard("op_set_args", || {
        if !arg.is_null() {
            let a = CStr::from_ptr(arg).to_string_lossy().into_owned();
            if let Some(m) = apply_option(&a) {
                print_out(&m);
            }
        }
    })
}

/// Set the base of map indices (1 for Fortran-style maps).
#[no_mangle]
pub unsafe extern "C" fn set_maps_base(base: c_int) {
    globals::set(addr_of_mut!(OP_maps_base_index), base);
}

fn exit_impl() {
    let outcome = guard("op_exit", || {
        let mut life = lock_state();
        let mut st = match std::mem::replace(&mut *life, Life::Exited) {
            Life::Running(st) => st,
            other => {
                *life = other;
                return Ok(());
            }
        };
        // Exchanges in flight complete before their dats go; dropping the
        // state frees every set, map, dat and plan; the distribution
        // releases its communicator (MPI is finalised if op_init initialised it).
        let finished = st.finish_exchanges();
        st.device_exit();
        let dist = std::mem::replace(&mut st.dist, Box::new(op2_core::dist::SingleNode::new()));
        drop(st);
        crate::guard::set_abort(None);
        globals::reset_all();
        finished.and(dist.finalize())
    });
    if let Err(e) = outcome {
        crate::guard::fatal(&e.context("op_exit"));
    }
}

/// Free everything OP2 allocated. Later API calls (except a new op_init) are errors.
#[no_mangle]
pub extern "C" fn op_exit() {
    exit_impl()
}

#[no_mangle]
pub extern "C" fn op_exit_core() {
    exit_impl()
}

/// Free run-time support data (plans); op_exit does it too.
#[no_mangle]
pub extern "C" fn op_rt_exit() {}

// ---- sets, maps, dats -------------------------------------------------------

/// Declare a set of `size` elements.
#[no_mangle]
pub unsafe extern "C" fn op_decl_set(size: idx_l_t, name: *const c_char) -> op_set {
    with_state("op_decl_set", |st| {
        let name = c_str("op_decl_set", "the set name", name)?;
        let id = st.dom.decl_set(size as i64, &name)?;
        Ok(st.mirror_set(id))
    })
}

#[no_mangle]
pub unsafe extern "C" fn op_decl_set_core(size: c_int, name: *const c_char) -> op_set {
    op_decl_set(size, name)
}

pub(crate) unsafe fn decl_map_impl(
    call: &'static str,
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *const c_int,
    name: *const c_char,
) -> op_map {
    with_state(call, |st| {
        let name = c_str(call, "the map name", name)?;
        let wrap = |e: Op2Error| Op2Error::new(call, obj("map", &name), e.msg);
        let f = st
            .set_id(call, from)
            .map_err(|e| wrap(e).context("from-set"))?;
        let t = st.set_id(call, to).map_err(|e| wrap(e).context("to-set"))?;
        if dim <= 0 {
            return Err(wrap(Op2Error::new(
                call,
                "",
                format!("dimension {dim} must be positive"),
            )));
        }
        let n = st.dom.set(f).size * dim as usize;
        if n != 0 && imap.is_null() {
            return Err(wrap(Op2Error::new(call, "", "the map array is NULL")));
        }
        let mut vals = st.dom.map_storage(call, f, dim, &name)?;
        if n != 0 {
            // SAFETY: OP2's contract: imap holds from->size * dim entries, and
            // map_storage reserved room for all of them.
            std::ptr::copy_nonoverlapping(imap, vals.as_mut_ptr(), n);
            vals.set_len(n);
        }
        let id = st
            .dom
            .decl_map_vec(
                f,
                t,
                dim,
                vals,
                globals::maps_base(),
                &name,
                st.dist.map_check(),
            )
            .map_err(|e| Op2Error::new(call, e.object, e.msg))?;
        let p = st.mirror_map(id, imap);
        st.device_decl_map(call, id)?;
        Ok(p)
    })
}

/// Declare a map from `from` to `to` with `dim` entries per element (copied).
#[no_mangle]
pub unsafe extern "C" fn op_decl_map(
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *mut idx_l_t,
    name: *const c_char,
) -> op_map {
    decl_map_impl("op_decl_map", from, to, dim, imap, name)
}

#[no_mangle]
pub unsafe extern "C" fn op_decl_map_core(
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *mut idx_l_t,
    name: *const c_char,
) -> op_map {
    decl_map_impl("op_decl_map", from, to, dim, imap, name)
}

/// Declare a map given with 64-bit entries (each must fit a local index).
#[no_mangle]
pub unsafe extern "C" fn op_decl_map_long(
    from: op_set,
    to: op_set,
    dim: c_int,
    imap: *mut idx_g_t,
    name: *const c_char,
) -> op_map {
    let call = "op_decl_map_long";
    // The 32-bit copy is reserved like every map's storage: an impossible
    // size is a named error, not the allocator's abort.
    let (mut narrow, n): (Vec<c_int>, usize) = checked(call, || {
        if from.is_null() || dim <= 0 || imap.is_null() {
            return Ok((Vec::new(), 0));
        }
        let st = lock_state();
        if let Life::Running(s) = &*st {
            let f = s.set_id(call, from)?;
            let label = if name.is_null() {
                String::new()
            } else {
                CStr::from_ptr(name).to_string_lossy().into_owned()
            };
            let n = s.dom.set(f).size * dim as usize;
            Ok((s.dom.map_storage(call, f, dim, &label)?, n))
        } else {
            Ok((Vec::new(), 0))
        }
    });
    if !imap.is_null() {
        for i in 0..n {
            let v = *imap.add(i);
            narrow.push(c_int::try_from(v).unwrap_or(-1));
        }
    }
    let p = if imap.is_null() {
        std::ptr::null()
    } else {
        narrow.as_ptr()
    };
    decl_map_impl(call, from, to, dim, p, name)
}

pub(crate) unsafe fn decl_dat_impl(
    call: &'static str,
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
    temp: bool,
) -> op_dat {
    with_state(call, |st| {
        let name = c_str(call, "the dat name", name)?;
        let wrap = |e: Op2Error| Op2Error::new(call, obj("dat", &name), e.msg);
        let ty = c_str(call, "the type string", type_).map_err(wrap)?;
        let s = st.set_id(call, set).map_err(wrap)?;
        // Allocated (and checked) zeroed first, then the application's data
        // is copied in: nothing is read from `data` for storage that cannot exist.
        let id = st
            .dom
            .decl_dat(call, s, dim, &ty, type_size, None, &name, temp)?;
        // OP_NO_REALLOC: the application's array is the dat's storage.
        let in_place =
            !temp && crate::overlay::no_realloc() && crate::overlay::use_user_array(st, id, data);
        if !data.is_null() && !in_place {
            let own = st.dom.set(s).size * st.dom.dat(id).elem_bytes;
            let d = st.dom.dat_mut(id);
            // SAFETY: OP2's contract: data holds set->size * dim elements; the
            // dat's buffer holds at least that many bytes.
            std::ptr::copy_nonoverlapping(data as *const u8, d.data.as_mut_ptr(), own);
            // After op_renumber: the application's data is in the declared order.
            st.dom.renumber_new_dat(id);
        }
        let p = st.mirror_dat(id, data as *mut c_void);
        if in_place {
            crate::overlay::mark_user_managed(st, id);
        }
        st.device_decl_dat(call, id)?;
        Ok(p)
    })
}

/// Declare data on a set (`dim` values of `type` per element, copied).
#[no_mangle]
pub unsafe extern "C" fn op_decl_dat_char(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) -> op_dat {
    decl_dat_impl("op_decl_dat", set, dim, type_, type_size, data, name, false)
}

#[no_mangle]
pub unsafe extern "C" fn op_decl_dat_core(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) -> op_dat {
    decl_dat_impl("op_decl_dat", set, dim, type_, type_size, data, name, false)
}

/// Declare a zero-initialised temporary dat (free it with op_free_dat_temp).
#[no_mangle]
pub unsafe extern "C" fn op_decl_dat_temp_char(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    name: *const c_char,
) -> op_dat {
    decl_dat_impl(
        "op_decl_dat_temp",
        set,
        dim,
        type_,
        type_size,
        std::ptr::null_mut(),
        name,
        true,
    )
}

#[no_mangle]
pub unsafe extern "C" fn op_decl_dat_temp_core(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) -> op_dat {
    decl_dat_impl(
        "op_decl_dat_temp",
        set,
        dim,
        type_,
        type_size,
        data,
        name,
        true,
    )
}

/// Free a temporary dat: 1 on success, -1 if the handle is not a live dat.
#[no_mangle]
pub unsafe extern "C" fn op_free_dat_temp_char(dat: op_dat) -> c_int {
    with_state("op_free_dat_temp", |st| {
        let id = match st.dat_id("op_free_dat_temp", dat) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("OP2 warning in op_free_dat_temp: {} (nothing freed)", e.msg);
                return Ok(-1);
            }
        };
        st.finish_exchanges()?;
        st.device_free_dat(id);
        st.dom.free_temp(id)?;
        st.forget_dat(id);
        st.bump_generation();
        Ok(1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn op_free_dat_temp_core(dat: op_dat) -> c_int {
    op_free_dat_temp_char(dat)
}

/// Declare a global constant. Kernels on the host read the application's
/// own variable, so nothing is copied; the declaration is checked. The CUDA
/// libraries leave `op_decl_const_char` to the code OP2's translator
/// generates (it copies each constant to the device): there the checked
/// declaration is forwarded to it.
#[cfg(not(op2_device))]
#[no_mangle]
pub unsafe extern "C" fn op_decl_const_char(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) {
    decl_const(dim, type_, type_size, data, name)
}

unsafe fn decl_const(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) {
    let call = "op_decl_const";
    checked(call, || {
        let n = if name.is_null() {
            "unnamed".to_string()
        } else {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        };
        let o = obj("constant", &n);
        let ty = c_str(call, "the type string", type_)
            .map_err(|e| Op2Error::new(call, o.clone(), e.msg))?;
        if data.is_null() {
            return Err(Op2Error::new(call, o, "the data pointer is NULL"));
        }
        op2_core::arg::check_arg_gbl(call, dim, &ty, type_size)
            .map_err(|e| Op2Error::new(call, o, e.msg))
    });
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
    // Only a device library leaves op_decl_const_char to the program.
    if globals::hybrid_gpu() {
        op2_rs_forward_decl_const(dim, type_, type_size, data, name);
    }
}

#[no_mangle]
pub unsafe extern "C" fn op_decl_const_core(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
) {
    decl_const(dim, type_, type_size, data, name)
}

/// Number of owned elements of a set (global total under MPI).
#[no_mangle]
pub unsafe extern "C" fn op_get_size(set: op_set) -> idx_g_t {
    with_state("op_get_size", |st| {
        let s = st.set_id("op_get_size", set)?;
        Ok(st.dist.global_size(&st.dom, s)?.0 as idx_g_t)
    })
}

fn local_size(call: &'static str, set: op_set, f: fn(&op2_core::Set) -> usize) -> c_int {
    with_state(call, |st| {
        let s = st.set_id(call, set)?;
        Ok(f(st.dom.set(s)) as c_int)
    })
}

#[no_mangle]
pub extern "C" fn op_get_size_local(set: op_set) -> c_int {
    local_size("op_get_size_local", set, |s| s.size)
}
#[no_mangle]
pub extern "C" fn op_get_size_local_core(set: op_set) -> c_int {
    local_size("op_get_size_local_core", set, |s| s.core_size)
}
#[no_mangle]
pub extern "C" fn op_get_size_local_exec(set: op_set) -> c_int {
    local_size("op_get_size_local_exec", set, |s| s.size + s.exec_size)
}
#[no_mangle]
pub extern "C" fn op_get_size_local_full(set: op_set) -> c_int {
    local_size("op_get_size_local_full", set, |s| s.total_size())
}

/// Offset of this rank's first element in the global numbering (0 on one node).
#[no_mangle]
pub extern "C" fn op_get_global_set_offset(set: op_set) -> idx_g_t {
    with_state("op_get_global_set_offset", |st| {
        let s = st.set_id("op_get_global_set_offset", set)?;
        Ok(st.dist.global_size(&st.dom, s)?.1 as idx_g_t)
    })
}

/// size + exec + nonexec of the set named `name`.
#[no_mangle]
pub unsafe extern "C" fn op_size_of_set(name: *const c_char) -> c_int {
    with_state("op_size_of_set", |st| {
        let n = c_str("op_size_of_set", "the set name", name)?;
        st.dom
            .sets()
            .iter()
            .find(|s| s.name == n)
            .map(|s| s.total_size() as c_int)
            .ok_or_else(|| Op2Error::new("op_size_of_set", obj("set", &n), "no set has this name"))
    })
}

/// Look up a map by the array given to op_decl_map.
#[no_mangle]
pub unsafe extern "C" fn op_search_map_ptr(ptr: *const c_int) -> op_map {
    with_state("op_search_map_ptr", |st| {
        Ok(st
            .map_by_orig_ptr(ptr)
            .map(|m| st.map_ptr(m))
            .unwrap_or(std::ptr::null_mut()))
    })
}

#[no_mangle]
pub extern "C" fn op_is_partitioned() -> c_int {
    // SAFETY: plain int global.
    unsafe { globals::get(addr_of!(OP_is_partitioned)) }
}

/// `op_decl_dat` from the C/C++ headers: `actual` names the data pointer's
/// real element type (NULL if unknown), so a wrong type string is caught.
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
    check_decl_type("op_decl_dat", "dat", name, type_, actual);
    decl_dat_impl("op_decl_dat", set, dim, type_, type_size, data, name, false)
}

/// `op_decl_dat_temp` from the headers (type-checked like op2_decl_dat_checked).
#[no_mangle]
pub unsafe extern "C" fn op2_decl_dat_temp_checked(
    set: op_set,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    name: *const c_char,
    actual: *const c_char,
) -> op_dat {
    check_decl_type("op_decl_dat_temp", "dat", name, type_, actual);
    decl_dat_impl(
        "op_decl_dat_temp",
        set,
        dim,
        type_,
        type_size,
        std::ptr::null_mut(),
        name,
        true,
    )
}

/// `op_decl_const` from the headers (the C macro passes the variable's name).
#[no_mangle]
pub unsafe extern "C" fn op2_decl_const_checked(
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    data: *mut c_char,
    name: *const c_char,
    actual: *const c_char,
) {
    check_decl_type("op_decl_const", "constant", name, type_, actual);
    decl_const(dim, type_, type_size, data, name)
}

pub(crate) unsafe fn check_decl_type(
    call: &'static str,
    what: &str,
    name: *const c_char,
    declared: *const c_char,
    actual: *const c_char,
) {
    if declared.is_null() || actual.is_null() {
        return;
    }
    let d = CStr::from_ptr(declared).to_string_lossy();
    let a = CStr::from_ptr(actual).to_string_lossy();
    let (sd, sa) = (
        op2_core::ScalarType::parse(&d),
        op2_core::ScalarType::parse(&a),
    );
    use op2_core::ScalarType as T;
    if sa == T::Other || sd == sa {
        return;
    }
    let o = if name.is_null() {
        format!("{what} of type \"{d}\"")
    } else {
        obj(what, &CStr::from_ptr(name).to_string_lossy())
    };
    let msg = if sd == T::Other {
        // The pointer's element type is known (C++ template, C11 _Generic), so
        // the string must be one of OP2's spellings of it, not a user type.
        format!(
            "incorrect type specified: type string \"{d}\" is not an OP2 spelling of {}",
            c_type_name(sa)
        )
    } else {
        format!("incorrect type specified: type string \"{d}\" but the data pointer is {a}*")
    };
    crate::guard::fatal(&Op2Error::new(call, o, msg));
}

/// The C type behind a scalar type, as a programmer writes it.
fn c_type_name(t: op2_core::ScalarType) -> &'static str {
    use op2_core::ScalarType as T;
    match t {
        T::F64 => "double",
        T::F32 => "float",
        T::I32 => "int",
        T::U32 => "unsigned int",
        T::I64 => "long long",
        T::U64 => "unsigned long long",
        T::Bool => "bool",
        T::Other => "a user type",
    }
}
