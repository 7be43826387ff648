//! Property tests of the partitioners, the derivation of secondary partitions
//! and the k-way graphs, against brute-force references written here.

// Index loops spell out the brute-force definitions.
#![allow(clippy::needless_range_loop)]

use op2_core::graph::{adjacency, dual_graph, edge_cut, Csr};
use op2_core::partition::{
    block, block_size, derive, imbalance, inertial, part_sizes, random, rcb, BlockDist, DeriveRule,
    GlobalMap, GlobalSet, SplitMix64,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn balanced(part: &[i32], nparts: usize) -> bool {
    if part.iter().any(|&p| p < 0 || p as usize >= nparts) {
        return false;
    }
    let s = part_sizes(part, nparts);
    s.iter().max().unwrap() - s.iter().min().unwrap() <= 1
}

/// Number of maximal runs of equal parts along `order`.
fn runs(part: &[i32], order: &[usize]) -> usize {
    order
        .windows(2)
        .filter(|w| part[w[0]] != part[w[1]])
        .count()
        + usize::from(!order.is_empty())
}

/// Points with many exact ties (small integer grid).
fn points() -> impl Strategy<Value = (usize, Vec<f64>)> {
    (1usize..4, 0usize..300).prop_flat_map(|(dim, n)| {
        (
            Just(dim),
            prop::collection::vec((0i32..12).prop_map(|v| v as f64 * 0.5), n * dim),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn rcb_balanced_and_deterministic((dim, coords) in points(), nparts in 1usize..20) {
        let p = rcb(&coords, dim, nparts);
        prop_assert_eq!(p.len(), coords.len() / dim);
        prop_assert!(balanced(&p, nparts));
        prop_assert_eq!(&p, &rcb(&coords, dim, nparts));
    }

    #[test]
    fn inertial_balanced_and_deterministic((dim, coords) in points(), nparts in 1usize..20) {
        let p = inertial(&coords, dim, nparts);
        prop_assert!(balanced(&p, nparts));
        prop_assert_eq!(&p, &inertial(&coords, dim, nparts));
    }

    /// In 1-D every RCB split is a cut of the line: parts are increasing along
    /// (x, index).
    #[test]
    fn rcb_1d_is_ordered(xs in prop::collection::vec(-50i32..50, 0..300), nparts in 1usize..16) {
        let coords: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let p = rcb(&coords, 1, nparts);
        let mut order: Vec<usize> = (0..xs.len()).collect();
        order.sort_by_key(|&i| (xs[i], i));
        prop_assert!(order.windows(2).all(|w| p[w[0]] <= p[w[1]]));
    }

    /// Points on a line in 3-D: every part is one interval of the line.
    #[test]
    fn inertial_on_a_line_cuts_intervals(ts in prop::collection::btree_set(-500i32..500, 0..200), nparts in 1usize..12) {
        let ts: Vec<i32> = ts.into_iter().collect();
        let coords: Vec<f64> = ts
            .iter()
            .flat_map(|&t| {
                let t = t as f64;
                [1.0 + t, -2.0 + 2.0 * t, 0.5 - 3.0 * t]
            })
            .collect();
        let p = inertial(&coords, 3, nparts);
        prop_assert!(balanced(&p, nparts));
        let order: Vec<usize> = (0..ts.len()).collect(); // ts ascending
        let nonempty = part_sizes(&p, nparts).iter().filter(|&&s| s > 0).count();
        prop_assert_eq!(runs(&p, &order), nonempty);
    }

    #[test]
    fn random_balanced(n in 0usize..2000, nparts in 1usize..40, seed in any::<u64>()) {
        let p = random(n, nparts, seed);
        prop_assert!(balanced(&p, nparts));
        let s = part_sizes(&p, nparts);
        for (r, &c) in s.iter().enumerate() {
            prop_assert_eq!(c, block_size(n, nparts, r));
        }
        prop_assert_eq!(&p, &random(n, nparts, seed));
    }

    #[test]
    fn block_distribution(n in 0usize..1000, nparts in 1usize..40) {
        let total: usize = (0..nparts).map(|r| block_size(n, nparts, r)).sum();
        prop_assert_eq!(total, n);
        for r in 0..nparts {
            let expect = n / nparts + usize::from(r < n % nparts);
            prop_assert_eq!(block_size(n, nparts, r), expect);
        }
        let d = BlockDist::standard(n, nparts);
        let p = block(n, nparts);
        prop_assert_eq!(&p, &d.parts());
        prop_assert!(p.windows(2).all(|w| w[0] <= w[1]));
        for g in 0..n {
            prop_assert_eq!(d.owner(g), p[g] as usize);
            prop_assert!(d.range(p[g] as usize).contains(&g));
        }
    }

    #[test]
    fn block_dist_from_any_sizes(sizes in prop::collection::vec(0usize..7, 1..9)) {
        let d = BlockDist::from_sizes(&sizes);
        prop_assert_eq!(d.nranks(), sizes.len());
        prop_assert_eq!(d.global_size(), sizes.iter().sum::<usize>());
        for r in 0..sizes.len() {
            prop_assert_eq!(d.range(r).len(), sizes[r]);
            for g in d.range(r) {
                prop_assert_eq!(d.owner(g), r);
            }
        }
    }
}

#[test]
fn rcb_grid_quadrants() {
    // 8 × 8 grid, wider in x: first cut in x, then y
    let mut coords = Vec::new();
    for j in 0..8 {
        for i in 0..8 {
            coords.extend([i as f64 * 1.5, j as f64]);
        }
    }
    let p = rcb(&coords, 2, 4);
    for j in 0..8 {
        for i in 0..8 {
            let expect = 2 * (i >= 4) as i32 + (j >= 4) as i32;
            assert_eq!(p[j * 8 + i], expect, "({i}, {j})");
        }
    }
    assert_eq!(imbalance(&p, 4), 1.0);
}

#[test]
fn rcb_uneven_parts() {
    let coords: Vec<f64> = (0..10).map(|x| x as f64).collect();
    assert_eq!(rcb(&coords, 1, 3), vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 2]);
    assert_eq!(rcb(&coords, 1, 1), vec![0; 10]);
    assert_eq!(rcb(&[], 2, 5), Vec::<i32>::new());
    // more parts than points: some parts stay empty
    let p = rcb(&coords[..3], 1, 5);
    assert!(balanced(&p, 5));
}

#[test]
fn random_depends_on_seed() {
    assert_ne!(random(1000, 4, 1), random(1000, 4, 2));
    let mut rng = SplitMix64::new(42);
    let draws: BTreeSet<u64> = (0..1000).map(|_| rng.below(10)).collect();
    assert_eq!(draws.len(), 10);
}

// ---------------------------------------------------------------------------
// derive
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Mesh {
    sizes: Vec<usize>,
    maps: Vec<(usize, usize, usize, Vec<i32>)>,
}

impl Mesh {
    fn global_maps(&self) -> Vec<GlobalMap<'_>> {
        self.maps
            .iter()
            .map(|(f, t, d, v)| GlobalMap {
                from: *f,
                to: *t,
                dim: *d,
                values: v,
            })
            .collect()
    }
    fn sets(&self) -> Vec<GlobalSet> {
        self.sizes.iter().map(|&size| GlobalSet { size }).collect()
    }
}

fn random_mesh() -> impl Strategy<Value = Mesh> {
    (prop::collection::vec(1usize..30, 1..5), 0usize..6)
        .prop_flat_map(|(sizes, nmaps)| {
            let ns = sizes.len();
            let s2 = sizes.clone();
            let maps = prop::collection::vec((0..ns, 0..ns, 1usize..4), nmaps).prop_flat_map(
                move |specs| {
                    specs
                        .into_iter()
                        .map(|(f, t, d)| {
                            prop::collection::vec(0..s2[t] as i32, s2[f] * d)
                                .prop_map(move |v| (f, t, d, v))
                        })
                        .collect::<Vec<_>>()
                },
            );
            (Just(sizes), maps)
        })
        .prop_map(|(sizes, maps)| Mesh { sizes, maps })
}

/// Brute-force check of each derived set against its rule.
fn check_derived(mesh: &Mesh, primary: usize, p0: &[i32], nparts: usize) {
    let d = derive(&mesh.sets(), &mesh.global_maps(), primary, p0, nparts).unwrap();
    let mut order = d.order.clone();
    order.sort_unstable();
    assert_eq!(order, (0..mesh.sizes.len()).collect::<Vec<_>>());
    assert_eq!(d.order[0], primary);
    for (s, rule) in d.rules.iter().enumerate() {
        let part = &d.parts[s];
        assert_eq!(part.len(), mesh.sizes[s]);
        assert!(part.iter().all(|&p| p >= 0 && (p as usize) < nparts));
        match *rule {
            DeriveRule::Primary => {
                assert_eq!(s, primary);
                assert_eq!(part.as_slice(), p0);
            }
            DeriveRule::Unreached => assert_eq!(part, &block(mesh.sizes[s], nparts)),
            DeriveRule::FromTargets { map } => {
                let (f, t, dim, v) = &mesh.maps[map];
                assert_eq!(*f, s);
                for e in 0..mesh.sizes[s] {
                    let tp: Vec<i32> = v[e * dim..(e + 1) * dim]
                        .iter()
                        .map(|&x| d.parts[*t][x as usize])
                        .collect();
                    let count = |p: i32| tp.iter().filter(|&&q| q == p).count();
                    let best = tp.iter().map(|&p| count(p)).max().unwrap();
                    // the first part in the row reaching the maximum count
                    let first = *tp.iter().find(|&&p| count(p) == best).unwrap();
                    assert_eq!(part[e], first, "set {s} elem {e} targets {tp:?}");
                }
            }
            DeriveRule::FromSources { map } => {
                let (f, t, dim, v) = &mesh.maps[map];
                assert_eq!(*t, s);
                let mut counts = vec![vec![0usize; nparts]; mesh.sizes[s]];
                for (k, &x) in v.iter().enumerate() {
                    counts[x as usize][d.parts[*f][k / dim] as usize] += 1;
                }
                for (e, c) in counts.iter().enumerate() {
                    let best = *c.iter().max().unwrap();
                    assert!(best > 0, "unreferenced element accepted");
                    let smallest = c.iter().position(|&n| n == best).unwrap() as i32;
                    assert_eq!(part[e], smallest);
                }
            }
        }
    }
    // a set is unreached only if no map links it to a partitioned set in a
    // usable way: a map to a partitioned set always works
    for (f, t, _, _) in &mesh.maps {
        if d.rules[*t] != DeriveRule::Unreached {
            assert_ne!(
                d.rules[*f],
                DeriveRule::Unreached,
                "set {f} reachable via a map to {t}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn derive_follows_rules(mesh in random_mesh(), nparts in 1usize..6, seed in any::<u64>()) {
        let mut rng = SplitMix64::new(seed);
        let primary = rng.below(mesh.sizes.len() as u64) as usize;
        let p0: Vec<i32> = (0..mesh.sizes[primary]).map(|_| rng.below(nparts as u64) as i32).collect();
        check_derived(&mesh, primary, &p0, nparts);
    }
}

/// Airfoil's sets and maps on a quad grid: nodes, edges, bedges, cells;
/// pedge, pecell, pbedge, pbecell, pcell.
fn airfoil_grid(nx: usize, ny: usize) -> Mesh {
    let node = |i: usize, j: usize| (j * (nx + 1) + i) as i32;
    let cell = |i: usize, j: usize| (j * nx + i) as i32;
    let (mut pedge, mut pecell, mut pbedge, mut pbecell) = (vec![], vec![], vec![], vec![]);
    for j in 0..=ny {
        for i in 0..nx {
            if j == 0 || j == ny {
                pbedge.extend([node(i, j), node(i + 1, j)]);
                pbecell.push(cell(i, if j == 0 { 0 } else { ny - 1 }));
            } else {
                pedge.extend([node(i, j), node(i + 1, j)]);
                pecell.extend([cell(i, j - 1), cell(i, j)]);
            }
        }
    }
    for j in 0..ny {
        for i in 0..=nx {
            if i == 0 || i == nx {
                pbedge.extend([node(i, j), node(i, j + 1)]);
                pbecell.push(cell(if i == 0 { 0 } else { nx - 1 }, j));
            } else {
                pedge.extend([node(i, j), node(i, j + 1)]);
                pecell.extend([cell(i - 1, j), cell(i, j)]);
            }
        }
    }
    let mut pcell = vec![];
    for j in 0..ny {
        for i in 0..nx {
            pcell.extend([
                node(i, j),
                node(i + 1, j),
                node(i + 1, j + 1),
                node(i, j + 1),
            ]);
        }
    }
    Mesh {
        sizes: vec![
            (nx + 1) * (ny + 1),
            pedge.len() / 2,
            pbedge.len() / 2,
            nx * ny,
        ],
        maps: vec![
            (1, 0, 2, pedge),
            (1, 3, 2, pecell),
            (2, 0, 2, pbedge),
            (2, 3, 1, pbecell),
            (3, 0, 4, pcell),
        ],
    }
}

#[test]
fn derive_airfoil_from_cells() {
    let mesh = airfoil_grid(12, 9);
    let p0 = random(mesh.sizes[3], 4, 5);
    let d = derive(&mesh.sets(), &mesh.global_maps(), 3, &p0, 4).unwrap();
    // cost 0 first (pbecell, dim 1), then cost 1 (pecell), then cost 2:
    // pedge and pbedge do not reach the corner nodes, so pcell partitions nodes
    assert_eq!(d.order, vec![3, 2, 1, 0]);
    assert_eq!(
        d.rules,
        vec![
            DeriveRule::FromSources { map: 4 },
            DeriveRule::FromTargets { map: 1 },
            DeriveRule::FromTargets { map: 3 },
            DeriveRule::Primary,
        ]
    );
    check_derived(&mesh, 3, &p0, 4);
}

#[test]
fn derive_airfoil_from_nodes() {
    let mesh = airfoil_grid(10, 7);
    let coords: Vec<f64> = (0..=7)
        .flat_map(|j| (0..=10).flat_map(move |i| [i as f64, j as f64]))
        .collect();
    let p0 = rcb(&coords, 2, 3);
    let d = derive(&mesh.sets(), &mesh.global_maps(), 0, &p0, 3).unwrap();
    // all maps point to nodes: pedge (cost 1), pbedge, pcell by index
    assert_eq!(
        d.rules,
        vec![
            DeriveRule::Primary,
            DeriveRule::FromTargets { map: 0 },
            DeriveRule::FromTargets { map: 2 },
            DeriveRule::FromTargets { map: 4 },
        ]
    );
    check_derived(&mesh, 0, &p0, 3);
}

#[test]
fn derive_unreached_and_non_onto() {
    // set 1 is referenced by only some elements of set 0 (not onto), set 2 is
    // disconnected: both keep the block partition
    let vals = vec![0, 0, 1];
    let mesh = Mesh {
        sizes: vec![3, 4, 5],
        maps: vec![(0, 1, 1, vals)],
    };
    let d = derive(&mesh.sets(), &mesh.global_maps(), 0, &[1, 0, 1], 2).unwrap();
    assert_eq!(d.rules[1], DeriveRule::Unreached);
    assert_eq!(d.rules[2], DeriveRule::Unreached);
    assert_eq!(d.parts[1], block(4, 2));
    assert_eq!(d.parts[2], block(5, 2));
    assert!(derive(&mesh.sets(), &mesh.global_maps(), 0, &[1, 0, 2], 2).is_err());
    assert!(derive(&mesh.sets(), &mesh.global_maps(), 3, &[1, 0, 1], 2).is_err());
}

#[test]
fn derive_ties() {
    // from-set rows [a, b] with target parts [1, 0] -> first in row: 1
    let tv = vec![0, 1, 1, 0];
    let mesh = Mesh {
        sizes: vec![2, 2],
        maps: vec![(1, 0, 2, tv)],
    };
    let d = derive(&mesh.sets(), &mesh.global_maps(), 0, &[1, 0], 2).unwrap();
    assert_eq!(d.parts[1], vec![1, 0]);
    // to-set element referenced once from part 1 and once from part 0 -> 0
    let sv = vec![0, 0];
    let mesh = Mesh {
        sizes: vec![2, 1],
        maps: vec![(0, 1, 1, sv)],
    };
    let d = derive(&mesh.sets(), &mesh.global_maps(), 0, &[1, 0], 2).unwrap();
    assert_eq!(d.parts[1], vec![0]);
}

// ---------------------------------------------------------------------------
// Graphs and metrics
// ---------------------------------------------------------------------------

fn check_csr_shape(g: &Csr, n: usize) {
    assert_eq!(g.nvtxs(), n);
    assert_eq!(g.xadj[0], 0);
    assert_eq!(*g.xadj.last().unwrap() as usize, g.adjncy.len());
    for v in 0..n {
        let nb = g.neighbours(v);
        assert!(nb.windows(2).all(|w| w[0] < w[1]), "row not sorted/unique");
        assert!(!nb.contains(&(v as i32)), "self loop");
        for &u in nb {
            assert!(
                g.neighbours(u as usize).contains(&(v as i32)),
                "not symmetric"
            );
        }
    }
}

fn map_strategy() -> impl Strategy<Value = (usize, usize, usize, Vec<i32>)> {
    (1usize..40, 1usize..30, 1usize..5).prop_flat_map(|(nfrom, nto, dim)| {
        (
            Just(nfrom),
            Just(nto),
            Just(dim),
            prop::collection::vec(0..nto as i32, nfrom * dim),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn adjacency_is_brute_force((nfrom, nto, dim, v) in map_strategy()) {
        let map = GlobalMap { from: 0, to: 1, dim, values: &v };
        let g = adjacency(&map, nto).unwrap();
        check_csr_shape(&g, nto);
        for a in 0..nto {
            for b in 0..nto {
                let linked = a != b
                    && (0..nfrom).any(|e| {
                        let row = &v[e * dim..(e + 1) * dim];
                        row.contains(&(a as i32)) && row.contains(&(b as i32))
                    });
                prop_assert_eq!(g.neighbours(a).contains(&(b as i32)), linked);
            }
        }
    }

    #[test]
    fn dual_graph_is_brute_force((nfrom, nto, dim, v) in map_strategy(), ncommon in 1usize..3) {
        let map = GlobalMap { from: 0, to: 1, dim, values: &v };
        let g = dual_graph(&map, nto, ncommon).unwrap();
        check_csr_shape(&g, nfrom);
        for a in 0..nfrom {
            let ra: BTreeSet<i32> = v[a * dim..(a + 1) * dim].iter().copied().collect();
            for b in 0..nfrom {
                let rb: BTreeSet<i32> = v[b * dim..(b + 1) * dim].iter().copied().collect();
                let linked = a != b && ra.intersection(&rb).count() >= ncommon;
                prop_assert_eq!(g.neighbours(a).contains(&(b as i32)), linked);
            }
        }
    }

    #[test]
    fn edge_cut_counts_cut_edges((nfrom, nto, dim, v) in map_strategy(), nparts in 1usize..5, seed in any::<u64>()) {
        let map = GlobalMap { from: 0, to: 1, dim, values: &v };
        let g = adjacency(&map, nto).unwrap();
        let part = random(nto, nparts, seed);
        let mut cut = 0;
        for a in 0..nto {
            for b in a + 1..nto {
                if g.neighbours(a).contains(&(b as i32)) && part[a] != part[b] {
                    cut += 1;
                }
            }
        }
        prop_assert_eq!(edge_cut(&g.xadj, &g.adjncy, &part), cut);
        let _ = nfrom;
    }
}

#[test]
fn airfoil_cell_graph() {
    let (nx, ny) = (6, 5);
    let mesh = airfoil_grid(nx, ny);
    let maps = mesh.global_maps();
    // OP2's KWAY graph through pecell: cells sharing an interior edge
    let g = adjacency(&maps[1], mesh.sizes[3]).unwrap();
    check_csr_shape(&g, nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let mut expect = vec![];
            if j > 0 {
                expect.push(((j - 1) * nx + i) as i32);
            }
            if i > 0 {
                expect.push((j * nx + i - 1) as i32);
            }
            if i + 1 < nx {
                expect.push((j * nx + i + 1) as i32);
            }
            if j + 1 < ny {
                expect.push(((j + 1) * nx + i) as i32);
            }
            assert_eq!(g.neighbours(j * nx + i), expect.as_slice());
        }
    }
    // the dual graph of pcell with 2 common nodes is the same graph
    assert_eq!(dual_graph(&maps[4], mesh.sizes[0], 2).unwrap(), g);
    // with 1 common node it adds the diagonals
    let g1 = dual_graph(&maps[4], mesh.sizes[0], 1).unwrap();
    assert_eq!(g1.neighbours(nx + 1).len(), 8);
    // a column split of the 6 × 5 cells cuts 5 edges
    let part: Vec<i32> = (0..nx * ny).map(|c| i32::from(c % nx >= 3)).collect();
    assert_eq!(edge_cut(&g.xadj, &g.adjncy, &part), ny);
    assert_eq!(imbalance(&part, 2), 1.0);
}

#[test]
fn imbalance_values() {
    assert_eq!(imbalance(&[], 3), 1.0);
    assert_eq!(imbalance(&[0, 0, 0, 1], 2), 1.5);
    assert_eq!(imbalance(&[0, 0, 0], 3), 3.0);
    assert_eq!(part_sizes(&[2, 0, 2], 4), vec![1, 0, 2, 0]);
}

#[test]
fn graph_rejects_bad_maps() {
    let v = vec![0, 7];
    let map = GlobalMap {
        from: 0,
        to: 1,
        dim: 1,
        values: &v,
    };
    assert!(adjacency(&map, 3).is_err());
    assert!(dual_graph(&map, 3, 1).is_err());
}
