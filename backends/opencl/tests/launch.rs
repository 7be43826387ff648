//! A loop run end to end on the OpenCL device through the runtime's own
//! pieces: core's Domain, DeviceCopies on OpenCL memory, core's Plan built
//! with the generator's groups and uploaded by DeviceCopies, the generated
//! code launched by `launch::launch`. Checked against the analytic answer:
//! every edge adds its weight to both ends and to a global sum, so node i
//! ends with w[i-1] + w[i] and the sum is the weights' sum; with the last
//! edges marked as another process's (`owned` below the set size, as
//! under MPI) they still increment their nodes but leave the sum.

use op2_backend_jit::describe::describe;
use op2_backend_jit::launch::{launch, Bindings};
use op2_backend_opencl::engine::ClDevice;
use op2_backend_opencl::OpenCl;
use op2_codegen::{generate, Conflicts, Dialect, Options, Scheme};
use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::device::plan_upload::PlanHostArrays;
use op2_core::device::{DeviceCopies, DeviceMemory};
use op2_core::domain::{DatId, Domain, MapCheck, MapId, SetId};
use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};
use std::sync::Arc;

const SRC: &str = "void scatter(const double *w, double *a, double *b, double *sum) {\n  *a += *w;\n  *b += *w;\n  *sum += *w;\n}\n";
/// The scatter without its global sum.
const SRC_NO_SUM: &str =
    "void scatter(const double *w, double *a, double *b) {\n  *a += *w;\n  *b += *w;\n}\n";

/// What `run_split` saw: the nodes' values, the sum, the scheme, the
/// weights in edge order, and the nodes' values on the device when the
/// launch called its halo wait (and how many times it did).
struct Ran {
    got: Vec<f64>,
    sum: f64,
    scheme: Scheme,
    w: Vec<f64>,
    at_wait: Vec<f64>,
    waits: usize,
    /// Work-items a flat launch had (work-groups times their size).
    items: usize,
}

fn run(conflicts: Conflicts, n: usize, owned: usize) -> (Vec<f64>, f64, Scheme, Vec<f64>) {
    let r = run_split(conflicts, n, owned, n, true);
    assert_eq!(r.waits, 1, "the halo wait is called once");
    (r.got, r.sum, r.scheme, r.w)
}

fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// The scatter over `n` edges, the first `core` of them a core (as under
/// MPI: the plan keeps core blocks in colours of their own); without its
/// global sum unless `sum` (then `Ran::sum` is 0).
fn run_split(conflicts: Conflicts, n: usize, owned: usize, core: usize, sum: bool) -> Ran {
    let cl = OpenCl::open(None).expect("an OpenCL device (pocl-opencl-icd)");
    let mem: Arc<dyn DeviceMemory> = cl.clone();
    let Mesh {
        mut dom,
        edges,
        m,
        wd,
        acc,
        ends,
        w,
    } = mesh(n);
    let mut copies = DeviceCopies::new(mem);
    copies.add_map(&dom, m).unwrap();
    copies.add_dat(&dom, wd, false).unwrap();
    copies.add_dat(&dom, acc, false).unwrap();
    let all_args = scatter_args(wd, acc, m);
    let args = &all_args[..if sum { 4 } else { 3 }];
    let desc = describe("scatter", "scatter", args, &dom, &|_| false, conflicts).unwrap();
    let g = generate(
        &desc,
        if sum { SRC } else { SRC_NO_SUM },
        &[],
        Options {
            dialect: Dialect::OpenCl,
            block_size: 64,
            wide_offsets: false,
            fma: false,
        },
    )
    .unwrap();
    let plan = std::sync::Arc::new(plan_for(&ends, n, core, g.groups.len(), sum));
    let dev_plan = copies.plan(0, &PlanHostArrays::of(&plan)).unwrap();
    let dev = ClDevice::new(cl.clone());
    let mut k = op2_backend_jit::Device::build(&dev, &g, None).unwrap();
    let mut globals = vec![Vec::new(), Vec::new(), Vec::new()];
    if sum {
        globals.push(0.0f64.to_ne_bytes().to_vec());
    }
    // the wait reads the nodes on the device: what the launches queued
    // before it have written (transfers wait for the queue)
    let seen = std::cell::RefCell::new((Vec::new(), 0));
    let acc_dev = copies.dat(acc).unwrap().ptr;
    let halo_wait = || {
        let mut bytes = vec![0u8; 8 * (n + 1)];
        cl.download(acc_dev, &mut bytes)
            .map_err(|e| e.to_string())?;
        let mut s = seen.borrow_mut();
        s.0 = f64s(&bytes);
        s.1 += 1;
        Ok(())
    };
    let b = Bindings {
        dom: &dom,
        copies: &copies,
        set: edges,
        specs: args,
        set_size: n,
        owned,
        plan: g.scheme.uses_plan().then_some((&plan, dev_plan)),
        globals: &globals,
        core,
        halo_wait: &halo_wait,
    };
    let mut scratch = op2_backend_jit::launch::Scratch::default();
    let red = launch(&dev, (&mut k, &mut scratch), &g, &b).unwrap();
    scratch.release(&*cl);
    copies.download(&mut dom, acc).unwrap();
    let got = f64s(&dom.dat(acc).data.as_slice()[..8 * (n + 1)]);
    let sum = red.get(3).map_or(0.0, |r| {
        f64::from_ne_bytes(r.as_ref().unwrap()[..8].try_into().unwrap())
    });
    let (at_wait, waits) = seen.into_inner();
    let items = g.flat_groups(n) * g.block_size;
    Ran {
        got,
        sum,
        scheme: g.scheme,
        w,
        at_wait,
        waits,
        items,
    }
}

/// `n` edges in a scrambled order (so that blocks share nodes
/// irregularly), edge e (in that order) joining nodes (e * 7919) % n and
/// the next, with weights w; the nodes' accumulator acc.
struct Mesh {
    dom: Domain,
    edges: SetId,
    m: MapId,
    wd: DatId,
    acc: DatId,
    ends: Vec<i32>,
    w: Vec<f64>,
}

fn mesh(n: usize) -> Mesh {
    let mut dom = Domain::new();
    let nodes = dom.decl_set(n as i64 + 1, "nodes").unwrap();
    let edges = dom.decl_set(n as i64, "edges").unwrap();
    let order: Vec<usize> = (0..n).map(|e| (e * 7919) % n).collect();
    let ends: Vec<i32> = order
        .iter()
        .flat_map(|&e| [e as i32, e as i32 + 1])
        .collect();
    let m = dom
        .decl_map(edges, nodes, 2, &ends, 0, "ends", MapCheck::Local)
        .unwrap();
    let w: Vec<f64> = order.iter().map(|&e| 1.0 + e as f64 * 0.5).collect();
    let wb: Vec<u8> = w.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let wd = dom
        .decl_dat("op_decl_dat", edges, 1, "double", 8, Some(&wb), "w", false)
        .unwrap();
    let acc = dom
        .decl_dat("op_decl_dat", nodes, 1, "double", 8, None, "acc", false)
        .unwrap();
    Mesh {
        dom,
        edges,
        m,
        wd,
        acc,
        ends,
        w,
    }
}

/// scatter's arguments: w directly, acc through both ends, a global sum.
fn scatter_args(wd: DatId, acc: DatId, m: MapId) -> [ArgSpec; 4] {
    let spec = |kind, access| ArgSpec {
        kind,
        dim: 1,
        type_name: "double".into(),
        access,
        opt: true,
    };
    [
        spec(
            ArgKind::Dat {
                dat: wd,
                map: None,
                idx: -1,
            },
            Access::Read,
        ),
        spec(
            ArgKind::Dat {
                dat: acc,
                map: Some(m),
                idx: 0,
            },
            Access::Inc,
        ),
        spec(
            ArgKind::Dat {
                dat: acc,
                map: Some(m),
                idx: 1,
            },
            Access::Inc,
        ),
        spec(ArgKind::Gbl, Access::Inc),
    ]
}

/// The scatter's plan (core's), with the generator's group as OP2's inds.
fn plan_for(ends: &[i32], n: usize, core: usize, ngroups: usize, sum: bool) -> Plan {
    let pa = |ind: i32, idx: usize, access, gbl: bool| PlanArg {
        opt: true,
        ind,
        map: if ind >= 0 { ends } else { &[] },
        map_dim: if ind >= 0 { 2 } else { 0 },
        idx,
        access,
        gbl,
        dat_bytes: if gbl { 0 } else { 8 },
        dat_dim: 1,
        to_size: if ind >= 0 { n + 1 } else { 0 },
    };
    let mut args = vec![
        pa(-1, 0, Access::Read, false),
        pa(0, 0, Access::Inc, false),
        pa(0, 1, Access::Inc, false),
    ];
    if sum {
        args.push(pa(-1, 0, Access::Inc, true));
    }
    let input = PlanInput {
        set_size: n,
        core_size: core,
        exec_size: 0,
        part_size: 64,
        staging: Staging::All,
        args,
        ninds: ngroups,
        cache_line_size: 128,
        full: true,
    };
    Plan::build(&input)
}

/// Node i holds the weights of the edges before and after it.
fn check_nodes(got: &[f64], n: usize) {
    let w = |e: usize| 1.0 + e as f64 * 0.5;
    assert_eq!(got.len(), n + 1);
    for (i, v) in got.iter().enumerate() {
        let want = if i > 0 { w(i - 1) } else { 0.0 } + if i < n { w(i) } else { 0.0 };
        // both additions exact: the weights are multiples of 0.5
        assert_eq!(*v, want, "node {i}");
    }
}

fn check(conflicts: Conflicts, want_scheme: Scheme) {
    let n = 5000;
    let (got, sum, scheme, _) = run(conflicts, n, n);
    assert_eq!(scheme, want_scheme);
    check_nodes(&got, n);
    let total: f64 = (0..n).map(|e| 1.0 + e as f64 * 0.5).sum();
    assert_eq!(sum, total, "sum of the weights (exact in doubles)");
}

/// A flat loop that reduces, over more elements than
/// `FLAT_REDUCTION_ITEMS`: the launch is capped, each work-item runs
/// several elements a grid apart, and still every element runs exactly
/// once (each node gets its two weights) and only owned elements reduce
/// (the sums are exact in doubles, whatever their order).
#[test]
fn flat_reductions_past_the_work_item_cap() {
    let n = 2 * op2_codegen::FLAT_REDUCTION_ITEMS + 4321;
    let owned = n - 777;
    let r = run_split(Conflicts::Atomics, n, owned, n, true);
    assert_eq!(r.scheme, Scheme::Flat);
    assert_eq!(
        r.items,
        op2_codegen::FLAT_REDUCTION_ITEMS,
        "a capped launch"
    );
    assert!(r.items < n);
    check_nodes(&r.got, n);
    assert_eq!(r.sum, r.w[..owned].iter().sum::<f64>(), "owned edges' sum");
}

#[test]
fn staged_with_the_plan() {
    check(Conflicts::Colour2, Scheme::Staged);
}

#[test]
fn coloured_with_the_plan_and_no_staging() {
    check(Conflicts::Colour2Global, Scheme::Coloured);
}

#[test]
fn flat_with_atomics() {
    check(Conflicts::Atomics, Scheme::Flat);
}

/// Elements from `owned` on (another process's under MPI) increment their
/// nodes but do not reduce, in every scheme.
#[test]
fn elements_past_owned_do_not_reduce() {
    let (n, owned) = (5000, 4877);
    for c in [
        Conflicts::Colour2,
        Conflicts::Colour2Global,
        Conflicts::Atomics,
    ] {
        let (got, sum, _, w) = run(c, n, owned);
        let all: f64 = got.iter().sum();
        assert_eq!(
            all,
            2.0 * w.iter().sum::<f64>(),
            "{c:?}: every edge incremented"
        );
        assert_eq!(
            sum,
            w[..owned].iter().sum::<f64>(),
            "{c:?}: owned edges' sum"
        );
    }
}

/// Under MPI the first edges are a core that touches no halo row: a staged
/// or coloured launch queues the core colours, then waits for the halo exchanges (the
/// messages travel while the device computes the core), then runs the
/// rest; at the wait the nodes hold exactly the core edges' increments.
/// A flat launch with a global sum cannot split (its work-groups stride
/// over every element): it waits first. Either way the answers are those
/// of an unsplit run.
#[test]
fn the_core_runs_before_the_halo_wait() {
    let (n, core) = (5000, 3200);
    for (c, scheme) in [
        (Conflicts::Colour2, Scheme::Staged),
        (Conflicts::Colour2Global, Scheme::Coloured),
        (Conflicts::Atomics, Scheme::Flat),
    ] {
        let r = run_split(c, n, n, core, true);
        assert_eq!((r.scheme, r.waits), (scheme, 1), "{c:?}");
        let mut want = vec![0.0; n + 1];
        if scheme.uses_plan() {
            // edge e (in the scrambled order) joins nodes o and o + 1
            for (e, &w) in r.w.iter().enumerate().take(core) {
                let o = (e * 7919) % n;
                want[o] += w;
                want[o + 1] += w;
            }
        }
        assert_eq!(r.at_wait, want, "{c:?}: the nodes at the halo wait");
        let whole = run(c, n, n).0;
        assert_eq!(r.got, whole, "{c:?}: the answers of an unsplit run");
    }
}

/// A flat launch without a reduction (atomics) splits at the core as OP2's
/// translated CUDA does: the whole work-groups below the core (here 3,210
/// core edges: 50 work-groups of 64, edges 0..3,200), then the halo wait,
/// then the rest from work-group 50. At the wait the nodes hold exactly
/// those 3,200 edges' increments; the answers are those of an unsplit
/// run, which calls its wait before its one launch (one node: the core is
/// the whole set).
#[test]
fn a_flat_launch_runs_its_core_work_groups_before_the_halo_wait() {
    let n = 5000;
    let r = run_split(Conflicts::Atomics, n, n, 3210, false);
    assert_eq!((r.scheme, r.waits), (Scheme::Flat, 1));
    let mut want = vec![0.0; n + 1];
    for (e, &w) in r.w.iter().enumerate().take(3200) {
        let o = (e * 7919) % n;
        want[o] += w;
        want[o + 1] += w;
    }
    assert_eq!(r.at_wait, want, "the nodes at the halo wait");
    check_nodes(&r.got, n);
    let whole = run_split(Conflicts::Atomics, n, n, n, false);
    assert_eq!(
        whole.at_wait,
        vec![0.0; n + 1],
        "one launch, after the wait"
    );
    check_nodes(&whole.got, n);
    // less than one work-group of core: one launch after the wait
    let small = run_split(Conflicts::Atomics, n, n, 63, false);
    assert_eq!(small.at_wait, vec![0.0; n + 1]);
    check_nodes(&small.got, n);
}
