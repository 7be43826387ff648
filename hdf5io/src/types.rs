//! OP2's element types and the type strings that name them.

use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t;

/// The native element type of a dataset: what OP2 writes for a dat, map or
/// constant, and what it reads into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// C `int` (HDF5 `H5T_NATIVE_INT`)
    Int,
    /// C `long` (64-bit on LP64)
    Long,
    /// C `long long`
    LongLong,
    /// C `float`
    Float,
    /// C `double`
    Double,
}

/// Every type string OP2 accepts for a dat or a constant, with its element type.
pub const DAT_TYPE_STRINGS: &[(&str, ElemType)] = &[
    ("double", ElemType::Double),
    ("double:soa", ElemType::Double),
    ("double precision", ElemType::Double),
    ("real(8)", ElemType::Double),
    ("float", ElemType::Float),
    ("float:soa", ElemType::Float),
    ("real(4)", ElemType::Float),
    ("real", ElemType::Float),
    ("int", ElemType::Int),
    ("int:soa", ElemType::Int),
    ("int(4)", ElemType::Int),
    ("integer", ElemType::Int),
    ("integer(4)", ElemType::Int),
    ("long", ElemType::Long),
    ("long:soa", ElemType::Long),
    ("long long", ElemType::LongLong),
    ("long long:soa", ElemType::LongLong),
];

impl ElemType {
    /// The element type of an OP2 type string (`"double:soa"`, `"real(8)"` ...).
    pub fn from_type_string(ty: &str) -> Option<ElemType> {
        DAT_TYPE_STRINGS
            .iter()
            .find(|(s, _)| *s == ty)
            .map(|&(_, t)| t)
    }

    /// The canonical C name: what OP2 stores in the `type` attribute of
    /// constants and maps.
    pub fn c_name(self) -> &'static str {
        match self {
            ElemType::Int => "int",
            ElemType::Long => "long",
            ElemType::LongLong => "long long",
            ElemType::Float => "float",
            ElemType::Double => "double",
        }
    }

    /// Bytes of one value.
    pub fn size(self) -> usize {
        match self {
            ElemType::Int => std::mem::size_of::<libc::c_int>(),
            ElemType::Long => std::mem::size_of::<libc::c_long>(),
            ElemType::LongLong => std::mem::size_of::<libc::c_longlong>(),
            ElemType::Float => 4,
            ElemType::Double => 8,
        }
    }

    /// The native HDF5 type (a library constant: never closed). Call inside
    /// `hdf5::sync::sync` (the library must be open).
    pub(crate) fn native(self) -> hid_t {
        match self {
            ElemType::Int => *h5t::H5T_NATIVE_INT,
            ElemType::Long => *h5t::H5T_NATIVE_LONG,
            ElemType::LongLong => *h5t::H5T_NATIVE_LLONG,
            ElemType::Float => *h5t::H5T_NATIVE_FLOAT,
            ElemType::Double => *h5t::H5T_NATIVE_DOUBLE,
        }
    }

    /// The element type of a stored datatype, as OP2 recognises it
    /// (integers of 4 bytes are `int`, of 8 bytes `long`; IEEE floats of 4
    /// and 8 bytes); `None` for anything else.
    pub(crate) fn of_stored(class: h5t::H5T_class_t, size: usize) -> Option<ElemType> {
        match (class, size) {
            (h5t::H5T_class_t::H5T_INTEGER, 4) => Some(ElemType::Int),
            (h5t::H5T_class_t::H5T_INTEGER, 8) => Some(ElemType::Long),
            (h5t::H5T_class_t::H5T_FLOAT, 4) => Some(ElemType::Float),
            (h5t::H5T_class_t::H5T_FLOAT, 8) => Some(ElemType::Double),
            _ => None,
        }
    }
}

/// OP2's `op_type_equivalence`: two type strings name the same element type
/// (`"double"` and `"real(8)"`, `"int"` and `"int:soa"`).
pub fn types_equivalent(a: &str, b: &str) -> bool {
    match (ElemType::from_type_string(a), ElemType::from_type_string(b)) {
        (Some(x), Some(y)) => x == y || (x.size() == y.size() && is_int(x) && is_int(y)),
        _ => a == b,
    }
}

fn is_int(t: ElemType) -> bool {
    matches!(t, ElemType::Int | ElemType::Long | ElemType::LongLong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_string_has_its_size() {
        for &(s, t) in DAT_TYPE_STRINGS {
            assert_eq!(ElemType::from_type_string(s), Some(t));
            let want = match t {
                ElemType::Double | ElemType::Long | ElemType::LongLong => 8,
                ElemType::Float | ElemType::Int => 4,
            };
            assert_eq!(t.size(), want, "{s}");
        }
        assert_eq!(ElemType::from_type_string("bool"), None);
    }

    #[test]
    fn equivalence() {
        assert!(types_equivalent("double", "real(8)"));
        assert!(types_equivalent("int:soa", "integer(4)"));
        assert!(types_equivalent("long", "long long"));
        assert!(!types_equivalent("double", "float"));
        assert!(!types_equivalent("int", "long"));
    }
}
