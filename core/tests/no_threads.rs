//! Outside a rayon pool, op2-core never starts a thread: plan, halo and
//! partition construction run on the calling thread (the sequential library
//! must stay single-threaded, and an MPI rank must not start a pool of all
//! cores). Rayon's global pool, once started, keeps its threads for the life
//! of the process, so they would show in `/proc/self/task`.
//!
//! This file holds a single test, so that no other test of the same process
//! runs beside it (libtest runs tests on threads of their own) or starts
//! threads before it.

use op2_core::arg::Access;
use op2_core::graph;
use op2_core::halo::HaloPlan;
use op2_core::partition::{self, GlobalMap, GlobalSet};
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};

/// Threads of this process.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task (Linux)")
        .count()
}

/// Interior edges of an n × n cell grid: edges → nodes, edges → cells.
fn grid(n: usize) -> (Vec<i32>, Vec<i32>) {
    let node = |i: usize, j: usize| (j * (n + 1) + i) as i32;
    let cell = |i: usize, j: usize| (j * n + i) as i32;
    let (mut pedge, mut pecell) = (Vec::new(), Vec::new());
    for j in 0..n {
        for i in 0..n {
            if i + 1 < n {
                pedge.extend([node(i + 1, j), node(i + 1, j + 1)]);
                pecell.extend([cell(i, j), cell(i + 1, j)]);
            }
            if j + 1 < n {
                pedge.extend([node(i + 1, j + 1), node(i, j + 1)]);
                pecell.extend([cell(i, j), cell(i, j + 1)]);
            }
        }
    }
    (pedge, pecell)
}

fn inc_arg(map: &[i32], idx: usize, to_size: usize) -> PlanArg<'_> {
    PlanArg {
        opt: true,
        ind: 0,
        map,
        map_dim: 2,
        idx,
        access: Access::Inc,
        gbl: false,
        dat_bytes: 32,
        dat_dim: 4,
        to_size,
    }
}

#[test]
fn core_starts_no_thread_outside_a_pool() {
    let before = threads();
    assert!(rayon::current_thread_index().is_none());

    // Large enough for every parallel path (bisection groups of > 16 Ki
    // points, several CSR chunks of 4 Ki rows, many plan blocks).
    let n = 200;
    let (nnode, ncell) = ((n + 1) * (n + 1), n * n);
    let (pedge, pecell) = grid(n);
    let nedge = pedge.len() / 2;
    let maps = [
        GlobalMap {
            from: 1,
            to: 2,
            dim: 2,
            values: &pedge,
        },
        GlobalMap {
            from: 1,
            to: 0,
            dim: 2,
            values: &pecell,
        },
    ];
    let sets = [
        GlobalSet { size: ncell },
        GlobalSet { size: nedge },
        GlobalSet { size: nnode },
    ];
    let centres: Vec<f64> = (0..ncell)
        .flat_map(|c| [(c % n) as f64, (c / n) as f64])
        .collect();
    let parts = partition::rcb(&centres, 2, 4);
    let three_d: Vec<f64> = centres.chunks(2).flat_map(|c| [c[0], c[1], 0.5]).collect();
    partition::inertial(&three_d, 3, 4);
    let derived = partition::derive(&sets, &maps, 0, &parts, 4).unwrap();
    graph::adjacency(&maps[1], ncell).unwrap();
    graph::dual_graph(&maps[0], nnode, 1).unwrap();
    let halo = HaloPlan::new(&derived.parts, &maps, 4).unwrap();
    let local = halo.local(1);
    let edges = &local.sets[1];
    let cells = &local.sets[0];
    for (staging, full) in [
        (Staging::All, true),
        (Staging::Color2, true),
        (Staging::None, false),
    ] {
        let inp = PlanInput {
            set_size: edges.size,
            core_size: edges.core_size,
            exec_size: edges.exec_size,
            part_size: 64,
            staging,
            args: vec![
                inc_arg(&local.maps[1].values, 0, cells.total_size()),
                inc_arg(&local.maps[1].values, 1, cells.total_size()),
            ],
            ninds: 1,
            cache_line_size: 128,
            full,
        };
        Plan::build(&inp).check(&inp).unwrap();
    }

    assert_eq!(
        threads(),
        before,
        "op2-core started threads outside a rayon pool"
    );
}
