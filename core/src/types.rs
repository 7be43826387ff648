//! Element types of dats and global arguments, named as OP2 names them.

/// The scalar type behind an OP2 type string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    F64,
    F32,
    I32,
    U32,
    I64,
    U64,
    Bool,
    /// A user type (OP_USER_DATATYPES) or anything OP2 does not know: opaque bytes.
    Other,
}

impl ScalarType {
    /// Parse an OP2 type string. Accepts OP2's C names, the Fortran aliases
    /// OP2 normalises (`r8`, `real(8)`, `integer(4)`, ...) and a `:soa` suffix.
    pub fn parse(type_name: &str) -> ScalarType {
        match base_type(type_name) {
            "double" | "r8" | "real*8" | "real(8)" | "double precision" => ScalarType::F64,
            "float" | "r4" | "real*4" | "real(4)" | "real" => ScalarType::F32,
            // Fortran's default logical is a 4-byte integer type.
            "int" | "i4" | "integer*4" | "integer(4)" | "integer" | "int(4)" | "logical"
            | "logical(4)" => ScalarType::I32,
            "uint" | "unsigned int" => ScalarType::U32,
            "ll" | "long long" | "long" | "i8" | "integer(8)" | "integer*8" => ScalarType::I64,
            "ull" | "unsigned long long" => ScalarType::U64,
            "bool" => ScalarType::Bool,
            _ => ScalarType::Other,
        }
    }

    /// Size in bytes of one scalar, `None` for `Other`.
    pub fn size(self) -> Option<usize> {
        match self {
            ScalarType::F64 | ScalarType::I64 | ScalarType::U64 => Some(8),
            ScalarType::F32 | ScalarType::I32 | ScalarType::U32 => Some(4),
            ScalarType::Bool => Some(1),
            ScalarType::Other => None,
        }
    }

    /// OP2's normalised name (what `op_arg_dat` stores in `arg.type`).
    pub fn c_name(self) -> Option<&'static str> {
        match self {
            ScalarType::F64 => Some("double"),
            ScalarType::F32 => Some("float"),
            ScalarType::I32 => Some("int"),
            ScalarType::U32 => Some("uint"),
            ScalarType::I64 => Some("ll"),
            ScalarType::U64 => Some("ull"),
            ScalarType::Bool => Some("bool"),
            ScalarType::Other => None,
        }
    }
}

impl ScalarType {
    /// The C type as a programmer writes it (for messages).
    pub fn c_spelling(self) -> &'static str {
        match self {
            ScalarType::F64 => "double",
            ScalarType::F32 => "float",
            ScalarType::I32 => "int",
            ScalarType::U32 => "unsigned int",
            ScalarType::I64 => "long long",
            ScalarType::U64 => "unsigned long long",
            ScalarType::Bool => "bool",
            ScalarType::Other => "a user type",
        }
    }
}

/// A declaration's type string against the element type of the pointer the
/// program passed (`actual`, known to the C++ template or C11 `_Generic`):
/// an error naming `what` (`dat`, `global`, `constant`) and `name` when
/// they disagree. An unknown `actual` (a user type) accepts any string.
pub fn check_declared(
    what: &str,
    name: Option<&str>,
    declared: &str,
    actual: &str,
) -> crate::Result<()> {
    let (sd, sa) = (ScalarType::parse(declared), ScalarType::parse(actual));
    if sa == ScalarType::Other || sd == sa {
        return Ok(());
    }
    let o = match name {
        None => format!("{what} of type \"{declared}\""),
        Some(n) => crate::error::obj(what, n),
    };
    let msg = if sd == ScalarType::Other {
        // The pointer's element type is known, so the string must be one of
        // OP2's spellings of it, not a user type.
        format!(
            "incorrect type specified: type string \"{declared}\" is not an OP2 spelling of {}",
            sa.c_spelling()
        )
    } else {
        format!("incorrect type specified: type string \"{declared}\" but the data pointer is {actual}*")
    };
    Err(crate::Op2Error::new("", o, msg))
}

/// The type string without a `:soa` suffix, trimmed.
pub fn base_type(type_name: &str) -> &str {
    let t = type_name.trim();
    t.strip_suffix(":soa").unwrap_or(t).trim()
}

/// OP2's normalisation of a type string as stored in `op_arg.type`:
/// `r8`/`real(8)`... become `double`, etc.; other strings are kept.
/// Borrows (allocates nothing).
pub fn normalise(type_name: &str) -> std::borrow::Cow<'_, str> {
    let soa = type_name.trim().ends_with(":soa");
    let canonical = match (ScalarType::parse(type_name), soa) {
        (ScalarType::F64, false) => "double",
        (ScalarType::F32, false) => "float",
        (ScalarType::I32, false) => "int",
        (ScalarType::Bool, false) => "bool",
        (ScalarType::F64, true) => "double:soa",
        (ScalarType::F32, true) => "float:soa",
        (ScalarType::I32, true) => "int:soa",
        (ScalarType::Bool, true) => "bool:soa",
        _ => return std::borrow::Cow::Borrowed(type_name),
    };
    std::borrow::Cow::Borrowed(canonical)
}

/// Do two type strings describe the same element type? (`double` ≡ `r8` ≡ `double:soa`.)
pub fn equivalent(a: &str, b: &str) -> bool {
    if a == b {
        // the common case (a loop's type string spelled as its dat's)
        return true;
    }
    let (ta, tb) = (ScalarType::parse(a), ScalarType::parse(b));
    if ta == ScalarType::Other || tb == ScalarType::Other {
        base_type(a) == base_type(b)
    } else {
        ta == tb
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_op2_names_and_aliases() {
        assert_eq!(ScalarType::parse("double"), ScalarType::F64);
        assert_eq!(ScalarType::parse("double:soa"), ScalarType::F64);
        assert_eq!(ScalarType::parse("real(8)"), ScalarType::F64);
        assert_eq!(ScalarType::parse("r4"), ScalarType::F32);
        assert_eq!(ScalarType::parse("integer(4)"), ScalarType::I32);
        assert_eq!(ScalarType::parse("ull"), ScalarType::U64);
        assert_eq!(ScalarType::parse("my_struct"), ScalarType::Other);
        assert_eq!(ScalarType::parse("bool").size(), Some(1));
    }

    #[test]
    fn normalises_like_op2() {
        assert_eq!(normalise("r8"), "double");
        assert_eq!(normalise("real(4)"), "float");
        assert_eq!(normalise("double:soa"), "double:soa");
        assert_eq!(normalise("ll"), "ll");
        assert_eq!(normalise("my_t"), "my_t");
    }

    #[test]
    fn equivalence() {
        assert!(equivalent("double", "r8"));
        assert!(equivalent("double", "double:soa"));
        assert!(!equivalent("double", "float"));
        assert!(equivalent("my_t", "my_t:soa"));
        assert!(!equivalent("my_t", "double"));
    }
}
