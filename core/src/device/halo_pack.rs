//! The rows of a device-resident dat that a host-side halo exchange sends
//! (MPI with device loops): before the exchange only those owned rows come
//! down, into their own places in the host copy, so the rest of the dat
//! never crosses the bus and the host copy stays stale elsewhere. The rows
//! the exchange receives go up as halo rows afterwards
//! (`DeviceCopies::upload_halo_rows`).
//!
//! A device with a row gather packs the rows on the device and one
//! transfer brings them down ([`gather_host`] is what the gather does, on
//! host bytes: the reference the device kernels are tested against). On a
//! device without one they move in spans: consecutive rows in one transfer
//! (one per component for SoA), and two spans separated by a small gap in
//! one transfer too, because a transfer costs a fixed latency
//! (microseconds over PCIe: the time of tens of kilobytes) whatever its
//! size.

use crate::device::layout::DatLayout;
use crate::device::memory::{DevPtr, DeviceError, DeviceMemory};

/// Two spans of rows closer than this many bytes move as one transfer.
pub const GAP_BYTES: usize = 64 * 1024;

/// Spans `(first row, number of rows)` covering `rows` (sorted, distinct),
/// in order; a gap of at most `max_gap` rows between two spans joins them.
pub fn spans(rows: &[usize], max_gap: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &r in rows {
        match out.last_mut() {
            Some((first, len)) if r >= *first + *len && r - (*first + *len) <= max_gap => {
                *len = r + 1 - *first;
            }
            _ => out.push((r, 1)),
        }
    }
    out
}

/// Rows the spans hold in all.
pub fn span_rows(spans: &[(usize, usize)]) -> usize {
    spans.iter().map(|&(_, n)| n).sum()
}

/// Copies `spans` of the dat at `dat_dev` (device layout `lay`) into the
/// same rows of `host` (AoS, `lay.elems` rows), leaving every other row of
/// `host` alone. Returns the host-side bytes written. A span past the dat's
/// rows or past `host` is an error, and nothing after it moves.
pub fn download_spans(
    mem: &dyn DeviceMemory,
    dat_dev: DevPtr,
    lay: &DatLayout,
    spans: &[(usize, usize)],
    host: &mut [u8],
) -> Result<usize, DeviceError> {
    let eb = lay.elem_bytes;
    let mut comp = Vec::new();
    let mut moved = 0;
    for &(first, len) in spans {
        let end = first
            .checked_add(len)
            .filter(|&e| e <= lay.elems && e.saturating_mul(eb) <= host.len())
            .ok_or_else(|| {
                DeviceError(format!(
                    "rows {first}..{} of a dat with {} rows of {eb} bytes ({} host bytes)",
                    first.saturating_add(len),
                    lay.elems,
                    host.len()
                ))
            })?;
        let dst = &mut host[first * eb..end * eb];
        match lay.soa {
            None => mem.download(dat_dev.wrapping_add((first * eb) as DevPtr), dst)?,
            Some((stride, dim, scalar)) => {
                comp.resize(len * scalar, 0);
                for c in 0..dim {
                    let at = (c * stride + first) * scalar;
                    mem.download(dat_dev.wrapping_add(at as DevPtr), &mut comp)?;
                    for (row, v) in dst.chunks_exact_mut(eb).zip(comp.chunks_exact(scalar)) {
                        row[c * scalar..(c + 1) * scalar].copy_from_slice(v);
                    }
                }
            }
        }
        moved += len * eb;
    }
    Ok(moved)
}

/// What a device's row gather does ([`crate::device::memory::Gather`]), on
/// host bytes: row `rows[k]` of `src` (device layout `lay`) becomes AoS row
/// `k` of `dst`. A row outside the dat, or buffers too short, are errors.
pub fn gather_host(
    src: &[u8],
    lay: &DatLayout,
    rows: &[i32],
    dst: &mut [u8],
) -> Result<(), DeviceError> {
    let eb = lay.elem_bytes;
    if src.len() < lay.device_bytes() || dst.len() < rows.len().saturating_mul(eb) {
        return Err(DeviceError(format!(
            "gather of {} rows of {eb} bytes: buffers of {} and {} bytes are too short",
            rows.len(),
            src.len(),
            dst.len()
        )));
    }
    for (k, &r) in rows.iter().enumerate() {
        let r = usize::try_from(r)
            .ok()
            .filter(|&r| r < lay.elems)
            .ok_or_else(|| {
                DeviceError(format!("gather: row {r} of a dat with {} rows", lay.elems))
            })?;
        let out = &mut dst[k * eb..(k + 1) * eb];
        match lay.soa {
            None => out.copy_from_slice(&src[r * eb..(r + 1) * eb]),
            Some((stride, _, scalar)) => {
                for (c, v) in out.chunks_exact_mut(scalar).enumerate() {
                    let at = (c * stride + r) * scalar;
                    v.copy_from_slice(&src[at..at + scalar]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::layout::aos_to_soa;
    use crate::device::memory::HostMemory;

    const N: usize = 45;
    const STRIDE: usize = 64;

    #[test]
    fn spans_join_runs_and_small_gaps() {
        assert_eq!(spans(&[], 0), vec![]);
        assert_eq!(spans(&[7], 0), vec![(7, 1)]);
        assert_eq!(
            spans(&[3, 4, 5, 9, 10, 44], 0),
            vec![(3, 3), (9, 2), (44, 1)]
        );
        // a gap of 3 rows (6, 7, 8) joins at max_gap 3, not at 2
        assert_eq!(spans(&[3, 4, 5, 9, 10, 44], 3), vec![(3, 8), (44, 1)]);
        assert_eq!(
            spans(&[3, 4, 5, 9, 10, 44], 2),
            vec![(3, 3), (9, 2), (44, 1)]
        );
        assert_eq!(spans(&[0, 44], 100), vec![(0, 45)]);
        assert_eq!(span_rows(&spans(&[3, 4, 5, 9, 10, 44], 3)), 9);
    }

    /// The dat's rows, distinct bytes per row and component.
    fn dat(dim: usize, scalar: usize) -> Vec<u8> {
        (0..N * dim * scalar).map(|i| (i % 251) as u8 + 1).collect()
    }

    fn check(dim: usize, scalar: usize, use_soa: bool) {
        let eb = dim * scalar;
        let device_rows = dat(dim, scalar);
        let lay = DatLayout {
            elems: N,
            elem_bytes: eb,
            soa: use_soa.then_some((STRIDE, dim, scalar)),
        };
        let image = lay.to_device(&device_rows);
        if use_soa {
            assert_eq!(image, aos_to_soa(&device_rows, N, dim, scalar, STRIDE));
        }
        let mem = HostMemory::new();
        let p = mem.alloc(image.len()).unwrap();
        mem.upload(p, &image).unwrap();
        for rows in [
            vec![],
            vec![0],
            vec![3, 4, 5, 9, 10, 44],
            vec![1, 20, 21, 22],
        ] {
            for gap in [0, 4] {
                let sp = spans(&rows, gap);
                let mut host = vec![0xEEu8; N * eb];
                let moved = download_spans(&mem, p, &lay, &sp, &mut host).unwrap();
                assert_eq!(moved, span_rows(&sp) * eb);
                // a plain loop: rows inside a span are the device's, the
                // others untouched
                for r in 0..N {
                    let inside = sp.iter().any(|&(f, n)| r >= f && r < f + n);
                    let want = if inside {
                        &device_rows[r * eb..(r + 1) * eb]
                    } else {
                        &[0xEEu8; 32][..eb]
                    };
                    assert_eq!(
                        &host[r * eb..(r + 1) * eb],
                        want,
                        "row {r} dim={dim} scalar={scalar} soa={use_soa} {rows:?} gap {gap}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_gather_packs_rows_in_list_order_aos_and_soa() {
        for dim in 1..=4 {
            for scalar in [4, 8] {
                let eb = dim * scalar;
                let rows_aos = dat(dim, scalar);
                for soa in [None, Some((STRIDE, dim, scalar))] {
                    let lay = DatLayout {
                        elems: N,
                        elem_bytes: eb,
                        soa,
                    };
                    let image = lay.to_device(&rows_aos);
                    let list = [44, 2, 3, 7, 6, 0];
                    let mut out = vec![0u8; list.len() * eb];
                    gather_host(&image, &lay, &list, &mut out).unwrap();
                    let want: Vec<u8> = list
                        .iter()
                        .flat_map(|&r| rows_aos[r as usize * eb..][..eb].to_vec())
                        .collect();
                    assert_eq!(out, want, "dim={dim} scalar={scalar} soa={soa:?}");
                    for bad in [-1, N as i32] {
                        let e = gather_host(&image, &lay, &[bad], &mut out).unwrap_err();
                        assert!(e.0.contains(&format!("row {bad} of a dat with {N} rows")));
                    }
                    assert!(gather_host(&image, &lay, &list, &mut out[1..]).is_err());
                }
            }
        }
    }

    #[test]
    fn rows_come_down_into_their_places_aos_and_soa() {
        for dim in 1..=4 {
            for scalar in [4, 8] {
                check(dim, scalar, false);
                check(dim, scalar, true);
            }
        }
    }

    #[test]
    fn one_transfer_per_span_and_component() {
        let mem = HostMemory::new();
        let p = mem.alloc(STRIDE * 16).unwrap();
        let sp = spans(&[3, 4, 5, 9, 10, 44], 0);
        let mut host = vec![0u8; N * 16];
        let aos = DatLayout {
            elems: N,
            elem_bytes: 16,
            soa: None,
        };
        download_spans(&mem, p, &aos, &sp, &mut host).unwrap();
        assert_eq!(mem.downloads(), 3);
        let soa = DatLayout {
            soa: Some((STRIDE, 2, 8)),
            ..aos
        };
        download_spans(&mem, p, &soa, &sp, &mut host).unwrap();
        assert_eq!(mem.downloads(), 3 + 6);
    }

    #[test]
    fn rows_past_the_dat_are_errors() {
        let mem = HostMemory::new();
        let p = mem.alloc(N * 8).unwrap();
        let lay = DatLayout {
            elems: N,
            elem_bytes: 8,
            soa: None,
        };
        let mut host = vec![0u8; N * 8];
        let e = download_spans(&mem, p, &lay, &[(40, 6)], &mut host).unwrap_err();
        assert!(e.0.contains("rows 40..46 of a dat with 45 rows"), "{e}");
        let mut short = vec![0u8; 10 * 8];
        assert!(download_spans(&mem, p, &lay, &[(9, 2)], &mut short).is_err());
        assert!(download_spans(&mem, p, &lay, &[(usize::MAX, 2)], &mut host).is_err());
        assert_eq!(mem.downloads(), 0, "nothing moved");
    }
}
