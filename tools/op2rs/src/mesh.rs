//! An OP2-layout HDF5 file read whole: every dataset classified as a set, a
//! map, a dat or a constant, the set of each map and dat inferred (OP2's
//! files do not record it) or taken from `--set`, and every inconsistency
//! collected as a problem.

use op2_hdf5_io::{ElemType, H5File, Mode};
use std::collections::BTreeMap;

/// Bytes of the `type` attribute OP2 writes on a map.
const MAP_TYPE_BYTES: usize = 10;

/// A set: a 1-element integer dataset holding its size.
#[derive(Clone, Debug)]
pub struct Set {
    pub name: String,
    pub size: u64,
}

/// Which set a map or dat lives on, and how that was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// named with `--set`
    Given(String),
    /// the one set that fits
    Inferred(String),
    /// several sets fit: the first is used, the others are listed
    Ambiguous(String, Vec<String>),
    /// no set fits
    Unknown,
}

impl Binding {
    /// The set used, if any.
    pub fn set(&self) -> Option<&str> {
        match self {
            Binding::Given(s) | Binding::Inferred(s) | Binding::Ambiguous(s, _) => Some(s),
            Binding::Unknown => None,
        }
    }

    /// `cells`, `cells (given)`, `cells? (also fits: nodes)`, `?`.
    pub fn describe(&self) -> String {
        match self {
            Binding::Given(s) => format!("{s} (--set)"),
            Binding::Inferred(s) => s.clone(),
            Binding::Ambiguous(s, o) => format!("{s}? (also fits: {})", o.join(", ")),
            Binding::Unknown => "?".to_string(),
        }
    }
}

/// A map: `[from size][dim]` integers.
#[derive(Clone, Debug)]
pub struct Map {
    pub name: String,
    pub rows: u64,
    pub dim: usize,
    pub wide: bool,
    pub values: Vec<i64>,
    pub from: Binding,
    pub to: Binding,
}

impl Map {
    /// The first entry outside `[0, size)`: (element, entry, value), and how many there are.
    pub fn out_of_range(&self, size: u64) -> Option<(usize, usize, i64, usize)> {
        let bad = |v: i64| v < 0 || v as u64 >= size;
        let count = self.values.iter().filter(|&&v| bad(v)).count();
        let i = self.values.iter().position(|&v| bad(v))?;
        Some((
            i / self.dim.max(1),
            i % self.dim.max(1),
            self.values[i],
            count,
        ))
    }
}

/// A dat: `[set size][dim]` values with its type string.
#[derive(Clone, Debug)]
pub struct Dat {
    pub name: String,
    pub rows: u64,
    pub dim: usize,
    pub type_str: String,
    pub elem: ElemType,
    /// every value, converted to double (row-major)
    pub values: Vec<f64>,
    /// every value of an integer dat, exact (empty for a floating-point dat)
    pub ints: Vec<i64>,
    pub set: Binding,
}

/// Is `e` an integer type?
pub fn is_int(e: ElemType) -> bool {
    matches!(e, ElemType::Int | ElemType::Long | ElemType::LongLong)
}

/// The smallest and largest value of each of `dim` columns of `data`
/// (rows of `dim` values), starting from `ext`.
fn column_bounds<T: Copy>(
    data: &[T],
    dim: usize,
    ext: (T, T),
    lo: fn(T, T) -> T,
    hi: fn(T, T) -> T,
) -> Vec<(T, T)> {
    let mut mm = vec![ext; dim];
    for row in data.chunks(dim) {
        for (m, &v) in mm.iter_mut().zip(row) {
            *m = (lo(m.0, v), hi(m.1, v));
        }
    }
    mm
}

impl Dat {
    /// Minimum and maximum of each component of an integer dat, exact.
    pub fn int_min_max(&self) -> Option<Vec<(i64, i64)>> {
        if self.ints.is_empty() || self.dim == 0 {
            return None;
        }
        let ext = (i64::MAX, i64::MIN);
        Some(column_bounds(&self.ints, self.dim, ext, i64::min, i64::max))
    }

    /// Minimum and maximum of each component (`None` for an empty dat).
    pub fn min_max(&self) -> Option<Vec<(f64, f64)>> {
        if self.rows == 0 || self.dim == 0 {
            return None;
        }
        let ext = (f64::INFINITY, f64::NEG_INFINITY);
        Some(column_bounds(
            &self.values,
            self.dim,
            ext,
            f64::min,
            f64::max,
        ))
    }
}

/// A constant: `[dim]` values.
#[derive(Clone, Debug)]
pub struct Const {
    pub name: String,
    pub dim: usize,
    pub type_str: String,
    pub values: Vec<f64>,
}

/// A whole file.
#[derive(Debug, Default)]
pub struct Mesh {
    pub path: String,
    pub sets: Vec<Set>,
    pub maps: Vec<Map>,
    pub dats: Vec<Dat>,
    pub consts: Vec<Const>,
    /// inconsistencies: each a line naming the object
    pub problems: Vec<String>,
}

/// `--set` bindings: object name to (set, optional to-set).
pub type Bindings = BTreeMap<String, (String, Option<String>)>;

/// Parse `--set` values: `DAT=SET` or `MAP=FROM:TO` (`MAP=FROM` or `MAP=:TO` too).
pub fn parse_bindings(items: &[String]) -> Result<Bindings, String> {
    let mut out = Bindings::new();
    for item in items {
        let Some((obj, rest)) = item.split_once('=') else {
            return Err(format!("--set '{item}': expected NAME=SET or MAP=FROM:TO"));
        };
        let (set, to) = match rest.split_once(':') {
            Some((f, t)) => (f.to_string(), Some(t.to_string())),
            None => (rest.to_string(), None),
        };
        if obj.is_empty() || (set.is_empty() && to.as_deref().is_none_or(str::is_empty)) {
            return Err(format!("--set '{item}': expected NAME=SET or MAP=FROM:TO"));
        }
        out.insert(obj.to_string(), (set, to));
    }
    Ok(out)
}

/// What one dataset is, before the sets are bound.
enum Raw {
    Set(Set),
    Map(Map),
    Dat(Dat),
    Const(Const),
}

/// Every dataset path in the file (groups walked), without the leading `/`.
fn dataset_paths(path: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let file = hdf5::File::open(path).map_err(|e| format!("file '{path}': {e}"))?;
    let mut found = Vec::new();
    let mut odd = Vec::new();
    let root: hdf5::Group = (*file).clone();
    let mut todo = vec![(String::new(), root)];
    while let Some((prefix, group)) = todo.pop() {
        let names = group
            .member_names()
            .map_err(|e| format!("file '{path}': cannot list group '/{prefix}': {e}"))?;
        for name in names {
            let full = format!("{prefix}{name}");
            if group.dataset(&name).is_ok() {
                found.push(full);
            } else if let Ok(g) = group.group(&name) {
                todo.push((format!("{full}/"), g));
            } else {
                odd.push(format!(
                    "'{full}' is neither a dataset nor a group: not OP2's layout"
                ));
            }
        }
    }
    found.sort();
    Ok((found, odd))
}

/// Byte size of a string attribute's type (`None` when absent or not a string).
fn str_attr_bytes(path: &str, ds: &str, attr: &str) -> Option<usize> {
    let file = hdf5::File::open(path).ok()?;
    let a = file.dataset(ds).ok()?.attr(attr).ok()?;
    Some(a.dtype().ok()?.size())
}

/// A map's `type` is the C name of an integer type in OP2's 10 bytes, and
/// its `size` is its row count (a dat's `size` is bytes per element). A
/// shorter `type` attribute still makes a map when `size` says so alone.
fn looks_like_map(
    f: &H5File,
    ds: &op2_hdf5_io::Dataset,
    name: &str,
    size: i32,
    dim: i32,
    ty: &str,
) -> bool {
    let bytes = match ty {
        "int" => 4,
        "long" | "long long" => 8,
        _ => return false,
    };
    if str_attr_bytes(f.path(), name, "type") == Some(MAP_TYPE_BYTES) {
        return true;
    }
    i64::from(size) == ds.rows() as i64 && i64::from(size) != i64::from(dim) * bytes
}

/// Read and classify the dataset `name`.
fn classify(f: &H5File, name: &str) -> Result<Raw, String> {
    let ds = f.require(name).map_err(|e| e.msg)?;
    let attr_err = |e: op2_hdf5_io::Error| format!("dataset '{name}': {}", e.msg);
    let size = ds.read_int_attr("size").map_err(attr_err)?;
    let dim = ds.read_int_attr("dim").map_err(attr_err)?;
    let ty = ds.read_str_attr("type").map_err(attr_err)?;
    match (size, dim, ty) {
        (None, None, None) => read_set(f, &ds, name),
        (Some(size), Some(dim), Some(ty)) => {
            let is_map = looks_like_map(f, &ds, name, size, dim, &ty);
            if is_map {
                read_map(f, &ds, name, size, dim)
            } else {
                read_dat(f, &ds, name, size, dim, &ty)
            }
        }
        (None, Some(dim), Some(ty)) => read_const(f, &ds, name, dim, &ty),
        (s, d, t) => {
            let have: Vec<&str> = [
                ("size", s.is_some()),
                ("dim", d.is_some()),
                ("type", t.is_some()),
            ]
            .iter()
            .filter(|x| x.1)
            .map(|x| x.0)
            .collect();
            Err(format!(
                "dataset '{name}' has attribute(s) {} but not the others of size/dim/type: not OP2's layout",
                have.join(", ")
            ))
        }
    }
}

fn read_set(f: &H5File, ds: &op2_hdf5_io::Dataset, name: &str) -> Result<Raw, String> {
    let one = ds.dims.iter().product::<u64>() == 1 && ds.dims.len() <= 1;
    if !one || !matches!(ds.stored, Some(ElemType::Int | ElemType::Long)) {
        return Err(format!(
            "dataset '{name}' (extent {:?}) has no size/dim/type attributes and is not a 1-element integer (a set size): not OP2's layout",
            ds.dims
        ));
    }
    let r = f
        .read_set_size(name, &op2_hdf5_io::Serial)
        .map_err(|e| format!("set '{name}': {}", e.msg))?;
    Ok(Raw::Set(Set {
        name: name.to_string(),
        size: r.end,
    }))
}

/// Check that `ds` is `[rows][dim]`.
fn check_2d(ds: &op2_hdf5_io::Dataset, what: &str, name: &str, dim: i32) -> Result<usize, String> {
    if ds.dims.is_empty() || ds.dims.len() > 2 {
        return Err(format!(
            "{what} '{name}' has rank {}, OP2 writes [size][dim]",
            ds.dims.len()
        ));
    }
    if dim < 1 || ds.cols() != dim as u64 {
        return Err(format!(
            "{what} '{name}' has {} column(s), its attribute dim is {dim}",
            ds.cols()
        ));
    }
    Ok(dim as usize)
}

fn read_map(
    f: &H5File,
    ds: &op2_hdf5_io::Dataset,
    name: &str,
    size: i32,
    dim: i32,
) -> Result<Raw, String> {
    let dim = check_2d(ds, "map", name, dim)?;
    if i64::from(size) != ds.rows() as i64 {
        return Err(format!(
            "map '{name}' has {} rows, its attribute size is {size}",
            ds.rows()
        ));
    }
    if !matches!(ds.stored, Some(ElemType::Int | ElemType::Long)) {
        return Err(format!("map '{name}' does not hold integers"));
    }
    let mut values = vec![0i64; ds.rows() as usize * dim];
    f.read_rows(
        ds,
        0..ds.rows(),
        ElemType::LongLong,
        as_bytes_mut(&mut values),
    )
    .map_err(|e| format!("map '{name}': {}", e.msg))?;
    Ok(Raw::Map(Map {
        name: name.to_string(),
        rows: ds.rows(),
        dim,
        wide: ds.stored == Some(ElemType::Long),
        values,
        from: Binding::Unknown,
        to: Binding::Unknown,
    }))
}

fn read_dat(
    f: &H5File,
    ds: &op2_hdf5_io::Dataset,
    name: &str,
    size: i32,
    dim: i32,
    ty: &str,
) -> Result<Raw, String> {
    let elem = ElemType::from_type_string(ty)
        .ok_or_else(|| format!("dat '{name}' has type \"{ty}\", which OP2 does not know"))?;
    let dim = check_2d(ds, "dat", name, dim)?;
    if i64::from(size) != (dim * elem.size()) as i64 {
        return Err(format!(
            "dat '{name}' has attribute size {size}, {dim} × {ty} is {} bytes",
            dim * elem.size()
        ));
    }
    if ds.stored.is_none() {
        return Err(format!("dat '{name}' has a datatype OP2 does not know"));
    }
    let n = ds.rows() as usize * dim;
    let read_err = |e: op2_hdf5_io::Error| format!("dat '{name}': {}", e.msg);
    let (values, ints) = if is_int(elem) {
        let mut ints = vec![0i64; n];
        f.read_rows(
            ds,
            0..ds.rows(),
            ElemType::LongLong,
            as_bytes_mut(&mut ints),
        )
        .map_err(read_err)?;
        (ints.iter().map(|&v| v as f64).collect(), ints)
    } else {
        let mut values = vec![0f64; n];
        f.read_rows(
            ds,
            0..ds.rows(),
            ElemType::Double,
            as_bytes_mut(&mut values),
        )
        .map_err(read_err)?;
        (values, Vec::new())
    };
    Ok(Raw::Dat(Dat {
        name: name.to_string(),
        rows: ds.rows(),
        dim,
        type_str: ty.to_string(),
        elem,
        values,
        ints,
        set: Binding::Unknown,
    }))
}

fn read_const(
    f: &H5File,
    ds: &op2_hdf5_io::Dataset,
    name: &str,
    dim: i32,
    ty: &str,
) -> Result<Raw, String> {
    let held = ds.dims.iter().product::<u64>();
    if ds.dims.len() != 1 || dim < 1 || held != dim as u64 {
        return Err(format!(
            "constant '{name}' has extent {:?}, its attribute dim is {dim}",
            ds.dims
        ));
    }
    if ds.stored.is_none() {
        return Err(format!(
            "constant '{name}' has a datatype OP2 does not know"
        ));
    }
    let mut values = vec![0f64; held as usize];
    f.read_rows(
        ds,
        0..ds.rows(),
        ElemType::Double,
        as_bytes_mut(&mut values),
    )
    .map_err(|e| format!("constant '{name}': {}", e.msg))?;
    Ok(Raw::Const(Const {
        name: name.to_string(),
        dim: dim as usize,
        type_str: ty.to_string(),
        values,
    }))
}

/// Plain numbers viewed as bytes (what `read_rows` fills).
fn as_bytes_mut<T: Copy + Default>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: T is f64 or i64 here: every byte pattern is a valid value, and
    // the slice covers exactly the vector's initialised elements.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), std::mem::size_of_val(v)) }
}

impl Mesh {
    /// Read the file at `path`; `Err` only when it cannot be read at all
    /// (missing, not HDF5). Inconsistencies go to `problems`.
    pub fn read(path: &str, bindings: &Bindings) -> Result<Mesh, String> {
        if !std::path::Path::new(path).exists() {
            return Err(format!("file '{path}' does not exist"));
        }
        let f = H5File::open(path, Mode::Read, op2_hdf5_io::Access::default())
            .map_err(|e| e.msg.replace('"', "'"))?;
        let (names, odd) = dataset_paths(path)?;
        let mut mesh = Mesh {
            path: path.to_string(),
            problems: odd,
            ..Mesh::default()
        };
        for name in &names {
            match classify(&f, name) {
                Ok(Raw::Set(s)) => mesh.sets.push(s),
                Ok(Raw::Map(m)) => mesh.maps.push(m),
                Ok(Raw::Dat(d)) => mesh.dats.push(d),
                Ok(Raw::Const(c)) => mesh.consts.push(c),
                Err(e) => mesh.problems.push(e),
            }
        }
        mesh.bind(bindings)?;
        mesh.check();
        Ok(mesh)
    }

    /// The set called `name`.
    pub fn set(&self, name: &str) -> Option<&Set> {
        self.sets.iter().find(|s| s.name == name)
    }

    fn known_set(&self, obj: &str, name: &str) -> Result<String, String> {
        match self.set(name) {
            Some(s) => Ok(s.name.clone()),
            None => Err(format!(
                "--set {obj}={name}: the file has no set '{name}' (sets: {})",
                self.set_list()
            )),
        }
    }

    /// `cells (16), nodes (25)`.
    pub fn set_list(&self) -> String {
        if self.sets.is_empty() {
            return "none".to_string();
        }
        self.sets
            .iter()
            .map(|s| format!("{} ({})", s.name, s.size))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Sets with `rows` elements.
    fn by_rows(&self, rows: u64) -> Binding {
        let mut fit: Vec<String> = self
            .sets
            .iter()
            .filter(|s| s.size == rows)
            .map(|s| s.name.clone())
            .collect();
        match fit.len() {
            0 => Binding::Unknown,
            1 => Binding::Inferred(fit.remove(0)),
            _ => {
                let first = fit.remove(0);
                Binding::Ambiguous(first, fit)
            }
        }
    }

    /// The to-set of a map: the set holding the most of its entries in
    /// range; on a tie the one whose size is the largest entry plus one,
    /// then the smallest. Ambiguous when another set holds every entry too,
    /// unless only the chosen one ends at the largest entry.
    fn to_set_of(&self, map: &Map) -> Binding {
        let max = map.values.iter().copied().max().unwrap_or(-1);
        let mut scored: Vec<(usize, bool, u64, &str)> = self
            .sets
            .iter()
            .map(|s| {
                let inside = map
                    .values
                    .iter()
                    .filter(|&&v| v >= 0 && (v as u64) < s.size)
                    .count();
                (inside, s.size as i64 == max + 1, s.size, s.name.as_str())
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let Some(best) = scored.first() else {
            return Binding::Unknown;
        };
        let others: Vec<String> = scored[1..]
            .iter()
            .filter(|s| s.0 == map.values.len() && s.0 == best.0 && s.1 == best.1)
            .map(|s| s.3.to_string())
            .collect();
        if others.is_empty() {
            Binding::Inferred(best.3.to_string())
        } else {
            Binding::Ambiguous(best.3.to_string(), others)
        }
    }

    /// Decide the set of every map and dat.
    fn bind(&mut self, bindings: &Bindings) -> Result<(), String> {
        for obj in bindings.keys() {
            let known = self.maps.iter().any(|m| &m.name == obj)
                || self.dats.iter().any(|d| &d.name == obj);
            if !known {
                return Err(format!(
                    "--set {obj}=...: the file has no map or dat '{obj}'"
                ));
            }
        }
        for i in 0..self.maps.len() {
            let (from, to) = (
                self.by_rows(self.maps[i].rows),
                self.to_set_of(&self.maps[i]),
            );
            let name = self.maps[i].name.clone();
            let (mut from, mut to) = (from, to);
            if let Some((f, t)) = bindings.get(&name) {
                if !f.is_empty() {
                    from = Binding::Given(self.known_set(&name, f)?);
                }
                if let Some(t) = t.as_deref().filter(|t| !t.is_empty()) {
                    to = Binding::Given(self.known_set(&name, t)?);
                }
            }
            self.maps[i].from = from;
            self.maps[i].to = to;
        }
        for i in 0..self.dats.len() {
            let name = self.dats[i].name.clone();
            self.dats[i].set = match bindings.get(&name) {
                Some((s, None)) => Binding::Given(self.known_set(&name, s)?),
                Some(_) => {
                    return Err(format!(
                        "--set {name}=FROM:TO: '{name}' is a dat, give one set"
                    ))
                }
                None => self.by_rows(self.dats[i].rows),
            };
        }
        Ok(())
    }

    /// Collect the problems of maps and dats against their sets.
    fn check(&mut self) {
        let mut problems = Vec::new();
        for m in &self.maps {
            problems.extend(self.map_problems(m));
        }
        for d in &self.dats {
            match &d.set {
                Binding::Unknown => problems.push(format!(
                    "dat '{}' has {} rows, no set has that many elements (sets: {})",
                    d.name,
                    d.rows,
                    self.set_list()
                )),
                Binding::Given(s) => {
                    let size = self.set(s).map_or(0, |s| s.size);
                    if size != d.rows {
                        problems.push(format!(
                            "dat '{}' has {} rows, its set '{s}' has {size} elements",
                            d.name, d.rows
                        ));
                    }
                }
                _ => {}
            }
        }
        self.problems.extend(problems);
    }

    /// The problems of one map: from-set size, entries out of the to-set.
    pub fn map_problems(&self, m: &Map) -> Vec<String> {
        let mut out = Vec::new();
        match m.from.set().and_then(|s| self.set(s)) {
            None => out.push(format!(
                "map '{}' has {} rows, no set has that many elements (sets: {})",
                m.name,
                m.rows,
                self.set_list()
            )),
            Some(s) if s.size != m.rows => out.push(format!(
                "map '{}' has {} rows, its from-set '{}' has {} elements",
                m.name, m.rows, s.name, s.size
            )),
            Some(_) => {}
        }
        if let Some(to) = m.to.set().and_then(|s| self.set(s)) {
            if let Some(msg) = range_problem(m, &to.name, to.size) {
                out.push(msg);
            }
        } else if !m.values.is_empty() {
            out.push(format!("map '{}': no set to point into", m.name));
        }
        out
    }
}

/// `map 'pcell': entry 1 of element 4 is 9999, outside set 'nodes' (size 25)`.
pub fn range_problem(m: &Map, set: &str, size: u64) -> Option<String> {
    let (e, j, v, n) = m.out_of_range(size)?;
    let more = if n > 1 {
        format!(" ({n} entries out of range)")
    } else {
        String::new()
    };
    Some(format!(
        "map '{}': entry {j} of element {e} is {v}, outside set '{set}' (size {size}){more}",
        m.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_parse() {
        let b = parse_bindings(&[
            "q=cells".into(),
            "pecell=edges:cells".into(),
            "m=:nodes".into(),
        ])
        .unwrap();
        assert_eq!(b["q"], ("cells".to_string(), None));
        assert_eq!(
            b["pecell"],
            ("edges".to_string(), Some("cells".to_string()))
        );
        assert_eq!(b["m"], (String::new(), Some("nodes".to_string())));
        for bad in ["q", "=cells", "q=", "q=:"] {
            assert!(parse_bindings(&[bad.to_string()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn first_entry_out_of_range() {
        let m = Map {
            name: "pcell".into(),
            rows: 3,
            dim: 2,
            wide: false,
            values: vec![0, 1, 1, 7, -1, 2],
            from: Binding::Unknown,
            to: Binding::Unknown,
        };
        assert_eq!(m.out_of_range(3), Some((1, 1, 7, 2)));
        assert_eq!(m.out_of_range(8), Some((2, 0, -1, 1)));
        assert_eq!(
            range_problem(&m, "nodes", 3).unwrap(),
            "map 'pcell': entry 1 of element 1 is 7, outside set 'nodes' (size 3) (2 entries out of range)"
        );
    }
}
