//! Host/device coherence (OP2's `dirty_hd`), for a library with a device:
//! every dat has a host copy and a device copy, and the model's [`Fresh`]
//! says which holds the current values. The host copy is made fresh before
//! any host read (fetches, prints, dumps, host loops, host halo packing,
//! partitioning), the device copy before any device read, and a fresh copy
//! is never copied again. Without a device every function here does
//! nothing.

use super::lifecycle::Side;
use super::{Mirror, Runtime};
use crate::device::plan_upload::{PlanDeviceArrays, PlanHostArrays};
use crate::device::DeviceError;
use crate::domain::{DatId, Fresh, MapId};
use crate::error::{obj, Op2Error, Result};

fn dev_err(call: &str, what: String, e: DeviceError) -> Op2Error {
    Op2Error::new(call, what, format!("device: {e}"))
}

impl Runtime {
    /// A value the program wrote into its copy of the dat's state wins.
    fn adopt(&mut self, m: &dyn Mirror, id: DatId) {
        if let Some(f) = m.seen_fresh(id) {
            self.dom.dat_mut(id).fresh = f;
        }
    }

    /// Make the host copy of a dat fresh (download it if the device copy
    /// is newer).
    pub fn host_fresh(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        self.adopt(m, id);
        if self.dom.dat(id).fresh != Fresh::Device {
            return Ok(());
        }
        self.download(m, call, id)
    }

    /// Make the device copy of a dat fresh (upload it if the host copy is newer).
    pub fn device_fresh(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        self.adopt(m, id);
        if self.dom.dat(id).fresh != Fresh::Host {
            return Ok(());
        }
        self.upload(m, call, id)
    }

    /// Before a host-side halo exchange of a dat a device loop reads: the
    /// rows the exchange sends must be current in the host copy. Of a
    /// device-fresh dat only those rows come down (gathered on the device;
    /// the host copy stays marked stale); a dat whose set has no halo
    /// lists comes down whole, and so does one whose sent rows, on a device
    /// without a gather, are spread over half of it or more.
    pub(crate) fn sent_rows_fresh(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
    ) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        self.adopt(m, id);
        if self.dom.dat(id).fresh != Fresh::Device {
            return Ok(());
        }
        let set = self.dom.dat(id).set;
        let (Some(rows), Some(dev)) = (self.dist.sent_rows(set), self.device.as_mut()) else {
            return self.download(m, call, id);
        };
        let done = dev
            .download_rows(&mut self.dom, id, rows)
            .map_err(|e| dev_err(call, obj("dat", &self.dom.dat(id).name), e))?;
        if done {
            return Ok(());
        }
        self.download(m, call, id)
    }

    pub(crate) fn fresh_on(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        side: Side,
    ) -> Result<()> {
        match side {
            Side::Host => self.host_fresh(m, call, id),
            Side::Device => self.device_fresh(m, call, id),
        }
    }

    /// Every dat's host copy fresh (before partitioning, renumbering).
    pub fn host_fresh_all(&mut self, m: &mut dyn Mirror, call: &str) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        let ids: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        ids.into_iter()
            .try_for_each(|id| self.host_fresh(m, call, id))
    }

    /// Every dat's device copy fresh (`op_upload_all`).
    pub fn device_fresh_all(&mut self, m: &mut dyn Mirror, call: &str) -> Result<()> {
        if self.device.is_none() {
            return Ok(());
        }
        let ids: Vec<DatId> = self.dom.dats().map(|(id, _)| id).collect();
        ids.into_iter()
            .try_for_each(|id| self.device_fresh(m, call, id))
    }

    /// A loop wrote the dat on `side`: the other copy is stale.
    pub(crate) fn written_on(&mut self, id: DatId, side: Side) {
        if self.device.is_some() {
            self.dom.dat_mut(id).fresh = match side {
                Side::Host => Fresh::Host,
                Side::Device => Fresh::Device,
            };
        }
    }

    /// Copy the whole device copy to the host, whatever the state
    /// (`op_download_dat`); both copies are then fresh.
    pub fn download(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let what = obj("dat", &self.dom.dat(id).name);
        dev.download(&mut self.dom, id)
            .map_err(|e| dev_err(call, what, e))?;
        self.dom.dat_mut(id).fresh = Fresh::Both;
        self.show_dat(m, id);
        Ok(())
    }

    /// Copy the whole host copy to the device, whatever the state
    /// (`op_upload_dat`); both copies are then fresh.
    pub fn upload(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        dev.upload(&self.dom, id)
            .map_err(|e| dev_err(call, obj("dat", &self.dom.dat(id).name), e))?;
        self.dom.dat_mut(id).fresh = Fresh::Both;
        self.show_dat(m, id);
        Ok(())
    }

    /// Give a dat its device copy (uploaded now).
    pub fn device_add_dat(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let ptr = dev
            .add_dat(&self.dom, id, self.config.auto_soa)
            .map_err(|e| dev_err(call, obj("dat", &self.dom.dat(id).name), e))?;
        self.dom.dat_mut(id).fresh = Fresh::Both;
        m.dat_on_device(id, ptr);
        self.show_dat(m, id);
        Ok(())
    }

    /// Give a map its transposed device copy.
    pub fn device_add_map(&mut self, m: &mut dyn Mirror, call: &str, id: MapId) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        let ptr = dev
            .add_map(&self.dom, id)
            .map_err(|e| dev_err(call, obj("map", &self.dom.map(id).name), e))?;
        m.map_on_device(id, ptr);
        Ok(())
    }

    /// Remember that an exchange is refreshing a device dat's halo on the host.
    pub(crate) fn stage_halo_upload(&mut self, id: DatId) {
        if let Some(dev) = self.device.as_mut() {
            dev.halo_uploads.push(id);
        }
    }

    /// The exchanges completed: received halo rows go to the device copies
    /// (only the halo rows: the device may have written owned rows since).
    pub(crate) fn flush_halo_uploads(&mut self, _m: &mut dyn Mirror, call: &str) -> Result<()> {
        let Some(dev) = self.device.as_mut() else {
            return Ok(());
        };
        for id in std::mem::take(&mut dev.halo_uploads) {
            dev.upload_halo_rows(&self.dom, id)
                .map_err(|e| dev_err(call, obj("dat", &self.dom.dat(id).name), e))?;
        }
        Ok(())
    }

    /// The device copy of plan `number` (the front end's), uploaded the
    /// first time it is asked for; `None` without a device, or when
    /// generated code does not run on it (`OP_hybrid_gpu` 0).
    pub fn device_plan(
        &mut self,
        call: &str,
        loop_name: &str,
        number: usize,
        host: &PlanHostArrays<'_>,
    ) -> Result<Option<(PlanDeviceArrays, bool)>> {
        let hybrid = self.config.hybrid_gpu;
        let Some(dev) = self.device.as_mut().filter(|_| hybrid) else {
            return Ok(None);
        };
        let first = !dev.has_plan(number);
        let d = dev
            .plan(number, host)
            .map_err(|e| dev_err(call, obj("loop", loop_name), e))?;
        Ok(Some((d, first)))
    }
}
