//! Partitioning and halo construction on many simulated ranks (threads of
//! one process): every rank's halo lists agree with its neighbours' (by
//! global id, in order), owned elements tile every set, and a halo refresh
//! sends one message per neighbour carrying exactly the export lists: the
//! traffic of a loop grows with the halo, not with the mesh.
//! `cargo run --release -p op2-core --example dist_scale` records the same
//! figures (and partitioning time) for larger meshes and rank counts.

use op2_core::dist::sim::{run_ranks, SimComm, SimGrid};
use op2_core::dist::{scalable, Collectives, Primary};
use op2_core::halo::{HaloList, LocalSet};

struct RankResult {
    locals: Vec<LocalSet>,
    /// Messages and bytes sent by one refresh of an 8-byte dat on every set.
    refresh: (u64, u64),
    /// Bytes this rank received while partitioning.
    received: u64,
}

fn partition(g: &SimGrid, c: &SimComm) -> RankResult {
    let (mut dom, x) = g.declare(c.rank(), c.size()).unwrap();
    let primary = Primary::Geom {
        coords: x,
        inertial: false,
    };
    let p = scalable::run(c, &mut dom, primary, None, None).unwrap();
    let received = c.received();
    let before = c.sent();
    for (s, ds) in p.sets.iter().enumerate() {
        let mut data = vec![0u8; ds.local.total_size() * 8];
        ds.exchange
            .exchange(c, &mut data, 8, 100 + s as i32)
            .unwrap();
    }
    let after = c.sent();
    RankResult {
        locals: p.sets.into_iter().map(|d| d.local).collect(),
        refresh: (after.0 - before.0, after.1 - before.1),
        received,
    }
}

fn globals(l: &LocalSet, list: &[usize]) -> Vec<usize> {
    list.iter().map(|&i| l.global_ids[i]).collect()
}

/// `imports` of rank r from q name, in order, the elements `exports` of q to r name.
fn agree(
    out: &[RankResult],
    set: usize,
    imp: fn(&LocalSet) -> &HaloList,
    exp: fn(&LocalSet) -> &HaloList,
) {
    for (r, rr) in out.iter().enumerate() {
        let lr = &rr.locals[set];
        for (q, list) in imp(lr).neighbours() {
            let lq = &out[q].locals[set];
            assert_eq!(
                globals(lr, list),
                globals(lq, exp(lq).with(r)),
                "set {set}: rank {r} imports from {q} what {q} does not export to it"
            );
            let owned_q: std::collections::HashSet<usize> = lq.owned().iter().copied().collect();
            assert!(globals(lr, list).iter().all(|g| owned_q.contains(g)));
        }
        for (q, list) in exp(lr).neighbours() {
            let lq = &out[q].locals[set];
            assert_eq!(imp(lq).with(r).len(), list.len(), "set {set}: {r} -> {q}");
        }
    }
}

/// No rank receives the mesh while partitioning (the replicated phases made
/// every rank receive all of it: 0.95-1.0 of the maps and coordinates): at
/// most `share` of it.
fn check_received(g: &SimGrid, out: &[RankResult], share: f64) {
    let mesh =
        4 * (g.cell_nodes.len() + g.edge_nodes.len() + g.edge_cells.len()) + 8 * g.coords.len();
    for (r, rr) in out.iter().enumerate() {
        assert!(
            (rr.received as f64) < share * mesh as f64,
            "rank {r} of {}: received {} bytes while partitioning a mesh of {mesh}",
            out.len(),
            rr.received
        );
    }
}

fn check(g: &SimGrid, nranks: usize) {
    let out = run_ranks(nranks, |c| partition(g, &c));
    // about 0.2 (16 ranks) and 0.5 (64: 300 cells a rank, where the O(ranks)
    // collectives of the bisection dominate), measured with the dist_scale
    // example on a grid of this size
    check_received(g, &out, if nranks <= 16 { 0.35 } else { 0.7 });
    let sizes = [g.nnodes, g.ncells, g.nedges()];
    for (s, &n) in sizes.iter().enumerate() {
        let mut owners = vec![0usize; n];
        for r in &out {
            for &e in r.locals[s].owned() {
                owners[e] += 1;
            }
        }
        assert!(
            owners.iter().all(|&k| k == 1),
            "{nranks} ranks: set {s} not tiled"
        );
        agree(&out, s, |l| &l.import_exec, |l| &l.export_exec);
        agree(&out, s, |l| &l.import_nonexec, |l| &l.export_nonexec);
    }
    for (r, rr) in out.iter().enumerate() {
        // one message per (set, neighbour it exports to), bytes = export lists
        let mut msgs = 0;
        let mut bytes = 0;
        for l in &rr.locals {
            let mut ranks: Vec<usize> = l.export_exec.ranks.clone();
            ranks.extend(&l.export_nonexec.ranks);
            ranks.sort_unstable();
            ranks.dedup();
            msgs += ranks.len() as u64;
            bytes += 8 * (l.export_exec.len() + l.export_nonexec.len()) as u64;
        }
        assert_eq!(rr.refresh, (msgs, bytes), "rank {r} of {nranks}");
        // the halo is the partition boundary: no more than the owned elements
        let cells = &rr.locals[1];
        let halo = cells.exec_size + cells.nonexec_size;
        assert!(
            halo <= cells.size,
            "rank {r} of {nranks}: {halo} halo cells for {} owned",
            cells.size
        );
    }
}

#[test]
fn halo_lists_agree_on_16_and_64_ranks() {
    let g = SimGrid::new(160, 120);
    check(&g, 16);
    check(&g, 64);
}
