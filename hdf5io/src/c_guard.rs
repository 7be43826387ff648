//! The error convention of the HDF5 C libraries (capi's: one line
//! `OP2 error in <call> (<object>): <what>`, status 1; a panic is an
//! internal error, status 70), with the way to stop left to each library
//! (exit on one node, MPI_Abort under MPI).

use std::ffi::{c_char, CStr};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A usage error: the object it concerns and what is wrong.
pub struct Fail {
    pub object: String,
    pub msg: String,
}

impl Fail {
    pub fn new(object: &str, msg: impl Into<String>) -> Fail {
        Fail {
            object: object.to_string(),
            msg: msg.into(),
        }
    }
}

pub type Res<T> = Result<T, Fail>;

/// Flush C's and Rust's stdout, so messages keep their order.
pub fn flush() {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let _ = std::io::stdout().flush();
}

/// Run `f`; on its error (status 1) or a panic (status 70) hand the
/// message line and the status to `stop`.
pub fn guard_with<R>(call: &str, stop: fn(&str, i32) -> !, f: impl FnOnce() -> Res<R>) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) if e.object.is_empty() => stop(&format!("OP2 error in {call}: {}", e.msg), 1),
        Ok(Err(e)) => stop(&format!("OP2 error in {call} ({}): {}", e.object, e.msg), 1),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            stop(
                &format!(
                    "OP2 internal error in {call}: {msg} (this is a bug in op2-rs; please report it)"
                ),
                70,
            )
        }
    }
}

/// Print one line on C's stdout (OP2 prints its notices with op_printf).
pub fn print_line(line: &str) {
    let text = std::ffi::CString::new(format!("{line}\n").replace('\0', " ")).unwrap_or_default();
    // SAFETY: a valid format and NUL-terminated argument.
    unsafe { libc::printf(c"%s".as_ptr(), text.as_ptr()) };
}

/// A C string argument, or an error naming it.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub unsafe fn arg(p: *const c_char, what: &str, object: &str) -> Res<String> {
    if p.is_null() {
        return Err(Fail::new(object, format!("{what} is NULL")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}
