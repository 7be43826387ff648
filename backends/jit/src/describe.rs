//! A loop as the generator needs it ([`op2_codegen::LoopDesc`]), from core's
//! checked arguments: maps numbered in order of first use, each dat's
//! layout on the device (SoA or not) as the caller's copies have it, an
//! optional dat argument switched off by its call as an optional argument
//! (the launch then passes flag 0), one that core keeps as no dat (what
//! `op_opt_arg_dat(0, ...)` becomes) as an argument that is off (a null
//! pointer for the kernel); an OP_WORK dat as OP_RW; whether no two
//! elements share a row the loop writes through a map (found on the maps'
//! values: [`op2_core::conflicts::writes_disjoint`]); the dats one
//! element may write twice through maps (one copy per distinct row). What
//! the generator does not write, or the device cannot order as the host
//! does, is refused with the arguments and why, so the loop can run on the
//! host instead.

use op2_codegen as cg;
use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::device::layout;
use op2_core::domain::{DatId, Domain, MapId, SetId};

/// The generator's access mode for an argument of kind `kind`: OP_WORK
/// on a dat (scratch the kernel reads and writes on its elements, which
/// the host runs as a write) is described as OP_RW, so the device leaves in
/// the dat what the kernel left, as the host does.
fn access(a: Access, kind: &ArgKind) -> cg::Access {
    match a {
        Access::Read => cg::Access::Read,
        Access::Write => cg::Access::Write,
        Access::Rw => cg::Access::Rw,
        Access::Inc => cg::Access::Inc,
        Access::Min => cg::Access::Min,
        Access::Max => cg::Access::Max,
        Access::Work if matches!(kind, ArgKind::Dat { .. }) => cg::Access::Rw,
        Access::Work => cg::Access::Work,
    }
}

/// The description of loop `name` (kernel `kernel`) with arguments `args`
/// on `dom`; `soa(dat)` says whether the dat's device copy is SoA.
pub fn describe(
    name: &str,
    kernel: &str,
    args: &[ArgSpec],
    dom: &Domain,
    soa: &dyn Fn(DatId) -> bool,
    conflicts: cg::Conflicts,
) -> Result<cg::LoopDesc, String> {
    let mut maps: Vec<MapId> = Vec::new();
    let mut map_index = |m: MapId| {
        maps.iter().position(|&x| x == m).unwrap_or_else(|| {
            maps.push(m);
            maps.len() - 1
        })
    };
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        // switched off in this call and kept by core as no dat (what
        // op_opt_arg_dat(0, ...) becomes): the kernel gets a null pointer; a
        // call that switches it on is a loop of its own, described again
        if !a.opt && !matches!(a.kind, ArgKind::Dat { .. }) {
            out.push(cg::Arg::Off);
            continue;
        }
        let no = |w: &str| format!("argument {i}: {w}");
        let acc = access(a.access, &a.kind);
        let dim = usize::try_from(a.dim)
            .ok()
            .filter(|&d| d > 0)
            .ok_or_else(|| no("dim must be positive"))?;
        let (ty, soa_type) = cg::Ty::parse(&a.type_name).ok_or_else(|| {
            no(&format!(
                "type '{}' has no device form (double, float, int, uint, ll, ull, bool)",
                a.type_name
            ))
        })?;
        out.push(match a.kind {
            ArgKind::Dat { dat, map, idx } => {
                let d = cg::DatArg {
                    dat: dat.0,
                    dim,
                    ty,
                    soa: soa_type || soa(dat),
                    access: acc,
                    optional: !a.opt,
                };
                match map {
                    None => cg::Arg::Direct(d),
                    Some(m) => cg::Arg::Indirect {
                        dat: d,
                        map: map_index(m),
                        idx,
                    },
                }
            }
            ArgKind::Gbl => cg::Arg::Global {
                dim,
                ty,
                access: acc,
            },
            ArgKind::Idx { map: None, .. } => cg::Arg::Idx,
            ArgKind::Idx { map: Some(m), idx } => cg::Arg::IdxMap {
                map: map_index(m),
                idx,
            },
            ArgKind::Info { reference } => cg::Arg::Info {
                reference: usize::try_from(reference)
                    .map_err(|_| no("op_arg_info refers to a negative argument"))?,
                dim,
                ty,
            },
        });
    }
    if let Some(why) = mixed_modes(args, dom) {
        return Err(why);
    }
    let shared_rows = shared_rows(args, dom)?;
    Ok(cg::LoopDesc {
        name: name.to_string(),
        kernel: kernel.to_string(),
        args: out,
        maps: maps
            .iter()
            .map(|&m| cg::MapDesc {
                dim: dom.map(m).dim,
            })
            .collect(),
        conflicts,
        disjoint_writes: op2_core::conflicts::writes_disjoint(args, dom),
        shared_rows,
    })
}

/// Two arguments on one dat that the device cannot serve as the host
/// does ([`op2_core::conflicts::mixed_modes`]), the first such pair said
/// with the dat's and map's names and why:
/// * both direct in two modes (OP_READ and OP_RW): on the host the
///   kernel's two pointers are one row, and it reads what it wrote through
///   the other; the device gives each pointer a copy of its own;
/// * one direct and one through a map (from the loop's set to itself), one
///   of them modifying the dat: an element's own row is another's
///   neighbour, so elements meet on rows the plan's colouring does not see
///   (it keeps apart writes through maps only);
/// * both through maps, in two modes (OP_READ and OP_INC): one element's
///   update meets another's access to the row in an order only the host's
///   sequence defines.
fn mixed_modes(args: &[ArgSpec], dom: &Domain) -> Option<String> {
    use op2_core::conflicts::Meeting;
    let m = op2_core::conflicts::mixed_modes(args).into_iter().next()?;
    let why = match m.meeting {
        Meeting::Direct => "on the host the kernel's two pointers are one row, and it reads through one what it wrote through the other; the device would give each pointer a copy of its own",
        Meeting::DirectAndMap(_) => "an element's own row is another's through the map, and the device's colouring, which keeps apart writes through maps only, would not order them as the host does",
        Meeting::Maps => "one element's update would meet another's access to the row in an order only the host's sequence defines",
    };
    Some(format!("{}: {why}", m.pair(args, dom)))
}

/// The dats one element reaches twice through pointers through maps that
/// write without adding ([`op2_core::conflicts::aliased_each`]): the
/// generator gives such pointers one private copy per distinct row
/// ([`cg::LoopDesc::shared_rows`]). Two direct arguments on one row, and
/// an optional argument on such a dat (whose pointer may be null), are
/// refused, said by argument, dat, row and element.
fn shared_rows(args: &[ArgSpec], dom: &Domain) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for a in op2_core::conflicts::aliased_each(args, dom) {
        let direct = |i: usize| matches!(args[i].kind, ArgKind::Dat { map: None, .. });
        let optional = args
            .iter()
            .any(|s| matches!(s.kind, ArgKind::Dat { dat, .. } if dat == a.dat) && !s.opt);
        if direct(a.first) || direct(a.second) || optional {
            return Err(aliased(&a, args, dom));
        }
        out.push(a.dat.0);
    }
    Ok(out)
}

/// Why a loop whose element reaches one written row through two direct
/// pointers (or through an optional one) stays on the host: the generated
/// code hands the kernel a private copy per such pointer (OpenCL C 1.2 has
/// no pointer into global or local memory a kernel's parameter could
/// take), which would keep apart what the host's kernel writes as one row.
fn aliased(a: &op2_core::conflicts::Alias, args: &[ArgSpec], dom: &Domain) -> String {
    let dat = &dom.dat(a.dat).name;
    let how = |i: usize| match args[i].kind {
        ArgKind::Dat { map: Some(m), .. } => {
            format!("{} through map {}", args[i].access.name(), dom.map(m).name)
        }
        _ => format!("{} directly", args[i].access.name()),
    };
    let what = if a.first == a.second {
        format!(
            "argument {} reaches row {} of dat {dat} twice",
            a.first, a.row
        )
    } else {
        format!(
            "arguments {} and {} reach row {} of dat {dat} together",
            a.first, a.second, a.row
        )
    };
    format!(
        "{what} from element {} ({}): the device gives each pointer a copy of its own, and would keep apart what the kernel writes as one row",
        a.element,
        how(a.second)
    )
}

/// The most elements an offset in the loop's generated code can span
/// (what [`op2_codegen::offsets_need_64_bits`] judges): each dat's rows on
/// the device (owned and halo elements, rounded up as OP2's SoA stride)
/// times its dim, each map's row length on the device times its dim, and
/// the staged scheme's plan arrays (one entry per element of `set` and map
/// entry of the loop's indirect arguments).
pub fn offset_span(args: &[ArgSpec], dom: &Domain, set: SetId) -> usize {
    let map_span = |m: MapId| {
        let m = dom.map(m);
        layout::map_stride(dom.set(m.from)).saturating_mul(m.dim)
    };
    let mut span = 0usize;
    let mut entries = 0usize;
    for a in args {
        match a.kind {
            ArgKind::Dat { dat, map, idx } => {
                let d = dom.dat(dat);
                span = span.max(layout::soa_stride(dom.set(d.set)).saturating_mul(d.dim));
                if let Some(m) = map {
                    span = span.max(map_span(m));
                    entries += if idx < 0 { dom.map(m).dim } else { 1 };
                }
            }
            ArgKind::Idx { map: Some(m), .. } => span = span.max(map_span(m)),
            _ => {}
        }
    }
    span.max(entries.saturating_mul(layout::map_stride(dom.set(set))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use op2_core::domain::MapCheck;

    fn spec(kind: ArgKind, dim: i32, ty: &str, access: Access) -> ArgSpec {
        ArgSpec {
            kind,
            dim,
            type_name: ty.into(),
            access,
            opt: true,
        }
    }

    /// Four nodes, three edges between them, a 2-double dat on the nodes.
    fn chain() -> (Domain, SetId, SetId, MapId, DatId) {
        let mut dom = Domain::new();
        let nodes = dom.decl_set(4, "nodes").unwrap();
        let edges = dom.decl_set(3, "edges").unwrap();
        let e2n = dom
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 1, 2, 2, 3],
                0,
                "e2n",
                MapCheck::Local,
            )
            .unwrap();
        let x = dom
            .decl_dat("op_decl_dat", nodes, 2, "double", 8, None, "x", false)
            .unwrap();
        (dom, nodes, edges, e2n, x)
    }

    #[test]
    fn core_arguments_become_the_generators() {
        let (mut dom, nodes, edges, e2n, x) = chain();
        let cells = dom.decl_set(1, "cells").unwrap();
        let c2n = dom
            .decl_map(cells, nodes, 4, &[0, 1, 2, 3], 0, "c2n", MapCheck::Local)
            .unwrap();
        let w = dom
            .decl_dat("op_decl_dat", edges, 1, "float", 4, None, "w", false)
            .unwrap();
        let y = dom
            .decl_dat("op_decl_dat", nodes, 2, "double", 8, None, "y", false)
            .unwrap();
        let dat = |d, m, idx| ArgKind::Dat {
            dat: d,
            map: m,
            idx,
        };
        let mut args = vec![
            spec(dat(x, Some(c2n), -4), 2, "double", Access::Read),
            spec(dat(y, Some(e2n), 1), 2, "double", Access::Inc),
            spec(dat(w, None, -1), 1, "float:soa", Access::Rw),
            spec(ArgKind::Gbl, 1, "double", Access::Max),
            spec(ArgKind::Idx { map: None, idx: -1 }, 1, "int", Access::Read),
        ];
        args[1].opt = false;
        let d = describe("l", "k", &args, &dom, &|id| id == x, cg::Conflicts::Atomics).unwrap();
        assert_eq!(
            d.maps,
            [cg::MapDesc { dim: 4 }, cg::MapDesc { dim: 2 }],
            "maps in order of first use"
        );
        match &d.args[0] {
            cg::Arg::Indirect {
                dat,
                map: 0,
                idx: -4,
            } => assert!(dat.soa && dat.dim == 2),
            other => panic!("{other:?}"),
        }
        match &d.args[1] {
            cg::Arg::Indirect {
                dat,
                map: 1,
                idx: 1,
            } => assert!(dat.optional && dat.access == cg::Access::Inc),
            other => panic!("{other:?}"),
        }
        match &d.args[2] {
            cg::Arg::Direct(dat) => assert!(dat.soa && dat.ty == cg::Ty::F32, "':soa' in the type"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            d.args[3],
            cg::Arg::Global {
                dim: 1,
                ty: cg::Ty::F64,
                access: cg::Access::Max
            }
        );
        assert_eq!(d.args[4], cg::Arg::Idx);
        d.validate().unwrap();
    }

    /// `op_opt_arg_dat(0, ...)` reaches core as a global that is off: its
    /// access mode (OP_RW here, which a global may not have on the device)
    /// does not matter, the kernel gets a null pointer.
    #[test]
    fn an_argument_switched_off_by_its_call_is_off() {
        let (dom, _, _, e2n, x) = chain();
        let mut off = spec(ArgKind::Gbl, 2, "double", Access::Rw);
        off.opt = false;
        let args = [
            spec(
                ArgKind::Dat {
                    dat: x,
                    map: Some(e2n),
                    idx: 0,
                },
                2,
                "double",
                Access::Read,
            ),
            off,
        ];
        let d = describe("l", "k", &args, &dom, &|_| false, cg::Conflicts::Colour2).unwrap();
        assert_eq!(d.args[1], cg::Arg::Off);
        d.validate().unwrap();
    }

    /// One dat in two arguments the device cannot serve as the host does:
    /// passed twice directly in two modes, one modifying it; directly and
    /// through a map, one modifying it; through maps in two modes. Reading
    /// it directly and through a map, or twice directly, is served.
    #[test]
    fn one_dat_in_two_arguments_of_two_kinds_is_refused() {
        let (mut dom, nodes, _, _, x) = chain();
        let n2n = dom
            .decl_map(nodes, nodes, 1, &[1, 2, 3, 0], 0, "n2n", MapCheck::Local)
            .unwrap();
        let direct = |a| {
            spec(
                ArgKind::Dat {
                    dat: x,
                    map: None,
                    idx: -1,
                },
                2,
                "double",
                a,
            )
        };
        let around = |a| {
            let kind = ArgKind::Dat {
                dat: x,
                map: Some(n2n),
                idx: 0,
            };
            spec(kind, 2, "double", a)
        };
        let why = |args: &[ArgSpec]| {
            describe("l", "k", args, &dom, &|_| false, cg::Conflicts::Colour2).err()
        };
        let w = why(&[direct(Access::Read), direct(Access::Rw)]).unwrap();
        assert!(
            w.starts_with("arguments 0 and 1 pass dat x directly with OP_READ and OP_RW: "),
            "{w}"
        );
        let w = why(&[around(Access::Read), direct(Access::Inc)]).unwrap();
        assert!(
            w.starts_with(
                "arguments 0 and 1 reach dat x through map n2n (OP_READ) and directly (OP_INC): "
            ),
            "{w}"
        );
        let w = why(&[direct(Access::Write), around(Access::Read)]).unwrap();
        assert!(
            w.starts_with(
                "arguments 0 and 1 reach dat x directly (OP_WRITE) and through map n2n (OP_READ): "
            ),
            "{w}"
        );
        let w = why(&[around(Access::Read), around(Access::Inc)]).unwrap();
        assert!(
            w.starts_with("arguments 0 and 1 reach dat x through maps with OP_READ and OP_INC: "),
            "{w}"
        );
        assert_eq!(why(&[direct(Access::Read), around(Access::Read)]), None);
        assert_eq!(why(&[direct(Access::Read), direct(Access::Read)]), None);
        // switched off in this call: nothing meets
        let mut off = direct(Access::Rw);
        off.opt = false;
        assert!(why(&[direct(Access::Read), off]).is_none());
    }

    /// An element that reaches one written row through two pointers
    /// through maps (a collapsed edge) gets one copy per distinct row: the
    /// dat is in `shared_rows` (two arguments, or a vector argument's two
    /// entries); increments, and maps without a repeated entry, need none.
    /// Two direct arguments on one row, or an optional argument on such a
    /// dat, keep the loop on the host, said by argument, dat, row and
    /// element.
    #[test]
    fn pointers_meeting_on_a_written_row_share_one_copy() {
        let (mut dom, nodes, edges, e2n, x) = chain();
        let c2n = dom
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 3, 3, 2, 3],
                0,
                "collapsed",
                MapCheck::Local,
            )
            .unwrap();
        let on = |m, idx| ArgKind::Dat {
            dat: x,
            map: Some(m),
            idx,
        };
        let shared = |args: &[ArgSpec]| {
            describe("l", "k", args, &dom, &|_| false, cg::Conflicts::Colour2)
                .map(|d| d.shared_rows)
        };
        let two = [
            spec(on(c2n, 0), 2, "double", Access::Rw),
            spec(on(c2n, 1), 2, "double", Access::Rw),
        ];
        assert_eq!(shared(&two), Ok(vec![x.0]));
        let vector = [spec(on(c2n, -2), 2, "double", Access::Write)];
        assert_eq!(shared(&vector), Ok(vec![x.0]));
        let inc = [
            spec(on(c2n, 0), 2, "double", Access::Inc),
            spec(on(c2n, 1), 2, "double", Access::Inc),
        ];
        assert_eq!(shared(&inc), Ok(vec![]));
        let chain_rw = [
            spec(on(e2n, 0), 2, "double", Access::Rw),
            spec(on(e2n, 1), 2, "double", Access::Rw),
        ];
        assert_eq!(shared(&chain_rw), Ok(vec![]));
        let direct = ArgKind::Dat {
            dat: x,
            map: None,
            idx: -1,
        };
        let twice = [
            spec(direct.clone(), 2, "double", Access::Rw),
            spec(direct, 2, "double", Access::Rw),
        ];
        assert_eq!(
            shared(&twice).unwrap_err(),
            "arguments 0 and 1 reach row 0 of dat x together from element 0 (OP_RW directly): \
             the device gives each pointer a copy of its own, and would keep apart what the kernel writes as one row"
        );
        let mut off = spec(on(c2n, 0), 2, "double", Access::Rw);
        off.opt = false;
        let with_off = [two[0].clone(), two[1].clone(), off];
        assert!(shared(&with_off)
            .unwrap_err()
            .starts_with("arguments 0 and 1 reach row 3 of dat x together from element 1 (OP_RW through map collapsed)"));
    }

    #[test]
    fn what_is_not_generated_yet_is_refused_by_argument() {
        let (dom, _, _, e2n, x) = chain();
        let dat = |d, m, idx| ArgKind::Dat {
            dat: d,
            map: m,
            idx,
        };
        // OP_WORK: a dat's is described as OP_RW, a global's as scratch
        let work = [
            spec(dat(x, Some(e2n), 0), 2, "double", Access::Work),
            spec(ArgKind::Gbl, 3, "double", Access::Work),
        ];
        let d = describe("l", "k", &work, &dom, &|_| false, cg::Conflicts::Colour2).unwrap();
        assert!(
            matches!(&d.args[0], cg::Arg::Indirect { dat, .. } if dat.access == cg::Access::Rw)
        );
        assert_eq!(
            d.args[1],
            cg::Arg::Global {
                dim: 3,
                ty: cg::Ty::F64,
                access: cg::Access::Work
            }
        );
        d.validate().unwrap();
        // op_arg_info goes with its OP_MIN/OP_MAX global
        let info = [
            spec(ArgKind::Gbl, 1, "double", Access::Max),
            spec(ArgKind::Info { reference: 0 }, 1, "int", Access::Read),
        ];
        let d = describe("l", "k", &info, &dom, &|_| false, cg::Conflicts::Colour2).unwrap();
        assert_eq!(
            d.args[1],
            cg::Arg::Info {
                reference: 0,
                dim: 1,
                ty: cg::Ty::I32
            }
        );
        d.validate().unwrap();
        // op_arg_idx through a map is: the map is numbered like a dat's
        let ok = [spec(
            ArgKind::Idx {
                map: Some(e2n),
                idx: 1,
            },
            1,
            "int",
            Access::Read,
        )];
        let d = describe("l", "k", &ok, &dom, &|_| false, cg::Conflicts::Colour2).unwrap();
        assert_eq!(d.args[0], cg::Arg::IdxMap { map: 0, idx: 1 });
        d.validate().unwrap();
        let bad = [spec(dat(x, None, -1), 2, "long double", Access::Read)];
        assert!(
            describe("l", "k", &bad, &dom, &|_| false, cg::Conflicts::Colour2)
                .unwrap_err()
                .contains("has no device form")
        );
    }

    /// Whether no two elements share a row the loop writes through a map
    /// comes from the maps' values: one end of the chain's edges reaches
    /// each node once, both ends share nodes; a loop that writes nothing
    /// through a map is not flagged.
    #[test]
    fn disjoint_writes_are_read_off_the_maps() {
        let (dom, _, _, e2n, x) = chain();
        let dat = |idx| ArgKind::Dat {
            dat: x,
            map: Some(e2n),
            idx,
        };
        let flag = |args: &[ArgSpec]| {
            describe("l", "k", args, &dom, &|_| false, cg::Conflicts::Colour2)
                .unwrap()
                .disjoint_writes
        };
        assert!(flag(&[spec(dat(0), 2, "double", Access::Inc)]));
        assert!(flag(&[spec(dat(1), 2, "double", Access::Rw)]));
        assert!(!flag(&[
            spec(dat(0), 2, "double", Access::Inc),
            spec(dat(1), 2, "double", Access::Inc)
        ]));
        assert!(!flag(&[spec(dat(-2), 2, "double", Access::Write)]));
        assert!(!flag(&[spec(dat(0), 2, "double", Access::Read)]));
    }

    /// The span is the largest of: dat rows (rounded up to 32) times dim,
    /// map rows (rounded up to 32) times map dim, and the plan's entries
    /// (elements times the indirect arguments' map entries).
    #[test]
    fn offset_span_is_the_largest_extent() {
        let (mut dom, nodes, edges, e2n, x) = chain();
        let dat = |d, m, idx| ArgKind::Dat {
            dat: d,
            map: m,
            idx,
        };
        // direct: 4 nodes -> 32 rows, dim 2
        let direct = [spec(dat(x, None, -1), 2, "double", Access::Read)];
        assert_eq!(offset_span(&direct, &dom, nodes), 64);
        let k = dom
            .decl_dat("op_decl_dat", nodes, 5, "double", 8, None, "k", false)
            .unwrap();
        let wide = [spec(dat(k, None, -1), 5, "double", Access::Read)];
        assert_eq!(offset_span(&wide, &dom, nodes), 32 * 5);
        // through e2n: the dat 32 x 2, the map 32 x 2, the plan: two
        // arguments of one entry each on 32 edge rows
        let two = [
            spec(dat(x, Some(e2n), 0), 2, "double", Access::Read),
            spec(dat(x, Some(e2n), 1), 2, "double", Access::Read),
        ];
        assert_eq!(offset_span(&two, &dom, edges), 64);
        // three arguments: the plan's 3 x 32 entries are the largest
        let three = [
            spec(dat(x, Some(e2n), 0), 2, "double", Access::Read),
            spec(dat(x, Some(e2n), 1), 2, "double", Access::Read),
            spec(dat(x, Some(e2n), -2), 2, "double", Access::Inc),
        ];
        assert_eq!(offset_span(&three, &dom, edges), (1 + 1 + 2) * 32);
        // op_arg_idx through a map: the map's extent
        let idx = [spec(
            ArgKind::Idx {
                map: Some(e2n),
                idx: 1,
            },
            1,
            "int",
            Access::Read,
        )];
        assert_eq!(offset_span(&idx, &dom, edges), 64);
        assert!(!cg::offsets_need_64_bits(offset_span(&three, &dom, edges)));
    }
}
