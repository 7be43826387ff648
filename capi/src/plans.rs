//! Execution plans at the C ABI: the plan cache of `op_par_loop`, and OP2's
//! plan functions for translator-generated code (`op_plan_get*`,
//! `op_plan_core`, `op_plan_check`) with the `op_plan` struct they return.

use crate::ffi::*;
use crate::globals::{
    self, OP_cache_line_size, OP_part_size, OP_plan_index, OP_plan_max, OP_plan_time, OP_plans,
};
use crate::state::{c_str, with_state, State};
use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};
use op2_core::{MapId, Op2Error, SetId};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_short};
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::Arc;
use std::time::Instant;

/// Block size of direct loops in op2-rs's own loops when OP_PART_SIZE is not
/// set (fixed, so reductions do not depend on the thread count).
pub(crate) const DIRECT_PART_SIZE: usize = 4096;

/// A planner argument with owned handles (so a plan can be re-checked later).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OwnedPlanArg {
    opt: bool,
    ind: i32,
    map: Option<MapId>,
    idx: usize,
    access: Access,
    gbl: bool,
    dat_bytes: usize,
    dat_dim: usize,
}

/// Everything that identifies a plan (OP2's cache key, with map identities).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    name: String,
    set: SetId,
    part_size: usize,
    staging: i32,
    ninds: usize,
    args: Vec<OwnedPlanArg>,
}

impl OwnedPlanArg {
    fn borrow<'a>(&self, st: &'a State) -> PlanArg<'a> {
        let (map, map_dim, to_size) = match self.map {
            Some(m) => {
                let mp = st.dom.map(m);
                (&mp.values[..], mp.dim, st.dom.set(mp.to).total_size())
            }
            None => (&[][..], 0, 0),
        };
        PlanArg {
            opt: self.opt,
            ind: self.ind,
            map,
            map_dim,
            idx: self.idx,
            access: self.access,
            gbl: self.gbl,
            dat_bytes: self.dat_bytes,
            dat_dim: self.dat_dim,
            to_size,
        }
    }
}

fn input_of<'a>(st: &'a State, key: &PlanKey, full: bool) -> PlanInput<'a> {
    let s = st.dom.set(key.set);
    PlanInput {
        set_size: s.size,
        core_size: s.core_size,
        exec_size: s.exec_size,
        part_size: key.part_size,
        staging: Staging::from_c(key.staging).unwrap_or(Staging::All),
        args: key.args.iter().map(|a| a.borrow(st)).collect(),
        ninds: key.ninds,
        // SAFETY: plain int global.
        cache_line_size: unsafe { globals::get(addr_of!(OP_cache_line_size)) }.max(1) as usize,
        full,
    }
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
        let input = input_of(st, key, full);
        st.exec.install(&mut || plan = Some(Plan::build(&input)));
    }
    let plan = plan.expect("plan built");
    let secs = t0.elapsed().as_secs_f64();
    if cfg!(debug_assertions) || diags > 0 {
        let input = input_of(st, key, full);
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
        0
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

// ---- the C plan ABI ---------------------------------------------------------

/// A plan returned to generated code, with the arrays its `op_plan` points into.
pub(crate) struct CPlan {
    key: PlanKey,
    plan: Plan,
    _name: CString,
    maps: Vec<op_map>,
    dats: Vec<op_dat>,
    idxs: Vec<c_int>,
    optflags: Vec<c_int>,
    accs: Vec<op_access>,
    inds_staged: Vec<c_int>,
    col_offsets: Vec<*mut c_int>,
    ind_maps: Vec<*mut c_int>,
    loc_maps: Vec<*mut c_short>,
}

/// Storage behind `OP_plans`.
#[derive(Default)]
pub(crate) struct CPlans {
    /// Boxed: `op_plan` points into each CPlan's vectors, which must not move.
    #[allow(clippy::vec_box)]
    pub(crate) plans: Vec<Box<CPlan>>,
    /// The array `OP_plans` points to (reserved so it rarely moves).
    pub(crate) structs: Vec<op_plan>,
}

fn ptr_or_null<T>(v: &mut [T]) -> *mut T {
    if v.is_empty() {
        null_mut()
    } else {
        v.as_mut_ptr()
    }
}

impl CPlan {
    fn c_struct(&mut self, set: op_set) -> op_plan {
        let p = &mut self.plan;
        let base_thr = p.col_offsets.as_mut_ptr();
        self.col_offsets = p
            .col_offsets_start
            .iter()
            .map(|&s| unsafe { base_thr.add(s) })
            .collect();
        let im = p.ind_map.as_mut_ptr();
        self.ind_maps = p
            .ind_maps_start
            .iter()
            .map(|&s| unsafe { im.add(s) })
            .collect();
        let lm = p.loc_map.as_mut_ptr();
        self.loc_maps = p
            .loc_maps_start
            .iter()
            .map(|s| s.map(|s| unsafe { lm.add(s) }).unwrap_or(null_mut()))
            .collect();
        op_plan {
            name: self._name.as_ptr(),
            set,
            nargs: self.maps.len() as c_int,
            ninds: p.ninds as c_int,
            ninds_staged: p.ninds_staged as c_int,
            part_size: self.key.part_size as c_int,
            maps: ptr_or_null(&mut self.maps),
            dats: ptr_or_null(&mut self.dats),
            idxs: ptr_or_null(&mut self.idxs),
            optflags: ptr_or_null(&mut self.optflags),
            accs: ptr_or_null(&mut self.accs),
            inds_staged: ptr_or_null(&mut self.inds_staged),
            nthrcol: ptr_or_null(&mut p.nthrcol),
            thrcol: ptr_or_null(&mut p.thrcol),
            col_reord: ptr_or_null(&mut p.col_reord),
            col_offsets: ptr_or_null(&mut self.col_offsets),
            color2_offsets: if self.key.staging == OP_COLOR2 {
                self.col_offsets.first().copied().unwrap_or(null_mut())
            } else {
                null_mut()
            },
            offset: ptr_or_null(&mut p.offset),
            offset_d: null_mut(),
            ind_map: ptr_or_null(&mut p.ind_map),
            ind_maps: ptr_or_null(&mut self.ind_maps),
            ind_offs: ptr_or_null(&mut p.ind_offs),
            ind_sizes: ptr_or_null(&mut p.ind_sizes),
            nindirect: ptr_or_null(&mut p.nindirect),
            loc_map: ptr_or_null(&mut p.loc_map),
            loc_maps: ptr_or_null(&mut self.loc_maps),
            nblocks: p.nblocks as c_int,
            nelems: ptr_or_null(&mut p.nelems),
            nelems_d: null_mut(),
            ncolors_core: p.ncolors_core as c_int,
            ncolors_owned: p.ncolors_owned as c_int,
            ncolors: p.ncolors as c_int,
            ncolblk: ptr_or_null(&mut p.ncolblk),
            blkmap: ptr_or_null(&mut p.blkmap),
            blkmap_d: null_mut(),
            nsharedCol: ptr_or_null(&mut p.nshared_col),
            nshared: p.nshared,
            transfer: p.transfer,
            transfer2: p.transfer2,
            count: 1,
        }
    }
}

impl CPlans {
    fn publish(&mut self) {
        // SAFETY: OP_plans mirrors our Vec; updated under the state lock.
        unsafe {
            *addr_of_mut!(OP_plans) = ptr_or_null(&mut self.structs);
            globals::set(addr_of_mut!(OP_plan_index), self.structs.len() as c_int);
            globals::set(addr_of_mut!(OP_plan_max), self.structs.capacity() as c_int);
        }
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn plan_core(
    call: &'static str,
    name: *const c_char,
    set: op_set,
    part_size: c_int,
    nargs: c_int,
    args: *const op_arg,
    ninds: c_int,
    inds: *const c_int,
    staging: c_int,
) -> *mut op_plan {
    with_state(call, |st| {
        let lname = c_str(call, "the kernel name", name)?;
        let o = obj("loop", &lname);
        let err = |m: String| Op2Error::new(call, o.clone(), m);
        let s = st.set_id(call, set).map_err(|e| err(e.msg))?;
        if nargs < 0 || (nargs > 0 && (args.is_null() || inds.is_null())) || ninds < 0 {
            return Err(err(format!(
                "nargs {nargs}, ninds {ninds}, args {args:p}, inds {inds:p}"
            )));
        }
        Staging::from_c(staging)
            .ok_or_else(|| err(format!("staging {staging} is not OP_STAGE_*/OP_COLOR2")))?;
        let cargs = std::slice::from_raw_parts(args, nargs as usize);
        let cinds = std::slice::from_raw_parts(inds, nargs as usize);
        let mut owned = Vec::with_capacity(cargs.len());
        for (m, (a, &ind)) in cargs.iter().zip(cinds).enumerate() {
            let aerr = |msg: String| err(format!("arg {m}: {msg}"));
            if ind < -1 || ind >= ninds {
                return Err(aerr(format!("inds[{m}] = {ind} is outside [-1, {ninds})")));
            }
            let opt = a.opt != 0;
            let access = Access::from_c(a.acc).unwrap_or(Access::Read);
            let (map, dat_bytes, dat_dim) = if a.argtype == OP_ARG_DAT && !a.dat.is_null() && opt {
                let d = st.dat_id(call, a.dat).map_err(|e| aerr(e.msg))?;
                let dt = st.dom.dat(d);
                let map = st.opt_map_id(call, a.map).map_err(|e| aerr(e.msg))?;
                (map, dt.elem_bytes, dt.dim)
            } else {
                (None, a.size.max(0) as usize, a.dim.max(0) as usize)
            };
            if ind >= 0 && opt {
                let Some(m_id) = map else {
                    return Err(aerr(format!(
                        "inds[{m}] = {ind} but the argument has no map"
                    )));
                };
                let mp = st.dom.map(m_id);
                if a.idx < 0 || a.idx as usize >= mp.dim {
                    return Err(aerr(format!("idx {} of an indirect argument must be a column of map \"{}\" (expand vector arguments first)", a.idx, mp.name)));
                }
                if mp.from != s {
                    return Err(aerr(format!(
                        "map \"{}\" is not from the loop set",
                        mp.name
                    )));
                }
            }
            owned.push(OwnedPlanArg {
                opt,
                ind,
                map: if ind >= 0 && opt { map } else { None },
                idx: a.idx.max(0) as usize,
                access,
                gbl: a.argtype == OP_ARG_GBL,
                dat_bytes,
                dat_dim,
            });
        }
        for g in 0..ninds {
            if !cinds.contains(&g) {
                return Err(err(format!(
                    "indirect group {g} has no argument (inds does not list it)"
                )));
            }
        }
        let key = PlanKey {
            name: lname.clone(),
            set: s,
            part_size: part_size.max(0) as usize,
            staging,
            ninds: ninds as usize,
            args: owned,
        };
        if let Some(i) = st.c_plans.plans.iter().position(|p| p.key == key) {
            if globals::diags() > 3 {
                crate::printf::cout(&format!(" old execution plan #{i}\n"));
            }
            st.c_plans.structs[i].count += 1;
            return Ok(&mut st.c_plans.structs[i] as *mut op_plan);
        }
        let ip = st.c_plans.plans.len();
        let plan = build_plan(st, &key, true, ip);
        let mut cp = Box::new(CPlan {
            _name: CString::new(lname.replace('\0', "")).unwrap_or_default(),
            plan,
            maps: cargs.iter().map(|a| a.map).collect(),
            dats: cargs.iter().map(|a| a.dat).collect(),
            idxs: cargs.iter().map(|a| a.idx).collect(),
            optflags: cargs.iter().map(|a| a.opt).collect(),
            accs: cargs.iter().map(|a| a.acc).collect(),
            inds_staged: Vec::new(),
            col_offsets: Vec::new(),
            ind_maps: Vec::new(),
            loc_maps: Vec::new(),
            key,
        });
        cp.inds_staged = cp.plan.inds_staged.clone();
        let c = cp.c_struct(set);
        if st.c_plans.structs.capacity() == 0 {
            st.c_plans.structs.reserve(256);
        }
        st.c_plans.structs.push(c);
        st.c_plans.plans.push(cp);
        st.c_plans.publish();
        Ok(st.c_plans.structs.last_mut().unwrap() as *mut op_plan)
    })
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
    plan_core(
        "op_plan_core",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
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
    plan_core(
        "op_plan_get",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        OP_STAGE_ALL,
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
    plan_core(
        "op_plan_get_stage",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
    )
}

/// As op_plan_get_stage; `upload` only matters for device libraries.
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
    _upload: c_int,
) -> *mut op_plan {
    plan_core(
        "op_plan_get_stage_upload",
        name,
        set,
        part_size,
        nargs,
        args,
        ninds,
        inds,
        staging,
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
        let input = input_of(st, &key, true);
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
    use op2_core::domain::MapCheck;
    use op2_core::DatId;

    fn state() -> (State, SetId, MapId, DatId, DatId) {
        let mut st = State::new(Arc::new(op2_backend_threads_or_seq()));
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

    #[cfg(feature = "lib-seq")]
    fn op2_backend_threads_or_seq() -> op2_backend_seq::Seq {
        op2_backend_seq::Seq
    }
    #[cfg(any(feature = "lib-openmp", feature = "lib-mpi"))]
    fn op2_backend_threads_or_seq() -> op2_backend_threads::Threads {
        op2_backend_threads::Threads::new(2)
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
