//! libop2_openmp at OMP_NUM_THREADS = 1, 2, 3, 8 with the c-examples
//! programs (their own op_par_loop calls, run by the library on its thread
//! pool): every output — printed results and the final q file — must be
//! bitwise the same for all four thread counts (blocks run colour by colour;
//! reductions are combined per block in block order), and within 1e-12
//! (relative) of the sequential references airfoil_ref / jac_ref, which add
//! the OP_INC contributions in another order. reduction and jac_c check
//! themselves (their floating-point sums allow for reordering). Problem
//! sizes are chosen so that the loops are long enough to be split over the
//! pool (short loops run on the calling thread).
//!
//! tests/c/generated/thr_checks.cpp shows that the pool really has
//! OMP_NUM_THREADS threads and that usage errors are still caught.

#[path = "../c/generated/numeric.rs"]
mod numeric;

use numeric::*;
use op2_tests::{build_once, out_dir, run_in, Lang, Program, Run};
use std::path::{Path, PathBuf};

const THREADS: [&str; 4] = ["1", "2", "3", "8"];
const MESH: &str = "c-examples/common/naca_mesh.c";
const TOL: f64 = 1e-12;

fn openmp(p: Program) -> PathBuf {
    build_once(&p.lib("op2_openmp").flag("-fopenmp"))
}

fn airfoil_program(name: &str, src: &str) -> Program {
    Program::new(name, Lang::Cxx17, &[src, MESH])
        .include("c-examples/common")
        .include("c-examples/airfoil")
}

fn airfoil() -> PathBuf {
    openmp(airfoil_program(
        "thr_airfoil",
        "c-examples/airfoil/airfoil.cpp",
    ))
}
fn airfoil_ref() -> PathBuf {
    build_once(&airfoil_program(
        "thr_airfoil_ref",
        "c-examples/airfoil/airfoil_ref.cpp",
    ))
}
fn jac_program(name: &str, lang: Lang, src: &str) -> Program {
    Program::new(name, lang, &[src]).include("c-examples/jac")
}
fn jac() -> PathBuf {
    openmp(jac_program(
        "thr_jac",
        Lang::Cxx17,
        "c-examples/jac/jac.cpp",
    ))
}
fn jac_c() -> PathBuf {
    openmp(jac_program(
        "thr_jac_c",
        Lang::C99,
        "c-examples/c99/jac_c.c",
    ))
}
fn jac_ref() -> PathBuf {
    build_once(&jac_program(
        "thr_jac_ref",
        Lang::Cxx17,
        "c-examples/jac/jac_ref.cpp",
    ))
}
fn reduction() -> PathBuf {
    openmp(Program::new(
        "thr_reduction",
        Lang::Cxx17,
        &["c-examples/reduction/reduction.cpp"],
    ))
}
fn checks() -> PathBuf {
    openmp(Program::new(
        "thr_checks",
        Lang::Cxx17,
        &["tests/c/generated/thr_checks.cpp"],
    ))
}

/// Run in a fresh directory `tag` with OMP_NUM_THREADS = `threads`.
fn run_threads(exe: &Path, args: &[&str], tag: &str, threads: &str) -> (Run, PathBuf) {
    let dir = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    let r = run_in(exe, args, &dir, &[("OMP_NUM_THREADS", threads)]);
    (r, dir)
}

/// The pool has OMP_NUM_THREADS threads, and all of them run loop blocks.
#[test]
fn pool_size_follows_omp_num_threads() {
    for t in THREADS {
        let (r, _) = run_threads(
            &checks(),
            &["pool", t, "OP_PART_SIZE=128"],
            &format!("thr-pool-{t}"),
            t,
        );
        r.ok();
        assert!(
            r.stdout.contains(&format!("threads used: {t}\n")),
            "OMP_NUM_THREADS={t}\n{}",
            r.stdout
        );
        assert!(r.stdout.contains("every element ran: yes"), "{}", r.stdout);
    }
}

/// airfoil on a 10000-cell mesh, 200 iterations, with the library's default
/// plans, with OP_PART_SIZE=64 (many blocks in every loop, so update's
/// rms reduction is combined from 157 blocks run on different threads, and
/// res_calc gets another plan, so other OP_INC orders) and on the mesh
/// numbered at random (--shuffle: res_calc's blocks shrunk for parallelism,
/// see airfoil_on_a_shuffled_mesh_gets_smaller_blocks), each against
/// airfoil_ref on the same mesh.
#[test]
fn airfoil_is_bitwise_the_same_for_all_thread_counts() {
    let base = ["--cells=10000", "--iters=200", "--out=q.bin"];
    let not_sums = |l: &[String]| -> Vec<String> {
        l.iter()
            .filter(|s| !s.starts_with(" q sums:"))
            .cloned()
            .collect()
    };
    let variants = [
        ("default", None),
        ("part64", Some("OP_PART_SIZE=64")),
        ("shuffled", Some("--shuffle=7")),
    ];
    for (variant, extra) in variants {
        let args: Vec<&str> = base.iter().copied().chain(extra).collect();
        // airfoil_ref skips the OP_ arguments: the same mesh, plain loops.
        let (reference, ref_dir) = run_threads(
            &airfoil_ref(),
            &args,
            &format!("thr-airfoil-ref-{variant}"),
            "1",
        );
        reference.ok();
        let q_ref = read_f64_dat(&ref_dir.join("q.bin"));
        let ref_lines = result_lines(&reference.stdout);
        let mut first: Option<(String, Vec<String>, Vec<u8>)> = None;
        for t in THREADS {
            let (r, dir) = run_threads(&airfoil(), &args, &format!("thr-airfoil-{variant}-{t}"), t);
            r.ok();
            let lines = result_lines(&r.stdout);
            let q = std::fs::read(dir.join("q.bin")).unwrap();
            match &first {
                None => {
                    // 2 rms lines and the rest of the result lines
                    assert_eq!(lines.len(), 7, "{}", r.stdout);
                    let qd = read_f64_dat(&dir.join("q.bin"));
                    let d = dat_diff(&qd, &q_ref);
                    let line_diff = max_rel_diff_lines(&not_sums(&lines), &not_sums(&ref_lines))
                        .unwrap_or_else(|e| panic!("{e}"));
                    let scale = abs_sums(&q_ref);
                    let sums = numbers_after(&r.stdout, " q sums:");
                    let ref_sums = numbers_after(&reference.stdout, " q sums:");
                    let sums_diff = sums
                        .iter()
                        .zip(&ref_sums)
                        .zip(&scale)
                        .map(|((a, b), s)| (a - b).abs() / s)
                        .fold(0.0, f64::max);
                    println!(
                        "airfoil ({variant}) vs airfoil_ref: rms lines rel diff {line_diff:.3e}, final q {:.3e} normwise ({:.3e} pointwise, bitwise equal: {}), q sums {sums_diff:.3e} of sum |q|",
                        d.scaled, d.pointwise, d.identical
                    );
                    assert!(
                        line_diff <= TOL,
                        "rms lines vs airfoil_ref: {line_diff:e}\n{}",
                        r.stdout
                    );
                    assert!(d.scaled <= TOL, "final q vs airfoil_ref: {d:?}");
                    assert!(
                        sums_diff <= TOL,
                        "q sums vs airfoil_ref: {sums:?} {ref_sums:?}"
                    );
                    first = Some((t.to_string(), lines, q));
                }
                Some((t0, lines0, q0)) => {
                    assert_eq!(
                        &lines, lines0,
                        "airfoil ({variant}) output, {t} threads vs {t0}"
                    );
                    assert!(q == *q0, "airfoil ({variant}) final q, {t} threads vs {t0}");
                }
            }
        }
    }
}

/// jac (80 x 80 nodes, 1000 iterations): results bitwise the same for all
/// thread counts, within 1e-12 of jac_ref.
#[test]
fn jac_is_bitwise_the_same_for_all_thread_counts() {
    let args = ["--n=80", "--iters=1000"];
    let (reference, _) = run_threads(&jac_ref(), &args, "thr-jac-ref", "1");
    reference.ok();
    let ref_lines = result_lines(&reference.stdout);
    let mut first: Option<Vec<String>> = None;
    for t in THREADS {
        let (r, _) = run_threads(&jac(), &args, &format!("thr-jac-{t}"), t);
        r.ok();
        let lines = result_lines(&r.stdout);
        match &first {
            None => {
                // size line, 2 history lines, final sums, 4 probes
                assert_eq!(lines.len(), 8, "{}", r.stdout);
                let d = max_rel_diff_lines(&lines, &ref_lines).unwrap_or_else(|e| panic!("{e}"));
                println!("jac vs jac_ref: max rel diff {d:.3e}");
                assert!(
                    d <= TOL,
                    "jac vs jac_ref: {d:e}\n{}\n{}",
                    r.stdout,
                    reference.stdout
                );
                first = Some(lines);
            }
            Some(l0) => assert_eq!(&lines, l0, "jac, {t} threads vs 1"),
        }
    }
}

/// The C99 jac: PASSED (its own plain-loop check) for every thread count,
/// identical output for all of them, within 1e-12 of jac_ref.
#[test]
fn jac_c_passes_for_all_thread_counts() {
    let args = ["--n=80", "--iters=1000"];
    let (reference, _) = run_threads(&jac_ref(), &args, "thr-jacc-ref", "1");
    reference.ok();
    let ref_lines = result_lines(&reference.stdout);
    let mut first: Option<Vec<String>> = None;
    for t in THREADS {
        let (r, _) = run_threads(&jac_c(), &args, &format!("thr-jacc-{t}"), t);
        r.ok();
        assert!(
            r.stdout.lines().any(|l| l == "PASSED"),
            "{t} threads\n{}",
            r.stdout
        );
        let lines = result_lines(&r.stdout);
        match &first {
            None => {
                let results: Vec<String> = lines
                    .iter()
                    .filter(|l| !l.contains("plain-loop check") && *l != "PASSED")
                    .cloned()
                    .collect();
                let d = max_rel_diff_lines(&results, &ref_lines).unwrap_or_else(|e| panic!("{e}"));
                println!("jac_c vs jac_ref: max rel diff {d:.3e}");
                assert!(d <= TOL, "jac_c vs jac_ref: {d:e}\n{}", r.stdout);
                first = Some(lines);
            }
            Some(l0) => assert_eq!(&lines, l0, "jac_c, {t} threads vs 1"),
        }
    }
}

/// reduction on 120 x 80 cells, with default blocks and with 100-element
/// blocks: PASSED, and every printed value the same for all thread counts.
#[test]
fn reduction_passes_for_all_thread_counts() {
    for (variant, extra) in [("default", None), ("part100", Some("OP_PART_SIZE=100"))] {
        let args: Vec<&str> = ["--nx=120", "--ny=80"].into_iter().chain(extra).collect();
        let mut first: Option<String> = None;
        for t in THREADS {
            let (r, _) = run_threads(&reduction(), &args, &format!("thr-red-{variant}-{t}"), t);
            r.ok();
            assert!(
                r.stdout.lines().any(|l| l == "PASSED"),
                "{t} threads\n{}",
                r.stdout
            );
            assert!(!r.stdout.contains("MISMATCH"), "{}", r.stdout);
            match &first {
                None => first = Some(r.stdout.clone()),
                Some(s) => assert_eq!(&r.stdout, s, "reduction ({variant}), {t} threads vs 1"),
            }
        }
    }
}

/// One OP2 error line on stderr, exit status 1, nothing run after the bad call.
fn assert_error(r: &Run, call_and_object: &str, phrase: &str) {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status, Some(1), "{ctx}");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{ctx}");
    let prefix = format!("OP2 error in {call_and_object}: ");
    assert!(
        lines[0].starts_with(&prefix) && lines[0].contains(phrase),
        "{ctx}"
    );
    assert!(r.stdout.contains("BEFORE"), "{ctx}");
    assert!(
        !r.stdout.contains("UNREACHABLE") && !r.stdout.contains("KERNEL RAN"),
        "{ctx}"
    );
}

/// Usage errors are caught with the multithreaded library too.
#[test]
fn errors_are_caught_with_the_openmp_library() {
    let exe = checks();
    let (ok, _) = run_threads(&exe, &["none"], "thr-err-none", "3");
    ok.ok();
    assert_eq!(ok.stdout.matches("KERNEL RAN").count(), 3, "{}", ok.stdout);
    assert!(ok.stdout.contains("UNREACHABLE"));

    let cases = [
        (
            "map_out_of_range",
            r#"op_decl_map (map "pbad")"#,
            "entry 9 at element 1 column 1 is out of range",
        ),
        (
            "arg_dim",
            r#"op_arg_dat (dat "x")"#,
            "arg dim 3 is not the dat's dim 2",
        ),
        (
            "loop_wrong_set",
            r#"op_par_loop (loop "add_one")"#,
            r#"map "pedge" is from set "edges", not from the loop set "nodes""#,
        ),
        (
            "plan_wrong_set",
            r#"op_plan_get (loop "bad_loop")"#,
            r#"map "pedge" is not from the loop set"#,
        ),
    ];
    for (case, call, phrase) in cases {
        let (r, _) = run_threads(&exe, &[case], &format!("thr-err-{case}"), "3");
        assert_error(&r, call, phrase);
    }
}

/// On a mesh numbered at random, 320-edge blocks all conflict (a colour per
/// block, the loop on one thread): libop2_openmp builds res_calc's plan with
/// smaller blocks, says so with OP_diags > 1, and keeps OP_PART_SIZE as given.
#[test]
fn airfoil_on_a_shuffled_mesh_gets_smaller_blocks() {
    let args = ["--cells=10000", "--iters=1", "--shuffle=7", "--diags=2"];
    let (r, _) = run_threads(&airfoil(), &args, "thr-airfoil-shuffled-diags", "2");
    r.ok();
    let shrunk: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("blocks shrunk for parallelism"))
        .collect();
    assert_eq!(
        shrunk.len(),
        1,
        "only res_calc's plan shrinks:\n{}",
        r.stdout
    );
    assert!(
        shrunk[0].starts_with(" blocks shrunk for parallelism (320: "),
        "{}",
        shrunk[0]
    );
    let (r, _) = run_threads(
        &airfoil(),
        &[
            "--cells=10000",
            "--iters=1",
            "--shuffle=7",
            "--diags=2",
            "OP_PART_SIZE=320",
        ],
        "thr-airfoil-shuffled-part",
        "2",
    );
    r.ok();
    assert!(!r.stdout.contains("shrunk"), "{}", r.stdout);

    let (r, _) = run_threads(
        &airfoil(),
        &["--cells=10000", "--iters=1", "--diags=2"],
        "thr-airfoil-ordered-diags",
        "2",
    );
    r.ok();
    assert!(!r.stdout.contains("shrunk"), "{}", r.stdout);
}

/// Loops whose elements would race on a dat's rows, which no colouring
/// orders (tests/c/ordered_loops.c: a dat written directly and read
/// through a map, read directly and incremented through one, read and
/// incremented through two maps), run their elements in order on one
/// thread, one line each saying so, and answer as the plain C loops in the
/// program do, on every thread count and with blocks of 64; the coloured
/// loop beside them says nothing.
#[test]
fn loops_that_would_race_run_in_element_order() {
    let exe = openmp(Program::new(
        "thr_ordered",
        Lang::C99,
        &["tests/c/ordered_loops.c"],
    ));
    for t in THREADS {
        for args in [&[][..], &["OP_PART_SIZE=64"][..]] {
            let (r, _) = run_threads(&exe, args, &format!("ordered-{t}"), t);
            let ctx = format!("{t} threads {args:?}:\n{}\n{}", r.stdout, r.stderr);
            assert_eq!(r.status, Some(0), "{ctx}");
            assert!(r.stdout.contains("PASSED (0 wrong values)"), "{ctx}");
            let said: Vec<&str> = r
                .stdout
                .lines()
                .filter(|l| l.contains("runs its elements in order on one thread"))
                .collect();
            assert_eq!(
                said,
                [
                    " op2-rs: loop smooth runs its elements in order on one thread: arguments 0 and 1 reach dat v directly (OP_RW) and through map to_next (OP_READ), and elements side by side would race on its rows",
                    " op2-rs: loop carry runs its elements in order on one thread: arguments 0 and 1 reach dat u directly (OP_READ) and through map to_next (OP_INC), and elements side by side would race on its rows",
                    " op2-rs: loop pass_on runs its elements in order on one thread: arguments 0 and 1 reach dat w through maps with OP_READ and OP_INC, and elements side by side would race on its rows",
                ],
                "{ctx}"
            );
        }
    }
}
