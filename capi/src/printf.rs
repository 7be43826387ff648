//! `op_printf(const char *fmt, ...)`: printf on the root process only.
//!
//! Stable Rust cannot define C-variadic functions, so `op_printf` is a naked
//! function that leaves the caller's registers and stack untouched and
//! tail-jumps into the C library's `printf` (or returns 0 when this process
//! must stay silent). Everything else we print also goes through C stdio, so
//! output from the application and from the library stays in order.

use std::sync::atomic::{AtomicU8, Ordering};

/// 1 when this process prints (the root rank; always on one node).
static PRINT_ENABLED: AtomicU8 = AtomicU8::new(1);

pub(crate) fn set_enabled(on: bool) {
    PRINT_ENABLED.store(on as u8, Ordering::Relaxed);
}

pub(crate) fn enabled() -> bool {
    PRINT_ENABLED.load(Ordering::Relaxed) != 0
}

/// `int op_printf(const char *fmt, ...)` (declared by hand in op_lib_core.h).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn op_printf() {
    // SAFETY: reads one byte of a static and tail-jumps to printf with the
    // caller's untouched argument registers (including %al for varargs) and
    // stack; otherwise returns 0.
    core::arch::naked_asm!(
        "cmp byte ptr [rip + {flag}], 0",
        "je 2f",
        "jmp qword ptr [rip + {printf}@GOTPCREL]",
        "2:",
        "xor eax, eax",
        "ret",
        flag = sym PRINT_ENABLED,
        printf = sym libc::printf,
    )
}

#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn op_printf() {
    // SAFETY: as for x86_64: x0-x7 and the stack are passed through untouched.
    core::arch::naked_asm!(
        "adrp x9, {flag}",
        "ldrb w9, [x9, :lo12:{flag}]",
        "cbz w9, 2f",
        "b {printf}",
        "2:",
        "mov w0, #0",
        "ret",
        flag = sym PRINT_ENABLED,
        printf = sym libc::printf,
    )
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("op_printf is implemented for x86_64 and aarch64 only");

/// Write `s` to the C library's stdout (in order with the application's
/// printf); only on the root process.
pub(crate) fn cout(s: &str) {
    if !enabled() {
        return;
    }
    for part in s.split('\0') {
        let c = std::ffi::CString::new(part).expect("split on NUL");
        // SAFETY: a valid NUL-terminated string and a constant format.
        unsafe { libc::printf(c"%s".as_ptr(), c.as_ptr()) };
    }
}

/// Flush C stdout.
pub(crate) fn cflush() {
    // SAFETY: fflush(NULL) flushes all C output streams.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}
