//! The panic boundary and error reporting of the MPI HDF5 entry points:
//! one line `OP2 error in <call> (<object>): <what>` and every rank stops
//! with status 1 (MPI_Abort, as the other ranks may wait in a collective
//! call); a panic is an internal error, status 70.
//!
//! As in the rest of libop2_mpi, every rank that finds an error prints it
//! and aborts the job at once (a rank that waits for the others would hang
//! in their collective call): an error every rank finds may be printed by
//! more than one rank before MPI_Abort ends the job.

use crate::mpio::Comm;
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

fn flush() {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let _ = std::io::stdout().flush();
}

/// Print `line` and stop every rank with `code`.
fn stop(line: &str, code: i32) -> ! {
    flush();
    let comm = Comm::world().ok();
    eprintln!("{line}");
    flush();
    if let Some(c) = comm {
        c.abort(code);
    }
    std::process::exit(code)
}

/// Run `f`; stop every rank on its error (status 1) or a panic (status 70).
pub fn guard<R>(call: &str, f: impl FnOnce() -> Res<R>) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            if e.object.is_empty() {
                stop(&format!("OP2 error in {call}: {}", e.msg), 1)
            } else {
                stop(&format!("OP2 error in {call} ({}): {}", e.object, e.msg), 1)
            }
        }
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

/// Print one line on C's stdout from rank 0 (OP2's op_printf).
pub fn notice(comm: &Comm, line: &str) {
    if comm.rank != 0 {
        return;
    }
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
