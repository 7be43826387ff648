//! OP2's HDF5 API under MPI (`op_hdf5.h`), part of `libop2_mpi` and
//! `libop2_mpi_cuda` as in OP2 (link: `-lop2_mpi` and a parallel HDF5).
//!
//! Every call opens its file on the library's communicator with HDF5's
//! MPI-IO driver and transfers collectively (`mpio`):
//!
//! * `op_decl_set_hdf5[_infer_size]`: each rank declares OP2's block of the
//!   global size (`⌊g·r/P⌋..⌊g·(r+1)/P⌋`);
//! * `op_decl_map_hdf5` / `op_decl_dat_hdf5`: each rank reads the rows of
//!   its block of the from-set/set (its local size, after the lower ranks'
//!   sizes); map values stay global indices, as `op_partition` expects;
//! * `op_get_const_hdf5` / `op_write_const_hdf5`: every rank reads / takes
//!   part in the write;
//! * `op_dump_to_hdf5`: sets as global sizes, maps and dats **as held**
//!   (after `op_partition`: partitioned order, maps in local numbering), each
//!   rank writing its owned rows after the lower ranks' (OP2's behaviour);
//! * `op_fetch_data_hdf5*`: the dat in its **original global order**: each
//!   rank takes OP2's block of rows of the original order
//!   (`op_fetch_data_idx_char`, which gathers it) and writes it collectively.
//!
//! The crate calls the OP2 C API through `extern "C"` (never capi code
//! directly), so in `libop2_mpi.a` these objects, and the HDF5 references
//! in them, are linked only into programs that call an `op_*_hdf5` function.

mod ffi;
mod guard;
mod mpio;

use ffi::op_dat;
use guard::{fail, notice, Res};
use mpio::{Comm, Lists};
use op2_hdf5_io::c_api::Ctx;
use op2_hdf5_io::c_util::{dat_type, io, name_of, set_size};
use op2_hdf5_io::{ElemType, H5File, Mode, RowDist};
use std::ops::Range;

/// The communicator and the MPI-IO property lists of one call.
struct Mpi {
    comm: Comm,
    lists: Lists,
}

impl Mpi {
    fn mpi<T>(&self, r: Result<T, String>, object: &str) -> Res<T> {
        r.map_err(|m| fail(object, m))
    }
}

impl Ctx for Mpi {
    const FETCH_CREATE: Mode = Mode::Truncate;
    const DUMP_SKIPS_EMPTY_MAPS: bool = true;

    fn new(object: &str) -> Res<Mpi> {
        let comm = Comm::world().map_err(|m| fail(object, m))?;
        let lists = comm.lists().map_err(|m| fail(object, m))?;
        Ok(Mpi { comm, lists })
    }

    fn open(&self, path: &str, mode: Mode, object: &str) -> Res<H5File> {
        H5File::open(path, mode, self.lists.access()).map_err(io(object))
    }

    /// Open `path` for writing: read-write when it exists (rank 0 decides),
    /// else created.
    fn open_for_writing(&self, path: &str, create: Mode, object: &str) -> Res<(H5File, bool)> {
        let here = std::path::Path::new(path).exists();
        let exists = self.comm.root_says(here).map_err(|m| fail(object, m))?;
        let mode = if exists { Mode::ReadWrite } else { create };
        Ok((self.open(path, mode, object)?, exists))
    }

    fn dist(&self) -> &dyn RowDist {
        &self.comm
    }

    /// From rank 0 (OP2's op_printf).
    fn notice(&self, line: &str) {
        notice(&self.comm, line);
    }

    /// Rank 0 only (the same file is read by every rank).
    fn shows_progress(&self) -> bool {
        self.comm.rank == 0
    }

    fn my_rows(&self, local: u64, object: &str) -> Res<(Range<u64>, u64)> {
        self.mpi(self.comm.my_rows(local), object)
    }

    /// OP2's block of rows of the dat's original global order.
    unsafe fn fetch_rows(
        &self,
        dat: op_dat,
        _dim: usize,
        _elem: ElemType,
        object: &str,
    ) -> Res<(u64, Range<u64>, Vec<u8>)> {
        // SAFETY: a live op_dat and its set.
        let global = unsafe { ffi::op_get_size((*dat).set) }.max(0) as u64;
        let rows = self.comm.block(global);
        // SAFETY: a live op_dat.
        let data = unsafe { fetch::original_rows(dat, global, rows.clone(), object) }?;
        Ok((global, rows, data))
    }

    unsafe fn dump_dat(&self, f: &H5File, dat: op_dat) -> Res<()> {
        // SAFETY: the caller's contract.
        unsafe { dump::dump_dat(self, f, dat) }
    }
}

op2_hdf5_io::op_hdf5_c_api!(Mpi, guard::stop);

mod dump;
mod fetch;
