//! Loop argument constructors (`op_arg_dat`, `op_arg_gbl`, ...) and the
//! conversion of C `op_arg`s into the runtime's checked arguments.

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::handles::Handles;
use crate::state::{name_or, not_null, with_state};
use op2_core::arg::{check_arg_dat, check_arg_gbl, Access, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::runtime::{GeneratedArgs, GlobalData, Pick};
use op2_core::{DatId, Op2Error, Result};
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

fn access(acc: c_int) -> Result<Access> {
    Access::from_c(acc).ok_or_else(|| {
        Op2Error::new(
            "",
            "",
            format!("access mode {acc} is not one of OP_READ..OP_WORK"),
        )
    })
}

/// `op_arg_dat` and its optional and Fortran forms.
///
/// # Safety
/// `type_` is NULL or a NUL-terminated string; handles are NULL or OP2's.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn arg_dat(
    call: &'static str,
    opt: c_int,
    dat: op_dat,
    idx: c_int,
    map: op_map,
    dim: c_int,
    type_: *const c_char,
    acc: c_int,
) -> Result<op_arg> {
    with_state(|st| {
        let mut a = blank_arg();
        a.opt = (opt != 0) as c_int;
        (a.idx, a.dim, a.acc, a.map) = (idx, dim, acc, map);
        if opt == 0 {
            // A switched-off optional argument: record what was given, check nothing.
            if let Ok(d) = st.h.dat_id(dat) {
                a.dat = dat;
                a.size = st.rt.dat(d).elem_bytes as c_int;
            }
            if !type_.is_null() {
                // SAFETY: a NUL-terminated type string (OP2's contract).
                a.r#type = unsafe { st.h.type_text(type_) }.1;
            }
            return Ok(a);
        }
        let d = st.h.dat_id(dat)?;
        // The object's name is only formatted for an error (no allocation otherwise).
        let wrap = |e: Op2Error| Op2Error::new(call, st.dat_obj(d), e.msg);
        not_null("the type string", type_).map_err(wrap)?;
        let m = st.h.opt_map_id(map).map_err(wrap)?;
        let ac = access(acc).map_err(wrap)?;
        // SAFETY: a non-NULL, NUL-terminated type string (OP2's contract).
        let (t, interned) = unsafe { st.h.type_text(type_) };
        check_arg_dat(call, st.rt.dom(), d, idx, m, dim, t, ac)?;
        a.r#type = interned;
        a.dat = dat;
        a.size = st.rt.dat(d).elem_bytes as c_int;
        let c = st.c.dat_c(d);
        (a.data, a.data_d) = (c.data, c.data_d);
        if let Some(m) = m {
            a.map_data = st.rt.dom().map(m).values.as_ptr() as *mut c_int;
            a.map_data_d = st.c.map_c(m).map_d;
        }
        Ok(a)
    })
}

exports! {
    /// [`op_arg_dat`].
    op_arg_dat_core(dat: op_dat, idx: c_int, map: op_map, dim: c_int, type_: *const c_char, acc: op_access) -> op_arg = "op_arg_dat_core" => Ok(op_arg_dat(dat, idx, map, dim, type_, acc));
    /// [`op_opt_arg_dat`].
    op_opt_arg_dat_core(opt: c_int, dat: op_dat, idx: c_int, map: op_map, dim: c_int, type_: *const c_char, acc: op_access) -> op_arg = "op_opt_arg_dat_core" => Ok(op_opt_arg_dat(opt, dat, idx, map, dim, type_, acc));
    /// An argument referring to a dat, directly (`idx` -1, `OP_ID`) or through
    /// column `idx` of `map` (all columns if `idx` < -1).
    op_arg_dat(dat: op_dat, idx: c_int, map: op_map, dim: c_int, type_: *const c_char, acc: op_access) -> op_arg = "op_arg_dat" => arg_dat("op_arg_dat", 1, dat, idx, map, dim, type_, acc);
    /// `op_arg_dat` that the kernel receives as NULL when `opt` is 0.
    op_opt_arg_dat(opt: c_int, dat: op_dat, idx: c_int, map: op_map, dim: c_int, type_: *const c_char, acc: op_access) -> op_arg = "op_opt_arg_dat" => arg_dat("op_opt_arg_dat", opt, dat, idx, map, dim, type_, acc);
    /// The element index (direct, `idx` -1 with OP_ID) or map entry `idx` of each element.
    op_arg_idx(idx: c_int, map: op_map) -> op_arg = "op_arg_idx" => arg_idx(idx, map);
    /// A global argument: `dim` values at `data`, read or reduced per `acc`.
    op_arg_gbl_char(data: *mut c_char, dim: c_int, type_: *const c_char, type_size: c_int, acc: op_access) -> op_arg = "op_arg_gbl" => arg_gbl("op_arg_gbl", 1, data, dim, type_, type_size, acc, OP_ARG_GBL);
    op_opt_arg_gbl_char(opt: c_int, data: *mut c_char, dim: c_int, type_: *const c_char, type_size: c_int, acc: op_access) -> op_arg = "op_opt_arg_gbl" => arg_gbl("op_opt_arg_gbl", opt, data, dim, type_, type_size, acc, OP_ARG_GBL);
    op_arg_gbl_core(opt: c_int, data: *mut c_char, dim: c_int, type_: *const c_char, type_size: c_int, acc: op_access) -> op_arg = "op_arg_gbl" => arg_gbl("op_arg_gbl", opt, data, dim, type_, type_size, acc, OP_ARG_GBL);
    /// Location info that a kernel updates together with the MIN/MAX global at arg `ref_`.
    op_arg_info_char(data: *mut c_char, dim: c_int, type_: *const c_char, type_size: c_int, ref_: c_int) -> op_arg = "op_arg_info" => arg_gbl("op_arg_info", 1, data, dim, type_, type_size, ref_, OP_ARG_INFO);
}

/// `op_arg_gbl`, `op_arg_info` and their optional and Fortran forms.
///
/// # Safety
/// `type_` is NULL or a NUL-terminated string; `data` holds `dim` values.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn arg_gbl(
    call: &'static str,
    opt: c_int,
    data: *mut c_char,
    dim: c_int,
    type_: *const c_char,
    type_size: c_int,
    acc: c_int,
    argtype: c_int,
) -> Result<op_arg> {
    with_state(|st| {
        let mut a = blank_arg();
        (a.argtype, a.dim, a.acc, a.data) = (argtype, dim, acc, data);
        a.opt = (opt != 0 && !data.is_null()) as c_int;
        not_null("the type string", type_)?;
        // SAFETY: a non-NULL, NUL-terminated type string (OP2's contract).
        let (t, interned) = unsafe { st.h.type_text(type_) };
        a.r#type = interned;
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
            access(acc)?;
        }
        check_arg_gbl(call, dim, t, type_size)?;
        Ok(a)
    })
}

/// `op_arg_gbl` from the C and C++ headers: `actual` names the type the
/// pointer really has (NULL if unknown), so a wrong type string is caught.
///
/// # Safety
/// As for [`op_arg_gbl_char`]; `actual` is NULL or a NUL-terminated string.
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
    c_api!(unsafe "op_arg_gbl", {
        crate::decl::check_decl_type("global", std::ptr::null(), type_, actual)?;
        arg_gbl(
            "op_arg_gbl",
            opt,
            data,
            dim,
            type_,
            type_size,
            acc,
            OP_ARG_GBL,
        )
    })
}

pub(crate) fn arg_idx(idx: c_int, map: op_map) -> Result<op_arg> {
    with_state(|st| {
        let mut a = blank_arg();
        (a.argtype, a.idx, a.map, a.dim, a.opt) = (OP_ARG_IDX, idx, map, 1, 1);
        a.size = std::mem::size_of::<c_int>() as c_int;
        a.r#type = st.h.intern("int");
        match st.h.opt_map_id(map)? {
            None if idx != -1 => {
                return Err(Op2Error::new(
                    "",
                    "",
                    format!("idx {idx} with OP_ID; a direct index argument needs idx -1"),
                ))
            }
            Some(m) => {
                let mp = st.rt.dom().map(m);
                if idx < 0 || idx >= mp.dim as c_int {
                    return Err(Op2Error::new(
                        "",
                        obj("map", &mp.name),
                        format!("idx {idx} is outside [0, {})", mp.dim),
                    ));
                }
                a.map_data = mp.values.as_ptr() as *mut c_int;
                a.map_data_d = st.c.map_c(m).map_d;
            }
            None => {}
        }
        Ok(a)
    })
}

/// Print OP2's argument error line.
///
/// # Safety
/// `msg` and `name` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn op_err_print(msg: *const c_char, argno: c_int, name: *const c_char) {
    c_api!("op_err_print", {
        // SAFETY: the caller's contract.
        let (m, n) = unsafe { (name_or(msg, ""), name_or(name, "")) };
        eprintln!("error: arg {argno} in kernel \"{n}\"\n{m}");
        Ok(())
    })
}

/// Check argument `argno` of kernel `name` against loop set `set`; counts
/// indirect arguments into `*ninds`. A bad argument stops the program.
///
/// # Safety
/// `ninds` is NULL or writable; `name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_arg_check(
    set: op_set,
    argno: c_int,
    arg: op_arg,
    ninds: *mut c_int,
    name: *const c_char,
) {
    c_api!(
        "op_arg_check",
        with_state(|st| {
            // SAFETY: the caller's contract.
            let lname = unsafe { name_or(name, "unnamed") };
            let s = st.h.set_id(set)?;
            // SAFETY: `arg` came from an op_arg constructor.
            let spec = unsafe { to_spec(&st.h, &lname, argno as usize, &arg) }?;
            op2_core::arg::check_loop(st.rt.dom(), &lname, s, std::slice::from_ref(&spec))
                .map_err(|e| e.context(format!("(argument {argno})")))?;
            let indirect = matches!(spec.kind, ArgKind::Dat { idx, .. } if idx >= 0);
            if spec.opt && indirect && !ninds.is_null() {
                // SAFETY: the caller's contract.
                unsafe { *ninds += 1 };
            }
            Ok(())
        })
    )
}

/// Convert a C `op_arg` (argument `i` of loop `loop_name`) into a checked spec.
///
/// # Safety
/// The arg's type string is NULL or NUL-terminated.
pub(crate) unsafe fn to_spec(
    h: &Handles,
    loop_name: &str,
    i: usize,
    a: &op_arg,
) -> Result<ArgSpec> {
    let call = "op_par_loop";
    let lerr = |msg: String| Op2Error::new(call, obj("loop", loop_name), format!("arg {i}: {msg}"));
    // SAFETY: the caller's contract.
    let tname = unsafe { name_or(a.r#type, "") };
    let acc = Access::from_c(a.acc);
    let opt = a.opt != 0;
    let kind = match a.argtype {
        OP_ARG_DAT if !opt => {
            return Ok(ArgSpec {
                kind: ArgKind::Gbl,
                dim: a.dim,
                type_name: tname.into_owned(),
                access: acc.unwrap_or(Access::Read),
                opt: false,
            })
        }
        OP_ARG_DAT => ArgKind::Dat {
            dat: h.dat_id(a.dat).map_err(|e| lerr(e.msg))?,
            map: h.opt_map_id(a.map).map_err(|e| lerr(e.msg))?,
            idx: a.idx,
        },
        OP_ARG_GBL if opt && a.data.is_null() => {
            return Err(lerr(format!(
                "global of type \"{tname}\" has a NULL data pointer"
            )))
        }
        OP_ARG_GBL => ArgKind::Gbl,
        OP_ARG_IDX => ArgKind::Idx {
            map: h.opt_map_id(a.map).map_err(|e| lerr(e.msg))?,
            idx: a.idx,
        },
        OP_ARG_INFO if a.data.is_null() => {
            return Err(lerr("op_arg_info has a NULL data pointer".into()))
        }
        OP_ARG_INFO => ArgKind::Info { reference: a.acc },
        t => {
            return Err(lerr(format!(
                "argtype {t} is not OP_ARG_DAT/GBL/IDX/INFO (an uninitialised op_arg?)"
            )))
        }
    };
    let access = match (a.argtype, acc) {
        (OP_ARG_INFO, _) => Access::Read,
        (_, Some(ac)) => ac,
        (_, None) => {
            return Err(lerr(format!(
                "access mode {} is not one of OP_READ..OP_WORK",
                a.acc
            )))
        }
    };
    if a.argtype == OP_ARG_GBL && opt && tname == "error" {
        return Err(lerr(
            "the global's type string does not match its data type".into(),
        ));
    }
    Ok(ArgSpec {
        kind,
        dim: a.dim,
        type_name: tname.into_owned(),
        access,
        opt,
    })
}

/// Where a global or info argument's values are.
pub(crate) fn global_data(a: &op_arg) -> GlobalData {
    GlobalData {
        data: a.data as *mut u8,
        bytes: a.size,
    }
}

/// The args of a loop generated code runs, converted when the runtime asks.
pub(crate) struct CArgs<'a> {
    pub h: &'a Handles,
    pub args: &'a [op_arg],
}

impl GeneratedArgs for CArgs<'_> {
    fn dats(&self, which: Pick) -> Result<Vec<DatId>> {
        self.args
            .iter()
            .filter(|a| a.opt != 0 && a.argtype == OP_ARG_DAT)
            .filter(|a| {
                which == Pick::All || Access::from_c(a.acc).is_some_and(|ac| which.takes(ac))
            })
            .map(|a| self.h.dat_id(a.dat))
            .collect()
    }

    fn specs(&self) -> Result<Vec<ArgSpec>> {
        self.args
            .iter()
            .enumerate()
            // SAFETY: generated code passes op_args from the constructors.
            .map(|(i, a)| unsafe { to_spec(self.h, "generated loop", i, a) })
            .collect()
    }
}

pub(crate) use crate::state::slice;
