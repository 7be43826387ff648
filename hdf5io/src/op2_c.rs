//! What the HDF5 C libraries (libop2_hdf5, and the MPI library's HDF5 part)
//! see of OP2: the C structs as include/op2_rs_generated.h lays them out,
//! and the OP2 C API they call, defined by the OP2 library on the link line
//! (declarations only: nothing here is referenced unless a library calls it).

#![allow(non_camel_case_types, non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void};

/// `op_set_core`
#[repr(C)]
pub struct op_set_core {
    pub index: c_int,
    pub size: c_int,
    pub name: *const c_char,
    pub core_size: c_int,
    pub exec_size: c_int,
    pub nonexec_size: c_int,
    pub stride: c_int,
}
pub type op_set = *mut op_set_core;

/// `op_map_core`
#[repr(C)]
pub struct op_map_core {
    pub index: c_int,
    pub from: op_set,
    pub to: op_set,
    pub dim: c_int,
    pub map: *mut c_int,
    pub map_gbl: *mut i64,
    pub map_d: *mut c_int,
    pub name: *const c_char,
    pub user_managed: c_int,
    pub force_part: bool,
}
pub type op_map = *mut op_map_core;

/// `op_dat_core`
#[repr(C)]
pub struct op_dat_core {
    pub index: c_int,
    pub set: op_set,
    pub dim: c_int,
    pub size: c_int,
    pub data: *mut c_char,
    pub data_d: *mut c_char,
    pub type_: *const c_char,
    pub name: *const c_char,
    pub buffer_d: *mut c_char,
    pub buffer_d_r: *mut c_char,
    pub dirtybit: c_int,
    pub dirty_hd: c_int,
    pub user_managed: c_int,
    pub mpi_buffer: *mut c_void,
}
pub type op_dat = *mut op_dat_core;

/// A node of `OP_dat_list`.
#[repr(C)]
pub struct op_dat_entry {
    pub dat: op_dat,
    pub orig_ptr: *mut c_void,
    pub next: *mut op_dat_entry,
    pub prev: *mut *mut op_dat_entry,
}

/// `OP_dat_list` (a TAILQ head).
#[repr(C)]
pub struct dat_list {
    pub first: *mut op_dat_entry,
    pub last: *mut *mut op_dat_entry,
}

extern "C" {
    pub fn op_decl_set(size: c_int, name: *const c_char) -> op_set;
    pub fn op_decl_map(
        from: op_set,
        to: op_set,
        dim: c_int,
        imap: *mut c_int,
        name: *const c_char,
    ) -> op_map;
    pub fn op_decl_map_long(
        from: op_set,
        to: op_set,
        dim: c_int,
        imap: *mut i64,
        name: *const c_char,
    ) -> op_map;
    pub fn op_decl_dat_char(
        set: op_set,
        dim: c_int,
        type_: *const c_char,
        type_size: c_int,
        data: *mut c_char,
        name: *const c_char,
    ) -> op_dat;
    pub fn op_fetch_data_char(dat: op_dat, dst: *mut c_char);
    pub fn op_fetch_data_idx_char(dat: op_dat, dst: *mut c_char, low: c_int, high: c_int);
    pub fn op_get_size(set: op_set) -> i64;
    /// Bring the host copy up to date when the device copy is newer
    /// (every OP2 library defines it; a no-op without a device).
    pub fn op_cuda_get_data(dat: op_dat);
    /// OP2's diagnostics level (`op_init`'s argument).
    pub static OP_diags: c_int;
    pub static OP_set_index: c_int;
    pub static OP_map_index: c_int;
    pub static OP_set_list: *mut op_set;
    pub static OP_map_list: *mut op_map;
    pub static OP_dat_list: dat_list;
}
