//! The library's global state: one `Domain` plus the C mirrors of its objects
//! at stable addresses, behind a lock.

use crate::ffi::*;
use crate::globals;
use op2_core::error::obj;
use op2_core::invoke::Executor;
use op2_core::{DatId, Domain, MapId, Op2Error, Result, SetId};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::{addr_of_mut, null_mut};

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

/// Timing record storage behind `OP_kernels`.
#[derive(Default)]
pub struct Kernels {
    /// The array `OP_kernels` points to.
    pub recs: Vec<op_kernel>,
    /// Per record, its `times` array (ntimes entries).
    times: Vec<Box<[f64]>>,
    /// Names we own (records named by op_par_loop).
    names: Vec<CString>,
    by_name: HashMap<String, usize>,
}

pub struct State {
    pub dom: Domain,
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
    pub(crate) loop_plans: HashMap<crate::plans::PlanKey, std::sync::Arc<op2_core::plan::Plan>>,
    /// Plans handed to generated code (behind OP_plans).
    pub(crate) c_plans: crate::plans::CPlans,
    pub exec: std::sync::Arc<dyn Executor + Send + Sync>,
    /// Distribution over MPI ranks (libop2_mpi).
    #[cfg(feature = "lib-mpi")]
    pub(crate) dist: Option<crate::dist::Dist>,
}

// SAFETY: the raw pointers in State point into allocations State owns (or the
// user's arrays, only compared); State is only used under the STATE lock.
unsafe impl Send for State {}

pub enum Life {
    Uninit,
    Running(Box<State>),
    Exited,
}

pub static STATE: Mutex<Life> = Mutex::new(Life::Uninit);

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NULs removed")
}

/// Read a C string argument; NULL or invalid UTF-8 are errors naming `what`.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string.
pub unsafe fn c_str(call: &str, what: &str, p: *const c_char) -> Result<String> {
    if p.is_null() {
        return Err(Op2Error::new(call, "", format!("{what} is NULL")));
    }
    Ok(CStr::from_ptr(p).to_string_lossy().into_owned())
}

/// Lock the state and run `f` on it; errors (including "not initialised") stop the program.
pub fn with_state<R>(call: &'static str, f: impl FnOnce(&mut State) -> Result<R>) -> R {
    crate::guard::checked(call, || {
        let mut life = STATE.lock();
        match &mut *life {
            Life::Running(s) => f(s),
            Life::Uninit => Err(Op2Error::new(call, "", "called before op_init")),
            Life::Exited => Err(Op2Error::new(call, "", "called after op_exit")),
        }
    })
}

impl State {
    pub fn new(exec: std::sync::Arc<dyn Executor + Send + Sync>) -> State {
        globals::reset_all();
        State {
            dom: Domain::new(),
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
            exec,
            #[cfg(feature = "lib-mpi")]
            dist: None,
        }
    }

    /// A stable C copy of `s` owned by the state (type strings stored in op_args).
    pub fn intern(&mut self, s: &str) -> *const c_char {
        self.interned
            .entry(s.to_string())
            .or_insert_with(|| cstring(s))
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
        self.maps.iter().position(|m| m.orig_ptr == p).map(MapId)
    }

    // ---- mirrors -----------------------------------------------------------

    /// Create the C mirror of a newly declared set.
    pub fn mirror_set(&mut self, id: SetId) -> op_set {
        let s = self.dom.set(id);
        let name = cstring(&s.name);
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
        let name = cstring(&m.name);
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
        let name = cstring(&d.name);
        let ty = cstring(&d.type_name);
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
            dirtybit: 1,
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

impl Kernels {
    /// `op_timing_realloc_manytime(k, ntimers)`: make record `k` exist.
    pub fn realloc(&mut self, k: usize, ntimers: usize) {
        if k >= self.recs.len() {
            let new_len = k + 10;
            while self.recs.len() < new_len {
                let mut t = vec![0.0f64; ntimers.max(1)].into_boxed_slice();
                self.recs.push(op_kernel {
                    name: c"unused".as_ptr(),
                    count: 0,
                    time: 0.0,
                    times: t.as_mut_ptr(),
                    ntimes: ntimers.max(1) as c_int,
                    plan_time: 0.0,
                    transfer: 0.0,
                    transfer2: 0.0,
                    mpi_time: 0.0,
                });
                self.times.push(t);
            }
        } else if ntimers > self.recs[k].ntimes as usize {
            let mut t = vec![0.0f64; ntimers].into_boxed_slice();
            t[..self.times[k].len()].copy_from_slice(&self.times[k]);
            self.recs[k].times = t.as_mut_ptr();
            self.recs[k].ntimes = ntimers as c_int;
            self.times[k] = t;
        }
        self.publish();
        // SAFETY: plain int global, API thread.
        unsafe { globals::set(addr_of_mut!(globals::OP_kern_curr), k as c_int) };
    }

    fn publish(&mut self) {
        // SAFETY: OP_kernels mirrors our Vec; generated code re-reads it after
        // each op_timing_realloc, as OP2 requires.
        unsafe {
            *addr_of_mut!(globals::OP_kernels) = self.recs.as_mut_ptr();
            globals::set(addr_of_mut!(globals::OP_kern_max), self.recs.len() as c_int);
        }
    }

    /// The record for kernel `name` (created at the end if new).
    pub fn index_of(&mut self, name: &str) -> usize {
        if let Some(&k) = self.by_name.get(name) {
            // The app's generated code may have renamed the slot; re-check.
            // SAFETY: reading a name pointer we or the app set to a C string.
            let same = unsafe {
                let p = self.recs[k].name;
                !p.is_null() && CStr::from_ptr(p).to_bytes() == name.as_bytes()
            };
            if same {
                return k;
            }
        }
        // Look for a record the application (generated code) named already.
        for (k, r) in self.recs.iter().enumerate() {
            // SAFETY: as above.
            let same = unsafe {
                !r.name.is_null() && CStr::from_ptr(r.name).to_bytes() == name.as_bytes()
            };
            if same {
                self.by_name.insert(name.to_string(), k);
                return k;
            }
        }
        let k = self
            .recs
            .iter()
            .position(|r| r.count == 0 && unsafe { CStr::from_ptr(r.name) } == c"unused")
            .unwrap_or(self.recs.len());
        self.realloc(k, 1);
        let n = cstring(name);
        self.recs[k].name = n.as_ptr();
        self.names.push(n);
        self.by_name.insert(name.to_string(), k);
        k
    }

    /// Name record `k` (generated Fortran code via setKernelTime).
    pub fn rename(&mut self, k: usize, name: &str) {
        let n = cstring(name);
        self.recs[k].name = n.as_ptr();
        self.names.push(n);
        self.by_name.insert(name.to_string(), k);
    }

    /// Add one execution of kernel `k`.
    pub fn record(&mut self, k: usize, secs: f64, mpi_secs: f64, transfer: f64) {
        let r = &mut self.recs[k];
        r.count += 1;
        r.time += secs;
        r.mpi_time += mpi_secs;
        // SAFETY: times has ntimes >= 1 entries (allocated in realloc).
        unsafe { *r.times += secs };
        r.transfer += transfer as f32;
    }
}

impl Kernels {
    /// Index of the record whose name is `name` (no record is created).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.recs.iter().position(|r| {
            // SAFETY: names are C strings set by us or by generated code.
            !r.name.is_null() && unsafe { CStr::from_ptr(r.name) }.to_bytes() == name.as_bytes()
        })
    }

    /// Add plan construction time to kernel `name` (if it has a record).
    pub fn add_plan_time(&mut self, name: &str, secs: f64) {
        if let Some(k) = self.find(name) {
            self.recs[k].plan_time += secs as f32;
        }
    }
}
