//! The threads backend (`libop2_openmp`): a loop runs colour by colour over
//! its execution plan; the blocks of one colour run in parallel on a team of
//! threads in the OpenMP style (`team`: the calling thread is member 0,
//! blocks are handed out one at a time, a barrier separates colours; a loop
//! of one colour, such as every direct loop, hands them out in contiguous
//! chunks, one per member, see `chunks`). Blocks
//! of one colour touch disjoint indirectly-modified data, which is what the
//! plan's block colouring guarantees and `Plan::check` verifies. Each block
//! runs as one contiguous element range through the invoker. Running a loop
//! allocates nothing once its buffers have grown. Plan construction (on
//! first use of a loop) runs on a rayon pool of the same size, made when
//! first needed.
//!
//! Global reductions go to per-block slots that are combined in block order
//! after the loop, so every result — dats and globals — is bitwise the same for
//! any number of threads, given the same plan. OP_WORK globals (scratch)
//! get a private copy per block, started from the program's value, so no
//! two threads share one.

use op2_core::arg::{Access, ArgKind};
use op2_core::invoke::{ArgView, Executor, Invoker, LoopRun, ViewKind, MAX_RANGES};
use op2_core::plan::Plan;
use op2_core::reduce;
use op2_core::types::ScalarType;
use op2_core::{Op2Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

mod chunks;
mod team;
use chunks::Chunks;
use team::Team;

/// Loops with fewer elements than this run on the calling thread (same block
/// order and reduction slots, so the results do not change).
pub const INLINE_BELOW: usize = 4096;

/// Work of fewer elements than this (a plan of a small set: well under a
/// millisecond) runs on the calling thread instead of the planner pool. The
/// result is the same either way.
const INSTALL_BELOW: usize = 16384;

/// Multithreaded execution.
pub struct Threads {
    /// The loop team, started by the first loop that runs in parallel (so
    /// a program whose loops are all small never starts a thread); None
    /// inside: one thread, or the workers could not be started, so
    /// everything runs on the caller.
    team: OnceLock<Option<Team>>,
    /// Plan construction's pool, made on first use.
    plan_pool: OnceLock<Option<rayon::ThreadPool>>,
    /// Views every team member's [`VIEWS`] can hold without growing.
    views_reserved: AtomicUsize,
    /// Run once on every team member when the team starts (the library's
    /// own thread-local buffers, so a worker's first block allocates nothing).
    thread_init: Option<fn()>,
    nthreads: usize,
}

impl Threads {
    /// `n` threads (`n <= 1`: everything on the calling thread).
    pub fn new(n: usize) -> Threads {
        Threads {
            team: OnceLock::new(),
            plan_pool: OnceLock::new(),
            views_reserved: AtomicUsize::new(0),
            thread_init: None,
            nthreads: n.max(1),
        }
    }

    /// Run `init` on every team member when the team starts: thread-local
    /// state the kernels' callers keep per thread is then made before the
    /// first loop, not on a worker's first block (which may come any time
    /// later, and would allocate in steady state).
    pub fn with_thread_init(mut self, init: fn()) -> Threads {
        self.thread_init = Some(init);
        self
    }

    /// The team, started on first use. If the workers cannot be started,
    /// loops run on the calling thread.
    fn team(&self) -> Option<&Team> {
        self.team
            .get_or_init(|| {
                let team = (self.nthreads > 1)
                    .then(|| Team::new(self.nthreads).ok())
                    .flatten()?;
                if let Some(init) = self.thread_init {
                    team.run(&|_| init());
                }
                Some(team)
            })
            .as_ref()
    }

    /// Make every member's [`VIEWS`] hold `n` views without growing, before
    /// a loop with `n` arguments runs on the team. A worker would otherwise
    /// allocate on its first block of a reduction loop, which may come long
    /// after the loop's first call (whenever the caller happened to take all
    /// blocks before): steady state would allocate, at random.
    fn reserve_views(&self, team: &Team, n: usize) {
        if n > self.views_reserved.load(Ordering::Relaxed) {
            team.run(&|_| VIEWS.with(|cell| cell.borrow_mut().0.reserve(n)));
            self.views_reserved.fetch_max(n, Ordering::Relaxed);
        }
    }

    /// Threads from `OMP_NUM_THREADS` (what OP2 users set), else all cores.
    pub fn from_env() -> Threads {
        Threads::new(threads_from_env(
            std::env::var("OMP_NUM_THREADS").ok().as_deref(),
        ))
    }

    /// Threads from `OMP_NUM_THREADS`, else `default` (an MPI rank's share
    /// of the node's cores).
    pub fn from_env_or(default: usize) -> Threads {
        let v = std::env::var("OMP_NUM_THREADS").ok();
        Threads::new(parse_threads(v.as_deref()).unwrap_or(default))
    }

    pub fn nthreads(&self) -> usize {
        self.nthreads
    }
}

/// The first entry of an `OMP_NUM_THREADS` list, if it is a positive number.
fn parse_threads(v: Option<&str>) -> Option<usize> {
    v.and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// Parse `OMP_NUM_THREADS` (first entry of a list; invalid or empty: all cores).
pub fn threads_from_env(v: Option<&str>) -> usize {
    parse_threads(v).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// A global argument with a private copy per block: a value the kernel
/// combines, a location info, or OP_WORK scratch (started from the
/// program's value in every block, never combined).
#[derive(Clone, Copy)]
struct Reduction {
    arg: usize,
    access: Access,
    scalar: ScalarType,
    bytes: usize,
    /// Offset of this argument's slot inside a block's slot area.
    offset: usize,
    /// For an info argument: the MIN/MAX argument it describes.
    info_of: Option<usize>,
}

/// How a loop's globals are handled: per-block reduction slots, or the
/// whole loop in program order when the kernel overwrites a shared global.
#[derive(Default)]
struct Globals {
    reds: Vec<Reduction>,
    /// Bytes of one block's slot area (a multiple of a cache line).
    stride: usize,
    /// A global is written (OP_WRITE/OP_RW): keep the single-thread order.
    serial: bool,
}

impl Globals {
    /// Phase 1: classify the global arguments and lay out the slots.
    fn classify(&mut self, run: &LoopRun<'_>) {
        self.reds.clear();
        self.serial = false;
        let mut stride = 0usize;
        for (i, a) in run.args.iter().enumerate() {
            if !a.opt || run.views[i].kind != ViewKind::Global {
                continue;
            }
            let info_of = match a.kind {
                ArgKind::Info { reference } => Some(reference as usize),
                _ => None,
            };
            let access = if info_of.is_some() {
                Access::Read
            } else {
                a.access
            };
            match (info_of, access) {
                (None, Access::Read) => continue,
                (None, Access::Write | Access::Rw) => {
                    self.serial = true;
                    continue;
                }
                _ => {}
            }
            let bytes = run.views[i].elem_bytes.max(0) as usize;
            self.reds.push(Reduction {
                arg: i,
                access,
                scalar: run.scalars[i],
                bytes,
                offset: stride,
                info_of,
            });
            stride += bytes.div_ceil(8) * 8;
        }
        // One cache line (at least) per block keeps slots of different blocks apart.
        self.stride = stride.div_ceil(64).max(1) * 64;
    }

    /// Phase 2: every block's slots start at the identity (INC) or the
    /// current value (MIN/MAX, and OP_WORK scratch).
    ///
    /// # Safety
    /// The loop's global views point at their values (`Executor::execute`).
    unsafe fn init_slots(&self, run: &LoopRun<'_>, nblocks: usize, slots: &mut Vec<u8>) {
        slots.clear();
        if self.reds.is_empty() {
            return;
        }
        slots.resize(self.stride * nblocks, 0);
        for b in 0..nblocks {
            for r in &self.reds {
                // SAFETY: a global view points at the program's `bytes`
                // bytes (the caller's contract).
                let cur = unsafe { std::slice::from_raw_parts(run.views[r.arg].data, r.bytes) };
                let at = b * self.stride + r.offset;
                reduce::init_slot(r.scalar, r.access, cur, &mut slots[at..at + r.bytes]);
            }
        }
    }

    /// Phase 4: fold the per-block partials into the user's globals, in
    /// block order (so the result does not depend on the thread count).
    ///
    /// # Safety
    /// As for [`Globals::init_slots`]; no block of the loop runs.
    unsafe fn combine(&self, run: &LoopRun<'_>, plan: &Plan, slots: &[u8]) {
        let owned_blocks = (0..plan.nblocks).filter(|&b| plan.block_range(b).0 < run.owned);
        let combined = |r: &&Reduction| r.info_of.is_none() && r.access != Access::Work;
        for r in self.reds.iter().filter(combined) {
            // SAFETY: as in init_slots; no block runs now.
            let dst = unsafe { std::slice::from_raw_parts_mut(run.views[r.arg].data, r.bytes) };
            let has_info = self.reds.iter().any(|i| i.info_of == Some(r.arg));
            // Blocks of halo elements (past the owned ones) do not count.
            for b in owned_blocks.clone() {
                let src = &slots[b * self.stride + r.offset..b * self.stride + r.offset + r.bytes];
                if !has_info {
                    reduce::combine(r.scalar, r.access, dst, src);
                } else if reduce::improves(r.scalar, r.access, dst, src) {
                    // The block found a better min/max: take its value and location.
                    dst.copy_from_slice(src);
                    for i in self.reds.iter().filter(|i| i.info_of == Some(r.arg)) {
                        // SAFETY: as above, for the INFO argument.
                        let idst = unsafe {
                            std::slice::from_raw_parts_mut(run.views[i.arg].data, i.bytes)
                        };
                        let at = b * self.stride + i.offset;
                        idst.copy_from_slice(&slots[at..at + i.bytes]);
                    }
                }
            }
        }
    }
}

/// Pointer wrapper so block tasks can write their own slots.
#[derive(Clone, Copy)]
struct SlotBase(*mut u8);
// SAFETY: each block writes only its own disjoint slot range.
unsafe impl Send for SlotBase {}
// SAFETY: as above.
unsafe impl Sync for SlotBase {}

thread_local! {
    /// The calling thread's reduction layout and slots, reused loop after loop.
    static CALLER: RefCell<(Globals, Vec<u8>)> = RefCell::new(Default::default());
    /// Per thread, a copy of a loop's views with block-private global
    /// pointers (reused: no allocation per block once grown).
    static VIEWS: RefCell<(Vec<ArgView>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Run one block: its element range with the block's private globals.
///
/// # Safety
/// As for `Executor::execute`; no other thread runs a block of `b`'s colour
/// that touches its data (the plan's colouring), and `slots` holds every
/// block's slots.
unsafe fn run_block(
    run: &LoopRun<'_>,
    inv: &dyn Invoker,
    g: &Globals,
    plan: &Plan,
    slots: SlotBase,
    b: usize,
) {
    let (s, e) = plan.block_range(b);
    let halo = s >= run.owned;
    if !(halo && g.serial) && g.reds.is_empty() {
        // SAFETY: the caller's contract: the block's elements run here only.
        unsafe { inv.run(run.views, s, e) };
        return;
    }
    VIEWS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (views, scratch) = &mut *cell;
        views.clear();
        views.extend_from_slice(run.views);
        if halo && g.serial {
            // A halo block of a loop that writes a global: it writes a
            // scratch copy (halo elements run only for their indirect
            // increments).
            scratch.clear();
            for (view, a) in views.iter().zip(run.args) {
                if view.kind == ViewKind::Global && a.access != Access::Read {
                    // SAFETY: a global view points at its `elem_bytes` bytes.
                    scratch.extend_from_slice(unsafe {
                        std::slice::from_raw_parts(view.data, view.elem_bytes.max(0) as usize)
                    });
                }
            }
            let mut at = 0;
            for (view, a) in views.iter_mut().zip(run.args) {
                if view.kind == ViewKind::Global && a.access != Access::Read {
                    view.data = scratch.as_mut_ptr().wrapping_add(at);
                    at += view.elem_bytes.max(0) as usize;
                }
            }
        } else {
            for r in &g.reds {
                // The block's own slot range (inside `slots`, see init_slots).
                views[r.arg].data = slots.0.wrapping_add(b * g.stride + r.offset);
            }
        }
        // SAFETY: the caller's contract; the globals now point at this
        // block's slots or scratch.
        unsafe { inv.run(views, s, e) };
    })
}

/// How many consecutive blocks of a loop run as one unit (one
/// `Invoker::run_ranges` call): a plan of one colour whose loop reduces into
/// per-block slots, with an invoker that gains from it (op_seq.h runs the
/// blocks' in-order sums side by side: aero's dotPV and dotR, issue 26).
/// Units are fixed by block index (unit `u`: the colour's blocks `u * size
/// ..`), so which blocks run together never depends on the thread count.
fn unit_size(g: &Globals, plan: &Plan, inv: &dyn Invoker) -> usize {
    if plan.ncolors == 1 && !g.reds.is_empty() && !g.serial {
        inv.ranges_at_once().clamp(1, MAX_RANGES)
    } else {
        1
    }
}

/// Run one unit of blocks (see [`unit_size`]): one block as [`run_block`];
/// several with their own copies of the views, each pointing at its block's
/// slots, in one `run_ranges` call.
///
/// # Safety
/// As for [`run_block`], for every block of `unit`; the loop has per-block
/// reduction slots and no serial global (`unit_size`).
unsafe fn run_unit(
    run: &LoopRun<'_>,
    inv: &dyn Invoker,
    g: &Globals,
    plan: &Plan,
    slots: SlotBase,
    unit: &[i32],
) {
    if let [b] = unit {
        // SAFETY: the caller's contract.
        return unsafe { run_block(run, inv, g, plan, slots, *b as usize) };
    }
    VIEWS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let views = &mut cell.0;
        views.clear();
        let mut ranges = [(0usize, 0usize); MAX_RANGES];
        for (k, &b) in unit.iter().enumerate() {
            let b = b as usize;
            let at = views.len();
            views.extend_from_slice(run.views);
            for r in &g.reds {
                // The block's own slot range (inside `slots`, see init_slots).
                views[at + r.arg].data = slots.0.wrapping_add(b * g.stride + r.offset);
            }
            ranges[k] = plan.block_range(b);
        }
        // SAFETY: the caller's contract; each block's globals point at its
        // own slots.
        unsafe { inv.run_ranges(views, &ranges[..unit.len()]) };
    })
}

/// Runs the blocks of one loop, colour by colour, on the team.
struct ColourSchedule<'a> {
    run: &'a LoopRun<'a>,
    inv: &'a dyn Invoker,
    plan: &'a Plan,
    g: &'a Globals,
    slots: SlotBase,
    /// The first colour with a block past the core elements: halos must have
    /// arrived before it (`ncolors` when no exchange is in flight).
    first_halo: usize,
    /// The next block (index into `blkmap`, which groups blocks by colour).
    next: AtomicUsize,
    /// A plan of one colour: its units of blocks (`unit` blocks each, see
    /// [`unit_size`]) in a chunk per member, instead of `next`.
    chunks: Option<Chunks>,
    unit: usize,
    /// A block's kernel panicked: the others skip their remaining blocks.
    failed: AtomicBool,
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    halo: Mutex<Result<()>>,
}

impl ColourSchedule<'_> {
    /// Run one unit of blocks, keeping a panic (the team must still meet
    /// at barriers).
    ///
    /// # Safety
    /// As for [`run_unit`].
    unsafe fn block(&self, unit: &[i32]) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: the caller's contract (blocks of one colour touch
            // disjoint data: the plan's invariant).
            unsafe { run_unit(self.run, self.inv, self.g, self.plan, self.slots, unit) }
        }));
        if let Err(p) = r {
            self.failed.store(true, Ordering::Relaxed);
            self.panic
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(p);
        }
    }

    /// Member `me`'s part: take blocks one at a time; a block index taken
    /// past the current colour is kept for its own colour.
    ///
    /// # Safety
    /// As for [`run_block`]; every member of `team` runs this together.
    unsafe fn member(&self, team: &Team, me: usize) {
        if self.plan.ncolors == 1 {
            // SAFETY: the caller's contract.
            return unsafe { self.member_one_colour(team, me) };
        }
        let plan = self.plan;
        let mut pending: Option<usize> = None;
        let mut end = 0usize;
        for c in 0..plan.ncolors {
            if c == self.first_halo {
                self.halo_barrier(team, me);
            }
            end += plan.ncolblk[c] as usize;
            loop {
                let i = pending
                    .take()
                    .unwrap_or_else(|| self.next.fetch_add(1, Ordering::Relaxed));
                if i >= end {
                    pending = Some(i);
                    break;
                }
                // SAFETY: the caller's contract; each block index is taken
                // by one member only (`next`).
                unsafe { self.block(&plan.blkmap[i..i + 1]) };
            }
            team.barrier().wait();
        }
        if self.first_halo >= plan.ncolors {
            self.halo_barrier(team, me);
        }
    }

    /// Member `me`'s part of a plan of one colour: the units of blocks
    /// `chunks` gives it (or, for a team too large for chunks, the next
    /// from the shared counter), then the barrier; halos as
    /// [`ColourSchedule::member`] waits.
    ///
    /// # Safety
    /// As for [`ColourSchedule::member`].
    unsafe fn member_one_colour(&self, team: &Team, me: usize) {
        if self.first_halo == 0 {
            self.halo_barrier(team, me);
        }
        let blocks = self.plan.blocks_of_colour(0);
        let units = blocks.len().div_ceil(self.unit);
        let next = || match &self.chunks {
            Some(chunks) => chunks.next(me),
            None => Some(self.next.fetch_add(1, Ordering::Relaxed)).filter(|&u| u < units),
        };
        while let Some(u) = next() {
            let unit = &blocks[u * self.unit..((u + 1) * self.unit).min(blocks.len())];
            // SAFETY: the caller's contract; `Chunks` gives each unit (of
            // the colour's blocks) to one member.
            unsafe { self.block(unit) };
        }
        team.barrier().wait();
        if self.first_halo >= 1 {
            self.halo_barrier(team, me);
        }
    }

    /// Every member has finished the colours before; member 0 (the calling
    /// thread) completes the halo exchanges; then all go on.
    fn halo_barrier(&self, team: &Team, me: usize) {
        let Some(wait) = self.run.wait else { return };
        team.barrier().wait();
        if me == 0 {
            *self.halo.lock().unwrap_or_else(|e| e.into_inner()) = wait();
        }
        team.barrier().wait();
    }

    fn outcome(self) -> Result<()> {
        if let Some(p) = self.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            std::panic::resume_unwind(p);
        }
        self.halo.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The first colour holding a block past the core elements (the plan never
/// gives such a block a core colour), or `ncolors`.
fn first_halo_colour(plan: &Plan, core: usize) -> usize {
    (0..plan.nblocks)
        .filter(|&b| plan.block_range(b).1 > core)
        .map(|b| plan.blk_col[b] as usize)
        .min()
        .unwrap_or(plan.ncolors)
}

impl Threads {
    /// Phase 3: colour by colour, the blocks of a colour in parallel; the
    /// colours of core blocks first, then (on the calling thread) the halo
    /// exchanges are completed, then the other colours.
    ///
    /// # Safety
    /// As for `Executor::execute`, with `plan` the loop's plan and `slots`
    /// initialised by [`Globals::init_slots`].
    unsafe fn run_colours(
        &self,
        run: &LoopRun<'_>,
        inv: &dyn Invoker,
        plan: &Plan,
        g: &Globals,
        slots: SlotBase,
    ) -> Result<()> {
        let first_halo = if run.wait.is_some() {
            first_halo_colour(plan, run.core)
        } else {
            plan.ncolors
        };
        let parallel = self.nthreads > 1 && !g.serial && plan.exec_length >= INLINE_BELOW;
        let team = if parallel { self.team() } else { None };
        let unit = unit_size(g, plan, inv);
        let Some(team) = team else {
            // On the calling thread, in the same block order.
            for c in 0..plan.ncolors {
                if c == first_halo {
                    if let Some(wait) = run.wait {
                        wait()?;
                    }
                }
                for u in plan.blocks_of_colour(c).chunks(unit) {
                    // SAFETY: the caller's contract; one thread.
                    unsafe { run_unit(run, inv, g, plan, slots, u) };
                }
            }
            return match (first_halo >= plan.ncolors, run.wait) {
                (true, Some(wait)) => wait(),
                _ => Ok(()),
            };
        };
        self.reserve_views(team, run.views.len() * unit);
        let sched = ColourSchedule {
            run,
            inv,
            plan,
            g,
            slots,
            first_halo,
            next: AtomicUsize::new(0),
            chunks: (plan.ncolors == 1)
                .then(|| Chunks::new((plan.ncolblk[0] as usize).div_ceil(unit), team.size()))
                .flatten(),
            unit,
            failed: AtomicBool::new(false),
            panic: Mutex::new(None),
            halo: Mutex::new(Ok(())),
        };
        // SAFETY: the caller's contract; members take disjoint blocks and
        // meet at a barrier between colours.
        team.run(&|me| unsafe { sched.member(team, me) });
        sched.outcome()
    }
}

impl Executor for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn wants_plan(&self) -> bool {
        true
    }

    fn install(&self, work: usize, f: &mut (dyn FnMut() + Send)) {
        if work < INSTALL_BELOW {
            // Outside a pool, core's parallel code runs on this thread: a
            // program whose sets are all small starts no thread.
            return f();
        }
        let pool = self.plan_pool.get_or_init(|| {
            (self.nthreads > 1)
                .then(|| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(self.nthreads)
                        .thread_name(|i| format!("op2-planner-{i}"))
                        .build()
                        .ok()
                })
                .flatten()
        });
        match pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    unsafe fn execute(&self, run: &LoopRun<'_>, inv: &dyn Invoker) -> Result<()> {
        let plan = run.plan.ok_or_else(|| {
            Op2Error::new(
                "op_par_loop",
                format!("loop \"{}\"", run.name),
                "the threads executor needs a plan",
            )
        })?;
        CALLER.with(|cell| {
            // A kernel that starts another loop (not OP2 usage) gets fresh state.
            let mut fresh = Default::default();
            let mut guard = cell.try_borrow_mut();
            let (g, slots) = match guard.as_deref_mut() {
                Ok(x) => x,
                Err(_) => &mut fresh,
            };
            g.classify(run);
            // SAFETY: the caller's contract: live views, a plan of this
            // loop; the slots live until the loop has combined them.
            unsafe {
                g.init_slots(run, plan.nblocks, slots);
                let base = SlotBase(slots.as_mut_ptr());
                self.run_colours(run, inv, plan, g, base)?;
                g.combine(run, plan, slots);
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use op2_core::arg::ArgSpec;
    use op2_core::invoke::FnInvoker;
    use op2_core::plan::Plan;
    use op2_core::plan::{PlanArg, PlanInput, Staging};

    #[test]
    fn env_parsing() {
        assert_eq!(threads_from_env(Some("3")), 3);
        assert_eq!(threads_from_env(Some("4,2")), 4);
        assert!(threads_from_env(Some("x")) >= 1);
        assert!(threads_from_env(None) >= 1);
    }

    fn view(data: *mut u8, map: &[i32], idx: i32, kind: ViewKind) -> ArgView {
        ArgView {
            data,
            map: if kind == ViewKind::Indirect {
                map.as_ptr()
            } else {
                std::ptr::null()
            },
            map_dim: if kind == ViewKind::Indirect { 2 } else { 0 },
            idx,
            elem_bytes: 8,
            kind,
            ..ArgView::NULL
        }
    }

    /// A double argument of dim 1.
    fn spec(kind: ArgKind, access: Access) -> ArgSpec {
        ArgSpec {
            kind,
            dim: 1,
            type_name: "double".into(),
            access,
            opt: true,
        }
    }

    /// The views of the chain loop (`chain_args`): `w` direct, both ends
    /// of each edge in `node`, the global `sum`.
    fn chain_views(w: &[f64], node: &mut [f64], sum: &mut f64, map: &[i32]) -> [ArgView; 4] {
        let n = node.as_mut_ptr() as *mut u8;
        [
            view(w.as_ptr() as *mut u8, map, -1, ViewKind::Direct),
            view(n, map, 0, ViewKind::Indirect),
            view(n, map, 1, ViewKind::Indirect),
            view(sum as *mut f64 as *mut u8, map, -1, ViewKind::Global),
        ]
    }

    fn chain_args() -> [ArgSpec; 4] {
        let dat = |idx| ArgKind::Dat {
            dat: op2_core::DatId(0),
            map: None,
            idx,
        };
        [
            spec(dat(-1), Access::Read),
            spec(dat(0), Access::Inc),
            spec(dat(1), Access::Inc),
            spec(ArgKind::Gbl, Access::Inc),
        ]
    }

    fn chain_plan(map: &[i32], ne: usize) -> Plan {
        let input = PlanInput {
            set_size: ne,
            core_size: ne,
            exec_size: 0,
            part_size: 128,
            staging: Staging::All,
            args: (0..2)
                .map(|idx| PlanArg {
                    opt: true,
                    ind: 0,
                    map,
                    map_dim: 2,
                    idx,
                    access: Access::Inc,
                    gbl: false,
                    dat_bytes: 8,
                    dat_dim: 1,
                    to_size: ne + 1,
                })
                .collect(),
            ninds: 1,
            cache_line_size: 128,
            full: false,
        };
        let plan = Plan::build(&input);
        plan.check(&input).unwrap();
        plan
    }

    /// Run every element of `plan` (all owned) on `nt` threads.
    ///
    /// # Safety
    /// The views are live for every element of the plan.
    unsafe fn run_plan(
        nt: usize,
        plan: &Plan,
        views: &[ArgView],
        args: &[ArgSpec],
        scalars: &[ScalarType],
        inv: &dyn Invoker,
    ) {
        let ne = plan.exec_length;
        let run = LoopRun {
            name: "test",
            exec_size: ne,
            owned: ne,
            core: ne,
            wait: None,
            views,
            args,
            scalars,
            plan: Some(plan),
        };
        // SAFETY: the caller's contract.
        unsafe { Threads::new(nt).execute(&run, inv) }.unwrap();
    }

    /// Edge loop on a chain incrementing both nodes and summing a global:
    /// results must be identical for 1, 2, 3 and 8 threads.
    #[test]
    fn bitwise_identical_across_thread_counts() {
        let ne = 20000usize;
        let map: Vec<i32> = (0..ne).flat_map(|e| [e as i32, e as i32 + 1]).collect();
        let w: Vec<f64> = (0..ne).map(|e| 1.0 / (e as f64 + 1.0)).collect();
        let plan = chain_plan(&map, ne);
        let args = chain_args();
        let scalars = [ScalarType::F64; 4];
        // SAFETY: the views point at `w`, `node` and `sum`.
        let inv = FnInvoker(|_n, p: &[*mut u8]| unsafe {
            let w = *(p[0] as *const f64);
            *(p[1] as *mut f64) += w;
            *(p[2] as *mut f64) -= 0.5 * w;
            *(p[3] as *mut f64) += w * w;
        });
        let mut results = Vec::new();
        for nt in [1, 2, 3, 8] {
            let mut node = vec![0.0f64; ne + 1];
            let mut sum = 0.5f64;
            let views = chain_views(&w, &mut node, &mut sum, &map);
            // SAFETY: the views point at `w`, `node` and `sum`.
            unsafe { run_plan(nt, &plan, &views, &args, &scalars, &inv) };
            results.push((node, sum));
        }
        for r in &results[1..] {
            assert!(r
                .0
                .iter()
                .zip(&results[0].0)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
            assert_eq!(r.1.to_bits(), results[0].1.to_bits());
        }
        // And close to the sequential sum.
        let seq: f64 = 0.5 + w.iter().map(|x| x * x).sum::<f64>();
        assert!((results[0].1 - seq).abs() <= 1e-12 * seq.abs());
    }

    /// An invoker that takes four ranges at once and records each call's
    /// ranges, running them one after the other.
    struct Grouping<F: Fn(usize, &[*mut u8]) + Sync> {
        inner: FnInvoker<F>,
        calls: Mutex<Vec<Vec<(usize, usize)>>>,
    }

    impl<F: Fn(usize, &[*mut u8]) + Sync> Invoker for Grouping<F> {
        unsafe fn run(&self, views: &[ArgView], start: usize, end: usize) {
            self.calls.lock().unwrap().push(vec![(start, end)]);
            // SAFETY: the caller's contract.
            unsafe { self.inner.run(views, start, end) }
        }
        fn ranges_at_once(&self) -> usize {
            MAX_RANGES
        }
        unsafe fn run_ranges(&self, views: &[ArgView], ranges: &[(usize, usize)]) {
            let n = views.len() / ranges.len();
            // every range has its own reduction slot
            let slots: Vec<*mut u8> = (0..ranges.len()).map(|k| views[k * n + 1].data).collect();
            assert!(slots
                .iter()
                .enumerate()
                .all(|(i, a)| slots[..i].iter().all(|b| b != a)));
            self.calls.lock().unwrap().push(ranges.to_vec());
            // SAFETY: the caller's contract.
            unsafe { op2_core::invoke::run_each(&self.inner, views, ranges) }
        }
    }

    /// A direct loop's plan: one colour, blocks of `part` elements.
    fn direct_plan(ne: usize, part: usize) -> Plan {
        let input = PlanInput {
            set_size: ne,
            core_size: ne,
            exec_size: 0,
            part_size: part,
            staging: Staging::All,
            args: Vec::new(),
            ninds: 0,
            cache_line_size: 128,
            full: false,
        };
        let plan = Plan::build(&input);
        plan.check(&input).unwrap();
        assert_eq!(plan.ncolors, 1);
        plan
    }

    /// A direct loop with a reduction, on an invoker that takes several
    /// ranges: the plan's blocks go to it in units of four consecutive
    /// blocks fixed by block index (the last unit shorter), the same units
    /// for every thread count (chunks per member, and the shared counter
    /// of a team larger than `chunks::MAX_MEMBERS`), every element once,
    /// and the sum bitwise the same.
    #[test]
    fn reduction_blocks_go_in_fixed_units() {
        let (ne, part) = (10_000usize, 256usize);
        let plan = direct_plan(ne, part);
        let nblocks = ne.div_ceil(part);
        assert_eq!(plan.nblocks, nblocks);
        let x: Vec<f64> = (0..ne).map(|e| 1.0 / (e as f64 + 3.0)).collect();
        let dat = ArgKind::Dat {
            dat: op2_core::DatId(0),
            map: None,
            idx: -1,
        };
        let args = [spec(dat, Access::Read), spec(ArgKind::Gbl, Access::Inc)];
        let scalars = [ScalarType::F64; 2];
        let seen: Vec<AtomicUsize> = (0..ne).map(|_| AtomicUsize::new(0)).collect();
        let want: Vec<Vec<(usize, usize)>> = (0..nblocks)
            .collect::<Vec<_>>()
            .chunks(MAX_RANGES)
            .map(|u| u.iter().map(|&b| plan.block_range(b)).collect())
            .collect();
        let mut sums = Vec::new();
        for nt in [1, 2, 3, 5, chunks::MAX_MEMBERS + 1] {
            seen.iter().for_each(|s| s.store(0, Ordering::Relaxed));
            let inv = Grouping {
                // SAFETY: the views point at `x` and `sum`.
                inner: FnInvoker(|n, p: &[*mut u8]| unsafe {
                    seen[n].fetch_add(1, Ordering::Relaxed);
                    *(p[1] as *mut f64) += *(p[0] as *const f64) * 0.75;
                }),
                calls: Mutex::new(Vec::new()),
            };
            let mut sum = 0.25f64;
            let views = [
                view(x.as_ptr() as *mut u8, &[], -1, ViewKind::Direct),
                view(&mut sum as *mut f64 as *mut u8, &[], -1, ViewKind::Global),
            ];
            // SAFETY: the views point at `x` and `sum`.
            unsafe { run_plan(nt, &plan, &views, &args, &scalars, &inv) };
            let mut calls = inv.calls.into_inner().unwrap();
            calls.sort();
            assert_eq!(calls, want, "{nt} threads");
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{nt} threads"
            );
            sums.push(sum);
        }
        assert!(
            sums.iter().all(|s| s.to_bits() == sums[0].to_bits()),
            "{sums:?}"
        );
    }

    /// Loops without a reduction, and indirect loops, run block by block
    /// even on an invoker that takes several ranges.
    #[test]
    fn only_reductions_of_one_colour_go_in_units() {
        let (ne, part) = (5_000usize, 256usize);
        let plan = direct_plan(ne, part);
        let mut out = vec![0.0f64; ne];
        let args = [spec(
            ArgKind::Dat {
                dat: op2_core::DatId(0),
                map: None,
                idx: -1,
            },
            Access::Write,
        )];
        let inv = Grouping {
            // SAFETY: the view points at `out`.
            inner: FnInvoker(|n, p: &[*mut u8]| unsafe { *(p[0] as *mut f64) = n as f64 }),
            calls: Mutex::new(Vec::new()),
        };
        let views = [view(out.as_mut_ptr() as *mut u8, &[], -1, ViewKind::Direct)];
        // SAFETY: the view points at `out`.
        unsafe { run_plan(2, &plan, &views, &args, &[ScalarType::F64], &inv) };
        let calls = inv.calls.into_inner().unwrap();
        assert_eq!(calls.len(), plan.nblocks);
        assert!(calls.iter().all(|c| c.len() == 1));
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as f64));

        // an indirect loop with a global sum (several colours)
        let ne = 20000usize;
        let map: Vec<i32> = (0..ne).flat_map(|e| [e as i32, e as i32 + 1]).collect();
        let w: Vec<f64> = (0..ne).map(|e| 1.0 / (e as f64 + 1.0)).collect();
        let plan = chain_plan(&map, ne);
        assert!(plan.ncolors > 1);
        let mut node = vec![0.0f64; ne + 1];
        let mut sum = 0.0f64;
        let views = chain_views(&w, &mut node, &mut sum, &map);
        let inv = Grouping {
            // SAFETY: the views point at `w`, `node` and `sum`.
            inner: FnInvoker(|_n, p: &[*mut u8]| unsafe {
                let w = *(p[0] as *const f64);
                *(p[1] as *mut f64) += w;
                *(p[2] as *mut f64) -= w;
                *(p[3] as *mut f64) += w;
            }),
            calls: Mutex::new(Vec::new()),
        };
        // SAFETY: as above.
        unsafe { run_plan(2, &plan, &views, &chain_args(), &[ScalarType::F64; 4], &inv) };
        let calls = inv.calls.into_inner().unwrap();
        assert_eq!(calls.len(), plan.nblocks);
        assert!(calls.iter().all(|c| c.len() == 1));
    }

    /// An OP_WORK global is scratch per block: threads never share it (a
    /// kernel that writes it, waits and reads it back sees its own value),
    /// every block starts from the program's value, and the program's
    /// buffer is left as it was.
    #[test]
    fn work_globals_are_private_per_block() {
        let ne = 40000usize;
        let map: Vec<i32> = (0..ne).flat_map(|e| [e as i32, e as i32 + 1]).collect();
        let plan = chain_plan(&map, ne);
        let args = [
            spec(ArgKind::Gbl, Access::Work),
            spec(
                ArgKind::Dat {
                    dat: op2_core::DatId(0),
                    map: None,
                    idx: -1,
                },
                Access::Write,
            ),
        ];
        let scalars = [ScalarType::F64; 2];
        let starts = AtomicUsize::new(0);
        // SAFETY: the views point at `work` and `out`.
        let inv = FnInvoker(|n, p: &[*mut u8]| unsafe {
            let w = p[0] as *mut f64;
            if *w == -7.5 {
                starts.fetch_add(1, Ordering::Relaxed);
            }
            *w = n as f64;
            for _ in 0..50 {
                std::hint::spin_loop();
            }
            *(p[1] as *mut f64) = std::ptr::read_volatile(w);
        });
        for nt in [1, 2, 4] {
            let mut work = -7.5f64;
            let mut out = vec![-1.0f64; ne];
            let views = [
                view(&mut work as *mut f64 as *mut u8, &map, -1, ViewKind::Global),
                view(out.as_mut_ptr() as *mut u8, &map, -1, ViewKind::Direct),
            ];
            starts.store(0, Ordering::Relaxed);
            // SAFETY: the views point at `work` and `out`.
            unsafe { run_plan(nt, &plan, &views, &args, &scalars, &inv) };
            assert!(
                out.iter().enumerate().all(|(i, &v)| v == i as f64),
                "{nt} threads"
            );
            assert_eq!(
                work, -7.5,
                "{nt} threads: the program's scratch was written"
            );
            assert_eq!(starts.load(Ordering::Relaxed), plan.nblocks, "{nt} threads");
        }
    }
}
