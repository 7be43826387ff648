//! Distributed execution (`libop2_mpi`): OP2's MPI semantics (abi.md §4) on
//! top of `op2_core::partition` / `op2_core::halo` (what goes where) and
//! `op2_backend_mpi` (moving the bytes).
//!
//! Before `op_partition` every rank holds its declared block of each set, and
//! maps hold global indices. `op_partition` gathers the (replicated) mesh
//! metadata, partitions the primary set, derives the other sets' partitions,
//! builds each rank's local numbering (core, owned boundary, exec halo,
//! non-exec halo) and migrates every dat. Loops then exchange dirty halos
//! before they run (blocking exchanges in this version), execute the exec halo
//! redundantly when they write through a map, and combine global reductions
//! with MPI_Allreduce.

use crate::globals::{self, OP_is_partitioned};
use crate::state::State;
use op2_backend_mpi::Comm;
use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::halo::{migration, HaloPlan, LocalSet, Migration};
use op2_core::invoke::{ArgView, ViewKind};
use op2_core::partition::{self, BlockDist, GlobalMap, GlobalSet};
use op2_core::{AlignedBuf, DatId, Op2Error, Result, ScalarType, SetId};
use std::os::raw::c_int;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The library communicator's raw handle, for MPI_Abort from `fatal`.
static ABORT_COMM: AtomicUsize = AtomicUsize::new(0);

/// Per-set distribution after op_partition.
pub(crate) struct DistSet {
    /// The declared (initial block) distribution.
    block: BlockDist,
    /// This rank's local numbering and halo lists.
    local: LocalSet,
    /// Owned rows back to the declared block (op_fetch_data).
    back: Migration,
}

/// Distribution state of the library.
pub(crate) struct Dist {
    pub(crate) comm: Comm,
    /// Per set (by id), present once partitioned.
    sets: Vec<Option<DistSet>>,
    partitioned: bool,
    /// Halo exchanges in flight, by dat.
    pending: Vec<(DatId, op2_backend_mpi::PendingExchange)>,
    /// Halo bytes this rank has sent, and the number of dat exchanges.
    halo_bytes: u64,
    halo_exchanges: u64,
}

impl Dist {
    pub(crate) fn new(comm: Comm) -> Dist {
        ABORT_COMM.store(comm.raw_handle(), Ordering::Relaxed);
        crate::printf::set_enabled(comm.rank() == 0);
        Dist {
            comm,
            sets: Vec::new(),
            partitioned: false,
            pending: Vec::new(),
            halo_bytes: 0,
            halo_exchanges: 0,
        }
    }
}

/// Stop every rank after a fatal error (no hang waiting for the others).
pub(crate) fn abort_all(code: i32) {
    let raw = ABORT_COMM.load(Ordering::Relaxed);
    if raw != 0 && op2_backend_mpi::initialized() {
        op2_backend_mpi::abort_raw(raw, code);
    }
}

fn dist(st: &mut State) -> &mut Dist {
    st.dist
        .as_mut()
        .expect("libop2_mpi state has a communicator after op_init")
}

/// Elements to execute and owned elements of a loop over `set`; starts
/// exchanging the halos of dats the loop reads that are out of date (they
/// complete in [`wait_all`], which the executor calls after the core elements).
pub(crate) fn before_loop(st: &mut State, set: SetId, args: &[ArgSpec]) -> Result<(usize, usize)> {
    wait_all(st);
    if !dist(st).partitioned && dist(st).comm.size() > 1 {
        if st.dom.maps().is_empty() && args.iter().all(|a| !a.is_indirect()) {
            // Nothing indirect anywhere: the declared blocks are a valid distribution.
            let n = st.dom.set(set).size;
            return Ok((n, n));
        }
        crate::printf::cout(
            "\n op_par_loop before op_partition: keeping the declared block distribution\n",
        );
        partition_impl(st, Primary::Block)?;
    }
    let s = st.dom.set(set);
    let (size, exec) = (s.size, s.exec_size);
    let exec_flag = args
        .iter()
        .any(|a| a.is_indirect() && a.access != Access::Read);
    let mut done: Vec<DatId> = Vec::new();
    for a in args.iter().filter(|a| a.opt) {
        if let ArgKind::Dat { dat, map, .. } = a.kind {
            let reads = matches!(a.access, Access::Read | Access::Rw);
            if reads
                && (map.is_some() || exec_flag)
                && !done.contains(&dat)
                && st.dat_c(dat).dirtybit == 1
            {
                start_exchange(st, dat);
                st.dat_c(dat).dirtybit = 0;
                done.push(dat);
            }
        }
    }
    Ok((size + if exec_flag { exec } else { 0 }, size))
}

/// Are halo exchanges in flight?
pub(crate) fn has_pending(st: &State) -> bool {
    st.dist.as_ref().is_some_and(|d| !d.pending.is_empty())
}

/// Complete every halo exchange in flight.
pub(crate) fn wait_all(st: &mut State) {
    let pending = std::mem::take(&mut dist(st).pending);
    for (dat, p) in pending {
        let comm = &st.dist.as_ref().expect("dist").comm as *const Comm;
        // SAFETY: the communicator lives in st.dist, untouched while the dat
        // buffer is borrowed here.
        let comm = unsafe { &*comm };
        comm.finish_exchange(p, st.dom.dat_mut(dat).data.as_mut_slice());
    }
}

/// Start sending a dat's owned rows that other ranks hold as halo.
fn start_exchange(st: &mut State, dat: DatId) {
    let s = st.dom.dat(dat).set;
    let eb = st.dom.dat(dat).elem_bytes;
    let d = st.dist.as_ref().expect("dist");
    let Some(Some(ds)) = d.sets.get(s.0).map(|x| x.as_ref()) else {
        return;
    };
    let l = &ds.local;
    let p = d.comm.start_exchange(
        [&l.export_exec, &l.export_nonexec],
        [&l.import_exec, &l.import_nonexec],
        st.dom.dat(dat).data.as_slice(),
        eb,
        dat.0 as i32,
    );
    let d = dist(st);
    d.halo_bytes += p.bytes_sent as u64;
    d.halo_exchanges += 1;
    d.pending.push((dat, p));
}

/// After a loop: written dats have stale halos; reductions go across ranks.
pub(crate) fn after_loop(st: &mut State, args: &[ArgSpec], views: &[ArgView]) -> Result<()> {
    wait_all(st);
    for (a, v) in args.iter().zip(views) {
        if !a.opt {
            continue;
        }
        match a.kind {
            ArgKind::Dat { dat, .. } if a.access != Access::Read => st.dat_c(dat).dirtybit = 1,
            ArgKind::Gbl if v.kind == ViewKind::Global && a.access.is_reduction() => {
                let t = ScalarType::parse(&a.type_name);
                // SAFETY: the view points at the user's global of elem_bytes bytes.
                let data =
                    unsafe { std::slice::from_raw_parts_mut(v.data, v.elem_bytes.max(0) as usize) };
                dist(st).comm.allreduce(t, a.access, data);
            }
            _ => {}
        }
    }
    Ok(())
}

/// How the primary set is partitioned.
enum Primary {
    /// Keep the declared blocks.
    Block,
    /// Recursive coordinate bisection / principal-axis bisection of a dat's coordinates.
    Geom { coords: DatId, inertial: bool },
    /// Random balanced assignment of a set.
    Random { set: SetId },
    /// Target ranks given by an int dat.
    External { parts: DatId },
    /// Graph k-way partition (METIS) of a map's to-set, adjacent through the map.
    Kway { map: op2_core::MapId },
}

/// `op_partition(lib, routine, set, map, coords)`.
pub(crate) fn partition(
    st: &mut State,
    lib: &str,
    routine: &str,
    set: Option<SetId>,
    map: Option<op2_core::MapId>,
    coords: Option<DatId>,
) -> Result<()> {
    let root = dist(st).comm.rank() == 0;
    let note = |m: String| {
        if root {
            crate::printf::cout(&m);
        }
    };
    let known_lib = matches!(
        lib,
        "PARMETIS" | "PTSCOTCH" | "KAHIP" | "RANDOM" | "EXTERNAL" | "INERTIAL" | "GEOM"
    );
    let primary = match (lib, routine) {
        (_, "GEOM") | ("GEOM", _) | (_, "INERTIAL") | ("INERTIAL", _) => match coords {
            Some(c) => Primary::Geom {
                coords: c,
                inertial: routine == "INERTIAL" || lib == "INERTIAL",
            },
            None => {
                note(format!("\n op_partition: {lib}/{routine} needs coordinates (a dat); keeping the block distribution\n"));
                Primary::Block
            }
        },
        ("RANDOM", _) | (_, "RANDOM") => match set {
            Some(s) => Primary::Random { set: s },
            None => {
                note(
                    "\n op_partition: RANDOM needs a set; keeping the block distribution\n".into(),
                );
                Primary::Block
            }
        },
        ("EXTERNAL", _) | (_, "EXTERNAL") => match coords {
            Some(c) if st.dom.dat(c).scalar == ScalarType::I32 && st.dom.dat(c).dim == 1 => {
                Primary::External { parts: c }
            }
            _ => {
                note("\n op_partition: EXTERNAL needs an int dat of dim 1 holding ranks; keeping the block distribution\n".into());
                Primary::Block
            }
        },
        ("PARMETIS" | "PTSCOTCH" | "KAHIP", "KWAY" | "GEOMKWAY") => match map {
            // All three names get the same graph k-way partitioner (METIS,
            // built in); the graph is the map's to-set, adjacent through the map.
            Some(m) => Primary::Kway { map: m },
            None => {
                note(format!("\n op_partition: {lib}/{routine} needs a map; keeping the block distribution\n"));
                Primary::Block
            }
        },
        _ => {
            note(format!(
                "\n op_partition: unknown partitioner {lib}/{routine}{}; keeping the block distribution\n",
                if known_lib { "" } else { " (library not known)" }
            ));
            Primary::Block
        }
    };
    partition_with_report(st, primary, map)
}

fn partition_impl(st: &mut State, primary: Primary) -> Result<()> {
    partition_with_report(st, primary, None)
}

/// Partition; with `quality = Some(map)` (and OP_diags > 0) report the edge
/// cut and imbalance of the partition of the map's to-set, and the time.
fn partition_with_report(
    st: &mut State,
    primary: Primary,
    quality: Option<op2_core::MapId>,
) -> Result<()> {
    let t0 = std::time::Instant::now();
    let call = "op_partition";
    if dist(st).partitioned {
        return Err(Op2Error::new(call, "", "op_partition was already called"));
    }
    let (rank, nranks) = (dist(st).comm.rank(), dist(st).comm.size());
    let nsets = st.dom.sets().len();
    // Global sizes and declared blocks.
    let blocks: Vec<BlockDist> = (0..nsets)
        .map(|s| {
            let n = st.dom.set(SetId(s)).size as u64;
            let sizes: Vec<usize> = dist(st)
                .comm
                .allgather_u64(n)
                .into_iter()
                .map(|x| x as usize)
                .collect();
            BlockDist::from_sizes(&sizes)
        })
        .collect();
    let gsets: Vec<GlobalSet> = blocks
        .iter()
        .map(|b| GlobalSet {
            size: b.global_size(),
        })
        .collect();
    // Global maps (replicated).
    let nmaps = st.dom.maps().len();
    let mut gvalues: Vec<Vec<i32>> = Vec::with_capacity(nmaps);
    for m in 0..nmaps {
        let local = st.dom.maps()[m].values.clone();
        gvalues.push(dist(st).comm.allgatherv(&local[..]).0);
    }
    let gmaps: Vec<GlobalMap<'_>> = st
        .dom
        .maps()
        .iter()
        .zip(&gvalues)
        .map(|(m, v)| GlobalMap {
            from: m.from.0,
            to: m.to.0,
            dim: m.dim,
            values: v,
        })
        .collect();
    let sizes: Vec<usize> = gsets.iter().map(|s| s.size).collect();
    for (i, gm) in gmaps.iter().enumerate() {
        if let Err(e) = gm.validate(&sizes, i, call) {
            let m = &st.dom.maps()[i];
            return Err(Op2Error::new(
                call,
                obj("map", &m.name),
                format!("global map entries: {}", e.msg),
            ));
        }
    }
    // The primary set's partition.
    let (pset, ppart): (usize, Vec<i32>) = match primary {
        Primary::Block => (0, blocks.first().map(|b| b.parts()).unwrap_or_default()),
        Primary::Random { set } => (
            set.0,
            partition::random(gsets[set.0].size, nranks, 0x6f70_3272),
        ),
        Primary::Geom { coords, inertial } => {
            let d = st.dom.dat(coords);
            if d.scalar != ScalarType::F64 {
                return Err(Op2Error::new(
                    call,
                    obj("dat", &d.name),
                    "coordinates must be a double dat",
                ));
            }
            let (s, dim, n) = (d.set, d.dim, st.dom.set(d.set).size);
            let local: Vec<f64> = d.data.as_slice()[..n * d.elem_bytes]
                .chunks_exact(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                .collect();
            let all = dist(st).comm.allgatherv(&local[..]).0;
            let p = if inertial {
                partition::inertial(&all, dim, nranks)
            } else {
                partition::rcb(&all, dim, nranks)
            };
            (s.0, p)
        }
        Primary::Kway { map } => {
            let to = st.dom.map(map).to.0;
            let csr = partition::adjacency(&gmaps[map.0], gsets[to].size)?;
            let p = op2_backend_mpi::kway(&csr.xadj, &csr.adjncy, nranks).map_err(|e| {
                Op2Error::new(
                    call,
                    obj("map", &st.dom.map(map).name),
                    format!("METIS k-way partitioning failed: {e}"),
                )
            })?;
            (to, p)
        }
        Primary::External { parts } => {
            let d = st.dom.dat(parts);
            let (s, n) = (d.set, st.dom.set(d.set).size);
            let local: Vec<i32> = d.data.as_slice()[..n * 4]
                .chunks_exact(4)
                .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
                .collect();
            if let Some(bad) = local.iter().find(|&&r| r < 0 || r as usize >= nranks) {
                return Err(Op2Error::new(
                    call,
                    obj("dat", &d.name),
                    format!("rank {bad} is outside [0, {nranks})"),
                ));
            }
            (s.0, dist(st).comm.allgatherv(&local[..]).0)
        }
    };
    let parts: Vec<Vec<i32>> = if nsets == 0 {
        Vec::new()
    } else {
        let derived = partition::derive(&gsets, &gmaps, pset, &ppart, nranks)?;
        // Sets no map reaches keep their declared blocks.
        derived
            .parts
            .into_iter()
            .zip(&derived.rules)
            .zip(&blocks)
            .map(|((p, rule), b)| {
                if matches!(rule, partition::DeriveRule::Unreached) {
                    b.parts()
                } else {
                    p
                }
            })
            .collect()
    };
    if let (Some(m), true) = (quality, globals::diags() > 0) {
        let to = st.dom.map(m).to.0;
        if let Ok(g) = partition::adjacency(&gmaps[m.0], gsets[to].size) {
            let cut = partition::edge_cut(&g.xadj, &g.adjncy, &parts[to]);
            let imb = partition::imbalance(&parts[to], nranks);
            crate::printf::cout(&format!(
                "\n op_partition: set \"{}\": {} parts, edge cut {} (graph through map \"{}\"), imbalance {:.3}, partitioning time {:.4} s\n",
                st.dom.set(SetId(to)).name,
                nranks,
                cut,
                st.dom.map(m).name,
                imb,
                t0.elapsed().as_secs_f64()
            ));
        }
    }
    let plan = HaloPlan::new(&parts, &gmaps, nranks)?;
    let mesh = plan.local(rank);
    drop(plan);
    drop(gmaps);
    // Move every dat to its owners and fill its halos.
    let migrations: Vec<Migration> = (0..nsets)
        .map(|s| migration(&blocks[s], &parts[s], rank, &mesh.sets[s]))
        .collect();
    let dats: Vec<DatId> = st.dom.dats().map(|(id, _)| id).collect();
    for id in dats {
        let (s, eb) = (st.dom.dat(id).set.0, st.dom.dat(id).elem_bytes);
        let mig = &migrations[s];
        let old = st.dom.dat(id).data.as_slice();
        let mut send = vec![Vec::new(); nranks];
        for (r, rows) in mig.send.neighbours() {
            for &i in rows {
                send[r].extend_from_slice(&old[i * eb..(i + 1) * eb]);
            }
        }
        let recv = dist(st).comm.alltoallv_bytes(&send);
        let ls = &mesh.sets[s];
        let mut buf = AlignedBuf::zeroed(ls.total_size() * eb);
        {
            let b = buf.as_mut_slice();
            for (r, rows) in mig.recv.neighbours() {
                for (k, &l) in rows.iter().enumerate() {
                    b[l * eb..(l + 1) * eb].copy_from_slice(&recv[r][k * eb..(k + 1) * eb]);
                }
            }
            let c = &dist(st).comm;
            c.exchange(&ls.export_exec, &ls.import_exec, b, eb);
            c.exchange(&ls.export_nonexec, &ls.import_nonexec, b, eb);
        }
        st.dom.dat_mut(id).data = buf;
        let p = st.dom.dat_mut(id).data.as_mut_ptr();
        let c = st.dat_c(id);
        c.data = p as *mut std::os::raw::c_char;
        c.dirtybit = 0;
    }
    // Install the local sets and maps.
    for (s, ls) in mesh.sets.iter().enumerate() {
        let set = st.dom.set_mut(SetId(s));
        set.size = ls.size;
        set.core_size = ls.core_size;
        set.exec_size = ls.exec_size;
        set.nonexec_size = ls.nonexec_size;
        st.refresh_set(SetId(s));
    }
    for (m, lm) in mesh.maps.into_iter().enumerate() {
        st.dom.map_mut(op2_core::MapId(m)).values = lm.values;
        st.refresh_map(op2_core::MapId(m));
    }
    let d = dist(st);
    d.sets = mesh
        .sets
        .into_iter()
        .zip(blocks)
        .zip(migrations)
        .map(|((local, block), m)| {
            Some(DistSet {
                block,
                local,
                back: m.inverse(),
            })
        })
        .collect();
    d.partitioned = true;
    st.loop_plans.clear();
    // SAFETY: plain int global, API thread.
    unsafe { globals::set(addr_of_mut!(OP_is_partitioned), 1 as c_int) };
    Ok(())
}

/// This rank's declared block of a dat, in the original order (op_fetch_data).
pub(crate) fn fetch_block(st: &mut State, id: DatId) -> Vec<u8> {
    let d = st.dom.dat(id);
    let (s, eb) = (d.set.0, d.elem_bytes);
    let n = st.dom.set(d.set).size;
    let Some(Some(ds)) = st
        .dist
        .as_ref()
        .map(|x| x.sets.get(s).and_then(|y| y.as_ref()))
    else {
        return d.data.as_slice()[..n * eb].to_vec();
    };
    let rank = st.dist.as_ref().unwrap().comm.rank();
    let nranks = st.dist.as_ref().unwrap().comm.size();
    let bn = ds.block.range(rank).len();
    let data = d.data.as_slice();
    let mut send = vec![Vec::new(); nranks];
    for (r, rows) in ds.back.send.neighbours() {
        for &i in rows {
            send[r].extend_from_slice(&data[i * eb..(i + 1) * eb]);
        }
    }
    let back_recv = ds.back.recv.clone();
    let recv = st.dist.as_ref().unwrap().comm.alltoallv_bytes(&send);
    let mut out = vec![0u8; bn * eb];
    for (r, rows) in back_recv.neighbours() {
        for (k, &i) in rows.iter().enumerate() {
            out[i * eb..(i + 1) * eb].copy_from_slice(&recv[r][k * eb..(k + 1) * eb]);
        }
    }
    out
}

/// A dat's whole global array in the original order, on every rank.
pub(crate) fn gather_global(st: &mut State, id: DatId) -> Vec<u8> {
    let mine = fetch_block(st, id);
    dist(st).comm.allgatherv(&mine[..]).0
}

/// Global number of owned elements of a set, and this rank's offset.
pub(crate) fn global_size(st: &mut State, set: SetId) -> (usize, usize) {
    let n = st.dom.set(set).size as u64;
    let (tot, off) = dist(st).comm.sum_and_offset(n);
    (tot as usize, off as usize)
}

pub(crate) fn rank_and_size(st: &mut State) -> (usize, usize) {
    let c = &dist(st).comm;
    (c.rank(), c.size())
}

pub(crate) fn barrier(st: &mut State) {
    dist(st).comm.barrier();
}

pub(crate) fn allreduce(st: &mut State, t: ScalarType, acc: Access, data: &mut [u8]) {
    dist(st).comm.allreduce(t, acc, data);
}

/// Under MPI the timing table shows each kernel's loop and MPI time as mean
/// (std) over ranks; then, as OP2's `mpi_timing_output`, every rank's kernel
/// times and the max/average over ranks. Returns the extra text (root only).
pub(crate) fn timing_across_ranks(
    st: &mut State,
    rows: &mut [op2_core::timing::TimingRow],
) -> String {
    let (hb, hx) = (dist(st).halo_bytes, dist(st).halo_exchanges);
    let comm = &dist(st).comm;
    let halo: Vec<u64> = comm.allgatherv(&[hb, hx][..]).0;
    let local: Vec<f64> = rows
        .iter()
        .flat_map(|r| [r.time, r.mpi_time, r.count as f64])
        .collect();
    let (all, counts) = comm.allgatherv(&local[..]);
    let nranks = comm.size();
    // Every rank runs the same loops, so the rows line up; if not, keep local figures.
    if counts.iter().any(|&c| c != local.len()) {
        return String::new();
    }
    let at = |r: usize, k: usize, f: usize| all[r * local.len() + 3 * k + f];
    let moments = |v: Vec<f64>| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let m2 = v.iter().map(|x| x * x).sum::<f64>() / n;
        (m, (m2 - m * m).max(0.0).sqrt())
    };
    for (k, row) in rows.iter_mut().enumerate() {
        (row.time, row.time_std) = moments((0..nranks).map(|r| at(r, k, 0)).collect());
        (row.mpi_time, row.mpi_std) = moments((0..nranks).map(|r| at(r, k, 1)).collect());
    }
    let bar = "_".repeat(51);
    let mut s = String::new();
    for r in 0..nranks {
        s.push_str(&format!("\n{bar}\nPerformance information on rank {r}\nKernel        Count  total time(sec)  Avg time(sec)  \n"));
        for (k, row) in rows.iter().enumerate() {
            let (t, c) = (at(r, k, 0), at(r, k, 2));
            s.push_str(&format!(
                "{:<10}  {:6}       {:10.4}      {:10.4}    \n",
                row.name,
                c as i64,
                t,
                if c > 0.0 { t / c } else { 0.0 }
            ));
        }
        s.push_str(&format!(
            "Halo exchanges: {} bytes sent in {} dat exchanges\n{bar}\n",
            halo[2 * r],
            halo[2 * r + 1]
        ));
    }
    s.push_str("\nKernel        Count   Max time(sec)   Avg time(sec)  \n");
    for (k, row) in rows.iter().enumerate() {
        let max = (0..nranks).map(|r| at(r, k, 0)).fold(0.0, f64::max);
        s.push_str(&format!(
            "{:<10}  {:6}       {:10.4}      {:10.4}    \n",
            row.name, row.count, max, row.time
        ));
    }
    s
}
