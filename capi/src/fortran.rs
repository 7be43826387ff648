//! C entry points of OP2's Fortran API (abi.md §6.4): what the Fortran modules
//! in fortran/ bind to. Fortran passes access codes and indices already
//! shifted to C's 0-based values; op_arg_idx values reach Fortran kernels
//! 1-based.

use crate::args::arg_gbl_impl;
use crate::ffi::*;
use crate::par_loop::{prepare, run_loop, CInvoker, LoopCall, MAX_C_ARGS, RUNNERS};
use crate::state::with_state;
use op2_core::Op2Error;
use std::ffi::CStr;
use std::os::raw::{c_char, c_double, c_float, c_int, c_void};

/// A map handle that every op_arg_* call treats as OP_ID (NULL). The Fortran
/// module writes its `dim` (0 for OP_ID, -1 for OP_GBL).
#[no_mangle]
pub extern "C" fn op_decl_null_map() -> op_map {
    with_state("op_decl_null_map", |st| Ok(st.new_null_map()))
}

/// `op_arg_gbl` from Fortran (`acc` 0-based).
#[no_mangle]
pub unsafe extern "C" fn op_arg_gbl_copy(
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    size: c_int,
    acc: c_int,
) -> op_arg {
    arg_gbl_impl("op_arg_gbl", 1, data, dim, type_, size, acc, OP_ARG_GBL)
}

/// `op_opt_arg_gbl` from Fortran.
#[no_mangle]
pub unsafe extern "C" fn op_opt_arg_gbl_copy(
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    size: c_int,
    acc: c_int,
) -> op_arg {
    arg_gbl_impl(
        "op_opt_arg_gbl",
        opt,
        data,
        dim,
        type_,
        size,
        acc,
        OP_ARG_GBL,
    )
}

/// `op_arg_info` from Fortran (`ref_` 0-based).
#[no_mangle]
pub unsafe extern "C" fn op_arg_info_copy(
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    size: c_int,
    ref_: c_int,
) -> op_arg {
    arg_gbl_impl("op_arg_info", 1, data, dim, type_, size, ref_, OP_ARG_INFO)
}

/// `op_arg_dat` with the dat and map named by the arrays they were declared
/// from. An unknown or NULL map array with idx -1 (or -2, OP2's shifted -1)
/// means direct access.
#[no_mangle]
pub unsafe extern "C" fn op_arg_dat_ptr(
    opt: c_int,
    dat_ptr: *mut c_char,
    idx: c_int,
    map_ptr: *mut c_int,
    dim: c_int,
    type_: *const c_char,
    acc: c_int,
) -> op_arg {
    let call = "op_arg_dat";
    let (dat, map, idx) = with_state(call, |st| {
        let d = st.dat_by_orig_ptr(dat_ptr as *const c_void);
        if d.is_none() && opt != 0 {
            return Err(Op2Error::new(
                call,
                "",
                format!(
                    "the array at {dat_ptr:p} is not the data of a dat declared with op_decl_dat"
                ),
            ));
        }
        let dat = d.map(|d| st.dat_ptr(d)).unwrap_or(std::ptr::null_mut());
        match st.map_by_orig_ptr(map_ptr) {
            Some(m) => Ok((dat, st.map_ptr(m), idx)),
            None if idx == -1 || idx == -2 => Ok((dat, std::ptr::null_mut(), -1)),
            None if opt == 0 => Ok((dat, std::ptr::null_mut(), idx)),
            None => Err(Op2Error::new(
                call,
                d.map(|d| st.dat_obj(d)).unwrap_or_default(),
                format!("the map array at {map_ptr:p} is not a map declared with op_decl_map (idx {idx})"),
            )),
        }
    });
    crate::args::op_opt_arg_dat(opt, dat, idx, map, dim, type_, acc)
}

/// `op_arg_idx` with the map named by the array it was declared from.
#[no_mangle]
pub unsafe extern "C" fn op_arg_idx_ptr(idx: c_int, map_ptr: *mut c_int) -> op_arg {
    let map = with_state("op_arg_idx", |st| {
        Ok(st
            .map_by_orig_ptr(map_ptr)
            .map(|m| st.map_ptr(m))
            .unwrap_or(std::ptr::null_mut()))
    });
    crate::args::op_arg_idx(idx, map)
}

/// Run one Fortran `op_par_loop_N` (the loop is named after its kernel).
pub(crate) unsafe fn fortran_par_loop(
    kernel: Option<unsafe extern "C" fn()>,
    set: op_set,
    args: &[*const op_arg],
) {
    let call = "op_par_loop";
    let Some(f) = kernel else {
        crate::guard::fatal(&Op2Error::new(call, "", "the kernel is NULL"));
    };
    if let Some(i) = args.iter().position(|a| a.is_null()) {
        crate::guard::fatal(&Op2Error::new(
            call,
            format!("Fortran loop of kernel {:p}", f as *const c_void),
            format!("arg {i} is NULL"),
        ));
    }
    // The args by value, on the stack (at most FORTRAN_MAX_ARGS of them).
    let mut copies = [std::mem::MaybeUninit::<op_arg>::uninit(); FORTRAN_MAX_ARGS];
    for (c, &a) in copies.iter_mut().zip(args) {
        c.write(*a);
    }
    // SAFETY: the first args.len() entries were just initialised.
    let owned = std::slice::from_raw_parts(copies.as_ptr() as *const op_arg, args.len());
    let lc = LoopCall {
        call,
        name: std::ptr::null(),
        fortran_kernel: Some(f),
        set,
        args: owned,
        max_args: Some(MAX_C_ARGS),
        codes: None,
    };
    let r = prepare(&lc);
    let inv = CInvoker {
        f,
        runner: RUNNERS[owned.len() - 1],
        base: 1,
    };
    run_loop(call, r, &inv)
}

include!(concat!(env!("OUT_DIR"), "/fortran_loops.rs"));

/// Owned elements of a set.
#[no_mangle]
pub extern "C" fn get_set_size(set: op_set) -> c_int {
    with_state("get_set_size", |st| {
        let s = st.set_id("get_set_size", set)?;
        Ok(st.dom.set(s).size as c_int)
    })
}

/// Owned elements of a dat's set.
#[no_mangle]
pub extern "C" fn get_associated_set_size(dat: op_dat) -> c_int {
    with_state("get_associated_set_size", |st| {
        let d = st.dat_id("get_associated_set_size", dat)?;
        Ok(st.dom.set(st.dom.dat(d).set).size as c_int)
    })
}

/// Dimension of an argument's map (0 if it has none).
#[no_mangle]
pub unsafe extern "C" fn getMapDimFromOpArg(arg: *mut op_arg) -> c_int {
    if arg.is_null() || (*arg).map.is_null() {
        return 0;
    }
    with_state("getMapDimFromOpArg", |st| {
        Ok(st
            .opt_map_id("getMapDimFromOpArg", (*arg).map)?
            .map(|m| st.dom.map(m).dim as c_int)
            .unwrap_or(0))
    })
}

#[no_mangle]
pub extern "C" fn isCNullPointer(ptr: *mut c_void) -> bool {
    ptr.is_null()
}

/// Add a generated Fortran kernel's timing to `OP_kernels[id]` (returns 0).
#[no_mangle]
pub unsafe extern "C" fn setKernelTime(
    id: c_int,
    name: *mut c_char,
    t: c_double,
    transfer: c_float,
    transfer2: c_float,
    count: c_int,
) -> c_int {
    with_state("setKernelTime", |st| {
        if id < 0 {
            return Err(Op2Error::new(
                "setKernelTime",
                "",
                format!("kernel index {id} is negative"),
            ));
        }
        let k = id as usize;
        st.kernels.realloc(k, 1);
        if !name.is_null() && st.kernels.recs[k].count == 0 {
            let n = CStr::from_ptr(name).to_string_lossy().into_owned();
            st.kernels.rename(k, &n);
        }
        let r = &mut st.kernels.recs[k];
        r.count += count;
        r.time += t;
        r.transfer += transfer;
        r.transfer2 += transfer2;
        Ok(0)
    })
}

/// The plan of a generated Fortran loop.
#[no_mangle]
pub unsafe extern "C" fn FortranPlanCaller(
    name: *mut c_char,
    set: op_set,
    part: c_int,
    nargs: c_int,
    args: *mut op_arg,
    ninds: c_int,
    inds: *mut c_int,
    staging: c_int,
) -> *mut op_plan {
    crate::plans::op_plan_get_stage(name, set, part, nargs, args, ninds, inds, staging)
}

/// Print an argument's type string.
#[no_mangle]
pub unsafe extern "C" fn print_type(arg: *mut op_arg) {
    if !arg.is_null() && !(*arg).r#type.is_null() {
        let t = CStr::from_ptr((*arg).r#type).to_string_lossy();
        crate::printf::cout(&format!("{t}\n"));
    }
}
