//! The error boundary of every `extern "C"` function of the C ABI: each
//! body is one [`c_api!`] (core's [`op2_core::boundary::enter`]): no Rust
//! panic unwinds into C, and an error prints OP2's one line, `OP2 error in
//! <call> (<object>): <what>`, and stops the program with status 1 (a
//! broken invariant inside op2-rs: `OP2 internal error ...`, status 70);
//! under MPI every rank stops (`MPI_Abort` through the distribution's abort
//! handle, reachable without the state lock). `tests/tests/architecture.rs`
//! checks that every exported function goes through it.

use op2_core::dist::AbortHandle;
use op2_core::Op2Error;
use parking_lot::Mutex;
use std::io::Write;

/// The body of an exported function: `c_api!("op_call", expr)` evaluates
/// `expr` (an `op2_core::Result`) inside the boundary;
/// `c_api!(call = "op_call", expr)` also names the call `call` in `expr`.
/// `c_api!(unsafe "op_call", expr)` is the body of an `unsafe extern "C"`
/// function that hands its arguments to an `unsafe fn` with the same
/// contract (the function's `# Safety` section).
macro_rules! c_api {
    ($call:literal, $body:expr) => {
        op2_core::boundary::enter($call, $crate::boundary::stop, || $body)
    };
    (unsafe $call:literal, $body:expr) => {
        op2_core::boundary::enter($call, $crate::boundary::stop, || {
            // SAFETY: the exported function's contract with its C caller
            // (its `# Safety` section) is the contract of what it calls.
            unsafe { $body }
        })
    };
    ($name:ident = $call:literal, $body:expr) => {{
        let $name: &'static str = $call;
        op2_core::boundary::enter($name, $crate::boundary::stop, || $body)
    }};
    (unsafe $name:ident = $call:literal, $body:expr) => {{
        let $name: &'static str = $call;
        op2_core::boundary::enter($name, $crate::boundary::stop, || {
            // SAFETY: as in the `unsafe` form above.
            unsafe { $body }
        })
    }};
}
pub(crate) use c_api;

/// Exported functions written as a table, one entry per function:
/// `name(params) -> ret = "call" => expr;` is
/// `pub unsafe extern "C" fn name(params) -> ret { c_api!(unsafe "call", expr) }`
/// with the entry's docs: the form of every export whose body is one call
/// (families such as OP2's `_core` names, the MPI and CUDA spellings, the
/// scratch buffers). `tests/tests/headers.rs` expands the tables for
/// cbindgen, so `op2_rs_generated.h` declares these functions too.
macro_rules! exports {
    ($($(#[$m:meta])* $name:ident ($($p:ident: $t:ty),*) $(-> $r:ty)? = $call:literal => $body:expr;)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// Pointer arguments are NULL or point to what OP2's C API says
        /// (NUL-terminated strings; arrays of the sizes the other arguments
        /// give); a handle is one OP2 gave.
        #[no_mangle]
        #[allow(unused_unsafe)]
        pub unsafe extern "C" fn $name($($p: $t),*) $(-> $r)? {
            c_api!(unsafe $call, $body)
        }
    )*};
}
pub(crate) use exports;

/// How to stop every process of the run (MPI_Abort under MPI); set by
/// op_init from the distribution, cleared by op_exit. A lock of its own:
/// the error path may hold the library state.
static ABORT: Mutex<Option<AbortHandle>> = Mutex::new(None);

pub(crate) fn set_abort(h: Option<AbortHandle>) {
    *ABORT.lock() = h;
}

/// Print `e` on stderr (after C's and Rust's stdout, so messages keep their
/// order) and stop the program, every process of the run with it.
pub fn stop(e: &Op2Error) -> ! {
    crate::printf::cflush();
    let _ = std::io::stdout().flush();
    // One write: the lines of several MPI ranks must not interleave.
    let _ = std::io::stderr().write_all(format!("{e}\n").as_bytes());
    let _ = std::io::stderr().flush();
    let code = e.exit_status();
    let h = ABORT.try_lock().and_then(|g| g.clone());
    if let Some(abort) = h {
        abort(code);
    }
    std::process::exit(code)
}
