//! Text formats OP2 writes: printf-compatible number formatting and the
//! `op_print_dat_to_txtfile` layout.

use crate::types::ScalarType;

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

/// The body of `op_print_dat_to_txtfile` on one node: a header line
/// `"<n> <dim>"`, then one line per element with each value formatted as OP2
/// does (`" %+2.15lE"` doubles, `" %+f"` floats, `" %+d"` ints, `" %+ld"` longs).
/// A negative zero prints as positive zero, as OP2's output shows it.
/// Returns `None` for a type OP2 cannot print.
pub fn dat_txt(type_name: &str, dim: usize, n: usize, bytes: &[u8]) -> Option<String> {
    let st = ScalarType::parse(type_name);
    let w = match st {
        ScalarType::F64 | ScalarType::I64 => 8,
        ScalarType::F32 | ScalarType::I32 => 4,
        _ => return None,
    };
    let mut out = String::with_capacity(n * dim * 24 + 16);
    out.push_str(&format!("{n} {dim}\n"));
    for e in 0..n {
        for c in 0..dim {
            let off = (e * dim + c) * w;
            let b = &bytes[off..off + w];
            out.push(' ');
            match st {
                ScalarType::F64 => {
                    let v = f64::from_ne_bytes(b.try_into().unwrap());
                    let v = if v == 0.0 { 0.0 } else { v };
                    out.push_str(&c_exp_signed(v, 15));
                }
                ScalarType::F32 => {
                    let v = f32::from_ne_bytes(b.try_into().unwrap()) as f64;
                    out.push_str(&c_fixed_signed(v));
                }
                ScalarType::I32 => {
                    out.push_str(&format!("{:+}", i32::from_ne_bytes(b.try_into().unwrap())));
                }
                ScalarType::I64 => {
                    out.push_str(&format!("{:+}", i64::from_ne_bytes(b.try_into().unwrap())));
                }
                _ => unreachable!("filtered above"),
            }
        }
        out.push('\n');
    }
    Some(out)
}

/// `op_print_dat_to_txtfile` of OP2's MPI libraries: header `"<n> <dim>"`,
/// then per element its values as `"%f "` (double, float) or `"%d "` (int).
pub fn dat_txt_mpi(type_name: &str, dim: usize, n: usize, bytes: &[u8]) -> Option<String> {
    let st = ScalarType::parse(type_name);
    let w = match st {
        ScalarType::F64 => 8,
        ScalarType::F32 | ScalarType::I32 => 4,
        _ => return None,
    };
    let mut out = format!("{n} {dim}\n");
    for e in 0..n {
        for c in 0..dim {
            let b = &bytes[(e * dim + c) * w..(e * dim + c + 1) * w];
            match st {
                ScalarType::F64 => {
                    out.push_str(&c_fixed(f64::from_ne_bytes(b.try_into().unwrap())))
                }
                ScalarType::F32 => {
                    out.push_str(&c_fixed(f32::from_ne_bytes(b.try_into().unwrap()) as f64))
                }
                _ => out.push_str(&i32::from_ne_bytes(b.try_into().unwrap()).to_string()),
            }
            out.push(' ');
        }
        out.push('\n');
    }
    Some(out)
}

/// The bytes of `op_print_dat_to_binfile`: int32 count, int32 dim, raw data.
pub fn dat_bin(dim: usize, n: usize, elem_bytes: usize, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + n * elem_bytes);
    out.extend_from_slice(&(n as i32).to_ne_bytes());
    out.extend_from_slice(&(dim as i32).to_ne_bytes());
    out.extend_from_slice(&bytes[..n * elem_bytes]);
    out
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
