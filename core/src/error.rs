//! Errors: every message names the API call and the object it concerns.

use std::fmt;

/// An error in the use of the OP2 API.
///
/// `call` is the API entry point (`op_decl_map`, `op_par_loop`, ...), `object`
/// names what the call was about (`map "pedge"`, `loop "res_calc"`), `msg` says
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op2Error {
    pub call: String,
    pub object: String,
    pub msg: String,
}

pub type Result<T> = std::result::Result<T, Op2Error>;

impl Op2Error {
    pub fn new(call: impl Into<String>, object: impl Into<String>, msg: impl Into<String>) -> Self {
        Op2Error {
            call: call.into(),
            object: object.into(),
            msg: msg.into(),
        }
    }

    /// Prefix the message with more context (e.g. the argument number).
    pub fn context(mut self, ctx: impl fmt::Display) -> Self {
        self.msg = format!("{ctx}: {}", self.msg);
        self
    }
}

impl fmt::Display for Op2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.object.is_empty() {
            write!(f, "OP2 error in {}: {}", self.call, self.msg)
        } else {
            write!(
                f,
                "OP2 error in {} ({}): {}",
                self.call, self.object, self.msg
            )
        }
    }
}

impl std::error::Error for Op2Error {}

/// `set "name"` etc., for messages.
pub fn obj(kind: &str, name: &str) -> String {
    format!("{kind} \"{name}\"")
}
