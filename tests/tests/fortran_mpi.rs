//! OP2's Fortran API over MPI: fortran/examples/airfoil/airfoil_mpi.F90
//! (rank 0 reads the mesh and scatters contiguous blocks with MPI_Scatterv,
//! maps with global indices, op_partition, the loops of the Fortran airfoil)
//! built with mpif90 against the Fortran modules and libop2_mpi.a, run with
//! `mpirun -np N` under `timeout`:
//!
//! * on 1, 2 and 3 ranks (PARMETIS KWAY) its printed rms lines (%10.5e) are
//!   those of the sequential Fortran airfoil (libop2_seq) on the same
//!   meshgen mesh, its final q (op_print_dat_to_binfile, gathered in the
//!   original order) and q sums agree with the sequential ones to 1e-12, and
//!   the rms of every iteration (--rms, %.17e) agrees with the one-rank run
//!   to 1e-12;
//! * the other partitioners (GEOM, INERTIAL with centroids, RANDOM, EXTERNAL
//!   with an owner dat, an unknown name that falls back) on 3 ranks;
//! * the application calling MPI_Init itself and handing MPI_COMM_WORLD to
//!   op_mpi_init_base (then MPI_Finalize after op_exit).
//!
//! The program checks itself too (global sizes, op_fetch_data against
//! op_fetch_data_idx, the same gathered q on every rank: "checks: OK").
//! gfortran, mpif90 and mpirun are required; set OP2_SKIP_FORTRAN=1 to skip
//! these tests explicitly when gfortran/mpif90 are unavailable.

use op2_tests::{build_once, lib_dir, out_dir, root, run_in, Lang, Program, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const ITERS: &str = "--iters=300";
const NITERS: usize = 300;
const TOL: f64 = 1e-12;
const TIMEOUT_SECS: u32 = 120;

/// gfortran and mpif90 run; false (with a message) only when skipping was
/// asked for.
fn have_tools() -> bool {
    let runs = |c: &str| {
        Command::new(c)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let missing: Vec<&str> = ["gfortran", "mpif90", "mpirun"]
        .into_iter()
        .filter(|c| !runs(c))
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("OP2_SKIP_FORTRAN").is_some() {
        eprintln!("SKIPPED: {missing:?} not found and OP2_SKIP_FORTRAN is set");
        return false;
    }
    panic!(
        "{missing:?} not found: install gfortran and an MPI (apt-get install gfortran \
         libopenmpi-dev openmpi-bin), or set OP2_SKIP_FORTRAN=1 to skip the Fortran tests"
    );
}

// ---------------------------------------------------------------------------
// building
// ---------------------------------------------------------------------------

fn build_dir() -> PathBuf {
    let d = out_dir().join("fortran_mpi");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// Run the Fortran compiler `fc` with the test flags in build_dir(); panics
/// on failure or on any warning.
fn compile(fc: &str, what: &str, args: &[String]) {
    let mut cmd = Command::new(fc);
    cmd.args(["-O2", "-Wall", "-ffp-contract=off"])
        .args(args)
        .current_dir(build_dir());
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {fc}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "compiling {what} failed:\n{cmd:?}\n{stderr}"
    );
    assert!(
        !stderr.to_lowercase().contains("warning"),
        "compiling {what} gave warnings:\n{cmd:?}\n{stderr}"
    );
}

/// The OP2 modules and the airfoil kernels, compiled once by mpif90 (the same
/// gfortran underneath, so the sequential airfoil links them too).
fn objects() -> &'static Vec<PathBuf> {
    static OBJS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    OBJS.get_or_init(|| {
        let dir = build_dir();
        let mut objs = Vec::new();
        for (name, src) in [
            ("op2_for_declarations", "fortran/op2_for_declarations.F90"),
            ("op2_for_reference", "fortran/op2_for_reference.F90"),
            ("op2_for_rt_support", "fortran/op2_for_rt_support.F90"),
            (
                "airfoil_kernels",
                "fortran/examples/airfoil/airfoil_kernels.F90",
            ),
        ] {
            let obj = dir.join(format!("{name}.o"));
            compile(
                "mpif90",
                name,
                &[
                    "-J".into(),
                    path_str(&dir),
                    "-c".into(),
                    path_str(&root().join(src)),
                    "-o".into(),
                    path_str(&obj),
                ],
            );
            objs.push(obj);
        }
        objs
    })
}

/// `main` linked with the modules, the kernels and lib<lib>.a by `fc`.
fn link(fc: &str, main: &str, lib: &str, exe_name: &str) -> PathBuf {
    let archive = lib_dir().join(format!("lib{lib}.a"));
    assert!(
        archive.exists(),
        "{} is missing: build the libraries first (cargo build --release)",
        archive.display()
    );
    let dir = build_dir();
    let exe = dir.join(exe_name);
    let mut args = vec![
        format!("-I{}", dir.display()),
        "-J".into(),
        path_str(&dir),
        "-rdynamic".into(),
        path_str(&root().join(main)),
    ];
    args.extend(objects().iter().map(|o| path_str(o)));
    args.push(path_str(&archive));
    args.extend(["-lpthread", "-ldl", "-lm", "-o"].map(String::from));
    args.push(path_str(&exe));
    compile(fc, main, &args);
    exe
}

fn airfoil_mpi() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        link(
            "mpif90",
            "fortran/examples/airfoil/airfoil_mpi.F90",
            "op2_mpi",
            "f_airfoil_mpi",
        )
    })
}

fn airfoil_seq() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        link(
            "gfortran",
            "fortran/examples/airfoil/airfoil.F90",
            "op2_seq",
            "f_airfoil_seq",
        )
    })
}

fn meshgen() -> PathBuf {
    build_once(
        &Program::new(
            "fmpi_meshgen",
            Lang::C99,
            &[
                "c-examples/meshgen/meshgen.c",
                "c-examples/common/naca_mesh.c",
            ],
        )
        .include("c-examples/common"),
    )
}

// ---------------------------------------------------------------------------
// running
// ---------------------------------------------------------------------------

/// A fresh scratch directory.
fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(format!("fmpi-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The meshgen mesh (3042 cells), written once.
fn mesh_file() -> &'static Path {
    static MESH: OnceLock<PathBuf> = OnceLock::new();
    MESH.get_or_init(|| {
        let dir = scratch("mesh");
        run_in(
            &meshgen(),
            &["--cells", "3000", "-o", "grid.dat"],
            &dir,
            &[],
        )
        .ok();
        dir.join("grid.dat")
    })
}

fn ctx(r: &Run) -> String {
    format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr)
}

/// `timeout T mpirun -np N exe args` in `cwd`.
fn mpirun(exe: &Path, np: usize, args: &[&str], cwd: &Path) -> Run {
    op2_tests::mpirun(exe, np, args, cwd, TIMEOUT_SECS, &[])
}

// ---------------------------------------------------------------------------
// results
// ---------------------------------------------------------------------------

/// What an airfoil run produced.
struct Airfoil {
    /// the " iter  rms " lines, verbatim
    history: Vec<String>,
    qsums: [f64; 4],
    /// final q: element count, dim, values
    q: (i32, i32, Vec<f64>),
    /// rms of every iteration (MPI runs, --rms)
    rms: Vec<f64>,
    stdout: String,
}

fn history_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() == 2 && t[0].parse::<u32>().is_ok() && t[1].parse::<f64>().is_ok()
        })
        .map(String::from)
        .collect()
}

fn qsums(stdout: &str) -> [f64; 4] {
    let l = stdout
        .lines()
        .find(|l| l.starts_with(" q sums: "))
        .unwrap_or_else(|| panic!("no q sums line:\n{stdout}"));
    let v: Vec<f64> = l[" q sums: ".len()..]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(v.len(), 4, "{l}");
    [v[0], v[1], v[2], v[3]]
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn read_q(p: &Path) -> (i32, i32, Vec<f64>) {
    let b = read(p);
    assert!(b.len() >= 8, "{}: too short", p.display());
    let n = i32::from_ne_bytes(b[0..4].try_into().unwrap());
    let dim = i32::from_ne_bytes(b[4..8].try_into().unwrap());
    assert_eq!(
        b.len(),
        8 + (n as usize) * (dim as usize) * 8,
        "{}: size does not match the header {n} x {dim}",
        p.display()
    );
    let v = b[8..]
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    (n, dim, v)
}

/// "iter rms" lines, iterations 1, 2, ... in order.
fn read_rms(p: &Path) -> Vec<f64> {
    let text = String::from_utf8(read(p)).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let mut t = l.split_whitespace();
            assert_eq!(t.next(), Some((i + 1).to_string().as_str()), "{l}");
            t.next().unwrap().parse().unwrap()
        })
        .collect()
}

fn collect(r: &Run, dir: &Path, mpi: bool) -> Airfoil {
    assert_eq!(r.status, Some(0), "airfoil failed\n{}", ctx(r));
    if mpi {
        assert!(
            r.stdout.lines().any(|l| l == "checks: OK"),
            "airfoil_mpi's own checks failed\n{}",
            ctx(r)
        );
    }
    Airfoil {
        history: history_lines(&r.stdout),
        qsums: qsums(&r.stdout),
        q: read_q(&dir.join("q.bin")),
        rms: if mpi {
            read_rms(&dir.join("rms.txt"))
        } else {
            Vec::new()
        },
        stdout: r.stdout.clone(),
    }
}

/// The sequential Fortran airfoil on the mesh, run once.
fn sequential() -> &'static Airfoil {
    static SEQ: OnceLock<Airfoil> = OnceLock::new();
    SEQ.get_or_init(|| {
        let dir = scratch("seq");
        let mesh = path_str(mesh_file());
        let r = run_in(airfoil_seq(), &[&mesh, ITERS, "--out=q.bin"], &dir, &[]);
        let a = collect(&r, &dir, false);
        assert_eq!(a.history.len(), 3, "{}", a.stdout);
        assert_eq!((a.q.0, a.q.1), (3042, 4), "3042 cells x 4");
        a
    })
}

/// airfoil_mpi on `np` ranks with `extra` arguments.
fn run_mpi(np: usize, extra: &[&str], tag: &str) -> Airfoil {
    let dir = scratch(tag);
    let mesh = path_str(mesh_file());
    let mut args = vec![mesh.as_str(), ITERS, "--out=q.bin", "--rms=rms.txt"];
    args.extend_from_slice(extra);
    let r = mpirun(airfoil_mpi(), np, &args, &dir);
    collect(&r, &dir, true)
}

/// The one-rank PARMETIS run, once.
fn one_rank() -> &'static Airfoil {
    static ONE: OnceLock<Airfoil> = OnceLock::new();
    ONE.get_or_init(|| run_mpi(1, &[], "np1"))
}

/// |a - b| <= TOL * (largest magnitude of that component), element by element.
fn assert_q_close(what: &str, got: &(i32, i32, Vec<f64>), want: &(i32, i32, Vec<f64>)) {
    assert_eq!((got.0, got.1), (want.0, want.1), "{what}: q header");
    let dim = want.1 as usize;
    let mut scale = vec![0.0f64; dim];
    for (k, v) in want.2.iter().enumerate() {
        scale[k % dim] = scale[k % dim].max(v.abs());
    }
    for (k, (a, b)) in got.2.iter().zip(&want.2).enumerate() {
        let rel = (a - b).abs() / scale[k % dim].max(f64::MIN_POSITIVE);
        assert!(
            rel <= TOL,
            "{what}: final q differs at cell {} component {}: {a:e} vs {b:e} ({rel:e} of the component's scale)",
            k / dim,
            k % dim
        );
    }
}

/// Printed rms lines identical to the sequential airfoil's; final q and q
/// sums within TOL of it; the rms file has every iteration and agrees with
/// the printed lines.
fn assert_matches_sequential(what: &str, got: &Airfoil) {
    let seq = sequential();
    assert_eq!(
        got.history, seq.history,
        "{what}: printed rms lines differ from the sequential Fortran airfoil\n{}",
        got.stdout
    );
    assert_q_close(what, &got.q, &seq.q);
    for k in 0..4 {
        // a sum of n values is good to TOL * sum |q_k|
        let abs_sum: f64 = seq.q.2.iter().skip(k).step_by(4).map(|v| v.abs()).sum();
        assert!(
            (got.qsums[k] - seq.qsums[k]).abs() <= TOL * abs_sum,
            "{what}: q sum {k} is {:e}, sequential {:e}",
            got.qsums[k],
            seq.qsums[k]
        );
    }
    assert_eq!(got.rms.len(), NITERS, "{what}: rms file");
    for line in &got.history {
        let mut t = line.split_whitespace();
        let it: usize = t.next().unwrap().parse().unwrap();
        let printed: f64 = t.next().unwrap().parse().unwrap();
        let full = got.rms[it - 1];
        assert!(
            (printed - full).abs() <= 5e-6 * full,
            "{what}: {line:?} vs {full:e} in the rms file"
        );
    }
}

fn assert_rms_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: number of rms values");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= TOL * b.abs(),
            "{what}: rms at iteration {} is {a:.17e}, one rank {b:.17e}",
            i + 1
        );
    }
}

/// `np` ranks, partitioner `part`: as the sequential airfoil and the one-rank
/// run; the partitioner call is the one named.
fn case(np: usize, part: &str, call: &str) {
    let arg = format!("--part={part}");
    let what = format!("{np} ranks, {part}");
    let got = run_mpi(np, &[&arg], &format!("np{np}-{part}"));
    assert!(
        got.stdout.contains(call),
        "{what}: `{call}` not announced\n{}",
        got.stdout
    );
    let blocks = got
        .stdout
        .lines()
        .filter(|l| l.starts_with("ranks: nodes, cells, edges, bedges on process "))
        .count();
    assert_eq!(
        blocks, np,
        "{what}: one block line per rank\n{}",
        got.stdout
    );
    assert_matches_sequential(&what, &got);
    assert_rms_close(&what, &got.rms, &one_rank().rms);
}

const PARMETIS_CALL: &str = "op_partition(\"PARMETIS\", \"KWAY\", cells, pecell, p_x)";

#[test]
fn fortran_airfoil_mpi_1_rank_matches_sequential() {
    if !have_tools() {
        return;
    }
    let one = one_rank();
    assert!(one.stdout.contains(PARMETIS_CALL), "{}", one.stdout);
    assert_matches_sequential("1 rank, PARMETIS", one);
    // the Fortran airfoil's own lines, in its order, on rank 0 only
    let seq_lines: Vec<&str> = sequential()
        .stdout
        .lines()
        .filter(|l| {
            l.starts_with("reading in grid")
                || l.starts_with(" nodes ")
                || l.starts_with("initialising flow field")
        })
        .collect();
    assert_eq!(seq_lines.len(), 3, "{}", sequential().stdout);
    for l in seq_lines {
        assert_eq!(
            one.stdout.lines().filter(|m| *m == l).count(),
            1,
            "{l:?} not printed once\n{}",
            one.stdout
        );
    }
}

#[test]
fn fortran_airfoil_mpi_2_ranks_parmetis() {
    if !have_tools() {
        return;
    }
    case(2, "PARMETIS", PARMETIS_CALL);
}

#[test]
fn fortran_airfoil_mpi_3_ranks_parmetis() {
    if !have_tools() {
        return;
    }
    case(3, "PARMETIS", PARMETIS_CALL);
}

/// The other partitioners through --part, on 3 ranks.
#[test]
fn fortran_airfoil_mpi_3_ranks_other_partitioners() {
    if !have_tools() {
        return;
    }
    for (part, call) in [
        (
            "GEOM",
            "op_partition(\"PARMETIS\", \"GEOM\", cells, pecell, p_x)",
        ),
        (
            "INERTIAL",
            "op_partition(\"INERTIAL\", \"INERTIAL\", cells, pecell, p_centroid)",
        ),
        (
            "RANDOM",
            "op_partition(\"RANDOM\", \"RANDOM\", cells, pecell, p_x)",
        ),
        (
            "EXTERNAL",
            "op_partition(\"EXTERNAL\", \"EXTERNAL\", cells, pecell, p_owner)",
        ),
    ] {
        case(3, part, call);
    }
}

/// An unknown library name: OP2 names it, keeps the block distribution, and
/// the results are the same.
#[test]
fn fortran_airfoil_mpi_unknown_partitioner_falls_back() {
    if !have_tools() {
        return;
    }
    let got = run_mpi(2, &["--part=NO_SUCH_LIB"], "np2-unknown");
    let mentioned = got
        .stdout
        .lines()
        .filter(|l| l.contains("NO_SUCH_LIB") && !l.starts_with("partitioning with"))
        .count();
    assert!(
        mentioned > 0,
        "the library does not mention the unknown name:\n{}",
        got.stdout
    );
    assert_matches_sequential("2 ranks, unknown partitioner", &got);
}

/// The application owns MPI: MPI_Init, op_mpi_init_base(diags,
/// MPI_COMM_WORLD, MPI_COMM_WORLD, 0), op_exit, MPI_Finalize.
#[test]
fn fortran_airfoil_mpi_app_owns_mpi_init() {
    if !have_tools() {
        return;
    }
    let got = run_mpi(2, &["--init=mpi"], "np2-own-init");
    assert_matches_sequential("2 ranks, op_mpi_init_base", &got);
    assert_rms_close("2 ranks, op_mpi_init_base", &got.rms, &one_rank().rms);
}
