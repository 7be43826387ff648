//! The kernel stub around the application's kernel, in OpenCL C or CUDA
//! C++. Two schemes:
//!
//! * **staged** (`Conflicts::Colour2` and at least one argument through a
//!   map): one work-group per block of the execution plan, launched colour
//!   by colour of the blocks (`block_offset` picks the colour's first entry
//!   in `blkmap`). The block's indirect data is copied into local (shared)
//!   memory, one staged group per distinct (dat, map) pair; each element
//!   calls the kernel; values written through maps go into local memory
//!   thread colour by thread colour (`thrcol`, `nthrcol`), then back to the
//!   dat (increments added, others stored). The plan is core's, built with
//!   the groups in [`Generated::groups`] order and every argument staged.
//! * **coloured** (`Conflicts::Colour2Global` and at least one argument
//!   through a map): the staged scheme's blocks, colours and launches
//!   without the staging: each element reads through the maps where the
//!   data lives, and what it writes through maps goes straight to the dat
//!   thread colour by thread colour (a barrier with a global fence between
//!   colours). Deterministic, as the staged scheme: every value's writes
//!   come in an order fixed by the plan.
//! * **flat** (`Conflicts::Atomics`, or no argument through a map): one
//!   work-item per element, data read through the maps where it lives,
//!   increments added with atomics. No plan.
//!
//! The kernel gets **private copies** of its arguments (and, for a vector
//! map argument, an array of pointers to private copies typed as its
//! parameter is): PoCL's CPU device compiles OpenCL C 1.2, where a pointer
//! parameter without an address space points to private memory, so the
//! kernel's source compiles unchanged only when it is handed private
//! pointers; SoA dats need the copy anyway (the kernel indexes AoS), and
//! OP2's own CUDA code does the same for increments. Both dialects use the
//! same scheme, so one description gives one behaviour.
//!
//! Global reductions: each work-item accumulates over its elements, the
//! work-group combines in a fixed tree (`block_size` a power of two), and
//! work-group `w` (flat) or plan block `b` (staged) writes slot `w`/`b` of
//! the reduction output; the host combines the slots in index order. A
//! flat loop that reduces is launched with at most
//! [`FLAT_REDUCTION_ITEMS`] work-items: work-group `w` runs the `w`-th
//! contiguous chunk of the elements, its work-items a work-group apart
//! (each in element order), so that a large set has a few thousand slots,
//! not one per work-group of elements, and the slots stay in element
//! order; with an `op_arg_info` each work-item records the element of its
//! best value and ties go to the earlier element. No result depends on the
//! device's scheduling. Elements from `owned` on (under MPI: another
//! process's, run for their increments through maps) leave the
//! accumulators as they found them. An `OP_WORK` global is a private array
//! per element, started from the global's value (as OP2's
//! changelog describes its CUDA backends: per-thread scratch initialised
//! per element); nothing of it goes back.

use crate::consts;
use crate::desc::{Access, Arg, Conflicts, Const, DatArg, Dialect, GenError, LoopDesc, Ty};
use crate::source::{device_source, kernel_params, opencl_storage, pointee, Param};
use std::fmt;

/// How a generated loop is launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Staged,
    Coloured,
    Flat,
}

impl Scheme {
    /// Launched block colour by block colour over the plan (whose shape
    /// [`Generated::groups`] gives).
    pub fn uses_plan(self) -> bool {
        matches!(self, Scheme::Staged | Scheme::Coloured)
    }
}

/// One kernel parameter the launch binds, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchParam {
    /// Staged: the dat of group `g` (device copy).
    GroupDat(usize),
    /// The SoA stride of group `g`'s dat (only for SoA dats).
    GroupStride(usize),
    /// Staged: the plan's concatenated `ind_map`, then group `g`'s start in it.
    IndMap,
    IndMapStart(usize),
    /// Staged: the plan's `loc_map`, then the start of plan argument `j`'s
    /// list (vector arguments count once per map entry).
    LocMap,
    LocMapStart(usize),
    /// Staged: `ind_sizes`, `ind_offs` (`[block * ngroups + group]`).
    IndSizes,
    IndOffs,
    /// A direct argument's dat (device copy), and its SoA stride.
    Dat(usize),
    DatStride(usize),
    /// Flat: the dat reached through maps by argument `a` (first argument
    /// on that dat), and its SoA stride.
    IndDat(usize),
    IndDatStride(usize),
    /// Flat: map `m`'s device copy (transposed: entry `j` of element `e`
    /// at `j * map_stride + e`).
    Map(usize),
    MapStride,
    /// Argument `a`'s global values (read, or the start of a min/max), in
    /// device memory.
    GblIn(usize),
    /// Argument `a`'s global values (at most [`GBL_BY_VALUE_BYTES`]) passed
    /// by value: a struct `{ T v[dim]; }`, the values' bytes in order.
    GblValue(usize),
    /// Argument `a`'s reduction slots (`dim` values per work-group/block).
    RedOut(usize),
    /// Argument `a`'s `op_opt_arg_dat` flag (int, 0 = absent).
    Opt(usize),
    /// Staged: the plan's arrays and the colour's first block.
    Blkmap,
    Offset,
    Nelems,
    Nthrcol,
    Thrcol,
    /// The first block (staged, coloured: of the plan's colour launched);
    /// flat, in a loop with dats through maps: the first work-group of
    /// the launch, which then runs elements from `block_offset *
    /// block_size` (under MPI the core is launched before the halo wait,
    /// the rest after it).
    BlockOffset,
    /// The number of elements (flat: run `[0, set_size)`; the staged code
    /// takes it too but reads its extent from the plan).
    SetSize,
    /// Loops with reductions that write through a map: elements at and
    /// past `owned` (another process's, run for their increments) leave
    /// the reductions as they were.
    Owned,
    /// OpenCL staged: the `__local` block (size: [`Generated::local_bytes`]).
    Local,
}

impl LaunchParam {
    /// `Name` or `Name:index` (e.g. `GroupDat:0`, `SetSize`): the form
    /// launchers outside Rust read (the compile check's C launcher).
    pub fn token(&self) -> String {
        let d = format!("{self:?}");
        match d.split_once('(') {
            Some((n, rest)) => format!("{n}:{}", rest.trim_end_matches(')')),
            None => d,
        }
    }
}

/// A staged group: a dat reached through maps (one group per dat, whatever
/// maps reach it: the plan stages each of its rows once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub dat: usize,
    /// The first map that reaches it.
    pub map: usize,
    pub dim: usize,
    pub ty: Ty,
    pub soa: bool,
    pub access: Access,
}

/// The generated code and how to launch it.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub text: String,
    /// The `__kernel` / `__global__` function's name.
    pub entry: String,
    pub scheme: Scheme,
    pub params: Vec<LaunchParam>,
    pub groups: Vec<Group>,
    /// Work-group size the code was written for.
    pub block_size: usize,
    /// Offsets in 64 bits ([`Options::wide_offsets`]): the plan's offset
    /// parameters are `op2_i64`.
    pub wide_offsets: bool,
    /// Written for a compiler that may fuse multiply-adds ([`Options::fma`]).
    pub fma: bool,
    /// Flat scheme: each work-group runs a contiguous chunk of the set,
    /// its work-items a work-group apart, so the launch may give fewer
    /// work-groups than the set needs at one element each
    /// ([`Generated::flat_groups`]).
    pub strided: bool,
    /// CUDA: the constants' values, copied into the module's `__constant__`
    /// variables by name after it is loaded (empty for OpenCL, whose
    /// constants are literals in the text).
    pub const_values: Vec<(String, Vec<u8>)>,
}

/// A global's values (read, scratch, or the start of a min/max or of an
/// info) of at most this many bytes are a kernel parameter by value, not a
/// device buffer the launch uploads into: on a GPU an upload from pageable
/// memory waits for the loops queued before it (aero's `alpha` and `beta`,
/// read by `updateUR` and `updateP` at every step; OP2-Common's airfoil's
/// `maxerr` and `errloc`, a maximum and its info, in `update`).
/// Small enough for any device's parameter space (OpenCL guarantees 1 KiB,
/// CUDA 4 KiB, for all of a kernel's parameters together).
pub const GBL_BY_VALUE_BYTES: usize = 64;

/// Are a global's `dim` values of type `ty` passed by value?
fn gbl_by_value(dim: usize, ty: Ty) -> bool {
    dim > 0 && dim * ty.bytes() <= GBL_BY_VALUE_BYTES
}

/// The most work-items a flat loop with a reduction is launched with
/// (2,048 work-groups of 64). One work-group per 64 elements gave airfoil's
/// `update` on 720,000 cells 11,250 reduction slots, downloaded and
/// combined on the host at every call: the largest part of the host's time
/// per device loop (BENCHMARKS.md, "Host time per device loop call"). OP2's
/// translated CUDA code launches 200 blocks for such loops; this many
/// work-items should keep enough loads in flight on a GPU (not measured:
/// no GPU yet), and a 720,000-cell loop has 2,048 slots. A function of the set size and the work-group size
/// alone, never of the device, so a loop's result is the same on every
/// device and in every run.
pub const FLAT_REDUCTION_ITEMS: usize = 1 << 17;

/// Flat loops that run strided: those with a reduction (a global `OP_INC`,
/// `OP_MIN` or `OP_MAX`). Work-group `w` runs a contiguous chunk of the
/// elements, chunks in element order, so the slots are in element order
/// too; an `op_arg_info`'s tie rule (the first element with the best value
/// wins) then holds when each work-group's tree breaks ties by element
/// index ([`Gen::track_first`]) and the host keeps the first slot with the
/// best value.
fn flat_strided(desc: &LoopDesc) -> bool {
    desc.args.iter().any(|a| {
        matches!(
            a,
            Arg::Global {
                access: Access::Inc | Access::Min | Access::Max,
                ..
            }
        )
    })
}

/// Whether an element reads and writes a dat through a map (OP_RW on an
/// indirect argument): then an element that shares a row with one of an
/// earlier thread colour must read the row after that colour wrote it.
fn reads_and_writes_through_maps(desc: &LoopDesc) -> bool {
    desc.args
        .iter()
        .any(|a| matches!(a, Arg::Indirect { dat, .. } if dat.access == Access::Rw))
}

/// Whether a flat launch can be split at a work-group boundary (a first
/// work-group parameter, [`LaunchParam::BlockOffset`]): a loop that reads
/// or writes dats through maps (under MPI the elements below the set's
/// core run while the halo exchanges travel, as OP2's translated CUDA
/// does), unless its reductions stride over all elements (a split would
/// change the chunks each work-group sums).
fn flat_splits(desc: &LoopDesc) -> bool {
    !flat_strided(desc) && desc.args.iter().any(|a| matches!(a, Arg::Indirect { .. }))
}

impl Generated {
    /// The work-groups a flat launch over `set_size` elements gets: one per
    /// `block_size` elements, at most [`FLAT_REDUCTION_ITEMS`] work-items
    /// in all when the code is strided (none for an empty set).
    pub fn flat_groups(&self, set_size: usize) -> usize {
        let one_each = set_size.div_ceil(self.block_size.max(1));
        if self.strided {
            one_each.min((FLAT_REDUCTION_ITEMS / self.block_size.max(1)).max(1))
        } else {
            one_each
        }
    }

    /// Local (shared) memory a staged block with `sizes[g]` staged
    /// elements per group needs (each group 8-byte aligned).
    pub fn local_bytes(&self, sizes: &[usize]) -> usize {
        self.groups
            .iter()
            .zip(sizes)
            .map(|(g, n)| round8(n * g.dim * g.ty.bytes()))
            .sum()
    }
}

fn round8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// Options of one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub dialect: Dialect,
    /// Work-group size (the plan's block size): a power of two, 1..=1024.
    pub block_size: usize,
    /// Offsets into dats, maps and the plan's arrays computed in 64 bits
    /// (type `op2_i64`): wanted when one of them can pass 2^31 - 1
    /// (a dat of dim 16 on 135M elements, a map of dim 8 from 269M), where
    /// `int` arithmetic would wrap and read or write the wrong element.
    /// Off, the text is what it always was (its cache entries stay valid);
    /// the launcher decides from the sizes ([`offsets_need_64_bits`]).
    pub wide_offsets: bool,
    /// The device compiler may contract `a * b + c` into one fused
    /// multiply-add (OpenCL: `FP_CONTRACT ON`; CUDA: the launcher passes
    /// NVRTC `--fmad=true`, nvcc's default, with which OP2's translated
    /// code is compiled). Off, no contraction: the device computes what
    /// the kernel's source says on the host (x86-64's baseline has no FMA),
    /// so its answers follow the host's.
    pub fma: bool,
}

/// Whether a loop whose largest offset expression spans `elements`
/// elements (a dat's rows times its dim, a map's stride times its dim, the
/// plan's arrays) needs [`Options::wide_offsets`]: the offsets are
/// `0..elements`, and `int` holds them up to 2^31 - 1 (2^31 elements).
pub fn offsets_need_64_bits(elements: usize) -> bool {
    elements > i32::MAX as usize + 1
}

struct Spaces {
    g: &'static str,
    l: &'static str,
    barrier: &'static str,
    /// A barrier that also orders global memory within the work-group.
    global_barrier: &'static str,
    /// The qualifier of a pointer no other parameter aliases.
    restrict: &'static str,
}

fn spaces(d: Dialect) -> Spaces {
    match d {
        Dialect::OpenCl => Spaces {
            g: "__global ",
            l: "__local ",
            barrier: "barrier(CLK_LOCAL_MEM_FENCE);",
            global_barrier: "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
            restrict: "restrict ",
        },
        Dialect::Cuda => Spaces {
            g: "",
            l: "",
            barrier: "__syncthreads();",
            global_barrier: "__syncthreads();",
            restrict: "__restrict__ ",
        },
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The maps `op_arg_idx` arguments read, in order of first use.
fn idx_maps(desc: &LoopDesc) -> Vec<usize> {
    let mut v = Vec::new();
    for a in &desc.args {
        if let Arg::IdxMap { map, .. } = a {
            if !v.contains(map) {
                v.push(*map);
            }
        }
    }
    v
}

/// Address of component `k` of element `e` in a dat (AoS or SoA).
fn addr(dim: usize, soa: bool, stride: &str, e: &str, k: &str, wide: bool) -> String {
    if soa {
        format!("{} * {stride} + ({e})", widened(k, wide))
    } else {
        format!("{} * {dim} + ({e_k})", widened(e, wide), e_k = k)
    }
}

/// `(x)`, converted to `op2_i64` first when offsets are `wide` (so the
/// product it starts is 64-bit).
fn widened(x: &str, wide: bool) -> String {
    if wide {
        format!("(op2_i64)({x})")
    } else {
        format!("({x})")
    }
}

/// The type of a plan's offsets into its arrays, as a kernel parameter.
fn offset_type(wide: bool) -> &'static str {
    if wide {
        "op2_i64"
    } else {
        "int"
    }
}

/// A map's entry `j` of element `e` (maps are transposed on the device).
fn map_entry(map: impl fmt::Display, j: impl fmt::Display, e: &str, wide: bool) -> String {
    let j = if wide {
        format!("(op2_i64){j}")
    } else {
        j.to_string()
    };
    format!("map{map}[{j} * map_stride + {e}]")
}

/// Write the code for `desc` with kernel source `src` and constants.
/// The kernel's source as the dialect takes it.
fn kernel_source(dialect: Dialect, src: &str) -> String {
    let k = match dialect {
        Dialect::OpenCl => opencl_storage(&crate::source::opencl_long_long(
            &crate::source::opencl_identifiers(&device_source(src)),
        )),
        Dialect::Cuda => device_source(src),
    };
    // (the typedefs mention no op2_std_abs: one blanked copy serves both)
    let code = crate::source::code_only(&k);
    let k = crate::source::stdint_typedefs(&code, dialect == Dialect::OpenCl) + &k;
    if crate::source::mentions_ident(&code, "op2_std_abs") {
        crate::source::std_abs_defs(dialect == Dialect::OpenCl) + &k
    } else {
        k
    }
}

pub fn generate(
    desc: &LoopDesc,
    src: &str,
    consts: &[Const],
    o: Options,
) -> Result<Generated, GenError> {
    let (params, scheme) = check(desc, src, o)?;
    let mut g = Gen {
        desc,
        o,
        sp: spaces(o.dialect),
        groups: Vec::new(),
        arg_group: vec![None; desc.args.len()],
        ind_dat_first: vec![0; desc.args.len()],
        params: Vec::new(),
        decl: Vec::new(),
        types: Vec::new(),
        track_first: false,
        body: String::new(),
        vec_types: params.iter().map(|p| pointee(&p.ty)).collect(),
    };
    g.collect_groups();
    let entry = format!("op2_k_{}", sanitize(&desc.name));
    let mut text = format!(
        "// op2-rs: loop {} (kernel {}), {:?} scheme, {} dialect, work-group {}{}{}\n",
        desc.name,
        desc.kernel,
        scheme,
        match o.dialect {
            Dialect::OpenCl => "OpenCL C",
            Dialect::Cuda => "CUDA C++",
        },
        o.block_size,
        if o.fma { ", fused multiply-adds" } else { "" },
        if o.wide_offsets {
            ", 64-bit offsets"
        } else {
            ""
        }
    );
    text += &prelude(o.dialect, desc, &params, o.fma);
    if o.wide_offsets {
        text += match o.dialect {
            Dialect::OpenCl => "typedef long op2_i64;\n",
            Dialect::Cuda => "typedef long long op2_i64;\n",
        };
    }
    text += &consts::declarations(consts, o.dialect, &desc.name)?;
    text += "\n// ---- the application's kernel ----\n";
    text += &kernel_source(o.dialect, src);
    text += "\n// ---- op2-rs kernel stub ----\n";
    match scheme {
        Scheme::Staged => g.staged(),
        Scheme::Coloured => g.coloured(),
        Scheme::Flat => g.flat(),
    }
    let qual = match o.dialect {
        Dialect::OpenCl => "__kernel void",
        Dialect::Cuda => "extern \"C\" __global__ void",
    };
    for t in &g.types {
        text += t;
        text += "\n";
    }
    text += &format!(
        "{qual} {entry}(\n    {}) {{\n{}}}\n",
        g.decl.join(",\n    "),
        g.body
    );
    Ok(Generated {
        text,
        entry,
        scheme,
        params: g.params,
        groups: g.groups,
        block_size: o.block_size,
        wide_offsets: o.wide_offsets,
        fma: o.fma,
        strided: scheme == Scheme::Flat && flat_strided(desc),
        const_values: match o.dialect {
            Dialect::Cuda => consts::values(consts),
            Dialect::OpenCl => Vec::new(),
        },
    })
}

/// The description against the kernel's source and the options: the
/// kernel's parameters and the scheme.
fn check(desc: &LoopDesc, src: &str, o: Options) -> Result<(Vec<Param>, Scheme), GenError> {
    desc.validate()?;
    let err = |w: String| GenError {
        loop_name: desc.name.clone(),
        what: w,
    };
    if !o.block_size.is_power_of_two() || o.block_size > 1024 {
        return Err(err(format!(
            "block size {} is not a power of two up to 1024",
            o.block_size
        )));
    }
    let params = kernel_params(src, &desc.kernel).ok_or_else(|| {
        err(format!(
            "no definition of kernel {} in its source",
            desc.kernel
        ))
    })?;
    if params.len() != desc.args.len() {
        return Err(err(format!(
            "kernel {} takes {} parameters, the loop passes {} arguments",
            desc.kernel,
            params.len(),
            desc.args.len()
        )));
    }
    // a loop that only reads through its maps has no conflicts to keep
    // apart: one work-item per element, its reads through the maps
    // (cached: on a GPU the read-only path), as in a direct loop. Staging
    // such a block's data in local memory only adds copies and barriers
    // (airfoil's adt_calc in SASS: 672 instructions and 32 barriers staged,
    // 456 and none flat, as OP2's translated code); nor has one whose
    // writes through maps land on rows no other element touches
    // (LoopDesc::disjoint_writes: aero's dirichlet, 560 instructions staged,
    // 32 flat, as OP2's)
    let conflicts = desc.writes_through_maps() && !desc.disjoint_writes;
    match desc.conflicts {
        Conflicts::Colour2 if conflicts => return Ok((params, Scheme::Staged)),
        Conflicts::Colour2Global if conflicts => return Ok((params, Scheme::Coloured)),
        _ => {}
    }
    if let Some((i, access)) = desc.needs_colouring() {
        return Err(err(format!(
            "argument {i}: {} through a map needs colouring, not atomics",
            access.name()
        )));
    }
    Ok((params, Scheme::Flat))
}

/// Do the kernel's parameters of 64-bit integer type `t` name it `long`
/// (not `long long`), or `int64_t`/`uint64_t` (glibc's `long`)? Then, in
/// CUDA C++, where `long` and `long long` are distinct, the private copies
/// are `long` too ([`Ty::typedef`]).
fn long_only(desc: &LoopDesc, params: &[Param], t: Ty) -> bool {
    desc.args.iter().zip(params).any(|(a, p)| {
        let code = crate::source::code_only(&p.ty);
        let words = || code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        let longs = words().filter(|w| *w == "long").count();
        let fixed = words().any(|w| matches!(w, "int64_t" | "uint64_t"));
        a.elem_ty() == Some(t) && (longs == 1 || fixed)
    })
}

fn prelude(d: Dialect, desc: &LoopDesc, params: &[Param], fma: bool) -> String {
    let wants = |t: Ty| desc.args.iter().any(|a| a.elem_ty() == Some(t));
    let mut s = String::from(crate::source::STD_MACRO_DEFS);
    for t in [Ty::I64, Ty::U64, Ty::Bool] {
        if let Some(def) = t
            .typedef(d, long_only(desc, params, t))
            .filter(|_| wants(t))
        {
            s += def;
            s += "\n";
        }
    }
    match d {
        Dialect::OpenCl => {
            s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
            // OpenCL C contracts a * b + c into fma by default; the host
            // compiles without (x86-64's baseline, C's usual default): off
            // unless asked, so the device computes what the kernel's source
            // says on the host (aero's conjugate gradients drift 10% apart
            // otherwise)
            s += if fma {
                "#pragma OPENCL FP_CONTRACT ON\n"
            } else {
                "#pragma OPENCL FP_CONTRACT OFF\n"
            };
            // the helpers of the flat scheme's atomic increments (a loop
            // whose writes are disjoint adds plainly)
            let atomics = desc.conflicts == Conflicts::Atomics && !desc.disjoint_writes;
            if atomics && wants(Ty::F64) {
                s += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
                s += "static inline void op2_atomic_add_double(volatile __global double *p, double v) {\n";
                s += "  union { ulong u; double d; } o, n;\n";
                s += "  do { o.d = *p; n.d = o.d + v; } while (atom_cmpxchg((volatile __global ulong *)p, o.u, n.u) != o.u);\n}\n";
            }
            if atomics && wants(Ty::F32) {
                s += "static inline void op2_atomic_add_float(volatile __global float *p, float v) {\n";
                s += "  union { uint u; float f; } o, n;\n";
                s += "  do { o.f = *p; n.f = o.f + v; } while (atomic_cmpxchg((volatile __global uint *)p, o.u, n.u) != o.u);\n}\n";
            }
            if atomics && (wants(Ty::I64) || wants(Ty::U64)) {
                s += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
            }
        }
        Dialect::Cuda => {
            s += "// compiled by NVRTC with -default-device\n";
        }
    }
    s += "#ifndef MIN\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#endif\n";
    s += "#ifndef MAX\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#endif\n";
    s
}

struct Gen<'a> {
    desc: &'a LoopDesc,
    o: Options,
    sp: Spaces,
    groups: Vec<Group>,
    /// Per argument: its staged group (indirect arguments).
    arg_group: Vec<Option<usize>>,
    /// Per indirect argument: the first argument on the same dat (flat).
    ind_dat_first: Vec<usize>,
    params: Vec<LaunchParam>,
    decl: Vec<String>,
    /// Types the kernel's parameters need (globals by value).
    types: Vec<String>,
    /// A strided flat loop with an `op_arg_info`: each work-item keeps the
    /// element index of its best value, and ties between work-items go to
    /// the smaller index.
    track_first: bool,
    body: String,
    vec_types: Vec<Option<String>>,
}

impl Gen<'_> {
    /// The parameter declaration of a pointer to dat `dat`'s device copy:
    /// `const` when every argument on the dat reads it, and restrict-
    /// qualified when nothing else in the loop can reach what it writes
    /// (the dat is read only, or this is its one data parameter: its direct
    /// arguments and its groups through maps, counted as the staged scheme
    /// declares them, which is never fewer than the flat one). The compiler
    /// may then keep map entries in registers across the increments and
    /// read through its read-only cache, as it does for OP2's translated
    /// code, which declares its pointers so. Every value the kernel sees is
    /// a private copy, so a `const` here never meets the kernel's own
    /// parameter types.
    fn dat_ptr(&self, ty: Ty, dat: usize, name: &str) -> String {
        let on_dat = |a: &&Arg| match a {
            Arg::Direct(d) | Arg::Indirect { dat: d, .. } => d.dat == dat,
            _ => false,
        };
        let read_only = self.desc.args.iter().filter(on_dat).all(|a| match a {
            Arg::Direct(d) | Arg::Indirect { dat: d, .. } => d.access == Access::Read,
            _ => true,
        });
        let direct = self
            .desc
            .args
            .iter()
            .filter(|a| matches!(a, Arg::Direct(d) if d.dat == dat))
            .count();
        let groups = self.groups.iter().filter(|g| g.dat == dat).count();
        let c = if read_only { "const " } else { "" };
        let r = if read_only || direct + groups == 1 {
            self.sp.restrict
        } else {
            ""
        };
        format!("{}{c}{} *{r}{name}", self.sp.g, ty.store_name())
    }

    /// The declaration of a read-only index array (maps, plan arrays):
    /// nothing in the kernel writes one, so it is restrict-qualified.
    fn index_ptr(&self, ty: &str, name: &str) -> String {
        format!("{}const {ty} *{}{name}", self.sp.g, self.sp.restrict)
    }

    fn param(&mut self, p: LaunchParam, decl: String) {
        self.params.push(p);
        self.decl.push(decl);
    }

    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn collect_groups(&mut self) {
        for (i, a) in self.desc.args.iter().enumerate() {
            if let Arg::Indirect { dat, map, .. } = a {
                // one group per dat, whatever maps reach it: a row two maps
                // reach is staged once (two copies would each keep their
                // own updates) and the plan colours by the dat's rows
                let found = self.groups.iter().position(|g| g.dat == dat.dat);
                let gi = found.unwrap_or_else(|| {
                    self.groups.push(Group {
                        dat: dat.dat,
                        map: *map,
                        dim: dat.dim,
                        ty: dat.ty,
                        soa: dat.soa,
                        access: dat.access,
                    });
                    self.groups.len() - 1
                });
                self.arg_group[i] = Some(gi);
                self.ind_dat_first[i] = self.desc.args[..i]
                    .iter()
                    .position(|b| matches!(b, Arg::Indirect { dat: d, .. } if d.dat == dat.dat))
                    .unwrap_or(i);
            }
        }
    }

    /// Parameters shared by both schemes: direct dats, globals, flags.
    fn common_params(&mut self) {
        let g = self.sp.g;
        for (i, a) in self.desc.args.iter().enumerate() {
            match a {
                Arg::Direct(d) => {
                    let decl = self.dat_ptr(d.ty, d.dat, &format!("arg{i}"));
                    self.param(LaunchParam::Dat(i), decl);
                    if d.soa {
                        self.param(LaunchParam::DatStride(i), format!("int arg{i}_stride"));
                    }
                }
                Arg::Info { ty, dim, .. } => {
                    self.gbl_input(i, *dim, *ty);
                    let t = ty.store_name();
                    self.param(LaunchParam::RedOut(i), format!("{g}{t} *red{i}"));
                }
                Arg::Global { ty, access, dim } => {
                    // a sum starts from 0 on the device (the host adds the
                    // global's value when it combines the slots): it needs
                    // no values, whose upload on a GPU (pageable memory)
                    // would wait for the loops before it
                    if *access != Access::Inc {
                        self.gbl_input(i, *dim, *ty);
                    }
                    if !matches!(access, Access::Read | Access::Work) {
                        self.param(
                            LaunchParam::RedOut(i),
                            format!("{g}{} *red{i}", ty.store_name()),
                        );
                    }
                }
                _ => {}
            }
            if let Arg::Direct(d) | Arg::Indirect { dat: d, .. } = a {
                if d.optional {
                    self.param(LaunchParam::Opt(i), format!("int opt{i}"));
                }
            }
        }
        self.param(LaunchParam::SetSize, "int set_size".into());
        if self.guards_owned() {
            self.param(LaunchParam::Owned, "int owned".into());
        }
    }

    /// Global (or info) argument `i`'s values as the kernel stub gets
    /// them: by value (a struct parameter) when they fit in
    /// [`GBL_BY_VALUE_BYTES`], else a device buffer.
    fn gbl_input(&mut self, i: usize, dim: usize, ty: Ty) {
        if gbl_by_value(dim, ty) {
            self.types.push(format!(
                "typedef struct {{ {} v[{dim}]; }} op2_gbl{i}_t;",
                ty.store_name()
            ));
            self.param(
                LaunchParam::GblValue(i),
                format!("const op2_gbl{i}_t gbl{i}"),
            );
        } else {
            let g = self.sp.g;
            self.param(
                LaunchParam::GblIn(i),
                format!("{g}const {} *gbl{i}", ty.store_name()),
            );
        }
    }

    /// Component `k` of global (or info) argument `i`'s values, as
    /// [`Gen::gbl_input`] passed them.
    fn gbl_at(&self, i: usize) -> String {
        let by_value = match &self.desc.args[i] {
            Arg::Global { dim, ty, .. } | Arg::Info { dim, ty, .. } => gbl_by_value(*dim, *ty),
            _ => false,
        };
        if by_value {
            format!("gbl{i}.v[k]")
        } else {
            format!("gbl{i}[k]")
        }
    }

    /// Do elements past `owned` need their reductions undone? Only a loop
    /// that reduces (a global other than OP_READ/OP_WORK, or an
    /// op_arg_info) and writes through a map: only such a loop runs another
    /// process's elements (the exec halo). Direct loops pay nothing per
    /// element for it.
    fn guards_owned(&self) -> bool {
        let reduces = self.desc.args.iter().any(|a| {
            matches!(
                a,
                Arg::Info { .. }
                    | Arg::Global {
                        access: Access::Inc | Access::Min | Access::Max,
                        ..
                    }
            )
        });
        let writes_through_map = self
            .desc
            .args
            .iter()
            .any(|a| matches!(a, Arg::Indirect { dat, .. } if dat.access.writes()));
        reduces && writes_through_map
    }

    /// Declarations of the reduction accumulators and their local arrays.
    fn reductions_start(&mut self) {
        let bs = self.o.block_size;
        for (i, a) in self.desc.args.iter().enumerate() {
            let (dim, ty, access) = match a {
                Arg::Global { dim, ty, access } => (dim, ty, access),
                // op_arg_info: accumulated from its current value, like a max
                Arg::Info { dim, ty, .. } => (dim, ty, &Access::Max),
                _ => continue,
            };
            {
                let t = ty.c_name();
                if matches!(access, Access::Read | Access::Work) {
                    continue;
                }
                let shared = match self.o.dialect {
                    Dialect::OpenCl => "__local",
                    Dialect::Cuda => "__shared__",
                };
                self.line(
                    1,
                    &format!("{shared} {} red{i}_s[{}];", ty.store_name(), bs * dim),
                );
                self.line(1, &format!("{t} r{i}[{dim}];"));
                let init = match access {
                    Access::Inc => "0".to_string(),
                    _ => self.gbl_at(i),
                };
                if self.track_first && self.info_of(i).is_some() {
                    self.line(1, &format!("{shared} int red{i}_e[{bs}];"));
                    // the element of this work-item's best value (none yet)
                    self.line(1, &format!("int b{i} = 0x7fffffff;"));
                }
                self.line(
                    1,
                    &format!("for (int k = 0; k < {dim}; k++) r{i}[k] = {init};"),
                );
            }
        }
    }

    /// The work-group's tree reduction, written to slot `slot`.
    fn reductions_end(&mut self, slot: &str) {
        let bs = self.o.block_size;
        let bar = self.sp.barrier;
        for (i, a) in self.desc.args.iter().enumerate() {
            if let Some(j) = self.info_of(i) {
                self.pair_reduction(i, j, slot);
                continue;
            }
            if let Arg::Global { dim, access, ty } = a {
                let op = |x: &str, y: &str| match access {
                    // a sum of bools is whether any is true
                    Access::Inc if *ty == Ty::Bool => format!("({x}) || ({y})"),
                    Access::Inc => format!("{x} + {y}"),
                    Access::Min => format!("MIN({x}, {y})"),
                    _ => format!("MAX({x}, {y})"),
                };
                if matches!(access, Access::Read | Access::Work) {
                    continue;
                }
                self.line(
                    1,
                    &format!("for (int k = 0; k < {dim}; k++) red{i}_s[k * {bs} + tid] = r{i}[k];"),
                );
                self.line(1, bar);
                self.line(1, &format!("for (int s = {}; s > 0; s >>= 1) {{", bs / 2));
                self.line(2, "if (tid < s)");
                self.line(
                    3,
                    &format!(
                        "for (int k = 0; k < {dim}; k++) red{i}_s[k * {bs} + tid] = {};",
                        op(
                            &format!("red{i}_s[k * {bs} + tid]"),
                            &format!("red{i}_s[k * {bs} + tid + s]")
                        )
                    ),
                );
                self.line(2, bar);
                self.line(1, "}");
                self.line(1, &format!("if (tid == 0) for (int k = 0; k < {dim}; k++) red{i}[({slot}) * {dim} + k] = red{i}_s[k * {bs}];"));
            }
        }
    }

    /// The `op_arg_info` argument that goes with global argument `i`.
    fn info_of(&self, i: usize) -> Option<usize> {
        self.desc
            .args
            .iter()
            .position(|a| matches!(a, Arg::Info { reference, .. } if *reference == i))
    }

    /// The work-group's reduction of global `r` (a minimum or maximum of
    /// dim 1) with its info `j`: a pair moves down only when its value is
    /// strictly better, so on a tie the lower work-item's info stays.
    fn pair_reduction(&mut self, r: usize, j: usize, slot: &str) {
        let bs = self.o.block_size;
        let bar = self.sp.barrier;
        let (Arg::Global { access, .. }, Arg::Info { dim, .. }) =
            (&self.desc.args[r], &self.desc.args[j])
        else {
            return;
        };
        let (cmp, dim) = (if *access == Access::Min { "<" } else { ">" }, *dim);
        self.line(1, &format!("red{r}_s[tid] = r{r}[0];"));
        self.line(
            1,
            &format!("for (int k = 0; k < {dim}; k++) red{j}_s[k * {bs} + tid] = r{j}[k];"),
        );
        // a strided loop: on a tie the earlier element wins (a work-item's
        // elements are not in order with its neighbours')
        let tie = if self.track_first {
            self.line(1, &format!("red{r}_e[tid] = b{r};"));
            format!(" || (red{r}_s[tid + s] == red{r}_s[tid] && red{r}_e[tid + s] < red{r}_e[tid])")
        } else {
            String::new()
        };
        self.line(1, bar);
        self.line(1, &format!("for (int s = {}; s > 0; s >>= 1) {{", bs / 2));
        self.line(
            2,
            &format!("if (tid < s && (red{r}_s[tid + s] {cmp} red{r}_s[tid]{tie})) {{"),
        );
        self.line(3, &format!("red{r}_s[tid] = red{r}_s[tid + s];"));
        if self.track_first {
            self.line(3, &format!("red{r}_e[tid] = red{r}_e[tid + s];"));
        }
        self.line(
            3,
            &format!("for (int k = 0; k < {dim}; k++) red{j}_s[k * {bs} + tid] = red{j}_s[k * {bs} + tid + s];"),
        );
        self.line(2, "}");
        self.line(2, bar);
        self.line(1, "}");
        self.line(1, &format!("if (tid == 0) {{ red{r}[{slot}] = red{r}_s[0]; for (int k = 0; k < {dim}; k++) red{j}[({slot}) * {dim} + k] = red{j}_s[k * {bs}]; }}"));
    }

    /// The globals whose best element each work-item records
    /// ([`Gen::track_first`]), with their types.
    fn tracked(&self) -> Vec<(usize, &'static str)> {
        if !self.track_first {
            return Vec::new();
        }
        self.desc
            .args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match a {
                Arg::Global { ty, .. } if self.info_of(i).is_some() => Some((i, ty.c_name())),
                _ => None,
            })
            .collect()
    }

    /// Private copies of the arguments of element `e`, the call, and the
    /// direct results written back; indirect copies read from where
    /// `indirect_src(arg, entry, k)` says.
    fn element(
        &mut self,
        depth: usize,
        e: &str,
        indirect_src: &dyn Fn(usize, usize, &str) -> String,
    ) {
        let mut call = Vec::new();
        let mut restore = Vec::new();
        let guard = self.guards_owned();
        let desc = self.desc;
        self.share_rows(depth, indirect_src);
        for (i, a) in desc.args.iter().enumerate() {
            let p = match a {
                Arg::Direct(d) => self.copy_in_direct(depth, i, d, e),
                Arg::Indirect { dat, map, idx } => {
                    self.copy_in_indirect(depth, i, dat, self.entries(*map, *idx), indirect_src);
                    let p = if *idx < 0 {
                        format!("a{i}")
                    } else {
                        format!("a{i}_0")
                    };
                    self.ptr_or_null(i, dat, p)
                }
                Arg::Global {
                    access: Access::Read,
                    ..
                } => format!("g{i}"),
                Arg::Global {
                    dim,
                    ty,
                    access: Access::Work,
                } => {
                    // scratch: every element starts from the global's value
                    self.line(depth, &format!("{} w{i}[{dim}];", ty.c_name()));
                    let from = self.gbl_at(i);
                    self.line(
                        depth,
                        &format!("for (int k = 0; k < {dim}; k++) w{i}[k] = {from};"),
                    );
                    format!("w{i}")
                }
                Arg::Global { .. } | Arg::Info { .. } if !guard => format!("r{i}"),
                Arg::Global { dim, ty, .. } | Arg::Info { dim, ty, .. } => {
                    // the accumulator is kept, to be put back after the
                    // call for an element another process owns (a choice
                    // of pointer between two private arrays crashed PoCL's
                    // compiled kernel)
                    self.line(depth, &format!("{} d{i}[{dim}];", ty.c_name()));
                    self.line(
                        depth,
                        &format!("for (int k = 0; k < {dim}; k++) d{i}[k] = r{i}[k];"),
                    );
                    restore.push(format!(
                        "if (({e}) >= owned) for (int k = 0; k < {dim}; k++) r{i}[k] = d{i}[k];"
                    ));
                    format!("r{i}")
                }
                Arg::Off => "0".into(),
                Arg::Idx => {
                    self.line(depth, &format!("int x{i} = {e};"));
                    format!("&x{i}")
                }
                Arg::IdxMap { map, idx } => {
                    self.line(
                        depth,
                        &format!(
                            "int x{i} = {};",
                            map_entry(map, idx, &format!("({e})"), self.o.wide_offsets)
                        ),
                    );
                    format!("&x{i}")
                }
            };
            call.push(p);
        }
        // a strided loop with an info: the element of each work-item's best
        let tracked = self.tracked();
        for (r, t) in &tracked {
            self.line(depth, &format!("const {t} p{r} = r{r}[0];"));
        }
        // (renamed as the kernel's source was, should OpenCL reserve it)
        let name = match self.o.dialect {
            Dialect::OpenCl => crate::source::opencl_identifiers(&desc.kernel),
            Dialect::Cuda => desc.kernel.clone(),
        };
        self.line(depth, &format!("{name}({});", call.join(", ")));
        for r in restore {
            self.line(depth, &r);
        }
        for (r, _) in &tracked {
            self.line(depth, &format!("if (r{r}[0] != p{r}) b{r} = {e};"));
        }
        self.write_back_direct(depth, e);
    }

    /// The pointers through maps on dat `dat`, in argument order: (the
    /// argument, the map entry).
    fn pointers_on(&self, dat: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, a) in self.desc.args.iter().enumerate() {
            if let Arg::Indirect { dat: d, map, idx } = a {
                if d.dat == dat {
                    out.extend((0..self.entries(*map, *idx)).map(|j| (i, j)));
                }
            }
        }
        out
    }

    /// For each dat of [`LoopDesc::shared_rows`]: each of the element's
    /// pointers to it takes the copy of the first pointer to the same row
    /// (rows compared by the address `src` gives their first component),
    /// its own otherwise; a vector argument's array is filled after. The
    /// copies are slots of one private array, chosen by index: the kernel
    /// then gets one pointer per distinct row, and writes one row through
    /// two of its parameters as it does on the host.
    fn share_rows(&mut self, depth: usize, src: &dyn Fn(usize, usize, &str) -> String) {
        let desc = self.desc;
        for &dat in &desc.shared_rows {
            let ptrs = self.pointers_on(dat);
            let Some(&(f, _)) = ptrs.first() else {
                continue;
            };
            for (p, &(i, j)) in ptrs.iter().enumerate() {
                self.line(depth, &format!("int sl{f}_{p} = {p};"));
                let at = src(i, j, "0");
                for (q, &(i2, j2)) in ptrs[..p].iter().enumerate() {
                    let other = src(i2, j2, "0");
                    self.line(
                        depth,
                        &format!("if (&({other}) == &({at})) sl{f}_{p} = sl{f}_{q};"),
                    );
                }
                self.line(depth, &format!("a{i}_{j} = al{f}[sl{f}_{p}];"));
            }
            for (i, a) in desc.args.iter().enumerate() {
                if let Arg::Indirect { dat: d, map, idx } = a {
                    if d.dat == dat && *idx < 0 {
                        for j in 0..self.entries(*map, *idx) {
                            self.line(depth, &format!("a{i}[{j}] = a{i}_{j};"));
                        }
                    }
                }
            }
        }
    }

    fn copy_in_direct(&mut self, depth: usize, i: usize, d: &DatArg, e: &str) -> String {
        let dim = d.dim;
        let at = addr(
            dim,
            d.soa,
            &format!("arg{i}_stride"),
            e,
            "k",
            self.o.wide_offsets,
        );
        self.opt_open(depth, i, d);
        // A direct OP_INC is copied in like OP_RW: the element is this
        // work-item's alone, and the kernel sees the dat's value, as on the
        // host and in OP2's generated code (which passes the dat's own
        // pointer); e.g. jac2's update increments u, then reads it.
        if d.access.reads() || d.access == Access::Inc {
            self.line(
                depth + 1,
                &format!("for (int k = 0; k < {dim}; k++) a{i}[k] = arg{i}[{at}];"),
            );
        }
        self.opt_close(depth);
        self.ptr_or_null(i, d, format!("a{i}"))
    }

    fn copy_in_indirect(
        &mut self,
        depth: usize,
        i: usize,
        dat: &DatArg,
        entries: usize,
        indirect_src: &dyn Fn(usize, usize, &str) -> String,
    ) {
        let dim = dat.dim;
        self.opt_open(depth, i, dat);
        for j in 0..entries {
            let from = if dat.access == Access::Inc {
                "0".to_string()
            } else {
                indirect_src(i, j, "k")
            };
            self.line(
                depth + 1,
                &format!("for (int k = 0; k < {dim}; k++) a{i}_{j}[k] = {from};"),
            );
        }
        self.opt_close(depth);
    }

    fn write_back_direct(&mut self, depth: usize, e: &str) {
        let desc = self.desc;
        for (i, a) in desc.args.iter().enumerate() {
            let Arg::Direct(d) = a else { continue };
            if !d.access.writes() {
                continue;
            }
            let at = addr(
                d.dim,
                d.soa,
                &format!("arg{i}_stride"),
                e,
                "k",
                self.o.wide_offsets,
            );
            let dim = d.dim;
            let guard = if d.optional {
                format!("if (opt{i}) ")
            } else {
                String::new()
            };
            self.line(
                depth,
                &format!("{guard}for (int k = 0; k < {dim}; k++) arg{i}[{at}] = a{i}[k];"),
            );
        }
    }

    fn entries(&self, map: usize, idx: i32) -> usize {
        if idx < 0 {
            self.desc.maps[map].dim
        } else {
            1
        }
    }

    fn opt_open(&mut self, depth: usize, i: usize, d: &DatArg) {
        if d.optional {
            self.line(depth, &format!("if (opt{i}) {{"));
        } else {
            self.line(depth, "{");
        }
    }
    fn opt_close(&mut self, depth: usize) {
        self.line(depth, "}");
    }

    fn ptr_or_null(&self, i: usize, d: &DatArg, p: String) -> String {
        if d.optional {
            format!("(opt{i} ? {p} : 0)")
        } else {
            p
        }
    }

    /// Declarations of the private copies (before the element's scope, so
    /// that values written through maps outlive it).
    fn private_decls(&mut self, depth: usize) {
        let desc = self.desc;
        for (i, a) in desc.args.iter().enumerate() {
            match a {
                Arg::Direct(d) => {
                    self.line(depth, &format!("{} a{i}[{}];", d.ty.c_name(), d.dim));
                }
                Arg::Indirect { dat, map, idx } => {
                    let n = self.entries(*map, *idx);
                    let shared = self.desc.shared_rows.contains(&dat.dat);
                    if shared && self.ind_dat_first[i] == i {
                        // one copy per pointer of the dat, the pointers
                        // that meet on a row sharing one ([`Gen::share_rows`])
                        let k = self.pointers_on(dat.dat).len();
                        self.line(
                            depth,
                            &format!("{} al{i}[{k}][{}];", dat.ty.c_name(), dat.dim),
                        );
                    }
                    for j in 0..n {
                        let decl = if shared {
                            format!("{} *a{i}_{j};", dat.ty.c_name())
                        } else {
                            format!("{} a{i}_{j}[{}];", dat.ty.c_name(), dat.dim)
                        };
                        self.line(depth, &decl);
                    }
                    if *idx < 0 {
                        let elem = self.vec_types[i]
                            .clone()
                            .unwrap_or_else(|| format!("{} *", dat.ty.c_name()));
                        let list: Vec<String> = (0..n).map(|j| format!("a{i}_{j}")).collect();
                        if shared {
                            // filled when the element runs: no top-level
                            // const on the array's entries
                            let e = elem.trim_end();
                            let e = e.strip_suffix("const").unwrap_or(e).trim_end();
                            self.line(depth, &format!("{e} a{i}[{n}];"));
                        } else {
                            self.line(
                                depth,
                                &format!("{elem} a{i}[{n}] = {{{}}};", list.join(", ")),
                            );
                        }
                    }
                }
                Arg::Global {
                    dim,
                    ty,
                    access: Access::Read,
                } => {
                    let from = self.gbl_at(i);
                    self.line(depth, &format!("{} g{i}[{dim}];", ty.c_name()));
                    self.line(
                        depth,
                        &format!("for (int k = 0; k < {dim}; k++) g{i}[k] = {from};"),
                    );
                }
                _ => {}
            }
        }
    }

    fn ids(&mut self) {
        match self.o.dialect {
            Dialect::OpenCl => {
                self.line(1, "const int tid = get_local_id(0);");
                self.line(1, "const int wg = get_group_id(0);");
            }
            Dialect::Cuda => {
                self.line(1, "const int tid = threadIdx.x;");
                self.line(1, "const int wg = blockIdx.x;");
            }
        }
    }

    /// The flat scheme's dats through maps (once per dat) and the maps
    /// (those of dats, then those only `op_arg_idx` reads).
    fn flat_params(&mut self) {
        let desc = self.desc;
        let mut maps_used = Vec::new();
        for (i, a) in desc.args.iter().enumerate() {
            if let Arg::Indirect { dat, map, .. } = a {
                if self.ind_dat_first[i] == i {
                    let decl = self.dat_ptr(dat.ty, dat.dat, &format!("ind{i}"));
                    self.param(LaunchParam::IndDat(i), decl);
                    if dat.soa {
                        self.param(LaunchParam::IndDatStride(i), format!("int ind{i}_stride"));
                    }
                }
                if !maps_used.contains(map) {
                    maps_used.push(*map);
                }
            }
        }
        for m in idx_maps(desc) {
            if !maps_used.contains(&m) {
                maps_used.push(m);
            }
        }
        for m in &maps_used {
            let decl = self.index_ptr("int", &format!("map{m}"));
            self.param(LaunchParam::Map(*m), decl);
        }
        if !maps_used.is_empty() {
            self.param(LaunchParam::MapStride, "int map_stride".into());
        }
    }

    fn flat(&mut self) {
        let desc = self.desc;
        let bs = self.o.block_size;
        self.flat_params();
        self.common_params();
        let split = flat_splits(desc);
        if split {
            self.param(LaunchParam::BlockOffset, "int block_offset".into());
        }
        self.ids();
        if flat_strided(desc) {
            // as many work-groups as the launch gives (fewer than the
            // elements: see FLAT_REDUCTION_ITEMS); work-group wg runs the
            // wg-th chunk of whole work-groups' worth of elements, its
            // work-items a work-group apart
            let groups = match self.o.dialect {
                Dialect::OpenCl => "(int)get_num_groups(0)",
                Dialect::Cuda => "(int)gridDim.x",
            };
            self.track_first = desc.args.iter().any(|a| matches!(a, Arg::Info { .. }));
            self.reductions_start();
            self.line(1, &format!("const int nwg = {groups};"));
            self.line(
                1,
                &format!(
                    "const int chunk = ((set_size + nwg - 1) / nwg + {bs} - 1) / {bs} * {bs};"
                ),
            );
            self.line(
                1,
                "const int e_end = (wg + 1) * chunk < set_size ? (wg + 1) * chunk : set_size;",
            );
            self.line(
                1,
                &format!("for (int e = wg * chunk + tid; e < e_end; e += {bs}) {{"),
            );
        } else {
            if split {
                self.line(
                    1,
                    &format!("const int e = (wg + block_offset) * {bs} + tid;"),
                );
            } else {
                self.line(1, &format!("const int e = wg * {bs} + tid;"));
            }
            self.reductions_start();
            self.line(1, "if (e < set_size) {");
        }
        self.private_decls(2);
        let first = self.ind_dat_first.clone();
        let wide = self.o.wide_offsets;
        let src = |i: usize, j: usize, k: &str| through_map(desc, &first, i, j, k, wide);
        self.element(2, "e", &src);
        if desc.disjoint_writes {
            // no other element touches these rows: plain stores and adds
            self.indirect_writes_back(2, &src);
        } else {
            self.flat_atomic_increments(&first);
        }
        self.line(1, "}");
        self.reductions_end("wg");
    }

    /// The flat scheme's increments through maps: atomic adds, each
    /// element's private copies into the dat where the map points.
    fn flat_atomic_increments(&mut self, first: &[usize]) {
        let (desc, wide) = (self.desc, self.o.wide_offsets);
        for (i, a) in desc.args.iter().enumerate() {
            if let Arg::Indirect { dat, map, idx } = a {
                if dat.access != Access::Inc {
                    continue;
                }
                let f = first[i];
                let n = self.entries(*map, *idx);
                for j in 0..n {
                    let entry = if *idx < 0 { j as i32 } else { *idx };
                    let target = map_entry(map, entry, "e", wide);
                    let at = addr(
                        dat.dim,
                        dat.soa,
                        &format!("ind{f}_stride"),
                        &target,
                        "k",
                        wide,
                    );
                    let add = atomic_add(
                        self.o.dialect,
                        dat.ty,
                        &format!("&ind{f}[{at}]"),
                        &format!("a{i}_{j}[k]"),
                    );
                    let guard = if dat.optional {
                        format!("if (opt{i}) ")
                    } else {
                        String::new()
                    };
                    self.line(
                        2,
                        &format!("{guard}for (int k = 0; k < {}; k++) {add};", dat.dim),
                    );
                }
            }
        }
    }

    /// The coloured scheme: the flat scheme's parameters and reads, the
    /// staged scheme's blocks and thread colours.
    fn coloured(&mut self) {
        let (desc, bs) = (self.desc, self.o.block_size);
        self.flat_params();
        self.common_params();
        self.block_params();
        self.param(LaunchParam::BlockOffset, "int block_offset".into());
        self.ids();
        self.block_figures();
        self.reductions_start();
        self.line(
            1,
            &format!("const int nelems2 = {bs} * (1 + (nelem - 1) / {bs});"),
        );
        self.line(1, &format!("for (int n = tid; n < nelems2; n += {bs}) {{"));
        self.line(2, "const int e = offb + n;");
        self.line(2, "int col2 = -1;");
        let first = self.ind_dat_first.clone();
        let wide = self.o.wide_offsets;
        let src = |i: usize, j: usize, k: &str| through_map(desc, &first, i, j, k, wide);
        self.block_elements("e", &src, self.sp.global_barrier);
        self.line(1, "}");
        self.reductions_end("b");
    }

    /// The plan's per-block arrays, for the schemes launched over blocks.
    fn block_params(&mut self) {
        for (p, n) in [
            (LaunchParam::Blkmap, "blkmap"),
            (LaunchParam::Offset, "offset"),
            (LaunchParam::Nelems, "nelems"),
            (LaunchParam::Nthrcol, "nthrcol"),
            (LaunchParam::Thrcol, "thrcol"),
        ] {
            let decl = self.index_ptr("int", n);
            self.param(p, decl);
        }
    }

    /// This work-group's block `b`: its element count, first element and
    /// number of thread colours.
    fn block_figures(&mut self) {
        for s in [
            "const int b = blkmap[wg + block_offset];",
            "const int nelem = nelems[b];",
            "const int offb = offset[b];",
            "const int ncolor = nthrcol[b];",
        ] {
            self.line(1, s);
        }
    }

    /// What the element wrote through maps (its private copies), put at
    /// `at(argument, map entry, component)` thread colour by thread colour,
    /// `barrier` after each colour: increments added, other values stored.
    /// With `whole` (the element's index), the element's reads and the
    /// kernel call come in its turn too, before its writes: for a loop that
    /// reads and writes a dat through a map (OP_RW), whose elements must
    /// each read what the earlier colours wrote.
    fn colour_turns(
        &mut self,
        at: &dyn Fn(usize, usize, &str) -> String,
        barrier: &str,
        whole: Option<&str>,
    ) {
        self.line(2, "for (int col = 0; col < ncolor; col++) {");
        self.line(3, "if (col2 == col) {");
        if let Some(e) = whole {
            self.private_decls(4);
            self.element(4, e, at);
        }
        self.indirect_writes_back(4, at);
        self.line(3, "}");
        self.line(3, barrier);
        self.line(2, "}");
    }

    /// The element's private copies of what it wrote through maps put at
    /// `at(argument, map entry, component)`, at `depth`: increments added,
    /// other values stored.
    fn indirect_writes_back(&mut self, depth: usize, at: &dyn Fn(usize, usize, &str) -> String) {
        let desc = self.desc;
        for (i, a) in desc.args.iter().enumerate() {
            let Arg::Indirect { dat, map, idx } = a else {
                continue;
            };
            if !dat.access.writes() {
                continue;
            }
            let op = if dat.access == Access::Inc { "+=" } else { "=" };
            let guard = if dat.optional {
                format!("if (opt{i}) ")
            } else {
                String::new()
            };
            for j in 0..self.entries(*map, *idx) {
                let to = at(i, j, "k");
                let dim = dat.dim;
                self.line(
                    depth,
                    &format!("{guard}for (int k = 0; k < {dim}; k++) {to} {op} a{i}_{j}[k];"),
                );
            }
        }
    }

    fn staged(&mut self) {
        let loc_start = self.staged_params();
        self.ids();
        self.staged_setup();
        self.reductions_start();
        self.staged_elements(&loc_start);
        self.staged_write_back();
        self.reductions_end("b");
    }

    /// The staged scheme's parameters; returns, per argument, its plan
    /// arguments (vector arguments: one per map entry).
    fn staged_params(&mut self) -> Vec<Vec<usize>> {
        let desc = self.desc;
        let groups = self.groups.clone();
        for (gi, gr) in groups.iter().enumerate() {
            let decl = self.dat_ptr(gr.ty, gr.dat, &format!("ind_arg{gi}"));
            self.param(LaunchParam::GroupDat(gi), decl);
            if gr.soa {
                self.param(
                    LaunchParam::GroupStride(gi),
                    format!("int ind_arg{gi}_stride"),
                );
            }
        }
        self.param(LaunchParam::IndMap, self.index_ptr("int", "ind_map"));
        for gi in 0..groups.len() {
            let t = offset_type(self.o.wide_offsets);
            self.param(
                LaunchParam::IndMapStart(gi),
                format!("{t} ind_map{gi}_start"),
            );
        }
        self.param(LaunchParam::LocMap, self.index_ptr("short", "loc_map"));
        let mut plan_arg = 0;
        let mut loc_start: Vec<Vec<usize>> = vec![Vec::new(); desc.args.len()];
        for (i, a) in desc.args.iter().enumerate() {
            let n = match a {
                Arg::Indirect { map, idx, .. } => self.entries(*map, *idx),
                _ => {
                    plan_arg += 1;
                    continue;
                }
            };
            for _ in 0..n {
                let t = offset_type(self.o.wide_offsets);
                self.param(
                    LaunchParam::LocMapStart(plan_arg),
                    format!("{t} loc_map{plan_arg}_start"),
                );
                loc_start[i].push(plan_arg);
                plan_arg += 1;
            }
        }
        self.param(LaunchParam::IndSizes, self.index_ptr("int", "ind_sizes"));
        self.param(LaunchParam::IndOffs, self.index_ptr("int", "ind_offs"));
        self.common_params();
        self.block_params();
        // op_arg_idx through a map reads the map itself
        let idx_maps = idx_maps(desc);
        for m in &idx_maps {
            let decl = self.index_ptr("int", &format!("map{m}"));
            self.param(LaunchParam::Map(*m), decl);
        }
        if !idx_maps.is_empty() {
            self.param(LaunchParam::MapStride, "int map_stride".into());
        }
        self.param(LaunchParam::BlockOffset, "int block_offset".into());
        if self.o.dialect == Dialect::OpenCl {
            self.param(LaunchParam::Local, "__local char *op2_local".into());
        }
        loc_start
    }

    /// The block's figures, its local blocks, and the staged data read in.
    fn staged_setup(&mut self) {
        let (g, l, bs) = (self.sp.g, self.sp.l, self.o.block_size);
        if self.o.dialect == Dialect::Cuda {
            self.line(1, "extern __shared__ double op2_local_d[];");
            self.line(1, "char *op2_local = (char *)op2_local_d;");
        }
        self.block_figures();
        self.line(1, "int op2_off = 0;");
        let groups = self.groups.clone();
        let ng = groups.len();
        for (gi, gr) in groups.iter().enumerate() {
            let t = gr.ty.store_name();
            let (dim, bytes) = (gr.dim, gr.ty.bytes());
            self.line(
                1,
                &format!("const int size{gi} = ind_sizes[b * {ng} + {gi}];"),
            );
            self.line(
                1,
                &format!("{g}const int *imap{gi} = ind_map + ind_map{gi}_start + ind_offs[b * {ng} + {gi}];"),
            );
            self.line(
                1,
                &format!("{l}{t} *s{gi} = ({l}{t} *)(op2_local + op2_off);"),
            );
            self.line(
                1,
                &format!("op2_off += ((size{gi} * {dim} * {bytes} + 7) / 8) * 8;"),
            );
        }
        for (gi, gr) in groups.iter().enumerate() {
            let v = if gr.access == Access::Inc {
                "0".to_string()
            } else {
                format!("ind_arg{gi}[{}]", group_addr(gi, gr, self.o.wide_offsets))
            };
            let dim = gr.dim;
            self.line(
                1,
                &format!("for (int n = tid; n < size{gi} * {dim}; n += {bs}) s{gi}[n] = {v};"),
            );
        }
        self.line(1, self.sp.barrier);
    }

    /// The elements, and what they write through maps applied thread
    /// colour by thread colour.
    fn staged_elements(&mut self, loc_start: &[Vec<usize>]) {
        let bs = self.o.block_size;
        let desc = self.desc;
        self.line(
            1,
            &format!("const int nelems2 = {bs} * (1 + (nelem - 1) / {bs});"),
        );
        self.line(1, &format!("for (int n = tid; n < nelems2; n += {bs}) {{"));
        self.line(2, "int col2 = -1;");
        let arg_group = self.arg_group.clone();
        let local = |i: usize, j: usize, k: &str| -> String {
            let gi = arg_group[i].expect("a staged argument");
            let dim = match &desc.args[i] {
                Arg::Indirect { dat, .. } => dat.dim,
                _ => 1,
            };
            format!(
                "s{gi}[loc_map[loc_map{}_start + offb + n] * {dim} + ({k})]",
                loc_start[i][j]
            )
        };
        self.block_elements("offb + n", &local, self.sp.barrier);
        self.line(1, "}");
    }

    /// A block's element `e` (`n < nelem`: one of the block's) with its
    /// thread colour `col2`, its data at `at`: the kernel called for every
    /// element at once and the writes through maps put in colour turns, or
    /// (a loop with OP_RW through a map) each element whole in its turn.
    fn block_elements(
        &mut self,
        e: &str,
        at: &dyn Fn(usize, usize, &str) -> String,
        barrier: &str,
    ) {
        if reads_and_writes_through_maps(self.desc) {
            self.line(2, &format!("if (n < nelem) col2 = thrcol[{e}];"));
            self.colour_turns(at, barrier, Some(e));
        } else {
            self.private_decls(2);
            self.line(2, "if (n < nelem) {");
            self.element(3, e, at);
            self.line(3, &format!("col2 = thrcol[{e}];"));
            self.line(2, "}");
            self.colour_turns(at, barrier, None);
        }
    }

    /// Staged data written back: increments added, other values stored.
    fn staged_write_back(&mut self) {
        let bs = self.o.block_size;
        let groups = self.groups.clone();
        for (gi, gr) in groups.iter().enumerate() {
            if !gr.access.writes() {
                continue;
            }
            let op = if gr.access == Access::Inc { "+=" } else { "=" };
            let (at, dim) = (group_addr(gi, gr, self.o.wide_offsets), gr.dim);
            self.line(
                1,
                &format!("for (int n = tid; n < size{gi} * {dim}; n += {bs}) ind_arg{gi}[{at}] {op} s{gi}[n];"),
            );
        }
    }
}

/// Where component `k` of map entry `j` of indirect argument `i` lives, for
/// element `e` (the flat and coloured schemes: the dat is `ind{f}`, `f` the
/// first argument on it).
fn through_map(
    desc: &LoopDesc,
    first: &[usize],
    i: usize,
    j: usize,
    k: &str,
    wide: bool,
) -> String {
    let Arg::Indirect { dat, map, idx } = &desc.args[i] else {
        unreachable!("indirect argument")
    };
    let entry = if *idx < 0 { j as i32 } else { *idx };
    let f = first[i];
    let target = map_entry(map, entry, "e", wide);
    format!(
        "ind{f}[{}]",
        addr(
            dat.dim,
            dat.soa,
            &format!("ind{f}_stride"),
            &target,
            k,
            wide
        )
    )
}

/// Where staged entry `n` of group `gi` lives in its dat.
fn group_addr(gi: usize, gr: &Group, wide: bool) -> String {
    addr(
        gr.dim,
        gr.soa,
        &format!("ind_arg{gi}_stride"),
        &format!("imap{gi}[n / {}]", gr.dim),
        &format!("n % {}", gr.dim),
        wide,
    )
}

fn atomic_add(d: Dialect, t: Ty, p: &str, v: &str) -> String {
    match (d, t) {
        // CUDA adds 64-bit integers as unsigned long long (two's
        // complement: the same bits for signed ones)
        (Dialect::Cuda, Ty::I64 | Ty::U64) => {
            format!("atomicAdd((unsigned long long *)({p}), (unsigned long long)({v}))")
        }
        // never asked: LoopDesc::validate refuses OP_INC through a map on
        // a bool dat (a sum of bools is an `or`, which no atomic of one
        // byte does in OpenCL C 1.2)
        (_, Ty::Bool) => format!("*({p}) = (op2_bool)(*({p}) || ({v}))"),
        (Dialect::Cuda, _) => format!("atomicAdd({p}, {v})"),
        (Dialect::OpenCl, Ty::F64) => format!("op2_atomic_add_double({p}, {v})"),
        (Dialect::OpenCl, Ty::F32) => format!("op2_atomic_add_float({p}, {v})"),
        (Dialect::OpenCl, Ty::I32 | Ty::U32) => format!("atomic_add({p}, {v})"),
        // cl_khr_int64_base_atomics (enabled in the prelude)
        (Dialect::OpenCl, Ty::I64 | Ty::U64) => format!("atom_add({p}, {v})"),
    }
}
