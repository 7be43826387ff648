//! OP2's objects in an HDF5 file (see the crate docs and op2-rs's README):
//!
//! * set: 1-element `int` dataset named after the set, holding its size;
//! * map: `[from size][dim]` `int` (or 64-bit) with attributes `size`,
//!   `dim` (`int`, 1 element) and `type` (10-byte NULLTERM string);
//! * dat: `[set size][dim]` of the native type of its type string, with
//!   `size` (bytes per element), `dim` and `type` (`strlen(type)` bytes, the
//!   type string as declared);
//! * constant: `[dim]` with `dim` and `type` (`strlen` of the given type
//!   string, holding the canonical C name cut to that length).

use crate::file::{Dataset, H5File};
use crate::types::ElemType;
use crate::Error;
use std::ops::Range;

/// Bytes of the `type` attribute of a map (OP2's fixed 10).
pub const MAP_TYPE_ATTR_BYTES: usize = 10;

/// How the elements of a set are spread over processes.
pub trait RowDist {
    /// The rows this process declares of a set of `global` elements.
    fn block(&self, global: u64) -> Range<u64>;
    /// The rows held by this process when it holds `local` elements of a set
    /// (its block in rank order), and the set's global size.
    fn rows_of(&self, local: u64) -> Result<(Range<u64>, u64), Error>;
}

/// One process holds every row.
#[derive(Clone, Copy, Debug, Default)]
pub struct Serial;

impl RowDist for Serial {
    fn block(&self, global: u64) -> Range<u64> {
        0..global
    }
    fn rows_of(&self, local: u64) -> Result<(Range<u64>, u64), Error> {
        Ok((0..local, local))
    }
}

/// OP2's block of rank `rank` of `nranks` for a set of `global` elements
/// (equal weights): `[⌊g·r/P⌋, ⌊g·(r+1)/P⌋)` in double arithmetic, the last
/// rank ending at `global`.
pub fn op2_block(global: u64, rank: u32, nranks: u32) -> Range<u64> {
    let at = |r: u32| ((global as f64) * f64::from(r) / f64::from(nranks)).floor() as u64;
    let end = if rank + 1 == nranks {
        global
    } else {
        at(rank + 1)
    };
    at(rank)..end
}

/// Map values as stored: `int`, or 64-bit when the dataset is wider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapData {
    /// 4-byte entries
    Int(Vec<i32>),
    /// 8-byte entries (OP2's `op_decl_map_long`)
    Long(Vec<i64>),
}

fn to_bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: plain integer values viewed as their bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

fn to_bytes_mut<T: Copy>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: plain integer values: any bytes are valid.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), std::mem::size_of_val(v)) }
}

/// An `int` attribute value from a size (an error if it does not fit).
fn as_int(f: &H5File, ds: &str, what: &str, v: u64) -> Result<i32, Error> {
    i32::try_from(v).map_err(|_| f.err(ds, format!("{what} {v} does not fit an int")))
}

/// The type string's element type, or OP2's error.
pub fn elem_of(type_str: &str) -> Result<ElemType, Error> {
    ElemType::from_type_string(type_str).ok_or_else(|| {
        Error::new(format!(
            "unsupported type \"{type_str}\" (OP2's HDF5 I/O takes double, float, int, long, long long and their :soa and Fortran spellings)"
        ))
    })
}

/// Check that `ds` is `[rows][dim]` (a 1-D dataset counts as dim 1).
fn check_shape(f: &H5File, ds: &Dataset, rows: u64, dim: usize, what: &str) -> Result<(), Error> {
    if ds.dims.is_empty() || ds.dims.len() > 2 {
        return Err(f.err(
            ds.name(),
            format!("has rank {}, a {what} is 2-D [size][dim]", ds.dims.len()),
        ));
    }
    if ds.cols() != dim as u64 {
        return Err(f.err(
            ds.name(),
            format!("has dim {} (columns), the {what} has dim {dim}", ds.cols()),
        ));
    }
    if ds.rows() != rows {
        return Err(f.err(
            ds.name(),
            format!(
                "has {} rows, the {what}'s {} has {rows} elements",
                ds.rows(),
                if what == "map" { "from-set" } else { "set" }
            ),
        ));
    }
    Ok(())
}

impl H5File {
    /// The rows of a set declared from its size dataset `name` (one integer).
    pub fn read_set_size(&self, name: &str, dist: &dyn RowDist) -> Result<Range<u64>, Error> {
        let ds = self.require(name)?;
        if ds.dims.iter().product::<u64>() != 1 || ds.dims.len() > 1 {
            return Err(self.err(
                name,
                format!("has extent {:?}, a set size is one integer", ds.dims),
            ));
        }
        if !matches!(ds.stored, Some(ElemType::Int | ElemType::Long)) {
            return Err(self.err(name, "is not an integer (a set size)".into()));
        }
        let mut v = [0i64; 1];
        self.read_rows(&ds, 0..1, ElemType::LongLong, to_bytes_mut(&mut v))?;
        let g = u64::try_from(v[0])
            .map_err(|_| self.err(name, format!("holds a negative set size {}", v[0])))?;
        Ok(dist.block(g))
    }

    /// The rows of a set sized by the first extent of dataset `name`.
    pub fn infer_set_size(&self, name: &str, dist: &dyn RowDist) -> Result<Range<u64>, Error> {
        let ds = self.require(name)?;
        if ds.dims.is_empty() {
            return Err(self.err(name, "is a scalar: no first extent".into()));
        }
        Ok(dist.block(ds.rows()))
    }

    /// Read this process's rows of map `name` (`None`: no such dataset).
    pub fn read_map(
        &self,
        name: &str,
        dim: usize,
        from_local: u64,
        dist: &dyn RowDist,
    ) -> Result<Option<MapData>, Error> {
        let Some(ds) = self.dataset(name)? else {
            return Ok(None);
        };
        let (rows, global) = dist.rows_of(from_local)?;
        check_shape(self, &ds, global, dim, "map")?;
        let n = (rows.end - rows.start) as usize * dim;
        match ds.stored {
            Some(ElemType::Int) => {
                let mut v = vec![0i32; n];
                self.read_rows(&ds, rows, ElemType::Int, to_bytes_mut(&mut v))?;
                Ok(Some(MapData::Int(v)))
            }
            Some(ElemType::Long | ElemType::LongLong) => {
                let mut v = vec![0i64; n];
                self.read_rows(&ds, rows, ElemType::LongLong, to_bytes_mut(&mut v))?;
                Ok(Some(MapData::Long(v)))
            }
            _ => Err(self.err(name, "does not hold integers (a map)".into())),
        }
    }

    /// Read this process's rows of dat `name` as `type_str` (`None`: no such
    /// dataset); `warn` gets OP2's conversion notice when the stored type differs.
    pub fn read_dat(
        &self,
        name: &str,
        dim: usize,
        type_str: &str,
        set_local: u64,
        dist: &dyn RowDist,
        warn: &mut dyn FnMut(String),
    ) -> Result<Option<Vec<u8>>, Error> {
        let elem = elem_of(type_str)?;
        let Some(ds) = self.dataset(name)? else {
            return Ok(None);
        };
        let stored = ds
            .stored
            .ok_or_else(|| self.err(name, "has a datatype OP2 does not know".into()))?;
        let (rows, global) = dist.rows_of(set_local)?;
        check_shape(self, &ds, global, dim, "dat")?;
        self.conversion_notice(&ds, stored, elem, type_str, warn);
        let mut out = vec![0u8; (rows.end - rows.start) as usize * dim * elem.size()];
        self.read_rows(&ds, rows, elem, &mut out)?;
        Ok(Some(out))
    }

    fn conversion_notice(
        &self,
        ds: &Dataset,
        stored: ElemType,
        elem: ElemType,
        type_str: &str,
        warn: &mut dyn FnMut(String),
    ) {
        if stored.size() != elem.size() || is_float(stored) != is_float(elem) {
            warn(format!(
                "dataset \"{}\" in file \"{}\" holds {}, read as {type_str}: converting",
                ds.name(),
                self.path(),
                stored.c_name()
            ));
        }
    }

    /// Read constant `name` (`dim` values) as `type_str` (`None`: no such dataset).
    pub fn read_const(
        &self,
        name: &str,
        dim: usize,
        type_str: &str,
        warn: &mut dyn FnMut(String),
    ) -> Result<Option<Vec<u8>>, Error> {
        let elem = elem_of(type_str)?;
        let Some(ds) = self.dataset(name)? else {
            return Ok(None);
        };
        let stored = ds
            .stored
            .ok_or_else(|| self.err(name, "has a datatype OP2 does not know".into()))?;
        let held = ds.dims.iter().product::<u64>();
        let file_dim = match ds.read_int_attr("dim")? {
            Some(d) => i64::from(d),
            None => held as i64,
        };
        if file_dim != dim as i64 || held != dim as u64 {
            return Err(self.err(
                name,
                format!("holds a constant of dim {file_dim}, dim {dim} asked for"),
            ));
        }
        self.conversion_notice(&ds, stored, elem, type_str, warn);
        let mut out = vec![0u8; dim * elem.size()];
        self.read_rows(&ds, 0..ds.rows(), elem, &mut out)?;
        Ok(Some(out))
    }

    /// Write constant `name`: `[dim]` of the type's native type, attributes
    /// `dim` and `type` (OP2's form). An existing dataset of that name is an error.
    pub fn write_const(
        &self,
        name: &str,
        dim: usize,
        type_str: &str,
        data: &[u8],
    ) -> Result<(), Error> {
        let elem = elem_of(type_str)?;
        if self.exists(name)? {
            return Err(self.err(name, "already exists".into()));
        }
        let ds = self.create_dataset(name, &[dim as u64], elem)?;
        self.write_rows(&ds, 0..dim as u64, elem, &data[..dim * elem.size()])?;
        ds.write_int_attr("dim", as_int(self, name, "dim", dim as u64)?)?;
        // OP2 sizes the string by the given type string and stores the
        // canonical name in it (cut to that size: "real" holds "floa").
        let len = type_str.len();
        let canon = elem.c_name();
        ds.write_str_attr("type", &canon[..canon.len().min(len)], len)
    }

    /// Write a set's size dataset.
    pub fn write_set(&self, name: &str, size: u64) -> Result<(), Error> {
        let v = [i64::from(as_int(self, name, "set size", size)?)];
        let ds = self.create_dataset(name, &[1], ElemType::Int)?;
        self.write_rows(&ds, 0..1, ElemType::LongLong, to_bytes(&v))
    }

    /// Create map `name` (`[rows][dim]` with `size`, `dim`, `type`); write rows with [`Self::write_map_rows`].
    pub fn create_map(
        &self,
        name: &str,
        rows: u64,
        dim: usize,
        wide: bool,
    ) -> Result<Dataset, Error> {
        let elem = if wide {
            ElemType::LongLong
        } else {
            ElemType::Int
        };
        let ds = self.create_dataset(name, &[rows, dim as u64], elem)?;
        ds.write_int_attr("size", as_int(self, name, "size", rows)?)?;
        ds.write_int_attr("dim", as_int(self, name, "dim", dim as u64)?)?;
        ds.write_str_attr("type", elem.c_name(), MAP_TYPE_ATTR_BYTES)?;
        Ok(ds)
    }

    /// Write rows `rows` of a map created by [`Self::create_map`].
    pub fn write_map_rows(
        &self,
        ds: &Dataset,
        rows: Range<u64>,
        data: &MapData,
    ) -> Result<(), Error> {
        match data {
            MapData::Int(v) => self.write_rows(ds, rows, ElemType::Int, to_bytes(v)),
            MapData::Long(v) => self.write_rows(ds, rows, ElemType::LongLong, to_bytes(v)),
        }
    }

    /// Create dat dataset `path` (`[rows][dim]` of the type's native type,
    /// attributes `size` = bytes per element, `dim`, `type` = the type string).
    pub fn create_dat(
        &self,
        path: &str,
        rows: u64,
        dim: usize,
        type_str: &str,
    ) -> Result<Dataset, Error> {
        let elem = elem_of(type_str)?;
        let ds = self.create_dataset(path, &[rows, dim as u64], elem)?;
        let bytes = (dim * elem.size()) as u64;
        ds.write_int_attr("size", as_int(self, path, "size", bytes)?)?;
        ds.write_int_attr("dim", as_int(self, path, "dim", dim as u64)?)?;
        ds.write_str_attr("type", type_str, type_str.len())?;
        Ok(ds)
    }

    /// Open an existing dat dataset at `path` for overwriting: its `size`,
    /// `dim` and `type` attributes must be there and match, and its shape too.
    pub fn open_dat_for_update(
        &self,
        path: &str,
        rows: u64,
        dim: usize,
        type_str: &str,
    ) -> Result<Dataset, Error> {
        let elem = elem_of(type_str)?;
        let ds = self.require(path)?;
        let missing =
            |a: &str| self.err(path, format!("has no attribute \"{a}\": cannot check it"));
        let size = ds.read_int_attr("size")?.ok_or_else(|| missing("size"))?;
        let fdim = ds.read_int_attr("dim")?.ok_or_else(|| missing("dim"))?;
        let ftype = ds.read_str_attr("type")?.ok_or_else(|| missing("type"))?;
        if i64::from(size) != (dim * elem.size()) as i64 || fdim != dim as i32 {
            return Err(self.err(
                path,
                format!(
                    "holds size {size}, dim {fdim}; the dat has size {}, dim {dim}",
                    dim * elem.size()
                ),
            ));
        }
        if !crate::types_equivalent(&ftype, type_str) {
            return Err(self.err(
                path,
                format!("holds type {ftype}, the dat has type {type_str}"),
            ));
        }
        check_shape(self, &ds, rows, dim, "dat")?;
        Ok(ds)
    }
}

fn is_float(t: ElemType) -> bool {
    matches!(t, ElemType::Float | ElemType::Double)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op2_blocks_cover_the_set() {
        for g in [0u64, 1, 7, 10, 721_801] {
            for p in 1..=5u32 {
                let mut next = 0;
                for r in 0..p {
                    let b = op2_block(g, r, p);
                    assert_eq!(b.start, next);
                    next = b.end;
                }
                assert_eq!(next, g);
            }
        }
        assert_eq!(op2_block(10, 1, 3), 3..6);
    }
}
