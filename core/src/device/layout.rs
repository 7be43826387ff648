//! OP2's device layouts, as pure functions on host bytes.
//!
//! * A map is always stored transposed on the device: `dim` rows of
//!   [`map_stride`] ints, `map_d[j * stride + e]` is entry `j` of element `e`.
//! * A dat is stored as on the host (AoS, `dim` components per element) unless
//!   [`is_soa`] says otherwise; then component `c` of element `e` lives at
//!   element index `c * stride + e` with `stride` = [`soa_stride`].
//!
//! Padding (the elements between the real count and the stride) is zero.
//! The functions never panic: inputs shorter than their counts say are read
//! as far as they go and the rest of the output stays zero.

use crate::domain::{Dat, Set};

/// A dat's SoA layout on the device: `(stride, dim, scalar)` — component `c`
/// of element `e` is at byte `(c * stride + e) * scalar`.
pub type SoaLayout = (usize, usize, usize);

/// `n` rounded up to a multiple of 32 (OP2's `round32`).
pub fn round32(n: usize) -> usize {
    n.div_ceil(32).saturating_mul(32)
}

/// OP2's SoA stride for dats on `set`, in elements: the owned elements and
/// both import halos, rounded up to a multiple of 32.
pub fn soa_stride(set: &Set) -> usize {
    round32(set.size + set.exec_size + set.nonexec_size)
}

/// Row length of a transposed map from `set` on the device: the owned
/// elements and the exec halo (the elements a loop over `set` can run),
/// rounded up to a multiple of 32.
pub fn map_stride(set: &Set) -> usize {
    round32(set.size + set.exec_size)
}

/// Whether a dat is stored SoA on the device: its type string carries OP2's
/// `:soa` suffix (e.g. `double:soa`; OP2 tests with `strstr`, so the marker is
/// searched anywhere in the string), or automatic SoA is on (`op_init_soa`,
/// `OP_AUTO_SOA`) and the dat has more than one component.
pub fn is_soa(type_name: &str, dim: usize, auto_soa: bool) -> bool {
    type_name.contains(":soa") || (auto_soa && dim > 1)
}

/// Elements of an AoS buffer that can be moved: bounded by the declared
/// count, the stride and what `len` bytes hold.
fn usable(n: usize, stride: usize, len: usize, elem_bytes: usize) -> usize {
    if elem_bytes == 0 {
        return 0;
    }
    n.min(stride).min(len / elem_bytes)
}

/// AoS to SoA: `src` holds `n` elements of `dim` components of `scalar` bytes
/// each; the result holds `dim` rows of `stride` elements (component `c` of
/// element `e` at byte `(c * stride + e) * scalar`), padding zero.
pub fn aos_to_soa(src: &[u8], n: usize, dim: usize, scalar: usize, stride: usize) -> Vec<u8> {
    let mut out = vec![0u8; dim * stride * scalar];
    let elem_bytes = dim * scalar;
    let count = usable(n, stride, src.len(), elem_bytes);
    for (e, elem) in src.chunks_exact(elem_bytes.max(1)).take(count).enumerate() {
        for (c, comp) in elem.chunks_exact(scalar).enumerate() {
            let at = (c * stride + e) * scalar;
            out[at..at + scalar].copy_from_slice(comp);
        }
    }
    out
}

/// SoA to AoS, the inverse of [`aos_to_soa`]: writes `n` elements into
/// `dst` (AoS). Elements that `src` or `dst` cannot hold are left alone.
pub fn soa_to_aos(src: &[u8], n: usize, dim: usize, scalar: usize, stride: usize, dst: &mut [u8]) {
    let elem_bytes = dim * scalar;
    let mut count = usable(n, stride, dst.len(), elem_bytes);
    if scalar > 0 && dim > 0 {
        // Component dim-1 of element e must lie inside src.
        let rows_in_src = src.len() / scalar;
        let last_row_start = (dim - 1) * stride;
        count = count.min(rows_in_src.saturating_sub(last_row_start));
    }
    for (e, elem) in dst
        .chunks_exact_mut(elem_bytes.max(1))
        .take(count)
        .enumerate()
    {
        for (c, comp) in elem.chunks_exact_mut(scalar).enumerate() {
            let at = (c * stride + e) * scalar;
            comp.copy_from_slice(&src[at..at + scalar]);
        }
    }
}

/// Transposes a map for the device: `values` row-major `[rows][dim]` becomes
/// `[dim][stride]` (`out[j * stride + e] = values[e * dim + j]`), padding 0.
pub fn transpose_map(values: &[i32], rows: usize, dim: usize, stride: usize) -> Vec<i32> {
    let mut out = vec![0i32; dim * stride];
    let count = usable(rows, stride, values.len(), dim);
    for (e, row) in values.chunks_exact(dim.max(1)).take(count).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            out[j * stride + e] = v;
        }
    }
    out
}

/// Where a dat's bytes live on the device: `elems` elements (owned and both
/// halos) of `elem_bytes` bytes, AoS or with the SoA layout `soa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatLayout {
    pub elems: usize,
    pub elem_bytes: usize,
    pub soa: Option<SoaLayout>,
}

impl DatLayout {
    /// OP2's device layout of `dat` on `set` (its own set): SoA per
    /// [`is_soa`] with stride [`soa_stride`] and scalar size
    /// `elem_bytes / dim`, AoS otherwise.
    pub fn of(dat: &Dat, set: &Set, auto_soa: bool) -> DatLayout {
        let soa = (is_soa(&dat.type_name, dat.dim, auto_soa) && dat.dim > 0)
            .then(|| (soa_stride(set), dat.dim, dat.elem_bytes / dat.dim));
        DatLayout {
            elems: set.total_size(),
            elem_bytes: dat.elem_bytes,
            soa,
        }
    }

    /// Bytes of the device allocation (SoA pads each component to the
    /// stride).
    pub fn device_bytes(&self) -> usize {
        match self.soa {
            Some((stride, dim, scalar)) => stride * dim * scalar,
            None => self.elems * self.elem_bytes,
        }
    }

    /// The device image of the host bytes `host` (AoS, up to `elems`
    /// elements), `device_bytes()` long.
    pub fn to_device(&self, host: &[u8]) -> Vec<u8> {
        match self.soa {
            Some((stride, dim, scalar)) => aos_to_soa(host, self.elems, dim, scalar, stride),
            None => {
                let mut out = vec![0u8; self.device_bytes()];
                let n = out.len().min(host.len());
                out[..n].copy_from_slice(&host[..n]);
                out
            }
        }
    }

    /// Writes the device image `dev` back into the host bytes `host` (AoS).
    pub fn to_host(&self, dev: &[u8], host: &mut [u8]) {
        match self.soa {
            Some((stride, dim, scalar)) => soa_to_aos(dev, self.elems, dim, scalar, stride, host),
            None => {
                let n = dev.len().min(host.len()).min(self.device_bytes());
                host[..n].copy_from_slice(&dev[..n]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(size: usize, exec: usize, nonexec: usize) -> Set {
        Set {
            name: "s".into(),
            size,
            core_size: size,
            exec_size: exec,
            nonexec_size: nonexec,
        }
    }

    #[test]
    fn round32_and_strides() {
        assert_eq!(round32(0), 0);
        assert_eq!(round32(1), 32);
        assert_eq!(round32(32), 32);
        assert_eq!(round32(33), 64);
        let s = set(100, 20, 13);
        assert_eq!(soa_stride(&s), 160); // 133 -> 160
        assert_eq!(map_stride(&s), 128); // 120 -> 128
        assert_eq!(soa_stride(&set(64, 0, 0)), 64);
    }

    #[test]
    fn soa_decision() {
        assert!(is_soa("double:soa", 1, false));
        assert!(is_soa("float:soa", 4, false));
        assert!(!is_soa("double", 4, false));
        assert!(!is_soa("double", 1, true));
        assert!(is_soa("double", 2, true));
        assert!(is_soa("double:soa", 1, true));
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + 3) as u8 | 1).collect()
    }

    #[test]
    fn aos_soa_round_trip() {
        for &scalar in &[4usize, 8] {
            for dim in 1..=5 {
                for &n in &[1usize, 31, 33, 70] {
                    let stride = round32(n + 5);
                    let src = pattern(n * dim * scalar);
                    let soa = aos_to_soa(&src, n, dim, scalar, stride);
                    assert_eq!(soa.len(), dim * stride * scalar);
                    for e in 0..stride {
                        for c in 0..dim {
                            let at = (c * stride + e) * scalar;
                            let want: &[u8] = if e < n {
                                &src[(e * dim + c) * scalar..][..scalar]
                            } else {
                                &[0u8; 8][..scalar]
                            };
                            assert_eq!(&soa[at..at + scalar], want, "e={e} c={c}");
                        }
                    }
                    let mut back = vec![0u8; src.len()];
                    soa_to_aos(&soa, n, dim, scalar, stride, &mut back);
                    assert_eq!(back, src, "dim={dim} scalar={scalar} n={n}");
                }
            }
        }
    }

    #[test]
    fn short_inputs_do_not_panic() {
        let soa = aos_to_soa(&[1, 2, 3], 10, 2, 4, 32);
        assert!(soa.iter().all(|&b| b == 0));
        let mut dst = vec![9u8; 16];
        soa_to_aos(&[1u8; 8], 2, 2, 4, 32, &mut dst);
        assert_eq!(dst, vec![9u8; 16]);
        assert_eq!(transpose_map(&[1, 2, 3], 5, 2, 32)[0], 1);
        assert!(aos_to_soa(&[], 0, 0, 8, 32).is_empty());
    }

    #[test]
    fn transposed_map_layout() {
        // 3 elements, 2 entries each.
        let values = [10, 11, 20, 21, 30, 31];
        let t = transpose_map(&values, 3, 2, 32);
        assert_eq!(t.len(), 64);
        let mut want = vec![0i32; 64];
        want[..3].copy_from_slice(&[10, 20, 30]);
        want[32..35].copy_from_slice(&[11, 21, 31]);
        assert_eq!(t, want);
        let t = transpose_map(&[1, 2, 3, 4], 4, 1, 32);
        assert_eq!(&t[..5], &[1, 2, 3, 4, 0]);
    }

    fn dat(type_name: &str, dim: usize, scalar: usize, elems: usize) -> Dat {
        let bytes: Vec<u8> = (0..elems * dim * scalar).map(|i| i as u8 | 1).collect();
        Dat {
            name: "d".into(),
            set: crate::domain::SetId(0),
            dim,
            type_name: type_name.into(),
            scalar: crate::types::ScalarType::parse(type_name),
            elem_bytes: dim * scalar,
            data: crate::aligned::AlignedBuf::from_bytes(&bytes, bytes.len()),
            temp: false,
            halo_dirty: false,
            fresh: crate::Fresh::Both,
            overlay_of: None,
        }
    }

    #[test]
    fn dat_layouts() {
        let s = set(40, 3, 2);
        let aos = DatLayout::of(&dat("double", 2, 8, 45), &s, false);
        assert_eq!(aos.soa, None);
        assert_eq!(aos.device_bytes(), 45 * 16);
        let d = dat("double:soa", 2, 8, 45);
        let soa = DatLayout::of(&d, &s, false);
        assert_eq!(soa.soa, Some((64, 2, 8)));
        assert_eq!(soa.device_bytes(), 64 * 16);
        assert_eq!(
            DatLayout::of(&dat("float", 3, 4, 45), &s, true).soa,
            Some((64, 3, 4))
        );
        assert_eq!(DatLayout::of(&dat("float", 1, 4, 45), &s, true).soa, None);
        for l in [aos, soa] {
            let img = l.to_device(d.data.as_slice());
            assert_eq!(img.len(), l.device_bytes());
            let mut back = vec![0u8; d.data.len()];
            l.to_host(&img, &mut back);
            assert_eq!(back, d.data.as_slice());
        }
        // Component 1 of element 0 sits one stride in.
        let img = soa.to_device(d.data.as_slice());
        assert_eq!(&img[64 * 8..64 * 8 + 8], &d.data.as_slice()[8..16]);
    }
}
