//! Getting data out: fetch, dumps, diagnostics, timers and the timing table.

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::globals::*;
use crate::state::{c_str, name_or, running, with_state, State};
use op2_core::timing::{format_table, TimingRow};
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_double, c_int};
use std::ptr::addr_of;

fn out(s: &str) {
    crate::printf::cout(s)
}

/// Copy elements `low..=high` of a dat in the declared order (this rank's
/// block: `None`) to `dst`, whose scalars have `dst_elem` bytes when the
/// headers know it.
///
/// # Safety
/// `dst` is NULL or holds the elements copied.
unsafe fn fetch(
    call: &'static str,
    dat: op_dat,
    range: Option<(i64, i64)>,
    dst: *mut c_char,
    dst_elem: Option<usize>,
) -> Result<()> {
    with_state(|st| {
        let id = st.h.dat_id(dat)?;
        if dst.is_null() {
            return Err(Op2Error::new(
                call,
                st.dat_obj(id),
                "the destination pointer is NULL",
            ));
        }
        let bytes = st.rt.fetch(&mut st.c, call, id, range, dst_elem)?;
        // SAFETY: OP2's contract: dst holds the elements asked for.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, bytes.len()) };
        Ok(())
    })
}

/// # Safety
/// As for [`op_fetch_data_idx_char`].
#[no_mangle]
pub unsafe extern "C" fn op2_fetch_data_idx_checked(
    dat: op_dat,
    dst: *mut c_char,
    low: c_int,
    high: c_int,
    dst_elem: c_int,
) {
    c_api!(
        unsafe call = "op_fetch_data_idx",
        fetch(
            call,
            dat,
            Some((low as i64, high as i64)),
            dst,
            Some(dst_elem as usize)
        )
    )
}

/// Write a dat as text (OP2's layout; under MPI the root writes every
/// rank's rows in the declared order, in OP2's MPI layout).
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_print_dat_to_txtfile(dat: op_dat, file: *const c_char) {
    c_api!(
        call = "op_print_dat_to_txtfile",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            // SAFETY: the caller's contract.
            let path = unsafe { c_str("the file name", file) }?;
            st.rt.print_dat_txt(&mut st.c, call, id, &path)
        })
    )
}

/// Write a dat as binary: int32 count, int32 dim, raw element data.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_print_dat_to_binfile(dat: op_dat, file: *const c_char) {
    c_api!(
        call = "op_print_dat_to_binfile",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            // SAFETY: the caller's contract.
            let path = unsafe { c_str("the file name", file) }?;
            st.rt.print_dat_bin(&mut st.c, call, id, &path)
        })
    )
}

/// Print every value of a dat on its own line (`%lf`, `%f` or `%d`, as OP2).
#[no_mangle]
pub extern "C" fn op_dump_dat(dat: op_dat) {
    c_api!(
        "op_dump_dat",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            out(&st.rt.dump_dat(&mut st.c, "op_dump_dat", id)?);
            Ok(())
        })
    )
}

/// Tables of sets, maps and dats (printed when OP_diags > 1).
#[no_mangle]
pub extern "C" fn op_diagnostic_output() {
    c_api!(
        "op_diagnostic_output",
        with_state(|st| {
            if st.rt.config().diags > 1 {
                out(&st.rt.dom().describe());
            }
            Ok(())
        })
    )
}

// ---- timers and timing -------------------------------------------------------

/// Wall-clock seconds and process CPU seconds, into whichever is given.
fn clocks(cpu: Option<&mut c_double>, et: Option<&mut c_double>) {
    if let Some(cpu) = cpu {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the timespec we pass.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        *cpu = ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9;
    }
    if let Some(et) = et {
        *et = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
    }
}

/// Wall-clock seconds in `*et` and process CPU seconds in `*cpu` (either may be NULL).
///
/// # Safety
/// The pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn op_timers_core(cpu: *mut c_double, et: *mut c_double) {
    c_api!("op_timers_core", {
        // SAFETY: the caller's contract.
        unsafe { clocks(cpu.as_mut(), et.as_mut()) };
        Ok(())
    })
}

/// As op_timers_core (a barrier first under MPI).
///
/// # Safety
/// As for [`op_timers_core`].
#[no_mangle]
pub unsafe extern "C" fn op_timers(cpu: *mut c_double, et: *mut c_double) {
    c_api!("op_timers", {
        if running() {
            with_state(|st| st.rt.dist_mut().barrier())?;
        }
        // SAFETY: the caller's contract.
        unsafe { clocks(cpu.as_mut(), et.as_mut()) };
        Ok(())
    })
}

fn timing_realloc(k: c_int, ntimers: c_int) -> Result<()> {
    with_state(|st| {
        if k < 0 {
            return Err(Op2Error::new(
                "op_timing_realloc",
                "",
                format!("kernel index {k} is negative"),
            ));
        }
        st.c.kernels.realloc(k as usize, ntimers.max(1) as usize);
        Ok(())
    })
}

/// Rows of the timing table from `OP_kernels`.
pub(crate) fn timing_rows(st: &mut State) -> Vec<TimingRow> {
    let figures = crate::cross_rank::local_figures(st);
    figures.iter().map(|f| f.row()).collect()
}

/// Print the per-kernel timing table (every loop run through op_par_loop and
/// every kernel generated code recorded).
#[no_mangle]
pub extern "C" fn op_timing_output() {
    c_api!(
        "op_timing_output",
        with_state(|st| {
            if st.c.kernels.recs.is_empty() {
                return Ok(());
            }
            let mut rows = timing_rows(st);
            let per_rank = st.rt.dist_mut().timing_across_ranks(&mut rows)?;
            // SAFETY: plain double global.
            let pt = unsafe { std::ptr::read_volatile(addr_of!(OP_plan_time)) };
            let pt = st.rt.builds_plans().then_some(pt);
            out(&op2_core::timing::timing_output(&rows, pt, &per_rank));
            if let Some(t) = st.rt.placement_table() {
                out(&t);
            }
            Ok(())
        })
    )
}

#[no_mangle]
pub extern "C" fn op_timing_output_core() {
    c_api!(
        "op_timing_output_core",
        with_state(|st| {
            if !st.c.kernels.recs.is_empty() {
                out(&format_table(&timing_rows(st)));
            }
            Ok(())
        })
    )
}

/// The timing table in OP2's file layout.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_timing_output_2_file(file: *const c_char) {
    c_api!(
        "op_timing_output_2_file",
        with_state(|st| {
            // SAFETY: the caller's contract.
            let path = unsafe { c_str("the file name", file) }?;
            let text = if st.c.kernels.recs.is_empty() {
                String::new()
            } else {
                op2_core::timing::format_file_table(&timing_rows(st))
            };
            std::fs::write(&path, text)
                .map_err(|e| Op2Error::new("", "", format!("cannot write \"{path}\": {e}")))
        })
    )
}

/// Print a line (root only under MPI).
///
/// # Safety
/// `line` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_print(line: *const c_char) {
    c_api!("op_print", {
        if !line.is_null() && crate::is_root() {
            // SAFETY: the caller's contract.
            out(&format!("{}\n", unsafe { name_or(line, "") }));
        }
        Ok(())
    })
}

exports! {
    /// Copy all of a dat's owned elements to `dst`.
    op_fetch_data_char(dat: op_dat, dst: *mut c_char) = "op_fetch_data" => fetch("op_fetch_data", dat, None, dst, None);
    /// `op_fetch_data` from the C/C++ headers, which know the destination's element size.
    op2_fetch_data_checked(dat: op_dat, dst: *mut c_char, dst_elem: c_int) = "op_fetch_data" => fetch("op_fetch_data", dat, None, dst, Some(dst_elem as usize));
    /// Make `OP_kernels[k]` exist (generated code calls this before touching it).
    op_timing_realloc(k: c_int) = "op_timing_realloc" => timing_realloc(k, 1);
    op_timing_realloc_manytime(k: c_int, ntimers: c_int) = "op_timing_realloc" => timing_realloc(k, ntimers);
    /// 1 on the root process (always on one node).
    op_is_root() -> c_int = "op_is_root" => Ok(crate::is_root() as c_int);
    /// Copy elements `low..=high` of a dat to `dst` (which holds `high-low+1` elements).
    /// Unlike OP2, nothing past `high` is read.
    op_fetch_data_idx_char(dat: op_dat, dst: *mut c_char, low: c_int, high: c_int) = "op_fetch_data_idx" => fetch("op_fetch_data_idx", dat, Some((low as i64, high as i64)), dst, None);
}
