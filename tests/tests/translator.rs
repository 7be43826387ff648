//! The loops of an application as OP2's code generator (translator-v2) sees
//! them through include/op_seq.h. translator-v2 parses C++ with libclang from
//! PyPI, which has no compiler resource headers, and recognises a direct
//! argument by a macro instantiation named OP_ID at the map argument's
//! location; op_seq.h then selects the plain op_par_loop form so that OP_ID
//! stays visible. tests/c/translator_view.c walks the tree of
//! tests/c/translator_view_app.cpp as translator-v2's parser does, with
//! Debian's libclang: `-nobuiltininc` takes away its resource headers
//! (libclang overrides `-resource-dir` with its own), the g++ system include
//! directories are passed as translator-v2 passes them. Without
//! `-nobuiltininc` (the macro form) the calls must still be found. The
//! application itself must run the same through the macro form and the
//! plain form (-DOP2_RS_PLAIN_PAR_LOOP=1).
//!
//! The libclang tests are skipped, with a message, only when no
//! /usr/lib/llvm-*/include/clang-c/Index.h with its libclang.so exists
//! (scripts/test.sh installs libclang-dev).

use op2_tests::{build_once, out_dir, root, run, Lang, Program};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const APP: &str = "tests/c/translator_view_app.cpp";

/// What translator-v2 must see: every loop, direct arguments as such
/// (OP_ID), the vector-map index, the optional argument and the globals.
const EXPECTED: &[&str] = &[
    // translator-v2 finds constants by a call named op_decl_const with
    // three arguments (op_lib_cpp.h must not turn it into another call)
    "const args 3: &gain line 38",
    "loop init_x args 5: dat x idx -1 direct dim 1 double RW; gbl &scale dim 1 double READ",
    "loop edge_flux args 8: dat x idx 0 map pedge dim 1 double READ; \
     dat x idx 1 map pedge dim 1 double READ; dat res idx 0 map pedge dim 1 double INC; \
     dat res idx 1 map pedge dim 1 double INC; dat w idx -1 direct dim 1 double READ",
    "loop edge_sum args 5: dat x idx -2 map pedge dim 1 double READ; \
     dat len idx -1 direct dim 1 double WRITE",
    "loop total args 7: dat res idx -1 direct dim 1 double READ; \
     optdat wn idx -1 direct dim 1 double READ; gbl &sum dim 1 double INC; \
     gbl &top dim 1 double MAX",
];

/// The newest /usr/lib/llvm-N with libclang's C headers and library.
fn llvm_dir() -> Option<PathBuf> {
    let mut best: Option<(u32, PathBuf)> = None;
    for e in std::fs::read_dir("/usr/lib").ok()?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(v) = name
            .strip_prefix("llvm-")
            .and_then(|v| v.parse::<u32>().ok())
        else {
            continue;
        };
        let d = e.path();
        let usable =
            d.join("include/clang-c/Index.h").is_file() && d.join("lib/libclang.so").exists();
        if usable && best.as_ref().is_none_or(|(b, _)| v > *b) {
            best = Some((v, d));
        }
    }
    best.map(|(_, d)| d)
}

/// translator_view built against the newest libclang, or None (skip).
fn viewer() -> Option<PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let llvm = llvm_dir()?;
            let exe = out_dir().join("translator_view");
            let lib = llvm.join("lib");
            let out = Command::new("gcc")
                .args(["-std=c99", "-pedantic", "-O2", "-Wall", "-Wextra"])
                .arg(format!("-I{}", llvm.join("include").display()))
                .arg(root().join("tests/c/translator_view.c"))
                .arg(format!("-L{}", lib.display()))
                .arg(format!("-Wl,-rpath,{}", lib.display()))
                .args(["-lclang", "-o"])
                .arg(&exe)
                .output()
                .expect("run gcc");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "building translator_view:\n{stderr}");
            assert!(
                !stderr.contains("warning"),
                "translator_view warnings:\n{stderr}"
            );
            Some(exe)
        })
        .clone()
}

fn skip_message() {
    eprintln!(
        "SKIPPED: no libclang C headers (/usr/lib/llvm-*/include/clang-c/Index.h and \
         lib/libclang.so; install libclang-dev)"
    );
}

/// The system include directories translator-v2 passes: those g++ reports.
fn system_includes() -> Vec<String> {
    let out = Command::new("c++")
        .args(["-xc++", "/dev/null", "-E", "-Wp,-v"])
        .output()
        .expect("run c++");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix(' '))
        .map(|d| format!("-isystem{d}"))
        .collect()
}

/// translator_view's stdout lines, and its stderr; `builtin`: whether
/// libclang keeps its own resource headers.
fn view(exe: &Path, builtin: bool) -> (Vec<String>, String) {
    let r = root();
    let mut cmd = Command::new(exe);
    cmd.arg(r.join(APP))
        .args(system_includes())
        .arg(format!("-I{}", r.join("tests/c").display()))
        .arg(format!("-I{}", r.join("include").display()))
        // the default of the libclang 18 translator-v2 runs with
        .arg("-std=gnu++17");
    if !builtin {
        cmd.arg("-nobuiltininc");
    }
    let out = cmd.output().expect("run translator_view");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "translator_view failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    (stdout.lines().map(str::to_string).collect(), stderr)
}

#[test]
fn translator_sees_every_loop_and_op_id() {
    let Some(exe) = viewer() else {
        return skip_message();
    };
    let (lines, stderr) = view(&exe, false);
    assert!(stderr.is_empty(), "libclang reported errors:\n{stderr}");
    assert_eq!(
        lines, EXPECTED,
        "translator-v2's view of {APP} without resource headers (the plain op_par_loop form)"
    );
}

/// An argument without its map field ("direct" or "map NAME"), which the
/// macro form hides for direct arguments.
fn without_map(arg: &str) -> String {
    let t: Vec<&str> = arg.split_whitespace().collect();
    let Some(i) = t.iter().position(|w| *w == "idx") else {
        return arg.to_string();
    };
    let skip = if t.get(i + 2) == Some(&"map") { 2 } else { 1 };
    let mut kept: Vec<&str> = t[..i + 2].to_vec();
    kept.extend(t.iter().skip(i + 2 + skip));
    kept.join(" ")
}

/// With resource headers (an ordinary clang parse) op_par_loop is the macro
/// around the function template: the calls, their kernels and arguments are
/// still there; only direct arguments are not recognisable by OP_ID.
#[test]
fn macro_form_still_exposes_the_calls() {
    let Some(exe) = viewer() else {
        return skip_message();
    };
    let (lines, stderr) = view(&exe, true);
    assert!(stderr.is_empty(), "libclang reported errors:\n{stderr}");
    assert_eq!(lines.len(), EXPECTED.len(), "loops found:\n{lines:#?}");
    for (got, want) in lines.iter().zip(EXPECTED) {
        let (gh, ga) = got.split_once(": ").expect("loop line");
        let (wh, wa) = want.split_once(": ").unwrap();
        assert_eq!(gh, wh, "kernel and argument count");
        let ga: Vec<&str> = ga.split("; ").collect();
        let wa: Vec<&str> = wa.split("; ").collect();
        assert_eq!(ga.len(), wa.len(), "{got}");
        for (g, w) in ga.iter().zip(&wa) {
            if w.contains(" direct ") {
                assert_eq!(without_map(g), without_map(w), "{got}");
            } else {
                assert_eq!(g, w, "{got}");
            }
        }
    }
}

/// The application, built with g++ against libop2_seq, prints the same
/// through the macro form and through the plain form.
#[test]
fn macro_and_plain_forms_run_the_same() {
    let macro_exe = build_once(&Program::new("translator_view_app", Lang::Cxx17, &[APP]));
    let plain_exe = build_once(
        &Program::new("translator_view_app_plain", Lang::Cxx17, &[APP])
            .define("OP2_RS_PLAIN_PAR_LOOP=1"),
    );
    let m = run(&macro_exe, &[], "translator-macro");
    let p = run(&plain_exe, &[], "translator-plain");
    m.ok();
    p.ok();
    assert!(m.stdout.contains("form macro\n"), "{}", m.stdout);
    assert!(p.stdout.contains("form plain\n"), "{}", p.stdout);
    let results = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with("form "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(results(&m.stdout), results(&p.stdout));
    for want in [
        "node 3 x 14 res 7",
        "node 4 x 22 res -16",
        "edge 3 len 36",
        "sum -29.5 top 7",
    ] {
        assert!(
            m.stdout.lines().any(|l| l == want),
            "{want:?} missing:\n{}",
            m.stdout
        );
    }
}
