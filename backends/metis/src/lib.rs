//! Graph k-way partitioning with METIS (`METIS_PartGraphKway`, vendored
//! METIS built from source by the `metis` crate), in a crate of its own so
//! that `libop2_mpi` (OP2's `KWAY` partitioner names without PT-Scotch) and
//! the `op2rs partition` tool run the same code on the same graph.

/// Graph k-way partition of a CSR graph (`xadj`: n + 1 offsets into
/// `adjncy`, symmetric, no self loops) into `nparts` parts: one part per
/// vertex. METIS with its default options, so deterministic: every caller
/// (every MPI rank) computes the same partition. One part, or no vertex,
/// needs no METIS.
pub fn kway(xadj: &[i32], adjncy: &[i32], nparts: usize) -> std::result::Result<Vec<i32>, String> {
    let n = xadj.len().saturating_sub(1);
    if nparts <= 1 || n == 0 {
        return Ok(vec![0; n]);
    }
    let parts = metis::Idx::try_from(nparts)
        .map_err(|_| format!("METIS k-way: {nparts} parts do not fit METIS's 32-bit index"))?;
    // metis::Idx is METIS's 32-bit idx_t, the same type as our CSR entries.
    let mut part: Vec<metis::Idx> = vec![0; n];
    let g = metis::Graph::new(1, parts, xadj, adjncy).map_err(|e| format!("METIS k-way: {e:?}"))?;
    g.part_kway(&mut part)
        .map_err(|e| format!("METIS k-way: {e:?}"))?;
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::kway;

    /// A ring of 8 vertices in 2 parts: 4 each, every part contiguous
    /// (cut 2), and the same answer twice.
    #[test]
    fn ring_in_two_parts() {
        let n = 8;
        let xadj: Vec<i32> = (0..=n).map(|i| 2 * i).collect();
        let adjncy: Vec<i32> = (0..n)
            .flat_map(|i| [(i + n - 1) % n, (i + 1) % n])
            .collect();
        let p = kway(&xadj, &adjncy, 2).unwrap();
        assert_eq!(p.iter().filter(|&&x| x == 0).count(), 4, "{p:?}");
        let cut = (0..n as usize)
            .filter(|&i| p[i] != p[(i + 1) % n as usize])
            .count();
        assert_eq!(cut, 2, "{p:?}");
        assert_eq!(p, kway(&xadj, &adjncy, 2).unwrap());
        assert_eq!(kway(&xadj, &adjncy, 1).unwrap(), vec![0; 8]);
        assert!(kway(&[0], &[], 4).unwrap().is_empty());
    }
}
