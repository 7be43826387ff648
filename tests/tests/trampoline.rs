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

fn program(simd: u32, lib: &str) -> PathBuf {
    let mut p = Program::new(
        &format!("trampoline_simd{simd}"),
        Lang::Cxx17,
        &["tests/c/trampoline.cpp"],
    )
    .define(&format!("OP2_RS_SIMD={simd}"))
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

#[test]
fn sequential_matches_plain_loops_bitwise() {
    for simd in [0, 1, 2] {
        let r = run(
            &program(simd, "op2_seq"),
            &[],
            &format!("tramp-seq-{simd}"),
            "1",
        );
        assert_all_pass(&r, CHECKS);
        assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
        assert!(r.stderr.is_empty(), "{}", r.stderr);
    }
}

/// The SIMD blocks of OP2_RS_SIMD=1 change no result: the same digest as the
/// scalar paths (OP2_RS_SIMD=0).
#[test]
fn simd_blocks_change_no_bit() {
    let d0 = digest(&run(&program(0, "op2_seq"), &[], "tramp-dig-0", "1"));
    let d1 = digest(&run(&program(1, "op2_seq"), &[], "tramp-dig-1", "1"));
    assert_eq!(d0, d1);
}

#[test]
fn threads_match_plain_loops_and_each_other() {
    for simd in [0, 1, 2] {
        let exe = program(simd, "op2_openmp");
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
