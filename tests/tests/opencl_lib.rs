//! libop2_opencl: c-examples' unchanged op_seq.h programs, built exactly as
//! for libop2_seq, with every loop's device code written at run time and
//! run on PoCL's CPU device (scripts/install_prereqs.sh installs it).
//! Their answers are compared with the same programs on libop2_seq: the
//! printed residuals of airfoil (6 digits) must be identical; programs that
//! print 10 to 17 digits agree to 1e-12 relative (the device adds a node's
//! increments in colour order, the host in element order, so the last bits
//! differ); every loop must report that it ran on the device. Then the
//! fallbacks (kernel not found, rejected by the generator, rejected by the
//! OpenCL compiler), OP_FALLBACK_MODE, no OpenCL platform, and a corrupt
//! compiled-program cache.

use op2_tests::{
    all_on_device, assert_count_falls_back_once, assert_passed, assert_transfers, build_once,
    out_dir, placements, results, root, run_in, same_results, Lang, Program, Run,
};
use std::path::{Path, PathBuf};

fn example(name: &str, lang: Lang, srcs: &[&str], inc: &[&str], lib: &str) -> PathBuf {
    op2_tests::build_with(name, lang, srcs, inc, lib)
}

fn airfoil(lib: &str) -> PathBuf {
    op2_tests::c_airfoil("ocl_airfoil", lib)
}

/// A cache directory shared by the tests of this process (compiled once).
fn shared_cache() -> PathBuf {
    out_dir().join("opencl-cache")
}

fn run_with(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let cache = shared_cache();
    let mut all: Vec<(&str, &str)> = vec![("OP2_RS_CACHE_DIR", cache.to_str().unwrap())];
    all.extend_from_slice(env);
    run_in(exe, args, &out_dir().join("runs").join("opencl"), &all)
}

/// airfoil's printed residual lines (not its 16-digit q sums).
fn printed_rms(r: &Run) -> Vec<String> {
    results(&r.stdout)
        .into_iter()
        .filter(|l| !l.contains("sums"))
        .map(String::from)
        .collect()
}

#[test]
fn airfoil_on_the_device_prints_seq_residuals_every_loop_on_the_device() {
    let args = ["--cells=3000", "--iters=300"];
    let host = run_with(&airfoil("op2_seq"), &args, &[]);
    let dev = run_with(&airfoil("op2_opencl"), &args, &[]);
    assert_eq!(
        printed_rms(&dev),
        printed_rms(&host),
        "the printed residuals"
    );
    same_results(&dev, &host, 1e-12, 4);
    all_on_device(&dev, 5);
    // the same plan, the same order: a second run is bitwise the same
    let again = run_with(&airfoil("op2_opencl"), &args, &[]);
    assert_eq!(results(&again.stdout), results(&dev.stdout));
    // the state machine: declared dats go up once, nothing goes up again
    // (no host loop writes), the one fetch (q sums) comes down once, each
    // coloured loop's plan goes up once
    let stats = run_with(
        &airfoil("op2_opencl"),
        &args,
        &[("OP2_RS_DEVICE_STATS", "1")],
    );
    assert_transfers(&stats.stdout, &op2_tests::AIRFOIL_TRANSFERS);
    // atomics instead of colouring: the printed residuals still
    let atomics = run_with(
        &airfoil("op2_opencl"),
        &args,
        &[("OP2_RS_CONFLICTS", "atomics")],
    );
    assert_eq!(
        printed_rms(&atomics),
        printed_rms(&host),
        "residuals with atomics"
    );
    all_on_device(&atomics, 5);
    // two-level colouring without staging: the same, and the same in every
    // run (the order of each value's increments is the plan's)
    let global = || {
        run_with(
            &airfoil("op2_opencl"),
            &args,
            &[("OP2_RS_CONFLICTS", "colour2-global")],
        )
    };
    let (g1, g2) = (global(), global());
    assert_eq!(
        printed_rms(&g1),
        printed_rms(&host),
        "residuals with colour2-global"
    );
    // loops without a reduction leave their kernels queued (the queue is
    // in order, transfers block): the same bits
    let queued = run_with(
        &airfoil("op2_opencl"),
        &args,
        &[("OP2_RS_DEVICE_ASYNC", "1")],
    );
    assert_eq!(results(&queued.stdout), results(&dev.stdout), "queued");
    all_on_device(&queued, 5);
    assert_eq!(
        results(&g1.stdout),
        results(&g2.stdout),
        "colour2-global twice"
    );
    all_on_device(&g1, 5);
}

/// OP2_RS_DEVICE_TIMES=1: each loop's kernels timed with markers in the
/// queue (a queue with profiling): a table after the table of where each
/// loop ran, every loop with its calls, no loop longer on the device than
/// in the timing table; the same answers. Loops left queued
/// (OP2_RS_DEVICE_ASYNC=1) are timed so by default, not with
/// OP2_RS_DEVICE_TIMES=0; by default nothing is timed; a bad value stops
/// op_init naming it.
#[test]
fn loops_are_timed_on_the_device_when_asked() {
    let args = ["--cells=3000", "--iters=30"];
    let exe = airfoil("op2_opencl");
    let plain = run_with(&exe, &args, &[]);
    plain.ok();
    assert!(op2_tests::device_times(&plain.stdout).is_empty());
    assert!(!plain.stdout.contains("device time of each loop"));
    let timed = run_with(&exe, &args, &[("OP2_RS_DEVICE_TIMES", "1")]);
    timed.ok();
    op2_tests::assert_device_times(&timed, 5, true);
    assert_eq!(results(&timed.stdout), results(&plain.stdout));
    // placements end at the blank line before the device times
    all_on_device(&timed, 5);
    let queued = run_with(&exe, &args, &[("OP2_RS_DEVICE_ASYNC", "1")]);
    queued.ok();
    op2_tests::assert_device_times(&queued, 5, false);
    assert_eq!(results(&queued.stdout), results(&plain.stdout));
    let env = [("OP2_RS_DEVICE_ASYNC", "1"), ("OP2_RS_DEVICE_TIMES", "0")];
    let untimed = run_with(&exe, &args, &env);
    untimed.ok();
    assert!(op2_tests::device_times(&untimed.stdout).is_empty());
    let bad = run_with(&exe, &args, &[("OP2_RS_DEVICE_TIMES", "on")]);
    assert_eq!(bad.status, Some(1), "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("OP2 error in op_init: OP2_RS_DEVICE_TIMES=on: not 0 or 1"),
        "{}",
        bad.stderr
    );
}

#[test]
fn jac_quadvec_reduction_on_the_device() {
    op2_tests::jac_quadvec_reduction(
        "ocl",
        "op2_opencl",
        (&["--iters=1000"], &["--nx=120", "--ny=90", "--iters=40"]),
        &|exe, args, env| run_with(exe, args, env),
        &|exe, args, env| run_with(exe, args, env),
    );
}

#[test]
fn c99_jac_finds_its_kernels_on_the_kernel_path_or_in_debug_information() {
    let exe = example(
        "ocl_jac_c",
        Lang::C99,
        &["c-examples/c99/jac_c.c"],
        &["c-examples/jac"],
        "op2_opencl",
    );
    // the kernels are in c-examples/jac, which the call site's directory
    // (c-examples/c99) is not: OP2_RS_KERNEL_PATH names it, or the
    // executable's debug information
    let path = root().join("c-examples/jac");
    let r = run_with(&exe, &[], &[("OP2_RS_KERNEL_PATH", path.to_str().unwrap())]);
    r.ok();
    assert!(r.stdout.contains("PASSED"), "{}", r.stdout);
    all_on_device(&r, 2);
    // built with -g: the debug information names c-examples/jac/res.h
    let with_g = build_once(
        &Program::new("ocl_jac_c_g", Lang::C99, &["c-examples/c99/jac_c.c"])
            .include("c-examples/jac")
            .flag("-g")
            .lib("op2_opencl"),
    );
    let r = run_with(&with_g, &[], &[]);
    r.ok();
    assert!(r.stdout.contains("PASSED"), "{}", r.stdout);
    all_on_device(&r, 2);
    // neither: both loops on the host, each said once, same answers
    let r = run_with(&exe, &[], &[]);
    r.ok();
    assert!(r.stdout.contains("PASSED"), "{}", r.stdout);
    for k in ["res", "update"] {
        let line =
            format!(" op2-rs: loop {k} runs on the host: kernel {k}: no definition found in ");
        assert_eq!(r.stdout.matches(&line).count(), 1, "{}", r.stdout);
    }
}

/// tests/c/device_args: every argument kind the generator writes (direct
/// AoS/SoA dats of three types, a global read, four reductions with
/// op_arg_info, a vector argument, increments at both ends of a map, an
/// optional increment on and off, op_arg_idx direct and through a map,
/// OP_WORK on a global and on a dat, OP_RW and OP_WRITE through a map, a
/// constant declared again) checked by the program against plain C++
/// loops: on libop2_seq and libop2_openmp (the control), and on the device
/// in every scheme with every loop there: with atomics asked for every
/// loop, the loop reading and writing through a map whose rows the edges
/// share (count) is coloured, and asked for by its name it runs on the host
/// with one line saying why; the loop writing through a map that reaches
/// each node once (pin) runs flat in every scheme.
#[test]
fn every_argument_kind_runs_on_the_device_in_every_scheme() {
    let build = |name: &str, lib: &str| {
        example(
            name,
            Lang::Cxx17,
            &["tests/c/device_args/device_args.cpp"],
            &["tests/c/device_args"],
            lib,
        )
    };
    for lib in ["op2_seq", "op2_openmp"] {
        let r = run_with(&build(&format!("args_{lib}"), lib), &[], &[]);
        assert_passed(&r, lib);
    }
    let exe = build("ocl_device_args", "op2_opencl");
    let dumps = out_dir().join("runs").join("opencl-device-args-dumps");
    for scheme in ["colour2", "colour2-global", "atomics"] {
        let dump = dumps.join(scheme);
        let _ = std::fs::remove_dir_all(&dump);
        let env = [
            ("OP2_RS_CONFLICTS", scheme),
            ("OP2_RS_DUMP_CUDA", dump.to_str().unwrap()),
        ];
        let r = run_with(&exe, &[], &env);
        assert_passed(&r, scheme);
        all_on_device(&r, 5);
        // pin writes through a map that reaches each node once: flat in
        // every scheme; count's ends share nodes: coloured, staged but in
        // colour2-global (atomics cannot serve its OP_RW: the default
        // colouring then)
        let heads = dumped_headers(&dump);
        let head = |l: &str| {
            heads
                .iter()
                .find(|h| h.starts_with(&format!("// op2-rs: loop {l} ")))
                .unwrap_or_else(|| panic!("{l}: {heads:?}"))
                .clone()
        };
        assert!(
            head("pin").contains(", Flat scheme,"),
            "{scheme}: {}",
            head("pin")
        );
        let count = if scheme == "colour2-global" {
            ", Coloured scheme,"
        } else {
            ", Staged scheme,"
        };
        assert!(head("count").contains(count), "{scheme}: {}", head("count"));
    }
    let r = run_with(
        &exe,
        &[],
        &[("OP2_RS_CONFLICTS", "atomics,pin=atomics,count=atomics")],
    );
    assert_count_falls_back_once(&r);
    // more nodes than a reducing loop's work-items (FLAT_REDUCTION_ITEMS):
    // several elements each, the maximum's first element still found
    let r = run_with(&exe, &["300000"], &[]);
    assert_passed(&r, "300000 nodes");
    all_on_device(&r, 5);
}

fn fallback_program() -> PathBuf {
    example(
        "ocl_fallback",
        Lang::C99,
        &["tests/c/opencl_fallback.c"],
        &[],
        "op2_opencl",
    )
}

#[test]
fn loops_without_device_code_run_on_the_host_with_one_line_each() {
    let r = run_with(&fallback_program(), &[], &[]);
    assert_passed(&r, "fallbacks");
    let said = |what: &str| {
        r.stdout
            .lines()
            .filter(|l| l.starts_with(" op2-rs: loop ") && l.contains(what))
            .count()
    };
    assert_eq!(
        said("loop scaled runs on the host: the OpenCL compiler rejected the generated code (error: use of undeclared identifier 'scale'; code and log in "),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(
        said("loop hidden runs on the host: kernel hidden: no definition found in "),
        1
    );
    assert_eq!(
        said("loop lastx runs on the host: loop lastx: argument 1: a global written with OP_WRITE (on the host the last element's write wins; the device has no such order)"),
        1
    );
    assert_eq!(
        said("loop twice runs on the host: arguments 0 and 1 pass dat v directly with OP_READ and OP_RW: on the host the kernel's two pointers are one row, and it reads through one what it wrote through the other; the device would give each pointer a copy of its own"),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(
        said("loop smooth runs on the host: arguments 0 and 1 reach dat v directly (OP_RW) and through map c_c (OP_READ): an element's own row is another's through the map, and the device's colouring, which keeps apart writes through maps only, would not order them as the host does"),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(said("runs on the host"), 5, "{}", r.stdout);
    let p = placements(&r.stdout);
    let place = |n: &str| p.iter().find(|(x, _)| x == n).map(|(_, w)| w.clone());
    // op_arg_idx through a map (ends), op_arg_info (maxloc) and OP_WORK
    // (scratch: a dat, pair: a global) run on the device
    // (collapsed: an edge with one cell at both ends, its two OP_RW
    // pointers one copy of that row)
    for n in [
        "doubled",
        "ends",
        "maxloc",
        "scratch",
        "pair",
        "around",
        "collapsed",
    ] {
        assert_eq!(place(n).as_deref(), Some("device"), "{p:?}");
    }
    for n in ["hidden", "scaled", "lastx", "twice", "smooth"] {
        assert!(place(n).unwrap().starts_with("host ("), "{p:?}");
    }

    let quiet = run_with(&fallback_program(), &[], &[("OP_FALLBACK_MODE", "silent")]);
    quiet.ok();
    assert!(
        !quiet.stdout.contains("runs on the host"),
        "{}",
        quiet.stdout
    );
    assert!(quiet.stdout.contains("PASSED"));

    let strict = run_with(&fallback_program(), &[], &[("OP_FALLBACK_MODE", "error")]);
    assert_eq!(
        strict.status,
        Some(1),
        "{}\n{}",
        strict.stdout,
        strict.stderr
    );
    assert!(
        strict.stderr.contains("OP2 error in op_par_loop (loop \"scaled\"): cannot run on the device (the OpenCL compiler rejected the generated code (error: use of undeclared identifier 'scale'"),
        "{}",
        strict.stderr
    );
    assert!(strict.stderr.contains("and OP_FALLBACK_MODE is error"));
    assert!(!strict.stdout.contains("PASSED") && !strict.stdout.contains("FAILED"));
}

#[test]
fn no_opencl_device_stops_op_init_with_one_line() {
    let empty = out_dir().join("no-icds");
    std::fs::create_dir_all(&empty).unwrap();
    let exe = fallback_program();
    let r = run_with(&exe, &[], &[("OCL_ICD_VENDORS", empty.to_str().unwrap())]);
    assert_eq!(r.status, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("OP2 error in op_init: no OpenCL device: the OpenCL ICD loader found no platform with a device"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("PASSED"));
    let r = run_with(&exe, &[], &[("OP2_RS_OPENCL_DEVICE", "no-such-device")]);
    assert_eq!(r.status, Some(1));
    assert!(
        r.stderr.contains(
            "OP2 error in op_init: OP2_RS_OPENCL_DEVICE=no-such-device: no OpenCL device matches"
        ),
        "{}",
        r.stderr
    );
    let r = run_with(&exe, &[], &[("OP2_RS_CONFLICTS", "sometimes")]);
    assert_eq!(r.status, Some(1));
    assert!(
        r.stderr.contains(
            "OP2 error in op_init: OP2_RS_CONFLICTS: 'sometimes' is not colour2, colour2-global, atomics"
        ),
        "{}",
        r.stderr
    );
    let r = run_with(&exe, &[], &[("OP2_RS_WIDE_OFFSETS", "yes")]);
    assert_eq!(r.status, Some(1));
    assert!(
        r.stderr
            .contains("OP2 error in op_init: OP2_RS_WIDE_OFFSETS=yes: not 0 or 1"),
        "{}",
        r.stderr
    );
}

/// OP2_RS_FMA=1: the OpenCL C switches contraction on (the default
/// switches it off), the code's CUDA form says so; every loop still on the
/// device, and the answers those of libop2_seq to the printed residual and
/// within 1e-10 in the 16-digit sums (a fused multiply-add rounds once
/// where the host rounds twice; airfoil's steps damp that). A bad value
/// stops op_init naming it.
#[test]
fn fused_multiply_adds_when_asked() {
    let args = ["--cells=3000", "--iters=300"];
    let host = run_with(&airfoil("op2_seq"), &args, &[]);
    let dump = out_dir().join("runs").join("opencl-fma-dump");
    let _ = std::fs::remove_dir_all(&dump);
    let env = [
        ("OP2_RS_FMA", "1"),
        ("OP2_RS_DUMP_CUDA", dump.to_str().unwrap()),
    ];
    let fused = run_with(&airfoil("op2_opencl"), &args, &env);
    fused.ok();
    all_on_device(&fused, 5);
    let heads = dumped_headers(&dump);
    assert_eq!(heads.len(), 5, "{heads:?}");
    assert!(
        heads.iter().all(|h| h.ends_with(", fused multiply-adds")),
        "{heads:?}"
    );
    assert_eq!(
        printed_rms(&fused),
        printed_rms(&host),
        "the printed residuals"
    );
    same_results(&fused, &host, 1e-10, 4);
    let plain = run_with(&airfoil("op2_opencl"), &args, &[]);
    if results(&plain.stdout) == results(&fused.stdout) {
        println!("note: the same bits with and without contraction (a device without FMA?)");
    }
    let bad = run_with(&airfoil("op2_opencl"), &args, &[("OP2_RS_FMA", "on")]);
    assert_eq!(bad.status, Some(1), "{}\n{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr
            .contains("OP2 error in op_init: OP2_RS_FMA=on: not 0 or 1"),
        "{}",
        bad.stderr
    );
}

/// OP2_RS_CONFIG: per-loop options from a file in OP2 translator-v2's `-c`
/// format (OP2's own keys, its other keys ignored, ours beside them): each
/// loop's code is written as the file says (the dumped headers name the
/// scheme, the contraction and the work-group size), a loop's own `OP2_RS_CONFLICTS` entry
/// comes first, the answers are the host's; a file that cannot be read or
/// says something this library does not know stops op_init naming it.
#[test]
fn loop_options_from_an_op2_translator_configuration_file() {
    let args = ["--cells=3000", "--iters=100"];
    let host = run_with(&airfoil("op2_seq"), &args, &[]);
    let dir = out_dir().join("runs").join("opencl-config");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("op2.json");
    std::fs::write(
        &file,
        r#"{".*": {"atomics": false, "color2": true, "grouped": true},
            "upd|save": {"fma": true}, "res_calc": {"block_size": 128}}"#,
    )
    .unwrap();
    let conf = file.to_str().unwrap();
    let headers = |tag: &str, env: &[(&str, &str)]| {
        let dump = dir.join(tag);
        let dump_s = dump.to_str().unwrap().to_string();
        let mut all = vec![("OP2_RS_CONFIG", conf), ("OP2_RS_DUMP_CUDA", &dump_s)];
        all.extend_from_slice(env);
        let r = run_with(&airfoil("op2_opencl"), &args, &all);
        r.ok();
        all_on_device(&r, 5);
        assert_eq!(printed_rms(&r), printed_rms(&host), "{tag}: residuals");
        let mut h = dumped_headers(&dump);
        h.sort();
        assert_eq!(h.len(), 5, "{tag}: {h:?}");
        h
    };
    let line = |h: &[String], lp: &str| -> String {
        h.iter()
            .find(|l| l.contains(&format!(" loop {lp} ")))
            .unwrap_or_else(|| panic!("no {lp} in {h:?}"))
            .clone()
    };
    let h = headers("file", &[]);
    assert!(line(&h, "res_calc").contains("Coloured scheme"), "{h:?}");
    for lp in ["update", "save_soln"] {
        assert!(line(&h, lp).ends_with(", fused multiply-adds"), "{h:?}");
    }
    for lp in ["res_calc", "adt_calc", "bres_calc"] {
        assert!(!line(&h, lp).contains("fused"), "{h:?}");
    }
    assert!(line(&h, "res_calc").contains(", work-group 128"), "{h:?}");
    assert!(line(&h, "update").contains(", work-group 64,"), "{h:?}");
    // the loop's own entry over the file; the file over OP2_RS_FMA
    let h = headers(
        "own",
        &[
            ("OP2_RS_CONFLICTS", "atomics,res_calc=colour2"),
            ("OP2_RS_FMA", "1"),
        ],
    );
    // (staged, its plan's blocks of 128)
    assert!(line(&h, "res_calc").contains("Staged scheme"), "{h:?}");
    assert!(line(&h, "res_calc").contains(", work-group 128"), "{h:?}");
    assert!(
        line(&h, "res_calc").ends_with(", fused multiply-adds"),
        "{h:?}"
    );
}

/// tests/c/two_maps: one dat read and written (adding), incremented, and
/// read through two maps in one loop each, and read and written at both
/// ends of a map whose rows sometimes repeat a cell, on the device in
/// every scheme with the answers of the plain C loops in the program: each
/// row is staged once and the plan colours by the dat's rows, whatever
/// maps reach it (before, a row the two maps shared was staged twice in
/// the staged scheme, and one copy's updates were lost), and one element's
/// two pointers to one row are one copy.
#[test]
fn one_dat_through_two_maps_on_the_device_in_every_scheme() {
    let exe = example(
        "ocl_two_maps",
        Lang::C99,
        &["tests/c/two_maps/two_maps.c"],
        &["tests/c/two_maps"],
        "op2_opencl",
    );
    for scheme in ["colour2", "colour2-global", "atomics"] {
        for args in [&[][..], &["OP_BLOCK_SIZE=32"][..]] {
            let r = run_with(&exe, args, &[("OP2_RS_CONFLICTS", scheme)]);
            assert_passed(&r, &format!("{scheme} {args:?}"));
            all_on_device(&r, 4);
        }
    }
}

/// tests/c/wide_ints: dats, globals and constants of OP2's 64-bit and
/// unsigned integer types ("ll", "long", "ull", "uint": increments
/// through a map past 32 bits, sums that wrap modulo 2^64, min and max
/// reductions, a constant declared again, a kernel spelling them as
/// <stdint.h> does) and of "bool" (a dat read and written and one read
/// through a map, any/all reductions) on the device in every scheme,
/// with SoA device copies and 64-bit offsets: the plain C loops' values,
/// every loop on the device (before, such loops ran on the host; and
/// OpenCL C's `long long` is 128 bits: the kernels' are rewritten, or
/// `sizeof(long long)` and the wrapping products would differ).
#[test]
fn sixty_four_bit_and_unsigned_integer_dats_on_the_device() {
    let exe = example(
        "ocl_wide_ints",
        Lang::C99,
        &["tests/c/wide_ints/wide_ints.c"],
        &["tests/c/wide_ints"],
        "op2_opencl",
    );
    let seq = example(
        "seq_wide_ints",
        Lang::C99,
        &["tests/c/wide_ints/wide_ints.c"],
        &["tests/c/wide_ints"],
        "op2_seq",
    );
    let host = run_with(&seq, &[], &[]);
    assert_passed(&host, "libop2_seq");
    let rounds = |r: &Run| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| l.starts_with("round "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(rounds(&host).len(), 2, "{}", host.stdout);
    for (scheme, extra) in [
        ("colour2", ("OP_BLOCK_SIZE", "32")),
        ("colour2-global", ("OP_AUTO_SOA", "1")),
        ("atomics", ("OP2_RS_WIDE_OFFSETS", "1")),
        ("atomics", ("OP_AUTO_SOA", "1")),
    ] {
        let r = run_with(&exe, &[], &[("OP2_RS_CONFLICTS", scheme), extra]);
        assert_passed(&r, &format!("{scheme} {extra:?}"));
        all_on_device(&r, 5);
        assert_eq!(rounds(&r), rounds(&host), "{scheme} {extra:?}");
    }
}

/// A per-loop option that names no loop of the run (a misspelt
/// `OP2_RS_CONFLICTS` entry, an `OP2_RS_CONFIG` pattern that matches no
/// loop) is said once at op_exit, naming the entry and the loops that ran;
/// the options that did name loops, and a run whose options all did, say
/// nothing of the kind.
#[test]
fn per_loop_options_that_name_no_loop_are_said_at_exit() {
    let args = ["--cells=300", "--iters=2"];
    let unused = |r: &op2_tests::Run| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| l.contains("changed nothing"))
            .map(str::to_string)
            .collect()
    };
    let r = run_with(
        &airfoil("op2_opencl"),
        &args,
        &[
            (
                "OP2_RS_CONFLICTS",
                "res_cal=atomics,res_calc=colour2,res_cal=atomics",
            ),
            (
                "OP2_RS_CONFIG",
                r#"{"res": {"fma": true}, "bres_kalc": {"atomics": true}, ".*": {}}"#,
            ),
        ],
    );
    r.ok();
    all_on_device(&r, 5);
    let loops = "adt_calc, bres_calc, res_calc, save_soln, update";
    assert_eq!(
        unused(&r),
        [
            format!(
                " op2-rs: OP2_RS_CONFLICTS names loop 'res_cal', but no loop of that name ran (loops run: {loops}); the entry changed nothing"
            ),
            format!(
                " op2-rs: OP2_RS_CONFIG's pattern 'bres_kalc' matched no loop that ran (loops run: {loops}); its options changed nothing"
            ),
        ],
        "{}",
        r.stdout
    );
    let good = run_with(
        &airfoil("op2_opencl"),
        &args,
        &[
            ("OP2_RS_CONFLICTS", "res_calc=atomics"),
            ("OP2_RS_CONFIG", r#"{"bres": {"atomics": true}}"#),
        ],
    );
    good.ok();
    assert!(unused(&good).is_empty(), "{}", good.stdout);
}

/// OP2's `OP_BLOCK_SIZE=` on the command line sets the work-group (and
/// plan block) size of every loop written at run time, as it sets
/// translated code's; OP2_RS_BLOCK_SIZE comes before it. A size the
/// generator cannot take keeps each loop on the host with one line naming
/// the option (an error with OP_FALLBACK_MODE=error).
#[test]
fn op_block_size_sets_the_device_loops_work_groups() {
    let dir = out_dir().join("runs").join("opencl-op-block-size");
    let _ = std::fs::remove_dir_all(&dir);
    let sizes = |tag: &str, arg: &str, env: &[(&str, &str)]| {
        let args = ["--cells=3000", "--iters=100", arg];
        let host = run_with(&airfoil("op2_seq"), &args, &[]);
        let dump = dir.join(tag);
        let dump_s = dump.to_str().unwrap().to_string();
        let mut all = vec![("OP2_RS_DUMP_CUDA", dump_s.as_str())];
        all.extend_from_slice(env);
        let r = run_with(&airfoil("op2_opencl"), &args, &all);
        r.ok();
        all_on_device(&r, 5);
        assert!(printed_rms(&r)
            .iter()
            .any(|l| l.trim_start().starts_with("100 ")));
        assert_eq!(printed_rms(&r), printed_rms(&host), "{tag}: residuals");
        let mut s: Vec<String> = dumped_headers(&dump)
            .iter()
            .map(|h| {
                h.split(", work-group ")
                    .nth(1)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        s.sort();
        s.dedup();
        s
    };
    assert_eq!(sizes("128", "OP_BLOCK_SIZE=128", &[]), ["128"]);
    let env = [("OP2_RS_BLOCK_SIZE", "32")];
    assert_eq!(sizes("env", "OP_BLOCK_SIZE=128", &env), ["32"]);
    let odd = run_with(
        &airfoil("op2_opencl"),
        &["--cells=300", "--iters=2", "OP_BLOCK_SIZE=96"],
        &[],
    );
    odd.ok();
    let why = "runs on the host: OP_BLOCK_SIZE=96 (OP_block_size): a device loop's work-group size is a power of two from 1 to 1024";
    let lines = odd.stdout.lines().filter(|l| l.contains(why)).count();
    assert_eq!(lines, 5, "{}", odd.stdout);
    let strict = run_with(
        &airfoil("op2_opencl"),
        &["--cells=300", "--iters=2", "OP_BLOCK_SIZE=96"],
        &[("OP_FALLBACK_MODE", "error")],
    );
    assert_eq!(strict.status, Some(1), "{}", strict.stderr);
    assert!(
        strict.stderr.contains("OP_BLOCK_SIZE=96 (OP_block_size)"),
        "{}",
        strict.stderr
    );
}

/// OP2_RS_CONFIG naming a file that cannot be read, is not JSON of the
/// form, or says what this library does not know: op_init stops, naming
/// the variable, the file and what is wrong.
#[test]
fn malformed_configuration_files_stop_op_init() {
    let args = ["--cells=300", "--iters=2"];
    let dir = out_dir().join("runs").join("opencl-config-bad");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // `text` (None: no file) as OP2_RS_CONFIG stops op_init saying `want`
    let stops = |name: &str, text: Option<&str>, want: &str| {
        let f = dir.join(name);
        if let Some(t) = text {
            std::fs::write(&f, t).unwrap();
        }
        let r = run_with(
            &airfoil("op2_opencl"),
            &args,
            &[("OP2_RS_CONFIG", f.to_str().unwrap())],
        );
        assert_eq!(r.status, Some(1), "{}\n{}", r.stdout, r.stderr);
        let head = format!(
            "OP2 error in op_init: OP2_RS_CONFIG={}: {want}",
            f.display()
        );
        assert!(r.stderr.contains(&head), "{head}\n{}", r.stderr);
    };
    stops(
        "key.json",
        Some(r#"{"res_calc": {"atomic": true}}"#),
        "pattern 'res_calc': unknown option \"atomic\"",
    );
    stops(
        "type.json",
        Some(r#"{"res_calc": {"atomics": 1}}"#),
        "pattern 'res_calc': \"atomics\" is 1, not true or false",
    );
    stops(
        "cut.json",
        Some("{\"res_calc\": "),
        "not a JSON object of patterns, nor an array of them: ",
    );
    stops("gone.json", None, "cannot read: ");
}

/// The headers of the loops' code dumped in the CUDA dialect
/// (OP2_RS_DUMP_CUDA) into `dir`.
fn dumped_headers(dir: &Path) -> Vec<String> {
    walk(dir)
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "cu"))
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines().next().unwrap_or_default().to_string()
        })
        .collect()
}

/// 64-bit offsets (what a loop gets when an offset can pass 2^31 - 1;
/// OP2_RS_WIDE_OFFSETS=1 gives every loop them, so that they can be
/// checked on small meshes): the same answers to the last bit in both
/// colourings (only the index arithmetic differs); the code written (and
/// its CUDA form) says so, and without the option small loops keep 32-bit
/// offsets.
#[test]
fn sixty_four_bit_offsets_change_no_bit() {
    let args = ["--cells=3000", "--iters=50"];
    let exe = airfoil("op2_opencl");
    let dumps = out_dir().join("runs").join("opencl-wide-dumps");
    let _ = std::fs::remove_dir_all(&dumps);
    for scheme in ["colour2", "colour2-global"] {
        let narrow_dir = dumps.join(format!("{scheme}-narrow"));
        let wide_dir = dumps.join(format!("{scheme}-wide"));
        let narrow = run_with(
            &exe,
            &args,
            &[
                ("OP2_RS_CONFLICTS", scheme),
                ("OP2_RS_DUMP_CUDA", narrow_dir.to_str().unwrap()),
            ],
        );
        let wide = run_with(
            &exe,
            &args,
            &[
                ("OP2_RS_CONFLICTS", scheme),
                ("OP2_RS_WIDE_OFFSETS", "1"),
                ("OP2_RS_DUMP_CUDA", wide_dir.to_str().unwrap()),
            ],
        );
        narrow.ok();
        wide.ok();
        all_on_device(&wide, 5);
        assert_eq!(results(&wide.stdout), results(&narrow.stdout), "{scheme}");
        let (n, w) = (dumped_headers(&narrow_dir), dumped_headers(&wide_dir));
        assert_eq!((n.len(), w.len()), (5, 5), "{scheme}: {n:?} {w:?}");
        assert!(n.iter().all(|h| !h.contains("64-bit")), "{n:?}");
        assert!(w.iter().all(|h| h.ends_with(", 64-bit offsets")), "{w:?}");
    }
}

/// With 64-bit offsets every argument kind is right in every scheme, with
/// and without SoA copies; tests/c/big_offsets (which the GPU bundle runs
/// past 2^31 - 1: 8.6 GB, more than this machine's PoCL device takes in
/// one buffer) passes on a small mesh with either width and on libop2_seq.
#[test]
fn every_argument_kind_with_sixty_four_bit_offsets() {
    let exe = example(
        "ocl_device_args",
        Lang::Cxx17,
        &["tests/c/device_args/device_args.cpp"],
        &["tests/c/device_args"],
        "op2_opencl",
    );
    for scheme in ["colour2", "colour2-global", "atomics"] {
        for soa in [false, true] {
            let mut env = vec![("OP2_RS_CONFLICTS", scheme), ("OP2_RS_WIDE_OFFSETS", "1")];
            if soa {
                env.push(("OP_AUTO_SOA", "1"));
            }
            let r = run_with(&exe, &[], &env);
            assert_passed(&r, &format!("{scheme}, SoA {soa}"));
            assert_eq!(r.stdout.contains("Enabling Automatic AoS->SoA"), soa);
            all_on_device(&r, 5);
        }
    }
    let build = |name: &str, lib: &str| {
        example(
            name,
            Lang::Cxx17,
            &["tests/c/big_offsets/big_offsets.cpp"],
            &["tests/c/big_offsets"],
            lib,
        )
    };
    let seq = run_with(&build("big_offsets_seq", "op2_seq"), &["5000"], &[]);
    assert_passed(&seq, "big_offsets on libop2_seq");
    let exe = build("ocl_big_offsets", "op2_opencl");
    for wide in ["0", "1"] {
        let r = run_with(&exe, &["5000"], &[("OP2_RS_WIDE_OFFSETS", wide)]);
        assert_passed(&r, &format!("big_offsets, 64-bit offsets {wide}"));
        all_on_device(&r, 2);
    }
    let r = run_with(&exe, &["12"], &[]);
    assert_eq!(r.status, Some(2));
    assert!(r
        .stderr
        .contains("big_offsets: CELLS must be 64 to 2000000000, not 12"));
}

#[test]
fn a_corrupt_cache_entry_is_rebuilt_not_trusted() {
    let exe = example(
        "ocl_jac",
        Lang::Cxx17,
        &["c-examples/jac/jac.cpp"],
        &["c-examples/jac"],
        "op2_opencl",
    );
    let cache = out_dir().join("opencl-cache-corrupt");
    let _ = std::fs::remove_dir_all(&cache);
    let env = [("OP2_RS_CACHE_DIR", cache.to_str().unwrap())];
    let first = run_in(&exe, &["--iters=200"], &root(), &env);
    all_on_device(&first, 2);
    let entries: Vec<PathBuf> = walk(&cache);
    assert!(entries.len() >= 2, "compiled programs cached: {entries:?}");
    for (i, e) in entries.iter().enumerate() {
        // garbage of another length, then a truncated copy
        let bytes = std::fs::read(e).unwrap();
        let bad = if i % 2 == 0 {
            b"not a program".to_vec()
        } else {
            bytes[..bytes.len() / 2].to_vec()
        };
        std::fs::write(e, bad).unwrap();
    }
    let second = run_in(&exe, &["--iters=200"], &root(), &env);
    all_on_device(&second, 2);
    assert_eq!(results(&second.stdout), results(&first.stdout));
    for e in walk(&cache) {
        let len = std::fs::metadata(&e).unwrap().len();
        assert!(len > 64, "{} rebuilt ({len} bytes)", e.display());
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A kernel that calls a helper its header does not define, and reads a
/// direct OP_INC argument after incrementing it (OP2-Common's jac1 and
/// jac2 do each): on the device, with the plain loop's answers.
#[test]
fn helpers_of_the_main_file_and_direct_increments() {
    let exe = example(
        "ocl_helpers",
        Lang::C99,
        &["tests/c/opencl_helpers/main.c"],
        &["tests/c/opencl_helpers"],
        "op2_opencl",
    );
    let r = run_with(&exe, &[], &[("OP2_RS_DEVICE_STATS", "1")]);
    r.ok();
    assert!(r.stdout.contains("PASSED (0 wrong values"), "{}", r.stdout);
    all_on_device(&r, 1);
    // op_print_dat_to_txtfile brought u back; op_fetch_data after it did not
    assert_transfers(&r.stdout, &[" dat_downloads=1 ", " dat_uploads=0 "]);
    let txt = std::fs::read_to_string(out_dir().join("runs/opencl/u.txt")).unwrap();
    let vals: Vec<f64> = txt
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    // u[i] = 0.25 i + 3 * 0.5 * (i % 17), after the header (500 1)
    assert_eq!(&vals[..2], &[500.0, 1.0], "{txt}");
    for (i, v) in vals[2..].iter().enumerate() {
        let want = 0.25 * i as f64 + 1.5 * (i % 17) as f64;
        assert!((v - want).abs() < 1e-9, "u[{i}] = {v}, want {want}");
    }
}

/// tests/c/conditionals: kernels whose source depends on preprocessor
/// conditionals, built with `-DBUILD_MODE=4`. The definition chosen by the
/// main file's `#define` and the body chosen by settings.h's value (read
/// from the files before the kernels' `#include`) run on the device with
/// the build's branches; the body chosen by the build line's macro runs on
/// the host with one line naming it, and on the device once
/// `OP2_RS_DEFINES` gives it. Every run's answers are checked by the
/// program against the same kernels on the host; a wrong value given
/// there is computed as given (the check fails), and a malformed one stops
/// op_init.
#[test]
fn kernels_conditionals_are_decided_as_the_build_decided_them() {
    let exe = build_once(
        &Program::new(
            "ocl_conditionals",
            Lang::C99,
            &["tests/c/conditionals/main.c"],
        )
        .lib("op2_opencl")
        .include("tests/c/conditionals")
        .define("BUILD_MODE=4"),
    );
    let stats = ("OP2_RS_DEVICE_STATS", "1");
    let r = run_with(&exe, &[], &[stats]);
    assert_passed(&r, "conditionals");
    let p = placements(&r.stdout);
    let place = |p: &[(String, String)], l: &str| {
        p.iter()
            .find(|(n, _)| n == l)
            .map(|(_, w)| w.clone())
            .unwrap_or_default()
    };
    assert_eq!(place(&p, "scale"), "device", "{}", r.stdout);
    assert_eq!(place(&p, "shift"), "device", "{}", r.stdout);
    let why = "kernel mode: its source tests macro BUILD_MODE (kernels.h:37), which the \
               program's build may set (a -D flag, or a #define in a file not read here): give \
               its value in OP2_RS_DEFINES (-DBUILD_MODE, -DBUILD_MODE=VALUE or -UBUILD_MODE)";
    assert_eq!(
        r.stdout
            .matches(&format!(" op2-rs: loop mode runs on the host: {why}\n"))
            .count(),
        1,
        "{}",
        r.stdout
    );
    // the header's default taken for a macro the build line may set: said
    // once, for the one loop that uses it
    let default = " op2-rs: loop scale: macro WEIGHT is taken as its source's default \
                   (kernels.h:10: 0.5); a build that sets WEIGHT (-DWEIGHT=...) must give it \
                   in OP2_RS_DEFINES, or be built with -g3\n";
    assert_eq!(r.stdout.matches(default).count(), 1, "{}", r.stdout);
    assert_eq!(r.stdout.matches("source's default").count(), 1);
    let r = run_with(&exe, &[], &[stats, ("OP2_RS_DEFINES", "-DBUILD_MODE=4")]);
    assert_passed(&r, "OP2_RS_DEFINES=-DBUILD_MODE=4");
    all_on_device(&r, 3);
    assert!(r.stdout.contains(default), "{}", r.stdout);
    let given = ("OP2_RS_DEFINES", "-DBUILD_MODE=4 -DWEIGHT=0.5");
    let r = run_with(&exe, &[], &[given]);
    assert_passed(&r, "OP2_RS_DEFINES=-DBUILD_MODE=4 -DWEIGHT=0.5");
    assert!(!r.stdout.contains("source's default"), "{}", r.stdout);
    // the device computes what it is told: x * 5 where the host has x * 4
    // (x = 0 at one of the 300 nodes)
    let r = run_with(&exe, &[], &[("OP2_RS_DEFINES", "-DBUILD_MODE=5")]);
    assert_eq!(r.status, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("wrong: mode, 299 values"), "{}", r.stdout);
    let r = run_with(&exe, &[], &[("OP_FALLBACK_MODE", "error")]);
    assert_eq!(r.status, Some(1), "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "OP2 error in op_par_loop (loop \"mode\"): cannot run on the device ({why}) and \
             OP_FALLBACK_MODE is error"
        )),
        "{}",
        r.stderr
    );
    let r = run_with(&exe, &[], &[("OP2_RS_DEFINES", "-DBUILD_MODE=4 MODE")]);
    assert_eq!(r.status, Some(1), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "OP2 error in op_init: OP2_RS_DEFINES: 'MODE' is not -DNAME, -DNAME=VALUE or -UNAME"
        ),
        "{}",
        r.stderr
    );
}

/// The same program built with `-g3` and another default replaced on the
/// build line (`-DBUILD_MODE=4 -DWEIGHT=0.25`): the library reads the
/// build's macros from the debug information, where the build read
/// kernels.h, so every loop runs on the device with the build's branches
/// and values and no OP2_RS_DEFINES (the program checks each value against
/// the host's kernels, which took WEIGHT=0.25, not the header's default);
/// OP2_RS_DEFINES still comes first.
#[test]
fn a_g3_builds_macros_are_read_from_its_debug_information() {
    let exe = build_once(
        &Program::new(
            "ocl_conditionals_g3",
            Lang::C99,
            &["tests/c/conditionals/main.c"],
        )
        .lib("op2_opencl")
        .include("tests/c/conditionals")
        .define("BUILD_MODE=4")
        .define("WEIGHT=0.25")
        .flag("-g3"),
    );
    let r = run_with(&exe, &[], &[("OP2_RS_DEVICE_STATS", "1")]);
    assert_passed(&r, "conditionals -g3");
    all_on_device(&r, 3);
    assert!(!r.stdout.contains("runs on the host"), "{}", r.stdout);
    assert!(!r.stdout.contains("source's default"), "{}", r.stdout);
    let r = run_with(&exe, &[], &[("OP2_RS_DEFINES", "-DBUILD_MODE=5")]);
    assert_eq!(r.status, Some(1), "{}", r.stdout);
    assert!(r.stdout.contains("wrong: mode, 299 values"), "{}", r.stdout);
    assert!(!r.stdout.contains("wrong: scale"), "{}", r.stdout);
}
