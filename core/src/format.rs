//! Text formats OP2 writes: printf-compatible number formatting and the
//! `op_print_dat_to_txtfile` layout.

use crate::types::ScalarType;
use std::io::Write;

/// C's `%+.{prec}E` (as in `" %+2.15lE"`), byte-identical to glibc for finite
/// values, `+INF`/`-INF`/`+NAN`/`-NAN` otherwise.
pub fn c_exp_signed(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-NAN" } else { "+NAN" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-INF" } else { "+INF" }.into();
    }
    let s = format!("{:.*E}", prec, x.abs());
    let (mant, exp) = s.split_once('E').expect("Rust always writes an exponent");
    let e: i32 = exp.parse().expect("integer exponent");
    let sign = if x.is_sign_negative() { '-' } else { '+' };
    let esign = if e < 0 { '-' } else { '+' };
    format!("{sign}{mant}E{esign}{:02}", e.abs())
}

/// C's `%+f` (6 decimals, always signed).
pub fn c_fixed_signed(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "+nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "+inf" }.into();
    }
    let sign = if x.is_sign_negative() { '-' } else { '+' };
    format!("{sign}{:.6}", x.abs())
}

/// C's `%f` (6 decimals).
pub fn c_fixed(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    format!("{x:.6}")
}

/// Can `op_print_dat_to_txtfile` print this type? (double, float, int,
/// and, on one node, long long.)
pub fn txt_printable(type_name: &str, mpi: bool) -> bool {
    match ScalarType::parse(type_name) {
        ScalarType::F64 | ScalarType::F32 | ScalarType::I32 => true,
        ScalarType::I64 => !mpi,
        _ => false,
    }
}

/// Write one value of a dat text file.
fn write_value(out: &mut dyn Write, st: ScalarType, b: &[u8], mpi: bool) -> std::io::Result<()> {
    match (st, mpi) {
        (ScalarType::F64, false) => {
            let v = f64::from_ne_bytes(b.try_into().unwrap());
            let v = if v == 0.0 { 0.0 } else { v };
            write!(out, " {}", c_exp_signed(v, 15))
        }
        (ScalarType::F32, false) => {
            write!(
                out,
                " {}",
                c_fixed_signed(f32::from_ne_bytes(b.try_into().unwrap()) as f64)
            )
        }
        (ScalarType::I32, false) => write!(out, " {:+}", i32::from_ne_bytes(b.try_into().unwrap())),
        (ScalarType::I64, false) => write!(out, " {:+}", i64::from_ne_bytes(b.try_into().unwrap())),
        (ScalarType::F64, true) => write!(
            out,
            "{} ",
            c_fixed(f64::from_ne_bytes(b.try_into().unwrap()))
        ),
        (ScalarType::F32, true) => {
            write!(
                out,
                "{} ",
                c_fixed(f32::from_ne_bytes(b.try_into().unwrap()) as f64)
            )
        }
        _ => write!(out, "{} ", i32::from_ne_bytes(b.try_into().unwrap())),
    }
}

/// Stream the text of `op_print_dat_to_txtfile` to `out`: a header line
/// `"<n> <dim>"`, then one line per element. On one node each value is
/// formatted as OP2 does (`" %+2.15lE"` doubles, `" %+f"` floats, `" %+d"`
/// ints, `" %+ld"` longs; a negative zero prints as positive zero, as OP2's
/// output shows it); OP2's MPI libraries write `"%f "` (double, float) or
/// `"%d "` (int). The caller checks [`txt_printable`] first.
pub fn write_dat_txt(
    out: &mut dyn Write,
    mpi: bool,
    type_name: &str,
    dim: usize,
    n: usize,
    bytes: &[u8],
) -> std::io::Result<()> {
    let st = ScalarType::parse(type_name);
    let w = st.size().unwrap_or(1);
    writeln!(out, "{n} {dim}")?;
    for row in bytes[..n * dim * w].chunks_exact(dim * w) {
        for b in row.chunks_exact(w) {
            write_value(out, st, b, mpi)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// [`write_dat_txt`] into a string, one node's format (`None`: a type OP2
/// cannot print).
pub fn dat_txt(type_name: &str, dim: usize, n: usize, bytes: &[u8]) -> Option<String> {
    dat_txt_as(false, type_name, dim, n, bytes)
}

/// [`write_dat_txt`] into a string, OP2's MPI format.
pub fn dat_txt_mpi(type_name: &str, dim: usize, n: usize, bytes: &[u8]) -> Option<String> {
    dat_txt_as(true, type_name, dim, n, bytes)
}

fn dat_txt_as(mpi: bool, type_name: &str, dim: usize, n: usize, bytes: &[u8]) -> Option<String> {
    if !txt_printable(type_name, mpi) {
        return None;
    }
    let mut out = Vec::new();
    write_dat_txt(&mut out, mpi, type_name, dim, n, bytes).ok()?;
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_format_matches_printf() {
        assert_eq!(c_exp_signed(1.0, 15), "+1.000000000000000E+00");
        assert_eq!(c_exp_signed(-0.000123456789, 15), "-1.234567890000000E-04");
        assert_eq!(c_exp_signed(1.5e300, 3), "+1.500E+300");
        assert_eq!(c_exp_signed(0.0, 2), "+0.00E+00");
        assert_eq!(c_exp_signed(-0.0, 2), "-0.00E+00");
        assert_eq!(c_exp_signed(f64::INFINITY, 2), "+INF");
        assert_eq!(c_fixed_signed(2.5), "+2.500000");
        assert_eq!(c_fixed_signed(-0.0000004), "-0.000000");
        assert_eq!(c_fixed(3.25), "3.250000");
    }

    #[test]
    fn txt_layout() {
        let v: Vec<u8> = [1.0f64, -0.0, 2.5, -3.0]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let s = dat_txt("double", 2, 2, &v).unwrap();
        assert_eq!(
            s,
            "2 2\n +1.000000000000000E+00 +0.000000000000000E+00\n +2.500000000000000E+00 -3.000000000000000E+00\n"
        );
        let iv: Vec<u8> = [3i32, -4].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(dat_txt("int", 1, 2, &iv).unwrap(), "2 1\n +3\n -4\n");
        assert!(dat_txt("my_t", 1, 1, &iv).is_none());
    }
}
