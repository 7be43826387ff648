//! The arrays of an execution plan that OP2 moves to the device on the
//! plan's first use (`op_plan_get_stage_upload`), replacing the host
//! pointers of `op_plan` by device pointers. `ncolors`, `col_offsets`,
//! `nsharedCol` and the transfer figures stay on the host.
//!
//! The slices are the host arrays exactly as `op_plan` holds them, with the
//! lengths OP2 uploads (`n` = set size, plus the exec halo when an indirect
//! argument is written; `nb` = number of blocks; `ni` = staged indirections):
//! `ind_map` (Σ maps × `n` ints), `loc_map` (staged args × `n` shorts),
//! `ind_sizes` and `ind_offs` (`nb × ni`), `nthrcol`, `offset`, `nelems`,
//! `blkmap` (`nb`), `thrcol` and `col_reord` (`n`). Sub-array pointers
//! (`ind_maps[m]`, `loc_maps[m]`) are the caller's to derive from the bases.

use crate::device::memory::{DevPtr, DeviceError, DeviceMemory};

/// A plan's host arrays, borrowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanHostArrays<'a> {
    pub ind_map: &'a [i32],
    pub loc_map: &'a [i16],
    pub ind_sizes: &'a [i32],
    pub ind_offs: &'a [i32],
    pub nthrcol: &'a [i32],
    pub thrcol: &'a [i32],
    pub col_reord: &'a [i32],
    pub offset: &'a [i32],
    pub nelems: &'a [i32],
    pub blkmap: &'a [i32],
}

/// Device copies of a plan's arrays (0 for an empty array).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanDeviceArrays {
    pub ind_map: DevPtr,
    pub loc_map: DevPtr,
    pub ind_sizes: DevPtr,
    pub ind_offs: DevPtr,
    pub nthrcol: DevPtr,
    pub thrcol: DevPtr,
    pub col_reord: DevPtr,
    pub offset: DevPtr,
    pub nelems: DevPtr,
    pub blkmap: DevPtr,
}

/// Names of the arrays that move, in upload order.
pub const PLAN_ARRAYS: [&str; 10] = [
    "ind_map",
    "loc_map",
    "ind_sizes",
    "ind_offs",
    "nthrcol",
    "thrcol",
    "col_reord",
    "offset",
    "nelems",
    "blkmap",
];

fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn i16_bytes(v: &[i16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

impl<'a> PlanHostArrays<'a> {
    /// The arrays of `plan` that move.
    pub fn of(plan: &'a crate::plan::Plan) -> PlanHostArrays<'a> {
        PlanHostArrays {
            ind_map: &plan.ind_map,
            loc_map: &plan.loc_map,
            ind_sizes: &plan.ind_sizes,
            ind_offs: &plan.ind_offs,
            nthrcol: &plan.nthrcol,
            thrcol: &plan.thrcol,
            col_reord: &plan.col_reord,
            offset: &plan.offset,
            nelems: &plan.nelems,
            blkmap: &plan.blkmap,
        }
    }
}

impl PlanHostArrays<'_> {
    /// Bytes of all the arrays that move.
    pub fn byte_len(&self) -> usize {
        std::mem::size_of_val(self.loc_map)
            + [
                self.ind_map,
                self.ind_sizes,
                self.ind_offs,
                self.nthrcol,
                self.thrcol,
                self.col_reord,
                self.offset,
                self.nelems,
                self.blkmap,
            ]
            .iter()
            .map(|a| std::mem::size_of_val(*a))
            .sum::<usize>()
    }

    /// The arrays as native-endian bytes, in [`PLAN_ARRAYS`] order.
    fn bytes(&self) -> [Vec<u8>; 10] {
        [
            i32_bytes(self.ind_map),
            i16_bytes(self.loc_map),
            i32_bytes(self.ind_sizes),
            i32_bytes(self.ind_offs),
            i32_bytes(self.nthrcol),
            i32_bytes(self.thrcol),
            i32_bytes(self.col_reord),
            i32_bytes(self.offset),
            i32_bytes(self.nelems),
            i32_bytes(self.blkmap),
        ]
    }
}

impl PlanDeviceArrays {
    /// The device pointers, in [`PLAN_ARRAYS`] order.
    pub fn ptrs(&self) -> [DevPtr; 10] {
        [
            self.ind_map,
            self.loc_map,
            self.ind_sizes,
            self.ind_offs,
            self.nthrcol,
            self.thrcol,
            self.col_reord,
            self.offset,
            self.nelems,
            self.blkmap,
        ]
    }

    fn from_ptrs(p: [DevPtr; 10]) -> PlanDeviceArrays {
        let [ind_map, loc_map, ind_sizes, ind_offs, nthrcol, thrcol, col_reord, offset, nelems, blkmap] =
            p;
        PlanDeviceArrays {
            ind_map,
            loc_map,
            ind_sizes,
            ind_offs,
            nthrcol,
            thrcol,
            col_reord,
            offset,
            nelems,
            blkmap,
        }
    }
}

impl PlanDeviceArrays {
    /// Device addresses of each staged group's `ind_map` and each
    /// argument's `loc_map` (`None` where the argument has none), from the
    /// starts a plan records (`Plan::ind_maps_start`, `loc_maps_start`).
    pub fn per_arg(
        &self,
        ind_starts: &[usize],
        loc_starts: &[Option<usize>],
    ) -> (Vec<DevPtr>, Vec<Option<DevPtr>>) {
        let ind = ind_starts.iter().map(|&s| self.ind_map + (s * 4) as u64);
        let loc = loc_starts
            .iter()
            .map(|s| s.map(|s| self.loc_map + (s * 2) as u64));
        (ind.collect(), loc.collect())
    }
}

/// Which arrays move and how many bytes each, in [`PLAN_ARRAYS`] order.
pub fn plan_transfers(h: &PlanHostArrays<'_>) -> [(&'static str, usize); 10] {
    let sizes = [
        std::mem::size_of_val(h.ind_map),
        std::mem::size_of_val(h.loc_map),
        std::mem::size_of_val(h.ind_sizes),
        std::mem::size_of_val(h.ind_offs),
        std::mem::size_of_val(h.nthrcol),
        std::mem::size_of_val(h.thrcol),
        std::mem::size_of_val(h.col_reord),
        std::mem::size_of_val(h.offset),
        std::mem::size_of_val(h.nelems),
        std::mem::size_of_val(h.blkmap),
    ];
    std::array::from_fn(|k| (PLAN_ARRAYS[k], sizes[k]))
}

/// Allocates and uploads every array. On an error nothing stays allocated.
pub fn upload_plan(
    mem: &dyn DeviceMemory,
    h: &PlanHostArrays<'_>,
) -> Result<PlanDeviceArrays, DeviceError> {
    let mut ptrs = [0 as DevPtr; 10];
    for (k, bytes) in h.bytes().iter().enumerate() {
        let step = mem.alloc(bytes.len()).and_then(|p| {
            ptrs[k] = p;
            mem.upload(p, bytes)
        });
        if let Err(e) = step {
            ptrs.iter().for_each(|&p| mem.free(p));
            return Err(DeviceError(format!("plan array {}: {e}", PLAN_ARRAYS[k])));
        }
    }
    Ok(PlanDeviceArrays::from_ptrs(ptrs))
}

/// Frees a plan's device arrays (OP2 forgets them at `op_cuda_exit`).
pub fn free_plan(mem: &dyn DeviceMemory, d: &PlanDeviceArrays) {
    d.ptrs().iter().for_each(|&p| mem.free(p));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::memory::HostMemory;

    fn download_i32(mem: &HostMemory, p: DevPtr, n: usize) -> Vec<i32> {
        let mut b = vec![0u8; n * 4];
        mem.download(p, &mut b).unwrap();
        b.chunks_exact(4)
            .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn round_trip_and_sizes() {
        let ind_map: Vec<i32> = (0..40).map(|i| i * 3 - 7).collect();
        let loc_map: Vec<i16> = (0..24).map(|i| i as i16 - 5).collect();
        let ind_sizes = [4, 5, 6, 7];
        let ind_offs = [0, 4, 9, 15];
        let nthrcol = [2, 3];
        let thrcol: Vec<i32> = (0..12).map(|i| i % 3).collect();
        let col_reord: Vec<i32> = (0..12).rev().collect();
        let offset = [0, 6];
        let nelems = [6, 6];
        let blkmap = [1, 0];
        let h = PlanHostArrays {
            ind_map: &ind_map,
            loc_map: &loc_map,
            ind_sizes: &ind_sizes,
            ind_offs: &ind_offs,
            nthrcol: &nthrcol,
            thrcol: &thrcol,
            col_reord: &col_reord,
            offset: &offset,
            nelems: &nelems,
            blkmap: &blkmap,
        };
        let t = plan_transfers(&h);
        let sizes: Vec<usize> = t.iter().map(|x| x.1).collect();
        assert_eq!(sizes, vec![160, 48, 16, 16, 8, 48, 48, 8, 8, 8]);
        assert_eq!(t[1].0, "loc_map");

        let mem = HostMemory::new();
        let d = upload_plan(&mem, &h).unwrap();
        assert_eq!(mem.uploads(), 10);
        assert_eq!(mem.bytes_up(), sizes.iter().sum::<usize>() as u64);
        let lists: [&[i32]; 10] = [
            &ind_map,
            &[],
            &ind_sizes,
            &ind_offs,
            &nthrcol,
            &thrcol,
            &col_reord,
            &offset,
            &nelems,
            &blkmap,
        ];
        for (k, (&p, list)) in d.ptrs().iter().zip(lists).enumerate() {
            if k != 1 {
                assert_eq!(
                    download_i32(&mem, p, list.len()),
                    list,
                    "{}",
                    PLAN_ARRAYS[k]
                );
            }
        }
        let mut b = vec![0u8; 48];
        mem.download(d.loc_map, &mut b).unwrap();
        let back: Vec<i16> = b
            .chunks_exact(2)
            .map(|c| i16::from_ne_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(back, loc_map);
        assert_eq!(mem.live_allocations(), 10);
        free_plan(&mem, &d);
        assert_eq!(mem.live_allocations(), 0);
    }

    #[test]
    fn empty_arrays_get_null_pointers() {
        let mem = HostMemory::new();
        let nelems = [3];
        let h = PlanHostArrays {
            nelems: &nelems,
            ..Default::default()
        };
        let d = upload_plan(&mem, &h).unwrap();
        assert_ne!(d.nelems, 0);
        assert_eq!(d.ptrs().iter().filter(|&&p| p == 0).count(), 9);
        assert_eq!(mem.uploads(), 1);
        free_plan(&mem, &d);
        assert_eq!(mem.live_allocations(), 0);
    }
}
