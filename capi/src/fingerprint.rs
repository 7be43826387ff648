//! Recognising a call seen before, without allocating: the raw fields of a
//! call's `op_arg`s (handles, pointers, modes) and of its loop (name pointer,
//! set), hashed and compared as plain values. Caches keyed by a fingerprint
//! are valid for one generation of the library state (declarations freed or
//! storage moved start a new one).

use crate::ffi::{op_arg, op_set};
use std::ffi::CStr;
use std::hash::{Hash, Hasher};
use std::os::raw::{c_char, c_int};

/// The fields of an `op_arg` that decide how a loop uses it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RawArg {
    dat: usize,
    map: usize,
    data: usize,
    type_ptr: usize,
    idx: c_int,
    dim: c_int,
    size: c_int,
    acc: c_int,
    argtype: c_int,
    opt: c_int,
}

impl RawArg {
    pub(crate) fn of(a: &op_arg) -> RawArg {
        RawArg {
            dat: a.dat as usize,
            map: a.map as usize,
            data: a.data as usize,
            type_ptr: a.r#type as usize,
            idx: a.idx,
            dim: a.dim,
            size: a.size,
            acc: a.acc,
            argtype: a.argtype,
            opt: a.opt,
        }
    }
}

/// A loop call: its name (pointer and bytes), set and raw args, plus one
/// word of context (the entry point / kernel parameter codes).
#[derive(Clone, Debug)]
pub(crate) struct CallKey {
    name_ptr: usize,
    name: Box<[u8]>,
    set: usize,
    context: usize,
    args: Box<[RawArg]>,
}

/// FxHash's multiplier: a fast, well-mixing hash for machine words.
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64)
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64)
    }
}

/// The hash of a call, from its raw parts (no allocation).
///
/// # Safety
/// `args` must point to `nargs` op_args (or be unused when `nargs == 0`).
pub(crate) unsafe fn hash_call(
    name: *const c_char,
    set: op_set,
    context: usize,
    args: &[op_arg],
) -> u64 {
    let mut h = WordHasher(0);
    (name as usize).hash(&mut h);
    (set as usize).hash(&mut h);
    context.hash(&mut h);
    for a in args {
        RawArg::of(a).hash(&mut h);
    }
    h.finish()
}

impl CallKey {
    /// # Safety
    /// `name` is NULL or a NUL-terminated string.
    pub(crate) unsafe fn new(
        name: *const c_char,
        set: op_set,
        context: usize,
        args: &[op_arg],
    ) -> CallKey {
        CallKey {
            name_ptr: name as usize,
            name: if name.is_null() {
                Box::new([])
            } else {
                CStr::from_ptr(name).to_bytes().into()
            },
            set: set as usize,
            context,
            args: args.iter().map(RawArg::of).collect(),
        }
    }

    /// Is this the same call? Compares values only (no allocation).
    ///
    /// # Safety
    /// As for [`CallKey::new`].
    pub(crate) unsafe fn matches(
        &self,
        name: *const c_char,
        set: op_set,
        context: usize,
        args: &[op_arg],
    ) -> bool {
        self.name_ptr == name as usize
            && self.set == set as usize
            && self.context == context
            && self.args.len() == args.len()
            && self.args.iter().zip(args).all(|(k, a)| *k == RawArg::of(a))
            && !name.is_null()
            && CStr::from_ptr(name).to_bytes() == &self.name[..]
    }
}

/// Entries by call hash, for one generation of the library state.
pub(crate) struct CallCache<T> {
    generation: u64,
    entries: std::collections::HashMap<u64, Vec<(CallKey, T)>>,
}

impl<T> Default for CallCache<T> {
    fn default() -> Self {
        CallCache {
            generation: 0,
            entries: Default::default(),
        }
    }
}

/// Entries kept per hash (calls differing only in, e.g., the address of a
/// stack variable given to op_arg_gbl keep the newest few).
const PER_HASH: usize = 8;

impl<T> CallCache<T> {
    /// The entry of this call in `generation`, if any.
    ///
    /// # Safety
    /// As for [`CallKey::new`].
    pub(crate) unsafe fn get(
        &mut self,
        generation: u64,
        hash: u64,
        name: *const c_char,
        set: op_set,
        context: usize,
        args: &[op_arg],
    ) -> Option<&T> {
        if self.generation != generation {
            self.entries.clear();
            self.generation = generation;
            return None;
        }
        self.entries
            .get(&hash)?
            .iter()
            .find(|(k, _)| k.matches(name, set, context, args))
            .map(|(_, v)| v)
    }

    pub(crate) fn insert(&mut self, hash: u64, key: CallKey, value: T) {
        let v = self.entries.entry(hash).or_default();
        if v.len() >= PER_HASH {
            v.remove(0);
        }
        v.push((key, value));
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}
