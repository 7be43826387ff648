//! The panic boundary and fatal-error reporting of every `extern "C"` entry point.

use op2_core::dist::AbortHandle;
use op2_core::Op2Error;
use parking_lot::Mutex;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How to stop every process of the run (MPI_Abort under MPI); set by
/// op_init from the distribution, cleared by op_exit. A lock of its own:
/// the error path may hold the library state.
static ABORT: Mutex<Option<AbortHandle>> = Mutex::new(None);

pub(crate) fn set_abort(h: Option<AbortHandle>) {
    *ABORT.lock() = h;
}

/// Stop the program with `code`, every process of the run with it.
fn stop(code: i32) -> ! {
    let h = ABORT.try_lock().and_then(|g| g.clone());
    if let Some(abort) = h {
        abort(code);
    }
    std::process::exit(code)
}

/// Exit status of a program stopped by an OP2 usage error.
pub(crate) const EXIT_USAGE: i32 = 1;
/// Exit status after an internal error (a bug in op2-rs).
pub(crate) const EXIT_INTERNAL: i32 = 70;

/// Print an OP2 usage error and stop the program.
pub fn fatal(e: &Op2Error) -> ! {
    crate::printf::cflush();
    let _ = std::io::stdout().flush();
    eprintln!("{e}");
    let _ = std::io::stderr().flush();
    stop(EXIT_USAGE)
}

/// Run `f`; a Rust panic inside is reported as an internal error and stops the
/// program instead of unwinding into C.
pub fn guard<R>(call: &'static str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            crate::printf::cflush();
            eprintln!(
                "OP2 internal error in {call}: {msg} (this is a bug in op2-rs; please report it)"
            );
            stop(EXIT_INTERNAL)
        }
    }
}

/// Run `f` and stop the program with its message if it fails.
pub fn checked<R>(call: &'static str, f: impl FnOnce() -> Result<R, Op2Error>) -> R {
    match guard(call, f) {
        Ok(r) => r,
        Err(e) => fatal(&e),
    }
}

/// Report an internal error (a broken invariant inside op2-rs) and stop.
pub fn internal(msg: &str) -> ! {
    crate::printf::cflush();
    eprintln!("OP2 internal error: {msg} (this is a bug in op2-rs; please report it)");
    stop(EXIT_INTERNAL)
}
