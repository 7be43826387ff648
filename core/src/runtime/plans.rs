//! Plan policy and plan caches: which execution plan a loop runs by, how it
//! is built, checked and described, and the keys plans are cached under
//! (OP2's, with map identities). Loops the runtime runs share a plan per key
//! ([`Runtime::loop_plan`]); front ends that hand plans to generated code
//! (OP2's `op_plan_get*`) build them with [`Runtime::build_plan`].

use super::{Mirror, Runtime};
use crate::arg::{Access, ArgKind, ArgSpec};
use crate::domain::{Domain, MapId, SetId};
use crate::error::{Op2Error, Result};
use crate::plan::{Plan, PlanArg, PlanInput, Staging};
use std::sync::Arc;
use std::time::Instant;

/// Block size of direct loops the runtime runs when `OP_PART_SIZE` is not
/// set (fixed, so reductions do not depend on the thread count).
pub const DIRECT_PART_SIZE: usize = 4096;

/// Block size of indirect loops the runtime runs when `OP_PART_SIZE` is not
/// set. OP2's default rule sizes blocks for a GPU's shared memory (256
/// elements for airfoil's res_calc); on CPU threads large blocks keep the
/// caches and prefetchers busy on contiguous data (airfoil's res_calc on 2
/// threads: 256-element blocks 1.2-1.4x slower than 4096). A function of the
/// set size only (never of the thread count, so results stay the same for
/// any number of threads): about 64 blocks per set, between 256 and 4096
/// elements, a multiple of 64.
pub fn indirect_part_size(set_size: usize) -> usize {
    (set_size / 64)
        .div_ceil(64)
        .saturating_mul(64)
        .clamp(256, 4096)
}

/// One planner argument with owned identities (so a plan can be rebuilt
/// or checked later against the current mesh).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlanArgKey {
    pub opt: bool,
    pub ind: i32,
    pub map: Option<MapId>,
    pub idx: usize,
    pub access: Access,
    pub gbl: bool,
    pub dat_bytes: usize,
    pub dat_dim: usize,
}

/// Everything that identifies a plan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlanKey {
    pub name: String,
    pub set: SetId,
    pub part_size: usize,
    pub staging: Staging,
    pub ninds: usize,
    pub args: Vec<PlanArgKey>,
}

impl PlanArgKey {
    fn borrow<'a>(&self, dom: &'a Domain) -> PlanArg<'a> {
        let (map, map_dim, to_size) = match self.map {
            Some(m) => {
                let mp = dom.map(m);
                (&mp.values[..], mp.dim, dom.set(mp.to).total_size())
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

impl PlanKey {
    /// The planner's input for this key on the current mesh (`full`: with
    /// the per-element arrays generated code needs).
    pub fn input<'a>(&self, dom: &'a Domain, cache_line_size: usize, full: bool) -> PlanInput<'a> {
        let s = dom.set(self.set);
        PlanInput {
            set_size: s.size,
            core_size: s.core_size,
            exec_size: s.exec_size,
            part_size: self.part_size,
            staging: self.staging,
            args: self.args.iter().map(|a| a.borrow(dom)).collect(),
            ninds: self.ninds,
            cache_line_size: cache_line_size.max(1),
            full,
        }
    }
}

/// An argument of a loop that generated code runs, as `op_plan_get*`
/// receives it (handles resolved to ids; `dat` only for a switched-on dat
/// argument).
#[derive(Clone, Copy, Debug)]
pub struct GeneratedPlanArg {
    pub opt: bool,
    /// OP2's access code.
    pub acc: i32,
    pub gbl: bool,
    pub dat: Option<crate::domain::DatId>,
    pub map: Option<MapId>,
    pub idx: i32,
    /// `arg.size` and `arg.dim` (used when there is no dat).
    pub size: i32,
    pub dim: i32,
}

impl GeneratedPlanArg {
    /// The planner's view of the argument in indirect group `ind` of
    /// `ninds`, checked against the loop set.
    fn key(
        &self,
        dom: &Domain,
        set: SetId,
        ind: i32,
        ninds: i32,
    ) -> std::result::Result<PlanArgKey, String> {
        if ind < -1 || ind >= ninds {
            return Err(format!("inds = {ind} is outside [-1, {ninds})"));
        }
        let (map, dat_bytes, dat_dim) = match self.dat {
            Some(d) => (self.map, dom.dat(d).elem_bytes, dom.dat(d).dim),
            None => (None, self.size.max(0) as usize, self.dim.max(0) as usize),
        };
        if ind >= 0 && self.opt {
            let Some(m) = map else {
                return Err(format!("inds = {ind} but the argument has no map"));
            };
            let mp = dom.map(m);
            if self.idx < 0 || self.idx as usize >= mp.dim {
                return Err(format!("idx {} of an indirect argument must be a column of map \"{}\" (expand vector arguments first)", self.idx, mp.name));
            }
            if mp.from != set {
                return Err(format!("map \"{}\" is not from the loop set", mp.name));
            }
        }
        Ok(PlanArgKey {
            opt: self.opt,
            ind,
            map: if ind >= 0 && self.opt { map } else { None },
            idx: self.idx.max(0) as usize,
            access: Access::from_c(self.acc).unwrap_or(Access::Read),
            gbl: self.gbl,
            dat_bytes,
            dat_dim,
        })
    }
}

impl PlanKey {
    /// OP2's plan key of a loop of generated code (`op_plan_get*`: block
    /// size, staging, indirect groups `inds` of `ninds`), checked.
    #[allow(clippy::too_many_arguments)]
    pub fn generated(
        dom: &Domain,
        name: String,
        set: SetId,
        part_size: i32,
        staging: i32,
        ninds: i32,
        args: &[GeneratedPlanArg],
        inds: &[i32],
    ) -> Result<PlanKey> {
        let err = |m: String| Op2Error::new("", crate::error::obj("loop", &name), m);
        let staging = Staging::from_c(staging)
            .ok_or_else(|| err(format!("staging {staging} is not OP_STAGE_*/OP_COLOR2")))?;
        let keys = args
            .iter()
            .zip(inds)
            .enumerate()
            .map(|(m, (a, &ind))| {
                a.key(dom, set, ind, ninds)
                    .map_err(|e| err(format!("arg {m}: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(g) = (0..ninds).find(|g| !inds.contains(g)) {
            return Err(err(format!(
                "indirect group {g} has no argument (inds does not list it)"
            )));
        }
        Ok(PlanKey {
            name,
            set,
            part_size: part_size.max(0) as usize,
            staging,
            ninds: ninds as usize,
            args: keys,
        })
    }

    /// Does this key answer a call with these numbers (the same raw
    /// arguments otherwise)?
    pub fn answers(&self, part_size: i32, staging: i32, ninds: i32, inds: &[i32]) -> bool {
        self.part_size == part_size.max(0) as usize
            && self.staging as i32 == staging
            && self.ninds == ninds as usize
            && self.args.len() == inds.len()
            && self.args.iter().zip(inds).all(|(a, &i)| a.ind == i)
    }
}

/// The planner arguments of a checked loop. Each column of a vector
/// argument is one planner argument; an indirect OP_WRITE is coloured like
/// OP_RW (elements sharing a target must not run concurrently).
pub(crate) fn loop_plan_args(dom: &Domain, specs: &[ArgSpec], inds: &[i32]) -> Vec<PlanArgKey> {
    let mut args = Vec::with_capacity(specs.len());
    for (sp, &ind) in specs.iter().zip(inds) {
        let ArgKind::Dat { dat, map, idx } = &sp.kind else {
            args.push(PlanArgKey {
                opt: sp.opt,
                ind: -1,
                map: None,
                idx: 0,
                access: sp.access,
                gbl: matches!(sp.kind, ArgKind::Gbl),
                dat_bytes: 0,
                dat_dim: 0,
            });
            continue;
        };
        let d = dom.dat(*dat);
        let access = if sp.access == Access::Write && map.is_some() {
            Access::Rw
        } else {
            sp.access
        };
        let cols = match (map, *idx) {
            (None, _) => 0..1,
            (Some(_), i) if i >= 0 => i as usize..i as usize + 1,
            (Some(_), i) => 0..(-i) as usize,
        };
        for c in cols {
            args.push(PlanArgKey {
                opt: sp.opt,
                ind: if map.is_some() && sp.opt { ind } else { -1 },
                map: if sp.opt { *map } else { None },
                idx: c,
                access,
                gbl: false,
                dat_bytes: d.elem_bytes,
                dat_dim: d.dim,
            });
        }
    }
    args
}

impl Runtime {
    /// The plan a checked loop runs by: `OP_PART_SIZE` when set, else
    /// [`DIRECT_PART_SIZE`] for direct loops and [`indirect_part_size`] for
    /// indirect ones; cached per key.
    pub(crate) fn loop_plan(
        &mut self,
        m: &mut dyn Mirror,
        name: &str,
        set: SetId,
        specs: &[ArgSpec],
        inds: &[i32],
        ninds: usize,
    ) -> Result<Arc<Plan>> {
        let part_size = match self.config.part_size.max(0) as usize {
            0 if ninds == 0 => DIRECT_PART_SIZE,
            0 => indirect_part_size(self.dom.set(set).size),
            p => p,
        };
        let key = PlanKey {
            name: name.to_string(),
            set,
            part_size,
            staging: Staging::All,
            ninds,
            args: loop_plan_args(&self.dom, specs, inds),
        };
        if let Some(p) = self.plans.get(&key) {
            return Ok(p.clone());
        }
        let number = self.plans.len();
        let plan = Arc::new(self.build_plan(m, &key, false, number)?);
        self.plans.insert(key, plan.clone());
        Ok(plan)
    }

    /// Plans the runtime's loops run by (for tests and diagnostics).
    pub fn loop_plans(&self) -> usize {
        self.plans.len()
    }

    /// Build the plan of `key` (number `number` in OP2's messages) on the
    /// executor's threads; checked when `OP_diags > 0` (always in debug
    /// builds), described when `OP_diags > 1`; its time goes to the loop's
    /// record through `m`.
    pub fn build_plan(
        &mut self,
        m: &mut dyn Mirror,
        key: &PlanKey,
        full: bool,
        number: usize,
    ) -> Result<Plan> {
        let diags = self.config.diags;
        if diags > 1 {
            self.say(&format!(
                " new execution plan #{number} for kernel {}\n",
                key.name
            ));
        }
        let line = self.config.cache_line_size.max(1) as usize;
        let t0 = Instant::now();
        let mut plan = None;
        {
            let input = key.input(&self.dom, line, full);
            let work = self.dom.set(key.set).size;
            self.exec
                .install(work, &mut || plan = Some(Plan::build(&input)));
        }
        let plan =
            plan.ok_or_else(|| Op2Error::internal("", "the executor did not build the plan"))?;
        let secs = t0.elapsed().as_secs_f64();
        if cfg!(debug_assertions) || diags > 0 {
            plan.check(&key.input(&self.dom, line, full)).map_err(|e| {
                Op2Error::internal(
                    "",
                    format!("plan check failed for loop \"{}\": {e}", key.name),
                )
            })?;
        }
        if diags > 1 {
            self.say(&describe(&plan));
        }
        m.plan_built(&key.name, secs);
        self.picture_plan(&key.name, key.set, &plan);
        Ok(plan)
    }

    /// `OP2_RS_PLAN_CSV=DIR` and `OP2_RS_PLAN_VTK=DIR`: the first plan of
    /// each loop is written as `DIR/<loop>.csv` / `DIR/<loop>.vtk`
    /// (`<loop>.rank<r>.csv|vtk` on several processes); a directory that
    /// cannot be written is one line on stderr, nothing more is tried
    /// there, and the run goes on.
    fn picture_plan(&mut self, name: &str, set: SetId, plan: &Plan) {
        let vars = [PLAN_PICTURES, super::pictures::PLAN_VTK];
        let dirs = vars.map(|v| std::env::var_os(v).filter(|d| !d.is_empty()));
        if dirs.iter().all(Option::is_none) || !self.plan_pictures.insert(name.to_string()) {
            return;
        }
        let rank = (self.dist.nranks() > 1).then(|| self.dist.rank());
        for (i, (var, dir)) in vars.into_iter().zip(dirs).enumerate() {
            let Some(dir) = dir else {
                continue;
            };
            if self.plan_pictures_failed[i] {
                continue;
            }
            let ext = if i == 0 { "csv" } else { "vtk" };
            let path = std::path::Path::new(&dir).join(plan_file_name(name, rank, ext));
            let text = if i == 0 {
                plan.colouring_csv()
            } else {
                match self.plan_vtk(name, set, plan) {
                    Ok(t) => t,
                    Err(why) => {
                        eprintln!(
                            "op2-rs: {var}: loop {name}: {why}; '{}' not written (the run goes on)",
                            path.display()
                        );
                        continue;
                    }
                }
            };
            if let Err(e) = std::fs::write(&path, text) {
                self.plan_pictures_failed[i] = true;
                eprintln!(
                    "op2-rs: {var}: cannot write '{}': {e} (the run goes on)",
                    path.display()
                );
            }
        }
    }

    /// OP2's `op_plan_check`: no two blocks (or elements of a block) of one
    /// colour modify the same element.
    pub fn check_plan(&self, key: &PlanKey, plan: &Plan) -> std::result::Result<(), String> {
        let line = self.config.cache_line_size.max(1) as usize;
        plan.check(&key.input(&self.dom, line, true))
    }
}

/// The variable naming the directory of plan colourings.
pub const PLAN_PICTURES: &str = "OP2_RS_PLAN_CSV";

/// The file name of a loop's plan colouring with extension `ext`
/// (characters other than letters, digits, `-` and `_` become `_`).
pub fn plan_file_name(name: &str, rank: Option<usize>, ext: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match rank {
        Some(r) => format!("{stem}.rank{r}.{ext}"),
        None => format!("{stem}.{ext}"),
    }
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

/// OP2's description of a new plan (printed when `OP_diags > 1`).
pub fn describe(p: &Plan) -> String {
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
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::ArgSpec;
    use crate::dist::SingleNode;
    use crate::domain::{DatId, MapCheck};
    use crate::invoke::{Executor, Invoker, LoopRun};
    use crate::runtime::{NoMirror, Parts};

    /// Plans only: nothing here executes a loop.
    struct NoExec;
    impl Executor for NoExec {
        fn name(&self) -> &'static str {
            "none"
        }
        fn wants_plan(&self) -> bool {
            true
        }
        unsafe fn execute(&self, _run: &LoopRun<'_>, _inv: &dyn Invoker) -> Result<()> {
            unreachable!("the plan tests run no loop")
        }
    }

    fn runtime() -> (Runtime, SetId, MapId, DatId, DatId) {
        let parts = Parts {
            exec: Arc::new(NoExec),
            dist: Box::new(SingleNode::new()),
            device: None,
            loops: None,
        };
        let mut rt = Runtime::new(parts, Box::new(|_| {}));
        let dom = rt.dom_mut();
        let nodes = dom.decl_set(5, "nodes").unwrap();
        let edges = dom.decl_set(4, "edges").unwrap();
        let m = dom
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
        let x = dom
            .decl_dat("t", nodes, 1, "double", 8, None, "x", false)
            .unwrap();
        let y = dom
            .decl_dat("t", nodes, 1, "double", 8, None, "y", false)
            .unwrap();
        (rt, edges, m, x, y)
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
        let (mut rt, edges, m, x, y) = runtime();
        let plan = |rt: &mut Runtime, name: &str, a: &[ArgSpec]| {
            let inds = vec![0; a.len()];
            rt.loop_plan(&mut NoMirror, name, edges, a, &inds, 1)
                .unwrap()
        };
        let a = [arg(x, m, 0, Access::Inc), arg(x, m, 1, Access::Inc)];
        let p1 = plan(&mut rt, "l", &a);
        let p2 = plan(&mut rt, "l", &a);
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
            let p = plan(&mut rt, name, &v);
            assert!(!Arc::ptr_eq(&p1, &p), "{name} {v:?} must get its own plan");
        }
        // A different dat with the same shape shares the plan (as in OP2), and
        // so does the vector form of the same two columns.
        let b = [arg(y, m, 0, Access::Inc), arg(y, m, 1, Access::Inc)];
        assert!(Arc::ptr_eq(&p1, &plan(&mut rt, "l", &b)));
        assert!(Arc::ptr_eq(
            &p1,
            &plan(&mut rt, "l", &[arg(x, m, -2, Access::Inc)])
        ));
        assert_eq!(rt.loop_plans(), 5);
    }

    #[test]
    fn block_sizes_follow_the_policy() {
        assert_eq!(indirect_part_size(1000), 256);
        assert_eq!(indirect_part_size(721_200), 4096);
        assert_eq!(indirect_part_size(64 * 1000), 1024);
        let (mut rt, edges, m, x, _) = runtime();
        let mut c = *rt.config();
        c.part_size = 2;
        rt.set_config(c);
        let p = rt
            .loop_plan(
                &mut NoMirror,
                "l",
                edges,
                &[arg(x, m, 0, Access::Inc)],
                &[0],
                1,
            )
            .unwrap();
        assert_eq!(p.nblocks, 2, "OP_PART_SIZE sets the block size");
    }
}
