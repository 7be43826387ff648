//! `op2rs info`: list and check an OP2-layout HDF5 file.

use crate::mesh::{parse_bindings, Binding, Mesh};
use crate::SetArgs;
use std::fmt::Write as _;

/// A value as short text: integers without a fraction, others to 7
/// significant digits (scientific outside [1e-4, 1e6)).
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if (1e-4..1e6).contains(&v.abs()) {
        let digits = (6 - v.abs().log10().floor() as i32).max(0) as usize;
        let t = format!("{v:.digits$}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.6e}")
    }
}

fn list(values: impl Iterator<Item = f64>) -> String {
    let v: Vec<String> = values.map(num).collect();
    format!("[{}]", v.join(", "))
}

/// The listing printed on stdout.
pub fn listing(mesh: &Mesh) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "file {}", mesh.path);
    let _ = writeln!(o, "sets ({}):", mesh.sets.len());
    for s in &mesh.sets {
        let _ = writeln!(o, "  {}  size {}", s.name, s.size);
    }
    let _ = writeln!(o, "maps ({}):", mesh.maps.len());
    for m in &mesh.maps {
        let range = match m.to.set().and_then(|t| mesh.set(t)) {
            Some(t) if m.out_of_range(t.size).is_none() => "all entries in range".to_string(),
            Some(t) => format!(
                "{} entries OUT OF RANGE",
                m.out_of_range(t.size).map_or(0, |x| x.3)
            ),
            None => "to-set unknown".to_string(),
        };
        let _ = writeln!(
            o,
            "  {}  {} -> {}  dim {}  {}  {range}",
            m.name,
            m.from.describe(),
            m.to.describe(),
            m.dim,
            if m.wide { "long" } else { "int" }
        );
    }
    let _ = writeln!(o, "dats ({}):", mesh.dats.len());
    for d in &mesh.dats {
        let ints = |v: Vec<i64>| {
            let t: Vec<String> = v.iter().map(i64::to_string).collect();
            format!("[{}]", t.join(", "))
        };
        let (min, max) = match (d.int_min_max(), d.min_max()) {
            (Some(mm), _) => (
                ints(mm.iter().map(|x| x.0).collect()),
                ints(mm.iter().map(|x| x.1).collect()),
            ),
            (None, Some(mm)) => (list(mm.iter().map(|x| x.0)), list(mm.iter().map(|x| x.1))),
            _ => ("[]".to_string(), "[]".to_string()),
        };
        let _ = writeln!(
            o,
            "  {}  on {}  dim {}  {}  min {min}  max {max}",
            d.name,
            d.set.describe(),
            d.dim,
            d.type_str
        );
    }
    let _ = writeln!(o, "constants ({}):", mesh.consts.len());
    for c in &mesh.consts {
        let _ = writeln!(
            o,
            "  {}  dim {}  {}  {}",
            c.name,
            c.dim,
            c.type_str,
            list(c.values.iter().copied())
        );
    }
    o
}

/// Notes on guessed sets.
fn notes(mesh: &Mesh) -> Vec<String> {
    let mut n = Vec::new();
    let amb = |b: &Binding| matches!(b, Binding::Ambiguous(..));
    for m in &mesh.maps {
        if amb(&m.from) || amb(&m.to) {
            n.push(format!(
                "map '{}': the set is ambiguous ({} -> {}); name it with --set {}=FROM:TO",
                m.name,
                m.from.describe(),
                m.to.describe(),
                m.name
            ));
        }
    }
    for d in &mesh.dats {
        if amb(&d.set) {
            n.push(format!(
                "dat '{}': the set is ambiguous ({}); name it with --set {}=SET",
                d.name,
                d.set.describe(),
                d.name
            ));
        }
    }
    n
}

/// Run `op2rs info`: `Ok(false)` when the file has problems.
pub fn run(file: &str, sets: &SetArgs) -> Result<bool, String> {
    let bindings = parse_bindings(&sets.set)?;
    let mesh = Mesh::read(file, &bindings)?;
    print!("{}", listing(&mesh));
    let notes = notes(&mesh);
    if !notes.is_empty() {
        println!("notes:");
        for n in &notes {
            println!("  {n}");
        }
    }
    println!("(sets of maps and dats are inferred: OP2's files do not record them)");
    if mesh.problems.is_empty() {
        println!("no problems found");
        return Ok(true);
    }
    println!("problems ({}):", mesh.problems.len());
    for p in &mesh.problems {
        println!("  {p}");
        eprintln!("op2rs info: {p}");
    }
    eprintln!(
        "op2rs info: file '{file}' is inconsistent: {} problem(s)",
        mesh.problems.len()
    );
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_print_short() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(-11.0), "-11");
        assert_eq!(num(1.4), "1.4");
        assert_eq!(num(0.25), "0.25");
        assert_eq!(num(0.052_359_877_559_8), "0.05235988");
        assert_eq!(num(123_456.7), "123456.7");
        assert_eq!(num(1e-300), "1.000000e-300");
        assert_eq!(num(2.5e20), "2.500000e20");
        assert_eq!(num(f64::NAN), "NaN");
    }
}
