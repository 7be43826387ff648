//! Loop arguments and the checks run on them before a loop executes.

use crate::domain::{dat_type_matches, DatId, Domain, MapId, SetId};
use crate::error::{obj, Op2Error, Result};
use crate::types::ScalarType;

/// OP2 access modes, with OP2's C values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Access {
    Read = 0,
    Write = 1,
    Rw = 2,
    Inc = 3,
    Min = 4,
    Max = 5,
    Work = 6,
}

impl Access {
    pub fn from_c(v: i32) -> Option<Access> {
        Some(match v {
            0 => Access::Read,
            1 => Access::Write,
            2 => Access::Rw,
            3 => Access::Inc,
            4 => Access::Min,
            5 => Access::Max,
            6 => Access::Work,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "OP_READ",
            Access::Write => "OP_WRITE",
            Access::Rw => "OP_RW",
            Access::Inc => "OP_INC",
            Access::Min => "OP_MIN",
            Access::Max => "OP_MAX",
            Access::Work => "OP_WORK",
        }
    }

    /// Does the kernel modify data through this access?
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// Is this a reduction (the kernel combines into a global)?
    pub fn is_reduction(self) -> bool {
        matches!(self, Access::Inc | Access::Min | Access::Max)
    }
}

/// What an argument refers to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A dat, directly (`map == None`, idx -1), through map column `idx >= 0`, or
    /// through all columns (`idx < -1`, a vector argument of `-idx` pointers).
    Dat {
        dat: DatId,
        map: Option<MapId>,
        idx: i32,
    },
    /// A global (constant or reduction) of `dim` scalars.
    Gbl,
    /// The element index (direct) or a map entry (`op_arg_idx`).
    Idx { map: Option<MapId>, idx: i32 },
    /// Location info for a companion MIN/MAX gbl (`op_arg_info`); `reference` is its arg number.
    Info { reference: i32 },
}

/// A checked description of one argument of a loop.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArgSpec {
    pub kind: ArgKind,
    pub dim: i32,
    pub type_name: String,
    pub access: Access,
    /// false: an optional argument switched off (the kernel gets NULL).
    pub opt: bool,
}

impl ArgSpec {
    pub fn is_indirect(&self) -> bool {
        self.opt && matches!(self.kind, ArgKind::Dat { map: Some(_), .. })
    }
}

/// Check an `op_arg_dat` against the dat and map it names (OP2's parameter list).
#[allow(clippy::too_many_arguments)]
pub fn check_arg_dat(
    call: &str,
    d: &Domain,
    dat: DatId,
    idx: i32,
    map: Option<MapId>,
    dim: i32,
    type_name: &str,
    access: Access,
) -> Result<()> {
    let dt = d.dat(dat);
    let err = |msg: String| Op2Error::new(call, obj("dat", &dt.name), msg);
    if dim != dt.dim as i32 {
        return Err(err(format!(
            "arg dim {dim} is not the dat's dim {}",
            dt.dim
        )));
    }
    if !dat_type_matches(dt, type_name) {
        return Err(err(format!(
            "arg type \"{type_name}\" is not the dat's type \"{}\"",
            dt.type_name
        )));
    }
    if matches!(access, Access::Min | Access::Max) {
        return Err(err(format!(
            "{} is only allowed on global arguments (op_arg_gbl)",
            access.name()
        )));
    }
    match map {
        None => {
            if idx != -1 {
                return Err(err(format!(
                    "idx {idx} given with OP_ID; a direct argument must have idx -1"
                )));
            }
        }
        Some(m) => {
            let mp = d.map(m);
            let mdim = mp.dim as i32;
            if idx < -mdim || idx >= mdim || idx == -1 {
                return Err(err(format!(
                    "idx {idx} is outside [-{mdim}, {mdim}) for map \"{}\" of dim {mdim} (and -1 means direct, which needs OP_ID)",
                    mp.name
                )));
            }
            if idx < -1 && idx != -mdim {
                // OP2 accepts any -K with K <= map dim: K pointers from columns 0..K-1.
            }
            if mp.to != dt.set {
                return Err(err(format!(
                    "map \"{}\" goes to set \"{}\" but the dat is on set \"{}\"",
                    mp.name,
                    d.set(mp.to).name,
                    d.set(dt.set).name
                )));
            }
        }
    }
    Ok(())
}

/// Check a global argument's declared type and element size.
pub fn check_arg_gbl(call: &str, dim: i32, type_name: &str, type_size: i32) -> Result<()> {
    let err = |msg: String| Op2Error::new(call, format!("global of type \"{type_name}\""), msg);
    if dim <= 0 {
        return Err(err(format!("dim {dim} must be positive")));
    }
    if let Some(sz) = ScalarType::parse(type_name).size() {
        if type_size > 0 && sz != type_size as usize {
            return Err(err(format!(
                "type \"{type_name}\" has {sz}-byte elements but the data's elements have {type_size} bytes"
            )));
        }
    }
    Ok(())
}

/// `op_decl_const(dim, type, type_size, data, name)`: errors name the
/// constant.
pub fn check_const(
    name: &str,
    dim: i32,
    type_name: Option<&str>,
    type_size: i32,
    has_data: bool,
) -> Result<()> {
    let o = obj("constant", name);
    let ty = type_name.ok_or_else(|| Op2Error::new("", o.clone(), "the type string is NULL"))?;
    if !has_data {
        return Err(Op2Error::new("", o, "the data pointer is NULL"));
    }
    check_arg_gbl("", dim, ty, type_size).map_err(|e| Op2Error::new("", o, e.msg))
}

/// Summary of a checked loop.
#[derive(Debug, Clone, Default)]
pub struct LoopInfo {
    /// Any enabled argument reaches a dat through a map.
    pub indirect: bool,
    /// Number of distinct (dat, map) pairs accessed indirectly, OP2's `ninds`.
    pub ninds: usize,
    /// Per argument, the index of its indirect (dat) group or -1, OP2's `inds`.
    pub inds: Vec<i32>,
}

/// Check every argument of `op_par_loop(name, set, args)` against the loop set.
pub fn check_loop(d: &Domain, name: &str, set: SetId, args: &[ArgSpec]) -> Result<LoopInfo> {
    let set_name = &d.set(set).name;
    let lerr = |i: usize, msg: String| {
        Op2Error::new("op_par_loop", obj("loop", name), format!("arg {i}: {msg}"))
    };
    let mut info = LoopInfo {
        inds: vec![-1; args.len()],
        ..LoopInfo::default()
    };
    let mut groups: Vec<DatId> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if !a.opt {
            continue;
        }
        match &a.kind {
            ArgKind::Dat { dat, map, idx } => {
                check_loop_dat(d, set, set_name, a, *dat, *map, *idx).map_err(|m| lerr(i, m))?;
                if map.is_some() {
                    info.indirect = true;
                    let g = match groups.iter().position(|g| g == dat) {
                        Some(g) => g,
                        None => {
                            groups.push(*dat);
                            groups.len() - 1
                        }
                    };
                    info.inds[i] = g as i32;
                }
            }
            ArgKind::Gbl => {}
            ArgKind::Idx { map, idx } => {
                check_loop_idx(d, set, set_name, *map, *idx).map_err(|m| lerr(i, m))?;
            }
            ArgKind::Info { reference } => {
                check_loop_info(*reference, args.len()).map_err(|m| lerr(i, m))?;
            }
        }
    }
    info.ninds = groups.len();
    Ok(info)
}

/// A loop's dat argument: valid for its dat and map ([`check_arg_dat`]), a
/// direct dat on the loop set, a map from the loop set.
fn check_loop_dat(
    d: &Domain,
    set: SetId,
    set_name: &str,
    a: &ArgSpec,
    dat: DatId,
    map: Option<MapId>,
    idx: i32,
) -> std::result::Result<(), String> {
    check_arg_dat(
        "op_par_loop",
        d,
        dat,
        idx,
        map,
        a.dim,
        &a.type_name,
        a.access,
    )
    .map_err(|e| format!("{}: {}", e.object, e.msg))?;
    let dt = d.dat(dat);
    match map {
        None if dt.set != set => Err(format!(
            "direct dat \"{}\" is on set \"{}\", not on the loop set \"{}\"",
            dt.name,
            d.set(dt.set).name,
            set_name
        )),
        Some(m) if d.map(m).from != set => {
            let mp = d.map(m);
            Err(format!(
                "map \"{}\" is from set \"{}\", not from the loop set \"{}\"",
                mp.name,
                d.set(mp.from).name,
                set_name
            ))
        }
        _ => Ok(()),
    }
}

/// A loop's `op_arg_idx`: a map from the loop set and a column of it, or
/// `OP_ID` with idx -1.
fn check_loop_idx(
    d: &Domain,
    set: SetId,
    set_name: &str,
    map: Option<MapId>,
    idx: i32,
) -> std::result::Result<(), String> {
    let Some(m) = map else {
        if idx != -1 {
            return Err(format!("op_arg_idx idx {idx} with OP_ID must be -1"));
        }
        return Ok(());
    };
    let mp = d.map(m);
    if mp.from != set {
        return Err(format!(
            "op_arg_idx map \"{}\" is from set \"{}\", not from the loop set \"{}\"",
            mp.name,
            d.set(mp.from).name,
            set_name
        ));
    }
    if idx < 0 || idx >= mp.dim as i32 {
        return Err(format!(
            "op_arg_idx idx {idx} is outside [0, {}) for map \"{}\"",
            mp.dim, mp.name
        ));
    }
    Ok(())
}

/// A loop's `op_arg_info`: it refers to an argument of the loop.
fn check_loop_info(reference: i32, nargs: usize) -> std::result::Result<(), String> {
    if reference < 0 || reference as usize >= nargs {
        return Err(format!(
            "op_arg_info refers to arg {reference}, but the loop has {nargs} args"
        ));
    }
    Ok(())
}

/// The type code of a kernel parameter, as op_seq.h's trampoline sends it:
/// 1 double, 2 float, 3 int, 4 unsigned int, 5 long long, 6 unsigned long
/// long, 7 bool, 0 unknown; plus 16 for a pointer to pointers (`T**`).
fn param_code(t: ScalarType) -> i32 {
    match t {
        ScalarType::F64 => 1,
        ScalarType::F32 => 2,
        ScalarType::I32 => 3,
        ScalarType::U32 => 4,
        ScalarType::I64 => 5,
        ScalarType::U64 => 6,
        ScalarType::Bool => 7,
        ScalarType::Other => 0,
    }
}

fn param_name(c: i32) -> &'static str {
    match c & 15 {
        1 => "double",
        2 => "float",
        3 => "int",
        4 => "unsigned int",
        5 => "long long",
        6 => "unsigned long long",
        7 => "bool",
        _ => "?",
    }
}

/// Compare a C++ kernel's parameter types (their codes, see `param_code`)
/// with the loop's arguments: a vector argument needs `T**`, any other `T*`
/// of the argument's type.
pub fn check_kernel_params(name: &str, specs: &[ArgSpec], codes: &[i32]) -> Result<()> {
    let err = |i: usize, m: String| {
        Op2Error::new("op_par_loop", obj("loop", name), format!("arg {i}: {m}"))
    };
    for (i, (s, &c)) in specs.iter().zip(codes).enumerate() {
        if !s.opt || c == 0 {
            continue;
        }
        let vector = matches!(s.kind, ArgKind::Dat { idx, .. } if idx < -1);
        let is_pp = c & 16 != 0;
        if vector && !is_pp {
            return Err(err(
                i,
                "a vector argument (idx < -1) needs a kernel parameter of type T**".into(),
            ));
        }
        if !vector && is_pp {
            return Err(err(i, format!("the kernel parameter is {}** but the argument is not a vector argument (idx < -1)", param_name(c))));
        }
        let (want, shown) = match s.kind {
            ArgKind::Idx { .. } => (ScalarType::I32, "int"),
            _ => (ScalarType::parse(&s.type_name), s.type_name.as_str()),
        };
        let wc = param_code(want);
        if wc != 0 && (c & 15) != 0 && wc != (c & 15) {
            return Err(err(
                i,
                format!(
                    "the kernel parameter is {}* but the argument's type is \"{shown}\"",
                    param_name(c)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::MapCheck;

    fn mesh() -> (Domain, SetId, SetId, MapId, DatId, DatId) {
        let mut d = Domain::new();
        let nodes = d.decl_set(3, "nodes").unwrap();
        let edges = d.decl_set(2, "edges").unwrap();
        let pedge = d
            .decl_map(edges, nodes, 2, &[0, 1, 1, 2], 0, "pedge", MapCheck::Local)
            .unwrap();
        let x = d
            .decl_dat("op_decl_dat", nodes, 2, "double", 8, None, "x", false)
            .unwrap();
        let w = d
            .decl_dat("op_decl_dat", edges, 1, "float", 4, None, "w", false)
            .unwrap();
        (d, nodes, edges, pedge, x, w)
    }

    fn dat(dat: DatId, map: Option<MapId>, idx: i32, dim: i32, t: &str, acc: Access) -> ArgSpec {
        ArgSpec {
            kind: ArgKind::Dat { dat, map, idx },
            dim,
            type_name: t.into(),
            access: acc,
            opt: true,
        }
    }

    #[test]
    fn good_loop_and_inds() {
        let (d, _n, edges, pedge, x, w) = mesh();
        let args = vec![
            dat(x, Some(pedge), 0, 2, "double", Access::Read),
            dat(x, Some(pedge), 1, 2, "double", Access::Read),
            dat(w, None, -1, 1, "float", Access::Write),
            dat(x, Some(pedge), -2, 2, "double", Access::Inc),
        ];
        let info = check_loop(&d, "l", edges, &args).unwrap();
        assert!(info.indirect);
        assert_eq!(info.ninds, 1);
        assert_eq!(info.inds, vec![0, 0, -1, 0]);
    }

    #[test]
    fn each_mismatch_is_named() {
        let (d, nodes, edges, pedge, x, w) = mesh();
        let cases: Vec<(SetId, ArgSpec, &str)> = vec![
            (
                edges,
                dat(x, Some(pedge), 0, 3, "double", Access::Read),
                "dim 3",
            ),
            (
                edges,
                dat(x, Some(pedge), 0, 2, "float", Access::Read),
                "type \"float\"",
            ),
            (
                edges,
                dat(x, None, -1, 2, "double", Access::Read),
                "not on the loop set",
            ),
            (
                nodes,
                dat(x, Some(pedge), 0, 2, "double", Access::Read),
                "not from the loop set",
            ),
            (
                edges,
                dat(w, Some(pedge), 0, 1, "float", Access::Read),
                "goes to set",
            ),
            (
                edges,
                dat(x, Some(pedge), 2, 2, "double", Access::Read),
                "idx 2 is outside",
            ),
            (
                edges,
                dat(x, Some(pedge), -3, 2, "double", Access::Read),
                "idx -3 is outside",
            ),
            (
                edges,
                dat(x, Some(pedge), -1, 2, "double", Access::Read),
                "idx -1 is outside",
            ),
            (
                edges,
                dat(w, None, 0, 1, "float", Access::Read),
                "direct argument",
            ),
            (
                edges,
                dat(w, None, -1, 1, "float", Access::Min),
                "only allowed on global",
            ),
        ];
        for (set, a, want) in cases {
            let e = check_loop(&d, "res_calc", set, &[a]).unwrap_err();
            let s = e.to_string();
            assert!(s.contains("loop \"res_calc\""), "{s}");
            assert!(s.contains("arg 0"), "{s}");
            assert!(s.contains(want), "want {want:?} in {s}");
        }
    }

    #[test]
    fn disabled_args_are_not_checked() {
        let (d, _n, edges, _p, x, _w) = mesh();
        let mut a = dat(x, None, -1, 7, "int", Access::Read);
        a.opt = false;
        assert!(check_loop(&d, "l", edges, &[a]).is_ok());
    }

    #[test]
    fn gbl_checks() {
        assert!(check_arg_gbl("op_arg_gbl", 1, "double", 8).is_ok());
        assert!(check_arg_gbl("op_arg_gbl", 1, "double", 4).is_err());
        assert!(check_arg_gbl("op_arg_gbl", 0, "double", 8).is_err());
        assert!(check_arg_gbl("op_arg_gbl", 2, "my_t", 24).is_ok());
    }
}
