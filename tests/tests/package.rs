//! The installed package: CMakeLists.txt configures, builds (cargo, reusing
//! the workspace's target/) and installs op2-rs into
//! target/op2-tests/pkg/prefix; then the external projects of tests/package/
//! are built against that prefix only and run:
//!
//! * cmake_app: find_package(OP2) + OP2::op2_openmp / op2_seq /
//!   op2_seq_shared (C++) and a C99 program on OP2::op2_openmp;
//! * make_app: a Makefile using `pkg-config --cflags --libs op2_seq` (shared,
//!   rpath from the .pc file's libdir) and the `staticlibs` variable (archive);
//! * fortran_app (when fortran/ has the OP2 modules): OP2::op2_for_seq and
//!   OP2::op2_for_openmp with the installed .mod files, and the same program
//!   built with `pkg-config op2_for_seq`.
//!
//! Each program checks an indirect OP_INC loop and global reductions against
//! plain loops and prints PASSED. cmake, pkg-config and gfortran must be
//! installed (scripts/test.sh installs them).

use op2_tests::{out_dir, root, run_in};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `name`, after checking that it runs; panics if it is missing.
fn tool(name: &'static str) -> &'static str {
    let found = Command::new(name)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "{name} not found: scripts/test.sh installs it (apt-get install -y {name})"
    );
    name
}

/// Run a command; Err with the command and its output if it fails.
fn try_run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({})\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(stdout)
}

fn run(cmd: &mut Command) -> String {
    try_run(cmd).unwrap_or_else(|e| panic!("{e}"))
}

/// fortran/ holds the OP2 Fortran modules (written by another part of the
/// project; the Fortran tests are skipped until it does).
fn have_fortran_sources() -> bool {
    root().join("fortran/op2_for_declarations.F90").exists()
}

fn pkg_dir() -> PathBuf {
    out_dir().join("pkg")
}

/// Configure, build and install op2-rs with CMake, once per test process;
/// returns the install prefix.
fn installed() -> &'static Path {
    static PREFIX: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = PREFIX.get_or_init(|| {
        tool("cmake");
        if have_fortran_sources() {
            tool("gfortran");
        }
        install()
    });
    match r {
        Ok(p) => p,
        Err(e) => panic!("installing the CMake package failed:\n{e}"),
    }
}

fn install() -> Result<PathBuf, String> {
    let build = pkg_dir().join("build");
    let prefix = pkg_dir().join("prefix");
    let _ = std::fs::remove_dir_all(&prefix);
    // The libraries cargo builds for CMake: the workspace's own target dir, so
    // the build is a no-op after `cargo build --release` (scripts/test.sh).
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    try_run(
        Command::new("cmake")
            .arg("-S")
            .arg(root())
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_INSTALL_PREFIX={}", prefix.display()))
            .arg("-DCMAKE_INSTALL_LIBDIR=lib")
            .arg(format!("-DOP2_CARGO={}", env!("CARGO")))
            .arg(format!("-DOP2_CARGO_TARGET_DIR={}", target_dir.display())),
    )?;
    try_run(
        Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .args(["--parallel", "4"]),
    )?;
    // Install to another prefix than the configured one, as users do.
    try_run(
        Command::new("cmake")
            .arg("--install")
            .arg(&build)
            .arg("--prefix")
            .arg(&prefix),
    )?;
    Ok(prefix)
}

/// Configure and build an external CMake project of tests/package/ against
/// the installed package; returns its build directory.
fn build_cmake_project(name: &str) -> PathBuf {
    let prefix = installed();
    let build = pkg_dir().join(name);
    let _ = std::fs::remove_dir_all(&build);
    run(Command::new(tool("cmake"))
        .arg("-S")
        .arg(root().join("tests/package").join(name))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())));
    run(Command::new("cmake")
        .arg("--build")
        .arg(&build)
        .args(["--parallel", "4"]));
    build
}

/// Run a test program (OMP_NUM_THREADS=2); it must exit 0 and print PASSED.
fn expect_passed(exe: &Path) {
    assert!(exe.exists(), "{} was not built", exe.display());
    let tag = exe.file_name().unwrap().to_string_lossy().into_owned();
    let cwd = pkg_dir().join("runs").join(tag);
    let r = run_in(exe, &[], &cwd, &[("OMP_NUM_THREADS", "2")]);
    r.ok();
    assert!(
        r.stdout.lines().any(|l| l.trim() == "PASSED"),
        "{} did not print PASSED:\n{}\n{}",
        exe.display(),
        r.stdout,
        r.stderr
    );
}

fn workspace_version() -> String {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let pkg = toml.split("[workspace.package]").nth(1).unwrap();
    let line = pkg
        .lines()
        .find(|l| l.trim_start().starts_with("version"))
        .unwrap();
    line.split('"').nth(1).unwrap().to_string()
}

#[test]
fn install_layout() {
    let p = installed();
    for h in std::fs::read_dir(root().join("include")).unwrap() {
        let h = h.unwrap().file_name();
        assert!(
            p.join("include").join(&h).exists(),
            "include/{} not installed",
            h.to_string_lossy()
        );
    }
    let mut files = vec![
        "lib/libop2_seq.a",
        "lib/libop2_seq.so",
        "lib/libop2_openmp.a",
        "lib/libop2_openmp.so",
        "lib/libop2_cuda.a",
        "lib/libop2_cuda.so",
        "lib/pkgconfig/op2_cuda.pc",
        "lib/libop2_opencl.a",
        "lib/libop2_opencl.so",
        "lib/pkgconfig/op2_opencl.pc",
        "lib/cmake/OP2/OP2Config.cmake",
        "lib/cmake/OP2/OP2ConfigVersion.cmake",
        "lib/pkgconfig/op2_seq.pc",
        "lib/pkgconfig/op2_openmp.pc",
    ];
    if have_fortran_sources() {
        files.extend([
            "lib/libop2_for_seq.a",
            "lib/libop2_for_openmp.a",
            "lib/pkgconfig/op2_for_seq.pc",
            "lib/pkgconfig/op2_for_openmp.pc",
            "lib/op2/mod/op2_fortran_declarations.mod",
            "lib/op2/mod/op2_fortran_reference.mod",
            "lib/op2/mod/op2_fortran_rt_support.mod",
            "lib/op2/mod/op2_fortran_hdf5_declarations.mod",
        ]);
    }
    for f in files {
        assert!(p.join(f).exists(), "{f} not installed in {}", p.display());
    }
    // with the serial HDF5 (libop2_hdf5 built) the op2rs tool is installed
    if p.join("lib/libop2_hdf5.a").exists() {
        let help = run(Command::new(p.join("bin/op2rs")).arg("--help"));
        for cmd in ["info", "vtk", "partition", "report"] {
            assert!(help.contains(cmd), "bin/op2rs --help lacks {cmd}:\n{help}");
        }
    }
    let version = std::fs::read_to_string(p.join("lib/cmake/OP2/OP2ConfigVersion.cmake")).unwrap();
    assert!(
        version.contains(&format!("\"{}\"", workspace_version())),
        "OP2ConfigVersion.cmake does not carry the workspace version {}",
        workspace_version()
    );
}

#[test]
fn cmake_find_package_cxx_and_c() {
    let b = build_cmake_project("cmake_app");
    for exe in ["app", "app_seq", "app_shared", "app_c"] {
        expect_passed(&b.join(exe));
    }
}

/// find_package(OP2 COMPONENTS cuda): OP2::op2_cuda and its shared twin
/// link a program that runs on the simulated device and stops cleanly
/// without one; pkg-config finds op2_cuda too.
#[test]
fn cmake_and_pkg_config_cuda() {
    let b = build_cmake_project("cuda_app");
    for exe in ["app_cuda", "app_cuda_shared"] {
        let exe = b.join(exe);
        let cwd = pkg_dir().join("runs").join(exe.file_name().unwrap());
        let r = run_in(&exe, &[], &cwd, &[("OP2_RS_DEVICE", "host")]);
        r.ok();
        assert!(
            r.stdout.lines().any(|l| l.trim() == "PASSED"),
            "{}",
            r.stdout
        );
        let r = run_in(&exe, &[], &cwd, &[]);
        if !std::path::Path::new("/usr/lib/x86_64-linux-gnu/libcuda.so.1").exists() {
            assert_eq!(r.status, Some(1), "{}", r.stderr);
            assert!(r.stderr.contains("no CUDA driver"), "{}", r.stderr);
        }
    }
    let prefix = installed();
    let flags = run(Command::new(tool("pkg-config"))
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .args(["--cflags", "--libs", "op2_cuda"]));
    let want = format!("-I{p}/include -L{p}/lib -lop2_cuda", p = prefix.display());
    assert_eq!(flags.split_whitespace().collect::<Vec<_>>().join(" "), want);
}

/// find_package(OP2 COMPONENTS opencl): OP2::op2_opencl and its shared
/// twin link an unchanged op_seq.h program whose loops run on the OpenCL
/// device (PoCL here) where their code can be written; pkg-config finds
/// op2_opencl too.
#[test]
fn cmake_and_pkg_config_opencl() {
    let b = build_cmake_project("opencl_app");
    for exe in ["app_opencl", "app_opencl_shared"] {
        let exe = b.join(exe);
        let cwd = pkg_dir().join("runs").join(exe.file_name().unwrap());
        let cache = pkg_dir().join("opencl-cache");
        // cargo test's LD_LIBRARY_PATH (target/debug/deps) would win over
        // the installed library's run path: the shared twin must load the
        // installed libop2_opencl.so
        let env = [
            ("OP2_RS_CACHE_DIR", cache.to_str().unwrap()),
            ("LD_LIBRARY_PATH", ""),
        ];
        let r = run_in(&exe, &[], &cwd, &env);
        r.ok();
        assert!(r.stdout.contains("PASSED (0 wrong values)"), "{}", r.stdout);
        assert!(
            r.stdout
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["doubled", "device"]),
            "{}",
            r.stdout
        );
    }
    let prefix = installed();
    let flags = run(Command::new(tool("pkg-config"))
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .args(["--cflags", "--libs", "op2_opencl"]));
    let want = format!("-I{p}/include -L{p}/lib -lop2_opencl", p = prefix.display());
    assert_eq!(flags.split_whitespace().collect::<Vec<_>>().join(" "), want);
}

#[test]
fn pkg_config_makefile() {
    let prefix = installed();
    let pc = tool("pkg-config");
    let pc_path = prefix.join("lib/pkgconfig");
    let flags = run(Command::new(pc)
        .env("PKG_CONFIG_PATH", &pc_path)
        .args(["--cflags", "--libs", "op2_seq"]));
    let want = format!("-I{p}/include -L{p}/lib -lop2_seq", p = prefix.display());
    assert_eq!(flags.split_whitespace().collect::<Vec<_>>().join(" "), want);
    let v = run(Command::new(pc)
        .env("PKG_CONFIG_PATH", &pc_path)
        .args(["--modversion", "op2_openmp"]));
    assert_eq!(v.trim(), workspace_version());

    // build in a copy, keeping the source tree clean
    let dir = pkg_dir().join("make_app");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["Makefile", "app.c"] {
        std::fs::copy(root().join("tests/package/make_app").join(f), dir.join(f)).unwrap();
    }
    run(Command::new(tool("make"))
        .arg("-C")
        .arg(&dir)
        .env("PKG_CONFIG_PATH", &pc_path));
    expect_passed(&dir.join("app"));
    expect_passed(&dir.join("app_static"));
}

#[test]
fn fortran_modules_cmake_and_pkg_config() {
    if !have_fortran_sources() {
        eprintln!("skipped: fortran/op2_for_declarations.F90 does not exist yet");
        return;
    }
    let prefix = installed();
    let b = build_cmake_project("fortran_app");
    expect_passed(&b.join("app"));
    expect_passed(&b.join("app_openmp"));

    // the same program through pkg-config
    let pc_path = prefix.join("lib/pkgconfig");
    let pc = |what: &str| -> Vec<String> {
        run(Command::new(tool("pkg-config"))
            .env("PKG_CONFIG_PATH", &pc_path)
            .args([what, "op2_for_seq"]))
        .split_whitespace()
        .map(String::from)
        .collect()
    };
    let dir = pkg_dir().join("fortran_pc");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("app");
    run(Command::new(tool("gfortran"))
        .current_dir(&dir)
        .args(pc("--cflags"))
        .arg(root().join("tests/package/fortran_app/app.F90"))
        .args(pc("--libs"))
        .arg("-o")
        .arg(&exe));
    expect_passed(&exe);
}

/// tests/package/mpi_app: find_package(OP2 COMPONENTS mpi) + OP2::op2_mpi (C++,
/// the program's own MPI calls included), run on 2 ranks: each rank declares
/// its block with global map indices, op_partition("PARMETIS", "KWAY"), an
/// indirect OP_INC loop and reductions checked against plain loops.
#[test]
fn cmake_mpi_app_cxx() {
    /// `timeout mpirun -np N exe`: exit 0 and PASSED printed once (rank 0).
    fn mpirun_passed(exe: &Path, np: usize) {
        assert!(exe.exists(), "{} was not built", exe.display());
        let tag = exe.file_name().unwrap().to_string_lossy().into_owned();
        let cwd = pkg_dir().join("runs").join(format!("mpi_app-{tag}"));
        std::fs::create_dir_all(&cwd).unwrap();
        let out = Command::new("timeout")
            .args(["-k", "5", "60", tool("mpirun")])
            .args(["--allow-run-as-root", "--oversubscribe"])
            .args(["--bind-to", "none", "-np", &np.to_string()])
            .arg(exe)
            .current_dir(&cwd)
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .output()
            .expect("run timeout/mpirun");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success(),
            "mpirun -np {np} {} failed ({}; 124 = timed out):\n{stdout}\n{stderr}",
            exe.display(),
            out.status
        );
        let passed = stdout.lines().filter(|l| l.trim() == "PASSED").count();
        assert_eq!(
            passed,
            1,
            "{}: PASSED once expected:\n{stdout}\n{stderr}",
            exe.display()
        );
    }
    let prefix = installed();
    assert!(
        prefix.join("lib/libop2_mpi.a").exists(),
        "libop2_mpi.a is not installed in {} (was MPI found when configuring?)",
        prefix.display()
    );
    let b = build_cmake_project("mpi_app");
    mpirun_passed(&b.join("app"), 2);

    // HDF5 under MPI: OP2::op2_mpi_hdf5 (libop2_mpi + the parallel HDF5),
    // and the same link line from pkg-config.
    let b = build_cmake_project("mpi_hdf5_app");
    mpirun_passed(&b.join("app"), 2);
    let flags = run(Command::new(tool("pkg-config"))
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .args(["--libs", "op2_mpi_hdf5"]));
    assert!(
        flags.contains("-lop2_mpi") && flags.contains("-lhdf5"),
        "pkg-config --libs op2_mpi_hdf5: {flags}"
    );
}

/// tests/package/fortran_mpi_app: OP2::op2_for_mpi from a Fortran-only CMake
/// project, run on 2 ranks: `app` owns MPI (use mpi, MPI_Init, op_mpi_init with
/// MPI_COMM_WORLD, MPI_Finalize), `app_op_init` leaves MPI to op_init/op_exit
/// and links nothing but OP2::op2_for_mpi.
#[test]
fn cmake_fortran_mpi_app() {
    /// `timeout mpirun -np N exe`: exit 0 and PASSED printed once (rank 0).
    fn mpirun_passed(exe: &Path, np: usize) {
        assert!(exe.exists(), "{} was not built", exe.display());
        let tag = exe.file_name().unwrap().to_string_lossy().into_owned();
        let cwd = pkg_dir()
            .join("runs")
            .join(format!("fortran_mpi_app-{tag}"));
        std::fs::create_dir_all(&cwd).unwrap();
        let out = Command::new("timeout")
            .args(["-k", "5", "60", tool("mpirun")])
            .args(["--allow-run-as-root", "--oversubscribe"])
            .args(["--bind-to", "none", "-np", &np.to_string()])
            .arg(exe)
            .current_dir(&cwd)
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .output()
            .expect("run timeout/mpirun");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success(),
            "mpirun -np {np} {} failed ({}; 124 = timed out):\n{stdout}\n{stderr}",
            exe.display(),
            out.status
        );
        let passed = stdout.lines().filter(|l| l.trim() == "PASSED").count();
        assert_eq!(
            passed,
            1,
            "{}: PASSED once expected:\n{stdout}\n{stderr}",
            exe.display()
        );
    }
    if !have_fortran_sources() {
        eprintln!("skipped: fortran/op2_for_declarations.F90 does not exist yet");
        return;
    }
    let prefix = installed();
    assert!(
        prefix.join("lib/libop2_for_mpi.a").exists(),
        "libop2_for_mpi.a is not installed in {} (was MPI found when configuring?)",
        prefix.display()
    );
    let b = build_cmake_project("fortran_mpi_app");
    mpirun_passed(&b.join("app"), 2);
    mpirun_passed(&b.join("app_op_init"), 2);
}

/// find_package(OP2 COMPONENTS seq hdf5): OP2::op2_hdf5 before OP2::op2_seq
/// (static and shared) writes and reads OP2's layout; pkg-config's op2_hdf5
/// gives OP2's link order and the serial HDF5.
#[test]
fn cmake_and_pkg_config_hdf5() {
    let b = build_cmake_project("hdf5_app");
    expect_passed(&b.join("app_hdf5"));
    expect_passed(&b.join("app_hdf5_shared"));
    let prefix = installed();
    let pc_path = prefix.join("lib/pkgconfig");
    let flags = run(Command::new(tool("pkg-config"))
        .env("PKG_CONFIG_PATH", &pc_path)
        .args(["--cflags", "--libs", "op2_hdf5", "op2_seq"]));
    let want = format!(
        "-I{p}/include -L{p}/lib -lop2_hdf5 -lop2_seq",
        p = prefix.display()
    );
    assert_eq!(flags.split_whitespace().collect::<Vec<_>>().join(" "), want);
    let s = run(Command::new(tool("pkg-config"))
        .env("PKG_CONFIG_PATH", &pc_path)
        .args(["--static", "--libs", "op2_hdf5"]));
    assert!(s.contains("-lhdf5"), "{s}");
}
