//! `op_fetch_data_hdf5*` under MPI: the dat in its original global order
//! (as declared, before `op_partition`). Each rank takes OP2's block of
//! rows of that order (`op_fetch_data_idx_char`, a collective gather of the
//! original order) and writes it with a collective transfer
//! (op2-hdf5-io's `c_api::fetch_data_hdf5`).

use crate::ffi::{self, op_dat};
use crate::guard::{fail, Res};
use std::ffi::c_int;
use std::ops::Range;

/// Rows `rows` of the dat in the original order (every rank must call:
/// the fetch gathers across ranks).
///
/// # Safety
/// `dat` is a live op_dat of the OP2 library.
pub(crate) unsafe fn original_rows(
    dat: op_dat,
    global: u64,
    rows: Range<u64>,
    object: &str,
) -> Res<Vec<u8>> {
    // SAFETY: a live op_dat mirror.
    let esize = unsafe { (*dat).size }.max(0) as usize;
    if global == 0 {
        return Ok(Vec::new());
    }
    let int = |v: u64| {
        c_int::try_from(v).map_err(|_| fail(object, "the set is too large for op_fetch_data_idx"))
    };
    let n = (rows.end - rows.start) as usize;
    if n == 0 {
        // Take part in the gather; keep nothing.
        let mut scratch = vec![0u8; esize.max(1)];
        // SAFETY: scratch holds one element.
        unsafe { ffi::op_fetch_data_idx_char(dat, scratch.as_mut_ptr().cast(), 0, 0) };
        return Ok(Vec::new());
    }
    let mut buf = vec![0u8; n * esize];
    let (lo, hi) = (int(rows.start)?, int(rows.end - 1)?);
    // SAFETY: buf holds hi - lo + 1 elements of dat->size bytes.
    unsafe { ffi::op_fetch_data_idx_char(dat, buf.as_mut_ptr().cast(), lo, hi) };
    Ok(buf)
}
