//! Loop descriptions of real programs, for tests and the compile check:
//! the five loops of c-examples/airfoil (kernels from its headers, the
//! constants it declares), one synthetic loop with every other kind of
//! argument (vector map argument, optional argument, `op_arg_idx`, SoA,
//! float and int dats, min/max reductions), one whose elements may
//! reach a written row twice (`LoopDesc::shared_rows`), one on OP2's
//! 64-bit and unsigned integer types and one on `bool`s.

use crate::desc::{Access, Arg, Conflicts, Const, ConstValue, DatArg, LoopDesc, MapDesc, Ty};

/// A loop, its kernel source and the constants it sees.
#[derive(Debug, Clone)]
pub struct Sample {
    pub desc: LoopDesc,
    pub source: String,
    pub consts: Vec<Const>,
}

fn dat(dat: usize, dim: usize, ty: Ty, access: Access) -> DatArg {
    DatArg {
        dat,
        dim,
        ty,
        soa: false,
        access,
        optional: false,
    }
}

/// airfoil's constants, as c-examples/airfoil/airfoil_setup.h sets them
/// (from float literals, as OP2's airfoil does).
pub fn airfoil_consts() -> Vec<Const> {
    let gam = f64::from(1.4f32);
    let gm1 = gam - 1.0;
    let mach = f64::from(0.4f32);
    let alpha = 3.0 * 1f64.atan() / 45.0;
    let (p, r) = (1.0f64, 1.0f64);
    let u = (gam * p / r).sqrt() * mach;
    let e = p / (r * gm1) + 0.5 * u * u;
    let c = |n: &str, v: Vec<f64>| Const {
        name: n.into(),
        value: ConstValue::F64(v),
    };
    vec![
        c("gam", vec![gam]),
        c("gm1", vec![gm1]),
        c("cfl", vec![f64::from(0.9f32)]),
        c("eps", vec![f64::from(0.05f32)]),
        c("mach", vec![mach]),
        c("alpha", vec![alpha]),
        c("qinf", vec![r, r * u, 0.0, r * e]),
    ]
}

/// airfoil's loops, their kernels found in `dir` (c-examples/airfoil) by
/// [`crate::find::find_kernel`]. Dats: 0 x, 1 q, 2 qold,
/// 3 adt, 4 res, 5 bound; maps: 0 pedge, 1 pecell, 2 pbedge, 3 pbecell,
/// 4 pcell.
pub fn airfoil(dir: &std::path::Path, conflicts: Conflicts) -> std::io::Result<Vec<Sample>> {
    let maps = vec![
        MapDesc { dim: 2 },
        MapDesc { dim: 2 },
        MapDesc { dim: 2 },
        MapDesc { dim: 1 },
        MapDesc { dim: 4 },
    ];
    airfoil_loops()
        .into_iter()
        .map(|(name, args)| {
            Ok(Sample {
                desc: LoopDesc {
                    name: name.into(),
                    kernel: name.into(),
                    args,
                    maps: maps.clone(),
                    conflicts,
                    disjoint_writes: false,
                    shared_rows: Vec::new(),
                },
                source: crate::find::find_kernel(
                    name,
                    &[dir.to_path_buf()],
                    &Default::default(),
                    None,
                    None,
                )
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::NotFound, e.to_string()))?
                .text,
                consts: airfoil_consts(),
            })
        })
        .collect()
}

/// airfoil's loops as c-examples/airfoil/airfoil_step.h declares them.
fn airfoil_loops() -> Vec<(&'static str, Vec<Arg>)> {
    use Access::*;
    let f = Ty::F64;
    let ind = |d: DatArg, map: usize, idx: i32| Arg::Indirect { dat: d, map, idx };
    let loops: Vec<(&'static str, Vec<Arg>)> = vec![
        (
            "save_soln",
            vec![
                Arg::Direct(dat(1, 4, f, Read)),
                Arg::Direct(dat(2, 4, f, Write)),
            ],
        ),
        (
            "adt_calc",
            vec![
                ind(dat(0, 2, f, Read), 4, 0),
                ind(dat(0, 2, f, Read), 4, 1),
                ind(dat(0, 2, f, Read), 4, 2),
                ind(dat(0, 2, f, Read), 4, 3),
                Arg::Direct(dat(1, 4, f, Read)),
                Arg::Direct(dat(3, 1, f, Write)),
            ],
        ),
        (
            "res_calc",
            vec![
                ind(dat(0, 2, f, Read), 0, 0),
                ind(dat(0, 2, f, Read), 0, 1),
                ind(dat(1, 4, f, Read), 1, 0),
                ind(dat(1, 4, f, Read), 1, 1),
                ind(dat(3, 1, f, Read), 1, 0),
                ind(dat(3, 1, f, Read), 1, 1),
                ind(dat(4, 4, f, Inc), 1, 0),
                ind(dat(4, 4, f, Inc), 1, 1),
            ],
        ),
        (
            "bres_calc",
            vec![
                ind(dat(0, 2, f, Read), 2, 0),
                ind(dat(0, 2, f, Read), 2, 1),
                ind(dat(1, 4, f, Read), 3, 0),
                ind(dat(3, 1, f, Read), 3, 0),
                ind(dat(4, 4, f, Inc), 3, 0),
                Arg::Direct(dat(5, 1, Ty::I32, Read)),
            ],
        ),
        (
            "update",
            vec![
                Arg::Direct(dat(2, 4, f, Read)),
                Arg::Direct(dat(1, 4, f, Write)),
                Arg::Direct(dat(4, 4, f, Rw)),
                Arg::Direct(dat(3, 1, f, Read)),
                Arg::Global {
                    dim: 1,
                    ty: f,
                    access: Inc,
                },
            ],
        ),
    ];
    loops
}

/// A loop over edges with a vector map argument (both nodes' coordinates,
/// SoA), an optional float increment, the element index, an int dat, and
/// min/max/sum reductions (float, int, double).
pub fn synthetic(conflicts: Conflicts) -> Sample {
    use Access::*;
    let source = r#"
/* every argument kind op2-rs's generator writes */
static inline double sq(double v) { return v * v; }
void mixed(const double *const *x, float *w, const int *e, const int *tag,
           float *wmin, int *tmax, double *len2) {
  double d = sq(x[0][0] - x[1][0]) + sq(x[0][1] - x[1][1]);
  if (w) w[0] += (float)(scale * d);
  *wmin = MIN(*wmin, (float)d);
  *tmax = MAX(*tmax, tag[0] + *e);
  *len2 += d;
}
"#;
    Sample {
        desc: LoopDesc {
            name: "mixed".into(),
            kernel: "mixed".into(),
            args: vec![
                Arg::Indirect {
                    dat: DatArg {
                        soa: true,
                        ..dat(0, 2, Ty::F64, Read)
                    },
                    map: 0,
                    idx: -2,
                },
                Arg::Indirect {
                    dat: DatArg {
                        optional: true,
                        ..dat(1, 1, Ty::F32, Inc)
                    },
                    map: 0,
                    idx: 0,
                },
                Arg::Idx,
                Arg::Direct(dat(2, 1, Ty::I32, Read)),
                Arg::Global {
                    dim: 1,
                    ty: Ty::F32,
                    access: Min,
                },
                Arg::Global {
                    dim: 1,
                    ty: Ty::I32,
                    access: Max,
                },
                Arg::Global {
                    dim: 1,
                    ty: Ty::F64,
                    access: Inc,
                },
            ],
            maps: vec![MapDesc { dim: 2 }],
            conflicts,
            disjoint_writes: false,
            shared_rows: Vec::new(),
        },
        source: source.into(),
        consts: vec![Const {
            name: "scale".into(),
            value: ConstValue::F64(vec![0.5]),
        }],
    }
}

/// A loop over edges whose map may repeat an entry in a row (a collapsed
/// edge): OP_RW at both ends of an SoA dat, and a vector OP_WRITE argument
/// on another, both in [`LoopDesc::shared_rows`] (one private copy per
/// distinct row of the element). Colouring only (atomics cannot serve
/// OP_RW through a map).
pub fn collapsed(conflicts: Conflicts) -> Sample {
    use Access::*;
    let source = r#"
void collapsed(double *a, double *b, double *const *v) {
  a[0] += 1.0;
  b[0] += 10.0;
  a[1] = 0.5 * a[1];
  b[1] = b[1] + a[1];
  v[1][0] = v[0][0] + 2.0;
}
"#;
    Sample {
        desc: LoopDesc {
            name: "collapsed".into(),
            kernel: "collapsed".into(),
            args: vec![
                Arg::Indirect {
                    dat: DatArg {
                        soa: true,
                        ..dat(0, 2, Ty::F64, Rw)
                    },
                    map: 0,
                    idx: 0,
                },
                Arg::Indirect {
                    dat: DatArg {
                        soa: true,
                        ..dat(0, 2, Ty::F64, Rw)
                    },
                    map: 0,
                    idx: 1,
                },
                Arg::Indirect {
                    dat: dat(1, 1, Ty::F64, Write),
                    map: 0,
                    idx: -2,
                },
            ],
            maps: vec![MapDesc { dim: 2 }],
            conflicts,
            disjoint_writes: false,
            shared_rows: vec![0, 1],
        },
        source: source.into(),
        consts: Vec::new(),
    }
}

/// A loop over edges on OP2's 64-bit and unsigned integer types: `ll`
/// increments through a map (atomics or colouring), a vector argument of
/// `uint`, a direct `ull` dat of dim 2 read and written, reductions of
/// each type (sum, max, min), constants of each type. The kernel names the
/// 64-bit types `long long` (128 bits in OpenCL C: the generator rewrites
/// them).
pub fn wide_ints(conflicts: Conflicts) -> Sample {
    use Access::*;
    let source = r#"
static inline unsigned long long mix(unsigned long long h, unsigned int t) {
  return (h ^ t) * mult;
}
void wide_ints(long long *l, long long *r, const unsigned int *const *tag,
               unsigned long long *h, unsigned long long *sum, long long *hi,
               unsigned int *lo) {
  long long v = (long long)(tag[0][0] & mask) * shift;
  *l += v;
  *r -= 2 * v;
  h[0] = mix(h[0], tag[1][0]);
  h[1] += (unsigned long long)sizeof(long long);
  *sum += (unsigned long long)v;
  *hi = MAX(*hi, v);
  *lo = MIN(*lo, tag[1][0]);
}
"#;
    let ind = |d: DatArg, idx: i32| Arg::Indirect {
        dat: d,
        map: 0,
        idx,
    };
    let gbl = |ty: Ty, access: Access| Arg::Global { dim: 1, ty, access };
    Sample {
        desc: LoopDesc {
            name: "wide_ints".into(),
            kernel: "wide_ints".into(),
            args: vec![
                ind(dat(0, 1, Ty::I64, Inc), 0),
                ind(dat(0, 1, Ty::I64, Inc), 1),
                ind(dat(1, 1, Ty::U32, Read), -2),
                Arg::Direct(dat(2, 2, Ty::U64, Rw)),
                gbl(Ty::U64, Inc),
                gbl(Ty::I64, Max),
                gbl(Ty::U32, Min),
            ],
            maps: vec![MapDesc { dim: 2 }],
            conflicts,
            disjoint_writes: false,
            shared_rows: Vec::new(),
        },
        source: source.into(),
        consts: vec![
            Const {
                name: "mult".into(),
                value: ConstValue::U64(vec![0x9E37_79B9_7F4A_7C15]),
            },
            Const {
                name: "shift".into(),
                value: ConstValue::I64(vec![-(1 << 35)]),
            },
            Const {
                name: "mask".into(),
                value: ConstValue::U32(vec![0xFFFF]),
            },
        ],
    }
}

/// A loop over edges on `bool`s: a direct dat read and written, a dat read
/// through a map, reductions of each kind (`OP_INC`: any; `OP_MIN`: all;
/// `OP_MAX`: any).
pub fn flags(conflicts: Conflicts) -> Sample {
    use Access::*;
    let source = r#"
void flags(bool *f, const bool *n, bool *any, bool *all, bool *some) {
  *f = *f != *n;
  *any += *f;
  *all = MIN(*all, *n);
  *some = MAX(*some, (bool)(*f && *n));
}
"#;
    let gbl = |access: Access| Arg::Global {
        dim: 1,
        ty: Ty::Bool,
        access,
    };
    Sample {
        desc: LoopDesc {
            name: "flags".into(),
            kernel: "flags".into(),
            args: vec![
                Arg::Direct(dat(0, 1, Ty::Bool, Rw)),
                Arg::Indirect {
                    dat: dat(1, 1, Ty::Bool, Read),
                    map: 0,
                    idx: 1,
                },
                gbl(Inc),
                gbl(Min),
                gbl(Max),
            ],
            maps: vec![MapDesc { dim: 2 }],
            conflicts,
            disjoint_writes: false,
            shared_rows: Vec::new(),
        },
        source: source.into(),
        consts: Vec::new(),
    }
}
