//! Per-kernel figures of one rank ([`KernelFigures`], what OP2 keeps in
//! `OP_kernels`) and the CSV of `op_timings_to_csv`, built on the root from
//! every rank's figures. The figures cross ranks in the binary encoding of
//! [`wire`](super::wire) ([`wire::encode_figures`](super::wire::encode_figures),
//! [`wire::decode_figures`](super::wire::decode_figures)), which keeps every
//! value bit for bit.

use std::fmt::Write as _;

/// One kernel's record on one rank (the timing table and the CSV).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelFigures {
    pub name: String,
    /// Number of times the kernel ran.
    pub count: i64,
    /// Seconds in the kernel, per thread (`OP_kernels[k].times`).
    pub times: Vec<f64>,
    /// Seconds spent building plans.
    pub plan_time: f64,
    /// Seconds in halo exchanges and reductions.
    pub mpi_time: f64,
    /// Bytes moved (estimate) and bytes including whole cache lines.
    pub transfer: f64,
    pub transfer2: f64,
}

impl KernelFigures {
    /// This rank's row of the timing table (time: the mean over threads
    /// that recorded any).
    pub fn row(&self) -> crate::timing::TimingRow {
        let (time, time_std) = crate::timing::moments_ignoring_zeros(&self.times);
        crate::timing::TimingRow {
            name: self.name.clone(),
            count: self.count,
            plan_time: self.plan_time,
            mpi_time: self.mpi_time,
            mpi_std: 0.0,
            time,
            time_std,
            transfer: self.transfer,
            transfer2: self.transfer2,
        }
    }
}

/// Header line of [`timings_csv`].
const CSV_HEADER: &str =
    "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name\n";

/// OP2's CSV from every rank's figures (`per_rank[r]` is rank `r`'s): for
/// each kernel (in the first rank's order), for each rank that ran it, one
/// row per thread; plan/MPI time and transfers on thread 0's row only; rows
/// of threads after the first that recorded no time are left out (as OP2's
/// single-node libraries do). A tab or newline in a kernel name is written
/// as a space, so that every row stays one line.
pub fn timings_csv(per_rank: &[Vec<KernelFigures>]) -> String {
    let mut s = String::from(CSV_HEADER);
    let nranks = per_rank.len();
    let Some(first) = per_rank.first() else {
        return s;
    };
    for kernel in first {
        for (rank, figures) in per_rank.iter().enumerate() {
            if let Some(f) = figures.iter().find(|f| f.name == kernel.name) {
                csv_rows(&mut s, rank, nranks, f);
            }
        }
    }
    s
}

/// The rows of one kernel on one rank.
fn csv_rows(s: &mut String, rank: usize, nranks: usize, f: &KernelFigures) {
    let name = f.name.replace(['\t', '\n'], " ");
    for (thread, t) in f.times.iter().enumerate() {
        if thread > 0 && *t == 0.0 {
            continue;
        }
        let (plan, mpi, gb1, gb2) = if thread == 0 {
            (f.plan_time, f.mpi_time, f.transfer / 1e9, f.transfer2 / 1e9)
        } else {
            (0.0, 0.0, 0.0, 0.0)
        };
        let _ = writeln!(
            s,
            "{rank},{thread},{nranks},{},{},{t:.6},{plan:.6},{mpi:.6},{gb1:.6},{gb2:.6},{name}",
            f.times.len(),
            f.count,
        );
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Figures with fixed plan/MPI times and transfers.
    pub(crate) fn k(name: &str, times: &[f64]) -> KernelFigures {
        KernelFigures {
            name: name.into(),
            count: 3,
            times: times.to_vec(),
            plan_time: 0.25,
            mpi_time: 0.5,
            transfer: 2e9,
            transfer2: 4e9,
        }
    }

    #[test]
    fn csv_has_a_row_per_rank_and_thread() {
        let r0 = vec![k("a", &[1.0, 2.0]), k("b", &[3.0, 0.0])];
        let r1 = vec![k("b", &[5.0, 6.0]), k("a", &[7.0, 0.0])];
        let text = timings_csv(&[r0, r1]);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows,
            [
                "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name",
                "0,0,2,2,3,1.000000,0.250000,0.500000,2.000000,4.000000,a",
                "0,1,2,2,3,2.000000,0.000000,0.000000,0.000000,0.000000,a",
                "1,0,2,2,3,7.000000,0.250000,0.500000,2.000000,4.000000,a",
                "0,0,2,2,3,3.000000,0.250000,0.500000,2.000000,4.000000,b",
                "1,0,2,2,3,5.000000,0.250000,0.500000,2.000000,4.000000,b",
                "1,1,2,2,3,6.000000,0.000000,0.000000,0.000000,0.000000,b",
            ]
        );
    }

    #[test]
    fn csv_without_ranks_is_the_header_and_names_stay_on_one_line() {
        assert_eq!(timings_csv(&[]), CSV_HEADER);
        let text = timings_csv(&[vec![k("a\tb\nc", &[1.0])]]);
        assert_eq!(
            text.lines().nth(1),
            Some("0,0,1,1,3,1.000000,0.250000,0.500000,2.000000,4.000000,a b c")
        );
        assert_eq!(text.lines().count(), 2);
    }
}
