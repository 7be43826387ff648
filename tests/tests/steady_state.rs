//! Steady state of `op_par_loop` (tests/c/steady_state.cpp): once a loop's
//! plan exists, running it again allocates nothing (the program interposes
//! malloc & co. and counts calls made while loops run), and the sequential
//! library never starts a thread (plan construction for generated code and
//! op_partition included).

use op2_tests::{build_once, out_dir, run_in, Lang, Program};

fn program(lib: &str) -> std::path::PathBuf {
    build_once(&Program::new("steady_state", Lang::Cxx17, &["tests/c/steady_state.cpp"]).lib(lib))
}

fn allocations(stdout: &str) -> i64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("allocations "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no allocation count in:\n{stdout}"))
}

#[test]
fn sequential_library_allocates_nothing_and_starts_no_thread() {
    let exe = program("op2_seq");
    let r = run_in(&exe, &["0", "1"], &out_dir().join("runs/steady-seq"), &[]);
    r.ok();
    assert_eq!(allocations(&r.stdout), 0, "{}", r.stdout);
    assert!(r.stdout.contains("threads 1\n"), "{}", r.stdout);
}

#[test]
fn threads_library_allocates_nothing_in_steady_state() {
    let exe = program("op2_openmp");
    for threads in ["1", "2", "3"] {
        let r = run_in(
            &exe,
            &["0", "0"],
            &out_dir().join(format!("runs/steady-openmp-{threads}")),
            &[("OMP_NUM_THREADS", threads)],
        );
        r.ok();
        assert_eq!(allocations(&r.stdout), 0, "{threads} threads: {}", r.stdout);
    }
}

fn threads(stdout: &str) -> usize {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("threads "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no thread count in:\n{stdout}"))
}

#[test]
fn threads_library_starts_threads_only_for_loops_worth_it() {
    // OP2-Common's jac1 (a 6 x 6 grid) ran 1.26x slower with libop2_openmp
    // than with libop2_seq, which started threads that never ran a block:
    // small loops run on the calling thread, so they must not start the
    // team or the plan pool either.
    let exe = program("op2_openmp");
    let small = run_in(
        &exe,
        &["0", "1", "small"],
        &out_dir().join("runs/steady-openmp-small"),
        &[("OMP_NUM_THREADS", "2")],
    );
    small.ok();
    assert_eq!(threads(&small.stdout), 1, "{}", small.stdout);
    // The control: the same program on large sets does start them.
    let large = run_in(
        &exe,
        &["0", "0"],
        &out_dir().join("runs/steady-openmp-large"),
        &[("OMP_NUM_THREADS", "2")],
    );
    large.ok();
    assert!(threads(&large.stdout) > 1, "{}", large.stdout);
}

#[test]
fn the_counter_counts() {
    // The same program with a kernel that allocates would be caught: check
    // that the count is live by letting the program allocate on purpose.
    let exe = program("op2_seq");
    let r = run_in(
        &exe,
        &["0", "1", "leak"],
        &out_dir().join("runs/steady-leak"),
        &[],
    );
    assert_eq!(r.status, Some(1), "{}", r.stdout);
    assert!(allocations(&r.stdout) > 0, "{}", r.stdout);
}

#[test]
fn c_kernels_allocate_nothing_in_steady_state() {
    for lib in ["op2_seq", "op2_openmp"] {
        let exe = build_once(
            &Program::new("steady_state_c", Lang::C99, &["tests/c/steady_state_c.c"]).lib(lib),
        );
        let r = run_in(
            &exe,
            &[],
            &out_dir().join(format!("runs/steady-c-{lib}")),
            &[("OMP_NUM_THREADS", "2")],
        );
        r.ok();
        assert_eq!(allocations(&r.stdout), 0, "{lib}: {}", r.stdout);
    }
}
