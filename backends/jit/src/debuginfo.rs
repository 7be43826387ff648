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

    #[test]
    fn this_test_binary_knows_where_its_functions_are() {
        let exe = std::env::current_exe().unwrap();
        let files = decl_files(&exe);
        // test binaries are built with debug information (profile.dev)
        let here = files
            .get("this_test_binary_knows_where_its_functions_are")
            .expect("the test function's declaring file");
        assert!(here.ends_with("src/debuginfo.rs"), "{}", here.display());
        assert!(decl_files(Path::new("/nonexistent")).is_empty());
        assert!(decl_files(Path::new("/etc/hostname")).is_empty());
    }
}
