//! Figures combined across MPI ranks: `op_timings_to_csv` (one row per rank
//! and thread, written by the root), `op_compute_moment[_across_times]`
//! (averaged over ranks) and the merged `op_profile_output` tree. On one node
//! the same code sees one rank. Each function is collective under MPI: every
//! rank calls it, as in OP2.

use crate::boundary::c_api;
use crate::state::{c_str, lock_state, with_state, Life, State};
use op2_core::{Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_double, c_int};

/// One kernel's record on one rank (the timing table and the CSV).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KernelFigures {
    pub name: String,
    pub count: i64,
    /// Per thread (`OP_kernels[k].times`).
    pub times: Vec<f64>,
    pub plan_time: f64,
    pub mpi_time: f64,
    pub transfer: f64,
    pub transfer2: f64,
}

impl KernelFigures {
    /// One line: the name (tabs and newlines cannot occur in it: replaced),
    /// then the numbers as exact bit patterns.
    fn encode(&self, out: &mut String) {
        let name = self.name.replace(['\t', '\n'], " ");
        out.push_str(&format!(
            "{name}\t{}\t{:x}\t{:x}\t{:x}\t{:x}",
            self.count,
            self.plan_time.to_bits(),
            self.mpi_time.to_bits(),
            self.transfer.to_bits(),
            self.transfer2.to_bits()
        ));
        for t in &self.times {
            out.push_str(&format!("\t{:x}", t.to_bits()));
        }
        out.push('\n');
    }

    fn decode(line: &str) -> Option<KernelFigures> {
        let mut f = line.split('\t');
        let name = f.next()?.to_string();
        let count = f.next()?.parse().ok()?;
        let mut num =
            || -> Option<f64> { Some(f64::from_bits(u64::from_str_radix(f.next()?, 16).ok()?)) };
        let (plan_time, mpi_time, transfer, transfer2) = (num()?, num()?, num()?, num()?);
        let mut times = Vec::new();
        while let Some(t) = num() {
            times.push(t);
        }
        Some(KernelFigures {
            name,
            count,
            times,
            plan_time,
            mpi_time,
            transfer,
            transfer2,
        })
    }
}

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
        let name = if r.name.is_null() {
            "?".to_string()
        } else {
            // SAFETY: names are C strings set by us or the application.
            unsafe { CStr::from_ptr(r.name) }
                .to_string_lossy()
                .into_owned()
        };
        out.push(KernelFigures {
            name,
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

/// OP2's CSV: for each kernel (the root's order), for each rank, one row per
/// thread; plan/MPI time and transfers on thread 0's row only; rows of
/// threads after the first that recorded no time are left out (as OP2's
/// single-node libraries do).
fn csv(per_rank: &[Vec<KernelFigures>]) -> String {
    let mut s = String::from(
        "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name\n",
    );
    let nranks = per_rank.len();
    let Some(root) = per_rank.first() else {
        return s;
    };
    for k in root {
        for (p, figs) in per_rank.iter().enumerate() {
            let Some(f) = figs.iter().find(|f| f.name == k.name) else {
                continue;
            };
            for (thr, t) in f.times.iter().enumerate() {
                if thr > 0 && *t == 0.0 {
                    continue;
                }
                let (plan, mpi, g1, g2) = if thr == 0 {
                    (f.plan_time, f.mpi_time, f.transfer / 1e9, f.transfer2 / 1e9)
                } else {
                    (0.0, 0.0, 0.0, 0.0)
                };
                s.push_str(&format!(
                    "{p},{thr},{nranks},{},{},{t:.6},{plan:.6},{mpi:.6},{g1:.6},{g2:.6},{}\n",
                    f.times.len(),
                    f.count,
                    f.name
                ));
            }
        }
    }
    s
}

/// Per-kernel timings as CSV: every rank's and thread's figures, written by
/// the root.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_timings_to_csv(file: *const c_char) {
    c_api!(
        "op_timings_to_csv",
        with_state(|st| {
            // SAFETY: the caller's contract.
            let path = unsafe { c_str("the file name", file) }?;
            let mut text = String::new();
            for f in local_figures(st) {
                f.encode(&mut text);
            }
            let all = st.rt.dist_mut().allgather_bytes(text.as_bytes())?;
            if !crate::is_root() {
                return Ok(());
            }
            let per_rank: Vec<Vec<KernelFigures>> = all
                .iter()
                .map(|b| {
                    String::from_utf8_lossy(b)
                        .lines()
                        .filter_map(KernelFigures::decode)
                        .collect()
                })
                .collect();
            std::fs::write(&path, csv(&per_rank))
                .map_err(|e| Op2Error::new("", "", format!("cannot write \"{path}\": {e}")))
        })
    )
}

/// `vals` summed element-wise over the ranks (left alone on one node, and
/// before `op_init` or after `op_exit`, when there are no ranks to ask).
fn sum_across_ranks(vals: &mut [f64]) -> Result<()> {
    if !crate::state::running() {
        return Ok(());
    }
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let all = with_state(|st| st.rt.dist_mut().allgather_bytes(&bytes))?;
    if all.len() <= 1 {
        return Ok(());
    }
    // summed in rank order: every rank gets the same bits
    for (i, v) in vals.iter_mut().enumerate() {
        *v = all
            .iter()
            .map(|b| {
                let c: [u8; 8] = b[i * 8..i * 8 + 8].try_into().expect("8 bytes per value");
                f64::from_le_bytes(c)
            })
            .sum();
    }
    Ok(())
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

/// `m1 = sum / n`, `m2 = sum of squares / n` where given.
///
/// # Safety
/// `m1` and `m2` are NULL or writable.
unsafe fn write_moments(v: &[f64; 3], m1: *mut c_double, m2: *mut c_double) {
    // SAFETY: the caller's contract.
    unsafe {
        if let Some(m) = m1.as_mut() {
            *m = v[0] / v[2];
        }
        if let Some(m) = m2.as_mut() {
            *m = v[1] / v[2];
        }
    }
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
        let ts: &[f64] = if times.is_null() || n <= 0 {
            &[]
        } else {
            // SAFETY: the caller passes `n` readable doubles at `times` (OP2's contract).
            unsafe { std::slice::from_raw_parts(times, n as usize) }
        };
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

/// Every rank's profile tree (JSON), merged on the root; `None` elsewhere,
/// or when profiling is off. A collective call under MPI.
pub(crate) fn merged_profile(
    local: Option<String>,
    level: u32,
) -> Result<Option<op2_core::profile::Profiler>> {
    let text = local.unwrap_or_default();
    let all = match &mut *lock_state() {
        Life::Running(st) => st.rt.dist_mut().allgather_bytes(text.as_bytes())?,
        _ => vec![text.into_bytes()],
    };
    if !crate::is_root() {
        return Ok(None);
    }
    let mut merged = op2_core::profile::Profiler::new(level);
    for (rank, json) in all.iter().enumerate() {
        if json.is_empty() {
            continue;
        }
        merged
            .merge_json(&String::from_utf8_lossy(json))
            .map_err(|e| {
                Op2Error::new(
                    "op_profile_output",
                    "",
                    format!("rank {rank}'s profile does not parse: {e}"),
                )
            })?;
    }
    Ok(Some(merged))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str, times: &[f64]) -> KernelFigures {
        KernelFigures {
            name: name.into(),
            count: 3,
            times: times.to_vec(),
            plan_time: 0.25,
            mpi_time: 0.5,
            transfer: 2e9,
            transfer2: 4e9,
        }
    }

    #[test]
    fn figures_round_trip_exactly() {
        let a = k("res calc", &[0.1, 1.0 / 3.0, 0.0]);
        let mut s = String::new();
        a.encode(&mut s);
        assert_eq!(KernelFigures::decode(s.trim_end()), Some(a));
    }

    #[test]
    fn csv_has_a_row_per_rank_and_thread() {
        let r0 = vec![k("a", &[1.0, 2.0]), k("b", &[3.0, 0.0])];
        let r1 = vec![k("b", &[5.0, 6.0]), k("a", &[7.0, 0.0])];
        let text = csv(&[r0, r1]);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows,
            [
                "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name",
                "0,0,2,2,3,1.000000,0.250000,0.500000,2.000000,4.000000,a",
                "0,1,2,2,3,2.000000,0.000000,0.000000,0.000000,0.000000,a",
                "1,0,2,2,3,7.000000,0.250000,0.500000,2.000000,4.000000,a",
                "0,0,2,2,3,3.000000,0.250000,0.500000,2.000000,4.000000,b",
                "1,0,2,2,3,5.000000,0.250000,0.500000,2.000000,4.000000,b",
                "1,1,2,2,3,6.000000,0.000000,0.000000,0.000000,0.000000,b",
            ]
        );
    }
}
