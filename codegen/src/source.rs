//! The kernel's C source as far as the generator needs it: where the
//! kernel function is defined and the types of its parameters (vector map
//! arguments get an array of pointers of exactly the parameter's pointee
//! type, whatever its spelling: `const double **`, `double const *const *`).

/// A parameter: its declared type (the declaration without the name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub ty: String,
    pub name: String,
}

/// Blank out comments and string/char literals (same length, newlines
/// kept), so that searching the text finds only code.
pub fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                out.push(' ');
                i += 1;
            }
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            let end = src[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            for c in src[i..end].chars() {
                if c == '\n' {
                    out.push('\n');
                } else {
                    // one blank per byte: offsets into the result are offsets into `src`
                    out.extend(std::iter::repeat_n(' ', c.len_utf8()));
                }
            }
            i = end;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != q {
                if b[i] == b'\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(if b[i] == b'\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
            if i < b.len() {
                out.push(' ');
                i += 1;
            }
        } else {
            // multi-byte UTF-8 only appears in comments and strings in C
            let c = src[i..].chars().next().unwrap_or(' ');
            if c.is_ascii() {
                out.push(c);
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident_byte(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric()
}

/// The parameters of the definition of function `name` in `src` (the
/// first `name(...)` followed by `{`), or `None` when there is none.
pub fn kernel_params(src: &str, name: &str) -> Option<Vec<Param>> {
    let code = code_only(src);
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(p) = code[from..].find(name) {
        let s = from + p;
        let e = s + name.len();
        from = e;
        if (s > 0 && is_ident_byte(b[s - 1])) || (e < b.len() && is_ident_byte(b[e])) {
            continue;
        }
        let mut i = e;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] != b'(' {
            continue;
        }
        let open = i;
        let mut depth = 0;
        let mut close = None;
        for (k, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let close = close?;
        let mut j = close + 1;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if j >= b.len() || b[j] != b'{' {
            continue; // a declaration or a call
        }
        return Some(split_params(&code[open + 1..close]));
    }
    None
}

fn split_params(list: &str) -> Vec<Param> {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    let b = list.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(one_param(&list[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(one_param(&list[start..]));
    out
}

fn one_param(p: &str) -> Param {
    let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
    // `T name[N]` is a pointer parameter
    let (p, arr) = match p.find('[') {
        Some(k) => (p[..k].trim().to_string(), true),
        None => (p, false),
    };
    let b = p.as_bytes();
    let mut k = b.len();
    while k > 0 && is_ident_byte(b[k - 1]) {
        k -= 1;
    }
    let (mut ty, name) = (p[..k].trim().to_string(), p[k..].to_string());
    if arr {
        ty.push_str(" *");
    }
    Param { ty, name }
}

/// C standard headers whose functions the device dialects provide as
/// built-ins (`sqrt`, `fabs`, `fmin`, ...): their `#include` lines are
/// dropped from the kernel's source (OpenCL C has no headers; NVRTC has
/// no system include path).
const SYSTEM_HEADERS: [&str; 14] = [
    "math.h",
    "cmath",
    "stdlib.h",
    "cstdlib",
    "stdio.h",
    "cstdio",
    "string.h",
    "cstring",
    "float.h",
    "cfloat",
    "limits.h",
    "climits",
    "stdbool.h",
    "stdint.h",
];

/// C++ standard functions a kernel may call qualified (`std::sqrt`) whose
/// unqualified names both device dialects provide as built-ins.
const STD_BUILTINS: [&str; 13] = [
    "fabs", "sqrt", "pow", "exp", "log", "sin", "cos", "tan", "floor", "ceil", "fmin", "fmax",
    "atan2",
];

/// `std::min` and `std::max` become macros of the generated prelude with
/// their exact C++ definitions (`std::min(a, b)` is `b < a ? b : a`), so a
/// kernel parameter named `min` (OP2-Common's min apps) cannot hide them.
/// `std::abs` becomes `op2_std_abs`, overloaded as C++'s is
/// ([`std_abs_defs`]): a device's plain `abs` is `int abs(int)` (OpenCL C
/// has no other; a C++ compiler that sees only C's would truncate a
/// `double` without a word).
const STD_MACROS: [(&str, &str); 3] = [
    ("min", "op2_std_min"),
    ("max", "op2_std_max"),
    ("abs", "op2_std_abs"),
];

/// `op2_std_abs` for the dialect: C++'s overloads of `std::abs` for `int`,
/// `long`, `long long`, `float` and `double` (OpenCL C: clang's
/// `overloadable`, its `long` being C++'s `long long`).
pub fn std_abs_defs(opencl: bool) -> String {
    let (attr, types): (&str, &[(&str, &str)]) = if opencl {
        (
            "static inline __attribute__((overloadable)) ",
            &[
                ("int", "x < 0 ? -x : x"),
                ("long", "x < 0 ? -x : x"),
                ("float", "fabs(x)"),
                ("double", "fabs(x)"),
            ],
        )
    } else {
        (
            "static inline ",
            &[
                ("int", "x < 0 ? -x : x"),
                ("long", "x < 0 ? -x : x"),
                ("long long", "x < 0 ? -x : x"),
                ("float", "fabsf(x)"),
                ("double", "fabs(x)"),
            ],
        )
    };
    types
        .iter()
        .map(|(t, e)| format!("{attr}{t} op2_std_abs({t} x) {{ return {e}; }}\n"))
        .collect()
}

/// The prelude's definitions of [`STD_MACROS`].
pub const STD_MACRO_DEFS: &str = "#define op2_std_min(a, b) ((b) < (a) ? (b) : (a))\n\
     #define op2_std_max(a, b) ((a) < (b) ? (b) : (a))\n";

/// `std::sqrt(` -> `sqrt(` for the [`STD_BUILTINS`] (blank space keeps the
/// columns), `std::min(` -> `op2_std_min(` ([`STD_MACROS`]).
fn unqualify_std(line: &str) -> String {
    let mut out = line.to_string();
    let joined = |s: &str, i: usize| i > 0 && is_ident_byte(s.as_bytes()[i - 1]);
    for f in STD_BUILTINS {
        let q = format!("std::{f}(");
        while let Some(i) = out.find(&q) {
            if joined(&out, i) {
                break;
            }
            out.replace_range(i..i + 5, "     ");
        }
    }
    for (f, m) in STD_MACROS {
        let q = format!("std::{f}(");
        while let Some(i) = out.find(&q) {
            if joined(&out, i) {
                break;
            }
            out.replace_range(i..i + q.len() - 1, m);
        }
    }
    out
}

/// The kernel's source as the device compiles it: `#include <h>` of the
/// [`SYSTEM_HEADERS`] turned into comments (line numbers kept), and
/// `std::` taken off the standard functions the dialects provide
/// ([`STD_BUILTINS`]).
pub fn device_source(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for l in src.split_inclusive('\n') {
        let l = &unqualify_std(l);
        let t = l.trim_start();
        let dropped = t
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("include"))
            .map(str::trim)
            .and_then(|r| r.strip_prefix('<'))
            .and_then(|r| r.split_once('>'))
            .is_some_and(|(h, _)| SYSTEM_HEADERS.contains(&h.trim()));
        if dropped {
            out.push_str("// op2-rs: dropped (a device built-in): ");
        }
        out.push_str(l);
    }
    out
}

/// Words OpenCL C reserves that C and C++ leave to programs (address
/// spaces and access qualifiers without their underscores, `half`,
/// `complex`, vector and image types): a kernel's `double local` or
/// `half` would not compile as OpenCL C.
fn opencl_reserved(w: &str) -> bool {
    const WORDS: [&str; 19] = [
        "global",
        "local",
        "constant",
        "private",
        "generic",
        "kernel",
        "read_only",
        "write_only",
        "read_write",
        "uniform",
        "pipe",
        "half",
        "complex",
        "imaginary",
        "image1d_t",
        "image2d_t",
        "image3d_t",
        "sampler_t",
        "event_t",
    ];
    const SCALARS: [&str; 11] = [
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
        "half",
    ];
    WORDS.contains(&w)
        || SCALARS.iter().any(|t| {
            w.strip_prefix(t)
                .is_some_and(|n| matches!(n, "2" | "3" | "4" | "8" | "16"))
        })
}

/// The kernel's identifiers that OpenCL C reserves ([`opencl_reserved`])
/// renamed `op2_<word>`, wherever the code (not its comments and strings)
/// has them.
pub fn opencl_identifiers(src: &str) -> String {
    let code = code_only(src);
    let b = code.as_bytes();
    let mut out = String::with_capacity(src.len());
    let (mut at, mut i) = (0, 0);
    while i < b.len() {
        if is_ident_byte(b[i]) && (i == 0 || !is_ident_byte(b[i - 1])) {
            let n = b[i..].iter().take_while(|c| is_ident_byte(**c)).count();
            if !b[i].is_ascii_digit() && opencl_reserved(&code[i..i + n]) {
                out.push_str(&src[at..i]);
                out.push_str("op2_");
                at = i;
            }
            i += n;
        } else {
            i += 1;
        }
    }
    out.push_str(&src[at..]);
    out
}

/// C's `long long` (64 bits on every host OP2 runs on) as OpenCL C's
/// `long`, which is 64 bits: OpenCL C reserves `long long` for 128 bits,
/// and PoCL's compiler takes it so (`sizeof(long long)` is 16 there), so
/// a kernel's `long long *` would read an `ll` dat's 8-byte values two at
/// a time. Code only: comments and strings stay as they are.
pub fn opencl_long_long(src: &str) -> String {
    let code = code_only(src);
    let b = code.as_bytes();
    let word_at = |i: usize| -> Option<usize> {
        if i < b.len() && is_ident_byte(b[i]) && (i == 0 || !is_ident_byte(b[i - 1])) {
            Some(b[i..].iter().take_while(|c| is_ident_byte(**c)).count())
        } else {
            None
        }
    };
    let mut out = String::with_capacity(src.len());
    let (mut at, mut i) = (0, 0);
    while i < b.len() {
        let Some(n) = word_at(i) else {
            i += 1;
            continue;
        };
        if &code[i..i + n] == "long" {
            let mut j = i + n;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if word_at(j).is_some_and(|m| &code[j..j + m] == "long") {
                // drop the second `long` and the blanks before it
                out.push_str(&src[at..i + n]);
                at = j + 4;
                i = j + 4;
                continue;
            }
        }
        i += n;
    }
    out.push_str(&src[at..]);
    out
}

/// The `<stdint.h>` names the kernel's code uses (`int64_t`, `uint32_t`,
/// ...), as typedefs of the types glibc gives them on the LP64 hosts OP2
/// runs on: the device compilers have no `<stdint.h>` (its `#include` is
/// not part of the generated code). A name the code typedefs itself is
/// left to it. OpenCL C's `char` is signed and its `long` 64 bits.
pub fn stdint_typedefs(code: &str, opencl: bool) -> String {
    const NAMES: [(&str, &str, &str); 8] = [
        ("int8_t", "char", "signed char"),
        ("uint8_t", "uchar", "unsigned char"),
        ("int16_t", "short", "short"),
        ("uint16_t", "ushort", "unsigned short"),
        ("int32_t", "int", "int"),
        ("uint32_t", "uint", "unsigned int"),
        ("int64_t", "long", "long"),
        ("uint64_t", "ulong", "unsigned long"),
    ];
    let b = code.as_bytes();
    let mut out = String::new();
    for (name, cl, cu) in NAMES {
        let mut used = false;
        let mut own = false;
        for (i, _) in code.match_indices(name) {
            if !whole_word(b, i, name.len()) {
                continue;
            }
            used = true;
            // `typedef ... name;`: the statement before it says typedef
            let after = code[i + name.len()..].trim_start();
            let start = code[..i].rfind([';', '{', '}']).map_or(0, |k| k + 1);
            if after.starts_with(';') && code[start..i].split_whitespace().next() == Some("typedef")
            {
                own = true;
            }
        }
        if used && !own {
            out += &format!("typedef {} {name};\n", if opencl { cl } else { cu });
        }
    }
    out
}

/// OpenCL C 1.2's storage rules applied to the kernel's source (C and C++
/// allow what it does not): a constant of file scope with its initializer
/// (`static const double w = 0.5;`, `const double c[2] = {...};`) becomes
/// `__constant` (OpenCL's program-scope variables live there), and a
/// function's `static const` local loses `static` (OpenCL has no static
/// locals; a constant initialised on every call computes the same). What
/// else is `static` stays, and the device compiler says why it cannot
/// take it.
pub fn opencl_storage(src: &str) -> String {
    let code = code_only(src);
    let b = code.as_bytes();
    // (offset, length of the words replaced, replacement)
    let mut edits: Vec<(usize, usize, &str)> = Vec::new();
    let (mut depth, mut i) = (0usize, 0usize);
    // at the start of a declaration or statement; at the start of a line
    let (mut stmt, mut line_start) = (true, true);
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            // a preprocessor line (and its continuations)
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            stmt = true;
            continue;
        }
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'{' | b'}' | b';' => {
                if c == b'{' {
                    depth += 1;
                } else if c == b'}' {
                    depth = depth.saturating_sub(1);
                }
                stmt = true;
            }
            _ if c.is_ascii_whitespace() => {}
            _ if stmt && is_ident_byte(c) => {
                stmt = false;
                let words = leading_words(&code[i..]);
                let stat = words.contains(&"static");
                let is_var = words.contains(&"const") && initialised_variable(&code[i..]);
                let span = words_span(&code[i..], words.len());
                if depth == 0 && is_var {
                    edits.push((i, span, "__constant"));
                } else if depth > 0 && stat && is_var {
                    edits.push((i, span, "const"));
                }
            }
            _ => stmt = false,
        }
        i += 1;
    }
    let mut out = String::with_capacity(src.len() + 16 * edits.len());
    let mut at = 0;
    for (o, len, with) in edits {
        out.push_str(&src[at..o]);
        out.push_str(with);
        at = o + len;
    }
    out.push_str(&src[at..]);
    out
}

/// The storage words (`static`, `const`) a declaration starts with.
fn leading_words(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    loop {
        let t = rest.trim_start();
        let n = t.bytes().take_while(|c| is_ident_byte(*c)).count();
        let w = &t[..n];
        if w != "static" && w != "const" {
            return out;
        }
        out.push(w);
        rest = &t[n..];
    }
}

/// The length of the first `n` words of `code` with the blanks between.
fn words_span(code: &str, n: usize) -> usize {
    let mut at = 0;
    for k in 0..n {
        let t = &code[at..];
        let skip = if k == 0 {
            0
        } else {
            t.len() - t.trim_start().len()
        };
        let w = t[skip..].bytes().take_while(|c| is_ident_byte(*c)).count();
        at += skip + w;
    }
    at
}

/// Whether the declaration starting `code` is a variable with an
/// initializer: `=` comes before any `(`, `;` or `{`.
fn initialised_variable(code: &str) -> bool {
    code.bytes()
        .find(|c| matches!(c, b'=' | b'(' | b';' | b'{'))
        == Some(b'=')
}

/// The type a vector argument's pointer array holds: the parameter's type
/// with its last `*` removed (`const double **` -> `const double *`).
pub fn pointee(ty: &str) -> Option<String> {
    let k = ty.rfind('*')?;
    Some(ty[..k].trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
// res_calc(a, b) is mentioned in a comment
/* and here: void res_calc(int x) { } */
inline void helper(const double *q, double *p) { *p = q[0]; }
void res_calc(int n);
inline void res_calc(const double *x1, double const *const *q,
                     double res[4], int *idx) {
  const char *s = "res_calc(";
  helper(x1, res);
}
"#;

    #[test]
    fn finds_the_definition_and_its_parameter_types() {
        let p = kernel_params(SRC, "res_calc").expect("found");
        let got: Vec<(&str, &str)> = p.iter().map(|p| (p.ty.as_str(), p.name.as_str())).collect();
        assert_eq!(
            got,
            [
                ("const double *", "x1"),
                ("double const *const *", "q"),
                ("double *", "res"),
                ("int *", "idx")
            ]
        );
        assert_eq!(pointee(&p[1].ty).as_deref(), Some("double const *const"));
        assert_eq!(kernel_params(SRC, "helper").map(|p| p.len()), Some(2));
        assert_eq!(kernel_params(SRC, "res_cal"), None);
        assert_eq!(kernel_params(SRC, "absent"), None);
    }

    #[test]
    fn system_headers_are_dropped_and_others_kept() {
        let s =
            "#include <math.h>\n  #  include <cmath>\n#include \"res.h\"\n#include <vector>\nx\n";
        assert_eq!(
            device_source(s),
            "// op2-rs: dropped (a device built-in): #include <math.h>\n// op2-rs: dropped (a device built-in):   #  include <cmath>\n#include \"res.h\"\n#include <vector>\nx\n"
        );
    }

    #[test]
    fn comments_and_strings_are_blanked_in_place() {
        let s = "a /* b\nc */ d // e\n\"f(\\\"\" g";
        let c = code_only(s);
        assert_eq!(c.len(), s.len());
        assert_eq!(c.lines().count(), s.lines().count());
        assert!(c.contains('a') && c.contains('d') && c.contains('g'));
        assert!(!c.contains('b') && !c.contains('e') && !c.contains('f'));
    }
}

/// The functions defined at file scope in `code` (a [`code_only`] text):
/// name and byte span (from the start of the declaration to the closing
/// brace).
fn functions(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut decl_start, mut i) = (0usize, 0usize, 0usize);
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if depth == 0 && line_start && c == b'#' {
            // a preprocessor line (with continuations) ends a declaration
            while i < b.len() && !(b[i] == b'\n' && (i == 0 || b[i - 1] != b'\\')) {
                i += 1;
            }
            decl_start = i + 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'\n' => line_start = true,
            b';' if depth == 0 => decl_start = i + 1,
            b'{' => {
                if depth == 0 {
                    if let Some(name) = defined_name(&code[decl_start..i]) {
                        let end = matching_brace(b, i);
                        // from its first word (not the comments before it)
                        while b[decl_start].is_ascii_whitespace() {
                            decl_start += 1;
                        }
                        out.push((name, decl_start..end));
                        i = end;
                        decl_start = end;
                        continue;
                    }
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    decl_start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Where the `(` is that the `)` at byte `close` of `text` closes (0 when
/// none does: the search stops at the start).
pub fn opening_paren(text: &str, close: usize) -> usize {
    let b = text.as_bytes();
    let mut depth = 0;
    let mut k = close + 1;
    while k > 0 {
        k -= 1;
        match b[k] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    k
}

/// The name a declaration head `T name(params)` defines, if it is one.
fn defined_name(head: &str) -> Option<String> {
    let h = head.trim_end();
    let inner = h.strip_suffix(')')?;
    let k = opening_paren(h, h.len() - 1);
    let before = inner[..k].trim_end();
    let nb = before.as_bytes();
    let mut s = nb.len();
    while s > 0 && is_ident_byte(nb[s - 1]) {
        s -= 1;
    }
    let name = &before[s..];
    let keyword = ["if", "for", "while", "switch", "return", "sizeof"].contains(&name);
    (!name.is_empty()
        && !keyword
        && !name.as_bytes()[0].is_ascii_digit()
        && !before[..s].trim().is_empty())
    .then(|| name.to_string())
}

/// The offset after the `}` that closes the `{` at `open`.
fn matching_brace(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// What a device needs of a source file (not a header) that defines
/// `kernel`: its `#define` lines, and the definitions of the kernel and of
/// the file's functions it calls (transitively), in file order. The rest
/// of a program's main file (its `main`, C++ containers, I/O) is left out:
/// a device compiler could not take it.
pub fn kernel_part(src: &str, kernel: &str) -> Option<String> {
    let code = code_only(src);
    let funcs = functions(&code);
    let mut keep = vec![false; funcs.len()];
    let mut work: Vec<usize> = funcs
        .iter()
        .position(|(n, _)| n == kernel)
        .into_iter()
        .collect();
    work.first()?;
    while let Some(f) = work.pop() {
        if keep[f] {
            continue;
        }
        keep[f] = true;
        let body = &code[funcs[f].1.clone()];
        for (g, (name, _)) in funcs.iter().enumerate() {
            if !keep[g] && mentions_ident(body, name) {
                work.push(g);
            }
        }
    }
    let mut out = String::new();
    let mut cont = false;
    for l in src.split_inclusive('\n') {
        let t = l.trim_start();
        if cont || (t.starts_with('#') && t[1..].trim_start().starts_with("define")) {
            out.push_str(l);
            cont = l.trim_end().ends_with('\\');
        }
    }
    for (f, (_, span)) in funcs.iter().enumerate() {
        if keep[f] {
            out.push_str(&src[span.clone()]);
            out.push('\n');
        }
    }
    Some(out)
}

/// Where the definitions of function `name` in `code` (comments and
/// literals blanked) name it: offsets, in file order.
pub fn definitions(code: &str, name: &str) -> Vec<usize> {
    let b = code.as_bytes();
    functions(code)
        .into_iter()
        .filter(|(n, _)| n == name)
        .filter_map(|(_, span)| {
            code[span.clone()]
                .match_indices(name)
                .map(|(i, _)| span.start + i)
                .find(|&i| whole_word(b, i, name.len()))
        })
        .collect()
}

/// Where `code` (comments and literals blanked) defines type `name` at
/// file scope: `typedef ... name;`, `struct name { ... };` (or `union`,
/// `enum`), `using name = ...;`; the declaration's span.
pub fn type_definition(code: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let b = code.as_bytes();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' && depth == 0 {
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            start = i;
            continue;
        }
        line_start = c == b'\n' || (line_start && c.is_ascii_whitespace());
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                // a function's body ends its definition (no `;` follows)
                let head = &code[start..i];
                if depth == 0
                    && head
                        .find('(')
                        .is_some_and(|p| head.find('{').is_some_and(|q| p < q))
                {
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                let decl = code[start..i].trim();
                if declares_type(decl, name) {
                    let lead = code[start..i].len() - code[start..i].trim_start().len();
                    return Some(start + lead..i + 1);
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Does declaration `decl` (no `;`) define type `name`?
fn declares_type(decl: &str, name: &str) -> bool {
    let words: Vec<&str> = decl
        .split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    match words.first().copied() {
        Some("typedef") => {
            // the declarator's name: the last word outside brackets
            // (`typedef double vec[3];`, `typedef struct { ... } pt;`)
            let outer = decl.rfind('}').map_or(decl, |k| &decl[k + 1..]);
            let outer = outer.split('[').next().unwrap_or(outer);
            let last = outer
                .split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
                .rfind(|w| !w.is_empty());
            last == Some(name)
        }
        Some("struct" | "union" | "enum") => words.get(1) == Some(&name) && decl.contains('{'),
        Some("using") => words.get(1) == Some(&name) && decl.contains('='),
        _ => false,
    }
}

/// Is `b[i..i + len]` a whole word (no identifier byte on either side)?
fn whole_word(b: &[u8], i: usize, len: usize) -> bool {
    let e = i + len;
    let joined_before = i > 0 && is_ident_byte(b[i - 1]);
    let joined_after = e < b.len() && is_ident_byte(b[e]);
    !joined_before && !joined_after
}

/// Does `name` occur in `code` as a whole identifier?
pub fn mentions_ident(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    code.match_indices(name)
        .any(|(i, _)| whole_word(b, i, name.len()))
}

#[cfg(test)]
mod part_tests {
    use super::*;

    #[test]
    fn words_opencl_reserves_are_renamed_in_code_only() {
        let src = "double local = 1, half = 0.5; /* local */ float2 v; int float22;\n\
                   const char *s = \"global\"; uint n; kernel(global, x_local);\n";
        assert_eq!(
            opencl_identifiers(src),
            "double op2_local = 1, op2_half = 0.5; /* local */ op2_float2 v; int float22;\n\
             const char *s = \"global\"; uint n; op2_kernel(op2_global, x_local);\n"
        );
    }

    #[test]
    fn type_definitions_at_file_scope() {
        let src = "#include <math.h>\ntypedef double real;\nstruct pair { double a, b; };\n\
                   typedef struct { int n; } counter;\ntypedef float vec3[3];\n\
                   static int f(int x) { return x; }\nusing idx = int;\nstruct fwd;\n\
                   void g(real *r) { struct pair p = {1, 2}; *r = p.a; }\n";
        let code = code_only(src);
        let span = |n: &str| type_definition(&code, n).map(|r| &src[r]);
        assert_eq!(span("real"), Some("typedef double real;"));
        assert_eq!(span("pair"), Some("struct pair { double a, b; };"));
        assert_eq!(span("counter"), Some("typedef struct { int n; } counter;"));
        assert_eq!(span("vec3"), Some("typedef float vec3[3];"));
        assert_eq!(span("idx"), Some("using idx = int;"));
        assert_eq!(span("fwd"), None);
        assert_eq!(span("f"), None);
        assert_eq!(span("g"), None);
    }

    #[test]
    fn opencl_takes_constants_of_file_scope_and_no_static_locals() {
        let src = "#define K(x) \\\n  static x\nstatic const double PI = 3.25; // pi-ish\n\
                   const double W[2] = {0.25, 0.75};\nconst static int N = 3;\n\
                   static double count = 0;\nconst double *pick(const double *a) { return a; }\n\
                   static inline void k(const double *x, double *y) {\n\
                   \x20 static const double w[2] = {0.5, 1.5};\n  const double v = 2.0;\n\
                   \x20 for (int i = 0; i < 2; i++) y[0] += w[i] * x[i] * v * PI;\n}\n\
                   /* static const double c = 1; */\n";
        let out = opencl_storage(src);
        let want = "#define K(x) \\\n  static x\n__constant double PI = 3.25; // pi-ish\n\
                    __constant double W[2] = {0.25, 0.75};\n__constant int N = 3;\n\
                    static double count = 0;\nconst double *pick(const double *a) { return a; }\n\
                    static inline void k(const double *x, double *y) {\n\
                    \x20 const double w[2] = {0.5, 1.5};\n  const double v = 2.0;\n\
                    \x20 for (int i = 0; i < 2; i++) y[0] += w[i] * x[i] * v * PI;\n}\n\
                    /* static const double c = 1; */\n";
        assert_eq!(out, want);
    }

    const MAIN: &str = "#include <vector>\n#include \"op_seq.h\"\n#define SQ(x) ((x) * (x))\n#define LONG(a) \\\n  ((a) + 1)\nstatic double helper(double x) { return SQ(x); }\nstatic double unused(double x) { return x; }\n// a comment with { braces } and é\nvoid kern(const double *a, double *b) {\n  if (a[0] > 0) { *b += helper(a[0]); }\n}\nstruct S { int x; };\nint main(int argc, char **argv) {\n  std::vector<double> v(3);\n  return 0;\n}\n";

    #[test]
    fn a_source_file_gives_its_kernel_part_only() {
        let p = kernel_part(MAIN, "kern").unwrap();
        assert!(
            p.contains("#define SQ(x)") && p.contains("  ((a) + 1)"),
            "{p}"
        );
        assert!(p.contains("static double helper"), "{p}");
        assert!(p.contains("void kern(const double *a, double *b) {"), "{p}");
        assert!(
            !p.contains("unused") && !p.contains("main") && !p.contains("vector"),
            "{p}"
        );
        assert!(p.find("helper(double").unwrap() < p.find("void kern").unwrap());
        assert!(kernel_part(MAIN, "nothere").is_none());
    }

    #[test]
    fn std_functions_lose_their_qualifier() {
        let d = device_source("  *m = std::min(*d, *m) + std::fabs(x) + mystd::min(y);\n");
        assert_eq!(
            d,
            "  *m = op2_std_min(*d, *m) +      fabs(x) + mystd::min(y);\n"
        );
    }

    #[test]
    fn blanked_code_keeps_byte_offsets() {
        let s = "/* é */ int x; // ü\nchar *s = \"ß\";\n";
        assert_eq!(code_only(s).len(), s.len());
    }

    #[test]
    fn long_long_becomes_opencl_long() {
        let s = "inline void k(const long long *a, unsigned long long b[2],\n\
                 long  \n long int *c, long *d) {\n\
                 /* long long */ const char *t = \"long long\"; longlong x; long long_y;\n\
                 b[0] = sizeof(long long) + (unsigned long long)1ll; }\n";
        let r = opencl_long_long(s);
        assert_eq!(
            r,
            "inline void k(const long *a, unsigned long b[2],\n\
             long int *c, long *d) {\n\
             /* long long */ const char *t = \"long long\"; longlong x; long long_y;\n\
             b[0] = sizeof(long) + (unsigned long)1ll; }\n"
        );
        // nothing to change: the same text
        assert_eq!(opencl_long_long("long x; int y;"), "long x; int y;");
    }

    #[test]
    fn stdint_names_become_typedefs_unless_the_code_has_its_own() {
        let code = "void k(int64_t *a, const uint32_t *b, my_int64_t *c) {\n\
                    /* int8_t */ a[0] += b[0]; }\n\
                    typedef unsigned char uint8_t; static uint8_t z;\n";
        let c = code_only(code);
        assert_eq!(
            stdint_typedefs(&c, true),
            "typedef uint uint32_t;\ntypedef long int64_t;\n"
        );
        assert_eq!(
            stdint_typedefs(&c, false),
            "typedef unsigned int uint32_t;\ntypedef long int64_t;\n"
        );
        assert_eq!(stdint_typedefs("int x;", true), "");
    }
}
