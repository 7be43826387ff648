//! C entry points of OP2's Fortran API (abi.md §6.4): what the Fortran modules
//! in fortran/ bind to. Fortran passes access codes and indices already
//! shifted to C's 0-based values; op_arg_idx values reach Fortran kernels
//! 1-based.

use crate::args::arg_gbl;
use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::par_loop::{run, CInvoker, LoopCall, MAX_C_ARGS, RUNNERS};
use crate::state::{name_or, with_state};
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_double, c_float, c_int, c_void};

/// `op_arg_dat` with the dat and map named by the arrays they were declared
/// from. An unknown or NULL map array with idx -1 (or -2, OP2's shifted -1)
/// means direct access.
///
/// # Safety
/// `type_` is NULL or NUL-terminated.
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
    c_api!(unsafe "op_arg_dat", {
        let (dat, map, idx) = with_state(|st| {
            let d = st.c.dat_by_orig_ptr(dat_ptr as *const c_void);
            if d.is_none() && opt != 0 {
                return Err(Op2Error::new(
                    "",
                    "",
                    format!("the array at {dat_ptr:p} is not the data of a dat declared with op_decl_dat"),
                ));
            }
            let dat = d.map_or(std::ptr::null_mut(), |d| st.c.dat_ptr(d));
            match st.map_by_orig_ptr(map_ptr) {
                Some(m) => Ok((dat, st.c.map_ptr(m), idx)),
                None if idx == -1 || idx == -2 => Ok((dat, std::ptr::null_mut(), -1)),
                None if opt == 0 => Ok((dat, std::ptr::null_mut(), idx)),
                None => Err(Op2Error::new(
                    "",
                    d.map(|d| st.dat_obj(d)).unwrap_or_default(),
                    format!("the map array at {map_ptr:p} is not a map declared with op_decl_map (idx {idx})"),
                )),
            }
        })?;
        crate::args::arg_dat("op_opt_arg_dat", opt, dat, idx, map, dim, type_, acc)
    })
}

/// `op_arg_idx` with the map named by the array it was declared from.
#[no_mangle]
pub extern "C" fn op_arg_idx_ptr(idx: c_int, map_ptr: *mut c_int) -> op_arg {
    c_api!("op_arg_idx", {
        let map = with_state(|st| {
            Ok(st
                .map_by_orig_ptr(map_ptr)
                .map_or(std::ptr::null_mut(), |m| st.c.map_ptr(m)))
        })?;
        crate::args::arg_idx(idx, map)
    })
}

/// Run one Fortran `op_par_loop_N` (the loop is named after its kernel).
///
/// # Safety
/// The args point to op_args; the kernel takes one pointer per arg.
pub(crate) unsafe fn fortran_par_loop(
    kernel: Option<unsafe extern "C" fn()>,
    set: op_set,
    args: &[*const op_arg],
) -> Result<()> {
    let f = kernel.ok_or_else(|| Op2Error::new("", "", "the kernel is NULL"))?;
    if let Some(i) = args.iter().position(|a| a.is_null()) {
        return Err(Op2Error::new(
            "",
            format!("Fortran loop of kernel {:p}", f as *const c_void),
            format!("arg {i} is NULL"),
        ));
    }
    // The args by value, on the stack (at most FORTRAN_MAX_ARGS of them).
    let mut copies = [std::mem::MaybeUninit::<op_arg>::uninit(); FORTRAN_MAX_ARGS];
    for (c, &a) in copies.iter_mut().zip(args) {
        // SAFETY: checked non-NULL above; the caller's op_args.
        c.write(unsafe { *a });
    }
    // SAFETY: the first args.len() entries were just initialised.
    let owned = unsafe { std::slice::from_raw_parts(copies.as_ptr() as *const op_arg, args.len()) };
    let lc = LoopCall {
        source: None,
        name: std::ptr::null(),
        fortran_kernel: Some(f),
        set,
        args: owned,
        max_args: Some(MAX_C_ARGS),
        codes: None,
    };
    let inv = CInvoker {
        f,
        runner: RUNNERS[owned.len().clamp(1, MAX_C_ARGS) - 1],
        base: 1,
    };
    // SAFETY: the caller's contract.
    unsafe { run(&lc, &inv) }
}

include!(concat!(env!("OUT_DIR"), "/fortran_loops.rs"));

fn size_of(set_of: impl FnOnce(&crate::state::State) -> Result<op2_core::SetId>) -> Result<c_int> {
    with_state(|st| Ok(st.rt.dom().set(set_of(st)?).size as c_int))
}

/// Dimension of an argument's map (0 if it has none).
///
/// # Safety
/// `arg` is NULL or points to an op_arg.
#[no_mangle]
pub unsafe extern "C" fn getMapDimFromOpArg(arg: *mut op_arg) -> c_int {
    c_api!("getMapDimFromOpArg", {
        // SAFETY: the caller's contract.
        match unsafe { arg.as_ref() } {
            Some(a) if !a.map.is_null() => with_state(|st| {
                Ok(st
                    .h
                    .opt_map_id(a.map)?
                    .map_or(0, |m| st.rt.dom().map(m).dim as c_int))
            }),
            _ => Ok(0),
        }
    })
}

/// Add a generated Fortran kernel's timing to `OP_kernels[id]` (returns 0).
///
/// # Safety
/// `name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn setKernelTime(
    id: c_int,
    name: *mut c_char,
    t: c_double,
    transfer: c_float,
    transfer2: c_float,
    count: c_int,
) -> c_int {
    c_api!(
        "setKernelTime",
        with_state(|st| {
            if id < 0 {
                return Err(Op2Error::new(
                    "",
                    "",
                    format!("kernel index {id} is negative"),
                ));
            }
            let (k, kernels) = (id as usize, &mut st.c.kernels);
            kernels.realloc(k, 1);
            if !name.is_null() && kernels.recs[k].count == 0 {
                // SAFETY: the caller's contract.
                kernels.rename(k, &unsafe { name_or(name, "") });
            }
            let r = &mut kernels.recs[k];
            r.count += count;
            r.time += t;
            r.transfer += transfer;
            r.transfer2 += transfer2;
            Ok(0)
        })
    )
}

/// Print an argument's type string.
///
/// # Safety
/// `arg` is NULL or points to an op_arg.
#[no_mangle]
pub unsafe extern "C" fn print_type(arg: *mut op_arg) {
    c_api!("print_type", {
        // SAFETY: the caller's contract.
        if let Some(a) = unsafe { arg.as_ref() }.filter(|a| !a.r#type.is_null()) {
            // SAFETY: a NUL-terminated type string.
            crate::printf::cout(&format!("{}\n", unsafe { name_or(a.r#type, "") }));
        }
        Ok(())
    })
}

exports! {
    /// The plan of a generated Fortran loop: [`crate::plans::op_plan_get_stage`].
    FortranPlanCaller(name: *mut c_char, set: op_set, part: c_int, nargs: c_int, args: *mut op_arg, ninds: c_int, inds: *mut c_int, staging: c_int) -> *mut op_plan = "FortranPlanCaller" => Ok(crate::plans::op_plan_get_stage(name, set, part, nargs, args, ninds, inds, staging));
    /// A map handle that every op_arg_* call treats as OP_ID (NULL). The Fortran
    /// module writes its `dim` (0 for OP_ID, -1 for OP_GBL).
    op_decl_null_map() -> op_map = "op_decl_null_map" => with_state(|st| Ok(st.h.new_null_map()));
    /// `op_arg_gbl` from Fortran (`acc` 0-based).
    op_arg_gbl_copy(data: *mut c_char, dim: c_int, type_: *const c_char, size: c_int, acc: c_int) -> op_arg = "op_arg_gbl" => arg_gbl("op_arg_gbl", 1, data, dim, type_, size, acc, OP_ARG_GBL);
    /// `op_arg_info` from Fortran (`ref_` 0-based).
    op_arg_info_copy(data: *mut c_char, dim: c_int, type_: *const c_char, size: c_int, ref_: c_int) -> op_arg = "op_arg_info" => arg_gbl("op_arg_info", 1, data, dim, type_, size, ref_, OP_ARG_INFO);
    /// Owned elements of a set.
    get_set_size(set: op_set) -> c_int = "get_set_size" => size_of(|st| st.h.set_id(set));
    /// Owned elements of a dat's set.
    get_associated_set_size(dat: op_dat) -> c_int = "get_associated_set_size" => size_of(|st| Ok(st.rt.dat(st.h.dat_id(dat)?).set));
    isCNullPointer(ptr: *mut c_void) -> bool = "isCNullPointer" => Ok(ptr.is_null());
    /// `op_opt_arg_gbl` from Fortran.
    op_opt_arg_gbl_copy(opt: c_int, data: *mut c_char, dim: c_int, type_: *const c_char, size: c_int, acc: c_int) -> op_arg = "op_opt_arg_gbl" => arg_gbl("op_opt_arg_gbl", opt, data, dim, type_, size, acc, OP_ARG_GBL);
}
