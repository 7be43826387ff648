//! Figures across ranks for the timing output: OP2's `mpi_timing_output`
//! table (per-rank kernel times and halo traffic, max and average over
//! ranks), behind [`super::Gathering::timing_across_ranks`] under MPI.

use super::collective::{allgatherv, Collectives};
use crate::error::Result;
use crate::timing::TimingRow;

/// Under MPI the timing table shows each kernel's loop and MPI time as mean
/// (std) over ranks: `rows` (this rank's) are updated in place on every rank.
/// Returns, as OP2's `mpi_timing_output`, every rank's kernel times and
/// halo traffic (`halo`: bytes sent, dat exchanges) and the max/average over
/// ranks. Collective.
pub fn timing_across_ranks(
    c: &dyn Collectives,
    rows: &mut [TimingRow],
    halo: (u64, u64),
) -> Result<String> {
    let halo: Vec<u64> = allgatherv(c, &[halo.0, halo.1])?.0;
    let local: Vec<f64> = rows
        .iter()
        .flat_map(|r| [r.time, r.mpi_time, r.count as f64])
        .collect();
    let (all, counts) = allgatherv(c, &local)?;
    // Every rank runs the same loops, so the rows line up; if not, keep local figures.
    if counts.iter().any(|&n| n != local.len()) {
        return Ok(String::new());
    }
    let nranks = c.size();
    let at = |r: usize, k: usize, f: usize| all[r * local.len() + 3 * k + f];
    let moments = |v: Vec<f64>| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let m2 = v.iter().map(|x| x * x).sum::<f64>() / n;
        (m, (m2 - m * m).max(0.0).sqrt())
    };
    for (k, row) in rows.iter_mut().enumerate() {
        (row.time, row.time_std) = moments((0..nranks).map(|r| at(r, k, 0)).collect());
        (row.mpi_time, row.mpi_std) = moments((0..nranks).map(|r| at(r, k, 1)).collect());
    }
    let bar = "_".repeat(51);
    let mut s = String::new();
    for r in 0..nranks {
        s.push_str(&format!("\n{bar}\nPerformance information on rank {r}\nKernel        Count  total time(sec)  Avg time(sec)  \n"));
        for (k, row) in rows.iter().enumerate() {
            let (t, n) = (at(r, k, 0), at(r, k, 2));
            s.push_str(&format!(
                "{:<10}  {:6}       {:10.4}      {:10.4}    \n",
                row.name,
                n as i64,
                t,
                if n > 0.0 { t / n } else { 0.0 }
            ));
        }
        s.push_str(&format!(
            "Halo exchanges: {} bytes sent in {} dat exchanges\n{bar}\n",
            halo[2 * r],
            halo[2 * r + 1]
        ));
    }
    s.push_str("\nKernel        Count   Max time(sec)   Avg time(sec)  \n");
    for (k, row) in rows.iter().enumerate() {
        let max = (0..nranks).map(|r| at(r, k, 0)).fold(0.0, f64::max);
        s.push_str(&format!(
            "{:<10}  {:6}       {:10.4}      {:10.4}    \n",
            row.name, row.count, max, row.time
        ));
    }
    Ok(s)
}
