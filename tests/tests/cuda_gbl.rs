//! libop2_cuda's entry points for the global arguments of code generated for
//! OP2's `c_cuda` target (`prepareDeviceGbls`, `processDeviceGbls`,
//! `getBlockLimit`, `setGblIncAtomic`; capi/src/cuda_gbl.rs), checked on a
//! device simulated in host memory (`OP2_RS_DEVICE=host`) by
//! tests/c/cuda_gbl.c, which writes the per-thread slots as a kernel would.

mod common;

use common::assert_all_pass;
use op2_tests::{build_once, out_dir, run_in, Lang, Link, Program};

const CHECKS: &[&str] = &[
    "layout_aligned_regions",
    "no_storage_for_scalar_read_or_disabled",
    "read_rw_uploaded",
    "write_not_uploaded",
    "no_sync_needed",
    "inc_combined_first_nelems",
    "max_with_info_lowest_thread",
    "min_per_component",
    "rw_write_copied_back",
    "others_untouched",
    "max_no_improvement_keeps_info",
    "buffer_grow_only",
    "atomic_inc_single_slot",
    "block_limit",
];

#[test]
fn global_arguments_on_a_simulated_device() {
    for (name, link) in [("cuda_gbl", Link::Static), ("cuda_gbl_so", Link::Shared)] {
        let p = Program::new(name, Lang::C99, &["tests/c/cuda_gbl.c"])
            .lib("op2_cuda")
            .link(link);
        let exe = build_once(&p);
        let r = run_in(&exe, &[], &out_dir(), &[("OP2_RS_DEVICE", "host")]);
        assert_all_pass(&r, CHECKS);
    }
}
