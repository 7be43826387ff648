//! MPI and MPI-IO for the HDF5 API: the library's communicator, the few
//! collectives the API needs, OP2's row blocks, and HDF5's MPI-IO property
//! lists with the two parallel-only HDF5 functions found at run time.
//!
//! `H5Pset_fapl_mpio` and `H5Pset_dxpl_mpio` exist only in a parallel HDF5;
//! the workspace binds hdf5-metno-sys to whichever HDF5 it is built
//! against (Debian's serial one by default), so they are not called through
//! it. They are looked up in the very library that this code's `H5Fopen`
//! resolves to (`dladdr` on it, then `dlsym` in that object): a program
//! linked with a parallel HDF5 finds them there, and a serial one gives a
//! clear error instead of mixing the property lists of two HDF5 libraries.

use hdf5_sys::h5::herr_t;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::{h5f, h5p};
use mpi::ffi;
use op2_hdf5_io::{op2_block, Access, Error, RowDist};
use std::ffi::{c_int, c_void, CStr};
use std::ops::Range;
use std::sync::OnceLock;

type SetFaplMpio = unsafe extern "C" fn(hid_t, ffi::MPI_Comm, ffi::MPI_Info) -> herr_t;
type SetDxplMpio = unsafe extern "C" fn(hid_t, c_int) -> herr_t;

/// `H5FD_MPIO_COLLECTIVE` of HDF5's `H5FD_mpio_xfer_t`.
const H5FD_MPIO_COLLECTIVE: c_int = 1;

/// The parallel-only HDF5 functions, from the HDF5 library in use.
#[derive(Clone, Copy)]
struct Parallel {
    set_fapl_mpio: SetFaplMpio,
    set_dxpl_mpio: SetDxplMpio,
}

/// The object file (shared library or program) holding `H5Fopen` as this
/// code calls it, and a dlopen handle to search it.
fn hdf5_object() -> (String, *mut c_void) {
    let anchor = h5f::H5Fopen as *const c_void;
    // SAFETY: dladdr only fills `info`; a zeroed Dl_info is valid.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: anchor is a function address; info is writable.
    let found = unsafe { libc::dladdr(anchor, &mut info) } != 0 && !info.dli_fname.is_null();
    if !found {
        // SAFETY: dlopen(NULL) returns the program's global scope.
        return ("the program".into(), unsafe {
            libc::dlopen(std::ptr::null(), libc::RTLD_LAZY)
        });
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: the object is loaded already (RTLD_NOLOAD opens no new one);
    // the program itself is not found by its path: its global scope then.
    let h = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    let h = if h.is_null() {
        // SAFETY: as above.
        unsafe { libc::dlopen(std::ptr::null(), libc::RTLD_LAZY) }
    } else {
        h
    };
    (name, h)
}

fn resolve() -> Result<Parallel, String> {
    let (name, h) = hdf5_object();
    // SAFETY: a valid handle (or NULL, which dlsym treats as the default scope)
    // and NUL-terminated names.
    let (f, d) = unsafe {
        (
            libc::dlsym(h, c"H5Pset_fapl_mpio".as_ptr()),
            libc::dlsym(h, c"H5Pset_dxpl_mpio".as_ptr()),
        )
    };
    if f.is_null() || d.is_null() {
        return Err(format!(
            "the HDF5 library in use ({name}) has no MPI-IO driver (H5Pset_fapl_mpio): it is a serial HDF5; under MPI link a parallel HDF5 after -lop2_mpi (e.g. -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5)"
        ));
    }
    // SAFETY: HDF5's prototypes: herr_t H5Pset_fapl_mpio(hid_t, MPI_Comm,
    // MPI_Info) and herr_t H5Pset_dxpl_mpio(hid_t, H5FD_mpio_xfer_t) (a C enum).
    Ok(unsafe {
        Parallel {
            set_fapl_mpio: std::mem::transmute::<*mut c_void, SetFaplMpio>(f),
            set_dxpl_mpio: std::mem::transmute::<*mut c_void, SetDxplMpio>(d),
        }
    })
}

fn parallel() -> Result<Parallel, String> {
    static P: OnceLock<Result<Parallel, String>> = OnceLock::new();
    P.get_or_init(resolve).clone()
}

/// The library's communicator (OP2's `OP_MPI_WORLD`) with this rank's place in it.
pub struct Comm {
    comm: ffi::MPI_Comm,
    /// this process's rank
    pub rank: u32,
    /// number of ranks
    pub size: u32,
}

fn mpi_ok(call: &str, rc: c_int) -> Result<(), String> {
    if rc == ffi::MPI_SUCCESS as c_int {
        Ok(())
    } else {
        Err(format!("{call} failed (MPI error {rc})"))
    }
}

impl Comm {
    /// The communicator of the OP2 library (op_init must have run).
    pub fn world() -> Result<Comm, String> {
        let comm = op2_backend_mpi::world()
            .ok_or_else(|| "OP2 is not initialised (call op_init first)".to_string())?;
        let (mut rank, mut size) = (0, 0);
        // SAFETY: a live communicator of the library.
        unsafe {
            mpi_ok("MPI_Comm_rank", ffi::MPI_Comm_rank(comm, &mut rank))?;
            mpi_ok("MPI_Comm_size", ffi::MPI_Comm_size(comm, &mut size))?;
        }
        Ok(Comm {
            comm,
            rank: rank as u32,
            size: size as u32,
        })
    }

    /// Every rank's `v`, in rank order.
    pub fn allgather(&self, v: u64) -> Result<Vec<u64>, String> {
        let mut all = vec![0u64; self.size as usize];
        // SAFETY: one u64 sent, one received per rank into `all`.
        let rc = unsafe {
            ffi::MPI_Allgather(
                (&v as *const u64).cast(),
                1,
                ffi::RSMPI_UINT64_T,
                all.as_mut_ptr().cast(),
                1,
                ffi::RSMPI_UINT64_T,
                self.comm,
            )
        };
        mpi_ok("MPI_Allgather", rc)?;
        Ok(all)
    }

    /// Rank 0's `v` on every rank (decisions about files, which only one
    /// process may look at before a collective create).
    pub fn root_says(&self, v: bool) -> Result<bool, String> {
        let mut b = u8::from(v);
        // SAFETY: one byte broadcast from rank 0.
        let rc = unsafe {
            ffi::MPI_Bcast(
                (&mut b as *mut u8).cast(),
                1,
                ffi::RSMPI_UINT8_T,
                0,
                self.comm,
            )
        };
        mpi_ok("MPI_Bcast", rc)?;
        Ok(b != 0)
    }

    /// Rows `[start, start + local)` of this rank when each rank holds its
    /// `local` rows in rank order, and the total.
    pub fn my_rows(&self, local: u64) -> Result<(Range<u64>, u64), String> {
        let all = self.allgather(local)?;
        let start: u64 = all[..self.rank as usize].iter().sum();
        Ok((start..start + local, all.iter().sum()))
    }

    /// OP2's block of this rank for a set of `global` elements.
    pub fn block(&self, global: u64) -> Range<u64> {
        op2_block(global, self.rank, self.size)
    }

    /// Stop every rank (after an error on this one).
    pub fn abort(&self, code: c_int) {
        // SAFETY: a live communicator; MPI_Abort does not return in practice.
        unsafe { ffi::MPI_Abort(self.comm, code) };
    }

    /// MPI-IO file access on this communicator with collective transfers.
    pub fn lists(&self) -> Result<Lists, String> {
        let p = parallel()?;
        hdf5::sync::sync(|| {
            // SAFETY: library class constants (the library is open inside sync).
            let (fapl, dxpl) = unsafe {
                (
                    h5p::H5Pcreate(*h5p::H5P_CLS_FILE_ACCESS),
                    h5p::H5Pcreate(*h5p::H5P_CLS_DATASET_XFER),
                )
            };
            let lists = Lists { fapl, dxpl };
            if fapl < 0 || dxpl < 0 {
                return Err("cannot create HDF5 property lists".to_string());
            }
            // SAFETY: fresh property lists of the right classes; the
            // communicator is live (HDF5 duplicates it).
            let (a, b) = unsafe {
                (
                    (p.set_fapl_mpio)(fapl, self.comm, ffi::RSMPI_INFO_NULL),
                    (p.set_dxpl_mpio)(dxpl, H5FD_MPIO_COLLECTIVE),
                )
            };
            if a < 0 || b < 0 {
                return Err("cannot select HDF5's MPI-IO driver (H5Pset_fapl_mpio / H5Pset_dxpl_mpio failed)".to_string());
            }
            Ok(lists)
        })
    }
}

/// An MPI-IO file-access list and a collective transfer list, closed on drop.
pub struct Lists {
    fapl: hid_t,
    dxpl: hid_t,
}

impl Lists {
    /// The lists as op2-hdf5-io takes them.
    pub fn access(&self) -> Access {
        Access {
            fapl: self.fapl,
            dxpl: self.dxpl,
        }
    }
}

impl Drop for Lists {
    fn drop(&mut self) {
        let (f, d) = (self.fapl, self.dxpl);
        hdf5::sync::sync(|| {
            for id in [f, d] {
                if id >= 0 {
                    // SAFETY: a property list this value created, closed once.
                    unsafe { h5p::H5Pclose(id) };
                }
            }
        });
    }
}

impl RowDist for Comm {
    fn block(&self, global: u64) -> Range<u64> {
        Comm::block(self, global)
    }
    fn rows_of(&self, local: u64) -> Result<(Range<u64>, u64), Error> {
        self.my_rows(local).map_err(Error::new)
    }
}
