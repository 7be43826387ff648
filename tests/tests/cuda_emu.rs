//! libop2_cuda's whole device path for unchanged op_seq.h programs, run on
//! the CUDA emulator (tests/cuda-emu, built by scripts/cuda_emu.sh): an
//! emulated driver (libcuda.so.1: one GPU of compute capability 9.0 whose
//! kernels run on the host, each block's threads as fibers switching at
//! __syncthreads(), device memory guarded against stray writes) and an
//! emulated NVRTC (libnvrtc.so.13: the CUDA C++ the library writes,
//! compiled by g++). Nothing here runs on a GPU; what it shows is that the
//! library's CUDA host path (generation, compilation, cache, module load,
//! constants, launch parameters, dynamic shared memory, reductions,
//! transfers) and the CUDA dialect's code give libop2_seq's answers, as
//! the OpenCL dialect does on PoCL (tests/tests/opencl_lib.rs):
//! c-examples' airfoil in the three conflict schemes and with SoA device
//! copies, tests/c/device_args (every argument kind, checking itself) with
//! a block's threads run forwards and backwards, jac, quadvec and
//! reduction, blocks of 1,024 threads needing more than 48 KiB of shared
//! memory, a helper function from the program's main file. Then the
//! failure paths a GPU would take: cached cubins the driver refuses are
//! compiled again, a failed launch stops the program naming the loop.

use op2_tests::{
    all_on_device, assert_count_falls_back_once, assert_passed, assert_transfers, build_once,
    cuda_emu_dir, elf_images, nvrtc_dir, out_dir, placements, results, run_in, same_results, Lang,
    Link, Program, Run,
};
use std::path::{Path, PathBuf};

fn example(name: &str, lang: Lang, srcs: &[&str], inc: &[&str], lib: &str) -> PathBuf {
    op2_tests::build_with(name, lang, srcs, inc, lib)
}

fn airfoil(lib: &str) -> PathBuf {
    op2_tests::c_airfoil("emu_airfoil", lib)
}

/// A run on the emulated GPU with the compiled-program cache `cache`.
fn run_emu(exe: &Path, args: &[&str], cache: &Path, env: &[(&str, &str)]) -> Run {
    let mut all: Vec<(&str, &str)> = vec![
        ("LD_LIBRARY_PATH", cuda_emu_dir()),
        ("OP2_RS_CACHE_DIR", cache.to_str().unwrap()),
    ];
    all.extend_from_slice(env);
    run_in(exe, args, &out_dir().join("runs").join("cuda-emu"), &all)
}

/// The cache the tests of this process share (each loop compiled once).
fn shared_cache() -> PathBuf {
    out_dir().join("cuda-emu-cache")
}

fn run_host(exe: &Path, args: &[&str]) -> Run {
    run_host_env(exe, args, &[])
}

fn run_host_env(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_in(exe, args, &out_dir().join("runs").join("cuda-emu"), env)
}

/// The residual lines (airfoil prints them every 100 iterations).
fn rms(r: &Run) -> Vec<String> {
    results(&r.stdout)
        .into_iter()
        .filter(|l| !l.contains("sums"))
        .map(String::from)
        .collect()
}

fn device_name(r: &Run) {
    assert!(
        r.stdout
            .contains("Using device: CUDA: op2-rs CUDA emulator (host CPU) (sm_90)"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[test]
fn airfoil_on_the_emulated_gpu_prints_seq_residuals_in_every_scheme() {
    let args = ["--cells=2000", "--iters=200"];
    let exe = airfoil("op2_cuda");
    let cache = shared_cache();
    let schemes: [(&str, &[(&str, &str)]); 4] = [
        ("colour2", &[]),
        ("colour2-global", &[("OP2_RS_CONFLICTS", "colour2-global")]),
        ("atomics", &[("OP2_RS_CONFLICTS", "atomics")]),
        (
            "atomics, SoA",
            &[("OP2_RS_CONFLICTS", "atomics"), ("OP_AUTO_SOA", "1")],
        ),
    ];
    for (tag, env) in schemes {
        // libop2_seq with the same variables (OP_AUTO_SOA prints a line)
        let host = run_host_env(&airfoil("op2_seq"), &args, env);
        let dev = run_emu(&exe, &args, &cache, env);
        device_name(&dev);
        assert_eq!(rms(&dev), rms(&host), "{tag}: the printed residuals");
        same_results(&dev, &host, 1e-12, 3);
        all_on_device(&dev, 5);
    }
    // two-level colouring: each value's increments in the plan's order,
    // whatever order a block's threads run in
    let fwd = run_emu(&exe, &args, &cache, &[]);
    let rev = run_emu(&exe, &args, &cache, &[("OP2EMU_ORDER", "reverse")]);
    rev.ok();
    assert_eq!(results(&rev.stdout), results(&fwd.stdout));
    // 64-bit offsets change the index arithmetic only: the same bits
    let wide = run_emu(&exe, &args, &cache, &[("OP2_RS_WIDE_OFFSETS", "1")]);
    all_on_device(&wide, 5);
    assert_eq!(
        results(&wide.stdout),
        results(&fwd.stdout),
        "64-bit offsets"
    );
    // the state machine as on OpenCL: declared dats go up once, the one
    // fetch comes down once, each coloured loop's plan goes up once
    let stats = run_emu(&exe, &args, &cache, &[("OP2_RS_DEVICE_STATS", "1")]);
    assert_transfers(&stats.stdout, &op2_tests::AIRFOIL_TRANSFERS);
}

/// The most dynamic shared memory one launch of `kernel` had (the
/// emulator's OP2EMU_STATS line).
fn most_shared(r: &Run, kernel: &str) -> usize {
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("op2-rs CUDA emulator: launches:"))
        .unwrap_or_else(|| panic!("no launch statistics:\n{}", r.stderr));
    let entry = line
        .split(' ')
        .find_map(|w| w.strip_prefix(&format!("{kernel}=")[..]))
        .unwrap_or_else(|| panic!("{kernel} not launched: {line}"));
    entry.split_once('/').map_or(0, |(_, b)| b.parse().unwrap())
}

/// How many times the program waited for the device (the emulator's
/// OP2EMU_STATS line).
fn synchronizations(r: &Run) -> usize {
    r.stderr
        .lines()
        .find_map(|l| l.strip_prefix("op2-rs CUDA emulator: synchronizations: "))
        .unwrap_or_else(|| panic!("no synchronization count:\n{}", r.stderr))
        .trim()
        .parse()
        .unwrap()
}

/// By default a loop without a reduction waits for its kernels (as OP2's
/// generated code synchronises after each loop): airfoil's save_soln,
/// adt_calc, res_calc and bres_calc, 7 calls per iteration. With
/// OP2_RS_DEVICE_ASYNC=1 they return with their kernels queued (update's
/// download of its slots waits for them): no wait at all, the same
/// answers, and their kernels timed on the device (OP2_RS_DEVICE_TIMES'
/// default then). Timed while waiting, the waits stay. Any value but 0 or 1
/// stops op_init naming the variable.
#[test]
fn loops_without_reductions_can_leave_their_kernels_queued() {
    let (iters, args) = (20, ["--cells=2000", "--iters=20"]);
    let exe = airfoil("op2_cuda");
    let cache = shared_cache();
    let stats = ("OP2EMU_STATS", "1");
    let waiting = run_emu(&exe, &args, &cache, &[stats]);
    waiting.ok();
    assert_eq!(synchronizations(&waiting), 7 * iters, "{}", waiting.stderr);
    for (v, waits) in [("0", 7 * iters), ("1", 0)] {
        let r = run_emu(&exe, &args, &cache, &[stats, ("OP2_RS_DEVICE_ASYNC", v)]);
        r.ok();
        all_on_device(&r, 5);
        assert_eq!(synchronizations(&r), waits, "OP2_RS_DEVICE_ASYNC={v}");
        // the table of where each loop ran says what the times mean
        let queued = r.stdout.contains(
            "; kernels queued, OP2_RS_DEVICE_ASYNC=1: a loop's time is the host's unless it waits (a reduction)):",
        );
        assert_eq!(queued, v == "1", "{}", r.stdout);
        // loops left queued are timed on the device (events, read when
        // the table is printed: no wait before)
        if v == "1" {
            op2_tests::assert_device_times(&r, 5, false);
        } else {
            assert!(op2_tests::device_times(&r.stdout).is_empty());
        }
        assert_eq!(
            results(&r.stdout),
            results(&waiting.stdout),
            "OP2_RS_DEVICE_ASYNC={v}"
        );
    }
    // timed while waiting: the same number of waits, each loop's events
    // within its time in the timing table, the same answers
    let env = [stats, ("OP2_RS_DEVICE_TIMES", "1")];
    let timed = run_emu(&exe, &args, &cache, &env);
    timed.ok();
    assert_eq!(synchronizations(&timed), 7 * iters, "{}", timed.stderr);
    op2_tests::assert_device_times(&timed, 5, true);
    assert_eq!(results(&timed.stdout), results(&waiting.stdout));
    let bad = run_emu(&exe, &args, &cache, &[("OP2_RS_DEVICE_ASYNC", "yes")]);
    assert_eq!(bad.status, Some(1), "{}\n{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr
            .contains("OP2 error in op_init: OP2_RS_DEVICE_ASYNC=yes: not 0 or 1"),
        "{}",
        bad.stderr
    );
}

/// Blocks of 1024 threads: res_calc's staged block needs more than the
/// 48 KiB of shared memory a kernel gets without asking, so the library
/// raises the function's limit first (the emulated driver refuses a launch
/// over the limit, as a GPU's does); the answers stay libop2_seq's.
#[test]
fn staged_blocks_over_48_kib_of_shared_memory_raise_the_limit() {
    let args = ["--cells=20000", "--iters=10"];
    let host = run_host(&airfoil("op2_seq"), &args);
    let env = [("OP2_RS_BLOCK_SIZE", "1024"), ("OP2EMU_STATS", "1")];
    let dev = run_emu(&airfoil("op2_cuda"), &args, &shared_cache(), &env);
    same_results(&dev, &host, 1e-12, 1);
    all_on_device(&dev, 5);
    let res = most_shared(&dev, "op2_k_res_calc");
    assert!(res > 48 * 1024, "res_calc had {res} bytes");
}

/// tests/c/device_args checks every argument kind against plain C++ loops
/// (tests/tests/opencl_lib.rs lists them); on the emulated GPU in every
/// scheme, with a block's threads run forwards and backwards between
/// barriers, all five loops on the device; `count` named for atomics runs
/// on the host with one line (`pin`, so named, runs flat on the device).
#[test]
fn every_argument_kind_on_the_emulated_gpu_in_every_scheme() {
    let exe = example(
        "emu_device_args",
        Lang::Cxx17,
        &["tests/c/device_args/device_args.cpp"],
        &["tests/c/device_args"],
        "op2_cuda",
    );
    let cache = shared_cache();
    // threads in both orders; and with 64-bit offsets (the plan's offsets
    // passed as 8-byte parameters)
    let runs = [("forward", "0"), ("reverse", "0"), ("forward", "1")];
    for scheme in ["colour2", "colour2-global", "atomics"] {
        for (order, wide) in runs {
            let env = [
                ("OP2_RS_CONFLICTS", scheme),
                ("OP2EMU_ORDER", order),
                ("OP2_RS_WIDE_OFFSETS", wide),
            ];
            let r = run_emu(&exe, &[], &cache, &env);
            assert_passed(&r, &format!("{scheme}, {order}, 64-bit offsets {wide}"));
            all_on_device(&r, 5);
        }
    }
    let env = [("OP2_RS_CONFLICTS", "atomics,pin=atomics,count=atomics")];
    let r = run_emu(&exe, &[], &cache, &env);
    assert_count_falls_back_once(&r);
}

/// tests/c/two_maps (one dat through two maps: read and written, added
/// to, read; and twice through a map whose rows sometimes repeat a cell)
/// on the emulated GPU in every scheme, a block's threads run forwards and
/// backwards between barriers: every value as the plain C loops give it,
/// every loop on the device.
#[test]
fn one_dat_through_two_maps_on_the_emulated_gpu() {
    let exe = example(
        "emu_two_maps",
        Lang::C99,
        &["tests/c/two_maps/two_maps.c"],
        &["tests/c/two_maps"],
        "op2_cuda",
    );
    let cache = shared_cache();
    for scheme in ["colour2", "colour2-global", "atomics"] {
        for order in ["forward", "reverse"] {
            let env = [("OP2_RS_CONFLICTS", scheme), ("OP2EMU_ORDER", order)];
            let r = run_emu(&exe, &[], &cache, &env);
            assert_passed(&r, &format!("{scheme}, {order}"));
            all_on_device(&r, 4);
        }
    }
}

/// tests/c/wide_ints (OP2's 64-bit and unsigned integer types and bools; kernels
/// that name them `long long` and, in one loop, `long`: CUDA C++'s
/// distinct types, which the private copies follow) on the emulated GPU
/// in every scheme: the plain C loops' values, every loop on the device.
#[test]
fn sixty_four_bit_and_unsigned_integer_dats_on_the_emulated_gpu() {
    let exe = example(
        "emu_wide_ints",
        Lang::C99,
        &["tests/c/wide_ints/wide_ints.c"],
        &["tests/c/wide_ints"],
        "op2_cuda",
    );
    let cache = shared_cache();
    for scheme in ["colour2", "colour2-global", "atomics"] {
        let r = run_emu(&exe, &[], &cache, &[("OP2_RS_CONFLICTS", scheme)]);
        assert_passed(&r, scheme);
        all_on_device(&r, 5);
    }
}

#[test]
fn jac_quadvec_reduction_on_the_emulated_gpu() {
    let cache = shared_cache();
    op2_tests::jac_quadvec_reduction(
        "emu",
        "op2_cuda",
        (&["--iters=300"], &["--nx=60", "--ny=45", "--iters=20"]),
        &|exe, args, env| run_emu(exe, args, &cache, env),
        &|exe, args, env| run_host_env(exe, args, env),
    );
}

/// A cached cubin the driver will not load (here: real NVRTC's sm_90
/// cubins, which the emulated driver refuses as a GPU's driver refuses an
/// image it cannot run) is compiled again, once, replacing the entry: the
/// loops still run on the device, and the next run loads the new entries.
#[test]
fn cubins_the_driver_refuses_are_compiled_again() {
    let args = ["--cells=500", "--iters=20"];
    let cache = out_dir().join("cuda-emu-refused");
    let _ = std::fs::remove_dir_all(&cache);
    let exe = airfoil("op2_cuda");
    // the real NVRTC fills the cache (a device simulated in host memory)
    let sim = run_in(
        &exe,
        &args,
        &out_dir().join("runs").join("cuda-emu"),
        &[
            ("OP2_RS_DEVICE", "host"),
            ("OP2_RS_CUDA_ARCH", "sm_90"),
            ("OP2_RS_CACHE_DIR", cache.to_str().unwrap()),
            ("LD_LIBRARY_PATH", nvrtc_dir()),
        ],
    );
    sim.ok();
    assert_eq!(elf_images(&cache), 5, "{}", sim.stdout);
    let refused = "op2-rs CUDA emulator: cuModuleLoadData: not an image of the emulated NVRTC (ELF machine 190)";
    let first = run_emu(&exe, &args, &cache, &[]);
    assert_eq!(first.stderr.matches(refused).count(), 5, "{}", first.stderr);
    all_on_device(&first, 5);
    let host = run_host(&airfoil("op2_seq"), &args);
    same_results(&first, &host, 1e-12, 2);
    let second = run_emu(&exe, &args, &cache, &[]);
    assert!(!second.stderr.contains(refused), "{}", second.stderr);
    all_on_device(&second, 5);
    assert_eq!(results(&second.stdout), results(&first.stdout));
}

/// A launch the device reports as failed stops the program with OP2's
/// error line naming the loop and the driver's error, and a non-zero
/// status (the emulator fails every launch of res_calc's kernel).
#[test]
fn a_failed_launch_stops_the_program_naming_the_loop() {
    let r = run_emu(
        &airfoil("op2_cuda"),
        &["--cells=500", "--iters=2"],
        &shared_cache(),
        &[("OP2EMU_FAIL", "op2_k_res_calc")],
    );
    assert_eq!(r.status, Some(1), "{}\n{}", r.stdout, r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains(
            "OP2 error in op_par_loop (loop \"res_calc\"): device: cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED"
        ),
        "{all}"
    );
    assert!(
        r.stderr.contains(
            "op2-rs CUDA emulator: cuLaunchKernel: op2_k_res_calc: fails as OP2EMU_FAIL asks"
        ),
        "{}",
        r.stderr
    );
    assert!(placements(&r.stdout).is_empty(), "{}", r.stdout);
}

/// A kernel calling a helper function its header does not define (the
/// program's main file does): the first compile fails naming it (the
/// emulated NVRTC words that as NVRTC does), the library adds the main
/// file's helpers and compiles again; the loop runs on the device.
#[test]
fn helpers_of_the_main_file_on_the_emulated_gpu() {
    let exe = example(
        "emu_helpers",
        Lang::C99,
        &["tests/c/opencl_helpers/main.c"],
        &["tests/c/opencl_helpers"],
        "op2_cuda",
    );
    let r = run_emu(&exe, &[], &shared_cache(), &[]);
    r.ok();
    assert!(r.stdout.contains("PASSED (0 wrong values"), "{}", r.stdout);
    all_on_device(&r, 1);
}

/// The generated CUDA code under ThreadSanitizer (OP2EMU_TSAN=1: the
/// programs and the kernels built with -fsanitize=thread; the emulated
/// driver tells TSan what orders a GPU's threads: the launch, the block's
/// barriers, the end of the launch, and nothing between two blocks of one
/// launch): c-examples' airfoil and tests/c/device_args (small sizes: each
/// thread of each block is a new TSan fiber) in every scheme give no race
/// report, their answers and every loop on the device. A race would be a
/// missing barrier, a colouring letting two threads or two blocks of one
/// launch write one value, or an increment that is not atomic (each was
/// checked by breaking the generator or the launcher: TSan reported it).
#[test]
fn generated_code_has_no_data_races_under_threadsanitizer() {
    let tsan = |name: &str, srcs: &[&str], inc: &[&str]| {
        let mut p = Program::new(name, Lang::Cxx17, srcs)
            .flag("-fsanitize=thread")
            .flag("-g")
            .link(Link::Shared)
            .lib("op2_cuda");
        for i in inc {
            p = p.include(i);
        }
        build_once(&p)
    };
    let af = tsan(
        "emu_tsan_airfoil",
        &[
            "c-examples/airfoil/airfoil.cpp",
            "c-examples/common/naca_mesh.c",
        ],
        &["c-examples/common", "c-examples/airfoil"],
    );
    let da = tsan(
        "emu_tsan_device_args",
        &["tests/c/device_args/device_args.cpp"],
        &["tests/c/device_args"],
    );
    let cache = out_dir().join("cuda-emu-tsan-cache");
    let args = ["--cells=500", "--iters=1"];
    let host = run_host(&airfoil("op2_seq"), &args);
    for scheme in ["colour2", "colour2-global", "atomics"] {
        let env = [("OP2EMU_TSAN", "1"), ("OP2_RS_CONFLICTS", scheme)];
        let r = run_emu(&af, &args, &cache, &env);
        assert!(
            !r.stderr.contains("ThreadSanitizer"),
            "{scheme}:\n{}",
            r.stderr
        );
        same_results(&r, &host, 1e-12, 1);
        all_on_device(&r, 5);
        let r = run_emu(&da, &["300"], &cache, &env);
        assert!(
            !r.stderr.contains("ThreadSanitizer"),
            "{scheme}:\n{}",
            r.stderr
        );
        assert_passed(&r, scheme);
        all_on_device(&r, 5);
    }
}
