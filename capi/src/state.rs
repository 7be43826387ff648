//! The library's global state behind one lock: the core [`Runtime`] (the
//! model and every decision), the [`Handles`] C holds, and the C
//! [`Mirrors`] of the model. Every call into the C ABI locks it through
//! [`with_state`], inside the call's [`c_api!`](crate::boundary::c_api).

use crate::ffi::*;
use crate::handles::Handles;
use crate::mirrors::Mirrors;
use op2_core::runtime::Runtime;
use op2_core::{DatId, MapId, Op2Error, Result, SetId};
use parking_lot::Mutex;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

pub struct State {
    pub rt: Runtime,
    pub h: Handles,
    pub c: Mirrors,
    /// Scratch for call signatures (reused: no allocation per loop).
    pub sig: Vec<u64>,
}

// SAFETY: the raw pointers in State point into allocations State owns (or
// the program's arrays, only compared); State is only used under the lock.
unsafe impl Send for State {}

pub enum Life {
    Uninit,
    Running(Box<State>),
    Exited,
}

static STATE: Mutex<Life> = Mutex::new(Life::Uninit);

/// Take the library state's lock (kept out of line so profilers can count
/// the acquisitions per loop).
#[inline(never)]
pub fn lock_state() -> parking_lot::MutexGuard<'static, Life> {
    STATE.lock()
}

/// Is the library initialised (between op_init and op_exit)?
pub fn running() -> bool {
    matches!(*lock_state(), Life::Running(_))
}

/// Lock the state and run `f` on it, with the options in force now; an
/// error before op_init or after op_exit.
pub fn with_state<R>(f: impl FnOnce(&mut State) -> Result<R>) -> Result<R> {
    let mut life = lock_state();
    match &mut *life {
        Life::Running(s) => {
            s.rt.set_config(crate::globals::config());
            f(s)
        }
        Life::Uninit => Err(Op2Error::new("", "", "called before op_init")),
        Life::Exited => Err(Op2Error::new("", "", "called after op_exit")),
    }
}

/// Read a C string argument; NULL is an error naming `what`.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string.
pub unsafe fn c_str(what: &str, p: *const c_char) -> Result<String> {
    // SAFETY: the caller's contract.
    unsafe { c_text(what, p) }.map(|t| t.into_owned())
}

/// [`c_str`] without a copy when the string is valid UTF-8.
///
/// # Safety
/// As for [`c_str`]; the string outlives the result.
pub unsafe fn c_text<'a>(what: &str, p: *const c_char) -> Result<std::borrow::Cow<'a, str>> {
    not_null(what, p)?;
    // SAFETY: the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// The error [`c_text`] gives for a NULL string (`what` names it), for
/// callers that read the string some other way.
pub fn not_null(what: &str, p: *const c_char) -> Result<()> {
    if p.is_null() {
        return Err(Op2Error::new("", "", format!("{what} is NULL")));
    }
    Ok(())
}

/// A C string, or `none` when NULL (borrowed: no allocation for valid
/// UTF-8).
///
/// # Safety
/// As for [`c_str`].
pub unsafe fn name_or<'a>(p: *const c_char, none: &'a str) -> std::borrow::Cow<'a, str> {
    if p.is_null() {
        none.into()
    } else {
        // SAFETY: the caller's contract.
        unsafe { CStr::from_ptr(p) }.to_string_lossy()
    }
}

impl State {
    /// Declare a set and mirror it.
    pub fn add_set(&mut self, id: SetId) -> op_set {
        let p = self.c.add_set(self.rt.dom(), id);
        self.h.add_set(p, id);
        p
    }

    /// Mirror a declared map (and give it its device copy).
    pub fn add_map(&mut self, call: &str, id: MapId, orig: *const c_int) -> Result<op_map> {
        let p = self.c.add_map(self.rt.dom(), id, orig);
        self.h.add_map(p, id);
        self.rt.device_add_map(&mut self.c, call, id)?;
        Ok(p)
    }

    /// Mirror a declared dat (and give it its device copy).
    pub fn add_dat(&mut self, call: &str, id: DatId, orig: *mut c_void) -> Result<op_dat> {
        let p = self.c.add_dat(self.rt.dom(), id, orig);
        self.h.add_dat(p, id);
        self.rt.device_add_dat(&mut self.c, call, id)?;
        Ok(p)
    }

    /// Forget a freed dat's handle and mirror.
    pub fn forget_dat(&mut self, id: DatId) {
        let p = self.c.dat_ptr(id);
        self.h.forget_dat(p);
        self.c.forget_dat(id);
    }

    /// The map named by an array: a copy or pointer registered by OP2's
    /// Fortran helpers, or the array given to op_decl_map.
    pub fn map_by_orig_ptr(&self, p: *const c_int) -> Option<MapId> {
        self.h
            .map_ptrs
            .get(&(p as usize))
            .copied()
            .or_else(|| self.c.map_by_orig_ptr(p))
    }

    /// `dat "name"`, for messages.
    pub fn dat_obj(&self, id: DatId) -> String {
        op2_core::error::obj("dat", &self.rt.dat(id).name)
    }
}

/// The `n` values at `p` as a slice (NULL or a non-positive count: empty).
///
/// # Safety
/// `p` is NULL or holds `n` values that outlive the slice.
pub(crate) unsafe fn slice<'a, T>(n: c_int, p: *const T) -> &'a [T] {
    if n <= 0 || p.is_null() {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}
