//! The XML form (`.vtu`, ASCII data arrays) of the grid `vtk.rs` writes
//! in the legacy form: the same points, cells and field arrays.

use crate::cells::Grid;
use crate::report::esc;
use crate::vtk::{io, value, IntField};
use op2_hdf5_io::ElemType;
use std::io::{BufWriter, Write};

/// The XML type name of a dat's element type.
fn xml_type(e: ElemType) -> &'static str {
    match e {
        ElemType::Double => "Float64",
        ElemType::Float => "Float32",
        ElemType::Int => "Int32",
        ElemType::Long | ElemType::LongLong => "Int64",
    }
}

fn points(w: &mut impl Write, g: &Grid<'_>) -> std::io::Result<()> {
    let c = g.coords;
    writeln!(w, "<Points>")?;
    writeln!(
        w,
        "<DataArray type=\"{}\" NumberOfComponents=\"3\" format=\"ascii\">",
        xml_type(c.elem)
    )?;
    for p in c.values.chunks(c.dim.max(1)) {
        let z = if c.dim == 3 { p[2] } else { 0.0 };
        let (x, y, z) = (value(c.elem, p[0]), value(c.elem, p[1]), value(c.elem, z));
        writeln!(w, "{x} {y} {z}")?;
    }
    writeln!(w, "</DataArray>\n</Points>")
}

fn cells(w: &mut impl Write, g: &Grid<'_>) -> std::io::Result<()> {
    let dim = g.map.dim.max(1);
    writeln!(w, "<Cells>")?;
    writeln!(
        w,
        "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">"
    )?;
    for row in g.map.values.chunks(dim) {
        let t: Vec<String> = row.iter().map(i64::to_string).collect();
        writeln!(w, "{}", t.join(" "))?;
    }
    writeln!(w, "</DataArray>")?;
    writeln!(
        w,
        "<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">"
    )?;
    for c in 1..=g.ncells() {
        writeln!(w, "{}", c * dim)?;
    }
    writeln!(w, "</DataArray>")?;
    writeln!(
        w,
        "<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">"
    )?;
    for _ in 0..g.ncells() {
        writeln!(w, "{}", g.cell_type.vtk)?;
    }
    writeln!(w, "</DataArray>\n</Cells>")
}

fn fields(
    w: &mut impl Write,
    g: &Grid<'_>,
    on_cells: bool,
    extra: &[IntField<'_>],
) -> std::io::Result<()> {
    let tag = if on_cells { "CellData" } else { "PointData" };
    writeln!(w, "<{tag}>")?;
    for f in g.fields.iter().filter(|f| f.on_cells == on_cells) {
        let d = f.dat;
        writeln!(
            w,
            "<DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" format=\"ascii\">",
            xml_type(d.elem),
            esc(&d.name),
            d.dim
        )?;
        if d.ints.is_empty() {
            for row in d.values.chunks(d.dim.max(1)) {
                let t: Vec<String> = row.iter().map(|&v| value(d.elem, v)).collect();
                writeln!(w, "{}", t.join(" "))?;
            }
        } else {
            for row in d.ints.chunks(d.dim.max(1)) {
                let t: Vec<String> = row.iter().map(i64::to_string).collect();
                writeln!(w, "{}", t.join(" "))?;
            }
        }
        writeln!(w, "</DataArray>")?;
    }
    for e in extra {
        writeln!(
            w,
            "<DataArray type=\"Int32\" Name=\"{}\" NumberOfComponents=\"1\" format=\"ascii\">",
            esc(e.name)
        )?;
        for v in e.values {
            writeln!(w, "{v}")?;
        }
        writeln!(w, "</DataArray>")?;
    }
    writeln!(w, "</{tag}>")
}

/// Write the grid (and `extra` cell data) as an XML unstructured grid.
pub fn write(path: &str, g: &Grid<'_>, extra: &[IntField<'_>]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(io(path))?;
    let mut w = BufWriter::new(file);
    let body = |w: &mut BufWriter<std::fs::File>| -> std::io::Result<()> {
        writeln!(w, "<?xml version=\"1.0\"?>")?;
        writeln!(
            w,
            "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">"
        )?;
        writeln!(w, "<UnstructuredGrid>")?;
        writeln!(
            w,
            "<Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">",
            g.npoints(),
            g.ncells()
        )?;
        points(w, g)?;
        cells(w, g)?;
        fields(w, g, true, extra)?;
        fields(w, g, false, &[])?;
        writeln!(w, "</Piece>\n</UnstructuredGrid>\n</VTKFile>")?;
        w.flush()
    };
    body(&mut w).map_err(io(path))
}
