//! Partitioners for distributed (MPI) execution, in pure Rust.
//!
//! What lives here:
//! * the initial block distribution OP2 applications declare ([`BlockDist`],
//!   [`block`], [`block_size`]);
//! * geometric partitioners of a primary set: recursive coordinate bisection
//!   ([`rcb`]), inertial bisection ([`inertial`]) and a balanced random
//!   partition ([`random`], element by element: [`random_part`]);
//! * the derivation of every other set's partition from the primary set's,
//!   through the maps ([`derive()`]);
//! * the graphs a k-way partitioner (METIS, in the MPI crate) is fed
//!   ([`adjacency`], [`dual_graph`]) and two quality metrics ([`edge_cut`],
//!   [`imbalance`]).
//!
//! # Model: replicated metadata
//! The first MPI version replicates *metadata*: every rank knows, for every
//! set, its global size and (after partitioning) the part of each global
//! element, and every map in global indices (the MPI layer allgathers them).
//! Dats are not replicated. Every function here is a deterministic pure
//! function of that global information, so each rank computes the same
//! partition on its own and no further communication is needed to agree on it.
//!
//! # Bisection
//! [`rcb`] and [`inertial`] split a group of `k` parts into `k/2` (lower) and
//! `k - k/2` (upper) parts and give the lower side `floor(n·(k/2)/k)` of the
//! group's `n` elements: the elements of smallest key, ordered by
//! `(key, element index)` (ties broken by index, so the split is a function of
//! the coordinates alone). The key is the coordinate along the longest extent
//! of the group's bounding box (RCB; ties go to the lower axis) or the
//! projection on the principal axis of the group's covariance (inertial).
//! With unit weights the proportional split makes all part sizes differ by at
//! most one, for any number of parts.
//!
//! # Derivation (OP2's `partition_all`)
//! Starting from the partitioned primary set, OP2 repeatedly picks the cheapest
//! unused map between a partitioned and an unpartitioned set (lowest map index
//! on ties):
//! * cost 0: a map of dimension 1 *to* a partitioned set,
//! * cost 1: a map of larger dimension *to* a partitioned set — each
//!   from-element takes the most frequent part among its targets
//!   ([`DeriveRule::FromTargets`]; ties go to the part met first in the row,
//!   as OP2's `find_mode`);
//! * cost 2: a map *from* a partitioned set — each to-element takes the most
//!   frequent part among the from-elements referencing it
//!   ([`DeriveRule::FromSources`]; every map entry counts once, ties go to the
//!   smallest part, as OP2's counting path). Such a map is rejected if it does
//!   not reach every to-element (OP2 then tries another map).
//!
//! OP2 aborts when a non-empty set cannot be reached. Here such a set keeps
//! the block partition [`block`] and is reported as [`DeriveRule::Unreached`]
//! (the MPI layer decides whether to warn, abort, or substitute the declared
//! distribution with [`BlockDist::parts`]). OP2's `force_part` maps are not
//! modelled.
//!
//! # Graphs
//! OP2's ParMETIS/PT-Scotch/KaHIP `KWAY` with a primary map partitions the
//! map's *to*-set: two to-elements are adjacent when one from-element
//! references both (airfoil: cells adjacent through an edge of `pecell`). That
//! is [`adjacency`]. [`dual_graph`] is the alternative on the *from*-set
//! (elements adjacent when they share at least `ncommon` targets, METIS's
//! mesh-to-dual). Rows are sorted, have no self loops and are symmetric.
//! Where OP2 aborts on a vertex with no neighbour, these give an empty row.

use crate::error::{Op2Error, Result};
use crate::par;
use std::ops::Range;

/// A set as the partitioners see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalSet {
    /// Global number of elements.
    pub size: usize,
}

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
// Block distribution
// ---------------------------------------------------------------------------

/// Elements of rank `r` in the block distribution of `n` over `nparts` ranks:
/// `n / nparts`, plus one for the first `n % nparts` ranks (the
/// `compute_local_size` of OP2's MPI applications).
pub fn block_size(n: usize, nparts: usize, r: usize) -> usize {
    assert!(nparts > 0, "block_size: nparts must be positive");
    n / nparts + usize::from(r < n % nparts)
}

/// The block partition: element `g` goes to the rank whose block holds it.
pub fn block(n: usize, nparts: usize) -> Vec<i32> {
    BlockDist::standard(n, nparts).parts()
}

/// A contiguous distribution of a set: rank `r` holds global elements
/// `offsets[r]..offsets[r + 1]`. This is how sets are declared under MPI
/// (abi §4.2); the sizes may be any, not only [`block_size`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDist {
    offsets: Vec<usize>,
}

impl BlockDist {
    /// OP2's convention ([`block_size`]).
    pub fn standard(n: usize, nranks: usize) -> BlockDist {
        let sizes: Vec<usize> = (0..nranks).map(|r| block_size(n, nranks, r)).collect();
        BlockDist::from_sizes(&sizes)
    }

    /// From the local sizes every rank declared (in rank order).
    pub fn from_sizes(sizes: &[usize]) -> BlockDist {
        assert!(!sizes.is_empty(), "BlockDist: no ranks");
        let mut offsets = Vec::with_capacity(sizes.len() + 1);
        let mut acc = 0usize;
        offsets.push(0);
        for &s in sizes {
            acc += s;
            offsets.push(acc);
        }
        BlockDist { offsets }
    }

    pub fn nranks(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Global number of elements.
    pub fn global_size(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    /// `nranks + 1` offsets, starting at 0.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The global elements held by rank `r`.
    pub fn range(&self, r: usize) -> Range<usize> {
        self.offsets[r]..self.offsets[r + 1]
    }

    /// The rank holding global element `g` (`g < global_size()`).
    pub fn owner(&self, g: usize) -> usize {
        debug_assert!(g < self.global_size());
        self.offsets.partition_point(|&o| o <= g) - 1
    }

    /// The distribution as a partition vector.
    pub fn parts(&self) -> Vec<i32> {
        let mut p = Vec::with_capacity(self.global_size());
        for r in 0..self.nranks() {
            p.extend(std::iter::repeat_n(r as i32, self.range(r).len()));
        }
        p
    }
}

// ---------------------------------------------------------------------------
// Random
// ---------------------------------------------------------------------------

/// SplitMix64: a small, well-mixed deterministic generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`), without modulo bias (rejection).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return x % n;
            }
        }
    }
}

/// A balanced random partition of `n` elements: element `g` goes to part
/// `perm(g) % nparts`, where `perm` is a pseudo-random permutation of
/// `[0, n)` drawn from `seed` ([`random_part`]). Part sizes are those of
/// [`block_size`] (they differ by at most one).
pub fn random(n: usize, nparts: usize, seed: u64) -> Vec<i32> {
    assert!(nparts > 0, "random: nparts must be positive");
    (0..n).map(|g| random_part(n, nparts, seed, g)).collect()
}

/// The part of element `g` in [`random`]`(n, nparts, seed)`, computed alone
/// (O(1) expected time and memory): a distributed partitioner evaluates it for
/// the elements it holds without the others.
pub fn random_part(n: usize, nparts: usize, seed: u64, g: usize) -> i32 {
    debug_assert!(g < n && nparts > 0);
    (permute(n as u64, seed, g as u64) % nparts as u64) as i32
}

/// A bijection of `[0, n)`: a four-round Feistel network on the smallest
/// even number of bits covering `n`, walked until it lands inside `[0, n)`
/// (cycle walking keeps it a bijection; fewer than four steps on average).
fn permute(n: u64, seed: u64, x: u64) -> u64 {
    let bits = (64 - n.saturating_sub(1).leading_zeros())
        .max(2)
        .div_ceil(2);
    let mask = (1u64 << bits) - 1;
    let round = |r: u64, v: u64| SplitMix64::new(seed ^ (r << 56) ^ v).next_u64() & mask;
    let mut x = x;
    loop {
        let (mut l, mut r) = (x >> bits, x & mask);
        for k in 0..4 {
            let t = l ^ round(k, r);
            l = r;
            r = t;
        }
        x = (l << bits) | r;
        if x < n {
            return x;
        }
    }
}

// ---------------------------------------------------------------------------
// Recursive bisection (RCB, inertial)
// ---------------------------------------------------------------------------

/// Groups at least this large bisect their two halves in parallel (inside a
/// rayon pool).
const PAR_BISECT: usize = 16 * 1024;

#[derive(Clone, Copy)]
enum Direction {
    LongestAxis,
    Principal,
}

/// Recursive coordinate bisection of `coords.len() / dim` points
/// (`coords[e * dim + d]`) into `nparts` parts; see the module docs.
///
/// Panics if `dim == 0`, `nparts == 0` or `coords.len()` is not a multiple of
/// `dim`.
pub fn rcb(coords: &[f64], dim: usize, nparts: usize) -> Vec<i32> {
    bisection(coords, dim, nparts, Direction::LongestAxis)
}

/// Inertial recursive bisection: like [`rcb`], but each group is split across
/// the principal axis of its points (the dominant eigenvector of their
/// covariance, by power iteration). OP2's `INERTIAL` uses `dim == 3`; any
/// `dim` works here.
pub fn inertial(coords: &[f64], dim: usize, nparts: usize) -> Vec<i32> {
    bisection(coords, dim, nparts, Direction::Principal)
}

fn bisection(coords: &[f64], dim: usize, nparts: usize, dir: Direction) -> Vec<i32> {
    assert!(dim > 0, "bisection: dim must be positive");
    assert!(nparts > 0, "bisection: nparts must be positive");
    assert!(
        coords.len().is_multiple_of(dim),
        "bisection: {} coordinates is not a multiple of dim {dim}",
        coords.len()
    );
    let n = coords.len() / dim;
    assert!(n <= u32::MAX as usize, "bisection: too many points");
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let mut out = vec![0i32; n];
    bisect(coords, dim, dir, &mut idx, &mut out, 0, nparts);
    let mut part = vec![0i32; n];
    for (&e, &p) in idx.iter().zip(&out) {
        part[e as usize] = p;
    }
    part
}

/// Split `idx` (elements, ascending) into parts `first..first + k`, writing the
/// part of `idx[j]` to `out[j]`. On return `idx` is permuted so that each part
/// is contiguous.
fn bisect(
    coords: &[f64],
    dim: usize,
    dir: Direction,
    idx: &mut [u32],
    out: &mut [i32],
    first: usize,
    k: usize,
) {
    let n = idx.len();
    if k <= 1 || n == 0 {
        out.fill(first as i32);
        return;
    }
    let k1 = k / 2;
    let n1 = ((n as u128 * k1 as u128) / k as u128) as usize;
    split(coords, dim, dir, idx, n1);
    let (lo_idx, hi_idx) = idx.split_at_mut(n1);
    let (lo_out, hi_out) = out.split_at_mut(n1);
    if n >= PAR_BISECT {
        par::join(
            || bisect(coords, dim, dir, lo_idx, lo_out, first, k1),
            || bisect(coords, dim, dir, hi_idx, hi_out, first + k1, k - k1),
        );
    } else {
        bisect(coords, dim, dir, lo_idx, lo_out, first, k1);
        bisect(coords, dim, dir, hi_idx, hi_out, first + k1, k - k1);
    }
}

/// Reorder `idx` so that its first `n1` entries are the `n1` smallest by
/// `(key, element)`; both halves come back in ascending element order (so the
/// floating-point sums of the next level do not depend on the selection
/// algorithm's internal order).
fn split(coords: &[f64], dim: usize, dir: Direction, idx: &mut [u32], n1: usize) {
    let n = idx.len();
    if n1 == 0 || n1 >= n {
        return;
    }
    let point = |e: u32| &coords[e as usize * dim..(e as usize + 1) * dim];
    let mut keyed: Vec<(f64, u32)> = match dir {
        Direction::LongestAxis => {
            let axis = longest_axis(coords, dim, idx);
            idx.iter().map(|&e| (point(e)[axis], e)).collect()
        }
        Direction::Principal => {
            let (mean, q) = principal_axis(coords, dim, idx);
            idx.iter()
                .map(|&e| {
                    let x = point(e);
                    let d: f64 = (0..dim).map(|i| (x[i] - mean[i]) * q[i]).sum();
                    (d, e)
                })
                .collect()
        }
    };
    keyed.select_nth_unstable_by(n1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (slot, &(_, e)) in idx.iter_mut().zip(&keyed) {
        *slot = e;
    }
    idx[..n1].sort_unstable();
    idx[n1..].sort_unstable();
}

/// The axis of the largest bounding-box extent of the points `idx` (lowest
/// axis on ties; NaN coordinates are ignored).
fn longest_axis(coords: &[f64], dim: usize, idx: &[u32]) -> usize {
    let mut lo = vec![f64::INFINITY; dim];
    let mut hi = vec![f64::NEG_INFINITY; dim];
    for &e in idx {
        let x = &coords[e as usize * dim..(e as usize + 1) * dim];
        for d in 0..dim {
            lo[d] = lo[d].min(x[d]);
            hi[d] = hi[d].max(x[d]);
        }
    }
    let mut best = 0;
    let mut best_ext = f64::NEG_INFINITY;
    for d in 0..dim {
        let ext = hi[d] - lo[d];
        if ext > best_ext {
            best = d;
            best_ext = ext;
        }
    }
    best
}

/// Mean of the points `idx` and the unit dominant eigenvector of their
/// covariance. Power iteration is started from every coordinate axis (one of
/// them is not orthogonal to the dominant eigenvector) and the result with the
/// largest Rayleigh quotient is kept (first on ties). A zero covariance gives
/// the first axis.
fn principal_axis(coords: &[f64], dim: usize, idx: &[u32]) -> (Vec<f64>, Vec<f64>) {
    let n = idx.len().max(1) as f64;
    let mut mean = vec![0.0; dim];
    for &e in idx {
        let x = &coords[e as usize * dim..(e as usize + 1) * dim];
        for d in 0..dim {
            mean[d] += x[d];
        }
    }
    for m in &mut mean {
        *m /= n;
    }
    let mut cov = vec![0.0; dim * dim];
    let mut dx = vec![0.0; dim];
    for &e in idx {
        let x = &coords[e as usize * dim..(e as usize + 1) * dim];
        for d in 0..dim {
            dx[d] = x[d] - mean[d];
        }
        for i in 0..dim {
            for j in i..dim {
                cov[i * dim + j] += dx[i] * dx[j];
            }
        }
    }
    for i in 0..dim {
        for j in 0..i {
            cov[i * dim + j] = cov[j * dim + i];
        }
    }
    (mean, dominant_axis(&cov, dim))
}

/// The unit dominant eigenvector of a symmetric `dim x dim` matrix (row
/// major), by power iteration from every coordinate axis (largest Rayleigh
/// quotient kept, first on ties; the first axis for a zero matrix).
pub(crate) fn dominant_axis(cov: &[f64], dim: usize) -> Vec<f64> {
    let mut best = unit(dim, 0);
    let mut best_rq = f64::NEG_INFINITY;
    for start in 0..dim {
        let q = power_iteration(cov, dim, unit(dim, start));
        let rq = rayleigh(cov, dim, &q);
        if rq > best_rq {
            best_rq = rq;
            best = q;
        }
    }
    best
}

fn unit(dim: usize, axis: usize) -> Vec<f64> {
    let mut v = vec![0.0; dim];
    v[axis] = 1.0;
    v
}

fn mat_vec(a: &[f64], dim: usize, x: &[f64]) -> Vec<f64> {
    (0..dim)
        .map(|i| (0..dim).map(|j| a[i * dim + j] * x[j]).sum())
        .collect()
}

fn rayleigh(a: &[f64], dim: usize, q: &[f64]) -> f64 {
    let p = mat_vec(a, dim, q);
    let num: f64 = (0..dim).map(|i| q[i] * p[i]).sum();
    let den: f64 = q.iter().map(|v| v * v).sum();
    if den > 0.0 && num.is_finite() {
        num / den
    } else {
        f64::NEG_INFINITY
    }
}

fn power_iteration(a: &[f64], dim: usize, mut q: Vec<f64>) -> Vec<f64> {
    const MAX_ITER: usize = 1000;
    const TOL: f64 = 1e-13;
    for _ in 0..MAX_ITER {
        let mut p = mat_vec(a, dim, &q);
        let norm = p.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !norm.is_finite() || norm <= 0.0 {
            // q is in the null space (or the matrix is not finite): keep it.
            return q;
        }
        for v in &mut p {
            *v /= norm;
        }
        let diff = p
            .iter()
            .zip(&q)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        q = p;
        if diff < TOL {
            break;
        }
    }
    q
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

/// The inverse of a map: for each to-element, the from-elements referencing
/// it, ascending, each once (a from-element naming a target twice counts once).
fn inverse(map: &GlobalMap<'_>, nto: usize) -> (Vec<usize>, Vec<u32>) {
    let rows = map.rows();
    let mut count = vec![0usize; nto + 1];
    let distinct = |e: usize, j: usize| {
        let row = map.row(e);
        !row[..j].contains(&row[j])
    };
    for e in 0..rows {
        for j in 0..map.dim {
            if distinct(e, j) {
                count[map.row(e)[j] as usize + 1] += 1;
            }
        }
    }
    for t in 0..nto {
        count[t + 1] += count[t];
    }
    let mut fill = count.clone();
    let mut from = vec![0u32; count[nto]];
    for e in 0..rows {
        for j in 0..map.dim {
            if distinct(e, j) {
                let t = map.row(e)[j] as usize;
                from[fill[t]] = e as u32;
                fill[t] += 1;
            }
        }
    }
    (count, from)
}

// ---------------------------------------------------------------------------
// Derivation of the other sets' partitions
// ---------------------------------------------------------------------------

/// How [`derive()`] partitioned a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeriveRule {
    /// The primary set (partition given).
    Primary,
    /// Through map `map` *to* an already partitioned set: each element takes
    /// the most frequent part among its targets (first in the row on ties).
    FromTargets { map: usize },
    /// Through map `map` *from* an already partitioned set: each element takes
    /// the most frequent part among the map entries referencing it (smallest
    /// part on ties).
    FromSources { map: usize },
    /// Not reachable through any usable map: the block partition [`block`].
    Unreached,
}

/// The partitions of all sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// Per set, the part of each global element.
    pub parts: Vec<Vec<i32>>,
    /// Per set, how its partition was obtained.
    pub rules: Vec<DeriveRule>,
    /// Sets in the order they were partitioned (primary first, unreached
    /// sets last in index order).
    pub order: Vec<usize>,
}

/// Partition every set from the primary set's partition, the way OP2's
/// `partition_all` does (see the module docs for the rules and tie-breaks).
pub fn derive(
    sets: &[GlobalSet],
    maps: &[GlobalMap<'_>],
    primary: usize,
    primary_part: &[i32],
    nparts: usize,
) -> Result<Derived> {
    let call = "op_partition";
    let sizes: Vec<usize> = sets.iter().map(|s| s.size).collect();
    for (i, m) in maps.iter().enumerate() {
        m.validate(&sizes, i, call)?;
    }
    if primary >= sets.len() {
        return Err(Op2Error::new(
            call,
            "",
            format!("primary set {primary} out of range"),
        ));
    }
    check_parts(primary_part, sizes[primary], nparts, call)?;

    let nsets = sets.len();
    let mut parts: Vec<Option<Vec<i32>>> = vec![None; nsets];
    let mut rules = vec![DeriveRule::Unreached; nsets];
    parts[primary] = Some(primary_part.to_vec());
    rules[primary] = DeriveRule::Primary;
    let mut order = vec![primary];
    let mut retired = vec![false; maps.len()];

    loop {
        let done: Vec<bool> = parts.iter().map(Option::is_some).collect();
        let shapes = maps.iter().map(|m| (m.from, m.to, m.dim));
        let Some((cost, i)) = next_derivation(shapes, &done, &retired) else {
            break;
        };
        retired[i] = true;
        let m = &maps[i];
        if cost == 2 {
            let src = parts[m.from].as_deref().unwrap();
            if let Some(p) = from_sources(m, src, sizes[m.to]) {
                parts[m.to] = Some(p);
                rules[m.to] = DeriveRule::FromSources { map: i };
                order.push(m.to);
            }
        } else {
            let tgt = parts[m.to].as_deref().unwrap();
            parts[m.from] = Some(from_targets(m, tgt));
            rules[m.from] = DeriveRule::FromTargets { map: i };
            order.push(m.from);
        }
    }

    let parts = parts
        .into_iter()
        .enumerate()
        .map(|(s, p)| {
            p.unwrap_or_else(|| {
                order.push(s);
                block(sizes[s], nparts)
            })
        })
        .collect();
    Ok(Derived {
        parts,
        rules,
        order,
    })
}

/// The next map [`derive()`] uses: the cheapest map not yet `retired`
/// between a partitioned (`done`) and an unpartitioned set, lowest index on
/// ties, with its cost (0: dim-1 map to a done set, 1: larger map to a done
/// set, 2: map from a done set). `maps` gives each map's (from, to, dim).
pub fn next_derivation(
    maps: impl Iterator<Item = (usize, usize, usize)>,
    done: &[bool],
    retired: &[bool],
) -> Option<(u8, usize)> {
    let mut best: Option<(u8, usize)> = None;
    for (i, (from, to, dim)) in maps.enumerate() {
        if retired[i] {
            continue;
        }
        let cost = match (done[from], done[to]) {
            (true, false) => 2,
            (false, true) => u8::from(dim != 1),
            _ => continue,
        };
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, i));
        }
    }
    best
}

/// The most frequent of `part(0..n)` (a row's target parts, `n > 0`), first
/// in the row on ties (OP2's `find_mode`).
pub fn row_mode(n: usize, part: impl Fn(usize) -> i32) -> i32 {
    let mut best = part(0);
    let mut best_n = 0;
    for j in 0..n {
        let p = part(j);
        let count = (0..n).filter(|&k| part(k) == p).count();
        if count > best_n {
            best = p;
            best_n = count;
        }
    }
    best
}

/// Votes `(target << 32) | part`, sorted: for each target that has votes,
/// `put(target, most frequent part)`, the smallest part on ties.
pub fn vote_modes(votes: &[u64], mut put: impl FnMut(usize, i32)) {
    let mut i = 0;
    while i < votes.len() {
        let t = (votes[i] >> 32) as usize;
        let (mut best, mut best_n) = (0u32, 0usize);
        while i < votes.len() && (votes[i] >> 32) as usize == t {
            let v = votes[i];
            let mut n = 0;
            while i < votes.len() && votes[i] == v {
                n += 1;
                i += 1;
            }
            if n > best_n {
                best = v as u32;
                best_n = n;
            }
        }
        put(t, best as i32);
    }
}

fn check_parts(part: &[i32], n: usize, nparts: usize, call: &str) -> Result<()> {
    if nparts == 0 {
        return Err(Op2Error::new(call, "", "no parts"));
    }
    if part.len() != n {
        return Err(Op2Error::new(
            call,
            "",
            format!("partition of {} elements for a set of {n}", part.len()),
        ));
    }
    if let Some(e) = part.iter().position(|&p| p < 0 || p as usize >= nparts) {
        return Err(Op2Error::new(
            call,
            "",
            format!("element {e} in part {} outside [0, {nparts})", part[e]),
        ));
    }
    Ok(())
}

/// Mode of the target parts per row, first in the row on ties.
fn from_targets(m: &GlobalMap<'_>, tgt: &[i32]) -> Vec<i32> {
    par::map_range(m.rows(), 1024, |e| {
        let row = m.row(e);
        row_mode(m.dim, |j| tgt[row[j] as usize])
    })
}

/// Mode of the referencing entries' parts per to-element, smallest part on
/// ties; `None` if some to-element is not referenced.
fn from_sources(m: &GlobalMap<'_>, src: &[i32], nto: usize) -> Option<Vec<i32>> {
    let dim = m.dim;
    // (target, part) pairs, one per map entry, sorted.
    let mut pairs: Vec<u64> = par::map_range(m.values.len(), 1, |k| {
        ((m.values[k] as u64) << 32) | src[k / dim] as u64
    });
    par::sort_unstable(&mut pairs);
    let mut out = vec![-1i32; nto];
    vote_modes(&pairs, |t, p| out[t] = p);
    if out.iter().any(|&p| p < 0) {
        None
    } else {
        Some(out)
    }
}

// ---------------------------------------------------------------------------
// Graphs for k-way partitioners, and quality metrics
// ---------------------------------------------------------------------------

/// A graph in compressed sparse row form, as METIS takes it: the neighbours of
/// vertex `v` are `adjncy[xadj[v]..xadj[v + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    pub xadj: Vec<i32>,
    pub adjncy: Vec<i32>,
}

impl Csr {
    pub fn nvtxs(&self) -> usize {
        self.xadj.len().saturating_sub(1)
    }

    pub fn neighbours(&self, v: usize) -> &[i32] {
        &self.adjncy[self.xadj[v] as usize..self.xadj[v + 1] as usize]
    }

    fn from_parts(offsets: Vec<usize>, adjncy: Vec<i32>) -> Result<Csr> {
        if adjncy.len() > i32::MAX as usize {
            return Err(Op2Error::new(
                "op_partition",
                "",
                format!("graph of {} edges exceeds 32-bit indices", adjncy.len()),
            ));
        }
        Ok(Csr {
            xadj: offsets.into_iter().map(|o| o as i32).collect(),
            adjncy,
        })
    }
}

/// OP2's k-way graph for a primary map: vertices are the map's to-set
/// (`nto` elements); `u` and `v` are adjacent when some from-element
/// references both. Rows sorted, no self loops, symmetric.
pub fn adjacency(map: &GlobalMap<'_>, nto: usize) -> Result<Csr> {
    check_graph_map(map, nto)?;
    let (inv_off, inv) = inverse(map, nto);
    let (offsets, adjncy) = par_csr(nto, |v, buf: &mut Vec<i32>| {
        for &f in &inv[inv_off[v]..inv_off[v + 1]] {
            buf.extend(map.row(f as usize).iter().filter(|&&t| t as usize != v));
        }
        buf.sort_unstable();
        buf.dedup();
    });
    Csr::from_parts(offsets, adjncy)
}

/// The dual graph on the map's from-set: two from-elements are adjacent when
/// they share at least `ncommon` distinct targets (METIS's mesh-to-dual;
/// `ncommon == 1`: share any target). Rows sorted, no self loops, symmetric.
pub fn dual_graph(map: &GlobalMap<'_>, nto: usize, ncommon: usize) -> Result<Csr> {
    check_graph_map(map, nto)?;
    let ncommon = ncommon.max(1);
    let (inv_off, inv) = inverse(map, nto);
    let rows = map.rows();
    let (offsets, adjncy) = par_csr(rows, |e, buf: &mut Vec<i32>| {
        let row = map.row(e);
        for (j, &t) in row.iter().enumerate() {
            if row[..j].contains(&t) {
                continue;
            }
            let t = t as usize;
            buf.extend(
                inv[inv_off[t]..inv_off[t + 1]]
                    .iter()
                    .filter(|&&f| f as usize != e)
                    .map(|&f| f as i32),
            );
        }
        buf.sort_unstable();
        // keep the neighbours met at least `ncommon` times, once each
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
    });
    Csr::from_parts(offsets, adjncy)
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

/// Elements per part.
pub fn part_sizes(part: &[i32], nparts: usize) -> Vec<usize> {
    let mut s = vec![0usize; nparts];
    for &p in part {
        s[p as usize] += 1;
    }
    s
}

/// Load imbalance: the largest part over the average part (1.0 is perfect;
/// 1.0 for an empty set).
pub fn imbalance(part: &[i32], nparts: usize) -> f64 {
    if part.is_empty() || nparts == 0 {
        return 1.0;
    }
    let max = part_sizes(part, nparts).into_iter().max().unwrap_or(0);
    max as f64 * nparts as f64 / part.len() as f64
}
