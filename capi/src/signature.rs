//! A C call reduced to a [`CallSig`] (the runtime's call caches recognise
//! repeated calls by it, without allocating): the addresses of its name
//! and set, one word of context, and the raw fields of each `op_arg` that
//! decide how the call uses it (handles, pointers, modes).

use crate::ffi::{op_arg, op_set};
use op2_core::runtime::calls::{hash_words, CallSig};
use std::ffi::CStr;
use std::os::raw::c_char;

/// Write the words of a call into `out` (cleared first; its capacity is
/// reused, so a loop in steady state allocates nothing).
pub fn words(
    out: &mut Vec<u64>,
    name: *const c_char,
    set: op_set,
    context: usize,
    args: &[op_arg],
) {
    out.clear();
    out.extend([name as u64, set as u64, context as u64]);
    for a in args {
        out.extend([
            a.dat as u64,
            a.map as u64,
            a.data as u64,
            a.r#type as u64,
            a.idx as u32 as u64 | (a.dim as u32 as u64) << 32,
            a.size as u32 as u64 | (a.acc as u32 as u64) << 32,
            a.argtype as u32 as u64 | (a.opt as u32 as u64) << 32,
        ]);
    }
}

/// The signature of a call whose words are `words`.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string that outlives the signature.
pub unsafe fn sig<'a>(words: &'a [u64], name: *const c_char) -> CallSig<'a> {
    CallSig {
        hash: hash_words(words),
        words,
        name: if name.is_null() {
            &[]
        } else {
            // SAFETY: the caller's contract.
            unsafe { CStr::from_ptr(name) }.to_bytes()
        },
    }
}
