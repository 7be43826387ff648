//! Finding a kernel's source on disk: the first file in the search path
//! that **defines** the kernel function (headers before sources, then by
//! name, directory by directory), with the local headers it includes
//! (`#include "..."`) inlined once each, so that the macros and helper
//! functions it uses come along. OP2's own headers (`op_*.h`, `op2_*.h`)
//! are not inlined (the kernel needs nothing of them on a device); system
//! headers stay as written, for [`crate::source::device_source`] to drop
//! the ones the device dialects provide.
//!
//! The search path is the program's `OP2_RS_KERNEL_PATH` (directories
//! separated by `:`), and the directories the device library adds (the
//! executable's debug information names the application's source
//! directory when it was built with `-g`).

use crate::cpp::{self, BuildMacros, Defines, Line, Preproc};
use crate::source::kernel_params;
use std::fmt;
use std::path::{Path, PathBuf};

/// A kernel's source, ready for the generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSource {
    /// The file that defines the kernel.
    pub file: PathBuf,
    /// Its text with its local includes inlined.
    pub text: String,
    /// Every file read (the defining file first).
    pub files: Vec<PathBuf>,
    /// Defaults of the source's own taken as not set by the build, that
    /// the kernel uses ([`cpp::Assumed`]).
    pub assumed: Vec<cpp::Assumed>,
}

/// The kernel was not found, or its file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindError {
    pub kernel: String,
    pub what: String,
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel {}: {}", self.kernel, self.what)
    }
}

impl std::error::Error for FindError {}

/// `OP2_RS_KERNEL_PATH`'s directories (empty entries skipped).
pub fn split_path(v: &str) -> Vec<PathBuf> {
    v.split(':')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

const HEADERS: [&str; 4] = ["h", "hpp", "hh", "cuh"];
const SOURCES: [&str; 6] = ["c", "cpp", "cc", "cxx", "C", "cu"];

fn candidates(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            HEADERS.contains(&ext) || SOURCES.contains(&ext)
        })
        .collect();
    // headers first, then by name
    files.sort_by_key(|p| {
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_string();
        (
            !HEADERS.contains(&ext.as_str()),
            p.file_name().map(|n| n.to_owned()),
        )
    });
    files
}

/// The readable candidate files under `dirs`, in search order, with
/// their text.
fn files_in(dirs: &[PathBuf]) -> impl Iterator<Item = (PathBuf, String)> + '_ {
    dirs.iter()
        .flat_map(|d| candidates(d))
        .filter_map(|f| std::fs::read_to_string(&f).ok().map(|t| (f, t)))
}

/// The first file under `dirs` that defines `kernel` as the program's
/// build compiled it, with its local includes inlined and its
/// conditionals decided ([`crate::cpp`]) with `defines`
/// (`OP2_RS_DEFINES`) and the macros in effect where the build read the
/// file: those `build` gives (the program's debug information, `-g3`),
/// else, for a header the loop's source file `call_site` includes, the
/// macros defined before that `#include`. A file whose definitions of
/// `kernel` all lie in branches not taken is passed over; one whose
/// definition, or the code it needs, depends on a macro of unknown value
/// is an error naming the macro.
pub fn find_kernel(
    kernel: &str,
    dirs: &[PathBuf],
    defines: &Defines,
    call_site: Option<&Path>,
    build: Option<&dyn BuildMacros>,
) -> Result<KernelSource, FindError> {
    let err = |what: String| FindError {
        kernel: kernel.to_string(),
        what,
    };
    for (f, text) in files_in(dirs) {
        if kernel_params(&text, kernel).is_none() {
            continue;
        }
        let mut files = Vec::new();
        let is_source = f
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCES.contains(&e));
        let line = if is_source {
            defining_lines(&text, kernel).next().map_or(1, |l| l + 1)
        } else {
            0
        };
        let mut pp = start(&f, line, is_source, defines, call_site, dirs, build);
        let before = pp.clone();
        let mut top = Vec::new();
        let decided = if is_source {
            // a program's own source file: its includes are not read
            files.push(f.canonicalize().unwrap_or_else(|_| f.clone()));
            decide_file(&f, &text, &mut pp, &mut top).map_err(err)?
        } else {
            let mut inc = Includes {
                dirs,
                seen: &mut files,
                pp: &mut pp,
                top: &mut top,
            };
            inc.inline(&f, &text, 0).map_err(err)?
        };
        if kernel_params(&decided, kernel).is_none() {
            // every definition in a branch not taken (another file may
            // hold the build's), or in one that depends on an unknown macro
            match defining_lines(&text, kernel).find_map(|l| match top.get(l) {
                Some(Line::LeftOut(w)) => Some(w.clone()),
                _ => None,
            }) {
                Some(w) => return Err(err(w.message())),
                None => continue,
            }
        }
        // what the device needs: the kernel, the functions it calls
        // and the #define lines, none of it depending on unknown macros
        let part = crate::source::kernel_part(&decided, kernel).unwrap_or_default();
        let code = crate::source::code_only(&part);
        if let Some(w) = cpp::unknown_in(&part).or_else(|| {
            pp.unknown_macros()
                .into_iter()
                .find(|(m, _)| crate::source::mentions_ident(&code, m))
                .map(|(_, w)| w)
        }) {
            return Err(err(w.message()));
        }
        let assumed = pp
            .defaults()
            .iter()
            .filter(|a| uses(&code, &a.name))
            .cloned()
            .collect();
        let text = if is_source { part } else { decided };
        return Ok(KernelSource {
            file: f,
            text: with_prelude(&before, text),
            files,
            assumed,
        });
    }
    let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(err(format!(
        "no definition found in {} (OP2_RS_KERNEL_PATH and the program's source directory)",
        if shown.is_empty() {
            "an empty search path".to_string()
        } else {
            shown.join(", ")
        }
    )))
}

/// `#include "name"` -> `name` (other lines: `None`).
fn local_include(line: &str) -> Option<&str> {
    let r = line
        .trim_start()
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("include")?
        .trim();
    let r = r.strip_prefix('"')?;
    Some(&r[..r.find('"')?])
}

/// The first file under `dirs` that defines type `name` at file scope
/// (a `typedef`, `struct`, `union`, `enum` or `using` the kernel's code
/// needs and a header the program's main file includes before the
/// kernel's provides), its conditionals decided as for [`find_kernel`]:
/// that declaration alone.
pub fn find_type(
    name: &str,
    dirs: &[PathBuf],
    defines: &Defines,
    call_site: Option<&Path>,
    build: Option<&dyn BuildMacros>,
) -> Result<KernelSource, FindError> {
    let err = |what: String| FindError {
        kernel: name.to_string(),
        what,
    };
    for (f, text) in files_in(dirs) {
        let code = crate::source::code_only(&text);
        if crate::source::type_definition(&code, name).is_none() {
            continue;
        }
        let is_source = f
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCES.contains(&e));
        let mut pp = start(&f, 1, is_source, defines, call_site, dirs, build);
        let decided = decide_file(&f, &text, &mut pp, &mut Vec::new()).map_err(err)?;
        let code = crate::source::code_only(&decided);
        if let Some(span) = crate::source::type_definition(&code, name) {
            return Ok(KernelSource {
                text: format!("{}\n", &decided[span]),
                files: vec![f.canonicalize().unwrap_or_else(|_| f.clone())],
                file: f,
                assumed: Vec::new(),
            });
        }
    }
    Err(err("no type definition found".to_string()))
}

/// Whether `code` uses macro `m` other than in its own directives.
fn uses(code: &str, m: &str) -> bool {
    code.lines().any(|l| {
        crate::source::mentions_ident(l, m)
            && !cpp::directive_of(l.trim()).is_some_and(|(k, r)| {
                matches!(k, "define" | "undef" | "ifdef" | "ifndef") && cpp::macro_of(r) == Some(m)
            })
    })
}

/// The lines (0-based) of `text` where a definition of `kernel` starts.
fn defining_lines<'a>(text: &'a str, kernel: &'a str) -> impl Iterator<Item = usize> + 'a {
    let code = crate::source::code_only(text);
    crate::source::definitions(&code, kernel)
        .into_iter()
        .map(move |at| text[..at].matches('\n').count())
}

/// The macros defined before the text (by `OP2_RS_DEFINES`, or by the
/// file that includes it) that its code uses and it does not define
/// itself, defined before it: the device code reads them as the
/// program's build did.
fn with_prelude(before: &Preproc, text: String) -> String {
    let code = crate::source::code_only(&text);
    let own = |m: &str| {
        code.lines().any(|l| {
            cpp::directive_of(l).is_some_and(|(k, r)| k == "define" && cpp::macro_of(r) == Some(m))
        })
    };
    let used: String = before
        .defined()
        .into_iter()
        .filter(|(m, _)| crate::source::mentions_ident(&code, m) && !own(m))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    if used.is_empty() {
        text
    } else {
        format!("// op2-rs: macros defined before the kernel's source\n{used}{text}")
    }
}

/// The conditionals' state where the build began to read `file` (a
/// header: at its `#include`), or, for a source file, at its line `line`:
/// the build's own macros there when `build` records them, with
/// `defines` over them; else `defines` and, for a header `call_site`
/// includes, the macros its text defines before the `#include`.
fn start(
    file: &Path,
    line: usize,
    is_source: bool,
    defines: &Defines,
    call_site: Option<&Path>,
    dirs: &[PathBuf],
    build: Option<&dyn BuildMacros>,
) -> Preproc {
    if let Some(b) = build.and_then(|b| b.at(file, line, call_site)) {
        return Preproc::new(&b.overridden_by(defines));
    }
    match call_site {
        Some(c) if !is_source => at_include(c, file, defines, dirs),
        _ => None,
    }
    .unwrap_or_else(|| Preproc::new(defines))
}

/// The macros at the point where `call_site` (the loop's source file)
/// includes `header`, its own lines and the local headers it includes
/// before read through one [`Preproc`]; `None` when it does not include
/// `header` or cannot be read.
fn at_include(
    call_site: &Path,
    header: &Path,
    defines: &Defines,
    dirs: &[PathBuf],
) -> Option<Preproc> {
    let target = header.canonicalize().ok()?;
    let text = std::fs::read_to_string(call_site).ok()?;
    let mut pp = Preproc::new(defines);
    let mut seen = Vec::new();
    scan_to(call_site, &text, &target, dirs, &mut pp, &mut seen, 0).then_some(pp)
}

/// Read `file` through `pp` up to the `#include` of `target`: whether it
/// was reached.
fn scan_to(
    file: &Path,
    text: &str,
    target: &Path,
    dirs: &[PathBuf],
    pp: &mut Preproc,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) -> bool {
    if depth > 32 {
        return false;
    }
    seen.push(file.canonicalize().unwrap_or_else(|_| file.to_path_buf()));
    let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
    for (n, (raw, code, next)) in cpp::lines(text).into_iter().enumerate() {
        let Ok(l) = pp.line(
            raw,
            &code,
            next.as_deref(),
            &format!("{}:{}", file.display(), n + 1),
        ) else {
            return false;
        };
        let Some(name) = local_include(raw).filter(|_| l == Line::Keep) else {
            continue;
        };
        let Some(path) = std::iter::once(&here)
            .chain(dirs)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        else {
            continue;
        };
        let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
        if canon == target {
            return true;
        }
        let base = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if seen.contains(&canon) || base.starts_with("op_") || base.starts_with("op2_") {
            continue;
        }
        let Ok(inner) = std::fs::read_to_string(&path) else {
            continue;
        };
        if scan_to(&path, &inner, target, dirs, pp, seen, depth + 1) {
            return true;
        }
    }
    false
}

/// A source file's text decided, its lines' decisions in `top`.
fn decide_file(
    file: &Path,
    text: &str,
    pp: &mut Preproc,
    top: &mut Vec<Line>,
) -> Result<String, String> {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let mut out = String::with_capacity(text.len());
    for (n, (raw, code, next)) in cpp::lines(text).into_iter().enumerate() {
        let l = pp.line(raw, &code, next.as_deref(), &format!("{name}:{}", n + 1))?;
        out.push_str(&cpp::render(raw, &l));
        top.push(l);
    }
    Ok(out)
}

/// Local includes inlined, each once, through one [`Preproc`]: an
/// `#include` in a branch not taken is not followed.
struct Includes<'a> {
    dirs: &'a [PathBuf],
    seen: &'a mut Vec<PathBuf>,
    pp: &'a mut Preproc,
    /// The decisions on the defining file's own lines.
    top: &'a mut Vec<Line>,
}

impl Includes<'_> {
    fn inline(&mut self, file: &Path, text: &str, depth: usize) -> Result<String, String> {
        if depth > 32 {
            return Err(format!(
                "includes nested deeper than 32 at {}",
                file.display()
            ));
        }
        let canon = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        self.seen.push(canon);
        let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let fname = file.file_name().unwrap_or_default().to_string_lossy();
        let mut out = String::new();
        for (n, (line, code, next)) in cpp::lines(text).into_iter().enumerate() {
            let l = self
                .pp
                .line(line, &code, next.as_deref(), &format!("{fname}:{}", n + 1))?;
            if depth == 0 {
                self.top.push(l.clone());
            }
            let name = match (&l, local_include(line)) {
                (Line::Keep, Some(name)) => name,
                _ => {
                    out.push_str(&cpp::render(line, &l));
                    continue;
                }
            };
            let base = Path::new(name)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("");
            if base.starts_with("op_") || base.starts_with("op2_") {
                out.push_str("// op2-rs: OP2 header not needed on the device: ");
                out.push_str(line);
                continue;
            }
            let found = std::iter::once(&here)
                .chain(self.dirs)
                .map(|d| d.join(name))
                .find(|p| p.is_file());
            let Some(path) = found else {
                return Err(format!(
                    "{} includes \"{name}\", not found beside it or in the search path",
                    file.display()
                ));
            };
            let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
            if self.seen.contains(&canon) {
                out.push_str("// op2-rs: already inlined: ");
                out.push_str(line);
                continue;
            }
            let inner = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            out.push_str(&format!("// op2-rs: begin {name}\n"));
            out.push_str(&self.inline(&path, &inner, depth + 1)?);
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("// op2-rs: end {name}\n"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("op2-codegen-find-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_defining_header_with_its_local_includes() {
        let d = tmp("inc");
        let sub = d.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("consts.h"), "#define TWICE(v) (2 * (v))\n").unwrap();
        std::fs::write(
            d.join("helpers.h"),
            "#include \"sub/consts.h\"\ninline double sq(double v) { return v * v; }\n",
        )
        .unwrap();
        std::fs::write(
            d.join("kern.h"),
            "#include <math.h>\n#include \"op_seq.h\"\n#include \"helpers.h\"\n#include \"helpers.h\"\n\
             inline void kern(double *a) { a[0] = TWICE(sq(a[0])); }\n",
        )
        .unwrap();
        // a source file that calls the kernel (no definition): not chosen
        std::fs::write(
            d.join("app.cpp"),
            "#include \"kern.h\"\nint main() { double a[1]; kern(a); }\n",
        )
        .unwrap();
        let k = find_kernel(
            "kern",
            std::slice::from_ref(&d),
            &Defines::default(),
            None,
            None,
        )
        .unwrap();
        assert_eq!(k.file, d.join("kern.h"));
        assert_eq!(k.files.len(), 3, "{:?}", k.files);
        assert!(k.text.contains("#define TWICE(v)"));
        assert!(k.text.contains("inline double sq"));
        assert_eq!(
            k.text.matches("inline double sq").count(),
            1,
            "inlined once"
        );
        assert!(k
            .text
            .contains("// op2-rs: OP2 header not needed on the device: #include \"op_seq.h\""));
        assert!(
            k.text.contains("#include <math.h>"),
            "system headers left to device_source"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn headers_before_sources_and_clear_errors() {
        let d = tmp("order");
        std::fs::write(d.join("a.cpp"), "void k(int *x) { *x = 1; }\n").unwrap();
        std::fs::write(d.join("z.h"), "void k(int *x) { *x = 2; }\n").unwrap();
        assert_eq!(
            find_kernel(
                "k",
                std::slice::from_ref(&d),
                &Defines::default(),
                None,
                None
            )
            .unwrap()
            .file,
            d.join("z.h")
        );
        let e = find_kernel(
            "missing",
            std::slice::from_ref(&d),
            &Defines::default(),
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            format!(
                "kernel missing: no definition found in {} (OP2_RS_KERNEL_PATH and the program's source directory)",
                d.display()
            )
        );
        std::fs::write(
            d.join("b.h"),
            "#include \"nowhere.h\"\nvoid q(int *x) { *x = 3; }\n",
        )
        .unwrap();
        let e = find_kernel(
            "q",
            std::slice::from_ref(&d),
            &Defines::default(),
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("kernel q: ") && e.contains("includes \"nowhere.h\", not found"),
            "{e}"
        );
        assert_eq!(
            split_path("a::b:"),
            [PathBuf::from("a"), PathBuf::from("b")]
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Conditionals decided as the build did: the call site's own macros
    /// and those of the headers it includes first, the user's, and what
    /// cannot be known said by name.
    /// A kernel header with conditionals, a config header and a call site
    /// (`app.cpp`, returned) that defines FAST before the `#include`.
    fn conditional_files(d: &Path) -> PathBuf {
        std::fs::write(d.join("config.h"), "#define NDIM 3\n#define TAG \"x\"\n").unwrap();
        std::fs::write(
            d.join("kern.h"),
            "#ifdef FAST\nvoid kern(double *a) { a[0] = NDIM; }\n#else\n\
             void kern(double *a) { a[0] = -NDIM; }\n#endif\n\
             #ifdef USE_MPI\nvoid exchange(void) {}\n#endif\n\
             void mode(double *a) {\n#if LEVEL > 1\n  a[0] = 1;\n#endif\n}\n",
        )
        .unwrap();
        let main = d.join("app.cpp");
        std::fs::write(
            &main,
            "#include \"op_seq.h\"\n#include \"config.h\"\n#define FAST\n#include \"kern.h\"\n\
             #undef FAST\nint main() { double a[1]; kern(a); }\n",
        )
        .unwrap();
        main
    }

    #[test]
    fn conditionals_follow_the_call_site_and_the_users_macros() {
        let d = tmp("cond");
        let main = conditional_files(&d);
        let none = Defines::default();
        let dirs = std::slice::from_ref(&d);
        let k = find_kernel("kern", dirs, &none, Some(&main), None).unwrap();
        // FAST's branch, NDIM from config.h defined before it (the device
        // code uses it), TAG unused; USE_MPI's branch left out, unneeded
        assert!(
            k.text.contains("a[0] = NDIM;") && !k.text.contains("-NDIM"),
            "{}",
            k.text
        );
        assert!(k
            .text
            .starts_with("// op2-rs: macros defined before the kernel's source\n#define NDIM 3\n"));
        assert!(
            !k.text.contains("TAG") && !k.text.contains("exchange"),
            "{}",
            k.text
        );
        // without the call site: FAST is unknown, and the kernel is in its branches
        let e = find_kernel("kern", dirs, &none, None, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("kernel kern: its source tests macro FAST (kern.h:1), which"),
            "{e}"
        );
        // the user's macros decide it then
        let given = Defines::parse("-UFAST -DNDIM=2").unwrap();
        let k = find_kernel("kern", dirs, &given, None, None).unwrap();
        assert!(
            k.text.contains("#define NDIM 2\n") && k.text.contains("-NDIM"),
            "{}",
            k.text
        );
        // a body that follows a macro no file defines
        let e = find_kernel("mode", dirs, &none, Some(&main), None).unwrap_err();
        assert!(
            e.to_string().contains("tests macro LEVEL (kern.h:10)"),
            "{e}"
        );
        let k = find_kernel(
            "mode",
            dirs,
            &Defines::parse("-DLEVEL=2").unwrap(),
            Some(&main),
            None,
        );
        assert!(k.unwrap().text.contains("  a[0] = 1;"));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A definition only in a branch not taken: another file's is used; a
    /// kernel in a source file: its own conditionals decide it.
    #[test]
    fn conditionals_not_taken_hide_a_definition() {
        let d = tmp("cond-hidden");
        conditional_files(&d);
        let dirs = std::slice::from_ref(&d);
        let none = Defines::default();
        std::fs::write(
            d.join("a_old.h"),
            "#if 0\nvoid mode(double *a) { a[0] = 9; }\n#endif\n",
        )
        .unwrap();
        let k = find_kernel(
            "mode",
            dirs,
            &Defines::parse("-DLEVEL=0").unwrap(),
            None,
            None,
        )
        .unwrap();
        assert_eq!(k.file, d.join("kern.h"));
        std::fs::write(
            d.join("solo.c"),
            "#define ORDER 2\n#if ORDER == 2\nvoid solo(double *a) { a[0] = 2; }\n#else\n\
             void solo(double *a) { a[0] = 1; }\n#endif\nint main(void) { return 0; }\n",
        )
        .unwrap();
        let k = find_kernel("solo", dirs, &none, None, None).unwrap();
        assert!(
            k.text.contains("a[0] = 2;") && !k.text.contains("a[0] = 1;"),
            "{}",
            k.text
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
