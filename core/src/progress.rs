//! Progress lines for long operations (partitioning, reading a large file,
//! a cold device compile): one line on stderr when the operation starts and
//! one with its elapsed time when it ends, only when stderr is a terminal
//! and `OP_diags >= 2`. One call per site:
//!
//! ```
//! let p = op2_core::progress::Progress::start(0, || "partitioning cells (10 elements)".into());
//! // ... the long operation ...
//! p.done();
//! ```

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// The diagnostics level from which progress is shown.
pub const LEVEL: i32 = 2;

/// An operation in progress (shown or not); [`Progress::done`] ends it.
#[must_use = "call done() when the operation ends"]
pub struct Progress {
    shown: Option<(String, Instant)>,
}

/// Whether progress is shown at `diags` on a stderr that is (or not) a terminal.
pub fn enabled(diags: i32, terminal: bool) -> bool {
    terminal && diags >= LEVEL
}

/// The start line.
pub fn start_line(what: &str) -> String {
    format!("op2-rs: {what} ...")
}

/// The end line, with the elapsed time.
pub fn end_line(what: &str, secs: f64) -> String {
    format!("op2-rs: {what} ... {secs:.2} s")
}

impl Progress {
    /// Start `what` (built only when shown) at diagnostics level `diags`.
    pub fn start(diags: i32, what: impl FnOnce() -> String) -> Progress {
        Progress::start_on(enabled(diags, std::io::stderr().is_terminal()), what)
    }

    /// [`Progress::start`] with the decision made by the caller.
    pub fn start_on(show: bool, what: impl FnOnce() -> String) -> Progress {
        if !show {
            return Progress { shown: None };
        }
        let what = what();
        let _ = writeln!(std::io::stderr(), "{}", start_line(&what));
        Progress {
            shown: Some((what, Instant::now())),
        }
    }

    /// Whether the lines are shown.
    pub fn is_shown(&self) -> bool {
        self.shown.is_some()
    }

    /// The end line (with the elapsed time).
    pub fn done(self) {
        if let Some((what, t0)) = self.shown {
            let line = end_line(&what, t0.elapsed().as_secs_f64());
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_the_operation_and_time() {
        assert_eq!(
            start_line("partitioning cells (721200 elements)"),
            "op2-rs: partitioning cells (721200 elements) ..."
        );
        assert_eq!(
            end_line("partitioning cells (721200 elements)", 1.234),
            "op2-rs: partitioning cells (721200 elements) ... 1.23 s"
        );
    }

    #[test]
    fn silent_unless_a_terminal_at_level_two() {
        assert!(!enabled(5, false));
        assert!(!enabled(1, true));
        assert!(enabled(2, true));
        let mut built = false;
        let p = Progress::start_on(false, || {
            built = true;
            String::new()
        });
        assert!(!p.is_shown());
        p.done();
        assert!(!built, "the description is not even built when silent");
        // Under `cargo test` stderr is captured or piped, never a terminal
        // here in the test command: nothing is shown at any level.
        if !std::io::stderr().is_terminal() {
            assert!(!Progress::start(9, || "x".into()).is_shown());
        }
    }
}
