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

/// The first file under `dirs` that defines `kernel`, with its local
/// includes inlined.
pub fn find_kernel(kernel: &str, dirs: &[PathBuf]) -> Result<KernelSource, FindError> {
    let err = |what: String| FindError {
        kernel: kernel.to_string(),
        what,
    };
    for dir in dirs {
        for f in candidates(dir) {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            if kernel_params(&text, kernel).is_none() {
                continue;
            }
            let mut files = Vec::new();
            let is_source = f
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCES.contains(&e));
            if is_source {
                // a program's own source file: only the kernel's part of it
                // (its #defines, the kernel and the functions it calls)
                let part = crate::source::kernel_part(&text, kernel).unwrap_or(text);
                files.push(f.canonicalize().unwrap_or_else(|_| f.clone()));
                return Ok(KernelSource {
                    file: f,
                    text: part,
                    files,
                });
            }
            let text = inline_includes(&f, &text, dirs, &mut files, 0).map_err(err)?;
            return Ok(KernelSource {
                file: f,
                text,
                files,
            });
        }
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

fn inline_includes(
    file: &Path,
    text: &str,
    dirs: &[PathBuf],
    seen: &mut Vec<PathBuf>,
    depth: usize,
) -> Result<String, String> {
    if depth > 32 {
        return Err(format!(
            "includes nested deeper than 32 at {}",
            file.display()
        ));
    }
    let canon = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    seen.push(canon);
    let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let Some(name) = local_include(line) else {
            out.push_str(line);
            continue;
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
            .chain(dirs)
            .map(|d| d.join(name))
            .find(|p| p.is_file());
        let Some(path) = found else {
            return Err(format!(
                "{} includes \"{name}\", not found beside it or in the search path",
                file.display()
            ));
        };
        let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&canon) {
            out.push_str("// op2-rs: already inlined: ");
            out.push_str(line);
            continue;
        }
        let inner = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push_str(&format!("// op2-rs: begin {name}\n"));
        out.push_str(&inline_includes(&path, &inner, dirs, seen, depth + 1)?);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("// op2-rs: end {name}\n"));
    }
    Ok(out)
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
        let k = find_kernel("kern", std::slice::from_ref(&d)).unwrap();
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
            find_kernel("k", std::slice::from_ref(&d)).unwrap().file,
            d.join("z.h")
        );
        let e = find_kernel("missing", std::slice::from_ref(&d))
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
        let e = find_kernel("q", std::slice::from_ref(&d))
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
}
