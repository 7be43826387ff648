//! Recursive bisection ([`crate::partition::rcb`], [`crate::partition::inertial`])
//! of points spread over the ranks, without gathering them: every rank keeps
//! its declared points, and each level of the recursion splits all of its
//! groups at once with a few collectives of O(groups x ranks) values.
//!
//! RCB gives exactly the replicated partition: bounding boxes are min/max
//! (exact in any order) and the split is the exact `n1`-th smallest point by
//! `(coordinate, global id)`, found by a distributed selection (weighted
//! median of the ranks' medians as pivot, then the last few candidates
//! gathered). Inertial bisection sums the moments per rank and folds them in
//! rank order, so its axis can differ from the replicated one in the last
//! bits (the partition is as valid, but not always bitwise the same).

use super::collective::{allgatherv, Collectives};
use super::directory;
use crate::error::Result;
use crate::partition::dominant_axis;

/// One vector per group (a mean or an axis).
type Point = Vec<f64>;

/// Candidates below this many (over all ranks) are gathered and sorted.
const GATHER: u64 = 256;

/// A point's sort key: an order-preserving integer of its key (`f64`
/// `total_cmp` order), then its global id.
type Key = (u64, u32);

fn ord(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The part of each local point (`x`: `dim` coordinates per point, global ids
/// `start..`), for `c.size()` parts. Collective.
pub fn partition(
    c: &dyn Collectives,
    x: &[f64],
    dim: usize,
    start: usize,
    inertial: bool,
) -> Result<Vec<i32>> {
    let n = x.len() / dim.max(1);
    let mut group = vec![0u32; n];
    // (first part, number of parts) of each group
    let mut groups: Vec<(usize, usize)> = vec![(0, c.size())];
    while groups.iter().any(|&(_, k)| k > 1) {
        let keys = level_keys(c, x, dim, &group, groups.len(), inertial)?;
        let mut members: Vec<Vec<Key>> = vec![Vec::new(); groups.len()];
        for (e, &g) in group.iter().enumerate() {
            members[g as usize].push((keys[e], (start + e) as u32));
        }
        let counts: Vec<u64> = members.iter().map(|m| m.len() as u64).collect();
        let totals = directory::sparse_sum(c, &counts)?;
        let want: Vec<u64> = groups
            .iter()
            .zip(&totals)
            .map(|(&(_, k), &t)| {
                if k > 1 {
                    ((t as u128 * (k / 2) as u128) / k as u128) as u64
                } else {
                    0
                }
            })
            .collect();
        let thresholds = select(c, members, &want)?;
        // new groups: a split group becomes (lower, upper)
        let mut next = Vec::new();
        let mut low_of = Vec::with_capacity(groups.len());
        for &(first, k) in &groups {
            low_of.push(next.len() as u32);
            if k > 1 {
                next.push((first, k / 2));
                next.push((first + k / 2, k - k / 2));
            } else {
                next.push((first, k));
            }
        }
        for (e, g) in group.iter_mut().enumerate() {
            let old = *g as usize;
            let split = groups[old].1 > 1;
            let low = thresholds[old].is_some_and(|t| (keys[e], (start + e) as u32) <= t);
            *g = low_of[old] + u32::from(split && !low);
        }
        groups = next;
    }
    Ok(group.iter().map(|&g| groups[g as usize].0 as i32).collect())
}

/// Every local point's key for this level: the coordinate along its
/// group's longest bounding-box axis (RCB) or its projection on the
/// group's principal axis (inertial).
fn level_keys(
    c: &dyn Collectives,
    x: &[f64],
    dim: usize,
    group: &[u32],
    ngroups: usize,
    inertial: bool,
) -> Result<Vec<u64>> {
    let pt = |e: usize| &x[e * dim..(e + 1) * dim];
    if !inertial {
        let mut bounds = vec![f64::INFINITY; ngroups * dim * 2];
        for (e, &g) in group.iter().enumerate() {
            let b = &mut bounds[g as usize * dim * 2..(g as usize + 1) * dim * 2];
            for d in 0..dim {
                b[d] = b[d].min(pt(e)[d]);
                b[dim + d] = b[dim + d].min(-pt(e)[d]);
            }
        }
        // only the groups with local points travel: (group, bounds)
        let w = 2 * dim;
        let mut mine = Vec::new();
        for (g, gb) in bounds.chunks_exact(w).enumerate() {
            if gb.iter().any(|v| v.is_finite()) {
                mine.push(g as f64);
                mine.extend_from_slice(gb);
            }
        }
        let all = allgatherv(c, &mine)?.0;
        let mut b = vec![f64::INFINITY; bounds.len()];
        for rec in all.chunks_exact(w + 1) {
            let g = rec[0] as usize;
            for (o, v) in b[g * w..(g + 1) * w].iter_mut().zip(&rec[1..]) {
                *o = o.min(*v);
            }
        }
        let axis: Vec<usize> = (0..ngroups)
            .map(|g| {
                let gb = &b[g * dim * 2..(g + 1) * dim * 2];
                let (mut best, mut best_ext) = (0, f64::NEG_INFINITY);
                for d in 0..dim {
                    let ext = -gb[dim + d] - gb[d];
                    if ext > best_ext {
                        best = d;
                        best_ext = ext;
                    }
                }
                best
            })
            .collect();
        return Ok(group
            .iter()
            .enumerate()
            .map(|(e, &g)| ord(pt(e)[axis[g as usize]]))
            .collect());
    }
    let (mean, axis) = principal_axes(c, x, dim, group, ngroups)?;
    Ok(group
        .iter()
        .enumerate()
        .map(|(e, &g)| {
            let (m, q) = (&mean[g as usize], &axis[g as usize]);
            ord((0..dim).map(|i| (pt(e)[i] - m[i]) * q[i]).sum())
        })
        .collect())
}

/// Per group, the mean of its points and the dominant axis of their
/// covariance; per-rank sums folded in rank order.
fn principal_axes(
    c: &dyn Collectives,
    x: &[f64],
    dim: usize,
    group: &[u32],
    ngroups: usize,
) -> Result<(Vec<Point>, Vec<Point>)> {
    let fold = |local: &[f64]| -> Result<Vec<f64>> {
        let all = allgatherv(c, local)?.0;
        let mut s = vec![0.0; local.len()];
        for chunk in all.chunks_exact(local.len().max(1)) {
            for (o, v) in s.iter_mut().zip(chunk) {
                *o += v;
            }
        }
        Ok(s)
    };
    let mut sums = vec![0.0; ngroups * (dim + 1)];
    for (e, &g) in group.iter().enumerate() {
        let s = &mut sums[g as usize * (dim + 1)..(g as usize + 1) * (dim + 1)];
        s[dim] += 1.0;
        for d in 0..dim {
            s[d] += x[e * dim + d];
        }
    }
    let sums = fold(&sums)?;
    let mean: Vec<Vec<f64>> = sums
        .chunks_exact(dim + 1)
        .map(|s| s[..dim].iter().map(|v| v / s[dim].max(1.0)).collect())
        .collect();
    let mut cov = vec![0.0; ngroups * dim * dim];
    for (e, &g) in group.iter().enumerate() {
        let m = &mean[g as usize];
        let cv = &mut cov[g as usize * dim * dim..(g as usize + 1) * dim * dim];
        for i in 0..dim {
            for j in i..dim {
                cv[i * dim + j] += (x[e * dim + i] - m[i]) * (x[e * dim + j] - m[j]);
            }
        }
    }
    let mut cov = fold(&cov)?;
    let axes = cov
        .chunks_exact_mut(dim * dim)
        .map(|cv| {
            for i in 0..dim {
                for j in 0..i {
                    cv[i * dim + j] = cv[j * dim + i];
                }
            }
            dominant_axis(cv, dim)
        })
        .collect();
    Ok((mean, axes))
}

/// Per group, the `want[g]`-th smallest key over all ranks (the largest key
/// of the lower side), `None` when the lower side is empty. Collective.
fn select(c: &dyn Collectives, mut cand: Vec<Vec<Key>>, want: &[u64]) -> Result<Vec<Option<Key>>> {
    let ng = cand.len();
    let mut below = vec![0u64; ng];
    let mut out: Vec<Option<Key>> = vec![None; ng];
    let mut done: Vec<bool> = want.iter().map(|&w| w == 0).collect();
    loop {
        let counts: Vec<u64> = (0..ng)
            .map(|g| if done[g] { 0 } else { cand[g].len() as u64 })
            .collect();
        let totals = directory::sparse_sum(c, &counts)?;
        if (0..ng).all(|g| done[g]) {
            return Ok(out);
        }
        // small groups: gather their candidates and finish
        let small: Vec<usize> = (0..ng)
            .filter(|&g| !done[g] && totals[g] <= GATHER)
            .collect();
        let mut local = Vec::new();
        for &g in &small {
            local.extend(
                cand[g]
                    .iter()
                    .flat_map(|&(k, id)| [g as u64, k, u64::from(id)]),
            );
        }
        let all = allgatherv(c, &local)?.0;
        for &g in &small {
            let mut keys: Vec<Key> = all
                .chunks_exact(3)
                .filter(|t| t[0] == g as u64)
                .map(|t| (t[1], t[2] as u32))
                .collect();
            keys.sort_unstable();
            out[g] = Some(keys[(want[g] - below[g] - 1) as usize]);
            done[g] = true;
        }
        pivot_round(c, &mut cand, want, &mut below, &mut done, &mut out)?;
    }
}

/// One round of the selection for the groups not yet done: the weighted
/// median of the ranks' medians as pivot, then keep the side holding the
/// wanted key.
fn pivot_round(
    c: &dyn Collectives,
    cand: &mut [Vec<Key>],
    want: &[u64],
    below: &mut [u64],
    done: &mut [bool],
    out: &mut [Option<Key>],
) -> Result<()> {
    let ng = cand.len();
    // (group, candidates, median key, median id) of the groups with local candidates
    let mut prop = Vec::new();
    for g in 0..ng {
        if done[g] || cand[g].is_empty() {
            continue;
        }
        let mid = cand[g].len() / 2;
        let (_, &mut m, _) = cand[g].select_nth_unstable(mid);
        prop.extend([g as u64, cand[g].len() as u64, m.0, u64::from(m.1)]);
    }
    let all = allgatherv(c, &prop)?.0;
    let mut props: Vec<Vec<(Key, u64)>> = vec![Vec::new(); ng];
    for t in all.chunks_exact(4) {
        props[t[0] as usize].push(((t[2], t[3] as u32), t[1]));
    }
    let mut pivot: Vec<Option<Key>> = vec![None; ng];
    for (g, p) in pivot.iter_mut().enumerate() {
        if done[g] {
            continue;
        }
        let mut ps = std::mem::take(&mut props[g]);
        ps.sort_unstable();
        let half = ps.iter().map(|p| p.1).sum::<u64>().div_ceil(2);
        let mut acc = 0;
        for (k, w) in ps {
            acc += w;
            if acc >= half {
                *p = Some(k);
                break;
            }
        }
    }
    let le: Vec<u64> = (0..ng)
        .map(|g| match pivot[g] {
            Some(p) => cand[g].iter().filter(|&&k| k <= p).count() as u64,
            None => 0,
        })
        .collect();
    let le = directory::sparse_sum(c, &le)?;
    for g in 0..ng {
        let Some(p) = pivot[g] else { continue };
        if below[g] + le[g] == want[g] {
            out[g] = Some(p);
            done[g] = true;
        } else if below[g] + le[g] < want[g] {
            below[g] += le[g];
            cand[g].retain(|&k| k > p);
        } else {
            cand[g].retain(|&k| k <= p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::sim::run_ranks;
    use crate::partition::{inertial, part_sizes, rcb, BlockDist};

    fn points(n: usize) -> Vec<f64> {
        // a spiral with repeated coordinates (ties broken by global id)
        (0..n)
            .flat_map(|i| {
                let t = i as f64 * 0.37;
                [
                    (t.cos() * t).round() / 4.0,
                    (t.sin() * t * 0.5).round() / 4.0,
                ]
            })
            .collect()
    }

    #[test]
    fn distributed_rcb_is_the_replicated_rcb() {
        for (n, nranks) in [(5000, 4), (3001, 3), (7, 5), (0, 2), (4100, 7)] {
            let x = points(n);
            let want = rcb(&x, 2, nranks);
            let b = BlockDist::standard(n, nranks);
            let got: Vec<i32> = run_ranks(nranks, |c| {
                let r = b.range(c.rank());
                partition(&c, &x[r.start * 2..r.end * 2], 2, r.start, false).unwrap()
            })
            .concat();
            assert_eq!(got, want, "{n} points on {nranks} ranks");
        }
    }

    #[test]
    fn distributed_inertial_is_balanced_and_agrees_in_practice() {
        let (n, nranks) = (6000, 4);
        let x = points(n);
        let b = BlockDist::standard(n, nranks);
        let got: Vec<i32> = run_ranks(nranks, |c| {
            let r = b.range(c.rank());
            partition(&c, &x[r.start * 2..r.end * 2], 2, r.start, true).unwrap()
        })
        .concat();
        let sizes = part_sizes(&got, nranks);
        assert!(sizes.iter().all(|&s| s == n / nranks), "{sizes:?}");
        let same = got
            .iter()
            .zip(inertial(&x, 2, nranks))
            .filter(|(a, b)| **a == *b)
            .count();
        assert!(
            same * 100 >= n * 99,
            "{same} of {n} as the replicated inertial"
        );
    }
}
