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
    "soa_dat_arg_with_c_type",
    "print_dat_downloads_first",
    "fetch_idx_after_device_write",
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

/// The transfer report (`OP2_RS_DEVICE_STATS=1`) at op_exit, against the
/// moves tests/c/cuda_host.c makes (NN = 5 nodes, x: 2 doubles, y: 3
/// doubles SoA, a 2-map with stride 32, one COLOR2 plan, one 64-byte
/// reduction scratch copy each way):
/// - placed: x (80 B) and y (120 B) at declaration;
/// - uploads: x before the device loop that follows the host loop
///   add_one, and op_upload_dat(x): 2 × 80 B;
/// - downloads: x at the first fetch (the second finds the host copy
///   fresh), before the host loop sum_x, and op_download_dat(x): 3 × 80 B;
///   y at its fetch and before op_print_dat_to_txtfile (op_fetch_data_idx
///   after it finds it fresh): 2 × 120 B.
#[test]
fn the_transfer_report_counts_what_moved() {
    let p = Program::new("cuda_host", Lang::C99, &["tests/c/cuda_host.c"])
        .lib("op2_cuda")
        .link(Link::Static);
    let exe = build_once(&p);
    let dir = out_dir().join("cuda_host_stats");
    let r = run_in(
        &exe,
        &[],
        &dir,
        &[("OP2_RS_DEVICE", "host"), ("OP2_RS_DEVICE_STATS", "1")],
    );
    assert_all_pass(&r, HOST_CHECKS);
    let reports: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("op2-rs device transfers:"))
        .collect();
    assert_eq!(reports.len(), 1, "one report at op_exit:\n{}", r.stdout);
    let fig = |name: &str| -> String {
        reports[0]
            .split(' ')
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in {}", reports[0]))
            .to_string()
    };
    let want = [
        ("dats_placed", "2"),
        ("dats_placed_bytes", "200"),
        ("dat_uploads", "2"),
        ("dat_uploads_bytes", "160"),
        ("dat_downloads", "5"),
        ("dat_downloads_bytes", "480"),
        ("halo_uploads", "0"),
        ("maps", "1"),
        ("maps_bytes", "256"),
        ("plans", "1"),
        ("scratch_up", "1"),
        ("scratch_up_bytes", "64"),
        ("scratch_down", "1"),
        ("scratch_down_bytes", "64"),
    ];
    for (name, v) in want {
        assert_eq!(fig(name), v, "{name} in {}", reports[0]);
    }
    assert!(fig("plans_bytes").parse::<u64>().unwrap() > 0);
    assert!(fig("soa_transpose_ms").parse::<f64>().is_ok());
    // without the variable: no report
    let quiet = run_in(&exe, &[], &dir, &[("OP2_RS_DEVICE", "host")]);
    assert!(
        !quiet.stdout.contains("device transfers"),
        "{}",
        quiet.stdout
    );
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

/// tests/c/cuda_mpi_host.cpp built with mpicxx against libop2_mpi_cuda.
fn cuda_mpi_host() -> std::path::PathBuf {
    let root = op2_tests::root();
    let exe = out_dir().join("cuda_mpi_host-op2_mpi_cuda");
    let mut cmd = std::process::Command::new("mpicxx");
    cmd.args([
        "-DOMPI_SKIP_MPICXX",
        "-DMPICH_SKIP_MPICXX",
        "-std=c++17",
        "-O2",
    ])
    .args(["-Wall", "-Wextra", "-pedantic"])
    .arg(format!("-I{}", root.join("include").display()))
    .arg(root.join("tests/c/cuda_mpi_host.cpp"))
    .arg(op2_tests::lib_dir().join("libop2_mpi_cuda.a"))
    .args(["-lpthread", "-ldl", "-lm", "-o"])
    .arg(&exe);
    let out = cmd.output().expect("run mpicxx");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("warning"),
        "{cmd:?}\n{stderr}"
    );
    exe
}

#[test]
fn mpi_halo_exchanges_of_device_data() {
    let exe = cuda_mpi_host();
    for np in [1, 2, 3] {
        let dir = out_dir().join("runs").join(format!("cuda-mpi-{np}"));
        std::fs::create_dir_all(&dir).unwrap();
        let out = std::process::Command::new("timeout")
            .args([
                "-k",
                "5",
                "120",
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
            ])
            .args(["--bind-to", "none", "-np", &np.to_string()])
            .arg(&exe)
            .current_dir(&dir)
            .env("OP2_RS_DEVICE", "host")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .output()
            .expect("run mpirun");
        let r = op2_tests::Run {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert_all_pass(
            &r,
            &[
                "device_copies_after_partition",
                "device_write_dirty_hd_2",
                "device_halo_rows_after_exchange",
                "fetch_in_original_order",
            ],
        );
    }
}
