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
pub use op2_hdf5_io::c_guard::{fail, Res};
use op2_hdf5_io::op2_core::Op2Error;

/// Print `e` and stop every rank with its status.
pub fn stop(e: &Op2Error) -> ! {
    let comm = Comm::world().ok();
    op2_hdf5_io::c_guard::report(e);
    op2_hdf5_io::c_guard::flush();
    if let Some(c) = comm {
        c.abort(e.exit_status());
    }
    std::process::exit(e.exit_status())
}

/// Print one line on C's stdout from rank 0 (OP2's op_printf).
pub fn notice(comm: &Comm, line: &str) {
    if comm.rank == 0 {
        op2_hdf5_io::c_guard::print_line(line)
    }
}
