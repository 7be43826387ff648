//! Recursive coordinate bisection (`GEOM`, OP2's ParMETIS `GEOM`): each
//! group is split across the longest extent of its bounding box.

use super::bisection::bisection;

/// Recursive coordinate bisection of `coords.len() / dim` points
/// (`coords[e * dim + d]`) into `nparts` parts; see the `partition` module
/// docs.
///
/// Panics if `dim == 0`, `nparts == 0` or `coords.len()` is not a multiple of
/// `dim`.
pub fn rcb(coords: &[f64], dim: usize, nparts: usize) -> Vec<i32> {
    bisection(coords, dim, nparts, keys)
}

/// The coordinate of each point along its group's longest axis.
fn keys(coords: &[f64], dim: usize, idx: &[u32]) -> Vec<(f64, u32)> {
    let point = |e: u32| &coords[e as usize * dim..(e as usize + 1) * dim];
    let axis = longest_axis(coords, dim, idx);
    idx.iter().map(|&e| (point(e)[axis], e)).collect()
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
