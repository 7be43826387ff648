//! The distributed logic on simulated ranks (threads of one process): the
//! partition driver's phases one by one, then whole loops through
//! `Distributed` (halo exchanges, exec-halo execution, reductions, fetch in
//! original order), compared with the same loops on one undistributed mesh.

use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::dist::driver;
use op2_core::dist::sim::{run_ranks, SimComm, SimGrid};
// Distributed's methods, called on the concrete type, come from the parts of
// Distribution.
use op2_core::dist::{
    Collectives, Distributed, Distribution, Gathering, GlobalArg, LoopHooks, PartitionRequest,
    Partitioning, Primary,
};
use op2_core::domain::MapCheck;
use op2_core::partition::BlockDist;
use op2_core::{DatId, Domain, MapId, ScalarType, SetId};

type Grid = SimGrid;

fn grid(nx: usize, ny: usize) -> Grid {
    SimGrid::new(nx, ny)
}

/// The handles of one rank's declared mesh.
struct Mesh {
    dom: Domain,
    nodes: SetId,
    cells: SetId,
    edges: SetId,
    cell_nodes: MapId,
    edge_nodes: MapId,
    edge_cells: MapId,
    x: DatId,
    q: DatId,
    acc: DatId,
    val: DatId,
}

fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain numbers viewed as their bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
        .to_vec()
}

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// Rank `rank`'s declared block of every set (OP2's block rule), maps in
/// global indices, dats holding values derived from global ids.
fn declare(g: &Grid, rank: usize, nranks: usize) -> Mesh {
    let mut dom = Domain::new();
    let bn = BlockDist::standard(g.nnodes, nranks);
    let bc = BlockDist::standard(g.ncells, nranks);
    let be = BlockDist::standard(g.nedges(), nranks);
    let (rn, rc, re) = (bn.range(rank), bc.range(rank), be.range(rank));
    let nodes = dom.decl_set(rn.len() as i64, "nodes").unwrap();
    let cells = dom.decl_set(rc.len() as i64, "cells").unwrap();
    let edges = dom.decl_set(re.len() as i64, "edges").unwrap();
    let d = MapCheck::Deferred;
    let cell_nodes = dom
        .decl_map(
            cells,
            nodes,
            4,
            &g.cell_nodes[rc.start * 4..rc.end * 4],
            0,
            "cell_nodes",
            d,
        )
        .unwrap();
    let edge_nodes = dom
        .decl_map(
            edges,
            nodes,
            2,
            &g.edge_nodes[re.start * 2..re.end * 2],
            0,
            "edge_nodes",
            d,
        )
        .unwrap();
    let edge_cells = dom
        .decl_map(
            edges,
            cells,
            2,
            &g.edge_cells[re.start * 2..re.end * 2],
            0,
            "edge_cells",
            d,
        )
        .unwrap();
    let xs = bytes(&g.coords[rn.start * 2..rn.end * 2]);
    let x = dom
        .decl_dat("t", nodes, 2, "double", 8, Some(&xs), "x", false)
        .unwrap();
    let qv: Vec<f64> = rc.clone().map(|c| (c % 17) as f64 + 1.0).collect();
    let q = dom
        .decl_dat("t", cells, 1, "double", 8, Some(&bytes(&qv)), "q", false)
        .unwrap();
    let acc = dom
        .decl_dat("t", nodes, 1, "double", 8, None, "acc", false)
        .unwrap();
    let val = dom
        .decl_dat("t", cells, 1, "double", 8, None, "val", false)
        .unwrap();
    Mesh {
        dom,
        nodes,
        cells,
        edges,
        cell_nodes,
        edge_nodes,
        edge_cells,
        x,
        q,
        acc,
        val,
    }
}

#[test]
fn driver_phases_on_one_to_four_ranks() {
    let g = grid(13, 9);
    for nranks in 1..=4 {
        let out = run_ranks(nranks, |c: SimComm| {
            let mut m = declare(&g, c.rank(), nranks);
            // Phase 1: every rank sees the same global metadata.
            let meta = driver::gather_metadata(&c, &m.dom).unwrap();
            assert_eq!(meta.sizes(), vec![g.nnodes, g.ncells, g.nedges()]);
            assert_eq!(meta.map_values[0], g.cell_nodes);
            // Phase 2: the same geometric partition everywhere.
            let primary = Primary::Geom {
                coords: m.x,
                inertial: false,
            };
            let (pset, ppart) =
                driver::primary_partition(&c, &m.dom, &meta, primary, None).unwrap();
            assert_eq!(pset, m.nodes.0);
            // Phase 3: the others through the maps.
            let parts = driver::derive_sets(&m.dom, &meta, pset, &ppart, nranks).unwrap();
            assert_eq!(parts.len(), 3);
            // Phases 4-6.
            let mesh = driver::build_local(&m.dom, &meta, &parts, c.rank(), nranks).unwrap();
            driver::migrate(&c, &mut m.dom, &meta, &parts, &mesh).unwrap();
            let locals = driver::install(&mut m.dom, mesh);
            check_local_mesh(&g, &m, &locals, &meta);
            (
                ppart,
                parts,
                locals
                    .iter()
                    .map(|l| l.owned().to_vec())
                    .collect::<Vec<_>>(),
            )
        });
        // Every rank computed the same partitions; owned elements tile each set.
        for (ppart, parts, _) in &out[1..] {
            assert_eq!(ppart, &out[0].0);
            assert_eq!(parts, &out[0].1);
        }
        for (s, size) in [g.nnodes, g.ncells, g.nedges()].into_iter().enumerate() {
            let mut all: Vec<usize> = out.iter().flat_map(|o| o.2[s].clone()).collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..size).collect::<Vec<_>>(),
                "{nranks} ranks, set {s}"
            );
            for (r, o) in out.iter().enumerate() {
                assert!(o.2[s].iter().all(|&e| out[0].1[s][e] as usize == r));
            }
        }
    }
}

/// After migration, every local row (owned or halo) of every dat holds its
/// global element's value, and local maps name the right local elements.
fn check_local_mesh(
    g: &Grid,
    m: &Mesh,
    locals: &[op2_core::halo::LocalSet],
    meta: &driver::Metadata,
) {
    let ln = &locals[m.nodes.0];
    let x = f64s(m.dom.dat(m.x).data.as_slice());
    for (l, &gid) in ln.global_ids.iter().enumerate() {
        assert_eq!(&x[2 * l..2 * l + 2], &g.coords[2 * gid..2 * gid + 2]);
    }
    let lc = &locals[m.cells.0];
    let q = f64s(m.dom.dat(m.q).data.as_slice());
    for (l, &gid) in lc.global_ids.iter().enumerate() {
        assert_eq!(q[l], (gid % 17) as f64 + 1.0);
    }
    for (map, from, to) in [
        (m.cell_nodes, m.cells, m.nodes),
        (m.edge_nodes, m.edges, m.nodes),
        (m.edge_cells, m.edges, m.cells),
    ] {
        let (lf, lt) = (&locals[from.0], &locals[to.0]);
        let dim = m.dom.map(map).dim;
        let local = &m.dom.map(map).values;
        assert_eq!(local.len(), (lf.size + lf.exec_size) * dim);
        for row in 0..lf.size + lf.exec_size {
            let gid = lf.global_ids[row];
            for k in 0..dim {
                let want = meta.map_values[map.0][gid * dim + k] as usize;
                assert_eq!(lt.global_ids[local[row * dim + k] as usize], want);
            }
        }
    }
}

fn dat(dat: DatId, map: Option<MapId>, idx: i32, access: Access) -> ArgSpec {
    ArgSpec {
        kind: ArgKind::Dat { dat, map, idx },
        dim: 1,
        type_name: "double".into(),
        access,
        opt: true,
    }
}

/// Run a loop body over `0..exec_size`: the core elements, then the halo
/// exchanges complete, then the rest (as the executors do).
fn run_loop(
    dist: &mut dyn Distribution,
    m: &mut Mesh,
    set: SetId,
    args: &[ArgSpec],
    mut body: impl FnMut(&mut Domain, usize, bool),
) {
    let ext = dist.before_loop(&mut m.dom, set, args).unwrap();
    for e in 0..ext.core {
        body(&mut m.dom, e, true);
    }
    if let Some(x) = ext.exchanges {
        x.finish().unwrap();
    }
    for e in ext.core..ext.exec_size {
        body(&mut m.dom, e, e < ext.owned);
    }
}

/// Two loops and a reduction, as airfoil-like code would run them: edges
/// increment their nodes (written through a map: the exec halo runs), then
/// cells read their nodes (stale halos are exchanged first) and sum q.
fn two_loops(dist: &mut dyn Distribution, m: &mut Mesh) -> (Vec<f64>, Vec<f64>, f64) {
    let (en, ec, cn) = (m.edge_nodes, m.edge_cells, m.cell_nodes);
    let (q, acc, val) = (m.q, m.acc, m.val);
    let args = [
        dat(q, Some(ec), 0, Access::Read),
        dat(q, Some(ec), 1, Access::Read),
        dat(acc, Some(en), 0, Access::Inc),
        dat(acc, Some(en), 1, Access::Inc),
    ];
    run_loop(dist, m, m.edges, &args, |dom, e, _| {
        let (c0, c1) = (
            dom.map(ec).values[2 * e] as usize,
            dom.map(ec).values[2 * e + 1] as usize,
        );
        let (n0, n1) = (
            dom.map(en).values[2 * e] as usize,
            dom.map(en).values[2 * e + 1] as usize,
        );
        let qv = f64s(dom.dat(q).data.as_slice());
        let w = qv[c0] * 2.0 + qv[c1];
        let a = dom.dat_mut(acc).data.as_mut_slice();
        let add = |a: &mut [u8], n: usize, v: f64| {
            let old = f64::from_ne_bytes(a[8 * n..8 * n + 8].try_into().unwrap());
            a[8 * n..8 * n + 8].copy_from_slice(&(old + v).to_ne_bytes());
        };
        add(a, n0, w);
        add(a, n1, -w / 2.0);
    });
    dist.after_loop(&mut m.dom, &args, &mut []).unwrap();
    let args = [
        dat(acc, Some(cn), -4, Access::Read),
        dat(val, None, -1, Access::Write),
        ArgSpec {
            kind: ArgKind::Gbl,
            dim: 1,
            type_name: "double".into(),
            access: Access::Inc,
            opt: true,
        },
    ];
    let mut sum = 0.0f64;
    run_loop(dist, m, m.cells, &args, |dom, c, owned| {
        let a = f64s(dom.dat(acc).data.as_slice());
        let v: f64 = (0..4)
            .map(|k| a[dom.map(cn).values[4 * c + k] as usize])
            .sum();
        dom.dat_mut(val).data.as_mut_slice()[8 * c..8 * c + 8].copy_from_slice(&v.to_ne_bytes());
        if owned {
            sum += v;
        }
    });
    let mut s = sum.to_ne_bytes();
    let mut globals = [GlobalArg {
        access: Access::Inc,
        scalar: ScalarType::F64,
        data: &mut s,
    }];
    dist.after_loop(&mut m.dom, &args, &mut globals).unwrap();
    let acc_all = f64s(&dist.gather_global(&m.dom, acc).unwrap());
    let val_all = f64s(&dist.gather_global(&m.dom, val).unwrap());
    (acc_all, val_all, f64::from_ne_bytes(s))
}

#[test]
fn distributed_loops_match_one_process_on_one_to_four_ranks() {
    let g = grid(21, 11);
    // The reference: the same loops on one rank, undistributed.
    let reference = run_ranks(1, |c| {
        let mut m = declare(&g, 0, 1);
        let mut d = Distributed::new(Box::new(c), None, None);
        two_loops(&mut d, &mut m)
    })
    .remove(0);
    assert!(reference.2 != 0.0);
    for nranks in 1..=4 {
        for (lib, routine) in [
            ("GEOM", "GEOM"),
            ("INERTIAL", "INERTIAL"),
            ("RANDOM", "RANDOM"),
            ("", ""),
        ] {
            let out = run_ranks(nranks, |c| {
                let mut m = declare(&g, c.rank(), nranks);
                let mut d = Distributed::new(Box::new(c), None, None);
                if !lib.is_empty() {
                    let req = PartitionRequest {
                        lib: lib.into(),
                        routine: routine.into(),
                        set: Some(m.cells),
                        map: None,
                        coords: Some(m.x),
                        report: false,
                    };
                    d.partition(&mut m.dom, &req).unwrap();
                }
                let r = two_loops(&mut d, &mut m);
                let (bytes, exchanges) = d.halo_traffic();
                assert!(
                    nranks == 1 || exchanges > 0 && bytes > 0,
                    "halos were exchanged"
                );
                r
            });
            for (rank, r) in out.iter().enumerate() {
                // Integer-valued sums: exact in any order.
                assert_eq!(r.0, reference.0, "acc: {nranks} ranks, {lib}, rank {rank}");
                assert_eq!(r.1, reference.1, "val: {nranks} ranks, {lib}, rank {rank}");
                assert_eq!(r.2, reference.2, "sum: {nranks} ranks, {lib}, rank {rank}");
            }
        }
    }
}

#[test]
fn fetch_returns_each_ranks_declared_block_in_order() {
    let g = grid(9, 7);
    let out = run_ranks(3, |c| {
        let mut m = declare(&g, c.rank(), 3);
        let before = m.dom.dat(m.x).data.as_slice()[..m.dom.set(m.nodes).size * 16].to_vec();
        let mut d = Distributed::new(Box::new(c), None, None);
        let req = PartitionRequest {
            lib: "RANDOM".into(),
            routine: "".into(),
            set: Some(m.nodes),
            map: None,
            coords: None,
            report: false,
        };
        d.partition(&mut m.dom, &req).unwrap();
        assert!(d.is_partitioned());
        let owned = m.dom.set(m.nodes).size;
        (
            before,
            d.fetch_block(&m.dom, m.x).unwrap(),
            d.global_size(&m.dom, m.nodes).unwrap(),
            owned,
        )
    });
    let mut offset = 0;
    for (before, after, (total, off), owned) in out {
        assert_eq!(before, after);
        assert_eq!(total, g.nnodes);
        assert_eq!(off, offset, "offset of this rank's owned elements");
        offset += owned;
    }
}

#[test]
fn bad_global_maps_are_named_errors_on_every_rank() {
    let g = grid(5, 4);
    let out = run_ranks(2, |c| {
        let mut m = declare(&g, c.rank(), 2);
        if c.rank() == 1 {
            m.dom.map_mut(m.edge_cells).values[0] = 1_000_000;
        }
        let mut d = Distributed::new(Box::new(c), None, None);
        let req = PartitionRequest {
            lib: "GEOM".into(),
            routine: "GEOM".into(),
            set: None,
            map: None,
            coords: Some(m.x),
            report: false,
        };
        d.partition(&mut m.dom, &req).unwrap_err().to_string()
    });
    for e in out {
        assert!(
            e.contains("op_partition") && e.contains("map \"edge_cells\""),
            "{e}"
        );
    }
}
