//! `op_par_loop`: check the arguments, build the views, hand the loop to the
//! backend with an invoker for the user's kernel, record timing.

use crate::args::{to_spec, to_view};
use crate::ffi::*;
use crate::globals;
use crate::guard::guard;
use crate::state::{c_str, with_state};
use op2_core::arg::{check_loop, ArgKind, ArgSpec};
use op2_core::error::obj;
use op2_core::invoke::{ArgView, Executor, Invoker, LoopRun, ViewKind};
use op2_core::types::ScalarType;
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;
use std::time::Instant;

/// A C kernel, type-erased: `void kernel(T0*, T1*, ...)`.
pub type KernelFn = unsafe extern "C" fn();
type P = *mut c_void;
pub(crate) type RangeFn = unsafe fn(KernelFn, &[ArgView], usize, usize, i32);

/// Per-element argument pointers for a C kernel of `N` parameters.
struct ElemState<const N: usize> {
    p: [P; N],
    /// Pointer arrays of vector arguments (empty for others).
    vecs: Vec<Vec<P>>,
    /// The `int` each index argument points to (boxed: stable address).
    idx: Box<[c_int; N]>,
    /// Added to element indices and map entries given to index arguments
    /// (1 for Fortran kernels, which see 1-based indices).
    base: i32,
}

impl<const N: usize> ElemState<N> {
    fn new(views: &[ArgView], base: i32) -> Self {
        ElemState {
            p: [std::ptr::null_mut(); N],
            vecs: views
                .iter()
                .map(|v| {
                    if v.kind == ViewKind::Vector {
                        vec![std::ptr::null_mut(); (-v.idx) as usize]
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
            idx: Box::new([0; N]),
            base,
        }
    }

    /// # Safety
    /// `views` has N entries describing live memory for element `n`.
    #[inline(always)]
    unsafe fn pointers(&mut self, views: &[ArgView], n: usize) -> [P; N] {
        for i in 0..N {
            let v = views.get_unchecked(i);
            self.p[i] = match v.kind {
                ViewKind::Vector => {
                    let vec = self.vecs.get_unchecked_mut(i);
                    for (k, p) in vec.iter_mut().enumerate() {
                        *p = v
                            .data
                            .add(v.map_entry(n, k) as usize * v.elem_bytes as usize)
                            as P;
                    }
                    vec.as_mut_ptr() as P
                }
                ViewKind::IdxDirect => {
                    self.idx[i] = n as c_int + self.base;
                    &mut self.idx[i] as *mut c_int as P
                }
                ViewKind::IdxMapped if self.base != 0 => {
                    self.idx[i] = v.map_entry(n, v.idx as usize) + self.base;
                    &mut self.idx[i] as *mut c_int as P
                }
                _ => v.simple_ptr(n) as P,
            };
        }
        self.p
    }
}

/// The generated runners (capi/build.rs): `run_N` calls a kernel of N pointer
/// parameters for every element of a range.
#[allow(clippy::type_complexity)]
mod arity {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/arity.rs"));
}
pub(crate) use arity::{MAX_C_ARGS, RUNNERS};

/// Calls a C kernel per element through the runner of its arity.
pub(crate) struct CInvoker {
    pub(crate) f: KernelFn,
    pub(crate) runner: RangeFn,
    /// Index base of op_arg_idx values (0 for C, 1 for Fortran).
    pub(crate) base: i32,
}

// SAFETY: a C function pointer may be called from any thread; whether the
// kernel itself is thread-safe is OP2's contract with the user (kernels only
// touch their arguments and read-only globals).
unsafe impl Sync for CInvoker {}

impl Invoker for CInvoker {
    unsafe fn run(&self, views: &[ArgView], start: usize, end: usize) {
        (self.runner)(self.f, views, start, end, self.base)
    }
}

/// A C++ trampoline: runs the (inlined) kernel over a range of elements.
#[allow(non_camel_case_types)]
pub type op2_range_fn = unsafe extern "C" fn(views: *const ArgView, start: c_int, end: c_int);

struct RangeInvoker {
    f: op2_range_fn,
}

// SAFETY: as for CInvoker.
unsafe impl Sync for RangeInvoker {}

impl Invoker for RangeInvoker {
    unsafe fn run(&self, views: &[ArgView], start: usize, end: usize) {
        (self.f)(views.as_ptr(), start as c_int, end as c_int)
    }
}

pub(crate) struct Prepared {
    pub(crate) views: Vec<ArgView>,
    specs: Vec<ArgSpec>,
    scalars: Vec<ScalarType>,
    exec_size: usize,
    owned: usize,
    core: usize,
    /// Halo exchanges are in flight (MPI).
    pending: bool,
    /// Seconds spent exchanging halos before the loop (MPI).
    halo_secs: f64,
    kernel: usize,
    transfer: f64,
    exec: Arc<dyn Executor + Send + Sync>,
    name: String,
    indirect: bool,
    plan: Option<Arc<op2_core::plan::Plan>>,
}

/// Kernel parameter type codes sent by the C++ trampoline.
fn code_of(t: ScalarType) -> c_int {
    match t {
        ScalarType::F64 => 1,
        ScalarType::F32 => 2,
        ScalarType::I32 => 3,
        ScalarType::U32 => 4,
        ScalarType::I64 => 5,
        ScalarType::U64 => 6,
        ScalarType::Bool => 7,
        ScalarType::Other => 0,
    }
}

fn code_name(c: c_int) -> &'static str {
    match c & 15 {
        1 => "double",
        2 => "float",
        3 => "int",
        4 => "unsigned int",
        5 => "long long",
        6 => "unsigned long long",
        7 => "bool",
        _ => "?",
    }
}

/// Compare the kernel's parameter types (C++ only) with the arguments.
fn check_params(name: &str, specs: &[ArgSpec], codes: &[c_int]) -> Result<()> {
    let err = |i: usize, m: String| {
        Op2Error::new("op_par_loop", obj("loop", name), format!("arg {i}: {m}"))
    };
    for (i, (s, &c)) in specs.iter().zip(codes).enumerate() {
        if !s.opt || c == 0 {
            continue;
        }
        let vector = matches!(s.kind, ArgKind::Dat { idx, .. } if idx < -1);
        let is_pp = c & 16 != 0;
        if vector && !is_pp {
            return Err(err(
                i,
                "a vector argument (idx < -1) needs a kernel parameter of type T**".into(),
            ));
        }
        if !vector && is_pp {
            return Err(err(i, format!("the kernel parameter is {}** but the argument is not a vector argument (idx < -1)", code_name(c))));
        }
        let want = match s.kind {
            ArgKind::Idx { .. } => ScalarType::I32,
            _ => ScalarType::parse(&s.type_name),
        };
        let wc = code_of(want);
        if wc != 0 && (c & 15) != 0 && wc != (c & 15) {
            return Err(err(
                i,
                format!(
                    "the kernel parameter is {}* but the argument's type is \"{}\"",
                    code_name(c),
                    if matches!(s.kind, ArgKind::Idx { .. }) {
                        "int"
                    } else {
                        &s.type_name
                    }
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) unsafe fn prepare(
    call: &'static str,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
    max_args: Option<usize>,
    codes: Option<&[c_int]>,
) -> Prepared {
    with_state(call, |st| {
        let name = c_str(call, "the loop name", name)?;
        let o = obj("loop", &name);
        let s = st
            .set_id(call, set)
            .map_err(|e| Op2Error::new(call, o.clone(), format!("loop set: {}", e.msg)))?;
        if nargs < 0 || (nargs > 0 && args.is_null()) {
            return Err(Op2Error::new(call, o, format!("{nargs} args at {args:p}")));
        }
        if let Some(max) = max_args {
            if nargs as usize > max {
                return Err(Op2Error::new(
                    call,
                    o,
                    format!("{nargs} args: C kernels may have at most {max} parameters (C++ kernels have no limit)"),
                ));
            }
        }
        let cargs = if nargs == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(args, nargs as usize)
        };
        let mut specs = Vec::with_capacity(cargs.len());
        for (i, a) in cargs.iter().enumerate() {
            specs.push(to_spec(st, &name, i, a)?);
        }
        let info = check_loop(&st.dom, &name, s, &specs)?;
        if let Some(c) = codes {
            check_params(&name, &specs, c)?;
        }
        if globals::diags() > 2 {
            if info.indirect {
                crate::printf::cout(&format!(" kernel routine with indirection: {name}\n"));
            } else {
                crate::printf::cout(&format!(" kernel routine w/o indirection:  {name}\n"));
            }
        }
        // Distributed: bring halos up to date; the exec halo runs too when
        // the loop writes through a map.
        let t_halo = Instant::now();
        let (exec_size, owned) = crate::dist::before_loop(st, s, &specs)?;
        let pending = crate::dist::has_pending(st);
        let core = st.dom.set(s).core_size.min(owned);
        let halo_secs = t_halo.elapsed().as_secs_f64();
        let mut views: Vec<ArgView> = specs
            .iter()
            .zip(cargs)
            .map(|(sp, a)| to_view(st, sp, a))
            .collect();
        op2_core::invoke::link_views(&mut views, &specs);
        let scalars = specs
            .iter()
            .map(|sp| ScalarType::parse(&sp.type_name))
            .collect();
        let set_size = st.dom.set(s).size;
        // Bytes-moved estimate, as OP2's generated code counts it.
        let mut transfer = 0.0f64;
        let mut maps_seen = Vec::new();
        for sp in &specs {
            if let (true, ArgKind::Dat { dat, map, .. }) = (sp.opt, &sp.kind) {
                let eb = st.dom.dat(*dat).elem_bytes as f64;
                let f = if matches!(sp.access, op2_core::Access::Rw | op2_core::Access::Inc) {
                    2.0
                } else {
                    1.0
                };
                transfer += set_size as f64 * eb * f;
                if let Some(m) = map {
                    if !maps_seen.contains(m) {
                        maps_seen.push(*m);
                        transfer += set_size as f64 * st.dom.map(*m).dim as f64 * 4.0;
                    }
                }
            }
        }
        let kernel = st.kernels.index_of(&name);
        let plan = if st.exec.wants_plan() {
            Some(crate::plans::loop_plan(
                st, &name, s, &specs, &info.inds, info.ninds,
            ))
        } else {
            None
        };
        Ok(Prepared {
            views,
            specs,
            scalars,
            exec_size,
            owned,
            core,
            pending,
            halo_secs,
            kernel,
            transfer,
            exec: st.exec.clone(),
            name,
            indirect: info.indirect,
            plan,
        })
    })
}

pub(crate) unsafe fn run_loop(call: &'static str, p: Prepared, inv: &dyn Invoker) {
    // Halo exchanges in flight complete between the core and the other elements.
    let wait = p.pending.then_some(move || {
        with_state(call, |st| {
            crate::dist::wait_all(st);
            Ok(())
        })
    });
    let t0 = Instant::now();
    {
        let run = LoopRun {
            name: &p.name,
            exec_size: p.exec_size,
            owned: p.owned,
            core: p.core,
            wait: wait.as_ref().map(|w| w as &(dyn Fn() + Sync)),
            views: &p.views,
            args: &p.specs,
            scalars: &p.scalars,
            plan: p.plan.as_deref(),
        };
        // SAFETY: the args were checked against the loop set (maps in range,
        // dats on the right sets) and the views point at live dat storage.
        guard(call, || p.exec.execute(&run, inv));
    }
    let t1 = Instant::now();
    with_state(call, |st| crate::dist::after_loop(st, &p.specs, &p.views));
    let reduce_secs = t1.elapsed().as_secs_f64();
    let secs = (t1 - t0).as_secs_f64();
    crate::profile::record_kernel(&p.name, p.exec.name(), p.indirect, t0, t1);
    with_state(call, |st| {
        // As in OP2, a loop's time includes its halo exchanges and reductions.
        let mpi = p.halo_secs + reduce_secs;
        // Only the MPI library has an MPI time column to fill.
        let mpi_col = if cfg!(feature = "lib-mpi") { mpi } else { 0.0 };
        st.kernels.record(p.kernel, secs + mpi, mpi_col, p.transfer);
        Ok(())
    });
}

/// `op_par_loop` for C kernels (the C `op_par_loop` macro calls this):
/// `kernel` takes `nargs` pointer parameters.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_c(
    kernel: Option<unsafe extern "C" fn()>,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    let call = "op_par_loop";
    let Some(f) = kernel else {
        let n = if name.is_null() {
            "?".into()
        } else {
            std::ffi::CStr::from_ptr(name)
                .to_string_lossy()
                .into_owned()
        };
        crate::guard::fatal(&Op2Error::new(call, obj("loop", &n), "the kernel is NULL"));
    };
    let p = prepare(call, name, set, nargs, args, Some(MAX_C_ARGS), None);
    if p.views.is_empty() {
        crate::guard::fatal(&Op2Error::new(
            call,
            obj("loop", &p.name),
            "a loop needs at least one argument",
        ));
    }
    let inv = CInvoker {
        f,
        runner: RUNNERS[p.views.len() - 1],
        base: 0,
    };
    run_loop(call, p, &inv)
}

/// `op_par_loop` for C++ kernels (the C++ `op_par_loop` calls this): `range`
/// is a trampoline that runs the kernel, inlined, over a range of elements;
/// `param_types` (nargs codes, may be NULL) describe the kernel's parameters.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_range(
    range: Option<op2_range_fn>,
    param_types: *const c_int,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    let call = "op_par_loop";
    let Some(f) = range else {
        crate::guard::fatal(&Op2Error::new(call, "", "the kernel trampoline is NULL"));
    };
    let codes = if param_types.is_null() || nargs <= 0 {
        None
    } else {
        Some(std::slice::from_raw_parts(param_types, nargs as usize))
    };
    let p = prepare(call, name, set, nargs, args, None, codes);
    let inv = RangeInvoker { f };
    run_loop(call, p, &inv)
}
