//! `op_renumber`: reorder the elements of a mesh for cache locality.
//!
//! The set a map points to (OP2's convention: `op_renumber(pecell)` orders
//! the cells) is ordered by reverse Cuthill-McKee on the graph in which two
//! elements are adjacent when some element of the map's from-set refers to
//! both (for a map from a set to itself: when one refers to the other).
//! The order then spreads to every set connected to an ordered set by a map:
//! * a set with a map *to* an ordered set (edges -> cells) is sorted by the
//!   smallest new position its rows refer to (stable: ties keep their order);
//! * a set an ordered set maps *to* (cells -> nodes) is numbered in the order
//!   its elements are first met walking the ordered set's rows in their new
//!   order; elements no row refers to follow, in their old order.
//!
//! Sets not connected to the map's to-set keep their numbering. Only the
//! first `core_size` elements of a set move (all of them on one node; under
//! MPI the core elements, so owned boundary and halo positions, and with
//! them the exchange lists' halo positions, stay where they are).
//!
//! [`plan`] computes the permutations, [`apply`] moves every dat's rows,
//! every map's rows and every map's entries; both are pure functions of the
//! [`Domain`], so every process of a distributed run computes its own.
//!
//! The graph is [`crate::graph::local_adjacency`] (the shared CSR type, in
//! its local form [`crate::graph::LocalCsr`]), ordered by [`rcm`]. The
//! permutations ([`Renumbering`]) and the helpers that move rows and rename
//! map entries by them live in the leaf module [`crate::permute`], which the
//! model ([`Domain`] keeps data declared after a renumbering in the current
//! order) uses too.

use crate::domain::{Domain, MapId, SetId};
use crate::error::{obj, Op2Error, Result};
use crate::graph::{local_adjacency, Csr, Index};
use crate::permute::{i32_bytes, inverse, permute_rows, rename_entries};
use std::collections::VecDeque;
use std::fmt;

pub use crate::permute::Renumbering;

/// Reverse Cuthill-McKee order of the symmetric graph `g` (any [`Csr`]
/// representation; [`local_adjacency`] builds the renumbering's):
/// `order[new] = old`. Each connected component
/// starts at a pseudo-peripheral vertex (George and Liu's search from its
/// vertex of smallest degree), neighbours are visited by increasing degree
/// (ties by index), and the whole sequence is reversed.
pub fn rcm<V: Index, O: Index>(g: &Csr<V, O>) -> Vec<u32> {
    let n = g.nvtxs();
    let degree = |v: usize| g.degree(v);
    let mut placed = vec![false; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    // Scratch for the level structures of the peripheral search: the BFS
    // run that last reached a vertex (0: none), and its level then.
    let mut seen_in = vec![0u32; n];
    let mut level = vec![0u32; n];
    let mut run = 0u32;
    let mut queue = VecDeque::new();
    let mut by_degree: Vec<u32> = (0..n as u32).collect();
    by_degree.sort_by_key(|&v| (degree(v as usize), v));
    let mut nbrs: Vec<u32> = Vec::new();
    for &seed in &by_degree {
        if placed[seed as usize] {
            continue;
        }
        // Pseudo-peripheral start: BFS from the current root; move to the
        // smallest-degree vertex of the last level while the depth grows.
        let mut root = seed as usize;
        let mut depth = 0u32;
        loop {
            run += 1;
            let mut last = Vec::new();
            let mut max_level = 0u32;
            seen_in[root] = run;
            level[root] = 0;
            queue.push_back(root);
            while let Some(v) = queue.pop_front() {
                let lv = level[v];
                if lv > max_level {
                    max_level = lv;
                    last.clear();
                }
                if lv == max_level {
                    last.push(v);
                }
                for &w in g.neighbours(v) {
                    let w = w.to_usize();
                    if seen_in[w] != run {
                        seen_in[w] = run;
                        level[w] = lv + 1;
                        queue.push_back(w);
                    }
                }
            }
            let far = last
                .iter()
                .copied()
                .min_by_key(|&v| (degree(v), v))
                .unwrap_or(root);
            if max_level > depth && far != root {
                depth = max_level;
                root = far;
            } else {
                break;
            }
        }
        // Cuthill-McKee from the root.
        let start = order.len();
        placed[root] = true;
        order.push(root as u32);
        let mut head = start;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            nbrs.clear();
            nbrs.extend(
                g.neighbours(v)
                    .iter()
                    .map(|&w| w.to_usize() as u32)
                    .filter(|&w| !placed[w as usize]),
            );
            nbrs.sort_unstable_by_key(|&w| (degree(w as usize), w));
            for &w in &nbrs {
                if !placed[w as usize] {
                    placed[w as usize] = true;
                    order.push(w);
                }
            }
        }
    }
    order.reverse();
    order
}

/// Largest and mean spread (largest minus smallest entry) of a map's rows:
/// OP2's "bandwidth" of a renumbering.
pub fn bandwidth(values: &[i32], dim: usize) -> (u64, f64) {
    if dim == 0 || values.is_empty() {
        return (0, 0.0);
    }
    let (mut max, mut sum) = (0u64, 0u64);
    let rows = values.len() / dim;
    for row in values.chunks_exact(dim) {
        let lo = row.iter().copied().min().unwrap_or(0) as i64;
        let hi = row.iter().copied().max().unwrap_or(0) as i64;
        let s = (hi - lo) as u64;
        max = max.max(s);
        sum += s;
    }
    (max, sum as f64 / rows as f64)
}

/// What a renumbering did, for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct RenumberReport {
    pub map: String,
    /// The sets that were reordered, in declaration order.
    pub sets: Vec<String>,
    /// The base map's bandwidth (largest, mean) before and after.
    pub before: (u64, f64),
    pub after: (u64, f64),
}

impl fmt::Display for RenumberReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "op_renumber: map \"{}\": reordered {}; bandwidth max {} mean {:.1} -> max {} mean {:.1}",
            self.map,
            if self.sets.is_empty() {
                "nothing".to_string()
            } else {
                self.sets.join(", ")
            },
            self.before.0,
            self.before.1,
            self.after.0,
            self.after.1
        )
    }
}

/// Rows of a map that exist on this process (owned and exec halo).
fn map_rows(dom: &Domain, m: MapId) -> usize {
    let s = dom.set(dom.map(m).from);
    s.size + s.exec_size
}

/// Order the sets connected to `base`'s to-set (see the module docs).
/// `call` names the API call in errors.
pub fn plan(dom: &Domain, base: MapId, call: &str) -> Result<Renumbering> {
    let bm = dom.map(base);
    let nsets = dom.sets().len();
    let limit = |s: SetId| dom.set(s).core_size.min(dom.set(s).size);
    if bm.values.len() < map_rows(dom, base) * bm.dim {
        return Err(Op2Error::new(
            call,
            obj("map", &bm.name),
            "the map holds fewer rows than its from-set (declared with op_decl_map?)",
        ));
    }
    let mut orders: Vec<Option<Vec<u32>>> = vec![None; nsets];
    let mut inverses: Vec<Option<Vec<u32>>> = vec![None; nsets];
    let root = bm.to;
    let n = limit(root);
    let graph = local_adjacency(&bm.values, bm.dim, map_rows(dom, base), n, bm.from == bm.to);
    let order = rcm(&graph);
    drop(graph);
    inverses[root.0] = Some(inverse(&order));
    orders[root.0] = Some(order);
    let mut queue = VecDeque::from([root]);
    while let Some(t) = queue.pop_front() {
        for (mi, m) in dom.maps().iter().enumerate() {
            let other = if m.to == t && orders[m.from.0].is_none() {
                let inv = inverses[t.0].as_deref().expect("ordered set");
                let s = m.from;
                let ls = limit(s);
                // Sort by the smallest new position a row refers to.
                let key = |r: usize| {
                    m.values[r * m.dim..(r + 1) * m.dim]
                        .iter()
                        .map(|&v| match inv.get(v as usize) {
                            Some(&p) if v >= 0 => p as u64,
                            _ => u64::from(u32::MAX) + v.max(0) as u64,
                        })
                        .min()
                        .unwrap_or(u64::MAX)
                };
                let mut o: Vec<u32> = (0..ls as u32).collect();
                o.sort_by_cached_key(|&r| key(r as usize));
                Some((s, o))
            } else if m.from == t && orders[m.to.0].is_none() {
                let order = orders[t.0].as_deref().expect("ordered set");
                let s = m.to;
                let ls = limit(s);
                let rows = map_rows(dom, MapId(mi));
                let mut new_of_old = vec![u32::MAX; ls];
                let mut o: Vec<u32> = Vec::with_capacity(ls);
                let walk = order.iter().map(|&r| r as usize).chain(order.len()..rows);
                for r in walk {
                    for &v in &m.values[r * m.dim..(r + 1) * m.dim] {
                        if v >= 0 && (v as usize) < ls && new_of_old[v as usize] == u32::MAX {
                            new_of_old[v as usize] = o.len() as u32;
                            o.push(v as u32);
                        }
                    }
                }
                for (old, slot) in new_of_old.iter().enumerate() {
                    if *slot == u32::MAX {
                        o.push(old as u32);
                    }
                }
                Some((s, o))
            } else {
                None
            };
            if let Some((s, o)) = other {
                inverses[s.0] = Some(inverse(&o));
                orders[s.0] = Some(o);
                queue.push_back(s);
            }
        }
    }
    Ok(Renumbering { orders })
}

/// Move every dat's rows, every map's rows and every map's entries by `r`.
/// Storage is rewritten in place (pointers handed out stay valid).
pub fn apply(dom: &mut Domain, r: &Renumbering) {
    let inverses: Vec<Option<Vec<u32>>> =
        r.orders.iter().map(|o| o.as_deref().map(inverse)).collect();
    for mi in 0..dom.maps().len() {
        let (from, to, dim) = {
            let m = dom.map(MapId(mi));
            (m.from, m.to, m.dim)
        };
        let m = dom.map_mut(MapId(mi));
        if let Some(Some(inv)) = inverses.get(to.0) {
            rename_entries(&mut m.values, inv);
        }
        if let Some(Some(order)) = r.orders.get(from.0) {
            permute_rows(i32_bytes(&mut m.values), dim * 4, order);
        }
    }
    let dats: Vec<_> = dom
        .dats()
        .map(|(id, d)| (id, d.set, d.elem_bytes))
        .collect();
    for (id, set, eb) in dats {
        if let Some(Some(order)) = r.orders.get(set.0) {
            permute_rows(dom.dat_mut(id).data.as_mut_slice(), eb, order);
        }
    }
}

/// Overlays share their owner's storage, possibly on another set: moving
/// the rows of one would scramble the other, so renumbering a set that an
/// overlay or an overlaid dat lives on is refused.
fn refuse_overlays(dom: &Domain, r: &Renumbering, call: &str) -> Result<()> {
    let moved = |s: SetId| matches!(r.orders.get(s.0), Some(Some(o)) if !o.is_empty());
    for (_, d) in dom.dats() {
        let Some(owner) = d.overlay_of else { continue };
        let o = dom.dat(owner);
        if moved(d.set) || moved(o.set) {
            return Err(Op2Error::new(
                call,
                obj("dat", &d.name),
                format!(
                    "an overlay (op_decl_dat_overlay) on set \"{}\" shares the storage of a dat on set \"{}\"; \
                     renumbering would move shared rows: renumber before declaring overlays",
                    dom.set(d.set).name,
                    dom.set(o.set).name
                ),
            ));
        }
    }
    Ok(())
}

/// Plan and apply; the report names what moved and the base map's
/// bandwidth before and after.
pub fn renumber(
    dom: &mut Domain,
    base: MapId,
    call: &str,
) -> Result<(Renumbering, RenumberReport)> {
    let bm = dom.map(base);
    let rows = map_rows(dom, base).min(dom.set(bm.from).core_size);
    let before = bandwidth(&bm.values[..rows * bm.dim], bm.dim);
    let r = plan(dom, base, call)?;
    refuse_overlays(dom, &r, call)?;
    apply(dom, &r);
    let bm = dom.map(base);
    let after = bandwidth(&bm.values[..rows * bm.dim], bm.dim);
    let sets = r
        .orders
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_some())
        .map(|(s, _)| format!("\"{}\"", dom.set(SetId(s)).name))
        .collect();
    let report = RenumberReport {
        map: bm.name.clone(),
        sets,
        before,
        after,
    };
    Ok((r, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{DatId, MapCheck};
    use crate::graph::LocalCsr;

    /// A deterministic shuffle of `0..n` (xorshift, Fisher-Yates).
    fn shuffled(n: usize, mut seed: u64) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            v.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        v
    }

    fn is_permutation(o: &[u32], n: usize) -> bool {
        let mut seen = vec![false; n];
        o.len() == n
            && o.iter()
                .all(|&v| (v as usize) < n && !std::mem::replace(&mut seen[v as usize], true))
    }

    /// Cells of an `nx` x `ny` grid (label `label[c]` for natural cell `c`),
    /// adjacent through their shared faces: edges -> cells, dim 2.
    fn grid_faces(nx: usize, ny: usize, label: &[u32]) -> Vec<i32> {
        let mut ecell = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                if i + 1 < nx {
                    ecell.extend([label[c] as i32, label[c + 1] as i32]);
                }
                if j + 1 < ny {
                    ecell.extend([label[c] as i32, label[c + nx] as i32]);
                }
            }
        }
        ecell
    }

    /// Bandwidth of the graph of `ecell` after relabelling by `order`.
    fn ordered_bandwidth(ecell: &[i32], order: &[u32]) -> u64 {
        let inv = inverse(order);
        let v: Vec<i32> = ecell.iter().map(|&c| inv[c as usize] as i32).collect();
        bandwidth(&v, 2).0
    }

    #[test]
    fn rcm_restores_a_narrow_band_on_a_shuffled_grid() {
        let (nx, ny) = (40, 25);
        let n = nx * ny;
        let label = shuffled(n, 12345);
        let ecell = grid_faces(nx, ny, &label);
        let natural = bandwidth(&grid_faces(nx, ny, &(0..n as u32).collect::<Vec<_>>()), 2).0;
        assert_eq!(natural, nx as u64); // row-major: the band is one row wide
        let shuffled_bw = bandwidth(&ecell, 2).0;
        assert!(shuffled_bw > 10 * natural, "{shuffled_bw}");
        let g = local_adjacency(&ecell, 2, ecell.len() / 2, n, false);
        // Every interior cell has four neighbours, symmetric lists.
        assert_eq!(g.xadj[n], 2 * ecell.len() / 2);
        let order = rcm(&g);
        assert!(is_permutation(&order, n));
        let bw = ordered_bandwidth(&ecell, &order);
        // RCM numbers a grid by anti-diagonals from a corner: the band is
        // about the shorter side (25), never more than the natural row-major one.
        assert!(bw <= natural, "RCM bandwidth {bw}, row-major {natural}");
        assert!(bw <= ny as u64 + 1, "RCM bandwidth {bw}");
    }

    #[test]
    fn rcm_orders_every_component_and_isolated_vertex() {
        // Two paths 0-3-5 and 1-4, vertices 2 and 6 isolated.
        let pairs = [0, 3, 3, 5, 1, 4];
        let g = local_adjacency(&pairs, 2, 3, 7, false);
        assert_eq!(g.neighbours(3), &[0, 5]);
        let order = rcm(&g);
        assert!(is_permutation(&order, 7));
        // Each path is numbered contiguously, end to end.
        let inv = inverse(&order);
        let d = |a: usize, b: usize| (inv[a] as i64 - inv[b] as i64).abs();
        assert_eq!((d(0, 3), d(3, 5), d(1, 4)), (1, 1, 1));
        let empty = LocalCsr {
            xadj: vec![0],
            adjncy: vec![],
        };
        assert!(rcm(&empty).is_empty());
    }

    /// A quad mesh with shuffled numbering: nodes, cells, edges (edge -> node,
    /// edge -> cell), dats holding each element's natural id, and the maps in
    /// natural ids for checking.
    struct Mesh {
        dom: Domain,
        nodes: SetId,
        cells: SetId,
        edges: SetId,
        pcell: MapId,
        pecell: MapId,
        pedge: MapId,
        ids: [DatId; 3],
        /// (cell -> node, edge -> cell, edge -> node) in natural ids.
        natural: [Vec<i32>; 3],
    }

    fn int_dat(dom: &mut Domain, set: SetId, vals: &[i32], name: &str) -> DatId {
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        dom.decl_dat("op_decl_dat", set, 1, "int", 4, Some(&bytes), name, false)
            .unwrap()
    }

    fn ints(dom: &Domain, d: DatId) -> Vec<i32> {
        let n = dom.set(dom.dat(d).set).size;
        dom.dat(d).data.as_slice()[..4 * n]
            .chunks_exact(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// The natural quad grid: cell -> node (4), edge -> cell and edge -> node (2).
    fn natural_quads(nx: usize, ny: usize) -> [Vec<i32>; 3] {
        let node = |i: usize, j: usize| (j * (nx + 1) + i) as i32;
        let mut cell_nodes = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                cell_nodes.extend([
                    node(i, j),
                    node(i + 1, j),
                    node(i + 1, j + 1),
                    node(i, j + 1),
                ]);
            }
        }
        let ecell = grid_faces(nx, ny, &(0..(nx * ny) as u32).collect::<Vec<_>>());
        // the node pair shared by each face, from the two cells' corners
        let mut enode = Vec::new();
        for f in ecell.chunks_exact(2) {
            let a = &cell_nodes[4 * f[0] as usize..4 * f[0] as usize + 4];
            let b = &cell_nodes[4 * f[1] as usize..4 * f[1] as usize + 4];
            enode.extend(a.iter().filter(|x| b.contains(x)));
        }
        [cell_nodes, ecell, enode]
    }

    fn mesh(nx: usize, ny: usize) -> Mesh {
        let nn = (nx + 1) * (ny + 1);
        let nc = nx * ny;
        let [cell_nodes, ecell, enode] = natural_quads(nx, ny);
        let ne = ecell.len() / 2;
        let (sn, sc, se) = (shuffled(nn, 7), shuffled(nc, 99), shuffled(ne, 3));
        // element declared at position p is natural element s[p]
        let relabel = |vals: &[i32], dim: usize, rows: &[u32], to: &[u32]| -> Vec<i32> {
            let inv = inverse(to);
            rows.iter()
                .flat_map(|&r| {
                    vals[r as usize * dim..(r as usize + 1) * dim]
                        .iter()
                        .map(|&v| inv[v as usize] as i32)
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let mut dom = Domain::new();
        let nodes = dom.decl_set(nn as i64, "nodes").unwrap();
        let cells = dom.decl_set(nc as i64, "cells").unwrap();
        let edges = dom.decl_set(ne as i64, "edges").unwrap();
        let pcell = dom
            .decl_map(
                cells,
                nodes,
                4,
                &relabel(&cell_nodes, 4, &sc, &sn),
                0,
                "pcell",
                MapCheck::Local,
            )
            .unwrap();
        let pedge = dom
            .decl_map(
                edges,
                nodes,
                2,
                &relabel(&enode, 2, &se, &sn),
                0,
                "pedge",
                MapCheck::Local,
            )
            .unwrap();
        let pecell = dom
            .decl_map(
                edges,
                cells,
                2,
                &relabel(&ecell, 2, &se, &sc),
                0,
                "pecell",
                MapCheck::Local,
            )
            .unwrap();
        let as_i32 = |s: &[u32]| s.iter().map(|&v| v as i32).collect::<Vec<_>>();
        let ids = [
            int_dat(&mut dom, nodes, &as_i32(&sn), "node_id"),
            int_dat(&mut dom, cells, &as_i32(&sc), "cell_id"),
            int_dat(&mut dom, edges, &as_i32(&se), "edge_id"),
        ];
        Mesh {
            dom,
            nodes,
            cells,
            edges,
            pcell,
            pecell,
            pedge,
            ids,
            natural: [cell_nodes, ecell, enode],
        }
    }

    /// Every map row, read through the id dats, is the natural mesh's row.
    fn check_same_mesh(m: &Mesh) {
        let [nid, cid, eid] = m.ids.map(|d| ints(&m.dom, d));
        let cases = [
            (m.pcell, &cid, &nid, &m.natural[0]),
            (m.pecell, &eid, &cid, &m.natural[1]),
            (m.pedge, &eid, &nid, &m.natural[2]),
        ];
        for (map, row_id, to_id, natural) in cases {
            let mp = m.dom.map(map);
            for (r, row) in mp.values.chunks_exact(mp.dim).enumerate() {
                let want = &natural[row_id[r] as usize * mp.dim..(row_id[r] as usize + 1) * mp.dim];
                let got: Vec<i32> = row.iter().map(|&v| to_id[v as usize]).collect();
                assert_eq!(got, want, "map {} row {r}", mp.name);
            }
        }
    }

    #[test]
    fn renumbering_keeps_the_mesh_and_narrows_every_map() {
        let mut m = mesh(30, 20);
        check_same_mesh(&m);
        let declared = m.ids.map(|d| m.dom.rows_in_declared_order(d));
        let bw = |m: &Mesh, map: MapId| bandwidth(&m.dom.map(map).values, m.dom.map(map).dim).0;
        let before = [bw(&m, m.pecell), bw(&m, m.pcell), bw(&m, m.pedge)];
        let (r, report) = renumber(&mut m.dom, m.pecell, "op_renumber").unwrap();
        m.dom.record_renumbering(&r);
        for s in [m.nodes, m.cells, m.edges] {
            let o = r.orders[s.0].as_ref().expect("every set is connected");
            assert!(is_permutation(o, m.dom.set(s).size));
        }
        assert_eq!(report.sets, ["\"nodes\"", "\"cells\"", "\"edges\""]);
        check_same_mesh(&m);
        let after = [bw(&m, m.pecell), bw(&m, m.pcell), bw(&m, m.pedge)];
        for (b, a) in before.iter().zip(&after) {
            assert!(*a * 10 < *b, "bandwidth {b} -> {a}");
        }
        assert_eq!(report.after.0, after[0]);
        // Fetching undoes it; a second renumbering composes.
        for (d, want) in m.ids.iter().zip(&declared) {
            assert_eq!(&m.dom.rows_in_declared_order(*d), want);
        }
        let (r2, _) = renumber(&mut m.dom, m.pcell, "op_renumber").unwrap();
        m.dom.record_renumbering(&r2);
        check_same_mesh(&m);
        for (d, want) in m.ids.iter().zip(&declared) {
            assert_eq!(&m.dom.rows_in_declared_order(*d), want);
        }
    }

    #[test]
    fn data_and_maps_declared_after_renumbering_are_in_the_declared_numbering() {
        let mut m = mesh(6, 5);
        let (r, _) = renumber(&mut m.dom, m.pecell, "op_renumber").unwrap();
        m.dom.record_renumbering(&r);
        // A copy of the cell ids and of pecell, declared now in the numbering
        // the program knows: they must line up with the renumbered originals.
        let cid = m.dom.rows_in_declared_order(m.ids[1]);
        let cid: Vec<i32> = cid
            .chunks_exact(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        let late = int_dat(&mut m.dom, m.cells, &cid, "late");
        m.dom.renumber_new_dat(late);
        assert_eq!(ints(&m.dom, late), ints(&m.dom, m.ids[1]));
        let declared_pecell = {
            let eorder = m.dom.set_order(m.edges).unwrap().to_vec();
            let corder = m.dom.set_order(m.cells).unwrap().to_vec();
            let cur = &m.dom.map(m.pecell).values;
            let mut v = vec![0; cur.len()];
            for (p, &decl) in eorder.iter().enumerate() {
                for k in 0..2 {
                    v[decl as usize * 2 + k] = corder[cur[p * 2 + k] as usize] as i32;
                }
            }
            v
        };
        let late_map = m
            .dom
            .decl_map(
                m.edges,
                m.cells,
                2,
                &declared_pecell,
                0,
                "late",
                MapCheck::Local,
            )
            .unwrap();
        assert_eq!(m.dom.map(late_map).values, m.dom.map(m.pecell).values);
    }

    #[test]
    fn unconnected_sets_keep_their_numbering() {
        let mut m = mesh(4, 3);
        let other = m.dom.decl_set(5, "other").unwrap();
        let d = int_dat(&mut m.dom, other, &[5, 4, 3, 2, 1], "d");
        let (r, report) = renumber(&mut m.dom, m.pecell, "op_renumber").unwrap();
        assert!(r.orders[other.0].is_none());
        assert!(!report.sets.contains(&"\"other\"".to_string()));
        assert_eq!(ints(&m.dom, d), [5, 4, 3, 2, 1]);
    }
}
