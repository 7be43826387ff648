//! Per-kernel timing summaries and the `op_timing_output` table (the figures
//! across MPI ranks are `dist::cross_rank`'s).

/// One row of `op_timing_output`.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingRow {
    pub name: String,
    pub count: i64,
    /// Seconds spent building plans for this kernel.
    pub plan_time: f64,
    /// Seconds in halo exchanges / reductions (mean and std over ranks).
    pub mpi_time: f64,
    pub mpi_std: f64,
    /// Seconds in the loop (mean and std over threads/ranks).
    pub time: f64,
    pub time_std: f64,
    /// Bytes moved (estimate) and bytes including whole cache lines.
    pub transfer: f64,
    pub transfer2: f64,
}

/// Mean and standard deviation of the non-zero entries of `times`
/// (OP2 ignores threads that recorded nothing).
pub fn moments_ignoring_zeros(times: &[f64]) -> (f64, f64) {
    let nz: Vec<f64> = times.iter().copied().filter(|t| *t != 0.0).collect();
    if nz.is_empty() {
        return (0.0, 0.0);
    }
    let n = nz.len() as f64;
    let m1 = nz.iter().sum::<f64>() / n;
    let m2 = nz.iter().map(|t| t * t).sum::<f64>() / n;
    (m1, (m2 - m1 * m1).max(0.0).sqrt())
}

/// The `op_timing_output` table in OP2's layout: a header, 91 dashes, then one
/// row per kernel that ran, slowest first (ties keep the given order).
/// Bandwidth is bytes / (loop time − plan time − MPI time) in GB/s.
pub fn format_table(rows: &[TimingRow]) -> String {
    let mut out = String::new();
    out.push_str(
        "\n  count   plan time     MPI time(std)        time(std)           GB/s      GB/s   kernel name ",
    );
    out.push_str("\n ");
    out.push_str(&"-".repeat(91));
    out.push('\n');
    let mut sorted: Vec<&TimingRow> = rows.iter().filter(|r| r.count > 0).collect();
    sorted.sort_by(|a, b| {
        b.time
            .partial_cmp(&a.time)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for r in sorted {
        let secs = r.time - r.plan_time - r.mpi_time;
        let gbs = |bytes: f64| {
            if secs > 0.0 {
                (bytes / (1e9 * secs)).max(0.0)
            } else {
                0.0
            }
        };
        if r.transfer2 < 1e-8 {
            out.push_str(&format!(
                " {:6};  {:8.4};  {:8.4}({:8.4});  {:8.4}({:8.4});  {:8.4};         ;   {} \n",
                r.count,
                r.plan_time,
                r.mpi_time,
                r.mpi_std,
                r.time,
                r.time_std,
                gbs(r.transfer),
                r.name
            ));
        } else {
            out.push_str(&format!(
                " {:6};  {:8.4};  {:8.4}({:8.4});  {:8.4}({:8.4}); {:8.4}; {:8.4};   {} \n",
                r.count,
                r.plan_time,
                r.mpi_time,
                r.mpi_std,
                r.time,
                r.time_std,
                gbs(r.transfer),
                gbs(r.transfer2),
                r.name
            ));
        }
    }
    out
}

/// `op_timing_output`'s text: the table, OP2's plan-time line when the
/// library builds plans for its loops, then `per_rank` (MPI).
pub fn timing_output(rows: &[TimingRow], plan_time: Option<f64>, per_rank: &str) -> String {
    let mut s = format_table(rows);
    if let Some(pt) = plan_time {
        s.push_str(&format!("Total plan time: {pt:8.4}\n"));
    }
    s.push_str(per_rank);
    s
}

/// OP2's timing table as `op_timing_output_2_file` writes it.
pub fn format_file_table(rows: &[TimingRow]) -> String {
    let mut s = String::from("\n  count     time     GB/s     GB/s   kernel name ");
    s.push_str(&format!("\n {} \n", "-".repeat(47)));
    let mut total = 0.0;
    for r in rows {
        total += r.time;
        let g = |b: f64| {
            if r.time > 0.0 {
                b / (1e9 * r.time)
            } else {
                0.0
            }
        };
        if r.transfer2 < 1e-8 {
            s.push_str(&format!(
                " {:6}  {:8.4} {:8.4}            {} \n",
                r.count,
                r.time,
                g(r.transfer),
                r.name
            ));
        } else {
            s.push_str(&format!(
                " {:6}  {:8.4} {:8.4} {:8.4}   {} \n",
                r.count,
                r.time,
                g(r.transfer),
                g(r.transfer2),
                r.name
            ));
        }
    }
    s.push_str(&format!("Total kernel time = {total:.6}\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, count: i64, time: f64) -> TimingRow {
        TimingRow {
            name: name.into(),
            count,
            plan_time: 0.0,
            mpi_time: 0.0,
            mpi_std: 0.0,
            time,
            time_std: 0.0,
            transfer: 2e9,
            transfer2: 0.0,
        }
    }

    #[test]
    fn layout_and_order() {
        let s = format_table(&[row("a", 3, 1.0), row("b", 0, 9.0), row("c", 1, 2.0)]);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "");
        assert!(lines[1].starts_with("  count   plan time"));
        assert!(lines[1].ends_with("kernel name "));
        assert_eq!(lines[2], format!(" {}", "-".repeat(91)));
        assert_eq!(
            lines[3],
            "      1;    0.0000;    0.0000(  0.0000);    2.0000(  0.0000);    1.0000;         ;   c "
        );
        assert!(lines[4].ends_with("   a "));
        assert_eq!(lines.len(), 5, "kernels that never ran are left out");
    }

    #[test]
    fn moments() {
        assert_eq!(moments_ignoring_zeros(&[0.0, 2.0, 4.0]), (3.0, 1.0));
        assert_eq!(moments_ignoring_zeros(&[0.0]), (0.0, 0.0));
    }
}
