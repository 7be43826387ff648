//! The compact binary encoding of everything that crosses MPI ranks: profile
//! trees ([`Node`]) and per-kernel figures ([`KernelFigures`]).
//!
//! Each rank encodes its own data, the C layer gathers the byte strings
//! (`allgather_bytes`) and the root decodes them. Every value round-trips
//! exactly, names may hold any UTF-8 (tabs, newlines, quotes included), and
//! decoding never panics: a malformed message gives a [`WireError`] that
//! names the byte offset and what is wrong there.
//!
//! # Format, version 1
//!
//! Little-endian, fixed-width fields, no padding:
//!
//! | type       | bytes                                                    |
//! |------------|----------------------------------------------------------|
//! | `u8`       | 1                                                        |
//! | `u32`      | 4                                                        |
//! | `u64`      | 8                                                        |
//! | `i64`      | 8, two's complement                                      |
//! | `f64`      | the `u64` of its IEEE 754 bit pattern (NaN payloads, infinities and `-0.0` survive) |
//! | `duration` | `u64` whole seconds, then `u32` nanoseconds (< 10⁹)      |
//! | `str`      | `u64` byte length, then that many bytes of UTF-8         |
//! | `seq<T>`   | `u64` count, then that many `T`                          |
//!
//! A message is a header followed by a body, and ends exactly where its body
//! ends (trailing bytes are an error):
//!
//! ```text
//! header   = "OP2W" (4 bytes), version: u8 (= 1), kind: u8
//!            (1 = profile, 2 = kernel figures)
//! profile  = present: u8 (0 = no profile on this rank, 1 = a tree follows),
//!            then, if present, node
//! node     = name: str, kind: u8 (0 = standard, 1 = kernel),
//!            clock: n: u64, total: duration, min: duration, max: duration,
//!            num_ranks: u64, children: seq<node>
//! figures  = seq<kernel>
//! kernel   = name: str, count: i64, plan_time: f64, mpi_time: f64,
//!            transfer: f64, transfer2: f64, times: seq<f64>
//! ```
//!
//! Trees nested deeper than [`MAX_DEPTH`] levels are rejected when decoding
//! (the decoder recurses once per level). A change to the layout must bump
//! [`VERSION`]: a decoder refuses every version but its own.

use super::figures::KernelFigures;
use super::tree::{Clock, Node, NodeKind, Profiler};
use super::LEVEL_DISABLED;
use std::fmt;
use std::time::Duration;

/// First four bytes of every message.
pub const MAGIC: [u8; 4] = *b"OP2W";
/// Version of the layout written by this build (and the only one it reads).
pub const VERSION: u8 = 1;
/// Deepest profile tree accepted by the decoder, in levels (the root is one).
pub const MAX_DEPTH: usize = 512;

/// Smallest encoded node: empty name, no children.
const NODE_MIN_BYTES: usize = 8 + 1 + 8 + 3 * 12 + 8 + 8;
/// Smallest encoded kernel record: empty name, no times.
const KERNEL_MIN_BYTES: usize = 8 + 8 + 4 * 8 + 8;

/// What a message carries (the sixth byte of its header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// One rank's profile tree, or the fact that it has none.
    Profile = 1,
    /// One rank's per-kernel figures.
    KernelFigures = 2,
}

impl MessageKind {
    fn name(tag: u8) -> &'static str {
        match tag {
            1 => "profile",
            2 => "kernel figures",
            _ => "unknown",
        }
    }
}

/// Why a message does not decode: what is wrong, at which byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Offset of the offending field from the start of the message.
    pub offset: usize,
    pub problem: Problem,
}

/// What is wrong with a message (see [`WireError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The message ends inside `what`, which needs `needed` more bytes than
    /// the `available` ones.
    Truncated {
        what: &'static str,
        needed: u64,
        available: usize,
    },
    /// The first four bytes are not [`MAGIC`].
    BadMagic([u8; 4]),
    /// Written by a layout version this build does not read.
    UnsupportedVersion(u8),
    /// The header announces another kind of message (its tag).
    WrongMessage { expected: MessageKind, found: u8 },
    /// A one-byte tag holds a value outside its range.
    BadTag { what: &'static str, tag: u8 },
    /// A string is not UTF-8.
    BadUtf8 { what: &'static str },
    /// A duration's nanoseconds are 10⁹ or more.
    BadNanoseconds { what: &'static str, nanos: u32 },
    /// The tree is nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Bytes left after the end of the message (how many).
    TrailingBytes(usize),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated: {what} needs {needed} bytes, {available} left"
            ),
            Problem::BadMagic(found) => {
                write!(f, "not an op2 wire message (starts with {found:02x?})")
            }
            Problem::UnsupportedVersion(v) => {
                write!(f, "layout version {v}, this build reads version {VERSION}")
            }
            Problem::WrongMessage { expected, found } => write!(
                f,
                "expected a {} message, found kind {found} ({})",
                MessageKind::name(*expected as u8),
                MessageKind::name(*found)
            ),
            Problem::BadTag { what, tag } => write!(f, "bad tag {tag} for {what}"),
            Problem::BadUtf8 { what } => write!(f, "{what} is not valid UTF-8"),
            Problem::BadNanoseconds { what, nanos } => {
                write!(f, "{what} has {nanos} nanoseconds (must be below 10^9)")
            }
            Problem::TooDeep => write!(f, "tree nested deeper than {MAX_DEPTH} levels"),
            Problem::TrailingBytes(n) => write!(f, "{n} trailing bytes after the message"),
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid op2 wire message at byte {}: {}",
            self.offset, self.problem
        )
    }
}

impl std::error::Error for WireError {}

/// `tree` (`None`: this rank has no profile) as a profile message.
pub fn encode_profile(tree: Option<&Node>) -> Vec<u8> {
    let mut w = Writer::header(MessageKind::Profile);
    match tree {
        None => w.u8(0),
        Some(node) => {
            w.u8(1);
            w.node(node);
        }
    }
    w.out
}

/// The tree of a profile message (`None` when the rank had no profile).
pub fn decode_profile(message: &[u8]) -> Result<Option<Node>, WireError> {
    let mut r = Reader::open(message, MessageKind::Profile)?;
    let what = "profile presence flag";
    let at = r.pos;
    let tree = match r.u8(what)? {
        0 => None,
        1 => Some(r.node(1)?),
        tag => return Err(r.error_at(at, Problem::BadTag { what, tag })),
    };
    r.finish()?;
    Ok(tree)
}

/// One rank's per-kernel figures as a kernel figures message.
pub fn encode_figures(figures: &[KernelFigures]) -> Vec<u8> {
    let mut w = Writer::header(MessageKind::KernelFigures);
    w.len(figures.len());
    for kernel in figures {
        w.kernel(kernel);
    }
    w.out
}

/// The figures of a kernel figures message, in the order they were encoded.
pub fn decode_figures(message: &[u8]) -> Result<Vec<KernelFigures>, WireError> {
    let mut r = Reader::open(message, MessageKind::KernelFigures)?;
    let count = r.count("kernel figures", KERNEL_MIN_BYTES)?;
    let mut figures = Vec::with_capacity(count);
    for _ in 0..count {
        figures.push(r.kernel()?);
    }
    r.finish()?;
    Ok(figures)
}

impl Profiler {
    /// Every rank's encoded profile (in rank order) merged into a fresh
    /// profiler at `level`, or which rank's message does not decode. From
    /// two or more ranks every node also gets each rank's total
    /// ([`Node::rank_totals`]).
    pub fn merged(messages: &[Vec<u8>], level: u32) -> Result<Profiler, String> {
        let mut merged = Profiler::new(level);
        let mut trees = Vec::with_capacity(messages.len());
        for (rank, message) in messages.iter().enumerate() {
            let tree = decode_profile(message)
                .map_err(|e| format!("rank {rank}'s profile does not decode: {e}"))?;
            if let Some(tree) = &tree {
                merged.merge_tree(tree);
            }
            trees.push(tree);
        }
        if messages.len() > 1 {
            merged.record_ranks(&trees);
        }
        Ok(merged)
    }

    /// This profiler's [`snapshot`](Self::snapshot) as a profile message, to
    /// be merged on another rank with [`merge_encoded`](Self::merge_encoded).
    /// At level 0 or before `start` the message says that there is no
    /// profile.
    pub fn encode(&self) -> Vec<u8> {
        let tree = if self.level() == LEVEL_DISABLED {
            None
        } else {
            self.snapshot()
        };
        encode_profile(tree.as_ref())
    }

    /// Decodes a profile message (see [`encode`](Self::encode)) and merges
    /// its tree with [`merge_tree`](Self::merge_tree); a message without a
    /// profile changes nothing. On error the profiler is left unchanged.
    pub fn merge_encoded(&mut self, message: &[u8]) -> Result<(), WireError> {
        if let Some(tree) = decode_profile(message)? {
            self.merge_tree(&tree);
        }
        Ok(())
    }
}

/// Builds a message.
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn header(kind: MessageKind) -> Writer {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(&MAGIC);
        out.push(VERSION);
        out.push(kind as u8);
        Writer { out }
    }

    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }

    /// A length or count (`usize` is at most 64 bits wide on every target
    /// Rust supports, so the cast is lossless).
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }

    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.out.extend_from_slice(s.as_bytes());
    }

    fn duration(&mut self, d: Duration) {
        self.u64(d.as_secs());
        self.out.extend_from_slice(&d.subsec_nanos().to_le_bytes());
    }

    fn node(&mut self, node: &Node) {
        self.str(&node.name);
        self.u8(match node.kind {
            NodeKind::Standard => 0,
            NodeKind::Kernel => 1,
        });
        self.u64(node.clock.n);
        for d in [node.clock.total, node.clock.min, node.clock.max] {
            self.duration(d);
        }
        self.u64(node.num_ranks);
        self.len(node.children.len());
        for child in &node.children {
            self.node(child);
        }
    }

    fn kernel(&mut self, k: &KernelFigures) {
        self.str(&k.name);
        self.i64(k.count);
        for v in [k.plan_time, k.mpi_time, k.transfer, k.transfer2] {
            self.f64(v);
        }
        self.len(k.times.len());
        for &t in &k.times {
            self.f64(t);
        }
    }
}

/// Reads a message front to back; `pos` never passes the end.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Checks the header of `message` and positions after it.
    fn open(message: &'a [u8], expected: MessageKind) -> Result<Reader<'a>, WireError> {
        let mut r = Reader {
            bytes: message,
            pos: 0,
        };
        let magic: [u8; 4] = r.array("magic")?;
        if magic != MAGIC {
            return Err(r.error_at(0, Problem::BadMagic(magic)));
        }
        let version = r.u8("layout version")?;
        if version != VERSION {
            return Err(r.error_at(4, Problem::UnsupportedVersion(version)));
        }
        let found = r.u8("message kind")?;
        if found != expected as u8 {
            return Err(r.error_at(5, Problem::WrongMessage { expected, found }));
        }
        Ok(r)
    }

    fn error_at(&self, offset: usize, problem: Problem) -> WireError {
        WireError { offset, problem }
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        let rest = self.rest();
        match rest.get(..n) {
            Some(taken) => {
                self.pos += n;
                Ok(taken)
            }
            None => Err(self.error_at(
                self.pos,
                Problem::Truncated {
                    what,
                    needed: n as u64,
                    available: rest.len(),
                },
            )),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], WireError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, WireError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn i64(&mut self, what: &'static str) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    fn f64(&mut self, what: &'static str) -> Result<f64, WireError> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    /// A count of items that take at least `min_bytes` each: refused as
    /// truncated, before anything is allocated, when the rest of the message
    /// cannot hold that many.
    fn count(&mut self, what: &'static str, min_bytes: usize) -> Result<usize, WireError> {
        let n = self.u64(what)?;
        let needed = n.saturating_mul(min_bytes as u64);
        let available = self.rest().len();
        if needed > available as u64 {
            return Err(self.error_at(
                self.pos,
                Problem::Truncated {
                    what,
                    needed,
                    available,
                },
            ));
        }
        // needed <= available, so n fits a usize.
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn str(&mut self, what: &'static str) -> Result<String, WireError> {
        let len = self.count(what, 1)?;
        let at = self.pos;
        let bytes = self.take(len, what)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(self.error_at(at, Problem::BadUtf8 { what })),
        }
    }

    fn duration(&mut self, what: &'static str) -> Result<Duration, WireError> {
        let secs = self.u64(what)?;
        let at = self.pos;
        let nanos = self.u32(what)?;
        if nanos >= 1_000_000_000 {
            return Err(self.error_at(at, Problem::BadNanoseconds { what, nanos }));
        }
        Ok(Duration::new(secs, nanos))
    }

    /// A node at `depth` (the root is at depth 1) and its subtree.
    fn node(&mut self, depth: usize) -> Result<Node, WireError> {
        if depth > MAX_DEPTH {
            return Err(self.error_at(self.pos, Problem::TooDeep));
        }
        let name = self.str("node name")?;
        let at = self.pos;
        let kind = match self.u8("node kind")? {
            0 => NodeKind::Standard,
            1 => NodeKind::Kernel,
            tag => {
                let what = "node kind";
                return Err(self.error_at(at, Problem::BadTag { what, tag }));
            }
        };
        let clock = Clock {
            n: self.u64("clock count")?,
            total: self.duration("clock total")?,
            min: self.duration("clock min")?,
            max: self.duration("clock max")?,
        };
        let num_ranks = self.u64("rank count")?;
        let count = self.count("children", NODE_MIN_BYTES)?;
        let mut children = Vec::with_capacity(count);
        for _ in 0..count {
            children.push(self.node(depth + 1)?);
        }
        Ok(Node {
            name,
            kind,
            clock,
            num_ranks,
            rank_totals: Vec::new(),
            children,
        })
    }

    /// One kernel's figures.
    fn kernel(&mut self) -> Result<KernelFigures, WireError> {
        let name = self.str("kernel name")?;
        let count = self.i64("kernel count")?;
        let plan_time = self.f64("plan time")?;
        let mpi_time = self.f64("MPI time")?;
        let transfer = self.f64("transfer")?;
        let transfer2 = self.f64("transfer2")?;
        let n = self.count("thread times", 8)?;
        let times = (0..n)
            .map(|_| self.f64("thread time"))
            .collect::<Result<_, _>>()?;
        Ok(KernelFigures {
            name,
            count,
            times,
            plan_time,
            mpi_time,
            transfer,
            transfer2,
        })
    }

    /// Succeeds when the whole message has been read.
    fn finish(&self) -> Result<(), WireError> {
        match self.rest().len() {
            0 => Ok(()),
            n => Err(self.error_at(self.pos, Problem::TrailingBytes(n))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::figures::tests::k;
    use crate::profile::test_util::{at, ms, ns, rank_profile, seq_loop};
    use proptest::prelude::*;
    use std::time::Instant;

    /// Two or more ranks: every node of the merged tree holds each rank's
    /// own total (zero where the rank has no such node), written to JSON as
    /// `rank_totals`; from one rank nothing is added and the JSON keeps
    /// OP2's layout.
    #[test]
    fn merged_trees_keep_each_ranks_total() {
        let t = Instant::now();
        let a = rank_profile(t, 1, false).encode();
        let b = rank_profile(t, 2, true).encode();
        let merged = Profiler::merged(&[a.clone(), b], 2).unwrap();
        let root = merged.snapshot().unwrap();
        assert_eq!(root.rank_totals, vec![ms(5), ms(10)]);
        let kernel = root.child("k/seq/Direct").unwrap();
        assert_eq!(kernel.clock.total, ms(3) + ms(6));
        assert_eq!(kernel.rank_totals, vec![ms(3), ms(6)]);
        let only = root.child("Only here").unwrap();
        assert_eq!(only.rank_totals, vec![ms(0), ms(2)]);
        let json = merged.output_json().unwrap();
        assert!(
            json.contains("\"num_ranks\":2,\"rank_totals\":[3000000,6000000],\"type\":1"),
            "{json}"
        );
        let one = Profiler::merged(&[a], 2).unwrap();
        assert!(one.snapshot().unwrap().rank_totals.is_empty());
        assert!(!one.output_json().unwrap().contains("rank_totals"));
    }

    /// A rank without a profile (level 0 there) is a column of zeros.
    #[test]
    fn a_rank_without_profile_is_zero() {
        let t = Instant::now();
        let a = rank_profile(t, 1, false).encode();
        let none = Profiler::new(0).encode();
        let merged = Profiler::merged(&[none, a], 2).unwrap();
        let root = merged.snapshot().unwrap();
        assert_eq!(root.rank_totals, vec![ms(0), ms(5)]);
        let kernel = root.child("k/seq/Direct").unwrap();
        assert_eq!(kernel.rank_totals, vec![ms(0), ms(3)]);
    }

    /// A level-3 profile with user sections, kernels and the sections inside
    /// them, names with quotes, tabs, newlines, control characters and
    /// non-ASCII text, and clocks at their extremes.
    fn every_kind_of_tree() -> Node {
        let t = Instant::now();
        let mut p = Profiler::new(3);
        p.start("Ap\"p\u{2}é\ttab\nnewline", at(t, 0));
        seq_loop(
            &mut p,
            "res\\calc",
            "Indirect",
            t,
            [1_000, 2_000, 3_000, 3_500],
        );
        p.enter("user ∑ 😀", at(t, 4));
        p.enter("", at(t, 4));
        p.exit(at(t, 5));
        p.exit(at(t, 5));
        p.end(at(t, 6));
        let mut tree = p.snapshot().unwrap();
        let mut extreme = Node::new("extreme\r\n\0");
        extreme.kind = NodeKind::Kernel;
        extreme.num_ranks = u64::MAX;
        extreme.clock = Clock {
            n: u64::MAX,
            total: Duration::MAX,
            min: Duration::new(0, 1),
            max: Duration::new(u64::MAX - 1, 999_999_999),
        };
        tree.children.push(extreme);
        tree
    }

    fn same_bits(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    fn same_figures(a: &KernelFigures, b: &KernelFigures) -> bool {
        let numbers = |f: &KernelFigures| [f.plan_time, f.mpi_time, f.transfer, f.transfer2];
        a.name == b.name
            && a.count == b.count
            && same_bits(&numbers(a), &numbers(b))
            && same_bits(&a.times, &b.times)
    }

    fn problem(result: Result<impl fmt::Debug, WireError>) -> Problem {
        result.unwrap_err().problem
    }

    // --------------------------------------------------------- round trips

    #[test]
    fn tree_round_trips_exactly() {
        let tree = every_kind_of_tree();
        assert!(tree.children[0].kind == NodeKind::Kernel);
        assert!(!tree.children[0].children.is_empty());
        let message = encode_profile(Some(&tree));
        assert_eq!(&message[..6], b"OP2W\x01\x01");
        assert_eq!(decode_profile(&message), Ok(Some(tree)));
    }

    #[test]
    fn empty_profiles_round_trip() {
        let none = encode_profile(None);
        assert_eq!(none, b"OP2W\x01\x01\x00");
        assert_eq!(decode_profile(&none), Ok(None));
        assert_eq!(Profiler::new(0).encode(), none);
        assert_eq!(Profiler::new(2).encode(), none);
        let root = Node::new("");
        let message = encode_profile(Some(&root));
        assert_eq!(message.len(), 7 + NODE_MIN_BYTES);
        assert_eq!(decode_profile(&message), Ok(Some(root)));
    }

    #[test]
    fn profiler_encode_is_its_snapshot() {
        let t = Instant::now();
        let mut p = Profiler::new(1);
        p.start("App", at(t, 0));
        p.enter("open", at(t, 2));
        let tree = decode_profile(&p.encode()).unwrap().unwrap();
        assert_eq!(Some(tree), p.snapshot());
        assert_eq!(p.root().unwrap().clock.n, 0);
    }

    #[test]
    fn figures_round_trip_bit_for_bit() {
        let a = k("res calc", &[0.1, 1.0 / 3.0, 0.0]);
        assert_eq!(
            decode_figures(&encode_figures(std::slice::from_ref(&a))),
            Ok(vec![a])
        );

        let odd = [
            f64::NAN,
            f64::from_bits(0x7ff0_0000_dead_beef),
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            f64::MIN_POSITIVE / 2.0,
            f64::MAX,
        ];
        let mut weird = k("tab\there\nnewline \"é\"", &odd);
        weird.count = i64::MIN;
        weird.plan_time = -0.0;
        weird.mpi_time = f64::NAN;
        weird.transfer = f64::INFINITY;
        weird.transfer2 = f64::NEG_INFINITY;
        let empty = KernelFigures {
            times: Vec::new(),
            ..k("", &[])
        };
        let all = [weird, empty, k("last", &[1.0])];
        let back = decode_figures(&encode_figures(&all)).unwrap();
        assert_eq!(back.len(), all.len());
        for (x, y) in all.iter().zip(&back) {
            assert!(same_figures(x, y), "{x:?} != {y:?}");
        }
        assert_eq!(decode_figures(&encode_figures(&[])), Ok(Vec::new()));
    }

    #[test]
    fn tree_at_the_depth_limit_round_trips_one_deeper_does_not() {
        fn chain(levels: usize) -> Node {
            let mut node = Node::new("leaf");
            for i in 1..levels {
                let mut parent = Node::new(&format!("level {i}"));
                parent.children.push(node);
                node = parent;
            }
            node
        }
        let deepest = chain(MAX_DEPTH);
        let message = encode_profile(Some(&deepest));
        assert_eq!(decode_profile(&message), Ok(Some(deepest)));
        let too_deep = encode_profile(Some(&chain(MAX_DEPTH + 1)));
        assert_eq!(problem(decode_profile(&too_deep)), Problem::TooDeep);
    }

    // ------------------------------------------------------------- errors

    #[test]
    fn every_truncation_of_a_tree_is_an_error() {
        let message = encode_profile(Some(&every_kind_of_tree()));
        for len in 0..message.len() {
            match decode_profile(&message[..len]) {
                Err(WireError {
                    offset,
                    problem: Problem::Truncated { .. },
                }) => assert!(offset <= len, "cut at {len}: offset {offset}"),
                other => panic!("cut at {len} of {}: {other:?}", message.len()),
            }
        }
    }

    #[test]
    fn every_truncation_of_figures_is_an_error() {
        let message = encode_figures(&[k("a", &[1.0, 2.0]), k("bb", &[])]);
        for len in 0..message.len() {
            let result = decode_figures(&message[..len]);
            assert!(
                matches!(problem(result), Problem::Truncated { .. }),
                "cut at {len}"
            );
        }
    }

    #[test]
    fn trailing_bytes_are_an_error() {
        let mut message = encode_profile(Some(&Node::new("a")));
        let end = message.len();
        message.extend_from_slice(b"xy");
        let err = decode_profile(&message).unwrap_err();
        assert_eq!((err.offset, err.problem), (end, Problem::TrailingBytes(2)));
        let mut figures = encode_figures(&[]);
        figures.push(0);
        assert_eq!(problem(decode_figures(&figures)), Problem::TrailingBytes(1));
    }

    #[test]
    fn header_errors_name_the_problem() {
        let good = encode_profile(None);
        let mut magic = good.clone();
        magic[0] = b'{';
        assert_eq!(problem(decode_profile(&magic)), Problem::BadMagic(*b"{P2W"));
        let mut version = good.clone();
        version[4] = 2;
        let err = decode_profile(&version).unwrap_err();
        assert_eq!(
            (err.offset, &err.problem),
            (4, &Problem::UnsupportedVersion(2))
        );
        assert_eq!(
            err.to_string(),
            "invalid op2 wire message at byte 4: layout version 2, this build reads version 1"
        );
        let err = decode_profile(&encode_figures(&[])).unwrap_err();
        assert_eq!(err.offset, 5);
        assert_eq!(
            err.problem,
            Problem::WrongMessage {
                expected: MessageKind::Profile,
                found: 2
            }
        );
        assert!(err
            .to_string()
            .ends_with("expected a profile message, found kind 2 (kernel figures)"));
        assert!(decode_figures(&good).is_err());
    }

    #[test]
    fn body_errors_name_the_field() {
        // Byte offsets in a profile message holding one node called "ab".
        let message = encode_profile(Some(&Node::new("ab")));
        let (presence, name, kind, nanos) = (6, 7 + 8, 7 + 8 + 2, 7 + 8 + 2 + 1 + 8 + 8);
        let corrupt = |at: usize, byte: u8| {
            let mut m = message.clone();
            m[at] = byte;
            decode_profile(&m).unwrap_err()
        };
        let what = "profile presence flag";
        let err = corrupt(presence, 7);
        assert_eq!(
            (err.offset, err.problem),
            (presence, Problem::BadTag { what, tag: 7 })
        );
        let err = corrupt(name, 0xff);
        let what = "node name";
        assert_eq!((err.offset, err.problem), (name, Problem::BadUtf8 { what }));
        let err = corrupt(kind, 2);
        let what = "node kind";
        assert_eq!(
            (err.offset, &err.problem),
            (kind, &Problem::BadTag { what, tag: 2 })
        );
        assert_eq!(
            err.to_string(),
            format!("invalid op2 wire message at byte {kind}: bad tag 2 for node kind")
        );
        let mut m = message.clone();
        m[nanos..nanos + 4].copy_from_slice(&1_000_000_000u32.to_le_bytes());
        let err = decode_profile(&m).unwrap_err();
        let what = "clock total";
        let bad = Problem::BadNanoseconds {
            what,
            nanos: 1_000_000_000,
        };
        assert_eq!((err.offset, err.problem), (nanos, bad));
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        let mut message = encode_profile(Some(&Node::new("")));
        let children = message.len() - 8;
        message[children..].copy_from_slice(&u64::MAX.to_le_bytes());
        let err = decode_profile(&message).unwrap_err();
        assert_eq!(err.offset, message.len());
        assert!(
            err.to_string().contains("truncated: children needs"),
            "{err}"
        );

        let mut figures = encode_figures(&[]);
        figures[6..].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        assert!(matches!(
            problem(decode_figures(&figures)),
            Problem::Truncated {
                what: "kernel figures",
                ..
            }
        ));
    }

    /// The checks of the former JSON reader's error test, for the messages
    /// that replace its input: none of them decodes, and every error says
    /// where and what.
    #[test]
    fn malformed_messages_are_errors() {
        let good = encode_profile(Some(&Node::new("a")));
        let mut bad_kind = good.clone();
        bad_kind[7 + 8 + 1] = 2;
        let mut bad_utf8 = good.clone();
        bad_utf8[7 + 8] = 0xc3;
        let mut extra = good.clone();
        extra.push(b'x');
        let cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"{".to_vec(),
            b"[]".to_vec(),
            good[..good.len() - 1].to_vec(),
            extra,
            bad_kind,
            bad_utf8,
            encode_figures(&[]),
            b"OP2W\x01\x01\x02".to_vec(),
            [&b"OP2W\x01\x01\x01"[..], &[0xff; 8]].concat(),
            b"[".repeat(10_000),
        ];
        for case in &cases {
            assert!(decode_profile(case).is_err(), "accepted: {case:?}");
        }
        let err = decode_profile(b"{").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("invalid op2 wire message at byte"));
    }

    // ------------------------------------------------ merging on the root

    /// The fields the former JSON reader had to recover survive the wire:
    /// non-ASCII names, the kind, `num_ranks`, and the defaults of
    /// [`Node::new`].
    #[test]
    fn decoded_fields_and_defaults() {
        let mut root = Node::new("Ré😀/");
        root.clock.submit(ns(10));
        let mut kernel = Node::new("k");
        kernel.kind = NodeKind::Kernel;
        kernel.num_ranks = 3;
        kernel.clock.submit(ns(2000));
        root.children.push(kernel);
        let node = decode_profile(&encode_profile(Some(&root)))
            .unwrap()
            .unwrap();
        assert_eq!(node.name, "Ré😀/");
        assert_eq!(node.kind, NodeKind::Standard);
        assert_eq!(node.num_ranks, 1);
        assert_eq!(node.clock.total, ns(10));
        let k = &node.children[0];
        assert_eq!((k.kind, k.num_ranks), (NodeKind::Kernel, 3));
        assert_eq!(k.clock.total, ns(2000));
    }

    #[test]
    fn merge_kind_and_wire_path() {
        let mut a = Node::new("App");
        a.clock.submit(ms(1));
        let mut s = Node::new("x");
        s.clock.submit(ms(1));
        a.children.push(s);
        let mut b = a.clone();
        b.children[0].kind = NodeKind::Kernel;

        let mut p = Profiler::new(1);
        let t = Instant::now();
        p.start("App", at(t, 0));
        p.end(at(t, 1));
        p.merge_tree(&a);
        p.merge_encoded(&encode_profile(Some(&b))).unwrap();
        let root = p.root().unwrap();
        assert_eq!(root.num_ranks, 3);
        assert_eq!(root.children[0].kind, NodeKind::Kernel);
        assert_eq!(root.children[0].clock.n, 2);
        assert!(p.merge_encoded(b"not a message").is_err());
        assert_eq!(p.root().unwrap().num_ranks, 3);
        p.merge_encoded(&encode_profile(None)).unwrap();
        assert_eq!(p.root().unwrap().num_ranks, 3);
    }

    /// What the root does with every rank's message gives the same report
    /// and JSON as merging the profilers in memory.
    #[test]
    fn merging_messages_matches_merging_in_memory() {
        let t = Instant::now();
        let ranks = [
            rank_profile(t, 1, false),
            rank_profile(t, 7, true),
            Profiler::new(2),
            rank_profile(t, 3, true),
        ];
        let mut in_memory = Profiler::new(2);
        let mut from_wire = Profiler::new(2);
        for rank in &ranks {
            in_memory.merge(rank);
            from_wire.merge_encoded(&rank.encode()).unwrap();
        }
        assert_eq!(from_wire.root(), in_memory.root());
        assert_eq!(from_wire.output(), in_memory.output());
        assert_eq!(from_wire.output_json(), in_memory.output_json());
        assert_eq!(from_wire.root().unwrap().num_ranks, 3);
    }

    #[test]
    fn every_corrupted_byte_decodes_or_errs_without_panicking() {
        let tree = encode_profile(Some(&every_kind_of_tree()));
        let figures = encode_figures(&[k("a", &[1.0, f64::NAN]), k("b", &[])]);
        for message in [tree, figures] {
            for at in 0..message.len() {
                for byte in [0, 1, 2, 0x7f, 0x80, 0xff] {
                    let mut m = message.clone();
                    m[at] = byte;
                    let _ = decode_profile(&m);
                    let _ = decode_figures(&m);
                }
            }
        }
    }

    // ------------------------------------------------------------ proptest

    fn arb_duration() -> impl Strategy<Value = Duration> {
        (any::<u64>(), 0..1_000_000_000u32).prop_map(|(s, n)| Duration::new(s, n))
    }

    fn arb_tree() -> impl Strategy<Value = Node> {
        let leaf = (
            ".{0,6}",
            any::<bool>(),
            any::<u64>(),
            [arb_duration(), arb_duration(), arb_duration()],
            any::<u64>(),
        )
            .prop_map(|(name, kernel, n, [total, min, max], num_ranks)| Node {
                name,
                kind: if kernel {
                    NodeKind::Kernel
                } else {
                    NodeKind::Standard
                },
                clock: Clock { n, total, min, max },
                num_ranks,
                rank_totals: Vec::new(),
                children: Vec::new(),
            });
        leaf.prop_recursive(4, 32, 4, |inner| {
            (inner.clone(), prop::collection::vec(inner, 0..4)).prop_map(|(mut node, children)| {
                node.children = children;
                node
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_tree_round_trips(tree in arb_tree()) {
            let message = encode_profile(Some(&tree));
            prop_assert_eq!(decode_profile(&message), Ok(Some(tree)));
        }

        #[test]
        fn any_figures_round_trip(
            records in prop::collection::vec(
                (".{0,8}", any::<i64>(), prop::collection::vec(any::<u64>(), 0..5), any::<[u64; 4]>()),
                0..4,
            )
        ) {
            let figures: Vec<KernelFigures> = records
                .into_iter()
                .map(|(name, count, times, [a, b, c, d])| KernelFigures {
                    name,
                    count,
                    times: times.into_iter().map(f64::from_bits).collect(),
                    plan_time: f64::from_bits(a),
                    mpi_time: f64::from_bits(b),
                    transfer: f64::from_bits(c),
                    transfer2: f64::from_bits(d),
                })
                .collect();
            let back = decode_figures(&encode_figures(&figures)).unwrap();
            prop_assert_eq!(back.len(), figures.len());
            for (x, y) in figures.iter().zip(&back) {
                prop_assert!(same_figures(x, y));
            }
        }

        #[test]
        fn arbitrary_bodies_never_panic(body in prop::collection::vec(any::<u8>(), 0..200)) {
            for header in [&b"OP2W\x01\x01"[..], &b"OP2W\x01\x02"[..], &[][..]] {
                let message = [header, &body[..]].concat();
                let _ = decode_profile(&message);
                let _ = decode_figures(&message);
            }
        }
    }
}
