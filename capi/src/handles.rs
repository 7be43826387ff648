//! What C holds: handles (`op_set`, `op_map`, `op_dat`: addresses of the C
//! mirrors) and the ids they stand for, OP_ID's null maps, interned type
//! strings, and the look-up tables of OP2's Fortran helpers. Resolving a
//! handle is the first step of every call; a handle that is not one gives
//! an error naming it.

use crate::ffi::*;
use op2_core::FastHashMap as HashMap;
use op2_core::{DatId, MapId, Op2Error, Result, SetId};
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr::null_mut;

/// The id behind handle `p` (an error naming the handle when it is NULL
/// or not `what`).
fn find<T: Copy>(ids: &HashMap<usize, T>, p: usize, kind: &str, what: &str) -> Result<T> {
    if p == 0 {
        return Err(Op2Error::new("", "", format!("the {kind} is NULL")));
    }
    let e = || Op2Error::new("", "", format!("{:p} is not {what}", p as *const u8));
    ids.get(&p).copied().ok_or_else(e)
}

/// At most this many type-string addresses are remembered.
const TYPE_TEXTS_MAX: usize = 1024;

/// Handles and the ids behind them.
#[derive(Default)]
pub struct Handles {
    sets: HashMap<usize, SetId>,
    maps: HashMap<usize, MapId>,
    dats: HashMap<usize, DatId>,
    /// Handles from op_decl_null_map (treated as OP_ID); boxed for stable addresses.
    #[allow(clippy::vec_box)]
    null_maps: Vec<Box<op_map_core>>,
    interned: HashMap<String, CString>,
    /// Type strings by the address a call gave them at: their text (a hit
    /// must match the bytes there now: an address says nothing of what a
    /// buffer holds) and their interned normalised spelling.
    type_texts: HashMap<usize, (String, *const c_char)>,
    /// `op_register_set(idx, set)`.
    pub registered_sets: HashMap<c_int, SetId>,
    /// Further arrays that name a map (copies from `op_copy_map_to_fort`,
    /// pointers from `op_reset_map_ptr`).
    pub map_ptrs: HashMap<usize, MapId>,
    /// The 1-based copies `op_copy_map_to_fort` handed out (kept for the run).
    #[allow(clippy::vec_box)]
    pub fort_maps: Vec<Box<[c_int]>>,
    /// `op_get_g_index`: per set, the global index of each owned element.
    pub g_index: HashMap<SetId, Box<[i64]>>,
    /// Fortran kernels' names for timing, by kernel address.
    pub kernel_names: HashMap<usize, CString>,
}

impl Handles {
    pub fn add_set(&mut self, p: op_set, id: SetId) {
        self.sets.insert(p as usize, id);
    }
    pub fn add_map(&mut self, p: op_map, id: MapId) {
        self.maps.insert(p as usize, id);
    }
    pub fn add_dat(&mut self, p: op_dat, id: DatId) {
        self.dats.insert(p as usize, id);
    }
    pub fn forget_dat(&mut self, p: op_dat) {
        self.dats.remove(&(p as usize));
    }

    pub fn set_id(&self, p: op_set) -> Result<SetId> {
        find(
            &self.sets,
            p as usize,
            "set",
            "a set declared with op_decl_set",
        )
    }

    pub fn map_id(&self, p: op_map) -> Result<MapId> {
        find(
            &self.maps,
            p as usize,
            "map",
            "a map declared with op_decl_map",
        )
    }

    /// `None` for OP_ID (NULL or a null map).
    pub fn opt_map_id(&self, p: op_map) -> Result<Option<MapId>> {
        if p.is_null() || self.null_maps.iter().any(|m| std::ptr::eq(&**m, p)) {
            Ok(None)
        } else {
            self.map_id(p).map(Some)
        }
    }

    pub fn dat_id(&self, p: op_dat) -> Result<DatId> {
        let what = "a live dat (declared with op_decl_dat, not freed)";
        find(&self.dats, p as usize, "dat", what)
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

    /// The type string at `p` (not NULL, NUL-terminated, OP2's contract):
    /// its text and the interned copy of OP2's spelling of it (what
    /// `op_arg.type` holds). Converted once per address and text: an
    /// application's type strings are literals, passed at every loop call.
    ///
    /// # Safety
    /// `p` is a non-NULL, NUL-terminated string.
    pub unsafe fn type_text(&mut self, p: *const c_char) -> (&str, *const c_char) {
        // SAFETY: the caller's contract.
        let bytes = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
        let key = p as usize;
        // (a string that is not UTF-8 never matches its lossy text: it is
        // converted at every call, as before)
        if self
            .type_texts
            .get(&key)
            .is_none_or(|e| e.0.as_bytes() != bytes)
        {
            // strings built at run time may come at ever new addresses:
            // the table stays small (a program's literals are few)
            if self.type_texts.len() >= TYPE_TEXTS_MAX {
                self.type_texts.clear();
            }
            let text = String::from_utf8_lossy(bytes).into_owned();
            let interned = self.intern(&op2_core::types::normalise(&text));
            self.type_texts.insert(key, (text, interned));
        }
        let e = &self.type_texts[&key];
        (&e.0, e.1)
    }

    /// A stable C copy of `s` (type strings stored in op_args); allocates
    /// only the first time a string is seen.
    pub fn intern(&mut self, s: &str) -> *const c_char {
        if let Some(c) = self.interned.get(s) {
            return c.as_ptr();
        }
        self.interned
            .entry(s.to_string())
            .or_insert_with(|| crate::ffi::cstring(s))
            .as_ptr()
    }
}
