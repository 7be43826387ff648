//! Whether a loop's writes through maps can meet. Colouring (or atomics)
//! is there to keep two elements from writing one row at once; a loop
//! whose written rows are never shared between elements (aero's
//! `dirichlet` writes `res` through `pbnodes`, and each boundary node is
//! in that map once) needs neither: each element can write its rows
//! plainly, in any order, and the answers are those of a sequential run.
//! Found from the maps' values, once per prepared loop: maps do not change
//! after declaration (OP2's plans, cached per loop, rely on that too).

use crate::arg::{ArgKind, ArgSpec};
use crate::domain::{DatId, Domain};

/// No element shares a row of a dat the loop writes through a map with
/// another element: for each dat written (OP_INC, OP_WRITE, OP_RW,
/// OP_WORK) through a map, every row any argument reaches on it (through
/// any map entry, or directly: the element's own row) is reached by one
/// element only. One element may reach a row twice (its own accesses
/// happen in order). Checked over every row the maps hold here (owned and
/// halo elements), so it holds for any part of the set a launch runs.
/// False when the loop writes nothing through a map, when a map entry
/// lies outside its target set, or when the maps disagree on the rows of
/// the loop's set.
pub fn writes_disjoint(args: &[ArgSpec], dom: &Domain) -> bool {
    let mut written: Vec<DatId> = Vec::new();
    for a in args {
        if let ArgKind::Dat {
            dat, map: Some(_), ..
        } = a.kind
        {
            if a.access.writes() && !written.contains(&dat) {
                written.push(dat);
            }
        }
    }
    !written.is_empty() && written.iter().all(|&d| rows_disjoint(args, dom, d))
}

/// How one argument reaches a dat: through `entries` of a map's rows
/// (`values`, `dim` entries a row), or directly (the element's own row).
struct Reach<'a> {
    map: Option<(&'a [i32], usize)>,
    entries: Vec<usize>,
}

/// [`writes_disjoint`] for dat `d`.
fn rows_disjoint(args: &[ArgSpec], dom: &Domain, d: DatId) -> bool {
    let mut reach: Vec<Reach<'_>> = Vec::new();
    let mut elements: Option<usize> = None;
    for a in args {
        let ArgKind::Dat { dat, map, idx } = a.kind else {
            continue;
        };
        if dat != d {
            continue;
        }
        let Some(m) = map else {
            reach.push(Reach {
                map: None,
                entries: Vec::new(),
            });
            continue;
        };
        let m = dom.map(m);
        if m.dim == 0 {
            return false;
        }
        let rows = m.values.len() / m.dim;
        if elements.is_some_and(|n| n != rows) {
            return false;
        }
        elements = Some(rows);
        let entries: Vec<usize> = match usize::try_from(idx) {
            Ok(j) if j < m.dim => vec![j],
            Ok(_) => return false,
            Err(_) => (0..m.dim).collect(),
        };
        reach.push(Reach {
            map: Some((&m.values, m.dim)),
            entries,
        });
    }
    let Some(n) = elements else {
        return false;
    };
    const NONE: u32 = u32::MAX;
    let rows = dom.set(dom.dat(d).set).total_size();
    if n >= NONE as usize || rows >= NONE as usize {
        return false;
    }
    // the element that reached each row first
    let mut owner = vec![NONE; rows];
    let mut claim = |t: usize, e: u32| match owner.get_mut(t) {
        Some(o) if *o == NONE || *o == e => {
            *o = e;
            true
        }
        _ => false,
    };
    (0..n).all(|e| {
        reach.iter().all(|r| match r.map {
            None => claim(e, e as u32),
            Some((values, dim)) => r
                .entries
                .iter()
                .all(|&j| usize::try_from(values[e * dim + j]).is_ok_and(|t| claim(t, e as u32))),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::Access;
    use crate::domain::{MapCheck, MapId};

    fn arg(dat: DatId, map: Option<MapId>, idx: i32, access: Access) -> ArgSpec {
        ArgSpec {
            kind: ArgKind::Dat { dat, map, idx },
            dim: 1,
            type_name: "double".into(),
            access,
            opt: true,
        }
    }

    /// 6 nodes; `bnodes` (3) -> nodes once each; `edges` (5) -> two nodes
    /// each, sharing nodes; `pairs` (3) -> two nodes each, no node in two
    /// pairs.
    fn mesh() -> (Domain, [MapId; 3], [DatId; 3]) {
        let mut dom = Domain::new();
        let nodes = dom.decl_set(6, "nodes").unwrap();
        let bnodes = dom.decl_set(3, "bnodes").unwrap();
        let edges = dom.decl_set(5, "edges").unwrap();
        let pairs = dom.decl_set(3, "pairs").unwrap();
        let map = |dom: &mut Domain, from, dim, v: &[i32], name| {
            dom.decl_map(from, nodes, dim, v, 0, name, MapCheck::Local)
                .unwrap()
        };
        let pb = map(&mut dom, bnodes, 1, &[5, 0, 3], "pbnodes");
        let pe = map(&mut dom, edges, 2, &[0, 1, 1, 2, 2, 3, 3, 4, 4, 5], "pedge");
        let pp = map(&mut dom, pairs, 2, &[0, 1, 2, 3, 4, 5], "ppair");
        let dat = |dom: &mut Domain, set, name| {
            dom.decl_dat("op_decl_dat", set, 1, "double", 8, None, name, false)
                .unwrap()
        };
        let res = dat(&mut dom, nodes, "res");
        let q = dat(&mut dom, nodes, "q");
        let w = dat(&mut dom, pairs, "w");
        (dom, [pb, pe, pp], [res, q, w])
    }

    #[test]
    fn an_injective_map_writes_disjoint_rows() {
        let (dom, [pb, _, pp], [res, q, w]) = mesh();
        for acc in [Access::Write, Access::Rw, Access::Inc] {
            assert!(
                writes_disjoint(&[arg(res, Some(pb), 0, acc)], &dom),
                "{acc:?}"
            );
        }
        // a pair's two nodes are its own; a vector argument the same
        assert!(writes_disjoint(
            &[
                arg(res, Some(pp), 0, Access::Inc),
                arg(res, Some(pp), 1, Access::Inc)
            ],
            &dom
        ));
        assert!(writes_disjoint(
            &[arg(res, Some(pp), -2, Access::Inc)],
            &dom
        ));
        // reading another dat through a shared map changes nothing; a
        // direct argument on the loop's set is the element's own row
        assert!(writes_disjoint(
            &[
                arg(q, Some(pp), 1, Access::Read),
                arg(res, Some(pp), 0, Access::Write),
                arg(w, None, -1, Access::Rw),
            ],
            &dom
        ));
    }

    #[test]
    fn shared_rows_or_no_writes_are_not_disjoint() {
        let (dom, [pb, pe, _], [res, q, _]) = mesh();
        // edges share nodes
        assert!(!writes_disjoint(
            &[
                arg(res, Some(pe), 0, Access::Inc),
                arg(res, Some(pe), 1, Access::Inc)
            ],
            &dom
        ));
        assert!(!writes_disjoint(
            &[arg(res, Some(pe), -2, Access::Write)],
            &dom
        ));
        // column 0 alone of pedge is injective (0, 1, 2, 3, 4)
        assert!(writes_disjoint(&[arg(res, Some(pe), 0, Access::Inc)], &dom));
        // the dat also read through another entry another element writes
        assert!(!writes_disjoint(
            &[
                arg(res, Some(pe), 0, Access::Inc),
                arg(res, Some(pe), 1, Access::Read)
            ],
            &dom
        ));
        // nothing written through a map: nothing to say
        assert!(!writes_disjoint(&[arg(q, Some(pe), 0, Access::Read)], &dom));
        assert!(!writes_disjoint(&[arg(q, Some(pb), 0, Access::Read)], &dom));
        // another loop writing q through pbnodes is disjoint again
        assert!(writes_disjoint(&[arg(q, Some(pb), 0, Access::Inc)], &dom));
    }
}
