//! The C++ trampoline of include/op_seq.h (tests/c/trampoline.cpp): the
//! specialised path, its SIMD blocks (OP2_RS_SIMD = 0 to 3, with and without
//! OP2_RS_SIMD_GATHER_ONLY, and the defaults of the build machine's own
//! instruction set) and the generic path, against plain loops, bitwise with
//! libop2_seq; with libop2_openmp within 1e-12, and bitwise the same for every
//! thread count and with reductions' plan blocks side by side or alone. The
//! program also checks which paths each loop took.
//! tests/c/trampoline_const.cpp: kernels whose vector parameters are spelled
//! with const at either level, at every level and with -O0, -O3 and
//! -O3 -march=native.

mod common;

use common::assert_all_pass;
use op2_tests::{build_once, out_dir, run_in, Lang, Program, Run};
use std::path::{Path, PathBuf};

const CHECKS: &[&str] = &[
    "gather",
    "path_gather",
    "gather_runtime_args",
    "path_gather_runtime_args",
    "mixed_types",
    "path_mixed_types",
    "inc_map",
    "path_inc_map",
    "inc_map_twice",
    "vector_args",
    "path_vector_args",
    "direct_update",
    "path_direct_update",
    "direct_cg",
    "path_direct_cg_dot",
    "path_direct_cg_step",
    "path_direct_cg_norm",
    "path_direct_cg_axpy",
    "path_direct_cg_side",
    "signed_zero",
    "path_signed_zero_map",
    "path_signed_zero_gbl",
    "idx_args",
    "path_idx_args",
    "text_contradicted_map",
    "path_text_contradicted_map",
    "text_contradicted_dat",
    "path_text_contradicted_dat",
    "vector_wide",
    "path_vector_wide",
    "vector_wide_runtime",
];

/// How the test program is compiled.
#[derive(Clone, Copy)]
enum Simd {
    /// `-DOP2_RS_SIMD=level`, global sums per lane or in order
    /// (OP2_RS_SIMD_SUMS), loops that only gather taking SIMD blocks or not
    /// (OP2_RS_SIMD_GATHER_ONLY).
    Level {
        level: u32,
        sums: bool,
        gather_only: bool,
    },
    /// `-march=native` and no OP2_RS_SIMD macro: the defaults op_seq.h picks
    /// for this machine's instruction set (level 3 where it has AVX-512).
    Native,
    /// `-DOP2_RS_SIMD=level -DOP2_RS_PREFETCH=0`, sums in order: no
    /// prefetching (every other build prefetches, op_seq.h's default).
    NoPrefetch { level: u32 },
    /// `-DOP2_RS_SIMD=level -DOP2_RS_SIDE_BY_SIDE=0`, sums in order: every
    /// plan block alone (every other build runs reductions' blocks side by
    /// side where the library hands several over).
    Alone { level: u32 },
}

fn level(level: u32, sums: bool) -> Simd {
    Simd::Level {
        level,
        sums,
        gather_only: true,
    }
}

fn program(simd: Simd, lib: &str) -> PathBuf {
    let (name, defines, flags): (String, Vec<String>, &[&str]) = match simd {
        Simd::Level {
            level,
            sums,
            gather_only,
        } => (
            format!(
                "trampoline_simd{level}{}{}",
                if sums { "" } else { "_nosums" },
                if gather_only { "" } else { "_nogather" }
            ),
            vec![
                format!("OP2_RS_SIMD={level}"),
                format!("OP2_RS_SIMD_SUMS={}", u32::from(sums)),
                format!("OP2_RS_SIMD_GATHER_ONLY={}", u32::from(gather_only)),
            ],
            &[],
        ),
        Simd::Native => (
            "trampoline_native".to_string(),
            vec![],
            &["-O3", "-march=native"],
        ),
        Simd::NoPrefetch { level } => (
            format!("trampoline_simd{level}_noprefetch"),
            vec![
                format!("OP2_RS_SIMD={level}"),
                "OP2_RS_SIMD_SUMS=0".to_string(),
                "OP2_RS_PREFETCH=0".to_string(),
            ],
            &[],
        ),
        Simd::Alone { level } => (
            format!("trampoline_simd{level}_alone"),
            vec![
                format!("OP2_RS_SIMD={level}"),
                "OP2_RS_SIMD_SUMS=0".to_string(),
                "OP2_RS_SIDE_BY_SIDE=0".to_string(),
            ],
            &[],
        ),
    };
    let mut p = Program::new(&name, Lang::Cxx17, &["tests/c/trampoline.cpp"]).lib(lib);
    for d in &defines {
        p = p.define(d);
    }
    for f in flags {
        p = p.flag(f);
    }
    if lib == "op2_openmp" {
        p = p.flag("-fopenmp");
    }
    build_once(&p)
}

fn run(exe: &Path, args: &[&str], tag: &str, threads: &str) -> Run {
    let dir = out_dir().join("runs").join(tag);
    run_in(exe, args, &dir, &[("OMP_NUM_THREADS", threads)])
}

fn digest(r: &Run) -> String {
    r.stdout
        .lines()
        .find_map(|l| l.strip_prefix("DIGEST "))
        .unwrap_or_else(|| panic!("no DIGEST line:\n{}", r.stdout))
        .to_string()
}

/// The program with libop2_seq, one thread.
fn run_seq(simd: Simd, tag: &str) -> Run {
    run(&program(simd, "op2_seq"), &[], tag, "1")
}

/// The digest of the scalar paths' results (OP2_RS_SIMD=0, sums in order).
fn scalar_digest(tag: &str) -> String {
    digest(&run_seq(level(0, false), tag))
}

/// Runs the program with libop2_openmp on each thread count (results
/// within 1e-12 of the plain loops) and checks that all give one digest.
fn same_digest_on_threads(simd: Simd, threads: &[&str], tag: &str) {
    let exe = program(simd, "op2_openmp");
    let mut digests = Vec::new();
    for t in threads {
        let r = run(&exe, &["tol"], &format!("{tag}-{t}"), t);
        assert_all_pass(&r, CHECKS);
        digests.push(digest(&r));
    }
    assert!(
        digests.iter().all(|d| *d == digests[0]),
        "{tag}: digests differ between thread counts: {digests:?}"
    );
}

const LEVELS: [u32; 4] = [0, 1, 2, 3];

#[test]
fn sequential_matches_plain_loops_bitwise() {
    for simd in LEVELS {
        for sums in [true, false] {
            let r = run_seq(level(simd, sums), &format!("tramp-seq-{simd}-{sums}"));
            assert_all_pass(&r, CHECKS);
            assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
            assert!(r.stderr.is_empty(), "{}", r.stderr);
        }
    }
}

/// With global sums in order, the SIMD blocks change no result at any level:
/// the same digest as the scalar paths (OP2_RS_SIMD=0). At level 3 this holds
/// because staged increments start from -0.0 and go back in element order
/// (the digest leaves out the one loop that increments a value twice per
/// element). With sums per lane the digest must differ somewhere (the
/// reductions' last bits), else the lanes would not be summing apart.
#[test]
fn simd_blocks_change_no_bit() {
    let d0 = scalar_digest("tramp-dig-0");
    for simd in [1, 2, 3] {
        let d = digest(&run_seq(level(simd, false), &format!("tramp-dig-{simd}")));
        assert_eq!(d0, d, "OP2_RS_SIMD={simd}, OP2_RS_SIMD_SUMS=0");
    }
    let d1 = digest(&run_seq(level(1, true), "tramp-dig-1s"));
    assert_ne!(d0, d1, "OP2_RS_SIMD=1 with sums per lane");
}

/// Prefetching (op_seq.h's default, OP2_RS_PREFETCH=2: the scalar path runs
/// loops with a direct dat in blocks, and SIMD blocks that gather prefetch)
/// changes no bit: builds without it give the scalar paths' digest, at the
/// scalar level and at level 3, where every kind of block runs.
#[test]
fn prefetching_changes_no_bit() {
    let d0 = scalar_digest("tramp-pf-ref");
    for simd in [0, 3] {
        let r = run_seq(
            Simd::NoPrefetch { level: simd },
            &format!("tramp-nopf-{simd}"),
        );
        assert_all_pass(&r, CHECKS);
        assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
        assert_eq!(d0, digest(&r), "OP2_RS_SIMD={simd}, OP2_RS_PREFETCH=0");
    }
}

/// Plan blocks side by side (op_seq.h's default with libop2_openmp, which
/// hands a reduction's blocks over four at a time; the program checks that
/// its dot and norm loops ran so): on 1, 2 and 3 threads the bits of the
/// same build with every block alone (OP2_RS_SIDE_BY_SIDE=0), at levels 1
/// (direct loops only) and 3 (everything in SIMD blocks).
#[test]
fn side_by_side_changes_no_bit() {
    for simd in [1, 3] {
        let alone = program(Simd::Alone { level: simd }, "op2_openmp");
        let side = program(level(simd, false), "op2_openmp");
        for t in ["1", "2", "3"] {
            let tag = format!("tramp-side-{simd}-{t}");
            let a = run(&alone, &["tol"], &format!("{tag}-alone"), t);
            let s = run(&side, &["tol"], &tag, t);
            assert_all_pass(&a, CHECKS);
            assert_all_pass(&s, CHECKS);
            assert_eq!(
                digest(&a),
                digest(&s),
                "OP2_RS_SIMD={simd}, {t} threads: side by side against alone"
            );
        }
    }
}

#[test]
fn threads_match_plain_loops_and_each_other() {
    for simd in LEVELS {
        same_digest_on_threads(
            level(simd, true),
            &["1", "2", "3", "4", "8"],
            &format!("tramp-thr-{simd}"),
        );
    }
}

/// OP2_RS_SIMD_GATHER_ONLY=0 (the default with AVX-512 while math functions
/// may set errno):
/// loops that only read through maps run scalar (the program checks the
/// paths), loops that increment through maps still take SIMD blocks, and no
/// result changes.
#[test]
fn gather_only_loops_can_stay_scalar() {
    let d0 = scalar_digest("tramp-nogather-ref");
    let r = run_seq(
        Simd::Level {
            level: 3,
            sums: false,
            gather_only: false,
        },
        "tramp-nogather",
    );
    assert_all_pass(&r, CHECKS);
    assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
    assert_eq!(d0, digest(&r), "OP2_RS_SIMD=3, OP2_RS_SIMD_GATHER_ONLY=0");
}

/// The defaults for this machine's own instruction set (`-O3
/// -march=native`: on a machine with AVX-512, level 3 in 512-bit vectors,
/// the configuration of BENCHMARKS.md's SIMD figures): with libop2_seq
/// bitwise the plain loops and the scalar paths' digest (contraction to FMA
/// is off in every test build, so the vector code must compute the scalar
/// code's bits); with libop2_openmp within 1e-12 and bitwise the same for
/// every thread count.
#[test]
fn native_instruction_set_defaults() {
    let d0 = scalar_digest("tramp-native-ref");
    let r = run_seq(Simd::Native, "tramp-native-seq");
    assert_all_pass(&r, CHECKS);
    assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
    assert_eq!(d0, digest(&r), "-O3 -march=native, op2_seq");
    same_digest_on_threads(Simd::Native, &["1", "2", "3"], "tramp-native-thr");
}

/// Kernel parameters of vector arguments spelled with const at either level
/// (T**, const T**, T* const*, const T* const*, T const* const*: OP2's
/// op_seq.h takes them all; tests/c/trampoline_const.cpp): the program
/// compiles at every OP2_RS_SIMD level with `opt`, takes the paths its
/// macros say, and gives the plain loops' bits.
fn const_vector_params(tag: &str, opt: &[&str]) {
    let mut names: Vec<String> = Vec::new();
    for s in ["pp", "cpp", "pcp", "cpcp", "dcpcp"] {
        for l in ["inc", "inc_runtime", "read", "read_runtime"] {
            names.push(format!("{l}_{s}"));
        }
    }
    names.extend(["wide", "wide_runtime"].map(String::from));
    let paths: Vec<String> = names.iter().map(|n| format!("path_{n}")).collect();
    let checks: Vec<&str> = names.iter().chain(&paths).map(String::as_str).collect();
    // (name suffix, defines): each level, the defaults, and the plain op_par_loop
    let levels = [0, 1, 2, 3].map(|l| (l.to_string(), vec![format!("OP2_RS_SIMD={l}")]));
    let variants = levels.into_iter().chain([
        ("default".to_string(), vec![]),
        (
            "plain".to_string(),
            vec!["OP2_RS_PLAIN_PAR_LOOP=1".to_string()],
        ),
    ]);
    for (variant, defines) in variants {
        let name = format!("trampoline_const_{tag}_{variant}");
        let mut p = Program::new(&name, Lang::Cxx17, &["tests/c/trampoline_const.cpp"]);
        for d in &defines {
            p = p.define(d);
        }
        for f in opt {
            p = p.flag(f);
        }
        let r = run_in(
            &build_once(&p),
            &[],
            &out_dir().join("runs").join(&name),
            &[("OMP_NUM_THREADS", "1")],
        );
        assert_all_pass(&r, &checks);
        assert!(r.stdout.contains("DONE 0 failures"), "{name}: {}", r.stdout);
        assert!(r.stderr.is_empty(), "{name}: {}", r.stderr);
    }
}

#[test]
fn const_vector_params_o0() {
    const_vector_params("o0", &["-O0"]);
}

#[test]
fn const_vector_params_o3() {
    const_vector_params("o3", &["-O3"]);
}

#[test]
fn const_vector_params_native() {
    const_vector_params("native", &["-O3", "-march=native"]);
}
