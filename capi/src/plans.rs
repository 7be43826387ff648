//! OP2's plan functions for translator-generated code (`op_plan_get*`,
//! `op_plan_core`, `op_plan_check`): the call's `op_arg`s become the
//! runtime's plan key, the runtime builds the plan, and the C `op_plan`
//! struct (kept in [`crate::c_plans`]) is returned, with its arrays on the
//! device when generated code runs there.

use crate::boundary::{c_api, exports};
use crate::c_plans::CPlan;
use crate::ffi::*;
use crate::signature;
use crate::state::{c_str, name_or, with_state, State};
use op2_core::device::plan_upload::PlanHostArrays;
use op2_core::error::obj;
use op2_core::runtime::plans::{GeneratedPlanArg, PlanKey};
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_int, c_short};

/// The raw inputs of an `op_plan_get*` call.
struct PlanCall<'a> {
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    args: &'a [op_arg],
    ninds: c_int,
    inds: &'a [c_int],
    staging: c_int,
}

impl PlanCall<'_> {
    /// Check the call and turn it into a plan key.
    ///
    /// # Safety
    /// The name is NULL or NUL-terminated.
    unsafe fn key(&self, st: &State) -> Result<PlanKey> {
        // SAFETY: the caller's contract.
        let lname = unsafe { c_str("the kernel name", self.name) }?;
        let err = |m: String| Op2Error::new("", obj("loop", &lname), m);
        let s = st.h.set_id(self.set).map_err(|e| err(e.msg))?;
        let mut args = Vec::with_capacity(self.args.len());
        for (m, a) in self.args.iter().enumerate() {
            let opt = a.opt != 0;
            let handles = || -> Result<_> {
                if a.argtype == OP_ARG_DAT && !a.dat.is_null() && opt {
                    Ok((Some(st.h.dat_id(a.dat)?), st.h.opt_map_id(a.map)?))
                } else {
                    Ok((None, None))
                }
            };
            let (dat, map) = handles().map_err(|e| err(format!("arg {m}: {}", e.msg)))?;
            args.push(GeneratedPlanArg {
                opt,
                acc: a.acc,
                gbl: a.argtype == OP_ARG_GBL,
                dat,
                map,
                idx: a.idx,
                size: a.size,
                dim: a.dim,
            });
        }
        let (ps, stg, ni) = (self.part_size, self.staging, self.ninds);
        PlanKey::generated(st.rt.dom(), lname, s, ps, stg, ni, &args, self.inds)
    }
}

/// Build a plan for generated code, keep it behind `OP_plans`, return its index.
fn new_c_plan(st: &mut State, key: PlanKey, pc: &PlanCall<'_>) -> Result<usize> {
    let number = st.c.plans.plans.len();
    let plan = st.rt.build_plan(&mut st.c, &key, true, number)?;
    let args = pc.args;
    let cp = Box::new(CPlan {
        name: crate::ffi::cstring(&key.name),
        inds_staged: plan.inds_staged.clone(),
        plan,
        maps: args.iter().map(|a| a.map).collect(),
        dats: args.iter().map(|a| a.dat).collect(),
        idxs: args.iter().map(|a| a.idx).collect(),
        optflags: args.iter().map(|a| a.opt).collect(),
        accs: args.iter().map(|a| a.acc).collect(),
        col_offsets: Vec::new(),
        ind_maps: Vec::new(),
        loc_maps: Vec::new(),
        key,
    });
    Ok(st.c.plans.push(cp, pc.set))
}

/// `op_plan_get*`: the cached plan of this loop call, built on first use.
/// A repeated call is recognised from its raw arguments (no allocation).
///
/// # Safety
/// As for [`PlanCall::key`].
unsafe fn plan_core(st: &mut State, pc: &PlanCall<'_>) -> Result<usize> {
    signature::words(&mut st.sig, pc.name, pc.set, 0, pc.args);
    // SAFETY: the caller's contract.
    let sig = unsafe { signature::sig(&st.sig, pc.name) };
    let generation = st.rt.generation();
    let plans = &mut st.c.plans;
    let hit = plans.by_call.get(generation, &sig).copied().filter(|&i| {
        plans.plans[i]
            .key
            .answers(pc.part_size, pc.staging, pc.ninds, pc.inds)
    });
    let (i, old) = match hit {
        Some(i) => (i, true),
        None => {
            // SAFETY: the caller's contract.
            let key = unsafe { pc.key(st) }?;
            let found = st.c.plans.find(&key);
            let i = match found {
                Some(i) => i,
                None => new_c_plan(st, key, pc)?,
            };
            // SAFETY: as above (`st.sig` still holds this call's words).
            let sig = unsafe { signature::sig(&st.sig, pc.name) };
            st.c.plans.by_call.insert(&sig, i);
            (i, found.is_some())
        }
    };
    if old {
        if st.rt.config().diags > 3 {
            crate::printf::cout(&format!(" old execution plan #{i}\n"));
        }
        st.c.plans.structs[i].count += 1;
    }
    Ok(i)
}

/// The first time generated code gets plan `i` from a device library its
/// per-block and per-element arrays are copied to the device and the
/// `op_plan` fields point there (OP2's behaviour: the colour offsets and
/// counts stay on the host).
fn upload(st: &mut State, call: &str, i: usize) -> Result<()> {
    let cp = &mut st.c.plans.plans[i];
    let p = &cp.plan;
    let host = PlanHostArrays::of(p);
    let Some((d, true)) = st.rt.device_plan(call, &cp.key.name, i, &host)? else {
        return Ok(());
    };
    let (ind, loc) = d.per_arg(&p.ind_maps_start, &p.loc_maps_start);
    for (slot, a) in cp.ind_maps.iter_mut().zip(ind) {
        *slot = a as *mut c_int;
    }
    for (slot, a) in cp.loc_maps.iter_mut().zip(loc) {
        *slot = a.map_or(*slot, |a| a as *mut c_short);
    }
    let s = &mut st.c.plans.structs[i];
    let ptr = |p: u64| p as *mut c_int;
    s.ind_map = ptr(d.ind_map);
    s.loc_map = d.loc_map as *mut c_short;
    s.ind_sizes = ptr(d.ind_sizes);
    s.ind_offs = ptr(d.ind_offs);
    s.nthrcol = ptr(d.nthrcol);
    s.thrcol = ptr(d.thrcol);
    s.col_reord = ptr(d.col_reord);
    s.offset = ptr(d.offset);
    s.offset_d = s.offset;
    s.nelems = ptr(d.nelems);
    s.nelems_d = s.nelems;
    s.blkmap = ptr(d.blkmap);
    s.blkmap_d = s.blkmap;
    Ok(())
}

/// Check the raw pointers of an `op_plan_get*` call and run it.
///
/// # Safety
/// `args` and `inds` hold `nargs` entries; strings are NULL or NUL-terminated.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn plan_entry(
    call: &'static str,
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *const op_arg,
    ninds: c_int,
    inds: *const c_int,
    staging: c_int,
    upload_it: bool,
) -> Result<*mut op_plan> {
    if nargs < 0 || (nargs > 0 && (args.is_null() || inds.is_null())) || ninds < 0 {
        // SAFETY: the caller's contract.
        let n = unsafe { name_or(name, "?") };
        return Err(Op2Error::new(
            "",
            obj("loop", &n),
            format!("nargs {nargs}, ninds {ninds}, args {args:p}, inds {inds:p}"),
        ));
    }
    // SAFETY: the caller's contract.
    let (args, inds) = unsafe { (crate::args::slice(nargs, args), slice_of(nargs, inds)) };
    let pc = PlanCall {
        name,
        set,
        part_size,
        args,
        ninds,
        inds,
        staging,
    };
    with_state(|st| {
        // SAFETY: the caller's contract.
        let i = unsafe { plan_core(st, &pc) }?;
        if upload_it {
            upload(st, call, i)?;
        }
        Ok(&mut st.c.plans.structs[i] as *mut op_plan)
    })
}

/// # Safety
/// `p` is NULL or holds `n` ints.
unsafe fn slice_of<'a>(n: c_int, p: *const c_int) -> &'a [c_int] {
    if n <= 0 || p.is_null() {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// Verify a plan returned by op_plan_get*: no two blocks (or elements in a
/// block) of one colour modify the same element. Stops the program if not.
#[no_mangle]
pub extern "C" fn op_plan_check(plan: op_plan, _ninds: c_int, _inds: *mut c_int) {
    c_api!(
        "op_plan_check",
        with_state(|st| {
            let plans = &st.c.plans;
            let i = plans
                .structs
                .iter()
                .position(|c| {
                    std::ptr::eq(c.name, plan.name) && std::ptr::eq(c.blkmap, plan.blkmap)
                })
                .ok_or_else(|| {
                    Op2Error::new("", "", "the plan was not returned by op_plan_get*")
                })?;
            let cp = &plans.plans[i];
            st.rt.check_plan(&cp.key, &cp.plan).map_err(|e| {
                Op2Error::new(
                    "",
                    obj("loop", &cp.key.name),
                    format!("plan check failed: {e}"),
                )
            })
        })
    )
}

exports! {
    /// OP2's plan builder (cached): blocks, renumbering, two-level colouring.
    op_plan_core(name: *const c_char, set: op_set, part_size: c_int, nargs: c_int, args: *mut op_arg, ninds: c_int, inds: *mut c_int, staging: c_int) -> *mut op_plan = "op_plan_core" => plan_entry("op_plan_core", name, set, part_size, nargs, args, ninds, inds, staging, false);
    /// A plan staging every indirect dat (`OP_STAGE_ALL`).
    op_plan_get(name: *const c_char, set: op_set, part_size: c_int, nargs: c_int, args: *mut op_arg, ninds: c_int, inds: *mut c_int) -> *mut op_plan = "op_plan_get" => plan_entry("op_plan_get", name, set, part_size, nargs, args, ninds, inds, OP_STAGE_ALL, true);
    /// A plan with the given staging.
    op_plan_get_stage(name: *const c_char, set: op_set, part_size: c_int, nargs: c_int, args: *mut op_arg, ninds: c_int, inds: *mut c_int, staging: c_int) -> *mut op_plan = "op_plan_get_stage" => plan_entry("op_plan_get_stage", name, set, part_size, nargs, args, ninds, inds, staging, true);
    /// As op_plan_get_stage; with a device, `upload` 0 keeps the plan on the host.
    op_plan_get_stage_upload(name: *const c_char, set: op_set, part_size: c_int, nargs: c_int, args: *mut op_arg, ninds: c_int, inds: *mut c_int, staging: c_int, upload: c_int) -> *mut op_plan = "op_plan_get_stage_upload" => plan_entry("op_plan_get_stage_upload", name, set, part_size, nargs, args, ninds, inds, staging, upload != 0);
}
