//! Hierarchical (tree) profiler backing OP2's `op_profile.h` C API.
//!
//! A [`Profiler`] records a tree of named, timed sections. The C entry points
//! map onto it one to one:
//!
//! | C API                                        | method                         |
//! |----------------------------------------------|--------------------------------|
//! | `op_profile_start(name)`                     | [`Profiler::start`]            |
//! | `op_profile_enter(name)`                     | [`Profiler::enter`]            |
//! | `op_profile_enter_kernel(name, tgt, var)`    | [`Profiler::enter_kernel`]     |
//! | `op_profile_next(name)`                      | [`Profiler::next`]             |
//! | `op_profile_exit()`                          | [`Profiler::exit`]             |
//! | `op_profile_end()`                           | [`Profiler::end`]              |
//! | `op_profile_output()`                        | [`Profiler::output`]           |
//! | `op_profile_output_json(file)`               | [`Profiler::output_json`]      |
//!
//! `start` opens the root section (named after the application) and `end`
//! closes every section that is still open, the root included. `enter`/`exit`
//! open and close nested sections below the current one; `next` is
//! `exit` followed by `enter`. `enter_kernel` is what generated loop code calls:
//! it opens a section named `"<name>/<target>/<variant>"` and marks it as a
//! kernel node.
//!
//! # Modules
//!
//! * `tree` – [`Clock`], [`Node`], [`NodeKind`] and the [`Profiler`] itself
//!   (recording, snapshots, merging trees);
//! * `report` – the text report of `op_profile_output` ([`Profiler::output`],
//!   [`format_duration`]);
//! * `json` – the JSON document in OP2's layout ([`Node::to_json`],
//!   [`Profiler::output_json`]). It is output only: nothing here reads JSON;
//! * [`wire`] – the compact, versioned binary encoding of everything that
//!   crosses MPI ranks: profile trees ([`Profiler::encode`],
//!   [`Profiler::merge_encoded`]) and per-kernel figures;
//! * [`figures`] – one kernel's timing record on one rank ([`KernelFigures`])
//!   and the CSV of `op_timings_to_csv` built from every rank's records.
//!
//! # Across MPI ranks
//!
//! Every rank encodes its [`snapshot`](Profiler::snapshot) with
//! [`Profiler::encode`]; the C layer gathers the messages and the root merges
//! them, in rank order, into a fresh profiler with
//! [`Profiler::merge_encoded`] (see [`Node::merge`]) before printing the
//! report or writing the JSON. Values cross ranks exactly: durations as whole
//! seconds plus nanoseconds, floating-point figures as their bit patterns.
//!
//! # Levels (`OP_PROFILE_LEVEL`)
//!
//! * `0` – disabled: every call is a no-op and nothing is printed.
//! * `1` – (default, [`DEFAULT_LEVEL`]) only user sections are timed; kernels
//!   and everything entered inside them are ignored.
//! * `2` – user sections plus whole-kernel timings; sections entered inside a
//!   kernel (e.g. `"MPI Exchanges"`, `"Computation"`) are ignored.
//! * `3` – everything, including the sections inside kernels; the report gains
//!   a `%kern` column and a detailed tree for the four slowest kernels of each
//!   table.
//!
//! The level is fixed once `start` has been called. Parsing the environment
//! variable is left to the caller (see [`parse_level`]).
//!
//! # Time
//!
//! Every timing method takes the current [`Instant`](std::time::Instant) as a
//! parameter, so the profiler itself never reads a clock and can be driven
//! with synthetic times. A section's duration is `exit_time - enter_time`,
//! saturating at zero if the caller passes an earlier instant.
//!
//! # Robustness
//!
//! OP2 asserts on misuse; this module never panics and instead:
//!
//! * ignores every call made before `start`, after `end`, or at level 0;
//! * ignores a second `start`;
//! * ignores an `exit` when only the root section is open (the root is closed
//!   by `end` only), so `next` at root depth behaves like `enter`;
//! * lets `output`/`output_json` run while sections are still open: the report
//!   is built from a copy of the tree in which every open section is closed at
//!   the latest instant the profiler has been given. The live tree is left
//!   untouched, so timing can continue afterwards;
//! * answers a malformed wire message with a [`WireError`] saying what is
//!   wrong and where.
//!
//! No global state: the C layer owns one `Profiler`.

pub mod figures;
mod json;
mod report;
mod tree;
pub mod wire;

pub use figures::{timings_csv, KernelFigures};
pub use report::format_duration;
pub use tree::{Clock, Node, NodeKind, Profiler};
pub use wire::WireError;

/// Level used when `OP_PROFILE_LEVEL` is not set (OP2's code default:
/// user sections only, kernels not timed).
pub const DEFAULT_LEVEL: u32 = 1;
/// Level 0: profiling disabled.
pub const LEVEL_DISABLED: u32 = 0;
/// Level 1: user sections only.
pub const LEVEL_SIMPLE: u32 = 1;
/// Level 2: user sections and whole-kernel timings.
pub const LEVEL_KERNEL: u32 = 2;
/// Level 3: everything, including sections inside kernels.
pub const LEVEL_KERNEL_DETAILED: u32 = 3;

/// Parses a value of `OP_PROFILE_LEVEL` the way OP2 does (`std::stoi`:
/// leading white space, an optional sign, then decimal digits; anything after
/// the digits is ignored). Returns `None` when the text holds no number, the
/// number does not fit an `int`, or it lies outside `0..=3`; OP2 then keeps
/// the previous level and prints
/// `warning: OP_PROFILE_LEVEL set to unsupported value: <value>\n`
/// (printing is the caller's job).
pub fn parse_level(value: &str) -> Option<u32> {
    let text = value.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut negative = false;
    if let Some(&sign) = bytes.first() {
        if sign == b'+' || sign == b'-' {
            negative = sign == b'-';
            pos = 1;
        }
    }
    let digits_start = pos;
    let mut magnitude: i64 = 0;
    while let Some(&b) = bytes.get(pos) {
        if !b.is_ascii_digit() {
            break;
        }
        magnitude = magnitude * 10 + i64::from(b - b'0');
        if magnitude > i64::from(i32::MAX) + 1 {
            return None;
        }
        pos += 1;
    }
    if pos == digits_start {
        return None;
    }
    let number = if negative { -magnitude } else { magnitude };
    if number < i64::from(i32::MIN) || number > i64::from(i32::MAX) {
        return None;
    }
    u32::try_from(number)
        .ok()
        .filter(|level| *level <= LEVEL_KERNEL_DETAILED)
}

/// Synthetic clocks and call sequences shared by the tests of every
/// submodule.
#[cfg(test)]
pub(crate) mod test_util {
    use super::Profiler;
    use std::time::{Duration, Instant};

    /// Synthetic clock: `at(base, ms)` is `base + ms` milliseconds.
    pub fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    pub fn us(base: Instant, micros: u64) -> Instant {
        base + Duration::from_micros(micros)
    }

    pub fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    pub fn ns(v: u64) -> Duration {
        Duration::from_nanos(v)
    }

    /// The call sequence of a translator-v2 seq loop.
    pub fn seq_loop(p: &mut Profiler, name: &str, variant: &str, t0: Instant, micros: [u64; 4]) {
        p.enter_kernel(name, "seq", variant, us(t0, micros[0]));
        p.enter("MPI Exchanges", us(t0, micros[0]));
        p.next("Computation", us(t0, micros[1]));
        p.next("MPI Wait", us(t0, micros[2]));
        p.exit(us(t0, micros[3]));
        p.exit(us(t0, micros[3]));
    }

    /// A level-2 profile as one MPI rank would record it: two runs of one
    /// kernel (`scale` and `2 * scale` ms), optionally a section of its own.
    pub fn rank_profile(t: Instant, scale: u64, extra: bool) -> Profiler {
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        p.enter_kernel("k", "seq", "Direct", at(t, 0));
        p.exit(at(t, scale));
        p.enter_kernel("k", "seq", "Direct", at(t, scale));
        p.exit(at(t, 3 * scale));
        if extra {
            p.enter("Only here", at(t, 3 * scale));
            p.exit(at(t, 4 * scale));
        }
        p.end(at(t, 5 * scale));
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_level_follows_stoi() {
        assert_eq!(parse_level("0"), Some(0));
        assert_eq!(parse_level("1"), Some(1));
        assert_eq!(parse_level("2"), Some(2));
        assert_eq!(parse_level("3"), Some(3));
        assert_eq!(parse_level("  \t2"), Some(2));
        assert_eq!(parse_level("+3"), Some(3));
        assert_eq!(parse_level("-0"), Some(0));
        assert_eq!(parse_level("2abc"), Some(2));
        assert_eq!(parse_level("3 "), Some(3));
        assert_eq!(parse_level("4"), None);
        assert_eq!(parse_level("-1"), None);
        assert_eq!(parse_level("abc"), None);
        assert_eq!(parse_level(""), None);
        assert_eq!(parse_level("+"), None);
        assert_eq!(parse_level(" x1"), None);
        assert_eq!(parse_level("99999999999999999999"), None);
        assert_eq!(parse_level("00000000000000000002"), Some(2));
    }
}
