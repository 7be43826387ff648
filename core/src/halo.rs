//! Halos for distributed (MPI) execution: OP2's `op_halo_create`, as a pure
//! function of replicated metadata.
//!
//! # Model
//! Metadata is replicated (see [`crate::partition`]): every rank knows, for
//! every set, the owner (part) of each global element and every map in global
//! indices. From that alone each rank computes its local numbering, its local
//! maps and its import/export lists; no rank needs to ask another, and the
//! lists of two ranks agree by construction because both evaluate the same
//! predicate on the same global data. Dats are not replicated: the MPI layer
//! moves their rows with [`migration`] and the halo lists.
//!
//! # Semantics (OP2's)
//! For an element `e` of set `S`, let `halo_ranks(e)` be the owners of all its
//! targets, through every map *from* `S`, other than `e`'s own owner. The
//! ranks that *execute* `e` are its owner and `halo_ranks(e)`. On rank `r`:
//! * **owned**: `owner(e) == r`;
//! * **exec halo** of `S`: not owned, `r ∈ halo_ranks(e)` — elements that
//!   reference something owned by `r`, executed redundantly so that indirect
//!   increments into owned data are complete locally (OP2 step 1: an owned
//!   element is exported to every other rank owning one of its targets);
//! * **non-exec halo** of `T`: not owned, not in the exec halo of `T`, and
//!   referenced, through some map to `T`, by an element executed on `r`
//!   (owned or exec halo) — read only (OP2 step 4);
//! * **core** of `S`: owned with `halo_ranks(e)` empty, i.e. every target
//!   through every map from `S` is owned. OP2 defines core as "owned and in no
//!   exec export list" (step 10); an owned element is exported exactly to the
//!   other owners of its targets, so the two definitions coincide. Core
//!   elements touch no halo data and may be exported as non-exec halo (OP2
//!   allows that too); a set with no map from it is all core.
//!
//! Every target of every executed element is local: owned, exec or non-exec.
//! Non-exec elements have no map rows (maps are defined for from-rows
//! `[0, size + exec_size)`), so halos are one level deep.
//!
//! # Local numbering (abi §4.3)
//! `[0, core_size)` core, `[core_size, size)` owned boundary,
//! `[size, size + exec_size)` exec halo, then `nonexec_size` non-exec halo.
//! Owned elements are in global-id order within core and within boundary.
//! Halo elements are ordered by **(owner rank, global id)**: the same order
//! as OP2 (which imports neighbour by neighbour, each in the owner's local
//! order, itself by original global id), and it makes each neighbour's import
//! a contiguous range, so the MPI layer can receive straight into the dat.
//!
//! # Exchange lists
//! Per set, four [`HaloList`]s with neighbours in ascending rank order:
//! `import_exec`/`import_nonexec` hold halo positions, `export_exec`/
//! `export_nonexec` hold owned positions. Rank `a`'s export list to `b` and
//! rank `b`'s import list from `a` name the same global elements in the same
//! order (global id ascending), so packing `export` and unpacking into
//! `import` is a plain send/receive. A rank never lists itself.
//!
//! # Cost
//! [`HaloPlan::new`] computes `halo_ranks` for every element of every set once
//! (`O(map entries)`); [`HaloPlan::local`] is `O(global sizes + map entries)`
//! per rank with dense global→local tables (no per-element scans over ranks),
//! fine for millions of elements. Both run in parallel when called on a thread
//! of a rayon pool, sequentially otherwise (never starting threads).

use crate::error::{Op2Error, Result};
use crate::graph::{par_csr, GlobalMap};
use crate::par;
use crate::partition::BlockDist;
use std::collections::HashMap;

/// Not local on this rank.
const ABSENT: u32 = u32::MAX;
/// Collected as a non-exec candidate, local index not assigned yet.
const PENDING: u32 = u32::MAX - 1;

/// Exchange lists of one set with its neighbours, in CSR form (OP2's
/// `halo_list_core`): the elements exchanged with `ranks[i]` are
/// `list[offsets[i]..offsets[i + 1]]`, as local indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaloList {
    /// Neighbour ranks, ascending, each with a non-empty list.
    pub ranks: Vec<usize>,
    /// `ranks.len() + 1` offsets into `list`, starting at 0.
    pub offsets: Vec<usize>,
    /// Local indices.
    pub list: Vec<usize>,
}

impl Default for HaloList {
    fn default() -> Self {
        HaloList {
            ranks: Vec::new(),
            offsets: vec![0],
            list: Vec::new(),
        }
    }
}

impl HaloList {
    /// From `(rank, local index)` pairs grouped by ascending rank.
    pub(crate) fn from_sorted(pairs: impl IntoIterator<Item = (usize, usize)>) -> HaloList {
        let mut h = HaloList::default();
        for (r, i) in pairs {
            if h.ranks.last() != Some(&r) {
                debug_assert!(h.ranks.last().is_none_or(|&l| l < r));
                if !h.ranks.is_empty() {
                    h.offsets.push(h.list.len());
                }
                h.ranks.push(r);
            }
            h.list.push(i);
        }
        if !h.ranks.is_empty() {
            h.offsets.push(h.list.len());
        }
        h
    }

    /// Total number of entries (over all neighbours).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn num_neighbours(&self) -> usize {
        self.ranks.len()
    }

    /// `(rank, local indices)` per neighbour, ascending rank.
    pub fn neighbours(&self) -> impl Iterator<Item = (usize, &[usize])> + '_ {
        self.ranks
            .iter()
            .enumerate()
            .map(move |(i, &r)| (r, &self.list[self.offsets[i]..self.offsets[i + 1]]))
    }

    /// The entries exchanged with `rank` (empty if it is not a neighbour).
    pub fn with(&self, rank: usize) -> &[usize] {
        match self.ranks.binary_search(&rank) {
            Ok(i) => &self.list[self.offsets[i]..self.offsets[i + 1]],
            Err(_) => &[],
        }
    }

    /// Entries per rank, `nranks` long (for `MPI_Alltoallv`-style calls).
    pub fn counts(&self, nranks: usize) -> Vec<usize> {
        let mut c = vec![0; nranks];
        for (r, l) in self.neighbours() {
            c[r] = l.len();
        }
        c
    }
}

/// One set on one rank after partitioning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSet {
    /// Global id of every local element, in local order (length
    /// `size + exec_size + nonexec_size`).
    pub global_ids: Vec<usize>,
    pub core_size: usize,
    /// Owned elements (core + boundary).
    pub size: usize,
    pub exec_size: usize,
    pub nonexec_size: usize,
    /// Exec halo positions (in `[size, size + exec_size)`) per owner.
    pub import_exec: HaloList,
    /// Owned boundary positions per rank that executes them.
    pub export_exec: HaloList,
    /// Non-exec halo positions (after the exec halo) per owner.
    pub import_nonexec: HaloList,
    /// Owned positions per rank that reads them as non-exec halo.
    pub export_nonexec: HaloList,
}

impl LocalSet {
    /// Elements stored per dat (owned + both halos).
    pub fn total_size(&self) -> usize {
        self.size + self.exec_size + self.nonexec_size
    }

    /// Global ids of the owned elements, in local order.
    pub fn owned(&self) -> &[usize] {
        &self.global_ids[..self.size]
    }

    /// Global id → local index for every local element.
    pub fn global_to_local(&self) -> HashMap<usize, usize> {
        self.global_ids
            .iter()
            .enumerate()
            .map(|(l, &g)| (g, l))
            .collect()
    }
}

/// One map on one rank: rows for the local from-elements
/// `[0, size + exec_size)`, values are local indices of the to-set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalMap {
    pub from: usize,
    pub to: usize,
    pub dim: usize,
    pub values: Vec<i32>,
}

/// Everything rank `rank` needs after partitioning, in the caller's set and
/// map order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalMesh {
    pub rank: usize,
    pub nranks: usize,
    pub sets: Vec<LocalSet>,
    pub maps: Vec<LocalMap>,
}

/// Per element, a sorted list of ranks (CSR).
#[derive(Debug, Clone)]
struct RankLists {
    offsets: Vec<usize>,
    ranks: Vec<u32>,
}

impl RankLists {
    #[inline]
    fn get(&self, e: usize) -> &[u32] {
        &self.ranks[self.offsets[e]..self.offsets[e + 1]]
    }
}

/// The global, rank-independent part of halo construction: validated inputs
/// and `halo_ranks` of every element. Build once, then ask for any rank's
/// [`LocalMesh`].
#[derive(Debug, Clone)]
pub struct HaloPlan<'a> {
    nranks: usize,
    owners: Vec<&'a [i32]>,
    maps: Vec<GlobalMap<'a>>,
    /// Per set, the maps whose to-set it is.
    maps_to: Vec<Vec<usize>>,
    halo_ranks: Vec<RankLists>,
}

impl<'a> HaloPlan<'a> {
    /// `owners[s][g]` is the rank owning global element `g` of set `s`;
    /// `maps` index sets by their position in `owners`.
    pub fn new<P: AsRef<[i32]>>(
        owners: &'a [P],
        maps: &[GlobalMap<'a>],
        nranks: usize,
    ) -> Result<HaloPlan<'a>> {
        let call = "op_halo_create";
        if nranks == 0 || nranks >= PENDING as usize {
            return Err(Op2Error::new(call, "", format!("{nranks} ranks")));
        }
        let owners: Vec<&'a [i32]> = owners.iter().map(|o| o.as_ref()).collect();
        let sizes: Vec<usize> = owners.iter().map(|o| o.len()).collect();
        for (s, own) in owners.iter().enumerate() {
            if own.len() >= PENDING as usize {
                return Err(Op2Error::new(call, format!("set {s}"), "set too large"));
            }
            if let Some(e) = own.iter().position(|&p| p < 0 || p as usize >= nranks) {
                return Err(Op2Error::new(
                    call,
                    format!("set {s}"),
                    format!("element {e} owned by rank {} of {nranks}", own[e]),
                ));
            }
        }
        for (i, m) in maps.iter().enumerate() {
            m.validate(&sizes, i, call)?;
        }
        let nsets = owners.len();
        let mut maps_from = vec![Vec::new(); nsets];
        let mut maps_to = vec![Vec::new(); nsets];
        for (i, m) in maps.iter().enumerate() {
            maps_from[m.from].push(i);
            maps_to[m.to].push(i);
        }
        let halo_ranks = (0..nsets)
            .map(|s| {
                let own = owners[s];
                let from = &maps_from[s];
                let (offsets, ranks) = par_csr(own.len(), |e, buf: &mut Vec<u32>| {
                    let o = own[e];
                    for &m in from {
                        let map = &maps[m];
                        let town = owners[map.to];
                        for &t in map.row(e) {
                            let p = town[t as usize];
                            if p != o {
                                buf.push(p as u32);
                            }
                        }
                    }
                    buf.sort_unstable();
                    buf.dedup();
                });
                RankLists { offsets, ranks }
            })
            .collect();
        Ok(HaloPlan {
            nranks,
            owners,
            maps: maps.to_vec(),
            maps_to,
            halo_ranks,
        })
    }

    pub fn nranks(&self) -> usize {
        self.nranks
    }

    /// The ranks other than its owner that hold element `e` of set `set` in
    /// their exec halo (ascending).
    pub fn halo_ranks(&self, set: usize, e: usize) -> &[u32] {
        self.halo_ranks[set].get(e)
    }

    /// Does `rank` execute element `e` of `set` (own it or hold it in its exec
    /// halo)?
    pub fn executes(&self, set: usize, e: usize, rank: usize) -> bool {
        self.owners[set][e] as usize == rank
            || self
                .halo_ranks(set, e)
                .binary_search(&(rank as u32))
                .is_ok()
    }

    /// Local sets, maps and exchange lists of `rank`.
    pub fn local(&self, rank: usize) -> LocalMesh {
        assert!(rank < self.nranks, "rank {rank} of {}", self.nranks);
        // Per set, global id -> local index (ABSENT, PENDING while collected).
        let mut g2l: Vec<Vec<u32>> = self.owners.iter().map(|o| vec![ABSENT; o.len()]).collect();
        let mut sets: Vec<LocalSet> = g2l
            .iter_mut()
            .enumerate()
            .map(|(s, tab)| self.owned_and_exec_halo(s, rank, tab))
            .collect();
        for (t, tab) in g2l.iter_mut().enumerate() {
            self.add_nonexec_halo(t, &mut sets, tab);
        }
        for (t, tab) in g2l.iter().enumerate() {
            sets[t].export_nonexec = self.nonexec_exports(t, rank, tab);
        }
        let maps = self
            .maps
            .iter()
            .map(|map| local_map(map, &sets[map.from], &g2l[map.to]))
            .collect();
        LocalMesh {
            rank,
            nranks: self.nranks,
            sets,
            maps,
        }
    }

    /// Set `s` on rank `r` with its owned elements (core, then boundary) and
    /// exec halo, their exec exchange lists, and their entries in `tab`.
    fn owned_and_exec_halo(&self, s: usize, r: usize, tab: &mut [u32]) -> LocalSet {
        let (hr, own) = (&self.halo_ranks[s], self.owners[s]);
        let mut core = Vec::new();
        let mut bnd = Vec::new();
        let mut exec: Vec<(usize, usize)> = Vec::new();
        for (g, &o) in own.iter().enumerate() {
            let o = o as usize;
            let h = hr.get(g);
            if o == r {
                if h.is_empty() {
                    core.push(g);
                } else {
                    bnd.push(g);
                }
            } else if h.binary_search(&(r as u32)).is_ok() {
                exec.push((o, g));
            }
        }
        // stable: by owner, then global id
        exec.sort_by_key(|&(o, _)| o);
        let core_size = core.len();
        let size = core_size + bnd.len();
        let mut export = Vec::new();
        for (i, &g) in bnd.iter().enumerate() {
            export.extend(hr.get(g).iter().map(|&p| (p as usize, core_size + i)));
        }
        export.sort_by_key(|&(p, _)| p);
        let import =
            HaloList::from_sorted(exec.iter().enumerate().map(|(i, &(o, _))| (o, size + i)));
        let mut global_ids = core;
        global_ids.extend_from_slice(&bnd);
        global_ids.extend(exec.iter().map(|&(_, g)| g));
        for (l, &g) in global_ids.iter().enumerate() {
            tab[g] = l as u32;
        }
        LocalSet {
            global_ids,
            core_size,
            size,
            exec_size: exec.len(),
            nonexec_size: 0,
            import_exec: import,
            export_exec: HaloList::from_sorted(export),
            import_nonexec: HaloList::default(),
            export_nonexec: HaloList::default(),
        }
    }

    /// Append to set `t` its non-exec halo: targets of executed elements
    /// (owned or exec halo of the from-sets) not yet local, by (owner, global
    /// id), with their import list.
    fn add_nonexec_halo(&self, t: usize, sets: &mut [LocalSet], tab: &mut [u32]) {
        let town = self.owners[t];
        let mut cand: Vec<(usize, usize)> = Vec::new();
        for &m in &self.maps_to[t] {
            let map = &self.maps[m];
            let fs = &sets[map.from];
            for &gs in &fs.global_ids[..fs.size + fs.exec_size] {
                for &gt in map.row(gs) {
                    let gt = gt as usize;
                    if tab[gt] == ABSENT {
                        tab[gt] = PENDING;
                        cand.push((town[gt] as usize, gt));
                    }
                }
            }
        }
        cand.sort_unstable();
        let ts = &mut sets[t];
        let base = ts.size + ts.exec_size;
        for (i, &(_, g)) in cand.iter().enumerate() {
            tab[g] = (base + i) as u32;
            ts.global_ids.push(g);
        }
        ts.nonexec_size = cand.len();
        ts.import_nonexec =
            HaloList::from_sorted(cand.iter().enumerate().map(|(i, &(o, _))| (o, base + i)));
    }

    /// Non-exec exports of set `t` on rank `r`: owned elements read as
    /// non-exec halo by rank `p`, i.e. `p` executes some element referencing
    /// one and it is not in `p`'s exec halo. `tab`: `t`'s global → local.
    fn nonexec_exports(&self, t: usize, r: usize, tab: &[u32]) -> HaloList {
        let town = self.owners[t];
        let thr = &self.halo_ranks[t];
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for &m in &self.maps_to[t] {
            let map = &self.maps[m];
            let sown = self.owners[map.from];
            let shr = &self.halo_ranks[map.from];
            let found = par::collect_range(map.rows(), 4096, |gs, acc: &mut Vec<(u32, u32)>| {
                for &gt in map.row(gs) {
                    if town[gt as usize] as usize != r {
                        continue;
                    }
                    let th = thr.get(gt as usize);
                    let so = sown[gs] as u32;
                    for p in std::iter::once(so).chain(shr.get(gs).iter().copied()) {
                        if p as usize != r && th.binary_search(&p).is_err() {
                            acc.push((p, gt as u32));
                        }
                    }
                }
            });
            pairs.extend(found);
        }
        par::sort_unstable(&mut pairs);
        pairs.dedup();
        HaloList::from_sorted(
            pairs
                .into_iter()
                .map(|(p, g)| (p as usize, tab[g as usize] as usize)),
        )
    }
}

/// `map` in local indices: rows for the executed elements of the from-set
/// `fs`, targets through the to-set's global → local table `tl`.
fn local_map(map: &GlobalMap<'_>, fs: &LocalSet, tl: &[u32]) -> LocalMap {
    let rows = fs.size + fs.exec_size;
    let dim = map.dim;
    let mut values = vec![0i32; rows * dim];
    par::for_each_chunk_mut(&mut values, dim, |i, out| {
        for (o, &gt) in out.iter_mut().zip(map.row(fs.global_ids[i])) {
            let l = tl[gt as usize];
            debug_assert!(l < PENDING, "target of an executed element not local");
            *o = l as i32;
        }
    });
    LocalMap {
        from: map.from,
        to: map.to,
        dim,
        values,
    }
}

/// [`HaloPlan::new`] then [`HaloPlan::local`], for one rank.
pub fn build_local<P: AsRef<[i32]>>(
    owners: &[P],
    maps: &[GlobalMap<'_>],
    rank: usize,
    nranks: usize,
) -> Result<LocalMesh> {
    if rank >= nranks {
        return Err(Op2Error::new(
            "op_halo_create",
            "",
            format!("rank {rank} of {nranks}"),
        ));
    }
    Ok(HaloPlan::new(owners, maps, nranks)?.local(rank))
}

/// Moving the rows of one set's dats from the declared block distribution to
/// the partition (and back).
///
/// `send`: per destination rank, indices into this rank's declared block
/// (`initial.range(rank)`, 0-based), ascending. `recv`: per source rank, the
/// local positions (in `[0, size)` of the partitioned [`LocalSet`]) where the
/// received rows go, in arrival order. Rank `a`'s send list to `b` and `b`'s
/// receive list from `a` cover the same global elements in the same
/// (global id) order. This rank itself appears in both lists when it keeps
/// elements (a local copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    pub send: HaloList,
    pub recv: HaloList,
}

impl Migration {
    /// The reverse movement: owned rows back to their declared block in the
    /// original order (what `op_fetch_data` returns under MPI). `send` then
    /// holds local positions, `recv` block positions.
    pub fn inverse(&self) -> Migration {
        Migration {
            send: self.recv.clone(),
            recv: self.send.clone(),
        }
    }
}

/// The [`Migration`] of one rank for one set: `initial` is the declared
/// distribution, `mine` the new owner of each element of this rank's
/// declared block (`initial.range(rank)`), `local` this rank's set after
/// partitioning (its owned elements come from their declaring ranks).
pub fn migration(initial: &BlockDist, mine: &[i32], local: &LocalSet) -> Migration {
    let mut send: Vec<(usize, usize)> = mine
        .iter()
        .enumerate()
        .map(|(i, &p)| (p as usize, i))
        .collect();
    send.sort_by_key(|&(p, _)| p);
    let mut recv: Vec<(usize, usize, usize)> = local
        .owned()
        .iter()
        .enumerate()
        .map(|(l, &g)| (initial.owner(g), g, l))
        .collect();
    recv.sort_unstable();
    Migration {
        send: HaloList::from_sorted(send),
        recv: HaloList::from_sorted(recv.into_iter().map(|(q, _, l)| (q, l))),
    }
}
