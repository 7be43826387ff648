//! OP2's `op_force_part` without the global mesh: the primary elements that
//! rows of forced maps connect (transitively) end on one rank, the part of
//! the group's lowest global id (as [`super::driver::force_parts`]).
//!
//! Each element's group label starts as its own global id, kept by its
//! directory rank; every round, each declared forced row lowers the labels
//! of its elements to the smallest label among them, until no label moves
//! (rounds: the diameter of the largest group, plus one).

use super::directory::{self, exchange, lookup};
use super::Collectives;
use crate::domain::Domain;
use crate::error::{obj, Op2Error, Result};
use crate::partition::BlockDist;

/// Apply the forced maps to `part` (this rank's declared block of the
/// primary set `pset`). Collective; nothing to do (and no message) when no
/// map is forced.
pub fn force_parts(
    c: &dyn Collectives,
    dom: &Domain,
    blocks: &[BlockDist],
    pset: usize,
    part: &mut [i32],
) -> Result<()> {
    let forced: Vec<usize> = (0..dom.maps().len())
        .filter(|&m| dom.maps()[m].force_part)
        .collect();
    if forced.is_empty() {
        return Ok(());
    }
    for &m in &forced {
        let map = &dom.maps()[m];
        if map.to.0 != pset {
            return Err(Op2Error::new(
                "op_partition",
                obj("map", &map.name),
                format!(
                    "op_force_part: the map points into set \"{}\", not into the primary set \"{}\" of the partition",
                    dom.sets()[map.to.0].name,
                    dom.sets()[pset].name
                ),
            ));
        }
    }
    let b = &blocks[pset];
    let start = b.range(c.rank()).start;
    let mut label: Vec<u32> = (0..part.len()).map(|i| (start + i) as u32).collect();
    loop {
        let mut send = vec![Vec::<u32>::new(); c.size()];
        for &m in &forced {
            let map = &dom.maps()[m];
            let q: Vec<u32> = map.values.iter().map(|&v| v as u32).collect();
            let l = lookup(c, b, &label, &q)?;
            for (row, lab) in q.chunks_exact(map.dim).zip(l.chunks_exact(map.dim)) {
                let low = *lab.iter().min().expect("dim > 0");
                for (&e, &le) in row.iter().zip(lab) {
                    if low < le {
                        send[b.owner(e as usize)].extend([e, low]);
                    }
                }
            }
        }
        let mut moved = false;
        for msg in exchange(c, send)? {
            for p in msg.chunks_exact(2) {
                let slot = &mut label[p[0] as usize - start];
                if p[1] < *slot {
                    *slot = p[1];
                    moved = true;
                }
            }
        }
        if !directory::any(c, moved)? {
            break;
        }
    }
    let original = part.to_vec();
    let lp = lookup(c, b, &original, &label)?;
    part.copy_from_slice(&lp);
    Ok(())
}
