//! OP2's Fortran API (fortran/*.F90) built with gfortran and linked against
//! the libraries:
//! * the modules compile warning-free (`-Wall`) and their generated parts are
//!   up to date with fortran/gen_*.py;
//! * the Fortran airfoil (fortran/examples/airfoil) prints the same result
//!   lines as the C airfoil (c-examples) on a meshgen mesh and writes a
//!   bitwise identical final q with libop2_seq; with libop2_openmp its rms
//!   history agrees to 1e-10;
//! * the feature tests (tests/fortran/features.F90: gbl reductions, op_arg_idx,
//!   optional args, temporary dats, fetches, raw-array args, ...) all PASS
//!   with both libraries.
//!
//! gfortran is required (the test command installs it). Set
//! OP2_SKIP_FORTRAN=1 to skip these tests explicitly when it is unavailable.

use op2_tests::{build_once, lib_dir, out_dir, root, run_in, Lang, Program, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// gfortran is usable; false (with a message) only when skipping was asked for.
fn have_gfortran() -> bool {
    let ok = Command::new("gfortran")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        return true;
    }
    if std::env::var_os("OP2_SKIP_FORTRAN").is_some() {
        eprintln!("SKIPPED: gfortran not found and OP2_SKIP_FORTRAN is set");
        return false;
    }
    panic!(
        "gfortran not found: install it (apt-get install gfortran), \
         or set OP2_SKIP_FORTRAN=1 to skip the Fortran tests"
    );
}

fn fortran_dir() -> PathBuf {
    let d = out_dir().join("fortran");
    std::fs::create_dir_all(&d).unwrap();
    d
}

const FFLAGS: &[&str] = &["-O2", "-Wall", "-ffp-contract=off"];

/// Run gfortran with `args` in the build directory; panics on failure or on
/// any warning.
fn gfortran(what: &str, args: &[&str]) {
    let mut cmd = Command::new("gfortran");
    cmd.args(FFLAGS).args(args).current_dir(fortran_dir());
    let out = cmd.output().expect("run gfortran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "compiling {what} failed:\n{cmd:?}\n{stderr}"
    );
    assert!(
        !stderr.to_lowercase().contains("warning"),
        "compiling {what} gave warnings:\n{stderr}"
    );
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// The three modules compiled into fortran_dir() (objects and .mod files).
fn modules() -> Vec<PathBuf> {
    static OBJS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    OBJS.get_or_init(|| {
        let dir = fortran_dir();
        let mut objs = Vec::new();
        for m in [
            "op2_for_declarations",
            "op2_for_reference",
            "op2_for_rt_support",
        ] {
            let src = root().join("fortran").join(format!("{m}.F90"));
            let obj = dir.join(format!("{m}.o"));
            gfortran(
                m,
                &[
                    "-J",
                    &path_str(&dir),
                    "-c",
                    &path_str(&src),
                    "-o",
                    &path_str(&obj),
                ],
            );
            objs.push(obj);
        }
        objs
    })
    .clone()
}

/// A Fortran program: `kernels` (a module file) and `main`, linked with the
/// modules and `lib` (static archive).
fn fortran_program(name: &str, kernels: &str, main: &str, lib: &str) -> PathBuf {
    let dir = fortran_dir();
    let mods = modules();
    let archive = lib_dir().join(format!("lib{lib}.a"));
    assert!(
        archive.exists(),
        "{} is missing: build the libraries first (cargo build --release)",
        archive.display()
    );
    let kobj = dir.join(format!("{name}_kernels.o"));
    gfortran(
        kernels,
        &[
            "-J",
            &path_str(&dir),
            "-c",
            &path_str(&root().join(kernels)),
            "-o",
            &path_str(&kobj),
        ],
    );
    let exe = dir.join(format!("{name}-{lib}"));
    let mut args: Vec<String> = vec![
        format!("-I{}", dir.display()),
        "-J".into(),
        path_str(&dir),
        "-rdynamic".into(),
        path_str(&root().join(main)),
        path_str(&kobj),
    ];
    args.extend(mods.iter().map(|m| path_str(m)));
    args.push(path_str(&archive));
    args.extend(["-lpthread", "-ldl", "-lm", "-o"].map(String::from));
    args.push(path_str(&exe));
    let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    gfortran(main, &refs);
    exe
}

/// Build each Fortran program once per test process. The kernels' module
/// files share one directory, so the builds are serialised.
fn built(name: &str, kernels: &str, main: &str, lib: &str) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    static DONE: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{name}-{lib}");
    if let Some((_, p)) = DONE.lock().unwrap().iter().find(|(k, _)| *k == key) {
        return p.clone();
    }
    let p = fortran_program(name, kernels, main, lib);
    DONE.lock().unwrap().push((key, p.clone()));
    p
}

fn fortran_airfoil(lib: &str) -> PathBuf {
    built(
        "f_airfoil",
        "fortran/examples/airfoil/airfoil_kernels.F90",
        "fortran/examples/airfoil/airfoil.F90",
        lib,
    )
}

fn fortran_features(lib: &str) -> PathBuf {
    built(
        "f_features",
        "tests/fortran/features_kernels.F90",
        "tests/fortran/features.F90",
        lib,
    )
}

const MESH: &str = "c-examples/common/naca_mesh.c";

fn c_airfoil() -> PathBuf {
    build_once(
        &Program::new(
            "f_cmp_airfoil",
            Lang::Cxx17,
            &["c-examples/airfoil/airfoil.cpp", MESH],
        )
        .include("c-examples/common")
        .include("c-examples/airfoil"),
    )
}

fn meshgen() -> PathBuf {
    build_once(
        &Program::new(
            "f_cmp_meshgen",
            Lang::C99,
            &["c-examples/meshgen/meshgen.c", MESH],
        )
        .include("c-examples/common"),
    )
}

fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The mesh file (3042 cells) written by meshgen, shared by the airfoil tests.
fn mesh_file() -> PathBuf {
    static MESH_FILE: OnceLock<PathBuf> = OnceLock::new();
    MESH_FILE
        .get_or_init(|| {
            let dir = scratch("f-mesh");
            run_in(
                &meshgen(),
                &["--cells", "3000", "-o", "grid.dat"],
                &dir,
                &[],
            )
            .ok();
            dir.join("grid.dat")
        })
        .clone()
}

/// Result lines: without OP2's banner, timing table and run time.
fn result_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| {
            !(l.trim().is_empty()
                || l.contains("Initializing OP2")
                || l.contains("runtime")
                || l.contains(';')
                || l.starts_with("  count ")
                || l.starts_with(" ---"))
        })
        .collect()
}

/// The " iter  rms " lines as (iter, rms).
fn rms_history(stdout: &str) -> Vec<(u32, f64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let it = w.next()?.parse().ok()?;
            let rms = w.next()?.parse().ok()?;
            w.next().is_none().then_some((it, rms))
        })
        .collect()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn airfoil_args(mesh: &Path) -> Vec<String> {
    vec![path_str(mesh), "--iters=300".into(), "--out=q.bin".into()]
}

fn run_args(exe: &Path, args: &[String], dir: &Path, env: &[(&str, &str)]) -> Run {
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_in(exe, &a, dir, env)
}

/// Same result lines (grid sizes, rms every 100 steps, q sums) and the same
/// final q, bit for bit, as the C airfoil with the sequential library.
#[test]
fn fortran_airfoil_matches_c_airfoil() {
    if !have_gfortran() {
        return;
    }
    let mesh = mesh_file();
    let args = airfoil_args(&mesh);
    let cdir = scratch("f-airfoil-c");
    let fdir = scratch("f-airfoil-f");
    let c = run_args(&c_airfoil(), &args, &cdir, &[]);
    let f = run_args(&fortran_airfoil("op2_seq"), &args, &fdir, &[]);
    c.ok();
    f.ok();
    let (lc, lf) = (result_lines(&c.stdout), result_lines(&f.stdout));
    assert!(lc.len() >= 8, "too little C output:\n{}", c.stdout);
    assert_eq!(lf, lc, "Fortran airfoil vs C airfoil");
    assert_eq!(rms_history(&f.stdout).len(), 3, "{}", f.stdout);
    let qf = read(&fdir.join("q.bin"));
    assert_eq!(qf.len(), 8 + 3042 * 4 * 8, "count, dim, 3042 cells x 4");
    assert!(qf == read(&cdir.join("q.bin")), "final q differs");
    // the kernels are named in the timing table (-rdynamic)
    for k in ["save_soln", "adt_calc", "res_calc", "bres_calc", "update"] {
        assert!(
            f.stdout.lines().any(|l| l.contains(';') && l.contains(k)),
            "kernel {k} missing from the timing table:\n{}",
            f.stdout
        );
    }
}

/// With the threaded library the OP_INC order changes: the history agrees
/// with the sequential C run to 1e-10 (relative).
#[test]
fn fortran_airfoil_openmp_close_to_seq() {
    if !have_gfortran() {
        return;
    }
    let mesh = mesh_file();
    let args = airfoil_args(&mesh);
    let c = run_args(&c_airfoil(), &args, &scratch("f-airfoil-c-omp-ref"), &[]);
    let f = run_args(
        &fortran_airfoil("op2_openmp"),
        &args,
        &scratch("f-airfoil-f-omp"),
        &[("OMP_NUM_THREADS", "4")],
    );
    c.ok();
    f.ok();
    let (hc, hf) = (rms_history(&c.stdout), rms_history(&f.stdout));
    assert_eq!(hc.len(), 3, "{}", c.stdout);
    assert_eq!(hf.len(), hc.len(), "{}", f.stdout);
    for ((ic, rc), (jf, rf)) in hc.iter().zip(&hf) {
        assert_eq!(ic, jf);
        assert!(
            ((rc - rf) / rc).abs() < 1e-10,
            "iter {ic}: rms {rf:e} (openmp) vs {rc:e} (seq)"
        );
    }
}

fn assert_features_pass(r: &Run) {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status, Some(0), "{ctx}");
    assert!(!r.stdout.contains("FAIL"), "{ctx}");
    assert!(r.stdout.lines().any(|l| l == "ALL PASSED"), "{ctx}");
    let passes = r.stdout.lines().filter(|l| l.starts_with("PASS: ")).count();
    assert!(passes >= 50, "only {passes} checks ran\n{ctx}");
}

/// Every feature check passes with the sequential library.
#[test]
fn fortran_features_seq() {
    if !have_gfortran() {
        return;
    }
    let r = run_in(
        &fortran_features("op2_seq"),
        &[],
        &scratch("f-features-seq"),
        &[],
    );
    assert_features_pass(&r);
}

/// ... and with the threaded library.
#[test]
fn fortran_features_openmp() {
    if !have_gfortran() {
        return;
    }
    let r = run_in(
        &fortran_features("op2_openmp"),
        &[],
        &scratch("f-features-omp"),
        &[("OMP_NUM_THREADS", "3")],
    );
    assert_features_pass(&r);
}

/// The generated parts of the modules are what fortran/gen_*.py produce
/// (gen_declarations.py: op2_for_declarations.F90 and
/// op2_for_hdf5_declarations.F90; gen_reference.py: op2_for_reference.F90).
#[test]
fn fortran_generated_sources_up_to_date() {
    for script in ["gen_declarations.py", "gen_reference.py"] {
        let out = Command::new("python3")
            .arg(root().join("fortran").join(script))
            .arg("--check")
            .output()
            .expect("run python3");
        assert!(
            out.status.success(),
            "{script} --check: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// OP2's helpers for library-held data from Fortran
/// (tests/fortran/data_helpers.F90: overlays, data/map pointers, registry,
/// copies, write_index, the switches), and op_print_dat_to_txtfile2 writes
/// what op_print_dat_to_txtfile writes.
#[test]
fn fortran_data_helpers() {
    if !have_gfortran() {
        return;
    }
    let exe = built(
        "f_data_helpers",
        "tests/fortran/data_helpers_kernels.F90",
        "tests/fortran/data_helpers.F90",
        "op2_seq",
    );
    let dir = scratch("f-data-helpers");
    let r = run_in(&exe, &[], &dir, &[]);
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status, Some(0), "{ctx}");
    assert!(!r.stdout.contains("FAIL"), "{ctx}");
    assert!(r.stdout.lines().any(|l| l == "ALL PASSED"), "{ctx}");
    assert_eq!(
        r.stdout.lines().filter(|l| l.starts_with("PASS: ")).count(),
        15,
        "{ctx}"
    );
    let two = read(&dir.join("f_idx2.txt"));
    assert_eq!(two, read(&dir.join("f_idx_ref.txt")));
    assert!(String::from_utf8_lossy(&two).contains('6'));
}
