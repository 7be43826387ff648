//! Property tests of plan construction on random and structured meshes,
//! checked by plain loops written here (independent of `Plan::check`).

use op2_core::arg::Access;
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};
use proptest::prelude::*;

/// A mesh: `n` from-elements mapped to `to` targets, `dim` entries each.
#[derive(Debug, Clone)]
struct Mesh {
    n: usize,
    to: usize,
    dim: usize,
    map: Vec<i32>,
}

fn random_mesh() -> impl Strategy<Value = Mesh> {
    (1usize..400, 1usize..200, 1usize..5).prop_flat_map(|(n, to, dim)| {
        proptest::collection::vec(0..to as i32, n * dim).prop_map(move |map| Mesh {
            n,
            to,
            dim,
            map,
        })
    })
}

/// Edges of an nx × ny structured grid (node-based, 2 per edge).
fn grid_mesh(nx: usize, ny: usize) -> Mesh {
    let id = |i: usize, j: usize| (j * (nx + 1) + i) as i32;
    let mut map = Vec::new();
    for j in 0..=ny {
        for i in 0..nx {
            map.extend([id(i, j), id(i + 1, j)]);
        }
    }
    for j in 0..ny {
        for i in 0..=nx {
            map.extend([id(i, j), id(i, j + 1)]);
        }
    }
    Mesh {
        n: map.len() / 2,
        to: (nx + 1) * (ny + 1),
        dim: 2,
        map,
    }
}

fn input(m: &Mesh, part: usize, acc: Access, full: bool, staging: Staging) -> PlanInput<'_> {
    PlanInput {
        set_size: m.n,
        core_size: m.n,
        exec_size: 0,
        part_size: part,
        staging,
        args: (0..m.dim)
            .map(|idx| PlanArg {
                opt: true,
                ind: 0,
                map: &m.map,
                map_dim: m.dim,
                idx,
                access: acc,
                gbl: false,
                dat_bytes: 8,
                dat_dim: 1,
                to_size: m.to,
            })
            .collect(),
        ninds: 1,
        cache_line_size: 128,
        full,
    }
}

/// Every property, checked with plain loops.
fn verify(m: &Mesh, p: &Plan, full: bool) {
    // Blocks tile [0, n) in order.
    let mut next = 0;
    for b in 0..p.nblocks {
        assert_eq!(p.offset[b] as usize, next);
        assert!(p.nelems[b] > 0);
        next += p.nelems[b] as usize;
    }
    assert_eq!(next, m.n);
    // blkmap is a permutation grouped by colour.
    let mut seen = vec![false; p.nblocks];
    let mut k = 0;
    for c in 0..p.ncolors {
        for _ in 0..p.ncolblk[c] {
            let b = p.blkmap[k] as usize;
            assert!(!seen[b]);
            seen[b] = true;
            assert_eq!(p.blk_col[b] as usize, c);
            k += 1;
        }
    }
    assert_eq!(k, p.nblocks);
    // No target is incremented by two blocks of one colour.
    for c in 0..p.ncolors as i32 {
        let mut owner = vec![usize::MAX; m.to];
        for b in (0..p.nblocks).filter(|&b| p.blk_col[b] == c) {
            let (s, e) = p.block_range(b);
            for el in s..e {
                for d in 0..m.dim {
                    let t = m.map[el * m.dim + d] as usize;
                    assert!(
                        owner[t] == usize::MAX || owner[t] == b,
                        "colour {c}: blocks {} and {b} share {t}",
                        owner[t]
                    );
                    owner[t] = b;
                }
            }
        }
    }
    if full {
        // Thread colours: no target shared by two elements of one colour in a block.
        for b in 0..p.nblocks {
            let (s, e) = p.block_range(b);
            for el in s..e {
                for el2 in el + 1..e {
                    if p.thrcol[el] != p.thrcol[el2] {
                        continue;
                    }
                    for d in 0..m.dim {
                        for d2 in 0..m.dim {
                            assert_ne!(
                                m.map[el * m.dim + d],
                                m.map[el2 * m.dim + d2],
                                "block {b}: elements {el},{el2}"
                            );
                        }
                    }
                }
            }
        }
        // loc_map / ind_map round-trip to the global map.
        for d in 0..m.dim {
            let ls = p.loc_maps_start[d].unwrap();
            let st = p.inds_staged[d] as usize;
            for b in 0..p.nblocks {
                let (s, e) = p.block_range(b);
                let off = p.ind_maps_start[st] + p.ind_offs[st + b * p.ninds_staged] as usize;
                for el in s..e {
                    let l = p.loc_map[ls + el] as usize;
                    assert!(l < p.ind_sizes[st + b * p.ninds_staged] as usize);
                    assert_eq!(p.ind_map[off + l], m.map[el * m.dim + d]);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_meshes(m in random_mesh(), part in 1usize..64, full in any::<bool>(), rw in any::<bool>()) {
        let acc = if rw { Access::Rw } else { Access::Inc };
        let inp = input(&m, part, acc, full, Staging::All);
        let p = Plan::build(&inp);
        verify(&m, &p, full);
        prop_assert!(p.check(&inp).is_ok());
    }

    #[test]
    fn structured_grids(nx in 1usize..40, ny in 1usize..40, part in 8usize..300) {
        let m = grid_mesh(nx, ny);
        let inp = input(&m, part, Access::Inc, true, Staging::All);
        let p = Plan::build(&inp);
        verify(&m, &p, true);
        prop_assert!(p.check(&inp).is_ok());
    }

    #[test]
    fn permute_orders_each_block_by_colour(m in random_mesh(), part in 1usize..64) {
        let inp = input(&m, part, Access::Inc, true, Staging::Permute);
        let p = Plan::build(&inp);
        prop_assert!(p.check(&inp).is_ok());
        for b in 0..p.nblocks {
            let (s, e) = p.block_range(b);
            let mut perm: Vec<i32> = p.col_reord[s..e].to_vec();
            prop_assert!(p.thrcol[s..e].windows(2).all(|w| w[0] <= w[1]));
            perm.sort_unstable();
            prop_assert_eq!(perm, (0..(e - s) as i32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn read_only_loops_need_one_colour(m in random_mesh(), part in 1usize..64) {
        let inp = input(&m, part, Access::Read, false, Staging::All);
        let p = Plan::build(&inp);
        prop_assert_eq!(p.ncolors, 1);
    }
}

// Loops with several indirect groups: groups numbered in any order (not
// necessarily by first use, as the C layer's grouping by dat gives), mixed
// accesses within a group, disabled arguments anywhere in a group (shaped as
// the C layer passes them: a group, but no map), an exec halo, and every
// staging mode.

/// One indirect argument of a generated loop.
#[derive(Debug, Clone)]
struct LoopArg {
    /// Through the second map (else the first).
    second: bool,
    /// Map column (taken modulo the map's dimension).
    idx: usize,
    /// Group label; labels are renumbered densely in label order.
    label: usize,
    access: Access,
    opt: bool,
}

#[derive(Debug, Clone)]
struct Loop {
    set: usize,
    exec: usize,
    core: usize,
    to: usize,
    /// Two maps from the loop set (with its exec halo) to one target set.
    maps: [(usize, Vec<i32>); 2],
    args: Vec<LoopArg>,
    staging: Staging,
    part: usize,
    full: bool,
    /// A direct argument and an indirect global reduction.
    direct: bool,
    reduce: bool,
}

const STAGINGS: [Staging; 5] = [
    Staging::None,
    Staging::Inc,
    Staging::All,
    Staging::Permute,
    Staging::Color2,
];

fn loop_arg(accesses: Vec<Access>, p_enabled: f64) -> impl Strategy<Value = LoopArg> {
    (
        any::<bool>(),
        0usize..4,
        0usize..4,
        prop::sample::select(accesses),
        prop::bool::weighted(p_enabled),
    )
        .prop_map(|(second, idx, label, access, opt)| LoopArg {
            second,
            idx,
            label,
            access,
            opt,
        })
}

fn random_loop(
    accesses: Vec<Access>,
    p_enabled: f64,
    stagings: Vec<Staging>,
) -> impl Strategy<Value = Loop> {
    let shape = (1usize..250, 0usize..40, 1usize..120, 1usize..5, 1usize..4);
    let rest = (
        prop::collection::vec(loop_arg(accesses, p_enabled), 1..7),
        prop::sample::select(stagings),
        0usize..48,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    );
    (shape, rest).prop_flat_map(|((set, exec, to, d0, d1), rest)| {
        let n = set + exec;
        let map = move |d: usize| prop::collection::vec(0..to as i32, n * d);
        (map(d0), map(d1), 0..=set).prop_map(move |(m0, m1, core)| {
            let (args, staging, part, full, direct, reduce) = rest.clone();
            Loop {
                set,
                exec,
                core,
                to,
                maps: [(d0, m0), (d1, m1)],
                args,
                staging,
                part,
                full,
                direct,
                reduce,
            }
        })
    })
}

impl Loop {
    /// Dense group numbers (in label order) and their count.
    fn groups(&self) -> (Vec<i32>, usize) {
        let mut labels: Vec<usize> = self.args.iter().map(|a| a.label).collect();
        labels.sort_unstable();
        labels.dedup();
        let ind = self
            .args
            .iter()
            .map(|a| labels.binary_search(&a.label).unwrap() as i32)
            .collect();
        (ind, labels.len())
    }

    fn input(&self) -> PlanInput<'_> {
        let (inds, ninds) = self.groups();
        let mut args: Vec<PlanArg<'_>> = self
            .args
            .iter()
            .zip(&inds)
            .map(|(a, &ind)| {
                let (dim, map) = &self.maps[a.second as usize];
                let bytes = 8 * (ind as usize + 1);
                PlanArg {
                    opt: a.opt,
                    ind,
                    map: if a.opt { map } else { &[] },
                    map_dim: if a.opt { *dim } else { 0 },
                    idx: a.idx % dim,
                    access: a.access,
                    gbl: false,
                    dat_bytes: if a.opt { bytes } else { 0 },
                    dat_dim: if a.opt { ind as usize + 1 } else { 0 },
                    to_size: if a.opt { self.to } else { 0 },
                }
            })
            .collect();
        let plain = |gbl: bool, access: Access, dat_bytes: usize| PlanArg {
            opt: true,
            ind: -1,
            map: &[],
            map_dim: 0,
            idx: 0,
            access,
            gbl,
            dat_bytes,
            dat_dim: dat_bytes / 8,
            to_size: 0,
        };
        if self.direct {
            args.insert(0, plain(false, Access::Write, 16));
        }
        if self.reduce {
            args.push(plain(true, Access::Inc, 0));
        }
        PlanInput {
            set_size: self.set,
            core_size: self.core,
            exec_size: self.exec,
            part_size: self.part,
            staging: self.staging,
            args,
            ninds,
            cache_line_size: 64,
            full: self.full,
        }
    }
}

/// Target of argument `a` at element `el`.
fn target(a: &PlanArg<'_>, el: usize) -> i32 {
    a.map[el * a.map_dim + a.idx]
}

/// Does `a` make elements sharing a target conflict?
fn colours(a: &PlanArg<'_>) -> bool {
    a.opt && a.ind >= 0 && matches!(a.access, Access::Inc | Access::Rw)
}

/// Blocks tile the exec range, and no two blocks of one colour (or two
/// elements of one thread colour in a block) modify one target.
fn verify_colours(inp: &PlanInput<'_>, p: &Plan, detailed: bool) {
    let writes = inp
        .args
        .iter()
        .any(|a| a.opt && a.ind >= 0 && a.access != Access::Read);
    let exec_length = inp.set_size + if writes { inp.exec_size } else { 0 };
    assert_eq!(p.exec_length, exec_length);
    let mut next = 0;
    for b in 0..p.nblocks {
        assert_eq!(p.offset[b] as usize, next);
        next += p.nelems[b] as usize;
    }
    assert_eq!(next, exec_length);
    let conflicting: Vec<&PlanArg<'_>> = inp.args.iter().filter(|a| colours(a)).collect();
    let mut blocks: Vec<(i32, i32, i32, usize)> = Vec::new();
    for b in 0..p.nblocks {
        let (s, e) = p.block_range(b);
        let mut threads: Vec<(i32, i32, i32, usize)> = Vec::new();
        for i in s..e {
            let el = if p.col_reord.is_empty() {
                i
            } else {
                s + p.col_reord[i] as usize
            };
            for a in &conflicting {
                blocks.push((a.ind, target(a, el), p.blk_col[b], b));
                if detailed {
                    threads.push((a.ind, target(a, el), p.thrcol[i], el));
                }
            }
        }
        threads.sort_unstable();
        threads.dedup();
        for w in threads.windows(2) {
            assert!(
                w[0].0 != w[1].0 || w[0].1 != w[1].1 || w[0].2 != w[1].2,
                "block {b}: {w:?}"
            );
        }
    }
    blocks.sort_unstable();
    blocks.dedup();
    for w in blocks.windows(2) {
        assert!(
            w[0].0 != w[1].0 || w[0].1 != w[1].1 || w[0].2 != w[1].2,
            "{w:?}"
        );
    }
}

/// OP2's staged numbering, computed here: per argument its staged group or -1.
fn expected_inds_staged(inp: &PlanInput<'_>) -> Vec<i32> {
    let mut number = vec![-1; inp.ninds];
    let mut next = 0;
    let mut out = Vec::new();
    for a in &inp.args {
        let staged = a.ind >= 0
            && match inp.staging {
                Staging::Inc => a.access == Access::Inc,
                Staging::All | Staging::Permute => true,
                _ => false,
            };
        if staged {
            if number[a.ind as usize] < 0 {
                number[a.ind as usize] = next;
                next += 1;
            }
            out.push(number[a.ind as usize]);
        } else {
            out.push(-1);
        }
    }
    out
}

/// Staged numbering; in full plans each staged group's lists (sorted
/// distinct targets of its enabled arguments, block after block), local
/// maps, and the shared memory they need.
fn verify_staging(inp: &PlanInput<'_>, p: &Plan, detailed: bool) {
    let inds_staged = expected_inds_staged(inp);
    let nst = inds_staged.iter().copied().max().map_or(0, |m| m + 1) as usize;
    assert_eq!(p.inds_staged, inds_staged);
    assert_eq!(p.ninds_staged, nst);
    if !detailed {
        return;
    }
    let mut start = 0;
    let mut shared = vec![0usize; p.nblocks];
    for m in 0..nst {
        let staged: Vec<usize> = (0..inp.args.len())
            .filter(|&k| inds_staged[k] == m as i32)
            .collect();
        let g = inp.args[staged[0]].ind;
        let bytes = staged
            .iter()
            .find(|&&k| inp.args[k].opt)
            .map(|&k| inp.args[k].dat_bytes);
        assert_eq!(p.ind_maps_start[m], start, "staged group {m}");
        let mut total = 0;
        for (b, block_shared) in shared.iter_mut().enumerate() {
            let (s, e) = p.block_range(b);
            let mut want: Vec<i32> = Vec::new();
            for a in inp.args.iter().filter(|a| a.ind == g && a.opt) {
                want.extend((s..e).map(|el| target(a, el)));
            }
            want.sort_unstable();
            want.dedup();
            assert_eq!(p.ind_offs[m + b * nst] as usize, total);
            assert_eq!(p.ind_sizes[m + b * nst] as usize, want.len());
            let list = &p.ind_map[start + total..start + total + want.len()];
            assert_eq!(list, &want[..], "staged group {m}, block {b}");
            for &k in staged.iter().filter(|&&k| inp.args[k].opt) {
                let ls = p.loc_maps_start[k].unwrap();
                for el in s..e {
                    assert_eq!(list[p.loc_map[ls + el] as usize], target(&inp.args[k], el));
                }
            }
            if let Some(bytes) = bytes {
                *block_shared += (want.len() * bytes).div_ceil(64) * 64;
            }
            total += want.len();
        }
        assert_eq!(p.nindirect[g as usize] as usize, total);
        start += total;
    }
    assert_eq!(
        p.nshared as usize,
        shared.iter().copied().max().unwrap_or(0)
    );
}

fn check_loop(l: &Loop) -> Result<(), TestCaseError> {
    let inp = l.input();
    let p = Plan::build(&inp);
    let detailed = inp.full || matches!(inp.staging, Staging::Permute | Staging::Color2);
    verify_colours(&inp, &p, detailed);
    verify_staging(&inp, &p, detailed);
    prop_assert_eq!(p.check(&inp), Ok(()));
    Ok(())
}

const ANY_ACCESS: [Access; 4] = [Access::Read, Access::Write, Access::Rw, Access::Inc];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any mix of groups, accesses, disabled arguments and staging modes.
    #[test]
    fn loops_with_several_groups(l in random_loop(ANY_ACCESS.to_vec(), 0.75, STAGINGS.to_vec())) {
        check_loop(&l)?;
    }

    /// STAGE_INC with READ and INC arguments in any order within and across
    /// groups: staged numbering (by first INC) differs from group order.
    #[test]
    fn stage_inc_with_mixed_access_orders(
        l in random_loop(vec![Access::Read, Access::Inc], 1.0, vec![Staging::Inc])
    ) {
        check_loop(&l)?;
    }

    /// Half the arguments disabled: groups whose first argument is disabled
    /// but a later one enabled, and groups with none enabled.
    #[test]
    fn disabled_arguments_in_groups(l in random_loop(ANY_ACCESS.to_vec(), 0.5, STAGINGS.to_vec())) {
        check_loop(&l)?;
    }
}
