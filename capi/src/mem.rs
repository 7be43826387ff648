//! OP2's allocator: 64-byte aligned memory that `free` releases. Usable before op_init.

use crate::boundary::{c_api, exports};
use std::os::raw::{c_int, c_void};

const ALIGN: usize = 64;

fn round_up(n: usize) -> Option<usize> {
    n.max(1).checked_add(ALIGN - 1).map(|v| v / ALIGN * ALIGN)
}

/// `size` bytes aligned to 64 (NULL if out of memory).
fn malloc(size: usize) -> *mut c_void {
    let Some(sz) = round_up(size) else {
        return std::ptr::null_mut();
    };
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: posix_memalign writes p; memory from it may be released with free().
    let rc = unsafe { libc::posix_memalign(&mut p, ALIGN, sz) };
    if rc != 0 {
        return std::ptr::null_mut();
    }
    p
}

/// # Safety
/// As for [`op_realloc`].
unsafe fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    if ptr.is_null() {
        return malloc(size);
    }
    // SAFETY: the caller's contract: a block from malloc & co.
    let q = unsafe { libc::realloc(ptr, size.max(1)) };
    if q.is_null() || (q as usize).is_multiple_of(ALIGN) {
        return q;
    }
    // realloc kept the contents but lost the alignment: move them.
    let r = malloc(size);
    // SAFETY: `q` holds `size` bytes (realloc's result) and `r` as many;
    // `q` is freed once.
    unsafe {
        if !r.is_null() {
            std::ptr::copy_nonoverlapping(q as *const u8, r as *mut u8, size);
        }
        libc::free(q);
    }
    r
}

/// Zeroed aligned allocation of `num * size` bytes.
#[no_mangle]
pub extern "C" fn op_calloc(num: usize, size: usize) -> *mut c_void {
    c_api!("op_calloc", {
        let Some(total) = num.checked_mul(size) else {
            return Ok(std::ptr::null_mut());
        };
        let p = malloc(total);
        if !p.is_null() {
            // SAFETY: p holds at least `total` bytes.
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, total) };
        }
        Ok(p)
    })
}

/// Release memory from op_malloc (same as free).
///
/// # Safety
/// `ptr` is NULL or a live allocation from op_malloc & co.
#[no_mangle]
pub unsafe extern "C" fn op_free(ptr: *mut c_void) {
    c_api!("op_free", {
        // SAFETY: the caller's contract.
        unsafe { libc::free(ptr) };
        Ok(())
    })
}

/// Fortran helper: `*p = op_malloc(*bytes)`.
///
/// # Safety
/// `p` and `bytes` are NULL or valid pointers.
#[no_mangle]
pub unsafe extern "C" fn op_malloc2(p: *mut *mut c_void, bytes: *mut c_int) {
    c_api!("op_malloc2", {
        // SAFETY: the caller's contract.
        if let (Some(p), Some(b)) = (unsafe { p.as_mut() }, unsafe { bytes.as_ref() }) {
            *p = malloc((*b).max(0) as usize);
        }
        Ok(())
    })
}

exports! {
    /// Allocate `size` bytes aligned to 64 (NULL if out of memory).
    op_malloc(size: usize) -> *mut c_void = "op_malloc" => Ok(malloc(size));
    /// Resize an allocation, keeping it 64-byte aligned.
    op_realloc(ptr: *mut c_void, size: usize) -> *mut c_void = "op_realloc" => Ok(realloc(ptr, size));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_resizable() {
        // SAFETY: every pointer comes from the allocator under test and is
        // used within its size.
        unsafe {
            let p = op_malloc(10) as *mut u8;
            assert_eq!(p as usize % 64, 0);
            for i in 0..10 {
                *p.add(i) = i as u8;
            }
            let q = op_realloc(p as *mut c_void, 100000) as *mut u8;
            assert_eq!(q as usize % 64, 0);
            for i in 0..10 {
                assert_eq!(*q.add(i), i as u8);
            }
            op_free(q as *mut c_void);
            let z = op_calloc(8, 8) as *const u64;
            assert!((0..8).all(|i| *z.add(i) == 0));
            op_free(z as *mut c_void);
            assert!(op_calloc(usize::MAX, 2).is_null());
        }
    }
}
