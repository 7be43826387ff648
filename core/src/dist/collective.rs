//! What distributed OP2 needs from a communication layer: a few collectives
//! over bytes and non-blocking point-to-point exchanges. `backends/mpi`
//! implements it over MPI; [`super::sim`] over threads of one process (tests,
//! scale simulations).
//!
//! Every collective is called by all ranks in the same order (OP2 programs run
//! the same loops on every rank and dirty state evolves identically).
//! Reductions are folded in rank order from an all-gather, so every rank gets
//! bitwise the same value whatever the communication library's reduction
//! algorithm.

use crate::arg::Access;
use crate::error::{Op2Error, Result};
use crate::reduce;
use crate::types::ScalarType;

/// Messages in flight from [`Collectives::start_exchange`].
///
/// Dropping one without calling [`PendingMessages::wait`] must still wait for
/// the messages (so no receive can land in freed memory); it then discards
/// what arrived.
pub trait PendingMessages: Send {
    /// Wait for every message; the received buffers, in the order of the
    /// `recvs` given to `start_exchange`.
    fn wait(self: Box<Self>) -> Result<Vec<Vec<u8>>>;
}

/// Communication among the ranks of one OP2 run.
pub trait Collectives: Send {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    fn barrier(&self) -> Result<()>;
    /// Every rank's bytes, concatenated in rank order, and the byte count of each rank.
    fn allgatherv_bytes(&self, local: &[u8]) -> Result<(Vec<u8>, Vec<usize>)>;
    /// Send `send[r]` to rank `r` (`send.len() == size()`); what every rank
    /// sent here, by source rank.
    fn alltoallv_bytes(&self, send: &[Vec<u8>]) -> Result<Vec<Vec<u8>>>;
    /// Start sending each `(rank, bytes)` of `sends` and receiving
    /// `(rank, byte count)` of `recvs`, all with `tag`. Neither list names a
    /// rank twice.
    fn start_exchange(
        &self,
        sends: Vec<(usize, Vec<u8>)>,
        recvs: &[(usize, usize)],
        tag: i32,
    ) -> Result<Box<dyn PendingMessages>>;
    /// Number of ranks on this node (they share its cores: the default
    /// thread count per rank divides the cores among them).
    fn node_ranks(&self) -> usize {
        1
    }
    /// Release the communication library (MPI_Finalize if we initialised it).
    fn finalize(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

/// Plain values that travel as their native bytes.
///
/// # Safety
/// Implementors are primitive integers or floats: no padding, and every bit
/// pattern of `SIZE` bytes is a valid value ([`to_bytes`] and [`from_bytes`]
/// copy them as memory).
pub unsafe trait Pod: Copy + Default + Send + 'static {
    const SIZE: usize;
}

macro_rules! pod {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive number (see the trait).
        unsafe impl Pod for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
        }
    )*};
}
pod!(u8, i32, u32, i64, u64, f64, f32, usize);

/// Native bytes of a slice of values.
pub fn to_bytes<T: Pod>(v: &[T]) -> Vec<u8> {
    // SAFETY: `T: Pod` has no padding, so all `size_of_val(v)` bytes of the
    // slice are initialised and may be read as `u8`.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        .to_vec()
}

/// Values from native bytes (the length must be a multiple of the size).
pub fn from_bytes<T: Pod>(b: &[u8]) -> Vec<T> {
    let n = b.len() / T::SIZE;
    let mut out = vec![T::default(); n];
    // SAFETY: `out` holds `n * SIZE` bytes, `b` at least as many, they do not
    // overlap, and any bytes form a valid `T: Pod`.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), out.as_mut_ptr().cast::<u8>(), n * T::SIZE);
    }
    out
}

/// Every rank's values, concatenated in rank order, and each rank's count.
pub fn allgatherv<T: Pod>(c: &dyn Collectives, local: &[T]) -> Result<(Vec<T>, Vec<usize>)> {
    let (bytes, counts) = c.allgatherv_bytes(&to_bytes(local))?;
    Ok((
        from_bytes(&bytes),
        counts.into_iter().map(|n| n / T::SIZE).collect(),
    ))
}

/// One value from every rank.
pub fn allgather_one<T: Pod>(c: &dyn Collectives, v: T) -> Result<Vec<T>> {
    Ok(allgatherv(c, &[v])?.0)
}

/// Sum over ranks of one count, and the sum over the ranks before this one.
pub fn sum_and_offset(c: &dyn Collectives, v: u64) -> Result<(u64, u64)> {
    let all = allgather_one(c, v)?;
    Ok((all.iter().sum(), all[..c.rank()].iter().sum()))
}

/// Combine a global argument across ranks, in place, as OP2 does after a loop:
/// INC sums, MIN/MAX take the extremum, WRITE keeps the last rank's value that
/// is not all zero bytes per component (OP2's "any"), READ/RW/WORK are left
/// alone. Bool INC/MAX are "or", MIN "and". The fold runs in rank order on the
/// gathered values, so every rank ends with bitwise the same result.
pub fn allreduce(c: &dyn Collectives, t: ScalarType, acc: Access, data: &mut [u8]) -> Result<()> {
    if !matches!(acc, Access::Inc | Access::Min | Access::Max | Access::Write) || data.is_empty() {
        return Ok(());
    }
    let width = t.size().ok_or_else(|| {
        Op2Error::new(
            "op_mpi_reduce",
            "",
            "a global of a user-defined type cannot be reduced across ranks",
        )
    })?;
    let n = data.len();
    let (all, counts) = c.allgatherv_bytes(data)?;
    if counts.iter().any(|&k| k != n) {
        return Err(Op2Error::new(
            "op_mpi_reduce",
            "",
            format!("ranks reduce globals of different sizes: {counts:?} bytes"),
        ));
    }
    let mut acc_buf = all[..n].to_vec();
    for src in all.chunks_exact(n).skip(1) {
        if acc == Access::Write {
            for (d, s) in acc_buf.chunks_exact_mut(width).zip(src.chunks_exact(width)) {
                if s.iter().any(|&b| b != 0) {
                    d.copy_from_slice(s);
                }
            }
        } else if !reduce::combine(t, acc, &mut acc_buf, src) {
            return Err(Op2Error::new(
                "op_mpi_reduce",
                "",
                format!("{} cannot reduce a global of this type", acc.name()),
            ));
        }
    }
    data.copy_from_slice(&acc_buf);
    Ok(())
}

/// [`allreduce`] for logical values of `width` bytes each (C `bool`: 1,
/// Fortran `logical`: 4): INC and MAX give "any rank true", MIN "every rank
/// true", WRITE "any rank wrote true"; true is stored as 1.
pub fn allreduce_logical(
    c: &dyn Collectives,
    width: usize,
    acc: Access,
    data: &mut [u8],
) -> Result<()> {
    if !matches!(acc, Access::Inc | Access::Min | Access::Max | Access::Write)
        || data.is_empty()
        || width == 0
    {
        return Ok(());
    }
    let n = data.len();
    let (all, counts) = c.allgatherv_bytes(data)?;
    if counts.iter().any(|&k| k != n) {
        return Err(Op2Error::new(
            "op_mpi_reduce_bool",
            "",
            format!("ranks reduce logicals of different sizes: {counts:?} bytes"),
        ));
    }
    let truth = |b: &[u8]| b.iter().any(|&x| x != 0);
    for (k, d) in data.chunks_exact_mut(width).enumerate() {
        let mut vals = all
            .chunks_exact(n)
            .map(|r| truth(&r[k * width..(k + 1) * width]));
        let v = match acc {
            Access::Min => vals.all(|v| v),
            _ => vals.any(|v| v),
        };
        d.fill(0);
        d[0] = u8::from(v);
        if cfg!(target_endian = "big") {
            d.reverse();
        }
    }
    Ok(())
}

/// Exclusive prefix sums of `counts` (displacements).
pub fn displacements(counts: &[usize]) -> Vec<usize> {
    let mut d = Vec::with_capacity(counts.len());
    let mut acc = 0;
    for &c in counts {
        d.push(acc);
        acc += c;
    }
    d
}
