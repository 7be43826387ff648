//! Property tests of the core model against independent references.

use op2_core::arg::Access;
use op2_core::domain::{check_map_range, MapCheck};
use op2_core::format::{c_exp_signed, c_fixed_signed};
use op2_core::reduce::combine;
use op2_core::types::{equivalent, normalise};
use op2_core::{Domain, ScalarType};
use proptest::prelude::*;

fn printf(fmt: &str, x: f64) -> String {
    let mut buf = vec![0u8; 128];
    let f = std::ffi::CString::new(fmt).unwrap();
    // SAFETY: the buffer is large enough for one formatted double.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut libc::c_char,
            buf.len(),
            f.as_ptr(),
            x,
        )
    };
    buf.truncate(n as usize);
    String::from_utf8(buf).unwrap()
}

proptest! {
    #[test]
    fn exp_format_is_printf(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        prop_assert_eq!(c_exp_signed(x, 15), printf("%+.15E", x));
        prop_assert_eq!(c_exp_signed(x, 3), printf("%+.3E", x));
    }

    #[test]
    fn fixed_format_is_printf(x in -1e12f64..1e12) {
        prop_assert_eq!(c_fixed_signed(x), printf("%+f", x));
    }

    #[test]
    fn map_check_agrees_with_a_plain_scan(
        vals in proptest::collection::vec(-3i32..40, 0..60),
        to in 0usize..40,
    ) {
        let naive_ok = vals.iter().all(|&v| v >= 0 && (v as usize) < to);
        prop_assert_eq!(check_map_range(&vals, 1, to, 0).is_ok(), naive_ok);
    }

    #[test]
    fn decl_map_keeps_values_and_rejects_bad_ones(
        n in 0usize..20, dim in 1usize..4, to in 1usize..30, seed in any::<u64>(),
    ) {
        let mut d = Domain::new();
        let f = d.decl_set(n as i64, "from").unwrap();
        let t = d.decl_set(to as i64, "to").unwrap();
        let mut s = seed;
        let vals: Vec<i32> = (0..n * dim).map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % (to as u64 + 2)) as i32 - 1
        }).collect();
        let ok = vals.iter().all(|&v| v >= 0 && (v as usize) < to);
        match d.decl_map(f, t, dim as i32, &vals, 0, "m", MapCheck::Local) {
            Ok(m) => { prop_assert!(ok); prop_assert_eq!(&d.map(m).values, &vals); }
            Err(e) => { prop_assert!(!ok); prop_assert!(e.to_string().contains("map \"m\"")); }
        }
    }

    #[test]
    fn reductions_match_plain_arithmetic(a in proptest::collection::vec(-1e6f64..1e6, 1..8), b in -1e6f64..1e6) {
        let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let src = bytes(&vec![b; a.len()]);
        for (acc, f) in [
            (Access::Inc, (|x: f64, y: f64| x + y) as fn(f64, f64) -> f64),
            (Access::Min, |x: f64, y: f64| if y < x { y } else { x }),
            (Access::Max, |x: f64, y: f64| if y > x { y } else { x }),
        ] {
            let mut dst = bytes(&a);
            prop_assert!(combine(ScalarType::F64, acc, &mut dst, &src));
            let want: Vec<f64> = a.iter().map(|&x| f(x, b)).collect();
            prop_assert_eq!(dst, bytes(&want));
        }
    }

    #[test]
    fn normalise_is_idempotent_and_equivalent(t in prop::sample::select(vec![
        "double", "r8", "real(8)", "float", "r4", "int", "i4", "integer(4)", "bool", "double:soa", "my_t",
    ])) {
        let n = normalise(t);
        prop_assert_eq!(normalise(&n), n.clone());
        prop_assert!(equivalent(t, &n));
    }
}
