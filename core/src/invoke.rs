//! How a backend reaches the user's kernel: per-argument views and the invoker trait.
//!
//! A view says where argument data lives and how an element finds its slice of
//! it; an [`Invoker`] runs the kernel over a range of elements. The C ABI layer
//! implements invokers for C kernels (arity dispatch) and C++ kernels (a
//! template trampoline that receives the views and runs a whole range).
//! `ArgView` is `#[repr(C)]` because the C++ trampoline reads it: cbindgen
//! exports it as `op2_arg_view` (and [`ViewKind`], [`VIEW_LOCAL`],
//! [`VIEW_EXCLUSIVE`]) to `include/op2_rs_generated.h`.

use crate::arg::{Access, ArgKind, ArgSpec};

/// cbindgen:rename-all=ScreamingSnakeCase
/// cbindgen:prefix-with-name
/// How a kernel parameter is formed from its view for element `n`
/// (C: `OP2_VIEW_KIND_DIRECT`, ...).
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

/// `ArgView::flags` bit (C: `OP2_VIEW_LOCAL`) of a global: no other argument of the loop refers to
/// any byte of it, so an invoker may keep it in a local copy for a range of
/// elements (initialised from `data`, written back at the end of the range).
pub const VIEW_LOCAL: i32 = 1;

/// `ArgView::flags` bit (C: `OP2_VIEW_EXCLUSIVE`) of a dat argument: every other argument of the loop
/// on the same dat has the same access mode, which is `OP_READ`, or `OP_INC`
/// with both arguments through a map. So no element reads what another
/// argument of the loop writes, and an invoker may stage the argument through
/// local copies (gather reads, sum increments locally and add them back in
/// element order).
pub const VIEW_EXCLUSIVE: i32 = 2;

/// One argument as the invoker sees it. Plain data, copied per block.
/// The first six fields come from the argument itself; `map_slot`, `access`
/// and `flags` relate it to the other arguments of its loop and are set by
/// `link_views`. C name: `op2_arg_view` (read by the trampoline in `op_seq.h`).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct ArgView {
    /// dat base, global (or reduction slot) pointer, or NULL
    pub data: *mut u8,
    /// map entries (row-major), or NULL
    pub map: *const i32,
    /// entries per map row
    pub map_dim: i32,
    /// map column; `-K` for a vector argument of K pointers
    pub idx: i32,
    /// bytes per dat element (of a global: all of it)
    pub elem_bytes: i32,
    pub kind: ViewKind,
    /// Arguments through the same map share its rows: the index of the first
    /// argument of the loop with this view's map (Indirect, Vector and
    /// IdxMapped views), -1 for views without a map.
    pub map_slot: i32,
    /// The access mode, as OP2's `OP_READ` ... `OP_WORK`.
    pub access: i32,
    /// `VIEW_LOCAL` | `VIEW_EXCLUSIVE` (C: `OP2_VIEW_LOCAL`, `OP2_VIEW_EXCLUSIVE`)
    pub flags: i32,
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
        map_slot: -1,
        access: 0,
        flags: 0,
    };

    /// The map entry of column `col` for element `n`.
    ///
    /// # Safety
    /// `map` must hold at least `(n + 1) * map_dim` entries and `col < map_dim`.
    #[inline(always)]
    pub unsafe fn map_entry(&self, n: usize, col: usize) -> i32 {
        // SAFETY: the caller's contract: the entry lies inside the map.
        unsafe { *self.map.add(n * self.map_dim as usize + col) }
    }

    /// Address of the data slice for element `n`, for Direct/Indirect/Global/Null views.
    ///
    /// # Safety
    /// The view must describe live memory covering element `n` (and its map row).
    #[inline(always)]
    pub unsafe fn simple_ptr(&self, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract: element `n` and its map row are
        // inside the view's storage.
        unsafe {
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
}

fn has_map(v: &ArgView) -> bool {
    !v.map.is_null()
        && matches!(
            v.kind,
            ViewKind::Indirect | ViewKind::Vector | ViewKind::IdxMapped
        )
}

fn is_dat(v: &ArgView) -> bool {
    !v.data.is_null()
        && matches!(
            v.kind,
            ViewKind::Direct | ViewKind::Indirect | ViewKind::Vector
        )
}

/// Relate the views of one loop to each other: sets `map_slot`, `access` and
/// `flags` of every view (`views[i]` was built from `args[i]`; the other
/// fields are read, not changed). Backends copy views per block and may
/// redirect a global's `data` to a reduction slot of the same size: the
/// fields set here stay valid for such copies.
pub fn link_views(views: &mut [ArgView], args: &[ArgSpec]) {
    let n = views.len().min(args.len());
    for i in 0..n {
        let v = views[i];
        let a = &args[i];
        let map_slot = if has_map(&v) {
            (0..=i)
                .find(|&j| {
                    has_map(&views[j]) && views[j].map == v.map && views[j].map_dim == v.map_dim
                })
                .map_or(i as i32, |j| j as i32)
        } else {
            -1
        };
        let mut flags = 0;
        if v.kind == ViewKind::Global
            && matches!(a.kind, ArgKind::Gbl)
            && a.opt
            && !v.data.is_null()
            && v.elem_bytes > 0
        {
            let (lo, hi) = (v.data as usize, v.data as usize + v.elem_bytes as usize);
            let overlaps = (0..n).filter(|&j| j != i).any(|j| {
                let w = &views[j];
                if w.kind != ViewKind::Global || w.data.is_null() {
                    return false;
                }
                let (wlo, whi) = (
                    w.data as usize,
                    w.data as usize + w.elem_bytes.max(1) as usize,
                );
                wlo < hi && lo < whi
            });
            if !overlaps {
                flags |= VIEW_LOCAL;
            }
        }
        if is_dat(&v) {
            let indirect = |w: &ArgView| matches!(w.kind, ViewKind::Indirect | ViewKind::Vector);
            let shared_ok = (0..n)
                .filter(|&j| j != i && is_dat(&views[j]) && views[j].data == v.data)
                .all(|j| {
                    let b = args[j].access;
                    b == a.access
                        && (a.access == Access::Read
                            || (a.access == Access::Inc && indirect(&v) && indirect(&views[j])))
                });
            if shared_ok {
                flags |= VIEW_EXCLUSIVE;
            }
        }
        views[i].map_slot = map_slot;
        views[i].access = a.access as i32;
        views[i].flags = flags;
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

    /// How many ranges this invoker takes in one [`Invoker::run_ranges`]
    /// call to advantage (at most [`MAX_RANGES`]; 1: none). A property of
    /// the loop, never of the moment: which blocks run together must not
    /// depend on the thread count (see [`Invoker::run_ranges`]).
    fn ranges_at_once(&self) -> usize {
        1
    }

    /// Run `ranges.len()` (at most [`MAX_RANGES`]) element ranges, range
    /// `k` with the views `views[k * n..(k + 1) * n]`, `n = views.len() /
    /// ranges.len()`, each range's elements in order. The ranges are
    /// independent (they write disjoint elements and each has its own
    /// reduction slots), so an invoker may interleave them: op_seq.h's
    /// trampoline runs the in-order sums of several blocks side by side,
    /// each sum still in its own element order. The default runs them one
    /// after the other.
    ///
    /// A backend must group the same blocks for any thread count: an
    /// invoker may compile a range run in a group differently from one run
    /// alone (e.g. where the compiler contracts a multiply and an add).
    ///
    /// # Safety
    /// As for [`Invoker::run`], for every range with its views.
    unsafe fn run_ranges(&self, views: &[ArgView], ranges: &[(usize, usize)]) {
        // SAFETY: the caller's contract.
        unsafe { run_each(self, views, ranges) }
    }
}

/// [`Invoker::run_ranges`] one range after the other through
/// [`Invoker::run`] (its default, for invokers that override it to fall
/// back on).
///
/// # Safety
/// As for [`Invoker::run_ranges`].
pub unsafe fn run_each<I: Invoker + ?Sized>(inv: &I, views: &[ArgView], ranges: &[(usize, usize)]) {
    let n = views.len() / ranges.len().max(1);
    for (k, &(s, e)) in ranges.iter().enumerate() {
        // SAFETY: the caller's contract, for range k.
        unsafe { inv.run(&views[k * n..(k + 1) * n], s, e) }
    }
}

/// Most ranges one [`Invoker::run_ranges`] call takes (C: `OP2_MAX_RANGES`).
pub const MAX_RANGES: usize = 4;

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
                // SAFETY: the caller's contract: live views for element n.
                ptrs[i] = unsafe {
                    match v.kind {
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
                    }
                };
            }
            (self.0)(n, &ptrs);
        }
        let _ = idx_slot;
    }
}

/// Per-element kernel parameters for a kernel of `N` pointer parameters
/// (C and Fortran kernels, called through an arity runner): one pointer per
/// argument, vector arguments as arrays of pointers (kept in `vecs`, a
/// buffer reused range after range), index arguments as pointers to `int`s
/// holding the element index or map entry plus `base` (1 for Fortran).
pub struct ElemPointers<'b, const N: usize> {
    p: [*mut u8; N],
    /// Where vector argument `i`'s pointers start in `vecs` (unused otherwise).
    vec_at: [usize; N],
    /// Pointer arrays of all vector arguments, back to back.
    vecs: &'b mut Vec<*mut u8>,
    /// The `int` each index argument points to.
    idx: [i32; N],
    base: i32,
}

impl<'b, const N: usize> ElemPointers<'b, N> {
    pub fn new(views: &[ArgView], base: i32, vecs: &'b mut Vec<*mut u8>) -> Self {
        let mut vec_at = [0; N];
        vecs.clear();
        for (i, v) in views.iter().enumerate().take(N) {
            if v.kind == ViewKind::Vector {
                vec_at[i] = vecs.len();
                vecs.resize(vecs.len() + (-v.idx) as usize, std::ptr::null_mut());
            }
        }
        ElemPointers {
            p: [std::ptr::null_mut(); N],
            vec_at,
            vecs,
            idx: [0; N],
            base,
        }
    }

    /// The kernel's parameters for element `n`.
    ///
    /// # Safety
    /// `views` has N entries describing live memory for element `n`.
    #[inline(always)]
    pub unsafe fn pointers(&mut self, views: &[ArgView], n: usize) -> [*mut u8; N] {
        for i in 0..N {
            // SAFETY: the caller's contract (N views, live memory, map rows).
            unsafe {
                let v = views.get_unchecked(i);
                self.p[i] = match v.kind {
                    ViewKind::Vector => {
                        let at = self.vec_at[i];
                        let vec = &mut self.vecs[at..at + (-v.idx) as usize];
                        for (k, p) in vec.iter_mut().enumerate() {
                            *p = v
                                .data
                                .add(v.map_entry(n, k) as usize * v.elem_bytes as usize);
                        }
                        vec.as_mut_ptr() as *mut u8
                    }
                    ViewKind::IdxDirect => {
                        self.idx[i] = n as i32 + self.base;
                        &mut self.idx[i] as *mut i32 as *mut u8
                    }
                    ViewKind::IdxMapped if self.base != 0 => {
                        self.idx[i] = v.map_entry(n, v.idx as usize) + self.base;
                        &mut self.idx[i] as *mut i32 as *mut u8
                    }
                    _ => v.simple_ptr(n),
                };
            }
        }
        self.p
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
    /// as plan construction, uses the same threads). `work` is about how many
    /// elements `f` processes (`usize::MAX`: unknown, large): an executor may
    /// run small work on the calling thread and start no pool for it.
    fn install(&self, work: usize, f: &mut (dyn FnMut() + Send)) {
        let _ = work;
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
                ..ArgView::NULL
            },
            ArgView {
                data: base,
                map: map.as_ptr(),
                map_dim: 2,
                idx: 1,
                elem_bytes: 8,
                kind: ViewKind::Indirect,
                ..ArgView::NULL
            },
            ArgView {
                data: base,
                map: map.as_ptr(),
                map_dim: 2,
                idx: -2,
                elem_bytes: 8,
                kind: ViewKind::Vector,
                ..ArgView::NULL
            },
            ArgView {
                data: base,
                map: std::ptr::null(),
                map_dim: 0,
                idx: -1,
                elem_bytes: 8,
                kind: ViewKind::Global,
                ..ArgView::NULL
            },
            ArgView {
                data: std::ptr::null_mut(),
                map: std::ptr::null(),
                map_dim: 0,
                idx: -1,
                elem_bytes: 4,
                kind: ViewKind::IdxDirect,
                ..ArgView::NULL
            },
            ArgView {
                data: std::ptr::null_mut(),
                map: map.as_ptr(),
                map_dim: 2,
                idx: 0,
                elem_bytes: 4,
                kind: ViewKind::IdxMapped,
                ..ArgView::NULL
            },
            ArgView::NULL,
        ];
        let seen = std::sync::Mutex::new(Vec::new());
        // SAFETY: the views below point into `data` and `map`.
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
        // SAFETY: elements 1 and 2 lie inside every view.
        unsafe { inv.run(&views, 1, 3) };
        let s = seen.into_inner().unwrap();
        assert_eq!(s[0], (1, 1.0, 1.0, 4.0, 1.0, 0.0, 1, 4, true));
        assert_eq!(s[1], (2, 2.0, 9.0, 5.0, 9.0, 0.0, 2, 5, true));
    }

    fn spec(kind: ArgKind, access: Access) -> ArgSpec {
        ArgSpec {
            kind,
            dim: 1,
            type_name: "double".into(),
            access,
            opt: true,
        }
    }

    fn dat(d: usize, idx: i32) -> ArgKind {
        ArgKind::Dat {
            dat: crate::DatId(d),
            map: None,
            idx,
        }
    }

    fn view(data: *mut u8, map: *const i32, idx: i32, kind: ViewKind) -> ArgView {
        ArgView {
            data,
            map,
            map_dim: 2,
            idx,
            elem_bytes: 8,
            kind,
            ..ArgView::NULL
        }
    }

    /// res_calc's arguments: x through map A, q, adt, res through map B.
    #[test]
    fn link_views_shares_rows_per_map() {
        let mut x = [0.0f64; 4];
        let mut q = [0.0f64; 4];
        let mut adt = [0.0f64; 4];
        let mut res = [0.0f64; 4];
        let a = [0i32, 1, 1, 2];
        let b = [0i32, 1, 1, 0];
        let (px, pq, pa, pr) = (
            x.as_mut_ptr() as *mut u8,
            q.as_mut_ptr() as *mut u8,
            adt.as_mut_ptr() as *mut u8,
            res.as_mut_ptr() as *mut u8,
        );
        use ViewKind::*;
        let mut views = vec![
            view(px, a.as_ptr(), 0, Indirect),
            view(px, a.as_ptr(), 1, Indirect),
            view(pq, b.as_ptr(), 0, Indirect),
            view(pq, b.as_ptr(), 1, Indirect),
            view(pa, b.as_ptr(), 0, Indirect),
            view(pa, b.as_ptr(), 1, Indirect),
            view(pr, b.as_ptr(), 0, Indirect),
            view(pr, b.as_ptr(), 1, Indirect),
            view(std::ptr::null_mut(), b.as_ptr(), 1, IdxMapped),
            ArgView::NULL,
        ];
        let acc = [
            Access::Read,
            Access::Read,
            Access::Read,
            Access::Read,
            Access::Read,
            Access::Read,
            Access::Inc,
            Access::Inc,
            Access::Read,
            Access::Read,
        ];
        let mut specs: Vec<ArgSpec> = (0..8)
            .map(|i| spec(dat(i / 2, i as i32 % 2), acc[i]))
            .collect();
        specs.push(spec(ArgKind::Idx { map: None, idx: 1 }, Access::Read));
        specs.push(ArgSpec {
            opt: false,
            ..spec(dat(9, 0), Access::Read)
        });
        link_views(&mut views, &specs);
        let slots: Vec<i32> = views.iter().map(|v| v.map_slot).collect();
        assert_eq!(slots, [0, 0, 2, 2, 2, 2, 2, 2, 2, -1]);
        let accs: Vec<i32> = views.iter().map(|v| v.access).collect();
        assert_eq!(accs, [0, 0, 0, 0, 0, 0, 3, 3, 0, 0]);
        // all READ or all INC through a map: every dat argument is exclusive
        let flags: Vec<i32> = views.iter().map(|v| v.flags).collect();
        assert_eq!(flags, [2, 2, 2, 2, 2, 2, 2, 2, 0, 0]);
    }

    /// A dat one argument writes and another reads or writes is not exclusive;
    /// nor a dat incremented both directly and through a map.
    #[test]
    fn link_views_exclusive_dats() {
        let mut q = [0.0f64; 4];
        let mut r = [0.0f64; 4];
        let mut s = [0.0f64; 4];
        let m = [0i32, 1, 1, 0];
        let (pq, pr, ps) = (
            q.as_mut_ptr() as *mut u8,
            r.as_mut_ptr() as *mut u8,
            s.as_mut_ptr() as *mut u8,
        );
        use ViewKind::*;
        let mut views = vec![
            view(pq, std::ptr::null(), -1, Direct),
            view(pq, std::ptr::null(), -1, Direct),
            view(pr, std::ptr::null(), -1, Direct),
            view(pr, m.as_ptr(), 0, Indirect),
            view(ps, std::ptr::null(), -1, Direct),
            view(ps, m.as_ptr(), -2, Vector),
        ];
        let specs = vec![
            spec(dat(0, -1), Access::Read),
            spec(dat(0, -1), Access::Write),
            spec(dat(1, -1), Access::Inc),
            spec(dat(1, 0), Access::Inc),
            spec(dat(2, -1), Access::Rw),
            spec(dat(2, -2), Access::Read),
        ];
        link_views(&mut views, &specs);
        assert!(views.iter().all(|v| v.flags == 0), "{views:?}");
        assert_eq!(views[5].map_slot, 3);
        assert_eq!(views[0].map_slot, -1);
        // alone on its dat, any access is exclusive
        let mut one = vec![view(pq, std::ptr::null(), -1, Direct)];
        link_views(&mut one, &specs[1..2]);
        assert_eq!(one[0].flags, VIEW_EXCLUSIVE);
    }

    /// Globals are local unless another global argument overlaps them; an
    /// op_arg_info is never local itself.
    #[test]
    fn link_views_local_globals() {
        let mut g = [0.0f64; 4];
        let p = g.as_mut_ptr();
        let gview = |ptr: *mut f64, bytes: i32| ArgView {
            data: ptr as *mut u8,
            elem_bytes: bytes,
            kind: ViewKind::Global,
            ..ArgView::NULL
        };
        let mut views = vec![
            gview(p, 8),
            gview(p.wrapping_add(1), 16),
            gview(p.wrapping_add(2), 8),
            gview(p.wrapping_add(3), 8),
        ];
        let specs = vec![
            spec(ArgKind::Gbl, Access::Inc),
            spec(ArgKind::Gbl, Access::Min),
            spec(ArgKind::Gbl, Access::Read),
            spec(ArgKind::Info { reference: 1 }, Access::Read),
        ];
        link_views(&mut views, &specs);
        let flags: Vec<i32> = views.iter().map(|v| v.flags).collect();
        // g[0] alone; g[1..3] overlaps g[2]; g[3] is an info
        assert_eq!(flags, [VIEW_LOCAL, 0, 0, 0]);
        let accs: Vec<i32> = views.iter().map(|v| v.access).collect();
        assert_eq!(accs, [3, 4, 0, 0]);
    }
}
