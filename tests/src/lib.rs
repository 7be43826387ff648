//! Helpers for the integration tests: locate the workspace, compile C/C++
//! programs against `include/` and a built OP2 library, run them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}
