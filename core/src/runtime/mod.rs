//! The runtime: one OP2 program's state and every decision about it, for
//! any front end (the C ABI in `capi`, or Rust). A [`Runtime`] owns the
//! [`Domain`] (sets, maps, dats with their halo and host/device state), the
//! [`Executor`] (how loops run), the [`Distribution`] (where data lives),
//! the device copies when there is a device, the caches of checked loops
//! and of plans, and the plan policy. A loop's lifecycle is a handful of
//! core functions ([`lifecycle`]) that Rust tests drive without C.
//!
//! A front end keeps mirrors of the model (OP2's C structs, which programs
//! and generated code read and sometimes write): the runtime tells it what
//! changed through a [`Mirror`], and prints through the `say` function it
//! was given (OP2 prints on the root process's C stdout).

pub mod calls;
pub mod config;
pub mod data;
pub mod device_loops;
pub mod fallback;
pub mod lifecycle;
pub mod pictures;
pub mod plans;
pub mod prepared;
mod residency;

pub use calls::{CallCache, CallSig};
pub use config::{Config, Opt};
pub use device_loops::{
    CompileRequest, ConstDecl, DeviceKernel, DevicePolicy, DeviceTime, KernelRef, KernelSite,
    LaunchInput, LoopCompiler, Placement, PlanShape,
};
pub use lifecycle::{GeneratedArgs, LoopTiming, Pick, Ready, Side};
pub use plans::PlanKey;
pub use prepared::{GlobalData, LoopDesc, PreparedLoop};

use crate::device::{DevPtr, DeviceCopies, DeviceMemory};
use crate::dist::{Distribution, InFlight};
use crate::domain::{Dat, DatId, Domain, Fresh, MapId};
use crate::error::Result;
use crate::invoke::Executor;
use crate::plan::Plan;
use std::sync::Arc;

/// What a front end mirrors of the model, told by the runtime whenever it
/// changes (every method has a default that ignores it).
pub trait Mirror {
    /// The host/device state the program left in its copy of a dat's
    /// state, if it can write one (OP2's `dirty_hd`): adopted before data
    /// moves, so a value the program wrote wins.
    fn seen_fresh(&self, _dat: DatId) -> Option<Fresh> {
        None
    }
    /// A dat's halo state, and (with a device) its host/device state.
    fn dat_state(&mut self, _dat: DatId, _halo_dirty: bool, _fresh: Option<Fresh>) {}
    /// A dat's or map's device copy is (now) at `ptr`.
    fn dat_on_device(&mut self, _dat: DatId, _ptr: DevPtr) {}
    fn map_on_device(&mut self, _map: MapId, _ptr: DevPtr) {}
    /// The mesh moved (partitioned, or renumbered): sizes, map entries and
    /// dat storage are new; plans built before are stale.
    fn mesh_moved(&mut self, _dom: &Domain, _partitioned: bool) {}
    /// A plan of loop `name` was built in `secs` seconds.
    fn plan_built(&mut self, _name: &str, _secs: f64) {}
}

/// A front end that mirrors nothing (Rust callers, tests).
pub struct NoMirror;
impl Mirror for NoMirror {}

/// A library's parts: chosen by its composition root.
pub struct Parts {
    pub exec: Arc<dyn Executor + Send + Sync>,
    pub dist: Box<dyn Distribution>,
    pub device: Option<Arc<dyn DeviceMemory>>,
    /// Loops of unchanged programs on the device (code written at run
    /// time; needs `device`).
    pub loops: Option<Arc<dyn LoopCompiler>>,
}

/// Where the runtime's messages go (OP2 prints them on the root's stdout).
pub type Say = Box<dyn Fn(&str) + Send + Sync>;

/// One program's state (see the module docs).
pub struct Runtime {
    dom: Domain,
    exec: Arc<dyn Executor + Send + Sync>,
    dist: Box<dyn Distribution>,
    device: Option<DeviceCopies>,
    device_loops: Option<device_loops::DeviceLoops>,
    config: Config,
    say: Say,
    /// Checked loops by call, for one generation.
    loops: CallCache<Arc<PreparedLoop>>,
    /// Plans of the loops the runtime runs, per key.
    plans: crate::FastHashMap<PlanKey, Arc<Plan>>,
    /// Loops whose plan colouring was pictured (`OP2_RS_PLAN_CSV`,
    /// `OP2_RS_PLAN_VTK`), and which of the two directories could not be
    /// written (reported once, nothing more is tried there).
    plan_pictures: std::collections::HashSet<String>,
    plan_pictures_failed: [bool; 2],
    /// Halo exchanges generated code started, finished before anything
    /// moves dat storage.
    in_flight: Vec<Box<dyn InFlight>>,
    /// Changes whenever objects are freed or storage moves: calls cached by
    /// their raw arguments are checked again.
    generation: u64,
}

impl Runtime {
    pub fn new(parts: Parts, say: Say) -> Runtime {
        Runtime {
            dom: Domain::new(),
            exec: parts.exec,
            dist: parts.dist,
            device: parts.device.map(DeviceCopies::new),
            device_loops: parts.loops.map(device_loops::DeviceLoops::new),
            config: Config::default(),
            say,
            loops: CallCache::default(),
            plans: crate::FastHashMap::default(),
            plan_pictures: Default::default(),
            plan_pictures_failed: [false; 2],
            in_flight: Vec::new(),
            generation: 0,
        }
    }

    pub fn dom(&self) -> &Domain {
        &self.dom
    }
    /// The model, for changes that move no storage (the runtime's own
    /// functions do those).
    pub fn dom_mut(&mut self) -> &mut Domain {
        &mut self.dom
    }
    pub fn dat(&self, id: DatId) -> &Dat {
        self.dom.dat(id)
    }
    pub fn exec(&self) -> &Arc<dyn Executor + Send + Sync> {
        &self.exec
    }
    pub fn dist(&self) -> &dyn Distribution {
        &*self.dist
    }
    pub fn dist_mut(&mut self) -> &mut dyn Distribution {
        &mut *self.dist
    }
    /// The device's memory, for a library that has one.
    pub fn device_memory(&self) -> Option<&Arc<dyn DeviceMemory>> {
        self.device.as_ref().map(|d| &d.mem)
    }
    /// The device copies, for a library that has a device.
    pub fn device(&mut self) -> Option<&mut DeviceCopies> {
        self.device.as_mut()
    }
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The options in force now (a front end passes them before calls
    /// that decide by them).
    pub fn set_config(&mut self, c: Config) {
        self.config = c;
    }
    /// The generation of caches keyed by raw call arguments.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// Does this library build plans for its loops (OP2's timing table
    /// then ends with the plan time)?
    pub fn builds_plans(&self) -> bool {
        self.exec.wants_plan()
    }

    /// Print a message (on the root process).
    pub fn say(&self, s: &str) {
        (self.say)(s)
    }

    /// Objects were freed or storage moved: cached calls are checked again.
    pub(crate) fn bump_generation(&mut self) {
        self.generation += 1;
        self.loops.clear();
    }

    /// The mesh moved (partitioned, or renumbered): plans of the old
    /// numbering are dropped, cached calls checked again, device copies
    /// made again from the host, and the front end told.
    pub(crate) fn mesh_moved(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        partitioned: bool,
    ) -> Result<()> {
        self.plans.clear();
        if let Some(d) = self.device_loops.as_mut() {
            d.clear_plans();
        }
        self.bump_generation();
        m.mesh_moved(&self.dom, partitioned);
        if let Some(dev) = self.device.as_mut() {
            dev.clear_mesh();
        }
        for i in 0..self.dom.maps().len() {
            self.device_add_map(m, call, MapId(i))?;
        }
        let ids: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        for id in ids {
            self.device_add_dat(m, call, id)?;
        }
        Ok(())
    }

    /// Free the device copies and forget the device (`op_cuda_exit`): from
    /// now on the runtime works as a library without one. With
    /// `OP2_RS_DEVICE_STATS` set, the transfer report (and, with device
    /// loops, where each loop ran) is printed first ([`crate::device::stats`]);
    /// per-loop device options that named no loop of the run are said
    /// first, one line each.
    pub fn release_device(&mut self) {
        if let Some(mut dev) = self.device.take() {
            for l in self.unused_device_options() {
                self.say(&format!(" op2-rs: {l}\n"));
            }
            if crate::device::TransferStats::wanted() {
                self.say(&format!("{}\n", dev.stats().line()));
                if let Some(t) = self.placement_table() {
                    self.say(&t);
                }
            }
            dev.release();
        }
    }

    /// `op_exit`: finish exchanges in flight, free the device copies, and
    /// hand back the distribution (to release the communication layer).
    pub fn exit(mut self, m: &mut dyn Mirror) -> (Result<()>, Box<dyn Distribution>) {
        let finished = self.finish_exchanges(m, "op_exit");
        self.release_device();
        (finished, self.dist)
    }
}
