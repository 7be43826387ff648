//! Loop argument constructors (`op_arg_dat`, `op_arg_gbl`, ...) and the
//! conversion of C `op_arg`s into checked core arguments and views.

use crate::ffi::*;
use crate::state::{c_text, with_state, State};
use op2_core::arg::{check_arg_dat, check_arg_gbl, Access, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::invoke::{ArgView, ViewKind};
use op2_core::types;
use op2_core::{Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr::null_mut;

fn blank_arg() -> op_arg {
    op_arg {
        index: -1,
        dat: null_mut(),
        map: null_mut(),
        dim: 0,
        idx: -1,
        size: -1,
        data: null_mut(),
        data_d: null_mut(),
        map_data: null_mut(),
        map_data_d: null_mut(),
        r#type: std::ptr::null(),
        acc: OP_READ,
        argtype: OP_ARG_DAT,
        sent: 0,
        opt: 0,
    }
}

fn access(call: &str, acc: c_int) -> Result<Access> {
    Access::from_c(acc).ok_or_else(|| {
        Op2Error::new(
            call,
            "",
            format!("access mode {acc} is not one of OP_READ..OP_WORK"),
        )
    })
}

unsafe fn arg_dat_impl(
    call: &'static str,
    opt: c_int,
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: c_int,
) -> op_arg {
    with_state(call, |st| {
        let mut a = blank_arg();
        a.argtype = OP_ARG_DAT;
        a.opt = (opt != 0) as c_int;
        a.idx = idx;
        a.dim = dim;
        a.acc = acc;
        a.map = map;
        if opt == 0 {
            // A switched-off optional argument: record what was given, check nothing.
            if !dat.is_null() {
                if let Ok(d) = st.dat_id(call, dat) {
                    a.dat = dat;
                    a.size = st.dom.dat(d).elem_bytes as c_int;
                }
            }
            if !type_.is_null() {
                let t = CStr::from_ptr(type_).to_string_lossy();
                a.r#type = st.intern(&types::normalise(&t));
            }
            return Ok(a);
        }
        let d = st.dat_id(call, dat)?;
        // The object's name is only formatted for an error (no allocation otherwise).
        let wrap = |e: Op2Error| Op2Error::new(call, st.dat_obj(d), e.msg);
        let t = c_text(call, "the type string", type_).map_err(wrap)?;
        let m = st.opt_map_id(call, map).map_err(wrap)?;
        let ac = access(call, acc).map_err(wrap)?;
        check_arg_dat(call, &st.dom, d, idx, m, dim, &t, ac)?;
        let dt = st.dom.dat(d);
        a.dat = dat;
        a.size = dt.elem_bytes as c_int;
        a.data = (*dat).data;
        a.data_d = (*dat).data_d;
        if let Some(m) = m {
            a.map_data = st.dom.map(m).values.as_ptr() as *mut c_int;
            a.map_data_d = st.maps[m.0].c.map_d;
        }
        a.r#type = st.intern(&types::normalise(&t));
        Ok(a)
    })
}

/// An argument referring to a dat, directly (`idx` -1, `OP_ID`) or through
/// column `idx` of `map` (all columns if `idx` < -1).
#[no_mangle]
pub unsafe extern "C" fn op_arg_dat(
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: op_access,
) -> op_arg {
    arg_dat_impl("op_arg_dat", 1, dat, idx, map, dim, type_, acc)
}

/// `op_arg_dat` that the kernel receives as NULL when `opt` is 0.
#[no_mangle]
pub unsafe extern "C" fn op_opt_arg_dat(
    opt: c_int,
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: op_access,
) -> op_arg {
    arg_dat_impl("op_opt_arg_dat", opt, dat, idx, map, dim, type_, acc)
}

#[no_mangle]
pub unsafe extern "C" fn op_arg_dat_core(
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: op_access,
) -> op_arg {
    arg_dat_impl("op_arg_dat", 1, dat, idx, map, dim, type_, acc)
}

#[no_mangle]
pub unsafe extern "C" fn op_opt_arg_dat_core(
    opt: c_int,
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: op_access,
) -> op_arg {
    arg_dat_impl("op_opt_arg_dat", opt, dat, idx, map, dim, type_, acc)
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn arg_gbl_impl(
    call: &'static str,
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: c_int,
    argtype: c_int,
) -> op_arg {
    with_state(call, |st| {
        let mut a = blank_arg();
        a.argtype = argtype;
        a.dim = dim;
        a.acc = acc;
        a.data = data;
        a.opt = (opt != 0 && !data.is_null()) as c_int;
        let t = c_text(call, "the type string", type_)?;
        a.r#type = st.intern(&types::normalise(&t));
        a.size = dim.saturating_mul(type_size);
        if opt == 0 {
            return Ok(a);
        }
        if data.is_null() {
            return Err(Op2Error::new(
                call,
                format!("global of type \"{t}\""),
                "the data pointer is NULL",
            ));
        }
        if argtype == OP_ARG_GBL {
            access(call, acc)?;
        }
        check_arg_gbl(call, dim, &t, type_size)?;
        Ok(a)
    })
}

/// A global argument: `dim` values at `data`, read or reduced per `acc`.
#[no_mangle]
pub unsafe extern "C" fn op_arg_gbl_char(
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: op_access,
) -> op_arg {
    arg_gbl_impl(
        "op_arg_gbl",
        1,
        data,
        dim,
        type_,
        type_size,
        acc,
        OP_ARG_GBL,
    )
}

#[no_mangle]
pub unsafe extern "C" fn op_opt_arg_gbl_char(
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: op_access,
) -> op_arg {
    arg_gbl_impl(
        "op_opt_arg_gbl",
        opt,
        data,
        dim,
        type_,
        type_size,
        acc,
        OP_ARG_GBL,
    )
}

#[no_mangle]
pub unsafe extern "C" fn op_arg_gbl_core(
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: op_access,
) -> op_arg {
    arg_gbl_impl(
        "op_arg_gbl",
        opt,
        data,
        dim,
        type_,
        type_size,
        acc,
        OP_ARG_GBL,
    )
}

/// `op_arg_gbl` from the C and C++ headers: `actual` names the type the
/// pointer really has (NULL if unknown), so a wrong type string is caught.
#[no_mangle]
pub unsafe extern "C" fn op2_arg_gbl_checked(
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: op_access,
    actual: *const c_char,
) -> op_arg {
    crate::decl::check_decl_type("op_arg_gbl", "global", std::ptr::null(), type_, actual);
    arg_gbl_impl(
        "op_arg_gbl",
        opt,
        data,
        dim,
        type_,
        type_size,
        acc,
        OP_ARG_GBL,
    )
}

/// The element index (direct, `idx` -1 with OP_ID) or map entry `idx` of each element.
#[no_mangle]
pub unsafe extern "C" fn op_arg_idx(idx: c_int, map: op_map) -> op_arg {
    let call = "op_arg_idx";
    with_state(call, |st| {
        let mut a = blank_arg();
        a.argtype = OP_ARG_IDX;
        a.idx = idx;
        a.map = map;
        a.dim = 1;
        a.size = std::mem::size_of::<c_int>() as c_int;
        a.r#type = st.intern("int");
        a.opt = 1;
        match st.opt_map_id(call, map)? {
            None if idx != -1 => {
                return Err(Op2Error::new(
                    call,
                    "",
                    format!("idx {idx} with OP_ID; a direct index argument needs idx -1"),
                ))
            }
            Some(m) => {
                let mp = st.dom.map(m);
                if idx < 0 || idx >= mp.dim as c_int {
                    return Err(Op2Error::new(
                        call,
                        obj("map", &mp.name),
                        format!("idx {idx} is outside [0, {})", mp.dim),
                    ));
                }
                a.map_data = mp.values.as_ptr() as *mut c_int;
                a.map_data_d = st.maps[m.0].c.map_d;
            }
            None => {}
        }
        Ok(a)
    })
}

/// Location info that a kernel updates together with the MIN/MAX global at arg `ref_`.
#[no_mangle]
pub unsafe extern "C" fn op_arg_info_char(
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    ref_: c_int,
) -> op_arg {
    arg_gbl_impl(
        "op_arg_info",
        1,
        data,
        dim,
        type_,
        type_size,
        ref_,
        OP_ARG_INFO,
    )
}

/// Print OP2's argument error line.
#[no_mangle]
pub unsafe extern "C" fn op_err_print(msg: *const c_char, argno: c_int, name: *const c_char) {
    let m = if msg.is_null() {
        "".into()
    } else {
        CStr::from_ptr(msg).to_string_lossy()
    };
    let n = if name.is_null() {
        "".into()
    } else {
        CStr::from_ptr(name).to_string_lossy()
    };
    eprintln!("error: arg {argno} in kernel \"{n}\"\n{m}");
}

/// Check argument `argno` of kernel `name` against loop set `set`; counts
/// indirect arguments into `*ninds`. A bad argument stops the program.
#[no_mangle]
pub unsafe extern "C" fn op_arg_check(
    set: op_set,
    argno: c_int,
    arg: op_arg,
    ninds: *mut c_int,
    name: *const c_char,
) {
    let call = "op_arg_check";
    with_state(call, |st| {
        let lname = if name.is_null() {
            "unnamed".into()
        } else {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        };
        let s = st.set_id(call, set)?;
        let spec = to_spec(st, &lname, argno as usize, &arg)?;
        op2_core::arg::check_loop(&st.dom, &lname, s, std::slice::from_ref(&spec))
            .map_err(|e| e.context(format!("(argument {argno})")))?;
        if spec.opt && matches!(spec.kind, ArgKind::Dat { idx, .. } if idx >= 0) && !ninds.is_null()
        {
            *ninds += 1;
        }
        Ok(())
    })
}

/// Convert a C `op_arg` (argument `i` of loop `loop_name`) into a checked spec.
pub(crate) unsafe fn to_spec(st: &State, loop_name: &str, i: usize, a: &op_arg) -> Result<ArgSpec> {
    let call = "op_par_loop";
    let lerr = |msg: String| Op2Error::new(call, obj("loop", loop_name), format!("arg {i}: {msg}"));
    let tname = if a.r#type.is_null() {
        String::new()
    } else {
        CStr::from_ptr(a.r#type).to_string_lossy().into_owned()
    };
    let acc = Access::from_c(a.acc);
    let opt = a.opt != 0;
    let kind = match a.argtype {
        OP_ARG_DAT => {
            if !opt {
                return Ok(ArgSpec {
                    kind: ArgKind::Gbl,
                    dim: a.dim,
                    type_name: tname,
                    access: acc.unwrap_or(Access::Read),
                    opt: false,
                });
            }
            let dat = st.dat_id(call, a.dat).map_err(|e| lerr(e.msg))?;
            let map = st.opt_map_id(call, a.map).map_err(|e| lerr(e.msg))?;
            ArgKind::Dat {
                dat,
                map,
                idx: a.idx,
            }
        }
        OP_ARG_GBL => {
            if opt && a.data.is_null() {
                return Err(lerr(format!(
                    "global of type \"{tname}\" has a NULL data pointer"
                )));
            }
            ArgKind::Gbl
        }
        OP_ARG_IDX => {
            let map = st.opt_map_id(call, a.map).map_err(|e| lerr(e.msg))?;
            ArgKind::Idx { map, idx: a.idx }
        }
        OP_ARG_INFO => {
            if a.data.is_null() {
                return Err(lerr("op_arg_info has a NULL data pointer".into()));
            }
            ArgKind::Info { reference: a.acc }
        }
        t => {
            return Err(lerr(format!(
                "argtype {t} is not OP_ARG_DAT/GBL/IDX/INFO (an uninitialised op_arg?)"
            )))
        }
    };
    let access = if a.argtype == OP_ARG_INFO {
        Access::Read
    } else {
        acc.ok_or_else(|| {
            lerr(format!(
                "access mode {} is not one of OP_READ..OP_WORK",
                a.acc
            ))
        })?
    };
    if a.argtype == OP_ARG_GBL && opt && tname == "error" {
        return Err(lerr(
            "the global's type string does not match its data type".into(),
        ));
    }
    Ok(ArgSpec {
        kind,
        dim: a.dim,
        type_name: tname,
        access,
        opt,
    })
}

/// The view an invoker uses for a checked argument.
pub(crate) fn to_view(st: &State, spec: &ArgSpec, a: &op_arg) -> ArgView {
    if !spec.opt {
        return ArgView::NULL;
    }
    match &spec.kind {
        ArgKind::Dat { dat, map, idx } => {
            let d = st.dom.dat(*dat);
            let (mp, mdim, kind) = match map {
                None => (std::ptr::null(), 0, ViewKind::Direct),
                Some(m) => {
                    let m = st.dom.map(*m);
                    let k = if *idx < -1 {
                        ViewKind::Vector
                    } else {
                        ViewKind::Indirect
                    };
                    (m.values.as_ptr(), m.dim as i32, k)
                }
            };
            ArgView {
                data: d.data.as_ptr() as *mut u8,
                map: mp,
                map_dim: mdim,
                idx: *idx,
                elem_bytes: d.elem_bytes as i32,
                kind,
                ..ArgView::NULL
            }
        }
        ArgKind::Gbl | ArgKind::Info { .. } => ArgView {
            data: a.data as *mut u8,
            map: std::ptr::null(),
            map_dim: 0,
            idx: -1,
            elem_bytes: a.size,
            kind: ViewKind::Global,
            ..ArgView::NULL
        },
        ArgKind::Idx { map, idx } => match map {
            None => ArgView {
                kind: ViewKind::IdxDirect,
                elem_bytes: 4,
                ..ArgView::NULL
            },
            Some(m) => {
                let m = st.dom.map(*m);
                ArgView {
                    data: null_mut(),
                    map: m.values.as_ptr(),
                    map_dim: m.dim as i32,
                    idx: *idx,
                    elem_bytes: 4,
                    kind: ViewKind::IdxMapped,
                    ..ArgView::NULL
                }
            }
        },
    }
}
