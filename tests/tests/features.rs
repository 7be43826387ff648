//! OP2 features against plain-C references, bitwise: tests/c/features.cpp
//! (C++17 op_par_loop template) and tests/c/features_c99.c (C kernels through
//! the C99 macros) run the checks of tests/c/features_common.h, each printing
//! `PASS <name>` or `FAIL <name>` after comparing OP2's result with the same
//! computation done by a plain loop in the program (memcmp; the sequential
//! library visits elements in set order). See features_common.h for what
//! each check does.

mod common;

use common::assert_all_pass;
use op2_tests::{build_once, run, Lang, Program};

/// Checks both programs run.
const COMMON: &[&str] = &[
    // C structs generated code dereferences (set, map, dat, op_arg fields)
    "struct_set",
    "struct_map",
    "struct_dat",
    "struct_arg_dat",
    "struct_arg_gbl",
    // OP_INC/OP_MIN/OP_MAX globals of each type: INC adds to the start
    // value, MIN/MAX include it (dim-2 globals: start wins / data wins)
    "gbl_inc_double_direct",
    "gbl_min_double_direct",
    "gbl_max_double_direct",
    "gbl_inc_float_direct",
    "gbl_min_float_direct",
    "gbl_max_float_direct",
    "gbl_inc_int_direct",
    "gbl_min_int_direct",
    "gbl_max_int_direct",
    "gbl_inc_double_indirect",
    "gbl_min_double_indirect",
    "gbl_max_double_indirect",
    "gbl_inc_float_indirect",
    "gbl_min_float_indirect",
    "gbl_max_float_indirect",
    "gbl_inc_int_indirect",
    "gbl_min_int_indirect",
    "gbl_max_int_indirect",
    // OP_WRITE / OP_RW globals, dim-3 READ and INC globals
    "gbl_write",
    "gbl_rw",
    "gbl_read_dim3",
    "gbl_inc_dim3",
    // vector arguments: idx -4 READ, idx -2 INC, idx -3 of a dim-4 map
    // (columns 0..2), and the pointers themselves
    "vector_read",
    "vector_inc",
    "vector_partial",
    "vector_pointers",
    // op_arg_idx: element index, map entry, pointer into the map
    "arg_idx_direct",
    "arg_idx_mapped",
    "arg_idx_mapped_pointer",
    // op_arg_info next to its OP_MAX global
    "arg_info",
    // op_opt_arg_dat / op_opt_arg_gbl with opt 0 (NULL, untouched) and 1;
    // opt 0 with no dat at all
    "opt_dat_off",
    "opt_dat_on",
    "opt_dat_off_null_dat",
    "opt_gbl_off",
    "opt_gbl_on",
    // temporaries, NULL data, copying at declaration, fetching
    "dat_temp_zero",
    "dat_temp_loop",
    "dat_temp_free",
    "dat_temp_free_twice",
    "dat_null_data_zero",
    "dat_decl_copies",
    "fetch_data",
    "fetch_data_idx_subrange",
    "fetch_data_idx_last",
    "fetch_data_idx_all",
    // dat access modes, direct and indirect; a map of dim 1
    "dat_write_direct",
    "dat_rw_direct",
    "map_dim1_inc",
    "dat_rw_indirect",
    "dat_write_indirect",
    // empty set, op_get_size, op_decl_const, type-name aliases
    "empty_set_loop",
    "get_size",
    "decl_const",
    "type_aliases",
];

/// Checks only the C programs run: 64 arguments, the most a C kernel may take.
const C_ONLY: &[&str] = &["args_64"];

/// Checks only the C++ program runs: op_malloc in a static initialiser, 20
/// arguments of every kind, 70 arguments (no 64-parameter limit in C++).
const CXX_ONLY: &[&str] = &["malloc_static_init", "args_20_mixed", "args_70"];

/// The second op_free_dat_temp of the same dat returns -1 with this warning.
const DOUBLE_FREE_WARNING: &str = "OP2 warning in op_free_dat_temp: ";

#[test]
fn features_cxx17() {
    let exe = build_once(&Program::new(
        "features_cxx",
        Lang::Cxx17,
        &["tests/c/features.cpp"],
    ));
    let r = run(&exe, &[], "features_cxx");
    let expected: Vec<&str> = COMMON.iter().chain(CXX_ONLY).copied().collect();
    assert_all_pass(&r, &expected);
    assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with(DOUBLE_FREE_WARNING), "{}", r.stderr);
}

#[test]
fn features_c99() {
    let exe = build_once(&Program::new(
        "features_c99",
        Lang::C99,
        &["tests/c/features_c99.c"],
    ));
    let r = run(&exe, &[], "features_c99");
    assert_all_pass(&r, &[COMMON, C_ONLY].concat());
    assert!(r.stdout.contains("DONE 0 failures"), "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with(DOUBLE_FREE_WARNING), "{}", r.stderr);
}

/// The same C99 source compiled as C11 (the macros then type-check with
/// _Generic) gives the same results.
#[test]
fn features_c11() {
    let exe = build_once(&Program::new(
        "features_c11",
        Lang::C11,
        &["tests/c/features_c99.c"],
    ));
    let r = run(&exe, &[], "features_c11");
    assert_all_pass(&r, &[COMMON, C_ONLY].concat());
}
