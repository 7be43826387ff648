//! What the generator is told about a loop: its arguments as the program
//! declared them (`op_arg_dat`, `op_opt_arg_dat`, `op_arg_gbl`,
//! `op_arg_idx`), the maps they go through, the constants the program
//! declared, and how conflicting increments are avoided.

use std::fmt;

/// Element type of a dat or global, from OP2's type string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    F64,
    F32,
    I32,
    /// `uint`, `unsigned int`.
    U32,
    /// `ll`, `long long`, `long` (8 bytes on the LP64 hosts OP2 runs on).
    I64,
    /// `ull`, `unsigned long long`.
    U64,
    /// `bool` (one byte, 0 or 1).
    Bool,
}

impl Ty {
    /// OP2's type strings: `double`, `float`, `int` (also `r8`, `r4`,
    /// `i4`), `uint`, `ll`, `long`, `ull` (also `long long`, `unsigned
    /// long long`, `i8`), each optionally with the `:soa` suffix (returned
    /// as the flag).
    pub fn parse(s: &str) -> Option<(Ty, bool)> {
        let (base, soa) = match s.strip_suffix(":soa") {
            Some(b) => (b, true),
            None => (s, false),
        };
        let t = match base.trim() {
            "double" | "r8" | "real(8)" => Ty::F64,
            "float" | "r4" | "real(4)" => Ty::F32,
            "int" | "i4" | "integer(4)" => Ty::I32,
            "uint" | "unsigned int" => Ty::U32,
            "ll" | "long long" | "long" | "i8" | "integer(8)" => Ty::I64,
            "ull" | "unsigned long long" => Ty::U64,
            "bool" => Ty::Bool,
            _ => return None,
        };
        Some((t, soa))
    }
    /// The name the generated code gives it, the same in OpenCL C and
    /// CUDA C++: the C spelling, or for the 64-bit integers a typedef the
    /// generated code declares ([`Ty::typedef`]: C's `long long` is
    /// 128 bits in OpenCL C).
    pub fn c_name(self) -> &'static str {
        match self {
            Ty::F64 => "double",
            Ty::F32 => "float",
            Ty::I32 => "int",
            Ty::U32 => "unsigned int",
            Ty::I64 => "op2_ll",
            Ty::U64 => "op2_ull",
            Ty::Bool => "bool",
        }
    }
    /// The name of its values in device memory (buffers, local memory,
    /// kernel parameters): [`Ty::c_name`], except `bool`, which OpenCL C
    /// allows in neither buffers nor kernel parameters: bytes
    /// (`op2_bool`, 0 or 1), converted to `bool` in the private copies
    /// the kernel gets.
    pub fn store_name(self) -> &'static str {
        match self {
            Ty::Bool => "op2_bool",
            t => t.c_name(),
        }
    }
    /// The typedef behind [`Ty::c_name`] of a 64-bit integer and behind
    /// [`Ty::store_name`] of a `bool`, `None` for the others. `long_only`:
    /// the kernel's parameters name the 64-bit type `long`, not `long
    /// long`: in CUDA C++ the two are distinct types, and the private
    /// copies the kernel gets pointers to must have its type; in OpenCL C
    /// `long` is 64 bits (the kernel's `long long` is rewritten so,
    /// [`crate::source::opencl_long_long`]).
    pub fn typedef(self, d: Dialect, long_only: bool) -> Option<&'static str> {
        Some(match (self, d) {
            (Ty::I64, Dialect::OpenCl) => "typedef long op2_ll;",
            (Ty::U64, Dialect::OpenCl) => "typedef ulong op2_ull;",
            (Ty::I64, Dialect::Cuda) if long_only => "typedef long op2_ll;",
            (Ty::U64, Dialect::Cuda) if long_only => "typedef unsigned long op2_ull;",
            (Ty::I64, Dialect::Cuda) => "typedef long long op2_ll;",
            (Ty::U64, Dialect::Cuda) => "typedef unsigned long long op2_ull;",
            (Ty::Bool, Dialect::OpenCl) => "typedef uchar op2_bool;",
            (Ty::Bool, Dialect::Cuda) => "typedef unsigned char op2_bool;",
            _ => return None,
        })
    }
    pub fn bytes(self) -> usize {
        match self {
            Ty::F64 | Ty::I64 | Ty::U64 => 8,
            Ty::F32 | Ty::I32 | Ty::U32 => 4,
            Ty::Bool => 1,
        }
    }
}

/// OP2's access modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    Rw,
    Inc,
    Min,
    Max,
    /// `OP_WORK`, globals only: scratch the kernel may read and write; each
    /// element gets a private copy started from the global's value, and
    /// nothing goes back.
    Work,
}

impl Access {
    /// Does the kernel see the values before the call?
    pub fn reads(self) -> bool {
        !matches!(self, Access::Write | Access::Inc)
    }
    /// Do values go back after the call?
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }
    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "OP_READ",
            Access::Write => "OP_WRITE",
            Access::Rw => "OP_RW",
            Access::Inc => "OP_INC",
            Access::Min => "OP_MIN",
            Access::Max => "OP_MAX",
            Access::Work => "OP_WORK",
        }
    }
}

/// One argument of the loop, in the kernel's parameter order.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A dat on the loop's own set (`op_arg_dat(d, -1, OP_ID, ...)`).
    Direct(DatArg),
    /// A dat reached through `map` (an index into [`LoopDesc::maps`]):
    /// `idx >= 0` one entry, `idx < 0` all `-idx` entries (OP2's vector
    /// map argument: the kernel gets an array of pointers).
    Indirect { dat: DatArg, map: usize, idx: i32 },
    /// `op_arg_gbl`: a value the kernel reads (`Read`), a reduction (`Inc`,
    /// `Min`, `Max`) or scratch (`Work`).
    Global { dim: usize, ty: Ty, access: Access },
    /// `op_arg_idx`: the element's index (an `int`).
    Idx,
    /// `op_arg_idx(idx, map)`: entry `idx` of the element's row of `map`
    /// (an index into [`LoopDesc::maps`]), an `int`.
    IdxMap { map: usize, idx: i32 },
    /// `op_arg_info`: data that goes with the minimum or maximum of the
    /// global argument `reference` (of dim 1), e.g. where it was found: the
    /// kernel sets both; the work-groups and the host keep the info of the
    /// winning value (of the first one, on a tie).
    Info {
        reference: usize,
        dim: usize,
        ty: Ty,
    },
    /// An optional argument switched off in this call (`op_opt_arg_dat`
    /// with a 0 flag): the kernel gets a null pointer, as on the host, and
    /// nothing is staged, copied or reduced for it.
    Off,
}

impl Arg {
    /// The element type of the values the argument passes (`None` for
    /// indices and arguments switched off).
    pub fn elem_ty(&self) -> Option<Ty> {
        match self {
            Arg::Direct(d) | Arg::Indirect { dat: d, .. } => Some(d.ty),
            Arg::Global { ty, .. } | Arg::Info { ty, .. } => Some(*ty),
            Arg::Idx | Arg::IdxMap { .. } | Arg::Off => None,
        }
    }
}

/// A dat argument: which dat (`dat`, an identifier the caller chooses, equal
/// for arguments on the same dat), its dim, type, layout and access.
#[derive(Debug, Clone, PartialEq)]
pub struct DatArg {
    pub dat: usize,
    pub dim: usize,
    pub ty: Ty,
    pub soa: bool,
    pub access: Access,
    /// `op_opt_arg_dat`: the kernel gets a null pointer when the flag the
    /// launch passes is 0.
    pub optional: bool,
}

/// A map: its dim (entries per element of the loop's set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapDesc {
    pub dim: usize,
}

/// A constant declared with `op_decl_const`: its current value, written
/// into the generated code (a new value means new code).
#[derive(Debug, Clone, PartialEq)]
pub struct Const {
    pub name: String,
    pub value: ConstValue,
}

/// A constant's values (one or several: `dim`).
#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    F64(Vec<f64>),
    F32(Vec<f32>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
}

/// How increments through maps that may collide are kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Conflicts {
    /// Blocks of the plan coloured so that no two blocks of a colour touch
    /// the same element, each block's indirect data staged in local
    /// (shared) memory, increments applied colour by colour inside the
    /// block, then written back.
    Colour2,
    /// The same two-level colouring without staging: each element reads
    /// and writes its data through the maps where it lives (global memory),
    /// its writes applied thread colour by thread colour (OP2's
    /// translator-v2 `color2` configuration).
    Colour2Global,
    /// One work-item per element, reading through the maps, increments
    /// added with atomics (no plan).
    Atomics,
}

/// The dialect written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenCL C 1.2 (cl_khr_fp64; cl_khr_int64_base_atomics for double
    /// atomics).
    OpenCl,
    /// CUDA C++ for NVRTC (`-default-device`: the kernel's own functions
    /// need no `__device__`).
    Cuda,
}

/// One loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopDesc {
    /// The loop's name (`op_par_loop`'s second argument).
    pub name: String,
    /// The kernel function's name.
    pub kernel: String,
    pub args: Vec<Arg>,
    pub maps: Vec<MapDesc>,
    pub conflicts: Conflicts,
    /// No two elements touch the same row of a dat the loop writes through
    /// a map (found on the maps' values when the loop is described: aero's
    /// `dirichlet` writes through `pbnodes`, where each boundary node
    /// appears once). Such writes cannot meet: the loop runs flat in every
    /// scheme, its writes and increments plain stores and adds, no plan, no
    /// atomics, and its answers are the host's. False when unknown.
    pub disjoint_writes: bool,
    /// Dats (their ids) one element may reach twice through pointers that
    /// write without adding (OP_RW, OP_WRITE through maps, found on the
    /// maps' values: a map's row that repeats an entry, as a collapsed
    /// edge has): their private copies are one per distinct row of the
    /// element, chosen when it runs, so two of the kernel's pointers to
    /// one row are one pointer, as on the host. Empty when none.
    pub shared_rows: Vec<usize>,
}

/// A description the generator cannot write code for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenError {
    pub loop_name: String,
    pub what: String,
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop {}: {}", self.loop_name, self.what)
    }
}

impl std::error::Error for GenError {}

impl LoopDesc {
    /// Whether an element writes anything through a map (OP_INC, OP_RW or
    /// OP_WRITE on an indirect argument): only then can two elements'
    /// writes meet, so only then does the loop need colouring or atomics.
    /// A loop that only reads through maps (airfoil's adt_calc) runs flat
    /// in every [`Conflicts`] scheme: no order to fix, nothing to stage.
    pub fn writes_through_maps(&self) -> bool {
        self.args
            .iter()
            .any(|a| matches!(a, Arg::Indirect { dat, .. } if dat.access.writes()))
    }

    /// The first argument atomics cannot serve, with its access: a dat
    /// read and written (OP_RW) or written (OP_WRITE) through a map, which
    /// only colouring keeps two elements from writing at once. None when
    /// the loop can run with [`Conflicts::Atomics`], or when its writes
    /// are [`LoopDesc::disjoint_writes`] (then it runs flat in any scheme).
    pub fn needs_colouring(&self) -> Option<(usize, Access)> {
        if self.disjoint_writes {
            return None;
        }
        self.args.iter().enumerate().find_map(|(i, a)| match a {
            Arg::Indirect { dat, .. } if matches!(dat.access, Access::Rw | Access::Write) => {
                Some((i, dat.access))
            }
            _ => None,
        })
    }

    fn err(&self, what: impl Into<String>) -> GenError {
        GenError {
            loop_name: self.name.clone(),
            what: what.into(),
        }
    }

    /// One argument's own checks (see [`LoopDesc::validate`]).
    fn check_arg(&self, i: usize, a: &Arg) -> Result<(), GenError> {
        let at = |w: String| self.err(format!("argument {i}: {w}"));
        if let Arg::Info { reference, ty, .. } = a {
            let of_bool = matches!(
                self.args.get(*reference),
                Some(Arg::Global { ty: Ty::Bool, .. })
            );
            if *ty == Ty::Bool || of_bool {
                return Err(at("op_arg_info with a bool".into()));
            }
        }
        match a {
            Arg::Direct(d) | Arg::Indirect { dat: d, .. } if d.dim == 0 => {
                return Err(at("dim 0".into()))
            }
            Arg::Direct(d) if matches!(d.access, Access::Min | Access::Max | Access::Work) => {
                return Err(at(format!("{} is for globals only", d.access.name())))
            }
            Arg::Indirect { dat, map, idx } => {
                let Some(m) = self.maps.get(*map) else {
                    return Err(at(format!(
                        "map {map} is not among the loop's {} maps",
                        self.maps.len()
                    )));
                };
                if *idx >= m.dim as i32 || (*idx < 0 && (-*idx) as usize != m.dim) {
                    return Err(at(format!("idx {idx} with a map of dim {}", m.dim)));
                }
                if matches!(dat.access, Access::Min | Access::Max | Access::Work) {
                    return Err(at(format!("{} is for globals only", dat.access.name())));
                }
                if dat.ty == Ty::Bool && dat.access == Access::Inc {
                    // the increments of a block's elements are summed
                    // before they reach the dat
                    return Err(at("OP_INC through a map on a bool dat".into()));
                }
            }
            Arg::IdxMap { map, idx } => {
                let Some(m) = self.maps.get(*map) else {
                    return Err(at(format!(
                        "map {map} is not among the loop's {} maps",
                        self.maps.len()
                    )));
                };
                if *idx < 0 || *idx >= m.dim as i32 {
                    return Err(at(format!("op_arg_idx {idx} with a map of dim {}", m.dim)));
                }
            }
            Arg::Info { reference, dim, .. } => {
                let ok = matches!(
                    self.args.get(*reference),
                    Some(Arg::Global {
                        dim: 1,
                        access: Access::Min | Access::Max,
                        ..
                    })
                );
                if !ok || *dim == 0 {
                    return Err(at(format!(
                        "op_arg_info refers to argument {reference}, which is not an OP_MIN or OP_MAX global of dim 1"
                    )));
                }
            }
            Arg::Global { dim: 0, .. } => return Err(at("dim 0".into())),
            Arg::Global {
                access: a @ (Access::Write | Access::Rw),
                ..
            } => {
                return Err(at(format!(
                    "a global written with {} (on the host the last element's write wins; the device has no such order)",
                    a.name()
                )))
            }
            _ => {}
        }
        Ok(())
    }

    /// Every argument is one the generator can write: dims above 0, maps
    /// that exist, an `idx` inside the map, a dat written through a map
    /// only by `OP_INC`, `OP_RW` or `OP_WRITE` and never by two access
    /// modes, globals only `OP_READ`, `OP_INC`, `OP_MIN`, `OP_MAX` or
    /// `OP_WORK` (dats never `OP_WORK`), and a kernel name that is a C
    /// identifier.
    pub fn validate(&self) -> Result<(), GenError> {
        if !is_ident(&self.kernel) {
            return Err(self.err(format!(
                "kernel name '{}' is not a C identifier",
                self.kernel
            )));
        }
        for (i, a) in self.args.iter().enumerate() {
            self.check_arg(i, a)?;
        }
        // one access mode per indirectly reached dat
        for (i, a) in self.args.iter().enumerate() {
            if let Arg::Indirect { dat, .. } = a {
                for b in &self.args[..i] {
                    if let Arg::Indirect { dat: e, .. } = b {
                        if e.dat == dat.dat && e.access != dat.access {
                            return Err(self.err(format!(
                                "argument {i}: dat {} reached through maps with {} and {}",
                                dat.dat,
                                e.access.name(),
                                dat.access.name()
                            )));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Is `s` a C identifier?
pub fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|x| x == '_' || x.is_ascii_alphanumeric())
}
