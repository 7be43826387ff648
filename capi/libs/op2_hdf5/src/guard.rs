//! This library's panic boundary and error reporting (hdf5io's c_guard):
//! the error line, then exit.

pub use op2_hdf5_io::c_guard::Res;

fn stop(line: &str, code: i32) -> ! {
    op2_hdf5_io::c_guard::flush();
    eprintln!("{line}");
    std::process::exit(code)
}

/// Run `f`; stop the program on its error (status 1) or on a panic (status 70).
pub fn guard<R>(call: &str, f: impl FnOnce() -> Res<R>) -> R {
    op2_hdf5_io::c_guard::guard_with(call, stop, f)
}

/// Print one line on C's stdout (OP2 prints its notices with op_printf).
pub fn notice(line: &str) {
    op2_hdf5_io::c_guard::print_line(line)
}
