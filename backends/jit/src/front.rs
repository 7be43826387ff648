//! The device-independent half of a run-time loop compiler: for each loop
//! of an unchanged op_seq.h program, the kernel's source found on the
//! search path ([`op2_codegen::find`]), the loop described from core's
//! checked arguments ([`crate::describe`]), the constants the kernel uses
//! written in with their exact values, the code generated in the device's
//! dialect and handed to the device to build (helpers the compiler finds
//! missing are looked for and added).
//!
//! Options (environment, read when the library opens the device):
//! * `OP2_RS_KERNEL_PATH`: directories searched for kernels, `:`-separated,
//!   before the call site's source directory and the executable's;
//! * `OP2_RS_CONFLICTS`: `colour2` (default: two-level colouring, the
//!   block's data staged in local memory), `colour2-global` (the same
//!   colouring, no staging) or `atomics` for every loop, and/or
//!   `loop=scheme` entries, comma-separated (`res_calc=atomics`);
//!   `atomics` for every loop leaves a loop that writes or reads-and-writes
//!   through a map (atomics cannot serve it) coloured; named alone, such a
//!   loop runs on the host, saying why; an entry naming no loop that
//!   came to the device is said at op_exit ([`Front::unused_options`]);
//! * `OP2_RS_BLOCK_SIZE`: the work-group size (a power of two); unset, OP2's
//!   `OP_BLOCK_SIZE=` (`OP_block_size`, 64 unless the program's command
//!   line or the program sets it) when the loop is compiled;
//! * `OP2_RS_WIDE_OFFSETS`: `1` writes every loop's offsets in 64 bits;
//!   unset or `0`, only the loops that need it (an offset that can reach
//!   2^31 elements: [`crate::describe::offset_span`]);
//! * `OP2_RS_FMA`: `1` lets the device compiler fuse `a * b + c` into one
//!   multiply-add (OpenCL `FP_CONTRACT ON`, NVRTC `--fmad=true`, as nvcc
//!   compiles OP2's translated code); unset or `0`, no contraction: the
//!   device computes what the kernel's source says on the host;
//! * `OP2_RS_CONFIG`: per-loop options in OP2 translator-v2's `-c` format,
//!   a file or inline (JSON: loop-name patterns to `atomics`, `color2`, and our
//!   `conflicts`, `fma` and `block_size`; [`crate::config`]). A loop's
//!   options there come before `OP2_RS_CONFLICTS`' scheme for every loop,
//!   `OP2_RS_FMA` and `OP2_RS_BLOCK_SIZE`; `OP2_RS_CONFLICTS`' own
//!   `loop=scheme` entries come before the file;
//! * `OP2_RS_DEFINES`: the macros of the program's build (`-DNAME`,
//!   `-DNAME=VALUE`, `-UNAME`) that the kernels' `#if`s test: the
//!   library decides each conditional of a kernel's source as the build
//!   did ([`op2_codegen::cpp`]), and a kernel that needs a macro of unknown
//!   value runs on the host, saying which;
//! * `OP2_RS_CACHE_DIR`: the compiled-program cache (default
//!   `$XDG_CACHE_HOME/op2-rs` or `~/.cache/op2-rs`); `OP2_RS_CACHE_DIR=off`
//!   switches it off;
//! * `OP2_RS_DUMP_CUDA`: a directory where each loop's code is also written
//!   in the CUDA dialect (`<entry>.cu`, listed in `entries.txt` as
//!   `file entry`), for checking it with NVRTC where no GPU is.

use crate::config::{LoopConfig, Wanted};
use crate::describe::describe;
use crate::{BuildError, Device};
use op2_codegen::cache::{default_dir, Cache};
use op2_codegen::{self as cg, Conflicts, Dialect, Generated, Options};
use op2_core::arg::ArgKind;
use op2_core::runtime::{CompileRequest, ConstDecl};
use op2_core::types::ScalarType;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// The conflict scheme per loop.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConflictChoice {
    pub default: Option<Conflicts>,
    pub per_loop: Vec<(String, Conflicts)>,
}

pub(crate) fn scheme_named(s: &str) -> Option<Conflicts> {
    match s.trim().to_ascii_lowercase().as_str() {
        "colour2" | "color2" | "colour" | "color" | "staged" => Some(Conflicts::Colour2),
        "colour2-global" | "color2-global" | "global" => Some(Conflicts::Colour2Global),
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
                    "OP2_RS_CONFLICTS: '{item}' is not colour2, colour2-global, atomics or loop=scheme"
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

    /// The scheme of loop `name`, which writes through rows its elements
    /// share (OP_RW or OP_WRITE through a map) or not, given what the
    /// configuration file (`OP2_RS_CONFIG`) prefers for it. A loop's own
    /// `loop=scheme` entry decides; otherwise the file's choice, otherwise
    /// the default. Atomics from the file or for every loop is a
    /// preference, as in OP2's translator options: a loop that writes
    /// through shared rows, which atomics cannot serve, is coloured instead
    /// (the default's colouring when it names one, as for the file's
    /// `"atomics": false` without `color2`); asked for by the
    /// loop's own name it is not, and the generator then says why (the
    /// loop runs on the host).
    pub fn of(&self, name: &str, writes_through_maps: bool, file: Option<Wanted>) -> Conflicts {
        let own = self.per_loop.iter().rev().find(|(n, _)| n == name);
        let colour = match self.default {
            Some(c @ Conflicts::Colour2Global) => c,
            _ => Conflicts::Colour2,
        };
        let preferred = match file {
            Some(Wanted::Scheme(c)) => Some(c),
            Some(Wanted::Colouring) => Some(colour),
            None => self.default,
        };
        match (own, preferred) {
            (Some(&(_, c)), _) => c,
            (None, Some(Conflicts::Atomics)) if writes_through_maps => colour,
            (None, Some(c)) => c,
            (None, None) => Conflicts::Colour2,
        }
    }
}

/// The device-independent options and state of a loop compiler.
pub struct Front {
    cache: Option<Cache>,
    conflicts: ConflictChoice,
    /// `OP2_RS_CONFIG`'s per-loop options (none when unset).
    loop_config: LoopConfig,
    /// `OP2_RS_BLOCK_SIZE` (unset: OP2's `OP_block_size`).
    block_size: Option<usize>,
    /// `OP2_RS_WIDE_OFFSETS=1`: 64-bit offsets in every loop.
    wide_offsets: bool,
    /// `OP2_RS_FMA=1`: the device compiler may fuse multiply-adds.
    fma: bool,
    /// `OP2_RS_DEVICE_ASYNC` unset or 0: a loop without a reduction waits
    /// for its kernels before it returns (as OP2's generated code
    /// synchronises after each loop, so the timing table's times are the
    /// loops' own).
    wait_each_loop: bool,
    /// `OP2_RS_DEVICE_TIMES` (default: on when loops do not wait): time
    /// each loop's kernels with marks in the device's queue.
    device_times: bool,
    kernel_path: Vec<PathBuf>,
    /// `OP2_RS_DEFINES`: the program's build's macros, for the kernels'
    /// conditionals ([`op2_codegen::cpp`]).
    defines: cg::cpp::Defines,
    /// `OP2_RS_DUMP_CUDA`.
    dump_cuda: Option<PathBuf>,
    /// What the executable's debug information says: where functions are
    /// declared, the build's macros (read the first time a kernel is
    /// looked for).
    debug_info: std::sync::OnceLock<crate::debuginfo::DebugInfo>,
    /// The program's variables by address (constants declared without a
    /// name), read the first time one is needed.
    var_names: std::sync::OnceLock<crate::symbols::Names>,
    /// Kernel sources found, by kernel and call site (a loop prepared again,
    /// after objects were freed, reads no file).
    sources: Mutex<HashMap<(String, Option<String>), cg::KernelSource>>,
}

impl Front {
    /// The environment's options; a malformed option is an error naming
    /// it.
    pub fn from_env() -> Result<Front, String> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        let conflicts = ConflictChoice::parse(&var("OP2_RS_CONFLICTS").unwrap_or_default())?;
        let block_size = match var("OP2_RS_BLOCK_SIZE") {
            None => None,
            Some(v) => Some(
                v.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&b| crate::config::block_size_ok(b))
                    .ok_or_else(|| {
                        format!(
                            "OP2_RS_BLOCK_SIZE={v}: not {}",
                            crate::config::BLOCK_SIZE_RULE
                        )
                    })?,
            ),
        };
        let wait_each_loop = match var("OP2_RS_DEVICE_ASYNC").as_deref().map(str::trim) {
            None | Some("0") => true,
            Some("1") => false,
            Some(v) => return Err(format!("OP2_RS_DEVICE_ASYNC={v}: not 0 or 1")),
        };
        let device_times = match var("OP2_RS_DEVICE_TIMES").as_deref().map(str::trim) {
            None => !wait_each_loop,
            Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(format!("OP2_RS_DEVICE_TIMES={v}: not 0 or 1")),
        };
        let wide_offsets = match var("OP2_RS_WIDE_OFFSETS").as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(format!("OP2_RS_WIDE_OFFSETS={v}: not 0 or 1")),
        };
        let fma = match var("OP2_RS_FMA").as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(format!("OP2_RS_FMA={v}: not 0 or 1")),
        };
        let loop_config = match var("OP2_RS_CONFIG") {
            None => LoopConfig::default(),
            Some(v) => LoopConfig::from_var(&v)?,
        };
        let defines = cg::cpp::Defines::parse(&var("OP2_RS_DEFINES").unwrap_or_default())
            .map_err(|e| format!("OP2_RS_DEFINES: {e}"))?;
        let cache = match var("OP2_RS_CACHE_DIR").as_deref() {
            Some("off") => None,
            _ => default_dir().map(Cache::new),
        };
        Ok(Front {
            cache,
            conflicts,
            loop_config,
            block_size,
            wide_offsets,
            fma,
            wait_each_loop,
            device_times,
            kernel_path: cg::find::split_path(&var("OP2_RS_KERNEL_PATH").unwrap_or_default()),
            defines,
            dump_cuda: var("OP2_RS_DUMP_CUDA").map(PathBuf::from),
            debug_info: std::sync::OnceLock::new(),
            var_names: std::sync::OnceLock::new(),
            sources: Mutex::new(HashMap::new()),
        })
    }

    /// What the per-loop options name that no loop of the run matched
    /// (`loops`: every loop that came to the device's compiler), one line
    /// each: an `OP2_RS_CONFLICTS` `loop=scheme` entry whose loop never
    /// ran, an `OP2_RS_CONFIG` pattern that matched no loop, most often a
    /// misspelt name, which would otherwise change nothing in silence.
    pub fn unused_options(&self, loops: &[&str]) -> Vec<String> {
        let mut names: Vec<&str> = loops.to_vec();
        names.sort_unstable();
        let known = || {
            let mut l = names
                .iter()
                .take(12)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > 12 {
                l += &format!(" and {} more", names.len() - 12);
            }
            if l.is_empty() {
                l = "none".into();
            }
            l
        };
        let mut out = Vec::new();
        let mut missing: Vec<&str> = Vec::new();
        for (n, _) in &self.conflicts.per_loop {
            if !loops.contains(&n.as_str()) && !missing.contains(&n.as_str()) {
                missing.push(n);
            }
        }
        for n in missing {
            out.push(format!(
                "OP2_RS_CONFLICTS names loop '{n}', but no loop of that name ran (loops run: {}); the entry changed nothing",
                known()
            ));
        }
        for pat in self.loop_config.unmatched(loops) {
            out.push(format!(
                "OP2_RS_CONFIG's pattern '{pat}' matched no loop that ran (loops run: {}); its options changed nothing",
                known()
            ));
        }
        out
    }

    /// Does a loop without a reduction wait for its kernels
    /// (`OP2_RS_DEVICE_ASYNC`)?
    pub fn wait_each_loop(&self) -> bool {
        self.wait_each_loop
    }

    /// Are loops' kernels timed with marks in the device's queue
    /// (`OP2_RS_DEVICE_TIMES`; by default when they do not wait)?
    pub fn device_times(&self) -> bool {
        self.device_times
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
        let declared = &self.debug_info().decl_files;
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

    fn debug_info(&self) -> &crate::debuginfo::DebugInfo {
        self.debug_info.get_or_init(|| {
            std::env::current_exe()
                .ok()
                .map(|e| crate::debuginfo::read_exe(&e))
                .unwrap_or_default()
        })
    }

    /// The build's macros where the debug information records them
    /// (`-g3`).
    fn build(&self) -> Option<&dyn cg::cpp::BuildMacros> {
        let m = &self.debug_info().macros;
        (!m.is_empty()).then_some(m as &dyn cg::cpp::BuildMacros)
    }

    /// What reading loop `r`'s kernel source assumed that the program's
    /// user must know (defaults of its own taken as not set by the build,
    /// [`cg::cpp::Assumed`]), in one line.
    pub fn source_note(&self, r: &CompileRequest<'_>) -> Option<String> {
        let src = self
            .source(&r.kernel.kernel, r.kernel.file.as_deref())
            .ok()?;
        let all: Vec<String> = src.assumed.iter().map(|a| a.message()).collect();
        (!all.is_empty()).then(|| all.join("; "))
    }

    /// The source of `kernel` (called at `file`), found once.
    fn source(&self, kernel: &str, file: Option<&str>) -> Result<cg::KernelSource, String> {
        let key = (kernel.to_string(), file.map(str::to_string));
        let mut known = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = known.get(&key) {
            return Ok(s.clone());
        }
        let dirs = self.search_dirs(kernel, file);
        let at = call_site(file, &dirs);
        let src = cg::find_kernel(kernel, &dirs, &self.defines, at.as_deref(), self.build())
            .map_err(|e| e.to_string())?;
        known.insert(key, src.clone());
        Ok(src)
    }
}

impl Front {
    /// The compiled-program cache (`None`: switched off).
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// Why `compiler` rejected `text`, in one line: its first error,
    /// and where the code and the whole log were written (beside the
    /// cache, or in the temporary directory) as `<entry>.<ext>`.
    fn rejected(&self, compiler: &str, ext: &str, entry: &str, text: &str, log: &str) -> String {
        let first = log
            .lines()
            .find(|l| l.contains("error:"))
            .map(|l| {
                // "error: /tmp/x.cl:16:55: what" -> "error: what";
                // NVRTC: "op2.cu(16): error: what" -> "error: what"
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
        let file = dir.join(format!("{entry}.{ext}"));
        let saved = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&file, format!("{text}\n/* build log:\n{log}\n*/\n")));
        match saved {
            Ok(()) => format!(
                "{compiler} rejected the generated code ({first}; code and log in {})",
                file.display()
            ),
            Err(_) => format!("{compiler} rejected the generated code ({first})"),
        }
    }
}

impl Front {
    /// The constants with a name: those declared without one (C++'s
    /// `op_decl_const`) named by the program's symbol for their address;
    /// those with neither are left out.
    fn named_consts(&self, consts: &[ConstDecl]) -> Vec<ConstDecl> {
        let mut out = Vec::with_capacity(consts.len());
        for c in consts {
            if !c.name.is_empty() {
                out.push(c.clone());
                continue;
            }
            let names = self.var_names.get_or_init(|| {
                std::env::current_exe()
                    .map(|e| crate::symbols::program_names(&e))
                    .unwrap_or_default()
            });
            if let Some(n) = names.get(&c.addr) {
                out.push(ConstDecl {
                    name: n.clone(),
                    ..c.clone()
                });
            }
        }
        out
    }
}

/// The first `n` values of `W` bytes each in `bytes` (the host's order).
fn scalars<T, const W: usize>(bytes: &[u8], n: usize, from: fn([u8; W]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(W)
        .take(n)
        .map(|b| from(b.try_into().unwrap_or([0; W])))
        .collect()
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
            let b = &c.bytes;
            let value = match (t, c.bytes.len() / n) {
                (ScalarType::F64, 8) => cg::ConstValue::F64(scalars(b, n, f64::from_ne_bytes)),
                (ScalarType::F32, 4) => cg::ConstValue::F32(scalars(b, n, f32::from_ne_bytes)),
                (ScalarType::I32, 4) => cg::ConstValue::I32(scalars(b, n, i32::from_ne_bytes)),
                (ScalarType::U32, 4) => cg::ConstValue::U32(scalars(b, n, u32::from_ne_bytes)),
                (ScalarType::I64, 8) => cg::ConstValue::I64(scalars(b, n, i64::from_ne_bytes)),
                (ScalarType::U64, 8) => cg::ConstValue::U64(scalars(b, n, u64::from_ne_bytes)),
                _ => {
                    return Err(format!(
                    "constant {} of type {} has no device form (double, float, int, uint, ll, ull)",
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

/// The loop's source file (op_seq.h's `__FILE__`, maybe relative to
/// where the program was built): as it is when it names a file, else in
/// the first of `dirs` (where the call site's directory was found) that
/// holds a file of its name.
fn call_site(file: Option<&str>, dirs: &[PathBuf]) -> Option<PathBuf> {
    let p = PathBuf::from(file?);
    if p.is_file() {
        return Some(p);
    }
    let name = p.file_name()?;
    dirs.iter().map(|d| d.join(name)).find(|c| c.is_file())
}

/// Whether a function defined in `file` can be one the kernel's
/// translation unit calls: a header (the program includes it), or the
/// call site's own source file. A function of the same name in another
/// source file beside it (another program's) cannot.
fn visible_to(file: &std::path::Path, call_site: Option<&str>) -> bool {
    let header = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "h" | "hh" | "hpp" | "hxx" | "inc" | "inl" | "cuh"));
    header
        || call_site.is_some_and(|c| {
            let f = std::fs::canonicalize(file).ok();
            f.is_some() && f == std::fs::canonicalize(c).ok()
        })
}

/// The `f` of a compiler message "use of undeclared identifier 'f'" or
/// "unknown type name 'f'" (clang, OpenCL compilers built on it),
/// `identifier "f" is undefined` (NVRTC), "'f' was not declared in this
/// scope" or "'f' does not name a type" (g++: the CUDA emulator's NVRTC).
fn undeclared(msg: &str) -> Option<String> {
    let quoted = ["undeclared identifier '", "unknown type name '"]
        .iter()
        .find_map(|p| msg.find(p).map(|i| &msg[i + p.len()..]));
    let gxx = ["' was not declared in this scope", "' does not name a type"]
        .iter()
        .find_map(|p| msg.find(p))
        .and_then(|i| Some(&msg[msg[..i].rfind('\'')? + 1..i]));
    let name = if let Some(rest) = quoted {
        &rest[..rest.find('\'')?]
    } else if let Some(n) = gxx {
        n
    } else {
        let i = msg.find("\" is undefined")?;
        let start = msg[..i].rfind("identifier \"")? + 12;
        &msg[start..i]
    };
    cg::desc::is_ident(name).then(|| name.to_string())
}

impl Front {
    /// Generate the loop's code from `text` (the kernel's source) and
    /// build it. When the compiler finds a function the kernel calls but
    /// its source does not define ("use of undeclared identifier 'f'":
    /// a helper the program's main file includes before the kernel's
    /// header, as OP2-Common's jac1 does with `maxfun`), the definition of
    /// `f` is looked for like a kernel's (or, for a type the compiler does
    /// not know, its `typedef`/`struct`/`using` at file scope), put before
    /// the kernel, and the code built again (at most 4 helpers). Returns
    /// the text used.
    fn generate_and_build<D: Device>(
        &self,
        dev: &D,
        r: &CompileRequest<'_>,
        desc: &cg::LoopDesc,
        mut text: String,
        (o, consts_all): (Options, &[ConstDecl]),
    ) -> Result<(Generated, D::Kernel, String), String> {
        let mut added: Vec<String> = Vec::new();
        loop {
            let consts = used_consts(&text, consts_all)?;
            let g = cg::generate(desc, &text, &consts, o).map_err(|e| e.to_string())?;
            let log = match dev.build(&g, self.cache.as_ref()) {
                Ok(k) => return Ok((g, k, text)),
                Err(BuildError::Failed(why)) => return Err(why),
                Err(BuildError::Rejected(log)) => log,
            };
            let e = self.rejected(D::COMPILER, D::EXTENSION, &g.entry, &g.text, &log);
            let helper = undeclared(&e)
                .filter(|n| {
                    added.len() < 4 && !added.contains(n) && consts.iter().all(|c| &c.name != n)
                })
                .and_then(|n| {
                    let dirs = self.search_dirs(&n, r.kernel.file.as_deref());
                    let at = call_site(r.kernel.file.as_deref(), &dirs);
                    // a function: only what it needs of its file (not the
                    // rest of a header of the main file's, templates and all)
                    let h = match cg::find_kernel(
                        &n,
                        &dirs,
                        &self.defines,
                        at.as_deref(),
                        self.build(),
                    ) {
                        Ok(mut h) => {
                            h.text = cg::source::kernel_part(&h.text, &n).unwrap_or(h.text);
                            h
                        }
                        Err(_) => {
                            cg::find_type(&n, &dirs, &self.defines, at.as_deref(), self.build())
                                .ok()?
                        }
                    };
                    visible_to(&h.file, r.kernel.file.as_deref()).then_some((n, h))
                });
            let Some((name, h)) = helper else {
                return Err(e);
            };
            // the file's name only: the text (the cache's key) is the same
            // wherever the program's sources are
            let from = h.file.file_name().unwrap_or_default().to_string_lossy();
            text = format!(
                "// op2-rs: {name}, which the kernel uses (from {from})\n{}\n{text}",
                h.text
            );
            added.push(name);
        }
    }
}

impl Front {
    /// Loop `r` generated for `dev` and built: the code and its kernel,
    /// or why not (one line).
    pub fn compile<D: Device>(
        &self,
        r: &CompileRequest<'_>,
        dev: &D,
    ) -> Result<(Generated, D::Kernel), String> {
        let src = self.source(&r.kernel.kernel, r.kernel.file.as_deref())?;
        let soa = |d| r.copies.dat(d).is_some_and(|dd| dd.layout.soa.is_some());
        // described with the default scheme, then given the loop's own
        let mut desc = describe(
            r.name,
            &r.kernel.kernel,
            r.specs,
            r.dom,
            &soa,
            Conflicts::Colour2,
        )?;
        let file = self.loop_config.of(r.name);
        desc.conflicts =
            self.conflicts
                .of(r.name, desc.needs_colouring().is_some(), file.conflicts);
        let block_size = match file.block_size.or(self.block_size) {
            Some(b) => b,
            None => usize::try_from(r.block_size)
                .ok()
                .filter(|&b| crate::config::block_size_ok(b))
                .ok_or_else(|| {
                    format!(
                        "OP_BLOCK_SIZE={} (OP_block_size): a device loop's work-group size is {}",
                        r.block_size,
                        crate::config::BLOCK_SIZE_RULE
                    )
                })?,
        };
        let span = crate::describe::offset_span(r.specs, r.dom, r.set);
        let o = Options {
            dialect: D::DIALECT,
            block_size,
            wide_offsets: self.wide_offsets || cg::offsets_need_64_bits(span),
            fma: file.fma.unwrap_or(self.fma),
        };
        let named = self.named_consts(r.consts);
        let (g, kernel, text) = self.generate_and_build(dev, r, &desc, src.text, (o, &named))?;
        if let Some(dir) = self
            .dump_cuda
            .as_ref()
            .filter(|_| D::DIALECT != Dialect::Cuda)
        {
            let cuda = Options {
                dialect: Dialect::Cuda,
                ..o
            };
            let consts = used_consts(&text, &named)?;
            if let Ok(c) = cg::generate(&desc, &text, &consts, cuda) {
                dump(dir, &c);
            }
        }
        if let Some(dir) = self
            .dump_cuda
            .as_ref()
            .filter(|_| D::DIALECT == Dialect::Cuda)
        {
            dump(dir, &g);
        }
        Ok((g, kernel))
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

/// Each argument's staged group (-1: none): the group of its dat (one per
/// dat, whatever maps reach it, as the generator groups them).
pub fn inds_of(g: &Generated, specs: &[op2_core::arg::ArgSpec]) -> Vec<i32> {
    specs
        .iter()
        .map(|s| match s.kind {
            ArgKind::Dat {
                dat, map: Some(_), ..
            } => g
                .groups
                .iter()
                .position(|gr| gr.dat == dat.0)
                .map_or(-1, |i| i as i32),
            _ => -1,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn helpers_come_from_headers_or_the_call_site_only() {
        let dir = std::env::temp_dir().join(format!("op2-jit-visible-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (main, other) = (dir.join("main.c"), dir.join("other.c"));
        std::fs::write(&main, "").unwrap();
        std::fs::write(&other, "").unwrap();
        let m = main.to_str().unwrap();
        assert!(visible_to(Path::new("/nowhere/kernels.h"), None));
        assert!(visible_to(&main, Some(m)));
        assert!(!visible_to(&other, Some(m)));
        assert!(!visible_to(&other, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn conflict_choices_default_and_per_loop() {
        let c = ConflictChoice::parse("atomics, dirichlet=colour2,res_calc=atomics").unwrap();
        assert_eq!(c.of("spMV", false, None), Conflicts::Atomics);
        assert_eq!(c.of("dirichlet", true, None), Conflicts::Colour2);
        // named loops keep their own scheme; an unnamed one writing
        // through a map is coloured
        assert_eq!(c.of("res_calc", true, None), Conflicts::Atomics);
        assert_eq!(c.of("dirichlet", false, None), Conflicts::Colour2);
        assert_eq!(c.of("spMV", true, None), Conflicts::Colour2);
        let none = ConflictChoice::parse("").unwrap();
        assert_eq!(none.of("spMV", false, None), Conflicts::Colour2);
        assert_eq!(none.of("spMV", true, None), Conflicts::Colour2);
        // the last entry for a loop wins
        let c = ConflictChoice::parse("pin=atomics,pin=colour2").unwrap();
        assert_eq!(c.of("pin", true, None), Conflicts::Colour2);
        assert_eq!(c.of("other", false, None), Conflicts::Colour2);
        // atomics for every loop: a loop writing through a map is coloured,
        // unless named
        let c = ConflictChoice::parse("atomics,pin=atomics").unwrap();
        assert_eq!(c.of("dirichlet", true, None), Conflicts::Colour2);
        assert_eq!(c.of("spMV", false, None), Conflicts::Atomics);
        assert_eq!(c.of("pin", true, None), Conflicts::Atomics);
        let g = ConflictChoice::parse("colour2-global").unwrap();
        assert_eq!(g.of("dirichlet", true, None), Conflicts::Colour2Global);
        // the configuration file's choice: over the default, under the
        // loop's own entry; its atomics a preference
        let c = ConflictChoice::parse("atomics,pin=colour2").unwrap();
        let file = Some(Wanted::Scheme(Conflicts::Colour2Global));
        assert_eq!(c.of("spMV", false, file), Conflicts::Colour2Global);
        assert_eq!(c.of("pin", false, file), Conflicts::Colour2);
        let atomics = Some(Wanted::Scheme(Conflicts::Atomics));
        assert_eq!(none.of("res_calc", false, atomics), Conflicts::Atomics);
        assert_eq!(none.of("count", true, atomics), Conflicts::Colour2);
        assert_eq!(g.of("count", true, atomics), Conflicts::Colour2Global);
        assert_eq!(g.of("spMV", false, atomics), Conflicts::Atomics);
        let c = ConflictChoice::parse("count=atomics").unwrap();
        assert_eq!(
            c.of("count", true, Some(Wanted::Scheme(Conflicts::Colour2))),
            Conflicts::Atomics
        );
        // "atomics": false alone: the default's colouring
        let colouring = Some(Wanted::Colouring);
        assert_eq!(g.of("res_calc", true, colouring), Conflicts::Colour2Global);
        assert_eq!(none.of("res_calc", true, colouring), Conflicts::Colour2);
        let a = ConflictChoice::parse("atomics").unwrap();
        assert_eq!(a.of("res_calc", false, colouring), Conflicts::Colour2);
    }

    #[test]
    fn undeclared_names_in_clang_and_nvrtc_wording() {
        assert_eq!(
            undeclared("error: use of undeclared identifier 'maxfun'").as_deref(),
            Some("maxfun")
        );
        assert_eq!(
            undeclared("error: identifier \"maxfun\" is undefined").as_deref(),
            Some("maxfun")
        );
        assert_eq!(undeclared("error: expected ';'"), None);
        assert_eq!(
            undeclared("error: unknown type name 'real'").as_deref(),
            Some("real")
        );
        assert_eq!(
            undeclared("error: 'real' does not name a type").as_deref(),
            Some("real")
        );
        assert_eq!(
            undeclared("op2.cu:3:9: error: 'dot2' was not declared in this scope").as_deref(),
            Some("dot2")
        );
    }
}
