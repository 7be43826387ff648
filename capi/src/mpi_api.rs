//! OP2's MPI-specific C functions in `libop2_mpi` (the single-node libraries
//! define no-op versions in `single_node.rs`).

use crate::args::to_spec;
use crate::ffi::*;
use crate::state::{c_str, with_state};
use op2_core::arg::Access;
use op2_core::ScalarType;
use std::os::raw::{c_char, c_double, c_float, c_int};

/// Partition the mesh over the ranks (see `dist::partition`); the names of
/// OP2's partitioners are accepted, unknown or unavailable ones fall back with
/// a message.
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
        let lib = if lib.is_null() {
            String::new()
        } else {
            c_str(call, "lib", lib)?
        };
        let routine = if routine.is_null() {
            String::new()
        } else {
            c_str(call, "routine", routine)?
        };
        let set = if set.is_null() {
            None
        } else {
            Some(st.set_id(call, set)?)
        };
        let map = st.opt_map_id(call, map)?;
        let coords = if coords.is_null() {
            None
        } else {
            Some(st.dat_id(call, coords)?)
        };
        crate::dist::partition(
            st,
            &lib.to_uppercase(),
            &routine.to_uppercase(),
            set,
            map,
            coords,
        )
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
            st.dat_by_orig_ptr(coords as *const std::os::raw::c_void)
                .map(|d| st.dat_ptr(d))
                .unwrap_or(std::ptr::null_mut()),
        ))
    });
    op_partition(lib, routine, set, m, d)
}

/// Exchange the halos the loop needs; returns the number of elements to execute.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
) -> c_int {
    let call = "op_mpi_halo_exchanges";
    with_state(call, |st| {
        let s = st.set_id(call, set)?;
        let cargs = if nargs <= 0 || args.is_null() {
            &[][..]
        } else {
            std::slice::from_raw_parts(args, nargs as usize)
        };
        let mut specs = Vec::with_capacity(cargs.len());
        for (i, a) in cargs.iter().enumerate() {
            specs.push(to_spec(st, "generated loop", i, a)?);
        }
        let (exec, _) = crate::dist::before_loop(st, s, &specs)?;
        Ok(exec as c_int)
    })
}

#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_grouped(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
    _device: c_int,
) -> c_int {
    op_mpi_halo_exchanges(set, nargs, args)
}

#[no_mangle]
pub unsafe extern "C" fn op_mpi_halo_exchanges_cuda(
    set: op_set,
    nargs: c_int,
    args: *mut op_arg,
) -> c_int {
    op_mpi_halo_exchanges(set, nargs, args)
}

/// Mark the halos of dats the loop wrote as stale.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_set_dirtybit(nargs: c_int, args: *mut op_arg) {
    if nargs <= 0 || args.is_null() {
        return;
    }
    let cargs = std::slice::from_raw_parts(args, nargs as usize);
    with_state("op_mpi_set_dirtybit", |st| {
        for a in cargs {
            if a.opt != 0
                && a.argtype == OP_ARG_DAT
                && !a.dat.is_null()
                && matches!(a.acc, OP_INC | OP_WRITE | OP_RW)
            {
                let d = st.dat_id("op_mpi_set_dirtybit", a.dat)?;
                st.dat_c(d).dirtybit = 1;
            }
        }
        Ok(())
    })
}

unsafe fn reduce_arg(arg: *mut op_arg, t: ScalarType) {
    if arg.is_null() {
        return;
    }
    let a = &*arg;
    let Some(acc) = Access::from_c(a.acc) else {
        return;
    };
    if a.argtype != OP_ARG_GBL || a.opt == 0 || !acc.is_reduction() || a.data.is_null() {
        return;
    }
    let n = (a.dim.max(0) as usize) * t.size().unwrap_or(0);
    let data = std::slice::from_raw_parts_mut(a.data as *mut u8, n);
    with_state("op_mpi_reduce", |st| {
        crate::dist::allreduce(st, t, acc, data);
        Ok(())
    })
}

/// Combine a global reduction across ranks (the value is in `arg->data`).
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_double(arg: *mut op_arg, _data: *mut c_double) {
    reduce_arg(arg, ScalarType::F64)
}
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_float(arg: *mut op_arg, _data: *mut c_float) {
    reduce_arg(arg, ScalarType::F32)
}
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_int(arg: *mut op_arg, _data: *mut c_int) {
    reduce_arg(arg, ScalarType::I32)
}
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_bool(_arg: *mut op_arg, _data: *mut bool) {}

/// Reduce every global reduction among `args`.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_reduce_combined(args: *mut op_arg, nargs: c_int) {
    for i in 0..nargs.max(0) as usize {
        let a = args.add(i);
        let t = if (*a).r#type.is_null() {
            ScalarType::Other
        } else {
            ScalarType::parse(&std::ffi::CStr::from_ptr((*a).r#type).to_string_lossy())
        };
        reduce_arg(a, t);
    }
}

#[no_mangle]
pub extern "C" fn op_mpi_barrier() {
    with_state("op_mpi_barrier", |st| {
        crate::dist::barrier(st);
        Ok(())
    })
}

/// This process's rank.
#[no_mangle]
pub unsafe extern "C" fn op_rank(rank: *mut c_int) {
    let r = with_state("op_rank", |st| Ok(crate::dist::rank_and_size(st).0));
    if !rank.is_null() {
        *rank = r as c_int;
    }
}

/// Fortran's rank query.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_rank(rank: *mut c_int) {
    op_rank(rank)
}

/// Number of ranks.
#[no_mangle]
pub extern "C" fn op_mpi_size() -> c_int {
    with_state("op_mpi_size", |st| {
        Ok(crate::dist::rank_and_size(st).1 as c_int)
    })
}

#[no_mangle]
pub extern "C" fn op_barrier() {
    op_mpi_barrier()
}

/// Complete the halo exchanges op_mpi_halo_exchanges started.
#[no_mangle]
pub extern "C" fn op_mpi_wait_all(_nargs: c_int, _args: *mut op_arg) {
    with_state("op_mpi_wait_all", |st| {
        crate::dist::wait_all(st);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn op_mpi_wait_all_grouped(nargs: c_int, args: *mut op_arg, _device: c_int) {
    op_mpi_wait_all(nargs, args)
}

#[no_mangle]
pub extern "C" fn op_mpi_wait_all_cuda(nargs: c_int, args: *mut op_arg) {
    op_mpi_wait_all(nargs, args)
}
