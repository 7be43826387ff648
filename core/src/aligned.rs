//! 64-byte aligned, zero-initialised byte storage for dats.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// Alignment of every dat buffer (OP2's `OP2_ALIGNMENT`; generated OpenMP code assumes it).
pub const ALIGNMENT: usize = 64;

/// An owned, zeroed, 64-byte aligned byte buffer whose address never changes;
/// or (see [`AlignedBuf::borrowed`]) a view of storage someone else owns: an
/// application's array (OP2's `OP_NO_REALLOC`) or another dat's storage
/// (`op_decl_dat_overlay`), neither freed nor guaranteed 64-byte aligned.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    owned: bool,
}

// SAFETY: AlignedBuf uniquely owns its allocation, like a Box<[u8]>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out `&[u8]`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least one cache line is allocated).
    pub fn zeroed(len: usize) -> AlignedBuf {
        Self::try_zeroed(len).unwrap_or_else(|| match Self::checked_layout(len) {
            Some(layout) => alloc::handle_alloc_error(layout),
            None => panic!("dat size {len} overflows the address space"),
        })
    }

    /// A zeroed buffer of `len` bytes, or `None` when `len` is beyond the
    /// address space or the allocator cannot provide it.
    pub fn try_zeroed(len: usize) -> Option<AlignedBuf> {
        let layout = Self::checked_layout(len)?;
        // SAFETY: the layout has non-zero size (at least ALIGNMENT bytes).
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        NonNull::new(raw).map(|ptr| AlignedBuf {
            ptr,
            len,
            owned: true,
        })
    }

    /// A buffer holding a copy of `bytes`, padded with zeros to `len` bytes.
    pub fn from_bytes(bytes: &[u8], len: usize) -> AlignedBuf {
        let mut b = AlignedBuf::zeroed(len.max(bytes.len()));
        b.as_mut_slice()[..bytes.len()].copy_from_slice(bytes);
        b
    }

    /// A buffer over `len` bytes at `ptr` that it does not own: dropping it
    /// frees nothing. `None` for a NULL `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes, aligned for
    /// the dat's scalar type, for as long as the buffer (or any copy of the
    /// pointer taken from it) is used; the owner must not free it meanwhile.
    pub unsafe fn borrowed(ptr: *mut u8, len: usize) -> Option<AlignedBuf> {
        NonNull::new(ptr).map(|ptr| AlignedBuf {
            ptr,
            len,
            owned: false,
        })
    }

    /// Does the buffer view storage it does not own ([`AlignedBuf::borrowed`])?
    pub fn is_borrowed(&self) -> bool {
        !self.owned
    }

    fn checked_layout(len: usize) -> Option<Layout> {
        let size = len.div_ceil(ALIGNMENT).max(1).checked_mul(ALIGNMENT)?;
        Layout::from_size_align(size, ALIGNMENT).ok()
    }

    fn layout(len: usize) -> Layout {
        Self::checked_layout(len).expect("dat size overflows the address space")
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed) bytes while self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // SAFETY: allocated in `zeroed` with exactly this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBuf({} bytes @ {:p})", self.len, self.ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        for len in [0usize, 1, 63, 64, 65, 1000] {
            let b = AlignedBuf::zeroed(len);
            assert_eq!(b.as_ptr() as usize % ALIGNMENT, 0);
            assert_eq!(b.len(), len);
            assert!(b.as_slice().iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(AlignedBuf::try_zeroed(usize::MAX).is_none());
        assert!(AlignedBuf::try_zeroed(isize::MAX as usize).is_none());
        assert!(AlignedBuf::try_zeroed(1 << 60).is_none());
        assert_eq!(AlignedBuf::try_zeroed(10).map(|b| b.len()), Some(10));
    }

    #[test]
    fn borrowed_storage_is_shared_and_not_freed() {
        let mut v = vec![1u8, 2, 3, 4];
        {
            // SAFETY: v outlives the view and is 4 bytes long.
            let mut b = unsafe { AlignedBuf::borrowed(v.as_mut_ptr(), 4) }.unwrap();
            assert!(b.is_borrowed());
            b.as_mut_slice()[2] = 9;
        }
        assert_eq!(v, [1, 2, 9, 4]);
        // SAFETY: NULL is refused before any access.
        assert!(unsafe { AlignedBuf::borrowed(std::ptr::null_mut(), 4) }.is_none());
        assert!(!AlignedBuf::zeroed(8).is_borrowed());
    }

    #[test]
    fn copies_and_pads() {
        let b = AlignedBuf::from_bytes(&[1, 2, 3], 8);
        assert_eq!(b.as_slice(), &[1, 2, 3, 0, 0, 0, 0, 0]);
    }
}
