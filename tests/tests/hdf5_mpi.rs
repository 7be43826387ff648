//! OP2's HDF5 API under MPI (in libop2_mpi.a, linked as OP2 links it:
//! `-lop2_mpi` and the parallel HDF5 library): airfoil_hdf5_mpi reads a mesh
//! written by the serial library (mesh2hdf5, libop2_hdf5 + libop2_seq),
//! partitions it and prints the same rms history as the sequential .dat
//! airfoil on 1-4 ranks; op_fetch_data_hdf5_file right after op_partition
//! gives back the file's data exactly; a program without HDF5 still links
//! without -lhdf5; a serial HDF5 gives one clear error. tests/c/hdf5_mpi_api.cpp
//! exercises every function on 1-4 ranks against known answers and the
//! serial view of the files (libhdf5 without MPI-IO, h5dump), the error
//! paths, and (libop2_mpi_cuda on a simulated device) dumps and fetches of
//! dats whose device copy is newer.

use op2_tests::{build_once, lib_dir, out_dir, root, run_in, Lang, Link, Program, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const PARALLEL_HDF5: &str = "/usr/lib/x86_64-linux-gnu/hdf5/openmpi";
const SERIAL_HDF5: &str = "/usr/lib/x86_64-linux-gnu/hdf5/serial";

fn ok_build(what: &str, cmd: &mut Command) {
    let out = cmd.output().expect("run the compiler");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !err.contains("warning"),
        "{what}: {cmd:?}\n{err}"
    );
}

/// mpicxx with the warning flags every program here is built with and our
/// include directory.
fn mpicxx() -> Command {
    let mut cmd = Command::new("mpicxx");
    cmd.args([
        "-DOMPI_SKIP_MPICXX",
        "-std=c++17",
        "-O2",
        "-Wall",
        "-Wextra",
    ])
    .arg(format!("-I{}", root().join("include").display()));
    cmd
}

/// airfoil_hdf5_mpi against libop2_mpi.a and the HDF5 in `hdf5_dir`.
fn airfoil_hdf5_mpi(hdf5_dir: &str, tag: &str) -> PathBuf {
    airfoil_hdf5_mpi_linked(hdf5_dir, tag, false, "op2_mpi")
}

/// airfoil_hdf5_mpi against `lib` (the archive, or the shared library when
/// `shared`) and the HDF5 in `hdf5_dir`.
fn airfoil_hdf5_mpi_linked(hdf5_dir: &str, tag: &str, shared: bool, lib: &str) -> PathBuf {
    let exe = out_dir().join(format!("airfoil_hdf5_mpi-{tag}"));
    let c = root().join("c-examples");
    let mut cmd = mpicxx();
    cmd.args(["-ffp-contract=off"])
        .arg(format!("-I{}", c.join("common").display()))
        .arg(format!("-I{}", c.join("airfoil").display()))
        .arg(c.join("hdf5/airfoil_hdf5_mpi.cpp"))
        .arg(c.join("common/naca_mesh.c"));
    if shared {
        cmd.arg(format!("-L{}", lib_dir().display()))
            .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
            .arg(format!("-l{lib}"));
    } else {
        cmd.arg(lib_dir().join(format!("lib{lib}.a")));
    }
    cmd.arg(format!("-L{hdf5_dir}"))
        .args(["-lhdf5", "-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    // naca_mesh.c is C: compile it as such
    let obj = out_dir().join(format!("naca_mesh-{tag}.o"));
    ok_build(
        "naca_mesh.c",
        Command::new("gcc")
            .args(["-std=c99", "-O2", "-c"])
            .arg(c.join("common/naca_mesh.c"))
            .arg("-o")
            .arg(&obj),
    );
    let args: Vec<_> = cmd
        .get_args()
        .map(|a| {
            if Path::new(a) == c.join("common/naca_mesh.c") {
                obj.clone().into_os_string()
            } else {
                a.to_os_string()
            }
        })
        .collect();
    ok_build(
        &exe.display().to_string(),
        Command::new("mpicxx").args(args),
    );
    exe
}

fn serial_tool(name: &str, src: &str) -> PathBuf {
    let c = root().join("c-examples");
    build_once(
        &Program::new(name, Lang::Cxx17, &[src, "c-examples/common/naca_mesh.c"])
            .lib("op2_seq")
            .link(Link::Static)
            .include(&c.join("common").display().to_string())
            .include(&c.join("airfoil").display().to_string())
            .with_hdf5(),
    )
}

fn mpirun(exe: &Path, np: usize, args: &[&str], dir: &Path) -> Run {
    mpirun_env(exe, np, args, dir, &[])
}

fn mpirun_env(exe: &Path, np: usize, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Run {
    let out = Command::new("timeout")
        .args([
            "-k",
            "5",
            "300",
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
        ])
        .args(["--bind-to", "none", "-np", &np.to_string()])
        .arg(exe)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .expect("run mpirun");
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn history(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| {
            l.starts_with(' ')
                && l.trim_start()
                    .split(' ')
                    .next()
                    .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .filter(|l| l.contains('e'))
        .map(str::to_string)
        .collect()
}

fn h5diff(a: &Path, b: &Path, what: &str) {
    h5diff_within(a, b, what, &[]);
}

/// h5diff with its options `opts` (e.g. a relative tolerance).
fn h5diff_within(a: &Path, b: &Path, what: &str, opts: &[&str]) {
    let out = Command::new("h5diff")
        .args(opts)
        .arg(a)
        .arg(b)
        .args([what, what])
        .output()
        .expect("run h5diff (hdf5-tools)");
    assert!(
        out.status.success(),
        "{} and {} differ in {what}:\n{}",
        a.display(),
        b.display(),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The rms history of the sequential airfoil (.dat mesh generator, 3000
/// cells, 200 iterations), run in `dir`.
fn seq_history(dir: &Path) -> Vec<String> {
    let seq = build_once(
        &Program::new(
            "airfoil",
            Lang::Cxx17,
            &[
                "c-examples/airfoil/airfoil.cpp",
                "c-examples/common/naca_mesh.c",
            ],
        )
        .lib("op2_seq")
        .include(&root().join("c-examples/common").display().to_string())
        .include(&root().join("c-examples/airfoil").display().to_string()),
    );
    let want = history(
        &run_in(&seq, &["--cells=3000", "--iters=200"], dir, &[])
            .ok()
            .stdout,
    );
    assert_eq!(want.len(), 2);
    want
}

#[test]
fn airfoil_hdf5_mpi_matches_sequential_on_1_to_4_ranks() {
    let dir = out_dir().join("runs/hdf5-mpi-airfoil");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mesh2hdf5 = serial_tool("mesh2hdf5", "c-examples/hdf5/mesh2hdf5.cpp");
    run_in(&mesh2hdf5, &["--cells=3000", "-o", "gen.h5"], &dir, &[]).ok();
    let want = seq_history(&dir);
    // The shared libop2_mpi.so is bound to the parallel HDF5 too.
    let shared = airfoil_hdf5_mpi_linked(PARALLEL_HDF5, "parallel-shared", true, "op2_mpi");
    for np in [2, 3] {
        let r = mpirun(&shared, np, &["gen.h5", "--iters=200"], &dir);
        r.ok();
        assert_eq!(
            history(&r.stdout),
            want,
            "shared, {np} ranks:\n{}",
            r.stdout
        );
    }
    let exe = airfoil_hdf5_mpi(PARALLEL_HDF5, "parallel");
    for np in 1..=4 {
        let out = format!("q{np}.h5");
        let r = mpirun(
            &exe,
            np,
            &["gen.h5", "--iters=200", &format!("--out={out}")],
            &dir,
        );
        r.ok();
        assert_eq!(history(&r.stdout), want, "{np} ranks:\n{}", r.stdout);
        // no iterations: the fetched q is the file's, bit for bit
        let out0 = format!("q0_{np}.h5");
        mpirun(
            &exe,
            np,
            &["gen.h5", "--iters=0", &format!("--out={out0}")],
            &dir,
        )
        .ok();
        h5diff(&dir.join("gen.h5"), &dir.join(&out0), "/p_q");
    }
}

/// The same program on libop2_mpi_opencl (OP2's HDF5 API beside device
/// loops, as in libop2_mpi_cuda): the mesh read from the file, every loop
/// on the OpenCL device (PoCL here), the same rms history as the sequential
/// airfoil, the fetched q (a dat the device wrote last) that of libop2_mpi's
/// run within 1e-12 (q is of order 1; the two differ in the last bits, the
/// device colouring its increments), and after no iteration the file's, bit
/// for bit.
#[test]
fn airfoil_hdf5_mpi_on_the_device() {
    let dir = out_dir().join("runs/hdf5-mpi-airfoil-opencl");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mesh2hdf5 = serial_tool("mesh2hdf5", "c-examples/hdf5/mesh2hdf5.cpp");
    run_in(&mesh2hdf5, &["--cells=3000", "-o", "gen.h5"], &dir, &[]).ok();
    let want = seq_history(&dir);
    let exe = airfoil_hdf5_mpi_linked(PARALLEL_HDF5, "opencl", false, "op2_mpi_opencl");
    let kernels = root().join("c-examples/airfoil");
    let cache = out_dir().join("opencl-cache");
    let env = [
        ("OP2_RS_KERNEL_PATH", kernels.to_str().unwrap()),
        ("OP2_RS_CACHE_DIR", cache.to_str().unwrap()),
        ("OP2_RS_DEVICE_STATS", "1"),
    ];
    let r = mpirun_env(
        &exe,
        2,
        &["gen.h5", "--iters=200", "--out=q.h5"],
        &dir,
        &env,
    );
    r.ok();
    assert_eq!(history(&r.stdout), want, "2 ranks:\n{}", r.stdout);
    let p = op2_tests::placements(&r.stdout);
    assert_eq!(p.len(), 5, "placement table:\n{}", r.stdout);
    assert!(p.iter().all(|(_, at)| at == "device"), "{p:?}");
    let host = airfoil_hdf5_mpi(PARALLEL_HDF5, "parallel-for-opencl");
    mpirun(&host, 2, &["gen.h5", "--iters=200", "--out=qh.h5"], &dir).ok();
    h5diff_within(
        &dir.join("qh.h5"),
        &dir.join("q.h5"),
        "/p_q",
        &["-d", "1e-12"],
    );
    mpirun_env(&exe, 2, &["gen.h5", "--iters=0", "--out=q0.h5"], &dir, &env).ok();
    h5diff(&dir.join("gen.h5"), &dir.join("q0.h5"), "/p_q");
}

#[test]
fn serial_hdf5_under_mpi_is_one_clear_error() {
    let dir = out_dir().join("runs/hdf5-mpi-serial");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = airfoil_hdf5_mpi(&format!("{SERIAL_HDF5}/lib"), "serial");
    let r = mpirun(&exe, 2, &["missing.h5"], &dir);
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("OP2 error in op_decl_set_hdf5 (set \"nodes\"): the HDF5 library in use")
            && r.stderr.contains("is a serial HDF5"),
        "{}",
        r.stderr
    );
}

/// Programs without HDF5 link libop2_mpi.a exactly as before (no -lhdf5),
/// and nothing of HDF5 ends up in them.
#[test]
fn mpi_programs_without_hdf5_need_no_hdf5() {
    let exe = out_dir().join("airfoil_mpi-nohdf5");
    let c = root().join("c-examples");
    let obj = out_dir().join("naca_mesh-nohdf5.o");
    ok_build(
        "naca_mesh.c",
        Command::new("gcc")
            .args(["-std=c99", "-O2", "-c"])
            .arg(c.join("common/naca_mesh.c"))
            .arg("-o")
            .arg(&obj),
    );
    ok_build(
        "airfoil_mpi",
        mpicxx()
            .arg(format!("-I{}", c.join("common").display()))
            .arg(format!("-I{}", c.join("airfoil").display()))
            .arg(c.join("airfoil/airfoil_mpi.cpp"))
            .arg(&obj)
            .arg(lib_dir().join("libop2_mpi.a"))
            .args(["-lpthread", "-ldl", "-lm", "-o"])
            .arg(&exe),
    );
    let nm = Command::new("nm").arg(&exe).output().expect("run nm");
    let syms = String::from_utf8_lossy(&nm.stdout);
    assert!(
        !syms
            .lines()
            .any(|l| l.contains(" H5") || l.contains("hdf5_metno")),
        "HDF5 code linked into a program without HDF5"
    );
}

/// tests/c/hdf5_mpi_api.cpp against `lib` (libop2_mpi or libop2_mpi_cuda,
/// static) and the parallel HDF5; built once per test process (the tests
/// run side by side).
fn mpi_api(lib: &'static str) -> PathBuf {
    static MPI: OnceLock<PathBuf> = OnceLock::new();
    static MPI_CUDA: OnceLock<PathBuf> = OnceLock::new();
    let cell = if lib == "op2_mpi" { &MPI } else { &MPI_CUDA };
    cell.get_or_init(|| build_mpi_api(lib)).clone()
}

fn build_mpi_api(lib: &str) -> PathBuf {
    let exe = out_dir().join(format!("hdf5_mpi_api-{lib}"));
    ok_build(
        "hdf5_mpi_api.cpp",
        Command::new("mpicxx")
            .args(["-DOMPI_SKIP_MPICXX", "-std=c++17", "-O2"])
            .args(["-Wall", "-Wextra", "-pedantic"])
            .arg(format!("-I{}", root().join("include").display()))
            .arg("-I/usr/include/hdf5/openmpi")
            .arg(root().join("tests/c/hdf5_mpi_api.cpp"))
            .arg(lib_dir().join(format!("lib{lib}.a")))
            .arg(format!("-L{PARALLEL_HDF5}"))
            .args(["-lhdf5", "-lpthread", "-ldl", "-lm", "-o"])
            .arg(&exe),
    );
    exe
}

/// A fresh directory holding mesh.h5 (the program's "gen" mode, one process).
fn mesh_dir(exe: &Path, tag: &str) -> PathBuf {
    let dir = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // (a simulated device, so that libop2_mpi_cuda's op_init goes on)
    mpirun_env(exe, 1, &["gen"], &dir, &[("OP2_RS_DEVICE", "host")]).ok();
    dir
}

fn all_pass(r: &Run, checks: &[&str], what: &str) {
    assert_eq!(r.status, Some(0), "{what}:\n{}\n{}", r.stdout, r.stderr);
    for c in checks {
        assert!(
            r.stdout.lines().any(|l| l == format!("PASS {c}")),
            "{what}: no PASS {c}:\n{}",
            r.stdout
        );
    }
    assert!(!r.stdout.contains("FAIL"), "{what}:\n{}", r.stdout);
}

fn h5dump_data(dir: &Path, file: &str, dataset: &str) -> String {
    let out = Command::new("h5dump")
        .args(["-d", dataset, file])
        .current_dir(dir)
        .output()
        .expect("run h5dump (hdf5-tools)");
    assert!(out.status.success(), "h5dump -d {dataset} {file}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const API_CHECKS: &[&str] = &[
    "sets_block_rule",
    "set_infer_size",
    "map_block_bytes",
    "dat_double_block_bytes",
    "dat_int_block_bytes",
    "dat_in_group_block_bytes",
    "serial_read_is_known_mesh",
    "missing_datasets_are_null",
    "get_const",
    "write_const_round_trip",
    "write_const_serial_view",
    "dump_set_global_sizes",
    "dump_map_as_held",
    "dump_dats_as_held",
    "dump_x_rows_are_the_mesh_rows",
    "dump_attributes",
    "fetch_file_original_order",
    "fetch_file_path_group",
    "fetch_data_hdf5_path",
    "fetch_file_ptr",
    "fetch_file_overwrite",
];

#[test]
fn every_function_on_1_to_4_ranks() {
    let exe = mpi_api("op2_mpi");
    for np in 1..=4 {
        let dir = mesh_dir(&exe, &format!("hdf5-mpi-api-{np}"));
        let r = mpirun(&exe, np, &["api"], &dir);
        all_pass(&r, API_CHECKS, &format!("{np} ranks"));
        // the missing datasets: OP2's notice, once (rank 0)
        for what in ["dat \"nope\"", "map \"nomap\""] {
            let n = r
                .stdout
                .matches(&format!("{what} not found in file \"mesh.h5\""))
                .count();
            assert_eq!(n, 1, "{np} ranks: notice for {what}:\n{}", r.stdout);
        }
        // h5dump's view of the dump: global set sizes, the dats' shapes
        let d = h5dump_data(&dir, "dump.h5", "nodes");
        assert!(d.contains("(0): 23"), "{d}");
        let d = h5dump_data(&dir, "dump.h5", "cells");
        assert!(d.contains("(0): 17"), "{d}");
        let d = h5dump_data(&dir, "dump.h5", "x");
        assert!(d.contains("SIMPLE { ( 23, 2 ) / ( 23, 2 ) }"), "{d}");
        let d = h5dump_data(&dir, "fetch.h5", "grp/sub/ids2");
        assert!(
            d.contains("SIMPLE { ( 17, 1 ) / ( 17, 1 ) }") && d.contains("(16,0): 1016"),
            "{d}"
        );
    }
}

/// An error every rank finds (the wrong dim), and one only ranks > 0 find
/// (a pointer no dat was declared with there, while rank 0 waits in the
/// collective fetch): status 1 (MPI_Abort) on 1-4 ranks, the error line
/// printed by at least one and at most every rank, and no other error.
#[test]
fn errors_under_mpi_stop_every_rank() {
    let exe = mpi_api("op2_mpi");
    for np in 1..=4 {
        let dir = mesh_dir(&exe, &format!("hdf5-mpi-err-{np}"));
        let r = mpirun(&exe, np, &["dimerr"], &dir);
        assert_eq!(r.status, Some(1), "{np} ranks: {}", r.stderr);
        let line = "OP2 error in op_decl_dat_hdf5 (dat \"x\"): dataset \"x\" in file \"mesh.h5\": has dim 2 (columns), the dat has dim 3";
        let n = r.stderr.matches(line).count();
        assert!((1..=np).contains(&n), "{np} ranks:\n{}", r.stderr);
        assert_eq!(r.stderr.matches("OP2 error").count(), n, "{}", r.stderr);
        assert!(!r.stdout.contains("not reached"));
        if np > 1 {
            let r = mpirun(&exe, np, &["ptrerr"], &dir);
            assert_eq!(r.status, Some(1), "{np} ranks: {}", r.stderr);
            let line =
                "OP2 error in op_fetch_data_hdf5_file_ptr: no dat was declared with data pointer";
            let n = r.stderr.matches(line).count();
            assert!((1..np).contains(&n), "{np} ranks:\n{}", r.stderr);
            assert!(!r.stdout.contains("not reached"));
        }
    }
}

/// libop2_mpi_cuda on a device simulated in host memory: x written on the
/// device after op_partition; op_dump_to_hdf5 and op_fetch_data_hdf5_file
/// write the device's values.
#[test]
fn dump_and_fetch_write_device_values() {
    let exe = mpi_api("op2_mpi_cuda");
    for np in 1..=3 {
        let dir = mesh_dir(&exe, &format!("hdf5-mpi-device-{np}"));
        let r = mpirun_env(&exe, np, &["device"], &dir, &[("OP2_RS_DEVICE", "host")]);
        all_pass(
            &r,
            &[
                "device_copies",
                "device_newer",
                "dump_writes_device_values",
                "device_newer_again",
                "fetch_writes_device_values",
            ],
            &format!("{np} ranks"),
        );
    }
}

/// c-examples/mpi/partition_quality.cpp against libop2_mpi.a.
fn partition_quality() -> PathBuf {
    let exe = out_dir().join("partition_quality");
    ok_build(
        "partition_quality.cpp",
        mpicxx()
            .arg(root().join("c-examples/mpi/partition_quality.cpp"))
            .arg(lib_dir().join("libop2_mpi.a"))
            .arg(format!("-L{PARALLEL_HDF5}"))
            .args(["-lhdf5", "-lpthread", "-ldl", "-lm", "-o"])
            .arg(&exe),
    );
    exe
}

/// The benchmark program behind BENCHMARKS.md's partition-quality table
/// (scripts/bench_partition_quality.sh) counts the cut edges with a loop of
/// its own: its count must be the library's (the OP_diags quality line), for
/// the distributed k-way, geometric and replicated phases, and its cells
/// must add up to the file's.
#[test]
fn partition_quality_program_agrees_with_the_library() {
    let dir = out_dir().join("runs/hdf5-mpi-quality");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mesh2hdf5 = serial_tool("mesh2hdf5", "c-examples/hdf5/mesh2hdf5.cpp");
    run_in(&mesh2hdf5, &["--cells=3000", "-o", "gen.h5"], &dir, &[]).ok();
    let exe = partition_quality();
    let field = |l: &str, key: &str| -> String {
        let mut w = l.split_whitespace().skip_while(|w| *w != key);
        w.nth(1)
            .unwrap_or_default()
            .trim_end_matches(',')
            .to_string()
    };
    for (name, env) in [
        ("PTSCOTCH", ("OP2_PARTITION", "")),
        ("GEOM", ("OP2_PARTITION", "")),
        ("PTSCOTCH", ("OP2_PARTITION", "replicated")),
    ] {
        let r = mpirun_env(&exe, 3, &["gen.h5", name, "KWAY", "1"], &dir, &[env]);
        r.ok();
        let ours = r
            .stdout
            .lines()
            .find(|l| l.starts_with("quality:"))
            .unwrap_or_else(|| panic!("{name}: no quality line\n{}", r.stdout));
        let lib = r
            .stdout
            .lines()
            .find(|l| l.contains("op_partition: set \"cells\""))
            .unwrap_or_else(|| panic!("{name}: no OP_diags line\n{}", r.stdout));
        let cut = field(ours, "edge_cut");
        assert!(cut.parse::<u32>().is_ok_and(|c| c > 0), "{ours}");
        assert_eq!(cut, field(lib, "cut"), "{name} {env:?}:\n{ours}\n{lib}");
        let phases = if env.1.is_empty() {
            "distributed"
        } else {
            "replicated"
        };
        assert!(lib.contains(&format!("({phases} phases")), "{lib}");
        assert_eq!(field(ours, "ranks"), "3", "{ours}");
        assert_eq!(field(ours, "cells"), "3042", "{ours}");
    }
}
