//! OP2's MPI interface (`op_partition`, the `op_mpi_*` hooks generated code
//! calls around every loop, reductions across ranks, rank queries), written
//! once for every library: each call goes to the runtime and its
//! [`Distribution`](op2_core::dist::Distribution), which on one node does
//! nothing.

use crate::args::{slice, CArgs};
use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::state::{c_str, name_or, with_state};
use op2_core::arg::Access;
use op2_core::dist::PartitionRequest;
use op2_core::runtime::{GeneratedArgs, Pick, Side};
use op2_core::{Result, ScalarType};
use std::os::raw::{c_char, c_double, c_float, c_int, c_void};

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn upper(what: &str, p: *const c_char) -> Result<String> {
    Ok(if p.is_null() {
        String::new()
    } else {
        // SAFETY: the caller's contract.
        unsafe { c_str(what, p) }?.to_uppercase()
    })
}

/// `op_partition` with the handles resolved.
///
/// # Safety
/// As for [`op_partition`].
pub(crate) unsafe fn partition(
    lib: *const c_char,
    routine: *const c_char,
    set: op_set,
    map: op_map,
    coords: op_dat,
) -> Result<()> {
    with_state(|st| {
        let req = PartitionRequest {
            // SAFETY: the caller's contract.
            lib: unsafe { upper("lib", lib) }?,
            // SAFETY: the caller's contract.
            routine: unsafe { upper("routine", routine) }?,
            set: if set.is_null() {
                None
            } else {
                Some(st.h.set_id(set)?)
            },
            map: st.h.opt_map_id(map)?,
            coords: if coords.is_null() {
                None
            } else {
                Some(st.h.dat_id(coords)?)
            },
            report: st.rt.config().diags > 0,
        };
        // OP2's force_part, set by op_force_part or in the map's C struct.
        let forced: Vec<_> = st.c.forced_maps().collect();
        for m in forced {
            st.rt.dom_mut().map_mut(m).force_part = true;
        }
        st.rt.partition(&mut st.c, "op_partition", &req)
    })
}

/// `op_partition` with the map and coordinates named by their original arrays (Fortran).
///
/// # Safety
/// As for [`op_partition`].
#[no_mangle]
pub unsafe extern "C" fn op_partition_ptr(
    lib: *const c_char,
    routine: *const c_char,
    set: op_set,
    map: *mut c_int,
    coords: *mut c_double,
) {
    c_api!(unsafe "op_partition", {
        let (m, d) = with_state(|st| {
            Ok((
                st.map_by_orig_ptr(map)
                    .map_or(std::ptr::null_mut(), |m| st.c.map_ptr(m)),
                st.c.dat_by_orig_ptr(coords as *const c_void)
                    .map_or(std::ptr::null_mut(), |d| st.c.dat_ptr(d)),
            ))
        })?;
        partition(lib, routine, set, m, d)
    })
}

/// Which copy of the data a generated loop runs on: OP2's `device`
/// argument of the grouped calls (1 host, 2 device).
fn side(device: c_int) -> Side {
    if device == 2 {
        Side::Device
    } else {
        Side::Host
    }
}

/// The halo exchanges (and host/device transfers) of a generated loop on
/// `side`; returns the number of elements to execute.
///
/// # Safety
/// `args` is NULL or holds `nargs` op_args.
unsafe fn halo_exchanges(
    call: &'static str,
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
    side: Side,
) -> Result<c_int> {
    with_state(|st| {
        let s = st.h.set_id(set)?;
        // SAFETY: the caller's contract.
        let args = unsafe { slice(nargs, args) };
        let args = CArgs { h: &st.h, args };
        Ok(st.rt.begin_generated(&mut st.c, call, s, &args, side)? as c_int)
    })
}

/// After a generated loop on `side`: the halos of the dats it wrote are
/// stale, and so is the other side's copy.
///
/// # Safety
/// As for [`halo_exchanges`].
unsafe fn set_dirtybit(nargs: c_int, args: *mut op_arg, side: Side) -> Result<()> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let args = unsafe { slice(nargs, args) };
        let args = CArgs { h: &st.h, args };
        st.rt.end_generated(&mut st.c, &args, side)
    })
}

fn wait_all() -> Result<()> {
    with_state(|st| st.rt.finish_exchanges(&mut st.c, "op_mpi_wait_all"))
}

/// OP2's debugging aid: the import halos (exec and non-exec rows) of the
/// dats that `args` read (OP_READ/OP_RW) and whose halos are stale are
/// filled with NaN, so a loop that reads them before an exchange shows it.
/// One node: no halos, nothing to do.
///
/// # Safety
/// As for [`halo_exchanges`].
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reset_halos(nargs: c_int, args: *mut op_arg) {
    c_api!(
        "op_mpi_reset_halos",
        with_state(|st| {
            // SAFETY: the caller's contract.
            // SAFETY: the caller's contract.
            let args = unsafe { slice(nargs, args) };
            let args = CArgs { h: &st.h, args };
            let dats = args.dats(Pick::Read)?;
            st.rt.reset_halos(&mut st.c, "op_mpi_reset_halos", &dats)
        })
    )
}

/// Combine a generated loop's global argument across ranks (in `arg->data`;
/// `t` `None`: logicals).
///
/// # Safety
/// `arg` is NULL or an op_arg whose data holds its `dim` values.
unsafe fn reduce_arg(arg: *mut op_arg, t: Option<ScalarType>) -> Result<()> {
    // SAFETY: the caller's contract.
    let Some(a) = (unsafe { arg.as_ref() }) else {
        return Ok(());
    };
    let access = Access::from_c(a.acc);
    let (Some(access), false) = (
        access,
        a.argtype != OP_ARG_GBL || a.opt == 0 || a.data.is_null(),
    ) else {
        return Ok(());
    };
    // SAFETY: the caller's contract.
    let parsed = ScalarType::parse(&unsafe { name_or(a.r#type, "") });
    // op_mpi_reduce_bool: C bool (1 byte) or Fortran logical (4 bytes).
    let width = t.map_or(if parsed == ScalarType::I32 { 4 } else { 1 }, |t| {
        t.size().unwrap_or(0)
    });
    // SAFETY: the caller's contract: `dim` values of `width` bytes.
    let data =
        unsafe { std::slice::from_raw_parts_mut(a.data as *mut u8, a.dim.max(0) as usize * width) };
    with_state(|st| st.rt.reduce_global(access, t, width, data))
}

/// Reduce every global among `args`, each by its type string.
///
/// # Safety
/// `args` is NULL or holds `nargs` op_args.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_combined(args: *mut op_arg, nargs: c_int) {
    c_api!("op_mpi_reduce_combined", {
        // SAFETY: the caller's contract.
        for a in unsafe { slice(nargs, args) } {
            // SAFETY: as above.
            let t = ScalarType::parse(&unsafe { name_or(a.r#type, "") });
            let t = (t != ScalarType::Bool).then_some(t);
            // SAFETY: an op_arg of the caller's array.
            unsafe { reduce_arg(a as *const op_arg as *mut op_arg, t) }?;
        }
        Ok(())
    })
}

fn barrier() -> Result<()> {
    with_state(|st| st.rt.dist_mut().barrier())
}

/// This process's rank (0 on one node).
///
/// # Safety
/// `rank` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn op_rank(rank: *mut c_int) {
    c_api!("op_rank", {
        let r = with_state(|st| Ok(st.rt.dist().rank()))?;
        // SAFETY: the caller's contract.
        if let Some(p) = unsafe { rank.as_mut() } {
            *p = r as c_int;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn op_mpi_get_test_frequency() -> c_int {
    // SAFETY: plain int global.
    c_api!(
        "op_mpi_get_test_frequency",
        Ok(crate::globals::test_frequency())
    )
}

exports! {
    /// [`op_mpi_wait_all`] (`device` is OP2's host 1 / device 2).
    op_mpi_wait_all_grouped(nargs: c_int, args: *mut op_arg, _device: c_int) = "op_mpi_wait_all_grouped" => { op_mpi_wait_all(nargs, args); Ok(()) };
    /// [`op_mpi_wait_all`].
    op_mpi_wait_all_cuda(nargs: c_int, args: *mut op_arg) = "op_mpi_wait_all_cuda" => { op_mpi_wait_all(nargs, args); Ok(()) };
    /// [`op_mpi_test_all`].
    op_mpi_test_all_grouped(nargs: c_int, args: *mut op_arg) = "op_mpi_test_all_grouped" => { op_mpi_test_all(nargs, args); Ok(()) };
    /// [`op_mpi_barrier`].
    op_barrier() = "op_barrier" => { op_mpi_barrier(); Ok(()) };
    /// Fortran's rank query: [`op_rank`].
    op_mpi_rank(rank: *mut c_int) = "op_mpi_rank" => { op_rank(rank); Ok(()) };
    /// Partition the mesh over the ranks (OP2's partitioner names are accepted;
    /// unknown or unavailable ones keep the declared blocks, with a message).
    /// On one node it only records that it was called.
    op_partition(lib: *const c_char, routine: *const c_char, set: op_set, map: op_map, coords: op_dat) = "op_partition" => partition(lib, routine, set, map, coords);
    /// Start the halo exchanges a generated loop needs; returns the number of
    /// elements to execute (owned, plus the exec halo when the loop writes
    /// through a map). The exchanges complete in op_mpi_wait_all.
    op_mpi_halo_exchanges(set: op_set, nargs: c_int, args: *mut op_arg) -> c_int = "op_mpi_halo_exchanges" => halo_exchanges("op_mpi_halo_exchanges", set, nargs, args, Side::Host);
    /// `op_mpi_halo_exchanges` for a loop on the device.
    op_mpi_halo_exchanges_cuda(set: op_set, nargs: c_int, args: *mut op_arg) -> c_int = "op_mpi_halo_exchanges_cuda" => halo_exchanges("op_mpi_halo_exchanges_cuda", set, nargs, args, Side::Device);
    /// Mark the halos of dats a generated loop wrote as stale.
    op_mpi_set_dirtybit(nargs: c_int, args: *mut op_arg) = "op_mpi_set_dirtybit" => set_dirtybit(nargs, args, Side::Host);
    /// After a generated loop on the device: written dats are newer there.
    op_mpi_set_dirtybit_cuda(nargs: c_int, args: *mut op_arg) = "op_mpi_set_dirtybit_cuda" => set_dirtybit(nargs, args, Side::Device);
    /// Complete the halo exchanges op_mpi_halo_exchanges started.
    op_mpi_wait_all(_nargs: c_int, _args: *mut op_arg) = "op_mpi_wait_all" => wait_all();
    /// Progress of pending messages: MPI progresses them in op_mpi_wait_all.
    op_mpi_test_all(_nargs: c_int, _args: *mut op_arg) = "op_mpi_test_all" => Ok(());
    /// Combine a global reduction across ranks (the value is in `arg->data`).
    op_mpi_reduce_double(arg: *mut op_arg, _data: *mut c_double) = "op_mpi_reduce_double" => reduce_arg(arg, Some(ScalarType::F64));
    op_mpi_reduce_float(arg: *mut op_arg, _data: *mut c_float) = "op_mpi_reduce_float" => reduce_arg(arg, Some(ScalarType::F32));
    op_mpi_reduce_int(arg: *mut op_arg, _data: *mut c_int) = "op_mpi_reduce_int" => reduce_arg(arg, Some(ScalarType::I32));
    /// Combine a logical global across ranks: INC/MAX "any rank true", MIN
    /// "every rank true" (C `bool`, or a Fortran `logical` of 4 bytes).
    op_mpi_reduce_bool(arg: *mut op_arg, _data: *mut bool) = "op_mpi_reduce_bool" => reduce_arg(arg, None);
    op_mpi_barrier() = "op_mpi_barrier" => barrier();
    /// Number of processes (1 on one node).
    op_mpi_size() -> c_int = "op_mpi_size" => with_state(|st| Ok(st.rt.dist().nranks() as c_int));
    /// Per-kernel MPI timing hook: returns `name`.
    op_mpi_perf_time(name: *const c_char, _time: c_double) -> *mut c_void = "op_mpi_perf_time" => Ok(name as *mut c_void);
    op_partition_reverse() = "op_partition_reverse" => Ok(());
    op_partition_destroy() = "op_partition_destroy" => Ok(());
    /// `op_mpi_halo_exchanges` for a loop on the host (`device` 1) or on the
    /// device (`device` 2).
    op_mpi_halo_exchanges_grouped(set: op_set, nargs: c_int, args: *mut op_arg, device: c_int) -> c_int = "op_mpi_halo_exchanges_grouped" => halo_exchanges("op_mpi_halo_exchanges_grouped", set, nargs, args, side(device));
}
