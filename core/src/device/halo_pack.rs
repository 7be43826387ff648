//! Halo rows of a device-resident dat for MPI: gather the export rows into a
//! host buffer (normally a pinned one from
//! [`DeviceMemory::alloc_pinned`]) and scatter received rows back, so only
//! halo rows cross the bus and the dat stays on the device.
//!
//! The host buffer holds the rows in list order, each `elem_bytes` long and
//! AoS (the layout MPI messages use), whatever the device layout. Runs of
//! consecutive row numbers move in one transfer (per component for SoA).
//! This is the simple form; a device gather kernel can replace it later.

use crate::device::memory::{DevPtr, DeviceError, DeviceMemory};

pub use crate::device::layout::SoaLayout;

/// Runs of consecutive rows: `(position in the list, first row, length)`.
fn runs(rows: &[i32]) -> Result<Vec<(usize, usize, usize)>, DeviceError> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for (i, &r) in rows.iter().enumerate() {
        let r = usize::try_from(r)
            .map_err(|_| DeviceError(format!("halo row list: negative row {r} at {i}")))?;
        match out.last_mut() {
            Some((_, first, len)) if *first + *len == r => *len += 1,
            _ => out.push((i, r, 1)),
        }
    }
    Ok(out)
}

fn check_args(
    elem_bytes: usize,
    nrows: usize,
    buf_len: usize,
    soa: Option<SoaLayout>,
) -> Result<(), DeviceError> {
    if let Some((_, dim, scalar)) = soa {
        if dim * scalar != elem_bytes {
            return Err(DeviceError(format!(
                "SoA layout of {dim} x {scalar} bytes does not match {elem_bytes}-byte rows"
            )));
        }
    }
    match nrows.checked_mul(elem_bytes) {
        Some(need) if need <= buf_len => Ok(()),
        _ => Err(DeviceError(format!(
            "halo buffer of {buf_len} bytes cannot hold {nrows} rows of {elem_bytes} bytes"
        ))),
    }
}

/// Device byte address of component `c` of row `r` (AoS: `c` unused).
fn addr(base: DevPtr, elem_bytes: usize, soa: Option<SoaLayout>, r: usize, c: usize) -> DevPtr {
    let off = match soa {
        None => r * elem_bytes,
        Some((stride, _, scalar)) => (c * stride + r) * scalar,
    };
    base.wrapping_add(off as DevPtr)
}

/// Gathers `rows` of the dat at `dat_dev` into `out` (row `rows[i]` at
/// `out[i * elem_bytes..]`, AoS). `out` must hold `rows.len() * elem_bytes`
/// bytes; negative rows are errors.
pub fn pack_rows(
    mem: &dyn DeviceMemory,
    dat_dev: DevPtr,
    elem_bytes: usize,
    rows: &[i32],
    soa: Option<SoaLayout>,
    out: &mut [u8],
) -> Result<(), DeviceError> {
    check_args(elem_bytes, rows.len(), out.len(), soa)?;
    let mut comp = Vec::new();
    for (at, first, len) in runs(rows)? {
        let dst = &mut out[at * elem_bytes..(at + len) * elem_bytes];
        let Some((_, dim, scalar)) = soa else {
            mem.download(addr(dat_dev, elem_bytes, None, first, 0), dst)?;
            continue;
        };
        comp.resize(len * scalar, 0);
        for c in 0..dim {
            mem.download(addr(dat_dev, elem_bytes, soa, first, c), &mut comp)?;
            for (row, v) in dst
                .chunks_exact_mut(elem_bytes)
                .zip(comp.chunks_exact(scalar))
            {
                row[c * scalar..(c + 1) * scalar].copy_from_slice(v);
            }
        }
    }
    Ok(())
}

/// Scatters received rows: `input[i * elem_bytes..]` (AoS) becomes row
/// `rows[i]` of the dat at `dat_dev`. `input` must hold
/// `rows.len() * elem_bytes` bytes; negative rows are errors.
pub fn unpack_rows(
    mem: &dyn DeviceMemory,
    dat_dev: DevPtr,
    elem_bytes: usize,
    rows: &[i32],
    soa: Option<SoaLayout>,
    input: &[u8],
) -> Result<(), DeviceError> {
    check_args(elem_bytes, rows.len(), input.len(), soa)?;
    let mut comp = Vec::new();
    for (at, first, len) in runs(rows)? {
        let src = &input[at * elem_bytes..(at + len) * elem_bytes];
        let Some((_, dim, scalar)) = soa else {
            mem.upload(addr(dat_dev, elem_bytes, None, first, 0), src)?;
            continue;
        };
        for c in 0..dim {
            comp.clear();
            for row in src.chunks_exact(elem_bytes) {
                comp.extend_from_slice(&row[c * scalar..(c + 1) * scalar]);
            }
            mem.upload(addr(dat_dev, elem_bytes, soa, first, c), &comp)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::layout::{aos_to_soa, soa_to_aos};
    use crate::device::memory::HostMemory;

    const N: usize = 45;
    const STRIDE: usize = 64;

    fn dat(dim: usize, scalar: usize) -> Vec<u8> {
        (0..N * dim * scalar).map(|i| (i % 251) as u8 + 1).collect()
    }

    /// The export lists: runs, singles, repeats, out of order.
    fn row_lists() -> Vec<Vec<i32>> {
        vec![
            vec![],
            vec![0],
            vec![3, 4, 5, 9, 10, 44],
            vec![44, 2, 3, 3, 7, 6, 20, 21, 22, 23],
        ]
    }

    fn check(dim: usize, scalar: usize, use_soa: bool) {
        let eb = dim * scalar;
        let host = dat(dim, scalar);
        let mem = HostMemory::new();
        let (image, soa) = if use_soa {
            (
                aos_to_soa(&host, N, dim, scalar, STRIDE),
                Some((STRIDE, dim, scalar)),
            )
        } else {
            (host.clone(), None)
        };
        let p = mem.alloc(image.len()).unwrap();
        mem.upload(p, &image).unwrap();
        for rows in row_lists() {
            let mut out = vec![0u8; rows.len() * eb];
            pack_rows(&mem, p, eb, &rows, soa, &mut out).unwrap();
            let want: Vec<u8> = rows
                .iter()
                .flat_map(|&r| host[r as usize * eb..][..eb].to_vec())
                .collect();
            assert_eq!(
                out, want,
                "pack dim={dim} scalar={scalar} soa={use_soa} {rows:?}"
            );

            // Unpack new values into a copy and compare with a plain loop.
            let fresh: Vec<u8> = (0..out.len()).map(|i| (i * 13 % 256) as u8).collect();
            let mut expect = host.clone();
            for (i, &r) in rows.iter().enumerate() {
                expect[r as usize * eb..][..eb].copy_from_slice(&fresh[i * eb..][..eb]);
            }
            let q = mem.alloc(image.len()).unwrap();
            mem.upload(q, &image).unwrap();
            unpack_rows(&mem, q, eb, &rows, soa, &fresh).unwrap();
            let mut back = vec![0u8; image.len()];
            mem.download(q, &mut back).unwrap();
            let got = if use_soa {
                let mut aos = vec![0u8; host.len()];
                soa_to_aos(&back, N, dim, scalar, STRIDE, &mut aos);
                aos
            } else {
                back
            };
            assert_eq!(
                got, expect,
                "unpack dim={dim} scalar={scalar} soa={use_soa} {rows:?}"
            );
            mem.free(q);
        }
    }

    #[test]
    fn pack_unpack_aos_and_soa() {
        for dim in 1..=4 {
            for scalar in [4, 8] {
                check(dim, scalar, false);
                check(dim, scalar, true);
            }
        }
    }

    #[test]
    fn consecutive_rows_move_together() {
        let mem = HostMemory::new();
        let p = mem.alloc(STRIDE * 16).unwrap();
        let mut out = vec![0u8; 6 * 16];
        pack_rows(&mem, p, 16, &[3, 4, 5, 9, 10, 44], None, &mut out).unwrap();
        assert_eq!(mem.downloads(), 3);
        pack_rows(
            &mem,
            p,
            16,
            &[3, 4, 5, 9, 10, 44],
            Some((STRIDE, 2, 8)),
            &mut out,
        )
        .unwrap();
        assert_eq!(mem.downloads(), 3 + 6);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let mem = HostMemory::new();
        let p = mem.alloc(N * 8).unwrap();
        let mut out = vec![0u8; 8];
        assert!(pack_rows(&mem, p, 8, &[1, 2], None, &mut out).is_err());
        assert!(pack_rows(&mem, p, 8, &[-1], None, &mut out).is_err());
        assert!(pack_rows(&mem, p, 8, &[N as i32], None, &mut out).is_err());
        assert!(pack_rows(&mem, p, 8, &[0], Some((64, 2, 8)), &mut out).is_err());
        assert!(unpack_rows(&mem, p, 8, &[0, 1], None, &out).is_err());
    }
}
