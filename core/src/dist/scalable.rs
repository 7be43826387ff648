//! `op_partition` without the global mesh: the phases of [`super::driver`]
//! with every global array replaced by the [`directory`]. No rank ever holds
//! a whole set, map or partition vector; memory and message volume per rank
//! are O(declared block + owned elements + halo).
//!
//! 1. [`declared_blocks`] and [`check_maps`]: every set's declared sizes (an
//!    allgather of a few integers); map entries checked where declared.
//! 2. [`primary_partition`]: the part of each element of this rank's declared
//!    block of the primary set: blocks, random ([`partition::random_part`]),
//!    external (the dat itself), geometric ([`super::bisect`], distributed
//!    recursive bisection) or graph k-way over the distributed graph
//!    ([`directory::adjacency`] and a [`DistGraphPartitioner`]: PT-Scotch in
//!    `libop2_mpi`).
//! 3. [`derive_sets`]: OP2's derivation rules, each map evaluated where its
//!    rows are declared, asking the directory for the parts of their targets
//!    (or sending `(target, part)` votes to the targets' directory ranks).
//! 4. [`gather_owned`]: every element, with its map rows, moves to its owner.
//! 5. [`build_halos`]: owners of the targets of owned rows (directory), core
//!    and boundary, exec halos sent by their owners with their rows, non-exec
//!    halos found locally and announced to their owners.
//! 6. the dats' rows migrate ([`driver::migrate_dats`]) and the local sets
//!    and maps are installed ([`driver::install`]).
//!
//! Every phase gives exactly what the replicated phases give (the same
//! partition for a deterministic partitioner, the same local numbering and
//! lists, the same migration): `tests` checks that on simulated ranks.

use super::directory::{self, agree, exchange, lookup, DistGraphPartitioner};
use super::driver::{self, Partitioned};
use super::{Collectives, Primary};
use crate::domain::{Domain, MapId};
use crate::error::{obj, Op2Error, Result};
use crate::graph::Csr;
use crate::halo::{migration, HaloList, LocalMap, LocalMesh, LocalSet, Migration};
use crate::partition::{self, BlockDist};

const CALL: &str = "op_partition";
/// The seed of OP2's `RANDOM` partitioner here (same as the replicated driver).
const RANDOM_SEED: u64 = 0x6f70_3272;

/// Phase 1: every set's declared distribution, and the size limit.
pub fn declared_blocks(c: &dyn Collectives, dom: &Domain) -> Result<Vec<BlockDist>> {
    let blocks = driver::gather_blocks(c, dom)?;
    for (s, b) in blocks.iter().enumerate() {
        directory::check_size(CALL, &dom.sets()[s].name, b.global_size())?;
    }
    Ok(blocks)
}

/// Phase 1b: every map entry inside its to-set. The first bad entry in map
/// order, then global entry order, is reported on every rank, with the
/// replicated driver's words.
pub fn check_maps(c: &dyn Collectives, dom: &Domain, blocks: &[BlockDist]) -> Result<()> {
    let rank = c.rank();
    let mut bad = [i64::MAX; 3];
    for (i, m) in dom.maps().iter().enumerate() {
        let nto = blocks[m.to.0].global_size();
        if let Some(p) = m.values.iter().position(|&v| v < 0 || v as usize >= nto) {
            let start = blocks[m.from.0].range(rank).start * m.dim;
            bad = [i as i64, (start + p) as i64, i64::from(m.values[p])];
            break;
        }
    }
    let (all, _) = super::collective::allgatherv(c, &bad)?;
    let Some(first) = all.chunks_exact(3).min_by_key(|b| (b[0], b[1])) else {
        return Ok(());
    };
    if first[0] == i64::MAX {
        return Ok(());
    }
    let m = &dom.maps()[first[0] as usize];
    Err(Op2Error::new(
        CALL,
        obj("map", &m.name),
        format!(
            "global map entries: entry {} (= {}) outside the to-set [0, {})",
            first[1],
            first[2],
            blocks[m.to.0].global_size()
        ),
    ))
}

/// Phase 2: the primary set, and the part of each element of this rank's
/// declared block of it.
pub fn primary_partition(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    primary: Primary,
    kway: Option<&dyn DistGraphPartitioner>,
) -> Result<(usize, Vec<i32>)> {
    let (set, part, _) = primary_keeping_graph(c, dom, blocks, primary, kway, None)?;
    Ok((set, part))
}

/// [`primary_partition`], and this rank's rows of the k-way graph it built
/// when that is the graph of map `keep` (the quality report's, which then
/// reuses it instead of building it again).
fn primary_keeping_graph(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    primary: Primary,
    kway: Option<&dyn DistGraphPartitioner>,
    keep: Option<MapId>,
) -> Result<(usize, Vec<i32>, Option<Csr>)> {
    let (rank, nranks) = (c.rank(), c.size());
    let mine = |s: usize| blocks[s].range(rank);
    let (set, part) = match primary {
        Primary::Block => match blocks.first() {
            Some(b) => (0, vec![rank as i32; b.range(rank).len()]),
            None => (0, Vec::new()),
        },
        Primary::Random { set } => {
            let n = blocks[set.0].global_size();
            let p = mine(set.0)
                .map(|g| partition::random_part(n, nranks, RANDOM_SEED, g))
                .collect();
            (set.0, p)
        }
        Primary::Geom { coords, inertial } => {
            agree(c, driver::check_coords(dom, coords))?;
            let d = dom.dat(coords);
            let x: Vec<f64> = driver::local_values(dom, coords);
            let start = mine(d.set.0).start;
            let p = super::bisect::partition(c, &x, d.dim, start, inertial)?;
            (d.set.0, p)
        }
        Primary::External { parts } => (
            dom.dat(parts).set.0,
            agree(c, driver::external_ranks(dom, parts, nranks))?,
        ),
        Primary::Kway { map } => {
            let (to, p, graph) = kway_partition(c, dom, blocks, map, kway)?;
            return Ok((to, p, (keep == Some(map)).then_some(graph)));
        }
    };
    Ok((set, part, None))
}

/// The k-way partition of `map`'s to-set over the distributed graph: the
/// set, the parts of this rank's block of it, and this rank's rows of the
/// graph ([`directory::adjacency`]).
fn kway_partition(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    map: MapId,
    kway: Option<&dyn DistGraphPartitioner>,
) -> Result<(usize, Vec<i32>, Csr)> {
    let (rank, nranks) = (c.rank(), c.size());
    let m = dom.map(map);
    let f = agree(
        c,
        kway.ok_or_else(|| {
            Op2Error::new(
                CALL,
                obj("map", &m.name),
                "no graph partitioner in this library",
            )
        }),
    )?;
    let to = m.to.0;
    let csr = directory::adjacency(c, &blocks[to], &m.values, m.dim)?;
    let p = f.partition(c, blocks[to].offsets(), &csr, nranks);
    let p = p.and_then(|p| valid_parts(p, blocks[to].range(rank).len(), nranks));
    let p = p.map_err(|e| {
        Op2Error::new(
            CALL,
            obj("map", &m.name),
            format!("k-way graph partitioning ({}) failed: {e}", f.name()),
        )
    });
    Ok((to, agree(c, p)?, csr))
}

fn valid_parts(p: Vec<i32>, n: usize, nparts: usize) -> std::result::Result<Vec<i32>, String> {
    if p.len() != n {
        return Err(format!("{} parts for {n} vertices", p.len()));
    }
    if let Some(bad) = p.iter().find(|&&x| x < 0 || x as usize >= nparts) {
        return Err(format!("part {bad} outside [0, {nparts})"));
    }
    Ok(p)
}

/// Phase 3: every set's parts (of this rank's declared block) from the
/// primary set's, with OP2's rules in the replicated order
/// ([`partition::derive`]); sets no map reaches keep their declared blocks.
pub fn derive_sets(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    pset: usize,
    ppart: Vec<i32>,
) -> Result<Vec<Vec<i32>>> {
    let nsets = dom.sets().len();
    if nsets == 0 {
        return Ok(Vec::new());
    }
    let maps = dom.maps();
    let mut parts: Vec<Option<Vec<i32>>> = vec![None; nsets];
    parts[pset] = Some(ppart);
    let mut retired = vec![false; maps.len()];
    loop {
        let done: Vec<bool> = parts.iter().map(Option::is_some).collect();
        let shapes = maps.iter().map(|m| (m.from.0, m.to.0, m.dim));
        let Some((cost, i)) = partition::next_derivation(shapes, &done, &retired) else {
            break;
        };
        retired[i] = true;
        let m = &maps[i];
        let (f, t) = (m.from.0, m.to.0);
        if cost == 2 {
            let src = parts[f].as_deref().unwrap_or_default();
            parts[t] = from_sources(c, &blocks[t], &m.values, m.dim, src)?;
        } else {
            let tgt = parts[t].as_deref().unwrap_or_default();
            parts[f] = Some(from_targets(c, &blocks[t], &m.values, m.dim, tgt)?);
        }
    }
    let rank = c.rank();
    Ok(parts
        .into_iter()
        .enumerate()
        .map(|(s, p)| p.unwrap_or_else(|| vec![rank as i32; blocks[s].range(rank).len()]))
        .collect())
}

/// Each declared row takes the most frequent part among its targets (first
/// in the row on ties), the parts asked from the to-set's directory.
fn from_targets(
    c: &dyn Collectives,
    bt: &BlockDist,
    rows: &[i32],
    dim: usize,
    tparts: &[i32],
) -> Result<Vec<i32>> {
    let q: Vec<u32> = rows.iter().map(|&t| t as u32).collect();
    let tp = lookup(c, bt, tparts, &q)?;
    Ok(tp
        .chunks_exact(dim)
        .map(|row| partition::row_mode(dim, |j| row[j]))
        .collect())
}

/// Each to-element takes the most frequent part among the map entries
/// referencing it (smallest part on ties): every declared entry sends its
/// row's part to the target's directory rank. `None` on every rank when some
/// to-element is not referenced.
fn from_sources(
    c: &dyn Collectives,
    bt: &BlockDist,
    rows: &[i32],
    dim: usize,
    sparts: &[i32],
) -> Result<Option<Vec<i32>>> {
    let mut send = vec![Vec::<u32>::new(); c.size()];
    for (k, &t) in rows.iter().enumerate() {
        send[bt.owner(t as usize)].extend([t as u32, sparts[k / dim] as u32]);
    }
    let votes = directory::sorted_pairs(exchange(c, send)?);
    let range = bt.range(c.rank());
    let mut out = vec![-1i32; range.len()];
    partition::vote_modes(&votes, |t, p| out[t - range.start] = p);
    let missing = out.iter().any(|&p| p < 0);
    Ok(if directory::any(c, missing)? {
        None
    } else {
        Some(out)
    })
}

/// Phase 4's result on this rank: per set its owned global ids (ascending),
/// per map the rows of its from-set's owned elements (same order).
pub struct Owned {
    pub gids: Vec<Vec<u32>>,
    pub rows: Vec<Vec<i32>>,
}

/// Phase 4: every declared element, with its map rows, to its new owner.
pub fn gather_owned(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    parts: &[Vec<i32>],
) -> Result<Owned> {
    let rank = c.rank();
    let (nranks, nsets) = (c.size(), dom.sets().len());
    let mut gids = Vec::with_capacity(nsets);
    let mut rows: Vec<Vec<i32>> = vec![Vec::new(); dom.maps().len()];
    for (s, part) in parts.iter().enumerate() {
        let start = blocks[s].range(rank).start;
        let mut send = vec![Vec::<u32>::new(); nranks];
        for (i, &p) in part.iter().enumerate() {
            send[p as usize].push((start + i) as u32);
        }
        let got = exchange(c, send)?;
        // (gid, source, position in its message), in global id order
        let mut order: Vec<(u32, u32, u32)> = got
            .iter()
            .enumerate()
            .flat_map(|(src, v)| {
                v.iter()
                    .enumerate()
                    .map(move |(k, &g)| (g, src as u32, k as u32))
            })
            .collect();
        order.sort_unstable();
        for (mi, m) in dom.maps().iter().enumerate() {
            if m.from.0 != s {
                continue;
            }
            let dim = m.dim;
            let mut send = vec![Vec::<i32>::new(); nranks];
            for (i, &p) in part.iter().enumerate() {
                send[p as usize].extend_from_slice(&m.values[i * dim..(i + 1) * dim]);
            }
            let got = exchange(c, send)?;
            let mut out = Vec::with_capacity(order.len() * dim);
            for &(_, src, k) in &order {
                let k = k as usize;
                out.extend_from_slice(&got[src as usize][k * dim..(k + 1) * dim]);
            }
            rows[mi] = out;
        }
        gids.push(order.into_iter().map(|(g, _, _)| g).collect());
    }
    Ok(Owned { gids, rows })
}

/// Global id → local index of one set's local elements (sorted pairs,
/// binary search: O(local) memory).
struct GidIndex {
    gids: Vec<u32>,
    local: Vec<u32>,
}

impl GidIndex {
    fn new(global_ids: &[usize]) -> GidIndex {
        let mut pairs: Vec<(u32, u32)> = global_ids
            .iter()
            .enumerate()
            .map(|(l, &g)| (g as u32, l as u32))
            .collect();
        pairs.sort_unstable();
        GidIndex {
            gids: pairs.iter().map(|p| p.0).collect(),
            local: pairs.iter().map(|p| p.1).collect(),
        }
    }

    #[inline]
    fn get(&self, g: u32) -> Option<u32> {
        self.gids.binary_search(&g).ok().map(|i| self.local[i])
    }
}

/// Rows of the elements a rank executes for one map: owned elements in
/// local order, then the exec halo.
struct ExecRows {
    rows: Vec<i32>,
}

/// Phase 5: local numbering, halo lists and local maps of this rank.
pub fn build_halos(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    parts: &[Vec<i32>],
    mut owned: Owned,
) -> Result<LocalMesh> {
    let (rank, nranks) = (c.rank(), c.size());
    let maps = dom.maps();
    let mut towner: Vec<Vec<i32>> = vec![Vec::new(); maps.len()];
    let mut sets = Vec::with_capacity(owned.gids.len());
    let mut exec: Vec<Option<ExecRows>> = (0..maps.len()).map(|_| None).collect();
    for (s, gids) in owned.gids.iter().enumerate() {
        let from: Vec<usize> = (0..maps.len()).filter(|&m| maps[m].from.0 == s).collect();
        // owners of the targets of this set's owned rows
        for &mi in &from {
            let t = maps[mi].to.0;
            let q: Vec<u32> = owned.rows[mi].iter().map(|&v| v as u32).collect();
            towner[mi] = lookup(c, &blocks[t], &parts[t], &q)?;
        }
        let hr = halo_ranks(rank, gids.len(), &from, dom, &towner);
        for &mi in &from {
            towner[mi] = Vec::new();
        }
        let (ls, rows) = owned_and_exec(c, gids, &hr, &from, dom, &mut owned.rows)?;
        sets.push(ls);
        for (&m, r) in from.iter().zip(rows) {
            exec[m] = Some(r);
        }
    }
    let exec: Vec<ExecRows> = exec
        .into_iter()
        .map(|r| r.expect("every map has a from-set"))
        .collect();
    for t in 0..sets.len() {
        add_nonexec(c, t, dom, &blocks[t], &parts[t], &mut sets, &exec)?;
    }
    announce_nonexec(c, &mut sets)?;
    let indexes: Vec<GidIndex> = sets.iter().map(|s| GidIndex::new(&s.global_ids)).collect();
    let mut lmaps = Vec::with_capacity(maps.len());
    for (mi, m) in maps.iter().enumerate() {
        let (f, t) = (m.from.0, m.to.0);
        let values = exec[mi]
            .rows
            .iter()
            .map(|&g| {
                indexes[t].get(g as u32).map(|l| l as i32).ok_or_else(|| {
                    Op2Error::new(
                        CALL,
                        obj("map", &m.name),
                        "internal: a target of an executed element is not local",
                    )
                })
            })
            .collect::<Result<Vec<i32>>>()?;
        debug_assert_eq!(values.len(), (sets[f].size + sets[f].exec_size) * m.dim);
        lmaps.push(LocalMap {
            from: f,
            to: t,
            dim: m.dim,
            values,
        });
    }
    Ok(LocalMesh {
        rank,
        nranks,
        sets,
        maps: lmaps,
    })
}

/// Per owned element (global id order), the ranks other than this one that
/// own one of its targets through the maps `from` (sorted, CSR).
fn halo_ranks(
    rank: usize,
    n: usize,
    from: &[usize],
    dom: &Domain,
    towner: &[Vec<i32>],
) -> (Vec<usize>, Vec<u32>) {
    let mut off = Vec::with_capacity(n + 1);
    let mut ranks = Vec::new();
    off.push(0);
    let mut buf = Vec::new();
    for e in 0..n {
        buf.clear();
        for &m in from {
            let dim = dom.maps()[m].dim;
            for &o in &towner[m][e * dim..(e + 1) * dim] {
                if o as usize != rank {
                    buf.push(o as u32);
                }
            }
        }
        buf.sort_unstable();
        buf.dedup();
        ranks.extend_from_slice(&buf);
        off.push(ranks.len());
    }
    (off, ranks)
}

/// A set's owned elements (core, then boundary) and exec halo, received
/// from the owners with their rows; the executed rows of each map `from` it.
fn owned_and_exec(
    c: &dyn Collectives,
    gids: &[u32],
    hr: &(Vec<usize>, Vec<u32>),
    from: &[usize],
    dom: &Domain,
    rows: &mut [Vec<i32>],
) -> Result<(LocalSet, Vec<ExecRows>)> {
    let h = |e: usize| &hr.1[hr.0[e]..hr.0[e + 1]];
    let (core, bnd): (Vec<u32>, Vec<u32>) =
        (0..gids.len() as u32).partition(|&e| h(e as usize).is_empty());
    let (core_size, size) = (core.len(), core.len() + bnd.len());
    let nranks = c.size();
    // exec halo: every boundary element to the ranks in its halo list
    let mut send_g = vec![Vec::<u32>::new(); nranks];
    let mut export = Vec::new();
    for (i, &e) in bnd.iter().enumerate() {
        for &p in h(e as usize) {
            send_g[p as usize].push(gids[e as usize]);
            export.push((p as usize, core_size + i));
        }
    }
    export.sort_by_key(|&(p, _)| p);
    let recv_g = exchange(c, send_g)?;
    let import = HaloList::from_sorted(
        recv_g
            .iter()
            .enumerate()
            .flat_map(|(o, v)| std::iter::repeat_n(o, v.len()))
            .enumerate()
            .map(|(k, o)| (o, size + k)),
    );
    let order: Vec<u32> = core.iter().chain(&bnd).copied().collect();
    let mut global_ids: Vec<usize> = order.iter().map(|&e| gids[e as usize] as usize).collect();
    global_ids.extend(recv_g.iter().flatten().map(|&g| g as usize));
    let mut per_map = Vec::with_capacity(from.len());
    for &m in from {
        let dim = dom.maps()[m].dim;
        let pick = |src: &[i32]| -> Vec<Vec<i32>> {
            let mut send = vec![Vec::new(); nranks];
            for &e in &bnd {
                for &p in h(e as usize) {
                    send[p as usize]
                        .extend_from_slice(&src[e as usize * dim..(e as usize + 1) * dim]);
                }
            }
            send
        };
        let local = |src: &[i32]| -> Vec<i32> {
            let mut v = Vec::with_capacity((order.len()) * dim);
            for &e in &order {
                v.extend_from_slice(&src[e as usize * dim..(e as usize + 1) * dim]);
            }
            v
        };
        let mut r = local(&rows[m]);
        r.extend(exchange(c, pick(&rows[m]))?.into_iter().flatten());
        // the owned-order copy replaces it (memory: O(local) once)
        rows[m] = Vec::new();
        per_map.push(ExecRows { rows: r });
    }
    let exec_size = global_ids.len() - size;
    let ls = LocalSet {
        global_ids,
        core_size,
        size,
        exec_size,
        nonexec_size: 0,
        import_exec: import,
        export_exec: HaloList::from_sorted(export),
        import_nonexec: HaloList::default(),
        export_nonexec: HaloList::default(),
    };
    Ok((ls, per_map))
}

/// Set `t`'s non-exec halo: targets of executed rows (every map to `t`)
/// that are not owned or exec halo here, ordered by (owner, global id).
/// Their owners come from the directory (`part`, set `t`'s partition of
/// this rank's block, distributed as `b`): a few elements per rank, where
/// carrying an owner along every executed row would cost as much as the
/// local maps. Collective.
fn add_nonexec(
    c: &dyn Collectives,
    t: usize,
    dom: &Domain,
    b: &BlockDist,
    part: &[i32],
    sets: &mut [LocalSet],
    exec: &[ExecRows],
) -> Result<()> {
    let index = GidIndex::new(&sets[t].global_ids);
    let mut far: Vec<u32> = Vec::new();
    for (m, map) in dom.maps().iter().enumerate() {
        if map.to.0 != t {
            continue;
        }
        far.extend(
            exec[m]
                .rows
                .iter()
                .map(|&g| g as u32)
                .filter(|&g| index.get(g).is_none()),
        );
    }
    drop(index);
    far.sort_unstable();
    far.dedup();
    let owners = lookup(c, b, part, &far)?;
    let mut cand: Vec<(u32, u32)> = owners.iter().map(|&o| o as u32).zip(far).collect();
    cand.sort_unstable();
    let ts = &mut sets[t];
    let base = ts.size + ts.exec_size;
    ts.global_ids.extend(cand.iter().map(|&(_, g)| g as usize));
    ts.nonexec_size = cand.len();
    ts.import_nonexec = HaloList::from_sorted(
        cand.iter()
            .enumerate()
            .map(|(i, &(o, _))| (o as usize, base + i)),
    );
    Ok(())
}

/// Every rank tells the owners which of their elements it reads as non-exec
/// halo; the owners list them (in global id order) as non-exec exports.
fn announce_nonexec(c: &dyn Collectives, sets: &mut [LocalSet]) -> Result<()> {
    for ls in sets.iter_mut() {
        let mut send = vec![Vec::<u32>::new(); c.size()];
        for (o, rows) in ls.import_nonexec.neighbours() {
            send[o] = rows.iter().map(|&l| ls.global_ids[l] as u32).collect();
        }
        let got = exchange(c, send)?;
        let owned = GidIndex::new(&ls.global_ids[..ls.size]);
        let mut pairs = Vec::new();
        for (p, gids) in got.iter().enumerate() {
            for &g in gids {
                let l = owned.get(g).ok_or_else(|| {
                    Op2Error::new(
                        CALL,
                        "",
                        format!(
                            "rank {p} reads element {g} as halo from a rank that does not own it"
                        ),
                    )
                })?;
                pairs.push((p, l as usize));
            }
        }
        ls.export_nonexec = HaloList::from_sorted(pairs);
    }
    Ok(())
}

/// The partition quality line of the replicated driver, computed on the
/// distributed graph: edge cut of the map's to-set graph and imbalance.
/// `graph`: this rank's rows of the map's graph when the caller has them
/// (k-way partitioning built them), else built here (collective either way).
pub fn quality(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    parts: &[Vec<i32>],
    map: MapId,
    graph: Option<Csr>,
) -> Result<String> {
    let m = dom.map(map);
    let to = m.to.0;
    let nranks = c.size();
    let csr = match graph {
        Some(g) => g,
        None => directory::adjacency(c, &blocks[to], &m.values, m.dim)?,
    };
    let q: Vec<u32> = csr.adjncy.iter().map(|&v| v as u32).collect();
    let np = lookup(c, &blocks[to], &parts[to], &q)?;
    let mine = &parts[to];
    let mut cut = 0u64;
    for (v, &pv) in mine.iter().enumerate() {
        let (a, b) = (csr.xadj[v] as usize, csr.xadj[v + 1] as usize);
        cut += np[a..b].iter().filter(|&&p| p != pv).count() as u64;
    }
    let cut = directory::sum(c, cut)? / 2;
    let mut sizes = vec![0u64; nranks];
    for &p in mine {
        sizes[p as usize] += 1;
    }
    let sizes = directory::sum_vec(c, &sizes)?;
    let total: u64 = sizes.iter().sum();
    let imbalance = if total == 0 {
        1.0
    } else {
        *sizes.iter().max().unwrap_or(&0) as f64 * nranks as f64 / total as f64
    };
    Ok(driver::quality_line(
        &dom.sets()[to].name,
        nranks,
        cut as usize,
        &m.name,
        imbalance,
    ))
}

/// All phases: partition `dom` over the ranks of `c` without the global
/// mesh (collective). Same result as [`driver::run`] for the same primary
/// partition.
pub fn run(
    c: &dyn Collectives,
    dom: &mut Domain,
    primary: Primary,
    kway: Option<&dyn DistGraphPartitioner>,
    report: Option<MapId>,
) -> Result<Partitioned> {
    let blocks = declared_blocks(c, dom)?;
    check_maps(c, dom, &blocks)?;
    let (pset, mut ppart, graph) = primary_keeping_graph(c, dom, &blocks, primary, kway, report)?;
    super::force::force_parts(c, dom, &blocks, pset, &mut ppart)?;
    let parts = derive_sets(c, dom, &blocks, pset, ppart)?;
    let quality = match report {
        Some(m) => Some(quality(c, dom, &blocks, &parts, m, graph)?),
        None => None,
    };
    let owned = gather_owned(c, dom, &blocks, &parts)?;
    let mesh = build_halos(c, dom, &blocks, &parts, owned)?;
    let migrations: Vec<Migration> = mesh
        .sets
        .iter()
        .enumerate()
        .map(|(s, ls)| migration(&blocks[s], &parts[s], ls))
        .collect();
    drop(parts);
    driver::migrate_dats(c, dom, &migrations, &mesh)?;
    let locals = driver::install(dom, mesh);
    Ok(Partitioned {
        sets: driver::dist_sets(locals, blocks, migrations),
        quality,
    })
}
