//! Scale study of partitioning on simulated ranks (threads of one process):
//! for a structured grid of about CELLS cells and each rank count, the
//! partitioning time (wall clock of the slowest rank), owned and halo cells
//! per rank, what a rank received from the others while partitioning, and
//! what one halo refresh of an 8-byte dat on every set sends.
//!
//!   cargo run --release -p op2-core --example dist_scale -- [--replicated] [CELLS] [RANKS...]
//!   (defaults: 250000 cells; 4 16 64 256 ranks; the distributed phases,
//!   `dist::scalable`, or with --replicated the replicated ones, `dist::driver`)

use op2_core::dist::sim::{run_ranks, SimGrid};
use op2_core::dist::{driver, scalable, Collectives, Primary};
use std::time::Instant;

struct Row {
    secs: f64,
    owned: usize,
    halo: usize,
    received: u64,
    msgs: u64,
    bytes: u64,
}

fn main() {
    let replicated = std::env::args().any(|a| a == "--replicated");
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| a != "--replicated")
        .map(|a| a.parse().expect("numbers: CELLS RANKS..."))
        .collect();
    let cells = args.first().copied().unwrap_or(250_000);
    let ranks: Vec<usize> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        vec![4, 16, 64, 256]
    };
    let nx = ((cells as f64 * 1.5).sqrt()).round().max(2.0) as usize;
    let ny = (cells / nx).max(2);
    let g = SimGrid::new(nx, ny);
    let mesh_bytes = 4 * (g.cell_nodes.len() + g.edge_nodes.len() + g.edge_cells.len()) as u64
        + 8 * g.coords.len() as u64;
    println!(
        "{} phases; grid {nx} x {ny}: {} cells, {} nodes, {} edges; maps + coordinates {:.1} MB",
        if replicated {
            "replicated"
        } else {
            "distributed"
        },
        g.ncells,
        g.nnodes,
        g.nedges(),
        mesh_bytes as f64 / 1e6
    );
    println!("ranks  partition s  max owned cells  max halo cells  max received MB  received/mesh  max refresh msgs  max refresh kB");
    for &n in &ranks {
        let rows = run_ranks(n, |c| {
            let (mut dom, x) = g.declare(c.rank(), c.size()).unwrap();
            let t0 = Instant::now();
            let primary = Primary::Geom {
                coords: x,
                inertial: false,
            };
            let p = if replicated {
                driver::run(&c, &mut dom, primary, None, None)
            } else {
                scalable::run(&c, &mut dom, primary, None, None)
            }
            .unwrap();
            c.barrier().unwrap();
            let secs = t0.elapsed().as_secs_f64();
            let received = c.received();
            let before = c.sent();
            for (s, ds) in p.sets.iter().enumerate() {
                let mut data = vec![0u8; ds.local.total_size() * 8];
                ds.exchange
                    .exchange(&c, &mut data, 8, 100 + s as i32)
                    .unwrap();
            }
            let after = c.sent();
            let cl = &p.sets[1].local;
            Row {
                secs,
                owned: cl.size,
                halo: cl.exec_size + cl.nonexec_size,
                received,
                msgs: after.0 - before.0,
                bytes: after.1 - before.1,
            }
        });
        let max = |f: fn(&Row) -> f64| rows.iter().map(f).fold(0.0, f64::max);
        println!(
            "{n:5}  {:11.3}  {:15}  {:14}  {:15.1}  {:13.2}  {:16}  {:14.1}",
            max(|r| r.secs),
            max(|r| r.owned as f64) as usize,
            max(|r| r.halo as f64) as usize,
            max(|r| r.received as f64) / 1e6,
            max(|r| r.received as f64) / mesh_bytes as f64,
            max(|r| r.msgs as f64) as u64,
            max(|r| r.bytes as f64) / 1e3,
        );
    }
}
