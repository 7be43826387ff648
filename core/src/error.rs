//! Errors: every message names the API call and the object it concerns.
//! One type for every front end (the C ABI, the HDF5 C API, Rust callers):
//! a usage error (the program did something wrong: status 1) or an
//! internal one (a broken invariant inside op2-rs: status 70).

use std::fmt;

/// Whose fault an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The program misused the API (exit status 1).
    Usage,
    /// A bug in op2-rs (exit status 70).
    Internal,
}

/// An error in the use of the OP2 API (or, rarely, inside op2-rs).
///
/// `call` is the API entry point (`op_decl_map`, `op_par_loop`, ...), `object`
/// names what the call was about (`map "pedge"`, `loop "res_calc"`), `msg` says
/// what is wrong. An empty `call` is filled in by the entry point that
/// reports the error ([`crate::boundary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op2Error {
    pub call: String,
    pub object: String,
    pub msg: String,
    pub kind: ErrorKind,
}

pub type Result<T> = std::result::Result<T, Op2Error>;

/// Exit status of a program stopped by a usage error.
pub const EXIT_USAGE: i32 = 1;
/// Exit status of a program stopped by an internal error.
pub const EXIT_INTERNAL: i32 = 70;

impl Op2Error {
    pub fn new(call: impl Into<String>, object: impl Into<String>, msg: impl Into<String>) -> Self {
        Op2Error {
            call: call.into(),
            object: object.into(),
            msg: msg.into(),
            kind: ErrorKind::Usage,
        }
    }

    /// A broken invariant inside op2-rs.
    pub fn internal(call: impl Into<String>, msg: impl Into<String>) -> Self {
        Op2Error {
            kind: ErrorKind::Internal,
            ..Op2Error::new(call, "", msg)
        }
    }

    /// Prefix the message with more context (e.g. the argument number).
    pub fn context(mut self, ctx: impl fmt::Display) -> Self {
        self.msg = format!("{ctx}: {}", self.msg);
        self
    }

    /// The same error reported by `call` (the object and message are kept).
    pub fn in_call(mut self, call: &str) -> Self {
        self.call = call.to_string();
        self
    }

    /// The exit status a program stopped by this error ends with.
    pub fn exit_status(&self) -> i32 {
        match self.kind {
            ErrorKind::Usage => EXIT_USAGE,
            ErrorKind::Internal => EXIT_INTERNAL,
        }
    }
}

impl fmt::Display for Op2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.object.is_empty(), self.call.is_empty()) {
            (ErrorKind::Internal, _, true) => write!(
                f,
                "OP2 internal error: {} (this is a bug in op2-rs; please report it)",
                self.msg
            ),
            (ErrorKind::Internal, _, false) => write!(
                f,
                "OP2 internal error in {}: {} (this is a bug in op2-rs; please report it)",
                self.call, self.msg
            ),
            (ErrorKind::Usage, true, _) => write!(f, "OP2 error in {}: {}", self.call, self.msg),
            (ErrorKind::Usage, false, _) => write!(
                f,
                "OP2 error in {} ({}): {}",
                self.call, self.object, self.msg
            ),
        }
    }
}

impl std::error::Error for Op2Error {}

/// `set "name"` etc., for messages.
pub fn obj(kind: &str, name: &str) -> String {
    format!("{kind} \"{name}\"")
}
