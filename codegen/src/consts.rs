//! Constants declared with `op_decl_const`. OpenCL C: written into the
//! generated code with their exact values (program-scope `__constant`
//! variables need an initialiser in OpenCL C 1.2): doubles and floats as
//! C99 hexadecimal literals (no decimal rounding), ints in decimal. CUDA:
//! declared `__constant__` without a value, which the device library
//! copies in after loading the module ([`values`], `cuModuleGetGlobal`):
//! the text, and with it the compiled-program cache's key, does not
//! depend on the values, so a cubin compiled on one machine serves
//! another whose C library computed a constant's last bit differently, and
//! a constant declared again with a new value needs no new compile.

use crate::desc::{Const, ConstValue, Dialect, GenError};

/// `0x1.<mantissa>p<exp>` for a finite double; `None` for inf/NaN.
pub fn hex_f64(v: f64) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let man = bits & ((1u64 << 52) - 1);
    Some(match (exp, man) {
        (0, 0) => format!("{sign}0x0p+0"),
        (0, m) => format!("{sign}0x0.{m:013x}p-1022"),
        (e, m) => format!("{sign}0x1.{m:013x}p{:+}", e - 1023),
    })
}

/// The same for a float, with the `f` suffix.
pub fn hex_f32(v: f32) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xff) as i64;
    // 23 mantissa bits, shifted to 24 to fill six hex digits
    let man = (bits & ((1u32 << 23) - 1)) << 1;
    Some(match (exp, man) {
        (0, 0) => format!("{sign}0x0p+0f"),
        (0, m) => format!("{sign}0x0.{m:06x}p-126f"),
        (e, m) => format!("{sign}0x1.{m:06x}p{:+}f", e - 127),
    })
}

/// The declarations of every constant, in the dialect.
pub fn declarations(consts: &[Const], d: Dialect, loop_name: &str) -> Result<String, GenError> {
    let space = match d {
        Dialect::OpenCl => "__constant",
        Dialect::Cuda => "__constant__",
    };
    let mut out = String::new();
    for c in consts {
        let bad = |w: &str| GenError {
            loop_name: loop_name.to_string(),
            what: format!("constant {}: {w}", c.name),
        };
        if !crate::desc::is_ident(&c.name) {
            return Err(bad("not a C identifier"));
        }
        let (ty, vals): (&str, Vec<String>) = match &c.value {
            ConstValue::F64(v) => (
                "double",
                v.iter()
                    .map(|x| hex_f64(*x))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("not finite"))?,
            ),
            ConstValue::F32(v) => (
                "float",
                v.iter()
                    .map(|x| hex_f32(*x))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("not finite"))?,
            ),
            ConstValue::I32(v) => ("int", v.iter().map(|x| x.to_string()).collect()),
            ConstValue::U32(v) => ("unsigned int", v.iter().map(|x| format!("{x}u")).collect()),
            ConstValue::I64(v) => (
                match d {
                    Dialect::OpenCl => "long",
                    Dialect::Cuda => "long long",
                },
                // the most negative value has no literal of its own
                v.iter()
                    .map(|x| match *x {
                        i64::MIN => "(-9223372036854775807L - 1)".to_string(),
                        x => format!("{x}L"),
                    })
                    .collect(),
            ),
            ConstValue::U64(v) => (
                match d {
                    Dialect::OpenCl => "ulong",
                    Dialect::Cuda => "unsigned long long",
                },
                v.iter().map(|x| format!("{x}UL")).collect(),
            ),
        };
        match (vals.len(), d) {
            (0, _) => return Err(bad("no values")),
            (1, Dialect::Cuda) => out += &format!("{space} {ty} {};\n", c.name),
            (n, Dialect::Cuda) => out += &format!("{space} {ty} {}[{n}];\n", c.name),
            (1, Dialect::OpenCl) => out += &format!("{space} {ty} {} = {};\n", c.name, vals[0]),
            (n, Dialect::OpenCl) => {
                out += &format!("{space} {ty} {}[{n}] = {{{}}};\n", c.name, vals.join(", "))
            }
        }
    }
    Ok(out)
}

/// The bytes each constant's device variable must hold (CUDA), in the
/// host's byte order: (name, bytes).
pub fn values(consts: &[Const]) -> Vec<(String, Vec<u8>)> {
    consts
        .iter()
        .map(|c| {
            let bytes = match &c.value {
                ConstValue::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                ConstValue::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                ConstValue::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                ConstValue::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                ConstValue::I64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                ConstValue::U64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            };
            (c.name.clone(), bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal read back by a parser of C99 hexadecimal floats written
    /// here independently (mantissa digits times a power of two).
    fn parse_hex(s: &str) -> f64 {
        let s = s.trim_end_matches('f');
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let s = s.strip_prefix("0x").unwrap();
        let (m, e) = s.split_once('p').unwrap();
        let (int, frac) = m.split_once('.').unwrap_or((m, ""));
        let mut v = u64::from_str_radix(int, 16).unwrap() as f64;
        for (i, c) in frac.chars().enumerate() {
            v += c.to_digit(16).unwrap() as f64 * 16f64.powi(-(i as i32 + 1));
        }
        let v = v * 2f64.powi(e.parse::<i32>().unwrap());
        if neg {
            -v
        } else {
            v
        }
    }

    #[test]
    fn hexadecimal_literals_are_exact() {
        for v in [
            1.4,
            0.4,
            -0.5,
            1e-300,
            5e-324,
            f64::MAX,
            0.0,
            -0.0,
            3.0,
            0.1 + 0.2,
        ] {
            let h = hex_f64(v).unwrap();
            assert_eq!(parse_hex(&h).to_bits(), v.to_bits(), "{v} -> {h}");
        }
        for v in [1.4f32, -0.1, 1e-40, f32::MAX, 0.0] {
            let h = hex_f32(v).unwrap();
            assert_eq!((parse_hex(&h) as f32).to_bits(), v.to_bits(), "{v} -> {h}");
        }
        assert_eq!(hex_f64(f64::NAN), None);
        assert_eq!(hex_f64(1.0).unwrap(), "0x1.0000000000000p+0");
    }

    #[test]
    fn declarations_per_dialect() {
        let c = [
            Const {
                name: "gam".into(),
                value: ConstValue::F64(vec![1.4]),
            },
            Const {
                name: "qinf".into(),
                value: ConstValue::F64(vec![1.0, 0.5]),
            },
            Const {
                name: "n".into(),
                value: ConstValue::I32(vec![3]),
            },
        ];
        let cl = declarations(&c, Dialect::OpenCl, "l").unwrap();
        assert!(
            cl.contains("__constant double gam = 0x1.6666666666666p+0;"),
            "{cl}"
        );
        assert!(cl
            .contains("__constant double qinf[2] = {0x1.0000000000000p+0, 0x1.0000000000000p-1};"));
        assert!(cl.contains("__constant int n = 3;"));
        let cu = declarations(&c, Dialect::Cuda, "l").unwrap();
        assert_eq!(
            cu,
            "__constant__ double gam;\n__constant__ double qinf[2];\n__constant__ int n;\n"
        );
        let v = values(&c);
        assert_eq!(v[1].0, "qinf");
        assert_eq!(v[1].1.len(), 16);
        assert_eq!(v[1].1[8..], 0.5f64.to_ne_bytes());
        assert_eq!(v[2].1, 3i32.to_ne_bytes());
        let ints = [
            Const {
                name: "big".into(),
                value: ConstValue::I64(vec![i64::MIN, -5, 1 << 40]),
            },
            Const {
                name: "u".into(),
                value: ConstValue::U64(vec![u64::MAX]),
            },
            Const {
                name: "w".into(),
                value: ConstValue::U32(vec![7]),
            },
        ];
        assert_eq!(
            declarations(&ints, Dialect::OpenCl, "l").unwrap(),
            "__constant long big[3] = {(-9223372036854775807L - 1), -5L, 1099511627776L};\n\
             __constant ulong u = 18446744073709551615UL;\n\
             __constant unsigned int w = 7u;\n"
        );
        assert_eq!(
            declarations(&ints, Dialect::Cuda, "l").unwrap(),
            "__constant__ long long big[3];\n__constant__ unsigned long long u;\n\
             __constant__ unsigned int w;\n"
        );
        assert_eq!(values(&ints)[0].1[8..16], (-5i64).to_ne_bytes());
        let bad = [Const {
            name: "x".into(),
            value: ConstValue::F64(vec![f64::INFINITY]),
        }];
        assert_eq!(
            declarations(&bad, Dialect::Cuda, "res")
                .unwrap_err()
                .to_string(),
            "loop res: constant x: not finite"
        );
    }
}
