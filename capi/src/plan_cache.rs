//! The plans' storage: cache keys of `op_par_loop`'s plans, and the plans
//! handed to generated code with the C `op_plan` structs that point into them
//! (behind `OP_plans`). No API here: `plans` builds and looks them up.

use crate::ffi::*;
use crate::fingerprint::CallCache;
use crate::globals::{self, OP_plan_index, OP_plan_max, OP_plans};
use op2_core::arg::Access;
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};
use op2_core::{Domain, MapId, SetId};
use std::ffi::CString;
use std::os::raw::{c_int, c_short};
use std::ptr::{addr_of_mut, null_mut};

/// A planner argument with owned handles (so a plan can be re-checked later).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OwnedPlanArg {
    pub(crate) opt: bool,
    pub(crate) ind: i32,
    pub(crate) map: Option<MapId>,
    pub(crate) idx: usize,
    pub(crate) access: Access,
    pub(crate) gbl: bool,
    pub(crate) dat_bytes: usize,
    pub(crate) dat_dim: usize,
}

/// Everything that identifies a plan (OP2's cache key, with map identities).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    pub(crate) name: String,
    pub(crate) set: SetId,
    pub(crate) part_size: usize,
    pub(crate) staging: i32,
    pub(crate) ninds: usize,
    pub(crate) args: Vec<OwnedPlanArg>,
}

impl OwnedPlanArg {
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

/// The planner's input for `key` on the current mesh.
pub(crate) fn input_of<'a>(dom: &'a Domain, key: &PlanKey, full: bool) -> PlanInput<'a> {
    let s = dom.set(key.set);
    PlanInput {
        set_size: s.size,
        core_size: s.core_size,
        exec_size: s.exec_size,
        part_size: key.part_size,
        staging: Staging::from_c(key.staging).unwrap_or(Staging::All),
        args: key.args.iter().map(|a| a.borrow(dom)).collect(),
        ninds: key.ninds,
        // SAFETY: plain int global.
        cache_line_size: unsafe { globals::get(std::ptr::addr_of!(globals::OP_cache_line_size)) }
            .max(1) as usize,
        full,
    }
}

/// A plan returned to generated code, with the arrays its `op_plan` points into.
pub(crate) struct CPlan {
    pub(crate) key: PlanKey,
    pub(crate) plan: Plan,
    pub(crate) _name: CString,
    pub(crate) maps: Vec<op_map>,
    pub(crate) dats: Vec<op_dat>,
    pub(crate) idxs: Vec<c_int>,
    pub(crate) optflags: Vec<c_int>,
    pub(crate) accs: Vec<op_access>,
    pub(crate) inds_staged: Vec<c_int>,
    pub(crate) col_offsets: Vec<*mut c_int>,
    pub(crate) ind_maps: Vec<*mut c_int>,
    pub(crate) loc_maps: Vec<*mut c_short>,
}

/// Storage behind `OP_plans`.
#[derive(Default)]
pub(crate) struct CPlans {
    /// Boxed: `op_plan` points into each CPlan's vectors, which must not move.
    #[allow(clippy::vec_box)]
    pub(crate) plans: Vec<Box<CPlan>>,
    /// The array `OP_plans` points to (reserved so it rarely moves).
    pub(crate) structs: Vec<op_plan>,
    /// Plan index by the raw call (op_plan_get* called again by a loop).
    pub(crate) by_call: CallCache<usize>,
    /// Plans before this index were built for a numbering of the mesh that
    /// has changed since (partitioning, renumbering): never handed out again.
    pub(crate) first_current: usize,
}

fn ptr_or_null<T>(v: &mut [T]) -> *mut T {
    if v.is_empty() {
        null_mut()
    } else {
        v.as_mut_ptr()
    }
}

impl CPlan {
    pub(crate) fn c_struct(&mut self, set: op_set) -> op_plan {
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
    /// The current plan with this key, if one was built.
    pub(crate) fn find(&self, key: &PlanKey) -> Option<usize> {
        (self.first_current..self.plans.len()).find(|&i| self.plans[i].key == *key)
    }

    /// The mesh's numbering changed: no plan built so far is valid.
    pub(crate) fn retire_all(&mut self) {
        self.first_current = self.plans.len();
        self.by_call.clear();
    }

    pub(crate) fn publish(&mut self) {
        // SAFETY: OP_plans mirrors our Vec; updated under the state lock.
        unsafe {
            *addr_of_mut!(OP_plans) = ptr_or_null(&mut self.structs);
            globals::set(addr_of_mut!(OP_plan_index), self.structs.len() as c_int);
            globals::set(addr_of_mut!(OP_plan_max), self.structs.capacity() as c_int);
        }
    }
}
