//! Sets, maps and dats, and the checks OP2 applications get wrong.

use crate::aligned::AlignedBuf;
use crate::error::{obj, Op2Error, Result};
use crate::permute::{self, Renumbering};
use crate::types::{self, ScalarType};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetId(pub usize);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapId(pub usize);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DatId(pub usize);

/// A set of mesh elements. On a single node `core_size == size` and there is no halo.
#[derive(Debug, Clone)]
pub struct Set {
    pub name: String,
    /// Owned elements.
    pub size: usize,
    /// Owned elements that touch no halo (== size on one node).
    pub core_size: usize,
    /// Imported elements executed redundantly (MPI).
    pub exec_size: usize,
    /// Imported elements only read (MPI).
    pub nonexec_size: usize,
}

impl Set {
    /// Elements stored per dat on this set (owned + halos).
    pub fn total_size(&self) -> usize {
        self.size + self.exec_size + self.nonexec_size
    }
}

/// A map from each element of `from` to `dim` elements of `to`, row-major.
#[derive(Debug, Clone)]
pub struct Map {
    pub name: String,
    pub from: SetId,
    pub to: SetId,
    pub dim: usize,
    pub values: Vec<i32>,
    /// OP2's `force_part` (`op_force_part`): under MPI, the primary-set
    /// elements of one row of this map end on the same rank.
    pub force_part: bool,
}

/// Data on a set: `dim` scalars of `type_name` per element, 64-byte aligned.
#[derive(Debug)]
pub struct Dat {
    pub name: String,
    pub set: SetId,
    pub dim: usize,
    /// The type string as declared (e.g. `double`, `double:soa`, `r8`, a user type).
    pub type_name: String,
    pub scalar: ScalarType,
    /// Bytes per element (`dim * sizeof(T)`), OP2's `dat->size`.
    pub elem_bytes: usize,
    pub data: AlignedBuf,
    /// Declared with op_decl_dat_temp (may be freed with op_free_dat_temp).
    pub temp: bool,
    /// The halo copies (MPI exec and non-exec halo rows) may be out of date:
    /// a loop wrote the dat since its halo was last exchanged. OP2's
    /// `dirtybit`; set at declaration, as in OP2. The C ABI mirrors it.
    pub halo_dirty: bool,
    /// Which copies hold the current values when the dat also lives on a
    /// device (OP2's `dirty_hd`; always [`Fresh::Both`] without a device).
    pub fresh: Fresh,
    /// Declared with `op_decl_dat_overlay`: the dat whose storage this one
    /// shares (`data` is a borrowed view of it).
    pub overlay_of: Option<DatId>,
}

/// Where a dat's current values are, when it has a device copy. The device
/// backend moves data so that the host copy is fresh before any host read
/// and the device copy before any device read, and never copies a fresh one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fresh {
    /// Host and device agree (or there is no device copy).
    #[default]
    Both,
    /// The host copy is newer (written on the host since the last upload).
    Host,
    /// The device copy is newer (written on the device since the last download).
    Device,
}

impl Fresh {
    /// OP2's `dirty_hd` code: 0 in sync, 1 host newer, 2 device newer.
    pub fn dirty_hd(self) -> i32 {
        match self {
            Fresh::Both => 0,
            Fresh::Host => 1,
            Fresh::Device => 2,
        }
    }
}

/// The objects of one OP2 program. Ids are indices and are never reused.
#[derive(Debug, Default)]
pub struct Domain {
    sets: Vec<Set>,
    maps: Vec<Map>,
    dats: Vec<Option<Dat>>,
    /// Per set renumbered by `op_renumber` (by id): the declared position of
    /// the element now at each position (see [`Domain::set_order`]).
    orders: Vec<Option<Vec<u32>>>,
}

/// How map entries are given to `decl_map`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapCheck {
    /// Single node: every entry must lie in `[0, to.size)`.
    Local,
    /// Entries are global indices (MPI before partitioning); checked later.
    Deferred,
}

impl Domain {
    pub fn new() -> Domain {
        Domain::default()
    }

    pub fn sets(&self) -> &[Set] {
        &self.sets
    }
    pub fn maps(&self) -> &[Map] {
        &self.maps
    }
    pub fn set(&self, id: SetId) -> &Set {
        &self.sets[id.0]
    }
    pub fn set_mut(&mut self, id: SetId) -> &mut Set {
        &mut self.sets[id.0]
    }
    pub fn map(&self, id: MapId) -> &Map {
        &self.maps[id.0]
    }
    pub fn map_mut(&mut self, id: MapId) -> &mut Map {
        &mut self.maps[id.0]
    }
    /// A live dat (panics on a freed id: callers resolve ids from live handles).
    pub fn dat(&self, id: DatId) -> &Dat {
        self.dats[id.0]
            .as_ref()
            .expect("dat id refers to a freed temporary dat")
    }
    pub fn dat_mut(&mut self, id: DatId) -> &mut Dat {
        self.dats[id.0]
            .as_mut()
            .expect("dat id refers to a freed temporary dat")
    }
    pub fn dat_live(&self, id: DatId) -> Option<&Dat> {
        self.dats.get(id.0).and_then(|d| d.as_ref())
    }
    /// Live dats in declaration order.
    pub fn dats(&self) -> impl Iterator<Item = (DatId, &Dat)> {
        self.dats
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.as_ref().map(|d| (DatId(i), d)))
    }
    pub fn num_dat_slots(&self) -> usize {
        self.dats.len()
    }

    /// `op_decl_set`.
    pub fn decl_set(&mut self, size: i64, name: &str) -> Result<SetId> {
        if size < 0 {
            return Err(Op2Error::new(
                "op_decl_set",
                obj("set", name),
                format!("negative set size {size}"),
            ));
        }
        let size = usize::try_from(size)
            .map_err(|_| Op2Error::new("op_decl_set", obj("set", name), "set size too large"))?;
        if size > i32::MAX as usize {
            return Err(Op2Error::new(
                "op_decl_set",
                obj("set", name),
                format!("set size {size} exceeds the 32-bit index range"),
            ));
        }
        self.sets.push(Set {
            name: name.to_string(),
            size,
            core_size: size,
            exec_size: 0,
            nonexec_size: 0,
        });
        Ok(SetId(self.sets.len() - 1))
    }

    /// `op_decl_map`: copies `values` (length `from.size * dim`), subtracting `base`
    /// (1 for Fortran-style maps), and checks every entry against the to-set.
    #[allow(clippy::too_many_arguments)]
    pub fn decl_map(
        &mut self,
        from: SetId,
        to: SetId,
        dim: i32,
        values: &[i32],
        base: i32,
        name: &str,
        check: MapCheck,
    ) -> Result<MapId> {
        let mut vals = self.map_storage("op_decl_map", from, dim, name)?;
        vals.extend_from_slice(values);
        self.decl_map_vec(from, to, dim, vals, base, name, check)
    }

    /// An empty vector with room for the `from.size * dim` entries of a map,
    /// or OP2's error naming `call` and the map when that cannot be allocated.
    pub fn map_storage(&self, call: &str, from: SetId, dim: i32, name: &str) -> Result<Vec<i32>> {
        let err = |msg: String| Op2Error::new(call, obj("map", name), msg);
        if dim <= 0 {
            return Err(err(format!("dimension {dim} must be positive")));
        }
        let s = &self.sets[from.0];
        let what = || storage_of("from-set", &s.name, s.size, dim as usize, 4);
        let n = s.size.checked_mul(dim as usize);
        let bytes = n
            .and_then(|n| n.checked_mul(4))
            .filter(|&b| b <= isize::MAX as usize);
        let (Some(n), Some(bytes)) = (n, bytes) else {
            return Err(err(format!(
                "cannot allocate storage: {} overflows the address space",
                what()
            )));
        };
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| err(format!("cannot allocate {bytes} bytes ({})", what())))?;
        Ok(v)
    }

    /// 64-bit map entries (`op_decl_map_long`) narrowed to local indices in
    /// storage reserved like any map's (an entry that does not fit becomes
    /// -1, out of range).
    pub fn narrow_map(
        &self,
        call: &str,
        from: SetId,
        dim: i32,
        entries: &[i64],
        name: &str,
    ) -> Result<Vec<i32>> {
        let mut v = self.map_storage(call, from, dim, name)?;
        let n = self.sets[from.0].size * dim as usize;
        v.extend(
            entries[..n.min(entries.len())]
                .iter()
                .map(|&e| i32::try_from(e).unwrap_or(-1)),
        );
        Ok(v)
    }

    /// `op_decl_map` with the entries already copied into `vals` (see
    /// [`Domain::map_storage`]); `base` is subtracted in place.
    #[allow(clippy::too_many_arguments)]
    pub fn decl_map_vec(
        &mut self,
        from: SetId,
        to: SetId,
        dim: i32,
        mut vals: Vec<i32>,
        base: i32,
        name: &str,
        check: MapCheck,
    ) -> Result<MapId> {
        let err = |msg: String| Op2Error::new("op_decl_map", obj("map", name), msg);
        if dim <= 0 {
            return Err(err(format!("dimension {dim} must be positive")));
        }
        let dim = dim as usize;
        let nfrom = self.sets[from.0].size;
        let expect = nfrom * dim;
        if vals.len() != expect {
            return Err(err(format!(
                "{} entries given, from-set \"{}\" needs {} x {} = {expect}",
                vals.len(),
                self.sets[from.0].name,
                nfrom,
                dim
            )));
        }
        if base != 0 {
            for v in &mut vals {
                *v = v.wrapping_sub(base);
            }
        }
        if check == MapCheck::Local {
            check_map_range(&vals, dim, self.sets[to.0].size, base)
                .map_err(|m| err(format!("{m} of to-set \"{}\"", self.sets[to.0].name)))?;
        }
        // Declared after op_renumber: entries and rows in the declared
        // numbering become the current one.
        if let Some(order) = self.set_order(to) {
            permute::rename_entries(&mut vals, &permute::inverse(order));
        }
        if let Some(order) = self.set_order(from) {
            let order = order.to_vec();
            permute::permute_rows(permute::i32_bytes(&mut vals), dim * 4, &order);
        }
        self.maps.push(Map {
            name: name.to_string(),
            from,
            to,
            dim,
            values: vals,
            force_part: false,
        });
        Ok(MapId(self.maps.len() - 1))
    }

    /// `op_decl_dat` / `op_decl_dat_temp`. `data` holds `set.size` elements (or is
    /// `None`: zero-initialised). `type_size` is the size of one scalar.
    #[allow(clippy::too_many_arguments)]
    pub fn decl_dat(
        &mut self,
        call: &str,
        set: SetId,
        dim: i32,
        type_name: &str,
        type_size: i32,
        data: Option<&[u8]>,
        name: &str,
        temp: bool,
    ) -> Result<DatId> {
        let err = |msg: String| Op2Error::new(call, obj("dat", name), msg);
        if dim <= 0 {
            return Err(err(format!("dimension {dim} must be positive")));
        }
        if type_size <= 0 {
            return Err(err(format!(
                "element type size {type_size} must be positive"
            )));
        }
        let scalar = ScalarType::parse(type_name);
        if let Some(sz) = scalar.size() {
            if sz != type_size as usize {
                return Err(err(format!(
                    "type \"{type_name}\" has {sz}-byte elements but the data's elements have {type_size} bytes"
                )));
            }
        }
        let s = &self.sets[set.0];
        let elem_bytes = dim as usize * type_size as usize;
        let what = || {
            storage_of(
                "set",
                &s.name,
                s.total_size(),
                dim as usize,
                type_size as usize,
            )
        };
        let Some(len) = elem_bytes.checked_mul(s.total_size()) else {
            return Err(err(format!(
                "cannot allocate storage: {} overflows the address space",
                what()
            )));
        };
        let own = elem_bytes * s.size;
        if let Some(bytes) = data {
            if bytes.len() < own {
                return Err(err(format!(
                    "{} bytes of data given, set \"{}\" needs {own}",
                    bytes.len(),
                    s.name
                )));
            }
        }
        let mut buf = AlignedBuf::try_zeroed(len)
            .ok_or_else(|| err(format!("cannot allocate {len} bytes ({})", what())))?;
        if let Some(bytes) = data {
            buf.as_mut_slice()[..own].copy_from_slice(&bytes[..own]);
        }
        self.dats.push(Some(Dat {
            name: name.to_string(),
            set,
            dim: dim as usize,
            type_name: type_name.to_string(),
            scalar,
            elem_bytes,
            data: buf,
            temp,
            halo_dirty: true,
            fresh: Fresh::Both,
            overlay_of: None,
        }));
        Ok(DatId(self.dats.len() - 1))
    }

    /// `op_decl_dat_overlay`: a dat on `set` that shares the storage of
    /// `base` (OP2: same name, type and dim; `set`, halos included, may not
    /// hold more elements than `base`'s set). An overlay of an overlay
    /// shares the storage of the dat that owns it.
    pub fn decl_overlay(&mut self, call: &str, set: SetId, base: DatId) -> Result<DatId> {
        let b = self.dat(base);
        let (bs, ns) = (self.set(b.set), self.set(set));
        if ns.total_size() > bs.total_size() {
            return Err(Op2Error::new(
                call,
                obj("dat", &b.name),
                format!(
                    "set \"{}\" has {} elements (halos included), more than the {} of the dat's set \"{}\"",
                    ns.name,
                    ns.total_size(),
                    bs.total_size(),
                    bs.name
                ),
            ));
        }
        let owner = b.overlay_of.unwrap_or(base);
        let o = self.dat(owner);
        let len = ns.total_size() * b.elem_bytes;
        // SAFETY: the view covers `len <= o.data.len()` bytes of the owner's
        // storage; an owner with live overlays is never freed (free_temp
        // refuses) and the C layer refuses to repartition (move storage)
        // while overlays exist.
        let data = unsafe { AlignedBuf::borrowed(o.data.as_ptr() as *mut u8, len) }
            .ok_or_else(|| Op2Error::new(call, obj("dat", &b.name), "the dat has no storage"))?;
        let d = Dat {
            name: b.name.clone(),
            set,
            dim: b.dim,
            type_name: b.type_name.clone(),
            scalar: b.scalar,
            elem_bytes: b.elem_bytes,
            data,
            temp: false,
            halo_dirty: b.halo_dirty,
            fresh: b.fresh,
            overlay_of: Some(owner),
        };
        self.dats.push(Some(d));
        Ok(DatId(self.dats.len() - 1))
    }

    /// Live overlays sharing the storage of `id`.
    pub fn overlays_of(&self, id: DatId) -> impl Iterator<Item = (DatId, &Dat)> {
        self.dats().filter(move |(_, d)| d.overlay_of == Some(id))
    }

    /// Make a dat's storage the application's array `ptr` (OP2's
    /// `OP_NO_REALLOC`): the library then reads and writes it in place.
    ///
    /// # Safety
    /// `ptr` must hold the dat's `set.total_size() * elem_bytes` bytes,
    /// aligned for its scalar type, and stay valid while the dat uses it.
    pub unsafe fn use_in_place(&mut self, id: DatId, ptr: *mut u8) -> bool {
        let d = &self.dats[id.0];
        let Some(d) = d.as_ref() else { return false };
        let len = self.sets[d.set.0].total_size() * d.elem_bytes;
        // SAFETY: the caller's contract: `len` bytes at `ptr`, aligned, live.
        match unsafe { AlignedBuf::borrowed(ptr, len) } {
            Some(b) => {
                self.dat_mut(id).data = b;
                true
            }
            None => false,
        }
    }

    /// Where `op_renumber` moved a set's elements: `order[p]` is the declared
    /// position of the element now at position `p` (`None`: never renumbered).
    pub fn set_order(&self, s: SetId) -> Option<&[u32]> {
        self.orders.get(s.0).and_then(|o| o.as_deref())
    }

    /// Remember a renumbering just applied (composed with earlier ones), so
    /// that data declared later and data fetched keep the declared order.
    pub fn record_renumbering(&mut self, r: &Renumbering) {
        self.orders.resize(self.sets.len(), None);
        for (s, o) in r.orders.iter().enumerate() {
            let Some(o) = o else { continue };
            let n = self.sets[s].size;
            let prev = self.orders[s].take();
            let decl = |p: usize| prev.as_ref().map_or(p as u32, |v| v[p]);
            let mut total: Vec<u32> = o.iter().map(|&p| decl(p as usize)).collect();
            total.extend((o.len()..n).map(decl));
            self.orders[s] = Some(total);
        }
    }

    /// A dat just filled with data in the declared order of a renumbered
    /// set: its rows are moved to the current order.
    pub fn renumber_new_dat(&mut self, id: DatId) {
        let set = self.dat(id).set;
        if let Some(order) = self.set_order(set).map(<[u32]>::to_vec) {
            let d = self.dat_mut(id);
            let eb = d.elem_bytes;
            permute::permute_rows(d.data.as_mut_slice(), eb, &order);
        }
    }

    /// The owned rows of a dat in the declared order (undoing `op_renumber`).
    pub fn rows_in_declared_order(&self, id: DatId) -> Vec<u8> {
        let d = self.dat(id);
        let n = self.sets[d.set.0].size;
        let eb = d.elem_bytes;
        let data = &d.data.as_slice()[..n * eb];
        match self.set_order(d.set) {
            None => data.to_vec(),
            Some(order) => {
                let mut out = vec![0u8; n * eb];
                for (p, &decl) in order.iter().enumerate().take(n) {
                    let decl = decl as usize;
                    out[decl * eb..(decl + 1) * eb].copy_from_slice(&data[p * eb..(p + 1) * eb]);
                }
                out
            }
        }
    }

    /// OP2's tables of sets, maps and dats (`op_diagnostic_output`).
    pub fn describe(&self) -> String {
        let mut s = String::from("\n  OP diagnostic output\n  --------------------\n\n       set       size\n  -------------------\n");
        for set in self.sets() {
            s.push_str(&format!("{:>10} {:>10}\n", set.name, set.size));
        }
        s.push_str("\n       map        dim       from         to\n  -----------------------------------------\n");
        for m in self.maps() {
            s.push_str(&format!(
                "{:>10} {:>10} {:>10} {:>10}\n",
                m.name,
                m.dim,
                self.set(m.from).name,
                self.set(m.to).name
            ));
        }
        s.push_str("\n       dat        dim        set\n  ------------------------------\n");
        for (_, d) in self.dats() {
            s.push_str(&format!(
                "{:>10} {:>10} {:>10}\n",
                d.name,
                d.dim,
                self.set(d.set).name
            ));
        }
        s.push('\n');
        s
    }

    /// `op_free_dat_temp`: only temporary dats may be freed.
    pub fn free_temp(&mut self, id: DatId) -> Result<Dat> {
        match self.dats.get(id.0) {
            Some(Some(_)) => {
                let shared = self
                    .dats
                    .iter()
                    .flatten()
                    .find(|d| d.overlay_of == Some(id));
                if let Some(o) = shared {
                    let (dn, on) = (o.name.clone(), self.set(o.set).name.clone());
                    return Err(Op2Error::new(
                        "op_free_dat_temp",
                        obj("dat", &dn),
                        format!("an overlay of this dat on set \"{on}\" (op_decl_dat_overlay) still uses its storage"),
                    ));
                }
                let slot = &mut self.dats[id.0];
                if !slot.as_ref().is_some_and(|d| d.temp) {
                    let name = slot.as_ref().map(|d| d.name.clone()).unwrap_or_default();
                    return Err(Op2Error::new(
                        "op_free_dat_temp",
                        obj("dat", &name),
                        "not a temporary dat (declared with op_decl_dat, not op_decl_dat_temp)",
                    ));
                }
                Ok(slot.take().expect("checked above"))
            }
            _ => Err(Op2Error::new(
                "op_free_dat_temp",
                "",
                "dat was already freed",
            )),
        }
    }
}

/// `set "cells", 123 elements x dim 4 x 8 bytes`: what a storage request is made of.
fn storage_of(role: &str, set: &str, n: usize, dim: usize, size: usize) -> String {
    format!("{role} \"{set}\", {n} elements x dim {dim} x {size} bytes")
}

/// Check map entries against `[0, to_size)`. The message names the first bad
/// entry (in the caller's numbering, i.e. with `base` added back) and how many there are.
pub fn check_map_range(
    vals: &[i32],
    dim: usize,
    to_size: usize,
    base: i32,
) -> std::result::Result<(), String> {
    let bad = |v: i32| v < 0 || v as i64 >= to_size as i64;
    if let Some(pos) = vals.iter().position(|&v| bad(v)) {
        let nbad = vals.iter().filter(|&&v| bad(v)).count();
        let v = vals[pos] as i64 + base as i64;
        let what = if vals[pos] < 0 {
            "negative"
        } else {
            "out of range"
        };
        return Err(format!(
            "entry {v} at element {} column {} is {what} ({nbad} bad entr{} in all); valid entries are {}..{}",
            pos / dim,
            pos % dim,
            if nbad == 1 { "y" } else { "ies" },
            base,
            to_size as i64 - 1 + base as i64
        ));
    }
    Ok(())
}

/// Is `t` a type string the dat accepts for an argument?
pub fn dat_type_matches(dat: &Dat, t: &str) -> bool {
    types::equivalent(&dat.type_name, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> (Domain, SetId, SetId) {
        let mut d = Domain::new();
        let nodes = d.decl_set(4, "nodes").unwrap();
        let edges = d.decl_set(3, "edges").unwrap();
        (d, nodes, edges)
    }

    #[test]
    fn negative_set_size_is_an_error() {
        let mut d = Domain::new();
        let e = d.decl_set(-3, "cells").unwrap_err();
        assert_eq!(e.call, "op_decl_set");
        assert!(e.to_string().contains("set \"cells\""), "{e}");
        assert!(e.to_string().contains("negative"));
        assert!(d.decl_set(0, "empty").is_ok());
    }

    #[test]
    fn map_range_checked() {
        let (mut d, nodes, edges) = small();
        assert!(d
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 1, 2, 2, 3],
                0,
                "ok",
                MapCheck::Local
            )
            .is_ok());
        let e = d
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 1, 4, 2, -1],
                0,
                "pedge",
                MapCheck::Local,
            )
            .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("map \"pedge\""), "{s}");
        assert!(s.contains("entry 4 at element 1 column 1"), "{s}");
        assert!(s.contains("2 bad entries"), "{s}");
        assert!(s.contains("\"nodes\""), "{s}");
        let e = d
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, -1, 1, 2, 3],
                0,
                "neg",
                MapCheck::Local,
            )
            .unwrap_err();
        assert!(e.to_string().contains("negative"));
        // deferred: global indices are not checked here
        assert!(d
            .decl_map(
                edges,
                nodes,
                2,
                &[0, 1, 1, 9, 2, 3],
                0,
                "g",
                MapCheck::Deferred
            )
            .is_ok());
    }

    #[test]
    fn fortran_base_is_subtracted() {
        let (mut d, nodes, edges) = small();
        let m = d
            .decl_map(
                edges,
                nodes,
                2,
                &[1, 2, 2, 3, 3, 4],
                1,
                "f",
                MapCheck::Local,
            )
            .unwrap();
        assert_eq!(d.map(m).values, vec![0, 1, 1, 2, 2, 3]);
        let e = d
            .decl_map(edges, nodes, 1, &[0, 1, 2], 1, "f0", MapCheck::Local)
            .unwrap_err();
        assert!(e.to_string().contains("entry 0 "), "{e}");
    }

    #[test]
    fn overlays_share_storage() {
        let (mut d, nodes, edges) = small();
        let data: Vec<u8> = (0..4 * 8).map(|i| i as u8).collect();
        let x = d
            .decl_dat("op_decl_dat", nodes, 1, "double", 8, Some(&data), "x", true)
            .unwrap();
        let o = d.decl_overlay("op_decl_dat_overlay", edges, x).unwrap();
        assert_eq!(d.dat(o).data.as_ptr(), d.dat(x).data.as_ptr());
        assert_eq!(d.dat(o).data.len(), 3 * 8);
        d.dat_mut(o).data.as_mut_slice()[0] = 99;
        assert_eq!(d.dat(x).data.as_slice()[0], 99);
        // an overlay of an overlay belongs to the owner
        let oo = d.decl_overlay("op_decl_dat_overlay", edges, o).unwrap();
        assert_eq!(d.dat(oo).overlay_of, Some(x));
        let e = d
            .decl_overlay("op_decl_dat_overlay", nodes, oo)
            .unwrap_err();
        assert!(e.to_string().contains("more than the 3"), "{e}");
        let y = d
            .decl_dat("op_decl_dat", edges, 1, "double", 8, None, "y", false)
            .unwrap();
        let e = d.decl_overlay("op_decl_dat_overlay", nodes, y).unwrap_err();
        assert!(e.to_string().contains("more than the 3"), "{e}");
        let e = d.free_temp(x).unwrap_err();
        assert!(e.to_string().contains("overlay"), "{e}");
    }

    #[test]
    fn dat_checks() {
        let (mut d, nodes, _) = small();
        let data: Vec<u8> = (0..4 * 2 * 8).map(|i| i as u8).collect();
        let x = d
            .decl_dat(
                "op_decl_dat",
                nodes,
                2,
                "double",
                8,
                Some(&data),
                "x",
                false,
            )
            .unwrap();
        assert_eq!(d.dat(x).data.as_slice(), &data[..]);
        assert_eq!(d.dat(x).elem_bytes, 16);
        let e = d
            .decl_dat("op_decl_dat", nodes, 2, "double", 4, None, "y", false)
            .unwrap_err();
        assert!(e.to_string().contains("dat \"y\""));
        assert!(d
            .decl_dat("op_decl_dat", nodes, 0, "double", 8, None, "z", false)
            .is_err());
        let e = d.free_temp(x).unwrap_err();
        assert!(e.to_string().contains("not a temporary"));
        let t = d
            .decl_dat("op_decl_dat_temp", nodes, 1, "int", 4, None, "t", true)
            .unwrap();
        assert!(d.free_temp(t).is_ok());
        assert!(d.free_temp(t).is_err());
        assert!(d.dat_live(t).is_none());
    }
}
