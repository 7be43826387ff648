//! Combining partial results of global reductions (INC/MIN/MAX) per scalar type.

use crate::arg::Access;
use crate::types::ScalarType;

/// Combine `src` into `dst` (both `dim` scalars of type `t`, native byte order)
/// with the reduction `acc`. Returns false for a type or access that cannot be
/// reduced (user types, READ/WRITE/RW).
pub fn combine(t: ScalarType, acc: Access, dst: &mut [u8], src: &[u8]) -> bool {
    macro_rules! go {
        ($ty:ty) => {{
            const W: usize = std::mem::size_of::<$ty>();
            for (d, s) in dst.chunks_exact_mut(W).zip(src.chunks_exact(W)) {
                let a = <$ty>::from_ne_bytes(d.try_into().unwrap());
                let b = <$ty>::from_ne_bytes(s.try_into().unwrap());
                let r = match acc {
                    Access::Inc => a + b,
                    Access::Min => {
                        if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    Access::Max => {
                        if b > a {
                            b
                        } else {
                            a
                        }
                    }
                    _ => return false,
                };
                d.copy_from_slice(&r.to_ne_bytes());
            }
            true
        }};
    }
    match t {
        ScalarType::F64 => go!(f64),
        ScalarType::F32 => go!(f32),
        ScalarType::I32 => go!(i32),
        ScalarType::U32 => go!(u32),
        ScalarType::I64 => go!(i64),
        ScalarType::U64 => go!(u64),
        ScalarType::Bool => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = match acc {
                    Access::Inc | Access::Max => (*d != 0 || *s != 0) as u8,
                    Access::Min => (*d != 0 && *s != 0) as u8,
                    _ => return false,
                };
            }
            true
        }
        ScalarType::Other => false,
    }
}

/// Combine every `dst.len()`-byte slot of `slots` into `dst`, in order:
/// bitwise the result of [`combine`] called slot by slot (the same
/// operations in the same order). A device's block-wise reductions have a
/// slot per block (11,250 for a 720,000-element direct loop), and slot by
/// slot their combination was most of such a loop's host time: a global
/// of one scalar (the common case) is folded in a register, the operation
/// chosen once; longer ones go slot by slot.
pub fn combine_slots(t: ScalarType, acc: Access, dst: &mut [u8], slots: &[u8]) -> bool {
    if dst.is_empty() || slots.len() < dst.len() {
        // no slot: nothing to combine (as slot by slot)
        return true;
    }
    macro_rules! fold {
        ($ty:ty, $op:expr) => {{
            const W: usize = std::mem::size_of::<$ty>();
            let op = $op;
            let mut a = <$ty>::from_ne_bytes(dst[..W].try_into().unwrap());
            for s in slots.chunks_exact(W) {
                a = op(a, <$ty>::from_ne_bytes(s.try_into().unwrap()));
            }
            dst.copy_from_slice(&a.to_ne_bytes());
            true
        }};
    }
    macro_rules! one {
        ($ty:ty) => {
            match acc {
                Access::Inc => fold!($ty, |a: $ty, b: $ty| a + b),
                Access::Min => fold!($ty, |a: $ty, b: $ty| if b < a { b } else { a }),
                Access::Max => fold!($ty, |a: $ty, b: $ty| if b > a { b } else { a }),
                _ => false,
            }
        };
    }
    let scalar = t.size() == Some(dst.len()) && t != ScalarType::Bool;
    match t {
        ScalarType::F64 if scalar => one!(f64),
        ScalarType::F32 if scalar => one!(f32),
        ScalarType::I32 if scalar => one!(i32),
        ScalarType::U32 if scalar => one!(u32),
        ScalarType::I64 if scalar => one!(i64),
        ScalarType::U64 if scalar => one!(u64),
        _ => slots
            .chunks_exact(dst.len())
            .all(|s| combine(t, acc, dst, s)),
    }
}

/// Initial value of a private reduction slot: the identity for INC (-0.0 for
/// floating point: `x + -0.0` is `x` for every `x`, while `+0.0` would turn a
/// total of -0.0 into +0.0; zero otherwise), the current global value for
/// MIN/MAX (so the combined result never goes past it).
pub fn init_slot(t: ScalarType, acc: Access, current: &[u8], slot: &mut [u8]) {
    if acc != Access::Inc {
        slot.copy_from_slice(current);
        return;
    }
    match t {
        ScalarType::F64 => {
            for c in slot.chunks_exact_mut(8) {
                c.copy_from_slice(&(-0.0f64).to_ne_bytes());
            }
        }
        ScalarType::F32 => {
            for c in slot.chunks_exact_mut(4) {
                c.copy_from_slice(&(-0.0f32).to_ne_bytes());
            }
        }
        _ => slot.fill(0),
    }
}

/// Would `src` replace `dst` under MIN/MAX (strictly better in the first
/// component)? Used to carry `op_arg_info` locations with the winning block.
pub fn improves(t: ScalarType, acc: Access, dst: &[u8], src: &[u8]) -> bool {
    macro_rules! cmp {
        ($ty:ty) => {{
            const W: usize = std::mem::size_of::<$ty>();
            let a = <$ty>::from_ne_bytes(dst[..W].try_into().unwrap());
            let b = <$ty>::from_ne_bytes(src[..W].try_into().unwrap());
            match acc {
                Access::Min => b < a,
                Access::Max => b > a,
                _ => false,
            }
        }};
    }
    match t {
        ScalarType::F64 => cmp!(f64),
        ScalarType::F32 => cmp!(f32),
        ScalarType::I32 => cmp!(i32),
        ScalarType::U32 => cmp!(u32),
        ScalarType::I64 => cmp!(i64),
        ScalarType::U64 => cmp!(u64),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// `combine_slots` against `combine` slot by slot, bitwise: every
    /// type, access and dim, values with signed zeros, NaN, ties and
    /// integer extremes (wrapping sums are not tested: both panic in
    /// debug builds).
    #[test]
    fn combine_slots_is_combine_slot_by_slot() {
        let f: Vec<f64> = vec![
            1.5,
            -0.0,
            0.0,
            f64::NAN,
            -3.25,
            1e300,
            -1e-300,
            7.0,
            7.0,
            2.5,
            -8.0,
            0.125,
        ];
        let cases: Vec<(ScalarType, Vec<u8>, usize)> = vec![
            (ScalarType::F64, bytes(&f), 8),
            (
                ScalarType::F32,
                f.iter().flat_map(|x| (*x as f32).to_ne_bytes()).collect(),
                4,
            ),
            (
                ScalarType::I32,
                (0..12)
                    .flat_map(|i: i32| (i * 7919 % 23 - 11).to_ne_bytes())
                    .collect(),
                4,
            ),
            (
                ScalarType::U32,
                (0..12)
                    .flat_map(|i: u32| (i * 7919 % 23).to_ne_bytes())
                    .collect(),
                4,
            ),
            (
                ScalarType::I64,
                (0..12)
                    .flat_map(|i: i64| (i * 104_729 % 31 - 15).to_ne_bytes())
                    .collect(),
                8,
            ),
            (
                ScalarType::U64,
                (0..12)
                    .flat_map(|i: u64| (i * 104_729 % 31).to_ne_bytes())
                    .collect(),
                8,
            ),
            (
                ScalarType::Bool,
                vec![0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1],
                1,
            ),
        ];
        for (t, data, w) in cases {
            for acc in [Access::Inc, Access::Min, Access::Max, Access::Read] {
                for dim in [1, 2, 3] {
                    let per = dim * w;
                    let start = data[..per].to_vec();
                    let slots = &data[per..];
                    let mut want = start.clone();
                    let ok_want = slots
                        .chunks_exact(per)
                        .all(|s| combine(t, acc, &mut want, s));
                    let mut got = start.clone();
                    let ok_got = combine_slots(t, acc, &mut got, slots);
                    assert_eq!(ok_got, ok_want, "{t:?} {acc:?} dim {dim}");
                    if ok_want {
                        assert_eq!(got, want, "{t:?} {acc:?} dim {dim}");
                    }
                }
            }
        }
        // other types reduce nothing
        assert!(!combine_slots(
            ScalarType::Other,
            Access::Inc,
            &mut [0u8; 4],
            &[0u8; 8]
        ));
    }

    #[test]
    fn inc_min_max() {
        let mut d = bytes(&[1.0, 5.0]);
        assert!(combine(
            ScalarType::F64,
            Access::Inc,
            &mut d,
            &bytes(&[2.0, -1.0])
        ));
        assert_eq!(d, bytes(&[3.0, 4.0]));
        assert!(combine(
            ScalarType::F64,
            Access::Min,
            &mut d,
            &bytes(&[2.0, 9.0])
        ));
        assert_eq!(d, bytes(&[2.0, 4.0]));
        assert!(combine(
            ScalarType::F64,
            Access::Max,
            &mut d,
            &bytes(&[2.5, 9.0])
        ));
        assert_eq!(d, bytes(&[2.5, 9.0]));
        let mut i = 7i32.to_ne_bytes().to_vec();
        assert!(combine(
            ScalarType::I32,
            Access::Min,
            &mut i,
            &(-3i32).to_ne_bytes()
        ));
        assert_eq!(i, (-3i32).to_ne_bytes());
        assert!(!combine(
            ScalarType::Other,
            Access::Inc,
            &mut i,
            &[0, 0, 0, 0]
        ));
        assert!(!combine(
            ScalarType::I32,
            Access::Write,
            &mut i,
            &[0, 0, 0, 0]
        ));
    }

    /// A slot starts at the identity of the reduction: a total of -0.0 plus
    /// an empty block's slot stays -0.0.
    #[test]
    fn inc_slots_start_at_the_identity() {
        let mut slot = vec![0xffu8; 16];
        init_slot(ScalarType::F64, Access::Inc, &bytes(&[7.0, 7.0]), &mut slot);
        let mut total = bytes(&[-0.0, 2.0]);
        assert!(combine(ScalarType::F64, Access::Inc, &mut total, &slot));
        let t: Vec<f64> = total
            .chunks_exact(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert!(t[0] == 0.0 && t[0].is_sign_negative(), "{t:?}");
        assert_eq!(t[1], 2.0);
        let mut s32 = vec![0u8; 4];
        init_slot(ScalarType::F32, Access::Inc, &[0; 4], &mut s32);
        assert_eq!(s32, (-0.0f32).to_ne_bytes());
        let mut si = vec![0xffu8; 4];
        init_slot(ScalarType::I32, Access::Inc, &[1; 4], &mut si);
        assert_eq!(si, [0; 4]);
        let mut sm = vec![0u8; 8];
        init_slot(ScalarType::F64, Access::Min, &bytes(&[3.5]), &mut sm);
        assert_eq!(sm, bytes(&[3.5]));
    }
}
