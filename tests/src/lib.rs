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
        let mut cmd = Command::new(cc);
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
