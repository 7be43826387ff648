//! The threads backend (`libop2_openmp`): a loop runs colour by colour over
//! its execution plan; the blocks of one colour run in parallel on a rayon
//! pool (they touch disjoint indirectly-modified data, which is what the plan's
//! block colouring guarantees and `Plan::check` verifies). Each block runs
//! as one contiguous element range through the invoker.
//!
//! Global reductions go to per-block slots that are combined in block order
//! after the loop, so every result — dats and globals — is bitwise the same for
//! any number of threads, given the same plan.

use op2_core::arg::{Access, ArgKind};
use op2_core::invoke::{ArgView, Executor, Invoker, LoopRun, ViewKind};
use op2_core::reduce;
use op2_core::types::ScalarType;
use rayon::prelude::*;

/// Loops with fewer elements than this run on the calling thread (same block
/// order and reduction slots, so the results do not change).
pub const INLINE_BELOW: usize = 4096;

/// Multithreaded execution.
pub struct Threads {
    pool: Option<rayon::ThreadPool>,
    nthreads: usize,
}

impl Threads {
    /// A pool of `n` threads (`n <= 1`: everything on the calling thread).
    pub fn new(n: usize) -> Threads {
        let n = n.max(1);
        let pool = if n > 1 {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("op2-worker-{i}"))
                .build()
                .ok()
        } else {
            None
        };
        Threads { pool, nthreads: n }
    }

    /// Threads from `OMP_NUM_THREADS` (what OP2 users set), else all cores.
    pub fn from_env() -> Threads {
        Threads::new(threads_from_env(
            std::env::var("OMP_NUM_THREADS").ok().as_deref(),
        ))
    }

    pub fn nthreads(&self) -> usize {
        self.nthreads
    }
}

/// Parse `OMP_NUM_THREADS` (first entry of a list; invalid or empty: all cores).
pub fn threads_from_env(v: Option<&str>) -> usize {
    v.and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
}

/// A global argument whose value the kernel combines (or a location info).
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

/// Pointer wrapper so block tasks can write their own slots.
#[derive(Clone, Copy)]
struct SlotBase(*mut u8);
// SAFETY: each block writes only its own disjoint slot range.
unsafe impl Send for SlotBase {}
// SAFETY: as above.
unsafe impl Sync for SlotBase {}

impl Executor for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn wants_plan(&self) -> bool {
        true
    }

    fn install(&self, f: &mut (dyn FnMut() + Send)) {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    unsafe fn execute(&self, run: &LoopRun<'_>, inv: &dyn Invoker) {
        let plan = run.plan.expect("the threads executor needs a plan");
        if plan.nblocks == 0 {
            return;
        }
        let mut reds: Vec<Reduction> = Vec::new();
        let mut stride = 0usize;
        let mut serial = false;
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
                (None, Access::Read | Access::Work) => continue,
                (None, Access::Write | Access::Rw) => {
                    // The kernel overwrites or reads back a shared global:
                    // keep the program order of a single thread.
                    serial = true;
                    continue;
                }
                _ => {}
            }
            let bytes = run.views[i].elem_bytes.max(0) as usize;
            reds.push(Reduction {
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
        let stride = stride.div_ceil(64).max(1) * 64;
        let nblocks = plan.nblocks;
        let mut slots = vec![0u8; if reds.is_empty() { 0 } else { stride * nblocks }];
        for b in 0..nblocks {
            for r in &reds {
                let cur = std::slice::from_raw_parts(run.views[r.arg].data, r.bytes);
                let slot = &mut slots[b * stride + r.offset..b * stride + r.offset + r.bytes];
                reduce::init_slot(r.access, cur, slot);
            }
        }
        let base = SlotBase(slots.as_mut_ptr());
        let owned = run.owned;
        let run_block = |b: usize| {
            let (s, e) = plan.block_range(b);
            if s >= owned && serial {
                // A halo block of a loop that writes a global: let it write a
                // scratch copy (halo elements are executed only for their
                // indirect increments).
                let mut v: Vec<ArgView> = run.views.to_vec();
                let mut scratch: Vec<Vec<u8>> = Vec::new();
                for (view, a) in v.iter_mut().zip(run.args) {
                    if view.kind == ViewKind::Global && a.access != Access::Read {
                        let mut buf =
                            std::slice::from_raw_parts(view.data, view.elem_bytes.max(0) as usize)
                                .to_vec();
                        view.data = buf.as_mut_ptr();
                        scratch.push(buf);
                    }
                }
                inv.run(&v, s, e);
            } else if reds.is_empty() {
                inv.run(run.views, s, e);
            } else {
                let mut v: Vec<ArgView> = run.views.to_vec();
                let bs = base;
                for r in &reds {
                    v[r.arg].data = bs.0.add(b * stride + r.offset);
                }
                inv.run(&v, s, e);
            }
        };
        let parallel = self.pool.is_some() && !serial && plan.exec_length >= INLINE_BELOW;
        // Colours below `first_halo` hold only core blocks (the plan never gives
        // a block past core_size a core colour): they run while halos arrive.
        let first_halo = (0..nblocks)
            .filter(|&b| plan.block_range(b).1 > run.core)
            .map(|b| plan.blk_col[b] as usize)
            .min()
            .unwrap_or(plan.ncolors);
        // All colours run inside one pool.install: the pool's threads go from
        // colour to colour without the calling thread injecting work each time.
        let all_colours = || {
            let mut waited = false;
            for c in 0..plan.ncolors {
                if c == first_halo {
                    if let Some(wait) = run.wait {
                        wait();
                    }
                    waited = true;
                }
                let blocks = plan.blocks_of_colour(c);
                if parallel && blocks.len() > 1 {
                    blocks.par_iter().for_each(|&b| run_block(b as usize));
                } else {
                    blocks.iter().for_each(|&b| run_block(b as usize));
                }
            }
            if !waited {
                if let Some(wait) = run.wait {
                    wait();
                }
            }
        };
        match (&self.pool, parallel) {
            (Some(pool), true) => pool.install(all_colours),
            _ => all_colours(),
        }
        combine(run, plan, &reds, &slots, stride, nblocks);
    }
}

/// Fold the per-block partials into the user's globals, in block order.
unsafe fn combine(
    run: &LoopRun<'_>,
    plan: &op2_core::plan::Plan,
    reds: &[Reduction],
    slots: &[u8],
    stride: usize,
    nblocks: usize,
) {
    for r in reds.iter().filter(|r| r.info_of.is_none()) {
        let dst = std::slice::from_raw_parts_mut(run.views[r.arg].data, r.bytes);
        let infos: Vec<&Reduction> = reds.iter().filter(|i| i.info_of == Some(r.arg)).collect();
        // Blocks of halo elements (past the owned ones) do not count.
        for b in (0..nblocks).filter(|&b| plan.block_range(b).0 < run.owned) {
            let src = &slots[b * stride + r.offset..b * stride + r.offset + r.bytes];
            if infos.is_empty() {
                reduce::combine(r.scalar, r.access, dst, src);
            } else if reduce::improves(r.scalar, r.access, dst, src) {
                // The block found a better min/max: take its value and location.
                dst.copy_from_slice(src);
                for i in &infos {
                    let idst = std::slice::from_raw_parts_mut(run.views[i.arg].data, i.bytes);
                    idst.copy_from_slice(
                        &slots[b * stride + i.offset..b * stride + i.offset + i.bytes],
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use op2_core::arg::ArgSpec;
    use op2_core::invoke::FnInvoker;
    use op2_core::plan::{Plan, PlanArg, PlanInput, Staging};

    #[test]
    fn env_parsing() {
        assert_eq!(threads_from_env(Some("3")), 3);
        assert_eq!(threads_from_env(Some("4,2")), 4);
        assert!(threads_from_env(Some("x")) >= 1);
        assert!(threads_from_env(None) >= 1);
    }

    /// Edge loop on a chain incrementing both nodes and summing a global:
    /// results must be identical for 1, 2, 3 and 8 threads.
    #[test]
    fn bitwise_identical_across_thread_counts() {
        let ne = 20000usize;
        let map: Vec<i32> = (0..ne).flat_map(|e| [e as i32, e as i32 + 1]).collect();
        let w: Vec<f64> = (0..ne).map(|e| 1.0 / (e as f64 + 1.0)).collect();
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
                    map: &map,
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
        let mut results = Vec::new();
        for nt in [1, 2, 3, 8] {
            let mut node = vec![0.0f64; ne + 1];
            let mut sum = 0.5f64;
            let views = [
                ArgView {
                    data: w.as_ptr() as *mut u8,
                    map: std::ptr::null(),
                    map_dim: 0,
                    idx: -1,
                    elem_bytes: 8,
                    kind: ViewKind::Direct,
                    ..ArgView::NULL
                },
                ArgView {
                    data: node.as_mut_ptr() as *mut u8,
                    map: map.as_ptr(),
                    map_dim: 2,
                    idx: 0,
                    elem_bytes: 8,
                    kind: ViewKind::Indirect,
                    ..ArgView::NULL
                },
                ArgView {
                    data: node.as_mut_ptr() as *mut u8,
                    map: map.as_ptr(),
                    map_dim: 2,
                    idx: 1,
                    elem_bytes: 8,
                    kind: ViewKind::Indirect,
                    ..ArgView::NULL
                },
                ArgView {
                    data: &mut sum as *mut f64 as *mut u8,
                    map: std::ptr::null(),
                    map_dim: 0,
                    idx: -1,
                    elem_bytes: 8,
                    kind: ViewKind::Global,
                    ..ArgView::NULL
                },
            ];
            let spec = |kind, access| ArgSpec {
                kind,
                dim: 1,
                type_name: "double".into(),
                access,
                opt: true,
            };
            let d = op2_core::DatId(0);
            let args = [
                spec(
                    ArgKind::Dat {
                        dat: d,
                        map: None,
                        idx: -1,
                    },
                    Access::Read,
                ),
                spec(
                    ArgKind::Dat {
                        dat: d,
                        map: None,
                        idx: 0,
                    },
                    Access::Inc,
                ),
                spec(
                    ArgKind::Dat {
                        dat: d,
                        map: None,
                        idx: 1,
                    },
                    Access::Inc,
                ),
                spec(ArgKind::Gbl, Access::Inc),
            ];
            let scalars = [ScalarType::F64; 4];
            let inv = FnInvoker(|_n, p: &[*mut u8]| unsafe {
                let w = *(p[0] as *const f64);
                *(p[1] as *mut f64) += w;
                *(p[2] as *mut f64) -= 0.5 * w;
                *(p[3] as *mut f64) += w * w;
            });
            let run = LoopRun {
                name: "chain",
                exec_size: ne,
                owned: ne,
                core: ne,
                wait: None,
                views: &views,
                args: &args,
                scalars: &scalars,
                plan: Some(&plan),
            };
            unsafe { Threads::new(nt).execute(&run, &inv) };
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
}
