//! The loop lifecycle driven from Rust, with no C: `Runtime::run_loop`
//! (prepare on first sight, begin, execute, finish) on one node and on
//! simulated ranks, what the runtime tells a front end's mirrors, and the
//! host/device state machine on a device simulated in host memory. Every
//! result is compared with a plain loop written here.

use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::device::{DevPtr, DeviceMemory, HostMemory};
use op2_core::dist::sim::{run_ranks, SimGrid};
use op2_core::dist::{Collectives, Distributed, SingleNode};
use op2_core::domain::MapCheck;
use op2_core::invoke::{Executor, FnInvoker, Invoker, LoopRun};
use op2_core::plan::Plan;
use op2_core::runtime::{
    GeneratedArgs, GlobalData, LoopDesc, Mirror, NoMirror, Parts, Pick, Runtime, Side,
};
use op2_core::{DatId, Domain, Fresh, MapId, Result, SetId};
use std::sync::Arc;

/// Every element in order; by the plan's blocks, colour by colour, when
/// `plan` is set (as the threads backend orders them, on one thread).
struct Serial {
    plan: bool,
}

impl Executor for Serial {
    fn name(&self) -> &'static str {
        "serial"
    }
    fn wants_plan(&self) -> bool {
        self.plan
    }
    unsafe fn execute(&self, run: &LoopRun<'_>, inv: &dyn Invoker) -> Result<()> {
        let core = run.core.min(run.exec_size);
        match run.plan {
            Some(p) if run.wait.is_none() => run_blocks(p, run, inv),
            _ => {
                // SAFETY: the caller's contract.
                unsafe { inv.run(run.views, 0, core) };
                if let Some(w) = run.wait {
                    w()?;
                }
                // SAFETY: as above.
                unsafe { inv.run(run.views, core, run.exec_size) };
            }
        }
        Ok(())
    }
}

fn run_blocks(p: &Plan, run: &LoopRun<'_>, inv: &dyn Invoker) {
    let mut at = 0usize;
    for &n in &p.ncolblk {
        for &b in &p.blkmap[at..at + n as usize] {
            let (o, len) = (p.offset[b as usize] as usize, p.nelems[b as usize] as usize);
            // SAFETY: blocks tile the set (the plan's invariant).
            unsafe { inv.run(run.views, o, (o + len).min(run.exec_size)) };
        }
        at += n as usize;
    }
}

fn runtime(plan: bool) -> Runtime {
    let parts = Parts {
        exec: Arc::new(Serial { plan }),
        dist: Box::new(SingleNode::new()),
        device: None,
        loops: None,
    };
    Runtime::new(parts, Box::new(|_| {}))
}

fn dat_arg(dat: DatId, map: Option<MapId>, idx: i32, access: Access) -> ArgSpec {
    ArgSpec {
        kind: ArgKind::Dat { dat, map, idx },
        dim: 1,
        type_name: "double".into(),
        access,
        opt: true,
    }
}

fn desc(name: &str, set: SetId, args: Vec<ArgSpec>, globals: Vec<GlobalData>) -> LoopDesc {
    LoopDesc {
        name: name.into(),
        set,
        args,
        globals,
        tag: 7,
    }
}

fn f64s(dom: &Domain, d: DatId) -> Vec<f64> {
    let dat = dom.dat(d);
    let n = dom.set(dat.set).size;
    dat.data.as_slice()[..n * 8]
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// A 1-D chain: `n` edges between `n + 1` nodes.
fn chain(rt: &mut Runtime, n: usize) -> (SetId, SetId, MapId, DatId, DatId) {
    let dom = rt.dom_mut();
    let nodes = dom.decl_set(n as i64 + 1, "nodes").unwrap();
    let edges = dom.decl_set(n as i64, "edges").unwrap();
    let ends: Vec<i32> = (0..n as i32).flat_map(|e| [e, e + 1]).collect();
    let m = dom
        .decl_map(edges, nodes, 2, &ends, 0, "ends", MapCheck::Local)
        .unwrap();
    let w: Vec<u8> = (0..n)
        .flat_map(|e| (e as f64 * 0.5 + 1.0).to_ne_bytes())
        .collect();
    let w = dom
        .decl_dat("op_decl_dat", edges, 1, "double", 8, Some(&w), "w", false)
        .unwrap();
    let acc = dom
        .decl_dat("op_decl_dat", nodes, 1, "double", 8, None, "acc", false)
        .unwrap();
    (nodes, edges, m, w, acc)
}

/// Each edge adds its weight to both end nodes; the sum of the weights is
/// reduced into a global.
fn scatter(
    rt: &mut Runtime,
    m: &mut dyn Mirror,
    edges: SetId,
    map: MapId,
    w: DatId,
    acc: DatId,
    sum: &mut f64,
) {
    let args = vec![
        dat_arg(w, None, -1, Access::Read),
        dat_arg(acc, Some(map), 0, Access::Inc),
        dat_arg(acc, Some(map), 1, Access::Inc),
        ArgSpec {
            kind: ArgKind::Gbl,
            dim: 1,
            type_name: "double".into(),
            access: Access::Inc,
            opt: true,
        },
    ];
    let g = GlobalData {
        data: sum as *mut f64 as *mut u8,
        bytes: 8,
    };
    let globals = vec![GlobalData::NONE, GlobalData::NONE, GlobalData::NONE, g];
    let inv = FnInvoker(|_, p: &[*mut u8]| {
        // SAFETY: the runtime hands one pointer per argument, to a double.
        unsafe {
            let w = *(p[0] as *const f64);
            *(p[1] as *mut f64) += w;
            *(p[2] as *mut f64) += w;
            *(p[3] as *mut f64) += w;
        }
    });
    // SAFETY: the kernel touches only its arguments.
    let t = unsafe { rt.run_loop(m, desc("scatter", edges, args, globals), &inv) }.unwrap();
    assert_eq!(t.tag, 7);
}

fn expected_scatter(n: usize) -> (Vec<f64>, f64) {
    let mut acc = vec![0.0; n + 1];
    let mut sum = 0.0;
    for e in 0..n {
        let w = e as f64 * 0.5 + 1.0;
        acc[e] += w;
        acc[e + 1] += w;
        sum += w;
    }
    (acc, sum)
}

#[test]
fn a_loop_runs_from_rust_and_is_prepared_once() {
    for plan in [false, true] {
        let mut rt = runtime(plan);
        let (_, edges, map, w, acc) = chain(&mut rt, 1000);
        let mut sum = 0.0;
        scatter(&mut rt, &mut NoMirror, edges, map, w, acc, &mut sum);
        let (want, want_sum) = expected_scatter(1000);
        assert_eq!(f64s(rt.dom(), acc), want, "plan {plan}");
        // exact in any order: the weights are halves
        assert_eq!(sum, want_sum);
        scatter(&mut rt, &mut NoMirror, edges, map, w, acc, &mut sum);
        let twice: Vec<f64> = want.iter().map(|v| v * 2.0).collect();
        assert_eq!(f64s(rt.dom(), acc), twice);
        assert_eq!(rt.loop_plans(), usize::from(plan), "one plan, reused");
    }
}

#[test]
fn bad_loops_are_named_errors() {
    let mut rt = runtime(false);
    let (nodes, _, map, w, _) = chain(&mut rt, 10);
    // an edge dat over a map from edges, in a loop over nodes
    let args = vec![dat_arg(w, Some(map), 0, Access::Read)];
    let inv = FnInvoker(|_, _: &[*mut u8]| {});
    // SAFETY: the loop never runs.
    let e = unsafe {
        rt.run_loop(
            &mut NoMirror,
            desc("bad", nodes, args, vec![GlobalData::NONE]),
            &inv,
        )
    }
    .unwrap_err();
    assert_eq!(e.call, "op_par_loop");
    assert!(e.to_string().contains("loop \"bad\""), "{e}");
}

/// What a front end was told.
#[derive(Default)]
struct Recorder {
    states: Vec<(DatId, bool, Option<Fresh>)>,
    plans: Vec<String>,
    moved: Vec<bool>,
    on_device: Vec<(DatId, DevPtr)>,
    written_by_program: Option<(DatId, Fresh)>,
}

impl Mirror for Recorder {
    fn seen_fresh(&self, dat: DatId) -> Option<Fresh> {
        self.written_by_program
            .filter(|(d, _)| *d == dat)
            .map(|(_, f)| f)
    }
    fn dat_state(&mut self, dat: DatId, halo_dirty: bool, fresh: Option<Fresh>) {
        self.states.push((dat, halo_dirty, fresh));
    }
    fn dat_on_device(&mut self, dat: DatId, ptr: DevPtr) {
        self.on_device.push((dat, ptr));
    }
    fn mesh_moved(&mut self, _dom: &Domain, partitioned: bool) {
        self.moved.push(partitioned);
    }
    fn plan_built(&mut self, name: &str, _secs: f64) {
        self.plans.push(name.into());
    }
}

#[test]
fn the_front_end_is_told_what_changed() {
    let mut rt = runtime(true);
    let (_, edges, map, w, acc) = chain(&mut rt, 100);
    let mut rec = Recorder::default();
    let mut sum = 0.0;
    scatter(&mut rt, &mut rec, edges, map, w, acc, &mut sum);
    assert_eq!(rec.plans, ["scatter"], "one plan built, reported once");
    // begin and finish show every dat of the loop; no device: no host/device state
    assert_eq!(
        rec.states,
        [
            (w, true, None),
            (acc, true, None),
            (w, true, None),
            (acc, true, None)
        ]
    );
    assert!(rec.moved.is_empty());
}

#[test]
fn a_loop_before_op_partition_partitions_and_says_so() {
    let g = SimGrid::new(12, 8);
    let n = g.nedges();
    let out = run_ranks(3, |comm| {
        let rank = comm.rank();
        let dist = Distributed::new(Box::new(comm), None, None);
        let parts = Parts {
            exec: Arc::new(Serial { plan: false }),
            dist: Box::new(dist),
            device: None,
            loops: None,
        };
        let mut rt = Runtime::new(parts, Box::new(|_| {}));
        let (dom, _) = g.declare(rank, 3).unwrap();
        *rt.dom_mut() = dom;
        let (edges, cells) = (SetId(2), SetId(1));
        let ec = MapId(2);
        // one per cell, summed over the edges at each cell
        let count = rt
            .dom_mut()
            .decl_dat("op_decl_dat", cells, 1, "double", 8, None, "count", false)
            .unwrap();
        let args = vec![
            dat_arg(count, Some(ec), 0, Access::Inc),
            dat_arg(count, Some(ec), 1, Access::Inc),
        ];
        let globals = vec![GlobalData::NONE; 2];
        let inv = FnInvoker(|_, p: &[*mut u8]| {
            // SAFETY: two pointers to doubles.
            unsafe {
                *(p[0] as *mut f64) += 1.0;
                *(p[1] as *mut f64) += 1.0;
            }
        });
        let mut rec = Recorder::default();
        // SAFETY: the kernel touches only its arguments.
        unsafe { rt.run_loop(&mut rec, desc("count", edges, args, globals), &inv) }.unwrap();
        let mine = rt.fetch_block(&mut rec, "test", count).unwrap();
        (rec.moved, mine)
    });
    let mut got = Vec::new();
    for (moved, mine) in out {
        assert_eq!(
            moved,
            [true],
            "the runtime partitioned and told the front end"
        );
        got.extend(
            mine.chunks_exact(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap())),
        );
    }
    let mut want = vec![0.0; g.ncells];
    for e in 0..n {
        want[g.edge_cells[2 * e] as usize] += 1.0;
        want[g.edge_cells[2 * e + 1] as usize] += 1.0;
    }
    assert_eq!(got, want, "every cell counted its edges once, across ranks");
}

/// The args of a loop generated code runs on one dat.
struct OneDat(DatId, Access);

impl GeneratedArgs for OneDat {
    fn dats(&self, which: Pick) -> Result<Vec<DatId>> {
        Ok(if which.takes(self.1) {
            vec![self.0]
        } else {
            vec![]
        })
    }
    fn specs(&self) -> Result<Vec<ArgSpec>> {
        Ok(vec![dat_arg(self.0, None, -1, self.1)])
    }
}

#[test]
fn host_and_device_copies_move_only_when_stale() {
    let mem = Arc::new(HostMemory::new());
    let parts = Parts {
        exec: Arc::new(Serial { plan: false }),
        dist: Box::new(SingleNode::new()),
        device: Some(mem.clone()),
        loops: None,
    };
    let mut rt = Runtime::new(parts, Box::new(|_| {}));
    let mut rec = Recorder::default();
    let set = rt.dom_mut().decl_set(64, "s").unwrap();
    let x: Vec<u8> = (0..64).flat_map(|i| (i as f64).to_ne_bytes()).collect();
    let (x, _) = unsafe {
        // SAFETY: `x` holds the set's 64 doubles.
        rt.decl_dat(
            "op_decl_dat",
            set,
            1,
            "double",
            8,
            op2_core::runtime::data::Storage::Copy(x.as_ptr()),
            "x",
            false,
        )
    }
    .unwrap();
    rt.device_add_dat(&mut rec, "op_decl_dat", x).unwrap();
    assert_eq!(
        (mem.uploads(), rec.on_device.len()),
        (1, 1),
        "a device copy at declaration"
    );
    assert_eq!(rt.dat(x).fresh, Fresh::Both);
    // a generated device loop writes x: the host copy is stale, nothing moved
    let up = mem.uploads();
    rt.begin_generated(&mut rec, "gen", set, &OneDat(x, Access::Rw), Side::Device)
        .unwrap();
    rt.end_generated(&mut rec, &OneDat(x, Access::Rw), Side::Device)
        .unwrap();
    assert_eq!((mem.uploads(), mem.downloads()), (up, 0));
    assert_eq!(rt.dat(x).fresh, Fresh::Device);
    assert_eq!(rec.states.last(), Some(&(x, true, Some(Fresh::Device))));
    // a host read brings it back once; a second read moves nothing
    rt.host_fresh(&mut rec, "fetch", x).unwrap();
    rt.host_fresh(&mut rec, "fetch", x).unwrap();
    assert_eq!(mem.downloads(), 1);
    assert_eq!(rt.dat(x).fresh, Fresh::Both);
    // a host loop writes it: the next device loop uploads it, once
    let inv = FnInvoker(|_, p: &[*mut u8]| {
        // SAFETY: one pointer to a double.
        unsafe { *(p[0] as *mut f64) *= 2.0 };
    });
    let d = desc(
        "twice",
        set,
        vec![dat_arg(x, None, -1, Access::Rw)],
        vec![GlobalData::NONE],
    );
    // SAFETY: the kernel touches only its argument.
    unsafe { rt.run_loop(&mut rec, d, &inv) }.unwrap();
    assert_eq!(rt.dat(x).fresh, Fresh::Host);
    let up = mem.uploads();
    rt.begin_generated(&mut rec, "gen", set, &OneDat(x, Access::Read), Side::Device)
        .unwrap();
    rt.begin_generated(&mut rec, "gen", set, &OneDat(x, Access::Read), Side::Device)
        .unwrap();
    assert_eq!(mem.uploads(), up + 1);
    // a value the program wrote into its copy of the state wins
    rec.written_by_program = Some((x, Fresh::Device));
    let down = mem.downloads();
    rt.host_fresh(&mut rec, "fetch", x).unwrap();
    assert_eq!(
        mem.downloads(),
        down + 1,
        "adopted the program's dirty_hd and downloaded"
    );
    let want: Vec<f64> = (0..64).map(|i| i as f64 * 2.0).collect();
    assert_eq!(f64s(rt.dom(), x), want);
    transfer_report_matches_the_memory(&mut rt, &mem);
}

/// The args of a loop generated code runs over a map's from-set, reading
/// one dat through both ends of the map.
struct Through(DatId, MapId);

impl GeneratedArgs for Through {
    fn dats(&self, which: Pick) -> Result<Vec<DatId>> {
        Ok(if which.takes(Access::Read) {
            vec![self.0]
        } else {
            vec![]
        })
    }
    fn specs(&self) -> Result<Vec<ArgSpec>> {
        Ok(vec![
            dat_arg(self.0, Some(self.1), 0, Access::Read),
            dat_arg(self.0, Some(self.1), 1, Access::Read),
        ])
    }
}

fn f64_rows(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// One simulated rank of `g` in two, with the device `mem` and two
/// dats on the cells holding their global ids, both on the device: `val`
/// and `twin`.
fn device_rank(
    comm: op2_core::dist::sim::SimComm,
    g: &SimGrid,
    mem: Arc<HostMemory>,
) -> (Runtime, DatId, DatId) {
    let rank = comm.rank();
    let parts = Parts {
        exec: Arc::new(Serial { plan: false }),
        dist: Box::new(Distributed::new(Box::new(comm), None, None)),
        device: Some(mem.clone()),
        loops: None,
    };
    let mut rt = Runtime::new(parts, Box::new(|_| {}));
    let (dom, _) = g.declare(rank, 2).unwrap();
    *rt.dom_mut() = dom;
    let cells = SetId(1);
    let n = rt.dom().set(cells).size;
    let first = (g.ncells / 2) * rank;
    let ids: Vec<u8> = (first..first + n)
        .flat_map(|i| (i as f64).to_ne_bytes())
        .collect();
    let mut dats = [DatId(0); 2];
    for (d, name) in dats.iter_mut().zip(["val", "twin"]) {
        *d = rt
            .dom_mut()
            .decl_dat(
                "op_decl_dat",
                cells,
                1,
                "double",
                8,
                Some(&ids),
                name,
                false,
            )
            .unwrap();
        rt.device_add_dat(&mut NoMirror, "op_decl_dat", *d).unwrap();
    }
    (rt, dats[0], dats[1])
}

/// Owned rows v become v * 10 + 1: `val`'s on the device ("device code":
/// written into its device copy between `begin_generated` and
/// `end_generated`), `twin`'s by a host loop. Returns `val`'s device copy.
fn write_both(rt: &mut Runtime, mem: &HostMemory, val: DatId, twin: DatId) -> DevPtr {
    let (cells, mut rec) = (SetId(1), NoMirror);
    // "device code" writes val's owned rows: v * 10 + 1
    rt.begin_generated(
        &mut rec,
        "gen",
        cells,
        &OneDat(val, Access::Rw),
        Side::Device,
    )
    .unwrap();
    let ptr = rt.device().unwrap().dat(val).unwrap().ptr;
    let new: Vec<u8> = f64s(rt.dom(), val)
        .iter()
        .flat_map(|v| (v * 10.0 + 1.0).to_ne_bytes())
        .collect();
    mem.upload(ptr, &new).unwrap();
    rt.end_generated(&mut rec, &OneDat(val, Access::Rw), Side::Device)
        .unwrap();
    // a host loop does the same to the twin
    let inv = FnInvoker(|_, p: &[*mut u8]| {
        // SAFETY: one pointer to a double.
        unsafe { *(p[0] as *mut f64) = *(p[0] as *mut f64) * 10.0 + 1.0 };
    });
    let d = desc(
        "twin",
        cells,
        vec![dat_arg(twin, None, -1, Access::Rw)],
        vec![GlobalData::NONE],
    );
    // SAFETY: the kernel touches only its argument.
    unsafe { rt.run_loop(&mut rec, d, &inv) }.unwrap();
    ptr
}

/// MPI with device loops: before the exchange of a dat a device loop wrote,
/// only the rows the exchange sends come down (not the whole dat, as
/// before); the halo the device then reads equals the one the host path
/// exchanges for a twin dat written by a host loop, and the host copy
/// stays marked stale until the program reads it.
/// What one rank saw in `exchange_once`.
struct Seen {
    n: usize,
    total: usize,
    /// The transfer report before and after the exchange.
    moves: [op2_core::device::TransferStats; 2],
    gathers: u64,
    fresh: Fresh,
    /// val's rows on the device, the twin's on the host.
    device: Vec<f64>,
    twin: Vec<f64>,
}

/// One rank of `exchange_once`: partition, write val on the device and the
/// twin on the host, then a device loop reads val through a map.
fn exchange_once(comm: op2_core::dist::sim::SimComm, g: &SimGrid, gather: bool) -> Seen {
    let mem = Arc::new(if gather {
        HostMemory::new()
    } else {
        HostMemory::without_gather()
    });
    let (mut rt, val, twin) = device_rank(comm, g, mem.clone());
    let (edges, cells, ec) = (SetId(2), SetId(1), MapId(2));
    let mut rec = Recorder::default();
    let noop = FnInvoker(|_, _: &[*mut u8]| {});
    let read_both = |d| {
        desc(
            "read",
            edges,
            vec![
                dat_arg(d, Some(ec), 0, Access::Read),
                dat_arg(d, Some(ec), 1, Access::Read),
            ],
            vec![GlobalData::NONE; 2],
        )
    };
    // the first loop partitions (the device copies are placed again)
    // SAFETY: the kernel touches nothing.
    unsafe { rt.run_loop(&mut rec, read_both(twin), &noop) }.unwrap();
    let total = rt.dom().set(cells).total_size();
    let n = rt.dom().set(cells).size;
    let ptr = write_both(&mut rt, &mem, val, twin);
    let before = rt.device().unwrap().stats();
    // a device loop reads val through the map: its halo is exchanged
    rt.begin_generated(&mut rec, "gen", edges, &Through(val, ec), Side::Device)
        .unwrap();
    rt.finish_exchanges(&mut rec, "gen").unwrap();
    let after = rt.device().unwrap().stats();
    let fresh = rt.dat(val).fresh;
    // the host path exchanges the twin's halo
    // SAFETY: the kernel touches nothing.
    unsafe { rt.run_loop(&mut rec, read_both(twin), &noop) }.unwrap();
    let mut device = vec![0u8; total * 8];
    mem.download(ptr, &mut device).unwrap();
    Seen {
        n,
        total,
        moves: [before, after],
        gathers: mem.gathers(),
        fresh,
        device: f64_rows(&device),
        twin: f64_rows(&rt.dat(twin).data.as_slice()[..total * 8]),
    }
}

/// MPI with device loops: before the exchange of a dat a device loop wrote,
/// only the rows the exchange sends come down (not the whole dat, as
/// before), gathered on the device or (a device without a gather) in spans
/// of rows; the halo the device then reads equals the one the host path
/// exchanges for a twin dat written by a host loop, and the host copy
/// stays marked stale until the program reads it.
#[test]
fn a_device_dat_sends_only_its_exported_rows() {
    let g = SimGrid::new(1024, 40);
    for gather in [true, false] {
        let out = run_ranks(2, |comm| exchange_once(comm, &g, gather));
        for (rank, s) in out.into_iter().enumerate() {
            let what = format!("rank {rank}, gather {gather}");
            let [before, after] = s.moves;
            assert!(s.total > s.n, "{what} has a halo");
            assert_eq!(
                s.device, s.twin,
                "{what}: owned and halo rows on the device"
            );
            assert_eq!(s.fresh, Fresh::Device, "{what}: the host copy stays stale");
            assert_eq!(
                after.dat_downloads, before.dat_downloads,
                "{what}: the dat did not come down whole"
            );
            let down = after.halo_downloads.bytes - before.halo_downloads.bytes;
            assert_eq!(after.halo_downloads.count - before.halo_downloads.count, 1);
            assert!(
                down > 0 && down * 2 < (s.n * 8) as u64,
                "{what}: {down} bytes of {} came down",
                s.n * 8
            );
            assert_eq!(after.halo_uploads.count - before.halo_uploads.count, 1);
            assert_eq!(s.gathers, u64::from(gather), "{what}");
        }
    }
}

/// The transfer report (OP2_RS_DEVICE_STATS) after
/// `host_and_device_copies_move_only_when_stale`'s moves, plus one plan
/// asked for twice.
fn transfer_report_matches_the_memory(rt: &mut Runtime, mem: &HostMemory) {
    // the transfer report (OP2_RS_DEVICE_STATS) counts each move where it
    // happened; the simulated memory counts them independently
    let arrays = [1i32, 2, 3, 4];
    let plan = op2_core::device::plan_upload::PlanHostArrays {
        ind_map: &arrays,
        blkmap: &arrays[..2],
        ..Default::default()
    };
    let dev = rt.device().unwrap();
    dev.plan(3, &plan).unwrap();
    dev.plan(3, &plan).unwrap();
    let s = dev.stats();
    assert_eq!((s.dats_placed.count, s.dats_placed.bytes), (1, 512));
    assert_eq!((s.dat_uploads.count, s.dat_uploads.bytes), (1, 512));
    assert_eq!((s.dat_downloads.count, s.dat_downloads.bytes), (2, 1024));
    assert_eq!(
        (s.plans.count, s.plans.bytes),
        (1, 24),
        "a plan goes up once"
    );
    assert_eq!(s.maps.count + s.halo_uploads.count + s.scratch_up.count, 0);
    assert_eq!(mem.downloads(), s.dat_downloads.count);
    assert_eq!(mem.bytes_down(), s.dat_downloads.bytes);
    assert_eq!(mem.bytes_up(), 512 + 512 + 24);
    assert!(s
        .line()
        .contains(" dat_downloads=2 dat_downloads_bytes=1024 "));
}

mod device_loops {
    //! Loops of unchanged programs on a device (`Runtime::device_loop`),
    //! with a compiler whose "device code" doubles a dat in the simulated
    //! device memory and sums it into a global: the copies move only when
    //! stale, plans go up once, a constant's new value recompiles, and a
    //! loop without device code runs on the host with one line (or stops,
    //! as the policy says).
    use super::*;
    use op2_core::runtime::{
        CompileRequest, ConstDecl, DeviceKernel, DevicePolicy, KernelSite, LaunchInput,
        LoopCompiler, Placement, PlanShape,
    };
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Doubler {
        compiles: AtomicUsize,
    }

    struct DoubleKernel {
        staged: bool,
        nargs: usize,
        /// Kernel "timed": each call takes 0.25 s of device time.
        timed: bool,
        calls: u64,
    }

    impl LoopCompiler for Doubler {
        fn device_name(&self) -> String {
            "simulated".into()
        }
        fn compile(
            &self,
            r: &CompileRequest<'_>,
        ) -> std::result::Result<Box<dyn DeviceKernel>, String> {
            self.compiles.fetch_add(1, Ordering::SeqCst);
            match r.kernel.kernel.as_str() {
                "missing" => Err("kernel missing: no definition found".into()),
                k => Ok(Box::new(DoubleKernel {
                    staged: k == "staged",
                    nargs: r.specs.len(),
                    timed: k == "timed",
                    calls: 0,
                })),
            }
        }
    }

    impl DeviceKernel for DoubleKernel {
        fn plan_shape(&self) -> Option<PlanShape> {
            self.staged.then(|| PlanShape {
                inds: vec![-1; self.nargs],
                ninds: 0,
                part_size: 16,
            })
        }
        fn launch(
            &mut self,
            l: &LaunchInput<'_>,
        ) -> std::result::Result<Vec<Option<Vec<u8>>>, String> {
            assert_eq!(l.plan.is_some(), self.staged);
            self.calls += 1;
            let ArgKind::Dat { dat, .. } = l.specs[0].kind else {
                return Err("argument 0 is not a dat".into());
            };
            let p = l.copies.dat(dat).ok_or("no device copy")?.ptr as *mut f64;
            let mut sum = f64::from_ne_bytes(l.globals[1][..8].try_into().unwrap());
            for i in 0..l.set_size {
                // SAFETY: HostMemory's device pointers are host addresses;
                // the copy holds the set's doubles.
                unsafe {
                    *p.add(i) *= 2.0;
                    sum += *p.add(i);
                }
            }
            Ok(vec![None, Some(sum.to_ne_bytes().to_vec())])
        }
        fn device_time(&mut self) -> Option<std::result::Result<(f64, u64), String>> {
            self.timed
                .then_some(Ok((self.calls as f64 * 0.25, self.calls)))
        }
    }

    const RUN: DevicePolicy = DevicePolicy {
        allowed: true,
        fallback_error: false,
        silent: false,
    };

    /// Offer loop `lp` with kernel `k` under policy `p` to the device.
    fn dl(
        rt: &mut Runtime,
        lp: &Arc<op2_core::runtime::PreparedLoop>,
        k: &str,
        p: DevicePolicy,
    ) -> Result<Option<op2_core::runtime::LoopTiming>> {
        let kernel = || KernelSite {
            kernel: k,
            file: None,
        };
        rt.device_loop(&mut NoMirror, "op_par_loop", lp, &kernel, &|_| p)
    }

    struct Setup {
        rt: Runtime,
        mem: Arc<HostMemory>,
        comp: Arc<Doubler>,
        said: Arc<Mutex<Vec<String>>>,
        set: SetId,
        x: DatId,
    }

    fn setup() -> Setup {
        let mem = Arc::new(HostMemory::new());
        let comp = Arc::new(Doubler::default());
        let said = Arc::new(Mutex::new(Vec::new()));
        let s2 = said.clone();
        let parts = Parts {
            exec: Arc::new(Serial { plan: false }),
            dist: Box::new(SingleNode::new()),
            device: Some(mem.clone()),
            loops: Some(comp.clone()),
        };
        let mut rt = Runtime::new(parts, Box::new(move |s| s2.lock().unwrap().push(s.into())));
        let set = rt.dom_mut().decl_set(64, "s").unwrap();
        let x: Vec<u8> = (0..64).flat_map(|i| (i as f64).to_ne_bytes()).collect();
        // SAFETY: `x` holds the set's 64 doubles.
        let (x, _) = unsafe {
            rt.decl_dat(
                "op_decl_dat",
                set,
                1,
                "double",
                8,
                op2_core::runtime::data::Storage::Copy(x.as_ptr()),
                "x",
                false,
            )
        }
        .unwrap();
        rt.device_add_dat(&mut NoMirror, "op_decl_dat", x).unwrap();
        Setup {
            rt,
            mem,
            comp,
            said,
            set,
            x,
        }
    }

    /// Loop `name` over the set: x (RW), a global sum (INC).
    fn double_loop(
        s: &mut Setup,
        name: &str,
        sum: &mut f64,
    ) -> Arc<op2_core::runtime::PreparedLoop> {
        let args = vec![
            dat_arg(s.x, None, -1, Access::Rw),
            ArgSpec {
                kind: ArgKind::Gbl,
                dim: 1,
                type_name: "double".into(),
                access: Access::Inc,
                opt: true,
            },
        ];
        let g = GlobalData {
            data: sum as *mut f64 as *mut u8,
            bytes: 8,
        };
        let d = desc(name, s.set, args, vec![GlobalData::NONE, g]);
        s.rt.prepare_loop(&mut NoMirror, d, &|_| Ok(())).unwrap()
    }

    #[test]
    fn device_loops_move_copies_only_when_stale() {
        let mut s = setup();
        let mut sum = 0.0f64;
        let lp = double_loop(&mut s, "twice", &mut sum);
        let (up, down) = (s.mem.uploads(), s.mem.downloads());
        for _ in 0..2 {
            let t = dl(&mut s.rt, &lp, "twice", RUN);
            assert!(t.unwrap().is_some(), "ran on the device");
        }
        assert_eq!(
            (s.mem.uploads(), s.mem.downloads()),
            (up, down),
            "nothing moved"
        );
        assert_eq!(s.rt.dat(s.x).fresh, Fresh::Device);
        let want2: f64 = (0..64).map(|i| i as f64 * 2.0).sum();
        let want4: f64 = (0..64).map(|i| i as f64 * 4.0).sum();
        assert_eq!(
            sum,
            want2 + want4,
            "the reductions were written back, in order"
        );
        assert_eq!(s.comp.compiles.load(Ordering::SeqCst), 1, "compiled once");
        // a fetch downloads once
        s.rt.host_fresh(&mut NoMirror, "op_fetch_data", s.x)
            .unwrap();
        s.rt.host_fresh(&mut NoMirror, "op_fetch_data", s.x)
            .unwrap();
        assert_eq!(s.mem.downloads(), down + 1);
        let want: Vec<f64> = (0..64).map(|i| i as f64 * 4.0).collect();
        assert_eq!(f64s(s.rt.dom(), s.x), want);
        // a host loop writes x: the next device loop uploads it, once
        let inv = FnInvoker(|_, p: &[*mut u8]| {
            // SAFETY: one pointer to a double.
            unsafe { *(p[0] as *mut f64) += 1.0 };
        });
        let d = desc(
            "plus1",
            s.set,
            vec![dat_arg(s.x, None, -1, Access::Rw)],
            vec![GlobalData::NONE],
        );
        // SAFETY: the kernel touches only its argument.
        unsafe { s.rt.run_loop(&mut NoMirror, d, &inv) }.unwrap();
        assert_eq!(s.rt.dat(s.x).fresh, Fresh::Host);
        let up = s.mem.uploads();
        dl(&mut s.rt, &lp, "twice", RUN).unwrap();
        assert_eq!(s.mem.uploads(), up + 1);
        s.rt.host_fresh(&mut NoMirror, "op_fetch_data", s.x)
            .unwrap();
        let want: Vec<f64> = (0..64).map(|i| (i as f64 * 4.0 + 1.0) * 2.0).collect();
        assert_eq!(f64s(s.rt.dom(), s.x), want);
        assert_eq!(
            s.rt.placements(),
            [("twice".to_string(), Placement::Device)]
        );
    }

    #[test]
    fn plans_go_up_once_and_new_constants_recompile() {
        let mut s = setup();
        let mut sum = 0.0f64;
        let lp = double_loop(&mut s, "staged_loop", &mut sum);
        let c = |v: f64| ConstDecl {
            name: "gam".into(),
            addr: 0x1000,
            type_name: "double".into(),
            dim: 1,
            bytes: v.to_ne_bytes().to_vec(),
        };
        s.rt.decl_const(c(1.4));
        for _ in 0..3 {
            dl(&mut s.rt, &lp, "staged", RUN).unwrap().unwrap();
        }
        let st = s.rt.device().unwrap().stats();
        assert_eq!(st.plans.count, 1, "the plan went up once");
        assert_eq!(s.comp.compiles.load(Ordering::SeqCst), 1);
        s.rt.decl_const(c(1.4));
        dl(&mut s.rt, &lp, "staged", RUN).unwrap();
        assert_eq!(
            s.comp.compiles.load(Ordering::SeqCst),
            1,
            "the same value: no new code"
        );
        s.rt.decl_const(c(1.5));
        dl(&mut s.rt, &lp, "staged", RUN).unwrap();
        assert_eq!(
            s.comp.compiles.load(Ordering::SeqCst),
            2,
            "a new value: new code"
        );
    }

    /// Kernels that time their launches on the device: a table after
    /// the table of where each loop ran, by loop name, every kernel the
    /// loop ran with counted (one compiled again after a constant changed,
    /// one pruned after its loop was freed); none without such kernels.
    #[test]
    fn device_times_are_tabled_by_loop_across_kernels() {
        let mut s = setup();
        let mut sum = 0.0f64;
        let plain = double_loop(&mut s, "plain", &mut sum);
        dl(&mut s.rt, &plain, "twice", RUN).unwrap().unwrap();
        let t = s.rt.placement_table().unwrap();
        assert!(!t.contains("device time"), "{t}");
        let lp = double_loop(&mut s, "timed_loop", &mut sum);
        for _ in 0..3 {
            dl(&mut s.rt, &lp, "timed", RUN).unwrap().unwrap();
        }
        s.rt.decl_const(ConstDecl {
            name: "gam".into(),
            addr: 0x1000,
            type_name: "double".into(),
            dim: 1,
            bytes: 1.4f64.to_ne_bytes().to_vec(),
        });
        for _ in 0..2 {
            dl(&mut s.rt, &lp, "timed", RUN).unwrap().unwrap();
        }
        assert_eq!(s.comp.compiles.load(Ordering::SeqCst), 3);
        assert_eq!(
            s.rt.device_times(),
            [("timed_loop".to_string(), Ok((1.25, 5)))]
        );
        let t = s.rt.placement_table().unwrap();
        let rows: Vec<&str> = t
            .lines()
            .skip_while(|l| !l.contains("device time of each loop's kernels"))
            .skip(1)
            .collect();
        assert_eq!(
            rows[..2],
            [
                "  loop                        calls      seconds    us/call",
                "  timed_loop                      5     1.250000  250000.00"
            ],
            "{t}"
        );
        // the loop freed and its kernel pruned (objects freed: a new
        // generation): its time stays, and a new loop of the same name adds
        drop(lp);
        let y: Vec<u8> = vec![0; 64 * 8];
        // SAFETY: `y` holds the set's 64 doubles.
        let (y, _) = unsafe {
            s.rt.decl_dat(
                "op_decl_dat",
                s.set,
                1,
                "double",
                8,
                op2_core::runtime::data::Storage::Copy(y.as_ptr()),
                "y",
                true,
            )
        }
        .unwrap();
        s.rt.free_dat(&mut NoMirror, "op_free_dat_temp", y).unwrap();
        let again = double_loop(&mut s, "timed_loop", &mut sum);
        dl(&mut s.rt, &again, "timed", RUN).unwrap().unwrap();
        assert_eq!(s.comp.compiles.load(Ordering::SeqCst), 4, "a new loop");
        assert_eq!(
            s.rt.device_times(),
            [("timed_loop".to_string(), Ok((1.5, 6)))]
        );
    }

    #[test]
    fn loops_without_device_code_run_on_the_host_as_the_policy_says() {
        let mut s = setup();
        let mut sum = 0.0f64;
        let lp = double_loop(&mut s, "lost", &mut sum);
        for _ in 0..3 {
            let t = dl(&mut s.rt, &lp, "missing", RUN);
            assert!(t.unwrap().is_none(), "the caller runs it on the host");
        }
        let lines: Vec<String> = s.said.lock().unwrap().clone();
        let fallback: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains("runs on the host"))
            .collect();
        assert_eq!(fallback.len(), 1, "said once: {lines:?}");
        assert_eq!(
            fallback[0].trim(),
            "op2-rs: loop lost runs on the host: kernel missing: no definition found"
        );
        assert_eq!(s.comp.compiles.load(Ordering::SeqCst), 1, "not tried again");
        let strict = DevicePolicy {
            fallback_error: true,
            ..RUN
        };
        let e = dl(&mut s.rt, &lp, "missing", strict)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("op_par_loop")
                && e.contains("lost")
                && e.contains("no definition found")
                && e.contains("OP_FALLBACK_MODE"),
            "{e}"
        );
        // not in the whitelist: host, quietly, even in error mode
        let lp2 = double_loop(&mut s, "listed_out", &mut sum);
        let off = DevicePolicy {
            allowed: false,
            ..strict
        };
        let n = s.said.lock().unwrap().len();
        assert!(dl(&mut s.rt, &lp2, "twice", off).unwrap().is_none());
        assert_eq!(s.said.lock().unwrap().len(), n);
        assert_eq!(
            s.rt.placements()[0],
            (
                "listed_out".to_string(),
                Placement::Host("not in OP_WHITELIST".into())
            )
        );
        assert_eq!(sum, 0.0, "nothing ran on the device");
        assert_eq!(s.rt.dat(s.x).fresh, Fresh::Both);
    }
}
