//! `OP2_RS_CONFIG`: per-loop options from a file, in the format of OP2
//! translator-v2's `-c`/`--config` option, so that a configuration written
//! for OP2's translator serves unchanged.
//!
//! The file holds one JSON object, or an array of them (OP2's `-c` given
//! several times, applied in order); a value of `OP2_RS_CONFIG` that
//! starts with `{` or `[` is that JSON itself, as OP2's `-c` takes it. Each object maps a pattern to the
//! options of the loops whose names it matches from their start (OP2's
//! Python `re.match`: `res` matches `res_calc`, `calc` does not, `.*calc`
//! does):
//!
//! ```json
//! {".*": {"atomics": true}, "dirichlet|spMV": {"atomics": false, "color2": true}}
//! ```
//!
//! For each loop the options of every matching pattern are merged in file
//! order, a later value of a key replacing an earlier one (as the
//! translator merges them). The keys:
//! * `atomics` (OP2's): `true`: increments through maps by atomic adds;
//!   `false`: colouring, two-level in global memory when `color2` is
//!   `true` (translator-v2's `color2` is that scheme: our
//!   `colour2-global`), the block's data staged in shared memory when it
//!   is `false` (our default, OP2's original CUDA scheme), and without
//!   `color2` the colouring `OP2_RS_CONFLICTS` names for every loop
//!   (staged when it names none);
//! * `color2` (OP2's) given without `atomics`: `true` `colour2-global`,
//!   `false` `colour2`;
//! * `conflicts` (ours): `"colour2"`, `"colour2-global"` or `"atomics"`,
//!   as in `OP2_RS_CONFLICTS`; where given it decides, whatever `atomics`
//!   and `color2` say;
//! * `fma` (ours): `true` or `false`, `OP2_RS_FMA` for the loop;
//! * `block_size` (ours): the loop's work-group size and plan block size,
//!   a power of two from 1 to 1024, `OP2_RS_BLOCK_SIZE` for the loop (what
//!   OP2's translated code takes from `OP_BLOCK_SIZE_<n>` at compile time).
//!
//! The translator's other keys (`grouped`, `device`, `gbl_inc_atomic`,
//! `func_prefix`, `hip`, `vectorise`, `thread_timing`, `target`) shape
//! code this library does not write and are accepted and ignored:
//! `gbl_inc_atomic` in particular, since global reductions here are
//! combined in a fixed order so that their results never depend on the
//! device's scheduling. Any other key, a value of the wrong type, a pattern
//! that is not a regular expression, a file that cannot be read or is not
//! JSON of this form stops `op_init` naming the file and what is wrong.
//!
//! Patterns are the `regex` crate's syntax (Python's for everything a loop
//! name needs: `.`, `*`, `|`, classes, `\w`, `\d`), ASCII-only.

use op2_codegen::Conflicts;
use regex::bytes::{Regex, RegexBuilder};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// OP2 translator-v2's configuration keys that shape code we do not write.
const OP2_KEYS_IGNORED: &[&str] = &[
    "grouped",
    "device",
    "gbl_inc_atomic",
    "func_prefix",
    "hip",
    "vectorise",
    "thread_timing",
    "target",
];

/// A work-group size the generator and the devices take (OP2_RS_BLOCK_SIZE,
/// `block_size`, OP_BLOCK_SIZE), and the rule in words for messages.
pub fn block_size_ok(b: usize) -> bool {
    b.is_power_of_two() && b <= 1024
}
pub const BLOCK_SIZE_RULE: &str = "a power of two from 1 to 1024";

/// The options one pattern gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Keys {
    atomics: Option<bool>,
    color2: Option<bool>,
    conflicts: Option<Conflicts>,
    fma: Option<bool>,
    block_size: Option<usize>,
}

impl Keys {
    /// `later`'s keys over these.
    fn merge(&mut self, later: &Keys) {
        self.atomics = later.atomics.or(self.atomics);
        self.color2 = later.color2.or(self.color2);
        self.conflicts = later.conflicts.or(self.conflicts);
        self.fma = later.fma.or(self.fma);
        self.block_size = later.block_size.or(self.block_size);
    }

    fn scheme(&self) -> Option<Wanted> {
        let colour = |color2: bool| {
            Wanted::Scheme(if color2 {
                Conflicts::Colour2Global
            } else {
                Conflicts::Colour2
            })
        };
        match (self.conflicts, self.atomics, self.color2) {
            (Some(c), _, _) => Some(Wanted::Scheme(c)),
            (None, Some(true), _) => Some(Wanted::Scheme(Conflicts::Atomics)),
            (None, Some(false), None) => Some(Wanted::Colouring),
            (None, _, Some(c2)) => Some(colour(c2)),
            (None, None, None) => None,
        }
    }
}

struct Entry {
    pattern: String,
    re: Regex,
    keys: Keys,
}

/// The scheme the file asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    Scheme(Conflicts),
    /// `"atomics": false` without `color2`: colouring, the default's when
    /// `OP2_RS_CONFLICTS` names one.
    Colouring,
}

/// What the file says for one loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoopOptions {
    /// The conflict scheme, a preference as `OP2_RS_CONFLICTS=atomics` is
    /// (see [`crate::ConflictChoice::of`]).
    pub conflicts: Option<Wanted>,
    /// Fused multiply-adds.
    pub fma: Option<bool>,
    /// The work-group (and plan block) size.
    pub block_size: Option<usize>,
}

/// A parsed `OP2_RS_CONFIG` file.
#[derive(Default)]
pub struct LoopConfig {
    entries: Vec<Entry>,
}

/// A JSON object's members in the file's order (serde_json's own map
/// sorts them, and the order of patterns decides which wins); a repeated
/// name keeps its first place and its last value, as Python's `json`
/// does.
struct Ordered(Vec<(String, Value)>);

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of patterns")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
        let mut out: Vec<(String, Value)> = Vec::new();
        while let Some((k, v)) = m.next_entry::<String, Value>()? {
            match out.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        Ok(Ordered(out))
    }
}

impl<'de> de::Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        d.deserialize_map(OrderedVisitor)
    }
}

/// The whole file: one object, or an array of them.
struct Top(Vec<Ordered>);

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of patterns, or an array of them")
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Top, A::Error> {
        let one = OrderedVisitor.visit_map(m)?;
        Ok(Top(vec![one]))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Top, A::Error> {
        let mut all = Vec::new();
        while let Some(o) = s.next_element::<Ordered>()? {
            all.push(o);
        }
        Ok(Top(all))
    }
}

impl<'de> de::Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

fn keys_of(pattern: &str, v: &Value) -> Result<Keys, String> {
    let Value::Object(members) = v else {
        return Err(format!(
            "pattern '{pattern}': its options are not an object ({v})"
        ));
    };
    let mut k = Keys::default();
    for (name, val) in members {
        let flag = || {
            val.as_bool().ok_or_else(|| {
                format!("pattern '{pattern}': \"{name}\" is {val}, not true or false")
            })
        };
        match name.as_str() {
            "atomics" => k.atomics = Some(flag()?),
            "color2" => k.color2 = Some(flag()?),
            "fma" => k.fma = Some(flag()?),
            "block_size" => {
                k.block_size = Some(
                    val.as_u64()
                        .and_then(|b| usize::try_from(b).ok())
                        .filter(|&b| block_size_ok(b))
                        .ok_or_else(|| {
                            format!(
                                "pattern '{pattern}': \"block_size\" is {val}, not {BLOCK_SIZE_RULE}"
                            )
                        })?,
                )
            }
            "conflicts" => {
                k.conflicts = Some(
                    val.as_str()
                        .and_then(crate::front::scheme_named)
                        .ok_or_else(|| {
                            format!(
                                "pattern '{pattern}': \"conflicts\" is {val}, not \"colour2\", \"colour2-global\" or \"atomics\""
                            )
                        })?,
                )
            }
            n if OP2_KEYS_IGNORED.contains(&n) => {}
            n => {
                return Err(format!(
                    "pattern '{pattern}': unknown option \"{n}\" (this library reads atomics, color2, conflicts, fma and block_size, and ignores OP2's {})",
                    OP2_KEYS_IGNORED.join(", ")
                ))
            }
        }
    }
    Ok(k)
}

impl LoopConfig {
    /// Parse a file's text; errors say what is wrong, without the file's
    /// name.
    pub fn parse(text: &str) -> Result<LoopConfig, String> {
        let top: Top = serde_json::from_str(text)
            .map_err(|e| format!("not a JSON object of patterns, nor an array of them: {e}"))?;
        let mut entries = Vec::new();
        for obj in top.0 {
            for (pattern, v) in obj.0 {
                let keys = keys_of(&pattern, &v)?;
                // anchored at the start only, as Python's re.match
                let re = RegexBuilder::new(&format!("^(?:{pattern})"))
                    .unicode(false)
                    .build()
                    .map_err(|e| {
                        let why = e.to_string();
                        let last = why.lines().last().unwrap_or_default().trim().to_string();
                        format!("pattern '{pattern}' is not a regular expression: {last}")
                    })?;
                entries.push(Entry { pattern, re, keys });
            }
        }
        Ok(LoopConfig { entries })
    }

    /// `OP2_RS_CONFIG`'s value: the JSON itself when it starts with `{`
    /// or `[` (as OP2's `-c` takes it on the command line), otherwise a
    /// file's path.
    pub fn from_var(v: &str) -> Result<LoopConfig, String> {
        if v.trim_start().starts_with(['{', '[']) {
            LoopConfig::parse(v).map_err(|why| format!("OP2_RS_CONFIG (inline): {why}"))
        } else {
            LoopConfig::read(Path::new(v))
        }
    }

    /// Read and parse `path`; errors name it as `OP2_RS_CONFIG=path`.
    pub fn read(path: &Path) -> Result<LoopConfig, String> {
        let named = |why: String| format!("OP2_RS_CONFIG={}: {why}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| named(format!("cannot read: {e}")))?;
        LoopConfig::parse(&text).map_err(named)
    }

    /// The file's patterns that match none of `names` (in file order,
    /// each once).
    pub fn unmatched(&self, names: &[&str]) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for e in &self.entries {
            let used = names.iter().any(|n| e.re.is_match(n.as_bytes()));
            if !used && !out.contains(&e.pattern.as_str()) {
                out.push(&e.pattern);
            }
        }
        out
    }

    /// The options the file gives loop `name`.
    pub fn of(&self, name: &str) -> LoopOptions {
        let mut k = Keys::default();
        for e in self
            .entries
            .iter()
            .filter(|e| e.re.is_match(name.as_bytes()))
        {
            k.merge(&e.keys);
        }
        LoopOptions {
            conflicts: k.scheme(),
            fma: k.fma,
            block_size: k.block_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(c: Option<Conflicts>, fma: Option<bool>) -> LoopOptions {
        LoopOptions {
            conflicts: c.map(Wanted::Scheme),
            fma,
            block_size: None,
        }
    }

    #[test]
    fn op2_translator_configurations_read_as_the_translator_reads_them() {
        // the GPU bundle's colouring configuration for OP2's translator
        let c = LoopConfig::parse(r#"{".*": {"atomics": false, "color2": true}}"#).unwrap();
        assert_eq!(c.of("res_calc"), opts(Some(Conflicts::Colour2Global), None));
        // anchored at the start only
        let c = LoopConfig::parse(
            r#"{"res": {"atomics": true}, "calc": {"fma": true}, ".*date": {"fma": true}}"#,
        )
        .unwrap();
        assert_eq!(c.of("res_calc"), opts(Some(Conflicts::Atomics), None));
        assert_eq!(c.of("bres_calc"), opts(None, None));
        assert_eq!(c.of("update"), opts(None, Some(true)));
        // later patterns' keys replace earlier ones', the others stay
        let c = LoopConfig::parse(
            r#"[{".*": {"atomics": true, "fma": true}}, {"dirichlet|spMV": {"atomics": false}}]"#,
        )
        .unwrap();
        assert_eq!(c.of("spMV").conflicts, Some(Wanted::Colouring));
        assert_eq!(c.of("spMV").fma, Some(true));
        assert_eq!(c.of("res_calc"), opts(Some(Conflicts::Atomics), Some(true)));
        // order inside one object counts too (not sorted by pattern)
        let c = LoopConfig::parse(r#"{"z.*": {"fma": false}, ".*": {"fma": true}}"#).unwrap();
        assert_eq!(c.of("zeta").fma, Some(true));
        let c = LoopConfig::parse(r#"{".*": {"fma": true}, "z.*": {"fma": false}}"#).unwrap();
        assert_eq!(c.of("zeta").fma, Some(false));
        // a repeated pattern: first place, last value
        let c =
            LoopConfig::parse(r#"{"a": {"fma": true}, ".*": {"fma": false}, "a": {"fma": true}}"#)
                .unwrap();
        assert_eq!(c.of("a").fma, Some(false));
        // color2 alone; conflicts decides over atomics whatever the order
        let c = LoopConfig::parse(
            r#"[{"p": {"color2": false}, "q": {"color2": true}},
                {"r": {"conflicts": "colour2-global"}}, {"r": {"atomics": true}}]"#,
        )
        .unwrap();
        assert_eq!(
            c.of("p").conflicts,
            Some(Wanted::Scheme(Conflicts::Colour2))
        );
        assert_eq!(
            c.of("q").conflicts,
            Some(Wanted::Scheme(Conflicts::Colour2Global))
        );
        assert_eq!(
            c.of("r").conflicts,
            Some(Wanted::Scheme(Conflicts::Colour2Global))
        );
        // OP2's other keys are ignored; \w and \d work
        let c = LoopConfig::parse(
            r#"{"\\w+_\\d": {"grouped": true, "device": 2, "gbl_inc_atomic": true,
                "vectorise": {"enable": true}, "func_prefix": "__device__", "atomics": true}}"#,
        )
        .unwrap();
        assert_eq!(
            c.of("loop_2").conflicts,
            Some(Wanted::Scheme(Conflicts::Atomics))
        );
        assert_eq!(c.of("loop_x"), opts(None, None));
        assert_eq!(
            LoopConfig::parse("[]").unwrap().of("res_calc"),
            LoopOptions::default()
        );
        let c =
            LoopConfig::parse(r#"{".*": {"block_size": 256}, "res": {"block_size": 1}}"#).unwrap();
        assert_eq!(c.of("update").block_size, Some(256));
        assert_eq!(c.of("res_calc").block_size, Some(1));
    }

    #[test]
    fn patterns_that_match_no_loop_are_listed_once() {
        let c = LoopConfig::parse(
            r#"[{"res": {"fma": true}, "bres_kalc": {"atomics": true}}, {"bres_kalc": {}, ".*": {}}]"#,
        )
        .unwrap();
        assert_eq!(c.unmatched(&["res_calc", "bres_calc"]), ["bres_kalc"]);
        assert_eq!(c.unmatched(&[]), ["res", "bres_kalc", ".*"]);
        assert!(c.unmatched(&["bres_kalc_2", "res"]).is_empty());
    }

    #[test]
    fn malformed_configurations_say_what_is_wrong() {
        let err = |t: &str| LoopConfig::parse(t).err().expect("an error");
        assert!(
            err("{").starts_with("not a JSON object of patterns, nor an array of them: "),
            "{}",
            err("{")
        );
        assert!(
            err("3").starts_with("not a JSON object of patterns, nor an array of them: "),
            "{}",
            err("3")
        );
        assert!(
            err("[3]").starts_with("not a JSON object of patterns, nor an array of them: "),
            "{}",
            err("[3]")
        );
        assert_eq!(
            err(r#"{"res_calc": true}"#),
            "pattern 'res_calc': its options are not an object (true)"
        );
        assert_eq!(
            err(r#"{"res_calc": {"atomics": "yes"}}"#),
            "pattern 'res_calc': \"atomics\" is \"yes\", not true or false"
        );
        assert_eq!(
            err(r#"{"res_calc": {"conflicts": "sometimes"}}"#),
            "pattern 'res_calc': \"conflicts\" is \"sometimes\", not \"colour2\", \"colour2-global\" or \"atomics\""
        );
        let e = err(r#"{"res_calc": {"atomic": true}}"#);
        assert!(
            e.starts_with("pattern 'res_calc': unknown option \"atomic\" (this library reads atomics, color2, conflicts, fma and block_size, and ignores OP2's grouped,"),
            "{e}"
        );
        for b in ["0", "48", "2048", "-64", "64.0", "\"64\""] {
            assert_eq!(
                err(&format!(r#"{{"res_calc": {{"block_size": {b}}}}}"#)),
                format!(
                    "pattern 'res_calc': \"block_size\" is {b}, not a power of two from 1 to 1024"
                )
            );
        }
        let e = err(r#"{"res_(calc": {"atomics": true}}"#);
        assert!(
            e.starts_with("pattern 'res_(calc' is not a regular expression: "),
            "{e}"
        );
        let e = LoopConfig::from_var(r#" {"res_calc": {"atomics": 1}}"#)
            .err()
            .expect("an error");
        assert_eq!(
            e,
            "OP2_RS_CONFIG (inline): pattern 'res_calc': \"atomics\" is 1, not true or false"
        );
        let inline = LoopConfig::from_var(r#"[{"res": {"fma": true}}]"#).unwrap();
        assert_eq!(inline.of("res_calc").fma, Some(true));
        let e = LoopConfig::from_var("/nowhere/op2.json")
            .err()
            .expect("an error");
        assert!(
            e.starts_with("OP2_RS_CONFIG=/nowhere/op2.json: cannot read: "),
            "{e}"
        );
    }
}
