//! The MPI backend of op2-rs (`libop2_mpi`): [`MpiComm`] implements core's
//! [`Collectives`] over an MPI communicator, and [`distribution`] assembles
//! core's [`Distributed`] with it, k-way partitioning (PT-Scotch over the
//! distributed graph where it is installed, [`ptscotch`]; METIS otherwise)
//! and an abort handle. What to send where comes from `op2_core::dist`; this crate only
//! moves bytes.
//!
//! Every MPI call's return code is checked: the library's communicator gets
//! `MPI_ERRORS_RETURN`, and a failing call becomes an `Op2Error` naming the
//! MPI function and MPI's own message. MPI is only ever called from the
//! thread that calls the OP2 API (halo exchanges are finished by the
//! executor on that thread), so `MPI_THREAD_FUNNELED` suffices.

pub mod ptscotch;

use mpi::ffi;
use op2_core::dist::{
    AbortHandle, Collectives, DistGraphPartitioner, Distributed, Distribution, PendingMessages,
};
use op2_core::{Op2Error, Result};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

/// An MPI communicator owned by the library (a duplicate of the
/// application's), with the facts OP2 needs about it.
pub struct MpiComm {
    comm: ffi::MPI_Comm,
    rank: usize,
    size: usize,
    node_ranks: usize,
    /// op2-rs called MPI_Init (so `finalize` calls MPI_Finalize).
    owns_mpi: bool,
}

// SAFETY: an MPI communicator handle is a plain value; the library calls MPI
// on one thread at a time (the API thread), which FUNNELED allows.
unsafe impl Send for MpiComm {}

/// The communicator of the live library (OP2's `OP_MPI_WORLD`), for code
/// outside the distribution that must talk to the same ranks (the MPI HDF5
/// API opens its files on it); NULL when there is none.
static WORLD: std::sync::Mutex<Option<RawComm>> = std::sync::Mutex::new(None);

/// The library's communicator between `op_init` and `op_exit` (`None`
/// outside them).
pub fn world() -> Option<ffi::MPI_Comm> {
    WORLD.lock().ok().and_then(|w| w.map(|c| c.0))
}

fn set_world(c: Option<ffi::MPI_Comm>) {
    if let Ok(mut w) = WORLD.lock() {
        *w = c.map(RawComm);
    }
}

/// Turn an MPI return code into a Result naming the call.
fn check(call: &str, rc: c_int) -> Result<()> {
    if rc == ffi::MPI_SUCCESS as c_int {
        return Ok(());
    }
    let mut buf = [0 as c_char; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: MPI_Error_string writes at most MPI_MAX_ERROR_STRING chars and the length.
    let msg = unsafe {
        if ffi::MPI_Error_string(rc, buf.as_mut_ptr(), &mut len) == ffi::MPI_SUCCESS as c_int {
            let bytes: Vec<u8> = buf[..len.clamp(0, ffi::MPI_MAX_ERROR_STRING as c_int) as usize]
                .iter()
                .map(|&c| c as u8)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            format!("error code {rc}")
        }
    };
    Err(Op2Error::new("MPI", "", format!("{call} failed: {msg}")))
}

/// A byte count as MPI's `int`.
fn count(call: &str, n: usize) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        Op2Error::new(
            "MPI",
            "",
            format!("{call}: {n} bytes exceed MPI's int count (2 GiB per message)"),
        )
    })
}

fn counts(call: &str, v: &[usize]) -> Result<Vec<c_int>> {
    v.iter().map(|&n| count(call, n)).collect()
}

/// Is MPI initialised and not yet finalised?
pub fn initialized() -> bool {
    let (mut init, mut fin) = (0, 0);
    // SAFETY: both functions may be called at any time and only write the flag.
    unsafe {
        ffi::MPI_Initialized(&mut init);
        ffi::MPI_Finalized(&mut fin);
    }
    init != 0 && fin == 0
}

impl MpiComm {
    /// Initialise MPI unless the application did (asking for
    /// `MPI_THREAD_FUNNELED`), and duplicate `MPI_COMM_WORLD`, or the
    /// application's communicator given as a Fortran handle (`op_mpi_init`).
    pub fn new(fortran_comm: Option<c_int>) -> Result<MpiComm> {
        let owns_mpi = !initialized();
        if owns_mpi {
            let mut provided: c_int = 0;
            // SAFETY: MPI is not initialised; NULL argc/argv are allowed.
            let rc = unsafe {
                ffi::MPI_Init_thread(
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    ffi::RSMPI_THREAD_FUNNELED,
                    &mut provided,
                )
            };
            check("MPI_Init_thread", rc)?;
        }
        // SAFETY: MPI is initialised; the handles are valid communicators
        // (OP2's contract for a Fortran handle given to op_mpi_init).
        unsafe {
            let base = match fortran_comm {
                Some(f) => ffi::MPI_Comm_f2c(f),
                None => ffi::RSMPI_COMM_WORLD,
            };
            let mut comm = ffi::RSMPI_COMM_NULL;
            check("MPI_Comm_dup", ffi::MPI_Comm_dup(base, &mut comm))?;
            check(
                "MPI_Comm_set_errhandler",
                ffi::MPI_Comm_set_errhandler(comm, ffi::RSMPI_ERRORS_RETURN),
            )?;
            let (mut rank, mut size) = (0, 0);
            check("MPI_Comm_rank", ffi::MPI_Comm_rank(comm, &mut rank))?;
            check("MPI_Comm_size", ffi::MPI_Comm_size(comm, &mut size))?;
            let mut node = ffi::RSMPI_COMM_NULL;
            check(
                "MPI_Comm_split_type",
                ffi::MPI_Comm_split_type(
                    comm,
                    ffi::RSMPI_COMM_TYPE_SHARED,
                    rank,
                    ffi::RSMPI_INFO_NULL,
                    &mut node,
                ),
            )?;
            let mut node_ranks = 1;
            check("MPI_Comm_size", ffi::MPI_Comm_size(node, &mut node_ranks))?;
            check("MPI_Comm_free", ffi::MPI_Comm_free(&mut node))?;
            set_world(Some(comm));
            Ok(MpiComm {
                comm,
                rank: rank as usize,
                size: size as usize,
                node_ranks: node_ranks.max(1) as usize,
                owns_mpi,
            })
        }
    }

    /// MPI_Abort on this communicator, callable from any thread without
    /// the library state.
    pub fn abort_handle(&self) -> AbortHandle {
        let raw = RawComm(self.comm);
        Arc::new(move |code| raw.abort(code))
    }
}

/// A communicator handle moved into the abort closure.
#[derive(Clone, Copy)]
struct RawComm(ffi::MPI_Comm);
// SAFETY: a handle is a plain value; MPI_Abort may be called from any thread
// on the error path (the process ends).
unsafe impl Send for RawComm {}
// SAFETY: as above.
unsafe impl Sync for RawComm {}

impl RawComm {
    fn abort(self, code: c_int) {
        if initialized() {
            // SAFETY: the handle was a live communicator of this run.
            unsafe { ffi::MPI_Abort(self.0, code) };
        }
    }
}

/// Messages in flight: MPI requests and the buffers they use.
struct MpiPending {
    reqs: Vec<ffi::MPI_Request>,
    /// Send buffers, alive until the sends complete.
    _sends: Vec<Vec<u8>>,
    recvs: Vec<Vec<u8>>,
}

// SAFETY: requests and buffers are plain values owned here; they are waited
// for on the API thread.
unsafe impl Send for MpiPending {}

impl MpiPending {
    fn wait_all(&mut self) -> Result<()> {
        if self.reqs.is_empty() {
            return Ok(());
        }
        // SAFETY: the requests were started on buffers this struct owns.
        let rc = unsafe {
            ffi::MPI_Waitall(
                self.reqs.len() as c_int,
                self.reqs.as_mut_ptr(),
                ffi::RSMPI_STATUSES_IGNORE,
            )
        };
        self.reqs.clear();
        check("MPI_Waitall", rc)
    }
}

impl PendingMessages for MpiPending {
    fn wait(mut self: Box<Self>) -> Result<Vec<Vec<u8>>> {
        self.wait_all()?;
        Ok(std::mem::take(&mut self.recvs))
    }
}

impl Drop for MpiPending {
    fn drop(&mut self) {
        // Never free a buffer MPI may still write or read.
        if !self.reqs.is_empty() && initialized() {
            let _ = self.wait_all();
        }
    }
}

/// Where MPI reads an empty send buffer from (never a dangling pointer).
static EMPTY: [u8; 1] = [0];

/// A pointer MPI may read from for `b.len()` bytes.
fn send_ptr(b: &[u8]) -> *const c_void {
    if b.is_empty() {
        EMPTY.as_ptr() as *const c_void
    } else {
        b.as_ptr() as *const c_void
    }
}

impl Collectives for MpiComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn node_ranks(&self) -> usize {
        self.node_ranks
    }

    fn barrier(&self) -> Result<()> {
        // SAFETY: a live communicator.
        check("MPI_Barrier", unsafe { ffi::MPI_Barrier(self.comm) })
    }

    fn allgatherv_bytes(&self, local: &[u8]) -> Result<(Vec<u8>, Vec<usize>)> {
        let n = count("MPI_Allgather", local.len())?;
        let mut all_n = vec![0 as c_int; self.size];
        // SAFETY: one int sent, `size` ints received, into buffers of those sizes.
        check("MPI_Allgather", unsafe {
            ffi::MPI_Allgather(
                &n as *const c_int as *const c_void,
                1,
                ffi::RSMPI_INT32_T,
                all_n.as_mut_ptr() as *mut c_void,
                1,
                ffi::RSMPI_INT32_T,
                self.comm,
            )
        })?;
        let sizes: Vec<usize> = all_n.iter().map(|&c| c.max(0) as usize).collect();
        let displs = counts(
            "MPI_Allgatherv",
            &op2_core::dist::collective::displacements(&sizes),
        )?;
        let total: usize = sizes.iter().sum();
        let mut out = vec![0u8; total + 1];
        // SAFETY: `out` holds the sum of the counts; displacements are within it.
        check("MPI_Allgatherv", unsafe {
            ffi::MPI_Allgatherv(
                send_ptr(local),
                n,
                ffi::RSMPI_UINT8_T,
                out.as_mut_ptr() as *mut c_void,
                all_n.as_ptr(),
                displs.as_ptr(),
                ffi::RSMPI_UINT8_T,
                self.comm,
            )
        })?;
        out.truncate(total);
        Ok((out, sizes))
    }

    fn alltoallv_bytes(&self, send: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        if send.len() != self.size {
            return Err(Op2Error::new(
                "MPI",
                "",
                format!(
                    "alltoallv with {} buffers on {} ranks",
                    send.len(),
                    self.size
                ),
            ));
        }
        let sizes: Vec<usize> = send.iter().map(|s| s.len()).collect();
        let scounts = counts("MPI_Alltoallv", &sizes)?;
        let mut rcounts = vec![0 as c_int; self.size];
        // SAFETY: `size` ints each way.
        check("MPI_Alltoall", unsafe {
            ffi::MPI_Alltoall(
                scounts.as_ptr() as *const c_void,
                1,
                ffi::RSMPI_INT32_T,
                rcounts.as_mut_ptr() as *mut c_void,
                1,
                ffi::RSMPI_INT32_T,
                self.comm,
            )
        })?;
        let rsizes: Vec<usize> = rcounts.iter().map(|&c| c.max(0) as usize).collect();
        let sdispl = counts(
            "MPI_Alltoallv",
            &op2_core::dist::collective::displacements(&sizes),
        )?;
        let rdispl_u = op2_core::dist::collective::displacements(&rsizes);
        let rdispl = counts("MPI_Alltoallv", &rdispl_u)?;
        let mut flat = send.concat();
        flat.push(0);
        let total: usize = rsizes.iter().sum();
        let mut recv = vec![0u8; total + 1];
        // SAFETY: buffers hold the sums of their counts; displacements lie within.
        check("MPI_Alltoallv", unsafe {
            ffi::MPI_Alltoallv(
                flat.as_ptr() as *const c_void,
                scounts.as_ptr(),
                sdispl.as_ptr(),
                ffi::RSMPI_UINT8_T,
                recv.as_mut_ptr() as *mut c_void,
                rcounts.as_ptr(),
                rdispl.as_ptr(),
                ffi::RSMPI_UINT8_T,
                self.comm,
            )
        })?;
        Ok((0..self.size)
            .map(|r| recv[rdispl_u[r]..rdispl_u[r] + rsizes[r]].to_vec())
            .collect())
    }

    fn start_exchange(
        &self,
        sends: Vec<(usize, Vec<u8>)>,
        recvs: &[(usize, usize)],
        tag: i32,
    ) -> Result<Box<dyn PendingMessages>> {
        let mut p = Box::new(MpiPending {
            reqs: Vec::with_capacity(sends.len() + recvs.len()),
            _sends: Vec::with_capacity(sends.len()),
            recvs: recvs.iter().map(|&(_, n)| vec![0u8; n]).collect(),
        });
        for (k, &(src, n)) in recvs.iter().enumerate() {
            // SAFETY: reading a constant handle.
            let mut req = unsafe { ffi::RSMPI_REQUEST_NULL };
            let buf = p.recvs[k].as_mut_ptr() as *mut c_void;
            // SAFETY: the buffer (n bytes, owned by `p`) outlives the request:
            // `p` waits for every request before dropping its buffers.
            let rc = unsafe {
                ffi::MPI_Irecv(
                    buf,
                    count("MPI_Irecv", n)?,
                    ffi::RSMPI_UINT8_T,
                    src as c_int,
                    tag,
                    self.comm,
                    &mut req,
                )
            };
            check("MPI_Irecv", rc)?;
            p.reqs.push(req);
        }
        for (dst, buf) in sends {
            // SAFETY: reading a constant handle.
            let mut req = unsafe { ffi::RSMPI_REQUEST_NULL };
            // SAFETY: as for the receives; the send buffer moves into `p`
            // (its heap storage does not move).
            let rc = unsafe {
                ffi::MPI_Isend(
                    send_ptr(&buf),
                    count("MPI_Isend", buf.len())?,
                    ffi::RSMPI_UINT8_T,
                    dst as c_int,
                    tag,
                    self.comm,
                    &mut req,
                )
            };
            p._sends.push(buf);
            check("MPI_Isend", rc)?;
            p.reqs.push(req);
        }
        Ok(p)
    }

    fn finalize(mut self: Box<Self>) -> Result<()> {
        if !initialized() {
            return Ok(());
        }
        set_world(None);
        // SAFETY: our own duplicate communicator, freed once.
        check("MPI_Comm_free", unsafe {
            ffi::MPI_Comm_free(&mut self.comm)
        })?;
        if self.owns_mpi {
            // SAFETY: op2-rs initialised MPI; nothing else uses it after op_exit.
            check("MPI_Finalize", unsafe { ffi::MPI_Finalize() })?;
        }
        Ok(())
    }
}

/// Graph k-way partition (METIS `PartGraphKway`, [`op2_metis::kway`]).
pub use op2_metis::kway;

/// The distribution of `libop2_mpi`: OP2's MPI semantics over a duplicate
/// of `MPI_COMM_WORLD` (or of the application's communicator, a Fortran
/// handle), PT-Scotch or METIS for OP2's k-way partitioner names (below),
/// MPI_Abort on fatal errors.
///
/// Partitioning runs without the global mesh (`op2_core::dist::scalable`);
/// OP2's k-way names use PT-Scotch on several ranks when the machine has it
/// ([`ptscotch`]), METIS otherwise (on rank 0 when there are several).
/// `OP2_PARTITION=replicated` selects the earlier phases that hold the mesh
/// metadata on every rank (a reference for comparisons).
pub fn distribution(fortran_comm: Option<c_int>) -> Result<Box<dyn Distribution>> {
    let comm = MpiComm::new(fortran_comm)?;
    let abort = comm.abort_handle();
    let raw = comm.comm;
    let scotch = if comm.size > 1 {
        ptscotch::load(raw).ok().flatten()
    } else {
        None
    };
    let replicated =
        std::env::var("OP2_PARTITION").is_ok_and(|v| v.eq_ignore_ascii_case("replicated"));
    Ok(Box::new(
        Distributed::new(Box::new(comm), Some(kway), Some(abort))
            .with_graph_partitioner(scotch.map(|p| Box::new(p) as Box<dyn DistGraphPartitioner>))
            .with_replicated_partitioning(replicated),
    ))
}
