//! The composition root: the one place that knows which library this crate
//! is being built as. It picks the executor (how loops run) and the
//! distribution (where data lives); everything else in the C ABI works with
//! them as trait objects.

use op2_core::runtime::Parts;
use std::os::raw::c_int;
use std::sync::Arc;

/// `libop2_seq`: one thread, one node.
#[cfg(feature = "lib-seq")]
pub(crate) fn compose(_comm: Option<c_int>) -> op2_core::Result<Parts> {
    Ok(Parts {
        exec: Arc::new(op2_backend_seq::Seq),
        dist: Box::new(op2_core::dist::SingleNode::new()),
        device: None,
        loops: None,
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
        device: None,
        loops: None,
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
        device: None,
        loops: None,
    })
}

/// `libop2_cuda`: loops generated for CUDA run on the device; loops of
/// unchanged op_seq.h programs too, through code the library writes and
/// NVRTC compiles at run time (op2_backend_cuda::loops); a loop it cannot
/// write or compile runs on the host with a thread pool, like
/// libop2_openmp.
#[cfg(feature = "lib-cuda")]
pub(crate) fn compose(_comm: Option<c_int>) -> op2_core::Result<Parts> {
    let (device, loops) = op2_backend_cuda::device_and_loops(0)
        .map_err(|e| op2_core::Op2Error::new("op_init", "", e))?;
    Ok(Parts {
        exec: Arc::new(
            op2_backend_threads::Threads::from_env()
                .with_thread_init(crate::vector_ptrs::init_thread),
        ),
        dist: Box::new(op2_core::dist::SingleNode::new()),
        device: Some(device),
        loops,
    })
}

/// `libop2_opencl`: loops of unchanged op_seq.h programs run on an OpenCL
/// device through code the library writes at run time (op2-codegen); a
/// loop it cannot write or compile runs on the host, sequentially. The
/// device is `OP2_RS_OPENCL_DEVICE`'s (default: the first); no OpenCL at
/// all stops op_init with one line.
#[cfg(feature = "lib-opencl")]
pub(crate) fn compose(_comm: Option<c_int>) -> op2_core::Result<Parts> {
    let fail = |w: String| op2_core::Op2Error::new("op_init", "", w);
    let (cl, engine) = op2_backend_opencl::engine::open_from_env().map_err(fail)?;
    Ok(Parts {
        exec: Arc::new(op2_backend_seq::Seq),
        dist: Box::new(op2_core::dist::SingleNode::new()),
        device: Some(cl),
        loops: Some(Arc::new(engine)),
    })
}

/// `libop2_mpi_opencl`: MPI ranks, each running its loops of unchanged
/// op_seq.h programs on an OpenCL device (`OP2_RS_OPENCL_DEVICE`, as
/// libop2_opencl; every rank opens the same choice) through code written
/// at run time; halo rows travel through the host. A loop without device
/// code runs on the rank's host threads.
#[cfg(feature = "lib-mpi-opencl")]
pub(crate) fn compose(comm: Option<c_int>) -> op2_core::Result<Parts> {
    let fail = |w: String| op2_core::Op2Error::new("op_init", "", w);
    let dist = op2_backend_mpi::distribution(comm)?;
    let threads = op2_backend_threads::Threads::from_env_or(dist.default_threads())
        .with_thread_init(crate::vector_ptrs::init_thread);
    let (cl, engine) = op2_backend_opencl::engine::open_from_env().map_err(fail)?;
    Ok(Parts {
        exec: Arc::new(threads),
        dist,
        device: Some(cl),
        loops: Some(Arc::new(engine)),
    })
}

/// `libop2_mpi_cuda`: MPI ranks, each on one device (rank modulo the number
/// of devices on its node, as OP2): code generated for CUDA runs there, and
/// so do the loops of unchanged op_seq.h programs (through NVRTC, as on
/// libop2_cuda).
#[cfg(feature = "lib-mpi-cuda")]
pub(crate) fn compose(comm: Option<c_int>) -> op2_core::Result<Parts> {
    let dist = op2_backend_mpi::distribution(comm)?;
    let threads = op2_backend_threads::Threads::from_env_or(dist.default_threads())
        .with_thread_init(crate::vector_ptrs::init_thread);
    let (device, loops) = op2_backend_cuda::device_and_loops(dist.rank())
        .map_err(|e| op2_core::Op2Error::new("op_init", "", e))?;
    Ok(Parts {
        exec: Arc::new(threads),
        dist,
        device: Some(device),
        loops,
    })
}
