//! Property tests of halo construction and data migration, checked against
//! brute-force definitions and simulated MPI exchanges written here with plain
//! loops (no code shared with `op2_core::halo` beyond its public output).

// Index loops spell out the brute-force definitions.
#![allow(clippy::needless_range_loop)]

use op2_core::graph;
use op2_core::halo::{build_local, migration, HaloPlan, LocalMesh, LocalSet, Migration};
use op2_core::partition::{self, BlockDist, GlobalMap, GlobalSet, SplitMix64};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A mesh in global numbering: set sizes and maps `(from, to, dim, values)`.
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
    fn row(&self, m: usize, e: usize) -> &[i32] {
        let (_, _, d, v) = &self.maps[m];
        &v[e * d..(e + 1) * d]
    }
}

fn random_mesh() -> impl Strategy<Value = Mesh> {
    (prop::collection::vec(1usize..40, 1..5), 0usize..6)
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

/// Owners of every element of every set, by one of several strategies.
fn owners_for(mesh: &Mesh, nranks: usize, kind: u8, seed: u64) -> Vec<Vec<i32>> {
    let mut rng = SplitMix64::new(seed);
    let sets: Vec<GlobalSet> = mesh.sizes.iter().map(|&size| GlobalSet { size }).collect();
    let derived = |p0: Vec<i32>| {
        partition::derive(&sets, &mesh.global_maps(), 0, &p0, nranks)
            .unwrap()
            .parts
    };
    match kind {
        // independent uniform owners per element
        0 => mesh
            .sizes
            .iter()
            .map(|&n| (0..n).map(|_| rng.below(nranks as u64) as i32).collect())
            .collect(),
        // balanced random primary partition, derived others
        1 => derived(partition::random(mesh.sizes[0], nranks, seed)),
        // RCB of random 2-D points, derived others
        2 => {
            let coords: Vec<f64> = (0..mesh.sizes[0] * 2)
                .map(|_| rng.below(1000) as f64 / 7.0)
                .collect();
            derived(partition::rcb(&coords, 2, nranks))
        }
        // inertial of random 3-D points, derived others
        3 => {
            let coords: Vec<f64> = (0..mesh.sizes[0] * 3)
                .map(|_| rng.below(1000) as f64 / 3.0)
                .collect();
            derived(partition::inertial(&coords, 3, nranks))
        }
        // the block distribution
        4 => mesh
            .sizes
            .iter()
            .map(|&n| partition::block(n, nranks))
            .collect(),
        // everything on the last rank
        _ => mesh
            .sizes
            .iter()
            .map(|&n| vec![nranks as i32 - 1; n])
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// Brute-force reference definitions
// ---------------------------------------------------------------------------

struct Reference<'m> {
    mesh: &'m Mesh,
    owners: &'m [Vec<i32>],
}

impl Reference<'_> {
    fn owned(&self, s: usize, g: usize, r: usize) -> bool {
        self.owners[s][g] as usize == r
    }
    /// Does element g of s reference (through a map from s) something owned by r?
    fn refs_rank(&self, s: usize, g: usize, r: usize) -> bool {
        self.mesh.maps.iter().enumerate().any(|(m, (f, t, _, _))| {
            *f == s
                && self
                    .mesh
                    .row(m, g)
                    .iter()
                    .any(|&x| self.owners[*t][x as usize] as usize == r)
        })
    }
    fn exec(&self, s: usize, r: usize) -> BTreeSet<usize> {
        (0..self.mesh.sizes[s])
            .filter(|&g| !self.owned(s, g, r) && self.refs_rank(s, g, r))
            .collect()
    }
    fn executed(&self, s: usize, r: usize) -> BTreeSet<usize> {
        (0..self.mesh.sizes[s])
            .filter(|&g| self.owned(s, g, r) || self.refs_rank(s, g, r))
            .collect()
    }
    fn nonexec(&self, t: usize, r: usize) -> BTreeSet<usize> {
        let exec = self.exec(t, r);
        let mut out = BTreeSet::new();
        for (m, (f, to, _, _)) in self.mesh.maps.iter().enumerate() {
            if *to != t {
                continue;
            }
            for s in self.executed(*f, r) {
                for &x in self.mesh.row(m, s) {
                    let x = x as usize;
                    if !self.owned(t, x, r) && !exec.contains(&x) {
                        out.insert(x);
                    }
                }
            }
        }
        out
    }
    fn core(&self, s: usize, r: usize) -> BTreeSet<usize> {
        (0..self.mesh.sizes[s])
            .filter(|&g| {
                self.owned(s, g, r)
                    && self.mesh.maps.iter().enumerate().all(|(m, (f, t, _, _))| {
                        *f != s
                            || self
                                .mesh
                                .row(m, g)
                                .iter()
                                .all(|&x| self.owners[*t][x as usize] as usize == r)
                    })
            })
            .collect()
    }
}

fn gids(set: &LocalSet, idx: &[usize]) -> Vec<usize> {
    idx.iter().map(|&l| set.global_ids[l]).collect()
}

fn sorted_by_owner_then_gid(owners: &[i32], ids: &[usize]) -> bool {
    ids.windows(2)
        .all(|w| (owners[w[0]], w[0]) < (owners[w[1]], w[1]))
}

/// All structural properties of the local meshes of all ranks.
fn check_structure(mesh: &Mesh, owners: &[Vec<i32>], nranks: usize, locals: &[LocalMesh]) {
    let rf = Reference { mesh, owners };
    for (s, &n) in mesh.sizes.iter().enumerate() {
        check_owned_partition(owners, locals, s, n);
        for (r, lm) in locals.iter().enumerate() {
            check_local_set(&rf, s, r, &lm.sets[s]);
        }
        check_exchange_pairs(locals, s, nranks);
    }
    check_local_maps(mesh, locals);
}

/// Owned sets over all ranks partition the global set `s` of `n` elements exactly.
fn check_owned_partition(owners: &[Vec<i32>], locals: &[LocalMesh], s: usize, n: usize) {
    let mut all: Vec<usize> = Vec::new();
    for (r, lm) in locals.iter().enumerate() {
        let ls = &lm.sets[s];
        assert!(ls.owned().iter().all(|&g| owners[s][g] as usize == r));
        all.extend_from_slice(ls.owned());
    }
    all.sort_unstable();
    assert_eq!(
        all,
        (0..n).collect::<Vec<_>>(),
        "set {s}: owned not a partition"
    );
}

/// Set `s` on rank `r`: categories match the brute-force definitions, in
/// order, and the exchange lists are well formed.
fn check_local_set(rf: &Reference<'_>, s: usize, r: usize, ls: &LocalSet) {
    let owners = rf.owners;
    assert_eq!(ls.global_ids.len(), ls.total_size());
    assert!(ls.core_size <= ls.size);
    let distinct: BTreeSet<usize> = ls.global_ids.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        ls.global_ids.len(),
        "duplicate local element"
    );
    // categories match the brute-force definitions
    let core: BTreeSet<usize> = ls.global_ids[..ls.core_size].iter().copied().collect();
    assert_eq!(core, rf.core(s, r), "set {s} rank {r}: core");
    let ex_ids = &ls.global_ids[ls.size..ls.size + ls.exec_size];
    let ne_ids = &ls.global_ids[ls.size + ls.exec_size..];
    let exec: BTreeSet<usize> = ex_ids.iter().copied().collect();
    assert_eq!(exec, rf.exec(s, r), "set {s} rank {r}: exec halo");
    let nonexec: BTreeSet<usize> = ne_ids.iter().copied().collect();
    assert_eq!(nonexec, rf.nonexec(s, r), "set {s} rank {r}: non-exec halo");
    // orders: core and boundary by gid, halos by (owner, gid)
    assert!(ls.global_ids[..ls.core_size]
        .windows(2)
        .all(|w| w[0] < w[1]));
    assert!(ls.global_ids[ls.core_size..ls.size]
        .windows(2)
        .all(|w| w[0] < w[1]));
    assert!(sorted_by_owner_then_gid(&owners[s], ex_ids));
    assert!(sorted_by_owner_then_gid(&owners[s], ne_ids));
    check_halo_lists(owners, s, r, ls);
}

/// Import lists are the halos, contiguous per neighbour, in order; export
/// lists hold owned elements (exec exports boundary ones); no rank lists
/// itself; neighbours ascend.
fn check_halo_lists(owners: &[Vec<i32>], s: usize, r: usize, ls: &LocalSet) {
    let imp_e: Vec<usize> = ls.import_exec.list.clone();
    assert_eq!(imp_e, (ls.size..ls.size + ls.exec_size).collect::<Vec<_>>());
    let imp_n: Vec<usize> = ls.import_nonexec.list.clone();
    assert_eq!(
        imp_n,
        (ls.size + ls.exec_size..ls.total_size()).collect::<Vec<_>>()
    );
    for (q, l) in ls
        .import_exec
        .neighbours()
        .chain(ls.import_nonexec.neighbours())
    {
        assert_ne!(q, r);
        assert!(!l.is_empty());
        assert!(l.iter().all(|&i| owners[s][ls.global_ids[i]] as usize == q));
    }
    for (q, l) in ls.export_exec.neighbours() {
        assert_ne!(q, r);
        assert!(l.iter().all(|&i| i >= ls.core_size && i < ls.size));
    }
    for (q, l) in ls.export_nonexec.neighbours() {
        assert_ne!(q, r);
        assert!(l.iter().all(|&i| i < ls.size));
    }
    for h in [
        &ls.import_exec,
        &ls.export_exec,
        &ls.import_nonexec,
        &ls.export_nonexec,
    ] {
        assert!(h.ranks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(h.offsets.len(), h.ranks.len() + 1);
        assert_eq!(*h.offsets.last().unwrap(), h.list.len());
    }
}

/// Export/import lists of set `s` match pairwise.
fn check_exchange_pairs(locals: &[LocalMesh], s: usize, nranks: usize) {
    for a in 0..nranks {
        for b in 0..nranks {
            let (sa, sb) = (&locals[a].sets[s], &locals[b].sets[s]);
            assert_eq!(
                gids(sa, sa.export_exec.with(b)),
                gids(sb, sb.import_exec.with(a)),
                "set {s}: exec {a} -> {b}"
            );
            assert_eq!(
                gids(sa, sa.export_nonexec.with(b)),
                gids(sb, sb.import_nonexec.with(a)),
                "set {s}: nonexec {a} -> {b}"
            );
        }
    }
}

/// Local maps round-trip to the global maps; executed targets are local;
/// core rows reference owned elements only.
fn check_local_maps(mesh: &Mesh, locals: &[LocalMesh]) {
    for (m, (f, t, d, _)) in mesh.maps.iter().enumerate() {
        for lm in locals {
            let (fs, ts, map) = (&lm.sets[*f], &lm.sets[*t], &lm.maps[m]);
            assert_eq!((map.from, map.to, map.dim), (*f, *t, *d));
            assert_eq!(map.values.len(), (fs.size + fs.exec_size) * d);
            for l in 0..fs.size + fs.exec_size {
                let grow = mesh.row(m, fs.global_ids[l]);
                for j in 0..*d {
                    let v = map.values[l * d + j];
                    assert!(v >= 0 && (v as usize) < ts.total_size());
                    assert_eq!(ts.global_ids[v as usize] as i32, grow[j]);
                    if l < fs.core_size {
                        assert!((v as usize) < ts.size, "core row references a halo");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Simulated communication
// ---------------------------------------------------------------------------

/// Rows of `width` values per element of one set, one array per rank.
type Dist = Vec<Vec<f64>>;

/// Local arrays holding owned rows of `global` and NaN in the halos.
fn scatter_owned(locals: &[LocalMesh], s: usize, global: &[f64], width: usize) -> Dist {
    locals
        .iter()
        .map(|lm| {
            let ls = &lm.sets[s];
            let mut v = vec![f64::NAN; ls.total_size() * width];
            for (l, &g) in ls.owned().iter().enumerate() {
                v[l * width..(l + 1) * width].copy_from_slice(&global[g * width..(g + 1) * width]);
            }
            v
        })
        .collect()
}

/// A halo exchange: every rank packs its export lists, every rank unpacks
/// the messages addressed to it into its import lists.
fn exchange(
    locals: &[LocalMesh],
    s: usize,
    data: &mut Dist,
    width: usize,
    exec: bool,
    nonexec: bool,
) {
    let mut msgs: Vec<(usize, usize, bool, Vec<f64>)> = Vec::new(); // (from, to, exec?, payload)
    for (a, lm) in locals.iter().enumerate() {
        let ls = &lm.sets[s];
        let mut lists = Vec::new();
        if exec {
            lists.push((true, &ls.export_exec));
        }
        if nonexec {
            lists.push((false, &ls.export_nonexec));
        }
        for (kind, h) in lists {
            for (b, idx) in h.neighbours() {
                let mut buf = Vec::new();
                for &l in idx {
                    buf.extend_from_slice(&data[a][l * width..(l + 1) * width]);
                }
                msgs.push((a, b, kind, buf));
            }
        }
    }
    for (a, b, kind, buf) in msgs {
        let ls = &locals[b].sets[s];
        let idx = if kind {
            ls.import_exec.with(a)
        } else {
            ls.import_nonexec.with(a)
        };
        assert_eq!(idx.len() * width, buf.len(), "message size mismatch");
        for (k, &l) in idx.iter().enumerate() {
            data[b][l * width..(l + 1) * width].copy_from_slice(&buf[k * width..(k + 1) * width]);
        }
    }
}

fn check_halo_exchange(mesh: &Mesh, locals: &[LocalMesh]) {
    for (s, &n) in mesh.sizes.iter().enumerate() {
        let width = 2;
        let global: Vec<f64> = (0..n * width).map(|i| i as f64 * 1.25 + s as f64).collect();
        let mut data = scatter_owned(locals, s, &global, width);
        exchange(locals, s, &mut data, width, true, true);
        for (lm, v) in locals.iter().zip(&data) {
            for (l, &g) in lm.sets[s].global_ids.iter().enumerate() {
                assert_eq!(
                    &v[l * width..(l + 1) * width],
                    &global[g * width..(g + 1) * width]
                );
            }
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

/// A distributed indirect-increment loop over every map, then a direct loop,
/// then an indirect read loop, against the single-rank result.
fn check_distributed_loops(mesh: &Mesh, locals: &[LocalMesh]) {
    for (m, &(s, t, d, _)) in mesh.maps.iter().enumerate() {
        let (ns, nt) = (mesh.sizes[s], mesh.sizes[t]);
        let w: Vec<f64> = (0..ns).map(|e| 0.5 + (e % 7) as f64 * 0.3).collect();
        let x: Vec<f64> = (0..nt * 2)
            .map(|i| ((i * 37) % 11) as f64 * 0.7 - 2.0)
            .collect();
        let kernel = |res: &mut [f64], row: &[usize], we: f64, x: &[f64]| {
            for j in 0..row.len() {
                let (a, b) = (row[j], row[(j + 1) % row.len()]);
                res[a] += we * x[2 * b] + 0.25 * x[2 * a + 1];
            }
        };
        // single-rank reference
        let mut res_ref = vec![0.0; nt];
        for e in 0..ns {
            let row: Vec<usize> = mesh.row(m, e).iter().map(|&v| v as usize).collect();
            kernel(&mut res_ref, &row, w[e], &x);
        }
        let q_ref: Vec<f64> = (0..nt).map(|g| 2.0 * res_ref[g] + x[2 * g]).collect();
        let acc_ref: Vec<f64> = (0..ns)
            .map(|e| {
                mesh.row(m, e)
                    .iter()
                    .map(|&v| q_ref[v as usize])
                    .sum::<f64>()
                    * w[e]
            })
            .collect();

        // distributed: inputs from owned rows + halo exchanges
        let mut wd = scatter_owned(locals, s, &w, 1);
        exchange(locals, s, &mut wd, 1, true, true);
        let mut xd = scatter_owned(locals, t, &x, 2);
        exchange(locals, t, &mut xd, 2, true, true);
        let mut qd: Dist = Vec::new();
        for (r, lm) in locals.iter().enumerate() {
            let (fs, ts, map) = (&lm.sets[s], &lm.sets[t], &lm.maps[m]);
            // indirect INC loop: executed over [0, size + exec_size)
            let mut res = vec![0.0; ts.total_size()];
            for l in 0..fs.size + fs.exec_size {
                let row: Vec<usize> = map.values[l * d..(l + 1) * d]
                    .iter()
                    .map(|&v| v as usize)
                    .collect();
                kernel(&mut res, &row, wd[r][l], &xd[r]);
            }
            // direct loop over owned elements
            let mut q = vec![f64::NAN; ts.total_size()];
            for l in 0..ts.size {
                let g = ts.global_ids[l];
                assert!(
                    close(res[l], res_ref[g]),
                    "map {m} rank {r}: res {} vs {}",
                    res[l],
                    res_ref[g]
                );
                q[l] = 2.0 * res[l] + xd[r][2 * l];
            }
            qd.push(q);
        }
        // q was written: exchange before the indirect read loop (which runs
        // over owned elements only, as OP2 does for loops writing no
        // indirect argument)
        exchange(locals, t, &mut qd, 1, true, true);
        for (r, lm) in locals.iter().enumerate() {
            let (fs, map) = (&lm.sets[s], &lm.maps[m]);
            for l in 0..fs.size {
                let acc: f64 = map.values[l * d..(l + 1) * d]
                    .iter()
                    .map(|&v| qd[r][v as usize])
                    .sum::<f64>()
                    * wd[r][l];
                let g = fs.global_ids[l];
                assert!(
                    close(acc, acc_ref[g]),
                    "map {m} rank {r}: acc {acc} vs {}",
                    acc_ref[g]
                );
            }
        }
    }
}

/// Move a dat from the declared distribution to the owners and back.
fn check_migration(mesh: &Mesh, owners: &[Vec<i32>], locals: &[LocalMesh], decl: &[BlockDist]) {
    let nranks = locals.len();
    for (s, &n) in mesh.sizes.iter().enumerate() {
        let global: Vec<f64> = (0..n).map(|g| g as f64 * 3.0 + 0.5).collect();
        let dist = &decl[s];
        let blocks: Vec<Vec<f64>> = (0..nranks)
            .map(|r| global[dist.range(r)].to_vec())
            .collect();
        let migs: Vec<Migration> = (0..nranks)
            .map(|r| migration(dist, &owners[s][dist.range(r)], &locals[r].sets[s]))
            .collect();
        // forward
        let mut owned: Vec<Vec<f64>> = locals
            .iter()
            .map(|lm| vec![f64::NAN; lm.sets[s].size])
            .collect();
        for a in 0..nranks {
            for (b, idx) in migs[a].send.neighbours() {
                let buf: Vec<f64> = idx.iter().map(|&i| blocks[a][i]).collect();
                let dst = migs[b].recv.with(a);
                assert_eq!(dst.len(), buf.len());
                for (&l, &v) in dst.iter().zip(&buf) {
                    owned[b][l] = v;
                }
            }
        }
        for (r, lm) in locals.iter().enumerate() {
            for (l, &g) in lm.sets[s].owned().iter().enumerate() {
                assert_eq!(owned[r][l], global[g]);
            }
            assert_eq!(
                migs[r]
                    .recv
                    .list
                    .iter()
                    .copied()
                    .collect::<BTreeSet<_>>()
                    .len(),
                lm.sets[s].size
            );
        }
        // back (op_fetch_data: the declared block in the original order)
        let inv: Vec<Migration> = migs.iter().map(|m| m.inverse()).collect();
        let mut back: Vec<Vec<f64>> = (0..nranks)
            .map(|r| vec![f64::NAN; dist.range(r).len()])
            .collect();
        for a in 0..nranks {
            for (b, idx) in inv[a].send.neighbours() {
                let buf: Vec<f64> = idx.iter().map(|&l| owned[a][l]).collect();
                let dst = inv[b].recv.with(a);
                assert_eq!(dst.len(), buf.len());
                for (&i, &v) in dst.iter().zip(&buf) {
                    back[b][i] = v;
                }
            }
        }
        assert_eq!(back, blocks);
    }
}

fn all_locals(mesh: &Mesh, owners: &[Vec<i32>], nranks: usize) -> Vec<LocalMesh> {
    let maps = mesh.global_maps();
    let plan = HaloPlan::new(owners, &maps, nranks).unwrap();
    (0..nranks).map(|r| plan.local(r)).collect()
}

fn check_all(mesh: &Mesh, owners: &[Vec<i32>], nranks: usize, seed: u64) {
    let locals = all_locals(mesh, owners, nranks);
    check_structure(mesh, owners, nranks, &locals);
    check_halo_exchange(mesh, &locals);
    check_distributed_loops(mesh, &locals);
    // declared distributions: the standard blocks, and random block sizes
    let std_decl: Vec<BlockDist> = mesh
        .sizes
        .iter()
        .map(|&n| BlockDist::standard(n, nranks))
        .collect();
    check_migration(mesh, owners, &locals, &std_decl);
    let mut rng = SplitMix64::new(seed ^ 0xabcdef);
    let odd_decl: Vec<BlockDist> = mesh
        .sizes
        .iter()
        .map(|&n| {
            let mut cuts: Vec<usize> = (0..nranks - 1)
                .map(|_| rng.below(n as u64 + 1) as usize)
                .collect();
            cuts.sort_unstable();
            let mut sizes = Vec::new();
            let mut prev = 0;
            for c in cuts.into_iter().chain([n]) {
                sizes.push(c - prev);
                prev = c;
            }
            BlockDist::from_sizes(&sizes)
        })
        .collect();
    check_migration(mesh, owners, &locals, &odd_decl);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_meshes(mesh in random_mesh(), nranks in 1usize..=5, kind in 0u8..6, seed in any::<u64>()) {
        let owners = owners_for(&mesh, nranks, kind, seed);
        check_all(&mesh, &owners, nranks, seed);
    }

    #[test]
    fn build_local_is_plan_local(mesh in random_mesh(), nranks in 1usize..=5, seed in any::<u64>()) {
        let owners = owners_for(&mesh, nranks, 0, seed);
        let maps = mesh.global_maps();
        let plan = HaloPlan::new(&owners, &maps, nranks).unwrap();
        for r in 0..nranks {
            let a = plan.local(r);
            let b = build_local(&owners, &maps, r, nranks).unwrap();
            prop_assert_eq!(&a, &b);
            // executes() agrees with the local numbering
            for (s, ls) in a.sets.iter().enumerate() {
                let executed: BTreeSet<usize> =
                    ls.global_ids[..ls.size + ls.exec_size].iter().copied().collect();
                for g in 0..mesh.sizes[s] {
                    prop_assert_eq!(plan.executes(s, g, r), executed.contains(&g));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Structured meshes and edge cases
// ---------------------------------------------------------------------------

/// An airfoil-like quad grid: sets nodes, edges (interior), bedges, cells;
/// maps pedge, pecell, pbedge, pbecell, pcell; node coordinates.
fn quad_grid(nx: usize, ny: usize) -> (Mesh, Vec<f64>) {
    let node = |i: usize, j: usize| (j * (nx + 1) + i) as i32;
    let cell = |i: usize, j: usize| (j * nx + i) as i32;
    let mut pedge = Vec::new();
    let mut pecell = Vec::new();
    let mut pbedge = Vec::new();
    let mut pbecell = Vec::new();
    for j in 0..=ny {
        for i in 0..nx {
            let nodes = [node(i, j), node(i + 1, j)];
            if j == 0 || j == ny {
                pbedge.extend(nodes);
                pbecell.push(cell(i, if j == 0 { 0 } else { ny - 1 }));
            } else {
                pedge.extend(nodes);
                pecell.extend([cell(i, j - 1), cell(i, j)]);
            }
        }
    }
    for j in 0..ny {
        for i in 0..=nx {
            let nodes = [node(i, j), node(i, j + 1)];
            if i == 0 || i == nx {
                pbedge.extend(nodes);
                pbecell.push(cell(if i == 0 { 0 } else { nx - 1 }, j));
            } else {
                pedge.extend(nodes);
                pecell.extend([cell(i - 1, j), cell(i, j)]);
            }
        }
    }
    let mut pcell = Vec::new();
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
    let nnode = (nx + 1) * (ny + 1);
    let nedge = pedge.len() / 2;
    let nbedge = pbedge.len() / 2;
    let ncell = nx * ny;
    let mut coords = Vec::new();
    for j in 0..=ny {
        for i in 0..=nx {
            coords.extend([i as f64 + 0.01 * j as f64, j as f64 * 0.9]);
        }
    }
    let mesh = Mesh {
        sizes: vec![nnode, nedge, nbedge, ncell],
        maps: vec![
            (1, 0, 2, pedge),
            (1, 3, 2, pecell),
            (2, 0, 2, pbedge),
            (2, 3, 1, pbecell),
            (3, 0, 4, pcell),
        ],
    };
    (mesh, coords)
}

#[test]
fn airfoil_like_grid_rcb_on_nodes() {
    let (mesh, coords) = quad_grid(24, 17);
    let sets: Vec<GlobalSet> = mesh.sizes.iter().map(|&size| GlobalSet { size }).collect();
    for nranks in [1, 2, 3, 4, 7] {
        let p0 = partition::rcb(&coords, 2, nranks);
        let d = partition::derive(&sets, &mesh.global_maps(), 0, &p0, nranks).unwrap();
        assert!(d
            .rules
            .iter()
            .all(|r| *r != partition::DeriveRule::Unreached));
        check_all(&mesh, &d.parts, nranks, 7);
        // with a geometric partition most cells are core
        let locals = all_locals(&mesh, &d.parts, nranks);
        let core: usize = locals.iter().map(|l| l.sets[3].core_size).sum();
        assert!(core * 10 >= mesh.sizes[3] * 6, "only {core} core cells");
    }
}

#[test]
fn large_grid_exercises_parallel_paths() {
    // > 16k cells and > 4096 rows per set: parallel bisection and chunked CSR
    let (mesh, coords) = quad_grid(150, 120);
    let sets: Vec<GlobalSet> = mesh.sizes.iter().map(|&size| GlobalSet { size }).collect();
    let nranks = 5;
    let p0 = partition::rcb(&coords, 2, nranks);
    let d = partition::derive(&sets, &mesh.global_maps(), 0, &p0, nranks).unwrap();
    let locals = all_locals(&mesh, &d.parts, nranks);
    check_halo_exchange(&mesh, &locals);
    check_distributed_loops(&mesh, &locals);
    // pairwise list agreement on the large case too
    for s in 0..mesh.sizes.len() {
        for a in 0..nranks {
            for b in 0..nranks {
                let (sa, sb) = (&locals[a].sets[s], &locals[b].sets[s]);
                assert_eq!(
                    gids(sa, sa.export_exec.with(b)),
                    gids(sb, sb.import_exec.with(a))
                );
                assert_eq!(
                    gids(sa, sa.export_nonexec.with(b)),
                    gids(sb, sb.import_nonexec.with(a))
                );
            }
        }
    }
}

#[test]
fn single_rank_has_no_halo() {
    let (mesh, _) = quad_grid(5, 4);
    let owners: Vec<Vec<i32>> = mesh.sizes.iter().map(|&n| vec![0; n]).collect();
    let locals = all_locals(&mesh, &owners, 1);
    let lm = &locals[0];
    for (s, ls) in lm.sets.iter().enumerate() {
        assert_eq!(ls.global_ids, (0..mesh.sizes[s]).collect::<Vec<_>>());
        assert_eq!(
            (ls.core_size, ls.size, ls.exec_size, ls.nonexec_size),
            (mesh.sizes[s], mesh.sizes[s], 0, 0)
        );
        assert!(ls.import_exec.is_empty() && ls.export_exec.is_empty());
        assert!(ls.import_nonexec.is_empty() && ls.export_nonexec.is_empty());
    }
    for (m, (_, _, _, v)) in mesh.maps.iter().enumerate() {
        assert_eq!(&lm.maps[m].values, v);
    }
}

#[test]
fn two_ranks_on_a_line() {
    // nodes 0..6 on a line, edges (i, i+1); nodes 0..3 on rank 0
    let edges: Vec<i32> = (0..5).flat_map(|i| [i, i + 1]).collect();
    let mesh = Mesh {
        sizes: vec![6, 5],
        maps: vec![(1, 0, 2, edges)],
    };
    let owners = vec![vec![0, 0, 0, 1, 1, 1], vec![0, 0, 0, 1, 1]];
    let locals = all_locals(&mesh, &owners, 2);
    let e0 = &locals[0].sets[1];
    // edge 2 = (2, 3) is owned by 0 and references node 3 on rank 1: boundary
    assert_eq!(e0.global_ids, vec![0, 1, 2]);
    assert_eq!(
        (e0.core_size, e0.size, e0.exec_size, e0.nonexec_size),
        (2, 3, 0, 0)
    );
    assert_eq!(e0.export_exec.with(1), &[2]);
    let n0 = &locals[0].sets[0];
    // node 3 is read by edge 2: non-exec halo of rank 0
    assert_eq!(n0.global_ids, vec![0, 1, 2, 3]);
    assert_eq!((n0.size, n0.exec_size, n0.nonexec_size), (3, 0, 1));
    let e1 = &locals[1].sets[1];
    // rank 1 executes edge 2 redundantly (it increments node 3)
    assert_eq!(e1.global_ids, vec![3, 4, 2]);
    assert_eq!((e1.core_size, e1.size, e1.exec_size), (2, 2, 1));
    let n1 = &locals[1].sets[0];
    assert_eq!(n1.global_ids, vec![3, 4, 5, 2]);
    assert_eq!(n1.import_nonexec.with(0), &[3]);
    assert_eq!(locals[1].maps[0].values, vec![0, 1, 1, 2, 3, 0]);
    check_all(&mesh, &owners, 2, 1);
}

#[test]
fn empty_sets_and_ranks() {
    let mesh = Mesh {
        sizes: vec![0, 3],
        maps: vec![],
    };
    let owners = vec![vec![], vec![2, 2, 0]];
    check_all(&mesh, &owners, 4, 3);
    let locals = all_locals(&mesh, &owners, 4);
    assert_eq!(locals[1].sets[1].size, 0);
    assert_eq!(locals[2].sets[1].owned(), &[0, 1]);
}

#[test]
fn invalid_inputs_are_errors() {
    let vals = vec![0, 5];
    let maps = [GlobalMap {
        from: 0,
        to: 1,
        dim: 1,
        values: &vals,
    }];
    let owners = vec![vec![0, 0], vec![0, 0]];
    assert!(HaloPlan::new(&owners, &maps, 1).is_err()); // target 5 out of range
    let ok = vec![0, 1];
    let maps = [GlobalMap {
        from: 0,
        to: 1,
        dim: 1,
        values: &ok,
    }];
    assert!(HaloPlan::new(&owners, &maps, 1).is_ok());
    let bad_owner = vec![vec![0, 3], vec![0, 0]];
    assert!(HaloPlan::new(&bad_owner, &maps, 2).is_err());
    assert!(HaloPlan::new(&owners, &maps, 0).is_err());
    assert!(build_local(&owners, &maps, 1, 1).is_err());
}

/// Timing on ~1e6 elements (run with `--ignored --nocapture`, release).
#[test]
#[ignore]
fn million_element_timing() {
    let (mesh, coords) = quad_grid(1000, 1000);
    let sets: Vec<GlobalSet> = mesh.sizes.iter().map(|&size| GlobalSet { size }).collect();
    let nranks = 16;
    let t = std::time::Instant::now();
    let p0 = partition::rcb(&coords, 2, nranks);
    let rcb_t = t.elapsed();
    let t = std::time::Instant::now();
    let d = partition::derive(&sets, &mesh.global_maps(), 0, &p0, nranks).unwrap();
    let derive_t = t.elapsed();
    let maps = mesh.global_maps();
    let t = std::time::Instant::now();
    let plan = HaloPlan::new(&d.parts, &maps, nranks).unwrap();
    let plan_t = t.elapsed();
    let t = std::time::Instant::now();
    let lm = plan.local(5);
    let local_t = t.elapsed();
    let t = std::time::Instant::now();
    let g = graph::adjacency(&maps[1], mesh.sizes[3]).unwrap();
    let graph_t = t.elapsed();
    println!(
        "sizes {:?}: rcb {rcb_t:?}, derive {derive_t:?}, plan {plan_t:?}, local {local_t:?}, adjacency {graph_t:?}; rank 5 cells {} (+{} exec, +{} nonexec), edge cut {}",
        mesh.sizes,
        lm.sets[3].size,
        lm.sets[3].exec_size,
        lm.sets[3].nonexec_size,
        graph::edge_cut(&g.xadj, &g.adjncy, &d.parts[3])
    );
}
