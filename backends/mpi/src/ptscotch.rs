//! PT-Scotch (`SCOTCH_dgraphPart`) for OP2's k-way partitioner names on
//! several ranks: the graph stays distributed, each rank passing the rows
//! of its block.
//!
//! The library is loaded at run time (`dlopen`), not linked: `libop2_mpi`
//! builds and links with no PT-Scotch on the machine and an application's
//! link line does not change; where `libptscotch.so` is missing (Debian:
//! `libptscotch-7.0`), or was built for another MPI library than the one the
//! application runs on, [`load`] returns `None` and the k-way names fall
//! back to METIS on rank 0 (`GatheredKway`). `OP2_PTSCOTCH_LIB` names the
//! library file; `OP2_PTSCOTCH_LIB=none` turns PT-Scotch off.
//!
//! The partition is the same on every run with the same ranks and mesh
//! (Scotch 7's deterministic context; `OP2_PTSCOTCH_DETERMINISTIC=0` lets
//! its threads race, as OP2 does).

use mpi::ffi;
use op2_core::dist::{Collectives, DistGraphPartitioner};
use op2_core::graph::Csr;
use std::ffi::{c_int, c_void, CStr, CString};

type Num = c_int;
type Build = unsafe extern "C" fn(
    *mut c_void,
    Num,
    Num,
    Num,
    *mut Num,
    *mut Num,
    *mut Num,
    *mut Num,
    Num,
    Num,
    *mut Num,
    *mut Num,
    *mut Num,
) -> c_int;

/// The PT-Scotch entry points used here.
struct Api {
    dgraph_alloc: unsafe extern "C" fn() -> *mut c_void,
    strat_alloc: unsafe extern "C" fn() -> *mut c_void,
    mem_free: unsafe extern "C" fn(*mut c_void),
    dgraph_init: unsafe extern "C" fn(*mut c_void, ffi::MPI_Comm) -> c_int,
    dgraph_build: Build,
    dgraph_part: unsafe extern "C" fn(*mut c_void, Num, *mut c_void, *mut Num) -> c_int,
    dgraph_exit: unsafe extern "C" fn(*mut c_void),
    strat_init: unsafe extern "C" fn(*mut c_void) -> c_int,
    strat_exit: unsafe extern "C" fn(*mut c_void),
    random_reset: unsafe extern "C" fn(),
    /// Scotch 7's execution contexts, where the library has them.
    context: Option<ContextApi>,
}

/// Scotch 7 runs its threaded phases nondeterministically unless a context
/// with `SCOTCH_OPTIONNUMDETERMINISTIC` is bound to the graph: Debian's
/// build gives a different edge cut from run to run without it, and under
/// MPI a different partition changes the order of cross-rank sums.
struct ContextApi {
    alloc: unsafe extern "C" fn() -> *mut c_void,
    init: unsafe extern "C" fn(*mut c_void) -> c_int,
    exit: unsafe extern "C" fn(*mut c_void),
    option_set_num: unsafe extern "C" fn(*mut c_void, c_int, Num) -> c_int,
    random_reset: unsafe extern "C" fn(*mut c_void),
    bind_dgraph: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> c_int,
}

/// `SCOTCH_OPTIONNUMDETERMINISTIC` and `SCOTCH_OPTIONNUMRANDOMFIXEDSEED`
/// (scotch.h of Scotch 7).
const OPTION_DETERMINISTIC: c_int = 0;
const OPTION_RANDOM_FIXED_SEED: c_int = 1;

/// PT-Scotch over the library's communicator.
pub struct PtScotch {
    api: Api,
    comm: ffi::MPI_Comm,
}

// SAFETY: the function pointers are plain code addresses and the
// communicator a handle; PT-Scotch is only called from the API thread
// (MPI_THREAD_FUNNELED), inside op_partition.
unsafe impl Send for PtScotch {}
// SAFETY: as above.
unsafe impl Sync for PtScotch {}

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

/// Load PT-Scotch for `comm` (the library's communicator). `Err` says why
/// not (for OP_diags), `Ok(None)` when turned off.
pub fn load(comm: ffi::MPI_Comm) -> Result<Option<PtScotch>, String> {
    let names: Vec<String> = match std::env::var("OP2_PTSCOTCH_LIB") {
        Ok(v) if v.eq_ignore_ascii_case("none") || v == "0" => return Ok(None),
        Ok(v) if !v.is_empty() => vec![v],
        _ => vec!["libptscotch.so".into(), "libptscotch-7.0.so".into()],
    };
    let mut why = Vec::new();
    for name in names {
        let c = CString::new(name.clone()).map_err(|e| e.to_string())?;
        // SAFETY: dlopen with a valid C string; the handle is never closed
        // (the functions stay valid for the life of the process).
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            why.push(format!("{name}: {}", dlerror()));
            continue;
        }
        return same_mpi(h, &name).and_then(|()| resolve(h, comm).map(Some));
    }
    Err(why.join("; "))
}

/// PT-Scotch must call the MPI library the application runs on: its
/// `MPI_Comm_size` must be the process's.
fn same_mpi(h: *mut c_void, name: &str) -> Result<(), String> {
    let sym = c"MPI_Comm_size";
    // SAFETY: dlsym on a live handle / the global scope with a C string.
    let (theirs, ours) = unsafe {
        (
            libc::dlsym(h, sym.as_ptr()),
            libc::dlsym(libc::RTLD_DEFAULT, sym.as_ptr()),
        )
    };
    if theirs.is_null() || theirs != ours {
        return Err(format!(
            "{name} was built for another MPI library than this program's"
        ));
    }
    Ok(())
}

/// A symbol's address as the function pointer type `F`.
///
/// # Safety
/// `p` must be the address of a function whose C signature `F` spells.
unsafe fn as_fn<F: Copy>(p: *mut c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: same size (checked); the caller vouches for the signature.
    unsafe { std::mem::transmute_copy(&p) }
}

fn resolve(h: *mut c_void, comm: ffi::MPI_Comm) -> Result<PtScotch, String> {
    let get = |n: &CStr| -> Result<*mut c_void, String> {
        // SAFETY: dlsym on a live handle with a C string.
        let p = unsafe { libc::dlsym(h, n.as_ptr()) };
        if p.is_null() {
            Err(format!("PT-Scotch lacks {}", n.to_string_lossy()))
        } else {
            Ok(p)
        }
    };
    // SAFETY: PT-Scotch's number size is asked before any other call.
    let num: unsafe extern "C" fn() -> c_int = unsafe { as_fn(get(c"SCOTCH_numSizeof")?) };
    // SAFETY: a function of no arguments returning int.
    let size = unsafe { num() };
    if size as usize != std::mem::size_of::<Num>() {
        return Err(format!(
            "PT-Scotch with {size}-byte SCOTCH_Num (op2-rs uses int)"
        ));
    }
    // SAFETY: each symbol is the PT-Scotch 6/7 function of that name, whose
    // C signature (ptscotch.h, SCOTCH_Num = int) the field's type spells.
    unsafe {
        Ok(PtScotch {
            api: Api {
                dgraph_alloc: as_fn(get(c"SCOTCH_dgraphAlloc")?),
                strat_alloc: as_fn(get(c"SCOTCH_stratAlloc")?),
                mem_free: as_fn(get(c"SCOTCH_memFree")?),
                dgraph_init: as_fn(get(c"SCOTCH_dgraphInit")?),
                dgraph_build: as_fn(get(c"SCOTCH_dgraphBuild")?),
                dgraph_part: as_fn(get(c"SCOTCH_dgraphPart")?),
                dgraph_exit: as_fn(get(c"SCOTCH_dgraphExit")?),
                strat_init: as_fn(get(c"SCOTCH_stratInit")?),
                strat_exit: as_fn(get(c"SCOTCH_stratExit")?),
                random_reset: as_fn(get(c"SCOTCH_randomReset")?),
                context: context_api(&get),
            },
            comm,
        })
    }
}

/// Scotch frees its working memory (hundreds of MB on large graphs) in
/// many small blocks that glibc keeps in the process's heap: resident, and
/// reused only by small allocations, so the large arrays of the phases after
/// partitioning came on top of it (2.9M cells on 2 ranks: resident size
/// 167 MiB higher after PT-Scotch returned, the partitioning's peak per rank
/// 646 MiB instead of 595). Hand the free pages back to the system.
fn give_back_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Whether to ask Scotch 7 for a deterministic partition: always unless
/// `OP2_PTSCOTCH_DETERMINISTIC=0` (OP2's behaviour: its threads may find a
/// slightly smaller edge cut, different on every run).
fn deterministic() -> bool {
    std::env::var("OP2_PTSCOTCH_DETERMINISTIC").map_or(true, |v| v.trim() != "0")
}

/// The context entry points, or `None` for a Scotch before 7.
fn context_api(get: &dyn Fn(&CStr) -> Result<*mut c_void, String>) -> Option<ContextApi> {
    // SAFETY: each symbol is the Scotch 7 function of that name, whose C
    // signature (scotch.h / ptscotch.h, SCOTCH_Num = int) the field spells.
    unsafe {
        Some(ContextApi {
            alloc: as_fn(get(c"SCOTCH_contextAlloc").ok()?),
            init: as_fn(get(c"SCOTCH_contextInit").ok()?),
            exit: as_fn(get(c"SCOTCH_contextExit").ok()?),
            option_set_num: as_fn(get(c"SCOTCH_contextOptionSetNum").ok()?),
            random_reset: as_fn(get(c"SCOTCH_contextRandomReset").ok()?),
            bind_dgraph: as_fn(get(c"SCOTCH_contextBindDgraph").ok()?),
        })
    }
}

impl PtScotch {
    /// `SCOTCH_dgraphPart` of `g`, through a context bound to it that asks
    /// for deterministic threads and a fixed random seed where Scotch has
    /// contexts (7 and later) and `OP2_PTSCOTCH_DETERMINISTIC` is not `0`;
    /// otherwise after resetting the random generator (Scotch before 7 has
    /// no threaded phases; with 7, the partition then varies from run to
    /// run, as under OP2).
    ///
    /// # Safety
    /// `g` is a built distributed graph, `s` an initialised strategy and
    /// `part` has room for the graph's local vertices.
    unsafe fn part_deterministic(
        &self,
        g: *mut c_void,
        nparts: Num,
        s: *mut c_void,
        part: *mut Num,
    ) -> c_int {
        let a = &self.api;
        let Some(c) = a.context.as_ref().filter(|_| deterministic()) else {
            // SAFETY: the caller's contract.
            unsafe {
                (a.random_reset)();
                return (a.dgraph_part)(g, nparts, s, part);
            }
        };
        // SAFETY: the context and the bound graph are allocated here and
        // freed on every path; the bound graph is exited before the context
        // and before `g` (which it shares); the rest is the caller's contract.
        unsafe {
            let ctx = (c.alloc)();
            let bound = (a.dgraph_alloc)();
            let mut rc = if ctx.is_null() || bound.is_null() {
                1
            } else {
                (c.init)(ctx)
            };
            if rc == 0 {
                rc = (c.option_set_num)(ctx, OPTION_DETERMINISTIC, 1);
                if rc == 0 {
                    rc = (c.option_set_num)(ctx, OPTION_RANDOM_FIXED_SEED, 1);
                }
                if rc == 0 {
                    (c.random_reset)(ctx);
                    rc = (c.bind_dgraph)(ctx, g, bound);
                    if rc == 0 {
                        rc = (a.dgraph_part)(bound, nparts, s, part);
                        (a.dgraph_exit)(bound);
                    }
                }
                (c.exit)(ctx);
            }
            for p in [bound, ctx] {
                if !p.is_null() {
                    (a.mem_free)(p);
                }
            }
            rc
        }
    }
}

impl DistGraphPartitioner for PtScotch {
    fn name(&self) -> &str {
        "PT-Scotch"
    }

    fn partition(
        &self,
        _c: &dyn Collectives,
        _vtxdist: &[usize],
        graph: &Csr,
        nparts: usize,
    ) -> Result<Vec<i32>, String> {
        let n = graph.nvtxs();
        let mut xadj: Vec<Num> = graph.xadj.clone();
        let mut adj: Vec<Num> = graph.adjncy.clone();
        if adj.is_empty() {
            adj.push(0); // PT-Scotch wants a valid pointer
        }
        let nedges = graph.adjncy.len() as Num;
        let mut part: Vec<Num> = vec![0; n.max(1)];
        let a = &self.api;
        // SAFETY: the graph and strategy are allocated by PT-Scotch and freed
        // below on every path; the arrays outlive the calls (the graph is
        // exited before they drop); vertlocnbr = n rows in xadj (n + 1
        // entries: vendloctab = xadj + 1), edges in adj; part has n entries.
        unsafe {
            let g = (a.dgraph_alloc)();
            let s = (a.strat_alloc)();
            if g.is_null() || s.is_null() {
                return Err("PT-Scotch could not allocate a graph".into());
            }
            let mut rc = (a.dgraph_init)(g, self.comm);
            if rc == 0 {
                let x = xadj.as_mut_ptr();
                rc = (a.dgraph_build)(
                    g,
                    0,
                    n as Num,
                    n as Num,
                    x,
                    x.add(1),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    nedges,
                    nedges,
                    adj.as_mut_ptr(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                );
                let rs = (a.strat_init)(s);
                if rc == 0 && rs == 0 {
                    rc = self.part_deterministic(g, nparts as Num, s, part.as_mut_ptr());
                }
                if rs == 0 {
                    (a.strat_exit)(s);
                }
                (a.dgraph_exit)(g);
            }
            (a.mem_free)(g);
            (a.mem_free)(s);
            if rc != 0 {
                return Err(format!("PT-Scotch returned {rc}"));
            }
        }
        part.truncate(n);
        give_back_heap();
        Ok(part)
    }
}
