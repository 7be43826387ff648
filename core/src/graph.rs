//! The mesh as a graph: maps in global numbering and the CSR graphs built
//! from them, in one place for every consumer.
//!
//! * [`GlobalMap`]: a map as the partitioners and halo construction read it
//!   (a fixed-degree bipartite graph from its from-set to its to-set).
//! * [`Csr`]: a graph in compressed sparse row form. Built here by
//!   * [`adjacency`]: OP2's k-way graph of a map's to-set (two to-elements
//!     are adjacent when one from-element references both); the graph the
//!     replicated k-way partitioner and the partition quality report use;
//!   * [`dual_graph`]: the dual graph on a map's from-set (METIS's
//!     mesh-to-dual);
//!   * [`local_adjacency`]: the same adjacency on a process's own rows,
//!     restricted to a prefix of the to-set and with the self-map rule
//!     (`op_renumber`'s graph, consumed by [`crate::renumber::rcm`]);
//!   * [`Csr::from_sorted_pairs`]: a rank's rows of a graph distributed by
//!     vertex blocks, from its sorted edge list
//!     ([`crate::dist::directory::adjacency`], consumed by the distributed
//!     k-way partitioners).
//! * [`edge_cut`] ([`Csr::edge_cut`]): the partition quality metric.
//!
//! Every builder gives sorted rows, without duplicates or self loops, and
//! symmetric graphs. Where OP2 aborts on a vertex with no neighbour, these
//! give an empty row.
//!
//! # Representation
//! `Csr<V, O>`: vertex ids of type `V`, row offsets of type `O` (both
//! [`Index`]); the neighbours of `v` are `adjncy[xadj[v]..xadj[v + 1]]`.
//! The default, `Csr` = `Csr<i32, i32>`, is METIS's (`idx_t` of 32 bits) and
//! PT-Scotch's: the k-way graphs are handed to those libraries as they are,
//! and building one refuses a graph whose edge count does not fit.
//! [`LocalCsr`] = `Csr<u32, usize>` is a process's local graph
//! (renumbering): vertex ids are local indices, the edge count is unbounded.
//! The algorithms ([`Csr::neighbours`], [`Csr::edge_cut`], RCM) are generic
//! over both.
//!
//! Construction runs in parallel inside a rayon pool (`par_csr`) and does
//! not depend on the thread count.

use crate::error::{Op2Error, Result};
use crate::par;
use std::fmt::Debug;

/// A map in global numbering: `values[e * dim + j]` is the `j`-th target
/// (an index into set `to`) of element `e` of set `from`.
#[derive(Debug, Clone, Copy)]
pub struct GlobalMap<'a> {
    /// Index of the from-set in the caller's set list.
    pub from: usize,
    /// Index of the to-set in the caller's set list.
    pub to: usize,
    pub dim: usize,
    pub values: &'a [i32],
}

impl<'a> GlobalMap<'a> {
    /// Number of from-elements (rows).
    pub fn rows(&self) -> usize {
        self.values.len().checked_div(self.dim).unwrap_or(0)
    }

    /// The targets of from-element `e`.
    #[inline]
    pub fn row(&self, e: usize) -> &'a [i32] {
        &self.values[e * self.dim..(e + 1) * self.dim]
    }

    /// Check set indices, the dimension, the length and every entry against
    /// `set_sizes`. `index` and `call` only label the error.
    pub fn validate(&self, set_sizes: &[usize], index: usize, call: &str) -> Result<()> {
        let err = |msg: String| Op2Error::new(call, format!("map {index}"), msg);
        let nsets = set_sizes.len();
        if self.from >= nsets || self.to >= nsets {
            return Err(err(format!(
                "set index out of range (from {}, to {}, {nsets} sets)",
                self.from, self.to
            )));
        }
        if self.dim == 0 {
            return Err(err("dimension 0".into()));
        }
        let expect = set_sizes[self.from] * self.dim;
        if self.values.len() != expect {
            return Err(err(format!(
                "{} entries, from-set size {} x dim {} = {expect}",
                self.values.len(),
                set_sizes[self.from],
                self.dim
            )));
        }
        let nto = set_sizes[self.to];
        if let Some(p) = self.values.iter().position(|&v| v < 0 || v as usize >= nto) {
            return Err(err(format!(
                "entry {p} (= {}) outside the to-set [0, {nto})",
                self.values[p]
            )));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The CSR type
// ---------------------------------------------------------------------------

/// The integer type of a [`Csr`]'s vertex ids or offsets.
pub trait Index: Copy + Ord + Debug + Send + Sync + 'static {
    /// The largest value, as `usize`.
    const MAX: usize;
    /// Its width in bits.
    const BITS: u32;
    /// `v` as this type (`v <= MAX`; the builders check it).
    fn from_usize(v: usize) -> Self;
    /// This (non-negative) value as `usize`.
    fn to_usize(self) -> usize;
}

macro_rules! index_impl {
    ($($t:ty),*) => {$(
        impl Index for $t {
            const MAX: usize = <$t>::MAX as usize;
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn from_usize(v: usize) -> Self {
                debug_assert!(v <= <Self as Index>::MAX);
                v as $t
            }
            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }
        }
    )*};
}

index_impl!(u16, i32, u32, usize);

/// A graph in compressed sparse row form: the neighbours of vertex `v` are
/// `adjncy[xadj[v]..xadj[v + 1]]` (see the module docs for the index types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr<V = i32, O = V> {
    pub xadj: Vec<O>,
    pub adjncy: Vec<V>,
}

/// A process's local graph: `u32` vertex ids, `usize` offsets.
pub type LocalCsr = Csr<u32, usize>;

impl<V: Index, O: Index> Csr<V, O> {
    /// Number of vertices.
    pub fn nvtxs(&self) -> usize {
        self.xadj.len().saturating_sub(1)
    }

    /// Number of entries (twice the undirected edges of a symmetric graph).
    pub fn nentries(&self) -> usize {
        self.adjncy.len()
    }

    /// The neighbours of vertex `v`.
    #[inline]
    pub fn neighbours(&self, v: usize) -> &[V] {
        &self.adjncy[self.xadj[v].to_usize()..self.xadj[v + 1].to_usize()]
    }

    /// The number of neighbours of vertex `v`.
    #[inline]
    pub fn degree(&self, v: usize) -> usize {
        self.xadj[v + 1].to_usize() - self.xadj[v].to_usize()
    }

    /// From `usize` offsets (`offsets[0] == 0`, one more than the vertices)
    /// and the entries; refuses an entry count the offset type cannot hold.
    pub fn from_parts(offsets: Vec<usize>, adjncy: Vec<V>) -> Result<Self> {
        if adjncy.len() > O::MAX {
            return Err(Op2Error::new(
                "op_partition",
                "",
                format!(
                    "graph of {} edges exceeds {}-bit indices",
                    adjncy.len(),
                    O::BITS
                ),
            ));
        }
        Ok(Csr {
            xadj: offsets.into_iter().map(O::from_usize).collect(),
            adjncy,
        })
    }

    /// Edges whose ends are in different parts ([`edge_cut`]).
    pub fn edge_cut(&self, part: &[i32]) -> usize {
        let cut: usize = (0..self.nvtxs())
            .map(|v| {
                self.neighbours(v)
                    .iter()
                    .filter(|&&u| part[u.to_usize()] != part[v])
                    .count()
            })
            .sum();
        cut / 2
    }
}

impl Csr {
    /// The rows of vertices `first..first + n` of a graph given as sorted,
    /// duplicate-free `(u << 32) | v` keys (`u` in that range): vertex ids
    /// stay global. The distributed directory's build.
    pub fn from_sorted_pairs(first: usize, n: usize, pairs: &[u64]) -> Result<Csr> {
        let mut offsets = vec![0usize; n + 1];
        for &p in pairs {
            offsets[(p >> 32) as usize - first + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let adjncy = pairs.iter().map(|&p| p as u32 as i32).collect();
        Csr::from_parts(offsets, adjncy)
    }
}

/// Edges of a symmetric graph whose ends are in different parts (each
/// undirected edge once, METIS's `objval`).
pub fn edge_cut(xadj: &[i32], adjncy: &[i32], part: &[i32]) -> usize {
    let n = xadj.len().saturating_sub(1);
    let cut: usize = (0..n)
        .map(|v| {
            adjncy[xadj[v] as usize..xadj[v + 1] as usize]
                .iter()
                .filter(|&&u| part[u as usize] != part[v])
                .count()
        })
        .sum();
    cut / 2
}

// ---------------------------------------------------------------------------
// Parallel CSR construction (shared with the halo module)
// ---------------------------------------------------------------------------

/// Rows handled by one task of [`par_csr`].
const CSR_CHUNK: usize = 4096;

/// Build a CSR structure with `n` rows (in parallel inside a rayon pool, see
/// `crate::par`): `row(v, buf)` appends row `v`'s entries to the empty `buf`.
/// Returns `(offsets, entries)` with `offsets.len() == n + 1`. The result does
/// not depend on the thread count.
pub(crate) fn par_csr<T, F>(n: usize, row: F) -> (Vec<usize>, Vec<T>)
where
    T: Send + Clone,
    F: Fn(usize, &mut Vec<T>) + Sync,
{
    let nchunks = n.div_ceil(CSR_CHUNK);
    let chunks: Vec<(Vec<usize>, Vec<T>)> = par::map_range(nchunks, 1, |c| {
        let lo = c * CSR_CHUNK;
        let hi = ((c + 1) * CSR_CHUNK).min(n);
        let mut lens = Vec::with_capacity(hi - lo);
        let mut flat = Vec::new();
        let mut buf = Vec::new();
        for v in lo..hi {
            buf.clear();
            row(v, &mut buf);
            lens.push(buf.len());
            flat.extend_from_slice(&buf);
        }
        (lens, flat)
    });
    let total: usize = chunks.iter().map(|c| c.1.len()).sum();
    let mut offsets = Vec::with_capacity(n + 1);
    let mut entries = Vec::with_capacity(total);
    offsets.push(0);
    for (lens, flat) in chunks {
        for l in lens {
            let last = *offsets.last().unwrap();
            offsets.push(last + l);
        }
        entries.extend(flat);
    }
    (offsets, entries)
}

// ---------------------------------------------------------------------------
// Graphs of a map
// ---------------------------------------------------------------------------

/// The rows a graph is built from: rows `0..rows` of a map of dimension
/// `dim`, of which only the targets in `[0, limit)` count.
#[derive(Clone, Copy)]
struct Rows<'a> {
    values: &'a [i32],
    dim: usize,
    rows: usize,
    limit: usize,
}

impl<'a> Rows<'a> {
    #[inline]
    fn row(&self, r: usize) -> &'a [i32] {
        &self.values[r * self.dim..(r + 1) * self.dim]
    }

    #[inline]
    fn inside(&self, v: i32) -> bool {
        v >= 0 && (v as usize) < self.limit
    }

    /// The counted targets of row `r`, each once (a row naming a target
    /// twice counts it once), in row order.
    fn distinct(&self, r: usize) -> impl Iterator<Item = usize> + 'a {
        let (row, limit) = (self.row(r), self.limit);
        row.iter()
            .enumerate()
            .filter(move |&(j, &t)| t >= 0 && (t as usize) < limit && !row[..j].contains(&t))
            .map(|(_, &t)| t as usize)
    }

    /// The inverse of rows `0..nrows`: for each target, the rows that name
    /// it, ascending, each once.
    fn inverse(&self, nrows: usize) -> (Vec<usize>, Vec<u32>) {
        let n = self.limit;
        let mut count = vec![0usize; n + 1];
        for r in 0..nrows {
            for t in self.distinct(r) {
                count[t + 1] += 1;
            }
        }
        for t in 0..n {
            count[t + 1] += count[t];
        }
        let mut fill = count.clone();
        let mut from = vec![0u32; count[n]];
        for r in 0..nrows {
            for t in self.distinct(r) {
                from[fill[t]] = r as u32;
                fill[t] += 1;
            }
        }
        (count, from)
    }
}

/// The adjacency of the targets of `rows` (vertices `0..rows.limit`): two
/// are adjacent when one row names both, or, for a map from a set to itself
/// (`self_map`), when row `u` names `v`. Sorted rows without duplicates or
/// self loops, symmetric; `(offsets, entries)`.
fn to_set_adjacency<V: Index>(rows: Rows<'_>, self_map: bool) -> (Vec<usize>, Vec<V>) {
    let own_rows = if self_map {
        rows.rows.min(rows.limit)
    } else {
        rows.rows
    };
    let (inv_off, inv) = rows.inverse(own_rows);
    par_csr(rows.limit, |v, buf: &mut Vec<V>| {
        let named_by = &inv[inv_off[v]..inv_off[v + 1]];
        let others = |t: &i32| rows.inside(*t) && *t as usize != v;
        if self_map {
            if v < own_rows {
                buf.extend(
                    rows.row(v)
                        .iter()
                        .filter(|t| others(t))
                        .map(|&t| V::from_usize(t as usize)),
                );
            }
            buf.extend(
                named_by
                    .iter()
                    .filter(|&&r| r as usize != v)
                    .map(|&r| V::from_usize(r as usize)),
            );
        } else {
            for &r in named_by {
                buf.extend(
                    rows.row(r as usize)
                        .iter()
                        .filter(|t| others(t))
                        .map(|&t| V::from_usize(t as usize)),
                );
            }
        }
        buf.sort_unstable();
        buf.dedup();
    })
}

/// OP2's k-way graph for a primary map: vertices are the map's to-set
/// (`nto` elements); `u` and `v` are adjacent when some from-element
/// references both. Rows sorted, no self loops, symmetric.
pub fn adjacency(map: &GlobalMap<'_>, nto: usize) -> Result<Csr> {
    check_graph_map(map, nto)?;
    let rows = Rows {
        values: map.values,
        dim: map.dim,
        rows: map.rows(),
        limit: nto,
    };
    let (offsets, adjncy) = to_set_adjacency::<i32>(rows, false);
    Csr::from_parts(offsets, adjncy)
}

/// The adjacency of the first `limit` elements of a map's to-set on this
/// process: two are adjacent when one row of the map (among its first
/// `rows` rows) refers to both, or, for a map from a set to itself
/// (`self_map`), when row `i` refers to `j`. Entries outside `[0, limit)`
/// (negative, past the limit) are left out. Sorted, without duplicates or
/// self loops, symmetric.
pub fn local_adjacency(
    values: &[i32],
    dim: usize,
    rows: usize,
    limit: usize,
    self_map: bool,
) -> LocalCsr {
    let rows = Rows {
        values,
        dim,
        rows: rows.min(values.len() / dim.max(1)),
        limit,
    };
    let (xadj, adjncy) = to_set_adjacency::<u32>(rows, self_map);
    Csr { xadj, adjncy }
}

/// The dual graph on the map's from-set: two from-elements are adjacent when
/// they share at least `ncommon` distinct targets (METIS's mesh-to-dual;
/// `ncommon == 1`: share any target). Rows sorted, no self loops, symmetric.
pub fn dual_graph(map: &GlobalMap<'_>, nto: usize, ncommon: usize) -> Result<Csr> {
    check_graph_map(map, nto)?;
    let ncommon = ncommon.max(1);
    let rows = Rows {
        values: map.values,
        dim: map.dim,
        rows: map.rows(),
        limit: nto,
    };
    let (inv_off, inv) = rows.inverse(rows.rows);
    let (offsets, adjncy) = par_csr(rows.rows, |e, buf: &mut Vec<i32>| {
        for t in rows.distinct(e) {
            buf.extend(
                inv[inv_off[t]..inv_off[t + 1]]
                    .iter()
                    .filter(|&&f| f as usize != e)
                    .map(|&f| f as i32),
            );
        }
        buf.sort_unstable();
        keep_repeated(buf, ncommon);
    });
    Csr::from_parts(offsets, adjncy)
}

/// A sorted `buf` reduced to the values met at least `ncommon` times, once
/// each.
fn keep_repeated(buf: &mut Vec<i32>, ncommon: usize) {
    let mut w = 0;
    let mut i = 0;
    while i < buf.len() {
        let v = buf[i];
        let mut c = 0;
        while i < buf.len() && buf[i] == v {
            c += 1;
            i += 1;
        }
        if c >= ncommon {
            buf[w] = v;
            w += 1;
        }
    }
    buf.truncate(w);
}

fn check_graph_map(map: &GlobalMap<'_>, nto: usize) -> Result<()> {
    let rows = map.rows();
    if rows > i32::MAX as usize || nto > i32::MAX as usize {
        return Err(Op2Error::new(
            "op_partition",
            "",
            "graph exceeds 32-bit vertex indices",
        ));
    }
    // validate against a two-set description: from = 0, to = 1
    let probe = GlobalMap {
        from: 0,
        to: 1,
        ..*map
    };
    probe.validate(&[rows, nto], 0, "op_partition")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The adjacency by definition: every pair of counted targets of a row
    /// (or, for a self-map, every row and its counted targets), both ways.
    fn brute_force(
        values: &[i32],
        dim: usize,
        rows: usize,
        limit: usize,
        self_map: bool,
    ) -> Vec<Vec<u32>> {
        let inside = |v: i32| v >= 0 && (v as usize) < limit;
        let mut adj = vec![BTreeSet::new(); limit];
        for r in 0..rows {
            let row = &values[r * dim..(r + 1) * dim];
            for &a in row.iter().filter(|&&a| inside(a)) {
                if self_map {
                    if r < limit && a as usize != r {
                        adj[r].insert(a as u32);
                        adj[a as usize].insert(r as u32);
                    }
                    continue;
                }
                for &b in row.iter().filter(|&&b| inside(b) && b != a) {
                    adj[a as usize].insert(b as u32);
                }
            }
        }
        adj.into_iter().map(|s| s.into_iter().collect()).collect()
    }

    fn rows_of(g: &LocalCsr) -> Vec<Vec<u32>> {
        (0..g.nvtxs()).map(|v| g.neighbours(v).to_vec()).collect()
    }

    /// Deterministic pseudo-random map entries in `[-2, span - 2)`.
    fn entries(n: usize, span: u64, mut seed: u64) -> Vec<i32> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % span) as i32 - 2
            })
            .collect()
    }

    #[test]
    fn adjacency_of_a_self_map_is_symmetric_and_drops_loops() {
        // 0 -> 1, 1 -> 1 (loop), 2 -> 0, entries beyond the limit left out.
        let m = [1, 7, 1, 1, 0, 0];
        let g = local_adjacency(&m, 2, 3, 3, true);
        assert_eq!(g.xadj, vec![0, 2, 3, 4]);
        assert_eq!(g.adjncy, vec![1, 2, 0, 0]);
    }

    #[test]
    fn local_adjacency_is_the_definition() {
        for seed in 1..40u64 {
            for dim in 1..5 {
                let nrows = (seed as usize * 7) % 23;
                let v = entries(nrows * dim, 14, seed);
                for (rows, limit) in [(nrows, 12), (nrows / 2, 9), (nrows + 3, 5), (0, 3)] {
                    for self_map in [false, true] {
                        let g = local_adjacency(&v, dim, rows, limit, self_map);
                        let want = brute_force(&v, dim, rows.min(nrows), limit, self_map);
                        assert_eq!(
                            rows_of(&g),
                            want,
                            "seed {seed} dim {dim} rows {rows} limit {limit} self {self_map}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_global_adjacency_is_the_local_one_of_every_row() {
        let v: Vec<i32> = entries(60, 11, 5).into_iter().map(|x| x.max(0)).collect();
        let map = GlobalMap {
            from: 0,
            to: 1,
            dim: 3,
            values: &v,
        };
        let g = adjacency(&map, 9).unwrap();
        let l = local_adjacency(&v, 3, 20, 9, false);
        assert_eq!(g.nvtxs(), l.nvtxs());
        for u in 0..9 {
            let n: Vec<u32> = g.neighbours(u).iter().map(|&x| x as u32).collect();
            assert_eq!(n, l.neighbours(u));
            assert_eq!(g.degree(u), l.degree(u));
        }
        assert_eq!(g.nentries(), l.nentries());
        let part: Vec<i32> = (0..9).map(|x| x % 2).collect();
        assert_eq!(g.edge_cut(&part), edge_cut(&g.xadj, &g.adjncy, &part));
        assert_eq!(g.edge_cut(&part), l.edge_cut(&part));
    }

    #[test]
    fn sorted_pairs_give_a_block_of_rows() {
        // vertices 4..7 of a larger graph
        let pairs = [(4u64 << 32) | 5, (4 << 32) | 9, (6 << 32) | 1];
        let g = Csr::from_sorted_pairs(4, 3, &pairs).unwrap();
        assert_eq!(g.xadj, [0, 2, 2, 3]);
        assert_eq!(g.neighbours(0), [5, 9]);
        assert_eq!(g.neighbours(2), [1]);
        assert!(Csr::from_sorted_pairs(0, 0, &[]).unwrap().adjncy.is_empty());
    }

    #[test]
    fn an_edge_count_past_the_offset_type_is_refused() {
        let n = u16::MAX as usize + 1;
        let e = Csr::<u32, u16>::from_parts(vec![0, n], vec![0; n]).unwrap_err();
        assert!(e.msg.contains("exceeds 16-bit indices"), "{}", e.msg);
        let ok = Csr::<u32, u16>::from_parts(vec![0, 3], vec![0; 3]).unwrap();
        assert_eq!(ok.xadj, [0u16, 3]);
    }
}
