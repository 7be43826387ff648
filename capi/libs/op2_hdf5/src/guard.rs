//! The panic boundary and error reporting of this library's entry points
//! (capi's convention: one line `OP2 error in <call> (<object>): <what>`,
//! status 1; a panic is an internal error, status 70).

use std::ffi::{c_char, CStr, CString};
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
fn flush() {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let _ = std::io::stdout().flush();
}

/// Run `f`; stop the program on its error (status 1) or on a panic (status 70).
pub fn guard<R>(call: &str, f: impl FnOnce() -> Res<R>) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            flush();
            if e.object.is_empty() {
                eprintln!("OP2 error in {call}: {}", e.msg);
            } else {
                eprintln!("OP2 error in {call} ({}): {}", e.object, e.msg);
            }
            std::process::exit(1)
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            flush();
            eprintln!(
                "OP2 internal error in {call}: {msg} (this is a bug in op2-rs; please report it)"
            );
            std::process::exit(70)
        }
    }
}

/// Print one line on C's stdout (OP2 prints its notices with op_printf).
pub fn notice(line: &str) {
    let text = CString::new(format!("{line}\n").replace('\0', " ")).unwrap_or_default();
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
