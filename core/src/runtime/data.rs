//! Everything else the runtime decides: declarations and freeing (with the
//! device copies), getting data out in the declared order (fetches, text
//! and binary dumps), partitioning and renumbering the mesh, and OP2's
//! data helpers that write dats in place.

use super::{Mirror, Runtime};
use crate::dist::{DistKind, PartitionRequest};
use crate::domain::{DatId, MapId, SetId};
use crate::error::{obj, Op2Error, Result};
use crate::types::ScalarType;
use std::borrow::Cow;
use std::io::Write;

/// How a dat's storage is given to [`Runtime::decl_dat`].
#[derive(Clone, Copy, Debug)]
pub enum Storage {
    /// Zero-initialised (temporary dats, or no data given).
    Zeroed,
    /// Copied from the program's `set.size` elements at this address.
    Copy(*const u8),
    /// The program's array itself, when it is suitably aligned and there is
    /// no halo (OP2's `OP_NO_REALLOC`); otherwise copied.
    InPlace(*mut u8),
}

fn io_err(call: &str, o: &str, path: &str, e: std::io::Error) -> Op2Error {
    Op2Error::new(call, o, format!("cannot write \"{path}\": {e}"))
}

impl Runtime {
    /// `op_decl_map`: entries already copied into `vals` (see
    /// [`crate::Domain::map_storage`]); checked as the distribution says.
    #[allow(clippy::too_many_arguments)]
    pub fn decl_map(
        &mut self,
        from: SetId,
        to: SetId,
        dim: i32,
        vals: Vec<i32>,
        base: i32,
        name: &str,
    ) -> Result<MapId> {
        let check = self.dist.map_check();
        self.dom
            .decl_map_vec(from, to, dim, vals, base, name, check)
    }

    /// `op_decl_dat` / `op_decl_dat_temp`. Returns the dat and whether its
    /// storage is the program's array.
    ///
    /// # Safety
    /// A `Copy` or `InPlace` address holds `set.size` elements of the dat
    /// (`InPlace`: and stays valid while the dat lives; OP2's contract).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn decl_dat(
        &mut self,
        call: &str,
        set: SetId,
        dim: i32,
        type_name: &str,
        type_size: i32,
        storage: Storage,
        name: &str,
        temp: bool,
    ) -> Result<(DatId, bool)> {
        // Allocated (and checked) zeroed first, then the program's data is
        // copied in: nothing is read for storage that cannot exist.
        let id = self
            .dom
            .decl_dat(call, set, dim, type_name, type_size, None, name, temp)?;
        let src = match storage {
            Storage::Zeroed => return Ok((id, false)),
            Storage::Copy(p) => p,
            Storage::InPlace(p) => {
                let d = self.dom.dat(id);
                let align = d.scalar.size().unwrap_or(1).clamp(1, 8);
                let s = self.dom.set(d.set);
                // One node: the set holds only owned elements, exactly the array.
                let fits =
                    !p.is_null() && (p as usize).is_multiple_of(align) && s.total_size() == s.size;
                // SAFETY: the caller's contract; the array holds total_size elements.
                if fits && unsafe { self.dom.use_in_place(id, p) } {
                    return Ok((id, true));
                }
                p as *const u8
            }
        };
        if !src.is_null() {
            let own = self.dom.set(set).size * self.dom.dat(id).elem_bytes;
            let d = self.dom.dat_mut(id);
            // SAFETY: the caller's contract: `src` holds set.size elements;
            // the dat's buffer holds at least that many bytes.
            unsafe { std::ptr::copy_nonoverlapping(src, d.data.as_mut_ptr(), own) };
            // After op_renumber: the program's data is in the declared order.
            self.dom.renumber_new_dat(id);
        }
        Ok((id, false))
    }

    /// Owned elements of a set over all processes, and this process's offset.
    pub fn global_size(&mut self, set: SetId) -> Result<(usize, usize)> {
        self.dist.global_size(&self.dom, set)
    }

    /// This process's declared block of a dat, in the declared order, on
    /// the host (`op_mpi_get_data`).
    pub fn fetch_block(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<Vec<u8>> {
        self.finish_exchanges(m, call)?;
        self.host_fresh(m, call, id)?;
        self.dist.fetch_block(&self.dom, id)
    }

    /// A global of generated code combined across processes
    /// (`op_mpi_reduce_*`): `data` holds `scalar` values, or logicals of
    /// `width` bytes when `scalar` is `None` (C `bool`: 1, Fortran
    /// `logical`: 4). Nothing happens when MPI reductions are switched off.
    pub fn reduce_global(
        &mut self,
        access: crate::arg::Access,
        scalar: Option<ScalarType>,
        width: usize,
        data: &mut [u8],
    ) -> Result<()> {
        if !self.config.mpi_reductions {
            return Ok(());
        }
        match scalar {
            None => self.dist.reduce_logical(width, access, data),
            Some(scalar) => self.dist.reduce(&mut crate::dist::GlobalArg {
                access,
                scalar,
                data,
            }),
        }
    }

    /// `vals` summed element-wise over the processes, in rank order (every
    /// process gets the same bits).
    pub fn sum_across_ranks(&mut self, vals: &mut [f64]) -> Result<()> {
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let all = self.dist.allgather_bytes(&bytes)?;
        if all.len() <= 1 {
            return Ok(());
        }
        for (i, v) in vals.iter_mut().enumerate() {
            *v = all
                .iter()
                .map(|b| {
                    let c: [u8; 8] = b[i * 8..i * 8 + 8].try_into().expect("8 bytes per value");
                    f64::from_le_bytes(c)
                })
                .sum();
        }
        Ok(())
    }

    /// `op_free_dat_temp`.
    pub fn free_dat(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<()> {
        self.finish_exchanges(m, call)?;
        if let Some(dev) = self.device.as_mut() {
            dev.free_dat(id);
        }
        self.dom.free_temp(id)?;
        self.bump_generation();
        Ok(())
    }

    /// `op_decl_dat_overlay`: a dat on `set` over the storage of `base`.
    pub fn decl_overlay(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        set: SetId,
        base: DatId,
    ) -> Result<DatId> {
        let o = obj("dat", &self.dom.dat(base).name);
        if self.device.is_some() {
            return Err(Op2Error::new(
                call,
                o,
                "overlays are not supported by the device libraries (the device copy of a dat is not shared)",
            ));
        }
        let d = &*self.dist;
        if d.kind() == DistKind::Mpi && !d.is_partitioned() && d.nranks() > 1 {
            return Err(Op2Error::new(
                call,
                o,
                "declare overlays after op_partition: partitioning moves every dat's storage",
            ));
        }
        self.finish_exchanges(m, call)?;
        let id = self.dom.decl_overlay(call, set, base)?;
        if self.config.diags > 1 {
            let (d, dom) = (self.dom.dat(base), &self.dom);
            self.say(&format!(
                "op_decl_dat_overlay: dat: {}, set {} ({} elems) -> {} ({} elems)\n",
                d.name,
                dom.set(d.set).name,
                dom.set(d.set).total_size(),
                dom.set(set).name,
                dom.set(set).total_size()
            ));
        }
        Ok(id)
    }

    /// A dat's elements in the declared order, on the host: this process's
    /// declared block (`global` false) or the whole set (every process).
    /// On one node a dat never renumbered is borrowed, not copied.
    pub fn dat_rows(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        global: bool,
    ) -> Result<Cow<'_, [u8]>> {
        self.finish_exchanges(m, call)?;
        self.host_fresh(m, call, id)?;
        let renumbered = self.dom.set_order(self.dom.dat(id).set).is_some();
        if self.dist.kind() == DistKind::SingleNode && !renumbered {
            let d = self.dom.dat(id);
            let n = self.dom.set(d.set).size;
            return Ok(Cow::Borrowed(&d.data.as_slice()[..n * d.elem_bytes]));
        }
        let rows = if global {
            self.dist.gather_global(&self.dom, id)?
        } else {
            self.dist.fetch_block(&self.dom, id)?
        };
        Ok(Cow::Owned(rows))
    }

    /// `op_fetch_data*`: the dat's elements `low..=high` in the declared
    /// order (`range` given: of the whole set; `None`: this process's whole
    /// block), for a destination of `dst_elem`-byte scalars when known.
    pub fn fetch(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        range: Option<(i64, i64)>,
        dst_elem: Option<usize>,
    ) -> Result<Cow<'_, [u8]>> {
        let d = self.dom.dat(id);
        let (o, eb) = (obj("dat", &d.name), d.elem_bytes);
        if let (Some(sz), Some(ts)) = (dst_elem, d.scalar.size()) {
            if ts != sz {
                return Err(Op2Error::new(
                    call,
                    o,
                    format!("the destination has {sz}-byte elements but the dat's type \"{}\" has {ts}-byte elements", d.type_name),
                ));
            }
        }
        let rows = self.dat_rows(m, "op_fetch_data", id, range.is_some())?;
        let n = (rows.len() / eb.max(1)) as i64;
        let (low, high) = range.unwrap_or((0, n - 1));
        if n == 0 && low == 0 && high == -1 {
            return Ok(Cow::Borrowed(&[]));
        }
        if low < 0 || high >= n || low > high {
            return Err(Op2Error::new(
                call,
                o,
                format!(
                    "range [{low}, {high}] is not inside the set's elements [0, {}]",
                    n - 1
                ),
            ));
        }
        let (a, b) = (low as usize * eb, (high as usize + 1) * eb);
        Ok(match rows {
            Cow::Borrowed(r) => Cow::Borrowed(&r[a..b]),
            Cow::Owned(mut r) => {
                r.truncate(b);
                r.drain(..a);
                Cow::Owned(r)
            }
        })
    }

    /// `op_print_dat_to_txtfile`: OP2's text layout (its MPI layout in a
    /// library of several processes), written by the root.
    pub fn print_dat_txt(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        path: &str,
    ) -> Result<()> {
        let mpi = self.dist.kind() == DistKind::Mpi;
        let d = self.dom.dat(id);
        let (o, type_name, dim, eb) = (
            obj("dat", &d.name),
            d.type_name.clone(),
            d.dim,
            d.elem_bytes,
        );
        if !crate::format::txt_printable(&type_name, mpi) {
            let only = if mpi {
                "double, float, int"
            } else {
                "double, float, int, long long"
            };
            return Err(Op2Error::new(
                call,
                o,
                format!("cannot print type \"{type_name}\" ({only} only)"),
            ));
        }
        let root = self.dist.rank() == 0;
        let rows = self.dat_rows(m, call, id, true)?;
        if !root {
            return Ok(());
        }
        let n = rows.len() / eb.max(1);
        let mut f = create(call, &o, path)?;
        crate::format::write_dat_txt(&mut f, mpi, &type_name, dim, n, &rows)
            .and_then(|()| f.flush())
            .map_err(|e| io_err(call, &o, path, e))
    }

    /// `op_print_dat_to_binfile`: int32 count, int32 dim, the raw elements
    /// in the declared order, written by the root.
    pub fn print_dat_bin(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        path: &str,
    ) -> Result<()> {
        let d = self.dom.dat(id);
        let (o, dim, eb) = (obj("dat", &d.name), d.dim, d.elem_bytes);
        let root = self.dist.rank() == 0;
        let rows = self.dat_rows(m, call, id, true)?;
        if !root {
            return Ok(());
        }
        let n = rows.len() / eb.max(1);
        let mut f = create(call, &o, path)?;
        f.write_all(&(n as i32).to_ne_bytes())
            .and_then(|()| f.write_all(&(dim as i32).to_ne_bytes()))
            .and_then(|()| f.write_all(&rows[..n * eb]))
            .and_then(|()| f.flush())
            .map_err(|e| io_err(call, &o, path, e))
    }

    /// `op_dump_dat`: every owned value on its own line (`%lf`, `%f`, `%d`).
    pub fn dump_dat(&mut self, m: &mut dyn Mirror, call: &str, id: DatId) -> Result<String> {
        self.host_fresh(m, call, id)?;
        let d = self.dom.dat(id);
        let count = self.dom.set(d.set).size * d.dim;
        let bytes = d.data.as_slice();
        let mut s = String::with_capacity(count * 12);
        let mut line = |v: String| {
            s.push_str(&v);
            s.push('\n');
        };
        match d.scalar {
            ScalarType::F64 => bytes.chunks_exact(8).take(count).for_each(|c| {
                line(crate::format::c_fixed(f64::from_ne_bytes(
                    c.try_into().unwrap(),
                )))
            }),
            ScalarType::F32 => bytes.chunks_exact(4).take(count).for_each(|c| {
                line(crate::format::c_fixed(
                    f32::from_ne_bytes(c.try_into().unwrap()) as f64,
                ))
            }),
            ScalarType::I32 => bytes
                .chunks_exact(4)
                .take(count)
                .for_each(|c| line(i32::from_ne_bytes(c.try_into().unwrap()).to_string())),
            _ => {
                return Err(Op2Error::new(
                    call,
                    obj("dat", &d.name),
                    format!(
                        "cannot dump type \"{}\" (double, float or int only)",
                        d.type_name
                    ),
                ))
            }
        }
        Ok(s)
    }

    /// Does the mesh still wait for `op_partition` (several processes, not
    /// partitioned yet)?
    pub fn partition_pending(&self) -> bool {
        self.dist.kind() == DistKind::Mpi && !self.dist.is_partitioned()
    }

    /// `op_partition`: every process's part of the mesh, its halos and
    /// exchange lists; the front end is told the mesh moved.
    pub fn partition(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        req: &PartitionRequest,
    ) -> Result<()> {
        self.finish_exchanges(m, call)?;
        // Partitioning moves host copies: device copies come back first.
        self.host_fresh_all(m, call)?;
        // Partitioning and halo construction use the library's own threads
        // (a rank's share of the cores), never a pool of their own; on a
        // single node there is nothing to partition and no thread starts.
        let work = match self.dist.kind() {
            DistKind::SingleNode => 0,
            DistKind::Mpi => usize::MAX,
        };
        let snapshot = self.partition_snapshot(req)?;
        let progress = self.partition_progress(req);
        let exec = self.exec.clone();
        let mut outcome = None;
        exec.install(work, &mut || {
            outcome = Some(self.dist.partition(&mut self.dom, req))
        });
        let outcome =
            outcome.ok_or_else(|| Op2Error::internal(call, "the executor did not partition"))??;
        progress.done();
        if let Some(s) = snapshot {
            self.partition_picture(s)?;
        }
        for msg in outcome.messages {
            self.say(&format!("\n {msg}\n"));
        }
        self.mesh_moved(m, call, true)
    }

    /// The progress lines of partitioning (rank 0, `OP_diags >= 2`, stderr
    /// a terminal).
    fn partition_progress(&self, req: &PartitionRequest) -> crate::progress::Progress {
        let diags = if self.dist.rank() == 0 {
            self.config.diags
        } else {
            0
        };
        let set = req
            .set
            .or_else(|| req.coords.map(|d| self.dom.dat(d).set))
            .map(|s| self.dom.set(s));
        let nranks = self.dist.nranks();
        crate::progress::Progress::start(diags, || match set {
            Some(s) if nranks == 1 => format!("partitioning {} ({} elements)", s.name, s.size),
            Some(s) => format!(
                "partitioning {} ({} elements on rank 0) over {nranks} processes",
                s.name, s.size
            ),
            None => format!("partitioning over {nranks} processes"),
        })
    }

    /// `op_renumber`: reorder the sets connected to `map` for locality
    /// (under MPI before partitioning: when the mesh is partitioned).
    pub fn renumber(&mut self, m: &mut dyn Mirror, call: &str, map: MapId) -> Result<()> {
        let mp = self.dom.map(map);
        if mp.dim == 0 || self.dom.set(mp.to).size == 0 {
            return Err(Op2Error::new(
                call,
                obj("map", &mp.name),
                "the map's to-set is empty: nothing to renumber",
            ));
        }
        // Nothing may hold the old positions: exchanges in flight finish,
        // the host copies are brought up to date.
        self.finish_exchanges(m, call)?;
        self.host_fresh_all(m, call)?;
        let report = self
            .dist
            .renumber(&mut self.dom, map)
            .map_err(|e| Op2Error::new(call, e.object, e.msg))?;
        let diags = self.config.diags > 0;
        match report {
            Some(r) => {
                if diags {
                    self.say(&format!(" {r}\n"));
                }
                self.mesh_moved(m, call, false)
            }
            None => {
                if diags {
                    self.say(" op_renumber: applied when the mesh is partitioned\n");
                }
                Ok(())
            }
        }
    }

    /// OP2's `op_mpi_reset_halos`: the import halos of these dats, where
    /// stale, are filled with NaN (a loop reading them before an exchange
    /// then shows it).
    pub fn reset_halos(&mut self, m: &mut dyn Mirror, call: &str, dats: &[DatId]) -> Result<()> {
        self.finish_exchanges(m, call)?;
        for &d in dats {
            if !self.dom.dat(d).halo_dirty {
                continue;
            }
            self.host_fresh(m, call, d)?;
            let dat = self.dom.dat(d);
            let nan: &[u8] = if dat.scalar == ScalarType::F32 {
                &f32::NAN.to_ne_bytes()
            } else {
                &f64::NAN.to_ne_bytes()
            };
            let nan = nan.to_vec();
            let (set, eb) = (dat.set, dat.elem_bytes);
            let (from, to) = {
                let s = self.dom.set(set);
                (s.size * eb, s.total_size() * eb)
            };
            let halo = &mut self.dom.dat_mut(d).data.as_mut_slice()[from..to];
            for c in halo.chunks_mut(nan.len()) {
                c.copy_from_slice(&nan[..c.len()]);
            }
            self.written_on(d, super::Side::Host);
            self.show_dat(m, d);
        }
        Ok(())
    }

    /// OP2's `op_dat_write_index`: every local element of an int dat on
    /// `set` (halos included) gets its 1-based local index.
    pub fn write_index(
        &mut self,
        m: &mut dyn Mirror,
        call: &str,
        id: DatId,
        set: SetId,
    ) -> Result<()> {
        let d = self.dom.dat(id);
        let o = obj("dat", &d.name);
        if d.set != set {
            return Err(Op2Error::new(
                call,
                o,
                format!(
                    "the dat is on set \"{}\", not on \"{}\"",
                    self.dom.set(d.set).name,
                    self.dom.set(set).name
                ),
            ));
        }
        if d.elem_bytes != 4 || d.scalar.size().is_some_and(|b| b != 4) {
            return Err(Op2Error::new(
                call,
                o,
                format!(
                    "the dat must hold one int per element (it holds {} bytes of \"{}\")",
                    d.elem_bytes, d.type_name
                ),
            ));
        }
        self.finish_exchanges(m, call)?;
        self.host_fresh(m, call, id)?;
        let n = self.dom.set(set).total_size();
        let bytes = self.dom.dat_mut(id).data.as_mut_slice();
        for (i, c) in bytes.chunks_exact_mut(4).take(n).enumerate() {
            c.copy_from_slice(&(i as i32 + 1).to_ne_bytes());
        }
        self.written_on(id, super::Side::Host);
        self.show_dat(m, id);
        Ok(())
    }
}

/// Create `path` for writing, buffered, with errors naming the call and dat.
fn create(call: &str, o: &str, path: &str) -> Result<std::io::BufWriter<std::fs::File>> {
    std::fs::File::create(path)
        .map(|f| std::io::BufWriter::with_capacity(1 << 20, f))
        .map_err(|e| io_err(call, o, path, e))
}
