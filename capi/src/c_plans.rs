//! The plans handed to generated code, with the C `op_plan` structs that
//! point into them (behind `OP_plans`): built by the runtime
//! (`Runtime::build_plan`), kept here at stable addresses for the run.

use crate::ffi::*;
use crate::globals::{self, OP_plan_index, OP_plan_max, OP_plans};
use op2_core::plan::{Plan, Staging};
use op2_core::runtime::{CallCache, PlanKey};
use std::ffi::CString;
use std::os::raw::{c_int, c_short};
use std::ptr::{addr_of_mut, null_mut};

/// A plan returned to generated code, with the arrays its `op_plan` points into.
pub struct CPlan {
    pub key: PlanKey,
    pub plan: Plan,
    pub name: CString,
    pub maps: Vec<op_map>,
    pub dats: Vec<op_dat>,
    pub idxs: Vec<c_int>,
    pub optflags: Vec<c_int>,
    pub accs: Vec<op_access>,
    pub inds_staged: Vec<c_int>,
    pub col_offsets: Vec<*mut c_int>,
    pub ind_maps: Vec<*mut c_int>,
    pub loc_maps: Vec<*mut c_short>,
}

/// Storage behind `OP_plans`.
#[derive(Default)]
pub struct CPlans {
    /// Boxed: `op_plan` points into each CPlan's vectors, which must not move.
    #[allow(clippy::vec_box)]
    pub plans: Vec<Box<CPlan>>,
    /// The array `OP_plans` points to (reserved so it rarely moves).
    pub structs: Vec<op_plan>,
    /// Plan index by the raw call (op_plan_get* called again by a loop).
    pub by_call: CallCache<usize>,
    /// Plans before this index were built for a numbering of the mesh that
    /// has changed since (partitioning, renumbering): never handed out again.
    first_current: usize,
}

fn ptr_or_null<T>(v: &mut [T]) -> *mut T {
    if v.is_empty() {
        null_mut()
    } else {
        v.as_mut_ptr()
    }
}

impl CPlan {
    /// The `op_plan` struct of this plan (pointing into its arrays).
    pub fn c_struct(&mut self, set: op_set) -> op_plan {
        let p = &mut self.plan;
        let base_thr = p.col_offsets.as_mut_ptr();
        // `wrapping_add`: offsets into the vectors, never dereferenced here.
        self.col_offsets = p
            .col_offsets_start
            .iter()
            .map(|&s| base_thr.wrapping_add(s))
            .collect();
        let im = p.ind_map.as_mut_ptr();
        self.ind_maps = p
            .ind_maps_start
            .iter()
            .map(|&s| im.wrapping_add(s))
            .collect();
        let lm = p.loc_map.as_mut_ptr();
        self.loc_maps = p
            .loc_maps_start
            .iter()
            .map(|s| s.map_or(null_mut(), |s| lm.wrapping_add(s)))
            .collect();
        op_plan {
            name: self.name.as_ptr(),
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
            color2_offsets: if self.key.staging == Staging::Color2 {
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
    pub fn find(&self, key: &PlanKey) -> Option<usize> {
        (self.first_current..self.plans.len()).find(|&i| self.plans[i].key == *key)
    }

    /// The mesh's numbering changed: no plan built so far is valid.
    pub fn retire_all(&mut self) {
        self.first_current = self.plans.len();
        self.by_call.clear();
    }

    /// Keep a new plan and its struct; returns its index.
    pub fn push(&mut self, mut cp: Box<CPlan>, set: op_set) -> usize {
        let c = cp.c_struct(set);
        if self.structs.capacity() == 0 {
            self.structs.reserve(256);
        }
        self.structs.push(c);
        self.plans.push(cp);
        // SAFETY: OP_plans mirrors our Vec; updated under the state lock.
        unsafe {
            *addr_of_mut!(OP_plans) = ptr_or_null(&mut self.structs);
            globals::set(addr_of_mut!(OP_plan_index), self.structs.len() as c_int);
            globals::set(addr_of_mut!(OP_plan_max), self.structs.capacity() as c_int);
        }
        self.plans.len() - 1
    }
}
