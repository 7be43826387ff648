//! OP2's MPI interface (`op_partition`, the `op_mpi_*` hooks generated code
//! calls around every loop, reductions across ranks, rank queries), written
//! once for every library: each call goes to the library's
//! [`Distribution`](op2_core::dist::Distribution), which on one node does
//! nothing.

use crate::args::to_spec;
use crate::ffi::*;
use crate::state::{c_str, with_state, State};
use op2_core::arg::{Access, ArgSpec};
use op2_core::dist::{DistKind, GlobalArg, PartitionRequest};
use op2_core::{Result, ScalarType};
use std::os::raw::{c_char, c_double, c_float, c_int, c_void};

unsafe fn upper(call: &str, what: &str, p: *const c_char) -> Result<String> {
    Ok(if p.is_null() {
        String::new()
    } else {
        c_str(call, what, p)?.to_uppercase()
    })
}

/// Partition the mesh over the ranks (OP2's partitioner names are accepted;
/// unknown or unavailable ones keep the declared blocks, with a message).
/// On one node it only records that it was called.
#[no_mangle]
pub unsafe extern "C" fn op_partition(
    lib: *const c_char,
    routine: *const c_char,
    set: op_set,
    map: op_map,
    coords: op_dat,
) {
    let call = "op_partition";
    with_state(call, |st| {
        let req = PartitionRequest {
            lib: upper(call, "lib", lib)?,
            routine: upper(call, "routine", routine)?,
            set: if set.is_null() {
                None
            } else {
                Some(st.set_id(call, set)?)
            },
            map: st.opt_map_id(call, map)?,
            coords: if coords.is_null() {
                None
            } else {
                Some(st.dat_id(call, coords)?)
            },
            report: crate::globals::diags() > 0,
        };
        // OP2's force_part, set by op_force_part or in the map's C struct.
        for m in 0..st.maps.len() {
            if st.maps[m].c.force_part {
                st.dom.map_mut(op2_core::MapId(m)).force_part = true;
            }
        }
        st.finish_exchanges()?;
        // Partitioning moves host copies: device copies come back first.
        st.host_fresh_all(call)?;
        // Partitioning and halo construction use the library's own threads
        // (a rank's share of the cores), never a pool of their own; on a
        // single node there is nothing to partition and no thread starts.
        let work = match st.dist.kind() {
            DistKind::SingleNode => 0,
            DistKind::Mpi => usize::MAX,
        };
        let exec = st.exec.clone();
        let mut outcome = None;
        exec.install(work, &mut || {
            outcome = Some(st.dist.partition(&mut st.dom, &req))
        });
        let outcome = outcome.expect("install runs the closure")?;
        for m in outcome.messages {
            crate::printf::cout(&format!("\n {m}\n"));
        }
        st.refresh_after_partition();
        Ok(())
    })
}

/// `op_partition` with the map and coordinates named by their original arrays (Fortran).
#[no_mangle]
pub unsafe extern "C" fn op_partition_ptr(
    lib: *const c_char,
    routine: *const c_char,
    set: op_set,
    map: *mut c_int,
    coords: *mut c_double,
) {
    let (m, d) = with_state("op_partition", |st| {
        Ok((
            st.map_by_orig_ptr(map)
                .map(|m| st.map_ptr(m))
                .unwrap_or(std::ptr::null_mut()),
            st.dat_by_orig_ptr(coords as *const c_void)
                .map(|d| st.dat_ptr(d))
                .unwrap_or(std::ptr::null_mut()),
        ))
    });
    op_partition(lib, routine, set, m, d)
}

/// The checked specs of a generated loop's args.
unsafe fn specs_of(st: &State, nargs: c_int, args: *const op_arg) -> Result<Vec<ArgSpec>> {
    if nargs <= 0 || args.is_null() {
        return Ok(Vec::new());
    }
    std::slice::from_raw_parts(args, nargs as usize)
        .iter()
        .enumerate()
        .map(|(i, a)| to_spec(st, "generated loop", i, a))
        .collect()
}

/// Which copy of the data a generated loop runs on: OP2's `device` argument
/// of the grouped calls (1 host, 2 device).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Host,
    Device,
}

impl Side {
    fn of(device: c_int) -> Side {
        if device == 2 {
            Side::Device
        } else {
            Side::Host
        }
    }
}

/// Dats whose halo a loop's exchange may refresh: read through a map with
/// a stale halo.
fn halo_read_dats(st: &State, specs: &[ArgSpec]) -> Vec<op2_core::DatId> {
    let mut v: Vec<op2_core::DatId> = specs
        .iter()
        .filter(|s| s.is_indirect() && matches!(s.access, Access::Read | Access::Rw))
        .filter_map(|s| match s.kind {
            op2_core::ArgKind::Dat { dat, .. } if st.dom.dat(dat).halo_dirty => Some(dat),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The dats of a generated loop's switched-on dat args that `pick` selects
/// (a dat may appear more than once).
unsafe fn arg_dats(
    st: &State,
    call: &str,
    nargs: c_int,
    args: *const op_arg,
    pick: impl Fn(&op_arg) -> bool,
) -> Result<Vec<op2_core::DatId>> {
    if nargs <= 0 || args.is_null() {
        return Ok(Vec::new());
    }
    std::slice::from_raw_parts(args, nargs as usize)
        .iter()
        .filter(|a| a.opt != 0 && a.argtype == OP_ARG_DAT && pick(a))
        .map(|a| st.dat_id(call, a.dat))
        .collect()
}

/// The halo exchanges of a generated loop on `side`: the copies the loop
/// reads are made fresh on that side first. Under MPI the exchange itself
/// works on host copies: a device loop's dats with stale halos are brought
/// to the host, and their received halo rows go back to the device when the
/// exchange completes (State::finish_exchanges).
unsafe fn halo_exchanges(
    call: &'static str,
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
    side: Side,
) -> c_int {
    with_state(call, |st| {
        let s = st.set_id(call, set)?;
        let single = st.dist.kind() == DistKind::SingleNode;
        if single && !st.has_device() {
            return Ok(st.dom.set(s).size as c_int);
        }
        if single {
            // One node with a device: only residency to settle (no specs
            // built: this runs before every generated loop).
            for d in arg_dats(st, call, nargs, args, |_| true)? {
                match side {
                    Side::Host => st.host_fresh(call, d)?,
                    Side::Device => st.device_fresh(call, d)?,
                }
            }
            return Ok(st.dom.set(s).size as c_int);
        }
        let specs = specs_of(st, nargs, args)?;
        let dats = crate::loop_cache::dats_of(&specs);
        for &d in &dats {
            match side {
                Side::Host => st.host_fresh(call, d)?,
                Side::Device => st.device_fresh(call, d)?,
            }
        }
        if single {
            return Ok(st.dom.set(s).size as c_int);
        }
        st.finish_exchanges()?;
        let staged = if side == Side::Device && st.has_device() {
            halo_read_dats(st, &specs)
        } else {
            Vec::new()
        };
        for &d in &staged {
            st.host_fresh(call, d)?;
        }
        st.dist
            .set_partial_exchange(crate::globals::partial_exchange());
        let extent = st.dist.before_loop(&mut st.dom, s, &specs)?;
        if extent.auto_partitioned {
            st.refresh_after_partition();
        }
        st.in_flight.extend(extent.exchanges);
        for &d in &dats {
            st.mirror_dirty(d);
        }
        for d in staged {
            if !st.dom.dat(d).halo_dirty {
                st.stage_halo_upload(d);
            }
        }
        Ok(extent.exec_size as c_int)
    })
}

/// Start the halo exchanges a generated loop needs; returns the number of
/// elements to execute (owned, plus the exec halo when the loop writes
/// through a map). The exchanges complete in op_mpi_wait_all.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
) -> c_int {
    halo_exchanges("op_mpi_halo_exchanges", set, nargs, args, Side::Host)
}

/// `op_mpi_halo_exchanges` for a loop on the host (`device` 1) or on the
/// device (`device` 2).
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_grouped(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
    device: c_int,
) -> c_int {
    halo_exchanges(
        "op_mpi_halo_exchanges_grouped",
        set,
        nargs,
        args,
        Side::of(device),
    )
}

/// `op_mpi_halo_exchanges` for a loop on the device.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_cuda(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
) -> c_int {
    halo_exchanges("op_mpi_halo_exchanges_cuda", set, nargs, args, Side::Device)
}

/// After a generated loop on `side`: the halos of the dats it wrote are
/// stale, and so is the other side's copy.
unsafe fn set_dirtybit(call: &'static str, nargs: c_int, args: *mut op_arg, side: Side) {
    with_state(call, |st| {
        let single = st.dist.kind() == DistKind::SingleNode;
        if single && !st.has_device() {
            return Ok(());
        }
        if single {
            let written = |a: &op_arg| matches!(a.acc, OP_INC | OP_WRITE | OP_RW);
            for d in arg_dats(st, call, nargs, args, written)? {
                st.written_on(d, side == Side::Device);
            }
            return Ok(());
        }
        let specs = specs_of(st, nargs, args)?;
        st.dist.after_loop(&mut st.dom, &specs, &mut [])?;
        for d in crate::loop_cache::dats_of(&specs) {
            st.mirror_dirty(d);
        }
        for d in crate::loop_cache::written_dats(&specs) {
            st.written_on(d, side == Side::Device);
        }
        Ok(())
    })
}

/// Mark the halos of dats a generated loop wrote as stale.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_set_dirtybit(nargs: c_int, args: *mut op_arg) {
    set_dirtybit("op_mpi_set_dirtybit", nargs, args, Side::Host)
}

/// After a generated loop on the device: written dats are newer there.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_set_dirtybit_cuda(nargs: c_int, args: *mut op_arg) {
    set_dirtybit("op_mpi_set_dirtybit_cuda", nargs, args, Side::Device)
}

/// Complete the halo exchanges op_mpi_halo_exchanges started.
#[no_mangle]
pub extern "C" fn op_mpi_wait_all(_nargs: c_int, _args: *mut op_arg) {
    with_state("op_mpi_wait_all", |st| st.finish_exchanges())
}

#[no_mangle]
pub extern "C" fn op_mpi_wait_all_grouped(nargs: c_int, args: *mut op_arg, _device: c_int) {
    op_mpi_wait_all(nargs, args)
}

#[no_mangle]
pub extern "C" fn op_mpi_wait_all_cuda(nargs: c_int, args: *mut op_arg) {
    op_mpi_wait_all(nargs, args)
}

/// Progress of pending messages: MPI progresses them in op_mpi_wait_all.
#[no_mangle]
pub extern "C" fn op_mpi_test_all(_nargs: c_int, _args: *mut op_arg) {}
#[no_mangle]
pub extern "C" fn op_mpi_test_all_grouped(_nargs: c_int, _args: *mut op_arg) {}

/// OP2's debugging aid: the import halos (exec and non-exec rows) of the
/// dats that `args` read (OP_READ/OP_RW) and whose halos are stale are
/// filled with NaN, so a loop that reads them before an exchange shows it.
/// One node: no halos, nothing to do.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reset_halos(nargs: c_int, args: *mut op_arg) {
    let call = "op_mpi_reset_halos";
    with_state(call, |st| {
        let reads = |a: &op_arg| a.acc == OP_READ || a.acc == OP_RW;
        let dats = arg_dats(st, call, nargs, args, reads)?;
        st.finish_exchanges()?;
        for d in dats {
            if !st.dom.dat(d).halo_dirty {
                continue;
            }
            st.host_fresh(call, d)?;
            let dat = st.dom.dat_mut(d);
            let f32s = dat.scalar == ScalarType::F32;
            let (set, eb) = (dat.set, dat.elem_bytes);
            let (from, to) = {
                let s = st.dom.set(set);
                (s.size * eb, s.total_size() * eb)
            };
            let halo = &mut st.dom.dat_mut(d).data.as_mut_slice()[from..to];
            if f32s {
                for c in halo.chunks_mut(4) {
                    c.copy_from_slice(&f32::NAN.to_ne_bytes()[..c.len()]);
                }
            } else {
                for c in halo.chunks_mut(8) {
                    c.copy_from_slice(&f64::NAN.to_ne_bytes()[..c.len()]);
                }
            }
            st.written_on(d, false);
        }
        Ok(())
    })
}

/// Combine a generated loop's global argument across ranks (in `arg->data`).
unsafe fn reduce_arg(call: &'static str, arg: *mut op_arg, t: Option<ScalarType>) {
    if arg.is_null() {
        return;
    }
    let a = &*arg;
    let Some(access) = Access::from_c(a.acc) else {
        return;
    };
    if a.argtype != OP_ARG_GBL || a.opt == 0 || a.data.is_null() {
        return;
    }
    let type_name = if a.r#type.is_null() {
        String::new()
    } else {
        std::ffi::CStr::from_ptr(a.r#type)
            .to_string_lossy()
            .into_owned()
    };
    let parsed = ScalarType::parse(&type_name);
    if crate::globals::mpi_reductions_disabled() {
        return;
    }
    with_state(call, |st| {
        match t {
            // op_mpi_reduce_bool: C bool (1 byte) or Fortran logical (4 bytes).
            None => {
                let width = if parsed == ScalarType::I32 { 4 } else { 1 };
                let data = std::slice::from_raw_parts_mut(
                    a.data as *mut u8,
                    a.dim.max(0) as usize * width,
                );
                st.dist.reduce_logical(width, access, data)
            }
            Some(t) => {
                let n = a.dim.max(0) as usize * t.size().unwrap_or(0);
                let data = std::slice::from_raw_parts_mut(a.data as *mut u8, n);
                st.dist.reduce(&mut GlobalArg {
                    access,
                    scalar: t,
                    data,
                })
            }
        }
    })
}

/// Combine a global reduction across ranks (the value is in `arg->data`).
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_double(arg: *mut op_arg, _data: *mut c_double) {
    reduce_arg("op_mpi_reduce_double", arg, Some(ScalarType::F64))
}
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_float(arg: *mut op_arg, _data: *mut c_float) {
    reduce_arg("op_mpi_reduce_float", arg, Some(ScalarType::F32))
}
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_int(arg: *mut op_arg, _data: *mut c_int) {
    reduce_arg("op_mpi_reduce_int", arg, Some(ScalarType::I32))
}
/// Combine a logical global across ranks: INC/MAX "any rank true", MIN
/// "every rank true" (C `bool`, or a Fortran `logical` of 4 bytes).
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_bool(arg: *mut op_arg, _data: *mut bool) {
    reduce_arg("op_mpi_reduce_bool", arg, None)
}

/// Reduce every global among `args`, each by its type string.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_combined(args: *mut op_arg, nargs: c_int) {
    if args.is_null() {
        return;
    }
    for i in 0..nargs.max(0) as usize {
        let a = args.add(i);
        let t = if (*a).r#type.is_null() {
            ScalarType::Other
        } else {
            ScalarType::parse(&std::ffi::CStr::from_ptr((*a).r#type).to_string_lossy())
        };
        let t = if t == ScalarType::Bool { None } else { Some(t) };
        reduce_arg("op_mpi_reduce_combined", a, t);
    }
}

#[no_mangle]
pub extern "C" fn op_mpi_barrier() {
    with_state("op_mpi_barrier", |st| st.dist.barrier())
}

#[no_mangle]
pub extern "C" fn op_barrier() {
    op_mpi_barrier()
}

/// This process's rank (0 on one node).
#[no_mangle]
pub unsafe extern "C" fn op_rank(rank: *mut c_int) {
    let r = with_state("op_rank", |st| Ok(st.dist.rank()));
    if !rank.is_null() {
        *rank = r as c_int;
    }
}

/// Fortran's rank query.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_rank(rank: *mut c_int) {
    op_rank(rank)
}

/// Number of processes (1 on one node).
#[no_mangle]
pub extern "C" fn op_mpi_size() -> c_int {
    with_state("op_mpi_size", |st| Ok(st.dist.nranks() as c_int))
}

/// Per-kernel MPI timing hook: returns `name`.
#[no_mangle]
pub extern "C" fn op_mpi_perf_time(name: *const c_char, _time: c_double) -> *mut c_void {
    name as *mut c_void
}

#[no_mangle]
pub extern "C" fn op_mpi_get_test_frequency() -> c_int {
    // SAFETY: plain int global.
    unsafe { crate::globals::get(std::ptr::addr_of!(crate::globals::OP_mpi_test_frequency)) }
}

#[no_mangle]
pub extern "C" fn op_partition_reverse() {}
#[no_mangle]
pub extern "C" fn op_partition_destroy() {}
