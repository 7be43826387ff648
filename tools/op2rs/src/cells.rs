//! The grid of `vtk` and `partition`: the cells (a map's rows), the points
//! (a coordinates dat), the VTK cell type and the dats to write.

use crate::mesh::{range_problem, Binding, Dat, Map, Mesh};
use crate::GridArgs;

/// A VTK cell type: name, VTK id, points per cell (`None`: any), and how
/// many shared points make two cells neighbours across a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellType {
    pub name: &'static str,
    pub vtk: u8,
    pub points: Option<usize>,
    pub face_points: usize,
}

/// Every cell type `--cell-type` takes.
pub const CELL_TYPES: &[CellType] = &[
    CellType {
        name: "vertex",
        vtk: 1,
        points: Some(1),
        face_points: 1,
    },
    CellType {
        name: "line",
        vtk: 3,
        points: Some(2),
        face_points: 1,
    },
    CellType {
        name: "triangle",
        vtk: 5,
        points: Some(3),
        face_points: 2,
    },
    CellType {
        name: "quad",
        vtk: 9,
        points: Some(4),
        face_points: 2,
    },
    CellType {
        name: "tetra",
        vtk: 10,
        points: Some(4),
        face_points: 3,
    },
    CellType {
        name: "hexahedron",
        vtk: 12,
        points: Some(8),
        face_points: 4,
    },
    CellType {
        name: "wedge",
        vtk: 13,
        points: Some(6),
        face_points: 3,
    },
    CellType {
        name: "pyramid",
        vtk: 14,
        points: Some(5),
        face_points: 3,
    },
    CellType {
        name: "polygon",
        vtk: 7,
        points: None,
        face_points: 2,
    },
    CellType {
        name: "polyline",
        vtk: 4,
        points: None,
        face_points: 1,
    },
];

fn by_name(name: &str) -> Option<CellType> {
    CELL_TYPES.iter().copied().find(|c| c.name == name)
}

/// The cell type of a map of dimension `dim`: the rule, or `--cell-type`.
pub fn cell_type(map: &Map, given: Option<&str>) -> Result<CellType, String> {
    let t = match given {
        Some(name) => by_name(name).ok_or_else(|| {
            let all: Vec<&str> = CELL_TYPES.iter().map(|c| c.name).collect();
            format!("--cell-type '{name}' is not one of {}", all.join(", "))
        })?,
        None => {
            let rule = match map.dim {
                1 => "vertex",
                2 => "line",
                3 => "triangle",
                4 => "quad",
                8 => "hexahedron",
                d => {
                    return Err(format!(
                        "map '{}' has dim {d}: no default cell type (1 vertex, 2 line, 3 triangle, 4 quad, 8 hexahedron); give --cell-type",
                        map.name
                    ))
                }
            };
            by_name(rule).ok_or("cell type table")?
        }
    };
    if let Some(p) = t.points.filter(|&p| p != map.dim) {
        return Err(format!(
            "--cell-type {} needs {p} points per cell, map '{}' has dim {}",
            t.name, map.name, map.dim
        ));
    }
    Ok(t)
}

/// A dat written as cell or point data.
pub struct Field<'a> {
    pub dat: &'a Dat,
    pub on_cells: bool,
}

/// The resolved grid.
pub struct Grid<'a> {
    pub map: &'a Map,
    pub coords: &'a Dat,
    pub cell_set: String,
    pub point_set: String,
    pub cell_type: CellType,
    pub fields: Vec<Field<'a>>,
}

impl Grid<'_> {
    pub fn ncells(&self) -> usize {
        self.map.rows as usize
    }
    pub fn npoints(&self) -> usize {
        self.coords.rows as usize
    }
}

fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    items.iter().map(name).collect::<Vec<_>>().join(", ")
}

fn find_map<'a>(mesh: &'a Mesh, name: &str) -> Result<&'a Map, String> {
    if let Some(m) = mesh.maps.iter().find(|m| m.name == name) {
        return Ok(m);
    }
    if mesh.dats.iter().any(|d| d.name == name) {
        return Err(format!("--cells '{name}' is a dat, not a map"));
    }
    Err(format!(
        "--cells: map '{name}' not found in file '{}' (maps: {})",
        mesh.path,
        names(&mesh.maps, |m| &m.name)
    ))
}

fn find_dat<'a>(mesh: &'a Mesh, opt: &str, name: &str) -> Result<&'a Dat, String> {
    if let Some(d) = mesh.dats.iter().find(|d| d.name == name) {
        return Ok(d);
    }
    if mesh.maps.iter().any(|m| m.name == name) {
        return Err(format!("{opt} '{name}' is a map, not a dat"));
    }
    Err(format!(
        "{opt}: dat '{name}' not found in file '{}' (dats: {})",
        mesh.path,
        names(&mesh.dats, |d| &d.name)
    ))
}

/// A set's name for messages (`?` with the row count when unknown).
fn set_name(b: &Binding, rows: u64) -> String {
    b.set()
        .map_or_else(|| format!("(no set of {rows} elements)"), str::to_string)
}

/// Decide where dat `name` goes: cells or points.
fn place<'a>(mesh: &'a Mesh, g: &Grid<'_>, name: &str) -> Result<Field<'a>, String> {
    let dat = find_dat(mesh, "--dats", name)?;
    let (on_cells, on_points) = match &dat.set {
        Binding::Given(s) => (*s == g.cell_set, *s == g.point_set),
        _ => (dat.rows == g.map.rows, dat.rows == g.coords.rows),
    };
    let (set, want) = if on_cells {
        (&g.cell_set, g.map.rows)
    } else {
        (&g.point_set, g.coords.rows)
    };
    if (on_cells || on_points) && dat.rows != want {
        return Err(format!(
            "--dats: dat '{name}' has {} rows, its set '{set}' has {want} elements",
            dat.rows
        ));
    }
    match (on_cells, on_points) {
        (true, false) => Ok(Field { dat, on_cells: true }),
        (false, true) => Ok(Field { dat, on_cells: false }),
        (true, true) => Err(format!(
            "--dats: dat '{name}' has {} rows, as many as both the cells' set '{}' and the points' set '{}': name its set with --set {name}=SET",
            dat.rows, g.cell_set, g.point_set
        )),
        (false, false) => Err(format!(
            "--dats: dat '{name}' is on set '{}' ({} rows), not on the cells' set '{}' ({} elements, --cells {}) or the points' set '{}' ({} elements, --coords {})",
            set_name(&dat.set, dat.rows),
            dat.rows,
            g.cell_set,
            g.map.rows,
            g.map.name,
            g.point_set,
            g.coords.rows,
            g.coords.name
        )),
    }
}

/// The map must point into the coordinates' set: refused when its to-set
/// is named with `--set`, or inferred without doubt, and is another set
/// (of another size).
fn check_to_set(mesh: &Mesh, map: &Map, coords: &Dat, point_set: &str) -> Result<(), String> {
    let (to, how) = match &map.to {
        Binding::Given(t) => (t, "--set"),
        Binding::Inferred(t) => (t, "inferred from its entries"),
        _ => return Ok(()),
    };
    let size = mesh.set(to).map_or(0, |s| s.size);
    if to == point_set || (how != "--set" && size == coords.rows) {
        return Ok(());
    }
    Err(format!(
        "--cells: map '{}' points into set '{to}' ({how}), the coordinates '{}' are on set '{point_set}' (if the map does point into '{point_set}', say so with --set {}=:{point_set})",
        map.name, coords.name, map.name
    ))
}

/// Resolve `--cells`, `--coords`, `--cell-type` and `--dats`.
pub fn resolve<'a>(mesh: &'a Mesh, args: &GridArgs) -> Result<Grid<'a>, String> {
    let map = find_map(mesh, &args.cells)?;
    let coords = find_dat(mesh, "--coords", &args.coords)?;
    if !(2..=3).contains(&coords.dim) {
        return Err(format!(
            "--coords: dat '{}' has dim {}, coordinates need dim 2 or 3",
            coords.name, coords.dim
        ));
    }
    let point_set = set_name(&coords.set, coords.rows);
    check_to_set(mesh, map, coords, &point_set)?;
    if let Some(msg) = range_problem(map, &point_set, coords.rows) {
        return Err(format!("{msg} (the points of --coords {})", coords.name));
    }
    let mut grid = Grid {
        map,
        coords,
        cell_set: set_name(&map.from, map.rows),
        point_set,
        cell_type: cell_type(map, args.cell_type.as_deref())?,
        fields: Vec::new(),
    };
    for name in args.dats.iter().filter(|n| !n.is_empty()) {
        let f = place(mesh, &grid, name)?;
        grid.fields.push(f);
    }
    Ok(grid)
}
