//! libop2_cuda runs the loops of unchanged op_seq.h programs on the GPU
//! through code it writes at run time and compiles with NVRTC. Here, with
//! no GPU, the host side of that path is checked on a device simulated in
//! host memory (`OP2_RS_DEVICE=host`) with `OP2_RS_CUDA_ARCH=sm_90`: every
//! loop of c-examples' airfoil, jac, reduction and quadvec is generated and
//! compiled by the real NVRTC (13.0 from PyPI, scripts/cuda_toolkit.sh) into
//! a cubin in the disk cache, then runs on the host with one line saying
//! so, and the answers are libop2_seq's; a cached cubin needs no NVRTC; the
//! fallbacks name NVRTC's first error, a missing kernel and a global
//! argument. The cubins themselves run only on a GPU (the GPU bundle
//! carries this cache: scripts/gpu_bundle.sh).

use op2_tests::{elf_images, nvrtc_dir, out_dir, root, run_in, Lang, Run};
use std::path::{Path, PathBuf};

fn example(name: &str, lang: Lang, srcs: &[&str], inc: &[&str], lib: &str) -> PathBuf {
    op2_tests::build_with(name, lang, srcs, inc, lib)
}

fn airfoil(lib: &str) -> PathBuf {
    op2_tests::c_airfoil("cul_airfoil", lib)
}

/// A run on the simulated device compiling for sm_90, with the cache in
/// `cache`; NVRTC on the library path when `nvrtc`.
fn run_sim(exe: &Path, args: &[&str], cache: &Path, nvrtc: bool, env: &[(&str, &str)]) -> Run {
    let lib = if nvrtc { nvrtc_dir() } else { "" };
    let mut all: Vec<(&str, &str)> = vec![
        ("OP2_RS_DEVICE", "host"),
        ("OP2_RS_CUDA_ARCH", "sm_90"),
        ("OP2_RS_CACHE_DIR", cache.to_str().unwrap()),
        ("LD_LIBRARY_PATH", lib),
    ];
    all.extend_from_slice(env);
    let cwd = root().join("c-examples");
    run_in(exe, args, &cwd, &all)
}

fn fresh_dir(name: &str) -> PathBuf {
    let d = out_dir().join("cuda-loops").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The fallback lines, as (loop, reason).
fn fallbacks(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(" op2-rs: loop "))
        .filter_map(|l| l.split_once(" runs on the host: "))
        .map(|(n, w)| (n.to_string(), w.to_string()))
        .collect()
}

/// The lines a program prints about its results.
fn results(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .take_while(|l| !l.contains("where each loop ran"))
        .filter(|l| {
            !(l.trim().is_empty()
                || l.contains("Initializing OP2")
                || l.contains("Using device")
                || l.contains("op2-rs: loop")
                || l.contains("runtime")
                || l.starts_with("Total plan time")
                || l.contains(';')
                || l.starts_with("  count ")
                || l.starts_with(" ---"))
        })
        .collect()
}

const COMPILED: &str = "compiled for sm_90 by NVRTC; the device is simulated in host memory (OP2_RS_DEVICE=host) and runs no CUDA code";

#[test]
fn airfoil_loops_compile_with_nvrtc_into_the_cache_and_answers_stay_the_hosts() {
    let args = ["--cells=2000", "--iters=100"];
    let cache = fresh_dir("airfoil");
    // the loops run on the host with libop2_cuda's thread pool: the same
    // answers as libop2_openmp's, bit for bit
    let host = run_in(
        &airfoil("op2_openmp"),
        &args,
        &root().join("c-examples"),
        &[],
    );
    let r = run_sim(&airfoil("op2_cuda"), &args, &cache, true, &[]);
    r.ok();
    assert!(
        r.stdout.contains(
            "Using device: CUDA: simulated in host memory (loops compiled for sm_90, run on the host)"
        ),
        "{}",
        r.stdout
    );
    let f = fallbacks(&r.stdout);
    let mut names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["adt_calc", "bres_calc", "res_calc", "save_soln", "update"],
        "{}",
        r.stdout
    );
    for (n, why) in &f {
        assert_eq!(why, COMPILED, "loop {n}");
    }
    assert_eq!(results(&r.stdout), results(&host.stdout));
    assert_eq!(
        elf_images(&cache),
        5,
        "one cubin per loop in {}",
        cache.display()
    );

    // the cached cubins need no NVRTC; without them and without NVRTC each
    // loop says NVRTC is missing (where it is not on the system's path)
    let cached = run_sim(&airfoil("op2_cuda"), &args, &cache, false, &[]);
    cached.ok();
    assert!(fallbacks(&cached.stdout).iter().all(|(_, w)| w == COMPILED));
    let empty = fresh_dir("airfoil-empty");
    let none = run_sim(&airfoil("op2_cuda"), &args, &empty, false, &[]);
    none.ok();
    let f = fallbacks(&none.stdout);
    assert_eq!(f.len(), 5, "{}", none.stdout);
    if f.iter().all(|(_, w)| w.starts_with("NVRTC not found")) {
        assert_eq!(elf_images(&empty), 0);
    } else {
        println!("note: NVRTC is on this system's library path");
    }
    assert_eq!(results(&none.stdout), results(&host.stdout));
}

/// The cache entries in `dir` (their header holds the NVRTC options and
/// the generated text).
fn entries(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .filter(|b| b.windows(4).any(|w| w == b"\x7fELF"))
        .collect();
    v.sort();
    v
}

fn holds(b: &[u8], s: &str) -> bool {
    b.windows(s.len()).any(|w| w == s.as_bytes())
}

/// OP2_RS_FMA=1: every loop compiled by NVRTC with `--fmad=true` (as nvcc
/// compiles OP2's translated code), its text saying so, in cache entries
/// of their own (the default's are `--fmad=false`); the loops then run on
/// the host here, so the answers stay the host's; `fma` per loop in
/// OP2_RS_CONFIG: only those loops. A bad value stops op_init naming it.
#[test]
fn fused_multiply_adds_when_asked_compile_with_fmad() {
    let args = ["--cells=2000", "--iters=5"];
    let exe = airfoil("op2_cuda");
    let (plain, fused) = (fresh_dir("airfoil-no-fma"), fresh_dir("airfoil-fma"));
    let a = run_sim(&exe, &args, &plain, true, &[]);
    let b = run_sim(&exe, &args, &fused, true, &[("OP2_RS_FMA", "1")]);
    a.ok();
    b.ok();
    assert_eq!(results(&a.stdout), results(&b.stdout));
    let (pe, fe) = (entries(&plain), entries(&fused));
    assert_eq!((pe.len(), fe.len()), (5, 5), "one cubin per loop");
    for e in &pe {
        assert!(holds(e, " --fmad=false ") && !holds(e, "--fmad=true"));
        assert!(!holds(e, "fused multiply-adds"));
    }
    for e in &fe {
        assert!(holds(e, " --fmad=true ") && !holds(e, "--fmad=false"));
        assert!(holds(e, ", work-group 64, fused multiply-adds\n"));
    }
    // per loop, from OP2_RS_CONFIG (inline JSON, as OP2's -c takes it)
    let some = fresh_dir("airfoil-fma-some");
    let conf = r#"{"res_calc|upd": {"fma": true}}"#;
    let c = run_sim(
        &exe,
        &args,
        &some.join("cache"),
        true,
        &[("OP2_RS_CONFIG", conf)],
    );
    c.ok();
    let ce = entries(&some.join("cache"));
    assert_eq!(ce.len(), 5, "one cubin per loop");
    for e in &ce {
        let asked = holds(e, "loop res_calc ") || holds(e, "loop update ");
        assert_eq!(holds(e, " --fmad=true "), asked);
        assert_eq!(holds(e, " --fmad=false "), !asked);
    }
    let bad = run_sim(&exe, &args, &fused, true, &[("OP2_RS_FMA", "fast")]);
    assert_eq!(bad.status, Some(1), "{}\n{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr
            .contains("OP2 error in op_init: OP2_RS_FMA=fast: not 0 or 1"),
        "{}",
        bad.stderr
    );
}

#[test]
fn jac_quadvec_reduction_loops_compile_in_both_schemes() {
    let jac = example(
        "cul_jac",
        Lang::Cxx17,
        &["c-examples/jac/jac.cpp"],
        &["c-examples/jac"],
        "op2_cuda",
    );
    let quad = example(
        "cul_quadvec",
        Lang::Cxx17,
        &["c-examples/quadvec/quadvec.cpp"],
        &["c-examples/quadvec"],
        "op2_cuda",
    );
    let red = example(
        "cul_reduction",
        Lang::Cxx17,
        &["c-examples/reduction/reduction.cpp"],
        &[],
        "op2_cuda",
    );
    for scheme in ["colour2", "atomics"] {
        let cache = fresh_dir(&format!("examples-{scheme}"));
        let env = [("OP2_RS_CONFLICTS", scheme)];
        let runs = [
            (run_sim(&jac, &["--iters=2"], &cache, true, &env), 2),
            (
                run_sim(
                    &quad,
                    &["--nx=20", "--ny=20", "--iters=2"],
                    &cache,
                    true,
                    &env,
                ),
                2,
            ),
            (run_sim(&red, &[], &cache, true, &env), 5),
        ];
        let mut total = 0;
        for (r, loops) in &runs {
            r.ok();
            let f = fallbacks(&r.stdout);
            assert_eq!(f.len(), *loops, "{scheme}:\n{}", r.stdout);
            assert!(f.iter().all(|(_, w)| w == COMPILED), "{scheme}: {f:?}");
            total += loops;
        }
        assert!(runs[2].0.stdout.contains("PASSED"), "{}", runs[2].0.stdout);
        assert_eq!(elf_images(&cache), total, "{scheme}");
    }
}

/// tests/c/device_args (every argument kind, checked by the program) on
/// libop2_cuda: its five loops compiled by NVRTC in the three schemes
/// (count, reading and writing through shared rows, coloured in each; pin,
/// through a map reaching each node once, flat in each), into six cubins
/// each (flux twice: with its optional argument on, and off;
/// a constant declared again with a new value needs no new code: CUDA
/// constants are filled after loading), answers as the host's.
#[test]
fn every_argument_kind_compiles_in_every_scheme() {
    let exe = example(
        "cul_device_args",
        Lang::Cxx17,
        &["tests/c/device_args/device_args.cpp"],
        &["tests/c/device_args"],
        "op2_cuda",
    );
    for scheme in ["colour2", "colour2-global", "atomics"] {
        let cache = fresh_dir(&format!("device-args-{scheme}"));
        let r = run_sim(&exe, &[], &cache, true, &[("OP2_RS_CONFLICTS", scheme)]);
        r.ok();
        assert!(
            r.stdout.contains("PASSED (0 wrong values)"),
            "{scheme}:\n{}",
            r.stdout
        );
        let f = fallbacks(&r.stdout);
        assert_eq!(f.len(), 5, "{scheme}:\n{}", r.stdout);
        assert!(f.iter().all(|(_, w)| w == COMPILED), "{scheme}: {f:?}");
        assert_eq!(elf_images(&cache), 6, "{scheme}");
    }
}

/// tests/c/opencl_fallback.c on libop2_cuda.
fn fallback_program() -> PathBuf {
    example(
        "cul_fallback",
        Lang::C99,
        &["tests/c/opencl_fallback.c"],
        &[],
        "op2_cuda",
    )
}

#[test]
fn nvrtc_errors_missing_kernels_and_written_globals_fall_back_with_one_line_each() {
    let exe = fallback_program();
    let cache = fresh_dir("fallback");
    let r = run_sim(&exe, &[], &cache, true, &[]);
    r.ok();
    assert!(r.stdout.contains("PASSED (0 wrong values)"), "{}", r.stdout);
    let f = fallbacks(&r.stdout);
    let why = |n: &str| {
        f.iter()
            .find(|(x, _)| x == n)
            .map(|(_, w)| w.as_str())
            .unwrap_or_else(|| panic!("no line for {n}:\n{}", r.stdout))
    };
    let scaled = why("scaled");
    assert!(
        scaled.starts_with(
            "NVRTC rejected the generated code (error: identifier \"scale\" is undefined; code and log in "
        ),
        "{scaled}"
    );
    let saved = cache.join("rejected");
    let cu: Vec<_> = std::fs::read_dir(&saved).unwrap().flatten().collect();
    assert_eq!(cu.len(), 1, "{}", saved.display());
    let text = std::fs::read_to_string(cu[0].path()).unwrap();
    assert!(text.contains("extern \"C\" __global__ void") && text.contains("/* build log:"));
    assert!(why("hidden").starts_with("kernel hidden: no definition found in "));
    assert_eq!(
        why("lastx"),
        "loop lastx: argument 1: a global written with OP_WRITE (on the host the last element's write wins; the device has no such order)"
    );
    assert!(
        why("twice").starts_with("arguments 0 and 1 pass dat v directly with OP_READ and OP_RW"),
        "{}",
        why("twice")
    );
    assert!(
        why("smooth").starts_with(
            "arguments 0 and 1 reach dat v directly (OP_RW) and through map c_c (OP_READ)"
        ),
        "{}",
        why("smooth")
    );
    for n in [
        "doubled",
        "ends",
        "maxloc",
        "scratch",
        "pair",
        "around",
        "collapsed",
    ] {
        assert_eq!(why(n), COMPILED);
    }
    assert_eq!(f.len(), 12);
}

#[test]
fn a_malformed_architecture_stops_op_init_with_one_line() {
    let exe = fallback_program();
    let cache = fresh_dir("bad-arch");
    let r = run_sim(&exe, &[], &cache, false, &[("OP2_RS_CUDA_ARCH", "hopper")]);
    assert_eq!(r.status, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "OP2 error in op_init: OP2_RS_CUDA_ARCH=hopper: not an architecture (sm_90, 90 or 9.0)"
        ),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("PASSED"));
}
