//! Device loops of unchanged op_seq.h MPI programs. libop2_mpi_opencl:
//! every rank's loops on an OpenCL device (PoCL's CPU device here), each
//! loop's code written at run time as on libop2_opencl; halo rows travel
//! through the host. c-examples' MPI programs built exactly as for
//! libop2_mpi: mpi_reduce (reductions of every type and access checked
//! exactly, against values computed from the global mesh, including a
//! loop whose exec halo runs: owned elements reduce once, halo elements
//! never; the data changed between rounds by device loops, so halos must
//! be refreshed), mpi_features (halo exchanges, increments, fetches),
//! mpi_partial (OP_PARTIAL_EXCHANGE) and
//! airfoil_mpi (every iteration's rms against libop2_mpi's run on the same
//! partition). Every loop must report that it ran on the device.
//! libop2_mpi_cuda: the same loops compiled by NVRTC on every rank (on the
//! simulated device, where they then run on the host).

use op2_tests::{
    cuda_emu_dir, elf_images, lib_dir, mpirun, nvrtc_dir, out_dir, placements, root, Run,
};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A C++ MPI program (sources relative to the workspace root) linked with
/// the static library `lib` (`op2_mpi` or `op2_mpi_opencl`).
fn build(name: &str, sources: &[&str], include_dirs: &[&str], lib: &str) -> PathBuf {
    let exe = out_dir().join(format!("{name}-{lib}"));
    let mut cmd = Command::new("mpicxx");
    cmd.args([
        "-DOMPI_SKIP_MPICXX",
        "-std=c++17",
        "-O2",
        "-g",
        "-Wall",
        "-Wextra",
        "-ffp-contract=off",
    ])
    .arg(format!("-I{}", root().join("include").display()));
    for d in include_dirs {
        cmd.arg(format!("-I{}", root().join(d).display()));
    }
    for s in sources {
        cmd.arg(root().join(s));
    }
    cmd.arg(lib_dir().join(format!("lib{lib}.a")))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    let out = cmd.output().expect("run mpicxx");
    assert!(
        out.status.success(),
        "{cmd:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// `mpirun -np N exe args` in a fresh directory `tag`, with the device's
/// compiled-program cache shared by the tests and the placement table at
/// op_exit (OP2_RS_DEVICE_STATS).
fn run_np(exe: &Path, np: usize, args: &[&str], tag: &str) -> (Run, PathBuf) {
    mpirun_env(exe, np, args, tag, &out_dir().join("opencl-cache"), &[])
}

/// [`mpirun`] with the cache `cache` and more variables.
fn mpirun_env(
    exe: &Path,
    np: usize,
    args: &[&str],
    tag: &str,
    cache: &Path,
    env: &[(&str, &str)],
) -> (Run, PathBuf) {
    let dir = out_dir().join("runs").join("mpi-device").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    let cache = cache.to_str().unwrap();
    let mut all = vec![("OP2_RS_CACHE_DIR", cache), ("OP2_RS_DEVICE_STATS", "1")];
    all.extend_from_slice(env);
    (mpirun(exe, np, args, &dir, 600, &all), dir)
}

fn ctx(r: &Run) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        r.status, r.stdout, r.stderr
    )
}

/// Every loop on the device, except those named in `host` (with the
/// reason's start).
fn on_device(r: &Run, loops: usize, host: &[(&str, &str)]) {
    let p = placements(&r.stdout);
    assert_eq!(p.len(), loops, "placement table:\n{}", ctx(r));
    for (name, place) in &p {
        match host.iter().find(|(n, _)| n == name) {
            Some((_, why)) => assert!(place.starts_with(why), "{name}: {place}"),
            None => assert_eq!(place, "device", "loop {name}:\n{}", ctx(r)),
        }
    }
}

/// mpi_reduce on 2 and 3 ranks: every check passes (exact values) with its
/// loops on the device, `bools` (bool reductions of each kind) among them;
/// `direct`/`indirect` (a struct type the device code does not know) run
/// on the host, beside device loops that write the same dats.
#[test]
fn reductions_and_exec_halos_on_the_device_over_ranks() {
    let exe = build(
        "mpi_reduce",
        &["c-examples/mpi/mpi_reduce.cpp"],
        &[],
        "op2_mpi_opencl",
    );
    for np in [2, 3] {
        let (r, _) = run_np(&exe, np, &["--part=RANDOM"], &format!("reduce-np{np}"));
        assert_eq!(r.status, Some(0), "{}", ctx(&r));
        assert!(r.stdout.lines().any(|l| l == "PASSED"), "{}", ctx(&r));
        assert!(!r.stdout.contains("FAIL"), "{}", ctx(&r));
        on_device(
            &r,
            8,
            &[
                ("direct", "host (the OpenCL compiler rejected"),
                ("indirect", "host (the OpenCL compiler rejected"),
            ],
        );
    }
}

/// mpi_features on 3 ranks: every check passes, every loop on the device.
#[test]
fn halo_exchanges_increments_and_fetches_on_the_device_over_ranks() {
    let exe = build(
        "mpi_features",
        &["c-examples/mpi/mpi_features.cpp"],
        &[],
        "op2_mpi_opencl",
    );
    let (r, _) = run_np(&exe, 3, &["--part=RANDOM"], "features-np3");
    assert_eq!(r.status, Some(0), "{}", ctx(&r));
    assert!(!r.stdout.contains("FAIL"), "{}", ctx(&r));
    assert!(r.stdout.contains("PASS "), "{}", ctx(&r));
    on_device(&r, 10, &[]);
}

/// mpi_partial with and without OP_PARTIAL_EXCHANGE on 3 ranks (a dat read
/// only through a sparse map; with the flag only the rows it reaches are
/// exchanged, and those go up to the device): its check passes, both loops
/// on the device.
#[test]
fn partial_halo_exchanges_reach_the_device() {
    let exe = build(
        "mpi_partial",
        &["c-examples/mpi/mpi_partial.cpp"],
        &[],
        "op2_mpi_opencl",
    );
    for (flag, tag) in [
        (None, "partial-off"),
        (Some("OP_PARTIAL_EXCHANGE"), "partial-on"),
    ] {
        let (r, _) = run_np(&exe, 3, flag.as_slice(), tag);
        assert_eq!(r.status, Some(0), "{}", ctx(&r));
        assert!(r.stdout.lines().any(|l| l == "PASSED"), "{}", ctx(&r));
        on_device(&r, 2, &[]);
    }
}

fn rms(dir: &Path) -> Vec<f64> {
    std::fs::read_to_string(dir.join("rms.txt"))
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

/// A figure of the transfer report rank 0 printed at op_exit.
fn moved(r: &Run, name: &str) -> u64 {
    let line = r.stdout.lines().find(|l| l.contains("device transfers:"));
    let field = line.and_then(|l| {
        l.split(' ')
            .find_map(|w| w.strip_prefix(&format!("{name}=")[..]))
    });
    field
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in the transfer report:\n{}", ctx(r)))
}

/// airfoil_mpi on 2 ranks (RANDOM partition, 3,000 cells, 100 iterations)
/// built as `name` on the device library `lib` and on libop2_mpi: its own
/// checks pass and every iteration's rms is libop2_mpi's to 1e-12 relative
/// (the device sums a loop's rms in another order), with all five loops on
/// the device; the rows each exchange sends are gathered on the device
/// (never the whole dat brought down), with the dats' device copies AoS
/// and, with OP_AUTO_SOA, SoA (transposed rows gathered and halo rows
/// uploaded per component); with two-level colouring (the core colours run
/// while the halos travel) and with atomics (the work-groups below the
/// core, then the wait, then the rest). Each device run has the variables
/// `env` too and passes `check`.
fn airfoil_over_two_ranks(
    name: &str,
    lib: &str,
    cache: &Path,
    env: &[(&str, &str)],
    check: &dyn Fn(&str, &Run),
) {
    let sources = &[
        "c-examples/airfoil/airfoil_mpi.cpp",
        "c-examples/common/naca_mesh.c",
    ];
    let inc = &["c-examples/common", "c-examples/airfoil"];
    let dev = build(name, sources, inc, lib);
    let host = build(name, sources, inc, "op2_mpi");
    let args = [
        "--cells=3000",
        "--iters=100",
        "--part=RANDOM",
        "--rms=rms.txt",
    ];
    let (rh, dh) = run_np(&host, 2, &args, &format!("{name}-host"));
    assert_eq!(rh.status, Some(0), "{}", ctx(&rh));
    let variants: [(&str, &[(&str, &str)]); 3] = [
        ("", &[]),
        ("-soa", &[("OP_AUTO_SOA", "1")]),
        ("-atomics", &[("OP2_RS_CONFLICTS", "atomics")]),
    ];
    for (suffix, vars) in variants {
        let tag = format!("{name}-{lib}{suffix}");
        let mut all = env.to_vec();
        all.extend_from_slice(vars);
        let (rd, dd) = mpirun_env(&dev, 2, &args, &tag, cache, &all);
        assert_eq!(rd.status, Some(0), "{tag}: {}", ctx(&rd));
        assert!(rd.stdout.contains("checks: OK"), "{}", ctx(&rd));
        on_device(&rd, 5, &[]);
        assert!(moved(&rd, "halo_downloads") >= 100, "{}", ctx(&rd));
        assert!(moved(&rd, "dat_downloads") < 10, "{}", ctx(&rd));
        // SoA copies are transposed at placement (thousands of values: far
        // from the report's 0.000 ms)
        let untransposed = rd.stdout.contains(" soa_transpose_ms=0.000");
        assert_eq!(
            untransposed,
            suffix != "-soa",
            "{tag}: SoA copies: {}",
            ctx(&rd)
        );
        let (a, b) = (rms(&dd), rms(&dh));
        assert_eq!(a.len(), 100);
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * y.abs(),
                "{tag}, iteration {}: {x:e} on the device, {y:e} on host threads",
                i + 1
            );
        }
        check(&tag, &rd);
    }
}

/// [`airfoil_over_two_ranks`] on libop2_mpi_opencl (PoCL's CPU device).
#[test]
fn airfoil_over_ranks_on_the_device_as_on_host_threads() {
    let cache = out_dir().join("opencl-cache");
    airfoil_over_two_ranks("airfoil_mpi", "op2_mpi_opencl", &cache, &[], &|_, _| {});
}

/// [`airfoil_over_two_ranks`] on libop2_mpi_cuda, each rank with an
/// emulated GPU (scripts/cuda_emu.sh: CUDA kernels run on the host; not a
/// GPU), each rank's emulated driver running the library's CUDA row
/// gather. Built under its own name: the test above builds airfoil_mpi at
/// the same time.
#[test]
fn airfoil_over_ranks_on_emulated_cuda_devices() {
    let cache = out_dir().join("cuda-emu-cache");
    let env = [("LD_LIBRARY_PATH", cuda_emu_dir()), ("OP2EMU_STATS", "1")];
    airfoil_over_two_ranks(
        "airfoil_mpi_emu",
        "op2_mpi_cuda",
        &cache,
        &env,
        &|tag, rd| {
            assert!(rd.stdout.contains("op2-rs CUDA emulator"), "{}", ctx(rd));
            let gathers = rd
                .stderr
                .lines()
                .filter(|l| l.starts_with("op2-rs CUDA emulator: launches:"))
                .filter(|l| l.contains(" op2rs_gather_rows="))
                .count();
            assert_eq!(gathers, 2, "{tag}: {}", ctx(rd));
        },
    );
}

/// mpi_reduce on libop2_mpi_cuda, 2 ranks, simulated device with
/// OP2_RS_CUDA_ARCH=sm_90: each loop the generator can write is compiled by
/// NVRTC (6 cubins, `bools` among them), then runs on the host; every
/// check passes.
#[test]
fn mpi_cuda_compiles_op_seq_loops_with_nvrtc_on_every_rank() {
    let exe = build(
        "mpi_reduce",
        &["c-examples/mpi/mpi_reduce.cpp"],
        &[],
        "op2_mpi_cuda",
    );
    let cache = out_dir().join("runs").join("mpi-device-cubins");
    let _ = std::fs::remove_dir_all(&cache);
    let (r, _) = mpirun_env(
        &exe,
        2,
        &["--part=RANDOM"],
        "reduce-cuda-np2",
        &cache,
        &[
            ("OP2_RS_DEVICE", "host"),
            ("OP2_RS_CUDA_ARCH", "sm_90"),
            ("LD_LIBRARY_PATH", nvrtc_dir()),
        ],
    );
    assert_eq!(r.status, Some(0), "{}", ctx(&r));
    assert!(r.stdout.lines().any(|l| l == "PASSED"), "{}", ctx(&r));
    let compiled = r
        .stdout
        .lines()
        .filter(|l| l.contains("runs on the host: compiled for sm_90 by NVRTC"))
        .count();
    assert_eq!(compiled, 6, "{}", ctx(&r));
    assert_eq!(elf_images(&cache), 6);
}
