//! A loop after its first, fully checked preparation ([`PreparedLoop`]):
//! what every later identical call reuses, so a loop in steady state
//! allocates nothing and checks nothing again. Its views and plan depend on
//! where the data lives and are rebuilt when the mesh moves.

use super::{Mirror, Runtime};
use crate::arg::{check_loop, Access, ArgKind, ArgSpec};
use crate::domain::{DatId, Domain, SetId};
use crate::error::{Op2Error, Result};
use crate::invoke::{link_views, ArgView, ViewKind};
use crate::plan::Plan;
use crate::types::ScalarType;
use std::sync::Arc;

/// Where a global (or info) argument's values are: the program's variable.
#[derive(Debug, Clone, Copy)]
pub struct GlobalData {
    pub data: *mut u8,
    /// Bytes of all its components (OP2's `arg.size`).
    pub bytes: i32,
}

impl GlobalData {
    pub const NONE: GlobalData = GlobalData {
        data: std::ptr::null_mut(),
        bytes: 0,
    };
}

/// A loop as a front end describes it the first time it sees the call.
#[derive(Debug, Clone)]
pub struct LoopDesc {
    pub name: String,
    pub set: SetId,
    pub args: Vec<ArgSpec>,
    /// Per argument: where a global or info argument's values are (ignored
    /// for the other kinds).
    pub globals: Vec<GlobalData>,
    /// The front end's own number for the loop (the C ABI: its record in
    /// `OP_kernels`), handed back with the loop's timing.
    pub tag: usize,
}

/// A checked loop, ready to run again.
#[derive(Debug)]
pub struct PreparedLoop {
    pub name: String,
    pub set: SetId,
    pub specs: Vec<ArgSpec>,
    pub views: Vec<ArgView>,
    pub scalars: Vec<ScalarType>,
    /// Arguments whose global value is combined across processes after the
    /// loop (INC/MIN/MAX/WRITE globals).
    pub globals: Vec<usize>,
    /// The distinct dats the loop touches, and those it writes.
    pub dats: Vec<DatId>,
    pub written: Vec<DatId>,
    /// Bytes moved per execution (OP2's estimate).
    pub transfer: f64,
    pub indirect: bool,
    pub plan: Option<Arc<Plan>>,
    pub tag: usize,
    gbl: Vec<GlobalData>,
}

// SAFETY: the raw pointers in views and globals are addresses of dat storage
// owned by the runtime's Domain or of the program's global variables; a
// prepared loop is only used to build the views executors run by.
unsafe impl Send for PreparedLoop {}
// SAFETY: as above (read only).
unsafe impl Sync for PreparedLoop {}

/// Which arguments are globals combined across processes.
fn combined_globals(specs: &[ArgSpec]) -> Vec<usize> {
    specs
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.opt
                && matches!(s.kind, ArgKind::Gbl)
                && matches!(
                    s.access,
                    Access::Inc | Access::Min | Access::Max | Access::Write
                )
        })
        .map(|(i, _)| i)
        .collect()
}

/// The distinct dats among the switched-on arguments that `pick` selects.
pub fn dats_where(specs: &[ArgSpec], pick: impl Fn(&ArgSpec) -> bool) -> Vec<DatId> {
    let mut v: Vec<DatId> = specs
        .iter()
        .filter(|s| s.opt && pick(s))
        .filter_map(|s| match s.kind {
            ArgKind::Dat { dat, .. } => Some(dat),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Does the argument write its dat (OP_INC, OP_WRITE, OP_RW)?
pub fn writes(s: &ArgSpec) -> bool {
    !matches!(s.access, Access::Read | Access::Min | Access::Max)
}

/// The view an invoker uses for a checked argument.
fn view(dom: &Domain, spec: &ArgSpec, g: GlobalData) -> ArgView {
    if !spec.opt {
        return ArgView::NULL;
    }
    match &spec.kind {
        ArgKind::Dat { dat, map, idx } => {
            let d = dom.dat(*dat);
            let (mp, mdim, kind) = match map {
                None => (std::ptr::null(), 0, ViewKind::Direct),
                Some(m) => {
                    let m = dom.map(*m);
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
            data: g.data,
            idx: -1,
            elem_bytes: g.bytes,
            kind: ViewKind::Global,
            ..ArgView::NULL
        },
        ArgKind::Idx { map: None, .. } => ArgView {
            kind: ViewKind::IdxDirect,
            elem_bytes: 4,
            ..ArgView::NULL
        },
        ArgKind::Idx { map: Some(m), idx } => {
            let m = dom.map(*m);
            ArgView {
                map: m.values.as_ptr(),
                map_dim: m.dim as i32,
                idx: *idx,
                elem_bytes: 4,
                kind: ViewKind::IdxMapped,
                ..ArgView::NULL
            }
        }
    }
}

/// Bytes moved by one execution, as OP2's generated code counts them.
fn transfer_estimate(dom: &Domain, set: SetId, specs: &[ArgSpec]) -> f64 {
    let set_size = dom.set(set).size as f64;
    let mut transfer = 0.0f64;
    let mut maps_seen = Vec::new();
    for sp in specs {
        if let (true, ArgKind::Dat { dat, map, .. }) = (sp.opt, &sp.kind) {
            let eb = dom.dat(*dat).elem_bytes as f64;
            let f = if matches!(sp.access, Access::Rw | Access::Inc) {
                2.0
            } else {
                1.0
            };
            transfer += set_size * eb * f;
            if let Some(m) = map.filter(|m| !maps_seen.contains(m)) {
                maps_seen.push(m);
                transfer += set_size * dom.map(m).dim as f64 * 4.0;
            }
        }
    }
    transfer
}

impl Runtime {
    /// Check a loop the first time a front end sees it and prepare it to
    /// run (`extra` checks what only the front end knows, after the
    /// runtime's own checks: e.g. C++ kernels' parameter types).
    pub fn prepare_loop(
        &mut self,
        m: &mut dyn Mirror,
        desc: LoopDesc,
        extra: &dyn Fn(&[ArgSpec]) -> Result<()>,
    ) -> Result<Arc<PreparedLoop>> {
        if desc.globals.len() != desc.args.len() {
            return Err(Op2Error::internal(
                "op_par_loop",
                format!("loop \"{}\": a global per argument", desc.name),
            ));
        }
        let info = check_loop(&self.dom, &desc.name, desc.set, &desc.args)?;
        extra(&desc.args)?;
        if self.config.diags > 2 {
            let how = if info.indirect {
                "with indirection:"
            } else {
                "w/o indirection: "
            };
            self.say(&format!(" kernel routine {how} {}\n", desc.name));
        }
        let mut lp = PreparedLoop {
            scalars: desc
                .args
                .iter()
                .map(|sp| ScalarType::parse(&sp.type_name))
                .collect(),
            globals: combined_globals(&desc.args),
            dats: dats_where(&desc.args, |_| true),
            written: dats_where(&desc.args, writes),
            name: desc.name,
            set: desc.set,
            specs: desc.args,
            views: Vec::new(),
            transfer: 0.0,
            indirect: info.indirect,
            plan: None,
            tag: desc.tag,
            gbl: desc.globals,
        };
        self.place(m, &mut lp, &info.inds, info.ninds)?;
        Ok(Arc::new(lp))
    }

    /// The parts of a prepared loop that depend on where data lives (views,
    /// plan, transfer estimate).
    fn place(
        &mut self,
        m: &mut dyn Mirror,
        lp: &mut PreparedLoop,
        inds: &[i32],
        ninds: usize,
    ) -> Result<()> {
        lp.views = lp
            .specs
            .iter()
            .zip(&lp.gbl)
            .map(|(sp, g)| view(&self.dom, sp, *g))
            .collect();
        link_views(&mut lp.views, &lp.specs);
        lp.transfer = transfer_estimate(&self.dom, lp.set, &lp.specs);
        lp.plan = if self.exec.wants_plan() {
            Some(self.loop_plan(m, &lp.name, lp.set, &lp.specs, inds, ninds)?)
        } else {
            None
        };
        Ok(())
    }

    /// `old`, placed again on the mesh as it is now (after partitioning).
    pub(crate) fn replace(
        &mut self,
        m: &mut dyn Mirror,
        old: &PreparedLoop,
    ) -> Result<Arc<PreparedLoop>> {
        let info = check_loop(&self.dom, &old.name, old.set, &old.specs)?;
        let mut lp = PreparedLoop {
            name: old.name.clone(),
            set: old.set,
            specs: old.specs.clone(),
            views: Vec::new(),
            scalars: old.scalars.clone(),
            globals: old.globals.clone(),
            dats: old.dats.clone(),
            written: old.written.clone(),
            transfer: 0.0,
            indirect: old.indirect,
            plan: None,
            tag: old.tag,
            gbl: old.gbl.clone(),
        };
        self.place(m, &mut lp, &info.inds, info.ninds)?;
        Ok(Arc::new(lp))
    }
}
