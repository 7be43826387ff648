//! OP2's fallback policy for loops that could run on a device: translator-v2
//! wraps every loop of the code it generates in a check of
//! `OP_WHITELIST` (a file with one regular expression per line: only loops
//! whose name matches one of them completely run their main version; no
//! variable, or a file that cannot be opened, means every loop does) and of
//! `OP_FALLBACK_MODE` (`silent`, `warn`/`warning`, `error`; an unknown value
//! is reported and ignored). Whitelist lines are compiled by the `regex`
//! crate in ASCII mode, which agrees with ECMAScript (`std::regex`'s default)
//! on the usual syntax (literals, `.`, classes, `\w` `\d` `\s`, groups,
//! alternation, repetition); look-around and back-references are not
//! supported and are reported as errors (where OP2 would crash on an
//! uncaught `std::regex_error`).

use crate::error::Op2Error;
use regex::bytes::{Regex, RegexBuilder};

/// What `op_check_fallback_mode` does (OP2's `OP_fallback_mode` 0..3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    /// No `OP_FALLBACK_MODE`: fallbacks run silently.
    Unset,
    Silent,
    Warn,
    Error,
}

impl Mode {
    /// OP2's spellings; `None` for anything else.
    pub fn parse(v: &str) -> Option<Mode> {
        match v {
            "silent" => Some(Mode::Silent),
            "warn" | "warning" => Some(Mode::Warn),
            "error" => Some(Mode::Error),
            _ => None,
        }
    }
}

/// The whitelist and the fallback mode of a run (`Default`: neither set).
#[derive(Default)]
pub struct Policy {
    pub mode: Mode,
    /// Each line of the whitelist file, anchored at both ends.
    pub whitelist: Vec<Regex>,
}

/// Compile one whitelist line so that it must match a whole name (C++'s
/// `std::regex_match`). The line is checked on its own first, so wrapping it
/// in a group cannot change its meaning.
pub fn whole_match_regex(line: &str) -> Result<Regex, String> {
    // The crate's message quotes the pattern over several lines and ends
    // with "error: <what>": keep that last part, for a one-line error.
    let build = |p: &str| {
        RegexBuilder::new(p).unicode(false).build().map_err(|e| {
            let text = e.to_string();
            let last = text.lines().rev().find(|l| !l.trim().is_empty());
            let last = last.unwrap_or("invalid").trim();
            last.strip_prefix("error: ").unwrap_or(last).to_string()
        })
    };
    build(line)?;
    build(&format!("^(?:{line})$"))
}

/// Parse whitelist file text: one regular expression per line (an empty
/// line is an expression that matches no name, as in OP2).
pub fn parse_whitelist(text: &str, file: &str) -> Result<Vec<Regex>, Op2Error> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            whole_match_regex(line).map_err(|e| {
                Op2Error::new(
                    "op_init",
                    "OP_WHITELIST",
                    format!(
                        "line {} of {file} ('{line}') is not a regular expression \
                         op2-rs accepts: {e}",
                        i + 1
                    ),
                )
            })
        })
        .collect()
}

impl Policy {
    /// Read `OP_WHITELIST` and `OP_FALLBACK_MODE` (at op_init), printing OP2's
    /// messages through `print` (the root process's stdout).
    pub fn from_env(call: &str, print: &dyn Fn(&str)) -> Result<Policy, Op2Error> {
        let mut whitelist = Vec::new();
        if let Some(file) = std::env::var_os("OP_WHITELIST") {
            let file = file.to_string_lossy().into_owned();
            print(&format!("\n Using kernel whitelist: {file}\n"));
            match std::fs::read(&file) {
                Err(_) => print(" Error: could not open kernel whitelist, skipping\n"),
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    whitelist = parse_whitelist(&text, &file)
                        .map_err(|e| Op2Error::new(call, e.object, e.msg))?;
                }
            }
        }
        let mut mode = Mode::Unset;
        if let Some(v) = std::env::var_os("OP_FALLBACK_MODE") {
            let v = v.to_string_lossy().into_owned();
            match Mode::parse(&v) {
                Some(m) => {
                    mode = m;
                    print(&format!("\n Using fallback mode: {v}\n"));
                }
                None => print(&format!("\n Warning: Unknown fallback mode: {v}\n")),
            }
        }
        Ok(Policy { mode, whitelist })
    }

    /// Does loop `name` run its main version (no whitelist, or a line of it
    /// matches the whole name)?
    pub fn allows(&self, name: &[u8]) -> bool {
        self.whitelist.is_empty() || self.whitelist.iter().any(|r| r.is_match(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(line: &str, name: &str) -> bool {
        whole_match_regex(line).unwrap().is_match(name.as_bytes())
    }

    #[test]
    fn lines_match_whole_names() {
        assert!(matches("res_calc", "res_calc"));
        assert!(!matches("res", "res_calc"));
        assert!(!matches("calc", "res_calc"));
        assert!(matches("airfoil_.*", "airfoil_3_res_calc"));
        assert!(matches("a|b", "b"));
        assert!(!matches("a|b", "ab"));
        assert!(matches(r"\w+_\d_\w+", "airfoil_3_res_calc"));
        assert!(matches("(save|update)_.*", "update_x"));
        assert!(!matches("", "x"));
    }

    #[test]
    fn bad_lines_are_named() {
        let e = parse_whitelist("ok\n(unclosed\n", "wl.txt").unwrap_err();
        let s = e.to_string();
        assert!(s.contains("op_init") && s.contains("OP_WHITELIST"), "{s}");
        assert!(s.contains("line 2 of wl.txt ('(unclosed')"), "{s}");
        assert!(s.ends_with("unclosed group") && !s.contains('\n'), "{s}");
        // a line that would change meaning if wrapped unchecked
        assert!(whole_match_regex("a)|(b").is_err());
    }

    #[test]
    fn modes_are_op2_spellings() {
        assert_eq!(Mode::parse("silent"), Some(Mode::Silent));
        assert_eq!(Mode::parse("warn"), Some(Mode::Warn));
        assert_eq!(Mode::parse("warning"), Some(Mode::Warn));
        assert_eq!(Mode::parse("error"), Some(Mode::Error));
        assert_eq!(Mode::parse("Error"), None);
        assert_eq!(Mode::parse(""), None);
    }
}
