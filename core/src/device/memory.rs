//! Device memory behind one trait, and a host-memory implementation of it
//! for tests and for running device-style code paths without a GPU.

use crate::device::layout::DatLayout;
use std::alloc::{self, Layout};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A device address (CUDA's `CUdeviceptr`). 0 is the null pointer.
pub type DevPtr = u64;

/// A failed device operation, with a one-line description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceError(pub String);

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeviceError {}

/// Rows of a dat's device copy gathered into a packed buffer on the device
/// ([`DeviceMemory::gather_rows`]): row `rows[k]` of `src` becomes AoS row
/// `k` of `dst`, whatever `src`'s layout. Every pointer is the start of its
/// own allocation; `dst` holds `n * layout.elem_bytes` bytes and overlaps
/// neither `src` nor `rows`; every row number is below `layout.elems`.
#[derive(Debug, Clone, Copy)]
pub struct Gather {
    pub src: DevPtr,
    pub layout: DatLayout,
    /// `n` row numbers (`i32`) on the device.
    pub rows: DevPtr,
    pub n: usize,
    pub dst: DevPtr,
}

impl Gather {
    /// Bytes of the packed rows.
    pub fn bytes(&self) -> usize {
        self.n.saturating_mul(self.layout.elem_bytes)
    }

    /// The kernel's `int` parameters (op2-codegen's `gather_text`): rows,
    /// row bytes, SoA stride and component bytes (0 and 0 for AoS); an
    /// error when one of them, or the packed bytes, does not fit an `int`.
    pub fn int_params(&self) -> Result<[i32; 4], DeviceError> {
        let int = |v: usize, what: &str| {
            i32::try_from(v).map_err(|_| DeviceError(format!("row gather: {what} {v} past int")))
        };
        let (stride, scalar) = self.layout.soa.map_or((0, 0), |(st, _, sc)| (st, sc));
        int(self.bytes(), "bytes")?;
        Ok([
            int(self.n, "rows")?,
            int(self.layout.elem_bytes, "row bytes")?,
            int(stride, "stride")?,
            int(scalar, "component bytes")?,
        ])
    }
}

/// Memory on one device, and page-locked host memory for staging.
///
/// Every implementation treats a zero-byte request the same way:
/// `alloc(0)` returns `Ok(0)` (the null pointer), `free(0)` does nothing,
/// and transfers or fills of zero bytes succeed without touching memory,
/// whatever the pointer. `alloc_pinned(0)` returns a null pointer, which
/// `free_pinned` accepts.
pub trait DeviceMemory: Send + Sync {
    /// The device's name, for the start-up line.
    fn name(&self) -> String;
    /// A zero-filled block of `bytes` bytes.
    fn alloc(&self, bytes: usize) -> Result<DevPtr, DeviceError>;
    /// Frees a block from [`DeviceMemory::alloc`]; unknown pointers are ignored.
    fn free(&self, p: DevPtr);
    /// Copies `src` to `dst..dst + src.len()`.
    fn upload(&self, dst: DevPtr, src: &[u8]) -> Result<(), DeviceError>;
    /// Copies `src..src + dst.len()` into `dst`.
    fn download(&self, src: DevPtr, dst: &mut [u8]) -> Result<(), DeviceError>;
    /// Sets `dst..dst + bytes` to zero.
    fn zero(&self, dst: DevPtr, bytes: usize) -> Result<(), DeviceError>;
    /// Waits until all work queued on the device has finished.
    fn synchronize(&self) -> Result<(), DeviceError>;
    /// A zero-filled block of page-locked host memory (`cuMemHostAlloc`).
    fn alloc_pinned(&self, bytes: usize) -> Result<*mut u8, DeviceError>;
    /// Frees a block from [`DeviceMemory::alloc_pinned`]; unknown pointers
    /// are ignored.
    fn free_pinned(&self, p: *mut u8);
    /// Whether [`DeviceMemory::gather_rows`] runs on this device (without
    /// it, halo rows move as spans of rows).
    fn has_gather(&self) -> bool {
        false
    }
    /// Gathers rows on the device (see [`Gather`]), ordered with the
    /// transfers and launches around it.
    fn gather_rows(&self, _g: &Gather) -> Result<(), DeviceError> {
        Err(DeviceError("this device has no row gather".into()))
    }
}

/// Alignment of every [`HostMemory`] block (a cache line; CUDA's own
/// allocations are aligned to at least 256 bytes).
pub const HOST_ALIGN: usize = 64;

/// Live blocks by start address, with their sizes.
#[derive(Default)]
struct Blocks {
    device: BTreeMap<usize, usize>,
    pinned: BTreeMap<usize, usize>,
}

/// [`DeviceMemory`] in ordinary host memory: every "device" block is a
/// zeroed, 64-byte-aligned heap block and its [`DevPtr`] is its address, so
/// C test programs can dereference "device" pointers. Transfers are counted,
/// so tests can show that data moved once and not twice, and each transfer
/// must lie inside one live block (the pointer may point into the middle of
/// it). Every block still live is freed when the `HostMemory` is dropped.
#[derive(Default)]
pub struct HostMemory {
    blocks: Mutex<Blocks>,
    uploads: AtomicU64,
    downloads: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
    gathers: AtomicU64,
    /// Offer no row gather (tests of the path devices without one take).
    no_gather: bool,
}

fn layout(bytes: usize) -> Result<Layout, DeviceError> {
    Layout::from_size_align(bytes, HOST_ALIGN)
        .map_err(|_| DeviceError(format!("cannot allocate {bytes} bytes: size too large")))
}

fn zeroed_block(bytes: usize) -> Result<usize, DeviceError> {
    let lay = layout(bytes)?;
    // SAFETY: `bytes > 0` (callers handle 0), so the layout has non-zero size.
    let p = unsafe { alloc::alloc_zeroed(lay) };
    if p.is_null() {
        return Err(DeviceError(format!(
            "out of memory allocating {bytes} bytes"
        )));
    }
    Ok(p as usize)
}

fn release(addr: usize, bytes: usize) {
    if let Ok(lay) = layout(bytes) {
        // SAFETY: `addr` came from `alloc_zeroed` with this same layout and is
        // removed from the live table before this call, so it is freed once.
        unsafe { alloc::dealloc(addr as *mut u8, lay) };
    }
}

impl HostMemory {
    pub fn new() -> HostMemory {
        HostMemory::default()
    }

    /// A `HostMemory` without a row gather, like a device that has none.
    pub fn without_gather() -> HostMemory {
        let mut m = HostMemory::default();
        m.no_gather = true;
        m
    }

    /// Gathers completed.
    pub fn gathers(&self) -> u64 {
        self.gathers.load(Ordering::Relaxed)
    }

    /// Number of uploads of one byte or more.
    pub fn uploads(&self) -> u64 {
        self.uploads.load(Ordering::Relaxed)
    }

    /// Number of downloads of one byte or more.
    pub fn downloads(&self) -> u64 {
        self.downloads.load(Ordering::Relaxed)
    }

    /// Bytes uploaded in all.
    pub fn bytes_up(&self) -> u64 {
        self.bytes_up.load(Ordering::Relaxed)
    }

    /// Bytes downloaded in all.
    pub fn bytes_down(&self) -> u64 {
        self.bytes_down.load(Ordering::Relaxed)
    }

    /// Live device blocks.
    pub fn live_allocations(&self) -> usize {
        self.lock().device.len()
    }

    /// Live pinned host blocks.
    pub fn live_pinned(&self) -> usize {
        self.lock().pinned.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Blocks> {
        // A poisoned lock only means another thread panicked while holding
        // it; the table itself is always consistent.
        self.blocks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the address `p` after checking that `p..p + len` lies
    /// inside one live device block; the lock is held so the block cannot be
    /// freed meanwhile.
    fn with_range<R>(
        &self,
        what: &str,
        p: DevPtr,
        len: usize,
        f: impl FnOnce(usize) -> R,
    ) -> Result<R, DeviceError> {
        let blocks = self.lock();
        match inside(&blocks, p, len) {
            Some(a) => Ok(f(a)),
            None => Err(DeviceError(format!(
                "{what} of {len} bytes at device address {p:#x} is outside every live allocation"
            ))),
        }
    }
}

/// The address of `p` when `p..p + len` lies inside one live device block.
fn inside(blocks: &Blocks, p: DevPtr, len: usize) -> Option<usize> {
    let a = usize::try_from(p).ok()?;
    let (&start, &size) = blocks.device.range(..=a).next_back()?;
    let end = a.checked_add(len)?;
    (end <= start + size).then_some(a)
}

impl DeviceMemory for HostMemory {
    fn name(&self) -> String {
        "host memory (no device)".to_string()
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr, DeviceError> {
        if bytes == 0 {
            return Ok(0);
        }
        let addr = zeroed_block(bytes)?;
        self.lock().device.insert(addr, bytes);
        Ok(addr as DevPtr)
    }

    fn free(&self, p: DevPtr) {
        let Ok(addr) = usize::try_from(p) else { return };
        let removed = self.lock().device.remove(&addr);
        if let Some(bytes) = removed {
            release(addr, bytes);
        }
    }

    fn upload(&self, dst: DevPtr, src: &[u8]) -> Result<(), DeviceError> {
        if src.is_empty() {
            return Ok(());
        }
        self.with_range("upload", dst, src.len(), |a| {
            // SAFETY: `a..a + src.len()` lies inside a live block (checked
            // under the lock that is still held), and `src` is a distinct
            // borrowed slice, so the regions do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), a as *mut u8, src.len()) };
        })?;
        self.uploads.fetch_add(1, Ordering::Relaxed);
        self.bytes_up.fetch_add(src.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn download(&self, src: DevPtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        if dst.is_empty() {
            return Ok(());
        }
        let len = dst.len();
        self.with_range("download", src, len, |a| {
            // SAFETY: `a..a + len` lies inside a live block (checked under
            // the held lock); `dst` is an exclusive slice of `len` bytes that
            // cannot alias a block this allocator owns.
            unsafe { std::ptr::copy_nonoverlapping(a as *const u8, dst.as_mut_ptr(), len) };
        })?;
        self.downloads.fetch_add(1, Ordering::Relaxed);
        self.bytes_down.fetch_add(len as u64, Ordering::Relaxed);
        Ok(())
    }

    fn zero(&self, dst: DevPtr, bytes: usize) -> Result<(), DeviceError> {
        if bytes == 0 {
            return Ok(());
        }
        self.with_range("zero", dst, bytes, |a| {
            // SAFETY: `a..a + bytes` lies inside a live block (checked under
            // the held lock).
            unsafe { std::ptr::write_bytes(a as *mut u8, 0, bytes) };
        })
    }

    fn synchronize(&self) -> Result<(), DeviceError> {
        Ok(())
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<*mut u8, DeviceError> {
        if bytes == 0 {
            return Ok(std::ptr::null_mut());
        }
        let addr = zeroed_block(bytes)?;
        self.lock().pinned.insert(addr, bytes);
        Ok(addr as *mut u8)
    }

    fn free_pinned(&self, p: *mut u8) {
        let addr = p as usize;
        let removed = self.lock().pinned.remove(&addr);
        if let Some(bytes) = removed {
            release(addr, bytes);
        }
    }

    fn has_gather(&self) -> bool {
        !self.no_gather
    }

    fn gather_rows(&self, g: &Gather) -> Result<(), DeviceError> {
        if self.no_gather {
            return Err(DeviceError("this device has no row gather".into()));
        }
        let eb = g.layout.elem_bytes;
        let (src_len, out_len) = (g.layout.device_bytes(), g.n.saturating_mul(eb));
        let blocks = self.lock();
        let (Some(src), Some(rows), Some(dst)) = (
            inside(&blocks, g.src, src_len),
            inside(&blocks, g.rows, g.n.saturating_mul(4)),
            inside(&blocks, g.dst, out_len),
        ) else {
            return Err(DeviceError(format!(
                "gather of {} rows of {eb} bytes: a buffer is outside every live allocation",
                g.n
            )));
        };
        let apart = |a: usize, la: usize| dst + out_len <= a || a + la <= dst;
        if !apart(src, src_len) || !apart(rows, g.n * 4) {
            return Err(DeviceError(
                "gather: the packed rows overlap the dat or the row list".into(),
            ));
        }
        // SAFETY: the three ranges lie inside live blocks (checked under the
        // lock, still held, so none is freed meanwhile); `dst`'s range
        // overlaps neither of the two read ones (checked above), so the
        // shared and the exclusive slices do not alias (the row list is
        // read as bytes, so its alignment does not matter).
        let (src, rows, dst) = unsafe {
            (
                std::slice::from_raw_parts(src as *const u8, src_len),
                std::slice::from_raw_parts(rows as *const u8, g.n * 4),
                std::slice::from_raw_parts_mut(dst as *mut u8, out_len),
            )
        };
        let rows: Vec<i32> = rows
            .chunks_exact(4)
            .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        crate::device::halo_pack::gather_host(src, &g.layout, &rows, dst)?;
        self.gathers.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for HostMemory {
    fn drop(&mut self) {
        let blocks = std::mem::take(&mut *self.lock());
        for (addr, bytes) in blocks.device.into_iter().chain(blocks.pinned) {
            release(addr, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_gather_checks_its_buffers() {
        let m = HostMemory::new();
        let lay = DatLayout {
            elems: 4,
            elem_bytes: 8,
            soa: None,
        };
        let src = m.alloc(32).unwrap();
        m.upload(src, &(0u8..32).collect::<Vec<u8>>()).unwrap();
        let rows = m.alloc(8).unwrap();
        m.upload(rows, &[3i32.to_ne_bytes(), 1i32.to_ne_bytes()].concat())
            .unwrap();
        let dst = m.alloc(16).unwrap();
        let g = Gather {
            src,
            layout: lay,
            rows,
            n: 2,
            dst,
        };
        assert_eq!(g.int_params().unwrap(), [2, 8, 0, 0]);
        let soa = DatLayout {
            soa: Some((32, 2, 4)),
            ..lay
        };
        assert_eq!(
            Gather { layout: soa, ..g }.int_params().unwrap(),
            [2, 8, 32, 4]
        );
        let e = Gather { n: 1 << 29, ..g }.int_params().unwrap_err();
        assert_eq!(e.0, "row gather: bytes 4294967296 past int");
        m.gather_rows(&g).unwrap();
        let mut out = vec![0u8; 16];
        m.download(dst, &mut out).unwrap();
        assert_eq!(
            out,
            [(24u8..32).collect::<Vec<u8>>(), (8..16).collect()].concat()
        );
        assert_eq!(m.gathers(), 1);
        // into the dat itself, past the end, unknown pointers: errors
        let e = m.gather_rows(&Gather { dst: src, ..g }).unwrap_err();
        assert!(e.0.contains("overlap"), "{e}");
        assert!(m.gather_rows(&Gather { n: 3, ..g }).is_err());
        assert!(m.gather_rows(&Gather { src: 8, ..g }).is_err());
        assert!(!HostMemory::without_gather().has_gather());
        assert!(HostMemory::without_gather().gather_rows(&g).is_err());
    }

    #[test]
    fn alloc_is_zeroed_aligned_and_round_trips() {
        let m = HostMemory::new();
        let p = m.alloc(100).unwrap();
        assert_eq!(p % HOST_ALIGN as u64, 0);
        let mut back = vec![1u8; 100];
        m.download(p, &mut back).unwrap();
        assert!(back.iter().all(|&b| b == 0));
        let data: Vec<u8> = (0..100).collect();
        m.upload(p, &data).unwrap();
        m.download(p, &mut back).unwrap();
        assert_eq!(back, data);
        // Inside the block.
        let mut mid = [0u8; 10];
        m.download(p + 50, &mut mid).unwrap();
        assert_eq!(&mid[..], &data[50..60]);
        m.zero(p + 10, 5).unwrap();
        m.download(p, &mut back).unwrap();
        assert!(back[10..15].iter().all(|&b| b == 0));
        assert_eq!(back[15], 15);
        assert_eq!((m.uploads(), m.downloads()), (1, 4));
        assert_eq!((m.bytes_up(), m.bytes_down()), (100, 310));
        m.free(p);
        assert_eq!(m.live_allocations(), 0);
    }

    #[test]
    fn out_of_bounds_transfers_are_errors() {
        let m = HostMemory::new();
        let p = m.alloc(64).unwrap();
        assert!(m.upload(p + 60, &[0u8; 8]).is_err());
        let mut buf = [0u8; 65];
        assert!(m.download(p, &mut buf).is_err());
        assert!(m.zero(p + 64, 1).is_err());
        assert!(m.upload(p.wrapping_sub(1), &[1]).is_err());
        assert!(m.upload(0, &[1]).is_err());
        let e = m.upload(u64::MAX, &[1]).unwrap_err();
        assert!(
            e.to_string().contains("outside every live allocation"),
            "{e}"
        );
        // Nothing counted for refused transfers.
        assert_eq!((m.uploads(), m.downloads()), (0, 0));
        // A freed block is no longer a target.
        m.free(p);
        assert!(m.upload(p, &[1]).is_err());
        // Zero bytes are always fine.
        m.upload(12345, &[]).unwrap();
    }

    #[test]
    fn zero_size_and_pinned() {
        let m = HostMemory::new();
        assert_eq!(m.alloc(0).unwrap(), 0);
        m.free(0);
        assert!(m.alloc_pinned(0).unwrap().is_null());
        m.free_pinned(std::ptr::null_mut());
        let h = m.alloc_pinned(33).unwrap();
        assert_eq!(h as usize % HOST_ALIGN, 0);
        // SAFETY: `h` is a live 33-byte block.
        let s = unsafe { std::slice::from_raw_parts(h, 33) };
        assert!(s.iter().all(|&b| b == 0));
        assert_eq!(m.live_pinned(), 1);
        // A pinned block is not a device block.
        assert!(m.upload(h as DevPtr, &[1]).is_err());
        m.free_pinned(h);
        assert_eq!(m.live_pinned(), 0);
        // Left for Drop to free.
        m.alloc(8).unwrap();
        m.alloc_pinned(8).unwrap();
    }
}
