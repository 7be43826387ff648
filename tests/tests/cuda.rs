//! libop2_cuda and libop2_mpi_cuda on a machine without a GPU: they link
//! with programs that define no `op_decl_const_char` (static and shared),
//! stop in op_init with one line when there is no CUDA driver or device, and
//! their host-side logic (device copies, dirty_hd, transfers, scratch
//! buffers, plan upload) is checked on a device simulated in host memory
//! (`OP2_RS_DEVICE=host`, tests/c/cuda_host.c). CUDA kernels themselves only
//! run on a GPU (scripts/cuda_link_check.sh, scripts/op2_cuda_check.sh).

mod common;

use common::assert_all_pass;
use op2_tests::{build_once, out_dir, run, run_in, Lang, Link, Program};

const HOST_CHECKS: &[&str] = &[
    "hybrid_gpu",
    "decl_aos_copy",
    "decl_soa_copy",
    "decl_map_transposed",
    "arg_device_fields",
    "device_write_marks_dirty_hd_2",
    "fetch_downloads_device_copy",
    "fetch_never_downloads_twice",
    "host_loop_marks_dirty_hd_1",
    "device_loop_uploads_host_copy",
    "host_loop_downloads_first",
    "soa_device_write_fetched_aos",
    "op_upload_dat",
    "op_download_dat",
    "reduction_scratch",
    "plan_color2_uploaded",
    "decl_const_forwarded",
];

fn driver_present() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "/usr/lib64/libcuda.so.1",
    ]
    .iter()
    .any(|p| std::path::Path::new(p).exists())
}

#[test]
fn host_logic_on_a_simulated_device() {
    // Shared: the weak reference to op_decl_const_char resolves to the
    // program's definition at load time.
    for (name, link) in [("cuda_host", Link::Static), ("cuda_host_so", Link::Shared)] {
        let p = Program::new(name, Lang::C99, &["tests/c/cuda_host.c"])
            .lib("op2_cuda")
            .link(link);
        let exe = build_once(&p);
        let r = run_in(&exe, &[], &out_dir(), &[("OP2_RS_DEVICE", "host")]);
        assert_all_pass(&r, HOST_CHECKS);
    }
}

#[test]
fn no_device_stops_in_op_init_with_one_line() {
    if driver_present() {
        eprintln!("a CUDA driver is installed: the no-device path is not reachable here");
        return;
    }
    for link in [Link::Static, Link::Shared] {
        let exe = Program::new("cuda_nodev", Lang::C99, &["tests/c/cuda_nodev.c"])
            .lib("op2_cuda")
            .link(link)
            .build();
        let r = run(&exe, &[], &format!("cuda_nodev_{link:?}"));
        let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        assert_eq!(r.status, Some(1), "{ctx}");
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{ctx}");
        assert!(
            lines[0].starts_with("OP2 error in op_init: no CUDA driver"),
            "{ctx}"
        );
        assert!(
            r.stdout.contains("BEFORE") && !r.stdout.contains("UNREACHABLE"),
            "{ctx}"
        );
    }
}
