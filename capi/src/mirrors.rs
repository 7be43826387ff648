//! OP2's C structs as mirrors of the model: `op_set_core`, `op_map_core`,
//! `op_dat_core` (and the exported lists `OP_set_list`, `OP_map_list`,
//! `OP_dat_list`), the plans handed to generated code (`OP_plans`) and the
//! timing records (`OP_kernels`). They live at stable addresses for the
//! whole run; the runtime is the truth, and tells [`Mirrors`] (a
//! [`Mirror`]) whenever something C can see changed.

use crate::c_plans::CPlans;
use crate::ffi::*;
use crate::globals;
use crate::kernels::Kernels;
use op2_core::device::DevPtr;
use op2_core::runtime::Mirror;
use op2_core::{DatId, Domain, Fresh, MapId, SetId};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::{addr_of_mut, null_mut};

struct SetEntry {
    c: Box<op_set_core>,
    _name: CString,
}

struct MapEntry {
    c: Box<op_map_core>,
    _name: CString,
    /// The program's array given to op_decl_map (for pointer look-ups).
    orig: *const c_int,
}

struct DatEntry {
    c: Box<op_dat_core>,
    _name: CString,
    _type: CString,
    entry: Box<op_dat_entry_core>,
}

/// Every C struct the program can see.
#[derive(Default)]
pub struct Mirrors {
    sets: Vec<SetEntry>,
    maps: Vec<MapEntry>,
    dats: Vec<Option<DatEntry>>,
    set_list: Vec<op_set>,
    map_list: Vec<op_map>,
    /// Plans handed to generated code (behind `OP_plans`).
    pub plans: CPlans,
    /// Timing records (behind `OP_kernels`).
    pub kernels: Kernels,
}

/// Publish a vector as an exported (pointer, count, capacity) triple.
///
/// # Safety
/// The three are exported globals, written on the API thread under the lock.
unsafe fn publish<T>(v: &mut Vec<T>, list: *mut *mut T, index: *mut c_int, max: *mut c_int) {
    // SAFETY: the caller's contract.
    unsafe {
        *list = v.as_mut_ptr();
        globals::set(index, v.len() as c_int);
        globals::set(max, v.capacity() as c_int);
    }
}

impl Mirrors {
    pub fn set_ptr(&self, id: SetId) -> op_set {
        &*self.sets[id.0].c as *const op_set_core as op_set
    }
    pub fn map_ptr(&self, id: MapId) -> op_map {
        &*self.maps[id.0].c as *const op_map_core as op_map
    }
    /// NULL for a freed dat.
    pub fn dat_ptr(&self, id: DatId) -> op_dat {
        self.dats[id.0]
            .as_ref()
            .map_or(null_mut(), |e| &*e.c as *const op_dat_core as op_dat)
    }
    /// The C mirror of a live dat.
    pub fn dat_c(&mut self, id: DatId) -> &mut op_dat_core {
        &mut self.dats[id.0].as_mut().expect("live dat").c
    }
    pub fn map_c(&mut self, id: MapId) -> &mut op_map_core {
        &mut self.maps[id.0].c
    }
    pub fn sets(&self) -> usize {
        self.sets.len()
    }
    /// Maps the program marked `force_part` in their C struct.
    pub fn forced_maps(&self) -> impl Iterator<Item = MapId> + '_ {
        (0..self.maps.len())
            .filter(|&m| self.maps[m].c.force_part)
            .map(MapId)
    }

    /// The dat filed under the program's array `p` (Fortran look-ups).
    pub fn dat_by_orig_ptr(&self, p: *const c_void) -> Option<DatId> {
        self.dats.iter().enumerate().find_map(|(i, d)| {
            d.as_ref()
                .filter(|d| std::ptr::eq(d.entry.orig_ptr, p))
                .map(|_| DatId(i))
        })
    }
    /// File a dat under another key (`op_reset_data_ptr`).
    pub fn refile_dat(&mut self, id: DatId, key: *mut c_void) {
        if let Some(d) = self.dats[id.0].as_mut() {
            d.entry.orig_ptr = key;
        }
    }
    /// The map declared with `p` is no longer named by it.
    pub fn unfile_map(&mut self, id: MapId, p: *const c_int) {
        if std::ptr::eq(self.maps[id.0].orig, p) {
            self.maps[id.0].orig = std::ptr::null();
        }
    }
    /// The map declared with the program's array `p`.
    pub fn map_by_orig_ptr(&self, p: *const c_int) -> Option<MapId> {
        self.maps.iter().position(|m| m.orig == p).map(MapId)
    }

    /// Create the C mirror of a newly declared set.
    pub fn add_set(&mut self, dom: &Domain, id: SetId) -> op_set {
        let s = dom.set(id);
        let name = crate::ffi::cstring(&s.name);
        let c = Box::new(op_set_core {
            index: id.0 as c_int,
            size: s.size as c_int,
            name: name.as_ptr(),
            core_size: s.core_size as c_int,
            exec_size: s.exec_size as c_int,
            nonexec_size: s.nonexec_size as c_int,
            stride: 1,
        });
        self.sets.push(SetEntry { c, _name: name });
        let p = self.set_ptr(id);
        self.set_list.push(p);
        // SAFETY: the exported list mirrors our Vec; updated under the lock.
        unsafe {
            use globals::*;
            publish(
                &mut self.set_list,
                addr_of_mut!(OP_set_list),
                addr_of_mut!(OP_set_index),
                addr_of_mut!(OP_set_max),
            )
        };
        p
    }

    pub fn add_map(&mut self, dom: &Domain, id: MapId, orig: *const c_int) -> op_map {
        let m = dom.map(id);
        let name = crate::ffi::cstring(&m.name);
        let c = Box::new(op_map_core {
            index: id.0 as c_int,
            from: self.set_ptr(m.from),
            to: self.set_ptr(m.to),
            dim: m.dim as c_int,
            map: m.values.as_ptr() as *mut c_int,
            map_gbl: null_mut(),
            map_d: null_mut(),
            name: name.as_ptr(),
            user_managed: 0,
            force_part: false,
        });
        self.maps.push(MapEntry {
            c,
            _name: name,
            orig,
        });
        let p = self.map_ptr(id);
        self.map_list.push(p);
        // SAFETY: as in add_set.
        unsafe {
            use globals::*;
            publish(
                &mut self.map_list,
                addr_of_mut!(OP_map_list),
                addr_of_mut!(OP_map_index),
                addr_of_mut!(OP_map_max),
            )
        };
        p
    }

    /// Create the C mirror of a newly declared dat, filed under `orig` (the
    /// program's array; NULL: its own data).
    pub fn add_dat(&mut self, dom: &Domain, id: DatId, orig: *mut c_void) -> op_dat {
        let set_c = self.set_ptr(dom.dat(id).set);
        let d = dom.dat(id);
        let name = crate::ffi::cstring(&d.name);
        let ty = crate::ffi::cstring(&d.type_name);
        let data = d.data.as_ptr() as *mut c_char;
        let c = Box::new(op_dat_core {
            index: id.0 as c_int,
            set: set_c,
            dim: d.dim as c_int,
            size: d.elem_bytes as c_int,
            data,
            data_d: null_mut(),
            r#type: ty.as_ptr(),
            name: name.as_ptr(),
            buffer_d: null_mut(),
            buffer_d_r: null_mut(),
            dirtybit: c_int::from(d.halo_dirty),
            dirty_hd: 0,
            user_managed: 0,
            mpi_buffer: null_mut(),
        });
        let orig = if orig.is_null() {
            data as *mut c_void
        } else {
            orig
        };
        let mut entry = Box::new(op_dat_entry_core {
            dat: null_mut(),
            orig_ptr: orig,
            entries: op_dat_entry_link {
                tqe_next: null_mut(),
                tqe_prev: null_mut(),
            },
        });
        entry.dat = &*c as *const op_dat_core as op_dat;
        if self.dats.len() <= id.0 {
            self.dats.resize_with(id.0 + 1, || None);
        }
        let e: *mut op_dat_entry_core = &mut *entry;
        self.dats[id.0] = Some(DatEntry {
            c,
            _name: name,
            _type: ty,
            entry,
        });
        // SAFETY: TAILQ_INSERT_TAIL on the exported list; the entry is boxed
        // (stable) and owned by self.dats until removed in `forget_dat`.
        unsafe {
            let list = addr_of_mut!(globals::OP_dat_list);
            if (*list).tqh_last.is_null() {
                (*list).tqh_last = addr_of_mut!((*list).tqh_first);
            }
            (*e).entries.tqe_next = null_mut();
            (*e).entries.tqe_prev = (*list).tqh_last;
            *(*list).tqh_last = e;
            (*list).tqh_last = addr_of_mut!((*e).entries.tqe_next);
            globals::set(
                addr_of_mut!(globals::OP_dat_index),
                dom.num_dat_slots() as c_int,
            );
        }
        self.dat_ptr(id)
    }

    /// Drop the C mirror of a freed dat.
    pub fn forget_dat(&mut self, id: DatId) {
        if let Some(mut d) = self.dats[id.0].take() {
            // SAFETY: TAILQ_REMOVE of an entry inserted by add_dat.
            unsafe {
                let e: *mut op_dat_entry_core = &mut *d.entry;
                let list = addr_of_mut!(globals::OP_dat_list);
                let next = (*e).entries.tqe_next;
                if !next.is_null() {
                    (*next).entries.tqe_prev = (*e).entries.tqe_prev;
                } else {
                    (*list).tqh_last = (*e).entries.tqe_prev;
                }
                *(*e).entries.tqe_prev = next;
            }
        }
    }
}

impl Mirror for Mirrors {
    /// Programs may set `dat->dirty_hd` themselves (OP2 keeps the state
    /// only there): a value they wrote wins over the model's.
    fn seen_fresh(&self, dat: DatId) -> Option<Fresh> {
        let c = &self.dats.get(dat.0)?.as_ref()?.c;
        Some(match c.dirty_hd {
            1 => Fresh::Host,
            2 => Fresh::Device,
            _ => Fresh::Both,
        })
    }

    fn dat_state(&mut self, dat: DatId, halo_dirty: bool, fresh: Option<Fresh>) {
        if let Some(d) = self.dats.get_mut(dat.0).and_then(|d| d.as_mut()) {
            d.c.dirtybit = c_int::from(halo_dirty);
            if let Some(f) = fresh {
                d.c.dirty_hd = f.dirty_hd();
            }
        }
    }

    fn dat_on_device(&mut self, dat: DatId, ptr: DevPtr) {
        if let Some(d) = self.dats.get_mut(dat.0).and_then(|d| d.as_mut()) {
            d.c.data_d = ptr as *mut c_char;
        }
    }

    fn map_on_device(&mut self, map: MapId, ptr: DevPtr) {
        if let Some(m) = self.maps.get_mut(map.0) {
            m.c.map_d = ptr as *mut c_int;
        }
    }

    /// Every set, map and dat mirror from the model; plans of the old
    /// numbering are never handed out again.
    fn mesh_moved(&mut self, dom: &Domain, partitioned: bool) {
        for (e, s) in self.sets.iter_mut().zip(dom.sets()) {
            e.c.size = s.size as c_int;
            e.c.core_size = s.core_size as c_int;
            e.c.exec_size = s.exec_size as c_int;
            e.c.nonexec_size = s.nonexec_size as c_int;
        }
        for (e, m) in self.maps.iter_mut().zip(dom.maps()) {
            e.c.map = m.values.as_ptr() as *mut c_int;
        }
        for (id, d) in dom.dats() {
            if let Some(e) = self.dats.get_mut(id.0).and_then(|e| e.as_mut()) {
                e.c.data = d.data.as_ptr() as *mut c_char;
                e.c.dirtybit = c_int::from(d.halo_dirty);
            }
        }
        self.plans.retire_all();
        if partitioned {
            // SAFETY: plain int global, API thread.
            unsafe { globals::set(addr_of_mut!(globals::OP_is_partitioned), 1) };
        }
    }

    fn plan_built(&mut self, name: &str, secs: f64) {
        self.kernels.add_plan_time(name, secs);
        // SAFETY: plain double global, API thread.
        unsafe { *addr_of_mut!(globals::OP_plan_time) += secs };
    }
}
