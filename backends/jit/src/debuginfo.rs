//! Where the program's functions are defined, from its DWARF debug
//! information (OP2's makefiles build with `-g`): every
//! `DW_TAG_subprogram`'s name and `DW_AT_decl_file`, read once. A kernel
//! found there is looked for in that file's directory first. An executable
//! without debug information (or one that cannot be read) gives nothing:
//! the other search rules apply.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Function name -> the file that declares it (the first one seen).
pub type DeclFiles = HashMap<String, PathBuf>;

/// The declaring files of the functions in `exe`'s debug information.
pub fn decl_files(exe: &Path) -> DeclFiles {
    std::fs::read(exe)
        .ok()
        .and_then(|data| read(&data).ok())
        .unwrap_or_default()
}

fn read(data: &[u8]) -> Result<DeclFiles, gimli::Error> {
    use object::{Object, ObjectSection};
    let Ok(obj) = object::File::parse(data) else {
        return Ok(DeclFiles::new());
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
    let mut out = DeclFiles::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next()? {
        let unit = dwarf.unit(header)?;
        unit_functions(&dwarf, &unit, &mut out)?;
    }
    Ok(out)
}

type Slice<'a> = gimli::EndianSlice<'a, gimli::RunTimeEndian>;

fn unit_functions(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    out: &mut DeclFiles,
) -> Result<(), gimli::Error> {
    let Some(lp) = unit.line_program.as_ref() else {
        return Ok(());
    };
    // the library's own Rust code (its functions' names are no kernel's,
    // and its files are no program's)
    if let Some(root) = unit.entries().next_dfs()?.map(|(_, e)| e.clone()) {
        if root.attr_value(gimli::DW_AT_language)?
            == Some(gimli::AttributeValue::Language(gimli::DW_LANG_Rust))
        {
            return Ok(());
        }
    }
    let header = lp.header();
    let comp_dir = unit
        .comp_dir
        .map(|d| PathBuf::from(d.to_string_lossy().into_owned()));
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
        let Some(file) = header.file(f) else {
            continue;
        };
        let mut path = PathBuf::new();
        if let Some(dir) = file.directory(header) {
            path.push(dwarf.attr_string(unit, dir)?.to_string_lossy().as_ref());
        }
        path.push(
            dwarf
                .attr_string(unit, file.path_name())?
                .to_string_lossy()
                .as_ref(),
        );
        if path.is_relative() {
            if let Some(c) = &comp_dir {
                path = c.join(path);
            }
        }
        out.insert(name, path);
    }
    Ok(())
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
}
