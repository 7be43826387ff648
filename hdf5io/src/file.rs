//! An HDF5 file as OP2 uses it: open/create, datasets found by `/`-paths
//! (groups created on the way), row-range reads and writes with type
//! conversion, `int` and fixed-length string attributes.
//!
//! Raw `hdf5-metno-sys` calls under hdf5-metno's library lock: the MPI library
//! passes its own file-access (MPI-IO) and transfer (collective) property
//! lists, which the high-level crate cannot take in a serial build.

use crate::handle::{locked, Hid, Kind};
use crate::types::ElemType;
use crate::Error;
use hdf5_sys::h5::hsize_t;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::{h5a, h5d, h5f, h5g, h5l, h5p, h5s, h5t};
use std::ffi::CString;
use std::ops::Range;

/// Property lists the caller owns: `H5P_DEFAULT` for the serial library; the
/// MPI library passes an MPI-IO file-access list and a collective transfer list.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    /// file-access property list for `H5Fopen`/`H5Fcreate`
    pub fapl: hid_t,
    /// dataset-transfer property list for `H5Dread`/`H5Dwrite`
    pub dxpl: hid_t,
}

impl Default for Access {
    fn default() -> Self {
        Access {
            fapl: h5p::H5P_DEFAULT,
            dxpl: h5p::H5P_DEFAULT,
        }
    }
}

/// How to open a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// read only; the file must exist
    Read,
    /// read and write; the file must exist
    ReadWrite,
    /// create, replacing any file of that name
    Truncate,
    /// create; an existing file is an error
    Exclusive,
}

/// An open HDF5 file.
pub struct H5File {
    path: String,
    hid: Hid,
    access: Access,
}

/// An open dataset with its shape and stored element type.
pub struct Dataset {
    hid: Hid,
    name: String,
    /// extent of each dimension
    pub dims: Vec<u64>,
    /// the stored element type, when OP2 knows it
    pub stored: Option<ElemType>,
}

fn cstr(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::new(format!("name {s:?} contains a NUL byte")))
}

impl H5File {
    /// Open or create `path` as `mode` says, with the caller's property lists.
    pub fn open(path: &str, mode: Mode, access: Access) -> Result<H5File, Error> {
        let c = cstr(path)?;
        let exists = std::path::Path::new(path).exists();
        if matches!(mode, Mode::Read | Mode::ReadWrite) {
            if !exists {
                return Err(Error::new(format!("file \"{path}\" does not exist")));
            }
            // SAFETY: c is a valid NUL-terminated string.
            if locked(|| unsafe { h5f::H5Fis_hdf5(c.as_ptr()) }) <= 0 {
                return Err(Error::new(format!("file \"{path}\" is not an HDF5 file")));
            }
        }
        if mode == Mode::Exclusive && exists {
            return Err(Error::new(format!("file \"{path}\" already exists")));
        }
        // SAFETY: valid strings and property lists owned by the caller.
        let id = locked(|| unsafe {
            match mode {
                Mode::Read => h5f::H5Fopen(c.as_ptr(), h5f::H5F_ACC_RDONLY, access.fapl),
                Mode::ReadWrite => h5f::H5Fopen(c.as_ptr(), h5f::H5F_ACC_RDWR, access.fapl),
                Mode::Truncate => h5f::H5Fcreate(
                    c.as_ptr(),
                    h5f::H5F_ACC_TRUNC,
                    h5p::H5P_DEFAULT,
                    access.fapl,
                ),
                Mode::Exclusive => {
                    h5f::H5Fcreate(c.as_ptr(), h5f::H5F_ACC_EXCL, h5p::H5P_DEFAULT, access.fapl)
                }
            }
        });
        let what = match mode {
            Mode::Read => "open",
            Mode::ReadWrite => "open for writing",
            Mode::Truncate | Mode::Exclusive => "create",
        };
        let hid = Hid::new(id, Kind::File)
            .ok_or_else(|| Error::new(format!("cannot {what} file \"{path}\"")))?;
        Ok(H5File {
            path: path.to_string(),
            hid,
            access,
        })
    }

    /// The file name, as given.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The raw file identifier (valid while `self` lives).
    pub fn id(&self) -> hid_t {
        self.hid.id()
    }

    /// Does an object exist at `path` (every group on the way included)?
    pub fn exists(&self, path: &str) -> Result<bool, Error> {
        let mut prefix = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            prefix.push('/');
            prefix.push_str(part);
            let c = cstr(&prefix)?;
            // SAFETY: valid file id and string.
            let r = locked(|| unsafe { h5l::H5Lexists(self.id(), c.as_ptr(), h5p::H5P_DEFAULT) });
            if r <= 0 {
                return Ok(false);
            }
        }
        Ok(!prefix.is_empty())
    }

    /// Create the groups on the way to `path` that do not exist yet (OP2's
    /// `create_path`: a `/` in a name makes groups).
    pub fn create_groups(&self, path: &str) -> Result<(), Error> {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let mut prefix = String::new();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            prefix.push('/');
            prefix.push_str(part);
            if self.exists(&prefix)? {
                continue;
            }
            let c = cstr(&prefix)?;
            // SAFETY: valid file id and string; default property lists.
            let id = locked(|| unsafe {
                h5g::H5Gcreate2(
                    self.id(),
                    c.as_ptr(),
                    h5p::H5P_DEFAULT,
                    h5p::H5P_DEFAULT,
                    h5p::H5P_DEFAULT,
                )
            });
            Hid::new(id, Kind::Group).ok_or_else(|| {
                Error::new(format!(
                    "cannot create group \"{prefix}\" in file \"{}\"",
                    self.path
                ))
            })?;
        }
        Ok(())
    }

    /// Open the dataset at `name`; `None` when there is none.
    pub fn dataset(&self, name: &str) -> Result<Option<Dataset>, Error> {
        if !self.exists(name)? {
            return Ok(None);
        }
        let c = cstr(name)?;
        // SAFETY: valid file id and string.
        let id = locked(|| unsafe { h5d::H5Dopen2(self.id(), c.as_ptr(), h5p::H5P_DEFAULT) });
        let hid = Hid::new(id, Kind::Dataset)
            .ok_or_else(|| self.err(name, "is not a dataset".to_string()))?;
        let (dims, stored) = locked(|| shape_and_type(&hid));
        Ok(Some(Dataset {
            hid,
            name: name.to_string(),
            dims: dims.ok_or_else(|| self.err(name, "has no simple dataspace".into()))?,
            stored,
        }))
    }

    /// Open the dataset at `name`; a missing one is an error.
    pub fn require(&self, name: &str) -> Result<Dataset, Error> {
        self.dataset(name)?
            .ok_or_else(|| self.err(name, "not found".to_string()))
    }

    /// Create a dataset of `elem` with extent `dims` at `name` (groups on the way too).
    pub fn create_dataset(
        &self,
        name: &str,
        dims: &[u64],
        elem: ElemType,
    ) -> Result<Dataset, Error> {
        self.create_groups(name)?;
        let c = cstr(name)?;
        let space = simple_space(dims)?;
        // SAFETY: valid ids and string; default property lists.
        let id = locked(|| unsafe {
            h5d::H5Dcreate2(
                self.id(),
                c.as_ptr(),
                elem.native(),
                space.id(),
                h5p::H5P_DEFAULT,
                h5p::H5P_DEFAULT,
                h5p::H5P_DEFAULT,
            )
        });
        let hid = Hid::new(id, Kind::Dataset)
            .ok_or_else(|| self.err(name, "cannot be created".to_string()))?;
        Ok(Dataset {
            hid,
            name: name.to_string(),
            dims: dims.to_vec(),
            stored: Some(elem),
        })
    }

    /// Read rows `rows` (all columns) of `ds` as `elem` into `out`
    /// (`rows.len() * cols * elem.size()` bytes); HDF5 converts from the stored type.
    pub fn read_rows(
        &self,
        ds: &Dataset,
        rows: Range<u64>,
        elem: ElemType,
        out: &mut [u8],
    ) -> Result<(), Error> {
        let n = (rows.end - rows.start) as usize * ds.cols() as usize;
        assert_eq!(out.len(), n * elem.size(), "read_rows buffer size");
        let (mem, file) = self.selection(ds, rows)?;
        // SAFETY: out holds exactly the selected elements of `elem`.
        let r = locked(|| unsafe {
            h5d::H5Dread(
                ds.hid.id(),
                elem.native(),
                mem.id(),
                file.id(),
                self.access.dxpl,
                out.as_mut_ptr().cast(),
            )
        });
        if r < 0 {
            return Err(self.err(&ds.name, format!("cannot be read as {}", elem.c_name())));
        }
        Ok(())
    }

    /// Write `data` (values of `elem`) to rows `rows` (all columns) of `ds`.
    pub fn write_rows(
        &self,
        ds: &Dataset,
        rows: Range<u64>,
        elem: ElemType,
        data: &[u8],
    ) -> Result<(), Error> {
        let n = (rows.end - rows.start) as usize * ds.cols() as usize;
        assert_eq!(data.len(), n * elem.size(), "write_rows buffer size");
        let (mem, file) = self.selection(ds, rows)?;
        // SAFETY: data holds exactly the selected elements of `elem`.
        let r = locked(|| unsafe {
            h5d::H5Dwrite(
                ds.hid.id(),
                elem.native(),
                mem.id(),
                file.id(),
                self.access.dxpl,
                data.as_ptr().cast(),
            )
        });
        if r < 0 {
            return Err(self.err(&ds.name, "cannot be written".to_string()));
        }
        Ok(())
    }

    /// Memory and file dataspaces selecting `rows` × all columns of `ds`.
    fn selection(&self, ds: &Dataset, rows: Range<u64>) -> Result<(Hid, Hid), Error> {
        let total = ds.dims.first().copied().unwrap_or(1);
        if rows.start > rows.end || rows.end > total {
            return Err(self.err(
                &ds.name,
                format!(
                    "has {total} rows, rows {}..{} asked for",
                    rows.start, rows.end
                ),
            ));
        }
        let mut count = ds.dims.clone();
        let mut start = vec![0u64; ds.dims.len()];
        if let Some(c) = count.first_mut() {
            *c = rows.end - rows.start;
            start[0] = rows.start;
        }
        // SAFETY: a valid dataset id.
        let fid = locked(|| unsafe { h5d::H5Dget_space(ds.hid.id()) });
        let file = Hid::new(fid, Kind::Space)
            .ok_or_else(|| self.err(&ds.name, "has no dataspace".to_string()))?;
        if count.contains(&0) {
            // Nothing on this process (an MPI rank with an empty block still
            // takes part in a collective transfer): empty selections.
            let mem = simple_space(&vec![1; count.len().max(1)])?;
            // SAFETY: valid dataspace ids.
            let r = locked(|| unsafe {
                h5s::H5Sselect_none(mem.id()).min(h5s::H5Sselect_none(file.id()))
            });
            if r < 0 {
                return Err(self.err(&ds.name, "cannot select no rows".to_string()));
            }
            return Ok((mem, file));
        }
        let mem = simple_space(&count)?;
        if !ds.dims.is_empty() {
            // SAFETY: start and count have one entry per dimension of the space.
            let r = locked(|| unsafe {
                h5s::H5Sselect_hyperslab(
                    file.id(),
                    h5s::H5S_SELECT_SET,
                    start.as_ptr(),
                    std::ptr::null(),
                    count.as_ptr(),
                    std::ptr::null(),
                )
            });
            if r < 0 {
                return Err(self.err(&ds.name, "cannot select rows".to_string()));
            }
        }
        Ok((mem, file))
    }

    /// An error naming this file and the dataset.
    pub fn err(&self, dataset: &str, what: String) -> Error {
        Error::new(format!(
            "dataset \"{dataset}\" in file \"{}\": {what}",
            self.path
        ))
    }
}

/// The extent and stored type of a dataset (under the lock).
fn shape_and_type(ds: &Hid) -> (Option<Vec<u64>>, Option<ElemType>) {
    // SAFETY: a valid dataset id; buffers sized by the rank HDF5 reports.
    unsafe {
        let dims = Hid::new(h5d::H5Dget_space(ds.id()), Kind::Space).and_then(|sp| {
            let rank = h5s::H5Sget_simple_extent_ndims(sp.id());
            if rank < 0 {
                return None;
            }
            let mut d = vec![0 as hsize_t; rank as usize];
            (h5s::H5Sget_simple_extent_dims(sp.id(), d.as_mut_ptr(), std::ptr::null_mut()) >= 0)
                .then_some(d)
        });
        let stored = Hid::new(h5d::H5Dget_type(ds.id()), Kind::Type)
            .and_then(|t| ElemType::of_stored(h5t::H5Tget_class(t.id()), h5t::H5Tget_size(t.id())));
        (dims, stored)
    }
}

fn simple_space(dims: &[u64]) -> Result<Hid, Error> {
    // SAFETY: dims has `len` entries; a NULL maxdims means "same as dims".
    let id = locked(|| unsafe {
        if dims.is_empty() {
            h5s::H5Screate(h5s::H5S_class_t::H5S_SCALAR)
        } else {
            h5s::H5Screate_simple(dims.len() as i32, dims.as_ptr(), std::ptr::null())
        }
    });
    Hid::new(id, Kind::Space).ok_or_else(|| Error::new(format!("cannot make a dataspace {dims:?}")))
}

impl Dataset {
    /// The dataset's path in its file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Rows (the first extent; 1 for a scalar).
    pub fn rows(&self) -> u64 {
        self.dims.first().copied().unwrap_or(1)
    }

    /// Values per row (the product of the extents after the first).
    pub fn cols(&self) -> u64 {
        self.dims.iter().skip(1).product()
    }

    /// The raw dataset identifier (valid while `self` lives).
    pub fn id(&self) -> hid_t {
        self.hid.id()
    }

    /// Attach an `int` attribute of one element (1-D dataspace), as OP2 does.
    pub fn write_int_attr(&self, name: &str, value: i32) -> Result<(), Error> {
        let c = cstr(name)?;
        let space = simple_space(&[1])?;
        locked(|| {
            // SAFETY: valid ids; `value` is one native int.
            let a = Hid::new(
                unsafe {
                    h5a::H5Acreate2(
                        self.id(),
                        c.as_ptr(),
                        *h5t::H5T_NATIVE_INT,
                        space.id(),
                        h5p::H5P_DEFAULT,
                        h5p::H5P_DEFAULT,
                    )
                },
                Kind::Attr,
            )?;
            // SAFETY: as above.
            let r = unsafe {
                h5a::H5Awrite(a.id(), *h5t::H5T_NATIVE_INT, (&value as *const i32).cast())
            };
            (r >= 0).then_some(())
        })
        .ok_or_else(|| self.attr_err(name, "cannot be written"))
    }

    /// Attach a scalar fixed-length C string attribute of `size` bytes
    /// (`H5T_C_S1`, NULLTERM, ASCII: OP2's type) holding `text` (NUL-padded).
    pub fn write_str_attr(&self, name: &str, text: &str, size: usize) -> Result<(), Error> {
        let c = cstr(name)?;
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize(size.max(1), 0);
        let space = simple_space(&[])?;
        locked(|| {
            // SAFETY: H5T_C_S1 is a library constant; the copy is ours.
            let t = Hid::new(unsafe { h5t::H5Tcopy(*h5t::H5T_C_S1) }, Kind::Type)?;
            // SAFETY: valid ids; `bytes` holds `size` bytes of the string type.
            unsafe {
                if h5t::H5Tset_size(t.id(), size.max(1)) < 0 {
                    return None;
                }
                let a = Hid::new(
                    h5a::H5Acreate2(
                        self.id(),
                        c.as_ptr(),
                        t.id(),
                        space.id(),
                        h5p::H5P_DEFAULT,
                        h5p::H5P_DEFAULT,
                    ),
                    Kind::Attr,
                )?;
                (h5a::H5Awrite(a.id(), t.id(), bytes.as_ptr().cast()) >= 0).then_some(())
            }
        })
        .ok_or_else(|| self.attr_err(name, "cannot be written"))
    }

    /// Read an `int` attribute (its first element); `None` when there is none.
    pub fn read_int_attr(&self, name: &str) -> Result<Option<i32>, Error> {
        let Some(a) = self.open_attr(name)? else {
            return Ok(None);
        };
        locked(|| {
            // SAFETY: a valid attribute id.
            let space = Hid::new(unsafe { h5a::H5Aget_space(a.id()) }, Kind::Space)?;
            // SAFETY: a valid dataspace id.
            let n = unsafe { h5s::H5Sget_simple_extent_npoints(space.id()) };
            let mut v = vec![0i32; n.max(1) as usize];
            // SAFETY: v holds every element of the attribute as native int.
            let r = unsafe { h5a::H5Aread(a.id(), *h5t::H5T_NATIVE_INT, v.as_mut_ptr().cast()) };
            (r >= 0 && n >= 1).then(|| v[0])
        })
        .map(Some)
        .ok_or_else(|| self.attr_err(name, "is not an integer"))
    }

    /// Read a fixed-length string attribute, up to its first NUL (OP2 leaves
    /// undefined bytes after it); `None` when there is none.
    pub fn read_str_attr(&self, name: &str) -> Result<Option<String>, Error> {
        let Some(a) = self.open_attr(name)? else {
            return Ok(None);
        };
        let bytes = locked(|| {
            // SAFETY: a valid attribute id; the buffer is as large as its type.
            unsafe {
                let t = Hid::new(h5a::H5Aget_type(a.id()), Kind::Type)?;
                if h5t::H5Tget_class(t.id()) != h5t::H5T_class_t::H5T_STRING
                    || h5t::H5Tis_variable_str(t.id()) > 0
                {
                    return None;
                }
                let mut buf = vec![0u8; h5t::H5Tget_size(t.id())];
                (h5a::H5Aread(a.id(), t.id(), buf.as_mut_ptr().cast()) >= 0).then_some(buf)
            }
        })
        .ok_or_else(|| self.attr_err(name, "is not a fixed-length string"))?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(Some(String::from_utf8_lossy(&bytes[..end]).into_owned()))
    }

    fn open_attr(&self, name: &str) -> Result<Option<Hid>, Error> {
        let c = cstr(name)?;
        locked(|| {
            // SAFETY: valid dataset id and string.
            let e = unsafe { h5a::H5Aexists(self.id(), c.as_ptr()) };
            if e <= 0 {
                return Ok(None);
            }
            // SAFETY: as above.
            let id = unsafe { h5a::H5Aopen(self.id(), c.as_ptr(), h5p::H5P_DEFAULT) };
            Ok(Some(
                Hid::new(id, Kind::Attr).ok_or_else(|| self.attr_err(name, "cannot be opened"))?,
            ))
        })
    }

    fn attr_err(&self, attr: &str, what: &str) -> Error {
        Error::new(format!(
            "attribute \"{attr}\" of dataset \"{}\" {what}",
            self.name
        ))
    }
}
