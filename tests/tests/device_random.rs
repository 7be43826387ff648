//! A randomized differential test of the device path: from fixed seeds,
//! random op_seq.h C99 programs (2-3 sets, maps of arity 1-4 with random,
//! injective or much-repeated targets, double/float/int/long long (OP2's
//! `ll`) dats of dims 1-4,
//! loops mixing direct and indirect dats in every access mode the
//! program's order allows, vector map arguments, global reads and
//! reductions, op_arg_idx, optional arguments switched on and off,
//! constants declared again with new values; kernels that call inline
//! helpers, one calling another, a function-like macro and file-scope
//! `static const` tables, all from a header the kernels' header includes;
//! comments with braces and parentheses in and around kernels; every third
//! program's kernels in main.c itself rather than a header) built against
//! libop2_seq and
//! libop2_opencl (PoCL), libop2_cuda (the CUDA emulator) and libop2_openmp,
//! run on each, and their printed checksums compared with libop2_seq's.
//!
//! Every value a program computes is exact: dats hold multiples of 1/2 of
//! bounded size (each kernel folds what it writes back into a small range
//! through an int), increments are small, so sums come out the same in any
//! order and every printed line must be identical, bit for bit. Each
//! program checks the ranges itself (a line `R BIG ...` would be the
//! generator's fault). OP_WRITE and OP_RW through maps are generated only
//! through injective maps, except OP_RW that only adds (order-free, as
//! tests/c/device_args' `count`), several such arguments on a dat through
//! one map or several (two of them meet on a row a skewed map's row
//! repeats: the device hands both pointers one copy of it). On a device
//! every loop must run there;
//! each program runs on OpenCL in the default scheme and, in turn by seed,
//! one of `atomics`, `colour2-global`, SoA device copies (`OP_AUTO_SOA=1`),
//! work-groups of 32 (`OP_BLOCK_SIZE=32`) and 64-bit offsets
//! (`OP2_RS_WIDE_OFFSETS=1`), on the CUDA emulator in the default scheme and with
//! atomics, with a fresh compiled-program cache per test run; on threads
//! on 1 thread and, in turn, on 2 threads with the default blocks or with
//! blocks of 64. Under MPI (the programs' MPI form: each rank declares
//! its block of every set, as OP2's MPI programs do, no op_arg_idx, whose
//! values are a rank's local indices, and OP_INC globals starting at zero,
//! since each rank's starting value enters the sum as in OP2) on
//! libop2_mpi and libop2_mpi_opencl over 2 and 3 ranks and on
//! libop2_mpi_cuda through the CUDA emulator over 2, partitioned k-way
//! or at random. Failures
//! of all seeds are collected and reported together (seed, variant, first
//! differing lines); a program's sources stay in
//! target/op2-tests/device_random/<tag>/seed<seed>/. `OP2_RS_TEST_SEEDS`
//! runs other seeds (a longer search by hand).

use op2_tests::{cuda_emu_dir, mpirun, out_dir, placements, run_in, Lang, Program, Run};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// splitmix64: small, deterministic, good enough for test generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// lo..=hi
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64) / ((1u64 << 53) as f64) < p
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    D,
    F,
    I,
    /// `long long`, OP2's `ll`
    L,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::D => "double",
            Ty::F => "float",
            Ty::I => "int",
            Ty::L => "long long",
        }
    }
    /// OP2's type string.
    fn op2(self) -> &'static str {
        match self {
            Ty::L => "ll",
            t => t.c(),
        }
    }
    /// A literal of this type worth `halves / 2` (ints: `halves` itself).
    fn lit(self, halves: i64) -> String {
        match self {
            Ty::D => format!("{:.1}", halves as f64 / 2.0),
            Ty::F => format!("{:.1}f", halves as f64 / 2.0),
            Ty::I | Ty::L => format!("{halves}"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MapKind {
    /// every target row at most once
    Injective,
    /// targets drawn uniformly
    Uniform,
    /// targets drawn from a small pool of rows: many repeats
    Skewed,
}

struct SetDef {
    size: usize,
}

struct MapDef {
    from: usize,
    to: usize,
    arity: usize,
    kind: MapKind,
    pool: usize,
}

struct DatDef {
    set: usize,
    dim: usize,
    ty: Ty,
    soa: bool,
}

struct ConstDef {
    ty: Ty,
    dim: usize,
    vals: Vec<i64>,
    /// declared again with these after the first pass
    again: Option<Vec<i64>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Acc {
    Read,
    Write,
    Rw,
    Inc,
    /// OP_RW whose kernel only adds to the value (order-free)
    RwAdd,
    Min,
    Max,
}

impl Acc {
    fn c(self) -> &'static str {
        match self {
            Acc::Read => "OP_READ",
            Acc::Write => "OP_WRITE",
            Acc::Rw | Acc::RwAdd => "OP_RW",
            Acc::Inc => "OP_INC",
            Acc::Min => "OP_MIN",
            Acc::Max => "OP_MAX",
        }
    }
}

#[derive(Clone, Debug)]
enum Arg {
    /// `map`: (map, idx) with idx -arity for a vector argument; `opt`: the
    /// flag of op_opt_arg_dat
    Dat {
        dat: usize,
        map: Option<(usize, i64)>,
        acc: Acc,
        opt: Option<&'static str>,
    },
    Gbl {
        ty: Ty,
        dim: usize,
        acc: Acc,
        init: Vec<i64>,
    },
    /// op_arg_idx: None for (-1, OP_ID)
    Idx { map: Option<(usize, usize)> },
}

struct LoopDef {
    set: usize,
    args: Vec<Arg>,
    consts: Vec<usize>,
    /// print the dats it writes after it
    print: bool,
}

struct Prog {
    sets: Vec<SetDef>,
    maps: Vec<MapDef>,
    dats: Vec<DatDef>,
    consts: Vec<ConstDef>,
    loops: Vec<LoopDef>,
    data_seed: u64,
}

const NPASS: usize = 2;

/// Sizes from a few hundred to a few thousand, never a power of two; a
/// third of them above 4096, where libop2_openmp's loops run on threads
/// (smaller ones run on the calling thread).
fn set_size(r: &mut Rng) -> usize {
    let n = if r.chance(0.33) {
        r.range(4100, 9000)
    } else {
        r.range(150, 2600)
    } as usize;
    if n.is_power_of_two() {
        n + 3
    } else {
        n
    }
}

fn gen_prog(seed: u64) -> Prog {
    let mut r = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x1234_5678);
    let nsets = r.range(2, 3) as usize;
    let sets: Vec<SetDef> = (0..nsets)
        .map(|_| SetDef {
            size: set_size(&mut r),
        })
        .collect();
    let mut maps = Vec::new();
    let nmaps = r.range(2, 4) as usize;
    for k in 0..nmaps {
        let from = r.below(nsets);
        let to = r.below(nsets);
        let (nf, nt) = (sets[from].size, sets[to].size);
        // the first map injective when the sizes allow, the second skewed
        let want = match k {
            0 => MapKind::Injective,
            1 => MapKind::Skewed,
            _ => r.pick(&[MapKind::Injective, MapKind::Uniform, MapKind::Skewed]),
        };
        let (kind, arity) = if want == MapKind::Injective && nf <= nt {
            (
                MapKind::Injective,
                r.range(1, (nt / nf).min(4) as i64) as usize,
            )
        } else if want == MapKind::Injective {
            (MapKind::Uniform, r.range(1, 4) as usize)
        } else {
            (want, r.range(1, 4) as usize)
        };
        let pool = (nt / r.range(4, 10) as usize).max(16).min(nt);
        maps.push(MapDef {
            from,
            to,
            arity,
            kind,
            pool,
        });
    }
    let mut dats = Vec::new();
    for s in 0..nsets {
        for _ in 0..r.range(2, 4) {
            let ty = r.pick(&[Ty::D, Ty::D, Ty::F, Ty::I]);
            let ty = long_if(ty, dats.len() % 2 == 1);
            let dim = r.pick(&[1, 1, 2, 2, 3, 4]);
            let soa = ty == Ty::D && r.chance(0.15);
            dats.push(DatDef {
                set: s,
                dim,
                ty,
                soa,
            });
        }
    }
    let mut consts = Vec::new();
    for _ in 0..r.range(1, 3) {
        let ty = r.pick(&[Ty::D, Ty::I]);
        let ty = long_if(ty, consts.len() % 2 == 0);
        let dim = r.pick(&[1, 1, 2, 3]);
        let vals: Vec<i64> = (0..dim).map(|_| r.range(-6, 6)).collect();
        let again = r
            .chance(0.5)
            .then(|| (0..dim).map(|_| r.range(-6, 6)).collect());
        consts.push(ConstDef {
            ty,
            dim,
            vals,
            again,
        });
    }
    let nloops = r.range(5, 7) as usize;
    let loops = (0..nloops)
        .map(|_| gen_loop(&mut r, &sets, &maps, &dats, consts.len()))
        .collect();
    Prog {
        sets,
        maps,
        dats,
        consts,
        loops,
        data_seed: r.next() | 1,
    }
}

/// How a dat is used so far in a loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Free,
    Read,
    Inc,
    RwAdd,
    Exclusive,
}

/// The arguments of a loop over `set` picked so far, with what each dat's
/// use allows next.
struct ArgPicker<'a> {
    maps: &'a [MapDef],
    dats: &'a [DatDef],
    set: usize,
    my_maps: Vec<usize>,
    uses: Vec<Use>,
    /// (dat, map, idx) already used; idx -1 marks a vector argument
    seen: Vec<(usize, usize, i64)>,
    args: Vec<Arg>,
}

fn opt_flag(r: &mut Rng) -> Option<&'static str> {
    r.chance(0.15)
        .then(|| r.pick(&["1", "0", "(pass == 0)", "(pass == 1)"]))
}

impl ArgPicker<'_> {
    fn dats_on(&self, set: usize) -> Vec<usize> {
        (0..self.dats.len())
            .filter(|&d| self.dats[d].set == set)
            .collect()
    }

    fn direct(&mut self, r: &mut Rng) {
        let cand = self.dats_on(self.set);
        if cand.is_empty() {
            return;
        }
        let d = r.pick(&cand);
        let acc = r.pick(&[Acc::Read, Acc::Read, Acc::Write, Acc::Rw, Acc::Inc]);
        let ok = match acc {
            Acc::Read => matches!(self.uses[d], Use::Free | Use::Read),
            _ => self.uses[d] == Use::Free,
        };
        if !ok || self.seen.contains(&(d, usize::MAX, 0)) {
            return;
        }
        self.uses[d] = if acc == Acc::Read {
            Use::Read
        } else {
            Use::Exclusive
        };
        self.seen.push((d, usize::MAX, 0));
        self.args.push(Arg::Dat {
            dat: d,
            map: None,
            acc,
            opt: opt_flag(r),
        });
    }

    /// Through a map, one column.
    fn column(&mut self, r: &mut Rng) {
        let m = r.pick(&self.my_maps);
        let cand = self.dats_on(self.maps[m].to);
        if cand.is_empty() {
            return;
        }
        // half the time, another OP_RW that adds on a dat that has one
        let again: Vec<usize> = cand
            .iter()
            .copied()
            .filter(|&d| self.uses[d] == Use::RwAdd)
            .collect();
        let (d, acc) = if !again.is_empty() && r.chance(0.5) {
            (r.pick(&again), Acc::RwAdd)
        } else {
            let d = r.pick(&cand);
            let acc = r.pick(&[
                Acc::Read,
                Acc::Read,
                Acc::Inc,
                Acc::Inc,
                Acc::Write,
                Acc::Rw,
                Acc::RwAdd,
            ]);
            (d, acc)
        };
        let idx = r.below(self.maps[m].arity) as i64;
        let inj = self.maps[m].kind == MapKind::Injective;
        let u = self.uses[d];
        let ok = match acc {
            Acc::Read => matches!(u, Use::Free | Use::Read),
            Acc::Inc => matches!(u, Use::Free | Use::Inc),
            // several on a dat, through one map or several: two of them
            // meet on a row that a map's row repeats, where the device
            // hands both pointers one copy of the row
            Acc::RwAdd => matches!(u, Use::Free | Use::RwAdd),
            _ => inj && u == Use::Free,
        };
        if !ok || self.seen.contains(&(d, m, idx)) || self.seen.contains(&(d, m, -1)) {
            return;
        }
        self.uses[d] = match acc {
            Acc::Read => Use::Read,
            Acc::Inc => Use::Inc,
            Acc::RwAdd => Use::RwAdd,
            _ => Use::Exclusive,
        };
        self.seen.push((d, m, idx));
        self.args.push(Arg::Dat {
            dat: d,
            map: Some((m, idx)),
            acc,
            opt: opt_flag(r),
        });
    }

    /// The maps a vector argument can use: arity 2 or more, as idx -1 is
    /// a direct argument's (OP2 reads idx < -1 as a vector).
    fn vector_maps(&self) -> Vec<usize> {
        self.my_maps
            .iter()
            .copied()
            .filter(|&m| self.maps[m].arity > 1)
            .collect()
    }

    /// A vector argument (all columns).
    fn vector(&mut self, r: &mut Rng) {
        let m = r.pick(&self.vector_maps());
        let cand = self.dats_on(self.maps[m].to);
        if cand.is_empty() {
            return;
        }
        let d = r.pick(&cand);
        let acc = r.pick(&[Acc::Read, Acc::Inc]);
        let ok = match acc {
            Acc::Read => matches!(self.uses[d], Use::Free | Use::Read),
            _ => matches!(self.uses[d], Use::Free | Use::Inc),
        };
        if !ok || self.seen.iter().any(|&(x, y, _)| x == d && y == m) {
            return;
        }
        self.uses[d] = if acc == Acc::Read {
            Use::Read
        } else {
            Use::Inc
        };
        self.seen.push((d, m, -1));
        self.args.push(Arg::Dat {
            dat: d,
            map: Some((m, -(self.maps[m].arity as i64))),
            acc,
            opt: None,
        });
    }

    fn global(&mut self, r: &mut Rng) {
        let ty = r.pick(&[Ty::D, Ty::I]);
        let ty = long_if(ty, self.args.len() % 2 == 1);
        let dim = r.range(1, 3) as usize;
        let acc = r.pick(&[Acc::Read, Acc::Inc, Acc::Min, Acc::Max]);
        let init = (0..dim)
            .map(|_| match (acc, r.below(3)) {
                (Acc::Min, 0) => 20000,
                (Acc::Max, 0) => -20000,
                _ => r.range(-40, 40),
            })
            .collect();
        self.args.push(Arg::Gbl { ty, dim, acc, init });
    }

    fn idx(&mut self, r: &mut Rng) {
        let map = if !self.my_maps.is_empty() && r.chance(0.6) {
            let m = r.pick(&self.my_maps);
            Some((m, r.below(self.maps[m].arity)))
        } else {
            None
        };
        self.args.push(Arg::Idx { map });
    }
}

fn gen_loop(
    r: &mut Rng,
    sets: &[SetDef],
    maps: &[MapDef],
    dats: &[DatDef],
    nconst: usize,
) -> LoopDef {
    let from_sets: Vec<usize> = maps.iter().map(|m| m.from).collect();
    let set = if r.chance(0.85) {
        r.pick(&from_sets)
    } else {
        r.below(sets.len())
    };
    let mut p = ArgPicker {
        maps,
        dats,
        set,
        my_maps: (0..maps.len()).filter(|&m| maps[m].from == set).collect(),
        uses: vec![Use::Free; dats.len()],
        seen: Vec::new(),
        args: Vec::new(),
    };
    let nargs = r.range(2, 8) as usize;
    for _ in 0..60 {
        if p.args.len() >= nargs {
            break;
        }
        match r.below(12) {
            0..=2 => p.direct(r),
            3..=6 if !p.my_maps.is_empty() => p.column(r),
            7 if !p.vector_maps().is_empty() => p.vector(r),
            8..=10 => p.global(r),
            11 => p.idx(r),
            _ => {}
        }
    }
    let mut args = p.args;
    let writes = args.iter().any(|a| match a {
        Arg::Dat { acc, .. } | Arg::Gbl { acc, .. } => *acc != Acc::Read,
        Arg::Idx { .. } => false,
    });
    if !writes {
        args.push(Arg::Gbl {
            ty: Ty::D,
            dim: 1,
            acc: Acc::Inc,
            init: vec![3],
        });
    }
    let nc = r.range(0, 2.min(nconst as i64)) as usize;
    let mut consts = Vec::new();
    for _ in 0..nc {
        let c = r.below(nconst);
        if !consts.contains(&c) {
            consts.push(c);
        }
    }
    LoopDef {
        set,
        args,
        consts,
        print: r.chance(0.75),
    }
}

/// A value a kernel reads: its C expression and type.
struct Input {
    param: Option<usize>,
    expr: String,
}

/// One assignment of a kernel: `target` (a C lvalue of type `ty`), what it
/// does, the terms of its expression.
struct Stmt {
    target: String,
    ty: Ty,
    acc: Acc,
    /// the optional argument's parameter that guards it
    guard: Option<String>,
    terms: Vec<String>,
    offset: i64,
}

/// What of helpers.h a program's kernels use (by type: D, F, I).
#[derive(Default, Clone, Copy)]
struct Helpers {
    /// `h_abs_<t>`: an inline function
    abs: [bool; 4],
    /// `h_mix_<t>`: an inline function that calls `h_abs_<t>`
    mix: [bool; 4],
    /// `tab_<t>`: a file-scope `static const` table of coefficients
    tab: [bool; 4],
}

impl Helpers {
    fn merge(&mut self, o: &Helpers) {
        for t in 0..4 {
            self.abs[t] |= o.abs[t];
            self.mix[t] |= o.mix[t];
            self.tab[t] |= o.tab[t];
        }
    }
}

/// An int made a long long where `turn` says (every other int dat,
/// constant, global), drawing no random number: the programs of earlier
/// seeds keep their shape.
fn long_if(ty: Ty, turn: bool) -> Ty {
    if ty == Ty::I && turn {
        Ty::L
    } else {
        ty
    }
}

fn ty_index(ty: Ty) -> usize {
    match ty {
        Ty::D => 0,
        Ty::F => 1,
        Ty::I => 2,
        Ty::L => 3,
    }
}

fn ty_suffix(ty: Ty) -> &'static str {
    ["d", "f", "i", "l"][ty_index(ty)]
}

/// The tables' values (exact in every type).
const TAB: [&str; 4] = ["0.5", "-1.0", "2.0", "1.5"];
const TAB_I: [&str; 4] = ["1", "-1", "2", "3"];

/// helpers.h: what the kernels use of it, with none of the rest (an
/// unused table would be a C warning).
fn helpers_h(h: &Helpers) -> String {
    let mut s = String::from(
        "/* helpers.h: what the random kernels call (tests/tests/device_random.rs) */\n\
         #ifndef RANDOM_HELPERS_H\n#define RANDOM_HELPERS_H\n\n#define TWICE(x) ((x) + (x))\n\n",
    );
    for ty in [Ty::D, Ty::F, Ty::I, Ty::L] {
        let (t, c, x) = (ty_index(ty), ty.c(), ty_suffix(ty));
        if h.tab[t] {
            let vals: Vec<String> = match ty {
                Ty::I | Ty::L => TAB_I.iter().map(|v| v.to_string()).collect(),
                Ty::F => TAB.iter().map(|v| format!("{v}f")).collect(),
                Ty::D => TAB.iter().map(|v| v.to_string()).collect(),
            };
            let _ = writeln!(s, "static const {c} tab_{x}[4] = {{{}}};", vals.join(", "));
        }
        if h.abs[t] || h.mix[t] {
            let _ = writeln!(
                s,
                "static inline {c} h_abs_{x}({c} v) {{\n  return v < 0 ? -v : v;\n}}"
            );
        }
        if h.mix[t] {
            let _ = writeln!(
                s,
                "static inline {c} h_mix_{x}({c} v, {c} w) {{\n  {c} a = h_abs_{x}(v);\n  return a - w;\n}}"
            );
        }
    }
    s.push_str("\n#endif\n");
    s
}

fn term(r: &mut Rng, input: &Input, ty: Ty, h: &mut Helpers) -> String {
    let t = ty_index(ty);
    let coef = if r.chance(0.15) {
        h.tab[t] = true;
        format!("tab_{}[{}]", ty_suffix(ty), r.below(4))
    } else {
        match ty {
            Ty::D => r
                .pick(&["0.5", "1.0", "-1.0", "2.0", "-0.25", "1.5", "3.0"])
                .to_string(),
            Ty::F => format!("{}f", r.pick(&["0.5", "1.0", "-1.0", "2.0", "1.5", "3.0"])),
            Ty::I | Ty::L => r.pick(&["1", "-1", "2", "3", "-2"]).to_string(),
        }
    };
    let x = format!("({})({})", ty.c(), input.expr);
    let x = match r.below(20) {
        0..=2 => {
            h.abs[t] = true;
            format!("h_abs_{}({x})", ty_suffix(ty))
        }
        // (TWICE, a function-like macro, is always in helpers.h: an
        // unused macro is no warning)
        3 | 4 => format!("TWICE({x})"),
        5 => {
            h.mix[t] = true;
            format!("h_mix_{}({x}, {})", ty_suffix(ty), ty.lit(r.range(-3, 3)))
        }
        _ => x,
    };
    format!("{coef} * {x}")
}

/// `e` folded into a small range: multiples of 1/2 (ints: integers) under
/// `m / 2` (ints: `m`) in size.
fn fold(ty: Ty, e: &str, m: i64) -> String {
    match ty {
        Ty::D => format!("(double)((int)(({e}) * 2.0) % {m}) * 0.5"),
        Ty::F => format!("(float)((int)(({e}) * 2.0f) % {m}) * 0.5f"),
        Ty::I | Ty::L => format!("(({e}) % {m})"),
    }
}

fn render_stmt(s: &Stmt) -> String {
    let mut e = s.ty.lit(s.offset);
    for t in &s.terms {
        let _ = write!(e, " + {t}");
    }
    let body = match s.acc {
        Acc::Write => format!("{} = {};", s.target, fold(s.ty, &e, 2001)),
        Acc::Rw => {
            let c = match s.ty {
                Ty::I | Ty::L => "2",
                Ty::F => "0.5f",
                Ty::D => "0.5",
            };
            format!(
                "{t} = {};",
                fold(s.ty, &format!("{} * {c} + {e}", s.target), 2001),
                t = s.target
            )
        }
        Acc::Inc | Acc::RwAdd => format!("{} += {};", s.target, fold(s.ty, &e, 7)),
        Acc::Min | Acc::Max => {
            let op = if s.acc == Acc::Min { "<" } else { ">" };
            format!(
                "{{ {} v = {}; if (v {op} {t}) {t} = v; }}",
                s.ty.c(),
                fold(s.ty, &e, 2001),
                t = s.target
            )
        }
        Acc::Read => unreachable!(),
    };
    match &s.guard {
        Some(g) => format!("  if ({g}) {{ {body} }}\n"),
        None => format!("  {body}\n"),
    }
}

fn dat_name(d: usize) -> String {
    format!("dat_{d}")
}

fn type_str(d: &DatDef) -> String {
    if d.soa {
        format!("{}:soa", d.ty.op2())
    } else {
        d.ty.op2().to_string()
    }
}

/// A kernel being written: its parameters, what it reads, what it
/// assigns, and the op_par_loop call's arguments.
#[derive(Default)]
struct KernelParts {
    params: Vec<String>,
    inputs: Vec<Input>,
    stmts: Vec<Stmt>,
    call: Vec<String>,
    helpers: Helpers,
}

impl KernelParts {
    /// Argument `i`, a dat `dat` on `map` (None: direct).
    fn dat(
        &mut self,
        r: &mut Rng,
        p: &Prog,
        i: usize,
        a: (usize, Option<(usize, i64)>, Acc, Option<&str>),
    ) {
        let (dat, map, acc, opt) = a;
        let pn = format!("p{i}");
        let d = &p.dats[dat];
        let vector = matches!(map, Some((_, idx)) if idx < 0);
        let cnst = if acc == Acc::Read { "const " } else { "" };
        let stars = if vector { "**" } else { "*" };
        self.params.push(format!("{cnst}{} {stars}{pn}", d.ty.c()));
        let (idx, mapname) = match map {
            Some((m, idx)) => (idx, format!("map_{m}")),
            None => (-1, "OP_ID".to_string()),
        };
        let rest = format!(
            "{}, {idx}, {mapname}, {}, \"{}\", {})",
            dat_name(dat),
            d.dim,
            type_str(d),
            acc.c()
        );
        self.call.push(match opt {
            Some(f) => format!("op_opt_arg_dat({f}, {rest}"),
            None => format!("op_arg_dat({rest}"),
        });
        let cols = if vector { -idx as usize } else { 1 };
        let at = |j: usize, c: usize| {
            if vector {
                format!("{pn}[{j}][{c}]")
            } else {
                format!("{pn}[{c}]")
            }
        };
        let places = (0..cols).flat_map(|j| (0..d.dim).map(move |c| (j, c)));
        if matches!(acc, Acc::Read | Acc::Rw) {
            for (j, c) in places.clone() {
                // an optional argument switched off is a null pointer
                let expr = match opt {
                    Some(_) => format!("({pn} ? {} : 1)", at(j, c)),
                    None => at(j, c),
                };
                self.inputs.push(Input {
                    param: Some(i),
                    expr,
                });
            }
        }
        if acc != Acc::Read {
            for (j, c) in places {
                self.stmts.push(Stmt {
                    target: at(j, c),
                    ty: d.ty,
                    acc,
                    guard: opt.map(|_| pn.clone()),
                    terms: Vec::new(),
                    offset: r.range(-5, 5),
                });
            }
        }
    }

    /// Argument `i` of loop `k`, a global.
    fn global(&mut self, r: &mut Rng, k: usize, i: usize, (ty, dim, acc): (Ty, usize, Acc)) {
        let pn = format!("p{i}");
        let cnst = if acc == Acc::Read { "const " } else { "" };
        self.params.push(format!("{cnst}{} *{pn}", ty.c()));
        self.call.push(format!(
            "op_arg_gbl(gbl_{k}_{i}, {dim}, \"{}\", {})",
            ty.op2(),
            acc.c()
        ));
        for c in 0..dim {
            if acc == Acc::Read {
                self.inputs.push(Input {
                    param: Some(i),
                    expr: format!("{pn}[{c}]"),
                });
            } else {
                self.stmts.push(Stmt {
                    target: format!("{pn}[{c}]"),
                    ty,
                    acc,
                    guard: None,
                    terms: Vec::new(),
                    offset: r.range(-5, 5),
                });
            }
        }
    }

    fn idx(&mut self, i: usize, map: Option<(usize, usize)>) {
        let pn = format!("p{i}");
        self.params.push(format!("const int *{pn}"));
        self.call.push(match map {
            Some((m, j)) => format!("op_arg_idx({j}, map_{m})"),
            None => "op_arg_idx(-1, OP_ID)".to_string(),
        });
        self.inputs.push(Input {
            param: Some(i),
            expr: format!("(*{pn} % 13)"),
        });
    }

    /// Random terms in every statement, then every parameter read
    /// somewhere (and about half the constants' values).
    fn spread_terms(&mut self, r: &mut Rng, nargs: usize) {
        let (inputs, stmts, h) = (&self.inputs, &mut self.stmts, &mut self.helpers);
        let mut used = vec![false; nargs];
        for s in stmts.iter_mut() {
            if inputs.is_empty() {
                break;
            }
            for _ in 0..r.range(1, 3) {
                let inp = &inputs[r.below(inputs.len())];
                s.terms.push(term(r, inp, s.ty, h));
                if let Some(pi) = inp.param {
                    used[pi] = true;
                }
            }
        }
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, r.below(i + 1));
        }
        for &ii in &order {
            let inp = &inputs[ii];
            let pi = match inp.param {
                Some(pi) if !used[pi] => pi,
                None if r.chance(0.5) => usize::MAX,
                _ => continue,
            };
            let si = r.below(stmts.len());
            let ty = stmts[si].ty;
            stmts[si].terms.push(term(r, inp, ty, h));
            if pi != usize::MAX {
                used[pi] = true;
            }
        }
    }
}

/// The kernel's C source and the op_par_loop call's arguments.
fn gen_kernel(r: &mut Rng, p: &Prog, k: usize) -> (String, Vec<String>, Helpers) {
    let l = &p.loops[k];
    let mut kp = KernelParts::default();
    for (i, a) in l.args.iter().enumerate() {
        match a {
            Arg::Dat { dat, map, acc, opt } => kp.dat(r, p, i, (*dat, *map, *acc, *opt)),
            Arg::Gbl { ty, dim, acc, .. } => kp.global(r, k, i, (*ty, *dim, *acc)),
            Arg::Idx { map } => kp.idx(i, *map),
        }
    }
    for &c in &l.consts {
        let cd = &p.consts[c];
        for j in 0..cd.dim {
            let expr = if cd.dim == 1 {
                format!("cst_{c}")
            } else {
                format!("cst_{c}[{j}]")
            };
            kp.inputs.push(Input { param: None, expr });
        }
    }
    kp.spread_terms(r, l.args.len());
    // comments with braces and parentheses in them, where a reader of the
    // source that counted them would lose the kernel's end
    let lead = if r.chance(0.3) { "/* args ( */ " } else { "" };
    let mut src = format!(
        "static inline void kern_{k}({lead}{}) {{\n",
        kp.params.join(", ")
    );
    if r.chance(0.5) {
        let _ = writeln!(src, "  /* loop {k}: a }} and a ( in a comment */");
    }
    for s in &kp.stmts {
        src.push_str(&render_stmt(s));
    }
    if r.chance(0.5) {
        src.push_str("  // a closing } in a line comment\n");
    }
    src.push_str("}\n\n");
    (src, kp.call, kp.helpers)
}

fn data_init(ty: Ty) -> &'static str {
    match ty {
        Ty::D => "(double)rnd_range(-64, 64) * 0.5",
        Ty::F => "(float)rnd_range(-64, 64) * 0.5f",
        Ty::I | Ty::L => "rnd_range(-40, 40)",
    }
}

const C_PRELUDE: &str = r#"/* random values from one fixed seed (xorshift64*) */
static unsigned long long rnd_state;
static unsigned long long rnd(void) {
  rnd_state ^= rnd_state >> 12;
  rnd_state ^= rnd_state << 25;
  rnd_state ^= rnd_state >> 27;
  return rnd_state * 2685821657736338717ULL;
}
static int rnd_below(int n) { return (int)(rnd() % (unsigned long long)n); }
static int rnd_range(int lo, int hi) { return lo + rnd_below(hi - lo + 1); }

static int dump;
/* the rank that prints (every rank under MPI computes the same lines) */
static int root = 1;

"#;

const SHOW_D: &str = r#"/* a checksum weighing each value by its place, and the range check */
static void show_d(const char *what, op_dat dat, int n, int dim, double limit) {
  double *v = (double *)malloc(sizeof(double) * (size_t)(n * dim));
  double s = 0.0;
  int i, big = 0;
  FETCH(dat, v, n);
  for (i = 0; i < n * dim; i++) {
    s += v[i] * (double)((i * 7) % 31 + 1);
    if (v[i] > limit || v[i] < -limit) big = 1;
    if (dump && root) printf("D %s %d %.17g\n", what, i, v[i]);
  }
  if (root) printf("R %s %.17g\n", what, s);
  if (big && root) printf("R BIG %s\n", what);
  free(v);
}
"#;
const SHOW_F: &str = r#"static void show_f(const char *what, op_dat dat, int n, int dim, double limit) {
  float *v = (float *)malloc(sizeof(float) * (size_t)(n * dim));
  double s = 0.0;
  int i, big = 0;
  FETCH(dat, v, n);
  for (i = 0; i < n * dim; i++) {
    s += (double)v[i] * (double)((i * 7) % 31 + 1);
    if (v[i] > limit || v[i] < -limit) big = 1;
    if (dump && root) printf("D %s %d %.9g\n", what, i, (double)v[i]);
  }
  if (root) printf("R %s %.17g\n", what, s);
  if (big && root) printf("R BIG %s\n", what);
  free(v);
}
"#;
const SHOW_I: &str = r#"static void show_i(const char *what, op_dat dat, int n, int dim, double limit) {
  int *v = (int *)malloc(sizeof(int) * (size_t)(n * dim));
  long long s = 0;
  int i, big = 0;
  FETCH(dat, v, n);
  for (i = 0; i < n * dim; i++) {
    s += (long long)v[i] * ((i * 7) % 31 + 1);
    if (v[i] > limit || v[i] < -limit) big = 1;
    if (dump && root) printf("D %s %d %d\n", what, i, v[i]);
  }
  if (root) printf("R %s %lld\n", what, s);
  if (big && root) printf("R BIG %s\n", what);
  free(v);
}
"#;
const SHOW_L: &str = r#"static void show_l(const char *what, op_dat dat, int n, int dim, double limit) {
  long long *v = (long long *)malloc(sizeof(long long) * (size_t)(n * dim));
  long long s = 0;
  int i, big = 0;
  FETCH(dat, v, n);
  for (i = 0; i < n * dim; i++) {
    s += v[i] * ((i * 7) % 31 + 1);
    if ((double)v[i] > limit || (double)v[i] < -limit) big = 1;
    if (dump && root) printf("D %s %d %lld\n", what, i, v[i]);
  }
  if (root) printf("R %s %lld\n", what, s);
  if (big && root) printf("R BIG %s\n", what);
  free(v);
}
"#;

/// The checksum and range check of a dat of each type.
const C_SHOW: [&str; 4] = [SHOW_D, SHOW_F, SHOW_I, SHOW_L];

fn limit(ty: Ty) -> &'static str {
    match ty {
        Ty::D => "1048576.0",
        Ty::F => "65536.0",
        Ty::I | Ty::L => "16777216.0",
    }
}

fn show_call(p: &Prog, d: usize, what: &str) -> String {
    let dd = &p.dats[d];
    let f = match dd.ty {
        Ty::D => "show_d",
        Ty::F => "show_f",
        Ty::I => "show_i",
        Ty::L => "show_l",
    };
    format!(
        "{f}({what}, {}, {}, {}, {});\n",
        dat_name(d),
        p.sets[dd.set].size,
        dd.dim,
        limit(dd.ty)
    )
}

/// kernels.h and helpers.h of a program and each loop's op_par_loop
/// arguments.
fn gen_kernels(seed: u64, p: &Prog) -> ([String; 2], Vec<Vec<String>>) {
    let mut r = Rng(seed ^ 0xdead_beef_cafe);
    let mut kernels = format!(
        "/* kernels.h: the kernels of random program {seed} (tests/tests/device_random.rs) */\n\
         #ifndef RANDOM_KERNELS_H\n#define RANDOM_KERNELS_H\n\n#include \"helpers.h\"\n\n"
    );
    let mut calls = Vec::new();
    let mut helpers = Helpers::default();
    for k in 0..p.loops.len() {
        let (src, call, h) = gen_kernel(&mut r, p, k);
        kernels.push_str(&src);
        calls.push(call);
        helpers.merge(&h);
    }
    kernels.push_str("#endif\n");
    ([kernels, helpers_h(&helpers)], calls)
}

/// Where this rank's block of set `s` starts in rows of `width` values
/// (the program's MPI form: each rank declares its block of the global
/// arrays); nothing in the program's one-process form.
fn block(mpi: bool, s: usize, width: usize) -> String {
    if mpi {
        format!(" + (size_t)start_{s} * {width}")
    } else {
        String::new()
    }
}

/// The maps' values (from the program's own random numbers) and their
/// declarations.
fn decl_maps(m: &mut String, p: &Prog, mpi: bool) {
    for (k, md) in p.maps.iter().enumerate() {
        let n = p.sets[md.from].size * md.arity;
        let nt = p.sets[md.to].size;
        let _ = writeln!(m, "  int *map_{k}_data = (int *)malloc(sizeof(int) * {n});");
        match md.kind {
            MapKind::Injective => {
                let _ = writeln!(
                    m,
                    "  {{\n    int *perm = (int *)malloc(sizeof(int) * {nt});\n    \
                     for (i = 0; i < {nt}; i++) perm[i] = i;\n    \
                     for (i = {nt} - 1; i > 0; i--) {{\n      int j = rnd_below(i + 1), t = perm[i];\n      \
                     perm[i] = perm[j];\n      perm[j] = t;\n    }}\n    \
                     for (i = 0; i < {n}; i++) map_{k}_data[i] = perm[i];\n    free(perm);\n  }}"
                );
            }
            MapKind::Uniform => {
                let _ = writeln!(
                    m,
                    "  for (i = 0; i < {n}; i++) map_{k}_data[i] = rnd_below({nt});"
                );
            }
            MapKind::Skewed => {
                // a pool of rows, one of them hot (a quarter of all entries)
                let _ = writeln!(
                    m,
                    "  {{\n    int pool[{pool}], j;\n    for (j = 0; j < {pool}; j++) pool[j] = rnd_below({nt});\n    \
                     for (i = 0; i < {n}; i++) map_{k}_data[i] = rnd_below(4) == 0 ? pool[0] : pool[rnd_below({pool})];\n  }}",
                    pool = md.pool
                );
            }
        }
        let _ = writeln!(
            m,
            "  op_map map_{k} = op_decl_map(set_{}, set_{}, {}, map_{k}_data{}, \"map_{k}\");\n  (void)map_{k};",
            md.from,
            md.to,
            md.arity,
            block(mpi, md.from, md.arity)
        );
    }
}

fn decl_dats(m: &mut String, p: &Prog, mpi: bool) {
    for (d, dd) in p.dats.iter().enumerate() {
        let n = p.sets[dd.set].size * dd.dim;
        let _ = writeln!(
            m,
            "  {t} *{name}_data = ({t} *)malloc(sizeof({t}) * {n});\n  \
             for (i = 0; i < {n}; i++) {name}_data[i] = {init};\n  \
             op_dat {name} = op_decl_dat(set_{}, {}, \"{}\", {name}_data{}, \"{name}\");",
            dd.set,
            dd.dim,
            type_str(dd),
            block(mpi, dd.set, dd.dim),
            t = dd.ty.c(),
            name = dat_name(d),
            init = data_init(dd.ty)
        );
    }
}

/// Constant `c` set to `vals` and declared (again).
fn decl_const(m: &mut String, c: usize, cd: &ConstDef, vals: &[i64]) {
    if cd.dim == 1 {
        let _ = writeln!(m, "  cst_{c} = {};", cd.ty.lit(vals[0]));
        let _ = writeln!(m, "  op_decl_const(1, \"{}\", &cst_{c});", cd.ty.op2());
    } else {
        for (j, v) in vals.iter().enumerate() {
            let _ = writeln!(m, "  cst_{c}[{j}] = {};", cd.ty.lit(*v));
        }
        let _ = writeln!(
            m,
            "  op_decl_const({}, \"{}\", cst_{c});",
            cd.dim,
            cd.ty.op2()
        );
    }
}

/// Loop `k` in main's passes: its globals, the call, the reductions and
/// the dats it wrote printed.
fn loop_code(m: &mut String, p: &Prog, k: usize, call: &[String]) {
    let l = &p.loops[k];
    let _ = writeln!(m, "    {{ /* loop {k} */");
    for (i, a) in l.args.iter().enumerate() {
        if let Arg::Gbl { ty, dim, init, .. } = a {
            let vals: Vec<String> = init.iter().map(|v| ty.lit(*v)).collect();
            let _ = writeln!(
                m,
                "      {} gbl_{k}_{i}[{dim}] = {{{}}};",
                ty.c(),
                vals.join(", ")
            );
        }
    }
    let _ = writeln!(
        m,
        "      op_par_loop(kern_{k}, \"kern_{k}\", set_{},\n        {});",
        l.set,
        call.join(",\n        ")
    );
    for (i, a) in l.args.iter().enumerate() {
        let Arg::Gbl { ty, dim, acc, .. } = a else {
            continue;
        };
        if *acc == Acc::Read {
            continue;
        }
        let mut fmt = format!("R pass %d kern_{k} gbl_{i}");
        let mut vals = String::new();
        for c in 0..*dim {
            fmt.push_str(match ty {
                Ty::I => " %d",
                Ty::L => " %lld",
                Ty::D | Ty::F => " %.17g",
            });
            let _ = write!(vals, ", gbl_{k}_{i}[{c}]");
        }
        let _ = writeln!(m, "      if (root) printf(\"{fmt}\\n\", pass{vals});");
    }
    if l.print {
        let mut shown = Vec::new();
        for a in &l.args {
            if let Arg::Dat { dat, acc, .. } = a {
                if *acc != Acc::Read && !shown.contains(dat) {
                    shown.push(*dat);
                }
            }
        }
        for d in shown {
            let _ = writeln!(
                m,
                "      if (root) printf(\"R pass %d after kern_{k}\\n\", pass);"
            );
            m.push_str("      ");
            m.push_str(&show_call(p, d, &format!("\"{}\"", dat_name(d))));
        }
    }
    m.push_str("    }\n");
}

/// What the program's MPI form declares beside the one-process form: the
/// rank, the root, and where each set's block starts.
const C_MPI_MAIN: &str = r#"  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  root = op_is_root();
"#;

/// The partition of the MPI form: `RND_PART=RANDOM` OP2's random
/// partitioner, otherwise a k-way graph partition through map 0.
fn partition_call(p: &Prog) -> String {
    format!(
        "  if (getenv(\"RND_PART\") != NULL && strcmp(getenv(\"RND_PART\"), \"RANDOM\") == 0)\n    \
         op_partition(\"RANDOM\", \"\", set_0, NULL, NULL);\n  else\n    \
         op_partition(\"PTSCOTCH\", \"KWAY\", set_{}, map_0, NULL);\n",
        p.maps[0].from
    )
}

/// main.c up to its declarations: headers, constants, the kernels (their
/// header, or `kernels` itself for every third seed), helpers, op_init and
/// the sets (under MPI, each rank's contiguous block of each).
fn main_head(seed: u64, p: &Prog, mpi: bool, kernels: &str) -> String {
    let mut m = String::new();
    let _ = writeln!(
        m,
        "/* main.c: random program {seed} (tests/tests/device_random.rs){} */",
        if mpi {
            ", each rank declaring its block"
        } else {
            ""
        }
    );
    m.push_str("#include <stdio.h>\n#include <stdlib.h>\n");
    if mpi {
        m.push_str("#include <string.h>\n\n#include <mpi.h>\n");
    }
    m.push_str("\n#include \"op_seq.h\"\n\n");
    for (c, cd) in p.consts.iter().enumerate() {
        if cd.dim == 1 {
            let _ = writeln!(m, "{} cst_{c};", cd.ty.c());
        } else {
            let _ = writeln!(m, "{} cst_{c}[{}];", cd.ty.c(), cd.dim);
        }
    }
    // every third program has its kernels in main.c itself
    if seed.is_multiple_of(3) {
        let _ = write!(
            m,
            "\n/* the kernels, here rather than in a header */\n{kernels}\n"
        );
    } else {
        m.push_str("\n#include \"kernels.h\"\n\n");
    }
    m.push_str(C_PRELUDE);
    m.push_str(if mpi {
        "/* the whole set in its original order, on every rank */\n\
         #define FETCH(dat, v, n) op_fetch_data_idx(dat, v, 0, (n) - 1)\n"
    } else {
        "#define FETCH(dat, v, n) op_fetch_data(dat, v)\n"
    });
    for (ty, show) in [Ty::D, Ty::F, Ty::I, Ty::L].into_iter().zip(C_SHOW) {
        if p.dats.iter().any(|d| d.ty == ty) {
            m.push('\n');
            m.push_str(show);
        }
    }
    m.push_str("\nint main(int argc, char **argv) {\n  int pass, i;\n");
    m.push_str("  op_init(argc, argv, 1);\n  dump = getenv(\"RND_DUMP\") != NULL;\n");
    if mpi {
        m.push_str(C_MPI_MAIN);
    }
    let _ = writeln!(m, "  rnd_state = {}ULL;", p.data_seed);
    for (s, sd) in p.sets.iter().enumerate() {
        let n = sd.size;
        if mpi {
            let _ = writeln!(
                m,
                "  int start_{s} = (int)((long long){n} * rank / nranks);\n  \
                 op_set set_{s} = op_decl_set((int)((long long){n} * (rank + 1) / nranks) - start_{s}, \"set_{s}\");"
            );
        } else {
            let _ = writeln!(m, "  op_set set_{s} = op_decl_set({n}, \"set_{s}\");");
        }
    }
    m
}

/// main.c, kernels.h and helpers.h of a program (`mpi`: its MPI form, which has no
/// op_arg_idx: see [`mpi_form`]).
fn gen_sources(seed: u64, p: &Prog, mpi: bool) -> (String, [String; 2]) {
    let (kernels, calls) = gen_kernels(seed, p);
    let mut m = main_head(seed, p, mpi, &kernels[0]);
    decl_maps(&mut m, p, mpi);
    decl_dats(&mut m, p, mpi);
    if mpi {
        m.push_str(&partition_call(p));
    }
    for (c, cd) in p.consts.iter().enumerate() {
        decl_const(&mut m, c, cd, &cd.vals);
    }
    let _ = writeln!(m, "  for (pass = 0; pass < {NPASS}; pass++) {{");
    for (k, call) in calls.iter().enumerate() {
        loop_code(&mut m, p, k, call);
    }
    m.push_str("    if (pass == 0) {\n");
    for (c, cd) in p.consts.iter().enumerate() {
        if let Some(v) = &cd.again {
            let mut s = String::new();
            decl_const(&mut s, c, cd, v);
            for line in s.lines() {
                let _ = writeln!(m, "    {line}");
            }
        }
    }
    m.push_str("    }\n  }\n  if (root) printf(\"R final\\n\");\n");
    for d in 0..p.dats.len() {
        m.push_str("  ");
        m.push_str(&show_call(p, d, &format!("\"{}\"", dat_name(d))));
    }
    m.push_str("  op_timing_output();\n  op_exit();\n  return 0;\n}\n");
    (m, kernels)
}

/// A program for MPI: its loops without op_arg_idx, whose value is the
/// element's (or map entry's) index on its rank after partitioning, as in
/// OP2, and so not comparable with one process's; its OP_INC globals
/// start at zero, since every rank's starting value enters the sum (OP2's
/// op_mpi_reduce adds the ranks' copies; the library does the same).
fn mpi_form(mut p: Prog) -> Prog {
    for l in &mut p.loops {
        l.args.retain(|a| !matches!(a, Arg::Idx { .. }));
        for a in &mut l.args {
            if let Arg::Gbl {
                acc: Acc::Inc,
                init,
                ..
            } = a
            {
                init.iter_mut().for_each(|v| *v = 0);
            }
        }
    }
    p
}

/// A one-line description of a program.
fn describe(p: &Prog) -> String {
    let sets: Vec<String> = p.sets.iter().map(|s| s.size.to_string()).collect();
    let maps: Vec<String> = p
        .maps
        .iter()
        .map(|m| format!("{}->{}x{} {:?}", m.from, m.to, m.arity, m.kind))
        .collect();
    let nargs: usize = p.loops.iter().map(|l| l.args.len()).sum();
    format!(
        "sets [{}], maps [{}], {} dats, {} loops, {} args",
        sets.join(" "),
        maps.join(", "),
        p.dats.len(),
        p.loops.len(),
        nargs
    )
}

/// The seeds run: 1 to 8, or what `OP2_RS_TEST_SEEDS` lists (`9-40`,
/// `3,5,100-120`) for a longer search by hand.
fn seeds() -> Vec<u64> {
    let Ok(v) = std::env::var("OP2_RS_TEST_SEEDS") else {
        return (1..=8).collect();
    };
    let bad = || panic!("OP2_RS_TEST_SEEDS={v:?}: seeds (3) or ranges (9-40), comma-separated");
    let num = |t: &str| t.trim().parse::<u64>().unwrap_or_else(|_| bad());
    let mut out = Vec::new();
    for part in v.split(',') {
        match part.split_once('-') {
            Some((a, b)) => out.extend(num(a)..=num(b)),
            None => out.push(num(part)),
        }
    }
    if out.is_empty() {
        bad();
    }
    out
}

fn variants() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        ("colour2", vec![]),
        ("atomics", vec![("OP2_RS_CONFLICTS", "atomics")]),
        (
            "colour2-global",
            vec![("OP2_RS_CONFLICTS", "colour2-global")],
        ),
        ("auto-soa", vec![("OP_AUTO_SOA", "1")]),
        ("blocks of 32", vec![(ARGV, "OP_BLOCK_SIZE=32")]),
        ("wide offsets", vec![("OP2_RS_WIDE_OFFSETS", "1")]),
    ]
}

fn root_dir() -> PathBuf {
    out_dir().join("device_random")
}

/// A fresh directory (removed first).
fn fresh(dir: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    dir.to_path_buf()
}

/// Writes a program's sources and builds it against `libs` (`mpi`: the
/// first, libop2_seq, from the one-process form, the others from the MPI
/// form with mpicc; the program then has no op_arg_idx).
fn build(seed: u64, tag: &str, libs: &[&str], mpi: bool) -> (Prog, Vec<PathBuf>) {
    let p = if mpi {
        mpi_form(gen_prog(seed))
    } else {
        gen_prog(seed)
    };
    let (main, kernels) = gen_sources(seed, &p, false);
    let dir = root_dir().join(tag).join(format!("seed{seed}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.c"), main).unwrap();
    std::fs::write(dir.join("kernels.h"), &kernels[0]).unwrap();
    std::fs::write(dir.join("helpers.h"), &kernels[1]).unwrap();
    if mpi {
        let (main, k2) = gen_sources(seed, &p, true);
        assert_eq!(k2, kernels, "seed {seed}: the two forms' kernels differ");
        std::fs::write(dir.join("main_mpi.c"), main).unwrap();
    }
    let exes = libs
        .iter()
        .enumerate()
        .map(|(i, lib)| {
            let mut prog = Program::new(&format!("rnd_{tag}_{seed}"), Lang::C99, &[]).lib(lib);
            if mpi && i > 0 {
                prog = prog.compiler("mpicc");
                prog.sources.push(dir.join("main_mpi.c"));
            } else {
                prog.sources.push(dir.join("main.c"));
            }
            prog.build()
        })
        .collect();
    (p, exes)
}

fn result_lines(r: &Run) -> Vec<&str> {
    r.stdout.lines().filter(|l| l.starts_with("R ")).collect()
}

/// What is wrong with a run against libop2_seq's lines (`nloops`: a
/// device library's run, each of its loops on the device): None if
/// nothing.
fn compare(host: &[&str], dev: &Run, nloops: Option<usize>) -> Option<String> {
    let mut why = String::new();
    if dev.status != Some(0) {
        let _ = writeln!(
            why,
            "exit status {:?}\nstderr (end): {}",
            dev.status,
            tail(&dev.stderr, 1500)
        );
    }
    for l in dev
        .stdout
        .lines()
        .filter(|l| l.contains("runs on the host"))
    {
        let _ = writeln!(why, "fallback: {l}");
    }
    let pl = placements(&dev.stdout);
    if let Some(nloops) = nloops.filter(|&n| dev.status == Some(0) && pl.len() != n) {
        let _ = writeln!(
            why,
            "{} loops in the placement table, not {nloops}",
            pl.len()
        );
    }
    for (name, place) in &pl {
        if place != "device" {
            let _ = writeln!(why, "loop {name}: {place}");
        }
    }
    let d = result_lines(dev);
    let diffs: Vec<String> = host
        .iter()
        .zip(&d)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .take(6)
        .map(|(i, (a, b))| format!("  line {i}: host   {a}\n  line {i}: device {b}"))
        .collect();
    if !diffs.is_empty() {
        let _ = writeln!(why, "differing lines (first 6):\n{}", diffs.join("\n"));
    }
    if d.len() != host.len() {
        let _ = writeln!(why, "{} result lines, host {}", d.len(), host.len());
    }
    (!why.is_empty()).then_some(why)
}

fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// The variants seed `seed` runs in: the first and, in turn, one of the
/// others (each program is compiled for the device again in each, which
/// PoCL takes seconds for); all of them when `OP2_RS_TEST_SEEDS` asks for
/// a longer search.
fn variants_of<V>(vars: &[V], seed: u64) -> Vec<&V> {
    if vars.len() <= 2 || std::env::var_os("OP2_RS_TEST_SEEDS").is_some() {
        return vars.iter().collect();
    }
    let other = 1 + (seed as usize) % (vars.len() - 1);
    vec![&vars[0], &vars[other]]
}

/// A variant's entry that is a command-line argument, not a variable.
const ARGV: &str = "argv";

/// A variant's entry that runs the program under `mpirun` on that many
/// ranks (its MPI form).
const NP: &str = "np";

/// Runs every seed on libop2_seq and on the library `lib` (run with `env`
/// first; `device`: every loop must run on its device) in each variant
/// (its variables, and its [`ARGV`] entries as arguments); collects what
/// differs.
fn differential(
    (lib, device): (&str, bool),
    tag: &str,
    env: &[(&str, &str)],
    vars: &[(&str, Vec<(&str, &str)>)],
) {
    let t0 = std::time::Instant::now();
    let cache = fresh(&root_dir().join(format!("cache-{tag}")));
    let mut failures = Vec::new();
    let seeds = seeds();
    let mpi = vars.iter().any(|(_, v)| v.iter().any(|(k, _)| *k == NP));
    for &seed in &seeds {
        let (p, exes) = build(seed, tag, &["op2_seq", lib], mpi);
        let rundir = root_dir().join(tag).join(format!("seed{seed}")).join("run");
        let host = run_in(&exes[0], &[], &rundir, &[]);
        host.ok();
        let hl = result_lines(&host);
        assert!(
            !hl.iter().any(|l| l.starts_with("R BIG")),
            "seed {seed}: the generator let values grow out of range:\n{}",
            host.stdout
        );
        assert!(hl.len() > p.dats.len(), "seed {seed}: {}", host.stdout);
        println!("seed {seed}: {} ({} result lines)", describe(&p), hl.len());
        for (vname, venv) in variants_of(vars, seed) {
            let mut all: Vec<(&str, &str)> = vec![("OP2_RS_CACHE_DIR", cache.to_str().unwrap())];
            all.extend_from_slice(env);
            all.extend(venv.iter().copied().filter(|(k, _)| *k != ARGV && *k != NP));
            let argv: Vec<&str> = venv
                .iter()
                .filter(|(k, _)| *k == ARGV)
                .map(|(_, v)| *v)
                .collect();
            let np = venv.iter().find(|(k, _)| *k == NP);
            let t = std::time::Instant::now();
            let dev = match np {
                Some((_, n)) => mpirun(&exes[1], n.parse().unwrap(), &argv, &rundir, 600, &all),
                None => run_in(&exes[1], &argv, &rundir, &all),
            };
            let verdict = compare(&hl, &dev, device.then_some(p.loops.len()));
            println!(
                "  {tag} {vname}: {:.1} s, {}",
                t.elapsed().as_secs_f64(),
                if verdict.is_some() { "DIFFERS" } else { "same" }
            );
            if let Some(why) = verdict {
                failures.push(format!(
                    "seed {seed}, {tag} {vname} ({all:?}, arguments {argv:?}):\n{why}"
                ));
            }
        }
    }
    println!("{tag}: {:.1} s in all", t0.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} of {} runs differ from libop2_seq:\n\n{}",
        failures.len(),
        seeds
            .iter()
            .map(|&s| variants_of(vars, s).len())
            .sum::<usize>(),
        failures.join("\n")
    );
}

#[test]
fn random_programs_on_opencl_print_seq_answers() {
    differential(("op2_opencl", true), "opencl", &[], &variants());
}

/// The same programs on libop2_cuda through the CUDA emulator, in the
/// default scheme and with atomics.
#[test]
fn random_programs_on_the_cuda_emulator_print_seq_answers() {
    let vars = variants();
    differential(
        ("op2_cuda", true),
        "cuda-emu",
        &[("LD_LIBRARY_PATH", cuda_emu_dir())],
        &vars[..2],
    );
}

/// The same programs on libop2_openmp: its coloured plans and threads, on
/// 1 and 2 threads, with the default blocks and with mini-partitions of
/// 64 elements (`OP_PART_SIZE=64`: many blocks, many colours).
#[test]
fn random_programs_on_threads_print_seq_answers() {
    let vars = vec![
        ("1 thread", vec![("OMP_NUM_THREADS", "1")]),
        ("2 threads", vec![("OMP_NUM_THREADS", "2")]),
        (
            "2 threads, blocks of 64",
            vec![("OMP_NUM_THREADS", "2"), (ARGV, "OP_PART_SIZE=64")],
        ),
    ];
    differential(("op2_openmp", false), "openmp", &[], &vars);
}

/// The MPI forms of the programs (each rank declares its block; no
/// op_arg_idx; OP_INC globals from zero) on libop2_mpi's host ranks (one
/// thread each, or two threads each on blocks of 64) and on
/// libop2_mpi_opencl's device ranks (PoCL, in the default scheme and with
/// atomics) and libop2_mpi_cuda's emulated CUDA devices, partitioned k-way through PT-Scotch or at random
/// (`RND_PART=RANDOM`: most elements then border another rank, so exec
/// and non-exec halos are large), against libop2_seq's one process.
#[test]
fn random_programs_over_mpi_ranks_print_seq_answers() {
    let host = vec![
        ("2 ranks, k-way", vec![(NP, "2")]),
        ("3 ranks, random", vec![(NP, "3"), ("RND_PART", "RANDOM")]),
        (
            "2 ranks of 2 threads, random, blocks of 64",
            vec![
                (NP, "2"),
                ("RND_PART", "RANDOM"),
                ("OMP_NUM_THREADS", "2"),
                (ARGV, "OP_PART_SIZE=64"),
            ],
        ),
    ];
    differential(("op2_mpi", false), "mpi", &[], &host);
    let dev = vec![
        ("2 ranks, k-way", vec![(NP, "2")]),
        ("2 ranks, random", vec![(NP, "2"), ("RND_PART", "RANDOM")]),
        (
            "3 ranks, random, atomics",
            vec![
                (NP, "3"),
                ("RND_PART", "RANDOM"),
                ("OP2_RS_CONFLICTS", "atomics"),
            ],
        ),
    ];
    differential(("op2_mpi_opencl", true), "mpi-opencl", &[], &dev);
    let emu = vec![("2 ranks, random", vec![(NP, "2"), ("RND_PART", "RANDOM")])];
    differential(
        ("op2_mpi_cuda", true),
        "mpi-cuda-emu",
        &[("LD_LIBRARY_PATH", cuda_emu_dir())],
        &emu,
    );
}
