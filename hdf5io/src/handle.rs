//! Owned HDF5 identifiers (closed on drop) and the library lock.

use hdf5_sys::h5i::hid_t;

/// What kind of HDF5 object an identifier names (which close function).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    File,
    Group,
    Dataset,
    Space,
    Type,
    Attr,
}

/// An HDF5 identifier this crate opened and closes when dropped.
#[derive(Debug)]
pub struct Hid {
    id: hid_t,
    kind: Kind,
}

impl Hid {
    /// Take ownership of `id` (negative: the call that returned it failed).
    pub(crate) fn new(id: hid_t, kind: Kind) -> Option<Hid> {
        (id >= 0).then_some(Hid { id, kind })
    }

    /// The raw identifier (valid while `self` lives).
    pub fn id(&self) -> hid_t {
        self.id
    }
}

impl Drop for Hid {
    fn drop(&mut self) {
        use hdf5_sys::{h5a, h5d, h5f, h5g, h5s, h5t};
        let id = self.id;
        let kind = self.kind;
        // SAFETY: `id` was returned open by HDF5 and is closed exactly once,
        // under the library lock.
        hdf5::sync::sync(|| unsafe {
            match kind {
                Kind::File => h5f::H5Fclose(id),
                Kind::Group => h5g::H5Gclose(id),
                Kind::Dataset => h5d::H5Dclose(id),
                Kind::Space => h5s::H5Sclose(id),
                Kind::Type => h5t::H5Tclose(id),
                Kind::Attr => h5a::H5Aclose(id),
            };
        });
    }
}

/// Run `f` holding hdf5-metno's library lock (which also opens the library
/// and silences HDF5's own error printing: errors come back as values).
pub(crate) fn locked<T>(f: impl FnOnce() -> T) -> T {
    hdf5::sync::sync(f)
}
