//! OP2's C structs, typedefs and constants, with OP2's names, field order and
//! (x86_64 LP64) layout at OP2-Common HEAD. cbindgen turns this module into
//! `include/op2_rs_generated.h`; the size/offset tests below pin the layout.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::os::raw::{c_char, c_double, c_float, c_int, c_longlong, c_short, c_void};

/// A C copy of `s` (interior NULs dropped), for names the library hands out.
pub(crate) fn cstring(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s.replace('\0', "")).expect("NULs removed")
}

/// Local (per-rank) element index.
pub type idx_l_t = c_int;
/// Global element index.
pub type idx_g_t = c_longlong;
pub type op_access = c_int;
pub type op_arg_type = c_int;

pub const OP_READ: op_access = 0;
pub const OP_WRITE: op_access = 1;
pub const OP_RW: op_access = 2;
pub const OP_INC: op_access = 3;
pub const OP_MIN: op_access = 4;
pub const OP_MAX: op_access = 5;
pub const OP_WORK: op_access = 6;

pub const OP_ARG_GBL: op_arg_type = 0;
pub const OP_ARG_DAT: op_arg_type = 1;
pub const OP_ARG_IDX: op_arg_type = 2;
pub const OP_ARG_INFO: op_arg_type = 3;

pub const OP_STAGE_NONE: c_int = 0;
pub const OP_STAGE_INC: c_int = 1;
pub const OP_STAGE_ALL: c_int = 2;
pub const OP_STAGE_PERMUTE: c_int = 3;
pub const OP_COLOR2: c_int = 4;

/// A set of mesh elements.
#[repr(C)]
pub struct op_set_core {
    pub index: c_int,
    pub size: idx_l_t,
    pub name: *const c_char,
    pub core_size: idx_l_t,
    pub exec_size: idx_l_t,
    pub nonexec_size: idx_l_t,
    pub stride: c_int,
}
pub type op_set = *mut op_set_core;

/// A map between two sets.
#[repr(C)]
pub struct op_map_core {
    pub index: c_int,
    pub from: op_set,
    pub to: op_set,
    pub dim: c_int,
    pub map: *mut idx_l_t,
    pub map_gbl: *mut idx_g_t,
    pub map_d: *mut idx_l_t,
    pub name: *const c_char,
    pub user_managed: c_int,
    pub force_part: bool,
}
pub type op_map = *mut op_map_core;

/// Data on a set.
#[repr(C)]
pub struct op_dat_core {
    pub index: c_int,
    pub set: op_set,
    pub dim: c_int,
    pub size: c_int,
    pub data: *mut c_char,
    pub data_d: *mut c_char,
    pub r#type: *const c_char,
    pub name: *const c_char,
    pub buffer_d: *mut c_char,
    pub buffer_d_r: *mut c_char,
    pub dirtybit: c_int,
    pub dirty_hd: c_int,
    pub user_managed: c_int,
    pub mpi_buffer: *mut c_void,
}
pub type op_dat = *mut op_dat_core;

/// One argument of a parallel loop (passed by value).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct op_arg {
    pub index: c_int,
    pub dat: op_dat,
    pub map: op_map,
    pub dim: c_int,
    pub idx: c_int,
    pub size: c_int,
    pub data: *mut c_char,
    pub data_d: *mut c_char,
    pub map_data: *mut idx_l_t,
    pub map_data_d: *mut idx_l_t,
    pub r#type: *const c_char,
    pub acc: op_access,
    pub argtype: op_arg_type,
    pub sent: c_int,
    pub opt: c_int,
}

/// Timing record of one kernel (element of `OP_kernels`).
#[repr(C)]
pub struct op_kernel {
    pub name: *const c_char,
    pub count: c_int,
    pub time: c_double,
    pub times: *mut c_double,
    pub ntimes: c_int,
    pub plan_time: c_float,
    pub transfer: c_float,
    pub transfer2: c_float,
    pub mpi_time: c_double,
}

/// `TAILQ_ENTRY(op_dat_entry_core)`.
#[repr(C)]
pub struct op_dat_entry_link {
    pub tqe_next: *mut op_dat_entry_core,
    pub tqe_prev: *mut *mut op_dat_entry_core,
}

/// A node of `OP_dat_list`.
#[repr(C)]
pub struct op_dat_entry_core {
    pub dat: op_dat,
    pub orig_ptr: *mut c_void,
    pub entries: op_dat_entry_link,
}
pub type op_dat_entry = op_dat_entry_core;

/// `TAILQ_HEAD(, op_dat_entry_core)`.
#[repr(C)]
pub struct Double_linked_list {
    pub tqh_first: *mut op_dat_entry_core,
    pub tqh_last: *mut *mut op_dat_entry_core,
}

/// An execution plan (OP2's `op_rt_support.h`), read by generated OpenMP/CUDA code.
#[repr(C)]
pub struct op_plan {
    pub name: *const c_char,
    pub set: op_set,
    pub nargs: c_int,
    pub ninds: c_int,
    pub ninds_staged: c_int,
    pub part_size: c_int,
    pub maps: *mut op_map,
    pub dats: *mut op_dat,
    pub idxs: *mut c_int,
    pub optflags: *mut c_int,
    pub accs: *mut op_access,
    pub inds_staged: *mut c_int,
    pub nthrcol: *mut c_int,
    pub thrcol: *mut c_int,
    pub col_reord: *mut c_int,
    pub col_offsets: *mut *mut c_int,
    pub color2_offsets: *mut c_int,
    pub offset: *mut c_int,
    pub offset_d: *mut c_int,
    pub ind_map: *mut c_int,
    pub ind_maps: *mut *mut c_int,
    pub ind_offs: *mut c_int,
    pub ind_sizes: *mut c_int,
    pub nindirect: *mut c_int,
    pub loc_map: *mut c_short,
    pub loc_maps: *mut *mut c_short,
    pub nblocks: c_int,
    pub nelems: *mut c_int,
    pub nelems_d: *mut c_int,
    pub ncolors_core: c_int,
    pub ncolors_owned: c_int,
    pub ncolors: c_int,
    pub ncolblk: *mut c_int,
    pub blkmap: *mut c_int,
    pub blkmap_d: *mut c_int,
    pub nsharedCol: *mut c_int,
    pub nshared: c_int,
    pub transfer: c_float,
    pub transfer2: c_float,
    pub count: c_int,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_op2_head() {
        assert_eq!(size_of::<op_set_core>(), 32);
        assert_eq!(offset_of!(op_set_core, core_size), 16);
        assert_eq!(offset_of!(op_set_core, stride), 28);
        assert_eq!(size_of::<op_map_core>(), 72);
        assert_eq!(offset_of!(op_map_core, map), 32);
        assert_eq!(offset_of!(op_map_core, map_gbl), 40);
        assert_eq!(offset_of!(op_map_core, map_d), 48);
        assert_eq!(offset_of!(op_map_core, name), 56);
        assert_eq!(offset_of!(op_map_core, force_part), 68);
        assert_eq!(size_of::<op_dat_core>(), 96);
        assert_eq!(offset_of!(op_dat_core, size), 20);
        assert_eq!(offset_of!(op_dat_core, r#type), 40);
        assert_eq!(offset_of!(op_dat_core, dirtybit), 72);
        assert_eq!(offset_of!(op_dat_core, mpi_buffer), 88);
        assert_eq!(size_of::<op_arg>(), 96);
        assert_eq!(offset_of!(op_arg, idx), 28);
        assert_eq!(offset_of!(op_arg, size), 32);
        assert_eq!(offset_of!(op_arg, map_data), 56);
        assert_eq!(offset_of!(op_arg, r#type), 72);
        assert_eq!(offset_of!(op_arg, acc), 80);
        assert_eq!(offset_of!(op_arg, opt), 92);
        assert_eq!(size_of::<op_kernel>(), 56);
        assert_eq!(offset_of!(op_kernel, plan_time), 36);
        assert_eq!(offset_of!(op_kernel, mpi_time), 48);
        assert_eq!(size_of::<op_dat_entry_core>(), 32);
        assert_eq!(size_of::<op_plan>(), 280);
        assert_eq!(offset_of!(op_plan, nblocks), 192);
        assert_eq!(offset_of!(op_plan, ncolors_core), 216);
        assert_eq!(offset_of!(op_plan, ncolblk), 232);
        assert_eq!(offset_of!(op_plan, nshared), 264);
        assert_eq!(offset_of!(op_plan, count), 276);
    }
}
