//! Single-node libraries: no distribution, every hook is the identity.

use crate::state::State;
use op2_core::arg::ArgSpec;
use op2_core::invoke::ArgView;
use op2_core::{Result, SetId};

/// Elements to execute and owned elements of a loop over `set`.
pub(crate) fn before_loop(st: &mut State, set: SetId, _args: &[ArgSpec]) -> Result<(usize, usize)> {
    let n = st.dom.set(set).size;
    Ok((n, n))
}

/// Nothing to reduce across processes.
pub(crate) fn after_loop(_st: &mut State, _args: &[ArgSpec], _views: &[ArgView]) -> Result<()> {
    Ok(())
}

/// No halo exchanges on one node.
pub(crate) fn has_pending(_st: &State) -> bool {
    false
}

pub(crate) fn wait_all(_st: &mut State) {}
