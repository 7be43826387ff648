//! The composition root: the one place that knows which library this crate
//! is being built as. It picks the executor (how loops run) and the
//! distribution (where data lives); everything else in the C ABI works with
//! them as trait objects.

use op2_core::dist::Distribution;
use op2_core::invoke::Executor;
use std::os::raw::c_int;
use std::sync::Arc;

/// A library's execution engine and distribution.
pub(crate) struct Parts {
    pub(crate) exec: Arc<dyn Executor + Send + Sync>,
    pub(crate) dist: Box<dyn Distribution>,
}

/// `libop2_seq`: one thread, one node.
#[cfg(feature = "lib-seq")]
pub(crate) fn compose(_comm: Option<c_int>) -> op2_core::Result<Parts> {
    Ok(Parts {
        exec: Arc::new(op2_backend_seq::Seq),
        dist: Box::new(op2_core::dist::SingleNode::new()),
    })
}

/// `libop2_openmp`: a thread pool (OMP_NUM_THREADS, default all cores), one node.
#[cfg(feature = "lib-openmp")]
pub(crate) fn compose(_comm: Option<c_int>) -> op2_core::Result<Parts> {
    Ok(Parts {
        exec: Arc::new(
            op2_backend_threads::Threads::from_env()
                .with_thread_init(crate::vector_ptrs::init_thread),
        ),
        dist: Box::new(op2_core::dist::SingleNode::new()),
    })
}

/// `libop2_mpi`: MPI ranks (on the application's communicator when given, a
/// Fortran handle), each with a thread pool of OMP_NUM_THREADS threads, by
/// default its share of the node's cores.
#[cfg(feature = "lib-mpi")]
pub(crate) fn compose(comm: Option<c_int>) -> op2_core::Result<Parts> {
    let dist = op2_backend_mpi::distribution(comm)?;
    let threads = op2_backend_threads::Threads::from_env_or(dist.default_threads())
        .with_thread_init(crate::vector_ptrs::init_thread);
    Ok(Parts {
        exec: Arc::new(threads),
        dist,
    })
}

#[cfg(not(any(feature = "lib-seq", feature = "lib-openmp", feature = "lib-mpi")))]
compile_error!("build the C ABI through one of the library crates in capi/libs");
