//! OP2's tree profiler C API (`op_profile.h`), over `op2_core::profile`.
//! It works independently of op_init/op_exit, as in OP2. `op_par_loop`
//! records each loop as a kernel section (shown from OP_PROFILE_LEVEL=2).
//! Under MPI, `op_profile_output` and `op_profile_output_json` are
//! collective: every rank sends its tree in the binary encoding of
//! `op2_core::profile::wire` and the root prints or writes the merged tree
//! (see `cross_rank::merged_profile`).
//!
//! With `OP_PROFILE_JSON_OUTPUT` set, a program that never calls the
//! profiler still gets the file: `op_init` opens the root and records loops
//! ([`at_init`]), `op_exit` writes the file unless `op_profile_output`
//! already did ([`at_exit`]).

use crate::boundary::{c_api, exports};
use op2_core::profile::Profiler;
use parking_lot::Mutex;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static PROFILER: Mutex<Option<Profiler>> = Mutex::new(None);

/// The variable naming the JSON profile file (OP2's).
const JSON_OUTPUT: &str = "OP_PROFILE_JSON_OUTPUT";

/// Whether `op_profile_output` wrote the file `OP_PROFILE_JSON_OUTPUT`
/// names during this run (then `op_exit` does not write it again).
static JSON_WRITTEN: AtomicBool = AtomicBool::new(false);

fn json_output() -> Option<String> {
    std::env::var(JSON_OUTPUT).ok().filter(|f| !f.is_empty())
}

/// At `op_init`: with `OP_PROFILE_JSON_OUTPUT` set, the profile's root is
/// opened now (named after the program; a later `op_profile_start`
/// replaces it with the program's own) and, unless `OP_PROFILE_LEVEL` is set, loops are recorded
/// (level 2), so that a program that never calls the profiler still gets
/// its loops in the file `op_exit` writes.
pub(crate) fn at_init() {
    if json_output().is_none() {
        return;
    }
    JSON_WRITTEN.store(false, Ordering::Relaxed);
    let program = std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "op2".to_string());
    let keep_level = std::env::var_os("OP_PROFILE_LEVEL").is_some();
    with(|p| p.start_implicit(&program, keep_level, Instant::now()));
}

/// At `op_exit` (collective under MPI): the file `OP_PROFILE_JSON_OUTPUT`
/// names, unless `op_profile_output` already wrote it; the profile is
/// ended first.
pub(crate) fn at_exit() -> op2_core::Result<()> {
    let Some(file) = json_output() else {
        return Ok(());
    };
    if JSON_WRITTEN.load(Ordering::Relaxed) {
        return Ok(());
    }
    let (local, level) = with(|p| {
        p.end(Instant::now());
        (p.encode(), p.level())
    });
    if let Some(merged) = crate::cross_rank::merged_profile(local, level)? {
        if let Some(j) = merged.output_json() {
            write_json(&file, &j);
        }
    }
    Ok(())
}

fn with<R>(f: impl FnOnce(&mut Profiler) -> R) -> R {
    let mut g = PROFILER.lock();
    f(g.get_or_insert_with(Profiler::from_env))
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn name(p: *const c_char) -> String {
    // SAFETY: the caller's contract.
    unsafe { crate::state::name_or(p, "(null)") }.into_owned()
}

/// Record one execution of loop `name` (called by op_par_loop).
pub(crate) fn record_kernel(name: &str, target: &str, indirect: bool, t0: Instant, t1: Instant) {
    with(|p| {
        p.enter_kernel(
            name,
            target,
            if indirect { "Indirect" } else { "Direct" },
            t0,
        );
        p.exit(t1);
    })
}

/// Run `f` on the profiler at `now`.
fn at(f: impl FnOnce(&mut Profiler, Instant)) -> op2_core::Result<()> {
    with(|p| f(p, Instant::now()));
    Ok(())
}

/// Open a kernel section (generated code).
///
/// # Safety
/// The strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn op_profile_enter_kernel(
    name: *const c_char,
    target: *const c_char,
    variant: *const c_char,
) {
    c_api!(unsafe "op_profile_enter_kernel", {
        let (n, v) = (self::name(name), self::name(variant));
        at(|p, t| p.enter_kernel(&n, &self::name(target), &v, t))
    })
}

/// Print the profile (root process); also write JSON if OP_PROFILE_JSON_OUTPUT is set.
#[no_mangle]
pub extern "C" fn op_profile_output() {
    c_api!("op_profile_output", {
        let (local, level) = with(|p| (p.encode(), p.level()));
        if let Some(merged) = crate::cross_rank::merged_profile(local, level)? {
            crate::printf::cout(&merged.output());
            if let (Some(file), Some(j)) = (json_output(), merged.output_json()) {
                write_json(&file, &j);
            }
        }
        if json_output().is_some() {
            JSON_WRITTEN.store(true, Ordering::Relaxed);
        }
        Ok(())
    })
}

fn write_json(file: &str, json: &str) {
    crate::printf::cout(&format!("Writing timing JSON to: {file}\n"));
    if let Err(e) = std::fs::write(file, json) {
        eprintln!("OP2 warning in op_profile_output_json: cannot write \"{file}\": {e}");
    }
}

/// Write the profile as JSON to `filename`.
///
/// # Safety
/// `filename` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn op_profile_output_json(filename: *const c_char) {
    c_api!("op_profile_output_json", {
        // SAFETY: the caller's contract.
        let f = unsafe { self::name(filename) };
        let (local, level) = with(|p| (p.encode(), p.level()));
        if let Some(merged) = crate::cross_rank::merged_profile(local, level)? {
            if let Some(j) = merged.output_json() {
                write_json(&f, &j);
            }
        }
        Ok(())
    })
}

exports! {
    /// Start the profile's root section.
    op_profile_start(name: *const c_char) = "op_profile_start" => at(|p, t| p.start(&self::name(name), t));
    /// Close every open section and the root.
    op_profile_end() = "op_profile_end" => at(|p, t| p.end(t));
    /// Open a nested section.
    op_profile_enter(name: *const c_char) = "op_profile_enter" => at(|p, t| p.enter(&self::name(name), t));
    /// Close the current section and open a sibling.
    op_profile_next(name: *const c_char) = "op_profile_next" => at(|p, t| p.next(&self::name(name), t));
    /// Close the current section.
    op_profile_exit() = "op_profile_exit" => at(|p, t| p.exit(t));
}
