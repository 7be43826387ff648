//! Translator-style generated code against the OP2 runtime ABI (abi.md §2):
//! c-examples' airfoil with its op_par_loop calls replaced by hand-written
//! host stubs (tests/c/generated/airfoil_gen_main.cpp), in two flavours:
//!
//! * genseq (`airfoil_genseq_kernels.cpp`, libop2_seq): stubs indexing
//!   `arg.data` / `arg.map_data` themselves and recording `OP_kernels`; must
//!   be bitwise airfoil_ref and the op_seq.h build of airfoil;
//! * openmp (`airfoil_openmp_kernels.cpp`, -fopenmp, libop2_openmp): indirect
//!   loops over `op_plan_get_stage_upload` plans colour by colour, direct
//!   loops split over OpenMP threads; colouring reorders the OP_INC sums, so
//!   results are compared with a tolerance.
//!
//! plan_check.c reads a plan's arrays from C (`op_plan_check`, tiling,
//! colouring, staged-list round trip, plan cache) and executes a loop by it;
//! also with OP_COLOR2 staging, for an empty set, and with a corrupted plan.
//!
//! Runs use libgomp's passive wait policy: with as many OpenMP threads as
//! cores, spinning threads of a busy machine (e.g. tests running in
//! parallel) were seen to slow the many short parallel regions down fiftyfold.

#[path = "../c/generated/numeric.rs"]
mod numeric;

use numeric::*;
use op2_tests::{build_once, out_dir, run_in, Lang, Program, Run};
use std::path::{Path, PathBuf};

const MESH: &str = "c-examples/common/naca_mesh.c";
const AIRFOIL_ARGS: &[&str] = &["--cells=3000", "--iters=200", "--out=q.bin"];
/// (kernel, count) rows of the timing table after 200 iterations.
const KERNEL_COUNTS: &[(&str, i64)] = &[
    ("save_soln", 200),
    ("adt_calc", 400),
    ("res_calc", 400),
    ("bres_calc", 400),
    ("update", 400),
];
const TOL: f64 = 1e-12;

fn airfoil_program(name: &str, sources: &[&str]) -> Program {
    Program::new(name, Lang::Cxx17, sources)
        .include("c-examples/common")
        .include("c-examples/airfoil")
}

fn genseq() -> PathBuf {
    build_once(&airfoil_program(
        "gen_airfoil_genseq",
        &[
            "tests/c/generated/airfoil_gen_main.cpp",
            "tests/c/generated/airfoil_genseq_kernels.cpp",
            MESH,
        ],
    ))
}

fn openmp() -> PathBuf {
    build_once(
        &airfoil_program(
            "gen_airfoil_openmp",
            &[
                "tests/c/generated/airfoil_gen_main.cpp",
                "tests/c/generated/airfoil_openmp_kernels.cpp",
                MESH,
            ],
        )
        .lib("op2_openmp")
        .flag("-fopenmp"),
    )
}

fn airfoil_ref() -> PathBuf {
    build_once(&airfoil_program(
        "gen_airfoil_ref",
        &["c-examples/airfoil/airfoil_ref.cpp", MESH],
    ))
}

/// c-examples' airfoil (op_seq.h's op_par_loop) with the sequential library.
fn airfoil_opseq() -> PathBuf {
    build_once(&airfoil_program(
        "gen_airfoil_opseq",
        &["c-examples/airfoil/airfoil.cpp", MESH],
    ))
}

fn plan_check(lib: &str) -> PathBuf {
    build_once(
        &Program::new(
            "gen_plan_check",
            Lang::C99,
            &["tests/c/generated/plan_check.c"],
        )
        .lib(lib)
        .flag("-fopenmp"),
    )
}

fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Run in a fresh directory `tag` with `threads` OpenMP threads.
fn run_in_scratch(exe: &Path, args: &[&str], tag: &str, threads: &str) -> (Run, PathBuf) {
    let dir = scratch(tag);
    let r = run_in(
        exe,
        args,
        &dir,
        &[("OMP_NUM_THREADS", threads), ("OMP_WAIT_POLICY", "passive")],
    );
    (r, dir)
}

/// As run_in_scratch; the program must succeed.
fn run_tagged(exe: &Path, args: &[&str], tag: &str, threads: &str) -> (Run, PathBuf) {
    let (r, dir) = run_in_scratch(exe, args, tag, threads);
    r.ok();
    (r, dir)
}

/// genseq stubs = airfoil_ref = op_seq.h airfoil, to the last bit: same rms
/// history and q sums, same final q; OP_kernels filled by the stubs shows up
/// in op_timing_output; no plans, no `Total plan time` (sequential library).
#[test]
fn genseq_stubs_are_bitwise_the_sequential_airfoil() {
    let (gs, gs_dir) = run_tagged(&genseq(), AIRFOIL_ARGS, "gen-genseq", "1");
    let (reference, ref_dir) = run_tagged(&airfoil_ref(), AIRFOIL_ARGS, "gen-ref", "1");
    let (opseq, opseq_dir) = run_tagged(&airfoil_opseq(), AIRFOIL_ARGS, "gen-opseq", "1");

    let lines = result_lines(&gs.stdout);
    // generating.., sizes, initialising.., 2 rms lines, q sums, wrote q
    assert_eq!(lines.len(), 7, "{}", gs.stdout);
    assert!(gs.stdout.contains(" 200  "), "{}", gs.stdout);
    assert_eq!(
        lines,
        result_lines(&reference.stdout),
        "genseq vs airfoil_ref"
    );
    assert_eq!(
        lines,
        result_lines(&opseq.stdout),
        "genseq vs op_seq.h airfoil"
    );

    let q = std::fs::read(gs_dir.join("q.bin")).unwrap();
    assert_eq!(q.len(), 8 + 3042 * 4 * 8);
    assert!(
        q == std::fs::read(ref_dir.join("q.bin")).unwrap(),
        "final q differs from airfoil_ref"
    );
    assert!(
        q == std::fs::read(opseq_dir.join("q.bin")).unwrap(),
        "final q differs from op_seq.h airfoil"
    );

    assert_timing_rows(&gs.stdout, KERNEL_COUNTS);
    assert!(!gs.stdout.contains("Total plan time"), "{}", gs.stdout);
    assert!(
        !gs.stdout.contains(" plan 0 "),
        "genseq made a plan\n{}",
        gs.stdout
    );
}

/// OpenMP stubs on plans: the rms history, q sums and final q within 1e-12
/// (relative, normwise per component) of the sequential reference at 2 and
/// 3 threads; q does not depend on the thread count (it depends only on the
/// plan). Each plan is made once and handed out on every call
/// (`Plan->count`), the timing table lists the 5 kernels and the openmp
/// library prints `Total plan time:`.
#[test]
fn openmp_stubs_match_sequential_within_1e_12() {
    let (reference, ref_dir) = run_tagged(&airfoil_ref(), AIRFOIL_ARGS, "gen-omp-ref", "1");
    let q_ref = read_f64_dat(&ref_dir.join("q.bin"));
    let ref_lines = result_lines(&reference.stdout);
    let mut q_first: Option<Vec<u8>> = None;
    for threads in ["2", "3"] {
        let (r, dir) = run_tagged(
            &openmp(),
            AIRFOIL_ARGS,
            &format!("gen-omp-{threads}"),
            threads,
        );
        let ctx = format!("{threads} threads\n{}", r.stdout);

        // rms lines and the rest: numbers within TOL, text equal (the q sums
        // line is checked below: its y-momentum sum cancels to ~1e-14)
        let not_sums = |l: &Vec<String>| -> Vec<String> {
            l.iter()
                .filter(|s| !s.starts_with(" q sums:"))
                .cloned()
                .collect()
        };
        let lines = result_lines(&r.stdout);
        let line_diff = max_rel_diff_lines(&not_sums(&lines), &not_sums(&ref_lines))
            .unwrap_or_else(|e| panic!("{e}\n{ctx}"));
        assert!(line_diff <= TOL, "rms lines differ by {line_diff:e}\n{ctx}");

        let q = read_f64_dat(&dir.join("q.bin"));
        let d = dat_diff(&q, &q_ref);
        assert!(d.scaled <= TOL, "final q: {d:?}\n{ctx}");

        let scale = abs_sums(&q_ref);
        let (got, want) = (
            numbers_after(&r.stdout, " q sums:"),
            numbers_after(&reference.stdout, " q sums:"),
        );
        let sums_diff = got
            .iter()
            .zip(&want)
            .zip(&scale)
            .map(|((a, b), s)| (a - b).abs() / s)
            .fold(0.0, f64::max);
        assert!(sums_diff <= TOL, "q sums {got:?} vs {want:?}\n{ctx}");
        println!(
            "openmp stubs, {threads} threads: rms lines rel diff {line_diff:.3e}; final q rel diff {:.3e} normwise ({:.3e} pointwise); q sums {sums_diff:.3e} of sum |q|",
            d.scaled, d.pointwise
        );

        let bytes = std::fs::read(dir.join("q.bin")).unwrap();
        match &q_first {
            None => q_first = Some(bytes),
            Some(b) => assert!(*b == bytes, "final q depends on the thread count"),
        }

        assert_timing_rows(&r.stdout, KERNEL_COUNTS);
        assert!(r.stdout.contains("\nTotal plan time: "), "{ctx}");
        for (i, k) in ["adt_calc", "res_calc", "bres_calc"].iter().enumerate() {
            assert!(
                r.stdout.contains(&format!(" plan {i} {k} count 400 \n")),
                "plan {k}\n{ctx}"
            );
        }
        assert!(!r.stdout.contains(" plan 3 "), "more than 3 plans\n{ctx}");
    }
}

/// OP_diags = 2 (--diags=2, passed to op_init): one ` new execution plan #`
/// report per plan, on its first use only, with the block size asked for by
/// OP_PART_SIZE=128 (read by the stubs from OP_part_size); the genseq build
/// makes no plans and prints none.
#[test]
fn plan_reports_once_per_plan_at_diags_2() {
    let args = ["--cells=3000", "--iters=3", "--diags=2", "OP_PART_SIZE=128"];
    let (r, _) = run_tagged(&openmp(), &args, "gen-omp-diags", "2");
    let reports: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with(" new execution plan #"))
        .collect();
    assert_eq!(
        reports,
        [
            " new execution plan #0 for kernel adt_calc",
            " new execution plan #1 for kernel res_calc",
            " new execution plan #2 for kernel bres_calc",
        ],
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.matches(" maximum block size     = 128 \n").count(),
        3,
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  OP diagnostic output"), "{}", r.stdout);
    for (i, k) in ["adt_calc", "res_calc", "bres_calc"].iter().enumerate() {
        assert!(
            r.stdout.contains(&format!(" plan {i} {k} count 6 \n")),
            "{}",
            r.stdout
        );
    }

    let (s, _) = run_tagged(&genseq(), &args, "gen-genseq-diags", "1");
    assert!(s.stdout.contains("  OP diagnostic output"), "{}", s.stdout);
    assert!(!s.stdout.contains("execution plan"), "{}", s.stdout);
}

const PLAN_CHECKS: &[&str] = &[
    "op_plan_check",
    "plan header",
    "plan arrays mirror args",
    "colours: several; core 0, owned all",
    "blocks tile the set",
    "blkmap is a permutation",
    "blkmap grouped by colour",
    "colours conflict-free",
    "thread colours conflict-free",
    "inds_staged = inds (OP_STAGE_ALL)",
    "staged lists round-trip",
    "plan is in OP_plans",
    "same loop, same plan",
    "op_plan_get_stage(_upload) OP_STAGE_ALL, same plan",
    "other part size, new plan",
    "op_plan_check (other part size)",
    "other access, new plan",
    "other name, new plan",
    "cached plans found again",
    "read-only loop, one colour",
    "plan execution = plain loop",
];

/// Exactly the `expected` PASS lines, no FAIL line, exit status 0.
fn assert_plan_checks(r: &Run, expected: &[&str]) {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let pass: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("PASS "))
        .collect();
    let fail: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .collect();
    assert!(fail.is_empty(), "failed: {fail:?}\n{ctx}");
    assert_eq!(pass, expected, "{ctx}");
    assert_eq!(r.status, Some(0), "{ctx}");
}

#[test]
fn plan_abi_from_c_sequential_library() {
    let (r, _) = run_tagged(&plan_check("op2_seq"), &[], "gen-plan-seq", "2");
    assert_plan_checks(&r, PLAN_CHECKS);
}

#[test]
fn plan_abi_from_c_openmp_library() {
    for threads in ["1", "3"] {
        let (r, _) = run_tagged(
            &plan_check("op2_openmp"),
            &[],
            &format!("gen-plan-omp-{threads}"),
            threads,
        );
        assert_plan_checks(&r, PLAN_CHECKS);
        assert!(
            r.stdout
                .contains(&format!("executed with {threads} threads")),
            "{}",
            r.stdout
        );
    }
}

/// op_plan_check looks at the plan's real arrays: a block moved into another
/// colour's group of blkmap stops the program with an OP2 error.
#[test]
fn op_plan_check_catches_a_corrupted_blkmap() {
    let dir = scratch("gen-plan-corrupt");
    let r = run_in(
        &plan_check("op2_openmp"),
        &["corrupt"],
        &dir,
        &[("OMP_NUM_THREADS", "2")],
    );
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status, Some(1), "{ctx}");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{ctx}");
    assert!(
        lines[0]
            .starts_with(r#"OP2 error in op_plan_check (loop "edge_loop"): plan check failed: "#)
            && lines[0].contains("listed under colour"),
        "{ctx}"
    );
    assert!(
        r.stdout.contains("BEFORE") && !r.stdout.contains("UNREACHABLE"),
        "{ctx}"
    );
}

/// OP_COLOR2 plans (what CUDA-style generated code asks for): one block of
/// the whole set whose elements col_reord sorts by colour, colour boundaries
/// in color2_offsets = col_offsets[0]; executed colour by colour with OpenMP
/// they give the plain loop's results.
#[test]
fn color2_plan_from_c() {
    let expected = [
        "OP_COLOR2: one block of the whole set",
        "OP_COLOR2: ncolors = element colours",
        "OP_COLOR2: color2_offsets = col_offsets[0], 0 .. set size",
        "OP_COLOR2: col_reord is a permutation",
        "OP_COLOR2: colours conflict-free",
        "OP_COLOR2: execution = plain loop",
    ];
    let (r, _) = run_in_scratch(&plan_check("op2_seq"), &["color2"], "gen-c2-seq", "1");
    assert_plan_checks(&r, &expected);
    let (r, _) = run_in_scratch(&plan_check("op2_openmp"), &["color2"], "gen-c2-omp", "3");
    assert_plan_checks(&r, &expected);
}

/// op_plan_check on an OP_COLOR2 plan. OP2 sets `ncolors` to the element
/// colours of the single block but allocates `ncolblk` with exec_length
/// zeroed entries, so `ncolblk[c]` (c < ncolors) is valid (0 for c > 0).
/// op2-rs's ncolblk has only the block colours' entries (1), so
/// Plan::check indexes past it and panics (OP2 internal error, exit 70);
/// the same check runs inside op_plan_get_stage(..., OP_COLOR2) whenever
/// OP_diags > 0 (or in a debug build of the library), so COLOR2 plans
/// cannot be made at all then, and C code reading ncolblk[1..ncolors) reads
/// past the array.
#[test]
fn op_plan_check_accepts_a_color2_plan() {
    let (r, _) = run_in_scratch(
        &plan_check("op2_openmp"),
        &["color2_check"],
        "gen-c2-check",
        "2",
    );
    assert_plan_checks(&r, &["op_plan_check (OP_COLOR2)"]);
}

/// op_plan_check on the (block-less) plan of a loop over an empty set. It
/// finds its plan by the blkmap pointer, but the op_plan struct of a plan
/// without blocks has blkmap NULL while the stored plan's empty Vec has a
/// dangling non-null pointer, so the lookup fails: "the plan was not
/// returned by op_plan_get*" (exit 1). OP2 checks such a plan fine.
#[test]
fn op_plan_check_accepts_an_empty_set_plan() {
    let (r, _) = run_in_scratch(&plan_check("op2_openmp"), &["empty"], "gen-plan-empty", "2");
    assert_plan_checks(
        &r,
        &[
            "empty set: no blocks, no colours",
            "op_plan_check (empty set)",
        ],
    );
}

/// The report of a new plan at OP_diags > 1 has OP2's lines (abi.md §8.3,
/// OP2's op_plan_core): after ` shared memory required = ` each colour is
/// printed as ` %.2f KB` (so two spaces follow the `=`), then come
/// ` average data reuse     = ` and, last, ` SoA/AoS transfer ratio = `
/// before the blank line. op2-rs prints one space after the `=` and leaves
/// out both lines.
#[test]
fn plan_report_has_op2s_lines() {
    let args = ["--cells=3000", "--iters=1", "--diags=2"];
    let (r, _) = run_tagged(&openmp(), &args, "gen-omp-report", "1");
    let lines: Vec<&str> = r.stdout.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == " new execution plan #1 for kernel res_calc")
        .unwrap_or_else(|| panic!("no report for res_calc\n{}", r.stdout));
    let report: Vec<&str> = lines[start + 1..]
        .iter()
        .copied()
        .take_while(|l| !l.is_empty())
        .collect();
    let labels: Vec<&str> = report
        .iter()
        .map(|l| l.split('=').next().unwrap_or(""))
        .collect();
    assert_eq!(
        labels,
        [
            " number of blocks       ",
            " number of block colors ",
            " maximum block size     ",
            " average thread colors  ",
            " shared memory required ",
            " average data reuse     ",
            " data transfer (used)   ",
            " data transfer (total)  ",
            " SoA/AoS transfer ratio ",
        ],
        "{}",
        r.stdout
    );
    let shared = report[4]
        .strip_prefix(" shared memory required = ")
        .unwrap();
    for kb in shared.split(',') {
        assert!(
            kb.starts_with(' ')
                && kb.ends_with(" KB")
                && kb[1..kb.len() - 3].parse::<f64>().is_ok(),
            "{kb:?} in {:?}",
            report[4]
        );
    }
}
