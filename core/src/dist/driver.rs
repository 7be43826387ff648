//! The `op_partition` driver, in named phases, over any [`Collectives`]:
//!
//! 1. [`gather_metadata`]: every set's declared block sizes and every map's
//!    global entries (validated against the global sizes);
//! 2. [`primary_partition`]: the partition of the primary set (blocks,
//!    geometric, random, external or graph k-way);
//! 3. [`derive_sets`]: the other sets' partitions through the maps (OP2's
//!    rules; sets no map reaches keep their declared blocks);
//! 4. [`build_local`]: this rank's local numbering and halo lists;
//! 5. [`migrate`]: every dat's rows to their owners, halos filled;
//! 6. [`install`]: the local sets and maps into the domain.
//!
//! [`run`] chains them. The phases hold the metadata of the whole mesh on
//! every rank (replicated: memory per rank grows with the global mesh); the
//! dats themselves are never replicated.

use super::collective::{self, allgatherv, Collectives, PendingMessages};
use super::Primary;
use crate::aligned::AlignedBuf;
use crate::domain::{DatId, Domain, MapId, SetId};
use crate::error::{obj, Op2Error, Result};
use crate::graph::{self, Csr, GlobalMap};
use crate::halo::{migration, HaloPlan, LocalMesh, LocalSet, Migration};
use crate::partition::{self, BlockDist, DeriveRule, GlobalSet, GraphPartitioner};
use crate::types::ScalarType;
use std::sync::Arc;

const CALL: &str = "op_partition";

/// Phase 1's result: the mesh metadata every rank holds.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// Per set, the declared (block) distribution.
    pub blocks: Vec<BlockDist>,
    /// Per map, its entries in global numbering (all ranks' rows, rank order).
    pub map_values: Vec<Vec<i32>>,
}

impl Metadata {
    /// Global size of every set.
    pub fn sizes(&self) -> Vec<usize> {
        self.blocks.iter().map(|b| b.global_size()).collect()
    }

    fn global_sets(&self) -> Vec<GlobalSet> {
        self.sizes()
            .into_iter()
            .map(|size| GlobalSet { size })
            .collect()
    }

    /// The maps in global numbering, in the domain's map order.
    pub fn global_maps<'a>(&'a self, dom: &Domain) -> Vec<GlobalMap<'a>> {
        dom.maps()
            .iter()
            .zip(&self.map_values)
            .map(|(m, v)| GlobalMap {
                from: m.from.0,
                to: m.to.0,
                dim: m.dim,
                values: v,
            })
            .collect()
    }
}

/// One set's distribution after partitioning, kept for the rest of the run.
#[derive(Debug, Clone)]
pub struct DistSet {
    /// The declared (block) distribution.
    pub block: BlockDist,
    /// This rank's local numbering and halo lists.
    pub local: LocalSet,
    /// Owned rows back to the declared block (`op_fetch_data`).
    pub back: Migration,
    /// Halo refresh lists per neighbour (exec rows then non-exec rows).
    pub exchange: Arc<ExchangeLists>,
    /// The owned rows `exchange` sends to any neighbour, sorted, distinct.
    pub sent: Vec<usize>,
}

impl DistSet {
    /// Rebuild the exchange lists (and the rows they send) from `local`.
    pub fn set_exchange(&mut self) {
        let x = ExchangeLists::of(&self.local);
        self.sent = x.sent_rows();
        self.exchange = Arc::new(x);
    }
}

/// Rows a halo refresh sends and receives, one message per neighbour.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExchangeLists {
    /// `(rank, owned rows it needs)`, ascending rank.
    pub send: Vec<(usize, Vec<usize>)>,
    /// `(rank, halo rows it fills)`, ascending rank.
    pub recv: Vec<(usize, Vec<usize>)>,
}

impl ExchangeLists {
    /// From a partitioned set's exec and non-exec lists: one message per
    /// neighbour holding its exec rows, then its non-exec rows.
    pub fn of(local: &LocalSet) -> ExchangeLists {
        let merge = |a: &crate::halo::HaloList, b: &crate::halo::HaloList| {
            let mut ranks: Vec<usize> = a.ranks.iter().chain(&b.ranks).copied().collect();
            ranks.sort_unstable();
            ranks.dedup();
            ranks
                .into_iter()
                .map(|r| {
                    let mut rows = a.with(r).to_vec();
                    rows.extend_from_slice(b.with(r));
                    (r, rows)
                })
                .collect()
        };
        ExchangeLists {
            send: merge(&local.export_exec, &local.export_nonexec),
            recv: merge(&local.import_exec, &local.import_nonexec),
        }
    }

    /// The part of these lists that refreshes only the halo rows `needed`
    /// selects (OP2's partial exchange): each rank tells every neighbour it
    /// receives from which positions of that neighbour's message it still
    /// wants (one all-to-all; collective), and sends only the positions its
    /// own neighbours ask for. Neighbours with nothing left drop out on both
    /// sides.
    pub fn restricted(
        &self,
        c: &dyn Collectives,
        needed: impl Fn(usize) -> bool,
    ) -> Result<ExchangeLists> {
        let mut asks = vec![Vec::new(); c.size()];
        let mut recv = Vec::new();
        for (r, rows) in &self.recv {
            let keep: Vec<u32> = (0..rows.len())
                .filter(|&k| needed(rows[k]))
                .map(|k| k as u32)
                .collect();
            if !keep.is_empty() {
                recv.push((*r, keep.iter().map(|&k| rows[k as usize]).collect()));
            }
            asks[*r] = collective::to_bytes(&keep);
        }
        let asked = c.alltoallv_bytes(&asks)?;
        let mut send = Vec::new();
        for (r, rows) in &self.send {
            let want: Vec<u32> = collective::from_bytes(&asked[*r]);
            if want.is_empty() {
                continue;
            }
            let picked = want
                .iter()
                .map(|&k| rows.get(k as usize).copied())
                .collect::<Option<Vec<usize>>>()
                .ok_or_else(|| {
                    Op2Error::new(
                        "op_mpi_halo_exchanges",
                        "",
                        format!("rank {r} asked for a halo row this rank does not send to it"),
                    )
                })?;
            send.push((*r, picked));
        }
        Ok(ExchangeLists { send, recv })
    }

    /// The rows sent to any neighbour, sorted, distinct.
    pub fn sent_rows(&self) -> Vec<usize> {
        let mut rows: Vec<usize> = self
            .send
            .iter()
            .flat_map(|(_, r)| r.iter().copied())
            .collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    }

    /// Bytes this rank sends per refresh of a dat with `elem_bytes` bytes per element.
    pub fn send_bytes(&self, elem_bytes: usize) -> usize {
        self.send.iter().map(|(_, r)| r.len() * elem_bytes).sum()
    }

    /// Start refreshing the halo rows of `data`: the owned rows go out now
    /// (copied), the halo rows arrive in [`ExchangeLists::unpack`].
    pub fn start(
        &self,
        c: &dyn Collectives,
        data: &[u8],
        elem_bytes: usize,
        tag: i32,
    ) -> Result<Box<dyn PendingMessages>> {
        let eb = elem_bytes;
        let sends = self
            .send
            .iter()
            .map(|(r, rows)| {
                let mut buf = Vec::with_capacity(rows.len() * eb);
                for &i in rows {
                    buf.extend_from_slice(&data[i * eb..(i + 1) * eb]);
                }
                (*r, buf)
            })
            .collect();
        let recvs: Vec<(usize, usize)> = self
            .recv
            .iter()
            .map(|(r, rows)| (*r, rows.len() * eb))
            .collect();
        c.start_exchange(sends, &recvs, tag)
    }

    /// Write received buffers (in `recv` order) into the halo rows of `data`.
    pub fn unpack(&self, bufs: &[Vec<u8>], data: &mut [u8], elem_bytes: usize) {
        let eb = elem_bytes;
        for ((_, rows), buf) in self.recv.iter().zip(bufs) {
            for (k, &i) in rows.iter().enumerate() {
                data[i * eb..(i + 1) * eb].copy_from_slice(&buf[k * eb..(k + 1) * eb]);
            }
        }
    }

    /// Refresh the halo rows of `data` and wait for them.
    pub fn exchange(
        &self,
        c: &dyn Collectives,
        data: &mut [u8],
        elem_bytes: usize,
        tag: i32,
    ) -> Result<()> {
        let bufs = self.start(c, data, elem_bytes, tag)?.wait()?;
        self.unpack(&bufs, data, elem_bytes);
        Ok(())
    }
}

/// Every set's declared distribution (an allgather of the local sizes).
pub fn gather_blocks(c: &dyn Collectives, dom: &Domain) -> Result<Vec<BlockDist>> {
    let local_sizes: Vec<u64> = dom.sets().iter().map(|s| s.size as u64).collect();
    let (all, _) = allgatherv(c, &local_sizes)?;
    let nsets = local_sizes.len();
    Ok((0..nsets)
        .map(|s| {
            let sizes: Vec<usize> = (0..c.size()).map(|r| all[r * nsets + s] as usize).collect();
            BlockDist::from_sizes(&sizes)
        })
        .collect())
}

/// Phase 1: every set's declared sizes and every map's global entries,
/// checked against the global set sizes.
pub fn gather_metadata(c: &dyn Collectives, dom: &Domain) -> Result<Metadata> {
    let blocks = gather_blocks(c, dom)?;
    let mut map_values = Vec::with_capacity(dom.maps().len());
    for m in dom.maps() {
        map_values.push(allgatherv(c, &m.values)?.0);
    }
    let meta = Metadata { blocks, map_values };
    let sizes = meta.sizes();
    for (i, gm) in meta.global_maps(dom).iter().enumerate() {
        gm.validate(&sizes, i, CALL).map_err(|e| {
            Op2Error::new(
                CALL,
                obj("map", &dom.maps()[i].name),
                format!("global map entries: {}", e.msg),
            )
        })?;
    }
    Ok(meta)
}

/// GEOM/INERTIAL coordinates must be doubles.
pub(crate) fn check_coords(dom: &Domain, coords: DatId) -> Result<()> {
    let d = dom.dat(coords);
    if d.scalar != ScalarType::F64 {
        return Err(Op2Error::new(
            CALL,
            obj("dat", &d.name),
            "coordinates must be a double dat",
        ));
    }
    Ok(())
}

/// EXTERNAL: this rank's target ranks from the dat, each in `[0, nranks)`.
pub(crate) fn external_ranks(dom: &Domain, parts: DatId, nranks: usize) -> Result<Vec<i32>> {
    let local = local_values::<i32>(dom, parts);
    if let Some(bad) = local.iter().find(|&&r| r < 0 || r as usize >= nranks) {
        return Err(Op2Error::new(
            CALL,
            obj("dat", &dom.dat(parts).name),
            format!("rank {bad} is outside [0, {nranks})"),
        ));
    }
    Ok(local)
}

/// This rank's rows of a dat as values of `T` (its declared elements).
pub(crate) fn local_values<T: collective::Pod>(dom: &Domain, dat: DatId) -> Vec<T> {
    let d = dom.dat(dat);
    let n = dom.set(d.set).size;
    collective::from_bytes(&d.data.as_slice()[..n * d.elem_bytes])
}

/// Phase 2: the primary set and the part of each of its global elements.
pub fn primary_partition(
    c: &dyn Collectives,
    dom: &Domain,
    meta: &Metadata,
    primary: Primary,
    kway: Option<GraphPartitioner>,
) -> Result<(usize, Vec<i32>)> {
    let (set, part, _) = primary_keeping_graph(c, dom, meta, primary, kway, None)?;
    Ok((set, part))
}

/// [`primary_partition`], and the k-way graph it built when that is the
/// graph of map `keep` (the quality report's, which then reuses it).
fn primary_keeping_graph(
    c: &dyn Collectives,
    dom: &Domain,
    meta: &Metadata,
    primary: Primary,
    kway: Option<GraphPartitioner>,
    keep: Option<MapId>,
) -> Result<(usize, Vec<i32>, Option<Csr>)> {
    let nranks = c.size();
    let sizes = meta.sizes();
    let (set, part) = match primary {
        Primary::Block => (
            0,
            meta.blocks.first().map(|b| b.parts()).unwrap_or_default(),
        ),
        Primary::Random { set } => (set.0, partition::random(sizes[set.0], nranks, 0x6f70_3272)),
        Primary::Geom { coords, inertial } => {
            check_coords(dom, coords)?;
            let d = dom.dat(coords);
            let (set, dim) = (d.set, d.dim);
            let all: Vec<f64> = allgatherv(c, &local_values::<f64>(dom, coords))?.0;
            let p = if inertial {
                partition::inertial(&all, dim, nranks)
            } else {
                partition::rcb(&all, dim, nranks)
            };
            (set.0, p)
        }
        Primary::External { parts } => {
            let local = external_ranks(dom, parts, nranks)?;
            (dom.dat(parts).set.0, allgatherv(c, &local)?.0)
        }
        Primary::Kway { map } => {
            let f = kway.ok_or_else(|| {
                Op2Error::new(
                    CALL,
                    obj("map", &dom.map(map).name),
                    "no graph partitioner in this library",
                )
            })?;
            let (to, p, graph) = kway_partition(dom, meta, map, nranks, f)?;
            return Ok((to, p, (keep == Some(map)).then_some(graph)));
        }
    };
    Ok((set, part, None))
}

/// The k-way partition of `map`'s to-set: the set, its parts, and the graph
/// ([`graph::adjacency`]) they partition.
fn kway_partition(
    dom: &Domain,
    meta: &Metadata,
    map: MapId,
    nranks: usize,
    kway: GraphPartitioner,
) -> Result<(usize, Vec<i32>, Csr)> {
    let m = dom.map(map);
    let to = m.to.0;
    let gm = meta.global_maps(dom)[map.0];
    let csr = graph::adjacency(&gm, meta.sizes()[to])?;
    let p = partition::kway(&csr, nranks, kway).map_err(|e| {
        Op2Error::new(
            CALL,
            obj("map", &m.name),
            format!("k-way graph partitioning failed: {e}"),
        )
    })?;
    Ok((to, p, csr))
}

/// Phase 3: every set's partition from the primary one (OP2's rules); sets
/// that no map reaches keep their declared blocks.
pub fn derive_sets(
    dom: &Domain,
    meta: &Metadata,
    primary_set: usize,
    primary_part: &[i32],
    nranks: usize,
) -> Result<Vec<Vec<i32>>> {
    if dom.sets().is_empty() {
        return Ok(Vec::new());
    }
    let derived = partition::derive(
        &meta.global_sets(),
        &meta.global_maps(dom),
        primary_set,
        primary_part,
        nranks,
    )?;
    Ok(derived
        .parts
        .into_iter()
        .zip(&derived.rules)
        .zip(&meta.blocks)
        .map(|((p, rule), b)| {
            if matches!(rule, DeriveRule::Unreached) {
                b.parts()
            } else {
                p
            }
        })
        .collect())
}

/// The partition quality of a map's to-set (edge cut of the graph through
/// the map, imbalance), as a line for the user. `graph`: the map's graph
/// when the caller has it (k-way partitioning built it), else built here.
pub fn quality(
    dom: &Domain,
    meta: &Metadata,
    parts: &[Vec<i32>],
    map: MapId,
    nranks: usize,
    graph: Option<&Csr>,
) -> Option<String> {
    let m = dom.map(map);
    let to = m.to.0;
    let built;
    let g = match graph {
        Some(g) => g,
        None => {
            built = graph::adjacency(&meta.global_maps(dom)[map.0], meta.sizes()[to]).ok()?;
            &built
        }
    };
    Some(quality_line(
        &dom.set(SetId(to)).name,
        nranks,
        g.edge_cut(&parts[to]),
        &m.name,
        partition::imbalance(&parts[to], nranks),
    ))
}

/// The partition quality line the user sees (OP_diags > 0).
pub fn quality_line(set: &str, nparts: usize, cut: usize, map: &str, imbalance: f64) -> String {
    format!(
        "set \"{set}\": {nparts} parts, edge cut {cut} (graph through map \"{map}\"), imbalance {imbalance:.3}"
    )
}

/// Phase 4: this rank's local numbering, local maps and halo lists.
pub fn build_local(
    dom: &Domain,
    meta: &Metadata,
    parts: &[Vec<i32>],
    rank: usize,
    nranks: usize,
) -> Result<LocalMesh> {
    let maps = meta.global_maps(dom);
    Ok(HaloPlan::new(parts, &maps, nranks)?.local(rank))
}

/// Phase 5: move every dat's rows to their owners and fill its halos.
/// Returns each set's migration (for the way back).
pub fn migrate(
    c: &dyn Collectives,
    dom: &mut Domain,
    meta: &Metadata,
    parts: &[Vec<i32>],
    mesh: &LocalMesh,
) -> Result<Vec<Migration>> {
    let rank = c.rank();
    let migrations: Vec<Migration> = (0..dom.sets().len())
        .map(|s| {
            let b = &meta.blocks[s];
            migration(b, &parts[s][b.range(rank)], &mesh.sets[s])
        })
        .collect();
    migrate_dats(c, dom, &migrations, mesh)?;
    Ok(migrations)
}

/// Every dat's rows to their owners along its set's migration, then its
/// halos filled (one exchange per dat).
pub fn migrate_dats(
    c: &dyn Collectives,
    dom: &mut Domain,
    migrations: &[Migration],
    mesh: &LocalMesh,
) -> Result<()> {
    let lists: Vec<ExchangeLists> = mesh.sets.iter().map(ExchangeLists::of).collect();
    let dats: Vec<DatId> = dom.dats().map(|(id, _)| id).collect();
    for id in dats {
        let (s, eb) = (dom.dat(id).set.0, dom.dat(id).elem_bytes);
        let mig = &migrations[s];
        let old = dom.dat(id).data.as_slice();
        let mut send = vec![Vec::new(); c.size()];
        for (r, rows) in mig.send.neighbours() {
            for &i in rows {
                send[r].extend_from_slice(&old[i * eb..(i + 1) * eb]);
            }
        }
        // one copy in flight (see `directory::exchange`): dats are the
        // largest arrays that move
        let recv = super::directory::exchange(c, send)?;
        let mut buf = AlignedBuf::zeroed(mesh.sets[s].total_size() * eb);
        let b = buf.as_mut_slice();
        for (r, rows) in mig.recv.neighbours() {
            for (k, &l) in rows.iter().enumerate() {
                b[l * eb..(l + 1) * eb].copy_from_slice(&recv[r][k * eb..(k + 1) * eb]);
            }
        }
        drop(recv);
        lists[s].exchange(c, b, eb, id.0 as i32)?;
        let d = dom.dat_mut(id);
        d.data = buf;
        d.halo_dirty = false;
    }
    Ok(())
}

/// Phase 6: the local sets (sizes) and maps (local indices) into the domain.
pub fn install(dom: &mut Domain, mesh: LocalMesh) -> Vec<LocalSet> {
    for (s, ls) in mesh.sets.iter().enumerate() {
        let set = dom.set_mut(SetId(s));
        set.size = ls.size;
        set.core_size = ls.core_size;
        set.exec_size = ls.exec_size;
        set.nonexec_size = ls.nonexec_size;
    }
    for (m, lm) in mesh.maps.into_iter().enumerate() {
        dom.map_mut(MapId(m)).values = lm.values;
    }
    mesh.sets
}

/// Phase 2b (OP2's `op_force_part`): no row of a map marked `force_part`
/// is cut. The map must point into the primary set; the primary elements
/// that rows of such maps connect (transitively) end on one rank, the rank
/// of the group's lowest global index.
pub fn force_parts(dom: &Domain, meta: &Metadata, pset: usize, part: &mut [i32]) -> Result<()> {
    let forced: Vec<usize> = (0..dom.maps().len())
        .filter(|&m| dom.maps()[m].force_part)
        .collect();
    if forced.is_empty() {
        return Ok(());
    }
    let mut root: Vec<usize> = (0..part.len()).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    for m in forced {
        let map = &dom.maps()[m];
        if map.to.0 != pset {
            return Err(Op2Error::new(
                CALL,
                obj("map", &map.name),
                format!(
                    "op_force_part: the map points into set \"{}\", not into the primary set \"{}\" of the partition",
                    dom.sets()[map.to.0].name,
                    dom.sets()[pset].name
                ),
            ));
        }
        for row in meta.map_values[m].chunks(map.dim.max(1)) {
            let first = row[0] as usize;
            for &e in &row[1..] {
                let (a, b) = (find(&mut root, first), find(&mut root, e as usize));
                // The lower index stays the root: the group follows it.
                root[a.max(b)] = a.min(b);
            }
        }
    }
    for i in 0..part.len() {
        let r = find(&mut root, i);
        part[i] = part[r];
    }
    Ok(())
}

/// What [`run`] leaves: per set its distribution, and the quality line.
pub struct Partitioned {
    pub sets: Vec<DistSet>,
    pub quality: Option<String>,
}

/// All phases: partition `dom` over the ranks of `c` (collective).
pub fn run(
    c: &dyn Collectives,
    dom: &mut Domain,
    primary: Primary,
    kway: Option<GraphPartitioner>,
    report: Option<MapId>,
) -> Result<Partitioned> {
    let (rank, nranks) = (c.rank(), c.size());
    let meta = gather_metadata(c, dom)?;
    let (pset, mut ppart, graph) = primary_keeping_graph(c, dom, &meta, primary, kway, report)?;
    force_parts(dom, &meta, pset, &mut ppart)?;
    let parts = derive_sets(dom, &meta, pset, &ppart, nranks)?;
    let quality = report.and_then(|m| quality(dom, &meta, &parts, m, nranks, graph.as_ref()));
    drop(graph);
    let mesh = build_local(dom, &meta, &parts, rank, nranks)?;
    let migrations = migrate(c, dom, &meta, &parts, &mesh)?;
    let locals = install(dom, mesh);
    Ok(Partitioned {
        sets: dist_sets(locals, meta.blocks, migrations),
        quality,
    })
}

/// Each set's distribution for the rest of the run, from its local set,
/// declared blocks and migration (phase 6's output).
pub fn dist_sets(
    locals: Vec<LocalSet>,
    blocks: Vec<BlockDist>,
    migrations: Vec<Migration>,
) -> Vec<DistSet> {
    locals
        .into_iter()
        .zip(blocks)
        .zip(migrations)
        .map(|((local, block), m)| {
            let mut ds = DistSet {
                exchange: Arc::default(),
                sent: Vec::new(),
                block,
                local,
                back: m.inverse(),
            };
            ds.set_exchange();
            ds
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::sim::run_ranks;

    /// Three ranks in a ring: rank r owns rows 0..4 and holds halo rows
    /// 4..8, rows 4..6 from rank r+1 and 6..8 from rank r+2 (its owned rows
    /// 0,1 and 2,3 respectively). A rank that needs only halo rows {5, 6}
    /// gets row 1 of rank r+1 and row 2 of rank r+2, and the data that
    /// arrives is exactly theirs.
    #[test]
    fn restricted_lists_refresh_only_the_rows_asked_for() {
        let got = run_ranks(3, |c| {
            let r = c.rank();
            let (next, after) = ((r + 1) % 3, (r + 2) % 3);
            let (prev, before) = ((r + 2) % 3, (r + 1) % 3);
            // what I send: rank `prev` (for whom I am r+1) takes my rows 0,1;
            // rank `before` (for whom I am r+2) takes my rows 2,3
            let mut send = vec![(prev, vec![0, 1]), (before, vec![2, 3])];
            send.sort();
            let mut recv = vec![(next, vec![4, 5]), (after, vec![6, 7])];
            recv.sort();
            let full = ExchangeLists { send, recv };
            let part = full.restricted(&c, |row| row == 5 || row == 6).unwrap();
            let mut data: Vec<u8> = (0..8).map(|i| (10 * r + i) as u8).collect();
            data[4..].fill(0);
            part.exchange(&c, &mut data, 1, 7).unwrap();
            (part, data)
        });
        for (r, (part, data)) in got.iter().enumerate() {
            let (next, after) = ((r + 1) % 3, (r + 2) % 3);
            assert_eq!(part.send_bytes(1), 2, "rank {r}: {part:?}");
            let mut want_recv = vec![(next, vec![5]), (after, vec![6])];
            want_recv.sort();
            assert_eq!(part.recv, want_recv);
            // row 5 is row 1 of rank r+1, row 6 row 2 of rank r+2; 4 and 7 untouched
            let (n, a) = ((10 * next) as u8, (10 * after) as u8);
            assert_eq!(&data[3..8], &[(10 * r + 3) as u8, 0, n + 1, a + 2, 0]);
        }
    }
}
