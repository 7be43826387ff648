//! Global arguments of loops OP2's translator generates for run-time
//! compiled CUDA (`c_cuda`): the storage rule of `prepareDeviceGbls` and
//! the fixed-order combination of per-thread partials that
//! `processDeviceGbls` performs on the host (the C entry points that apply
//! them to `op_arg`s are the C ABI's). See the C ABI's `cuda_gbl` module for
//! the layout in full.

use crate::arg::Access;
use crate::device::{DevPtr, DeviceCopies, DeviceMemory};
use crate::error::{Op2Error, Result};

/// OP2's `op_arg` kinds (`OP_ARG_GBL`, `OP_ARG_DAT`, `OP_ARG_INFO`), as C has them.
pub const OP_ARG_GBL: i32 = 0;
pub const OP_ARG_DAT: i32 = 1;
pub const OP_ARG_INFO: i32 = 3;
pub const OP_READ: i32 = Access::Read as i32;
pub const OP_WRITE: i32 = Access::Write as i32;
pub const OP_RW: i32 = Access::Rw as i32;
pub const OP_INC: i32 = Access::Inc as i32;
pub const OP_MIN: i32 = Access::Min as i32;
pub const OP_MAX: i32 = Access::Max as i32;
pub const OP_WORK: i32 = Access::Work as i32;

/// Every argument's region starts on this boundary (bytes).
pub const GBL_ALIGN: usize = 128;

/// The part of an `op_arg` that decides its storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GblArg {
    pub argtype: i32,
    pub acc: i32,
    pub dim: usize,
    /// Bytes of all components.
    pub size: usize,
    /// Switched off (`opt == 0`, or for INFO the referred argument's).
    pub disabled: bool,
}

/// What an argument gets on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    None,
    /// `size * max_threads` bytes.
    PerThread,
    /// `size` bytes.
    Single,
}

pub fn align(x: usize) -> usize {
    x.div_ceil(GBL_ALIGN) * GBL_ALIGN
}

/// OP2's storage rule (see the module comment).
pub fn slot(a: &GblArg, inc_atomic: bool) -> Slot {
    if a.disabled {
        return Slot::None;
    }
    match a.argtype {
        OP_ARG_INFO => Slot::PerThread,
        OP_ARG_GBL => match a.acc {
            OP_INC if inc_atomic => Slot::Single,
            OP_INC | OP_MIN | OP_MAX | OP_WORK => Slot::PerThread,
            OP_READ if a.dim == 1 => Slot::None,
            _ => Slot::Single,
        },
        _ => Slot::None,
    }
}

/// Byte offset of each argument's region (None: no storage) and the total.
pub fn layout(
    args: &[GblArg],
    max_threads: usize,
    inc_atomic: bool,
) -> (Vec<Option<usize>>, usize) {
    let mut total = 0;
    let offs = args
        .iter()
        .map(|a| {
            let bytes = match slot(a, inc_atomic) {
                Slot::None => return None,
                Slot::PerThread => a.size * max_threads,
                Slot::Single => a.size,
            };
            let at = total;
            total += align(bytes);
            Some(at)
        })
        .collect();
    (offs, total)
}

/// Largest grid whose per-thread reduction storage stays within `mib` MiB
/// (`i32::MAX`: no limit).
pub fn block_limit(args: &[GblArg], block_size: usize, mib: i32, inc_atomic: bool) -> i32 {
    let per_thread: usize = args
        .iter()
        .filter(|a| slot(a, inc_atomic) == Slot::PerThread && a.acc != OP_WORK)
        .map(|a| a.size)
        .sum();
    if mib < 0 || per_thread == 0 {
        return i32::MAX;
    }
    let budget = (mib as usize).saturating_mul(1 << 20);
    let blocks = budget / block_size.max(1).saturating_mul(per_thread);
    blocks.clamp(1, i32::MAX as usize) as i32
}

/// Element types of reduced globals.
pub trait Elem: Copy + PartialOrd {
    const BYTES: usize;
    /// `self + o` (integers wrap, as on the device).
    fn plus(self, o: Self) -> Self;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
}

macro_rules! elem {
    ($t:ty, $plus:expr) => {
        impl Elem for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn plus(self, o: Self) -> Self {
                $plus(self, o)
            }
            fn read(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::BYTES]);
                <$t>::from_ne_bytes(a)
            }
            fn write(self, b: &mut [u8]) {
                b[..Self::BYTES].copy_from_slice(&self.to_ne_bytes());
            }
        }
    };
}
elem!(f64, |a: f64, b: f64| a + b);
elem!(f32, |a: f32, b: f32| a + b);
elem!(i32, i32::wrapping_add);

/// Sum in a fixed pairwise order.
pub fn pairwise_sum<T: Elem>(v: &[T]) -> Option<T> {
    match v.len() {
        0 => None,
        n if n <= 32 => Some(v[1..].iter().fold(v[0], |s, &x| s.plus(x))),
        n => {
            let (a, b) = v.split_at(n / 2);
            Some(pairwise_sum(a)?.plus(pairwise_sum(b)?))
        }
    }
}

/// The lowest thread holding the minimum (`max`: maximum) of `v`.
pub fn arg_extreme<T: Elem>(v: &[T], max: bool) -> Option<(usize, T)> {
    let mut best: Option<(usize, T)> = None;
    for (t, &x) in v.iter().enumerate() {
        let better = match best {
            None => true,
            Some((_, b)) => (max && x > b) || (!max && x < b),
        };
        if better {
            best = Some((t, x));
        }
    }
    best
}

/// Fold component-major partials (`dim` rows of `max_threads`, the first
/// `nelems` of each used) into `host` with `acc`. Returns, per component,
/// the thread whose partial replaced the host value (MIN/MAX only).
pub fn combine<T: Elem>(
    acc: i32,
    host: &mut [T],
    partials: &[T],
    max_threads: usize,
    nelems: usize,
) -> Vec<Option<usize>> {
    let nelems = nelems.min(max_threads);
    host.iter_mut()
        .enumerate()
        .map(|(d, h)| {
            let lo = (d * max_threads).min(partials.len());
            let row = &partials[lo..(lo + nelems).min(partials.len())];
            if acc == OP_INC {
                if let Some(s) = pairwise_sum(row) {
                    *h = h.plus(s);
                }
                return None;
            }
            let (t, x) = arg_extreme(row, acc == OP_MAX)?;
            let improves = if acc == OP_MAX { x > *h } else { x < *h };
            if !improves {
                return None;
            }
            *h = x;
            Some(t)
        })
        .collect()
}

/// How a reduced global's type string reads (OP2's C and Fortran spellings).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RedType {
    F64,
    F32,
    I32,
}

pub fn red_type(t: &str) -> Option<RedType> {
    let base = t.split(':').next().unwrap_or("").trim();
    match base {
        "double" | "real(8)" | "real*8" | "r8" => Some(RedType::F64),
        "float" | "real(4)" | "real*4" | "real" | "r4" => Some(RedType::F32),
        "int" | "integer(4)" | "integer*4" | "integer" | "i4" => Some(RedType::I32),
        _ => None,
    }
}

/// One argument of a generated loop, as the device side needs it: its
/// storage rule, the program's values (`host`, `arg.size` bytes), its
/// device storage (`dev`, from [`prepare`]) and its type string.
pub struct GblData {
    pub arg: GblArg,
    pub host: *mut u8,
    pub dev: DevPtr,
    pub type_name: String,
}

fn dev_err(e: crate::device::DeviceError) -> Op2Error {
    Op2Error::new("", "", format!("device: {e}"))
}

fn host_bytes<'a>(g: &GblData, n: usize) -> Result<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if g.host.is_null() {
        return Err(Op2Error::new("", "", "a global argument's data is NULL"));
    }
    // SAFETY: the host values of an argument hold its `size` bytes
    // ([`prepare`]'s and [`process`]'s contract).
    Ok(unsafe { std::slice::from_raw_parts_mut(g.host, n) })
}

/// Give the arguments their device storage (in one block of `dev`) and
/// upload the values the kernel reads; returns each argument's storage.
///
/// # Safety
/// Every `host` holds its argument's `size` bytes.
pub unsafe fn prepare(
    dev: &mut DeviceCopies,
    args: &[GblData],
    max_threads: usize,
    inc_atomic: bool,
) -> Result<Vec<Option<DevPtr>>> {
    let g: Vec<GblArg> = args.iter().map(|a| a.arg).collect();
    let (offs, total) = layout(&g, max_threads, inc_atomic);
    if total == 0 {
        return Ok(vec![None; args.len()]);
    }
    let base = dev.gbl_block(total).map_err(dev_err)?;
    let mut out = Vec::with_capacity(args.len());
    for (a, off) in args.iter().zip(offs) {
        let p = off.map(|o| base + o as u64);
        if let Some(p) =
            p.filter(|_| slot(&a.arg, inc_atomic) == Slot::Single && a.arg.acc != OP_WRITE)
        {
            dev.mem
                .upload(p, host_bytes(a, a.arg.size)?)
                .map_err(dev_err)?;
        }
        out.push(p);
    }
    Ok(out)
}

/// Download argument `a`'s partials, fold them into its host value and
/// return the winning thread per component.
fn reduce_one<T: Elem>(
    mem: &dyn DeviceMemory,
    a: &GblData,
    max_threads: usize,
    nelems: usize,
) -> Result<Vec<Option<usize>>> {
    let dim = a.arg.dim;
    let host_b = host_bytes(a, dim * T::BYTES)?;
    let count = if dim == 0 || nelems == 0 {
        0
    } else {
        (dim - 1) * max_threads + nelems
    };
    let mut raw = vec![0u8; count * T::BYTES];
    if count > 0 {
        mem.download(a.dev, &mut raw).map_err(dev_err)?;
    }
    let partials: Vec<T> = raw.chunks_exact(T::BYTES).map(T::read).collect();
    let mut host: Vec<T> = host_b.chunks_exact(T::BYTES).map(T::read).collect();
    let won = combine(a.arg.acc, &mut host, &partials, max_threads, nelems);
    for (x, b) in host.iter().zip(host_b.chunks_exact_mut(T::BYTES)) {
        x.write(b);
    }
    Ok(won)
}

/// Copy each INFO argument referring to argument `i` from the winning
/// threads' slots.
fn fetch_payloads(
    mem: &dyn DeviceMemory,
    args: &[GblData],
    i: usize,
    won: &[Option<usize>],
    max_threads: usize,
) -> Result<()> {
    for p in args {
        let g = &p.arg;
        if g.argtype != OP_ARG_INFO || g.acc as usize != i || g.disabled || g.dim == 0 {
            continue;
        }
        let esize = g.size / g.dim;
        let host = host_bytes(p, g.size)?;
        for (d, t) in won.iter().enumerate().take(g.dim) {
            let Some(t) = t else { continue };
            let src = p.dev + ((d * max_threads + t) * esize) as u64;
            mem.download(src, &mut host[d * esize..(d + 1) * esize])
                .map_err(dev_err)?;
        }
    }
    Ok(())
}

/// After the kernel: combine the per-thread partials of reduced globals
/// into their host values (reductions first, then INFO payloads), then copy
/// RW/WRITE (and atomic INC) globals back, as OP2 orders them.
///
/// # Safety
/// Every `host` holds its argument's `size` bytes; `dev` is the storage
/// [`prepare`] gave it.
pub unsafe fn process(
    mem: &dyn DeviceMemory,
    args: &[GblData],
    inc_atomic: bool,
    max_threads: usize,
    nelems: usize,
) -> Result<()> {
    for (i, a) in args.iter().enumerate() {
        let g = &a.arg;
        if g.argtype != OP_ARG_GBL || slot(g, inc_atomic) != Slot::PerThread || g.acc == OP_WORK {
            continue;
        }
        let won = match red_type(&a.type_name) {
            Some(RedType::F64) => reduce_one::<f64>(mem, a, max_threads, nelems)?,
            Some(RedType::F32) => reduce_one::<f32>(mem, a, max_threads, nelems)?,
            Some(RedType::I32) => reduce_one::<i32>(mem, a, max_threads, nelems)?,
            None => {
                return Err(Op2Error::new(
                    "",
                    format!("argument {i}"),
                    format!("unknown type in reduction: {}", a.type_name),
                ))
            }
        };
        if g.acc != OP_INC {
            fetch_payloads(mem, args, i, &won, max_threads)?;
        }
    }
    for a in args {
        let g = &a.arg;
        let back = g.argtype == OP_ARG_GBL
            && slot(g, inc_atomic) == Slot::Single
            && matches!(g.acc, OP_RW | OP_WRITE | OP_INC);
        if back {
            mem.download(a.dev, host_bytes(a, g.size)?)
                .map_err(dev_err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbl(acc: i32, dim: usize, esize: usize) -> GblArg {
        GblArg {
            argtype: OP_ARG_GBL,
            acc,
            dim,
            size: dim * esize,
            disabled: false,
        }
    }

    #[test]
    fn storage_rule() {
        assert_eq!(slot(&gbl(OP_INC, 1, 8), false), Slot::PerThread);
        assert_eq!(slot(&gbl(OP_INC, 1, 8), true), Slot::Single);
        assert_eq!(slot(&gbl(OP_MIN, 2, 4), true), Slot::PerThread);
        assert_eq!(slot(&gbl(OP_WORK, 2, 4), false), Slot::PerThread);
        assert_eq!(slot(&gbl(OP_READ, 1, 8), false), Slot::None);
        assert_eq!(slot(&gbl(OP_READ, 3, 8), false), Slot::Single);
        assert_eq!(slot(&gbl(OP_WRITE, 1, 8), false), Slot::Single);
        assert_eq!(slot(&gbl(OP_RW, 1, 8), false), Slot::Single);
        let mut info = gbl(0, 1, 4);
        info.argtype = OP_ARG_INFO;
        assert_eq!(slot(&info, true), Slot::PerThread);
        info.disabled = true;
        assert_eq!(slot(&info, false), Slot::None);
        let mut dat = gbl(OP_READ, 4, 8);
        dat.argtype = OP_ARG_DAT;
        assert_eq!(slot(&dat, false), Slot::None);
    }

    #[test]
    fn regions_are_aligned_and_disjoint() {
        let args = [
            gbl(OP_INC, 3, 8),
            gbl(OP_READ, 1, 8),
            gbl(OP_RW, 1, 4),
            gbl(OP_MAX, 1, 8),
        ];
        let (offs, total) = layout(&args, 100, false);
        assert_eq!(offs, vec![Some(0), None, Some(2432), Some(2560)]);
        assert_eq!(total, 2560 + 896);
        assert!(offs.iter().flatten().all(|o| o % GBL_ALIGN == 0));
    }

    #[test]
    fn limit_from_mib() {
        let args = [gbl(OP_INC, 1, 8), gbl(OP_MAX, 1, 8), gbl(OP_WORK, 4, 8)];
        assert_eq!(block_limit(&args, 128, 5, false), (5 << 20) / (128 * 16));
        assert_eq!(block_limit(&args, 128, 5, true), (5 << 20) / (128 * 8));
        assert_eq!(block_limit(&args, 128, -1, false), i32::MAX);
        assert_eq!(block_limit(&args[2..], 128, 5, false), i32::MAX);
        assert_eq!(block_limit(&args, 1 << 20, 0, false), 1);
    }

    #[test]
    fn combination_is_ordered_and_complete() {
        // 2 components, 4 thread slots, 3 used: the 4th must be ignored.
        let p = [1.0, 2.0, 3.0, 1e9, 10.0, 20.0, 30.0, 1e9];
        let mut h = [0.5, 0.25];
        assert_eq!(combine(OP_INC, &mut h, &p, 4, 3), vec![None, None]);
        assert_eq!(h, [6.5, 60.25]);
        let mut h = [2.5, 5.0];
        assert_eq!(
            combine(
                OP_MIN,
                &mut h,
                &[3.0, 1.0, 1.0, -9.0, 7.0, 6.0, 8.0, -9.0],
                4,
                3
            ),
            vec![Some(1), None]
        );
        assert_eq!(h, [1.0, 5.0]);
        let mut h = [0i32];
        assert_eq!(combine(OP_MAX, &mut h, &[4, 9, 9], 3, 3), vec![Some(1)]);
        assert_eq!(h, [9]);
        let mut h = [i32::MAX];
        combine(OP_INC, &mut h, &[1, 0], 2, 2);
        assert_eq!(h, [i32::MIN]);
        let v: Vec<f64> = (0..1000).map(|i| i as f64 * 0.1).collect();
        assert_eq!(pairwise_sum(&v), pairwise_sum(&v));
        assert!((pairwise_sum(&v).unwrap() - 49950.0).abs() < 1e-9);
    }

    #[test]
    fn type_spellings() {
        assert_eq!(red_type("double"), Some(RedType::F64));
        assert_eq!(red_type("real(8)"), Some(RedType::F64));
        assert_eq!(red_type("float"), Some(RedType::F32));
        assert_eq!(red_type("int"), Some(RedType::I32));
        assert_eq!(red_type("long"), None);
    }
}
