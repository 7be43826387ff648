//! OP2's helpers for reaching data the library holds (used by large Fortran
//! codes, and callable from C): data and map pointers, the set registry,
//! global indices and copies of dats in the original order, the switch
//! `op_disable_mpi_reductions` (`op_disable_device_execution` is in
//! `fallback`), and `compute_local_size` of OP2's `op_util.h`.

use crate::boundary::{c_api, exports};
use crate::ffi::*;
use crate::globals;
use crate::state::{with_state, State};
use op2_core::error::obj;
use op2_core::{DatId, MapId, Op2Error, Result};
use std::os::raw::{c_char, c_int, c_ulong, c_void};
use std::ptr::{addr_of_mut, null_mut};

/// The dat filed under `p` (the array given to op_decl_dat, an overlay's
/// index, or what op_reset_data_ptr filed it under).
fn dat_filed(st: &State, p: *const c_void) -> Result<DatId> {
    st.c.dat_by_orig_ptr(p)
        .ok_or_else(|| Op2Error::new("", "", format!("no dat is filed under {p:p}")))
}

/// The map named by the array `p` (given to op_decl_map, or a copy from
/// op_copy_map_to_fort / a pointer from op_reset_map_ptr).
fn map_filed(st: &State, p: *const c_int) -> Result<MapId> {
    st.map_by_orig_ptr(p).ok_or_else(|| {
        Op2Error::new(
            "",
            "",
            format!("no map was declared with the array at {p:p}"),
        )
    })
}

fn data_ptr(st: &mut State, call: &str, id: DatId) -> Result<c_ulong> {
    st.rt.finish_exchanges(&mut st.c, call)?;
    st.rt.host_fresh(&mut st.c, call, id)?;
    Ok(st.rt.dat(id).data.as_ptr() as c_ulong)
}

/// The address of a dat's host data, brought up to date first.
#[no_mangle]
pub extern "C" fn op_get_data_ptr(dat: op_dat) -> c_ulong {
    c_api!(
        "op_get_data_ptr",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            data_ptr(st, "op_get_data_ptr", id)
        })
    )
}

/// [`op_get_data_ptr`] of the dat filed under `data` (Fortran's integer form).
#[no_mangle]
pub extern "C" fn op_get_data_ptr2(data: c_ulong) -> c_ulong {
    c_api!(
        "op_get_data_ptr",
        with_state(|st| {
            let id = dat_filed(st, data as *const c_void)?;
            data_ptr(st, "op_get_data_ptr", id)
        })
    )
}

/// File the dat now filed under `data` under its index (`mode` 1) or under
/// the address of its data (`mode` 2); returns the new key.
#[no_mangle]
pub extern "C" fn op_reset_data_ptr(data: *mut c_char, mode: c_int) -> c_ulong {
    c_api!(
        "op_reset_data_ptr",
        with_state(|st| {
            let id = dat_filed(st, data as *const c_void)?;
            let key = match mode {
                1 => id.0 as *mut c_void,
                2 => st.rt.dat(id).data.as_ptr() as *mut c_void,
                _ => {
                    return Err(Op2Error::new(
                        "",
                        st.dat_obj(id),
                        format!("unknown mode {mode} (1: file under the index, 2: under the data)"),
                    ))
                }
            };
            st.c.refile_dat(id, key);
            Ok(key as c_ulong)
        })
    )
}

/// The map named by the array `map` is named by its own values from now
/// on; returns their address.
#[no_mangle]
pub extern "C" fn op_reset_map_ptr(map: *mut c_int) -> c_ulong {
    c_api!(
        "op_reset_map_ptr",
        with_state(|st| {
            let m = map_filed(st, map)?;
            st.h.map_ptrs.remove(&(map as usize));
            st.c.unfile_map(m, map);
            let p = st.rt.dom().map(m).values.as_ptr();
            st.h.map_ptrs.insert(p as usize, m);
            Ok(p as c_ulong)
        })
    )
}

/// A 1-based copy of a map's local rows (owned and exec halo), which names
/// the map from now on (kept until op_exit); returns its address.
#[no_mangle]
pub extern "C" fn op_copy_map_to_fort(map: *mut c_int) -> c_ulong {
    c_api!(
        "op_copy_map_to_fort",
        with_state(|st| {
            let m = map_filed(st, map)?;
            let mp = st.rt.dom().map(m);
            let s = st.rt.dom().set(mp.from);
            let n = (s.size + s.exec_size) * mp.dim;
            let copy: Box<[c_int]> = mp.values[..n].iter().map(|&v| v + 1).collect();
            let p = copy.as_ptr();
            st.h.fort_maps.push(copy);
            st.h.map_ptrs.insert(p as usize, m);
            Ok(p as c_ulong)
        })
    )
}

/// Under MPI, `op_partition` keeps the primary-set elements of each row of
/// the map named by `map` on one rank (OP2's `force_part`; the map must
/// point into the primary set). No effect on one node.
#[no_mangle]
pub extern "C" fn op_force_part(map: *mut c_int) {
    c_api!(
        "op_force_part",
        with_state(|st| {
            let m = map_filed(st, map)?;
            st.rt.dom_mut().map_mut(m).force_part = true;
            st.c.map_c(m).force_part = true;
            Ok(())
        })
    )
}

/// File `set` under the number `idx` (for op_get_set).
#[no_mangle]
pub extern "C" fn op_register_set(idx: c_int, set: op_set) {
    c_api!(
        "op_register_set",
        with_state(|st| {
            let s = st.h.set_id(set)?;
            st.h.registered_sets.insert(idx, s);
            Ok(())
        })
    )
}

/// The set filed under `idx` by op_register_set, or NULL.
#[no_mangle]
pub extern "C" fn op_get_set(idx: c_int) -> op_set {
    c_api!(
        "op_get_set",
        with_state(|st| {
            Ok(st
                .h
                .registered_sets
                .get(&idx)
                .map_or(null_mut(), |&s| st.c.set_ptr(s)))
        })
    )
}

/// Under MPI after partitioning: the address of an array holding, for each
/// owned element of `set` in local order, its 0-based index in the
/// declared (original) numbering (`long long`). 0 on one node, as in OP2.
#[no_mangle]
pub extern "C" fn op_get_g_index(set: op_set) -> c_ulong {
    c_api!(
        "op_get_g_index",
        with_state(|st| {
            let s = st.h.set_id(set)?;
            let size = st.rt.dom().set(s).size;
            let Some(ids) = st.rt.dist().global_ids(s) else {
                return Ok(0);
            };
            let g: Box<[i64]> = ids[..size].iter().map(|&g| g as i64).collect();
            let p = g.as_ptr();
            st.h.g_index.insert(s, g);
            Ok(p as c_ulong)
        })
    )
}

fn get_data(call: &'static str, dat: op_dat) -> Result<op_dat> {
    with_state(|st| {
        let id = st.h.dat_id(dat)?;
        let rows = st.rt.fetch_block(&mut st.c, call, id)?;
        let d = st.rt.dat(id);
        let n = rows.len() / d.elem_bytes.max(1);
        let src_set = st.c.set_ptr(d.set) as *const op_set_core;
        let src = st.c.dat_ptr(id) as *const op_dat_core;
        let fail = || Op2Error::new(call, obj("dat", &d.name), "cannot allocate the copy");
        // SAFETY: fresh malloc'd blocks of the sizes written; src/src_set are
        // the dat's live C mirrors. The copy points at the dat's name and
        // type strings (as OP2's does), valid while the dat lives.
        unsafe {
            let set = libc::malloc(std::mem::size_of::<op_set_core>()) as *mut op_set_core;
            let out = libc::malloc(std::mem::size_of::<op_dat_core>()) as *mut op_dat_core;
            let data = libc::malloc(rows.len().max(1)) as *mut c_char;
            if set.is_null() || out.is_null() || data.is_null() {
                libc::free(set as *mut c_void);
                libc::free(out as *mut c_void);
                libc::free(data as *mut c_void);
                return Err(fail());
            }
            std::ptr::copy_nonoverlapping(rows.as_ptr(), data as *mut u8, rows.len());
            set.write(op_set_core {
                index: (*src_set).index,
                size: n as c_int,
                name: (*src_set).name,
                core_size: n as c_int,
                exec_size: 0,
                nonexec_size: 0,
                stride: 1,
            });
            out.write(op_dat_core {
                index: (*src).index,
                set,
                dim: (*src).dim,
                size: (*src).size,
                data,
                data_d: null_mut(),
                r#type: (*src).r#type,
                name: (*src).name,
                buffer_d: null_mut(),
                buffer_d_r: null_mut(),
                dirtybit: 0,
                dirty_hd: 0,
                user_managed: 0,
                mpi_buffer: null_mut(),
            });
            Ok(out)
        }
    })
}

/// Free a copy made by op_mpi_get_data / op_fetch_data_file (NULL: nothing).
///
/// # Safety
/// `dat` is NULL or a copy from op_mpi_get_data not freed before.
#[no_mangle]
pub unsafe extern "C" fn op_mpi_free_data(dat: op_dat) {
    c_api!("op_mpi_free_data", {
        if !dat.is_null() {
            // SAFETY: the caller's contract: all three blocks came from get_data.
            unsafe {
                libc::free((*dat).set as *mut c_void);
                libc::free((*dat).data as *mut c_void);
                libc::free(dat as *mut c_void);
            }
        }
        Ok(())
    })
}

/// Bring a dat's host copy up to date (OP2's CUDA libraries download it
/// when the device copy is newer; nothing to do without a device).
#[no_mangle]
pub extern "C" fn op_get_dat_mpi(dat: op_dat) {
    c_api!(
        "op_get_dat_mpi",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            st.rt.host_fresh(&mut st.c, "op_get_dat_mpi", id)
        })
    )
}

/// Bring a dat's device copy up to date (upload when the host copy is
/// newer); nothing to do without a device.
#[no_mangle]
pub extern "C" fn op_put_dat_mpi(dat: op_dat) {
    c_api!(
        "op_put_dat_mpi",
        with_state(|st| {
            let id = st.h.dat_id(dat)?;
            st.rt.device_fresh(&mut st.c, "op_put_dat_mpi", id)
        })
    )
}

/// The int dat declared with the array `dat`, which must be on `set`: every
/// local element (halos included) gets its 1-based local index.
#[no_mangle]
pub extern "C" fn op_dat_write_index(set: op_set, dat: *mut c_int) {
    c_api!(
        "op_dat_write_index",
        with_state(|st| {
            let id = dat_filed(st, dat as *const c_void)?;
            let s = st.h.set_id(set)?;
            st.rt.write_index(&mut st.c, "op_dat_write_index", id, s)
        })
    )
}

/// op_print_dat_to_txtfile of the dat declared with the array `dat`.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_print_dat_to_txtfile2(dat: *mut c_int, file: *const c_char) {
    c_api!(
        call = "op_print_dat_to_txtfile2",
        with_state(|st| {
            let id = dat_filed(st, dat as *const c_void)?;
            // SAFETY: the caller's contract.
            let path = unsafe { crate::state::c_str("the file name", file) }?;
            st.rt.print_dat_txt(&mut st.c, call, id, &path)
        })
    )
}

/// OP2's switch: with `disable` true, global reductions of later loops
/// stay on each rank (no combination across ranks). One node: no effect.
#[no_mangle]
pub extern "C" fn op_disable_mpi_reductions(disable: bool) {
    c_api!("op_disable_mpi_reductions", {
        // SAFETY: plain int global, API thread.
        unsafe {
            globals::set(
                addr_of_mut!(globals::OP_disable_mpi_reductions),
                c_int::from(disable),
            )
        };
        Ok(())
    })
}

/// OP2's block rule (`op_util.h`): how many of `global_size` elements rank
/// `mpi_rank` of `mpi_comm_size` holds (the first `global_size %
/// mpi_comm_size` ranks hold one more). 0 for a non-positive size, or a
/// rank outside the communicator.
#[no_mangle]
pub extern "C" fn compute_local_size(
    global_size: c_int,
    mpi_comm_size: c_int,
    mpi_rank: c_int,
) -> c_int {
    c_api!("compute_local_size", {
        if mpi_comm_size <= 0 || global_size < 0 || mpi_rank < 0 || mpi_rank >= mpi_comm_size {
            return Ok(0);
        }
        let b =
            op2_core::partition::BlockDist::standard(global_size as usize, mpi_comm_size as usize);
        Ok(b.range(mpi_rank as usize).len() as c_int)
    })
}

/// OP2's halo construction for its mesh tools: under MPI, a mesh not yet
/// partitioned gets its halos for the declared blocks (op2-rs builds halos
/// in op_partition, so afterwards there is nothing to do). One node: none.
#[no_mangle]
pub extern "C" fn op_halo_create() {
    c_api!("op_halo_create", {
        if with_state(|st| Ok(st.rt.partition_pending()))? {
            // SAFETY: static NUL-terminated names; NULL handles are allowed.
            unsafe {
                crate::dist_api::partition(
                    c"BLOCK".as_ptr(),
                    c"BLOCK".as_ptr(),
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            }?;
        }
        Ok(())
    })
}

exports! {
    /// The address of a map's (local, 0-based) values.
    op_get_map_ptr(map: op_map) -> c_ulong = "op_get_map_ptr" => with_state(|st| Ok(st.rt.dom().map(st.h.map_id(map)?).values.as_ptr() as c_ulong));
    /// A copy of a dat holding this rank's declared block in the original
    /// order (one node: the whole set): a new `op_dat` whose `set->size` is the
    /// block's size. Free it with op_mpi_free_data (or free() its data, set and
    /// itself, as OP2's own code does).
    op_mpi_get_data(dat: op_dat) -> op_dat = "op_mpi_get_data" => get_data("op_mpi_get_data", dat);
    /// OP2's name for [`op_mpi_get_data`] in `op_lib_c.h`.
    op_fetch_data_file_char(dat: op_dat) -> op_dat = "op_fetch_data_file" => get_data("op_fetch_data_file", dat);
}
