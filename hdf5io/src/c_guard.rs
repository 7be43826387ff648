//! The error convention of the HDF5 C libraries, the C ABI's: every entry
//! point is `op2_core::boundary::enter` (one line `OP2 error in <call>
//! (<object>): <what>`, status 1; a panic is an internal error, status
//! 70), with the way to stop left to each library (exit on one node,
//! MPI_Abort under MPI).

use std::ffi::{c_char, CStr};
use std::io::Write;

/// Results of the HDF5 C API: core's one error type; the entry point
/// fills in the call's name ([`op2_core::boundary::enter`]).
pub type Res<T> = op2_core::Result<T>;

/// A usage error about `object` (the call is the entry point's).
pub fn fail(object: &str, msg: impl Into<String>) -> op2_core::Op2Error {
    op2_core::Op2Error::new("", object, msg)
}

/// Flush C's and Rust's stdout, so messages keep their order.
pub fn flush() {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let _ = std::io::stdout().flush();
}

/// Print an error line on stderr after everything printed so far (for a
/// library's `stop`).
pub fn report(e: &op2_core::Op2Error) {
    flush();
    // One write: the lines of several MPI ranks must not interleave.
    let _ = std::io::stderr().write_all(format!("{e}\n").as_bytes());
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
        return Err(fail(object, format!("{what} is NULL")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}
