//! `op_par_loop`: check the arguments (once per distinct call), let the
//! distribution prepare the halos, hand the loop to the executor with an
//! invoker for the user's kernel, then combine globals and record timing.
//!
//! A call is recognised by its raw arguments ([`crate::fingerprint`]); the
//! checked form ([`PreparedLoop`]) is reused, so a loop in steady state takes
//! the state lock twice (before and after running) and allocates nothing on
//! a single node.

use crate::args::{to_spec, to_view};
use crate::ffi::*;
use crate::fingerprint::{hash_call, CallKey};
use crate::globals;
use crate::guard::guard;
use crate::loop_cache::{combined_globals, dats_of, PreparedLoop};
use crate::state::{with_state, State};
use op2_core::arg::{check_loop, ArgKind, ArgSpec};
use op2_core::dist::{DistKind, GlobalArg, InFlight};
use op2_core::error::obj;
use op2_core::invoke::{ArgView, Invoker, LoopRun, ViewKind};
use op2_core::types::ScalarType;
use op2_core::{Op2Error, Result};
use parking_lot::Mutex;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;
use std::time::Instant;

/// A C kernel, type-erased: `void kernel(T0*, T1*, ...)`.
pub type KernelFn = unsafe extern "C" fn();
type P = *mut c_void;
pub(crate) type RangeFn = unsafe fn(KernelFn, &[ArgView], usize, usize, i32);

use crate::vector_ptrs::with_vector_buffer;

/// Per-element argument pointers for a C kernel of `N` parameters.
struct ElemState<'b, const N: usize> {
    p: [P; N],
    /// Where vector argument `i`'s pointers start in `vecs` (unused otherwise).
    vec_at: [usize; N],
    /// Pointer arrays of all vector arguments, back to back.
    vecs: &'b mut Vec<P>,
    /// The `int` each index argument points to.
    idx: [c_int; N],
    /// Added to element indices and map entries given to index arguments
    /// (1 for Fortran kernels, which see 1-based indices).
    base: i32,
}

impl<'b, const N: usize> ElemState<'b, N> {
    fn new(views: &[ArgView], base: i32, vecs: &'b mut Vec<P>) -> Self {
        let mut vec_at = [0; N];
        vecs.clear();
        for (i, v) in views.iter().enumerate().take(N) {
            if v.kind == ViewKind::Vector {
                vec_at[i] = vecs.len();
                vecs.resize(vecs.len() + (-v.idx) as usize, std::ptr::null_mut());
            }
        }
        ElemState {
            p: [std::ptr::null_mut(); N],
            vec_at,
            vecs,
            idx: [0; N],
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
                    let at = self.vec_at[i];
                    let vec = &mut self.vecs[at..at + (-v.idx) as usize];
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
        let (want, shown) = match s.kind {
            ArgKind::Idx { .. } => (ScalarType::I32, "int"),
            _ => (ScalarType::parse(&s.type_name), s.type_name.as_str()),
        };
        let wc = code_of(want);
        if wc != 0 && (c & 15) != 0 && wc != (c & 15) {
            return Err(err(
                i,
                format!(
                    "the kernel parameter is {}* but the argument's type is \"{shown}\"",
                    code_name(c)
                ),
            ));
        }
    }
    Ok(())
}

/// One `op_par_loop` call as it arrives at the C ABI.
#[derive(Clone, Copy)]
pub(crate) struct LoopCall<'a> {
    pub(crate) call: &'static str,
    /// The loop's name (NULL for a Fortran loop: named after its kernel).
    pub(crate) name: *const c_char,
    /// A Fortran kernel (its name is looked up once, under the state lock).
    pub(crate) fortran_kernel: Option<KernelFn>,
    pub(crate) set: op_set,
    pub(crate) args: &'a [op_arg],
    /// Most parameters the invoker supports (C and Fortran kernels).
    pub(crate) max_args: Option<usize>,
    /// The C++ kernel's parameter type codes.
    pub(crate) codes: Option<&'a [c_int]>,
}

impl LoopCall<'_> {
    /// What distinguishes calls with the same raw arguments: the entry point
    /// (argument limit) and the kernel's parameter types.
    fn context(&self) -> usize {
        let codes = self.codes.map_or(0, |c| c.as_ptr() as usize);
        codes ^ self.max_args.map_or(0, |m| m.rotate_left(48))
    }

    /// The loop's name for messages (before it is checked).
    unsafe fn name_for_errors(&self) -> String {
        if self.name.is_null() {
            "?".into()
        } else {
            CStr::from_ptr(self.name).to_string_lossy().into_owned()
        }
    }

    /// First sight of this call: check everything, build the views and plan.
    unsafe fn prepare(&self, st: &mut State) -> Result<PreparedLoop> {
        let call = self.call;
        let name = crate::state::c_str(call, "the loop name", self.name)?;
        let o = obj("loop", &name);
        let s = st
            .set_id(call, self.set)
            .map_err(|e| Op2Error::new(call, o.clone(), format!("loop set: {}", e.msg)))?;
        if let Some(max) = self.max_args.filter(|&m| self.args.len() > m) {
            return Err(Op2Error::new(
                call,
                o,
                format!("{} args: C kernels may have at most {max} parameters (C++ kernels have no limit)", self.args.len()),
            ));
        }
        let mut specs = Vec::with_capacity(self.args.len());
        for (i, a) in self.args.iter().enumerate() {
            specs.push(to_spec(st, &name, i, a)?);
        }
        let info = check_loop(&st.dom, &name, s, &specs)?;
        if let Some(c) = self.codes {
            check_params(&name, &specs, c)?;
        }
        if globals::diags() > 2 {
            let how = if info.indirect {
                "with indirection:"
            } else {
                "w/o indirection: "
            };
            crate::printf::cout(&format!(" kernel routine {how} {name}\n"));
        }
        let kernel = st.kernels.index_of(&name);
        let mut lp = PreparedLoop {
            name,
            set: s,
            globals: combined_globals(&specs),
            dats: dats_of(&specs),
            scalars: specs
                .iter()
                .map(|sp| ScalarType::parse(&sp.type_name))
                .collect(),
            views: Vec::new(),
            specs,
            kernel,
            transfer: 0.0,
            indirect: info.indirect,
            plan: None,
        };
        self.place(st, &mut lp, &info.inds, info.ninds);
        Ok(lp)
    }

    /// The parts of a prepared loop that depend on where data lives (views,
    /// plan, transfer estimate); rebuilt when the mesh is partitioned.
    fn place(&self, st: &mut State, lp: &mut PreparedLoop, inds: &[i32], ninds: usize) {
        lp.views = lp
            .specs
            .iter()
            .zip(self.args)
            .map(|(sp, a)| to_view(st, sp, a))
            .collect();
        op2_core::invoke::link_views(&mut lp.views, &lp.specs);
        lp.transfer = transfer_estimate(st, lp.set, &lp.specs);
        lp.plan = st
            .exec
            .wants_plan()
            .then(|| crate::plans::loop_plan(st, &lp.name, lp.set, &lp.specs, inds, ninds));
    }
}

/// Bytes moved by one execution, as OP2's generated code counts them.
fn transfer_estimate(st: &State, set: op2_core::SetId, specs: &[ArgSpec]) -> f64 {
    let set_size = st.dom.set(set).size as f64;
    let mut transfer = 0.0f64;
    let mut maps_seen = Vec::new();
    for sp in specs {
        if let (true, ArgKind::Dat { dat, map, .. }) = (sp.opt, &sp.kind) {
            let eb = st.dom.dat(*dat).elem_bytes as f64;
            let f = if matches!(sp.access, op2_core::Access::Rw | op2_core::Access::Inc) {
                2.0
            } else {
                1.0
            };
            transfer += set_size * eb * f;
            if let Some(m) = map.filter(|m| !maps_seen.contains(m)) {
                maps_seen.push(m);
                transfer += set_size * st.dom.map(m).dim as f64 * 4.0;
            }
        }
    }
    transfer
}

/// A loop ready to execute: its prepared form and this call's extent.
pub(crate) struct Ready {
    pub(crate) lp: Arc<PreparedLoop>,
    exec_size: usize,
    owned: usize,
    core: usize,
    exchanges: Option<Box<dyn InFlight>>,
    /// Seconds spent starting halo exchanges.
    halo_secs: f64,
    exec: Arc<dyn op2_core::invoke::Executor + Send + Sync>,
}

/// Recognise or check the call, then let the distribution start the halo
/// exchanges the loop needs. One lock of the state.
pub(crate) unsafe fn prepare(lc: &LoopCall<'_>) -> Ready {
    with_state(lc.call, |st| {
        st.finish_exchanges()?;
        let mut lc = *lc;
        if let (true, Some(k)) = (lc.name.is_null(), lc.fortran_kernel) {
            lc.name = fortran_kernel_name(st, k);
        }
        let lc = &lc;
        let context = lc.context();
        let hash = hash_call(lc.name, lc.set, context, lc.args);
        let gen = st.generation;
        let cached = st
            .loops
            .get(gen, hash, lc.name, lc.set, context, lc.args)
            .cloned();
        let mut lp = match cached {
            Some(lp) => lp,
            None => {
                let lp = Arc::new(lc.prepare(st)?);
                let key = CallKey::new(lc.name, lc.set, context, lc.args);
                st.loops.insert(hash, key, lp.clone());
                lp
            }
        };
        if st.has_device() {
            // A loop through op_par_loop runs on the host.
            for &d in &lp.dats {
                st.host_fresh(lc.call, d)?;
            }
        }
        let t_halo = Instant::now();
        st.dist
            .set_partial_exchange(crate::globals::partial_exchange());
        let extent = st.dist.before_loop(&mut st.dom, lp.set, &lp.specs)?;
        if extent.auto_partitioned {
            crate::printf::cout(
                "\n op_par_loop before op_partition: keeping the declared block distribution\n",
            );
            st.refresh_after_partition();
            lp = replace_after_partition(st, lc, &lp, hash, context)?;
        }
        for &d in &lp.dats {
            st.mirror_dirty(d);
        }
        Ok(Ready {
            lp,
            exec_size: extent.exec_size,
            owned: extent.owned,
            core: extent.core,
            exchanges: extent.exchanges,
            halo_secs: t_halo.elapsed().as_secs_f64(),
            exec: st.exec.clone(),
        })
    })
}

/// The mesh was just partitioned: views and plan of `old` are stale.
unsafe fn replace_after_partition(
    st: &mut State,
    lc: &LoopCall<'_>,
    old: &PreparedLoop,
    hash: u64,
    context: usize,
) -> Result<Arc<PreparedLoop>> {
    let info = check_loop(&st.dom, &old.name, old.set, &old.specs)?;
    let mut lp = PreparedLoop {
        name: old.name.clone(),
        set: old.set,
        specs: old.specs.clone(),
        views: Vec::new(),
        scalars: old.scalars.clone(),
        globals: old.globals.clone(),
        dats: old.dats.clone(),
        kernel: old.kernel,
        transfer: 0.0,
        indirect: old.indirect,
        plan: None,
    };
    lc.place(st, &mut lp, &info.inds, info.ninds);
    let lp = Arc::new(lp);
    st.loops.insert(
        hash,
        CallKey::new(lc.name, lc.set, context, lc.args),
        lp.clone(),
    );
    Ok(lp)
}

/// Execute a prepared loop through `inv`, then combine globals and record
/// its time (the second lock of the state).
pub(crate) unsafe fn run_loop(call: &'static str, mut r: Ready, inv: &dyn Invoker) {
    let lp = r.lp.clone();
    let exchanges = Mutex::new(r.exchanges.take());
    let wait = || match exchanges.lock().take() {
        Some(x) => x.finish(),
        None => Ok(()),
    };
    let has_wait = exchanges.lock().is_some();
    let t0 = Instant::now();
    let run = LoopRun {
        name: &lp.name,
        exec_size: r.exec_size,
        owned: r.owned,
        core: r.core,
        wait: has_wait.then_some(&wait as &(dyn Fn() -> Result<()> + Sync)),
        views: &lp.views,
        args: &lp.specs,
        scalars: &lp.scalars,
        plan: lp.plan.as_deref(),
    };
    // SAFETY: the args were checked against the loop set (maps in range,
    // dats on the right sets) and the views point at live dat storage.
    let outcome = guard(call, || r.exec.execute(&run, inv).and_then(|()| wait()));
    if let Err(e) = outcome {
        crate::guard::fatal(&e.context(format!("loop \"{}\"", lp.name)));
    }
    let t1 = Instant::now();
    with_state(call, |st| finish_loop(st, &r, t0, t1));
}

/// After the kernel ran: the distribution marks written halos dirty and
/// combines globals; the loop's time is recorded.
fn finish_loop(st: &mut State, r: &Ready, t0: Instant, t1: Instant) -> Result<()> {
    let lp = &r.lp;
    let mpi = st.dist.kind() == DistKind::Mpi;
    // OP_disable_mpi_reductions: globals stay this rank's values.
    if mpi && !crate::globals::mpi_reductions_disabled() {
        let mut globals: Vec<GlobalArg<'_>> = lp
            .globals
            .iter()
            .map(|&i| {
                let v = &lp.views[i];
                GlobalArg {
                    access: lp.specs[i].access,
                    scalar: lp.scalars[i],
                    // SAFETY: a global view points at the user's `dim` values
                    // (checked non-NULL), not otherwise borrowed now.
                    data: unsafe {
                        std::slice::from_raw_parts_mut(v.data, v.elem_bytes.max(0) as usize)
                    },
                }
            })
            .collect();
        st.dist.after_loop(&mut st.dom, &lp.specs, &mut globals)?;
    } else {
        st.dist.after_loop(&mut st.dom, &lp.specs, &mut [])?;
    }
    for &d in &lp.dats {
        st.mirror_dirty(d);
    }
    if st.has_device() {
        for d in crate::loop_cache::written_dats(&lp.specs) {
            st.written_on(d, false);
        }
    }
    let reduce_secs = t1.elapsed().as_secs_f64();
    let secs = (t1 - t0).as_secs_f64();
    // As in OP2, a loop's time includes its halo exchanges and reductions;
    // only the MPI library has an MPI time column to fill.
    let mpi_secs = r.halo_secs + reduce_secs;
    let mpi_col = if mpi { mpi_secs } else { 0.0 };
    st.kernels
        .record(lp.kernel, secs + mpi_secs, mpi_col, lp.transfer);
    crate::profile::record_kernel(&lp.name, r.exec.name(), lp.indirect, t0, t1);
    Ok(())
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
    let args = checked_args(call, name, nargs, args);
    let lc = LoopCall {
        call,
        name,
        set,
        fortran_kernel: None,
        args,
        max_args: Some(MAX_C_ARGS),
        codes: None,
    };
    let Some(f) = kernel else {
        crate::guard::fatal(&Op2Error::new(
            call,
            obj("loop", &lc.name_for_errors()),
            "the kernel is NULL",
        ));
    };
    if args.is_empty() {
        crate::guard::fatal(&Op2Error::new(
            call,
            obj("loop", &lc.name_for_errors()),
            "a loop needs at least one argument",
        ));
    }
    let r = prepare(&lc);
    let inv = CInvoker {
        f,
        runner: RUNNERS[args.len() - 1],
        base: 0,
    };
    run_loop(call, r, &inv)
}

/// The args of a loop call as a slice (a bad count or NULL array stops the program).
pub(crate) unsafe fn checked_args<'a>(
    call: &'static str,
    name: *const c_char,
    nargs: c_int,
    args: *const op_arg,
) -> &'a [op_arg] {
    if nargs < 0 || (nargs > 0 && args.is_null()) {
        let n = if name.is_null() {
            "?".into()
        } else {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        };
        crate::guard::fatal(&Op2Error::new(
            call,
            obj("loop", &n),
            format!("{nargs} args at {args:p}"),
        ));
    }
    if nargs == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(args, nargs as usize)
    }
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
    let args = checked_args(call, name, nargs, args);
    let codes = if param_types.is_null() || args.is_empty() {
        None
    } else {
        Some(std::slice::from_raw_parts(param_types, args.len()))
    };
    let lc = LoopCall {
        call,
        name,
        set,
        fortran_kernel: None,
        args,
        max_args: None,
        codes,
    };
    let r = prepare(&lc);
    run_loop(call, r, &RangeInvoker { f })
}

/// A Fortran kernel's name for timing: its symbol if the executable exports
/// one (gfortran's `__module_MOD_name` shortened to `name`), else its address.
/// Looked up once per kernel.
pub(crate) fn fortran_kernel_name(st: &mut State, k: unsafe extern "C" fn()) -> *const c_char {
    st.kernel_names
        .entry(k as usize)
        .or_insert_with(|| crate::ffi::cstring(&kernel_symbol(k)))
        .as_ptr()
}

fn kernel_symbol(k: unsafe extern "C" fn()) -> String {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`.
    // Only an exact match names the kernel (dladdr reports the nearest exported symbol).
    let found = unsafe { libc::dladdr(k as *const c_void, &mut info) } != 0
        && !info.dli_sname.is_null()
        && std::ptr::eq(info.dli_saddr as *const c_void, k as *const c_void);
    if found {
        // SAFETY: dli_sname is a NUL-terminated symbol name owned by the loader.
        let s = unsafe { CStr::from_ptr(info.dli_sname) }.to_string_lossy();
        let s = s.rsplit("_MOD_").next().unwrap_or(&s).trim_end_matches('_');
        if !s.is_empty() {
            return s.to_string();
        }
    }
    format!("fortran_kernel@{:p}", k as *const c_void)
}
