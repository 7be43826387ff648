//! The C++ trampoline of include/op_seq.h (tests/c/trampoline.cpp): the
//! specialised path, its SIMD blocks (OP2_RS_SIMD = 0, 1, 2) and the generic
//! path, against plain loops, bitwise with libop2_seq; with libop2_openmp
//! within 1e-12, and bitwise the same for every thread count. The program
//! also checks which paths each loop took.

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

/// The test program at SIMD level `simd`, with global sums per lane
/// (OP2_RS_SIMD_SUMS) or in order.
fn program(simd: u32, sums: bool, lib: &str) -> PathBuf {
    let mut p = Program::new(
        &format!("trampoline_simd{simd}{}", if sums { "" } else { "_nosums" }),
        Lang::Cxx17,
        &["tests/c/trampoline.cpp"],
    )
    .define(&format!("OP2_RS_SIMD={simd}"))
    .define(&format!("OP2_RS_SIMD_SUMS={}", u32::from(sums)))
    .lib(lib);
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

const LEVELS: [u32; 4] = [0, 1, 2, 3];

#[test]
fn sequential_matches_plain_loops_bitwise() {
    for simd in LEVELS {
        for sums in [true, false] {
            let r = run(
                &program(simd, sums, "op2_seq"),
                &[],
                &format!("tramp-seq-{simd}-{sums}"),
                "1",
            );
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
    let d0 = digest(&run(&program(0, false, "op2_seq"), &[], "tramp-dig-0", "1"));
    for simd in [1, 2, 3] {
        let d = digest(&run(
            &program(simd, false, "op2_seq"),
            &[],
            &format!("tramp-dig-{simd}"),
            "1",
        ));
        assert_eq!(d0, d, "OP2_RS_SIMD={simd}, OP2_RS_SIMD_SUMS=0");
    }
    let d1 = digest(&run(&program(1, true, "op2_seq"), &[], "tramp-dig-1s", "1"));
    assert_ne!(d0, d1, "OP2_RS_SIMD=1 with sums per lane");
}

#[test]
fn threads_match_plain_loops_and_each_other() {
    for simd in LEVELS {
        let exe = program(simd, true, "op2_openmp");
        let mut digests = Vec::new();
        for t in ["1", "2", "3", "8"] {
            let r = run(&exe, &["tol"], &format!("tramp-thr-{simd}-{t}"), t);
            assert_all_pass(&r, CHECKS);
            digests.push(digest(&r));
        }
        assert!(
            digests.iter().all(|d| *d == digests[0]),
            "OP2_RS_SIMD={simd}: digests differ between thread counts: {digests:?}"
        );
    }
}
