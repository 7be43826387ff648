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
pub use op2_hdf5_io::c_guard::{Fail, Res};

/// Print `line` and stop every rank with `code`.
fn stop(line: &str, code: i32) -> ! {
    op2_hdf5_io::c_guard::flush();
    let comm = Comm::world().ok();
    eprintln!("{line}");
    op2_hdf5_io::c_guard::flush();
    if let Some(c) = comm {
        c.abort(code);
    }
    std::process::exit(code)
}

/// Run `f`; stop every rank on its error (status 1) or a panic (status 70).
pub fn guard<R>(call: &str, f: impl FnOnce() -> Res<R>) -> R {
    op2_hdf5_io::c_guard::guard_with(call, stop, f)
}

/// Print one line on C's stdout from rank 0 (OP2's op_printf).
pub fn notice(comm: &Comm, line: &str) {
    if comm.rank == 0 {
        op2_hdf5_io::c_guard::print_line(line)
    }
}
