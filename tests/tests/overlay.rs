//! Overlays (op_decl_dat_overlay(_ptr)), OP_NO_REALLOC and OP2's helpers for
//! reaching library-held data, on the single-node libraries:
//! tests/c/overlay.cpp compares each against values computed in the program
//! (PASS/FAIL lines), with and without OP_NO_REALLOC; bad calls stop with
//! one named error. The MPI side is in tests/tests/mpi.rs (data_helpers_*).

mod common;

use common::{assert_all_pass, assert_op2_error};
use op2_tests::{build_once, out_dir, run_in, Lang, Program};
use std::path::PathBuf;

const CHECKS: &[&str] = &[
    "no_realloc",
    "overlay_fields",
    "overlay_write_seen_by_dat",
    "dat_write_seen_by_overlay",
    "overlay_of_overlay_and_ptr",
    "data_ptr",
    "map_ptr",
    "set_registry",
    "g_index_single_node",
    "mpi_get_data",
    "get_put_dat_mpi",
    "write_index_and_txtfile2",
    "disable_switches",
    "compute_local_size",
    "halos_single_node",
];

fn program(lib: &str) -> PathBuf {
    build_once(&Program::new("overlay", Lang::Cxx17, &["tests/c/overlay.cpp"]).lib(lib))
}

fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(format!("overlay-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn overlay_and_data_helpers_seq() {
    let r = run_in(&program("op2_seq"), &[], &scratch("seq"), &[]);
    assert_all_pass(&r, CHECKS);
}

#[test]
fn overlay_and_data_helpers_openmp() {
    let r = run_in(
        &program("op2_openmp"),
        &[],
        &scratch("openmp"),
        &[("OMP_NUM_THREADS", "2")],
    );
    assert_all_pass(&r, CHECKS);
}

#[test]
fn no_realloc_uses_the_application_array() {
    for lib in ["op2_seq", "op2_openmp"] {
        let r = run_in(&program(lib), &["OP_NO_REALLOC"], &scratch(lib), &[]);
        assert!(
            r.stdout
                .contains("Disable user memory reallocation/internal copy"),
            "{}",
            r.stdout
        );
        assert_all_pass(&r, CHECKS);
    }
}

#[test]
fn bad_calls_are_named_errors() {
    let exe = program("op2_seq");
    let cases: &[(&str, &str, Option<&str>, &str)] = &[
        (
            "bad-big",
            "op_decl_dat_overlay",
            Some("dat \"on_half\""),
            "set \"nodes\" has 6 elements (halos included), more than the 4",
        ),
        (
            "bad-free",
            "op_free_dat_temp",
            Some("dat \"tmp\""),
            "an overlay of this dat on set \"half\"",
        ),
        (
            "bad-mode",
            "op_reset_data_ptr",
            Some("dat \"x\""),
            "unknown mode 3",
        ),
        (
            "bad-wrongset",
            "op_dat_write_index",
            Some("dat \"idx\""),
            "the dat is on set \"nodes\", not on \"half\"",
        ),
        (
            "bad-ptr",
            "op_decl_dat_overlay_ptr",
            None,
            "no dat was declared with the array",
        ),
    ];
    for (arg, call, o, phrase) in cases {
        let r = run_in(&exe, &[arg], &scratch(arg), &[]);
        assert_op2_error(&r, call, *o, phrase);
    }
}
