//! OP2's exported global variables (abi.md §1.4). Applications and generated
//! code read and write some of them directly, so they are plain C globals.
//! Rust touches them only through the accessors at the bottom, while holding
//! the library state lock or on the thread that called the API.
#![allow(non_upper_case_globals)]

use crate::ffi::{op_kernel, op_map, op_plan, op_set, Double_linked_list};
use std::os::raw::{c_char, c_double, c_int};
use std::ptr::{addr_of, addr_of_mut, null_mut};

#[no_mangle]
pub static mut OP_diags: c_int = 0;
#[no_mangle]
pub static mut OP_part_size: c_int = 0;
#[no_mangle]
pub static mut OP_block_size: c_int = 64;
#[no_mangle]
pub static mut OP_cache_line_size: c_int = 128;
#[no_mangle]
pub static mut OP_gpu_direct: c_int = 0;
#[no_mangle]
pub static mut OP_hybrid_balance: c_double = 1.0;
#[no_mangle]
pub static mut OP_hybrid_gpu: c_int = 0;
#[no_mangle]
pub static mut OP_auto_soa: c_int = 0;
#[no_mangle]
pub static mut OP_maps_base_index: c_int = 0;
#[no_mangle]
pub static mut OP_mpi_test_frequency: c_int = 1 << 30;
#[no_mangle]
pub static mut OP_partial_exchange: c_int = 0;
#[no_mangle]
pub static mut OP_disable_mpi_reductions: c_int = 0;
#[no_mangle]
pub static mut OP_cuda_reductions_mib: c_int = 5;
#[no_mangle]
pub static mut OP_is_partitioned: c_int = 0;
#[no_mangle]
pub static mut OP_realloc: c_int = 1;

#[no_mangle]
pub static mut OP_set_index: c_int = 0;
#[no_mangle]
pub static mut OP_set_max: c_int = 0;
#[no_mangle]
pub static mut OP_map_index: c_int = 0;
#[no_mangle]
pub static mut OP_map_max: c_int = 0;
#[no_mangle]
pub static mut OP_dat_index: c_int = 0;
#[no_mangle]
pub static mut OP_plan_index: c_int = 0;
#[no_mangle]
pub static mut OP_plan_max: c_int = 0;
#[no_mangle]
pub static mut OP_kern_max: c_int = 0;
#[no_mangle]
pub static mut OP_kern_curr: c_int = 0;

#[no_mangle]
pub static mut OP_set_list: *mut op_set = null_mut();
#[no_mangle]
pub static mut OP_map_list: *mut op_map = null_mut();
#[no_mangle]
pub static mut OP_dat_list: Double_linked_list = Double_linked_list {
    tqh_first: null_mut(),
    tqh_last: null_mut(),
};
#[no_mangle]
pub static mut OP_kernels: *mut op_kernel = null_mut();
#[no_mangle]
pub static mut OP_plan_time: c_double = 0.0;
#[no_mangle]
pub static mut OP_plans: *mut op_plan = null_mut();

// Device scratch of OP2's CUDA runtime: declared for generated code that names
// them; unused on the host backends.
#[no_mangle]
pub static mut OP_consts_h: *mut c_char = null_mut();
#[no_mangle]
pub static mut OP_consts_d: *mut c_char = null_mut();
#[no_mangle]
pub static mut OP_reduct_h: *mut c_char = null_mut();
#[no_mangle]
pub static mut OP_reduct_d: *mut c_char = null_mut();
#[no_mangle]
pub static mut OP_consts_bytes: c_int = 0;
#[no_mangle]
pub static mut OP_reduct_bytes: c_int = 0;

/// Read a C global int.
///
/// # Safety
/// `p` must be the address of one of the statics above.
pub unsafe fn get(p: *const c_int) -> c_int {
    // SAFETY: the caller's contract: an exported int, aligned and live.
    unsafe { std::ptr::read_volatile(p) }
}

/// Write a C global int.
///
/// # Safety
/// As for [`get`]; the caller is on the API thread.
pub unsafe fn set(p: *mut c_int, v: c_int) {
    // SAFETY: the caller's contract: an exported int, on the API thread.
    unsafe { std::ptr::write_volatile(p, v) }
}

/// Current `OP_diags`.
pub fn diags() -> c_int {
    // SAFETY: a plain int global; a torn read is impossible for an aligned int.
    unsafe { get(addr_of!(OP_diags)) }
}

/// `OP_is_partitioned`.
pub fn is_partitioned() -> c_int {
    // SAFETY: as in `diags`.
    unsafe { get(addr_of!(OP_is_partitioned)) }
}

/// `OP_mpi_test_frequency`.
pub fn test_frequency() -> c_int {
    // SAFETY: as in `diags`.
    unsafe { get(addr_of!(OP_mpi_test_frequency)) }
}

/// Is a device in use (`OP_hybrid_gpu`)?
pub fn hybrid_gpu() -> bool {
    // SAFETY: as in `diags`.
    unsafe { get(addr_of!(OP_hybrid_gpu)) != 0 }
}

/// Current `OP_maps_base_index`.
pub fn maps_base() -> c_int {
    // SAFETY: as in `diags`.
    unsafe { get(addr_of!(OP_maps_base_index)) }
}

/// The options in force now, for the runtime.
pub fn config() -> op2_core::runtime::Config {
    // SAFETY: plain int globals; a torn read is impossible for aligned ints.
    let get_i = |p: *const c_int| unsafe { get(p) };
    op2_core::runtime::Config {
        diags: diags(),
        part_size: get_i(addr_of!(OP_part_size)),
        block_size: get_i(addr_of!(OP_block_size)),
        cache_line_size: get_i(addr_of!(OP_cache_line_size)),
        partial_exchange: get_i(addr_of!(OP_partial_exchange)) != 0,
        mpi_reductions: get_i(addr_of!(OP_disable_mpi_reductions)) == 0,
        auto_soa: get_i(addr_of!(OP_auto_soa)) != 0,
        hybrid_gpu: get_i(addr_of!(OP_hybrid_gpu)) != 0,
    }
}

/// Apply one of OP2's command-line options to its global.
pub fn apply(o: op2_core::runtime::Opt) {
    use op2_core::runtime::Opt;
    // SAFETY: plain globals, written on the API thread.
    unsafe {
        match o {
            Opt::BlockSize(v) => set(addr_of_mut!(OP_block_size), v),
            Opt::PartSize(v) => set(addr_of_mut!(OP_part_size), v),
            Opt::CacheLineSize(v) => set(addr_of_mut!(OP_cache_line_size), v),
            Opt::TestFrequency(v) => set(addr_of_mut!(OP_mpi_test_frequency), v),
            Opt::CudaReductionsMib(v) => set(addr_of_mut!(OP_cuda_reductions_mib), v),
            Opt::MapsBase(v) => set(addr_of_mut!(OP_maps_base_index), v),
            Opt::MapsBaseRefused(_) => {}
            Opt::HybridBalance(v) => std::ptr::write_volatile(addr_of_mut!(OP_hybrid_balance), v),
            Opt::GpuDirect => set(addr_of_mut!(OP_gpu_direct), 1),
            Opt::AutoSoa => set(addr_of_mut!(OP_auto_soa), 1),
            Opt::PartialExchange => set(addr_of_mut!(OP_partial_exchange), 1),
            Opt::NoRealloc => set(addr_of_mut!(OP_realloc), 0),
        }
    }
}

/// Reset every global to its initial value (`op_exit`).
pub fn reset_all() {
    // SAFETY: called with the state lock held, on the API thread, after the
    // arrays these globals pointed into were dropped.
    unsafe {
        for (p, v) in [
            (addr_of_mut!(OP_set_index), 0),
            (addr_of_mut!(OP_set_max), 0),
            (addr_of_mut!(OP_map_index), 0),
            (addr_of_mut!(OP_map_max), 0),
            (addr_of_mut!(OP_dat_index), 0),
            (addr_of_mut!(OP_plan_index), 0),
            (addr_of_mut!(OP_plan_max), 0),
            (addr_of_mut!(OP_kern_max), 0),
            (addr_of_mut!(OP_kern_curr), 0),
            (addr_of_mut!(OP_is_partitioned), 0),
            (addr_of_mut!(OP_hybrid_gpu), 0),
        ] {
            set(p, v);
        }
        std::ptr::write_volatile(addr_of_mut!(OP_set_list), null_mut());
        std::ptr::write_volatile(addr_of_mut!(OP_map_list), null_mut());
        std::ptr::write_volatile(addr_of_mut!(OP_kernels), null_mut());
        std::ptr::write_volatile(addr_of_mut!(OP_plans), null_mut());
        for p in [
            addr_of_mut!(OP_reduct_h),
            addr_of_mut!(OP_reduct_d),
            addr_of_mut!(OP_consts_h),
            addr_of_mut!(OP_consts_d),
        ] {
            std::ptr::write_volatile(p, null_mut());
        }
        std::ptr::write_volatile(addr_of_mut!(OP_plan_time), 0.0);
        let list = addr_of_mut!(OP_dat_list);
        (*list).tqh_first = null_mut();
        (*list).tqh_last = addr_of_mut!((*list).tqh_first);
    }
}
