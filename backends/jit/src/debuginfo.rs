//! What the program's DWARF debug information says of its sources, read
//! once:
//!
//! * where its functions are defined (OP2's makefiles build with `-g`):
//!   every `DW_TAG_subprogram`'s name and `DW_AT_decl_file`. A kernel
//!   found there is looked for in that file's directory first;
//! * the macros of its build (`-g3`: `.debug_macro`, or `.debug_macinfo`
//!   with `-gstrict-dwarf`): the `-D` and `-U` flags of each unit and every
//!   `#define` and `#undef` in the order the compiler read them, so that a
//!   kernel's conditionals are decided with the macros in effect where the
//!   build read its header ([`Macros`]).
//!
//! An executable without debug information (or one that cannot be read)
//! gives nothing: the other search rules apply.

use op2_codegen::cpp::{BuildMacro, BuildMacros, Defines};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Function name -> the file that declares it (the first one seen).
pub type DeclFiles = HashMap<String, PathBuf>;

/// What the debug information gives.
#[derive(Debug, Default)]
pub struct DebugInfo {
    pub decl_files: DeclFiles,
    pub macros: Macros,
}

/// The declaring files of the functions in `exe`'s debug information.
pub fn decl_files(exe: &Path) -> DeclFiles {
    read_exe(exe).decl_files
}

/// Everything `exe`'s debug information gives.
pub fn read_exe(exe: &Path) -> DebugInfo {
    std::fs::read(exe)
        .ok()
        .and_then(|data| read(&data).ok())
        .unwrap_or_default()
}

fn read(data: &[u8]) -> Result<DebugInfo, gimli::Error> {
    use object::{Object, ObjectSection};
    let Ok(obj) = object::File::parse(data) else {
        return Ok(DebugInfo::default());
    };
    let endian = if obj.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let load = |id: gimli::SectionId| -> Result<Cow<'_, [u8]>, gimli::Error> {
        Ok(obj
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok())
            .unwrap_or(Cow::Borrowed(&[])))
    };
    let sections = gimli::DwarfSections::load(load)?;
    let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, endian));
    let macro_data = load(gimli::SectionId::DebugMacro)?;
    let macinfo_data = load(gimli::SectionId::DebugMacinfo)?;
    let mut reader = MacroReader {
        dwarf: &dwarf,
        macro_sec: Slice::new(&macro_data, endian),
        macinfo_sec: Slice::new(&macinfo_data, endian),
        chunks: HashMap::new(),
    };
    let mut out = DebugInfo::default();
    let mut units = dwarf.units();
    while let Some(header) = units.next()? {
        let unit = dwarf.unit(header)?;
        unit_functions(&dwarf, &unit, &mut out.decl_files)?;
        if let Some(m) = reader.unit(&unit) {
            out.macros.units.push(m);
        }
    }
    out.macros.chunks = reader.chunks.into_iter().collect();
    Ok(out)
}

type Slice<'a> = gimli::EndianSlice<'a, gimli::RunTimeEndian>;

/// The file `index` of a unit's line table, as a path (a relative one
/// from the unit's compilation directory).
fn file_path(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    index: u64,
) -> Option<PathBuf> {
    let header = unit.line_program.as_ref()?.header();
    let file = header.file(index)?;
    let mut path = PathBuf::new();
    if let Some(dir) = file.directory(header) {
        path.push(
            dwarf
                .attr_string(unit, dir)
                .ok()?
                .to_string_lossy()
                .as_ref(),
        );
    }
    path.push(
        dwarf
            .attr_string(unit, file.path_name())
            .ok()?
            .to_string_lossy()
            .as_ref(),
    );
    if path.is_relative() {
        if let Some(c) = unit.comp_dir {
            path = PathBuf::from(c.to_string_lossy().as_ref()).join(path);
        }
    }
    Some(path)
}

fn unit_functions(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    out: &mut DeclFiles,
) -> Result<(), gimli::Error> {
    if unit.line_program.is_none() {
        return Ok(());
    }
    // the library's own Rust code (its functions' names are no kernel's,
    // and its files are no program's)
    if let Some(root) = unit.entries().next_dfs()?.map(|(_, e)| e.clone()) {
        if root.attr_value(gimli::DW_AT_language)?
            == Some(gimli::AttributeValue::Language(gimli::DW_LANG_Rust))
        {
            return Ok(());
        }
    }
    let mut entries = unit.entries();
    while let Some((_, e)) = entries.next_dfs()? {
        if e.tag() != gimli::DW_TAG_subprogram {
            continue;
        }
        let (Some(name), Some(gimli::AttributeValue::FileIndex(f))) = (
            e.attr_value(gimli::DW_AT_name)?,
            e.attr_value(gimli::DW_AT_decl_file)?,
        ) else {
            continue;
        };
        let name = dwarf
            .attr_string(unit, name)?
            .to_string_lossy()
            .into_owned();
        if out.contains_key(&name) {
            continue;
        }
        let Some(path) = file_path(dwarf, unit, f) else {
            continue;
        };
        out.insert(name, path);
    }
    Ok(())
}

/// A macro operation of a unit, in the order the compiler read them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// An `#include` (or the unit's main file) begins: the index of its
    /// path in the unit's `files`, and the includer's line.
    Start { file: usize, line: u64 },
    /// It ends.
    End,
    /// `#define` (or `-D`): `NAME VALUE` / `NAME(ARGS) BODY`.
    Define { line: u64, def: String },
    /// `#undef` (or `-U`).
    Undef { line: u64, name: String },
    /// A sequence of operations shared by units (`DW_MACRO_import`).
    Import(usize),
}

impl Op {
    /// `#define` (`define`) or `#undef` at `line`, its operand `text`.
    fn definition(define: bool, line: u64, text: String) -> Op {
        if define {
            Op::Define { line, def: text }
        } else {
            Op::Undef {
                line,
                name: text.trim().to_string(),
            }
        }
    }
}

/// One compilation unit's macros.
#[derive(Debug, Clone)]
struct UnitMacros {
    /// The files its operations name.
    files: Vec<PathBuf>,
    ops: Vec<Op>,
}

/// The build's macros, unit by unit, from `-g3` debug information.
#[derive(Debug, Default)]
pub struct Macros {
    units: Vec<UnitMacros>,
    /// Imported sequences by offset in `.debug_macro`.
    chunks: HashMap<usize, Vec<Op>>,
}

struct MacroReader<'d, 'a> {
    dwarf: &'d gimli::Dwarf<Slice<'a>>,
    macro_sec: Slice<'a>,
    macinfo_sec: Slice<'a>,
    /// Sequences read (`None`: one that could not be read).
    chunks: HashMap<usize, Vec<Op>>,
}

impl<'a> MacroReader<'_, 'a> {
    /// A unit's macros (`None`: it records none, or they cannot all be
    /// read: then none are trusted).
    fn unit(&mut self, unit: &gimli::Unit<Slice<'a>>) -> Option<UnitMacros> {
        let root = unit.entries().next_dfs().ok()??.1.clone();
        let mut files = Vec::new();
        let mut file_ids = HashMap::new();
        for at in [gimli::DW_AT_macros, gimli::DW_AT_GNU_macros] {
            if let Ok(Some(gimli::AttributeValue::SecOffset(off)))
            | Ok(Some(gimli::AttributeValue::DebugMacroRef(gimli::DebugMacroOffset(off)))) =
                root.attr_value(at)
            {
                let mut ops = Vec::new();
                self.sequence(unit, off, &mut ops, &mut files, &mut file_ids, 0)?;
                return Some(UnitMacros { files, ops });
            }
        }
        if let Ok(Some(gimli::AttributeValue::SecOffset(off)))
        | Ok(Some(gimli::AttributeValue::DebugMacinfoRef(gimli::DebugMacinfoOffset(off)))) =
            root.attr_value(gimli::DW_AT_macro_info)
        {
            let ops = self.macinfo(unit, off, &mut files, &mut file_ids)?;
            return Some(UnitMacros { files, ops });
        }
        None
    }

    fn file(
        &self,
        unit: &gimli::Unit<Slice<'a>>,
        index: u64,
        files: &mut Vec<PathBuf>,
        ids: &mut HashMap<u64, usize>,
    ) -> Option<usize> {
        if let Some(&i) = ids.get(&index) {
            return Some(i);
        }
        let p = file_path(self.dwarf, unit, index)?;
        files.push(p);
        ids.insert(index, files.len() - 1);
        Some(files.len() - 1)
    }

    /// A start_file's operands (line, file index) read from `r`.
    fn start(
        &self,
        unit: &gimli::Unit<Slice<'a>>,
        r: &mut Slice<'a>,
        files: &mut Vec<PathBuf>,
        ids: &mut HashMap<u64, usize>,
    ) -> Option<Op> {
        use gimli::Reader;
        let line = r.read_uleb128().ok()?;
        let index = r.read_uleb128().ok()?;
        let file = self.file(unit, index, files, ids)?;
        Some(Op::Start { file, line })
    }

    /// A `.debug_macro` sequence at `off` (DWARF 5, or GNU's version 4):
    /// its operations into `ops` (an import is read once, into `chunks`).
    fn sequence(
        &mut self,
        unit: &gimli::Unit<Slice<'a>>,
        off: usize,
        ops: &mut Vec<Op>,
        files: &mut Vec<PathBuf>,
        ids: &mut HashMap<u64, usize>,
        depth: usize,
    ) -> Option<()> {
        use gimli::Reader;
        let mut r = self.macro_sec;
        r.skip(off).ok()?;
        let version = r.read_u16().ok()?;
        if !(4..=5).contains(&version) {
            return None;
        }
        let flags = r.read_u8().ok()?;
        let format = if flags & 1 != 0 {
            gimli::Format::Dwarf64
        } else {
            gimli::Format::Dwarf32
        };
        if flags & 2 != 0 {
            r.read_offset(format).ok()?;
        }
        if flags & 4 != 0 {
            // operands of vendor opcodes: not read here
            return None;
        }
        let string = |r: &mut Slice<'a>| -> Option<String> {
            Some(
                r.read_null_terminated_slice()
                    .ok()?
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let strp = |r: &mut Slice<'a>| -> Option<String> {
            let o = r.read_offset(format).ok()?;
            let s = self
                .dwarf
                .debug_str
                .get_str(gimli::DebugStrOffset(o))
                .ok()?;
            Some(s.to_string_lossy().into_owned())
        };
        let strx = |r: &mut Slice<'a>| -> Option<String> {
            let i = r.read_uleb128().ok()? as usize;
            let v = gimli::AttributeValue::DebugStrOffsetsIndex(gimli::DebugStrOffsetsIndex(i));
            Some(
                self.dwarf
                    .attr_string(unit, v)
                    .ok()?
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        loop {
            let op = r.read_u8().ok()?;
            match op {
                0 => return Some(()),
                1 | 2 | 5 | 6 | 0x0b | 0x0c => {
                    let line = r.read_uleb128().ok()?;
                    let text = match op {
                        1 | 2 => string(&mut r)?,
                        5 | 6 => strp(&mut r)?,
                        _ => strx(&mut r)?,
                    };
                    ops.push(Op::definition(matches!(op, 1 | 5 | 0x0b), line, text));
                }
                3 => ops.push(self.start(unit, &mut r, files, ids)?),
                4 => ops.push(Op::End),
                7 => {
                    let at = r.read_offset(format).ok()?;
                    if !self.chunks.contains_key(&at) {
                        if depth > 8 {
                            return None;
                        }
                        let mut inner = Vec::new();
                        self.sequence(unit, at, &mut inner, files, ids, depth + 1)?;
                        // an imported sequence names no files
                        if inner.iter().any(|o| matches!(o, Op::Start { .. })) {
                            return None;
                        }
                        self.chunks.insert(at, inner);
                    }
                    ops.push(Op::Import(at));
                }
                // a supplementary file's strings (dwz), vendor extensions:
                // the unit's macros cannot all be known
                _ => return None,
            }
        }
    }

    /// A `.debug_macinfo` list (DWARF 2 to 4).
    fn macinfo(
        &self,
        unit: &gimli::Unit<Slice<'a>>,
        off: usize,
        files: &mut Vec<PathBuf>,
        ids: &mut HashMap<u64, usize>,
    ) -> Option<Vec<Op>> {
        use gimli::Reader;
        let mut r = self.macinfo_sec;
        r.skip(off).ok()?;
        let mut ops = Vec::new();
        loop {
            match r.read_u8().ok()? {
                0 => return Some(ops),
                op @ (1 | 2) => {
                    let line = r.read_uleb128().ok()?;
                    let text = r
                        .read_null_terminated_slice()
                        .ok()?
                        .to_string_lossy()
                        .into_owned();
                    ops.push(Op::definition(op == 1, line, text));
                }
                3 => ops.push(self.start(unit, &mut r, files, ids)?),
                4 => ops.push(Op::End),
                0xff => {
                    r.read_uleb128().ok()?;
                    r.read_null_terminated_slice().ok()?;
                }
                _ => return None,
            }
        }
    }
}

/// A header of the system's compiler or C library: its macros describe
/// the host (a device compiler has its own).
fn is_system(path: &Path) -> bool {
    let p = path.to_string_lossy();
    [
        "/usr/include/",
        "/usr/local/include/",
        "/usr/lib/",
        "/usr/lib64/",
    ]
    .iter()
    .any(|d| p.starts_with(d))
        || p.contains("/include/c++/")
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || (a.file_name() == b.file_name()
            && matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y))
}

/// Where a walk through a unit's operations stops.
enum Stop<'p> {
    /// At the first `#include` of this file.
    Include(&'p Path),
    /// In the unit's main file, at its line (1-based).
    Line(usize),
}

/// The name a definition (`NAME VALUE`, `NAME(ARGS) BODY`) defines.
fn name_of(def: &str) -> &str {
    let end = def
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(def.len());
    &def[..end]
}

impl Macros {
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The unit's operations, imports read in place.
    fn flat<'m>(&'m self, unit: &'m UnitMacros) -> Vec<&'m Op> {
        let mut out = Vec::with_capacity(unit.ops.len());
        for op in &unit.ops {
            match op {
                Op::Import(at) => out.extend(self.chunks.get(at).into_iter().flatten()),
                o => out.push(o),
            }
        }
        out
    }

    /// The macros in effect at `stop` in `unit`: `None` when the walk
    /// never gets there.
    fn walk(&self, unit: &UnitMacros, stop: &Stop<'_>) -> Option<Defines> {
        let ops = self.flat(unit);
        let mut stack: Vec<usize> = Vec::new();
        let mut state: HashMap<&str, (BuildMacro, bool)> = HashMap::new();
        let mut system: HashSet<&str> = HashSet::new();
        let sys = |stack: &[usize]| stack.last().is_some_and(|&f| is_system(&unit.files[f]));
        let mut at = None;
        for (i, op) in ops.iter().enumerate() {
            let line = match op {
                Op::Start { line, .. } | Op::Define { line, .. } | Op::Undef { line, .. } => *line,
                _ => 0,
            };
            let here = match stop {
                Stop::Include(f) => {
                    matches!(op, Op::Start { file, .. } if same_file(&unit.files[*file], f))
                }
                Stop::Line(l) => stack.len() == 1 && !matches!(op, Op::End) && line >= *l as u64,
            };
            if here {
                at = Some(i);
                break;
            }
            match op {
                Op::Start { file, .. } => stack.push(*file),
                Op::End => {
                    stack.pop();
                }
                Op::Define { def, .. } => {
                    let n = name_of(def);
                    state.insert(n, (BuildMacro::Defined(def.clone()), sys(&stack)));
                }
                Op::Undef { name, .. } => {
                    state.insert(name, (BuildMacro::Undefined, sys(&stack)));
                }
                Op::Import(_) => {}
            }
        }
        let at = at?;
        // after the stop: what the system's headers define anywhere (the
        // device decides it), and what the rest of the file read there
        // defines (its text says)
        let depth = stack.len();
        let mut later: HashSet<&str> = HashSet::new();
        let mut inside = true;
        for op in &ops[at..] {
            match op {
                Op::Start { file, .. } => stack.push(*file),
                Op::End => {
                    stack.pop();
                    if stack.len() <= depth {
                        inside = false;
                    }
                }
                Op::Define { def, .. } if sys(&stack) => {
                    system.insert(name_of(def));
                }
                Op::Undef { name, .. } if sys(&stack) => {
                    system.insert(name);
                }
                Op::Define { def, .. } if inside => {
                    later.insert(name_of(def));
                }
                Op::Undef { name, .. } if inside => {
                    later.insert(name);
                }
                _ => {}
            }
        }
        let mut all: HashMap<String, BuildMacro> = HashMap::new();
        for n in later {
            all.insert(n.to_string(), BuildMacro::Later);
        }
        for (n, (m, from_system)) in state {
            if from_system {
                system.insert(n);
            } else {
                all.insert(n.to_string(), m);
            }
        }
        for n in system {
            all.insert(n.to_string(), BuildMacro::System);
        }
        Some(Defines::from_build(all))
    }

    /// The unit's main file.
    fn primary(unit: &UnitMacros) -> Option<&Path> {
        unit.ops.iter().find_map(|o| match o {
            Op::Start { file, .. } => Some(unit.files[*file].as_path()),
            _ => None,
        })
    }
}

impl BuildMacros for Macros {
    fn at(&self, file: &Path, line: usize, call_site: Option<&Path>) -> Option<Defines> {
        // the unit whose main file it is, at that line
        if let Some(u) = self
            .units
            .iter()
            .find(|u| Self::primary(u).is_some_and(|p| same_file(p, file)))
        {
            if let Some(d) = self.walk(u, &Stop::Line(line.max(1))) {
                return Some(d);
            }
        }
        // a header: at its first #include, in the call site's unit first
        let mut units: Vec<&UnitMacros> = self.units.iter().collect();
        units.sort_by_key(|u| {
            !call_site.is_some_and(|c| Self::primary(u).is_some_and(|p| same_file(p, c)))
        });
        units
            .into_iter()
            .find_map(|u| self.walk(u, &Stop::Include(file)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rust's units are the library's own, not the program's: this test
    /// binary's functions are left out (tests/tests/opencl_lib.rs reads a
    /// C program's: c-examples' C99 jac built with -g).
    #[test]
    fn the_librarys_own_rust_functions_are_not_the_programs() {
        let exe = std::env::current_exe().unwrap();
        let files = decl_files(&exe);
        assert!(!files.contains_key("the_librarys_own_rust_functions_are_not_the_programs"));
        assert!(files
            .values()
            .all(|f| f.extension().is_none_or(|e| e != "rs")));
        assert!(decl_files(Path::new("/nonexistent")).is_empty());
        assert!(decl_files(Path::new("/etc/hostname")).is_empty());
    }

    /// A C program built by the system's gcc (the project's one
    /// prerequisite with Rust) with `flags`.
    fn built(dir: &Path, flags: &[&str]) -> PathBuf {
        let exe = dir.join("app");
        let ok = std::process::Command::new("gcc")
            .args(flags)
            .arg("-o")
            .arg(&exe)
            .arg(dir.join("main.c"))
            .arg(dir.join("other.c"))
            .status()
            .expect("gcc")
            .success();
        assert!(ok, "gcc {flags:?} failed");
        exe
    }

    fn decided(d: &Defines, text: &str) -> String {
        let mut pp = op2_codegen::cpp::Preproc::new(d);
        op2_codegen::cpp::decide(text, &mut pp, "kern.h").unwrap()
    }

    fn kept(out: &str) -> Vec<&str> {
        out.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("// op2-rs:"))
            .collect()
    }

    /// A kernel header, a config header and two units, written in a
    /// directory of the test's own (`tag`) so the tests run side by side.
    fn project(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("op2-jit-macros-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let w = |n: &str, t: &str| std::fs::write(dir.join(n), t).unwrap();
        w("cfg.h", "#define FROM_CFG 3\n#define SQ(x) ((x)*(x))\n");
        w(
            "kern.h",
            "#ifndef KERN_H\n#define KERN_H\n#ifndef WEIGHT\n#define WEIGHT 0.5\n#endif\n\
             #define OWN 1\n#ifdef OWN\nint own;\n#endif\n#ifdef MODE\nint mode = MODE;\n#endif\n\
             #ifdef GONE\nint gone;\n#endif\n#ifdef AFTER\nint after;\n#endif\n\
             #ifdef M_PI\nint pi;\n#endif\n#if FROM_CFG == 3 && LOCAL == 2\nint cfg;\n#endif\n\
             #endif\n",
        );
        w(
            "main.c",
            "#include <math.h>\n#include \"cfg.h\"\n#define LOCAL 2\n#undef FROM_NOWHERE\n\
             #include \"kern.h\"\n#define AFTER 1\nint other(void);\n\
             int main(void) { return other() + LOCAL; }\n",
        );
        w("other.c", "int other(void) { return 0; }\n");
        dir
    }

    /// The macros of a `-g3` build where it read a header: the build
    /// line's `-D`/`-U`, the main file's and its headers' `#define`s before
    /// the `#include`, a system header's left to the device, what the
    /// header itself defines left to its text, what comes only after it
    /// known undefined; the user's OP2_RS_DEFINES first.
    #[test]
    fn a_g3_builds_macros_where_it_read_the_kernels_header() {
        let dir = project("header");
        let flags = ["-g3", "-O0", "-DMODE=4", "-DWEIGHT=0.25", "-UGONE"];
        let info = read_exe(&built(&dir, &flags));
        assert!(!info.macros.is_empty());
        let main = dir.join("main.c");
        let d = info.macros.at(&dir.join("kern.h"), 0, Some(&main)).unwrap();
        assert!(d.is_complete());
        let kern = std::fs::read_to_string(dir.join("kern.h")).unwrap();
        let out = decided(&d, &kern);
        // WEIGHT's default not taken (the build gave 0.25); AFTER, defined
        // after the #include, was not defined there; M_PI is the device's
        assert_eq!(
            kept(&out),
            [
                "#define KERN_H",
                "#define OWN 1",
                "int own;",
                "int mode = MODE;",
                "#ifdef M_PI",
                "int pi;",
                "#endif",
                "int cfg;"
            ],
            "{out}"
        );
        let mut pp = op2_codegen::cpp::Preproc::new(&d);
        op2_codegen::cpp::decide("", &mut pp, "x.h").unwrap();
        let defined = pp.defined();
        for want in [
            ("MODE", "#define MODE 4"),
            ("WEIGHT", "#define WEIGHT 0.25"),
            ("SQ", "#define SQ(x) ((x)*(x))"),
            ("LOCAL", "#define LOCAL 2"),
        ] {
            assert!(defined.contains(&want), "{want:?} in {defined:?}");
        }
        assert!(!defined
            .iter()
            .any(|(n, _)| n.starts_with("__") || *n == "M_PI"));
        // the user's macros come first
        let user = Defines::parse("-UMODE").unwrap();
        assert!(
            !kept(&decided(&d.clone().overridden_by(&user), &kern)).contains(&"int mode = MODE;")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A main file's macros at a line; another unit's are its build line's
    /// only; a file no unit reads, and a `-g` build, record nothing.
    #[test]
    fn a_g3_builds_macros_at_a_main_files_line_and_in_another_unit() {
        let dir = project("units");
        let info = read_exe(&built(&dir, &["-g3", "-O0", "-DMODE=4"]));
        let main = dir.join("main.c");
        // LOCAL is defined on line 3: not yet at line 3, at 4
        let at3 = info.macros.at(&main, 3, None).unwrap();
        let at4 = info.macros.at(&main, 4, None).unwrap();
        let probe = "#ifdef LOCAL\nlocal();\n#endif\n";
        assert!(kept(&decided(&at3, probe)).is_empty());
        assert_eq!(kept(&decided(&at4, probe)), ["local();"]);
        let other = info.macros.at(&dir.join("other.c"), 1, None).unwrap();
        assert_eq!(kept(&decided(&other, probe)), Vec::<&str>::new());
        assert_eq!(
            kept(&decided(&other, "#if MODE == 4\nfour();\n#endif\n")),
            ["four();"]
        );
        assert!(info.macros.at(&dir.join("none.h"), 0, None).is_none());
        assert!(read_exe(&built(&dir, &["-g", "-DMODE=4"]))
            .macros
            .is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// DWARF 4 (GNU's `.debug_macro`) and strict DWARF (`.debug_macinfo`)
    /// give the same macros as DWARF 5.
    #[test]
    fn a_g3_builds_macros_in_dwarf_4_and_strict_dwarf() {
        let dir = project("dwarf4");
        let main = dir.join("main.c");
        let kern = std::fs::read_to_string(dir.join("kern.h")).unwrap();
        for f in [
            ["-g3", "-gdwarf-4", "-DMODE=4"],
            ["-g3", "-gstrict-dwarf", "-gdwarf-4"],
        ] {
            let d = read_exe(&built(&dir, &f))
                .macros
                .at(&dir.join("kern.h"), 0, Some(&main))
                .unwrap_or_else(|| panic!("{f:?}"));
            let out = decided(&d, &kern);
            assert_eq!(
                kept(&out).contains(&"int mode = MODE;"),
                f.contains(&"-DMODE=4"),
                "{f:?}: {out}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
