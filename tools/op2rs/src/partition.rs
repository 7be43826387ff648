//! `op2rs partition`: op2-core's partitioners on simulated ranks, in one
//! process, with the partition's quality and each rank's halo.

use crate::cells::{resolve, Grid};
use crate::vtk::{check_output, load, write, IntField};
use crate::{GridArgs, SetArgs};
use op2_core::graph::{dual_graph, GlobalMap};
use op2_core::partition::{block, imbalance, inertial, part_sizes, random, rcb};

/// The most simulated ranks (each costs a few counters per rank).
const MAX_RANKS: usize = 1 << 20;

/// The centroid of every cell (`cdim` values each).
fn centroids(g: &Grid<'_>) -> Vec<f64> {
    let cdim = g.coords.dim;
    let mut out = Vec::with_capacity(g.ncells() * cdim);
    for row in g.map.values.chunks(g.map.dim.max(1)) {
        for d in 0..cdim {
            let s: f64 = row
                .iter()
                .map(|&p| g.coords.values[p as usize * cdim + d])
                .sum();
            out.push(s / row.len() as f64);
        }
    }
    out
}

/// The rank of every cell.
fn parts(g: &Grid<'_>, ranks: usize, name: &str, seed: u64) -> Result<Vec<i32>, String> {
    let n = g.ncells();
    match name {
        "block" => Ok(block(n, ranks)),
        "random" => Ok(random(n, ranks, seed)),
        "rcb" | "inertial" if n == 0 => Ok(Vec::new()),
        "rcb" => Ok(rcb(&centroids(g), g.coords.dim, ranks)),
        "kway" => {
            let graph = cell_graph(g)?;
            op2_metis::kway(&graph.xadj, &graph.adjncy, ranks)
        }
        "inertial" => Ok(inertial(&centroids(g), g.coords.dim, ranks)),
        other => Err(format!(
            "--partitioner '{other}' is not one of kway, rcb, inertial, block, random"
        )),
    }
}

/// Per rank: the cells of other ranks that touch a point one of its cells touches.
pub fn halo_sizes(
    values: &[i64],
    dim: usize,
    npoints: usize,
    part: &[i32],
    ranks: usize,
) -> Vec<usize> {
    // the ranks touching each point
    let mut touch: Vec<Vec<i32>> = vec![Vec::new(); npoints];
    for (row, &r) in values.chunks(dim.max(1)).zip(part) {
        for &p in row {
            let t = &mut touch[p as usize];
            if !t.contains(&r) {
                t.push(r);
            }
        }
    }
    let mut halo = vec![0usize; ranks];
    let mut seen: Vec<i32> = Vec::new();
    for (row, &r) in values.chunks(dim.max(1)).zip(part) {
        seen.clear();
        for &p in row {
            for &q in &touch[p as usize] {
                if q != r && !seen.contains(&q) {
                    seen.push(q);
                    halo[q as usize] += 1;
                }
            }
        }
    }
    halo
}

/// The cells' graph: two cells adjacent when they share a face (at least
/// the cell type's face points; op2-core's `dual_graph`).
fn cell_graph(g: &Grid<'_>) -> Result<op2_core::graph::Csr, String> {
    let values: Vec<i32> = g
        .map
        .values
        .iter()
        .map(|&v| {
            i32::try_from(v)
                .map_err(|_| format!("map '{}': entry {v} does not fit an int", g.map.name))
        })
        .collect::<Result<_, _>>()?;
    let map = GlobalMap {
        from: 0,
        to: 1,
        dim: g.map.dim,
        values: &values,
    };
    dual_graph(&map, g.npoints(), g.cell_type.face_points)
        .map_err(|e| format!("cannot build the cell graph of map '{}': {e}", g.map.name))
}

/// Edge cut and the number of face-neighbour pairs.
fn edge_cut(g: &Grid<'_>, part: &[i32]) -> Result<(usize, usize), String> {
    let graph = cell_graph(g)?;
    Ok((graph.edge_cut(part), graph.nentries() / 2))
}

/// Run `op2rs partition`.
pub fn run(
    file: &str,
    ranks: usize,
    partitioner: &str,
    seed: u64,
    args: &GridArgs,
    sets: &SetArgs,
) -> Result<bool, String> {
    if ranks == 0 || ranks > MAX_RANKS {
        return Err(format!(
            "--ranks must be between 1 and {MAX_RANKS}, not {ranks}"
        ));
    }
    check_output(&args.output)?;
    let mesh = load(file, sets)?;
    let g = resolve(&mesh, args)?;
    let part = parts(&g, ranks, partitioner, seed)?;
    let sizes = part_sizes(&part, ranks);
    let halo = halo_sizes(&g.map.values, g.map.dim, g.npoints(), &part, ranks);
    let (cut, pairs) = edge_cut(&g, &part)?;
    println!(
        "partition of set '{}' ({} cells, map '{}') into {ranks} ranks by {partitioner}",
        g.cell_set,
        g.ncells(),
        g.map.name
    );
    println!("rank  cells  halo");
    for r in 0..ranks {
        println!("{r:>4}  {:>5}  {:>4}", sizes[r], halo[r]);
    }
    println!("imbalance {:.4}", imbalance(&part, ranks));
    println!(
        "edge cut {cut} (of {pairs} pairs of cells sharing at least {} point(s))",
        g.cell_type.face_points
    );
    println!("halo: cells of other ranks touching a point of one of the rank's cells");
    let title = format!("op2rs partition {file} --ranks {ranks} --partitioner {partitioner}");
    let extra = [IntField {
        name: "rank",
        values: &part,
    }];
    if g.fields.iter().any(|f| f.dat.name == "rank" && f.on_cells) {
        return Err(
            "--dats: a dat named 'rank' clashes with the partition's cell data 'rank'".into(),
        );
    }
    write(&args.output, &title, &g, &extra)?;
    println!("wrote {}", args.output);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::halo_sizes;

    #[test]
    fn halo_of_a_strip() {
        // four cells in a row, each between points c and c + 1; ranks 0 0 1 1
        let values = [0, 1, 1, 2, 2, 3, 3, 4];
        let part = [0, 0, 1, 1];
        assert_eq!(halo_sizes(&values, 2, 5, &part, 2), [1, 1]);
        // a rank holding nothing has no halo; three ranks 0 1 0 2
        let part = [0, 1, 0, 2];
        assert_eq!(halo_sizes(&values, 2, 5, &part, 4), [2, 2, 1, 0]);
    }
}
