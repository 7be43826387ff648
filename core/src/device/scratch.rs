//! OP2's paired host/device scratch buffers: `OP_reduct_h`/`OP_reduct_d`
//! (`reallocReductArrays`, `mvReductArraysToDevice`, `mvReductArraysToHost`)
//! and `OP_consts_h`/`OP_consts_d` (the same three for constants). Generated
//! code writes the host block, moves it to the device, launches, and moves it
//! back.

use crate::device::memory::{DevPtr, DeviceError, DeviceMemory};
use crate::device::stats::Moves;
use std::cell::Cell;
use std::sync::Arc;

/// A grow-only pair of equally sized blocks: page-locked host memory and
/// device memory.
///
/// When a request exceeds the capacity, the capacity becomes 4 × the request
/// (OP2's rule), the old blocks are freed and new zero-filled ones allocated.
/// As in OP2, the contents are **not** preserved across a growth: generated
/// code fills the buffers after `reallocReductArrays` on every loop.
///
/// The host block is shared with C code through [`GrowBuffers::host_ptr`];
/// the type is `Send` but not `Sync` (keep it behind a lock).
pub struct GrowBuffers {
    mem: Arc<dyn DeviceMemory>,
    host: *mut u8,
    dev: DevPtr,
    capacity: usize,
    /// Copies made to the device and back (the transfer report).
    up: Cell<Moves>,
    down: Moves,
}

// SAFETY: the host block is owned by this value alone (C code reaches it
// only through `host_ptr`, on the thread that holds the value), and the
// device memory handle is `Send + Sync`.
unsafe impl Send for GrowBuffers {}

impl GrowBuffers {
    /// Empty buffers (capacity 0, null pointers) on `mem`.
    pub fn new(mem: Arc<dyn DeviceMemory>) -> GrowBuffers {
        GrowBuffers {
            mem,
            host: std::ptr::null_mut(),
            dev: 0,
            capacity: 0,
            up: Cell::new(Moves::default()),
            down: Moves::default(),
        }
    }

    /// The copies made so far: (to the device, to the host).
    pub fn moved(&self) -> (Moves, Moves) {
        (self.up.get(), self.down)
    }

    /// The host block (null before the first growth).
    pub fn host_ptr(&self) -> *mut u8 {
        self.host
    }

    /// The device block (0 before the first growth).
    pub fn dev_ptr(&self) -> DevPtr {
        self.dev
    }

    /// Bytes in each block.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// `reallocReductArrays(bytes)`: makes room for `bytes`. Returns whether
    /// the blocks were replaced (then both are new, zeroed, and 4 × `bytes`
    /// long; the pointers from before are dangling). On an allocation error
    /// both blocks are gone and the capacity is 0.
    pub fn reserve(&mut self, bytes: usize) -> Result<bool, DeviceError> {
        if bytes <= self.capacity {
            return Ok(false);
        }
        let new_cap = bytes
            .checked_mul(4)
            .ok_or_else(|| DeviceError(format!("scratch request of {bytes} bytes too large")))?;
        self.release();
        let host = self.mem.alloc_pinned(new_cap)?;
        let dev = match self.mem.alloc(new_cap) {
            Ok(d) => d,
            Err(e) => {
                self.mem.free_pinned(host);
                return Err(e);
            }
        };
        self.host = host;
        self.dev = dev;
        self.capacity = new_cap;
        Ok(true)
    }

    fn check(&self, what: &str, bytes: usize) -> Result<(), DeviceError> {
        if bytes > self.capacity {
            return Err(DeviceError(format!(
                "{what}: {bytes} bytes requested, scratch capacity is {}",
                self.capacity
            )));
        }
        Ok(())
    }

    /// `mvReductArraysToDevice(bytes)`: copies the first `bytes` of the host
    /// block to the device block.
    pub fn to_device(&self, bytes: usize) -> Result<(), DeviceError> {
        self.check("move to device", bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: `host` is a live block of `capacity >= bytes` bytes owned
        // by this value; nothing writes it during the copy (no `&mut self`).
        let src = unsafe { std::slice::from_raw_parts(self.host, bytes) };
        self.mem.upload(self.dev, src)?;
        let mut up = self.up.get();
        up.add(bytes);
        self.up.set(up);
        Ok(())
    }

    /// `mvReductArraysToHost(bytes)`: copies the first `bytes` of the device
    /// block to the host block.
    pub fn to_host(&mut self, bytes: usize) -> Result<(), DeviceError> {
        self.check("move to host", bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: `host` is a live block of `capacity >= bytes` bytes owned
        // by this value, borrowed exclusively through `&mut self`.
        let dst = unsafe { std::slice::from_raw_parts_mut(self.host, bytes) };
        self.mem.download(self.dev, dst)?;
        self.down.add(bytes);
        Ok(())
    }

    fn release(&mut self) {
        self.mem.free_pinned(self.host);
        self.mem.free(self.dev);
        self.host = std::ptr::null_mut();
        self.dev = 0;
        self.capacity = 0;
    }
}

impl Drop for GrowBuffers {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::memory::HostMemory;

    #[test]
    fn growth_sequence_and_transfers() {
        let mem = Arc::new(HostMemory::new());
        let mut g = GrowBuffers::new(mem.clone());
        assert_eq!((g.capacity(), g.dev_ptr()), (0, 0));
        assert!(g.host_ptr().is_null());
        assert!(g.to_device(1).is_err());

        assert!(g.reserve(10).unwrap());
        assert_eq!(g.capacity(), 40);
        assert!(!g.reserve(30).unwrap());
        assert!(!g.reserve(40).unwrap());
        assert_eq!(g.capacity(), 40);

        // Write on the host, move to the device, clear, move back.
        // SAFETY: the host block holds 40 bytes.
        let host = unsafe { std::slice::from_raw_parts_mut(g.host_ptr(), 40) };
        host.iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = i as u8 + 1);
        g.to_device(40).unwrap();
        assert_eq!((mem.uploads(), mem.bytes_up()), (1, 40));
        mem.zero(g.dev_ptr(), 8).unwrap();
        g.to_host(16).unwrap();
        assert_eq!((mem.downloads(), mem.bytes_down()), (1, 16));
        // SAFETY: as above; re-borrowed after to_host wrote it.
        let host = unsafe { std::slice::from_raw_parts(g.host_ptr(), 40) };
        assert!(host[..8].iter().all(|&b| b == 0));
        assert_eq!(host[8], 9);
        assert!(g.to_host(41).is_err());

        // Growth replaces both blocks with zeroed ones (contents not kept).
        assert!(g.reserve(41).unwrap());
        assert_eq!(g.capacity(), 164);
        assert_eq!((mem.live_allocations(), mem.live_pinned()), (1, 1));
        // SAFETY: the new host block holds 164 bytes.
        let host = unsafe { std::slice::from_raw_parts(g.host_ptr(), 164) };
        assert!(host.iter().all(|&b| b == 0));
        let mut dev = vec![1u8; 164];
        mem.download(g.dev_ptr(), &mut dev).unwrap();
        assert!(dev.iter().all(|&b| b == 0));

        drop(g);
        assert_eq!((mem.live_allocations(), mem.live_pinned()), (0, 0));
    }

    #[test]
    fn oversized_request_is_an_error() {
        let mut g = GrowBuffers::new(Arc::new(HostMemory::new()));
        assert!(g.reserve(usize::MAX / 2).is_err());
        assert_eq!(g.capacity(), 0);
    }
}
