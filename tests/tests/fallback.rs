//! The calls of translator-v2's fallback wrappers (OP2's behaviour, read in
//! op_lib_core.cpp): `op_check_whitelist(name)` is true unless
//! `op_disable_device_execution(true)` was called or `OP_WHITELIST` names a
//! file none of whose lines (regular expressions) matches the whole name;
//! `op_check_fallback_mode(name)` is silent, prints `Warning: using fallback
//! kernel for <name>` (`OP_FALLBACK_MODE=warn`/`warning`) or stops the
//! program (`error`). Both variables are read by op_init from the
//! environment only (OP2 has no command-line form).
//!
//! Programs: tests/c/fallback.c (each decision of a wrapper, with libop2_seq
//! and libop2_openmp) and tests/fortran/fallback.F90 (a hand-written wrapper
//! around a direct and an indirect loop whose fallback works on the
//! library's data as generated seq code does; the results are checked in
//! both paths).

mod common;

use common::assert_op2_error;
use op2_tests::{build_once, lib_dir, out_dir, root, Lang, Program, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const NAMES: &[&str] = &["save_soln", "res_calc", "bres_calc", "update"];

fn c_program(lib: &str) -> PathBuf {
    build_once(&Program::new("fallback_c", Lang::C99, &["tests/c/fallback.c"]).lib(lib))
}

fn scratch(tag: &str) -> PathBuf {
    let d = out_dir().join("runs").join(format!("fallback-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run `exe` in `dir` with exactly these fallback settings (the test's own
/// environment does not leak in).
fn run_with(exe: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Run {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .env_remove("OP_WHITELIST")
        .env_remove("OP_FALLBACK_MODE")
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The C program's `query` case for NAMES under `env`, with `whitelist` (if
/// any) written to a file that OP_WHITELIST names.
fn query(lib: &str, tag: &str, whitelist: Option<&str>, env: &[(&str, &str)]) -> Run {
    query_names(lib, tag, "query", NAMES, whitelist, env)
}

fn query_names(
    lib: &str,
    tag: &str,
    case: &str,
    names: &[&str],
    whitelist: Option<&str>,
    env: &[(&str, &str)],
) -> Run {
    let dir = scratch(&format!("{lib}-{tag}"));
    let mut env: Vec<(&str, &str)> = env.to_vec();
    if let Some(text) = whitelist {
        std::fs::write(dir.join("whitelist.txt"), text).unwrap();
        env.push(("OP_WHITELIST", "whitelist.txt"));
    }
    let mut args = vec![case];
    args.extend_from_slice(names);
    run_with(&c_program(lib), &args, &dir, &env)
}

/// The wrapper decisions the program printed, in order, after `prefix`
/// ("" / "early " / "disabled " / "enabled ").
fn decisions(r: &Run, prefix: &str) -> Vec<String> {
    r.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter(|l| l.starts_with("main ") || l.starts_with("fallback "))
        .map(String::from)
        .collect()
}

/// The decisions for NAMES when exactly `main` run their main version.
fn expected(main: &[&str]) -> Vec<String> {
    NAMES
        .iter()
        .map(|n| {
            let path = if main.contains(n) { "main" } else { "fallback" };
            format!("{path} {n}")
        })
        .collect()
}

fn warnings(r: &Run) -> Vec<&str> {
    r.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Warning: using fallback kernel for "))
        .collect()
}

fn ctx(r: &Run) -> String {
    format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr)
}

const LIBS: [&str; 2] = ["op2_seq", "op2_openmp"];

#[test]
fn no_settings_run_every_main_version() {
    for lib in LIBS {
        let r = query(lib, "none", None, &[]);
        r.ok();
        assert_eq!(decisions(&r, ""), expected(NAMES), "{}", ctx(&r));
        assert!(!r.stdout.contains("whitelist") && !r.stdout.contains("fallback mode"));
        assert!(r.stderr.is_empty(), "{}", ctx(&r));
    }
}

#[test]
fn whitelist_lines_match_whole_names() {
    // "res_calc" must not let "bres_calc" through (regex_match, not search);
    // "up.*" matches "update"; a line for a loop the program lacks is harmless
    let wl = "res_calc\nup.*\nno_such_loop\n";
    for lib in LIBS {
        let r = query(lib, "whitelist", Some(wl), &[]);
        r.ok();
        assert_eq!(
            decisions(&r, ""),
            expected(&["res_calc", "update"]),
            "{}",
            ctx(&r)
        );
        assert!(r
            .stdout
            .contains("\n Using kernel whitelist: whitelist.txt\n"));
        // no OP_FALLBACK_MODE: fallbacks run silently
        assert!(warnings(&r).is_empty(), "{}", ctx(&r));
    }
    // alternation, classes and groups; an empty line matches no name
    let r = query(
        "op2_seq",
        "whitelist-syntax",
        Some("(save|bres)_\\w+\n\n[a-z]{6}\n"),
        &[],
    );
    r.ok();
    assert_eq!(
        decisions(&r, ""),
        expected(&["save_soln", "bres_calc", "update"]),
        "{}",
        ctx(&r)
    );
}

#[test]
fn a_whitelist_of_empty_lines_sends_every_loop_to_its_fallback() {
    // as in OP2: each line is an expression, "" matches only the empty name
    let r = query("op2_seq", "whitelist-empty-line", Some("\n"), &[]);
    r.ok();
    assert_eq!(decisions(&r, ""), expected(&[]), "{}", ctx(&r));
    // an empty file is no whitelist at all
    let r = query("op2_seq", "whitelist-empty-file", Some(""), &[]);
    r.ok();
    assert_eq!(decisions(&r, ""), expected(NAMES), "{}", ctx(&r));
}

#[test]
fn a_missing_whitelist_file_is_reported_and_skipped() {
    let dir = scratch("missing");
    let r = run_with(
        &c_program("op2_seq"),
        &["query", "res_calc"],
        &dir,
        &[("OP_WHITELIST", "no/such/file.txt")],
    );
    r.ok();
    assert!(
        r.stdout.contains(
            " Using kernel whitelist: no/such/file.txt\n \
             Error: could not open kernel whitelist, skipping\n"
        ),
        "{}",
        ctx(&r)
    );
    assert_eq!(decisions(&r, ""), ["main res_calc"]);
}

#[test]
fn a_line_that_is_not_a_regular_expression_is_a_named_error() {
    // OP2 dies of an uncaught std::regex_error here; we name the line
    let r = query("op2_seq", "whitelist-bad", Some("res_calc\n(update\n"), &[]);
    let c = ctx(&r);
    assert_eq!(r.status, Some(1), "{c}");
    assert_eq!(
        r.stderr,
        "OP2 error in op_init (OP_WHITELIST): line 2 of whitelist.txt ('(update') \
         is not a regular expression op2-rs accepts: unclosed group\n",
        "{c}"
    );
    assert!(decisions(&r, "").is_empty(), "{c}");
}

#[test]
fn fallback_modes() {
    let wl = Some("save_soln\n");
    for lib in LIBS {
        for mode in ["warn", "warning"] {
            let r = query(lib, mode, wl, &[("OP_FALLBACK_MODE", mode)]);
            r.ok();
            assert!(r
                .stdout
                .contains(&format!("\n Using fallback mode: {mode}\n")));
            assert_eq!(decisions(&r, ""), expected(&["save_soln"]), "{}", ctx(&r));
            assert_eq!(
                warnings(&r),
                ["res_calc", "bres_calc", "update"],
                "{}",
                ctx(&r)
            );
        }
        let r = query(lib, "silent", wl, &[("OP_FALLBACK_MODE", "silent")]);
        r.ok();
        assert!(r.stdout.contains("\n Using fallback mode: silent\n"));
        assert_eq!(decisions(&r, ""), expected(&["save_soln"]));
        assert!(warnings(&r).is_empty(), "{}", ctx(&r));
    }
}

#[test]
fn error_mode_stops_at_the_first_fallback() {
    for lib in LIBS {
        let r = query(
            lib,
            "error",
            Some("save_soln\n"),
            &[("OP_FALLBACK_MODE", "error")],
        );
        let c = ctx(&r);
        assert_eq!(r.status, Some(1), "{c}");
        assert_eq!(decisions(&r, ""), ["main save_soln"], "{c}");
        assert!(r.stdout.contains("BEFORE res_calc"), "{c}");
        assert_eq!(
            r.stderr,
            "OP2 error in op_check_fallback_mode (res_calc): no device kernel for this loop, \
             and OP_FALLBACK_MODE=error forbids running its fallback\n",
            "{c}"
        );
        // every loop whitelisted: error mode never triggers
        let r = query(
            lib,
            "error-all-main",
            None,
            &[("OP_FALLBACK_MODE", "error")],
        );
        r.ok();
        assert_eq!(decisions(&r, ""), expected(NAMES));
    }
}

#[test]
fn an_unknown_mode_is_reported_and_fallbacks_run_silently() {
    // OP2's spellings are lower case; anything else gets OP2's warning
    for bad in ["Error", "bogus", ""] {
        let r = query(
            "op2_seq",
            &format!("mode-{bad}"),
            Some("update\n"),
            &[("OP_FALLBACK_MODE", bad)],
        );
        r.ok();
        assert!(
            r.stdout
                .contains(&format!("\n Warning: Unknown fallback mode: {bad}\n")),
            "{}",
            ctx(&r)
        );
        assert_eq!(decisions(&r, ""), expected(&["update"]));
        assert!(warnings(&r).is_empty(), "{}", ctx(&r));
    }
}

#[test]
fn the_settings_come_from_the_environment_only() {
    // OP2's op_set_args does not read OP_FALLBACK_MODE / OP_WHITELIST: as
    // command-line arguments they are not settings (here: loop names)
    let names = ["OP_FALLBACK_MODE=error", "OP_WHITELIST=x"];
    let r = query_names("op2_seq", "argv", "query", &names, Some("update\n"), &[]);
    r.ok();
    assert_eq!(
        decisions(&r, ""),
        ["fallback OP_FALLBACK_MODE=error", "fallback OP_WHITELIST=x"],
        "{}",
        ctx(&r)
    );
    assert!(!r.stdout.contains("Using fallback mode"), "{}", ctx(&r));
}

#[test]
fn before_op_init_every_loop_runs_its_main_version() {
    // OP2 reads the settings in op_init: before it the whitelist is empty
    let r = query_names(
        "op2_seq",
        "early",
        "early",
        NAMES,
        Some("update\n"),
        &[("OP_FALLBACK_MODE", "warn")],
    );
    r.ok();
    assert_eq!(decisions(&r, "early "), expected(NAMES), "{}", ctx(&r));
    assert_eq!(decisions(&r, ""), expected(&["update"]), "{}", ctx(&r));
    assert_eq!(warnings(&r).len(), 3, "{}", ctx(&r));
}

#[test]
fn disabled_device_execution_sends_every_loop_to_its_fallback_silently() {
    for lib in LIBS {
        let r = query_names(
            lib,
            "disabled",
            "disabled",
            NAMES,
            Some("res_calc\n"),
            &[("OP_FALLBACK_MODE", "error")],
        );
        let c = ctx(&r);
        // disabled: every loop falls back, and error mode does not stop it
        // (OP2 returns before looking at the mode)
        assert_eq!(decisions(&r, "disabled "), expected(&[]), "{c}");
        // enabled again: the whitelist rules, and error mode stops at the
        // first fallback
        assert!(decisions(&r, "enabled ").is_empty(), "{c}");
        assert_eq!(r.status, Some(1), "{c}");
        assert!(
            r.stderr
                .starts_with("OP2 error in op_check_fallback_mode (save_soln): "),
            "{c}"
        );
        let r = query_names(
            lib,
            "disabled-warn",
            "disabled",
            NAMES,
            Some("res_calc\n"),
            &[("OP_FALLBACK_MODE", "warn")],
        );
        r.ok();
        assert_eq!(decisions(&r, "disabled "), expected(&[]));
        assert_eq!(decisions(&r, "enabled "), expected(&["res_calc"]));
        // warnings only from the enabled round
        assert_eq!(warnings(&r), ["save_soln", "bres_calc", "update"]);
    }
}

#[test]
fn null_names_are_errors() {
    let dir = scratch("null");
    let exe = c_program("op2_seq");
    let r = run_with(&exe, &["null_name"], &dir, &[]);
    assert_op2_error(
        &r,
        "op_check_whitelist",
        None,
        "kernel name is a null pointer",
    );
    let r = run_with(&exe, &["null_mode"], &dir, &[]);
    assert_op2_error(
        &r,
        "op_check_fallback_mode",
        None,
        "kernel name is a null pointer",
    );
}

// ---- Fortran -----------------------------------------------------------------

/// gfortran is usable; false (with a message) only when skipping was asked for.
fn have_gfortran() -> bool {
    let ok = Command::new("gfortran")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok && std::env::var_os("OP2_SKIP_FORTRAN").is_some() {
        eprintln!("SKIPPED: gfortran not found and OP2_SKIP_FORTRAN is set");
        return false;
    }
    assert!(
        ok,
        "gfortran not found: install it, or set OP2_SKIP_FORTRAN=1 to skip the Fortran tests"
    );
    true
}

/// gfortran in `dir` (objects and modules there); fails on any warning.
fn gfortran(dir: &Path, args: &[String]) {
    let out = Command::new("gfortran")
        .args(["-O2", "-Wall", "-ffp-contract=off", "-J"])
        .arg(dir)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run gfortran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "gfortran {args:?} failed:\n{stderr}");
    assert!(
        !stderr.to_lowercase().contains("warning"),
        "gfortran {args:?} gave warnings:\n{stderr}"
    );
}

/// tests/fortran/fallback.F90 with our modules, linked with libop2_openmp.
fn fortran_program() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = out_dir().join("fallback_fortran");
        std::fs::create_dir_all(&dir).unwrap();
        let src = |s: &str| root().join(s).display().to_string();
        let mut objs = Vec::new();
        for m in [
            "fortran/op2_for_declarations.F90",
            "fortran/op2_for_reference.F90",
            "fortran/op2_for_rt_support.F90",
            "tests/fortran/fallback_kernels.F90",
        ] {
            let name = Path::new(m).with_extension("o");
            let obj = dir.join(name.file_name().unwrap());
            gfortran(
                &dir,
                &["-c".into(), src(m), "-o".into(), obj.display().to_string()],
            );
            objs.push(obj.display().to_string());
        }
        let exe = dir.join("fallback");
        let mut args = vec![
            format!("-I{}", dir.display()),
            src("tests/fortran/fallback.F90"),
        ];
        args.extend(objs);
        args.push(lib_dir().join("libop2_openmp.a").display().to_string());
        args.extend(["-lpthread", "-ldl", "-lm", "-o"].map(String::from));
        args.push(exe.display().to_string());
        gfortran(&dir, &args);
        exe
    })
    .clone()
}

fn fortran_run(tag: &str, whitelist: Option<&str>, env: &[(&str, &str)]) -> Run {
    let dir = scratch(&format!("fortran-{tag}"));
    let mut env: Vec<(&str, &str)> = env.to_vec();
    if let Some(text) = whitelist {
        std::fs::write(dir.join("whitelist.txt"), text).unwrap();
        env.push(("OP_WHITELIST", "whitelist.txt"));
    }
    run_with(&fortran_program(), &[], &dir, &env)
}

/// The paths the Fortran program took in `round` ("env" or "disabled").
fn paths(r: &Run, round: &str) -> Vec<String> {
    r.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(round))
        .map(|l| l.trim().to_string())
        .filter(|l| l.starts_with("main ") || l.starts_with("fallback "))
        .collect()
}

#[test]
fn fortran_wrapper_takes_the_path_the_settings_choose() {
    if !have_gfortran() {
        return;
    }
    let both_rounds = |r: &Run| {
        assert!(r.stdout.contains("PASS: values env"), "{}", ctx(r));
        assert!(r.stdout.contains("PASS: values disabled"), "{}", ctx(r));
        // disabled device execution: both fallbacks
        assert_eq!(
            paths(r, "disabled"),
            ["fallback scale", "fallback gather"],
            "{}",
            ctx(r)
        );
    };

    let r = fortran_run("none", None, &[]);
    r.ok();
    both_rounds(&r);
    assert_eq!(
        paths(&r, "env"),
        ["main scale", "main gather"],
        "{}",
        ctx(&r)
    );

    // warnings only from the env round: the disabled round is silent
    let r = fortran_run("warn", Some("sca.*\n"), &[("OP_FALLBACK_MODE", "warn")]);
    r.ok();
    both_rounds(&r);
    assert_eq!(
        paths(&r, "env"),
        ["main scale", "fallback gather"],
        "{}",
        ctx(&r)
    );
    assert_eq!(warnings(&r), ["gather"], "{}", ctx(&r));

    let r = fortran_run("none-listed", Some("\n"), &[]);
    r.ok();
    both_rounds(&r);
    assert_eq!(
        paths(&r, "env"),
        ["fallback scale", "fallback gather"],
        "{}",
        ctx(&r)
    );
    assert!(warnings(&r).is_empty());

    let r = fortran_run("error", Some("scale\n"), &[("OP_FALLBACK_MODE", "error")]);
    let c = ctx(&r);
    assert_eq!(r.status, Some(1), "{c}");
    assert!(
        r.stderr
            .starts_with("OP2 error in op_check_fallback_mode (gather): no device kernel"),
        "{c}"
    );
    assert!(!r.stdout.contains("PASS"), "{c}");
}
