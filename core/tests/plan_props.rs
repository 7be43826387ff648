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
