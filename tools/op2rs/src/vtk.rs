//! `op2rs vtk`: a legacy ASCII VTK unstructured grid.

use crate::cells::{resolve, Grid};
use crate::mesh::{parse_bindings, Mesh};
use crate::{GridArgs, SetArgs};
use op2_core::vtk::{token, write_cells as write_conn, write_header, write_int_array};
use op2_hdf5_io::ElemType;
use std::io::{BufWriter, Write};

/// Extra integer cell data (the `rank` of `partition`).
pub struct IntField<'a> {
    pub name: &'a str,
    pub values: &'a [i32],
}

/// VTK's name of a dat's element type.
fn vtk_type(e: ElemType) -> &'static str {
    match e {
        ElemType::Double => "double",
        ElemType::Float => "float",
        ElemType::Int => "int",
        ElemType::Long | ElemType::LongLong => "long",
    }
}

/// A value as VTK text: exact for its type (shortest round-trip form).
pub fn value(e: ElemType, v: f64) -> String {
    match e {
        ElemType::Int | ElemType::Long | ElemType::LongLong => format!("{}", v as i64),
        ElemType::Float => format!("{:e}", v as f32),
        ElemType::Double => op2_core::vtk::double(v),
    }
}

pub fn io(path: &str) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("cannot write '{path}': {e}")
}

fn write_points(w: &mut impl Write, g: &Grid<'_>) -> std::io::Result<()> {
    let c = g.coords;
    writeln!(w, "POINTS {} {}", g.npoints(), vtk_type(c.elem))?;
    for p in c.values.chunks(c.dim.max(1)) {
        let z = if c.dim == 3 { p[2] } else { 0.0 };
        writeln!(
            w,
            "{} {} {}",
            value(c.elem, p[0]),
            value(c.elem, p[1]),
            value(c.elem, z)
        )?;
    }
    Ok(())
}

fn write_cells(w: &mut impl Write, g: &Grid<'_>) -> std::io::Result<()> {
    write_conn(w, &g.map.values, g.map.dim, g.cell_type.vtk)
}

fn write_fields(
    w: &mut impl Write,
    g: &Grid<'_>,
    on_cells: bool,
    extra: &[IntField<'_>],
) -> std::io::Result<()> {
    let fields: Vec<_> = g.fields.iter().filter(|f| f.on_cells == on_cells).collect();
    if fields.is_empty() && extra.is_empty() {
        return Ok(());
    }
    let (what, n) = if on_cells {
        ("CELL_DATA", g.ncells())
    } else {
        ("POINT_DATA", g.npoints())
    };
    writeln!(w, "{what} {n}")?;
    writeln!(w, "FIELD FieldData {}", fields.len() + extra.len())?;
    for f in fields {
        let d = f.dat;
        writeln!(w, "{} {} {n} {}", token(&d.name), d.dim, vtk_type(d.elem))?;
        if d.ints.is_empty() {
            for row in d.values.chunks(d.dim.max(1)) {
                let text: Vec<String> = row.iter().map(|&v| value(d.elem, v)).collect();
                writeln!(w, "{}", text.join(" "))?;
            }
        } else {
            for row in d.ints.chunks(d.dim.max(1)) {
                let text: Vec<String> = row.iter().map(i64::to_string).collect();
                writeln!(w, "{}", text.join(" "))?;
            }
        }
    }
    for e in extra {
        write_int_array(w, e.name, e.values)?;
    }
    Ok(())
}

/// Write the grid (and `extra` cell data) to `path`: XML when it ends in
/// `.vtu`, legacy ASCII otherwise.
pub fn write(path: &str, title: &str, g: &Grid<'_>, extra: &[IntField<'_>]) -> Result<(), String> {
    if extension(path) == "vtu" {
        return crate::vtu::write(path, g, extra);
    }
    let file = std::fs::File::create(path).map_err(io(path))?;
    let mut w = BufWriter::new(file);
    let body = |w: &mut BufWriter<std::fs::File>| -> std::io::Result<()> {
        write_header(w, title)?;
        write_points(w, g)?;
        write_cells(w, g)?;
        write_fields(w, g, true, extra)?;
        write_fields(w, g, false, &[])?;
        w.flush()
    };
    body(&mut w).map_err(io(path))
}

/// Refuse a VTK name of another dataset kind (polydata, multiblock ...).
pub fn check_output(path: &str) -> Result<(), String> {
    let ext = extension(path);
    if ["vtp", "pvtu", "vtm", "vts", "vtr"].contains(&ext.as_str()) {
        return Err(format!(
            "-o '{path}': op2rs writes an unstructured grid, legacy (.vtk) or XML (.vtu), not .{ext}"
        ));
    }
    Ok(())
}

/// The file name's extension, lower case.
fn extension(path: &str) -> String {
    std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Read the mesh and resolve the grid of `vtk` / `partition`.
pub fn load(file: &str, sets: &SetArgs) -> Result<Mesh, String> {
    let bindings = parse_bindings(&sets.set)?;
    Mesh::read(file, &bindings)
}

/// Run `op2rs vtk`.
pub fn run(file: &str, args: &GridArgs, sets: &SetArgs) -> Result<bool, String> {
    check_output(&args.output)?;
    let mesh = load(file, sets)?;
    let g = resolve(&mesh, args)?;
    let title = format!(
        "op2rs vtk {file} --cells {} --coords {}",
        args.cells, args.coords
    );
    write(&args.output, &title, &g, &[])?;
    let data: Vec<String> = g
        .fields
        .iter()
        .map(|f| {
            format!(
                "{} ({})",
                f.dat.name,
                if f.on_cells { "cells" } else { "points" }
            )
        })
        .collect();
    println!(
        "wrote {}: {} points (set '{}'), {} {} cells (set '{}'){}",
        args.output,
        g.npoints(),
        g.point_set,
        g.ncells(),
        g.cell_type.name,
        g.cell_set,
        if data.is_empty() {
            String::new()
        } else {
            format!(", data: {}", data.join(", "))
        }
    );
    Ok(true)
}
