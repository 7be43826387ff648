//! The one way into op2-rs from another language. Every `extern "C"`
//! function of every op2-rs library (the OP2 C ABI, the Fortran entry
//! points, the HDF5 C API) is a single call of [`enter`] through its
//! library's `c_api!` macro: the body runs under `catch_unwind`, so no Rust
//! panic unwinds into C, and an error becomes OP2's one-line message and
//! the program's exit status ([`Op2Error::exit_status`]). How a library
//! stops (exit, or every MPI rank) is its own [`Stop`].

use crate::error::{Op2Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How a library ends the program after printing an error.
pub type Stop = fn(&Op2Error) -> !;

/// The message of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Run the body of entry point `call`: its value, or (on an error or a
/// panic) the error handed to `stop`, with `call` filled in where the error
/// did not name one.
pub fn enter<R>(call: &'static str, stop: Stop, f: impl FnOnce() -> Result<R>) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) if e.call.is_empty() => stop(&e.in_call(call)),
        Ok(Err(e)) => stop(&e),
        Err(p) => stop(&Op2Error::internal(call, panic_text(&*p))),
    }
}

/// Run `f` with panics caught, as an error of `call` (for work inside an
/// entry point that must not unwind, e.g. a kernel's loop).
pub fn catch<R>(call: &'static str, f: impl FnOnce() -> Result<R>) -> Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(Op2Error::internal(call, panic_text(&*p))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_and_panics_become_one_line() {
        let e = catch("op_x", || -> Result<()> { panic!("boom") }).unwrap_err();
        assert_eq!(e.exit_status(), 70);
        assert_eq!(
            e.to_string(),
            "OP2 internal error in op_x: boom (this is a bug in op2-rs; please report it)"
        );
        let e = Op2Error::new("", "dat \"x\"", "bad").in_call("op_y");
        assert_eq!(e.to_string(), "OP2 error in op_y (dat \"x\"): bad");
        assert_eq!(e.exit_status(), 1);
        assert_eq!(enter("op_z", |_| unreachable!(), || Ok(3)), 3);
    }
}
