//! Helpers shared by tests/tests/generated.rs and tests/tests/threads.rs
//! (included with `#[path]`): reading dats written by
//! `op_print_dat_to_binfile`, comparing runs numerically, and picking the
//! result lines and the timing table out of a program's output.
#![allow(dead_code)]

use std::path::Path;

/// A double-precision dat as written by `op_print_dat_to_binfile`:
/// int32 element count, int32 dim, then the values.
pub struct DatFile {
    pub count: usize,
    pub dim: usize,
    pub values: Vec<f64>,
}

pub fn read_f64_dat(path: &Path) -> DatFile {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(b.len() >= 8, "{}: no header", path.display());
    let int = |i: usize| i32::from_ne_bytes(b[i..i + 4].try_into().unwrap());
    let (count, dim) = (int(0), int(4));
    assert!(
        count >= 0 && dim > 0,
        "{}: header {count} {dim}",
        path.display()
    );
    let (count, dim) = (count as usize, dim as usize);
    assert_eq!(
        b.len(),
        8 + count * dim * 8,
        "{}: {count} x {dim} doubles expected",
        path.display()
    );
    let values = b[8..]
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    DatFile { count, dim, values }
}

/// How far one dat is from a reference dat of the same shape.
#[derive(Debug, Clone, Copy)]
pub struct DatDiff {
    /// max |got - ref| / (max over elements of |ref| in that component):
    /// the relative error normwise per component.
    pub scaled: f64,
    /// max |got - ref| / max(|got|, |ref|) element by element (large where a
    /// component passes through zero, so not what a tolerance is put on).
    pub pointwise: f64,
    pub identical: bool,
}

pub fn dat_diff(got: &DatFile, reference: &DatFile) -> DatDiff {
    assert_eq!(
        (got.count, got.dim),
        (reference.count, reference.dim),
        "dat shapes differ"
    );
    let dim = reference.dim;
    let mut scale = vec![0.0f64; dim];
    for (i, v) in reference.values.iter().enumerate() {
        scale[i % dim] = scale[i % dim].max(v.abs());
    }
    let (mut scaled, mut pointwise) = (0.0f64, 0.0f64);
    for (i, (a, b)) in got.values.iter().zip(&reference.values).enumerate() {
        let d = (a - b).abs();
        assert!(
            d.is_finite(),
            "element {} is not finite: {a} vs {b}",
            i / dim
        );
        if d > 0.0 {
            scaled = scaled.max(d / scale[i % dim].max(f64::MIN_POSITIVE));
            pointwise = pointwise.max(d / a.abs().max(b.abs()));
        }
    }
    DatDiff {
        scaled,
        pointwise,
        identical: got
            .values
            .iter()
            .map(|v| v.to_bits())
            .eq(reference.values.iter().map(|v| v.to_bits())),
    }
}

/// Sum over elements of |value|, per component (the scale of a component sum).
pub fn abs_sums(d: &DatFile) -> Vec<f64> {
    let mut s = vec![0.0f64; d.dim];
    for (i, v) in d.values.iter().enumerate() {
        s[i % d.dim] += v.abs();
    }
    s
}

/// The lines a program prints about its results: without OP2's banner,
/// options, diagnostic tables, plan reports and timing table, and without
/// run times.
pub fn result_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            !(l.trim().is_empty()
                || l.contains("Initializing OP2")
                || l.contains("runtime")
                || l.contains("plan time")
                || l.contains(';')
                || l.starts_with(" OP_")
                || l.starts_with("  count ")
                || l.starts_with(" ---")
                || l.starts_with(" plan ")
                || l.starts_with(" new execution plan")
                || l.starts_with(" number of ")
                || l.starts_with(" maximum block")
                || l.starts_with(" average ")
                || l.starts_with(" shared memory")
                || l.starts_with(" data transfer"))
        })
        .map(str::to_string)
        .collect()
}

/// Relative difference of two numbers (0 when equal).
pub fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

/// Compare two runs' lines token by token: tokens that parse as numbers may
/// differ (the largest relative difference is returned), all other tokens
/// must be equal.
pub fn max_rel_diff_lines(got: &[String], want: &[String]) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!(
            "{} lines vs {} lines:\n{got:#?}\n{want:#?}",
            got.len(),
            want.len()
        ));
    }
    let mut worst = 0.0f64;
    for (g, w) in got.iter().zip(want) {
        let (gt, wt): (Vec<&str>, Vec<&str>) = (
            g.split(|c: char| c.is_whitespace() || c == ',').collect(),
            w.split(|c: char| c.is_whitespace() || c == ',').collect(),
        );
        if gt.len() != wt.len() {
            return Err(format!("{g:?} vs {w:?}"));
        }
        for (a, b) in gt.iter().zip(&wt) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => worst = worst.max(rel(x, y)),
                _ if a == b => {}
                _ => return Err(format!("{g:?} vs {w:?}")),
            }
        }
    }
    Ok(worst)
}

/// The numbers on the line that starts with `prefix`.
pub fn numbers_after(stdout: &str, prefix: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in\n{stdout}"));
    line[prefix.len()..]
        .split_whitespace()
        .map(|t| t.parse().unwrap_or_else(|_| panic!("{t:?} in {line:?}")))
        .collect()
}

/// Rows of op_timing_output's table: (kernel name, count).
pub fn timing_rows(stdout: &str) -> Vec<(String, i64)> {
    stdout
        .lines()
        .filter(|l| l.matches(';').count() >= 6)
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            let count = f[0]
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("count in {l:?}"));
            (f[f.len() - 1].trim().to_string(), count)
        })
        .collect()
}

/// Assert that the timing table lists exactly `want` (name, count) rows, in
/// any order.
pub fn assert_timing_rows(stdout: &str, want: &[(&str, i64)]) {
    let mut got = timing_rows(stdout);
    got.sort();
    let mut want: Vec<(String, i64)> = want.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    want.sort();
    assert_eq!(got, want, "timing table rows\n{stdout}");
}
