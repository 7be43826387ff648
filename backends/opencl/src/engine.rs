//! The runtime's [`LoopCompiler`] on OpenCL: for each loop of an unchanged
//! op_seq.h program, the kernel's source found on the search path
//! ([`op2_codegen::find`]), the loop described from core's checked
//! arguments ([`crate::describe`]), the constants the kernel uses written
//! in with their exact values, the code generated (OpenCL C 1.2), built
//! once (the disk cache, then a program per text in memory) and launched
//! by [`crate::launch`].
//!
//! Options (environment, read when the library opens the device):
//! * `OP2_RS_KERNEL_PATH`: directories searched for kernels, `:`-separated,
//!   before the call site's source directory and the executable's;
//! * `OP2_RS_CONFLICTS`: `colour2` (default) or `atomics` for every loop,
//!   and/or `loop=scheme` entries, comma-separated (`res_calc=atomics`);
//! * `OP2_RS_BLOCK_SIZE`: the work-group size (a power of two, default 64);
//! * `OP2_RS_CACHE_DIR`: the compiled-program cache (default
//!   `$XDG_CACHE_HOME/op2-rs` or `~/.cache/op2-rs`); `OP2_RS_CACHE_DIR=off`
//!   switches it off;
//! * `OP2_RS_DUMP_CUDA`: a directory where each loop's code is also written
//!   in the CUDA dialect (`<entry>.cu`, listed in `entries.txt` as
//!   `file entry`), for checking it with NVRTC where no GPU is.

use crate::describe::describe;
use crate::launch::{launch, maps_in_order, Bindings};
use crate::{Kernel, OpenCl, Program};
use op2_codegen::cache::{default_dir, Cache};
use op2_codegen::{self as cg, Conflicts, Dialect, Generated, Options, Scheme};
use op2_core::arg::ArgKind;
use op2_core::domain::MapId;
use op2_core::runtime::{
    CompileRequest, ConstDecl, DeviceKernel, LaunchInput, LoopCompiler, PlanShape,
};
use op2_core::types::ScalarType;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Options every generated program is built with.
pub const BUILD_OPTIONS: &str = "-cl-std=CL1.2";

/// The conflict scheme per loop.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConflictChoice {
    pub default: Option<Conflicts>,
    pub per_loop: Vec<(String, Conflicts)>,
}

fn scheme_named(s: &str) -> Option<Conflicts> {
    match s.trim().to_ascii_lowercase().as_str() {
        "colour2" | "color2" | "colour" | "color" | "staged" => Some(Conflicts::Colour2),
        "atomics" | "atomic" | "flat" => Some(Conflicts::Atomics),
        _ => None,
    }
}

impl ConflictChoice {
    /// Parse `OP2_RS_CONFLICTS` (see the module docs).
    pub fn parse(v: &str) -> Result<ConflictChoice, String> {
        let mut c = ConflictChoice::default();
        for item in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || {
                format!(
                    "OP2_RS_CONFLICTS: '{item}' is not colour2, atomics or loop=colour2|atomics"
                )
            };
            match item.split_once('=') {
                Some((name, s)) => c
                    .per_loop
                    .push((name.trim().to_string(), scheme_named(s).ok_or_else(bad)?)),
                None => c.default = Some(scheme_named(item).ok_or_else(bad)?),
            }
        }
        Ok(c)
    }

    /// The scheme of loop `name`.
    pub fn of(&self, name: &str) -> Conflicts {
        self.per_loop
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .or(self.default)
            .unwrap_or(Conflicts::Colour2)
    }
}

/// The OpenCL loop compiler.
pub struct Engine {
    cl: Arc<OpenCl>,
    cache: Option<Cache>,
    conflicts: ConflictChoice,
    block_size: usize,
    kernel_path: Vec<PathBuf>,
    /// `OP2_RS_DUMP_CUDA`.
    dump_cuda: Option<PathBuf>,
    /// Where the executable's debug information says functions are
    /// declared (read the first time a kernel is looked for).
    decl_files: std::sync::OnceLock<crate::debuginfo::DeclFiles>,
    /// Built programs by their text.
    programs: Mutex<HashMap<String, Program>>,
    /// Kernel sources found, by kernel and call site (a loop prepared again,
    /// after objects were freed, reads no file).
    sources: Mutex<HashMap<(String, Option<String>), cg::KernelSource>>,
}

impl Engine {
    /// The engine with the environment's options; a malformed option is
    /// an error naming it.
    pub fn from_env(cl: Arc<OpenCl>) -> Result<Engine, String> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        let conflicts = ConflictChoice::parse(&var("OP2_RS_CONFLICTS").unwrap_or_default())?;
        let block_size = match var("OP2_RS_BLOCK_SIZE") {
            None => 64,
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|b| b.is_power_of_two() && *b <= 1024)
                .ok_or_else(|| {
                    format!("OP2_RS_BLOCK_SIZE={v}: not a power of two from 1 to 1024")
                })?,
        };
        let cache = match var("OP2_RS_CACHE_DIR").as_deref() {
            Some("off") => None,
            _ => default_dir().map(Cache::new),
        };
        Ok(Engine {
            cl,
            cache,
            conflicts,
            block_size,
            kernel_path: cg::find::split_path(&var("OP2_RS_KERNEL_PATH").unwrap_or_default()),
            dump_cuda: var("OP2_RS_DUMP_CUDA").map(PathBuf::from),
            decl_files: std::sync::OnceLock::new(),
            programs: Mutex::new(HashMap::new()),
            sources: Mutex::new(HashMap::new()),
        })
    }

    /// Where kernel `kernel` is looked for: `OP2_RS_KERNEL_PATH`, then the
    /// directory of the file the executable's debug information says
    /// declares it (when built with `-g`), then the call site's source
    /// directory (a relative one as the compiler saw it: from the working
    /// directory, else from the executable's directory or the one above
    /// it, where build directories usually sit), then the executable's
    /// directory.
    fn search_dirs(&self, kernel: &str, file: Option<&str>) -> Vec<PathBuf> {
        let mut dirs = self.kernel_path.clone();
        let exe = std::env::current_exe().ok();
        let declared = self.decl_files.get_or_init(|| {
            exe.as_deref()
                .map(crate::debuginfo::decl_files)
                .unwrap_or_default()
        });
        if let Some(dir) = declared.get(kernel).and_then(|f| f.parent()) {
            dirs.push(dir.to_path_buf());
        }
        let exe_dir = exe.and_then(|e| e.parent().map(|p| p.to_path_buf()));
        if let Some(dir) = file.map(|f| {
            PathBuf::from(f)
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default()
        }) {
            let dir = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            };
            let mut tries = vec![dir.clone()];
            if dir.is_relative() {
                if let Some(e) = &exe_dir {
                    tries.push(e.join(&dir));
                    if let Some(up) = e.parent() {
                        tries.push(up.join(&dir));
                    }
                }
            }
            dirs.extend(tries.into_iter().find(|d| d.is_dir()));
        }
        dirs.extend(exe_dir);
        dirs.dedup();
        dirs
    }

    /// The source of `kernel` (called at `file`), found once.
    fn source(&self, kernel: &str, file: Option<&str>) -> Result<cg::KernelSource, String> {
        let key = (kernel.to_string(), file.map(str::to_string));
        let mut known = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = known.get(&key) {
            return Ok(s.clone());
        }
        let dirs = self.search_dirs(kernel, file);
        let src = cg::find_kernel(kernel, &dirs).map_err(|e| e.to_string())?;
        known.insert(key, src.clone());
        Ok(src)
    }

    /// The kernel `entry` of `text`, built once per text.
    fn kernel(&self, text: &str, entry: &str) -> Result<Kernel, String> {
        let mut progs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if !progs.contains_key(text) {
            let p = self
                .cl
                .build(text, BUILD_OPTIONS, self.cache.as_ref())
                .map_err(|e| self.rejected(entry, text, &e.to_string()))?;
            progs.insert(text.to_string(), p);
        }
        progs[text].kernel(entry).map_err(|e| e.to_string())
    }
}

impl Engine {
    /// Why the compiler rejected `text`, in one line: its first error,
    /// and where the code and the whole log were written (beside the
    /// cache, or in the temporary directory).
    fn rejected(&self, entry: &str, text: &str, log: &str) -> String {
        let first = log
            .lines()
            .find(|l| l.contains("error:"))
            .map(|l| {
                // "error: /tmp/x.cl:16:55: what" -> "error: what"
                let what = l.split_once("error:").map_or(l, |(_, w)| w);
                let what = match what.find(".cl:") {
                    Some(i) => what[i + 4..].splitn(3, ':').nth(2).unwrap_or(what),
                    None => what,
                };
                format!("error: {}", what.trim())
            })
            .unwrap_or_else(|| log.lines().next().unwrap_or("").trim().to_string());
        let dir = self
            .cache
            .as_ref()
            .map_or_else(std::env::temp_dir, |c| c.dir().to_path_buf())
            .join("rejected");
        let file = dir.join(format!("{entry}.cl"));
        let saved = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&file, format!("{text}\n/* build log:\n{log}\n*/\n")));
        match saved {
            Ok(()) => format!(
                "the OpenCL compiler rejected the generated code ({first}; code and log in {})",
                file.display()
            ),
            Err(_) => format!("the OpenCL compiler rejected the generated code ({first})"),
        }
    }
}

/// The constants `src` uses, as the generator takes them.
pub fn used_consts(src: &str, consts: &[ConstDecl]) -> Result<Vec<cg::Const>, String> {
    let code = cg::source::code_only(src);
    consts
        .iter()
        .filter(|c| cg::desc::is_ident(&c.name) && cg::source::mentions_ident(&code, &c.name))
        .map(|c| {
            let t = ScalarType::parse(&c.type_name);
            let n = c.dim.max(1);
            let vals = |size: usize| c.bytes.chunks_exact(size).take(n);
            let value = match (t, c.bytes.len() / n) {
                (ScalarType::F64, 8) => cg::ConstValue::F64(
                    vals(8)
                        .map(|b| f64::from_ne_bytes(b.try_into().unwrap_or([0; 8])))
                        .collect(),
                ),
                (ScalarType::F32, 4) => cg::ConstValue::F32(
                    vals(4)
                        .map(|b| f32::from_ne_bytes(b.try_into().unwrap_or([0; 4])))
                        .collect(),
                ),
                (ScalarType::I32, 4) => cg::ConstValue::I32(
                    vals(4)
                        .map(|b| i32::from_ne_bytes(b.try_into().unwrap_or([0; 4])))
                        .collect(),
                ),
                _ => {
                    return Err(format!(
                        "constant {} of type {} has no device form (double, float, int)",
                        c.name, c.type_name
                    ))
                }
            };
            Ok(cg::Const {
                name: c.name.clone(),
                value,
            })
        })
        .collect()
}

/// The `f` of a compiler message "use of undeclared identifier 'f'".
fn undeclared(msg: &str) -> Option<String> {
    let rest = &msg[msg.find("undeclared identifier '")? + 23..];
    let name = &rest[..rest.find('\'')?];
    cg::desc::is_ident(name).then(|| name.to_string())
}

impl Engine {
    /// Generate the loop's code from `text` (the kernel's source) and
    /// build it. When the compiler finds a function the kernel calls but
    /// its source does not define ("use of undeclared identifier 'f'":
    /// a helper the program's main file includes before the kernel's
    /// header, as OP2-Common's jac1 does with `maxfun`), the definition of
    /// `f` is looked for like a kernel's, put before the kernel, and the
    /// code built again (at most 4 helpers). Returns the text used.
    fn generate_and_build(
        &self,
        r: &CompileRequest<'_>,
        desc: &cg::LoopDesc,
        mut text: String,
        o: Options,
    ) -> Result<(Generated, Kernel, String), String> {
        let mut added: Vec<String> = Vec::new();
        loop {
            let consts = used_consts(&text, r.consts)?;
            let g = cg::generate(desc, &text, &consts, o).map_err(|e| e.to_string())?;
            let e = match self.kernel(&g.text, &g.entry) {
                Ok(k) => return Ok((g, k, text)),
                Err(e) => e,
            };
            let helper = undeclared(&e)
                .filter(|n| {
                    added.len() < 4 && !added.contains(n) && consts.iter().all(|c| &c.name != n)
                })
                .and_then(|n| {
                    let dirs = self.search_dirs(&n, r.kernel.file.as_deref());
                    cg::find_kernel(&n, &dirs).ok().map(|h| (n, h))
                });
            let Some((name, h)) = helper else {
                return Err(e);
            };
            text = format!(
                "// op2-rs: {name}, which the kernel calls (from {})\n{}\n{text}",
                h.file.display(),
                h.text
            );
            added.push(name);
        }
    }
}

impl LoopCompiler for Engine {
    fn device_name(&self) -> String {
        format!("OpenCL: {}", self.cl.name)
    }

    fn compile(&self, r: &CompileRequest<'_>) -> Result<Box<dyn DeviceKernel>, String> {
        let src = self.source(&r.kernel.kernel, r.kernel.file.as_deref())?;
        let conflicts = self.conflicts.of(r.name);
        let soa = |d| r.copies.dat(d).is_some_and(|dd| dd.layout.soa.is_some());
        let desc = describe(r.name, &r.kernel.kernel, r.specs, r.dom, &soa, conflicts)?;
        let o = Options {
            dialect: Dialect::OpenCl,
            block_size: self.block_size,
        };
        let (g, kernel, text) = self.generate_and_build(r, &desc, src.text, o)?;
        if let Some(dir) = &self.dump_cuda {
            let cuda = Options {
                dialect: Dialect::Cuda,
                ..o
            };
            let consts = used_consts(&text, r.consts)?;
            if let Ok(c) = cg::generate(&desc, &text, &consts, cuda) {
                dump(dir, &c);
            }
        }
        let inds = inds_of(&g, &maps_in_order(r.specs), r.specs);
        Ok(Box::new(OclKernel {
            cl: self.cl.clone(),
            kernel,
            g,
            inds,
        }))
    }
}

/// Write `g` (CUDA) into `dir` and list it in `entries.txt` (best effort:
/// a dump that cannot be written changes nothing for the run).
fn dump(dir: &std::path::Path, g: &Generated) {
    use std::io::Write;
    let file = format!("{}.cu", g.entry);
    let _ = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join(&file), &g.text))
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("entries.txt"))
        })
        .and_then(|mut f| writeln!(f, "{file} {}", g.entry));
}

/// One loop's generated OpenCL kernel.
struct OclKernel {
    cl: Arc<OpenCl>,
    kernel: Kernel,
    g: Generated,
    /// Each argument's staged group (-1: none).
    inds: Vec<i32>,
}

impl DeviceKernel for OclKernel {
    fn plan_shape(&self) -> Option<PlanShape> {
        if self.g.scheme != Scheme::Staged {
            return None;
        }
        Some(PlanShape {
            inds: self.inds.clone(),
            ninds: self.g.groups.len(),
            part_size: self.g.block_size,
        })
    }

    fn launch(&mut self, l: &LaunchInput<'_>) -> Result<Vec<Option<Vec<u8>>>, String> {
        let b = Bindings {
            dom: l.dom,
            copies: l.copies,
            set: l.set,
            args: l.specs,
            set_size: l.set_size,
            plan: l.plan.as_ref().map(|(p, d)| (*p, *d)),
            globals: l.globals,
        };
        launch(&self.cl, &mut self.kernel, &self.g, &b).map_err(|e| e.to_string())
    }
}

/// Each argument's staged group (-1: none): the group of its dat through
/// its map.
pub fn inds_of(g: &Generated, maps: &[MapId], specs: &[op2_core::arg::ArgSpec]) -> Vec<i32> {
    specs
        .iter()
        .map(|s| match s.kind {
            ArgKind::Dat {
                dat, map: Some(m), ..
            } => {
                let mi = maps.iter().position(|&x| x == m);
                g.groups
                    .iter()
                    .position(|gr| gr.dat == dat.0 && Some(gr.map) == mi)
                    .map_or(-1, |i| i as i32)
            }
            _ => -1,
        })
        .collect()
}
