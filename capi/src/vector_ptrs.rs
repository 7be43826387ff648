//! Each thread's buffer for the pointer arrays that C and Fortran kernels
//! receive for vector arguments (`T **`), reused range after range. A leaf
//! module: `par_loop` runs kernels with it, and `compose` hands
//! [`init_thread`] to a threads executor, which runs it on every thread of
//! its team when the team starts, so that a worker's first block allocates
//! nothing.

use std::cell::RefCell;

type P = *mut u8;

thread_local! {
    static VECTOR_PTRS: RefCell<Vec<P>> = const { RefCell::new(Vec::new()) };
}

/// Pointers the buffer holds without growing: every vector argument's map
/// dim, summed over a loop's arguments (aero: 16). A loop needing more grows
/// it once per thread.
#[allow(dead_code)] // libop2_seq has no threads executor to pass it to
const RESERVE: usize = 256;

/// Make this thread's buffer (registering its thread-local destructor, which
/// allocates, and reserving [`RESERVE`] pointers).
#[allow(dead_code)] // libop2_seq has no threads executor to pass it to
pub(crate) fn init_thread() {
    VECTOR_PTRS.with(|cell| cell.borrow_mut().reserve(RESERVE));
}

/// Run `f` with this thread's buffer (a fresh one if a kernel re-entered the
/// library and the buffer is in use).
pub(crate) fn with_vector_buffer<R>(f: impl FnOnce(&mut Vec<P>) -> R) -> R {
    VECTOR_PTRS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut Vec::new()),
    })
}
