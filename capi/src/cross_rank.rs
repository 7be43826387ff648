//! Figures combined across MPI ranks: `op_timings_to_csv` (one row per rank
//! and thread, written by the root), `op_compute_moment[_across_times]`
//! (averaged over ranks) and the merged `op_profile_output` tree. On one node
//! the same code sees one rank. Each function is collective under MPI: every
//! rank calls it, as in OP2.
//!
//! What is C's lives here: reading `OP_kernels`, gathering bytes through the
//! distribution (`allgather_bytes`) and writing files. Kernel figures and
//! profile trees cross ranks as the binary messages of
//! `op2_core::profile::wire`; the CSV is built by
//! `op2_core::profile::timings_csv` and trees are merged by
//! `Profiler::merge_encoded`. The moments cross ranks as raw little-endian
//! `f64`s.

use crate::boundary::{c_api, exports};
use crate::state::{c_str, lock_state, name_or, running, with_state, Life, State};
use op2_core::profile::{timings_csv, wire, KernelFigures, Profiler};
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_double, c_int};

/// This rank's kernels that ran, in `OP_kernels` order.
pub(crate) fn local_figures(st: &mut State) -> Vec<KernelFigures> {
    let mut out = Vec::new();
    for r in st.c.kernels.recs.iter_mut() {
        if r.count <= 0 {
            continue;
        }
        // SAFETY: times has ntimes >= 1 entries (allocated by Kernels::realloc).
        let times = unsafe { std::slice::from_raw_parts_mut(r.times, r.ntimes.max(1) as usize) };
        if times.len() == 1 && times[0] == 0.0 && r.time != 0.0 {
            // code from OP2's older translator times into `time` only
            times[0] = r.time;
        }
        out.push(KernelFigures {
            // SAFETY: names are C strings set by us or the application.
            name: unsafe { name_or(r.name, "?") }.into_owned(),
            count: i64::from(r.count),
            times: times.to_vec(),
            plan_time: f64::from(r.plan_time),
            mpi_time: r.mpi_time,
            transfer: f64::from(r.transfer),
            transfer2: f64::from(r.transfer2),
        });
    }
    out
}

/// # Safety
/// As for [`op_timings_to_csv`].
unsafe fn timings_to_csv(file: *const c_char) -> Result<()> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let path = unsafe { c_str("the file name", file) }?;
        let local = wire::encode_figures(&local_figures(st));
        let all = st.rt.dist_mut().allgather_bytes(&local)?;
        if !crate::is_root() {
            return Ok(());
        }
        let per_rank = all
            .iter()
            .enumerate()
            .map(|(rank, message)| {
                wire::decode_figures(message).map_err(|e| {
                    let what = format!("rank {rank}'s kernel figures do not decode: {e}");
                    Op2Error::new("", "", what)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        std::fs::write(&path, timings_csv(&per_rank))
            .map_err(|e| Op2Error::new("", "", format!("cannot write \"{path}\": {e}")))
    })
}

/// `vals` summed element-wise over the ranks (left alone on one node, and
/// before `op_init` or after `op_exit`, when there are no ranks to ask).
fn sum_across_ranks(vals: &mut [f64]) -> Result<()> {
    match running() {
        true => with_state(|st| st.rt.sum_across_ranks(vals)),
        false => Ok(()),
    }
}

/// `*m1 = v[0] / v[2]`, `*m2 = v[1] / v[2]` where given.
///
/// # Safety
/// `m1` and `m2` are NULL or writable.
unsafe fn write_moments(v: &[f64; 3], m1: *mut c_double, m2: *mut c_double) {
    // SAFETY: the caller's contract.
    let (m1, m2) = unsafe { (m1.as_mut(), m2.as_mut()) };
    if let Some(m) = m1 {
        *m = v[0] / v[2];
    }
    if let Some(m) = m2 {
        *m = v[1] / v[2];
    }
}

/// First and second moment of `t` over the ranks (mean of t and of t²), on
/// every rank (OP2 leaves them on the root only).
///
/// # Safety
/// `m1` and `m2` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn op_compute_moment(t: c_double, m1: *mut c_double, m2: *mut c_double) {
    c_api!("op_compute_moment", {
        let mut v = [t, t * t, 1.0];
        sum_across_ranks(&mut v)?;
        // SAFETY: the caller's contract.
        unsafe { write_moments(&v, m1, m2) };
        Ok(())
    })
}

/// Moments over `n` times on every rank together, optionally ignoring
/// zeros; `m1`/`m2` are left unchanged when no time counts (as OP2).
///
/// # Safety
/// `times` is NULL or holds `n` doubles; `m1` and `m2` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn op_compute_moment_across_times(
    times: *const c_double,
    n: c_int,
    ignore_zeros: bool,
    m1: *mut c_double,
    m2: *mut c_double,
) {
    c_api!("op_compute_moment_across_times", {
        // SAFETY: the caller passes `n` readable doubles at `times` (OP2's contract).
        let ts = unsafe { crate::state::slice(n, times) };
        let mut v = [0.0, 0.0, 0.0];
        for t in ts.iter().filter(|t| !ignore_zeros || **t != 0.0) {
            v[0] += t;
            v[1] += t * t;
            v[2] += 1.0;
        }
        sum_across_ranks(&mut v)?;
        if v[2] != 0.0 {
            // SAFETY: the caller's contract.
            unsafe { write_moments(&v, m1, m2) };
        }
        Ok(())
    })
}

/// Every rank's profile (`local` is this rank's, from `Profiler::encode`),
/// merged in rank order into a fresh profiler at `level` on the root; `None`
/// on the other ranks. A collective call under MPI; before `op_init` and
/// after `op_exit` only this process's profile is merged.
pub(crate) fn merged_profile(local: Vec<u8>, level: u32) -> Result<Option<Profiler>> {
    let all = match &mut *lock_state() {
        Life::Running(st) => st.rt.dist_mut().allgather_bytes(&local)?,
        _ => vec![local],
    };
    if !crate::is_root() {
        return Ok(None);
    }
    Profiler::merged(&all, level)
        .map(Some)
        .map_err(|e| Op2Error::new("op_profile_output", "", e))
}

exports! {
    /// Per-kernel timings as CSV: every rank's and thread's figures, written by
    /// the root.
    op_timings_to_csv(file: *const c_char) = "op_timings_to_csv" => timings_to_csv(file);
}
