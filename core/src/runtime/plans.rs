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

/// A plan with more block colours than this is checked for parallelism
/// ([`parallel_enough`]).
pub const FEW_COLOURS: usize = 16;

/// Blocks per colour, on average, that an indirect loop's plan must offer
/// when it has more than [`FEW_COLOURS`] colours.
pub const BLOCKS_PER_COLOUR: usize = 16;

/// The smallest block size the runtime shrinks an indirect loop's blocks to.
pub const MIN_INDIRECT_PART_SIZE: usize = 64;

/// Whether a plan gives a team enough blocks to run side by side: at most
/// [`FEW_COLOURS`] colours, or [`BLOCKS_PER_COLOUR`] blocks per colour on
/// average. A well numbered mesh has a few colours whatever the block size
/// (aero and airfoil: 2-3 with 4096-element blocks); a badly numbered one
/// (its elements in random order, say) makes every large block touch
/// targets all over the mesh and so every other block, every block gets a
/// colour of its own and the loop runs on one thread. Depends on the mesh only, never on the thread
/// count.
pub fn parallel_enough(plan: &Plan) -> bool {
    plan.ncolors <= FEW_COLOURS || plan.nblocks >= BLOCKS_PER_COLOUR * plan.ncolors
}

/// The next block size to try after `part` for a plan that is not
/// [`parallel_enough`]: half, a multiple of 64, not below
/// [`MIN_INDIRECT_PART_SIZE`]; `None` at the floor.
pub fn smaller_part_size(part: usize) -> Option<usize> {
    let half = (part / 2) / 64 * 64;
    (part > MIN_INDIRECT_PART_SIZE).then(|| half.max(MIN_INDIRECT_PART_SIZE))
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
    /// indirect ones, the latter halved (down to [`MIN_INDIRECT_PART_SIZE`])
    /// until the plan is [`parallel_enough`]; when no size is, the one with
    /// the most blocks per colour (the larger on a tie). A loop whose
    /// elements would race on a dat's rows, which no colouring orders
    /// ([`crate::conflicts::Mixed::races`]), gets one block (per part of
    /// the set: core, owned, halo) that runs its elements in order, said
    /// once. Cached per key (the policy's first size).
    pub(crate) fn loop_plan(
        &mut self,
        m: &mut dyn Mirror,
        name: &str,
        set: SetId,
        specs: &[ArgSpec],
        inds: &[i32],
        ninds: usize,
    ) -> Result<Arc<Plan>> {
        // elements that would race on a dat's rows (a dat written directly
        // and reached through a map, or read and modified through maps):
        // one block, its elements in order, as the sequential library runs
        // them
        let ordered = crate::conflicts::mixed_modes(specs)
            .into_iter()
            .find(|x| x.races(specs));
        let part_size = match self.config.part_size.max(0) as usize {
            _ if ordered.is_some() => {
                let s = self.dom.set(set);
                (s.size + s.exec_size).max(1)
            }
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
        if let Some(x) = &ordered {
            self.say(&format!(
                " op2-rs: loop {name} runs its elements in order on one thread: {}, and elements side by side would race on its rows\n",
                x.pair(specs, &self.dom)
            ));
        }
        let number = self.plans.len();
        self.announce_plan(&key, number);
        let mut plan = self.make_plan(m, &key, false)?;
        if self.config.part_size <= 0 && ninds > 0 && ordered.is_none() && !parallel_enough(&plan) {
            plan = self.smaller_blocks(m, &key, plan)?;
        }
        self.present_plan(&key, &plan);
        let plan = Arc::new(plan);
        self.plans.insert(key, plan.clone());
        Ok(plan)
    }

    /// [`Runtime::loop_plan`]'s search for a block size whose plan is
    /// [`parallel_enough`], from `first` (built with `key.part_size`).
    fn smaller_blocks(&mut self, m: &mut dyn Mirror, key: &PlanKey, first: Plan) -> Result<Plan> {
        let per_colour = |p: &Plan| p.nblocks as f64 / p.ncolors.max(1) as f64;
        let mut tried = vec![(key.part_size, first.nblocks, first.ncolors)];
        let mut best = first;
        let mut part = key.part_size;
        while let Some(next) = smaller_part_size(part) {
            part = next;
            let candidate = PlanKey {
                part_size: part,
                ..key.clone()
            };
            let plan = self.make_plan(m, &candidate, false)?;
            tried.push((part, plan.nblocks, plan.ncolors));
            let enough = parallel_enough(&plan);
            if enough || per_colour(&plan) > per_colour(&best) {
                best = plan;
            }
            if enough {
                break;
            }
        }
        if self.config.diags > 1 {
            let sizes: Vec<String> = tried
                .iter()
                .map(|(p, b, c)| format!("{p}: {b} blocks in {c} colours"))
                .collect();
            self.say(&format!(
                " blocks shrunk for parallelism ({}); chosen {}\n",
                sizes.join(", "),
                best.bsize
            ));
        }
        Ok(best)
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
        self.announce_plan(key, number);
        let plan = self.make_plan(m, key, full)?;
        self.present_plan(key, &plan);
        Ok(plan)
    }

    /// `OP_diags > 1`: the line that opens a plan's description.
    fn announce_plan(&self, key: &PlanKey, number: usize) {
        if self.config.diags > 1 {
            self.say(&format!(
                " new execution plan #{number} for kernel {}\n",
                key.name
            ));
        }
    }

    /// Build, check (`OP_diags > 0`, always in debug builds) and time the
    /// plan of `key`.
    fn make_plan(&mut self, m: &mut dyn Mirror, key: &PlanKey, full: bool) -> Result<Plan> {
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
        if cfg!(debug_assertions) || self.config.diags > 0 {
            plan.check(&key.input(&self.dom, line, full)).map_err(|e| {
                Op2Error::internal(
                    "",
                    format!("plan check failed for loop \"{}\": {e}", key.name),
                )
            })?;
        }
        m.plan_built(&key.name, secs);
        Ok(plan)
    }

    /// `OP_diags > 1`: the plan's description; and its pictures.
    fn present_plan(&mut self, key: &PlanKey, plan: &Plan) {
        if self.config.diags > 1 {
            self.say(&describe(plan));
        }
        self.picture_plan(&key.name, key.set, plan);
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

    /// A ring of `n` nodes and `n` edges, edge e joining nodes e and e + 1;
    /// `shuffled`: the edges numbered at random (a fixed Fisher-Yates draw),
    /// so that a large block of edges touches every part of the ring and
    /// every other block.
    fn ring(n: usize, shuffled: bool) -> (Runtime, SetId, MapId, DatId) {
        let mut number: Vec<usize> = (0..n).collect();
        if shuffled {
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for k in (1..n).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                number.swap(k, (state % (k as u64 + 1)) as usize);
            }
        }
        let values: Vec<i32> = (0..n)
            .flat_map(|e| [number[e] as i32, ((number[e] + 1) % n) as i32])
            .collect();
        let (mut rt, ..) = runtime();
        let dom = rt.dom_mut();
        let nodes = dom.decl_set(n as i64, "ring_nodes").unwrap();
        let edges = dom.decl_set(n as i64, "ring_edges").unwrap();
        let m = dom
            .decl_map(edges, nodes, 2, &values, 0, "ring", MapCheck::Local)
            .unwrap();
        let x = dom
            .decl_dat("t", nodes, 1, "double", 8, None, "rx", false)
            .unwrap();
        (rt, edges, m, x)
    }

    fn ring_plan(rt: &mut Runtime, edges: SetId, m: MapId, x: DatId) -> Arc<Plan> {
        let a = [arg(x, m, 0, Access::Inc), arg(x, m, 1, Access::Inc)];
        rt.loop_plan(&mut NoMirror, "ring", edges, &a, &[0, 0], 1)
            .unwrap()
    }

    #[test]
    fn smaller_part_sizes_halve_down_to_the_floor() {
        assert_eq!(smaller_part_size(4096), Some(2048));
        assert_eq!(smaller_part_size(1536), Some(768));
        assert_eq!(smaller_part_size(320), Some(128));
        assert_eq!(smaller_part_size(100), Some(64));
        assert_eq!(smaller_part_size(64), None);
    }

    /// Random numbering: every 1024-element block touches every other, one
    /// colour per block; the runtime halves the blocks until it has
    /// BLOCKS_PER_COLOUR per colour. The ring numbered in order keeps the
    /// policy's size, and OP_PART_SIZE is always taken as given.
    #[test]
    fn badly_numbered_meshes_get_smaller_blocks() {
        let n = 65_536;
        assert_eq!(indirect_part_size(n), 1024);

        let (mut rt, edges, m, x) = ring(n, false);
        let p = ring_plan(&mut rt, edges, m, x);
        assert_eq!((p.bsize, p.nblocks), (1024, 64));
        assert!(p.ncolors <= 3, "{} colours", p.ncolors);

        let (mut rt, edges, m, x) = ring(n, true);
        let p = ring_plan(&mut rt, edges, m, x);
        assert!(p.bsize < 1024, "block size {}", p.bsize);
        assert!(
            parallel_enough(&p),
            "{} blocks in {} colours",
            p.nblocks,
            p.ncolors
        );
        assert!(p.ncolors > FEW_COLOURS, "the ring still needs many colours");
        // The policy's own size gives one colour per block, or nearly.
        let key = PlanKey {
            name: "ring".into(),
            set: edges,
            part_size: 1024,
            staging: Staging::All,
            ninds: 1,
            args: loop_plan_args(
                rt.dom(),
                &[arg(x, m, 0, Access::Inc), arg(x, m, 1, Access::Inc)],
                &[0, 0],
            ),
        };
        let first = rt.build_plan(&mut NoMirror, &key, false, 0).unwrap();
        assert!(!parallel_enough(&first), "{} colours", first.ncolors);
        assert!(
            first.ncolors * 2 > first.nblocks,
            "{} colours",
            first.ncolors
        );
        // Cached: the same plan again.
        assert!(Arc::ptr_eq(&p, &ring_plan(&mut rt, edges, m, x)));

        let mut c = *rt.config();
        c.part_size = 1024;
        let (mut rt, edges, m, x) = ring(n, true);
        rt.set_config(c);
        assert_eq!(ring_plan(&mut rt, edges, m, x).bsize, 1024);
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
