//! Launching a generated loop on any [`Device`]: every parameter of [`Generated::params`]
//! bound from the runtime's device copies (dats, transposed maps), the
//! plan (staged scheme: core's `Plan`, built with the generator's groups,
//! its arrays uploaded once by `DeviceCopies::plan`) and the loop's
//! globals; the kernel launched (staged: colour by colour of the blocks);
//! the reductions' slots read back and combined in slot order, so the
//! result never depends on the device's scheduling.

use crate::{Device, LoopTimes};
use op2_codegen::{Dialect, Generated, LaunchParam, Scheme, GBL_BY_VALUE_BYTES};
use op2_core::arg::{ArgKind, ArgSpec};
use op2_core::device::layout;
use op2_core::device::memory::{DevPtr, DeviceError, DeviceMemory};
use op2_core::device::plan_upload::PlanDeviceArrays;
use op2_core::domain::{DatId, MapId};
use op2_core::plan::Plan;
use op2_core::reduce;
use op2_core::runtime::LaunchInput;
use op2_core::types::ScalarType;
use std::sync::{Arc, Weak};

/// What a launch binds: core's [`LaunchInput`] (the loop's set, its
/// checked arguments in the order the generator was given them, the
/// elements to run, the staged scheme's plan and its device arrays, each
/// global's current bytes).
pub type Bindings<'a> = LaunchInput<'a>;

fn err(w: String) -> DeviceError {
    DeviceError(w)
}

/// `n` as an `int` parameter called `what`, or an error saying it does not
/// fit (never a truncated value: the kernel would address the wrong
/// elements).
fn int_param(what: &str, n: usize) -> Result<Value, DeviceError> {
    i32::try_from(n).map(Value::Int).map_err(|_| {
        err(format!(
            "launch: {what} = {n} does not fit the kernel's 32-bit int"
        ))
    })
}

/// A plan offset parameter: `op2_i64` in code with 64-bit offsets, else a
/// checked `int`.
fn offset_param(g: &Generated, what: &str, n: usize) -> Result<Value, DeviceError> {
    if g.wide_offsets {
        i64::try_from(n)
            .map(Value::Long)
            .map_err(|_| err(format!("launch: {what} = {n} does not fit 64 bits")))
    } else {
        int_param(what, n)
    }
}

/// The maps in the order the generator numbered them (first use, by dat
/// and `op_arg_idx` arguments, as `describe` numbers them).
pub fn maps_in_order(args: &[ArgSpec]) -> Vec<MapId> {
    let mut v = Vec::new();
    for a in args {
        if let ArgKind::Dat { map: Some(m), .. } | ArgKind::Idx { map: Some(m), .. } = a.kind {
            if !v.contains(&m) {
                v.push(m);
            }
        }
    }
    v
}

fn dat_of(args: &[ArgSpec], a: usize) -> Result<DatId, DeviceError> {
    match args.get(a).map(|s| &s.kind) {
        Some(ArgKind::Dat { dat, .. }) => Ok(*dat),
        _ => Err(err(format!("launch: argument {a} is not a dat"))),
    }
}

struct Run {
    /// One value per parameter of the generated code.
    params: Vec<Value>,
    block_offset: Option<usize>,
    /// (argument, slot buffer, bytes per slot) of each reduction.
    reductions: Vec<(usize, DevPtr, usize)>,
}

/// Device buffers a loop's kernel keeps from launch to launch (its
/// globals' values, its reductions' slots), one per parameter, grown when
/// a launch needs more: a loop allocates and frees nothing on the device
/// once it has run (allocating and freeing device memory stalls a GPU).
#[derive(Debug, Default)]
pub struct Scratch {
    bufs: Vec<(usize, DevPtr, usize)>,
    /// The local (shared) memory of the largest block of the plan the
    /// last launch ran by: a maximum over every block, found once per
    /// plan, not at every launch (it was most of a loop's host time on a
    /// large mesh). The plan is held weakly: while this is held its
    /// address names no other plan.
    local: Option<(Weak<Plan>, usize)>,
}

impl Scratch {
    /// The buffer of parameter `param`, at least `bytes` long, and
    /// whether it was allocated now.
    fn get(
        &mut self,
        mem: &dyn DeviceMemory,
        param: usize,
        bytes: usize,
    ) -> Result<(DevPtr, bool), DeviceError> {
        if let Some(i) = self.bufs.iter().position(|b| b.0 == param) {
            let (_, p, n) = self.bufs[i];
            if n >= bytes {
                return Ok((p, false));
            }
            mem.free(p);
            self.bufs.swap_remove(i);
        }
        let p = mem.alloc(bytes.max(8))?;
        self.bufs.push((param, p, bytes.max(8)));
        Ok((p, true))
    }

    /// [`local_bytes`] of `plan`, computed once per plan.
    fn local_bytes(&mut self, g: &Generated, plan: &Arc<Plan>) -> usize {
        match &self.local {
            Some((p, bytes)) if std::ptr::eq(p.as_ptr(), Arc::as_ptr(plan)) => *bytes,
            _ => {
                let bytes = local_bytes(g, plan);
                self.local = Some((Arc::downgrade(plan), bytes));
                bytes
            }
        }
    }

    /// Free every buffer (the kernel is going).
    pub fn release(&mut self, mem: &dyn DeviceMemory) {
        for (_, p, _) in self.bufs.drain(..) {
            mem.free(p);
        }
    }
}

/// A kernel parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Device memory (a dat, a map, a plan array, a temporary).
    Ptr(DevPtr),
    Int(i32),
    /// An `op2_i64` (a plan's offset in code with 64-bit offsets).
    Long(i64),
    /// OpenCL: a `__local` block of this many bytes.
    Local(usize),
    /// A parameter passed by value: the first `len` bytes of `data` (a
    /// global's values, [`LaunchParam::GblValue`]).
    Bytes {
        data: [u8; GBL_BY_VALUE_BYTES],
        len: usize,
    },
}

/// Launch `kernel` (built from `g`) with `b` and wait for it; returns,
/// per argument, the combined value of each reduction (`None` for the
/// others).
pub fn launch<D: Device>(
    dev: &D,
    k: (&mut D::Kernel, &mut Scratch),
    g: &Generated,
    b: &Bindings<'_>,
) -> Result<Vec<Option<Vec<u8>>>, DeviceError> {
    let how = How {
        wait: true,
        times: None,
    };
    launch_with(dev, k, g, b, how)
}

/// How [`launch_with`] runs a loop.
pub struct How<'a, M> {
    /// Wait for the kernels of a loop without a reduction (a loop with one
    /// waits for the slots it downloads). Not waiting leaves the device's
    /// queue full: the next loop's launches and every transfer are ordered
    /// after this loop's kernels on the device (CUDA: the legacy default
    /// stream and synchronous transfers; OpenCL: an in-order queue and
    /// blocking transfers), so nothing the host reads or writes can
    /// overtake them.
    pub wait: bool,
    /// Time the kernels: a mark before the first launch, one after the
    /// last.
    pub times: Option<&'a mut LoopTimes<M>>,
}

/// [`launch`] as `how` says.
pub fn launch_with<D: Device>(
    dev: &D,
    (kernel, scratch): (&mut D::Kernel, &mut Scratch),
    g: &Generated,
    b: &Bindings<'_>,
    how: How<'_, D::Mark>,
) -> Result<Vec<Option<Vec<u8>>>, DeviceError> {
    let slots = match (g.scheme, &b.plan) {
        (Scheme::Staged | Scheme::Coloured, Some((p, _))) => p.nblocks,
        (Scheme::Staged | Scheme::Coloured, None) => {
            return Err(err(format!(
                "launch: the {:?} scheme needs a plan",
                g.scheme
            )))
        }
        (Scheme::Flat, _) => g.flat_groups(b.set_size),
    };
    let local = match &b.plan {
        Some((p, _)) if g.scheme == Scheme::Staged => scratch.local_bytes(g, p),
        _ => 0,
    };
    let run = bind((dev.memory(), scratch), g, b, slots, local)?;
    execute(dev, kernel, g, b, &run, (slots, local), how)
}

fn bind(
    (cl, scratch): (&dyn DeviceMemory, &mut Scratch),
    g: &Generated,
    b: &Bindings<'_>,
    slots: usize,
    local: usize,
) -> Result<Run, DeviceError> {
    let maps = maps_in_order(b.specs);
    let dev_dat = |d: DatId| {
        b.copies.dat(d).ok_or_else(|| {
            err(format!(
                "launch: dat {} has no device copy",
                b.dom.dat(d).name
            ))
        })
    };
    let stride = |d: DatId| -> Result<Value, DeviceError> {
        let dd = dev_dat(d)?;
        int_param("a SoA stride", dd.layout.soa.map_or(0, |(s, _, _)| s))
    };
    let mut run = Run {
        params: Vec::new(),
        block_offset: None,
        reductions: Vec::new(),
    };
    for (i, p) in g.params.iter().enumerate() {
        if let Some(v) = plan_param(g, p, b.plan.as_ref(), local) {
            run.params.push(v?);
            continue;
        }
        let v = match *p {
            LaunchParam::GroupDat(gi) => Value::Ptr(dev_dat(DatId(g.groups[gi].dat))?.ptr),
            LaunchParam::GroupStride(gi) => stride(DatId(g.groups[gi].dat))?,
            LaunchParam::BlockOffset => {
                run.block_offset = Some(i);
                Value::Int(0)
            }
            LaunchParam::SetSize => int_param("the set size", b.set_size)?,
            LaunchParam::Owned => int_param("the owned elements", b.owned)?,
            LaunchParam::Dat(a) | LaunchParam::IndDat(a) => {
                Value::Ptr(dev_dat(dat_of(b.specs, a)?)?.ptr)
            }
            LaunchParam::DatStride(a) | LaunchParam::IndDatStride(a) => {
                stride(dat_of(b.specs, a)?)?
            }
            LaunchParam::Map(m) => {
                let id = maps
                    .get(m)
                    .copied()
                    .ok_or_else(|| err(format!("launch: no map {m}")))?;
                Value::Ptr(b.copies.map(id).ok_or_else(|| {
                    err(format!(
                        "launch: map {} has no device copy",
                        b.dom.map(id).name
                    ))
                })?)
            }
            LaunchParam::MapStride => {
                int_param("the map stride", layout::map_stride(b.dom.set(b.set)))?
            }
            LaunchParam::GblIn(_) | LaunchParam::GblValue(_) | LaunchParam::RedOut(_) => {
                global_param(p, (cl, scratch), b, (i, slots), &mut run.reductions)?
            }
            LaunchParam::Opt(a) => Value::Int(i32::from(b.specs[a].opt)),
            other => return Err(err(format!("launch: parameter {other:?} without a value"))),
        };
        run.params.push(v);
    }
    Ok(run)
}

/// A global's parameter: its values uploaded (`GblIn`) or by value
/// (`GblValue`), or its reduction's slots (`RedOut`, zeroed; noted in
/// `reductions` to be read back). `i` is the parameter's index (its
/// scratch buffer).
fn global_param(
    p: &LaunchParam,
    (cl, scratch): (&dyn DeviceMemory, &mut Scratch),
    b: &Bindings<'_>,
    (i, slots): (usize, usize),
    reductions: &mut Vec<(usize, DevPtr, usize)>,
) -> Result<Value, DeviceError> {
    let values = |a: usize| {
        b.globals
            .get(a)
            .ok_or_else(|| err(format!("launch: no value for global {a}")))
    };
    Ok(match *p {
        LaunchParam::GblIn(a) => {
            let bytes = values(a)?;
            let (p, _) = scratch.get(cl, i, bytes.len())?;
            cl.upload(p, bytes)?;
            Value::Ptr(p)
        }
        LaunchParam::GblValue(a) => {
            let bytes = values(a)?;
            // the kernel's struct holds dim values; a switched-off
            // optional global has none (the kernel then gets zeros)
            let len = slot_bytes(&b.specs[a], a)?;
            if len > GBL_BY_VALUE_BYTES || bytes.len() > len {
                return Err(err(format!(
                    "launch: global {a} has {} bytes, its parameter {len} (at most {GBL_BY_VALUE_BYTES})",
                    bytes.len()
                )));
            }
            let mut data = [0u8; GBL_BY_VALUE_BYTES];
            data[..bytes.len()].copy_from_slice(bytes);
            Value::Bytes { data, len }
        }
        LaunchParam::RedOut(a) => {
            let per = slot_bytes(&b.specs[a], a)?;
            let (p, fresh) = scratch.get(cl, i, per * slots)?;
            // every work-group writes its slot at every launch (the
            // generated tree reduction ends unconditionally with the
            // write), so the slots need no zeroing per call (on a GPU one
            // more operation before the loop's kernel); zeroed when
            // allocated, so that a slot no code wrote reads as 0
            if fresh {
                cl.zero(p, per * slots)?;
            }
            reductions.push((a, p, per));
            Value::Ptr(p)
        }
        other => return Err(err(format!("launch: {other:?} is not a global's"))),
    })
}

/// The bytes of one slot of a reduction (`dim` scalars).
fn slot_bytes(s: &ArgSpec, a: usize) -> Result<usize, DeviceError> {
    let size = ScalarType::parse(&s.type_name).size().ok_or_else(|| {
        err(format!(
            "launch: global {a} of type {} has no size",
            s.type_name
        ))
    })?;
    Ok(s.dim.max(1) as usize * size)
}

/// The value of a parameter that comes from the plan (`None` for the
/// others).
fn plan_param(
    g: &Generated,
    p: &LaunchParam,
    plan: Option<&(&Arc<Plan>, PlanDeviceArrays)>,
    local: usize,
) -> Option<Result<Value, DeviceError>> {
    use LaunchParam as P;
    let from_plan = matches!(
        p,
        P::IndMap
            | P::IndMapStart(_)
            | P::LocMap
            | P::LocMapStart(_)
            | P::IndSizes
            | P::IndOffs
            | P::Blkmap
            | P::Offset
            | P::Nelems
            | P::Nthrcol
            | P::Thrcol
            | P::Local
    );
    if !from_plan {
        return None;
    }
    let Some((plan, d)) = plan else {
        return Some(Err(err(format!("launch: {p:?} needs a plan"))));
    };
    Some(Ok(match *p {
        P::IndMap => Value::Ptr(d.ind_map),
        P::IndMapStart(gi) => match offset_param(g, "ind_map's start", plan.ind_maps_start[gi]) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        },
        P::LocMap => Value::Ptr(d.loc_map),
        P::LocMapStart(j) => match plan.loc_maps_start.get(j).copied().flatten() {
            Some(s) => match offset_param(g, "loc_map's start", s) {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            },
            None => return Some(Err(err(format!("launch: plan argument {j} is not staged")))),
        },
        P::IndSizes => Value::Ptr(d.ind_sizes),
        P::IndOffs => Value::Ptr(d.ind_offs),
        P::Blkmap => Value::Ptr(d.blkmap),
        P::Offset => Value::Ptr(d.offset),
        P::Nelems => Value::Ptr(d.nelems),
        P::Nthrcol => Value::Ptr(d.nthrcol),
        P::Thrcol => Value::Ptr(d.thrcol),
        _ => Value::Local(local),
    }))
}

/// Local memory of the largest block.
fn local_bytes(g: &Generated, plan: &Plan) -> usize {
    let ng = g.groups.len().max(1);
    (0..plan.nblocks)
        .map(|blk| {
            let sizes: Vec<usize> = (0..g.groups.len())
                .map(|gi| plan.ind_sizes[blk * ng + gi] as usize)
                .collect();
            g.local_bytes(&sizes)
        })
        .max()
        .unwrap_or(0)
}

/// The work-groups of a flat launch that hold only core elements (those
/// below [`LaunchInput::core`]), when the launch is split there: 0 when
/// the core is the whole set (one node: one launch) or less than a
/// work-group.
fn flat_core_groups(g: &Generated, b: &Bindings<'_>) -> usize {
    if b.core >= b.set_size {
        return 0;
    }
    b.core / g.block_size.max(1)
}

fn execute<D: Device>(
    dev: &D,
    kernel: &mut D::Kernel,
    g: &Generated,
    b: &Bindings<'_>,
    run: &Run,
    (slots, local): (usize, usize),
    How { wait, times }: How<'_, D::Mark>,
) -> Result<Vec<Option<Vec<u8>>>, DeviceError> {
    // CUDA's staged blocks: dynamically sized shared memory (OpenCL's is
    // a `__local` parameter)
    let shared = if D::DIALECT == Dialect::Cuda {
        local
    } else {
        0
    };
    let halo_wait = || (b.halo_wait)().map_err(err);
    let mut times = times;
    let mut start = || times.as_mut().map(|t| t.start(dev)).transpose();
    let started = match (&b.plan, run.block_offset) {
        (Some((p, _)), Some(bo)) if g.scheme.uses_plan() => {
            let started = start()?;
            // the core colours (blocks of elements that touch no halo row)
            // are queued before the halo exchanges complete
            let mut params = run.params.clone();
            let mut first = 0;
            let core_colours = p.ncolors_core.min(p.ncolors);
            for (c, &n) in p.ncolblk[..p.ncolors].iter().enumerate() {
                if c == core_colours {
                    halo_wait()?;
                }
                params[bo] = Value::Int(first);
                dev.launch(kernel, &params, n as usize, g.block_size, shared)?;
                first += n;
            }
            if core_colours == p.ncolors {
                halo_wait()?;
            }
            started
        }
        (_, Some(bo)) if g.scheme == Scheme::Flat && flat_core_groups(g, b) > 0 => {
            // the whole work-groups below the core first, then the halo
            // wait, then the rest (the kernel starts at its first
            // work-group's elements: one launch's answers either way)
            let core_groups = flat_core_groups(g, b);
            let started = start()?;
            let mut params = run.params.clone();
            dev.launch(kernel, &params, core_groups, g.block_size, shared)?;
            halo_wait()?;
            params[bo] = int_param("the first work-group", core_groups)?;
            dev.launch(kernel, &params, slots - core_groups, g.block_size, shared)?;
            started
        }
        _ => {
            halo_wait()?;
            let started = start()?;
            dev.launch(kernel, &run.params, slots, g.block_size, shared)?;
            started
        }
    };
    if let (Some(t), Some(s)) = (times, started) {
        t.end(dev, s)?;
    }
    let cl = dev.memory();
    // one wait per loop, as OP2's generated code synchronises after each
    // loop: its time in the timing table is its own (unless the program
    // asked not to wait: OP2_RS_DEVICE_ASYNC)
    if run.reductions.is_empty() && wait {
        cl.synchronize()?;
    }
    let mut raws: Vec<Option<(Vec<u8>, usize)>> = vec![None; b.specs.len()];
    for &(a, p, per) in &run.reductions {
        let mut raw = vec![0u8; per * slots];
        cl.download(p, &mut raw)?;
        raws[a] = Some((raw, per));
    }
    let mut out = vec![None; b.specs.len()];
    for (a, r) in raws.iter().enumerate() {
        let Some((raw, per)) = r else { continue };
        out[a] = Some(match b.specs[a].kind {
            ArgKind::Info { reference } => {
                let r = usize::try_from(reference).ok();
                let Some((rspec, Some((rraw, rper)))) =
                    r.and_then(|r| Some((b.specs.get(r)?, raws.get(r)?.clone())))
                else {
                    return Err(err(format!(
                        "launch: op_arg_info {a} without its reduction"
                    )));
                };
                let r = r.unwrap_or(0);
                combine_info(rspec, &b.globals[r], &rraw, rper, &b.globals[a], raw, *per)?
            }
            _ => combine(&b.specs[a], &b.globals[a], raw, *per)?,
        });
    }
    Ok(out)
}

/// An `op_arg_info`'s slots combined with its reduction's, in slot order:
/// the info of the first slot whose value is strictly better than every
/// one before it (starting from the globals' values) is the result.
fn combine_info(
    rspec: &ArgSpec,
    rstart: &[u8],
    rraw: &[u8],
    rper: usize,
    start: &[u8],
    raw: &[u8],
    per: usize,
) -> Result<Vec<u8>, DeviceError> {
    let t = ScalarType::parse(&rspec.type_name);
    let (mut best, mut info) = (rstart.to_vec(), start.to_vec());
    for (v, i) in rraw.chunks_exact(rper).zip(raw.chunks_exact(per)) {
        let mut next = best.clone();
        if !reduce::combine(t, rspec.access, &mut next, v) {
            return Err(err(format!(
                "launch: a {} {} cannot be reduced",
                rspec.type_name,
                rspec.access.name()
            )));
        }
        if next != best {
            best = next;
            info = i.to_vec();
        }
    }
    Ok(info)
}

/// The slots combined in order (core's `reduce::combine`): a sum starts
/// from the global's value (the kernel's accumulators start from 0), a
/// min/max too (their accumulators started from it, so it changes nothing).
fn combine(spec: &ArgSpec, start: &[u8], raw: &[u8], per: usize) -> Result<Vec<u8>, DeviceError> {
    let t = ScalarType::parse(&spec.type_name);
    let mut acc = start.to_vec();
    if acc.is_empty() {
        // a switched-off optional global: nothing to combine
        return Ok(acc);
    }
    if acc.len() != per || !reduce::combine_slots(t, spec.access, &mut acc, raw) {
        return Err(err(format!(
            "launch: a {} {} cannot be reduced",
            spec.type_name,
            spec.access.name()
        )));
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value past `int` is an error naming it, never a truncated value;
    /// plan offsets of code with 64-bit offsets are `op2_i64`.
    #[test]
    fn int_parameters_are_checked_and_plan_offsets_widen() {
        assert_eq!(int_param("the set size", 7).unwrap(), Value::Int(7));
        let big = i32::MAX as usize + 1;
        assert_eq!(
            int_param("the map stride", big).unwrap_err().0,
            "launch: the map stride = 2147483648 does not fit the kernel's 32-bit int"
        );
        let mut g = Generated {
            text: String::new(),
            entry: String::new(),
            scheme: Scheme::Staged,
            params: Vec::new(),
            groups: Vec::new(),
            block_size: 64,
            wide_offsets: false,
            fma: false,
            strided: false,
            const_values: Vec::new(),
        };
        assert!(offset_param(&g, "loc_map's start", big).is_err());
        g.wide_offsets = true;
        assert_eq!(
            offset_param(&g, "loc_map's start", big).unwrap(),
            Value::Long(1 << 31)
        );
    }
}
