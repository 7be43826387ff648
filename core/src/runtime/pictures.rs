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
use crate::domain::{MapId, SetId};
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
        given.or_else(|| {
            let set = req.set?;
            let maps = self.dom.maps();
            let at = maps
                .iter()
                .position(|m| m.from == set && m.to == coords_set && m.dim > 0)?;
            Some(MapId(at))
        })
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
        if !matches!(d.scalar, ScalarType::F64 | ScalarType::F32) || !(1..=3).contains(&d.dim) {
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
