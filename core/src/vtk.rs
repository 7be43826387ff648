//! Legacy ASCII VTK unstructured grids: the pieces `op2rs vtk` / `op2rs
//! partition` and the library's `OP2_RS_PARTITION_VTK` picture share
//! (header, cells, integer cell data), and a whole grid of points, optional
//! cells and integer cell data as text ([`legacy_grid`]).

use std::io::Write;

/// VTK's id of a cell with `n` points (vertex, line, triangle, quad,
/// hexahedron), polygon for other counts.
pub fn cell_type_for(n: usize) -> u8 {
    match n {
        1 => 1,
        2 => 3,
        3 => 5,
        4 => 9,
        8 => 12,
        _ => 7,
    }
}

/// An array name VTK reads as one token.
pub fn token(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// A double as VTK text, exactly (shortest round-trip form; integers
/// without exponent).
pub fn double(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:e}")
    }
}

/// The four header lines (`title` cut to one line of at most 255 characters).
pub fn write_header(w: &mut impl Write, title: &str) -> std::io::Result<()> {
    writeln!(w, "# vtk DataFile Version 3.0")?;
    let title: String = title.chars().filter(|&c| c != '\n').take(255).collect();
    writeln!(w, "{title}")?;
    writeln!(w, "ASCII")?;
    writeln!(w, "DATASET UNSTRUCTURED_GRID")
}

/// `CELLS` and `CELL_TYPES`: `conn` holds `per_cell` point indices per cell.
pub fn write_cells(
    w: &mut impl Write,
    conn: &[i64],
    per_cell: usize,
    vtk_type: u8,
) -> std::io::Result<()> {
    let n = conn.len().checked_div(per_cell).unwrap_or(0);
    writeln!(w, "CELLS {n} {}", n * (per_cell + 1))?;
    for row in conn.chunks(per_cell.max(1)).take(n) {
        write!(w, "{per_cell}")?;
        for v in row {
            write!(w, " {v}")?;
        }
        writeln!(w)?;
    }
    writeln!(w, "CELL_TYPES {n}")?;
    for _ in 0..n {
        writeln!(w, "{vtk_type}")?;
    }
    Ok(())
}

/// One `int` array of one component (inside a `FIELD` block).
pub fn write_int_array(w: &mut impl Write, name: &str, values: &[i32]) -> std::io::Result<()> {
    writeln!(w, "{} 1 {} int", token(name), values.len())?;
    for v in values {
        writeln!(w, "{v}")?;
    }
    Ok(())
}

/// A grid for [`legacy_grid`]: `coords` holds `dim` (1 to 3) values per
/// point; `cells`, when given, `per_cell` point indices per cell, otherwise
/// every point is a vertex cell; `cell_data` one value per cell each.
pub struct LegacyGrid<'a> {
    pub title: &'a str,
    pub coords: &'a [f64],
    pub dim: usize,
    pub cells: Option<(&'a [i64], usize)>,
    pub cell_data: &'a [(&'a str, &'a [i32])],
}

/// The whole legacy ASCII file of `g`.
pub fn legacy_grid(g: &LegacyGrid<'_>) -> String {
    let mut w = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_grid(&mut w, g);
    String::from_utf8_lossy(&w).into_owned()
}

fn write_grid(w: &mut Vec<u8>, g: &LegacyGrid<'_>) -> std::io::Result<()> {
    write_header(w, g.title)?;
    let dim = g.dim.clamp(1, 3);
    let npoints = g.coords.len() / g.dim.max(1);
    writeln!(w, "POINTS {npoints} double")?;
    for p in g.coords.chunks(g.dim.max(1)).take(npoints) {
        let c = |i: usize| if i < dim { double(p[i]) } else { "0".into() };
        writeln!(w, "{} {} {}", c(0), c(1), c(2))?;
    }
    let ncells = match g.cells {
        Some((conn, per_cell)) => {
            write_cells(w, conn, per_cell, cell_type_for(per_cell))?;
            conn.len() / per_cell.max(1)
        }
        None => {
            let conn: Vec<i64> = (0..npoints as i64).collect();
            write_cells(w, &conn, 1, 1)?;
            npoints
        }
    };
    if !g.cell_data.is_empty() {
        writeln!(w, "CELL_DATA {ncells}")?;
        writeln!(w, "FIELD FieldData {}", g.cell_data.len())?;
        for (name, values) in g.cell_data {
            write_int_array(w, name, values)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_with_ranks() {
        let coords = [0.0, 0.0, 1.0, 0.0, 0.5, 1.5, 2.0, 1.0];
        let conn = [0, 1, 2, 1, 3, 2];
        let ranks = [0, 1];
        let text = legacy_grid(&LegacyGrid {
            title: "t\nx",
            coords: &coords,
            dim: 2,
            cells: Some((&conn, 3)),
            cell_data: &[("rank", &ranks)],
        });
        let want = "# vtk DataFile Version 3.0\ntx\nASCII\nDATASET UNSTRUCTURED_GRID\n\
POINTS 4 double\n0 0 0\n1 0 0\n5e-1 1.5e0 0\n2 1 0\nCELLS 2 8\n3 0 1 2\n3 1 3 2\n\
CELL_TYPES 2\n5\n5\nCELL_DATA 2\nFIELD FieldData 1\nrank 1 2 int\n0\n1\n";
        assert_eq!(text, want);
    }

    #[test]
    fn points_only_become_vertices() {
        let coords = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let text = legacy_grid(&LegacyGrid {
            title: "p",
            coords: &coords,
            dim: 3,
            cells: None,
            cell_data: &[("my rank", &[0, 0])],
        });
        assert!(text.contains("POINTS 2 double\n1 2 3\n4 5 6\n"));
        assert!(text.contains("CELLS 2 4\n1 0\n1 1\nCELL_TYPES 2\n1\n1\n"));
        assert!(text.contains("my_rank 1 2 int\n0\n0\n"));
    }
}
