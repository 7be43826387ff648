//! The distributed partitioning phases (`dist::scalable`, no global mesh on
//! any rank) against the replicated ones (`dist::driver`, the reference):
//! on simulated ranks, for every primary partitioner, forced maps and the
//! quality report, every rank ends with exactly the same local sets (global
//! ids, core/owned/exec/non-exec sizes, all four halo lists), local maps,
//! migration back to the declared blocks, dat contents and report line.

use op2_core::dist::sim::{run_ranks, SimComm, SimGrid};
use op2_core::dist::{driver, scalable, Collectives, GatheredKway, Primary};
use op2_core::domain::{DatId, Domain, MapCheck, MapId, SetId};
use op2_core::halo::{LocalSet, Migration};
use op2_core::partition::BlockDist;

/// A serial "k-way partitioner" that depends on every entry of the graph
/// (so equal results mean equal graphs): vertex v goes to part
/// (v + sum of its neighbours) mod nparts.
fn toy_kway(xadj: &[i32], adjncy: &[i32], nparts: usize) -> Result<Vec<i32>, String> {
    Ok((0..xadj.len() - 1)
        .map(|v| {
            let s: i64 = adjncy[xadj[v] as usize..xadj[v + 1] as usize]
                .iter()
                .map(|&u| i64::from(u))
                .sum();
            ((v as i64 + s) % nparts as i64) as i32
        })
        .collect())
}

struct Mesh {
    grid: SimGrid,
    /// boundary edges along the bottom row: (node, node) and (cell)
    bedge_nodes: Vec<i32>,
    bedge_cells: Vec<i32>,
}

impl Mesh {
    fn new(nx: usize, ny: usize) -> Mesh {
        let grid = SimGrid::new(nx, ny);
        let mut bedge_nodes = Vec::new();
        let mut bedge_cells = Vec::new();
        for i in 0..nx {
            bedge_nodes.extend([i as i32, i as i32 + 1]);
            bedge_cells.push(i as i32);
        }
        Mesh {
            grid,
            bedge_nodes,
            bedge_cells,
        }
    }

    /// The SimGrid sets (nodes, cells, edges), plus bedges (dim-1 map to
    /// cells, dim-2 map to nodes), a set no map reaches, and dats on cells
    /// (global id), on bedges and on the lonely set; cell centroids for
    /// geometric partitioning and an EXTERNAL ranks dat.
    fn declare(&self, rank: usize, nranks: usize, force: bool) -> (Domain, Vec<DatId>) {
        let (mut dom, x) = self.grid.declare(rank, nranks).unwrap();
        let nb = self.bedge_cells.len();
        let rb = BlockDist::standard(nb, nranks).range(rank);
        let bedges = dom.decl_set(rb.len() as i64, "bedges").unwrap();
        let lonely = dom
            .decl_set(
                BlockDist::standard(11, nranks).range(rank).len() as i64,
                "lonely",
            )
            .unwrap();
        let d = MapCheck::Deferred;
        let (nodes, cells) = (SetId(0), SetId(1));
        let bn = &self.bedge_nodes[rb.start * 2..rb.end * 2];
        dom.decl_map(bedges, nodes, 2, bn, 0, "bedge_nodes", d)
            .unwrap();
        let bc = &self.bedge_cells[rb.clone()];
        let bcm = dom
            .decl_map(bedges, cells, 1, bc, 0, "bedge_cells", d)
            .unwrap();
        if force {
            dom.map_mut(bcm).force_part = true;
        }
        let dats = self.declare_dats(&mut dom, rank, nranks, (cells, bedges, lonely));
        (dom, [vec![x], dats].concat())
    }

    /// q (global id) and centroids on cells, EXTERNAL ranks, dats on bedges and lonely.
    fn declare_dats(
        &self,
        dom: &mut Domain,
        rank: usize,
        nranks: usize,
        (cells, bedges, lonely): (SetId, SetId, SetId),
    ) -> Vec<DatId> {
        let nb = self.bedge_cells.len();
        let rb = BlockDist::standard(nb, nranks).range(rank);
        let rc = BlockDist::standard(self.grid.ncells, nranks).range(rank);
        let f64s = |v: Vec<f64>| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let i32s = |v: Vec<i32>| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let gid: Vec<f64> = rc.clone().map(|g| g as f64).collect();
        let q = dom
            .decl_dat(
                "op_decl_dat",
                cells,
                1,
                "double",
                8,
                Some(&f64s(gid)),
                "q",
                false,
            )
            .unwrap();
        let cent: Vec<f64> = rc
            .clone()
            .flat_map(|c| {
                let n = &self.grid.cell_nodes[c * 4..c * 4 + 4];
                let co = &self.grid.coords;
                let avg = |k: usize| n.iter().map(|&v| co[v as usize * 2 + k]).sum::<f64>() / 4.0;
                [avg(0), avg(1)]
            })
            .collect();
        let cen = dom
            .decl_dat(
                "op_decl_dat",
                cells,
                2,
                "double",
                8,
                Some(&f64s(cent)),
                "cent",
                false,
            )
            .unwrap();
        let ext: Vec<i32> = rc.clone().map(|g| ((g * 7) / 5 % nranks) as i32).collect();
        let ext = dom
            .decl_dat(
                "op_decl_dat",
                cells,
                1,
                "int",
                4,
                Some(&i32s(ext)),
                "ext",
                false,
            )
            .unwrap();
        let bv: Vec<i32> = rb.map(|g| g as i32 * 3).collect();
        let bd = dom
            .decl_dat(
                "op_decl_dat",
                bedges,
                1,
                "int",
                4,
                Some(&i32s(bv)),
                "bd",
                false,
            )
            .unwrap();
        let lr = BlockDist::standard(11, nranks).range(rank);
        let lv: Vec<i32> = lr.map(|g| g as i32 + 100).collect();
        let ld = dom
            .decl_dat(
                "op_decl_dat",
                lonely,
                1,
                "int",
                4,
                Some(&i32s(lv)),
                "ld",
                false,
            )
            .unwrap();
        vec![q, cen, ext, bd, ld]
    }
}

#[derive(Debug, PartialEq)]
struct Outcome {
    locals: Vec<LocalSet>,
    maps: Vec<Vec<i32>>,
    sizes: Vec<(usize, usize, usize, usize)>,
    backs: Vec<Migration>,
    dats: Vec<Vec<u8>>,
    quality: Option<String>,
}

fn outcome(dom: &Domain, p: driver::Partitioned, dats: &[DatId]) -> Outcome {
    Outcome {
        maps: dom.maps().iter().map(|m| m.values.clone()).collect(),
        sizes: dom
            .sets()
            .iter()
            .map(|s| (s.core_size, s.size, s.exec_size, s.nonexec_size))
            .collect(),
        backs: p.sets.iter().map(|d| d.back.clone()).collect(),
        dats: dats
            .iter()
            .map(|&d| dom.dat(d).data.as_slice().to_vec())
            .collect(),
        locals: p.sets.into_iter().map(|d| d.local).collect(),
        quality: p.quality,
    }
}

fn primary(kind: &str, dats: &[DatId]) -> Primary {
    match kind {
        "block" => Primary::Block,
        "random" => Primary::Random { set: SetId(1) },
        "external" => Primary::External { parts: dats[3] },
        "rcb" => Primary::Geom {
            coords: dats[2],
            inertial: false,
        },
        "kway" => Primary::Kway { map: MapId(2) },
        "kway-nodes" => Primary::Kway { map: MapId(0) },
        _ => unreachable!(),
    }
}

fn run(mesh: &Mesh, nranks: usize, kind: &str, force: bool, scalable_path: bool) -> Vec<Outcome> {
    run_ranks(nranks, |c: SimComm| {
        let (mut dom, dats) = mesh.declare(c.rank(), nranks, force);
        let pr = primary(kind, &dats);
        let report = Some(MapId(2));
        let p = if scalable_path {
            let k = GatheredKway(toy_kway);
            scalable::run(&c, &mut dom, pr, Some(&k), report).unwrap()
        } else {
            driver::run(&c, &mut dom, pr, Some(toy_kway), report).unwrap()
        };
        outcome(&dom, p, &dats)
    })
}

#[test]
fn every_partitioner_gives_the_replicated_result() {
    let mesh = Mesh::new(23, 17);
    for nranks in [1, 2, 3, 5] {
        for kind in ["block", "random", "external", "rcb", "kway", "kway-nodes"] {
            let want = run(&mesh, nranks, kind, false, false);
            let got = run(&mesh, nranks, kind, false, true);
            for (r, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{kind} on {nranks} ranks, rank {r}");
            }
            if nranks > 1 && kind != "block" {
                // not a trivial comparison: halos of both kinds
                let exec: usize = got
                    .iter()
                    .flat_map(|o| &o.locals)
                    .map(|l| l.exec_size)
                    .sum();
                let nonexec: usize = got
                    .iter()
                    .flat_map(|o| &o.locals)
                    .map(|l| l.nonexec_size)
                    .sum();
                assert!(
                    exec > 0 && nonexec > 0,
                    "{kind}/{nranks}: {exec} exec, {nonexec} non-exec"
                );
            }
        }
    }
}

#[test]
fn forced_maps_give_the_replicated_result() {
    let mesh = Mesh::new(19, 13);
    for nranks in [2, 4] {
        for kind in ["random", "rcb"] {
            let want = run(&mesh, nranks, kind, true, false);
            let got = run(&mesh, nranks, kind, true, true);
            assert_eq!(got, want, "{kind} on {nranks} ranks with a forced map");
        }
    }
}

#[test]
fn bad_map_entries_are_reported_alike_on_every_rank() {
    let mesh = Mesh::new(6, 5);
    let msgs = run_ranks(3, |c: SimComm| {
        let (mut dom, _) = mesh.declare(c.rank(), 3, false);
        let (mut dom2, _) = mesh.declare(c.rank(), 3, false);
        if c.rank() == 2 {
            dom.map_mut(MapId(1)).values[3] = 999;
            dom2.map_mut(MapId(1)).values[3] = 999;
        }
        let got = scalable::run(&c, &mut dom, Primary::Block, None, None)
            .err()
            .unwrap();
        let want = driver::run(&c, &mut dom2, Primary::Block, None, None)
            .err()
            .unwrap();
        (got.to_string(), want.to_string())
    });
    for (got, want) in msgs {
        assert_eq!(got, want);
        assert!(got.contains("edge_nodes"), "{got}");
    }
}
