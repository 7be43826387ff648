//! The names of the program's variables by address, from the executable's
//! symbol table (`.symtab`, else the dynamic symbols): C++'s
//! `op_decl_const` is a function template that receives the constant's
//! address but not its name, and a kernel reads the constant by name
//! (a C++ variable's symbol is mangled: [`variable_name`] reads it back).
//! Read once, on the first loop that needs it. The executable's load
//! address (position-independent executables) comes from
//! `/proc/self/maps`. A stripped executable, or a constant defined in a
//! shared library, gives no name: a kernel using such a constant is then
//! rejected by the device compiler and its loop runs on the host.

use std::collections::HashMap;
use std::path::Path;

/// Runtime address -> variable name.
pub type Names = HashMap<usize, String>;

/// The data symbols of `exe`, at their addresses in this process.
pub fn program_names(exe: &Path) -> Names {
    let Ok(data) = std::fs::read(exe) else {
        return Names::new();
    };
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    names_in(&data, exe, &maps)
}

fn names_in(data: &[u8], exe: &Path, maps: &str) -> Names {
    use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
    let Ok(obj) = object::File::parse(data) else {
        return Names::new();
    };
    let lowest = obj.segments().map(|s| s.address()).min().unwrap_or(0);
    let bias = match load_start(maps, exe) {
        Some(start) => start.wrapping_sub(lowest & !0xfff),
        None if obj.kind() == object::ObjectKind::Executable => 0,
        None => return Names::new(),
    };
    let mut out = Names::new();
    for sym in obj.symbols().chain(obj.dynamic_symbols()) {
        if sym.kind() != SymbolKind::Data || !sym.is_definition() {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if let Some(name) = variable_name(name) {
            let at = (sym.address().wrapping_add(bias)) as usize;
            out.entry(at).or_insert_with(|| name.to_string());
        }
    }
    out
}

/// The name a kernel uses for the variable of symbol `sym`: a C name as
/// it is; a C++ variable's Itanium-mangled name read back to its last
/// component: `_ZL3gam` (a namespace-scope `const` or `static`: internal
/// linkage, as OP2's tutorial declares `const double gam`), `_ZN2ns3gamE`
/// (in a namespace; `_ZN2nsL3gamE` internal there),
/// `_ZN12_GLOBAL__N_13gamE` (an anonymous namespace). Names
/// of anything else (functions' local statics, template instances,
/// special names) are not a variable a kernel can read: `None`.
fn variable_name(sym: &str) -> Option<&str> {
    let Some(m) = sym.strip_prefix("_Z") else {
        return op2_codegen::desc::is_ident(sym).then_some(sym);
    };
    let m = m.strip_prefix('L').unwrap_or(m);
    let (name, rest) = match m.strip_prefix('N') {
        None => source_name(m)?,
        Some(mut m) => {
            // <nested-name> ::= N <prefix> <source-name> E, the variable's
            // name last (an internal one's preceded by L, as GCC writes it)
            let (mut last, mut parts) = (None, 0);
            while let Some((n, rest)) = source_name(m.strip_prefix('L').unwrap_or(m)) {
                (last, parts, m) = (Some(n), parts + 1, rest);
            }
            if parts < 2 {
                return None;
            }
            (last?, m.strip_prefix('E')?)
        }
    };
    (rest.is_empty() && op2_codegen::desc::is_ident(name)).then_some(name)
}

/// `<source-name> ::= <length> <identifier>`: the identifier and what follows.
fn source_name(m: &str) -> Option<(&str, &str)> {
    let digits = m.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = m[..digits].parse().ok()?;
    let rest = &m[digits..];
    (len > 0 && rest.is_char_boundary(len.min(rest.len())) && rest.len() >= len)
        .then(|| rest.split_at(len))
}

/// Where `exe`'s first mapping (file offset 0) starts in `/proc/self/maps`.
fn load_start(maps: &str, exe: &Path) -> Option<u64> {
    let exe = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf());
    maps.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let range = f.next()?;
        let offset = f.nth(1)?;
        let path = f.nth(2)?;
        let same = Path::new(path) == exe;
        (same && u64::from_str_radix(offset, 16).ok()? == 0)
            .then(|| u64::from_str_radix(range.split('-').next()?, 16).ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[no_mangle]
    #[used]
    static OP2_RS_SYMBOLS_TEST_CONST: [f64; 2] = [1.5, 2.5];

    #[test]
    fn this_test_binary_names_its_static_by_address() {
        let exe = std::env::current_exe().unwrap();
        let names = program_names(&exe);
        let at = std::ptr::addr_of!(OP2_RS_SYMBOLS_TEST_CONST) as usize;
        assert_eq!(
            names.get(&at).map(String::as_str),
            Some("OP2_RS_SYMBOLS_TEST_CONST"),
            "{} names",
            names.len()
        );
    }

    /// C++ variables' symbols read back to the names the kernels use;
    /// what is not a variable of namespace scope gives none.
    #[test]
    fn mangled_cxx_variables_give_their_names() {
        for (sym, want) in [
            ("gam", Some("gam")),
            ("_ZL3gam", Some("gam")),
            ("_ZL4qinf", Some("qinf")),
            ("_Z5alpha", Some("alpha")),
            ("_ZN4flow3gm1E", Some("gm1")),
            ("_ZN12_GLOBAL__N_13epsE", Some("eps")),
            ("_ZN4flowL3cflE", Some("cfl")),
            ("_ZZ4mainE1x", None),
            ("_ZL3ga", None),
            ("_ZL3gamma", None),
            ("_ZN4flowE", None),
            ("_ZN4flow3gm1", None),
            ("_ZTV4Mesh", None),
            ("_ZL0", None),
            ("_ZL99999999999999999999999x", None),
            ("_ZL2é", None),
        ] {
            assert_eq!(variable_name(sym), want, "{sym}");
        }
    }

    #[test]
    fn the_first_mapping_of_the_executable_is_its_load_address() {
        let maps = "55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 42 /opt/app/airfoil\n\
                    55d0c0a01000-55d0c0a05000 r-xp 00001000 08:01 42 /opt/app/airfoil\n";
        assert_eq!(
            load_start(maps, Path::new("/opt/app/airfoil")),
            Some(0x55d0_c0a0_0000)
        );
        assert_eq!(load_start(maps, Path::new("/opt/app/other")), None);
    }
}
