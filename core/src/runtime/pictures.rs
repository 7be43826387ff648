//! `OP2_RS_PARTITION_VTK=FILE.vtk`: the partition `op_partition` made, as a
//! legacy VTK unstructured grid with each element's rank as cell data
//! `rank`. Collective: before partitioning, every process's declared block
//! of the coordinates (and of the map's rows when the coordinates are on
//! the map's to-set) is gathered; after it, every process's owned elements
//! (their declared indices); rank 0 writes one file. One file for any
//! number of processes is what ParaView opens directly, and the gathered
//! arrays are the declared mesh, never more than one copy of it.
//!
//! Cells are the map's rows when the coordinates are on its to-set (the
//! ranks of its from-set), or the rows of the first declared map from
//! `op_partition`'s set to the coordinates' set; otherwise the coordinates'
//! elements are vertex cells (the ranks of their set). A failure to write is one line on stderr
//! naming the variable and the file; the run goes on.

use super::Runtime;
use crate::dist::collective::{from_bytes, to_bytes};
use crate::dist::PartitionRequest;
use crate::domain::{DatId, MapId, SetId};
use crate::error::Result;
use crate::types::ScalarType;

/// The variable naming the partition picture.
pub const PARTITION_PICTURE: &str = "OP2_RS_PARTITION_VTK";

/// The declared mesh, gathered before partitioning.
pub(super) struct Snapshot {
    path: std::path::PathBuf,
    coords: Vec<f64>,
    dim: usize,
    cells: Option<(Vec<i64>, usize)>,
    set: SetId,
    title: String,
}

/// Native-endian f64 or f32 values as f64.
fn values_f64(bytes: &[u8], scalar: ScalarType) -> Vec<f64> {
    match scalar {
        ScalarType::F32 => from_bytes::<f32>(bytes)
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => from_bytes::<f64>(bytes),
    }
}

impl Runtime {
    /// One line on stderr (rank 0) about the partition picture.
    fn picture_note(&self, what: &str) {
        if self.dist.rank() == 0 {
            eprintln!("op2-rs: {PARTITION_PICTURE}: {what} (the run goes on)");
        }
    }

    /// The map whose rows are the picture's cells: `op_partition`'s map
    /// when the coordinates are on its to-set, else the first declared map
    /// from `op_partition`'s set to the coordinates' set (airfoil passes
    /// edges -> cells and nodes' coordinates: its cells -> nodes map).
    fn picture_map(&self, req: &PartitionRequest, coords_set: SetId) -> Option<MapId> {
        let given = req.map.filter(|&m| self.dom.map(m).to == coords_set);
        given.or_else(|| self.first_map(req.set?, coords_set))
    }

    /// Before `op_partition`: gather what the picture needs, when asked for.
    pub(super) fn partition_snapshot(
        &mut self,
        req: &PartitionRequest,
    ) -> Result<Option<Snapshot>> {
        let Some(path) = std::env::var_os(PARTITION_PICTURE).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        if self.dist.is_partitioned() {
            return Ok(None);
        }
        let path = std::path::PathBuf::from(path);
        let Some(coords) = req.coords else {
            self.picture_note(&format!(
                "op_partition got no coordinates dat: '{}' not written",
                path.display()
            ));
            return Ok(None);
        };
        let d = self.dom.dat(coords);
        if !coordinates_like(d, 1..=3) {
            let msg = format!(
                "coordinates dat '{}' is not 1 to 3 doubles or floats: '{}' not written",
                d.name,
                path.display()
            );
            self.picture_note(&msg);
            return Ok(None);
        }
        let (dim, scalar, cset) = (d.dim, d.scalar, d.set);
        let n = self.dom.set(cset).size;
        let local = d.data.as_slice()[..n * d.elem_bytes].to_vec();
        let coords_all = values_f64(&self.dist.allgather_bytes(&local)?.concat(), scalar);
        let mut set = cset;
        let mut cells = None;
        let mut title = format!("op2-rs partition: coordinates '{}'", d.name);
        if let Some(mid) = self.picture_map(req, cset) {
            let m = self.dom.map(mid);
            let rows = self.dom.set(m.from).size * m.dim;
            let mine: Vec<i64> = m.values[..rows].iter().map(|&v| i64::from(v)).collect();
            let (mdim, from, name) = (m.dim, m.from, m.name.clone());
            let all = from_bytes::<i64>(&self.dist.allgather_bytes(&to_bytes(&mine))?.concat());
            cells = Some((all, mdim));
            set = from;
            title.push_str(&format!(", cells: map '{name}'"));
        }
        Ok(Some(Snapshot {
            path,
            coords: coords_all,
            dim,
            cells,
            set,
            title,
        }))
    }

    /// After `op_partition`: gather each element's rank; rank 0 writes.
    pub(super) fn partition_picture(&mut self, s: Snapshot) -> Result<()> {
        let owned = self.dom.set(s.set).size;
        let ids: Vec<u64> = match self.dist.global_ids(s.set) {
            Some(g) => g.iter().take(owned).map(|&i| i as u64).collect(),
            None => (0..owned as u64).collect(),
        };
        let per_rank = self.dist.allgather_bytes(&to_bytes(&ids))?;
        if self.dist.rank() != 0 {
            return Ok(());
        }
        let total = match &s.cells {
            Some((conn, per_cell)) => conn.len() / (*per_cell).max(1),
            None => s.coords.len() / s.dim,
        };
        let mut ranks = vec![-1i32; total];
        for (r, bytes) in per_rank.iter().enumerate() {
            for id in from_bytes::<u64>(bytes) {
                if let Some(slot) = ranks.get_mut(id as usize) {
                    *slot = r as i32;
                }
            }
        }
        let text = crate::vtk::legacy_grid(&crate::vtk::LegacyGrid {
            title: &s.title,
            coords: &s.coords,
            dim: s.dim,
            cells: s.cells.as_ref().map(|(c, d)| (c.as_slice(), *d)),
            cell_data: &[("rank", &ranks)],
        });
        if let Err(e) = std::fs::write(&s.path, text) {
            self.picture_note(&format!("cannot write '{}': {e}", s.path.display()));
        }
        Ok(())
    }
}

/// The variable naming the directory of plan colourings as VTK files.
pub const PLAN_VTK: &str = "OP2_RS_PLAN_VTK";

/// The variable naming the coordinates dat of the plan pictures.
pub const PLAN_COORDS: &str = "OP2_RS_PLAN_COORDS";

/// Whether `d` can be a picture's coordinates: 1 to 3 doubles or floats.
fn coordinates_like(d: &crate::domain::Dat, dims: std::ops::RangeInclusive<usize>) -> bool {
    matches!(d.scalar, ScalarType::F64 | ScalarType::F32) && dims.contains(&d.dim)
}

impl Runtime {
    /// The first declared map from `from` to `to`.
    fn first_map(&self, from: SetId, to: SetId) -> Option<MapId> {
        let maps = self.dom.maps();
        let at = maps
            .iter()
            .position(|m| m.from == from && m.to == to && m.dim > 0)?;
        Some(MapId(at))
    }

    /// The coordinates of a loop over `set`'s plan picture and the map
    /// whose rows are its cells (`None`: the coordinates are on `set`, one
    /// vertex per element). The dat `OP2_RS_PLAN_COORDS` names, else the
    /// first declared dat of 2 or 3 doubles or floats on `set` or on the
    /// to-set of a map from `set`.
    fn plan_coords(&self, set: SetId) -> std::result::Result<(DatId, Option<MapId>), String> {
        let reach = |c: SetId| {
            if c == set {
                Some(None)
            } else {
                self.first_map(set, c).map(Some)
            }
        };
        let set_name = &self.dom.set(set).name;
        if let Some(want) = std::env::var(PLAN_COORDS).ok().filter(|w| !w.is_empty()) {
            let (id, d) = self
                .dom
                .dats()
                .find(|(_, d)| d.name == want)
                .ok_or_else(|| {
                    format!("{PLAN_COORDS} names dat '{want}', which is not declared")
                })?;
            if !coordinates_like(d, 1..=3) {
                return Err(format!(
                    "{PLAN_COORDS}: dat '{want}' is not 1 to 3 doubles or floats"
                ));
            }
            let on = &self.dom.set(d.set).name;
            return reach(d.set).map(|m| (id, m)).ok_or_else(|| {
                format!("{PLAN_COORDS}: dat '{want}' is on set '{on}' and no map leads from set '{set_name}' to it")
            });
        }
        self.dom
            .dats()
            .filter(|(_, d)| coordinates_like(d, 2..=3))
            .find_map(|(id, d)| reach(d.set).map(|m| (id, m)))
            .ok_or_else(|| {
                format!("no coordinates: no dat of 2 or 3 doubles or floats on set '{set_name}' or on a set a map from it leads to (name one with {PLAN_COORDS})")
            })
    }

    /// A loop's plan colouring as a legacy VTK grid: cell data `block`,
    /// `block_colour` and `thread_colour` per element the plan executes
    /// (this process's owned elements, then its exec halo), cells from a
    /// map's rows or vertices, points every local element of the
    /// coordinates' set. Err: why there is no picture.
    pub(super) fn plan_vtk(
        &self,
        name: &str,
        set: SetId,
        plan: &crate::plan::Plan,
    ) -> std::result::Result<String, String> {
        let (coords, map) = self.plan_coords(set)?;
        let d = self.dom.dat(coords);
        let stored = d.data.as_slice().len() / d.elem_bytes.max(1);
        let local = self.dom.set(d.set).total_size().min(stored);
        let xyz = values_f64(&d.data.as_slice()[..local * d.elem_bytes], d.scalar);
        let colouring = plan.colouring();
        let mut n = colouring.len();
        let (conn, per_cell, how) = match map {
            Some(mid) => {
                let m = self.dom.map(mid);
                n = n.min(m.values.len() / m.dim);
                let conn: Vec<i64> = m.values[..n * m.dim]
                    .iter()
                    .map(|&v| i64::from(v))
                    .collect();
                (conn, m.dim, format!("cells: map '{}'", m.name))
            }
            None => ((0..n as i64).collect(), 1, "vertices".to_string()),
        };
        if conn.iter().any(|&v| v < 0 || v as usize >= local) {
            return Err(format!(
                "a row of the cells' map points outside the {local} local elements of dat '{}'",
                d.name
            ));
        }
        let column = |k: usize| colouring[..n].iter().map(|c| c[k]).collect::<Vec<i32>>();
        let (block, bcol, tcol) = (column(0), column(1), column(2));
        let title = format!(
            "op2-rs plan of loop '{name}' over set '{}': coordinates '{}', {how}",
            self.dom.set(set).name,
            d.name
        );
        Ok(crate::vtk::legacy_grid(&crate::vtk::LegacyGrid {
            title: &title,
            coords: &xyz,
            dim: d.dim,
            cells: Some((&conn, per_cell)),
            cell_data: &[
                ("block", &block),
                ("block_colour", &bcol),
                ("thread_colour", &tcol),
            ],
        }))
    }
}
