//! The text report of `op_profile_output` ([`Profiler::output`]), in OP2's
//! layout.

use super::tree::{Clock, Node, NodeKind, Profiler};
use super::{LEVEL_DISABLED, LEVEL_KERNEL_DETAILED};
use std::fmt::Write as _;
use std::time::Duration;

/// Number of kernel rows printed per table before `    (<n> more)`.
const KERNEL_ROW_LIMIT: usize = 20;
/// Number of kernels per table whose subtree is printed at level 3.
const DETAILED_KERNEL_LIMIT: usize = 4;
/// Column width of every duration in the report.
const DURATION_WIDTH: usize = 7;

/// Formats a duration into exactly `width` characters (OP2 always uses 7),
/// choosing the largest unit among `s`, `ms`, `us`, `ns` in which the value is
/// at least 1, and spending the remaining width on decimals.
///
/// Like OP2, the result is cut to `width` characters, so a value that rounds
/// up to an extra digit loses the end of its unit (999 999 ns prints as
/// `1000.0u`). A zero duration prints as `0.000ns` (OP2 reads past its unit
/// table there).
pub fn format_duration(d: Duration, width: usize) -> String {
    const UNITS: [&str; 4] = ["s", "ms", "us", "ns"];

    let mut value = seconds(d);
    let mut unit = 0;
    while unit < 3 && value < 1.0 {
        value *= 1000.0;
        unit += 1;
    }

    let remaining = width as i64 - UNITS[unit].len() as i64;
    let mut left = 1i64;
    let mut scaled = value;
    while scaled >= 10.0 {
        left += 1;
        scaled /= 10.0;
    }
    let right = (remaining - left - 1).max(0);
    let padding = if right == 0 {
        (remaining - left).max(0)
    } else {
        0
    };

    let mut text = format!(
        "{:pad$}{:>left$.right$}{}",
        "",
        value,
        UNITS[unit],
        pad = padding as usize,
        left = left as usize,
        right = right as usize,
    );
    text.truncate(width);
    text
}

/// Duration as floating-point seconds, computed as OP2 does
/// (nanosecond count divided by 1e9).
fn seconds(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

/// `100 * part / whole`, or 0 when `whole` is zero (OP2 would print
/// `inf`/`nan` there).
fn percent(part: Duration, whole: Duration) -> f64 {
    if whole.is_zero() {
        0.0
    } else {
        100.0 * seconds(part) / seconds(whole)
    }
}

impl Clock {
    /// OP2's one-line summary: `*<n> total: <t>`, then ` (<p>%)` when a
    /// reference clock is given (percentage of its total, one decimal), then
    /// ` (average: <a>, min: <m>, max: <M>)` when `n > 1`.
    fn summary(&self, reference: Option<&Clock>) -> String {
        let mut line = format!(
            "*{} total: {}",
            self.n,
            format_duration(self.total, DURATION_WIDTH)
        );
        if let Some(reference) = reference {
            let _ = write!(line, " ({:.1}%)", percent(self.total, reference.total));
        }
        if self.n > 1 {
            let _ = write!(
                line,
                " (average: {}, min: {}, max: {})",
                format_duration(self.average(), DURATION_WIDTH),
                format_duration(self.min, DURATION_WIDTH),
                format_duration(self.max, DURATION_WIDTH)
            );
        }
        line
    }
}

impl Profiler {
    /// The text printed by `op_profile_output()` (empty at level 0 or before
    /// `start`). Built from [`snapshot`](Self::snapshot). Layout, as OP2:
    ///
    /// 1. every non-kernel node, depth first, indented 4 spaces per level:
    ///    `<name> *<n> total: <t>[ (average: <a>, min: <m>, max: <M>)]`,
    ///    followed by an empty line;
    /// 2. for every node with kernel children (in the same order): a header
    ///    `<path/of/node><pad>     num    total      avg      min      max`
    ///    (+ `    %kern` at level 3), one row per kernel child, slowest total
    ///    first (ties keep first-entry order), at most 20 rows then
    ///    `    (<k> more)`, then an empty line;
    /// 3. at level 3, after each table, the subtree of each of its four
    ///    slowest kernels (percentages relative to the kernel), each followed
    ///    by an empty line.
    ///
    /// Writing the JSON file named by `OP_PROFILE_JSON_OUTPUT`, and merging
    /// the trees of MPI ranks (see [`Profiler::merge_encoded`]), are the
    /// caller's job.
    pub fn output(&self) -> String {
        if self.level() == LEVEL_DISABLED {
            return String::new();
        }
        match self.snapshot() {
            Some(root) => render_report(&root, self.level()),
            None => String::new(),
        }
    }
}

/// Renders the full text report for `root` at `level` (>= 1).
fn render_report(root: &Node, level: u32) -> String {
    let mut out = String::new();
    let mut with_kernels: Vec<(Vec<&str>, &Node)> = Vec::new();
    let mut path = Vec::new();
    walk_non_kernel(root, &mut path, &mut with_kernels, 0, &mut out);
    out.push('\n');

    let mut longest = 0;
    for (path, node) in &with_kernels {
        let path_len: usize = path.iter().map(|p| p.len() + 1).sum();
        longest = longest.max(path_len);
        for child in &node.children {
            longest = longest.max(child.name.len() + 4);
        }
    }

    for (path, node) in &with_kernels {
        kernel_table(path, node, longest, level, &mut out);
    }
    out
}

fn walk_non_kernel<'a>(
    node: &'a Node,
    path: &mut Vec<&'a str>,
    with_kernels: &mut Vec<(Vec<&'a str>, &'a Node)>,
    indent: usize,
    out: &mut String,
) {
    path.push(&node.name);
    if node.children.iter().any(|c| c.kind == NodeKind::Kernel) {
        with_kernels.push((path.clone(), node));
    }
    let _ = writeln!(
        out,
        "{:indent$}{} {}",
        "",
        node.name,
        node.clock.summary(None)
    );
    for child in &node.children {
        if child.kind != NodeKind::Kernel {
            walk_non_kernel(child, path, with_kernels, indent + 4, out);
        }
    }
    path.pop();
}

fn kernel_table(path: &[&str], node: &Node, longest: usize, level: u32, out: &mut String) {
    let joined = path.join("/");
    let pad = (longest + 4).saturating_sub(joined.len());
    let _ = write!(
        out,
        "{joined}{:pad$}     num    total      avg      min      max",
        ""
    );
    if level >= LEVEL_KERNEL_DETAILED {
        out.push_str("    %kern");
    }
    out.push('\n');

    let mut kernels: Vec<&Node> = node
        .children
        .iter()
        .filter(|c| c.kind == NodeKind::Kernel)
        .collect();
    // Stable: kernels with equal totals keep first-entry order.
    kernels.sort_by_key(|k| std::cmp::Reverse(k.clock.total));

    for (row, kernel) in kernels.iter().enumerate() {
        if row >= KERNEL_ROW_LIMIT {
            let _ = writeln!(out, "    ({} more)", kernels.len() - KERNEL_ROW_LIMIT);
            break;
        }
        let mut kern_pct = String::new();
        if level >= LEVEL_KERNEL_DETAILED {
            let computation = kernel.child("Computation");
            let inner = computation.and_then(|c| c.child("Kernel")).or(computation);
            let pct = inner.map_or(0.0, |n| percent(n.clock.total, kernel.clock.total));
            kern_pct = format!("    {pct:5.1}");
            kern_pct.truncate(9);
        }
        let pad = longest.saturating_sub(kernel.name.len() + 4);
        let clock = &kernel.clock;
        let _ = writeln!(
            out,
            "    {}{:pad$}    {:>8}  {}  {}  {}  {}{}",
            kernel.name,
            "",
            clock.n,
            format_duration(clock.total, DURATION_WIDTH),
            format_duration(clock.average(), DURATION_WIDTH),
            format_duration(clock.min, DURATION_WIDTH),
            format_duration(clock.max, DURATION_WIDTH),
            kern_pct
        );
    }
    out.push('\n');

    if level < LEVEL_KERNEL_DETAILED {
        return;
    }
    for kernel in kernels.iter().take(DETAILED_KERNEL_LIMIT) {
        write_subtree(kernel, 4, None, out);
        out.push('\n');
    }
}

/// Prints `node` and all its descendants; every descendant's percentage is
/// relative to `reference`, which defaults to `node` itself below the top.
fn write_subtree(node: &Node, indent: usize, reference: Option<&Clock>, out: &mut String) {
    let _ = writeln!(
        out,
        "{:indent$}{} {}",
        "",
        node.name,
        node.clock.summary(reference)
    );
    let reference = reference.unwrap_or(&node.clock);
    for child in &node.children {
        write_subtree(child, indent + 4, Some(reference), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::test_util::{at, ms, ns, seq_loop, us};
    use std::time::Instant;

    const HEADER: &str = "     num    total      avg      min      max";

    fn fd(d: Duration) -> String {
        format_duration(d, DURATION_WIDTH)
    }

    #[test]
    fn format_duration_unit_boundaries() {
        assert_eq!(fd(ns(0)), "0.000ns");
        assert_eq!(fd(ns(1)), "1.000ns");
        assert_eq!(fd(ns(9)), "9.000ns");
        assert_eq!(fd(ns(10)), "10.00ns");
        assert_eq!(fd(ns(999)), "999.0ns");
        assert_eq!(fd(ns(1_000)), "1.000us");
        assert_eq!(fd(ns(1_500)), "1.500us");
        assert_eq!(fd(ns(999_000)), "999.0us");
        assert_eq!(fd(ns(1_000_000)), "1.000ms");
        assert_eq!(fd(ms(20)), "20.00ms");
        assert_eq!(fd(ms(999)), "999.0ms");
        assert_eq!(fd(ms(1_000)), "1.0000s");
        assert_eq!(fd(ms(1_500)), "1.5000s");
        assert_eq!(fd(ms(12_345)), "12.345s");
        assert_eq!(fd(ms(123_400)), "123.40s");
        assert_eq!(fd(ms(1_234_500)), "1234.5s");
        assert_eq!(fd(Duration::from_secs(12_345)), " 12345s");
        assert_eq!(fd(Duration::from_secs(123_456)), "123456s");
    }

    #[test]
    fn format_duration_is_always_seven_wide() {
        for &v in &[
            0u64,
            1,
            7,
            42,
            999,
            1_001,
            65_432,
            999_999,
            1_000_001,
            33_333_333,
            987_654_321,
            1_000_000_000,
            59_999_999_999,
            3_600_000_000_000,
        ] {
            assert_eq!(fd(ns(v)).len(), 7, "{v} ns -> {:?}", fd(ns(v)));
        }
    }

    #[test]
    fn format_duration_truncates_like_op2() {
        // Rounds up to an extra digit: the end of the unit is cut off.
        assert_eq!(fd(ns(999_999)), "1000.0u");
        assert_eq!(fd(ns(9_999_960_000)), "10.0000");
        assert_eq!(fd(Duration::from_secs(12_345_678)), "1234567");
        // 100 ns is 99.99999999999999 after scaling, so it gets two decimals.
        assert_eq!(fd(ns(100)), "100.00n");
        assert_eq!(fd(ns(9_999_999)), "10.000m");
        assert_eq!(format_duration(ms(1_500), 10), "1.5000000s");
        assert_eq!(format_duration(ms(1_500), 3), " 2s");
        assert_eq!(format_duration(ms(2_500), 3), " 2s"); // round half to even
        assert_eq!(format_duration(ms(1_500), 0), "");
    }

    #[test]
    fn clock_summary_lines() {
        let mut c = Clock::default();
        c.submit(ms(2));
        assert_eq!(c.summary(None), "*1 total: 2.000ms");
        c.submit(ms(4));
        assert_eq!(
            c.summary(None),
            "*2 total: 6.000ms (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
        let mut parent = Clock::default();
        parent.submit(ms(24));
        assert_eq!(
            c.summary(Some(&parent)),
            "*2 total: 6.000ms (25.0%) (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
        let zero = Clock::default();
        assert_eq!(
            c.summary(Some(&zero)),
            "*2 total: 6.000ms (0.0%) (average: 3.000ms, min: 2.000ms, max: 4.000ms)"
        );
    }

    #[test]
    fn level_one_ignores_kernels_but_times_user_sections() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("Loop", at(t, 1));
        seq_loop(
            &mut p,
            "save_soln",
            "Direct",
            t,
            [2_000, 2_100, 2_900, 3_000],
        );
        assert_eq!(p.current_section(), Some("Loop"));
        p.exit(at(t, 4));
        p.end(at(t, 5));
        let root = p.root().unwrap();
        assert_eq!(root.children.len(), 1);
        assert!(root.children[0].children.is_empty());
        assert_eq!(
            p.output(),
            "App *1 total: 5.000ms\n    Loop *1 total: 3.000ms\n\n"
        );
    }

    #[test]
    fn level_two_kernel_table() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        seq_loop(
            &mut p,
            "save_soln",
            "Direct",
            t,
            [1_000, 1_100, 2_900, 3_000],
        );
        seq_loop(
            &mut p,
            "res_calc",
            "Indirect",
            t,
            [3_000, 3_500, 7_000, 8_000],
        );
        seq_loop(
            &mut p,
            "res_calc",
            "Indirect",
            t,
            [8_000, 8_100, 8_900, 9_000],
        );
        p.end(at(t, 10));

        // Sections inside kernels are not recorded at level 2.
        let root = p.root().unwrap();
        assert!(root.children.iter().all(|k| k.children.is_empty()));
        assert!(root.children.iter().all(|k| k.kind == NodeKind::Kernel));

        // longest = max(len("App") + 1, len("res_calc/seq/Indirect") + 4) = 25
        let expected = format!(
            "App *1 total: 10.00ms\n\n\
             App{}{HEADER}\n    \
             res_calc/seq/Indirect           2  6.000ms  3.000ms  1.000ms  5.000ms\n    \
             save_soln/seq/Direct            1  2.000ms  2.000ms  2.000ms  2.000ms\n\n",
            " ".repeat(26)
        );
        assert_eq!(p.output(), expected);
    }

    #[test]
    fn kernel_tables_for_nested_sections_and_longest_name() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        p.enter("Timestep", at(t, 0));
        p.enter("A very long user section name", at(t, 0));
        p.exit(at(t, 1));
        p.enter_kernel("k", "seq", "Direct", at(t, 1));
        p.exit(at(t, 3));
        p.exit(at(t, 4));
        p.enter_kernel("top", "seq", "Direct", at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));

        // Nodes with kernel children, pre-order: App, then App/Timestep.
        // longest = max(4, 13, len("A very long user section name") + 4 = 33,
        //               len("k/seq/Direct") + 4, len("top/seq/Direct") + 4) = 33
        let out = p.output();
        let expected = format!(
            "App *1 total: 6.000ms\n    \
             Timestep *1 total: 4.000ms\n        \
             A very long user section name *1 total: 1.000ms\n\n\
             App{}{HEADER}\n    \
             top/seq/Direct{}           1  1.000ms  1.000ms  1.000ms  1.000ms\n\n\
             App/Timestep{}{HEADER}\n    \
             k/seq/Direct{}           1  2.000ms  2.000ms  2.000ms  2.000ms\n\n",
            " ".repeat(33 + 4 - 3),
            " ".repeat(33 - 18),
            " ".repeat(33 + 4 - 12),
            " ".repeat(33 - 16),
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn level_three_kern_column_and_detail() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        p.enter_kernel("update", "seq", "Direct", at(t, 0));
        p.enter("MPI Exchanges", at(t, 0));
        p.next("Computation", at(t, 1));
        p.enter("Kernel", at(t, 2));
        p.exit(at(t, 8));
        p.exit(at(t, 9));
        p.exit(at(t, 10));
        p.end(at(t, 10));

        let name = "update/seq/Direct"; // 17 chars, longest = 21
        let expected = format!(
            "App *1 total: 10.00ms\n\n\
             App{}{HEADER}    %kern\n    \
             {name}           1  10.00ms  10.00ms  10.00ms  10.00ms     60.0\n\n    \
             {name} *1 total: 10.00ms\n        \
             MPI Exchanges *1 total: 1.000ms (10.0%)\n        \
             Computation *1 total: 8.000ms (80.0%)\n            \
             Kernel *1 total: 6.000ms (60.0%)\n\n",
            " ".repeat(21 + 4 - 3),
        );
        assert_eq!(p.output(), expected);
    }

    #[test]
    fn level_three_kern_pct_falls_back_to_computation_or_zero() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        // Computation without a Kernel child: 3 of 4 ms.
        p.enter_kernel("a", "seq", "Direct", at(t, 0));
        p.enter("Computation", at(t, 1));
        p.exit(at(t, 4));
        p.exit(at(t, 4));
        // No Computation at all.
        p.enter_kernel("b", "seq", "Direct", at(t, 4));
        p.exit(at(t, 6));
        p.end(at(t, 6));
        let out = p.output();
        assert!(out.contains("4.000ms     75.0\n"), "{out}");
        assert!(out.contains("2.000ms      0.0\n"), "{out}");
        // The report does not add a Computation node to b.
        assert!(p.root().unwrap().children[1].children.is_empty());
    }

    #[test]
    fn level_three_details_only_four_slowest() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("App", at(t, 0));
        for i in 0..6u64 {
            p.enter_kernel(&format!("k{i}"), "seq", "Direct", at(t, 10 * i));
            p.exit(at(t, 10 * i + i + 1));
        }
        p.end(at(t, 100));
        let out = p.output();
        for i in 0..6 {
            let detail = format!("\n    k{i}/seq/Direct *1");
            assert_eq!(out.contains(&detail), i >= 2, "k{i}: {out}");
        }
    }

    #[test]
    fn more_than_twenty_kernels_truncates() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", us(t, 0));
        let mut clock = 0;
        for i in 0..25u64 {
            // k<i> takes (i + 1) microseconds, so k24 is slowest.
            p.enter_kernel(&format!("k{i:02}"), "seq", "Direct", us(t, clock));
            clock += i + 1;
            p.exit(us(t, clock));
        }
        p.end(us(t, clock));
        let out = p.output();
        let lines: Vec<&str> = out.lines().collect();
        // root line, blank, header, 20 rows, "(5 more)", blank
        assert_eq!(lines.len(), 25);
        assert!(lines[2].starts_with("App"));
        assert!(lines[3].starts_with("    k24/seq/Direct"));
        assert!(lines[22].starts_with("    k05/seq/Direct"));
        assert_eq!(lines[23], "    (5 more)");
        assert_eq!(lines[24], "");
        assert!(!out.contains("k04/seq"));
        assert!(out.ends_with("    (5 more)\n\n"));
    }

    #[test]
    fn exactly_twenty_kernels_has_no_more_line() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        for i in 0..20u64 {
            p.enter_kernel(&format!("k{i}"), "seq", "Direct", at(t, i));
            p.exit(at(t, i + 1));
        }
        p.end(at(t, 20));
        let out = p.output();
        assert!(!out.contains("more)"));
        assert_eq!(out.lines().count(), 2 + 1 + 20 + 1);
    }

    #[test]
    fn equal_totals_keep_entry_order() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", at(t, 0));
        for (i, name) in ["b", "a", "c"].iter().enumerate() {
            let i = i as u64;
            p.enter_kernel(name, "seq", "Direct", at(t, i));
            p.exit(at(t, i + 1));
        }
        p.end(at(t, 3));
        let out = p.output();
        let b = out.find("    b/seq").unwrap();
        let a = out.find("    a/seq").unwrap();
        let c = out.find("    c/seq").unwrap();
        assert!(b < a && a < c);
    }
}
