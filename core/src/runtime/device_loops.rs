//! Loops of unchanged programs on a device: the runtime's side of a
//! library that writes each loop's device code at run time (libop2_opencl;
//! the generator is op2-codegen, the compiler and launcher a backend's
//! [`LoopCompiler`]). The front end hands over, per call, where the
//! kernel's source can be found ([`KernelRef`]); the runtime asks the
//! compiler for the loop's device kernel once per prepared loop (again
//! when a constant the program declared changes), makes the device copies
//! of the loop's dats fresh, builds and uploads the plan the kernel asks
//! for, launches it, writes the combined reductions back into the
//! program's globals and marks the written dats fresh on the device. A
//! loop the compiler cannot serve runs on the host (the caller's usual
//! path), with one line naming the loop and the reason, or stops with an
//! error when the program asked for that (`OP_FALLBACK_MODE=error`).

use super::lifecycle::{GeneratedArgs, LoopTiming, Pick, Side};
use super::plans::{loop_plan_args, PlanKey};
use super::{Mirror, PreparedLoop, Runtime};
use crate::arg::{ArgKind, ArgSpec};
use crate::device::plan_upload::{PlanDeviceArrays, PlanHostArrays};
use crate::device::DeviceCopies;
use crate::dist::{DistKind, InFlight};
use crate::domain::{DatId, Domain, SetId};
use crate::error::{obj, Op2Error, Result};
use crate::plan::{Plan, Staging};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Where a loop's kernel is defined, as the program's call site says it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelRef {
    /// The kernel function's name (`op_par_loop`'s first argument).
    pub kernel: String,
    /// The source file of the call site (`__FILE__`), when known: its
    /// directory is searched after `OP2_RS_KERNEL_PATH`.
    pub file: Option<String>,
}

impl KernelRef {
    /// Is this the kernel `site` names?
    fn is(&self, site: &KernelSite<'_>) -> bool {
        self.kernel == site.kernel && self.file.as_deref() == site.file
    }
}

/// A [`KernelRef`] borrowed from the call (every device loop call names
/// its kernel; an owned copy is made only for a loop's first call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSite<'a> {
    pub kernel: &'a str,
    pub file: Option<&'a str>,
}

impl KernelSite<'_> {
    pub fn to_ref(&self) -> KernelRef {
        KernelRef {
            kernel: self.kernel.to_string(),
            file: self.file.map(str::to_string),
        }
    }
}

/// A constant the program declared with `op_decl_const`: its current value.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstDecl {
    /// The variable's name (C's `op_decl_const` passes the text of its
    /// argument); empty when the call gave none (C++'s function template):
    /// a loop compiler then looks the address up in the program's symbols.
    pub name: String,
    /// The address of the program's variable.
    pub addr: usize,
    pub type_name: String,
    pub dim: usize,
    pub bytes: Vec<u8>,
}

/// What a compiler is asked for: one loop.
pub struct CompileRequest<'a> {
    pub name: &'a str,
    pub kernel: &'a KernelRef,
    pub set: SetId,
    pub specs: &'a [ArgSpec],
    pub dom: &'a Domain,
    pub copies: &'a DeviceCopies,
    /// Every constant declared so far (the compiler keeps those the
    /// kernel uses).
    pub consts: &'a [ConstDecl],
    /// OP2's `OP_block_size` now ([`super::Config::block_size`]).
    pub block_size: i32,
}

/// The plan a staged device kernel runs by: each argument's indirect
/// group (-1: none), the number of groups, the block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanShape {
    pub inds: Vec<i32>,
    pub ninds: usize,
    pub part_size: usize,
}

/// One launch of a device kernel.
pub struct LaunchInput<'a> {
    pub dom: &'a Domain,
    pub copies: &'a DeviceCopies,
    pub set: SetId,
    pub specs: &'a [ArgSpec],
    /// Elements to run.
    pub set_size: usize,
    /// Elements this process owns (the first `owned`; under MPI the rest,
    /// up to `set_size`, are another's, run for their increments): only
    /// they count in reductions.
    pub owned: usize,
    /// The plan (when [`DeviceKernel::plan_shape`] asked for one) and its
    /// device arrays.
    pub plan: Option<(&'a Arc<Plan>, PlanDeviceArrays)>,
    /// Per argument, a global's current bytes; empty for the others.
    pub globals: &'a [Vec<u8>],
    /// Elements below this touch no halo row (under MPI the set's core;
    /// the set size on one node).
    pub core: usize,
    /// Completes the loop's halo exchanges and uploads the rows received
    /// (under MPI; otherwise, and when called again, it does nothing). The
    /// kernel calls it after queueing the launches of the elements below
    /// `core` (a staged plan's core colours, a flat launch's work-groups
    /// below it) and before any other, so the
    /// messages travel while the device computes; a kernel that cannot split
    /// its launch calls it first.
    pub halo_wait: &'a dyn Fn() -> std::result::Result<(), String>,
}

/// A [`LaunchInput::halo_wait`] with nothing to wait for.
pub fn no_halo_wait() -> std::result::Result<(), String> {
    Ok(())
}

/// A loop's compiled device code.
pub trait DeviceKernel: Send {
    /// The plan it needs (`None`: it runs without one).
    fn plan_shape(&self) -> Option<PlanShape>;
    /// Run it; per argument, a reduction's combined bytes (`None` for the
    /// others).
    fn launch(&mut self, l: &LaunchInput<'_>) -> std::result::Result<Vec<Option<Vec<u8>>>, String>;
    /// The device's own seconds in this kernel's launches so far and the
    /// number of calls timed, when it times them (`OP2_RS_DEVICE_TIMES`);
    /// may wait for the device to finish them.
    fn device_time(&mut self) -> Option<DeviceTime> {
        None
    }
    /// What the program's user must know about how it was written (one
    /// line; said once per loop), e.g. an assumption its source could not
    /// settle.
    fn note(&self) -> Option<String> {
        None
    }
}

/// A device that writes, compiles and launches loops' code at run time.
pub trait LoopCompiler: Send + Sync {
    /// The device, in words.
    fn device_name(&self) -> String;
    /// The loop's device kernel, or why there is none (one line).
    fn compile(&self, r: &CompileRequest<'_>)
        -> std::result::Result<Box<dyn DeviceKernel>, String>;
    /// What the timing table's reader must know about the device loops'
    /// times, if anything (e.g. that loops do not wait for their kernels).
    fn timing_note(&self) -> Option<String> {
        None
    }
    /// Per-loop options that named no loop of the run (`loops`: the names
    /// of every loop that came to the device), one line each; said at
    /// op_exit.
    fn unused_options(&self, loops: &[&str]) -> Vec<String> {
        let _ = loops;
        Vec::new()
    }
}

/// What the program's fallback policy says about one loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevicePolicy {
    /// The loop may run on the device (`OP_WHITELIST`, and
    /// `op_disable_device_execution` not in force).
    pub allowed: bool,
    /// A loop that cannot run on the device is an error
    /// (`OP_FALLBACK_MODE=error`).
    pub fallback_error: bool,
    /// Say nothing when a loop falls back (`OP_FALLBACK_MODE=silent`).
    pub silent: bool,
}

/// Where a loop ran (for the timing table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    Device,
    /// On the host, and why.
    Host(String),
}

enum Entry {
    Host(String),
    Device {
        kernel: Box<dyn DeviceKernel>,
        consts_gen: u64,
        /// The loop's plan (looked up by [`PlanKey`] once, not at every
        /// call).
        plan: Option<KnownPlan>,
    },
    /// Taken out while its kernel runs (put back after).
    Running,
}

/// A device loop's plan as its entry keeps it: valid while the plans
/// are (`plans_gen`).
struct KnownPlan {
    plan: Arc<Plan>,
    /// Its number for the device copies.
    number: usize,
    plans_gen: u64,
}

/// A kernel taken out of its entry to run, with its plan if known.
type Taken = (Box<dyn DeviceKernel>, Option<KnownPlan>);

/// A prepared loop's entry for one kernel (the entry keeps the loop
/// alive, so its address names no other loop).
struct Slot {
    kernel: KernelRef,
    lp: Arc<PreparedLoop>,
    entry: Entry,
}

/// The runtime's state for loops on a device.
pub(crate) struct DeviceLoops {
    compiler: Arc<dyn LoopCompiler>,
    consts: Vec<ConstDecl>,
    /// Changes whenever a constant's value does.
    consts_gen: u64,
    /// Per prepared loop (its address) the entry of each kernel it ran
    /// with (one, but for a loop name given to several kernels).
    entries: crate::FastHashMap<usize, Vec<Slot>>,
    /// Plans of device loops, with their numbers for the device copies.
    plans: crate::FastHashMap<PlanKey, (Arc<Plan>, usize)>,
    /// Changes whenever the plans are cleared (entries' plans are stale).
    plans_gen: u64,
    /// Where each loop (by name) ran last.
    placement: BTreeMap<String, Placement>,
    /// The runtime's generation when entries were last pruned.
    generation: u64,
    /// Device time of kernels dropped (pruned, compiled again), by loop
    /// name.
    retired: BTreeMap<String, DeviceTime>,
    /// Loops whose kernel's note ([`DeviceKernel::note`]) was said.
    noted: std::collections::BTreeSet<String>,
}

/// A loop's device seconds and calls timed ([`DeviceKernel::device_time`]),
/// or why they could not be read.
pub type DeviceTime = std::result::Result<(f64, u64), String>;

/// Add `t` to `sum`: seconds and calls add, an error stays.
fn add_time(sum: &mut DeviceTime, t: DeviceTime) {
    if let (Ok((s, n)), Ok((ts, tn))) = (&mut *sum, &t) {
        *s += ts;
        *n += tn;
    } else if sum.is_ok() {
        *sum = t;
    }
}

/// Add the device time of loop `name`'s kernel, if it times its launches,
/// to `sums` (a kernel about to be dropped: the retired times; or the
/// table's sums).
fn add_kernel_time(
    sums: &mut BTreeMap<String, DeviceTime>,
    name: &str,
    kernel: &mut dyn DeviceKernel,
) {
    if let Some(t) = kernel.device_time() {
        add_time(sums.entry(name.to_string()).or_insert(Ok((0.0, 0))), t);
    }
}

/// Plan numbers of device loops, apart from the front end's.
const PLAN_NUMBERS: usize = 1 << 30;

impl DeviceLoops {
    pub(crate) fn new(compiler: Arc<dyn LoopCompiler>) -> DeviceLoops {
        DeviceLoops {
            compiler,
            consts: Vec::new(),
            consts_gen: 0,
            entries: crate::FastHashMap::default(),
            plans: crate::FastHashMap::default(),
            plans_gen: 0,
            placement: BTreeMap::new(),
            generation: 0,
            retired: BTreeMap::new(),
            noted: Default::default(),
        }
    }

    /// Objects were freed or storage moved since the last call (the
    /// runtime prepares its loops again): forget the entries of prepared
    /// loops nobody else holds, so that a program that frees temporary dats
    /// every step does not accumulate them.
    fn prune(&mut self, generation: u64) {
        if generation != self.generation {
            self.generation = generation;
            let retired = &mut self.retired;
            self.entries.retain(|_, slots| {
                slots.retain_mut(|s| {
                    let keep = Arc::strong_count(&s.lp) > 1;
                    if let (false, Entry::Device { kernel, .. }) = (keep, &mut s.entry) {
                        add_kernel_time(retired, &s.lp.name, &mut **kernel);
                    }
                    keep
                });
                !slots.is_empty()
            });
        }
    }

    /// The mesh moved: plans are stale (kernels are not).
    pub(crate) fn clear_plans(&mut self) {
        self.plans.clear();
        self.plans_gen += 1;
    }

    /// The entry of loop `lp` with the kernel `site` names, if any.
    fn slot(&mut self, lp: &Arc<PreparedLoop>, site: &KernelSite<'_>) -> Option<&mut Slot> {
        self.entries
            .get_mut(&(Arc::as_ptr(lp) as usize))?
            .iter_mut()
            .find(|s| s.kernel.is(site))
    }

    /// Set the entry of `lp` with `site`'s kernel (a new one if none).
    fn set_entry(&mut self, lp: &Arc<PreparedLoop>, site: &KernelSite<'_>, entry: Entry) {
        if let Some(s) = self.slot(lp, site) {
            s.entry = entry;
            return;
        }
        self.entries
            .entry(Arc::as_ptr(lp) as usize)
            .or_default()
            .push(Slot {
                kernel: site.to_ref(),
                lp: lp.clone(),
                entry,
            });
    }
}

fn fallback_error(call: &str, name: &str, why: &str) -> Op2Error {
    Op2Error::new(
        call,
        obj("loop", name),
        format!("cannot run on the device ({why}) and OP_FALLBACK_MODE is error"),
    )
}

impl Runtime {
    /// The device that runs loops, in words.
    pub fn device_loops_name(&self) -> Option<String> {
        self.device_loops.as_ref().map(|d| d.compiler.device_name())
    }

    /// The device compiler's per-loop options that named no loop of the
    /// run ([`LoopCompiler::unused_options`]).
    pub fn unused_device_options(&self) -> Vec<String> {
        self.device_loops.as_ref().map_or_else(Vec::new, |d| {
            let names: Vec<&str> = d.placement.keys().map(String::as_str).collect();
            d.compiler.unused_options(&names)
        })
    }

    /// Where each loop ran last, by name.
    pub fn placements(&self) -> Vec<(String, Placement)> {
        self.device_loops.as_ref().map_or_else(Vec::new, |d| {
            d.placement
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
    }

    /// Where each loop ran, as a table (printed after OP2's timing table,
    /// and at op_exit with `OP2_RS_DEVICE_STATS`): `device`, or `host` and
    /// why; `None` without device loops. With loops timed on the device
    /// ([`Runtime::device_time_table`]) their table follows.
    pub fn placement_table(&mut self) -> Option<String> {
        let times = self.device_time_table();
        let d = self.device_loops.as_ref()?;
        let note = d
            .compiler
            .timing_note()
            .map_or_else(String::new, |n| format!("; {n}"));
        let mut s = format!(
            "\n  where each loop ran ({}{note}):\n",
            d.compiler.device_name()
        );
        for (name, p) in &d.placement {
            match p {
                Placement::Device => s += &format!("  {name:<24} device\n"),
                Placement::Host(why) => s += &format!("  {name:<24} host ({why})\n"),
            }
        }
        if let Some(t) = times {
            s += &t;
        }
        Some(s)
    }

    /// The device's own time of each loop's kernels, by loop name: those
    /// whose kernels time their launches (`OP2_RS_DEVICE_TIMES`), every
    /// kernel the name ran with, dropped ones included. Waits for the
    /// device to finish the loops timed.
    pub fn device_times(&mut self) -> Vec<(String, DeviceTime)> {
        let Some(d) = self.device_loops.as_mut() else {
            return Vec::new();
        };
        let mut sums = d.retired.clone();
        for s in d.entries.values_mut().flatten() {
            if let Entry::Device { kernel, .. } = &mut s.entry {
                add_kernel_time(&mut sums, &s.lp.name, &mut **kernel);
            }
        }
        sums.into_iter().collect()
    }

    /// [`Runtime::device_times`] as a table (printed after the table of
    /// where each loop ran); `None` when no loop is timed so.
    pub fn device_time_table(&mut self) -> Option<String> {
        let times = self.device_times();
        if times.is_empty() {
            return None;
        }
        let mut s = String::from(
            "\n  device time of each loop's kernels (OP2_RS_DEVICE_TIMES: marks in the \
             device's queue before the first launch and after the last of each call):\n",
        );
        s += &format!(
            "  {:<24} {:>8} {:>12} {:>10}\n",
            "loop", "calls", "seconds", "us/call"
        );
        for (name, t) in times {
            match t {
                Ok((secs, n)) => {
                    let per = if n > 0 { secs / n as f64 * 1e6 } else { 0.0 };
                    s += &format!("  {name:<24} {n:>8} {secs:>12.6} {per:>10.2}\n");
                }
                Err(why) => s += &format!("  {name:<24} not read ({why})\n"),
            }
        }
        Some(s)
    }

    /// `op_decl_const`: remember the constant's value for device code (a
    /// new value recompiles the loops whose kernels use it).
    pub fn decl_const(&mut self, c: ConstDecl) {
        let Some(d) = self.device_loops.as_mut() else {
            return;
        };
        match d
            .consts
            .iter_mut()
            .find(|x| x.name == c.name && x.addr == c.addr)
        {
            Some(x) if *x == c => {}
            Some(x) => {
                *x = c;
                d.consts_gen += 1;
            }
            None => {
                d.consts.push(c);
                d.consts_gen += 1;
            }
        }
    }

    /// Run a prepared loop on the device, if it can: `Ok(None)` means the
    /// caller runs it on the host (no device loops here, several
    /// processes, the policy says so, or its code could not be made; the
    /// last said once per loop).
    ///
    /// `kernel` and `policy` (the program's fallback policy for a loop
    /// name) are asked only by a library with device loops.
    pub fn device_loop<'k>(
        &mut self,
        m: &mut dyn Mirror,
        call: &'static str,
        lp: &Arc<PreparedLoop>,
        kernel: &dyn Fn() -> KernelSite<'k>,
        policy: &dyn Fn(&str) -> DevicePolicy,
    ) -> Result<Option<LoopTiming>> {
        if self.device_loops.is_none() || self.device.is_none() {
            return Ok(None);
        }
        let (k, policy) = (kernel(), policy(&lp.name));
        let generation = self.generation();
        if let Some(d) = self.device_loops.as_mut() {
            d.prune(generation);
        }
        if self.dist.kind() != DistKind::SingleNode && !self.dist.is_partitioned() {
            // the host path partitions the mesh (a loop before
            // op_partition); the loops after it come to the device
            let why = "a loop before op_partition (MPI): the host partitions the mesh";
            return self.on_host(call, lp, why.into(), policy, true);
        }
        if !policy.allowed {
            return self.on_host(call, lp, "not in OP_WHITELIST".into(), policy, true);
        }
        let Some((mut kernel, mut plan)) = self.device_kernel(lp, &k)? else {
            let why = match self.device_loops.as_mut().and_then(|d| d.slot(lp, &k)) {
                Some(Slot {
                    entry: Entry::Host(w),
                    ..
                }) => w.clone(),
                _ => "no device code".into(),
            };
            return self.on_host(call, lp, why, policy, false);
        };
        let out = self.launch_device(m, call, lp, &mut *kernel, &mut plan);
        if let Some(d) = self.device_loops.as_mut() {
            let consts_gen = d.consts_gen;
            let entry = Entry::Device {
                kernel,
                consts_gen,
                plan,
            };
            d.set_entry(lp, &k, entry);
            if d.placement.get(&lp.name) != Some(&Placement::Device) {
                d.placement.insert(lp.name.clone(), Placement::Device);
            }
        }
        out.map(Some)
    }

    /// The loop runs on the host: recorded, said once (unless silent), an
    /// error when the policy asks.
    fn on_host(
        &mut self,
        call: &str,
        lp: &PreparedLoop,
        why: String,
        policy: DevicePolicy,
        quiet: bool,
    ) -> Result<Option<LoopTiming>> {
        let Some(d) = self.device_loops.as_mut() else {
            return Ok(None);
        };
        let new = d.placement.get(&lp.name) != Some(&Placement::Host(why.clone()));
        d.placement
            .insert(lp.name.clone(), Placement::Host(why.clone()));
        if policy.fallback_error && !quiet {
            return Err(fallback_error(call, &lp.name, &why));
        }
        if new && !policy.silent && !quiet {
            self.say(&format!(
                " op2-rs: loop {} runs on the host: {why}\n",
                lp.name
            ));
        }
        Ok(None)
    }

    /// The loop's compiled kernel and its plan (if found before), taken
    /// out of its entry (compiled now the first time, or when a constant
    /// changed); `None` when it has none (the entry says why).
    fn device_kernel(
        &mut self,
        lp: &Arc<PreparedLoop>,
        site: &KernelSite<'_>,
    ) -> Result<Option<Taken>> {
        let Some(d) = self.device_loops.as_mut() else {
            return Ok(None);
        };
        let consts_gen_now = d.consts_gen;
        let mut stale = None;
        if let Some(s) = d.slot(lp, site) {
            match std::mem::replace(&mut s.entry, Entry::Running) {
                Entry::Device {
                    kernel,
                    consts_gen,
                    plan,
                } if consts_gen == consts_gen_now => return Ok(Some((kernel, plan))),
                Entry::Host(w) => {
                    s.entry = Entry::Host(w);
                    return Ok(None);
                }
                // compiled again below (a constant changed)
                Entry::Device { kernel, .. } => stale = Some(kernel),
                Entry::Running => {}
            }
        }
        if let Some(mut k) = stale {
            add_kernel_time(&mut d.retired, &lp.name, &mut *k);
        }
        let (Some(d), Some(copies)) = (self.device_loops.as_mut(), self.device.as_ref()) else {
            return Ok(None);
        };
        let kref = site.to_ref();
        let req = CompileRequest {
            name: &lp.name,
            kernel: &kref,
            set: lp.set,
            specs: &lp.specs,
            dom: &self.dom,
            copies,
            consts: &d.consts,
            block_size: self.config.block_size,
        };
        let progress = crate::progress::Progress::start(self.config.diags, || {
            format!("compiling loop {} for the device", lp.name)
        });
        let compiled = d.compiler.compile(&req);
        progress.done();
        match compiled {
            Ok(k) => {
                if let Some(n) = k.note().filter(|_| d.noted.insert(lp.name.clone())) {
                    self.say(&format!(" op2-rs: loop {}: {n}\n", lp.name));
                }
                Ok(Some((k, None)))
            }
            Err(why) => {
                d.set_entry(lp, site, Entry::Host(why));
                Ok(None)
            }
        }
    }

    /// Before a device loop: its dats' device copies fresh and, under MPI,
    /// its halo exchanges started (left in flight: returned, for the
    /// launch's halo wait). Returns the elements to run, how many of them
    /// touch no halo row, and the exchanges.
    fn device_copies_for(
        &mut self,
        m: &mut dyn Mirror,
        call: &'static str,
        lp: &PreparedLoop,
    ) -> Result<(usize, usize, Flights)> {
        if self.dist.kind() == DistKind::SingleNode {
            for &d in &lp.dats {
                self.device_fresh(m, call, d)?;
            }
            let n = self.dom.set(lp.set).size;
            return Ok((n, n, Vec::new()));
        }
        let n = self.begin_generated(m, call, lp.set, &Specs(&lp.specs), Side::Device)?;
        let core = self.dom.set(lp.set).core_size.min(n);
        Ok((n, core, std::mem::take(&mut self.in_flight)))
    }

    /// Device copies fresh, plan built and uploaded, kernel launched,
    /// reductions written back, written dats fresh on the device. Under
    /// MPI the loop's halo exchanges complete while the device runs the
    /// elements that touch no halo row (a staged plan's core colours, a
    /// flat launch's work-groups below the core; a flat one with a global
    /// reduction waits first), the rows received go up to the device
    /// copies before the other elements run, the launch runs the exec halo
    /// too when the loop writes through a map (only owned elements reduce),
    /// and the reductions are combined across processes after it.
    fn launch_device(
        &mut self,
        m: &mut dyn Mirror,
        call: &'static str,
        lp: &PreparedLoop,
        kernel: &mut dyn DeviceKernel,
        known: &mut Option<KnownPlan>,
    ) -> Result<LoopTiming> {
        let t0 = Instant::now();
        let mpi = self.dist.kind() != DistKind::SingleNode;
        let (set_size, core, flights) = self.device_copies_for(m, call, lp)?;
        let mut halo_secs = t0.elapsed().as_secs_f64();
        let globals = global_bytes(lp);
        let plans_gen = self.device_loops.as_ref().map_or(0, |d| d.plans_gen);
        let plan = match known.as_ref().filter(|k| k.plans_gen == plans_gen) {
            Some(k) => Some((k.plan.clone(), k.number)),
            None => match kernel.plan_shape() {
                Some(shape) => {
                    let (plan, number) = self.device_loop_plan(m, call, lp, &shape)?;
                    *known = Some(KnownPlan {
                        plan: plan.clone(),
                        number,
                        plans_gen,
                    });
                    Some((plan, number))
                }
                None => None,
            },
        };
        let dev_err =
            |e: String| Op2Error::new(call, obj("loop", &lp.name), format!("device: {e}"));
        let copies = self
            .device
            .as_mut()
            .ok_or_else(|| Op2Error::internal(call, "no device"))?;
        let plan = match &plan {
            Some((p, number)) => {
                let d = copies
                    .plan(*number, &PlanHostArrays::of(p))
                    .map_err(|e| dev_err(e.to_string()))?;
                Some((p, d))
            }
            None => None,
        };
        let ups = std::mem::take(&mut copies.halo_uploads);
        let input = LaunchInput {
            dom: &self.dom,
            copies,
            set: lp.set,
            specs: &lp.specs,
            set_size,
            owned: self.dom.set(lp.set).size,
            plan,
            globals: &globals,
            core,
            halo_wait: &no_halo_wait,
        };
        let done = launch_with_halo_wait(kernel, input, flights, ups);
        copies.count_halo_uploads(&done.uploaded);
        halo_secs += done.wait_secs;
        let (launched, waited) = (done.reduced, done.waited);
        let reduced = launched.map_err(dev_err)?;
        waited.map_err(dev_err)?;
        write_back(lp, &reduced);
        let t_reduce = Instant::now();
        if mpi {
            self.after_loop(lp)?;
        }
        for &d in &lp.written {
            self.written_on(d, Side::Device);
        }
        self.show_dats(m, &lp.dats);
        let t1 = Instant::now();
        Ok(LoopTiming {
            tag: lp.tag,
            secs: (t1 - t0).as_secs_f64(),
            mpi_secs: if mpi {
                halo_secs + (t1 - t_reduce).as_secs_f64()
            } else {
                0.0
            },
            transfer: lp.transfer,
            start: t0,
            end: t1,
        })
    }

    /// The plan of a device loop with `shape` (built once per key, with
    /// the per-element arrays device code reads).
    fn device_loop_plan(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        lp: &PreparedLoop,
        shape: &PlanShape,
    ) -> Result<(Arc<Plan>, usize)> {
        if shape.inds.len() != lp.specs.len() {
            return Err(Op2Error::internal(
                call,
                format!("loop \"{}\": a plan group per argument", lp.name),
            ));
        }
        let part_size = match self.config.part_size.max(0) as usize {
            0 => shape.part_size.max(1),
            p => p,
        };
        let key = PlanKey {
            name: lp.name.clone(),
            set: lp.set,
            part_size,
            staging: Staging::All,
            ninds: shape.ninds,
            args: loop_plan_args(&self.dom, &lp.specs, &shape.inds),
        };
        let known = self
            .device_loops
            .as_ref()
            .and_then(|d| d.plans.get(&key).cloned());
        if let Some(p) = known {
            return Ok(p);
        }
        let number = PLAN_NUMBERS + self.device_loops.as_ref().map_or(0, |d| d.plans.len());
        let plan = Arc::new(self.build_plan(m, &key, true, number)?);
        if let Some(d) = self.device_loops.as_mut() {
            d.plans.insert(key, (plan.clone(), number));
        }
        Ok((plan, number))
    }
}

/// Halo exchanges in flight.
type Flights = Vec<Box<dyn InFlight>>;

/// What [`launch_with_halo_wait`] gave.
struct Launched {
    /// The kernel's reductions, or why it failed.
    reduced: std::result::Result<Vec<Option<Vec<u8>>>, String>,
    /// Whether the exchanges completed and their rows went up.
    waited: std::result::Result<(), String>,
    /// Bytes of each halo upload (for the transfer report).
    uploaded: Vec<usize>,
    wait_secs: f64,
}

/// Launch `kernel` with `input`, its halo wait completing `flights` and
/// uploading the halo rows of `ups` (when the kernel calls it, or after the
/// launch if it did not, so the exchanges complete even when the launch
/// fails).
fn launch_with_halo_wait(
    kernel: &mut dyn DeviceKernel,
    input: LaunchInput<'_>,
    flights: Flights,
    ups: Vec<DatId>,
) -> Launched {
    let (dom, copies) = (input.dom, input.copies);
    let pending = RefCell::new(Some((flights, ups)));
    let uploaded = RefCell::new(Vec::new());
    let secs = Cell::new(0.0);
    let halo_wait = || -> std::result::Result<(), String> {
        let Some((flights, ups)) = pending.borrow_mut().take() else {
            return Ok(());
        };
        let t = Instant::now();
        let r = finish_and_upload(flights, &ups, dom, copies, &mut uploaded.borrow_mut());
        secs.set(secs.get() + t.elapsed().as_secs_f64());
        r
    };
    let input = LaunchInput {
        halo_wait: &halo_wait,
        ..input
    };
    let reduced = kernel.launch(&input);
    let waited = halo_wait();
    Launched {
        reduced,
        waited,
        uploaded: uploaded.into_inner(),
        wait_secs: secs.get(),
    }
}

/// Complete the halo exchanges in flight, then upload the halo rows they
/// brought to the device copies of `ups`; the bytes of each upload go to
/// `counted` (the transfer report). Finishing writes the received rows into
/// the dats' host storage through the pointers each exchange holds (as for
/// host loops, see the distribution's `DatExchange`); `dom` reads them only
/// after that.
fn finish_and_upload(
    flights: Flights,
    ups: &[DatId],
    dom: &Domain,
    copies: &DeviceCopies,
    counted: &mut Vec<usize>,
) -> std::result::Result<(), String> {
    for x in flights {
        x.finish().map_err(|e| e.to_string())?;
    }
    for &d in ups {
        let bytes = copies
            .upload_halo_rows_uncounted(dom, d)
            .map_err(|e| format!("dat \"{}\": {e}", dom.dat(d).name))?;
        counted.extend(bytes);
    }
    Ok(())
}

/// A prepared loop's arguments as the generated-code path asks for them
/// (the halo exchanges of a device loop under MPI).
struct Specs<'a>(&'a [ArgSpec]);

impl GeneratedArgs for Specs<'_> {
    fn dats(&self, which: Pick) -> Result<Vec<DatId>> {
        Ok(self
            .0
            .iter()
            .filter(|s| s.opt && which.takes(s.access))
            .filter_map(|s| match s.kind {
                ArgKind::Dat { dat, .. } => Some(dat),
                _ => None,
            })
            .collect())
    }

    fn specs(&self) -> Result<Vec<ArgSpec>> {
        Ok(self.0.to_vec())
    }
}

/// Each global argument's current bytes (the program's memory).
fn global_bytes(lp: &PreparedLoop) -> Vec<Vec<u8>> {
    lp.specs
        .iter()
        .zip(&lp.views)
        .map(|(s, v)| match s.kind {
            ArgKind::Gbl | ArgKind::Info { .. } if s.opt && !v.data.is_null() => {
                // SAFETY: a global's view points at the program's `dim`
                // values (checked non-NULL when the loop was prepared; the
                // program is inside this call), `elem_bytes` long.
                unsafe { std::slice::from_raw_parts(v.data, v.elem_bytes.max(0) as usize) }.to_vec()
            }
            _ => Vec::new(),
        })
        .collect()
}

/// The combined reductions into the program's globals.
fn write_back(lp: &PreparedLoop, reduced: &[Option<Vec<u8>>]) {
    for ((r, v), s) in reduced.iter().zip(&lp.views).zip(&lp.specs) {
        let (Some(r), ArgKind::Gbl | ArgKind::Info { .. }) = (r, &s.kind) else {
            continue;
        };
        let n = r.len().min(v.elem_bytes.max(0) as usize);
        if n > 0 && !v.data.is_null() {
            // SAFETY: as in `global_bytes`; the program's memory is not
            // otherwise borrowed while the loop runs.
            unsafe { std::ptr::copy_nonoverlapping(r.as_ptr(), v.data, n) };
        }
    }
}
