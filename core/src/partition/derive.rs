//! The derivation of every other set's partition from the primary set's,
//! through the maps (OP2's `partition_all`; the rules are in the `partition`
//! module docs). The pieces the distributed driver (`dist::scalable`) shares
//! are public: [`next_derivation`], [`row_mode`], [`vote_modes`].

use super::block::block;
use super::GlobalSet;
use crate::error::{Op2Error, Result};
use crate::graph::GlobalMap;
use crate::par;

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
