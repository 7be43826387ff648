//! The device and the copies on it: one per dat (AoS, or SoA with OP2's
//! padded stride) and per map (always transposed), uploaded plans, OP2's
//! reduction and constant scratch, the block of generated code's global
//! arguments, and the halo rows waiting to go up after an exchange. What
//! moves when is decided by the runtime (`Runtime::host_fresh` and its
//! siblings); here are the moves.

use super::halo_pack;
use super::layout::{self, DatLayout};
use super::memory::{DevPtr, DeviceError, DeviceMemory, Gather};
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
    /// Row lists of gathers on the device, by set: the rows and their
    /// device copy (`i32`), made again when a set's rows change.
    sent_lists: HashMap<usize, (Vec<usize>, DevPtr)>,
    /// The grow-only block gathers pack rows into.
    pack: Option<(DevPtr, usize)>,
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
            sent_lists: HashMap::new(),
            pack: None,
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

    /// Bring the owned rows `rows` (sorted, distinct: the rows a halo
    /// exchange sends) of a dat's device copy into the same rows of its host
    /// copy; the other host rows stay as they are (stale). A device with a
    /// row gather packs them on the device and one transfer brings them
    /// down. Without one they move in spans joined across gaps under
    /// [`halo_pack::GAP_BYTES`], and when those spans would hold half the
    /// dat or more nothing moves and `false` is returned: the caller then
    /// downloads it whole, which leaves both copies fresh.
    pub fn download_rows(
        &mut self,
        dom: &mut Domain,
        id: DatId,
        rows: &[usize],
    ) -> Result<bool, DeviceError> {
        let Some(dd) = self.dat(id) else {
            return Ok(true);
        };
        let lay = dd.layout;
        if let Some(&r) = rows.iter().find(|&&r| r >= lay.elems) {
            return Err(DeviceError(format!(
                "halo row {r} of a dat with {} rows",
                lay.elems
            )));
        }
        if rows.is_empty() {
            return Ok(true);
        }
        let set = dom.dat(id).set.0;
        let host = &mut dom.dat_mut(id).data.as_mut_slice()[..lay.elems * lay.elem_bytes];
        let moved = if self.mem.has_gather() {
            self.gather_down(set, dd, rows, host)?
        } else {
            let spans = halo_pack::spans(rows, halo_pack::GAP_BYTES / lay.elem_bytes.max(1));
            if halo_pack::span_rows(&spans) * 2 >= lay.elems {
                return Ok(false);
            }
            halo_pack::download_spans(&*self.mem, dd.ptr, &lay, &spans, host)?
        };
        self.stats.halo_downloads.add(moved);
        Ok(true)
    }

    /// `rows` of the dat `dd` (on set `set`) gathered on the device, brought
    /// down in one transfer and put in their rows of `host`. Returns the
    /// bytes moved.
    fn gather_down(
        &mut self,
        set: usize,
        dd: DevDat,
        rows: &[usize],
        host: &mut [u8],
    ) -> Result<usize, DeviceError> {
        let eb = dd.layout.elem_bytes;
        let list = match self.sent_lists.get(&set) {
            Some((r, p)) if r == rows => *p,
            _ => {
                let as_i32 = rows
                    .iter()
                    .map(|&r| i32::try_from(r))
                    .collect::<Result<Vec<i32>, _>>()
                    .map_err(|_| DeviceError("a halo row past i32".into()))?;
                let bytes = i32_bytes(&as_i32);
                let p = self.mem.alloc(bytes.len())?;
                if let Err(e) = self.mem.upload(p, bytes) {
                    self.mem.free(p);
                    return Err(e);
                }
                self.stats.maps.add(bytes.len());
                if let Some((_, old)) = self.sent_lists.insert(set, (rows.to_vec(), p)) {
                    self.mem.free(old);
                }
                p
            }
        };
        let need = rows.len() * eb;
        let dst = match self.pack {
            Some((p, have)) if have >= need => p,
            old => {
                if let Some((p, _)) = old {
                    self.mem.free(p);
                    self.pack = None;
                }
                let p = self.mem.alloc(need)?;
                self.pack = Some((p, need));
                p
            }
        };
        self.mem.gather_rows(&Gather {
            src: dd.ptr,
            layout: dd.layout,
            rows: list,
            n: rows.len(),
            dst,
        })?;
        let mut packed = vec![0u8; need];
        self.mem.download(dst, &mut packed)?;
        for (&r, row) in rows.iter().zip(packed.chunks_exact(eb)) {
            host[r * eb..(r + 1) * eb].copy_from_slice(row);
        }
        Ok(need)
    }

    /// Upload the halo rows `[size, size + exec + nonexec)` of a dat only
    /// (the device may have written owned rows since).
    pub fn upload_halo_rows(&mut self, dom: &Domain, id: DatId) -> Result<(), DeviceError> {
        let bytes = self.upload_halo_rows_uncounted(dom, id)?;
        self.count_halo_uploads(bytes.as_slice());
        Ok(())
    }

    /// Count halo uploads done by [`DeviceCopies::upload_halo_rows_uncounted`]
    /// (bytes of each).
    pub fn count_halo_uploads(&mut self, bytes: &[usize]) {
        for &b in bytes {
            self.stats.halo_uploads.add(b);
        }
    }

    /// [`DeviceCopies::upload_halo_rows`] through a shared reference (while
    /// a kernel's launch holds one); returns the bytes to count, `None` when
    /// the dat has no device copy.
    pub fn upload_halo_rows_uncounted(
        &self,
        dom: &Domain,
        id: DatId,
    ) -> Result<Option<usize>, DeviceError> {
        let Some(dd) = self.dat(id) else {
            return Ok(None);
        };
        let d = dom.dat(id);
        let set = dom.set(d.set);
        let (lo, hi) = (set.size, set.total_size());
        let host = d.data.as_slice();
        let eb = d.elem_bytes;
        let moved = match dd.layout.soa {
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
        };
        moved.map(|()| Some((hi - lo) * eb))
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
        for (_, (_, p)) in self.sent_lists.drain() {
            self.mem.free(p);
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
        for (p, _) in [self.gbl.take(), self.pack.take()].into_iter().flatten() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::memory::HostMemory;

    fn one_dat(n: usize) -> (Domain, DatId, Vec<u8>) {
        let mut dom = Domain::new();
        let set = dom.decl_set(n as i64, "s").unwrap();
        let rows: Vec<u8> = (0..n).flat_map(|i| (i as f64).to_ne_bytes()).collect();
        let x = dom
            .decl_dat("op_decl_dat", set, 1, "double", 8, Some(&rows), "x", false)
            .unwrap();
        (dom, x, rows)
    }

    /// The device copy is newer: every row negated there.
    fn newer_on_device(dev: &DeviceCopies, mem: &dyn DeviceMemory, x: DatId) -> Vec<u8> {
        let newer: Vec<u8> = (0..100).flat_map(|i| (-(i as f64)).to_ne_bytes()).collect();
        mem.upload(dev.dat(x).unwrap().ptr, &newer).unwrap();
        newer
    }

    #[test]
    fn without_a_gather_a_few_rows_come_down_and_many_are_left_to_a_whole_download() {
        let (mut dom, x, rows) = one_dat(100);
        let mem = Arc::new(HostMemory::without_gather());
        let mut dev = DeviceCopies::new(mem.clone());
        dev.add_dat(&dom, x, false).unwrap();
        let newer = newer_on_device(&dev, &*mem, x);
        // half the rows or more (rows 3 and 90 join across the gap): nothing moves
        for many in [(0..50).collect::<Vec<usize>>(), vec![3, 90]] {
            assert!(!dev.download_rows(&mut dom, x, &many).unwrap());
        }
        assert_eq!(mem.downloads(), 0);
        assert_eq!(dom.dat(x).data.as_slice(), &rows[..]);
        // two rows: those two come down, in one transfer, the rest stays
        assert!(dev.download_rows(&mut dom, x, &[3, 4]).unwrap());
        assert_eq!(mem.downloads(), 1);
        let mut want = rows.clone();
        want[24..40].copy_from_slice(&newer[24..40]);
        assert_eq!(dom.dat(x).data.as_slice(), &want[..]);
        let s = dev.stats();
        assert_eq!((s.halo_downloads.count, s.halo_downloads.bytes), (1, 16));
        assert_eq!(s.dat_downloads.count, 0);
        assert!(dev.download_rows(&mut dom, x, &[100]).is_err());
    }

    #[test]
    fn a_gather_brings_any_rows_down_in_one_transfer() {
        let (mut dom, x, rows) = one_dat(100);
        let mem = Arc::new(HostMemory::new());
        let mut dev = DeviceCopies::new(mem.clone());
        dev.add_dat(&dom, x, false).unwrap();
        let newer = newer_on_device(&dev, &*mem, x);
        let sent: Vec<usize> = (0..100).filter(|r| r % 3 == 0).collect();
        let up = mem.uploads();
        for round in 1..=2 {
            assert!(dev.download_rows(&mut dom, x, &sent).unwrap());
            assert_eq!((mem.gathers(), mem.downloads()), (round, round));
            assert_eq!(mem.uploads(), up + 1, "the row list goes up once");
        }
        let mut want = rows.clone();
        for &r in &sent {
            want[r * 8..(r + 1) * 8].copy_from_slice(&newer[r * 8..(r + 1) * 8]);
        }
        assert_eq!(dom.dat(x).data.as_slice(), &want[..]);
        let s = dev.stats();
        assert_eq!(s.halo_downloads.bytes, 2 * 34 * 8);
        // other rows: a new list; the mesh moving frees the lists
        assert!(dev.download_rows(&mut dom, x, &[1, 2]).unwrap());
        assert_eq!(mem.uploads(), up + 2);
        let live = mem.live_allocations();
        dev.clear_mesh();
        assert_eq!(mem.live_allocations(), live - 2, "the dat and the row list");
        dev.release();
        assert_eq!(mem.live_allocations(), 0);
    }
}
