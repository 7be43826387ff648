//! The device and the copies on it: one per dat (AoS, or SoA with OP2's
//! padded stride) and per map (always transposed), uploaded plans, OP2's
//! reduction and constant scratch, the block of generated code's global
//! arguments, and the halo rows waiting to go up after an exchange. What
//! moves when is decided by the runtime (`Runtime::host_fresh` and its
//! siblings); here are the moves.

use super::layout::{self, DatLayout};
use super::memory::{DevPtr, DeviceError, DeviceMemory};
use super::plan_upload::{self, PlanDeviceArrays, PlanHostArrays};
use super::scratch::GrowBuffers;
use super::stats::TransferStats;
use crate::domain::{DatId, Domain, MapId};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// A dat's device copy.
#[derive(Clone, Copy, Debug)]
pub struct DevDat {
    pub ptr: DevPtr,
    pub layout: DatLayout,
}

/// The device and what lives on it.
pub struct DeviceCopies {
    pub mem: Arc<dyn DeviceMemory>,
    dats: Vec<Option<DevDat>>,
    maps: Vec<Option<DevPtr>>,
    /// OP2's reduction scratch (`OP_reduct_h` / `OP_reduct_d`).
    pub reduct: GrowBuffers,
    /// OP2's constant scratch (`OP_consts_h` / `OP_consts_d`).
    pub consts: GrowBuffers,
    /// Device copies of plans handed to generated code, by the front end's
    /// plan number.
    plans: HashMap<usize, PlanDeviceArrays>,
    /// Dats whose halo rows an exchange wrote on the host, to upload when
    /// the exchange completes.
    pub(crate) halo_uploads: Vec<DatId>,
    /// The grow-only block of generated code's global arguments.
    gbl: Option<(DevPtr, usize)>,
    /// What moved so far (scratch buffers count their own).
    stats: TransferStats,
}

fn i32_bytes(v: &[i32]) -> &[u8] {
    // SAFETY: i32 has no padding and any byte is a valid u8; the length
    // covers exactly the same memory.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

impl DeviceCopies {
    pub fn new(mem: Arc<dyn DeviceMemory>) -> DeviceCopies {
        DeviceCopies {
            dats: Vec::new(),
            maps: Vec::new(),
            reduct: GrowBuffers::new(mem.clone()),
            consts: GrowBuffers::new(mem.clone()),
            mem,
            plans: HashMap::new(),
            halo_uploads: Vec::new(),
            gbl: None,
            stats: TransferStats::default(),
        }
    }

    /// What moved between host and device so far.
    pub fn stats(&self) -> TransferStats {
        let mut s = self.stats;
        for b in [&self.reduct, &self.consts] {
            let (up, down) = b.moved();
            s.scratch_up.count += up.count;
            s.scratch_up.bytes += up.bytes;
            s.scratch_down.count += down.count;
            s.scratch_down.bytes += down.bytes;
        }
        s
    }

    /// The device image of a dat's host bytes, the transposition timed.
    fn image(&mut self, lay: &DatLayout, host: &[u8]) -> Vec<u8> {
        let t = Instant::now();
        let v = lay.to_device(host);
        if lay.soa.is_some() {
            self.stats.soa_transpose += t.elapsed();
        }
        v
    }

    /// The transposed device copy of a map, if it has one.
    pub fn map(&self, id: MapId) -> Option<DevPtr> {
        self.maps.get(id.0).copied().flatten()
    }

    /// The device copy of a dat, if it has one.
    pub fn dat(&self, id: DatId) -> Option<DevDat> {
        self.dats.get(id.0).copied().flatten()
    }

    /// Give a dat its device copy, uploaded now (an old copy is freed).
    pub fn add_dat(
        &mut self,
        dom: &Domain,
        id: DatId,
        auto_soa: bool,
    ) -> Result<DevPtr, DeviceError> {
        let d = dom.dat(id);
        let lay = DatLayout::of(d, dom.set(d.set), auto_soa);
        let ptr = self.mem.alloc(lay.device_bytes())?;
        let host = &d.data.as_slice()[..lay.elems * lay.elem_bytes];
        let image = self.image(&lay, host);
        if let Err(e) = self.mem.upload(ptr, &image) {
            self.mem.free(ptr);
            return Err(e);
        }
        self.stats.dats_placed.add(host.len());
        if self.dats.len() <= id.0 {
            self.dats.resize(id.0 + 1, None);
        }
        if let Some(old) = self.dats[id.0].replace(DevDat { ptr, layout: lay }) {
            self.mem.free(old.ptr);
        }
        Ok(ptr)
    }

    /// Give a map its transposed device copy (an old copy is freed).
    pub fn add_map(&mut self, dom: &Domain, id: MapId) -> Result<DevPtr, DeviceError> {
        let m = dom.map(id);
        let from = dom.set(m.from);
        let stride = layout::map_stride(from);
        let rows = (from.size + from.exec_size).min(m.values.len() / m.dim.max(1));
        let t = layout::transpose_map(&m.values, rows, m.dim, stride);
        let bytes = i32_bytes(&t);
        let ptr = self.mem.alloc(bytes.len())?;
        self.mem.upload(ptr, bytes)?;
        self.stats.maps.add(bytes.len());
        if self.maps.len() <= id.0 {
            self.maps.resize(id.0 + 1, None);
        }
        if let Some(old) = self.maps[id.0].replace(ptr) {
            self.mem.free(old);
        }
        Ok(ptr)
    }

    /// Free a dat's device copy.
    pub fn free_dat(&mut self, id: DatId) {
        if let Some(d) = self.dats.get_mut(id.0).and_then(Option::take) {
            self.mem.free(d.ptr);
        }
    }

    /// Copy the whole device copy to the host (un-transposing SoA).
    pub fn download(&mut self, dom: &mut Domain, id: DatId) -> Result<(), DeviceError> {
        let Some(dd) = self.dat(id) else {
            return Ok(());
        };
        let lay = dd.layout;
        let host = &mut dom.dat_mut(id).data.as_mut_slice()[..lay.elems * lay.elem_bytes];
        if lay.soa.is_none() {
            self.mem.download(dd.ptr, host)?;
        } else {
            let mut image = vec![0u8; lay.device_bytes()];
            self.mem.download(dd.ptr, &mut image)?;
            let t = Instant::now();
            lay.to_host(&image, host);
            self.stats.soa_transpose += t.elapsed();
        }
        self.stats.dat_downloads.add(host.len());
        Ok(())
    }

    /// Copy the whole host copy to the device (transposing SoA).
    pub fn upload(&mut self, dom: &Domain, id: DatId) -> Result<(), DeviceError> {
        let Some(dd) = self.dat(id) else {
            return Ok(());
        };
        let lay = dd.layout;
        let host = &dom.dat(id).data.as_slice()[..lay.elems * lay.elem_bytes];
        match lay.soa {
            None => self.mem.upload(dd.ptr, host)?,
            Some(_) => {
                let image = self.image(&lay, host);
                self.mem.upload(dd.ptr, &image)?;
            }
        }
        self.stats.dat_uploads.add(host.len());
        Ok(())
    }

    /// Upload the halo rows `[size, size + exec + nonexec)` of a dat only
    /// (the device may have written owned rows since).
    pub fn upload_halo_rows(&mut self, dom: &Domain, id: DatId) -> Result<(), DeviceError> {
        let Some(dd) = self.dat(id) else {
            return Ok(());
        };
        let d = dom.dat(id);
        let set = dom.set(d.set);
        let (lo, hi) = (set.size, set.total_size());
        let host = d.data.as_slice();
        let eb = d.elem_bytes;
        self.stats.halo_uploads.add((hi - lo) * eb);
        match dd.layout.soa {
            None => self
                .mem
                .upload(dd.ptr + (lo * eb) as u64, &host[lo * eb..hi * eb]),
            Some((stride, _, scalar)) => (0..d.dim).try_for_each(|c| {
                let row: Vec<u8> = (lo..hi)
                    .flat_map(|e| host[e * eb + c * scalar..e * eb + (c + 1) * scalar].iter())
                    .copied()
                    .collect();
                self.mem
                    .upload(dd.ptr + ((c * stride + lo) * scalar) as u64, &row)
            }),
        }
    }

    /// Drop every dat and map copy and every uploaded plan (the mesh moved:
    /// the copies are made again from the host).
    pub fn clear_mesh(&mut self) {
        for d in self.dats.drain(..).flatten() {
            self.mem.free(d.ptr);
        }
        for m in self.maps.drain(..).flatten() {
            self.mem.free(m);
        }
        for (_, p) in self.plans.drain() {
            plan_upload::free_plan(&*self.mem, &p);
        }
    }

    /// The device copy of plan `number`, uploaded the first time.
    pub fn plan(
        &mut self,
        number: usize,
        host: &PlanHostArrays<'_>,
    ) -> Result<PlanDeviceArrays, DeviceError> {
        if let Some(p) = self.plans.get(&number) {
            return Ok(*p);
        }
        let t = Instant::now();
        let d = plan_upload::upload_plan(&*self.mem, host)?;
        self.stats.plan_upload += t.elapsed();
        self.stats.plans.add(host.byte_len());
        self.plans.insert(number, d);
        Ok(d)
    }

    /// Has plan `number` been uploaded?
    pub fn has_plan(&self, number: usize) -> bool {
        self.plans.contains_key(&number)
    }

    /// OP2's reduction (`reduct`) or constant scratch buffer.
    pub fn scratch(&mut self, reduct: bool) -> &mut GrowBuffers {
        if reduct {
            &mut self.reduct
        } else {
            &mut self.consts
        }
    }

    /// The block of generated code's global arguments, grown to at least
    /// `bytes` (an old, smaller block is freed).
    pub fn gbl_block(&mut self, bytes: usize) -> Result<DevPtr, DeviceError> {
        if let Some((ptr, have)) = self.gbl {
            if have >= bytes {
                return Ok(ptr);
            }
            self.mem.free(ptr);
            self.gbl = None;
        }
        let ptr = self.mem.alloc(bytes)?;
        self.gbl = Some((ptr, bytes));
        Ok(ptr)
    }

    /// Free everything on the device.
    pub fn release(&mut self) {
        self.clear_mesh();
        if let Some((p, _)) = self.gbl.take() {
            self.mem.free(p);
        }
        self.reduct = GrowBuffers::new(self.mem.clone());
        self.consts = GrowBuffers::new(self.mem.clone());
    }
}

impl Drop for DeviceCopies {
    fn drop(&mut self) {
        self.release();
    }
}
