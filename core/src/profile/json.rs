//! The JSON document of `op_profile_output_json` in OP2's layout. Output
//! only: profiles cross MPI ranks in the binary encoding of
//! [`wire`](super::wire), so nothing in this crate reads JSON back.

use super::tree::{Node, NodeKind, Profiler};
use super::LEVEL_DISABLED;
use std::fmt::Write as _;
use std::time::Duration;

/// Whole nanoseconds, saturating at `u64::MAX` (about 584 years).
fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Node {
    /// The node as compact JSON in the layout OP2 writes (nlohmann, keys in
    /// alphabetical order, durations as integer nanoseconds, kind as 0/1):
    /// `{"children":[..],"clock":{"max":..,"min":..,"n":..,"total":..},`
    /// `"name":"..","num_ranks":..,"type":0}`. A tree merged from several
    /// MPI ranks adds, in alphabetical place, `"rank_totals":[..]` (each
    /// rank's total in nanoseconds, [`Node::rank_totals`]); OP2 writes no
    /// such key, and readers of its layout ignore it.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"children\":[");
        for (i, child) in self.children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            child.write_json(out);
        }
        let _ = write!(
            out,
            "],\"clock\":{{\"max\":{},\"min\":{},\"n\":{},\"total\":{}}},\"name\":",
            duration_nanos(self.clock.max),
            duration_nanos(self.clock.min),
            self.clock.n,
            duration_nanos(self.clock.total)
        );
        write_json_string(out, &self.name);
        let kind = match self.kind {
            NodeKind::Standard => 0,
            NodeKind::Kernel => 1,
        };
        let _ = write!(out, ",\"num_ranks\":{}", self.num_ranks);
        if !self.rank_totals.is_empty() {
            out.push_str(",\"rank_totals\":[");
            for (i, t) in self.rank_totals.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", duration_nanos(*t));
            }
            out.push(']');
        }
        let _ = write!(out, ",\"type\":{kind}}}");
    }
}

/// Writes `s` as a JSON string literal, escaping as nlohmann's `dump()` does:
/// `"` and `\`, the short forms `\b \f \n \r \t`, other control characters
/// below 0x20 as `\u00xx`; everything else (including non-ASCII) verbatim.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Profiler {
    /// The JSON document `op_profile_output_json(file)` writes (see
    /// [`Node::to_json`]; no trailing newline), built from
    /// [`snapshot`](Self::snapshot). `None` at level 0 or before `start`, in
    /// which case OP2 writes no file and prints nothing; otherwise OP2 prints
    /// `Writing timing JSON to: <file>\n` (or
    /// `Unable to open timing JSON output file: <file> (<strerror>)\n`).
    pub fn output_json(&self) -> Option<String> {
        if self.level() == LEVEL_DISABLED {
            return None;
        }
        self.snapshot().map(|root| root.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::test_util::{at, ns, seq_loop, us};
    use crate::profile::Clock;
    use std::time::Instant;

    #[test]
    fn json_layout_matches_op2() {
        let t = Instant::now();
        let mut p = Profiler::new(2);
        p.start("App", us(t, 0));
        p.enter_kernel("k", "seq", "Direct", us(t, 1));
        p.exit(us(t, 3));
        p.enter("S", us(t, 3));
        p.exit(us(t, 4));
        p.enter("S", us(t, 5));
        p.exit(us(t, 8));
        p.end(us(t, 10));
        assert_eq!(
            p.output_json().unwrap(),
            "{\"children\":[\
             {\"children\":[],\"clock\":{\"max\":2000,\"min\":2000,\"n\":1,\"total\":2000},\
             \"name\":\"k/seq/Direct\",\"num_ranks\":1,\"type\":1},\
             {\"children\":[],\"clock\":{\"max\":3000,\"min\":1000,\"n\":2,\"total\":4000},\
             \"name\":\"S\",\"num_ranks\":1,\"type\":0}],\
             \"clock\":{\"max\":10000,\"min\":10000,\"n\":1,\"total\":10000},\
             \"name\":\"App\",\"num_ranks\":1,\"type\":0}"
        );
    }

    #[test]
    fn json_string_escaping() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c/d\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}é∑😀");
        assert_eq!(
            s,
            "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}é∑😀\""
        );
        let mut node = Node::new("x\"y\nz");
        node.clock.submit(ns(5));
        let json = node.to_json();
        assert!(json.contains("\"name\":\"x\\\"y\\nz\""), "{json}");
    }

    /// A node from a JSON document read by serde_json, as a reader of
    /// `OP_PROFILE_JSON_OUTPUT` files would do it.
    fn node_from_json(value: &serde_json::Value) -> Node {
        let nanos = |key: &str| Duration::from_nanos(value["clock"][key].as_u64().unwrap());
        Node {
            name: value["name"].as_str().unwrap().to_owned(),
            kind: match value["type"].as_u64() {
                Some(0) => NodeKind::Standard,
                Some(1) => NodeKind::Kernel,
                other => panic!("type {other:?}"),
            },
            clock: Clock {
                n: value["clock"]["n"].as_u64().unwrap(),
                total: nanos("total"),
                min: nanos("min"),
                max: nanos("max"),
            },
            num_ranks: value["num_ranks"].as_u64().unwrap(),
            rank_totals: value["rank_totals"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|v| Duration::from_nanos(v.as_u64().unwrap()))
                        .collect()
                })
                .unwrap_or_default(),
            children: value["children"]
                .as_array()
                .unwrap()
                .iter()
                .map(node_from_json)
                .collect(),
        }
    }

    /// The JSON written is valid and holds the whole tree (read back with
    /// serde_json: this crate has no JSON reader).
    #[test]
    fn json_round_trip() {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("Ap\"p\u{2}é\t\n\u{1f}∑😀", at(t, 0));
        seq_loop(
            &mut p,
            "res\\calc",
            "Indirect",
            t,
            [1_000, 2_000, 3_000, 3_500],
        );
        p.enter("user", at(t, 4));
        p.exit(at(t, 5));
        p.end(at(t, 6));
        let tree = p.snapshot().unwrap();
        let json: serde_json::Value = serde_json::from_str(&p.output_json().unwrap()).unwrap();
        let back = node_from_json(&json);
        assert_eq!(back, tree);
    }
}
