//! Plan construction time for an airfoil-like edge loop.
//!
//! The loop is airfoil's `res_calc` reduced to its plan-relevant shape: over
//! the interior edges of a structured n x n grid of cells, two OP_READ
//! arguments of a 2-double node dat through edges -> nodes (idx 0 and 1) and
//! two OP_INC arguments of a 4-double cell dat through edges -> cells (idx 0
//! and 1). Sizes: about 1e5, 1e6 and 4e6 edges.
//!
//! * `blocks_only` (`full: false`): blocks of 256 edges and the greedy block
//!   colouring, what `libop2_openmp`'s own `op_par_loop` builds.
//! * `full` (`full: true`): additionally the per-block renumbering
//!   (`ind_map`/`loc_map`) and element colouring that translator-generated
//!   code reads.
//!
//! Both are built inside a rayon pool of one thread per core (or
//! `RAYON_NUM_THREADS`), as the threads library builds its plans, so the
//! per-block part of full plans runs in parallel. `full_sequential` builds
//! full plans outside any pool, where op2-core runs on the calling thread
//! (the sequential library, an MPI rank).
//!
//! Run: `cargo bench -p op2-core --bench plan`. Criterion reports time per
//! plan; ns per edge = time / edges (the edge counts are printed first).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};
use op2_core::Access;
use std::time::Duration;

/// Interior edges of an n x n cell grid (cells numbered row by row, nodes
/// (n+1) x (n+1) row by row), listed cell by cell: the edge to the right
/// neighbour, then the edge to the upper neighbour. Returns (edges -> nodes,
/// edges -> cells, nodes, cells), both maps of dim 2.
fn grid_edges(n: usize) -> (Vec<i32>, Vec<i32>, usize, usize) {
    let node = |i: usize, j: usize| (j * (n + 1) + i) as i32;
    let cell = |i: usize, j: usize| (j * n + i) as i32;
    let ne = 2 * n * (n - 1);
    let mut pedge = Vec::with_capacity(2 * ne);
    let mut pecell = Vec::with_capacity(2 * ne);
    for j in 0..n {
        for i in 0..n {
            if i + 1 < n {
                // shared face: the right side of cell (i, j)
                pedge.extend([node(i + 1, j), node(i + 1, j + 1)]);
                pecell.extend([cell(i, j), cell(i + 1, j)]);
            }
            if j + 1 < n {
                // shared face: the top side of cell (i, j)
                pedge.extend([node(i + 1, j + 1), node(i, j + 1)]);
                pecell.extend([cell(i, j), cell(i, j + 1)]);
            }
        }
    }
    (pedge, pecell, (n + 1) * (n + 1), n * n)
}

fn arg<'a>(
    map: &'a [i32],
    idx: usize,
    access: Access,
    ind: i32,
    dim: usize,
    to_size: usize,
) -> PlanArg<'a> {
    PlanArg {
        opt: true,
        ind,
        map,
        map_dim: 2,
        idx,
        access,
        gbl: false,
        dat_bytes: 8 * dim,
        dat_dim: dim,
        to_size,
    }
}

fn input<'a>(
    pedge: &'a [i32],
    pecell: &'a [i32],
    nnode: usize,
    ncell: usize,
    full: bool,
) -> PlanInput<'a> {
    let ne = pedge.len() / 2;
    PlanInput {
        set_size: ne,
        core_size: ne,
        exec_size: 0,
        part_size: 0,
        staging: Staging::All,
        args: vec![
            arg(pedge, 0, Access::Read, 0, 2, nnode),
            arg(pedge, 1, Access::Read, 0, 2, nnode),
            arg(pecell, 0, Access::Inc, 1, 4, ncell),
            arg(pecell, 1, Access::Inc, 1, 4, ncell),
        ],
        ninds: 2,
        cache_line_size: 128,
        full,
    }
}

fn plan_construction(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .expect("a rayon pool");
    eprintln!("pool of {} threads", pool.current_num_threads());
    let mut group = c.benchmark_group("plan_res_calc_like");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for target in [100_000usize, 1_000_000, 4_000_000] {
        // 2 n (n - 1) ~ target
        let n = ((target as f64 / 2.0).sqrt()).round() as usize + 1;
        let (pedge, pecell, nnode, ncell) = grid_edges(n);
        let ne = pedge.len() / 2;
        for full in [false, true] {
            let inp = input(&pedge, &pecell, nnode, ncell, full);
            let p = pool.install(|| Plan::build(&inp));
            p.check(&inp).expect("valid plan");
            eprintln!(
                "{} x {} cells, {} edges, full={}: block size {}, {} blocks, {} block colours{}",
                n,
                n,
                ne,
                full,
                p.bsize,
                p.nblocks,
                p.ncolors,
                if full {
                    format!(", {:.2} thread colours per block", p.avg_thread_colors)
                } else {
                    String::new()
                }
            );
            group.throughput(Throughput::Elements(ne as u64));
            let name = if full { "full" } else { "blocks_only" };
            group.bench_with_input(BenchmarkId::new(name, ne), &inp, |b, inp| {
                b.iter(|| pool.install(|| Plan::build(inp)))
            });
            if full {
                group.bench_with_input(BenchmarkId::new("full_sequential", ne), &inp, |b, inp| {
                    b.iter(|| Plan::build(inp))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, plan_construction);
criterion_main!(benches);
