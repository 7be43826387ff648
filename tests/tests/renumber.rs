//! op_renumber / op_renumber_ptr: a real reordering of the mesh for cache
//! locality, on every library.
//!
//! * tests/c/renumber.c: a quad grid numbered at random, renumbered, then
//!   indirect increments, indirect reads and a reduction compared exactly
//!   with plain C loops on the declared arrays; fetches (whole and by index
//!   range) in the declared order; a dat declared after the renumbering;
//!   the map's bandwidth read from the handle must have narrowed. On
//!   libop2_seq, libop2_openmp (2 threads, small blocks: plans and colours
//!   built on the renumbered mesh) and libop2_cuda on the host-simulated
//!   device (device copies made again).
//! * the airfoil example on a shuffled mesh with `--renumber`: the same rms
//!   lines, and a final q (written in the declared order) equal to the run
//!   without renumbering to 1e-12.
//! * errors: NULL map, NULL or unknown array, a map to an empty set.

mod common;

use common::{assert_all_pass, assert_op2_error};
use op2_tests::{build_once, out_dir, run, run_in, Lang, Program, Run};
use std::path::Path;

const CHECKS: &[&str] = &[
    "bandwidth_narrowed",
    "indirect_increments",
    "indirect_reads",
    "reduction",
    "fetch_declared_order",
    "fetch_idx_declared_order",
    "dat_declared_after",
    "user_arrays_untouched",
    "held_order",
];

fn program(lib: &str) -> Program {
    Program::new("renumber", Lang::C99, &["tests/c/renumber.c"]).lib(lib)
}

fn run_mode(lib: &str, mode: &str, env: &[(&str, &str)]) -> Run {
    let exe = build_once(&program(lib));
    let dir = out_dir()
        .join("runs")
        .join(format!("renumber-{lib}-{mode}"));
    run_in(&exe, &[mode], &dir, env)
}

fn expect_pass(lib: &str, mode: &str, env: &[(&str, &str)]) {
    let r = run_mode(lib, mode, env);
    assert_all_pass(&r, CHECKS);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn seq_renumber_ptr_and_twice() {
    for mode in ["renumber", "ptr", "twice"] {
        expect_pass("op2_seq", mode, &[]);
    }
}

/// The control: without op_renumber the same checks hold and the handle's
/// numbering is the declared one (so "bandwidth_narrowed" means something).
#[test]
fn seq_control_without_renumbering() {
    let r = run_mode("op2_seq", "none", &[]);
    let mut want: Vec<&str> = CHECKS.to_vec();
    want[0] = "numbering_kept";
    assert_all_pass(&r, &want);
}

#[test]
fn openmp_renumber_with_plans() {
    let env = [("OMP_NUM_THREADS", "2"), ("OP_PART_SIZE", "32")];
    for mode in ["renumber", "twice"] {
        expect_pass("op2_openmp", mode, &env);
    }
}

#[test]
fn cuda_library_on_the_simulated_device() {
    expect_pass("op2_cuda", "renumber", &[("OP2_RS_DEVICE", "host")]);
}

#[test]
fn errors_name_the_call() {
    let cases = [
        ("null", "op_renumber", None, "the map is NULL"),
        ("ptr_null", "op_renumber_ptr", None, "the map array is NULL"),
        (
            "ptr_unknown",
            "op_renumber_ptr",
            None,
            "not an array given to op_decl_map",
        ),
        (
            "empty",
            "op_renumber",
            Some("map \"pempty\""),
            "to-set is empty",
        ),
    ];
    for (mode, call, object, phrase) in cases {
        let exe = build_once(&program("op2_seq"));
        let r = run(&exe, &[mode], &format!("renumber-err-{mode}"));
        assert_op2_error(&r, call, object, phrase);
    }
}

// ---- the airfoil example --------------------------------------------------

fn airfoil(lib: &str) -> std::path::PathBuf {
    build_once(
        &Program::new(
            "renumber_airfoil",
            Lang::Cxx17,
            &[
                "c-examples/airfoil/airfoil.cpp",
                "c-examples/common/naca_mesh.c",
            ],
        )
        .include("c-examples/common")
        .include("c-examples/airfoil")
        .lib(lib),
    )
}

fn read_q(p: &Path) -> Vec<f64> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    b[8..]
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

fn airfoil_run(
    lib: &str,
    extra: &[&str],
    tag: &str,
    env: &[(&str, &str)],
) -> (Vec<String>, Vec<f64>) {
    let dir = out_dir()
        .join("runs")
        .join(format!("renumber-airfoil-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec!["--cells=3000", "--iters=200", "--out=q.bin", "--shuffle=11"];
    args.extend_from_slice(extra);
    let r = run_in(&airfoil(lib), &args, &dir, env);
    r.ok();
    let lines = r
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("100 ") || l.trim_start().starts_with("200 "))
        .map(str::to_string)
        .collect::<Vec<_>>();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    (lines, read_q(&dir.join("q.bin")))
}

fn assert_q_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= 1e-12 * scale, "q[{k}]: {a:e} vs {b:e}");
    }
}

#[test]
fn airfoil_shuffled_and_renumbered_gives_the_same_answers() {
    let (lines, q) = airfoil_run("op2_seq", &[], "seq", &[]);
    let (lines_r, q_r) = airfoil_run("op2_seq", &["--renumber"], "seq-renumber", &[]);
    assert_eq!(lines_r, lines);
    assert_q_close(&q_r, &q);
    assert_eq!(q.len(), 3042 * 4);
    let env = [("OMP_NUM_THREADS", "2")];
    let (lines_t, q_t) = airfoil_run("op2_openmp", &["--renumber"], "omp-renumber", &env);
    assert_eq!(lines_t, lines);
    assert_q_close(&q_t, &q);
}
