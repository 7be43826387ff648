//! Inertial recursive bisection (`INERTIAL`): each group is split across the
//! principal axis of its points. [`dominant_axis`] is shared with the
//! distributed bisection (`dist::bisect`).

use super::bisection::bisection;

/// Inertial recursive bisection: like [`super::rcb`], but each group is split
/// across the principal axis of its points (the dominant eigenvector of their
/// covariance, by power iteration). OP2's `INERTIAL` uses `dim == 3`; any
/// `dim` works here.
pub fn inertial(coords: &[f64], dim: usize, nparts: usize) -> Vec<i32> {
    bisection(coords, dim, nparts, keys)
}

/// The projection of each point, relative to its group's mean, on the
/// group's principal axis.
fn keys(coords: &[f64], dim: usize, idx: &[u32]) -> Vec<(f64, u32)> {
    let point = |e: u32| &coords[e as usize * dim..(e as usize + 1) * dim];
    let (mean, q) = principal_axis(coords, dim, idx);
    idx.iter()
        .map(|&e| {
            let x = point(e);
            let d: f64 = (0..dim).map(|i| (x[i] - mean[i]) * q[i]).sum();
            (d, e)
        })
        .collect()
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
