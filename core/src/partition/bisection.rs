//! The recursive bisection engine behind [`super::rcb`] and
//! [`super::inertial`] (the rule is in the `partition` module docs): a group
//! of `k` parts is split into `k/2` (lower) and `k - k/2` (upper) parts, the
//! lower side taking the `floor(n·(k/2)/k)` elements of smallest
//! `(key, element index)`. What the key is (a coordinate, a projection) is
//! the partitioner's [`KeyFn`].

use crate::par;

/// Groups at least this large bisect their two halves in parallel (inside a
/// rayon pool).
const PAR_BISECT: usize = 16 * 1024;

/// The points of a group (`idx`, ascending element indices into
/// `coords[e * dim..(e + 1) * dim]`), each with the key the group is split by:
/// `(key, element)` in `idx` order.
pub(super) type KeyFn = fn(coords: &[f64], dim: usize, idx: &[u32]) -> Vec<(f64, u32)>;

/// Recursive bisection of `coords.len() / dim` points into `nparts` parts by
/// `key`: the part of each point.
///
/// Panics if `dim == 0`, `nparts == 0` or `coords.len()` is not a multiple of
/// `dim`.
pub(super) fn bisection(coords: &[f64], dim: usize, nparts: usize, key: KeyFn) -> Vec<i32> {
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
    bisect(coords, dim, key, &mut idx, &mut out, 0, nparts);
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
    key: KeyFn,
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
    split(coords, dim, key, idx, n1);
    let (lo_idx, hi_idx) = idx.split_at_mut(n1);
    let (lo_out, hi_out) = out.split_at_mut(n1);
    if n >= PAR_BISECT {
        par::join(
            || bisect(coords, dim, key, lo_idx, lo_out, first, k1),
            || bisect(coords, dim, key, hi_idx, hi_out, first + k1, k - k1),
        );
    } else {
        bisect(coords, dim, key, lo_idx, lo_out, first, k1);
        bisect(coords, dim, key, hi_idx, hi_out, first + k1, k - k1);
    }
}

/// Reorder `idx` so that its first `n1` entries are the `n1` smallest by
/// `(key, element)`; both halves come back in ascending element order (so the
/// floating-point sums of the next level do not depend on the selection
/// algorithm's internal order).
fn split(coords: &[f64], dim: usize, key: KeyFn, idx: &mut [u32], n1: usize) {
    let n = idx.len();
    if n1 == 0 || n1 >= n {
        return;
    }
    let mut keyed = key(coords, dim, idx);
    keyed.select_nth_unstable_by(n1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (slot, &(_, e)) in idx.iter_mut().zip(&keyed) {
        *slot = e;
    }
    idx[..n1].sort_unstable();
    idx[n1..].sort_unstable();
}
