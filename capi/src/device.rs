//! Device copies of the CUDA libraries (`libop2_cuda`, `libop2_mpi_cuda`):
//! every dat and map gets a device copy at declaration (dats AoS, or SoA with
//! OP2's padded stride; maps always transposed), and the model's
//! [`Fresh`] state (OP2's `dirty_hd`) decides what moves: the host copy is
//! made fresh before any host read, the device copy before any device read,
//! and a fresh copy is never copied again. Without a device (the other
//! libraries) `State::device` is `None` and every step here is a no-op.

use crate::device_copies::DevDat;
use crate::ffi::*;
use crate::state::State;
use op2_backend_cuda::layout::{self, DatLayout};
use op2_backend_cuda::memory::DevPtr;
use op2_backend_cuda::plan_upload::{self, PlanHostArrays};
use op2_core::{DatId, Fresh, MapId, Op2Error, Result};
use std::os::raw::{c_char, c_int, c_short};

fn dev_err(call: &str, what: String, e: impl std::fmt::Display) -> Op2Error {
    Op2Error::new(call, what, format!("device: {e}"))
}

/// Is the dat transposed on the device (OP2: `:soa` in its type, or
/// automatic SoA and more than one component)?
pub(crate) fn auto_soa() -> bool {
    // SAFETY: plain int global.
    unsafe { crate::globals::get(std::ptr::addr_of!(crate::globals::OP_auto_soa)) != 0 }
}

impl State {
    /// Is a device in use?
    pub(crate) fn has_device(&self) -> bool {
        self.device.is_some()
    }

    /// Copy a dat's freshness into its C mirror (`dirty_hd`).
    pub(crate) fn mirror_fresh(&mut self, id: DatId) {
        let f = self.dom.dat(id).fresh.dirty_hd();
        if let Some(d) = self.dats.get_mut(id.0).and_then(|d| d.as_mut()) {
            d.c.dirty_hd = f;
        }
    }

    /// Applications may set `dat->dirty_hd` themselves (OP2 keeps the state
    /// only there): a value they wrote wins over the model's.
    fn adopt_c_fresh(&mut self, id: DatId) {
        let Some(c) = self.dats.get(id.0).and_then(|d| d.as_ref()) else {
            return;
        };
        let f = match c.c.dirty_hd {
            1 => Fresh::Host,
            2 => Fresh::Device,
            _ => Fresh::Both,
        };
        self.dom.dat_mut(id).fresh = f;
    }

    /// Give a newly declared dat its device copy (uploaded now).
    pub(crate) fn device_decl_dat(&mut self, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let d = self.dom.dat(id);
        let lay = DatLayout::of(d, self.dom.set(d.set), auto_soa());
        let what = op2_core::error::obj("dat", &d.name);
        let ptr = dev
            .mem
            .alloc(lay.device_bytes())
            .map_err(|e| dev_err(call, what.clone(), e))?;
        let host = &d.data.as_slice()[..lay.elems * lay.elem_bytes];
        if let Err(e) = dev.mem.upload(ptr, &lay.to_device(host)) {
            dev.mem.free(ptr);
            return Err(dev_err(call, what, e));
        }
        if dev.dats.len() <= id.0 {
            dev.dats.resize(id.0 + 1, None);
        }
        if let Some(old) = dev.dats[id.0].replace(DevDat { ptr, layout: lay }) {
            dev.mem.free(old.ptr);
        }
        self.dom.dat_mut(id).fresh = Fresh::Both;
        self.dat_c(id).data_d = ptr as *mut c_char;
        self.mirror_fresh(id);
        Ok(())
    }

    /// Give a newly declared map its transposed device copy.
    pub(crate) fn device_decl_map(&mut self, call: &str, id: MapId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let m = self.dom.map(id);
        let from = self.dom.set(m.from);
        let rows = from.size + from.exec_size;
        let stride = layout::map_stride(from);
        let rows = rows.min(m.values.len() / m.dim.max(1));
        let t = layout::transpose_map(&m.values, rows, m.dim, stride);
        let what = op2_core::error::obj("map", &m.name);
        let bytes = std::mem::size_of_val(&t[..]);
        let ptr = dev
            .mem
            .alloc(bytes)
            .map_err(|e| dev_err(call, what.clone(), e))?;
        // SAFETY: i32 has no padding; reinterpreting as bytes is exact.
        let raw = unsafe { std::slice::from_raw_parts(t.as_ptr() as *const u8, bytes) };
        dev.mem
            .upload(ptr, raw)
            .map_err(|e| dev_err(call, what, e))?;
        if dev.maps.len() <= id.0 {
            dev.maps.resize(id.0 + 1, None);
        }
        if let Some(old) = dev.maps[id.0].replace(ptr) {
            dev.mem.free(old);
        }
        self.maps[id.0].c.map_d = ptr as *mut c_int;
        Ok(())
    }

    /// Free a dat's device copy (op_free_dat_temp).
    pub(crate) fn device_free_dat(&mut self, id: DatId) {
        if let Some(dev) = self.device.as_mut() {
            if let Some(d) = dev.dats.get_mut(id.0).and_then(Option::take) {
                dev.mem.free(d.ptr);
            }
        }
    }

    /// Make the host copy fresh (download if the device copy is newer).
    pub(crate) fn host_fresh(&mut self, call: &str, id: DatId) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        self.adopt_c_fresh(id);
        if self.dom.dat(id).fresh != Fresh::Device {
            return Ok(());
        }
        self.download_dat(call, id)?;
        self.dom.dat_mut(id).fresh = Fresh::Both;
        self.mirror_fresh(id);
        Ok(())
    }

    /// Copy the whole device copy to the host (un-transposing SoA).
    pub(crate) fn download_dat(&mut self, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_ref() else {
            return Ok(());
        };
        let Some(Some(dd)) = dev.dats.get(id.0).copied() else {
            return Ok(());
        };
        let mem = dev.mem.clone();
        let d = self.dom.dat_mut(id);
        let what = op2_core::error::obj("dat", &d.name);
        let lay = dd.layout;
        let host = &mut d.data.as_mut_slice()[..lay.elems * lay.elem_bytes];
        if lay.soa.is_none() {
            return mem
                .download(dd.ptr, host)
                .map_err(|e| dev_err(call, what, e));
        }
        let mut image = vec![0u8; lay.device_bytes()];
        mem.download(dd.ptr, &mut image)
            .map_err(|e| dev_err(call, what, e))?;
        lay.to_host(&image, host);
        Ok(())
    }

    /// Copy the whole host copy to the device (transposing SoA).
    pub(crate) fn upload_dat(&mut self, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_ref() else {
            return Ok(());
        };
        let Some(Some(dd)) = dev.dats.get(id.0).copied() else {
            return Ok(());
        };
        let d = self.dom.dat(id);
        let lay = dd.layout;
        let host = &d.data.as_slice()[..lay.elems * lay.elem_bytes];
        let r = match lay.soa {
            None => dev.mem.upload(dd.ptr, host),
            Some(_) => dev.mem.upload(dd.ptr, &lay.to_device(host)),
        };
        r.map_err(|e| dev_err(call, op2_core::error::obj("dat", &d.name), e))
    }

    /// Make the device copy fresh (upload if the host copy is newer).
    pub(crate) fn device_fresh(&mut self, call: &str, id: DatId) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        self.adopt_c_fresh(id);
        if self.dom.dat(id).fresh != Fresh::Host {
            return Ok(());
        }
        self.upload_dat(call, id)?;
        self.dom.dat_mut(id).fresh = Fresh::Both;
        self.mirror_fresh(id);
        Ok(())
    }

    /// A loop wrote the dat on the host or on the device.
    pub(crate) fn written_on(&mut self, id: DatId, device: bool) {
        if self.device.is_none() {
            return;
        }
        self.dom.dat_mut(id).fresh = if device { Fresh::Device } else { Fresh::Host };
        self.mirror_fresh(id);
    }

    /// Every dat's host copy fresh (before partitioning, dumps of all dats).
    pub(crate) fn host_fresh_all(&mut self, call: &str) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        let ids: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        for id in ids {
            self.host_fresh(call, id)?;
        }
        Ok(())
    }

    /// After partitioning: every set, map and dat moved on the host, so the
    /// device copies are made again from the host.
    pub(crate) fn device_rebuild(&mut self, call: &str) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        for d in dev.dats.drain(..).flatten() {
            dev.mem.free(d.ptr);
        }
        for (_, p) in dev.plans.drain() {
            plan_upload::free_plan(&*dev.mem, &p);
        }
        for m in 0..self.dom.maps().len() {
            self.device_decl_map(call, MapId(m))?;
        }
        let ids: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        for id in ids {
            self.device_decl_dat(call, id)?;
        }
        Ok(())
    }

    /// op_exit: free every device copy.
    pub(crate) fn device_exit(&mut self) {
        if let Some(mut dev) = self.device.take() {
            dev.release();
        }
    }
}

impl State {
    /// The first time generated code gets plan `plan` from a device
    /// library: its per-block and per-element arrays are copied to the
    /// device and the `op_plan` fields point there (OP2's behaviour: the
    /// colour offsets and counts stay on the host).
    pub(crate) fn device_upload_plan(&mut self, call: &str, plan: *mut op_plan) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let crate::plan_cache::CPlans { plans, structs, .. } = &mut self.c_plans;
        let Some(i) = structs.iter().position(|s| std::ptr::eq(s, plan)) else {
            return Ok(());
        };
        if dev.plans.contains_key(&i) {
            return Ok(());
        }
        let cp = &mut plans[i];
        let p = &cp.plan;
        let host = PlanHostArrays {
            ind_map: &p.ind_map,
            loc_map: &p.loc_map,
            ind_sizes: &p.ind_sizes,
            ind_offs: &p.ind_offs,
            nthrcol: &p.nthrcol,
            thrcol: &p.thrcol,
            col_reord: &p.col_reord,
            offset: &p.offset,
            nelems: &p.nelems,
            blkmap: &p.blkmap,
        };
        let d = plan_upload::upload_plan(&*dev.mem, &host)
            .map_err(|e| dev_err(call, op2_core::error::obj("loop", &cp.key.name), e))?;
        for (slot, &start) in cp.ind_maps.iter_mut().zip(&p.ind_maps_start) {
            *slot = (d.ind_map + (start * 4) as u64) as *mut c_int;
        }
        for (slot, start) in cp.loc_maps.iter_mut().zip(&p.loc_maps_start) {
            if let Some(start) = start {
                *slot = (d.loc_map + (start * 2) as u64) as *mut c_short;
            }
        }
        let s = &mut structs[i];
        let ptr = |p: DevPtr| p as *mut c_int;
        s.ind_map = ptr(d.ind_map);
        s.loc_map = d.loc_map as *mut c_short;
        s.ind_sizes = ptr(d.ind_sizes);
        s.ind_offs = ptr(d.ind_offs);
        s.nthrcol = ptr(d.nthrcol);
        s.thrcol = ptr(d.thrcol);
        s.col_reord = ptr(d.col_reord);
        s.offset = ptr(d.offset);
        s.offset_d = s.offset;
        s.nelems = ptr(d.nelems);
        s.nelems_d = s.nelems;
        s.blkmap = ptr(d.blkmap);
        s.blkmap_d = s.blkmap;
        dev.plans.insert(i, d);
        Ok(())
    }

    /// Remember that an MPI exchange is refreshing a device dat's halo on the host.
    pub(crate) fn stage_halo_upload(&mut self, id: DatId) {
        if let Some(dev) = self.device.as_mut() {
            dev.halo_uploads.push(id);
        }
    }

    /// The exchanges completed: received halo rows go to the device copies
    /// (only the halo rows: the device may have written owned rows since).
    pub(crate) fn flush_halo_uploads(&mut self, call: &str) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let ids = std::mem::take(&mut dev.halo_uploads);
        for id in ids {
            self.upload_rows(call, id)?;
        }
        Ok(())
    }

    /// Upload the halo rows [size, size + exec + nonexec) of a dat.
    fn upload_rows(&mut self, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_ref() else {
            return Ok(());
        };
        let Some(Some(dd)) = dev.dats.get(id.0).copied() else {
            return Ok(());
        };
        let d = self.dom.dat(id);
        let set = self.dom.set(d.set);
        let (lo, hi) = (set.size, set.total_size());
        let host = d.data.as_slice();
        let eb = d.elem_bytes;
        let what = op2_core::error::obj("dat", &d.name);
        let r = match dd.layout.soa {
            None => dev
                .mem
                .upload(dd.ptr + (lo * eb) as u64, &host[lo * eb..hi * eb]),
            Some((stride, _, scalar)) => (0..d.dim).try_for_each(|c| {
                let row: Vec<u8> = (lo..hi)
                    .flat_map(|e| host[e * eb + c * scalar..e * eb + (c + 1) * scalar].iter())
                    .copied()
                    .collect();
                dev.mem
                    .upload(dd.ptr + ((c * stride + lo) * scalar) as u64, &row)
            }),
        };
        r.map_err(|e| dev_err(call, what, e))
    }
}
