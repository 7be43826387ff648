//! Misuse of the OP2 API must stop the program at the bad call with one line
//! `OP2 error in <call> (<object>): <what>` on stderr and exit status 1,
//! before anything else runs. Programs: tests/c/bad_input.c (built as C99 and
//! as C11) and tests/c/bad_input_cpp.cpp (C++17), one case per argv[1]; the
//! assertions are in common::assert_op2_error.

mod common;

use common::assert_op2_error;
use op2_tests::{build_once, run, Lang, Program, Run};

fn c99() -> Program {
    Program::new("bad_input_c99", Lang::C99, &["tests/c/bad_input.c"])
}
fn c11() -> Program {
    Program::new("bad_input_c11", Lang::C11, &["tests/c/bad_input.c"])
}
fn cxx() -> Program {
    Program::new("bad_input_cxx", Lang::Cxx17, &["tests/c/bad_input_cpp.cpp"])
}

fn run_case(p: &Program, case: &str) -> Run {
    let exe = build_once(p);
    run(&exe, &[case], &format!("{}-{case}", p.name))
}

/// Run `case` of `p` and check the error line.
fn expect(p: Program, case: &str, call: &str, object: Option<&str>, phrase: &str) {
    assert_op2_error(&run_case(&p, case), call, object, phrase);
}

// ---- controls: the same set-up with a valid call runs to the end -------------

/// Without a bad call the programs reach UNREACHABLE and run the kernel once
/// per element, so the absence of those lines in the other cases means
/// something.
#[test]
fn control_cases_run_to_the_end() {
    for p in [c99(), c11(), cxx()] {
        let r = run_case(&p, "none");
        r.ok();
        assert!(r.stderr.is_empty(), "{}: {}", p.name, r.stderr);
        assert!(r.stdout.contains("BEFORE") && r.stdout.contains("UNREACHABLE"));
        assert_eq!(r.stdout.matches("KERNEL RAN").count(), 3, "{}", r.stdout);
    }
}

// ---- op_init / op_exit -------------------------------------------------------

#[test]
fn call_before_op_init() {
    expect(
        c99(),
        "before_init",
        "op_decl_set",
        None,
        "called before op_init",
    );
}

#[test]
fn call_after_op_exit() {
    expect(
        c99(),
        "after_exit",
        "op_decl_set",
        None,
        "called after op_exit",
    );
}

#[test]
fn op_init_twice() {
    expect(
        c99(),
        "init_twice",
        "op_init",
        None,
        "op_init was already called",
    );
}

// ---- sets and maps -----------------------------------------------------------

#[test]
fn negative_set_size() {
    expect(
        c99(),
        "set_negative",
        "op_decl_set",
        Some(r#"set "cells""#),
        "negative set size -3",
    );
}

#[test]
fn map_entry_out_of_range() {
    expect(
        c99(),
        "map_out_of_range",
        "op_decl_map",
        Some(r#"map "pbad""#),
        r#"entry 7 at element 1 column 1 is out of range (1 bad entry in all); valid entries are 0..3 of to-set "nodes""#,
    );
}

#[test]
fn map_entry_negative() {
    expect(
        c99(),
        "map_negative",
        "op_decl_map",
        Some(r#"map "pneg""#),
        "entry -2 at element 2 column 0 is negative",
    );
}

#[test]
fn map_dim_zero() {
    expect(
        c99(),
        "map_dim_zero",
        "op_decl_map",
        Some(r#"map "pzero""#),
        "dimension 0 must be positive",
    );
}

#[test]
fn map_null_array() {
    expect(
        c99(),
        "map_null_array",
        "op_decl_map",
        Some(r#"map "pnull""#),
        "the map array is NULL",
    );
}

#[test]
fn map_null_from_set() {
    expect(
        c99(),
        "map_null_from",
        "op_decl_map",
        Some(r#"map "pfrom""#),
        "from-set: the set is NULL",
    );
}

#[test]
fn map_null_to_set() {
    expect(
        c99(),
        "map_null_to",
        "op_decl_map",
        Some(r#"map "pto""#),
        "to-set: the set is NULL",
    );
}

// ---- dats ----------------------------------------------------------------------

#[test]
fn dat_null_set() {
    expect(
        c99(),
        "dat_null_set",
        "op_decl_dat",
        Some(r#"dat "orphan""#),
        "the set is NULL",
    );
}

#[test]
fn dat_dim_zero() {
    expect(
        c99(),
        "dat_dim_zero",
        "op_decl_dat",
        Some(r#"dat "flat""#),
        "dimension 0 must be positive",
    );
}

/// C99 can only compare sizes: float data declared "double".
#[test]
fn dat_type_c99_by_size() {
    expect(
        c99(),
        "dat_type",
        "op_decl_dat",
        Some(r#"dat "xf""#),
        r#"type "double" has 8-byte elements but the data's elements have 4 bytes"#,
    );
}

/// C11 names the pointer's type (_Generic).
#[test]
fn dat_type_c11() {
    expect(
        c11(),
        "dat_type",
        "op_decl_dat",
        Some(r#"dat "xf""#),
        r#"incorrect type specified: type string "double" but the data pointer is float*"#,
    );
}

/// Same size, different type: float data declared "int" (C11 only).
#[test]
fn dat_type_same_size_c11() {
    expect(
        c11(),
        "dat_type_same_size",
        "op_decl_dat",
        Some(r#"dat "xf""#),
        r#"type string "int" but the data pointer is float*"#,
    );
}

#[test]
fn dat_type_cxx() {
    expect(
        cxx(),
        "dat_type",
        "op_decl_dat",
        Some(r#"dat "xf""#),
        r#"type string "double" but the data pointer is float*"#,
    );
}

#[test]
fn dat_temp_type_cxx() {
    expect(
        cxx(),
        "dat_temp_type",
        "op_decl_dat_temp",
        Some(r#"dat "tmpf""#),
        r#"type string "float" but the data pointer is double*"#,
    );
}

#[test]
fn const_type_cxx() {
    expect(
        cxx(),
        "const_type",
        "op_decl_const",
        Some(r#"constant "g""#),
        r#"type string "int" but the data pointer is double*"#,
    );
}

#[test]
fn free_non_temp_dat() {
    expect(
        c99(),
        "free_non_temp",
        "op_free_dat_temp",
        Some(r#"dat "x""#),
        "not a temporary dat",
    );
}

#[test]
fn txt_dump_of_unknown_type() {
    expect(
        c99(),
        "txt_unknown_type",
        "op_print_dat_to_txtfile",
        Some(r#"dat "u""#),
        r#"cannot print type "my_t""#,
    );
}

// ---- op_arg_dat ------------------------------------------------------------------

#[test]
fn arg_dim_not_the_dats() {
    expect(
        c99(),
        "arg_dim",
        "op_arg_dat",
        Some(r#"dat "x""#),
        "arg dim 3 is not the dat's dim 2",
    );
}

#[test]
fn arg_type_not_the_dats() {
    expect(
        c99(),
        "arg_type",
        "op_arg_dat",
        Some(r#"dat "x""#),
        r#"arg type "float" is not the dat's type "double""#,
    );
}

/// A type string's address says nothing of its text: a buffer given again
/// with other text is read again (3,000 buffers first: more than the
/// library remembers by address).
#[test]
fn arg_type_in_a_reused_buffer() {
    for p in [c99(), c11()] {
        expect(
            p,
            "arg_type_buffer_reused",
            "op_arg_dat",
            Some(r#"dat "x""#),
            r#"arg type "float" is not the dat's type "double""#,
        );
    }
}

#[test]
fn arg_access_mode_unknown() {
    expect(
        c99(),
        "arg_access",
        "op_arg_dat",
        Some(r#"dat "x""#),
        "access mode 9 is not one of OP_READ..OP_WORK",
    );
}

#[test]
fn arg_min_on_a_dat() {
    expect(
        c99(),
        "arg_min_on_dat",
        "op_arg_dat",
        Some(r#"dat "x""#),
        "OP_MIN is only allowed on global arguments",
    );
}

#[test]
fn arg_direct_with_idx_not_minus_one() {
    expect(
        c99(),
        "arg_direct_idx",
        "op_arg_dat",
        Some(r#"dat "x""#),
        "idx 0 given with OP_ID; a direct argument must have idx -1",
    );
}

#[test]
fn arg_null_dat() {
    expect(c99(), "arg_null_dat", "op_arg_dat", None, "the dat is NULL");
}

#[test]
fn arg_freed_temp_dat() {
    expect(
        c99(),
        "arg_freed_temp",
        "op_arg_dat",
        None,
        "is not a live dat",
    );
}

#[test]
fn arg_idx_too_big() {
    expect(
        c99(),
        "arg_idx_too_big",
        "op_arg_dat",
        Some(r#"dat "x""#),
        r#"idx 2 is outside [-2, 2) for map "pedge""#,
    );
}

#[test]
fn arg_idx_too_negative() {
    expect(
        c99(),
        "arg_idx_too_negative",
        "op_arg_dat",
        Some(r#"dat "x""#),
        r#"idx -3 is outside [-2, 2) for map "pedge""#,
    );
}

/// idx -1 means "direct", which needs OP_ID, not a real map.
#[test]
fn arg_idx_minus_one_with_a_map() {
    expect(
        c99(),
        "arg_idx_minus_one_with_map",
        "op_arg_dat",
        Some(r#"dat "x""#),
        r#"idx -1 is outside [-2, 2) for map "pedge""#,
    );
}

#[test]
fn arg_map_to_set_not_the_dats() {
    expect(
        c99(),
        "arg_map_to_wrong_set",
        "op_arg_dat",
        Some(r#"dat "w""#),
        r#"map "pedge" goes to set "nodes" but the dat is on set "edges""#,
    );
}

// ---- op_arg_idx ------------------------------------------------------------------

#[test]
fn arg_idx_column_out_of_range() {
    expect(
        c99(),
        "arg_idx_map_range",
        "op_arg_idx",
        Some(r#"map "pedge""#),
        "idx 2 is outside [0, 2)",
    );
}

#[test]
fn arg_idx_direct_needs_minus_one() {
    expect(
        c99(),
        "arg_idx_direct",
        "op_arg_idx",
        None,
        "idx 0 with OP_ID",
    );
}

// ---- op_arg_gbl --------------------------------------------------------------------

#[test]
fn gbl_null_pointer() {
    expect(
        c99(),
        "gbl_null",
        "op_arg_gbl",
        Some(r#"global of type "double""#),
        "the data pointer is NULL",
    );
}

/// A NULL type string is named, for a dat and for a global, on every
/// header (the library reads type strings by address, never a NULL one).
#[test]
fn type_string_null() {
    for p in [c99(), c11()] {
        expect(
            p.clone(),
            "arg_type_null",
            "op_arg_dat",
            Some(r#"dat "x""#),
            "the type string is NULL",
        );
        expect(
            p,
            "gbl_type_null",
            "op_arg_gbl",
            None,
            "the type string is NULL",
        );
    }
}

#[test]
fn gbl_dim_zero() {
    expect(
        c99(),
        "gbl_dim_zero",
        "op_arg_gbl",
        Some(r#"global of type "double""#),
        "dim 0 must be positive",
    );
}

/// `op_arg_gbl(&intvar, 1, "double", OP_INC)`: C99 sees the size...
#[test]
fn gbl_type_c99_by_size() {
    expect(
        c99(),
        "gbl_type",
        "op_arg_gbl",
        Some(r#"global of type "double""#),
        r#"type "double" has 8-byte elements but the data's elements have 4 bytes"#,
    );
}

/// ... C11 the type, through _Generic ...
#[test]
fn gbl_type_c11() {
    expect(
        c11(),
        "gbl_type",
        "op_arg_gbl",
        Some(r#"global of type "double""#),
        r#"incorrect type specified: type string "double" but the data pointer is int*"#,
    );
}

/// ... and C++ through the template.
#[test]
fn gbl_type_cxx() {
    expect(
        cxx(),
        "gbl_type",
        "op_arg_gbl",
        Some(r#"global of type "double""#),
        r#"type string "double" but the data pointer is int*"#,
    );
}

// ---- op_par_loop -------------------------------------------------------------------

#[test]
fn loop_direct_dat_not_on_loop_set() {
    expect(
        c99(),
        "loop_direct_wrong_set",
        "op_par_loop",
        Some(r#"loop "kdirect""#),
        r#"arg 0: direct dat "x" is on set "nodes", not on the loop set "edges""#,
    );
}

#[test]
fn loop_map_from_set_not_loop_set() {
    expect(
        c99(),
        "loop_map_from_wrong_set",
        "op_par_loop",
        Some(r#"loop "kfrom""#),
        r#"arg 0: map "pedge" is from set "edges", not from the loop set "nodes""#,
    );
}

#[test]
fn loop_null_set() {
    expect(
        c99(),
        "loop_null_set",
        "op_par_loop",
        Some(r#"loop "knull""#),
        "loop set: the set is NULL",
    );
}

#[test]
fn loop_null_kernel() {
    expect(
        c99(),
        "loop_null_kernel",
        "op_par_loop",
        Some(r#"loop "nokernel""#),
        "the kernel is NULL",
    );
}

/// 65 args through op2_par_loop_c: C kernels take at most 64.
#[test]
fn loop_more_than_64_args_in_c() {
    expect(
        c99(),
        "loop_65_args",
        "op_par_loop",
        Some(r#"loop "k65""#),
        "65 args: C kernels may have at most 64 parameters",
    );
}

#[test]
fn loop_without_args() {
    expect(
        c99(),
        "loop_zero_args",
        "op_par_loop",
        Some(r#"loop "k0""#),
        "a loop needs at least one argument",
    );
}

#[test]
fn loop_arg_of_unknown_argtype() {
    expect(
        c99(),
        "loop_bad_argtype",
        "op_par_loop",
        Some(r#"loop "kgarbage""#),
        "arg 0: argtype 99 is not OP_ARG_DAT/GBL/IDX/INFO",
    );
}

/// C++: the kernel takes int* for a "double" dat.
#[test]
fn loop_kernel_param_type_cxx() {
    expect(
        cxx(),
        "kernel_param_type",
        "op_par_loop",
        Some(r#"loop "kint""#),
        r#"arg 0: the kernel parameter is int* but the argument's type is "double""#,
    );
}

/// C++: the kernel takes float* for a "double" global.
#[test]
fn loop_kernel_gbl_param_type_cxx() {
    expect(
        cxx(),
        "kernel_gbl_param_type",
        "op_par_loop",
        Some(r#"loop "kgbl""#),
        r#"arg 1: the kernel parameter is float* but the argument's type is "double""#,
    );
}

/// C++: a vector argument (idx -2) needs T**, the kernel takes T*.
#[test]
fn loop_kernel_ptr_for_vector_arg_cxx() {
    expect(
        cxx(),
        "kernel_vector_as_ptr",
        "op_par_loop",
        Some(r#"loop "kvec""#),
        "arg 0: a vector argument (idx < -1) needs a kernel parameter of type T**",
    );
}

/// C++: T** for an argument that is not a vector argument.
#[test]
fn loop_kernel_ptrptr_for_plain_arg_cxx() {
    expect(
        cxx(),
        "kernel_ptrptr_not_vector",
        "op_par_loop",
        Some(r#"loop "kpp""#),
        "arg 0: the kernel parameter is double** but the argument is not a vector argument",
    );
}

/// C++: op_arg_idx gives an int, the kernel takes double*.
#[test]
fn loop_kernel_idx_param_type_cxx() {
    expect(
        cxx(),
        "kernel_idx_type",
        "op_par_loop",
        Some(r#"loop "kidx""#),
        r#"arg 0: the kernel parameter is double* but the argument's type is "int""#,
    );
}

// ---- fetching ------------------------------------------------------------------------

#[test]
fn fetch_idx_past_the_end() {
    expect(
        c99(),
        "fetch_idx_high",
        "op_fetch_data_idx",
        Some(r#"dat "x""#),
        "range [0, 4] is not inside the set's elements [0, 3]",
    );
}

#[test]
fn fetch_idx_negative_low() {
    expect(
        c99(),
        "fetch_idx_low",
        "op_fetch_data_idx",
        Some(r#"dat "x""#),
        "range [-1, 2] is not inside",
    );
}

#[test]
fn fetch_idx_reversed_range() {
    expect(
        c99(),
        "fetch_idx_reversed",
        "op_fetch_data_idx",
        Some(r#"dat "x""#),
        "range [3, 1] is not inside",
    );
}

/// op_fetch_data of a double dat into an int array (C99 sees the size).
#[test]
fn fetch_into_wrong_element_size() {
    expect(
        c99(),
        "fetch_wrong_size",
        "op_fetch_data",
        Some(r#"dat "x""#),
        "the destination has 4-byte elements but the dat's type \"double\" has 8-byte elements",
    );
}

#[test]
fn fetch_into_wrong_type_cxx() {
    expect(
        cxx(),
        "fetch_type",
        "op_fetch_data",
        Some(r#"dat "x""#),
        "the destination has 4-byte elements",
    );
}

// ---- storage that cannot be allocated ----------------------------------------

/// 2^30 elements x dim 2^20 doubles: the allocator refuses, OP2 names the dat.
#[test]
fn dat_storage_cannot_be_allocated() {
    expect(
        c99(),
        "dat_alloc",
        "op_decl_dat",
        Some(r#"dat "big""#),
        r#"cannot allocate 9007199254740992 bytes (set "huge", 1073741824 elements x dim 1048576 x 8 bytes)"#,
    );
}

#[test]
fn dat_storage_size_overflows() {
    expect(
        c11(),
        "dat_size_overflow",
        "op_decl_dat",
        Some(r#"dat "big""#),
        r#"cannot allocate storage: set "huge", 2147483647 elements x dim 2147483647 x 8 bytes overflows the address space"#,
    );
}

#[test]
fn map_storage_cannot_be_allocated() {
    expect(
        c99(),
        "map_alloc",
        "op_decl_map",
        Some(r#"map "bigmap""#),
        r#"cannot allocate 4503599627370496 bytes (from-set "huge", 1073741824 elements x dim 1048576 x 4 bytes)"#,
    );
}

#[test]
fn long_map_storage_cannot_be_allocated() {
    expect(
        c99(),
        "map_long_alloc",
        "op_decl_map_long",
        Some(r#"map "bigmap""#),
        r#"cannot allocate 4503599627370496 bytes (from-set "huge", 1073741824 elements x dim 1048576 x 4 bytes)"#,
    );
}

#[test]
fn map_storage_size_overflows() {
    expect(
        c99(),
        "map_size_overflow",
        "op_decl_map",
        Some(r#"map "bigmap""#),
        r#"cannot allocate storage: from-set "huge", 2147483647 elements x dim 2147483647 x 4 bytes overflows the address space"#,
    );
}

// ---- type strings that are not OP2's spelling of the element type -----------

/// (program, case, call, object, the string, the C type named in the message)
const SPELLINGS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "c11",
        "dat_type_spelling",
        "op_decl_dat",
        r#"dat "xs""#,
        "doubel",
        "double",
    ),
    (
        "c11",
        "dat_temp_type_spelling",
        "op_decl_dat_temp",
        r#"dat "tmps""#,
        "dbl",
        "double",
    ),
    (
        "c11",
        "gbl_type_spelling",
        "op_arg_gbl",
        r#"global of type "int32""#,
        "int32",
        "int",
    ),
    (
        "c11",
        "const_type_spelling",
        "op_decl_const",
        r#"constant "fc""#,
        "single",
        "float",
    ),
    (
        "cxx",
        "dat_type_spelling",
        "op_decl_dat",
        r#"dat "xs""#,
        "doubel",
        "double",
    ),
    (
        "cxx",
        "dat_temp_type_spelling",
        "op_decl_dat_temp",
        r#"dat "tmps""#,
        "dbl",
        "double",
    ),
    (
        "cxx",
        "gbl_type_spelling",
        "op_arg_gbl",
        r#"global of type "long long int""#,
        "long long int",
        "long long",
    ),
    (
        "cxx",
        "const_type_spelling",
        "op_decl_const",
        r#"constant "k""#,
        "i32",
        "int",
    ),
];

/// A string that is not OP2's name of the pointer's known element type is an
/// error (it used to be taken for a user type and run as if it were).
#[test]
fn type_strings_must_be_op2_spellings() {
    for &(lang, case, call, object, given, ctype) in SPELLINGS {
        let p = if lang == "c11" { c11() } else { cxx() };
        let phrase = format!(
            "incorrect type specified: type string \"{given}\" is not an OP2 spelling of {ctype}"
        );
        assert_op2_error(&run_case(&p, case), call, Some(object), &phrase);
    }
}

/// Struct pointers carry no element type: their type strings are user types
/// and stay accepted (C99, C11, C++).
#[test]
fn user_types_are_still_accepted() {
    for p in [c99(), c11(), cxx()] {
        let r = run_case(&p, "user_type_accepted");
        r.ok();
        assert!(r.stderr.is_empty(), "{}: {}", p.name, r.stderr);
        assert!(r.stdout.contains("USER TYPE OK"), "{}", r.stdout);
    }
}

/// OP2's Fortran-style spellings of a C++ element type stay valid.
#[test]
fn op2_spellings_are_accepted() {
    for p in [c11(), cxx()] {
        let r = run_case(&p, "op2_spellings");
        r.ok();
        assert!(r.stderr.is_empty(), "{}: {}", p.name, r.stderr);
        assert!(r.stdout.contains("SPELLINGS OK"), "{}", r.stdout);
    }
}
