//! The MPI side of distributed OP2 (`libop2_mpi`): a communicator and the
//! collective operations the C ABI needs. What to send where comes from
//! `op2_core::halo` / `op2_core::partition`; this crate only moves bytes.
//!
//! Every operation here is collective over the communicator and is called by
//! all ranks in the same order (OP2 programs run the same loops everywhere;
//! dirty bits evolve identically on every rank).

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use op2_core::arg::Access;
use op2_core::halo::HaloList;
use op2_core::types::ScalarType;

/// The library's communicator.
pub struct Comm {
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// Present when op2-rs initialised MPI (then op_exit finalises it).
    universe: Option<Universe>,
}

impl Comm {
    /// Initialise MPI unless the application did, and duplicate the world
    /// communicator (so library traffic never mixes with the application's).
    pub fn init() -> Comm {
        let universe = mpi::initialize();
        let comm = SimpleCommunicator::world().duplicate();
        Comm::from_comm(comm, universe)
    }

    /// Use (a duplicate of) an application communicator given as a C handle.
    ///
    /// # Safety
    /// `raw` must be a valid MPI communicator handle of this MPI library.
    pub unsafe fn from_raw(raw: mpi::ffi::MPI_Comm) -> Comm {
        let universe = if mpi::environment::is_initialized() {
            None
        } else {
            mpi::initialize()
        };
        let user = SimpleCommunicator::from_raw(raw);
        let comm = user.duplicate();
        std::mem::forget(user);
        Comm::from_comm(comm, universe)
    }

    /// Use (a duplicate of) an application communicator given as a Fortran
    /// handle (`MPI_Fint`, what OP2's `op_mpi_init` takes).
    ///
    /// # Safety
    /// `f` must be a valid Fortran communicator handle and MPI initialised.
    pub unsafe fn from_fortran(f: i32) -> Comm {
        Comm::from_raw(mpi::ffi::MPI_Comm_f2c(f))
    }

    fn from_comm(comm: SimpleCommunicator, universe: Option<Universe>) -> Comm {
        let rank = comm.rank() as usize;
        let size = comm.size() as usize;
        Comm {
            comm,
            rank,
            size,
            universe,
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }
    pub fn size(&self) -> usize {
        self.size
    }
    /// Did op2-rs initialise MPI (and so must finalise it)?
    pub fn owns_mpi(&self) -> bool {
        self.universe.is_some()
    }
    /// The communicator handle as an integer (for [`abort_raw`]).
    pub fn raw_handle(&self) -> usize {
        let raw = self.comm.as_raw();
        const _: () =
            assert!(std::mem::size_of::<mpi::ffi::MPI_Comm>() == std::mem::size_of::<usize>());
        // SAFETY: MPI_Comm is a handle of pointer size (checked above).
        unsafe { std::mem::transmute_copy::<mpi::ffi::MPI_Comm, usize>(&raw) }
    }

    pub fn barrier(&self) {
        self.comm.barrier();
    }

    /// Stop every rank.
    pub fn abort(&self, code: i32) -> ! {
        self.comm.abort(code)
    }

    /// One value from every rank.
    pub fn allgather_u64(&self, v: u64) -> Vec<u64> {
        let mut out = vec![0u64; self.size];
        self.comm.all_gather_into(&v, &mut out[..]);
        out
    }

    /// Concatenation of every rank's slice, in rank order, with the counts.
    pub fn allgatherv<T: Equivalence + Copy + Default>(&self, local: &[T]) -> (Vec<T>, Vec<usize>) {
        let counts: Vec<usize> = self
            .allgather_u64(local.len() as u64)
            .into_iter()
            .map(|c| c as usize)
            .collect();
        let total: usize = counts.iter().sum();
        let mut out = vec![T::default(); total + 1];
        let c32: Vec<i32> = counts.iter().map(|&c| c as i32).collect();
        let displs = displacements(&c32);
        {
            // (One spare element: MPI rejects the dangling pointer of an empty Vec.)
            let mut spare = local.to_vec();
            spare.push(T::default());
            let mut part = PartitionMut::new(&mut out[..total], &c32[..], &displs[..]);
            self.comm
                .all_gather_varcount_into(&spare[..local.len()], &mut part);
        }
        out.truncate(total);
        (out, counts)
    }

    /// Send `send[r]` to rank r; returns what every rank sent here, by rank.
    pub fn alltoallv_bytes(&self, send: &[Vec<u8>]) -> Vec<Vec<u8>> {
        assert_eq!(send.len(), self.size);
        let scounts: Vec<i32> = send.iter().map(|s| s.len() as i32).collect();
        let mut rcounts = vec![0i32; self.size];
        self.comm.all_to_all_into(&scounts[..], &mut rcounts[..]);
        let sdispl = displacements(&scounts);
        let rdispl = displacements(&rcounts);
        // One spare byte each: MPI rejects the dangling pointer of an empty Vec.
        let mut flat: Vec<u8> = send.concat();
        let nsend = flat.len();
        flat.push(0);
        let nrecv: usize = rcounts.iter().map(|&c| c as usize).sum();
        let mut recv = vec![0u8; nrecv + 1];
        {
            let sp = Partition::new(&flat[..nsend], &scounts[..], &sdispl[..]);
            let mut rp = PartitionMut::new(&mut recv[..nrecv], &rcounts[..], &rdispl[..]);
            self.comm.all_to_all_varcount_into(&sp, &mut rp);
        }
        (0..self.size)
            .map(|r| recv[rdispl[r] as usize..(rdispl[r] + rcounts[r]) as usize].to_vec())
            .collect()
    }

    /// Fill the halo rows of `data` (elements of `elem_bytes`) from their
    /// owners: rows listed in `export` are sent, rows in `import` received.
    pub fn exchange(
        &self,
        export: &HaloList,
        import: &HaloList,
        data: &mut [u8],
        elem_bytes: usize,
    ) {
        let mut send = vec![Vec::new(); self.size];
        for (r, rows) in export.neighbours() {
            let buf = &mut send[r];
            buf.reserve(rows.len() * elem_bytes);
            for &i in rows {
                buf.extend_from_slice(&data[i * elem_bytes..(i + 1) * elem_bytes]);
            }
        }
        let recv = self.alltoallv_bytes(&send);
        for (r, rows) in import.neighbours() {
            let buf = &recv[r];
            assert_eq!(
                buf.len(),
                rows.len() * elem_bytes,
                "halo message from rank {r} has the wrong size"
            );
            for (k, &i) in rows.iter().enumerate() {
                data[i * elem_bytes..(i + 1) * elem_bytes]
                    .copy_from_slice(&buf[k * elem_bytes..(k + 1) * elem_bytes]);
            }
        }
    }

    /// Combine a global reduction across ranks in place. Returns false for a
    /// type/access that cannot be reduced.
    pub fn allreduce(&self, t: ScalarType, acc: Access, data: &mut [u8]) -> bool {
        macro_rules! go {
            ($ty:ty) => {{
                const W: usize = std::mem::size_of::<$ty>();
                let local: Vec<$ty> = data
                    .chunks_exact(W)
                    .map(|c| <$ty>::from_ne_bytes(c.try_into().unwrap()))
                    .collect();
                let mut global = local.clone();
                let op = match acc {
                    Access::Inc => SystemOperation::sum(),
                    Access::Min => SystemOperation::min(),
                    Access::Max => SystemOperation::max(),
                    _ => return false,
                };
                self.comm.all_reduce_into(&local[..], &mut global[..], op);
                for (c, v) in data.chunks_exact_mut(W).zip(global) {
                    c.copy_from_slice(&v.to_ne_bytes());
                }
                true
            }};
        }
        match t {
            ScalarType::F64 => go!(f64),
            ScalarType::F32 => go!(f32),
            ScalarType::I32 => go!(i32),
            ScalarType::U32 => go!(u32),
            ScalarType::I64 => go!(i64),
            ScalarType::U64 => go!(u64),
            _ => false,
        }
    }

    /// Sum of one value over ranks, and the exclusive prefix sum up to this rank.
    pub fn sum_and_offset(&self, v: u64) -> (u64, u64) {
        let all = self.allgather_u64(v);
        (all.iter().sum(), all[..self.rank].iter().sum())
    }

    /// Finalise MPI if op2-rs initialised it.
    pub fn finalize(self) {
        drop(self.comm);
        drop(self.universe);
    }
}

fn displacements(counts: &[i32]) -> Vec<i32> {
    let mut d = Vec::with_capacity(counts.len());
    let mut acc = 0;
    for &c in counts {
        d.push(acc);
        acc += c;
    }
    d
}

/// Is MPI initialised (and not yet finalised)?
pub fn initialized() -> bool {
    mpi::environment::is_initialized() && !mpi::environment::is_finalized()
}

/// MPI_Abort on a raw communicator handle (for the error path, which has no
/// access to the library state).
pub fn abort_raw(raw: usize, code: i32) -> ! {
    // SAFETY: `raw` is a communicator handle stored from a live Comm.
    unsafe {
        let comm: mpi::ffi::MPI_Comm = std::mem::transmute_copy::<usize, mpi::ffi::MPI_Comm>(&raw);
        mpi::ffi::MPI_Abort(comm, code);
    }
    std::process::exit(code)
}

/// Graph k-way partition (METIS `PartGraphKway`) of a CSR graph into
/// `nparts` parts. Deterministic: every rank computes the same partition.
pub fn kway(xadj: &[i32], adjncy: &[i32], nparts: usize) -> Result<Vec<i32>, String> {
    let n = xadj.len().saturating_sub(1);
    if nparts <= 1 || n == 0 {
        return Ok(vec![0; n]);
    }
    // metis::Idx is METIS's 32-bit idx_t, the same type as our CSR entries.
    let mut part: Vec<metis::Idx> = vec![0; n];
    let g =
        metis::Graph::new(1, nparts as metis::Idx, xadj, adjncy).map_err(|e| format!("{e:?}"))?;
    g.part_kway(&mut part).map_err(|e| format!("{e:?}"))?;
    Ok(part)
}

/// Halo messages of one dat in flight (from [`Comm::start_exchange`]).
pub struct PendingExchange {
    /// Bytes this rank sends in this exchange.
    pub bytes_sent: usize,
    reqs: Vec<mpi::ffi::MPI_Request>,
    /// Send buffers, kept alive until the sends complete.
    _sends: Vec<Vec<u8>>,
    /// Receive buffers and the local rows they fill.
    recvs: Vec<(Vec<u8>, Vec<usize>)>,
    elem_bytes: usize,
}

impl Comm {
    /// Start refreshing the halo rows of `data`: one message per neighbour
    /// holding its exec rows then its non-exec rows (`exports`/`imports` are
    /// the exec and non-exec lists). The owned rows are copied out now, so the
    /// caller may compute on them (and must not read halo rows) until
    /// [`Comm::finish_exchange`].
    pub fn start_exchange(
        &self,
        exports: [&HaloList; 2],
        imports: [&HaloList; 2],
        data: &[u8],
        elem_bytes: usize,
        tag: i32,
    ) -> PendingExchange {
        let eb = elem_bytes;
        let rows_for = |lists: [&HaloList; 2], r: usize| -> Vec<usize> {
            let mut v = lists[0].with(r).to_vec();
            v.extend_from_slice(lists[1].with(r));
            v
        };
        let neighbours = |lists: [&HaloList; 2]| -> Vec<usize> {
            let mut v: Vec<usize> = lists[0]
                .ranks
                .iter()
                .chain(&lists[1].ranks)
                .copied()
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut reqs = Vec::new();
        let mut recvs = Vec::new();
        let mut sends = Vec::new();
        for r in neighbours(imports) {
            let rows = rows_for(imports, r);
            let buf = vec![0u8; rows.len() * eb + 1];
            recvs.push((buf, rows));
        }
        for r in neighbours(exports) {
            let rows = rows_for(exports, r);
            let mut buf = Vec::with_capacity(rows.len() * eb + 1);
            for &i in &rows {
                buf.extend_from_slice(&data[i * eb..(i + 1) * eb]);
            }
            sends.push((r, buf));
        }
        // SAFETY: every buffer outlives its request (both are kept in the
        // returned PendingExchange until MPI_Waitall in finish_exchange).
        unsafe {
            let comm: mpi::ffi::MPI_Comm = self.comm.as_raw();
            for (k, r) in neighbours(imports).into_iter().enumerate() {
                let (buf, rows) = &mut recvs[k];
                let mut req = mpi::ffi::RSMPI_REQUEST_NULL;
                mpi::ffi::MPI_Irecv(
                    buf.as_mut_ptr() as *mut std::os::raw::c_void,
                    (rows.len() * eb) as i32,
                    mpi::ffi::RSMPI_UINT8_T,
                    r as i32,
                    tag,
                    comm,
                    &mut req,
                );
                reqs.push(req);
            }
            for (r, buf) in &sends {
                let mut req = mpi::ffi::RSMPI_REQUEST_NULL;
                mpi::ffi::MPI_Isend(
                    buf.as_ptr() as *const std::os::raw::c_void,
                    buf.len() as i32,
                    mpi::ffi::RSMPI_UINT8_T,
                    *r as i32,
                    tag,
                    comm,
                    &mut req,
                );
                reqs.push(req);
            }
        }
        PendingExchange {
            bytes_sent: sends.iter().map(|(_, b)| b.len()).sum(),
            reqs,
            _sends: sends.into_iter().map(|(_, b)| b).collect(),
            recvs,
            elem_bytes: eb,
        }
    }

    /// Wait for the messages of [`Comm::start_exchange`] and write the received
    /// halo rows into `data`.
    pub fn finish_exchange(&self, mut p: PendingExchange, data: &mut [u8]) {
        if !p.reqs.is_empty() {
            // SAFETY: the requests were started by start_exchange on buffers held by `p`.
            unsafe {
                mpi::ffi::MPI_Waitall(
                    p.reqs.len() as i32,
                    p.reqs.as_mut_ptr(),
                    mpi::ffi::RSMPI_STATUSES_IGNORE,
                );
            }
        }
        let eb = p.elem_bytes;
        for (buf, rows) in &p.recvs {
            for (k, &i) in rows.iter().enumerate() {
                data[i * eb..(i + 1) * eb].copy_from_slice(&buf[k * eb..(k + 1) * eb]);
            }
        }
    }
}
