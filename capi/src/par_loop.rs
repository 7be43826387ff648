//! `op_par_loop` at the C ABI: the invokers that reach C, C++ and Fortran
//! kernels, and [`run`], which turns a call into the runtime's loop
//! lifecycle. A call is recognised by its raw arguments
//! ([`crate::signature`]); the first time, its `op_arg`s are converted into
//! a [`LoopDesc`] and the runtime checks and prepares it. Then
//! `Runtime::begin_loop` (under the state lock), `Ready::execute` (the
//! kernel runs; no lock held: kernels may not call the API) and
//! `Runtime::finish_loop` (under the lock again). In steady state a loop
//! takes the lock twice and allocates nothing on a single node.

use crate::args::{global_data, to_spec};
use crate::boundary::c_api;
use crate::ffi::*;
use crate::handles::Handles;
use crate::signature;
use crate::state::{with_state, State};
use op2_core::arg::{check_kernel_params, ArgSpec};
use op2_core::error::obj;
use op2_core::invoke::{ArgView, ElemPointers, Invoker, MAX_RANGES};
use op2_core::runtime::{LoopDesc, PreparedLoop, Ready};
use op2_core::{Op2Error, Result};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

/// A C kernel, type-erased: `void kernel(T0*, T1*, ...)`.
pub type KernelFn = unsafe extern "C" fn();
type P = *mut u8;
pub(crate) type RangeFn = unsafe fn(KernelFn, &[ArgView], usize, usize, i32);

use crate::vector_ptrs::with_vector_buffer;

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
        // SAFETY: the runner is the one of the kernel's arity (`RUNNERS`),
        // the views are live for the range (the caller's contract).
        unsafe { (self.runner)(self.f, views, start, end, self.base) }
    }
}

/// A C++ trampoline: runs the (inlined) kernel over a range of elements.
#[allow(non_camel_case_types)]
pub type op2_range_fn = unsafe extern "C" fn(views: *const ArgView, start: c_int, end: c_int);

/// op_seq.h's trampoline for several ranges: `nranges` (2 to
/// [`MAX_RANGES`]) ranges `[bounds[2k], bounds[2k + 1])`, range `k` with the
/// views `views[k * nargs ..]`.
#[allow(non_camel_case_types)]
pub type op2_ranges_fn =
    unsafe extern "C" fn(views: *const ArgView, nranges: c_int, bounds: *const c_int);

struct RangeInvoker {
    f: op2_range_fn,
    /// Present for loops whose trampoline interleaves blocks (op_seq.h
    /// passes it for loops of direct dats and reductions only).
    ranges: Option<op2_ranges_fn>,
}

// SAFETY: as for CInvoker.
unsafe impl Sync for RangeInvoker {}

impl Invoker for RangeInvoker {
    unsafe fn run(&self, views: &[ArgView], start: usize, end: usize) {
        // SAFETY: op_seq.h's trampoline reads `views` (one per argument,
        // live for the range: the caller's contract) for elements start..end.
        unsafe { (self.f)(views.as_ptr(), start as c_int, end as c_int) }
    }

    fn ranges_at_once(&self) -> usize {
        if self.ranges.is_some() {
            MAX_RANGES
        } else {
            1
        }
    }

    unsafe fn run_ranges(&self, views: &[ArgView], ranges: &[(usize, usize)]) {
        let Some(g) = self
            .ranges
            .filter(|_| (2..=MAX_RANGES).contains(&ranges.len()))
        else {
            // SAFETY: the caller's contract.
            return unsafe { op2_core::invoke::run_each(self, views, ranges) };
        };
        let mut bounds = [0 as c_int; 2 * MAX_RANGES];
        for (k, &(s, e)) in ranges.iter().enumerate() {
            bounds[2 * k] = s as c_int;
            bounds[2 * k + 1] = e as c_int;
        }
        // SAFETY: op_seq.h's trampoline reads `ranges.len()` arrays of
        // views (one per argument each, live for their range: the caller's
        // contract) and as many pairs of bounds.
        unsafe { g(views.as_ptr(), ranges.len() as c_int, bounds.as_ptr()) }
    }
}

/// One `op_par_loop` call as it arrives at the C ABI.
#[derive(Clone, Copy)]
pub(crate) struct LoopCall<'a> {
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
    /// Where the kernel is defined, as op_seq.h says it: its name and the
    /// call site's source file (both NUL-terminated or NULL).
    pub(crate) source: Option<(*const c_char, *const c_char)>,
}

impl LoopCall<'_> {
    /// What distinguishes calls with the same raw arguments: the entry point
    /// (argument limit) and the kernel's parameter types.
    fn context(&self) -> usize {
        let codes = self.codes.map_or(0, |c| c.as_ptr() as usize);
        codes ^ self.max_args.map_or(0, |m| m.rotate_left(48))
    }

    /// First sight of this call: the runtime's description of it.
    ///
    /// # Safety
    /// The name and the args' type strings are NULL or NUL-terminated.
    unsafe fn describe(&self, h: &Handles, tag: &mut dyn FnMut(&str) -> usize) -> Result<LoopDesc> {
        // SAFETY: the caller's contract.
        let name = unsafe { crate::state::c_str("the loop name", self.name) }?;
        let o = obj("loop", &name);
        let set = h
            .set_id(self.set)
            .map_err(|e| Op2Error::new("", o.clone(), format!("loop set: {}", e.msg)))?;
        if let Some(max) = self.max_args.filter(|&m| self.args.len() > m) {
            return Err(Op2Error::new(
                "",
                o,
                format!("{} args: C kernels may have at most {max} parameters (C++ kernels have no limit)", self.args.len()),
            ));
        }
        let args = self
            .args
            .iter()
            .enumerate()
            // SAFETY: the caller's contract.
            .map(|(i, a)| unsafe { to_spec(h, &name, i, a) })
            .collect::<Result<Vec<_>>>()?;
        Ok(LoopDesc {
            tag: tag(&name),
            set,
            globals: self.args.iter().map(global_data).collect(),
            args,
            name,
        })
    }

    /// The prepared loop of this call (checked and prepared the first time).
    ///
    /// # Safety
    /// As for [`LoopCall::describe`].
    unsafe fn prepared(&self, st: &mut State) -> Result<(Arc<PreparedLoop>, *const c_char)> {
        let mut lc = *self;
        if let (true, Some(k)) = (lc.name.is_null(), lc.fortran_kernel) {
            lc.name = fortran_kernel_name(&mut st.h, k);
        }
        signature::words(&mut st.sig, lc.name, lc.set, lc.context(), lc.args);
        // SAFETY: the caller's contract.
        let sig = unsafe { signature::sig(&st.sig, lc.name) };
        if let Some(lp) = st.rt.cached_loop(&sig) {
            return Ok((lp, lc.name));
        }
        let kernels = &mut st.c.kernels;
        // SAFETY: the caller's contract.
        let desc = unsafe { lc.describe(&st.h, &mut |n| kernels.index_of(n)) }?;
        let codes = lc.codes;
        let extra = move |specs: &[ArgSpec]| {
            let name = String::from_utf8_lossy(sig.name);
            codes.map_or(Ok(()), |c| check_kernel_params(&name, specs, c))
        };
        let lp = st.rt.prepare_loop(&mut st.c, desc, &extra)?;
        st.rt.remember_loop(&sig, lp.clone());
        Ok((lp, lc.name))
    }
}

/// What `begin` did: the loop is ready for the host, or it already ran on
/// the device.
enum Begun {
    Host(Ready),
    Device,
}

/// Recognise or prepare the call, then run it on the device (a library
/// with device loops, a call site that named its kernel) or begin it for
/// the host (one lock of the state).
///
/// # Safety
/// As for [`LoopCall::describe`].
unsafe fn begin(lc: &LoopCall<'_>) -> Result<Begun> {
    with_state(|st| {
        // SAFETY: the caller's contract.
        let (lp, name) = unsafe { lc.prepared(st) }?;
        // SAFETY: the caller's contract.
        if let Some(t) = unsafe { on_device(st, lc, &lp) }? {
            st.c.kernels.record(t.tag, t.secs, t.mpi_secs, t.transfer);
            crate::profile::record_kernel(&lp.name, "device", lp.indirect, t.start, t.end);
            return Ok(Begun::Device);
        }
        // SAFETY: as above; `st.sig` still holds the words of this call.
        let sig = unsafe { signature::sig(&st.sig, name) };
        st.rt
            .begin_loop(&mut st.c, "op_par_loop", &sig, lp)
            .map(Begun::Host)
    })
}

/// Offer the loop to the runtime's device loops (a library with them, a
/// call site that named its kernel); `None`: run it on the host.
///
/// # Safety
/// `lc.source` holds NULL or NUL-terminated strings.
unsafe fn on_device(
    st: &mut State,
    lc: &LoopCall<'_>,
    lp: &Arc<PreparedLoop>,
) -> Result<Option<op2_core::runtime::LoopTiming>> {
    let Some((kernel, file)) = lc.source.filter(|(k, _)| !k.is_null()) else {
        return Ok(None);
    };
    // Read only when the runtime asks (a library with device loops),
    // borrowed (the runtime copies them for a loop's first call). A name
    // that is not UTF-8 names no kernel the library can find (the loop
    // falls back, saying so); such a file name gives no directory to search.
    let kernel_ref = || {
        // SAFETY: the caller's contract (kernel checked non-NULL): the
        // strings live until op_par_loop returns, and the runtime borrows
        // them only within this call.
        let k = unsafe { CStr::from_ptr(kernel) };
        // SAFETY: as above.
        let f = (!file.is_null()).then(|| unsafe { CStr::from_ptr(file) });
        op2_core::runtime::KernelSite {
            kernel: k
                .to_str()
                .unwrap_or("(a kernel name that is not UTF-8)")
                .trim(),
            file: f.and_then(|f| f.to_str().ok()),
        }
    };
    st.rt.device_loop(
        &mut st.c,
        "op_par_loop",
        lp,
        &kernel_ref,
        &crate::fallback::device_policy,
    )
}

/// One `op_par_loop`: begun under the state lock, executed without it
/// (kernels may not call the API), finished under it again; or run on the
/// device under the lock.
///
/// # Safety
/// The call's pointers are NULL or valid (OP2's contract); `inv` runs a
/// kernel that touches only what its arguments allow.
pub(crate) unsafe fn run(lc: &LoopCall<'_>, inv: &dyn Invoker) -> Result<()> {
    // SAFETY: the caller's contract.
    let mut ready = match unsafe { begin(lc) }? {
        Begun::Host(r) => r,
        Begun::Device => return Ok(()),
    };
    let lp = ready.lp.clone();
    // SAFETY: the views were built from checked arguments over live storage,
    // which nothing changes until finish_loop (the program is in this call).
    unsafe { ready.execute("op_par_loop", inv) }?;
    with_state(|st| {
        let t = st.rt.finish_loop(&mut st.c, ready)?;
        st.c.kernels.record(t.tag, t.secs, t.mpi_secs, t.transfer);
        let target = st.rt.exec().name();
        crate::profile::record_kernel(&lp.name, target, lp.indirect, t.start, t.end);
        Ok(())
    })
}

/// `op_par_loop` for C kernels (older headers' C `op_par_loop` macro calls
/// this): `kernel` takes `nargs` pointer parameters.
///
/// # Safety
/// `name` is NULL or NUL-terminated; `args` holds `nargs` op_args; the
/// kernel takes `nargs` pointer parameters.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_c(
    kernel: Option<unsafe extern "C" fn()>,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    // SAFETY: the caller's contract.
    c_api!("op_par_loop", unsafe {
        c_loop(kernel, None, name, set, nargs, args)
    })
}

/// `op_par_loop` for C kernels (op_seq.h's C `op_par_loop` macro calls
/// this): as [`op2_par_loop_c`], with the kernel's name and the call
/// site's source file, so that a device library can find its source.
///
/// # Safety
/// As for [`op2_par_loop_c`]; `kernel_name` and `file` are NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_c_src(
    kernel: Option<unsafe extern "C" fn()>,
    kernel_name: *const c_char,
    file: *const c_char,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    c_api!("op_par_loop", {
        let source = Some((kernel_name, file));
        // SAFETY: the caller's contract.
        unsafe { c_loop(kernel, source, name, set, nargs, args) }
    })
}

/// # Safety
/// As for [`op2_par_loop_c_src`].
unsafe fn c_loop(
    kernel: Option<unsafe extern "C" fn()>,
    source: Option<(*const c_char, *const c_char)>,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) -> Result<()> {
    {
        // SAFETY: the caller's contract.
        let args = unsafe { checked_args(name, nargs, args) }?;
        let lc = LoopCall {
            name,
            set,
            fortran_kernel: None,
            args,
            max_args: Some(MAX_C_ARGS),
            codes: None,
            source,
        };
        // SAFETY: the caller's contract.
        let o = || obj("loop", &unsafe { crate::state::name_or(name, "?") });
        let f = kernel.ok_or_else(|| Op2Error::new("", o(), "the kernel is NULL"))?;
        if args.is_empty() {
            return Err(Op2Error::new("", o(), "a loop needs at least one argument"));
        }
        let inv = CInvoker {
            f,
            runner: RUNNERS[args.len().min(MAX_C_ARGS) - 1],
            base: 0,
        };
        // SAFETY: the caller's contract.
        unsafe { run(&lc, &inv) }
    }
}

/// The args of a loop call as a slice (a bad count or NULL array is an error).
///
/// # Safety
/// `name` is NULL or NUL-terminated; `args` holds `nargs` op_args.
pub(crate) unsafe fn checked_args<'a>(
    name: *const c_char,
    nargs: c_int,
    args: *const op_arg,
) -> Result<&'a [op_arg]> {
    if nargs < 0 || (nargs > 0 && args.is_null()) {
        // SAFETY: the caller's contract.
        let n = unsafe { crate::state::name_or(name, "?") };
        return Err(Op2Error::new(
            "",
            obj("loop", &n),
            format!("{nargs} args at {args:p}"),
        ));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { crate::args::slice(nargs, args) })
}

/// `op_par_loop` for C++ kernels (older headers' C++ `op_par_loop` calls
/// this): `range` is a trampoline that runs the kernel, inlined, over a
/// range of elements; `param_types` (nargs codes, may be NULL) describe the
/// kernel's parameters.
///
/// # Safety
/// As for [`op2_par_loop_c`]; `param_types` is NULL or holds `nargs` codes.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_range(
    range: Option<op2_range_fn>,
    param_types: *const c_int,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    // SAFETY: the caller's contract.
    c_api!("op_par_loop", unsafe {
        range_loop(range, None, param_types, None, name, set, nargs, args)
    })
}

/// `op_par_loop` for C++ kernels (op_seq.h's `op_par_loop` calls this): as
/// [`op2_par_loop_range`], with the kernel's name and the call site's
/// source file, so that a device library can find its source.
///
/// # Safety
/// As for [`op2_par_loop_range`]; `kernel_name` and `file` are NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_range_src(
    range: Option<op2_range_fn>,
    param_types: *const c_int,
    kernel_name: *const c_char,
    file: *const c_char,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    c_api!("op_par_loop", {
        let source = Some((kernel_name, file));
        // SAFETY: the caller's contract.
        unsafe { range_loop(range, None, param_types, source, name, set, nargs, args) }
    })
}

/// As [`op2_par_loop_range_src`] (op_seq.h's `op_par_loop` calls this),
/// with the trampoline's entry for several blocks at once (NULL: none), for
/// loops whose trampoline can run blocks side by side.
///
/// # Safety
/// As for [`op2_par_loop_range_src`]; `ranges` is NULL or op_seq.h's
/// trampoline of the same loop as `range`.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn op2_par_loop_ranges_src(
    range: Option<op2_range_fn>,
    ranges: Option<op2_ranges_fn>,
    param_types: *const c_int,
    kernel_name: *const c_char,
    file: *const c_char,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) {
    c_api!("op_par_loop", {
        let source = Some((kernel_name, file));
        // SAFETY: the caller's contract.
        unsafe { range_loop(range, ranges, param_types, source, name, set, nargs, args) }
    })
}

/// # Safety
/// As for [`op2_par_loop_range_src`].
#[allow(clippy::too_many_arguments)]
unsafe fn range_loop(
    range: Option<op2_range_fn>,
    ranges: Option<op2_ranges_fn>,
    param_types: *const c_int,
    source: Option<(*const c_char, *const c_char)>,
    name: *const c_char,
    set: op_set,
    nargs: c_int,
    args: *const op_arg,
) -> Result<()> {
    {
        let f = range.ok_or_else(|| Op2Error::new("", "", "the kernel trampoline is NULL"))?;
        // SAFETY: the caller's contract.
        let args = unsafe { checked_args(name, nargs, args) }?;
        let codes = (!param_types.is_null() && !args.is_empty())
            // SAFETY: the caller's contract.
            .then(|| unsafe { std::slice::from_raw_parts(param_types, args.len()) });
        let lc = LoopCall {
            name,
            set,
            fortran_kernel: None,
            args,
            max_args: None,
            codes,
            source,
        };
        // SAFETY: the caller's contract.
        unsafe { run(&lc, &RangeInvoker { f, ranges }) }
    }
}

/// A Fortran kernel's name for timing: its symbol if the executable exports
/// one (gfortran's `__module_MOD_name` shortened to `name`), else its address.
/// Looked up once per kernel.
pub(crate) fn fortran_kernel_name(h: &mut Handles, k: unsafe extern "C" fn()) -> *const c_char {
    h.kernel_names
        .entry(k as usize)
        .or_insert_with(|| crate::ffi::cstring(&kernel_symbol(k)))
        .as_ptr()
}

fn kernel_symbol(k: unsafe extern "C" fn()) -> String {
    // SAFETY: Dl_info is plain data (pointers and ints), valid when zeroed.
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
