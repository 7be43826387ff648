//! An `op_par_loop` call after its first, fully checked preparation: what
//! every later identical call reuses (found by its raw arguments, see
//! [`crate::fingerprint`]), so a loop in steady state allocates nothing and
//! re-checks nothing.

use op2_core::arg::{Access, ArgKind, ArgSpec};
use op2_core::invoke::ArgView;
use op2_core::plan::Plan;
use op2_core::types::ScalarType;
use op2_core::{DatId, SetId};
use std::sync::Arc;

/// A checked loop, ready to run again.
pub(crate) struct PreparedLoop {
    pub(crate) name: String,
    pub(crate) set: SetId,
    pub(crate) specs: Vec<ArgSpec>,
    pub(crate) views: Vec<ArgView>,
    pub(crate) scalars: Vec<ScalarType>,
    /// Arguments whose global value is combined across processes after the
    /// loop (INC/MIN/MAX/WRITE globals).
    pub(crate) globals: Vec<usize>,
    /// Dats the loop touches (their halo state is mirrored into C after it).
    pub(crate) dats: Vec<DatId>,
    /// Record in `OP_kernels`.
    pub(crate) kernel: usize,
    /// Bytes moved per execution (OP2's estimate).
    pub(crate) transfer: f64,
    pub(crate) indirect: bool,
    pub(crate) plan: Option<Arc<Plan>>,
}

/// Which arguments are globals combined across processes.
pub(crate) fn combined_globals(specs: &[ArgSpec]) -> Vec<usize> {
    specs
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.opt
                && matches!(s.kind, ArgKind::Gbl)
                && matches!(
                    s.access,
                    Access::Inc | Access::Min | Access::Max | Access::Write
                )
        })
        .map(|(i, _)| i)
        .collect()
}

/// The distinct dats among the arguments.
pub(crate) fn dats_of(specs: &[ArgSpec]) -> Vec<DatId> {
    let mut v: Vec<DatId> = specs
        .iter()
        .filter(|s| s.opt)
        .filter_map(|s| match s.kind {
            ArgKind::Dat { dat, .. } => Some(dat),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Dats a loop writes (OP_INC, OP_WRITE, OP_RW).
pub(crate) fn written_dats(specs: &[ArgSpec]) -> Vec<DatId> {
    let mut v: Vec<DatId> = specs
        .iter()
        .filter(|s| s.opt && !matches!(s.access, Access::Read | Access::Min | Access::Max))
        .filter_map(|s| match s.kind {
            ArgKind::Dat { dat, .. } => Some(dat),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}
