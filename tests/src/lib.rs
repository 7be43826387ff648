//! Helpers for the integration tests: locate the workspace, compile C/C++
//! programs against `include/` and a built OP2 library, run them.
//!
//! The libraries must have been built first (`cargo build --release`, which
//! `scripts/test.sh` does); `OP2_LIBDIR` overrides where they are looked for.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Directory holding libop2_*.{a,so}.
pub fn lib_dir() -> PathBuf {
    std::env::var_os("OP2_LIBDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/release"))
}

/// Where test executables are written.
pub fn out_dir() -> PathBuf {
    let d = root().join("target/op2-tests");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Where a script prints a directory on its first line of output (run once
/// per script and test process).
fn script_dir(script: &str) -> String {
    let out = Command::new(root().join(script))
        .output()
        .unwrap_or_else(|e| panic!("{script}: {e}"));
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The real NVRTC's directory (CUDA 13.0 from PyPI, installed by
/// scripts/cuda_toolkit.sh the first time).
pub fn nvrtc_dir() -> &'static str {
    static DIR: OnceLock<String> = OnceLock::new();
    DIR.get_or_init(|| format!("{}/lib", script_dir("scripts/cuda_toolkit.sh")))
}

/// The CUDA emulator's directory (scripts/cuda_emu.sh, built the first
/// time): put first on LD_LIBRARY_PATH, a libop2_cuda program finds one
/// emulated GPU there and runs its loops on the host through the library's
/// whole CUDA path.
pub fn cuda_emu_dir() -> &'static str {
    static DIR: OnceLock<String> = OnceLock::new();
    DIR.get_or_init(|| script_dir("scripts/cuda_emu.sh"))
}

/// The files in `dir` holding an ELF image (cubins, or the CUDA
/// emulator's modules, in a compiled-program cache).
pub fn elf_images(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| std::fs::read(e.ok()?.path()).ok())
                .filter(|b| b.windows(4).any(|w| w == b"\x7fELF"))
                .count()
        })
        .unwrap_or(0)
}

/// Source language of a test program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// `gcc -std=c99 -pedantic`
    C99,
    /// `gcc -std=c11`
    C11,
    /// `g++ -std=c++17`
    Cxx17,
}

/// How the OP2 library is linked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The static archive `libop2_<x>.a`.
    Static,
    /// The shared library `libop2_<x>.so` (found through an rpath).
    Shared,
}

/// A program to build.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub sources: Vec<PathBuf>,
    pub lang: Lang,
    /// `op2_seq`, `op2_openmp`, ...
    pub lib: String,
    pub link: Link,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub extra_flags: Vec<String>,
    /// link libop2_hdf5 before the OP2 library and the serial HDF5 after it
    pub hdf5: bool,
    /// the compiler driver instead of the language's (`mpicc`, `mpicxx`)
    pub compiler: Option<String>,
}

/// The serial HDF5 installation (`HDF5_DIR`, else Debian's libhdf5-dev prefix).
pub fn hdf5_dir() -> PathBuf {
    std::env::var_os("HDF5_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/x86_64-linux-gnu/hdf5/serial"))
}

impl Program {
    /// A program from sources relative to the workspace root.
    pub fn new(name: &str, lang: Lang, sources: &[&str]) -> Program {
        Program {
            name: name.to_string(),
            sources: sources.iter().map(|s| root().join(s)).collect(),
            lang,
            lib: "op2_seq".into(),
            link: Link::Static,
            include_dirs: Vec::new(),
            defines: Vec::new(),
            extra_flags: Vec::new(),
            hdf5: false,
            compiler: None,
        }
    }

    pub fn lib(mut self, lib: &str) -> Self {
        self.lib = lib.into();
        self
    }
    pub fn link(mut self, link: Link) -> Self {
        self.link = link;
        self
    }
    pub fn include(mut self, dir: &str) -> Self {
        self.include_dirs.push(root().join(dir));
        self
    }
    pub fn define(mut self, d: &str) -> Self {
        self.defines.push(d.into());
        self
    }
    /// OP2's HDF5 link line: `-lop2_hdf5 -lop2_<x> -lhdf5` (static: the archives).
    pub fn with_hdf5(mut self) -> Self {
        self.hdf5 = true;
        self
    }
    pub fn flag(mut self, f: &str) -> Self {
        self.extra_flags.push(f.into());
        self
    }
    /// Build with the driver `cc` (e.g. `mpicc`) in the language's standard.
    pub fn compiler(mut self, cc: &str) -> Self {
        self.compiler = Some(cc.into());
        self
    }

    /// Compile and link; panics with the compiler output on failure or on any
    /// warning (examples and tests must build warning-free).
    pub fn build(&self) -> PathBuf {
        let lib = lib_dir();
        let archive = lib.join(format!("lib{}.a", self.lib));
        assert!(
            archive.exists(),
            "{} is missing: build the libraries first (cargo build --release, or scripts/test.sh)",
            archive.display()
        );
        let exe = out_dir().join(format!("{}-{}", self.name, self.lib));
        let (cc, std): (&str, &[&str]) = match self.lang {
            Lang::C99 => ("gcc", &["-std=c99", "-pedantic"]),
            Lang::C11 => ("gcc", &["-std=c11", "-pedantic"]),
            Lang::Cxx17 => ("g++", &["-std=c++17", "-pedantic"]),
        };
        let mut cmd = Command::new(self.compiler.as_deref().unwrap_or(cc));
        cmd.args(std)
            .args(["-O2", "-Wall", "-Wextra", "-ffp-contract=off"]);
        cmd.arg(format!("-I{}", root().join("include").display()));
        for d in &self.include_dirs {
            cmd.arg(format!("-I{}", d.display()));
        }
        for d in &self.defines {
            cmd.arg(format!("-D{d}"));
        }
        cmd.args(&self.extra_flags);
        cmd.args(&self.sources);
        match self.link {
            Link::Static => {
                if self.hdf5 {
                    cmd.arg(lib.join("libop2_hdf5.a"));
                }
                cmd.arg(&archive);
            }
            Link::Shared => {
                cmd.arg(format!("-L{}", lib.display()));
                cmd.arg(format!("-Wl,-rpath,{}", lib.display()));
                if self.hdf5 {
                    cmd.arg("-lop2_hdf5");
                }
                cmd.arg(format!("-l{}", self.lib));
            }
        }
        if self.hdf5 {
            let h = hdf5_dir();
            cmd.arg(format!("-L{}", h.join("lib").display()));
            cmd.arg(format!("-Wl,-rpath,{}", h.join("lib").display()));
            cmd.arg("-lhdf5");
        }
        cmd.args(["-lpthread", "-ldl", "-lm", "-o"]).arg(&exe);
        let out = cmd.output().expect("run the C compiler");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "compiling {} failed:\n{:?}\n{stderr}",
            self.name,
            cmd
        );
        assert!(
            !stderr.contains("warning"),
            "compiling {} gave warnings:\n{stderr}",
            self.name
        );
        exe
    }
}

/// `build_once` of a program from `srcs` with include directories `inc`,
/// linked against `lib`.
pub fn build_with(name: &str, lang: Lang, srcs: &[&str], inc: &[&str], lib: &str) -> PathBuf {
    let mut p = Program::new(name, lang, srcs).lib(lib);
    for i in inc {
        p = p.include(i);
    }
    build_once(&p)
}

/// c-examples' airfoil (op_seq.h, its NACA mesh generator built in),
/// built once as `name` against `lib`.
pub fn c_airfoil(name: &str, lib: &str) -> PathBuf {
    build_with(
        name,
        Lang::Cxx17,
        &[
            "c-examples/airfoil/airfoil.cpp",
            "c-examples/common/naca_mesh.c",
        ],
        &["c-examples/common", "c-examples/airfoil"],
        lib,
    )
}

/// Build once per test process (tests that share a program call this).
/// Different programs build concurrently; the same program builds once.
pub fn build_once(p: &Program) -> PathBuf {
    type Slot = std::sync::Arc<OnceLock<PathBuf>>;
    static BUILT: OnceLock<Mutex<Vec<(String, Slot)>>> = OnceLock::new();
    let key = format!("{}-{}-{:?}", p.name, p.lib, p.link);
    let slot: Slot = {
        let mut g = BUILT.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap();
        match g.iter().find(|(k, _)| *k == key) {
            Some((_, s)) => s.clone(),
            None => {
                let s: Slot = Default::default();
                g.push((key, s.clone()));
                s
            }
        }
    };
    slot.get_or_init(|| p.build()).clone()
}

/// The result of running a program.
pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> &Self {
        assert_eq!(
            self.status,
            Some(0),
            "program failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Run `exe` with `args` in directory `cwd` (created if needed) and extra env vars.
pub fn run_in(exe: &Path, args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Run {
    std::fs::create_dir_all(cwd).unwrap();
    let out: Output = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `timeout -k 5 SECS mpirun -np N exe args` in `cwd` (created if needed)
/// with extra variables for every rank (single node: they inherit
/// mpirun's environment); a run that does not finish in time fails the
/// test, naming the program.
pub fn mpirun(
    exe: &Path,
    np: usize,
    args: &[&str],
    cwd: &Path,
    secs: u32,
    env: &[(&str, &str)],
) -> Run {
    std::fs::create_dir_all(cwd).unwrap();
    let out = Command::new("timeout")
        .args(["-k", "5", &secs.to_string(), "mpirun"])
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "--bind-to",
            "none",
        ])
        .args(["-np", &np.to_string()])
        .arg(exe)
        .args(args)
        .current_dir(cwd)
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run timeout/mpirun");
    let r = Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        r.status != Some(124) && r.status != Some(137) && r.status.is_some(),
        "mpirun -np {np} {} {args:?} did not finish within {secs} s (status {:?})\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        r.status,
        r.stdout,
        r.stderr
    );
    r
}

/// The rows of the table of where each loop ran (a device library prints
/// it after op_timing_output, and at op_exit with OP2_RS_DEVICE_STATS):
/// the loop's name and `device` or `host (why)`; the first table printed.
pub fn placements(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .skip_while(|l| !l.contains("where each loop ran"))
        .skip(1)
        .take_while(|l| l.starts_with("  ") && !l.trim().is_empty())
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_string(), w.collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// Run `exe` in a fresh scratch directory named after `tag`.
pub fn run(exe: &Path, args: &[&str], tag: &str) -> Run {
    let dir = out_dir().join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    run_in(exe, args, &dir, &[])
}

/// A line inside one of capi's `exports!` tables: a doc comment or
/// attribute, or an entry (`name(params) -> ret = "call" => expr;`).
pub enum ExportLine<'a> {
    Meta(&'a str),
    Entry(&'a str),
}

/// The lines of every `exports!` table in a source file, trimmed.
pub fn export_table_lines(text: &str) -> Vec<ExportLine<'_>> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        let t = line.trim();
        if line.starts_with("exports! {") {
            in_table = true;
        } else if in_table && line.starts_with('}') {
            in_table = false;
        } else if in_table && (t.starts_with("///") || t.starts_with("#[")) {
            out.push(ExportLine::Meta(t));
        } else if in_table {
            out.push(ExportLine::Entry(t));
        }
    }
    out
}

/// The lines a program prints about its results (no banner, timing table,
/// placement table or run times).
pub fn results(stdout: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for l in stdout.lines() {
        if l.contains("where each loop ran") {
            break;
        }
        let skip = l.trim().is_empty()
            || l.contains("Initializing OP2")
            || l.contains("Using device")
            || l.contains("op2-rs: loop")
            || l.starts_with("Total plan time")
            || l.contains("runtime")
            || l.contains(';')
            || l.starts_with("  count ")
            || l.starts_with(" ---");
        if !skip {
            out.push(l);
        }
    }
    out
}

/// A program that checks itself (tests/c/device_args, big_offsets, the
/// fallback program) ended with status 0 and the verdict "PASSED (0 wrong
/// values)"; `what` names the run in the message.
pub fn assert_passed(r: &Run, what: &str) {
    r.ok();
    assert!(
        r.stdout.contains("PASSED (0 wrong values)"),
        "{what}:\n{}",
        r.stdout
    );
}

/// `loops` rows in the placement table, each `device`, and no fallback
/// line.
pub fn all_on_device(r: &Run, loops: usize) {
    let p = placements(&r.stdout);
    assert_eq!(p.len(), loops, "placement table:\n{}", r.stdout);
    for (name, place) in &p {
        assert_eq!(place, "device", "loop {name}:\n{}", r.stdout);
    }
    assert!(
        !r.stdout.contains("runs on the host"),
        "no fallback:\n{}",
        r.stdout
    );
}

/// op_timing_output's rows (the first table printed): kernel name, count,
/// time.
pub fn timing_rows(stdout: &str) -> Vec<(String, u64, f64)> {
    stdout
        .lines()
        .skip_while(|l| !l.contains("count   plan time"))
        .skip(2)
        .map_while(|l| {
            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            let time = f.get(3)?.split('(').next()?.trim().parse().ok()?;
            Some((f.last()?.to_string(), f[0].parse().ok()?, time))
        })
        .collect()
}

/// The rows of the table of each loop's device time (OP2_RS_DEVICE_TIMES;
/// the first printed): loop, calls, seconds.
pub fn device_times(stdout: &str) -> Vec<(String, u64, f64)> {
    stdout
        .lines()
        .skip_while(|l| !l.contains("device time of each loop's kernels"))
        .skip(2)
        .map_while(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w[..] {
                [name, calls, secs, _] => {
                    Some((name.to_string(), calls.parse().ok()?, secs.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

/// A run with loops timed on the device: its table lists the `loops`
/// loops of op_timing_output's table with their call counts, each with a
/// positive time; with `within` (loops that wait for their kernels) none
/// more than its time in op_timing_output's table (the host's clock runs
/// from before the first mark to after the wait), give or take 2 ms.
pub fn assert_device_times(r: &Run, loops: usize, within: bool) {
    let (mut dev, mut host) = (device_times(&r.stdout), timing_rows(&r.stdout));
    dev.sort_by(|a, b| a.0.cmp(&b.0));
    host.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(dev.len(), loops, "device times:\n{}", r.stdout);
    assert_eq!(host.len(), loops, "timing table:\n{}", r.stdout);
    for ((name, calls, secs), (hname, hcalls, hsecs)) in dev.iter().zip(&host) {
        assert_eq!((name, calls), (hname, hcalls), "{}", r.stdout);
        assert!(*secs > 0.0, "{name}: {secs} s on the device\n{}", r.stdout);
        if within {
            assert!(
                *secs <= hsecs + 2e-3,
                "{name}: {secs} s on the device, {hsecs} s in the timing table\n{}",
                r.stdout
            );
        }
    }
}

/// Same lines, numbers equal to `rel` (0: the same text).
pub fn same_results(dev: &Run, host: &Run, rel: f64, min_lines: usize) {
    dev.ok();
    host.ok();
    let (a, b) = (results(&dev.stdout), results(&host.stdout));
    assert!(
        a.len() >= min_lines,
        "too few result lines:\n{}",
        dev.stdout
    );
    assert_eq!(a.len(), b.len(), "device:\n{a:#?}\nhost:\n{b:#?}");
    for (x, y) in a.iter().zip(&b) {
        let (tx, ty): (Vec<&str>, Vec<&str>) = (
            x.split_whitespace().collect(),
            y.split_whitespace().collect(),
        );
        assert_eq!(tx.len(), ty.len(), "{x}\n{y}");
        for (u, v) in tx.iter().zip(&ty) {
            match (u.parse::<f64>(), v.parse::<f64>()) {
                (Ok(p), Ok(q)) if rel > 0.0 => {
                    let scale = p.abs().max(q.abs()).max(1e-300);
                    assert!(
                        (p - q).abs() / scale <= rel || (p - q).abs() < 1e-13,
                        "{u} vs {v} beyond {rel}:\n{x}\n{y}"
                    );
                }
                _ => assert_eq!(u, v, "device: {x}\nhost:   {y}"),
            }
        }
    }
}

/// What c-examples' airfoil moves on a device library, in its transfer
/// report: its 6 dats go up once at declaration and never again (no host
/// loop writes them), the one fetch (q sums) comes down once, and the plan
/// of the one loop whose increments through maps can meet (res_calc: edges
/// share cells) goes up once; adt_calc, which only reads through its map,
/// and bres_calc, whose boundary edges each reach a different cell, run
/// flat with no plan.
pub const AIRFOIL_TRANSFERS: [&str; 4] = [
    " dats_placed=6 ",
    " dat_uploads=0 ",
    " dat_downloads=1 ",
    " plans=1 ",
];

/// The transfer report a device library prints at op_exit with
/// OP2_RS_DEVICE_STATS=1 holds each of `want` (` name=value ` fields).
pub fn assert_transfers(stdout: &str, want: &[&str]) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("op2-rs device transfers:"))
        .unwrap_or_else(|| panic!("no transfer report:\n{stdout}"));
    for w in want {
        assert!(line.contains(w), "{w} in {line}");
    }
}

/// tests/c/device_args with `OP2_RS_CONFLICTS=atomics,pin=atomics,count=atomics`:
/// its checks pass, and loop `count` (OP_RW through a map whose rows the
/// edges share: atomics cannot serve it) runs on the host with one line
/// saying why, the only fallback (`pin`, through a map that reaches each
/// node once, runs flat on the device).
pub fn assert_count_falls_back_once(r: &Run) {
    assert_passed(r, "count on the host");
    let line = "op2-rs: loop count runs on the host: loop count: argument 0: OP_RW through a map needs colouring, not atomics";
    assert_eq!(r.stdout.matches(line).count(), 1, "{}", r.stdout);
    assert_eq!(
        r.stdout.matches("runs on the host").count(),
        1,
        "{}",
        r.stdout
    );
}

/// How a device test runs a program: executable, arguments, variables.
pub type Runner<'a> = &'a dyn Fn(&Path, &[&str], &[(&str, &str)]) -> Run;

/// c-examples' jac, quadvec and reduction built as `{prefix}_jac`... against
/// the device library `lib` and run by `dev`: jac and quadvec print
/// libop2_seq's results (run by `host`) to 1e-12 relative, reduction passes
/// its own checks (sums, minima, maxima, vector arguments; it prints no
/// timing table, so OP2_RS_DEVICE_STATS asks for the placement table at
/// op_exit), every loop on the device.
pub fn jac_quadvec_reduction(
    prefix: &str,
    lib: &str,
    args: (&[&str], &[&str]),
    dev: Runner,
    host: Runner,
) {
    let (jac_args, quad_args) = args;
    for (app, args, loops, min_lines) in [("jac", jac_args, 2, 6), ("quadvec", quad_args, 2, 4)] {
        let src = format!("c-examples/{app}/{app}.cpp");
        let inc = format!("c-examples/{app}");
        let build =
            |l: &str| build_with(&format!("{prefix}_{app}"), Lang::Cxx17, &[&src], &[&inc], l);
        let d = dev(&build(lib), args, &[]);
        same_results(&d, &host(&build("op2_seq"), args, &[]), 1e-12, min_lines);
        all_on_device(&d, loops);
    }
    let red = build_with(
        &format!("{prefix}_reduction"),
        Lang::Cxx17,
        &["c-examples/reduction/reduction.cpp"],
        &[],
        lib,
    );
    let r = dev(&red, &[], &[("OP2_RS_DEVICE_STATS", "1")]);
    r.ok();
    assert!(r.stdout.contains("PASSED"), "{}", r.stdout);
    assert_transfers(&r.stdout, &[]);
    all_on_device(&r, 5);
}
