//! Execution plans at the C ABI: the plan cache of `op_par_loop`, and OP2's
//! plan functions for translator-generated code (`op_plan_get*`,
//! `op_plan_core`, `op_plan_check`) with the `op_plan` struct they return.

use crate::ffi::*;
use crate::fingerprint::{hash_call, CallKey};
use crate::globals::{self, OP_part_size, OP_plan_time};
use crate::plan_cache::{input_of, CPlan, OwnedPlanArg, PlanKey};
use crate::state::{c_str, with_state, State};
use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::plan::{Plan, Staging};
use op2_core::{Op2Error, SetId};
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr::{addr_of, addr_of_mut};
use std::sync::Arc;
use std::time::Instant;

/// Block size of direct loops in op2-rs's own loops when OP_PART_SIZE is not
/// set (fixed, so reductions do not depend on the thread count).
pub(crate) const DIRECT_PART_SIZE: usize = 4096;

/// Block size of indirect loops in op2-rs's own loops when OP_PART_SIZE is
/// not set. OP2's default rule sizes blocks for a GPU's shared memory (256
/// elements for airfoil's res_calc); on CPU threads large blocks keep the
/// caches and prefetchers busy on contiguous data (airfoil's res_calc on 2
/// threads: 256-element blocks 1.2-1.4x slower than 4096). A function of the
/// set size only (never of the thread count, so results stay the same for
/// any number of threads): about 64 blocks per set, between 256 and 4096
/// elements, a multiple of 64.
pub(crate) fn indirect_part_size(set_size: usize) -> usize {
    (set_size / 64)
        .div_ceil(64)
        .saturating_mul(64)
        .clamp(256, 4096)
}

/// Build a plan, check it (debug builds, or OP_diags > 0), and account its time.
fn build_plan(st: &mut State, key: &PlanKey, full: bool, ip: usize) -> Plan {
    let diags = globals::diags();
    if diags > 1 {
        crate::printf::cout(&format!(
            " new execution plan #{ip} for kernel {}\n",
            key.name
        ));
    }
    let t0 = Instant::now();
    let mut plan = None;
    {
        let input = input_of(&st.dom, key, full);
        let work = st.dom.set(key.set).size;
        st.exec
            .install(work, &mut || plan = Some(Plan::build(&input)));
    }
    let plan = plan.expect("plan built");
    let secs = t0.elapsed().as_secs_f64();
    if cfg!(debug_assertions) || diags > 0 {
        let input = input_of(&st.dom, key, full);
        if let Err(e) = plan.check(&input) {
            crate::guard::internal(&format!("plan check failed for loop \"{}\": {e}", key.name));
        }
    }
    if diags > 1 {
        print_diags(&plan);
    }
    st.kernels.add_plan_time(&key.name, secs);
    // SAFETY: plain double global, API thread.
    unsafe { *addr_of_mut!(OP_plan_time) += secs };
    plan
}

fn print_diags(p: &Plan) {
    let mut s = String::new();
    s.push_str(&format!(" number of blocks       = {} \n", p.nblocks));
    s.push_str(&format!(" number of block colors = {} \n", p.ncolors));
    s.push_str(&format!(" maximum block size     = {} \n", p.bsize));
    s.push_str(&format!(
        " average thread colors  = {:.2} \n",
        p.avg_thread_colors
    ));
    let kb: Vec<String> = if p.nshared_col.is_empty() {
        vec![" 0.00 KB".into()]
    } else {
        p.nshared_col
            .iter()
            .map(|b| format!(" {:.2} KB", *b as f32 / 1024.0))
            .collect()
    };
    s.push_str(&format!(" shared memory required = {}\n", kb.join(",")));
    let reuse = p.maxbytes as f32 * (p.exec_length as f32 / p.total_shared);
    s.push_str(&format!(" average data reuse     = {} \n", c_float2(reuse)));
    s.push_str(&format!(
        " data transfer (used)   = {:.2} MB \n",
        p.transfer / (1024.0 * 1024.0)
    ));
    s.push_str(&format!(
        " data transfer (total)  = {:.2} MB \n",
        p.transfer2 / (1024.0 * 1024.0)
    ));
    s.push_str(&format!(
        " SoA/AoS transfer ratio = {} \n\n",
        c_float2(p.transfer3 / p.transfer2)
    ));
    crate::printf::cout(&s);
}

/// printf's `%.2f` (including `inf`/`nan` spellings).
fn c_float2(x: f32) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.into()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "inf" }.into()
    } else {
        format!("{x:.2}")
    }
}

/// The plan `op_par_loop` runs a checked loop by (cached per loop signature).
pub(crate) fn loop_plan(
    st: &mut State,
    name: &str,
    set: SetId,
    specs: &[ArgSpec],
    inds: &[i32],
    ninds: usize,
) -> Arc<Plan> {
    let mut args = Vec::with_capacity(specs.len());
    for (sp, &ind) in specs.iter().zip(inds) {
        match &sp.kind {
            ArgKind::Dat { dat, map, idx } => {
                let d = st.dom.dat(*dat);
                let (dat_bytes, dat_dim) = (d.elem_bytes, d.dim);
                // Indirect writes are coloured like RW: elements sharing a
                // target must not run concurrently.
                let access = if sp.access == Access::Write && map.is_some() {
                    Access::Rw
                } else {
                    sp.access
                };
                let cols: Vec<usize> = match (map, *idx) {
                    (None, _) => vec![0],
                    (Some(_), i) if i >= 0 => vec![i as usize],
                    (Some(_), i) => (0..(-i) as usize).collect(),
                };
                for c in cols {
                    args.push(OwnedPlanArg {
                        opt: sp.opt,
                        ind: if map.is_some() && sp.opt { ind } else { -1 },
                        map: if sp.opt { *map } else { None },
                        idx: c,
                        access,
                        gbl: false,
                        dat_bytes,
                        dat_dim,
                    });
                }
            }
            _ => args.push(OwnedPlanArg {
                opt: sp.opt,
                ind: -1,
                map: None,
                idx: 0,
                access: sp.access,
                gbl: matches!(sp.kind, ArgKind::Gbl),
                dat_bytes: 0,
                dat_dim: 0,
            }),
        }
    }
    // SAFETY: plain int global.
    let user_part = unsafe { globals::get(addr_of!(OP_part_size)) }.max(0) as usize;
    let part_size = if user_part > 0 {
        user_part
    } else if ninds == 0 {
        DIRECT_PART_SIZE
    } else {
        indirect_part_size(st.dom.set(set).size)
    };
    let key = PlanKey {
        name: name.to_string(),
        set,
        part_size,
        staging: OP_STAGE_ALL,
        ninds,
        args,
    };
    if let Some(p) = st.loop_plans.get(&key) {
        return p.clone();
    }
    let ip = st.loop_plans.len();
    let plan = Arc::new(build_plan(st, &key, false, ip));
    st.loop_plans.insert(key, plan.clone());
    plan
}

/// The raw inputs of an `op_plan_get*` call.
struct PlanCall<'a> {
    call: &'static str,
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    args: &'a [op_arg],
    ninds: c_int,
    inds: &'a [c_int],
    staging: c_int,
}

impl PlanCall<'_> {
    /// Does a cached plan answer this call? (Same raw args per the call
    /// cache; the numbers are compared here.)
    fn answers(&self, key: &PlanKey) -> bool {
        key.part_size == self.part_size.max(0) as usize
            && key.staging == self.staging
            && key.ninds == self.ninds as usize
            && key.args.len() == self.inds.len()
            && key.args.iter().zip(self.inds).all(|(a, &i)| a.ind == i)
    }

    /// Check the call and turn it into a plan key.
    unsafe fn key(&self, st: &State) -> op2_core::Result<PlanKey> {
        let (call, ninds) = (self.call, self.ninds);
        let lname = c_str(call, "the kernel name", self.name)?;
        let o = obj("loop", &lname);
        let err = |m: String| Op2Error::new(call, o.clone(), m);
        let s = st.set_id(call, self.set).map_err(|e| err(e.msg))?;
        Staging::from_c(self.staging).ok_or_else(|| {
            err(format!(
                "staging {} is not OP_STAGE_*/OP_COLOR2",
                self.staging
            ))
        })?;
        let mut owned = Vec::with_capacity(self.args.len());
        for (m, (a, &ind)) in self.args.iter().zip(self.inds).enumerate() {
            owned.push(
                plan_arg(st, call, s, a, ind, ninds)
                    .map_err(|msg| err(format!("arg {m}: {msg}")))?,
            );
        }
        if let Some(g) = (0..ninds).find(|g| !self.inds.contains(g)) {
            return Err(err(format!(
                "indirect group {g} has no argument (inds does not list it)"
            )));
        }
        Ok(PlanKey {
            name: lname,
            set: s,
            part_size: self.part_size.max(0) as usize,
            staging: self.staging,
            ninds: ninds as usize,
            args: owned,
        })
    }
}

/// One argument of a generated loop as the planner sees it.
unsafe fn plan_arg(
    st: &State,
    call: &str,
    s: SetId,
    a: &op_arg,
    ind: c_int,
    ninds: c_int,
) -> Result<OwnedPlanArg, String> {
    if ind < -1 || ind >= ninds {
        return Err(format!("inds = {ind} is outside [-1, {ninds})"));
    }
    let opt = a.opt != 0;
    let access = Access::from_c(a.acc).unwrap_or(Access::Read);
    let (map, dat_bytes, dat_dim) = if a.argtype == OP_ARG_DAT && !a.dat.is_null() && opt {
        let d = st.dat_id(call, a.dat).map_err(|e| e.msg)?;
        let dt = st.dom.dat(d);
        let map = st.opt_map_id(call, a.map).map_err(|e| e.msg)?;
        (map, dt.elem_bytes, dt.dim)
    } else {
        (None, a.size.max(0) as usize, a.dim.max(0) as usize)
    };
    if ind >= 0 && opt {
        let Some(m_id) = map else {
            return Err(format!("inds = {ind} but the argument has no map"));
        };
        let mp = st.dom.map(m_id);
        if a.idx < 0 || a.idx as usize >= mp.dim {
            return Err(format!("idx {} of an indirect argument must be a column of map \"{}\" (expand vector arguments first)", a.idx, mp.name));
        }
        if mp.from != s {
            return Err(format!("map \"{}\" is not from the loop set", mp.name));
        }
    }
    Ok(OwnedPlanArg {
        opt,
        ind,
        map: if ind >= 0 && opt { map } else { None },
        idx: a.idx.max(0) as usize,
        access,
        gbl: a.argtype == OP_ARG_GBL,
        dat_bytes,
        dat_dim,
    })
}

/// Build a plan for generated code, keep it behind `OP_plans`, return its index.
fn new_c_plan(st: &mut State, key: PlanKey, pc: &PlanCall<'_>) -> usize {
    let ip = st.c_plans.plans.len();
    let plan = build_plan(st, &key, true, ip);
    let args = pc.args;
    let mut cp = Box::new(CPlan {
        _name: CString::new(key.name.replace('\0', "")).unwrap_or_default(),
        plan,
        maps: args.iter().map(|a| a.map).collect(),
        dats: args.iter().map(|a| a.dat).collect(),
        idxs: args.iter().map(|a| a.idx).collect(),
        optflags: args.iter().map(|a| a.opt).collect(),
        accs: args.iter().map(|a| a.acc).collect(),
        inds_staged: Vec::new(),
        col_offsets: Vec::new(),
        ind_maps: Vec::new(),
        loc_maps: Vec::new(),
        key,
    });
    cp.inds_staged = cp.plan.inds_staged.clone();
    let c = cp.c_struct(pc.set);
    if st.c_plans.structs.capacity() == 0 {
        st.c_plans.structs.reserve(256);
    }
    st.c_plans.structs.push(c);
    st.c_plans.plans.push(cp);
    st.c_plans.publish();
    ip
}

/// `op_plan_get*`: the cached plan of this loop call, built on first use.
/// A repeated call is recognised from its raw arguments (no allocation).
unsafe fn plan_core(pc: PlanCall<'_>) -> *mut op_plan {
    with_state(pc.call, |st| {
        let hash = hash_call(pc.name, pc.set, 0, pc.args);
        let gen = st.generation;
        let hit = st
            .c_plans
            .by_call
            .get(gen, hash, pc.name, pc.set, 0, pc.args)
            .copied()
            .filter(|&i| pc.answers(&st.c_plans.plans[i].key));
        let (i, old) = match hit {
            Some(i) => (i, true),
            None => {
                let key = pc.key(st)?;
                let found = st.c_plans.find(&key);
                let i = found.unwrap_or_else(|| new_c_plan(st, key, &pc));
                let ck = CallKey::new(pc.name, pc.set, 0, pc.args);
                st.c_plans.by_call.insert(hash, ck, i);
                (i, found.is_some())
            }
        };
        if old {
            if globals::diags() > 3 {
                crate::printf::cout(&format!(" old execution plan #{i}\n"));
            }
            st.c_plans.structs[i].count += 1;
        }
        Ok(&mut st.c_plans.structs[i] as *mut op_plan)
    })
}

/// Check the raw pointers of an `op_plan_get*` call and run it.
#[allow(clippy::too_many_arguments)]
unsafe fn plan_entry(
    call: &'static str,
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *const op_arg,
    ninds: c_int,
    inds: *const c_int,
    staging: c_int,
    upload: bool,
) -> *mut op_plan {
    if nargs < 0 || (nargs > 0 && (args.is_null() || inds.is_null())) || ninds < 0 {
        let n = if name.is_null() {
            "?".into()
        } else {
            std::ffi::CStr::from_ptr(name).to_string_lossy()
        };
        crate::guard::fatal(&Op2Error::new(
            call,
            obj("loop", &n),
            format!("nargs {nargs}, ninds {ninds}, args {args:p}, inds {inds:p}"),
        ));
    }
    let n = nargs as usize;
    let (args, inds) = if n == 0 {
        (&[][..], &[][..])
    } else {
        (
            std::slice::from_raw_parts(args, n),
            std::slice::from_raw_parts(inds, n),
        )
    };
    let plan = plan_core(PlanCall {
        call,
        name,
        set,
        part_size,
        args,
        ninds,
        inds,
        staging,
    });
    if upload && crate::globals::hybrid_gpu() {
        with_state(call, |st| st.device_upload_plan(call, plan));
    }
    plan
}

/// OP2's plan builder (cached): blocks, renumbering, two-level colouring.
#[no_mangle]
pub unsafe extern "C" fn op_plan_core(
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *mut op_arg,
    ninds: c_int,
    inds: *mut c_int,
    staging: c_int,
) -> *mut op_plan {
    plan_entry(
        "op_plan_core",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
        false,
    )
}

/// A plan staging every indirect dat (`OP_STAGE_ALL`).
#[no_mangle]
pub unsafe extern "C" fn op_plan_get(
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *mut op_arg,
    ninds: c_int,
    inds: *mut c_int,
) -> *mut op_plan {
    plan_entry(
        "op_plan_get",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        OP_STAGE_ALL,
        true,
    )
}

/// A plan with the given staging.
#[no_mangle]
pub unsafe extern "C" fn op_plan_get_stage(
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *mut op_arg,
    ninds: c_int,
    inds: *mut c_int,
    staging: c_int,
) -> *mut op_plan {
    plan_entry(
        "op_plan_get_stage",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
        true,
    )
}

/// As op_plan_get_stage; with a device, `upload` 0 keeps the plan on the host.
#[no_mangle]
pub unsafe extern "C" fn op_plan_get_stage_upload(
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *mut op_arg,
    ninds: c_int,
    inds: *mut c_int,
    staging: c_int,
    upload: c_int,
) -> *mut op_plan {
    plan_entry(
        "op_plan_get_stage_upload",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
        upload != 0,
    )
}

/// Verify a plan returned by op_plan_get*: no two blocks (or elements in a
/// block) of one colour modify the same element. Stops the program if not.
#[no_mangle]
pub unsafe extern "C" fn op_plan_check(plan: op_plan, _ninds: c_int, _inds: *mut c_int) {
    let call = "op_plan_check";
    with_state(call, |st| {
        let i = st
            .c_plans
            .structs
            .iter()
            .position(|c| std::ptr::eq(c.name, plan.name) && std::ptr::eq(c.blkmap, plan.blkmap))
            .ok_or_else(|| Op2Error::new(call, "", "the plan was not returned by op_plan_get*"))?;
        let key = st.c_plans.plans[i].key.clone();
        let input = input_of(&st.dom, &key, true);
        st.c_plans.plans[i].plan.check(&input).map_err(|e| {
            Op2Error::new(
                call,
                obj("loop", &key.name),
                format!("plan check failed: {e}"),
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use op2_core::dist::SingleNode;
    use op2_core::domain::MapCheck;
    use op2_core::invoke::{Executor, Invoker, LoopRun};
    use op2_core::{DatId, MapId};

    fn state() -> (State, SetId, MapId, DatId, DatId) {
        let mut st = State::new(Arc::new(NoExec), Box::new(SingleNode::new()));
        let nodes = st.dom.decl_set(5, "nodes").unwrap();
        let edges = st.dom.decl_set(4, "edges").unwrap();
        st.mirror_set(nodes);
        st.mirror_set(edges);
        let m = st
            .dom
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 1, 2, 2, 3, 3, 4],
                0,
                "pedge",
                MapCheck::Local,
            )
            .unwrap();
        st.mirror_map(m, std::ptr::null());
        let x = st
            .dom
            .decl_dat("t", nodes, 1, "double", 8, None, "x", false)
            .unwrap();
        let y = st
            .dom
            .decl_dat("t", nodes, 1, "double", 8, None, "y", false)
            .unwrap();
        (st, edges, m, x, y)
    }

    /// Plans only: nothing here executes a loop.
    struct NoExec;
    impl Executor for NoExec {
        fn name(&self) -> &'static str {
            "none"
        }
        unsafe fn execute(&self, _run: &LoopRun<'_>, _inv: &dyn Invoker) -> op2_core::Result<()> {
            unreachable!("the plan tests run no loop")
        }
    }

    fn arg(dat: DatId, map: MapId, idx: i32, access: Access) -> ArgSpec {
        ArgSpec {
            kind: ArgKind::Dat {
                dat,
                map: Some(map),
                idx,
            },
            dim: 1,
            type_name: "double".into(),
            access,
            opt: true,
        }
    }

    #[test]
    fn plan_cache_hits_identical_loops_and_misses_on_any_difference() {
        let (mut st, edges, m, x, y) = state();
        let a = [arg(x, m, 0, Access::Inc), arg(x, m, 1, Access::Inc)];
        let p1 = loop_plan(&mut st, "l", edges, &a, &[0, 0], 1);
        let p2 = loop_plan(&mut st, "l", edges, &a, &[0, 0], 1);
        assert!(Arc::ptr_eq(&p1, &p2), "identical loop must reuse the plan");
        assert_eq!((p1.nblocks, p1.ncolors), (1, 1));
        let variants: Vec<(&str, Vec<ArgSpec>)> = vec![
            ("other name", a.to_vec()),
            (
                "l",
                vec![arg(x, m, 0, Access::Read), arg(x, m, 1, Access::Inc)],
            ),
            (
                "l",
                vec![arg(x, m, 1, Access::Inc), arg(x, m, 0, Access::Inc)],
            ),
            ("l", vec![arg(x, m, 0, Access::Inc)]),
        ];
        for (name, v) in variants {
            let inds = vec![0; v.len()];
            let p = loop_plan(&mut st, name, edges, &v, &inds, 1);
            assert!(!Arc::ptr_eq(&p1, &p), "{name} {v:?} must get its own plan");
        }
        // A different dat with the same shape shares the plan (as in OP2), and
        // so does the vector form of the same two columns.
        let b = [arg(y, m, 0, Access::Inc), arg(y, m, 1, Access::Inc)];
        assert!(Arc::ptr_eq(
            &p1,
            &loop_plan(&mut st, "l", edges, &b, &[0, 0], 1)
        ));
        assert!(Arc::ptr_eq(
            &p1,
            &loop_plan(&mut st, "l", edges, &[arg(x, m, -2, Access::Inc)], &[0], 1)
        ));
        assert_eq!(st.loop_plans.len(), 5);
    }
}
