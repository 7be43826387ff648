//! Preprocessor conditionals in a kernel's source, decided as the
//! program's build decided them, before the text goes to a device
//! compiler.
//!
//! A device compiler sees none of the program's build: its `-D` flags, or
//! a `#define` in the file that includes the kernel's header. Handed the
//! header as it is, it would take `#ifdef FAST`'s other branch and compute
//! another kernel without a word. So the library decides each `#if`,
//! `#ifdef`, `#ifndef`, `#elif` and `#else` itself, line by line, from the
//! macros the text defines before it and those the user names in
//! `OP2_RS_DEFINES` (`-DNAME`, `-DNAME=VALUE`, `-UNAME`, as on a compiler's
//! command line), and leaves the branches not taken out of the device
//! code. Three cases are not decided here:
//!
//! * names reserved to the implementation (`__cplusplus`, `__CUDACC__`,
//!   `__OPENCL_VERSION__`, `_OPENMP`: a `__` or `_` and a capital) describe
//!   the compiler: such a conditional stays for the device compiler, as do
//!   the macros defined under it;
//! * `#ifndef M` (or `#if !defined(M)`) directly followed by `#define M`:
//!   an include guard, or a default the header gives itself; `M` is taken
//!   as not defined by the build (a build that defines it needs
//!   `OP2_RS_DEFINES`);
//! * any other macro the text has not defined or undefined before and
//!   `OP2_RS_DEFINES` does not name: its value is not known here. The
//!   conditional's branches are left out (`// op2-rs: left out, M
//!   unknown`) and the macros they define become unknown. Whether that
//!   matters is the caller's question ([`unknown_in`]): a kernel whose
//!   definition, or a function it calls, lies in such a branch, or whose
//!   code uses such a macro, cannot be written for the device.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Where an unknown macro was tested: its name and file:line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Why {
    pub name: String,
    pub at: String,
}

impl Why {
    /// Why a kernel that needs what depends on it cannot be written.
    pub fn message(&self) -> String {
        let m = &self.name;
        if m.starts_with('(') {
            // not a macro: a condition this reading cannot evaluate
            return format!(
                "its source has a conditional the library cannot evaluate {m} ({}): the \
                 device code would not follow the program's build",
                self.at
            );
        }
        format!(
            "its source tests macro {m} ({}), which the program's build may set (a -D flag, or \
             a #define in a file not read here): give its value in OP2_RS_DEFINES (-D{m}, \
             -D{m}=VALUE or -U{m})",
            self.at
        )
    }
}

/// What is known of a macro at a point of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Macro {
    /// Defined, with its replacement text (`None`: a function-like macro).
    Defined(Option<String>),
    /// Known not to be defined.
    Undefined,
    /// Defined or not under a conditional the device compiler decides.
    Device,
    /// Defined or not under a conditional on an unknown macro.
    Unknown(Why),
}

/// Macros by name, as `OP2_RS_DEFINES` gives them, or as the program's
/// build had them at a point of its sources ([`Defines::from_build`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defines {
    macros: HashMap<String, Macro>,
    /// The `#define` lines of the macros defined, by name.
    texts: HashMap<String, String>,
    /// Every macro of the build is known: a name not given is not defined
    /// (but those in `open`).
    complete: bool,
    /// Names a complete set leaves to the text read: the build defines
    /// them after this point, in files the text may or may not bring.
    open: HashSet<String>,
}

/// A macro as the program's build had it ([`Defines::from_build`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildMacro {
    /// Defined: its definition as the debug information gives it
    /// (`NAME VALUE`, `NAME(ARGS) BODY`).
    Defined(String),
    /// Undefined (`-UNAME`, `#undef NAME`).
    Undefined,
    /// Defined or undefined by a system header: it describes the host's
    /// compiler and C library, and a device compiler has its own (M_PI,
    /// INFINITY, NULL): a conditional on it stays for the device compiler.
    System,
    /// Defined later in the sources (after this point): the text read
    /// says whether it is defined there.
    Later,
}

impl Defines {
    /// `-DNAME`, `-DNAME=VALUE`, `-D NAME`, `-UNAME`, separated by blanks
    /// (`-DNAME` alone defines it as `1`, as compilers do). A word that is
    /// none of these is an error naming it.
    pub fn parse(spec: &str) -> Result<Defines, String> {
        let mut out = Defines::default();
        let mut words = spec.split_whitespace();
        while let Some(w) = words.next() {
            let (define, rest) = if let Some(r) = w.strip_prefix("-D") {
                (true, r)
            } else if let Some(r) = w.strip_prefix("-U") {
                (false, r)
            } else {
                return Err(format!("'{w}' is not -DNAME, -DNAME=VALUE or -UNAME"));
            };
            let rest = if rest.is_empty() {
                words.next().unwrap_or("")
            } else {
                rest
            };
            let (name, value) = match rest.split_once('=') {
                Some((n, v)) if define => (n, v.to_string()),
                Some(_) => return Err(format!("'{w}': -U takes a name, not a value")),
                None => (rest, "1".to_string()),
            };
            if !crate::desc::is_ident(name) {
                return Err(format!("'{w}': '{name}' is not a macro name"));
            }
            if define {
                out.texts
                    .insert(name.to_string(), format!("#define {name} {value}"));
                out.macros
                    .insert(name.to_string(), Macro::Defined(Some(value)));
            } else {
                out.texts.remove(name);
                out.macros.insert(name.to_string(), Macro::Undefined);
            }
        }
        Ok(out)
    }

    /// The macros of the program's build at a point of its sources, read
    /// from its debug information (`-g3`): every macro is known there, so
    /// a name not given is not defined, but those marked
    /// [`BuildMacro::Later`]. Names reserved to the implementation
    /// (`__GNUC__`) are left out: they describe the host's compiler.
    pub fn from_build(macros: impl IntoIterator<Item = (String, BuildMacro)>) -> Defines {
        let mut out = Defines {
            complete: true,
            ..Defines::default()
        };
        for (name, m) in macros {
            if reserved(&name) || !crate::desc::is_ident(&name) {
                continue;
            }
            let m = match m {
                BuildMacro::Defined(def) => {
                    let body = def.get(name.len()..).unwrap_or("");
                    out.texts.insert(
                        name.clone(),
                        format!("#define {def}").trim_end().to_string(),
                    );
                    if body.starts_with('(') {
                        Macro::Defined(None)
                    } else {
                        Macro::Defined(Some(body.trim().to_string()))
                    }
                }
                BuildMacro::Undefined => Macro::Undefined,
                BuildMacro::System => Macro::Device,
                BuildMacro::Later => {
                    out.open.insert(name);
                    continue;
                }
            };
            out.macros.insert(name, m);
        }
        out
    }

    /// These macros, with `user`'s (`OP2_RS_DEFINES`) in place of theirs.
    pub fn overridden_by(mut self, user: &Defines) -> Defines {
        for (n, m) in &user.macros {
            self.open.remove(n);
            self.macros.insert(n.clone(), m.clone());
            match user.texts.get(n) {
                Some(t) => self.texts.insert(n.clone(), t.clone()),
                None => self.texts.remove(n),
            };
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.macros.is_empty() && self.open.is_empty() && !self.complete
    }

    /// Whether every macro of the build is known ([`Defines::from_build`]).
    pub fn is_complete(&self) -> bool {
        self.complete
    }
}

/// The macros of the program's build at points of its sources, where its
/// debug information records them (`-g3`).
pub trait BuildMacros {
    /// The macros in effect where the build read `file`: a source file
    /// (the unit's main file) at its line `line` (1-based), a header at
    /// its first `#include` (in `call_site`'s unit when that includes it).
    /// `None`: not recorded.
    fn at(&self, file: &Path, line: usize, call_site: Option<&Path>) -> Option<Defines>;
}

/// What to do with a line of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Keep it as it is.
    Keep,
    /// A conditional decided here, or a line of a branch not taken:
    /// replaced by a comment or an empty line (line numbers stay).
    Decided,
    /// A line of a branch that depends on an unknown macro.
    LeftOut(Why),
    /// Replace the line by this text (an `#elif` the device decides after
    /// branches decided here becomes an `#if`).
    Replace(String),
}

/// The comment a [`Line::LeftOut`] line becomes: [`unknown_in`] reads it.
pub const LEFT_OUT: &str = "// op2-rs: left out, unknown macro ";

#[derive(Debug, Clone)]
enum Frame {
    /// Decided here: whether this branch is taken, whether one was.
    Known { on: bool, taken: bool },
    /// Left to the device compiler.
    Device,
    /// Depends on an unknown macro.
    Unknown(Why),
}

/// The conditionals' state through a text, one line at a time (a
/// kernel's header and the headers inlined into it share one).
#[derive(Debug, Clone)]
pub struct Preproc {
    macros: HashMap<String, Macro>,
    stack: Vec<Frame>,
    /// A directive continued on the next line (`\`).
    cont: Option<Cont>,
    /// The `#define` lines as written, of the macros defined here.
    texts: HashMap<String, String>,
    /// The build's macros are all known ([`Defines::from_build`]): a name
    /// neither given nor defined here is not defined, but those in `open`.
    complete: bool,
    open: HashSet<String>,
    /// The defaults taken as not set by the build (`#ifndef M` and
    /// `#define M VALUE` where the build's macros are not known).
    defaults: Vec<Assumed>,
}

/// A macro's default the text gives itself, taken because nothing says
/// whether the build set the macro (see [`Preproc::defaults`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumed {
    pub name: String,
    /// file:line of its `#ifndef`.
    pub at: String,
    pub value: String,
}

impl Assumed {
    /// What the program's user must know: the device computes with it.
    pub fn message(&self) -> String {
        let m = &self.name;
        format!(
            "macro {m} is taken as its source's default ({}: {}); a build that sets {m} \
             (-D{m}=...) must give it in OP2_RS_DEFINES, or be built with -g3",
            self.at, self.value
        )
    }
}

#[derive(Debug, Clone)]
struct Cont {
    /// Its code so far, joined on one line.
    code: String,
    /// Its lines as written.
    raw: String,
    /// What its first line became.
    first: Line,
    /// A conditional (decided on its last line), or the macro a
    /// `#define` defines.
    cond: bool,
    define: Option<String>,
}

/// Outcome of an `#if` expression.
enum Cond {
    Value(bool),
    Device,
    Unknown(Why),
}

fn reserved(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 1 && b[0] == b'_' && (b[1] == b'_' || b[1].is_ascii_uppercase())
}

impl Preproc {
    pub fn new(given: &Defines) -> Preproc {
        Preproc {
            macros: given.macros.clone(),
            stack: Vec::new(),
            cont: None,
            texts: given.texts.clone(),
            complete: given.complete,
            open: given.open.clone(),
            defaults: Vec::new(),
        }
    }

    /// Whether lines here reach the device (taken, or left to it).
    fn on(&self) -> bool {
        self.stack.iter().all(|f| match f {
            Frame::Known { on, .. } => *on,
            Frame::Device => true,
            Frame::Unknown(_) => false,
        })
    }

    fn unknown(&self) -> Option<&Why> {
        self.stack.iter().find_map(|f| match f {
            Frame::Unknown(w) => Some(w),
            _ => None,
        })
    }

    fn under_device(&self) -> bool {
        self.stack.iter().any(|f| matches!(f, Frame::Device))
    }

    /// What a line that does not reach the device becomes.
    fn off(&self) -> Line {
        match self.unknown() {
            Some(w) => Line::LeftOut(w.clone()),
            None => Line::Decided,
        }
    }

    fn here(&self) -> Line {
        if self.on() {
            Line::Keep
        } else {
            self.off()
        }
    }

    /// A line of the text: `raw` as written, `code` with comments and
    /// literals blanked ([`crate::source::code_only`]), `next` the next
    /// line's code that is not blank, `at` file:line for messages. An
    /// error is a conditional the text cannot be read past (an `#endif`
    /// without its `#if`).
    pub fn line(
        &mut self,
        raw: &str,
        code: &str,
        next: Option<&str>,
        at: &str,
    ) -> Result<Line, String> {
        let t = code.trim();
        let continues = t.ends_with('\\');
        let body = t.trim_end_matches('\\').trim_end();
        if let Some(mut c) = self.cont.take() {
            c.code.push(' ');
            c.code.push_str(body.trim_start());
            c.raw.push_str(raw);
            if continues {
                let first = c.first.clone();
                self.cont = Some(c);
                return Ok(first);
            }
            if let Some(name) = c.define {
                self.keep_text(&name, &c.raw);
            }
            if !c.cond {
                return Ok(c.first);
            }
            // a conditional is decided on its last line, as one line
            return Ok(match self.directive(&c.code, None, at)? {
                Line::Keep => Line::Replace(c.code),
                other => other,
            });
        }
        let Some((key, rest)) = directive(t) else {
            return Ok(self.here());
        };
        let define = (key == "define").then(|| macro_name(rest)).flatten();
        let define = define.map(str::to_string);
        if continues {
            let first = if is_conditional(key) {
                Line::Decided
            } else {
                // a #define's other lines go with its first
                self.directive(body, None, at)?
            };
            self.cont = Some(Cont {
                code: body.to_string(),
                raw: raw.to_string(),
                first: first.clone(),
                cond: is_conditional(key),
                define,
            });
            return Ok(first);
        }
        let l = self.directive(t, next, at)?;
        if let Some(name) = define {
            self.keep_text(&name, raw);
        }
        Ok(l)
    }

    /// `raw`, the definition of `name`, kept when `name` is now defined
    /// here (a text with a comment left open is not).
    fn keep_text(&mut self, name: &str, raw: &str) {
        let open_comment = raw.rfind("/*").is_some_and(|i| !raw[i..].contains("*/"));
        if matches!(self.macros.get(name), Some(Macro::Defined(_))) && !open_comment {
            self.texts
                .insert(name.to_string(), raw.trim_end().to_string());
        } else {
            self.texts.remove(name);
        }
    }

    /// The macros defined at this point (by the user, or by a text read
    /// before a conditional on them could be unknown), with their
    /// `#define` lines, by name.
    pub fn defined(&self) -> Vec<(&str, &str)> {
        let mut v: Vec<(&str, &str)> = self
            .texts
            .iter()
            .filter(|(n, _)| matches!(self.macros.get(*n), Some(Macro::Defined(_))))
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        v.sort();
        v
    }

    fn directive(&mut self, t: &str, next: Option<&str>, at: &str) -> Result<Line, String> {
        let Some((key, rest)) = directive(t) else {
            return Ok(self.here());
        };
        let rest = rest.trim();
        match key {
            "if" | "ifdef" | "ifndef" => self.open(key, rest, next, at),
            "elif" => self.elif(rest, at),
            "else" => match self.stack.pop() {
                None => Err(format!("{at}: #else without #if")),
                Some(Frame::Known { taken, .. }) => {
                    self.stack.push(Frame::Known {
                        on: !taken,
                        taken: true,
                    });
                    Ok(if self.on() { Line::Decided } else { self.off() })
                }
                Some(f) => {
                    self.stack.push(f);
                    Ok(self.here())
                }
            },
            "endif" => match self.stack.pop() {
                None => Err(format!("{at}: #endif without #if")),
                Some(Frame::Device) if self.on() => Ok(Line::Keep),
                Some(Frame::Unknown(w)) if self.on() => Ok(Line::LeftOut(w)),
                Some(_) => Ok(if self.on() { Line::Decided } else { self.off() }),
            },
            "define" | "undef" => Ok(self.define(key == "define", rest)),
            _ => Ok(self.here()),
        }
    }

    /// `#if`, `#ifdef`, `#ifndef`.
    fn open(
        &mut self,
        key: &str,
        rest: &str,
        next: Option<&str>,
        at: &str,
    ) -> Result<Line, String> {
        if !self.on() {
            self.stack.push(match self.unknown() {
                Some(w) => Frame::Unknown(w.clone()),
                None => Frame::Known {
                    on: false,
                    taken: true,
                },
            });
            return Ok(self.off());
        }
        // `#ifndef M` / `#if !defined(M)` then `#define M`: M not set
        let guarded = match key {
            "ifndef" => macro_name(rest),
            "if" => negated_defined(rest),
            _ => None,
        }
        .filter(|m| self.state(m).is_none())
        .filter(|m| {
            next.and_then(|n| directive(n.trim()))
                .is_some_and(|(k, r)| k == "define" && macro_name(r) == Some(m))
        });
        if let Some(m) = guarded {
            // a default with a value (an include guard has none)
            let value = next
                .and_then(|n| directive(n.trim()))
                .map(|(_, r)| r.trim_start()[m.len()..].trim())
                .filter(|v| !v.is_empty() && !v.starts_with('('));
            if let Some(v) = value {
                self.defaults.push(Assumed {
                    name: m.to_string(),
                    at: at.to_string(),
                    value: v.to_string(),
                });
            }
        }
        let cond = if guarded.is_some() {
            Cond::Value(true)
        } else if key == "if" {
            self.eval(rest, at)
        } else {
            let Some(name) = macro_name(rest) else {
                return Err(format!("{at}: #{key} without a macro name"));
            };
            match self.state(name) {
                Some(Macro::Defined(_)) => Cond::Value(key == "ifdef"),
                Some(Macro::Undefined) => Cond::Value(key == "ifndef"),
                Some(Macro::Device) => Cond::Device,
                Some(Macro::Unknown(w)) => Cond::Unknown(w),
                None => Cond::Unknown(Why {
                    name: name.to_string(),
                    at: at.to_string(),
                }),
            }
        };
        Ok(self.push(cond))
    }

    fn elif(&mut self, rest: &str, at: &str) -> Result<Line, String> {
        match self.stack.pop() {
            None => Err(format!("{at}: #elif without #if")),
            Some(Frame::Known { taken, .. }) => {
                if taken || !self.on() {
                    self.stack.push(Frame::Known {
                        on: false,
                        taken: true,
                    });
                    return Ok(self.off());
                }
                // no branch taken so far: this one is as its condition
                Ok(match self.eval(rest, at) {
                    Cond::Device => {
                        self.stack.push(Frame::Device);
                        Line::Replace(format!("#if {rest}"))
                    }
                    c => self.push(c),
                })
            }
            Some(Frame::Device) => Ok(match self.eval(rest, at) {
                // the device decides the branches: this one is written as
                // decided (an unknown one never taken)
                Cond::Value(v) => {
                    self.stack.push(Frame::Device);
                    Line::Replace(format!("#elif {}", u8::from(v)))
                }
                Cond::Device => {
                    self.stack.push(Frame::Device);
                    self.here()
                }
                Cond::Unknown(w) => {
                    let l = Line::Replace(format!("#elif 0 {LEFT_OUT}{} ({})", w.name, w.at));
                    self.stack.push(Frame::Unknown(w));
                    l
                }
            }),
            Some(f @ Frame::Unknown(_)) => {
                self.stack.push(f);
                Ok(self.off())
            }
        }
    }

    /// `#define` (`define`) or `#undef` of the macro `rest` names.
    fn define(&mut self, define: bool, rest: &str) -> Line {
        let Some(name) = macro_name(rest) else {
            return self.here();
        };
        if let Some(w) = self.unknown().cloned() {
            self.macros
                .insert(name.to_string(), Macro::Unknown(w.clone()));
            return Line::LeftOut(w);
        }
        if !self.on() {
            return Line::Decided;
        }
        let m = if self.under_device() {
            Macro::Device
        } else if !define {
            Macro::Undefined
        } else {
            let after = &rest[name.len()..];
            if after.starts_with('(') {
                Macro::Defined(None)
            } else {
                Macro::Defined(Some(after.trim().to_string()))
            }
        };
        self.macros.insert(name.to_string(), m);
        Line::Keep
    }

    fn push(&mut self, cond: Cond) -> Line {
        let (frame, line) = match cond {
            Cond::Value(v) => (Frame::Known { on: v, taken: v }, Line::Decided),
            Cond::Device => (Frame::Device, Line::Keep),
            Cond::Unknown(w) => (Frame::Unknown(w.clone()), Line::LeftOut(w)),
        };
        self.stack.push(frame);
        line
    }

    fn state(&self, name: &str) -> Option<Macro> {
        if reserved(name) {
            return Some(Macro::Device);
        }
        match self.macros.get(name) {
            Some(m) => Some(m.clone()),
            None if self.complete && !self.open.contains(name) => Some(Macro::Undefined),
            None => None,
        }
    }

    /// The defaults the text gave itself that were taken as not set by
    /// the build (in the order read).
    pub fn defaults(&self) -> &[Assumed] {
        &self.defaults
    }

    /// The macros a branch left out may have defined, each with the
    /// unknown macro it depends on.
    pub fn unknown_macros(&self) -> Vec<(String, Why)> {
        let mut v: Vec<(String, Why)> = self
            .macros
            .iter()
            .filter_map(|(n, m)| match m {
                Macro::Unknown(w) => Some((n.clone(), w.clone())),
                _ => None,
            })
            .collect();
        v.sort();
        v
    }

    fn eval(&self, expr: &str, at: &str) -> Cond {
        let bad = |e: String| {
            Cond::Unknown(Why {
                name: format!("(#if {expr}: {e})"),
                at: at.to_string(),
            })
        };
        let toks = match tokens(expr) {
            Ok(t) => t,
            Err(e) => return bad(e),
        };
        let mut p = Expr {
            toks,
            i: 0,
            pp: self,
            depth: 0,
        };
        match p.ternary() {
            Ok(v) if p.i == p.toks.len() => Cond::Value(v != 0),
            Ok(_) => bad("not an expression read here".into()),
            Err(Stop::Device) => Cond::Device,
            Err(Stop::Unknown(name)) => Cond::Unknown(Why {
                name,
                at: at.to_string(),
            }),
            Err(Stop::Known(w)) => Cond::Unknown(w),
            Err(Stop::Bad(e)) => bad(e),
        }
    }
}

fn is_conditional(key: &str) -> bool {
    matches!(key, "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif")
}

/// `#  key rest` -> (key, rest).
pub fn directive_of(t: &str) -> Option<(&str, &str)> {
    directive(t)
}

/// The macro name a `#define`'s `rest` starts with.
pub fn macro_of(rest: &str) -> Option<&str> {
    macro_name(rest)
}

fn directive(t: &str) -> Option<(&str, &str)> {
    let r = t.trim_start().strip_prefix('#')?.trim_start();
    let n = r
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    Some((&r[..n], &r[n..]))
}

/// The identifier `rest` starts with.
fn macro_name(rest: &str) -> Option<&str> {
    let r = rest.trim_start();
    let n = r
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    let name = &r[..n];
    crate::desc::is_ident(name).then_some(name)
}

/// `!defined(M)` or `! defined M`, the whole expression -> M.
fn negated_defined(expr: &str) -> Option<&str> {
    let r = expr.trim().strip_prefix('!')?.trim_start();
    let r = r.strip_prefix("defined")?.trim();
    let r = r
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(r)
        .trim();
    crate::desc::is_ident(r).then_some(r)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Num(i64),
    Id(String),
    Op(&'static str),
}

const OPS: [&str; 24] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "!", "~", "*", "/", "%", "+", "-",
    "<", ">", "&", "^", "|", "?", ":",
];

fn tokens(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let n = b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'.')
                .count();
            let lit = s[i..i + n].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                i64::from_str_radix(h, 16)
            } else if lit.len() > 1 && lit.starts_with('0') {
                i64::from_str_radix(&lit[1..], 8)
            } else {
                lit.parse()
            };
            out.push(Tok::Num(
                v.map_err(|_| format!("'{}' is not an integer", &s[i..i + n]))?,
            ));
            i += n;
        } else if c == b'_' || c.is_ascii_alphabetic() {
            let n = b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            out.push(Tok::Id(s[i..i + n].to_string()));
            i += n;
        } else if let Some(op) = OPS.iter().find(|o| s[i..].starts_with(**o)) {
            out.push(Tok::Op(op));
            i += op.len();
        } else {
            return Err(format!("'{}' is not read here", c as char));
        }
    }
    Ok(out)
}

enum Stop {
    /// A name the device compiler decides.
    Device,
    /// A macro of unknown value (tested here).
    Unknown(String),
    /// A macro defined under a conditional on an unknown one.
    Known(Why),
    Bad(String),
}

/// An `#if` expression, evaluated as the preprocessor does (`i64`), with
/// the macros known at that point.
struct Expr<'a> {
    toks: Vec<Tok>,
    i: usize,
    pp: &'a Preproc,
    depth: usize,
}

type Val = Result<i64, Stop>;

impl Expr<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }

    fn eat(&mut self, op: &str) -> bool {
        let here = matches!(self.peek(), Some(Tok::Op(o)) if *o == op);
        self.i += usize::from(here);
        here
    }

    fn ternary(&mut self) -> Val {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err(Stop::Bad("'?' without ':'".into()));
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, level: usize) -> Val {
        const LEVELS: [&[&str]; 10] = [
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut a = self.binary(level + 1)?;
        loop {
            let Some(Tok::Op(op)) = self.peek().cloned() else {
                return Ok(a);
            };
            if !LEVELS[level].contains(&op) {
                return Ok(a);
            }
            self.i += 1;
            let b = self.binary(level + 1)?;
            a = match op {
                "||" => i64::from(a != 0 || b != 0),
                "&&" => i64::from(a != 0 && b != 0),
                "|" => a | b,
                "^" => a ^ b,
                "&" => a & b,
                "==" => i64::from(a == b),
                "!=" => i64::from(a != b),
                "<" => i64::from(a < b),
                ">" => i64::from(a > b),
                "<=" => i64::from(a <= b),
                ">=" => i64::from(a >= b),
                "<<" => a.wrapping_shl(b as u32),
                ">>" => a.wrapping_shr(b as u32),
                "+" => a.wrapping_add(b),
                "-" => a.wrapping_sub(b),
                "*" => a.wrapping_mul(b),
                "/" | "%" if b == 0 => return Err(Stop::Bad("division by zero".into())),
                "/" => a.wrapping_div(b),
                _ => a.wrapping_rem(b),
            };
        }
    }

    fn unary(&mut self) -> Val {
        match self.peek().cloned() {
            Some(Tok::Op("!")) => {
                self.i += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some(Tok::Op("~")) => {
                self.i += 1;
                Ok(!self.unary()?)
            }
            Some(Tok::Op("-")) => {
                self.i += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(Tok::Op("+")) => {
                self.i += 1;
                self.unary()
            }
            Some(Tok::Op("(")) => {
                self.i += 1;
                let v = self.ternary()?;
                if !self.eat(")") {
                    return Err(Stop::Bad("'(' without ')'".into()));
                }
                Ok(v)
            }
            Some(Tok::Num(v)) => {
                self.i += 1;
                Ok(v)
            }
            Some(Tok::Id(id)) if id == "defined" => {
                self.i += 1;
                let paren = self.eat("(");
                let Some(Tok::Id(name)) = self.peek().cloned() else {
                    return Err(Stop::Bad("defined without a name".into()));
                };
                self.i += 1;
                if paren && !self.eat(")") {
                    return Err(Stop::Bad("defined( without ')'".into()));
                }
                match self.pp.state(&name) {
                    Some(Macro::Defined(_)) => Ok(1),
                    Some(Macro::Undefined) => Ok(0),
                    Some(Macro::Device) => Err(Stop::Device),
                    Some(Macro::Unknown(w)) => Err(Stop::Known(w)),
                    None => Err(Stop::Unknown(name)),
                }
            }
            Some(Tok::Id(id)) => {
                self.i += 1;
                match self.pp.state(&id) {
                    Some(Macro::Defined(Some(body))) => self.expand(&body),
                    Some(Macro::Defined(None)) => Err(Stop::Bad(format!(
                        "function-like macro {id} is not evaluated here"
                    ))),
                    // an identifier that is no macro is 0
                    Some(Macro::Undefined) => Ok(0),
                    Some(Macro::Device) => Err(Stop::Device),
                    Some(Macro::Unknown(w)) => Err(Stop::Known(w)),
                    None => Err(Stop::Unknown(id)),
                }
            }
            Some(t) => Err(Stop::Bad(format!("unexpected {t:?}"))),
            None => Err(Stop::Bad("the expression ends early".into())),
        }
    }

    /// An object-like macro's replacement, evaluated as an expression.
    fn expand(&mut self, body: &str) -> Val {
        if self.depth > 32 {
            return Err(Stop::Bad("macros nested deeper than 32".into()));
        }
        let toks = tokens(body).map_err(Stop::Bad)?;
        if toks.is_empty() {
            return Err(Stop::Bad("a macro with an empty replacement".into()));
        }
        let mut inner = Expr {
            toks,
            i: 0,
            pp: self.pp,
            depth: self.depth + 1,
        };
        let v = inner.ternary()?;
        if inner.i != inner.toks.len() {
            return Err(Stop::Bad(format!("'{body}' is not an expression")));
        }
        Ok(v)
    }
}

/// The first unknown macro a decided text left lines out for.
pub fn unknown_in(text: &str) -> Option<Why> {
    text.lines().find_map(|l| {
        let r = &l[l.find(LEFT_OUT)? + LEFT_OUT.len()..];
        let (name, at) = r.rsplit_once(" (")?;
        Some(Why {
            name: name.to_string(),
            at: at.strip_suffix(')').unwrap_or(at).to_string(),
        })
    })
}

/// What a line `raw` becomes in the decided text.
pub fn render(raw: &str, line: &Line) -> String {
    let nl = if raw.ends_with('\n') { "\n" } else { "" };
    match line {
        Line::Keep => raw.to_string(),
        Line::Decided => {
            let t = raw.trim();
            if t.starts_with('#') && !t.contains("*/") && !t.ends_with('\\') {
                format!("// op2-rs: decided: {t}{nl}")
            } else {
                nl.to_string()
            }
        }
        Line::LeftOut(w) => format!("{LEFT_OUT}{} ({}){nl}", w.name, w.at),
        Line::Replace(s) => format!("{s}{nl}"),
    }
}

/// The lines of `text` with their code ([`crate::source::code_only`])
/// and the code of the next line that is not blank.
pub fn lines(text: &str) -> Vec<(&str, String, Option<String>)> {
    let code = crate::source::code_only(text);
    let codes: Vec<&str> = code.split_inclusive('\n').collect();
    let raws: Vec<&str> = text.split_inclusive('\n').collect();
    let mut next: Option<String> = None;
    let mut out: Vec<(&str, String, Option<String>)> = raws
        .into_iter()
        .zip(codes)
        .rev()
        .map(|(raw, c)| {
            let n = next.clone();
            if !c.trim().is_empty() {
                next = Some(c.to_string());
            }
            (raw, c.to_string(), n)
        })
        .collect();
    out.reverse();
    out
}

/// A whole text decided with `pp` (`file` names it in messages).
pub fn decide(text: &str, pp: &mut Preproc, file: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for (n, (raw, code, next)) in lines(text).into_iter().enumerate() {
        let l = pp.line(raw, &code, next.as_deref(), &format!("{file}:{}", n + 1))?;
        out.push_str(&render(raw, &l));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, given: &str) -> Result<String, String> {
        let mut pp = Preproc::new(&Defines::parse(given)?);
        decide(text, &mut pp, "k.h")
    }

    fn kept(out: &str) -> Vec<&str> {
        out.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("// op2-rs: decided"))
            .collect()
    }

    #[test]
    fn branches_are_decided_with_the_texts_and_the_users_macros() {
        let src = "#ifndef K_H\n#define K_H\n#define ORDER 2\n#if ORDER > 1 && defined(K_H)\n\
                   high();\n#elif ORDER == 1\nlow();\n#else\nnone();\n#endif\n#ifdef FAST\n\
                   fast();\n#else\nslow();\n#endif\n#endif // K_H\n";
        let out = run(src, "-DFAST").unwrap();
        assert_eq!(
            kept(&out),
            ["#define K_H", "#define ORDER 2", "high();", "fast();"]
        );
        assert!(out.contains("// op2-rs: decided: #ifdef FAST\n"), "{out}");
        // line numbers stay
        assert_eq!(out.lines().count(), src.lines().count());
        // the text's own #define replaces the user's, as the compiler's would
        let out = run(src, "-UFAST -D ORDER=1").unwrap();
        assert_eq!(kept(&out)[2..], ["high();", "slow();"]);
        let src = "#if N == 1\none();\n#elif N == 0x2 || (N % 3 == 0 ? 1 : 0)\ntwo();\n#endif\n";
        assert_eq!(kept(&run(src, "-DN=2").unwrap()), ["two();"]);
        assert_eq!(kept(&run(src, "-DN=9").unwrap()), ["two();"]);
        assert!(kept(&run(src, "-DN=4").unwrap()).is_empty());
        // an identifier known not to be a macro is 0 (0 % 3 == 0)
        assert_eq!(kept(&run(src, "-UN").unwrap()), ["two();"]);
        let out = run("#if 0\nold();\n#endif\nnew();\n", "").unwrap();
        assert_eq!(kept(&out), ["new();"]);
        // nested: the inner conditional of a branch not taken is not read
        let out = run("#if 0\n#if MISSING\nx();\n#endif\n#endif\ny();\n", "").unwrap();
        assert_eq!(kept(&out), ["y();"]);
        assert_eq!(unknown_in(&out), None);
    }

    #[test]
    fn an_unknown_macro_leaves_its_branches_out_and_says_which() {
        let src =
            "#ifdef PROBE\nvoid k() { a(); }\n#else\nvoid k() { b(); }\n#endif\nvoid other() {}\n";
        let out = run(src, "").unwrap();
        let w = unknown_in(&out).unwrap();
        assert_eq!((w.name.as_str(), w.at.as_str()), ("PROBE", "k.h:1"));
        assert!(!out.contains("a();") && !out.contains("b();"));
        assert!(out.contains("void other()"));
        assert!(w
            .message()
            .starts_with("its source tests macro PROBE (k.h:1), which"));
        assert!(w
            .message()
            .contains("OP2_RS_DEFINES (-DPROBE, -DPROBE=VALUE or -UPROBE)"));
        // given, the right branch is kept
        let out = run(src, "-DPROBE").unwrap();
        assert!(out.contains("a();") && !out.contains("b();") && unknown_in(&out).is_none());
        // macros defined under it are unknown too
        let mut pp = Preproc::new(&Defines::default());
        decide("#if LEVEL > 2\n#define EXTRA 1\n#endif\n", &mut pp, "k.h").unwrap();
        let u = pp.unknown_macros();
        assert_eq!(u.len(), 1);
        assert_eq!((u[0].0.as_str(), u[0].1.name.as_str()), ("EXTRA", "LEVEL"));
        // a conditional on such a macro depends on the first
        let out = run(
            "#if LEVEL\n#define EXTRA\n#endif\n#ifdef EXTRA\nx();\n#endif\n",
            "",
        )
        .unwrap();
        assert!(!out.contains("x();"));
        assert_eq!(unknown_in(&out).unwrap().name, "LEVEL");
        // #ifndef not followed by its #define is not a guard
        let out = run("#ifndef DEBUG\nfast();\n#endif\n", "").unwrap();
        assert!(!out.contains("fast();"));
        assert_eq!(unknown_in(&out).unwrap().name, "DEBUG");
        let out = run("#ifndef A\n#define B\n#endif\n", "").unwrap();
        assert_eq!(unknown_in(&out).unwrap().name, "A");
        // an expression not read here is unknown, named by itself
        let out = run("#if F(2)\nx();\n#endif\n", "-DF(x)=x").unwrap_err();
        assert!(out.contains("'-DF(x)=x'"), "{out}");
        let out = run("#if 'a' == 97\nx();\n#endif\n", "").unwrap();
        let w = unknown_in(&out).unwrap();
        assert!(w.name.starts_with("(#if"), "{w:?}");
        assert!(
            w.message()
                .starts_with("its source has a conditional the library cannot evaluate (#if"),
            "{}",
            w.message()
        );
    }

    #[test]
    fn guards_and_defaults_are_taken_as_not_set_by_the_build() {
        let out = run(
            "#ifndef HELPER\n#define HELPER\n#endif\nstatic HELPER int f();\n",
            "",
        )
        .unwrap();
        assert!(out.contains("static HELPER int f();") && unknown_in(&out).is_none());
        let out = run("#if !defined(G_H)\n\n#define G_H\nint g;\n#endif\n", "").unwrap();
        assert!(out.contains("int g;") && unknown_in(&out).is_none());
        // the user's value comes first
        let src = "#ifndef N\n#define N 4\n#endif\n#if N == 8\neight();\n#endif\n";
        assert!(run(src, "-DN=8").unwrap().contains("eight();"));
        assert!(!run(src, "").unwrap().contains("eight();"));
        // a default with a value is recorded (a guard is not), with where
        // and what it is; one the build's macros settle is not
        let mut pp = Preproc::new(&Defines::default());
        decide(
            &format!("#ifndef K_H\n#define K_H\n{src}#ifndef F\n#define F(x) x\n#endif\n"),
            &mut pp,
            "k.h",
        )
        .unwrap();
        assert_eq!(
            pp.defaults(),
            [Assumed {
                name: "N".into(),
                at: "k.h:3".into(),
                value: "4".into()
            }]
        );
        assert!(pp.defaults()[0].message().starts_with(
            "macro N is taken as its source's default (k.h:3: 4); a build that sets N (-DN=...)"
        ));
        let mut pp = Preproc::new(&Defines::parse("-DN=4").unwrap());
        decide(src, &mut pp, "k.h").unwrap();
        assert!(pp.defaults().is_empty());
        let mut pp = Preproc::new(&Defines::from_build([]));
        decide(src, &mut pp, "k.h").unwrap();
        assert!(pp.defaults().is_empty());
    }

    #[test]
    fn the_implementations_names_are_left_to_the_device_compiler() {
        let src = "#ifdef __cplusplus\nextern \"C\" {\n#define EXT 1\n#elif KNOWN\nc();\n#endif\n\
                   #ifdef EXT\nuse();\n#endif\n";
        let out = run(src, "-DKNOWN=0").unwrap();
        let k = kept(&out);
        assert_eq!(
            k[..4],
            [
                "#ifdef __cplusplus",
                "extern \"C\" {",
                "#define EXT 1",
                "#elif 0"
            ]
        );
        assert_eq!(k[5..], ["#endif", "#ifdef EXT", "use();", "#endif"]);
        // decided branches before one the device decides: it becomes an #if
        let out = run(
            "#if 0\na();\n#elif __CUDACC__\nb();\n#else\nc();\n#endif\n",
            "",
        )
        .unwrap();
        assert_eq!(
            kept(&out),
            ["#if __CUDACC__", "b();", "#else", "c();", "#endif"]
        );
        // an unknown branch among the device's is never taken there
        let out = run("#ifdef __CUDACC__\na();\n#elif MODE\nb();\n#endif\n", "").unwrap();
        assert!(!out.contains("b();"));
        assert_eq!(unknown_in(&out).unwrap().name, "MODE");
    }

    #[test]
    fn continued_lines_and_comments() {
        let src = "#if defined(A) && \\\n    B == 3 /* b */\nyes();\n#endif // A\n\
                   #define LONG(x) \\\n  ((x) + 1)\n/* #if NOT_A_DIRECTIVE */\n";
        let out = run(src, "-DA -DB=3").unwrap();
        assert!(
            out.contains("yes();") && out.contains("  ((x) + 1)"),
            "{out}"
        );
        assert_eq!(out.lines().count(), src.lines().count());
        let out = run(src, "-DA -DB=2").unwrap();
        assert!(
            !out.contains("yes();") && out.contains("  ((x) + 1)"),
            "{out}"
        );
        // a conditional the device decides, continued: kept as one line
        let out = run("#if defined(__CUDACC__) \\\n  && 1\nx();\n#endif\n", "").unwrap();
        assert!(out.contains("#if defined(__CUDACC__) && 1\n"), "{out}");
    }

    #[test]
    fn user_definitions_are_checked() {
        assert_eq!(
            Defines::parse("-DA=1 B").unwrap_err(),
            "'B' is not -DNAME, -DNAME=VALUE or -UNAME"
        );
        assert_eq!(
            Defines::parse("-D9x").unwrap_err(),
            "'-D9x': '9x' is not a macro name"
        );
        assert_eq!(
            Defines::parse("-UA=2").unwrap_err(),
            "'-UA=2': -U takes a name, not a value"
        );
        assert!(Defines::parse("  ").unwrap().is_empty());
        let pp = Preproc::new(&Defines::parse("-DZ=2 -DA -UB").unwrap());
        assert_eq!(pp.defined(), [("A", "#define A 1"), ("Z", "#define Z 2")]);
    }

    #[test]
    fn unbalanced_conditionals_are_errors() {
        assert!(run("#endif\n", "")
            .unwrap_err()
            .contains("k.h:1: #endif without #if"));
        assert!(run("#else\n", "")
            .unwrap_err()
            .contains("#else without #if"));
        assert!(run("x\n#elif 1\n", "")
            .unwrap_err()
            .contains("k.h:2: #elif without #if"));
    }
}
