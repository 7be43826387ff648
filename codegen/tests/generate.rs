//! The generator on loop descriptions alone: what each scheme asks the
//! launch for, what the code does with each kind of argument, and the
//! errors for descriptions it cannot serve. (The compile check of the
//! same samples with PoCL and NVRTC: scripts/codegen_check.sh.)

use op2_codegen::samples;
use op2_codegen::*;
use std::path::Path;

fn airfoil(c: Conflicts) -> Vec<samples::Sample> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../c-examples/airfoil");
    samples::airfoil(&dir, c).expect("c-examples/airfoil headers")
}

fn gen(s: &samples::Sample, d: Dialect) -> Result<Generated, GenError> {
    generate(
        &s.desc,
        &s.source,
        &s.consts,
        Options {
            dialect: d,
            block_size: 128,
            wide_offsets: false,
            fma: false,
        },
    )
}

fn find<'a>(v: &'a [samples::Sample], name: &str) -> &'a samples::Sample {
    v.iter().find(|s| s.desc.name == name).unwrap()
}

#[test]
fn res_calc_staged_groups_and_launch_order() {
    let loops = airfoil(Conflicts::Colour2);
    let g = gen(find(&loops, "res_calc"), Dialect::OpenCl).unwrap();
    assert_eq!(g.scheme, Scheme::Staged);
    assert_eq!(g.entry, "op2_k_res_calc");
    // one group per (dat, map): x via pedge, q, adt, res via pecell
    let groups: Vec<(usize, usize, usize, Access)> = g
        .groups
        .iter()
        .map(|x| (x.dat, x.map, x.dim, x.access))
        .collect();
    assert_eq!(
        groups,
        [
            (0, 0, 2, Access::Read),
            (1, 1, 4, Access::Read),
            (3, 1, 1, Access::Read),
            (4, 1, 4, Access::Inc)
        ]
    );
    use LaunchParam::*;
    let mut want = vec![GroupDat(0), GroupDat(1), GroupDat(2), GroupDat(3), IndMap];
    want.extend((0..4).map(IndMapStart));
    want.push(LocMap);
    want.extend((0..8).map(LocMapStart));
    want.extend([
        IndSizes,
        IndOffs,
        SetSize,
        Blkmap,
        Offset,
        Nelems,
        Nthrcol,
        Thrcol,
        BlockOffset,
        Local,
    ]);
    assert_eq!(g.params, want);
    // staged: increments zeroed in local memory, added back through the map
    assert!(g.text.contains("s3[n] = 0;"), "{}", g.text);
    assert!(g
        .text
        .contains("ind_arg3[(imap3[n / 4]) * 4 + (n % 4)] += s3[n];"));
    // applied thread colour by thread colour, with a barrier per colour
    assert!(g.text.contains("if (col2 == col) {"));
    assert!(g
        .text
        .contains("s3[loc_map[loc_map6_start + offb + n] * 4 + (k)] += a6_0[k];"));
    // read-only groups are not written back
    assert!(!g.text.contains("ind_arg0[(imap0[n / 2]) * 2 + (n % 2)] ="));
    // 8-byte aligned local blocks: 10 x's, 7 q's, 7 adt's, 7 res's
    assert_eq!(g.local_bytes(&[10, 7, 7, 7]), 160 + 224 + 56 + 224);
    // the constants the kernel uses are in the code with their exact values
    assert!(g
        .text
        .contains("__constant double eps = 0x1.99999a0000000p-5;"));
    // CUDA: same launch order, shared memory from the dynamic block
    let c = gen(find(&loops, "res_calc"), Dialect::Cuda).unwrap();
    assert_eq!(c.params[..], g.params[..g.params.len() - 1]);
    assert!(c
        .text
        .contains("extern \"C\" __global__ void op2_k_res_calc("));
    assert!(c.text.contains("extern __shared__ double op2_local_d[];"));
    // CUDA constants carry no value in the text: the library copies it in
    assert!(c.text.contains("__constant__ double gm1;\n"), "{}", c.text);
    let gm1 = c.const_values.iter().find(|(n, _)| n == "gm1").unwrap();
    assert_eq!(gm1.1, f64::from_bits(0x3FD9_9999_8000_0000).to_ne_bytes());
}

/// A loop that only reads through its maps (airfoil's adt_calc: x through
/// pcell) has no writes that could meet: it runs flat in every scheme, its
/// reads through the map, no plan, no staging, no barrier. A loop that
/// increments through a map (res_calc) keeps its scheme.
#[test]
fn loops_reading_through_maps_only_are_flat_in_every_scheme() {
    let schemes = [
        (Conflicts::Colour2, Scheme::Staged),
        (Conflicts::Colour2Global, Scheme::Coloured),
        (Conflicts::Atomics, Scheme::Flat),
    ];
    for (c, res_scheme) in schemes {
        let loops = airfoil(c);
        let adt = find(&loops, "adt_calc");
        assert!(!adt.desc.writes_through_maps());
        assert!(find(&loops, "res_calc").desc.writes_through_maps());
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let g = gen(adt, d).unwrap();
            assert_eq!(g.scheme, Scheme::Flat, "{c:?} {d:?}");
            use LaunchParam::*;
            assert_eq!(
                g.params,
                [
                    IndDat(0),
                    Map(4),
                    MapStride,
                    Dat(4),
                    Dat(5),
                    SetSize,
                    BlockOffset
                ],
                "{c:?} {d:?}"
            );
            assert!(!g.text.contains("barrier") && !g.text.contains("__syncthreads"));
            assert!(g.text.contains("map4[3 * map_stride + e]"), "{}", g.text);
            let r = gen(find(&loops, "res_calc"), d).unwrap();
            assert_eq!(r.scheme, res_scheme, "{c:?} {d:?}");
        }
    }
}

/// Fused multiply-adds only when asked ([`Options::fma`]): without, the
/// OpenCL C switches contraction off (the device computes what the source
/// says on the host); with, it switches it on, and both dialects' headers
/// and [`Generated::fma`] say so (the CUDA launcher passes NVRTC
/// `--fmad=true` then). The rest of the text is the same.
#[test]
fn fused_multiply_adds_only_when_asked() {
    let loops = airfoil(Conflicts::Colour2);
    let s = find(&loops, "res_calc");
    for d in [Dialect::OpenCl, Dialect::Cuda] {
        let o = |fma| Options {
            dialect: d,
            block_size: 64,
            wide_offsets: false,
            fma,
        };
        let off = generate(&s.desc, &s.source, &s.consts, o(false)).unwrap();
        let on = generate(&s.desc, &s.source, &s.consts, o(true)).unwrap();
        assert!(!off.fma && on.fma, "{d:?}");
        let head = |g: &Generated| g.text.lines().next().unwrap().to_string();
        assert!(!head(&off).contains("fused"), "{}", head(&off));
        assert!(
            head(&on).ends_with(", work-group 64, fused multiply-adds"),
            "{}",
            head(&on)
        );
        let pragma = |g: &Generated, v: &str| {
            g.text
                .contains(&format!("#pragma OPENCL FP_CONTRACT {v}\n"))
        };
        match d {
            Dialect::OpenCl => {
                assert!(pragma(&off, "OFF") && !pragma(&off, "ON"));
                assert!(pragma(&on, "ON") && !pragma(&on, "OFF"));
            }
            Dialect::Cuda => {
                assert!(!off.text.contains("FP_CONTRACT") && !on.text.contains("FP_CONTRACT"))
            }
        }
        let body = |g: &Generated| {
            g.text
                .lines()
                .skip(1)
                .filter(|l| !l.contains("FP_CONTRACT"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(body(&off), body(&on), "{d:?}");
        assert_eq!((off.params, off.scheme), (on.params, on.scheme));
    }
}

#[test]
fn direct_loops_are_flat_and_reductions_fixed_order() {
    for c in [Conflicts::Colour2, Conflicts::Atomics] {
        let loops = airfoil(c);
        let g = gen(find(&loops, "update"), Dialect::OpenCl).unwrap();
        assert_eq!(g.scheme, Scheme::Flat, "a direct loop needs no plan");
        use LaunchParam::*;
        assert_eq!(
            g.params,
            [Dat(0), Dat(1), Dat(2), Dat(3), RedOut(4), SetSize]
        );
        // the sum starts from 0: the global's value is not uploaded
        assert!(!g.text.contains("gbl4"), "{}", g.text);
        // q written back (WRITE), res read and written back (RW), qold read only
        assert!(g
            .text
            .contains("for (int k = 0; k < 4; k++) arg1[(e) * 4 + (k)] = a1[k];"));
        assert!(g
            .text
            .contains("for (int k = 0; k < 4; k++) a2[k] = arg2[(e) * 4 + (k)];"));
        assert!(!g.text.contains("arg0[(e) * 4 + (k)] = a0[k]"));
        // the sum: a private accumulator from 0, a fixed tree, one slot per work-group
        assert!(g.text.contains("for (int k = 0; k < 1; k++) r4[k] = 0;"));
        assert!(g.text.contains("for (int s = 64; s > 0; s >>= 1) {"));
        assert!(g.text.contains("red4[(wg) * 1 + k] = red4_s[k * 128];"));
        assert!(g.text.contains("update(a0, a1, a2, a3, r4);"));
        // a direct loop never runs another process's elements: no guard
        assert!(!g.text.contains("owned"), "{}", g.text);
        // it reduces: each work-group runs a chunk of the elements, its
        // work-items a work-group apart, and the launch gives at most
        // FLAT_REDUCTION_ITEMS work-items
        assert!(g.strided);
        assert!(g.text.contains("const int nwg = (int)get_num_groups(0);"));
        assert!(g
            .text
            .contains("const int chunk = ((set_size + nwg - 1) / nwg + 128 - 1) / 128 * 128;"));
        assert!(g
            .text
            .contains("for (int e = wg * chunk + tid; e < e_end; e += 128) {"));
        assert!(!g.text.contains("if (e < set_size)"), "{}", g.text);
        assert_eq!(FLAT_REDUCTION_ITEMS / 128, 1024);
        assert_eq!(g.flat_groups(720_000), 1024, "capped");
        assert_eq!(g.flat_groups(1024 * 128), 1024);
        assert_eq!(g.flat_groups(1000), 8, "one element each below the cap");
        assert_eq!(g.flat_groups(0), 0);
        let cu = gen(find(&loops, "update"), Dialect::Cuda).unwrap();
        assert!(cu.strided);
        assert!(cu.text.contains("const int nwg = (int)gridDim.x;"));
        // no reduction: one element per work-item, as many work-groups as
        // that takes
        let save = gen(find(&loops, "save_soln"), Dialect::OpenCl).unwrap();
        assert!(!save.strided);
        assert!(save.text.contains("const int e = wg * 128 + tid;"));
        assert!(save.text.contains("if (e < set_size) {"));
        assert_eq!(save.flat_groups(720_000), 5625);
    }
}

/// A maximum with its `op_arg_info`: strided as any reduction; the info's
/// tie rule (the first element with the best value) holds because each
/// work-item records the element of its best and the work-group's tree
/// breaks ties by that index (the chunks, and so the slots, are in element
/// order).
#[test]
fn reductions_with_an_info_break_ties_by_element() {
    let x = DatArg {
        dat: 0,
        dim: 1,
        ty: Ty::F64,
        soa: false,
        access: Access::Read,
        optional: false,
    };
    let s = samples::Sample {
        desc: LoopDesc {
            name: "peak".into(),
            kernel: "peak".into(),
            args: vec![
                Arg::Direct(x),
                Arg::Idx,
                Arg::Global {
                    dim: 1,
                    ty: Ty::F64,
                    access: Access::Max,
                },
                Arg::Info {
                    reference: 2,
                    dim: 1,
                    ty: Ty::I32,
                },
            ],
            maps: vec![],
            conflicts: Conflicts::Colour2,
            disjoint_writes: false,
            shared_rows: Vec::new(),
        },
        source: "void peak(const double *x, const int *i, double *m, int *at) {\n  if (*x > *m) { *m = *x; *at = *i; }\n}\n".into(),
        consts: vec![],
    };
    for d in [Dialect::OpenCl, Dialect::Cuda] {
        let g = gen(&s, d).unwrap();
        assert_eq!(g.scheme, Scheme::Flat);
        assert!(g.strided, "{}", g.text);
        for want in [
            "int b2 = 0x7fffffff;",
            "const double p2 = r2[0];",
            "if (r2[0] != p2) b2 = e;",
            "red2_e[tid] = b2;",
            "if (tid < s && (red2_s[tid + s] > red2_s[tid] || (red2_s[tid + s] == red2_s[tid] && red2_e[tid + s] < red2_e[tid]))) {",
            "red2_e[tid] = red2_e[tid + s];",
        ] {
            assert!(g.text.contains(want), "{want}:\n{}", g.text);
        }
        // the maximum and its info start from their values, passed by value
        use LaunchParam::*;
        for a in [2, 3] {
            assert!(g.params.contains(&GblValue(a)) && g.params.contains(&RedOut(a)));
        }
        assert!(g.text.contains("r3[k] = gbl3.v[k];"), "{}", g.text);
        assert_eq!(g.flat_groups(720_000), 1024);
    }
    // the same loop without the info: no element tracking
    let mut plain = s.clone();
    plain.desc.args.pop();
    plain.source =
        "void peak(const double *x, const int *i, double *m) {\n  if (*x > *m) *m = *x;\n}\n"
            .into();
    let g = gen(&plain, Dialect::OpenCl).unwrap();
    assert!(g.strided);
    assert!(!g.text.contains("b2"), "{}", g.text);
    assert_eq!(g.flat_groups(720_000), 1024);
}

/// A pin-like loop: one node per end through an injective map, `z` read
/// and written (OP_RW), `tag` written (OP_WRITE).
fn pin(conflicts: Conflicts, disjoint_writes: bool) -> samples::Sample {
    let dat = |dat, ty, access| DatArg {
        dat,
        dim: 1,
        ty,
        soa: false,
        access,
        optional: false,
    };
    samples::Sample {
        desc: LoopDesc {
            name: "pin".into(),
            kernel: "pin".into(),
            args: vec![
                Arg::Indirect {
                    dat: dat(0, Ty::F64, Access::Rw),
                    map: 0,
                    idx: 0,
                },
                Arg::Indirect {
                    dat: dat(1, Ty::I32, Access::Write),
                    map: 0,
                    idx: 0,
                },
            ],
            maps: vec![MapDesc { dim: 1 }],
            conflicts,
            disjoint_writes,
            shared_rows: Vec::new(),
        },
        source: "void pin(double *z, int *tag) {\n  z[0] = 2.0 * z[0] + 1.0;\n  tag[0] = 7;\n}\n"
            .into(),
        consts: vec![],
    }
}

/// Writes through maps that no two elements share (the describer found
/// the map injective: [`LoopDesc::disjoint_writes`]) run flat in every
/// scheme, with plain stores and adds: no plan, no colour turns, no
/// atomics, even for OP_RW and OP_WRITE, which atomics cannot serve.
#[test]
fn disjoint_writes_run_flat_with_plain_stores_in_every_scheme() {
    for c in [
        Conflicts::Colour2,
        Conflicts::Colour2Global,
        Conflicts::Atomics,
    ] {
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let g = gen(&pin(c, true), d).unwrap();
            assert_eq!(g.scheme, Scheme::Flat, "{c:?} {d:?}");
            assert!(!g.params.contains(&LaunchParam::Blkmap));
            let t = &g.text;
            let entry = t.find(&g.entry).unwrap();
            assert!(!t[entry..].contains("atomic") && !t.contains("col2"), "{t}");
            let read = t
                .find("a0_0[k] = ind0[(map0[0 * map_stride + e]) * 1 + (k)];")
                .expect(t);
            let call = t.find("pin(a0_0, a1_0);").expect(t);
            let z = t
                .find("ind0[(map0[0 * map_stride + e]) * 1 + (k)] = a0_0[k];")
                .expect(t);
            let tag = t
                .find("ind1[(map0[0 * map_stride + e]) * 1 + (k)] = a1_0[k];")
                .expect(t);
            assert!(read < call && call < z && z < tag, "{t}");
        }
        // not known disjoint: coloured (atomics cannot serve OP_RW)
        let g = gen(&pin(c, false), Dialect::Cuda);
        match c {
            Conflicts::Atomics => assert!(g.is_err()),
            _ => assert_ne!(g.unwrap().scheme, Scheme::Flat),
        }
    }
    // increments too: airfoil's res_calc, were its edges' cells disjoint
    let mut res = find(&airfoil(Conflicts::Atomics), "res_calc").clone();
    res.desc.disjoint_writes = true;
    let g = gen(&res, Dialect::Cuda).unwrap();
    assert_eq!(g.scheme, Scheme::Flat);
    assert!(
        !g.text[g.text.find(&g.entry).unwrap()..].contains("atomicAdd"),
        "{}",
        g.text
    );
    assert!(
        g.text
            .contains("ind6[(map1[0 * map_stride + e]) * 4 + (k)] += a6_0[k];"),
        "{}",
        g.text
    );
}

/// A loop that reads and writes a dat through a map (OP_RW) whose rows
/// its elements share runs each element whole in its thread colour's
/// turn (staged and coloured): an element must read what an element of
/// an earlier colour wrote to a shared row, so its reads cannot come
/// before the turns, as increments' can (tests/c/device_args' `count`
/// lost updates so).
#[test]
fn read_write_through_shared_rows_runs_whole_elements_in_colour_turns() {
    for c in [Conflicts::Colour2, Conflicts::Colour2Global] {
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let g = gen(&pin(c, false), d).unwrap();
            let t = &g.text;
            let turn = t.find("if (col2 == col) {").expect(t);
            let call = t.find("pin(a0_0, a1_0);").expect(t);
            assert!(turn < call, "{c:?} {d:?}: the kernel runs in the turn\n{t}");
            assert!(t.find("col2 = thrcol[").expect(t) < turn, "{t}");
        }
        // increments only: every element's kernel first, then the turns
        let loops = airfoil(c);
        let g = gen(find(&loops, "res_calc"), Dialect::Cuda).unwrap();
        let t = &g.text;
        assert!(
            t.find("res_calc(").unwrap() < t.find("if (col2 == col) {").unwrap(),
            "{t}"
        );
    }
}

#[test]
fn atomics_add_increments_through_the_maps() {
    let loops = airfoil(Conflicts::Atomics);
    let g = gen(find(&loops, "res_calc"), Dialect::OpenCl).unwrap();
    assert_eq!(g.scheme, Scheme::Flat);
    use LaunchParam::*;
    assert_eq!(
        g.params,
        [
            IndDat(0),
            IndDat(2),
            IndDat(4),
            IndDat(6),
            Map(0),
            Map(1),
            MapStride,
            SetSize,
            BlockOffset
        ]
    );
    // the launch may start at a work-group past the first (under MPI: the
    // core before the halo wait, the rest after)
    assert!(g
        .text
        .contains("const int e = (wg + block_offset) * 128 + tid;"));
    assert!(g
        .text
        .contains("a2_0[k] = ind2[(map1[0 * map_stride + e]) * 4 + (k)];"));
    assert!(g
        .text
        .contains("op2_atomic_add_double(&ind6[(map1[1 * map_stride + e]) * 4 + (k)], a7_0[k]);"));
    assert!(g.text.contains("cl_khr_int64_base_atomics"));
    let c = gen(find(&loops, "res_calc"), Dialect::Cuda).unwrap();
    assert!(c
        .text
        .contains("atomicAdd(&ind6[(map1[0 * map_stride + e]) * 4 + (k)], a6_0[k]);"));
}

/// Two-level colouring without staging: the plan's blocks and thread
/// colours, the data read and written through the maps in global memory,
/// each write in its thread colour's turn behind a barrier that orders
/// global memory.
#[test]
fn coloured_writes_through_maps_colour_by_colour() {
    let loops = airfoil(Conflicts::Colour2Global);
    let g = gen(find(&loops, "res_calc"), Dialect::OpenCl).unwrap();
    assert_eq!(g.scheme, Scheme::Coloured);
    assert!(g.scheme.uses_plan());
    // the flat scheme's parameters (dats and maps), then the plan's blocks
    let flat = gen(
        find(&airfoil(Conflicts::Atomics), "res_calc"),
        Dialect::OpenCl,
    )
    .unwrap();
    use LaunchParam::*;
    let blocks = [Blkmap, Offset, Nelems, Nthrcol, Thrcol, BlockOffset];
    let (flat_first, flat_params) = flat.params.split_last().unwrap();
    assert_eq!(*flat_first, BlockOffset);
    assert_eq!(g.params, [flat_params, &blocks].concat());
    let t = &g.text;
    let at = |s: &str| t.find(s).unwrap_or_else(|| panic!("{s}\n{t}"));
    let read = at("a2_0[k] = ind2[(map1[0 * map_stride + e]) * 4 + (k)];");
    let turn = at("if (col2 == col) {");
    let write =
        at("for (int k = 0; k < 4; k++) ind6[(map1[1 * map_stride + e]) * 4 + (k)] += a7_0[k];");
    let fence = at("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
    assert!(read < turn && turn < write && write < fence, "{t}");
    assert!(!t.contains("op2_local") && !t.contains("atomic"), "{t}");
    // direct loops are flat in every scheme
    let u = gen(find(&loops, "update"), Dialect::Cuda).unwrap();
    assert_eq!(u.scheme, Scheme::Flat);
    let c = gen(find(&loops, "res_calc"), Dialect::Cuda).unwrap();
    assert!(c.text.contains("__syncthreads();") && !c.text.contains("extern __shared__"));
}

/// Read-only dats are `const`; a dat pointer is restrict-qualified unless
/// another parameter reaches the same dat and something writes it; index
/// arrays always are. (NVRTC then keeps map entries in registers across
/// the atomics and reads through the read-only cache: the SASS of
/// airfoil's res_calc has OP2's translated code's loads, BENCHMARKS.md.)
#[test]
fn pointers_are_const_and_restrict_where_nothing_aliases() {
    let loops = airfoil(Conflicts::Atomics);
    let s = find(&loops, "res_calc");
    for (d, r, g) in [
        (Dialect::Cuda, "__restrict__ ", ""),
        (Dialect::OpenCl, "restrict ", "__global "),
    ] {
        let t = gen(s, d).unwrap().text;
        for want in [
            format!("{g}const double *{r}ind0,"),
            format!("{g}const double *{r}ind2,"),
            format!("{g}double *{r}ind6,"),
            format!("{g}const int *{r}map1,"),
        ] {
            assert!(t.contains(&want), "{d:?}: {want}\n{t}");
        }
        // res (dat 4's increments, arguments 6 and 7) through two maps: one
        // staged group (each row staged once, whatever maps reach it), its
        // pointer the only one at the dat, so restrict
        let mut two = s.desc.clone();
        if let Arg::Indirect { map, idx, .. } = &mut two.args[7] {
            (*map, *idx) = (0, 1);
        }
        two.conflicts = Conflicts::Colour2;
        let o = Options {
            dialect: d,
            block_size: 128,
            wide_offsets: false,
            fma: false,
        };
        let t = generate(&two, &s.source, &s.consts, o).unwrap().text;
        assert!(
            t.contains(&format!("{g}double *{r}ind_arg3,")) && !t.contains("ind_arg4"),
            "{d:?}:\n{t}"
        );
        assert!(
            t.contains(&format!("{g}const double *{r}ind_arg0,")),
            "{d:?}:\n{t}"
        );
        assert!(
            t.contains(&format!("{g}const short *{r}loc_map,")),
            "{d:?}:\n{t}"
        );
        // a direct loop: read-only arguments const, written ones restrict
        let u = gen(find(&loops, "update"), d).unwrap().text;
        assert!(
            u.contains(&format!("{g}const double *{r}arg0,")),
            "{d:?}:\n{u}"
        );
        assert!(u.contains(&format!("{g}double *{r}arg2,")), "{d:?}:\n{u}");
    }
}

#[test]
fn vector_optional_idx_soa_and_min_max() {
    for c in [
        Conflicts::Colour2,
        Conflicts::Colour2Global,
        Conflicts::Atomics,
    ] {
        let s = samples::synthetic(c);
        let g = gen(&s, Dialect::OpenCl).unwrap();
        // the vector argument: private copies behind an array typed as the parameter
        assert!(
            g.text.contains("const double *const a0[2] = {a0_0, a0_1};"),
            "{}",
            g.text
        );
        // optional: the flag guards the copies and a null pointer goes in when absent
        assert!(g.text.contains("(opt1 ? a1_0 : 0)"));
        assert!(g.params.contains(&LaunchParam::Opt(1)));
        // idx: the element index
        assert!(g.text.contains("&x2"));
        // it increments through a map and reduces: an element past `owned`
        // (another process's) puts the sum back after the call
        let e = match c {
            Conflicts::Colour2 => "offb + n",
            Conflicts::Colour2Global | Conflicts::Atomics => "e",
        };
        assert!(g.params.contains(&LaunchParam::Owned));
        let keep = g
            .text
            .find("for (int k = 0; k < 1; k++) d6[k] = r6[k];")
            .unwrap();
        let call = g.text.find("mixed(a0, ").unwrap();
        let back = g
            .text
            .find(&format!(
                "if (({e}) >= owned) for (int k = 0; k < 1; k++) r6[k] = d6[k];"
            ))
            .unwrap();
        assert!(keep < call && call < back, "{}", g.text);
        // min/max start from the global's value (by value: 4 bytes each)
        assert!(g.text.contains("r4[k] = gbl4.v[k];") && g.text.contains("r5[k] = gbl5.v[k];"));
        assert!(g.params.contains(&LaunchParam::GblValue(4)));
        assert!(!g.params.contains(&LaunchParam::GblIn(4)));
        assert!(g
            .text
            .contains("MIN(red4_s[k * 128 + tid], red4_s[k * 128 + tid + s])"));
        assert!(g
            .text
            .contains("MAX(red5_s[k * 128 + tid], red5_s[k * 128 + tid + s])"));
        assert!(g
            .text
            .contains("__constant double scale = 0x1.0000000000000p-1;"));
        match c {
            // SoA x: strided reads from the group's dat
            Conflicts::Colour2 => {
                assert!(g
                    .text
                    .contains("ind_arg0[(n % 2) * ind_arg0_stride + (imap0[n / 2])]"));
                assert!(g.params.contains(&LaunchParam::GroupStride(0)));
            }
            Conflicts::Atomics => {
                assert!(g
                    .text
                    .contains("ind0[(k) * ind0_stride + (map0[1 * map_stride + e])]"));
                assert!(g.text.contains("op2_atomic_add_float("));
            }
            // SoA x read in place; the optional increment added in its
            // thread colour's turn, when present
            Conflicts::Colour2Global => {
                assert!(g
                    .text
                    .contains("ind0[(k) * ind0_stride + (map0[1 * map_stride + e])]"));
                assert!(
                    g.text
                        .contains("if (opt1) for (int k = 0; k < 1; k++) ind1["),
                    "{}",
                    g.text
                );
                assert!(!g.text.contains("atomic_add"), "{}", g.text);
            }
        }
    }
}

/// x (dat 0, 2 doubles) read through map `map`, entry `idx`.
fn x_through(map: usize, idx: i32) -> Arg {
    Arg::Indirect {
        dat: DatArg {
            dat: 0,
            dim: 2,
            ty: Ty::F64,
            soa: false,
            access: Access::Read,
            optional: false,
        },
        map,
        idx,
    }
}

/// An OP_WORK global: a private array per element, filled from the
/// global's value before every call, passed to the kernel, never reduced.
#[test]
fn work_globals_are_scratch_started_per_element() {
    for c in [Conflicts::Colour2, Conflicts::Atomics] {
        let s = samples::Sample {
            desc: LoopDesc {
                name: "flux".into(),
                kernel: "flux".into(),
                args: vec![
                    x_through(0, -2),
                    Arg::Global {
                        dim: 3,
                        ty: Ty::F64,
                        access: Access::Work,
                    },
                    Arg::Indirect {
                        dat: DatArg {
                            dat: 1,
                            dim: 1,
                            ty: Ty::F64,
                            soa: false,
                            access: Access::Inc,
                            optional: false,
                        },
                        map: 0,
                        idx: 0,
                    },
                ],
                maps: vec![MapDesc { dim: 2 }],
                conflicts: c,
                disjoint_writes: false,
                shared_rows: Vec::new(),
            },
            source: "void flux(const double **x, double *t, double *f) {\n  t[0] = x[0][0]; t[1] = x[1][0]; t[2] = t[0] - t[1];\n  *f += t[2];\n}\n".into(),
            consts: vec![],
        };
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let g = gen(&s, d).unwrap();
            let init = g
                .text
                .find("for (int k = 0; k < 3; k++) w1[k] = gbl1.v[k];")
                .unwrap();
            let call = g.text.find("flux(a0, w1, ").unwrap();
            // started right before the call, inside the per-element code
            assert!(
                init < call && !g.text[init..call].contains("for (int e"),
                "{}",
                g.text
            );
            // 24 bytes: by value
            assert!(g.params.contains(&LaunchParam::GblValue(1)));
            assert!(!g.params.contains(&LaunchParam::RedOut(1)));
            assert!(!g.text.contains("red1"));
        }
    }
}

/// An argument switched off by its call: a null pointer for the kernel,
/// no parameter, nothing staged or reduced for it, in both dialects and
/// every scheme.
#[test]
fn an_argument_that_is_off_is_a_null_pointer() {
    for c in [Conflicts::Colour2, Conflicts::Atomics] {
        let s = samples::Sample {
            desc: LoopDesc {
                name: "opt".into(),
                kernel: "opt".into(),
                args: vec![x_through(0, 1), Arg::Off, Arg::Idx],
                maps: vec![MapDesc { dim: 2 }],
                conflicts: c,
                disjoint_writes: false,
                shared_rows: Vec::new(),
            },
            source: "void opt(const double *x, double *w, const int *i) {\n  if (w) w[0] = x[0] + *i;\n}\n".into(),
            consts: vec![],
        };
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let g = gen(&s, d).unwrap();
            assert!(g.text.contains("opt(a0_0, 0, &x2);"), "{d:?}:\n{}", g.text);
            assert!(
                !g.text.contains("arg1") && !g.text.contains("opt1") && !g.text.contains("red1"),
                "{d:?}:\n{}",
                g.text
            );
            assert!(g.params.iter().all(|p| !matches!(
                p,
                LaunchParam::Dat(1) | LaunchParam::Opt(1) | LaunchParam::RedOut(1)
            )));
        }
    }
}

#[test]
fn descriptions_it_cannot_serve_are_named_errors() {
    let loops = airfoil(Conflicts::Atomics);
    let s = find(&loops, "res_calc");
    let o = Options {
        dialect: Dialect::Cuda,
        block_size: 128,
        wide_offsets: false,
        fma: false,
    };
    let with = |f: &dyn Fn(&mut LoopDesc)| {
        let mut d = s.desc.clone();
        f(&mut d);
        generate(&d, &s.source, &s.consts, o)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        with(&|d| d.args[0] = x_through(0, 2)),
        "loop res_calc: argument 0: idx 2 with a map of dim 2"
    );
    assert_eq!(
        with(&|d| if let Arg::Indirect { dat, .. } = &mut d.args[6] {
            dat.access = Access::Rw
        }),
        "loop res_calc: argument 7: dat 4 reached through maps with OP_RW and OP_INC"
    );
    assert_eq!(
        with(&|d| {
            for a in d.args.iter_mut().skip(6) {
                if let Arg::Indirect { dat, .. } = a {
                    dat.access = Access::Rw;
                }
            }
        }),
        "loop res_calc: argument 6: OP_RW through a map needs colouring, not atomics"
    );
    // what the run-time compiler asks before it keeps atomics for a loop
    assert_eq!(s.desc.needs_colouring(), None);
    let mut d = s.desc.clone();
    for (i, access) in [(7, Access::Write), (6, Access::Rw)] {
        if let Arg::Indirect { dat, .. } = &mut d.args[i] {
            dat.access = access;
        }
        assert_eq!(d.needs_colouring(), Some((i, access)));
    }
    assert_eq!(
        with(&|d| d.kernel = "no_such".into()),
        "loop res_calc: no definition of kernel no_such in its source"
    );
    assert_eq!(
        with(&|d| {
            d.args.pop();
        }),
        "loop res_calc: kernel res_calc takes 8 parameters, the loop passes 7 arguments"
    );
    assert_eq!(
        with(&|d| d.args[0] = Arg::Global {
            dim: 1,
            ty: Ty::F64,
            access: Access::Rw
        }),
        "loop res_calc: argument 0: a global written with OP_RW (on the host the last element's write wins; the device has no such order)"
    );
    assert_eq!(
        with(&|d| if let Arg::Indirect { dat, .. } = &mut d.args[0] {
            dat.access = Access::Work
        }),
        "loop res_calc: argument 0: OP_WORK is for globals only"
    );
    assert_eq!(
        with(&|d| d.args[0] = x_through(9, 0)),
        "loop res_calc: argument 0: map 9 is not among the loop's 5 maps"
    );
}

#[test]
fn colouring_serves_what_atomics_cannot_and_block_sizes_are_checked() {
    let loops = airfoil(Conflicts::Atomics);
    let s = find(&loops, "res_calc");
    let o = Options {
        dialect: Dialect::Cuda,
        block_size: 128,
        wide_offsets: false,
        fma: false,
    };
    assert_eq!(
        generate(
            &s.desc,
            &s.source,
            &s.consts,
            Options {
                dialect: Dialect::Cuda,
                block_size: 96,
                wide_offsets: false,
                fma: false,
            }
        )
        .unwrap_err()
        .to_string(),
        "loop res_calc: block size 96 is not a power of two up to 1024"
    );
    // the same loop with colouring serves RW through a map
    let mut d = s.desc.clone();
    d.conflicts = Conflicts::Colour2;
    for a in d.args.iter_mut().skip(6) {
        if let Arg::Indirect { dat, .. } = a {
            dat.access = Access::Rw;
        }
    }
    let g = generate(&d, &s.source, &s.consts, o).unwrap();
    assert!(g
        .text
        .contains("ind_arg3[(imap3[n / 4]) * 4 + (n % 4)] = s3[n];"));
}

#[test]
fn types_parse_as_op2_writes_them() {
    assert_eq!(Ty::parse("double"), Some((Ty::F64, false)));
    assert_eq!(Ty::parse("double:soa"), Some((Ty::F64, true)));
    assert_eq!(Ty::parse("r4"), Some((Ty::F32, false)));
    assert_eq!(Ty::parse("int"), Some((Ty::I32, false)));
    assert_eq!(Ty::parse("long"), Some((Ty::I64, false)));
    assert_eq!(Ty::parse("ll:soa"), Some((Ty::I64, true)));
    assert_eq!(Ty::parse("unsigned long long"), Some((Ty::U64, false)));
    assert_eq!(Ty::parse("uint"), Some((Ty::U32, false)));
    assert_eq!(Ty::parse("bool"), Some((Ty::Bool, false)));
    assert_eq!(Ty::parse("my_type"), None);
    assert_eq!(Ty::parse("long double"), None);
}

#[test]
fn kernels_are_found_in_the_examples_with_their_helpers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dirs = [root.join("c-examples/jac"), root.join("c-examples/airfoil")];
    let k = find_kernel("res_calc", &dirs, &Default::default(), None, None).unwrap();
    assert_eq!(k.file, root.join("c-examples/airfoil/res_calc.h"));
    assert!(
        k.text.contains("inline void res_calc_state("),
        "the helper comes along"
    );
    // jac's kernels come first from its own directory
    assert_eq!(
        find_kernel("res", &dirs, &Default::default(), None, None)
            .unwrap()
            .file,
        root.join("c-examples/jac/res.h")
    );
    let e = find_kernel("no_such_kernel", &dirs, &Default::default(), None, None).unwrap_err();
    assert_eq!(e.kernel, "no_such_kernel");
}

/// A read-only global of at most GBL_BY_VALUE_BYTES is a kernel parameter
/// by value (a struct of its values: no upload, which on a GPU waits for
/// the loops queued before it); a larger one stays a device buffer.
#[test]
fn small_read_globals_are_passed_by_value() {
    let gbl = |dim, ty| Arg::Global {
        dim,
        ty,
        access: Access::Read,
    };
    let s = samples::Sample {
        desc: LoopDesc {
            name: "scale".into(),
            kernel: "scale".into(),
            args: vec![
                Arg::Direct(DatArg {
                    dat: 0,
                    dim: 1,
                    ty: Ty::F64,
                    soa: false,
                    access: Access::Rw,
                    optional: false,
                }),
                gbl(3, Ty::F64),
                gbl(9, Ty::F64),
                gbl(16, Ty::I32),
            ],
            maps: vec![],
            conflicts: Conflicts::Colour2,
            disjoint_writes: false,
            shared_rows: Vec::new(),
        },
        source: "void scale(double *u, const double *c, const double *big, const int *n) {\n  *u = *u * c[0] + big[8] + n[15];\n}\n".into(),
        consts: vec![],
    };
    assert_eq!(GBL_BY_VALUE_BYTES, 64);
    for d in [Dialect::OpenCl, Dialect::Cuda] {
        let g = gen(&s, d).unwrap();
        use LaunchParam::*;
        assert_eq!(
            g.params,
            [Dat(0), GblValue(1), GblIn(2), GblValue(3), SetSize],
            "{}",
            g.text
        );
        for want in [
            "typedef struct { double v[3]; } op2_gbl1_t;",
            "typedef struct { int v[16]; } op2_gbl3_t;",
            "const op2_gbl1_t gbl1",
            "for (int k = 0; k < 3; k++) g1[k] = gbl1.v[k];",
            "for (int k = 0; k < 9; k++) g2[k] = gbl2[k];",
            "for (int k = 0; k < 16; k++) g3[k] = gbl3.v[k];",
        ] {
            assert!(g.text.contains(want), "{want}:\n{}", g.text);
        }
        // the types come before the kernel that takes them
        let t = g.text.find("op2_gbl3_t;").unwrap();
        assert!(t < g.text.find(&g.entry).unwrap(), "{}", g.text);
    }
}

/// Every offset of the form `(x) * n + (k)` in `stub` (a dat's component,
/// a map's entry) starts with `x` converted to `op2_i64`; the number found.
fn widened_offsets(stub: &str) -> usize {
    let mut found = 0;
    for (i, _) in stub.match_indices(") * ") {
        let rest = &stub[i + 4..];
        let token_end = rest.find(' ').unwrap_or(rest.len());
        if !rest[token_end..].starts_with(" + (") {
            continue;
        }
        // the parenthesis that `)` closes
        let j = op2_codegen::source::opening_paren(stub, i);
        assert!(
            stub[..j].ends_with("(op2_i64)"),
            "an offset in 32 bits: {}",
            &stub[j.saturating_sub(20)..(i + 4 + token_end + 4).min(stub.len())]
        );
        found += 1;
    }
    found
}

/// 64-bit offsets: the same code but for the conversions (every dat and map
/// offset), the `op2_i64` type and the plan's offset parameters; without
/// them the text names no `op2_i64`; the launcher's threshold.
#[test]
fn sixty_four_bit_offsets_only_widen_the_index_arithmetic() {
    for c in [
        Conflicts::Colour2,
        Conflicts::Colour2Global,
        Conflicts::Atomics,
    ] {
        let mut loops = airfoil(c);
        loops.push(samples::synthetic(c));
        if c != Conflicts::Atomics {
            loops.push(samples::collapsed(c));
        }
        for s in &loops {
            for d in [Dialect::OpenCl, Dialect::Cuda] {
                let o = |wide_offsets| Options {
                    dialect: d,
                    block_size: 64,
                    wide_offsets,
                    fma: false,
                };
                let narrow = generate(&s.desc, &s.source, &s.consts, o(false)).unwrap();
                let wide = generate(&s.desc, &s.source, &s.consts, o(true)).unwrap();
                let name = format!("{} {c:?} {d:?}", s.desc.name);
                assert!(!narrow.wide_offsets && wide.wide_offsets);
                assert!(!narrow.text.contains("op2_i64"), "{name}");
                assert_eq!(narrow.params, wide.params, "{name}");
                let header = wide.text.lines().next().unwrap();
                assert!(
                    header.ends_with(", work-group 64, 64-bit offsets"),
                    "{name}: {header}"
                );
                let typedef = match d {
                    Dialect::OpenCl => "typedef long op2_i64;\n",
                    Dialect::Cuda => "typedef long long op2_i64;\n",
                };
                assert_eq!(wide.text.matches(typedef).count(), 1, "{name}");
                let stub = wide
                    .text
                    .split("// ---- op2-rs kernel stub ----")
                    .nth(1)
                    .unwrap();
                assert!(widened_offsets(stub) > 0, "{name}");
                for (i, _) in stub.match_indices(" * map_stride") {
                    let before = &stub[..i];
                    let start = before.rfind('[').unwrap();
                    assert!(
                        before[start..].starts_with("[(op2_i64)"),
                        "{name}: {}",
                        &before[start..]
                    );
                }
                // the plan's offsets are op2_i64 parameters
                for p in ["ind_map0_start", "loc_map0_start"] {
                    if narrow.text.contains(&format!("int {p}")) {
                        assert!(wide.text.contains(&format!("op2_i64 {p}")), "{name}: {p}");
                    }
                }
                // and nothing else differs
                let back = wide
                    .text
                    .replacen(", 64-bit offsets", "", 1)
                    .replacen(typedef, "", 1)
                    .replace("(op2_i64)", "")
                    .replace("op2_i64 ", "int ");
                let strip = |t: &str| t.replace(['(', ')'], "");
                assert_eq!(strip(&back), strip(&narrow.text), "{name}");
            }
        }
    }
    assert!(!offsets_need_64_bits(1 << 31));
    assert!(offsets_need_64_bits((1 << 31) + 1));
    // a dat of dim 16 (aero's K) on 2^27 elements: offsets up to 2^31 - 1
    assert!(!offsets_need_64_bits(16 << 27));
    assert!(offsets_need_64_bits(16 * ((1 << 27) + 32)));
}

/// A loop whose element may reach a written row twice (`shared_rows`):
/// one private array per dat, a pointer per map entry into it, each
/// pointer taking the slot of the first earlier pointer at the same
/// address, the vector argument's array filled from them; in both
/// colourings and both dialects. Without `shared_rows` each pointer has
/// its own copy.
#[test]
fn pointers_that_may_meet_on_a_row_share_one_copy() {
    // (OP_RW through a map: colouring only)
    for c in [Conflicts::Colour2, Conflicts::Colour2Global] {
        let s = samples::collapsed(c);
        for d in [Dialect::OpenCl, Dialect::Cuda] {
            let t = gen(&s, d).unwrap().text;
            let name = format!("{c:?} {d:?}");
            for want in [
                "double al0[2][2];",
                "double *a0_0;",
                "double *a1_0;",
                "double al2[2][1];",
                "double * a2[2];",
                "int sl0_1 = 1;",
                ") sl0_1 = sl0_0;",
                "a1_0 = al0[sl0_1];",
                "a2_1 = al2[sl2_1];",
                "a2[1] = a2_1;",
            ] {
                assert!(t.contains(want), "{name}: {want}\n{t}");
            }
            let mut own = s.clone();
            own.desc.shared_rows.clear();
            let t = gen(&own, d).unwrap().text;
            assert!(
                !t.contains("al0") && t.contains("double a1_0[2];"),
                "{name}\n{t}"
            );
        }
    }
}

/// OP2's 64-bit and unsigned integer types: the private copies and device
/// pointers through typedefs of the dialect (OpenCL C's `long long` is 128
/// bits: the kernel's is rewritten to `long`; CUDA C++'s `long` and `long
/// long` are distinct types, so the typedef follows the kernel's
/// spelling), 64-bit atomics where asked, constants with their literals.
#[test]
fn sixty_four_bit_and_unsigned_integers() {
    let s = samples::wide_ints(Conflicts::Atomics);
    let cl = gen(&s, Dialect::OpenCl).unwrap().text;
    assert!(
        cl.contains("typedef long op2_ll;\ntypedef ulong op2_ull;\n"),
        "{cl}"
    );
    assert!(cl.contains("cl_khr_int64_base_atomics"), "{cl}");
    assert!(cl.contains("atom_add("), "{cl}");
    assert!(!cl.contains("long long"), "{cl}");
    assert!(cl.contains("void wide_ints(long *l, long *r,"), "{cl}");
    assert!(cl.contains("op2_ll a0_0[1];"), "{cl}");
    assert!(cl.contains("unsigned int a2_1[1];"), "{cl}");
    assert!(
        cl.contains("__constant long shift = -34359738368L;"),
        "{cl}"
    );
    assert!(
        cl.contains("__constant ulong mult = 11400714819323198485UL;"),
        "{cl}"
    );
    let cu = gen(&s, Dialect::Cuda).unwrap().text;
    assert!(
        cu.contains("typedef long long op2_ll;\ntypedef unsigned long long op2_ull;\n"),
        "{cu}"
    );
    assert!(cu.contains("atomicAdd((unsigned long long *)("), "{cu}");
    assert!(cu.contains("__constant__ long long shift;"), "{cu}");
    // a kernel that says `long` (and `unsigned long`): so do the
    // typedefs, in CUDA only
    let mut l = s.clone();
    l.source = l.source.replace("long long *", "long *");
    let cu = gen(&l, Dialect::Cuda).unwrap().text;
    assert!(
        cu.contains("typedef long op2_ll;\ntypedef unsigned long op2_ull;\n"),
        "{cu}"
    );
    let cl = gen(&l, Dialect::OpenCl).unwrap().text;
    assert!(cl.contains("typedef long op2_ll;\n"), "{cl}");
    // <stdint.h>'s names: declared as glibc does (int64_t is long)
    let mut f = s.clone();
    f.source = f
        .source
        .replace("unsigned long long *", "uint64_t *")
        .replace("long long *", "int64_t *")
        .replace(
            "const unsigned int *const *tag",
            "const uint32_t *const *tag",
        );
    let cu = gen(&f, Dialect::Cuda).unwrap().text;
    assert!(
        cu.contains("typedef long op2_ll;\ntypedef unsigned long op2_ull;\n"),
        "{cu}"
    );
    let fixed =
        "typedef unsigned int uint32_t;\ntypedef long int64_t;\ntypedef unsigned long uint64_t;\n";
    assert!(cu.contains(fixed), "{cu}");
    let cl = gen(&f, Dialect::OpenCl).unwrap().text;
    let fixed = "typedef uint uint32_t;\ntypedef long int64_t;\ntypedef ulong uint64_t;\n";
    assert!(cl.contains(fixed), "{cl}");
    // colouring: no atomics, no extension
    let c = gen(&samples::wide_ints(Conflicts::Colour2), Dialect::OpenCl)
        .unwrap()
        .text;
    assert!(
        !c.contains("cl_khr_int64_base_atomics") && !c.contains("atom_add"),
        "{c}"
    );
}

/// `bool` dats and globals: bytes in device memory (OpenCL C allows
/// `bool` in neither buffers nor kernel parameters), `bool` private
/// copies for the kernel; a sum of bools reduces with `||`; OP_INC through
/// a map on a bool dat and op_arg_info with a bool are refused (the loop
/// runs on the host).
#[test]
fn bools_are_bytes_in_device_memory() {
    let s = samples::flags(Conflicts::Colour2);
    for d in [Dialect::OpenCl, Dialect::Cuda] {
        let t = gen(&s, d).unwrap().text;
        let def = match d {
            Dialect::OpenCl => "typedef uchar op2_bool;\n",
            Dialect::Cuda => "typedef unsigned char op2_bool;\n",
        };
        assert!(t.contains(def), "{t}");
        assert!(t.contains("op2_bool *") && t.contains("bool a0[1];"), "{t}");
        assert!(t.contains(") || ("), "{t}");
        let decl = t.split("void op2_k_flags(").nth(1).unwrap();
        let decl = &decl[..decl.find(')').unwrap()];
        // no parameter of the entry is a bool (OpenCL C refuses them)
        let words = decl.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        assert!(!words.clone().any(|w| w == "bool"), "{decl}");
    }
    let mut inc = s.clone();
    if let Arg::Indirect { dat, .. } = &mut inc.desc.args[1] {
        dat.access = Access::Inc;
    }
    let e = gen(&inc, Dialect::OpenCl).unwrap_err().to_string();
    assert!(e.contains("OP_INC through a map on a bool dat"), "{e}");
}
