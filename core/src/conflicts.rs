//! Whether a loop's writes through maps can meet. Colouring (or atomics)
//! is there to keep two elements from writing one row at once; a loop
//! whose written rows are never shared between elements (aero's
//! `dirichlet` writes `res` through `pbnodes`, and each boundary node is
//! in that map once) needs neither: each element can write its rows
//! plainly, in any order, and the answers are those of a sequential run.
//! Found from the maps' values, once per prepared loop: maps do not change
//! after declaration (OP2's plans, cached per loop, rely on that too).

use crate::arg::{Access, ArgKind, ArgSpec};
use crate::domain::{DatId, Domain, MapId};

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

/// How one argument (`arg`) reaches a dat: through `entries` of a map's
/// rows (`values`, `dim` entries a row), or directly (the element's own
/// row).
struct Reach<'a> {
    arg: usize,
    map: Option<(&'a [i32], usize)>,
    entries: Vec<usize>,
}

impl Reach<'_> {
    /// The rows element `e` reaches (None: an entry that is no row).
    fn rows(&self, e: usize) -> impl Iterator<Item = Option<usize>> + '_ {
        let direct = self.map.is_none().then_some(Some(e));
        let mapped = self.map.into_iter().flat_map(move |(values, dim)| {
            self.entries
                .iter()
                .map(move |&j| usize::try_from(values[e * dim + j]).ok())
        });
        direct.into_iter().chain(mapped)
    }
}

/// How the arguments that `pick` takes reach dat `d`, and how many
/// elements the maps among them have rows for (None: direct arguments
/// only). None when a map has dim 0, an `idx` lies outside its map, or the
/// maps disagree on the rows of the loop's set.
fn reaches<'a>(
    args: &[ArgSpec],
    dom: &'a Domain,
    d: DatId,
    pick: impl Fn(&ArgSpec) -> bool,
) -> Option<(Vec<Reach<'a>>, Option<usize>)> {
    let mut reach = Vec::new();
    let mut elements: Option<usize> = None;
    for (i, a) in args.iter().enumerate() {
        let ArgKind::Dat { dat, map, idx } = a.kind else {
            continue;
        };
        if dat != d || !pick(a) {
            continue;
        }
        let Some(m) = map else {
            reach.push(Reach {
                arg: i,
                map: None,
                entries: Vec::new(),
            });
            continue;
        };
        let m = dom.map(m);
        if m.dim == 0 {
            return None;
        }
        let rows = m.values.len() / m.dim;
        if elements.is_some_and(|n| n != rows) {
            return None;
        }
        elements = Some(rows);
        let entries: Vec<usize> = match usize::try_from(idx) {
            Ok(j) if j < m.dim => vec![j],
            Ok(_) => return None,
            Err(_) => (0..m.dim).collect(),
        };
        reach.push(Reach {
            arg: i,
            map: Some((&m.values, m.dim)),
            entries,
        });
    }
    Some((reach, elements))
}

/// [`writes_disjoint`] for dat `d`.
fn rows_disjoint(args: &[ArgSpec], dom: &Domain, d: DatId) -> bool {
    let Some((reach, Some(n))) = reaches(args, dom, d, |_| true) else {
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
        reach
            .iter()
            .all(|r| r.rows(e).all(|t| t.is_some_and(|t| claim(t, e as u32))))
    })
}

/// Two of one element's pointers that reach one row of a dat the kernel
/// writes without adding (OP_WRITE, OP_RW, OP_WORK, a direct OP_INC):
/// arguments `first` and `second` (equal for two entries of one vector
/// argument) reach row `row` of `dat` from element `element`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    pub dat: DatId,
    pub first: usize,
    pub second: usize,
    pub element: usize,
    pub row: usize,
}

/// The first element whose kernel call would get two pointers to one row
/// of a dat it writes without adding (OP_WRITE, OP_RW, OP_WORK, a direct
/// OP_INC): two arguments on the dat, or two entries of one vector
/// argument, whose map entries (or the element itself, for a direct
/// argument) agree, as a map with a repeated entry in a row gives. On the
/// host the kernel writes that row through both pointers in its own order;
/// code that hands the kernel a private copy per pointer would keep the
/// two apart and write back one of them, so a device shares one copy
/// between them (from [`aliased_each`]). Increments through maps are not
/// counted: their copies are added, whatever they alias.
/// Checked over every row the maps hold here; None when nothing aliases.
pub fn aliased_writes(args: &[ArgSpec], dom: &Domain) -> Option<Alias> {
    aliased_each(args, dom).into_iter().next()
}

/// [`aliased_writes`] for every dat: the first such element of each dat
/// that has one, in the order of the dats' first written arguments.
pub fn aliased_each(args: &[ArgSpec], dom: &Domain) -> Vec<Alias> {
    let mut dats: Vec<DatId> = Vec::new();
    for a in args {
        if let ArgKind::Dat { dat, .. } = a.kind {
            if plain_write(a) && !dats.contains(&dat) {
                dats.push(dat);
            }
        }
    }
    dats.into_iter()
        .filter_map(|d| aliased_rows(args, dom, d))
        .collect()
}

/// Switched on and written without adding, as a device copies it:
/// OP_WRITE, OP_RW, OP_WORK, and a direct OP_INC (copied in and out like
/// OP_RW: the element's own).
fn plain_write(a: &ArgSpec) -> bool {
    let direct = matches!(a.kind, ArgKind::Dat { map: None, .. });
    a.opt
        && (matches!(a.access, Access::Write | Access::Rw | Access::Work)
            || (direct && a.access == Access::Inc))
}

/// [`aliased_writes`] for dat `d`.
fn aliased_rows(args: &[ArgSpec], dom: &Domain, d: DatId) -> Option<Alias> {
    let (reach, elements) = reaches(args, dom, d, plain_write)?;
    if reach.iter().map(|r| r.entries.len().max(1)).sum::<usize>() < 2 {
        return None;
    }
    // direct arguments only: every element reaches its row twice
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for e in 0..elements.unwrap_or(1) {
        seen.clear();
        for r in &reach {
            for t in r.rows(e).flatten() {
                if let Some(&(first, _)) = seen.iter().find(|&&(_, row)| row == t) {
                    return Some(Alias {
                        dat: d,
                        first,
                        second: r.arg,
                        element: e,
                        row: t,
                    });
                }
                seen.push((r.arg, t));
            }
        }
    }
    None
}

/// How two arguments on one dat meet ([`mixed_modes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meeting {
    /// Both direct, in two access modes: the element's one row through two
    /// pointers.
    Direct,
    /// One direct, one through the map (from the loop's set to itself): an
    /// element's own row is another element's through the map.
    DirectAndMap(MapId),
    /// Both through maps, in two access modes.
    Maps,
}

/// Two arguments on one dat, in two kinds of access at least one of which
/// modifies it (`first` < `second`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mixed {
    pub dat: DatId,
    pub first: usize,
    pub second: usize,
    pub meeting: Meeting,
}

/// An argument's mode as the kernel sees it: OP_WORK on a dat is read and
/// written, as OP_RW.
fn mode(a: &ArgSpec) -> Access {
    match a.access {
        Access::Work => Access::Rw,
        x => x,
    }
}

impl Mixed {
    /// Whether a plan's colouring leaves the two unordered between
    /// elements, so that elements run side by side race on the dat's rows:
    /// a direct argument never colours, nor does an OP_READ through a map.
    /// (Two modifying modes through maps both colour: their elements run
    /// in the plan's colour order, the same on any number of threads.)
    pub fn races(&self, args: &[ArgSpec]) -> bool {
        match self.meeting {
            Meeting::Direct => false,
            Meeting::DirectAndMap(_) => true,
            Meeting::Maps => {
                mode(&args[self.first]) == Access::Read || mode(&args[self.second]) == Access::Read
            }
        }
    }

    /// The pair in words: "arguments 0 and 1 reach dat v directly (OP_RW)
    /// and through map c_c (OP_READ)".
    pub fn pair(&self, args: &[ArgSpec], dom: &Domain) -> String {
        let (i, j) = (self.first, self.second);
        let (x, y) = (args[i].access.name(), args[j].access.name());
        let name = &dom.dat(self.dat).name;
        match self.meeting {
            Meeting::Direct => {
                format!("arguments {i} and {j} pass dat {name} directly with {x} and {y}")
            }
            Meeting::DirectAndMap(m) => {
                let through = format!("through map {}", dom.map(m).name);
                let (hi, hj) = if matches!(args[i].kind, ArgKind::Dat { map: None, .. }) {
                    ("directly".to_string(), through)
                } else {
                    (through, "directly".to_string())
                };
                format!("arguments {i} and {j} reach dat {name} {hi} ({x}) and {hj} ({y})")
            }
            Meeting::Maps => {
                format!("arguments {i} and {j} reach dat {name} through maps with {x} and {y}")
            }
        }
    }
}

/// Every pair of switched-on arguments on one dat in two kinds of access
/// of which one modifies it: both direct in two modes, one direct and one
/// through a map (in any modes but two reads), both through maps in two
/// modes. (Two direct arguments in one modifying mode are
/// [`aliased_writes`].) In argument order.
pub fn mixed_modes(args: &[ArgSpec]) -> Vec<Mixed> {
    let dat_of = |a: &ArgSpec| match a.kind {
        ArgKind::Dat { dat, map, .. } if a.opt => Some((dat, map)),
        _ => None,
    };
    let mut out = Vec::new();
    for (j, b) in args.iter().enumerate() {
        let Some((d, mb)) = dat_of(b) else { continue };
        for (i, a) in args[..j].iter().enumerate() {
            if dat_of(a).map(|(e, _)| e) != Some(d) {
                continue;
            }
            let ma = dat_of(a).and_then(|(_, m)| m);
            let modifies = mode(a) != Access::Read || mode(b) != Access::Read;
            let two_modes = mode(a) != mode(b);
            let meeting = match (ma, mb) {
                (None, None) if two_modes && modifies => Meeting::Direct,
                (Some(m), None) | (None, Some(m)) if modifies => Meeting::DirectAndMap(m),
                (Some(_), Some(_)) if two_modes => Meeting::Maps,
                _ => continue,
            };
            out.push(Mixed {
                dat: d,
                first: i,
                second: j,
                meeting,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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

    /// Pairs on one dat in two kinds of access, one modifying: which meet
    /// how, which race where elements run side by side, and how they are
    /// said.
    #[test]
    fn mixed_modes_and_which_of_them_race() {
        let (dom, [_, pe, _], [res, q, w]) = mesh();
        let direct = |d, a| arg(d, None, -1, a);
        let end = |i, a| arg(res, Some(pe), i, a);
        // both direct, two modes: meets, no race (one element)
        let args = [direct(w, Access::Read), direct(w, Access::Rw)];
        let m = mixed_modes(&args);
        assert_eq!(
            m,
            [Mixed {
                dat: w,
                first: 0,
                second: 1,
                meeting: Meeting::Direct
            }]
        );
        assert!(!m[0].races(&args));
        assert_eq!(
            m[0].pair(&args, &dom),
            "arguments 0 and 1 pass dat w directly with OP_READ and OP_RW"
        );
        // through maps, OP_READ and OP_INC: races; OP_RW and OP_INC: both
        // colour, no race; one mode twice: nothing
        let args = [end(0, Access::Read), end(1, Access::Inc)];
        let m = mixed_modes(&args);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].meeting, Meeting::Maps);
        assert!(m[0].races(&args));
        assert_eq!(
            m[0].pair(&args, &dom),
            "arguments 0 and 1 reach dat res through maps with OP_READ and OP_INC"
        );
        let args = [end(0, Access::Rw), end(1, Access::Inc)];
        assert!(!mixed_modes(&args)[0].races(&args));
        assert!(mixed_modes(&[end(0, Access::Inc), end(1, Access::Inc)]).is_empty());
        assert!(mixed_modes(&[end(0, Access::Read), end(1, Access::Read)]).is_empty());
        // direct and through a map (mixed_modes reads the arguments only:
        // res directly beside res through pedge), one modifying: races
        let args = [direct(res, Access::Inc), end(1, Access::Read)];
        let m = mixed_modes(&args);
        assert_eq!(m[0].meeting, Meeting::DirectAndMap(pe));
        assert!(m[0].races(&args));
        assert_eq!(
            m[0].pair(&args, &dom),
            "arguments 0 and 1 reach dat res directly (OP_INC) and through map pedge (OP_READ)"
        );
        assert!(mixed_modes(&[direct(res, Access::Read), end(0, Access::Read)]).is_empty());
        // other dats and switched-off arguments are left out; OP_WORK is
        // read and written
        let mut off = end(1, Access::Inc);
        off.opt = false;
        assert!(mixed_modes(&[end(0, Access::Read), off, direct(q, Access::Rw)]).is_empty());
        assert!(mixed_modes(&[direct(w, Access::Work), direct(w, Access::Rw)]).is_empty());
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

    /// A row reached twice by one element's written pointers: two
    /// arguments through a map whose row repeats an entry, or a vector
    /// argument's two entries; increments and reads never count, nor rows
    /// no element reaches twice.
    #[test]
    fn pointers_that_meet_on_a_written_row_are_found() {
        let mut dom = Domain::new();
        let nodes = dom.decl_set(4, "nodes").unwrap();
        let edges = dom.decl_set(3, "edges").unwrap();
        // edge 1's two nodes are one (a collapsed edge)
        let e2n = dom
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 2, 2, 3, 0],
                0,
                "e2n",
                MapCheck::Local,
            )
            .unwrap();
        let q = dom
            .decl_dat("op_decl_dat", nodes, 1, "double", 8, None, "q", false)
            .unwrap();
        let w = dom
            .decl_dat("op_decl_dat", edges, 1, "double", 8, None, "w", false)
            .unwrap();
        for acc in [Access::Rw, Access::Write, Access::Work] {
            let two = [arg(q, Some(e2n), 0, acc), arg(q, Some(e2n), 1, acc)];
            assert_eq!(
                aliased_writes(&two, &dom),
                Some(Alias {
                    dat: q,
                    first: 0,
                    second: 1,
                    element: 1,
                    row: 2
                }),
                "{acc:?}"
            );
            let vector = [arg(w, None, -1, Access::Read), arg(q, Some(e2n), -2, acc)];
            let a = aliased_writes(&vector, &dom).unwrap();
            assert_eq!((a.first, a.second, a.element), (1, 1, 1), "{acc:?}");
        }
        for acc in [Access::Inc, Access::Read] {
            let two = [arg(q, Some(e2n), 0, acc), arg(q, Some(e2n), 1, acc)];
            assert_eq!(aliased_writes(&two, &dom), None, "{acc:?}");
        }
        // one written pointer on each dat
        let one = [
            arg(q, Some(e2n), 0, Access::Rw),
            arg(w, None, -1, Access::Rw),
        ];
        assert_eq!(aliased_writes(&one, &dom), None);
        // an argument switched off points nowhere
        let mut off = [
            arg(q, Some(e2n), 0, Access::Rw),
            arg(q, Some(e2n), 1, Access::Rw),
        ];
        off[1].opt = false;
        assert_eq!(aliased_writes(&off, &dom), None);
        // the same direct argument twice: every element's row
        let direct = [
            arg(w, None, -1, Access::Rw),
            arg(w, None, -1, Access::Write),
        ];
        assert_eq!(aliased_writes(&direct, &dom).map(|a| a.row), Some(0));
    }
}
