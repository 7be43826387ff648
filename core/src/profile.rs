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
//! Every timing method takes the current [`Instant`] as a parameter, so the
//! profiler itself never reads a clock and can be driven with synthetic times.
//! A section's duration is `exit_time - enter_time`, saturating at zero if the
//! caller passes an earlier instant.
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
//!   untouched, so timing can continue afterwards.
//!
//! No global state: the C layer owns one `Profiler`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

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

/// Number of kernel rows printed per table before `    (<n> more)`.
const KERNEL_ROW_LIMIT: usize = 20;
/// Number of kernels per table whose subtree is printed at level 3.
const DETAILED_KERNEL_LIMIT: usize = 4;
/// Column width of every duration in the report.
const DURATION_WIDTH: usize = 7;
/// Deepest JSON nesting accepted by [`Node::from_json`].
const MAX_JSON_DEPTH: usize = 512;

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

/// Formats a duration into exactly `width` characters (OP2 always uses 7),
/// choosing the largest unit among `s`, `ms`, `us`, `ns` in which the value is
/// at least 1, and spending the remaining width on decimals.
///
/// Like OP2, the result is cut to `width` characters, so a value that rounds
/// up to an extra digit loses the end of its unit (999 999 ns prints as
/// `1000.0u`). A zero duration prints as `0.000ns` (OP2 reads past its unit
/// table there).
pub fn format_duration(d: Duration, width: usize) -> String {
    const UNITS: [&str; 4] = ["s", "ms", "us", "ns"];

    let mut value = seconds(d);
    let mut unit = 0;
    while unit < 3 && value < 1.0 {
        value *= 1000.0;
        unit += 1;
    }

    let remaining = width as i64 - UNITS[unit].len() as i64;
    let mut left = 1i64;
    let mut scaled = value;
    while scaled >= 10.0 {
        left += 1;
        scaled /= 10.0;
    }
    let right = (remaining - left - 1).max(0);
    let padding = if right == 0 {
        (remaining - left).max(0)
    } else {
        0
    };

    let mut text = format!(
        "{:pad$}{:>left$.right$}{}",
        "",
        value,
        UNITS[unit],
        pad = padding as usize,
        left = left as usize,
        right = right as usize,
    );
    text.truncate(width);
    text
}

/// Duration as floating-point seconds, computed as OP2 does
/// (nanosecond count divided by 1e9).
fn seconds(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

/// `100 * part / whole`, or 0 when `whole` is zero (OP2 would print
/// `inf`/`nan` there).
fn percent(part: Duration, whole: Duration) -> f64 {
    if whole.is_zero() {
        0.0
    } else {
        100.0 * seconds(part) / seconds(whole)
    }
}

fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Timing statistics of one tree node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Number of completed intervals.
    pub n: u64,
    /// Sum of all intervals.
    pub total: Duration,
    /// Shortest interval (zero while `n == 0`).
    pub min: Duration,
    /// Longest interval (zero while `n == 0`).
    pub max: Duration,
}

impl Clock {
    /// Records one completed interval.
    pub fn submit(&mut self, d: Duration) {
        if self.n == 0 {
            self.total = d;
            self.min = d;
            self.max = d;
        } else {
            self.total = self.total.saturating_add(d);
            self.min = self.min.min(d);
            self.max = self.max.max(d);
        }
        self.n += 1;
    }

    /// Adds another clock's statistics: counts and totals are summed, min and
    /// max are the overall min and max. An empty clock (`n == 0`) contributes
    /// nothing. (OP2's `operator+=` keeps the smaller of the two maxima; that
    /// slip is not reproduced.)
    pub fn merge(&mut self, other: &Clock) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        self.n += other.n;
        self.total = self.total.saturating_add(other.total);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// `total / n`, truncated to whole nanoseconds; zero when `n == 0`.
    pub fn average(&self) -> Duration {
        if self.n == 0 {
            return Duration::ZERO;
        }
        let nanos = self.total.as_nanos() / u128::from(self.n);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// OP2's one-line summary: `*<n> total: <t>`, then ` (<p>%)` when a
    /// reference clock is given (percentage of its total, one decimal), then
    /// ` (average: <a>, min: <m>, max: <M>)` when `n > 1`.
    fn summary(&self, reference: Option<&Clock>) -> String {
        let mut line = format!(
            "*{} total: {}",
            self.n,
            format_duration(self.total, DURATION_WIDTH)
        );
        if let Some(reference) = reference {
            let _ = write!(line, " ({:.1}%)", percent(self.total, reference.total));
        }
        if self.n > 1 {
            let _ = write!(
                line,
                " (average: {}, min: {}, max: {})",
                format_duration(self.average(), DURATION_WIDTH),
                format_duration(self.min, DURATION_WIDTH),
                format_duration(self.max, DURATION_WIDTH)
            );
        }
        line
    }
}

/// Kind of a tree node. Serialised in JSON as `0` / `1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeKind {
    /// A section opened by `start`, `enter` or `next`.
    #[default]
    Standard,
    /// A section opened by `enter_kernel`.
    Kernel,
}

/// One section of the timing tree. Children are kept in first-entry order and
/// their names are unique within a parent (regardless of kind).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub clock: Clock,
    /// Number of MPI ranks whose trees were merged into this node.
    pub num_ranks: u64,
    pub children: Vec<Node>,
}

impl Node {
    /// A fresh standard node with no timings, counted for one rank.
    pub fn new(name: &str) -> Self {
        Node {
            name: name.to_string(),
            kind: NodeKind::Standard,
            clock: Clock::default(),
            num_ranks: 1,
            children: Vec::new(),
        }
    }

    /// The immediate child called `name`, if any.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Index of the immediate child called `name`, creating it if needed.
    fn child_index(&mut self, name: &str) -> usize {
        match self.children.iter().position(|c| c.name == name) {
            Some(index) => index,
            None => {
                self.children.push(Node::new(name));
                self.children.len() - 1
            }
        }
    }

    /// Adds `other` (typically the same tree from another MPI rank) into this
    /// node: clocks are merged with [`Clock::merge`], `num_ranks` are summed
    /// and children are matched by name, recursively. A child only present in
    /// `other` is appended as a copy (keeping its own `num_ranks`). A node
    /// becomes a kernel if it is a kernel in either tree. The name of `self`
    /// is kept.
    pub fn merge(&mut self, other: &Node) {
        self.clock.merge(&other.clock);
        self.num_ranks += other.num_ranks;
        if other.kind == NodeKind::Kernel {
            self.kind = NodeKind::Kernel;
        }
        for theirs in &other.children {
            match self.children.iter_mut().find(|c| c.name == theirs.name) {
                Some(ours) => ours.merge(theirs),
                None => self.children.push(theirs.clone()),
            }
        }
    }

    /// The node as compact JSON in the layout OP2 writes (nlohmann, keys in
    /// alphabetical order, durations as integer nanoseconds, kind as 0/1):
    /// `{"children":[..],"clock":{"max":..,"min":..,"n":..,"total":..},`
    /// `"name":"..","num_ranks":..,"type":0}`.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"children\":[");
        for (i, child) in self.children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            child.write_json(out);
        }
        let _ = write!(
            out,
            "],\"clock\":{{\"max\":{},\"min\":{},\"n\":{},\"total\":{}}},\"name\":",
            duration_nanos(self.clock.max),
            duration_nanos(self.clock.min),
            self.clock.n,
            duration_nanos(self.clock.total)
        );
        write_json_string(out, &self.name);
        let kind = match self.kind {
            NodeKind::Standard => 0,
            NodeKind::Kernel => 1,
        };
        let _ = write!(out, ",\"num_ranks\":{},\"type\":{}}}", self.num_ranks, kind);
    }

    /// Parses a tree written by [`Node::to_json`] (or by OP2). Keys may come in
    /// any order and unknown keys are ignored; `name`, `clock` (with `n`,
    /// `total`, `min`, `max`) and `children` are required, `type` defaults to
    /// 0 and `num_ranks` to 1.
    pub fn from_json(text: &str) -> Result<Node, JsonError> {
        let mut parser = JsonParser {
            bytes: text.as_bytes(),
            pos: 0,
        };
        parser.skip_ws();
        let value = parser.value(0)?;
        parser.skip_ws();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("trailing characters after JSON value"));
        }
        node_from_value(&value, "")
    }
}

/// Writes `s` as a JSON string literal, escaping as nlohmann's `dump()` does:
/// `"` and `\`, the short forms `\b \f \n \r \t`, other control characters
/// below 0x20 as `\u00xx`; everything else (including non-ASCII) verbatim.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Error from [`Node::from_json`]: what went wrong and the byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid profile JSON at byte {}: {}",
            self.offset, self.message
        )
    }
}

impl std::error::Error for JsonError {}

/// Generic JSON value; numbers keep their source text. `true`, `false` and
/// `null` are accepted but never needed, so they share one variant.
#[derive(Debug)]
enum JsonValue {
    Literal,
    Number(String),
    Str(String),
    Array(Vec<JsonValue>),
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    fn field(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Non-negative integer value (also accepts integral floats).
    fn as_u64(&self) -> Option<u64> {
        let JsonValue::Number(text) = self else {
            return None;
        };
        if let Ok(v) = text.parse::<u64>() {
            return Some(v);
        }
        let v = text.parse::<f64>().ok()?;
        if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 1.8e19 {
            Some(v as u64)
        } else {
            None
        }
    }
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl JsonParser<'_> {
    fn error(&self, message: &str) -> JsonError {
        JsonError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect_literal(&mut self, literal: &str) -> Result<JsonValue, JsonError> {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(JsonValue::Literal)
        } else {
            Err(self.error("invalid literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        if depth > MAX_JSON_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        match self.peek() {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(JsonValue::Str),
            Some(b't') => self.expect_literal("true"),
            Some(b'f') => self.expect_literal("false"),
            Some(b'n') => self.expect_literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        self.pos += 1; // '{'
        let mut fields = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(JsonValue::Object(fields));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected object key"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':'"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            fields.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(JsonValue::Object(fields));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<JsonValue, JsonError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(JsonValue::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(JsonValue::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<JsonValue, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        if self.pos == int_start {
            return Err(self.error("expected digits"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let frac_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == frac_start {
                return Err(self.error("expected digits after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let exp_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == exp_start {
                return Err(self.error("expected exponent digits"));
            }
        }
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
        Ok(JsonValue::Number(text))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("truncated \\u escape"))?;
        let mut value = 0u32;
        for &d in digits {
            let nibble = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            value = value * 16 + nibble;
        }
        self.pos += 4;
        Ok(value)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.error("unterminated escape"));
                    };
                    self.pos += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(0x08),
                        b'f' => Some(0x0c),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => return Err(self.error("invalid escape")),
                    };
                    if let Some(byte) = simple {
                        out.push(byte);
                        continue;
                    }
                    let first = self.hex4()?;
                    let code = if (0xD800..0xDC00).contains(&first) {
                        if !self.bytes[self.pos..].starts_with(b"\\u") {
                            return Err(self.error("unpaired surrogate"));
                        }
                        self.pos += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&second) {
                            return Err(self.error("unpaired surrogate"));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    } else {
                        first
                    };
                    let c = char::from_u32(code).ok_or_else(|| self.error("invalid code point"))?;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                b if b < 0x20 => return Err(self.error("control character in string")),
                b => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("invalid UTF-8 in string"))
    }
}

fn node_from_value(value: &JsonValue, path: &str) -> Result<Node, JsonError> {
    let fail = |what: &str| JsonError {
        offset: 0,
        message: format!("node '{path}': {what}"),
    };
    if !matches!(value, JsonValue::Object(_)) {
        return Err(fail("expected an object"));
    }
    let name = match value.field("name") {
        Some(JsonValue::Str(s)) => s.clone(),
        _ => return Err(fail("missing or non-string \"name\"")),
    };
    let path = format!("{path}/{name}");
    let fail = |what: &str| JsonError {
        offset: 0,
        message: format!("node '{path}': {what}"),
    };
    let kind = match value.field("type") {
        None => NodeKind::Standard,
        Some(v) => match v.as_u64() {
            Some(0) => NodeKind::Standard,
            Some(1) => NodeKind::Kernel,
            _ => return Err(fail("\"type\" must be 0 or 1")),
        },
    };
    let num_ranks = match value.field("num_ranks") {
        None => 1,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| fail("\"num_ranks\" must be a non-negative integer"))?,
    };
    let clock_value = value
        .field("clock")
        .ok_or_else(|| fail("missing \"clock\""))?;
    let clock_field = |key: &str| {
        clock_value
            .field(key)
            .and_then(JsonValue::as_u64)
            .ok_or_else(|| fail(&format!("clock field \"{key}\" missing or not an integer")))
    };
    let clock = Clock {
        n: clock_field("n")?,
        total: Duration::from_nanos(clock_field("total")?),
        min: Duration::from_nanos(clock_field("min")?),
        max: Duration::from_nanos(clock_field("max")?),
    };
    let children = match value.field("children") {
        Some(JsonValue::Array(items)) => items
            .iter()
            .map(|item| node_from_value(item, &path))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(fail("missing or non-array \"children\"")),
    };
    Ok(Node {
        name,
        kind,
        clock,
        num_ranks,
        children,
    })
}

/// A section that is currently open: its index among its parent's children
/// (unused for the root) and when it was entered.
#[derive(Clone, Copy, Debug)]
struct OpenSection {
    index: usize,
    start: Instant,
}

/// Walks from `root` along the child indices of `open[1..]`.
fn node_at_mut<'a>(root: &'a mut Node, open: &[OpenSection]) -> &'a mut Node {
    let mut node = root;
    for section in open.iter().skip(1) {
        node = &mut node.children[section.index];
    }
    node
}

fn node_at<'a>(root: &'a Node, open: &[OpenSection]) -> &'a Node {
    let mut node = root;
    for section in open.iter().skip(1) {
        node = &node.children[section.index];
    }
    node
}

/// The tree profiler. See the [module documentation](self) for semantics.
#[derive(Clone, Debug)]
pub struct Profiler {
    level: u32,
    root: Option<Node>,
    /// Open sections, outermost (the root) first.
    open: Vec<OpenSection>,
    /// Number of currently open sections that are not recorded at this level.
    extra_depth: usize,
    started: bool,
    finished: bool,
    /// Latest instant passed to a timing call while running.
    latest: Option<Instant>,
    /// Reused to build kernel section names.
    name_buf: String,
}

impl Default for Profiler {
    /// A profiler at [`DEFAULT_LEVEL`].
    fn default() -> Self {
        Profiler::new(DEFAULT_LEVEL)
    }
}

impl Profiler {
    /// A profiler at `level` (`OP_PROFILE_LEVEL`); values above 3 are treated
    /// as 3.
    pub fn new(level: u32) -> Self {
        Profiler {
            level: level.min(LEVEL_KERNEL_DETAILED),
            root: None,
            open: Vec::new(),
            extra_depth: 0,
            started: false,
            finished: false,
            name_buf: String::new(),
            latest: None,
        }
    }

    /// The current level (0..=3).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Changes the level; only possible before [`start`](Self::start) (OP2
    /// reads `OP_PROFILE_LEVEL` inside `op_profile_start`). Values above 3 are
    /// treated as 3. Returns whether the level was changed.
    pub fn set_level(&mut self, level: u32) -> bool {
        if self.started {
            return false;
        }
        self.level = level.min(LEVEL_KERNEL_DETAILED);
        true
    }

    /// Whether `start` has been accepted (never at level 0).
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Whether `end` has been called after an accepted `start`.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Number of sections currently open and recorded (the root counts as
    /// one); 0 before `start` and after `end`.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The live tree (`None` before `start` or at level 0). Sections that are
    /// still open have not yet been added to their clocks.
    pub fn root(&self) -> Option<&Node> {
        self.root.as_ref()
    }

    fn running(&self) -> bool {
        self.level > LEVEL_DISABLED && self.started && !self.finished
    }

    fn observe(&mut self, now: Instant) {
        self.latest = Some(match self.latest {
            Some(latest) if latest > now => latest,
            _ => now,
        });
    }

    /// `op_profile_start(name)`: opens the root section called `name`.
    /// Ignored at level 0 and if already started.
    pub fn start(&mut self, name: &str, now: Instant) {
        if self.level == LEVEL_DISABLED || self.started {
            return;
        }
        self.started = true;
        self.root = Some(Node::new(name));
        self.open = vec![OpenSection {
            index: 0,
            start: now,
        }];
        self.extra_depth = 0;
        self.observe(now);
    }

    /// `op_profile_end()`: closes every open section (innermost first, all at
    /// `now`), the root included, and freezes the tree. Later timing calls are
    /// ignored.
    pub fn end(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        self.extra_depth = 0;
        if let Some(root) = self.root.as_mut() {
            while let Some(section) = self.open.last().copied() {
                node_at_mut(root, &self.open)
                    .clock
                    .submit(now.saturating_duration_since(section.start));
                self.open.pop();
            }
        }
        self.open.clear();
        self.finished = true;
    }

    /// `op_profile_enter(name)`: opens the child `name` of the current
    /// section (created on first use). Not recorded — but still counted, so
    /// that the matching `exit` is consumed — when inside an unrecorded
    /// section, or inside a kernel below level 3.
    pub fn enter(&mut self, name: &str, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        self.enter_recorded(name, now);
    }

    /// Opens a section if the level records it; returns whether it did.
    fn enter_recorded(&mut self, name: &str, now: Instant) -> bool {
        let Some(root) = self.root.as_mut() else {
            return false;
        };
        let parent = node_at_mut(root, &self.open);
        if self.extra_depth > 0
            || (self.level < LEVEL_KERNEL_DETAILED && parent.kind == NodeKind::Kernel)
        {
            self.extra_depth += 1;
            return false;
        }
        let index = parent.child_index(name);
        self.open.push(OpenSection { index, start: now });
        true
    }

    /// `op_profile_enter_kernel(name, target, variant)`: opens a kernel
    /// section called `"<name>/<target>/<variant>"` (e.g.
    /// `"res_calc/seq/Indirect"`). Recorded only from level 2, and not when
    /// nested inside another kernel below level 3; otherwise it only has to be
    /// matched by an `exit`.
    pub fn enter_kernel(&mut self, name: &str, target: &str, variant: &str, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        if self.level < LEVEL_KERNEL {
            self.extra_depth += 1;
            return;
        }
        // The section name in a buffer kept across calls: a loop in steady
        // state allocates nothing here.
        let mut full_name = std::mem::take(&mut self.name_buf);
        full_name.clear();
        for part in [name, "/", target, "/", variant] {
            full_name.push_str(part);
        }
        let recorded = self.enter_recorded(&full_name, now);
        self.name_buf = full_name;
        if recorded {
            if let Some(root) = self.root.as_mut() {
                node_at_mut(root, &self.open).kind = NodeKind::Kernel;
            }
        }
    }

    /// `op_profile_next(name)`: [`exit`](Self::exit) then
    /// [`enter`](Self::enter), both at `now`.
    pub fn next(&mut self, name: &str, now: Instant) {
        self.exit(now);
        self.enter(name, now);
    }

    /// `op_profile_exit()`: closes the innermost open section, adding
    /// `now - entered` to its clock. An unrecorded section is just popped.
    /// Ignored when only the root is open (use [`end`](Self::end)).
    pub fn exit(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        self.observe(now);
        if self.extra_depth > 0 {
            self.extra_depth -= 1;
            return;
        }
        if self.open.len() <= 1 {
            return;
        }
        if let (Some(root), Some(section)) = (self.root.as_mut(), self.open.last().copied()) {
            node_at_mut(root, &self.open)
                .clock
                .submit(now.saturating_duration_since(section.start));
            self.open.pop();
        }
    }

    /// The tree as it would be if `end` were called at the latest instant seen:
    /// a copy of the live tree with every open section closed then. `None`
    /// before `start` or at level 0.
    pub fn snapshot(&self) -> Option<Node> {
        let mut root = self.root.clone()?;
        if let Some(last) = self.open.last() {
            let at = self.latest.unwrap_or(last.start);
            for depth in (0..self.open.len()).rev() {
                let open = &self.open[..=depth];
                node_at_mut(&mut root, open)
                    .clock
                    .submit(at.saturating_duration_since(open[depth].start));
            }
        }
        Some(root)
    }

    /// Name of the innermost recorded open section, if any.
    pub fn current_section(&self) -> Option<&str> {
        let root = self.root.as_ref()?;
        if self.open.is_empty() {
            return None;
        }
        Some(node_at(root, &self.open).name.as_str())
    }

    /// The text printed by `op_profile_output()` (empty at level 0 or before
    /// `start`). Built from [`snapshot`](Self::snapshot). Layout, as OP2:
    ///
    /// 1. every non-kernel node, depth first, indented 4 spaces per level:
    ///    `<name> *<n> total: <t>[ (average: <a>, min: <m>, max: <M>)]`,
    ///    followed by an empty line;
    /// 2. for every node with kernel children (in the same order): a header
    ///    `<path/of/node><pad>     num    total      avg      min      max`
    ///    (+ `    %kern` at level 3), one row per kernel child, slowest total
    ///    first (ties keep first-entry order), at most 20 rows then
    ///    `    (<k> more)`, then an empty line;
    /// 3. at level 3, after each table, the subtree of each of its four
    ///    slowest kernels (percentages relative to the kernel), each followed
    ///    by an empty line.
    ///
    /// Writing the JSON file named by `OP_PROFILE_JSON_OUTPUT`, and MPI
    /// merging, are the caller's job.
    pub fn output(&self) -> String {
        if self.level == LEVEL_DISABLED {
            return String::new();
        }
        match self.snapshot() {
            Some(root) => render_report(&root, self.level),
            None => String::new(),
        }
    }

    /// The JSON document `op_profile_output_json(file)` writes (see
    /// [`Node::to_json`]; no trailing newline), built from
    /// [`snapshot`](Self::snapshot). `None` at level 0 or before `start`, in
    /// which case OP2 writes no file and prints nothing; otherwise OP2 prints
    /// `Writing timing JSON to: <file>\n` (or
    /// `Unable to open timing JSON output file: <file> (<strerror>)\n`).
    pub fn output_json(&self) -> Option<String> {
        if self.level == LEVEL_DISABLED {
            return None;
        }
        self.snapshot().map(|root| root.to_json())
    }

    /// Merges another profiler's tree (its [`snapshot`](Self::snapshot)) into
    /// this one, as OP2 combines MPI ranks' trees on the root rank (see
    /// [`Node::merge`]). No-op at level 0 or if `other` has no tree.
    pub fn merge(&mut self, other: &Profiler) {
        if let Some(tree) = other.snapshot() {
            self.merge_tree(&tree);
        }
    }

    /// Merges a tree (e.g. another rank's, from [`Node::from_json`]) into this
    /// profiler's tree. No-op at level 0. If this profiler was never started,
    /// it adopts a copy of `tree` and behaves as finished from then on.
    /// Merging into a running profiler is allowed; open sections stay open.
    pub fn merge_tree(&mut self, tree: &Node) {
        if self.level == LEVEL_DISABLED {
            return;
        }
        match self.root.as_mut() {
            Some(root) => root.merge(tree),
            None => {
                self.root = Some(tree.clone());
                self.started = true;
                self.finished = true;
            }
        }
    }

    /// Parses `json` with [`Node::from_json`] and merges it with
    /// [`merge_tree`](Self::merge_tree).
    pub fn merge_json(&mut self, json: &str) -> Result<(), JsonError> {
        let tree = Node::from_json(json)?;
        self.merge_tree(&tree);
        Ok(())
    }
}

/// Renders the full text report for `root` at `level` (>= 1).
fn render_report(root: &Node, level: u32) -> String {
    let mut out = String::new();
    let mut with_kernels: Vec<(Vec<&str>, &Node)> = Vec::new();
    let mut path = Vec::new();
    walk_non_kernel(root, &mut path, &mut with_kernels, 0, &mut out);
    out.push('\n');

    let mut longest = 0;
    for (path, node) in &with_kernels {
        let path_len: usize = path.iter().map(|p| p.len() + 1).sum();
        longest = longest.max(path_len);
        for child in &node.children {
            longest = longest.max(child.name.len() + 4);
        }
    }

    for (path, node) in &with_kernels {
        kernel_table(path, node, longest, level, &mut out);
    }
    out
}

fn walk_non_kernel<'a>(
    node: &'a Node,
    path: &mut Vec<&'a str>,
    with_kernels: &mut Vec<(Vec<&'a str>, &'a Node)>,
    indent: usize,
    out: &mut String,
) {
    path.push(&node.name);
    if node.children.iter().any(|c| c.kind == NodeKind::Kernel) {
        with_kernels.push((path.clone(), node));
    }
    let _ = writeln!(
        out,
        "{:indent$}{} {}",
        "",
        node.name,
        node.clock.summary(None)
    );
    for child in &node.children {
        if child.kind != NodeKind::Kernel {
            walk_non_kernel(child, path, with_kernels, indent + 4, out);
        }
    }
    path.pop();
}

fn kernel_table(path: &[&str], node: &Node, longest: usize, level: u32, out: &mut String) {
    let joined = path.join("/");
    let pad = (longest + 4).saturating_sub(joined.len());
    let _ = write!(
        out,
        "{joined}{:pad$}     num    total      avg      min      max",
        ""
    );
    if level >= LEVEL_KERNEL_DETAILED {
        out.push_str("    %kern");
    }
    out.push('\n');

    let mut kernels: Vec<&Node> = node
        .children
        .iter()
        .filter(|c| c.kind == NodeKind::Kernel)
        .collect();
    // Stable: kernels with equal totals keep first-entry order.
    kernels.sort_by_key(|k| std::cmp::Reverse(k.clock.total));

    for (row, kernel) in kernels.iter().enumerate() {
        if row >= KERNEL_ROW_LIMIT {
            let _ = writeln!(out, "    ({} more)", kernels.len() - KERNEL_ROW_LIMIT);
            break;
        }
        let mut kern_pct = String::new();
        if level >= LEVEL_KERNEL_DETAILED {
            let computation = kernel.child("Computation");
            let inner = computation.and_then(|c| c.child("Kernel")).or(computation);
            let pct = inner.map_or(0.0, |n| percent(n.clock.total, kernel.clock.total));
            kern_pct = format!("    {pct:5.1}");
            kern_pct.truncate(9);
        }
        let pad = longest.saturating_sub(kernel.name.len() + 4);
        let clock = &kernel.clock;
        let _ = writeln!(
            out,
            "    {}{:pad$}    {:>8}  {}  {}  {}  {}{}",
            kernel.name,
            "",
            clock.n,
            format_duration(clock.total, DURATION_WIDTH),
            format_duration(clock.average(), DURATION_WIDTH),
            format_duration(clock.min, DURATION_WIDTH),
            format_duration(clock.max, DURATION_WIDTH),
            kern_pct
        );
    }
    out.push('\n');

    if level < LEVEL_KERNEL_DETAILED {
        return;
    }
    for kernel in kernels.iter().take(DETAILED_KERNEL_LIMIT) {
        write_subtree(kernel, 4, None, out);
        out.push('\n');
    }
}

/// Prints `node` and all its descendants; every descendant's percentage is
/// relative to `reference`, which defaults to `node` itself below the top.
fn write_subtree(node: &Node, indent: usize, reference: Option<&Clock>, out: &mut String) {
    let _ = writeln!(
        out,
        "{:indent$}{} {}",
        "",
        node.name,
        node.clock.summary(reference)
    );
    let reference = reference.unwrap_or(&node.clock);
    for child in &node.children {
        write_subtree(child, indent + 4, Some(reference), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "     num    total      avg      min      max";

    /// Synthetic clock: `at(base, ms)` is `base + ms` milliseconds.
    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    fn us(base: Instant, micros: u64) -> Instant {
        base + Duration::from_micros(micros)
    }

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn ns(v: u64) -> Duration {
        Duration::from_nanos(v)
    }

    fn fd(d: Duration) -> String {
        format_duration(d, DURATION_WIDTH)
    }

    // ---------------------------------------------------------------- levels

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

    #[test]
    fn new_clamps_level_and_default_is_one() {
        assert_eq!(Profiler::new(7).level(), 3);
        assert_eq!(Profiler::default().level(), DEFAULT_LEVEL);
        assert_eq!(DEFAULT_LEVEL, 1);
    }

    #[test]
    fn set_level_only_before_start() {
        let base = Instant::now();
        let mut p = Profiler::new(1);
        assert!(p.set_level(2));
        assert_eq!(p.level(), 2);
        assert!(p.set_level(9));
        assert_eq!(p.level(), 3);
        p.start("App", base);
        assert!(!p.set_level(0));
        assert_eq!(p.level(), 3);
    }

    // ------------------------------------------------------- format_duration

    #[test]
    fn format_duration_unit_boundaries() {
        assert_eq!(fd(ns(0)), "0.000ns");
        assert_eq!(fd(ns(1)), "1.000ns");
        assert_eq!(fd(ns(9)), "9.000ns");
        assert_eq!(fd(ns(10)), "10.00ns");
        assert_eq!(fd(ns(999)), "999.0ns");
        assert_eq!(fd(ns(1_000)), "1.000us");
        assert_eq!(fd(ns(1_500)), "1.500us");
        assert_eq!(fd(ns(999_000)), "999.0us");
        assert_eq!(fd(ns(1_000_000)), "1.000ms");
        assert_eq!(fd(ms(20)), "20.00ms");
        assert_eq!(fd(ms(999)), "999.0ms");
        assert_eq!(fd(ms(1_000)), "1.0000s");
        assert_eq!(fd(ms(1_500)), "1.5000s");
        assert_eq!(fd(ms(12_345)), "12.345s");
        assert_eq!(fd(ms(123_400)), "123.40s");
        assert_eq!(fd(ms(1_234_500)), "1234.5s");
        assert_eq!(fd(Duration::from_secs(12_345)), " 12345s");
        assert_eq!(fd(Duration::from_secs(123_456)), "123456s");
    }

    #[test]
    fn format_duration_is_always_seven_wide() {
        for &v in &[
            0u64,
            1,
            7,
            42,
            999,
            1_001,
            65_432,
            999_999,
            1_000_001,
            33_333_333,
            987_654_321,
            1_000_000_000,
            59_999_999_999,
            3_600_000_000_000,
        ] {
            assert_eq!(fd(ns(v)).len(), 7, "{v} ns -> {:?}", fd(ns(v)));
        }
    }

    #[test]
    fn format_duration_truncates_like_op2() {
        // Rounds up to an extra digit: the end of the unit is cut off.
        assert_eq!(fd(ns(999_999)), "1000.0u");
        assert_eq!(fd(ns(9_999_960_000)), "10.0000");
        assert_eq!(fd(Duration::from_secs(12_345_678)), "1234567");
        // 100 ns is 99.99999999999999 after scaling, so it gets two decimals.
        assert_eq!(fd(ns(100)), "100.00n");
        assert_eq!(fd(ns(9_999_999)), "10.000m");
        assert_eq!(format_duration(ms(1_500), 10), "1.5000000s");
        assert_eq!(format_duration(ms(1_500), 3), " 2s");
        assert_eq!(format_duration(ms(2_500), 3), " 2s"); // round half to even
        assert_eq!(format_duration(ms(1_500), 0), "");
    }

    // ----------------------------------------------------------------- clock

    #[test]
    fn clock_statistics() {
        let mut c = Clock::default();
        assert_eq!(c.average(), Duration::ZERO);
        c.submit(ms(3));
        c.submit(ms(1));
        c.submit(ms(8));
        assert_eq!(c.n, 3);
        assert_eq!(c.total, ms(12));
        assert_eq!(c.min, ms(1));
        assert_eq!(c.max, ms(8));
        assert_eq!(c.average(), ms(4));
        let mut odd = Clock::default();
        odd.submit(ns(10));
        odd.submit(ns(11));
        assert_eq!(odd.average(), ns(10)); // truncated
    }

    #[test]
    fn clock_summary_lines() {
        let mut c = Clock::default();
        c.submit(ms(2));
        assert_eq!(c.summary(None), "*1 total: 2.000ms");
        c.submit(ms(4));
        assert_eq!(
            c.summary(None),
            "*2 total: 6.000ms (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
        let mut parent = Clock::default();
        parent.submit(ms(24));
        assert_eq!(
            c.summary(Some(&parent)),
            "*2 total: 6.000ms (25.0%) (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
        let zero = Clock::default();
        assert_eq!(
            c.summary(Some(&zero)),
            "*2 total: 6.000ms (0.0%) (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
    }

    #[test]
    fn clock_merge_takes_true_min_and_max() {
        let mut a = Clock::default();
        a.submit(ms(5));
        a.submit(ms(7));
        let mut b = Clock::default();
        b.submit(ms(2));
        b.submit(ms(9));
        b.submit(ms(4));
        a.merge(&b);
        assert_eq!(a.n, 5);
        assert_eq!(a.total, ms(27));
        assert_eq!(a.min, ms(2));
        assert_eq!(a.max, ms(9));

        let mut empty = Clock::default();
        empty.merge(&b);
        assert_eq!(empty, b);
        let before = b;
        b.merge(&Clock::default());
        assert_eq!(b, before);
    }

    // ------------------------------------------------------- tree and output

    #[test]
    fn nested_sections() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter("B", at(t, 2));
        assert_eq!(p.depth(), 3);
        assert_eq!(p.current_section(), Some("B"));
        p.exit(at(t, 5));
        p.exit(at(t, 11));
        p.end(at(t, 20));
        assert!(p.is_finished());
        assert_eq!(p.depth(), 0);
        assert_eq!(
            p.output(),
            "App *1 total: 20.00ms\n    A *1 total: 10.00ms\n        B *1 total: 3.000ms\n\n"
        );
        let root = p.root().unwrap();
        assert_eq!(root.children[0].children[0].clock.total, ms(3));
    }

    #[test]
    fn repeated_sections_accumulate() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        for (a, b) in [(1, 3), (4, 10), (10, 11)] {
            p.enter("A", at(t, a));
            p.exit(at(t, b));
        }
        p.enter("Z", at(t, 12));
        p.exit(at(t, 13));
        p.end(at(t, 15));
        let root = p.root().unwrap();
        assert_eq!(root.children.len(), 2);
        let a = &root.children[0];
        assert_eq!((a.clock.n, a.clock.total), (3, ms(9)));
        assert_eq!((a.clock.min, a.clock.max), (ms(1), ms(6)));
        assert_eq!(
            p.output(),
            "App *1 total: 15.00ms\n    \
             A *3 total: 9.000ms (average: 3.000ms, min: 1.000ms, max: 6.000ms)\n    \
             Z *1 total: 1.000ms\n\n"
        );
    }

    #[test]
    fn same_name_under_different_parents_is_distinct() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 0));
        p.enter("X", at(t, 1));
        p.exit(at(t, 2));
        p.exit(at(t, 3));
        p.enter("X", at(t, 3));
        p.exit(at(t, 7));
        p.end(at(t, 8));
        let root = p.root().unwrap();
        assert_eq!(
            root.child("A").unwrap().child("X").unwrap().clock.total,
            ms(1)
        );
        assert_eq!(root.child("X").unwrap().clock.total, ms(4));
    }

    #[test]
    fn next_closes_and_opens_a_sibling() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.next("B", at(t, 4));
        p.next("A", at(t, 6));
        p.exit(at(t, 7));
        p.end(at(t, 10));
        let root = p.root().unwrap();
        let names: Vec<&str> = root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(root.children[0].clock.n, 2);
        assert_eq!(root.children[0].clock.total, ms(4));
        assert_eq!(root.children[1].clock.total, ms(2));
        assert!(root.children.iter().all(|c| c.children.is_empty()));
    }

    /// The call sequence of a translator-v2 seq loop.
    fn seq_loop(p: &mut Profiler, name: &str, variant: &str, t0: Instant, micros: [u64; 4]) {
        p.enter_kernel(name, "seq", variant, us(t0, micros[0]));
        p.enter("MPI Exchanges", us(t0, micros[0]));
        p.next("Computation", us(t0, micros[1]));
        p.next("MPI Wait", us(t0, micros[2]));
        p.exit(us(t0, micros[3]));
        p.exit(us(t0, micros[3]));
    }

    #[test]
    fn level_one_ignores_kernels_but_times_user_sections() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("Loop", at(t, 1));
        seq_loop(
            &mut p,
            "save_soln",
            "Direct",
            t,
            [2_000, 2_100, 2_900, 3_000],
        );
        assert_eq!(p.current_section(), Some("Loop"));
        p.exit(at(t, 4));
        p.end(at(t, 5));
        let root = p.root().unwrap();
        assert_eq!(root.children.len(), 1);
        assert!(root.children[0].children.is_empty());
        assert_eq!(
            p.output(),
            "App *1 total: 5.000ms\n    Loop *1 total: 3.000ms\n\n"
        );
    }

    #[test]
    fn level_two_kernel_table() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        seq_loop(
            &mut p,
            "save_soln",
            "Direct",
            t,
            [1_000, 1_100, 2_900, 3_000],
        );
        seq_loop(
            &mut p,
            "res_calc",
            "Indirect",
            t,
            [3_000, 3_500, 7_000, 8_000],
        );
        seq_loop(
            &mut p,
            "res_calc",
            "Indirect",
            t,
            [8_000, 8_100, 8_900, 9_000],
        );
        p.end(at(t, 10));

        // Sections inside kernels are not recorded at level 2.
        let root = p.root().unwrap();
        assert!(root.children.iter().all(|k| k.children.is_empty()));
        assert!(root.children.iter().all(|k| k.kind == NodeKind::Kernel));

        // longest = max(len("App") + 1, len("res_calc/seq/Indirect") + 4) = 25
        let expected = format!(
            "App *1 total: 10.00ms\n\n\
             App{}{HEADER}\n    \
             res_calc/seq/Indirect           2  6.000ms  3.000ms  1.000ms  5.000ms\n    \
             save_soln/seq/Direct            1  2.000ms  2.000ms  2.000ms  2.000ms\n\n",
            " ".repeat(26)
        );
        assert_eq!(p.output(), expected);
    }

    #[test]
    fn kernel_tables_for_nested_sections_and_longest_name() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        p.enter("Timestep", at(t, 0));
        p.enter("A very long user section name", at(t, 0));
        p.exit(at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 1));
        p.exit(at(t, 3));
        p.exit(at(t, 4));
        p.enter_kernel("top", "seq", "Direct", at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));

        // Nodes with kernel children, pre-order: App, then App/Timestep.
        // longest = max(4, 13, len("A very long user section name") + 4 = 33,
        //               len("k/seq/Direct") + 4, len("top/seq/Direct") + 4) = 33
        let out = p.output();
        let expected = format!(
            "App *1 total: 6.000ms\n    \
             Timestep *1 total: 4.000ms\n        \
             A very long user section name *1 total: 1.000ms\n\n\
             App{}{HEADER}\n    \
             top/seq/Direct{}           1  1.000ms  1.000ms  1.000ms  1.000ms\n\n\
             App/Timestep{}{HEADER}\n    \
             k/seq/Direct{}           1  2.000ms  2.000ms  2.000ms  2.000ms\n\n",
            " ".repeat(33 + 4 - 3),
            " ".repeat(33 - 18),
            " ".repeat(33 + 4 - 12),
            " ".repeat(33 - 16),
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn level_three_kern_column_and_detail() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        p.enter_kernel("update", "seq", "Direct", at(t, 0));
        p.enter("MPI Exchanges", at(t, 0));
        p.next("Computation", at(t, 1));
        p.enter("Kernel", at(t, 2));
        p.exit(at(t, 8));
        p.exit(at(t, 9));
        p.exit(at(t, 10));
        p.end(at(t, 10));

        let name = "update/seq/Direct"; // 17 chars, longest = 21
        let expected = format!(
            "App *1 total: 10.00ms\n\n\
             App{}{HEADER}    %kern\n    \
             {name}           1  10.00ms  10.00ms  10.00ms  10.00ms     60.0\n\n    \
             {name} *1 total: 10.00ms\n        \
             MPI Exchanges *1 total: 1.000ms (10.0%)\n        \
             Computation *1 total: 8.000ms (80.0%)\n            \
             Kernel *1 total: 6.000ms (60.0%)\n\n",
            " ".repeat(21 + 4 - 3),
        );
        assert_eq!(p.output(), expected);
    }

    #[test]
    fn level_three_kern_pct_falls_back_to_computation_or_zero() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        // Computation without a Kernel child: 3 of 4 ms.
        p.enter_kernel("a", "seq", "Direct", at(t, 0));
        p.enter("Computation", at(t, 1));
        p.exit(at(t, 4));
        p.exit(at(t, 4));
        // No Computation at all.
        p.enter_kernel("b", "seq", "Direct", at(t, 4));
        p.exit(at(t, 6));
        p.end(at(t, 6));
        let out = p.output();
        assert!(out.contains("4.000ms     75.0\n"), "{out}");
        assert!(out.contains("2.000ms      0.0\n"), "{out}");
        // The report does not add a Computation node to b.
        assert!(p.root().unwrap().children[1].children.is_empty());
    }

    #[test]
    fn level_three_details_only_four_slowest() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        for i in 0..6u64 {
            p.enter_kernel(&format!("k{i}"), "seq", "Direct", at(t, 10 * i));
            p.exit(at(t, 10 * i + i + 1));
        }
        p.end(at(t, 100));
        let out = p.output();
        for i in 0..6 {
            let detail = format!("\n    k{i}/seq/Direct *1");
            assert_eq!(out.contains(&detail), i >= 2, "k{i}: {out}");
        }
    }

    #[test]
    fn level_two_ignores_nested_kernels_level_three_records_them() {
        let t = Instant::now();
        for level in [2, 3] {
            let mut p = Profiler::new(level);
            p.start("App", at(t, 0));
            p.enter_kernel("outer", "seq", "Direct", at(t, 0));
            p.enter_kernel("inner", "seq", "Direct", at(t, 1));
            p.exit(at(t, 2));
            p.exit(at(t, 3));
            p.end(at(t, 3));
            let outer = &p.root().unwrap().children[0];
            assert_eq!(outer.clock.total, ms(3));
            if level == 2 {
                assert!(outer.children.is_empty());
            } else {
                assert_eq!(outer.children[0].name, "inner/seq/Direct");
                assert_eq!(outer.children[0].kind, NodeKind::Kernel);
            }
        }
    }

    #[test]
    fn more_than_twenty_kernels_truncates() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", us(t, 0));
        let mut clock = 0;
        for i in 0..25u64 {
            // k<i> takes (i + 1) microseconds, so k24 is slowest.
            p.enter_kernel(&format!("k{i:02}"), "seq", "Direct", us(t, clock));
            clock += i + 1;
            p.exit(us(t, clock));
        }
        p.end(us(t, clock));
        let out = p.output();
        let lines: Vec<&str> = out.lines().collect();
        // root line, blank, header, 20 rows, "(5 more)", blank
        assert_eq!(lines.len(), 25);
        assert!(lines[2].starts_with("App"));
        assert!(lines[3].starts_with("    k24/seq/Direct"));
        assert!(lines[22].starts_with("    k05/seq/Direct"));
        assert_eq!(lines[23], "    (5 more)");
        assert_eq!(lines[24], "");
        assert!(!out.contains("k04/seq"));
        assert!(out.ends_with("    (5 more)\n\n"));
    }

    #[test]
    fn exactly_twenty_kernels_has_no_more_line() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        for i in 0..20u64 {
            p.enter_kernel(&format!("k{i}"), "seq", "Direct", at(t, i));
            p.exit(at(t, i + 1));
        }
        p.end(at(t, 20));
        let out = p.output();
        assert!(!out.contains("more)"));
        assert_eq!(out.lines().count(), 2 + 1 + 20 + 1);
    }

    #[test]
    fn equal_totals_keep_entry_order() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        for (i, name) in ["b", "a", "c"].iter().enumerate() {
            let i = i as u64;
            p.enter_kernel(name, "seq", "Direct", at(t, i));
            p.exit(at(t, i + 1));
        }
        p.end(at(t, 3));
        let out = p.output();
        let b = out.find("    b/seq").unwrap();
        let a = out.find("    a/seq").unwrap();
        let c = out.find("    c/seq").unwrap();
        assert!(b < a && a < c);
    }

    // --------------------------------------------------------------- level 0

    #[test]
    fn level_zero_records_and_prints_nothing() {
        let t = Instant::now();
        let mut p = Profiler::new(0);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 2));
        p.next("B", at(t, 3));
        p.exit(at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));
        assert!(!p.is_started());
        assert!(p.root().is_none());
        assert_eq!(p.output(), "");
        assert_eq!(p.output_json(), None);

        let mut other = Profiler::new(1);
        other.start("App", at(t, 0));
        other.end(at(t, 1));
        p.merge(&other);
        assert!(p.root().is_none());
        assert_eq!(p.output(), "");
    }

    // ---------------------------------------------------------- unbalanced

    #[test]
    fn calls_before_start_are_ignored() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.enter("A", at(t, 0));
        p.enter_kernel("k", "seq", "Direct", at(t, 0));
        p.next("B", at(t, 0));
        p.exit(at(t, 1));
        p.exit(at(t, 1));
        p.end(at(t, 1));
        assert!(!p.is_started());
        assert_eq!(p.output(), "");
        assert_eq!(p.output_json(), None);
        assert_eq!(p.snapshot(), None);
        assert_eq!(p.current_section(), None);

        p.start("App", at(t, 2));
        p.end(at(t, 3));
        assert_eq!(p.output(), "App *1 total: 1.000ms\n\n");
    }

    #[test]
    fn extra_exit_never_closes_root() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.exit(at(t, 1));
        p.exit(at(t, 1));
        assert_eq!(p.depth(), 1);
        p.enter("A", at(t, 2));
        p.exit(at(t, 3));
        p.exit(at(t, 4)); // ignored
                          // next() at root depth only enters.
        p.next("B", at(t, 5));
        assert_eq!(p.current_section(), Some("B"));
        p.exit(at(t, 6));
        p.end(at(t, 10));
        let root = p.root().unwrap();
        assert_eq!(root.clock.n, 1);
        assert_eq!(root.clock.total, ms(10));
        assert_eq!(root.child("A").unwrap().clock.total, ms(1));
        assert_eq!(root.child("B").unwrap().clock.total, ms(1));
    }

    #[test]
    fn end_closes_open_sections_and_freezes() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 2));
        p.enter("MPI Exchanges", at(t, 3)); // ignored at level 2
        p.end(at(t, 10));
        let root = p.root().unwrap();
        let a = root.child("A").unwrap();
        assert_eq!(a.clock.total, ms(9));
        assert_eq!(a.child("k/seq/Direct").unwrap().clock.total, ms(8));
        assert_eq!(root.clock.total, ms(10));

        // Everything after end is ignored.
        let frozen = p.root().cloned();
        p.start("Again", at(t, 11));
        p.enter("C", at(t, 11));
        p.exit(at(t, 12));
        p.end(at(t, 13));
        assert_eq!(p.root().cloned(), frozen);
    }

    #[test]
    fn second_start_is_ignored() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.start("Other", at(t, 2));
        assert_eq!(p.current_section(), Some("A"));
        p.exit(at(t, 3));
        p.end(at(t, 4));
        assert_eq!(p.root().unwrap().name, "App");
    }

    #[test]
    fn output_while_open_uses_latest_instant_without_mutating() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("A", at(t, 1));
        p.exit(at(t, 3));
        p.enter("A", at(t, 4));
        p.enter("B", at(t, 6));
        assert_eq!(
            p.output(),
            "App *1 total: 6.000ms\n    \
             A *2 total: 4.000ms (average: 2.000ms, min: 2.000ms, max: 2.000ms)\n        \
             B *1 total: 0.000ns\n\n"
        );
        let json = p.output_json().unwrap();
        assert!(json.contains("\"name\":\"App\""));
        // Live tree untouched: A still has one completed interval.
        assert_eq!(p.root().unwrap().children[0].clock.n, 1);
        assert_eq!(p.root().unwrap().clock.n, 0);

        p.exit(at(t, 7));
        p.exit(at(t, 8));
        p.end(at(t, 9));
        assert_eq!(
            p.output(),
            "App *1 total: 9.000ms\n    \
             A *2 total: 6.000ms (average: 3.000ms, min: 2.000ms, max: 4.000ms)\n        \
             B *1 total: 1.000ms\n\n"
        );
    }

    #[test]
    fn earlier_instants_saturate_to_zero() {
        let t = Instant::now() + Duration::from_secs(1);
        let mut p = Profiler::new(1);
        p.start("App", at(t, 5));
        p.enter("A", at(t, 5));
        p.exit(t); // before the enter
        p.end(at(t, 6));
        let root = p.root().unwrap();
        assert_eq!(root.children[0].clock.total, Duration::ZERO);
        assert_eq!(root.clock.total, ms(1));
    }

    // ------------------------------------------------------------------ JSON

    #[test]
    fn json_layout_matches_op2() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", us(t, 0));
        p.enter_kernel("k", "seq", "Direct", us(t, 1));
        p.exit(us(t, 3));
        p.enter("S", us(t, 3));
        p.exit(us(t, 4));
        p.enter("S", us(t, 5));
        p.exit(us(t, 8));
        p.end(us(t, 10));
        assert_eq!(
            p.output_json().unwrap(),
            "{\"children\":[\
             {\"children\":[],\"clock\":{\"max\":2000,\"min\":2000,\"n\":1,\"total\":2000},\
             \"name\":\"k/seq/Direct\",\"num_ranks\":1,\"type\":1},\
             {\"children\":[],\"clock\":{\"max\":3000,\"min\":1000,\"n\":2,\"total\":4000},\
             \"name\":\"S\",\"num_ranks\":1,\"type\":0}],\
             \"clock\":{\"max\":10000,\"min\":10000,\"n\":1,\"total\":10000},\
             \"name\":\"App\",\"num_ranks\":1,\"type\":0}"
        );
    }

    #[test]
    fn json_string_escaping() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c/d\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}é∑😀");
        assert_eq!(
            s,
            "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}é∑😀\""
        );
        let mut node = Node::new("x\"y\nz");
        node.clock.submit(ns(5));
        let json = node.to_json();
        assert!(json.contains("\"name\":\"x\\\"y\\nz\""), "{json}");
    }

    #[test]
    fn json_round_trip() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("Ap\"p\u{2}é", at(t, 0));
        seq_loop(
            &mut p,
            "res\\calc",
            "Indirect",
            t,
            [1_000, 2_000, 3_000, 3_500],
        );
        p.enter("user", at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));
        let tree = p.snapshot().unwrap();
        let back = Node::from_json(&p.output_json().unwrap()).unwrap();
        assert_eq!(back, tree);
    }

    #[test]
    fn json_parse_accepts_any_key_order_and_defaults() {
        let text = r#" {
            "name": "R\u00e9\ud83d\ude00\/",
            "extra": [null, true, false, -1.5e3, {"x": "y"}],
            "children": [
                {"type": 1, "name": "k", "children": [], "num_ranks": 3,
                 "clock": {"total": 2e3, "n": 1, "min": 2000, "max": 2000}}
            ],
            "clock": {"n": 1, "total": 10, "min": 10, "max": 10}
        } "#;
        let node = Node::from_json(text).unwrap();
        assert_eq!(node.name, "Ré😀/");
        assert_eq!(node.kind, NodeKind::Standard);
        assert_eq!(node.num_ranks, 1);
        assert_eq!(node.clock.total, ns(10));
        let k = &node.children[0];
        assert_eq!((k.kind, k.num_ranks), (NodeKind::Kernel, 3));
        assert_eq!(k.clock.total, ns(2000));
    }

    #[test]
    fn json_parse_errors() {
        let good_clock = r#""clock":{"n":1,"total":1,"min":1,"max":1}"#;
        let cases = [
            String::new(),
            "{".to_string(),
            "[]".to_string(),
            format!(r#"{{"name":"a",{good_clock}}}"#),
            format!(r#"{{"name":"a",{good_clock},"children":[]}} x"#),
            format!(r#"{{"name":1,{good_clock},"children":[]}}"#),
            format!(r#"{{"name":"a",{good_clock},"children":[],"type":2}}"#),
            r#"{"name":"a","clock":{"n":-1,"total":1,"min":1,"max":1},"children":[]}"#.to_string(),
            format!(r#"{{"name":"a\q",{good_clock},"children":[]}}"#),
            format!(r#"{{"name":"\ud800",{good_clock},"children":[]}}"#),
            format!("{{\"name\":\"a\nb\",{good_clock},\"children\":[]}}"),
            format!(r#"{{"name":"a",{good_clock},"children":[1]}}"#),
            format!(r#"{{"name":"a",{good_clock},"children":[],}}"#),
            "[".repeat(10_000),
        ];
        for case in &cases {
            assert!(Node::from_json(case).is_err(), "accepted: {case:?}");
        }
        let err = Node::from_json("{").unwrap_err();
        assert!(err.to_string().starts_with("invalid profile JSON at byte"));
    }

    // ----------------------------------------------------------------- merge

    fn rank_profile(t: Instant, scale: u64, extra: bool) -> Profiler {
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

    #[test]
    fn merge_sums_counts_and_takes_min_max() {
        let t = Instant::now();
        let mut a = rank_profile(t, 1, false);
        let b = rank_profile(t, 10, true);
        a.merge(&b);
        let root = a.root().unwrap();
        assert_eq!(root.num_ranks, 2);
        assert_eq!((root.clock.n, root.clock.total), (2, ms(55)));
        assert_eq!((root.clock.min, root.clock.max), (ms(5), ms(50)));
        let k = root.child("k/seq/Direct").unwrap();
        assert_eq!(k.kind, NodeKind::Kernel);
        assert_eq!(k.num_ranks, 2);
        assert_eq!((k.clock.n, k.clock.total), (4, ms(33)));
        assert_eq!((k.clock.min, k.clock.max), (ms(1), ms(20)));
        let only = root.child("Only here").unwrap();
        assert_eq!(only.num_ranks, 1);
        assert_eq!(only.clock.total, ms(10));
        assert_eq!(root.children.last().unwrap().name, "Only here");
        assert!(a
            .output()
            .contains("    k/seq/Direct           4  33.00ms  8.250ms  1.000ms  20.00ms\n"));
    }

    #[test]
    fn merge_is_symmetric_in_statistics() {
        let t = Instant::now();
        let mut ab = rank_profile(t, 1, false);
        ab.merge(&rank_profile(t, 3, true));
        let mut ba = rank_profile(t, 3, true);
        ba.merge(&rank_profile(t, 1, false));
        let x = ab.root().unwrap();
        let y = ba.root().unwrap();
        assert_eq!(x.clock, y.clock);
        for child in &x.children {
            assert_eq!(Some(&child.clock), y.child(&child.name).map(|c| &c.clock));
        }
    }

    #[test]
    fn merge_kind_and_json_path() {
        let mut a = Node::new("App");
        a.clock.submit(ms(1));
        let mut s = Node::new("x");
        s.clock.submit(ms(1));
        a.children.push(s);
        let mut b = a.clone();
        b.children[0].kind = NodeKind::Kernel;

        let mut p = Profiler::new(1);
        let t = Instant::now();
        p.start("App", at(t, 0));
        p.end(at(t, 1));
        p.merge_tree(&a);
        p.merge_json(&b.to_json()).unwrap();
        let root = p.root().unwrap();
        assert_eq!(root.num_ranks, 3);
        assert_eq!(root.children[0].kind, NodeKind::Kernel);
        assert_eq!(root.children[0].clock.n, 2);
        assert!(p.merge_json("not json").is_err());
        assert_eq!(p.root().unwrap().num_ranks, 3);
    }

    #[test]
    fn merge_into_unstarted_adopts_and_running_stays_open() {
        let t = Instant::now();
        let other = rank_profile(t, 1, true);

        let mut fresh = Profiler::new(2);
        fresh.merge(&other);
        assert!(fresh.is_finished());
        assert_eq!(fresh.output(), other.output());
        fresh.enter("late", at(t, 100)); // ignored: adopted trees are final
        assert_eq!(fresh.root(), other.root());

        let mut running = Profiler::new(2);
        running.start("App", at(t, 0));
        running.enter("A", at(t, 1));
        running.merge(&other);
        running.exit(at(t, 2));
        running.end(at(t, 3));
        let root = running.root().unwrap();
        assert_eq!(root.child("A").unwrap().clock.total, ms(1));
        assert_eq!(root.clock.n, 2);

        // Merging an unstarted profiler changes nothing.
        let before = running.root().cloned();
        running.merge(&Profiler::new(2));
        assert_eq!(running.root().cloned(), before);
    }

    #[test]
    fn merge_uses_snapshot_of_running_other() {
        let t = Instant::now();
        let mut other = Profiler::new(1);
        other.start("App", at(t, 0));
        other.enter("A", at(t, 1));
        other.enter("B", at(t, 4)); // stays open; latest = 4ms
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.end(at(t, 1));
        p.merge(&other);
        let root = p.root().unwrap();
        assert_eq!(root.clock.total, ms(5));
        assert_eq!(root.child("A").unwrap().clock.total, ms(3));
        assert_eq!(root.child("A").unwrap().child("B").unwrap().clock.n, 1);
    }
}
