//! The library's global state: one `Domain` plus the C mirrors of its objects
//! at stable addresses, behind a lock.

use crate::ffi::*;
use crate::fingerprint::CallCache;
use crate::globals;
use crate::kernels::Kernels;
use crate::loop_cache::PreparedLoop;
use crate::plan_cache::{CPlans, PlanKey};
use op2_core::dist::{Distribution, InFlight};
use op2_core::error::obj;
use op2_core::invoke::Executor;
use op2_core::plan::Plan;
use op2_core::{DatId, Domain, MapId, Op2Error, Result, SetId};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::{addr_of_mut, null_mut};
use std::sync::Arc;

pub struct SetEntry {
    pub c: Box<op_set_core>,
    _name: CString,
}

pub struct MapEntry {
    pub c: Box<op_map_core>,
    _name: CString,
    /// The user's array passed to op_decl_map (for pointer look-ups).
    pub orig_ptr: *const c_int,
}

pub struct DatEntry {
    pub c: Box<op_dat_core>,
    _name: CString,
    _type: CString,
    pub entry: Box<op_dat_entry_core>,
}

/// Look-up tables of OP2's Fortran helpers (`op_register_set`,
/// `op_copy_map_to_fort`; capi/src/fortran_data.rs).
#[derive(Default)]
pub struct Registries {
    /// `op_register_set(idx, set)`.
    pub sets: HashMap<c_int, SetId>,
    /// Further arrays that name a map (copies from `op_copy_map_to_fort`).
    pub map_ptrs: HashMap<usize, MapId>,
    /// The 1-based copies `op_copy_map_to_fort` handed out (kept for the run).
    #[allow(clippy::vec_box)]
    pub fort_maps: Vec<Box<[c_int]>>,
    /// `op_get_g_index`: per set, the global index of each owned element.
    pub g_index: HashMap<SetId, Box<[i64]>>,
}

pub struct State {
    pub dom: Domain,
    pub registries: Registries,
    pub sets: Vec<SetEntry>,
    pub maps: Vec<MapEntry>,
    pub dats: Vec<Option<DatEntry>>,
    set_ptr: HashMap<usize, SetId>,
    map_ptr: HashMap<usize, MapId>,
    dat_ptr: HashMap<usize, DatId>,
    set_list: Vec<op_set>,
    map_list: Vec<op_map>,
    pub kernels: Kernels,
    interned: HashMap<String, CString>,
    /// Handles from op_decl_null_map (treated as OP_ID); boxed for stable addresses.
    #[allow(clippy::vec_box)]
    null_maps: Vec<Box<op_map_core>>,
    /// Plans of op_par_loop, per loop signature.
    pub(crate) loop_plans: HashMap<PlanKey, Arc<Plan>>,
    /// Plans handed to generated code (behind OP_plans).
    pub(crate) c_plans: CPlans,
    /// op_par_loop calls already checked, by their raw arguments.
    pub(crate) loops: CallCache<Arc<PreparedLoop>>,
    /// The execution engine (chosen in `compose`).
    pub exec: Arc<dyn Executor + Send + Sync>,
    /// Where the data lives: one node, or MPI ranks (chosen in `compose`).
    pub dist: Box<dyn Distribution>,
    /// Halo exchanges that generated code started (op_mpi_halo_exchanges),
    /// finished by op_mpi_wait_all or before anything moves dat storage.
    pub(crate) in_flight: Vec<Box<dyn InFlight>>,
    /// Changes whenever handles or storage move (partitioning, freeing a
    /// dat): calls cached by their raw arguments are checked again.
    pub(crate) generation: u64,
    /// Fortran kernels' names for timing, by kernel address.
    pub(crate) kernel_names: HashMap<usize, CString>,
    /// The device and its copies of the data (CUDA libraries only).
    pub(crate) device: Option<crate::device_copies::Device>,
}

// SAFETY: the raw pointers in State point into allocations State owns (or the
// user's arrays, only compared); State is only used under the STATE lock.
unsafe impl Send for State {}

pub enum Life {
    Uninit,
    Running(Box<State>),
    Exited,
}

static STATE: Mutex<Life> = Mutex::new(Life::Uninit);

/// Take the library state's lock. Every API call goes through here (kept
/// out of line so profilers can count the acquisitions per loop).
#[inline(never)]
pub fn lock_state() -> parking_lot::MutexGuard<'static, Life> {
    STATE.lock()
}

/// Read a C string argument; NULL is an error naming `what`.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string.
pub unsafe fn c_str(call: &str, what: &str, p: *const c_char) -> Result<String> {
    c_text(call, what, p).map(|t| t.into_owned())
}

/// [`c_str`] without a copy when the string is valid UTF-8.
///
/// # Safety
/// As for [`c_str`]; the string outlives the result.
pub unsafe fn c_text<'a>(
    call: &str,
    what: &str,
    p: *const c_char,
) -> Result<std::borrow::Cow<'a, str>> {
    if p.is_null() {
        return Err(Op2Error::new(call, "", format!("{what} is NULL")));
    }
    Ok(CStr::from_ptr(p).to_string_lossy())
}

/// Lock the state and run `f` on it; errors (including "not initialised") stop the program.
pub fn with_state<R>(call: &'static str, f: impl FnOnce(&mut State) -> Result<R>) -> R {
    crate::guard::checked(call, || {
        let mut life = lock_state();
        match &mut *life {
            Life::Running(s) => f(s),
            Life::Uninit => Err(Op2Error::new(call, "", "called before op_init")),
            Life::Exited => Err(Op2Error::new(call, "", "called after op_exit")),
        }
    })
}

impl State {
    pub fn new(exec: Arc<dyn Executor + Send + Sync>, dist: Box<dyn Distribution>) -> State {
        globals::reset_all();
        State {
            dom: Domain::new(),
            registries: Registries::default(),
            sets: Vec::new(),
            maps: Vec::new(),
            dats: Vec::new(),
            set_ptr: HashMap::new(),
            map_ptr: HashMap::new(),
            dat_ptr: HashMap::new(),
            set_list: Vec::new(),
            map_list: Vec::new(),
            kernels: Kernels::default(),
            interned: HashMap::new(),
            null_maps: Vec::new(),
            loop_plans: HashMap::new(),
            c_plans: Default::default(),
            loops: Default::default(),
            exec,
            dist,
            in_flight: Vec::new(),
            generation: 0,
            kernel_names: HashMap::new(),
            device: None,
        }
    }

    /// Finish every halo exchange generated code left in flight.
    pub(crate) fn finish_exchanges(&mut self) -> Result<()> {
        for x in std::mem::take(&mut self.in_flight) {
            x.finish()?;
        }
        self.flush_halo_uploads("op_mpi_wait_all")
    }

    /// Handles or storage moved: cached calls must be checked again.
    pub(crate) fn bump_generation(&mut self) {
        self.generation += 1;
        self.loops.clear();
        self.c_plans.by_call.clear();
    }

    /// Copy a dat's halo state from the model into its C mirror (`dirtybit`).
    pub(crate) fn mirror_dirty(&mut self, id: DatId) {
        let dirty = self.dom.dat(id).halo_dirty;
        if let Some(d) = self.dats.get_mut(id.0).and_then(|d| d.as_mut()) {
            d.c.dirtybit = c_int::from(dirty);
        }
    }

    /// After partitioning: every set, map and dat mirror from the model;
    /// plans of the old numbering dropped.
    pub(crate) fn refresh_after_partition(&mut self) {
        self.refresh_mesh("op_partition");
        // SAFETY: plain int global, API thread.
        unsafe { globals::set(addr_of_mut!(globals::OP_is_partitioned), 1) };
    }

    /// The mesh moved (partitioning, renumbering): every mirror from the
    /// model, plans and checked calls of the old numbering dropped, device
    /// copies made again.
    pub(crate) fn refresh_mesh(&mut self, call: &str) {
        for s in 0..self.dom.sets().len() {
            self.refresh_set(SetId(s));
        }
        for m in 0..self.dom.maps().len() {
            self.refresh_map(MapId(m));
        }
        let dats: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        for id in dats {
            let p = self.dom.dat_mut(id).data.as_mut_ptr() as *mut c_char;
            self.dat_c(id).data = p;
            self.mirror_dirty(id);
        }
        self.loop_plans.clear();
        self.c_plans.retire_all();
        self.bump_generation();
        if let Err(e) = self.device_rebuild(call) {
            crate::guard::fatal(&e);
        }
    }

    /// A stable C copy of `s` owned by the state (type strings stored in
    /// op_args); allocates only the first time a string is seen.
    pub fn intern(&mut self, s: &str) -> *const c_char {
        if let Some(c) = self.interned.get(s) {
            return c.as_ptr();
        }
        self.interned
            .entry(s.to_string())
            .or_insert_with(|| crate::ffi::cstring(s))
            .as_ptr()
    }

    // ---- handle resolution -------------------------------------------------

    pub fn set_id(&self, call: &str, p: op_set) -> Result<SetId> {
        if p.is_null() {
            return Err(Op2Error::new(call, "", "the set is NULL"));
        }
        self.set_ptr.get(&(p as usize)).copied().ok_or_else(|| {
            Op2Error::new(
                call,
                "",
                format!("{p:p} is not a set declared with op_decl_set"),
            )
        })
    }

    pub fn map_id(&self, call: &str, p: op_map) -> Result<MapId> {
        if p.is_null() {
            return Err(Op2Error::new(call, "", "the map is NULL"));
        }
        self.map_ptr.get(&(p as usize)).copied().ok_or_else(|| {
            Op2Error::new(
                call,
                "",
                format!("{p:p} is not a map declared with op_decl_map"),
            )
        })
    }

    /// A fresh handle that stands for OP_ID (op_decl_null_map).
    pub fn new_null_map(&mut self) -> op_map {
        let mut m = Box::new(op_map_core {
            index: -1,
            from: null_mut(),
            to: null_mut(),
            dim: 0,
            map: null_mut(),
            map_gbl: null_mut(),
            map_d: null_mut(),
            name: c"OP_ID".as_ptr(),
            user_managed: 1,
            force_part: false,
        });
        let p: op_map = &mut *m;
        self.null_maps.push(m);
        p
    }

    fn is_null_map(&self, p: op_map) -> bool {
        self.null_maps.iter().any(|m| std::ptr::eq(&**m, p))
    }

    /// `None` for OP_ID (NULL or a null map).
    pub fn opt_map_id(&self, call: &str, p: op_map) -> Result<Option<MapId>> {
        if p.is_null() || self.is_null_map(p) {
            Ok(None)
        } else {
            self.map_id(call, p).map(Some)
        }
    }

    pub fn dat_id(&self, call: &str, p: op_dat) -> Result<DatId> {
        if p.is_null() {
            return Err(Op2Error::new(call, "", "the dat is NULL"));
        }
        self.dat_ptr.get(&(p as usize)).copied().ok_or_else(|| {
            Op2Error::new(
                call,
                "",
                format!("{p:p} is not a live dat (declared with op_decl_dat, not freed)"),
            )
        })
    }

    pub fn set_ptr(&self, id: SetId) -> op_set {
        &*self.sets[id.0].c as *const op_set_core as op_set
    }
    pub fn map_ptr(&self, id: MapId) -> op_map {
        &*self.maps[id.0].c as *const op_map_core as op_map
    }
    pub fn dat_ptr(&self, id: DatId) -> op_dat {
        self.dats[id.0]
            .as_ref()
            .map(|e| &*e.c as *const op_dat_core as op_dat)
            .unwrap_or(null_mut())
    }

    /// Find a dat by the user pointer given to op_decl_dat (Fortran look-ups).
    pub fn dat_by_orig_ptr(&self, p: *const c_void) -> Option<DatId> {
        self.dats.iter().enumerate().find_map(|(i, d)| {
            d.as_ref()
                .filter(|d| std::ptr::eq(d.entry.orig_ptr, p))
                .map(|_| DatId(i))
        })
    }

    /// Find a map by the user array given to op_decl_map.
    pub fn map_by_orig_ptr(&self, p: *const c_int) -> Option<MapId> {
        if let Some(&m) = self.registries.map_ptrs.get(&(p as usize)) {
            return Some(m);
        }
        self.maps.iter().position(|m| m.orig_ptr == p).map(MapId)
    }

    // ---- mirrors -----------------------------------------------------------

    /// Create the C mirror of a newly declared set.
    pub fn mirror_set(&mut self, id: SetId) -> op_set {
        let s = self.dom.set(id);
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
        self.set_ptr.insert(p as usize, id);
        self.set_list.push(p);
        // SAFETY: the exported list mirrors our Vec; updated under the lock.
        unsafe {
            *addr_of_mut!(globals::OP_set_list) = self.set_list.as_mut_ptr();
            globals::set(
                addr_of_mut!(globals::OP_set_index),
                self.set_list.len() as c_int,
            );
            globals::set(
                addr_of_mut!(globals::OP_set_max),
                self.set_list.capacity() as c_int,
            );
        }
        p
    }

    pub fn mirror_map(&mut self, id: MapId, orig: *const c_int) -> op_map {
        let m = self.dom.map(id);
        let (from, to) = (m.from, m.to);
        let name = crate::ffi::cstring(&m.name);
        let c = Box::new(op_map_core {
            index: id.0 as c_int,
            from: self.set_ptr(from),
            to: self.set_ptr(to),
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
            orig_ptr: orig,
        });
        let p = self.map_ptr(id);
        self.map_ptr.insert(p as usize, id);
        self.map_list.push(p);
        // SAFETY: as in mirror_set.
        unsafe {
            *addr_of_mut!(globals::OP_map_list) = self.map_list.as_mut_ptr();
            globals::set(
                addr_of_mut!(globals::OP_map_index),
                self.map_list.len() as c_int,
            );
            globals::set(
                addr_of_mut!(globals::OP_map_max),
                self.map_list.capacity() as c_int,
            );
        }
        p
    }

    pub fn mirror_dat(&mut self, id: DatId, orig: *mut c_void) -> op_dat {
        let set_c = self.set_ptr(self.dom.dat(id).set);
        let d = self.dom.dat_mut(id);
        let name = crate::ffi::cstring(&d.name);
        let ty = crate::ffi::cstring(&d.type_name);
        let data = d.data.as_mut_ptr() as *mut c_char;
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
        while self.dats.len() <= id.0 {
            self.dats.push(None);
        }
        self.dats[id.0] = Some(DatEntry {
            c,
            _name: name,
            _type: ty,
            entry,
        });
        let p = self.dat_ptr(id);
        self.dat_ptr.insert(p as usize, id);
        // SAFETY: TAILQ_INSERT_TAIL on the exported list; the entry is boxed
        // (stable) and owned by self.dats until removed in `forget_dat`.
        unsafe {
            let e: *mut op_dat_entry_core = &mut *self.dats[id.0].as_mut().unwrap().entry;
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
                self.dom.num_dat_slots() as c_int,
            );
        }
        p
    }

    /// Drop the C mirror of a freed dat (after `Domain::free_temp`).
    pub fn forget_dat(&mut self, id: DatId) {
        let p = self.dat_ptr(id);
        self.dat_ptr.remove(&(p as usize));
        if let Some(mut d) = self.dats[id.0].take() {
            // SAFETY: TAILQ_REMOVE of an entry inserted by mirror_dat.
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

    /// The C mirror of a live dat.
    pub fn dat_c(&mut self, id: DatId) -> &mut op_dat_core {
        &mut self.dats[id.0].as_mut().expect("live dat").c
    }

    /// Copy a set's sizes into its C mirror (after partitioning).
    pub fn refresh_set(&mut self, id: SetId) {
        let s = self.dom.set(id).clone();
        let c = &mut self.sets[id.0].c;
        c.size = s.size as c_int;
        c.core_size = s.core_size as c_int;
        c.exec_size = s.exec_size as c_int;
        c.nonexec_size = s.nonexec_size as c_int;
    }

    /// Point a map's C mirror at its current values (after partitioning).
    pub fn refresh_map(&mut self, id: MapId) {
        let p = self.dom.map(id).values.as_ptr() as *mut c_int;
        self.maps[id.0].c.map = p;
    }

    /// Object description for messages.
    pub fn dat_obj(&self, id: DatId) -> String {
        obj("dat", &self.dom.dat(id).name)
    }
}
