//! How a backend reaches the user's kernel: per-argument views and the invoker trait.
//!
//! A view says where argument data lives and how an element finds its slice of
//! it; an [`Invoker`] runs the kernel over a range of elements. The C ABI layer
//! implements invokers for C kernels (arity dispatch) and C++ kernels (a
//! template trampoline that receives the views and runs a whole range).
//! `ArgView` is `#[repr(C)]` because the C++ trampoline reads it.

/// How a kernel parameter is formed from its view for element `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ViewKind {
    /// `data + n * elem_bytes`
    Direct = 0,
    /// `data + map[n * map_dim + idx] * elem_bytes`
    Indirect = 1,
    /// an array of `-idx` pointers, one per map column
    Vector = 2,
    /// `data` (a global, or a reduction slot)
    Global = 3,
    /// a pointer to an `int` holding `n`
    IdxDirect = 4,
    /// a pointer to the map entry `map[n * map_dim + idx]`
    IdxMapped = 5,
    /// NULL (an optional argument switched off)
    Null = 6,
}

/// One argument as the invoker sees it. Plain data, copied per block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct ArgView {
    pub data: *mut u8,
    pub map: *const i32,
    pub map_dim: i32,
    pub idx: i32,
    pub elem_bytes: i32,
    pub kind: ViewKind,
}

// SAFETY: an ArgView is an address description; the backends decide which
// elements run concurrently (disjoint writes come from the execution plan).
unsafe impl Send for ArgView {}
// SAFETY: as above; views are only read.
unsafe impl Sync for ArgView {}

impl ArgView {
    pub const NULL: ArgView = ArgView {
        data: std::ptr::null_mut(),
        map: std::ptr::null(),
        map_dim: 0,
        idx: 0,
        elem_bytes: 0,
        kind: ViewKind::Null,
    };

    /// The map entry of column `col` for element `n`.
    ///
    /// # Safety
    /// `map` must hold at least `(n + 1) * map_dim` entries and `col < map_dim`.
    #[inline(always)]
    pub unsafe fn map_entry(&self, n: usize, col: usize) -> i32 {
        *self.map.add(n * self.map_dim as usize + col)
    }

    /// Address of the data slice for element `n`, for Direct/Indirect/Global/Null views.
    ///
    /// # Safety
    /// The view must describe live memory covering element `n` (and its map row).
    #[inline(always)]
    pub unsafe fn simple_ptr(&self, n: usize) -> *mut u8 {
        match self.kind {
            ViewKind::Direct => self.data.add(n * self.elem_bytes as usize),
            ViewKind::Indirect => self
                .data
                .add(self.map_entry(n, self.idx as usize) as usize * self.elem_bytes as usize),
            ViewKind::Global => self.data,
            ViewKind::IdxMapped => {
                self.map.add(n * self.map_dim as usize + self.idx as usize) as *mut u8
            }
            _ => std::ptr::null_mut(),
        }
    }
}

/// Runs the user's kernel for a contiguous range of elements.
pub trait Invoker: Sync {
    /// Call the kernel for every element in `start..end`, in order.
    ///
    /// # Safety
    /// Every view must describe live memory for those elements, and no other
    /// thread may concurrently access memory these elements write.
    unsafe fn run(&self, views: &[ArgView], start: usize, end: usize);
}

/// An invoker from a Rust closure, for tests and Rust users: the closure gets
/// the element index and one pointer per argument (vector arguments get a
/// pointer to their array of pointers, Idx arguments a pointer to an `i32`).
pub struct FnInvoker<F: Fn(usize, &[*mut u8]) + Sync>(pub F);

impl<F: Fn(usize, &[*mut u8]) + Sync> Invoker for FnInvoker<F> {
    unsafe fn run(&self, views: &[ArgView], start: usize, end: usize) {
        let mut ptrs = vec![std::ptr::null_mut::<u8>(); views.len()];
        let mut vecs: Vec<Vec<*mut u8>> = views
            .iter()
            .map(|v| {
                if v.kind == ViewKind::Vector {
                    vec![std::ptr::null_mut(); (-v.idx) as usize]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut idx_slot: i32 = 0;
        for n in start..end {
            idx_slot = n as i32;
            for (i, v) in views.iter().enumerate() {
                ptrs[i] = match v.kind {
                    ViewKind::Vector => {
                        for (k, p) in vecs[i].iter_mut().enumerate() {
                            *p = v
                                .data
                                .add(v.map_entry(n, k) as usize * v.elem_bytes as usize);
                        }
                        vecs[i].as_mut_ptr() as *mut u8
                    }
                    ViewKind::IdxDirect => &mut idx_slot as *mut i32 as *mut u8,
                    _ => v.simple_ptr(n),
                };
            }
            (self.0)(n, &ptrs);
        }
        let _ = idx_slot;
    }
}

/// One loop, ready to execute: everything a backend needs besides the invoker.
pub struct LoopRun<'a> {
    pub name: &'a str,
    /// Number of elements to execute (set size; plus the exec halo under MPI).
    pub exec_size: usize,
    /// Owned elements (`<= exec_size`): only these contribute to global
    /// reductions; elements past it are halo copies executed redundantly.
    pub owned: usize,
    /// Core elements (`<= owned`): they read no halo data, so they may run
    /// before `wait` is called.
    pub core: usize,
    /// Completes halo exchanges in flight. Executors call it exactly once,
    /// on the thread that called `execute` (communication libraries may
    /// require that), after the core elements and before any other element.
    pub wait: Option<&'a (dyn Fn() -> crate::Result<()> + Sync)>,
    /// One view per argument. Global reduction views point at the user's variable.
    pub views: &'a [ArgView],
    /// The checked arguments (access modes, kinds), parallel to `views`.
    pub args: &'a [crate::arg::ArgSpec],
    /// Scalar type of each argument (used to combine reduction partials).
    pub scalars: &'a [crate::types::ScalarType],
    /// The execution plan, for executors that want one.
    pub plan: Option<&'a crate::plan::Plan>,
}

/// An execution engine: runs a loop's elements through an invoker.
pub trait Executor {
    /// Short name shown in diagnostics (`seq`, `threads`, ...).
    fn name(&self) -> &'static str;

    /// Does this executor run loops by an execution plan?
    fn wants_plan(&self) -> bool {
        false
    }

    /// Run `f` inside the executor's thread pool (so nested rayon work, such
    /// as plan construction, uses the same threads).
    fn install(&self, f: &mut (dyn FnMut() + Send)) {
        f()
    }

    /// Execute every element of the loop. Errors come from `run.wait` (the
    /// halo exchange failed).
    ///
    /// # Safety
    /// The views must describe live memory for all `exec_size` elements, and the
    /// arguments must have been checked against the loop set (maps in range).
    unsafe fn execute(&self, run: &LoopRun<'_>, inv: &dyn Invoker) -> crate::Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_for_each_kind() {
        let data: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let map = [3i32, 1, 4, 1, 5, 9];
        let base = data.as_ptr() as *mut u8;
        let views = [
            ArgView {
                data: base,
                map: std::ptr::null(),
                map_dim: 0,
                idx: -1,
                elem_bytes: 8,
                kind: ViewKind::Direct,
            },
            ArgView {
                data: base,
                map: map.as_ptr(),
                map_dim: 2,
                idx: 1,
                elem_bytes: 8,
                kind: ViewKind::Indirect,
            },
            ArgView {
                data: base,
                map: map.as_ptr(),
                map_dim: 2,
                idx: -2,
                elem_bytes: 8,
                kind: ViewKind::Vector,
            },
            ArgView {
                data: base,
                map: std::ptr::null(),
                map_dim: 0,
                idx: -1,
                elem_bytes: 8,
                kind: ViewKind::Global,
            },
            ArgView {
                data: std::ptr::null_mut(),
                map: std::ptr::null(),
                map_dim: 0,
                idx: -1,
                elem_bytes: 4,
                kind: ViewKind::IdxDirect,
            },
            ArgView {
                data: std::ptr::null_mut(),
                map: map.as_ptr(),
                map_dim: 2,
                idx: 0,
                elem_bytes: 4,
                kind: ViewKind::IdxMapped,
            },
            ArgView::NULL,
        ];
        let seen = std::sync::Mutex::new(Vec::new());
        let inv = FnInvoker(|n, p: &[*mut u8]| unsafe {
            let v = p[2] as *const *const f64;
            seen.lock().unwrap().push((
                n,
                *(p[0] as *const f64),
                *(p[1] as *const f64),
                **v,
                **v.add(1),
                *(p[3] as *const f64),
                *(p[4] as *const i32),
                *(p[5] as *const i32),
                p[6].is_null(),
            ));
        });
        unsafe { inv.run(&views, 1, 3) };
        let s = seen.into_inner().unwrap();
        assert_eq!(s[0], (1, 1.0, 1.0, 4.0, 1.0, 0.0, 1, 4, true));
        assert_eq!(s[1], (2, 2.0, 9.0, 5.0, 9.0, 0.0, 2, 5, true));
    }
}
