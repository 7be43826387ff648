//! This library's way to stop after an error (the boundary is
//! `op2_core::boundary::enter`): the error line, then exit.

pub use op2_hdf5_io::c_guard::Res;
use op2_hdf5_io::op2_core::Op2Error;

/// Print `e` and stop the program with its status.
pub fn stop(e: &Op2Error) -> ! {
    op2_hdf5_io::c_guard::report(e);
    std::process::exit(e.exit_status())
}

/// Print one line on C's stdout (OP2 prints its notices with op_printf).
pub fn notice(line: &str) {
    op2_hdf5_io::c_guard::print_line(line)
}
